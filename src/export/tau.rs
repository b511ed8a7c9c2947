//! TAU profiles: one `profile.<rank>.0.0` per process, the text format
//! TAU writes (`templated_functions_MULTI_TIME`) and ParaProf, pprof and
//! Hatchet's `GraphFrame.from_tau` read, so per-rank call-path data reach
//! the tools built for it.
//!
//! ```text
//! 5 templated_functions_MULTI_TIME
//! # Name Calls Subrs Excl Incl ProfileCalls # <metadata>…</metadata>
//! ".TAU application" 1 1 0 9000 0 GROUP="TAU_DEFAULT"
//! "main()" 1 2 1000 9000 0 GROUP="TAU_USER"                       ← flat: per function
//! ".TAU application => main()" 1 2 1000 9000 0 GROUP="TAU_USER|TAU_CALLPATH"
//! ".TAU application => main() => Step()" 2 0 8000 8000 0 GROUP="TAU_USER|TAU_CALLPATH"
//! 0 aggregates
//! ```
//!
//! Times are microseconds. `.TAU application` stands for the tree's root
//! (TAU's own top node): it holds the outermost calls, its inclusive time
//! is theirs, and its figures are whole microseconds because Hatchet reads
//! that line's numbers as integers. A function's flat inclusive time counts
//! each call once: nodes below another node of the same function (recursion)
//! are not added again.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::analysis::call_path_profile::{CallPathProfile, for_each_process_tree};
use crate::error::{Error, Result, Warning};
use crate::formats::blprof::Database;
use crate::model::calltree::CallTree;
use crate::report::escape;

/// TAU's name for the root of every profile.
pub const ROOT: &str = ".TAU application";
/// What separates the names of a call path.
const SEP: &str = " => ";
/// Bytes of a line besides its name: quotes, five numbers, the group.
const LINE_BYTES: u64 = 110;

/// A function name as a TAU profile line can hold it: no double quote
/// (it ends the name), no `=>` (it separates a path), no control byte.
pub fn tau_name(name: &str) -> String {
    escape::visible(name).replace('"', "'").replace("=>", "->")
}

/// Facts about the run, written in every profile's metadata.
pub struct RunFacts<'a> {
    pub database: &'a str,
    pub nprocs: u64,
}

/// Bytes [`write_profile`] writes for `tree` (an upper bound of the
/// numbers' widths), before anything is written: call paths repeat every
/// ancestor's name, so a deep tree makes a large profile.
pub fn profile_bytes(tree: &CallTree) -> u64 {
    let paths: u64 = tree
        .path_bytes(SEP.len() as u64)
        .iter()
        .skip(1)
        .map(|b| b.saturating_add(ROOT.len() as u64 + LINE_BYTES))
        .fold(0u64, |a, b| a.saturating_add(b));
    let flat: u64 = tree
        .names()
        .iter()
        .map(|n| n.len() as u64 + LINE_BYTES)
        .sum();
    paths.saturating_add(flat).saturating_add(1024)
}

/// Microseconds to the nanosecond (the clocks' resolution; no float noise
/// such as `2415.7040000000184`), written as the shortest exact decimal.
fn micros(seconds: f64) -> f64 {
    let us = (seconds * 1e9).round() / 1e3;
    if us.is_finite() { us } else { 0.0 }
}

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in escape::visible(s).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            // Readers find the column names between `# ` and the last ` #`.
            '#' => out.push_str("&#35;"),
            c => out.push(c),
        }
    }
    out
}

