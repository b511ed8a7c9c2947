//! Outputs for people (issue 21): tables and trees fit `--width`, times
//! carry units and never read as zero when they are not, call trees say
//! what their cuts hide and how processes were merged.

use crate::common::{db, json, line_numbers, run_ok, s, shows};

/// The reports with tables, as command lines before the database.
const TABLE_REPORTS: [&[&str]; 11] = [
    &["summary"],
    &["trace-summary"],
    &["calltree"],
    &["calltree", "--bottom-up"],
    &["regions"],
    &["info"],
    &["comm", "stats"],
    &["comm", "barriers"],
    &["comm", "matrix"],
    &["comm", "pairs"],
    &["comm", "time"],
];

fn widest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

fn every_table_fits_the_width(name: &str) {
    let d = db(name);
    for report in TABLE_REPORTS {
        for width in [80usize, 120] {
            let mut args: Vec<&str> = vec!["-q"];
            args.extend_from_slice(report);
            let w = width.to_string();
            args.extend([s(&d), "--width", &w]);
            let out = crate::common::output(&args);
            assert!(
                matches!(out.status.code(), Some(0 | 3)),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).unwrap();
            // The first line names the database, whose path is the user's.
            let body: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
            assert!(
                widest_line(&body) <= width,
                "{args:?}: {} columns\n{text}",
                widest_line(&body)
            );
        }
    }
}

database_tests!(every_table_fits_the_width);

