//! Per-function statistics across processes (BLPROF_FORMAT.md §8.2): the
//! numbers of amrprofparser's `-ws`/`-wts` tables, plus which process holds
//! the minimum and maximum and an imbalance figure.
//!
//! Processes are visited in fixed-size chunks in parallel; each chunk's
//! partial result is combined in chunk order, so the output does not depend
//! on the number of threads.

use rayon::prelude::*;

/// One process row: the process number, its call counts and exclusive times
/// for every function (in the function list's order).
pub trait ProcessRows: Sync {
    /// Number of rows (processes with data).
    fn rows(&self) -> usize;
    /// Fills `calls` and `times` (both `nfuncs` long) for row `row` and
    /// returns its process number.
    fn read_row(&self, row: usize, calls: &mut [i64], times: &mut [f64]) -> usize;
}

/// Statistics of one function over processes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FunctionStats {
    /// The function's name.
    pub name: String,
    /// Calls on the selected process (`--proc`, default 0), as the reference prints.
    pub ncalls: i64,
    /// Calls summed over all processes.
    pub ncalls_total: i64,
    /// Smallest exclusive seconds on one process.
    pub min: f64,
    /// Mean exclusive seconds over processes.
    pub avg: f64,
    /// Largest exclusive seconds on one process.
    pub max: f64,
    /// Population standard deviation over processes.
    pub stddev: f64,
    /// 100 · stddev / avg (0 when avg is 0).
    pub coeff_var: f64,
    /// 100 · avg / Σ avg over functions.
    pub percent: f64,
    /// Process holding the minimum (lowest number on ties).
    pub min_proc: Option<usize>,
    /// Process holding the maximum (lowest number on ties).
    pub max_proc: Option<usize>,
    /// max / avg; `None` when avg is 0.
    pub imbalance: Option<f64>,
}

/// The function summary of a database or a trace selection.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FunctionSummary {
    /// In the order of the input's function list (byte-wise name order for bl_prof).
    pub functions: Vec<FunctionStats>,
    /// Processes whose data went into the statistics.
    pub nprocs: usize,
    /// The process whose call counts fill `ncalls`.
    pub selected_proc: usize,
    /// Σ avg over functions.
    pub total_timers: f64,
    /// The run time the report relates to (`calcEndTime` for the base profile).
    pub run_time: Option<f64>,
    /// 100 · total_timers / run_time.
    pub percent_coverage: Option<f64>,
}

/// Rows per parallel task: depends on the row count only (never on the
/// thread count), so that sums are combined in the same order for any `-j`.
/// Few rows (a trace of 8 processes) get one task each.
fn chunk_size(rows: usize) -> usize {
    (rows / 64).clamp(1, 64)
}

#[derive(Clone)]
struct Acc {
    n: u64,
    sum: f64,
    mean: f64,
    m2: f64,
    min: f64,
    min_proc: Option<usize>,
    max: f64,
    max_proc: Option<usize>,
    calls_total: i64,
    calls_selected: i64,
}

impl Acc {
    fn new() -> Self {
        Acc {
            n: 0,
            sum: 0.0,
            mean: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            min_proc: None,
            max: f64::NEG_INFINITY,
            max_proc: None,
            calls_total: 0,
            calls_selected: 0,
        }
    }

    fn add(&mut self, proc: usize, calls: i64, t: f64, selected: bool) {
        self.n += 1;
        self.sum += t;
        // Welford's update keeps the variance accurate in one pass.
        let delta = t - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (t - self.mean);
        if t < self.min || self.min_proc.is_none() {
            self.min = t;
            self.min_proc = Some(proc);
        }
        if t > self.max || self.max_proc.is_none() {
            self.max = t;
            self.max_proc = Some(proc);
        }
        self.calls_total = self.calls_total.saturating_add(calls);
        if selected {
            self.calls_selected = calls;
        }
    }

