//! Waits in collectives with a root (Scalasca's Late Broadcast and Early
//! Reduce, as its `MPI.pattern` computes them in `pre_coll_12n` and
//! `pre_coll_n21`): which calls are one collective, and who waited for
//! whom in it.
//!
//! The comm records name the root of a broadcast, scatter, gather or reduce
//! (`commpid`, the spec's §6.4.1), but not the communicator. So the calls
//! of one type and one recorded root are taken for one series: the k-th
//! such call on each process that made any is one collective, when every
//! one of them made the same number, and the root is the process whose
//! rank is the recorded root. A series that fails either test (a root
//! named in a sub-communicator's ranks, not among the callers; two
//! sub-communicators whose roots share a number) is left out and listed.
//!
//! * **Late broadcast** (1-to-N: `Bcast`, `Scatter`): a non-root waits
//!   `min(root's entry, own exit) − own entry`, caused by the root.
//! * **Early reduce** (N-to-1: `Reduce`, `Gather`, `Gatherv`): the root
//!   waits `min(last entry, own exit) − own entry`, caused by the last to
//!   enter. A `Reduce` leaves one record (no duration), so only gathers
//!   can show it.

use std::collections::BTreeMap;

use super::clocks::ClockOffsets;
use super::waits::{Wait, WaitState};
use crate::formats::blprof::commdata::func_name;

/// 1-to-N types: Bcast, Scatter.
pub const ONE_TO_N: [i32; 2] = [20, 24];
/// N-to-1 types: the reduces, the gathers, Gatherv.
pub const N_TO_ONE: [i32; 8] = [16, 17, 18, 19, 21, 22, 23, 36];

/// Whether calls of `kind` have a root.
pub fn is_rooted(kind: i32) -> bool {
    ONE_TO_N.contains(&kind) || N_TO_ONE.contains(&kind)
}

/// A rooted call: (type, recorded root, raw entry, raw exit).
pub type RootedCall = (i32, i32, f64, f64);

/// Per process: its calls of one series (raw entry, raw exit).
type Callers = BTreeMap<usize, Vec<(f64, f64)>>;

/// Per (type, recorded root): the callers.
#[derive(Default)]
pub struct RootedSeries {
    series: BTreeMap<(i32, i32), Callers>,
}

impl RootedSeries {
    /// Adds process `proc`'s rooted calls.
    pub fn add(&mut self, proc: usize, calls: &[RootedCall]) {
        for &(kind, root, e, x) in calls {
            self.series
                .entry((kind, root))
                .or_default()
                .entry(proc)
                .or_default()
                .push((e, x));
        }
    }

