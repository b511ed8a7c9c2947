//! Call-trace headers: `bl_call_stats_H` (regions, per-file header list) and
//! the `bl_call_stats_H_nnnnn` stanzas (one per process per trace write).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::base::line_kind;
use super::files::{Part, file_number};
use super::header::HeaderLine;
use super::headerfile::{
    LineWarnings, SharedNames, non_negative, proc_number, visit_lines, visit_lines_from,
};
use crate::error::{Error, Result, Warning};

/// A region as named in `bl_call_stats_H` (rank 0's numbering).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RegionName {
    pub name: String,
    pub number: i64,
}

/// The parsed `bl_call_stats_H`.
#[derive(Debug, Clone, Default)]
pub struct CallStatsHeader {
    pub path: PathBuf,
    pub version: Option<i64>,
    pub nprocs: Option<u64>,
    pub nout_files: Option<i64>,
    pub regions: Vec<RegionName>,
    /// Per-file header names, deduplicated, in order of appearance.
    pub header_files: Vec<String>,
}

impl CallStatsHeader {
    pub fn parse(text: &str, path: &Path, warnings: &mut Vec<Warning>) -> Result<Self> {
        let mut h = CallStatsHeader {
            path: path.to_path_buf(),
            ..Default::default()
        };
        let mut warn = LineWarnings::new(path, warnings);
        let mut relevant = 0usize;
        visit_lines(text, &mut warn, |n, line, warn| {
            relevant += 1;
            match line {
                HeaderLine::CallStatsVersion(v) => {
                    warn.version(n, "CallStatsProfVersion", v);
                    h.version = Some(v)
                }
                HeaderLine::NProcs(p) => match non_negative(p, "NProcs") {
                    Ok(p) => h.nprocs = Some(p),
                    Err(m) => warn.line(n, m),
                },
                HeaderLine::NOutFiles(f) => h.nout_files = Some(f),
                HeaderLine::RegionName { name, number } => h.regions.push(RegionName {
                    name: name.to_owned(),
                    number,
                }),
                HeaderLine::HeaderFile(f) => {
                    push_header_file(&mut h.header_files, f, Part::Trace, n, warn)
                }
                other => {
                    relevant -= 1;
                    warn.line(
                        n,
                        format!(
                            "{} line does not belong in bl_call_stats_H; ignored",
                            line_kind(&other)
                        ),
                    );
                }
            }
        });
        warn.finish();
        dedup_header_files(&mut h.header_files);
        if relevant == 0 {
            return Err(Error::NotAHeader {
                path: path.to_owned(),
                kind: "call-stats",
                lacking: "recognised line",
            });
        }
        Ok(h)
    }
}

/// Adds a `HeaderFile` name after checking it names a per-file header of
/// `part` (no directories: a header must not send us outside the database).
pub(crate) fn push_header_file(
    list: &mut Vec<String>,
    name: &str,
    part: Part,
    line: usize,
    warn: &mut LineWarnings<'_>,
) {
    let prefix = part.file_header_prefix().unwrap_or_default();
    if file_number(name, prefix).is_none() {
        warn.line(
            line,
            format!("HeaderFile {name:?} is not {prefix}<digits>; ignored"),
        );
    } else {
        list.push(name.to_owned());
    }
}

/// Drops repeated `HeaderFile` names, the first kept (a hash set: a header
/// may list 100,000 files).
pub(crate) fn dedup_header_files(list: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::with_capacity(list.len());
    list.retain(|name| seen.insert(name.clone()));
}

/// One trace block: `nrss` region records then `ntrace` call records
/// (the first a sentinel) at `seekpos` of `datafile`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TraceBlockRef {
    pub proc: usize,
    pub nrss: u64,
    pub ntrace: u64,
    /// Shared by the blocks of a header file that name it.
    pub datafile: Arc<str>,
    pub seekpos: u64,
    /// Cumulative min and max call *start* time on this process so far
    /// (BLPROF_REAL_DATA.md §7); `None` when absent or `… -1` (never started).
    pub time_min_max: Option<(f64, f64)>,
    /// The per-file header (shared by its blocks) and the line of its
    /// `CallStatsProc`.
    pub header: Arc<Path>,
    pub line: usize,
}

