//! `profparse export DB --chrome F`: calls, regions and communication
//! calls with message flows. Checks the Trace Event rules the viewers rely
//! on, and that the flows are exactly the pairs of `comm pairs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::common::{db, output, run_ok, s};

/// Exports `dir` with `extra` options; returns the events.
fn export(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t.json");
    let mut args = vec!["export", s(dir), "--chrome", s(&out)];
    args.extend_from_slice(extra);
    run_ok(&args);
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["displayTimeUnit"], "ms");
    v["traceEvents"].as_array().unwrap().clone()
}

fn f(e: &Value, k: &str) -> f64 {
    e[k].as_f64().unwrap_or_else(|| panic!("{k} of {e}"))
}

/// The rules every export keeps; returns the number of flows.
fn check_rules(events: &[Value]) -> usize {
    for e in events {
        assert!(
            e["pid"].as_u64().is_some() && e["tid"].as_u64().is_some(),
            "{e}"
        );
        assert!(e["name"].is_string() && e["ph"].is_string(), "{e}");
        match e["ph"].as_str().unwrap() {
            "X" => {
                let (ts, dur) = (f(e, "ts"), f(e, "dur"));
                assert!(ts.is_finite() && ts >= 0.0, "{e}");
                assert!(dur.is_finite() && dur >= 0.0, "{e}");
            }
            "i" | "s" | "f" => assert!(f(e, "ts").is_finite(), "{e}"),
            "M" => {}
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    assert_nested(events);
    // Comm calls on track 2; every flow end inside a comm slice of its track.
    let mut slices: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    for e in events.iter().filter(|e| e["cat"] == "comm") {
        assert_eq!(e["tid"], 2, "{e}");
        if e["ph"] == "X" {
            let ts = f(e, "ts");
            slices
                .entry(e["pid"].as_u64().unwrap())
                .or_default()
                .push((ts, ts + f(e, "dur")));
        }
    }
    // Every s has exactly one f with the same id (and the same cat), and back.
    let mut starts: BTreeMap<u64, &Value> = BTreeMap::new();
    let mut finishes: BTreeMap<u64, &Value> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "s" || e["ph"] == "f") {
        let id = e["id"].as_u64().unwrap();
        let side = if e["ph"] == "s" {
            &mut starts
        } else {
            assert_eq!(e["bp"], "e", "{e}");
            &mut finishes
        };
        assert!(side.insert(id, e).is_none(), "id {id} twice: {e}");
        assert_eq!(e["tid"], 2, "{e}");
        let ts = f(e, "ts");
        let inside = slices
            .get(&e["pid"].as_u64().unwrap())
            .is_some_and(|v| v.iter().any(|&(a, z)| a < ts && ts < z));
        assert!(inside, "flow end outside any comm slice of its track: {e}");
    }
    assert_eq!(
        starts.keys().collect::<Vec<_>>(),
        finishes.keys().collect::<Vec<_>>()
    );
    for (id, s) in &starts {
        let fin = finishes[id];
        assert_eq!(s["cat"], fin["cat"]);
        assert_eq!(s["args"], fin["args"]);
        assert_eq!(s["pid"], s["args"]["from"]);
        assert_eq!(fin["pid"], fin["args"]["to"]);
    }
    starts.len()
}

/// Complete events of one track nest (a slice starts after its sibling
/// ended, and ends before its parent does), as the trace event format
/// requires of slices on one thread.
fn assert_nested(events: &[Value]) {
    // In whole nanoseconds, as viewers read the microseconds written to
    // the nanosecond (no float error at touching ends).
    let ns = |e: &Value, k: &str| (f(e, k) * 1e3).round() as i64;
    /// (start, end, event) of a slice, per (pid, tid).
    type Slices<'a> = Vec<(i64, i64, &'a Value)>;
    let mut tracks: BTreeMap<(u64, u64), Slices<'_>> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X") {
        let ts = ns(e, "ts");
        tracks
            .entry((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
            .or_default()
            .push((ts, ts + ns(e, "dur"), e));
    }
    for (track, mut slices) in tracks {
        slices.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut open: Slices<'_> = Vec::new();
        for s in slices {
            while open.last().is_some_and(|o| o.1 <= s.0) {
                open.pop();
            }
            if let Some(parent) = open.last() {
                assert!(
                    s.1 <= parent.1,
                    "track {track:?}: {} overlaps {} without nesting",
                    s.2,
                    parent.2
                );
            }
            open.push(s);
        }
    }
}

/// `comm pairs --format json` with `extra` options: (from, to) per pair.
fn pairs(dir: &Path, extra: &[&str]) -> Vec<(u64, u64)> {
    let mut args = vec!["comm", "pairs", s(dir), "--format", "json"];
    args.extend_from_slice(extra);
    let v: Value = serde_json::from_str(&run_ok(&args)).unwrap();
    v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["from"].as_u64().unwrap(), p["to"].as_u64().unwrap()))
        .collect()
}

