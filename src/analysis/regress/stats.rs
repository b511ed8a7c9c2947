//! The statistics behind a `regress` verdict, for one timer measured in
//! two groups of runs:
//!
//! * p over runs: the permutation test of the difference in means
//!   ([`mean_shift_p`]). It assumes nothing about the shape of run times,
//!   only that, with no change, any run could as well have been in either
//!   group; exact (every split counted, no random shuffles, so the output
//!   is the same on every run) up to [`EXACT_MAX_RUNS`] runs, Welch's
//!   t-test above. It uses the sizes of the differences, where ranks keep
//!   only their order: on the calibration's 3 % shifts at 1 % noise (8 vs
//!   8 runs, 20 timers) the rank-sum test found 88 % where this finds over
//!   90 % (docs/REGRESS.md);
//! * p over the processes of one run each: the Wilcoxon–Mann–Whitney
//!   rank-sum test ([`rank_sum_p`]), which a few straggling processes do
//!   not sway;
//! * the change: the Hodges–Lehmann shift (the median of all differences
//!   new − base) with its distribution-free 95 % interval ([`shift`],
//!   [`Design`]);
//! * Benjamini–Hochberg q-values over all timers ([`bh_q_values`]).
//!
//! The shift is estimated on seconds, not their logarithms, so a timer at
//! 0 s in some runs (not called) still compares; it is turned into a
//! fraction of the base median afterwards.

use statrs::distribution::{ContinuousCDF, Normal};

/// Up to this many runs in both groups together the p-value and the
/// interval come from the exact permutation distribution.
pub const EXACT_MAX_RUNS: usize = 24;

/// What the group sizes allow, the same for every timer of a comparison:
/// computed once.
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    /// Runs in the base group.
    pub m: usize,
    /// Runs in the new group.
    pub n: usize,
    /// The 1-based order statistic of the m·n pairwise differences that
    /// bounds the 95 % interval from below (the upper bound is the
    /// (m·n + 1 − c)-th); `None` when the groups are too small for a 95 %
    /// interval (fewer than 4 + 4 runs, say).
    pub ci_rank: Option<usize>,
    /// The smallest two-sided p these sizes can give (2 / C(m + n, m)
    /// exactly; 1 with one run per side).
    pub min_p: f64,
}

impl Design {
    /// The design of an `m` vs `n` comparison (both ≥ 1).
    pub fn new(m: usize, n: usize) -> Design {
        let total = m + n;
        if total <= EXACT_MAX_RUNS {
            let ranks: Vec<u32> = (1..=total as u32).collect();
            let dist = sum_distribution(&ranks, n);
            // Rank sums of the new group; U = W − n(n+1)/2 runs from 0.
            let lowest = n * (n + 1) / 2;
            let mut cum = 0.0;
            let mut ci_rank = None;
            for (u, p) in dist[lowest..].iter().enumerate() {
                cum += p;
                // c with P(U ≤ c − 1) ≤ 2.5 %: here u = c − 1.
                if cum > 0.025 + 1e-12 {
                    break;
                }
                ci_rank = Some(u + 1);
            }
            let min_p = (2.0 * dist[lowest]).min(1.0);
            Design {
                m,
                n,
                ci_rank,
                min_p,
            }
        } else {
            let (mf, nf) = (m as f64, n as f64);
            let sd = (mf * nf * (mf + nf + 1.0) / 12.0).sqrt();
            let c = (mf * nf / 2.0 - z975() * sd).floor();
            Design {
                m,
                n,
                ci_rank: (c >= 1.0).then_some(c as usize),
                min_p: 0.0,
            }
        }
    }
}

/// The 97.5 % point of the standard normal distribution.
fn z975() -> f64 {
    standard_normal().inverse_cdf(0.975)
}

fn standard_normal() -> Normal {
    Normal::standard()
}

/// The distribution of the sum of `k` of `ranks` chosen at random (all
/// subsets alike): index s holds P(sum = s). Counted item by item, as the
/// number of ways to reach each (count, sum), in floating point (the
/// counts outgrow integers long before they lose meaning).
fn sum_distribution(ranks: &[u32], k: usize) -> Vec<f64> {
    let mut sorted = ranks.to_vec();
    sorted.sort_unstable();
    let max_sum: usize = sorted.iter().rev().take(k).map(|&r| r as usize).sum();
    let width = max_sum + 1;
    // ways[j * width + s]: subsets of j items so far with sum s.
    let mut ways = vec![0.0f64; (k + 1) * width];
    ways[0] = 1.0;
    for (i, &r) in sorted.iter().enumerate() {
        let r = r as usize;
        for j in (1..=k.min(i + 1)).rev() {
            let (lower, upper) = ways.split_at_mut(j * width);
            let from = &lower[(j - 1) * width..];
            let to = &mut upper[..width];
            for s in r..width {
                to[s] += from[s - r];
            }
        }
    }
    let row = &ways[k * width..];
    let total: f64 = row.iter().sum();
    row.iter().map(|w| w / total).collect()
}

