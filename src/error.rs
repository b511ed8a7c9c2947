//! The library's error and warning types.
//!
//! Every error says *where* (file, line or byte offset) and *what*. Warnings are
//! collected instead of printed so that the binary decides how to show them and
//! whether `--strict` turns them into errors.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::formats::blprof::Part;

/// Where in the input something was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Location {
    /// A whole file or directory.
    File {
        /// The file or directory.
        path: PathBuf,
    },
    /// A 1-based line of a text file.
    Line {
        /// The file.
        path: PathBuf,
        /// Its line, counted from 1.
        line: usize,
    },
    /// A byte offset in a binary file.
    Offset {
        /// The file.
        path: PathBuf,
        /// Bytes from the start of the file.
        offset: u64,
    },
}

impl Location {
    pub(crate) fn file(path: impl AsRef<Path>) -> Self {
        Location::File {
            path: path.as_ref().to_path_buf(),
        }
    }
    pub(crate) fn line(path: impl AsRef<Path>, line: usize) -> Self {
        Location::Line {
            path: path.as_ref().to_path_buf(),
            line,
        }
    }
    pub(crate) fn offset(path: impl AsRef<Path>, offset: u64) -> Self {
        Location::Offset {
            path: path.as_ref().to_path_buf(),
            offset,
        }
    }

    /// The file it is in.
    pub fn path(&self) -> &Path {
        match self {
            Location::File { path }
            | Location::Line { path, .. }
            | Location::Offset { path, .. } => path,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File { path } => write!(f, "{}", path.display()),
            Location::Line { path, line } => write!(f, "{}:{line}", path.display()),
            Location::Offset { path, offset } => {
                write!(f, "{}: byte offset {offset}", path.display())
            }
        }
    }
}

