//! AMReX TinyProfiler reports (`TINY_PROFILE=TRUE`), read from job logs.
//!
//! A report is what rank 0 prints at the end of a run
//! (docs/TINYPROFILER.md): the total-time line, the exclusive and
//! inclusive timer tables, region sections and memory sections. A log may
//! hold application output before it, several runs one after another, or
//! be the file `tiny_profiler.output_file` wrote. [`parse`] finds every
//! report; the context of each (AMReX version, ranks) comes from the lines
//! its run printed at start-up.

mod checks;
mod lines;
mod memory;
mod timers;

use std::path::Path;

use lines::{Line, Lines, invalid};

use crate::error::{Error, Result};
use crate::model::tinyprofiler::{Log, Region, Report, Spread};
use crate::source::InputFile;

/// The start of every report's first line.
pub const TOTAL_MARKER: &[u8] = b"TinyProfiler total time across processes";

/// The first line every AMReX program prints.
pub const AMREX_MARKER: &[u8] = b"Initializing AMReX (";

/// Reads every report of the log at `path`.
pub fn read(path: &Path) -> Result<Log> {
    let file = InputFile::open(path)?;
    parse(path, file.bytes())
}

/// Whether `bytes` (a whole file) look like an AMReX job log or a
/// TinyProfiler report: text holding a total-time line or AMReX's
/// start-up line. `head` is the file's start: a NUL byte there means a
/// binary file, which is not searched.
pub fn recognise(head: &[u8], bytes: &[u8]) -> bool {
    if head.contains(&0) {
        return false;
    }
    memchr::memmem::find(bytes, TOTAL_MARKER).is_some()
        || memchr::memmem::find(bytes, AMREX_MARKER).is_some()
}

/// What the lines of the current run said before its report.
#[derive(Default, Clone)]
struct Session {
    version: Option<String>,
    nprocs: Option<u64>,
    /// The log shows the run's `Initializing AMReX (` line.
    started: bool,
}

/// Every report in `bytes`, the log at `path` (named in errors). A log
/// without a report is [`Error::NoTinyProfilerReport`]; a report that
/// breaks off or holds a line that does not belong is an error at that line.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Log> {
    let mut lines = Lines::new(bytes);
    let mut session = Session::default();
    let mut amrex_runs = 0usize;
    let mut reports = Vec::new();
    while let Some((number, raw)) = lines.next_raw() {
        let t = raw.trim_ascii_start();
        if t.starts_with(TOTAL_MARKER) {
            let text = String::from_utf8_lossy(t);
            reports.push(read_report(&mut lines, path, number, &text, &session)?);
        } else if let Some(rest) = t.strip_prefix(b"MPI initialized with ") {
            let rest = String::from_utf8_lossy(rest);
            if let Some(n) = rest
                .trim_end()
                .strip_suffix("MPI processes")
                .and_then(|n| n.trim().parse::<u64>().ok())
            {
                checks::ranks(path, number, n)?;
                session.nprocs = Some(n);
            }
        } else if let Some(rest) = t.strip_prefix(AMREX_MARKER) {
            amrex_runs += 1;
            let rest = String::from_utf8_lossy(rest);
            session = Session {
                version: rest.split_once(')').map(|(v, _)| v.to_owned()),
                nprocs: None,
                started: true,
            };
        }
    }
    if reports.is_empty() {
        return Err(Error::NoTinyProfilerReport {
            path: path.to_owned(),
            amrex_runs,
        });
    }
    Ok(Log { reports })
}

/// `TinyProfiler total time across processes [min...avg...max]: a ... b ... c`.
fn parse_total(text: &str) -> Option<Spread<f64>> {
    let (_, numbers) = text.split_once("]:")?;
    let mut it = numbers.split("...").map(|n| n.trim().parse::<f64>());
    let (min, avg, max) = (it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?);
    it.next().is_none().then_some(Spread { min, avg, max })
}

