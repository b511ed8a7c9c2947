//! `profparse trace-summary DB`: amrprofparser's `-wts`, with working region filters.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use profparse::analysis::function_stats::SortKey;
use profparse::analysis::trace_summary::trace_summary;
use profparse::report::Format;
use profparse::report::{csv, json, reference, table};

use super::summary::TableOptions;
use super::trace_common::{Unfiltered, open_trace_db, region_filter, selection, trace_blocks};
use crate::cli::{DatabaseArg, RegionArgs};
use crate::context::Context;
use crate::output::{self, UsageError};

#[derive(Args, Debug)]
pub struct TraceSummaryArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    #[command(flatten)]
    pub regions: RegionArgs,
    #[command(flatten)]
    pub table: TableOptions,
}

pub fn run(all: &TraceSummaryArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let args = &all.table;
    let db = open_trace_db(&all.db.db, ctx)?;
    let (filter, fw) = region_filter(&all.regions)?;
    ctx.warn_all(&fw);
    let nprocs = db.nprocs().unwrap_or(0);
    if args.proc as u64 >= nprocs.max(1) {
        return Err(UsageError(format!(
            "--proc {} is out of range: the database has {nprocs} process(es)",
            args.proc
        ))
        .into());
    }
    // Regions and exclusive times read every block; inclusive times read
    // the selected process's once more.
    let bar = ctx.progress(
        2 * trace_blocks(db, None) + trace_blocks(db, Some(args.proc)),
        "trace summary",
        "blocks",
    );
    db.set_progress(bar.hook());
    let (_regions, sel) = selection(db, &filter, Unfiltered::RegionSpan, ctx)?;
    let (t, warnings) = trace_summary(db, &sel, args.proc);
    drop(bar);
    ctx.warn_all(&warnings);
    let s = &t.summary;
    let cut = |order: Vec<usize>| -> Vec<usize> {
        order
            .into_iter()
            .take(args.top.unwrap_or(usize::MAX))
            .collect()
    };
    let sort = args.sort.map(SortKey::from);
    let database = all.db.db.display().to_string();
    let mut out = output::open(args.output.output.as_deref())?;
    match args.format {
        Format::Reference => {
            reference::write_stats_report(
                &mut out,
                s,
                Some((t.max_call_stack_depth, &t.recursive_functions)),
            )?;
            let m = reference::name_width(s.functions.iter().map(|f| f.name.as_str()));
            reference::write_inclusive(&mut out, m, &t.inclusive)?;
        }
        Format::Json => {
            let all: Vec<_> = db
                .warnings()
                .iter()
                .chain(&db.trace_index().warnings)
                .chain(&fw)
                .chain(&warnings)
                .cloned()
                .collect();
            json::write_trace_summary(
                &mut out,
                &database,
                &t,
                &cut(sort.unwrap_or(SortKey::Name).order(&s.functions)),
                sort,
                &filter,
                &all,
            )?
        }
        Format::Csv => csv::write_summary(
            &mut out,
            s,
            &cut(sort.unwrap_or(SortKey::Name).order(&s.functions)),
        )?,
        Format::Table => {
            let mut style = ctx.table_style(&args.output);
            style.wide = args.wide;
            writeln!(
                out,
                "{database}: call traces of {} processes, {} functions{}. NCalls = calls on process {}; exclusive times in seconds.\n",
                s.nprocs,
                s.functions.len(),
                if filter.is_everything() {
                    String::new()
                } else {
                    ", region filter applied".to_owned()
                },
                s.selected_proc
            )?;
            let orders: Vec<(String, SortKey)> = match sort {
                Some(k) => vec![("Functions".to_owned(), k)],
                None => vec![
                    ("Functions by name".to_owned(), SortKey::Name),
                    ("Functions by average time".to_owned(), SortKey::Avg),
                ],
            };
            for (title, key) in orders {
                table::write_summary(&mut out, s, &cut(key.order(&s.functions)), &title, style)?;
                writeln!(out)?;
            }
            table::write_summary_totals(&mut out, s)?;
            writeln!(out)?;
            table::write_trace_extras(&mut out, &t, args.top, style)?;
        }
        other => return Err(crate::format::unoffered(other)),
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
