//! `profparse comm barriers|matrix`: who waited for whom, who sent to whom.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::analysis::comm::sync::{self as comm_sync, send_matrix};
use crate::report::Format;
use crate::report::comm_sync::{BarriersReport, MatrixReport};
use crate::report::renderers::svg::matrix::{MatrixScale, matrix_svg};
use clap::Args;

use super::{AlignArg, CommSelect, Opened, ScopeFlags, TABLE_JSON_CSV, open_comm};
use crate::cli::args::{DatabaseArg, OutputArg, RegionArgs};
use crate::cli::context::Context;
use crate::cli::format::TABLE_JSON;
use crate::cli::output::{emit, write_file};

#[derive(Args, Debug)]
pub struct BarriersArgs {
    #[command(flatten)]
    db: DatabaseArg,
    #[command(flatten)]
    select: CommSelect,
    #[command(flatten)]
    regions: RegionArgs,
    /// Also the all-reductions (wait at N×N per reduction and process):
    /// scans every block's records. Without it only the barrier records the
    /// headers point to are read (amrprofparser -spd's work).
    #[arg(long)]
    reductions: bool,
    #[command(flatten)]
    align: AlignArg,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn barriers(args: &BarriersArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let flags = ScopeFlags {
        select: Some(&args.select),
        regions: Some(&args.regions),
        align: Some(&args.align),
        ..Default::default()
    };
    let Opened { db, scope, bar } = open_comm(&args.db.db, flags, ctx, "comm barriers")?;
    let (mut r, warnings) = comm_sync::barriers(&db, &scope, args.reductions);
    drop(bar);
    if scope.is_aligned() {
        scope.clocks().align_barriers(&mut r);
    }
    ctx.warn_all(&warnings);
    emit(&BarriersReport(&r), args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct MatrixArgs {
    #[command(flatten)]
    db: DatabaseArg,
    #[command(flatten)]
    select: CommSelect,
    #[command(flatten)]
    regions: RegionArgs,
    /// Output format (`csv`: one row per sender and receiver that exchanged
    /// messages).
    #[arg(long, default_value = "table", value_parser = TABLE_JSON_CSV)]
    format: Format,
    /// Write an SVG heat map of the bytes to F (process numbers on the
    /// axes, a colour scale with values).
    #[arg(long, value_name = "F")]
    svg: Option<PathBuf>,
    /// --svg: colours by log(1 + bytes), so routes of very different
    /// volumes stay apart.
    #[arg(long, requires = "svg")]
    log_scale: bool,
    #[command(flatten)]
    output: OutputArg,
}

pub fn matrix(args: &MatrixArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let flags = ScopeFlags {
        select: Some(&args.select),
        regions: Some(&args.regions),
        ..Default::default()
    };
    let Opened { db, scope, bar } = open_comm(&args.db.db, flags, ctx, "comm matrix")?;
    let (m, warnings) = send_matrix(&db, &scope);
    drop(bar);
    ctx.warn_all(&warnings);
    if let Some(path) = &args.svg {
        let scale = if args.log_scale {
            MatrixScale::Log
        } else {
            MatrixScale::Linear
        };
        write_file(path, |w| matrix_svg(&m, scale, w))?;
    }
    emit(&MatrixReport(&m), args.format, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
