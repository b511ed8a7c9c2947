//! `profparse report DB -o report.html`: one self-contained HTML page with
//! every analysis the database supports. This module computes them (as
//! `summary`, `calltree`, `regions` and `comm` do) and hands the results to
//! the renderer; parts the database lacks become notes on the page.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use profparse::Warning;
use profparse::analysis::base_summary::base_summary;
use profparse::analysis::calltree::call_tree;
use profparse::analysis::comm_select::CommSelection;
use profparse::analysis::imbalance::{ImbalanceOptions, imbalance};
use profparse::analysis::regions::{Regions, region_stats};
use profparse::analysis::trace_summary::Selection;
use profparse::analysis::trace_timeline::whole_trace_timeline;
use profparse::formats::blprof::Part;
use profparse::report::calltree::TreeView;
use profparse::report::html_report::{
    Absent, CallTreeSection, CommTimelineSection, ImbalanceSection, MATRIX_MAX_CELLS, Report,
    write_report,
};
use profparse::report::svg::TIMELINE_COLUMNS;

use super::trace_common::trace_blocks;
use crate::cli::{DatabaseArg, OutputArg};
use crate::context::Context;
use crate::output::{self, UsageError};

#[derive(Args, Debug)]
pub struct ReportArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Functions in the load-imbalance view (largest maximum time first).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Focus on process N: its calls fill the NCalls column, the call tree
    /// is its own (not merged), and its bars are outlined in the imbalance view.
    #[arg(long, value_name = "N")]
    pub proc: Option<usize>,
    /// Call tree: show levels 0..=N only.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Call tree: hide branches below P percent of the total inclusive time.
    #[arg(long = "min-percent", value_name = "P", default_value_t = 0.0)]
    pub min_percent: f64,
    #[command(flatten)]
    pub output: OutputArg,
}

/// What the page says for a part the run did not write.
fn missing(part: Part) -> Absent {
    Absent(match part {
        Part::Base => "The database has no base profile (bl_prof_H); the run needs PROFILE=TRUE.",
        Part::Trace => {
            "The database has no call traces (bl_call_stats_H); the run needs TRACE_PROFILE=TRUE."
        }
        Part::Comm => {
            "The database has no communication profile (bl_comm_prof_H); the run needs COMM_PROFILE=TRUE."
        }
    }
    .to_owned())
}

