//! One test per section and quirk of docs/TINYPROFILER.md (and the shared
//! format description), on small reports written here by its rules, and a
//! few on the real logs of `fixtures/tinyprofiler/`.

use std::path::{Path, PathBuf};

use super::*;
use crate::error::Location;
use crate::model::tinyprofiler::TimerTables;

fn p() -> &'static Path {
    Path::new("job.out")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/tinyprofiler")
        .join(name)
}

const RULE: &str = "-----------------------------------------------------------------------------";

/// A report of two timers, one rank, with the name column padded for a
/// longer folded name, an `Other` row, and a Cpu memory section.
fn one_rank_report() -> String {
    format!(
        "\n\nTinyProfiler total time across processes [min...avg...max]: 12.95 ... 12.95 ... 12.95\n\
         \n{RULE}\n\
         Name                                           NCalls  Excl. Min  Excl. Avg  Excl. Max   Max %\n\
         {RULE}\n\
         ParticleContainer<NSR, NSI, NAR, NAI>::Init()       3      10.71      10.71      10.71  82.67%\n\
         main                                                1    0.07857    0.07857    0.07857   0.61%\n\
         Other                                              12  3.296e-05  3.296e-05  3.296e-05   0.00%\n\
         {RULE}\n\
         \n{RULE}\n\
         Name                                           NCalls  Incl. Min  Incl. Avg  Incl. Max   Max %\n\
         {RULE}\n\
         main                                                1      12.95      12.95      12.95 100.00%\n\
         ParticleContainer<NSR, NSI, NAR, NAI>::Init()       3      10.71      10.71      10.71  82.67%\n\
         Other                                              12  4.001e-05  4.001e-05  4.001e-05   0.00%\n\
         {RULE}\n\
         \nCpu Memory Usage:\n\
         ------------------------------------------------------------------------\n\
         Name                                           Nalloc  Nfree    AvgMem    MaxMem\n\
         ------------------------------------------------------------------------\n\
         ParticleContainer<NSR, NSI, NAR, NAI>::Init()       8      8  1665   B  8192 KiB\n\
         main                                                2      1    40 MiB    40 MiB\n\
         ------------------------------------------------------------------------\n\
         \n"
    )
}

fn with_run(report: &str, ranks: u64) -> String {
    format!(
        "Initializing AMReX (25.01)...\nMPI initialized with {ranks} MPI processes\n\
         MPI initialized with thread support level 0\nAMReX (25.01) initialized\n\
         Step 1 done\n{report}AMReX (25.01) finalized\n"
    )
}

fn parse_str(s: &str) -> Result<Log> {
    parse(p(), s.as_bytes())
}

#[test]
fn total_time_line() {
    let log = parse_str(&with_run(&one_rank_report(), 1)).unwrap();
    let r = &log.reports[0];
    assert_eq!(r.line, 8);
    assert_eq!(
        (r.total.min, r.total.avg, r.total.max),
        (12.95, 12.95, 12.95)
    );
    assert_eq!(
        parse_total(
            "TinyProfiler total time across processes [min...avg...max]: 0.0449 ... 0.04495 ... 0.04501"
        ),
        Some(Spread {
            min: 0.0449,
            avg: 0.04495,
            max: 0.04501
        })
    );
}

#[test]
fn both_tables_joined_by_name_with_blanks_commas_and_brackets() {
    let log = parse_str(&with_run(&one_rank_report(), 1)).unwrap();
    let t = &log.reports[0].tables;
    let names: Vec<&str> = t.timers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        ["ParticleContainer<NSR, NSI, NAR, NAI>::Init()", "main"]
    );
    let main = &t.timers[1];
    assert_eq!(main.ncalls, 1);
    assert_eq!(main.exclusive.max, 0.07857);
    assert_eq!(main.inclusive.avg, 12.95);
    assert_eq!(
        (main.exclusive_percent, main.inclusive_percent),
        (0.61, 100.0)
    );
    let p = &t.timers[0];
    assert_eq!(
        (p.ncalls, p.exclusive.min, p.inclusive.max),
        (3, 10.71, 10.71)
    );
}

#[test]
fn other_row_is_folded_timers_not_a_function() {
    let log = parse_str(&with_run(&one_rank_report(), 1)).unwrap();
    let t = &log.reports[0].tables;
    let other = t.other.as_ref().unwrap();
    assert_eq!(other.ncalls, 12);
    assert_eq!(other.exclusive.max, 3.296e-05);
    assert_eq!(other.inclusive.max, 4.001e-05);
    assert!(t.timers.iter().all(|r| r.name != "Other"));
}

