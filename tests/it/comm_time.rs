//! `comm time`: MPI time per call type, process, call path and region,
//! checked against other readers of the same data (`comm stats`, the Chrome
//! traces of `comm timeline` and `export`) and against itself under
//! selections and formats.

use std::collections::BTreeMap;
use std::fs;

use serde_json::Value;

use crate::common::{fixture, json, run_ok};
use crate::raw_comm;

fn db(name: &str) -> String {
    fixture(name).join("bl_prof").to_str().unwrap().to_owned()
}

/// `comm time DB ARGS… --format json`.
fn time(name: &str, args: &[&str]) -> Value {
    let d = db(name);
    let mut all = vec!["-q", "comm", "time", d.as_str(), "--format", "json"];
    all.extend_from_slice(args);
    json(&all)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap()
}

/// Equal up to the rounding of sums taken in other orders.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// A process's MPI time lies inside its span (MPI calls of one process do
/// not overlap), and the sums agree: per type over processes, per process
/// over types, and the totals.
fn mpi_time_adds_up_and_fits_in_the_traced_time(name: &str) {
    let t = time(name, &[]);
    assert!(u(&t["calls"]) > 0, "{name}: no calls");
    for p in arr(&t["procs"]) {
        assert!(
            f(&p["seconds"]) <= f(&p["traced"]) * (1.0 + 1e-12),
            "{name}: {p}"
        );
        let calls: u64 = arr(&p["by_type"]).iter().map(|x| u(&x["calls"])).sum();
        let secs: f64 = arr(&p["by_type"]).iter().map(|x| f(&x["seconds"])).sum();
        assert_eq!(calls, u(&p["calls"]), "{name}: {p}");
        assert!(close(secs, f(&p["seconds"])), "{name}: {p}");
    }
    let procs = arr(&t["procs"]);
    let n = procs.len() as f64;
    let mut total = (0u64, 0.0);
    for x in arr(&t["by_type"]) {
        // The type's seconds and calls are the sums of its processes'.
        let mut per: Vec<f64> = Vec::new();
        let mut calls = 0;
        for p in procs {
            let mine = arr(&p["by_type"])
                .iter()
                .find(|y| y["number"] == x["number"]);
            per.push(mine.map_or(0.0, |y| f(&y["seconds"])));
            calls += mine.map_or(0, |y| u(&y["calls"]));
        }
        assert_eq!(calls, u(&x["calls"]), "{name}: {x}");
        let sum: f64 = per.iter().sum();
        assert!(close(sum, f(&x["seconds"])), "{name}: {x}");
        let min = per.iter().copied().fold(f64::INFINITY, f64::min);
        let max = per.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(f(&x["min"]), min, "{name}: {x}");
        assert_eq!(f(&x["max"]), max, "{name}: {x}");
        assert!(close(f(&x["avg"]) * n, sum), "{name}: {x}");
        // Sizes: every call of a type with a size lands in one bucket.
        let sized: u64 = arr(&x["sizes"]).iter().map(|b| u(&b["calls"])).sum();
        for b in arr(&x["sizes"]) {
            let (lo, hi) = (u(&b["min"]), u(&b["max"]));
            assert!(
                lo == hi || (lo.is_power_of_two() && hi == 2 * lo - 1),
                "{b}"
            );
        }
        assert!(sized <= u(&x["calls"]), "{name}: {x}");
        total.0 += u(&x["calls"]);
        total.1 += f(&x["seconds"]);
    }
    assert_eq!(total.0, u(&t["calls"]), "{name}");
    assert!(close(total.1, f(&t["seconds"])), "{name}");
    let traced: f64 = procs.iter().map(|p| f(&p["traced"])).sum();
    assert!(close(traced, f(&t["traced"])), "{name}");
}

database_tests!(mpi_time_adds_up_and_fits_in_the_traced_time);