/// Writes one process's profile.
pub fn write_profile(
    tree: &CallTree,
    rank: usize,
    facts: &RunFacts<'_>,
    w: &mut dyn Write,
) -> io::Result<()> {
    let CallPathProfile {
        order,
        subroutine_calls: subrs,
        functions: flat,
        top,
    } = CallPathProfile::of(tree);
    writeln!(
        w,
        "{} templated_functions_MULTI_TIME",
        1 + flat.len() + order.len()
    )?;
    // Metric Name first: readers take the first value as the metric.
    writeln!(
        w,
        "# Name Calls Subrs Excl Incl ProfileCalls # <metadata>\
         <attribute><name>Metric Name</name><value>TIME</value></attribute>\
         <attribute><name>profparse database</name><value>{}</value></attribute>\
         <attribute><name>profparse processes</name><value>{}</value></attribute>\
         <attribute><name>profparse rank</name><value>{rank}</value></attribute>\
         <attribute><name>profparse version</name><value>{}</value></attribute>\
         </metadata>",
        xml(facts.database),
        facts.nprocs,
        env!("CARGO_PKG_VERSION"),
    )?;
    writeln!(
        w,
        "\"{ROOT}\" 1 {} 0 {} 0 GROUP=\"TAU_DEFAULT\"",
        top.calls,
        micros(top.inclusive).round() as u64
    )?;
    let names: Vec<String> = tree.names().iter().map(|n| tau_name(n)).collect();
    for (name, f) in &flat {
        writeln!(
            w,
            "\"{}\" {} {} {:?} {:?} 0 GROUP=\"TAU_USER\"",
            names[*name as usize],
            f.calls,
            f.subroutine_calls,
            micros(f.exclusive),
            micros(f.inclusive)
        )?;
    }
    // The path of the node being written, grown and cut as the walk goes.
    let mut path = String::from(ROOT);
    let mut ends: Vec<usize> = Vec::new();
    for &(id, depth) in &order {
        ends.truncate(depth);
        path.truncate(ends.last().copied().unwrap_or(ROOT.len()));
        path.push_str(SEP);
        if let Some(n) = tree.name_index(id) {
            path.push_str(&names[n as usize]);
        }
        ends.push(path.len());
        let m = &tree.node(id).metrics;
        writeln!(
            w,
            "\"{path}\" {} {} {:?} {:?} 0 GROUP=\"TAU_USER|TAU_CALLPATH\"",
            m.calls,
            subrs[id.0 as usize],
            micros(m.exclusive),
            micros(m.inclusive)
        )?;
    }
    writeln!(w, "0 aggregates")
}

/// The file name of `rank`'s profile (node `rank`, context 0, thread 0).
pub fn profile_name(rank: usize) -> String {
    format!("profile.{rank}.0.0")
}

/// What [`write_tau`] did.
#[derive(Debug)]
pub enum TauOutcome {
    Written {
        profiles: usize,
        bytes: u64,
        /// `profile.*` files in the directory that this export did not
        /// write (another run's): TAU readers read them too.
        others: usize,
    },
    /// The profiles would write more than the budget: nothing was written.
    OverBudget { estimate: u64 },
}

