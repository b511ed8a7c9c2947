//! Parquet tables of a database's records — `calls`, `regions` and `comm` —
//! for engines that query data too big for one machine (DuckDB, Spark,
//! Trino). Rows are read into row groups of [`ROW_GROUP`] rows; the columns
//! of a few row groups (one per thread, at most `MAX_GROUPS_IN_FLIGHT`)
//! are encoded in parallel (into memory) while the round before them is
//! appended to the file and the next ones are read, so memory stays at
//! twice that many row groups and two rounds of encoded chunks whatever
//! the database's size, and the files are the same for any thread count.
//! Strings (function, region and type names) are derived from the number
//! columns as they are encoded and dictionary-encoded by the writer; pages
//! are Snappy-compressed.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use parquet::basic::Compression;
use parquet::column::writer::{ColumnCloseResult, ColumnWriter, get_column_writer};
use parquet::data_type::ByteArray;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{WriterProperties, WriterPropertiesPtr};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnDescPtr;
use rustc_hash::FxHashMap;

use crate::analysis::comm_pairs::{Pair, pair_messages_in};
use crate::analysis::comm_select::CommSelection;
use crate::analysis::regions::Regions;
use crate::error::{Error, Location, Result, Warning};
use crate::formats::blprof::commdata::func_name;
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{CommBlockRecords, MappedTraceBlock, Skipped};
use crate::parallel::Ordered;

/// Rows per row group (about 22 MB of call rows before encoding). Unit
/// tests make them small, so that their small databases span many.
pub const ROW_GROUP: usize = if cfg!(test) { 300 } else { 1 << 19 };

/// Row groups encoded at once. A table's string column is most of its
/// encoding work, so threads need row groups of their own to share it.
const MAX_GROUPS_IN_FLIGHT: usize = 4;

/// Call records read between releases of their mapped bytes.
const RELEASE_CALLS: usize = 64 * 1024;

/// Strings per batch handed to the column writer (a multiple of its
/// 1024-value mini-batches).
const STRING_BATCH: usize = 64 * 1024;

const CALLS: &str = "message calls {
    REQUIRED INT32 proc;
    REQUIRED INT32 depth;
    REQUIRED INT32 fnum;
    REQUIRED BYTE_ARRAY function (UTF8);
    REQUIRED INT64 ncalls;
    REQUIRED DOUBLE inclusive;
    REQUIRED DOUBLE exclusive;
    REQUIRED DOUBLE start;
}";

const FUNCTIONS: &str = "message functions {
    REQUIRED INT32 proc;
    REQUIRED INT32 fnum;
    REQUIRED BYTE_ARRAY function (UTF8);
    REQUIRED INT64 ncalls;
    REQUIRED DOUBLE exclusive;
}";

const REGIONS: &str = "message regions {
    REQUIRED INT32 proc;
    REQUIRED INT32 region;
    REQUIRED BYTE_ARRAY name (UTF8);
    REQUIRED DOUBLE start;
    REQUIRED DOUBLE stop;
}";

const COMM: &str = "message comm {
    REQUIRED INT32 proc;
    REQUIRED INT32 type;
    REQUIRED BYTE_ARRAY type_name (UTF8);
    REQUIRED INT32 size;
    REQUIRED INT32 peer;
    REQUIRED INT32 tag;
    REQUIRED DOUBLE time;
}";

const MESSAGES: &str = "message messages {
    REQUIRED INT32 sender;
    REQUIRED INT32 receiver;
    REQUIRED INT32 tag;
    REQUIRED INT32 size;
    REQUIRED DOUBLE send_time;
    REQUIRED DOUBLE recv_time;
    REQUIRED DOUBLE latency;
    OPTIONAL DOUBLE completed_time;
    OPTIONAL DOUBLE latency_to_completion;
}";

