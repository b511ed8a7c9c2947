//! Renderers of a run comparison ([`crate::analysis::diff`]): a table per
//! part (call tree, functions) and JSON (docs/JSON.md, `diff`).

use comfy_table::Cell;
use serde::Serialize;

use super::Report;
use super::document::{Document, FitRule};
use super::numfmt::fixed;
use super::table::{TableStyle, new_table, right_align_from};
use crate::analysis::diff::{Diff, DiffRow, DiffSort, Metric, Presence, Unified};
use crate::model::calltree::NodeId;

/// One input of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    /// The argument as given.
    pub path: String,
    /// Processes merged (`null` for timer trees).
    pub nprocs: Option<usize>,
}

/// Everything a diff report shows.
#[derive(Debug, Clone)]
pub struct DiffReport {
    /// `blprof`, `tlog` or `timer-tree`.
    pub kind: &'static str,
    pub a: RunInfo,
    pub b: RunInfo,
    pub metric: Metric,
    pub sort: DiffSort,
    /// Decimals of seconds in text (4 as the reference tables; 6 for the
    /// microsecond clock of tlog).
    pub decimals: usize,
    /// The call-path trees compared (`None`: the inputs have none).
    pub calltree: Option<Diff>,
    /// The function tables compared (bl_prof databases with a base profile).
    pub functions: Option<Diff>,
    /// The tables' layout.
    pub style: TableStyle,
    /// Listed in the JSON.
    pub warnings: Vec<String>,
}

fn value(metric: Metric, decimals: usize, x: f64) -> String {
    let s = match metric {
        Metric::Calls => fixed(x, 0),
        _ => fixed(x, decimals),
    };
    // No "-0.0000": a sign only where a digit shows.
    match s.strip_prefix('-') {
        Some(rest) if !rest.bytes().any(|b| (b'1'..=b'9').contains(&b)) && x.is_finite() => {
            rest.to_owned()
        }
        _ => s,
    }
}

fn signed(metric: Metric, decimals: usize, x: f64) -> String {
    let s = value(metric, decimals, x);
    // "+0.0000" would suggest a change; print zero unsigned.
    if x > 0.0 && (s.bytes().any(|b| (b'1'..=b'9').contains(&b)) || x.is_infinite()) {
        format!("+{s}")
    } else {
        s
    }
}

/// The relative difference in percent, or `new` when A is 0.
pub fn rel_text(rel: Option<f64>) -> String {
    match rel {
        None => "new".to_owned(),
        Some(r) => {
            let s = fixed(100.0 * r, 1);
            if r > 0.0 && s != "0.0" {
                format!("+{s}")
            } else if s == "-0.0" {
                "0.0".to_owned()
            } else {
                s
            }
        }
    }
}

fn unit(metric: Metric) -> &'static str {
    match metric {
        Metric::Calls => "calls",
        _ => "seconds",
    }
}

