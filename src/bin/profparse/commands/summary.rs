//! `profparse summary DB`: amrprofparser's default / `-ws` report.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use profparse::analysis::base_summary::base_summary;
use profparse::analysis::function_stats::SortKey;
use profparse::report::Format;
use profparse::report::{csv, json, reference, table};

use crate::cli::{DatabaseArg, OutputArg};
use crate::context::Context;
use crate::format::Offered;
use crate::output::{self, UsageError};

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
    pub db: DatabaseArg,
    #[command(flatten)]
    pub table: TableOptions,
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

pub fn run(all: &SummaryArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let args = &all.table;
    let db = super::open_database(&all.db.db)?;
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
        anyhow::bail!(profparse::Error::invalid(
            profparse::Location::file(&profile.header.path),
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
    let cut = |order: Vec<usize>| -> Vec<usize> {
        match args.top {
            Some(n) => order.into_iter().take(n).collect(),
            None => order,
        }
    };
    let sort = args.sort.map(SortKey::from);
    let mut out = output::open(args.output.output.as_deref())?;
    let database = all.db.db.display().to_string();
    match args.format {
        Format::Reference => reference::write_stats_report(&mut out, &summary, None)?,
        Format::Json => json::write_summary(
            &mut out,
            &database,
            &summary,
            &cut(sort.unwrap_or(SortKey::Name).order(&summary.functions)),
            sort,
            &[db.warnings(), &warnings].concat(),
        )?,
        Format::Csv => csv::write_summary(
            &mut out,
            &summary,
            &cut(sort.unwrap_or(SortKey::Name).order(&summary.functions)),
        )?,
        Format::Table => {
            let mut style = ctx.table_style(&args.output);
            style.wide = args.wide;
            writeln!(
                out,
                "{database}: {} processes, {} functions. NCalls = calls on process {}; times in seconds.\n",
                summary.nprocs,
                summary.functions.len(),
                summary.selected_proc
            )?;
            let orders: Vec<(String, SortKey)> = match sort {
                Some(k) => vec![(format!("Functions by {}", sort_title(k)), k)],
                None => vec![
                    ("Functions by name".to_owned(), SortKey::Name),
                    ("Functions by average time".to_owned(), SortKey::Avg),
                ],
            };
            for (title, key) in orders {
                table::write_summary(
                    &mut out,
                    &summary,
                    &cut(key.order(&summary.functions)),
                    &title,
                    style,
                )?;
                writeln!(out)?;
            }
            table::write_summary_totals(&mut out, &summary)?;
        }
        other => return Err(crate::format::unoffered(other)),
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn sort_title(k: SortKey) -> &'static str {
    match k {
        SortKey::Name => "name",
        SortKey::Ncalls => "total calls",
        SortKey::Min => "minimum time",
        SortKey::Avg => "average time",
        SortKey::Max => "maximum time",
        SortKey::Stddev => "standard deviation",
        SortKey::Cv => "coefficient of variation",
        SortKey::Percent => "share of all timers",
        SortKey::Imbalance => "imbalance (Max/Avg)",
    }
}
