//! TinyProfiler logs: every number of every shared report against the
//! printed text (parsed here, independently of the reader), `compare`
//! against efficiencies computed by hand, errors, recognition by content.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::*;

fn log(name: &str) -> PathBuf {
    fixtures().join("tinyprofiler").join(name)
}

/// stdout of a successful run in `fixtures/` (paths in goldens relative to it).
fn run_in_fixtures(args: &[&str]) -> String {
    let out = profparse()
        .current_dir(fixtures())
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The logs that hold a report.
const REPORTS: [&str; 11] = [
    "asyncout_24.10_np1.txt",
    "asyncout_24.10_np2.txt",
    "asyncout_24.10_np4.txt",
    "singlevortex_24.10_np1.txt",
    "singlevortex_24.10_np2.txt",
    "singlevortex_24.10_np4.txt",
    "singlevortex_24.10_np2_nomemprof.txt",
    "singlevortex_24.10_np2_outputfile.report.txt",
    "singlevortex_24.10_np2_threshold0.txt",
    "singlevortex_24.10_np2_threshold5.txt",
    "singlevortex_24.10_np2_verbose.txt",
];

/// A printed timer row: name, calls, min, avg, max, percent.
#[derive(Debug)]
struct Printed {
    name: String,
    ncalls: u64,
    nums: [f64; 3],
    percent: f64,
}

/// A printed memory row: name, nalloc, nfree, sizes as (value, unit bytes).
#[derive(Debug)]
struct PrintedMem {
    name: String,
    nalloc: u64,
    nfree: u64,
    sizes: Vec<(u64, u64)>,
}

/// What a report prints, section by section: (section, exclusive rows,
/// inclusive rows) with section "" for the main tables; memory tables by
/// arena; the total line's numbers.
#[derive(Default, Debug)]
struct Text {
    total: Vec<f64>,
    timers: Vec<(String, Vec<Printed>, Vec<Printed>)>,
    memory: Vec<(String, Vec<PrintedMem>)>,
}

fn unit(u: &str) -> u64 {
    match u {
        "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        _ => panic!("unit {u}"),
    }
}

/// A deliberately plain reading of the report text, by the format
/// description: tables are found by their header rows.
fn printed(path: &PathBuf) -> Text {
    let text = fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("TinyProfiler total time across processes"))
        .unwrap();
    let mut t = Text {
        total: lines[start]
            .split(": ")
            .nth(1)
            .unwrap()
            .split(" ... ")
            .map(|x| x.parse().unwrap())
            .collect(),
        ..Text::default()
    };
    let mut section = String::new();
    let mut arena = String::new();
    let mut i = start + 1;
    while i < lines.len() {
        let l = lines[i];
        if let Some(r) = l.strip_prefix("BEGIN REGION ") {
            section = r.to_owned();
        } else if let Some(a) = l.strip_suffix(" Memory Usage:") {
            arena = a.to_owned();
        } else if l.starts_with("Name ") && l.contains("NCalls") {
            let mut rows = Vec::new();
            i += 2;
            while !lines[i].starts_with("---") {
                let w: Vec<&str> = lines[i].split_whitespace().collect();
                let n = w.len();
                rows.push(Printed {
                    name: w[..n - 5].join(" "),
                    ncalls: w[n - 5].parse().unwrap(),
                    nums: [
                        w[n - 4].parse().unwrap(),
                        w[n - 3].parse().unwrap(),
                        w[n - 2].parse().unwrap(),
                    ],
                    percent: w[n - 1].trim_end_matches('%').parse().unwrap(),
                });
                i += 1;
            }
            if l.contains("Excl. Min") {
                t.timers.push((section.clone(), rows, Vec::new()));
            } else {
                t.timers.last_mut().unwrap().2 = rows;
            }
        } else if l.starts_with("Name ") && l.contains("Nalloc") {
            let nsizes = if l.contains("MaxMem max") { 6 } else { 2 };
            let mut rows = Vec::new();
            i += 2;
            while !lines[i].starts_with("---") {
                let w: Vec<&str> = lines[i].split_whitespace().collect();
                let n = w.len();
                let first = n - 2 * nsizes;
                rows.push(PrintedMem {
                    name: w[..first - 2].join(" "),
                    nalloc: w[first - 2].parse().unwrap(),
                    nfree: w[first - 1].parse().unwrap(),
                    sizes: (0..nsizes)
                        .map(|k| {
                            (
                                w[first + 2 * k].parse().unwrap(),
                                unit(w[first + 2 * k + 1]),
                            )
                        })
                        .collect(),
                });
                i += 1;
            }
            t.memory.push((arena.clone(), rows));
        }
        i += 1;
    }
    t
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// Checks the JSON functions (and other) of one section against its
/// printed exclusive and inclusive rows.
fn check_section(what: &str, functions: &Value, other: &Value, excl: &[Printed], incl: &[Printed]) {
    let find = |name: &str, last: bool| -> Value {
        if name == "Other" && last {
            return other.clone();
        }
        functions
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{what}: {name} not in the JSON"))
            .clone()
    };
    assert_eq!(
        functions.as_array().unwrap().len() + usize::from(!other.is_null()),
        excl.len(),
        "{what}"
    );
    for (k, p) in excl.iter().enumerate() {
        let f = find(&p.name, k + 1 == excl.len());
        assert_eq!(f["ncalls"].as_u64(), Some(p.ncalls), "{what} {}", p.name);
        for (key, x) in ["min", "avg", "max"].iter().zip(p.nums) {
            assert_eq!(num(&f, key), x, "{what} {} {key}", p.name);
        }
        assert_eq!(num(&f, "percent"), p.percent, "{what} {}", p.name);
    }
    for (k, p) in incl.iter().enumerate() {
        let f = find(&p.name, k + 1 == incl.len());
        for (key, x) in ["inclusive_min", "inclusive_avg", "inclusive_max"]
            .iter()
            .zip(p.nums)
        {
            assert_eq!(num(&f, key), x, "{what} {} {key}", p.name);
        }
        assert_eq!(num(&f, "inclusive_percent"), p.percent, "{what} {}", p.name);
    }
}

#[test]
fn every_number_of_every_shared_report_is_the_printed_one() {
    for name in REPORTS {
        let path = log(name);
        let t = printed(&path);
        let j = json(&["summary", s(&path), "--format", "json"]);
        let total = &j["total_time"];
        assert_eq!(
            [num(total, "min"), num(total, "avg"), num(total, "max")].to_vec(),
            t.total,
            "{name}"
        );
        let (main, regions) = t.timers.split_first().unwrap();
        assert_eq!(main.0, "", "{name}");
        check_section(name, &j["functions"], &j["other"], &main.1, &main.2);
        let jr = j["regions"].as_array().unwrap();
        assert_eq!(jr.len(), regions.len(), "{name}");
        for (r, (section, excl, incl)) in jr.iter().zip(regions) {
            assert_eq!(r["name"], section.as_str());
            check_section(
                &format!("{name} {section}"),
                &r["functions"],
                &r["other"],
                excl,
                incl,
            );
        }
        let jm = j["memory"].as_array().unwrap();
        assert_eq!(jm.len(), t.memory.len(), "{name}");
        for (m, (arena, rows)) in jm.iter().zip(&t.memory) {
            assert_eq!(m["arena"], arena.as_str(), "{name}");
            let jrows = m["rows"].as_array().unwrap();
            assert_eq!(jrows.len(), rows.len(), "{name} {arena}");
            for (r, p) in jrows.iter().zip(rows) {
                assert_eq!(r["name"], p.name.as_str());
                assert_eq!(r["nalloc"].as_u64(), Some(p.nalloc));
                assert_eq!(r["nfree"].as_u64(), Some(p.nfree));
                let keys = [
                    "avg_mem_min",
                    "avg_mem_avg",
                    "avg_mem_max",
                    "max_mem_min",
                    "max_mem_avg",
                    "max_mem_max",
                ];
                for (k, key) in keys.iter().enumerate() {
                    // One-rank tables print AvgMem and MaxMem once: min = avg = max.
                    let (v, u) = p.sizes[if p.sizes.len() == 2 { k / 3 } else { k }];
                    let b = r[key].as_u64().unwrap();
                    assert!(
                        v * u <= b && b < (v + 1) * u,
                        "{name} {arena} {} {key}: {b} not in the unit interval of {v}×{u}",
                        p.name
                    );
                }
            }
        }
    }
}

#[test]
fn ranks_runs_and_sections_in_info() {
    let j = json(&[
        "info",
        s(&log("asyncout_24.10_np4.txt")),
        "--format",
        "json",
    ]);
    let run = &j["runs"][0];
    assert_eq!(j["kind"], "tinyprofiler");
    assert_eq!(run["nprocs"], 4);
    assert_eq!(run["amrex_version"], "24.10");
    assert_eq!(run["regions"].as_array().unwrap().len(), 3);
    assert_eq!(run["memory"], serde_json::json!(["Pinned", "Cpu"]));
    let text = run_ok(&["info", s(&log("singlevortex_24.10_np2_nomemprof.txt"))]);
    assert!(text.contains("memory          none"), "{text}");
}

#[test]
fn several_runs_in_one_log_and_any_extension() {
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("job.log");
    let mut bytes = fs::read(log("singlevortex_24.10_np1.txt")).unwrap();
    bytes.extend(fs::read(log("asyncout_24.10_np2.txt")).unwrap());
    fs::write(&both, bytes).unwrap();
    let j = json(&["info", s(&both), "--format", "json"]);
    assert_eq!(j["runs"].as_array().unwrap().len(), 2);
    let last = json(&["summary", s(&both), "--format", "json"]);
    assert_eq!(
        (last["run"].as_u64(), last["nprocs"].as_u64()),
        (Some(2), Some(2))
    );
    let first = json(&["summary", s(&both), "--run", "1", "--format", "json"]);
    assert_eq!(first["nprocs"], 1);
    assert_eq!(first["total_time"]["max"], 12.95);
    let out = output(&["summary", s(&both), "--run", "3"]);
    assert_eq!(out.status.code(), Some(2));
    // One log of several runs is a scaling study by itself.
    let c = json(&["compare", s(&both), "--format", "json"]);
    assert_eq!(c["runs"].as_array().unwrap().len(), 2);
}

#[test]
fn a_log_without_a_report_is_an_error() {
    for name in [
        "singlevortex_24.10_np2_disabled.txt",
        "singlevortex_24.10_np2_outputfile.txt",
    ] {
        let out = output(&["summary", s(&log(name))]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("no TinyProfiler report"), "{err}");
        assert!(err.contains("tiny_profiler.enabled=0"), "{err}");
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn summary_memory_and_csv() {
    let path = log("singlevortex_24.10_np2.txt");
    let text = run_ok(&["summary", s(&path), "--memory", "--width", "0"]);
    assert!(text.contains("Cpu memory"), "{text}");
    assert!(
        text.contains("Amr::timeStep()                   143185  143185      12 MiB"),
        "{text}"
    );
    let top = run_ok(&["summary", s(&path), "--top", "3"]);
    assert_eq!(
        top.lines().filter(|l| l.ends_with('%')).count(),
        3 + 1 + 1,
        "{top}"
    );
    for (flag, bad) in [("--sort", "avg"), ("--proc", "1")] {
        let out = output(&["summary", s(&path), flag, bad]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
    }
    let out = output(&["summary", s(&db("small4")), "--memory"]);
    assert_eq!(out.status.code(), Some(2));
    let csv = run_ok(&["summary", s(&path), "--format", "csv"]);
    assert!(
        csv.starts_with("region,name,other,ncalls,min,avg,max,"),
        "{csv}"
    );
    assert!(csv.contains("\n,Other,true,3655,"), "{csv}");
    golden(
        "tinyprofiler/ours/asyncout_np2.summary.txt",
        &run_in_fixtures(&["summary", "tinyprofiler/asyncout_24.10_np2.txt"]),
    );
}

/// The inclusive average of `name` as printed in the main inclusive table.
fn printed_inclusive_avg(path: &PathBuf, name: &str) -> f64 {
    let t = printed(path);
    t.timers[0].2.iter().find(|r| r.name == name).unwrap().nums[1]
}

#[test]
fn compare_efficiencies_are_those_computed_by_hand() {
    for (app, names) in [
        (
            "singlevortex",
            [
                "Amr::coarseTimeStep()",
                "FabArray::ParallelCopy()",
                "Amr::regrid()",
            ],
        ),
        (
            "asyncout",
            ["main", "MultiFab::min()", "VisMF::Write(FabArray)"],
        ),
    ] {
        let paths: Vec<PathBuf> = [1u32, 2, 4]
            .iter()
            .map(|n| log(&format!("{app}_24.10_np{n}.txt")))
            .collect();
        let args: Vec<&str> = paths.iter().map(|p| s(p)).collect();
        let j = json(
            &[
                &["compare", "--format", "json", "--min-percent", "0"][..],
                &args,
            ]
            .concat(),
        );
        let runs: Vec<u64> = j["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["nprocs"].as_u64().unwrap())
            .collect();
        assert_eq!(runs, [1, 2, 4]);
        let weak = json(&[&["compare", "--format", "json", "--weak"][..], &args].concat());
        for name in names {
            let t: Vec<f64> = paths
                .iter()
                .map(|p| printed_inclusive_avg(p, name))
                .collect();
            let f = j["functions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["name"] == name)
                .unwrap();
            let w = weak["functions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["name"] == name)
                .unwrap();
            for (i, n) in [1.0, 2.0, 4.0].iter().enumerate() {
                let by_hand = t[0] * 1.0 / (t[i] * n);
                let got = f["efficiency"][i].as_f64().unwrap();
                assert!(
                    (got - by_hand).abs() <= 1e-12 * by_hand,
                    "{app} {name} run {i}: {got} vs {by_hand}"
                );
                assert_eq!(f["times"][i].as_f64().unwrap(), t[i]);
                let speedup = f["speedup"][i].as_f64().unwrap();
                assert!((speedup - t[0] / t[i]).abs() <= 1e-12 * speedup);
                let weak_eff = w["efficiency"][i].as_f64().unwrap();
                assert!((weak_eff - t[0] / t[i]).abs() <= 1e-12 * weak_eff);
            }
            assert_eq!(f["efficiency"][0], 1.0);
        }
        // Functions that matter come by worst efficiency.
        let worst: Vec<f64> = j["functions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                f["matters"] == true
                    && f["efficiency"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|e| e.is_f64())
            })
            .map(|f| {
                f["efficiency"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e.as_f64().unwrap())
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        assert!(worst.windows(2).all(|w| w[0] <= w[1]), "{app}: {worst:?}");
    }
    let paths: Vec<PathBuf> = [1u32, 2, 4]
        .iter()
        .map(|n| log(&format!("singlevortex_24.10_np{n}.txt")))
        .collect();
    let args: Vec<&str> = paths.iter().map(|p| s(p)).collect();
    let rel: Vec<String> = [1u32, 2, 4]
        .iter()
        .map(|n| format!("tinyprofiler/singlevortex_24.10_np{n}.txt"))
        .collect();
    let rel: Vec<&str> = rel.iter().map(String::as_str).collect();
    golden(
        "tinyprofiler/ours/singlevortex_np124.compare.txt",
        &run_in_fixtures(&[&["compare", "--top", "10"][..], &rel].concat()),
    );
    let csv = run_ok(&[&["compare", "--format", "csv"][..], &args].concat());
    assert!(
        csv.starts_with("name,matters,time_1,time_2,time_3,speedup_1"),
        "{csv}"
    );
}

#[test]
fn compare_needs_the_ranks_for_strong_scaling() {
    let a = log("singlevortex_24.10_np2_outputfile.report.txt");
    let b = log("singlevortex_24.10_np2.txt");
    let out = output(&["compare", s(&a), s(&b)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --ranks"));
    let j = json(&[
        "compare",
        s(&a),
        s(&b),
        "--ranks",
        "2,2",
        "--format",
        "json",
    ]);
    assert_eq!(j["runs"][0]["nprocs"], 2);
    json(&["compare", s(&a), s(&b), "--weak", "--format", "json"]);
    let out = output(&["compare", s(&b)]);
    assert_eq!(out.status.code(), Some(2));
    let out = output(&["compare", s(&b), s(&db("small4"))]);
    assert_eq!(out.status.code(), Some(2));
    // 0 ranks is no run: an error, like unknown ranks (it was 0 % efficiency).
    for ranks in ["0,2", "2,0"] {
        let out = output(&["compare", s(&a), s(&b), "--ranks", ranks]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{ranks}: {err}");
        assert!(err.contains("at least one rank"), "{err}");
    }
}

#[test]
fn diff_of_two_logs_compares_their_timers() {
    let a = log("singlevortex_24.10_np1.txt");
    let b = log("singlevortex_24.10_np2.txt");
    let j = json(&["diff", s(&a), s(&b), "--format", "json"]);
    assert_eq!(j["kind"], "tinyprofiler");
    assert_eq!(j["b"]["nprocs"], 2);
    let rows = j["functions"]["rows"].as_array().unwrap();
    let step = rows
        .iter()
        .find(|r| r["name"] == "Amr::coarseTimeStep()")
        .unwrap();
    assert_eq!(
        (step["a"].as_f64(), step["b"].as_f64()),
        (Some(12.76), Some(19.48))
    );
    let text = run_ok(&["diff", s(&a), s(&b)]);
    assert!(
        text.contains("Timers (TinyProfiler: average inclusive seconds over ranks)"),
        "{text}"
    );
}

#[test]
fn compare_takes_bl_prof_databases_with_exclusive_times() {
    let (a, b) = (db("single"), db("small4"));
    let out = output(&["compare", s(&a), s(&b)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metric exclusive"));
    let j = json(&[
        "compare",
        s(&a),
        s(&b),
        "--metric",
        "exclusive",
        "--format",
        "json",
    ]);
    assert_eq!(j["runs"][1]["kind"], "blprof");
    assert_eq!(j["runs"][1]["nprocs"], 4);
    let sa = json(&["summary", s(&a), "--format", "json"]);
    let sb = json(&["summary", s(&b), "--format", "json"]);
    let avg = |sum: &Value, name: &str| -> Option<f64> {
        let f = sum["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)?;
        f["avg"].as_f64()
    };
    let mut checked = 0;
    for f in j["functions"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        let (Some(ta), Some(tb)) = (avg(&sa, name), avg(&sb, name)) else {
            continue;
        };
        checked += 1;
        assert_eq!(f["times"][0].as_f64(), Some(ta));
        if tb > 0.0 {
            let e = f["efficiency"][1].as_f64().unwrap();
            let by_hand = ta / (tb * 4.0);
            assert!(
                (e - by_hand).abs() <= 1e-12 * by_hand.abs().max(1e-300),
                "{name}"
            );
        }
    }
    assert!(checked > 5, "{checked}");
}

#[test]
fn compare_draws_time_against_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("scaling.svg");
    let paths: Vec<PathBuf> = [1u32, 2, 4]
        .iter()
        .map(|n| log(&format!("asyncout_24.10_np{n}.txt")))
        .collect();
    let args: Vec<&str> = paths.iter().map(|p| s(p)).collect();
    run_ok(&[&["compare", "--svg", s(&svg)][..], &args].concat());
    let text = fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    // The total, at most 8 timers, and the dashed ideal.
    let lines = text.matches("<polyline").count();
    assert!((2..=10).contains(&lines), "{lines}");
    assert!(text.contains("stroke-dasharray"));
    assert!(text.contains(">total</text>"));
}

#[test]
fn report_writes_one_page_of_the_last_report() {
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(log("asyncout_24.10_np2.txt"))
        .unwrap()
        .replace("amrex::Copy()", "PC<NSR, NSI>::Copy()");
    let job = dir.path().join("job.out");
    fs::write(&job, text).unwrap();
    let page = dir.path().join("page.html");
    run_ok(&["report", s(&job), "-o", s(&page)]);
    let html = fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert!(html.contains("PC&lt;NSR, NSI&gt;::Copy()"));
    assert!(!html.contains("PC<NSR"));
    assert_eq!(html.matches("<table class=\"sortable\"").count(), 1 + 3 + 2);
    assert!(html.contains("Other (folded timers)"));
    let out = output(&["report", s(&job), "--proc", "1", "-o", s(&page)]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn calltree_shows_a_flat_profile_with_regions_as_roots() {
    let path = log("asyncout_24.10_np2.txt");
    let h = json(&["calltree", s(&path), "--format", "hatchet"]);
    let roots = h.as_array().unwrap();
    let root = |name: &str| roots.iter().find(|r| r["frame"]["name"] == name).unwrap();
    // Averages over ranks as printed; calls summed over the 2 ranks.
    let main = &root("main")["metrics"];
    assert_eq!(
        main["time (inc)"].as_f64(),
        Some(printed_inclusive_avg(&path, "main"))
    );
    assert_eq!(main["calls"], 2);
    let region = root("REGION vismf-orig");
    let kids: Vec<&str> = region["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["frame"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(kids.len(), 4, "{kids:?}");
    assert!(kids.contains(&"VisMF::Write(FabArray)"));
    assert!(roots.iter().all(|r| r["frame"]["name"] != "Other"));
    // `--aggregate max` shows the largest rank's time, as the report prints it.
    let h = json(&[
        "calltree",
        s(&path),
        "--format",
        "hatchet",
        "--aggregate",
        "max",
    ]);
    let main_max = h
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["frame"]["name"] == "main")
        .unwrap();
    let t = printed(&path);
    let printed_max = t.timers[0]
        .2
        .iter()
        .find(|r| r.name == "main")
        .unwrap()
        .nums[2];
    assert_eq!(
        main_max["metrics"]["time (inc)"].as_f64(),
        Some(printed_max)
    );
    assert!(printed_max > printed_inclusive_avg(&path, "main"));
    let text = run_ok(&["calltree", s(&path)]);
    assert!(text.contains("a flat profile"), "{text}");
    json(&["calltree", s(&path), "--format", "json"]);
    for bad in [&["--format", "folded"][..], &["--proc", "0"][..]] {
        let out = output(&[&["calltree", s(&path)][..], bad].concat());
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn compare_takes_timer_trees_with_their_ranks_given() {
    let t = timer_tree("measured_example.json");
    let out = output(&["compare", s(&t), s(&t)]);
    assert_eq!(out.status.code(), Some(2));
    let j = json(&[
        "compare",
        s(&t),
        s(&t),
        "--ranks",
        "1,2",
        "--format",
        "json",
    ]);
    assert_eq!(j["runs"][0]["kind"], "timer-tree");
    let fs = j["functions"].as_array().unwrap();
    assert!(!fs.is_empty());
    for f in fs {
        if f["times"][0].as_f64().unwrap() > 0.0 {
            assert_eq!(f["efficiency"][1].as_f64(), Some(0.5), "{f}");
            assert_eq!(f["speedup"][1].as_f64(), Some(1.0), "{f}");
        }
    }
}

/// Content no TinyProfiler writes, one class at a time, patched into a copy
/// of a real log: an error naming the file and the damaged line (exit 1),
/// never a report that computes with it or silently loses sections.
#[test]
fn impossible_content_is_an_error_at_its_line() {
    let real = fs::read_to_string(log("asyncout_24.10_np2.txt")).unwrap();
    let row = "VisMF::Write(FabArray)                           4   0.005914    0.01027    0.01462  32.49%";
    let total = "[min...avg...max]: 0.0449 ... 0.04495 ... 0.04501";
    let mem = "main                                16     16    9173   B      10 KiB      12 KiB    2048 KiB    2048 KiB    2048 KiB";
    // (what, text replaced, its replacement, the line named, words of the message)
    let cases: [(&str, &str, String, usize, &str); 11] = [
        (
            "negative time",
            row,
            row.replace("0.005914", "-0.005914"),
            22,
            "not a time",
        ),
        (
            "NaN time",
            row,
            row.replace("0.01027", "nan"),
            22,
            "not a time",
        ),
        (
            "infinite time",
            row,
            row.replace("0.01462", "inf"),
            22,
            "not a time",
        ),
        (
            "min over max",
            row,
            row.replace("0.005914", "0.025914"),
            22,
            "outside min..max",
        ),
        (
            "avg over max",
            row,
            row.replace("0.01027 ", "0.02027 "),
            22,
            "outside min..max",
        ),
        (
            "share over 100 %",
            row,
            row.replace("32.49%", "132.49%"),
            22,
            "0..100",
        ),
        (
            "negative share",
            row,
            row.replace("32.49%", "-2.49%"),
            22,
            "0..100",
        ),
        (
            "negative total",
            total,
            total.replace("0.0449 ", "-0.0449 "),
            17,
            "total time",
        ),
        (
            "0 ranks",
            "MPI initialized with 2 MPI processes",
            "MPI initialized with 0 MPI processes".to_owned(),
            2,
            "0 MPI processes",
        ),
        (
            "END REGION without BEGIN",
            "BEGIN REGION vismf-orig\n",
            "\n".to_owned(),
            // Its tables are the first lines only a report prints.
            89,
            "without its start",
        ),
        (
            "memory min over max",
            mem,
            mem.replace("9173   B", "9173 KiB"),
            141,
            "outside min..max",
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (what, from, to, line, words) in cases {
        // The first occurrence is patched (the exclusive table's row).
        assert!(real.contains(from), "{what}");
        let path = tmp.path().join(format!("{}.out", what.replace(' ', "_")));
        fs::write(&path, real.replacen(from, &to, 1)).unwrap();
        for args in [vec!["summary", s(&path)], vec!["info", s(&path)]] {
            let out = output(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{what}: {err}");
            assert!(
                err.contains(&format!("{}:{line}", path.display()))
                    || err.contains(&format!("line {line}")),
                "{what}: line {line}: {err}"
            );
            assert!(err.contains(words), "{what}: {err}");
        }
    }
    // A second section of a region or an arena in one report.
    let region = real.find("BEGIN REGION vismf-orig").unwrap();
    let end = real.find("END REGION vismf-orig").unwrap() + "END REGION vismf-orig\n".len();
    let twice = format!("{}{}{}", &real[..end], &real[region..end], &real[end..]);
    let path = tmp.path().join("region_twice.out");
    fs::write(&path, twice).unwrap();
    let out = output(&["summary", s(&path)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("a second section of region vismf-orig"),
        "{err}"
    );
    let cpu = real.find("Cpu Memory Usage:").unwrap();
    let fin = real.find("AMReX (24.10) finalized").unwrap();
    let twice = format!("{}{}{}", &real[..fin], &real[cpu..fin], &real[fin..]);
    let path = tmp.path().join("arena_twice.out");
    fs::write(&path, twice).unwrap();
    let out = output(&["summary", s(&path)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("a second Cpu memory section"), "{err}");
}

/// `summary LOG --memory` (and `--run`) on a missing file names the file,
/// exit 2 like any missing input, instead of blaming the flag.
#[test]
fn memory_of_a_missing_file_names_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no_such_job.out");
    for flag in [&["--memory"][..], &["--run", "1"]] {
        let mut args = vec!["summary", s(&missing)];
        args.extend(flag);
        let out = output(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("no_such_job.out"), "{err}");
        assert!(!err.contains("apply to TinyProfiler logs"), "{err}");
    }
}
