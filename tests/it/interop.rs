//! Open formats read by other tools: Hatchet's literal JSON (loaded by
//! Hatchet itself in the optional tests, `cargo test -- --include-ignored`),
//! folded stacks rendered by inferno, shell completions and the man page.

use serde_json::Value;

use crate::common::{db, profparse, python, python_has, require, run_ok, tlog};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

// ---------------------------------------------------------------- Hatchet

/// Σ of one metric over every node of a literal tree, and the node count.
fn literal_sum(nodes: &[Value], metric: &str) -> (f64, usize) {
    let mut sum = 0.0;
    let mut count = 0;
    for n in nodes {
        assert_eq!(n["frame"]["type"], "function");
        assert!(n["frame"]["name"].is_string());
        sum += n["metrics"][metric].as_f64().unwrap();
        count += 1;
        let (s, c) = literal_sum(n["children"].as_array().unwrap(), metric);
        sum += s;
        count += c;
    }
    (sum, count)
}

fn names(nodes: &[Value], out: &mut Vec<String>) {
    for n in nodes {
        out.push(n["frame"]["name"].as_str().unwrap().to_owned());
        names(n["children"].as_array().unwrap(), out);
    }
}

/// Fails the (optional) test unless `python3 -c "import hatchet"` works.
fn require_hatchet() {
    // Importing hatchet (and pandas) takes seconds: ask once per test run.
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *AVAILABLE.get_or_init(|| python_has("hatchet"));
    require(ok, "Python's hatchet", "pip install llnl-hatchet");
}

/// Loads a literal with Hatchet; returns (Σ time, Σ time (inc) of the
/// roots, Σ calls, rows, names).
fn load_with_hatchet(literal: &str) -> (f64, f64, f64, usize, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tree.json");
    std::fs::write(&file, literal).unwrap();
    let script = r#"
import json, sys
import hatchet as ht
gf = ht.GraphFrame.from_literal(json.load(open(sys.argv[1])))
df = gf.dataframe
roots = sum(df.loc[r, "time (inc)"] for r in gf.graph.roots)
print(repr(float(df["time"].sum())))
print(repr(float(roots)))
print(repr(float(df["calls"].sum())))
print(len(df))
for name in df["name"]:
    print(name)
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "hatchet from_literal failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let mut num = || lines.next().unwrap().parse::<f64>().unwrap();
    let (time, roots, calls, rows) = (num(), num(), num(), num() as usize);
    let names = lines.map(str::to_owned).collect();
    (time, roots, calls, rows, names)
}

/// A database's call tree as JSON and as Hatchet's literal, the literal
/// parsed, and the total inclusive time per process.
fn calltree_literal(name: &str) -> (Value, String, Vec<Value>, f64) {
    let d = db(name);
    let d = d.to_str().unwrap();
    let json: Value = serde_json::from_str(&run_ok(&["calltree", d, "--format", "json"])).unwrap();
    let nprocs = json["nprocs"].as_f64().unwrap();
    let total = json["total_inclusive"].as_f64().unwrap() / nprocs;
    let literal = run_ok(&["calltree", d, "--format", "hatchet"]);
    let roots: Vec<Value> = serde_json::from_str(&literal).unwrap();
    (json, literal, roots, total)
}

fn calltree_hatchet_literal_matches_the_json_tree(name: &str) {
    let (json, _, roots, total) = calltree_literal(name);
    assert!(!roots.is_empty(), "{name}");
    // Same nodes in the same order as the JSON tree, times averaged.
    let json_roots = json["roots"].as_array().unwrap();
    assert_eq!(roots.len(), json_roots.len());
    for (h, j) in roots.iter().zip(json_roots) {
        assert_eq!(h["frame"]["name"], j["name"]);
        assert!(close(
            h["metrics"]["time (inc)"].as_f64().unwrap(),
            j["inclusive_avg"].as_f64().unwrap()
        ));
        assert!(close(
            h["metrics"]["time"].as_f64().unwrap(),
            j["exclusive_avg"].as_f64().unwrap()
        ));
        assert_eq!(h["metrics"]["calls"], j["calls"]);
    }
    // Exclusive times add up to the total inclusive time.
    let (time, _) = literal_sum(&roots, "time");
    assert!(close(time, total), "{name}: Σ time {time} vs total {total}");
}

fixture_tests!(calltree_hatchet_literal_matches_the_json_tree: small4, single, flush);