fn comm_calls_and_one_flow_per_matched_message(name: &str) {
    let dir = db(name);
    let events = export(&dir, &[]);
    let flows = check_rules(&events);
    let expected = pairs(&dir, &[]);
    assert!(!expected.is_empty(), "{name}");
    assert_eq!(flows, expected.len(), "{name}: flows = matched pairs");
    // Calls and regions as before; comm calls on every process.
    let info: Value =
        serde_json::from_str(&run_ok(&["info", s(&dir), "--format", "json"])).unwrap();
    let calls = events.iter().filter(|e| e["cat"] == "call").count() as u64;
    assert_eq!(calls, info["trace"]["call_records"].as_u64().unwrap());
    let comm_pids: BTreeSet<u64> = events
        .iter()
        .filter(|e| e["cat"] == "comm")
        .map(|e| e["pid"].as_u64().unwrap())
        .collect();
    assert_eq!(
        comm_pids.len() as u64,
        info["comm"]["procs"].as_u64().unwrap()
    );
    // Named tracks.
    for (tid, track) in [(0, "calls"), (1, "regions"), (2, "comm")] {
        assert!(
            events.iter().any(|e| e["ph"] == "M"
                && e["name"] == "thread_name"
                && e["tid"] == tid
                && e["args"]["name"] == track),
            "{name}: no {track} track"
        );
    }
}

// The fixtures with a comm profile.
fixture_tests!(
    comm_calls_and_one_flow_per_matched_message: small4, nfiles2, flush, asym4, host_nid
);

#[test]
fn no_comm_leaves_them_out() {
    let dir = db("small4");
    let all = export(&dir, &[]);
    let without = export(&dir, &["--no-comm"]);
    check_rules(&without);
    assert!(
        without
            .iter()
            .all(|e| e["cat"] != "comm" && e["cat"] != "message" && e["tid"] != 2)
    );
    let calls = |v: &[Value]| v.iter().filter(|e| e["cat"] == "call").count();
    assert_eq!(calls(&all), calls(&without));
    assert!(all.len() > without.len());
}

#[test]
fn proc_time_and_min_dur_apply_to_comm_too() {
    let dir = db("small4");
    // Processes: only their tracks, flows between them only.
    let events = export(&dir, &["--proc", "0,1"]);
    let flows = check_rules(&events);
    assert!(events.iter().all(|e| e["pid"] == 0 || e["pid"] == 1));
    let between = pairs(&dir, &[])
        .into_iter()
        .filter(|&(a, b)| a <= 1 && b <= 1)
        .count();
    assert!(between > 0);
    assert_eq!(flows, between);
    let repeated = export(&dir, &["--proc", "0", "--proc", "1"]);
    assert_eq!(repeated, events);

    // A window: comm calls overlap it, flows have both ends inside it.
    let all = export(&dir, &[]);
    let comm_ts: Vec<f64> = all
        .iter()
        .filter(|e| e["cat"] == "comm")
        .map(|e| f(e, "ts") / 1e6)
        .collect();
    let (lo, hi) = comm_ts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, z), &t| {
            (a.min(t), z.max(t))
        });
    let (t0, t1) = (lo + 0.25 * (hi - lo), lo + 0.6 * (hi - lo));
    let window = format!("{t0},{t1}");
    let events = export(&dir, &["--time", &window]);
    let flows = check_rules(&events);
    let comm: Vec<&Value> = events.iter().filter(|e| e["cat"] == "comm").collect();
    assert!(!comm.is_empty() && comm.len() < comm_ts.len());
    for e in comm {
        let (ts, dur) = (f(e, "ts") / 1e6, e["dur"].as_f64().unwrap_or(0.0) / 1e6);
        assert!(ts <= t1 && ts + dur >= t0, "{e}");
    }
    for e in events.iter().filter(|e| e["ph"] == "s") {
        let (a, b) = (f(&e["args"], "send_time_s"), f(&e["args"], "recv_time_s"));
        assert!((t0..=t1).contains(&a) && (t0..=t1).contains(&b), "{e}");
    }
    assert_eq!(
        flows,
        pairs(&dir, &["--time", &format!("{t0}..{t1}")]).len()
    );
    assert!(flows > 0);

    // A minimum duration: short comm calls and instants go, flows keep both calls.
    let min_dur = 5e-6;
    let events = export(&dir, &["--min-dur", &min_dur.to_string()]);
    let flows = check_rules(&events);
    let comm: Vec<&Value> = events.iter().filter(|e| e["cat"] == "comm").collect();
    assert!(!comm.is_empty());
    for e in comm {
        assert_eq!(e["ph"], "X", "{e}");
        assert!(f(e, "dur") >= min_dur * 1e6 * (1.0 - 1e-9), "{e}");
    }
    assert!(flows < pairs(&dir, &[]).len());
}

