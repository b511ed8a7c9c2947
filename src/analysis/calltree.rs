//! Call-path trees from the call traces (timer-tree semantics, see
//! [`crate::model::calltree`]): per process, and merged over processes.
//!
//! A record's parent is the latest record one level shallower: the depth
//! sequence of the records, in start order, encodes the tree. Records are
//! continued across a process's blocks, so a call open at a flush keeps its
//! children.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::trace_summary::Selection;
use crate::error::{Location, Warning};
use crate::formats::blprof::database::{Database, ProcTrace};
use crate::formats::blprof::walk::TraceProcWalk;
use super::spread_merge::{RunTrees, SpreadMerge};
use crate::model::calltree::{CallTree, Metrics, NodeId};

/// Metrics of a node merged over processes.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Spread {
    /// Sums over processes.
    pub total: Metrics,
    /// Processes in which the node occurs (`u32`, like the process ids
    /// below: a tree's nodes reach millions, so each byte counts).
    pub procs: u32,
    /// Smallest inclusive seconds on one process.
    pub inclusive_min: f64,
    /// Largest inclusive seconds on one process.
    pub inclusive_max: f64,
    /// The process with the largest inclusive seconds (the lowest of equals).
    pub inclusive_max_proc: Option<u32>,
    /// Smallest exclusive seconds on one process.
    pub exclusive_min: f64,
    /// Largest exclusive seconds on one process.
    pub exclusive_max: f64,
}

impl Spread {
    /// Adds process `proc`'s metrics of the node (processes in order: the
    /// first holding the maximum keeps it).
    pub fn add(&mut self, proc: usize, m: &Metrics) {
        let first = self.procs == 0;
        self.total.add(m);
        self.procs += 1;
        if first || m.inclusive < self.inclusive_min {
            self.inclusive_min = m.inclusive;
        }
        if first || m.inclusive > self.inclusive_max {
            self.inclusive_max = m.inclusive;
            self.inclusive_max_proc = Some(u32::try_from(proc).unwrap_or(u32::MAX));
        }
        if first || m.exclusive < self.exclusive_min {
            self.exclusive_min = m.exclusive;
        }
        if first || m.exclusive > self.exclusive_max {
            self.exclusive_max = m.exclusive;
        }
    }
}

impl Spread {
    /// Adds the spread of later processes (processes in order, as `add`).
    pub fn absorb(&mut self, later: &Spread) {
        if later.procs == 0 {
            return;
        }
        if self.procs == 0 {
            *self = *later;
            return;
        }
        self.total.add(&later.total);
        self.procs += later.procs;
        if later.inclusive_min < self.inclusive_min {
            self.inclusive_min = later.inclusive_min;
        }
        if later.inclusive_max > self.inclusive_max {
            self.inclusive_max = later.inclusive_max;
            self.inclusive_max_proc = later.inclusive_max_proc;
        }
        self.exclusive_min = self.exclusive_min.min(later.exclusive_min);
        self.exclusive_max = self.exclusive_max.max(later.exclusive_max);
    }
}

/// Builds one process's tree, with the warnings about its blocks in block
/// order. Only calls that start inside the selection count; their ancestors
/// appear as nodes (with 0 calls when unselected).
///
/// With `split_blocks` (one process asked for: processes give no
/// parallelism then), a process with several blocks (flushes) has each
/// block's tree built in parallel, as if the ancestors of the block's first
/// record were open (placeholders); the blocks are then joined in order, each placeholder
/// standing for the call open at the end of the blocks before. The tree is
/// the one of a walk over all the records, except that a node's sums are
/// added per block. Should a block start deeper than the calls left open
/// (damaged data: the walk attaches such a record to the deepest open call),
/// the process is walked record by record instead.
pub fn process_tree(
    p: TraceProcWalk<'_>,
    selection: &Selection,
    split_blocks: bool,
) -> (CallTree, Vec<Warning>) {
    if !split_blocks || p.proc().blocks.len() < 2 {
        return whole_process_tree(p, selection);
    }
    let parts: Vec<(PartTree, Option<Warning>)> = p.map_blocks(|b| {
        let mut part = PartBuilder::new(p.proc(), selection, p.row(), true, CallTree::new());
        let warning = b.for_each_call(|c| part.call(c));
        (part.finish(), warning)
    });
    let Some((tree, jumps)) = join_parts(parts.iter().map(|(part, _)| part)) else {
        return whole_process_tree(p, selection);
    };
    let mut found: Vec<Warning> = parts.into_iter().filter_map(|(_, w)| w).collect();
    if jumps > 0 {
        found.push(jumps_warning(p, jumps));
    }
    (tree, found)
}

