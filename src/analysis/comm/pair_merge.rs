//! Steps 2 and 3 of the message pairing ([`super::pairs`]) in one
//! partition: the walk over its sends, receives and completions sorted by
//! key pairs the k-th send of each key with its k-th receive, and sums
//! the pairs per route.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;

use super::pair_rows::{Completion, DoneRow, PairRow, RecvRow, SendRow};
use super::pair_types::{MsgEnd, Pair, Route};
use super::select::{CommSelection, ProcRanges, inside};
use crate::analysis::exact_sum::ExactSum;
use crate::external_sort::Sorted;

/// Step 3: the walk over the sorted sends and receives. As an iterator, it
/// gives the pairs to report, in key order; it adds up the report as it
/// goes.
pub(super) struct Join<'s> {
    sends: Sorted<SendRow>,
    recvs: Sorted<RecvRow>,
    /// Completions, each for a receive of the same key.
    dones: Sorted<DoneRow>,
    done: Option<DoneRow>,
    /// The next row of each stream.
    send: Option<SendRow>,
    recv: Option<RecvRow>,
    sel: &'s CommSelection<'s>,
    ranges: Option<&'s ProcRanges>,
    paired: u64,
    /// The sums per route, when the caller wants them (given an empty
    /// list to fill).
    routes: Option<PartRoutes>,
    unmatched_sends: Vec<((usize, u64), MsgEnd)>,
    unmatched_recvs: Vec<((i32, i32, i32, u64), MsgEnd)>,
}

impl<'s> Join<'s> {
    pub(super) fn new(
        (mut sends, mut recvs, mut dones): (Sorted<SendRow>, Sorted<RecvRow>, Sorted<DoneRow>),
        sel: &'s CommSelection<'s>,
        ranges: Option<&'s ProcRanges>,
        routes: Option<PartRoutes>,
    ) -> Self {
        Join {
            send: sends.next(),
            recv: recvs.next(),
            done: dones.next(),
            sends,
            recvs,
            dones,
            sel,
            ranges,
            paired: 0,
            routes,
            unmatched_sends: Vec::new(),
            unmatched_recvs: Vec::new(),
        }
    }

    /// The next receive, with its completion if a status gave one.
    fn next_recv(&mut self) -> Option<(RecvRow, Completion)> {
        let x = std::mem::replace(&mut self.recv, self.recvs.next())?;
        let mut c = x.completion();
        if x.pending() {
            // The pass's rule: a status completes the oldest receive of its
            // key posted before it and still waiting. Receives come in
            // order, so a status of an earlier key, or posted after no
            // more than this receive's `order` receives, completes none.
            let key = (x.from, x.to, x.tag);
            let before = |d: &DoneRow| {
                let k = (d.from, d.to, d.tag);
                k < key || (k == key && d.after <= x.order)
            };
            while self.done.filter(before).is_some() {
                self.done = self.dones.next();
            }
            if let Some(d) = self.done.filter(|d| (d.from, d.to, d.tag) == key) {
                c = Completion {
                    done: d.time,
                    entry: d.entry,
                    wait_kind: d.wait_kind,
                };
                self.done = self.dones.next();
            }
        }
        Some((x, c))
    }

    /// Counts a pair reported: the pairs come by key, so a route's pairs
    /// come together and add to the last sums.
    fn add(&mut self, p: &Pair) {
        self.paired += 1;
        let Some(routes) = &mut self.routes else {
            return;
        };
        let route = (p.from, p.to);
        match routes.last_mut() {
            Some((r, sums)) if *r == route => sums.add(p),
            _ => {
                let mut sums = RouteSum::new();
                sums.add(p);
                routes.push((route, sums));
            }
        }
    }

    /// What the walk found besides its pairs (once it is over), and the
    /// error that ended it early, if any.
    #[allow(clippy::type_complexity)]
    pub(super) fn finish(
        mut self,
    ) -> (
        u64,
        PartRoutes,
        Vec<((usize, u64), MsgEnd)>,
        Vec<((i32, i32, i32, u64), MsgEnd)>,
        Option<std::io::Error>,
    ) {
        let error = (self.sends.take_error())
            .or(self.recvs.take_error())
            .or(self.dones.take_error());
        (
            self.paired,
            self.routes.unwrap_or_default(),
            self.unmatched_sends,
            self.unmatched_recvs,
            error,
        )
    }
}

impl Iterator for Join<'_> {
    type Item = PairRow;

    fn next(&mut self) -> Option<PairRow> {
        loop {
            let side = match (&self.send, &self.recv) {
                (None, None) => return None,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some(s), Some(x)) => (s.from, s.to, s.tag).cmp(&(x.from, x.to, x.tag)),
            };
            match side {
                Ordering::Less => {
                    let Some(s) = self.send.take() else { continue };
                    self.send = self.sends.next();
                    let from = s.from as usize;
                    if self.sel.wants_proc(from) && inside(self.ranges, from, s.time) {
                        self.unmatched_sends.push(((from, s.seq), s.unmatched()));
                    }
                }
                Ordering::Greater => {
                    let Some((x, _)) = self.next_recv() else { continue };
                    // (The selection is applied to all unmatched receives
                    // at the end.)
                    self.unmatched_recvs
                        .push(((x.to, x.from, x.tag, x.order), x.unmatched()));
                }
                Ordering::Equal => {
                    let Some(s) = std::mem::replace(&mut self.send, self.sends.next()) else {
                        continue;
                    };
                    let Some((x, c)) = self.next_recv() else { continue };
                    let (from, to) = (s.from as usize, x.to as usize);
                    if (self.sel.wants_proc(from) || self.sel.wants_proc(to))
                        && inside(self.ranges, from, s.time)
                    {
                        let row = PairRow::of(&s, &x, &c);
                        self.add(&row.pair());
                        return Some(row);
                    }
                }
            }
        }
    }
}

