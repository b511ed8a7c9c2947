//! The parts of the help clap has no words for: the top-level commands
//! listed in groups, and examples in the long help (`--help`) of the main
//! commands. The man pages (commands/man.rs) show the same examples.

use std::fmt::Write as _;

use clap::Command;
use clap::builder::styling::Style;

/// The top-level commands by what they read or do. Clap lists subcommands
/// in one block, so the top-level help template lists these groups instead
/// (a unit test checks that every visible command is in exactly one).
pub const GROUPS: &[(&str, &[&str])] = &[
    (
        "bl_prof reports",
        &[
            "info",
            "summary",
            "trace-summary",
            "regions",
            "calltree",
            "calltrace",
            "check",
        ],
    ),
    ("Communication", &["comm"]),
    ("Exports", &["export", "report"]),
    ("Comparing runs", &["diff", "regress", "history", "compare"]),
    ("Other inputs", &["tlog", "tree"]),
    ("Utilities", &["completions", "man", "help"]),
];

/// One example: a command line and what it answers.
pub type Example = (&'static str, &'static str);

/// Examples per command path ("" is profparse itself). `bl_prof` stands
/// for a database directory, as a run writes it; a unit test parses every
/// line.
pub const EXAMPLES: &[(&str, &[Example])] = &[
    (
        "",
        &[
            (
                "profparse summary run/bl_prof",
                "Where did the time go: per function, over processes",
            ),
            (
                "profparse report run/bl_prof -o report.html",
                "Everything about a run on one HTML page",
            ),
            (
                "profparse calltree run/bl_prof --depth 3",
                "The call-path tree, three levels deep",
            ),
            (
                "profparse diff before/bl_prof after/bl_prof",
                "What changed between two runs",
            ),
            (
                "profparse summary job.log",
                "The TinyProfiler report of an AMReX job log",
            ),
        ],
    ),
    (
        "info",
        &[("profparse info run/bl_prof", "What the database holds")],
    ),
    (
        "summary",
        &[
            (
                "profparse summary run/bl_prof --sort avg --top 10",
                "The ten functions with the largest average time",
            ),
            (
                "profparse summary run/bl_prof --sort imbalance --wide",
                "The least balanced first, with the processes holding Min and Max",
            ),
            (
                "profparse summary run/bl_prof --format csv -o functions.csv",
                "The table for a spreadsheet",
            ),
            (
                "profparse summary job.log --memory",
                "The memory tables of a TinyProfiler report",
            ),
        ],
    ),
    (
        "trace-summary",
        &[(
            "profparse trace-summary run/bl_prof --include-region 'Advance*'",
            "Function times inside the regions named Advance…",
        )],
    ),
    (
        "regions",
        &[(
            "profparse regions run/bl_prof --write-filter-file filters",
            "Time per region, and a filter file to edit for --filter-file",
        )],
    ),
    (
        "calltree",
        &[
            (
                "profparse calltree run/bl_prof --depth 3 --min-percent 1",
                "Three levels, branches under 1 % of the time hidden",
            ),
            (
                "profparse calltree run/bl_prof --bottom-up --top 5",
                "Who calls the most expensive functions",
            ),
            (
                "profparse calltree run/bl_prof --focus 'FillBoundary*'",
                "Callers and callees of the matching functions",
            ),
            (
                "profparse calltree run/bl_prof --format folded > stacks.txt",
                "Folded stacks for flame graphs (flamegraph.pl, inferno)",
            ),
        ],
    ),
    (
        "calltrace",
        &[(
            "profparse calltrace run/bl_prof --proc 3 | less",
            "Process 3's calls in the order they happened",
        )],
    ),
    (
        "check",
        &[(
            "profparse check run/bl_prof && echo intact",
            "Exit code 0 when every part of the database is sound",
        )],
    ),
    (
        "comm",
        &[
            (
                "profparse comm stats run/bl_prof",
                "Calls and bytes per MPI function",
            ),
            (
                "profparse comm time run/bl_prof",
                "Time in MPI per call type, process and call path",
            ),
            (
                "profparse comm matrix run/bl_prof --svg matrix.svg",
                "Who sends to whom, also as a heat map",
            ),
            (
                "profparse comm barriers run/bl_prof --proc 0",
                "Barrier waits of process 0",
            ),
        ],
    ),
    (
        "diff",
        &[
            (
                "profparse diff before/bl_prof after/bl_prof --top 20",
                "The 20 call paths whose time changed most",
            ),
            (
                "profparse diff a.json b.json --sort rel --format json",
                "Two timer trees, largest relative change first, as JSON",
            ),
        ],
    ),
    (
        "regress",
        &[
            (
                "profparse regress --base main-runs/*.log --new pr-runs/*.log",
                "Did the pull request make any timer slower? Exit 1 if so",
            ),
            (
                "profparse regress --base a*/bl_prof --new b*/bl_prof --paths --format markdown",
                "Per call path, as a comment for the pull request",
            ),
        ],
    ),
    (
        "history",
        &[
            (
                "profparse history nightly/ --svg history.svg",
                "The steps in every timer over the nightly runs, and a chart",
            ),
            (
                "profparse history runs/*.log --format json",
                "Every timer's series and change points as JSON",
            ),
        ],
    ),
    (
        "compare",
        &[(
            "profparse compare np1.log np2.log np4.log --svg scaling.svg",
            "Speedup and efficiency of one job on 1, 2 and 4 ranks",
        )],
    ),
    (
        "export",
        &[
            (
                "profparse export run/bl_prof --chrome trace.json --time 10,12",
                "Two seconds of the run for ui.perfetto.dev",
            ),
            (
                "profparse export run/bl_prof --parquet tables",
                "Call, region and comm records for DuckDB or Spark",
            ),
        ],
    ),
    (
        "report",
        &[
            (
                "profparse report run/bl_prof -o report.html",
                "One HTML page to open in a browser (no network needed)",
            ),
            (
                "profparse report nightly/ -o history.html",
                "The series and steps of the top timers over the nightly runs",
            ),
        ],
    ),
    (
        "tlog",
        &[
            (
                "profparse tlog summary trace.log",
                "Intervals per process and event kind",
            ),
            (
                "profparse tlog export trace.log --chrome trace.json",
                "The trace for ui.perfetto.dev",
            ),
        ],
    ),
    (
        "tree",
        &[
            ("profparse tree show timers.json", "One timer tree"),
            (
                "profparse tree merge --keep-going rank*.json",
                "The trees of all ranks merged, unreadable files skipped",
            ),
        ],
    ),
];

