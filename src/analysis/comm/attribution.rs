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
use crate::analysis::ranges::RangeList;
use crate::analysis::regions::Regions;
use crate::error::Warning;
use crate::formats::blprof::callstats::FunctionTable;
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

    fn is_empty(&self) -> bool {
        self.defined.is_empty() && self.damaged.is_empty()
    }

    /// `(type, calls, seconds)` in type order.
    fn iter(&self) -> impl Iterator<Item = (i32, u64, f64)> + '_ {
        let damaged = |(&k, &(n, s)): (&i32, &(u64, f64))| (k, n, s);
        let below = self.damaged.range(..0).map(damaged);
        let above = self.damaged.range(DEFINED_TYPES..).map(damaged);
        below.chain(self.defined.iter().copied()).chain(above)
    }
}

/// One process's attribution to regions (its call paths go to its run's
/// [`RunPaths`]).
#[derive(Default)]
pub struct ProcAttribution {
    /// `(region, calls, seconds)` in region order.
    regions: Vec<(i32, u64, f64)>,
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
    /// Adds one process's attribution to regions.
    pub fn add(&mut self, p: ProcAttribution) {
        for (r, n, s) in p.regions {
            let e = self.regions.entry(r).or_default();
            e.0 += n;
            e.1 += s;
        }
    }

