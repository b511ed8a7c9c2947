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

pub fn summarize(t: &TlogFile, names: &EventNames) -> Summary {
    let mut procs = Vec::new();
    let mut trees = Vec::new();
    let mut warnings = Vec::new();
    // Names resolved once, not per event.
    let pair_names: Vec<String> = (0..=9).map(|k| names.pair(k)).collect();
    for p in t.procs() {
        let mut s = ProcSummary {
            proc: p,
            events: t.events_of(p),
            start: None,
            end: None,
            kinds: Vec::new(),
            unmatched: Unmatched::default(),
            unknown_types: 0,
        };
        let mut pairs: BTreeMap<u8, (u64, f64, f64, f64)> = BTreeMap::new();
        let mut singles: BTreeMap<u8, u64> = BTreeMap::new();
        // Open INs: (pair, start time, offset, tree node).
        let mut open: Vec<(u8, f64, usize, NodeId)> = Vec::new();
        let mut tree: CallTree = CallTree::new();
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
                let node = tree.child(parent, &pair_names[k as usize]);
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
                    let e = pairs
                        .entry(k)
                        .or_insert((0, 0.0, f64::INFINITY, f64::NEG_INFINITY));
                    e.0 += 1;
                    e.1 += d;
                    e.2 = e.2.min(d);
                    e.3 = e.3.max(d);
                    let m = &mut tree.node_mut(node).metrics;
                    m.calls += 1;
                    m.inclusive += d;
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
            EventKind::Single(k) => *singles.entry(k).or_default() += 1,
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
        s.kinds = pairs
            .into_iter()
            .map(|(k, (n, total, min, max))| KindStats {
                kind: k,
                name: names.pair(k),
                role: "interval",
                count: n,
                total,
                min,
                avg: total / n as f64,
                max,
            })
            .chain(singles.into_iter().map(|(k, n)| KindStats {
                kind: k,
                name: names.single(k),
                role: "single",
                count: n,
                ..Default::default()
            }))
            .collect();
        procs.push(s);
        trees.push((p, tree));
    }
    let across = across_procs(&procs);
    Summary {
        procs,
        across,
        trees,
        warnings,
    }
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