#[test]
fn big_exports_are_announced_before_they_are_written() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big");
    // 4 × 260,000 call records: more than the ~1 M events chrome://tracing loads.
    run_ok(&[
        "synth",
        "blprof",
        s(&big),
        "--calls",
        "260000",
        "--messages",
        "10",
    ]);
    // The destination cannot be created: whatever is said came before writing.
    let nowhere = tmp.path().join("missing/t.json");
    let out = output(&["export", s(&big), "--chrome", s(&nowhere)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("chrome://tracing"), "{err}");
    assert!(err.contains("--time T0,T1"), "{err}");
    assert!(err.contains("Perfetto"), "{err}");
    // One process is small enough.
    let out = output(&["export", s(&big), "--chrome", s(&nowhere), "--proc", "0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("chrome://tracing"), "{err}");
}

/// The events of a Chrome trace file.
fn trace_events(file: &Path) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    v["traceEvents"].as_array().unwrap().clone()
}

/// Every process of the input (`procs`, from the input's own report) is
/// named `process N` by one metadata event, no other is, and every track
/// it uses carries its label (`tracks[tid]`); times are whole nanoseconds
/// (at most 3 decimals of a microsecond).
fn named_and_rounded(events: &[Value], procs: &BTreeSet<u64>, tracks: &[&str], what: &str) {
    assert_nested(events);
    let meta = |kind: &str| -> Vec<((u64, u64), String)> {
        events
            .iter()
            .filter(|e| e["ph"] == "M" && e["name"] == kind)
            .map(|e| {
                let label = e["args"]["name"].as_str();
                let label = label.unwrap_or_else(|| panic!("{what}: {e} has no label"));
                (
                    (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()),
                    label.to_owned(),
                )
            })
            .collect()
    };
    let named = meta("process_name");
    let mut pids = BTreeSet::new();
    for ((pid, _), label) in &named {
        assert!(pids.insert(*pid), "{what}: process {pid} named twice");
        assert_eq!(label, &format!("process {pid}"), "{what}");
    }
    assert_eq!(&pids, procs, "{what}: the processes named");
    let threads: BTreeSet<(u64, u64)> = meta("thread_name")
        .into_iter()
        .map(|((pid, tid), label)| {
            let want = tracks.get(tid as usize).copied();
            assert_eq!(Some(label.as_str()), want, "{what}: track {pid}/{tid}");
            (pid, tid)
        })
        .collect();
    let mut seen = 0;
    for e in events.iter().filter(|e| e["ph"] != "M") {
        let (pid, tid) = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        assert!(pids.contains(&pid), "{what}: process {pid} unnamed");
        assert!(
            threads.contains(&(pid, tid)),
            "{what}: track {pid}/{tid} unnamed"
        );
        for k in ["ts", "dur"] {
            if let Some(x) = e[k].as_f64() {
                let ns = x * 1e3;
                assert!(
                    (ns - ns.round()).abs() < 1e-6 * ns.abs().max(1.0),
                    "{what}: {k} {x}"
                );
            }
        }
        seen += 1;
    }
    assert!(seen > 0, "{what}");
}

#[test]
fn every_chrome_export_names_its_processes_and_tracks() {
    let tmp = tempfile::tempdir().unwrap();
    let d = db("flush");
    // The processes as the inputs' own reports list them.
    let info = crate::common::json(&["info", s(&d), "--format", "json"]);
    let procs: BTreeSet<u64> = (0..info["nprocs"].as_u64().unwrap()).collect();
    let a = tmp.path().join("export.json");
    run_ok(&["export", s(&d), "--chrome", s(&a)]);
    let tracks = ["calls", "regions", "comm"];
    named_and_rounded(&trace_events(&a), &procs, &tracks, "export --chrome");
    let b = tmp.path().join("timeline.json");
    run_ok(&["-q", "comm", "timeline", s(&d), "--chrome", s(&b)]);
    let tracks = ["comm"];
    named_and_rounded(&trace_events(&b), &procs, &tracks, "comm timeline --chrome");
    let c = tmp.path().join("tlog.json");
    let log = crate::common::tlog("np4.log");
    let summary = crate::common::json(&["tlog", "summary", s(&log), "--format", "json"]);
    let procs: BTreeSet<u64> = summary["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["proc"].as_u64().unwrap())
        .collect();
    assert_eq!(procs.len(), 4, "np4.log");
    run_ok(&["-q", "tlog", "export", s(&log), "--chrome", s(&c)]);
    let tracks = ["events"];
    named_and_rounded(&trace_events(&c), &procs, &tracks, "tlog export --chrome");
}

/// `--args`: none by default (viewers group calls by name), the depth with
/// `summary`, every figure with `all`.
#[test]
fn call_args_are_chosen() {
    let d = db("small4");
    let keys = |extra: &[&str]| -> BTreeSet<String> {
        export(&d, extra)
            .iter()
            .filter(|e| e["cat"] == "call")
            .flat_map(|e| {
                e.get("args")
                    .and_then(Value::as_object)
                    .map(|a| a.keys().cloned().collect::<Vec<_>>())
                    .unwrap_or_default()
            })
            .collect()
    };
    assert!(keys(&[]).is_empty());
    assert_eq!(
        keys(&["--args", "summary"]),
        BTreeSet::from(["depth".to_owned()])
    );
    assert_eq!(
        keys(&["--args", "all"]),
        BTreeSet::from(["depth", "exclusive_s", "inclusive_s"].map(String::from))
    );
}

// ------------------------------------------------------------- TAU profiles

fn profile_files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn tau_export_writes_a_profile_per_process_and_what_proc_asks_for() {
    let out = tempfile::tempdir().unwrap();
    let all = out.path().join("all");
    run_ok(&["export", s(&db("small4")), "--tau", s(&all)]);
    let names: Vec<String> = (0..4).map(|p| format!("profile.{p}.0.0")).collect();
    assert_eq!(profile_files(&all), names.iter().cloned().collect());
    // Each one's count line matches its entries, the root first.
    for n in &names {
        let text = std::fs::read_to_string(all.join(n)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let count: usize = lines[0]
            .strip_suffix(" templated_functions_MULTI_TIME")
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(lines.len(), count + 3, "{n}");
        assert!(lines[2].starts_with("\".TAU application\" 1 "), "{n}");
        assert_eq!(*lines.last().unwrap(), "0 aggregates");
    }
    let some = out.path().join("some");
    run_ok(&[
        "export",
        s(&db("small4")),
        "--tau",
        s(&some),
        "--proc",
        "3,1",
    ]);
    assert_eq!(
        profile_files(&some),
        ["profile.1.0.0", "profile.3.0.0"].map(String::from).into()
    );
    // The same process's profile whichever processes are exported.
    assert_eq!(
        std::fs::read(all.join("profile.3.0.0")).unwrap(),
        std::fs::read(some.join("profile.3.0.0")).unwrap()
    );
}

#[test]
fn tau_export_refuses_what_it_cannot_do_and_leaves_nothing_behind() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("tau");
    let code = |args: &[&str]| output(args).status.code();
    let d = db("small4");
    assert_eq!(
        code(&["export", s(&d), "--tau", s(&dir), "--proc", "9"]),
        Some(2)
    );
    assert_eq!(
        code(&["export", s(&d), "--tau", s(&dir), "--time", "0,1"]),
        Some(2)
    );
    // Over the output limit: a usage error naming --force, nothing written.
    let refused = crate::common::profparse()
        .args(["export", s(&d), "--tau", s(&dir)])
        .env("PROFPARSE_OUTPUT_LIMIT", "20000")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("the TAU profiles would write about"), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert!(!dir.exists(), "nothing written, not even the directory");
    // A file where the directory should be is named, and left alone.
    let file = out.path().join("plain");
    std::fs::write(&file, "keep").unwrap();
    let r = output(&["export", s(&d), "--tau", s(&file)]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("is not a directory"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep");
    // Another run's profiles in the directory are named in a note.
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("profile.7.0.0"), "stale").unwrap();
    let (_, stderr) = crate::common::run_ok_stderr(&["export", s(&d), "--tau", s(&dir)]);
    assert!(stderr.contains("1 other profile.* files"), "{stderr}");
}

/// Every file under `dir` with its bytes (and every directory, as `None`).
fn snapshot(dir: &Path) -> BTreeMap<std::path::PathBuf, Option<Vec<u8>>> {
    let mut all = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            all.insert(p.clone(), None);
            all.extend(snapshot(&p));
        } else {
            all.insert(p.clone(), Some(std::fs::read(&p).unwrap()));
        }
    }
    all
}

/// An export that fails after some profiles are written (here: a directory
/// where process 2's profile goes) leaves DIR byte-identical; a successful
/// one replaces our profiles and keeps another run's.
#[test]
fn a_tau_export_that_fails_midway_leaves_the_directory_as_it_was() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("tau");
    std::fs::create_dir_all(dir.join("profile.2.0.0")).unwrap();
    std::fs::write(dir.join("profile.2.0.0/keep"), "mine").unwrap();
    for p in [0, 1, 3, 7] {
        std::fs::write(dir.join(format!("profile.{p}.0.0")), format!("old {p}")).unwrap();
    }
    let before = snapshot(&dir);
    let r = output(&["export", s(&db("small4")), "--tau", s(&dir)]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("profile.2.0.0") && err.contains("is a directory"),
        "{err}"
    );
    assert_eq!(snapshot(&dir), before);
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        1,
        "no temporary left"
    );
    std::fs::remove_dir_all(dir.join("profile.2.0.0")).unwrap();
    crate::common::run_ok_stderr(&["export", s(&db("small4")), "--tau", s(&dir)]);
    let after = profile_files(&dir);
    assert_eq!(after.len(), 5, "{after:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("profile.7.0.0")).unwrap(),
        "old 7"
    );
    assert!(
        std::fs::read_to_string(dir.join("profile.0.0.0"))
            .unwrap()
            .contains("templated_functions")
    );
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        1,
        "no temporary left"
    );
}

