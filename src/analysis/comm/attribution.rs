//! MPI time attributed to the code that made the calls: to the innermost
//! timed call open at the MPI call's entry on its process (its call path in
//! the call traces), and to every region whose range holds the entry.
//!
//! ```text
//! trace   main() |------------------------------------------|
//!         Step()      |-------------------|
//!         Fill()         |-------|
//! MPI                  a    b       c            d
//! paths   a → main>Step, b → main>Step>Fill, c → main>Step, d → main
//! ```
//!
//! An MPI call before or after every timed call goes to the empty path
//! (outside any timed call). Per process, the calls (sorted by entry) and
//! the call records (in start order) are walked together with a stack of
//! the open calls; the trees are merged over processes by path.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::time::Counted;
use crate::analysis::calltree::TreePool;
use crate::analysis::ranges::RangeList;
use crate::analysis::regions::Regions;
use crate::error::Warning;
use crate::formats::blprof::commdata::{FUNC_NAMES, func_name};
use crate::formats::blprof::database::Database;
use crate::model::calltree::{CallTree, NodeId};

/// Calls and seconds per MPI type, in type order. A call path sees a
/// type or two: the defined types (below [`DEFINED_TYPES`]) are held in a
/// small sorted array inline (a map per node of every process's tree,
/// allocated and freed, was a seventh of `comm time` at 16,384
/// processes). Others come only from damaged records, as many as a file
/// makes up: they go to a map, so that each costs a lookup, never a shift
/// of a long array.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ByType {
    defined: SmallVec<[(i32, u64, f64); 2]>,
    damaged: BTreeMap<i32, (u64, f64)>,
}

/// Types `0..DEFINED_TYPES` are the CommFuncTypes.
const DEFINED_TYPES: i32 = FUNC_NAMES.len() as i32;

impl ByType {
    /// Adds `calls` and `seconds` to type `kind`.
    fn add(&mut self, kind: i32, calls: u64, seconds: f64) {
        if !(0..DEFINED_TYPES).contains(&kind) {
            let e = self.damaged.entry(kind).or_default();
            e.0 += calls;
            e.1 += seconds;
            return;
        }
        match self.defined.binary_search_by_key(&kind, |e| e.0) {
            Ok(i) => {
                self.defined[i].1 += calls;
                self.defined[i].2 += seconds;
            }
            Err(i) => self.defined.insert(i, (kind, calls, seconds)),
        }
    }

    /// `(type, calls, seconds)` in type order.
    fn iter(&self) -> impl Iterator<Item = (i32, u64, f64)> + '_ {
        let damaged = |(&k, &(n, s)): (&i32, &(u64, f64))| (k, n, s);
        let below = self.damaged.range(..0).map(damaged);
        let above = self.damaged.range(DEFINED_TYPES..).map(damaged);
        below.chain(self.defined.iter().copied()).chain(above)
    }
}

/// Call-path trees done with, for later processes' to be built into:
/// with thousands of small processes, allocating each tree anew was most
/// of `comm time`.
pub type PathTrees = TreePool<ByType>;

/// One process's attribution.
#[derive(Default)]
pub struct ProcAttribution {
    paths: Option<CallTree<ByType>>,
    regions: BTreeMap<i32, (u64, f64)>,
}

/// Sums over processes, merged in process order.
#[derive(Default)]
pub struct AttributionSums {
    paths: Option<CallTree<ByType>>,
    regions: BTreeMap<i32, (u64, f64)>,
}

/// MPI time of one call path and type.
#[derive(Debug, Clone)]
pub struct PathTime {
    /// Function names from the outermost timed call; empty: outside any.
    pub path: Vec<String>,
    pub number: i32,
    pub name: String,
    pub calls: u64,
    pub seconds: f64,
}

/// MPI time of the calls entered inside one region.
#[derive(Debug, Clone)]
pub struct RegionTime {
    pub number: i32,
    pub name: String,
    pub calls: u64,
    pub seconds: f64,
}

/// The attribution over the selected processes.
#[derive(Debug, Clone, Default)]
pub struct Attribution {
    /// By path and type, most seconds first (`None`: not asked for).
    pub paths: Option<Vec<PathTime>>,
    /// By region number (`None`: no regions).
    pub regions: Option<Vec<RegionTime>>,
}

