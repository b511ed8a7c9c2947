//! The call-tree table every input with a tree shares: one row per (node,
//! rank), built as columns straight from the trees.
//!
//! The trees are walked once, in runs of processes ([`TreeRows`], one per
//! run, built in parallel), each tree dropped once its rows are out: the
//! rows keep only what the table shows plus, per row, its parent's row and
//! its name. Then one pass in process order unites the rows into the merged
//! tree (a hash lookup per row), whose pre-order numbers the nodes; then
//! each run's columns are rewritten in place to those numbers and become one
//! record batch. So the table's columns are the only thing of its size that
//! is ever held, once.

use std::sync::Arc;

use arrow_array::types::UInt32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use profparse::{CallTree, NodeId};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::arrow_stream::Table;

/// "No row": the parent of a top node, the number of a hidden node.
const NONE: u32 = u32::MAX;

/// The rows of some trees (a run of processes, or one tree), in tree order
/// and pre-order within a tree, before the nodes are numbered.
#[derive(Default)]
pub(crate) struct TreeRows {
    /// Per row, its parent's row (`NONE` at the top); then the merged
    /// tree's node; then the node's number.
    node: Vec<u32>,
    /// Per row, its name in `names`; then the name's key in the table's
    /// dictionary.
    name: Vec<u32>,
    rank: Vec<u32>,
    /// Whether a tree of no rank is among them: then no row has one.
    unranked: bool,
    calls: Vec<u64>,
    inclusive: Vec<f64>,
    exclusive: Vec<f64>,
    /// Per row, whether it is left out (a subtree without calls).
    hidden: Vec<bool>,
    /// The names of these rows, each once.
    names: Vec<String>,
    name_ids: FxHashMap<String, u32>,
    /// Trees added.
    trees: usize,
    /// Trees expected (for sizing the columns once the first is seen).
    expected: usize,
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
        if self.trees == 0 {
            self.reserve(tree.len() * self.expected.max(1));
        }
        self.trees += 1;
        self.unranked |= rank.is_none();
        let rank = rank.map_or(0, |r| r as u32);
        let local: Vec<u32> = tree.names().iter().map(|n| self.intern(n)).collect();
        let unnamed = self.intern("");
        let sub = hide_uncalled.then(|| subtree_sums(tree, |m| m.calls));
        let mut row_of = vec![NONE; tree.len() + 1];
        for (id, _) in tree.preorder() {
            let n = tree.node(id);
            row_of[id.0 as usize] = self.node.len() as u32;
            self.node
                .push(n.parent().map_or(NONE, |p| row_of[p.0 as usize]));
            self.name.push(
                tree.name_index(id)
                    .and_then(|i| local.get(i as usize).copied())
                    .unwrap_or(unnamed),
            );
            self.rank.push(rank);
            self.calls.push(n.metrics.calls);
            self.inclusive.push(n.metrics.inclusive);
            self.exclusive.push(n.metrics.exclusive);
            self.hidden
                .push(sub.as_ref().is_some_and(|s| s[id.0 as usize] == 0));
        }
    }

    fn reserve(&mut self, rows: usize) {
        self.node.reserve_exact(rows);
        self.name.reserve_exact(rows);
        self.rank.reserve_exact(rows);
        self.calls.reserve_exact(rows);
        self.inclusive.reserve_exact(rows);
        self.exclusive.reserve_exact(rows);
        self.hidden.reserve_exact(rows);
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.name_ids.insert(name.to_owned(), id);
        id
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
pub(crate) fn tree_table(mut runs: Vec<TreeRows>) -> Result<Table, ArrowError> {
    // The merged tree, with the calls of each node summed over the rows.
    let mut union: CallTree<u64> = CallTree::new();
    for run in &mut runs {
        let names: Vec<u32> = run.names.iter().map(|n| union.intern(n)).collect();
        for i in 0..run.node.len() {
            let up = match run.node[i] {
                NONE => union.root(),
                // A parent's row comes first: already a node of the union.
                p => NodeId(run.node[p as usize]),
            };
            let u = union.child_by_name_id(up, names[run.name[i] as usize]);
            union.node_mut(u).metrics += run.calls[i];
            run.node[i] = u.0;
        }
    }
    // Its pre-order numbers the nodes shown: a subtree without calls is
    // hidden only where it has none at any rank, as in the CLI's merged tree.
    let hide = runs.iter().any(|r| r.hidden.contains(&true));
    let sub = subtree_sums(&union, |c| *c);
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
        .map(|run| run_batch(run, &shown, &names, &schema))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Table { schema, batches })
}

/// One run's record batch: its columns rewritten in place from merged-tree
/// nodes to what the table shows, hidden rows left out.
fn run_batch(
    mut run: TreeRows,
    shown: &[Shown],
    names: &ArrayRef,
    schema: &SchemaRef,
) -> Result<RecordBatch, ArrowError> {
    let rows = run.node.len();
    let mut parent = Vec::with_capacity(rows);
    let mut depth = Vec::with_capacity(rows);
    let mut kept = 0;
    for i in 0..rows {
        if run.hidden[i] {
            continue;
        }
        let s = shown[run.node[i] as usize];
        run.node[kept] = s.number;
        run.name[kept] = s.name;
        parent.push(s.parent);
        depth.push(s.depth);
        run.rank[kept] = run.rank[i];
        run.calls[kept] = run.calls[i];
        run.inclusive[kept] = run.inclusive[i];
        run.exclusive[kept] = run.exclusive[i];
        kept += 1;
    }
    for v in [&mut run.node, &mut run.name, &mut run.rank] {
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
    let name = DictionaryArray::<UInt32Type>::try_new(UInt32Array::from(run.name), names.clone())?;
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

/// The calls of each node's subtree (itself included), by node id: a node
/// is created after its parent, so a walk down the ids adds each node's
/// total to its parent's.
fn subtree_sums<M>(tree: &CallTree<M>, calls: impl Fn(&M) -> u64) -> Vec<u64> {
    let mut sums: Vec<u64> = (0..=tree.len())
        .map(|i| calls(&tree.node(NodeId(i as u32)).metrics))
        .collect();
    for i in (1..=tree.len()).rev() {
        if let Some(p) = tree.node(NodeId(i as u32)).parent() {
            sums[p.0 as usize] += sums[i];
        }
    }
    sums
}
