//! The text header grammar of all three bl_prof header families, with nom.
//!
//! One named rule per line kind (BLPROF_FORMAT.md §4, BLPROF_REAL_DATA.md §2).
//! Lines are split on runs of blanks (space, tab, CR); a quoted name runs from
//! the first `"` to the **last** `"` on the line. Where the reference grammar
//! is stricter than the writer, we accept what the writer writes: both
//! `CallStatsProfVersion` and `CallStatsVersion`, `tagWraps`, an integer where
//! a float is expected, `nTag` in its written and its documented form, and any
//! host name after `seekpos`.

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{char, one_of};
use nom::combinator::{all_consuming, map, map_res, rest};
use nom::multi::separated_list1;
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser};

/// One recognised header line. Names borrow from the header text and are
/// given without their quotes, exactly as written (spaces kept).
#[derive(Debug, Clone, PartialEq)]
pub enum HeaderLine<'a> {
    BlProfVersion(i64),
    NProcs(i64),
    NOutFiles(i64),
    PhFName(&'a str),
    BlProfProc {
        proc: i64,
        datafile: &'a str,
        seekpos: i64,
    },
    CalcEndTime(f64),
    /// `CallStatsProfVersion` (as written) or `CallStatsVersion` (grammar).
    CallStatsVersion(i64),
    RegionName {
        name: &'a str,
        number: i64,
    },
    HeaderFile(&'a str),
    CallStatsProc {
        proc: i64,
        nrss: i64,
        ntrace: i64,
        datafile: &'a str,
        seekpos: i64,
    },
    FName {
        name: &'a str,
        number: i64,
    },
    TimeMinMax {
        min: f64,
        max: f64,
    },
    CommProfVersion(i64),
    CommStatsSize(i64),
    FinestLevel(i64),
    MaxLevel(i64),
    // The IntVects are boxed slices, not `Vec`s: these rare lines set the
    // size of every line's value, which is moved a few times per line.
    RefRatio {
        level: i64,
        ratio: Box<[i64]>,
    },
    ProbDomain {
        level: i64,
        lo: Box<[i64]>,
        hi: Box<[i64]>,
        index_type: Box<[i64]>,
    },
    CommProfProc {
        proc: i64,
        ncomm: i64,
        datafile: &'a str,
        seekpos: i64,
        /// The processor name: the rest of the line, `None` when absent.
        host: Option<&'a str>,
    },
    BNum {
        number: i64,
        name: &'a str,
        record_index: i64,
    },
    /// `nTag <nameIndex> <recordIndex>` as AMReX writes it.
    NTagIndexed {
        name_index: i64,
        record_index: i64,
    },
    /// `nTag "name" <seekpos>` as the AMReX documentation shows it.
    NTagNamed {
        name: &'a str,
        seekpos: i64,
    },
    Red {
        number: i64,
        record_index: i64,
    },
    TimerTime(f64),
    NameTagNames(&'a str),
    TagRange {
        min: i64,
        max: i64,
    },
    TagWraps(i64),
    /// Region filter file lines (amrprofparser's RegionFilters format).
    FilterInclude {
        name: &'a str,
        number: i64,
    },
    FilterExclude {
        name: &'a str,
        number: i64,
    },
    FilterPlaceholder {
        name: &'a str,
        number: i64,
    },
    IncludeAll,
    IncludeNone,
    /// `#…` or `//…`, and empty lines.
    Comment,
}

/// Why a line was not recognised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// The first token is not a keyword of any bl_prof header.
    Unknown,
    /// A keyword with fields that do not fit its rule.
    Malformed {
        keyword: &'static str,
        expected: &'static str,
    },
}

/// A recognised line, and whether text followed the complete rule (the
/// reference grammar executes the line and then complains; so do we).
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<'a> {
    pub line: HeaderLine<'a>,
    pub trailing: Option<&'a str>,
}

type Res<'a, T> = IResult<&'a str, T>;

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\r'
}

