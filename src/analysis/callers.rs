//! Bottom-up (callers) trees and the focus on one function, computed from
//! one process's top-down call-path tree ([`CallTree`]).
//!
//! **Bottom-up.** Each top-down node `main > Step > Leaf` is a call path of
//! `Leaf`; read backwards it is `Leaf < Step < main`: the function and its
//! callers, innermost first. The bottom-up tree unifies those reversed
//! paths: its roots are functions, a root's children its callers, theirs
//! their callers, and so on:
//!
//! ```text
//! top-down                       bottom-up (values: Leaf's exclusive time)
//! main ─┬─ Step ── Leaf    2 s   Leaf    5 s
//!       └─ Exchange ── Leaf 3 s   ├─ Exchange  3 s ── main 3 s
//!                                 └─ Step      2 s ── main 2 s
//! ```
//!
//! A bottom-up node `F < C1 < … < Ck` sums, over the top-down nodes whose
//! path ends in `Ck > … > C1 > F`, the calls and exclusive seconds of `F`:
//! a root holds all of `F`'s exclusive time, and its children split it by
//! caller. What the children do not hold is the time of calls with no
//! caller above (the path starts at the node: `main`), or of paths cut at
//! [`MAX_LEVELS`].
//!
//! **Recursion.** `inclusive` is the inclusive time of `F` along the caller
//! path, counted once per top-down path: when a top-down node and one of
//! its ancestors both end in the bottom-up node's path (`F` inside `F`,
//! or `C > F` inside `C > F`), only the outermost adds its inclusive time,
//! which already holds the inner one's. Calls and exclusive seconds never
//! overlap and are always added.
//!
//! **Focus.** For a function `F`: its callers are the bottom-up tree of
//! `F` alone; its callees are the top-down subtrees of `F`'s outermost
//! calls (those with no `F` above them) unified into one tree under `F`, so
//! an inner recursive call of `F` stays inside the outer one's subtree and
//! is not counted again.
//!
//! Both walks use explicit stacks (trees from files can be 100 000 levels
//! deep) and build no more than [`MAX_LEVELS`] levels below a function.

use rayon::prelude::*;

use super::calltree::Spread;
use super::spread_merge::ChunkedSpreadMerge;
use crate::model::calltree::{CallTree, Metrics, NodeId};

/// Levels of callers (bottom-up) or callees (focus) built below a
/// function. The bottom-up tree of a path `d` levels deep has `d` nodes per
/// top-down node: the bound keeps a damaged or pathological trace from
/// building a tree quadratic in its depth (AMReX applications nest a few
/// dozen levels), and the renderers' recursion shallow.
pub const MAX_LEVELS: usize = 128;

/// A tree built from top-down trees, and whether any path was cut at
/// [`MAX_LEVELS`].
#[derive(Debug, Clone)]
pub struct Built<M> {
    pub tree: CallTree<M>,
    pub cut: bool,
}

/// Functions named by `--focus`: the exact name, or a glob pattern
/// (`FabArray*`). A name that is not a valid pattern matches itself only.
#[derive(Debug, Clone)]
pub struct FunctionMatch {
    exact: String,
    glob: Option<glob::Pattern>,
}

impl FunctionMatch {
    pub fn new(pattern: &str) -> Self {
        FunctionMatch {
            exact: pattern.to_owned(),
            glob: glob::Pattern::new(pattern).ok(),
        }
    }

    pub fn matches(&self, name: &str) -> bool {
        name == self.exact || self.glob.as_ref().is_some_and(|g| g.matches(name))
    }
}

/// Per name index of `tree`: whether `keep` takes the name (decided once
/// per distinct name, not per node: a glob match costs).
fn kept_names(tree: &CallTree, keep: &dyn Fn(&str) -> bool) -> Vec<bool> {
    let mut kept = Vec::new();
    kept_names_into(tree, keep, &mut kept);
    kept
}

/// [`kept_names`] into `kept`, cleared first.
fn kept_names_into(tree: &CallTree, keep: &dyn Fn(&str) -> bool, kept: &mut Vec<bool>) {
    kept.clear();
    kept.extend(tree.names().iter().map(|n| keep(n)));
}

/// A step of a pre-order walk that also sees each node's end.
enum Visit {
    Enter(NodeId, usize),
    Exit,
}

/// The working memory of [`bottom_up_into`], kept from one tree to the
/// next: with thousands of small processes, growing these anew per
/// process was most of the allocations of `report`'s bottom-up trees.
#[derive(Default)]
pub struct BottomUpMemory {
    kept: Vec<bool>,
    names: Vec<u32>,
    path: Vec<NodeId>,
    owned: Vec<bool>,
    owners: Vec<NodeId>,
    owner_base: Vec<usize>,
    stack: Vec<Visit>,
}

