//! Call-trace integration tests: `trace-summary` against amrprofparser's
//! intended `-wts` output (the `__batchfix` goldens: the pristine tool
//! crashes, BLPROF_FORMAT.md §9 bug 14), region filters, `regions`.

use std::fs;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::Value;

use crate::common::{fixture, profparse, run_ok};

fn filters(name: &str) -> PathBuf {
    fixture("filters").join(name)
}

/// The golden run's report: from the first "Total times" to the end of
/// the inclusive table.
fn report(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("Total times"))
        .map(str::to_owned)
        .collect();
    if let Some(end) = v.iter().rposition(|l| l.starts_with("=====")) {
        v.truncate(end + 1);
    }
    v
}

/// Splits a report into (name table + totals, Avg table, depth/recursion
/// lines, inclusive rows).
fn sections(lines: &[String]) -> (Vec<String>, Vec<String>, Vec<String>, Vec<String>) {
    let second = 1 + lines[1..]
        .iter()
        .position(|l| l.starts_with("Total times"))
        .unwrap();
    let avg_end = second
        + lines[second..]
            .iter()
            .position(|l| l.starts_with("====="))
            .unwrap();
    let incl = lines
        .iter()
        .position(|l| l.starts_with("Inclusive times"))
        .unwrap();
    let facts = lines[avg_end + 1..incl]
        .iter()
        .filter(|l| !l.trim().is_empty())
        .cloned()
        .collect();
    let incl_rows = lines[incl + 2..lines.len() - 1].to_vec();
    (
        lines[..second].to_vec(),
        lines[second..avg_end].to_vec(),
        facts,
        incl_rows,
    )
}

fn check(db: &str, golden: &str, extra: &[&str]) {
    let g = fs::read_to_string(fixture(db).join("golden").join(golden).join("stdout.txt")).unwrap();
    let dir = fixture(db).join("bl_prof");
    let mut args = vec![
        "-q",
        "trace-summary",
        dir.to_str().unwrap(),
        "--format",
        "reference",
    ];
    args.extend_from_slice(extra);
    let ours = run_ok(&args);
    let (g1, g2, g3, g4) = sections(&report(&g));
    let (o1, o2, o3, o4) = sections(&report(&ours));
    assert_eq!(g1, o1, "{db} {golden}: name-ordered table and totals");
    // Our Avg table lists the rows the reference drops for tying an earlier Avg.
    let mut it = o2.iter();
    for line in &g2 {
        assert!(
            it.any(|l| l == line),
            "{db} {golden}: Avg table row missing or out of order: {line}"
        );
    }
    assert_eq!(
        g3, o3,
        "{db} {golden}: MaxCallStackDepth and recursive functions"
    );
    // Functions with equal printed inclusive time may come in either order.
    let mut gs = g4.clone();
    let mut os = o4.clone();
    gs.sort();
    os.sort();
    assert_eq!(gs, os, "{db} {golden}: inclusive times");
}

fn trace_summary_matches_intended_wts(db: &str) {
    check(db, "wts__batchfix", &[]);
}

test_program_database_tests!(trace_summary_matches_intended_wts);

fn trace_summary_proc1_matches_intended_proc1_wts(db: &str) {
    check(db, "proc1_wts__batchfix", &["--proc", "1"]);
}

// `single` has one process: no process 1.
fixture_tests!(
    trace_summary_proc1_matches_intended_proc1_wts: small4, nfiles2, flush, asym4, host_nid
);

fn region_filter_files_match_intended_filtered_wts(db: &str) {
    let exclude = filters("exclude_RComm.txt");
    let include = filters("include_only_RCompute.txt");
    check(
        db,
        "wts_filter_excludeRComm__batchfix",
        &["--filter-file", exclude.to_str().unwrap()],
    );
    check(
        db,
        "wts_filter_includeOnlyRCompute__batchfix",
        &["--filter-file", include.to_str().unwrap()],
    );
}

test_program_database_tests!(region_filter_files_match_intended_filtered_wts);

