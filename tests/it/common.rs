//! Helpers shared by the integration test modules: fixture paths, running
//! the binary, the golden files of our own outputs, notes that the test
//! harness does not hide, and one generated test per fixture
//! (`fixture_tests!`, `database_tests!`).

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Mutex;

use assert_cmd::Command;
use serde_json::Value;

/// The bl_prof fixture databases: every directory of `fixtures/blprof/`
/// holding a `bl_prof` database (checked by
/// `databases_are_the_fixture_directories`). `database_tests!` lists them
/// again.
pub const DATABASES: [&str; 7] = [
    "small4",
    "nfiles2",
    "single",
    "flush",
    "asym4",
    "host_nid",
    "amrlevel8",
];

/// `fixtures/`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// `fixtures/blprof/NAME`: a bl_prof database (`bl_prof/`) and the
/// reference tool's outputs for it (`golden/`).
pub fn fixture(name: &str) -> PathBuf {
    fixtures().join("blprof").join(name)
}

/// `fixtures/blprof/NAME/bl_prof`: the database itself.
pub fn db(name: &str) -> PathBuf {
    fixture(name).join("bl_prof")
}

/// `fixtures/tlog/REL`: a trace, a bad trace (`bad/…`) or a reference
/// reader's dump (`golden/…`).
pub fn tlog(rel: &str) -> PathBuf {
    fixtures().join("tlog").join(rel)
}

