//! Base data blocks (`bl_prof_D_*`) on arbitrary bytes, with fuzzed function
//! count, seek position, block count and Real width.
//!
//! Input: `nfuncs: u32 LE`, `seekpos: u64 LE`, `real: u8` (bit 0: f32),
//! `nblocks: u8`, then the data file.
#![no_main]

use std::path::PathBuf;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use profparse::analysis::base_summary::base_summary;
use profparse::formats::blprof::base::{BaseBlock, BaseHeader, BaseProfile, RealWidth};
use profparse::formats::blprof::base::{BaseBlockRef, detect_real_width, read_block};
use profparse::source::InputFile;

fuzz_target!(|data: &[u8]| {
    if data.len() < 14 {
        return;
    }
    let nfuncs = u32::from_le_bytes(data[0..4].try_into().unwrap()) as usize;
    let seekpos = u64::from_le_bytes(data[4..12].try_into().unwrap());
    let real = if data[12] & 1 == 0 {
        RealWidth::F64
    } else {
        RealWidth::F32
    };
    let nblocks = data[13] as u64;
    let bytes = data[14..].to_vec();

    let _ = detect_real_width(bytes.len() as u64, nblocks, nfuncs as u64);
    if let Some(b) = BaseBlock::new(&bytes, nfuncs, real) {
        for i in 0..b.len() + 1 {
            let _ = (b.ncalls(i), b.time(i));
        }
    }
    let file = InputFile::from_bytes("bl_prof_D_00000", bytes);
    let block = BaseBlockRef {
        proc: 0,
        datafile: "bl_prof_D_00000".into(),
        seekpos,
        line: 1,
    };
    if let Ok(b) = read_block(&file, &block, nfuncs, real) {
        for i in 0..b.len() + 1 {
            let _ = (b.ncalls(i), b.time(i));
        }
    }

    // A header naming `nfuncs` functions (capped: the names are our own
    // allocation, not the decoder's) and `nblocks` processes, block k at
    // `seekpos + k * block size`, all in the fuzzed file.
    let nnames = nfuncs.min(4096);
    let size = nnames as u64 * (8 + real.bytes());
    let header = BaseHeader {
        path: PathBuf::from("bl_prof_H"),
        version: Some(1),
        nprocs: Some(nblocks.max(1)),
        nout_files: Some(1),
        functions: (0..nnames).map(|i| format!("f{i}")).collect(),
        blocks: (0..nblocks)
            .map(|k| BaseBlockRef {
                proc: k as usize,
                datafile: "bl_prof_D_00000".into(),
                seekpos: seekpos.wrapping_add(k.wrapping_mul(size)),
                line: k as usize + 2,
            })
            .collect(),
        calc_end_time: Some(1.0),
    };
    let file = Arc::new(file);
    let mut warnings = Vec::new();
    let profile = BaseProfile::load(&header, |_| Ok(file.clone()), &mut warnings);
    for i in 0..profile.len() {
        let _ = profile.block(i);
    }
    if !profile.is_empty() {
        let _ = base_summary(&profile, 0);
    }
});
