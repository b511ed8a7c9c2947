//! `profparse._profparse`: the native part of the Python package.
//!
//! It opens an input with the library (never the CLI binary), builds the
//! tables as Arrow arrays in Rust and hands them to Python through the Arrow
//! C stream interface: a `PyCapsule` named `arrow_array_stream` returned by
//! `__arrow_c_stream__`, which `pyarrow.table()` (or polars, DuckDB, ...)
//! takes without copying through Python objects. The Python wrapper
//! (`pysrc/profparse/__init__.py`) turns the streams into `pyarrow.Table`s
//! and the warnings into `warnings.warn` calls.
//!
//! The GIL is released (`Python::detach`) while an input is read and while
//! a table is built.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    ArrayRef, Float64Array, Int64Array, RecordBatch, RecordBatchIterator, StringArray, UInt32Array,
    UInt64Array,
};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use profparse::{
    CallTree, Database, Input, InputKind, RegionFilter, Unfiltered, Warning, base_summary,
    database_info, process_trees, select_calls,
};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

create_exception!(
    profparse,
    Error,
    PyException,
    "Base class of every error profparse raises: the library's message (the file and the line or byte offset)."
);
create_exception!(
    profparse,
    ReadError,
    Error,
    "A file or directory that could not be opened or read (it is missing, or permission was denied)."
);
create_exception!(
    profparse,
    FormatError,
    Error,
    "An input that is not of a kind profparse reads, or is damaged past reading."
);
create_exception!(
    profparse,
    NotFoundError,
    Error,
    "A process, region, part of a database or item the input does not have."
);

/// The Python exception for a library error: its class by kind of failure,
/// its message the library's (as the CLI prints it).
fn to_py(e: profparse::Error) -> PyErr {
    let message = e.to_string();
    match e {
        profparse::Error::Io { .. } => ReadError::new_err(message),
        profparse::Error::NotFound(_) | profparse::Error::MissingPart { .. } => {
            NotFoundError::new_err(message)
        }
        _ => FormatError::new_err(message),
    }
}

fn arrow_err(e: ArrowError) -> PyErr {
    Error::new_err(format!("building an Arrow table: {e}"))
}

/// Runs `f` without the GIL. A panic (a bug: bad input is an error, never a
/// panic) comes back as `profparse.Error`, not as pyo3's `PanicException`.
fn detached<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> profparse::Result<T> + Send,
) -> PyResult<T> {
    py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)))
        .map_err(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Error::new_err(format!(
                "internal error (a bug in profparse: please report it): {what}"
            ))
        })?
        .map_err(to_py)
}

/// The warnings as the CLI prints them (`location: message`).
fn texts(warnings: &[Warning]) -> Vec<String> {
    warnings.iter().map(ToString::to_string).collect()
}

/// An opened input.
enum Opened {
    Blprof(Box<Database>),
    TinyProfiler(profparse::TinyProfilerLog),
    TimerTree(CallTree<profparse::Timing>),
    /// Kinds read for their metadata so far: their tables come later.
    Other,
}

/// What `open` found: the input, its kind and metadata.
#[pyclass(module = "profparse._profparse", frozen)]
struct NativeRun {
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    path: String,
    #[pyo3(get)]
    nprocs: Option<u64>,
    /// The metadata as one JSON object (the wrapper turns it into a dict).
    #[pyo3(get)]
    metadata_json: String,
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
            let info = database_info(&db);
            meta.insert("database".into(), db.dir().display().to_string().into());
            if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(&info) {
                for (k, v) in fields {
                    if k != "dir" && k != "nprocs" {
                        meta.insert(k, v);
                    }
                }
            }
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
            (Some(tlog.nprocs() as u64), Opened::Other)
        }
    };
    meta.insert("nprocs".into(), nprocs.into());
    let run = NativeRun {
        kind: kind_name(input.kind),
        path: given,
        nprocs,
        metadata_json: serde_json::Value::Object(meta).to_string(),
        opened,
    };
    Ok((run, warnings))
}

