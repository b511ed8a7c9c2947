//! The call-tree table every input with a tree shares: one row per (node,
//! rank), built as columns straight from the trees.
//!
//! The trees are walked once, in runs of processes ([`TreeRows`], one per
//! run, built in parallel), each tree dropped (or reused) once its rows are
//! out. Each run unites its trees by path as it goes (its own merged tree),
//! so every row knows its node of that tree and keeps only what the table
//! shows. Then one short pass in run order unites the runs' merged trees
//! (their nodes, not the rows), whose pre-order numbers the nodes; then
//! each run's columns are rewritten in place to those numbers and become
//! one record batch. So the table's columns are the only thing of its size
//! that is ever held, once, and every pass over the rows runs in parallel.

use std::sync::Arc;

use arrow_array::types::UInt32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use profparse::{CallTree, NodeId};
use rayon::prelude::*;

use crate::arrow_stream::Table;

/// "No row": the parent of a top node, the number of a hidden node.
const NONE: u32 = u32::MAX;

/// The rows of some trees (a run of processes, or one tree), in tree order
/// and pre-order within a tree, before the nodes are numbered.
#[derive(Default)]
pub(crate) struct TreeRows {
    /// Per row, its node in `merged`; then the node's number.
    node: Vec<u32>,
    rank: Vec<u32>,
    /// Whether a tree of no rank is among them: then no row has one.
    unranked: bool,
    calls: Vec<u64>,
    inclusive: Vec<f64>,
    exclusive: Vec<f64>,
    /// Per row, whether it is left out (a subtree without calls).
    hidden: Vec<bool>,
    /// These trees united by path, with each node's calls summed.
    merged: CallTree<u64>,
    /// Trees added.
    trees: usize,
    /// Trees expected (for sizing the columns once the first is seen).
    expected: usize,
    /// Buffers reused from tree to tree: per name id of the tree's name
    /// table, its id in `merged` (kept while the trees share that table);
    /// per tree node, its node in `merged` (in the last tree with that
    /// node id); the subtrees' calls; the pre-order walk.
    name_in_merged: Vec<u32>,
    merged_of: Vec<NodeId>,
    subtree_calls: Vec<u64>,
    order: Vec<(NodeId, usize)>,
    stack: Vec<(NodeId, usize)>,
}

impl TreeRows {
    /// Rows for about `trees` trees: the columns are sized for that many
    /// trees like the first one.
    pub(crate) fn for_trees(trees: usize) -> Self {
        TreeRows {
            expected: trees,
            ..Default::default()
        }
    }

    /// The trees added so far.
    pub(crate) fn trees(&self) -> usize {
        self.trees
    }

    /// Adds the rows of `tree` (of process `rank`, or of no rank), in
    /// pre-order. `hide_uncalled`: marks the subtrees without calls to be
    /// left out, as the CLI's `calltree` leaves them out (all of them
    /// outside the selected regions); not for timer trees, whose files
    /// record no calls.
    pub(crate) fn push_tree(&mut self, rank: Option<usize>, tree: &CallTree, hide_uncalled: bool) {
        self.name_in_merged.clear();
        self.push_tree_sharing_names(rank, tree, hide_uncalled);
    }

