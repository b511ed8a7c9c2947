//! `profparse regress --base … --new …`: verdicts and exit codes end to
//! end, on families of TinyProfiler job logs written by `profparse synth
//! tinyprofiler` (runs of one job with 1 % noise, chosen timers shifted),
//! and the refusals (mixed kinds, `--paths` without paths).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{db, json_expect, output, run_expect, run_ok, s, timer_tree};

const TIMERS: &str = "20";

/// Writes `count` runs `DIR/NAME-i.log` of the 20-timer job, seeds from
/// `seed`, with `slower` (`I:F`) applied when given.
fn runs(dir: &Path, name: &str, count: u64, seed: u64, slower: Option<&str>) -> Vec<PathBuf> {
    (0..count)
        .map(|i| {
            let path = dir.join(format!("{name}-{i}.log"));
            let seed = (seed + i).to_string();
            let mut args = vec![
                "synth",
                "tinyprofiler",
                s(&path),
                "--timers",
                TIMERS,
                "--noise",
                "0.01",
                "--seed",
                &seed,
            ];
            if let Some(sl) = slower {
                args.extend(["--slower", sl]);
            }
            run_ok(&args);
            path
        })
        .collect()
}

fn regress_args<'a>(base: &'a [PathBuf], new: &'a [PathBuf], extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["regress", "--base"];
    args.extend(base.iter().map(|p| s(p)));
    args.push("--new");
    args.extend(new.iter().map(|p| s(p)));
    args.extend(extra);
    args
}

fn timer<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["timers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {doc}"))
}