/// `open(path)`: the run at `path` and the warnings of reading it.
#[pyfunction]
fn open(py: Python<'_>, path: PathBuf) -> PyResult<(NativeRun, Vec<String>)> {
    detached(py, || open_path(path))
}

/// One table on its way to Python: a record batch that `__arrow_c_stream__`
/// exports once.
#[pyclass(module = "profparse._profparse", frozen)]
struct ArrowStream {
    batch: Mutex<Option<RecordBatch>>,
}

#[pymethods]
impl ArrowStream {
    /// The Arrow PyCapsule interface: the table as an `ArrowArrayStream`.
    /// A requested schema is ignored (the columns are already of the types
    /// that the schema states).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batch = self
            .batch
            .lock()
            .map_err(|_| Error::new_err("the table's lock was poisoned"))?
            .take()
            .ok_or_else(|| Error::new_err("this Arrow stream was already consumed"))?;
        let schema = batch.schema();
        let reader = RecordBatchIterator::new([Ok(batch)], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // The capsule owns the stream: its destructor drops (releases) it
        // unless the consumer moved it out, which leaves it released.
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

fn stream(batch: RecordBatch) -> ArrowStream {
    ArrowStream {
        batch: Mutex::new(Some(batch)),
    }
}

fn batch(columns: Vec<(&str, DataType, bool, ArrayRef)>) -> Result<RecordBatch, ArrowError> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, t, null, _)| Field::new(*n, t.clone(), *null))
        .collect();
    let arrays = columns.into_iter().map(|c| c.3).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

/// A table or a library error, built without the GIL.
type Built = profparse::Result<(Result<RecordBatch, ArrowError>, Vec<String>)>;

/// `functions()` of a database: `summary --format json`'s `functions`.
fn blprof_functions(db: &Database) -> Built {
    let mut warnings = Vec::new();
    let profile = db.base_profile(&mut warnings)?;
    if profile.is_empty() {
        // The CLI's error (`summary`): the base header names the database.
        return Err(profparse::Error::NothingReadable {
            location: profparse::Location::File {
                path: db.dir().join("bl_prof_H"),
            },
            message: "no process has a readable base block".into(),
        });
    }
    let summary = base_summary(&profile, 0);
    let f = &summary.functions;
    let s = |g: fn(&profparse::FunctionStats) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from_iter_values(f.iter().map(g)))
    };
    let i = |g: fn(&profparse::FunctionStats) -> i64| -> ArrayRef {
        Arc::new(Int64Array::from_iter_values(f.iter().map(g)))
    };
    let proc = |g: fn(&profparse::FunctionStats) -> Option<usize>| -> ArrayRef {
        Arc::new(
            f.iter()
                .map(|x| g(x).map(|p| p as u32))
                .collect::<UInt32Array>(),
        )
    };
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        f.iter().map(|x| x.name.as_str()),
    ));
    use DataType::{Float64, Int64, UInt32, Utf8};
    let table = batch(vec![
        ("name", Utf8, false, names),
        ("calls", Int64, false, i(|x| x.ncalls_total)),
        ("ncalls", Int64, false, i(|x| x.ncalls)),
        ("min", Float64, false, s(|x| x.min)),
        ("avg", Float64, false, s(|x| x.avg)),
        ("max", Float64, false, s(|x| x.max)),
        ("stddev", Float64, false, s(|x| x.stddev)),
        ("coeff_var", Float64, false, s(|x| x.coeff_var)),
        ("percent", Float64, false, s(|x| x.percent)),
        ("min_proc", UInt32, true, proc(|x| x.min_proc)),
        ("max_proc", UInt32, true, proc(|x| x.max_proc)),
        (
            "imbalance",
            Float64,
            true,
            Arc::new(f.iter().map(|x| x.imbalance).collect::<Float64Array>()),
        ),
    ]);
    Ok((table, texts(&warnings)))
}

