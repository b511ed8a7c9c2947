//! Regression tests for the inputs the fuzz targets (fuzz/, docs/FUZZING.md)
//! found crashing, hanging or exhausting memory. Each test feeds the public
//! API the same call the target made and checks for a clear error instead.

use profparse::formats::blprof::commdata::CommBlock;
use profparse::formats::blprof::{CommBlockRef, RealWidth};
use profparse::source::InputFile;

use crate::common::db;

fn comm_ref(ncomm: u64, seekpos: u64) -> CommBlockRef {
    CommBlockRef {
        proc: 3,
        ncomm,
        datafile: "bl_comm_prof_D_00000".into(),
        seekpos,
        host: None,
        barriers: vec![],
        name_tags: vec![],
        reductions: vec![],
        time_min_max: None,
        timer_time: None,
        tag_range: None,
        tag_wraps: vec![],
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

/// A copy of fixture `name` with `edit(name, text)` applied to each header
/// file.
fn db_with(name: &str, edit: impl Fn(&str, String) -> String) -> tempfile::TempDir {
    let src = db(name);
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        let bytes = std::fs::read(e.path()).unwrap();
        let bytes = if name.contains("_H") {
            edit(&name, String::from_utf8(bytes).unwrap()).into_bytes()
        } else {
            bytes
        };
        std::fs::write(dir.path().join(&name), bytes).unwrap();
    }
    dir
}

/// database (found by review while writing the target, then kept in it): a
/// comm header claiming NProcs 4e9 and a block of process 3999999999 made
/// the send matrix allocate 4e9 × 4e9 counters (abort: allocation failed);
/// later it refused past 8,192 processes. The matrix is now as sparse as the
/// sends, and every output of `comm matrix` stays small.
#[test]
fn send_matrix_of_a_huge_process_number_stays_small() {
    use profparse::analysis::comm_select::CommSelection;
    use profparse::analysis::comm_sync::send_matrix;
    use profparse::formats::blprof::Database;
    // Process 3 of `small4` renamed 3999999999: its sends (to 0 and 2)
    // move to that row; the others' sends to 3 stay in column 3.
    let dir = db_with("small4", |name, text| match name {
        "bl_comm_prof_H" => text.replace("NProcs  4", "NProcs  4000000000"),
        "bl_comm_prof_H_00003" => text.replace("CommProfProc  3 ", "CommProfProc  3999999999 "),
        _ => text,
    });
    let db = Database::open(dir.path()).unwrap();
    let (huge, w) = send_matrix(&db, &CommSelection::all());
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(huge.nprocs, 4_000_000_000);
    assert!(huge.sent_by().is_none(), "no per-process rows of 4e9");
    let plain = db_with("small4", |_, text| text);
    let (four, _) = send_matrix(
        &Database::open(plain.path()).unwrap(),
        &CommSelection::all(),
    );
    assert_eq!(four.nprocs, 4);
    assert_eq!(huge.routes.len(), four.routes.len());
    for (h, f) in huge.routes.iter().zip(&four.routes) {
        let from = if f.from == 3 { 3_999_999_999 } else { f.from };
        assert_eq!(
            (h.from, h.to, h.messages, h.bytes),
            (from, f.to, f.messages, f.bytes)
        );
    }
    assert!(four.routes.iter().any(|r| r.from == 3 && r.messages > 0));
    let d = dir.path().to_str().unwrap();
    let svg = dir.path().join("m.svg");
    for format in ["table", "json", "csv"] {
        let out = crate::common::profparse()
            .args(["comm", "matrix", d, "--format", format, "--svg"])
            .arg(&svg)
            .output()
            .unwrap();
        // Exit 3: the comm header's NProcs disagrees with the base header's.
        assert_eq!(out.status.code(), Some(3), "{format}: {out:?}");
        assert!(
            out.stdout.len() < 10_000,
            "{format}: {} bytes",
            out.stdout.len()
        );
        assert!(std::fs::metadata(&svg).unwrap().len() < 200_000);
    }
}
