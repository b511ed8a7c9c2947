//! One table written as a Parquet file: row groups filled by a [`Rows`]
//! source, their columns encoded in parallel (into memory) while the round
//! before is appended, strings derived from the number columns as they are
//! encoded.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::Compression;
use parquet::column::writer::{ColumnCloseResult, ColumnWriter, get_column_writer};
use parquet::data_type::ByteArray;
use parquet::file::properties::{WriterProperties, WriterPropertiesPtr};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnDescPtr;
use rustc_hash::FxHashMap;

use crate::error::{Error, Location, Result};
use crate::parallel::Ordered;

use super::Dataset;

/// Rows per row group (about 22 MB of call rows before encoding). Unit
/// tests make them small, so that their small databases span many.
pub const ROW_GROUP: usize = if cfg!(test) { 300 } else { 1 << 19 };

/// Row groups encoded at once. A table's string column is most of its
/// encoding work, so threads need row groups of their own to share it.
const MAX_GROUPS_IN_FLIGHT: usize = 4;

/// Strings per batch handed to the column writer (a multiple of its
/// 1024-value mini-batches).
const STRING_BATCH: usize = 64 * 1024;

/// One column's values in a row group.
pub(super) enum Column {
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
pub(super) struct RowGroup {
    pub(super) columns: Vec<Column>,
    pub(super) rows: usize,
}

impl RowGroup {
    pub(super) fn i32s(&mut self, c: usize) -> &mut Vec<i32> {
        match &mut self.columns[c] {
            Column::I32(v) => v,
            _ => unreachable!("schema and columns are declared together"),
        }
    }
    pub(super) fn f64s(&mut self, c: usize) -> &mut Vec<f64> {
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
    pub(super) fn clear(&mut self) {
        self.columns.iter_mut().for_each(Column::clear);
        self.rows = 0;
    }
}

/// How a string column is derived from the number columns of its row.
pub(super) enum Strings {
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
pub(super) enum FunctionNames {
    Dense(Vec<Option<ByteArray>>),
    Sparse(FxHashMap<i32, ByteArray>),
}

impl FunctionNames {
    pub(super) fn new(entries: impl Iterator<Item = (i32, ByteArray)>) -> Self {
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

pub(super) fn parquet_error(path: &Path, e: impl std::fmt::Display) -> Error {
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
pub(super) trait Rows {
    /// Adds rows to `rg` until it holds `ROW_GROUP` rows or the rows run out.
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()>;
}

/// Writes one table: row groups read by `rows`, their columns encoded in
/// parallel (a task per column of each of a round of row groups) while the
/// round before is appended and the next is read.
pub(super) fn write_table(
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
