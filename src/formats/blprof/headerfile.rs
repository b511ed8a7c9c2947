//! Reading one header file: text decoding, line numbering, and turning
//! unrecognised or malformed lines into capped warnings.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::header::{HeaderLine, LineError, Parsed, numbered_lines, parse_line};
use crate::error::{Location, Result, Warning, WarningKind};

/// One copy per header file of the strings its lines repeat (data file
/// names, function names, hosts): a file of many processes would otherwise
/// hold the same names once per process.
#[derive(Default)]
pub struct SharedNames<'t>(FxHashMap<&'t str, Arc<str>>);

impl<'t> SharedNames<'t> {
    /// Room for `names` names: a header file's names are mostly one per
    /// process (hosts), and grown from empty the table was rebuilt a few
    /// times per file.
    pub fn with_capacity(names: usize) -> Self {
        SharedNames(FxHashMap::with_capacity_and_hasher(names, Default::default()))
    }

    pub fn get(&mut self, s: &'t str) -> Arc<str> {
        self.0.entry(s).or_insert_with(|| Arc::from(s)).clone()
    }
}

/// The version of the headers AMReX writes (BLProfVersion,
/// CallStatsProfVersion, CommProfVersion), the layout this reader knows.
const KNOWN_VERSION: i64 = 1;

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

    /// A warning about one line.
    pub fn line(&mut self, line: usize, message: impl Into<String>) {
        self.line_warnings += 1;
        if self.line_warnings <= MAX_LINE_WARNINGS {
            self.out
                .push(Warning::new(Location::line(&self.path, line), message));
        }
    }

    /// Checks a header's version line: AMReX writes version 1 of every
    /// header, the one this reader knows. Another version is read as if it
    /// were 1, with a warning of its own kind (not capped with the lines).
    pub fn version(&mut self, line: usize, keyword: &str, version: i64) {
        if version != KNOWN_VERSION {
            self.out.push(Warning {
                kind: WarningKind::UnknownVersion,
                location: Location::line(&self.path, line),
                message: format!(
                    "{keyword} {version}: profparse reads version {KNOWN_VERSION} of this header; read as version {KNOWN_VERSION}, numbers may be wrong"
                ),
            });
        }
    }

    /// Line warnings so far, shown or not.
    pub fn count(&self) -> usize {
        self.line_warnings
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
    let bytes = crate::source::read_text_bytes(path)?;
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

/// Texts up to this long are parsed in one pass on the calling thread.
/// Parsed in parallel pieces, a text's parsed lines are held until they are
/// visited (a hundred bytes a line, in memory just mapped) and the threads
/// wait for one another: below a few megabytes that cost more CPU than the
/// pass it splits (a `bl_prof_H` of 16,384 processes, 0.9 MB, read before
/// any command: `comm barriers --proc 0` took 31.6 ms of CPU in pieces and
/// 28.9 in one pass, `summary` 14.0 and 12.3).
const ONE_PASS_UP_TO: usize = 4 << 20;

/// Longer texts (a `bl_prof_H` of 100,000 processes is 5.5 MB) are parsed
/// in parallel pieces of this size.
const PIECE: usize = 1 << 18;

/// Parses every line of `text`, calling `visit` for each recognised one with
/// its 1-based line number. Unrecognised and malformed lines and trailing
/// junk become warnings. Returns the number of recognised non-comment lines.
/// A long text's lines are parsed in parallel pieces, then visited in order.
pub fn visit_lines<'t>(
    text: &'t str,
    warn: &mut LineWarnings<'_>,
    visit: impl FnMut(usize, HeaderLine<'t>, &mut LineWarnings<'_>),
) -> usize {
    visit_lines_from(text, 1, warn, visit)
}

/// [`visit_lines`] over a part of a header file (whole lines) whose first
/// line is the file's line `first`: the numbers visited and warned about
/// are the file's, so that a reader can visit its file part by part.
pub fn visit_lines_from<'t>(
    text: &'t str,
    first: usize,
    warn: &mut LineWarnings<'_>,
    visit: impl FnMut(usize, HeaderLine<'t>, &mut LineWarnings<'_>),
) -> usize {
    visit_in_pieces(text, first.saturating_sub(1), piece_for(text.len()), warn, visit)
}

/// The pieces a text of `len` bytes is parsed in: the whole text up to
/// [`ONE_PASS_UP_TO`], [`PIECE`]s past it.
fn piece_for(len: usize) -> usize {
    if len <= ONE_PASS_UP_TO { len } else { PIECE }
}

