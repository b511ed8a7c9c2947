//! `calltree --bottom-up`, `--focus` and the spread over processes, checked
//! against other reports of the same database: `trace-summary`'s exclusive
//! times, the top-down tree's nodes (per process and merged).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::{db, fixtures, json, output, profparse, run_ok, s};

/// Calls, inclusive and exclusive seconds of a node (sums over processes).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct M {
    calls: u64,
    incl: f64,
    excl: f64,
}

impl M {
    fn of(n: &Value) -> M {
        M {
            calls: n["calls"].as_u64().unwrap(),
            incl: n["inclusive"].as_f64().unwrap(),
            excl: n["exclusive"].as_f64().unwrap(),
        }
    }
}

/// Equal up to the rounding of sums taken in another order.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12
}

/// Every node of a nested JSON tree (`roots` or one node) by its path of
/// names from the outermost down, with the node itself.
fn nodes_by_path(roots: &[Value]) -> BTreeMap<Vec<String>, Value> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<(Vec<String>, &Value)> = roots
        .iter()
        .map(|n| (vec![n["name"].as_str().unwrap().to_owned()], n))
        .collect();
    while let Some((path, n)) = stack.pop() {
        for c in n["children"].as_array().unwrap() {
            let mut p = path.clone();
            p.push(c["name"].as_str().unwrap().to_owned());
            stack.push((p, c));
        }
        assert!(out.insert(path, n.clone()).is_none(), "a path twice");
    }
    out
}

fn calltree_json(d: &str, extra: &[&str]) -> Value {
    let mut args = vec!["calltree", d, "--format", "json"];
    args.extend_from_slice(extra);
    json(&args)
}

fn roots(v: &Value) -> &[Value] {
    v["roots"].as_array().unwrap()
}

/// What the bottom-up node of every caller path must hold, computed from
/// the top-down tree's nodes: for the reversed path `F < C1 < … < Ck`, the
/// sums over the top-down nodes whose path ends in `Ck > … > C1 > F` of
/// calls and exclusive time, and of inclusive time once per top-down path
/// (a node is left out when an ancestor also ends in that path).
fn expected_bottom_up(top: &BTreeMap<Vec<String>, Value>) -> BTreeMap<Vec<String>, M> {
    let mut out: BTreeMap<Vec<String>, M> = BTreeMap::new();
    for (path, n) in top {
        let m = M::of(n);
        if m.calls == 0 {
            continue;
        }
        for k in 1..=path.len() {
            let suffix = &path[path.len() - k..];
            let mut key: Vec<String> = suffix.to_vec();
            key.reverse();
            let e = out.entry(key).or_default();
            e.calls += m.calls;
            e.excl += m.excl;
            // An ancestor (a proper prefix) with calls ending in the suffix
            // already holds this node's inclusive time.
            let shadowed = (k..path.len()).any(|j| {
                &path[j - k..j] == suffix
                    && top
                        .get(&path[..j].to_vec())
                        .is_some_and(|a| M::of(a).calls > 0)
            });
            if !shadowed {
                e.incl += m.incl;
            }
        }
    }
    out
}