/// `fixtures/timertree/NAME`.
pub fn timer_tree(name: &str) -> PathBuf {
    fixtures().join("timertree").join(name)
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A writable copy of the files of the fixture database `name`.
pub fn copy_db(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for e in fs::read_dir(db(name)).unwrap() {
        let e = e.unwrap();
        if e.path().is_file() {
            fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
        }
    }
    tmp
}

/// The profparse binary, ready for arguments.
pub fn profparse() -> Command {
    Command::cargo_bin("profparse").unwrap()
}

/// Runs profparse with `args`, whatever its exit code.
pub fn output(args: &[&str]) -> Output {
    profparse().args(args).output().unwrap()
}

/// Runs profparse; its exit code must be one of `codes`. Returns stdout.
pub fn run_expect(args: &[&str], codes: &[i32]) -> String {
    let out = output(args);
    let code = out.status.code().unwrap_or(-1);
    assert!(
        codes.contains(&code),
        "profparse {args:?}: exit {code} (expected one of {codes:?}): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs profparse, which must succeed (exit 0). Returns stdout.
pub fn run_ok(args: &[&str]) -> String {
    run_expect(args, &[0])
}

/// Runs profparse, which must succeed (exit 0). Returns stdout and stderr.
pub fn run_ok_stderr(args: &[&str]) -> (String, String) {
    let out = output(args);
    assert!(
        out.status.success(),
        "profparse {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// stdout of a run whose exit code is one of `codes`, as JSON.
pub fn json_expect(args: &[&str], codes: &[i32]) -> Value {
    serde_json::from_str(&run_expect(args, codes)).unwrap()
}

/// stdout of a successful run, as JSON.
pub fn json(args: &[&str]) -> Value {
    json_expect(args, &[0])
}

/// Compares `actual` with one of profparse's own goldens, `fixtures/REL`,
/// or rewrites the file when `PROFPARSE_BLESS=1` (then review the diff).
///
/// Our goldens live in an `ours/` directory (`fixtures/timertree/ours/`).
/// The reference tools' outputs (`fixtures/*/golden/`, the Fortran
/// reference's `fixtures/timertree/*.txt`) are what we must match and are
/// never rewritten: tests compare with those directly, and this helper
/// refuses any path outside an `ours/` directory.
pub fn golden(rel: &str, actual: &str) {
    assert!(
        Path::new(rel).components().any(|c| c.as_os_str() == "ours"),
        "{rel}: only our own goldens (under an ours/ directory) go through golden()"
    );
    let path = fixtures().join(rel);
    if std::env::var_os("PROFPARSE_BLESS").is_some_and(|v| v == "1") {
        fs::create_dir_all(path.parent().unwrap()).expect("create the golden's directory");
        fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with PROFPARSE_BLESS=1", path.display()));
    assert_eq!(
        actual,
        expected,
        "differs from {} (if the change is intended: PROFPARSE_BLESS=1, then review the diff)",
        path.display()
    );
}

/// For the optional tests, marked `#[ignore = "needs TOOL (how to install
/// it)"]` and run by `cargo test -- --include-ignored` (CI does, after
/// installing the tools): a missing tool fails the test with `install`
/// rather than letting it pass without checking anything.
pub fn require(available: bool, tool: &str, install: &str) {
    assert!(
        available,
        "{tool} is missing: this optional test needs it ({install}); \
         plain `cargo test` leaves it out"
    );
}

/// True when `python3 -c "import MODULE"` works (for optional tests).
pub fn python_has(module: &str) -> bool {
    std::process::Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs a Python `script` with `args` (its `sys.argv[1:]`); its standard
/// output, the test failing with its standard error when it fails.
pub fn python(script: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Prints `text` on stderr where `cargo test` shows it, once per test run.
/// (The harness captures `eprintln!` and shows it only for failed tests;
/// a write to the stderr handle itself goes through.) For skipped checks.
pub fn note(text: &str) {
    static SHOWN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut shown = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
    if shown
        .get_or_insert_with(HashSet::new)
        .insert(text.to_owned())
    {
        let _ = writeln!(std::io::stderr(), "note: {text}");
    }
}

include!("fixture_macros.rs");

/// One `#[test]` per database written by the test program: every fixture
/// database but the stock application's `amrlevel8`. The reference's trace,
/// region and send-list reports ran on all of them (on amrlevel8 they crash
/// on a region stop without a start, and left no golden: tests/it/stock.rs
/// checks those reports there), and they are small enough to be damaged in
/// every way within a test's time (amrlevel8 takes minutes).
macro_rules! test_program_database_tests {
    ($check:ident) => {
        fixture_tests!($check: small4, nfiles2, single, flush, asym4, host_nid);
    };
}

/// `golden()` refuses the reference tools' outputs, blessing or not (the
/// check comes before any write).
#[test]
#[should_panic(expected = "only our own goldens")]
fn golden_refuses_the_reference_outputs() {
    golden("timertree/doc_example.indent2.txt", "");
}

/// Every directory of `fixtures/blprof/` holding a database is one of
/// [`DATABASES`], and back.
#[test]
fn databases_are_the_fixture_directories() {
    let mut found: Vec<String> = fs::read_dir(fixtures().join("blprof"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("bl_prof").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut listed = DATABASES.map(str::to_owned).to_vec();
    listed.sort();
    assert_eq!(found, listed);
}

/// `database_tests!` makes a test for each of [`DATABASES`] and no other
/// (six distinct names, each listed).
fn database_is_listed(name: &str) {
    assert!(DATABASES.contains(&name), "{name} is not in DATABASES");
}

database_tests!(database_is_listed);

/// The fields of a text line as numbers where they are numbers: a time
/// written with its unit (`12.35 ms`, two fields) becomes its seconds.
/// Other fields are `None`.
pub fn line_numbers(line: &str) -> Vec<Option<f64>> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < fields.len() {
        let scale = fields.get(i + 1).and_then(|u| match *u {
            "s" => Some(1.0),
            "ms" => Some(1e-3),
            "µs" => Some(1e-6),
            "ns" => Some(1e-9),
            _ => None,
        });
        let value = fields[i].parse::<f64>().ok();
        match (value, scale) {
            (Some(v), Some(k)) => {
                out.push(Some(v * k));
                i += 2;
            }
            _ => {
                out.push(value);
                i += 1;
            }
        }
    }
    out
}

/// Whether `shown`, printed with 4 significant digits, is `exact`.
pub fn shows(shown: f64, exact: f64) -> bool {
    (shown - exact).abs() <= 5e-4 * exact.abs() + 1e-12
}
