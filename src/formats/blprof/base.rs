//! The base profile: `bl_prof_H` and the `bl_prof_D_*` blocks (one per
//! process: i64 call counts, then exclusive seconds, in `phFName` order).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::files::{Part, file_number};
use super::header::HeaderLine;
use super::headerfile::{LineWarnings, SharedNames, non_negative, proc_number, visit_lines};
use crate::error::{Error, Location, Result, Warning};
use crate::source::InputFile;

/// Where one process's base block lives.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BaseBlockRef {
    pub proc: usize,
    /// Shared by the blocks that name it (a copy per process was an
    /// allocation per process).
    pub datafile: Arc<str>,
    pub seekpos: u64,
    /// Line of the `BLProfProc` line in `bl_prof_H`.
    pub line: usize,
}

/// A `BLProfProc` line as read (process, data file, seek position, line),
/// checked once the whole header is read (`NProcs` may come after it).
type PendingBlock<'t> = (i64, &'t str, i64, usize);

/// The parsed `bl_prof_H`.
#[derive(Debug, Clone, Default)]
pub struct BaseHeader {
    pub path: PathBuf,
    pub version: Option<i64>,
    pub nprocs: Option<u64>,
    pub nout_files: Option<i64>,
    /// Function names as written (quotes removed, spaces kept), in file order.
    pub functions: Vec<String>,
    /// One block per process, sorted by process; duplicates dropped.
    pub blocks: Vec<BaseBlockRef>,
    pub calc_end_time: Option<f64>,
}

impl BaseHeader {
    /// Parses the text of a `bl_prof_H`. Fails only when nothing in it is a
    /// base-profile line; everything else damaged becomes a warning.
    pub fn parse(text: &str, path: &Path, warnings: &mut Vec<Warning>) -> Result<Self> {
        let mut h = BaseHeader {
            path: path.to_path_buf(),
            ..Default::default()
        };
        let mut warn = LineWarnings::new(path, warnings);
        let mut relevant = 0usize;
        let mut pending: Vec<PendingBlock<'_>> = Vec::new();
        visit_lines(text, &mut warn, |n, line, warn| {
            relevant += 1;
            match line {
                HeaderLine::BlProfVersion(v) => {
                    warn.version(n, "BLProfVersion", v);
                    h.version = Some(v)
                }
                HeaderLine::NProcs(p) => match non_negative(p, "NProcs") {
                    Ok(p) => h.nprocs = Some(p),
                    Err(m) => warn.line(n, m),
                },
                HeaderLine::NOutFiles(f) => h.nout_files = Some(f),
                HeaderLine::PhFName(name) => h.functions.push(name.to_owned()),
                HeaderLine::BlProfProc {
                    proc,
                    datafile,
                    seekpos,
                } => pending.push((proc, datafile, seekpos, n)),
                HeaderLine::CalcEndTime(t) => h.calc_end_time = Some(t),
                other => {
                    relevant -= 1;
                    warn.line(
                        n,
                        format!(
                            "{} line does not belong in bl_prof_H; ignored",
                            line_kind(&other)
                        ),
                    );
                }
            }
        });
        if relevant == 0 {
            warn.finish();
            return Err(Error::NotAHeader {
                path: path.to_owned(),
                kind: "base",
                lacking: "BLProfVersion, NProcs, phFName or BLProfProc line",
            });
        }
        let mut names = SharedNames::default();
        let nprocs = h.nprocs;
        // The blocks take the place of their lines in the list of lines (a
        // line and a block are one size, so `collect` reuses the list): a
        // second list was fresh memory, 40 bytes a process (16,384
        // processes and more), every page of it a page fault.
        h.blocks = pending
            .into_iter()
            .filter_map(|(proc, datafile, seekpos, n)| {
                let checked = proc_number(proc, nprocs).and_then(|proc| {
                    let seekpos = non_negative(seekpos, "seekpos")?;
                    if file_number(datafile, Part::Base.data_prefix()).is_none() {
                        return Err(format!(
                            "data file name {datafile:?} is not bl_prof_D_<digits>"
                        ));
                    }
                    Ok(BaseBlockRef {
                        proc,
                        datafile: names.get(datafile),
                        seekpos,
                        line: n,
                    })
                });
                checked
                    .map_err(|m| warn.line(n, format!("{m}; block ignored")))
                    .ok()
            })
            .collect();
        // Stable sort keeps file order among duplicates, so the first wins
        // (AMReX writes the processes in order: mostly nothing to sort).
        if !h.blocks.is_sorted_by_key(|b| b.proc) {
            h.blocks.sort_by_key(|b| b.proc);
        }
        h.blocks.dedup_by(|b, first| {
            let second = b.proc == first.proc;
            if second {
                warn.line(
                    b.line,
                    format!(
                        "second BLProfProc line for process {} (first at line {}); ignored",
                        b.proc, first.line
                    ),
                );
            }
            second
        });
        if h.nprocs.is_none() {
            warn.file("no NProcs line; the number of processes is taken from the BLProfProc lines");
        }
        if h.calc_end_time.is_none() {
            warn.file("no calcEndTime line: run time and coverage are unknown");
        }
        warn.finish();
        Ok(h)
    }

