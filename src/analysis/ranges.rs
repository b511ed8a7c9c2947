//! Time-range algebra for region filters (BLPROF_FORMAT.md §7.2).
//!
//! A [`RangeList`] is a sorted list of closed intervals `[start, stop]`.
//! Adding merges overlapping and touching ranges; subtracting cuts:
//!
//! ```text
//! list      [0 ─────────────── 10]
//! remove          [3 ── 5]
//! result    [0 ── 3]      [5 ── 10]      (split)
//! remove    [-1 ── 1]                    (low end cut)  → [1 ── 3] [5 ── 10]
//! remove                  [5 ─────── 12] (covers)       → [1 ── 3]
//! ```

/// A closed time interval in seconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct TimeRange {
    pub start: f64,
    pub stop: f64,
}

impl TimeRange {
    pub fn new(start: f64, stop: f64) -> Self {
        TimeRange { start, stop }
    }

    pub fn len(&self) -> f64 {
        (self.stop - self.start).max(0.0)
    }

    pub fn is_empty(&self) -> bool {
        self.stop <= self.start
    }

    pub fn contains(&self, t: f64) -> bool {
        self.start <= t && t <= self.stop
    }
}

/// Sorted, non-overlapping closed intervals.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RangeList {
    ranges: Vec<TimeRange>,
}

impl RangeList {
    pub fn new() -> Self {
        RangeList::default()
    }

    pub fn single(r: TimeRange) -> Self {
        RangeList { ranges: vec![r] }
    }

    pub fn ranges(&self) -> &[TimeRange] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Union-add: insert `r`, merging every pair that overlaps or touches.
    pub fn add(&mut self, r: TimeRange) {
        let i = self.ranges.partition_point(|x| x.start < r.start);
        self.ranges.insert(i, r);
        let mut merged: Vec<TimeRange> = Vec::with_capacity(self.ranges.len());
        for x in self.ranges.drain(..) {
            match merged.last_mut() {
                Some(prev) if prev.stop >= x.start => prev.stop = prev.stop.max(x.stop),
                _ => merged.push(x),
            }
        }
        self.ranges = merged;
    }

    /// The union of `ranges` (any order), built in one sort and one pass.
    /// Merged in place: one allocation less per union (one per process
    /// when regions are paired).
    pub fn union_of(mut ranges: Vec<TimeRange>) -> Self {
        ranges.sort_by(|a, b| a.start.total_cmp(&b.start));
        merge_sorted(&mut ranges);
        RangeList { ranges }
    }

    /// Union-adds every range of `other` (one merge pass).
    pub fn add_all(&mut self, other: &RangeList) {
        let mut all = std::mem::take(&mut self.ranges);
        all.extend_from_slice(&other.ranges);
        *self = RangeList::union_of(all);
    }

    /// Subtracts every range of `other` in one sweep: the same result as
    /// [`Self::subtract`] range by range, in linear time.
    pub fn subtract_all(&mut self, other: &RangeList) {
        let cut = &other.ranges;
        let mut out = Vec::with_capacity(self.ranges.len());
        let mut j = 0;
        for t in self.ranges.drain(..) {
            while j < cut.len() && cut[j].stop <= t.start {
                j += 1;
            }
            uncovered(t, &cut[j..], |r| out.push(r));
        }
        self.ranges = out;
    }

    /// The parts of `span` that no range covers, zero-length parts left
    /// out: [`Self::subtract_all`] from `span` alone, in one allocation.
    pub fn gaps_within(&self, span: TimeRange) -> Vec<TimeRange> {
        let mut gaps = Vec::with_capacity(self.ranges.len() + 1);
        for_each_gap(&self.ranges, span, |r| gaps.push(r));
        gaps
    }

    /// Removes `r` from every range: ranges that merely touch `r` at an end
    /// are unchanged, ranges strictly containing it are split.
    pub fn subtract(&mut self, r: TimeRange) {
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        for t in self.ranges.drain(..) {
            if r.stop <= t.start || r.start >= t.stop {
                out.push(t);
                continue;
            }
            if r.start > t.start {
                out.push(TimeRange::new(t.start, r.start));
            }
            if r.stop < t.stop {
                out.push(TimeRange::new(r.stop, t.stop));
            }
        }
        self.ranges = out;
    }

    /// True when some range contains `t` (ends included).
    pub fn contains(&self, t: f64) -> bool {
        let i = self.ranges.partition_point(|x| x.stop < t);
        self.ranges.get(i).is_some_and(|x| x.contains(t))
    }

