//! `profparse comm pairs`: the table after the pairing; JSON and CSV
//! formatted in the pairing's parallel tasks and written as they end.

use std::process::ExitCode;

use crate::analysis::comm::pairs::{pair_messages_in, pair_messages_unordered};
use crate::report::comm_pairs::{PairChunk, PairChunks, PairStream, PairsReport};
use crate::report::{Format, render};
use clap::Args;

use super::{AlignArg, CommSelect, Opened, ScopeFlags, TABLE_JSON_CSV, open_comm};
use crate::cli::args::{DatabaseArg, OutputArg, RegionArgs};
use crate::cli::context::Context;
use crate::cli::output;

#[derive(Args, Debug)]
pub struct PairsArgs {
    #[command(flatten)]
    db: DatabaseArg,
    #[command(flatten)]
    select: CommSelect,
    #[command(flatten)]
    regions: RegionArgs,
    #[command(flatten)]
    align: AlignArg,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = TABLE_JSON_CSV)]
    format: Format,
    #[command(flatten)]
    output: OutputArg,
}

pub fn run(args: &PairsArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    let flags = ScopeFlags {
        select: Some(&args.select),
        regions: Some(&args.regions),
        align: Some(&args.align),
        ..Default::default()
    };
    let Opened { db, scope, bar } = open_comm(&args.db.db, flags, ctx, "comm pairs")?;
    let database = &db;
    let ranges = scope.ranges();
    let mut out = output::open(args.output.output.as_deref())?;
    let sel = scope.selection();
    let (clocks, aligned) = (scope.clocks(), scope.is_aligned());
    let (report, warnings) = if args.format == Format::Table {
        // (The table shows sums and extremes: the pairs' order is free.)
        let mut r = pair_messages_unordered(database, &sel, ranges, || (), |_, _| {}, &mut |_| {});
        drop(bar);
        r.0.region_filter = scope.filter_names();
        if aligned {
            clocks.align_pairs(&mut r.0);
        }
        render(
            &PairsReport(&r.0),
            args.format,
            args.output.text_width(false),
            &mut out,
        )?;
        r
    } else {
        // Pairs are formatted in the pairing's parallel tasks and
        // written in order as the tasks end.
        let chunks = PairChunks::new(args.format);
        let mut stream = PairStream::begin(&mut out, &chunks);
        let mut r = pair_messages_in(
            database,
            &sel,
            ranges,
            || chunks.chunk(),
            |c: &mut PairChunk, p| {
                if aligned {
                    c.add(&clocks.align_pair(p));
                } else {
                    c.add(p);
                }
            },
            &mut |c| stream.write(c),
        );
        if aligned {
            clocks.align_pairs(&mut r.0);
        }
        r.0.region_filter = scope.filter_names();
        let written = stream.finish(&r.0);
        drop(bar);
        written?;
        r
    };
    drop(report);
    ctx.warn_all(&warnings);
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
