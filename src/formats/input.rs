//! What a path given on the command line is: a bl_prof database (or the run
//! folder that holds one), a tlog trace, or a serialized timer tree. Commands
//! that take more than one kind of input ask [`Input::open`] and then open
//! the path with that kind's reader.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::timertree::FileForm;
use crate::error::{Error, Result};

/// The kinds of input profparse reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// An AMReX bl_prof database directory.
    Blprof,
    /// An Omni libtlog trace file.
    Tlog,
    /// A serialized timer tree (JSON or XML).
    TimerTree,
    /// A job log holding AMReX TinyProfiler reports (or the file
    /// `tiny_profiler.output_file` wrote).
    TinyProfiler,
}

impl InputKind {
    /// The kind's name in messages and in JSON (`kind`).
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Blprof => "blprof",
            InputKind::Tlog => "tlog",
            InputKind::TimerTree => "timer-tree",
            InputKind::TinyProfiler => "tinyprofiler",
        }
    }
}

/// A recognised input: its kind and the path its reader opens (for a run
/// folder, the `bl_prof` database inside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// What it is.
    pub kind: InputKind,
    /// The path its reader opens.
    pub path: PathBuf,
}

/// The global headers of which any one makes a directory a database.
const DATABASE_HEADERS: [&str; 3] = ["bl_prof_H", "bl_call_stats_H", "bl_comm_prof_H"];

/// Bytes read from the start of a file to tell a text tree from a binary trace.
const HEAD: usize = 4096;

impl Input {
    /// Opens `path` far enough to tell what it is (its metadata, and for a
    /// file without a telling extension its first 4 KiB):
    /// a directory with a bl_prof global header is a database, and so is
    /// a run folder holding such a `bl_prof`; a `.log`/`.tlog` file is a
    /// trace; a `.json`/`.xml` file, or one whose first non-blank byte is
    /// `{` or `<`, a timer tree; any other file a trace. A directory that is
    /// no database is an error naming what it lacks. Before it is taken for
    /// a trace, a file whose first 4 KiB hold no NUL byte (text, where a
    /// trace is binary) is searched for a TinyProfiler report or AMReX's
    /// start-up line: such a file is a TinyProfiler log, whatever its name.
    pub fn open(path: &Path) -> Result<Input> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Self::directory(path);
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let kind = if matches!(ext.as_deref(), Some("log" | "tlog")) {
            if tinyprofiler_log(path, None) {
                InputKind::TinyProfiler
            } else {
                check_tlog(path)?;
                InputKind::Tlog
            }
        } else {
            let head = head(path)?;
            if FileForm::detect(path, &head).is_ok() {
                InputKind::TimerTree
            } else if tinyprofiler_log(path, Some(&head)) {
                InputKind::TinyProfiler
            } else {
                check_tlog(path)?;
                InputKind::Tlog
            }
        };
        Ok(Input {
            kind,
            path: path.to_owned(),
        })
    }

    fn directory(path: &Path) -> Result<Input> {
        let is_db = |d: &Path| DATABASE_HEADERS.iter().any(|h| d.join(h).is_file());
        for dir in [path.to_owned(), path.join("bl_prof")] {
            if is_db(&dir) {
                return Ok(Input {
                    kind: InputKind::Blprof,
                    path: dir,
                });
            }
        }
        Err(Error::NotFound(format!(
            "{}: a directory without bl_prof_H or bl_call_stats_H is not a bl_prof database",
            path.display()
        )))
    }
}

/// What a path holds, judged by its content (for a directory, by the
/// headers in it or in its `bl_prof`): what an error tells a user who gave
/// it to a command of another kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Looks {
    /// A bl_prof database directory.
    Database,
    /// A run folder: the database is the `bl_prof` inside it.
    RunFolder(PathBuf),
    /// A directory of neither kind.
    Directory,
    /// A file of the bl_prof database in its parent directory.
    DatabaseFile(PathBuf),
    TimerTree,
    TinyProfiler,
    /// Text of no kind profparse reads.
    Text,
    /// An empty file.
    Empty,
    /// A path that cannot be read: its reader will say why.
    Unreadable,
    /// Binary, as a tlog trace is (whether it is one, its reader says).
    Binary,
}

