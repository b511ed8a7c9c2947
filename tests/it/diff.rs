//! `profparse diff A B`: runs compared node by node. The numbers of each
//! side are checked against the independent single-run reports
//! (`calltree`, `summary`, `tlog tree`, `tree show --layout table`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{db, fixtures, json_expect, profparse, run_expect, s, timer_tree, tlog};

fn path_of(row: &Value) -> Vec<String> {
    row["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// Nodes of a `calltree`/`tlog tree` JSON document by call path:
/// (inclusive_avg, exclusive_avg, calls).
fn tree_nodes(doc: &Value) -> BTreeMap<Vec<String>, (f64, f64, u64)> {
    fn walk(n: &Value, path: &mut Vec<String>, out: &mut BTreeMap<Vec<String>, (f64, f64, u64)>) {
        path.push(n["name"].as_str().unwrap().to_owned());
        out.insert(
            path.clone(),
            (
                n["inclusive_avg"].as_f64().unwrap(),
                n["exclusive_avg"].as_f64().unwrap(),
                n["calls"].as_u64().unwrap(),
            ),
        );
        for c in n["children"].as_array().unwrap() {
            walk(c, path, out);
        }
        path.pop();
    }
    let mut out = BTreeMap::new();
    for r in doc["roots"].as_array().unwrap() {
        walk(r, &mut Vec::new(), &mut out);
    }
    out
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0)
}

/// Every row of `part` agrees with the single-run trees of A and B, for
/// the metric `metric` (0 = inclusive, 1 = exclusive).
fn check_against(
    part: &Value,
    a: &BTreeMap<Vec<String>, (f64, f64, u64)>,
    b: &BTreeMap<Vec<String>, (f64, f64, u64)>,
    metric: usize,
) {
    let pick = |t: &(f64, f64, u64)| if metric == 0 { t.0 } else { t.1 };
    let rows = part["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        let path = path_of(r);
        let (va, vb) = (r["a"].as_f64().unwrap(), r["b"].as_f64().unwrap());
        let mark = r["mark"].as_str().unwrap();
        match (a.get(&path), b.get(&path)) {
            (Some(x), Some(y)) => {
                assert_eq!(mark, "", "{path:?}");
                assert!(close(va, pick(x)) && close(vb, pick(y)), "{path:?}: {r}");
                assert_eq!(r["calls_a"].as_u64(), Some(x.2), "{path:?}");
                assert_eq!(r["calls_b"].as_u64(), Some(y.2), "{path:?}");
            }
            (Some(x), None) => {
                assert_eq!(mark, "-", "{path:?}");
                assert!(close(va, pick(x)) && vb == 0.0, "{path:?}");
                assert_eq!(r["calls_b"].as_u64(), Some(0));
            }
            (None, Some(y)) => {
                assert_eq!(mark, "+", "{path:?}");
                assert!(va == 0.0 && close(vb, pick(y)), "{path:?}");
                assert_eq!(r["calls_a"].as_u64(), Some(0));
                assert!(r["rel"].is_null() || vb == 0.0, "{path:?}");
            }
            (None, None) => panic!("{path:?} in neither run"),
        }
        assert!(close(r["diff"].as_f64().unwrap(), vb - va));
    }
    // Every node of either run is a row (nothing cut without --top).
    let paths: Vec<Vec<String>> = rows.iter().map(path_of).collect();
    for p in a.keys().chain(b.keys()) {
        assert!(paths.contains(p), "{p:?} missing from the diff");
    }
    assert_eq!(rows.len(), part["nodes"].as_u64().unwrap() as usize);
    let count = |m: &str| rows.iter().filter(|r| r["mark"] == m).count() as u64;
    assert_eq!(part["only_a"].as_u64(), Some(count("-")));
    assert_eq!(part["only_b"].as_u64(), Some(count("+")));
}

fn assert_all_zero(part: &Value) {
    assert_eq!(part["only_a"], 0);
    assert_eq!(part["only_b"], 0);
    for r in part["rows"].as_array().unwrap() {
        assert_eq!(r["diff"].as_f64(), Some(0.0), "{r}");
        assert_eq!(r["mark"], "", "{r}");
        assert!(r["rel"].is_null() || r["rel"].as_f64() == Some(0.0), "{r}");
        assert_eq!(r["calls_a"], r["calls_b"]);
    }
}

#[test]
fn database_with_itself_has_no_differences() {
    let a = db("small4");
    for metric in ["inclusive", "exclusive", "calls"] {
        let d = json_expect(
            &["diff", s(&a), s(&a), "--format", "json", "--metric", metric],
            &[0],
        );
        assert_eq!(d["kind"], "blprof");
        assert_eq!(d["metric"], metric);
        assert_all_zero(&d["calltree"]);
        assert_all_zero(&d["functions"]);
    }
    let text = run_expect(&["diff", s(&a), s(&a)], &[0]);
    assert!(text.contains("0 only in A (-), 0 only in B (+)"), "{text}");
}

#[test]
fn different_databases_match_their_calltrees() {
    for (x, y) in [
        ("small4", "single"),
        ("small4", "asym4"),
        ("small4", "flush"),
    ] {
        let (a, b) = (db(x), db(y));
        let ta = tree_nodes(&json_expect(&["calltree", s(&a), "--format", "json"], &[0]));
        let tb = tree_nodes(&json_expect(&["calltree", s(&b), "--format", "json"], &[0]));
        for (metric, m) in [("inclusive", 0), ("exclusive", 1)] {
            let d = json_expect(
                &["diff", s(&a), s(&b), "--format", "json", "--metric", metric],
                &[0],
            );
            check_against(&d["calltree"], &ta, &tb, m);
        }
        // Functions: the summary's Avg and total calls of each side.
        let summary = |p: &Path| -> BTreeMap<Vec<String>, (f64, f64, u64)> {
            let v = json_expect(&["summary", s(p), "--format", "json"], &[0]);
            v["functions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    let avg = f["avg"].as_f64().unwrap();
                    (
                        vec![f["name"].as_str().unwrap().to_owned()],
                        (avg, avg, f["ncalls_total"].as_u64().unwrap()),
                    )
                })
                .collect()
        };
        let d = json_expect(&["diff", s(&a), s(&b), "--format", "json"], &[0]);
        check_against(&d["functions"], &summary(&a), &summary(&b), 0);
    }
    // small4 has calls that single (1 process) does not make, asym4 the reverse.
    let d = json_expect(
        &[
            "diff",
            s(&db("small4")),
            s(&db("single")),
            "--format",
            "json",
        ],
        &[0],
    );
    assert!(d["calltree"]["only_a"].as_u64().unwrap() > 0);
    let d = json_expect(
        &[
            "diff",
            s(&db("small4")),
            s(&db("asym4")),
            "--format",
            "json",
        ],
        &[0],
    );
    assert!(d["calltree"]["only_b"].as_u64().unwrap() > 0);
    let text = run_expect(&["diff", s(&db("small4")), s(&db("asym4"))], &[0]);
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("+ ")),
        "{text}"
    );
}

