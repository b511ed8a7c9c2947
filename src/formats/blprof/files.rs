//! File naming rules of a bl_prof directory (BLPROF_FORMAT.md §3).

/// The three parts of a database and their file-name prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// `bl_prof_H` + `bl_prof_D_*`: per-function call counts and exclusive times.
    Base,
    /// `bl_call_stats_H*` + `bl_call_stats_D_*`: call traces and regions.
    Trace,
    /// `bl_comm_prof_H*` + `bl_comm_prof_D_*`: communication records.
    Comm,
}

impl Part {
    /// The three parts, in the order `info` lists them.
    pub const ALL: [Part; 3] = [Part::Base, Part::Trace, Part::Comm];

    pub(crate) fn global_header(self) -> &'static str {
        match self {
            Part::Base => "bl_prof_H",
            Part::Trace => "bl_call_stats_H",
            Part::Comm => "bl_comm_prof_H",
        }
    }

    /// Prefix of the numbered per-file headers (the base part has none).
    pub(crate) fn file_header_prefix(self) -> Option<&'static str> {
        match self {
            Part::Base => None,
            Part::Trace => Some("bl_call_stats_H_"),
            Part::Comm => Some("bl_comm_prof_H_"),
        }
    }

    pub(crate) fn data_prefix(self) -> &'static str {
        match self {
            Part::Base => "bl_prof_D_",
            Part::Trace => "bl_call_stats_D_",
            Part::Comm => "bl_comm_prof_D_",
        }
    }

    /// The part's name for people (`call traces`).
    pub fn name(self) -> &'static str {
        match self {
            Part::Base => "base profile",
            Part::Trace => "call traces",
            Part::Comm => "communication profile",
        }
    }
}

/// The file number of `name` if it is `prefix` followed by one or more
/// decimal digits and nothing else. Anything else — in particular a path
/// with a directory component — is not a file of that kind.
pub fn file_number(name: &str, prefix: &str) -> Option<u64> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `prefix` + the file number zero-padded to at least five digits.
pub fn numbered_name(prefix: &str, number: u64) -> String {
    format!("{prefix}{number:05}")
}

/// How the writer spreads `nprocs` ranks over files when `prof_nfiles` is
/// `nfiles`: the `NOutFiles` value it prints and the file number of each rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileLayout {
    /// `NOutFiles` as printed: max(1, min(P, F)).
    pub nout_files: u64,
    /// Ranks per file: ceil(P / NOutFiles).
    pub set_length: u64,
}

impl FileLayout {
    pub fn new(nprocs: u64, nfiles: u64) -> Self {
        let nout_files = nprocs.min(nfiles).max(1);
        let set_length = nprocs.div_ceil(nout_files).max(1);
        FileLayout {
            nout_files,
            set_length,
        }
    }

    pub fn file_of(&self, rank: u64) -> u64 {
        rank / self.set_length
    }

    /// Number of files that really exist (may be fewer than `nout_files`).
    pub fn files_used(&self, nprocs: u64) -> u64 {
        nprocs.div_ceil(self.set_length).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_numbers() {
        assert_eq!(file_number("bl_prof_D_00007", "bl_prof_D_"), Some(7));
        assert_eq!(file_number("bl_prof_D_100001", "bl_prof_D_"), Some(100001));
        assert_eq!(file_number("bl_prof_D_", "bl_prof_D_"), None);
        assert_eq!(file_number("bl_prof_D_0x", "bl_prof_D_"), None);
        assert_eq!(file_number("../bl_prof_D_00001", "bl_prof_D_"), None);
        assert_eq!(file_number("bl_prof_D_00001/x", "bl_prof_D_"), None);
        assert_eq!(numbered_name("bl_comm_prof_D_", 7), "bl_comm_prof_D_00007");
        assert_eq!(
            numbered_name("bl_comm_prof_D_", 123456),
            "bl_comm_prof_D_123456"
        );
    }

    #[test]
    fn layout_examples_from_the_spec() {
        // P=6, F=4: N=4, L=2, files 0..2 only.
        let l = FileLayout::new(6, 4);
        assert_eq!((l.nout_files, l.set_length, l.files_used(6)), (4, 2, 3));
        // P=10, F=4: L=3, files {0,1,2},{3,4,5},{6,7,8},{9}.
        let l = FileLayout::new(10, 4);
        assert_eq!(l.set_length, 3);
        assert_eq!(
            (0..10).map(|r| l.file_of(r)).collect::<Vec<_>>(),
            vec![0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
        );
        // P=4, F=256: one file per rank.
        let l = FileLayout::new(4, 256);
        assert_eq!((l.nout_files, l.set_length), (4, 1));
        // P=4, F=3: L=2, only files 0 and 1.
        let l = FileLayout::new(4, 3);
        assert_eq!((l.nout_files, l.files_used(4)), (3, 2));
        let l = FileLayout::new(100_001, 256);
        assert_eq!(
            (l.nout_files, l.set_length, l.files_used(100_001)),
            (256, 391, 256)
        );
    }
}
