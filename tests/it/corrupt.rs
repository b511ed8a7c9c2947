//! The corrupted-input suite: damaged copies of every fixture,
//! made here, through every command. Each run must end with a documented
//! exit code (never 101 = panic, never a signal), within a time limit and an
//! address-space limit (so an allocation sized by a corrupt count fails the
//! test), and damage that loses data must be reported naming the file. For
//! damage limited to one process, the other processes' results must not
//! change.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{DATABASES, copy_db, db, fixtures};

const BIN: &str = env!("CARGO_BIN_EXE_profparse");
/// Seconds and KiB of address space per run.
const TIME_LIMIT: &str = "60";
const MEMORY_LIMIT_KIB: u64 = 3 << 20;

/// Each fixture database, (name, path), in name order.
fn databases() -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = DATABASES.iter().map(|&n| (n.to_owned(), db(n))).collect();
    v.sort();
    v
}

struct Outcome {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

/// Runs the binary under a time and memory limit; fails the test on a
/// panic, a signal or the time limit.
fn run(args: &[String], what: &str) -> Outcome {
    let out = Command::new("timeout")
        .args(["-s", "KILL", TIME_LIMIT, "sh", "-c"])
        .arg(format!("ulimit -v {MEMORY_LIMIT_KIB}; exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        matches!(code, 0..=3),
        "{what}: `profparse {}` ended with {} (101 = panic, 137 = killed: time or memory): {stderr}",
        args.join(" "),
        out.status
    );
    Outcome {
        code,
        stdout: out.stdout,
        stderr,
    }
}

/// Which part of a database a file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Base,
    Trace,
    Comm,
}

fn part_of(name: &str) -> Part {
    if name.starts_with("bl_call_stats") {
        Part::Trace
    } else if name.starts_with("bl_comm_prof") {
        Part::Comm
    } else {
        Part::Base
    }
}

/// The commands that read `part`; `true` marks those that read every block
/// of it (so that any loss of data must be reported).
fn commands(part: Part, out: &Path) -> Vec<(Vec<String>, bool)> {
    let o = |name: &str| out.join(name).to_string_lossy().into_owned();
    let list: Vec<(Vec<&str>, bool)> = match part {
        Part::Base => vec![
            (vec!["info", "--format", "json"], false),
            (vec!["summary", "--format", "json"], true),
            (vec!["summary", "--format", "reference"], true),
        ],
        Part::Trace => vec![
            (vec!["trace-summary", "--format", "json"], true),
            (vec!["regions", "--format", "json"], true),
            (vec!["calltree", "--format", "json"], true),
            (vec!["calltree", "--format", "hatchet"], true),
            (vec!["calltree", "--bottom-up", "--format", "json"], true),
            (vec!["calltrace", "--proc", "0"], false),
            (vec!["export", "--chrome", "@chrome.json"], false),
        ],
        Part::Comm => vec![
            (vec!["comm", "stats", "--format", "json"], true),
            (vec!["comm", "check"], true),
            (vec!["comm", "pairs", "--format", "json"], false),
            (vec!["comm", "barriers"], false),
            (vec!["comm", "barriers", "--reductions"], false),
            (vec!["comm", "matrix"], false),
            (vec!["comm", "time", "--format", "json"], false),
            (vec!["comm", "waits"], false),
            (vec!["comm", "clocks", "--format", "json"], false),
            (vec!["comm", "pairs", "--align-clocks"], false),
            (
                vec!["comm", "waits", "--align-clocks", "--format", "json"],
                false,
            ),
            (
                vec!["comm", "timeline", "--svg", "@t.svg", "--chrome", "@t.json"],
                false,
            ),
            (
                vec!["export", "--chrome", "@chrome.json", "--align-clocks"],
                false,
            ),
        ],
    };
    list.into_iter()
        .map(|(args, all)| {
            let args = args
                .into_iter()
                .map(|a| match a.strip_prefix('@') {
                    Some(f) => o(f),
                    None => a.to_owned(),
                })
                .collect();
            (args, all)
        })
        .collect()
}

/// Runs the commands of `part` on `db` (the database path goes after the
/// subcommand words). With `lost = Some(names)`, every command that reads
/// all blocks must fail or warn (exit 1 or 3) naming one of `names`.
fn run_part(db: &Path, part: Part, what: &str, lost: Option<&[&str]>) {
    let out = tempfile::tempdir().unwrap();
    for (args, reads_all) in commands(part, out.path()) {
        let words = if args[0] == "comm" { 2 } else { 1 };
        let mut full = vec!["-q".to_owned()];
        if lost.is_some() {
            full.clear();
        }
        full.extend(args[..words].iter().cloned());
        full.push(db.to_string_lossy().into_owned());
        full.extend(args[words..].iter().cloned());
        let o = run(&full, what);
        if let (Some(names), true) = (lost, reads_all) {
            assert!(
                o.code == 1 || o.code == 3,
                "{what}: `{}` exited {} without reporting the damage: {}",
                full.join(" "),
                o.code,
                o.stderr
            );
            assert!(
                names
                    .iter()
                    .any(|n| o.stderr.contains(n) || String::from_utf8_lossy(&o.stdout).contains(n)),
                "{what}: `{}` does not name any of {names:?}: {}",
                full.join(" "),
                o.stderr
            );
            let said = format!("{}{}", o.stderr, String::from_utf8_lossy(&o.stdout));
            // A file that is missing altogether has no offset or line.
            let whole_file = what.ends_with("missing") || what.ends_with("is a directory");
            assert!(
                whole_file || located(&said),
                "{what}: `{}` names no byte offset or line: {said}",
                full.join(" ")
            );
        }
    }
}

/// True when `text` holds a byte offset or a `file:line:` location.
fn located(text: &str) -> bool {
    text.contains("byte offset")
        || text.split(':').collect::<Vec<_>>().windows(3).any(|w| {
            !w[0].is_empty() && !w[1].is_empty() && w[1].bytes().all(|b| b.is_ascii_digit())
        })
}

/// Data blocks by data file: (header file, line number, seek position).
fn block_starts(db: &Path) -> BTreeMap<String, Vec<(String, usize, u64)>> {
    let mut out: BTreeMap<String, Vec<(String, usize, u64)>> = BTreeMap::new();
    for e in fs::read_dir(db).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.contains("_D_") {
            continue;
        }
        let text = fs::read_to_string(e.path())
            .unwrap_or_else(|err| panic!("{}: {err}", e.path().display()));
        for (i, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            for w in words.windows(4) {
                if w[0] == "datafile"
                    && w[2] == "seekpos"
                    && let Ok(pos) = w[3].parse::<u64>()
                {
                    out.entry(w[1].to_owned())
                        .or_default()
                        .push((name.clone(), i + 1, pos));
                }
            }
        }
    }
    out
}

