//! Outputs for people: tables and trees fit `--width`, times
//! carry units and never read as zero when they are not, call trees say
//! what their cuts hide and how processes were merged.

use std::path::PathBuf;

use crate::common::{db, fixtures, json, line_numbers, run_ok, s, shows};

/// What a report for people reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    Database,
    /// A job log holding a TinyProfiler report.
    Log,
    Tlog,
    /// A serialized timer tree (`tree merge` gets them all at once).
    TimerTree,
}

use Input::*;

/// A report that prints a table or a tree for people: its command, extra
/// arguments, what it reads, and whether its times carry units (a
/// reference tool's layout, byte for byte, does not).
struct Human {
    command: &'static str,
    extra: &'static [&'static str],
    inputs: &'static [Input],
    units: bool,
}

const fn human(command: &'static str, inputs: &'static [Input]) -> Human {
    Human {
        command,
        extra: &[],
        inputs,
        units: true,
    }
}

/// Every report that prints a table or a tree, checked below at two
/// widths on every shipped input it reads.
const HUMAN: &[Human] = &[
    human("info", &[Database, Log]),
    human("summary", &[Database, Log]),
    Human {
        extra: &["--memory"],
        ..human("summary", &[Log])
    },
    human("trace-summary", &[Database]),
    human("regions", &[Database]),
    human("calltree", &[Database, Log]),
    Human {
        extra: &["--bottom-up"],
        ..human("calltree", &[Database])
    },
    human("check", &[Database]),
    human("comm stats", &[Database]),
    human("comm barriers", &[Database]),
    human("comm matrix", &[Database]),
    human("comm pairs", &[Database]),
    human("comm time", &[Database]),
    human("comm clocks", &[Database]),
    human("comm check", &[Database]),
    human("tlog summary", &[Tlog]),
    human("tlog tree", &[Tlog]),
    // The Fortran reference's layout (ES12.5 seconds, docs/TIMER_TREE.md).
    Human {
        units: false,
        ..human("tree show", &[TimerTree])
    },
    Human {
        extra: &["--layout", "table"],
        ..human("tree show", &[TimerTree])
    },
    human("tree merge", &[TimerTree]),
];

/// The other commands, and why the checks above are not theirs.
const NOT_HERE: &[(&str, &str)] = &[
    ("comm waits", "its own tests (tests/it/comm_waits.rs)"),
    ("diff", "its own tests (tests/it/diff.rs)"),
    ("regress", "its own tests (tests/it/regress.rs)"),
    ("history", "its own tests (tests/it/history.rs)"),
    ("compare", "its own tests (tests/it/tinyprofiler.rs)"),
    ("calltrace", "amrprofparser -ttrace's layout, byte for byte"),
    ("tlog dump", "the reference readers' layouts, byte for byte"),
    ("comm timeline", "SVG or Chrome JSON"),
    ("tlog export", "Chrome JSON"),
    ("export", "Chrome JSON or Parquet"),
    ("report", "HTML (tests/it/report.rs)"),
    ("completions", "a shell script"),
    ("man", "roff"),
];

/// The commands of `profparse [group] --help`, `help` left out.
fn subcommands(group: &[&str]) -> Vec<String> {
    let mut args = group.to_vec();
    args.push("--help");
    let help = run_ok(&args);
    let mut out = Vec::new();
    let mut listing = false;
    for l in help.lines() {
        let heading = !l.starts_with(' ') && l.ends_with(':');
        if heading {
            // The top-level help groups commands under headings of its own
            // (help.rs); options and arguments end the listing.
            listing = !["Options:", "Arguments:", "Global options:", "Examples:"].contains(&l)
                && !l.starts_with("Exit codes");
            continue;
        }
        // A command line: two blanks, the name, blanks, its summary.
        let name = l
            .strip_prefix("  ")
            .filter(|rest| !rest.starts_with(' '))
            .and_then(|rest| rest.split_whitespace().next());
        if let (true, Some(name)) = (listing, name)
            && name != "help"
            && !name.starts_with('-')
        {
            out.push(name.to_owned());
        }
    }
    out
}