/// Hatchet itself loads our literal: the same times, rows and names.
fn hatchet_loads_the_calltree_literal(name: &str) {
    require_hatchet();
    let (_, literal, roots, total) = calltree_literal(name);
    let (_, nodes) = literal_sum(&roots, "time");
    let (h_time, h_roots, h_calls, rows, h_names) = load_with_hatchet(&literal);
    assert!(
        close(h_time, total),
        "{name}: hatchet Σ time {h_time} vs {total}"
    );
    assert!(
        close(h_roots, total),
        "{name}: hatchet roots {h_roots} vs {total}"
    );
    assert_eq!(rows, nodes, "{name}");
    let (calls, _) = literal_sum(&roots, "calls");
    assert!(close(h_calls, calls));
    let mut ours = Vec::new();
    names(&roots, &mut ours);
    let (mut a, mut b) = (ours, h_names);
    a.sort();
    b.sort();
    assert_eq!(a, b, "{name}");
}

fixture_tests!(
    #[ignore = "needs Python's hatchet (pip install llnl-hatchet)"]
    hatchet_loads_the_calltree_literal: small4, single, flush
);

// ------------------------------------------------------------- TAU profiles

/// Per path below the root: (calls, inclusive, exclusive) seconds of one
/// process's JSON call tree.
fn json_paths(nodes: &[Value], prefix: &[String], out: &mut Vec<(Vec<String>, [f64; 3])>) {
    for n in nodes {
        let mut path = prefix.to_vec();
        path.push(n["name"].as_str().unwrap().to_owned());
        let m = |k: &str| n[k].as_f64().unwrap();
        out.push((path.clone(), [m("calls"), m("inclusive"), m("exclusive")]));
        json_paths(n["children"].as_array().unwrap(), &path, out);
    }
}

/// Hatchet's `from_tau` on `dir`: per rank and call path (names from the
/// root down), [Calls, time (inc), time] in microseconds.
fn hatchet_tau_rows(dir: &std::path::Path) -> Vec<(usize, Vec<String>, [f64; 3])> {
    let script = r#"
import json, sys, hatchet as ht
gf = ht.GraphFrame.from_tau(sys.argv[1])
df = gf.dataframe.reset_index()
for _, row in df.iterrows():
    path = [n.frame["name"] for n in row["node"].path()]
    print(json.dumps([int(row["rank"]), path, [float(row["Calls"]), float(row["time (inc)"]), float(row["time"])]]))
"#;
    python(script, &[dir.as_os_str()])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every rank's call paths as Hatchet reads them from our TAU export equal
/// that process's own call tree (`calltree --proc N --format json`).
fn hatchet_reads_the_tau_export_per_rank(name: &str) {
    require_hatchet();
    let d = db(name);
    let d = d.to_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("tau");
    run_ok(&["export", d, "--tau", dir.to_str().unwrap()]);
    let rows = hatchet_tau_rows(&dir);
    let ranks: std::collections::BTreeSet<usize> = rows.iter().map(|r| r.0).collect();
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(ranks.len(), files, "{name}: one rank per profile");
    let us = |s: f64| s * 1e6;
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-3 + 1e-9 * a.abs().max(b.abs());
    for rank in ranks {
        let json: Value = serde_json::from_str(&run_ok(&[
            "calltree",
            d,
            "--proc",
            &rank.to_string(),
            "--format",
            "json",
        ]))
        .unwrap();
        let mut ours = Vec::new();
        json_paths(json["roots"].as_array().unwrap(), &[], &mut ours);
        let theirs: std::collections::HashMap<Vec<String>, [f64; 3]> = rows
            .iter()
            .filter(|r| r.0 == rank)
            .map(|r| (r.1.clone(), r.2))
            .collect();
        let root = theirs[&vec![".TAU application".to_owned()]];
        assert!(
            (root[1] - us(json["total_inclusive"].as_f64().unwrap())).abs() <= 1.0,
            "{name} rank {rank}: root {root:?}"
        );
        for (path, [calls, inc, exc]) in &ours {
            let mut key = vec![".TAU application".to_owned()];
            key.extend(path.iter().cloned());
            let t = theirs
                .get(&key)
                .unwrap_or_else(|| panic!("{name} rank {rank}: {key:?} not read"));
            assert_eq!(t[0], *calls, "{name} rank {rank} {key:?} calls");
            assert!(
                near(t[1], us(*inc)),
                "{name} rank {rank} {key:?} inclusive {t:?}"
            );
            assert!(
                near(t[2], us(*exc)),
                "{name} rank {rank} {key:?} exclusive {t:?}"
            );
        }
        // Nodes of other ranks only read zero here.
        let extra = theirs.len() - 1 - ours.len();
        let zeros = theirs
            .values()
            .filter(|v| v.iter().all(|&x| x == 0.0))
            .count();
        assert!(extra <= zeros, "{name} rank {rank}: {extra} paths not ours");
    }
}

fixture_tests!(
    #[ignore = "needs Python's hatchet (pip install llnl-hatchet)"]
    hatchet_reads_the_tau_export_per_rank: small4, single, flush, asym4, nfiles2, host_nid, amrlevel8
);

/// Thicket (Hatchet's multi-run layer) takes the TAU export as one run:
/// a row per call path and rank.
#[test]
#[ignore = "needs Python's thicket (pip install llnl-thicket)"]
fn thicket_reads_the_tau_export() {
    require(
        python_has("thicket"),
        "Python's thicket",
        "pip install llnl-thicket",
    );
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("tau");
    let d = db("small4");
    run_ok(&[
        "export",
        d.to_str().unwrap(),
        "--tau",
        dir.to_str().unwrap(),
    ]);
    let script = r#"
import sys, thicket as th
t = th.Thicket.from_tau(sys.argv[1])
df = t.dataframe.reset_index()
print("rows", len(df), df["rank"].nunique(), df["time (inc)"].max())
"#;
    let text = python(script, &[dir.as_os_str()]);
    // Thicket prints its own lines too.
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("rows "))
        .expect(&text);
    let v: Vec<f64> = line
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    let hatchet = hatchet_tau_rows(&dir);
    assert_eq!(v[0] as usize, hatchet.len());
    assert_eq!(v[1], 4.0);
    let root = hatchet.iter().map(|r| r.2[1]).fold(0.0, f64::max);
    assert_eq!(v[2], root);
}