/// Every data file cut at every block boundary and at odd offsets beside
/// them: a cut that loses records is reported, naming the data file.
fn data_files_cut_at_every_block_boundary(fx: &str) {
    let dir = db(fx);
    for (file, blocks) in block_starts(&dir) {
        let path = dir.join(&file);
        // A data file a header names is in the fixture: missing, it fails.
        let len = fs::metadata(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .len();
        let mut cuts: Vec<u64> = blocks
            .iter()
            .filter(|b| b.2 > 0)
            .flat_map(|b| [b.2, b.2 + 1, b.2.saturating_sub(3)])
            .chain([0, 7, len.saturating_sub(1)])
            .filter(|&c| c < len)
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        // Large fixtures: a sample of the cuts keeps the suite fast.
        let step = cuts.len().div_ceil(12).max(1);
        for &cut in cuts.iter().step_by(step) {
            let db = copy_db(fx);
            let bytes = fs::read(db.path().join(&file)).unwrap();
            fs::write(db.path().join(&file), &bytes[..cut as usize]).unwrap();
            let what = format!("{fx}: {file} cut at byte {cut} of {len}");
            run_part(db.path(), part_of(&file), &what, Some(&[file.as_str()]));
        }
    }
}

test_program_database_tests!(data_files_cut_at_every_block_boundary);

/// Header files cut in the middle of a line: never a crash.
fn headers_cut_mid_line(fx: &str) {
    let dir = db(fx);
    for e in fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.contains("_D_") {
            continue;
        }
        let text = fs::read(e.path()).unwrap();
        let ends: Vec<usize> = text
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i)
            .collect();
        // Every header has lines: one without would test nothing here.
        assert!(!ends.is_empty(), "{fx}: {name} has no line to cut");
        let picks = [0, ends.len() / 2, ends.len().saturating_sub(2)];
        for &k in picks.iter() {
            let end = ends[k];
            let start = if k == 0 { 0 } else { ends[k - 1] + 1 };
            let cut = start + (end - start) / 2;
            let db = copy_db(fx);
            fs::write(db.path().join(&name), &text[..cut]).unwrap();
            let what = format!("{fx}: {name} cut mid-line {} at byte {cut}", k + 1);
            run_part(db.path(), part_of(&name), &what, None);
        }
    }
}