#[test]
fn options_sort_cut_and_filter() {
    let (a, b) = (db("small4"), db("flush"));
    let rows = |extra: &[&str]| -> Vec<Value> {
        let mut args = vec!["diff", s(&a), s(&b), "--format", "json"];
        args.extend_from_slice(extra);
        json_expect(&args, &[0])["calltree"]["rows"]
            .as_array()
            .unwrap()
            .clone()
    };
    let f = |r: &Value, k: &str| r[k].as_f64().unwrap();
    let abs = rows(&[]);
    assert!(
        abs.windows(2)
            .all(|w| f(&w[0], "diff").abs() >= f(&w[1], "diff").abs())
    );
    let diff = rows(&["--sort", "diff"]);
    assert!(
        diff.windows(2)
            .all(|w| f(&w[0], "diff") >= f(&w[1], "diff"))
    );
    let name = rows(&["--sort", "name"]);
    assert!(name.windows(2).all(|w| path_of(&w[0]) <= path_of(&w[1])));
    let top = rows(&["--top", "3"]);
    assert_eq!(top, abs[..3]);
    let min = rows(&["--min-diff", "0.01"]);
    assert!(!min.is_empty() && min.len() < abs.len());
    assert!(min.iter().all(|r| f(r, "diff").abs() >= 0.01));
    let calls = rows(&["--metric", "calls"]);
    assert!(calls.iter().all(|r| {
        f(r, "diff") == r["calls_b"].as_f64().unwrap() - r["calls_a"].as_f64().unwrap()
    }));
}

