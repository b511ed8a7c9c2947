//! The header line parser and every header-file model on arbitrary text.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profparse::formats::blprof::base::BaseHeader;
use profparse::formats::blprof::callstats::CallStatsFile;
use profparse::formats::blprof::callstats::CallStatsHeader;
use profparse::formats::blprof::comm::CommFile;
use profparse::formats::blprof::comm::CommHeader;
use profparse::formats::blprof::header::{numbered_lines, parse_line};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for (_, line) in numbered_lines(&text) {
        let _ = parse_line(line);
    }
    let mut w = Vec::new();
    if let Ok(h) = BaseHeader::parse(&text, Path::new("bl_prof_H"), &mut w) {
        let _ = h.nprocs();
        let _ = h.procs_without_block().take(1 << 16).count();
    }
    let _ = CallStatsHeader::parse(&text, Path::new("bl_call_stats_H"), &mut w);
    if let Ok(h) = CommHeader::parse(&text, Path::new("bl_comm_prof_H"), &mut w) {
        let _ = (h.real_width(), h.record_size());
    }
    for nprocs in [None, Some(4)] {
        let f = CallStatsFile::parse(&text, Path::new("bl_call_stats_H_00000"), nprocs, &mut w);
        for (_, table) in &f.functions {
            let _ = table.name(0);
        }
        let _ = CommFile::parse(&text, Path::new("bl_comm_prof_H_00000"), nprocs, &mut w);
    }
    for warning in &w {
        let _ = warning.to_string();
    }
});
