//! Communication profiles: `comm stats` against amrprofparser's `-stats`
//! goldens on every fixture, time windows that read only the blocks they need.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const DATABASES: [&str; 6] = ["small4", "nfiles2", "single", "flush", "asym4", "host_nid"];

fn fixture(db: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/blprof")
        .join(db)
}

fn stats(args: &[&str]) -> (Value, String) {
    let out = Command::cargo_bin("profparse")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `key = value` lines and the per-type call counts of a -stats stdout.
fn golden(db: &str) -> (BTreeMap<String, String>, BTreeMap<String, u64>) {
    let text = fs::read_to_string(fixture(db).join("golden/stats/stdout.txt")).unwrap();
    let mut kv = BTreeMap::new();
    let mut calls = BTreeMap::new();
    let mut in_calls = false;
    for l in text.lines() {
        if l.starts_with("Total Function Calls") {
            in_calls = true;
            continue;
        }
        if in_calls && l.starts_with("  ") {
            let mut f = l.split_whitespace();
            calls.insert(
                f.next().unwrap().to_owned(),
                f.next().unwrap().parse().unwrap(),
            );
            continue;
        }
        in_calls = false;
        if let Some((k, v)) = l.split_once(" = ") {
            kv.insert(k.trim().to_owned(), v.trim().to_owned());
        }
    }
    (kv, calls)
}

#[test]
fn comm_stats_match_the_reference_on_every_fixture() {
    for db in DATABASES {
        let (kv, calls) = golden(db);
        let dir = fixture(db).join("bl_prof");
        let (s, stderr) = stats(&["comm", "stats", dir.to_str().unwrap(), "--format", "json"]);
        assert!(stderr.is_empty(), "{db}: {stderr}");
        assert_eq!(s["nrecords"].to_string(), kv["Total Comm Stats"], "{db}");
        let ours: BTreeMap<String, u64> = s["by_type"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["count"].as_u64().unwrap() > 0)
            .map(|t| {
                (
                    t["type"].as_str().unwrap().to_owned(),
                    t["count"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(ours, calls, "{db}: calls per function type");
        // "Total Sent Data for all procs = 0.00024578 GB" (10 significant digits).
        let gb: f64 = kv["Total Sent Data for all procs"]
            .trim_end_matches(" GB")
            .parse()
            .unwrap();
        let sent = s["bytes_sent"].as_f64().unwrap() / 1e9;
        assert!(
            (sent - gb).abs() <= gb * 1e-9 + 1e-15,
            "{db}: {sent} GB vs {gb}"
        );
        let sizes: Vec<i64> = kv["MsgSizeMin MsgSizeMax"]
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        if sizes[0] == i32::MAX as i64 {
            assert!(s["msg_size_min"].is_null(), "{db}: no sends");
        } else {
            assert_eq!(
                (
                    s["msg_size_min"].as_i64().unwrap(),
                    s["msg_size_max"].as_i64().unwrap()
                ),
                (sizes[0], sizes[1]),
                "{db}"
            );
        }
        let span: Vec<f64> = kv["TimeMin TimeMax"]
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(
            (s["time_min"].as_f64().unwrap() - span[0]).abs() < 1e-9 * span[0].max(1.0),
            "{db}"
        );
        assert!(
            (s["time_max"].as_f64().unwrap() - span[1]).abs() < 1e-9 * span[1].max(1.0),
            "{db}"
        );
        // Reference bug (BLPROF_FORMAT.md §9.18): it always prints TimerTime 0.
        // Ours is the mean of the header's timerTime lines.
        assert_eq!(kv["Average TimerTime"], "0");
        let mut sum = 0.0;
        let mut n = 0;
        for e in fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("bl_comm_prof_H_")
            {
                for l in fs::read_to_string(&p)
                    .unwrap()
                    .lines()
                    .filter(|l| l.starts_with("timerTime"))
                {
                    sum += l.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap();
                    n += 1;
                }
            }
        }
        assert!(
            (s["timer_time"].as_f64().unwrap() - sum / n as f64).abs() < 1e-18,
            "{db}"
        );
        assert!(s["timer_time"].as_f64().unwrap() > 1e-9);
    }
}

#[test]
fn a_time_window_reads_only_overlapping_blocks() {
    let dir = fixture("flush").join("bl_prof");
    let d = dir.to_str().unwrap();
    let (all, _) = stats(&["comm", "stats", d, "--format", "json"]);
    assert_eq!(all["blocks_read"], 16);
    // The first comm blocks end before 0.2 s on every process of `flush`.
    let (early, stderr) = stats(&[
        "-v", "comm", "stats", d, "--format", "json", "--time", "..0.15",
    ]);
    let read = early["blocks_read"].as_u64().unwrap();
    assert!(read > 0 && read < 16, "{read}");
    assert!(early["bytes_read"].as_u64().unwrap() < all["bytes_read"].as_u64().unwrap());
    assert!(
        stderr.contains(&format!("read {read} comm blocks")),
        "{stderr}"
    );
    assert!(early["time_max"].as_f64().unwrap() <= 0.15);
    assert!(early["nrecords"].as_u64().unwrap() < all["nrecords"].as_u64().unwrap());
    let (one, _) = stats(&["comm", "stats", d, "--format", "json", "--proc", "2"]);
    assert_eq!(one["nprocs"], 1);
    assert_eq!(one["blocks_read"], 4);
    // Same numbers at any thread count.
    let a = stats(&["-j1", "comm", "stats", d, "--format", "json"]).0;
    let b = stats(&["-j2", "comm", "stats", d, "--format", "json"]).0;
    assert_eq!(a, b);
}