fn part(doc: &mut Document<'_>, title: &str, what: &str, d: &Diff, r: &DiffReport) {
    let (metric, dec) = (r.metric, r.decimals);
    doc.line(format!(
        "{title}: {} {}, {} only in A (-), {} only in B (+); total {} → {} ({})",
        d.nodes,
        if what == "Function" {
            "functions"
        } else {
            "nodes"
        },
        d.only_a,
        d.only_b,
        value(metric, dec, d.total_a),
        value(metric, dec, d.total_b),
        signed(metric, dec, d.total_b - d.total_a),
    ));
    if d.rows.is_empty() {
        doc.line("(no rows left by --min-diff/--top)\n");
        return;
    }
    let mut t = new_table(vec![
        "", what, "A", "B", "B−A", "Rel %", "Calls A", "Calls B",
    ]);
    let mut shortened = false;
    // The first names of every row's path in `HEAD_LEVELS` steps: a row
    // costs the names it shows, not its depth (a tree 50,000 deep).
    let heads = d.tree.heads(HEAD_LEVELS);
    for x in &d.rows {
        let levels = x.depth + 1;
        shortened |= levels > MAX_TEXT_LEVELS;
        t.add_row(vec![
            Cell::new(x.presence.mark()),
            Cell::new(path_text(&d.tree, x.node, levels, &heads)),
            Cell::new(value(metric, dec, x.a)),
            Cell::new(value(metric, dec, x.b)),
            Cell::new(signed(metric, dec, x.diff)),
            Cell::new(rel_text(x.rel)),
            Cell::new(x.calls_a),
            Cell::new(x.calls_b),
        ]);
    }
    right_align_from(&mut t, 2);
    // Narrow outputs keep the path and the times; the calls go first.
    doc.fitted_by(
        t,
        FitRule {
            shrink: Some(1),
            drop_ranks: vec![0, 0, 0, 0, 0, 1, 2, 2],
        },
    );
    if shortened {
        doc.line(format!(
            "Paths deeper than {MAX_TEXT_LEVELS} calls are shortened in the middle (`--format json` has them whole)."
        ));
    }
    doc.line("");
}

/// Call paths longer than this are shortened in text tables: a path
/// thousands of calls deep is unreadable, and a table of such rows would
/// grow with the square of the depth.
const MAX_TEXT_LEVELS: usize = 32;

/// Names kept at the start of a shortened path (the rest of
/// [`MAX_TEXT_LEVELS`] at its end, around the count of those left out).
const HEAD_LEVELS: usize = 4;

/// `a > b > c` for the path of `node` (`levels` names), or for a path over
/// [`MAX_TEXT_LEVELS`] its first and last names around `… N more …`;
/// `heads` is [`CallTree::heads`] of [`HEAD_LEVELS`].
///
/// [`CallTree::heads`]: crate::model::calltree::CallTree::heads
fn path_text(tree: &Unified, node: NodeId, levels: usize, heads: &[NodeId]) -> String {
    if levels <= MAX_TEXT_LEVELS {
        return tree.path_tail(node, MAX_TEXT_LEVELS).join(" > ");
    }
    let tail = MAX_TEXT_LEVELS - HEAD_LEVELS - 1;
    let hidden = levels - HEAD_LEVELS - tail;
    format!(
        "{} > … {hidden} more … > {}",
        tree.path_tail(heads[node.0 as usize], HEAD_LEVELS)
            .join(" > "),
        tree.path_tail(node, tail).join(" > ")
    )
}

/// About the bytes of the JSON of `report`: each row's path, one name per
/// line, dominates it (a tree thousands deep writes gigabytes), so it is
/// summed in one pass over the trees before anything is written.
pub fn estimated_json_bytes(report: &DiffReport) -> u64 {
    // A name's line: indent, quotes, comma and line break; a row's other fields.
    const NAME_LINE: u64 = 12;
    const ROW: u64 = 260;
    let part = |d: &Diff| -> u64 {
        let below = d.tree.path_bytes(NAME_LINE);
        d.rows
            .iter()
            .map(|r| below[r.node.0 as usize] + ROW)
            .fold(0u64, u64::saturating_add)
    };
    [&report.calltree, &report.functions]
        .into_iter()
        .flatten()
        .map(part)
        .fold(0, u64::saturating_add)
}

/// The JSON of `diff` (docs/JSON.md).
#[derive(Serialize)]
pub struct DiffWire<'a> {
    kind: &'a str,
    a: &'a RunInfo,
    b: &'a RunInfo,
    metric: Metric,
    unit: &'a str,
    sort: DiffSort,
    calltree: Option<PartJson<'a>>,
    functions: Option<PartJson<'a>>,
    warnings: &'a [String],
}

impl Report for DiffReport {
    type Wire<'w> = DiffWire<'w>;