/// What went wrong, and where.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be opened or read.
    /// (The I/O error is part of the message, not a separate cause, so that
    /// it is printed once.)
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        // Not named `source`: that would make it the error's cause too,
        // and `{:#}` would print it twice.
        error: std::io::Error,
    },
    /// A path that is not a bl_prof database directory.
    #[error("{}: {}", path.display(), not_a_database_text(*why, advice))]
    NotADatabase {
        /// The path given.
        path: PathBuf,
        /// Why it is not one.
        why: NotADatabase,
        /// What to do instead, judged by what the path holds.
        advice: Option<String>,
    },
    /// The database lacks a part the report needs.
    #[error("{}: the database has no {} ({}){}", path.display(), part.name(), part.global_header(), part_hint(*part))]
    MissingPart {
        /// The database directory.
        path: PathBuf,
        /// The part it lacks.
        part: Part,
    },
    /// A header file without a single line of its kind.
    #[error("{}: not a bl_prof {kind} header: no {lacking}", path.display())]
    NotAHeader {
        /// The header file.
        path: PathBuf,
        /// `base`, `call-stats`, `comm`.
        kind: &'static str,
        /// The lines looked for.
        lacking: &'static str,
    },
    /// A block that its header places (partly) beyond the end of its file.
    #[error("{location}: {block} runs past the end of the file ({file_len} bytes)")]
    PastEnd {
        /// The block's first byte.
        location: Location,
        /// The block as the header describes it (process, records, header line).
        block: String,
        /// Where the block would end.
        end: u64,
        /// The file's length in bytes.
        file_len: u64,
    },
    /// A text log (a job's output) without a TinyProfiler report.
    #[error("{}: {}", path.display(), no_report_text(*amrex_runs))]
    NoTinyProfilerReport {
        /// The log.
        path: PathBuf,
        /// The runs whose start (`Initializing AMReX (…)`) the log shows.
        amrex_runs: usize,
    },
    /// A line or token of a text input that does not parse as its format
    /// says (a timer-tree file, a region filter, an event-names file).
    #[error("{location}: {message}")]
    Syntax {
        /// Where in the input.
        location: Location,
        /// What was found there, and what was expected.
        message: String,
    },
    /// A file or block larger than its reader takes, or a record count that
    /// no file can hold: nothing is allocated for it.
    #[error("{location}: {message}")]
    Oversized {
        /// Where in the input.
        location: Location,
        /// What was found there, and what was expected.
        message: String,
    },
    /// A file of another kind than the command reads (a text file given to
    /// a tlog command, say).
    #[error("{location}: {message}")]
    WrongKind {
        /// Where in the input.
        location: Location,
        /// What was found there, and what was expected.
        message: String,
    },
    /// An input in which nothing at all could be read (every block or every
    /// file damaged), after the warnings about each.
    #[error("{location}: {message}")]
    NothingReadable {
        /// Where in the input.
        location: Location,
        /// What was found there, and what was expected.
        message: String,
    },
    /// A data file name that leaves the database directory (a directory in
    /// the name, a symbolic link pointing outside): not opened.
    #[error("{location}: {message}")]
    OutsideDatabase {
        /// Where in the input.
        location: Location,
        /// What was found there, and what was expected.
        message: String,
    },
    /// Any other damage: the input is not what it claims to be.
    #[error("{location}: {message}")]
    Invalid {
        /// Where in the input.
        location: Location,
        /// What was found there, and what was expected.
        message: String,
    },
    /// A requested process, region or item does not exist.
    #[error("{0}")]
    NotFound(String),
    /// `--strict` was given and warnings were issued.
    #[error("{count} warning(s) and --strict was given")]
    Strict {
        /// The warnings issued.
        count: usize,
    },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            error: source,
        }
    }
    pub(crate) fn syntax(location: Location, message: impl Into<String>) -> Self {
        Error::Syntax {
            location,
            message: message.into(),
        }
    }
    pub(crate) fn oversized(location: Location, message: impl Into<String>) -> Self {
        Error::Oversized {
            location,
            message: message.into(),
        }
    }
    pub(crate) fn wrong_kind(location: Location, message: impl Into<String>) -> Self {
        Error::WrongKind {
            location,
            message: message.into(),
        }
    }
    pub(crate) fn nothing_readable(location: Location, message: impl Into<String>) -> Self {
        Error::NothingReadable {
            location,
            message: message.into(),
        }
    }
    pub(crate) fn invalid(location: Location, message: impl Into<String>) -> Self {
        Error::Invalid {
            location,
            message: message.into(),
        }
    }
    /// True when the input was read and found damaged or malformed, and the
    /// error names where (a block reader's failure becomes a warning).
    pub fn is_damage(&self) -> bool {
        matches!(
            self,
            Error::Invalid { .. }
                | Error::PastEnd { .. }
                | Error::Syntax { .. }
                | Error::Oversized { .. }
        )
    }

    /// True when the input could not be read at all (missing file, not a
    /// database), as opposed to data that was read and found damaged.
    pub fn is_unreadable_input(&self) -> bool {
        matches!(
            self,
            Error::Io { .. }
                | Error::NotFound(_)
                | Error::NotADatabase { .. }
                | Error::MissingPart { .. }
        )
    }

    /// What went wrong without where: the text after the location (for
    /// a warning that states its location apart), or the whole message of
    /// an error that names no location.
    pub fn message(&self) -> String {
        match self {
            Error::Io { error, .. } => error.to_string(),
            Error::NotADatabase { why, advice, .. } => not_a_database_text(*why, advice),
            Error::MissingPart { part, .. } => format!(
                "the database has no {} ({}){}",
                part.name(),
                part.global_header(),
                part_hint(*part)
            ),
            Error::NotAHeader { kind, lacking, .. } => {
                format!("not a bl_prof {kind} header: no {lacking}")
            }
            Error::PastEnd {
                block, file_len, ..
            } => format!("{block} runs past the end of the file ({file_len} bytes)"),
            Error::Invalid { message, .. }
            | Error::Syntax { message, .. }
            | Error::Oversized { message, .. }
            | Error::WrongKind { message, .. }
            | Error::NothingReadable { message, .. }
            | Error::OutsideDatabase { message, .. } => message.clone(),
            Error::NoTinyProfilerReport { amrex_runs, .. } => no_report_text(*amrex_runs),
            Error::NotFound(_) | Error::Strict { .. } => self.to_string(),
        }
    }

    /// The location the error names, when it names one.
    pub fn location(&self) -> Option<Location> {
        match self {
            Error::Io { path, .. }
            | Error::NotADatabase { path, .. }
            | Error::MissingPart { path, .. }
            | Error::NotAHeader { path, .. }
            | Error::NoTinyProfilerReport { path, .. } => Some(Location::file(path)),
            Error::PastEnd { location, .. }
            | Error::Invalid { location, .. }
            | Error::Syntax { location, .. }
            | Error::Oversized { location, .. }
            | Error::WrongKind { location, .. }
            | Error::NothingReadable { location, .. }
            | Error::OutsideDatabase { location, .. } => Some(location.clone()),
            Error::NotFound(_) | Error::Strict { .. } => None,
        }
    }
}

/// Why a path is not a bl_prof database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotADatabase {
    /// A file, where the database is a directory.
    NotADirectory,
    /// A directory with none of the global headers.
    NoHeaders,
}

impl NotADatabase {
    fn text(self) -> &'static str {
        match self {
            NotADatabase::NotADirectory => "not a directory (give the bl_prof database directory)",
            NotADatabase::NoHeaders => {
                "not a bl_prof database (none of bl_prof_H, bl_call_stats_H, bl_comm_prof_H found)"
            }
        }
    }
}

