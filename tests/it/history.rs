//! `profparse history`: the steps in every timer over a series of runs,
//! end to end on job logs written by `profparse synth tinyprofiler`.

use std::path::Path;

use crate::common::*;

/// `runs` job logs of one job (20 timers, 1 % noise) in `dir`, named
/// `run1.log`…; from run `step_at` on (1-based), timer 3 is 10 % slower.
fn series(dir: &Path, runs: usize, step_at: usize) {
    series_with(dir, runs, |r| {
        if r >= step_at {
            vec!["3:1.10".to_owned()]
        } else {
            Vec::new()
        }
    });
}

/// [`series`] with the slowdowns of run `r` (1-based) given by
/// `slower(r)`, as `synth tinyprofiler --slower` takes them (`I:F`).
fn series_with(dir: &Path, runs: usize, slower: impl Fn(usize) -> Vec<String>) {
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
        let slower = slower(r);
        for f in &slower {
            args.extend(["--slower", f]);
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

#[test]
fn pages_and_charts_written_beside_the_runs_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 6, 4);
    let before = json(&["history", s(dir.path()), "--format", "json"]);
    let page = dir.path().join("history.html");
    let chart = dir.path().join("history.svg");
    run_ok(&[
        "history",
        s(dir.path()),
        "--html",
        s(&page),
        "--svg",
        s(&chart),
    ]);
    let out = output(&["history", s(dir.path()), "--format", "json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    for f in ["history.html", "history.svg"] {
        assert!(
            err.contains(f) && err.contains("not a run, left out"),
            "{err}"
        );
    }
    let after: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(after["runs"], before["runs"]);
    assert_eq!(after["timers"], before["timers"]);
}

/// The text of `page` between `start` and the next `end` after it, for
/// each occurrence of `start`.
fn between<'a>(page: &'a str, start: &str, end: &str) -> Vec<&'a str> {
    page.split(start)
        .skip(1)
        .map(|rest| &rest[..rest.find(end).unwrap_or(rest.len())])
        .collect()
}

/// Markup entities back to text.
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// What the page shows of one timer: name, series, and per step the
/// `data-v` keys of its row (index, before, after, change, p).
struct ShownTimer {
    name: String,
    values: Vec<f64>,
    steps: Vec<Vec<f64>>,
}

