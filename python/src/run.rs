//! An opened input (`profparse.open`) and the tables it gives, by kind.

use std::path::{Path, PathBuf};

use profparse::{CallTree, Database, Input, InputKind, database_info};
use pyo3::prelude::*;

use crate::arrow_stream::{ArrowStream, Built, stream};
use crate::blprof::{blprof_calltree, blprof_functions};
use crate::blprof_comm::{CommRows, comm_table};
use crate::blprof_messages::messages_table;
use crate::blprof_mpi_time::{TimeRows, mpi_time_table};
use crate::blprof_regions::regions_table;
use crate::blprof_waits::{WaitRows, waits_table};
use crate::comm_scope::CommArgs;
use crate::errors::{NotFoundError, arrow_err, detached, texts, to_py};
use crate::timer_tree::timer_calltree;
use crate::tinyprofiler::{tiny_calltree, tiny_functions};
use crate::tlog::{tlog_calltree, tlog_functions};

/// An opened input.
enum Opened {
    Blprof(Box<Database>),
    TinyProfiler(profparse::TinyProfilerLog),
    TimerTree(CallTree<profparse::Timing>),
    Tlog(Box<profparse::TlogFile>),
}

/// What `open` found: the input, its kind and metadata.
#[pyclass(module = "profparse._profparse", frozen)]
pub(crate) struct NativeRun {
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    path: String,
    #[pyo3(get)]
    nprocs: Option<u64>,
    /// The metadata known at `open` (path, kind, nprocs, what the reader
    /// saw); a database's summary of its parts is added on first use.
    meta: serde_json::Map<String, serde_json::Value>,
    /// The metadata as one JSON object, made on first use: a database's
    /// summary reads every comm header, which a call tree does not need.
    metadata_json: std::sync::OnceLock<String>,
    /// Shared by the threads that build tables: the readers' values are
    /// `Sync` (a database parses its call-stats headers once, on first use,
    /// behind a `OnceLock`), so no lock is held while the GIL is released.
    opened: Opened,
}

/// The kind's name in Python (`"timertree"`, where the CLI's JSON says
/// `timer-tree`).
fn kind_name(kind: InputKind) -> &'static str {
    match kind {
        InputKind::TimerTree => "timertree",
        k => k.name(),
    }
}

/// Opens `path` as the CLI does: what it is ([`Input::open`]), then that
/// kind's reader. Returns the run and the warnings of reading it.
fn open_path(path: PathBuf) -> profparse::Result<(NativeRun, Vec<String>)> {
    let input = match Input::open(&path) {
        Ok(input) => input,
        // A directory that is no database: the bl_prof commands' message
        // (what it lacks, and the database it may have meant).
        Err(e @ profparse::Error::NotFound(_)) if path.is_dir() => {
            return Err(Database::open(&path).err().unwrap_or(e));
        }
        Err(e) => return Err(e),
    };
    let given = path.display().to_string();
    let mut meta = serde_json::Map::new();
    meta.insert("path".into(), given.clone().into());
    meta.insert("kind".into(), kind_name(input.kind).into());
    let mut warnings = Vec::new();
    let (nprocs, opened) = match input.kind {
        InputKind::Blprof => {
            let db = Database::open(&input.path)?;
            warnings.extend(texts(db.warnings()));
            meta.insert("database".into(), db.dir().display().to_string().into());
            (db.nprocs(), Opened::Blprof(Box::new(db)))
        }
        InputKind::TinyProfiler => {
            let log = profparse::read_tinyprofiler_log(&input.path)?;
            meta.insert("runs".into(), log.reports.len().into());
            let last = log.reports.last();
            let version = last.and_then(|r| r.amrex_version.clone());
            meta.insert("amrex_version".into(), version.into());
            let nprocs = last.and_then(|r| r.nprocs);
            (nprocs, Opened::TinyProfiler(log))
        }
        InputKind::TimerTree => {
            let tree = profparse::read_timer_tree_file(&input.path)?;
            let odd = profparse::suspicious_timer_times(&tree, &input.path);
            warnings.extend(texts(&odd));
            meta.insert("timers".into(), tree.len().into());
            (Some(1), Opened::TimerTree(tree))
        }
        InputKind::Tlog => {
            let tlog = profparse::TlogFile::open(&input.path)?;
            warnings.extend(texts(tlog.warnings()));
            meta.insert("events".into(), tlog.total_events().into());
            (Some(tlog.nprocs() as u64), Opened::Tlog(Box::new(tlog)))
        }
    };
    meta.insert("nprocs".into(), nprocs.into());
    let run = NativeRun {
        kind: kind_name(input.kind),
        path: given,
        nprocs,
        meta,
        metadata_json: std::sync::OnceLock::new(),
        opened,
    };
    Ok((run, warnings))
}

