//! `profparse man`: the manual pages (roff) generated from the clap
//! definition by clap_mangen, with the sections it does not write: EXIT
//! STATUS (docs/ERRORS.md), EXAMPLES (help.rs) and SEE ALSO.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::cli::args::OutputArg;
use crate::cli::help::{EXAMPLES, EXIT_CODES, Example, examples};
use crate::cli::output;

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write every page (profparse.1 and one per subcommand, e.g.
    /// profparse-calltree.1, profparse-comm-stats.1) into DIR instead.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArg,
}

pub fn run(args: &ManArgs) -> anyhow::Result<ExitCode> {
    // As clap_mangen::generate_to: built (pages named profparse-comm-stats),
    // without the `help` subcommand, which has no page.
    let mut cmd = crate::cli::args::command().disable_help_subcommand(true);
    cmd.build();
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir)
            .map_err(anyhow::Error::from)
            .and_then(|()| write_pages(&cmd, "", dir))
            .with_context(|| format!("cannot write manual pages into {}", dir.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = output::open(args.output.output.as_deref())?;
    render(&cmd, "", &mut out)?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// The page of `cmd` (at `path`, e.g. "comm stats") and of every visible
/// subcommand below it, one file each. Each goes through a temporary file
/// in `dir` renamed over the page: a symbolic link there is replaced, not
/// followed out of `dir`, and a failed page leaves the old one.
fn write_pages(cmd: &clap::Command, path: &str, dir: &Path) -> anyhow::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, &join(path, sub.get_name()), dir)?;
    }
    let file = dir.join(Man::new(cmd.clone()).get_filename());
    output::write_file(&file, |out| render(cmd, path, out))
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path} {name}")
    }
}

/// clap_mangen's page with our sections before VERSION (or at the end).
fn render(cmd: &clap::Command, path: &str, out: &mut dyn Write) -> std::io::Result<()> {
    // The examples are ours to place: clap_mangen would print the long
    // help's examples as an EXTRA section.
    let plain = cmd
        .clone()
        .after_help(None::<&str>)
        .after_long_help(None::<&str>);
    let mut page = Vec::new();
    Man::new(plain).render(&mut page)?;
    let page = String::from_utf8_lossy(&page);
    let mut roff = Roff::new();
    exit_status(&mut roff);
    examples_section(&mut roff, path);
    see_also(&mut roff, cmd, path);
    let ours = roff.render();
    // Every rendering starts with the same two-line preamble (a string
    // for apostrophes); the page has it already.
    let ours = ours.splitn(3, '\n').nth(2).unwrap_or_default();
    let at = page.find("\n.SH VERSION\n").map_or(page.len(), |i| i + 1);
    out.write_all(page[..at].as_bytes())?;
    out.write_all(ours.as_bytes())?;
    out.write_all(page[at..].as_bytes())
}

fn exit_status(roff: &mut Roff) {
    roff.control("SH", ["EXIT STATUS"]);
    for (code, what) in EXIT_CODES {
        roff.control("TP", []);
        roff.text([bold(code.to_string())]);
        roff.text([roman(*what)]);
    }
    roff.control("PP", []);
    roff.text([roman(
        "A reader that closes the output pipe early (profparse ... | head) is not an error: 0. \
         Details in docs/ERRORS.md.",
    )]);
}

/// The command's examples; for a subcommand without its own, those of
/// other commands that run it (`comm stats` in `comm`'s), else profparse's:
/// every page shows some.
fn examples_section(roff: &mut Roff, path: &str) {
    let prefix = format!("profparse {path} ");
    let mut list: Vec<Example> = examples(path).to_vec();
    if list.is_empty() {
        list = EXAMPLES
            .iter()
            .flat_map(|(_, e)| e.iter())
            .filter(|(line, _)| line.starts_with(&prefix))
            .copied()
            .collect();
    }
    if list.is_empty() {
        list = examples("").to_vec();
    }
    roff.control("SH", ["EXAMPLES"]);
    for (line, what) in list {
        roff.control("TP", []);
        roff.text([bold(line)]);
        roff.text([roman(what)]);
    }
}

/// The pages above and below this one (at `path`), and the documents.
fn see_also(roff: &mut Roff, cmd: &clap::Command, path: &str) {
    // Page names: profparse, profparse-comm, profparse-comm-stats.
    let words: Vec<&str> = path.split(' ').filter(|w| !w.is_empty()).collect();
    let page = |n: usize| {
        std::iter::once("profparse")
            .chain(words[..n].iter().copied())
            .collect::<Vec<_>>()
            .join("-")
    };
    let here = page(words.len());
    let mut pages: Vec<String> = (0..words.len()).map(page).collect();
    pages.extend(
        cmd.get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| format!("{here}-{}", s.get_name())),
    );
    roff.control("SH", ["SEE ALSO"]);
    let mut line = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let sep = if i + 1 < pages.len() { "(1), " } else { "(1)" };
        line.push(bold(page.as_str()));
        line.push(roman(sep));
    }
    if !line.is_empty() {
        roff.text(line);
    }
    roff.control("PP", []);
    roff.text([roman(
        "README.md and docs/ in the profparse sources: docs/ERRORS.md (exit codes, warnings), \
         docs/TRACES.md, docs/COMM.md, docs/DIFF.md, docs/TINYPROFILER.md, docs/JSON.md.",
    )]);
}
