//! `profparse comm timeline`: an SVG picture and/or Chrome trace JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::comm_timeline::{time_span_on, timeline_rows_on};
use crate::export::chrome;
use crate::report::renderers::svg::timeline::{TIMELINE_COLUMNS, timeline_svg};
use clap::Args;

use super::regions::CommRegions;
use super::{AlignArg, open_comm_db};
use crate::cli::args::{DatabaseArg, RegionArgs};
use crate::cli::commands::export::parse_window;
use crate::cli::context::Context;
use crate::cli::output::{UsageError, write_file};

#[derive(Args, Debug)]
pub struct TimelineArgs {
    #[command(flatten)]
    db: DatabaseArg,
    /// Only calls in this window, in seconds: `T0..T1`, `T0..` or `..T1`.
    #[arg(long, value_name = "T0..T1", value_parser = parse_window)]
    time: Option<(f64, f64)>,
    #[command(flatten)]
    regions: RegionArgs,
    /// Write an SVG timeline to F.
    #[arg(long, value_name = "F")]
    svg: Option<PathBuf>,
    /// Write Chrome Trace Event JSON to F.
    #[arg(long, value_name = "F")]
    chrome: Option<PathBuf>,
    #[command(flatten)]
    align: AlignArg,
}

pub fn run(args: &TimelineArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let (svg, chrome) = (&args.svg, &args.chrome);
    if svg.is_none() && chrome.is_none() {
        return Err(UsageError("comm timeline needs --svg F and/or --chrome F".into()).into());
    }
    let (mut kept, bar) = open_comm_db(&args.db.db, ctx, "comm timeline")?;
    let database = &mut *kept;
    let (regions, bar) = CommRegions::load(&args.regions, database, ctx, bar, "comm timeline")?;
    let window = args.time.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let clocks = args.align.offsets(database, ctx);
    if let Some(path) = svg {
        let span = time_span_on(database, window, &clocks).unwrap_or((0.0, 1.0));
        let (rows, warnings) = timeline_rows_on(
            database,
            window,
            span,
            TIMELINE_COLUMNS,
            &clocks,
            regions.ranges(),
        );
        ctx.warn_all(&warnings);
        write_file(path, |w| timeline_svg(span, &rows, w))?;
    }
    if let Some(path) = chrome {
        let mut written = None;
        write_file(path, |w| {
            written = Some(chrome::write_comm_trace(
                w,
                database,
                window,
                &clocks,
                regions.ranges(),
            )?);
            Ok(())
        })?;
        if let Some((n, warnings)) = written {
            // Both outputs meet the same damaged blocks: say it once.
            if svg.is_none() {
                ctx.warn_all(&warnings);
            }
            ctx.info(1, format!("wrote {n} events to {}", path.display()));
        }
    }
    drop(bar);
    Ok(ExitCode::SUCCESS)
}
