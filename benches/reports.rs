//! Benchmarks of every report, at one thread and at all threads, with
//! throughput in bytes of the data the report reads.
//!
//!   cargo bench --bench reports                 # default sizes
//!   PROFPARSE_BENCH_QUICK=1 cargo bench --bench reports -- --test   # CI: runs each once
//!
//! Inputs come from the crate's generator (`profparse::synth`), written to a
//! temporary directory: a database shaped like the 1.21 GB one but
//! smaller (8 processes, 2 trace and comm blocks each; `PROFPARSE_BENCH_CALLS`
//! call records per block), a 10,000-process database, and a tlog file.
//! Reports on databases run the release binary (what users run, parse to
//! print); tlog reports also run as library calls. Peak memory and the
//! full-size comparison with the reference are in bench/run.sh.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use profparse::synth::blprof::BlprofConfig;
use profparse::synth::tlog::TlogConfig;
use profparse::{
    EventNames, TlogDumpStyle as DumpStyle, TlogFile, TlogTrees as Trees, open_and_summarize_tlog,
    tlog_summary, write_tlog_dump,
};

fn quick() -> bool {
    std::env::var_os("PROFPARSE_BENCH_QUICK").is_some()
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Inputs {
    _dir: tempfile::TempDir,
    db: PathBuf,
    wide: PathBuf,
    tlog: PathBuf,
}

fn inputs() -> Inputs {
    let dir = tempfile::tempdir().expect("temporary directory");
    let db = dir.path().join("db");
    let calls = if quick() {
        2_000
    } else {
        env_u64("PROFPARSE_BENCH_CALLS", 200_000)
    };
    BlprofConfig {
        nprocs: 8,
        nfiles: 8,
        blocks: 2,
        functions: 40,
        depth: 9,
        calls_per_block: calls,
        messages_per_block: calls / 6,
        ..BlprofConfig::default()
    }
    .write(&db)
    .expect("synthetic database");
    let wide = dir.path().join("wide");
    BlprofConfig {
        nprocs: if quick() { 100 } else { 10_000 },
        nfiles: 256,
        blocks: 1,
        calls_per_block: 20,
        messages_per_block: 4,
        ..BlprofConfig::default()
    }
    .write(&wide)
    .expect("synthetic wide database");
    let tlog = dir.path().join("trace.log");
    let mut f = io::BufWriter::new(std::fs::File::create(&tlog).expect("tlog file"));
    TlogConfig {
        nprocs: 16,
        events: if quick() { 2_000 } else { 250_000 },
        seed: 1,
    }
    .write(&mut f)
    .expect("synthetic tlog");
    drop(f);
    Inputs {
        _dir: dir,
        db,
        wide,
        tlog,
    }
}

/// Bytes of the data files of `prefix` in `dir` (what a report reads).
fn data_bytes(dir: &Path, prefix: &str) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

fn threads() -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    if all > 1 { vec![1, all] } else { vec![1] }
}

fn run_binary(args: &[&str], path: &Path, jobs: usize) {
    let status = Command::new(env!("CARGO_BIN_EXE_profparse"))
        .arg("-q")
        .arg(format!("-j{jobs}"))
        .args(args)
        .arg(path)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("profparse runs");
    assert!(
        status.code().is_some_and(|c| c == 0 || c == 3),
        "{args:?}: {status}"
    );
}

fn blprof_reports(c: &mut Criterion) {
    let inputs = inputs();
    let trace = data_bytes(&inputs.db, "bl_call_stats_D_");
    let comm = data_bytes(&inputs.db, "bl_comm_prof_D_");
    let base = data_bytes(&inputs.db, "bl_prof_D_");
    let db = inputs.db.to_str().expect("UTF-8 path").to_owned();
    // (report, arguments before the database, bytes read)
    let reports: Vec<(&str, Vec<&str>, u64)> = vec![
        // The run with itself: both trees and both base profiles.
        ("diff", vec!["diff", &db], 2 * (trace + base)),
        (
            "export-chrome",
            vec!["export", "--chrome", "/dev/null"],
            trace + comm,
        ),
        ("summary", vec!["summary"], base),
        ("trace-summary", vec!["trace-summary"], trace),
        ("regions", vec!["regions"], trace),
        ("calltree", vec!["calltree"], trace),
        (
            "calltrace-proc0",
            vec!["calltrace", "--proc", "0"],
            trace / 8,
        ),
        ("comm-stats", vec!["comm", "stats"], comm),
        ("comm-check", vec!["comm", "check"], comm),
        ("comm-pairs", vec!["comm", "pairs"], comm),
        ("comm-barriers", vec!["comm", "barriers"], comm),
        ("comm-matrix", vec!["comm", "matrix"], comm),
        ("report-html", vec!["report"], base + trace + comm),
    ];
    let mut group = c.benchmark_group("blprof");
    group.sample_size(10);
    for (name, args, bytes) in &reports {
        group.throughput(Throughput::Bytes(*bytes));
        for jobs in threads() {
            group.bench_with_input(
                BenchmarkId::new(*name, format!("j{jobs}")),
                &jobs,
                |b, &j| b.iter(|| run_binary(args, &inputs.db, j)),
            );
        }
    }
    group.finish();

    let mut group = c.benchmark_group("blprof-10k-procs");
    group.sample_size(10);
    for (name, args) in [
        ("info", vec!["info"]),
        ("summary", vec!["summary"]),
        ("report-html", vec!["report"]),
    ] {
        // The report reads every part; info and summary the base profile.
        let prefix = if name == "report-html" {
            "bl_"
        } else {
            "bl_prof"
        };
        group.throughput(Throughput::Bytes(data_bytes(&inputs.wide, prefix)));
        for jobs in threads() {
            group.bench_with_input(
                BenchmarkId::new(name, format!("j{jobs}")),
                &jobs,
                |b, &j| b.iter(|| run_binary(&args, &inputs.wide, j)),
            );
        }
    }
    group.finish();

    let mut group = c.benchmark_group("tlog");
    group.sample_size(10);
    let tlog_bytes = std::fs::metadata(&inputs.tlog).map_or(0, |m| m.len());
    group.throughput(Throughput::Bytes(tlog_bytes));
    let names = EventNames::default();
    for jobs in threads() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .expect("thread pool");
        let id = |name: &str| BenchmarkId::new(name, format!("j{jobs}"));
        group.bench_function(id("open"), |b| {
            b.iter(|| pool.install(|| TlogFile::open(&inputs.tlog).expect("opens")))
        });
        let t = TlogFile::open(&inputs.tlog).expect("opens");
        for (name, style) in [
            ("dump-tlog_dump", DumpStyle::TlogDumpC { nodes: 16 }),
            ("dump-java", DumpStyle::TlogDump),
        ] {
            group.bench_function(id(name), |b| {
                b.iter(|| {
                    pool.install(|| write_tlog_dump(&mut io::sink(), &t, style).expect("dump"))
                })
            });
        }
        // `tlog summary`: the opening scan summarizes in the same pass.
        let progress = Default::default();
        group.bench_function(id("summary"), |b| {
            b.iter(|| {
                pool.install(|| {
                    open_and_summarize_tlog(&inputs.tlog, &names, &progress).expect("opens")
                })
            })
        });
        group.bench_function(id("tree"), |b| {
            b.iter(|| pool.install(|| tlog_summary(&t, &names, Trees::Build)))
        });
    }
    group.finish();
}

criterion_group!(benches, blprof_reports);
criterion_main!(benches);