/// Function names of one process: rank-local number → name, as the union of
/// all its stanzas (each stanza repeats the names known so far).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FunctionTable {
    /// `(local number, name)`, sorted by number, numbers unique. Shared by
    /// the processes of a header file that name the same functions (every
    /// process mostly does), not a copy per process: thousands of copies
    /// were thousands of allocations kept to the end.
    pub entries: Arc<[(i64, Arc<str>)]>,
}

impl FunctionTable {
    pub fn name(&self, number: i64) -> Option<&str> {
        self.entries
            .binary_search_by_key(&number, |(n, _)| *n)
            .ok()
            .map(|i| &*self.entries[i].1)
    }

    /// Whether `other` is this table (a copy of it): the tables of
    /// processes that name the same functions are one table.
    pub(crate) fn same_as(&self, other: &FunctionTable) -> bool {
        Arc::ptr_eq(&self.entries, &other.entries)
            || (self.entries.is_empty() && other.entries.is_empty())
    }

    /// Whether the table holds exactly `entries` (in order).
    fn holds<'a>(&self, entries: impl ExactSizeIterator<Item = (i64, &'a str)>) -> bool {
        self.entries.len() == entries.len()
            && self
                .entries
                .iter()
                .zip(entries)
                .all(|((n, name), (m, other))| *n == m && **name == *other)
    }
}

/// The `fName` lines of the stanza being read that its process's table
/// lacks, and the table finished last: a process whose table ends equal to
/// it shares it (no list nor name copies per process).
#[derive(Default)]
struct StanzaFunctions<'t> {
    /// `(number, name)` sorted by number (a buffer kept from stanza to
    /// stanza).
    new: Vec<(i64, &'t str)>,
    before: FunctionTable,
}

impl<'t> StanzaFunctions<'t> {
    /// Adds `name` with `number` unless `table` (the process's earlier
    /// stanzas) or this stanza knows the number; a different name for a
    /// known number is a conflict that the caller reports.
    fn insert(
        &mut self,
        table: &FunctionTable,
        number: i64,
        name: &'t str,
    ) -> std::result::Result<(), String> {
        let known = match table.name(number) {
            Some(known) => known,
            None => match self.new.binary_search_by_key(&number, |(n, _)| *n) {
                Ok(i) => self.new[i].1,
                Err(i) => {
                    self.new.insert(i, (number, name));
                    return Ok(());
                }
            },
        };
        if known == name {
            Ok(())
        } else {
            Err(format!(
                "function number {number} is {name:?} here but {known:?} in an earlier stanza of this process"
            ))
        }
    }

    /// Adds the stanza's new names to its process's `table` (its copies of
    /// the names from `names`); the next stanza starts empty.
    fn finish(&mut self, table: &mut FunctionTable, names: &mut SharedNames<'t>) {
        if !self.new.is_empty() {
            *table = if table.entries.is_empty() && self.before.holds(self.new.iter().copied()) {
                self.before.clone()
            } else {
                // The numbers of the two are disjoint (`insert`).
                let mut entries: Vec<(i64, Arc<str>)> = table
                    .entries
                    .iter()
                    .cloned()
                    .chain(self.new.iter().map(|&(n, name)| (n, names.get(name))))
                    .collect();
                entries.sort_unstable_by_key(|(n, _)| *n);
                if self.before.holds(entries.iter().map(|(n, name)| (*n, &**name))) {
                    self.before.clone()
                } else {
                    FunctionTable {
                        entries: entries.into(),
                    }
                }
            };
            self.new.clear();
        }
        self.before = table.clone();
    }
}

