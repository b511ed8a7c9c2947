//! The values of a TinyProfiler report (AMReX's `TINY_PROFILE=TRUE`
//! profiler), as printed at the end of a job log: plain values that the
//! reader builds and the analyses and reports share.

/// The minimum, mean and maximum of one figure over ranks, as printed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spread<T> {
    pub min: T,
    pub avg: T,
    pub max: T,
}

/// One timer of a report: the row of the exclusive table joined with the
/// row of the inclusive table that has the same name.
#[derive(Debug, Clone, PartialEq)]
pub struct TimerRow {
    pub name: String,
    /// The mean number of calls per rank (for `Other`, the sum of the
    /// folded timers' means).
    pub ncalls: u64,
    /// Exclusive seconds over ranks.
    pub exclusive: Spread<f64>,
    /// Inclusive seconds over ranks.
    pub inclusive: Spread<f64>,
    /// `Max %` of the exclusive table: exclusive max / total max × 100.
    pub exclusive_percent: f64,
    /// `Max %` of the inclusive table.
    pub inclusive_percent: f64,
}

/// The two timer tables of the report or of one region section.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TimerTables {
    /// The timers, in the exclusive table's order (largest exclusive max first).
    pub timers: Vec<TimerRow>,
    /// The `Other` row: the timers folded below `print_threshold`, summed
    /// column by column (its min and max are bounds, not measurements).
    pub other: Option<TimerRow>,
}

/// A `BEGIN REGION` … `END REGION` section: the timer calls made while a
/// scoped `BL_PROFILE_REGION` was open.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    pub name: String,
    pub tables: TimerTables,
}

/// One row of a memory table: the allocations charged to one timer.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryRow {
    pub name: String,
    /// Allocations, summed over ranks.
    pub nalloc: u64,
    /// Frees, summed over ranks.
    pub nfree: u64,
    /// The time-weighted mean of bytes held, over ranks. The report prints
    /// at most 4 digits and a unit; the bytes are the printed value times the
    /// unit (the true value lies below the next integer of that unit).
    pub avg_mem: Spread<u64>,
    /// The peak of bytes held, over ranks.
    pub max_mem: Spread<u64>,
}

/// A `<Arena> Memory Usage:` section.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryTable {
    /// The arena as titled (`Cpu`, `Pinned`, …).
    pub arena: String,
    /// Whether the table has the one-rank layout (`AvgMem`, `MaxMem`).
    pub one_rank: bool,
    pub rows: Vec<MemoryRow>,
}

/// One report: what one run printed at its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The 1-based line of its total-time line.
    pub line: usize,
    /// The AMReX version from the run's `Initializing AMReX (…)` or
    /// `AMReX (…) finalized` line, when the log has one.
    pub amrex_version: Option<String>,
    /// The ranks: from `MPI initialized with N MPI processes`; else 1 when
    /// the memory tables have the one-rank layout, or when there are none
    /// and the log shows AMReX's start-up (a build without MPI); unknown
    /// otherwise.
    pub nprocs: Option<u64>,
    /// Wall seconds from start-up to finalisation, over ranks.
    pub total: Spread<f64>,
    /// The timer tables (exclusive and inclusive).
    pub tables: TimerTables,
    /// Region sections, in the report's order (by name).
    pub regions: Vec<Region>,
    /// Memory sections, in the report's order.
    pub memory: Vec<MemoryTable>,
}

/// Every report found in one log, in the log's order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Log {
    /// The reports, first to last.
    pub reports: Vec<Report>,
}