/// The first words of bl_prof header files (global and per process).
const BLPROF_HEADER_WORDS: [&str; 6] = [
    "BLProfVersion",
    "CallStatsProfVersion",
    "CommProfVersion",
    "BLProfProc",
    "CallStatsProc",
    "CommProfProc",
];

/// What `path` looks like.
pub fn looks(path: &Path) -> Looks {
    let is_db = |d: &Path| DATABASE_HEADERS.iter().any(|h| d.join(h).is_file());
    if path.is_dir() {
        return if is_db(path) {
            Looks::Database
        } else if is_db(&path.join("bl_prof")) {
            Looks::RunFolder(path.join("bl_prof"))
        } else {
            Looks::Directory
        };
    }
    let Ok(head) = head(path) else {
        return Looks::Unreadable;
    };
    if head.is_empty() {
        return Looks::Empty;
    }
    let first_word = head
        .split(|b| b.is_ascii_whitespace())
        .find(|w| !w.is_empty())
        .unwrap_or_default();
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // A data file is binary; it is told by where it is (beside the headers)
    // and by the writer's file prefix, so that a trace kept in a database's
    // folder is still a trace.
    let data_file = is_db(parent)
        && path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("bl_"));
    if BLPROF_HEADER_WORDS
        .iter()
        .any(|w| w.as_bytes() == first_word)
        || data_file
    {
        return Looks::DatabaseFile(parent.to_owned());
    }
    if FileForm::detect(path, &head).is_ok() {
        Looks::TimerTree
    } else if tinyprofiler_log(path, Some(&head)) {
        Looks::TinyProfiler
    } else if head.contains(&0) {
        Looks::Binary
    } else {
        Looks::Text
    }
}

/// Refuses, before any reading, a file given as a tlog trace that is
/// something else profparse reads (or text): the error names the command
/// that reads it.
pub fn check_tlog(path: &Path) -> Result<()> {
    match looks(path).advice(path, InputKind::Tlog) {
        Some(advice) => Err(Error::wrong_kind(
            crate::error::Location::file(path),
            format!("not a tlog trace: {advice}"),
        )),
        None => Ok(()),
    }
}

impl Looks {
    /// The next step for a user who gave this path where `wanted` is read:
    /// the command (or path) that reads what it is. None when it looks like
    /// what was wanted, or like nothing profparse knows.
    pub fn advice(&self, path: &Path, wanted: InputKind) -> Option<String> {
        let p = path.display();
        let text = match self {
            Looks::Database if wanted != InputKind::Blprof => {
                format!("it is a bl_prof database: use `profparse summary {p}`")
            }
            Looks::RunFolder(db) => format!("did you mean {}?", db.display()),
            Looks::DatabaseFile(db) => format!(
                "it is a file of the bl_prof database {}: give the directory, as in `profparse summary {}`",
                db.display(),
                db.display()
            ),
            Looks::TimerTree if wanted != InputKind::TimerTree => {
                format!("it is a serialized timer tree: use `profparse tree show {p}`")
            }
            Looks::TinyProfiler if wanted != InputKind::TinyProfiler => {
                format!("it is a log with TinyProfiler reports: use `profparse summary {p}`")
            }
            Looks::Binary if wanted == InputKind::Blprof => {
                format!("if it is a tlog trace, use `profparse tlog summary {p}`")
            }
            Looks::Text if wanted == InputKind::Tlog => {
                "it is text, and tlog traces are binary".to_owned()
            }
            _ => return None,
        };
        Some(text)
    }
}

