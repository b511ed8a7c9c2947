//! The clock offsets of a database's processes: what a comm analysis
//! subtracts to put every process's times on one clock. The estimate is
//! `comm_clocks`'s; this module holds only the result, so that the comm
//! scope can carry it without depending on the analyses that estimate it.

/// One process's offset.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProcOffset {
    pub proc: usize,
    /// Seconds to subtract from this process's times.
    pub offset: f64,
    /// The offset from the barrier exits alone, and the barriers it rests on.
    pub barrier_offset: Option<f64>,
    pub barriers: usize,
    /// What the message step added to it.
    pub message_shift: f64,
}

/// How well the offsets fit the data.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Residual {
    /// Barriers passed by more than one process.
    pub barriers: usize,
    /// Median and largest spread (latest − earliest exit) of a barrier's
    /// exits, raw and aligned.
    pub raw_exit_spread_median: f64,
    pub raw_exit_spread_max: f64,
    pub exit_spread_median: f64,
    pub exit_spread_max: f64,
    /// Messages whose completion is known, and how many were completed
    /// before they were sent, raw and aligned.
    pub messages: u64,
    pub negative_raw: u64,
    pub negative_aligned: u64,
    /// Sweeps the message step took, and processes whose routes could not
    /// all be satisfied.
    pub sweeps: usize,
    pub conflicts: usize,
}

/// Estimated offsets of the processes' clocks from one reference
/// clock, from the messages' send and receive times (docs/COMM.md).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ClockOffsets {
    /// The process whose clock the others are aligned to.
    pub reference: usize,
    /// Each process's offset, in process order.
    pub procs: Vec<ProcOffset>,
    /// How well the offsets satisfy the messages.
    pub residual: Residual,
}

impl ClockOffsets {
    /// Process `p`'s offset (0 if unknown).
    pub fn offset(&self, p: usize) -> f64 {
        // `procs` is in process order (no table sized by a process number
        // from the headers).
        self.procs
            .binary_search_by_key(&p, |x| x.proc)
            .map_or(0.0, |i| self.procs[i].offset)
    }

    /// `t` of process `p` on the reference clock.
    #[inline]
    pub fn align(&self, p: usize, t: f64) -> f64 {
        t - self.offset(p)
    }

    /// No offsets (all clocks as they are): what commands use without
    /// `--align-clocks`.
    pub fn none() -> Self {
        ClockOffsets::default()
    }
}
