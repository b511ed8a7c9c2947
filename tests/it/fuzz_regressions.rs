//! Regression tests for the inputs the fuzz targets (fuzz/, docs/FUZZING.md)
//! found crashing, hanging or exhausting memory. Each test feeds the public
//! API the same call the target made and checks for a clear error instead
//! (the block decoders' own: src/tests/fuzz_regressions.rs).

use crate::common::db;

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
    use profparse::{CommScope, Database, send_matrix};
    // Process 3 of `small4` renamed 3999999999: its sends (to 0 and 2)
    // move to that row; the others' sends to 3 stay in column 3.
    let dir = db_with("small4", |name, text| match name {
        "bl_comm_prof_H" => text.replace("NProcs  4", "NProcs  4000000000"),
        "bl_comm_prof_H_00003" => text.replace("CommProfProc  3 ", "CommProfProc  3999999999 "),
        _ => text,
    });
    let db = Database::open(dir.path()).unwrap();
    let (huge, w) = send_matrix(&db, &CommScope::everything());
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(huge.nprocs, 4_000_000_000);
    assert!(huge.sent_by().is_none(), "no per-process rows of 4e9");
    let plain = db_with("small4", |_, text| text);
    let (four, _) = send_matrix(
        &Database::open(plain.path()).unwrap(),
        &CommScope::everything(),
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
