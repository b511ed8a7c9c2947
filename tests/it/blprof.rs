//! bl_prof integration tests: parity with amrprofparser's goldens on every
//! real fixture, the JSON/CSV contracts, determinism across thread counts,
//! and damaged databases.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use predicates::prelude::*;
use serde_json::Value;

use crate::common::{copy_db, fixture, json, profparse, run_ok};

/// One row of the reference's statistics table.
#[derive(Debug)]
struct GoldenRow {
    ncalls: i64,
    /// Min, Avg, Max, StdDev, CoeffVar (4 decimals), Percent (2 decimals).
    values: [f64; 6],
}

struct GoldenReport {
    rows: HashMap<String, GoldenRow>,
    total_timers: f64,
    calc_run_time: f64,
    percent_coverage: f64,
}

/// Reads the first (name-ordered) table and the totals of a `-ws` stdout.
fn golden_ws(path: &Path) -> GoldenReport {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines().skip_while(|l| !l.starts_with("Total times"));
    lines.next();
    lines.next(); // the column header
    let mut rows = HashMap::new();
    for l in lines.by_ref() {
        if l.trim().is_empty() {
            break;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        // name, ncalls, min, avg, max, stddev, cv, percent, "%"
        let n = f.len();
        assert_eq!(f[n - 1], "%", "{l}");
        let num = |i: usize| f[n - 8 + i].parse::<f64>().unwrap();
        rows.insert(
            f[..n - 8].join(" "),
            GoldenRow {
                ncalls: f[n - 8].parse().unwrap(),
                values: [num(1), num(2), num(3), num(4), num(5), num(6)],
            },
        );
    }
    let total = |key: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split('=').nth(1))
            .and_then(|v| v.split_whitespace().next())
            .unwrap()
            .parse()
            .unwrap()
    };
    GoldenReport {
        rows,
        total_timers: total("Total Timers"),
        calc_run_time: total("Calc Run Time"),
        percent_coverage: total("Percent Coverage"),
    }
}

/// `ours` printed with `decimals` decimals equals `golden` (half a unit of
/// the last printed digit, plus rounding noise).
fn agrees(ours: f64, golden: f64, decimals: i32) -> bool {
    (ours - golden).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-9
}

fn check_parity(db: &str, golden: &str, proc: usize) {
    let g = golden_ws(&fixture(db).join("golden").join(golden).join("stdout.txt"));
    let dbdir = fixture(db).join("bl_prof");
    let s = json(&[
        "summary",
        dbdir.to_str().unwrap(),
        "--format",
        "json",
        "--proc",
        &proc.to_string(),
    ]);
    let functions = s["functions"].as_array().unwrap();
    assert_eq!(functions.len(), g.rows.len(), "{db}: number of functions");
    for f in functions {
        // The reference prints names with spaces turned into `_`.
        let name = f["name"].as_str().unwrap().replace(' ', "_");
        let row = g
            .rows
            .get(&name)
            .unwrap_or_else(|| panic!("{db}: {name} not in golden"));
        assert_eq!(
            f["ncalls"].as_i64().unwrap(),
            row.ncalls,
            "{db} {name} ncalls"
        );
        for (i, key) in ["min", "avg", "max", "stddev", "coeff_var"]
            .iter()
            .enumerate()
        {
            let ours = f[key].as_f64().unwrap();
            assert!(
                agrees(ours, row.values[i], 4),
                "{db} {name} {key}: ours {ours}, reference {}",
                row.values[i]
            );
        }
        let pct = f["percent"].as_f64().unwrap();
        assert!(
            agrees(pct, row.values[5], 2),
            "{db} {name} percent: {pct} vs {}",
            row.values[5]
        );
    }
    assert!(agrees(
        s["total_timers"].as_f64().unwrap(),
        g.total_timers,
        2
    ));
    assert!(agrees(
        s["calc_run_time"].as_f64().unwrap(),
        g.calc_run_time,
        2
    ));
    assert!(agrees(
        s["percent_coverage"].as_f64().unwrap(),
        g.percent_coverage,
        2
    ));
}

fn summary_matches_reference_ws(db: &str) {
    check_parity(db, "ws", 0);
}

database_tests!(summary_matches_reference_ws);

fn summary_proc1_matches_reference_proc1_ws(db: &str) {
    check_parity(db, "proc1_ws", 1);
}

fixture_tests!(summary_proc1_matches_reference_proc1_ws: small4, nfiles2, flush, asym4, host_nid);

