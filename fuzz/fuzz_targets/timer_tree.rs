//! Serialized timer trees (JSON and XML) on arbitrary bytes: parse, validate,
//! load into a `TimerTree`, write every layout, and re-serialize: a tree that
//! validated once must validate again after a JSON and an XML round trip.
#![no_main]

use std::io::sink;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profparse::formats::timertree::json::read_json;
use profparse::formats::timertree::xml::read_xml;
use profparse::formats::timertree::{parse_serialized, suspicious_times, to_tree};
use profparse::report::timertree::json::write_json;
use profparse::report::timertree::xml::write_xml;
use profparse::timer_tree::write::write_tree;
use profparse::timer_tree::{Handle, Precision, Serialized, TimerTree, WriteOptions};

fuzz_target!(|data: &[u8]| {
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
