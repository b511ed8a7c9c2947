//! Which tree a call works on: an instance, or the global tree for NULL.

use std::ffi::c_int;
use std::io::Write;

use profparse::timer_tree::{
    self as global, Handle, NameMatch, SerialError, Serialized, TimerError, TimerTree,
};

use crate::boundary::Failure;

/// Names compare exactly: "A" and "A " are two timers (the default).
pub const PP_TIMER_NAMES_EXACT: c_int = 0;
/// Fortran character equality: trailing blanks do not count, so a
/// blank-padded `character(len=32)` variable names the same timer as the
/// literal. The Fortran module sets this on every tree it uses.
pub const PP_TIMER_NAMES_BLANK_PADDED: c_int = 1;

/// A timer tree of its own (opaque); made by `pp_timer_tree_new`, freed by
/// `pp_timer_tree_free`. One thread at a time.
pub struct pp_timer_tree {
    pub(crate) tree: TimerTree,
}

pub(crate) fn name_match(rule: c_int) -> Result<NameMatch, Failure> {
    match rule {
        PP_TIMER_NAMES_EXACT => Ok(NameMatch::Exact),
        PP_TIMER_NAMES_BLANK_PADDED => Ok(NameMatch::IgnoreTrailingBlanks),
        _ => Err(Failure::argument(format!(
            "unknown name rule {rule}: PP_TIMER_NAMES_EXACT (0) or PP_TIMER_NAMES_BLANK_PADDED (1)"
        ))),
    }
}

/// A handle from C: positive numbers only.
pub(crate) fn handle_arg(handle: c_int) -> Result<Handle, Failure> {
    u32::try_from(handle)
        .ok()
        .filter(|&h| h > 0)
        .map(Handle::new)
        .ok_or_else(|| {
            Failure::new(
                crate::PP_TIMER_BAD_HANDLE,
                format!("no timer has handle {handle}: handles are 1, 2, 3, …"),
            )
        })
}

/// The tree of one call: the global one, or an instance.
pub(crate) enum Target<'a> {
    Global,
    Instance(&'a mut TimerTree),
}

impl Target<'_> {
    /// SAFETY: `tree` is NULL or a live pointer from `pp_timer_tree_new`
    /// that no other thread uses during the call.
    pub(crate) unsafe fn of<'a>(tree: *mut pp_timer_tree) -> Target<'a> {
        // SAFETY: as the caller promises.
        match unsafe { tree.as_mut() } {
            None => Target::Global,
            Some(t) => Target::Instance(&mut t.tree),
        }
    }

    pub(crate) fn set_name_match(&mut self, names: NameMatch) {
        match self {
            Target::Global => global::set_name_match(names),
            Target::Instance(t) => t.set_name_match(names),
        }
    }

    pub(crate) fn start(&mut self, name: &str) -> Handle {
        match self {
            Target::Global => global::start_timer(name),
            Target::Instance(t) => t.start(name),
        }
    }

    pub(crate) fn stop(&mut self, name: &str) -> Result<(), TimerError> {
        match self {
            Target::Global => global::stop_timer(name),
            Target::Instance(t) => t.stop(name),
        }
    }

    pub(crate) fn read(&self, handle: Handle) -> Result<f64, TimerError> {
        match self {
            Target::Global => global::read_timer(handle),
            Target::Instance(t) => t.read(handle),
        }
    }

    pub(crate) fn write(
        &self,
        w: &mut dyn Write,
        indent: usize,
        handle: Option<Handle>,
    ) -> Result<(), TimerError> {
        match self {
            Target::Global => global::write_timer_tree(w, indent, handle),
            Target::Instance(t) => t.write(w, indent, handle),
        }
    }

    pub(crate) fn serialize(&self) -> Result<Serialized, TimerError> {
        match self {
            Target::Global => global::serialize_timer_tree(),
            Target::Instance(t) => t.serialize(),
        }
    }

    pub(crate) fn deserialize(&mut self, s: &Serialized) -> Result<(), SerialError> {
        match self {
            Target::Global => global::deserialize_timer_tree(s),
            Target::Instance(t) => t.deserialize(s),
        }
    }

    pub(crate) fn reset(&mut self) {
        match self {
            Target::Global => global::reset_timer_tree(),
            Target::Instance(t) => t.reset(),
        }
    }
}
