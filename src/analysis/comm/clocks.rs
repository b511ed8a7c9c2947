//! Per-process clock offsets estimated from the communication records
//! themselves: each process stamps its records with its own
//! clock, so times of two processes differ by an unknown offset and
//! message latencies between them come out negative.
//!
//! The method, in two steps, both deterministic and linear in the records:
//!
//! 1. **Barrier exits.** All processes leave barrier `b` at nearly the same
//!    true time (the last arrival releases them all), so
//!    `exit_p(b) − exit_ref(b)` is process `p`'s offset against the
//!    reference (the lowest process with comm data) plus a small exit
//!    skew. The offset is the median over the barriers both passed: robust
//!    to a few odd barriers (sub-communicators, a delayed exit).
//! 2. **Message order.** A message is received after it was sent: on true
//!    clocks the receive's completion (the exit of the wait that returned
//!    it, or a blocking receive's exit) comes after the send's entry. Per
//!    route `s → r` the smallest `completion − send` bounds the offset
//!    difference: `o_r − o_s ≤ min`. A few sweeps over the processes (at
//!    most [`MAX_SWEEPS`]) move each process (the reference stays at 0)
//!    just into the interval its routes allow, nearest to where it is;
//!    when the interval is empty (drift, or inconsistent data) it goes to
//!    its middle.
//!
//! Aligned time = raw time − offset. The residual says how well it fits:
//! the spread of aligned barrier exits and the share of messages still
//! received before they were sent (counted again on the aligned clocks
//! from a log of the pairing's latencies, [`super::latency_log`]). For
//! `comm waits` the pairing also logs its pairs ([`super::pair_log`]), so
//! that the wait states need not pair the messages again.

use rustc_hash::FxHashMap;

use super::latency_log::{Batch, LatencyLog};
use super::pair_log::{self, PairLog};
use super::pairs::{MsgEnd, Pair, PairingSummary, comm_records, pair_each_unordered};
use super::scope::CommScope;
use super::select::CommSelection;
use super::sync::{BarrierStats, BarrierSummary, ProcBarrierTotals, barriers};
pub use super::clock_offsets::{ClockOffsets, ProcOffset, Residual};
use crate::error::Warning;
use crate::formats::blprof::database::Database;

/// Sweeps of the message step at most.
pub const MAX_SWEEPS: usize = 1000;

impl ClockOffsets {

    /// Pair `p` on the reference clock.
    pub fn align_pair(&self, p: &Pair) -> Pair {
        let (os, or) = (self.offset(p.from), self.offset(p.to));
        let d = or - os;
        Pair {
            send_time: p.send_time - os,
            recv_time: p.recv_time - or,
            latency: p.latency - d,
            completed_time: p.completed_time.map(|t| t - or),
            latency_to_completion: p.latency_to_completion.map(|l| l - d),
            ..p.clone()
        }
    }

    /// The pairs' report on the reference clock: latencies shift by the
    /// offset difference of their route, unmatched ends by their process's.
    pub fn align_pairs(&self, r: &mut PairingSummary) {
        for route in &mut r.routes {
            let d = self.offset(route.to) - self.offset(route.from);
            route.latency_mean -= d;
            route.latency_max -= d;
            route.completion_latency_mean = route.completion_latency_mean.map(|x| x - d);
            route.completion_latency_max = route.completion_latency_max.map(|x| x - d);
        }
        let end = |e: &mut MsgEnd| e.time -= self.offset(e.proc);
        r.unmatched_sends.iter_mut().for_each(end);
        r.unmatched_recvs.iter_mut().for_each(end);
        r.clocks_aligned_to = Some(self.reference);
    }

    /// Barriers and all-reductions on the reference clock: arrivals and
    /// exits shift by their process's offset, and the last arrival is the
    /// latest arrival (comparable now), not the shortest wait.
    pub fn align_barriers(&self, r: &mut BarrierSummary) {
        self.align_syncs(&mut r.barriers, &mut r.procs);
        self.align_syncs(&mut r.reductions, &mut r.reduction_procs);
        r.clocks_aligned_to = Some(self.reference);
    }