/// Each bottom-up node equals what the top-down tree says it must; each
/// node's children sum to it but for the calls whose stack is exactly the
/// node's path (the top-down node of that path, read backwards).
fn check_bottom_up(name: &str, top: &Value, up: &Value) {
    let top = nodes_by_path(roots(top));
    let up_nodes = nodes_by_path(roots(up));
    let expected = expected_bottom_up(&top);
    assert_eq!(
        up_nodes.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{name}: the caller paths"
    );
    for (path, n) in &up_nodes {
        let (got, want) = (M::of(n), expected[path]);
        assert_eq!(got.calls, want.calls, "{name} {path:?}: calls");
        assert!(
            close(got.excl, want.excl),
            "{name} {path:?}: {got:?} vs {want:?}"
        );
        assert!(
            close(got.incl, want.incl),
            "{name} {path:?}: {got:?} vs {want:?}"
        );
        let kids: f64 = n["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["exclusive"].as_f64().unwrap())
            .sum();
        let mut stack = path.clone();
        stack.reverse();
        let whole_stack = top.get(&stack).map_or(0.0, |t| M::of(t).excl);
        assert!(
            close(kids + whole_stack, got.excl),
            "{name} {path:?}: children {kids} + outermost {whole_stack} vs {}",
            got.excl
        );
        assert!(close(n["outermost"].as_f64().unwrap(), whole_stack));
    }
}

/// `trace-summary`'s exclusive time and calls per function, summed over
/// processes (`avg` is over every process, 0 where a function is absent).
fn summary_exclusive(d: &str, extra: &[&str]) -> BTreeMap<String, (u64, f64, Value)> {
    let mut args = vec!["trace-summary", d, "--format", "json"];
    args.extend_from_slice(extra);
    let v = json(&args);
    let n = v["nprocs"].as_f64().unwrap();
    v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                (
                    f["ncalls_total"].as_u64().unwrap(),
                    f["avg"].as_f64().unwrap() * n,
                    f.clone(),
                ),
            )
        })
        .collect()
}

/// The bottom-up roots are the functions with their exclusive totals in
/// `trace-summary` (the same selection: all processes, or a region); the
/// caller nodes below them are the top-down tree's read backwards; and per
/// process, the roots are `trace-summary`'s smallest and largest
/// process's exclusive times.
fn bottom_up_agrees_with_trace_summary_and_the_top_down_tree(name: &str) {
    let dir = db(name);
    let d = s(&dir);
    let info = json(&["info", d, "--format", "json"]);
    let region = info["trace"]["regions"][0].as_str().unwrap().to_owned();
    for extra in [vec![], vec!["--include-region", region.as_str()]] {
        let up = calltree_json(d, &[&["--bottom-up"], &extra[..]].concat());
        assert_eq!(up["view"], "bottom-up");
        let summary = summary_exclusive(d, &extra);
        let roots: BTreeMap<String, M> = roots(&up)
            .iter()
            .map(|r| (r["name"].as_str().unwrap().to_owned(), M::of(r)))
            .collect();
        for (f, (calls, excl, _)) in &summary {
            if *calls == 0 {
                assert!(!roots.contains_key(f), "{name} {extra:?}: {f} has no call");
                continue;
            }
            let r = roots
                .get(f)
                .unwrap_or_else(|| panic!("{name} {extra:?}: no root {f}"));
            assert_eq!(r.calls, *calls, "{name} {extra:?} {f}: calls");
            assert!(
                close(r.excl, *excl),
                "{name} {extra:?} {f}: {} vs {excl}",
                r.excl
            );
        }
        assert!(roots.keys().all(|f| summary.contains_key(f)), "{name}");
        let total: f64 = roots.values().map(|m| m.excl).sum();
        assert!(close(up["total_exclusive"].as_f64().unwrap(), total));
        check_bottom_up(name, &calltree_json(d, &extra), &up);
    }
    // One process: its roots at the processes trace-summary names.
    let summary = summary_exclusive(d, &[]);
    for (f, (_, _, row)) in &summary {
        for (proc, value) in [("min_proc", "min"), ("max_proc", "max")] {
            let p = row[proc].as_u64().unwrap().to_string();
            let up = calltree_json(d, &["--bottom-up", "--proc", &p]);
            assert_eq!(up["proc"].as_u64().unwrap().to_string(), p);
            let want = row[value].as_f64().unwrap();
            let got = roots(&up)
                .iter()
                .find(|r| r["name"] == f.as_str())
                .map_or(0.0, |r| r["exclusive"].as_f64().unwrap());
            assert!(close(got, want), "{name} {f} proc {p}: {got} vs {want}");
        }
    }
}

database_tests!(bottom_up_agrees_with_trace_summary_and_the_top_down_tree);

