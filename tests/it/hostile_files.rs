//! Files in a database that are not its plain files:
//! symbolic links out of it, FIFOs, huge sparse headers, a header listing
//! 100,000 per-file headers. Each command ends, reads nothing outside the
//! database, and says what it skipped.

use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::common::{copy_db, profparse, s};

/// Runs profparse with a generous bound (a FIFO used to block forever);
/// returns (exit code, stdout, stderr).
fn bounded(args: &[&str]) -> (i32, String, String) {
    let out = profparse()
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn a_link_out_of_the_database_is_not_read() {
    let tmp = copy_db("small4");
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("credentials");
    fs::write(&secret, "SECRET-TOKEN-0042\n".repeat(100)).unwrap();
    let data = tmp.path().join("bl_call_stats_D_00001");
    fs::remove_file(&data).unwrap();
    std::os::unix::fs::symlink(&secret, &data).unwrap();
    // A link that stays inside is followed.
    let inner = tmp.path().join("bl_call_stats_D_00002");
    let kept = tmp.path().join("kept_copy");
    fs::rename(&inner, &kept).unwrap();
    std::os::unix::fs::symlink("kept_copy", &inner).unwrap();
    let dir = s(tmp.path());
    let html = tmp.path().join("r.html");
    for args in [
        vec!["trace-summary", dir, "--format", "json"],
        vec!["calltree", dir],
        vec!["calltrace", dir, "--proc", "1"],
        vec!["report", dir, "-o", s(&html)],
    ] {
        let (code, stdout, stderr) = bounded(&args);
        assert_eq!(code, 3, "{args:?}: {stderr}");
        assert!(
            stderr.contains("symbolic link to outside the database"),
            "{stderr}"
        );
        assert!(
            !stdout.contains("SECRET") && !stderr.contains("SECRET"),
            "{args:?}"
        );
        // The linked-inside file of process 2 was read: no warning names it.
        assert!(!stderr.contains("bl_call_stats_D_00002"), "{stderr}");
    }
    assert!(!fs::read_to_string(&html).unwrap().contains("SECRET"));
}

#[test]
fn fifos_and_huge_headers_are_refused_not_waited_on_or_read() {
    let tmp = copy_db("small4");
    let data = tmp.path().join("bl_comm_prof_D_00003");
    fs::remove_file(&data).unwrap();
    mkfifo(&data);
    let header = tmp.path().join("bl_call_stats_H_00001");
    fs::File::create(&header).unwrap().set_len(3 << 30).unwrap();
    let dir = s(tmp.path());
    for args in [
        vec!["comm", "stats", dir],
        vec!["trace-summary", dir],
        vec!["summary", dir],
    ] {
        let (code, _, stderr) = bounded(&args);
        assert!(matches!(code, 0 | 3), "{args:?}: {code} {stderr}");
    }
    let (_, _, stderr) = bounded(&["comm", "stats", dir]);
    assert!(stderr.contains("not a regular file"), "{stderr}");
    let (_, _, stderr) = bounded(&["trace-summary", dir]);
    assert!(stderr.contains("longer than any header"), "{stderr}");
    // A FIFO given as a trace or a global header: an error, at once.
    let fifo = tmp.path().join("trace.log");
    mkfifo(&fifo);
    for args in [
        vec!["tlog", "dump", s(&fifo)],
        vec!["diff", s(&fifo), s(&fifo)],
    ] {
        let (code, _, stderr) = bounded(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
    let global = tmp.path().join("bl_prof_H");
    fs::remove_file(&global).unwrap();
    mkfifo(&global);
    assert_eq!(bounded(&["summary", dir]).0, 2);
}

/// Files named by an option (a filter file, an event-names file) follow the
/// rules of every input: a FIFO or a device is refused at once (exit 2),
/// not waited on or read forever.
#[test]
fn a_fifo_or_a_device_named_by_an_option_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("filters");
    mkfifo(&fifo);
    let db = crate::common::db("small4");
    let trace = crate::common::tlog("np1.log");
    let chrome = tmp.path().join("t.json");
    for named in [s(&fifo), "/dev/zero"] {
        for args in [
            vec!["trace-summary", s(&db), "--filter-file", named],
            vec!["calltree", s(&db), "--filter-file", named],
            vec![
                "tlog",
                "export",
                s(&trace),
                "--chrome",
                s(&chrome),
                "--event-names",
                named,
            ],
        ] {
            let (code, _, stderr) = bounded(&args);
            assert_eq!(code, 2, "{args:?}: {stderr}");
            assert!(
                stderr.contains(named) && stderr.contains("not a regular file"),
                "{args:?}: {stderr}"
            );
        }
    }
    assert!(!chrome.exists());
}

#[test]
fn a_hundred_thousand_header_files_are_listed_once_and_counted() {
    let tmp = copy_db("small4");
    let global = tmp.path().join("bl_call_stats_H");
    let mut text = fs::read_to_string(&global).unwrap();
    for k in 0..100_000 {
        text.push_str(&format!(
            "HeaderFile bl_call_stats_H_{:05}\n",
            k % 50_000 + 10
        ));
    }
    fs::write(&global, text).unwrap();
    let (code, _, stderr) = bounded(&["trace-summary", s(tmp.path())]);
    assert_eq!(code, 3, "{stderr}");
    let missing = stderr.lines().filter(|l| l.contains("but missing")).count();
    assert_eq!(missing, 10, "{stderr}");
    assert!(
        stderr.contains("49990 more listed per-file headers are missing"),
        "{stderr}"
    );
}

/// The export is paused (a test-only hook of src/source.rs, released
/// through a FIFO) right after it maps its first trace block and before it
/// reads it; the data files are cut to nothing there, so the read lands
/// past the new end every time, however busy the machine.
#[test]
fn a_data_file_that_shrinks_while_mapped_ends_the_run_with_exit_1_not_a_signal() {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    crate::common::run_ok(&["synth", "blprof", s(&db), "--procs", "8", "--calls", "2000"]);
    let out_dir = tmp.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    let chrome = out_dir.join("t.json");
    let fifo = tmp.path().join("pause");
    mkfifo(&fifo);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("profparse"))
        .args(["-q", "export", s(&db), "--chrome", s(&chrome)])
        .env("PROFPARSE_TEST_ONLY_PAUSE_AT_FIRST_MAP_FIFO", &fifo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The write end opens once the export waits at the pause (ENXIO until
    // then); an export that ends first fails the test.
    let started = std::time::Instant::now();
    let pause = loop {
        match fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
        {
            Ok(f) => break f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("the export ended ({status}) before it mapped a trace block");
                }
                assert!(started.elapsed() < Duration::from_secs(120), "no pause");
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("{}: {e}", fifo.display()),
        }
    };
    // The unfinished output exists at the pause: the run must remove it.
    let pending = fs::read_dir(&out_dir).unwrap().count();
    assert_eq!(pending, 1, "the export's temporary output");
    let mut cut = 0;
    for e in fs::read_dir(&db).unwrap() {
        let p = e.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("bl_call_stats_D_")
        {
            fs::OpenOptions::new()
                .write(true)
                .open(&p)
                .unwrap()
                .set_len(0)
                .unwrap();
            cut += 1;
        }
    }
    assert!(cut > 0, "no data file to cut");
    drop(pause);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        None,
        "killed by a signal: {:?}",
        out.status
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
    // Said once, however many reader threads faulted.
    assert_eq!(
        err.matches("error: an input file shrank while profparse was reading it")
            .count(),
        1,
        "{err}"
    );
    // No temporary file and no half output left behind.
    let left: Vec<_> = fs::read_dir(&out_dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_forty_megabyte_name_is_shortened_in_tables_and_kept_whole_in_json() {
    let copy = copy_db("small4");
    let header = copy.path().join("bl_prof_H");
    let text = fs::read_to_string(&header).unwrap();
    let name = "C".repeat(40_000_000);
    let damaged = text.replacen("phFName \"Compute()\"", &format!("phFName \"{name}\""), 1);
    assert_ne!(damaged, text);
    fs::write(&header, damaged).unwrap();
    let start = std::time::Instant::now();
    let table = crate::common::run_ok(&["summary", s(copy.path()), "--width", "0"]);
    // Every row was padded to the longest name: gigabytes, minutes.
    assert!(table.len() < 100_000, "{} bytes", table.len());
    assert!(
        table.contains("… (39999100 more characters)"),
        "{}",
        &table[..2000]
    );
    let json = crate::common::json(&["summary", s(copy.path()), "--format", "json"]);
    let names: Vec<&str> = json["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&name.as_str()));
    crate::common::note(&format!(
        "40 MB name: table and JSON in {:?}",
        start.elapsed()
    ));
}
