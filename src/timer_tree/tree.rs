//! The timer tree itself: start, stop, read, snapshot and reset over the
//! shared [`CallTree`] model, with a clock that tests can replace.
//!
//! Time is kept as integer nanoseconds from a monotonic clock per timer, so
//! no interval is lost to rounding (the Fortran reference adds binary32
//! seconds and drops short intervals on long runs). A timer rebuilt by
//! deserialize also keeps the seconds it was given, bit for bit.

use std::fmt;
use std::io::Write;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Instant;

use crate::model::calltree::{CallTree, NodeId};
use crate::model::timertree::{SerialError, Serialized, Timing};

use super::write::{WriteOptions, write_tree};

/// A source of monotonic time in nanoseconds. Replace it in tests to make
/// elapsed times exact.
pub trait Clock: Send + Sync {
    /// Nanoseconds since an arbitrary fixed origin; never decreases.
    fn now_ns(&self) -> u64;
}

/// The default clock: [`Instant`], counted from the clock's creation.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    /// A clock started now.
    pub fn new() -> Self {
        MonotonicClock {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now_ns(&self) -> u64 {
        // u64 nanoseconds last 584 years; saturate rather than wrap.
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// Identifies one timer of a tree: creation order, starting at 1. Stable for
/// the life of the tree (until `reset` or `deserialize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle(u32);

impl Handle {
    /// A handle from its number (as printed, or given on a command line).
    /// Whether it names a timer is checked where it is used.
    pub fn new(number: u32) -> Self {
        Handle(number)
    }
    /// The number of the timer it names (as printed).
    pub fn get(self) -> u32 {
        self.0
    }
    /// The node of the call tree: handles are node ids (the root is 0).
    pub fn node(self) -> NodeId {
        NodeId(self.0)
    }
    pub(crate) fn of(node: NodeId) -> Self {
        Handle(node.0)
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What went wrong in a timer-tree operation.
#[derive(Debug, thiserror::Error)]
pub enum TimerError {
    /// `stop(name)` while another timer is the innermost running one. The
    /// text is the reference's; `current` is empty when nothing runs. The
    /// tree is unchanged.
    #[error("TIMER_TREE%STOP: current timer is {current}; cannot stop {requested}")]
    Misnest {
        /// The running timer (empty when none runs).
        current: String,
        /// The timer asked to stop.
        requested: String,
    },
    /// A handle that names no timer of the tree.
    #[error("no timer has handle {handle}: the tree has {count} timer(s)")]
    BadHandle {
        /// The handle given.
        handle: u32,
        /// Timers of the tree.
        count: usize,
    },
    /// Writing or serializing a tree without timers.
    #[error("the timer tree is empty")]
    Empty,
    /// Writing the output failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// How `start` and `stop` compare a timer's name with the names in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NameMatch {
    /// Names are equal when their bytes are: "A" and "A " are two timers.
    #[default]
    Exact,
    /// Fortran character equality, for blank-padded `character` variables:
    /// trailing blanks do not count ("A" and "A   " are one timer, named
    /// as the first `start` spelled it); leading blanks do.
    IgnoreTrailingBlanks,
}

impl NameMatch {
    fn same(self, a: &str, b: &str) -> bool {
        match self {
            NameMatch::Exact => a == b,
            NameMatch::IgnoreTrailingBlanks => a.trim_end_matches(' ') == b.trim_end_matches(' '),
        }
    }
}

/// Per-node state: seconds given by deserialize plus nanoseconds measured.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Accum {
    base: f64,
    ns: u64,
    calls: u64,
}

impl Accum {
    fn seconds(&self, running_ns: u64) -> f64 {
        let ns = self.ns.saturating_add(running_ns);
        if ns == 0 {
            // Adding 0.0 would turn a deserialized -0.0 into +0.0.
            self.base
        } else {
            self.base + ns as f64 / 1e9
        }
    }
}

/// One running timer of a nesting: which node, and when it was started.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    node: NodeId,
    start_ns: u64,
}

/// The timers without a nesting: shared by [`TimerTree`] (one nesting) and
/// the global tree (one nesting per thread, see `global`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Timers {
    tree: CallTree<Accum>,
    names: NameMatch,
}

impl Timers {
    pub(crate) fn new(names: NameMatch) -> Self {
        Timers {
            tree: CallTree::new(),
            names,
        }
    }

    pub(crate) fn name_match(&self) -> NameMatch {
        self.names
    }

    pub(crate) fn set_name_match(&mut self, names: NameMatch) {
        self.names = names;
    }

    pub(crate) fn start(&mut self, stack: &mut Vec<Frame>, name: &str, now: u64) -> Handle {
        let parent = stack.last().map_or(self.tree.root(), |f| f.node);
        let id = match self.existing_child(parent, name) {
            Some(id) => id,
            None => self.tree.child(parent, name),
        };
        self.tree.node_mut(id).metrics.calls += 1;
        stack.push(Frame {
            node: id,
            start_ns: now,
        });
        Handle::of(id)
    }

    pub(crate) fn stop(
        &mut self,
        stack: &mut Vec<Frame>,
        name: &str,
        now: u64,
    ) -> Result<(), TimerError> {
        let current = stack.last().map_or("", |f| self.tree.name(f.node));
        let Some(top) = stack
            .last()
            .copied()
            .filter(|_| self.names.same(current, name))
        else {
            return Err(TimerError::Misnest {
                current: current.to_owned(),
                requested: name.to_owned(),
            });
        };
        let acc = &mut self.tree.node_mut(top.node).metrics;
        acc.ns = acc.ns.saturating_add(now.saturating_sub(top.start_ns));
        stack.pop();
        Ok(())
    }

    /// The child of `parent` that `name` names under the tree's rule. The
    /// exact lookup is a hash probe; only a blank-padded spelling that differs
    /// from the stored one scans the siblings (as the reference always does).
    fn existing_child(&self, parent: NodeId, name: &str) -> Option<NodeId> {
        let exact = self.tree.find_child(parent, name);
        if exact.is_some() || self.names == NameMatch::Exact {
            return exact;
        }
        let children = self.tree.node(parent).children();
        children
            .iter()
            .copied()
            .find(|&c| self.names.same(self.tree.name(c), name))
    }

    pub(crate) fn check(&self, handle: Handle) -> Result<NodeId, TimerError> {
        let id = handle.node();
        if id != self.tree.root() && self.tree.contains(id) {
            Ok(id)
        } else {
            Err(TimerError::BadHandle {
                handle: handle.get(),
                count: self.tree.len(),
            })
        }
    }

    pub(crate) fn read(
        &self,
        stack: &[Frame],
        handle: Handle,
        now: u64,
    ) -> Result<f64, TimerError> {
        let id = self.check(handle)?;
        Ok(self
            .tree
            .node(id)
            .metrics
            .seconds(running_ns(stack, id, now)))
    }

    pub(crate) fn calls(&self, handle: Handle) -> Result<u64, TimerError> {
        let id = self.check(handle)?;
        Ok(self.tree.node(id).metrics.calls)
    }

    pub(crate) fn name(&self, handle: Handle) -> Result<&str, TimerError> {
        let id = self.check(handle)?;
        Ok(self.tree.name(id))
    }

    pub(crate) fn handle_at<S: AsRef<str>>(&self, path: &[S]) -> Option<Handle> {
        match self.tree.find_path(path) {
            Some(id) if id != self.tree.root() => Some(Handle::of(id)),
            _ => None,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.tree.len()
    }

    /// Totals with the running timers of `stack` included up to `now`;
    /// pure: the stored state does not change.
    pub(crate) fn snapshot(&self, stack: &[Frame], now: u64) -> CallTree<Timing> {
        self.tree.map(|id, acc| Timing {
            seconds: acc.seconds(running_ns(stack, id, now)),
            calls: acc.calls,
        })
    }

    /// Timers rebuilt from validated serialized arrays.
    pub(crate) fn from_serialized(s: &Serialized, names: NameMatch) -> Result<Self, SerialError> {
        let built = s.to_call_tree()?;
        Ok(Timers {
            tree: built.map(|_, t| Accum {
                base: t.seconds,
                ns: 0,
                calls: t.calls,
            }),
            names,
        })
    }
}

/// Time `id` has been running in this nesting (a node occurs at most once in
/// a stack: a timer cannot be started inside itself).
fn running_ns(stack: &[Frame], id: NodeId, now: u64) -> u64 {
    stack
        .iter()
        .find(|f| f.node == id)
        .map_or(0, |f| now.saturating_sub(f.start_ns))
}

/// A tree of nested timers with one current nesting.
///
/// Timers are told apart by name *and* position: `B` started inside `A` and
/// `B` started at the top level are two timers. Starting a timer that exists
/// at the current position reuses it and accumulates.
pub struct TimerTree {
    timers: Timers,
    stack: Vec<Frame>,
    clock: Arc<dyn Clock>,
}

impl Default for TimerTree {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for TimerTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerTree")
            .field("timers", &self.timers.len())
            .field("running", &self.stack.len())
            .finish()
    }
}

impl TimerTree {
    /// An empty tree on the monotonic clock.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(MonotonicClock::new()))
    }

    /// An empty tree on `clock` (tests pass a fake clock).
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        TimerTree {
            timers: Timers::new(NameMatch::Exact),
            stack: Vec::new(),
            clock,
        }
    }

    /// How names are compared from now on (default [`NameMatch::Exact`]);
    /// kept by `reset` and `deserialize`.
    pub fn set_name_match(&mut self, names: NameMatch) {
        self.timers.set_name_match(names);
    }

    /// Starts the child `name` of the current timer (created on first use,
    /// last among its siblings) and makes it current.
    pub fn start(&mut self, name: &str) -> Handle {
        let now = self.clock.now_ns();
        self.timers.start(&mut self.stack, name, now)
    }

    /// Stops the current timer, which must be called `name`; its parent
    /// becomes current. On a misnest the tree is unchanged.
    pub fn stop(&mut self, name: &str) -> Result<(), TimerError> {
        let now = self.clock.now_ns();
        self.timers.stop(&mut self.stack, name, now)
    }

    /// Starts `name` and stops it when the guard is dropped. Nest further
    /// timers through the guard (`guard.scoped("inner")`), so that the
    /// borrow checker enforces the nesting.
    pub fn scoped(&mut self, name: &str) -> Scoped<'_> {
        let handle = self.start(name);
        Scoped {
            tree: self,
            name: name.to_owned(),
            handle,
        }
    }

    /// Accumulated seconds of a timer, running time included. Pure.
    pub fn read(&self, handle: Handle) -> Result<f64, TimerError> {
        self.timers.read(&self.stack, handle, self.clock.now_ns())
    }

    /// How often the timer was started.
    pub fn calls(&self, handle: Handle) -> Result<u64, TimerError> {
        self.timers.calls(handle)
    }

    /// The timer's name, as given to `start`.
    pub fn name(&self, handle: Handle) -> Result<&str, TimerError> {
        self.timers.name(handle)
    }

    /// The timer at a path of names from the top level, if it exists.
    pub fn handle_at<S: AsRef<str>>(&self, path: &[S]) -> Option<Handle> {
        self.timers.handle_at(path)
    }

    /// The innermost running timer, if any.
    pub fn current(&self) -> Option<Handle> {
        self.stack.last().map(|f| Handle::of(f.node))
    }

    /// Number of timers (the last handle).
    pub fn len(&self) -> usize {
        self.timers.len()
    }

    /// Whether the tree has no timer.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All totals as a call tree (node id = handle), running timers included
    /// up to now. Pure: unlike the reference, nothing is folded in.
    pub fn snapshot(&self) -> CallTree<Timing> {
        self.timers.snapshot(&self.stack, self.clock.now_ns())
    }

    /// Writes the reference layout (see [`write_tree`]): `indent` spaces
    /// per level, `name:`, the time in Fortran `ES12.5`. With `handle`, only
    /// that subtree, its root at depth 0.
    pub fn write(
        &self,
        w: &mut dyn Write,
        indent: usize,
        handle: Option<Handle>,
    ) -> Result<(), TimerError> {
        let opts = WriteOptions {
            indent,
            handle,
            ..WriteOptions::default()
        };
        write_tree(w, &self.snapshot(), &opts)
    }

    /// The whole tree as pre-order open/close pairs, names and seconds.
    pub fn serialize(&self) -> Result<Serialized, TimerError> {
        if self.is_empty() {
            return Err(TimerError::Empty);
        }
        Ok(Serialized::from_call_tree(&self.snapshot()))
    }

    /// Replaces the whole tree by validated serialized arrays; afterwards
    /// handle k is serialized node k and nothing runs. On error the tree is
    /// unchanged.
    pub fn deserialize(&mut self, s: &Serialized) -> Result<(), SerialError> {
        self.timers = Timers::from_serialized(s, self.timers.name_match())?;
        self.stack.clear();
        Ok(())
    }

    /// Deletes all timers; handles restart at 1.
    pub fn reset(&mut self) {
        self.timers = Timers::new(self.timers.name_match());
        self.stack.clear();
    }
}

/// A running timer that stops when dropped; derefs to its tree so that
/// inner timers nest through it.
pub struct Scoped<'a> {
    tree: &'a mut TimerTree,
    name: String,
    handle: Handle,
}

impl Scoped<'_> {
    /// The handle of the timer this guard runs.
    pub fn handle(&self) -> Handle {
        self.handle
    }
}

impl Deref for Scoped<'_> {
    type Target = TimerTree;
    fn deref(&self) -> &TimerTree {
        self.tree
    }
}

impl DerefMut for Scoped<'_> {
    fn deref_mut(&mut self) -> &mut TimerTree {
        self.tree
    }
}

impl Drop for Scoped<'_> {
    fn drop(&mut self) {
        // Only fails if the timer was stopped by hand through the guard;
        // dropping must not panic, and the tree is unchanged then.
        let _ = self.tree.stop(&self.name);
    }
}
