//! Generated databases: they parse without a warning, their base profile
//! agrees with their call traces, and reports do not depend on threads.

use std::path::Path;

use serde_json::Value;

use crate::common::run_ok_stderr;

fn synth(dir: &Path, extra: &[&str]) {
    let mut args = vec!["synth", "blprof", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    run_ok_stderr(&args);
}

#[test]
fn generated_databases_are_consistent() {
    for (extra, procs, blocks) in [
        (
            vec![
                "--procs", "5", "--nfiles", "2", "--blocks", "3", "--calls", "200",
            ],
            5,
            3,
        ),
        (
            vec![
                "--procs", "10", "--nfiles", "4", "--blocks", "1", "--depth", "7", "--seed", "9",
            ],
            10,
            1,
        ),
        (vec!["--procs", "1"], 1, 1),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bl_prof");
        synth(&dir, &extra);
        let d = dir.to_str().unwrap();
        let (info, stderr) = run_ok_stderr(&["info", d, "--format", "json"]);
        assert!(stderr.is_empty(), "{extra:?}: {stderr}");
        let info: Value = serde_json::from_str(&info).unwrap();
        assert_eq!(info["nprocs"], procs);
        assert_eq!(info["trace"]["blocks_per_proc"]["min"], blocks);
        assert_eq!(info["comm"]["blocks"], procs * blocks);

        let (base, e1) = run_ok_stderr(&["summary", d, "--format", "json"]);
        let (trace, e2) = run_ok_stderr(&["trace-summary", d, "--format", "json"]);
        assert!(e1.is_empty() && e2.is_empty(), "{e1}{e2}");
        let base: Value = serde_json::from_str(&base).unwrap();
        let trace: Value = serde_json::from_str(&trace).unwrap();
        let (bf, tf) = (
            base["functions"].as_array().unwrap(),
            trace["functions"].as_array().unwrap(),
        );
        assert_eq!(bf.len(), tf.len());
        for (b, t) in bf.iter().zip(tf) {
            assert_eq!(b["name"], t["name"]);
            assert_eq!(b["ncalls_total"], t["ncalls_total"], "{}", b["name"]);
            let (x, y) = (b["avg"].as_f64().unwrap(), t["avg"].as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(1e-12),
                "{}: {x} vs {y}",
                b["name"]
            );
        }
        // Every generated call nests properly: no inclusive < Σ children warning.
        let (_, stderr) = run_ok_stderr(&["calltree", d]);
        assert!(stderr.is_empty(), "{stderr}");
        for args in [
            vec!["trace-summary", d, "--format", "json"],
            vec!["calltree", d, "--format", "json"],
        ] {
            let a = run_ok_stderr(&[&["-j1"], &args[..]].concat()).0;
            let b = run_ok_stderr(&[&["-j2"], &args[..]].concat()).0;
            assert_eq!(a, b);
        }
    }
}

#[test]
fn generation_is_deterministic_by_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    synth(&a, &["--seed", "7"]);
    synth(&b, &["--seed", "7"]);
    synth(&c, &["--seed", "8"]);
    let read = |d: &Path| std::fs::read(d.join("bl_call_stats_D_00001")).unwrap();
    assert_eq!(read(&a), read(&b));
    assert_ne!(read(&a), read(&c));
}

/// `--clock-offsets`, `--late-sender`, `--late-barrier`: a clean database
/// and its truth beside it.
#[test]
fn injected_databases_are_clean_and_carry_their_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bl_prof");
    synth(
        &dir,
        &[
            "--procs",
            "5",
            "--blocks",
            "2",
            "--messages",
            "20",
            "--clock-offsets",
            "0.05",
            "--late-sender",
            "1:0.001",
            "--late-barrier",
            "3:0.002",
        ],
    );
    let truth = clean_with_truth(&dir);
    let offsets = truth["clock_offsets"].as_array().unwrap();
    assert_eq!(offsets.len(), 5);
    assert_eq!(offsets[0], 0.0);
    assert!(offsets.iter().all(|o| o.as_f64().unwrap().abs() <= 0.05));
    assert_eq!(truth["late_sender"]["receiver"], 2);
    assert_eq!(truth["late_sender"]["messages"], 40);
    assert_eq!(truth["late_barrier"]["barriers"], 2);
}

/// The wait-state scenes with realistic clocks (`--jitter`, `--drift`): a
/// clean database (every process's readings in order despite the
/// jitter), each scene's truth per block, the drifts within their bound.
#[test]
fn scenes_with_realistic_clocks_are_clean_and_carry_their_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bl_prof");
    synth(
        &dir,
        &[
            "--procs",
            "6",
            "--blocks",
            "2",
            "--messages",
            "10",
            "--clock-offsets",
            "0.05",
            "--jitter",
            "2e-6",
            "--drift",
            "1e-6",
            "--late-receiver",
            "2:0.001",
            "--late-broadcast",
            "3:0.001",
            "--early-reduce",
            "4:0.001",
            "--wrong-order",
            "5:0.001",
        ],
    );
    let truth = clean_with_truth(&dir);
    let drifts = truth["clock_drifts"].as_array().unwrap();
    assert_eq!(drifts[0], 0.0);
    assert!(drifts.iter().all(|x| x.as_f64().unwrap().abs() <= 1e-6));
    assert!(drifts.iter().any(|x| x.as_f64().unwrap() != 0.0));
    assert_eq!(truth["jitter"], 2e-6);
    let scenes = truth["scenes"].as_array().unwrap();
    assert_eq!(scenes.len(), 2);
    for s in scenes {
        assert_eq!(s["late_receiver"]["sender"], 1);
        // The collectives run on a sub-communicator: half the processes.
        assert_eq!(s["late_broadcast"]["group"], serde_json::json!([1, 3, 5]));
        assert_eq!(s["early_reduce"]["root"], 0);
        assert_eq!(s["wrong_order"]["earlier_sender"], 0);
    }
}

/// Checks that `comm check` finds the generated database `dir` clean, and
/// returns the truth written beside it.
fn clean_with_truth(dir: &std::path::Path) -> Value {
    let (out, stderr) = run_ok_stderr(&["comm", "check", dir.to_str().unwrap()]);
    assert!(
        stderr.is_empty() && out.ends_with("clean\n"),
        "{out}{stderr}"
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join("synth_truth.json")).unwrap()).unwrap()
}

/// An injection that could not play (its process out of range, or too few
/// processes for its scene) is a usage error naming the option, and
/// writes nothing.
#[test]
fn injections_that_cannot_play_are_usage_errors() {
    for (extra, said) in [
        (
            ["--procs", "4", "--late-receiver", "99999:1"],
            "--late-receiver: process 99999 is not among the 4 processes (0 to 3)",
        ),
        (
            ["--procs", "4", "--late-sender", "4:0.1"],
            "--late-sender: process 4 is not among the 4 processes",
        ),
        (
            ["--procs", "2", "--wrong-order", "1:0.1"],
            "--wrong-order needs at least 3 processes (--procs 2)",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bl_prof");
        let mut args = vec!["synth", "blprof", dir.to_str().unwrap()];
        args.extend_from_slice(&extra);
        let out = crate::common::output(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(said), "{extra:?}: {stderr}");
        assert!(!dir.exists(), "{extra:?}");
    }
}
