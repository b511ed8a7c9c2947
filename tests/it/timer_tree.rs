//! Timer trees: byte parity with the Fortran reference's goldens,
//! round trips, the API semantics on a fake clock, the global tree under
//! threads, `tree show|merge`, and damaged inputs.
//!
//! Goldens from the reference (`fixtures/timertree/*.txt`) are never
//! rewritten. Our own goldens (`fixtures/timertree/ours/`) go through
//! `common::golden`, which rewrites them with `PROFPARSE_BLESS=1`.

use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

use assert_cmd::Command;
use profparse::timer_tree::{
    self as tt, Clock, Handle, NameMatch, SerialError, Serialized, TimerError, TimerTree,
    parse_serialized, to_tree,
};

use crate::common::{golden, timer_tree};

fn read_fixture(name: &str) -> String {
    std::fs::read_to_string(timer_tree(name)).expect("fixture present")
}

fn load(name: &str) -> Serialized {
    let path = timer_tree(name);
    let bytes = std::fs::read(&path).expect("fixture present");
    parse_serialized(&bytes, &path).expect("fixture parses")
}

fn profparse() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_profparse"));
    cmd.current_dir(timer_tree(""));
    cmd
}

fn run(args: &[&str]) -> Output {
    profparse().args(args).output().expect("profparse runs")
}

fn stdout_ok(args: &[&str]) -> String {
    let out = run(args);
    // 0, or 3 when the report was produced with warnings (docs/ERRORS.md).
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// `tree show INPUT EXTRA…`, with and without `--binary32`, prints the
/// reference's golden byte for byte.
fn show_matches_reference_goldens_byte_for_byte(input: &str, extra: &[&str], golden: &str) {
    let expected = read_fixture(golden);
    for binary32 in [false, true] {
        let mut args = vec!["-q", "tree", "show", input];
        args.extend_from_slice(extra);
        if binary32 {
            args.push("--binary32");
        }
        assert_eq!(stdout_ok(&args), expected, "{args:?} vs {golden}");
    }
}

fixture_tests!(show_matches_reference_goldens_byte_for_byte:
    doc_example_indent0("doc_example.json", &["--indent", "0"], "doc_example.indent0.txt"),
    doc_example_indent2("doc_example.json", &["--indent", "2"], "doc_example.indent2.txt"),
    doc_example_indent4("doc_example.json", &["--indent", "4"], "doc_example.indent4.txt"),
    doc_example_doc_exact("doc_example.json", &[], "doc_example.doc_exact.txt"),
    measured_example_indent0(
        "measured_example.json",
        &["--indent", "0"],
        "measured_example.indent0.txt",
    ),
    measured_example_indent2(
        "measured_example.json",
        &["--indent", "2"],
        "measured_example.indent2.txt",
    ),
    measured_example_indent4(
        "measured_example.json",
        &["--indent", "4"],
        "measured_example.indent4.txt",
    ),
    measured_example_handle3(
        "measured_example.json",
        &["--handle", "3"],
        "measured_example.handle3.indent2.txt",
    ),
    measured_example_handle4(
        "measured_example.json",
        &["--handle", "4"],
        "measured_example.handle4.indent2.txt",
    ),
    measured_example_handle5_indent3(
        "measured_example.json",
        &["--handle", "5", "--indent", "3"],
        "measured_example.handle5.indent3.txt",
    ),
    measured_example_truchas(
        "measured_example.json",
        &["--layout", "truchas"],
        "measured_example.truchas.txt",
    ),
    edge_cases_indent2("edge_cases.json", &[], "edge_cases.indent2.txt"),
    edge_cases_truchas("edge_cases.json", &["--layout", "truchas"], "edge_cases.truchas.txt"),
    // The reference's own XML output (gfortran list-directed) reads back.
    measured_example_xml_gfortran(
        "measured_example.xml_gfortran.txt",
        &[],
        "measured_example.indent2.txt",
    ),
);

#[test]
fn table_layout_shows_exclusive_time_and_shares() {
    let table = stdout_ok(&["tree", "show", "measured_example.json", "--layout", "table"]);
    golden("timertree/ours/measured_example.table.txt", &table);
    // Top-level shares add up to 100 %, children's shares are of the parent.
    let shares: Vec<&str> = table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().last().unwrap())
        .collect();
    assert_eq!(
        shares,
        [
            "60.0", "22.2", "44.4", "50.0", "40.0", "33.3", "33.3", "33.3"
        ]
    );
}