/// Everything one `bl_call_stats_H_nnnnn` file says.
#[derive(Debug, Clone, Default)]
pub struct CallStatsFile {
    /// Blocks in file order.
    pub blocks: Vec<TraceBlockRef>,
    /// Function tables of the processes in this file: `(proc, table)`.
    pub functions: Vec<(usize, FunctionTable)>,
}

impl CallStatsFile {
    pub fn parse(
        text: &str,
        path: &Path,
        nprocs: Option<u64>,
        warnings: &mut Vec<Warning>,
    ) -> Self {
        let mut warn = LineWarnings::new(path, warnings);
        let mut reader = FileReader {
            file: CallStatsFile::default(),
            header: Arc::from(path),
            nprocs,
            names: SharedNames::default(),
            current: None,
            block_open: false,
            table_of_proc: rustc_hash::FxHashMap::default(),
            stanza: StanzaFunctions::default(),
        };
        read_lines(text, &mut reader, &mut warn);
        if let Some(i) = reader.current {
            reader
                .stanza
                .finish(&mut reader.file.functions[i].1, &mut reader.names);
        }
        warn.finish();
        reader.file
    }
}

/// What the lines of a call-stats file read so far made.
struct FileReader<'t> {
    file: CallStatsFile,
    header: Arc<Path>,
    nprocs: Option<u64>,
    names: SharedNames<'t>,
    /// Index into `file.functions` of the process of the current stanza.
    current: Option<usize>,
    /// Whether the current block is valid (lines after a rejected
    /// CallStatsProc belong to nothing).
    block_open: bool,
    table_of_proc: rustc_hash::FxHashMap<usize, usize>,
    stanza: StanzaFunctions<'t>,
}

impl<'t> FileReader<'t> {
    /// Takes line `n`.
    fn line(&mut self, n: usize, line: HeaderLine<'t>, warn: &mut LineWarnings<'_>) {
        let f = &mut self.file;
        match line {
            HeaderLine::CallStatsProc {
                proc,
                nrss,
                ntrace,
                datafile,
                seekpos,
            } => {
                if let Some(i) = self.current {
                    self.stanza.finish(&mut f.functions[i].1, &mut self.names);
                }
                self.block_open = false;
                self.current = None;
                let names = &mut self.names;
                let header = &self.header;
                let checked = proc_number(proc, self.nprocs).and_then(|proc| {
                    let nrss = non_negative(nrss, "nRSS")?;
                    let ntrace = non_negative(ntrace, "nTraceStats")?;
                    let seekpos = non_negative(seekpos, "seekpos")?;
                    if file_number(datafile, Part::Trace.data_prefix()).is_none() {
                        return Err(format!(
                            "data file name {datafile:?} is not bl_call_stats_D_<digits>"
                        ));
                    }
                    Ok(TraceBlockRef {
                        proc,
                        nrss,
                        ntrace,
                        datafile: names.get(datafile),
                        seekpos,
                        time_min_max: None,
                        header: header.clone(),
                        line: n,
                    })
                });
                match checked {
                    Ok(b) => {
                        let idx = *self.table_of_proc.entry(b.proc).or_insert_with(|| {
                            f.functions.push((b.proc, FunctionTable::default()));
                            f.functions.len() - 1
                        });
                        self.current = Some(idx);
                        self.block_open = true;
                        f.blocks.push(b);
                    }
                    Err(m) => warn.line(n, format!("{m}; block ignored")),
                }
            }
            HeaderLine::FName { name, number } => match self.current {
                Some(i) => {
                    if number < 0 {
                        warn.line(n, format!("negative function number {number}; ignored"));
                    } else if let Err(m) = self.stanza.insert(&f.functions[i].1, number, name) {
                        warn.line(n, m);
                    }
                }
                None => warn.line(n, "fName line outside a CallStatsProc stanza; ignored"),
            },
            HeaderLine::TimeMinMax { min, max } => match (self.block_open, f.blocks.last_mut()) {
                (true, Some(b)) => {
                    // `1.797…e+308 -1` means the process never started a timer.
                    b.time_min_max =
                        (min.is_finite() && max >= 0.0 && min <= max).then_some((min, max));
                }
                _ => warn.line(n, "timeMinMax line outside a CallStatsProc stanza; ignored"),
            },
            other => warn.line(
                n,
                format!(
                    "{} line does not belong in a call-stats file header; ignored",
                    line_kind(&other)
                ),
            ),
        }
    }

