//! `calltree --focus FUNC` as a [`Report`]: for each function named, its
//! callers (the bottom-up tree of that function alone) and its callees (its
//! top-down subtrees merged over its call sites), in text, JSON and folded
//! stacks (the callees').

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::calltree::{Spread, subtree_calls};
use crate::model::calltree::{CallTree, NodeId};
use crate::report::calltree::html::{write_html_head, write_html_nodes};
use crate::report::calltree::json::{NodeJson, node_json};
use crate::report::calltree::text::{Cuts, header, scope, text_lines, times_line};
use crate::report::calltree::view::{Order, TreeView, total_key, walk_from};
use crate::report::renderers::html::escape::markup as html_escape;
use crate::report::{Document, Format, Report};

/// The focused functions' two trees; the roots of both are the functions.
pub struct FocusReport<'a> {
    /// Bottom-up: each function, below it its callers.
    pub callers: &'a CallTree<Spread>,
    /// Top-down: each function, below it its callees.
    pub callees: &'a CallTree<Spread>,
    /// Bounds and processes (its `order` is each tree's own).
    pub view: TreeView,
    /// The one process shown; `None`: merged over `view.nprocs` processes.
    pub proc: Option<usize>,
    /// The database as the user named it (the text's heading).
    pub source: Option<String>,
}

/// One focused function: its root in each tree (a function without
/// selected calls has no callers' root).
struct Focused<'a> {
    name: &'a str,
    callers: Option<NodeId>,
    callees: Option<NodeId>,
}

impl FocusReport<'_> {
    fn callers_view(&self) -> TreeView {
        TreeView {
            order: Order::Exclusive,
            ..self.view
        }
    }

    fn callees_view(&self) -> TreeView {
        TreeView {
            order: Order::Inclusive,
            ..self.view
        }
    }

    /// The functions, by exclusive time (largest first), then by name.
    fn functions(&self) -> Vec<Focused<'_>> {
        let (up, down) = (self.callers, self.callees);
        let mut out: Vec<Focused> = down
            .node(down.root())
            .children()
            .iter()
            .map(|&c| Focused {
                name: down.name(c),
                callers: up.find_child(up.root(), down.name(c)),
                callees: Some(c),
            })
            .collect();
        // A function is a callee root wherever it is a callers' root (both
        // come from its top-down nodes); kept for damaged trees all the same.
        for &c in up.node(up.root()).children() {
            if down.find_child(down.root(), up.name(c)).is_none() {
                out.push(Focused {
                    name: up.name(c),
                    callers: Some(c),
                    callees: None,
                });
            }
        }
        let excl = |f: &Focused| {
            f.callers
                .map_or(0.0, |c| up.node(c).metrics.total.exclusive)
        };
        out.sort_by(|a, b| excl(b).total_cmp(&excl(a)).then(a.name.cmp(b.name)));
        out
    }
}

/// The visible subtree of `top` (`top` at depth 0) and its text lines;
/// `calls` are the tree's [`subtree_calls`].
fn subtree_lines(tree: &CallTree<Spread>, view: &TreeView, calls: &[u64], top: NodeId) -> String {
    let total = total_key(tree, view.order);
    let nodes = walk_from(tree, view, calls, total, top, 0);
    let cuts = Cuts::of(tree, view, &nodes);
    text_lines(tree, view, &nodes, &cuts, 0..nodes.len())
}

impl Report for FocusReport<'_> {
    type Wire<'w>
        = FocusJson<'w>
    where
        Self: 'w;

    fn wire(&self) -> FocusJson<'_> {
        // Each tree's subtree calls and total once, not per function.
        let prepare = |tree: &CallTree<Spread>, view: TreeView| {
            (subtree_calls(tree), total_key(tree, view.order), view)
        };
        let up = prepare(self.callers, self.callers_view());
        let down = prepare(self.callees, self.callees_view());
        FocusJson {
            nprocs: self.view.nprocs,
            proc: self.proc,
            view: "focus",
            functions: self
                .functions()
                .into_iter()
                .map(|f| {
                    let (calls, total, view) = &up;
                    let callers = f
                        .callers
                        .map(|id| node_json(self.callers, id, view, 0, calls, *total));
                    let (calls, total, view) = &down;
                    let callees = f
                        .callees
                        .map(|id| node_json(self.callees, id, view, 0, calls, *total));
                    FocusedJson {
                        name: f.name,
                        callers,
                        callees,
                    }
                })
                .collect(),
        }
    }

    /// Per function: its callers, then its callees.
    fn document(&self) -> Document<'_> {
        let mut doc = Document::new();
        let nprocs = self.view.nprocs;
        if let Some(source) = &self.source {
            doc.line(format!(
                "{source}: callers and callees of {}",
                scope(self.proc, nprocs)
            ))
            .line(times_line(self.proc, &self.view));
        }
        let (up, down) = (self.callers_view(), self.callees_view());
        let up_calls = subtree_calls(self.callers);
        let down_calls = subtree_calls(self.callees);
        for f in self.functions() {
            doc.line("").line(format!(
                "Callers of {}: its exclusive time along each caller path",
                f.name
            ));
            match f.callers {
                Some(id) => {
                    doc.line(header(&up));
                    push_lines(&mut doc, &subtree_lines(self.callers, &up, &up_calls, id));
                }
                None => {
                    doc.line("(no selected calls)");
                }
            }
            doc.line("")
                .line(format!("Callees of {}: merged over its call sites", f.name));
            if let Some(id) = f.callees {
                doc.line(header(&down));
                push_lines(
                    &mut doc,
                    &subtree_lines(self.callees, &down, &down_calls, id),
                );
            }
        }
        doc
    }

    fn write_other(&self, format: Format, w: &mut dyn Write) -> io::Result<()> {
        match format {
            Format::Folded => self.write_folded(w),
            Format::Html => self.write_html(w),
            other => Err(crate::report::not_offered(other)),
        }
    }
}

