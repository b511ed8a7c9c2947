//! `export --parquet`: the tables read back by real clients (DuckDB's
//! Python package, PySpark) must hold the counts and sums of our own
//! reports. Optional tests: `cargo test -- --include-ignored` runs them
//! (CI does, after installing duckdb, PySpark and Java).
#![cfg(feature = "parquet")]

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{db, json_expect, python, python_has, require};

/// Fails the (optional) test unless `python3 -c "import duckdb"` works.
fn require_duckdb() {
    require(
        python_has("duckdb"),
        "Python's duckdb",
        "pip install duckdb",
    );
}

/// Runs `query` in DuckDB; rows as JSON arrays.
fn duckdb(query: &str) -> Vec<Vec<Value>> {
    let script = "import duckdb, json, sys\n\
                  rows = duckdb.sql(sys.argv[1]).fetchall()\n\
                  print(json.dumps([list(r) for r in rows]))";
    serde_json::from_str(&python(script, &[query.as_ref()])).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

fn tables_hold_what_the_reports_say(fx: &str) {
    require_duckdb();
    let dir = db(fx);
    let d = dir.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tables");
    let status = Command::new(env!("CARGO_BIN_EXE_profparse"))
        .args(["-q", "export", d, "--parquet", out.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success(), "{fx}");
    // One directory per table: a glob over its files reads it.
    let table = |name: &str| {
        out.join(name)
            .join("*.parquet")
            .to_string_lossy()
            .into_owned()
    };

    // Calls per function and their exclusive seconds over processes.
    let ts = json_expect(&["trace-summary", d, "--format", "json"], &[0, 3]);
    let nprocs = ts["nprocs"].as_f64().unwrap();
    let rows = duckdb(&format!(
        "select function, count(*), sum(exclusive) from '{}' group by 1",
        table("calls")
    ));
    let got: BTreeMap<String, (u64, f64)> = rows
        .iter()
        .map(|r| {
            let name = r[0].as_str().unwrap().to_owned();
            (name, (r[1].as_u64().unwrap(), r[2].as_f64().unwrap()))
        })
        .collect();
    let functions = ts["functions"].as_array().unwrap();
    assert!(!functions.is_empty(), "{fx}");
    for f in functions {
        let name = f["name"].as_str().unwrap();
        let calls = f["ncalls_total"].as_u64().unwrap();
        if calls == 0 {
            continue;
        }
        let (n, total) = got[name];
        assert_eq!(n, calls, "{fx}: calls of {name}");
        let ours = f["avg"].as_f64().unwrap() * nprocs;
        assert!(close(total, ours), "{fx}: {name}: {total} vs {ours}");
    }

    // The base profile: per function, the calls of process 0 and the
    // average exclusive seconds over processes, as `summary` prints them.
    let sm = json_expect(&["summary", d, "--format", "json"], &[0, 3]);
    let rows = duckdb(&format!(
        "select function, sum(ncalls) filter (where proc = 0), sum(exclusive) / count(distinct proc) \
         from '{}' group by 1",
        table("functions")
    ));
    let base: BTreeMap<String, (Option<u64>, f64)> = rows
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_owned(),
                (r[1].as_u64(), r[2].as_f64().unwrap()),
            )
        })
        .collect();
    for f in sm["functions"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        let (calls, avg) = base[name];
        assert_eq!(calls, f["ncalls"].as_u64(), "{fx}: {name}");
        assert!(close(avg, f["avg"].as_f64().unwrap()), "{fx}: {name}");
    }

    // Every file says what it holds; every numeric column has min/max
    // statistics (what engines skip row groups by).
    let comm = dir.join("bl_comm_prof_H").exists();
    let mut tables = vec!["functions", "calls", "regions"];
    if comm {
        tables.extend(["comm", "messages"]);
    }
    for t in tables {
        let kv = duckdb(&format!(
            "select decode(key), decode(value) from parquet_kv_metadata('{}')",
            table(t)
        ));
        let kv: BTreeMap<String, String> = kv
            .iter()
            .map(|r| {
                (
                    r[0].as_str().unwrap().to_owned(),
                    r[1].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(kv["profparse.table"], t, "{fx}");
        assert_eq!(kv["profparse.nprocs"], format!("{nprocs}"), "{fx}");
        assert!(kv.contains_key("profparse.version"), "{fx}: {kv:?}");
        let unstated = duckdb(&format!(
            "select path_in_schema from parquet_metadata('{}') \
             where type in ('INT32', 'INT64', 'DOUBLE') and num_values > 0 \
             and (stats_min_value is null or stats_max_value is null)",
            table(t)
        ));
        assert!(unstated.is_empty(), "{fx} {t}: {unstated:?}");
    }

    // Regions: ranges and their total length per region.
    let rg = json_expect(&["regions", d, "--format", "json"], &[0, 3]);
    let rows = duckdb(&format!(
        "select name, count(*), sum(stop - start) from '{}' group by 1",
        table("regions")
    ));
    for r in rg["regions"].as_array().unwrap() {
        let name = r["name"].as_str().unwrap();
        let count = r["count"].as_u64().unwrap();
        let row = rows.iter().find(|x| x[0] == name);
        if count == 0 {
            assert!(row.is_none(), "{fx}: {name}");
            continue;
        }
        let row = row.unwrap_or_else(|| panic!("{fx}: region {name} missing"));
        assert_eq!(row[1].as_u64().unwrap(), count, "{fx}: {name}");
        let total = r["total"].as_f64().unwrap();
        assert!(close(row[2].as_f64().unwrap(), total), "{fx}: {name}");
    }

    // Comm records per type.
    if comm {
        let cs = json_expect(&["comm", "stats", d, "--format", "json"], &[0, 3]);
        let rows = duckdb(&format!(
            "select type_name, count(*) from '{}' group by 1",
            table("comm")
        ));
        let types = cs["by_type"].as_array().unwrap();
        assert_eq!(rows.len(), types.len(), "{fx}");
        for t in types {
            let name = t["type"].as_str().unwrap();
            let row = rows.iter().find(|x| x[0] == name).unwrap();
            assert_eq!(row[1].as_u64(), t["records"].as_u64(), "{fx}: {name}");
        }
        // Matched messages per route, as `comm pairs` pairs them.
        let cp = json_expect(&["comm", "pairs", d, "--format", "json"], &[0, 3]);
        let rows = duckdb(&format!(
            "select sender, receiver, count(*), sum(size), avg(latency), max(latency), \
             count(completed_time), avg(latency_to_completion) from '{}' group by 1, 2 order by 1, 2",
            table("messages")
        ));
        let routes = cp["routes"].as_array().unwrap();
        assert_eq!(rows.len(), routes.len(), "{fx}");
        let total: u64 = rows.iter().map(|r| r[2].as_u64().unwrap()).sum();
        assert_eq!(Some(total), cp["paired"].as_u64(), "{fx}");
        for (r, route) in rows.iter().zip(routes) {
            assert_eq!(r[0], route["from"], "{fx}");
            assert_eq!(r[1], route["to"], "{fx}");
            assert_eq!(r[2], route["messages"], "{fx}");
            assert_eq!(r[3].as_u64(), route["bytes"].as_u64(), "{fx}");
            let same = |a: &Value, b: &Value| match (a.as_f64(), b.as_f64()) {
                (Some(a), Some(b)) => close(a, b),
                _ => a.is_null() && b.is_null(),
            };
            assert!(same(&r[4], &route["latency_mean"]), "{fx}: {r:?} {route}");
            assert!(same(&r[5], &route["latency_max"]), "{fx}: {r:?} {route}");
            assert_eq!(r[6], route["completed"], "{fx}");
            assert!(
                same(&r[7], &route["completion_latency_mean"]),
                "{fx}: {r:?} {route}"
            );
        }
        assert!(total > 0 || fx == "single", "{fx}: no message paired");
    }
}

fixture_tests!(
    #[ignore = "needs Python's duckdb (pip install duckdb)"]
    tables_hold_what_the_reports_say: small4, flush, single, asym4, nfiles2, host_nid, amrlevel8
);

/// Exports `d` into `out`, shard `shard` (`None`: whole).
fn export_parquet(d: &str, out: &std::path::Path, shard: Option<&str>) {
    let mut args = vec!["-q", "export", d, "--parquet", out.to_str().unwrap()];
    if let Some(k) = shard {
        args.extend(["--shard", k]);
    }
    let status = Command::new(env!("CARGO_BIN_EXE_profparse"))
        .args(&args)
        .status()
        .unwrap();
    assert!(status.success(), "{args:?}");
}

/// N jobs converting one shard each make the dataset one job makes: the
/// same rows in every table, in distinct files.
#[test]
#[ignore = "needs Python's duckdb (pip install duckdb)"]
fn shards_together_are_the_whole_dataset() {
    require_duckdb();
    let dir = db("small4");
    let d = dir.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    export_parquet(d, &whole, None);
    let summary = |out: &std::path::Path, (table, key, cols): (&str, &str, &str)| {
        duckdb(&format!(
            "select {key}, count(*), {cols} from '{}' group by 1 order by 1",
            out.join(table).join("*.parquet").display()
        ))
    };
    let tables = [
        (
            "functions",
            "proc",
            "sum(exclusive), sum(ncalls), sum(fnum)",
        ),
        ("calls", "proc", "sum(exclusive), sum(depth), sum(fnum)"),
        ("regions", "proc", "sum(stop - start), sum(region)"),
        ("comm", "proc", "sum(size), sum(time), sum(peer)"),
        (
            "messages",
            "sender",
            "sum(receiver), sum(size), sum(send_time), sum(recv_time), sum(completed_time)",
        ),
    ];
    for n in [1usize, 2, 3] {
        let out = tmp.path().join(format!("sharded{n}"));
        for k in 0..n {
            export_parquet(d, &out, Some(&format!("{k}/{n}")));
        }
        for t @ (table, _, _) in tables {
            let files = std::fs::read_dir(out.join(table)).unwrap().count();
            assert_eq!(files, n, "{table}: one file per shard");
            assert_eq!(summary(&out, t), summary(&whole, t), "{table}, {n} shards");
        }
    }
}

#[test]
fn a_shard_past_the_count_is_a_usage_error() {
    let dir = db("small4");
    let tmp = tempfile::tempdir().unwrap();
    for bad in ["2/2", "0/0", "1", "a/b"] {
        let out = crate::common::output(&[
            "export",
            dir.to_str().unwrap(),
            "--parquet",
            tmp.path().to_str().unwrap(),
            "--shard",
            bad,
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}

/// What Spark computes from each dataset named on the command line (the
/// SQL of docs/SCALING.md): one JSON object of query results per dataset.
const SPARK_QUERIES: &str = r#"
import json, sys
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[2]").appName("profparse-test")
         .config("spark.ui.enabled", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
rows = lambda q: [list(r) for r in spark.sql(q).collect()]
out = []
for root in sys.argv[1:]:
    for t in ["functions", "calls", "regions", "comm", "messages"]:
        spark.read.parquet(f"{root}/{t}").createOrReplaceTempView(t)
    out.append({
        "summary": rows("""select function, sum(case when proc = 0 then ncalls end),
                                  sum(ncalls), sum(exclusive), min(exclusive),
                                  max(exclusive)
                           from functions group by function"""),
        "trace_summary": rows("select function, count(*), sum(exclusive) from calls group by function"),
        "comm_stats": rows("select type_name, count(*) from comm group by type_name"),
        "pairs": rows("""select sender, receiver, count(*), sum(size) from messages
                         group by sender, receiver order by sender, receiver"""),
    })
print("RESULT " + json.dumps(out))
spark.stop()
"#;

/// Fails the (optional) test unless `java -version` works (PySpark starts
/// a JVM).
fn require_java() {
    let java = Command::new("java")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    require(java, "Java", "apt-get install default-jre-headless");
}

/// Spark reads the dataset of one export and the dataset three `--shard
/// K/3` jobs wrote together (each table's directory alone), and the SQL of
/// docs/SCALING.md reproduces summary (per-function sums, minima and
/// maxima over processes), trace-summary, comm stats and comm pairs from
/// each.
#[test]
#[ignore = "needs PySpark (pip install pyspark) and Java (apt-get install default-jre-headless)"]
fn spark_reproduces_the_reports_from_the_dataset() {
    require_java();
    require(python_has("pyspark"), "PySpark", "pip install pyspark");
    let dir = db("small4");
    let d = dir.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    export_parquet(d, &whole, None);
    let sharded = tmp.path().join("sharded");
    for k in 0..3 {
        export_parquet(d, &sharded, Some(&format!("{k}/3")));
    }
    let files = std::fs::read_dir(sharded.join("functions"))
        .unwrap()
        .count();
    assert_eq!(files, 3, "one file per shard");
    let stdout = python(SPARK_QUERIES, &[whole.as_os_str(), sharded.as_os_str()]);
    let result = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .expect("Spark printed its result");
    let datasets: Value = serde_json::from_str(result).unwrap();
    let datasets = datasets.as_array().unwrap();
    assert_eq!(datasets.len(), 2);
    let sm = json_expect(&["summary", d, "--format", "json"], &[0, 3]);
    let ts = json_expect(&["trace-summary", d, "--format", "json"], &[0, 3]);
    let cs = json_expect(&["comm", "stats", d, "--format", "json"], &[0, 3]);
    let cp = json_expect(&["comm", "pairs", d, "--format", "json"], &[0, 3]);
    for (spark, which) in datasets.iter().zip(["whole", "3 shards"]) {
        spark_matches_the_reports(spark, [&sm, &ts, &cs, &cp], which);
    }
}

/// One dataset's Spark results (`spark`) against summary, trace-summary,
/// comm stats and comm pairs; `which` names the dataset in failures.
fn spark_matches_the_reports(spark: &Value, [sm, ts, cs, cp]: [&Value; 4], which: &str) {
    let by_name = |rows: &Value| -> BTreeMap<String, Vec<Value>> {
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r[0].as_str().unwrap().to_owned(),
                    r.as_array().unwrap()[1..].to_vec(),
                )
            })
            .collect()
    };
    let f64_of = |v: &Value| v.as_f64().unwrap();

    let nprocs = sm["nprocs"].as_f64().unwrap();
    let got = by_name(&spark["summary"]);
    let functions = sm["functions"].as_array().unwrap();
    assert_eq!(got.len(), functions.len(), "{which}: functions");
    for f in functions {
        let r = &got[f["name"].as_str().unwrap()];
        assert_eq!(r[0].as_u64(), f["ncalls"].as_u64(), "{which}: {f}");
        assert_eq!(r[1].as_u64(), f["ncalls_total"].as_u64(), "{which}: {f}");
        let avg = f64_of(&r[2]) / nprocs;
        assert!(close(avg, f64_of(&f["avg"])), "{which}: {avg} {f}");
        assert!(close(f64_of(&r[3]), f64_of(&f["min"])), "{which}: {f}");
        assert!(close(f64_of(&r[4]), f64_of(&f["max"])), "{which}: {f}");
    }

    let nprocs = ts["nprocs"].as_f64().unwrap();
    let got = by_name(&spark["trace_summary"]);
    for f in ts["functions"].as_array().unwrap() {
        let calls = f["ncalls_total"].as_u64().unwrap();
        if calls == 0 {
            assert!(!got.contains_key(f["name"].as_str().unwrap()), "{f}");
            continue;
        }
        let r = &got[f["name"].as_str().unwrap()];
        assert_eq!(r[0].as_u64(), Some(calls), "{which}: {f}");
        let avg = f64_of(&r[1]) / nprocs;
        assert!(close(avg, f64_of(&f["avg"])), "{which}: {f}");
    }

    let got = by_name(&spark["comm_stats"]);
    let types = cs["by_type"].as_array().unwrap();
    assert_eq!(got.len(), types.len(), "{which}");
    for t in types {
        assert_eq!(
            got[t["type"].as_str().unwrap()][0].as_u64(),
            t["records"].as_u64(),
            "{which}: {t}"
        );
    }

    let routes = cp["routes"].as_array().unwrap();
    let pairs = spark["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), routes.len(), "{which}");
    for (r, route) in pairs.iter().zip(routes) {
        assert_eq!(r[0], route["from"], "{which}");
        assert_eq!(r[1], route["to"], "{which}");
        assert_eq!(r[2], route["messages"], "{which}");
        assert_eq!(r[3].as_u64(), route["bytes"].as_u64(), "{which}");
    }
}
