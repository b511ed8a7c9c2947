//! Flag values that could hang, spawn thousands of threads or pass
//! unchecked are capped with a note or refused as usage errors (exit 2);
//! a flag the tool does not document is refused too.

use crate::common::{db, output, s, tlog};

fn code(args: &[&str]) -> (i32, String) {
    let out = output(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn jobs_is_capped_with_a_note() {
    let d = db("small4");
    for j in ["100000", "4294967296"] {
        let (c, err) = code(&["-j", j, "summary", s(&d)]);
        assert_eq!(c, 0, "{err}");
        assert!(err.contains("note: -j") && err.contains("threads"), "{err}");
        let t = tlog("np4.log");
        let (c, err) = code(&["-j", j, "tlog", "summary", s(&t)]);
        assert_eq!(c, 0, "{err}");
    }
    // A sensible value says nothing.
    let (c, err) = code(&["-j", "1", "summary", s(&d)]);
    assert_eq!(c, 0);
    assert!(err.is_empty(), "{err}");
    // -q silences the note.
    let (_, err) = code(&["-q", "-j", "100000", "summary", s(&d)]);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn float_thresholds_must_be_finite_and_non_negative() {
    let d = db("small4");
    let d = s(&d);
    for bad in ["NaN", "inf", "-1", "x"] {
        let pct = format!("--min-percent={bad}");
        let diff = format!("--min-diff={bad}");
        let dur = format!("--min-dur={bad}");
        for args in [
            vec!["calltree", d, &pct],
            vec!["report", d, &pct, "-o", "/nonexistent/never.html"],
            vec!["compare", d, d, &pct],
            vec!["diff", d, d, &diff],
            vec!["export", d, "--chrome", "/nonexistent/never.json", &dur],
        ] {
            let (c, err) = code(&args);
            assert_eq!(c, 2, "{args:?}: {err}");
            assert!(err.contains("invalid value"), "{args:?}: {err}");
        }
    }
}

#[test]
fn comm_proc_out_of_range_is_a_usage_error() {
    let d = db("small4");
    for sub in ["stats", "barriers", "matrix", "pairs", "time", "waits"] {
        let (c, err) = code(&["comm", sub, s(&d), "--proc", "99999"]);
        assert_eq!(c, 2, "comm {sub}: {err}");
        assert!(
            err.contains("--proc 99999: no communication data for that process"),
            "{err}"
        );
    }
    let (c, err) = code(&["comm", "stats", s(&d), "--proc", "0"]);
    assert_eq!(c, 0, "{err}");
}

/// No hidden spellings: barriers-only is the default of `comm barriers`,
/// and a negated `--no-reductions` is an unknown argument, not a no-op.
#[test]
fn comm_barriers_has_no_hidden_no_reductions_flag() {
    let d = db("small4");
    let (c, err) = code(&["comm", "barriers", s(&d), "--no-reductions"]);
    assert_eq!(c, 2, "{err}");
    assert!(
        err.contains("unexpected argument '--no-reductions'"),
        "{err}"
    );
}
