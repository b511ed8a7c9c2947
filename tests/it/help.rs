//! The help as users see it: `profparse -h`, `--help`
//! and every command's `--help` against goldens in fixtures/help/ours/
//! (`PROFPARSE_BLESS=1` rewrites them), every argument and command
//! described, and the manual page's own sections.

use std::process::Output;

use crate::common::{golden, profparse};

/// Runs profparse at a fixed width: clap wraps the help to the terminal,
/// or to COLUMNS when there is none (at most 100 columns).
fn help(args: &[&str]) -> String {
    let out: Output = profparse()
        .args(args)
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Every command path (`["comm", "stats"]`), read from the help itself:
/// the top-level groups, then each command's `Commands:` section.
fn command_paths() -> Vec<Vec<String>> {
    let top = help(&["-h"]);
    let mut todo: Vec<Vec<String>> = entries(&top, |h| h.ends_with(':') && h != "Global options:")
        .into_iter()
        .filter(|(name, _)| name != "help")
        .map(|(name, _)| vec![name])
        .collect();
    let mut all = Vec::new();
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let text = help(&args);
        for (name, _) in entries(&text, |h| h == "Commands:") {
            if name != "help" {
                let mut sub = path.clone();
                sub.push(name);
                todo.push(sub);
            }
        }
        all.push(path);
    }
    all.sort();
    all
}

/// The entries (first word of the spec, description) of the sections of a
/// short (`-h`) help whose heading `section` accepts. An entry starts two
/// columns in; its description follows two or more spaces, or sits on the
/// lines below, indented further.
fn entries(text: &str, section: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            inside = !line.is_empty() && section(line);
            continue;
        }
        if !inside {
            continue;
        }
        let spec = line.trim_start();
        let indent = line.len() - spec.len();
        // `      --long` lines up with `  -s, --long`.
        if indent == 2 || indent == 6 && spec.starts_with("--") {
            let (spec, desc) = spec.split_once("  ").unwrap_or((spec, ""));
            let name = spec.split([' ', ',']).next().unwrap().to_owned();
            out.push((name, desc.trim().to_owned()));
        } else if let Some(last) = out.last_mut() {
            last.1.push(' ');
            last.1.push_str(line.trim());
        }
    }
    out
}

#[test]
fn top_level_help_matches_its_goldens() {
    golden("help/ours/profparse-h.txt", &help(&["-h"]));
    golden("help/ours/profparse--help.txt", &help(&["--help"]));
    // `help` prints the long help, as --help does.
    assert_eq!(help(&["help"]), help(&["--help"]));
}

#[test]
fn every_command_help_matches_its_golden() {
    for path in command_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        let name = format!("help/ours/{}--help.txt", path.join("-"));
        args.push("--help");
        let long = help(&args);
        golden(&name, &long);
        // `profparse help tree merge` is `profparse tree merge --help`.
        args.pop();
        args.insert(0, "help");
        assert_eq!(help(&args), long, "{args:?}");
    }
}

#[test]
fn the_top_level_help_lists_commands_in_groups() {
    let h = help(&["-h"]);
    for heading in [
        "bl_prof reports:",
        "Communication:",
        "Exports:",
        "Comparing runs:",
        "Other inputs:",
        "Utilities:",
        "Global options:",
    ] {
        assert!(h.lines().any(|l| l == heading), "{heading}\n{h}");
    }
    assert!(!h.contains("Commands:"), "{h}");
    assert!(help(&["--help"]).contains("Examples:"));
}

#[test]
fn every_argument_option_and_command_is_described() {
    let described = |section: &str, name: &str, desc: &str, path: &[String]| {
        // Clap's `[default: …]` / `[possible values: …]` are not a description.
        assert!(
            !desc.is_empty() && !desc.starts_with('['),
            "profparse {}: {section} {name} has no description",
            path.join(" ")
        );
    };
    let top = help(&["-h"]);
    for (name, desc) in entries(&top, |h| h.ends_with(':')) {
        described("top level", &name, &desc, &[]);
    }
    for path in command_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let text = help(&args);
        for section in ["Arguments:", "Options:", "Global options:", "Commands:"] {
            for (name, desc) in entries(&text, |h| h == section) {
                described(section, &name, &desc, &path);
            }
        }
        let first = text.lines().next().unwrap_or("");
        assert!(
            !first.starts_with("Usage:"),
            "profparse {path:?} has no about"
        );
    }
}

#[test]
fn global_options_have_their_own_heading_in_every_command() {
    for path in command_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let text = help(&args);
        let globals = entries(&text, |h| h == "Global options:");
        let names: Vec<&str> = globals.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["--strict", "-q", "-v", "--force", "-j"],
            "profparse {}",
            path.join(" ")
        );
        // --keep-going belongs to `tree merge` alone.
        let keep_going = text.contains("--keep-going");
        assert_eq!(keep_going, path == ["tree", "merge"], "{path:?}");
    }
}

#[test]
fn no_help_line_is_wider_than_100_columns() {
    let mut texts = vec![help(&["-h"]), help(&["--help"])];
    for path in command_paths() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        texts.push(help(&args));
    }
    for text in texts {
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{line}");
        }
    }
}

#[test]
fn man_pages_have_exit_status_examples_and_see_also() {
    let page = help(&["man"]);
    for section in [
        ".SH \"EXIT STATUS\"",
        ".SH EXAMPLES",
        ".SH \"SEE ALSO\"",
        ".SH \"GLOBAL OPTIONS\"",
    ] {
        assert!(page.contains(section), "{section} missing");
    }
    // The codes of docs/ERRORS.md.
    let errors = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ERRORS.md"),
    )
    .unwrap();
    for code in ["0", "1", "2", "3"] {
        assert!(errors.contains(&format!("| {code} |")), "{code}");
        assert!(page.contains(&format!(".TP\n\\fB{code}\\fR\n")), "{code}");
    }
    let dir = tempfile::tempdir().unwrap();
    help(&["man", "--dir", dir.path().to_str().unwrap()]);
    let merge = std::fs::read_to_string(dir.path().join("profparse-tree-merge.1")).unwrap();
    for needle in [
        ".SH \"EXIT STATUS\"",
        "\\-\\-keep\\-going",
        "\\fBprofparse\\-tree\\fR(1)",
    ] {
        assert!(merge.contains(needle), "{needle}\n{merge}");
    }
    let comm = std::fs::read_to_string(dir.path().join("profparse-comm.1")).unwrap();
    assert!(comm.contains("profparse comm stats"), "{comm}");
    assert!(comm.contains("profparse\\-comm\\-stats"), "{comm}");
}