fn verdicts(doc: &Value, verdict: &str) -> Vec<String> {
    doc["timers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == verdict)
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_slower_timer_fails_the_gate_and_nothing_else_is_flagged() {
    let tmp = tempfile::tempdir().unwrap();
    let base = runs(tmp.path(), "base", 8, 1, None);
    let new = runs(tmp.path(), "new", 8, 101, Some("5:1.05"));
    let doc = json_expect(&regress_args(&base, &new, &["--format", "json"]), &[1]);
    assert_eq!(verdicts(&doc, "slower"), ["Timer0005::run()"]);
    assert!(verdicts(&doc, "faster").is_empty());
    let t = timer(&doc, "Timer0005::run()");
    let (change, lo, hi) = (
        t["change"].as_f64().unwrap(),
        t["ci_low"].as_f64().unwrap(),
        t["ci_high"].as_f64().unwrap(),
    );
    assert!(lo <= change && change <= hi, "{t}");
    assert!((0.03..0.07).contains(&change), "{t}");
    assert!(
        t["q"].as_f64().unwrap() < 0.05 && t["p"].as_f64().unwrap() <= t["q"].as_f64().unwrap()
    );
    assert_eq!(doc["timers"].as_array().unwrap().len(), 20);
    assert_eq!(doc["evidence"], "runs");
    assert_eq!(doc["summary"]["slower"], 1);
    // The table for people says the same, and exits the same.
    let table = run_expect(&regress_args(&base, &new, &[]), &[1]);
    let row = table.lines().find(|l| l.contains("Timer0005")).unwrap();
    assert!(row.contains("slower"), "{table}");
}

#[test]
fn runs_of_the_same_code_pass_and_a_faster_timer_is_no_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let base = runs(tmp.path(), "base", 8, 1, None);
    let same = runs(tmp.path(), "same", 8, 201, None);
    let doc = json_expect(&regress_args(&base, &same, &["--format", "json"]), &[0]);
    assert!(verdicts(&doc, "slower").is_empty(), "{doc}");
    assert!(verdicts(&doc, "faster").is_empty(), "{doc}");
    let faster = runs(tmp.path(), "faster", 8, 301, Some("2:0.9"));
    let doc = json_expect(&regress_args(&base, &faster, &["--format", "json"]), &[0]);
    assert_eq!(verdicts(&doc, "faster"), ["Timer0002::run()"]);
    assert!(verdicts(&doc, "slower").is_empty());
}

#[test]
fn the_noise_floor_and_alpha_are_obeyed() {
    let tmp = tempfile::tempdir().unwrap();
    let base = runs(tmp.path(), "base", 8, 1, None);
    let new = runs(tmp.path(), "new", 8, 101, Some("5:1.05"));
    // A 5 % slowdown under a 10 % floor is no regression.
    let doc = json_expect(
        &regress_args(&base, &new, &["--format", "json", "--min-change", "0.1"]),
        &[0],
    );
    assert!(verdicts(&doc, "slower").is_empty());
    assert_eq!(doc["min_change"], 0.1);
    // Nor at an alpha smaller than any p 8 vs 8 runs can give.
    json_expect(
        &regress_args(&base, &new, &["--format", "json", "--alpha", "0.0001"]),
        &[0],
    );
    for bad in [
        &["--alpha", "0"][..],
        &["--alpha", "1.5"],
        &["--min-change", "-1"],
    ] {
        let out = output(&regress_args(&base, &new, bad));
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn one_run_per_side_never_claims_a_regression() {
    let tmp = tempfile::tempdir().unwrap();
    let base = runs(tmp.path(), "base", 1, 1, None);
    let new = runs(tmp.path(), "new", 1, 101, Some("5:1.5"));
    let doc = json_expect(&regress_args(&base, &new, &["--format", "json"]), &[0]);
    assert_eq!(doc["evidence"], "none");
    let t = timer(&doc, "Timer0005::run()");
    assert_eq!(t["verdict"], "noisy");
    assert!(t["p"].is_null() && t["ci_low"].is_null());
    assert!(t["runs_needed"].as_u64().unwrap() >= 4);
    let table = run_ok(&regress_args(&base, &new, &[]));
    assert!(table.contains("run-to-run noise is unknown"), "{table}");
    // A database has per-process times: they give p and an interval, but
    // still no verdict beyond "too noisy to tell".
    let (a, b) = (db("small4"), db("asym4"));
    let doc = json(&[
        "regress",
        "--base",
        s(&a),
        "--new",
        s(&b),
        "--format",
        "json",
    ]);
    assert_eq!(doc["evidence"], "processes");
    assert!(verdicts(&doc, "slower").is_empty() && verdicts(&doc, "faster").is_empty());
    assert!(
        doc["timers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["p"].is_number())
    );
}

fn json(args: &[&str]) -> Value {
    json_expect(args, &[0])
}

#[test]
fn call_paths_of_timer_trees() {
    let tt = timer_tree("doc_example.json");
    // Four runs a side: the fewest with a 95 % interval.
    let four = [tt.clone(), tt.clone(), tt.clone(), tt.clone()];
    let doc = json(&regress_args(
        &four,
        &four,
        &["--paths", "--format", "json"],
    ));
    assert_eq!(doc["by"], "path");
    let timers = doc["timers"].as_array().unwrap();
    assert!(!timers.is_empty());
    // Identical runs: every path unchanged (interval 0 … 0), p = 1.
    for t in timers {
        assert_eq!(t["verdict"], "unchanged", "{t}");
        assert_eq!(t["p"], 1.0);
        assert!(t["path"].is_array());
    }
}

#[test]
fn mixed_kinds_and_missing_paths_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = runs(tmp.path(), "base", 2, 1, None);
    let tt = timer_tree("doc_example.json");
    let out = output(&regress_args(&logs, std::slice::from_ref(&tt), &[]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("same kind") && err.contains("doc_example.json"),
        "{err}"
    );
    let out = output(&regress_args(&logs, &logs, &["--paths"]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no call paths") && err.contains("base-0.log"),
        "{err}"
    );
    let out = output(&["regress", "--base", s(&logs[0])]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn markdown_and_junit_say_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let base = runs(tmp.path(), "base", 8, 1, None);
    let new = runs(tmp.path(), "new", 8, 101, Some("5:1.08"));
    let md = run_expect(&regress_args(&base, &new, &["--format", "markdown"]), &[1]);
    assert!(
        md.starts_with("### profparse regress: **Performance regression**"),
        "{md}"
    );
    let row = md.lines().find(|l| l.contains("Timer0005")).unwrap();
    assert!(
        row.starts_with("| Timer0005::run() |") && row.ends_with("| **slower** |"),
        "{md}"
    );
    let xml = run_expect(&regress_args(&base, &new, &["--format", "junit"]), &[1]);
    assert!(xml.starts_with("<?xml"));
    assert_eq!(xml.matches("<testcase ").count(), 20);
    assert_eq!(xml.matches("<failure ").count(), 1);
    let failed = xml
        .split("<testcase ")
        .find(|c| c.contains("<failure"))
        .unwrap();
    assert!(failed.contains("name=\"Timer0005::run()\""), "{failed}");
    assert!(xml.trim_end().ends_with("</testsuites>"));
}

#[test]
fn the_same_output_at_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let base = runs(tmp.path(), "base", 8, 1, None);
    let new = runs(tmp.path(), "new", 8, 101, Some("1:1.1"));
    let one = run_expect(
        &regress_args(&base, &new, &["--format", "json", "-j", "1"]),
        &[1],
    );
    let four = run_expect(
        &regress_args(&base, &new, &["--format", "json", "-j", "4"]),
        &[1],
    );
    assert_eq!(one, four);
}

#[test]
fn three_runs_a_side_are_too_few_to_call_anything_unchanged() {
    let tt = timer_tree("doc_example.json");
    let three = [tt.clone(), tt.clone(), tt.clone()];
    let doc = json(&regress_args(&three, &three, &["--format", "json"]));
    for t in doc["timers"].as_array().unwrap() {
        assert_eq!(t["verdict"], "noisy", "{t}");
        assert!(t["ci_low"].is_null());
    }
    let table = run_ok(&regress_args(&three, &three, &[]));
    assert!(
        table.contains("smallest p the test can give is 0.1"),
        "{table}"
    );
}

#[test]
fn the_table_fits_80_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let base = runs(tmp.path(), "base", 4, 1, None);
    let new = runs(tmp.path(), "new", 4, 101, Some("5:1.5"));
    let table = run_ok(&regress_args(&base, &new, &["--all", "--width", "80"]));
    for l in table.lines() {
        assert!(l.chars().count() <= 80, "{l:?}\n{table}");
    }
    assert_eq!(table.matches("::run()").count(), 20, "{table}");
}