/// The tree of consecutive runs of records, each built with placeholders
/// for the calls open before it, and the number of depth jumps; `None` when
/// a run starts deeper than the calls left open (then only a walk over all
/// the records gives the right tree).
fn join_parts<'a>(parts: impl Iterator<Item = &'a PartTree> + Clone) -> Option<(CallTree, usize)> {
    // The calls open at each run's start, by name from the root.
    let mut open: Vec<String> = Vec::new();
    let mut contexts = Vec::new();
    for part in parts.clone() {
        if part.context.len() > open.len() {
            return None;
        }
        open.truncate(part.context.len());
        contexts.push(open.clone());
        if part.any_call {
            open = part
                .end
                .iter()
                .map(|&id| match part.context.iter().position(|&c| c == id) {
                    Some(i) => open[i].clone(),
                    None => part.tree.name(id).to_owned(),
                })
                .collect();
        }
    }
    let mut tree: CallTree = CallTree::new();
    let mut jumps = 0;
    for (part, context) in parts.zip(&contexts) {
        jumps += part.jumps;
        join_part(&mut tree, part, context);
    }
    Some((tree, jumps))
}

/// Every record of the process in one walk.
fn whole_process_tree(p: TraceProcWalk<'_>, selection: &Selection) -> (CallTree, Vec<Warning>) {
    let mut tree = CallTree::new();
    let found = whole_process_tree_into(p, selection, &mut tree, &mut BuilderMemory::default());
    (tree, found)
}

/// [`whole_process_tree`] into `tree`, cleared first (its name table
/// kept), with the walk's buffers in `memory`: a run of processes reuses
/// one tree's memory and one set of buffers (with thousands of small
/// processes, growing them anew per process was a tenth of the walk).
fn whole_process_tree_into(
    p: TraceProcWalk<'_>,
    selection: &Selection,
    tree: &mut CallTree,
    memory: &mut BuilderMemory,
) -> Vec<Warning> {
    tree.clear();
    let mut part = PartBuilder::new(p.proc(), selection, p.row(), false, std::mem::take(tree));
    part.reuse(std::mem::take(memory));
    let mut found = p.for_each_call(|c| part.call(c));
    let (part, kept) = part.finish_whole();
    *memory = kept;
    if part.jumps > 0 {
        found.push(jumps_warning(p, part.jumps));
    }
    *tree = part.tree;
    found
}

/// The buffers of a [`PartBuilder`], kept from one process to the next.
#[derive(Default)]
struct BuilderMemory {
    stack: Vec<NodeId>,
    names: Vec<Option<u32>>,
    cache: Vec<Option<(NodeId, u32, NodeId)>>,
}

fn jumps_warning(p: TraceProcWalk<'_>, jumps: usize) -> Warning {
    Warning::new(
        Location::file(p.database().dir()),
        format!(
            "process {}: {jumps} call record(s) deeper than their parent allows; attached to the deepest open call",
            p.proc().proc
        ),
    )
}

/// The tree of a run of a process's records.
struct PartTree {
    tree: CallTree,
    /// Placeholders for the calls open before the run (outermost first).
    context: Vec<NodeId>,
    /// The calls open at the end (placeholders included).
    end: Vec<NodeId>,
    /// Whether the run had any call record.
    any_call: bool,
    jumps: usize,
}

/// Builds a [`PartTree`] record by record.
struct PartBuilder<'a> {
    p: &'a ProcTrace,
    selected: super::trace_summary::RowSelection<'a>,
    /// Placeholders for the first record's ancestors (a block after the
    /// first); else the walk starts at the root.
    placeholders: bool,
    part: PartTree,
    stack: Vec<NodeId>,
    /// Interned name per local function number, resolved once per function.
    names: Vec<Option<u32>>,
    /// Functions resolved into `names` so far.
    resolved: u32,
    /// The last lookup per depth (loops call the same child again and again).
    cache: Vec<Option<(NodeId, u32, NodeId)>>,
}

/// Calls open across a flush beyond which a block's first record is taken
/// as damaged (AMReX applications nest a few dozen deep).
const MAX_OPEN_ACROSS_FLUSH: usize = 10_000;

/// A placeholder's name: no function is called this.
const PLACEHOLDER: &str = "\u{0}open before";