test_program_database_tests!(headers_cut_mid_line);

/// A tiny deterministic generator (xorshift) so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Overwrites 1..=`max` random bytes of `bytes` with random values.
    fn overwrite(&mut self, bytes: &mut [u8], max: u64) {
        if bytes.is_empty() {
            return;
        }
        for _ in 0..1 + self.next() % max {
            let i = (self.next() % bytes.len() as u64) as usize;
            bytes[i] = self.next() as u8;
        }
    }
}

/// Random bytes of random files overwritten: never a crash.
#[test]
fn random_byte_flips() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for (fx, dir) in databases() {
        let mut files: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        for round in 0..6 {
            let name = &files[(rng.next() % files.len() as u64) as usize];
            let db = copy_db(&fx);
            let p = db.path().join(name);
            let mut bytes = fs::read(&p).unwrap();
            if bytes.is_empty() {
                continue;
            }
            rng.overwrite(&mut bytes, 16);
            fs::write(&p, &bytes).unwrap();
            let what = format!("{fx} round {round}: bytes of {name} overwritten");
            run_part(db.path(), part_of(name), &what, None);
        }
    }
}

/// Replaces the first match of `word value` (whitespace-separated) in
/// `file` with `word new`; false when the word is absent (a missing file
/// fails the test).
fn edit_value(path: &Path, word: &str, new: &str) -> bool {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut done = false;
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        if !done {
            let words: Vec<&str> = line.split_whitespace().collect();
            if let Some(i) = words.iter().position(|w| *w == word)
                && i + 1 < words.len()
            {
                let mut w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                w[i + 1] = new.to_owned();
                out.push_str(&w.join("  "));
                out.push('\n');
                done = true;
                continue;
            }
        }
        out.push_str(line);
    }
    fs::write(path, out).unwrap();
    done
}

/// Counts and positions no file could hold, negative ones, and process
/// counts of 0 and 10^9: an error or warning, never an allocation that
/// size (the address-space limit would kill the run) and never a crash.
fn absurd_counts_and_positions(fx: &str) {
    let dir = db(fx);
    let blocks = block_starts(&dir);
    let mut headers: Vec<(String, Part)> = blocks
        .values()
        .flatten()
        .map(|(h, _, _)| (h.clone(), part_of(h)))
        .collect();
    headers.sort();
    headers.dedup();
    for (header, part) in &headers {
        let data_files: Vec<&str> = blocks
            .iter()
            .filter(|(_, v)| v.iter().any(|(h, _, _)| h == header))
            .map(|(d, _)| d.as_str())
            .collect();
        let mut names: Vec<&str> = data_files.clone();
        names.push(header);
        let edits: &[(&str, &str, bool)] = &[
            ("seekpos", "1099511627776", true),
            ("nCommStats", "4611686018427387904", true),
            ("nCommStats", "-5", true),
            ("nTraceStats", "4611686018427387904", true),
            ("nRSS", "4611686018427387904", true),
            ("nRSS", "-1", true),
        ];
        for (word, value, must_report) in edits {
            let db = copy_db(fx);
            if !edit_value(&db.path().join(header), word, value) {
                continue;
            }
            let what = format!("{fx}: {header}: {word} {value}");
            let lost = must_report.then_some(names.as_slice());
            run_part(db.path(), *part, &what, lost);
        }
    }
    for global in ["bl_prof_H", "bl_call_stats_H", "bl_comm_prof_H"] {
        for value in ["0", "1000000000", "-4"] {
            let db = copy_db(fx);
            let edited = edit_value(&db.path().join(global), "NProcs", value);
            assert!(edited, "{fx}: {global} has no NProcs");
            let what = format!("{fx}: {global}: NProcs {value}");
            run_part(db.path(), part_of(global), &what, None);
        }
    }
}

test_program_database_tests!(absurd_counts_and_positions);

