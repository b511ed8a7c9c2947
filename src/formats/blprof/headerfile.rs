//! Reading one header file: text decoding, line numbering, and turning
//! unrecognised or malformed lines into capped warnings.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::header::{HeaderLine, LineError, numbered_lines, parse_line};
use crate::error::{Error, Location, Result, Warning};

/// One copy per header file of the strings its lines repeat (data file
/// names, function names, hosts): a file of many processes would otherwise
/// hold the same names once per process.
#[derive(Default)]
pub struct SharedNames<'t>(FxHashMap<&'t str, Arc<str>>);

impl<'t> SharedNames<'t> {
    pub fn get(&mut self, s: &'t str) -> Arc<str> {
        self.0.entry(s).or_insert_with(|| Arc::from(s)).clone()
    }
}

/// At most this many line warnings per header file; the rest are counted.
const MAX_LINE_WARNINGS: usize = 20;

/// Collects the warnings of one header file, capping the line-level ones so
/// that a binary file given as a header does not print a million lines.
pub struct LineWarnings<'w> {
    path: PathBuf,
    out: &'w mut Vec<Warning>,
    line_warnings: usize,
}

impl<'w> LineWarnings<'w> {
    pub fn new(path: &Path, out: &'w mut Vec<Warning>) -> Self {
        LineWarnings {
            path: path.to_path_buf(),
            out,
            line_warnings: 0,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A warning about one line.
    pub fn line(&mut self, line: usize, message: impl Into<String>) {
        self.line_warnings += 1;
        if self.line_warnings <= MAX_LINE_WARNINGS {
            self.out
                .push(Warning::new(Location::line(&self.path, line), message));
        }
    }

    /// A warning about the whole file.
    pub fn file(&mut self, message: impl Into<String>) {
        self.out
            .push(Warning::new(Location::file(&self.path), message));
    }

    pub fn finish(self) {
        if self.line_warnings > MAX_LINE_WARNINGS {
            self.out.push(Warning::new(
                Location::file(&self.path),
                format!(
                    "{} more line warnings not shown",
                    self.line_warnings - MAX_LINE_WARNINGS
                ),
            ));
        }
    }
}

/// Reads a header file as text. Non-UTF-8 bytes (a damaged or wrong file)
/// are replaced and reported rather than refused.
pub fn read_text(path: &Path, warnings: &mut Vec<Warning>) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            warnings.push(Warning::new(
                Location::offset(path, e.utf8_error().valid_up_to() as u64),
                "header is not valid UTF-8 text; invalid bytes replaced",
            ));
            Ok(String::from_utf8_lossy(e.as_bytes()).into_owned())
        }
    }
}

/// Parses every line of `text`, calling `visit` for each recognised one with
/// its 1-based line number. Unrecognised and malformed lines and trailing
/// junk become warnings. Returns the number of recognised non-comment lines.
pub fn visit_lines<'t>(
    text: &'t str,
    warn: &mut LineWarnings<'_>,
    mut visit: impl FnMut(usize, HeaderLine<'t>, &mut LineWarnings<'_>),
) -> usize {
    let mut recognised = 0;
    for (n, line) in numbered_lines(text) {
        match parse_line(line) {
            Ok(parsed) => {
                if let Some(junk) = parsed.trailing {
                    warn.line(
                        n,
                        format!("unexpected text after a complete line: {junk:?}"),
                    );
                }
                if parsed.line != HeaderLine::Comment {
                    recognised += 1;
                    visit(n, parsed.line, warn);
                }
            }
            Err(LineError::Malformed { keyword, expected }) => {
                warn.line(
                    n,
                    format!(
                        "malformed {keyword} line (expected `{expected}`): {}",
                        shorten(line)
                    ),
                );
            }
            Err(LineError::Unknown) => {
                warn.line(n, format!("unrecognised line ignored: {}", shorten(line)));
            }
        }
    }
    recognised
}

/// A line as shown in a message: at most 80 characters.
fn shorten(line: &str) -> String {
    let mut s: String = line.chars().take(80).collect();
    if s.len() < line.len() {
        s.push('…');
    }
    format!("{s:?}")
}

/// A count or offset that must not be negative.
pub fn non_negative(value: i64, what: &str) -> std::result::Result<u64, String> {
    u64::try_from(value).map_err(|_| format!("{what} is negative ({value})"))
}

/// A process number, checked against NProcs when known.
pub fn proc_number(value: i64, nprocs: Option<u64>) -> std::result::Result<usize, String> {
    let p = u64::try_from(value).map_err(|_| format!("process number {value} is negative"))?;
    if let Some(n) = nprocs
        && p >= n
    {
        return Err(format!("process number {p} is not below NProcs ({n})"));
    }
    usize::try_from(p).map_err(|_| format!("process number {p} is too large"))
}
