//! Parquet tables of a database's records — `calls`, `regions` and `comm` —
//! for engines that query data too big for one machine (DuckDB, Spark,
//! Trino). Rows are read into row groups of [`ROW_GROUP`](table::ROW_GROUP) rows; the columns
//! of a few row groups (one per thread, at most `MAX_GROUPS_IN_FLIGHT`)
//! are encoded in parallel (into memory) while the round before them is
//! appended to the file and the next ones are read, so memory stays at
//! twice that many row groups and two rounds of encoded chunks whatever
//! the database's size, and the files are the same for any thread count.
//! Strings (function, region and type names) are derived from the number
//! columns as they are encoded and dictionary-encoded by the writer; pages
//! are Snappy-compressed.
//!
//! Which rows, in which order, is the analysis' ([`crate::analysis::export_rows`]);
//! `table` writes one table's file, `tables` declares each table (schema,
//! columns, strings) and fills its row groups from those rows.

mod table;
mod tables;

use std::path::{Path, PathBuf};

use parquet::file::metadata::KeyValue;

pub use crate::analysis::export_rows::Shard;
use crate::analysis::regions::Regions;
use crate::error::{Error, Result, Warning};
use crate::formats::blprof::database::Database;


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

impl Dataset<'_> {
    /// `DIR/<table>/part-<shard>.parquet`, its directory created.
    fn part_path(&self, table: &str) -> Result<PathBuf> {
        let dir = self.dir.join(table);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(dir.join(format!("part-{:05}.parquet", self.shard.index)))
    }

    fn procs(&self) -> Option<&[usize]> {
        self.procs.as_deref()
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
    let procs = shard.procs(db);
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
    let mut warnings = Vec::new();
    if db.base.is_some() {
        rows.functions = tables::write_functions(db, &out, &mut warnings)?;
    }
    if db.call_stats.is_some() {
        rows.calls = tables::write_calls(db, &out, &mut warnings)?;
    }
    if let Some(regions) = regions {
        rows.regions = tables::write_regions(regions, &out)?;
    }
    if db.comm.is_some() {
        rows.comm = tables::write_comm(db, &out, &mut warnings)?;
        rows.messages = tables::write_messages(db, &out, &mut warnings)?;
    }
    Ok((rows, warnings))
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
                    (expected as usize).div_ceil(super::table::ROW_GROUP),
                    "{table}"
                );
                files.push(std::fs::read(file).unwrap());
            }
            assert_eq!(rows.calls, calls);
            assert!(rows.calls as usize > 8 * super::table::ROW_GROUP, "{rows:?}");
            outputs.push(files);
        }
        assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    }
}