/// A process's bottom-up tree is its top-down tree read backwards too.
#[test]
fn bottom_up_of_one_process_is_its_tree_read_backwards() {
    let dir = db("small4");
    let d = s(&dir);
    for p in ["0", "3"] {
        let top = calltree_json(d, &["--proc", p]);
        let up = calltree_json(d, &["--proc", p, "--bottom-up"]);
        check_bottom_up(&format!("small4 --proc {p}"), &top, &up);
    }
}

/// The top-down nodes named `f` that no other `f` encloses, with their
/// paths: the call sites `--focus f` merges.
fn outermost_sites<'a>(
    top: &'a BTreeMap<Vec<String>, Value>,
    f: &str,
) -> Vec<(&'a Vec<String>, &'a Value)> {
    top.iter()
        .filter(|(p, _)| p.last().unwrap() == f && !p[..p.len() - 1].iter().any(|n| n == f))
        .collect()
}

/// `--focus F` on the function with the most call sites: each callee node
/// (`F > …`) sums the top-down nodes at that path below each site; the
/// callers are the bottom-up tree's branch of `F`.
fn focus_merges_the_call_sites(name: &str) {
    let dir = db(name);
    let d = s(&dir);
    for extra in [&[][..], &["--proc", "0"][..]] {
        check_focus(&format!("{name} {extra:?}"), d, extra);
    }
    // A region filter: the first region whose calls include a function
    // called from several places.
    let info = json(&["info", d, "--format", "json"]);
    let region = info["trace"]["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .find(|r| {
            let top = nodes_by_path(roots(&calltree_json(d, &["--include-region", r])));
            let mut names: Vec<&String> = top.keys().map(|p| p.last().unwrap()).collect();
            let all = names.len();
            names.sort();
            names.dedup();
            names.len() < all
        })
        .unwrap_or_else(|| panic!("{name}: no region with a function called from two places"));
    check_focus(
        &format!("{name} --include-region {region}"),
        d,
        &["--include-region", region],
    );
}

/// `--focus` (with `extra` options) on the function with the most call
/// sites in the top-down tree of the same options.
fn check_focus(name: &str, d: &str, extra: &[&str]) {
    let top = nodes_by_path(roots(&calltree_json(d, extra)));
    let mut sites: BTreeMap<&str, usize> = BTreeMap::new();
    for p in top.keys() {
        *sites.entry(p.last().unwrap()).or_default() += 1;
    }
    let (&f, &n) = sites
        .iter()
        .max_by_key(|(f, n)| (**n, std::cmp::Reverse(**f)))
        .unwrap();
    assert!(n >= 2, "{name}: no function with several call sites");
    let v = calltree_json(d, &[&["--focus", f][..], extra].concat());
    assert_eq!(v["view"], "focus");
    let functions = v["functions"].as_array().unwrap();
    assert_eq!(functions.len(), 1, "{name}: exact name, one function");
    assert_eq!(functions[0]["name"], f);
    // Callees: every path below the sites, summed over the sites.
    let mut want: BTreeMap<Vec<String>, M> = BTreeMap::new();
    for (site, _) in outermost_sites(&top, f) {
        for (path, node) in top.range(site.clone()..) {
            if !path.starts_with(site) {
                break;
            }
            let mut key = vec![f.to_owned()];
            key.extend_from_slice(&path[site.len()..]);
            let e = want.entry(key).or_default();
            let m = M::of(node);
            e.calls += m.calls;
            e.incl += m.incl;
            e.excl += m.excl;
        }
    }
    // Shown: the paths with a call in their subtree (and the root).
    let shown = |path: &Vec<String>| {
        path.len() == 1
            || want
                .range(path.clone()..)
                .take_while(|(p, _)| p.starts_with(path))
                .any(|(_, m)| m.calls > 0)
    };
    let want: BTreeMap<_, _> = want.iter().filter(|(p, _)| shown(p)).collect();
    let callees = nodes_by_path(std::slice::from_ref(&functions[0]["callees"]));
    assert_eq!(
        callees.keys().collect::<Vec<_>>(),
        want.keys().copied().collect::<Vec<_>>(),
        "{name} {f}"
    );
    for (path, node) in &callees {
        let (got, w) = (M::of(node), want[path]);
        assert_eq!(got.calls, w.calls, "{name} {path:?}");
        assert!(
            close(got.incl, w.incl) && close(got.excl, w.excl),
            "{name} {path:?}: {got:?} vs {w:?}"
        );
    }
    // Callers: the bottom-up branch of F, node for node.
    let up = nodes_by_path(roots(&calltree_json(
        d,
        &[&["--bottom-up"][..], extra].concat(),
    )));
    let callers = nodes_by_path(std::slice::from_ref(&functions[0]["callers"]));
    let branch: BTreeMap<_, _> = up.into_iter().filter(|(p, _)| p[0] == f).collect();
    assert_eq!(
        callers.keys().collect::<Vec<_>>(),
        branch.keys().collect::<Vec<_>>(),
        "{name}"
    );
    for (path, node) in &callers {
        assert_eq!(M::of(node), M::of(&branch[path]), "{name} {path:?}");
    }
}