#[test]
fn tlog_files() {
    let np4 = tlog("np4.log");
    let same = json_expect(&["diff", s(&np4), s(&np4), "--format", "json"], &[0]);
    assert_eq!(same["kind"], "tlog");
    assert!(same["functions"].is_null());
    assert_all_zero(&same["calltree"]);
    for other in ["np1.log", "np4_flush_part1.log", "edge_values.log"] {
        let b = tlog(other);
        // edge_values.log is damaged on purpose: warnings, exit code 3.
        let codes: &[i32] = if other == "edge_values.log" {
            &[3]
        } else {
            &[0]
        };
        let ta = tree_nodes(&json_expect(
            &["tlog", "tree", s(&np4), "--format", "json"],
            &[0],
        ));
        let tb = tree_nodes(&json_expect(
            &["tlog", "tree", s(&b), "--format", "json"],
            codes,
        ));
        let d = json_expect(&["diff", s(&np4), s(&b), "--format", "json"], codes);
        check_against(&d["calltree"], &ta, &tb, 0);
        if other == "edge_values.log" {
            // No interval of it closes: every node of np4 is marked `-`.
            assert_eq!(d["calltree"]["only_a"], d["calltree"]["nodes"]);
            assert!(!d["warnings"].as_array().unwrap().is_empty());
        }
    }
}