#[test]
fn memory_section_one_rank_layout_and_units() {
    let log = parse_str(&with_run(&one_rank_report(), 1)).unwrap();
    let m = &log.reports[0].memory;
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].arena, "Cpu");
    assert!(m[0].one_rank);
    let r = &m[0].rows[0];
    assert_eq!(r.name, "ParticleContainer<NSR, NSI, NAR, NAI>::Init()");
    assert_eq!((r.nalloc, r.nfree), (8, 8));
    assert_eq!(
        (r.avg_mem.min, r.avg_mem.avg, r.avg_mem.max),
        (1665, 1665, 1665)
    );
    assert_eq!(r.max_mem.max, 8192 * 1024);
    assert_eq!(m[0].rows[1].avg_mem.avg, 40 << 20);
    assert_eq!(memory::bytes("9999", "TiB"), Some(9999 << 40));
    assert_eq!(memory::bytes("1", "XB"), None);
    assert_eq!(memory::bytes("99999999999", "TiB"), None);
}

#[test]
fn ranks_and_version_from_the_start_up_lines() {
    let log = parse_str(&with_run(&one_rank_report(), 8)).unwrap();
    assert_eq!(log.reports[0].nprocs, Some(8));
    assert_eq!(log.reports[0].amrex_version.as_deref(), Some("25.01"));
    // Without an MPI line, a one-rank memory table says 1.
    let log = parse_str(&one_rank_report()).unwrap();
    assert_eq!(log.reports[0].nprocs, Some(1));
    assert_eq!(log.reports[0].amrex_version, None);
}

#[test]
fn several_runs_in_one_log() {
    let two = format!(
        "{}{}",
        with_run(&one_rank_report(), 1),
        with_run(&one_rank_report(), 4)
    );
    let log = parse_str(&two).unwrap();
    assert_eq!(log.reports.len(), 2);
    assert_eq!(log.reports[0].nprocs, Some(1));
    assert_eq!(log.reports[1].nprocs, Some(4));
    assert!(log.reports[1].line > log.reports[0].line);
}

#[test]
fn verbose_entering_lines_before_the_report() {
    let report = one_rank_report();
    let noisy = with_run(
        &format!(
            "  TP: Entering main\n    TP: Entering Step\n    TP: Leaving  Step\n  TP: Leaving  main\n{report}"
        ),
        1,
    );
    let log = parse_str(&noisy).unwrap();
    assert_eq!(log.reports[0].tables.timers.len(), 2);
}

#[test]
fn crlf_line_endings() {
    let log = parse_str(&with_run(&one_rank_report(), 1).replace('\n', "\r\n")).unwrap();
    assert_eq!(log.reports[0].memory[0].rows.len(), 2);
}

#[test]
fn region_section_and_memory_right_after_the_last_end_region() {
    let log = read(&fixture("asyncout_24.10_np2.txt")).unwrap();
    let r = &log.reports[0];
    let names: Vec<&str> = r.regions.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["vismf-async-overlap", "vismf-orig", "vismf-time"]);
    let g = &r.regions[0].tables;
    assert_eq!(g.timers.len(), 6);
    assert!(g.other.is_none());
    let reg = g
        .timers
        .iter()
        .find(|t| t.name == "REG::vismf-async-overlap")
        .unwrap();
    assert_eq!(reg.inclusive.max, 0.01393);
    // `END REGION vismf-time` is followed at once by `Pinned Memory Usage:`.
    let arenas: Vec<&str> = r.memory.iter().map(|m| m.arena.as_str()).collect();
    assert_eq!(arenas, ["Pinned", "Cpu"]);
    assert!(!r.memory[0].one_rank);
    let pinned = &r.memory[0].rows[1];
    assert_eq!(pinned.name, "main");
    assert_eq!((pinned.avg_mem.min, pinned.avg_mem.avg), (9173, 10 << 10));
    assert_eq!(r.nprocs, Some(2));
    assert_eq!(r.tables.other.as_ref().unwrap().ncalls, 4);
}

#[test]
fn threshold_zero_has_no_other_row() {
    let log = read(&fixture("singlevortex_24.10_np2_threshold0.txt")).unwrap();
    assert!(log.reports[0].tables.other.is_none());
    let log = read(&fixture("singlevortex_24.10_np2_threshold5.txt")).unwrap();
    let other = log.reports[0].tables.other.as_ref().unwrap();
    assert_eq!(other.ncalls, 4701);
    assert_eq!(
        (other.exclusive_percent, other.inclusive_percent),
        (3.01, 4.78)
    );
}

