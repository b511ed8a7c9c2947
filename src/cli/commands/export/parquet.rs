//! `profparse export --parquet DIR`: the call records, region ranges and
//! comm records as Parquet tables.

#[cfg(feature = "parquet")]
use crate::analysis::regions::Regions;
use crate::cli::context::Context;
#[cfg(not(feature = "parquet"))]
use crate::cli::output::UsageError;

#[cfg(feature = "parquet")]
pub fn write(
    db: &std::path::Path,
    dir: &std::path::Path,
    (index, count): (usize, usize),
    ctx: &Context,
) -> anyhow::Result<()> {
    // Freed before `--chrome` opens the database again.
    let db = &crate::formats::blprof::Database::open(db)?;
    ctx.warn_all(db.warnings());
    if db.call_stats.is_some() {
        ctx.warn_all(&db.trace_index().warnings);
    }
    if db.comm.is_some() {
        ctx.warn_all(&db.comm_index().warnings);
    }
    let regions = db.call_stats.is_some().then(|| Regions::load(db));
    if let Some(r) = &regions {
        ctx.warn_all(&r.warnings);
    }
    let shard = crate::export::parquet::Shard { index, count };
    let (rows, warnings) = crate::export::parquet::write_parquet(db, regions.as_ref(), dir, shard)?;
    ctx.warn_all(&warnings);
    ctx.info(
        1,
        format!(
            "wrote {} function, {} call, {} region, {} comm and {} message rows to {}",
            rows.functions,
            rows.calls,
            rows.regions,
            rows.comm,
            rows.messages,
            dir.display()
        ),
    );
    Ok(())
}

#[cfg(not(feature = "parquet"))]
pub fn write(
    _: &std::path::Path,
    _: &std::path::Path,
    _: (usize, usize),
    _: &Context,
) -> anyhow::Result<()> {
    Err(UsageError("this build has no Parquet support (cargo feature `parquet`)".into()).into())
}
