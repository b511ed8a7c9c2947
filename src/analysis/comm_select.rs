//! Which communication blocks and records a report looks at: a time window
//! and a set of processes. Blocks outside are never read.

use crate::formats::blprof::CommBlockRef;
use crate::formats::blprof::database::ProcComm;

/// Which blocks and records to look at.
#[derive(Debug, Clone, Copy)]
pub struct CommSelection<'a> {
    /// Seconds; records outside are skipped, blocks outside are not read.
    pub window: (f64, f64),
    /// Only these processes (`None`: all).
    pub procs: Option<&'a [usize]>,
}

impl CommSelection<'_> {
    pub fn all() -> Self {
        CommSelection {
            window: (f64::NEG_INFINITY, f64::INFINITY),
            procs: None,
        }
    }

    pub fn wants_proc(&self, p: usize) -> bool {
        self.procs.is_none_or(|v| v.contains(&p))
    }
}

impl CommSelection<'_> {
    /// True when `t` lies in the window.
    #[inline]
    pub fn contains(&self, t: f64) -> bool {
        t >= self.window.0 && t <= self.window.1
    }

    /// The non-empty blocks of `p` whose time range overlaps the window.
    pub fn blocks<'b>(
        &self,
        p: &'b ProcComm,
    ) -> impl Iterator<Item = &'b CommBlockRef> + use<'b, '_> {
        let w = self.window;
        p.blocks.iter().filter(move |b| {
            b.ncomm > 0 && b.time_min_max.is_some_and(|(a, z)| z >= w.0 && a <= w.1)
        })
    }
}