impl<'a> PartBuilder<'a> {
    fn new(
        p: &'a ProcTrace,
        selection: &'a Selection,
        row: usize,
        placeholders: bool,
        tree: CallTree,
    ) -> Self {
        PartBuilder {
            p,
            selected: selection.for_row(row),
            placeholders,
            part: PartTree {
                tree,
                context: Vec::new(),
                end: Vec::new(),
                any_call: false,
                jumps: 0,
            },
            stack: Vec::new(),
            names: Vec::new(),
            resolved: 0,
            cache: Vec::new(),
        }
    }

    fn call(&mut self, c: &crate::formats::blprof::trace::CallRecord) {
        let Ok(depth) = usize::try_from(c.depth) else {
            return;
        };
        let tree = &mut self.part.tree;
        if !self.part.any_call {
            self.part.any_call = true;
            // The first record's depth is the number of calls open across
            // the flush: a value from the file, so the chain of
            // placeholders is capped (a deeper claim is damage: a jump).
            if self.placeholders {
                if depth > MAX_OPEN_ACROSS_FLUSH {
                    self.part.jumps += 1;
                }
                let mut at = tree.root();
                for _ in 0..depth.min(MAX_OPEN_ACROSS_FLUSH) {
                    at = tree.child(at, PLACEHOLDER);
                    self.part.context.push(at);
                }
                self.stack = self.part.context.clone();
            }
        }
        if depth > self.stack.len() {
            // The writer never skips a level; damaged data may.
            self.part.jumps += 1;
        }
        self.stack.truncate(depth);
        // The record's depth in the tree: its claimed depth, or less after a
        // jump; bounded by the records read, unlike the claim.
        let level = self.stack.len();
        let parent = self.stack.last().copied().unwrap_or(tree.root());
        let fnum = c.fnum as usize;
        if self.names.len() <= fnum && fnum < 1 << 20 {
            self.names.resize(fnum + 1, None);
        }
        let p = self.p;
        // Borrowed from the function table: a name is copied once, into
        // the tree's own table.
        let name_of = |f: i32| match p.functions.name(f as i64) {
            Some(name) => std::borrow::Cow::Borrowed(name),
            None => std::borrow::Cow::Owned(format!("function {f}")),
        };
        // A process calls its functions in the order the one before it in
        // this tree did, mostly: its n-th new name has id n.
        let guess = self.resolved;
        let name_id = match self.names.get_mut(fnum) {
            Some(Some(id)) => *id,
            Some(slot) => {
                self.resolved += 1;
                *slot.insert(tree.intern_at(&name_of(c.fnum), guess))
            }
            None => tree.intern(&name_of(c.fnum)),
        };
        if self.cache.len() <= level {
            self.cache.resize(level + 1, None);
        }
        let node = match self.cache[level] {
            Some((p, n, id)) if p == parent && n == name_id => id,
            _ => {
                let id = tree.child_by_name_id(parent, name_id);
                self.cache[level] = Some((parent, name_id, id));
                id
            }
        };
        self.stack.push(node);
        if self.selected.contains(c.start) {
            let m = &mut tree.node_mut(node).metrics;
            m.calls += 1;
            m.inclusive += c.inclusive;
            m.exclusive += c.exclusive;
        }
    }

    fn finish(mut self) -> PartTree {
        self.part.end = self.stack;
        self.part
    }

    /// Builds on `memory`'s buffers, emptied (before any call).
    fn reuse(&mut self, mut memory: BuilderMemory) {
        memory.stack.clear();
        memory.names.clear();
        memory.cache.clear();
        self.stack = memory.stack;
        self.names = memory.names;
        self.cache = memory.cache;
    }

    /// [`Self::finish`] without the calls open at the end (which only
    /// joining blocks needs), giving back the buffers for the next process.
    fn finish_whole(self) -> (PartTree, BuilderMemory) {
        let memory = BuilderMemory {
            stack: self.stack,
            names: self.names,
            cache: self.cache,
        };
        (self.part, memory)
    }
}

/// Adds a block's tree to the process's: each placeholder stands for the
/// call `context` names at its depth.
fn join_part(tree: &mut CallTree, part: &PartTree, context: &[String]) {
    let add = |m: &mut Metrics, n: &Metrics| {
        m.calls += n.calls;
        m.inclusive += n.inclusive;
        m.exclusive += n.exclusive;
    };
    let mut real = vec![tree.root()];
    for name in &context[..part.context.len()] {
        let at = tree.child(*real.last().expect("starts with the root"), name);
        real.push(at);
    }
    let from: Vec<NodeId> = std::iter::once(part.tree.root())
        .chain(part.context.iter().copied())
        .collect();
    // Deepest first: a placeholder's children all come before its parent's
    // other children in the records (once left, it is never reopened), and
    // a later call of the same function joins the same node after them.
    for (to, at) in real.into_iter().zip(from).rev() {
        for &c in part.tree.node(at).children() {
            if part.context.contains(&c) {
                continue;
            }
            let child = tree.child(to, part.tree.name(c));
            tree.merge_from(child, &part.tree, c, add);
        }
    }
}

