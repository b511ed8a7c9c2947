//! The call-path tree merged over processes as a [`Report`]: which nodes
//! show and how ([`view`]), and one writer per format — indented
//! [`text`], [`json`] (through [`json_tree`], without recursion),
//! [`hatchet`]'s literal JSON, [`folded`] stacks (flame graphs) and a
//! self-contained [`html`] page. `calltree --focus` ([`focus`]) reuses
//! the text, JSON and HTML writers.

pub mod focus;
pub mod folded;
pub mod hatchet;
pub mod html;
pub mod json;
pub mod json_tree;
pub mod text;
pub mod view;

use std::io::{self, Write};

use rayon::prelude::*;

use crate::analysis::calltree::Spread;
use crate::model::calltree::CallTree;
use crate::report::{Column, Document, Format, Report, Table};
use folded::write_folded;
use hatchet::write_hatchet;
use html::write_html;
use json::{TreeJson, tree_json, write_tree_json};
use text::{Cuts, LINES_PER_TASK, header, hidden_roots, scope, text_lines, times_line};
use view::visible;
pub use view::{Aggregate, Order, TreeView};

/// A call-path tree ready to write in any of its formats: `text` (its
/// [`Document`]), `json` (its wire value) and, in [`Report::write_other`],
/// the layouts of trees: `folded`, `hatchet`, `html`.
pub struct TreeReport<'a> {
    pub tree: &'a CallTree<Spread>,
    pub view: TreeView,
    /// The one process shown; `None`: merged over `view.nprocs` processes.
    pub proc: Option<usize>,
    /// The database as the user named it: the text's heading and the HTML
    /// page's title (`None`: the text has no heading).
    pub source: Option<String>,
}