    fn align_syncs(&self, list: &mut [BarrierStats], totals: &mut [ProcBarrierTotals]) {
        for t in totals.iter_mut() {
            t.last_arrivals = 0;
        }
        for b in list {
            for a in &mut b.procs {
                let o = self.offset(a.proc);
                a.arrival -= o;
                a.exit -= o;
            }
            // The first process of the latest arrival (NaN never last).
            b.last_arrival = b
                .procs
                .iter()
                .filter(|a| !a.arrival.is_nan())
                .fold(None::<(f64, usize)>, |m, a| match m {
                    Some((t, _)) if t >= a.arrival => m,
                    _ => Some((a.arrival, a.proc)),
                })
                .map(|(_, p)| p);
            if let Some(last) = b.last_arrival
                && let Some(t) = totals.iter_mut().find(|t| t.proc == last)
            {
                t.last_arrivals += 1;
            }
        }
    }

}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// Per barrier, the spread of its exits under `offset`: (median, max).
fn exit_spreads(bars: &BarrierSummary, offset: impl Fn(usize) -> f64) -> (usize, f64, f64) {
    let mut spreads: Vec<f64> = bars
        .barriers
        .iter()
        .filter(|b| b.procs.len() > 1)
        .map(|b| {
            let (lo, hi) = b
                .procs
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |a, x| {
                    let t = x.exit - offset(x.proc);
                    (a.0.min(t), a.1.max(t))
                });
            hi - lo
        })
        .collect();
    let n = spreads.len();
    let max = spreads.iter().copied().fold(0.0, f64::max);
    (n, median(&mut spreads).unwrap_or(0.0), max)
}

/// Smallest completion − send per route (sender, receiver), and messages
/// with a completion.
type RouteMins = FxHashMap<(usize, usize), f64>;

/// What one pairing of the whole database tells the estimate: each route's
/// quickest message, the messages with a completion, those completed
/// before they were sent, and (when its file could be written) the log of
/// every such message for counting again on aligned clocks; when asked
/// for, the log of every pair for the wait states.
struct PairedRoutes {
    mins: RouteMins,
    messages: u64,
    negative: u64,
    log: Option<LatencyLog>,
    pairs: Option<PairLog>,
}

/// What one chunk of pairs adds to [`PairedRoutes`].
type RouteChunk = (RouteMins, u64, u64, Batch, pair_log::Chunk);

fn route_mins(db: &Database, log_pairs: bool) -> (PairedRoutes, Vec<Warning>) {
    let records = comm_records(db, &CommSelection::all());
    let mut found = PairedRoutes {
        mins: RouteMins::default(),
        messages: 0,
        negative: 0,
        log: LatencyLog::new(records),
        pairs: log_pairs.then(|| PairLog::new(records)).flatten(),
    };
    let log_pairs = found.pairs.is_some();
    let warnings = pair_each_unordered(
        db,
        &CommSelection::all(),
        RouteChunk::default,
        |c: &mut RouteChunk, p: &Pair| {
            if log_pairs {
                c.4.push(p);
            }
            if let Some(l) = p.latency_to_completion.filter(|l| l.is_finite()) {
                let e = c.0.entry((p.from, p.to)).or_insert(f64::INFINITY);
                *e = e.min(l);
                c.1 += 1;
                c.2 += u64::from(l < 0.0);
                c.3.push(p.from, p.to, l);
            }
        },
        &mut |(m, k, neg, batch, pairs)| {
            for (route, l) in m {
                let e = found.mins.entry(route).or_insert(f64::INFINITY);
                *e = e.min(l);
            }
            found.messages += k;
            found.negative += neg;
            if let Some(log) = &mut found.log {
                log.append(&batch);
            }
            if let Some(log) = &mut found.pairs {
                log.append(&pairs);
            }
        },
    );
    found.pairs = found.pairs.take().and_then(|log| log.finish(&warnings));
    (found, warnings)
}

/// Messages with a completion, and how many of them complete before they
/// were sent on the clocks of `offsets`, by pairing the database again
/// (the log's fallback, and the tests' reference).
fn negative_latencies(db: &Database, offsets: &ClockOffsets) -> (u64, u64, Vec<Warning>) {
    let (mut n, mut negative) = (0u64, 0u64);
    let warnings = pair_each_unordered(
        db,
        &CommSelection::all(),
        || (0u64, 0u64),
        |c: &mut (u64, u64), p: &Pair| {
            if let Some(l) = p.latency_to_completion.filter(|l| l.is_finite()) {
                c.0 += 1;
                c.1 += u64::from(l - (offsets.offset(p.to) - offsets.offset(p.from)) < 0.0);
            }
        },
        &mut |(k, neg)| {
            n += k;
            negative += neg;
        },
    );
    (n, negative, warnings)
}

/// Messages completed before they were sent on the clocks of `offsets`:
/// none when no route's quickest is (a latency minus the same difference
/// of offsets keeps its order, rounding included), else counted from the
/// log (or, without one, by pairing again). Offsets that fit every route
/// (no conflict) so read nothing.
fn negative_aligned(db: &Database, offsets: &ClockOffsets, routes: &PairedRoutes) -> u64 {
    let difference = |s: usize, r: usize| offsets.offset(r) - offsets.offset(s);
    let early = |(&(s, r), &l): (&(usize, usize), &f64)| l - difference(s, r) < 0.0;
    if !routes.mins.iter().any(early) {
        return 0;
    }
    (routes.log.as_ref())
        .and_then(|log| log.count_early(difference))
        .unwrap_or_else(|| negative_latencies(db, offsets).1)
}

