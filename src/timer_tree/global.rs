//! The process-wide timer tree, safe to use from any number of threads.
//!
//! Semantics: **one shared tree, one nesting per thread.** The timers live
//! in a single tree behind a mutex; each thread keeps its own stack of
//! running timers (thread-local). A thread's `start_timer("B")` creates or
//! reuses the child `B` of *that thread's* current timer, so threads that run
//! the same code path accumulate into the same timers, and one thread's
//! nesting can never misnest another's.
//!
//! * Running time becomes part of a timer's total when the thread that
//!   started it stops it. `read_timer`, `write_timer_tree` and
//!   `serialize_timer_tree` add the **calling thread's** running timers up to
//!   now; other threads' running intervals are not visible until stopped.
//! * When several threads run the same timer at once, their intervals all
//!   add up (thread-seconds, like CPU time), so a total can exceed the wall
//!   time.
//! * `reset_timer_tree` and `deserialize_timer_tree` replace the tree for
//!   every thread; the running timers of all threads are discarded (a thread
//!   notices on its next call, and its next `stop_timer` of an old timer is a
//!   misnest).
//! * The clock reading of a start is taken after the lock is acquired and
//!   that of a stop before, so waiting for the lock is not timed.

use std::cell::RefCell;
use std::io::Write;
use std::marker::PhantomData;
use std::sync::{LazyLock, Mutex, MutexGuard};

use crate::model::timertree::{SerialError, Serialized};

use super::tree::{Clock, Frame, Handle, MonotonicClock, NameMatch, TimerError, Timers};
use super::write::{WriteOptions, write_tree};

struct Shared {
    timers: Timers,
    /// Bumped by reset and deserialize, so that threads drop stale stacks.
    generation: u64,
}

static SHARED: LazyLock<Mutex<Shared>> = LazyLock::new(|| {
    Mutex::new(Shared {
        timers: Timers::new(NameMatch::Exact),
        generation: 0,
    })
});

static CLOCK: LazyLock<MonotonicClock> = LazyLock::new(MonotonicClock::new);

#[derive(Default)]
struct ThreadStack {
    generation: u64,
    frames: Vec<Frame>,
}

thread_local! {
    static STACK: RefCell<ThreadStack> = RefCell::new(ThreadStack::default());
}

fn lock() -> MutexGuard<'static, Shared> {
    // A panic elsewhere cannot leave the tree half-updated (every operation
    // completes its few writes before returning), so a poisoned lock is
    // still usable.
    SHARED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `f` on the shared timers and this thread's (current) stack.
fn with<R>(f: impl FnOnce(&mut Timers, &mut Vec<Frame>) -> R) -> R {
    let mut shared = lock();
    let shared = &mut *shared;
    STACK.with_borrow_mut(|stack| {
        if stack.generation != shared.generation {
            stack.frames.clear();
            stack.generation = shared.generation;
        }
        f(&mut shared.timers, &mut stack.frames)
    })
}

/// Starts `name` inside this thread's current timer; see [`super::TimerTree::start`].
pub fn start_timer(name: &str) -> Handle {
    with(|timers, stack| timers.start(stack, name, CLOCK.now_ns()))
}

/// Stops this thread's current timer, which must be called `name`.
pub fn stop_timer(name: &str) -> Result<(), TimerError> {
    let now = CLOCK.now_ns();
    with(|timers, stack| timers.stop(stack, name, now))
}

/// Total seconds of a timer, this thread's running time included.
pub fn read_timer(handle: Handle) -> Result<f64, TimerError> {
    with(|timers, stack| timers.read(stack, handle, CLOCK.now_ns()))
}

/// The timer at a path of names from the top level, if it exists.
pub fn timer_handle<S: AsRef<str>>(path: &[S]) -> Option<Handle> {
    with(|timers, _| timers.handle_at(path))
}

/// Writes the reference layout of the tree (or of `handle`'s subtree).
pub fn write_timer_tree(
    w: &mut dyn Write,
    indent: usize,
    handle: Option<Handle>,
) -> Result<(), TimerError> {
    // Snapshot under the lock, write without it.
    let snapshot = with(|timers, stack| timers.snapshot(stack, CLOCK.now_ns()));
    let opts = WriteOptions {
        indent,
        handle,
        ..WriteOptions::default()
    };
    write_tree(w, &snapshot, &opts)
}

/// The serialized arrays of the whole tree.
pub fn serialize_timer_tree() -> Result<Serialized, TimerError> {
    let snapshot = with(|timers, stack| timers.snapshot(stack, CLOCK.now_ns()));
    if snapshot.is_empty() {
        return Err(TimerError::Empty);
    }
    Ok(Serialized::from_call_tree(&snapshot))
}

/// Replaces the tree for all threads; on error nothing changes.
pub fn deserialize_timer_tree(s: &Serialized) -> Result<(), SerialError> {
    let names = lock().timers.name_match();
    let timers = Timers::from_serialized(s, names)?;
    let mut shared = lock();
    shared.timers = timers;
    shared.generation += 1;
    Ok(())
}

/// Deletes all timers for all threads; handles restart at 1.
pub fn reset_timer_tree() {
    let mut shared = lock();
    let names = shared.timers.name_match();
    shared.timers = Timers::new(names);
    shared.generation += 1;
}

/// How the global tree compares names from now on (default
/// [`NameMatch::Exact`]); kept by reset and deserialize.
pub fn set_name_match(names: NameMatch) {
    lock().timers.set_name_match(names);
}

/// Starts `name` on the global tree and stops it when dropped. Not `Send`:
/// it must be dropped on the thread whose nesting it belongs to.
#[must_use = "the timer stops when this guard is dropped"]
pub fn timer(name: &str) -> GlobalTimer {
    let handle = start_timer(name);
    GlobalTimer {
        name: name.to_owned(),
        handle,
        _not_send: PhantomData,
    }
}

/// See [`timer`].
pub struct GlobalTimer {
    name: String,
    handle: Handle,
    _not_send: PhantomData<*const ()>,
}

impl GlobalTimer {
    /// The handle of the timer this guard runs.
    pub fn handle(&self) -> Handle {
        self.handle
    }
}

impl Drop for GlobalTimer {
    fn drop(&mut self) {
        // Fails only after a reset or a stop by hand; must not panic here.
        let _ = stop_timer(&self.name);
    }
}
