//! Damaged copies of a real database through every bl_prof command: never a
//! panic (exit code 101) or a signal, whatever the damage.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::common::{copy_db, db};

const COMMANDS: [&[&str]; 9] = [
    &["info", "--format", "json"],
    &["summary", "--format", "json"],
    &["trace-summary", "--format", "json"],
    &["regions", "--format", "json", "--proc", "0"],
    &["calltree", "--format", "json"],
    &["calltree", "--bottom-up", "--format", "json"],
    &["calltree", "--focus", "*", "--format", "json"],
    &["calltrace", "--proc", "1"],
    &["summary", "--format", "reference"],
];

/// Runs every command on `dir`; fails on a panic or a signal.
fn run_all(dir: &Path, what: &str) {
    for cmd in COMMANDS {
        let out = Command::new(assert_cmd::cargo::cargo_bin("profparse"))
            .arg("-q")
            .arg(cmd[0])
            .arg(dir)
            .args(&cmd[1..])
            .output()
            .unwrap();
        let code = out.status.code();
        assert!(
            matches!(code, Some(0..=3)),
            "{what}: `{}` ended with {:?}: {}",
            cmd.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A tiny deterministic generator (xorshift) so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn truncated_files_never_crash() {
    let names = [
        "bl_prof_D_00001",
        "bl_call_stats_D_00000",
        "bl_call_stats_H_00001",
        "bl_comm_prof_D_00001",
        "bl_comm_prof_H_00000",
        "bl_prof_H",
        "bl_call_stats_H",
    ];
    for name in names {
        // Every file named is in the fixture: a missing one fails the test.
        let len = fs::metadata(db("flush").join(name))
            .unwrap_or_else(|e| panic!("flush/{name}: {e}"))
            .len();
        for cut in [0, 1, 7, len / 3, len / 2, len.saturating_sub(1)] {
            let db = copy_db("flush");
            let p = db.path().join(name);
            let bytes = fs::read(&p).unwrap();
            fs::write(&p, &bytes[..(cut as usize).min(bytes.len())]).unwrap();
            run_all(db.path(), &format!("{name} cut at {cut}"));
        }
    }
}

#[test]
fn flipped_bytes_never_crash() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let names = [
        "bl_prof_H",
        "bl_call_stats_H",
        "bl_call_stats_H_00000",
        "bl_call_stats_D_00001",
        "bl_prof_D_00000",
    ];
    for round in 0..12 {
        let db = copy_db("small4");
        let name = names[round % names.len()];
        let p = db.path().join(name);
        let mut bytes = fs::read(&p).unwrap();
        for _ in 0..8 {
            let i = (rng.next() % bytes.len() as u64) as usize;
            bytes[i] = (rng.next() & 0xff) as u8;
        }
        fs::write(&p, &bytes).unwrap();
        run_all(
            db.path(),
            &format!("round {round}: bytes of {name} flipped"),
        );
    }
}

#[test]
fn absurd_header_values_never_crash() {
    let edits: [(&str, &str, &str); 6] = [
        (
            "bl_call_stats_H_00000",
            "nRSS 213",
            "nRSS 4611686018427387904",
        ),
        ("bl_call_stats_H_00000", "nTraceStats ", "nTraceStats 9"),
        (
            "bl_call_stats_H_00000",
            "seekpos  0",
            "seekpos  18446744073709551615",
        ),
        ("bl_call_stats_H", "NProcs  4", "NProcs  0"),
        ("bl_prof_H", "NProcs  4", "NProcs  -3"),
        (
            "bl_call_stats_H_00001",
            "fName \"main()\" 2",
            "fName \"main()\" 2000000000",
        ),
    ];
    for (file, from, to) in edits {
        let db = copy_db("small4");
        let p = db.path().join(file);
        let text = fs::read_to_string(&p).unwrap();
        fs::write(&p, text.replacen(from, to, 1)).unwrap();
        run_all(db.path(), &format!("{file}: {from} -> {to}"));
    }
    // Files missing, or a directory in their place.
    for name in [
        "bl_call_stats_H_00001",
        "bl_call_stats_D_00002",
        "bl_prof_H",
    ] {
        let db = copy_db("small4");
        fs::remove_file(db.path().join(name)).unwrap();
        run_all(db.path(), &format!("{name} missing"));
        fs::create_dir(db.path().join(name)).unwrap();
        run_all(db.path(), &format!("{name} is a directory"));
    }
}

/// A data file shared by many processes, cut short: a warning per skipped
/// block is printed ten times, then the rest is counted in one line (all of
/// them with -v); the exit code says "partial" either way.
#[test]
fn skipped_blocks_are_shown_ten_times_then_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    crate::common::run_ok(&[
        "synth",
        "blprof",
        dir.to_str().unwrap(),
        "--procs",
        "40",
        "--nfiles",
        "1",
        "--calls",
        "50",
    ]);
    let data = dir.join("bl_call_stats_D_00000");
    let len = fs::metadata(&data).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&data)
        .unwrap()
        .set_len(len / 4)
        .unwrap();
    let stderr = |extra: &[&str]| {
        let mut args = vec!["trace-summary", dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = crate::common::output(&args);
        assert_eq!(out.status.code(), Some(3));
        String::from_utf8(out.stderr).unwrap()
    };
    let quiet = stderr(&[]);
    let skipped = quiet.lines().filter(|l| l.contains(" skipped: ")).count();
    assert_eq!(skipped, 10, "{quiet}");
    let summary = quiet.lines().last().unwrap();
    assert!(
        summary.contains("more of these") && summary.contains("skipped blocks not shown"),
        "{quiet}"
    );
    let total: usize = summary
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<usize>()
        .unwrap()
        + 10;
    assert!(total > 20, "{summary}");
    let all = stderr(&["-v"]);
    assert_eq!(
        all.lines().filter(|l| l.contains(" skipped: ")).count(),
        total,
        "{all}"
    );
}

/// A call record claiming a depth of two billion (one changed word): no
/// allocation or chain of nodes follows the claim; the trees are built
/// from the records read, and the jump is reported as damage.
#[test]
fn a_huge_depth_claim_sizes_nothing() {
    let tmp = copy_db("flush");
    let data = tmp.path().join("bl_call_stats_D_00000");
    let mut bytes = fs::read(&data).unwrap();
    let mut put_depth =
        |at: usize| bytes[at..at + 4].copy_from_slice(&2_000_000_000i32.to_le_bytes());
    // Process 0's first block: record 5 (after the sentinel; 25 region
    // records of 16 bytes first). Its second block (at 9440, 20 region
    // records): the first call, whose depth says how many calls are open.
    put_depth(25 * 16 + 5 * 40);
    put_depth(9440 + 20 * 16 + 40);
    fs::write(&data, bytes).unwrap();
    let dir = tmp.path().to_str().unwrap();
    let html = tmp.path().join("r.html");
    for args in [
        vec!["calltree", dir],
        vec!["calltree", dir, "--proc", "0"],
        vec!["calltree", dir, "--proc", "0", "--format", "json"],
        vec!["calltree", dir, "--bottom-up"],
        vec!["calltree", dir, "--focus", "*", "--proc", "0"],
        vec!["calltrace", dir, "--proc", "0"],
        vec!["report", dir, "-o", html.to_str().unwrap()],
        vec!["diff", dir, dir],
    ] {
        let out = crate::common::output(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 3)),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
    // Unwrapped: the finding on one line.
    let check = crate::common::output(&["check", dir, "--width", "0"]);
    assert_eq!(check.status.code(), Some(1), "check names the damage");
    assert!(String::from_utf8_lossy(&check.stdout).contains("depth not nested"));
}

/// Calls nested 6,000 deep (a deep recursion, or records that only claim
/// to nest): every output of the call tree is written without recursion
/// (serde's nested serialization overflowed the stack), and the JSON's
/// indentation stops growing, so that its size stays linear.
#[test]
fn six_thousand_nested_calls_are_written_by_every_tree_output() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("deep");
    let d = db.to_str().unwrap();
    crate::common::run_ok(&[
        "synth", "blprof", d, "--procs", "1", "--depth", "6000", "--calls", "6000", "-q",
    ]);
    let summary = crate::common::json(&["trace-summary", d, "--format", "json"]);
    assert!(
        summary["max_call_stack_depth"].as_u64().unwrap() >= 2000,
        "{summary}"
    );
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    for args in [
        vec!["calltree", d, "--format", "json", "-o", o],
        vec!["calltree", d, "--format", "hatchet", "-o", o],
        vec!["calltree", d, "--bottom-up", "--format", "json", "-o", o],
        vec!["calltree", d, "--format", "html", "-o", o],
        vec!["calltree", d, "--format", "folded", "-o", o],
        vec!["calltree", d, "-o", o],
        vec!["report", d, "-o", o],
    ] {
        let run = crate::common::output(&args);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        if args.contains(&"json") {
            let bytes = fs::read(&out).unwrap();
            let count = |c: u8| bytes.iter().filter(|&&b| b == c).count();
            assert_eq!(count(b'{'), count(b'}'), "{args:?}");
            assert_eq!(count(b'['), count(b']'), "{args:?}");
            assert!(bytes.len() < 400 << 20, "{args:?}: {} bytes", bytes.len());
        }
    }
}