#[test]
fn show_writes_to_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let out_arg = out.to_str().unwrap();
    assert_eq!(
        stdout_ok(&["tree", "show", "doc_example.json", "-o", out_arg]),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        read_fixture("doc_example.indent2.txt")
    );
}

fn json_layout_reproduces_the_fixture_inputs(input: &str) {
    assert_eq!(
        stdout_ok(&["tree", "show", input, "--layout", "json"]),
        read_fixture(input)
    );
}

fixture_tests!(json_layout_reproduces_the_fixture_inputs:
    doc_example("doc_example.json"),
    measured_example("measured_example.json"),
);

#[test]
fn xml_layout_is_escaped_nested_and_reads_back() {
    let xml = stdout_ok(&["-q", "tree", "show", "edge_cases.json", "--layout", "xml"]);
    golden("timertree/ours/edge_cases.xml", &xml);
    let dir = tempfile::tempdir().unwrap();
    // No extension: the form is sniffed from the content.
    let path = dir.path().join("edge_cases");
    std::fs::write(&path, &xml).unwrap();
    let back = stdout_ok(&["-q", "tree", "show", path.to_str().unwrap()]);
    assert_eq!(back, read_fixture("edge_cases.indent2.txt"));
    let json = stdout_ok(&[
        "-q",
        "tree",
        "show",
        path.to_str().unwrap(),
        "--layout",
        "json",
    ]);
    let direct = stdout_ok(&["-q", "tree", "show", "edge_cases.json", "--layout", "json"]);
    assert_eq!(json, direct);
}

fn serialize_deserialize_write_round_trips_bit_for_bit(input: &str, golden: &str) {
    let arrays = load(input);
    let mut t = TimerTree::new();
    t.deserialize(&arrays).unwrap();
    let again = t.serialize().unwrap();
    assert_eq!(again.tree, arrays.tree, "{input}");
    let trimmed: Vec<&str> = arrays
        .name
        .iter()
        .map(|n| n.trim_end_matches(' '))
        .collect();
    assert_eq!(again.name, trimmed, "{input}");
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&again.time), bits(&arrays.time), "{input}");
    let mut out = Vec::new();
    t.write(&mut out, 2, None).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        read_fixture(golden),
        "{input}"
    );
}

fixture_tests!(serialize_deserialize_write_round_trips_bit_for_bit:
    doc_example("doc_example.json", "doc_example.indent2.txt"),
    measured_example("measured_example.json", "measured_example.indent2.txt"),
    edge_cases("edge_cases.json", "edge_cases.indent2.txt"),
);

/// A clock the test moves by hand.
#[derive(Default)]
struct FakeClock(AtomicU64);

impl FakeClock {
    fn advance_ms(&self, ms: u64) {
        self.0.fetch_add(ms * 1_000_000, Ordering::SeqCst);
    }
}