#[test]
fn memprof_disabled_has_no_memory_section() {
    let log = read(&fixture("singlevortex_24.10_np2_nomemprof.txt")).unwrap();
    assert!(log.reports[0].memory.is_empty());
    assert!(!log.reports[0].tables.timers.is_empty());
}

#[test]
fn output_file_report_alone() {
    let log = read(&fixture("singlevortex_24.10_np2_outputfile.report.txt")).unwrap();
    let r = &log.reports[0];
    assert_eq!(r.line, 3);
    // No start-up lines and two-rank memory tables: the ranks are unknown.
    assert_eq!(r.nprocs, None);
    assert_eq!(r.total.max, 7.934);
    assert_eq!(r.memory.len(), 2);
}

#[test]
fn enabled_zero_and_output_file_stdout_say_why_there_is_no_report() {
    for f in [
        "singlevortex_24.10_np2_disabled.txt",
        "singlevortex_24.10_np2_outputfile.txt",
    ] {
        let e = read(&fixture(f)).unwrap_err();
        assert!(
            matches!(e, Error::NoTinyProfilerReport { amrex_runs: 1, .. }),
            "{e}"
        );
        let text = e.to_string();
        assert!(
            text.contains("no TinyProfiler report") && text.contains("enabled=0"),
            "{text}"
        );
        assert!(!e.is_unreadable_input());
    }
    let e = parse_str("hello\nworld\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "job.out: no TinyProfiler report (no 'TinyProfiler total time across processes' line)"
    );
}

#[test]
fn damage_is_an_error_at_its_line() {
    let good = with_run(&one_rank_report(), 1);
    // A row whose numbers are not numbers.
    let bad = good.replace("  0.07857    0.07857", "  0.07857    zero");
    let e = parse_str(&bad).unwrap_err();
    assert_eq!(e.location(), Some(Location::line(p(), 14)), "{e}");
    assert!(e.to_string().contains("'zero' is not a number"), "{e}");
    // A report cut off inside a table.
    let cut: String = good.lines().take(15).map(|l| format!("{l}\n")).collect();
    let e = parse_str(&cut).unwrap_err();
    assert!(e.to_string().contains("ends inside a timer table"), "{e}");
    // A timer in one table only.
    let one = good.replacen(
        "main                                                1    0.07857",
        "mein                                                1    0.07857",
        1,
    );
    let e = parse_str(&one).unwrap_err();
    assert!(
        e.to_string()
            .contains("'mein' is in the exclusive table but not in the inclusive one"),
        "{e}"
    );
    // A total-time line without its numbers.
    let e = parse_str("TinyProfiler total time across processes [min...avg...max]: 1 ... 2\n")
        .unwrap_err();
    assert_eq!(e.location(), Some(Location::line(p(), 1)));
}

#[test]
fn every_shared_report_parses() {
    for e in std::fs::read_dir(fixture("")).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".txt") {
            continue;
        }
        let r = read(&path);
        if name.contains("disabled") || name.ends_with("outputfile.txt") {
            assert!(r.is_err(), "{name}");
        } else {
            let log = r.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(log.reports.len(), 1, "{name}");
            let t: &TimerTables = &log.reports[0].tables;
            assert!(!t.timers.is_empty(), "{name}");
        }
    }
}

#[test]
fn recognition_needs_text() {
    assert!(recognise(
        b"abc",
        b"abc\nTinyProfiler total time across processes [min"
    ));
    assert!(recognise(
        b"Initializing AMReX (24.10)...",
        b"Initializing AMReX (24.10)..."
    ));
    assert!(!recognise(
        b"\0\0TinyProfiler",
        b"\0\0TinyProfiler total time across processes"
    ));
    assert!(!recognise(b"plain text", b"plain text"));
}

#[test]
fn arbitrary_bytes_never_panic() {
    let good = with_run(&one_rank_report(), 2);
    for cut in (0..good.len()).step_by(7) {
        let _ = parse_str(&good[..cut]);
    }
    let _ = parse(p(), b"TinyProfiler total time across processes]: 1...2...3\n-----\nName NCalls Excl. Min\n---\n\xff\xfe 1 2 3 4 5%\n");
}