/// The timers of a history page, in page order.
fn page_timers(page: &str) -> Vec<ShownTimer> {
    between(page, "<article class=\"timer\"", "</article>")
        .into_iter()
        .map(|article| ShownTimer {
            name: unescape(between(article, "<h3>", "</h3>")[0]),
            values: between(article, "data-values=\"", "\"")[0]
                .split(' ')
                .map(|v| v.parse().unwrap())
                .collect(),
            steps: between(article, "<tbody>", "</tbody>")
                .first()
                .map(|body| {
                    between(body, "<tr>", "</tr>")
                        .into_iter()
                        .map(|row| {
                            between(row, "data-v=\"", "\"")
                                .into_iter()
                                .map(|v| v.parse().unwrap())
                                .collect()
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}

/// Checks that `page` shows the first `top` timers of the JSON `doc` of
/// the same runs, in its order, with the same series and steps (parsed
/// from both, compared exactly); returns the number of steps shown.
fn assert_page_shows(page: &str, doc: &serde_json::Value, top: usize) -> usize {
    let shown = page_timers(page);
    let timers = doc["timers"].as_array().unwrap();
    assert_eq!(shown.len(), top.min(timers.len()));
    assert!(page.contains(&format!(
        "Shown: {} of {} timer(s)",
        shown.len(),
        timers.len()
    )));
    let mut steps = 0;
    for (t, json) in shown.iter().zip(timers) {
        assert_eq!(t.name, json["name"].as_str().unwrap());
        let values: Vec<f64> = json["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(t.values, values, "{}", t.name);
        let cps = json["change_points"].as_array().unwrap();
        assert_eq!(t.steps.len(), cps.len(), "{}", t.name);
        for (row, cp) in t.steps.iter().zip(cps) {
            // index, before, after, change, p
            assert_eq!(row[0], cp["index"].as_f64().unwrap());
            assert_eq!(row[1], cp["before"].as_f64().unwrap());
            assert_eq!(row[2], cp["after"].as_f64().unwrap());
            assert_eq!(row[3], cp["change"].as_f64().unwrap_or(f64::INFINITY));
            assert_eq!(row[4], cp["p"].as_f64().unwrap());
        }
        steps += cps.len();
    }
    steps
}

/// 40 runs: timer 3 10 % slower from run 15 and 25 % from run 28 (two
/// steps), timer 7 15 % slower from run 28.
fn two_step_series(dir: &Path) {
    series_with(dir, 40, |r| match r {
        ..15 => Vec::new(),
        15..28 => vec!["3:1.10".to_owned()],
        _ => vec!["3:1.25".to_owned(), "7:1.15".to_owned()],
    });
}

#[test]
fn the_page_shows_the_top_series_and_every_step_the_json_reports() {
    let dir = tempfile::tempdir().unwrap();
    two_step_series(dir.path());
    let out = tempfile::tempdir().unwrap();
    let page_file = out.path().join("page.html");
    for top in [None, Some("3")] {
        let mut args = vec!["history", s(dir.path()), "--html", s(&page_file)];
        args.extend(top.iter().flat_map(|n| ["--top", n]));
        let table = run_ok(&args);
        assert!(table.contains("2 timer(s) with steps"), "{table}");
        args.extend(["--format", "json"]);
        let doc = json(&args);
        let page = std::fs::read_to_string(&page_file).unwrap();
        let top: usize = top.map_or(8, |n| n.parse().unwrap());
        let steps = assert_page_shows(&page, &doc, top);
        // Both steps of timer 3 and the one of timer 7, each marked on
        // its chart.
        assert_eq!(steps, 3);
        assert_eq!(page.matches("stroke-dasharray").count(), steps);
    }
}

#[test]
fn report_of_several_runs_is_the_history_page() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 12, 7);
    let runs: Vec<String> = (1..=12)
        .map(|r| s(&dir.path().join(format!("run{r}.log"))).to_owned())
        .collect();
    let runs: Vec<&str> = runs.iter().map(String::as_str).collect();
    // Pages go elsewhere: the directory of runs holds runs only.
    let out = tempfile::tempdir().unwrap();
    let history_page = out.path().join("history.html");
    run_ok(&[&["history", "--html", s(&history_page)], &runs[..]].concat());
    let expected = std::fs::read_to_string(&history_page).unwrap();
    let listed = run_ok(&[&["report"], &runs[..]].concat());
    assert_eq!(listed, expected, "report RUN... == history RUN... --html");
    let from_dir = out.path().join("report.html");
    run_ok(&["report", s(dir.path()), "-o", s(&from_dir)]);
    let from_dir = std::fs::read_to_string(&from_dir).unwrap();
    assert_eq!(
        from_dir.replace(s(dir.path()), "D"),
        expected.replace(s(dir.path()), "D")
    );
    // --top is history's when given.
    let top = run_ok(&[&["report", "--top", "2"], &runs[..]].concat());
    assert_eq!(page_timers(&top).len(), 2);
    // One log keeps its own page.
    let one = run_ok(&["report", runs[0]]);
    assert!(
        one.contains("TinyProfiler report of"),
        "{}",
        &one[..one.len().min(400)]
    );
    assert!(!one.contains("profparse history"));
}

#[test]
fn the_page_escapes_names_and_fetches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 30, 16);
    let hostile = "<script>alert(1)</script>&T";
    for r in 1..=30 {
        let log = dir.path().join(format!("run{r}.log"));
        let text = std::fs::read_to_string(&log).unwrap();
        std::fs::write(&log, text.replace("Timer0003::run()", hostile)).unwrap();
    }
    let page = run_ok(&["report", s(dir.path())]);
    let shown = page_timers(&page);
    assert_eq!(
        shown[0].name, hostile,
        "the stepping timer first, by its name"
    );
    assert_eq!(
        page.matches("<script>").count(),
        1,
        "only the page's own script"
    );
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;T"));
    let bare = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!bare.contains("http://") && !bare.contains("https://"));
    assert!(!bare.contains(" src=") && !bare.contains(" href=\"/") && !bare.contains("url("));
    for tag in [
        "html", "body", "section", "article", "figure", "svg", "table", "tr", "script",
    ] {
        let opened =
            page.matches(&format!("<{tag}>")).count() + page.matches(&format!("<{tag} ")).count();
        assert_eq!(
            opened,
            page.matches(&format!("</{tag}>")).count(),
            "<{tag}> balanced"
        );
    }
    // The same runs give the same page.
    assert_eq!(run_ok(&["report", s(dir.path())]), page);
}

#[test]
fn report_of_bad_runs_fails_as_history_does() {
    let dir = tempfile::tempdir().unwrap();
    series(dir.path(), 2, 100);
    let log = s(&dir.path().join("run1.log")).to_owned();
    let missing = s(&dir.path().join("missing.log")).to_owned();
    let trace = s(&tlog("np4.log")).to_owned();
    for runs in [
        vec![log.as_str(), trace.as_str()],
        vec![log.as_str(), missing.as_str()],
    ] {
        let history = output(&[&["history"], &runs[..]].concat());
        let report = output(&[&["report"], &runs[..]].concat());
        assert!(!history.status.success());
        assert_eq!(report.status.code(), history.status.code(), "{runs:?}");
        assert_eq!(report.stderr, history.stderr, "{runs:?}");
        assert!(report.stdout.is_empty());
    }
    // Options of one database make no sense for a series.
    let out = output(&["report", "--depth", "2", &log, &log]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--depth"));
}

#[test]
fn databases_timer_trees_and_traces_get_the_page_too() {
    let dbs = [db("small4"), db("asym4"), db("single")];
    let trees = [
        timer_tree("doc_example.json"),
        timer_tree("measured_example.json"),
    ];
    let traces = [tlog("np1.log"), tlog("np4.log")];
    for (kind, runs) in [
        ("blprof", &dbs[..]),
        ("timer-tree", &trees[..]),
        ("tlog", &traces[..]),
    ] {
        let runs: Vec<&str> = runs.iter().map(|p| s(p)).collect();
        let page = run_ok(&[&["report"], &runs[..]].concat());
        let doc = json(&[&["history", "--format", "json"], &runs[..]].concat());
        assert_eq!(doc["kind"], kind);
        assert!(page.contains(&format!("runs ({kind})")), "{kind}");
        assert_page_shows(&page, &doc, 8);
    }
}