/// Ranks of `base` followed by `new` among all values, doubled so that the
/// midranks of ties are whole numbers (tied values share the mean of their
/// ranks), and whether any value was tied.
fn doubled_midranks(base: &[f64], new: &[f64]) -> (Vec<u32>, bool) {
    let all: Vec<f64> = base.iter().chain(new).copied().collect();
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|&a, &b| all[a].total_cmp(&all[b]));
    let mut ranks = vec![0u32; all.len()];
    let mut tied = false;
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && all[order[j + 1]] == all[order[i]] {
            j += 1;
        }
        tied |= j > i;
        // Ranks i+1 … j+1 share their mean; doubled: i + j + 2.
        for &o in &order[i..=j] {
            ranks[o] = (i + j + 2) as u32;
        }
        i = j + 1;
    }
    (ranks, tied)
}

/// The two-sided p-value of the rank-sum test of `new` against `base`
/// (both non-empty): the chance, if both groups came from one
/// distribution, of a rank sum at least as far from its mean as the one
/// seen.
pub fn rank_sum_p(base: &[f64], new: &[f64]) -> f64 {
    let (ranks, tied) = doubled_midranks(base, new);
    let (m, n) = (base.len(), new.len());
    let total = m + n;
    let w: i64 = ranks[m..].iter().map(|&r| r as i64).sum();
    // Mean of the doubled rank sum of n of the ranks: n (N + 1).
    let mean = (n * (total + 1)) as i64;
    let seen = (w - mean).abs();
    if total <= EXACT_MAX_RUNS {
        let dist = sum_distribution(&ranks, n);
        let p: f64 = dist
            .iter()
            .enumerate()
            .filter(|&(s, _)| (s as i64 - mean).abs() >= seen)
            .map(|(_, p)| p)
            .sum();
        return p.min(1.0);
    }
    // Normal approximation, in doubled ranks: variance 4 · m n / 12 ·
    // ((N + 1) − Σ(t³ − t) / (N (N − 1))) over the tie groups t.
    let tie_term = if tied { tie_sum(&ranks) } else { 0.0 };
    let (mf, nf, nt) = (m as f64, n as f64, total as f64);
    let var = 4.0 * mf * nf / 12.0 * ((nt + 1.0) - tie_term / (nt * (nt - 1.0)));
    if var <= 0.0 {
        return 1.0; // every value the same
    }
    // Continuity correction of half a rank (one doubled rank).
    let z = ((seen as f64) - 1.0).max(0.0) / var.sqrt();
    (2.0 * standard_normal().sf(z)).min(1.0)
}

/// The two-sided p-value of the permutation test of the difference in
/// means of `new` and `base` (both non-empty): the share of all ways to
/// split the pooled runs into groups of these sizes whose new-group sum is
/// at least as far from its mean as the one seen. Exact up to
/// [`EXACT_MAX_RUNS`] runs (the C(N, n) splits counted meet-in-the-middle:
/// each half's subset sums by size, one half sorted and searched), Welch's
/// t-test above (by then the permutation distribution is close to it).
pub fn mean_shift_p(base: &[f64], new: &[f64]) -> f64 {
    let all: Vec<f64> = base.iter().chain(new).copied().collect();
    let (total, n) = (all.len(), new.len());
    if total > EXACT_MAX_RUNS {
        return welch_p(base, new);
    }
    let sum: f64 = all.iter().sum();
    let expected = sum * n as f64 / total as f64;
    let seen: f64 = new.iter().sum::<f64>() - expected;
    // Sums within rounding of the one seen count as equal to it.
    let scale = all.iter().map(|x| x.abs()).fold(0.0, f64::max) * total as f64;
    let far = seen.abs() - 1e-9 * scale.max(f64::MIN_POSITIVE);
    let (left, right) = all.split_at(total / 2);
    let (ls, rs) = (subset_sums(left), subset_sums(right));
    let mut count = 0.0;
    let mut splits = 0.0;
    for (k, lk) in ls.iter().enumerate() {
        let Some(rk) = n.checked_sub(k).and_then(|j| rs.get(j)) else {
            continue;
        };
        splits += (lk.len() * rk.len()) as f64;
        for &a in lk {
            // b with a + b − expected ≥ far, or ≤ −far.
            let high = rk.partition_point(|&b| a + b - expected < far);
            let low = rk.partition_point(|&b| a + b - expected <= -far);
            count += (rk.len() - high + low.min(high)) as f64;
        }
    }
    (count / splits).min(1.0)
}