/// One column's values in a row group.
enum Column {
    I32(Vec<i32>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    /// An optional column: the values present, and per row 1 (present) or
    /// 0 (null), Parquet's definition levels.
    OptF64(Vec<f64>, Vec<i16>),
    /// A string column: its values are derived from the other columns when
    /// encoded (see [`Strings`]).
    Text,
}

impl Column {
    fn clear(&mut self) {
        match self {
            Column::I32(v) => v.clear(),
            Column::I64(v) => v.clear(),
            Column::F64(v) => v.clear(),
            Column::OptF64(v, d) => {
                v.clear();
                d.clear();
            }
            Column::Text => {}
        }
    }
}

/// The rows of one row group, by column.
struct RowGroup {
    columns: Vec<Column>,
    rows: usize,
}

impl RowGroup {
    fn i32s(&mut self, c: usize) -> &mut Vec<i32> {
        match &mut self.columns[c] {
            Column::I32(v) => v,
            _ => unreachable!("schema and columns are declared together"),
        }
    }
    fn i64s(&mut self, c: usize) -> &mut Vec<i64> {
        match &mut self.columns[c] {
            Column::I64(v) => v,
            _ => unreachable!("schema and columns are declared together"),
        }
    }
    fn f64s(&mut self, c: usize) -> &mut Vec<f64> {
        match &mut self.columns[c] {
            Column::F64(v) => v,
            _ => unreachable!("schema and columns are declared together"),
        }
    }
    fn i32_at(&self, c: usize) -> &[i32] {
        match self.columns.get(c) {
            Some(Column::I32(v)) => v,
            _ => &[],
        }
    }
    fn clear(&mut self) {
        self.columns.iter_mut().for_each(Column::clear);
        self.rows = 0;
    }
}

/// How a string column is derived from the number columns of its row.
enum Strings {
    /// `function` from `proc` (column 0) and `fnum` (column 2): the
    /// process's name of the function, else `function N`.
    Function(FxHashMap<i32, FunctionNames>),
    /// `name` from `region` (column 1).
    Region(FxHashMap<i32, ByteArray>),
    /// `type_name` from `type` (column 1), `?` when unknown.
    CommType(Vec<ByteArray>, ByteArray),
    /// `function` from `fnum` (column 1): the base profile's names, one
    /// table for every process.
    BaseFunction(Vec<ByteArray>),
    /// A table without string columns.
    None,
}

impl Strings {
    /// The strings of rows `range`, into `out` (cleared first).
    fn values(&self, rg: &RowGroup, range: std::ops::Range<usize>, out: &mut Vec<ByteArray>) {
        out.clear();
        match self {
            Strings::Function(names) => {
                let (procs, fnums) = (rg.i32_at(0), rg.i32_at(2));
                let mut last: Option<(i32, Option<&FunctionNames>)> = None;
                out.extend(range.filter_map(|i| {
                    let (p, f) = (*procs.get(i)?, *fnums.get(i)?);
                    let table = match last {
                        Some((q, t)) if q == p => t,
                        _ => {
                            let t = names.get(&p);
                            last = Some((p, t));
                            t
                        }
                    };
                    Some(
                        table.and_then(|t| t.get(f)).unwrap_or_else(|| {
                            ByteArray::from(format!("function {f}").into_bytes())
                        }),
                    )
                }))
            }
            Strings::Region(names) => {
                out.extend(rg.i32_at(1).get(range).unwrap_or(&[]).iter().map(|n| {
                    names
                        .get(n)
                        .cloned()
                        .unwrap_or_else(|| ByteArray::from(format!("region {n}").into_bytes()))
                }))
            }
            Strings::BaseFunction(names) => {
                out.extend(rg.i32_at(1).get(range).unwrap_or(&[]).iter().map(|&f| {
                    usize::try_from(f)
                        .ok()
                        .and_then(|f| names.get(f))
                        .cloned()
                        .unwrap_or_else(|| ByteArray::from(format!("function {f}").into_bytes()))
                }))
            }
            Strings::None => {}
            Strings::CommType(names, unknown) => {
                out.extend(rg.i32_at(1).get(range).unwrap_or(&[]).iter().map(|&k| {
                    usize::try_from(k)
                        .ok()
                        .and_then(|k| names.get(k))
                        .unwrap_or(unknown)
                        .clone()
                }))
            }
        }
    }
}

/// One process's function names by number: a table indexed by number
/// when the numbers are dense (as the profiler assigns them), else a map.
enum FunctionNames {
    Dense(Vec<Option<ByteArray>>),
    Sparse(FxHashMap<i32, ByteArray>),
}

impl FunctionNames {
    fn new(entries: impl Iterator<Item = (i32, ByteArray)>) -> Self {
        let map: FxHashMap<i32, ByteArray> = entries.collect();
        // Sized by the names held, not by a number read from a file.
        let dense = map
            .keys()
            .all(|&n| n >= 0 && (n as usize) < 2 * map.len() + 64);
        if !dense {
            return FunctionNames::Sparse(map);
        }
        let mut v = vec![None; 2 * map.len() + 64];
        for (n, name) in map {
            v[n as usize] = Some(name);
        }
        FunctionNames::Dense(v)
    }