/// The bottom-up tree of one process's tree, with roots only for the
/// functions `keep` takes (all: `|_| true`).
pub fn bottom_up(top: &CallTree, keep: &dyn Fn(&str) -> bool) -> Built<Metrics> {
    bottom_up_into(top, keep, CallTree::new(), &mut BottomUpMemory::default())
}

/// [`bottom_up`] built into `out`, cleared first (its memory and name
/// table kept), with the walk's buffers in `memory`: a tree per process
/// then allocates nothing anew.
pub fn bottom_up_into(
    top: &CallTree,
    keep: &dyn Fn(&str) -> bool,
    mut out: CallTree,
    memory: &mut BottomUpMemory,
) -> Built<Metrics> {
    out.clear();
    let BottomUpMemory {
        kept,
        names,
        path,
        owned,
        owners,
        owner_base,
        stack,
    } = memory;
    kept_names_into(top, keep, kept);
    out.translate_names_into(top, names);
    let names = &*names;
    let name_of = |id: NodeId| {
        top.name_index(id)
            .and_then(|i| names.get(i as usize).copied())
    };
    let mut cut = false;
    // The top-down nodes from the outermost call down to the current one.
    path.clear();
    // Bottom-up nodes already holding the inclusive time of a call on the
    // current path (by node id), and which path entry set each: a node is
    // owned by at most one entry, so these are bounded by `out`'s size.
    owned.clear();
    owned.push(false);
    owners.clear();
    owner_base.clear();
    stack.clear();
    stack.extend(
        top.node(top.root())
            .children()
            .iter()
            .rev()
            .map(|&c| Visit::Enter(c, 0)),
    );
    while let Some(visit) = stack.pop() {
        let (id, depth) = match visit {
            Visit::Enter(id, depth) => (id, depth),
            Visit::Exit => {
                path.pop();
                let base = owner_base.pop().unwrap_or(0);
                for b in owners.drain(base..) {
                    owned[b.0 as usize] = false;
                }
                continue;
            }
        };
        path.push(id);
        owner_base.push(owners.len());
        stack.push(Visit::Exit);
        stack.extend(
            top.node(id)
                .children()
                .iter()
                .rev()
                .map(|&c| Visit::Enter(c, depth + 1)),
        );
        let m = top.node(id).metrics;
        // A node without selected calls adds nothing, and must not hide
        // the inclusive time of a selected call below it.
        let Some(name) = name_of(id) else { continue };
        if m.calls == 0 || !top.name_index(id).is_some_and(|i| kept[i as usize]) {
            continue;
        }
        let levels = depth.min(MAX_LEVELS);
        cut |= depth > MAX_LEVELS;
        let mut at = out.child_by_name_id(out.root(), name);
        for k in 0..=levels {
            if k > 0 {
                let caller = path[depth - k];
                let Some(caller_name) = name_of(caller) else {
                    break;
                };
                at = out.child_by_name_id(at, caller_name);
            }
            if owned.len() <= at.0 as usize {
                owned.resize(at.0 as usize + 1, false);
            }
            let b = &mut out.node_mut(at).metrics;
            b.calls += m.calls;
            b.exclusive += m.exclusive;
            if !owned[at.0 as usize] {
                b.inclusive += m.inclusive;
                owned[at.0 as usize] = true;
                owners.push(at);
            }
        }
    }
    Built { tree: out, cut }
}

/// The callees of the functions `keep` takes: for each, one root holding
/// the top-down subtrees of its outermost calls, unified by path.
pub fn callees(top: &CallTree, keep: &dyn Fn(&str) -> bool) -> Built<Metrics> {
    let kept = kept_names(top, keep);
    let mut out: CallTree = CallTree::new();
    let names = out.translate_names(top);
    let name_of = |id: NodeId| {
        top.name_index(id)
            .and_then(|i| names.get(i as usize).copied())
    };
    let mut cut = false;
    // Calls of each kept name open on the current path (by name index).
    let mut open: Vec<u32> = vec![0; kept.len()];
    // The name index a node's exit closes, if it opened one.
    let mut stack: Vec<(NodeId, usize, Option<Option<usize>>)> = top
        .node(top.root())
        .children()
        .iter()
        .rev()
        .map(|&c| (c, 0, None))
        .collect();
    while let Some((id, depth, exit)) = stack.pop() {
        if let Some(closes) = exit {
            if let Some(i) = closes {
                open[i] -= 1;
            }
            continue;
        }
        let index = top.name_index(id).map(|i| i as usize);
        let site = index.filter(|&i| kept.get(i).copied().unwrap_or(false));
        if let (Some(i), Some(name)) = (site, name_of(id))
            && open[i] == 0
        {
            let at = out.child_by_name_id(out.root(), name);
            cut |= copy_subtree(top, id, &mut out, at, &names);
        }
        if let Some(i) = site {
            open[i] += 1;
        }
        stack.push((id, depth, Some(site)));
        stack.extend(
            top.node(id)
                .children()
                .iter()
                .rev()
                .map(|&c| (c, depth + 1, None)),
        );
    }
    Built { tree: out, cut }
}