// The rules below scan bytes, not chars: a header has millions of lines,
// and every byte they test for is ASCII, so a cut where a scan stops is a
// char boundary.

fn is_blank_byte(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

/// The length of the run of bytes at the start of `i` that pass `f`.
fn span(i: &str, f: impl Fn(u8) -> bool) -> usize {
    i.bytes().position(|b| !f(b)).unwrap_or(i.len())
}

/// The first `n` bytes of `i` as the output, the rest as the remainder;
/// an error of `kind` when `n` is 0 and `at_least_one`.
fn split_span(
    i: &str,
    n: usize,
    at_least_one: bool,
    kind: nom::error::ErrorKind,
) -> Res<'_, &str> {
    if n == 0 && at_least_one {
        return Err(nom::Err::Error(nom::error::Error::new(i, kind)));
    }
    Ok((&i[n..], &i[..n]))
}

fn blank0(i: &str) -> Res<'_, &str> {
    split_span(i, span(i, is_blank_byte), false, nom::error::ErrorKind::Space)
}

fn blank1(i: &str) -> Res<'_, &str> {
    split_span(i, span(i, is_blank_byte), true, nom::error::ErrorKind::Space)
}

/// `s` without blanks at either end.
fn trim_blanks(s: &str) -> &str {
    let start = span(s, is_blank_byte);
    let end = s
        .bytes()
        .rposition(|b| !is_blank_byte(b))
        .map_or(start, |i| i + 1);
    &s[start..end.max(start)]
}

/// A whole keyword token: the keyword followed by a blank or the line end.
fn keyword<'a>(
    k: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>> {
    move |i: &'a str| {
        let (rest, t) = token(i)?;
        if t == k {
            Ok((rest, t))
        } else {
            Err(nom::Err::Error(nom::error::Error::new(
                i,
                nom::error::ErrorKind::Verify,
            )))
        }
    }
}

/// A signed decimal integer (64-bit; overflow is a parse failure).
fn integer(i: &str) -> Res<'_, i64> {
    let digits = |i| {
        let n = span(i, |b| b.is_ascii_digit() || b == b'+' || b == b'-');
        split_span(i, n, true, nom::error::ErrorKind::TakeWhile1)
    };
    map_res(digits, str::parse::<i64>).parse(i)
}

/// A float in C notation; an integer token is accepted too (the writer prints
/// integral values without a point, e.g. `-1` for "never"). The characters
/// are gathered first and the value is checked by `f64`'s own parser.
fn float(i: &str) -> Res<'_, f64> {
    let number = |i| {
        let n = span(i, |b| {
            b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E')
        });
        split_span(i, n, true, nom::error::ErrorKind::TakeWhile1)
    };
    let special = alt((tag("inf"), tag("-inf"), tag("nan")));
    map_res(alt((number, special)), str::parse::<f64>).parse(i)
}

/// A non-blank token (file names, words).
fn token(i: &str) -> Res<'_, &str> {
    split_span(
        i,
        span(i, |b| !is_blank_byte(b)),
        true,
        nom::error::ErrorKind::TakeWhile1,
    )
}

/// A quoted name: from this `"` to the last `"` on the line. Returns the text
/// between the quotes. An empty name (`""`) is accepted: AMReX writes it for
/// a barrier without a name, and dropping the line would lose the barrier.
fn quoted(i: &str) -> Res<'_, &str> {
    let (after_open, _) = char('"')(i)?;
    match after_open.rfind('"') {
        Some(close) => Ok((&after_open[close + 1..], &after_open[..close])),
        None => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Char,
        ))),
    }
}

/// `(a,b,c)` — an AMReX IntVect.
fn int_vect(i: &str) -> Res<'_, Vec<i64>> {
    delimited(
        (char('('), blank0),
        separated_list1((blank0, char(','), blank0), integer),
        (blank0, char(')')),
    )
    .parse(i)
}