/// Count, sum and largest of latencies (the sum exact: the same in any
/// order of the pairs).
#[derive(Debug, Clone, Copy)]
struct Latencies {
    n: u64,
    sum: ExactSum,
    max: f64,
}

impl Latencies {
    const NONE: Latencies = Latencies {
        n: 0,
        sum: ExactSum::ZERO,
        max: f64::NEG_INFINITY,
    };

    fn add(&mut self, l: f64) {
        self.n += 1;
        self.sum.add(l);
        self.max = self.max.max(l);
    }

    fn merge(&mut self, o: &Latencies) {
        self.n += o.n;
        self.sum.merge(&o.sum);
        self.max = self.max.max(o.max);
    }

    fn mean(&self) -> f64 {
        self.sum.value() / self.n as f64
    }
}

/// Per route: messages, bytes, latencies and latencies to completion.
#[derive(Debug, Clone, Copy)]
pub(super) struct RouteSum {
    messages: u64,
    bytes: u64,
    latency: Latencies,
    completion: Latencies,
}

impl RouteSum {
    pub(super) fn new() -> Self {
        RouteSum {
            messages: 0,
            bytes: 0,
            latency: Latencies::NONE,
            completion: Latencies::NONE,
        }
    }

    pub(super) fn add(&mut self, p: &Pair) {
        self.messages += 1;
        self.bytes += p.size.max(0) as u64;
        self.latency.add(p.latency);
        // (A completion known at a time not a number counts as unknown.)
        if let Some(l) = p.latency_to_completion.filter(|l| !l.is_nan()) {
            self.completion.add(l);
        }
    }

    pub(super) fn merge(&mut self, o: &RouteSum) {
        self.messages += o.messages;
        self.bytes += o.bytes;
        self.latency.merge(&o.latency);
        self.completion.merge(&o.completion);
    }
}

/// Whether the pairing sums its pairs per route (for the report of
/// `comm pairs`; skipped for callers that take the pairs alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Routes {
    Summed,
    Skipped,
}

/// One partition's sums per route (sender, receiver), in route order.
pub(super) type PartRoutes = Vec<((usize, usize), RouteSum)>;

/// Per route (sender, receiver), the sums of all the partitions. A hash
/// map, not one kept in order: a route's pairs spread over every
/// partition when its messages have many tags, and an ordered map's
/// insertions and node allocations, once per route and partition, were a
/// fifth of `comm pairs` at 16,384 processes.
#[derive(Default)]
pub(super) struct RouteSums(FxHashMap<(usize, usize), RouteSum>);

impl RouteSums {
    /// Adds `sums` to those of `route` (the sums of each route merged in
    /// the order given: the same float rounding for any map).
    pub(super) fn merge(&mut self, route: (usize, usize), sums: &RouteSum) {
        self.0.entry(route).or_insert_with(RouteSum::new).merge(sums);
    }
}

/// The routes, in route order.
pub(super) fn routes_of(routes: RouteSums) -> Vec<Route> {
    let mut routes: Vec<((usize, usize), RouteSum)> = routes.0.into_iter().collect();
    // (The routes are distinct.)
    routes.sort_unstable_by_key(|(route, _)| *route);
    routes
        .into_iter()
        .map(|((from, to), r)| {
            let c = r.completion;
            Route {
                from,
                to,
                messages: r.messages,
                bytes: r.bytes,
                latency_mean: r.latency.mean(),
                latency_max: r.latency.max,
                completed: c.n,
                completion_latency_mean: (c.n > 0).then(|| c.mean()),
                completion_latency_max: (c.n > 0).then_some(c.max),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(from: usize, to: usize, size: i32, latency: f64) -> Pair {
        Pair {
            from,
            to,
            tag: 0,
            size,
            send_time: 0.0,
            recv_time: latency,
            latency,
            completed_time: None,
            latency_to_completion: None,
            wait_entry: None,
            wait_kind: 0,
        }
    }

    fn sums(pairs: &[Pair]) -> RouteSum {
        let mut s = RouteSum::new();
        pairs.iter().for_each(|p| s.add(p));
        s
    }

    /// Partitions' sums merged in any order of their routes come out one
    /// route each, in route order, with every partition's pairs counted.
    #[test]
    fn routes_come_merged_and_in_route_order() {
        let mut totals = RouteSums::default();
        for (route, part) in [
            ((3, 1), sums(&[pair(3, 1, 10, 0.5)])),
            ((0, 2), sums(&[pair(0, 2, 1, 0.25), pair(0, 2, 2, 1.0)])),
            ((3, 0), sums(&[pair(3, 0, 4, 2.0)])),
            ((0, 2), sums(&[pair(0, 2, 4, 0.75)])),
        ] {
            totals.merge(route, &part);
        }
        let got: Vec<_> = routes_of(totals)
            .iter()
            .map(|r| (r.from, r.to, r.messages, r.bytes, r.latency_mean, r.latency_max))
            .collect();
        assert_eq!(
            got,
            [
                (0, 2, 3, 7, 2.0 / 3.0, 1.0),
                (3, 0, 1, 4, 2.0, 2.0),
                (3, 1, 1, 10, 0.5, 0.5),
            ]
        );
    }
}
