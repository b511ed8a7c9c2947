//! `profparse history`: the steps in every timer over a series of runs,
//! end to end on job logs written by `profparse synth tinyprofiler`.

use std::path::Path;

use crate::common::*;

/// `runs` job logs of one job (20 timers, 1 % noise) in `dir`, named
/// `run1.log`…; from run `step_at` on (1-based), timer 3 is 10 % slower.
fn series(dir: &Path, runs: usize, step_at: usize) {
    for r in 1..=runs {
        let file = dir.join(format!("run{r}.log"));
        let seed = r.to_string();
        let mut args = vec![
            "synth",
            "tinyprofiler",
            s(&file),
            "--timers",
            "20",
            "--noise",
            "0.01",
            "--seed",
            &seed,
        ];
        if r >= step_at {
            args.extend(["--slower", "3:1.10"]);
        }
        run_ok(&args);
    }
}

#[test]
fn a_step_is_found_at_its_run_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 40, 23);
    let doc = json(&["history", s(dir.path()), "--format", "json"]);
    // A directory's runs in name order, numbers by value: run2 before run10.
    let runs: Vec<&str> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(runs.len(), 40);
    for (i, path) in runs.iter().enumerate() {
        assert!(path.ends_with(&format!("/run{}.log", i + 1)), "{i}: {path}");
    }
    assert_eq!(doc["runs"][0]["index"], 0);
    assert!(doc["runs"][0]["date"].is_null());
    let timers = doc["timers"].as_array().unwrap();
    assert_eq!(timers.len(), 20);
    // The timer that stepped comes first, with its one step at run 23
    // (index 22).
    assert_eq!(timers[0]["name"], "Timer0003::run()");
    let cps = timers[0]["change_points"].as_array().unwrap();
    assert_eq!(cps.len(), 1, "{cps:?}");
    assert_eq!(cps[0]["index"], 22);
    let change = cps[0]["change"].as_f64().unwrap();
    assert!((change - 0.10).abs() < 0.02, "{change}");
    assert!(cps[0]["p"].as_f64().unwrap() < 1e-6);
    let values = timers[0]["values"].as_array().unwrap();
    assert_eq!(values.len(), 40);
    for t in &timers[1..] {
        assert_eq!(
            t["change_points"].as_array().unwrap().len(),
            0,
            "{}",
            t["name"]
        );
    }
}

#[test]
fn the_table_names_the_step_and_the_chart_marks_it() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 30, 16);
    let svg = dir.path().join("out").join("history.svg");
    std::fs::create_dir(svg.parent().unwrap()).unwrap();
    let logs: Vec<String> = (1..=30)
        .map(|r| s(&dir.path().join(format!("run{r}.log"))).to_owned())
        .collect();
    let mut args = vec!["history", "--svg", s(&svg)];
    args.extend(logs.iter().map(String::as_str));
    let table = run_ok(&args);
    let row = table
        .lines()
        .find(|l| l.starts_with("Timer0003::run()"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains("16 (") && row.contains("+10."), "{row}");
    assert!(
        table.contains("1 timer(s) with steps, 19 steady"),
        "{table}"
    );
    // The columns line up under their headings, and fit 80 columns.
    let header = table.lines().find(|l| l.starts_with("Timer ")).unwrap();
    assert_eq!(
        header.find("Before").map(|i| i + 6),
        row.find(" ms").or(row.find(" s ")).map(|i| i + 3),
        "{header}\n{row}"
    );
    let narrow = run_ok(&[&args[..3], &["--width", "80"], &args[3..]].concat());
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.starts_with("<svg") && chart.trim_end().ends_with("</svg>"));
    assert!(chart.contains("at run 16"), "the step is labelled");
    assert_eq!(chart.matches("stroke-dasharray").count(), 1);
}

#[test]
fn csv_has_a_row_per_timer_and_run() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 12, 100);
    let csv = run_ok(&["history", s(dir.path()), "--format", "csv"]);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("timer,run,path,seconds,step"));
    assert_eq!(lines.count(), 20 * 12);
}

#[test]
fn keep_order_keeps_the_order_given() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 3, 100);
    let p = |r: usize| s(&dir.path().join(format!("run{r}.log"))).to_owned();
    let (a, b, c) = (p(3), p(1), p(2));
    let given = json(&["history", "--keep-order", &a, &b, &c, "--format", "json"]);
    let sorted = json(&["history", &a, &b, &c, "--format", "json"]);
    let paths = |d: &serde_json::Value| -> Vec<String> {
        d["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["path"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(paths(&given), [a.clone(), b.clone(), c.clone()]);
    assert_eq!(paths(&sorted), [b, c, a]);
}

#[test]
fn runs_of_different_kinds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 1, 100);
    let log = dir.path().join("run1.log");
    let out = output(&["history", s(&log), s(&tlog("np4.log"))]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("all runs must be of the same kind"), "{err}");
}

#[test]
fn a_directory_without_runs_is_an_error_and_strays_are_warned_of() {
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("notes.txt"), "not a run\n").unwrap();
    let out = output(&["history", s(empty.path())]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no runs in this directory"), "{err}");
    assert!(
        err.contains("notes.txt") && err.contains("not a run, left out"),
        "{err}"
    );
}