impl Report for TreeReport<'_> {
    type Wire<'w>
        = TreeJson<'w>
    where
        Self: 'w;

    fn wire(&self) -> TreeJson<'_> {
        tree_json(self.tree, &self.view, self.proc)
    }

    fn write_json(&self, w: &mut dyn Write) -> io::Result<()> {
        write_tree_json(w, self.tree, &self.view, self.proc)
    }

    /// Indented text: one line per node, numbers first, the call path last.
    fn document(&self) -> Document<'_> {
        let (tree, view) = (self.tree, &self.view);
        let mut doc = Document::new();
        if let Some(source) = &self.source {
            let what = match view.order {
                Order::Inclusive => "call tree",
                Order::Exclusive => "bottom-up call tree",
            };
            doc.line(format!(
                "{source}: {what} of {}",
                scope(self.proc, view.nprocs)
            ));
            if view.order == Order::Exclusive {
                doc.line("Functions by exclusive time, below each its callers.");
            }
            doc.line(times_line(self.proc, view)).line("");
        }
        doc.line(header(view));
        // The lines, formatted in parallel runs as they are written: each
        // row is one run of lines (without its last newline).
        let nodes = visible(tree, view);
        let cuts = Cuts::of(tree, view, &nodes);
        let hidden_roots = hidden_roots(tree, view, &nodes);
        let runs = nodes.len().div_ceil(LINES_PER_TASK);
        let batch = 2 * rayon::current_num_threads().max(1);
        let rows = (0..runs).step_by(batch).flat_map(move |first| {
            (first..(first + batch).min(runs))
                .into_par_iter()
                .map(|r| {
                    let lines = r * LINES_PER_TASK..((r + 1) * LINES_PER_TASK).min(nodes.len());
                    let mut text = text_lines(tree, view, &nodes, &cuts, lines);
                    text.pop();
                    vec![text]
                })
                .collect::<Vec<_>>()
        });
        doc.table(Table::new(vec![Column::left("", 0)], rows).headless());
        if let Some(line) = hidden_roots {
            doc.line(line);
        }
        doc
    }

    fn write_other(&self, format: Format, w: &mut dyn Write) -> io::Result<()> {
        let (tree, view) = (self.tree, &self.view);
        match format {
            Format::Folded => write_folded(w, tree, view),
            Format::Hatchet => write_hatchet(w, tree, view),
            Format::Html => write_html(w, tree, view, self.source.as_deref().unwrap_or("")),
            other => Err(crate::report::not_offered(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::folded::folded_bytes;
    use super::*;

    /// A tree of `n` nodes in chains of three under the root, every call
    /// timed and the middle of each chain leaving time untimed.
    fn tree(n: usize) -> CallTree<Spread> {
        let mut tree = CallTree::<Spread>::new();
        for i in 0..n / 3 {
            let mut parent = tree.root();
            for level in 0..3 {
                let id = tree.child(parent, &format!("f{i}_{level}"));
                let m = &mut tree.node_mut(id).metrics;
                m.total.inclusive = (n - i) as f64 * (3 - level) as f64;
                m.total.exclusive = if level == 1 { 0.5 } else { 1.0 };
                m.total.calls = 1 + level as u64;
                m.procs = 2;
                m.inclusive_max = m.total.inclusive / 2.0;
                m.inclusive_max_proc = Some(level);
                parent = id;
            }
        }
        tree
    }

    /// The folded estimate is the size written (the output guard compares
    /// it with the limit): a chain 2,000 deep with a `;`, control
    /// characters, a C1 control and nodes under a microsecond (no line),
    /// and trees of the other shapes, top-down and bottom-up.
    #[test]
    fn folded_bytes_is_the_size_written() {
        let mut deep = CallTree::<Spread>::new();
        let mut parent = deep.root();
        for level in 0..2000usize {
            let name = match level % 4 {
                0 => "a;b".to_owned(),
                1 => format!("x\x1b[2J\n{level}"),
                2 => "c\u{85}é".to_owned(),
                _ => format!("f{level}"),
            };
            let id = deep.child(parent, &name);
            let m = &mut deep.node_mut(id).metrics;
            m.total.exclusive = if level % 3 == 0 {
                1e-7
            } else {
                level as f64 * 1e-3
            };
            m.total.inclusive = 1.0;
            m.total.calls = 1;
            m.procs = 1;
            parent = id;
        }
        let wide = tree(300);
        let up = bottom_up_tree();
        for (t, order) in [
            (&deep, Order::Inclusive),
            (&wide, Order::Inclusive),
            (&up, Order::Exclusive),
        ] {
            let report = TreeReport {
                tree: t,
                view: TreeView {
                    nprocs: 1,
                    order,
                    ..Default::default()
                },
                proc: None,
                source: None,
            };
            let mut out = Vec::new();
            super::super::render(&report, Format::Folded, None, &mut out).unwrap();
            assert!(!out.is_empty());
            assert_eq!(folded_bytes(t, &report.view), out.len() as u64);
            let text = String::from_utf8(out).unwrap();
            assert!(text.chars().all(|c| !c.is_control() || c == '\n'));
        }
    }

    /// A bottom-up tree of `f`: 3 s of exclusive time, 1 s of it in calls
    /// from `g`, the rest in outermost calls.
    fn bottom_up_tree() -> CallTree<Spread> {
        let mut tree = CallTree::<Spread>::new();
        let f = tree.child(tree.root(), "f");
        let g = tree.child(f, "g");
        for (id, excl, incl) in [(f, 3.0, 5.0), (g, 1.0, 1.5)] {
            let m = &mut tree.node_mut(id).metrics;
            m.total.exclusive = excl;
            m.total.inclusive = incl;
            m.total.calls = 1;
            m.procs = 1;
            m.inclusive_min = incl;
            m.inclusive_max = incl;
            m.inclusive_max_proc = Some(0);
        }
        tree
    }

    /// The JSON written without recursion is serde's pretty JSON of the
    /// wire value, byte for byte: top-down, bottom-up, cut by `--depth`,
    /// merged and of one process.
    #[test]
    fn json_without_recursion_is_the_wire_value() {
        let (top_down, bottom_up) = (tree(30), bottom_up_tree());
        for (tree, order) in [
            (&top_down, Order::Inclusive),
            (&bottom_up, Order::Exclusive),
        ] {
            for (max_depth, proc) in [(None, None), (Some(1), Some(0)), (Some(0), None)] {
                let report = TreeReport {
                    tree,
                    view: TreeView {
                        nprocs: 2,
                        order,
                        max_depth,
                        ..Default::default()
                    },
                    proc,
                    source: None,
                };
                let mut out = Vec::new();
                super::super::render(&report, Format::Json, None, &mut out).unwrap();
                let expected = serde_json::to_string_pretty(&report.wire()).unwrap() + "\n";
                assert_eq!(String::from_utf8(out).unwrap(), expected);
            }
        }
    }

    /// Exclusive time first; the outermost calls as the remainder row, in
    /// JSON as `outermost`, in folded stacks as the function's own line.
    #[test]
    fn bottom_up_rows_json_and_stacks() {
        let tree = bottom_up_tree();
        let report = TreeReport {
            tree: &tree,
            view: TreeView {
                nprocs: 1,
                order: Order::Exclusive,
                ..Default::default()
            },
            proc: Some(0),
            source: None,
        };
        let mut out = Vec::new();
        super::super::render(&report, Format::Text, None, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(lines[0][..2], ["Exclusive", "Inclusive"]);
        assert_eq!(lines[1], ["3.000", "s", "5.000", "s", "1", "f"]);
        // The remainder comes first below its node, as `(untimed)` does.
        assert_eq!(lines[2], ["2.000", "s", "(outermost:", "no", "caller)"]);
        assert_eq!(lines[3], ["1.000", "s", "1.500", "s", "1", "g"]);
        let mut out = Vec::new();
        super::super::render(&report, Format::Json, None, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["view"], "bottom-up");
        assert_eq!(v["total_exclusive"], 3.0);
        assert!(v.get("total_inclusive").is_none());
        assert_eq!(v["roots"][0]["outermost"], 2.0);
        assert!(v["roots"][0].get("untimed").is_none());
        assert_eq!(v["roots"][0]["children"][0]["outermost"], 1.0);
        let mut out = Vec::new();
        super::super::render(&report, Format::Folded, None, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "f 2000000\nf;g 1000000\n");
    }

    #[test]
    fn text_written_in_runs_is_the_text_of_one_pass() {
        for nprocs in [1, 2] {
            let tree = tree(3 * LINES_PER_TASK + 7);
            let view = TreeView {
                nprocs,
                ..Default::default()
            };
            let report = TreeReport {
                tree: &tree,
                view,
                proc: None,
                source: Some("db".into()),
            };
            let mut out = Vec::new();
            super::super::render(&report, Format::Text, None, &mut out).unwrap();
            let nodes = visible(&tree, &view);
            let cuts = Cuts::of(&tree, &view, &nodes);
            let lines = text_lines(&tree, &view, &nodes, &cuts, 0..nodes.len());
            let body = String::from_utf8(out).unwrap();
            let (head, rest) = body.split_at(body.find("\n\n").unwrap() + 2);
            assert_eq!(
                head,
                format!(
                    "db: call tree of {nprocs} processes\n{}\n\n",
                    times_line(None, &view)
                )
            );
            let (columns, rows) = rest.split_at(rest.find('\n').unwrap() + 1);
            assert!(columns.ends_with("Call path\n"));
            assert_eq!(rows, lines);
            assert!(rows.lines().count() > 4 * LINES_PER_TASK);
        }
    }
}