database_tests!(focus_merges_the_call_sites);

/// A recursive function: its callees hold the outermost calls once, the
/// inner calls below them.
#[test]
fn focus_on_a_recursive_function_counts_its_time_once() {
    let dir = db("small4");
    let d = s(&dir);
    let top = nodes_by_path(roots(&calltree_json(d, &[])));
    let sites = outermost_sites(&top, "Recurse()");
    let incl: f64 = sites.iter().map(|(_, n)| M::of(n).incl).sum();
    let all: f64 = top
        .iter()
        .filter(|(p, _)| p.last().unwrap() == "Recurse()")
        .map(|(_, n)| M::of(n).incl)
        .sum();
    assert!(all > incl * 1.1, "Recurse() is recursive in small4");
    let v = calltree_json(d, &["--focus", "Recurse()"]);
    let f = &v["functions"][0];
    assert!(close(f["callees"]["inclusive"].as_f64().unwrap(), incl));
    assert!(close(f["callers"]["inclusive"].as_f64().unwrap(), incl));
}

/// A glob names several functions: one section each, by exclusive time.
#[test]
fn focus_glob_gives_one_section_per_function() {
    let dir = db("small4");
    let d = s(&dir);
    let v = calltree_json(d, &["--focus", "Exchange*"]);
    let names: Vec<&str> = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(
        names.len() >= 3 && names.contains(&"Exchange()"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| n.starts_with("Exchange")));
    let excl: Vec<f64> = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["callers"]["exclusive"].as_f64().unwrap())
        .collect();
    assert!(excl.windows(2).all(|w| w[0] >= w[1]), "{excl:?}");
    // Text: callers and callees of each.
    let text = run_ok(&["calltree", d, "--focus", "Exchange*"]);
    assert_eq!(
        text.matches("Callers of Exchange").count(),
        names.len(),
        "{text}"
    );
    assert_eq!(
        text.matches("Callees of Exchange").count(),
        names.len(),
        "{text}"
    );
    // HTML: one page, the two trees of each function.
    let html = run_ok(&["calltree", d, "--focus", "Exchange*", "--format", "html"]);
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert_eq!(html.matches("<h3>Callers of Exchange").count(), names.len());
    assert_eq!(html.matches("<h3>Callees of Exchange").count(), names.len());
    assert_eq!(
        html.matches("<details").count(),
        html.matches("</details>").count()
    );
    // Folded: the callees' stacks, each starting at a focused function.
    let folded = run_ok(&["calltree", d, "--focus", "Exchange()", "--format", "folded"]);
    assert!(!folded.is_empty());
    assert!(
        folded.lines().all(|l| l.starts_with("Exchange()")),
        "{folded}"
    );
}