/// `((lo) (hi) (type))` — an AMReX Box.
fn box_triple(i: &str) -> Res<'_, (Vec<i64>, Vec<i64>, Vec<i64>)> {
    delimited(
        (char('('), blank0),
        (
            int_vect,
            preceded(blank1, int_vect),
            preceded(blank1, int_vect),
        ),
        (blank0, char(')')),
    )
    .parse(i)
}

fn sep<'a, O>(
    p: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
) -> impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>> {
    preceded(blank1, p)
}

// The rules below get the line after its keyword: `any_line` matched it.

fn after_int(i: &str) -> Res<'_, i64> {
    sep(integer).parse(i)
}

// ---- one rule per line kind -------------------------------------------------

fn bl_prof_proc(i: &str) -> Res<'_, HeaderLine<'_>> {
    map(
        (
            sep(integer),
            preceded(sep(keyword("datafile")), sep(token)),
            preceded(sep(keyword("seekpos")), sep(integer)),
        ),
        |(proc, datafile, seekpos)| HeaderLine::BlProfProc {
            proc,
            datafile,
            seekpos,
        },
    )
    .parse(i)
}

fn call_stats_proc(i: &str) -> Res<'_, HeaderLine<'_>> {
    map(
        (
            sep(integer),
            preceded(sep(keyword("nRSS")), sep(integer)),
            preceded(sep(keyword("nTraceStats")), sep(integer)),
            preceded(sep(keyword("datafile")), sep(token)),
            preceded(sep(keyword("seekpos")), sep(integer)),
        ),
        |(proc, nrss, ntrace, datafile, seekpos)| HeaderLine::CallStatsProc {
            proc,
            nrss,
            ntrace,
            datafile,
            seekpos,
        },
    )
    .parse(i)
}

fn comm_prof_proc(i: &str) -> Res<'_, HeaderLine<'_>> {
    map(
        (
            sep(integer),
            preceded(sep(keyword("nCommStats")), sep(integer)),
            preceded(sep(keyword("datafile")), sep(token)),
            preceded(sep(keyword("seekpos")), sep(integer)),
            rest,
        ),
        |(proc, ncomm, datafile, seekpos, host): (i64, i64, &str, i64, &str)| {
            let host = trim_blanks(host);
            HeaderLine::CommProfProc {
                proc,
                ncomm,
                datafile,
                seekpos,
                host: (!host.is_empty()).then_some(host),
            }
        },
    )
    .parse(i)
}

fn name_and_number(i: &str) -> Res<'_, (&str, i64)> {
    (sep(quoted), sep(integer)).parse(i)
}

fn time_min_max(i: &str) -> Res<'_, HeaderLine<'_>> {
    map(
        (sep(float), sep(float)),
        |(min, max)| HeaderLine::TimeMinMax { min, max },
    )
    .parse(i)
}

fn ref_ratio(i: &str) -> Res<'_, HeaderLine<'_>> {
    map((sep(integer), sep(int_vect)), |(level, ratio)| {
        HeaderLine::RefRatio {
            level,
            ratio: ratio.into(),
        }
    })
    .parse(i)
}

fn prob_domain(i: &str) -> Res<'_, HeaderLine<'_>> {
    map(
        (sep(integer), sep(box_triple)),
        |(level, (lo, hi, index_type))| HeaderLine::ProbDomain {
            level,
            lo: lo.into(),
            hi: hi.into(),
            index_type: index_type.into(),
        },
    )
    .parse(i)
}

fn b_num(i: &str) -> Res<'_, HeaderLine<'_>> {
    map(
        (sep(integer), sep(quoted), sep(integer)),
        |(number, name, record_index)| HeaderLine::BNum {
            number,
            name,
            record_index,
        },
    )
    .parse(i)
}

