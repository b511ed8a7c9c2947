//! Parquet tables of a database's records — `calls`, `regions` and `comm` —
//! for engines that query data too big for one machine (DuckDB, Spark,
//! Trino). Rows are buffered in row groups of [`ROW_GROUP`] rows and written
//! as they fill, so memory stays at one row group whatever the database's
//! size. Strings (function, region and type names) are dictionary-encoded by
//! the writer; pages are Snappy-compressed.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

use crate::analysis::regions::Regions;
use crate::analysis::trace_summary::for_each_call;
use crate::error::{Error, Location, Result, Warning};
use crate::formats::blprof::commdata::func_name;
use crate::formats::blprof::database::Database;

/// Rows per row group (about 40 MB of call rows before encoding).
pub const ROW_GROUP: usize = 1 << 20;

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

/// One column's buffered values.
enum Column {
    I32(Vec<i32>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Str(Vec<ByteArray>),
}

impl Column {
    fn clear(&mut self) {
        match self {
            Column::I32(v) => v.clear(),
            Column::I64(v) => v.clear(),
            Column::F64(v) => v.clear(),
            Column::Str(v) => v.clear(),
        }
    }
}

/// A Parquet file being written, one row group at a time.
struct Table {
    path: PathBuf,
    writer: SerializedFileWriter<File>,
    columns: Vec<Column>,
    rows: usize,
    total: u64,
}

fn parquet_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::invalid(Location::file(path), format!("cannot write Parquet: {e}"))
}

impl Table {
    fn create(path: PathBuf, schema: &str, columns: Vec<Column>) -> Result<Table> {
        let schema = Arc::new(parse_message_type(schema).map_err(|e| parquet_error(&path, e))?);
        let props = Arc::new(
            WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build(),
        );
        let file = File::create(&path).map_err(|e| Error::io(&path, e))?;
        let writer =
            SerializedFileWriter::new(file, schema, props).map_err(|e| parquet_error(&path, e))?;
        Ok(Table {
            path,
            writer,
            columns,
            rows: 0,
            total: 0,
        })
    }

    /// Counts a row whose values were pushed; flushes a full row group.
    fn row_done(&mut self) -> Result<()> {
        self.rows += 1;
        self.total += 1;
        if self.rows >= ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let path = self.path.clone();
        let err = |e: parquet::errors::ParquetError| parquet_error(&path, e);
        let mut rg = self.writer.next_row_group().map_err(err)?;
        for column in &self.columns {
            let Some(mut w) = rg.next_column().map_err(err)? else {
                break;
            };
            match column {
                Column::I32(v) => w.typed::<Int32Type>().write_batch(v, None, None),
                Column::I64(v) => w.typed::<Int64Type>().write_batch(v, None, None),
                Column::F64(v) => w.typed::<DoubleType>().write_batch(v, None, None),
                Column::Str(v) => w.typed::<ByteArrayType>().write_batch(v, None, None),
            }
            .map_err(err)?;
            w.close().map_err(err)?;
        }
        rg.close().map_err(err)?;
        for c in &mut self.columns {
            c.clear();
        }
        self.rows = 0;
        Ok(())
    }

    fn finish(mut self) -> Result<u64> {
        self.flush()?;
        let path = self.path.clone();
        self.writer.close().map_err(|e| parquet_error(&path, e))?;
        Ok(self.total)
    }
}

fn i32s(c: &mut Column) -> &mut Vec<i32> {
    match c {
        Column::I32(v) => v,
        _ => unreachable!("schema and columns are declared together"),
    }
}

fn f64s(c: &mut Column) -> &mut Vec<f64> {
    match c {
        Column::F64(v) => v,
        _ => unreachable!("schema and columns are declared together"),
    }
}

fn strs(c: &mut Column) -> &mut Vec<ByteArray> {
    match c {
        Column::Str(v) => v,
        _ => unreachable!("schema and columns are declared together"),
    }
}

fn i64s(c: &mut Column) -> &mut Vec<i64> {
    match c {
        Column::I64(v) => v,
        _ => unreachable!("schema and columns are declared together"),
    }
}

/// Rows written per table.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct ParquetRows {
    pub calls: u64,
    pub regions: u64,
    pub comm: u64,
}

/// Writes `calls.parquet`, `regions.parquet` (when the database has call
/// traces) and `comm.parquet` (when it has comm data) into `dir`.
pub fn write_parquet(
    db: &Database,
    regions: Option<&Regions>,
    dir: &Path,
) -> Result<(ParquetRows, Vec<Warning>)> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut rows = ParquetRows::default();
    let warnings = Mutex::new(Vec::new());
    if db.call_stats.is_some() {
        rows.calls = write_calls(db, dir, &warnings)?;
    }
    if let Some(regions) = regions {
        rows.regions = write_regions(regions, dir)?;
    }
    if db.comm.is_some() {
        rows.comm = write_comm(db, dir, &warnings)?;
    }
    Ok((
        rows,
        warnings.into_inner().unwrap_or_else(|p| p.into_inner()),
    ))
}

