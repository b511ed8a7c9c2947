//! Progress reporting without a user interface.
//!
//! Readers and analyses call [`Progress::advance`] once per unit of work
//! (a trace block, a tlog block, a process of a comm analysis); the
//! `profparse` binary turns those calls into a progress bar when stderr is a
//! terminal. Without a hook an advance is one branch, so the calls sit in
//! block loops, never in record loops.
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use profparse::Progress;
//!
//! let done = Arc::new(AtomicU64::new(0));
//! let seen = done.clone();
//! let p = Progress::new(move |n| {
//!     seen.fetch_add(n, Ordering::Relaxed);
//! });
//! p.advance(2);
//! p.advance(1);
//! assert_eq!(done.load(Ordering::Relaxed), 3);
//! Progress::none().advance(1); // nothing happens
//! ```

use std::fmt;
use std::sync::Arc;

/// A shareable progress hook (any thread may advance it).
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn Fn(u64) + Send + Sync>>);

impl Progress {
    /// A hook called with the number of units just finished.
    pub fn new(hook: impl Fn(u64) + Send + Sync + 'static) -> Self {
        Progress(Some(Arc::new(hook)))
    }

    /// No reporting.
    pub fn none() -> Self {
        Progress(None)
    }

    /// Reports `n` more units done.
    #[inline]
    pub fn advance(&self, n: u64) {
        if let Some(hook) = &self.0 {
            hook(n);
        }
    }

    /// Whether a hook watches (loops may skip counting when not).
    pub fn is_active(&self) -> bool {
        self.0.is_some()
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_active() {
            "Progress(hook)"
        } else {
            "Progress(none)"
        })
    }
}