fn n_tag(i: &str) -> Res<'_, HeaderLine<'_>> {
    alt((
            map(
                (sep(integer), sep(integer)),
                |(name_index, record_index)| HeaderLine::NTagIndexed {
                    name_index,
                    record_index,
                },
            ),
            map((sep(quoted), sep(integer)), |(name, seekpos)| {
                HeaderLine::NTagNamed { name, seekpos }
            }),
        ))
    .parse(i)
}

fn two_ints(i: &str) -> Res<'_, (i64, i64)> {
    (sep(integer), sep(integer)).parse(i)
}

fn filter_line(i: &str) -> Res<'_, HeaderLine<'_>> {
    let (rest_, sign) = one_of("+-:")(i)?;
    let (rest_, (name, number)) = (sep(quoted), sep(integer)).parse(rest_)?;
    let line = match sign {
        '+' => HeaderLine::FilterInclude { name, number },
        '-' => HeaderLine::FilterExclude { name, number },
        _ => HeaderLine::FilterPlaceholder { name, number },
    };
    Ok((rest_, line))
}

/// What a keyword's rule expects, for messages about malformed lines.
fn expectation(k: &str) -> Option<(&'static str, &'static str)> {
    Some(match k {
        "BLProfVersion" => ("BLProfVersion", "BLProfVersion <int>"),
        "NProcs" => ("NProcs", "NProcs <int>"),
        "NOutFiles" => ("NOutFiles", "NOutFiles <int>"),
        "phFName" => ("phFName", "phFName \"<name>\""),
        "BLProfProc" => (
            "BLProfProc",
            "BLProfProc <proc> datafile <file> seekpos <offset>",
        ),
        "calcEndTime" => ("calcEndTime", "calcEndTime <seconds>"),
        "CallStatsProfVersion" => ("CallStatsProfVersion", "CallStatsProfVersion <int>"),
        "CallStatsVersion" => ("CallStatsVersion", "CallStatsVersion <int>"),
        "RegionName" => ("RegionName", "RegionName \"<name>\" <number>"),
        "HeaderFile" => ("HeaderFile", "HeaderFile <file>"),
        "CallStatsProc" => (
            "CallStatsProc",
            "CallStatsProc <proc> nRSS <n> nTraceStats <n> datafile <file> seekpos <offset>",
        ),
        "fName" => ("fName", "fName \"<name>\" <number>"),
        "timeMinMax" => ("timeMinMax", "timeMinMax <min> <max>"),
        "CommProfVersion" => ("CommProfVersion", "CommProfVersion <int>"),
        "CommStatsSize" => ("CommStatsSize", "CommStatsSize <bytes>"),
        "FinestLevel" => ("FinestLevel", "FinestLevel <int>"),
        "MaxLevel" => ("MaxLevel", "MaxLevel <int>"),
        "RefRatio" => ("RefRatio", "RefRatio <level> (<i>,<j>[,<k>])"),
        "ProbDomain" => ("ProbDomain", "ProbDomain <level> ((<lo>) (<hi>) (<type>))"),
        "CommProfProc" => (
            "CommProfProc",
            "CommProfProc <proc> nCommStats <n> datafile <file> seekpos <offset> [<host>]",
        ),
        "bNum" => ("bNum", "bNum <number> \"<name>\" <record index>"),
        "nTag" => (
            "nTag",
            "nTag <name index> <record index> or nTag \"<name>\" <seekpos>",
        ),
        "red" => ("red", "red <number> <record index>"),
        "timerTime" => ("timerTime", "timerTime <seconds>"),
        "nameTagNames" => ("nameTagNames", "nameTagNames \"<name>\""),
        "tagRange" => ("tagRange", "tagRange <min> <max>"),
        "tagWraps" => ("tagWraps", "tagWraps <index>"),
        "+" | "-" | ":" => ("filter", "+|-|: \"<region name>\" <region number>"),
        _ => return None,
    })
}

