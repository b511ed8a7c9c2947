//! `profparse synth blprof DIR`: writes a synthetic database (benchmarks, scale tests).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::synth::blprof::BlprofConfig;
use crate::synth::blprof_waits::{Injected, Scenes};
use clap::{Args, Subcommand};

use crate::cli::context::Context;
use crate::cli::output::UsageError;

#[derive(Args, Debug)]
pub struct SynthArgs {
    #[command(subcommand)]
    pub command: SynthCommand,
}

#[derive(Subcommand, Debug)]
pub enum SynthCommand {
    /// A bl_prof database with base, trace and comm parts.
    Blprof {
        /// Output directory (created).
        dir: PathBuf,
        #[arg(long, default_value_t = 4)]
        procs: u64,
        /// prof_nfiles: at most this many data files per part.
        #[arg(long, default_value_t = 256)]
        nfiles: u64,
        /// Trace and comm blocks per process (1 + flushes).
        #[arg(long, default_value_t = 1)]
        blocks: u64,
        #[arg(long, default_value_t = 12)]
        functions: u32,
        #[arg(long, default_value_t = 4)]
        depth: u32,
        #[arg(long, default_value_t = 3)]
        regions: u32,
        /// Call records per trace block.
        #[arg(long, default_value_t = 1000)]
        calls: u64,
        /// Ring messages per comm block.
        #[arg(long, default_value_t = 100)]
        messages: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Gives each process a known clock offset in [-S, S] seconds
        /// (process 0: 0) and writes the comm records on one true schedule
        /// (Irecv, Isend, Waitall per message); the truth goes to
        /// synth_truth.json in DIR.
        #[arg(long, value_name = "S", value_parser = parse_seconds)]
        clock_offsets: Option<f64>,
        /// Process P sends every message S seconds late (its right
        /// neighbour waits: late sender).
        #[arg(long, value_name = "P:S", value_parser = parse_proc_delay)]
        late_sender: Option<(u64, f64)>,
        /// Process P arrives S seconds late at every barrier.
        #[arg(long, value_name = "P:S", value_parser = parse_proc_delay)]
        late_barrier: Option<(u64, f64)>,
        /// Process P receives S seconds late from its left neighbour: a
        /// blocking send and an Isend's Wait wait (late receiver), an eager
        /// send does not.
        #[arg(long, value_name = "P:S", value_parser = parse_proc_delay)]
        late_receiver: Option<(u64, f64)>,
        /// Process P, root of a Bcast on the processes of its parity,
        /// enters it S seconds late (late broadcast).
        #[arg(long, value_name = "P:S", value_parser = parse_proc_delay)]
        late_broadcast: Option<(u64, f64)>,
        /// Process P enters a Gather on the processes of its parity S
        /// seconds late; the root waits (early reduce).
        #[arg(long, value_name = "P:S", value_parser = parse_proc_delay)]
        early_reduce: Option<(u64, f64)>,
        /// Process P's left neighbour sends it S seconds late, after its
        /// right one sent; P receives from the left first (late sender,
        /// wrong order).
        #[arg(long, value_name = "P:S", value_parser = parse_proc_delay)]
        wrong_order: Option<(u64, f64)>,
        /// Each clock reading is off by up to S seconds (realistic clocks).
        #[arg(long, value_name = "S", value_parser = parse_seconds)]
        jitter: Option<f64>,
        /// Each process's clock drifts at a rate drawn in [-R, R] (process
        /// 0: 0), e.g. 1e-6.
        #[arg(long, value_name = "R", value_parser = crate::cli::args::non_negative_f64)]
        drift: Option<f64>,
    },
    /// A tlog trace file.
    Tlog {
        /// Output file.
        file: PathBuf,
        #[arg(long, default_value_t = 4)]
        procs: u16,
        /// Events per process (START and END included).
        #[arg(long, default_value_t = 1000)]
        events: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// An AMReX job log with a TinyProfiler report: one run of a job with
    /// noise (for `regress`).
    Tinyprofiler {
        /// Output file.
        file: PathBuf,
        /// Timers (`Timer0000::run()` …); logs with the same count are runs
        /// of the same job.
        #[arg(long, default_value_t = 100)]
        timers: u32,
        #[arg(long, default_value_t = 2)]
        ranks: u64,
        /// Run-to-run noise per timer (0.01 = 1 %).
        #[arg(long, default_value_t = 0.01, value_parser = crate::cli::args::non_negative_f64)]
        noise: f64,
        /// Timer I made F times slower (repeatable), e.g. `--slower 7:1.03`.
        #[arg(long, value_name = "I:F", value_parser = parse_shift)]
        slower: Vec<(u32, f64)>,
        /// The run (its noise).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(args: &SynthArgs, _ctx: &Context) -> anyhow::Result<ExitCode> {
    match &args.command {
        SynthCommand::Blprof {
            dir,
            procs,
            nfiles,
            blocks,
            functions,
            depth,
            regions,
            calls,
            messages,
            seed,
            clock_offsets,
            late_sender,
            late_barrier,
            late_receiver,
            late_broadcast,
            early_reduce,
            wrong_order,
            jitter,
            drift,
        } => {
            let nprocs = (*procs).max(1);
            let injections = [
                ("--late-sender", *late_sender, 1),
                ("--late-barrier", *late_barrier, 1),
                ("--late-receiver", *late_receiver, SCENE_PROCS),
                ("--late-broadcast", *late_broadcast, SCENE_PROCS),
                ("--early-reduce", *early_reduce, SCENE_PROCS),
                ("--wrong-order", *wrong_order, SCENE_PROCS),
            ];
            for (flag, injection, least) in injections {
                check_injection(flag, injection, least, nprocs)?;
            }
            let scenes = Scenes {
                late_receiver: *late_receiver,
                late_broadcast: *late_broadcast,
                early_reduce: *early_reduce,
                wrong_order: *wrong_order,
            };
            let injected = (clock_offsets.is_some()
                || late_sender.is_some()
                || late_barrier.is_some()
                || scenes.span() > 0.0
                || jitter.is_some()
                || drift.is_some())
            .then(|| Injected {
                clock_offsets: clock_offsets.unwrap_or(0.0),
                late_sender: *late_sender,
                late_barrier: *late_barrier,
                scenes,
                jitter: jitter.unwrap_or(0.0),
                drift: drift.unwrap_or(0.0),
            });
            let cfg = BlprofConfig {
                nprocs,
                nfiles: (*nfiles).max(1),
                blocks: (*blocks).max(1),
                functions: (*functions).max(1),
                depth: *depth,
                regions: (*regions).max(1),
                calls_per_block: *calls,
                messages_per_block: *messages,
                seed: *seed,
                injected,
            };
            cfg.write(dir).map_err(|e| crate::Error::io(dir, e))?;
        }
        SynthCommand::Tlog {
            file,
            procs,
            events,
            seed,
        } => {
            let cfg = crate::synth::tlog::TlogConfig {
                nprocs: (*procs).max(1),
                events: *events,
                seed: *seed,
            };
            crate::cli::output::write_file(file, |mut w| cfg.write(&mut w).map(drop))?;
        }
        SynthCommand::Tinyprofiler {
            file,
            timers,
            ranks,
            noise,
            slower,
            seed,
        } => {
            let cfg = crate::synth::tinyprofiler::TinyProfilerConfig {
                timers: *timers,
                ranks: (*ranks).max(1),
                noise: *noise,
                shifts: slower.clone(),
                seed: *seed,
            };
            crate::cli::output::write_file(file, |w| cfg.write(w))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Seconds: finite, not negative.
fn parse_seconds(s: &str) -> Result<f64, String> {
    let d: f64 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    if !d.is_finite() || d < 0.0 {
        return Err(format!("{d}: seconds must be finite and not negative"));
    }
    Ok(d)
}

/// `P:S`: a process and seconds (finite, not negative).
/// Processes a wait-state scene needs (a process, its left and right
/// neighbours, or the processes of its parity).
const SCENE_PROCS: u64 = 3;

/// An injection `flag` P:S that would not play in a database of `nprocs`
/// processes is a usage error, not a database without it.
fn check_injection(
    flag: &str,
    injection: Option<(u64, f64)>,
    least: u64,
    nprocs: u64,
) -> anyhow::Result<()> {
    let Some((p, _)) = injection else {
        return Ok(());
    };
    if nprocs < least {
        return Err(UsageError(format!(
            "{flag} needs at least {least} processes (--procs {nprocs})"
        ))
        .into());
    }
    if p >= nprocs {
        return Err(UsageError(format!(
            "{flag}: process {p} is not among the {nprocs} processes (0 to {})",
            nprocs - 1
        ))
        .into());
    }
    Ok(())
}

fn parse_proc_delay(s: &str) -> Result<(u64, f64), String> {
    let (p, d) = s
        .split_once(':')
        .ok_or_else(|| format!("{s:?}: expected PROC:SECONDS"))?;
    let p: u64 = p.trim().parse().map_err(|e| format!("{p:?}: {e}"))?;
    Ok((p, parse_seconds(d)?))
}

/// `I:F`: a timer index and a positive, finite factor.
fn parse_shift(s: &str) -> Result<(u32, f64), String> {
    let (i, f) = s
        .split_once(':')
        .ok_or_else(|| format!("{s:?}: expected TIMER:FACTOR"))?;
    let i: u32 = i.trim().parse().map_err(|e| format!("{i:?}: {e}"))?;
    let f: f64 = f.trim().parse().map_err(|e| format!("{f:?}: {e}"))?;
    if !(f.is_finite() && f > 0.0) {
        return Err(format!("{f}: the factor must be finite and positive"));
    }
    Ok((i, f))
}
