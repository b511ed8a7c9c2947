//! `comm pairs`: a receive completes at the wait that returned its status
//! (docs/COMM.md), checked against the wait calls `comm timeline` draws.

use std::collections::BTreeMap;
use std::fs;

use serde_json::Value;

use crate::common::{fixture, json, run_ok};

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Every pair's receive completes at or after its post, at the exit of a
/// wait-family call of the receiving process (or, for a blocking receive,
/// at its own record); receives of one sender and tag complete in order;
/// the routes' figures are the pairs'.
fn receives_complete_at_a_wait_of_their_process(name: &str) {
    let dir = fixture(name).join("bl_prof");
    let d = dir.to_str().unwrap();
    let p = json(&["-q", "comm", "pairs", d, "--format", "json"]);
    let tmp = tempfile::tempdir().unwrap();
    let chrome = tmp.path().join("t.json");
    run_ok(&[
        "-q",
        "comm",
        "timeline",
        d,
        "--chrome",
        chrome.to_str().unwrap(),
    ]);
    let trace: Value = serde_json::from_str(&fs::read_to_string(&chrome).unwrap()).unwrap();
    let events = trace
        .as_array()
        .or_else(|| trace["traceEvents"].as_array())
        .unwrap();
    // Exits of the wait-family calls per process, in seconds.
    let mut exits: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for e in events {
        let waits = ["Waitsome", "Test", "Wait", "Waitall", "Waitany"];
        if e["cat"] == "comm" && waits.contains(&e["name"].as_str().unwrap_or("")) {
            let end = (f(&e["ts"]) + e["dur"].as_f64().unwrap_or(0.0)) * 1e-6;
            exits
                .entry(e["pid"].as_u64().unwrap())
                .or_default()
                .push(end);
        }
    }
    let pairs = p["pairs"].as_array().unwrap();
    // `single` is one process: no messages.
    assert_eq!(pairs.is_empty(), name == "single", "{name}");
    let mut last: BTreeMap<(u64, u64, i64), f64> = BTreeMap::new();
    let mut routes: BTreeMap<(u64, u64), (u64, f64)> = BTreeMap::new();
    for pr in pairs {
        // These runs wait for every receive they post.
        let done = pr["completed_time"]
            .as_f64()
            .unwrap_or_else(|| panic!("{name}: {pr}"));
        let recv = f(&pr["recv_time"]);
        assert!(done >= recv, "{name}: completed before posted: {pr}");
        let to = pr["to"].as_u64().unwrap();
        if done != recv {
            let at_a_wait = exits[&to].iter().any(|&x| (x - done).abs() <= 1e-9);
            assert!(
                at_a_wait,
                "{name}: no wait of process {to} ends at {done}: {pr}"
            );
        }
        let l = f(&pr["latency_to_completion"]);
        assert_eq!(l, done - f(&pr["send_time"]), "{name}: {pr}");
        let key = (
            pr["from"].as_u64().unwrap(),
            to,
            pr["tag"].as_i64().unwrap(),
        );
        let before = last.insert(key, done).unwrap_or(f64::NEG_INFINITY);
        assert!(done >= before, "{name}: out of order: {pr}");
        let r = routes.entry((key.0, key.1)).or_default();
        r.0 += 1;
        r.1 += l;
    }
    for r in p["routes"].as_array().unwrap() {
        let (n, sum) = routes[&(r["from"].as_u64().unwrap(), r["to"].as_u64().unwrap())];
        assert_eq!(r["completed"].as_u64().unwrap(), n, "{name}: {r}");
        let mean = f(&r["completion_latency_mean"]);
        assert!((mean - sum / n as f64).abs() <= 1e-12, "{name}: {r}");
    }
}

database_tests!(receives_complete_at_a_wait_of_their_process);

/// The posting latency stays as it was (recv_time − send_time); the CSV
/// adds the completion columns after it.
#[test]
fn csv_keeps_the_posting_latency_and_adds_the_completion() {
    let d = fixture("small4").join("bl_prof");
    let csv = run_ok(&[
        "-q",
        "comm",
        "pairs",
        d.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "from,to,tag,size,send_time,recv_time,latency,completed_time,latency_to_completion"
    );
    for l in lines {
        let c: Vec<f64> = l.split(',').map(|v| v.parse().unwrap()).collect();
        assert_eq!(c[6], c[5] - c[4], "{l}");
        assert_eq!(c[8], c[7] - c[4], "{l}");
        assert!(c[7] >= c[5], "{l}");
    }
}