#[test]
fn damaged_real_logs_never_panic() {
    // A small fixed-seed generator: byte flips, blanked and cut lines.
    let mut rng = crate::test_rng::Xorshift::new(0x2545_f491_4f6c_dd1d);
    let mut next = move || rng.next();
    for name in ["asyncout_24.10_np2.txt", "singlevortex_24.10_np1.txt"] {
        let good = std::fs::read(fixture(name)).unwrap();
        for _ in 0..200 {
            let mut bytes = good.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = match next() % 5 {
                    0 => b'\n',
                    1 => b' ',
                    2 => b'-',
                    3 => b'9',
                    _ => next() as u8,
                };
            }
            let cut = (next() % bytes.len() as u64) as usize;
            let _ = parse(p(), &bytes);
            let _ = parse(p(), &bytes[..cut]);
        }
    }
}

#[test]
fn other_output_between_sections_is_passed_over() {
    let report = one_rank_report().replace(
        "\nCpu Memory Usage:",
        "Rank 1 done\n[node:1234] some launcher noise\n\nCpu Memory Usage:",
    );
    let log = parse_str(&with_run(&report, 2)).unwrap();
    assert_eq!(log.reports[0].memory.len(), 1);
    // More than a few lines of it end the report.
    let noisy = one_rank_report().replace(
        "\nCpu Memory Usage:",
        "a\nb\nc\nd\ne\nf\n\nCpu Memory Usage:",
    );
    let log = parse_str(&with_run(&noisy, 2)).unwrap();
    assert!(log.reports[0].memory.is_empty());
}

#[test]
fn a_build_without_mpi_has_one_rank() {
    let report = one_rank_report();
    let cut = report.find("\nCpu Memory Usage:").unwrap();
    let no_memory = &report[..cut];
    let serial = format!(
        "Initializing AMReX (24.10)...\nAMReX (24.10) initialized\n{no_memory}\nAMReX (24.10) finalized\n"
    );
    assert_eq!(parse_str(&serial).unwrap().reports[0].nprocs, Some(1));
    // The report alone (output_file, no memory sections): unknown.
    assert_eq!(parse_str(no_memory).unwrap().reports[0].nprocs, None);
}

#[test]
fn pinned_arena_initialisation_is_a_memory_row_never_a_timer() {
    let log = read(&fixture("singlevortex_24.10_np2.txt")).unwrap();
    let r = &log.reports[0];
    let name = "The_Pinned_Arena::Initialize()";
    assert!(r.tables.timers.iter().all(|t| t.name != name));
    let pinned = r.memory.iter().find(|m| m.arena == "Pinned").unwrap();
    assert_eq!(pinned.rows[0].name, name);
    assert_eq!(pinned.rows[0].max_mem.max, 8192 << 10);
    // Nalloc and Nfree are totals over ranks (143185 on 2 ranks).
    let cpu = r.memory.iter().find(|m| m.arena == "Cpu").unwrap();
    assert_eq!((cpu.rows[0].nalloc, cpu.rows[0].nfree), (143185, 143185));
}

#[test]
fn a_region_section_may_have_an_other_row() {
    let region = format!(
        "\n\nBEGIN REGION my region\n\n{RULE}\n\
         Name        NCalls  Excl. Min  Excl. Avg  Excl. Max   Max %\n{RULE}\n\
         REG::my region   1        1.5        1.5        1.5  11.58%\n\
         Other            7    0.00101    0.00101    0.00101   0.01%\n{RULE}\n\
         \n{RULE}\n\
         Name        NCalls  Incl. Min  Incl. Avg  Incl. Max   Max %\n{RULE}\n\
         REG::my region   1        2.5        2.5        2.5  19.31%\n\
         Other            7    0.00202    0.00202    0.00202   0.02%\n{RULE}\n\
         \nEND REGION my region\n"
    );
    let report = one_rank_report().replacen(
        "\nCpu Memory Usage:",
        &format!("{region}Cpu Memory Usage:"),
        1,
    );
    let log = parse_str(&with_run(&report, 1)).unwrap();
    let g = &log.reports[0].regions[0];
    assert_eq!(g.name, "my region");
    assert_eq!(g.tables.timers[0].name, "REG::my region");
    assert_eq!(g.tables.timers[0].inclusive.max, 2.5);
    assert_eq!(g.tables.other.as_ref().unwrap().ncalls, 7);
    assert_eq!(log.reports[0].memory.len(), 1);
    // A section that ends under another name is an error at that line.
    let wrong = report.replace("END REGION my region", "END REGION other");
    let e = parse_str(&with_run(&wrong, 1)).unwrap_err();
    assert!(
        e.to_string().contains("expected END REGION my region"),
        "{e}"
    );
}