impl Clock for FakeClock {
    fn now_ns(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

fn fake_tree() -> (TimerTree, Arc<FakeClock>) {
    let clock = Arc::new(FakeClock::default());
    (TimerTree::with_clock(clock.clone()), clock)
}

#[test]
fn documented_sequence_gives_documented_shape_handles_and_output() {
    let (mut t, clock) = fake_tree();
    let timed = |t: &mut TimerTree, name: &str, ms: u64| {
        let h = t.start(name);
        clock.advance_ms(ms);
        t.stop(name).unwrap();
        h
    };
    let a = t.start("A");
    let b = timed(&mut t, "B", 10);
    let c = t.start("C");
    let cb = timed(&mut t, "B", 9);
    clock.advance_ms(10);
    t.stop("C").unwrap();
    clock.advance_ms(11);
    t.stop("A").unwrap();
    let top_b = t.start("B");
    let x = timed(&mut t, "X", 9);
    let y = timed(&mut t, "Y", 10);
    let z = timed(&mut t, "Z", 9);
    t.stop("B").unwrap();
    assert_eq!(timed(&mut t, "A", 9), a, "the second A reuses the first");
    let handles: Vec<u32> = [a, b, c, cb, top_b, x, y, z]
        .iter()
        .map(|h| h.get())
        .collect();
    assert_eq!(handles, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(t.len(), 8);
    assert_eq!(t.calls(a).unwrap(), 2);
    assert_eq!(t.handle_at(&["A", "C", "B"]), Some(cb));
    assert_eq!(t.handle_at(&["C"]), None);
    let s = t.serialize().unwrap();
    assert_eq!(s.tree, [1, 2, 2, 3, 4, 4, 3, 1, 5, 6, 6, 7, 7, 8, 8, 5]);
    assert_eq!(s.name, ["A", "B", "C", "B", "B", "X", "Y", "Z"]);
    let mut out = Vec::new();
    t.write(&mut out, 2, None).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        read_fixture("doc_example.doc_exact.txt")
    );
    let mut out = Vec::new();
    t.write(&mut out, 2, Some(c)).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "C: 1.90000E-02\n  B: 9.00000E-03\n"
    );
}

#[test]
fn handles_follow_creation_order_and_serialize_numbers_follow_preorder() {
    let (mut t, _) = fake_tree();
    for (outer, inner) in [("A", Some("B")), ("C", None), ("A", Some("D"))] {
        t.start(outer);
        if let Some(inner) = inner {
            t.start(inner);
            t.stop(inner).unwrap();
        }
        t.stop(outer).unwrap();
    }
    assert_eq!(t.handle_at(&["A", "D"]), Some(Handle::new(4)));
    let s = t.serialize().unwrap();
    assert_eq!(s.tree, [1, 2, 2, 3, 3, 1, 4, 4]);
    assert_eq!(s.name, ["A", "B", "D", "C"]);
    t.deserialize(&s).unwrap();
    assert_eq!(t.name(Handle::new(3)).unwrap(), "D");
}

#[test]
fn misnest_is_an_error_and_leaves_the_tree_unchanged() {
    let (mut t, clock) = fake_tree();
    t.start("A");
    let b = t.start("B");
    clock.advance_ms(5);
    let before = t.serialize().unwrap();
    let err = t.stop("A").unwrap_err();
    assert_eq!(
        err.to_string(),
        "TIMER_TREE%STOP: current timer is B; cannot stop A"
    );
    assert!(
        matches!(&err, TimerError::Misnest { current, requested } if current == "B" && requested == "A")
    );
    assert_eq!(t.current(), Some(b));
    assert_eq!(t.serialize().unwrap(), before);
    // Names compare exactly: a trailing blank is another name.
    let err = t.stop("B ").unwrap_err();
    assert_eq!(
        err.to_string(),
        "TIMER_TREE%STOP: current timer is B; cannot stop B "
    );
    t.stop("B").unwrap();
    t.stop("A").unwrap();
    let err = t.stop("A").unwrap_err();
    assert_eq!(
        err.to_string(),
        "TIMER_TREE%STOP: current timer is ; cannot stop A"
    );
}

#[test]
fn blank_padded_names_are_one_timer_named_as_first_started() {
    let (mut t, clock) = fake_tree();
    t.set_name_match(NameMatch::IgnoreTrailingBlanks);
    let a = t.start("A   ");
    clock.advance_ms(2);
    t.stop("A").unwrap();
    assert_eq!(t.start("A"), a);
    // Leading blanks still count: " B" is not "B".
    let b = t.start(" B");
    assert!(t.stop("B").is_err());
    t.stop(" B  ").unwrap();
    t.stop("A ").unwrap();
    assert_eq!(
        (t.len(), t.calls(a).unwrap(), t.name(a).unwrap()),
        (2, 2, "A   ")
    );
    assert_eq!(t.name(b).unwrap(), " B");
    // The rule survives a reset and a deserialize.
    let arrays = t.serialize().unwrap();
    t.reset();
    t.start("C");
    t.stop("C  ").unwrap();
    t.deserialize(&arrays).unwrap();
    t.start("A  ");
    t.stop("A").unwrap();
    assert_eq!(t.len(), 2);
}

#[test]
fn reading_running_timers_includes_elapsed_time_and_changes_nothing() {
    let (mut t, clock) = fake_tree();
    let a = t.start("A");
    clock.advance_ms(1500);
    assert_eq!(t.read(a).unwrap(), 1.5);
    let b = t.start("B");
    clock.advance_ms(250);
    assert_eq!(t.read(a).unwrap(), 1.75);
    assert_eq!(t.read(b).unwrap(), 0.25);
    let mut out = Vec::new();
    t.write(&mut out, 2, None).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "A: 1.75000E+00\n  B: 2.50000E-01\n"
    );
    // Writing folded nothing in: the totals still follow the clock.
    clock.advance_ms(250);
    assert_eq!(t.read(b).unwrap(), 0.5);
    assert_eq!(t.serialize().unwrap().time, [2.0, 0.5]);
    t.stop("B").unwrap();
    clock.advance_ms(1000);
    assert_eq!(t.read(b).unwrap(), 0.5, "stopped timers no longer grow");
    assert_eq!(t.read(a).unwrap(), 3.0);
    assert_eq!(t.calls(a).unwrap(), 1);
    let err = t.read(Handle::new(3)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no timer has handle 3: the tree has 2 timer(s)"
    );
    assert!(t.read(Handle::new(0)).is_err());
}