fn push_lines(doc: &mut Document<'_>, text: &str) {
    for line in text.lines() {
        doc.line(line.to_owned());
    }
}

impl FocusReport<'_> {
    /// One self-contained page: per function, its callers and its callees
    /// as collapsible trees (`calltree --format html`'s lines).
    fn write_html(&self, w: &mut dyn Write) -> io::Result<()> {
        let title = self.source.as_deref().unwrap_or("");
        write_html_head(w, "Callers and callees", title)?;
        let n = self.view.nprocs;
        writeln!(
            w,
            "<h2>Callers and callees in {} ({n} process{}): name :: inclusive s :: exclusive s :: 1-e/i % :: calls (times are averages over processes)</h2>",
            html_escape(title),
            if n == 1 { "" } else { "es" }
        )?;
        // Each side: its tree, its view, its heading and its root per function.
        type Side<'t> = (
            &'t CallTree<Spread>,
            TreeView,
            &'static str,
            fn(&Focused) -> Option<NodeId>,
        );
        let sides: [Side; 2] = [
            (
                self.callers,
                self.callers_view(),
                "Callers of {}: its exclusive time along each caller path",
                |f| f.callers,
            ),
            (
                self.callees,
                self.callees_view(),
                "Callees of {}: merged over its call sites",
                |f| f.callees,
            ),
        ];
        let prepared: Vec<_> = sides
            .iter()
            .map(|(tree, view, _, _)| (subtree_calls(tree), total_key(tree, view.order)))
            .collect();
        for f in self.functions() {
            for ((tree, view, heading, root), (calls, total)) in sides.iter().zip(&prepared) {
                let heading = heading.replace("{}", &html_escape(f.name));
                writeln!(w, "<h3>{heading}</h3>")?;
                match root(&f) {
                    Some(top) => {
                        let nodes = walk_from(tree, view, calls, *total, top, 0);
                        write_html_nodes(w, tree, view, &nodes, *total)?;
                    }
                    None => writeln!(w, "<p>(no selected calls)</p>")?,
                }
            }
        }
        writeln!(w, "</body>\n</html>")
    }

    /// The callees' folded stacks (`F;callee;… <µs>`): the flame graph
    /// below the focused functions, merged over their call sites.
    fn write_folded(&self, w: &mut dyn Write) -> io::Result<()> {
        let tree = self.callees;
        let view = self.callees_view();
        let calls = subtree_calls(tree);
        let total = total_key(tree, view.order);
        for f in self.functions() {
            let Some(top) = f.callees else { continue };
            for (id, _) in walk_from(tree, &view, &calls, total, top, 0) {
                let us = (tree.node(id).metrics.total.exclusive * 1e6).round();
                if us >= 1.0 {
                    let path: Vec<String> =
                        tree.path(id).iter().map(|n| n.replace(';', ":")).collect();
                    writeln!(w, "{} {}", path.join(";"), us as u64)?;
                }
            }
        }
        Ok(())
    }
}

/// `{"nprocs", "proc", "view": "focus", "functions": [...]}` (docs/JSON.md).
#[derive(Serialize)]
pub struct FocusJson<'a> {
    nprocs: usize,
    proc: Option<usize>,
    view: &'static str,
    functions: Vec<FocusedJson<'a>>,
}

/// A focused function: `callers` is its bottom-up node (children: its
/// callers), `callees` its top-down node merged over its call sites
/// (children: its callees); `null` where it has none.
#[derive(Serialize)]
struct FocusedJson<'a> {
    name: &'a str,
    callers: Option<NodeJson<'a>>,
    callees: Option<NodeJson<'a>>,
}
