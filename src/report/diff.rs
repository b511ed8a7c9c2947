//! Renderers of a run comparison ([`crate::analysis::diff`]): a table per
//! part (call tree, functions) and JSON (docs/JSON.md, `diff`).

use serde::Serialize;

use crate::analysis::diff::{Diff, DiffRow, DiffSort, Metric, Presence, Unified};
use crate::model::calltree::NodeId;
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::layout::call_path;
use crate::report::numfmt::human::{duration, fixed, fixed_not_zero};
use crate::report::renderers::text::unbroken;

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
    /// The call-path trees compared (`None`: the inputs have none).
    pub calltree: Option<Diff>,
    /// The function tables compared (bl_prof databases with a base profile).
    pub functions: Option<Diff>,
    /// Listed in the JSON.
    pub warnings: Vec<String>,
}

/// A value of the metric for people: calls as a count, times with their
/// unit (`2.600 µs`, never `0.0000`).
fn value(metric: Metric, x: f64) -> String {
    match metric {
        Metric::Calls => {
            let s = fixed(x, 0);
            // No "-0": a sign only where a digit shows.
            match s.strip_prefix('-') {
                Some("0") => "0".to_owned(),
                _ => s,
            }
        }
        _ => duration(x).trim_end().to_owned(),
    }
}

/// A change: `+` before an increase ("+0" would suggest a change; zero is
/// unsigned).
fn signed(metric: Metric, x: f64) -> String {
    let s = value(metric, x);
    if x > 0.0 && s != "0" {
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
            let s = fixed_not_zero(100.0 * r, 1);
            if r > 0.0 { format!("+{s}") } else { s }
        }
    }
}

fn unit(metric: Metric) -> &'static str {
    match metric {
        Metric::Calls => "calls",
        _ => "seconds",
    }
}

fn part<'a>(doc: &mut Document<'a>, title: &str, what: &str, d: &'a Diff, r: &DiffReport) {
    let metric = r.metric;
    doc.prose(format!(
        "{title}: {} {}, {} only in A (-), {} only in B (+); total {} → {} ({})",
        d.nodes,
        if what == "Function" {
            "functions"
        } else {
            "nodes"
        },
        d.only_a,
        d.only_b,
        unbroken(&value(metric, d.total_a)),
        unbroken(&value(metric, d.total_b)),
        unbroken(&signed(metric, d.total_b - d.total_a)),
    ));
    if d.rows.is_empty() {
        doc.line("(no rows left by --min-diff/--top)\n");
        return;
    }
    let shortened = d.rows.iter().any(|x| x.depth + 1 > MAX_TEXT_LEVELS);
    // The first names of every row's path in `HEAD_LEVELS` steps: a row
    // costs the names it shows, not its depth (a tree 50,000 deep).
    let heads = d.tree.heads(HEAD_LEVELS);
    // Columns as wide as their widest cell, so that the numbers line up
    // (`+14060.7` %, a sub-nanosecond `-2.220e-16 s`).
    let widest = |least: usize, cell: &dyn Fn(&DiffRow) -> String| {
        d.rows
            .iter()
            .map(|x| cell(x).chars().count())
            .fold(least, usize::max)
    };
    let columns = vec![
        Column::left("", 1).whole(),
        Column::path(what, 0).after("  "),
        Column::right("A", widest(8, &|x| value(metric, x.a))).after("  "),
        Column::right("B", widest(8, &|x| value(metric, x.b))).after("  "),
        Column::right("B−A", widest(9, &|x| signed(metric, x.diff))).after("  "),
        // Narrow outputs keep the path and the times; the calls go first.
        Column::right("Rel %", widest(7, &|x| rel_text(x.rel)))
            .after("  ")
            .droppable(1),
        Column::right("Calls A", widest(8, &|x| x.calls_a.to_string()))
            .after("  ")
            .droppable(2),
        Column::right("Calls B", widest(8, &|x| x.calls_b.to_string()))
            .after("  ")
            .droppable(2),
    ];
    let rows = d.rows.iter().map(move |x| {
        vec![
            x.presence.mark().to_owned(),
            path_cell(&d.tree, x.node, x.depth + 1, &heads),
            value(metric, x.a),
            value(metric, x.b),
            signed(metric, x.diff),
            rel_text(x.rel),
            x.calls_a.to_string(),
            x.calls_b.to_string(),
        ]
    });
    doc.table(Table::new(columns, rows));
    if shortened {
        doc.prose(format!(
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

/// The cell of a call path ([`call_path::cell`]) of `node` (`levels`
/// names), or for a path over [`MAX_TEXT_LEVELS`] its first and last names
/// around `… N more …`; `heads` is [`CallTree::heads`] of [`HEAD_LEVELS`].
///
/// [`CallTree::heads`]: crate::model::calltree::CallTree::heads
fn path_cell(tree: &Unified, node: NodeId, levels: usize, heads: &[NodeId]) -> String {
    if levels <= MAX_TEXT_LEVELS {
        return call_path::cell(&tree.path_tail(node, MAX_TEXT_LEVELS));
    }
    let tail = MAX_TEXT_LEVELS - HEAD_LEVELS - 1;
    let hidden = format!("… {} more …", levels - HEAD_LEVELS - tail);
    let mut frames = tree.path_tail(heads[node.0 as usize], HEAD_LEVELS);
    frames.push(&hidden);
    frames.extend(tree.path_tail(node, tail));
    call_path::cell(&frames)
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
        doc.prose(format!("A: {}{}", r.a.path, procs(&r.a)))
            .prose(format!("B: {}{}", r.b.path, procs(&r.b)));
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
        assert_eq!(rel_text(Some(0.0)), "0");
        assert_eq!(rel_text(Some(-0.00001)), "-0.001");
        assert_eq!(rel_text(Some(0.25)), "+25.0");
        // Times too small for 4 decimals of seconds show in their unit.
        assert_eq!(signed(Metric::Inclusive, 2.6e-6), "+2.600 µs");
        assert_eq!(signed(Metric::Inclusive, -0.00001), "-10.00 µs");
        assert_eq!(signed(Metric::Inclusive, 1.5), "+1.500 s");
        assert_eq!(signed(Metric::Inclusive, 0.0), "0");
        assert_eq!(signed(Metric::Calls, -3.0), "-3");
        assert_eq!(signed(Metric::Calls, -0.2), "0");
        assert_eq!(signed(Metric::Calls, 0.2), "0");
    }

    #[test]
    fn deep_paths_keep_their_ends() {
        let names: Vec<String> = (0..40).map(|i| format!("f{i}")).collect();
        let path: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut tree = Unified::new();
        let node = tree.node_at_path(&path);
        let heads = tree.heads(HEAD_LEVELS);
        let text = call_path::whole(&path_cell(&tree, node, path.len(), &heads));
        assert!(
            text.starts_with("f0 > f1 > f2 > f3 > … 9 more … > f13 > "),
            "{text}"
        );
        assert!(text.ends_with(" > f39"), "{text}");
    }
}
