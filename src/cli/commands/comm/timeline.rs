//! `profparse comm timeline`: an SVG picture and/or Chrome trace JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::comm::timeline::{time_span, timeline_rows};
use crate::export::chrome;
use crate::report::renderers::svg::timeline::{TIMELINE_COLUMNS, timeline_svg};
use clap::Args;

use super::{AlignArg, Opened, ScopeFlags, open_comm};
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
    let flags = ScopeFlags {
        window: args.time,
        regions: Some(&args.regions),
        align: Some(&args.align),
        ..Default::default()
    };
    let Opened { db, scope, bar } = open_comm(&args.db.db, flags, ctx, "comm timeline")?;
    if let Some(path) = svg {
        let span = time_span(&db, &scope).unwrap_or((0.0, 1.0));
        let (rows, warnings) = timeline_rows(&db, &scope, span, TIMELINE_COLUMNS);
        ctx.warn_all(&warnings);
        write_file(path, |w| timeline_svg(span, &rows, w))?;
    }
    if let Some(path) = chrome {
        let mut written = None;
        write_file(path, |w| {
            written = Some(chrome::write_comm_trace(w, &db, &scope)?);
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
