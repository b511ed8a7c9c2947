//! Region filters on the comm reports (`--include-region`, `--exclude-region`,
//! `--filter-file`): what each report keeps is checked against the
//! unfiltered outputs filtered here by the ranges `regions --proc P` lists,
//! so a filter ignored or applied to the wrong records or clock fails.

use std::collections::BTreeMap;
use std::fs;

use serde_json::{Value, json as js};

use crate::common::{copy_db, fixture, json, output, run_ok};

/// The fixture used: the stock application, eight processes with call
/// traces and comm data; its regions split the messages (in the synthetic
/// fixtures every send lies in `R::Comm`).
const DB: &str = "amrlevel8";
const NPROCS: u64 = 8;
/// Regions holding some of the sends and waits (`STEP`), some sends
/// (`INIT`), some barriers (`PLOT`: the fixture has no all-reductions).
const STEP: &str = "timeStep STEP 3";
const INIT: &str = "Amr::init()";
const PLOT: &str = "Amr::writePlotFile()";

fn db_of(name: &str) -> String {
    fixture(name).join("bl_prof").to_str().unwrap().to_owned()
}

fn db() -> String {
    db_of(DB)
}

/// `comm SUB DB ARGS… --format json`.
fn comm(sub: &str, args: &[&str]) -> Value {
    comm_on(DB, sub, args)
}

/// `comm SUB FIXTURE ARGS… --format json`.
fn comm_on(name: &str, sub: &str, args: &[&str]) -> Value {
    let d = db_of(name);
    let mut all = vec!["-q", "comm", sub, d.as_str(), "--format", "json"];
    all.extend_from_slice(args);
    json(&all)
}

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Per process, the ranges of `region` (`regions --proc P`), on its own clock.
struct Ranges(BTreeMap<u64, Vec<(f64, f64)>>);

impl Ranges {
    fn of(region: &str) -> Ranges {
        Ranges::on(DB, NPROCS, region)
    }

    /// The ranges of `region` on the `nprocs` processes of fixture `name`.
    fn on(name: &str, nprocs: u64, region: &str) -> Ranges {
        let d = db_of(name);
        let mut m = BTreeMap::new();
        for p in 0..nprocs {
            let ps = p.to_string();
            let r = json(&["regions", &d, "--proc", &ps, "--format", "json"]);
            let list: Vec<(f64, f64)> = arr(&r["ranges"])
                .iter()
                .filter(|x| x["region"] == region)
                .map(|x| (f(&x["start"]), f(&x["stop"])))
                .collect();
            assert!(!list.is_empty(), "{region} on process {p}");
            m.insert(p, list);
        }
        Ranges(m)
    }

    /// Whether time `t` of process `p` lies in one of its ranges (ends in).
    fn holds(&self, p: u64, t: f64) -> bool {
        self.0
            .get(&p)
            .is_some_and(|v| v.iter().any(|&(a, z)| a <= t && t <= z))
    }
}

/// The unfiltered sends (paired or not): (process, time, bytes).
fn all_sends() -> Vec<(u64, f64, u64)> {
    let p = comm("pairs", &[]);
    let paired = arr(&p["pairs"]).iter().map(|x| {
        (
            u(&x["from"]),
            f(&x["send_time"]),
            x["size"].as_i64().unwrap(),
        )
    });
    let unmatched = arr(&p["unmatched_sends"])
        .iter()
        .map(|x| (u(&x["proc"]), f(&x["time"]), x["size"].as_i64().unwrap()));
    paired
        .chain(unmatched)
        .map(|(p, t, s)| (p, t, s.max(0) as u64))
        .collect()
}

/// Per process: (sends, bytes sent) of `comm stats ARGS`.
fn stats_sends(args: &[&str]) -> BTreeMap<u64, (u64, u64)> {
    arr(&comm("stats", args)["procs"])
        .iter()
        .map(|p| (u(&p["proc"]), (u(&p["sends"]), u(&p["bytes_sent"]))))
        .collect()
}

/// `comm stats --include-region R` counts the sends (and their bytes) that
/// the unfiltered pairing lists at times inside R's ranges of the sender.
#[test]
fn stats_count_the_sends_inside_the_region_of_their_process() {
    let sends = all_sends();
    // The pairing lists every send that `comm stats` counts.
    let total: u64 = stats_sends(&[]).values().map(|x| x.0).sum();
    assert_eq!(sends.len() as u64, total);
    for region in [STEP, INIT] {
        let r = Ranges::of(region);
        let mut want: BTreeMap<u64, (u64, u64)> = (0..NPROCS).map(|p| (p, (0, 0))).collect();
        for &(p, _, b) in sends.iter().filter(|s| r.holds(s.0, s.1)) {
            let e = want.get_mut(&p).unwrap();
            e.0 += 1;
            e.1 += b;
        }
        let kept: u64 = want.values().map(|x| x.0).sum();
        assert!(kept > 0 && kept < total, "{region}: {kept} of {total}");
        assert_eq!(stats_sends(&["--include-region", region]), want, "{region}");
    }
}