/// Subset sums of `xs` by subset size, each list sorted.
fn subset_sums(xs: &[f64]) -> Vec<Vec<f64>> {
    let mut by_size: Vec<Vec<f64>> = vec![Vec::new(); xs.len() + 1];
    for mask in 0u32..(1 << xs.len()) {
        let s: f64 = (0..xs.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| xs[i])
            .sum();
        by_size[mask.count_ones() as usize].push(s);
    }
    for v in &mut by_size {
        v.sort_by(f64::total_cmp);
    }
    by_size
}

/// Welch's two-sided t-test (unequal variances).
fn welch_p(base: &[f64], new: &[f64]) -> f64 {
    let stats = |xs: &[f64]| {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        (n, mean, var / n)
    };
    let ((_, mb, vb), (_, mn, vn)) = (stats(base), stats(new));
    let se2 = vb + vn;
    if !se2.is_finite() || !mb.is_finite() || !mn.is_finite() {
        return 1.0; // damaged values: no evidence
    }
    if se2 <= 0.0 {
        return if mb == mn { 1.0 } else { 0.0 };
    }
    let t = (mn - mb) / se2.sqrt();
    let df = se2 * se2
        / (vb * vb / (base.len() as f64 - 1.0).max(1.0) + vn * vn / (new.len() as f64 - 1.0).max(1.0));
    match statrs::distribution::StudentsT::new(0.0, 1.0, df.max(1.0)) {
        Ok(d) => (2.0 * d.sf(t.abs())).min(1.0),
        Err(_) => 1.0,
    }
}

/// Σ(t³ − t) over groups of tied values (equal doubled ranks).
fn tie_sum(ranks: &[u32]) -> f64 {
    let mut sorted = ranks.to_vec();
    sorted.sort_unstable();
    sorted
        .chunk_by(|a, b| a == b)
        .map(|g| {
            let t = g.len() as f64;
            t * t * t - t
        })
        .sum()
}

/// The median of `xs` (non-empty): the mean of the middle two for an even
/// count.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let h = v.len() / 2;
    if v.len() % 2 == 1 {
        v[h]
    } else {
        (v[h - 1] + v[h]) / 2.0
    }
}

/// The Hodges–Lehmann shift of `new` against `base` in seconds (the
/// median of all differences new − base) and its 95 % interval (order
/// statistics of those differences picked by `design.ci_rank`).
pub fn shift(design: &Design, base: &[f64], new: &[f64]) -> (f64, Option<(f64, f64)>) {
    let mut d: Vec<f64> = new
        .iter()
        .flat_map(|&y| base.iter().map(move |&x| y - x))
        .collect();
    d.sort_by(f64::total_cmp);
    let estimate = median(&d);
    let ci = design
        .ci_rank
        .filter(|&c| c <= d.len() / 2 + 1 && d.len() == design.m * design.n)
        .map(|c| (d[c - 1], d[d.len() - c]));
    (estimate, ci)
}

/// Benjamini–Hochberg q-values of `ps` (in the same order): the smallest
/// false discovery rate at which each would be called a discovery.
pub fn bh_q_values(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    let mut q = vec![1.0; m];
    let mut running = 1.0f64;
    for (i, &idx) in order.iter().enumerate().rev() {
        running = running.min(ps[idx] * m as f64 / (i + 1) as f64);
        q[idx] = running.min(1.0);
    }
    q
}

