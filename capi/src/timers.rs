//! Making and freeing trees, start, stop, read and reset.

use std::ffi::{c_char, c_int};

use profparse::timer_tree::TimerTree;

use crate::boundary::{Failure, name_arg, status_of, store};
use crate::target::{Target, handle_arg, name_match, pp_timer_tree};

/// A new, empty tree with the name rule `name_match`
/// (`PP_TIMER_NAMES_EXACT` or `PP_TIMER_NAMES_BLANK_PADDED`); NULL for an
/// unknown rule (see `pp_timer_last_error`).
#[unsafe(no_mangle)]
pub extern "C" fn pp_timer_tree_new(name_match: c_int) -> *mut pp_timer_tree {
    let mut made = std::ptr::null_mut();
    status_of(|| {
        let mut tree = TimerTree::new();
        tree.set_name_match(crate::target::name_match(name_match)?);
        made = Box::into_raw(Box::new(pp_timer_tree { tree }));
        Ok(())
    });
    made
}

/// Frees a tree from `pp_timer_tree_new` (NULL is allowed and does nothing;
/// it never frees the global tree).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_tree_free(tree: *mut pp_timer_tree) {
    if !tree.is_null() {
        // SAFETY: `tree` came from `Box::into_raw` in `pp_timer_tree_new`
        // and is freed once.
        drop(unsafe { Box::from_raw(tree) });
    }
}

/// Sets how `start` and `stop` compare names on `tree` (NULL: the global
/// tree); kept by reset and deserialize.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_set_name_match(tree: *mut pp_timer_tree, rule: c_int) -> c_int {
    status_of(|| {
        let names = name_match(rule)?;
        // SAFETY: the caller's promise on `tree`.
        unsafe { Target::of(tree) }.set_name_match(names);
        Ok(())
    })
}

/// Starts the timer `name` (`name_len` bytes) inside the current timer,
/// creating it on first use, and stores its handle (1, 2, … in creation
/// order) through `handle` unless it is NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_start(
    tree: *mut pp_timer_tree,
    name: *const c_char,
    name_len: usize,
    handle: *mut c_int,
) -> c_int {
    status_of(|| {
        // SAFETY: the caller gives `name_len` bytes at `name`.
        let name = unsafe { name_arg(name, name_len) }?;
        // SAFETY: the caller's promise on `tree`.
        let started = unsafe { Target::of(tree) }.start(&name);
        let number = c_int::try_from(started.get()).map_err(|_| {
            Failure::new(
                crate::PP_TIMER_INTERNAL,
                "more timers than a C int can number (the timer is running)",
            )
        })?;
        // SAFETY: `handle` is NULL or writable.
        unsafe { store(handle, number) };
        Ok(())
    })
}

/// Stops the current timer, which must be called `name`; otherwise returns
/// `PP_TIMER_MISNEST` with the message
/// `TIMER_TREE%STOP: current timer is B; cannot stop A`, the tree unchanged.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_stop(
    tree: *mut pp_timer_tree,
    name: *const c_char,
    name_len: usize,
) -> c_int {
    status_of(|| {
        // SAFETY: the caller gives `name_len` bytes at `name`.
        let name = unsafe { name_arg(name, name_len) }?;
        // SAFETY: the caller's promise on `tree`.
        unsafe { Target::of(tree) }.stop(&name)?;
        Ok(())
    })
}

/// Stores the seconds of timer `handle` through `seconds`, the time it has
/// been running included (reading changes nothing).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_read(
    tree: *mut pp_timer_tree,
    handle: c_int,
    seconds: *mut f64,
) -> c_int {
    status_of(|| {
        if seconds.is_null() {
            return Err(Failure::argument("seconds is NULL"));
        }
        // SAFETY: the caller's promise on `tree`.
        let value = unsafe { Target::of(tree) }.read(handle_arg(handle)?)?;
        // SAFETY: checked non-NULL; the caller gives a writable double.
        unsafe { store(seconds, value) };
        Ok(())
    })
}

/// Deletes all timers of `tree` (NULL: the global tree, for every thread);
/// handles restart at 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_reset(tree: *mut pp_timer_tree) -> c_int {
    status_of(|| {
        // SAFETY: the caller's promise on `tree`.
        unsafe { Target::of(tree) }.reset();
        Ok(())
    })
}