/// Writes the profile of every process with call traces (`procs`: those)
/// into `dir`. The files are written in a temporary directory beside `dir`,
/// which takes its place when all are complete ([`StagedDir`], another
/// run's files carried over), so an error (or the budget) leaves `dir` as
/// it was; `budget` bounds the bytes written.
///
/// [`StagedDir`]: crate::export::staged_dir::StagedDir
pub fn write_tau(
    db: &Database,
    dir: &Path,
    procs: Option<&[usize]>,
    budget: u64,
) -> Result<(TauOutcome, Vec<Warning>)> {
    let staging = crate::export::staged_dir::StagedDir::new(dir)?;
    let facts = RunFacts {
        database: &db.dir().display().to_string(),
        nprocs: db.nprocs().unwrap_or(db.trace_index().procs.len() as u64),
    };
    let written = AtomicU64::new(0);
    let over = AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let warnings = for_each_process_tree(db, procs, |rank, tree| {
        let size = profile_bytes(tree);
        if written
            .fetch_add(size, Ordering::Relaxed)
            .saturating_add(size)
            > budget
        {
            over.store(true, Ordering::Relaxed);
            return ControlFlow::Break(());
        }
        let path = staging.path().join(profile_name(rank));
        if let Err(e) = write_file(&path, |w| write_profile(tree, rank, &facts, w)) {
            failure
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(e);
        }
        ControlFlow::Continue(())
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let bytes = written.load(Ordering::Relaxed);
    if over.load(Ordering::Relaxed) {
        return Ok((TauOutcome::OverBudget { estimate: bytes }, warnings));
    }
    let mut ours = Vec::new();
    for entry in std::fs::read_dir(staging.path()).map_err(|e| Error::io(staging.path(), e))? {
        ours.push(entry.map_err(|e| Error::io(staging.path(), e))?.file_name());
    }
    let profiles = ours.len();
    staging.commit()?;
    let others = other_profiles(dir, &ours)?;
    Ok((
        TauOutcome::Written {
            profiles,
            bytes,
            others,
        },
        warnings,
    ))
}

/// `profile.*` files in `dir` besides `ours`.
fn other_profiles(dir: &Path, ours: &[std::ffi::OsString]) -> Result<usize> {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let name = entry.map_err(|e| Error::io(dir, e))?.file_name();
        if name.to_string_lossy().starts_with("profile.") && !ours.contains(&name) {
            n += 1;
        }
    }
    Ok(n)
}

/// Creates `path`, lets `fill` write it, flushes; removed if a shrinking
/// input ends the run meanwhile.
fn write_file(path: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let _pending = crate::source::sigbus::Pending::new(path);
    let mut w = io::BufWriter::new(file);
    fill(&mut w)
        .and_then(|_| w.flush())
        .map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::calltree::Metrics;

    fn tree() -> CallTree {
        let mut t: CallTree = CallTree::new();
        let main = t.node_at_path(&["main()"]);
        t.node_mut(main).metrics = Metrics {
            calls: 1,
            inclusive: 9e-3,
            exclusive: 1e-3,
        };
        let step = t.node_at_path(&["main()", "Step()"]);
        t.node_mut(step).metrics = Metrics {
            calls: 2,
            inclusive: 8e-3,
            exclusive: 5e-3,
        };
        // Recursion: Step() below Step() is inside the outer one's time.
        let inner = t.node_at_path(&["main()", "Step()", "Step()"]);
        t.node_mut(inner).metrics = Metrics {
            calls: 3,
            inclusive: 3e-3,
            exclusive: 3e-3,
        };
        t
    }

    fn written(t: &CallTree) -> String {
        let mut out = Vec::new();
        let facts = RunFacts {
            database: "runs/#1 <a&b>",
            nprocs: 4,
        };
        write_profile(t, 2, &facts, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_profile_has_the_root_flat_functions_and_call_paths() {
        let text = written(&tree());
        let lines: Vec<&str> = text.lines().collect();
        // root + 2 functions + 3 paths
        assert_eq!(lines[0], "6 templated_functions_MULTI_TIME");
        assert!(lines[1].starts_with("# Name Calls Subrs Excl Incl ProfileCalls # <metadata>"));
        assert!(lines[1].contains("<value>runs/&#35;1 &lt;a&amp;b&gt;</value>"));
        assert_eq!(
            lines[2],
            "\".TAU application\" 1 1 0 9000 0 GROUP=\"TAU_DEFAULT\""
        );
        assert_eq!(
            lines[3],
            "\"main()\" 1 2 1000.0 9000.0 0 GROUP=\"TAU_USER\""
        );
        // Step(): 5 calls, 3 of them below another Step(): inclusive once.
        assert_eq!(
            lines[4],
            "\"Step()\" 5 3 8000.0 8000.0 0 GROUP=\"TAU_USER\""
        );
        assert_eq!(
            lines[5],
            "\".TAU application => main()\" 1 2 1000.0 9000.0 0 GROUP=\"TAU_USER|TAU_CALLPATH\""
        );
        assert_eq!(
            lines[7],
            "\".TAU application => main() => Step() => Step()\" 3 0 3000.0 3000.0 0 GROUP=\"TAU_USER|TAU_CALLPATH\""
        );
        assert_eq!(lines[8], "0 aggregates");
        assert_eq!(lines.len(), 9);
        assert!(profile_bytes(&tree()) >= text.len() as u64);
    }

    #[test]
    fn names_cannot_break_a_line() {
        assert_eq!(tau_name("a\"b => c\x1b[2J"), "a'b -> c\\x1b[2J");
        let mut t: CallTree = CallTree::new();
        let n = t.node_at_path(&["say \"hi\"\nthere"]);
        t.node_mut(n).metrics.calls = 1;
        let text = written(&t);
        assert_eq!(text.lines().count(), 6);
    }

    #[test]
    fn sibling_paths_do_not_keep_each_others_names() {
        let mut t: CallTree = CallTree::new();
        for p in [&["a", "b"][..], &["a", "c"], &["d"]] {
            let n = t.node_at_path(p);
            t.node_mut(n).metrics.calls = 1;
        }
        let text = written(&t);
        let paths: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("=>"))
            .map(|l| l.split('"').nth(1).unwrap())
            .collect();
        assert_eq!(
            paths,
            [
                ".TAU application => a",
                ".TAU application => a => b",
                ".TAU application => a => c",
                ".TAU application => d"
            ]
        );
    }
}