/// `--include-region R` and `--exclude-region R` (inside all regions)
/// split every count of `comm stats`, `matrix`, `pairs`, `barriers` and
/// `waits` (no record lies exactly on a region's end in this fixture).
#[test]
fn include_and_exclude_of_a_region_split_the_counts() {
    let every = ["--include-region", "*"];
    let rest = ["--include-region", "*", "--exclude-region", STEP];
    let only = ["--include-region", STEP];
    // Records, bytes, and calls per type (a type may be missing from one).
    let stats = |a: &[&str]| -> BTreeMap<String, u64> {
        let s = comm("stats", a);
        let mut m: BTreeMap<String, u64> = arr(&s["by_type"])
            .iter()
            .map(|t| (t["type"].as_str().unwrap().to_owned(), u(&t["calls"])))
            .collect();
        m.insert("(records)".into(), u(&s["nrecords"]));
        m.insert("(bytes)".into(), u(&s["bytes_sent"]));
        m
    };
    let (all, a, b) = (stats(&every), stats(&only), stats(&rest));
    for (k, n) in &all {
        let x = a.get(k).copied().unwrap_or(0);
        let y = b.get(k).copied().unwrap_or(0);
        assert_eq!(x + y, *n, "{k}");
    }
    assert!(a["(records)"] > 0 && b["(records)"] > 0);
    let messages = |a: &[&str]| -> u64 {
        arr(&comm("matrix", a)["routes"])
            .iter()
            .map(|r| u(&r["messages"]))
            .sum()
    };
    assert_eq!(messages(&only) + messages(&rest), messages(&every));
    let paired = |a: &[&str]| u(&comm("pairs", a)["paired"]);
    assert_eq!(paired(&only) + paired(&rest), paired(&every));
    let arrivals = |a: &[&str]| -> u64 {
        let mut all = a.to_vec();
        all.push("--reductions");
        let b = comm("barriers", &all);
        ["procs", "reduction_procs"]
            .iter()
            .flat_map(|k| arr(&b[*k]).iter().map(|p| u(&p["barriers"])))
            .sum()
    };
    assert_eq!(arrivals(&only) + arrivals(&rest), arrivals(&every));
    let waits = |a: &[&str]| -> u64 {
        arr(&comm("waits", a)["types"])
            .iter()
            .map(|t| u(&t["waits"]))
            .sum()
    };
    assert_eq!(waits(&only) + waits(&rest), waits(&every));
}

/// Under a filter the pairs are the unfiltered pairs whose send lies in
/// the sender's ranges, with the same receive and times (the pairing does
/// not change); the unmatched ends are those whose own record lies in
/// their process's ranges; the routes sum the pairs reported.
#[test]
fn pairs_are_the_unfiltered_pairs_sent_inside_the_region() {
    let all = comm("pairs", &[]);
    for region in [STEP, INIT] {
        let r = Ranges::of(region);
        let got = comm("pairs", &["--include-region", region]);
        let want: Vec<&Value> = arr(&all["pairs"])
            .iter()
            .filter(|x| r.holds(u(&x["from"]), f(&x["send_time"])))
            .collect();
        let pairs: Vec<&Value> = arr(&got["pairs"]).iter().collect();
        assert_eq!(pairs, want, "{region}");
        assert_eq!(u(&got["paired"]), want.len() as u64, "{region}");
        assert!(want.len() < arr(&all["pairs"]).len());
        for key in ["unmatched_sends", "unmatched_recvs"] {
            let want: Vec<&Value> = arr(&all[key])
                .iter()
                .filter(|x| r.holds(u(&x["proc"]), f(&x["time"])))
                .collect();
            let got: Vec<&Value> = arr(&got[key]).iter().collect();
            assert_eq!(got, want, "{region} {key}");
        }
        let mut routes: BTreeMap<(u64, u64), u64> = BTreeMap::new();
        for p in &want {
            *routes.entry((u(&p["from"]), u(&p["to"]))).or_default() += 1;
        }
        let listed: BTreeMap<(u64, u64), u64> = arr(&got["routes"])
            .iter()
            .map(|x| ((u(&x["from"]), u(&x["to"])), u(&x["messages"])))
            .collect();
        assert_eq!(listed, routes, "{region}");
        assert_eq!(
            got["region_filter"],
            js!({"include_all": false, "include": [region], "exclude": []})
        );
    }
}

