//! The TinyProfiler branches of `summary`, `info`, `report` and `calltree`: a job log given where
//! a database is expected is recognised by its content (`Input::open`).

use std::path::Path;
use std::process::ExitCode;

use crate::analysis::tinyprofiler::{flat_tree, select_run};
use crate::formats::{Input, InputKind, tinyprofiler};
use crate::report::Format;
use crate::report::calltree::{TreeReport, TreeView};
use crate::report::renderers::html::tinyprofiler::{TinyPage, write_page};
use crate::report::tinyprofiler::{TinyInfoReport, TinySummaryReport};

use super::calltree::CallTreeArgs;
use super::summary::{SummaryArgs, TableOptions};
use crate::cli::args::OutputArg;
use crate::cli::output::{UsageError, emit};

/// Whether `path` is a TinyProfiler log (a job's output). Anything else,
/// or a path that cannot be opened, goes the database's way as before.
pub fn is_log(path: &Path) -> bool {
    path.is_file() && Input::open(path).is_ok_and(|i| i.kind == InputKind::TinyProfiler)
}

/// `summary LOG [--run N] [--memory] [--top N]`.
pub fn summary(path: &Path, all: &SummaryArgs, args: &TableOptions) -> anyhow::Result<ExitCode> {
    let (run, format) = (all.run, args.format);
    if format == Format::Reference {
        return Err(UsageError(
            "--format reference is amrprofparser's layout of a bl_prof database; a TinyProfiler log offers table, json and csv".into()
        ).into());
    }
    if args.sort.is_some() || args.proc != 0 || args.wide {
        return Err(UsageError(
            "--sort, --proc and --wide apply to bl_prof databases; a TinyProfiler report keeps its own order".into(),
        )
        .into());
    }
    let log = tinyprofiler::read(path)?;
    let name = path.display().to_string();
    let report = select_run(&log, run, &name)?;
    let run = log
        .reports
        .iter()
        .position(|r| std::ptr::eq(r, report))
        .map_or(1, |i| i + 1);
    let report = TinySummaryReport {
        log: name,
        run,
        runs: log.reports.len(),
        report,
        memory: all.memory,
        top: args.top,
    };
    emit(&report, format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}

/// `info LOG`.
pub fn info(path: &Path, format: Format, output: &OutputArg) -> anyhow::Result<ExitCode> {
    let log = tinyprofiler::read(path)?;
    let report = TinyInfoReport {
        log: path.display().to_string(),
        parsed: &log,
    };
    emit(&report, format, output)?;
    Ok(ExitCode::SUCCESS)
}

/// `report LOG -o page.html`: the log's last report as one page.
pub fn report(path: &Path, output: &OutputArg) -> anyhow::Result<ExitCode> {
    let log = tinyprofiler::read(path)?;
    let name = path.display().to_string();
    let report = select_run(&log, None, &name)?;
    let page = TinyPage {
        log: &name,
        run: log.reports.len(),
        runs: log.reports.len(),
        report,
    };
    let mut out = crate::cli::output::open(output.output.as_deref())?;
    write_page(&mut out, &page)?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// `calltree LOG`: the last report as a flat profile (timers as roots,
/// regions as roots holding their timers): text, JSON, Hatchet, HTML.
pub fn calltree(args: &CallTreeArgs) -> anyhow::Result<ExitCode> {
    let r = &args.regions;
    if args.proc.is_some()
        || !r.include.is_empty()
        || !r.exclude.is_empty()
        || r.filter_file.is_some()
    {
        return Err(UsageError(
            "--proc and region filters apply to bl_prof databases; a TinyProfiler report has region sections (shown as roots)".into(),
        )
        .into());
    }
    if args.bottom_up || args.focus.is_some() {
        return Err(UsageError(
            "--bottom-up and --focus need call paths; a TinyProfiler report is a flat profile"
                .into(),
        )
        .into());
    }
    if args.format == Format::Folded {
        return Err(UsageError(
            "a TinyProfiler report has no call stacks: folded stacks of its flat profile would count region time twice; use --format hatchet or json".into(),
        )
        .into());
    }
    let path = &args.db.db;
    let log = tinyprofiler::read(path)?;
    let name = path.display().to_string();
    let report = select_run(&log, None, &name)?;
    let (tree, nprocs) = flat_tree(report);
    let view = TreeView {
        max_depth: args.depth,
        min_percent: args.min_percent,
        top: args.top,
        nprocs,
        wide: args.wide,
        width: args.output.text_width(args.wide),
        aggregate: args.aggregate.into(),
        ..Default::default()
    };
    let page = TreeReport {
        tree: &tree,
        view,
        proc: None,
        source: Some(format!(
            "{name} (TinyProfiler report {} of {}: a flat profile, timers and regions as roots, no call paths)",
            log.reports.len(),
            log.reports.len()
        )),
    };
    crate::cli::output::emit(&page, args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