/// Every file missing in turn, then a directory in its place; and the
/// first block line of each per-file header duplicated.
fn missing_files_directories_and_duplicate_blocks(fx: &str) {
    let dir = db(fx);
    let mut files: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    for name in &files {
        let db = copy_db(fx);
        fs::remove_file(db.path().join(name)).unwrap();
        let data = name.contains("_D_");
        let names = [name.as_str()];
        run_part(
            db.path(),
            part_of(name),
            &format!("{fx}: {name} missing"),
            data.then_some(&names[..]),
        );
        fs::create_dir(db.path().join(name)).unwrap();
        run_part(
            db.path(),
            part_of(name),
            &format!("{fx}: {name} is a directory"),
            data.then_some(&names[..]),
        );
    }
    for (header, ..) in block_starts(&dir).values().flatten() {
        let db = copy_db(fx);
        let p = db.path().join(header);
        let text = fs::read_to_string(&p).unwrap();
        let Some(line) = text.lines().find(|l| l.contains("seekpos")) else {
            continue;
        };
        fs::write(&p, text.replacen(line, &format!("{line}\n{line}"), 1)).unwrap();
        run_part(
            db.path(),
            part_of(header),
            &format!("{fx}: first block of {header} listed twice"),
            None,
        );
    }
}

test_program_database_tests!(missing_files_directories_and_duplicate_blocks);

/// `args` with the database path inserted after the subcommand words.
fn json_of(db: &Path, args: &[&str]) -> serde_json::Value {
    let words = if args[0] == "comm" { 2 } else { 1 };
    let mut full: Vec<String> = vec!["-q".into()];
    full.extend(args[..words].iter().map(|s| s.to_string()));
    full.push(db.to_string_lossy().into_owned());
    full.extend(args[words..].iter().map(|s| s.to_string()));
    let o = run(&full, "json");
    let mut v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{full:?}: {e}: {}", o.stderr));
    if let Some(m) = v.as_object_mut() {
        m.remove("warnings");
        m.remove("database");
    }
    v
}

/// One process's blocks overwritten with garbage: the others' call trees
/// and communication statistics are exactly those of the intact database.
#[test]
fn damage_to_one_process_leaves_the_others_intact() {
    let dir = db("small4");
    let victim = 1;
    let db = copy_db("small4");
    for (file, blocks) in block_starts(&dir) {
        if part_of(&file) == Part::Base {
            continue;
        }
        // Overwrite the victim's first block start with 0xff bytes (its
        // header line names the process first: `CallStatsProc 1` / `CommProfProc 1`).
        for (header, line, pos) in &blocks {
            let text = fs::read_to_string(dir.join(header)).unwrap();
            let l = text.lines().nth(line - 1).unwrap();
            let proc: Option<u64> = l.split_whitespace().nth(1).and_then(|w| w.parse().ok());
            if proc != Some(victim) {
                continue;
            }
            let p = db.path().join(&file);
            let mut bytes = fs::read(&p).unwrap();
            let start = *pos as usize;
            let end = (start + 4096).min(bytes.len());
            bytes[start..end].fill(0xff);
            fs::write(&p, &bytes).unwrap();
        }
    }
    for p in [0, 2, 3] {
        let ps = p.to_string();
        for args in [
            vec!["calltree", "--format", "json", "--proc", &ps],
            vec!["comm", "stats", "--format", "json", "--proc", &ps],
        ] {
            assert_eq!(
                json_of(db.path(), &args),
                json_of(&dir, &args),
                "{args:?} changed by damage to process {victim}"
            );
        }
    }
}

