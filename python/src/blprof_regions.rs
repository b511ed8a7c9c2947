//! `regions()` of a database: its regions as `regions --format json` lists
//! them, or one process's ranges (`regions --proc N`).

use profparse::{Database, Part, Regions, region_stats};

use crate::arrow_stream::Built;
use crate::columns::Columns;
use crate::errors::texts;

/// `regions(rank)`: without a rank one row per region (the JSON's
/// `regions`), with one a row per range of that process in time order
/// (the JSON's `ranges`).
pub(crate) fn regions_table(db: &Database, rank: Option<usize>) -> Built {
    db.require(Part::Trace)?;
    let mut warnings = texts(db.trace_warnings());
    let regions = Regions::load(db);
    warnings.extend(texts(&regions.warnings));
    let Some(r) = rank else {
        let stats = region_stats(&regions);
        let table = Columns::over(&stats)
            .text("name", |s| &s.name)
            .int("number", |s| s.number)
            .count("count", |s| s.count as u64)
            .real("total", |s| s.total)
            .real("min", |s| s.min)
            .real("avg", |s| s.avg)
            .real("max", |s| s.max)
            .opt_rank("max_proc", |s| s.max_proc)
            .build();
        return Ok((table, warnings));
    };
    let proc = regions.proc(r).ok_or_else(|| {
        profparse::Error::NotFound(format!("rank {r}: no call traces for that process"))
    })?;
    // The JSON's order: by start, a stable sort of the ranges by region.
    let mut ranges: Vec<(i32, f64, f64)> = proc
        .ranges
        .iter()
        .flat_map(|(&n, rs)| rs.iter().map(move |x| (n, x.start, x.stop)))
        .collect();
    ranges.sort_by(|a, b| a.1.total_cmp(&b.1));
    let names: Vec<String> = ranges.iter().map(|x| regions.name(x.0)).collect();
    let rows: Vec<(&str, i32, f64, f64)> = ranges
        .iter()
        .zip(&names)
        .map(|(x, name)| (name.as_str(), x.0, x.1, x.2))
        .collect();
    let table = Columns::over(&rows)
        .text("region", |x| x.0)
        .int("number", |x| x.1)
        .real("start", |x| x.2)
        .real("stop", |x| x.3)
        .build();
    Ok((table, warnings))
}