/// Calls per type are `comm stats`'s calls (the same rule, read by another
/// loop), also in a window and for one process; the seconds per type are
/// the durations of the calls `comm timeline` draws.
fn calls_are_comm_stats_calls_and_seconds_the_timeline_s(name: &str) {
    let d = db(name);
    for args in [&[][..], &["--time", "0.02..0.05"], &["--proc", "0"]] {
        let t = time(name, args);
        let mut all = vec!["-q", "comm", "stats", d.as_str(), "--format", "json"];
        all.extend_from_slice(args);
        let s = json(&all);
        let stats: BTreeMap<String, u64> = arr(&s["by_type"])
            .iter()
            .filter(|x| u(&x["calls"]) > 0)
            .map(|x| (x["type"].as_str().unwrap().to_owned(), u(&x["calls"])))
            .collect();
        let ours: BTreeMap<String, u64> = arr(&t["by_type"])
            .iter()
            .map(|x| (x["type"].as_str().unwrap().to_owned(), u(&x["calls"])))
            .collect();
        assert_eq!(ours, stats, "{name} {args:?}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let chrome = tmp.path().join("t.json");
    run_ok(&[
        "-q",
        "comm",
        "timeline",
        &d,
        "--chrome",
        chrome.to_str().unwrap(),
    ]);
    let trace: Value = serde_json::from_str(&fs::read_to_string(&chrome).unwrap()).unwrap();
    let events = trace
        .as_array()
        .or_else(|| trace["traceEvents"].as_array())
        .unwrap();
    let mut drawn: BTreeMap<String, f64> = BTreeMap::new();
    for e in events.iter().filter(|e| e["cat"] == "comm") {
        let dur = e["dur"].as_f64().unwrap_or(0.0) * 1e-6;
        *drawn
            .entry(e["name"].as_str().unwrap().to_owned())
            .or_default() += dur;
    }
    for x in arr(&time(name, &[])["by_type"]) {
        let d = drawn[x["type"].as_str().unwrap()];
        // Microseconds in the trace: rounding per call at most.
        assert!(
            (d - f(&x["seconds"])).abs() <= 1e-9 * u(&x["calls"]) as f64 + 1e-9,
            "{name}: {x} vs {d}"
        );
    }
}

database_tests!(calls_are_comm_stats_calls_and_seconds_the_timeline_s);

/// Calls and seconds per process and type are those of the records read
/// and built into calls by the test's own reader of the format
/// ([`crate::raw_comm`]), which shares nothing with the crate.
fn seconds_are_those_of_the_raw_records(name: &str) {
    let raw = raw_comm::mpi_seconds(&raw_comm::blocks(&fixture(name).join("bl_prof")));
    let t = time(name, &[]);
    let mut ours = BTreeMap::new();
    for p in arr(&t["procs"]) {
        for x in arr(&p["by_type"]) {
            let key = (u(&p["proc"]), x["number"].as_i64().unwrap() as i32);
            ours.insert(key, (u(&x["calls"]), f(&x["seconds"])));
        }
    }
    let raw: BTreeMap<(u64, i32), (u64, f64)> = raw
        .into_iter()
        .map(|(k, s)| (k, (s.calls, s.seconds)))
        .collect();
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        raw.keys().collect::<Vec<_>>(),
        "{name}: (process, type)"
    );
    for (k, (calls, secs)) in &raw {
        let (c, s) = ours[k];
        assert_eq!(c, *calls, "{name}: calls of {k:?}");
        assert!(close(s, *secs), "{name}: seconds of {k:?}: {s} vs {secs}");
    }
}

database_tests!(seconds_are_those_of_the_raw_records);

/// `--proc` restricts to the processes named, with their figures unchanged.
#[test]
fn proc_restricts_to_the_processes_named() {
    let all = time("small4", &[]);
    let one = time("small4", &["--proc", "2", "--proc", "3"]);
    let procs: Vec<u64> = arr(&one["procs"]).iter().map(|p| u(&p["proc"])).collect();
    assert_eq!(procs, [2, 3]);
    for p in arr(&one["procs"]) {
        let same = arr(&all["procs"])
            .iter()
            .find(|q| q["proc"] == p["proc"])
            .unwrap();
        assert_eq!(p, same);
    }
    let calls: u64 = arr(&one["procs"]).iter().map(|p| u(&p["calls"])).sum();
    assert_eq!(calls, u(&one["calls"]));
    assert!(u(&one["calls"]) < u(&all["calls"]));
}

/// Attribution: every call goes to one call path (the totals are the
/// unattributed totals), and the path is the innermost call that the
/// `export --chrome` trace (another reader of the call records) shows open
/// at the MPI call's entry on that process.
fn paths_are_the_innermost_open_calls(name: &str) {
    let t = time(name, &[]);
    let paths = arr(&t["paths"]);
    let calls: u64 = paths.iter().map(|p| u(&p["calls"])).sum();
    let secs: f64 = paths.iter().map(|p| f(&p["seconds"])).sum();
    assert_eq!(calls, u(&t["calls"]), "{name}");
    assert!(close(secs, f(&t["seconds"])), "{name}");
    let ours: BTreeMap<(Vec<String>, String), u64> = paths
        .iter()
        .map(|p| {
            let path = arr(&p["path"])
                .iter()
                .map(|s| s.as_str().unwrap().to_owned());
            (
                (path.collect(), p["type"].as_str().unwrap().to_owned()),
                u(&p["calls"]),
            )
        })
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let chrome = tmp.path().join("x.json");
    run_ok(&[
        "-q",
        "export",
        &db(name),
        "--chrome",
        chrome.to_str().unwrap(),
        "--args",
        "summary",
    ]);
    let trace: Value = serde_json::from_str(&fs::read_to_string(&chrome).unwrap()).unwrap();
    let events = trace
        .as_array()
        .or_else(|| trace["traceEvents"].as_array())
        .unwrap();
    // Per process: timed calls (start µs, end µs, depth, name), MPI calls.
    let mut calls_of: BTreeMap<u64, Vec<(f64, f64, u64, String)>> = BTreeMap::new();
    let mut mpi: Vec<(u64, f64, String)> = Vec::new();
    for e in events {
        let (Some(pid), Some(ts)) = (e["pid"].as_u64(), e["ts"].as_f64()) else {
            continue;
        };
        let name = e["name"].as_str().unwrap_or("").to_owned();
        match e["cat"].as_str() {
            Some("call") => calls_of.entry(pid).or_default().push((
                ts,
                ts + f(&e["dur"]),
                u(&e["args"]["depth"]),
                name,
            )),
            Some("comm") => mpi.push((pid, ts, name)),
            _ => {}
        }
    }
    let mut theirs: BTreeMap<(Vec<String>, String), u64> = BTreeMap::new();
    for (pid, ts, kind) in mpi {
        // The open calls at `ts`, outermost first: the path.
        let mut open: Vec<&(f64, f64, u64, String)> = calls_of
            .get(&pid)
            .into_iter()
            .flatten()
            .filter(|c| c.0 <= ts && ts < c.1)
            .collect();
        open.sort_by(|a, b| a.2.cmp(&b.2).then(a.0.total_cmp(&b.0)));
        // A call open at a shallower depth started last is the parent.
        let mut path: Vec<String> = Vec::new();
        let mut depth = None;
        for c in open {
            if depth == Some(c.2) {
                path.pop();
            }
            path.push(c.3.clone());
            depth = Some(c.2);
        }
        *theirs.entry((path, kind)).or_default() += 1;
    }
    assert_eq!(ours, theirs, "{name}");
}

// (amrlevel8 takes a minute: the check is quadratic.)
test_program_database_tests!(paths_are_the_innermost_open_calls);

/// A region filter keeps the calls entered inside the region: as many as
/// the unfiltered report attributes to that region, their time cut to it.
#[test]
fn region_filter_keeps_the_calls_attributed_to_the_region() {
    let all = time("amrlevel8", &[]);
    let regions = arr(&all["regions"]);
    assert!(regions.len() > 2);
    for r in regions {
        let name = r["region"].as_str().unwrap();
        let only = time("amrlevel8", &["--include-region", name]);
        assert_eq!(u(&only["calls"]), u(&r["calls"]), "{name}");
        assert!(
            f(&only["seconds"]) <= f(&r["seconds"]) * (1.0 + 1e-12),
            "{name}"
        );
        for p in arr(&only["procs"]) {
            assert!(
                f(&p["seconds"]) <= f(&p["traced"]) * (1.0 + 1e-12),
                "{name}: {p}"
            );
        }
    }
    // Inside every region, excluding one leaves the calls not in it.
    let step = "Amr::coarseTimeStep()";
    let inside = regions.iter().find(|r| r["region"] == step).unwrap();
    let every = time("amrlevel8", &["--include-region", "*"]);
    let outside = time(
        "amrlevel8",
        &["--include-region", "*", "--exclude-region", step],
    );
    assert!(u(&outside["calls"]) > 0);
    assert_eq!(
        u(&outside["calls"]) + u(&inside["calls"]),
        u(&every["calls"])
    );
    assert!(u(&every["calls"]) <= u(&all["calls"]));
}

/// Table, JSON and CSV say the same: the CSV's rows (process × type) sum
/// to the JSON's per-process figures, which the table prints.
#[test]
fn table_json_and_csv_agree() {
    let d = db("flush");
    let t = time("flush", &[]);
    let csv = run_ok(&["-q", "comm", "time", &d, "--format", "csv"]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "proc,type,number,calls,seconds,traced"
    );
    let mut per: BTreeMap<u64, (u64, f64)> = BTreeMap::new();
    for l in lines {
        let c: Vec<&str> = l.split(',').collect();
        let e = per.entry(c[0].parse().unwrap()).or_default();
        e.0 += c[3].parse::<u64>().unwrap();
        e.1 += c[4].parse::<f64>().unwrap();
    }
    let table = run_ok(&["-q", "comm", "time", &d]);
    assert!(table.lines().all(|l| l.chars().count() <= 100), "{table}");
    for p in arr(&t["procs"]) {
        let (calls, secs) = per[&u(&p["proc"])];
        assert_eq!(calls, u(&p["calls"]));
        assert!(close(secs, f(&p["seconds"])));
        // The process's row: proc, calls, MPI time, traced time, MPI %.
        let row = table.lines().find(|l| {
            let n = crate::common::line_numbers(l);
            n.len() == 5
                && n[0] == Some(u(&p["proc"]) as f64)
                && n[1] == Some(calls as f64)
                && n[2].is_some_and(|x| crate::common::shows(x, f(&p["seconds"])))
                && n[3].is_some_and(|x| crate::common::shows(x, f(&p["traced"])))
        });
        assert!(row.is_some(), "process {}\n{table}", u(&p["proc"]));
    }
    let head = table.lines().nth(1).unwrap();
    let n = crate::common::line_numbers(head);
    assert!(
        crate::common::shows(n[0].unwrap(), f(&t["seconds"])),
        "{head}"
    );
    assert!(
        head.contains(&format!(" in {} calls", u(&t["calls"]))),
        "{head}"
    );
}

/// Without call traces read, nothing is attributed.
#[test]
fn no_trace_attributes_nothing() {
    let t = time("small4", &["--no-trace"]);
    assert!(t["paths"].is_null() && t["regions"].is_null());
    assert_eq!(t["calls"], time("small4", &[])["calls"]);
}