/// The message step: moves offsets (by index into `procs`) into the
/// intervals their routes allow. Returns (sweeps, conflicts).
fn fit_messages(
    o: &mut [f64],
    procs: &[usize],
    reference: usize,
    mins: &RouteMins,
) -> (usize, usize) {
    let index: FxHashMap<usize, usize> = procs.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    // Per process index: (other index, bound) for routes into it (upper
    // bounds: o_r ≤ o_s + min) and out of it (lower: o_s ≥ o_r − min).
    let mut into: Vec<Vec<(usize, f64)>> = vec![Vec::new(); procs.len()];
    let mut out: Vec<Vec<(usize, f64)>> = vec![Vec::new(); procs.len()];
    let mut routes: Vec<(&(usize, usize), &f64)> = mins.iter().collect();
    routes.sort_unstable_by_key(|(r, _)| **r);
    for (&(s, r), &m) in routes {
        if let (Some(&i), Some(&j)) = (index.get(&s), index.get(&r))
            && i != j
            && m.is_finite()
        {
            into[j].push((i, m));
            out[i].push((j, m));
        }
    }
    let (mut sweeps, mut conflicts) = (0, 0);
    for sweep in 1..=MAX_SWEEPS {
        sweeps = sweep;
        conflicts = 0;
        let mut changed = false;
        for i in 0..procs.len() {
            if procs[i] == reference {
                continue;
            }
            let ub = into[i]
                .iter()
                .map(|&(s, m)| o[s] + m)
                .fold(f64::INFINITY, f64::min);
            let lb = out[i]
                .iter()
                .map(|&(r, m)| o[r] - m)
                .fold(f64::NEG_INFINITY, f64::max);
            let target = if lb > ub {
                conflicts += 1;
                (lb + ub) / 2.0
            } else {
                o[i].clamp(lb, ub)
            };
            if target != o[i] {
                o[i] = target;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (sweeps, conflicts)
}

/// Estimates the clock offsets of every process with comm data (all the
/// data: offsets belong to the run, not to a selection).
pub fn estimate(db: &Database) -> (ClockOffsets, Vec<Warning>) {
    let (offsets, _, warnings) = estimate_logging_pairs(db, false);
    (offsets, warnings)
}

/// [`estimate`], and with `log_pairs` the log of its pairing of every
/// message for the wait states to replay (`None` when it could not be
/// kept whole).
pub(crate) fn estimate_logging_pairs(
    db: &Database,
    log_pairs: bool,
) -> (ClockOffsets, Option<PairLog>, Vec<Warning>) {
    let procs: Vec<usize> = {
        let mut v: Vec<usize> = db.comm_index().procs.iter().map(|p| p.proc).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let Some(&reference) = procs.first() else {
        return (ClockOffsets::none(), None, Vec::new());
    };
    let (bars, mut warnings) = barriers(db, &CommScope::everything(), false);
    // Step 1: per process, exit − the reference's exit, over barriers.
    let mut diffs: FxHashMap<usize, Vec<f64>> = FxHashMap::default();
    for b in &bars.barriers {
        let Some(r) = b.procs.iter().find(|a| a.proc == reference) else {
            continue;
        };
        for a in &b.procs {
            diffs.entry(a.proc).or_default().push(a.exit - r.exit);
        }
    }
    let mut list: Vec<ProcOffset> = procs
        .iter()
        .map(|&p| {
            let d = diffs
                .get_mut(&p)
                .map(|v| v.as_mut_slice())
                .unwrap_or_default();
            let barriers = d.len();
            let barrier_offset = median(d).filter(|x| x.is_finite());
            ProcOffset {
                proc: p,
                offset: barrier_offset.unwrap_or(0.0),
                barrier_offset,
                barriers,
                message_shift: 0.0,
            }
        })
        .collect();
    // Step 2: message order.
    let (mut routes, w) = route_mins(db, log_pairs);
    warnings.extend(w);
    let mut o: Vec<f64> = list.iter().map(|p| p.offset).collect();
    let (sweeps, conflicts) = fit_messages(&mut o, &procs, reference, &routes.mins);
    for (p, x) in list.iter_mut().zip(o) {
        p.message_shift = x - p.offset;
        p.offset = x;
    }
    let mut c = ClockOffsets {
        reference,
        procs: list,
        residual: Residual::default(),
    };
    let (n, raw_med, raw_max) = exit_spreads(&bars, |_| 0.0);
    let (_, med, max) = exit_spreads(&bars, |p| c.offset(p));
    // (The pairing's warnings were given by `route_mins`.)
    let negative_aligned = negative_aligned(db, &c, &routes);
    c.residual = Residual {
        barriers: n,
        raw_exit_spread_median: raw_med,
        raw_exit_spread_max: raw_max,
        exit_spread_median: med,
        exit_spread_max: max,
        messages: routes.messages,
        negative_raw: routes.negative,
        negative_aligned,
        sweeps,
        conflicts,
    };
    (c, routes.pairs.take(), warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counted from the routes' quickest messages or by pairing again,
    /// the messages completed before they were sent are the same: on the
    /// offsets estimated (none on most fixtures) and on offsets moved so
    /// that many are.
    #[test]
    fn messages_early_on_aligned_clocks_as_counted_by_pairing() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        let mut early = 0;
        for name in ["amrlevel8", "small4", "asym4", "flush", "nfiles2"] {
            let db = Database::open(fixtures.join(name).join("bl_prof"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let (c, _) = estimate(&db);
            let (routes, _) = route_mins(&db, false);
            assert!(routes.log.is_some(), "{name}");
            let unlogged = PairedRoutes { log: None, ..route_mins(&db, false).0 };
            let paired = |c: &ClockOffsets| negative_latencies(&db, c).1;
            assert_eq!(c.residual.negative_aligned, paired(&c), "{name}");
            assert_eq!(negative_aligned(&db, &c, &routes), paired(&c), "{name}");
            for shift in [1e-3, -1e-3, 0.5] {
                let mut moved = c.clone();
                moved.procs[0].offset += shift;
                let n = paired(&moved);
                assert_eq!(negative_aligned(&db, &moved, &routes), n, "{name} {shift}");
                assert_eq!(negative_aligned(&db, &moved, &unlogged), n, "{name} {shift}");
                early += n;
            }
        }
        assert!(early > 0, "moved clocks make messages early");
    }

    /// The log of the pairs replays the chunks a pairing of every message
    /// hands on, pair for pair, in their order.
    #[test]
    fn the_pairs_logged_replay_the_chunks_of_a_pairing() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/blprof");
        for name in ["amrlevel8", "small4", "asym4"] {
            let db = Database::open(fixtures.join(name).join("bl_prof")).unwrap();
            let bits = |p: &pair_log::PairTimes| {
                let t = |x: Option<f64>| x.map(f64::to_bits);
                (
                    (p.from, p.to, p.wait_kind),
                    (p.send_time.to_bits(), p.recv_time.to_bits()),
                    (t(p.completed_time), t(p.wait_entry)),
                )
            };
            let mut want = Vec::new();
            let w = pair_each_unordered(
                &db,
                &CommSelection::all(),
                Vec::new,
                |c: &mut Vec<_>, p: &Pair| c.push(bits(&p.into())),
                &mut |c| want.push(c),
            );
            let (routes, warnings) = route_mins(&db, true);
            let mut got = Vec::new();
            let replayed = routes.pairs.expect(name).replay(
                db.dir(),
                Vec::new,
                |c: &mut Vec<_>, p| c.push(bits(p)),
                &mut |c| got.push(c),
            );
            assert!(want.iter().map(Vec::len).sum::<usize>() > 0, "{name}");
            assert_eq!(got, want, "{name}");
            let text = |w: &[Warning]| w.iter().map(|w| w.to_string()).collect::<Vec<_>>();
            assert_eq!(text(&replayed), text(&w), "{name}");
            assert_eq!(text(&warnings), text(&w), "{name}");
        }
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }

    #[test]
    fn the_message_step_moves_a_process_just_into_its_routes_bounds() {
        // Process 1's barrier offset (0.010) makes messages 0 → 1 arrive
        // 5 ms before they were sent: o_1 − o_0 ≤ 0.005 moves it to 0.005.
        let mut mins = RouteMins::default();
        mins.insert((0, 1), 0.005);
        mins.insert((1, 0), 0.001);
        let mut o = vec![0.0, 0.010];
        let (sweeps, conflicts) = fit_messages(&mut o, &[0, 1], 0, &mins);
        assert_eq!(o, vec![0.0, 0.005]);
        assert_eq!((sweeps, conflicts), (2, 0));
        // Bounds that cannot both hold: the middle, counted.
        mins.insert((1, 0), -0.007);
        let mut o = vec![0.0, 0.0];
        let (_, conflicts) = fit_messages(&mut o, &[0, 1], 0, &mins);
        assert_eq!(conflicts, 1);
        assert!((o[1] - 0.006).abs() < 1e-12, "{o:?}");
    }
}