/// `open(path)`: the run at `path` and the warnings of reading it.
#[pyfunction]
pub(crate) fn open(py: Python<'_>, path: PathBuf) -> PyResult<(NativeRun, Vec<String>)> {
    detached(py, || open_path(path))
}

/// The metadata of `run`: what `open` found, and for a database the
/// summary of its parts (`info --format json` but its `dir` and `nprocs`).
fn metadata_json(run: &NativeRun) -> String {
    let mut meta = run.meta.clone();
    if let Opened::Blprof(db) = &run.opened {
        let info = database_info(db);
        if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(&info) {
            for (k, v) in fields {
                if k != "dir" && k != "nprocs" {
                    meta.insert(k, v);
                }
            }
        }
    }
    serde_json::Value::Object(meta).to_string()
}

impl NativeRun {
    /// Runs `f` without the GIL and hands its table over.
    fn build(
        py: Python<'_>,
        f: impl FnOnce() -> Built + Send,
    ) -> PyResult<(ArrowStream, Vec<String>)> {
        let (table, warnings) = detached(py, f)?;
        Ok((stream(table.map_err(arrow_err)?), warnings))
    }
    /// The database, or the error the CLI's bl_prof commands give for
    /// this path (a TinyProfiler log, a tlog, a timer tree: what it is and
    /// the command that reads it).
    fn database(&self) -> PyResult<&Database> {
        match &self.opened {
            Opened::Blprof(db) => Ok(db),
            _ => Err(match Database::open(&self.path) {
                Err(e) => to_py(e),
                Ok(_) => NotFoundError::new_err(format!("{}: not a bl_prof database", self.path)),
            }),
        }
    }
}

/// A keyword that only some kinds of input take, given to another kind.
fn not_for(keyword: &str, kinds: &str) -> PyErr {
    NotFoundError::new_err(format!("{keyword} applies to {kinds}"))
}

#[pymethods]
impl NativeRun {
    /// The metadata as one JSON object (the wrapper turns it into a dict),
    /// made on first use without the GIL.
    #[getter]
    fn metadata_json(&self, py: Python<'_>) -> PyResult<String> {
        if let Some(json) = self.metadata_json.get() {
            return Ok(json.clone());
        }
        let json = detached(py, || Ok(metadata_json(self)))?;
        Ok(self.metadata_json.get_or_init(|| json).clone())
    }

    /// The functions table and the warnings of building it. `run`: which
    /// run of a TinyProfiler log (1 = the first; default the last);
    /// `event_names`: a tlog trace's names file (`--event-names`).
    #[pyo3(signature = (run = None, event_names = None))]
    fn functions(
        &self,
        py: Python<'_>,
        run: Option<usize>,
        event_names: Option<PathBuf>,
    ) -> PyResult<(ArrowStream, Vec<String>)> {
        let path = self.path.as_str();
        self.check_keywords(run, event_names.as_deref())?;
        let names = event_names.as_deref();
        match &self.opened {
            Opened::Blprof(db) => Self::build(py, || blprof_functions(db)),
            Opened::TinyProfiler(log) => Self::build(py, || tiny_functions(log, path, run)),
            Opened::Tlog(tlog) => Self::build(py, || tlog_functions(tlog, names)),
            Opened::TimerTree(_) => Err(NotFoundError::new_err(format!(
                "{path}: a timer tree has no per-function table (its timers are a tree: use calltree())"
            ))),
        }
    }