    fn get(&self, n: i32) -> Option<ByteArray> {
        match self {
            FunctionNames::Dense(v) => usize::try_from(n).ok().and_then(|n| v.get(n)?.clone()),
            FunctionNames::Sparse(m) => m.get(&n).cloned(),
        }
    }
}

fn parquet_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::invalid(Location::file(path), format!("cannot write Parquet: {e}"))
}

/// Encodes column `c` of `rg` into memory: the chunk's bytes and what
/// appending them to a row group needs.
fn encode_column(
    descr: ColumnDescPtr,
    props: WriterPropertiesPtr,
    rg: &RowGroup,
    c: usize,
    strings: &Strings,
    mut buf: Vec<u8>,
) -> parquet::errors::Result<(Bytes, ColumnCloseResult)> {
    use parquet::errors::ParquetError;
    buf.clear();
    let mut buf = TrackedWrite::new(buf);
    let close = {
        let pages = Box::new(SerializedPageWriter::new(&mut buf));
        let writer = get_column_writer(descr, props, pages);
        let mismatch = || ParquetError::General("column and schema types differ".into());
        match (writer, &rg.columns[c]) {
            (ColumnWriter::Int32ColumnWriter(mut w), Column::I32(v)) => {
                w.write_batch(v, None, None)?;
                w.close()?
            }
            (ColumnWriter::Int64ColumnWriter(mut w), Column::I64(v)) => {
                w.write_batch(v, None, None)?;
                w.close()?
            }
            (ColumnWriter::DoubleColumnWriter(mut w), Column::F64(v)) => {
                w.write_batch(v, None, None)?;
                w.close()?
            }
            (ColumnWriter::DoubleColumnWriter(mut w), Column::OptF64(v, defined)) => {
                w.write_batch(v, Some(defined), None)?;
                w.close()?
            }
            (ColumnWriter::ByteArrayColumnWriter(mut w), Column::Text) => {
                let (mut at, mut batch) = (0, Vec::with_capacity(STRING_BATCH.min(rg.rows)));
                while at < rg.rows {
                    let end = rg.rows.min(at + STRING_BATCH);
                    strings.values(rg, at..end, &mut batch);
                    w.write_batch(&batch, None, None)?;
                    at = end;
                }
                w.close()?
            }
            _ => return Err(mismatch()),
        }
    };
    Ok((Bytes::from(buf.into_inner()?), close))
}

/// What fills row groups, in order.
trait Rows {
    /// Adds rows to `rg` until it holds `ROW_GROUP` rows or the rows run out.
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()>;
}