/// The matrix counts the sends inside the sender's ranges, per route.
#[test]
fn matrix_counts_the_sends_inside_the_region() {
    let r = Ranges::of(STEP);
    let p = comm("pairs", &[]);
    let mut want: BTreeMap<(u64, u64), u64> = BTreeMap::new();
    for x in arr(&p["pairs"]) {
        if r.holds(u(&x["from"]), f(&x["send_time"])) {
            *want.entry((u(&x["from"]), u(&x["to"]))).or_default() += 1;
        }
    }
    for x in arr(&p["unmatched_sends"]) {
        if let Some(to) = x["peer"].as_u64().filter(|&q| q < NPROCS)
            && r.holds(u(&x["proc"]), f(&x["time"]))
        {
            *want.entry((u(&x["proc"]), to)).or_default() += 1;
        }
    }
    let m = comm("matrix", &["--include-region", STEP]);
    let got: BTreeMap<(u64, u64), u64> = arr(&m["routes"])
        .iter()
        .map(|x| ((u(&x["from"]), u(&x["to"])), u(&x["messages"])))
        .collect();
    assert_eq!(got, want);
}

/// Barriers: each process's arrivals kept are its unfiltered arrivals
/// inside its ranges. Waits: the waits kept are the unfiltered waits whose
/// waiting call was entered inside the waiting process's ranges.
#[test]
fn barriers_and_waits_keep_what_was_entered_inside() {
    let r = Ranges::of(PLOT);
    let arrivals = |v: &Value| {
        let mut a = arrivals(v, "barriers");
        a.extend(arrivals(v, "reductions"));
        a
    };
    let all = arrivals(&comm("barriers", &["--reductions"]));
    let got = arrivals(&comm(
        "barriers",
        &["--reductions", "--include-region", PLOT],
    ));
    let want: Vec<_> = all
        .iter()
        .copied()
        .filter(|&(p, _, t)| r.holds(p, f64::from_bits(t)))
        .collect();
    let mut g = got.clone();
    g.sort_by_key(|x| (x.1, x.0));
    let mut w = want.clone();
    w.sort_by_key(|x| (x.1, x.0));
    assert_eq!(g, w);
    assert!(!want.is_empty() && want.len() < all.len());

    let r = Ranges::of(STEP);
    let top = ["--top", "1000000"];
    let all = comm("waits", &top);
    let got = comm("waits", &["--top", "1000000", "--include-region", STEP]);
    let want: Vec<&Value> = arr(&all["top"])
        .iter()
        .filter(|x| r.holds(u(&x["proc"]), f(&x["entry"])))
        .collect();
    let kept: Vec<&Value> = arr(&got["top"]).iter().collect();
    assert_eq!(kept, want);
    assert!(!want.is_empty() && want.len() < arr(&all["top"]).len());
}

/// (process, number, arrival bits) of every synchronisation listed under
/// `key` (`barriers` or `reductions`) of a `comm barriers` JSON.
fn arrivals(v: &Value, key: &str) -> Vec<(u64, i64, u64)> {
    arr(&v[key])
        .iter()
        .flat_map(|b| {
            arr(&b["procs"]).iter().map(|p| {
                (
                    u(&p["proc"]),
                    b["number"].as_i64().unwrap(),
                    f(&p["arrival"]).to_bits(),
                )
            })
        })
        .collect()
}

/// All-reductions count by their entry too. `small4` has them (the stock
/// fixture has none), all inside `RV::Reduce` and none inside `R::Comm`.
#[test]
fn reductions_count_by_their_entry() {
    let all = comm_on("small4", "barriers", &["--reductions"]);
    let all = arrivals(&all, "reductions");
    assert!(!all.is_empty());
    for (region, some) in [("RV::Reduce", true), ("R::Comm", false)] {
        let r = Ranges::on("small4", 4, region);
        let got = comm_on(
            "small4",
            "barriers",
            &["--reductions", "--include-region", region],
        );
        let mut got = arrivals(&got, "reductions");
        let mut want: Vec<_> = all
            .iter()
            .copied()
            .filter(|&(p, _, t)| r.holds(p, f64::from_bits(t)))
            .collect();
        got.sort_by_key(|x| (x.1, x.0));
        want.sort_by_key(|x| (x.1, x.0));
        assert_eq!(got, want, "{region}");
        assert_eq!(!want.is_empty(), some, "{region}");
    }
}

