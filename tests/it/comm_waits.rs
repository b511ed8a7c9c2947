//! Clock alignment (`comm clocks`, `--align-clocks`) and wait states
//! (`comm waits`): on generated databases with known offsets and injected
//! delays (`synth blprof --clock-offsets --late-sender --late-barrier`,
//! which writes the truth to `synth_truth.json`), and on the real
//! fixtures.

use std::path::Path;

use serde_json::Value;

use crate::common::{db, json, run_ok_stderr, s};

mod states;

/// Recovered offsets must lie this close to the truth: the generator's
/// barrier exits differ by at most 0.2 µs.
const OFFSET_TOLERANCE: f64 = 1e-6;

/// A generated database in `tmp` with `extra` options, and its truth.
/// `comm waits D --align-clocks --format json --top N`.
fn aligned_waits(d: &str, top: usize) -> Value {
    let top = top.to_string();
    json(&[
        "comm",
        "waits",
        d,
        "--align-clocks",
        "--format",
        "json",
        "--top",
        &top,
    ])
}

fn generate(tmp: &Path, extra: &[&str]) -> (String, Value) {
    let dir = tmp.join("bl_prof");
    let d = dir.to_str().unwrap().to_owned();
    let mut args = vec!["synth", "blprof", d.as_str(), "--calls", "200"];
    args.extend_from_slice(extra);
    run_ok_stderr(&args);
    let truth = std::fs::read_to_string(dir.join("synth_truth.json")).unwrap();
    (d, serde_json::from_str(&truth).unwrap())
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is no number"))
}

#[test]
fn offsets_are_recovered_within_a_microsecond() {
    for (procs, seed, max) in [("6", "3", "0.05"), ("3", "8", "2.5"), ("9", "1", "0.0001")] {
        let tmp = tempfile::tempdir().unwrap();
        let (d, truth) = generate(
            tmp.path(),
            &[
                "--procs",
                procs,
                "--blocks",
                "3",
                "--messages",
                "30",
                "--seed",
                seed,
                "--clock-offsets",
                max,
                "--late-sender",
                "1:0.0005",
            ],
        );
        let c = json(&["comm", "clocks", &d, "--format", "json"]);
        let want = truth["clock_offsets"].as_array().unwrap();
        let got = c["procs"].as_array().unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            let (g, w) = (f(&g["offset"]), f(w));
            assert!(
                (g - w).abs() <= OFFSET_TOLERANCE,
                "{procs} procs: {g} vs {w}"
            );
        }
        let r = &c["residual"];
        assert_eq!(r["negative_aligned"], 0, "{r}");
        assert!(f(&r["exit_spread_max"]) <= OFFSET_TOLERANCE, "{r}");
        // Raw, messages between processes whose clocks differ by more than
        // the latency come out received before they were sent.
        if max != "0.0001" {
            assert!(r["negative_raw"].as_u64().unwrap() > 0, "{r}");
        }
    }
}

