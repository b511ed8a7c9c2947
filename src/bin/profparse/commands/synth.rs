//! `profparse synth blprof DIR`: writes a synthetic database (benchmarks, scale tests).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use profparse::synth::blprof::BlprofConfig;

use crate::context::Context;

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
        } => {
            let cfg = BlprofConfig {
                nprocs: (*procs).max(1),
                nfiles: (*nfiles).max(1),
                blocks: (*blocks).max(1),
                functions: (*functions).max(1),
                depth: *depth,
                regions: (*regions).max(1),
                calls_per_block: *calls,
                messages_per_block: *messages,
                seed: *seed,
            };
            cfg.write(dir).map_err(|e| profparse::Error::io(dir, e))?;
        }
        SynthCommand::Tlog {
            file,
            procs,
            events,
            seed,
        } => {
            let cfg = profparse::synth::tlog::TlogConfig {
                nprocs: (*procs).max(1),
                events: *events,
                seed: *seed,
            };
            crate::output::write_file(file, |mut w| cfg.write(&mut w).map(drop))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
