//! One run loaded for `diff`: the call-path tree of a bl_prof database
//! (merged over processes), of a tlog trace or of a timer tree, and for a
//! database also its functions (base profile), as the metrics that
//! [`super::diff::diff_trees`] compares.

use super::base_summary::base_summary;
use super::calltree::{call_tree, merge_trees};
use super::diff::{function_metrics, spread_metrics, timing_metrics};
use super::tlog_summary::{EventNames, Trees, summarize};
use super::trace_summary::Selection;
use crate::error::{Error, Location, Result, Warning};
use crate::formats::blprof::{BaseProfile, Database, Part};
use crate::formats::timertree::{read_timer_tree_file, suspicious_times};
use crate::formats::tlog::TlogFile;
use crate::formats::{Input, InputKind};
use crate::model::calltree::{CallTree, Metrics};
use crate::progress::Progress;

/// One run, ready to compare.
pub struct Side {
    /// Processes merged (`None` for a timer tree).
    pub nprocs: Option<usize>,
    /// The call-path tree, if the run has one.
    pub tree: Option<CallTree<Metrics>>,
    /// Per function (a database's base profile).
    pub functions: Option<CallTree<Metrics>>,
    /// Per function of a base profile, its exclusive seconds in each
    /// readable process: the spread `regress` uses with one run per side.
    pub process_functions: Option<Vec<(String, Vec<f64>)>>,
}

/// Loads the run at `input`. `progress(n)` gives the hook for a pass over
/// `n` blocks. The warnings come back also when loading fails, in the
/// order they were met.
pub fn load_side(
    input: &Input,
    progress: &dyn Fn(u64) -> Progress,
) -> (Result<Side>, Vec<Warning>) {
    let mut warnings = Vec::new();
    let side = match input.kind {
        InputKind::Blprof => load_blprof(input, progress, &mut warnings),
        InputKind::Tlog => load_tlog(input, progress, &mut warnings),
        InputKind::TimerTree => load_timer_tree(input, &mut warnings),
        InputKind::TinyProfiler => load_tinyprofiler(input),
    };
    (side, warnings)
}

fn load_blprof(
    input: &Input,
    progress: &dyn Fn(u64) -> Progress,
    warnings: &mut Vec<Warning>,
) -> Result<Side> {
    // Freed before the other side is read (both kept would hold both sides'
    // mapped data).
    let mut db = Database::open(&input.path)?;
    warnings.extend_from_slice(db.warnings());
    let parts = db.parts();
    let mut nprocs = None;
    let tree = if parts.contains(&Part::Trace) {
        warnings.extend_from_slice(&db.trace_index().warnings);
        let blocks = db
            .trace_index()
            .procs
            .iter()
            .map(|p| p.blocks.len() as u64)
            .sum();
        db.set_progress(progress(blocks));
        // Every call counts: no region filter, so no regions pass either.
        let (tree, n, w) = call_tree(&db, &Selection { ranges: None }, None);
        db.set_progress(Progress::none());
        warnings.extend(w);
        nprocs = Some(n);
        Some(spread_metrics(&tree, n))
    } else {
        None
    };
    let mut process_functions = None;
    let functions = if parts.contains(&Part::Base) {
        let profile = db.base_profile(warnings)?;
        if profile.is_empty() {
            warnings.push(Warning::new(
                Location::file(&profile.header.path),
                "no process has a readable base block; functions not compared",
            ));
            None
        } else {
            let s = base_summary(&profile, 0);
            nprocs = nprocs.or(Some(s.nprocs));
            process_functions = Some(per_process_times(&profile));
            Some(function_metrics(&s))
        }
    } else {
        None
    };
    if tree.is_none() && functions.is_none() {
        return Err(Error::NotFound(format!(
            "{}: the database has neither call traces nor a base profile to compare",
            input.path.display()
        )));
    }
    Ok(Side {
        nprocs,
        tree,
        functions,
        process_functions,
    })
}

/// Each function's exclusive seconds in each readable block (one per
/// process), in the header's function order.
fn per_process_times(profile: &BaseProfile<'_>) -> Vec<(String, Vec<f64>)> {
    let mut out: Vec<(String, Vec<f64>)> = profile
        .header
        .functions
        .iter()
        .map(|name| (name.clone(), Vec::with_capacity(profile.len())))
        .collect();
    for row in 0..profile.len() {
        let (_, block) = profile.block(row);
        for (f, (_, times)) in out.iter_mut().enumerate() {
            times.push(block.time(f));
        }
    }
    out
}

fn load_tlog(
    input: &Input,
    progress: &dyn Fn(u64) -> Progress,
    warnings: &mut Vec<Warning>,
) -> Result<Side> {
    let path = &input.path;
    let mut t = TlogFile::open(path)?;
    warnings.extend_from_slice(t.warnings());
    if t.looks_like_garbage() {
        return Err(Error::wrong_kind(
            Location::file(path),
            "does not look like a tlog trace (see the warnings above)",
        ));
    }
    t.set_progress(progress(t.process_blocks()));
    let s = summarize(&t, &EventNames::default(), Trees::Build);
    warnings.extend(s.warnings);
    let trees: Vec<(usize, CallTree)> = s.trees.into_iter().map(|(p, t)| (p as usize, t)).collect();
    let n = trees.len();
    Ok(Side {
        nprocs: Some(n),
        tree: Some(spread_metrics(&merge_trees(&trees), n)),
        functions: None,
        process_functions: None,
    })
}

fn load_timer_tree(input: &Input, warnings: &mut Vec<Warning>) -> Result<Side> {
    let tree = read_timer_tree_file(&input.path)?;
    warnings.extend(suspicious_times(&tree, &input.path));
    Ok(Side {
        nprocs: None,
        tree: Some(timing_metrics(&tree)),
        functions: None,
        process_functions: None,
    })
}

/// The last report of a TinyProfiler log: its timers (no call paths).
fn load_tinyprofiler(input: &Input) -> Result<Side> {
    let log = crate::formats::tinyprofiler::read(&input.path)?;
    let report = super::tinyprofiler::select_run(&log, None, &input.path.display().to_string())?;
    Ok(Side {
        nprocs: report.nprocs.and_then(|n| usize::try_from(n).ok()),
        tree: None,
        functions: Some(super::tinyprofiler::timer_metrics(report)),
        process_functions: None,
    })
}