/// Every command of `--help` (subcommands of groups included) is in
/// [`HUMAN`] or [`NOT_HERE`], and every listed one is a command: a new
/// report cannot be forgotten here.
#[test]
fn every_command_is_checked_or_says_why_not() {
    let mut commands = Vec::new();
    for top in subcommands(&[]) {
        let sub = subcommands(&[&top]);
        if sub.is_empty() {
            commands.push(top);
        } else {
            commands.extend(sub.into_iter().map(|s| format!("{top} {s}")));
        }
    }
    assert!(commands.len() > 20, "{commands:?}");
    let listed: Vec<&str> = HUMAN
        .iter()
        .map(|h| h.command)
        .chain(NOT_HERE.iter().map(|n| n.0))
        .collect();
    for c in &commands {
        assert!(
            listed.contains(&c.as_str()),
            "`{c}` is in --help but neither in HUMAN nor in NOT_HERE (tests/it/human.rs)"
        );
    }
    for l in &listed {
        assert!(commands.iter().any(|c| c == l), "`{l}` is not a command");
    }
}

/// The shipped inputs of a kind.
fn inputs(kind: Input, database: &str) -> Vec<PathBuf> {
    let files = |dir: &str, ext: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(fixtures().join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        v.sort();
        v
    };
    match kind {
        Database => vec![db(database)],
        Log => files("tinyprofiler", "txt")
            .into_iter()
            .filter(|p| {
                std::fs::read_to_string(p)
                    .unwrap()
                    .contains("TinyProfiler total time across processes")
            })
            .collect(),
        Tlog => files("tlog", "log"),
        TimerTree => files("timertree", "json"),
    }
}

/// A number for people that is a time without its unit: scientific
/// notation or four decimals and more (`8.813e-05`, `0.0753`, `0.0000`).
/// Shares and ratios (`50.62`, `1.15`, `0.00` of a share) have fewer.
fn bare_time(word: &str) -> bool {
    let w = word.trim_start_matches(['(', '-', '+']);
    if w.parse::<f64>().is_err() || !w.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let lower = w.to_ascii_lowercase();
    if lower.contains('e') {
        return true;
    }
    lower.split_once('.').is_some_and(|(_, d)| d.len() >= 4)
}

const UNITS: [&str; 4] = ["s", "ms", "µs", "ns"];