fn write_calls(db: &Database, dir: &Path, warnings: &Mutex<Vec<Warning>>) -> Result<u64> {
    use Column::*;
    let mut t = Table::create(
        dir.join("calls.parquet"),
        CALLS,
        vec![
            I32(vec![]),
            I32(vec![]),
            I32(vec![]),
            Str(vec![]),
            I64(vec![]),
            F64(vec![]),
            F64(vec![]),
            F64(vec![]),
        ],
    )?;
    let mut failed: Option<Error> = None;
    for p in &db.trace_index().procs {
        // Names once per process (a ByteArray clone shares its bytes).
        let mut names: rustc_hash::FxHashMap<i32, ByteArray> = Default::default();
        for_each_call(db, p, warnings, |c| {
            if failed.is_some() {
                return;
            }
            let name = names
                .entry(c.fnum)
                .or_insert_with(|| {
                    let n = p
                        .functions
                        .name(c.fnum as i64)
                        .map_or_else(|| format!("function {}", c.fnum), str::to_owned);
                    ByteArray::from(n.into_bytes())
                })
                .clone();
            let cols = &mut t.columns;
            i32s(&mut cols[0]).push(p.proc as i32);
            i32s(&mut cols[1]).push(c.depth);
            i32s(&mut cols[2]).push(c.fnum);
            strs(&mut cols[3]).push(name);
            i64s(&mut cols[4]).push(c.ncalls);
            f64s(&mut cols[5]).push(c.inclusive);
            f64s(&mut cols[6]).push(c.exclusive);
            f64s(&mut cols[7]).push(c.start);
            if let Err(e) = t.row_done() {
                failed = Some(e);
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
    }
    t.finish()
}

fn write_regions(regions: &Regions, dir: &Path) -> Result<u64> {
    use Column::*;
    let mut t = Table::create(
        dir.join("regions.parquet"),
        REGIONS,
        vec![
            I32(vec![]),
            I32(vec![]),
            Str(vec![]),
            F64(vec![]),
            F64(vec![]),
        ],
    )?;
    for p in &regions.procs {
        for (&number, ranges) in &p.ranges {
            let name = ByteArray::from(regions.name(number).into_bytes());
            for r in ranges {
                let cols = &mut t.columns;
                i32s(&mut cols[0]).push(p.proc as i32);
                i32s(&mut cols[1]).push(number);
                strs(&mut cols[2]).push(name.clone());
                f64s(&mut cols[3]).push(r.start);
                f64s(&mut cols[4]).push(r.stop);
                t.row_done()?;
            }
        }
    }
    t.finish()
}

fn write_comm(db: &Database, dir: &Path, warnings: &Mutex<Vec<Warning>>) -> Result<u64> {
    use Column::*;
    let mut t = Table::create(
        dir.join("comm.parquet"),
        COMM,
        vec![
            I32(vec![]),
            I32(vec![]),
            Str(vec![]),
            I32(vec![]),
            I32(vec![]),
            I32(vec![]),
            F64(vec![]),
        ],
    )?;
    let type_names: Vec<ByteArray> = (0..=42)
        .map(|k| ByteArray::from(func_name(k).unwrap_or("?").as_bytes().to_vec()))
        .collect();
    let unknown = ByteArray::from(b"?".to_vec());
    for p in &db.comm_index().procs {
        for b in p.blocks.iter().filter(|b| b.ncomm > 0) {
            let mut records = match db.comm_records(b) {
                Ok(r) => r,
                Err(e) => {
                    let mut w = warnings.lock().unwrap_or_else(|p| p.into_inner());
                    w.push(Warning::new(
                        Location::line(&b.header, b.line),
                        format!("process {}: comm block skipped: {e}", p.proc),
                    ));
                    continue;
                }
            };
            for r in records.by_ref() {
                let name = usize::try_from(r.kind)
                    .ok()
                    .and_then(|k| type_names.get(k))
                    .unwrap_or(&unknown)
                    .clone();
                let cols = &mut t.columns;
                i32s(&mut cols[0]).push(p.proc as i32);
                i32s(&mut cols[1]).push(r.kind);
                strs(&mut cols[2]).push(name);
                i32s(&mut cols[3]).push(r.size);
                i32s(&mut cols[4]).push(r.peer);
                i32s(&mut cols[5]).push(r.tag);
                f64s(&mut cols[6]).push(r.time);
                t.row_done()?;
            }
            if let Err(e) = records.finish() {
                let mut w = warnings.lock().unwrap_or_else(|p| p.into_inner());
                w.push(Warning::new(
                    Location::line(&b.header, b.line),
                    format!("process {}: comm block cut short: {e}", p.proc),
                ));
            }
        }
    }
    t.finish()
}