/// The rule of the line's first token (every rule starts with its keyword,
/// so no other rule can match; a header has millions of lines, and trying
/// the rules in turn cost twice the parse).
fn any_line(i: &str) -> Res<'_, HeaderLine<'_>> {
    let first = &i[..span(i, |b| !is_blank_byte(b))];
    // The rules get the text after the keyword (matched here, not again).
    let r = &i[first.len()..];
    match first {
        "BLProfVersion" => map(after_int, HeaderLine::BlProfVersion).parse(r),
        "NProcs" => map(after_int, HeaderLine::NProcs).parse(r),
        "NOutFiles" => map(after_int, HeaderLine::NOutFiles).parse(r),
        "phFName" => map(sep(quoted), HeaderLine::PhFName).parse(r),
        "BLProfProc" => bl_prof_proc(r),
        "calcEndTime" => map(sep(float), HeaderLine::CalcEndTime).parse(r),
        "CallStatsProfVersion" | "CallStatsVersion" => {
            map(after_int, HeaderLine::CallStatsVersion).parse(r)
        }
        "RegionName" => map(name_and_number, |(name, number)| HeaderLine::RegionName {
            name,
            number,
        })
        .parse(r),
        "HeaderFile" => map(sep(token), HeaderLine::HeaderFile).parse(r),
        "CallStatsProc" => call_stats_proc(r),
        "fName" => map(name_and_number, |(name, number)| HeaderLine::FName {
            name,
            number,
        })
        .parse(r),
        "timeMinMax" => time_min_max(r),
        "CommProfVersion" => map(after_int, HeaderLine::CommProfVersion).parse(r),
        "CommStatsSize" => map(after_int, HeaderLine::CommStatsSize).parse(r),
        "FinestLevel" => map(after_int, HeaderLine::FinestLevel).parse(r),
        "MaxLevel" => map(after_int, HeaderLine::MaxLevel).parse(r),
        "RefRatio" => ref_ratio(r),
        "ProbDomain" => prob_domain(r),
        "CommProfProc" => comm_prof_proc(r),
        "bNum" => b_num(r),
        "nTag" => n_tag(r),
        "red" => map(two_ints, |(number, record_index)| HeaderLine::Red {
            number,
            record_index,
        })
        .parse(r),
        "timerTime" => map(sep(float), HeaderLine::TimerTime).parse(r),
        "nameTagNames" => map(sep(quoted), HeaderLine::NameTagNames).parse(r),
        "tagRange" => map(two_ints, |(min, max)| HeaderLine::TagRange { min, max }).parse(r),
        "tagWraps" => map(after_int, HeaderLine::TagWraps).parse(r),
        "__IncludeAll__" => Ok((r, HeaderLine::IncludeAll)),
        "__IncludeNone__" => Ok((r, HeaderLine::IncludeNone)),
        "+" | "-" | ":" => filter_line(i),
        _ => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Alt,
        ))),
    }
}

/// Parses one line (without its line feed).
pub fn parse_line(line: &str) -> Result<Parsed<'_>, LineError> {
    let text = trim_blanks(line);
    if text.is_empty() || text.starts_with('#') || text.starts_with("//") {
        return Ok(Parsed {
            line: HeaderLine::Comment,
            trailing: None,
        });
    }
    match any_line(text) {
        Ok((remaining, line)) => {
            let remaining = trim_blanks(remaining);
            Ok(Parsed {
                line,
                trailing: (!remaining.is_empty()).then_some(remaining),
            })
        }
        Err(_) => {
            let first = all_consuming(token)
                .parse(text)
                .map(|(_, t)| t)
                .unwrap_or_else(|_| text.split(is_blank).next().unwrap_or(text));
            match expectation(first) {
                Some((keyword, expected)) => Err(LineError::Malformed { keyword, expected }),
                None => Err(LineError::Unknown),
            }
        }
    }
}

