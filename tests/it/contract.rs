//! The error contract of docs/ERRORS.md: exit codes, the warning format,
//! `--strict`, `--keep-going`, `--force` and the output limit.

use std::process::Command;

use crate::common::fixtures;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_profparse"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(fixtures())
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn exit_codes() {
    // 0: clean input.
    assert_eq!(run(&["summary", "blprof/small4/bl_prof"], &[]).code, 0);
    // 2: usage errors and unreadable input, naming the path.
    let o = run(
        &["summary", "--sort", "nonsense", "blprof/small4/bl_prof"],
        &[],
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    let o = run(&["summary", "no/such/db"], &[]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("no/such/db"), "{}", o.stderr);
    let o = run(&["tlog", "dump", "blprof"], &[]);
    assert_eq!(o.code, 2, "a directory is not a trace file: {}", o.stderr);
    // 3: a report from damaged input, warnings naming file and offset.
    let o = run(&["tlog", "dump", "tlog/bad/truncated_mid_record.log"], &[]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(
        o.stderr.starts_with("warning: ") && o.stderr.contains("byte offset"),
        "{}",
        o.stderr
    );
    assert!(!o.stdout.is_empty(), "the intact part is still dumped");
    // --strict: the same run fails with 1 after writing the report.
    let o = run(
        &[
            "--strict",
            "tlog",
            "dump",
            "tlog/bad/truncated_mid_record.log",
        ],
        &[],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(!o.stdout.is_empty());
    // -q silences warnings but not the exit code.
    let o = run(
        &["-q", "tlog", "dump", "tlog/bad/truncated_mid_record.log"],
        &[],
    );
    assert_eq!((o.code, o.stderr.as_str()), (3, ""));
}

#[test]
fn absurd_outputs_need_force() {
    let limit = [("PROFPARSE_OUTPUT_LIMIT", "1000")];
    for args in [
        &["tlog", "dump", "tlog/np4.log"][..],
        &["calltrace", "blprof/small4/bl_prof", "--proc", "0"][..],
    ] {
        let o = run(args, &limit);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("--force") && o.stderr.contains("would write about"),
            "{}",
            o.stderr
        );
        assert!(o.stdout.is_empty(), "nothing is written when refused");
        let mut forced = vec!["--force"];
        forced.extend_from_slice(args);
        let o = run(&forced, &limit);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(!o.stdout.is_empty());
    }
    // Under the default limit (2 GiB) nothing is refused.
    assert_eq!(run(&["tlog", "dump", "tlog/np4.log"], &[]).code, 0);
}

#[test]
fn keep_going_skips_unreadable_inputs() {
    let args = [
        "tree",
        "merge",
        "missing.json",
        "timertree/doc_example.json",
    ];
    let o = run(&args, &[]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("missing.json"));
    let mut kg = args.to_vec();
    kg.insert(2, "--keep-going");
    let o = run(&kg, &[]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(
        o.stderr.contains("missing.json") && o.stderr.contains("--keep-going"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.contains("doc_example.json"), "{}", o.stdout);
    // Nothing readable at all: still an error.
    let o = run(&["tree", "merge", "--keep-going", "missing.json"], &[]);
    assert_ne!(o.code, 0);
    // An option of `tree merge` alone, not of every command.
    let o = run(&["--keep-going", "tree", "merge", "missing.json"], &[]);
    assert_eq!(o.code, 2, "{}", o.stderr);
}

/// A reader that closes the pipe early (`| head`) is not an error: exit 0,
/// nothing on stderr — for every writer (tables, JSON, CSV, streamed traces).
#[test]
fn closed_output_pipe_is_success_everywhere() {
    use std::io::Read;
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let trace = tmp.path().join("t.log");
    let bin = env!("CARGO_BIN_EXE_profparse");
    let make = |args: &[&str]| assert!(Command::new(bin).args(args).status().unwrap().success());
    make(&[
        "synth",
        "blprof",
        db.to_str().unwrap(),
        "--procs",
        "4",
        "--calls",
        "20000",
        "--messages",
        "5000",
    ]);
    make(&[
        "synth",
        "tlog",
        trace.to_str().unwrap(),
        "--procs",
        "2",
        "--events",
        "20000",
    ]);
    let (d, t) = (db.to_str().unwrap(), trace.to_str().unwrap());
    let runs: Vec<Vec<&str>> = vec![
        vec!["comm", "pairs", d, "--format", "json"],
        vec!["comm", "pairs", d, "--format", "csv"],
        vec!["comm", "timeline", d, "--chrome", "/dev/stdout"],
        vec!["export", d, "--chrome", "/dev/stdout"],
        vec!["calltrace", d, "--proc", "0"],
        vec!["calltree", d, "--format", "json"],
        vec!["tlog", "dump", t],
        vec!["tlog", "dump", t, "--format", "json"],
        vec!["tlog", "dump", t, "--format", "csv"],
    ];
    for args in runs {
        let mut child = Command::new(bin)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read a little, then close: the writer meets a closed pipe.
        let mut first = [0u8; 16];
        let _ = child.stdout.as_mut().unwrap().read(&mut first);
        drop(child.stdout.take());
        let status = child.wait().unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(status.success(), "{args:?}: {status}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}
