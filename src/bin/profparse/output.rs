//! Where reports go: `-o FILE`, or standard output.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::Context as _;

/// A mistake in how the command was called (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Opens the report destination: a file for `-o FILE`, else buffered stdout.
pub fn open(path: Option<&Path>) -> anyhow::Result<Box<dyn Write>> {
    match path {
        Some(p) if p != Path::new("-") => {
            let f = File::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            Ok(Box::new(BufWriter::new(f)))
        }
        _ => Ok(Box::new(BufWriter::new(io::stdout().lock()))),
    }
}

/// Writes `report` in `format` to `-o FILE` or standard output.
pub fn emit(
    report: &impl profparse::report::Report,
    format: profparse::report::Format,
    output: &crate::cli::OutputArg,
) -> anyhow::Result<()> {
    let mut out = open(output.output.as_deref())?;
    profparse::report::render(report, format, &mut out)?;
    out.flush()?;
    Ok(())
}

/// Creates the file at `path` (an extra output such as `--svg F`), lets
/// `write` fill it, and flushes it; errors name the file.
pub fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<()> {
    let f = File::create(path).map_err(|e| profparse::Error::io(path, e))?;
    let mut w = BufWriter::new(f);
    write(&mut w)?;
    w.flush()?;
    Ok(())
}
