//! Opening input files: the only place that memory-maps, and the crate's only `unsafe`.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::error::{Error, Location, Result};

/// The bytes of one input file, memory-mapped when possible.
pub struct InputFile {
    path: PathBuf,
    bytes: Bytes,
}

enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl InputFile {
    /// Opens and maps `path`. Falls back to reading the file when mapping is
    /// impossible (empty files, special files, file systems without mmap).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(Error::invalid(
                Location::file(path),
                "is a directory, expected a file",
            ));
        }
        let bytes = if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only and private to this process. Profiles
            // are written once by a finished run; if another process truncates
            // the file while we read, the kernel may raise SIGBUS — the same
            // contract every mmap-based reader (ripgrep, measureme) accepts.
            match unsafe { Mmap::map(&file) } {
                Ok(map) => Bytes::Mapped(map),
                Err(_) => Bytes::Owned(read_all(path, file)?),
            }
        } else {
            Bytes::Owned(read_all(path, file)?)
        };
        Ok(InputFile {
            path: path.to_path_buf(),
            bytes,
        })
    }

    /// Wraps bytes that are already in memory (tests, fuzzers, benches).
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Self {
        InputFile {
            path: path.into(),
            bytes: Bytes::Owned(bytes),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }

    pub fn len(&self) -> u64 {
        self.bytes().len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }

    /// `len` bytes at `offset`, or an error naming the file and offset when
    /// the range is not inside the file. Overflowing arithmetic is an error too.
    pub fn range(&self, offset: u64, len: u64) -> Result<&[u8]> {
        let end = offset.checked_add(len);
        match end {
            Some(end) if end <= self.len() => Ok(&self.bytes()[offset as usize..end as usize]),
            _ => Err(Error::invalid(
                Location::offset(&self.path, offset),
                format!(
                    "a block of {len} bytes at byte offset {offset} runs past the end of the file ({} bytes)",
                    self.len()
                ),
            )),
        }
    }
}

fn read_all(path: &Path, mut file: File) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    file.read_to_end(&mut v).map_err(|e| Error::io(path, e))?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_checks_bounds_and_overflow() {
        let f = InputFile::from_bytes("x", vec![1, 2, 3, 4]);
        assert_eq!(f.range(1, 2).unwrap(), &[2, 3]);
        assert_eq!(f.range(4, 0).unwrap(), &[] as &[u8]);
        assert!(f.range(3, 2).is_err());
        assert!(f.range(u64::MAX, 2).is_err());
        let msg = f.range(3, 2).unwrap_err().to_string();
        assert!(msg.contains("x: byte offset 3"), "{msg}");
    }

    #[test]
    fn directory_is_a_clear_error() {
        let dir = std::env::temp_dir();
        let err = InputFile::open(&dir).err().unwrap();
        assert!(err.to_string().contains("is a directory"));
    }
}