fn not_a_database_text(why: NotADatabase, advice: &Option<String>) -> String {
    match advice {
        Some(a) => format!("{}; {a}", why.text()),
        None => why.text().to_owned(),
    }
}

/// What a run needs to write a part the database lacks.
fn part_hint(part: Part) -> &'static str {
    match part {
        Part::Base => "",
        Part::Trace => "; the run needs TRACE_PROFILE=TRUE",
        Part::Comm => "; the run needs COMM_PROFILE=TRUE",
    }
}

/// Why a log has no TinyProfiler report, as far as it shows.
fn no_report_text(amrex_runs: usize) -> String {
    if amrex_runs == 0 {
        "no TinyProfiler report (no 'TinyProfiler total time across processes' line)".to_owned()
    } else {
        format!(
            "no TinyProfiler report: AMReX started {amrex_runs} time(s) in this log but printed none \
             (TinyProfiler off with tiny_profiler.enabled=0, a build without TINY_PROFILE=TRUE, \
             or the report written to tiny_profiler.output_file)"
        )
    }
}

/// A result whose error is the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Something suspicious that did not stop the work.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Warning {
    /// What kind of thing it reports: damage or a known quirk of healthy data.
    #[serde(skip)]
    pub kind: WarningKind,
    /// Where in the input.
    pub location: Location,
    /// What was found, and what was done about it.
    pub message: String,
}

/// What a [`Warning`] reports, so that callers can count, sort and keep
/// them apart without reading their text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum WarningKind {
    /// Damaged, missing or inconsistent data, left out or read in part.
    #[default]
    Damage,
    /// A data block that could not be read (or only in part), one per
    /// process and block: damage that repeats by the thousand when a shared
    /// data file is cut short, so it is shown a few times and then counted.
    SkippedBlock,
    /// A header version other than the one the reader knows: the data is
    /// read by the known layout, and may be misread.
    UnknownVersion,
    /// Something a healthy run writes that the reader works around, as stock
    /// AMReX's region stops without a start: worth knowing, not a sign of
    /// damage (a note: the exit code stays 0).
    WriterQuirk,
}

impl WarningKind {
    /// Whether it is a note (shown, but the run counts as clean).
    pub fn is_note(self) -> bool {
        self == WarningKind::WriterQuirk
    }
}

/// Warnings [`Warning::listed`] shows one by one.
pub const LISTED_WARNINGS: usize = 10;

impl Warning {
    /// A warning about damaged or inconsistent data.
    pub(crate) fn new(location: Location, message: impl Into<String>) -> Self {
        Warning {
            kind: WarningKind::Damage,
            location,
            message: message.into(),
        }
    }

    /// A warning about a data block that could not be read.
    pub(crate) fn skipped_block(location: Location, message: impl Into<String>) -> Self {
        Warning {
            kind: WarningKind::SkippedBlock,
            location,
            message: message.into(),
        }
    }

    /// A note about a known quirk of healthy data.
    pub(crate) fn note(location: Location, message: impl Into<String>) -> Self {
        Warning {
            kind: WarningKind::WriterQuirk,
            location,
            message: message.into(),
        }
    }

    /// Whether it is a note about healthy data ([`WarningKind::is_note`]).
    pub fn is_note(&self) -> bool {
        self.kind.is_note()
    }

    /// A warning per item for the first [`LISTED_WARNINGS`] items of
    /// `items`, then one from `rest(count)` for the others: one problem
    /// repeated over every node of a damaged tree is a few lines, not
    /// thousands.
    pub(crate) fn listed<T>(
        items: impl IntoIterator<Item = T>,
        each: impl Fn(T) -> Warning,
        rest: impl FnOnce(usize) -> Warning,
    ) -> Vec<Warning> {
        let mut items = items.into_iter();
        let mut out: Vec<Warning> = items.by_ref().take(LISTED_WARNINGS).map(each).collect();
        let more = items.count();
        if more > 0 {
            out.push(rest(more));
        }
        out
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl From<Warning> for Error {
    fn from(w: Warning) -> Self {
        Error::Invalid {
            location: w.location,
            message: w.message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_warnings_stop_at_ten_and_count_the_rest() {
        let at = Location::file(std::path::Path::new("f"));
        let w = |n: usize| {
            Warning::listed(
                0..n,
                |i| Warning::new(at.clone(), format!("item {i}")),
                |more| Warning::new(at.clone(), format!("{more} more")),
            )
        };
        assert_eq!(w(3).len(), 3);
        assert_eq!(w(LISTED_WARNINGS).len(), LISTED_WARNINGS);
        let many = w(25);
        assert_eq!(many.len(), LISTED_WARNINGS + 1);
        assert_eq!(many[9].message, "item 9");
        assert_eq!(many[10].message, "15 more");
    }
}