/// The timeline draws the calls entered inside: as many per process as
/// `comm stats` counts under the same filter.
#[test]
fn timeline_draws_the_calls_inside() {
    let tmp = tempfile::tempdir().unwrap();
    let d = db();
    let drawn = |extra: &[&str]| -> BTreeMap<u64, u64> {
        let path = tmp.path().join("t.json");
        let mut args = vec!["-q", "comm", "timeline", d.as_str(), "--chrome"];
        args.push(path.to_str().unwrap());
        args.extend_from_slice(extra);
        run_ok(&args);
        let t: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let events = t
            .as_array()
            .or_else(|| t["traceEvents"].as_array())
            .unwrap();
        let mut n: BTreeMap<u64, u64> = (0..NPROCS).map(|p| (p, 0)).collect();
        for e in events.iter().filter(|e| e["cat"] == "comm") {
            *n.entry(u(&e["pid"])).or_default() += 1;
        }
        n
    };
    let calls = |extra: &[&str]| -> BTreeMap<u64, u64> {
        arr(&comm("stats", extra)["procs"])
            .iter()
            .map(|p| (u(&p["proc"]), u(&p["calls"])))
            .collect()
    };
    let filter = ["--include-region", STEP];
    let (all, some) = (drawn(&[]), drawn(&filter));
    assert_eq!(all, calls(&[]));
    assert_eq!(some, calls(&filter));
    assert!(some.values().sum::<u64>() < all.values().sum::<u64>());
    // The SVG draws fewer calls too.
    let svg = |extra: &[&str]| -> String {
        let path = tmp.path().join("t.svg");
        let mut args = vec!["-q", "comm", "timeline", d.as_str(), "--svg"];
        args.push(path.to_str().unwrap());
        args.extend_from_slice(extra);
        run_ok(&args);
        fs::read_to_string(&path).unwrap()
    };
    let (whole, cut) = (svg(&[]), svg(&filter));
    assert!(cut.starts_with("<svg") && cut.len() < whole.len());
}

/// A RegionFilters file works as on the trace commands, and the JSON says
/// which filter was applied (by number, as the file names regions).
#[test]
fn a_filter_file_selects_as_the_names_do() {
    let file = fixture("filters").join("exclude_RComm.txt");
    let by_file = comm_on(
        "small4",
        "stats",
        &["--filter-file", file.to_str().unwrap()],
    );
    let by_name = comm_on("small4", "stats", &["--exclude-region", "R::Comm"]);
    let all = comm_on("small4", "stats", &[]);
    assert_eq!(by_file["procs"], by_name["procs"]);
    assert!(u(&by_file["nrecords"]) < u(&all["nrecords"]));
    assert_eq!(
        by_file["region_filter"],
        js!({"include_all": true, "include": [], "exclude": ["4"]})
    );
    let named = js!({"include_all": true, "include": [], "exclude": ["R::Comm"]});
    assert_eq!(by_name["region_filter"], named);
    let time = comm_on("small4", "time", &["--exclude-region", "R::Comm"]);
    assert_eq!(time["region_filter"], named);
    // The tables say it in a line of their own.
    let d = db_of("small4");
    for sub in ["stats", "matrix", "pairs", "barriers", "waits", "time"] {
        let text = run_ok(&["-q", "comm", sub, &d, "--exclude-region", "R::Comm"]);
        assert!(
            text.contains("Region filter: only records outside R::Comm"),
            "{sub}: {text}"
        );
        let plain = run_ok(&["-q", "comm", sub, &d]);
        assert!(!plain.contains("Region filter"), "{sub}");
    }
}

/// Without region flags no report names a filter; with one but without
/// call traces, every comm command fails as `comm time` does.
#[test]
fn no_filter_no_key_and_no_call_traces_no_filter() {
    for sub in ["stats", "matrix", "pairs", "barriers", "waits", "time"] {
        let v = comm_on("small4", sub, &[]);
        assert!(v.get("region_filter").is_none(), "{sub}");
    }
    let tmp = copy_db("single");
    for e in fs::read_dir(tmp.path()).unwrap() {
        let p = e.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("bl_call_stats")
        {
            fs::remove_file(p).unwrap();
        }
    }
    let d = tmp.path().to_str().unwrap();
    let svg = tmp.path().join("x.svg");
    let run = |sub: &str, extra: &[&str]| {
        let mut args = vec!["comm", sub, d, "--include-region", "R"];
        args.extend_from_slice(extra);
        let o = output(&args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, msg) = run("time", &[]);
    assert_ne!(code, Some(0), "{msg}");
    for sub in ["stats", "matrix", "pairs", "barriers", "waits"] {
        assert_eq!(run(sub, &[]), (code, msg.clone()), "{sub}");
    }
    assert_eq!(
        run("timeline", &["--svg", svg.to_str().unwrap()]),
        (code, msg.clone())
    );
}