/// Writes one table: row groups read by `rows`, their columns encoded in
/// parallel (a task per column of each of a round of row groups) while the
/// round before is appended and the next is read.
fn write_table(
    out: &Dataset<'_>,
    table: &str,
    schema: &str,
    columns: fn() -> Vec<Column>,
    strings: &Strings,
    rows: &mut dyn Rows,
) -> Result<u64> {
    let path = out.part_path(table)?;
    let err = |e: parquet::errors::ParquetError| parquet_error(&path, e);
    let schema = Arc::new(parse_message_type(schema).map_err(err)?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_key_value_metadata(Some(out.metadata(table)))
            .build(),
    );
    // Written beside its name and renamed when complete: an error (a full
    // disk, damage) never leaves a half file in the dataset.
    let dir = path.parent().unwrap_or(Path::new("."));
    let file = tempfile::Builder::new()
        .prefix(".part-")
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    // A mapped input cut short ends the run (SIGBUS): the file goes too.
    let _pending = crate::source::sigbus::Pending::new(file.path());
    let mut writer = SerializedFileWriter::new(file, schema, props.clone()).map_err(err)?;
    let descrs: Vec<ColumnDescPtr> = writer.schema_descr().columns().to_vec();
    let ncols = descrs.len();
    let inflight = rayon::current_num_threads().clamp(1, MAX_GROUPS_IN_FLIGHT);
    // Row groups to fill again, and encoded chunks' buffers (in column
    // order: each column gets its own column's buffer again, sized for it
    // already), handed back as the rounds are appended.
    let spare: RefCell<Vec<RowGroup>> = RefCell::new(Vec::new());
    let buffers: RefCell<VecDeque<Vec<u8>>> = RefCell::new(VecDeque::new());
    // Row groups, read as the rounds need them: full ones, then the last
    // one short (none when it would be empty).
    let mut failed = None;
    let mut ended = false;
    let groups = std::iter::from_fn(|| {
        if ended {
            return None;
        }
        let mut g = spare.borrow_mut().pop().unwrap_or_else(|| RowGroup {
            columns: columns(),
            rows: 0,
        });
        if let Err(e) = rows.fill(&mut g) {
            failed = Some(e);
            return None;
        }
        ended = g.rows < ROW_GROUP;
        (g.rows > 0).then(|| Arc::new(g))
    });
    let tasks = groups
        .flat_map(|g| (0..ncols).map(move |c| (g.clone(), c)))
        .map(|(g, c)| (g, c, buffers.borrow_mut().pop_front().unwrap_or_default()));
    // The chunks of the row group being appended.
    let mut chunks = Vec::with_capacity(ncols);
    let mut total = 0u64;
    // Appending is a tenth of the work and one thread's: it runs beside
    // the encoding of the next round.
    Ordered::window(inflight * ncols).overlapped().run(
        tasks,
        |(g, c, buf)| {
            let encoded = encode_column(descrs[c].clone(), props.clone(), &g, c, strings, buf);
            (g, encoded)
        },
        |(g, encoded)| -> Result<()> {
            chunks.push(encoded.map_err(err)?);
            if chunks.len() < ncols {
                return Ok(());
            }
            let mut rg = writer.next_row_group().map_err(err)?;
            for (bytes, close) in chunks.drain(..) {
                rg.append_column(&bytes, close).map_err(err)?;
                // No copy: the chunk's bytes are no longer shared.
                buffers.borrow_mut().push_back(Vec::from(bytes));
            }
            rg.close().map_err(err)?;
            total += g.rows as u64;
            if let Ok(mut g) = Arc::try_unwrap(g) {
                g.clear();
                spare.borrow_mut().push(g);
            }
            Ok(())
        },
    )?;
    if let Some(e) = failed {
        return Err(e);
    }
    let file = writer.into_inner().map_err(err)?;
    file.persist(&path).map_err(|e| Error::io(&path, e.error))?;
    Ok(total)
}

/// Rows written per table.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct ParquetRows {
    pub functions: u64,
    pub calls: u64,
    pub regions: u64,
    pub comm: u64,
    pub messages: u64,
}

/// Where a conversion writes: a dataset directory with one directory per
/// table (`calls/`, `regions/`, `comm/`), so an engine reading a table's
/// directory reads that table alone, and the facts every file carries as
/// key-value metadata.
struct Dataset<'a> {
    dir: &'a Path,
    /// (key, value) pairs written into every file's footer.
    facts: Vec<(&'static str, String)>,
    shard: Shard,
    /// The processes of this shard (`None`: every process).
    procs: Option<Vec<usize>>,
}

/// A part of a conversion: shard `index` of `count` converts the
/// `index`-th of `count` contiguous ranges of the database's processes
/// (AMReX writes neighbouring ranks into the same data files, so a shard
/// reads few files). The shards' files together are the whole dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The whole database in one part.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The processes of this shard among `procs` (sorted, distinct).
    pub fn of(&self, procs: &[usize]) -> Vec<usize> {
        let n = procs.len();
        let count = self.count.max(1);
        let (a, b) = (n * self.index / count, n * (self.index + 1) / count);
        procs[a.min(n)..b.min(n)].to_vec()
    }
}

impl Dataset<'_> {
    /// `DIR/<table>/part-<shard>.parquet`, its directory created.
    fn part_path(&self, table: &str) -> Result<PathBuf> {
        let dir = self.dir.join(table);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(dir.join(format!("part-{:05}.parquet", self.shard.index)))
    }

    fn has(&self, proc: usize) -> bool {
        self.procs
            .as_ref()
            .is_none_or(|p| p.binary_search(&proc).is_ok())
    }

    fn metadata(&self, table: &str) -> Vec<KeyValue> {
        self.facts
            .iter()
            .map(|(k, v)| KeyValue::new((*k).to_owned(), v.clone()))
            .chain(std::iter::once(KeyValue::new(
                "profparse.table".to_owned(),
                table.to_owned(),
            )))
            .collect()
    }
}

