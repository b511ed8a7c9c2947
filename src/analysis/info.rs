//! What a database holds, from its headers only (no data block is read).

use rustc_hash::FxHashSet;

use crate::formats::blprof::{Database, Part, RealWidth};

/// Smallest and largest of a per-process count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MinMax {
    pub min: u64,
    pub max: u64,
}

impl MinMax {
    fn of(values: impl Iterator<Item = u64>) -> Option<MinMax> {
        values.fold(None, |acc, v| {
            Some(match acc {
                None => MinMax { min: v, max: v },
                Some(m) => MinMax {
                    min: m.min.min(v),
                    max: m.max.max(v),
                },
            })
        })
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct BaseInfo {
    pub version: Option<i64>,
    pub nprocs: Option<u64>,
    pub nout_files: Option<i64>,
    pub functions: Vec<String>,
    pub procs_with_block: usize,
    /// Processes below NProcs without a block line (at most 100 listed).
    pub procs_without_block: Vec<u64>,
    pub data_files: usize,
    /// Records = processes × functions (one count and one time each).
    pub records: u64,
    pub calc_end_time: Option<f64>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct TraceInfo {
    pub version: Option<i64>,
    pub nprocs: Option<u64>,
    pub nout_files: Option<i64>,
    pub header_files: usize,
    pub data_files: usize,
    pub procs: usize,
    pub blocks: usize,
    pub blocks_per_proc: Option<MinMax>,
    pub region_records: u64,
    /// Call records without the one sentinel record per block.
    pub call_records: u64,
    pub functions: usize,
    pub regions: Vec<String>,
    /// Earliest and latest call start time over all blocks.
    pub time_span: Option<(f64, f64)>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct CommInfo {
    pub version: Option<i64>,
    pub nprocs: Option<u64>,
    pub record_size: u64,
    pub real: RealWidth,
    pub nout_files: Option<i64>,
    pub finest_level: Option<i64>,
    pub max_level: Option<i64>,
    pub header_files: usize,
    pub data_files: usize,
    pub procs: usize,
    pub blocks: usize,
    pub empty_blocks: usize,
    pub blocks_per_proc: Option<MinMax>,
    pub records: u64,
    pub barriers: u64,
    pub name_tags: u64,
    pub name_tag_names: usize,
    /// First and last record time over the non-empty blocks.
    pub time_span: Option<(f64, f64)>,
    pub hosts: Vec<String>,
    /// Mean of the `timerTime` lines (cost of one timer read).
    pub timer_time: Option<f64>,
}

/// What a database holds (`profparse info`): processes, parts, and the
/// size and time span of each part.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DatabaseInfo {
    /// The database directory.
    pub dir: String,
    /// Processes of the run.
    pub nprocs: Option<u64>,
    /// Data files per part (`NOutFiles`).
    pub nfiles: Option<i64>,
    /// The parts present.
    pub parts: Vec<Part>,
    /// The base profile (per-function totals), if present.
    pub base: Option<BaseInfo>,
    /// The call traces, if present.
    pub trace: Option<TraceInfo>,
    /// The comm profile (MPI calls), if present.
    pub comm: Option<CommInfo>,
}

fn span(it: impl Iterator<Item = (f64, f64)>) -> Option<(f64, f64)> {
    it.fold(None, |acc, (a, b)| {
        Some(match acc {
            None => (a, b),
            Some((x, y)) => (x.min(a), y.max(b)),
        })
    })
}

/// Collects [`DatabaseInfo`]; parses the per-file headers (not the data).
pub fn database_info(db: &Database) -> DatabaseInfo {
    let parts = db.parts();
    let base = db.base.as_ref().map(|h| BaseInfo {
        version: h.version,
        nprocs: h.nprocs,
        nout_files: h.nout_files,
        functions: h.functions.clone(),
        procs_with_block: h.blocks.len(),
        procs_without_block: h.procs_without_block().take(100).collect(),
        data_files: distinct(h.blocks.iter().map(|b| &*b.datafile)),
        records: h.blocks.len() as u64 * h.functions.len() as u64,
        calc_end_time: h.calc_end_time,
    });
    // The parts in parallel: each index is parsed in parallel over its
    // files but grouped by process in one thread, which the other part's
    // parsing then overlaps (for 100,000 processes).
    let (trace, comm) = rayon::join(
        || parts.contains(&Part::Trace).then(|| trace_info(db)),
        || parts.contains(&Part::Comm).then(|| comm_info(db)),
    );
    DatabaseInfo {
        dir: db.dir().display().to_string(),
        nprocs: db.nprocs(),
        nfiles: db
            .base
            .as_ref()
            .and_then(|h| h.nout_files)
            .or_else(|| db.call_stats.as_ref().and_then(|h| h.nout_files))
            .or_else(|| db.comm.as_ref().and_then(|h| h.nout_files)),
        parts,
        base,
        trace,
        comm,
    }
}

/// How many different names (by hash set: only sizes are reported, and
/// 100,000 processes repeat the same names).
fn distinct<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names.collect::<FxHashSet<_>>().len()
}

fn trace_info(db: &Database) -> TraceInfo {
    let idx = db.trace_index();
    let g = db.call_stats.as_ref();
    let blocks = || idx.procs.iter().flat_map(|p| &p.blocks);
    TraceInfo {
        version: g.and_then(|h| h.version),
        nprocs: g.and_then(|h| h.nprocs),
        nout_files: g.and_then(|h| h.nout_files),
        header_files: db.trace_header_files().len(),
        data_files: distinct(blocks().map(|b| &*b.datafile)),
        procs: idx.procs.len(),
        blocks: blocks().count(),
        blocks_per_proc: MinMax::of(idx.procs.iter().map(|p| p.blocks.len() as u64)),
        region_records: blocks().map(|b| b.nrss).fold(0u64, u64::saturating_add),
        call_records: blocks()
            .map(|b| b.ntrace.saturating_sub(1))
            .fold(0u64, u64::saturating_add),
        functions: distinct(
            idx.procs
                .iter()
                .flat_map(|p| p.functions.entries.iter().map(|(_, n)| &**n)),
        ),
        regions: g
            .map(|h| h.regions.iter().map(|r| r.name.clone()).collect())
            .unwrap_or_default(),
        time_span: span(blocks().filter_map(|b| b.time_min_max)),
    }
}

fn comm_info(db: &Database) -> CommInfo {
    let idx = db.comm_index();
    let g = db.comm.as_ref();
    let blocks = || idx.procs.iter().flat_map(|p| &p.blocks);
    let timer_times: Vec<f64> = blocks().filter_map(|b| b.timer_time).collect();
    CommInfo {
        version: g.and_then(|h| h.version),
        nprocs: g.and_then(|h| h.nprocs),
        record_size: g.map_or(24, |h| h.record_size()),
        real: g.map_or(RealWidth::F64, |h| h.real_width()),
        nout_files: g.and_then(|h| h.nout_files),
        finest_level: g.and_then(|h| h.finest_level),
        max_level: g.and_then(|h| h.max_level),
        header_files: db.comm_header_files().len(),
        data_files: distinct(blocks().map(|b| &*b.datafile)),
        procs: idx.procs.len(),
        blocks: blocks().count(),
        empty_blocks: blocks().filter(|b| b.ncomm == 0).count(),
        blocks_per_proc: MinMax::of(idx.procs.iter().map(|p| p.blocks.len() as u64)),
        records: blocks().map(|b| b.ncomm).fold(0u64, u64::saturating_add),
        barriers: blocks().map(|b| b.barriers.len() as u64).sum(),
        name_tags: blocks().map(|b| b.name_tags.len() as u64).sum(),
        name_tag_names: idx
            .procs
            .iter()
            .flat_map(|p| p.name_tag_names.iter())
            .collect::<FxHashSet<_>>()
            .len(),
        time_span: span(blocks().filter_map(|b| b.time_min_max)),
        hosts: blocks()
            .filter_map(|b| b.host.as_deref())
            .collect::<FxHashSet<_>>()
            .into_iter()
            .map(str::to_owned)
            .collect(),
        timer_time: (!timer_times.is_empty())
            .then(|| timer_times.iter().sum::<f64>() / timer_times.len() as f64),
    }
}