    /// A membership test for times that mostly increase (call start times in
    /// record order): amortised O(1) instead of a binary search per call.
    pub fn cursor(&self) -> RangeCursor<'_> {
        RangeCursor {
            ranges: &self.ranges,
            at: 0,
        }
    }

    /// The parts of `p` covered by the list. A zero-length `p` inside a
    /// range is returned as itself (an unfinished call still counts).
    pub fn intersect(&self, p: TimeRange) -> impl Iterator<Item = TimeRange> + '_ {
        let first = self.ranges.partition_point(|x| x.stop < p.start);
        pieces(&self.ranges[first..], p)
    }

    /// Σ (stop − start).
    pub fn total(&self) -> f64 {
        self.ranges.iter().map(TimeRange::len).sum()
    }
}

/// How many ranges `RangeList::union_of(ranges).gaps_within(span)` has,
/// for `ranges` already sorted as `union_of` sorts them: merged in the
/// caller's buffer and counted, so that a caller doing this once per
/// process allocates nothing.
pub fn gap_count_of_union(ranges: &mut Vec<TimeRange>, span: TimeRange) -> usize {
    merge_sorted(ranges);
    let mut count = 0;
    for_each_gap(ranges, span, |_| count += 1);
    count
}

/// Merges `ranges`, sorted by start, in place: ranges that overlap or
/// touch become one.
fn merge_sorted(ranges: &mut Vec<TimeRange>) {
    ranges.dedup_by(|x, prev| {
        let overlaps = prev.stop >= x.start;
        if overlaps {
            prev.stop = prev.stop.max(x.stop);
        }
        overlaps
    });
}

/// Calls `f` on each part of `span` that `union` (sorted, merged ranges)
/// does not cover, zero-length parts left out, in order.
fn for_each_gap(union: &[TimeRange], span: TimeRange, mut f: impl FnMut(TimeRange)) {
    // A linear skip, as in `subtract_all`: stops read from a file may
    // be NaN, which a binary search would not skip alike.
    let first = union.iter().take_while(|x| x.stop <= span.start).count();
    uncovered(span, &union[first..], |r| {
        if !r.is_empty() {
            f(r);
        }
    });
}

/// Calls `f` on each part of `t` that `cut` (sorted ranges, the first one
/// that does not end at or before `t` starts first) does not cover, in order.
fn uncovered(t: TimeRange, cut: &[TimeRange], mut f: impl FnMut(TimeRange)) {
    let mut cursor = t.start;
    for r in cut.iter().take_while(|r| r.start < t.stop) {
        if r.start > cursor {
            f(TimeRange::new(cursor, r.start));
        }
        cursor = cursor.max(r.stop);
    }
    if cursor < t.stop {
        f(TimeRange::new(cursor, t.stop));
    }
}

/// The parts of `p` covered by `ranges`, the first of which is the first
/// range that does not end before `p` starts.
fn pieces(ranges: &[TimeRange], p: TimeRange) -> impl Iterator<Item = TimeRange> + '_ {
    ranges
        .iter()
        .take_while(move |x| x.start <= p.stop)
        .filter_map(move |x| piece(x, p))
}

/// The part of `p` inside `x`, for an `x` that does not start after `p`
/// ends: a zero-length `p` inside `x` is itself, and touching is nothing.
#[inline]
fn piece(x: &TimeRange, p: TimeRange) -> Option<TimeRange> {
    let piece = TimeRange::new(p.start.max(x.start), p.stop.min(x.stop));
    let keep = if p.stop > p.start {
        piece.stop > piece.start
    } else {
        x.contains(p.start)
    };
    keep.then_some(piece)
}

/// See [`RangeList::cursor`].
pub struct RangeCursor<'a> {
    ranges: &'a [TimeRange],
    at: usize,
}