/// The facts of `db` each file of its dataset carries.
fn facts(db: &Database) -> Vec<(&'static str, String)> {
    let mut facts = vec![
        ("profparse.version", env!("CARGO_PKG_VERSION").to_owned()),
        ("profparse.database", db.dir().display().to_string()),
    ];
    if let Some(n) = db.nprocs() {
        facts.push(("profparse.nprocs", n.to_string()));
    }
    if let Some(t) = db.base.as_ref().and_then(|b| b.calc_end_time) {
        facts.push((
            "profparse.calc_end_time",
            crate::report::numfmt::round_trip::time_text(t),
        ));
    }
    facts
}

/// Writes the tables of `db` as a dataset in `dir`: `functions/` (when the
/// database has a base profile), `calls/` and `regions/` (when it has call
/// traces) and `comm/` (when it has comm data),
/// each a directory of Parquet files; `shard` says which part of the
/// processes this run converts.
pub fn write_parquet(
    db: &Database,
    regions: Option<&Regions>,
    dir: &Path,
    shard: Shard,
) -> Result<(ParquetRows, Vec<Warning>)> {
    crate::report::create_output_dir(dir)?;
    let procs = (shard != Shard::WHOLE).then(|| {
        let mut all: Vec<usize> = Vec::new();
        if db.call_stats.is_some() {
            all.extend(db.trace_index().procs.iter().map(|p| p.proc));
        }
        if db.comm.is_some() {
            all.extend(db.comm_index().procs.iter().map(|p| p.proc));
        }
        all.sort_unstable();
        all.dedup();
        shard.of(&all)
    });
    let mut facts = facts(db);
    facts.push((
        "profparse.shard",
        format!("{}/{}", shard.index, shard.count),
    ));
    let out = Dataset {
        dir,
        facts,
        shard,
        procs,
    };
    let mut rows = ParquetRows::default();
    let warnings = Mutex::new(Vec::new());
    if db.base.is_some() {
        rows.functions = write_functions(db, &out, &warnings)?;
    }
    if db.call_stats.is_some() {
        rows.calls = write_calls(db, &out, &warnings)?;
    }
    if let Some(regions) = regions {
        rows.regions = write_regions(regions, &out)?;
    }
    if db.comm.is_some() {
        rows.comm = write_comm(db, &out, &warnings)?;
        rows.messages = write_messages(db, &out, &warnings)?;
    }
    Ok((
        rows,
        warnings.into_inner().unwrap_or_else(|p| p.into_inner()),
    ))
}

fn warn(warnings: &Mutex<Vec<Warning>>, w: Warning) {
    warnings.lock().unwrap_or_else(|p| p.into_inner()).push(w);
}

/// The call records of every process, block after block (the sentinels
/// left out).
struct CallRows<'a, B> {
    /// The blocks still to read, in order.
    blocks: B,
    /// The block being read and its next call.
    block: Option<(MappedTraceBlock<'a>, usize)>,
    warnings: &'a Mutex<Vec<Warning>>,
}

impl<'a, B> Rows for CallRows<'a, B>
where
    B: Iterator<Item = std::result::Result<MappedTraceBlock<'a>, Warning>>,
{
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        while rg.rows < ROW_GROUP {
            let Some((mapped, at)) = &mut self.block else {
                match self.blocks.next() {
                    Some(Ok(m)) => self.block = Some((m, 0)),
                    Some(Err(w)) => warn(self.warnings, w),
                    None => break,
                }
                continue;
            };
            let block = mapped.records();
            let n = block.calls_len();
            // A slice at a time, released once read (a mapped block would
            // otherwise stay resident).
            let end = n.min(*at + (ROW_GROUP - rg.rows)).min(*at + RELEASE_CALLS);
            let proc = mapped.proc().proc as i32;
            let [
                Column::I32(procs),
                Column::I32(depth),
                Column::I32(fnum),
                Column::Text,
                Column::I64(ncalls),
                Column::F64(inclusive),
                Column::F64(exclusive),
                Column::F64(start),
            ] = &mut rg.columns[..]
            else {
                unreachable!("schema and columns are declared together")
            };
            for i in *at..end {
                let c = block.call(i);
                if c.is_sentinel() {
                    continue;
                }
                procs.push(proc);
                depth.push(c.depth);
                fnum.push(c.fnum);
                ncalls.push(c.ncalls);
                inclusive.push(c.inclusive);
                exclusive.push(c.exclusive);
                start.push(c.start);
                rg.rows += 1;
            }
            mapped.release_calls_before(end);
            *at = end;
            if end >= n {
                // Done with the block (its progress counts when dropped).
                self.block = None;
            }
        }
        Ok(())
    }
}