/// Examples of the command at `path` ("" for profparse, "tree merge").
pub fn examples(path: &str) -> &'static [Example] {
    EXAMPLES
        .iter()
        .find(|(p, _)| *p == path)
        .map_or(&[], |(_, e)| e)
}

/// `cmd` (profparse's definition) with the grouped command list in its
/// help and the examples in the long help of each command that has some.
pub fn layout(cmd: Command) -> Command {
    let template = top_template(&cmd);
    let header = *cmd.get_styles().get_header();
    let long = format!(
        "{}\n{}",
        examples_text(header, examples("")),
        exit_codes_text(header)
    );
    let cmd = cmd
        .help_template(template)
        .after_help(
            "'profparse help <COMMAND>' or 'profparse <COMMAND> --help': a command's options \
             and examples.",
        )
        .after_long_help(long);
    // Not `mut_subcommand`, which moves the command to the end of the list.
    cmd.mut_subcommands(|sub| match examples(sub.get_name()) {
        [] => sub,
        list => sub.after_long_help(examples_text(header, list)),
    })
}

/// The exit codes of docs/ERRORS.md, for the long help.
pub const EXIT_CODES: &[(u8, &str)] = &[
    (0, "Success: the report was produced from clean input."),
    (
        1,
        "Damaged data that leaves nothing to report, a failed check, or any warning with --strict.",
    ),
    (
        2,
        "A usage error, unreadable input, or an output over 2 GiB by estimate without --force.",
    ),
    (
        3,
        "A report from damaged or suspicious input: the warnings on stderr say where.",
    ),
];

/// The top-level template: clap's default with the command list replaced
/// by [`GROUPS`] (each command's short about, aligned as clap aligns them).
fn top_template(cmd: &Command) -> String {
    let styles = cmd.get_styles();
    let (header, literal) = (styles.get_header(), styles.get_literal());
    let width = GROUPS
        .iter()
        .flat_map(|(_, names)| names.iter())
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    let mut groups = String::new();
    for (title, names) in GROUPS {
        let _ = writeln!(groups, "{header}{title}:{header:#}");
        for name in *names {
            let about = match cmd.find_subcommand(name).and_then(|c| c.get_about()) {
                Some(about) => about.to_string(),
                // clap adds `help` only when it builds the command.
                None => "This help, or a command's (profparse help tree merge)".to_string(),
            };
            let _ = writeln!(groups, "  {literal}{name:width$}{literal:#}  {about}");
        }
        groups.push('\n');
    }
    format!(
        "{{before-help}}{{about-with-newline}}\n\
         {{usage-heading}} {{usage}}\n\n\
         {groups}\
         {header}Global options:{header:#}\n\
         {{options}}{{after-help}}"
    )
}

/// "Examples:" and one comment and command line per example.
fn examples_text(header: Style, list: &[Example]) -> String {
    let mut text = format!("{header}Examples:{header:#}\n");
    for (line, what) in list {
        let _ = writeln!(text, "  # {what}\n  {line}");
    }
    text
}

fn exit_codes_text(header: Style) -> String {
    let mut text = format!("{header}Exit codes (docs/ERRORS.md):{header:#}\n");
    for (code, what) in EXIT_CODES {
        let _ = writeln!(text, "  {code}  {what}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_visible_command_is_in_one_group() {
        let mut cmd = crate::cli::args::command();
        cmd.build();
        let grouped: Vec<&str> = GROUPS.iter().flat_map(|(_, n)| n.iter().copied()).collect();
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let n = grouped.iter().filter(|g| **g == sub.get_name()).count();
            assert_eq!(n, 1, "{} is in {n} groups", sub.get_name());
        }
        for name in grouped {
            assert!(cmd.find_subcommand(name).is_some(), "{name}");
        }
    }

    #[test]
    fn every_example_parses() {
        for (path, list) in EXAMPLES {
            for (line, _) in *list {
                let words: Vec<&str> = line
                    .split(' ')
                    .take_while(|w| !["|", ">", "&&"].contains(w))
                    .map(|w| w.trim_matches('\''))
                    .collect();
                let parsed = crate::cli::args::command().try_get_matches_from(&words);
                assert!(parsed.is_ok(), "{line}: {parsed:?}");
                let mut names = words[1..].iter().take_while(|w| !w.contains(['/', '.']));
                assert!(
                    path.split(' ')
                        .all(|p| p.is_empty() || names.next() == Some(&p)),
                    "{line} is not an example of {path:?}"
                );
            }
        }
    }
}