/// The faults of one report's text: lines wider than `width` (but the
/// title line, which names the input as the user did) and times without
/// units or that read as zero when they are not.
fn faults(text: &str, width: usize, units: bool) -> Vec<String> {
    let mut out = Vec::new();
    for l in text.lines().skip(1) {
        if l.chars().count() > width {
            out.push(format!("{} columns: {l}", l.chars().count()));
        }
        if !units {
            continue;
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        for (j, w) in words.iter().enumerate() {
            let unit_at = |k: usize| words.get(k).is_some_and(|u| UNITS.contains(u));
            // A range `0.0011 .. 0.0248 s` carries one unit for both ends.
            let unit = unit_at(j + 1) || (words.get(j + 1) == Some(&"..") && unit_at(j + 3));
            if !unit && bare_time(w) {
                out.push(format!("`{w}` without a unit: {l}"));
            }
            // `duration` writes exact zero as `0`: a zero with decimals
            // before a unit is a rounded time.
            if unit && w.parse::<f64>() == Ok(0.0) && w.contains('.') {
                out.push(format!("`{w}` reads as zero: {l}"));
            }
        }
    }
    out
}

/// Runs every report of [`HUMAN`] that reads `kind` on its inputs at
/// widths 80 and 120.
fn every_report_fits_and_shows_units(kind: Input, database: &str) {
    let mut checked = 0;
    let mut all = Vec::new();
    for h in HUMAN.iter().filter(|h| h.inputs.contains(&kind)) {
        let files = inputs(kind, database);
        assert!(!files.is_empty(), "{kind:?}");
        // `tree merge` merges them all; the others read one at a time.
        let runs: Vec<Vec<PathBuf>> = if h.command == "tree merge" {
            vec![files]
        } else {
            files.into_iter().map(|f| vec![f]).collect()
        };
        for paths in runs {
            for width in [80usize, 120] {
                let w = width.to_string();
                let mut args: Vec<&str> = vec!["-q"];
                args.extend(h.command.split(' '));
                args.extend(paths.iter().map(|p| s(p)));
                args.extend(h.extra);
                args.extend(["--width", &w]);
                let out = crate::common::output(&args);
                assert!(
                    matches!(out.status.code(), Some(0 | 3)),
                    "{args:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let text = String::from_utf8(out.stdout).unwrap();
                assert!(!text.trim().is_empty(), "{args:?}");
                for f in faults(&text, width, h.units) {
                    all.push(format!("{args:?}: {f}"));
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "{kind:?}");
    assert!(all.is_empty(), "{}", all.join("\n"));
}

fn every_report_fits_and_shows_units_on(name: &str) {
    every_report_fits_and_shows_units(Database, name);
}

database_tests!(every_report_fits_and_shows_units_on);

#[test]
fn every_log_report_fits_and_shows_units() {
    every_report_fits_and_shows_units(Log, "");
}

#[test]
fn every_tlog_report_fits_and_shows_units() {
    every_report_fits_and_shows_units(Tlog, "");
}

#[test]
fn every_timer_tree_report_fits_and_shows_units() {
    every_report_fits_and_shows_units(TimerTree, "");
}

/// The checks themselves: they catch what the reports must not print.
#[test]
fn faults_catch_bare_times_rounded_zeros_and_wide_lines() {
    let t = |line: &str| faults(&format!("title\n{line}"), 40, true);
    assert!(t("f   8.813e-05").len() == 1);
    assert!(t("f   0.0753").len() == 1);
    assert!(t("f   0.0000").len() == 1);
    assert!(t("f   0.000 µs").len() == 1);
    assert!(t(&"x".repeat(41)).len() == 1);
    assert!(t(&"µ".repeat(40)).is_empty());
    assert!(t("f  2.600 µs  50.62  0.00  0").is_empty());
    assert!(faults("title\nx 1.00000E-02", 80, false).is_empty());
}

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
        // The share of all timers: `0.00` only when it is zero.
        let share = line.split_whitespace().last().unwrap();
        let exact = f["percent"].as_f64().unwrap();
        assert_eq!(share == "0.00", exact == 0.0, "{fname} % {exact}: {line}");
    }
    assert!(checked > 0);
}

database_tests!(no_time_that_is_not_zero_reads_as_zero);

// ---- comm waits, comm time, compare and diff for people ----
// Every shipped database and job log each applies to, in 80 columns: every
// line fits, times carry their unit and read as zero only when zero, and
// different call paths print differently.

use std::collections::HashSet;

/// stdout of `profparse -q ARGS --width WIDTH` run in `fixtures/` (inputs
/// named relative to it, as a user would), exit 0 or 3.
fn people(args: &[&str], width: &str) -> String {
    let out = crate::common::profparse()
        .current_dir(crate::common::fixtures())
        .arg("-q")
        .args(args)
        .args(["--width", width])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The JSON of `profparse -q ARGS --format json`, run in `fixtures/`.
fn wire(args: &[&str]) -> serde_json::Value {
    let out = crate::common::profparse()
        .current_dir(crate::common::fixtures())
        .arg("-q")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 3)), "{args:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every line within 80 columns, and no number that reads as zero without
/// being zero (`0.0000`, `0.00`: exact zeros print `0`).
fn fits_80_without_false_zeros(what: &[&str], text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "{what:?}: {} columns: {line}\n{text}",
            line.chars().count()
        );
        for field in line.split_whitespace() {
            let f = field.trim_matches(|c: char| "(),;%+-".contains(c));
            if f.contains('.') && f.parse::<f64>().is_ok_and(|x| x == 0.0) {
                panic!("{what:?}: {field} reads as zero: {line}\n{text}");
            }
        }
    }
}

/// A time shown (`Some(seconds)`, parsed with its unit) is the exact one:
/// zero exactly when it is zero, else to 4 significant digits.
fn shows_time(what: &str, shown: Option<f64>, exact: &serde_json::Value, line: &str) {
    if exact.is_null() {
        // Not finite (a damaged timer tree): JSON has null, the text says
        // NaN or inf.
        assert!(shown.is_some_and(|x| !x.is_finite()), "{what}: {line}");
        return;
    }
    let exact = exact.as_f64().unwrap_or_else(|| panic!("{what}: {exact}"));
    let shown = shown.unwrap_or_else(|| panic!("{what}: no number: {line}"));
    assert_eq!(shown == 0.0, exact == 0.0, "{what} {exact}: {line}");
    assert!(shows(shown, exact), "{what} {exact}: {line}");
}

/// Units of time in `text`: a time for people that is not zero has one.
fn units(text: &str) -> usize {
    let unit = |f: &str| matches!(f, "s" | "ms" | "µs" | "ns");
    text.split_whitespace().filter(|f| unit(f)).count()
}

/// How many of `values` must show a unit: all but exact zeros and the
/// absent (`-`, JSON null while the text says nothing).
fn with_unit<'v>(values: impl IntoIterator<Item = &'v serde_json::Value>) -> usize {
    let needs = |v: &serde_json::Value| v.as_f64().is_some_and(|x| x != 0.0);
    values.into_iter().filter(|v| needs(v)).count()
}

