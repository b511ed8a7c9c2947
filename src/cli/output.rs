//! Where reports go: `-o FILE`, or standard output.

use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// A mistake in how the command was called (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A report's destination: standard output, or a file written as a
/// temporary file beside it and renamed over it by [`Destination::finish`],
/// so that a failed or interrupted run leaves no half-written file and the
/// old one as it was (and an input being read is never truncated under it).
pub enum Destination {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    File {
        tmp: BufWriter<tempfile::NamedTempFile>,
        dest: PathBuf,
        /// Removes the temporary file if a shrinking input ends the run.
        _pending: crate::source::sigbus::Pending,
    },
    /// A device or FIFO (`-o /dev/stdout`): written in place.
    Special(BufWriter<std::fs::File>),
}

impl Write for Destination {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Destination::Stdout(w) => w.write(buf),
            Destination::File { tmp, .. } => tmp.write(buf),
            Destination::Special(w) => w.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Destination::Stdout(w) => w.write_all(buf),
            Destination::File { tmp, .. } => tmp.write_all(buf),
            Destination::Special(w) => w.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Destination::Stdout(w) => w.flush(),
            Destination::File { tmp, .. } => tmp.flush(),
            Destination::Special(w) => w.flush(),
        }
    }
}

impl Destination {
    /// Flushes, and puts a file in place. Without it (an error on the
    /// way) the temporary file is removed and the destination untouched.
    pub fn finish(self) -> anyhow::Result<()> {
        match self {
            Destination::Stdout(mut w) => Ok(w.flush()?),
            Destination::Special(mut w) => Ok(w.flush()?),
            Destination::File { tmp, dest, .. } => {
                let tmp = tmp
                    .into_inner()
                    .map_err(|e| crate::Error::io(&dest, e.into_error()))?;
                tmp.persist(&dest)
                    .map_err(|e| crate::Error::io(&dest, e.error))?;
                Ok(())
            }
        }
    }
}

/// Opens the report destination: a file for `-o FILE`, else buffered stdout.
pub fn open(path: Option<&Path>) -> anyhow::Result<Destination> {
    match path {
        Some(p) if p != Path::new("-") => create(p),
        _ => Ok(Destination::Stdout(BufWriter::new(io::stdout().lock()))),
    }
}

/// A file destination; refuses a path that is one of the command's inputs.
fn create(dest: &Path) -> anyhow::Result<Destination> {
    refuse_inputs(dest)?;
    let special = std::fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir());
    if special {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(dest)
            .map_err(|e| crate::Error::io(dest, e))?;
        return Ok(Destination::Special(BufWriter::new(f)));
    }
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".profparse-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create {}", dest.display()))?;
    let pending = crate::source::sigbus::Pending::new(tmp.path());
    Ok(Destination::File {
        tmp: BufWriter::new(tmp),
        dest: dest.to_owned(),
        _pending: pending,
    })
}

/// Refuses to write over an input: `dest` exists and is a path given on
/// the command line (other than as this output), or a database's file in a
/// directory given there.
fn refuse_inputs(dest: &Path) -> anyhow::Result<()> {
    let Ok(dest_meta) = std::fs::metadata(dest) else {
        return Ok(()); // a new file replaces nothing
    };
    let same = |m: &std::fs::Metadata| m.dev() == dest_meta.dev() && m.ino() == dest_meta.ino();
    let dest_dir = dest
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dest_dir_meta = std::fs::metadata(dest_dir).ok();
    // The output's own mention (`-o F`, `--svg F`, `--x=F`) is skipped once;
    // a second mention of the same path is an input.
    let mut own_skipped = false;
    for arg in std::env::args_os().skip(1) {
        let value = arg
            .to_str()
            .and_then(|a| a.strip_prefix("--").and_then(|a| a.split_once('=')))
            .map_or(std::ffi::OsString::from(&arg), |(_, v)| v.into());
        let path = Path::new(&value);
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        if path == dest && !own_skipped {
            own_skipped = true;
            continue;
        }
        // Another file in an input folder is an input when it is one of
        // the database's (a report written there before is not).
        let inside = meta.is_dir()
            && dest_dir_meta
                .as_ref()
                .is_some_and(|d| d.dev() == meta.dev() && d.ino() == meta.ino())
            && matches!(
                crate::formats::looks(dest),
                crate::formats::Looks::DatabaseFile(_)
            );
        if same(&meta) || inside {
            return Err(UsageError(format!(
                "refusing to write {} over an input ({}): choose another output path",
                dest.display(),
                path.display()
            ))
            .into());
        }
    }
    Ok(())
}

/// Writes `report` in `format` to `-o FILE` or standard output, its tables
/// for people within `--width`.
pub fn emit(
    report: &impl crate::report::Report,
    format: crate::report::Format,
    output: &crate::cli::args::OutputArg,
) -> anyhow::Result<()> {
    emit_within(report, format, output, output.text_width(false))
}

/// [`emit`] within `width` columns (`None`: no limit, `--wide`).
pub fn emit_within(
    report: &impl crate::report::Report,
    format: crate::report::Format,
    output: &crate::cli::args::OutputArg,
    width: Option<usize>,
) -> anyhow::Result<()> {
    let mut out = open(output.output.as_deref())?;
    crate::report::render(report, format, width, &mut out)?;
    out.finish()
}

/// Creates the file at `path` (an extra output such as `--svg F`), lets
/// `write` fill it, and flushes it; errors name the file.
pub fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<()> {
    let mut w = create(path)?;
    write(&mut w)?;
    w.finish()
}
