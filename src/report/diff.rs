//! Renderers of a run comparison ([`crate::analysis::diff`]): a table per
//! part (call tree, functions) and JSON (docs/JSON.md, `diff`).

use comfy_table::Cell;
use serde::Serialize;

use super::Report;
use super::document::Document;
use super::numfmt::fixed;
use super::table::{TableStyle, new_table, right_align_from};
use crate::analysis::diff::{Diff, DiffRow, DiffSort, Metric, Presence};

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
    let mut t = new_table(
        r.style,
        vec!["", what, "A", "B", "B−A", "Rel %", "Calls A", "Calls B"],
    );
    for x in &d.rows {
        t.add_row(vec![
            Cell::new(x.presence.mark()),
            Cell::new(x.path.join(" > ")),
            Cell::new(value(metric, dec, x.a)),
            Cell::new(value(metric, dec, x.b)),
            Cell::new(signed(metric, dec, x.diff)),
            Cell::new(rel_text(x.rel)),
            Cell::new(x.calls_a),
            Cell::new(x.calls_b),
        ]);
    }
    right_align_from(&mut t, 2);
    doc.fitted(t).line("");
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
    path: &'a [String],
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
    rows: Vec<RowJson<'a>>,
}

fn part_json(d: &Diff) -> PartJson<'_> {
    PartJson {
        nodes: d.nodes,
        only_a: d.only_a,
        only_b: d.only_b,
        total_a: d.total_a,
        total_b: d.total_b,
        rows: d.rows.iter().map(row_json).collect(),
    }
}

fn row_json(r: &DiffRow) -> RowJson<'_> {
    RowJson {
        path: &r.path,
        name: r.path.last().map_or("", String::as_str),
        depth: r.path.len().saturating_sub(1),
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