    /// Adds the call paths of a run of processes, after those of the runs
    /// before it: its tree merged by path (its nodes created in its id
    /// order, which gives every node's children in the order of merging
    /// the run's processes one by one), then each process's sums in turn.
    pub fn add_paths(&mut self, run: RunPaths) {
        if run.procs == 0 {
            return;
        }
        let all = self.paths.get_or_insert_with(CallTree::new);
        let here = all.merge_shape(&run.tree);
        for &(node, kind, calls, seconds) in &run.sums {
            all.node_mut(here[node.0 as usize])
                .metrics
                .add(kind, calls, seconds);
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
/// call paths (with `paths`, its run's) and its regions.
pub fn attribute(
    db: &Database,
    proc: usize,
    calls: &[Counted],
    paths: Option<&mut RunPaths>,
    regions: Option<&Regions>,
) -> (ProcAttribution, Vec<Warning>) {
    let mut out = ProcAttribution::default();
    let warnings = paths.map_or_else(Vec::new, |run| run.add(db, proc, calls));
    if let Some(p) = regions.and_then(|r| r.proc(proc)) {
        for (&number, ranges) in &p.ranges {
            let list = RangeList::union_of(ranges.clone());
            let mut inside = list.cursor();
            let (mut n, mut s) = (0, 0.0);
            for c in calls.iter().filter(|c| inside.contains(c.start)) {
                n += 1;
                s += c.seconds;
            }
            out.regions.push((number, n, s));
        }
    }
    (out, warnings)
}

/// Runs per thread in a walk of [`RunPaths`]: enough that a thread left
/// with a long one does not keep the other waiting long, few enough that
/// merging their trees on one thread is little.
const RUNS_PER_THREAD: usize = 16;

/// Processes per [`RunPaths`] in a walk over `procs` processes.
pub fn procs_per_run(procs: usize) -> usize {
    procs
        .div_ceil(RUNS_PER_THREAD * rayon::current_num_threads().max(1))
        .max(1)
}

/// The MPI calls of a run of consecutive processes attributed to their
/// call paths: one tree for the run, built process after process, and
/// each process's sums per node and type. (A tree per process, each merged
/// in turn on one thread, was a merge of the process's whole call tree,
/// mostly nodes without MPI time: at 16,384 processes that thread held the
/// others up.)
///
/// Built in process order, the run's tree has each node's children in the
/// order merging every process's own tree gives them (those of the first
/// process that has them, in its order, before those of the next); added
/// in process order, the sums are the merge's sums.
pub struct RunPaths {
    /// The run's paths; the metrics hold the sums of the process being
    /// added (at the nodes in `touched`), moved to `sums` at its end.
    tree: CallTree<ByType>,
    touched: Vec<NodeId>,
    /// `(node, type, calls, seconds)`, process after process.
    sums: Vec<(NodeId, i32, u64, f64)>,
    procs: usize,
    /// Name ids of the function numbers of `table`, the last process's
    /// function table: processes mostly share one.
    names: FxHashMap<i32, u32>,
    table: Option<FunctionTable>,
    /// The last child looked up per depth: loops call the same child
    /// again and again (depths past the array go to the tree's index).
    last: [Option<(NodeId, u32, NodeId)>; 64],
    stack: Vec<Open>,
}

impl Default for RunPaths {
    fn default() -> Self {
        RunPaths {
            tree: CallTree::new(),
            touched: Vec::new(),
            sums: Vec::new(),
            procs: 0,
            names: FxHashMap::default(),
            table: None,
            last: [None; 64],
            stack: Vec::new(),
        }
    }
}

/// A timed call still open: its end, depth and node.
struct Open {
    end: f64,
    depth: i32,
    node: NodeId,
}

/// A process's MPI calls (sorted by entry) not yet given to a path.
struct Pending<'c> {
    calls: &'c [Counted],
    next: usize,
}

impl Pending<'_> {
    /// Gives the calls entered before `t` to the innermost timed call open
    /// at their entry (the root outside any), marking the nodes that had
    /// none in `touched`. Calls that ended are dropped from the stack: the
    /// entries only grow, and no later record can be their child. Inlined
    /// into the loop over the call records, which calls it once each (a
    /// call per record was a fifth more time on 8 big processes).
    #[inline(always)]
    fn give_before(
        &mut self,
        t: f64,
        stack: &mut Vec<Open>,
        tree: &mut CallTree<ByType>,
        touched: &mut Vec<NodeId>,
    ) {
        while let Some(c) = self.calls.get(self.next).filter(|c| c.start < t) {
            while stack.last().is_some_and(|o| o.end <= c.start) {
                stack.pop();
            }
            let node = stack.last().map_or(tree.root(), |o| o.node);
            let sums = &mut tree.node_mut(node).metrics;
            if sums.is_empty() {
                touched.push(node);
            }
            sums.add(c.kind, 1, c.seconds);
            self.next += 1;
        }
    }
}

impl RunPaths {
    /// Adds the calls of process `proc` (sorted by entry) at the paths of
    /// its call trace, after the run's processes before it.
    pub fn add(&mut self, db: &Database, proc: usize, calls: &[Counted]) -> Vec<Warning> {
        self.procs += 1;
        let RunPaths {
            tree,
            touched,
            names,
            table,
            last,
            stack,
            ..
        } = self;
        let root = tree.root();
        stack.clear();
        let mut pending = Pending { calls, next: 0 };
        let procs = [proc];
        let walk = db.trace_blocks(Some(&procs));
        let mut warnings = Vec::new();
        if let Some(p) = walk.procs().next() {
            let functions = &p.proc().functions;
            if !table.as_ref().is_some_and(|t| t.same_as(functions)) {
                names.clear();
                *table = Some(functions.clone());
            }
            warnings = p.for_each_call(|r| {
                if r.is_sentinel() {
                    return;
                }
                pending.give_before(r.start, stack, tree, touched);
                while stack.last().is_some_and(|o| o.depth >= r.depth) {
                    stack.pop();
                }
                let parent = stack.last().map_or(root, |o| o.node);
                // The n-th new name of a process mostly has id n in a tree
                // that had a process before (see `CallTree::intern_at`).
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
        pending.give_before(f64::INFINITY, stack, tree, touched);
        for node in self.touched.drain(..) {
            let sums = std::mem::take(&mut self.tree.node_mut(node).metrics);
            self.sums
                .extend(sums.iter().map(|(kind, calls, seconds)| (node, kind, calls, seconds)));
        }
        warnings
    }
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

    /// Processes attributed in runs of any length give the tree (its
    /// nodes in pre-order, their sums to the last bit) of one run per
    /// process, each merged on its own as a process's tree was.
    #[test]
    fn runs_of_processes_sum_as_the_processes_one_by_one() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let db = Database::open(dir.join("amrlevel8/bl_prof")).unwrap();
        // MPI calls spread over each process's time, of three types, with
        // seconds whose sums round differently in another order.
        let calls = |p: usize| -> Vec<Counted> {
            (0..400)
                .map(|i| Counted {
                    start: f64::from(i) * 0.05 + p as f64 * 1e-3,
                    seconds: if i == 0 { 1e6 } else { 0.1 / f64::from(1 + i % 7) },
                    kind: 5 + i % 3,
                })
                .collect()
        };
        let procs: Vec<usize> = db.trace_index().procs.iter().map(|p| p.proc).collect();
        assert!(procs.len() >= 4, "{procs:?}");
        let sums = |per_run: usize| {
            let mut sums = AttributionSums::default();
            for run in procs.chunks(per_run) {
                let mut paths = RunPaths::default();
                for &p in run {
                    assert!(paths.add(&db, p, &calls(p)).is_empty());
                }
                sums.add_paths(paths);
            }
            rows(&sums.paths.expect("paths"))
        };
        let one_by_one = sums(1);
        assert!(one_by_one.len() > 10, "{}", one_by_one.len());
        for per_run in [2, 3, procs.len()] {
            assert_eq!(sums(per_run), one_by_one, "{per_run} per run");
        }
    }
}