#[test]
fn calltree_hatchet_of_one_process_and_with_bounds() {
    let d = db("small4");
    let d = d.to_str().unwrap();
    let one: Vec<Value> = serde_json::from_str(&run_ok(&[
        "calltree", d, "--proc", "1", "--format", "hatchet",
    ]))
    .unwrap();
    let json: Value =
        serde_json::from_str(&run_ok(&["calltree", d, "--proc", "1", "--format", "json"])).unwrap();
    let (time, _) = literal_sum(&one, "time");
    assert!(close(time, json["total_inclusive"].as_f64().unwrap()));
    // --depth 0 keeps the roots only.
    let top: Vec<Value> = serde_json::from_str(&run_ok(&[
        "calltree", d, "--depth", "0", "--format", "hatchet",
    ]))
    .unwrap();
    assert!(
        top.iter()
            .all(|n| n["children"].as_array().unwrap().is_empty())
    );
}

/// The tlog tree's literal, parsed, and the total inclusive time per process.
fn tlog_tree_literal() -> (String, Vec<Value>, f64) {
    let l = tlog("np4.log");
    let l = l.to_str().unwrap();
    let json: Value =
        serde_json::from_str(&run_ok(&["tlog", "tree", l, "--format", "json"])).unwrap();
    let total = json["total_inclusive"].as_f64().unwrap() / json["nprocs"].as_f64().unwrap();
    let literal = run_ok(&["tlog", "tree", l, "--format", "hatchet"]);
    let roots: Vec<Value> = serde_json::from_str(&literal).unwrap();
    (literal, roots, total)
}

#[test]
fn tlog_tree_hatchet_literal() {
    let (_, roots, total) = tlog_tree_literal();
    let (incl, _) = roots.iter().fold((0.0, 0), |(s, c), n| {
        (s + n["metrics"]["time (inc)"].as_f64().unwrap(), c + 1)
    });
    assert!(close(incl, total), "{incl} vs {total}");
}

#[test]
#[ignore = "needs Python's hatchet (pip install llnl-hatchet)"]
fn hatchet_loads_the_tlog_tree_literal() {
    require_hatchet();
    let (literal, roots, total) = tlog_tree_literal();
    let (_, h_roots, _, rows, _) = load_with_hatchet(&literal);
    assert!(close(h_roots, total));
    assert_eq!(rows, literal_sum(&roots, "time").1);
}

// ---------------------------------------------------------- flame graphs

