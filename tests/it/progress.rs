//! A run without a terminal prints no progress bar (the library's hooks
//! are tested in src/tests/progress.rs).

use crate::common::{db, profparse};

#[test]
fn no_bar_without_a_terminal() {
    // Test runs have no terminal on stderr: nothing but the report.
    let d = db("small4");
    for args in [
        vec!["calltree", d.to_str().unwrap()],
        vec!["trace-summary", d.to_str().unwrap()],
        vec!["comm", "stats", d.to_str().unwrap()],
    ] {
        let out = profparse().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
