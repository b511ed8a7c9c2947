//! Inputs of one kind given to a command of another: the error names what
//! the path holds and the command that reads it, judged by content (not by
//! name) and before any warning.

use crate::common::{db, fixtures, output, s, timer_tree, tlog};

/// Runs profparse; returns (exit code, stderr).
fn fails(args: &[&str]) -> (i32, String) {
    let out = output(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The error is one line (no warnings before it) holding `advice`.
fn one_line_with(args: &[&str], code: i32, advice: &str) {
    let (got, stderr) = fails(args);
    assert_eq!(got, code, "profparse {args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "profparse {args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(advice), "profparse {args:?}: {stderr}");
}

#[test]
fn a_run_folder_given_as_a_database_suggests_its_bl_prof() {
    // A copy without the extension-free name the fixture has, to show that
    // the suggestion comes from the headers inside.
    let run = tempfile::tempdir().unwrap();
    let inner = run.path().join("bl_prof");
    std::fs::create_dir(&inner).unwrap();
    for e in std::fs::read_dir(db("small4")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), inner.join(e.file_name())).unwrap();
    }
    let advice = format!("did you mean {}?", inner.display());
    for cmd in ["summary", "trace-summary", "calltree", "info"] {
        one_line_with(&[cmd, s(run.path())], 2, &advice);
    }
}

#[test]
fn a_file_given_as_a_database_names_the_command_for_its_kind() {
    let trace = tlog("np4.log");
    one_line_with(
        &["summary", s(&trace)],
        2,
        &format!("use `profparse tlog summary {}`", trace.display()),
    );
    let tree = timer_tree("doc_example.json");
    one_line_with(
        &["trace-summary", s(&tree)],
        2,
        &format!("use `profparse tree show {}`", tree.display()),
    );
    let header = db("small4").join("bl_prof_H");
    one_line_with(
        &["calltree", s(&header)],
        2,
        &format!(
            "give the directory, as in `profparse summary {}`",
            db("small4").display()
        ),
    );
}

#[test]
fn tlog_commands_refuse_other_kinds_before_any_warning() {
    let header = db("small4").join("bl_call_stats_H");
    let data = db("small4").join("bl_call_stats_D_00000");
    let tree = timer_tree("doc_example.json");
    let log = fixtures().join("tinyprofiler/asyncout_24.10_np2.txt");
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.log");
    std::fs::write(&text, "a job's notes, not a trace\n").unwrap();
    for cmd in ["dump", "summary", "tree"] {
        for (path, advice) in [
            (
                &header,
                "not a tlog trace: it is a file of the bl_prof database",
            ),
            (
                &data,
                "not a tlog trace: it is a file of the bl_prof database",
            ),
            (&tree, "use `profparse tree show"),
            (&log, "use `profparse summary"),
        ] {
            one_line_with(&["tlog", cmd, s(path)], 1, advice);
        }
        one_line_with(
            &["tlog", cmd, s(&text)],
            1,
            "it is text, and tlog traces are binary",
        );
    }
    // --raw dumps whatever it is given.
    let (code, _) = fails(&["tlog", "dump", "--raw", s(&header)]);
    assert_ne!(code, 2);
}

#[test]
fn diff_refuses_a_database_file_with_the_directory_to_give() {
    let header = db("small4").join("bl_prof_H");
    one_line_with(
        &["diff", s(&header), s(&db("small4"))],
        1,
        "not a tlog trace: it is a file of the bl_prof database",
    );
}