/// The rows of the table under the first line starting with `title`: the
/// lines after its header line (the first starting with `header`) up to
/// a blank line.
fn rows_under<'t>(text: &'t str, title: &str, header: &str) -> (&'t str, Vec<&'t str>) {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with(title))
        .skip_while(|l| !l.trim_start().starts_with(header));
    let head = lines
        .next()
        .unwrap_or_else(|| panic!("no {title}:\n{text}"));
    (head, lines.take_while(|l| !l.trim().is_empty()).collect())
}

/// A call-path tree (`comm waits`, `comm time`) read back: per row its
/// function and the path of frames above its line. The table is the one
/// under `title`, its header line starts with `header`; frames-only lines
/// are blank left of the tree.
fn path_tree(text: &str, title: &str, header: &str) -> Vec<(String, Vec<String>)> {
    let (head, rows) = rows_under(text, title, header);
    // The header is ASCII: byte offsets are columns.
    let col = head.find("Call path").unwrap();
    let function_col = head.find("Function").unwrap();
    let mut stack: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in rows {
        let left: String = line.chars().take(col).collect();
        let cell: String = line.chars().skip(col).collect();
        let name = cell.trim_start();
        let depth = (cell.len() - name.len()) / 2;
        stack.truncate(depth);
        stack.push(name.to_owned());
        if !left.trim().is_empty() {
            let function: String = line.chars().skip(function_col).collect();
            let function = function.split_whitespace().next().unwrap().to_owned();
            let path = if depth == 0 && name == "(outside timed calls)" {
                Vec::new()
            } else {
                stack.clone()
            };
            out.push((function, path));
        }
    }
    out
}

/// A call-path tree in 80 columns and whole: `wanted` (function and path
/// per row of the JSON, the rows the table shows) read back from the
/// table under `title` of `args`' output: at 80 columns different paths
/// end on different lines, at `--width 0` every path reads back whole.
fn tree_reads_back(
    args: &[&str],
    narrow_text: &str,
    title: &str,
    header: &str,
    mut want: Vec<(String, Vec<String>)>,
) {
    // The tree orders the rows its way, and one path is one line of it:
    // different paths apart means as many texts as paths.
    let narrow = path_tree(narrow_text, title, header);
    assert_eq!(narrow.len(), want.len(), "{args:?}\n{narrow_text}");
    let distinct = |paths: Vec<&Vec<String>>| paths.into_iter().collect::<HashSet<_>>().len();
    assert_eq!(
        distinct(narrow.iter().map(|(_, p)| p).collect()),
        distinct(want.iter().map(|(_, p)| p).collect()),
        "{args:?}\n{narrow_text}"
    );
    let mut whole = path_tree(&people(args, "0"), title, header);
    whole.sort();
    want.sort();
    assert_eq!(whole, want, "{args:?}");
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    let a = v.as_array().unwrap();
    a.iter().map(|x| x.as_str().unwrap().to_owned()).collect()
}

/// `i` and `j` print alike exactly when their paths are alike.
fn apart_as_paths<P: PartialEq + std::fmt::Debug, T: PartialEq + std::fmt::Debug>(
    what: &str,
    paths: &[P],
    texts: &[T],
) {
    assert_eq!(paths.len(), texts.len(), "{what}");
    for i in 0..paths.len() {
        for j in 0..i {
            assert_eq!(
                paths[i] == paths[j],
                texts[i] == texts[j],
                "{what}: {:?} and {:?} print as {:?} and {:?}",
                paths[i],
                paths[j],
                texts[i],
                texts[j]
            );
        }
    }
}