    /// [`Self::push_tree`] for the trees of one reused [`CallTree`], whose
    /// name table only grows from tree to tree (`fold_process_trees`): the
    /// names seen in the trees before are not looked up again.
    pub(crate) fn push_tree_sharing_names(
        &mut self,
        rank: Option<usize>,
        tree: &CallTree,
        hide_uncalled: bool,
    ) {
        if self.trees == 0 {
            self.reserve(tree.len() * self.expected.max(1));
        }
        self.trees += 1;
        self.unranked |= rank.is_none();
        let rank = rank.map_or(0, |r| r as u32);
        for name in &tree.names()[self.name_in_merged.len().min(tree.names().len())..] {
            self.name_in_merged.push(self.merged.intern(name));
        }
        let unnamed = self.merged.intern("");
        if hide_uncalled {
            subtree_sums_into(tree, |m| m.calls, &mut self.subtree_calls);
        }
        // Kept from the trees before: the processes of a run mostly build
        // the same tree in the same order, so a node's id there is a guess
        // at its node in `merged`, checked in two compares.
        self.merged_of.resize(tree.len() + 1, self.merged.root());
        tree.preorder_into(&mut self.order, &mut self.stack);
        for &(id, _) in &self.order {
            let n = tree.node(id);
            let up = n
                .parent()
                .map_or(self.merged.root(), |p| self.merged_of[p.0 as usize]);
            let name = tree
                .name_index(id)
                .and_then(|i| self.name_in_merged.get(i as usize).copied())
                .unwrap_or(unnamed);
            let guess = self.merged_of[id.0 as usize];
            let m = if guess != self.merged.root()
                && self.merged.node(guess).parent() == Some(up)
                && self.merged.name_index(guess) == Some(name)
            {
                guess
            } else {
                self.merged.child_by_name_id(up, name)
            };
            self.merged_of[id.0 as usize] = m;
            self.merged.node_mut(m).metrics += n.metrics.calls;
            self.node.push(m.0);
            self.rank.push(rank);
            self.calls.push(n.metrics.calls);
            self.inclusive.push(n.metrics.inclusive);
            self.exclusive.push(n.metrics.exclusive);
            self.hidden
                .push(hide_uncalled && self.subtree_calls[id.0 as usize] == 0);
        }
    }

    fn reserve(&mut self, rows: usize) {
        self.node.reserve_exact(rows);
        self.rank.reserve_exact(rows);
        self.calls.reserve_exact(rows);
        self.inclusive.reserve_exact(rows);
        self.exclusive.reserve_exact(rows);
        self.hidden.reserve_exact(rows);
    }
}

/// The table's schema.
fn schema() -> SchemaRef {
    use DataType::{Float64, UInt32, UInt64, Utf8};
    let names = DataType::Dictionary(Box::new(UInt32), Box::new(Utf8));
    Arc::new(Schema::new(vec![
        Field::new("node", UInt32, false),
        Field::new("parent", UInt32, true),
        Field::new("name", names, false),
        Field::new("depth", UInt32, false),
        Field::new("rank", UInt32, true),
        Field::new("calls", UInt64, false),
        Field::new("inclusive", Float64, false),
        Field::new("exclusive", Float64, false),
    ]))
}

/// What a node of the merged tree gives its rows.
#[derive(Clone, Copy)]
struct Shown {
    number: u32,
    parent: u32,
    depth: u32,
    name: u32,
}

/// The call-tree table of the rows: one record batch per [`TreeRows`],
/// nodes numbered by the pre-order of the trees merged by path (children in
/// order of first appearance over the trees, in order), so that a node's
/// number is the same at every rank. `name` is a dictionary of the names.
pub(crate) fn tree_table(runs: Vec<TreeRows>) -> Result<Table, ArrowError> {
    // The runs' merged trees united in run order: a node's children keep
    // the order of their first appearance over the trees. A run's node ids
    // go parents first and siblings in order, so one pass in id order
    // creates each node after its parent and before its later siblings.
    let mut union: CallTree<u64> = CallTree::new();
    let mut in_union: Vec<Vec<NodeId>> = Vec::with_capacity(runs.len());
    for run in &runs {
        let m = &run.merged;
        let names: Vec<u32> = m.names().iter().map(|n| union.intern(n)).collect();
        let mut to = vec![union.root(); m.len() + 1];
        for i in 1..=m.len() {
            let id = NodeId(i as u32);
            let n = m.node(id);
            let up = n.parent().map_or(union.root(), |p| to[p.0 as usize]);
            let name = m.name_index(id).map_or(0, |k| names[k as usize]);
            let u = union.child_by_name_id(up, name);
            union.node_mut(u).metrics += n.metrics;
            to[i] = u;
        }
        in_union.push(to);
    }
    // Its pre-order numbers the nodes shown: a subtree without calls is
    // hidden only where it has none at any rank, as in the CLI's merged tree.
    let hide = runs.iter().any(|r| r.hidden.contains(&true));
    let mut sub = Vec::new();
    subtree_sums_into(&union, |c| *c, &mut sub);
    let mut shown = vec![
        Shown {
            number: NONE,
            parent: NONE,
            depth: 0,
            name: 0
        };
        union.len() + 1
    ];
    let visible = union
        .preorder()
        .into_iter()
        .filter(|(id, _)| !hide || sub[id.0 as usize] > 0);
    for (i, (id, depth)) in visible.enumerate() {
        let parent = union
            .node(id)
            .parent()
            .map_or(NONE, |p| shown[p.0 as usize].number);
        shown[id.0 as usize] = Shown {
            number: i as u32,
            parent,
            depth: depth as u32,
            name: union.name_index(id).unwrap_or(0),
        };
    }
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(union.names()));
    drop(union);
    let schema = schema();
    let batches = runs
        .into_par_iter()
        .zip(in_union)
        .map(|(run, to)| {
            let run_shown: Vec<Shown> = to.iter().map(|u| shown[u.0 as usize]).collect();
            run_batch(run, &run_shown, &names, &schema)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Table { schema, batches })
}