fn write_calls(db: &Database, out: &Dataset<'_>, warnings: &Mutex<Vec<Warning>>) -> Result<u64> {
    use Column::*;
    let procs = &db.trace_index().procs;
    // Names once per process (a ByteArray clone shares its bytes).
    let names = procs
        .iter()
        .filter_map(|p| {
            let proc = i32::try_from(p.proc).ok()?;
            let table = FunctionNames::new(p.functions.entries.iter().filter_map(|(n, name)| {
                Some((
                    i32::try_from(*n).ok()?,
                    ByteArray::from(name.as_bytes().to_vec()),
                ))
            }));
            Some((proc, table))
        })
        .collect();
    let mut rows = CallRows {
        blocks: db
            .trace_blocks(out.procs.as_deref())
            .mapped_blocks(Skipped::TraceBlock),
        block: None,
        warnings,
    };
    write_table(
        out,
        "calls",
        CALLS,
        || {
            vec![
                I32(vec![]),
                I32(vec![]),
                I32(vec![]),
                Text,
                I64(vec![]),
                F64(vec![]),
                F64(vec![]),
                F64(vec![]),
            ]
        },
        &Strings::Function(names),
        &mut rows,
    )
}

/// The base profile: per process and function, calls and exclusive
/// seconds (what `summary` reads).
struct FunctionRows<'a> {
    profile: &'a crate::formats::blprof::base::BaseProfile<'a>,
    /// The next (block, function) to write.
    at: (usize, usize),
    shard: &'a Dataset<'a>,
}

impl Rows for FunctionRows<'_> {
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        let nfuncs = self.profile.nfuncs();
        while rg.rows < ROW_GROUP && self.at.0 < self.profile.len() {
            let (proc, block) = self.profile.block(self.at.0);
            if !self.shard.has(proc) || self.at.1 >= nfuncs {
                self.at = (self.at.0 + 1, 0);
                continue;
            }
            let f = self.at.1;
            rg.i32s(0).push(i32::try_from(proc).unwrap_or(i32::MAX));
            rg.i32s(1).push(i32::try_from(f).unwrap_or(i32::MAX));
            rg.i64s(3).push(block.ncalls(f));
            rg.f64s(4).push(block.time(f));
            rg.rows += 1;
            self.at.1 += 1;
        }
        Ok(())
    }
}

fn write_functions(
    db: &Database,
    out: &Dataset<'_>,
    warnings: &Mutex<Vec<Warning>>,
) -> Result<u64> {
    use Column::*;
    let mut found = Vec::new();
    let profile = db.base_profile(&mut found)?;
    for w in found {
        warn(warnings, w);
    }
    let names = profile
        .header
        .functions
        .iter()
        .map(|n| ByteArray::from(n.as_bytes().to_vec()))
        .collect();
    let mut rows = FunctionRows {
        profile: &profile,
        at: (0, 0),
        shard: out,
    };
    write_table(
        out,
        "functions",
        FUNCTIONS,
        || vec![I32(vec![]), I32(vec![]), Text, I64(vec![]), F64(vec![])],
        &Strings::BaseFunction(names),
        &mut rows,
    )
}

/// The closed ranges of every region of every process.
struct RegionRows<'a> {
    rows: Box<dyn Iterator<Item = (i32, i32, f64, f64)> + Send + 'a>,
}

impl Rows for RegionRows<'_> {
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        while rg.rows < ROW_GROUP {
            let Some((proc, number, start, stop)) = self.rows.next() else {
                break;
            };
            rg.i32s(0).push(proc);
            rg.i32s(1).push(number);
            rg.f64s(3).push(start);
            rg.f64s(4).push(stop);
            rg.rows += 1;
        }
        Ok(())
    }
}

