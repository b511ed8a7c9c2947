//! `profparse regions DB`: regions and their time ranges.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use profparse::analysis::filter::write_filter_file;
use profparse::analysis::regions::{Regions, region_stats};
use profparse::report::Format;
use profparse::report::{json, table};

use super::trace_common::open_trace_db;
use crate::cli::{DatabaseArg, OutputArg};
use crate::context::Context;
use crate::format::TABLE_JSON;
use crate::output::{self, UsageError};

#[derive(Args, Debug)]
pub struct RegionsArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Also list this process's ranges, in time order.
    #[arg(long, value_name = "N")]
    pub proc: Option<usize>,
    /// Write an amrprofparser RegionFilters template listing every region
    /// (edit it, then pass it with --filter-file).
    #[arg(long = "write-filter-file", value_name = "F")]
    pub write_filter_file: Option<std::path::PathBuf>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &RegionsArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let db = open_trace_db(&args.db.db, ctx)?;
    let regions = Regions::load(db);
    ctx.warn_all(&regions.warnings);
    let proc =
        match args.proc {
            Some(p) => Some(regions.proc(p).ok_or_else(|| {
                UsageError(format!("--proc {p}: no call traces for that process"))
            })?),
            None => None,
        };
    if let Some(path) = &args.write_filter_file {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| profparse::Error::io(path, e))?,
        );
        write_filter_file(&mut f, &regions)?;
        f.flush()?;
    }
    let stats = region_stats(&regions);
    let names = |n: i32| regions.name(n);
    let mut out = output::open(args.output.output.as_deref())?;
    match args.format {
        Format::Json => {
            let w: Vec<_> = db
                .trace_index()
                .warnings
                .iter()
                .chain(&regions.warnings)
                .cloned()
                .collect();
            json::write_regions(&mut out, &stats, proc, &names, &w)?
        }
        Format::Table => {
            let style = ctx.table_style(&args.output);
            writeln!(
                out,
                "{}: {} regions over {} processes; times in seconds.\n",
                args.db.db.display(),
                stats.len(),
                regions.procs.len()
            )?;
            table::write_regions(&mut out, &stats, style)?;
            if let Some(p) = proc {
                writeln!(out)?;
                table::write_proc_ranges(&mut out, p, &names, style)?;
            }
        }
        other => return Err(crate::format::unoffered(other)),
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
