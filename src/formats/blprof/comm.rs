//! Communication headers: `bl_comm_prof_H` (record size, AMR levels,
//! per-file header list) and the `bl_comm_prof_H_nnnnn` stanzas.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;
use smallvec::SmallVec;

use super::base::{RealWidth, line_kind};
use super::callstats::{dedup_header_files, push_header_file};
use super::files::{Part, file_number};
use super::header::HeaderLine;
use super::headerfile::{LineWarnings, SharedNames, non_negative, proc_number, visit_lines};
use crate::error::{Error, Result, Warning};

/// The parsed `bl_comm_prof_H`.
#[derive(Debug, Clone, Default)]
pub struct CommHeader {
    pub path: PathBuf,
    pub version: Option<i64>,
    pub nprocs: Option<u64>,
    /// Bytes per record as written: 24 for f64 `Real`, 20 for f32.
    pub stats_size: Option<u64>,
    pub nout_files: Option<i64>,
    pub finest_level: Option<i64>,
    pub max_level: Option<i64>,
    pub ref_ratios: Vec<(i64, Vec<i64>)>,
    pub prob_domains: Vec<ProbDomain>,
    pub header_files: Vec<String>,
}

impl CommHeader {
    pub fn parse(text: &str, path: &Path, warnings: &mut Vec<Warning>) -> Result<Self> {
        let mut h = CommHeader {
            path: path.to_path_buf(),
            ..Default::default()
        };
        let mut warn = LineWarnings::new(path, warnings);
        let mut relevant = 0usize;
        visit_lines(text, &mut warn, |n, line, warn| {
            relevant += 1;
            match line {
                HeaderLine::CommProfVersion(v) => {
                    warn.version(n, "CommProfVersion", v);
                    h.version = Some(v)
                }
                HeaderLine::NProcs(p) => match non_negative(p, "NProcs") {
                    Ok(p) => h.nprocs = Some(p),
                    Err(m) => warn.line(n, m),
                },
                HeaderLine::CommStatsSize(s) => match s {
                    20 | 24 => h.stats_size = Some(s as u64),
                    _ => warn.line(
                        n,
                        format!("CommStatsSize {s} is neither 24 (f64) nor 20 (f32); assuming 24"),
                    ),
                },
                HeaderLine::NOutFiles(f) => h.nout_files = Some(f),
                HeaderLine::FinestLevel(l) => h.finest_level = Some(l),
                HeaderLine::MaxLevel(l) => h.max_level = Some(l),
                HeaderLine::RefRatio { level, ratio } => h.ref_ratios.push((level, ratio.into_vec())),
                HeaderLine::ProbDomain {
                    level,
                    lo,
                    hi,
                    index_type,
                } => h.prob_domains.push(ProbDomain {
                    level,
                    lo: lo.into_vec(),
                    hi: hi.into_vec(),
                    index_type: index_type.into_vec(),
                }),
                HeaderLine::HeaderFile(f) => {
                    push_header_file(&mut h.header_files, f, Part::Comm, n, warn)
                }
                other => {
                    relevant -= 1;
                    warn.line(
                        n,
                        format!(
                            "{} line does not belong in bl_comm_prof_H; ignored",
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
                kind: "comm",
                lacking: "recognised line",
            });
        }
        Ok(h)
    }

    /// Real width of the comm records, from `CommStatsSize` (default f64).
    pub fn real_width(&self) -> RealWidth {
        match self.stats_size {
            Some(20) => RealWidth::F32,
            _ => RealWidth::F64,
        }
    }

    /// Bytes per record.
    pub fn record_size(&self) -> u64 {
        self.stats_size.unwrap_or(24)
    }
}

/// `ProbDomain <level> ((lo) (hi) (type))`: the AMR level's index box.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProbDomain {
    pub level: i64,
    pub lo: Vec<i64>,
    pub hi: Vec<i64>,
    pub index_type: Vec<i64>,
}

/// A barrier entered during a block: `bNum <number> "<name>" <record index>`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BarrierRef {
    /// Per-process barrier counter (keeps counting across blocks).
    pub number: i64,
    /// Shared by the blocks of a header file that name it.
    pub name: Arc<str>,
    /// 0-based index of the barrier's "before" record within the block.
    pub record_index: i64,
}

/// A name tag written during a block.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum NameTagRef {
    /// As written: index into `nameTagNames`, record index in the block.
    Indexed { name_index: i64, record_index: i64 },
    /// As documented: the name and a seek position.
    Named { name: Arc<str>, seekpos: i64 },
}