/// One run's record batch: its columns rewritten in place from its merged
/// tree's nodes to what the table shows (`shown`, by those nodes), hidden
/// rows left out.
fn run_batch(
    mut run: TreeRows,
    shown: &[Shown],
    names: &ArrayRef,
    schema: &SchemaRef,
) -> Result<RecordBatch, ArrowError> {
    let rows = run.node.len();
    let mut parent = Vec::with_capacity(rows);
    let mut depth = Vec::with_capacity(rows);
    let mut name = Vec::with_capacity(rows);
    let mut kept = 0;
    for i in 0..rows {
        if run.hidden[i] {
            continue;
        }
        let s = shown[run.node[i] as usize];
        run.node[kept] = s.number;
        name.push(s.name);
        parent.push(s.parent);
        depth.push(s.depth);
        run.rank[kept] = run.rank[i];
        run.calls[kept] = run.calls[i];
        run.inclusive[kept] = run.inclusive[i];
        run.exclusive[kept] = run.exclusive[i];
        kept += 1;
    }
    for v in [&mut run.node, &mut run.rank] {
        v.truncate(kept);
    }
    run.calls.truncate(kept);
    run.inclusive.truncate(kept);
    run.exclusive.truncate(kept);
    let parent_valid = NullBuffer::from_iter(parent.iter().map(|&p| p != NONE));
    let parent = UInt32Array::new(ScalarBuffer::from(parent), Some(parent_valid));
    let rank = if run.unranked {
        UInt32Array::new_null(kept)
    } else {
        UInt32Array::from(run.rank)
    };
    let name = DictionaryArray::<UInt32Type>::try_new(UInt32Array::from(name), names.clone())?;
    RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(UInt32Array::from(run.node)),
            Arc::new(parent),
            Arc::new(name),
            Arc::new(UInt32Array::from(depth)),
            Arc::new(rank),
            Arc::new(UInt64Array::from(run.calls)),
            Arc::new(Float64Array::from(run.inclusive)),
            Arc::new(Float64Array::from(run.exclusive)),
        ],
    )
}

/// The calls of each node's subtree (itself included), by node id, into
/// `sums`: a node is created after its parent, so a walk down the ids adds
/// each node's total to its parent's.
fn subtree_sums_into<M>(tree: &CallTree<M>, calls: impl Fn(&M) -> u64, sums: &mut Vec<u64>) {
    sums.clear();
    sums.extend((0..=tree.len()).map(|i| calls(&tree.node(NodeId(i as u32)).metrics)));
    for i in (1..=tree.len()).rev() {
        if let Some(p) = tree.node(NodeId(i as u32)).parent() {
            sums[p.0 as usize] += sums[i];
        }
    }
}