fn comm_waits_reads_in_80_columns(name: &str) {
    let d = format!("blprof/{name}/bl_prof");
    let args = ["comm", "waits", d.as_str()];
    let text = people(&args, "80");
    fits_80_without_false_zeros(&args, &text);
    let v = wire(&args);
    // Per process: every state's time and what it caused, with units.
    let (_, rows) = rows_under(&text, "By process", "Proc");
    let procs = v["procs"].as_array().unwrap();
    assert_eq!(rows.len(), procs.len(), "{text}");
    for (p, line) in procs.iter().zip(rows) {
        let n = line_numbers(line);
        assert_eq!(n[0], p["proc"].as_f64(), "{line}");
        let keys = [
            "late_sender",
            "late_receiver",
            "barrier",
            "nxn",
            "total",
            "caused",
        ];
        for (i, key) in keys.into_iter().enumerate() {
            shows_time(key, n[i + 1], &p[key], line);
        }
        assert_eq!(units(line), with_unit(keys.map(|k| &p[k])), "{line}");
    }
    // The longest waits: entry (a point in time, microseconds) and length.
    let (_, rows) = rows_under(&text, "The ", "State");
    let top = v["top"].as_array().unwrap();
    assert_eq!(rows.len(), top.len(), "{text}");
    for (w, line) in top.iter().zip(rows) {
        let n = line_numbers(line);
        let k = n.len();
        let entry = w["entry"].as_f64().unwrap();
        assert!((n[k - 3].unwrap() - entry).abs() <= 5e-7, "{entry}: {line}");
        shows_time("seconds", n[k - 2], &w["seconds"], line);
        // The entry's unit, and the length's.
        assert_eq!(units(line), 1 + with_unit([&w["seconds"]]), "{line}");
    }
    // The call-path tree: the rows of the JSON in 80 columns, different
    // paths apart; with room, every path whole.
    let Some(paths) = v["paths"].as_array() else {
        assert!(!text.contains("By call path"), "{text}");
        return;
    };
    let shown = &paths[..paths.len().min(20)];
    let want: Vec<(String, Vec<String>)> = shown
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_owned(), strings(&p["path"])))
        .collect();
    tree_reads_back(&args, &text, "By call path", "Function", want);
}

database_tests!(comm_waits_reads_in_80_columns);

/// `comm time`'s call paths: the JSON's top rows as a tree in 80 columns,
/// different paths apart, every path whole with room.
fn comm_time_reads_in_80_columns(name: &str) {
    let d = format!("blprof/{name}/bl_prof");
    let args = ["comm", "time", d.as_str()];
    let text = people(&args, "80");
    // Shares of exactly nothing read `0.00` here, as in every table.
    let wrong = faults(&text, 80, true);
    assert!(wrong.is_empty(), "{args:?}: {wrong:#?}\n{text}");
    let v = wire(&args);
    let Some(paths) = v["paths"].as_array() else {
        assert!(!text.contains("Call paths"), "{text}");
        return;
    };
    // The table's default top.
    let shown = &paths[..paths.len().min(20)];
    let want: Vec<(String, Vec<String>)> = shown
        .iter()
        .map(|p| (p["type"].as_str().unwrap().to_owned(), strings(&p["path"])))
        .collect();
    tree_reads_back(&args, &text, "Call paths", "Time", want);
}

database_tests!(comm_time_reads_in_80_columns);

/// The TinyProfiler logs that hold a report (the others say they have
/// none): what `compare` and `diff` apply to.
const LOGS_WITH_REPORTS: [&str; 11] = [
    "asyncout_24.10_np1.txt",
    "asyncout_24.10_np2.txt",
    "asyncout_24.10_np4.txt",
    "singlevortex_24.10_np1.txt",
    "singlevortex_24.10_np2.txt",
    "singlevortex_24.10_np2_nomemprof.txt",
    "singlevortex_24.10_np2_outputfile.report.txt",
    "singlevortex_24.10_np2_threshold0.txt",
    "singlevortex_24.10_np2_threshold5.txt",
    "singlevortex_24.10_np2_verbose.txt",
    "singlevortex_24.10_np4.txt",
];

/// Every shipped log is in [`LOGS_WITH_REPORTS`] or has no report.
#[test]
fn the_logs_compared_are_every_log_with_a_report() {
    let dir = crate::common::fixtures().join("tinyprofiler");
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if !name.ends_with(".txt") || name == "README.md" {
            continue;
        }
        let listed = LOGS_WITH_REPORTS.contains(&name.as_str());
        let out = crate::common::output(&["info", crate::common::s(&dir.join(&name))]);
        let no_report = String::from_utf8_lossy(&out.stderr).contains("no TinyProfiler report");
        assert!(
            listed != no_report,
            "{name}: listed {listed}, no report {no_report}"
        );
    }
}