#[test]
fn empty_tree_and_bad_handles_are_errors() {
    let (mut t, _) = fake_tree();
    let mut out = Vec::new();
    assert!(matches!(t.write(&mut out, 2, None), Err(TimerError::Empty)));
    assert!(matches!(t.serialize(), Err(TimerError::Empty)));
    t.start("A");
    t.stop("A").unwrap();
    assert!(matches!(
        t.write(&mut out, 2, Some(Handle::new(2))),
        Err(TimerError::BadHandle {
            handle: 2,
            count: 1
        })
    ));
    assert!(out.is_empty());
}

#[test]
fn scoped_guards_nest_and_stop_on_drop() {
    let (mut t, clock) = fake_tree();
    {
        let mut outer = t.scoped("solve");
        clock.advance_ms(1);
        {
            let inner = outer.scoped("assemble");
            assert_eq!(inner.handle(), Handle::new(2));
            clock.advance_ms(2);
        }
        assert_eq!(outer.current(), Some(Handle::new(1)));
    }
    assert_eq!(t.current(), None);
    assert_eq!(t.read(Handle::new(1)).unwrap(), 0.003);
    assert_eq!(t.read(Handle::new(2)).unwrap(), 0.002);
}

#[test]
fn reset_deletes_all_timers_and_restarts_handles() {
    let (mut t, _) = fake_tree();
    t.start("A");
    t.start("B");
    t.reset();
    assert!(t.is_empty());
    assert_eq!(t.current(), None);
    assert_eq!(t.start("C"), Handle::new(1));
}