    /// The table of the current stanza's process while the stanza has no
    /// name of its own yet: what an `fName` line's effect depends on.
    fn fresh_stanza_table(&self) -> Option<FunctionTable> {
        let i = self.current?;
        self.stanza
            .new
            .is_empty()
            .then(|| self.file.functions[i].1.clone())
    }
}

/// A run of `fName` lines read at the start of a stanza without warnings,
/// the table of the stanza's process then, and the names the run added:
/// what the same text makes of a stanza of a process with the same table.
struct ReadRun<'t> {
    text: &'t str,
    table: FunctionTable,
    new: Vec<(i64, &'t str)>,
}

/// Visits the lines of `text` with `reader`, except a run of `fName` lines
/// equal to the last run read, at the start of a stanza of a process with
/// the same table: its names are taken from that run, unparsed. Every
/// process of a file mostly names the same functions, so the runs repeat
/// (16,384 processes: 230,000 of the 250,000 lines of their headers).
fn read_lines<'t>(text: &'t str, reader: &mut FileReader<'t>, warn: &mut LineWarnings<'_>) {
    let bytes = text.as_bytes();
    // Bytes and lines visited, and the line start being looked at.
    let (mut visited, mut visited_lines) = (0, 0);
    let (mut at, mut lines) = (0, 0);
    let mut last: Option<ReadRun<'t>> = None;
    while at < text.len() {
        let (len, run_lines) = fname_run(&bytes[at..]);
        if run_lines == 0 {
            match memchr::memchr(b'\n', &bytes[at..]) {
                Some(i) => (at, lines) = (at + i + 1, lines + 1),
                None => break,
            }
            continue;
        }
        let run = &text[at..at + len];
        visit_lines_from(&text[visited..at], visited_lines + 1, warn, |n, l, w| {
            reader.line(n, l, w)
        });
        let table = reader.fresh_stanza_table();
        match (&last, &table) {
            (Some(r), Some(t)) if r.text == run && r.table.same_as(t) => {
                reader.stanza.new.clone_from(&r.new);
            }
            _ => {
                let before = warn.count();
                visit_lines_from(run, lines + 1, warn, |n, l, w| reader.line(n, l, w));
                if let Some(table) = table.filter(|_| warn.count() == before) {
                    let new = reader.stanza.new.clone();
                    last = Some(ReadRun {
                        text: run,
                        table,
                        new,
                    });
                }
            }
        }
        (at, lines) = (at + len, lines + run_lines);
        (visited, visited_lines) = (at, lines);
    }
    visit_lines_from(&text[visited..], visited_lines + 1, warn, |n, l, w| {
        reader.line(n, l, w)
    });
}

