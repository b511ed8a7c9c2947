//! `profparse summary DB`: amrprofparser's default / `-ws` report.

use std::process::ExitCode;

use crate::analysis::base_summary::base_summary;
use crate::analysis::function_stats::SortKey;
use crate::report::Format;
use crate::report::function_stats::FunctionsReport;
use crate::report::renderers::table::TableStyle;
use clap::{Args, ValueEnum};

use crate::cli::args::{DatabaseOrLogArg, OutputArg};
use crate::cli::context::Context;
use crate::cli::format::Offered;
use crate::cli::output::{UsageError, emit_within};

/// `--format` of this command.
const SUMMARY_FORMATS: Offered = Offered(&[
    (Format::Table, "Aligned tables for people"),
    (Format::Json, "One JSON object (docs/JSON.md)"),
    (Format::Csv, "One row per function, full precision"),
    (
        Format::Reference,
        "amrprofparser's own text layout (both tables, 4 decimals)",
    ),
]);

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    Name,
    Ncalls,
    Min,
    Avg,
    Max,
    Stddev,
    Cv,
    Percent,
    Imbalance,
}

impl From<SortArg> for SortKey {
    fn from(s: SortArg) -> SortKey {
        match s {
            SortArg::Name => SortKey::Name,
            SortArg::Ncalls => SortKey::Ncalls,
            SortArg::Min => SortKey::Min,
            SortArg::Avg => SortKey::Avg,
            SortArg::Max => SortKey::Max,
            SortArg::Stddev => SortKey::Stddev,
            SortArg::Cv => SortKey::Cv,
            SortArg::Percent => SortKey::Percent,
            SortArg::Imbalance => SortKey::Imbalance,
        }
    }
}

#[derive(Args, Debug)]
pub struct SummaryArgs {
    #[command(flatten)]
    pub db: DatabaseOrLogArg,
    #[command(flatten)]
    pub table: TableOptions,
    /// A TinyProfiler log holding several runs: report run N (1 = the
    /// first; default the last).
    #[arg(long, value_name = "N")]
    pub run: Option<usize>,
    /// A TinyProfiler log: show its memory tables instead of its timers.
    #[arg(long)]
    pub memory: bool,
}

/// Options of the function-statistics reports (`summary`, `trace-summary`).
#[derive(Args, Debug)]
pub struct TableOptions {
    /// Process whose call counts fill the NCalls column (and, for
    /// trace-summary, the inclusive-time table).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub proc: usize,
    /// Print one table in this order (names ascending, numbers descending).
    #[arg(long, value_enum)]
    pub sort: Option<SortArg>,
    /// Keep only the first N rows of each table.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Also show total calls and the processes holding Min and Max.
    #[arg(long)]
    pub wide: bool,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = SUMMARY_FORMATS)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

impl TableOptions {
    /// The table layout: the terminal's width, `--wide`.
    pub fn style(&self, ctx: &Context) -> TableStyle {
        TableStyle {
            wide: self.wide,
            ..ctx.table_style(&self.output)
        }
    }
}

pub fn run(all: &SummaryArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let args = &all.table;
    if super::tinyprofiler::is_log(&all.db.db) {
        return super::tinyprofiler::summary(&all.db.db, all, args);
    }
    // A missing input is named first: the flags are not what is wrong.
    let mut kept = super::open_database(&all.db.db)?;
    if all.run.is_some() || all.memory {
        return Err(UsageError("--run and --memory apply to TinyProfiler logs".into()).into());
    }
    let db = &mut *kept;
    ctx.warn_all(db.warnings());
    let mut warnings = Vec::new();
    let profile = db.base_profile(&mut warnings)?;
    ctx.warn_all(&warnings);
    let nprocs = profile.header.nprocs();
    if args.proc as u64 >= nprocs {
        return Err(UsageError(format!(
            "--proc {} is out of range: the database has {nprocs} process(es), 0..{}",
            args.proc,
            nprocs.saturating_sub(1)
        ))
        .into());
    }
    if profile.is_empty() {
        anyhow::bail!(crate::Error::nothing_readable(
            crate::Location::file(&profile.header.path),
            "no process has a readable base block",
        ));
    }
    ctx.info(
        1,
        format!(
            "read {} base blocks of {} functions",
            profile.len(),
            profile.nfuncs()
        ),
    );
    let summary = base_summary(&profile, args.proc);
    let report = FunctionsReport {
        database: all.db.db.display().to_string(),
        summary: &summary,
        trace: None,
        sort: args.sort.map(SortKey::from),
        top: args.top,
        style: args.style(ctx),
        warnings: [db.warnings(), &warnings].concat(),
    };
    emit_within(
        &report,
        args.format,
        &args.output,
        args.output.text_width(args.wide),
    )?;
    Ok(ExitCode::SUCCESS)
}
