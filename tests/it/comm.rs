//! Communication profiles: `comm stats` against amrprofparser's `-stats`
//! goldens on every fixture, time windows that read only the blocks they need.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{DATABASES, copy_db, fixture, output, profparse, run_ok, run_ok_stderr};

/// stdout of a successful run as JSON, and its stderr.
fn stats(args: &[&str]) -> (Value, String) {
    let (out, err) = run_ok_stderr(args);
    (serde_json::from_str(&out).unwrap(), err)
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

fn comm_stats_match_the_reference(db: &str) {
    let (kv, calls) = golden(db);
    let dir = fixture(db).join("bl_prof");
    let (s, stderr) = stats(&["comm", "stats", dir.to_str().unwrap(), "--format", "json"]);
    assert!(stderr.is_empty(), "{db}: {stderr}");
    assert_eq!(s["nrecords"].to_string(), kv["Total Comm Stats"], "{db}");
    let ours: BTreeMap<String, u64> = s["by_type"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["reference_calls"].as_u64().unwrap() > 0)
        .map(|t| {
            (
                t["type"].as_str().unwrap().to_owned(),
                t["reference_calls"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ours, calls, "{db}: -stats's call counts per function type");
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

database_tests!(comm_stats_match_the_reference);

/// `calls` counts wrapper invocations: per type, as many as the timeline
/// builds from the records (another reader of the same rule, which pairs
/// the records into calls with their start and end).
fn comm_stats_calls_are_the_timeline_s_calls(db: &str) {
    let dir = fixture(db).join("bl_prof");
    let (s, _) = stats(&["comm", "stats", dir.to_str().unwrap(), "--format", "json"]);
    let tmp = tempfile::tempdir().unwrap();
    let chrome = tmp.path().join("t.json");
    run_ok(&[
        "-q",
        "comm",
        "timeline",
        dir.to_str().unwrap(),
        "--chrome",
        chrome.to_str().unwrap(),
    ]);
    let trace: Value = serde_json::from_str(&fs::read_to_string(&chrome).unwrap()).unwrap();
    let events = trace
        .as_array()
        .or_else(|| trace["traceEvents"].as_array())
        .unwrap();
    let mut built: BTreeMap<String, u64> = BTreeMap::new();
    for e in events {
        if matches!(e["ph"].as_str(), Some("X" | "i")) && e["cat"] != "region" {
            *built
                .entry(e["name"].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
    }
    let counted: BTreeMap<String, u64> = s["by_type"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["type"].as_str().unwrap().to_owned(),
                t["calls"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counted, built, "{db}");
    let procs: u64 = s["procs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(procs, counted.values().sum::<u64>(), "{db}");
}

database_tests!(comm_stats_calls_are_the_timeline_s_calls);

/// On the stock application, the calls that `-stats` miscounts
/// (fixtures/blprof/amrlevel8/README.md: 720 Allgather, 256 + 72 Gatherv,
/// 19,398 Waitall calls with 82,122 status records).
#[test]
fn comm_stats_counts_each_call_once() {
    let dir = fixture("amrlevel8").join("bl_prof");
    let (s, _) = stats(&["comm", "stats", dir.to_str().unwrap(), "--format", "json"]);
    let of = |name: &str| {
        let t = s["by_type"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == name)
            .unwrap()
            .clone();
        let n = |k: &str| t[k].as_u64().unwrap();
        (n("calls"), n("records"), n("reference_calls"))
    };
    assert_eq!(of("Allgather"), (720, 1440, 1440));
    assert_eq!(of("Gatherv"), (328, 656, 400));
    assert_eq!(of("Waitall"), (19_398, 101_520, 82_122));
    assert_eq!(of("AsendTsiiM"), (41_061, 82_122, 41_061));
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

/// `comm check DIR` unwrapped (`--width 0`): each problem on one line.
fn check(dir: &Path) -> (Option<i32>, String, String) {
    let out = output(&["comm", "check", dir.to_str().unwrap(), "--width", "0"]);
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn comm_check_is_clean(db: &str) {
    // The reference reports 108 false "bad Barriers" on `flush` (BLPROF_FORMAT.md
    // §9.19: it reads unused barrier slots); every barrier there is well formed.
    let (code, out, _) = check(&fixture(db).join("bl_prof"));
    assert_eq!(code, Some(0), "{db}: {out}");
    assert!(out.ends_with("clean\n"), "{db}: {out}");
}

database_tests!(comm_check_is_clean);

#[test]
fn comm_check_counts_what_it_checked() {
    let (_, out, _) = check(&fixture("flush").join("bl_prof"));
    assert!(
        out.contains("16 blocks, 2355 records, 72 barriers, 124 name tags"),
        "{out}"
    );
}

#[test]
fn comm_check_finds_damage() {
    // A record's time going backwards: record 10 of process 0's block gets time 0.
    let db = copy_db("small4");
    let f = db.path().join("bl_comm_prof_D_00000");
    let mut bytes = fs::read(&f).unwrap();
    bytes[10 * 24 + 16..10 * 24 + 24].copy_from_slice(&0.0f64.to_le_bytes());
    fs::write(&f, bytes).unwrap();
    let (code, out, _) = check(db.path());
    assert_eq!(code, Some(1));
    assert!(
        out.contains("bl_comm_prof_D_00000: byte offset 240") && out.contains("goes back"),
        "{out}"
    );

    // A barrier whose record index points at another record.
    let db = copy_db("small4");
    let h = db.path().join("bl_comm_prof_H_00001");
    let text = fs::read_to_string(&h).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("bNum"))
        .unwrap()
        .to_owned();
    let idx = line.rsplit(' ').next().unwrap().to_owned();
    let bad = format!(
        "{} {}",
        line.rsplit_once(' ').unwrap().0,
        idx.parse::<i64>().unwrap() + 2
    );
    fs::write(&h, text.replacen(&line, &bad, 1)).unwrap();
    let (code, out, _) = check(db.path());
    assert_eq!(code, Some(1));
    assert!(out.contains("is not a Barrier before/after pair"), "{out}");

    // A block past the end of its data file.
    let db = copy_db("nfiles2");
    let h = db.path().join("bl_comm_prof_H_00001");
    let text = fs::read_to_string(&h).unwrap();
    let at = text.find("seekpos  ").unwrap() + "seekpos  ".len();
    let end = at + text[at..].find(' ').unwrap();
    fs::write(&h, format!("{}99999999{}", &text[..at], &text[end..])).unwrap();
    let (code, out, _) = check(db.path());
    assert_eq!(code, Some(1));
    assert!(
        out.contains("bl_comm_prof_D_00001: byte offset 99999999"),
        "{out}"
    );
    // Stats still report the intact processes, with exit code 3.
    let o = profparse()
        .args(["comm", "stats", db.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
}

/// `(nx, ny, values)` of an amrprofparser 2-D FAB file (x fastest).
fn read_fab(path: &Path) -> (usize, usize, Vec<f64>) {
    let bytes = fs::read(path).unwrap();
    let nl = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header = std::str::from_utf8(&bytes[..nl]).unwrap();
    // ...((0,0) (nx-1,ny-1) (0,0)) 1
    let hi = header.rsplit("((0,0) (").next().unwrap();
    let hi = hi.split(')').next().unwrap();
    let (x, y) = hi.split_once(',').unwrap();
    let (nx, ny) = (
        x.parse::<usize>().unwrap() + 1,
        y.parse::<usize>().unwrap() + 1,
    );
    let values = bytes[nl + 1..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (nx, ny, values)
}

fn barrier_waits_match_spd(db: &str) {
    let dir = fixture(db).join("bl_prof");
    let (b, _) = stats(&[
        "comm",
        "barriers",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let (nx, ny, waits) = read_fab(&fixture(db).join("golden/spd/bwaits.2d.fab"));
    let (_, _, exits) = read_fab(&fixture(db).join("golden/spd/bexits.2d.fab"));
    let mut compared = 0;
    for bar in b["barriers"].as_array().unwrap() {
        let n = bar["number"].as_u64().unwrap() as usize;
        // The reference sizes the table from the last header file only (§9.33).
        if n >= nx {
            continue;
        }
        for a in bar["procs"].as_array().unwrap() {
            let p = a["proc"].as_u64().unwrap() as usize;
            assert!(p < ny);
            let (gw, ge) = (waits[p * nx + n], exits[p * nx + n]);
            assert!(
                (a["wait"].as_f64().unwrap() - gw).abs() < 1e-12,
                "{db} barrier {n} proc {p}"
            );
            assert!(
                (a["exit"].as_f64().unwrap() - ge).abs() < 1e-12,
                "{db} barrier {n} proc {p}"
            );
            compared += 1;
        }
        // The last arrival waited least.
        let last = bar["last_arrival"].as_u64().unwrap();
        let min = bar["procs"]
            .as_array()
            .unwrap()
            .iter()
            .min_by(|x, y| {
                x["wait"]
                    .as_f64()
                    .unwrap()
                    .total_cmp(&y["wait"].as_f64().unwrap())
            })
            .unwrap();
        assert_eq!(min["proc"].as_u64().unwrap(), last);
    }
    assert!(compared > 0, "{db}");
}

database_tests!(barrier_waits_match_spd);

fn sends_match_sendspf(db: &str) {
    let dir = fixture(db).join("bl_prof");
    let (m, _) = stats(&["comm", "matrix", dir.to_str().unwrap(), "--format", "json"]);
    let xgr = |name: &str| -> Vec<u64> {
        fs::read_to_string(fixture(db).join("golden/sendspf").join(name))
            .unwrap()
            .lines()
            .map(|l| l.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap() as u64)
            .collect()
    };
    let row_sum = |key: &str| -> Vec<u64> {
        let mut sums = vec![0; m["nprocs"].as_u64().unwrap() as usize];
        for r in m["routes"].as_array().unwrap() {
            sums[r["from"].as_u64().unwrap() as usize] += r[key].as_u64().unwrap();
        }
        sums
    };
    assert_eq!(
        row_sum("messages"),
        xgr("totalSendsPerProc.xgr"),
        "{db}: sends per process"
    );
    assert_eq!(
        row_sum("bytes"),
        xgr("totalSentDataPerProc.xgr"),
        "{db}: bytes per process"
    );
}

test_program_database_tests!(sends_match_sendspf);

#[test]
fn matrix_svg_is_a_picture_of_the_right_size() {
    let tmp = tempfile::tempdir().unwrap();
    let svg = tmp.path().join("m.svg");
    let dir = fixture("small4").join("bl_prof");
    let out = profparse()
        .args([
            "comm",
            "matrix",
            dir.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    // One cell per sender × receiver (each with its tooltip), and a
    // colour scale.
    assert_eq!(text.matches("</rect>").count(), 16);
    assert_eq!(text.matches("<line x1=").count(), 5, "{text}");
    assert!(text.contains("0 → 1: 61440 bytes, 100 messages"), "{text}");
}

fn every_send_finds_its_receive(db: &str) {
    let dir = fixture(db).join("bl_prof");
    let d = dir.to_str().unwrap();
    let (p, _) = stats(&["comm", "pairs", d, "--format", "json"]);
    let (s, _) = stats(&["comm", "stats", d, "--format", "json"]);
    let sends: u64 = s["procs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["sends"].as_u64().unwrap())
        .sum();
    let pairs = p["pairs"].as_array().unwrap();
    let unmatched = p["unmatched_sends"].as_array().unwrap().len() as u64;
    assert_eq!(pairs.len() as u64 + unmatched, sends, "{db}");
    // In these runs every message was received.
    assert_eq!(unmatched, 0, "{db}");
    let (m, _) = stats(&["comm", "matrix", d, "--format", "json"]);
    for pr in pairs {
        let (from, to) = (
            pr["from"].as_u64().unwrap() as usize,
            pr["to"].as_u64().unwrap() as usize,
        );
        let route = m["routes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["from"] == from && r["to"] == to);
        assert!(
            route.is_some_and(|r| r["messages"].as_u64().unwrap() > 0),
            "{db}: {pr}"
        );
    }
    let csv = profparse()
        .args(["comm", "pairs", d, "--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(csv.stdout).unwrap().lines().count(),
        pairs.len() + 1
    );
}

database_tests!(every_send_finds_its_receive);

#[test]
fn timeline_pictures_and_chrome_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let (svg, json) = (tmp.path().join("t.svg"), tmp.path().join("t.json"));
    let dir = fixture("small4").join("bl_prof");
    let out = profparse()
        .args([
            "comm",
            "timeline",
            dir.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
            "--chrome",
            json.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let ev = v["traceEvents"].as_array().unwrap();
    // Every barrier is one X event from its before to its after record.
    assert_eq!(
        ev.iter()
            .filter(|e| e["name"] == "Barrier" && e["ph"] == "X")
            .count(),
        100
    );
    assert_eq!(
        ev.iter()
            .filter(|e| e["name"] == "NameTag" && e["ph"] == "i")
            .count(),
        244
    );
    for e in ev.iter().filter(|e| e["ph"] == "X") {
        assert!(
            e["dur"].as_f64().unwrap() >= 0.0 && e["pid"].as_u64().unwrap() < 4,
            "{e}"
        );
    }
    let text = fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    // Bars are runs of time slices: never more than slices × processes,
    // whatever the number of calls, and the barriers show.
    let bars = text.matches("<rect x=").count();
    assert!(bars > 0 && bars <= 4 * 1130, "{bars} bars");
    assert!(text.contains("<title>Barrier "), "barriers are drawn");
    // Every call is counted in exactly one bar of its type or hidden under
    // a type with more time: the counts never exceed the calls.
    let counted: u64 = text
        .split(": ")
        .skip(1)
        .filter_map(|s| s.split(' ').next()?.parse::<u64>().ok())
        .sum();
    let (st, _) = stats(&["comm", "stats", dir.to_str().unwrap(), "--format", "json"]);
    let calls: u64 = st["by_type"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["calls"].as_u64().unwrap())
        .sum();
    assert!(
        counted >= 4 && counted <= calls,
        "{counted} of {calls} calls"
    );
    assert!(text.contains(">proc 3</text>"));
    // Nothing asked, nothing written: a usage error.
    let out = profparse()
        .args(["comm", "timeline", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

fn comm_reports_are_identical_at_one_and_two_threads(db: &str) {
    let dir = fixture(db).join("bl_prof");
    let d = dir.to_str().unwrap();
    for sub in ["stats", "check", "pairs", "barriers", "matrix", "time"] {
        let run = |j: &str| {
            profparse()
                .args([j, "comm", sub, d, "--format", "json"])
                .output()
                .unwrap()
                .stdout
        };
        assert_eq!(run("-j1"), run("-j2"), "{db} {sub}");
    }
}

database_tests!(comm_reports_are_identical_at_one_and_two_threads);

#[test]
fn comm_pairs_is_byte_identical_at_one_and_four_threads() {
    // The pairs are found and formatted in parallel tasks and written in
    // order: every format, with selections that leave messages unmatched.
    let mut unmatched = false;
    for db in DATABASES {
        let dir = fixture(db).join("bl_prof");
        let d = dir.to_str().unwrap();
        for format in ["table", "json", "csv"] {
            for sel in [
                &[][..],
                &["--proc", "1"],
                &["--time", "0.025..0.03"],
                &["--proc", "0", "--proc", "2", "--time", "0.02..0.03"],
            ] {
                if db == "single" && sel.contains(&"--proc") && !sel.ends_with(&["--proc", "0"]) {
                    // A --proc without communication data is a usage error
                    // (exit 2), tested in flags.rs.
                    continue;
                }
                let run = |j: &str| {
                    let out = profparse()
                        .args([j, "comm", "pairs", d, "--format", format])
                        .args(sel)
                        .output()
                        .unwrap();
                    assert!(out.status.success(), "{db} {format} {sel:?}");
                    out.stdout
                };
                let one = run("-j1");
                assert!(!one.is_empty());
                unmatched |= format == "table"
                    && !String::from_utf8_lossy(&one).contains("0 sends and 0 receives");
                assert!(one == run("-j4"), "{db} {format} {sel:?}");
            }
        }
    }
    assert!(unmatched, "some selection leaves messages unmatched");
}

#[test]
fn selections_reductions_and_listings() {
    let dir = fixture("flush").join("bl_prof");
    let d = dir.to_str().unwrap();
    let (all, _) = stats(&["comm", "barriers", d, "--format", "json"]);
    let (early, _) = stats(&["comm", "barriers", d, "--format", "json", "--time", "..0.4"]);
    let count = |v: &Value| {
        v["barriers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["procs"].as_array().unwrap().len())
            .sum::<usize>()
    };
    assert!(count(&early) > 0 && count(&early) < count(&all));
    for b in early["barriers"].as_array().unwrap() {
        for a in b["procs"].as_array().unwrap() {
            assert!(a["arrival"].as_f64().unwrap() <= 0.4);
        }
    }
    let (one, _) = stats(&["comm", "matrix", d, "--format", "json", "--proc", "1"]);
    let mut rows = vec![0u64; one["nprocs"].as_u64().unwrap() as usize];
    for r in one["routes"].as_array().unwrap() {
        rows[r["from"].as_u64().unwrap() as usize] += r["messages"].as_u64().unwrap();
    }
    assert!(
        rows[1] > 0 && rows[0] == 0 && rows[2] == 0 && rows[3] == 0,
        "{rows:?}"
    );
    let (pairs, _) = stats(&["comm", "pairs", d, "--format", "json", "--proc", "0"]);
    assert!(
        pairs["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["from"] == 0 || p["to"] == 0)
    );

    // All-reductions: 3 per step × 20 steps on each process of small4.
    let (b, _) = stats(&[
        "comm",
        "barriers",
        fixture("small4").join("bl_prof").to_str().unwrap(),
        "--format",
        "json",
        "--reductions",
    ]);
    assert_eq!(b["reductions"].as_array().unwrap().len(), 60);
    assert!(
        b["reduction_procs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["barriers"] == 60)
    );

    // Barrier names counted from the bNum lines themselves.
    let (s, _) = stats(&[
        "comm",
        "stats",
        fixture("small4").join("bl_prof").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for e in fs::read_dir(fixture("small4").join("bl_prof")).unwrap() {
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
                .filter(|l| l.starts_with("bNum"))
            {
                let name = l.split('"').nth(1).unwrap().to_owned();
                *expected.entry(name).or_default() += 1;
            }
        }
    }
    let ours: BTreeMap<String, u64> = s["barrier_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_owned(),
                n["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ours, expected);
    assert_eq!(
        s["name_tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["count"].as_u64().unwrap())
            .sum::<u64>(),
        244
    );
}

fn paired_sends_are_the_sends_srlist_lists(db: &str) {
    // -srlist lists every send (and receive) without pairing them (bug §9.21);
    // the send side of our pairs must be exactly its send entries.
    let list = fs::read_to_string(fixture(db).join("golden/srlist/SendRecvList.txt")).unwrap();
    let mut golden: Vec<(String, i64, i64, i64, i64)> = list
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[1].starts_with("Asend") || f[1].starts_with("Send"))
        .map(|f| {
            (
                format!("{:.9}", f[0].parse::<f64>().unwrap()),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().unwrap(),
            )
        })
        .collect();
    let (p, _) = stats(&[
        "comm",
        "pairs",
        fixture(db).join("bl_prof").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let mut ours: Vec<(String, i64, i64, i64, i64)> = p["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                format!("{:.9}", x["send_time"].as_f64().unwrap()),
                x["from"].as_i64().unwrap(),
                x["to"].as_i64().unwrap(),
                x["size"].as_i64().unwrap(),
                x["tag"].as_i64().unwrap(),
            )
        })
        .collect();
    golden.sort();
    ours.sort();
    assert_eq!(ours, golden, "{db}");
}

test_program_database_tests!(paired_sends_are_the_sends_srlist_lists);

/// By default only the barrier records the headers point to are read: the
/// same barriers as the scan of every record `--reductions` makes, and no
/// all-reductions.
fn barriers_alone_read_by_index_are_the_same(db: &str) {
    let dir = fixture(db).join("bl_prof");
    let d = dir.to_str().unwrap();
    let (all, _) = stats(&["comm", "barriers", d, "--format", "json", "--reductions"]);
    let (only, _) = stats(&["comm", "barriers", d, "--format", "json"]);
    assert_eq!(all["barriers"], only["barriers"], "{db}");
    assert_eq!(all["procs"], only["procs"], "{db}");
    assert!(only["reductions"].as_array().unwrap().is_empty(), "{db}");
}

database_tests!(barriers_alone_read_by_index_are_the_same);

/// The table shows the all-reductions the analysis finds: one row per
/// type, counting the reductions of that type in the JSON.
#[test]
fn barriers_table_shows_the_reductions() {
    let dir = fixture("small4").join("bl_prof");
    let (v, _) = stats(&[
        "comm",
        "barriers",
        dir.to_str().unwrap(),
        "--format",
        "json",
        "--reductions",
    ]);
    let reductions = v["reductions"].as_array().unwrap();
    assert!(!reductions.is_empty());
    let text = run_ok(&["comm", "barriers", dir.to_str().unwrap(), "--reductions"]);
    let section = text.split("All-reductions").nth(1).expect(&text);
    for name in ["AllReduceI", "AllReduceL", "AllReduceR"] {
        let n = reductions.iter().filter(|r| r["name"] == name).count();
        let row = section.lines().find(|l| l.starts_with(name)).expect(name);
        assert_eq!(
            row.split_whitespace().nth(1),
            Some(n.to_string().as_str()),
            "{row}"
        );
    }
    let procs = v["reduction_procs"].as_array().unwrap().len();
    assert_eq!(
        section
            .lines()
            .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .count(),
        procs
    );
}