fn compare_reads_in_80_columns(runs: &[&str], extra: &[&str]) {
    let mut args: Vec<&str> = vec!["compare"];
    args.extend_from_slice(runs);
    args.extend_from_slice(extra);
    let text = people(&args, "80");
    fits_80_without_false_zeros(&args, &text);
    let v = wire(&args);
    let n = runs.len();
    // Times of the total in 80 columns; of every timer shown with room.
    let check = |line: &str, f: &serde_json::Value| {
        let name = f["name"].as_str().unwrap();
        let shown = line_numbers(&line[name.len()..]);
        let times = f["times"].as_array().unwrap();
        let nan = shown[..n]
            .iter()
            .filter(|x| x.is_some_and(f64::is_nan))
            .count();
        assert_eq!(units(&line[name.len()..]), with_unit(times) + nan, "{line}");
        for (i, t) in times.iter().enumerate() {
            if t.is_null() {
                // `-`: not in that run; or NaN (a damaged timer tree).
                assert!(shown[i].is_none_or(|x| !x.is_finite()), "{line}");
            } else {
                shows_time(name, shown[i], t, line);
            }
        }
        assert!(shown.len() > n, "{line}");
    };
    let total = text.lines().find(|l| l.starts_with("total ")).unwrap();
    check(total, &v["total"]);
    let whole = people(&args, "0");
    let mut checked = 0;
    for f in v["functions"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        if !f["matters"].as_bool().unwrap() {
            continue;
        }
        let line = whole
            .lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with("  "))
            .unwrap_or_else(|| panic!("{name}\n{whole}"));
        check(line, f);
        checked += 1;
    }
    assert!(checked > 0, "{whole}");
    // With room, the numbers in their columns: rows end where the header
    // does.
    let (head, rows) = rows_under(&whole, "Name", "Name");
    for row in rows {
        assert_eq!(row.chars().count(), head.chars().count(), "{row}\n{whole}");
    }
}

#[test]
fn compare_reads_in_80_columns_on_every_log() {
    for family in ["singlevortex", "asyncout"] {
        let runs: Vec<String> = ["np1", "np2", "np4"]
            .iter()
            .map(|n| format!("tinyprofiler/{family}_24.10_{n}.txt"))
            .collect();
        let runs: Vec<&str> = runs.iter().map(String::as_str).collect();
        compare_reads_in_80_columns(&runs, &[]);
    }
    for log in LOGS_WITH_REPORTS {
        let log = format!("tinyprofiler/{log}");
        compare_reads_in_80_columns(
            &["tinyprofiler/singlevortex_24.10_np1.txt", &log],
            &["--weak"],
        );
    }
}

fn compare_reads_in_80_columns_on(name: &str) {
    let d = format!("blprof/{name}/bl_prof");
    let runs = ["blprof/single/bl_prof", d.as_str()];
    compare_reads_in_80_columns(&runs, &["--metric", "exclusive"]);
}

database_tests!(compare_reads_in_80_columns_on);

#[test]
fn compare_reads_in_80_columns_on_timer_trees() {
    for t in ["doc_example.json", "edge_cases.json"] {
        let t = format!("timertree/{t}");
        compare_reads_in_80_columns(&["timertree/measured_example.json", &t], &["--weak"]);
    }
}

/// A row of a diff's table read back: its path text, its A, B and B−A as
/// shown (with their units), and the text after the path.
struct DiffLine {
    path: String,
    values: [Option<f64>; 3],
    rest: String,
}

/// A diff's tables read back: per part, in order, its rows.
fn diff_rows(text: &str) -> Vec<Vec<DiffLine>> {
    let mut parts = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.contains("B−A") {
            continue;
        }
        // Columns after B−A that narrow outputs may drop.
        let after = ["Rel %", "Calls A", "Calls B"]
            .iter()
            .filter(|h| line.contains(*h))
            .count();
        let mut rows = Vec::new();
        while let Some(row) = lines.next_if(|l| !l.trim().is_empty() && !l.starts_with("Paths")) {
            let cell: String = row.chars().skip(3).collect();
            let path = cell.split("  ").next().unwrap().trim_end().to_owned();
            // The numbers after the path.
            let rest: String = cell.chars().skip(path.chars().count()).collect();
            let n = line_numbers(&rest);
            let k = n.len() - after;
            let values = [n[k - 3], n[k - 2], n[k - 1]];
            rows.push(DiffLine { path, values, rest });
        }
        parts.push(rows);
    }
    parts
}