    /// Combines a later chunk into this one (Chan et al.'s parallel variance).
    fn merge(&mut self, o: &Acc) {
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = o.clone();
            return;
        }
        let n = self.n + o.n;
        let delta = o.mean - self.mean;
        self.m2 += o.m2 + delta * delta * (self.n as f64 * o.n as f64 / n as f64);
        self.mean += delta * o.n as f64 / n as f64;
        self.n = n;
        self.sum += o.sum;
        // Strict comparisons keep the earlier (lower-numbered) process on ties.
        if o.min < self.min {
            self.min = o.min;
            self.min_proc = o.min_proc;
        }
        if o.max > self.max {
            self.max = o.max;
            self.max_proc = o.max_proc;
        }
        self.calls_total = self.calls_total.saturating_add(o.calls_total);
        self.calls_selected += o.calls_selected;
    }
}

/// Computes the statistics of `names.len()` functions over all rows.
pub fn summarize(
    names: &[String],
    rows: &dyn ProcessRows,
    selected_proc: usize,
    run_time: Option<f64>,
) -> FunctionSummary {
    let nfuncs = names.len();
    let nrows = rows.rows();
    let chunk = chunk_size(nrows);
    let chunks: Vec<Vec<Acc>> = (0..nrows.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut acc = vec![Acc::new(); nfuncs];
            let mut calls = vec![0i64; nfuncs];
            let mut times = vec![0f64; nfuncs];
            for row in c * chunk..((c + 1) * chunk).min(nrows) {
                let proc = rows.read_row(row, &mut calls, &mut times);
                let selected = proc == selected_proc;
                for f in 0..nfuncs {
                    acc[f].add(proc, calls[f], times[f], selected);
                }
            }
            acc
        })
        .collect();
    let mut total = vec![Acc::new(); nfuncs];
    for chunk in &chunks {
        for (t, c) in total.iter_mut().zip(chunk) {
            t.merge(c);
        }
    }

    let p = nrows as f64;
    let avgs: Vec<f64> = total
        .iter()
        .map(|a| if nrows > 0 { a.sum / p } else { 0.0 })
        .collect();
    let total_timers: f64 = avgs.iter().sum();
    let functions = names
        .iter()
        .zip(&total)
        .zip(&avgs)
        .map(|((name, a), &avg)| {
            let variance = if nrows > 0 { a.m2 / p } else { 0.0 };
            let stddev = if variance > 0.0 { variance.sqrt() } else { 0.0 };
            FunctionStats {
                name: name.clone(),
                ncalls: a.calls_selected,
                ncalls_total: a.calls_total,
                min: if a.n > 0 { a.min } else { 0.0 },
                avg,
                max: if a.n > 0 { a.max } else { 0.0 },
                stddev,
                coeff_var: if avg > 0.0 { 100.0 * stddev / avg } else { 0.0 },
                percent: if total_timers > 0.0 {
                    100.0 * avg / total_timers
                } else {
                    100.0
                },
                min_proc: a.min_proc,
                max_proc: a.max_proc,
                imbalance: (avg > 0.0).then(|| a.max / avg),
            }
        })
        .collect();
    FunctionSummary {
        functions,
        nprocs: nrows,
        selected_proc,
        total_timers,
        run_time,
        percent_coverage: run_time
            .filter(|&r| r > 0.0)
            .map(|r| 100.0 * total_timers / r),
    }
}

/// Orderings of a summary's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    /// By name.
    Name,
    /// By calls.
    Ncalls,
    /// By the smallest per-process seconds.
    Min,
    /// By the mean over processes.
    Avg,
    /// By the largest per-process seconds.
    Max,
    /// By the standard deviation over processes.
    Stddev,
    /// By the coefficient of variation.
    Cv,
    /// By the share of the total.
    Percent,
    /// By the load imbalance (max / mean).
    Imbalance,
}

