//! tlog traces: byte-identical dumps against the reference readers' goldens,
//! documented behaviour on every bad file, and summary numbers checked
//! against an independent computation.

use std::fs;

use serde_json::Value;

use crate::common::{output, tlog};

fn dumps_are_byte_identical_to_the_reference_readers(f: &str) {
    let log = tlog(&format!("{f}.log"));
    let log = log.to_str().unwrap();
    for (style, golden) in [
        ("tlogdump", "tlogDump"),
        ("tlog_dump", "tlog_dump"),
        ("sample", "sample"),
    ] {
        let out = output(&["tlog", "dump", log, "--style", style]);
        let expected = fs::read(tlog(&format!("golden/{f}.log.{golden}.txt"))).unwrap();
        assert!(out.stdout == expected, "{f} {style} differs");
        // edge_values holds crafted undefined types: a report with warnings.
        let want = if f == "edge_values" { 3 } else { 0 };
        assert_eq!(
            out.status.code(),
            Some(want),
            "{f} {style}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fixture_tests!(
    dumps_are_byte_identical_to_the_reference_readers: np1, np4, np4_flush_part1, edge_values
);

#[test]
fn nodes_beyond_the_ranks_print_empty_sections() {
    let out = output(&[
        "tlog",
        "dump",
        tlog("np4.log").to_str().unwrap(),
        "--style",
        "tlog_dump",
        "--nodes",
        "6",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let golden = fs::read_to_string(tlog("golden/np4.log.tlog_dump.txt")).unwrap();
    assert_eq!(
        text,
        golden
            + "-------\nTlog exec profile dump: 4, #data=0\n-------\nTlog exec profile dump: 5, #data=0\n"
    );
}

#[test]
fn bad_files_behave_as_documented() {
    // empty.log: an error, never a silent success.
    let out = output(&["tlog", "dump", tlog("bad/empty.log").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty file (0 bytes), no tlog records"));

    // truncated_mid_record.log: all 369 events, and the damage located; exit 3.
    let t = tlog("bad/truncated_mid_record.log");
    let out = output(&[
        "tlog",
        "dump",
        t.to_str().unwrap(),
        "--style",
        "tlog_dump",
        "--nodes",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        out.stdout,
        fs::read(tlog("golden/np4.log.tlog_dump.txt")).unwrap()
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("file length 7068")
            && err.contains("offset 6144")
            && err.contains("924 bytes"),
        "{err}"
    );
    assert!(err.contains("trailing 12 bytes at offset 7056"), "{err}");
    let out = output(&["--strict", "tlog", "dump", t.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let java =
        String::from_utf8(output(&["-q", "tlog", "dump", t.to_str().unwrap()]).stdout).unwrap();
    assert_eq!(
        java,
        fs::read_to_string(tlog("golden/np4.log.tlogDump.txt")).unwrap(),
        "no complete event is lost"
    );

    // procid7_in_np4.log: with --nodes 4 an error at offset 0x50; without, a warning about mixed ranks.
    let p = tlog("bad/procid7_in_np4.log");
    let out = output(&[
        "tlog",
        "dump",
        p.to_str().unwrap(),
        "--style",
        "tlog_dump",
        "--nodes",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("0x50") && err.contains("process 7") && err.contains("process count 4"),
        "{err}"
    );
    let out = output(&["tlog", "summary", p.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mixes processes 0 and 7"), "{err}");
    assert!(
        err.contains("process 0: OUT of Reflect without an open IN"),
        "{err}"
    );

    // random_3000.log: refused as not a trace (first bad offset named), dumped only with --raw.
    let r = tlog("bad/random_3000.log");
    let out = output(&["tlog", "summary", r.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not look like a tlog trace") && err.contains("byte offset 0"),
        "{err}"
    );
    assert!(
        err.contains("offset 2048") && err.contains("trailing 8 bytes at offset 2992"),
        "{err}"
    );
    let out = output(&["tlog", "dump", r.to_str().unwrap(), "--raw"]);
    assert_eq!(out.status.code(), Some(3));
    // 2 whole blocks (128 records) plus 59 complete records of the short block, minus padding.
    let lines = String::from_utf8(out.stdout).unwrap().lines().count();
    assert!(lines > 128 && lines <= 187, "{lines}");
}

/// Independent interval computation: per process and pair, durations of
/// properly nested IN/OUT records, straight from the bytes.
fn intervals(bytes: &[u8]) -> std::collections::BTreeMap<(u16, u8), (u64, f64)> {
    let mut m = std::collections::BTreeMap::new();
    let mut open: std::collections::BTreeMap<u16, Vec<(u8, f64)>> = Default::default();
    for r in bytes.chunks_exact(16) {
        let (p, kind) = (u16::from_be_bytes([r[0], r[1]]), r[2] as i8);
        let t = f64::from_be_bytes(r[8..16].try_into().unwrap());
        if !(10..=27).contains(&kind) {
            continue;
        }
        let k = ((kind - 10) / 2 + 1) as u8;
        let stack = open.entry(p).or_default();
        if kind % 2 == 0 {
            stack.push((k, t));
        } else if let Some(j) = stack.iter().rposition(|o| o.0 == k) {
            let (_, t0) = stack.remove(j);
            let e = m.entry((p, k)).or_insert((0, 0.0));
            e.0 += 1;
            e.1 += t - t0;
        }
    }
    m
}

fn summary_agrees_with_an_independent_computation(f: &str) {
    let log = tlog(&format!("{f}.log"));
    let out = output(&["tlog", "summary", log.to_str().unwrap(), "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{f}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected = intervals(&fs::read(&log).unwrap());
    let mut seen = 0;
    for p in v["processes"].as_array().unwrap() {
        for key in ["proc", "events", "start", "end", "kinds", "unmatched"] {
            assert!(p.get(key).is_some(), "missing {key}");
        }
        let proc = p["proc"].as_u64().unwrap() as u16;
        for k in p["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|k| k["role"] == "interval")
        {
            let kind = k["kind"].as_u64().unwrap() as u8;
            let (count, total) = expected[&(proc, kind)];
            assert_eq!(
                k["count"].as_u64().unwrap(),
                count,
                "{f} proc {proc} kind {kind}"
            );
            assert!((k["total"].as_f64().unwrap() - total).abs() < 1e-12);
            let (min, avg, max) = (
                k["min"].as_f64().unwrap(),
                k["avg"].as_f64().unwrap(),
                k["max"].as_f64().unwrap(),
            );
            assert!(min <= avg && avg <= max);
            for key in ["kind", "name", "count", "total", "min", "avg", "max"] {
                assert!(k.get(key).is_some(), "missing {key}");
            }
            seen += 1;
        }
    }
    assert_eq!(seen, expected.len(), "{f}: every (process, pair) reported");
    if f == "np4_flush_part1" {
        assert!(
            v["processes"][0]["end"].is_null(),
            "a flushed segment has no END"
        );
    }
}

fixture_tests!(summary_agrees_with_an_independent_computation: np1, np4, np4_flush_part1);

#[test]
fn event_names_tree_and_chrome_export() {
    let log = tlog("np4.log");
    let l = log.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let names = tmp.path().join("names.txt");
    fs::write(&names, "# my names\npair 2 Sweep\nsingle 3 Checkpoint\n").unwrap();
    let out = output(&[
        "tlog",
        "summary",
        l,
        "--event-names",
        names.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds = v["processes"][0]["kinds"].as_array().unwrap();
    assert!(
        kinds
            .iter()
            .any(|k| k["name"] == "Sweep" && k["role"] == "interval")
    );
    assert!(
        kinds
            .iter()
            .any(|k| k["name"] == "Checkpoint" && k["role"] == "single")
    );
    assert!(kinds.iter().any(|k| k["name"] == "Task"), "defaults stay");
    fs::write(&names, "pair 12 X\n").unwrap();
    let out = output(&[
        "tlog",
        "summary",
        l,
        "--event-names",
        names.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("names.txt:1"));

    let tree: Value =
        serde_json::from_slice(&output(&["tlog", "tree", l, "--format", "json"]).stdout).unwrap();
    assert_eq!(tree["nprocs"], 4);
    assert!(!tree["roots"].as_array().unwrap().is_empty());
    let one = output(&["tlog", "tree", l, "--proc", "1"]);
    assert_eq!(one.status.code(), Some(0));

    let chrome = tmp.path().join("t.json");
    output(&["tlog", "export", l, "--chrome", chrome.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&fs::read(&chrome).unwrap()).unwrap();
    let ev = v["traceEvents"].as_array().unwrap();
    assert!(ev.iter().any(|e| e["ph"] == "i"));
    for e in ev.iter().filter(|e| e["ph"] == "X") {
        assert!(e["dur"].as_f64().unwrap() >= 0.0 && e["pid"].as_u64().unwrap() < 4);
    }
}

#[test]
fn json_and_csv_dumps_round_trip() {
    let log = tlog("edge_values.log");
    let out = output(&[
        "-q",
        "tlog",
        "dump",
        log.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.len(), 32);
    // Process ids print unsigned; non-finite times are null.
    assert!(events.iter().all(|e| e["proc"].as_u64().is_some()));
    assert!(events.iter().any(|e| e["time"].is_null()));
    let csv = output(&[
        "-q",
        "tlog",
        "dump",
        log.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let mut r = csv::Reader::from_reader(&csv.stdout[..]);
    assert_eq!(r.records().count(), 32);
}

#[test]
fn generated_files_round_trip_through_dump_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    for (seed, procs, events) in [
        (1u64, 1u16, 2u64),
        (2, 3, 63),
        (3, 4, 64),
        (4, 2, 65),
        (5, 5, 301),
        (6, 7, 1000),
    ] {
        let f = tmp.path().join(format!("g{seed}.log"));
        let fs_ = f.to_str().unwrap();
        let args = [
            "synth",
            "tlog",
            fs_,
            "--procs",
            &procs.to_string(),
            "--events",
            &events.to_string(),
            "--seed",
            &seed.to_string(),
        ];
        assert!(output(&args).status.success());
        assert_eq!(fs::metadata(&f).unwrap().len() % 1024, 0);
        // Valid: no warning, every event in the JSON, in per-process time order.
        let out = output(&["tlog", "dump", fs_, "--format", "json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let ev = v["events"].as_array().unwrap();
        assert_eq!(ev.len() as u64, procs as u64 * events);
        for p in 0..procs {
            let times: Vec<f64> = ev
                .iter()
                .filter(|e| e["proc"] == p)
                .map(|e| e["time"].as_f64().unwrap())
                .collect();
            assert_eq!(times.len() as u64, events);
            assert!(times.windows(2).all(|w| w[0] <= w[1]));
            let roles: Vec<&str> = ev
                .iter()
                .filter(|e| e["proc"] == p)
                .map(|e| e["role"].as_str().unwrap())
                .collect();
            assert_eq!((roles[0], roles[roles.len() - 1]), ("start", "end"));
        }
        // The three text dumps agree with the JSON on every event.
        let c = String::from_utf8(output(&["tlog", "dump", fs_, "--style", "tlog_dump"]).stdout)
            .unwrap();
        assert_eq!(
            c.lines().count() as u64,
            procs as u64 * events + 2 * procs as u64
        );
        let java = String::from_utf8(output(&["tlog", "dump", fs_]).stdout).unwrap();
        for (line, e) in java.lines().zip(ev) {
            let t: f64 = line.rsplit("time=").next().unwrap().parse().unwrap();
            assert_eq!(
                t,
                e["time"].as_f64().unwrap(),
                "Java-style times read back exactly"
            );
        }
        let s: Value =
            serde_json::from_slice(&output(&["tlog", "summary", fs_, "--format", "json"]).stdout)
                .unwrap();
        for p in s["processes"].as_array().unwrap() {
            assert_eq!(
                p["unmatched"],
                serde_json::json!({"in": 0, "out": 0, "crossed": 0})
            );
        }
    }
}

#[test]
fn missing_ranks_are_damage_even_when_every_block_is_sound() {
    // np4.log without the blocks of ranks 1 and 2: ranks 0 and 3 remain,
    // each block sound, but the writer never skips a rank.
    let bytes = fs::read(tlog("np4.log")).unwrap();
    let kept: Vec<u8> = bytes
        .chunks(1024)
        .filter(|b| !matches!(u16::from_be_bytes([b[0], b[1]]), 1 | 2))
        .flatten()
        .copied()
        .collect();
    assert!(kept.len() < bytes.len() && !kept.is_empty());
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("gaps.log");
    fs::write(&f, &kept).unwrap();
    let out = output(&["tlog", "summary", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no records of process(es) 1, 2 below the largest process 3"),
        "{err}"
    );
    let out = output(&["--strict", "tlog", "summary", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    // The whole file has no gap: no such warning.
    let out = output(&["tlog", "summary", tlog("np4.log").to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn section_headings_count_in_the_size_guard() {
    // A billion empty sections are 45 GiB of headings: refused before writing.
    let out = output(&[
        "tlog",
        "dump",
        tlog("np4.log").to_str().unwrap(),
        "--style",
        "tlog_dump",
        "--nodes",
        "1000000000",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("this dump would write about 44.7 GiB"),
        "{err}"
    );
}

/// `tlog tree` of a trace whose intervals nest 3,000 deep (folded stacks
/// of about 32 MB, the square of the depth): the size guard's estimate is
/// the real size, so a limit one byte under it refuses (exit 2, nothing
/// written) and the size itself passes; every format keeps to a memory
/// bound far under the folded output (streamed: no line is kept), and 30,000
/// levels (about 3 GiB of stacks) are refused by default.
#[test]
fn deep_nesting_streams_folded_stacks_and_the_guard_estimate_is_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("deep.log");
    fs::write(&trace, profparse::synth::tlog::nested_tlog(3000)).unwrap();
    let t = trace.to_str().unwrap();
    let folded = output(&["-q", "tlog", "tree", t, "--format", "folded"]);
    assert_eq!(folded.status.code(), Some(0));
    let size = folded.stdout.len();
    assert!(size > 30_000_000, "{size}");
    let lines: Vec<&[u8]> = folded.stdout.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 3001, "a line per interval, and the last break");
    let deepest = std::str::from_utf8(lines[2999]).unwrap();
    assert_eq!(deepest.matches(';').count(), 2999);
    assert!(deepest.ends_with(" 1"), "the innermost's 1 µs");
    let limited = |limit: usize, out: &std::path::Path| {
        crate::common::profparse()
            .args(["-q", "tlog", "tree", t, "--format", "folded", "-o"])
            .arg(out)
            .env("PROFPARSE_OUTPUT_LIMIT", limit.to_string())
            .output()
            .unwrap()
    };
    let refused = tmp.path().join("refused.txt");
    let r = limited(size - 1, &refused);
    assert_eq!(
        r.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(String::from_utf8_lossy(&r.stderr).contains("these folded stacks would write"));
    assert!(!refused.exists());
    let written = tmp.path().join("written.txt");
    assert_eq!(limited(size, &written).status.code(), Some(0));
    assert_eq!(fs::read(&written).unwrap(), folded.stdout);
    // Memory: at most 150 MB of address space on one thread, whatever the
    // format (the folded stacks of 10,000 levels are 355 MB, and were
    // held in memory whole before they were streamed).
    let deeper = tmp.path().join("deeper.log");
    fs::write(&deeper, profparse::synth::tlog::nested_tlog(10_000)).unwrap();
    for format in ["folded", "text", "json", "hatchet"] {
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 150000 && exec \"$0\" -q -j 1 tlog tree \"$1\" --format \"$2\" >/dev/null")
            .arg(assert_cmd::cargo::cargo_bin("profparse"))
            .arg(&deeper)
            .arg(format)
            .status()
            .unwrap();
        assert!(status.success(), "{format}: {status}");
    }
    let deepest = tmp.path().join("deepest.log");
    fs::write(&deepest, profparse::synth::tlog::nested_tlog(30_000)).unwrap();
    let r = output(&[
        "tlog",
        "tree",
        deepest.to_str().unwrap(),
        "--format",
        "folded",
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(r.stdout.is_empty());
}
