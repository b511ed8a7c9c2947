//! Serialized timer trees (JSON and XML) on arbitrary bytes: parse, validate,
//! load into a `TimerTree`, write every layout, and re-serialize: a tree that
//! validated once must validate again after a JSON and an XML round trip.
//!
//! The same bytes are also an instrumentation program (`nest`): a byte
//! below 0x80 starts timer `b % 16` under the current one, any other stops
//! the current one, so an input of n bytes nests up to n deep; the tree is
//! then written in every `tree show` layout. Run it with a large `-max_len`
//! (fuzz/run.sh: 100,000) to reach depths where indent-per-level layouts
//! used to grow with the square of the depth.
#![no_main]

use std::io::sink;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profparse::formats::timertree::json::read_json;
use profparse::formats::timertree::xml::read_xml;
use profparse::formats::timertree::{parse_serialized, suspicious_times, to_tree};
use profparse::model::calltree::CallTree;
use profparse::model::timertree::Timing;
use profparse::report::Format;
use profparse::report::timertree::json::write_json;
use profparse::report::timertree::reference::subtree_top;
use profparse::report::timertree::tree::TimerTreeReport;
use profparse::report::timertree::xml::write_xml;
use profparse::timer_tree::write::write_tree;
use profparse::timer_tree::{Handle, Precision, Serialized, TimerTree, WriteOptions};

/// Runs the bytes as start/stop calls and returns the tree they built.
fn nest(data: &[u8]) -> Option<CallTree<Timing>> {
    const NAMES: [&str; 16] = [
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p",
    ];
    let mut timers = TimerTree::new();
    let mut running = Vec::new();
    for &b in data {
        if b < 0x80 {
            let name = NAMES[usize::from(b % 16)];
            timers.start(name);
            running.push(name);
        } else if let Some(name) = running.pop() {
            timers.stop(name).expect("stops nest");
        }
    }
    while let Some(name) = running.pop() {
        timers.stop(name).expect("stops nest");
    }
    // No timer started: nothing to serialize (an error by design).
    if !data.iter().any(|&b| b < 0x80) {
        return None;
    }
    let serialized = timers.serialize().expect("a stopped tree serializes");
    to_tree(&serialized, Path::new("nest")).ok()
}

/// Every `tree show` layout of `tree`.
fn show(tree: &CallTree<Timing>) {
    // Indents of 0 and 3: wider ones only multiply the output (a depth times
    // the indent, capped at 256 levels; tests/it/timer_tree.rs covers them).
    for indent in [0, 3] {
        let top = subtree_top(tree, None).unwrap_or(tree.root());
        let report = TimerTreeReport {
            tree,
            top,
            indent,
            precision: Precision::F64,
        };
        for format in [
            Format::Reference,
            Format::Truchas,
            Format::Table,
            Format::Json,
            Format::Xml,
        ] {
            profparse::report::render(&report, format, Some(80), &mut sink()).unwrap();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(tree) = nest(data) {
        show(&tree);
    }
    let candidates = [
        parse_serialized(data, Path::new("t")),
        read_json(data, Path::new("t.json")),
        read_xml(data, Path::new("t.xml")),
    ];
    for s in candidates.into_iter().flatten() {
        let _ = (s.len(), s.is_empty());
        let mut timers = TimerTree::new();
        if timers.deserialize(&s).is_ok() {
            let _ = timers.serialize();
            let _ = timers.write(&mut sink(), 2, None);
        }
        let Ok(tree) = to_tree(&s, Path::new("t")) else {
            continue;
        };
        let _ = suspicious_times(&tree, Path::new("t"));
        for indent in [0, 3] {
            for precision in [Precision::F64, Precision::Binary32] {
                for handle in [None, Some(Handle::new(1)), Some(Handle::new(2))] {
                    let opts = WriteOptions {
                        indent,
                        handle,
                        precision,
                    };
                    let _ = write_tree(&mut sink(), &tree, &opts);
                }
            }
        }
        let again = Serialized::from_call_tree(&tree);
        let mut json = Vec::new();
        write_json(&mut json, &again).unwrap();
        let back = read_json(&json, Path::new("again.json")).expect("re-read own JSON");
        assert_eq!(back.tree, again.tree);
        assert_eq!(back.name, again.name);
        to_tree(&back, Path::new("again.json")).expect("own JSON re-validates");
        let mut xml = Vec::new();
        write_xml(&mut xml, &tree).unwrap();
        let back = read_xml(&xml, Path::new("again.xml")).expect("re-read own XML");
        assert_eq!(back.tree, again.tree);
        assert_eq!(back.name, again.name);
        to_tree(&back, Path::new("again.xml")).expect("own XML re-validates");
    }
});