/// One communication block and everything its stanza says.
#[derive(Debug, Clone, PartialEq)]
pub struct CommBlockRef {
    pub proc: usize,
    pub ncomm: u64,
    /// Shared by the blocks of a header file that name it.
    pub datafile: Arc<str>,
    pub seekpos: u64,
    /// `MPI_Get_processor_name` of the process, verbatim.
    pub host: Option<Arc<str>>,
    /// Inline up to one each (a block per process is common at scale).
    pub barriers: SmallVec<[BarrierRef; 1]>,
    pub name_tags: SmallVec<[NameTagRef; 1]>,
    /// The lines most blocks lack, `None` without any.
    pub rare: Option<Box<RareLines>>,
    /// First and last record time of this block; `None` for the `0.0 0.0`
    /// placeholder of an empty block.
    pub time_min_max: Option<(f64, f64)>,
    pub timer_time: Option<f64>,
    pub tag_range: Option<(i64, i64)>,
    pub header: Arc<Path>,
    pub line: usize,
}

/// The lines of a stanza that most stanzas lack, held apart: as two lists
/// in every block they were a sixth of its size, and a block per process is
/// fresh memory, every page of it a page fault (16,384 processes: 0.7 MB).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RareLines {
    /// `red <number> <record index>` (accepted; AMReX never writes it).
    pub reductions: Vec<(i64, i64)>,
    /// `tagWraps <index>` (AMReX writes it only when the tags wrapped).
    pub tag_wraps: Vec<i64>,
}

impl CommBlockRef {
    /// The block's `red` lines: (reduction number, record index).
    pub fn reductions(&self) -> &[(i64, i64)] {
        self.rare.as_ref().map_or(&[], |r| &r.reductions)
    }

    /// The block's `tagWraps` indexes.
    pub fn tag_wraps(&self) -> &[i64] {
        self.rare.as_ref().map_or(&[], |r| &r.tag_wraps)
    }

    fn rare_mut(&mut self) -> &mut RareLines {
        self.rare.get_or_insert_default()
    }
}

/// A process's name-tag names: one list shared by the processes of a
/// header file that give the same names (every process names the same
/// tags), not a copy per process.
pub type NameTagNames = Arc<[Arc<str>]>;

/// Everything one `bl_comm_prof_H_nnnnn` file says.
#[derive(Debug, Clone, Default)]
pub struct CommFile {
    pub blocks: Vec<CommBlockRef>,
    /// Name-tag names per process (cumulative list of its last stanza).
    pub name_tag_names: Vec<(usize, NameTagNames)>,
}