pub fn run(args: &ReportArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let db = super::open_database(&args.db.db)?;
    let mut warnings: Vec<Warning> = db.warnings().to_vec();
    let parts = db.parts();
    if let (Some(p), Some(n)) = (args.proc, db.nprocs())
        && p as u64 >= n
    {
        return Err(UsageError(format!(
            "--proc {p} is out of range: the database has {n} process(es), 0..{}",
            n.saturating_sub(1)
        ))
        .into());
    }
    let has = |p: Part| parts.contains(&p);
    if has(Part::Trace) {
        warnings.extend(db.trace_index().warnings.iter().cloned());
    }
    if has(Part::Comm) {
        warnings.extend(db.comm_index().warnings.iter().cloned());
    }

    // One bar over every block the trace and comm analyses read.
    let trace_procs = if has(Part::Trace) {
        db.trace_index().procs.len() as u64
    } else {
        0
    };
    let comm_procs = if has(Part::Comm) {
        db.comm_index().procs.len() as u64
    } else {
        0
    };
    let steps = if has(Part::Trace) {
        2 * trace_blocks(db, None) + trace_blocks(db, args.proc) + trace_procs
    } else {
        0
    } + 2 * comm_procs;
    let bar = ctx.progress(steps, "report", "blocks");
    db.set_progress(bar.hook());

    // Function summary and imbalance, from the base profile.
    let (summary, imbalance_view) = if has(Part::Base) {
        let mut w = Vec::new();
        let r = db.base_profile(&mut w);
        warnings.extend(w);
        match r {
            Err(e) => {
                let a = Absent(format!("The base profile could not be read: {e}"));
                (Err(a.clone()), Err(a))
            }
            Ok(profile) if profile.is_empty() => {
                let a = Absent("No process has a readable base block.".to_owned());
                (Err(a.clone()), Err(a))
            }
            Ok(profile) => {
                let s = base_summary(&profile, args.proc.unwrap_or(0));
                let opts = ImbalanceOptions {
                    top: args.top,
                    selected_proc: args.proc,
                    ..Default::default()
                };
                let functions = imbalance(&s, &profile, &opts);
                let view = ImbalanceSection {
                    functions,
                    nprocs: s.nprocs,
                    max_bars: opts.max_bars,
                    bins: opts.bins,
                };
                (Ok(s), Ok(view))
            }
        }
    } else {
        (Err(missing(Part::Base)), Err(missing(Part::Base)))
    };

    // Regions, call tree and the timeline of outermost calls, from the traces.
    let (calltree, regions, trace_tl) = if has(Part::Trace) {
        let regs = Regions::load(db);
        warnings.extend(regs.warnings.iter().cloned());
        let stats = region_stats(&regs);
        let tree = if args
            .proc
            .is_some_and(|p| !db.trace_index().procs.iter().any(|t| t.proc == p))
        {
            Err(Absent(format!(
                "No call traces for process {}.",
                args.proc.unwrap_or(0)
            )))
        } else {
            let (tree, nprocs, w) = call_tree(db, &Selection { ranges: None }, args.proc);
            warnings.extend(w);
            Ok(CallTreeSection {
                tree,
                view: TreeView {
                    max_depth: args.depth,
                    min_percent: args.min_percent,
                    top: None,
                    nprocs,
                },
                proc: args.proc,
            })
        };
        let (timeline, w) = whole_trace_timeline(db, TIMELINE_COLUMNS);
        warnings.extend(w);
        let timeline = timeline.ok_or_else(|| Absent("No calls recorded.".to_owned()));
        (tree, Ok(stats), timeline)
    } else {
        (
            Err(missing(Part::Trace)),
            Err(missing(Part::Trace)),
            Err(missing(Part::Trace)),
        )
    };

    // Send matrix and communication timeline, from the comm profile.
    let (matrix, comm_tl) = if has(Part::Comm) {
        let (m, w) = profparse::analysis::comm_sync::send_matrix_groups(
            db,
            &CommSelection::all(),
            MATRIX_MAX_CELLS,
        );
        warnings.extend(w);
        use profparse::analysis::comm_timeline::{time_span, timeline_rows};
        let window = (f64::NEG_INFINITY, f64::INFINITY);
        let timeline = match time_span(db, window) {
            Some(span) => {
                let (rows, w) = timeline_rows(db, window, span, TIMELINE_COLUMNS);
                warnings.extend(w);
                Ok(CommTimelineSection { span, rows })
            }
            None => Err(Absent("No communication calls recorded.".to_owned())),
        };
        (Ok(m), timeline)
    } else {
        (Err(missing(Part::Comm)), Err(missing(Part::Comm)))
    };
    drop(bar);
    // Several passes meet the same damaged block: say it once.
    let mut seen = std::collections::HashSet::new();
    warnings.retain(|w| seen.insert(w.to_string()));
    ctx.warn_all(&warnings);

    let report = Report {
        database: args.db.db.display().to_string(),
        parts: parts
            .iter()
            .map(|p| {
                match p {
                    Part::Base => "base profile",
                    Part::Trace => "call traces",
                    Part::Comm => "communication profile",
                }
                .to_owned()
            })
            .collect(),
        nprocs: db.nprocs(),
        summary,
        calltree,
        regions,
        trace_timeline: trace_tl,
        comm_timeline: comm_tl,
        matrix,
        imbalance: imbalance_view,
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
    };
    let mut out = output::open(args.output.output.as_deref())?;
    write_report(&mut out, &report)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