/// The report whose total-time line (`text`, line `number`) was just read.
fn read_report(
    lines: &mut Lines,
    path: &Path,
    number: usize,
    text: &str,
    session: &Session,
) -> Result<Report> {
    let total = parse_total(text).ok_or_else(|| {
        invalid(
            path,
            number,
            "the total-time line has no '[min...avg...max]: MIN ... AVG ... MAX'",
        )
    })?;
    checks::times(path, number, "total time", total)?;
    let tables = timers::read_tables(lines, path)?;
    let mut regions: Vec<Region> = Vec::new();
    let mut memory: Vec<crate::model::tinyprofiler::MemoryTable> = Vec::new();
    while let Some(next) = lines.skip_blank() {
        let t = next.text.trim();
        if let Some(name) = t.strip_prefix("BEGIN REGION") {
            let name = name.trim().to_owned();
            if regions.iter().any(|r| r.name == name) {
                return Err(invalid(
                    path,
                    next.number,
                    format!("a second section of region {name} in one report"),
                ));
            }
            lines.next_raw();
            let tables = timers::read_tables(lines, path)?;
            end_region(lines, path, &name)?;
            regions.push(Region { name, tables });
        } else if t.starts_with("END REGION") {
            // Its BEGIN and tables are lost: what follows would be read as
            // the end of the report, and the sections after it vanish.
            return Err(invalid(
                path,
                next.number,
                format!("{t} without its BEGIN REGION"),
            ));
        } else if memory::title(&next).is_some() && second_is_rule(lines) {
            let section = memory::read_section(lines, path)?;
            if memory.iter().any(|m| m.arena == section.arena) {
                return Err(invalid(
                    path,
                    next.number,
                    format!("a second {} memory section in one report", section.arena),
                ));
            }
            memory.push(section);
        } else if let Some(section) = after_noise(lines) {
            *lines = section;
        } else {
            if let Some(stray) = stray_section(lines) {
                return Err(invalid(
                    path,
                    stray.number,
                    format!(
                        "{} after the end of the report of line {number}: a section without its start (BEGIN REGION or a title missing?)",
                        stray.text.trim()
                    ),
                ));
            }
            break;
        }
    }
    // The MPI line; else the memory tables' layout; else a run that shows
    // AMReX's start-up without an MPI line is a build without MPI.
    let nprocs = session.nprocs.or_else(|| {
        if memory.iter().any(|m| !m.one_rank) {
            None
        } else if !memory.is_empty() || session.started {
            Some(1)
        } else {
            None
        }
    });
    Ok(Report {
        line: number,
        amrex_version: session.version.clone(),
        nprocs,
        total,
        tables,
        regions,
        memory,
    })
}

/// Lines printed by other ranks may slip in between the report's sections:
/// up to [`MAX_NOISE`] lines that start nothing are passed over when a
/// region or memory section follows them (the cursor at that section).
fn after_noise<'a>(lines: &Lines<'a>) -> Option<Lines<'a>> {
    let mut ahead = lines.clone();
    let mut noise = 0;
    while noise <= MAX_NOISE {
        let next = ahead.skip_blank()?;
        let t = next.text.trim();
        if t.starts_with("BEGIN REGION")
            || t.starts_with("END REGION")
            || (memory::title(&next).is_some() && second_is_rule(&ahead))
        {
            return (noise > 0).then_some(ahead);
        }
        let bytes = t.as_bytes();
        if bytes.starts_with(TOTAL_MARKER)
            || bytes.starts_with(AMREX_MARKER)
            || t.starts_with("AMReX (")
        {
            return None;
        }
        ahead.next_raw();
        noise += 1;
    }
    None
}

/// The first line, before the next run or report, that only a report
/// prints inside its sections (a region marker or a timer table header):
/// such a line after the report's end means a section lost its start, and
/// reading on would drop the sections after it without a word.
fn stray_section<'a>(lines: &Lines<'a>) -> Option<Line<'a>> {
    let mut ahead = lines.clone();
    while let Some(line) = ahead.next_line() {
        let t = line.text.trim();
        let bytes = t.as_bytes();
        if bytes.starts_with(TOTAL_MARKER) || bytes.starts_with(AMREX_MARKER) {
            return None;
        }
        if t.starts_with("BEGIN REGION") || t.starts_with("END REGION") || timers::is_header(&line)
        {
            return Some(line);
        }
    }
    None
}

/// Lines of other output passed over between sections of a report.
const MAX_NOISE: usize = 4;

/// Whether the line after the next one is a rule.
fn second_is_rule(lines: &Lines) -> bool {
    let mut ahead = lines.clone();
    ahead.next_raw();
    ahead.peek().is_some_and(|l: Line| l.is_rule())
}

/// Expects `END REGION <name>` after blank lines.
fn end_region(lines: &mut Lines, path: &Path, name: &str) -> Result<()> {
    let Some(line) = lines.skip_blank() else {
        return Err(invalid(
            path,
            lines.number(),
            format!("the log ends before END REGION {name}"),
        ));
    };
    match line.text.trim().strip_prefix("END REGION") {
        Some(n) if n.trim() == name => {
            lines.next_raw();
            Ok(())
        }
        _ => Err(invalid(
            path,
            line.number,
            format!("expected END REGION {name}"),
        )),
    }
}

#[cfg(test)]
mod tests;