impl RangeCursor<'_> {
    /// Same answer as [`RangeList::contains`].
    #[inline]
    pub fn contains(&mut self, t: f64) -> bool {
        self.seek(t);
        self.ranges.get(self.at).is_some_and(|x| x.contains(t))
    }

    /// Calls `f` on each of [`RangeList::intersect`]'s pieces, for calls
    /// that mostly start later than the one before; without an iterator
    /// when only the range at the cursor can meet `p` (the next one starts
    /// after `p` ends): the usual case, a call inside a range.
    #[inline]
    pub fn for_each_piece(&mut self, p: TimeRange, mut f: impl FnMut(TimeRange)) {
        self.seek(p.start);
        let rest = &self.ranges[self.at..];
        match rest {
            [_, next, ..] if next.start <= p.stop => pieces(rest, p).for_each(f),
            [x, ..] if x.start <= p.stop => {
                if let Some(piece) = piece(x, p) {
                    f(piece);
                }
            }
            _ => {}
        }
    }

    /// Moves to the first range that does not end before `t` (the
    /// `partition_point` of [`RangeList::contains`]): a few steps forward
    /// from the last position, else a binary search.
    #[inline]
    fn seek(&mut self, t: f64) {
        let r = self.ranges;
        if self.at < r.len() && (self.at == 0 || r[self.at - 1].stop < t) {
            let mut i = self.at;
            let end = (i + 8).min(r.len());
            while i < end && r[i].stop < t {
                i += 1;
            }
            if i < end || i == r.len() {
                // Mostly still the same range: no store, so the next call's
                // load does not wait for this one's.
                if i != self.at {
                    self.at = i;
                }
                return;
            }
        }
        self.at = r.partition_point(|x| x.stop < t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(v: &[(f64, f64)]) -> RangeList {
        let mut l = RangeList::new();
        for &(a, b) in v {
            l.add(TimeRange::new(a, b));
        }
        l
    }

    /// `gaps_within` is `subtract_all` from the span alone with the empty
    /// parts left out, NaN stops included (a region time may be NaN), and
    /// `gap_count_of_union` counts its ranges.
    #[test]
    fn gaps_within_is_the_span_less_the_list() {
        let r = TimeRange::new;
        let lists = [
            vec![],
            vec![r(1.0, 2.0), r(1.5, 3.0), r(5.0, 6.0)],
            vec![r(-1.0, 0.5), r(2.0, 2.0), r(9.0, 12.0)],
            vec![r(0.0, f64::NAN), r(4.0, 5.0)],
            vec![r(-3.0, -2.0), r(f64::NAN, 1.0), r(3.0, 4.0)],
        ];
        for ranges in lists {
            let mut sorted = ranges.clone();
            sorted.sort_by(|a, b| a.start.total_cmp(&b.start));
            let list = RangeList::union_of(ranges);
            for span in [r(0.0, 10.0), r(2.0, 2.0), r(5.5, 11.0)] {
                let count = gap_count_of_union(&mut sorted.clone(), span);
                assert_eq!(count, list.gaps_within(span).len(), "{list:?} {span:?}");
                let mut want = RangeList::single(span);
                want.subtract_all(&list);
                let want: Vec<_> = want.ranges().iter().filter(|r| !r.is_empty()).copied().collect();
                let got = list.gaps_within(span);
                assert_eq!(format!("{got:?}"), format!("{want:?}"), "{list:?} {span:?}");
            }
        }
        let list = RangeList::union_of(vec![r(5.0, 6.0), r(1.0, 2.0), r(1.5, 3.0), r(3.0, 4.0)]);
        assert_eq!(list.gaps_within(r(0.0, 10.0)), vec![r(0.0, 1.0), r(4.0, 5.0), r(6.0, 10.0)]);
    }

    fn pairs(l: &RangeList) -> Vec<(f64, f64)> {
        l.ranges().iter().map(|r| (r.start, r.stop)).collect()
    }

    #[test]
    fn add_merges_overlapping_and_touching() {
        let l = list(&[(5.0, 6.0), (0.0, 1.0), (1.0, 2.0), (1.5, 3.0), (8.0, 9.0)]);
        assert_eq!(pairs(&l), vec![(0.0, 3.0), (5.0, 6.0), (8.0, 9.0)]);
        let l = list(&[(0.0, 10.0), (2.0, 3.0)]);
        assert_eq!(pairs(&l), vec![(0.0, 10.0)], "containment");
    }

    #[test]
    fn subtract_cuts_splits_and_removes() {
        let mut l = list(&[(0.0, 10.0)]);
        l.subtract(TimeRange::new(3.0, 5.0));
        assert_eq!(pairs(&l), vec![(0.0, 3.0), (5.0, 10.0)], "split");
        l.subtract(TimeRange::new(-1.0, 1.0));
        assert_eq!(pairs(&l), vec![(1.0, 3.0), (5.0, 10.0)], "low end cut");
        l.subtract(TimeRange::new(9.0, 12.0));
        assert_eq!(pairs(&l), vec![(1.0, 3.0), (5.0, 9.0)], "high end cut");
        l.subtract(TimeRange::new(5.0, 9.0));
        assert_eq!(pairs(&l), vec![(1.0, 3.0)], "exact cover removes");
        l.subtract(TimeRange::new(3.0, 4.0));
        assert_eq!(pairs(&l), vec![(1.0, 3.0)], "touching end: unchanged");
        l.subtract(TimeRange::new(0.0, 1.0));
        assert_eq!(pairs(&l), vec![(1.0, 3.0)], "touching start: unchanged");
    }

    #[test]
    fn bulk_operations_equal_one_by_one() {
        let cuts = [
            (3.0, 5.0),
            (-1.0, 1.0),
            (9.0, 12.0),
            (5.0, 6.0),
            (7.0, 7.5),
            (7.5, 8.0),
        ];
        let mut one = list(&[(0.0, 10.0), (11.0, 20.0)]);
        for &(a, b) in &cuts {
            one.subtract(TimeRange::new(a, b));
        }
        let mut bulk = list(&[(0.0, 10.0), (11.0, 20.0)]);
        bulk.subtract_all(&RangeList::union_of(
            cuts.iter().map(|&(a, b)| TimeRange::new(a, b)).collect(),
        ));
        assert_eq!(pairs(&one), pairs(&bulk));
        let mut a = list(&[(0.0, 1.0)]);
        a.add_all(&list(&[(1.0, 2.0), (5.0, 6.0)]));
        assert_eq!(pairs(&a), vec![(0.0, 2.0), (5.0, 6.0)]);
    }

    #[test]
    fn cursor_agrees_with_contains() {
        let l = list(&[(1.0, 2.0), (4.0, 5.0), (6.0, 6.0), (8.0, 9.0)]);
        let mut c = l.cursor();
        for t in [
            0.0, 1.0, 1.5, 2.0, 3.0, 4.0, 0.5, 6.0, 7.0, 9.0, 9.5, 2.0, 8.5, 1.0,
        ] {
            assert_eq!(c.contains(t), l.contains(t), "t = {t}");
        }
        let mut many = RangeList::new();
        for i in 0..100 {
            many.add(TimeRange::new(i as f64, i as f64 + 0.5));
        }
        let mut c = many.cursor();
        for t in [0.2, 50.2, 50.7, 99.4, 3.3, 3.4, 77.0] {
            assert_eq!(c.contains(t), many.contains(t), "t = {t}");
        }
    }

    /// Calls that mostly start later than the one before, some jumping
    /// back or far ahead, zero-length ones, and ends on range bounds.
    #[test]
    fn cursor_intersects_like_the_list() {
        let mut rng = crate::synth::SplitMix64::new(5);
        let mut next = |n: u64| rng.next_u64() % n;
        let mut many = RangeList::new();
        for i in 0..200 {
            many.add(TimeRange::new(i as f64, i as f64 + 0.5));
        }
        let mut c = many.cursor();
        let mut t = 0.0f64;
        let mut checked = 0;
        for _ in 0..5000 {
            t = match next(20) {
                0 => next(200) as f64 / 2.0,
                1 => t + 30.0,
                _ => t + next(5) as f64 / 4.0,
            } % 201.0;
            let len = [0.0, 0.25, 0.5, 1.0, 3.75][next(5) as usize];
            let p = TimeRange::new(t, t + len);
            let pieces =
                |v: Vec<TimeRange>| v.iter().map(|r| (r.start, r.stop)).collect::<Vec<_>>();
            let expected = pieces(many.intersect(p).collect());
            let mut each = Vec::new();
            c.for_each_piece(p, |x| each.push(x));
            assert_eq!(pieces(each), expected, "{p:?}");
            checked += usize::from(!expected.is_empty());
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn membership_includes_ends() {
        let l = list(&[(1.0, 2.0), (4.0, 5.0)]);
        assert!(l.contains(1.0) && l.contains(2.0) && l.contains(4.5));
        assert!(!l.contains(3.0) && !l.contains(0.5) && !l.contains(5.5));
        assert!(!RangeList::new().contains(1.0));
    }

    #[test]
    fn intersect_clips_to_the_ranges() {
        let l = list(&[(1.0, 2.0), (4.0, 5.0)]);
        let v: Vec<_> = l
            .intersect(TimeRange::new(1.5, 4.5))
            .map(|r| (r.start, r.stop))
            .collect();
        assert_eq!(v, vec![(1.5, 2.0), (4.0, 4.5)]);
        let v: Vec<_> = l.intersect(TimeRange::new(2.0, 4.0)).collect();
        assert!(v.is_empty(), "touching only: nothing covered");
        let v: Vec<_> = l.intersect(TimeRange::new(1.5, 1.5)).collect();
        assert_eq!(v.len(), 1, "zero-length call inside a range");
        assert_eq!(l.total(), 2.0);
    }
}