    /// The waits of every matched collective into `out`; the series left
    /// out, one line each, into `unmatched`.
    pub fn waits(&mut self, c: &ClockOffsets, out: &mut Vec<Wait>, unmatched: &mut Vec<String>) {
        for (&(kind, root), per) in &mut self.series {
            let name = func_name(kind).unwrap_or("?");
            let Some(root) = usize::try_from(root).ok().filter(|r| per.contains_key(r)) else {
                unmatched.push(format!("{name} root {root}: the root is not among its callers"));
                continue;
            };
            let (lo, hi) = per.values().fold((usize::MAX, 0), |a, v| {
                (a.0.min(v.len()), a.1.max(v.len()))
            });
            if lo != hi {
                unmatched.push(format!("{name} root {root}: {lo} to {hi} calls per process"));
                continue;
            }
            for v in per.values_mut() {
                // Calls come in the order their end records were read.
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            let mut at = Vec::with_capacity(per.len());
            for i in 0..lo {
                at.clear();
                at.extend(per.iter().map(|(&p, v)| (p, v[i].0, v[i].1)));
                if ONE_TO_N.contains(&kind) {
                    late_broadcast(kind, root, &at, c, out);
                } else {
                    early_reduce(kind, root, &at, c, out);
                }
            }
        }
    }
}

/// A process's (aligned entry, aligned exit) at one collective, when both
/// are finite (a damaged time neither waits nor makes wait).
fn aligned(c: &ClockOffsets, (p, e, x): (usize, f64, f64)) -> Option<(f64, f64)> {
    let (e2, x2) = (c.align(p, e), c.align(p, x));
    (e2.is_finite() && x2.is_finite()).then_some((e2, x2))
}

/// Non-roots entered before the root wait for it.
fn late_broadcast(
    kind: i32,
    root: usize,
    at: &[(usize, f64, f64)],
    c: &ClockOffsets,
    out: &mut Vec<Wait>,
) {
    let Some(&r) = at.iter().find(|x| x.0 == root) else {
        return;
    };
    let Some((root_entry, _)) = aligned(c, r) else {
        return;
    };
    for &x in at.iter().filter(|x| x.0 != root) {
        let Some((e, exit)) = aligned(c, x) else {
            continue;
        };
        let w = root_entry.min(exit) - e;
        if w > 0.0 {
            let by = Some(root);
            out.push(Wait::new(WaitState::LateBroadcast, kind, x.0, (x.1, e), w, by));
        }
    }
}

/// The root entered before the last caller waits for it.
fn early_reduce(
    kind: i32,
    root: usize,
    at: &[(usize, f64, f64)],
    c: &ClockOffsets,
    out: &mut Vec<Wait>,
) {
    let last = at
        .iter()
        .filter_map(|&x| aligned(c, x).map(|(e, _)| (e, x.0)))
        // Of equal entries, the lowest process.
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let (Some((last, by)), Some(&r)) = (last, at.iter().find(|x| x.0 == root)) else {
        return;
    };
    let Some((e, exit)) = aligned(c, r) else {
        return;
    };
    let w = last.min(exit) - e;
    if w > 0.0 && by != root {
        out.push(Wait::new(WaitState::EarlyReduce, kind, root, (r.1, e), w, Some(by)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (state, process, seconds, caused by) per wait.
    type Found = Vec<(WaitState, usize, f64, Option<usize>)>;

    fn run(calls: &[(usize, RootedCall)]) -> (Found, Vec<String>) {
        let mut s = RootedSeries::default();
        for &(p, call) in calls {
            s.add(p, &[call]);
        }
        let (mut out, mut unmatched) = (Vec::new(), Vec::new());
        s.waits(&ClockOffsets::none(), &mut out, &mut unmatched);
        let got = out
            .iter()
            .map(|w| (w.state, w.proc, w.seconds, w.caused_by))
            .collect();
        (got, unmatched)
    }

    #[test]
    fn non_roots_wait_for_a_late_root_of_a_broadcast() {
        // Root 2 enters at 5; process 0 at 1 (waits 4), process 1 at 6
        // (after the root: no wait).
        let (got, un) = run(&[
            (0, (20, 2, 1.0, 7.0)),
            (1, (20, 2, 6.0, 7.0)),
            (2, (20, 2, 5.0, 5.5)),
        ]);
        assert_eq!(got, vec![(WaitState::LateBroadcast, 0, 4.0, Some(2))]);
        assert!(un.is_empty());
    }

    #[test]
    fn the_root_of_a_gather_waits_for_the_last_caller() {
        // Root 0 enters at 1, process 2 last at 4: the root waits 3, the
        // others (who only send) not at all.
        let (got, _) = run(&[
            (0, (21, 0, 1.0, 4.5)),
            (1, (21, 0, 2.0, 2.1)),
            (2, (21, 0, 4.0, 4.1)),
        ]);
        assert_eq!(got, vec![(WaitState::EarlyReduce, 0, 3.0, Some(2))]);
    }

    #[test]
    fn series_without_their_root_or_with_uneven_calls_are_listed() {
        let (got, un) = run(&[
            (0, (20, 7, 1.0, 2.0)),
            (1, (20, 7, 1.0, 2.0)),
            (0, (21, 1, 1.0, 2.0)),
            (0, (21, 1, 3.0, 4.0)),
            (1, (21, 1, 1.0, 2.0)),
        ]);
        assert!(got.is_empty());
        assert_eq!(
            un,
            vec![
                "BCastTsi root 7: the root is not among its callers".to_owned(),
                "GatherTsT1Si root 1: 1 to 2 calls per process".to_owned(),
            ]
        );
    }
}