impl AttributionSums {
    /// Adds one process's attribution; its call-path tree, once merged,
    /// goes back to `trees` for a later process's.
    pub fn add(&mut self, p: ProcAttribution, trees: &PathTrees) {
        if let Some(t) = p.paths {
            match &mut self.paths {
                None => self.paths = Some(t),
                Some(all) => {
                    all.merge_with(&t, |a, b| {
                        for (k, n, s) in b.iter() {
                            a.add(k, n, s);
                        }
                    });
                    trees.put(t);
                }
            }
        }
        for (r, (n, s)) in p.regions {
            let e = self.regions.entry(r).or_default();
            e.0 += n;
            e.1 += s;
        }
    }

    pub fn finish(self, regions: Option<&Regions>) -> Attribution {
        let paths = self.paths.map(|t| {
            let mut rows: Vec<PathTime> = Vec::new();
            // The root (outside any timed call) first, then the paths.
            let nodes = std::iter::once(t.root()).chain(t.preorder().into_iter().map(|(id, _)| id));
            for id in nodes {
                for (k, calls, seconds) in t.node(id).metrics.iter() {
                    rows.push(PathTime {
                        path: t.path(id).into_iter().map(str::to_owned).collect(),
                        number: k,
                        name: func_name(k)
                            .map_or_else(|| format!("unknown type {k}"), str::to_owned),
                        calls,
                        seconds,
                    });
                }
            }
            // Most time first; ties in tree order (the sort is stable).
            rows.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
            rows
        });
        let regions = regions.map(|r| {
            self.regions
                .into_iter()
                .map(|(number, (calls, seconds))| RegionTime {
                    number,
                    name: r.name(number),
                    calls,
                    seconds,
                })
                .collect()
        });
        Attribution { paths, regions }
    }
}

/// Attributes the counted calls of process `proc` (sorted by entry) to its
/// call paths (with `paths`) and its regions.
pub fn attribute(
    db: &Database,
    proc: usize,
    calls: &[Counted],
    paths: Option<&PathTrees>,
    regions: Option<&Regions>,
) -> (ProcAttribution, Vec<Warning>) {
    let mut out = ProcAttribution::default();
    let mut warnings = Vec::new();
    if let Some(trees) = paths {
        let (tree, w) = path_tree(db, proc, calls, trees.take());
        out.paths = Some(tree);
        warnings = w;
    }
    if let Some(p) = regions.and_then(|r| r.proc(proc)) {
        for (&number, ranges) in &p.ranges {
            let list = RangeList::union_of(ranges.clone());
            let mut inside = list.cursor();
            let e = out.regions.entry(number).or_default();
            for c in calls.iter().filter(|c| inside.contains(c.start)) {
                e.0 += 1;
                e.1 += c.seconds;
            }
        }
    }
    (out, warnings)
}

/// A timed call still open: its end, depth and node.
struct Open {
    end: f64,
    depth: i32,
    node: NodeId,
}