/// Iterates the lines of a header text with 1-based line numbers. A final
/// line without a line feed is a line too (the reference mishandles it).
pub fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    Lines {
        text,
        start: 0,
        feeds: memchr::memchr_iter(b'\n', text.as_bytes()),
    }
    .enumerate()
    .map(|(i, l)| (i + 1, l))
}

/// The lines of a text as `split_terminator('\n')` gives them, cut at the
/// line feeds one vectorised search over the whole text finds: the
/// `char` search of `split_terminator`, started again at every line, was
/// a tenth of reading a header's line (a comm header has a line per 30
/// bytes).
struct Lines<'t> {
    text: &'t str,
    /// Where the next line starts.
    start: usize,
    feeds: memchr::Memchr<'t>,
}

impl<'t> Iterator for Lines<'t> {
    type Item = &'t str;
    fn next(&mut self) -> Option<&'t str> {
        let end = match self.feeds.next() {
            Some(feed) => feed,
            // The last line, when it has no line feed.
            None if self.start < self.text.len() => self.text.len(),
            None => return None,
        };
        // A line feed is ASCII, so both cuts are char boundaries.
        let line = &self.text[self.start..end];
        self.start = end + 1;
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> HeaderLine<'_> {
        let p = parse_line(line).unwrap_or_else(|e| panic!("{line:?}: {e:?}"));
        assert_eq!(p.trailing, None, "{line:?}");
        p.line
    }

    #[test]
    fn base_header_lines() {
        assert_eq!(ok("BLProfVersion 1"), HeaderLine::BlProfVersion(1));
        assert_eq!(ok("NProcs  4"), HeaderLine::NProcs(4));
        assert_eq!(ok("NOutFiles  2"), HeaderLine::NOutFiles(2));
        assert_eq!(
            ok("phFName \"Name with spaces(int, double)\""),
            HeaderLine::PhFName("Name with spaces(int, double)")
        );
        assert_eq!(
            ok("BLProfProc 1 datafile bl_prof_D_00000 seekpos 352"),
            HeaderLine::BlProfProc {
                proc: 1,
                datafile: "bl_prof_D_00000",
                seekpos: 352
            }
        );
        assert_eq!(
            ok("calcEndTime 0.06637355"),
            HeaderLine::CalcEndTime(0.06637355)
        );
        assert_eq!(ok("calcEndTime 12"), HeaderLine::CalcEndTime(12.0));
    }

    #[test]
    fn call_stats_lines() {
        assert_eq!(
            ok("CallStatsProfVersion  1"),
            HeaderLine::CallStatsVersion(1)
        );
        assert_eq!(ok("CallStatsVersion 2"), HeaderLine::CallStatsVersion(2));
        assert_eq!(
            ok("RegionName \"R::Comm\" 4"),
            HeaderLine::RegionName {
                name: "R::Comm",
                number: 4
            }
        );
        assert_eq!(
            ok("HeaderFile bl_call_stats_H_00000"),
            HeaderLine::HeaderFile("bl_call_stats_H_00000")
        );
        assert_eq!(
            ok(
                "CallStatsProc 0 nRSS 43 nTraceStats 168  datafile  bl_call_stats_D_00000  seekpos  0"
            ),
            HeaderLine::CallStatsProc {
                proc: 0,
                nrss: 43,
                ntrace: 168,
                datafile: "bl_call_stats_D_00000",
                seekpos: 0
            }
        );
        assert_eq!(
            ok("fName \"Compute::inner\" 9"),
            HeaderLine::FName {
                name: "Compute::inner",
                number: 9
            }
        );
        assert_eq!(
            ok("timeMinMax  0.00126281100000003 0.01641034400000002"),
            HeaderLine::TimeMinMax {
                min: 0.00126281100000003,
                max: 0.01641034400000002
            }
        );
        // A rank that never started a timer: the max is the integer -1.
        assert_eq!(
            ok("timeMinMax  1.797693134862316e+308 -1"),
            HeaderLine::TimeMinMax {
                // 16 digits of DBL_MAX round up past it: the value reads as +inf.
                min: f64::INFINITY,
                max: -1.0
            }
        );
    }

    #[test]
    fn comm_global_lines() {
        assert_eq!(ok("CommProfVersion  1"), HeaderLine::CommProfVersion(1));
        assert_eq!(ok("CommStatsSize  24"), HeaderLine::CommStatsSize(24));
        assert_eq!(ok("FinestLevel  -1"), HeaderLine::FinestLevel(-1));
        assert_eq!(ok("MaxLevel  2"), HeaderLine::MaxLevel(2));
        assert_eq!(
            ok("RefRatio  0  (2,2,2)"),
            HeaderLine::RefRatio {
                level: 0,
                ratio: [2, 2, 2].into()
            }
        );
        assert_eq!(
            ok("ProbDomain  1  ((0,0,0) (63,63,63) (0,0,0))"),
            HeaderLine::ProbDomain {
                level: 1,
                lo: [0, 0, 0].into(),
                hi: [63, 63, 63].into(),
                index_type: [0, 0, 0].into()
            }
        );
        assert_eq!(
            ok("ProbDomain  0  ((0,0) (31,31) (0,0))"),
            HeaderLine::ProbDomain {
                level: 0,
                lo: [0, 0].into(),
                hi: [31, 31].into(),
                index_type: [0, 0].into()
            }
        );
    }

    #[test]
    fn comm_proc_line_with_any_host_name() {
        for (host, expect) in [
            ("  vm", Some("vm")),
            ("  nid001234", Some("nid001234")),
            ("  cn-12.hpc.local", Some("cn-12.hpc.local")),
            ("  NoProcName", Some("NoProcName")),
            ("  node-3", Some("node-3")),
            ("  12node", Some("12node")),
            ("", None),
        ] {
            let line = format!(
                "CommProfProc  0  nCommStats  961  datafile  bl_comm_prof_D_00000  seekpos  0{host}"
            );
            assert_eq!(
                ok(&line),
                HeaderLine::CommProfProc {
                    proc: 0,
                    ncomm: 961,
                    datafile: "bl_comm_prof_D_00000",
                    seekpos: 0,
                    host: expect
                }
            );
        }
    }

    #[test]
    fn comm_block_lines() {
        assert_eq!(
            ok("bNum  0 \"Init::barrier\" 3"),
            HeaderLine::BNum {
                number: 0,
                name: "Init::barrier",
                record_index: 3
            }
        );
        assert_eq!(
            ok("bNum  7 \"\" 12"),
            HeaderLine::BNum {
                number: 7,
                name: "",
                record_index: 12
            }
        );
        assert_eq!(
            ok("nTag  3 52"),
            HeaderLine::NTagIndexed {
                name_index: 3,
                record_index: 52
            }
        );
        assert_eq!(
            ok("nTag \"STEP 1\" 4096"),
            HeaderLine::NTagNamed {
                name: "STEP 1",
                seekpos: 4096
            }
        );
        assert_eq!(
            ok("red 2 17"),
            HeaderLine::Red {
                number: 2,
                record_index: 17
            }
        );
        assert_eq!(
            ok("timerTime  2.136699999949476e-08"),
            HeaderLine::TimerTime(2.136699999949476e-08)
        );
        assert_eq!(
            ok("nameTagNames  \"STEP 0\""),
            HeaderLine::NameTagNames("STEP 0")
        );
        assert_eq!(
            ok("tagRange  1000 2147483647"),
            HeaderLine::TagRange {
                min: 1000,
                max: 2147483647
            }
        );
        assert_eq!(ok("tagWraps  3"), HeaderLine::TagWraps(3));
        assert_eq!(
            ok("timeMinMax  0.0  0.0"),
            HeaderLine::TimeMinMax { min: 0.0, max: 0.0 }
        );
    }

    #[test]
    fn filter_lines_and_comments() {
        assert_eq!(
            ok("+ \"R::Compute\" 3"),
            HeaderLine::FilterInclude {
                name: "R::Compute",
                number: 3
            }
        );
        assert_eq!(
            ok("- \"R::Comm\" 4"),
            HeaderLine::FilterExclude {
                name: "R::Comm",
                number: 4
            }
        );
        assert_eq!(
            ok(": \"R::Init\" 1"),
            HeaderLine::FilterPlaceholder {
                name: "R::Init",
                number: 1
            }
        );
        assert_eq!(ok("__IncludeAll__"), HeaderLine::IncludeAll);
        assert_eq!(ok("__IncludeNone__"), HeaderLine::IncludeNone);
        assert_eq!(ok("//__IncludeNone__"), HeaderLine::Comment);
        assert_eq!(ok("# pound comment"), HeaderLine::Comment);
        assert_eq!(ok(""), HeaderLine::Comment);
        assert_eq!(ok("   \r"), HeaderLine::Comment);
    }

    #[test]
    fn quoted_name_runs_to_the_last_quote() {
        assert_eq!(
            ok("fName \"operator\"\"_x(a \"b\")\" 4"),
            HeaderLine::FName {
                name: "operator\"\"_x(a \"b\")",
                number: 4
            }
        );
    }

    #[test]
    fn trailing_text_is_reported_but_the_line_counts() {
        let p = parse_line("NProcs  4 junk here").unwrap();
        assert_eq!(p.line, HeaderLine::NProcs(4));
        assert_eq!(p.trailing, Some("junk here"));
    }

    #[test]
    fn malformed_and_unknown_lines() {
        assert_eq!(
            parse_line("NProcs  four"),
            Err(LineError::Malformed {
                keyword: "NProcs",
                expected: "NProcs <int>"
            })
        );
        assert!(matches!(
            parse_line("BLProfProc 0 datafile bl_prof_D_00000"),
            Err(LineError::Malformed {
                keyword: "BLProfProc",
                ..
            })
        ));
        assert!(matches!(
            parse_line("NProcs 99999999999999999999999"),
            Err(LineError::Malformed { .. })
        ));
        assert_eq!(parse_line("Hello world"), Err(LineError::Unknown));
        assert_eq!(parse_line("\u{0}\u{1}garbage"), Err(LineError::Unknown));
        // Keywords are whole tokens.
        assert_eq!(parse_line("NProcsX 4"), Err(LineError::Unknown));
    }

    #[test]
    fn integers_and_floats() {
        assert_eq!(integer("-12 x"), Ok((" x", -12)));
        assert_eq!(integer("+7"), Ok(("", 7)));
        assert!(integer("x").is_err());
        assert_eq!(float("1.5e-3"), Ok(("", 1.5e-3)));
        assert_eq!(float(".5"), Ok(("", 0.5)));
        assert_eq!(float("5."), Ok(("", 5.0)));
        assert_eq!(float("-1"), Ok(("", -1.0)));
        assert_eq!(float("0.1877807460000000"), Ok(("", 0.187780746)));
    }

    #[test]
    fn lines_are_numbered_from_one() {
        let v: Vec<_> = numbered_lines("a\nb\n\nc").collect();
        assert_eq!(v, vec![(1, "a"), (2, "b"), (3, ""), (4, "c")]);
    }

    /// The lines `split_terminator('\n')` gives, for texts with and
    /// without a last line feed, empty lines, CR LF and non-ASCII text.
    #[test]
    fn lines_are_those_of_split_terminator() {
        for text in [
            "", "\n", "\n\n", "a", "a\n", "a\n\n", "\na", "a\nb", "a\r\nb\r\n", "é\nü\n\nß",
        ] {
            let ours: Vec<&str> = numbered_lines(text).map(|(_, l)| l).collect();
            let split: Vec<&str> = text.split_terminator('\n').collect();
            assert_eq!(ours, split, "{text:?}");
        }
    }
}