/// The spread of every merged node — top-down and bottom-up — is the one
/// the per-process trees give: minimum (0 where a process lacks the
/// node), average, maximum and the process holding it.
fn spread_matches_the_processes(name: &str) {
    let dir = db(name);
    let d = s(&dir);
    for extra in [&[][..], &["--bottom-up"][..]] {
        let merged = calltree_json(d, extra);
        let nprocs = merged["nprocs"].as_u64().unwrap();
        let per_proc: Vec<BTreeMap<Vec<String>, Value>> = (0..nprocs)
            .map(|p| {
                let ps = p.to_string();
                let v = calltree_json(d, &[extra, &["--proc", ps.as_str()]].concat());
                assert_eq!(v["nprocs"], 1);
                nodes_by_path(roots(&v))
            })
            .collect();
        for (path, n) in nodes_by_path(roots(&merged)) {
            let values: Vec<Option<f64>> = per_proc
                .iter()
                .map(|t| t.get(&path).map(|x| x["inclusive"].as_f64().unwrap()))
                .collect();
            let (min, avg, max) = (
                n["inclusive_min"].as_f64().unwrap(),
                n["inclusive_avg"].as_f64().unwrap(),
                n["inclusive_max"].as_f64().unwrap(),
            );
            let eps = 1e-12;
            assert!(min <= avg + eps && avg <= max + eps, "{name} {path:?}");
            let want_min = values
                .iter()
                .map(|v| v.unwrap_or(0.0))
                .fold(f64::INFINITY, f64::min);
            let want_max = values
                .iter()
                .flatten()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = values.iter().flatten().sum();
            assert!(
                close(min, want_min),
                "{name} {extra:?} {path:?}: min {min} vs {want_min}"
            );
            assert!(close(max, want_max), "{name} {extra:?} {path:?}: max");
            assert!(
                close(avg, sum / nprocs as f64),
                "{name} {extra:?} {path:?}: avg"
            );
            let at = n["max_proc"].as_u64().unwrap() as usize;
            assert_eq!(
                values[at],
                Some(max),
                "{name} {extra:?} {path:?}: max_proc {at}"
            );
            assert_eq!(
                n["procs"].as_u64().unwrap() as usize,
                values.iter().flatten().count(),
                "{name} {extra:?} {path:?}: procs"
            );
        }
        // One process: its spread is its own value.
        for t in per_proc.iter().take(2) {
            for n in t.values() {
                let incl = n["inclusive"].as_f64().unwrap();
                for k in ["inclusive_min", "inclusive_avg", "inclusive_max"] {
                    assert_eq!(n[k].as_f64().unwrap(), incl, "{name} {k}");
                }
            }
        }
    }
}

database_tests!(spread_matches_the_processes);

/// `--wide` adds the smallest inclusive time, and the largest with its
/// process for one process too; the numbers are the JSON's.
#[test]
fn wide_text_shows_the_spread() {
    let dir = db("small4");
    let d = s(&dir);
    let narrow = run_ok(&["calltree", d]);
    assert!(!narrow.contains("Incl min"));
    let wide = run_ok(&["calltree", d, "--wide"]);
    let header = wide.lines().find(|l| l.contains("Call path")).unwrap();
    let cols: Vec<&str> = header
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        cols,
        [
            "Incl avg",
            "Excl avg",
            "Calls",
            "Incl min",
            "Incl max",
            "proc",
            "Call path"
        ]
    );
    let v = calltree_json(d, &[]);
    let main = &roots(&v).iter().find(|r| r["name"] == "main()").unwrap();
    let line = wide.lines().find(|l| l.ends_with("  main()")).unwrap();
    let f = crate::common::line_numbers(line);
    let (min, max) = (f[3].unwrap(), f[4].unwrap());
    assert!(
        crate::common::shows(min, main["inclusive_min"].as_f64().unwrap()),
        "{line}"
    );
    assert!(
        crate::common::shows(max, main["inclusive_max"].as_f64().unwrap()),
        "{line}"
    );
    assert_eq!(f[5], main["max_proc"].as_f64());
    let one = run_ok(&["calltree", d, "--wide", "--proc", "2"]);
    assert!(
        one.contains("Incl min") && one.contains("Incl max"),
        "{one}"
    );
    let up = run_ok(&["calltree", d, "--wide", "--bottom-up"]);
    assert!(
        up.contains("Excl avg   Incl avg      Calls   Incl min   Incl max   proc"),
        "{up}"
    );
}