/// The calls attributed to the paths of `proc`'s call trace.
/// Process `proc`'s call-path tree of `calls`, built into `tree` (cleared
/// first: a tree handed back by an earlier process keeps its memory).
fn path_tree(
    db: &Database,
    proc: usize,
    calls: &[Counted],
    mut tree: CallTree<ByType>,
) -> (CallTree<ByType>, Vec<Warning>) {
    tree.clear();
    let root = tree.root();
    let mut stack: Vec<Open> = Vec::new();
    let mut next = 0;
    // Gives the calls entered before `t` to the innermost timed call open
    // at their entry. Calls that ended are dropped from the stack: the
    // entries only grow, and no later record can be their child.
    let mut until = |t: f64, stack: &mut Vec<Open>, tree: &mut CallTree<ByType>| {
        while let Some(c) = calls.get(next).filter(|c| c.start < t) {
            while stack.last().is_some_and(|o| o.end <= c.start) {
                stack.pop();
            }
            let node = stack.last().map_or(root, |o| o.node);
            tree.node_mut(node).metrics.add(c.kind, 1, c.seconds);
            next += 1;
        }
    };
    let procs = [proc];
    let walk = db.trace_blocks(Some(&procs));
    let mut warnings = Vec::new();
    if let Some(p) = walk.procs().next() {
        let functions = &p.proc().functions;
        let mut names: FxHashMap<i32, u32> = FxHashMap::default();
        // The last child looked up per depth: loops call the same child
        // again and again (depths past the array go to the tree's index).
        let mut last: [Option<(NodeId, u32, NodeId)>; 64] = [None; 64];
        warnings = p.for_each_call(|r| {
            if r.is_sentinel() {
                return;
            }
            until(r.start, &mut stack, &mut tree);
            while stack.last().is_some_and(|o| o.depth >= r.depth) {
                stack.pop();
            }
            let parent = stack.last().map_or(root, |o| o.node);
            // The n-th new name of a process mostly has id n in a tree
            // built for the process before (see `CallTree::intern_at`).
            let guess = names.len() as u32;
            let name =
                *names
                    .entry(r.fnum)
                    .or_insert_with(|| match functions.name(i64::from(r.fnum)) {
                        Some(n) => tree.intern_at(n, guess),
                        None => tree.intern(&format!("function {}", r.fnum)),
                    });
            let slot = usize::try_from(r.depth).ok().and_then(|d| last.get_mut(d));
            let node = match slot {
                Some(Some((p, n, node))) if *p == parent && *n == name => *node,
                Some(slot) => {
                    let node = tree.child_by_name_id(parent, name);
                    *slot = Some((parent, name, node));
                    node
                }
                None => tree.child_by_name_id(parent, name),
            };
            stack.push(Open {
                end: r.end(),
                depth: r.depth,
                node,
            });
        });
    }
    until(f64::INFINITY, &mut stack, &mut tree);
    (tree, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path of `t` with its metrics, in preorder.
    fn rows(t: &CallTree<ByType>) -> Vec<(Vec<String>, ByType)> {
        let nodes = std::iter::once(t.root()).chain(t.preorder().into_iter().map(|(id, _)| id));
        nodes
            .map(|id| {
                let path = t.path(id).into_iter().map(str::to_owned).collect();
                (path, t.node(id).metrics.clone())
            })
            .collect()
    }

    /// Types come in type order, each with its calls and seconds summed:
    /// the made-up ones of damaged records (negative, past the defined) too.
    #[test]
    fn types_add_up_in_type_order() {
        let mut m = ByType::default();
        let adds = [(9, 1.0), (3, 0.5), (700, 1.0), (9, 2.0), (-2, 8.0), (5, 0.25), (3, 0.5)];
        for (k, s) in adds.into_iter().chain([(1, 4.0), (64, 2.0), (-2, 1.0), (63, 0.5)]) {
            m.add(k, 1, s);
        }
        let got: Vec<(i32, u64, f64)> = m.iter().collect();
        let want = [(-2, 2, 9.0), (1, 1, 4.0), (3, 2, 1.0), (5, 1, 0.25), (9, 2, 3.0)];
        assert_eq!(got[..5], want);
        assert_eq!(got[5..], [(63, 1, 0.5), (64, 1, 2.0), (700, 1, 1.0)]);
    }

    /// A process's call-path tree built into a tree handed back by another
    /// process is the tree built afresh.
    #[test]
    fn a_tree_built_into_a_used_one_is_the_fresh_tree() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let db = Database::open(dir.join("amrlevel8/bl_prof")).unwrap();
        // MPI calls spread over each process's time, of two types.
        let calls = |p: usize| -> Vec<Counted> {
            (0..400)
                .map(|i| Counted {
                    start: f64::from(i) * 0.05 + p as f64 * 1e-3,
                    seconds: 1e-3,
                    kind: 5 + i % 2,
                })
                .collect()
        };
        let (used, _) = path_tree(&db, 0, &calls(0), CallTree::new());
        assert!(used.len() > 10, "a tree worth reusing: {}", used.len());
        for p in 1..4 {
            let (fresh, w1) = path_tree(&db, p, &calls(p), CallTree::new());
            let (reused, w2) = path_tree(&db, p, &calls(p), used.clone());
            assert_eq!(rows(&reused), rows(&fresh), "process {p}");
            assert_eq!(w1.len(), w2.len());
        }
    }
}
