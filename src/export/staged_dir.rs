//! An output directory written whole or not at all: the files go into a
//! temporary directory beside the destination, which takes the
//! destination's place when every file is complete (the directory form of
//! the temporary-file-and-rename rule, docs/ERRORS.md). An error or a
//! refusal before [`StagedDir::commit`] leaves the destination as it was.
//!
//! The destination's other entries (another run's files) are carried into
//! the new directory as hard links (copies where linking is refused), so
//! they stay; a directory of the destination is never dropped for one of
//! ours.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A directory being written in place of `dest`.
pub struct StagedDir {
    dest: PathBuf,
    staging: tempfile::TempDir,
}

impl StagedDir {
    /// Creates the temporary directory beside `dest` (and `dest`'s
    /// parents). `dest` may exist as a directory, or as a link to one (the
    /// directory it names is replaced); anything else is refused by name.
    pub fn new(dest: &Path) -> Result<StagedDir> {
        // An existing destination by its real path: a link's directory is
        // the one replaced, and `.` or `..` get a parent to stage beside.
        let dest = match fs::canonicalize(dest) {
            Ok(real) if fs::metadata(&real).is_ok_and(|m| m.is_dir()) => real,
            _ => dest.to_path_buf(),
        };
        if fs::metadata(&dest).is_ok_and(|m| !m.is_dir()) {
            return Err(Error::io(
                &dest,
                std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    "exists and is not a directory: choose a directory for the output",
                ),
            ));
        }
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let name = dest
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let staging = tempfile::Builder::new()
            .prefix(&format!(".{name}.profparse-"))
            // A new directory gets the usual mode (the umask applies).
            .permissions(fs::Permissions::from_mode(0o777))
            .tempdir_in(&parent)
            .map_err(|e| Error::io(&parent, e))?;
        Ok(StagedDir { dest, staging })
    }

    /// Where to write the files.
    pub fn path(&self) -> &Path {
        self.staging.path()
    }

    /// Puts the written directory in the destination's place, with the
    /// destination's other entries and mode. Until the final rename nothing
    /// of the destination changes; the old directory is removed after.
    pub fn commit(self) -> Result<()> {
        let staging = self.staging.path();
        let old = match fs::symlink_metadata(&self.dest) {
            Ok(meta) => {
                carry_over(&self.dest, staging)?;
                fs::set_permissions(staging, meta.permissions())
                    .map_err(|e| Error::io(staging, e))?;
                let mut old = staging.as_os_str().to_owned();
                old.push("-old");
                let old = PathBuf::from(old);
                fs::rename(&self.dest, &old).map_err(|e| Error::io(&self.dest, e))?;
                Some(old)
            }
            Err(_) => None,
        };
        if let Err(e) = fs::rename(staging, &self.dest) {
            // Put the old directory back: the destination as it was.
            if let Some(old) = &old {
                let _ = fs::rename(old, &self.dest);
            }
            return Err(Error::io(&self.dest, e));
        }
        // The staging path is gone: nothing for `TempDir` to remove.
        let _ = self.staging.keep();
        if let Some(old) = old {
            fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))?;
        }
        Ok(())
    }
}

/// Links (or copies) every entry of `from` that `to` does not have into
/// `to`, directories recursively. An entry of ours that would take the
/// place of one of `from`'s directories is an error: a user's directory is
/// not dropped for a file.
fn carry_over(from: &Path, to: &Path) -> Result<()> {
    for entry in fs::read_dir(from).map_err(|e| Error::io(from, e))? {
        let entry = entry.map_err(|e| Error::io(from, e))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(|e| Error::io(&src, e))?;
        if fs::symlink_metadata(&dst).is_ok() {
            if kind.is_dir() {
                return Err(Error::io(
                    &src,
                    std::io::Error::new(
                        std::io::ErrorKind::IsADirectory,
                        "is a directory where an output file goes; nothing written",
                    ),
                ));
            }
            continue;
        }
        let copied = if kind.is_dir() {
            fs::create_dir(&dst)
                .and_then(|()| fs::set_permissions(&dst, fs::metadata(&src)?.permissions()))
                .map_err(|e| Error::io(&dst, e))
                .and_then(|()| carry_over(&src, &dst))
        } else if kind.is_symlink() {
            fs::read_link(&src)
                .and_then(|target| std::os::unix::fs::symlink(target, &dst))
                .map_err(|e| Error::io(&dst, e))
        } else {
            fs::hard_link(&src, &dst)
                .or_else(|_| fs::copy(&src, &dst).map(drop))
                .map_err(|e| Error::io(&dst, e))
        };
        copied?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_directory_appears_only_on_commit() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("a/out");
        let staged = StagedDir::new(&dest).unwrap();
        fs::write(staged.path().join("f"), "new").unwrap();
        assert!(!dest.exists());
        staged.commit().unwrap();
        assert_eq!(fs::read_to_string(dest.join("f")).unwrap(), "new");
        assert_eq!(fs::read_dir(tmp.path().join("a")).unwrap().count(), 1);
    }

    #[test]
    fn commit_replaces_ours_keeps_others_and_a_drop_changes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("out");
        fs::create_dir_all(dest.join("sub")).unwrap();
        fs::write(dest.join("f"), "old").unwrap();
        fs::write(dest.join("other"), "theirs").unwrap();
        fs::write(dest.join("sub/x"), "x").unwrap();
        fs::set_permissions(&dest, fs::Permissions::from_mode(0o750)).unwrap();
        let staged = StagedDir::new(&dest).unwrap();
        fs::write(staged.path().join("f"), "new").unwrap();
        drop(staged);
        assert_eq!(fs::read_to_string(dest.join("f")).unwrap(), "old");
        let staged = StagedDir::new(&dest).unwrap();
        fs::write(staged.path().join("f"), "new").unwrap();
        staged.commit().unwrap();
        assert_eq!(fs::read_to_string(dest.join("f")).unwrap(), "new");
        assert_eq!(fs::read_to_string(dest.join("other")).unwrap(), "theirs");
        assert_eq!(fs::read_to_string(dest.join("sub/x")).unwrap(), "x");
        let mode = fs::metadata(&dest).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o750);
        // Nothing left beside it.
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_destination_named_dot_is_staged_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("out");
        fs::create_dir(&dest).unwrap();
        let staged = StagedDir::new(&dest.join(".")).unwrap();
        assert_eq!(
            staged.path().parent(),
            Some(tmp.path().canonicalize().unwrap().as_path())
        );
        fs::write(staged.path().join("f"), "new").unwrap();
        staged.commit().unwrap();
        assert_eq!(fs::read_to_string(dest.join("f")).unwrap(), "new");
    }

    #[test]
    fn a_directory_where_a_file_of_ours_goes_fails_the_commit_and_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("out");
        fs::create_dir_all(dest.join("f")).unwrap();
        fs::write(dest.join("g"), "old").unwrap();
        let staged = StagedDir::new(&dest).unwrap();
        fs::write(staged.path().join("f"), "new").unwrap();
        fs::write(staged.path().join("g"), "new").unwrap();
        let err = staged.commit().unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
        assert!(dest.join("f").is_dir());
        assert_eq!(fs::read_to_string(dest.join("g")).unwrap(), "old");
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }
}