/// Whether the file is text holding a TinyProfiler report/// Whether the file is text holding a TinyProfiler report or AMReX's
/// start-up line. A binary head (a NUL byte) answers at once; a file that
/// cannot be read is not one (its reader will say why).
fn tinyprofiler_log(path: &Path, head_read: Option<&[u8]>) -> bool {
    let owned;
    let head = match head_read {
        Some(h) => h,
        None => match head(path) {
            Ok(h) => {
                owned = h;
                &owned
            }
            Err(_) => return false,
        },
    };
    if head.contains(&0) {
        return false;
    }
    crate::source::InputFile::open(path)
        .is_ok_and(|f| super::tinyprofiler::recognise(head, f.bytes()))
}

/// The first [`HEAD`] bytes of the file (fewer if it is shorter).
fn head(path: &Path) -> Result<Vec<u8>> {
    // Never blocks: a FIFO is refused, not waited on.
    let (f, _) = crate::source::open_file(path)?;
    let mut head = Vec::with_capacity(HEAD);
    f.take(HEAD as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(rel)
    }

    #[test]
    fn recognises_each_kind() {
        let db = fixture("blprof/small4/bl_prof");
        assert_eq!(Input::open(&db).unwrap().kind, InputKind::Blprof);
        // The run folder holding `bl_prof/` opens its database.
        let run = Input::open(&fixture("blprof/small4")).unwrap();
        assert_eq!((run.kind, run.path), (InputKind::Blprof, db));
        assert_eq!(
            Input::open(&fixture("tlog/np4.log")).unwrap().kind,
            InputKind::Tlog
        );
        assert_eq!(
            Input::open(&fixture("timertree/doc_example.json"))
                .unwrap()
                .kind,
            InputKind::TimerTree
        );
        assert_eq!(
            Input::open(&fixture("timertree/ours/edge_cases.xml"))
                .unwrap()
                .kind,
            InputKind::TimerTree
        );
    }

    #[test]
    fn content_decides_without_an_extension() {
        let dir = std::env::temp_dir().join(format!("profparse-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tree = dir.join("tree");
        std::fs::write(&tree, b"\xEF\xBB\xBF  {\"name\": []}").unwrap();
        let trace = dir.join("trace");
        std::fs::write(&trace, [0u8; 32]).unwrap();
        let kinds = (
            Input::open(&tree).map(|i| i.kind),
            Input::open(&trace).map(|i| i.kind),
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(kinds.0.unwrap(), InputKind::TimerTree);
        assert_eq!(kinds.1.unwrap(), InputKind::Tlog);
    }

    #[test]
    fn tinyprofiler_logs_by_content_whatever_their_name() {
        let dir = tempfile::tempdir().unwrap();
        let report = std::fs::read(fixture("tinyprofiler/asyncout_24.10_np2.txt")).unwrap();
        for name in ["job.log", "job.out", "job.txt", "job"] {
            let path = dir.path().join(name);
            std::fs::write(&path, &report).unwrap();
            assert_eq!(
                Input::open(&path).unwrap().kind,
                InputKind::TinyProfiler,
                "{name}"
            );
        }
        // A log without a report is still one (its reader says what is missing).
        let disabled = fixture("tinyprofiler/singlevortex_24.10_np2_disabled.txt");
        assert_eq!(
            Input::open(&disabled).unwrap().kind,
            InputKind::TinyProfiler
        );
        // Binary with the marker inside: a trace as before. Text without a
        // report is no input profparse reads: refused with the reason.
        let bin = dir.path().join("bin.log");
        std::fs::write(&bin, [&[0u8; 8][..], &report].concat()).unwrap();
        assert_eq!(Input::open(&bin).unwrap().kind, InputKind::Tlog);
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, b"just some text").unwrap();
        let e = Input::open(&text).unwrap_err();
        assert!(e.to_string().contains("it is text"), "{e}");
    }

    #[test]
    fn a_directory_without_headers_is_no_database() {
        let e = Input::open(&fixture("blprof/filters")).unwrap_err();
        assert!(e.is_unreadable_input());
        assert!(e.to_string().contains("not a bl_prof database"), "{e}");
        assert!(Input::open(&fixture("nothing/here")).is_err());
    }
}