fn no_time_that_is_not_zero_reads_as_zero(name: &str) {
    let d = db(name);
    let v = json(&["summary", s(&d), "--format", "json"]);
    let text = run_ok(&["summary", s(&d), "--sort", "name", "--width", "0"]);
    let mut checked = 0;
    for f in v["functions"].as_array().unwrap() {
        let fname = f["name"].as_str().unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with(fname) && l[fname.len()..].starts_with("  "))
            .unwrap_or_else(|| panic!("{fname}\n{text}"));
        let n = line_numbers(&line[fname.len()..]);
        // NCalls, Min, Avg, Max, StdDev.
        for (i, key) in [(1, "min"), (2, "avg"), (3, "max"), (4, "stddev")] {
            let exact = f[key].as_f64().unwrap();
            let shown = n[i].unwrap();
            assert_eq!(shown == 0.0, exact == 0.0, "{fname} {key}: {line}");
            assert!(shows(shown, exact), "{fname} {key} {exact}: {line}");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

database_tests!(no_time_that_is_not_zero_reads_as_zero);

/// `--top 1`: below every node with more children, one line says how many
/// are hidden and their share; `--depth 0`: under every root with children.
#[test]
fn cuts_say_what_they_hide() {
    let d = db("small4");
    let tree = json(&["calltree", s(&d), "--format", "json"]);
    let text = run_ok(&["calltree", s(&d), "--top", "1", "--width", "0"]);
    // Nodes with more than one child, in the subtree --top 1 shows.
    let mut expected = 0;
    let mut node = &tree["roots"][0];
    loop {
        let kids = node["children"].as_array().unwrap();
        if kids.len() > 1 {
            expected += 1;
        }
        if kids.is_empty() {
            break;
        }
        node = kids
            .iter()
            .max_by(|a, b| {
                a["inclusive"]
                    .as_f64()
                    .unwrap()
                    .total_cmp(&b["inclusive"].as_f64().unwrap())
            })
            .unwrap();
    }
    let more = text.lines().filter(|l| l.contains(" more child")).count();
    assert_eq!(more, expected, "{text}");
    let roots = tree["roots"].as_array().unwrap().len();
    if roots > 1 {
        let last = text.lines().last().unwrap();
        assert!(
            last.contains(&format!("… {} more outermost", roots - 1)),
            "{text}"
        );
    }
    let shallow = run_ok(&["calltree", s(&d), "--depth", "0", "--width", "0"]);
    let with_children = tree["roots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["children"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(
        shallow
            .lines()
            .filter(|l| l.contains(" more child"))
            .count(),
        with_children,
        "{shallow}"
    );
    // Shares are percentages of the parent.
    for l in shallow.lines().filter(|l| l.contains(" more child")) {
        let share: f64 = l
            .rsplit_once('(')
            .unwrap()
            .1
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((0.0..=100.05).contains(&share), "{l}");
    }
}

/// `--aggregate sum`: the times of the mean tree times the processes.
#[test]
fn aggregate_sum_multiplies_the_means_by_the_processes() {
    let d = db("small4");
    let mean = run_ok(&["calltree", s(&d), "--width", "0"]);
    let sum = run_ok(&["calltree", s(&d), "--width", "0", "--aggregate", "sum"]);
    assert!(mean.contains("averages over processes"), "{mean}");
    assert!(sum.contains("sums over processes"), "{sum}");
    assert!(sum.contains("Incl sum"), "{sum}");
    let root = |t: &str| {
        let l = t.lines().find(|l| l.ends_with("  main()")).unwrap();
        line_numbers(l)
    };
    let (m, x) = (root(&mean), root(&sum));
    let nprocs = 4.0;
    // Both printed with 4 significant digits: within 0.1 % of each other.
    let (a, b) = (x[0].unwrap(), m[0].unwrap() * nprocs);
    assert!((a - b).abs() <= 1e-3 * a, "{mean}\n{sum}");
    // Calls are summed either way.
    assert_eq!(m[2], x[2]);
}

/// An `(untimed)` row only where the node's own time is over 10 % of it.
#[test]
fn untimed_rows_only_where_they_matter() {
    let d = db("amrlevel8");
    let text = run_ok(&["calltree", s(&d), "--width", "0"]);
    let lines: Vec<&str> = text.lines().collect();
    let mut rows = 0;
    for (i, l) in lines.iter().enumerate() {
        if !l.trim_end().ends_with("(untimed)") {
            continue;
        }
        rows += 1;
        let node = line_numbers(lines[i - 1]);
        let own = line_numbers(l)[0].unwrap();
        assert!(
            own > 0.1 * node[0].unwrap() * 0.999,
            "{}\n{l}",
            lines[i - 1]
        );
    }
    let nodes = lines.iter().filter(|l| l.contains("()")).count();
    assert!(rows < nodes / 4, "{rows} of {nodes}");
}

/// One `--aggregate` for text, folded stacks and the Hatchet literal: the
/// mean by default, the sum, or the largest process's; Hatchet nodes carry
/// the spread (min and max over processes) besides.
#[test]
fn folded_and_hatchet_aggregate_alike() {
    let d = db("small4");
    let nprocs = 4.0;
    let folded = |how: &str| -> std::collections::BTreeMap<String, f64> {
        run_ok(&["calltree", s(&d), "--format", "folded", "--aggregate", how])
            .lines()
            .map(|l| {
                let (k, v) = l.rsplit_once(' ').unwrap();
                (k.to_owned(), v.parse().unwrap())
            })
            .collect()
    };
    let default = run_ok(&["calltree", s(&d), "--format", "folded"]);
    let (mean, sum, max) = (folded("mean"), folded("sum"), folded("max"));
    assert_eq!(default.lines().count(), mean.len());
    let mut checked = 0;
    for (stack, total) in &sum {
        if *total < 1000.0 {
            continue; // whole microseconds: the rounding dominates
        }
        let m = mean[stack];
        assert!(
            (m * nprocs - total).abs() <= nprocs + 1.0,
            "{stack}: {m} × 4 vs {total}"
        );
        // The largest process's time lies between the mean and the sum.
        assert!(
            max[stack] + 1.0 >= m && max[stack] <= total + 1.0,
            "{stack}"
        );
        checked += 1;
    }
    assert!(checked > 0);
    let hatchet = |how: &str| json(&["calltree", s(&d), "--format", "hatchet", "--aggregate", how]);
    let (h_mean, h_max) = (hatchet("mean"), hatchet("max"));
    let (a, b) = (&h_mean[0]["metrics"], &h_max[0]["metrics"]);
    for k in ["time (inc) min", "time (inc) max", "time min", "time max"] {
        assert!(a[k].is_number(), "{k}: {a}");
    }
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    assert_eq!(f(b, "time (inc)"), f(a, "time (inc) max"));
    assert_eq!(f(b, "time"), f(a, "time max"));
    assert!(
        f(a, "time (inc) min") <= f(a, "time (inc)")
            && f(a, "time (inc)") <= f(a, "time (inc) max")
    );
}