/// tlog files cut at every block boundary and at odd offsets, and with
/// bytes overwritten, through every tlog command.
#[test]
fn tlog_files_cut_and_overwritten() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let dir = fixtures().join("tlog");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    files.sort();
    assert!(files.len() >= 3);
    let tmp = tempfile::tempdir().unwrap();
    let damaged = tmp.path().join("damaged.log");
    let chrome = tmp.path().join("t.json");
    let commands: Vec<Vec<String>> = [
        vec!["dump"],
        vec!["dump", "--style", "tlog_dump", "--nodes", "4"],
        vec!["dump", "--style", "sample", "--nodes", "4"],
        vec!["dump", "--format", "json"],
        vec!["summary", "--format", "json"],
        vec!["tree", "--format", "json"],
        vec!["export", "--chrome", chrome.to_str().unwrap()],
    ]
    .iter()
    .map(|c| c.iter().map(|s| s.to_string()).collect())
    .collect();
    let run_all = |what: &str, whole_blocks: bool| {
        for c in &commands {
            let mut args = vec!["tlog".to_owned(), c[0].clone()];
            args.push(damaged.to_string_lossy().into_owned());
            args.extend(c[1..].iter().cloned());
            let o = run(&args, what);
            // A cut inside a block is always reported, naming the file.
            if !whole_blocks {
                assert!(
                    o.code != 0 && o.stderr.contains("damaged.log"),
                    "{what}: {args:?} exited {}: {}",
                    o.code,
                    o.stderr
                );
            }
        }
    };
    for f in &files {
        let bytes = fs::read(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy();
        let mut cuts: Vec<usize> = (0..bytes.len())
            .step_by(1024)
            .flat_map(|b| [b, b + 16, b + 517])
            .filter(|&c| c > 0 && c < bytes.len())
            .collect();
        cuts.truncate(24);
        for cut in cuts {
            fs::write(&damaged, &bytes[..cut]).unwrap();
            run_all(&format!("{name} cut at {cut}"), cut % 1024 == 0);
        }
        for round in 0..4 {
            let mut b = bytes.clone();
            if b.is_empty() {
                continue;
            }
            rng.overwrite(&mut b, 12);
            fs::write(&damaged, &b).unwrap();
            run_all(&format!("{name} round {round} overwritten"), true);
        }
    }
    // Missing file and a directory: exit 2, naming the path.
    for path in [tmp.path().join("absent.log"), tmp.path().to_path_buf()] {
        let o = run(
            &[
                "tlog".into(),
                "dump".into(),
                path.to_string_lossy().into_owned(),
            ],
            "unreadable",
        );
        assert_eq!(o.code, 2, "{}", o.stderr);
        assert!(o.stderr.contains(&*path.to_string_lossy()), "{}", o.stderr);
    }
}

/// Serialized timer trees cut short and overwritten, through `tree show`
/// and `tree merge`.
#[test]
fn timer_trees_cut_and_overwritten() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let dir = fixtures().join("timertree");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "xml"))
        .collect();
    files.extend(
        fs::read_dir(dir.join("ours"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "xml")),
    );
    files.sort();
    assert!(!files.is_empty());
    let tmp = tempfile::tempdir().unwrap();
    for f in &files {
        let bytes = fs::read(f).unwrap();
        let ext = f.extension().unwrap().to_string_lossy().into_owned();
        let damaged = tmp.path().join(format!("damaged.{ext}"));
        let mut variants: Vec<(String, Vec<u8>)> = [1, 3, 2]
            .iter()
            .map(|d| {
                let cut = bytes.len() * d / 4;
                (format!("cut at {cut}"), bytes[..cut].to_vec())
            })
            .collect();
        for round in 0..4 {
            let mut b = bytes.clone();
            rng.overwrite(&mut b, 8);
            variants.push((format!("round {round} overwritten"), b));
        }
        for (what, b) in variants {
            fs::write(&damaged, &b).unwrap();
            let d = damaged.to_string_lossy().into_owned();
            let what = format!("{}: {what}", f.display());
            run(&["tree".into(), "show".into(), d.clone()], &what);
            run(
                &[
                    "tree".into(),
                    "merge".into(),
                    d.clone(),
                    f.to_string_lossy().into_owned(),
                ],
                &what,
            );
        }
    }
}

/// Block sizes whose sum passes 2^64, each of them allowed: the reports
/// that add them up (the message pairing weighs its two ways by them) do
/// not overflow.
#[test]
fn block_sizes_whose_sum_overflows() {
    let db = copy_db("small4");
    let header = db.path().join("bl_comm_prof_H_00000");
    let mut text = fs::read_to_string(&header).unwrap();
    for _ in 0..3 {
        text.push_str(
            "CommProfProc  0  nCommStats  9223372036854775807  datafile  bl_comm_prof_D_00000  \
             seekpos  0  vm\ntimeMinMax  0.03  0.06\n",
        );
    }
    fs::write(&header, text).unwrap();
    run_part(
        db.path(),
        Part::Comm,
        "small4: three blocks of 2^63 − 1 records",
        None,
    );
}