#[test]
fn deserialize_rejects_each_invalid_kind_and_keeps_the_tree() {
    let arrays = |tree: &[i64], names: &[&str], times: usize| Serialized {
        tree: tree.to_vec(),
        name: names.iter().map(|s| s.to_string()).collect(),
        time: vec![1.0; times],
    };
    let cases: Vec<(Serialized, SerialError, &str)> = vec![
        (
            arrays(&[1, 1], &["A"], 2),
            SerialError::LengthMismatch { names: 1, times: 2 },
            "name has 1 entries but time has 2: both need one entry per timer",
        ),
        (
            arrays(&[1, 1, 2], &["A", "B"], 2),
            SerialError::TreeLength {
                found: 3,
                expected: 4,
            },
            "tree has 3 entries, expected 4 (two per timer)",
        ),
        (
            arrays(&[1, 1, 2, -7], &["A", "B"], 2),
            SerialError::OutOfRange {
                index: 3,
                value: -7,
                n: 2,
            },
            "tree[3] = -7 is outside 1..=2",
        ),
        (
            arrays(&[1, i64::MAX, 2, 2], &["A", "B"], 2),
            SerialError::OutOfRange {
                index: 1,
                value: i64::MAX,
                n: 2,
            },
            "tree[1] = 9223372036854775807 is outside 1..=2",
        ),
        (
            arrays(&[1, 2, 2, 2], &["A", "B"], 2),
            SerialError::ExtraOccurrence { index: 3, value: 2 },
            "tree[3] = 2 is a third occurrence of timer 2: each timer occurs exactly twice",
        ),
        (
            arrays(&[1, 1, 3, 3, 2, 2], &["A", "B", "C"], 3),
            SerialError::Order {
                index: 2,
                value: 3,
                expected: 2,
            },
            "tree[2] = 3 is the first occurrence of timer 3, expected timer 2: first occurrences must read 1, 2, ..., n",
        ),
        (
            arrays(&[1, 2, 1, 2], &["A", "B"], 2),
            SerialError::Crossing {
                index: 2,
                value: 1,
                open: 2,
            },
            "tree[2] closes timer 1 while timer 2, opened inside it, is still open: the pairs cross",
        ),
        (
            // Equal names: the reference accepts this silently, times swapped.
            arrays(&[1, 2, 1, 2], &["A", "A"], 2),
            SerialError::Crossing {
                index: 2,
                value: 1,
                open: 2,
            },
            "tree[2] closes timer 1 while timer 2, opened inside it, is still open: the pairs cross",
        ),
        (
            arrays(&[1, 1, 2, 2], &["A", "A   "], 2),
            SerialError::DuplicateSibling {
                index: 2,
                first: 1,
                second: 2,
                name: "A".into(),
            },
            "tree[2] opens timer 2 named \"A\", but its sibling timer 1 has the same name",
        ),
    ];
    let (mut t, _) = fake_tree();
    t.deserialize(&load("doc_example.json")).unwrap();
    let before = t.serialize().unwrap();
    for (input, error, message) in cases {
        let err = t.deserialize(&input).unwrap_err();
        assert_eq!(err, error);
        assert_eq!(err.to_string(), message);
        assert_eq!(t.serialize().unwrap(), before, "unchanged after {error:?}");
    }
}

#[test]
fn truncated_and_corrupted_files_are_errors_not_panics() {
    for name in [
        "measured_example.json",
        "measured_example.xml_gfortran.txt",
        "edge_cases.json",
    ] {
        let bytes = std::fs::read(timer_tree(name)).unwrap();
        let path = timer_tree(name);
        // The whole file is valid; no panic on any prefix. A JSON prefix
        // that lacks the closing brace is always an error.
        assert!(
            parse_serialized(&bytes, &path)
                .and_then(|s| to_tree(&s, &path))
                .is_ok()
        );
        let closing = bytes.iter().rposition(|&b| b == b'}').unwrap_or(0);
        for cut in 0..bytes.len() {
            let result = parse_serialized(&bytes[..cut], &path).and_then(|s| to_tree(&s, &path));
            if name.ends_with(".json") && cut <= closing {
                assert!(result.is_err(), "{name} cut at {cut} accepted");
            }
        }
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] = damaged[i].wrapping_add(17);
            let _ = parse_serialized(&damaged, &path).and_then(|s| to_tree(&s, &path));
        }
    }
    // Deep nesting is handled without recursion.
    let depth = 20_000;
    let xml = "<TIMER NAME=\"d\" TIME=\"1\">".repeat(depth) + &"</TIMER>".repeat(depth);
    let path = Path::new("deep.xml");
    let tree = to_tree(&parse_serialized(xml.as_bytes(), path).unwrap(), path).unwrap();
    assert_eq!(tree.len(), depth);
    let mut out = Vec::new();
    let flat = tt::WriteOptions {
        indent: 0,
        ..Default::default()
    };
    profparse::timer_tree::write::write_tree(&mut out, &tree, &flat).unwrap();
    assert_eq!(out.len(), depth * "d: 1.00000E+00\n".len());
}