/// At most `max` values standing for the sorted `xs`: evenly spaced order
/// statistics. Bounds the pairwise differences of a one-run comparison
/// over processes (m·n of them) however many processes ran.
pub fn thinned(xs: &[f64], max: usize) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    if v.len() <= max || max < 2 {
        return v;
    }
    let step = (v.len() - 1) as f64 / (max - 1) as f64;
    (0..max)
        .map(|i| v[((i as f64 * step).round() as usize).min(v.len() - 1)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_p_matches_the_tables() {
        // 4 vs 4, complete separation: 2 / C(8, 4) = 2/70.
        let p = rank_sum_p(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]);
        assert!((p - 2.0 / 70.0).abs() < 1e-12, "{p}");
        // Interleaved: nothing to see.
        let p = rank_sum_p(&[1.0, 4.0, 5.0, 8.0], &[2.0, 3.0, 6.0, 7.0]);
        assert!((p - 1.0).abs() < 1e-12, "{p}");
        // One vs one can never be significant.
        assert_eq!(rank_sum_p(&[1.0], &[2.0]), 1.0);
    }

    #[test]
    fn permutation_p_of_the_mean_shift_is_exact() {
        // 4 vs 4, complete separation: only the split seen and its mirror
        // are as far from the mean.
        let p = mean_shift_p(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]);
        assert!((p - 2.0 / 70.0).abs() < 1e-12, "{p}");
        // No difference in means: every split is as far.
        assert_eq!(mean_shift_p(&[1.0, 4.0, 5.0, 8.0], &[2.0, 3.0, 6.0, 7.0]), 1.0);
        // By brute force over the C(7, 3) = 35 splits of 4 vs 3.
        let (base, new) = ([1.0, 2.5, 3.0, 7.0], [4.0, 6.0, 6.5]);
        let all: Vec<f64> = base.iter().chain(&new).copied().collect();
        let mean_new = |s: f64| s - 3.0 / 7.0 * all.iter().sum::<f64>();
        let seen = mean_new(new.iter().sum());
        let mut hits = 0;
        for mask in 0u32..128 {
            if mask.count_ones() == 3 {
                let s: f64 = (0..7).filter(|i| mask & (1 << i) != 0).map(|i| all[i]).sum();
                hits += usize::from(mean_new(s).abs() >= seen.abs() - 1e-12);
            }
        }
        let p = mean_shift_p(&base, &new);
        assert!((p - hits as f64 / 35.0).abs() < 1e-12, "{p} vs {hits}/35");
        // Large groups: Welch's t-test.
        let b: Vec<f64> = (0..15).map(|i| 10.0 + (i % 5) as f64 * 0.1).collect();
        let n: Vec<f64> = (0..15).map(|i| 11.0 + (i % 5) as f64 * 0.1).collect();
        assert!(mean_shift_p(&b, &n) < 1e-6);
        assert!(mean_shift_p(&b, &b) > 0.99);
        // Damaged values are no evidence, small groups or large.
        assert_eq!(mean_shift_p(&[1.0, f64::NAN], &[2.0, 3.0]), 1.0);
        let mut nan = n.clone();
        nan[3] = f64::NAN;
        assert_eq!(mean_shift_p(&b, &nan), 1.0);
    }

    #[test]
    fn ties_share_their_ranks() {
        let (r, tied) = doubled_midranks(&[1.0, 2.0], &[2.0, 3.0]);
        assert_eq!((r, tied), (vec![2, 5, 5, 8], true));
        // All equal: p is 1.
        assert_eq!(rank_sum_p(&[5.0; 3], &[5.0; 3]), 1.0);
    }

    #[test]
    fn normal_approximation_agrees_with_exact_near_the_boundary() {
        // 12 vs 13 (25 runs) uses the approximation; a clear shift is tiny.
        let base: Vec<f64> = (0..12).map(|i| 10.0 + i as f64 * 0.01).collect();
        let new: Vec<f64> = (0..13).map(|i| 11.0 + i as f64 * 0.01).collect();
        assert!(rank_sum_p(&base, &new) < 1e-4);
        let mixed: Vec<f64> = (0..13).map(|i| 10.005 + i as f64 * 0.01).collect();
        assert!(rank_sum_p(&base, &mixed) > 0.5);
    }

    #[test]
    fn design_knows_what_small_groups_allow() {
        let d = Design::new(3, 3);
        assert_eq!(d.ci_rank, None); // P(U = 0) = 1/20 > 2.5 %
        assert!((d.min_p - 0.1).abs() < 1e-12);
        let d = Design::new(4, 4);
        assert_eq!(d.ci_rank, Some(1)); // 1/70 ≤ 2.5 % < 2/70
        let d = Design::new(8, 8);
        // Tables of the Mann–Whitney U: critical value 13 at 5 % two-sided.
        assert_eq!(d.ci_rank, Some(14));
        assert_eq!(Design::new(1, 1).min_p, 1.0);
        let big = Design::new(30, 30);
        assert!(big.ci_rank.is_some_and(|c| (300..=320).contains(&c)));
    }

    #[test]
    fn hodges_lehmann_shift_and_interval() {
        let d = Design::new(4, 4);
        let (est, ci) = shift(&d, &[1.0, 2.0, 3.0, 4.0], &[2.0, 3.0, 4.0, 5.0]);
        assert_eq!(est, 1.0);
        assert_eq!(ci, Some((-2.0, 4.0)));
    }

    #[test]
    fn benjamini_hochberg() {
        // Sorted p .01 .03 .04 .5 → p·m/i .04 .06 .0533 .5 → made monotone.
        let q = bh_q_values(&[0.01, 0.04, 0.03, 0.5]);
        let want = [0.04, 0.16 / 3.0, 0.16 / 3.0, 0.5];
        for (got, want) in q.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{q:?}");
        }
        assert!(bh_q_values(&[]).is_empty());
    }

    #[test]
    fn medians_and_thinning() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let xs: Vec<f64> = (0..10_001).map(f64::from).collect();
        let t = thinned(&xs, 101);
        assert_eq!((t.len(), t[0], t[100], t[50]), (101, 0.0, 10_000.0, 5_000.0));
    }
}
