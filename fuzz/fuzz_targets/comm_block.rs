//! Communication data blocks (`bl_comm_prof_D_*`) on arbitrary bytes, with
//! fuzzed record count, seek position, record size and Real width.
//!
//! Input: `ncomm: u64 LE`, `seekpos: u64 LE`, `record_size: u16 LE`,
//! `real: u8` (bit 0: f32), then the data file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use profparse::formats::blprof::commdata::{CommBlock, func_name, is_recv, is_send};
use profparse::formats::blprof::{CommBlockRef, RealWidth};
use profparse::source::InputFile;

fuzz_target!(|data: &[u8]| {
    if data.len() < 19 {
        return;
    }
    let u = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap());
    let record_size = u16::from_le_bytes([data[16], data[17]]) as u64;
    let real = if data[18] & 1 == 0 {
        RealWidth::F64
    } else {
        RealWidth::F32
    };
    let block = CommBlockRef {
        proc: 0,
        ncomm: u(0),
        datafile: "bl_comm_prof_D_00000".into(),
        seekpos: u(8),
        host: None,
        barriers: Default::default(),
        name_tags: Default::default(),
        time_min_max: None,
        timer_time: None,
        tag_range: None,
        rare: None,
        header: std::path::Path::new("bl_comm_prof_H_00000").into(),
        line: 1,
    };
    let file = InputFile::from_bytes("bl_comm_prof_D_00000", data[19..].to_vec());
    let Ok(b) = CommBlock::read(&file, &block, record_size, real) else {
        return;
    };
    assert_eq!(b.records().len(), b.len());
    for i in 0..b.len() + 1 {
        let _ = b.get(i);
    }
    for r in b.records() {
        let _ = (func_name(r.kind), is_send(r.kind), is_recv(r.kind));
    }
});