fn write_regions(regions: &Regions, out: &Dataset<'_>) -> Result<u64> {
    use Column::*;
    let names = regions
        .procs
        .iter()
        .flat_map(|p| p.ranges.keys().copied())
        .map(|n| (n, ByteArray::from(regions.name(n).into_bytes())))
        .collect();
    let mut rows = RegionRows {
        rows: Box::new(
            regions
                .procs
                .iter()
                .filter(|p| out.has(p.proc))
                .flat_map(|p| {
                    p.ranges.iter().flat_map(move |(&number, ranges)| {
                        ranges
                            .iter()
                            .map(move |r| (p.proc as i32, number, r.start, r.stop))
                    })
                }),
        ),
    };
    write_table(
        out,
        "regions",
        REGIONS,
        || vec![I32(vec![]), I32(vec![]), Text, F64(vec![]), F64(vec![])],
        &Strings::Region(names),
        &mut rows,
    )
}

/// The comm records of every process, block after block.
struct CommRows<'a, B> {
    /// The blocks still to read, in order.
    blocks: B,
    /// The block being read.
    block: Option<CommBlockRecords<'a>>,
    warnings: &'a Mutex<Vec<Warning>>,
}

impl<'a, B> Rows for CommRows<'a, B>
where
    B: Iterator<Item = std::result::Result<CommBlockRecords<'a>, Warning>>,
{
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        while rg.rows < ROW_GROUP {
            let Some(b) = &mut self.block else {
                match self.blocks.next() {
                    Some(Ok(b)) => self.block = Some(b),
                    Some(Err(w)) => warn(self.warnings, w),
                    None => break,
                }
                continue;
            };
            let proc = b.proc.proc as i32;
            let mut more = false;
            let [
                Column::I32(procs),
                Column::I32(kind),
                Column::Text,
                Column::I32(size),
                Column::I32(peer),
                Column::I32(tag),
                Column::F64(time),
            ] = &mut rg.columns[..]
            else {
                unreachable!("schema and columns are declared together")
            };
            for r in b.records.by_ref() {
                procs.push(proc);
                kind.push(r.kind);
                size.push(r.size);
                peer.push(r.peer);
                tag.push(r.tag);
                time.push(r.time);
                rg.rows += 1;
                if rg.rows >= ROW_GROUP {
                    more = true;
                    break;
                }
            }
            if !more
                && let Some(b) = self.block.take()
                && let Some(w) = b.finish(Skipped::CommBlockCutShort)
            {
                warn(self.warnings, w);
            }
        }
        Ok(())
    }
}

fn write_comm(db: &Database, out: &Dataset<'_>, warnings: &Mutex<Vec<Warning>>) -> Result<u64> {
    use Column::*;
    let type_names: Vec<ByteArray> = (0..=42)
        .map(|k| ByteArray::from(func_name(k).unwrap_or("?").as_bytes().to_vec()))
        .collect();
    let unknown = ByteArray::from(b"?".to_vec());
    let mut rows = CommRows {
        blocks: db
            .every_comm_block_of(out.procs.as_deref())
            .record_blocks(Skipped::CommBlock),
        block: None,
        warnings,
    };
    write_table(
        out,
        "comm",
        COMM,
        || {
            vec![
                I32(vec![]),
                I32(vec![]),
                Text,
                I32(vec![]),
                I32(vec![]),
                I32(vec![]),
                F64(vec![]),
            ]
        },
        &Strings::CommType(type_names, unknown),
        &mut rows,
    )
}

/// The matched messages, as chunks of pairs come from the pairing.
struct MessageRows {
    chunks: std::sync::mpsc::Receiver<Vec<Pair>>,
    chunk: std::vec::IntoIter<Pair>,
}

impl Rows for MessageRows {
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        while rg.rows < ROW_GROUP {
            let Some(p) = self.chunk.next() else {
                match self.chunks.recv() {
                    Ok(c) => self.chunk = c.into_iter(),
                    Err(_) => break, // the pairing is done
                }
                continue;
            };
            let [
                Column::I32(sender),
                Column::I32(receiver),
                Column::I32(tag),
                Column::I32(size),
                Column::F64(send_time),
                Column::F64(recv_time),
                Column::F64(latency),
                Column::OptF64(completed, completed_defined),
                Column::OptF64(to_completion, to_completion_defined),
            ] = &mut rg.columns[..]
            else {
                unreachable!("schema and columns are declared together")
            };
            sender.push(i32::try_from(p.from).unwrap_or(i32::MAX));
            receiver.push(i32::try_from(p.to).unwrap_or(i32::MAX));
            tag.push(p.tag);
            size.push(p.size);
            send_time.push(p.send_time);
            recv_time.push(p.recv_time);
            latency.push(p.latency);
            let optional = |v: Option<f64>, values: &mut Vec<f64>, defined: &mut Vec<i16>| {
                defined.push(i16::from(v.is_some()));
                values.extend(v);
            };
            optional(p.completed_time, completed, completed_defined);
            optional(
                p.latency_to_completion,
                to_completion,
                to_completion_defined,
            );
            rg.rows += 1;
        }
        Ok(())
    }
}