#[test]
fn cli_errors_have_the_documented_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let crossing = file(
        "cross.json",
        r#"{"tree": [1, 2, 1, 2], "name": ["A", "B"], "time": [1, 2]}"#,
    );
    let empty = file("empty.json", r#"{"tree": [], "name": [], "time": []}"#);
    let broken = file(
        "broken.json",
        "{\"tree\": [1, 1],\n\"name\": [\"A\"],\n\"time\": [1e999]}",
    );
    let huge = file(
        "huge.json",
        r#"{"tree": [1, 1], "name": ["A"], "time": [1e308]}"#,
    );
    let binary = file("junk", "\u{0}\u{1}");
    let deep = file("deep.xml", "<TIMER NAME=\"A\" TIME=\"1\">");
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["tree", "show", &crossing],
            1,
            "invalid serialized timer tree: tree[2] closes timer 1",
        ),
        (&["tree", "show", &empty], 1, "the tree has no timers"),
        (
            &["tree", "show", &broken],
            1,
            "broken.json:3: not a serialized timer tree in JSON",
        ),
        (
            &["tree", "show", &binary],
            1,
            "expected JSON ('{') or XML ('<')",
        ),
        (
            &["tree", "show", &deep],
            1,
            "deep.xml:1: <TIMER NAME=\"A\"> is never closed",
        ),
        (
            &["tree", "show", "no-such-file.json"],
            2,
            "no-such-file.json",
        ),
        (
            &["tree", "show", "doc_example.json", "--handle", "9"],
            2,
            "no timer has handle 9",
        ),
        (
            &["tree", "show", "doc_example.json", "--handle", "0"],
            2,
            "no timer has handle 0",
        ),
        (
            &[
                "tree",
                "show",
                "doc_example.json",
                "--handle",
                "1",
                "--layout",
                "xml",
            ],
            2,
            "--handle works with",
        ),
        (
            &["tree", "show", "doc_example.json", "--layout", "html"],
            2,
            "invalid value 'html'",
        ),
        (
            &["tree", "show", "doc_example.json", "--indent", "65"],
            2,
            "65 is not in 0..=64",
        ),
        (&["tree", "merge"], 2, "required"),
        (
            &["tree", "merge", "doc_example.json", &crossing],
            1,
            "cross.json",
        ),
    ];
    for (args, code, needle) in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed a partial result");
    }
    // Huge but valid numbers are not errors; ES12.5 widens for them.
    assert_eq!(stdout_ok(&["tree", "show", &huge]), "A: 1.00000E+308\n");
}

#[test]
fn suspicious_times_are_warnings_and_strict_fails() {
    let out = run(&["tree", "show", "edge_cases.json"]);
    assert_eq!(out.status.code(), Some(3), "report with warnings");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: edge_cases.json: time of timer 5 (second/  leading) is negative"),
        "{stderr}"
    );
    let quiet = run(&["-q", "tree", "show", "edge_cases.json"]);
    assert!(quiet.stderr.is_empty());
    let strict = run(&["--strict", "tree", "show", "edge_cases.json"]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(
        run(&["--strict", "tree", "show", "doc_example.json"])
            .status
            .success()
    );
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, r#"{"tree": [], "name": [], "time": []}"#).unwrap();
    let out = run(&["tree", "merge", "doc_example.json", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "merged with a warning");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("empty.json: the tree has no timers"),
        "{stderr}"
    );
}