#[test]
fn an_unknown_header_version_is_read_with_a_warning_naming_its_line() {
    let copy = copy_db("small4");
    let dir = copy.path();
    for (header, keyword) in [
        ("bl_prof_H", "BLProfVersion"),
        ("bl_call_stats_H", "CallStatsProfVersion"),
        ("bl_comm_prof_H", "CommProfVersion"),
    ] {
        let path = dir.join(header);
        let text = fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with(keyword) && first.ends_with(" 1"),
            "{first}"
        );
        let bumped = text.replacen(" 1\n", " 2\n", 1);
        fs::write(&path, bumped).unwrap();
    }
    let out = crate::common::output(&["summary", dir.to_str().unwrap()]);
    // Read as version 1: the same summary as the original, exit code 3.
    assert_eq!(out.status.code(), Some(3));
    let original = crate::common::run_ok(&["summary", db("small4").to_str().unwrap()]);
    let after_path = |t: &str| t.split_once(": ").map(|(_, rest)| rest.to_owned());
    assert_eq!(
        after_path(&String::from_utf8_lossy(&out.stdout)),
        after_path(&original)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let line = |h: &str, k: &str| {
        format!(
            "{}:1: {k} 2: profparse reads version 1 of this header",
            dir.join(h).display()
        )
    };
    assert!(err.contains(&line("bl_prof_H", "BLProfVersion")), "{err}");
    // summary reads only the base header; the others when a command needs them.
    let out = crate::common::output(&["comm", "stats", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&line("bl_comm_prof_H", "CommProfVersion")),
        "{err}"
    );
    let out = crate::common::output(&["trace-summary", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&line("bl_call_stats_H", "CallStatsProfVersion")),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_block_read_from_the_wrong_offset_is_reported_not_summed_silently() {
    // One region record less than written: process 1's call records are read
    // from the wrong offset, and decode to function numbers its table lacks.
    let copy = copy_db("small4");
    let dir = copy.path();
    let header = dir.join("bl_call_stats_H_00001");
    let text = fs::read_to_string(&header).unwrap();
    let damaged = text.replacen("nRSS 213 ", "nRSS 212 ", 1);
    assert_ne!(damaged, text);
    fs::write(&header, damaged).unwrap();
    let chrome = dir.join("t.json");
    for args in [
        vec!["trace-summary", dir.to_str().unwrap()],
        vec![
            "export",
            dir.to_str().unwrap(),
            "--chrome",
            chrome.to_str().unwrap(),
        ],
    ] {
        let out = crate::common::output(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        let expected = format!("{}:1: process 1: ", header.display());
        assert!(
            err.lines().any(|l| l.contains(&expected)
                && l.contains("with a function number not in its fName table")),
            "{args:?}: {err}"
        );
    }
    // The intact database: no such warning.
    let out = crate::common::output(&["trace-summary", db("small4").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn diff_of_deep_trees_shortens_text_paths_and_guards_its_json() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("deep");
    let d = db.to_str().unwrap();
    crate::common::run_ok(&[
        "synth", "blprof", d, "--procs", "1", "--depth", "400", "--calls", "400", "-q",
    ]);
    let json = crate::common::json(&["diff", d, d, "--format", "json"]);
    let rows = json["calltree"]["rows"].as_array().unwrap();
    let deepest = rows
        .iter()
        .map(|r| r["path"].as_array().unwrap().len())
        .max()
        .unwrap();
    assert!(deepest > 100, "{deepest}");
    for r in rows {
        // The whole path, and its depth, in JSON.
        assert_eq!(
            r["path"].as_array().unwrap().len(),
            r["depth"].as_u64().unwrap() as usize + 1
        );
    }
    let text = crate::common::run_ok(&["diff", d, d, "--width", "0"]);
    assert!(
        text.contains("Paths deeper than 32 calls are shortened"),
        "{text}"
    );
    let shortened = text.lines().filter(|l| l.contains(" more … > ")).count();
    let deep_rows = rows
        .iter()
        .filter(|r| r["depth"].as_u64().unwrap() >= 32)
        .count();
    assert_eq!(shortened, deep_rows);
    // Text lines stay short whatever the depth.
    assert!(text.lines().all(|l| l.chars().count() < 1000));
    // The JSON's size is estimated before writing and guarded.
    let out = crate::common::profparse()
        .env("PROFPARSE_OUTPUT_LIMIT", "100000")
        .args(["diff", d, d, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("this comparison would write about"));
}

#[test]
fn the_text_call_tree_indents_at_most_256_levels_and_says_the_depth_beyond() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("deep");
    let d = db.to_str().unwrap();
    crate::common::run_ok(&[
        "synth", "blprof", d, "--procs", "1", "--depth", "1000", "--calls", "1000", "-q",
    ]);
    let json = crate::common::json(&["trace-summary", d, "--format", "json"]);
    let deepest = json["max_call_stack_depth"].as_u64().unwrap() as usize;
    assert!(deepest > 300, "{deepest}");
    let text = crate::common::run_ok(&["calltree", d, "--width", "0"]);
    let marked: Vec<usize> = text
        .lines()
        .filter_map(|l| l.split_once("[depth ").map(|(_, r)| r))
        .map(|r| r.split(']').next().unwrap().parse().unwrap())
        .collect();
    assert!(!marked.is_empty());
    assert!(
        marked.iter().all(|&d| d > 256 && d < deepest + 1),
        "{marked:?}"
    );
    // The name after the marker sits at the 256th level's indent.
    let width = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(width < 45 + 2 * 256 + 40, "{width}");
    // Within a width, deep lines say their depth sooner and fit.
    let fitted = crate::common::run_ok(&["calltree", d, "--width", "100"]);
    assert!(fitted.lines().skip(1).all(|l| l.chars().count() <= 100));
    assert!(fitted.contains("[depth 40] "), "{fitted}");
}

#[test]
fn folded_stacks_of_a_deep_tree_are_estimated_and_guarded() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("deep");
    let d = db.to_str().unwrap();
    crate::common::run_ok(&[
        "synth", "blprof", d, "--procs", "1", "--depth", "400", "--calls", "400", "-q",
    ]);
    let folded = crate::common::run_ok(&["calltree", d, "--format", "folded"]);
    let size = folded.len();
    let limited = |limit: usize, extra: &[&str]| {
        let mut args = vec!["calltree", d, "--format", "folded"];
        args.extend_from_slice(extra);
        crate::common::profparse()
            .env("PROFPARSE_OUTPUT_LIMIT", limit.to_string())
            .args(&args)
            .output()
            .unwrap()
    };
    // The estimate is within a fifth of the real size: refused below it,
    // written above it.
    let out = limited(size * 4 / 5, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("these folded stacks would write"));
    assert_eq!(limited(size * 6 / 5, &[]).status.code(), Some(0));
    let forced = limited(size / 10, &["--force"]);
    assert_eq!(forced.status.code(), Some(0));
    assert_eq!(forced.stdout.len(), size);
}

/// A per-file header claiming 461,168,601,842,738,790 call records for a
/// block whose data file holds 1,319: the count is bounded by the file, the
/// damaged header line is named, and every command reads the records that
/// are there (exit 3) instead of refusing a size estimate in TiB.
#[test]
fn a_record_count_past_its_data_file_reads_the_records_that_are_there() {
    let tmp = copy_db("small4");
    let header = tmp.path().join("bl_call_stats_H_00000");
    let text = fs::read_to_string(&header).unwrap();
    let claim = "nTraceStats 461168601842738790 ";
    fs::write(&header, text.replacen("nTraceStats 1319 ", claim, 1)).unwrap();
    assert!(fs::read_to_string(&header).unwrap().contains(claim));
    let dir = tmp.path().to_str().unwrap();
    let chrome = tmp.path().join("t.json");
    let run = |args: &[&str]| {
        let out = crate::common::output(args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(3), "{args:?}: {stderr}");
        assert!(
            stderr.contains("bl_call_stats_H_00000:1: ")
                && stderr.contains(
                    "a damaged header or a cut data file; read as 213 region and 1319 call records"
                ),
            "{args:?}: {stderr}"
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let clean = |args: &[&str]| crate::common::run_ok(args);
    let good = db("small4");
    let good = good.to_str().unwrap();
    assert_eq!(
        run(&["calltrace", dir, "--proc", "0"]),
        clean(&["calltrace", good, "--proc", "0"])
    );
    // The tree's title names the database: compare what follows it.
    let body = |t: String| t.split_once('\n').unwrap().1.to_owned();
    assert_eq!(
        body(run(&["calltree", dir, "--proc", "0"])),
        body(clean(&["calltree", good, "--proc", "0"]))
    );
    run(&["trace-summary", dir]);
    run(&["info", dir]);
    run(&["export", dir, "--chrome", chrome.to_str().unwrap()]);
    assert!(chrome.exists());
}

/// The same for a comm header: `nCommStats` of 461,168,601,842,738,790 for
/// a block of 961 records is read as the 961 there, the header line named.
#[test]
fn a_comm_record_count_past_its_data_file_reads_the_records_that_are_there() {
    let tmp = copy_db("small4");
    let header = tmp.path().join("bl_comm_prof_H_00000");
    let text = fs::read_to_string(&header).unwrap();
    let claim = "nCommStats  461168601842738790 ";
    fs::write(&header, text.replacen("nCommStats  961 ", claim, 1)).unwrap();
    assert!(fs::read_to_string(&header).unwrap().contains(claim));
    let dir = tmp.path().to_str().unwrap();
    let good = db("small4");
    let body = |t: &str| t.split_once('\n').unwrap().1.to_owned();
    for args in [vec!["comm", "stats"], vec!["comm", "waits"]] {
        let out = crate::common::output(&[&args[..], &[dir]].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {stderr}");
        assert!(
            stderr.contains("bl_comm_prof_H_00000:1: ")
                && stderr.contains("a damaged header or a cut data file; read as 961 records"),
            "{args:?}: {stderr}"
        );
        let clean = crate::common::run_ok(&[&args[..], &[good.to_str().unwrap()]].concat());
        assert_eq!(
            body(&String::from_utf8_lossy(&out.stdout)),
            body(&clean),
            "{args:?}"
        );
    }
}