/// The tree of one process (`Some(proc)`) or merged over all processes.
///
/// Runs of processes gather their trees in parallel; the main thread only
/// adds each run's union and sums (with thousands of small processes,
/// merging every tree there left the other threads waiting on it).
pub fn call_tree(
    db: &Database,
    selection: &Selection,
    proc: Option<usize>,
) -> (CallTree<Spread>, usize, Vec<Warning>) {
    let mut merge = SpreadMerge::default();
    // Runs merged, for later runs to gather into: it holds at most the
    // runs in flight at once.
    let spare = std::sync::Mutex::new(Vec::new());
    let warnings = for_each_process_run(
        db,
        selection,
        proc,
        || {
            let mut spare = spare.lock().unwrap_or_else(|p| p.into_inner());
            spare.pop().unwrap_or_else(RunTrees::default)
        },
        RunTrees::add,
        |mut run| {
            merge.add_run(&run);
            run.clear();
            spare.lock().unwrap_or_else(|p| p.into_inner()).push(run);
        },
    );
    let n = merge.procs();
    (merge.finish(), n, warnings)
}

/// Call records (by the headers' counts) past which a run of processes
/// takes no further process: what a run gathers is held until it is
/// consumed, a few runs per thread at once. At 16,384 processes (a block
/// of about 66 calls each) runs of 2^15 records held some 16 runs of 500
/// processes' tree nodes in flight: `report`'s peak 60 MB, most of it
/// pages faulted in once; 2^13 holds a quarter of that (peak 46 MB, the
/// same time).
const RUN_RECORDS: u64 = 1 << 13;

/// Processes in a run at most (the headers' counts may be 0 or wrong):
/// runs end at every multiple of it, for chunked merges to take whole runs.
pub(crate) const RUN_PROCS: usize = 512;

/// Runs per thread handed on at a time by [`for_each_process_run`].
const RUNS_PER_THREAD: usize = 4;

/// Folds the trees of each run of consecutive processes (`Some(proc)`: that
/// one) into one value, `init()` then `visit(acc, process, tree)` in
/// process order, the runs in parallel a window at a time, and hands the
/// values to `consume` in process order; returns the warnings about the
/// blocks, in process order. A run builds its trees into one
/// [`CallTree`] (cleared between processes).
pub fn for_each_process_run<A: Send>(
    db: &Database,
    selection: &Selection,
    proc: Option<usize>,
    init: impl Fn() -> A + Sync,
    visit: impl Fn(&mut A, usize, &CallTree) + Sync,
    mut consume: impl FnMut(A),
) -> Vec<Warning> {
    let walk = db.trace_blocks(proc.as_ref().map(std::slice::from_ref));
    let one = walk.procs().count() == 1;
    let records = |p: &TraceProcWalk<'_>| {
        p.proc()
            .blocks
            .iter()
            .fold(0u64, |n, b| n.saturating_add(b.ntrace))
    };
    let runs = runs(walk.procs(), records, RUN_RECORDS, RUN_PROCS);
    let mut warnings = Vec::new();
    crate::parallel::Ordered::per_thread(RUNS_PER_THREAD)
        .overlapped()
        .for_each(
            runs,
            |run| {
                let mut acc = init();
                let mut found = Vec::new();
                let mut tree = CallTree::new();
                let mut memory = BuilderMemory::default();
                for p in run {
                    if one {
                        let w;
                        (tree, w) = process_tree(p, selection, one);
                        found.extend(w);
                    } else {
                        found.extend(whole_process_tree_into(p, selection, &mut tree, &mut memory));
                    }
                    visit(&mut acc, p.proc().proc, &tree);
                }
                (acc, found)
            },
            |(acc, w)| {
                warnings.extend(w);
                consume(acc);
            },
        );
    warnings
}