/// The bytes and number of the lines at the start of `bytes` that begin
/// with `fName` and end with a line feed.
fn fname_run(bytes: &[u8]) -> (usize, usize) {
    let (mut len, mut lines) = (0, 0);
    while bytes[len..].starts_with(b"fName") {
        match memchr::memchr(b'\n', &bytes[len..]) {
            Some(i) => (len, lines) = (len + i + 1, lines + 1),
            None => break,
        }
    }
    (len, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_header() {
        let text = "CallStatsProfVersion  1\nNProcs  4\nNOutFiles  4\nRegionName \"R::Comm\" 4\n\
RegionName \"__NoRegion__\" 0\nHeaderFile bl_call_stats_H_00000\nHeaderFile bl_call_stats_H_00001\n\
HeaderFile bl_call_stats_H_00000\nHeaderFile ../x\n";
        let mut w = Vec::new();
        let h = CallStatsHeader::parse(text, Path::new("bl_call_stats_H"), &mut w).unwrap();
        assert_eq!(h.version, Some(1));
        assert_eq!(h.nprocs, Some(4));
        assert_eq!(h.regions.len(), 2);
        assert_eq!(
            h.header_files,
            vec!["bl_call_stats_H_00000", "bl_call_stats_H_00001"]
        );
        assert_eq!(w.len(), 1);
        assert!(w[0].to_string().contains(":9"));
    }

    #[test]
    fn stanzas_with_flushes() {
        let text = "CallStatsProc 0 nRSS 25 nTraceStats 104  datafile  bl_call_stats_D_00000  seekpos  0\n\
fName \"main()\" 2\nfName \"a\" 0\ntimeMinMax  0.5 1.5\n\
CallStatsProc 1 nRSS 25 nTraceStats 112  datafile  bl_call_stats_D_00000  seekpos  4560\n\
fName \"b\" 0\ntimeMinMax  1.797693134862316e+308 -1\n\
CallStatsProc 0 nRSS 20 nTraceStats 89  datafile  bl_call_stats_D_00000  seekpos  9440\n\
fName \"main()\" 2\nfName \"a\" 0\nfName \"late\" 3\ntimeMinMax  0.5 2.5\n";
        let mut w = Vec::new();
        let f = CallStatsFile::parse(text, Path::new("bl_call_stats_H_00000"), Some(2), &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(f.blocks.len(), 3);
        assert_eq!(f.blocks[2].seekpos, 9440);
        assert_eq!(f.blocks[0].time_min_max, Some((0.5, 1.5)));
        assert_eq!(f.blocks[1].time_min_max, None);
        let t0 = &f.functions.iter().find(|(p, _)| *p == 0).unwrap().1;
        assert_eq!(t0.entries.len(), 3);
        assert_eq!(t0.name(3), Some("late"));
        assert_eq!(t0.name(1), None);
    }

    /// Processes naming the same functions share one table, also when
    /// their later stanzas add names in turn; a process naming others has
    /// its own.
    #[test]
    fn equal_tables_are_one_table() {
        let stanza = |proc: usize, names: &str| {
            let mut s = format!(
                "CallStatsProc {proc} nRSS 0 nTraceStats 1  datafile  bl_call_stats_D_00000  seekpos  0\n"
            );
            for (n, name) in names.split(' ').enumerate() {
                s.push_str(&format!("fName \"{name}\" {n}\n"));
            }
            s
        };
        let text = [
            stanza(0, "a b"),
            stanza(1, "a b"),
            stanza(2, "a c"),
            stanza(0, "a b d"),
            stanza(1, "a b d"),
        ]
        .concat();
        let mut w = Vec::new();
        let f = CallStatsFile::parse(&text, Path::new("h"), None, &mut w);
        assert!(w.is_empty(), "{w:?}");
        let table = |p: usize| &f.functions.iter().find(|(q, _)| *q == p).unwrap().1;
        assert!(Arc::ptr_eq(&table(0).entries, &table(1).entries));
        assert_eq!(table(1).name(2), Some("d"));
        assert_eq!(table(2).name(1), Some("c"));
        assert_eq!(table(2).entries.len(), 2);
        let first = [stanza(0, "a b"), stanza(1, "a b")].concat();
        let f = CallStatsFile::parse(&first, Path::new("h"), None, &mut w);
        assert!(Arc::ptr_eq(&f.functions[0].1.entries, &f.functions[1].1.entries));
    }

    /// Runs of `fName` lines taken from an equal run read before are what
    /// parsing them gives: the same blocks, tables and warnings (line
    /// numbers too). The reference text is the same but for the blanks
    /// after each `fName`, which differ per stanza: no run repeats there.
    #[test]
    fn repeated_runs_read_as_parsed() {
        let text = |distinct: bool| {
            let mut t = String::new();
            // (process, its run of names with their numbers, lines after).
            let stanzas: [(usize, &str, &str); 13] = [
                (0, "a0 b1 c2", ""),
                (1, "a0 b1 c2", ""),
                (2, "a0 b1 c2", ""),
                // A conflict in the run: a warning, so never taken unparsed.
                (3, "a0 b1 x1", ""),
                (4, "a0 b1 x1", ""),
                (5, "a0 b1 c2", "fName \"d\" 3\n"),
                (6, "a0 b1 c2", ""),
                // Later stanzas: tables no longer empty, 5's unlike 0's.
                (0, "a0 b1 c2 d3", ""),
                (1, "a0 b1 c2 d3", ""),
                (5, "a0 b1 c2 d3", ""),
                (2, "a0 b1 c2 d3", "# a comment\n"),
                (6, "a0 b1 c2 d3", "fName \"a\" 0 junk\n"),
                (9, "a0 b1 c2 d3", ""),
            ];
            for (k, (proc, run, after)) in stanzas.into_iter().enumerate() {
                t.push_str(&format!(
                    "CallStatsProc {proc} nRSS 0 nTraceStats 1  datafile  bl_call_stats_D_00000  seekpos  {k}\n"
                ));
                for name in run.split(' ') {
                    let blanks = " ".repeat(if distinct { k + 1 } else { 1 });
                    let (name, n) = name.split_at(1);
                    t.push_str(&format!("fName{blanks}\"{name}\" {n}\n"));
                }
                t.push_str(&format!("timeMinMax  0.5 {k}.5\n{after}"));
            }
            t.push_str("fName \"a\" 0");
            t
        };
        let read = |text: &str| {
            let mut w = Vec::new();
            let f = CallStatsFile::parse(text, Path::new("h"), Some(8), &mut w);
            let tables: Vec<(usize, Vec<(i64, String)>)> = f
                .functions
                .iter()
                .map(|(p, t)| (*p, t.entries.iter().map(|(n, s)| (*n, s.to_string())).collect()))
                .collect();
            let w: Vec<String> = w.iter().map(|w| w.to_string()).collect();
            (f.blocks, tables, w)
        };
        let (taken, parsed) = (read(&text(false)), read(&text(true)));
        assert_eq!(taken.0.len(), 12);
        assert!(taken.2.len() >= 5, "{:?}", taken.2);
        assert_eq!(taken, parsed);
        let p5 = &taken.1.iter().find(|(p, _)| *p == 5).unwrap().1;
        assert_eq!(p5.len(), 4);
    }

    #[test]
    fn conflicts_and_orphans_are_warnings() {
        let text = "fName \"x\" 1\nCallStatsProc 0 nRSS 1 nTraceStats 1  datafile  bl_call_stats_D_00000  seekpos  0\n\
fName \"a\" 0\nfName \"b\" 0\nCallStatsProc 0 nRSS -1 nTraceStats 1  datafile  bl_call_stats_D_00000  seekpos  0\n\
timeMinMax 0.1 0.2\n";
        let mut w = Vec::new();
        let f = CallStatsFile::parse(text, Path::new("h"), None, &mut w);
        assert_eq!(f.blocks.len(), 1);
        let m: Vec<String> = w.iter().map(|w| w.to_string()).collect();
        assert!(m[0].starts_with("h:1:"), "{m:?}");
        assert!(
            m[1].starts_with("h:4:") && m[1].contains("earlier stanza"),
            "{m:?}"
        );
        assert!(
            m[2].starts_with("h:5:") && m[2].contains("nRSS is negative"),
            "{m:?}"
        );
        assert!(m[3].starts_with("h:6:"), "{m:?}");
    }
}
