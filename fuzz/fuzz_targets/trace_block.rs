//! Trace data blocks (`bl_call_stats_D_*`) on arbitrary bytes, with fuzzed
//! region/call counts, seek position and Real width.
//!
//! Input: `nrss: u64 LE`, `ntrace: u64 LE`, `seekpos: u64 LE`,
//! `mode: u8` (0: detect, 1: f64, 2: f32), then the data file.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use profparse::analysis::regions::ProcRegions;
use profparse::formats::blprof::base::RealWidth;
use profparse::formats::blprof::callstats::TraceBlockRef;
use profparse::formats::blprof::trace::TraceBlock;
use profparse::source::InputFile;

fuzz_target!(|data: &[u8]| {
    if data.len() < 25 {
        return;
    }
    let u = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap());
    let block = TraceBlockRef {
        proc: 0,
        nrss: u(0),
        ntrace: u(8),
        datafile: "bl_call_stats_D_00000".into(),
        seekpos: u(16),
        time_min_max: None,
        header: PathBuf::from("bl_call_stats_H_00000").into(),
        line: 1,
    };
    let file = InputFile::from_bytes("bl_call_stats_D_00000", data[25..].to_vec());
    let block = match data[24] % 3 {
        0 => TraceBlock::read(&file, &block),
        1 => TraceBlock::read_as(&file, &block, RealWidth::F64),
        _ => TraceBlock::read_as(&file, &block, RealWidth::F32),
    };
    let Ok(b) = block else { return };
    let _ = b.real();
    assert_eq!(b.regions().len(), b.regions_len());
    assert_eq!(b.calls().len(), b.calls_len());
    for i in 0..b.calls_len() {
        let c = b.call(i);
        let _ = (c.is_sentinel(), c.end());
    }
    for c in b.calls() {
        let _ = (c.is_sentinel(), c.end());
    }
    let _ = ProcRegions::pair(0, b.regions().map(|r| (r.time, r.number, r.start)));
});