impl CommFile {
    pub fn parse(
        text: &str,
        path: &Path,
        nprocs: Option<u64>,
        warnings: &mut Vec<Warning>,
    ) -> Self {
        // Room for every stanza at once (counted in the text, so bounded by
        // its length): grown from empty, the blocks were copied a few times
        // over, which counted with a stanza per process.
        let stanzas = memchr::memmem::find_iter(text.as_bytes(), b"CommProfProc").count();
        let mut f = CommFile {
            blocks: Vec::with_capacity(stanzas),
            ..CommFile::default()
        };
        let mut warn = LineWarnings::new(path, warnings);
        let header: Arc<Path> = Arc::from(path);
        // A host per stanza, and a few names shared by all.
        let mut names = SharedNames::with_capacity(stanzas + 8);
        let mut block_open = false;
        // The stanza's names replace the process's list (they are cumulative).
        let mut stanza_names = StanzaNames::default();
        let mut names_of_proc: FxHashMap<usize, usize> =
            FxHashMap::with_capacity_and_hasher(stanzas, Default::default());
        let mut finish_stanza = |f: &mut CommFile, stanza_names: &mut StanzaNames| {
            if let (Some(names), Some(b)) = (stanza_names.finish(), f.blocks.last()) {
                match names_of_proc.entry(b.proc) {
                    Entry::Occupied(i) => f.name_tag_names[*i.get()].1 = names,
                    Entry::Vacant(i) => {
                        i.insert(f.name_tag_names.len());
                        f.name_tag_names.push((b.proc, names));
                    }
                }
            }
        };
        visit_lines(text, &mut warn, |n, line, warn| {
            if let HeaderLine::CommProfProc {
                proc,
                ncomm,
                datafile,
                seekpos,
                host,
            } = line
            {
                if block_open {
                    finish_stanza(&mut f, &mut stanza_names);
                }
                block_open = false;
                let checked = proc_number(proc, nprocs).and_then(|proc| {
                    let ncomm = non_negative(ncomm, "nCommStats")?;
                    let seekpos = non_negative(seekpos, "seekpos")?;
                    if file_number(datafile, Part::Comm.data_prefix()).is_none() {
                        return Err(format!(
                            "data file name {datafile:?} is not bl_comm_prof_D_<digits>"
                        ));
                    }
                    Ok(CommBlockRef {
                        proc,
                        ncomm,
                        datafile: names.get(datafile),
                        seekpos,
                        host: host.map(|h| names.get(h)),
                        barriers: SmallVec::new(),
                        name_tags: SmallVec::new(),
                        rare: None,
                        time_min_max: None,
                        timer_time: None,
                        tag_range: None,
                        header: header.clone(),
                        line: n,
                    })
                });
                match checked {
                    Ok(b) => {
                        f.blocks.push(b);
                        block_open = true;
                    }
                    Err(m) => warn.line(n, format!("{m}; block ignored")),
                }
                return;
            }
            let Some(b) = f.blocks.last_mut().filter(|_| block_open) else {
                warn.line(
                    n,
                    format!(
                        "{} line outside a CommProfProc stanza; ignored",
                        line_kind(&line)
                    ),
                );
                return;
            };
            match line {
                HeaderLine::BNum {
                    number,
                    name,
                    record_index,
                } => b.barriers.push(BarrierRef {
                    number,
                    name: names.get(name),
                    record_index,
                }),
                HeaderLine::NTagIndexed {
                    name_index,
                    record_index,
                } => b.name_tags.push(NameTagRef::Indexed {
                    name_index,
                    record_index,
                }),
                HeaderLine::NTagNamed { name, seekpos } => b.name_tags.push(NameTagRef::Named {
                    name: names.get(name),
                    seekpos,
                }),
                HeaderLine::Red {
                    number,
                    record_index,
                } => b.rare_mut().reductions.push((number, record_index)),
                HeaderLine::TimeMinMax { min, max } => {
                    b.time_min_max = (b.ncomm > 0 && min <= max).then_some((min, max));
                }
                HeaderLine::TimerTime(t) => b.timer_time = Some(t),
                HeaderLine::NameTagNames(name) => stanza_names.push(names.get(name)),
                HeaderLine::TagRange { min, max } => b.tag_range = Some((min, max)),
                HeaderLine::TagWraps(i) => b.rare_mut().tag_wraps.push(i),
                other => warn.line(
                    n,
                    format!(
                        "{} line does not belong in a comm file header; ignored",
                        line_kind(&other)
                    ),
                ),
            }
        });
        if block_open {
            finish_stanza(&mut f, &mut stanza_names);
        }
        warn.finish();
        f
    }
}

/// The `nameTagNames` lines of the stanza being read, and the list of the
/// stanza before: a stanza naming the same tags as the one before shares
/// its list (a list per process was an allocation kept per process).
#[derive(Default)]
struct StanzaNames {
    /// The stanza's names so far (a buffer kept from stanza to stanza).
    current: Vec<Arc<str>>,
    /// Whether the stanza has a `nameTagNames` line.
    named: bool,
    before: Option<NameTagNames>,
}

impl StanzaNames {
    fn push(&mut self, name: Arc<str>) {
        self.current.push(name);
        self.named = true;
    }

