//! Timer trees: nested timers told apart by name *and* position, as in the
//! Fortran `timer_tree_type` of Petaca/Truchas, with errors instead of
//! process exits, nanosecond accumulation, pure reads and a thread-safe
//! global tree.
//!
//! ```
//! use profparse::timer_tree::{Serialized, TimerTree};
//!
//! let mut t = TimerTree::new();
//! let a = t.start("A");
//! t.start("B");
//! t.stop("B")?;
//! // Misnesting is an error, and the tree is unchanged.
//! let err = t.stop("B").unwrap_err();
//! assert_eq!(err.to_string(), "TIMER_TREE%STOP: current timer is A; cannot stop B");
//! t.stop("A")?;
//! {
//!     // A scoped timer stops when its guard is dropped.
//!     let mut outer = t.scoped("B");
//!     let _inner = outer.scoped("X");
//! }
//! assert_eq!(t.start("A"), a); // same name, same position: same timer
//! t.stop("A")?;
//! assert_eq!(t.calls(a)?, 2);
//! assert_eq!(t.handle_at(&["B", "X"]).map(|h| h.get()), Some(4));
//!
//! // Serialize, rebuild elsewhere, and write in the reference layout.
//! let arrays: Serialized = t.serialize()?;
//! assert_eq!(arrays.tree, [1, 2, 2, 1, 3, 4, 4, 3]);
//! let mut copy = TimerTree::new();
//! copy.deserialize(&arrays)?;
//! let mut out = Vec::new();
//! copy.write(&mut out, 2, None)?;
//! let text = String::from_utf8(out)?;
//! assert_eq!(text.lines().map(|l| l.split(':').next().unwrap()).collect::<Vec<_>>(),
//!            ["A", "  B", "B", "  X"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The module holds the instrumentation API: [`tree`] (the type, clock,
//! guard), [`global`] (the process-wide tree) and [`write`](mod@write) (the
//! reference write layout). [`parse_serialized`] and [`to_tree`] read the
//! file forms (JSON, XML) it writes; every tree is a
//! [`CallTree`](crate::CallTree) of [`Timing`]s, handle k being node id k.

pub mod global;
pub mod tree;
pub mod write;

pub use crate::formats::timertree::{parse_serialized, to_tree};
pub use crate::model::timertree::{SerialError, Serialized, Timing};
pub use crate::report::numfmt::fortran::Precision;
pub use global::{
    GlobalTimer, deserialize_timer_tree, read_timer, reset_timer_tree, serialize_timer_tree,
    set_name_match, start_timer, stop_timer, timer, timer_handle, write_timer_tree,
};
pub use tree::{Clock, Handle, MonotonicClock, NameMatch, Scoped, TimerError, TimerTree};
pub use write::WriteOptions;