#[test]
fn region_options_equal_the_filter_files() {
    let dir = fixture("flush").join("bl_prof");
    let d = dir.to_str().unwrap();
    let by_file = run_ok(&[
        "-q",
        "trace-summary",
        d,
        "--format",
        "json",
        "--filter-file",
        filters("exclude_RComm.txt").to_str().unwrap(),
    ]);
    let by_opt = run_ok(&[
        "-q",
        "trace-summary",
        d,
        "--format",
        "json",
        "--exclude-region",
        "R::Comm",
    ]);
    let strip = |s: &str| {
        let mut v: Value = serde_json::from_str(s).unwrap();
        v.as_object_mut().unwrap().remove("region_filter");
        v
    };
    assert_eq!(strip(&by_file), strip(&by_opt));
    let by_file = run_ok(&[
        "-q",
        "trace-summary",
        d,
        "--format",
        "json",
        "--filter-file",
        filters("include_only_RCompute.txt").to_str().unwrap(),
    ]);
    let by_glob = run_ok(&[
        "-q",
        "trace-summary",
        d,
        "--format",
        "json",
        "--include-region",
        "R::Comp*",
    ]);
    assert_eq!(strip(&by_file), strip(&by_glob));
}

#[test]
fn trace_summary_json_contract() {
    let dir = fixture("small4").join("bl_prof");
    let v: Value = serde_json::from_str(&run_ok(&[
        "trace-summary",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    for key in [
        "functions",
        "inclusive",
        "max_call_stack_depth",
        "recursive_functions",
        "calc_run_time",
        "range_run_time",
        "total_timers",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["max_call_stack_depth"], 9);
    assert_eq!(v["recursive_functions"], serde_json::json!(["Recurse()"]));
    // calcRunTime rangeRunTime = 0.058722716  0.066414904 in the golden.
    assert!((v["calc_run_time"].as_f64().unwrap() - 0.058722716).abs() < 1e-9);
    assert!((v["range_run_time"].as_f64().unwrap() - 0.066414904).abs() < 1e-9);
    let f = &v["functions"].as_array().unwrap()[0];
    for key in [
        "name",
        "ncalls",
        "min",
        "avg",
        "max",
        "stddev",
        "coeff_var",
        "percent",
    ] {
        assert!(f.get(key).is_some(), "missing {key}");
    }
    let main = v["inclusive"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "main()")
        .unwrap()
        .clone();
    assert!((main["time"].as_f64().unwrap() - 0.0274).abs() < 5e-5);
}

fn trace_reports_are_identical_at_one_and_two_threads(db: &str) {
    let dir = fixture(db).join("bl_prof");
    for args in [
        vec!["trace-summary", dir.to_str().unwrap(), "--format", "json"],
        vec![
            "trace-summary",
            dir.to_str().unwrap(),
            "--exclude-region",
            "__NoRegion__",
        ],
        vec!["regions", dir.to_str().unwrap(), "--format", "json"],
    ] {
        let a = run_ok(&[&["-j1"], &args[..]].concat());
        let b = run_ok(&[&["-j2"], &args[..]].concat());
        assert_eq!(a, b, "{db} {args:?}");
    }
}

database_tests!(trace_reports_are_identical_at_one_and_two_threads);

#[test]
fn regions_report_and_filter_template() {
    let dir = fixture("small4").join("bl_prof");
    let tmp = tempfile::tempdir().unwrap();
    let tpl = tmp.path().join("RegionFilters.txt");
    let v: Value = serde_json::from_str(&run_ok(&[
        "regions",
        dir.to_str().unwrap(),
        "--format",
        "json",
        "--proc",
        "0",
        "--write-filter-file",
        tpl.to_str().unwrap(),
    ]))
    .unwrap();
    let regions = v["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 7);
    let step = regions.iter().find(|r| r["name"] == "R::Step").unwrap();
    // 20 steps on each of 4 processes.
    assert_eq!(step["count"], 80);
    assert_eq!(step["number"], 2);
    assert!(step["total"].as_f64().unwrap() > 0.0);
    let ranges = v["ranges"].as_array().unwrap();
    assert!(ranges.iter().filter(|r| r["region"] == "R::Step").count() == 20);
    // The reference's -mff writes only the first two lines (bug); we list every region.
    let golden =
        fs::read_to_string(fixture("small4").join("golden/mff/RegionFilters.txt")).unwrap();
    let ours = fs::read_to_string(&tpl).unwrap();
    assert!(ours.starts_with(&golden), "{ours}");
    assert!(
        ours.contains(": \"__NoRegion__\" 0\n") && ours.contains(": \"R::Final\" 6\n"),
        "{ours}"
    );
    // The template is a valid filter file that selects everything.
    let all = run_ok(&[
        "-q",
        "trace-summary",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let with = run_ok(&[
        "-q",
        "trace-summary",
        dir.to_str().unwrap(),
        "--format",
        "json",
        "--filter-file",
        tpl.to_str().unwrap(),
    ]);
    let f = |s: &str| serde_json::from_str::<Value>(s).unwrap()["functions"].clone();
    assert_eq!(f(&all), f(&with));
}

#[test]
fn bad_region_names_and_filter_files_are_usage_errors() {
    let dir = fixture("small4").join("bl_prof");
    profparse()
        .args([
            "trace-summary",
            dir.to_str().unwrap(),
            "--include-region",
            "NoSuchRegion",
        ])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("no region matches")
                .and(predicate::str::contains("R::Compute")),
        );
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("F.txt");
    fs::write(&f, "__IncludeAll__\n- R::Comm 4\n").unwrap();
    profparse()
        .args([
            "trace-summary",
            dir.to_str().unwrap(),
            "--filter-file",
            f.to_str().unwrap(),
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("F.txt:2"));
}

#[test]
fn damaged_trace_block_leaves_the_other_blocks() {
    let tmp = tempfile::tempdir().unwrap();
    for e in fs::read_dir(fixture("flush").join("bl_prof")).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
    }
    // Point process 3's last block past the end of its data file.
    let h = tmp.path().join("bl_call_stats_H_00001");
    let text = fs::read_to_string(&h).unwrap();
    let at = text.rfind("CallStatsProc 3 ").unwrap();
    let line_end = at + text[at..].find('\n').unwrap();
    let line = &text[at..line_end];
    let seek = line.rsplit("seekpos  ").next().unwrap();
    let damaged = line.replace(&format!("seekpos  {seek}"), "seekpos  99999999");
    fs::write(
        &h,
        format!("{}{}{}", &text[..at], damaged, &text[line_end..]),
    )
    .unwrap();
    let out = profparse()
        .args([
            "trace-summary",
            tmp.path().to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "partial result");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bl_call_stats_D_00001: byte offset 99999999"),
        "{stderr}"
    );
    assert!(stderr.contains("process 3"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nprocs"], 4);
    profparse()
        .args(["--strict", "trace-summary", tmp.path().to_str().unwrap()])
        .assert()
        .code(1);
}

#[test]
fn database_without_traces_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    fs::copy(
        fixture("single").join("bl_prof/bl_prof_H"),
        tmp.path().join("bl_prof_H"),
    )
    .unwrap();
    profparse()
        .args(["trace-summary", tmp.path().to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("TRACE_PROFILE"));
}

fn calltrace_is_byte_identical_to_ttrace(db: &str) {
    let dir = fixture(db).join("bl_prof");
    let ours = run_ok(&["calltrace", dir.to_str().unwrap(), "--reference-names"]);
    let golden = fs::read_to_string(fixture(db).join("golden/ttrace/CallTrace.txt")).unwrap();
    assert!(ours == golden, "{db}: calltrace differs from CallTrace.txt");
}

database_tests!(calltrace_is_byte_identical_to_ttrace);

#[test]
fn calltrace_keeps_our_names_and_lists_every_call() {
    // Our own names keep their spaces; --no-combine lists every call.
    let dir = fixture("asym4").join("bl_prof");
    let ours = run_ok(&["calltrace", dir.to_str().unwrap(), "--delimiter", ";"]);
    assert!(ours.contains(";Name with spaces(int, double);"));
    let all = run_ok(&["calltrace", dir.to_str().unwrap(), "--no-combine"]);
    assert!(all.lines().count() >= ours.lines().count());
}

/// `(path, calls, inclusive, exclusive)` of every node of an htmlnc page.
fn htmlnc_nodes(path: &Path) -> Vec<(String, u64, f64, f64)> {
    let text = fs::read_to_string(path).unwrap();
    let mut stack: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| l.contains(" :: ") && !l.starts_with("<h3>"))
    {
        let inner = line
            .trim_start_matches("<li>")
            .trim_end_matches("</li>")
            .trim_end_matches("</a>");
        let inner = inner.rsplit('>').next().unwrap();
        let f: Vec<&str> = inner.split(" :: ").collect();
        let depth: usize = f[6].trim().parse().unwrap();
        stack.truncate(depth);
        stack.push(f[1].to_owned());
        out.push((
            stack.join(" > "),
            f[5].trim().parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        ));
    }
    out
}

fn flatten(v: &Value, prefix: &str, out: &mut Vec<(String, u64, f64, f64)>) {
    for n in v.as_array().unwrap() {
        let path = if prefix.is_empty() {
            n["name"].as_str().unwrap().replace(' ', "_")
        } else {
            format!(
                "{prefix} > {}",
                n["name"].as_str().unwrap().replace(' ', "_")
            )
        };
        out.push((
            path.clone(),
            n["calls"].as_u64().unwrap(),
            n["inclusive"].as_f64().unwrap(),
            n["exclusive"].as_f64().unwrap(),
        ));
        flatten(&n["children"], &path, out);
    }
}

fn calltree_of_process_0_matches_htmlnc(db: &str) {
    let golden = htmlnc_nodes(&fixture(db).join("golden/htmlnc/CallTraceNC.html"));
    let dir = fixture(db).join("bl_prof");
    let v: Value = serde_json::from_str(&run_ok(&[
        "calltree",
        dir.to_str().unwrap(),
        "--proc",
        "0",
        "--format",
        "json",
    ]))
    .unwrap();
    let mut ours = Vec::new();
    flatten(&v["roots"], "", &mut ours);
    assert_eq!(ours.len(), golden.len(), "{db}: number of call paths");
    let close = |a: f64, b: f64| (a - b).abs() <= 5e-6 * b.abs().max(a.abs()) + 1e-12;
    for (path, calls, incl, excl) in &golden {
        let o = ours
            .iter()
            .find(|o| &o.0 == path)
            .unwrap_or_else(|| panic!("{db}: {path} missing"));
        assert_eq!(o.1, *calls, "{db} {path}: calls");
        assert!(
            close(o.2, *incl),
            "{db} {path}: inclusive {} vs {incl}",
            o.2
        );
        assert!(
            close(o.3, *excl),
            "{db} {path}: exclusive {} vs {excl}",
            o.3
        );
    }
}

database_tests!(calltree_of_process_0_matches_htmlnc);

#[test]
fn calltree_merged_formats_and_bounds() {
    let dir = fixture("small4").join("bl_prof");
    let d = dir.to_str().unwrap();
    let v: Value = serde_json::from_str(&run_ok(&["calltree", d, "--format", "json"])).unwrap();
    assert_eq!(v["nprocs"], 4);
    let main = v["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "main()")
        .unwrap();
    assert_eq!(main["calls"], 4);
    assert_eq!(main["procs"], 4);
    for key in [
        "name",
        "calls",
        "inclusive",
        "exclusive",
        "children",
        "inclusive_max",
        "max_proc",
        "untimed",
    ] {
        assert!(main.get(key).is_some(), "missing {key}");
    }
    // Leaf() under Compute() and under Exchange::ring are different nodes.
    let text = run_ok(&["calltree", d]);
    assert!(text.matches("Leaf()").count() >= 3, "{text}");
    // Inclusive ≥ Σ children everywhere in real data: no warning.
    profparse()
        .args(["calltree", d])
        .assert()
        .success()
        .stderr("");
    // --depth 0 shows only the outermost calls.
    let top = run_ok(&["calltree", d, "--depth", "0"]);
    assert!(!top.contains("Step()"), "{top}");
    // Folded stacks: `a;b;c <µs>` with whole microseconds.
    let folded = run_ok(&["calltree", d, "--format", "folded"]);
    assert!(folded.lines().all(|l| {
        let (stack, n) = l.rsplit_once(' ').unwrap();
        !stack.is_empty() && n.parse::<u64>().is_ok()
    }));
    assert!(
        folded.contains("main();Step();Exchange();Exchange::ring "),
        "{folded}"
    );
    // HTML: one self-contained page.
    let html = run_ok(&["calltree", d, "--format", "html"]);
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert_eq!(
        html.matches("<details").count(),
        html.matches("</details>").count()
    );
    assert!(!html.contains("http://") && !html.contains("https://"));
    // A region filter narrows the tree to calls inside R::Compute.
    let only = run_ok(&[
        "calltree",
        d,
        "--include-region",
        "R::Compute",
        "--format",
        "folded",
    ]);
    assert!(!only.contains("Exchange::ring"), "{only}");
    assert!(only.contains("Work()"), "{only}");
}

/// Σ calls, inclusive and exclusive per (name, depth) of a list of
/// `(name, depth, calls, inclusive, exclusive)`.
fn sums(
    items: impl Iterator<Item = (String, u64, u64, f64, f64)>,
) -> std::collections::BTreeMap<(String, u64), (u64, f64, f64)> {
    let mut m = std::collections::BTreeMap::new();
    for (name, depth, calls, incl, excl) in items {
        let e = m.entry((name, depth)).or_insert((0, 0.0, 0.0));
        e.0 += calls;
        e.1 += incl;
        e.2 += excl;
    }
    m
}

fn calltrace_agrees_with_the_intended_html_call_trace(db: &str) {
    // The reference's -html crashes; its intended page is wts_html__batchfix.
    // Combining differs between the two, so compare sums per function and depth.
    let html =
        fs::read_to_string(fixture(db).join("golden/wts_html__batchfix/CallTrace.html")).unwrap();
    let golden = sums(
        html.lines()
            .filter(|l| l.contains(" :: ") && !l.starts_with("<h3>"))
            .map(|l| {
                let inner = l
                    .trim_start_matches("<li>")
                    .trim_end_matches("</li>")
                    .trim_end_matches("</a>");
                let f: Vec<String> = inner
                    .rsplit('>')
                    .next()
                    .unwrap()
                    .split(" :: ")
                    .map(str::to_owned)
                    .collect();
                (
                    f[1].clone(),
                    f[6].parse().unwrap(),
                    f[5].parse().unwrap(),
                    f[2].parse().unwrap(),
                    f[3].parse().unwrap(),
                )
            }),
    );
    let dir = fixture(db).join("bl_prof");
    let text = run_ok(&[
        "calltrace",
        dir.to_str().unwrap(),
        "--no-combine",
        "--reference-names",
    ]);
    let ours = sums(text.lines().skip(2).map(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        (
            f[2].to_owned(),
            f[6].parse().unwrap(),
            f[5].parse().unwrap(),
            f[3].parse().unwrap(),
            f[4].parse().unwrap(),
        )
    }));
    assert_eq!(
        golden.keys().collect::<Vec<_>>(),
        ours.keys().collect::<Vec<_>>(),
        "{db}"
    );
    for (k, g) in &golden {
        let o = ours[k];
        assert_eq!(o.0, g.0, "{db} {k:?} calls");
        // The page prints 6 significant digits per item; sums carry the rounding.
        let tol = |v: f64| 1e-5 * v.abs() + 1e-9;
        assert!(
            (o.1 - g.1).abs() <= tol(g.1),
            "{db} {k:?} inclusive {} vs {}",
            o.1,
            g.1
        );
        assert!(
            (o.2 - g.2).abs() <= tol(g.2),
            "{db} {k:?} exclusive {} vs {}",
            o.2,
            g.2
        );
    }
}

test_program_database_tests!(calltrace_agrees_with_the_intended_html_call_trace);

#[test]
fn chrome_export_follows_the_trace_event_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t.json");
    let dir = fixture("flush").join("bl_prof");
    run_ok(&[
        "export",
        dir.to_str().unwrap(),
        "--chrome",
        out.to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_slice(&fs::read(&out).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let calls = events.iter().filter(|e| e["cat"] == "call").count();
    let info: Value = serde_json::from_str(&run_ok(&[
        "info",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(
        calls as u64,
        info["trace"]["call_records"].as_u64().unwrap(),
        "one X event per call record"
    );
    assert!(events.iter().any(|e| e["cat"] == "region" && e["tid"] == 1));
    for e in events.iter().filter(|e| e["ph"] == "X") {
        assert!(
            e["ts"].as_f64().is_some() && e["dur"].as_f64().unwrap() >= 0.0,
            "{e}"
        );
        assert!(
            e["pid"].as_u64().is_some() && e["tid"].as_u64().is_some(),
            "{e}"
        );
    }
    // A window and a process keep the output small.
    run_ok(&[
        "export",
        dir.to_str().unwrap(),
        "--chrome",
        out.to_str().unwrap(),
        "--proc",
        "2",
        "--time",
        "0.3..0.35",
    ]);
    let v: Value = serde_json::from_slice(&fs::read(&out).unwrap()).unwrap();
    let xs: Vec<&Value> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .collect();
    assert!(!xs.is_empty() && xs.len() < calls);
    for e in xs {
        assert_eq!(e["pid"], 2);
        let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
        assert!(ts <= 0.35e6 && ts + dur >= 0.3e6, "{e}");
    }
    profparse()
        .args([
            "export",
            dir.to_str().unwrap(),
            "--chrome",
            out.to_str().unwrap(),
            "--time",
            "5..1",
        ])
        .assert()
        .code(2);
}