    /// The number of processes: NProcs, or one more than the highest block.
    pub fn nprocs(&self) -> u64 {
        self.nprocs
            .unwrap_or_else(|| self.blocks.last().map_or(0, |b| b.proc as u64 + 1))
    }

    /// Processes in `0..nprocs` that have no block line.
    pub fn procs_without_block(&self) -> impl Iterator<Item = u64> + '_ {
        let mut next = self.blocks.iter().map(|b| b.proc as u64).peekable();
        (0..self.nprocs()).filter(move |&p| {
            while next.peek().is_some_and(|&q| q < p) {
                next.next();
            }
            next.peek() != Some(&p)
        })
    }
}

/// A short name of a line kind for messages.
pub(crate) fn line_kind(line: &HeaderLine<'_>) -> &'static str {
    match line {
        HeaderLine::BlProfVersion(_) => "BLProfVersion",
        HeaderLine::NProcs(_) => "NProcs",
        HeaderLine::NOutFiles(_) => "NOutFiles",
        HeaderLine::PhFName(_) => "phFName",
        HeaderLine::BlProfProc { .. } => "BLProfProc",
        HeaderLine::CalcEndTime(_) => "calcEndTime",
        HeaderLine::CallStatsVersion(_) => "CallStatsProfVersion",
        HeaderLine::RegionName { .. } => "RegionName",
        HeaderLine::HeaderFile(_) => "HeaderFile",
        HeaderLine::CallStatsProc { .. } => "CallStatsProc",
        HeaderLine::FName { .. } => "fName",
        HeaderLine::TimeMinMax { .. } => "timeMinMax",
        HeaderLine::CommProfVersion(_) => "CommProfVersion",
        HeaderLine::CommStatsSize(_) => "CommStatsSize",
        HeaderLine::FinestLevel(_) => "FinestLevel",
        HeaderLine::MaxLevel(_) => "MaxLevel",
        HeaderLine::RefRatio { .. } => "RefRatio",
        HeaderLine::ProbDomain { .. } => "ProbDomain",
        HeaderLine::CommProfProc { .. } => "CommProfProc",
        HeaderLine::BNum { .. } => "bNum",
        HeaderLine::NTagIndexed { .. } | HeaderLine::NTagNamed { .. } => "nTag",
        HeaderLine::Red { .. } => "red",
        HeaderLine::TimerTime(_) => "timerTime",
        HeaderLine::NameTagNames(_) => "nameTagNames",
        HeaderLine::TagRange { .. } => "tagRange",
        HeaderLine::TagWraps(_) => "tagWraps",
        HeaderLine::FilterInclude { .. }
        | HeaderLine::FilterExclude { .. }
        | HeaderLine::FilterPlaceholder { .. }
        | HeaderLine::IncludeAll
        | HeaderLine::IncludeNone => "region filter",
        HeaderLine::Comment => "comment",
    }
}

/// Width of the writer's `Real`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RealWidth {
    F64,
    F32,
}

impl RealWidth {
    pub fn bytes(self) -> u64 {
        match self {
            RealWidth::F64 => 8,
            RealWidth::F32 => 4,
        }
    }

    /// Decodes one native-endian (little-endian on every AMReX platform) Real.
    #[inline]
    pub fn read(self, b: &[u8]) -> f64 {
        match self {
            RealWidth::F64 => f64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])),
            RealWidth::F32 => f32::from_le_bytes(b[..4].try_into().unwrap_or([0; 4])) as f64,
        }
    }
}