/// `items` cut into runs of consecutive ones: a run takes items while its
/// `weight` stays within `max_weight` and it takes one item at least; no
/// run crosses a multiple of `max_len` items, so that a caller summing
/// blocks of a multiple of `max_len` items can take whole runs
/// ([`RUN_PROCS`]).
fn runs<T>(
    items: impl Iterator<Item = T>,
    weight: impl Fn(&T) -> u64,
    max_weight: u64,
    max_len: usize,
) -> impl Iterator<Item = Vec<T>> {
    let mut items = items.peekable();
    let max_len = max_len.max(1);
    let mut taken = 0usize;
    std::iter::from_fn(move || {
        let mut run = Vec::new();
        let mut total = 0u64;
        while let Some(item) = items.next_if(|item| {
            let more = total.saturating_add(weight(item));
            run.is_empty() || (more <= max_weight && !taken.is_multiple_of(max_len))
        }) {
            total = total.saturating_add(weight(&item));
            run.push(item);
            taken += 1;
        }
        (!run.is_empty()).then_some(run)
    })
}

/// The tree of each process (`Some(proc)`: that one), in process order,
/// with the warnings about their blocks: what [`call_tree`] merges, for
/// analyses that transform each process's tree before the merge
/// (`super::callers`).
pub fn process_trees(
    db: &Database,
    selection: &Selection,
    proc: Option<usize>,
) -> (Vec<(usize, CallTree)>, Vec<Warning>) {
    let walk = db.trace_blocks(proc.as_ref().map(std::slice::from_ref));
    let one = walk.procs().count() == 1;
    let mut warnings = Vec::new();
    let trees: Vec<(usize, CallTree)> = walk
        .map_procs(|p| (p.proc().proc, process_tree(p, selection, one)))
        .into_iter()
        .map(|(proc, (tree, w))| {
            warnings.extend(w);
            (proc, tree)
        })
        .collect();
    (trees, warnings)
}

/// Folds the tree of each process (`Some(proc)`: that one) into one value
/// per run of consecutive processes: `init(processes in the run)`, then
/// `visit(acc, process, tree)` in process order within the run, the runs
/// in parallel (several per thread) and
/// returned in order, with the warnings about the blocks in process order.
/// A run builds each of its trees into the same [`CallTree`] (cleared
/// between processes, its name table kept: a name's id is the same in every
/// tree of a run), so that a caller that keeps only what it takes from the
/// trees (the Python package's call-tree table) never holds them all, as
/// [`process_trees`] does, nor allocates per node.
pub fn fold_process_trees<A: Send>(
    db: &Database,
    selection: &Selection,
    proc: Option<usize>,
    init: impl Fn(usize) -> A + Sync,
    visit: impl Fn(&mut A, usize, &CallTree) + Sync,
) -> (Vec<A>, Vec<Warning>) {
    let walk = db.trace_blocks(proc.as_ref().map(std::slice::from_ref));
    let procs: Vec<TraceProcWalk<'_>> = walk.procs().collect();
    let one = procs.len() == 1;
    // Several runs per thread, so that uneven processes even out.
    let per_run = procs
        .len()
        .div_ceil(8 * rayon::current_num_threads())
        .max(1);
    let runs: Vec<(A, Vec<Warning>)> = procs
        .par_chunks(per_run)
        .map(|run| {
            let mut acc = init(run.len());
            let mut warnings = Vec::new();
            let mut tree = CallTree::new();
            let mut memory = BuilderMemory::default();
            for &p in run {
                if one {
                    let w;
                    (tree, w) = process_tree(p, selection, one);
                    warnings.extend(w);
                } else {
                    warnings.extend(whole_process_tree_into(p, selection, &mut tree, &mut memory));
                }
                visit(&mut acc, p.proc().proc, &tree);
            }
            (acc, warnings)
        })
        .collect();
    let mut warnings = Vec::new();
    let folded = runs
        .into_iter()
        .map(|(acc, w)| {
            warnings.extend(w);
            acc
        })
        .collect();
    (folded, warnings)
}

/// Levels merged in order before the subtrees are merged in parallel.
const MAX_SERIAL_LEVELS: usize = 3;

