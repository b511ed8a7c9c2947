//! The tlog reader: the fuzz input is written to a temporary file and opened
//! as the CLI does (map + positioned reads); every event is iterated in each
//! order the API offers, dumped in all styles to a sink, and summarized.
#![no_main]

use std::io::sink;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use profparse::analysis::tlog_summary::{
    EventNames, Summary, Trees, open_and_summarize, summarize, summarize_input,
};
use profparse::formats::tlog::TlogFile;
use profparse::report::tlog_dump::{DumpStyle, write_csv, write_dump, write_json};
use profparse::source::InputFile;

fn temp_path() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        std::env::temp_dir().join(format!("profparse-fuzz-tlog-{}.log", std::process::id()))
    })
}

fn exercise(t: &TlogFile) {
    let _ = (t.warnings().len(), t.looks_like_garbage(), t.total_events());
    let _ = t.iter().count();
    let mut buf = Vec::new();
    let _ = t.read_blocks(0, t.blocks() + 1, &mut buf).len();
    for b in 0..t.blocks() {
        let _ = t.block_events(b).count();
    }
    let procs: Vec<u16> = t.procs().collect();
    for &p in &procs {
        let _ = t.proc_events(p).count();
        let mut n = 0;
        t.for_each_proc_event(p, |_, _| n += 1);
        let _ = (
            t.events_of(p),
            t.event(p, 0),
            t.event(p, n),
            t.proc_blocks(p).len(),
        );
    }
    // The C-style dumps print a header for every process below `nodes`
    // (by design, as `tlog_dump F N` does): capped so that one record of
    // process 65535 does not make each run write 65536 headers.
    let nodes = t.nprocs().min(64);
    let _ = t.check_nodes(t.nprocs());
    let _ = t.check_nodes(nodes.saturating_sub(1));
    for style in [
        DumpStyle::TlogDump,
        DumpStyle::TlogDumpC { nodes },
        DumpStyle::TlogDumpC { nodes: nodes + 1 },
        DumpStyle::Sample { nodes },
    ] {
        let _ = write_dump(&mut sink(), t, style);
    }
    let _ = write_json(&mut sink(), t);
    let _ = write_csv(&mut sink(), t);
    let _ = summarize(t, &EventNames::default(), Trees::Build);
}

/// What the one-pass summary must share with the process-by-process one
/// (totals aside: they are summed in another order).
fn digest(s: &Summary) -> String {
    let procs: Vec<_> = s
        .procs
        .iter()
        .map(|p| {
            let kinds: Vec<_> = p
                .kinds
                .iter()
                .map(|k| (k.kind, k.role, k.count, k.min.to_bits(), k.max.to_bits()))
                .collect();
            let u = &p.unmatched;
            format!(
                "{} {} {:?} {:?} {} {} {} {} {kinds:?}",
                p.proc,
                p.events,
                p.start.map(f64::to_bits),
                p.end.map(f64::to_bits),
                u.ins,
                u.out,
                u.crossed,
                p.unknown_types
            )
        })
        .collect();
    let warnings: Vec<String> = s.warnings.iter().map(|w| w.to_string()).collect();
    format!("{procs:?} {warnings:?}")
}

fn one_pass_agrees(fused: &Summary, t: &TlogFile) {
    let reference = summarize(t, &EventNames::default(), Trees::Skip);
    assert_eq!(digest(fused), digest(&reference));
}

fuzz_target!(|data: &[u8]| {
    let path = temp_path();
    std::fs::write(path, data).unwrap();
    if let Ok(t) = TlogFile::open(path) {
        exercise(&t);
    }
    if let Ok(t) = TlogFile::from_input(InputFile::from_bytes("mem.log", data.to_vec())) {
        exercise(&t);
    }
    let names = EventNames::default();
    if let Ok((t, s)) = open_and_summarize(path, &names, &Default::default()) {
        one_pass_agrees(&s, &t);
    }
    if let Ok((t, s)) = summarize_input(InputFile::from_bytes("mem.log", data.to_vec()), &names) {
        one_pass_agrees(&s, &t);
    }
});