    fn wire(&self) -> DiffWire<'_> {
        DiffWire {
            kind: self.kind,
            a: &self.a,
            b: &self.b,
            metric: self.metric,
            unit: unit(self.metric),
            sort: self.sort,
            calltree: self.calltree.as_ref().map(part_json),
            functions: self.functions.as_ref().map(part_json),
            warnings: &self.warnings,
        }
    }

    /// The tables: the call tree first, then the functions.
    fn document(&self) -> Document<'_> {
        let r = self;
        let procs = |i: &RunInfo| match i.nprocs {
            Some(1) => " (1 process)".to_owned(),
            Some(n) => format!(" ({n} processes)"),
            None => String::new(),
        };
        let mut doc = Document::new();
        doc.line(format!("A: {}{}", r.a.path, procs(&r.a)))
            .line(format!("B: {}{}", r.b.path, procs(&r.b)));
        let averaged = r.a.nprocs.is_some() && r.metric != Metric::Calls;
        doc.line(format!(
            "{} {}{}; sorted by {}.\n",
            r.metric.name(),
            unit(r.metric),
            if averaged {
                " (averages over processes)"
            } else {
                ""
            },
            r.sort.name()
        ));
        if let Some(d) = &r.calltree {
            part(&mut doc, "Call tree", "Call path", d, r);
        }
        if let Some(d) = &r.functions {
            let title = if r.kind == "tinyprofiler" {
                match r.metric {
                    Metric::Calls => "Timers (TinyProfiler: mean calls per rank)",
                    Metric::Exclusive => {
                        "Timers (TinyProfiler: average exclusive seconds over ranks)"
                    }
                    _ => "Timers (TinyProfiler: average inclusive seconds over ranks)",
                }
            } else if r.metric == Metric::Calls {
                "Functions (calls over all processes)"
            } else {
                "Functions (average exclusive seconds, base profile)"
            };
            part(&mut doc, title, "Function", d, r);
        }
        doc
    }
}

#[derive(Serialize)]
struct RowJson<'a> {
    path: Vec<&'a str>,
    name: &'a str,
    depth: usize,
    mark: Presence,
    a: f64,
    b: f64,
    diff: f64,
    rel: Option<f64>,
    calls_a: u64,
    calls_b: u64,
}

#[derive(Serialize)]
pub struct PartJson<'a> {
    nodes: usize,
    only_a: usize,
    only_b: usize,
    total_a: f64,
    total_b: f64,
    rows: RowsJson<'a>,
}

/// The rows, each path made as the row is written (memory stays one path
/// deep however many deep rows there are).
struct RowsJson<'a>(&'a Diff);

impl Serialize for RowsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.rows.iter().map(|r| row_json(self.0, r)))
    }
}

fn part_json(d: &Diff) -> PartJson<'_> {
    PartJson {
        nodes: d.nodes,
        only_a: d.only_a,
        only_b: d.only_b,
        total_a: d.total_a,
        total_b: d.total_b,
        rows: RowsJson(d),
    }
}

fn row_json<'a>(d: &'a Diff, r: &DiffRow) -> RowJson<'a> {
    let path = d.path(r);
    RowJson {
        name: path.last().copied().unwrap_or(""),
        depth: r.depth,
        path,
        mark: r.presence,
        a: r.a,
        b: r.b,
        diff: r.diff,
        rel: r.rel,
        calls_a: r.calls_a,
        calls_b: r.calls_b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(rel_text(None), "new");
        assert_eq!(rel_text(Some(0.0)), "0.0");
        assert_eq!(rel_text(Some(-0.00001)), "0.0");
        assert_eq!(rel_text(Some(0.25)), "+25.0");
        assert_eq!(signed(Metric::Inclusive, 4, 0.00001), "0.0000");
        assert_eq!(signed(Metric::Inclusive, 4, -0.00001), "0.0000");
        assert_eq!(signed(Metric::Inclusive, 4, 1.5), "+1.5000");
        assert_eq!(signed(Metric::Inclusive, 6, 0.00001), "+0.000010");
        assert_eq!(signed(Metric::Calls, 4, -3.0), "-3");
    }
}