    /// The call-tree table (one rank, or all) and the warnings of building
    /// it; keywords as `functions`, plus a database's region filters.
    #[pyo3(signature = (rank = None, include_regions = Vec::new(), exclude_regions = Vec::new(), run = None, event_names = None))]
    fn calltree(
        &self,
        py: Python<'_>,
        rank: Option<usize>,
        include_regions: Vec<String>,
        exclude_regions: Vec<String>,
        run: Option<usize>,
        event_names: Option<PathBuf>,
    ) -> PyResult<(ArrowStream, Vec<String>)> {
        let path = self.path.as_str();
        self.check_keywords(run, event_names.as_deref())?;
        let names = event_names.as_deref();
        let filtered = !include_regions.is_empty() || !exclude_regions.is_empty();
        match &self.opened {
            Opened::Blprof(db) => Self::build(py, || {
                blprof_calltree(db, rank, &include_regions, &exclude_regions)
            }),
            _ if filtered => Err(not_for(
                "region filters",
                "bl_prof databases (a TinyProfiler report has region sections, shown as roots)",
            )),
            Opened::TinyProfiler(log) => Self::build(py, || tiny_calltree(log, path, rank, run)),
            Opened::TimerTree(tree) => Self::build(py, || timer_calltree(tree, path, rank)),
            Opened::Tlog(tlog) => Self::build(py, || tlog_calltree(tlog, rank, names)),
        }
    }

    /// The regions table (or one rank's ranges) and its warnings.
    #[pyo3(signature = (rank = None))]
    fn regions(&self, py: Python<'_>, rank: Option<usize>) -> PyResult<(ArrowStream, Vec<String>)> {
        let db = self.database()?;
        Self::build(py, || regions_table(db, rank))
    }

    /// A table of `comm stats` and its warnings.
    fn comm(
        &self,
        py: Python<'_>,
        by: &str,
        select: CommArgs,
    ) -> PyResult<(ArrowStream, Vec<String>)> {
        let (db, by) = (self.database()?, CommRows::parse(by)?);
        Self::build(py, || comm_table(db, &select, by))
    }

    /// The messages of `comm pairs` and the warnings.
    fn messages(
        &self,
        py: Python<'_>,
        align_clocks: bool,
        select: CommArgs,
    ) -> PyResult<(ArrowStream, Vec<String>)> {
        let db = self.database()?;
        Self::build(py, || messages_table(db, &select, align_clocks))
    }

    /// A table of `comm waits` and its warnings.
    #[pyo3(signature = (align_clocks, by, top, select))]
    fn waits(
        &self,
        py: Python<'_>,
        align_clocks: bool,
        by: &str,
        top: Option<usize>,
        select: CommArgs,
    ) -> PyResult<(ArrowStream, Vec<String>)> {
        let (db, by) = (self.database()?, WaitRows::parse(by, top)?);
        Self::build(py, || waits_table(db, &select, align_clocks, by))
    }

    /// A table of `comm time` and its warnings.
    fn mpi_time(
        &self,
        py: Python<'_>,
        by: &str,
        select: CommArgs,
    ) -> PyResult<(ArrowStream, Vec<String>)> {
        let (db, by) = (self.database()?, TimeRows::parse(by)?);
        Self::build(py, || mpi_time_table(db, &select, by))
    }
}

impl NativeRun {
    /// `run` is for TinyProfiler logs, `event_names` for tlog traces.
    fn check_keywords(&self, run: Option<usize>, event_names: Option<&Path>) -> PyResult<()> {
        if run.is_some() && !matches!(self.opened, Opened::TinyProfiler(_)) {
            return Err(not_for(
                "run=",
                "TinyProfiler logs (the runs a job log holds)",
            ));
        }
        if event_names.is_some() && !matches!(self.opened, Opened::Tlog(_)) {
            return Err(not_for("event_names=", "tlog traces"));
        }
        Ok(())
    }
}