impl SortKey {
    /// Indices of `functions` in this order: names ascending (byte order),
    /// every number descending, ties broken by name. Nothing is dropped.
    pub fn order(self, functions: &[FunctionStats]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..functions.len()).collect();
        let key = |f: &FunctionStats| -> f64 {
            match self {
                SortKey::Name => 0.0,
                SortKey::Ncalls => f.ncalls_total as f64,
                SortKey::Min => f.min,
                SortKey::Avg => f.avg,
                SortKey::Max => f.max,
                SortKey::Stddev => f.stddev,
                SortKey::Cv => f.coeff_var,
                SortKey::Percent => f.percent,
                SortKey::Imbalance => f.imbalance.unwrap_or(0.0),
            }
        };
        idx.sort_by(|&a, &b| {
            let (fa, fb) = (&functions[a], &functions[b]);
            key(fb)
                .total_cmp(&key(fa))
                .then_with(|| fa.name.as_bytes().cmp(fb.name.as_bytes()))
        });
        idx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rows(Vec<(usize, Vec<i64>, Vec<f64>)>);
    impl ProcessRows for Rows {
        fn rows(&self) -> usize {
            self.0.len()
        }
        fn read_row(&self, row: usize, calls: &mut [i64], times: &mut [f64]) -> usize {
            calls.copy_from_slice(&self.0[row].1);
            times.copy_from_slice(&self.0[row].2);
            self.0[row].0
        }
    }

    #[test]
    fn matches_the_reference_formulas() {
        let names = vec!["a".to_owned(), "b".to_owned()];
        let rows = Rows(vec![
            (0, vec![1, 0], vec![1.0, 0.0]),
            (1, vec![2, 0], vec![3.0, 0.0]),
            (2, vec![3, 0], vec![2.0, 0.0]),
        ]);
        let s = summarize(&names, &rows, 1, Some(4.0));
        let a = &s.functions[0];
        assert_eq!((a.ncalls, a.ncalls_total), (2, 6));
        assert_eq!((a.min, a.avg, a.max), (1.0, 2.0, 3.0));
        assert_eq!((a.min_proc, a.max_proc), (Some(0), Some(1)));
        let sd = (2.0f64 / 3.0).sqrt();
        assert!((a.stddev - sd).abs() < 1e-15);
        assert!((a.coeff_var - 50.0 * sd).abs() < 1e-12);
        assert_eq!(a.percent, 100.0);
        assert_eq!(a.imbalance, Some(1.5));
        let b = &s.functions[1];
        assert_eq!((b.coeff_var, b.percent, b.imbalance), (0.0, 0.0, None));
        assert_eq!(s.total_timers, 2.0);
        assert_eq!(s.percent_coverage, Some(50.0));
    }

    #[test]
    fn chunked_merge_equals_one_pass() {
        let names = vec!["f".to_owned()];
        let data: Vec<_> = (0..1000)
            .map(|p| (p, vec![p as i64], vec![((p * 7919) % 1000) as f64 * 1e-3]))
            .collect();
        let times: Vec<f64> = data.iter().map(|r| r.2[0]).collect();
        let s = summarize(&names, &Rows(data), 0, None);
        let mean = times.iter().sum::<f64>() / 1000.0;
        let var = times.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / 1000.0;
        assert!((s.functions[0].stddev - var.sqrt()).abs() < 1e-12);
        assert_eq!(s.functions[0].ncalls_total, 999 * 1000 / 2);
    }

    #[test]
    fn sort_keeps_ties() {
        let mk = |name: &str, avg: f64| FunctionStats {
            name: name.into(),
            ncalls: 0,
            ncalls_total: 0,
            min: 0.0,
            avg,
            max: 0.0,
            stddev: 0.0,
            coeff_var: 0.0,
            percent: 0.0,
            min_proc: None,
            max_proc: None,
            imbalance: None,
        };
        let f = vec![mk("c", 0.0), mk("a", 1.0), mk("b", 0.0)];
        assert_eq!(SortKey::Avg.order(&f), vec![1, 2, 0]);
        assert_eq!(SortKey::Name.order(&f), vec![1, 2, 0]);
    }
}
