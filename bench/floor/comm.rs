//! The floor of `comm barriers` and `comm stats` on a database: what any
//! reader must do at the least, and nothing else. It reads every
//! `bl_comm_prof_H_*` file and takes from each stanza only its process,
//! record count, data file, seek position and `bNum` record index. Then,
//! per process, `barriers` reads the barrier's two records and `stats`
//! reads all its records and counts them by kind; either writes a line
//! per process. No names, no checks, no warnings, no grouping, no
//! sorting, no time selection, no totals.
//!
//! Build and run (std only), with the rank-count databases of bench/run.sh:
//!
//!     rustc -O --edition 2021 bench/floor/comm.rs -o /tmp/comm-floor
//!     /tmp/comm-floor barriers "$dir/ranks16384" > /dev/null
//!
//! Its best wall time beside profparse's at 64 processes shows the room
//! issue 41's x64 target leaves a reader (docs/PERFORMANCE.md).
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;

/// Where one process's records are.
struct Stanza {
    proc: u64,
    records: u64,
    datafile: String,
    seekpos: u64,
    barrier_index: u64,
}

fn field(line: &str, i: usize) -> &str {
    line.split_ascii_whitespace().nth(i).unwrap_or("0")
}

fn number(s: &str) -> u64 {
    s.parse().unwrap_or(0)
}

/// The stanzas of one header file.
fn stanzas(text: &str, out: &mut Vec<Stanza>) {
    for line in text.lines() {
        if line.starts_with("CommProfProc") {
            out.push(Stanza {
                proc: number(field(line, 1)),
                records: number(field(line, 3)),
                datafile: field(line, 5).to_owned(),
                seekpos: number(field(line, 7)),
                barrier_index: 0,
            });
        } else if let (true, Some(s)) = (line.starts_with("bNum"), out.last_mut()) {
            s.barrier_index = number(line.rsplit(' ').next().unwrap_or("0"));
        }
    }
}

fn real(r: &[u8]) -> f64 {
    f64::from_le_bytes(r[16..24].try_into().expect("8 bytes"))
}

fn kind(r: &[u8]) -> usize {
    i32::from_le_bytes(r[0..4].try_into().expect("4 bytes")).clamp(0, 63) as usize
}

/// One thread's share of the header files: every `step`-th from `first`.
fn walk(stats: bool, dir: &str, headers: &[String], first: usize, step: usize) -> String {
    let (mut text, mut found, mut out) = (String::new(), Vec::new(), String::new());
    let mut records = Vec::new();
    for name in headers.iter().skip(first).step_by(step) {
        text.clear();
        found.clear();
        File::open(format!("{dir}/{name}"))
            .and_then(|mut f| f.read_to_string(&mut text))
            .expect("header");
        stanzas(&text, &mut found);
        let mut open: Option<(String, File)> = None;
        for b in &found {
            if open.as_ref().is_none_or(|(n, _)| *n != b.datafile) {
                let f = File::open(format!("{dir}/{}", b.datafile)).expect("data file");
                open = Some((b.datafile.clone(), f));
            }
            let file = &open.as_ref().expect("opened").1;
            if stats {
                // Bounded: a wrong count in a bench input must not exhaust memory.
                records.resize((b.records as usize).min(1 << 24) * 24, 0);
                file.read_exact_at(&mut records, b.seekpos)
                    .expect("records");
                let mut kinds = [0u64; 64];
                for r in records.chunks_exact(24) {
                    kinds[kind(r)] += 1;
                }
                let _ = writeln!(out, "{} {} {} {}", b.proc, b.records, kinds[6], kinds[25]);
            } else {
                records.resize(48, 0);
                let at = b.seekpos + b.barrier_index * 24;
                file.read_exact_at(&mut records, at).expect("records");
                let wait = real(&records[24..]) - real(&records);
                let _ = writeln!(out, "{} {:.3e}", b.proc, wait);
            }
        }
    }
    out
}

fn main() {
    let usage = "usage: comm (barriers|stats) DATABASE";
    let stats = std::env::args().nth(1).expect(usage) == "stats";
    let dir = std::env::args().nth(2).expect(usage);
    let mut headers: Vec<String> = fs::read_dir(&dir)
        .expect("database directory")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("bl_comm_prof_H_"))
        .collect();
    headers.sort();
    // A thread per core, as profparse runs at all threads in bench/run.sh.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (dir, headers) = (&dir, &headers);
    let parts: Vec<String> = std::thread::scope(|s| {
        let walks: Vec<_> = (0..threads)
            .map(|first| s.spawn(move || walk(stats, dir, headers, first, threads)))
            .collect();
        walks
            .into_iter()
            .map(|w| w.join().expect("thread"))
            .collect()
    });
    // A closed pipe (`| head`) ends the output, nothing more.
    let mut stdout = std::io::stdout().lock();
    for part in parts {
        if stdout.write_all(part.as_bytes()).is_err() {
            break;
        }
    }
}