/// `calltree(rank)` of a database: one row per (node, rank) of the
/// per-process trees, nodes numbered by the pre-order of the tree merged
/// over the processes in the table (the tree `calltree --format json`
/// shows), so that a node's number is the same at every rank.
fn blprof_calltree(
    db: &Database,
    rank: Option<usize>,
    include: &[String],
    exclude: &[String],
) -> Built {
    db.require(profparse::Part::Trace)?;
    let mut warnings = texts(db.trace_warnings());
    let filter = RegionFilter::with_names(None, include, exclude);
    let (regions, selection) = select_calls(db, &filter, Unfiltered::Everything);
    warnings.extend(texts(&regions.warnings));
    let selection = selection?;
    let (trees, w) = process_trees(db, &selection, rank);
    warnings.extend(texts(&w));
    if let Some(r) = rank
        && trees.is_empty()
    {
        return Err(profparse::Error::NotFound(format!(
            "rank {r}: no call traces for that process"
        )));
    }
    let trees: Vec<(Option<usize>, CallTree)> =
        trees.into_iter().map(|(p, t)| (Some(p), t)).collect();
    Ok((tree_table(&trees, true), warnings))
}

/// The call-tree table of some trees (one per rank, or one with no rank):
/// one row per (node, rank), nodes numbered by the pre-order of the trees
/// merged by path, so that a node's number is the same at every rank.
/// `hide_uncalled`: leave out subtrees without calls (all of them outside
/// the selected regions), as the CLI's `calltree` does; not for timer
/// trees, whose files record no calls.
fn tree_table(
    trees: &[(Option<usize>, CallTree)],
    hide_uncalled: bool,
) -> Result<RecordBatch, ArrowError> {
    // The merged tree's shape: its pre-order numbers the nodes that are
    // shown (a subtree without calls, all of it outside the selected
    // regions, is left out, as the CLI's reports leave it out).
    let mut union: CallTree = CallTree::new();
    for (_, t) in trees {
        union.merge_with(t, |a, b| a.calls += b.calls);
    }
    let union_calls = subtree_calls(&union);
    let mut number = vec![u32::MAX; union.len() + 1];
    let mut depth = vec![0u32; union.len() + 1];
    let shown = union
        .preorder()
        .into_iter()
        .filter(|(id, _)| !hide_uncalled || union_calls[id.0 as usize] > 0);
    for (i, (id, d)) in shown.enumerate() {
        number[id.0 as usize] = i as u32;
        depth[id.0 as usize] = d as u32;
    }
    let rows: usize = trees.iter().map(|(_, t)| t.len()).sum();
    let mut node = Vec::with_capacity(rows);
    let mut parent = Vec::with_capacity(rows);
    let mut name = Vec::with_capacity(rows);
    let mut depths = Vec::with_capacity(rows);
    let mut ranks = Vec::with_capacity(rows);
    let mut calls = Vec::with_capacity(rows);
    let mut inclusive = Vec::with_capacity(rows);
    let mut exclusive = Vec::with_capacity(rows);
    for (proc, t) in trees {
        let sub = subtree_calls(t);
        // This tree's nodes in the merged tree, found through their parents.
        let mut in_union = vec![union.root(); t.len() + 1];
        for (id, _) in t.preorder() {
            let up = t
                .node(id)
                .parent()
                .map_or(union.root(), |p| in_union[p.0 as usize]);
            let Some(u) = union.find_child(up, t.name(id)) else {
                continue; // merged above: cannot be missing
            };
            in_union[id.0 as usize] = u;
            if hide_uncalled && sub[id.0 as usize] == 0 {
                continue;
            }
            let m = &t.node(id).metrics;
            node.push(number[u.0 as usize]);
            parent.push(
                union
                    .node(u)
                    .parent()
                    .filter(|&p| p != union.root())
                    .map(|p| number[p.0 as usize]),
            );
            name.push(t.name(id));
            depths.push(depth[u.0 as usize]);
            ranks.push(proc.map(|p| p as u32));
            calls.push(m.calls);
            inclusive.push(m.inclusive);
            exclusive.push(m.exclusive);
        }
    }
    use DataType::{Float64, UInt32, UInt64, Utf8};
    batch(vec![
        ("node", UInt32, false, Arc::new(UInt32Array::from(node))),
        ("parent", UInt32, true, Arc::new(UInt32Array::from(parent))),
        ("name", Utf8, false, Arc::new(StringArray::from(name))),
        ("depth", UInt32, false, Arc::new(UInt32Array::from(depths))),
        ("rank", UInt32, true, Arc::new(UInt32Array::from(ranks))),
        ("calls", UInt64, false, Arc::new(UInt64Array::from(calls))),
        (
            "inclusive",
            Float64,
            false,
            Arc::new(Float64Array::from(inclusive)),
        ),
        (
            "exclusive",
            Float64,
            false,
            Arc::new(Float64Array::from(exclusive)),
        ),
    ])
}