/// Bottom-up folded stacks (`function;caller;…`) add up, per function, to
/// its root's exclusive time; the HTML page is the tree's.
#[test]
fn bottom_up_folded_and_html() {
    let dir = db("small4");
    let d = s(&dir);
    let up = calltree_json(d, &["--bottom-up"]);
    // Summed over processes, as the JSON's `exclusive`.
    let folded = run_ok(&[
        "calltree",
        d,
        "--bottom-up",
        "--format",
        "folded",
        "--aggregate",
        "sum",
    ]);
    let mut sums: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for l in folded.lines() {
        let (stack, us) = l.rsplit_once(' ').unwrap();
        let e = sums.entry(stack.split(';').next().unwrap()).or_default();
        e.0 += us.parse::<f64>().unwrap();
        e.1 += 1;
    }
    assert!(
        folded.contains("Work();Leaf();Compute();Step();main() "),
        "{folded}"
    );
    for r in roots(&up) {
        let excl_us = r["exclusive"].as_f64().unwrap() * 1e6;
        let (got, lines) = sums
            .get(r["name"].as_str().unwrap())
            .copied()
            .unwrap_or((0.0, 0));
        // Each line is rounded to whole microseconds (lines under 1 µs are left out).
        let slack = 1.0 * (lines + nodes_by_path(std::slice::from_ref(r)).len()) as f64;
        assert!(
            (got - excl_us).abs() <= slack,
            "{}: {got} vs {excl_us}",
            r["name"]
        );
    }
    let html = run_ok(&["calltree", d, "--bottom-up", "--format", "html"]);
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("Bottom-up call tree"));
    assert_eq!(
        html.matches("<details").count(),
        html.matches("</details>").count()
    );
    // --depth 0: the functions alone.
    let top = calltree_json(d, &["--bottom-up", "--depth", "0"]);
    assert!(
        roots(&top)
            .iter()
            .all(|r| r["children"].as_array().unwrap().is_empty())
    );
    assert_eq!(roots(&top).len(), roots(&up).len());
}

/// The same bytes at one and at two threads.
#[test]
fn callers_reports_are_the_same_at_any_thread_count() {
    let dir = db("amrlevel8");
    let d = s(&dir);
    for args in [
        vec!["calltree", d, "--bottom-up", "--format", "json"],
        vec!["calltree", d, "--focus", "FabArray*", "--format", "json"],
        vec!["calltree", d, "--bottom-up", "--wide"],
    ] {
        let one = run_ok(&[&["-j", "1"], &args[..]].concat());
        let two = run_ok(&[&["-j", "2"], &args[..]].concat());
        assert_eq!(one, two, "{args:?}");
        assert!(one.len() > 1000, "{args:?}");
    }
}