#[test]
fn summary_proc1_of_single_is_out_of_range() {
    // `single` has one process: the reference prints an error and falls back
    // to process 0; we refuse the out-of-range process with exit code 2.
    let dbdir = fixture("single").join("bl_prof");
    profparse()
        .args(["summary", dbdir.to_str().unwrap(), "--proc", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--proc 1 is out of range"));
}

#[test]
fn asym4_counts_depend_on_the_selected_process() {
    let dbdir = fixture("asym4").join("bl_prof");
    let get = |proc: &str| {
        let s = json(&[
            "summary",
            dbdir.to_str().unwrap(),
            "--format",
            "json",
            "--proc",
            proc,
        ]);
        let f = s["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "OddOnly()")
            .unwrap()
            .clone();
        (
            f["ncalls"].as_i64().unwrap(),
            f["ncalls_total"].as_i64().unwrap(),
        )
    };
    assert_eq!(get("0"), (0, 12));
    assert_eq!(get("1"), (6, 12));
    // The name with spaces is kept as written in our own output.
    let s = json(&["summary", dbdir.to_str().unwrap(), "--format", "json"]);
    assert!(
        s["functions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "Name with spaces(int, double)")
    );
}

fn reference_layout_is_byte_identical_except_for_dropped_ties(db: &str) {
    let golden = fs::read_to_string(fixture(db).join("golden/ws/stdout.txt")).unwrap();
    let ours = run_ok(&[
        "summary",
        fixture(db).join("bl_prof").to_str().unwrap(),
        "--format",
        "reference",
    ]);
    let section = |t: &str| -> Vec<String> {
        t.lines()
            .skip_while(|l| !l.starts_with("Total times"))
            .take_while(|l| !l.starts_with("====="))
            .map(str::to_owned)
            .collect()
    };
    let (g, o) = (section(&golden), section(&ours));
    // First table and the totals: identical up to the second "Total times".
    let second = |v: &[String]| {
        v.iter()
            .skip(1)
            .position(|l| l.starts_with("Total times"))
            .unwrap()
            + 1
    };
    assert_eq!(
        g[..second(&g)],
        o[..second(&o)],
        "{db}: name-ordered table and totals"
    );
    // Avg-ordered table: the reference's rows appear in ours, in order;
    // ours adds the rows the reference dropped for tying an earlier Avg.
    let mut it = o[second(&o)..].iter();
    for line in &g[second(&g)..] {
        assert!(
            it.any(|l| l == line),
            "{db}: missing or out of order: {line}"
        );
    }
}

database_tests!(reference_layout_is_byte_identical_except_for_dropped_ties);

#[test]
fn summary_json_contract() {
    let dbdir = fixture("small4").join("bl_prof");
    let s = json(&[
        "summary",
        dbdir.to_str().unwrap(),
        "--format",
        "json",
        "--sort",
        "avg",
        "--top",
        "3",
    ]);
    assert_eq!(s["nprocs"], 4);
    assert_eq!(s["sort"], "avg");
    let f = s["functions"].as_array().unwrap();
    assert_eq!(f.len(), 3);
    assert_eq!(f[0]["name"], "amrex_mempool_init()");
    for key in [
        "name",
        "ncalls",
        "ncalls_total",
        "min",
        "avg",
        "max",
        "stddev",
        "coeff_var",
        "percent",
        "min_proc",
        "max_proc",
        "imbalance",
    ] {
        assert!(f[0].get(key).is_some(), "missing {key}");
    }
    assert!(f[0]["avg"].as_f64().unwrap() >= f[1]["avg"].as_f64().unwrap());
    let imb = f[0]["imbalance"].as_f64().unwrap();
    assert!((imb - f[0]["max"].as_f64().unwrap() / f[0]["avg"].as_f64().unwrap()).abs() < 1e-12);
    for key in [
        "total_timers",
        "calc_run_time",
        "percent_coverage",
        "nprocs",
    ] {
        assert!(s.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn leaf_calls_and_exchange_ring_average_match_the_real_data_facts() {
    // BLPROF_REAL_DATA.md: Leaf() has 511 calls on rank 0 of small4 and
    // Exchange::ring has Avg 0.0108 s.
    let s = json(&[
        "summary",
        fixture("small4").join("bl_prof").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let f = |n: &str| {
        s["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(f("Leaf()")["ncalls"], 511);
    assert!(agrees(
        f("Exchange::ring")["avg"].as_f64().unwrap(),
        0.0108,
        4
    ));
}

#[test]
fn csv_has_one_row_per_function() {
    let out = run_ok(&[
        "summary",
        fixture("nfiles2").join("bl_prof").to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let mut r = csv::Reader::from_reader(out.as_bytes());
    let headers = r.headers().unwrap().clone();
    assert_eq!(&headers[0], "name");
    assert_eq!(&headers[4], "avg");
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 22);
    assert!(rows.iter().all(|r| r[4].parse::<f64>().is_ok()));
}

fn output_is_identical_at_one_and_two_threads(db: &str) {
    let dir = fixture(db).join("bl_prof");
    for format in ["json", "table", "csv"] {
        let a = run_ok(&["-j1", "summary", dir.to_str().unwrap(), "--format", format]);
        let b = run_ok(&["-j2", "summary", dir.to_str().unwrap(), "--format", format]);
        assert_eq!(a, b, "{db} {format}");
    }
}

database_tests!(output_is_identical_at_one_and_two_threads);

#[test]
fn table_output_and_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.txt");
    profparse()
        .args([
            "summary",
            fixture("small4").join("bl_prof").to_str().unwrap(),
            "--sort",
            "max",
            "--top",
            "2",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout("");
    let text = fs::read_to_string(out).unwrap();
    assert!(text.contains("Functions by maximum time"), "{text}");
    assert!(text.contains("Exchange::ring"));
    assert!(
        text.contains("Percent coverage            75.28 %"),
        "{text}"
    );
    assert!(!text.contains("Leaf()"), "--top 2 keeps two rows");
}

#[test]
fn info_reports_what_the_headers_hold() {
    let i = json(&[
        "info",
        fixture("small4").join("bl_prof").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(i["nprocs"], 4);
    assert_eq!(i["nfiles"], 4);
    assert_eq!(i["parts"], serde_json::json!(["base", "trace", "comm"]));
    assert_eq!(i["base"]["functions"].as_array().unwrap().len(), 22);
    assert_eq!(i["trace"]["blocks"], 4);
    // 5,876 call records including one sentinel per block.
    assert_eq!(i["trace"]["call_records"], 5876 - 4);
    assert_eq!(i["trace"]["region_records"], 852);
    assert_eq!(i["trace"]["regions"].as_array().unwrap().len(), 7);
    assert_eq!(i["comm"]["records"], 3834);
    assert_eq!(i["comm"]["barriers"], 100);
    assert_eq!(i["comm"]["name_tags"], 244);
    assert_eq!(i["comm"]["name_tag_names"], 23);
    assert_eq!(i["comm"]["hosts"], serde_json::json!(["vm"]));
    assert!(i["warnings"].as_array().unwrap().is_empty());

    let f = json(&[
        "info",
        fixture("flush").join("bl_prof").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(
        f["trace"]["blocks_per_proc"],
        serde_json::json!({"min": 6, "max": 6})
    );
    assert_eq!(
        f["comm"]["blocks_per_proc"],
        serde_json::json!({"min": 4, "max": 4})
    );
    assert_eq!(f["trace"]["call_records"], 2048 - 24);
    assert_eq!(f["comm"]["records"], 2355);
    assert_eq!(f["trace"]["data_files"], 2);

    let h = json(&[
        "info",
        fixture("host_nid").join("bl_prof").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(h["comm"]["hosts"], serde_json::json!(["nid001234"]));

    let text = run_ok(&["info", fixture("asym4").join("bl_prof").to_str().unwrap()]);
    assert!(text.contains("Processes  4"), "{text}");
}

// ---- damaged databases ------------------------------------------------------

fn edit(path: &Path, f: impl FnOnce(String) -> String) {
    let text = fs::read_to_string(path).unwrap();
    fs::write(path, f(text)).unwrap();
}

fn summary_json_of(dir: &Path) -> (Value, String) {
    let out = profparse()
        .args(["summary", dir.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    // 3 = report produced from damaged input (docs/ERRORS.md).
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn missing_directory_and_non_database_exit_2() {
    profparse()
        .args(["summary", "/no/such/bl_prof"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/no/such/bl_prof"));
    let empty = tempfile::tempdir().unwrap();
    profparse()
        .args(["info", empty.path().to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a bl_prof database"));
    profparse().args(["summary"]).assert().code(2);
}

#[test]
fn garbage_base_header_is_a_clear_error() {
    let db = copy_db("small4");
    fs::write(
        db.path().join("bl_prof_H"),
        b"\x7fELF\x02\x01\x01garbage\n\x00\x00\x00\n",
    )
    .unwrap();
    profparse()
        .args(["summary", db.path().to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(
            predicates::str::contains("bl_prof_H")
                .and(predicates::str::contains("not a bl_prof base header")),
        );
}

#[test]
fn seek_position_past_the_end_drops_that_process_only() {
    let db = copy_db("small4");
    edit(&db.path().join("bl_prof_H"), |t| {
        t.replace(
            "BLProfProc 2 datafile bl_prof_D_00002 seekpos 0",
            "BLProfProc 2 datafile bl_prof_D_00002 seekpos 4096",
        )
    });
    let (s, stderr) = summary_json_of(db.path());
    assert!(
        stderr.contains("bl_prof_D_00002: byte offset 4096"),
        "{stderr}"
    );
    assert!(stderr.contains("process 2 left out"), "{stderr}");
    assert_eq!(s["nprocs"], 3);
    // Leaf() calls on processes 0, 1, 3: 511 + 636 + 511 (rank 2 had 761).
    let leaf = s["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "Leaf()")
        .unwrap()
        .clone();
    let full = json(&[
        "summary",
        fixture("small4").join("bl_prof").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let full_leaf = full["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "Leaf()")
        .unwrap()
        .clone();
    assert!(leaf["ncalls_total"].as_i64().unwrap() < full_leaf["ncalls_total"].as_i64().unwrap());
    assert_ne!(leaf["max_proc"], 2);
    // --strict makes the warning an error.
    profparse()
        .args(["--strict", "summary", db.path().to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--strict"));
}

#[test]
fn truncated_and_missing_data_files_are_reported_by_name() {
    let db = copy_db("nfiles2");
    // Ranks 0 and 1 share bl_prof_D_00000 (352 bytes each): cut rank 1's block.
    let f = db.path().join("bl_prof_D_00000");
    let bytes = fs::read(&f).unwrap();
    fs::write(&f, &bytes[..500]).unwrap();
    fs::remove_file(db.path().join("bl_prof_D_00001")).unwrap();
    let (s, stderr) = summary_json_of(db.path());
    assert!(
        stderr.contains("bl_prof_D_00000: byte offset 352"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bl_prof_D_00001") && stderr.contains("processes 2, 3 left out"),
        "{stderr}"
    );
    assert_eq!(s["nprocs"], 1);
    // A directory where a data file should be.
    let db = copy_db("small4");
    fs::remove_file(db.path().join("bl_prof_D_00003")).unwrap();
    fs::create_dir(db.path().join("bl_prof_D_00003")).unwrap();
    let (s, stderr) = summary_json_of(db.path());
    assert!(
        stderr.contains("bl_prof_D_00003") && stderr.contains("directory"),
        "{stderr}"
    );
    assert_eq!(s["nprocs"], 3);
}

#[test]
fn header_damage_becomes_warnings_with_line_numbers() {
    let db = copy_db("small4");
    edit(&db.path().join("bl_prof_H"), |t| {
        t.replace("NOutFiles  4\n", "NOutFiles  4\nWhatIsThis 12\n")
            .replace("BLProfProc 3 datafile bl_prof_D_00003 seekpos 0\n", "")
    });
    edit(&db.path().join("bl_comm_prof_H"), |t| {
        t.replace("NProcs  4", "NProcs  5")
    });
    let (s, stderr) = summary_json_of(db.path());
    assert!(
        stderr.contains("bl_prof_H:4: unrecognised line ignored"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 of 4 processes have no BLProfProc line (3)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("NProcs 5 disagrees with NProcs 4"),
        "{stderr}"
    );
    assert_eq!(s["nprocs"], 3);
    assert_eq!(s["warnings"].as_array().unwrap().len(), 3);
}

#[test]
fn huge_counts_do_not_allocate_or_hang() {
    let db = copy_db("small4");
    edit(&db.path().join("bl_prof_H"), |t| {
        t.replace("NProcs  4", "NProcs  1000000000")
    });
    edit(&db.path().join("bl_comm_prof_H_00000"), |t| {
        t.replacen("nCommStats  ", "nCommStats  4611686018427387904", 1)
    });
    let (s, stderr) = summary_json_of(db.path());
    assert!(
        stderr.contains("999999996 of 1000000000 processes have no BLProfProc line"),
        "{stderr}"
    );
    assert_eq!(s["nprocs"], 4);
    let out = profparse()
        .args(["info", db.path().to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bl_comm_prof_H_00000:1"), "{stderr}");
}

#[test]
fn database_with_only_some_parts_is_normal() {
    let db = copy_db("single");
    for e in fs::read_dir(db.path()).unwrap() {
        let p = e.unwrap().path();
        let n = p.file_name().unwrap().to_str().unwrap().to_owned();
        if n.starts_with("bl_comm_prof") || n.starts_with("bl_call_stats") {
            fs::remove_file(p).unwrap();
        }
    }
    let i = json(&["info", db.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(i["parts"], serde_json::json!(["base"]));
    assert!(i["trace"].is_null());
    run_ok(&["summary", db.path().to_str().unwrap()]);
    // Only a comm part: summary has nothing to summarise.
    let db = copy_db("single");
    fs::remove_file(db.path().join("bl_prof_H")).unwrap();
    profparse()
        .args(["summary", db.path().to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no base profile"));
}

#[test]
fn closed_stdout_pipe_is_not_an_error() {
    use std::io::Read;
    use std::process::{Command as Std, Stdio};
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("profparse"))
        .args([
            "info",
            fixture("small4").join("bl_prof").to_str().unwrap(),
            "--format",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
}
