//! Regression tests for the inputs the fuzz targets of the block decoders
//! (fuzz/fuzz_targets/comm_block.rs) found crashing: the decoder gets the
//! same call the target made and must answer with a clear error.

use crate::formats::blprof::commdata::CommBlock;
use crate::formats::blprof::{CommBlockRef, RealWidth};
use crate::source::InputFile;

fn comm_ref(ncomm: u64, seekpos: u64) -> CommBlockRef {
    CommBlockRef {
        proc: 3,
        ncomm,
        datafile: "bl_comm_prof_D_00000".into(),
        seekpos,
        host: None,
        barriers: Default::default(),
        name_tags: Default::default(),
        rare: None,
        time_min_max: None,
        timer_time: None,
        tag_range: None,
        header: std::path::Path::new("bl_comm_prof_H_00000").into(),
        line: 7,
    }
}

/// comm_block: a record size of 0 (or any size below 16 + Real) gave an
/// empty-stride block whose `get(0)` indexed past an empty slice.
#[test]
fn comm_block_record_size_too_small_is_an_error() {
    let file = InputFile::from_bytes("bl_comm_prof_D_00000", vec![0x21; 1024]);
    for (size, real) in [
        (0, RealWidth::F64),
        (0, RealWidth::F32),
        (3, RealWidth::F64),
        (19, RealWidth::F32),
        (23, RealWidth::F64),
    ] {
        let e = CommBlock::read(&file, &comm_ref(128, 0x300), size, real)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("bl_comm_prof_H_00000")
                && e.contains("process 3")
                && e.contains(&format!("records of {size} bytes")),
            "{e}"
        );
    }
    // The smallest valid sizes still decode, and out-of-range indices are `None`.
    for (size, real) in [(20, RealWidth::F32), (24, RealWidth::F64)] {
        let b = CommBlock::read(&file, &comm_ref(2, 0), size, real).unwrap();
        assert_eq!(b.len(), 2);
        assert!(b.get(1).is_some());
        assert!(b.get(2).is_none());
        assert!(b.get(usize::MAX).is_none());
    }
}
