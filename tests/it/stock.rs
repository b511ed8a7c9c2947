//! A stock AMReX application's database (`amrlevel8`: the unmodified
//! `Amr`/`AmrLevel` SingleVortex example on 8 ranks). Its `Amr::timeStep`
//! stops region `amr_level.advance` 140 times per rank without starting it,
//! which crashes the reference's region reports: there are no goldens for
//! them, so these tests check the region rule's consequences instead.

use serde_json::Value;

use crate::common::{db, json, output, run_ok, s};

const NPROCS: usize = 8;

fn amrlevel8() -> String {
    s(&db("amrlevel8")).to_owned()
}

/// Every trace command exits 0 on this healthy run, and says once (not
/// once per process) that the stops without a start were ignored.
#[test]
fn a_healthy_stock_run_exits_0_with_one_note() {
    let tmp = tempfile::tempdir().unwrap();
    let chrome = tmp.path().join("c.json");
    let html = tmp.path().join("r.html");
    let d = amrlevel8();
    for args in [
        vec!["trace-summary", &d],
        vec!["regions", &d],
        vec!["calltree", &d, "--exclude-region", "__NoRegion__"],
        vec!["export", &d, "--chrome", s(&chrome)],
        vec!["report", &d, "-o", s(&html)],
    ] {
        let out = output(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("note:")).collect();
        assert_eq!(notes.len(), 1, "{args:?}: {stderr}");
        assert!(
            notes[0].contains(
                "region \"amr_level.advance\" (number 5): 140 stops without a start on each of 8 processes"
            ),
            "{stderr}"
        );
        assert!(!stderr.contains("warning:"), "{args:?}: {stderr}");
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<h2>Notes</h2>") && !page.contains("<h2>Warnings</h2>"));
}

/// A process's ranges: (region number, start, stop).
fn ranges(proc: usize) -> Vec<(i64, f64, f64)> {
    let v = json(&[
        "-q",
        "regions",
        &amrlevel8(),
        "--format",
        "json",
        "--proc",
        &proc.to_string(),
    ]);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 0);
    assert_eq!(v["notes"].as_array().unwrap().len(), 1);
    v["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["number"].as_i64().unwrap(),
                r["start"].as_f64().unwrap(),
                r["stop"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// `__NoRegion__` is "no user region open": per process its ranges overlap
/// no user range, and with the user ranges' union they fill the span.
#[test]
fn no_region_is_the_complement_of_the_user_regions() {
    for proc in 0..NPROCS {
        let all = ranges(proc);
        let (none, user): (Vec<_>, Vec<_>) = all.iter().partition(|r| r.0 == 0);
        assert!(none.len() > 20, "process {proc}: {} gaps", none.len());
        for &(_, a, b) in &none {
            assert!(a < b);
            for &(n, x, y) in &user {
                assert!(
                    b <= x || y <= a,
                    "process {proc}: __NoRegion__ {a}..{b} overlaps region {n} {x}..{y}"
                );
            }
        }
        let mut sorted: Vec<(f64, f64)> = user.iter().map(|r| (r.1, r.2)).collect();
        sorted.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut union = 0.0;
        let mut end = f64::NEG_INFINITY;
        for (a, b) in sorted {
            let from = a.max(end);
            if b > from {
                union += b - from;
            }
            end = end.max(b);
        }
        let gaps: f64 = none.iter().map(|r| r.2 - r.1).sum();
        let first = all.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
        let last = all.iter().map(|r| r.2).fold(f64::NEG_INFINITY, f64::max);
        assert!(
            (union + gaps - (last - first)).abs() < 1e-9,
            "process {proc}: user {union} + __NoRegion__ {gaps} != span {}",
            last - first
        );
        // The run is 20 coarse steps inside user regions: most of the span.
        assert!(gaps < 0.1 * (last - first), "process {proc}: {gaps}");
    }
}

fn calls_by_name(v: &Value) -> Vec<(String, i64)> {
    v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["ncalls"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// Leaving out `__NoRegion__` keeps the calls made inside user regions
/// (with the writer's own `__NoRegion__` records it kept about 1 %), and
/// including every region keeps every call of the unfiltered summary.
#[test]
fn region_filters_select_by_the_rule() {
    let d = amrlevel8();
    let summary = |extra: &[&str]| {
        let mut args = vec!["-q", "trace-summary", &d, "--format", "json"];
        args.extend_from_slice(extra);
        json(&args)
    };
    let unfiltered = calls_by_name(&summary(&[]));
    let coarse = |calls: &[(String, i64)]| {
        calls
            .iter()
            .find(|(n, _)| n == "Amr::coarseTimeStep()")
            .map(|c| c.1)
            .unwrap()
    };
    assert_eq!(coarse(&unfiltered), 20);
    let without = calls_by_name(&summary(&["--exclude-region", "__NoRegion__"]));
    assert_eq!(coarse(&without), 20, "every step is inside a user region");

    let regions = json(&["-q", "regions", &d, "--format", "json"]);
    let names: Vec<String> = regions["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names.len(), 25);
    let mut include = Vec::new();
    for n in &names {
        include.push("--include-region");
        include.push(n.as_str());
    }
    assert_eq!(calls_by_name(&summary(&include)), unfiltered);
}

/// The region table is in region-number order and accounts for the run.
#[test]
fn regions_account_for_each_process_s_run() {
    let v = json(&["-q", "regions", &amrlevel8(), "--format", "json"]);
    let regions = v["regions"].as_array().unwrap();
    let advance = regions
        .iter()
        .find(|r| r["name"] == "amr_level.advance")
        .unwrap();
    assert_eq!(advance["count"], 0, "no range from stops alone");
    let none = regions
        .iter()
        .find(|r| r["name"] == "__NoRegion__")
        .unwrap();
    let steps = regions
        .iter()
        .find(|r| r["name"] == "Amr::coarseTimeStep()")
        .unwrap();
    // The coarse steps are most of the run; __NoRegion__ is what is left.
    assert!(none["avg"].as_f64().unwrap() < 0.05 * steps["avg"].as_f64().unwrap());
    let text = run_ok(&["-q", "regions", &amrlevel8()]);
    assert!(text.contains("amr_level.advance"));
}