/// The calls of each node's subtree (itself included), by node id: a node
/// is created after its parent, so a walk down the ids adds each node's
/// total to its parent's.
fn subtree_calls(tree: &CallTree) -> Vec<u64> {
    let mut calls: Vec<u64> = (0..=tree.len())
        .map(|i| tree.node(profparse::NodeId(i as u32)).metrics.calls)
        .collect();
    for i in (1..=tree.len()).rev() {
        if let Some(p) = tree.node(profparse::NodeId(i as u32)).parent() {
            calls[p.0 as usize] += calls[i];
        }
    }
    calls
}

/// The report of a TinyProfiler log that the CLI shows: the last run.
fn tiny_report<'a>(
    log: &'a profparse::TinyProfilerLog,
    path: &str,
) -> profparse::Result<&'a profparse::TinyProfilerReport> {
    profparse::tinyprofiler_run(log, None, path)
}

/// `functions()` of a TinyProfiler log: `summary --format json`'s
/// `functions` (the last run's timers; the `Other` row is left out, as it
/// is in that list).
fn tiny_functions(log: &profparse::TinyProfilerLog, path: &str) -> Built {
    let t = &tiny_report(log, path)?.tables.timers;
    let s = |g: &dyn Fn(usize) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from_iter_values((0..t.len()).map(g)))
    };
    use DataType::{Float64, UInt64, Utf8};
    let table = batch(vec![
        (
            "name",
            Utf8,
            false,
            Arc::new(StringArray::from_iter_values(
                t.iter().map(|x| x.name.as_str()),
            )),
        ),
        (
            "calls",
            UInt64,
            false,
            Arc::new(UInt64Array::from_iter_values(t.iter().map(|x| x.ncalls))),
        ),
        ("min", Float64, false, s(&|i| t[i].exclusive.min)),
        ("avg", Float64, false, s(&|i| t[i].exclusive.avg)),
        ("max", Float64, false, s(&|i| t[i].exclusive.max)),
        ("inclusive_min", Float64, false, s(&|i| t[i].inclusive.min)),
        ("inclusive_avg", Float64, false, s(&|i| t[i].inclusive.avg)),
        ("inclusive_max", Float64, false, s(&|i| t[i].inclusive.max)),
        ("percent", Float64, false, s(&|i| t[i].exclusive_percent)),
        (
            "inclusive_percent",
            Float64,
            false,
            s(&|i| t[i].inclusive_percent),
        ),
    ]);
    Ok((table, Vec::new()))
}