/// `--align-clocks` moves every event of a process by its offset of `comm
/// clocks` (calls, regions, comm calls, flow ends and the times in the
/// flows' `args`), and nothing else: the same events in the same order,
/// slices still nested, flows still inside their calls.
#[test]
fn aligned_clocks_move_each_process_by_its_offset() {
    for name in ["amrlevel8", "small4"] {
        let dir = db(name);
        let raw = export(&dir, &[]);
        let aligned = export(&dir, &["--align-clocks"]);
        let clocks: Value =
            serde_json::from_str(&run_ok(&["comm", "clocks", s(&dir), "--format", "json"]))
                .unwrap();
        let offset: BTreeMap<u64, f64> = clocks["procs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["proc"].as_u64().unwrap(), f(p, "offset")))
            .collect();
        assert!(
            offset.values().any(|&o| o.abs() > 1e-6),
            "{name}: no offset to test"
        );
        assert_eq!(raw.len(), aligned.len(), "{name}");
        let us = |p: u64| offset.get(&p).copied().unwrap_or(0.0) * 1e6;
        let mut moved = 0;
        for (a, b) in raw.iter().zip(&aligned) {
            assert_eq!(
                (&a["name"], &a["ph"], &a["pid"]),
                (&b["name"], &b["ph"], &b["pid"])
            );
            if a["ph"] == "M" {
                assert_eq!(a, b);
                continue;
            }
            let shift = us(a["pid"].as_u64().unwrap());
            // Rounded to the ns on both sides.
            assert!(
                (f(a, "ts") - shift - f(b, "ts")).abs() < 0.0021,
                "{name}: {a} → {b}"
            );
            if a["ph"] == "X" {
                assert!(
                    (f(a, "dur") - f(b, "dur")).abs() < 0.0021,
                    "{name}: {a} → {b}"
                );
            }
            if a["cat"] == "message" {
                let (x, y) = (&a["args"], &b["args"]);
                let (from, to) = (x["from"].as_u64().unwrap(), x["to"].as_u64().unwrap());
                let send = f(x, "send_time_s") - us(from) / 1e6;
                let recv = f(x, "recv_time_s") - us(to) / 1e6;
                assert!((send - f(y, "send_time_s")).abs() < 1e-12, "{a} → {b}");
                assert!((recv - f(y, "recv_time_s")).abs() < 1e-12, "{a} → {b}");
            }
            moved += usize::from(shift != 0.0);
        }
        assert!(moved > 0, "{name}");
        check_rules(&aligned);
    }
}
