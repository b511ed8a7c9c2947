//! One module per command: each turns its arguments into library options,
//! calls the library, and hands the result to a renderer.

pub mod calltrace;
pub mod calltree;
pub mod check;
pub mod comm;
pub mod compare;
pub mod completions;
pub mod diff;
pub mod export;
pub mod history;
pub mod info;
pub mod man;
pub mod regions;
pub mod regress;
pub mod report;
pub mod summary;
pub mod synth;
pub mod tinyprofiler;
pub mod tlog;
pub mod trace_common;
pub mod trace_summary;
pub mod tree;

use std::process::ExitCode;

use crate::formats::blprof::Database;

use crate::cli::args::Command;
use crate::cli::context::Context;

/// Opens a command's database (one, or its last), kept until the process
/// exits: the command reports on it and the process ends, when the
/// operating system takes the memory back at once, where freeing the
/// indexes of 100,000 processes piece by piece took 120 ms, a fifth of
/// `info`.
pub fn open_database(path: &std::path::Path) -> crate::Result<KeptDatabase> {
    Database::open(path).map(|db| KeptDatabase(Some(Box::new(db))))
}

/// [`open_database`] with the comm index built (see
/// [`Database::open_for_comm`]).
pub fn open_comm_database(path: &std::path::Path) -> crate::Result<KeptDatabase> {
    Database::open_for_comm(path).map(|db| KeptDatabase(Some(Box::new(db))))
}

/// [`open_database`] with the trace index built (see
/// [`Database::open_for_traces`]).
pub fn open_trace_database(path: &std::path::Path) -> crate::Result<KeptDatabase> {
    Database::open_for_traces(path).map(|db| KeptDatabase(Some(Box::new(db))))
}

/// A database that is not freed when dropped (see [`open_database`]),
/// except in the fuzz target, which runs many commands in one process.
pub struct KeptDatabase(Option<Box<Database>>);

impl std::ops::Deref for KeptDatabase {
    type Target = Database;
    fn deref(&self) -> &Database {
        self.0.as_deref().expect("present until dropped")
    }
}

impl std::ops::DerefMut for KeptDatabase {
    fn deref_mut(&mut self) -> &mut Database {
        self.0.as_deref_mut().expect("present until dropped")
    }
}

impl Drop for KeptDatabase {
    fn drop(&mut self) {
        if let Some(db) = self.0.take() {
            leave_to_exit(db);
        }
    }
}

/// Leaves `value` unfreed, to the process's exit (see [`open_database`]):
/// for what a command holds until it ends. The fuzz target, which runs
/// many commands in one process, frees it.
pub fn leave_to_exit<T>(value: T) {
    if cfg!(fuzzing) {
        drop(value);
    } else {
        std::mem::forget(value);
    }
}

/// Runs one command: the binary's dispatch, shared with the `cli` fuzz
/// target, which runs whole command lines in process.
pub fn run(command: &Command, ctx: &Context) -> anyhow::Result<ExitCode> {
    match command {
        Command::Info(args) => info::run(args, ctx),
        Command::Summary(args) => summary::run(args, ctx),
        Command::TraceSummary(args) => trace_summary::run(args, ctx),
        Command::Regions(args) => regions::run(args, ctx),
        Command::Calltree(args) => calltree::run(args, ctx),
        Command::Calltrace(args) => calltrace::run(args, ctx),
        Command::Check(args) => check::run(args, ctx),
        Command::Comm(args) => comm::run(args, ctx),
        Command::Diff(args) => diff::run(args, ctx),
        Command::Compare(args) => compare::run(args, ctx),
        Command::Regress(args) => regress::run(args, ctx),
        Command::History(args) => history::run(args, ctx),
        Command::Export(args) => export::run(args, ctx),
        Command::Report(args) => report::run(args, ctx),
        Command::Synth(args) => synth::run(args, ctx),
        Command::Tlog(args) => tlog::run(args, ctx),
        Command::Tree(args) => tree::run(args, ctx),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
    }
}