/// `messages/`: every send paired with its receive, as `comm pairs` pairs
/// them. Pairing needs both ends, so every shard pairs the whole profile
/// and keeps the messages its processes sent: the shards' rows are
/// disjoint and together complete. The pairing runs on its own thread and
/// hands its chunks over a short queue, so memory holds a few chunks.
fn write_messages(db: &Database, out: &Dataset<'_>, warnings: &Mutex<Vec<Warning>>) -> Result<u64> {
    use Column::*;
    let (send, chunks) = std::sync::mpsc::sync_channel::<Vec<Pair>>(4);
    std::thread::scope(|scope| {
        let pairing = scope.spawn(move || {
            let (_, found) = pair_messages_in(
                db,
                &CommSelection::all(),
                None,
                Vec::new,
                |v: &mut Vec<Pair>, p| {
                    if out.has(p.from) {
                        v.push(p.clone());
                    }
                },
                // A writer that failed stops reading: the rest is dropped.
                &mut |v| {
                    if !v.is_empty() {
                        let _ = send.send(v);
                    }
                },
            );
            found
        });
        let mut rows = MessageRows {
            chunks,
            chunk: Vec::new().into_iter(),
        };
        let written = write_table(
            out,
            "messages",
            MESSAGES,
            || {
                vec![
                    I32(vec![]),
                    I32(vec![]),
                    I32(vec![]),
                    I32(vec![]),
                    F64(vec![]),
                    F64(vec![]),
                    F64(vec![]),
                    OptF64(vec![], vec![]),
                    OptF64(vec![], vec![]),
                ]
            },
            &Strings::None,
            &mut rows,
        );
        // Unblocks the pairing if the writer stopped early.
        drop(rows);
        let Ok(found) = pairing.join() else {
            return Err(Error::invalid(
                Location::file(out.dir),
                "the pairing of messages failed: messages/ is incomplete",
            ));
        };
        warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(found);
        written
    })
}

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};

    use super::write_parquet;
    use crate::analysis::regions::Regions;
    use crate::formats::blprof::database::Database;

    /// Many row groups, several in flight: the same files for any thread
    /// count, every row in them once.
    #[test]
    fn row_groups_in_flight_write_the_same_files() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof/small4/bl_prof");
        let db = Database::open(&path).unwrap();
        let regions = Regions::load(&db);
        // Counted here, not by the writer.
        let warnings = std::sync::Mutex::new(Vec::new());
        let mut calls = 0u64;
        for p in db.trace_blocks(None).procs() {
            let w = p.for_each_call(|c| calls += u64::from(!c.is_sentinel()));
            warnings.lock().unwrap().extend(w);
        }
        let mut outputs = Vec::new();
        for threads in [1, 2, 3, 5] {
            let dir = tempfile::tempdir().unwrap();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (rows, _) = pool
                .install(|| write_parquet(&db, Some(&regions), dir.path(), super::Shard::WHOLE))
                .unwrap();
            let mut files = Vec::new();
            for (table, expected) in [
                ("calls", rows.calls),
                ("regions", rows.regions),
                ("comm", rows.comm),
            ] {
                let file = dir.path().join(table).join("part-00000.parquet");
                let reader =
                    SerializedFileReader::new(std::fs::File::open(&file).unwrap()).unwrap();
                let meta = reader.metadata();
                let stored: i64 = meta.row_groups().iter().map(|g| g.num_rows()).sum();
                assert_eq!(stored as u64, expected, "{table}, {threads} threads");
                assert_eq!(
                    meta.num_row_groups(),
                    (expected as usize).div_ceil(super::ROW_GROUP),
                    "{table}"
                );
                files.push(std::fs::read(file).unwrap());
            }
            assert_eq!(rows.calls, calls);
            assert!(rows.calls as usize > 8 * super::ROW_GROUP, "{rows:?}");
            outputs.push(files);
        }
        assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    }
}