/// [`visit_lines`] with pieces of `piece` bytes, of a text after `lines_before`
/// lines of its file.
fn visit_in_pieces<'t>(
    text: &'t str,
    lines_before: usize,
    piece: usize,
    warn: &mut LineWarnings<'_>,
    mut visit: impl FnMut(usize, HeaderLine<'t>, &mut LineWarnings<'_>),
) -> usize {
    let mut recognised = 0;
    if text.len() <= piece {
        for (n, line) in numbered_lines(text) {
            let n = lines_before + n;
            take_line(n, line, parse_line(line), warn, &mut recognised, &mut visit);
        }
        return recognised;
    }
    // A window of pieces at a time, so that the parsed lines held stay a
    // few pieces' worth whatever the text (a file of line feeds is a line
    // per byte); comment and empty lines are not held at all.
    let mut before = lines_before; // lines before the piece being visited
    let parse_piece = |piece: &'t str| {
        let mut lines = 0;
        let kept: Vec<ParsedLine<'t>> = numbered_lines(piece)
            .filter_map(|(n, line)| {
                lines = n;
                let parsed = parse_line(line);
                let comment = matches!(
                    parsed,
                    Ok(Parsed {
                        line: HeaderLine::Comment,
                        trailing: None
                    })
                );
                (!comment).then_some((n, line, parsed))
            })
            .collect();
        (lines, kept)
    };
    crate::parallel::Ordered::per_thread(2).for_each(
        line_pieces(text, piece),
        parse_piece,
        |(lines, kept)| {
            for (n, line, parsed) in kept {
                take_line(before + n, line, parsed, warn, &mut recognised, &mut visit);
            }
            before += lines;
        },
    );
    recognised
}

/// A line's number in its piece, the line, and what it parsed as.
type ParsedLine<'t> = (usize, &'t str, std::result::Result<Parsed<'t>, LineError>);

/// `text` cut after a line feed about every `size` bytes.
fn line_pieces(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while rest.len() > size {
        let cut = rest.as_bytes()[size..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| size + i + 1);
        let (piece, after) = rest.split_at(cut);
        pieces.push(piece);
        rest = after;
    }
    if !rest.is_empty() {
        pieces.push(rest);
    }
    pieces
}

/// Warns about line `n` or hands it to `visit`, as `visit_lines` says.
fn take_line<'t>(
    n: usize,
    line: &str,
    parsed: std::result::Result<Parsed<'t>, LineError>,
    warn: &mut LineWarnings<'_>,
    recognised: &mut usize,
    visit: &mut impl FnMut(usize, HeaderLine<'t>, &mut LineWarnings<'_>),
) {
    match parsed {
        Ok(parsed) => {
            if let Some(junk) = parsed.trailing {
                warn.line(
                    n,
                    format!("unexpected text after a complete line: {junk:?}"),
                );
            }
            if parsed.line != HeaderLine::Comment {
                *recognised += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A `bl_prof_H` of 16,384 processes (0.9 MB) in one pass, one of
    /// 100,000 (5.5 MB) in parallel pieces.
    #[test]
    fn long_texts_only_are_cut_into_pieces() {
        assert_eq!(piece_for(0), 0);
        assert_eq!(piece_for(900_000), 900_000);
        assert_eq!(piece_for(ONE_PASS_UP_TO), ONE_PASS_UP_TO);
        assert_eq!(piece_for(ONE_PASS_UP_TO + 1), PIECE);
        assert_eq!(piece_for(5_500_000), PIECE);
    }

    /// Every line, warning and number as one sequential pass gives them,
    /// for pieces of any size (cuts inside lines, at line feeds, a last
    /// line without one, CR LF endings, empty lines).
    #[test]
    fn pieces_visit_what_one_pass_visits() {
        let mut text = String::new();
        for i in 0..400 {
            match i % 7 {
                0 => text.push_str(&format!(
                    "BLProfProc {i} datafile bl_prof_D_00000 seekpos {i}\n"
                )),
                1 => text.push_str("phFName \"a b\"\r\n"),
                2 => text.push_str("no such line\n"),
                3 => text.push('\n'),
                4 => text.push_str("BLProfProc x datafile\n"),
                5 => text.push_str("NProcs 4 junk\n"),
                _ => text.push_str("calcEndTime 1.5\n"),
            }
        }
        text.push_str("NOutFiles 2");
        let run = |piece: usize| {
            let mut out = Vec::new();
            let mut seen = Vec::new();
            let mut warn = LineWarnings::new(Path::new("h"), &mut out);
            let n = visit_in_pieces(&text, 0, piece, &mut warn, |n, line, _| {
                seen.push(format!("{n}: {line:?}"))
            });
            warn.finish();
            let warnings: Vec<String> = out.iter().map(|w| w.to_string()).collect();
            (n, seen, warnings)
        };
        let whole = run(usize::MAX);
        assert!(whole.0 > 200 && whole.2.len() > 5, "{whole:?}");
        assert!(whole.1.last().unwrap().starts_with("401: NOutFiles"));
        for piece in [1, 7, 64, 333, 1000, text.len() - 1] {
            assert_eq!(run(piece), whole, "pieces of {piece} bytes");
        }
    }
}