#[test]
fn timer_trees() {
    let a = timer_tree("measured_example.json");
    let same = json_expect(&["diff", s(&a), s(&a), "--format", "json"], &[0]);
    assert_eq!(same["kind"], "timer-tree");
    assert!(same["a"]["nprocs"].is_null());
    assert_all_zero(&same["calltree"]);
    // Against another tree (XML: the form does not matter, only the kind):
    // `A > B` in both, `A > C…` and `B…` only in A, `A > Q` and `R` only in B.
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("other.xml");
    std::fs::write(
        &b,
        r#"<TIMER NAME="A" TIME="0.05"><TIMER NAME="B" TIME="0.02"/><TIMER NAME="Q" TIME="0.01"/></TIMER><TIMER NAME="R" TIME="0.5"/>"#,
    )
    .unwrap();
    let d = json_expect(
        &["diff", s(&a), s(&b), "--format", "json", "--sort", "name"],
        &[0],
    );
    let part = &d["calltree"];
    assert_eq!(part["only_a"], 6);
    assert_eq!(part["only_b"], 2);
    // Inclusive = the timer's seconds, as `tree show --layout json` lists them.
    let seconds = |p: &Path| -> BTreeMap<Vec<String>, f64> {
        let v = json_expect(&["tree", "show", s(p), "--layout", "json"], &[0]);
        let (tree, names, times) = (
            v["tree"].as_array().unwrap(),
            v["name"].as_array().unwrap(),
            v["time"].as_array().unwrap(),
        );
        // `tree` is the pre-order walk: each handle once when entered and
        // once when left.
        let mut out = BTreeMap::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut path: Vec<String> = Vec::new();
        for h in tree {
            let h = h.as_u64().unwrap() as usize;
            if stack.last() == Some(&h) {
                stack.pop();
                path.pop();
            } else {
                stack.push(h);
                path.push(names[h - 1].as_str().unwrap().to_owned());
                out.insert(path.clone(), times[h - 1].as_f64().unwrap());
            }
        }
        out
    };
    let (sa, sb) = (seconds(&a), seconds(&b));
    let rows = part["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 10);
    for r in rows {
        let p = path_of(r);
        assert_eq!(r["a"].as_f64().unwrap(), sa.get(&p).copied().unwrap_or(0.0));
        assert_eq!(r["b"].as_f64().unwrap(), sb.get(&p).copied().unwrap_or(0.0));
        let mark = match (sa.contains_key(&p), sb.contains_key(&p)) {
            (true, true) => "",
            (true, false) => "-",
            _ => "+",
        };
        assert_eq!(r["mark"], mark, "{p:?}");
    }
    // Exclusive = seconds minus the children's.
    let d = json_expect(
        &[
            "diff",
            s(&a),
            s(&b),
            "--format",
            "json",
            "--metric",
            "exclusive",
        ],
        &[0],
    );
    let a_row = d["calltree"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| path_of(r) == ["A"])
        .unwrap()
        .clone();
    assert!(close(a_row["b"].as_f64().unwrap(), 0.05 - 0.02 - 0.01));
    // Damaged times (NaN, ±inf) are rows too, with warnings (exit code 3).
    let edge = timer_tree("ours/edge_cases.xml");
    let d = json_expect(&["diff", s(&a), s(&edge), "--format", "json"], &[3]);
    let rows = d["calltree"]["rows"].as_array().unwrap();
    assert_eq!(rows.len() as u64, d["calltree"]["nodes"].as_u64().unwrap());
    assert!(rows.iter().any(|r| path_of(r) == ["nan"]));
}

#[test]
fn mismatched_kinds_are_usage_errors() {
    let cases = [
        (db("small4"), tlog("np4.log")),
        (tlog("np4.log"), timer_tree("measured_example.json")),
        (timer_tree("measured_example.json"), db("single")),
    ];
    for (a, b) in cases {
        let out = profparse().args(["diff", s(&a), s(&b)]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{a:?} {b:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("same kind"), "{err}");
        assert!(out.stdout.is_empty());
    }
    // A directory that is no database is a usage error too.
    let out = profparse()
        .args(["diff", s(&fixtures().join("tlog")), s(&db("single"))])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A timer tree that is one chain `depth` deep: node i is named
/// `name(i)` and takes `seconds(i)` (inclusive).
fn chain_timer_tree(
    path: &Path,
    depth: usize,
    name: impl Fn(usize) -> String,
    seconds: impl Fn(usize) -> f64,
) {
    let tree: Vec<usize> = (1..=depth).chain((1..=depth).rev()).collect();
    let doc = serde_json::json!({
        "tree": tree,
        "name": (0..depth).map(&name).collect::<Vec<_>>(),
        "time": (0..depth).map(&seconds).collect::<Vec<_>>(),
    });
    std::fs::write(path, doc.to_string()).unwrap();
}

/// `diff` of two timer trees 100,000 deep: no stack overflow, and the
/// one change (the deepest timer's 0.5 s more, so its exclusive time rises
/// and its parent's falls) found at both ends of the chain, its path
/// shortened in the middle.
#[test]
fn diff_of_trees_a_hundred_thousand_deep() {
    const DEPTH: usize = 100_000;
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.json"), tmp.path().join("b.json"));
    let name = |i: usize| format!("f{i}");
    let secs = |i: usize| (DEPTH - i) as f64;
    chain_timer_tree(&a, DEPTH, name, secs);
    chain_timer_tree(&b, DEPTH, name, |i| {
        secs(i) + if i == DEPTH - 1 { 0.5 } else { 0.0 }
    });
    let out = run_expect(
        &[
            "diff",
            s(&a),
            s(&b),
            "--metric",
            "exclusive",
            "--min-diff",
            "0.1",
            "--width",
            "100000",
        ],
        &[0],
    );
    assert!(
        out.contains("Call tree: 100000 nodes, 0 only in A (-), 0 only in B (+)"),
        "{out}"
    );
    let rows: Vec<&str> = out.lines().filter(|l| l.contains(" more … ")).collect();
    assert_eq!(rows.len(), 2, "{out}");
    let tail = |last: usize| {
        (last - 26..=last)
            .map(|i| format!("f{i}"))
            .collect::<Vec<_>>()
            .join(" > ")
    };
    let deepest = format!("f0 > f1 > f2 > f3 > … 99969 more … > {}", tail(DEPTH - 1));
    let parent = format!("f0 > f1 > f2 > f3 > … 99968 more … > {}", tail(DEPTH - 2));
    // Equal |B − A|: in path order.
    assert!(
        rows[0].contains(&parent) && rows[0].contains("-500.0 ms"),
        "{}",
        rows[0]
    );
    assert!(
        rows[1].contains(&deepest) && rows[1].contains("+500.0 ms"),
        "{}",
        rows[1]
    );
}

/// `compare` of timer trees 100,000 deep whose deepest timer has the
/// outermost one's name: its time is counted once in that name's
/// inclusive time (it runs inside it) and in full in its exclusive time.
#[test]
fn compare_of_trees_a_hundred_thousand_deep() {
    const DEPTH: usize = 100_000;
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.json"), tmp.path().join("b.json"));
    let name = |i: usize| {
        if i == DEPTH - 1 {
            "f0".to_owned()
        } else {
            format!("f{i}")
        }
    };
    chain_timer_tree(&a, DEPTH, name, |i| (DEPTH - i) as f64);
    chain_timer_tree(&b, DEPTH, name, |i| 2.0 * (DEPTH - i) as f64);
    let f0 = |metric: &str| -> Value {
        let v = json_expect(
            &[
                "compare",
                "--weak",
                "--metric",
                metric,
                "--format",
                "json",
                s(&a),
                s(&b),
            ],
            &[0],
        );
        let f = v["functions"].as_array().unwrap();
        assert_eq!(f.len(), DEPTH - 1, "one timer per name");
        f.iter().find(|f| f["name"] == "f0").unwrap().clone()
    };
    let inclusive = f0("inclusive");
    assert_eq!(inclusive["times"], serde_json::json!([1e5, 2e5]));
    assert_eq!(inclusive["efficiency"][1], 0.5);
    // Exclusive: 1 s of its own at the top, the deepest timer's 1 s.
    assert_eq!(f0("exclusive")["times"], serde_json::json!([2.0, 4.0]));
}
