//! Renderers: one module per output format, all writing to `impl Write`.
//! Number formatting lives in [`numfmt`] only.

pub mod calltrace;
pub mod calltree;
pub mod chrome;
pub mod csv;
pub mod diff;
pub mod html_report;
pub mod json;
pub mod numfmt;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod reference;
pub mod svg;
pub mod table;

/// Formats items `0..n` in parallel runs of `run` and writes the runs in
/// order: the bytes are those of one sequential pass, for any thread count.
/// At most two runs per thread are held at once, so memory stays bounded
/// however long the output.
pub fn write_in_order(
    w: &mut dyn std::io::Write,
    n: usize,
    run: usize,
    format: impl Fn(std::ops::Range<usize>, &mut Vec<u8>) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    let run = run.max(1);
    let runs: Vec<std::ops::Range<usize>> =
        (0..n).step_by(run).map(|a| a..(a + run).min(n)).collect();
    for group in runs.chunks(2 * rayon::current_num_threads()) {
        let texts: Vec<std::io::Result<Vec<u8>>> = group
            .par_iter()
            .map(|r| {
                let mut buf = Vec::new();
                format(r.clone(), &mut buf).map(|()| buf)
            })
            .collect();
        for t in texts {
            w.write_all(&t?)?;
        }
    }
    Ok(())
}
