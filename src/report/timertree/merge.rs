//! Renderers of a merged tree (`analysis::timertree_merge`): an indented
//! text table and JSON.
//!
//! JSON schema (a contract; see docs/TIMER_TREE.md):
//! `{"files": [path...], "timers": [{"path": [name...], "depth": d,
//! "files": k, "min": t, "avg": t, "max": t, "sum": t, "min_file": path,
//! "max_file": path}...]}` in pre-order; `t` is a number or `"NaN"`,
//! `"Infinity"`, `"-Infinity"`.

use serde::Serialize;

use crate::analysis::timertree_merge::Spread;
use crate::model::calltree::CallTree;
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::numfmt::human::duration;
use crate::report::numfmt::padding::TreeIndent;
use crate::report::numfmt::round_trip::time_text;

/// `tree merge`'s report: the merged tree and the files merged.
pub struct MergeReport<'a> {
    pub tree: &'a CallTree<Spread>,
    /// The inputs, as named; a timer's `files`, `min_file` and `max_file`
    /// index them.
    pub files: &'a [String],
}

impl MergeReport<'_> {
    fn file(&self, i: usize) -> &str {
        self.files.get(i).map_or("?", String::as_str)
    }
}

impl Report for MergeReport<'_> {
    type Wire<'w>
        = WireMerge<'w>
    where
        Self: 'w;

    fn wire(&self) -> WireMerge<'_> {
        let tree = self.tree;
        let timers = tree
            .preorder()
            .into_iter()
            .map(|(id, depth)| {
                let s = &tree.node(id).metrics;
                WireTimer {
                    path: tree.path(id),
                    depth,
                    files: s.files,
                    min: WireTime(s.min),
                    avg: WireTime(s.avg()),
                    max: WireTime(s.max),
                    sum: WireTime(s.sum),
                    min_file: self.file(s.min_file),
                    max_file: self.file(s.max_file),
                }
            })
            .collect();
        WireMerge {
            files: self.files,
            timers,
        }
    }

    /// The text table: one row per timer in pre-order, names indented by
    /// depth.
    fn document(&self) -> Document<'_> {
        let tree = self.tree;
        let order = tree.preorder();
        let label = |id, depth: usize| format!("{}{}", TreeIndent::new(depth), tree.name(id));
        let width = order
            .iter()
            .map(|&(id, depth)| label(id, depth).chars().count())
            .chain([5])
            .max()
            .unwrap_or(5);
        let rows = order.into_iter().map(move |(id, depth)| {
            let s = &tree.node(id).metrics;
            vec![
                label(id, depth),
                s.files.to_string(),
                duration(s.min),
                duration(s.avg()),
                duration(s.max),
                duration(s.sum),
                self.file(s.max_file).to_owned(),
            ]
        });
        let mut doc = Document::new();
        doc.table(Table::new(
            vec![
                Column::left("timer", width),
                Column::right("files", 5).after("  "),
                Column::right("min", 10),
                Column::right("avg", 10),
                Column::right("max", 10),
                // The sum is the average times the files: it goes first.
                Column::right("sum", 10).droppable(2),
                Column::left("max in", 0).after("  ").droppable(1),
            ],
            rows,
        ));
        doc
    }
}

/// The JSON of a merge.
#[derive(Serialize)]
pub struct WireMerge<'a> {
    files: &'a [String],
    timers: Vec<WireTimer<'a>>,
}

#[derive(Serialize)]
pub struct WireTimer<'a> {
    path: Vec<&'a str>,
    depth: usize,
    files: usize,
    min: WireTime,
    avg: WireTime,
    max: WireTime,
    sum: WireTime,
    min_file: &'a str,
    max_file: &'a str,
}

/// Seconds as a JSON number, or the name of a special value.
pub struct WireTime(f64);

impl Serialize for WireTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f64(self.0)
        } else {
            s.serialize_str(&time_text(self.0))
        }
    }
}
