//! Renderers of a merged tree (`analysis::timertree_merge`): an indented
//! text table and JSON.
//!
//! JSON schema (a contract; see docs/TIMER_TREE.md):
//! `{"files": [path...], "timers": [{"path": [name...], "depth": d,
//! "files": k, "min": t, "avg": t, "max": t, "sum": t, "min_file": path,
//! "max_file": path}...]}` in pre-order; `t` is a number or `"NaN"`,
//! `"Infinity"`, `"-Infinity"`.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::timertree_merge::Spread;
use crate::model::calltree::CallTree;
use crate::report::numfmt::{es12_5, time_text};

/// The text table: one row per timer in pre-order, names indented by depth.
pub fn write_merge_table(
    w: &mut dyn Write,
    tree: &CallTree<Spread>,
    files: &[String],
) -> io::Result<()> {
    let rows: Vec<(String, &Spread)> = tree
        .preorder()
        .into_iter()
        .map(|(id, depth)| {
            (
                format!("{:pad$}{}", "", tree.name(id), pad = 2 * depth),
                &tree.node(id).metrics,
            )
        })
        .collect();
    let width = rows
        .iter()
        .map(|(label, _)| label.chars().count())
        .chain([5])
        .max()
        .unwrap_or(5);
    let file = |i: usize| files.get(i).map_or("?", String::as_str);
    writeln!(
        w,
        "{:<width$}  {:>5} {:>12} {:>12} {:>12} {:>12}  max in",
        "timer", "files", "min", "avg", "max", "sum"
    )?;
    for (label, s) in rows {
        let pad = width - label.chars().count();
        writeln!(
            w,
            "{label}{:pad$}  {:>5} {:>12} {:>12} {:>12} {:>12}  {}",
            "",
            s.files,
            es12_5(s.min),
            es12_5(s.avg()),
            es12_5(s.max),
            es12_5(s.sum),
            file(s.max_file)
        )?;
    }
    Ok(())
}

#[derive(Serialize)]
struct WireMerge<'a> {
    files: &'a [String],
    timers: Vec<WireTimer<'a>>,
}

#[derive(Serialize)]
struct WireTimer<'a> {
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
struct WireTime(f64);

impl Serialize for WireTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f64(self.0)
        } else {
            s.serialize_str(&time_text(self.0))
        }
    }
}

/// The JSON form of a merge.
pub fn write_merge_json(
    w: &mut dyn Write,
    tree: &CallTree<Spread>,
    files: &[String],
) -> io::Result<()> {
    let file = |i: usize| files.get(i).map_or("?", String::as_str);
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
                min_file: file(s.min_file),
                max_file: file(s.max_file),
            }
        })
        .collect();
    serde_json::to_writer_pretty(&mut *w, &WireMerge { files, timers })?;
    writeln!(w)
}