#[test]
fn injected_waits_are_found_and_blamed_on_their_process() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, truth) = generate(
        tmp.path(),
        &[
            "--procs",
            "5",
            "--blocks",
            "2",
            "--messages",
            "40",
            "--clock-offsets",
            "0.1",
            "--late-sender",
            "2:0.002",
            "--late-barrier",
            "4:0.003",
        ],
    );
    let w = aligned_waits(&d, 1000);
    assert_eq!(w["clocks_aligned_to"], 0);
    let ls = &truth["late_sender"];
    let lb = &truth["late_barrier"];
    // Late sender: each message within 1 µs (the offsets' error, twice).
    let messages = ls["messages"].as_u64().unwrap();
    let want = f(&ls["wait_per_message"]) * messages as f64;
    let got = f(&w["totals"]["late_sender"]);
    assert!(
        (got - want).abs() <= 1e-6 * messages as f64,
        "{got} vs {want}"
    );
    let top = w["top"].as_array().unwrap();
    let late: Vec<&Value> = top.iter().filter(|x| x["state"] == "late_sender").collect();
    assert_eq!(late.len() as u64, messages);
    assert!(
        late.iter()
            .all(|x| x["proc"] == 3 && x["caused_by"] == 2 && x["name"] == "Waitall")
    );
    // Barrier: within 1 µs per process and barrier; all caused by process 4.
    let n = 2.0 * 5.0;
    let (got, want) = (f(&w["totals"]["barrier"]), f(&lb["wait_total"]));
    assert!((got - want).abs() <= 1e-6 * n, "{got} vs {want}");
    let bars: Vec<&Value> = top.iter().filter(|x| x["state"] == "barrier").collect();
    assert!(!bars.is_empty() && bars.iter().all(|x| x["caused_by"] == 4 && x["proc"] != 4));
    let p4 = w["procs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["proc"] == 4)
        .unwrap();
    assert!((f(&p4["caused"]) - want).abs() <= 1e-6 * n);
    // Nothing else waits: no late receivers (nonblocking sends), no N×N.
    assert_eq!(f(&w["totals"]["late_receiver"]), 0.0);
    assert_eq!(f(&w["totals"]["nxn"]), 0.0);

    // On the raw clocks the offsets (up to 100 ms) swamp the 2 ms delay.
    let raw = json(&["comm", "waits", &d, "--format", "json"]);
    assert!(raw["clocks_aligned_to"].is_null());
    assert!((f(&raw["totals"]["late_sender"]) - f(&w["totals"]["late_sender"])).abs() > 1e-3);
}

#[test]
fn aligned_pairs_say_so_and_shift_by_the_offsets() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, truth) = generate(
        tmp.path(),
        &[
            "--procs",
            "4",
            "--messages",
            "10",
            "--clock-offsets",
            "0.02",
        ],
    );
    let raw = json(&["comm", "pairs", &d, "--format", "json"]);
    let aligned = json(&["comm", "pairs", &d, "--format", "json", "--align-clocks"]);
    assert!(raw.get("clocks_aligned_to").is_none());
    assert_eq!(aligned["clocks_aligned_to"], 0);
    let o = truth["clock_offsets"].as_array().unwrap();
    for (r, a) in raw["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(aligned["pairs"].as_array().unwrap())
    {
        let (from, to) = (
            r["from"].as_u64().unwrap() as usize,
            r["to"].as_u64().unwrap() as usize,
        );
        let shift = f(&o[to]) - f(&o[from]);
        assert!((f(&r["latency"]) - shift - f(&a["latency"])).abs() <= 2.0 * OFFSET_TOLERANCE);
        assert!(f(&a["latency_to_completion"]) >= 0.0, "{a}");
    }
    let text = crate::common::run_ok(&["comm", "pairs", &d, "--align-clocks"]);
    assert!(text.contains("Times on process 0's clock"), "{text}");
}

/// The real fixtures with communication data from more than one process.
const REAL: [&str; 6] = [
    "amrlevel8",
    "small4",
    "asym4",
    "nfiles2",
    "host_nid",
    "flush",
];