/// Adds the subtree of `top` at `from` to `out` at `to`, at most
/// [`MAX_LEVELS`] levels below `to`; true when deeper levels were left out.
fn copy_subtree(
    top: &CallTree,
    from: NodeId,
    out: &mut CallTree,
    to: NodeId,
    names: &[u32],
) -> bool {
    let mut cut = false;
    let mut stack = vec![(from, to, 0usize)];
    while let Some((from, to, level)) = stack.pop() {
        out.node_mut(to).metrics.add(&top.node(from).metrics);
        let children = top.node(from).children();
        if level >= MAX_LEVELS {
            cut |= !children.is_empty();
            continue;
        }
        for &c in children {
            let Some(name) = top
                .name_index(c)
                .and_then(|i| names.get(i as usize).copied())
            else {
                continue;
            };
            stack.push((c, out.child_by_name_id(to, name), level + 1));
        }
    }
    cut
}

/// Processes whose built trees are held at once by [`merged`], and whose
/// sums are added up before the total's (the output's bits depend on it).
pub(crate) const MERGE_CHUNK: usize = 512;

/// Builds `build` of every process's tree (in parallel) and merges the
/// results over processes as `calltree` merges its trees.
pub fn merged(
    trees: &[(usize, CallTree)],
    build: impl Fn(&CallTree) -> Built<Metrics> + Sync,
) -> Built<Spread> {
    // A chunk of processes at a time: the built trees of 10,000 processes
    // held at once doubled `report`'s memory. Chunks merge in process order.
    let mut merge = ChunkedSpreadMerge::new(MERGE_CHUNK);
    let mut cut = false;
    for chunk in trees.chunks(MERGE_CHUNK) {
        let built: Vec<(usize, Built<Metrics>)> =
            chunk.par_iter().map(|(p, t)| (*p, build(t))).collect();
        for (p, b) in built {
            cut |= b.cut;
            merge.add(p, &b.tree);
        }
    }
    Built {
        tree: merge.finish(),
        cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A top-down tree from `(path, calls, inclusive, exclusive)`.
    fn tree(nodes: &[(&[&str], u64, f64, f64)]) -> CallTree {
        let mut t: CallTree = CallTree::new();
        for (path, calls, inclusive, exclusive) in nodes {
            let id = t.node_at_path(path);
            t.node_mut(id).metrics = Metrics {
                calls: *calls,
                inclusive: *inclusive,
                exclusive: *exclusive,
            };
        }
        t
    }

    fn at<'a>(t: &'a CallTree, path: &[&str]) -> &'a Metrics {
        &t.node(t.find_path(path).unwrap_or_else(|| panic!("{path:?}")))
            .metrics
    }

    #[test]
    fn roots_are_functions_and_children_their_callers() {
        let t = tree(&[
            (&["main"], 1, 10.0, 1.0),
            (&["main", "Step"], 2, 6.0, 4.0),
            (&["main", "Step", "Leaf"], 4, 2.0, 2.0),
            (&["main", "Exchange"], 1, 3.0, 0.0),
            (&["main", "Exchange", "Leaf"], 3, 3.0, 3.0),
        ]);
        let b = bottom_up(&t, &|_| true);
        assert!(!b.cut);
        let leaf = at(&b.tree, &["Leaf"]);
        assert_eq!((leaf.calls, leaf.exclusive, leaf.inclusive), (7, 5.0, 5.0));
        assert_eq!(at(&b.tree, &["Leaf", "Step"]).exclusive, 2.0);
        assert_eq!(at(&b.tree, &["Leaf", "Exchange", "main"]).exclusive, 3.0);
        assert_eq!(at(&b.tree, &["main"]).exclusive, 1.0);
        assert!(
            b.tree
                .node(b.tree.find_path(&["main"]).unwrap())
                .children()
                .is_empty()
        );
        // Only the kept roots.
        let only = bottom_up(&t, &|n| n == "Step");
        let roots: Vec<&str> = only
            .tree
            .node(only.tree.root())
            .children()
            .iter()
            .map(|&c| only.tree.name(c))
            .collect();
        assert_eq!(roots, ["Step"]);
    }

    /// `R` inside `R`: exclusive times and calls add up, the inclusive
    /// time is the outermost call's once per path.
    #[test]
    fn recursion_counts_inclusive_time_once_per_path() {
        let t = tree(&[
            (&["main"], 1, 10.0, 2.0),
            (&["main", "R"], 1, 8.0, 3.0),
            (&["main", "R", "R"], 1, 5.0, 1.0),
            (&["main", "R", "R", "R"], 1, 4.0, 4.0),
        ]);
        let b = bottom_up(&t, &|_| true);
        let r = at(&b.tree, &["R"]);
        assert_eq!((r.calls, r.exclusive, r.inclusive), (3, 8.0, 8.0));
        // R < R: the calls of R from R; the outermost of them is 5 s.
        let rr = at(&b.tree, &["R", "R"]);
        assert_eq!((rr.calls, rr.exclusive, rr.inclusive), (2, 5.0, 5.0));
        assert_eq!(at(&b.tree, &["R", "main"]).inclusive, 8.0);
        assert_eq!(at(&b.tree, &["R", "R", "R", "main"]).exclusive, 4.0);
        // The callees of R: the outermost call's subtree, once.
        let c = callees(&t, &|n| n == "R");
        assert_eq!(at(&c.tree, &["R"]).inclusive, 8.0);
        assert_eq!(at(&c.tree, &["R", "R", "R"]).exclusive, 4.0);
        assert_eq!(c.tree.len(), 3);
    }

    /// A node without selected calls (a region filter left it out) does
    /// not hide the inclusive time of a selected call of the same path.
    #[test]
    fn unselected_calls_add_nothing_and_hide_nothing() {
        let t = tree(&[(&["R"], 0, 0.0, 0.0), (&["R", "R"], 1, 5.0, 5.0)]);
        let b = bottom_up(&t, &|_| true);
        let r = at(&b.tree, &["R"]);
        assert_eq!((r.calls, r.inclusive), (1, 5.0));
    }

    #[test]
    fn callees_unify_the_sites_of_a_function() {
        let t = tree(&[
            (&["main"], 1, 10.0, 1.0),
            (&["main", "A", "F"], 1, 4.0, 1.0),
            (&["main", "A", "F", "G"], 2, 3.0, 3.0),
            (&["main", "B", "F"], 1, 2.0, 1.0),
            (&["main", "B", "F", "G"], 1, 1.0, 1.0),
        ]);
        let c = callees(&t, &|n| n == "F");
        let f = at(&c.tree, &["F"]);
        assert_eq!((f.calls, f.inclusive, f.exclusive), (2, 6.0, 2.0));
        let g = at(&c.tree, &["F", "G"]);
        assert_eq!((g.calls, g.inclusive), (3, 4.0));
        assert_eq!(c.tree.len(), 2);
    }

    /// A chain deeper than the limit: a bounded tree, marked cut, walked
    /// without recursion.
    #[test]
    fn deep_chains_are_cut_at_the_limit() {
        let mut t: CallTree = CallTree::new();
        let mut at = t.root();
        for i in 0..30_000 {
            at = t.child(at, if i % 2 == 0 { "a" } else { "b" });
            t.node_mut(at).metrics = Metrics {
                calls: 1,
                inclusive: 1.0,
                exclusive: 1.0,
            };
        }
        let b = bottom_up(&t, &|_| true);
        assert!(b.cut);
        assert_eq!(b.tree.len(), 2 * (MAX_LEVELS + 1));
        let a = b.tree.find_path(&["a"]).unwrap();
        assert_eq!(b.tree.node(a).metrics.exclusive, 15_000.0);
        let c = callees(&t, &|n| n == "b");
        assert!(c.cut);
        assert_eq!(c.tree.len(), MAX_LEVELS + 1);
    }

    #[test]
    fn focus_names_are_exact_or_globs() {
        let m = FunctionMatch::new("FabArray*");
        assert!(m.matches("FabArray::ParallelCopy()") && !m.matches("Amr::init"));
        // Not a valid pattern: the name itself.
        let m = FunctionMatch::new("a[b");
        assert!(m.matches("a[b") && !m.matches("ab"));
        // Brackets are a class; the exact name still matches.
        let m = FunctionMatch::new("f[1]");
        assert!(m.matches("f[1]") && m.matches("f1"));
    }
}