/// Our folded stacks rendered by inferno (the Rust flamegraph.pl).
fn flame_svg(folded: &str) -> String {
    let mut opts = inferno::flamegraph::Options::default();
    opts.count_name = "us".to_owned();
    // Draw every frame, however narrow (the default drops those under 0.1 px).
    opts.min_width = 0.0;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut opts, folded.lines(), &mut svg).unwrap();
    String::from_utf8(svg).unwrap()
}

/// `1234567` as inferno prints sample counts: `1,234,567`.
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn folded_stacks_render_as_a_flame_graph(name: &str) {
    let d = db(name);
    let folded = run_ok(&["calltree", d.to_str().unwrap(), "--format", "folded"]);
    let mut total = 0u64;
    let mut frames = std::collections::BTreeSet::new();
    for line in folded.lines() {
        let (stack, n) = line.rsplit_once(' ').unwrap();
        total += n.parse::<u64>().unwrap();
        frames.extend(stack.split(';').map(str::to_owned));
    }
    assert!(total > 0, "{name}");
    let svg = flame_svg(&folded);
    assert!(svg.contains("<svg"), "{name}: no SVG");
    assert!(svg.trim_end().ends_with("</svg>"), "{name}: SVG cut short");
    // The root frame carries the sum of all stacks.
    let all = format!("all ({} us, 100%)", grouped(total));
    assert!(svg.contains(&all), "{name}: no `{all}` in the SVG");
    for f in &frames {
        let escaped = f
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert!(svg.contains(&escaped), "{name}: frame {f} missing");
    }
}

fixture_tests!(folded_stacks_render_as_a_flame_graph: small4, single, nfiles2);

// ------------------------------------------------ completions, man page

const SUBCOMMANDS: [&str; 14] = [
    "info",
    "summary",
    "trace-summary",
    "regions",
    "calltree",
    "calltrace",
    "comm",
    "diff",
    "export",
    "report",
    "tlog",
    "tree",
    "completions",
    "man",
];

#[test]
fn completion_scripts_name_the_commands() {
    let bash = run_ok(&["completions", "bash"]);
    assert!(bash.contains("complete -F _profparse"));
    for c in SUBCOMMANDS {
        assert!(bash.contains(c), "bash completion lacks {c}");
    }
    // Options and values of subcommands are completed too.
    assert!(bash.contains("--include-region"));
    assert!(bash.contains("hatchet"));
    let zsh = run_ok(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef profparse"));
    assert!(zsh.contains("trace-summary"));
    let fish = run_ok(&["completions", "fish"]);
    assert!(fish.contains("complete -c profparse"));
    assert!(fish.contains("trace-summary"));
    for shell in ["elvish", "powershell"] {
        assert!(
            run_ok(&["completions", shell]).contains("trace-summary"),
            "{shell}"
        );
    }
    // -o FILE writes the same script.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("profparse.bash");
    run_ok(&["completions", "bash", "-o", f.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), bash);
    // An unknown shell is a usage error.
    let out = profparse().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn man_page_is_roff_and_names_the_subcommands() {
    let man = run_ok(&["man"]);
    // roff: only the quote-string preamble comes before the title line.
    let first = man
        .lines()
        .find(|l| !l.starts_with(".ie") && !l.starts_with(".el"));
    assert!(
        first.is_some_and(|l| l.starts_with(".TH profparse 1")),
        "{first:?}"
    );
    assert!(man.contains(".SH SYNOPSIS"));
    assert!(man.contains(".SH SUBCOMMANDS"));
    for c in SUBCOMMANDS {
        let page = format!("profparse\\-{}(1)", c.replace('-', "\\-"));
        assert!(man.contains(&page), "man page lacks {page}");
    }
    assert!(!man.contains("synth"), "hidden commands stay hidden");

    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("profparse.1");
    run_ok(&["man", "-o", f.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), man);

    // --dir: one page per subcommand, nested ones included.
    let pages = dir.path().join("man1");
    run_ok(&["man", "--dir", pages.to_str().unwrap()]);
    for name in [
        "profparse",
        "profparse-calltree",
        "profparse-comm-stats",
        "profparse-tlog-tree",
    ] {
        let page = std::fs::read_to_string(pages.join(format!("{name}.1"))).unwrap();
        assert!(page.contains(&format!(".TH {name} 1")), "{name}");
    }
    let calltree = std::fs::read_to_string(pages.join("profparse-calltree.1")).unwrap();
    assert!(calltree.contains("hatchet") && calltree.contains("\\-\\-min\\-percent"));
}