fn diff_reads_in_80_columns(a: &str, b: &str) {
    let args = ["diff", a, b];
    let text = people(&args, "80");
    fits_80_without_false_zeros(&args, &text);
    let v = wire(&args);
    let parts: Vec<&serde_json::Value> = ["calltree", "functions"]
        .iter()
        .map(|p| &v[*p])
        .filter(|p| !p.is_null() && !p["rows"].as_array().unwrap().is_empty())
        .collect();
    let shown = diff_rows(&text);
    assert_eq!(shown.len(), parts.len(), "{args:?}\n{text}");
    for (part, rows) in parts.into_iter().zip(shown) {
        let want = part["rows"].as_array().unwrap();
        assert_eq!(want.len(), rows.len(), "{args:?}\n{text}");
        for (w, DiffLine { path, values, rest }) in want.iter().zip(&rows) {
            let keys = ["a", "b", "diff"];
            for (i, key) in keys.into_iter().enumerate() {
                shows_time(key, values[i], &w[key], rest);
            }
            let infinite = values.iter().filter(|x| x.is_some_and(|x| !x.is_finite()));
            let want_units = with_unit(keys.map(|k| &w[k])) + infinite.count();
            assert_eq!(units(rest), want_units, "{args:?} {path}: {rest}");
        }
        let paths: Vec<Vec<String>> = want.iter().map(|w| strings(&w["path"])).collect();
        let texts: Vec<&String> = rows.iter().map(|r| &r.path).collect();
        apart_as_paths(&format!("{args:?}"), &paths, &texts);
    }
    // With room, paths whole and the numbers in their columns: the rows of
    // a table end where its header does.
    let whole = people(&args, "0");
    let mut lines = whole.lines();
    while let Some(head) = lines.find(|l| l.contains("B−A")) {
        let end = head.chars().count();
        for row in lines.by_ref().take_while(|l| !l.trim().is_empty()) {
            if !row.starts_with("Paths deeper") {
                assert_eq!(row.chars().count(), end, "{args:?}: {row}\n{whole}");
            }
        }
    }
}

fn diff_reads_in_80_columns_on(name: &str) {
    let d = format!("blprof/{name}/bl_prof");
    let other = if name == "small4" { "asym4" } else { "small4" };
    diff_reads_in_80_columns(&format!("blprof/{other}/bl_prof"), &d);
}

database_tests!(diff_reads_in_80_columns_on);

#[test]
fn diff_reads_in_80_columns_on_every_log_trace_and_timer_tree() {
    for log in LOGS_WITH_REPORTS {
        let log = format!("tinyprofiler/{log}");
        diff_reads_in_80_columns("tinyprofiler/singlevortex_24.10_np1.txt", &log);
    }
    for t in ["np1.log", "edge_values.log", "np4_flush_part1.log"] {
        diff_reads_in_80_columns("tlog/np4.log", &format!("tlog/{t}"));
    }
    for t in ["doc_example.json", "edge_cases.json"] {
        diff_reads_in_80_columns("timertree/measured_example.json", &format!("timertree/{t}"));
    }
}

/// `--ranks` counts ranks: 0 is a usage error, not a division by zero.
#[test]
fn compare_refuses_zero_ranks() {
    let a = "tinyprofiler/singlevortex_24.10_np1.txt";
    let b = "tinyprofiler/singlevortex_24.10_np2.txt";
    for ranks in ["0,2", "1,0"] {
        let out = crate::common::profparse()
            .current_dir(crate::common::fixtures())
            .args(["compare", a, b, "--ranks", ranks])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{ranks}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--ranks") && err.contains("1 or more"),
            "{err}"
        );
    }
    people(&["compare", a, b, "--ranks", "1,2"], "80");
}

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
        let share = l.rsplit_once('(').unwrap().1.split(' ').next().unwrap();
        // `<0.1`: a share that is not zero but rounds to it.
        let share: f64 = share.strip_prefix('<').unwrap_or(share).parse().unwrap();
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