/// Unifies per-process trees by path into min/avg/max spreads.
///
/// The top levels are merged in order until there are enough subtrees to
/// keep every thread busy; those subtrees are merged in parallel, each over
/// the processes in order, so every node combines its processes in the same
/// order as a sequential merge (same sums, same tie-breaks, same child order).
pub fn merge_trees(trees: &[(usize, CallTree)]) -> CallTree<Spread> {
    let combine = |proc: usize| move |s: &mut Spread, m: &Metrics| s.add(proc, m);
    let mut merged: CallTree<Spread> = CallTree::new();
    let root = merged.root();
    // A merged node and its sources: (process, tree, node), in process order.
    type Sources<'a> = Vec<(usize, &'a CallTree, NodeId)>;
    let mut frontier: Vec<(NodeId, Sources)> =
        vec![(root, trees.iter().map(|(p, t)| (*p, t, t.root())).collect())];
    // Several subtrees per thread, so that uneven ones even out.
    let wanted = 8 * rayon::current_num_threads();
    for _ in 0..MAX_SERIAL_LEVELS {
        if frontier.len() >= wanted {
            break;
        }
        let mut next: Vec<(NodeId, Sources)> = Vec::new();
        // Merged node → its place in `next`.
        let mut place: FxHashMap<NodeId, usize> = FxHashMap::default();
        for (at, sources) in &frontier {
            // Children in order of first appearance over the processes.
            for &(proc, t, node) in sources {
                combine(proc)(&mut merged.node_mut(*at).metrics, &t.node(node).metrics);
                for &c in t.node(node).children() {
                    let child = merged.child(*at, t.name(c));
                    let i = *place.entry(child).or_insert_with(|| {
                        next.push((child, Vec::new()));
                        next.len() - 1
                    });
                    next[i].1.push((proc, t, c));
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    let subtrees: Vec<CallTree<Spread>> = frontier
        .par_iter()
        .map(|(_, sources)| {
            let mut sub: CallTree<Spread> = CallTree::new();
            for &(proc, t, node) in sources {
                sub.merge_from(sub.root(), t, node, combine(proc));
            }
            sub
        })
        .collect();
    merged.graft_all(frontier.iter().map(|(at, _)| *at).zip(subtrees).collect());
    zero_absent_minimums(&mut merged, trees.len());
    merged
}

/// The last step of a merge of `n` processes: a node missing in some
/// process has 0 s there, its smallest time (in place: the tree can be
/// millions of nodes).
pub fn zero_absent_minimums(merged: &mut CallTree<Spread>, n: usize) {
    // (`len` counts the nodes below the root; the root is node 0.)
    for i in 0..=merged.len() {
        let s = &mut merged.node_mut(NodeId(i as u32)).metrics;
        if (s.procs as usize) < n {
            s.inclusive_min = 0.0;
            s.exclusive_min = 0.0;
        }
    }
}

/// Calls in the node's subtree (for hiding branches no selected call reached).
pub fn subtree_calls(tree: &CallTree<Spread>) -> Vec<u64> {
    let n = tree.len() + 1;
    let mut calls = vec![0u64; n];
    // A parent's id is below its children's (see `CallTree`): walking ids
    // backwards sums every subtree before its parent is reached, so one
    // pass over the nodes (a big tree's tens of MB) adds each node's own
    // calls and hands the sum on.
    for i in (0..n).rev() {
        let node = tree.node(NodeId(i as u32));
        calls[i] += node.metrics.total.calls;
        if let Some(p) = node.parent() {
            debug_assert!((p.0 as usize) < i);
            calls[p.0 as usize] += calls[i];
        }
    }
    calls
}

/// Warnings about [`inconsistent_nodes`], at `at`: the first few call paths
/// (shortened), then how many more.
pub fn inconsistency_warnings(tree: &CallTree<Spread>, at: &Location) -> Vec<Warning> {
    Warning::listed(
        inconsistent_nodes(tree),
        |id| {
            Warning::new(
                at.clone(),
                format!(
                    "call path {}: inclusive time is less than its children's",
                    tree.short_path(id, " > ")
                ),
            )
        },
        |more| {
            Warning::new(
                at.clone(),
                format!(
                    "{more} more call paths whose inclusive time is less than their children's"
                ),
            )
        },
    )
}

/// Nodes whose inclusive time is less than the sum of their children's
/// (beyond rounding): a sign of damaged or unpatched records.
pub fn inconsistent_nodes(tree: &CallTree<Spread>) -> Vec<NodeId> {
    tree.preorder()
        .into_iter()
        .map(|(id, _)| id)
        .filter(|&id| {
            let n = tree.node(id);
            let kids: f64 = n
                .children()
                .iter()
                .map(|&c| tree.node(c).metrics.total.inclusive)
                .sum();
            n.metrics.total.calls > 0 && kids > n.metrics.total.inclusive * (1.0 + 1e-9) + 1e-9
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge as one sequential fold over processes: what the parallel
    /// merge must equal exactly.
    fn sequential_merge(trees: &[(usize, CallTree)]) -> CallTree<Spread> {
        let mut merged: CallTree<Spread> = CallTree::new();
        for (proc, t) in trees {
            merged.merge_with(t, |s, m| s.add(*proc, m));
        }
        let n = trees.len();
        merged.map(|_, s| Spread {
            inclusive_min: if (s.procs as usize) < n { 0.0 } else { s.inclusive_min },
            exclusive_min: if (s.procs as usize) < n { 0.0 } else { s.exclusive_min },
            ..*s
        })
    }

    /// Pre-order names, depths and exact metrics.
    fn shape(t: &CallTree<Spread>) -> Vec<String> {
        t.preorder()
            .into_iter()
            .map(|(id, d)| {
                let s = &t.node(id).metrics;
                format!(
                    "{d} {} {} {:x} {:x} {} {:x} {:x} {:?} {:x} {:x}",
                    t.name(id),
                    s.total.calls,
                    s.total.inclusive.to_bits(),
                    s.total.exclusive.to_bits(),
                    s.procs,
                    s.inclusive_min.to_bits(),
                    s.inclusive_max.to_bits(),
                    s.inclusive_max_proc,
                    s.exclusive_min.to_bits(),
                    s.exclusive_max.to_bits()
                )
            })
            .collect()
    }

    #[test]
    fn runs_are_consecutive_and_bounded() {
        let weights = [3u64, 4, 0, 9, 20, 1, 1, 1, 1, 1, 2, u64::MAX, 5];
        let cut: Vec<Vec<u64>> = runs(weights.iter().copied(), |&w| w, 10, 4).collect();
        assert_eq!(
            cut,
            vec![
                vec![3, 4, 0],
                vec![9],
                vec![20],
                vec![1, 1, 1],
                vec![1, 1, 2],
                vec![u64::MAX],
                vec![5]
            ]
        );
        assert_eq!(runs(std::iter::empty::<u64>(), |&w| w, 10, 4).count(), 0);
    }

    #[test]
    fn parallel_merge_equals_the_sequential_fold() {
        let mut rng = crate::test_rng::Xorshift::new(0x2545_f491_4f6c_dd1du64);
        let mut next = move |n: u64| rng.below(n);
        let names = ["a", "b", "c", "d", "e"];
        let trees: Vec<(usize, CallTree)> = (0..9)
            .map(|proc| {
                let mut t: CallTree = CallTree::new();
                for _ in 0..200 {
                    let depth = 1 + next(5) as usize;
                    let path: Vec<&str> = (0..depth).map(|_| names[next(5) as usize]).collect();
                    let id = t.node_at_path(&path);
                    let m = &mut t.node_mut(id).metrics;
                    m.calls += 1;
                    // Values whose sums depend on the order of addition.
                    m.inclusive += 0.1 * next(1000) as f64 + 1e-9 * next(7) as f64;
                    m.exclusive += 0.3 * next(100) as f64;
                }
                (proc * 3, t)
            })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let parallel = pool.install(|| merge_trees(&trees));
        assert_eq!(shape(&parallel), shape(&sequential_merge(&trees)));
        assert!(parallel.len() > 50);
    }
    /// A generated database of 50 processes (its directory lives as long
    /// as the first value).
    fn fifty_procs() -> (tempfile::TempDir, Database) {
        let dir = tempfile::tempdir().unwrap();
        crate::synth::blprof::BlprofConfig {
            nprocs: 50,
            calls_per_block: 40,
            ..Default::default()
        }
        .write(dir.path())
        .unwrap();
        let db = Database::open(dir.path()).unwrap();
        (dir, db)
    }

    /// Folding the process trees in runs visits exactly the trees
    /// `process_trees` gives, in process order, at any number of threads.
    #[test]
    fn folded_trees_are_the_process_trees_in_order() {
        let (_dir, db) = fifty_procs();
        let selection = Selection { ranges: None };
        let rows = |t: &CallTree| {
            t.preorder()
                .into_iter()
                .map(|(id, d)| (d, t.name(id).to_owned(), t.node(id).metrics))
                .collect::<Vec<_>>()
        };
        let (trees, warnings) = process_trees(&db, &selection, None);
        assert!(warnings.is_empty());
        let expected: Vec<_> = trees.iter().map(|(p, t)| (*p, rows(t))).collect();
        assert_eq!(expected.len(), 50);
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (runs, warnings) = pool.install(|| {
                fold_process_trees(&db, &selection, None, Vec::with_capacity, |v, p, t| {
                    v.push((p, rows(t)))
                })
            });
            assert!(warnings.is_empty());
            assert!(runs.len() > 1 && runs.iter().any(|r| r.len() > 1), "{threads}");
            assert_eq!(runs.concat(), expected, "{threads} threads");
        }
        let (one, _) = fold_process_trees(&db, &selection, Some(7), Vec::with_capacity, |v, p, t| {
            v.push((p, rows(t)))
        });
        assert_eq!(one.concat(), vec![expected[7].clone()]);
    }

    /// The trees merged by runs of processes on the workers equal the
    /// process trees built anew and merged one by one, at any number of
    /// threads.
    #[test]
    fn run_merged_trees_equal_fresh_ones() {
        let (_dir, db) = fifty_procs();
        let selection = Selection { ranges: None };
        let rows = |t: &CallTree<Spread>| {
            t.preorder()
                .into_iter()
                .map(|(id, d)| (d, t.name(id).to_owned(), t.node(id).metrics))
                .collect::<Vec<_>>()
        };
        let (trees, _) = process_trees(&db, &selection, None);
        let expected = rows(&merge_trees(&trees));
        assert!(expected.len() > 10);
        for threads in [1, 3] {
            let threads_pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (tree, n, _) = threads_pool.install(|| call_tree(&db, &selection, None));
            assert_eq!((rows(&tree), n), (expected.clone(), 50), "{threads} threads");
        }
    }

    /// Runs of records cut anywhere and joined equal one walk over all of
    /// them: the same paths in the same order, the same calls, the same
    /// sums up to rounding, the same jumps; and a run starting deeper than
    /// the calls left open is refused.
    #[test]
    fn joined_runs_equal_one_walk() {
        use crate::formats::blprof::callstats::FunctionTable;
        use crate::formats::blprof::trace::CallRecord;
        let p = ProcTrace {
            proc: 0,
            blocks: crate::formats::blprof::database::ProcBlocks::from_vec(Vec::new()),
            functions: FunctionTable {
                entries: (0..4).map(|n| (n, format!("f{n}").into())).collect(),
            },
        };
        let selection = Selection { ranges: None };
        let mut rng = crate::synth::SplitMix64::new(0x1234_5678_9abc_def1);
        let mut next = move |n: u64| rng.next_u64() % n;
        let shape = |t: &CallTree| {
            t.preorder()
                .into_iter()
                .map(|(id, d)| (d, t.name(id).to_owned(), t.node(id).metrics))
                .collect::<Vec<_>>()
        };
        let (mut refused, mut joined_deep) = (0, 0);
        for case in 0..500 {
            let mut depth = 0i32;
            let records: Vec<CallRecord> = (0..1 + next(120))
                .map(|i| {
                    depth = match next(10) {
                        0 if case % 5 == 0 => depth + 2, // a jump (damage)
                        0..=3 => depth + 1,
                        4..=6 => depth,
                        _ => (depth - 1 - next(3) as i32).max(0),
                    };
                    CallRecord {
                        depth,
                        fnum: next(5) as i32,
                        ncalls: 1,
                        inclusive: 0.1 * next(100) as f64,
                        exclusive: 0.01 * next(100) as f64,
                        start: i as f64,
                    }
                })
                .collect();
            let mut whole = PartBuilder::new(&p, &selection, 0, false, CallTree::new());
            records.iter().for_each(|c| whole.call(c));
            let whole = whole.finish();
            // Cut into runs; some runs empty.
            let mut cuts: Vec<usize> = (0..next(5))
                .map(|_| next(records.len() as u64 + 1) as usize)
                .collect();
            cuts.push(0);
            cuts.push(records.len());
            cuts.sort();
            let parts: Vec<PartTree> = cuts
                .windows(2)
                .map(|w| {
                    let mut part = PartBuilder::new(&p, &selection, 0, true, CallTree::new());
                    records[w[0]..w[1]].iter().for_each(|c| part.call(c));
                    part.finish()
                })
                .collect();
            match join_parts(parts.iter()) {
                Some((tree, jumps)) => {
                    joined_deep += usize::from(parts.iter().any(|p| !p.context.is_empty()));
                    let (a, b) = (shape(&tree), shape(&whole.tree));
                    assert_eq!(a.len(), b.len(), "case {case}");
                    for (x, y) in a.iter().zip(&b) {
                        assert_eq!(
                            (x.0, &x.1, x.2.calls),
                            (y.0, &y.1, y.2.calls),
                            "case {case}"
                        );
                        assert!((x.2.inclusive - y.2.inclusive).abs() < 1e-9, "case {case}");
                        assert!((x.2.exclusive - y.2.exclusive).abs() < 1e-9, "case {case}");
                    }
                    assert_eq!(jumps, whole.jumps, "case {case}");
                }
                None => refused += 1,
            }
        }
        assert!(refused > 0 && joined_deep > 100, "{refused} {joined_deep}");
    }
}