#[test]
fn merge_reports_spread_by_path_and_the_file_with_the_max() {
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().join("rank2.json");
    std::fs::write(
        &extra,
        r#"{"tree": [1, 2, 2, 1], "name": ["A", "only here"], "time": [0.5, 0.25]}"#,
    )
    .unwrap();
    let extra = extra.to_str().unwrap();
    let json = stdout_ok(&[
        "tree",
        "merge",
        "doc_example.json",
        "measured_example.json",
        extra,
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["files"],
        serde_json::json!(["doc_example.json", "measured_example.json", extra])
    );
    let timers = v["timers"].as_array().unwrap();
    assert_eq!(timers.len(), 9);
    let a = &timers[0];
    assert_eq!(a["path"], serde_json::json!(["A"]));
    assert_eq!(a["files"], 3);
    assert_eq!(a["min"], 0.04503002017736435);
    assert_eq!(a["max"], 0.5);
    assert_eq!(a["max_file"], extra);
    assert_eq!(a["min_file"], "measured_example.json");
    assert_eq!(a["sum"], 0.04899999871850014 + 0.04503002017736435 + 0.5);
    let c_b = &timers[3];
    assert_eq!(c_b["path"], serde_json::json!(["A", "C", "B"]));
    assert_eq!(c_b["depth"], 2);
    assert_eq!(c_b["max_file"], "measured_example.json");
    let only = &timers[4];
    assert_eq!(only["path"], serde_json::json!(["A", "only here"]));
    assert_eq!(
        (only["files"].as_u64(), only["avg"].as_f64()),
        (Some(1), Some(0.25))
    );
    let paths: Vec<String> = timers
        .iter()
        .map(|t| {
            t["path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    assert_eq!(
        paths,
        [
            "A",
            "A/B",
            "A/C",
            "A/C/B",
            "A/only here",
            "B",
            "B/X",
            "B/Y",
            "B/Z"
        ]
    );
    let table = stdout_ok(&["tree", "merge", "doc_example.json", "measured_example.json"]);
    golden("timertree/ours/merge_doc_measured.table.txt", &table);
}

/// The only test that touches the process-wide tree (tests run in parallel).
#[test]
fn global_tree_is_thread_safe_with_one_nesting_per_thread() {
    tt::reset_timer_tree();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..200 {
                    let _work = tt::timer("work");
                    tt::start_timer("inner");
                    tt::stop_timer("inner").expect("a thread's own nesting never misnests");
                }
            });
        }
    });
    let s = tt::serialize_timer_tree().unwrap();
    assert_eq!(
        (s.tree.as_slice(), s.name.as_slice()),
        (
            &[1, 2, 2, 1][..],
            &["work".to_owned(), "inner".to_owned()][..]
        )
    );
    let work = tt::timer_handle(&["work"]).unwrap();
    let inner = tt::timer_handle(&["work", "inner"]).unwrap();
    assert!(tt::read_timer(work).unwrap() >= tt::read_timer(inner).unwrap());
    assert!(tt::read_timer(inner).unwrap() > 0.0);

    // Nesting is per thread: B started while another thread is inside A is
    // a top-level timer, not a child of A.
    let barrier = Barrier::new(2);
    std::thread::scope(|s| {
        s.spawn(|| {
            tt::start_timer("A");
            barrier.wait();
            barrier.wait();
            tt::stop_timer("A").unwrap();
        });
        s.spawn(|| {
            barrier.wait();
            tt::start_timer("B");
            tt::stop_timer("B").unwrap();
            barrier.wait();
        });
    });
    assert!(tt::timer_handle(&["B"]).is_some());
    assert!(tt::timer_handle(&["A", "B"]).is_none());

    // A thread cannot stop another thread's timer.
    tt::start_timer("mine");
    let err =
        std::thread::scope(|s| s.spawn(|| tt::stop_timer("mine")).join().unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "TIMER_TREE%STOP: current timer is ; cannot stop mine"
    );
    tt::stop_timer("mine").unwrap();

    // A reset elsewhere discards this thread's running timers.
    tt::start_timer("kept");
    std::thread::scope(|s| s.spawn(tt::reset_timer_tree).join().unwrap());
    assert!(tt::stop_timer("kept").is_err());
    assert_eq!(tt::start_timer("fresh"), Handle::new(1));
    tt::stop_timer("fresh").unwrap();

    tt::deserialize_timer_tree(&load("doc_example.json")).unwrap();
    let mut out = Vec::new();
    tt::write_timer_tree(&mut out, 4, None).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        read_fixture("doc_example.indent4.txt")
    );
    assert_eq!(
        tt::read_timer(Handle::new(4)).unwrap(),
        0.008999999612569809
    );
    assert!(
        tt::deserialize_timer_tree(&Serialized {
            tree: vec![1],
            ..Default::default()
        })
        .is_err()
    );
    assert_eq!(
        tt::serialize_timer_tree().unwrap(),
        load("doc_example.json")
    );
    tt::reset_timer_tree();
    assert!(matches!(tt::serialize_timer_tree(), Err(TimerError::Empty)));
}

