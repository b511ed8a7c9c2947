//! Interval statistics of a tlog trace: IN/OUT events matched per process
//! by pair number (types 10..27: even IN, odd OUT), with nesting.
//!
//! ```text
//! IN Loop ──────────────────── OUT Loop          (one Loop interval)
//!      IN Barrier ── OUT Barrier                  (nested: child of Loop)
//! ```
//!
//! An OUT closes the latest open IN of the same pair. When other pairs were
//! opened after it and are still open, the pairs cross: counted and warned,
//! the inner ones stay open. An OUT with no open IN, and INs never closed,
//! are counted as unmatched and warned with their offsets.

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::{EventKind, TlogFile};
use crate::error::{Location, Warning};
use crate::model::calltree::{CallTree, NodeId};

/// Display names of pairs and single events.
#[derive(Debug, Clone)]
pub struct EventNames {
    pairs: BTreeMap<u8, String>,
    singles: BTreeMap<u8, String>,
}

impl Default for EventNames {
    /// The Java viewer's names; others are `event k`.
    fn default() -> Self {
        let pairs = [
            (1, "Task"),
            (2, "Loop"),
            (3, "Reflect"),
            (4, "Barrier"),
            (5, "Reduction"),
            (6, "Bcast"),
            (7, "Gmove"),
        ]
        .into_iter()
        .map(|(k, n)| (k, n.to_owned()))
        .collect();
        EventNames {
            pairs,
            singles: BTreeMap::new(),
        }
    }
}

impl EventNames {
    pub fn pair(&self, k: u8) -> String {
        self.pairs
            .get(&k)
            .cloned()
            .unwrap_or_else(|| format!("event {k}"))
    }

    pub fn single(&self, k: u8) -> String {
        self.singles
            .get(&k)
            .cloned()
            .unwrap_or_else(|| format!("event {k}"))
    }

    /// Reads `--event-names`: lines `pair <k> <name>` or `single <k> <name>`
    /// (k = 1..9, the name is the rest of the line); `#` starts a comment.
    pub fn parse(text: &str, path: &std::path::Path) -> crate::Result<EventNames> {
        let mut names = EventNames::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut parts = line.splitn(3, char::is_whitespace);
            let (what, k, name) = (parts.next(), parts.next(), parts.next().map(str::trim));
            let bad = || {
                crate::Error::invalid(
                    Location::line(path, n + 1),
                    format!(
                        "expected `pair <1-9> <name>` or `single <1-9> <name>`, found {line:?}"
                    ),
                )
            };
            let k: u8 = k
                .and_then(|k| k.parse().ok())
                .filter(|k| (1..=9).contains(k))
                .ok_or_else(bad)?;
            let name = name.filter(|n| !n.is_empty()).ok_or_else(bad)?.to_owned();
            match what {
                Some("pair") => names.pairs.insert(k, name),
                Some("single") => names.singles.insert(k, name),
                _ => return Err(bad()),
            };
        }
        Ok(names)
    }
}

/// Statistics of one kind of interval or single event on one process.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct KindStats {
    /// Pair or single-event number (1..9).
    pub kind: u8,
    pub name: String,
    /// `interval` or `single`.
    pub role: &'static str,
    pub count: u64,
    pub total: f64,
    pub min: f64,
    pub avg: f64,
    pub max: f64,
}

/// Unmatched records of one process.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Unmatched {
    /// INs never closed.
    #[serde(rename = "in")]
    pub ins: u64,
    /// OUTs without an open IN.
    pub out: u64,
    /// OUTs that closed an IN while later INs of other pairs were open.
    pub crossed: u64,
}

/// One process's summary.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProcSummary {
    pub proc: u16,
    pub events: u64,
    /// START time (`None` for a segment written after a flush).
    pub start: Option<f64>,
    /// END time (`None` for a segment flushed before the end).
    pub end: Option<f64>,
    pub kinds: Vec<KindStats>,
    pub unmatched: Unmatched,
    pub unknown_types: u64,
}

