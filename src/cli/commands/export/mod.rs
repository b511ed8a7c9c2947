//! `profparse export DB --chrome out.json`: timelines for Perfetto /
//! chrome://tracing ([`chrome`]), `--parquet DIR` tables ([`parquet`]) and
//! `--tau DIR` profiles per process ([`tau`]).

mod chrome;
mod parquet;
mod tau;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::cli::args::DatabaseArg;
use crate::cli::context::Context;

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// Write Chrome Trace Event JSON: per process its calls, regions and
    /// communication calls (one track each), messages as flow arrows.
    #[arg(long, value_name = "FILE", required_unless_present_any = ["parquet", "tau"])]
    pub chrome: Option<PathBuf>,
    /// Write the call records, region ranges, comm records and matched
    /// messages as a Parquet dataset in DIR, one directory per table
    /// (functions/ from the base profile, calls/, regions/, comm/,
    /// messages/), for DuckDB, Spark or Trino (docs/SCALING.md). All
    /// processes and times.
    #[arg(long, value_name = "DIR")]
    pub parquet: Option<PathBuf>,
    /// Write TAU profiles in DIR: `profile.<rank>.0.0` per process with
    /// call traces, its call paths with calls, exclusive and inclusive
    /// microseconds, for ParaProf, pprof and Hatchet's `from_tau`
    /// (docs/INTEROP.md). All times; `--proc` selects processes.
    #[arg(long, value_name = "DIR", conflicts_with = "time")]
    pub tau: Option<PathBuf>,
    /// --parquet: convert part K of N (0 ≤ K < N): the K-th of N
    /// contiguous ranges of processes, as `part-K` files of each table, so
    /// N jobs (a Slurm array) convert one database into one dataset.
    #[arg(long, value_name = "K/N", value_parser = parse_shard, requires = "parquet")]
    pub shard: Option<(usize, usize)>,
    /// Only events overlapping this window, in seconds: `T0,T1` or `T0..T1`,
    /// either end open (`T0,`, `..T1`). Messages: both ends inside.
    #[arg(long, value_name = "T0,T1", value_parser = parse_window, allow_hyphen_values = true)]
    pub time: Option<(f64, f64)>,
    /// Only these processes (repeatable, or a list `0,3`). Messages are drawn
    /// between exported processes only.
    #[arg(long = "proc", value_name = "N", value_delimiter = ',')]
    pub procs: Vec<usize>,
    /// Leave out calls (communication calls too) shorter than this many
    /// seconds; instants count as 0 s, messages need both of their calls.
    #[arg(long = "min-dur", value_parser = crate::cli::args::non_negative_f64, value_name = "SECONDS", default_value_t = 0.0)]
    pub min_dur: f64,
    /// Leave out the communication calls and messages (comm profile).
    #[arg(long = "no-comm")]
    pub no_comm: bool,
    /// --chrome: what each call carries in `args`: `none` (viewers such as
    /// speedscope then group calls by name), `summary` (its depth) or
    /// `all` (depth, inclusive and exclusive seconds).
    #[arg(long = "args", value_enum, default_value_t = CallArgsArg::None, value_name = "WHAT")]
    pub call_args: CallArgsArg,
    /// --chrome: put every process's calls, regions, communication calls
    /// and messages on one clock, subtracting its estimated offset (see
    /// `comm clocks`; docs/COMM.md). `--time` still selects on each
    /// process's own clock.
    #[arg(long, requires = "chrome")]
    pub align_clocks: bool,
}

/// `--args`: see [`ExportArgs::call_args`].
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallArgsArg {
    None,
    Summary,
    All,
}

impl From<CallArgsArg> for crate::export::chrome::CallArgs {
    fn from(a: CallArgsArg) -> Self {
        match a {
            CallArgsArg::None => Self::None,
            CallArgsArg::Summary => Self::Summary,
            CallArgsArg::All => Self::All,
        }
    }
}

/// `K/N` with 0 ≤ K < N.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s
        .split_once('/')
        .ok_or_else(|| format!("expected K/N (e.g. 0/4), got {s:?}"))?;
    let num = |x: &str| x.trim().parse::<usize>().map_err(|e| format!("{x:?}: {e}"));
    let (k, n) = (num(k)?, num(n)?);
    if n == 0 || k >= n {
        return Err(format!(
            "{s:?}: K must be below N (shards 0/{n} to {}/{n})",
            n.saturating_sub(1)
        ));
    }
    Ok((k, n))
}

/// `T0,T1` or `T0..T1` with either end open.
pub fn parse_window(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once("..")
        .or_else(|| s.split_once(','))
        .ok_or_else(|| format!("expected T0,T1 or T0..T1, got {s:?}"))?;
    let num = |x: &str, open: f64| -> Result<f64, String> {
        if x.trim().is_empty() {
            Ok(open)
        } else {
            x.trim().parse::<f64>().map_err(|e| format!("{x:?}: {e}"))
        }
    };
    let (t0, t1) = (num(a, f64::NEG_INFINITY)?, num(b, f64::INFINITY)?);
    if t0.is_nan() || t1.is_nan() {
        return Err(format!("the window {s:?} is not a number"));
    }
    if t0 > t1 {
        return Err(format!("the window {s:?} ends before it starts"));
    }
    Ok((t0, t1))
}

pub fn run(args: &ExportArgs, ctx: &Context) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &args.parquet {
        parquet::write(&args.db.db, dir, args.shard.unwrap_or((0, 1)), ctx)?;
    }
    if let Some(dir) = &args.tau {
        tau::write(args, dir, ctx)?;
    }
    if let Some(file) = &args.chrome {
        chrome::write(args, file, ctx)?;
    }
    Ok(ExitCode::SUCCESS)
}
