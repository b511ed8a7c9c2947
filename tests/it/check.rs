//! `profparse check DB`: clean databases are clean (the stock application's
//! with its one note), and damage in each part is found and named.

use std::fs;

use serde_json::Value;

use crate::common::{DATABASES, copy_db, db, json_expect, s};

fn check(dir: &str, code: i32) -> Value {
    json_expect(&["check", dir, "--format", "json"], &[code])
}

fn section<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == name)
        .unwrap()
}

#[test]
fn every_fixture_database_is_clean() {
    for name in DATABASES {
        let v = check(s(&db(name)), 0);
        assert_eq!(v["clean"], true, "{name}: {v}");
        assert_eq!(v["problems"], 0, "{name}");
        let traces = section(&v, "traces");
        assert!(traces["checked"]["call records"].as_u64().unwrap() > 0);
        let notes = if name == "amrlevel8" { 1 } else { 0 };
        assert_eq!(v["notes"], notes, "{name}: {v}");
    }
    let v = check(s(&db("amrlevel8")), 0);
    let note = section(&v, "regions")["notes"][0].as_str().unwrap();
    assert!(note.contains("amr_level.advance"), "{note}");
}

/// Process 0's call record `k` (after the sentinel) in small4's first data
/// file: its byte offset (213 region records of 16 bytes come first).
fn call_offset(k: usize) -> usize {
    213 * 16 + k * 40
}

#[test]
fn damaged_call_records_are_problems_named_by_kind() {
    let tmp = copy_db("small4");
    let data = tmp.path().join("bl_call_stats_D_00000");
    let mut bytes = fs::read(&data).unwrap();
    let mut put_i32 = |at: usize, v: i32| bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    put_i32(call_offset(5) + 4, 9999); // function number
    put_i32(call_offset(9) + 4, 9999);
    put_i32(call_offset(20), 40); // depth
    let at = call_offset(30) + 32; // start time
    bytes[at..at + 8].copy_from_slice(&1.0e6f64.to_le_bytes());
    fs::write(&data, bytes).unwrap();

    let v = check(s(tmp.path()), 1);
    assert_eq!(v["clean"], false);
    let problems: Vec<&str> = section(&v, "traces")["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let find = |what: &str| {
        problems
            .iter()
            .find(|p| p.contains(what))
            .unwrap_or_else(|| panic!("{what}: {problems:?}"))
            .to_owned()
    };
    assert!(find("function number not in").contains("process 0: 2 call record(s)"));
    assert!(find("depth not nested").contains("process 0:"));
    assert!(find("outside the block's timeMinMax").contains("process 0: 1 call record(s)"));
    assert!(find("before the previous call's").contains("process 0:"));
    // Each problem names the header line of the block.
    assert!(
        problems
            .iter()
            .all(|p| p.contains("bl_call_stats_H_00000:1:")),
        "{problems:?}"
    );
    for other in ["base", "regions", "comm"] {
        assert_eq!(
            section(&v, other)["problems"].as_array().unwrap().len(),
            0,
            "{other}"
        );
    }
}

#[test]
fn damage_in_the_other_parts_is_found() {
    let tmp = copy_db("small4");
    // A comm data file cut short, a base data file cut short.
    for f in ["bl_comm_prof_D_00001", "bl_prof_D_00002"] {
        let p = tmp.path().join(f);
        let len = fs::metadata(&p).unwrap().len();
        fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(len / 2)
            .unwrap();
    }
    let v = check(s(tmp.path()), 1);
    for part in ["base", "comm"] {
        let problems = section(&v, part)["problems"].as_array().unwrap();
        assert!(!problems.is_empty(), "{part}: {v}");
    }
    let text = crate::common::run_expect(&["check", s(tmp.path())], &[1]);
    assert!(
        text.contains("Problems:") && text.trim_end().ends_with("problem(s)"),
        "{text}"
    );
}