/// One interval kind over processes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AcrossStats {
    pub kind: u8,
    pub name: String,
    pub role: &'static str,
    pub procs: usize,
    /// Per-process totals: min / avg / max and the process holding the max.
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub max_proc: u16,
    pub count: u64,
}

/// Everything `tlog summary` and `tlog tree` report.
pub struct Summary {
    pub procs: Vec<ProcSummary>,
    pub across: Vec<AcrossStats>,
    /// Per process: the nesting of intervals (timer-tree semantics).
    pub trees: Vec<(u16, CallTree)>,
    pub warnings: Vec<Warning>,
}

/// Warnings per process and kind of problem before they are only counted.
const MAX_WARNINGS_PER_PROC: usize = 5;

/// Whether [`summarize`] builds the nesting trees (`tlog tree`) or only
/// the statistics (`tlog summary`: memory stays independent of the number
/// of distinct call paths).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trees {
    Build,
    Skip,
}

/// Summarizes every process, in parallel over processes; the result (and
/// the order of warnings) is the same for any thread count.
pub fn summarize(t: &TlogFile, names: &EventNames, trees: Trees) -> Summary {
    let procs: Vec<u16> = t.procs().collect();
    let per_proc: Vec<(ProcSummary, CallTree, Vec<Warning>)> = procs
        .par_iter()
        .map(|&p| summarize_proc(t, p, names, trees))
        .collect();
    let mut summary = Summary {
        procs: Vec::with_capacity(per_proc.len()),
        across: Vec::new(),
        trees: Vec::with_capacity(per_proc.len()),
        warnings: Vec::new(),
    };
    for (s, tree, warnings) in per_proc {
        summary.trees.push((s.proc, tree));
        summary.procs.push(s);
        summary.warnings.extend(warnings);
    }
    summary.across = across_procs(&summary.procs);
    summary
}

/// Interval statistics of one pair number: count, total, min, max.
#[derive(Clone, Copy)]
struct PairAcc {
    count: u64,
    total: f64,
    min: f64,
    max: f64,
}

/// Pair and single-event numbers are 0..=9 (types 10..27 and 31..39).
const KINDS: usize = 10;

