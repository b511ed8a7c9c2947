//! `mpi_time()` of a database: MPI time per call type, process, call path
//! and region, as `comm time --format json`, one of its lists per table.

use profparse::{Database, MpiTime, Part, TimeOptions, mpi_size_bucket_bounds, mpi_time};

use crate::arrow_stream::Built;
use crate::columns::Columns;
use crate::comm_scope::{CommArgs, TableScope};
use crate::errors::texts;

/// The rows of `mpi_time()`: the JSON's list of that name.
#[derive(Clone, Copy)]
pub(crate) enum TimeRows {
    /// `by_type`: per MPI call type.
    Type,
    /// `by_type[].sizes`: calls per type and message-size bucket.
    Size,
    /// `procs`: per process.
    Proc,
    /// `procs[].by_type`: per process and call type (the CSV's rows).
    ProcType,
    /// `paths`: per call path and call type (needs call traces).
    Path,
    /// `regions`: per region (needs call traces).
    Region,
}

impl TimeRows {
    /// The rows named by Python's `by=`.
    pub(crate) fn parse(by: &str) -> pyo3::PyResult<Self> {
        Ok(match by {
            "type" => TimeRows::Type,
            "size" => TimeRows::Size,
            "proc" => TimeRows::Proc,
            "proc_type" => TimeRows::ProcType,
            "path" => TimeRows::Path,
            "region" => TimeRows::Region,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "by={by:?}: expected one of \"type\", \"size\", \"proc\", \"proc_type\", \"path\", \"region\""
                )));
            }
        })
    }
}

/// part / whole, as the JSON's shares: none when the whole is nothing.
fn share(part: f64, whole: f64) -> Option<f64> {
    (whole > 0.0).then(|| part / whole)
}

/// `mpi_time(by=...)` of a database. The call traces are read for what
/// the table shows: the regions for a filter or `by="region"`, the call
/// paths for `by="path"` (the CLI reads both whenever the database has
/// traces, for its JSON holds every list; the other lists do not depend
/// on them).
pub(crate) fn mpi_time_table(db: &Database, args: &CommArgs, by: TimeRows) -> Built {
    let by_region = matches!(by, TimeRows::Region);
    let traced = db.parts().contains(&Part::Trace);
    let scope = TableScope::new(db, args, by_region && traced, false)?;
    if matches!(by, TimeRows::Path | TimeRows::Region) {
        // The JSON's lists are null without call traces: the part is missing.
        db.require(Part::Trace)?;
    }
    let opts = TimeOptions {
        regions: scope.regions.as_ref().filter(|_| by_region),
        paths: matches!(by, TimeRows::Path),
    };
    let (t, w) = mpi_time(db, &scope.comm, &opts);
    let mut warnings = scope.warnings.clone();
    warnings.extend(texts(&w));
    Ok((table(&t, by), warnings))
}

fn table(
    t: &MpiTime,
    by: TimeRows,
) -> Result<crate::arrow_stream::Table, arrow_schema::ArrowError> {
    let attribution = t.attribution.as_ref();
    match by {
        TimeRows::Type => Columns::over(&t.by_type)
            .text("type", |x| &x.name)
            .int("number", |x| x.number)
            .count("calls", |x| x.calls)
            .real("seconds", |x| x.seconds)
            .opt_real("share_of_mpi", |x| share(x.seconds, t.seconds))
            .real("min", |x| x.min)
            .real("avg", |x| x.avg)
            .real("max", |x| x.max)
            .rank("min_proc", |x| x.min_proc)
            .rank("max_proc", |x| x.max_proc)
            .build(),
        TimeRows::Size => {
            let rows: Vec<(&str, i32, (u64, u64), u64)> = t
                .by_type
                .iter()
                .flat_map(|x| {
                    x.sizes
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| **n > 0)
                        .map(|(k, &n)| (x.name.as_str(), x.number, mpi_size_bucket_bounds(k), n))
                })
                .collect();
            Columns::over(&rows)
                .text("type", |r| r.0)
                .int("number", |r| r.1)
                .count("min", |r| r.2.0)
                .count("max", |r| r.2.1)
                .count("calls", |r| r.3)
                .build()
        }
        TimeRows::Proc => Columns::over(&t.procs)
            .rank("proc", |p| p.proc)
            .count("calls", |p| p.calls)
            .real("seconds", |p| p.seconds)
            .real("traced", |p| p.traced)
            .opt_real("share", |p| p.share())
            .build(),
        TimeRows::ProcType => {
            // A process's types by number; the name is the type's row's.
            let name = |n: i32| {
                t.by_type
                    .iter()
                    .find(|x| x.number == n)
                    .map_or("?", |x| x.name.as_str())
            };
            let rows: Vec<(usize, &str, i32, u64, f64)> = t
                .procs
                .iter()
                .flat_map(|p| {
                    p.by_type
                        .iter()
                        .map(move |&(n, calls, s)| (p.proc, name(n), n, calls, s))
                })
                .collect();
            Columns::over(&rows)
                .rank("proc", |r| r.0)
                .text("type", |r| r.1)
                .int("number", |r| r.2)
                .count("calls", |r| r.3)
                .real("seconds", |r| r.4)
                .build()
        }
        TimeRows::Path => Columns::over(
            attribution
                .and_then(|a| a.paths.as_deref())
                .unwrap_or_default(),
        )
        .texts("path", |p| &p.path)
        .text("type", |p| &p.name)
        .int("number", |p| p.number)
        .count("calls", |p| p.calls)
        .real("seconds", |p| p.seconds)
        .build(),
        TimeRows::Region => Columns::over(
            attribution
                .and_then(|a| a.regions.as_deref())
                .unwrap_or_default(),
        )
        .text("region", |r| &r.name)
        .int("number", |r| r.number)
        .count("calls", |r| r.calls)
        .real("seconds", |r| r.seconds)
        .build(),
    }
}