/// Usage errors (exit 2) with a message that says why.
#[test]
fn callers_usage_errors() {
    let dir = db("small4");
    let d = s(&dir);
    for (args, words) in [
        (vec!["--focus", "NoSuchFunction*"], "no function"),
        (
            vec!["--focus", "Leaf()", "--format", "hatchet"],
            "--focus offers",
        ),
        (
            vec!["--bottom-up", "--format", "hatchet"],
            "--bottom-up offers",
        ),
        (
            vec!["--bottom-up", "--focus", "Leaf()"],
            "cannot be used with",
        ),
    ] {
        let out = output(&[&["calltree", d][..], &args[..]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{args:?}: {err}");
    }
    // A TinyProfiler log has no call paths.
    let log = fixtures().join("tinyprofiler/singlevortex_24.10_np2.txt");
    for flag in [&["--bottom-up"][..], &["--focus", "main"][..]] {
        let out = output(&[&["calltree", s(&log)][..], flag].concat());
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("flat profile"));
    }
}

/// `calltree --help` documents the new flags.
#[test]
fn help_describes_bottom_up_focus_and_wide() {
    let help = String::from_utf8(
        profparse()
            .args(["calltree", "--help"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    // Lines are wrapped at the terminal's width: compare words.
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for words in [
        "--bottom-up",
        "below each function its callers",
        "--focus <FUNC>",
        "merged over all its call sites",
        "--wide",
        "the process holding the largest",
    ] {
        assert!(help.contains(words), "missing {words:?} in:\n{help}");
    }
}

/// `tlog tree --wide`: the same spread columns, each line's numbers those
/// of the per-process trees (the merge is `calltree`'s).
#[test]
fn tlog_tree_wide_shows_the_spread_of_its_processes() {
    let log = crate::common::tlog("np4.log");
    let l = s(&log);
    let merged = json(&["tlog", "tree", l, "--format", "json"]);
    let nprocs = merged["nprocs"].as_u64().unwrap();
    assert!(nprocs > 1);
    let per_proc: Vec<BTreeMap<Vec<String>, Value>> = (0..nprocs)
        .map(|p| {
            let ps = p.to_string();
            nodes_by_path(roots(&json(&[
                "tlog", "tree", l, "--proc", &ps, "--format", "json",
            ])))
        })
        .collect();
    let wide = run_ok(&["tlog", "tree", l, "--wide"]);
    let lines: Vec<&str> = wide.lines().skip(1).collect();
    let mut checked = 0;
    for (path, n) in nodes_by_path(roots(&merged)) {
        let values: Vec<f64> = per_proc
            .iter()
            .map(|t| {
                t.get(&path)
                    .map_or(0.0, |x| x["inclusive"].as_f64().unwrap())
            })
            .collect();
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!(close(n["inclusive_min"].as_f64().unwrap(), min), "{path:?}");
        assert!(close(n["inclusive_max"].as_f64().unwrap(), max), "{path:?}");
        // The root's text line (depth 0 names are unique among roots).
        if path.len() == 1 {
            let line = lines
                .iter()
                .find(|l| l.ends_with(&format!("  {}", path[0])))
                .unwrap();
            let f = crate::common::line_numbers(line);
            assert!(
                crate::common::shows(f[3].unwrap(), min)
                    && crate::common::shows(f[4].unwrap(), max),
                "{line}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

/// Calls nested 300 deep: caller and callee paths are cut at 128 levels
/// with a note (exit code 0), and the roots keep every function's whole
/// exclusive time.
#[test]
fn deep_stacks_are_cut_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("deep");
    let d = s(&dir);
    run_ok(&[
        "synth", "blprof", d, "--procs", "2", "--depth", "300", "--calls", "3000",
    ]);
    let summary = json(&["trace-summary", d, "--format", "json"]);
    assert_eq!(summary["max_call_stack_depth"], 300);
    let out = output(&[
        "calltree",
        d,
        "--bottom-up",
        "--depth",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("note: ") && err.contains("caller paths deeper than 128 levels"),
        "{err}"
    );
    let up: Value = serde_json::from_slice(&out.stdout).unwrap();
    let totals = summary_exclusive(d, &[]);
    for r in roots(&up) {
        let (_, excl, _) = &totals[r["name"].as_str().unwrap()];
        assert!(
            close(r["exclusive"].as_f64().unwrap(), *excl),
            "{}",
            r["name"]
        );
    }
    assert_eq!(
        roots(&up).len(),
        totals.values().filter(|t| t.0 > 0).count()
    );
    let out = output(&["calltree", d, "--focus", "*", "--depth", "3"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("callee paths deeper than 128 levels"));
}
