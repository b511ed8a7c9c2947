//! Each wait state's definition (docs/COMM.md, Scalasca's) against a
//! generated run with injected truth and realistic clocks: offsets, drift,
//! a per-reading jitter of microseconds, two barriers in the whole run, and
//! the rooted collectives on sub-communicators (half the processes).
//!
//! Each test also checks that the rule it guards matters: the value a wrong
//! rule gives lies outside the tolerance.

use serde_json::Value;

use super::{aligned_waits, f, generate};

/// Per-reading clock jitter of the generated runs.
const JITTER: f64 = 2e-6;
/// A wait is the difference of two readings on two processes (±JITTER
/// each) on clocks aligned from the mean of two barrier exits per process
/// (the offset between two processes off by up to 2 JITTER, the exits'
/// 0.2 µs skew, the message step's sub-µs shifts, and 1e-6 drift over a
/// few tens of ms): a found wait lies this close to the truth.
const TOLERANCE: f64 = 4.0 * JITTER + 1e-6;
/// The injected delay.
const DELAY: f64 = 1e-3;
const BLOCKS: usize = 2;

/// A run of 6 processes with realistic clocks and `scene` (`--late-receiver
/// 2:0.001`, …); its waits (`--align-clocks`) and its truth.
fn run(scene: &str, more: &[&str]) -> (Value, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let delay = format!("{DELAY}");
    let jitter = format!("{JITTER}");
    let mut args = vec![
        "--procs",
        "6",
        "--blocks",
        "2",
        "--messages",
        "20",
        "--seed",
        "5",
        "--clock-offsets",
        "0.05",
        "--drift",
        "1e-6",
        "--jitter",
        &jitter,
    ];
    let at = format!("{}:{delay}", scene.split(':').nth(1).unwrap());
    let flag = scene.split(':').next().unwrap();
    args.extend([flag, at.as_str()]);
    args.extend_from_slice(more);
    let (d, truth) = generate(tmp.path(), &args);
    let w = aligned_waits(&d, 100_000);
    (w, truth)
}

/// The waits of `state`, by process then entry.
fn waits<'a>(w: &'a Value, state: &str) -> Vec<&'a Value> {
    let mut v: Vec<&Value> = w["top"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["state"] == state)
        .collect();
    v.sort_by(|a, b| {
        (a["proc"].as_u64(), f(&a["entry"]))
            .partial_cmp(&(b["proc"].as_u64(), f(&b["entry"])))
            .unwrap()
    });
    v
}

/// The scene truth of each block under `key`.
fn scene<'a>(truth: &'a Value, key: &str) -> Vec<&'a Value> {
    let v: Vec<&Value> = truth["scenes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b[key])
        .collect();
    assert_eq!(v.len(), BLOCKS);
    v
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= TOLERANCE
}

#[test]
fn a_send_waits_for_a_late_receiver_unless_it_was_eager() {
    let (w, truth) = run("--late-receiver:2", &[]);
    let t = scene(&truth, "late_receiver");
    let (sender, receiver) = (t[0]["sender"].clone(), t[0]["receiver"].clone());
    let found = waits(&w, "late_receiver");
    // Per block: the blocking 1 MiB send and the Wait of the Isend, both
    // of the sender, caused by the receiver; not the eager 64 B send.
    assert_eq!(found.len(), 2 * BLOCKS, "{found:#?}");
    assert!(
        found
            .iter()
            .all(|x| x["proc"] == sender && x["caused_by"] == receiver)
    );
    let sends: Vec<f64> = found
        .iter()
        .filter(|x| x["name"] == "SendTsii")
        .map(|x| f(&x["seconds"]))
        .collect();
    let isend_waits: Vec<f64> = found
        .iter()
        .filter(|x| x["name"] == "Wait")
        .map(|x| f(&x["seconds"]))
        .collect();
    assert_eq!((sends.len(), isend_waits.len()), (BLOCKS, BLOCKS));
    for (b, t) in t.iter().enumerate() {
        let (s, i) = (f(&t["blocking_send"]), f(&t["isend_wait"]));
        assert!(close(sends[b], s), "block {b}: send {} vs {s}", sends[b]);
        assert!(
            close(isend_waits[b], i),
            "block {b}: {} vs {i}",
            isend_waits[b]
        );
        // The wrong rule, an eager send waiting until its receiver
        // arrived, would add the receiver's whole delay.
        assert!(!close(sends[b] + DELAY, s));
    }
}