/// One process's base block, decoded on access from the mapped bytes.
#[derive(Debug, Clone, Copy)]
pub struct BaseBlock<'a> {
    counts: &'a [u8],
    times: &'a [u8],
    real: RealWidth,
}

impl<'a> BaseBlock<'a> {
    /// Views `bytes` (exactly `nfuncs · (8 + real)` long) as a base block.
    pub fn new(bytes: &'a [u8], nfuncs: usize, real: RealWidth) -> Option<Self> {
        let (counts, times) = bytes.split_at_checked(nfuncs.checked_mul(8)?)?;
        (times.len() as u64 == nfuncs as u64 * real.bytes()).then_some(BaseBlock {
            counts,
            times,
            real,
        })
    }

    #[cfg(feature = "internals")]
    pub fn len(&self) -> usize {
        self.counts.len() / 8
    }

    #[cfg(feature = "internals")]
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Calls started of function `i`.
    #[inline]
    pub fn ncalls(&self, i: usize) -> i64 {
        self.counts
            .get(i * 8..i * 8 + 8)
            .map_or(0, |b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    }

    /// Exclusive seconds of function `i`.
    #[inline]
    pub fn time(&self, i: usize) -> f64 {
        let w = self.real.bytes() as usize;
        self.times
            .get(i * w..i * w + w)
            .map_or(0.0, |b| self.real.read(b))
    }
}

/// Decides the Real width of one base data file from its size: every block
/// in it is `nfuncs · (8 + R)` bytes (BLPROF_FORMAT.md §5.6).
pub fn detect_real_width(file_len: u64, blocks_in_file: u64, nfuncs: u64) -> Option<RealWidth> {
    [RealWidth::F64, RealWidth::F32].into_iter().find(|r| {
        blocks_in_file
            .checked_mul(nfuncs)
            .and_then(|x| x.checked_mul(8 + r.bytes()))
            == Some(file_len)
    })
}

/// Reads one process's block from its data file, bounds-checked.
pub fn read_block<'f>(
    file: &'f InputFile,
    block: &BaseBlockRef,
    nfuncs: usize,
    real: RealWidth,
) -> Result<BaseBlock<'f>> {
    let size = (nfuncs as u64)
        .checked_mul(8 + real.bytes())
        .ok_or_else(|| Error::Oversized {
            location: Location::file(file.path()),
            message: "block size overflows".into(),
        })?;
    let bytes = file
        .range(block.seekpos, size)
        .map_err(|_| Error::PastEnd {
            location: Location::offset(file.path(), block.seekpos),
            block: format!(
                "base block of process {} ({} functions, {size} bytes) at byte offset {}",
                block.proc, nfuncs, block.seekpos
            ),
            end: block.seekpos.saturating_add(size),
            file_len: file.len(),
        })?;
    BaseBlock::new(bytes, nfuncs, real).ok_or_else(|| {
        Error::invalid(
            Location::offset(file.path(), block.seekpos),
            "inconsistent base block size",
        )
    })
}

/// The base blocks of every process whose block could be read, ready for
/// statistics. Damaged processes are left out with a warning each.
pub struct BaseProfile<'h> {
    pub(crate) header: &'h BaseHeader,
    blocks: Vec<LoadedBlock>,
}

struct LoadedBlock {
    proc: usize,
    file: std::sync::Arc<InputFile>,
    offset: u64,
    real: RealWidth,
}