fn summarize_proc(
    t: &TlogFile,
    p: u16,
    names: &EventNames,
    trees: Trees,
) -> (ProcSummary, CallTree, Vec<Warning>) {
    let mut s = ProcSummary {
        proc: p,
        events: t.events_of(p),
        start: None,
        end: None,
        kinds: Vec::new(),
        unmatched: Unmatched::default(),
        unknown_types: 0,
    };
    let mut warnings = Vec::new();
    let mut pairs: [Option<PairAcc>; KINDS] = [None; KINDS];
    let mut singles = [0u64; KINDS];
    // Open INs: (pair, start time, offset, tree node).
    let mut open: Vec<(u8, f64, usize, NodeId)> = Vec::new();
    let mut tree: CallTree = CallTree::new();
    // Names interned once, so an IN costs no hashing of strings.
    let pair_ids: Vec<u32> = (0..KINDS as u8)
        .map(|k| tree.intern(&names.pair(k)))
        .collect();
    let mut warned = 0usize;
    let mut warn = |w: &mut Vec<Warning>, off: usize, msg: String| {
        warned += 1;
        if warned <= MAX_WARNINGS_PER_PROC {
            w.push(Warning::new(
                Location::offset(t.path(), off as u64),
                format!("process {p}: {msg}"),
            ));
        }
    };
    t.for_each_proc_event(p, |off, r| match EventKind::of(r.kind) {
        EventKind::Start => {
            s.start.get_or_insert(r.time);
        }
        EventKind::End => s.end = Some(r.time),
        EventKind::In(k) => {
            let parent = open.last().map_or(tree.root(), |o| o.3);
            let node = match trees {
                Trees::Build => tree.child_by_name_id(parent, pair_ids[k as usize % KINDS]),
                Trees::Skip => parent,
            };
            open.push((k, r.time, off, node));
        }
        EventKind::Out(k) => match open.iter().rposition(|o| o.0 == k) {
            Some(j) => {
                if j + 1 != open.len() {
                    s.unmatched.crossed += 1;
                    warn(
                        &mut warnings,
                        off,
                        format!(
                            "OUT of {} crosses {} open interval(s) opened after its IN",
                            names.pair(k),
                            open.len() - j - 1
                        ),
                    );
                }
                let (_, t0, _, node) = open.remove(j);
                let d = r.time - t0;
                let e = pairs[k as usize % KINDS].get_or_insert(PairAcc {
                    count: 0,
                    total: 0.0,
                    min: f64::INFINITY,
                    max: f64::NEG_INFINITY,
                });
                e.count += 1;
                e.total += d;
                e.min = e.min.min(d);
                e.max = e.max.max(d);
                if trees == Trees::Build {
                    let m = &mut tree.node_mut(node).metrics;
                    m.calls += 1;
                    m.inclusive += d;
                }
            }
            None => {
                s.unmatched.out += 1;
                warn(
                    &mut warnings,
                    off,
                    format!("OUT of {} without an open IN", names.pair(k)),
                );
            }
        },
        EventKind::Single(k) => singles[k as usize % KINDS] += 1,
        EventKind::Unknown(_) => s.unknown_types += 1,
    });
    for &(k, _, off, _) in &open {
        s.unmatched.ins += 1;
        warn(
            &mut warnings,
            off,
            format!("IN of {} never closed", names.pair(k)),
        );
    }
    if warned > MAX_WARNINGS_PER_PROC {
        warnings.push(Warning::new(
            Location::file(t.path()),
            format!(
                "process {p}: {} more unmatched or crossed intervals",
                warned - MAX_WARNINGS_PER_PROC
            ),
        ));
    }
    // Exclusive time of a node = inclusive − its children's inclusive.
    for (id, _) in tree.preorder() {
        let kids: f64 = tree
            .node(id)
            .children()
            .iter()
            .map(|c| tree.node(*c).metrics.inclusive)
            .sum();
        let m = &mut tree.node_mut(id).metrics;
        m.exclusive = m.inclusive - kids;
    }
    let intervals = (0..KINDS as u8).filter_map(|k| {
        let a = pairs[k as usize]?;
        Some(KindStats {
            kind: k,
            name: names.pair(k),
            role: "interval",
            count: a.count,
            total: a.total,
            min: a.min,
            avg: a.total / a.count as f64,
            max: a.max,
        })
    });
    let single_events = (0..KINDS as u8)
        .filter(|&k| singles[k as usize] > 0)
        .map(|k| KindStats {
            kind: k,
            name: names.single(k),
            role: "single",
            count: singles[k as usize],
            ..Default::default()
        });
    s.kinds = intervals.chain(single_events).collect();
    (s, tree, warnings)
}

fn across_procs(procs: &[ProcSummary]) -> Vec<AcrossStats> {
    let mut by_kind: BTreeMap<(&'static str, u8), AcrossStats> = BTreeMap::new();
    let n = procs.len().max(1) as f64;
    for p in procs {
        for k in &p.kinds {
            let value = if k.role == "interval" {
                k.total
            } else {
                k.count as f64
            };
            let e = by_kind
                .entry((k.role, k.kind))
                .or_insert_with(|| AcrossStats {
                    kind: k.kind,
                    name: k.name.clone(),
                    role: k.role,
                    procs: 0,
                    min: f64::INFINITY,
                    avg: 0.0,
                    max: f64::NEG_INFINITY,
                    max_proc: p.proc,
                    count: 0,
                });
            e.procs += 1;
            e.count += k.count;
            e.min = e.min.min(value);
            e.avg += value / n;
            if value > e.max {
                e.max = value;
                e.max_proc = p.proc;
            }
        }
    }
    // A process without the kind has 0 of it.
    by_kind
        .into_values()
        .map(|mut a| {
            if a.procs < procs.len() {
                a.min = 0.0;
            }
            a
        })
        .collect()
}