/// Widths from the data never go through a format width (which panics past
/// 65,535): a tree 1,100 deep written at indent 64, and a name of 70,000
/// characters, through every layout and `tree merge`.
#[test]
fn deep_trees_and_long_names_are_written_by_every_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 1100usize;
    let deep = tmp.path().join("deep.json");
    let tree: Vec<usize> = (1..=n).chain((1..=n).rev()).collect();
    let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    std::fs::write(
        &deep,
        serde_json::json!({"tree": tree, "name": names, "time": vec![1.0; n]}).to_string(),
    )
    .unwrap();
    let long = tmp.path().join("long.json");
    std::fs::write(
        &long,
        serde_json::json!({"tree": [1, 2, 2, 1], "name": ["x".repeat(70_000), "y"], "time": [1.0, 0.5]})
            .to_string(),
    )
    .unwrap();
    for file in [&deep, &long] {
        let f = file.to_str().unwrap();
        for layout in ["timer-tree", "truchas", "table", "json", "xml"] {
            let text = stdout_ok(&["tree", "show", f, "--indent", "64", "--layout", layout]);
            assert!(text.contains("t1099") || text.contains("xxxx"), "{layout}");
        }
        stdout_ok(&["tree", "merge", f, f]);
    }
    // The deepest line of the reference layout: 256 levels of 64 blanks (the
    // most any line gets), then its depth.
    let text = stdout_ok(&["tree", "show", deep.to_str().unwrap(), "--indent", "64"]);
    let last = text.lines().last().unwrap();
    assert_eq!(last.len() - last.trim_start().len(), 256 * 64);
    assert!(
        last.trim_start().starts_with("[depth 1099] t1099:"),
        "{last}"
    );
}

/// A chain 20,000 timers deep whose deepest timer has a 5 MB name: every
/// `tree show` layout and `tree merge` stay linear in the input. Indents
/// stop growing after 256 levels (the line says its depth), and the table
/// shortens the name instead of padding every row to it; before, the
/// timer-tree layout alone wrote 400 MB and the table 100 GB.
#[test]
fn deep_trees_and_long_names_give_outputs_linear_in_the_input() {
    let n = 20_000usize;
    let long = "L".repeat(5_000_000);
    let mut names: Vec<String> = (0..n).map(|i| format!("t{}", i % 7)).collect();
    names[n - 1] = long.clone();
    let tree: Vec<usize> = (1..=n).chain((1..=n).rev()).collect();
    let times: Vec<f64> = (0..n).map(|i| (n - i) as f64).collect();
    let json = serde_json::json!({"tree": tree, "name": names, "time": times});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep.json");
    std::fs::write(&file, json.to_string()).unwrap();
    let input = std::fs::metadata(&file).unwrap().len() as usize;
    let f = file.to_str().unwrap();
    for args in [
        vec!["tree", "show", f],
        vec!["tree", "show", f, "--indent", "64"],
        vec!["tree", "show", f, "--layout", "truchas"],
        vec!["tree", "show", f, "--layout", "table", "--width", "0"],
        vec!["tree", "show", f, "--layout", "xml"],
        vec!["tree", "show", f, "--layout", "json"],
        vec!["tree", "merge", f, f, "--width", "0"],
    ] {
        let out = stdout_ok(&args);
        // 20,000 lines of at most 64 × 256 blanks, plus the name once.
        assert!(
            out.len() < input + 20_000 * (64 * 256 + 100),
            "{args:?}: {} bytes",
            out.len()
        );
        let table = args.contains(&"table") || args.contains(&"merge");
        assert_eq!(out.contains(&long), !table, "{args:?}");
        if table {
            assert!(out.contains(" more characters)"), "{args:?}");
        }
        // The file forms keep no depth marks (XML's indent just stops).
        if !args.contains(&"json") && !args.contains(&"xml") {
            assert!(out.contains("[depth 19999] "), "{args:?}");
        }
    }
}

/// Negative times on every timer below level 100 of a chain 20,000 deep:
/// ten warnings with their paths shortened, then one counting the rest
/// (each warning once named its whole path: gigabytes on stderr).
#[test]
fn warnings_about_a_deep_tree_are_listed_then_counted() {
    let n = 20_000usize;
    let tree: Vec<usize> = (1..=n).chain((1..=n).rev()).collect();
    let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let times: Vec<f64> = (0..n)
        .map(|i| if i < 100 { (n - i) as f64 } else { -1.0 })
        .collect();
    let json = serde_json::json!({"tree": tree, "name": names, "time": times});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("negative.json");
    std::fs::write(&file, json.to_string()).unwrap();
    let out = run(&["tree", "show", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 11, "{err}");
    assert!(err.len() < 20_000, "{} bytes", err.len());
    assert!(
        err.contains("(t0/t1/t2/t3/t4/t5/t6/t7/… 85 levels …/t93/t94/t95/t96/t97/t98/t99/t100)"),
        "{err}"
    );
    assert!(
        err.contains("19890 more timers whose time is negative, NaN or infinite"),
        "{err}"
    );
}