impl<'h> BaseProfile<'h> {
    /// Opens the data files named by `header` through `open` and checks every
    /// block against its file's length before anything is read.
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn load(
        header: &'h BaseHeader,
        mut open: impl FnMut(&str) -> Result<std::sync::Arc<InputFile>>,
        warnings: &mut Vec<Warning>,
    ) -> Self {
        let nfuncs = header.functions.len();
        let mut by_file: std::collections::BTreeMap<&str, Vec<&BaseBlockRef>> = Default::default();
        for b in &header.blocks {
            by_file.entry(&*b.datafile).or_default().push(b);
        }
        let mut blocks = Vec::with_capacity(header.blocks.len());
        for (name, refs) in by_file {
            let file = match open(name) {
                Ok(f) => f,
                Err(e) => {
                    let procs: Vec<String> = refs.iter().map(|b| b.proc.to_string()).collect();
                    warnings.push(Warning::new(
                        Location::file(header.path.with_file_name(name)),
                        format!(
                            "cannot read base data ({e}); processes {} left out",
                            procs.join(", ")
                        ),
                    ));
                    continue;
                }
            };
            let real = detect_real_width(file.len(), refs.len() as u64, nfuncs as u64).unwrap_or_else(|| {
                warnings.push(Warning::new(
                    Location::file(file.path()),
                    format!(
                        "file size {} is not {} blocks of {nfuncs} functions (f64 or f32); reading as f64",
                        file.len(),
                        refs.len()
                    ),
                ));
                RealWidth::F64
            });
            for b in refs {
                match read_block(&file, b, nfuncs, real) {
                    Ok(_) => blocks.push(LoadedBlock {
                        proc: b.proc,
                        file: file.clone(),
                        offset: b.seekpos,
                        real,
                    }),
                    Err(e) => warnings.push(Warning::new(
                        match e.location() {
                            Some(location) if e.is_damage() => location,
                            _ => Location::file(file.path()),
                        },
                        format!("process {} left out: {}", b.proc, error_message(&e)),
                    )),
                }
            }
        }
        let missing = header.nprocs().saturating_sub(header.blocks.len() as u64);
        if missing > 0 {
            let listed: Vec<String> = header
                .procs_without_block()
                .take(10)
                .map(|p| p.to_string())
                .collect();
            warnings.push(Warning::new(
                Location::file(&header.path),
                format!(
                    "{missing} of {} processes have no BLProfProc line ({}{}); left out",
                    header.nprocs(),
                    listed.join(", "),
                    if missing > 10 { ", …" } else { "" }
                ),
            ));
        }
        blocks.sort_by_key(|b| b.proc);
        BaseProfile { header, blocks }
    }

    /// Functions of the database (the base header's list).
    pub fn nfuncs(&self) -> usize {
        self.header.functions.len()
    }

    /// Number of processes with a readable block.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether no process had a readable block.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Process number and block of the `i`-th readable process (ascending).
    #[doc(hidden)] // public for the fuzz targets (fuzz/fuzz_targets/)
    pub fn block(&self, i: usize) -> (usize, BaseBlock<'_>) {
        let b = &self.blocks[i];
        let size = self.nfuncs() as u64 * (8 + b.real.bytes());
        // Checked in `load`; an empty block cannot occur for a valid range.
        let bytes = b.file.range(b.offset, size).unwrap_or_default();
        let block = BaseBlock::new(bytes, self.nfuncs(), b.real).unwrap_or(BaseBlock {
            counts: &[],
            times: &[],
            real: b.real,
        });
        (b.proc, block)
    }
}

