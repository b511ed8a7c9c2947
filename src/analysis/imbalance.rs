//! Load imbalance per function: how the exclusive time of the functions
//! that take the longest is spread over processes.
//!
//! For few processes every process's time is kept (one bar each); for many
//! the times are counted into a fixed number of equal bins between the
//! function's minimum and maximum, so the result (and any picture of it) is
//! bounded by `top × max(max_bars, bins)` whatever the number of processes.
//!
//! ```text
//! per process (≤ max_bars)        histogram (more processes)
//! p0 ████████         0.8 s       0.2–0.4 s  ██ 2
//! p1 ███████████████  1.5 s       0.4–0.6 s  ██████████ 10
//! p2 ██████           0.6 s       0.6–0.8 s  ████ 4
//! ```

use super::function_stats::{FunctionSummary, ProcessRows, SortKey};

/// How one function's times are spread over processes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcSpread {
    /// `(process, exclusive seconds)` for every process, ascending by process.
    PerProcess(Vec<(usize, f64)>),
    /// `counts[i]` processes have a time in bin `i` of `bins` equal bins
    /// from `lo` to `hi` (the last bin includes `hi`).
    Histogram { lo: f64, hi: f64, counts: Vec<u64> },
}

/// One function of the imbalance view.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FunctionImbalance {
    /// Index into the summary's `functions`.
    pub function: usize,
    pub name: String,
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub min_proc: Option<usize>,
    pub max_proc: Option<usize>,
    /// max / avg (`None` when avg is 0).
    pub imbalance: Option<f64>,
    pub spread: ProcSpread,
    /// The time of the process asked for (`--proc`), when it has data.
    pub selected: Option<(usize, f64)>,
}

/// What to compute.
#[derive(Debug, Clone, Copy)]
pub struct ImbalanceOptions {
    /// Functions with the largest maximum time.
    pub top: usize,
    /// Up to this many processes, one value per process; above, a histogram.
    pub max_bars: usize,
    /// Bins of the histogram.
    pub bins: usize,
    /// A process whose time is reported separately (to mark it).
    pub selected_proc: Option<usize>,
}

impl Default for ImbalanceOptions {
    fn default() -> Self {
        ImbalanceOptions {
            top: 10,
            max_bars: 32,
            bins: 16,
            selected_proc: None,
        }
    }
}

/// The `opts.top` functions of `summary` with the largest maximum time
/// (ties by name), with their times spread over the processes of `rows`
/// (the rows the summary was computed from).
pub fn imbalance(
    summary: &FunctionSummary,
    rows: &dyn ProcessRows,
    opts: &ImbalanceOptions,
) -> Vec<FunctionImbalance> {
    let picked: Vec<usize> = SortKey::Max
        .order(&summary.functions)
        .into_iter()
        .take(opts.top)
        .collect();
    let nrows = rows.rows();
    let per_process = nrows <= opts.max_bars;
    let bins = opts.bins.max(1);
    let mut out: Vec<FunctionImbalance> = picked
        .iter()
        .map(|&f| {
            let s = &summary.functions[f];
            FunctionImbalance {
                function: f,
                name: s.name.clone(),
                min: s.min,
                avg: s.avg,
                max: s.max,
                min_proc: s.min_proc,
                max_proc: s.max_proc,
                imbalance: s.imbalance,
                spread: if per_process {
                    ProcSpread::PerProcess(Vec::with_capacity(nrows))
                } else {
                    ProcSpread::Histogram {
                        lo: s.min,
                        hi: s.max,
                        counts: vec![0; bins],
                    }
                },
                selected: None,
            }
        })
        .collect();
    if picked.is_empty() {
        return out;
    }
    let nfuncs = summary.functions.len();
    let mut calls = vec![0i64; nfuncs];
    let mut times = vec![0f64; nfuncs];
    for row in 0..nrows {
        let proc = rows.read_row(row, &mut calls, &mut times);
        for (fi, &f) in out.iter_mut().zip(&picked) {
            let t = times[f];
            if opts.selected_proc == Some(proc) {
                fi.selected = Some((proc, t));
            }
            match &mut fi.spread {
                ProcSpread::PerProcess(v) => v.push((proc, t)),
                ProcSpread::Histogram { lo, hi, counts } => {
                    counts[bin(t, *lo, *hi, bins)] += 1;
                }
            }
        }
    }
    for fi in &mut out {
        if let ProcSpread::PerProcess(v) = &mut fi.spread {
            v.sort_by_key(|&(p, _)| p);
        }
    }
    out
}

/// The bin of `t` among `bins` equal bins from `lo` to `hi` (inclusive).
pub fn bin(t: f64, lo: f64, hi: f64, bins: usize) -> usize {
    if hi <= lo || t.is_nan() {
        return 0;
    }
    let i = ((t - lo) / (hi - lo) * bins as f64).floor();
    (i.max(0.0) as usize).min(bins - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::function_stats::summarize;

    struct Rows(Vec<(usize, Vec<f64>)>);
    impl ProcessRows for Rows {
        fn rows(&self) -> usize {
            self.0.len()
        }
        fn read_row(&self, row: usize, calls: &mut [i64], times: &mut [f64]) -> usize {
            calls.fill(1);
            times.copy_from_slice(&self.0[row].1);
            self.0[row].0
        }
    }

    fn names() -> Vec<String> {
        vec!["a".into(), "b".into(), "c".into()]
    }

    #[test]
    fn few_processes_get_one_value_each_top_by_max() {
        let rows = Rows(vec![
            (1, vec![1.0, 5.0, 0.5]),
            (0, vec![2.0, 1.0, 0.5]),
            (2, vec![3.0, 1.0, 0.5]),
        ]);
        let s = summarize(&names(), &rows, 0, None);
        let opts = ImbalanceOptions {
            top: 2,
            selected_proc: Some(2),
            ..Default::default()
        };
        let r = imbalance(&s, &rows, &opts);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].name.as_str(), r[0].max), ("b", 5.0));
        assert_eq!(
            r[0].spread,
            ProcSpread::PerProcess(vec![(0, 1.0), (1, 5.0), (2, 1.0)])
        );
        assert_eq!(r[1].name, "a");
        assert_eq!(r[1].selected, Some((2, 3.0)));
    }

    #[test]
    fn many_processes_are_binned() {
        let rows = Rows((0..100).map(|p| (p, vec![p as f64, 0.0, 0.0])).collect());
        let s = summarize(&names(), &rows, 0, None);
        let opts = ImbalanceOptions {
            top: 1,
            max_bars: 10,
            bins: 4,
            selected_proc: None,
        };
        let r = imbalance(&s, &rows, &opts);
        match &r[0].spread {
            ProcSpread::Histogram { lo, hi, counts } => {
                assert_eq!((*lo, *hi), (0.0, 99.0));
                assert_eq!(counts.iter().sum::<u64>(), 100);
                assert_eq!(counts, &vec![25, 25, 25, 25]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bins_clamp_and_degenerate_ranges() {
        assert_eq!(bin(1.0, 1.0, 1.0, 8), 0);
        assert_eq!(bin(2.0, 0.0, 2.0, 4), 3);
        assert_eq!(bin(-1.0, 0.0, 2.0, 4), 0);
        assert_eq!(bin(0.99, 0.0, 2.0, 4), 1);
    }
}