/// `calltree()` of a TinyProfiler log: the flat tree `calltree LOG` shows
/// (timers as roots, `REGION name` roots holding their timers), one row per
/// node with no rank: calls and times summed over the ranks, as the JSON's.
fn tiny_calltree(log: &profparse::TinyProfilerLog, path: &str, rank: Option<usize>) -> Built {
    if rank.is_some() {
        return Err(profparse::Error::NotFound(format!(
            "{path}: a TinyProfiler report has no per-rank figures (its tables give the minimum, mean and maximum over ranks): no tree of one rank"
        )));
    }
    let (tree, _) = profparse::tinyprofiler_tree(tiny_report(log, path)?);
    let tree: CallTree = tree.map(|_, s| s.total);
    Ok((tree_table(&[(None, tree)], true), Vec::new()))
}

/// `calltree()` of a timer tree: one row per timer with no rank, its
/// inclusive seconds the file's, its exclusive seconds those minus its
/// children's (as `tree show --layout table`), its calls the starts when
/// the tree recorded them (0 from a file).
fn timer_calltree(tree: &CallTree<profparse::Timing>, path: &str, rank: Option<usize>) -> Built {
    if rank.is_some() {
        return Err(profparse::Error::NotFound(format!(
            "{path}: a timer-tree file holds one tree, of no particular rank: no tree of one rank"
        )));
    }
    let metrics: CallTree = tree.map(|id, t| {
        let children: f64 = tree
            .node(id)
            .children()
            .iter()
            .map(|&c| tree.node(c).metrics.seconds)
            .sum();
        profparse::Metrics {
            calls: t.calls,
            inclusive: t.seconds,
            exclusive: t.seconds - children,
        }
    });
    Ok((tree_table(&[(None, metrics)], false), Vec::new()))
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

    fn not_yet(&self, what: &str) -> PyErr {
        pyo3::exceptions::PyNotImplementedError::new_err(format!(
            "{what}() of a {} input is not implemented yet (see docs/PYTHON.md)",
            self.kind
        ))
    }
}

#[pymethods]
impl NativeRun {
    /// The functions table and the warnings of building it.
    fn functions(&self, py: Python<'_>) -> PyResult<(ArrowStream, Vec<String>)> {
        let path = self.path.as_str();
        match &self.opened {
            Opened::Blprof(db) => Self::build(py, || blprof_functions(db)),
            Opened::TinyProfiler(log) => Self::build(py, || tiny_functions(log, path)),
            Opened::TimerTree(_) | Opened::Other => Err(self.not_yet("functions")),
        }
    }

    /// The call-tree table (one rank, or all) and the warnings of building it.
    #[pyo3(signature = (rank = None, include_regions = Vec::new(), exclude_regions = Vec::new()))]
    fn calltree(
        &self,
        py: Python<'_>,
        rank: Option<usize>,
        include_regions: Vec<String>,
        exclude_regions: Vec<String>,
    ) -> PyResult<(ArrowStream, Vec<String>)> {
        let path = self.path.as_str();
        let filtered = !include_regions.is_empty() || !exclude_regions.is_empty();
        match &self.opened {
            Opened::Blprof(db) => Self::build(py, || {
                blprof_calltree(db, rank, &include_regions, &exclude_regions)
            }),
            Opened::TinyProfiler(_) | Opened::TimerTree(_) if filtered => {
                Err(NotFoundError::new_err(
                    "region filters apply to bl_prof databases (a TinyProfiler report has region sections, shown as roots)",
                ))
            }
            Opened::TinyProfiler(log) => Self::build(py, || tiny_calltree(log, path, rank)),
            Opened::TimerTree(tree) => Self::build(py, || timer_calltree(tree, path, rank)),
            Opened::Other => Err(self.not_yet("calltree")),
        }
    }
}

#[pymodule]
fn _profparse(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_class::<NativeRun>()?;
    m.add_class::<ArrowStream>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("Error", py.get_type::<Error>())?;
    m.add("ReadError", py.get_type::<ReadError>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    m.add("NotFoundError", py.get_type::<NotFoundError>())?;
    Ok(())
}