fn error_message(e: &Error) -> String {
    if e.is_damage() {
        e.message()
    } else {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "BLProfVersion 1\nNProcs  2\nNOutFiles  1\nphFName \"a()\"\nphFName \"b c\"\n\
BLProfProc 0 datafile bl_prof_D_00000 seekpos 0\nBLProfProc 1 datafile bl_prof_D_00000 seekpos 32\ncalcEndTime 1.5\n";

    /// A header's blocks reuse the list of its lines only while the two
    /// are one size (and alignment).
    #[test]
    fn a_block_fits_in_the_place_of_its_line() {
        use std::mem::{align_of, size_of};
        assert_eq!(size_of::<PendingBlock<'_>>(), size_of::<BaseBlockRef>());
        assert_eq!(align_of::<PendingBlock<'_>>(), align_of::<BaseBlockRef>());
    }

    #[test]
    fn parses_a_base_header() {
        let mut w = Vec::new();
        let h = BaseHeader::parse(HEADER, Path::new("bl_prof_H"), &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(h.version, Some(1));
        assert_eq!(h.nprocs(), 2);
        assert_eq!(h.functions, vec!["a()", "b c"]);
        assert_eq!(h.blocks.len(), 2);
        assert_eq!(h.blocks[1].seekpos, 32);
        assert_eq!(h.calc_end_time, Some(1.5));
        assert_eq!(h.procs_without_block().count(), 0);
    }

    #[test]
    fn bad_block_lines_are_warnings() {
        let text = HEADER.replace(
            "BLProfProc 1 datafile bl_prof_D_00000 seekpos 32",
            "BLProfProc 7 datafile bl_prof_D_00000 seekpos 32",
        ) + "BLProfProc 0 datafile ../etc/passwd seekpos 0\nBLProfProc 0 datafile bl_prof_D_00000 seekpos -5\n";
        let mut w = Vec::new();
        let h = BaseHeader::parse(&text, Path::new("bl_prof_H"), &mut w).unwrap();
        assert_eq!(h.blocks.len(), 1);
        assert_eq!(h.procs_without_block().collect::<Vec<_>>(), vec![1]);
        let msgs: Vec<String> = w.iter().map(|w| w.to_string()).collect();
        assert!(
            msgs.iter()
                .any(|m| m.contains("bl_prof_H:7") && m.contains("not below NProcs")),
            "{msgs:?}"
        );
        assert!(
            msgs.iter()
                .any(|m| m.contains("bl_prof_H:9") && m.contains("../etc/passwd")),
            "{msgs:?}"
        );
        assert!(
            msgs.iter()
                .any(|m| m.contains("bl_prof_H:10") && m.contains("negative")),
            "{msgs:?}"
        );
    }

    /// Out of order and repeated: each process keeps its first line, and
    /// each later one is a warning naming it, in process order.
    #[test]
    fn a_second_block_line_of_a_process_is_dropped() {
        let line = |p: u32, at: u32| format!("BLProfProc {p} datafile bl_prof_D_00000 seekpos {at}\n");
        let text = format!(
            "NProcs 2\n{}{}{}{}{}calcEndTime 1\n",
            line(1, 10),
            line(0, 20),
            line(1, 30),
            line(0, 40),
            line(1, 50)
        );
        let mut w = Vec::new();
        let h = BaseHeader::parse(&text, Path::new("H"), &mut w).unwrap();
        let kept: Vec<(usize, u64, usize)> = h.blocks.iter().map(|b| (b.proc, b.seekpos, b.line)).collect();
        assert_eq!(kept, vec![(0, 20, 3), (1, 10, 2)]);
        let msgs: Vec<String> = w.iter().map(|w| w.to_string()).collect();
        let second = |at: u32, p: u32, first: u32| {
            format!("H:{at}: second BLProfProc line for process {p} (first at line {first}); ignored")
        };
        assert_eq!(msgs, vec![second(5, 0, 3), second(4, 1, 2), second(6, 1, 2)]);
    }

    #[test]
    fn not_a_header_is_an_error() {
        let mut w = Vec::new();
        let e = BaseHeader::parse("hello\nworld\n", Path::new("bl_prof_H"), &mut w).unwrap_err();
        assert!(e.to_string().contains("not a bl_prof base header"));
    }

    #[test]
    fn real_width_from_file_size() {
        assert_eq!(detect_real_width(2 * 22 * 16, 2, 22), Some(RealWidth::F64));
        assert_eq!(detect_real_width(2 * 22 * 12, 2, 22), Some(RealWidth::F32));
        assert_eq!(detect_real_width(100, 2, 22), None);
        assert_eq!(detect_real_width(0, u64::MAX, u64::MAX), None);
    }

    #[test]
    fn block_decoding() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&3i64.to_le_bytes());
        bytes.extend_from_slice(&5i64.to_le_bytes());
        bytes.extend_from_slice(&0.25f64.to_le_bytes());
        bytes.extend_from_slice(&1.5f64.to_le_bytes());
        let b = BaseBlock::new(&bytes, 2, RealWidth::F64).unwrap();
        assert_eq!((b.ncalls(1), b.time(0), b.time(1)), (5, 0.25, 1.5));
        assert!(BaseBlock::new(&bytes, 3, RealWidth::F64).is_none());
        let f = InputFile::from_bytes("bl_prof_D_00000", bytes);
        let r = BaseBlockRef {
            proc: 0,
            datafile: "bl_prof_D_00000".into(),
            seekpos: 8,
            line: 1,
        };
        let e = read_block(&f, &r, 2, RealWidth::F64)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("byte offset 8") && e.contains("runs past the end"),
            "{e}"
        );
    }
}