#[test]
fn non_roots_of_a_broadcast_wait_for_its_late_root() {
    let (w, truth) = run("--late-broadcast:3", &[]);
    let t = scene(&truth, "late_broadcast");
    let found = waits(&w, "late_broadcast");
    let root = t[0]["root"].clone();
    let non_roots = t[0]["waits"].as_array().unwrap().len();
    // Only the non-roots of the root's sub-communicator wait, once a block.
    assert_eq!(found.len(), non_roots * BLOCKS, "{found:#?}");
    assert!(
        found
            .iter()
            .all(|x| x["caused_by"] == root && x["proc"] != root)
    );
    for (i, x) in found.iter().enumerate() {
        let (p, b) = (x["proc"].as_u64().unwrap(), i % BLOCKS);
        let truth_wait = t[b]["waits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|y| y[0] == p)
            .map(|y| f(&y[1]))
            .unwrap_or_else(|| panic!("process {p} waited: {x}"));
        let got = f(&x["seconds"]);
        assert!(close(got, truth_wait), "{got} vs {truth_wait}");
    }
    // Waiting for the last to enter (as at N×N), the root and the others
    // would wait for the straggler that enters 15 µs after the root.
    let straggler = t[0]["group"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            **p != root
                && t[0]["waits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|x| x[0] != **p)
        })
        .expect("a straggler");
    assert!(found.iter().all(|x| x["proc"] != *straggler));
    assert!(!close(
        f(&t[0]["waits"][0][1]) + 5e-5,
        f(&t[0]["waits"][0][1])
    ));
    // The sub-communicator is no reason to leave it out.
    assert!(w["unmatched_collectives"].as_array().unwrap().is_empty());
}

#[test]
fn the_root_of_a_gather_waits_for_its_last_caller() {
    let (w, truth) = run("--early-reduce:4", &[]);
    let t = scene(&truth, "early_reduce");
    let (root, late) = (t[0]["root"].clone(), t[0]["late"].clone());
    let found = waits(&w, "early_reduce");
    assert_eq!(found.len(), BLOCKS, "{found:#?}");
    for (b, x) in found.iter().enumerate() {
        assert_eq!((&x["proc"], &x["caused_by"]), (&root, &late));
        let (got, want) = (f(&x["seconds"]), f(&t[b]["waits"][0][1]));
        assert!(close(got, want), "{got} vs {want}");
        // Waiting for the earliest caller instead (the others enter 0–9 µs
        // after the root) would find a few µs.
        assert!(!close(9e-6, want));
    }
}

#[test]
fn a_late_sender_while_an_earlier_message_waits_is_in_the_wrong_order() {
    // With a late sender in the ring as well: those waits stay in order.
    let (w, truth) = run("--wrong-order:5", &["--late-sender", "1:0.0005"]);
    let t = scene(&truth, "wrong_order");
    let found = waits(&w, "late_sender_wrong_order");
    assert_eq!(found.len(), BLOCKS, "{found:#?}");
    for (b, x) in found.iter().enumerate() {
        assert_eq!(x["proc"], t[b]["receiver"]);
        assert_eq!(x["caused_by"], t[b]["late_sender"]);
        assert_eq!(x["name"], "RecvTsii");
        let (got, want) = (f(&x["seconds"]), f(&t[b]["wait"]));
        assert!(close(got, want), "{got} vs {want}");
    }
    // The ring's late sender: its receiver's waits are late senders in
    // order, within the tolerance each.
    let ls = &truth["late_sender"];
    let ring: Vec<&Value> = waits(&w, "late_sender")
        .into_iter()
        .filter(|x| x["proc"] == ls["receiver"] && x["caused_by"] == ls["proc"])
        .collect();
    assert_eq!(ring.len() as u64, ls["messages"].as_u64().unwrap());
    let per = f(&ls["wait_per_message"]);
    assert!(ring.iter().all(|x| close(f(&x["seconds"]), per)));
    // Not told apart, the wrong-order waits would be late senders of the
    // receiver: it has none but the jitter's few µs.
    let receiver = &t[0]["receiver"];
    assert!(
        waits(&w, "late_sender")
            .iter()
            .all(|x| x["proc"] != *receiver || f(&x["seconds"]) < DELAY / 2.0),
        "{w}"
    );
}

/// All scenes in one run: each state's total is the sum of its truth, so
/// no scene's waits leak into another's state.
#[test]
fn all_scenes_at_once_keep_to_their_states() {
    let (w, truth) = run(
        "--late-receiver:2",
        &[
            "--late-broadcast",
            "3:0.001",
            "--early-reduce",
            "4:0.001",
            "--wrong-order",
            "5:0.001",
        ],
    );
    let sum = |key: &str, per: &dyn Fn(&Value) -> Vec<f64>| -> (f64, usize) {
        let v: Vec<f64> = scene(&truth, key).into_iter().flat_map(per).collect();
        (v.iter().sum(), v.len())
    };
    let pairs = |t: &Value| -> Vec<f64> {
        t["waits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| f(&x[1]))
            .collect()
    };
    let cases = [
        (
            "late_receiver",
            sum("late_receiver", &|t| {
                vec![f(&t["blocking_send"]), f(&t["isend_wait"])]
            }),
        ),
        ("late_broadcast", sum("late_broadcast", &pairs)),
        ("early_reduce", sum("early_reduce", &pairs)),
        (
            "late_sender_wrong_order",
            sum("wrong_order", &|t| vec![f(&t["wait"])]),
        ),
    ];
    for (state, (want, n)) in cases {
        let got = f(&w["totals"][state]);
        assert!(
            (got - want).abs() <= TOLERANCE * n as f64,
            "{state}: {got} vs {want}"
        );
        assert_eq!(waits(&w, state).len(), n, "{state}");
    }
}