#[test]
fn on_real_data_aligned_messages_complete_after_their_send() {
    for name in REAL {
        let p = db(name);
        let c = json(&["comm", "clocks", s(&p), "--format", "json"]);
        let r = &c["residual"];
        let (n, neg) = (
            r["messages"].as_u64().unwrap(),
            r["negative_aligned"].as_u64().unwrap(),
        );
        assert!(neg as f64 <= 0.01 * n as f64, "{name}: {r}");
        // The same count, from the aligned pairs themselves.
        let pairs = json(&["comm", "pairs", s(&p), "--format", "json", "--align-clocks"]);
        let done: Vec<f64> = pairs["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|x| x["latency_to_completion"].as_f64())
            .collect();
        assert_eq!(done.len() as u64, n, "{name}");
        assert_eq!(
            done.iter().filter(|&&l| l < 0.0).count() as u64,
            neg,
            "{name}"
        );
    }
}

#[test]
fn on_real_data_waits_stay_inside_the_mpi_time_of_their_call_types() {
    for name in REAL {
        let p = db(name);
        let w = json(&["comm", "waits", s(&p), "--align-clocks", "--format", "json"]);
        let t = json(&["comm", "time", s(&p), "--format", "json", "--no-trace"]);
        let mpi = |number: i64| -> f64 {
            t["by_type"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["number"] == number)
                .map_or(0.0, |x| f(&x["seconds"]))
        };
        let mut per_type: std::collections::BTreeMap<i64, f64> = Default::default();
        for x in w["types"].as_array().unwrap() {
            *per_type.entry(x["type"].as_i64().unwrap()).or_default() += f(&x["seconds"]);
        }
        for (k, waited) in per_type {
            assert!(
                waited <= mpi(k) + 1e-9,
                "{name}: type {k}: waits {waited} > MPI {}",
                mpi(k)
            );
        }
        let total = f(&w["totals"]["total"]);
        assert!(total <= f(&t["seconds"]) + 1e-9, "{name}");
        if name == "amrlevel8" {
            assert!(f(&w["totals"]["late_sender"]) > 0.0 && f(&w["totals"]["barrier"]) > 0.0);
        }
    }
}

#[test]
fn the_aligned_chrome_timeline_ends_each_barrier_together() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, _) = generate(
        tmp.path(),
        &[
            "--procs",
            "4",
            "--blocks",
            "2",
            "--messages",
            "5",
            "--clock-offsets",
            "0.5",
        ],
    );
    let ends = |align: bool| -> Vec<Vec<f64>> {
        let out = tmp.path().join(format!("t{align}.json"));
        let o = out.to_str().unwrap();
        let mut args = vec!["comm", "timeline", d.as_str(), "--chrome", o, "--svg"];
        let svg = tmp.path().join("t.svg");
        args.push(svg.to_str().unwrap());
        if align {
            args.push("--align-clocks");
        }
        run_ok_stderr(&args);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let ev = v
            .get("traceEvents")
            .unwrap_or(&v)
            .as_array()
            .unwrap()
            .clone();
        // Per barrier (in order on each process): its end on every process.
        let mut per: Vec<Vec<f64>> = Vec::new();
        for p in 0..4 {
            let bars = ev
                .iter()
                .filter(|e| e["name"] == "Barrier" && e["pid"] == p)
                .map(|e| f(&e["ts"]) + f(&e["dur"]));
            for (i, t) in bars.enumerate() {
                if per.len() <= i {
                    per.push(Vec::new());
                }
                per[i].push(t);
            }
        }
        per
    };
    let spread = |v: &Vec<f64>| {
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            - v.iter().copied().fold(f64::INFINITY, f64::min)
    };
    let (raw, aligned) = (ends(false), ends(true));
    assert_eq!(aligned.len(), 2);
    // Microseconds: within 1 µs aligned, far apart raw.
    assert!(
        aligned.iter().all(|v| v.len() == 4 && spread(v) <= 1.0),
        "{aligned:?}"
    );
    assert!(raw.iter().any(|v| spread(v) > 1000.0), "{raw:?}");
}

#[test]
fn aligned_barriers_name_the_latest_arrival() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, truth) = generate(
        tmp.path(),
        &[
            "--procs",
            "5",
            "--blocks",
            "3",
            "--messages",
            "4",
            "--clock-offsets",
            "0.2",
            "--late-barrier",
            "1:0.0005",
        ],
    );
    let b = json(&["comm", "barriers", &d, "--align-clocks", "--format", "json"]);
    assert_eq!(b["clocks_aligned_to"], 0);
    let o = truth["clock_offsets"].as_array().unwrap();
    let raw = json(&["comm", "barriers", &d, "--format", "json"]);
    assert!(raw.get("clocks_aligned_to").is_none());
    for (x, r) in b["barriers"]
        .as_array()
        .unwrap()
        .iter()
        .zip(raw["barriers"].as_array().unwrap())
    {
        assert_eq!(x["last_arrival"], 1, "{x}");
        for (a, ra) in x["procs"]
            .as_array()
            .unwrap()
            .iter()
            .zip(r["procs"].as_array().unwrap())
        {
            let p = a["proc"].as_u64().unwrap() as usize;
            let shift = f(&ra["exit"]) - f(&a["exit"]);
            assert!((shift - f(&o[p])).abs() <= OFFSET_TOLERANCE, "{a} {ra}");
        }
    }
    let p1 = &b["procs"].as_array().unwrap()[1];
    assert_eq!(p1["last_arrivals"], 3);
}