    /// The stanza's list, if it has one; the next stanza starts empty.
    fn finish(&mut self) -> Option<NameTagNames> {
        if !std::mem::take(&mut self.named) {
            return None;
        }
        let list = match &self.before {
            Some(before) if **before == *self.current => before.clone(),
            _ => NameTagNames::from(self.current.as_slice()),
        };
        self.current.clear();
        self.before = Some(list.clone());
        Some(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_header() {
        let text = "CommProfVersion  1\nNProcs  4\nCommStatsSize  24\nNOutFiles  4\nFinestLevel  1\nMaxLevel  2\n\
RefRatio  0  (2,2,2)\nProbDomain  0  ((0,0,0) (31,31,31) (0,0,0))\nHeaderFile bl_comm_prof_H_00000\n";
        let mut w = Vec::new();
        let h = CommHeader::parse(text, Path::new("bl_comm_prof_H"), &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(h.record_size(), 24);
        assert_eq!(h.real_width(), RealWidth::F64);
        assert_eq!((h.finest_level, h.max_level), (Some(1), Some(2)));
        assert_eq!(h.ref_ratios, vec![(0, vec![2, 2, 2])]);
        assert_eq!(h.prob_domains[0].hi, vec![31, 31, 31]);
        assert_eq!(h.header_files, vec!["bl_comm_prof_H_00000"]);
    }

    #[test]
    fn stanzas() {
        let text = "CommProfProc  0  nCommStats  961  datafile  bl_comm_prof_D_00000  seekpos  0  nid001234\n\
bNum  0 \"Init::barrier\" 3\nnTag  0 2\nnTag \"STEP 1\" 77\nred 1 5\ntimeMinMax  0.0306 0.0664\n\
timerTime  2.1e-08\nnameTagNames  \"Init::top\"\nnameTagNames  \"STEP 0\"\ntagRange  1000 2147483647\ntagWraps  2\n\
CommProfProc  0  nCommStats  0  datafile  bl_comm_prof_D_00000  seekpos  23064  cn-12.hpc.local\n\
timeMinMax  0.0  0.0\nnameTagNames  \"Init::top\"\nnameTagNames  \"STEP 0\"\nnameTagNames  \"STEP 1\"\n";
        let mut w = Vec::new();
        let f = CommFile::parse(text, Path::new("bl_comm_prof_H_00000"), Some(4), &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(f.blocks.len(), 2);
        let b = &f.blocks[0];
        assert_eq!(b.host.as_deref(), Some("nid001234"));
        assert_eq!(b.barriers[0].record_index, 3);
        assert_eq!(b.name_tags.len(), 2);
        assert_eq!(b.reductions(), [(1, 5)]);
        assert_eq!(b.time_min_max, Some((0.0306, 0.0664)));
        assert_eq!(b.timer_time, Some(2.1e-08));
        assert_eq!(b.tag_range, Some((1000, 2147483647)));
        assert_eq!(b.tag_wraps(), [2]);
        assert_eq!(f.blocks[1].time_min_max, None, "empty-block placeholder");
        assert_eq!(f.blocks[1].rare, None, "no red or tagWraps line");
        assert_eq!(f.blocks[1].host.as_deref(), Some("cn-12.hpc.local"));
        let names: NameTagNames =
            Arc::from([Arc::from("Init::top"), Arc::from("STEP 0"), Arc::from("STEP 1")]);
        assert_eq!(f.name_tag_names, vec![(0, names)]);
    }

    /// Processes that name the same tags share one list; a process whose
    /// names differ has its own, and one without names has none.
    #[test]
    fn equal_name_lists_are_shared() {
        let stanza = |proc: usize, names: &[&str]| {
            let mut t = format!(
                "CommProfProc  {proc}  nCommStats  0  datafile  bl_comm_prof_D_00000  seekpos  0\n"
            );
            for n in names {
                t.push_str(&format!("nameTagNames  \"{n}\"\n"));
            }
            t
        };
        let text = [
            stanza(0, &["a", "b"]),
            stanza(1, &["a", "b"]),
            stanza(2, &["a"]),
            stanza(3, &[]),
            stanza(4, &["a"]),
        ]
        .concat();
        let mut w = Vec::new();
        let f = CommFile::parse(&text, Path::new("h"), None, &mut w);
        assert!(w.is_empty(), "{w:?}");
        let lists = &f.name_tag_names;
        let procs: Vec<usize> = lists.iter().map(|(p, _)| *p).collect();
        assert_eq!(procs, vec![0, 1, 2, 4]);
        assert_eq!(&*lists[1].1, &[Arc::from("a"), Arc::from("b")]);
        assert!(Arc::ptr_eq(&lists[0].1, &lists[1].1));
        assert_eq!(&*lists[2].1, &[Arc::from("a")]);
        assert!(Arc::ptr_eq(&lists[2].1, &lists[3].1), "across a stanza without names");
    }

    #[test]
    fn huge_and_negative_counts_are_warnings() {
        let text = "CommProfProc  0  nCommStats  -3  datafile  bl_comm_prof_D_00000  seekpos  0  vm\nbNum  0 \"x\" 1\n\
CommProfProc  9  nCommStats  4611686018427387904  datafile  bl_comm_prof_D_00000  seekpos  0  vm\n";
        let mut w = Vec::new();
        let f = CommFile::parse(text, Path::new("h"), Some(4), &mut w);
        assert_eq!(f.blocks.len(), 0);
        assert_eq!(w.len(), 3, "{w:?}");
    }
}
