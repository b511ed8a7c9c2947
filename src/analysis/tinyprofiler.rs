//! Questions asked of TinyProfiler reports: which run of a log, the
//! timers as `diff` compares them, a flat profile for `calltree`, and
//! scaling across runs (`compare`).

use super::calltree::Spread as CallSpread;
use super::function_stats::FunctionSummary;
use crate::error::{Error, Result};
use crate::model::calltree::{CallTree, Metrics};
use crate::model::timertree::Timing;
use crate::model::tinyprofiler::{Log, Report, Spread, TimerRow};

/// The report of run `run` (1-based; `None`: the last) of `log`, read
/// from `path`.
pub fn select_run<'a>(log: &'a Log, run: Option<usize>, path: &str) -> Result<&'a Report> {
    let n = log.reports.len();
    match run {
        None => log.reports.last(),
        Some(r) => r.checked_sub(1).and_then(|i| log.reports.get(i)),
    }
    .ok_or_else(|| {
        Error::NotFound(format!(
            "--run {}: {path} holds {n} TinyProfiler report(s), 1..{n}",
            run.unwrap_or(0)
        ))
    })
}

/// A report's timers as a one-level tree for `diff`: per timer its mean
/// calls per rank, its average inclusive and exclusive seconds over ranks.
/// The `Other` row is left out: it folds different timers in each run.
pub fn timer_metrics(report: &Report) -> CallTree<Metrics> {
    let mut t: CallTree<Metrics> = CallTree::new();
    for f in &report.tables.timers {
        let id = t.child(t.root(), &f.name);
        t.node_mut(id).metrics = Metrics {
            calls: f.ncalls,
            inclusive: f.inclusive.avg,
            exclusive: f.exclusive.avg,
        };
    }
    t
}

/// A report as a flat profile for `calltree` (Hatchet, JSON, text): one
/// root per timer (`Other` left out: folded timers are no function), then
/// one root per region, `REGION <name>`, holding that region's timers, its
/// own figures those of its `REG::<name>` timer. Sums are over `nprocs`
/// ranks (the mean times `nprocs`), as `calltree` merges processes; the
/// second value is that count (1 when the report does not say).
pub fn flat_tree(report: &Report) -> (CallTree<CallSpread>, usize) {
    let n = report
        .nprocs
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(1)
        .max(1);
    let spread = |t: &TimerRow| CallSpread {
        total: Metrics {
            calls: t.ncalls.saturating_mul(n as u64),
            inclusive: t.inclusive.avg * n as f64,
            exclusive: t.exclusive.avg * n as f64,
        },
        procs: u32::try_from(n).unwrap_or(u32::MAX),
        inclusive_min: t.inclusive.min,
        inclusive_max: t.inclusive.max,
        inclusive_max_proc: None,
        exclusive_min: t.exclusive.min,
        exclusive_max: t.exclusive.max,
    };
    let mut tree: CallTree<CallSpread> = CallTree::new();
    for t in &report.tables.timers {
        let id = tree.child(tree.root(), &t.name);
        tree.node_mut(id).metrics = spread(t);
    }
    for g in &report.regions {
        let root = tree.child(tree.root(), &format!("REGION {}", g.name));
        let own = format!("REG::{}", g.name);
        for t in &g.tables.timers {
            if t.name == own {
                tree.node_mut(root).metrics = spread(t);
            } else {
                let id = tree.child(root, &t.name);
                tree.node_mut(id).metrics = spread(t);
            }
        }
    }
    (tree, n)
}

/// The time `compare` compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareMetric {
    /// Average inclusive seconds over ranks.
    Inclusive,
    /// Average exclusive seconds over ranks.
    Exclusive,
    /// Maximum inclusive seconds over ranks (the slowest rank).
    Max,
}

impl CompareMetric {
    pub fn name(self) -> &'static str {
        match self {
            CompareMetric::Inclusive => "inclusive",
            CompareMetric::Exclusive => "exclusive",
            CompareMetric::Max => "max",
        }
    }

    fn of(self, t: &RunTimer) -> Option<f64> {
        match self {
            CompareMetric::Inclusive => t.inclusive_avg,
            CompareMetric::Exclusive => Some(t.exclusive_avg),
            CompareMetric::Max => t.inclusive_max,
        }
    }
}

/// How efficiency is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scaling {
    /// The same problem on more ranks: efficiency = t₀·n₀ / (tᵢ·nᵢ).
    Strong,
    /// The problem grows with the ranks: efficiency = t₀ / tᵢ.
    Weak,
}

/// One timer of a run to compare: average and maximum seconds over ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTimer {
    pub name: String,
    pub exclusive_avg: f64,
    /// `None` when the run has no inclusive times (a bl_prof base profile).
    pub inclusive_avg: Option<f64>,
    pub inclusive_max: Option<f64>,
}

/// One run to compare: its label, ranks, total time and timers.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareInput {
    /// The run's name in the output (its file, and the run in it).
    pub label: String,
    /// The input's kind (`tinyprofiler`, `blprof`).
    pub kind: &'static str,
    /// Processes (MPI ranks) of the run, if known.
    pub nprocs: Option<u64>,
    /// The run's total seconds, average and maximum over ranks, if known.
    pub total: Option<Spread<f64>>,
    /// Its timers.
    pub timers: Vec<RunTimer>,
}

impl CompareInput {
    /// A TinyProfiler report's timers (`Other` left out).
    pub fn tinyprofiler(label: String, report: &Report) -> Self {
        CompareInput {
            label,
            kind: "tinyprofiler",
            nprocs: report.nprocs,
            total: Some(report.total),
            timers: report
                .tables
                .timers
                .iter()
                .map(|t| RunTimer {
                    name: t.name.clone(),
                    exclusive_avg: t.exclusive.avg,
                    inclusive_avg: Some(t.inclusive.avg),
                    inclusive_max: Some(t.inclusive.max),
                })
                .collect(),
        }
    }

    /// A bl_prof base profile's functions: exclusive seconds only; the
    /// total is the run time of `bl_prof_H` (`calcEndTime`) when it has one.
    pub fn function_summary(label: String, s: &FunctionSummary) -> Self {
        CompareInput {
            label,
            kind: "blprof",
            nprocs: Some(s.nprocs as u64),
            total: s.run_time.map(|t| Spread {
                min: t,
                avg: t,
                max: t,
            }),
            timers: s
                .functions
                .iter()
                .map(|f| RunTimer {
                    name: f.name.clone(),
                    exclusive_avg: f.avg,
                    inclusive_avg: None,
                    inclusive_max: None,
                })
                .collect(),
        }
    }

    /// A timer tree's timers by name: inclusive seconds summed over the
    /// nodes of that name that have no ancestor of the same name (a
    /// recursion counts once), exclusive seconds (a node minus its
    /// children) over every node of that name. One process, ranks unknown
    /// (`--ranks`); the total is the sum of the roots.
    pub fn timer_tree(label: String, tree: &CallTree<Timing>) -> Self {
        use std::collections::HashMap;
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut timers: Vec<RunTimer> = Vec::new();
        let mut total = 0.0;
        let root = tree.root();
        // The names open on the path to the current node, by name index,
        // with the stack of (depth, name index) that opened them: whether a
        // node is nested in a timer of its own name is one look-up, not a
        // walk up the tree (a tree 50,000 deep).
        let mut open: HashMap<u32, usize> = HashMap::new();
        let mut path: Vec<(usize, u32)> = Vec::new();
        for (id, depth) in tree.preorder() {
            if id == root {
                continue;
            }
            while path.last().is_some_and(|&(d, _)| d >= depth) {
                if let Some((_, n)) = path.pop()
                    && let Some(k) = open.get_mut(&n)
                {
                    *k -= 1;
                }
            }
            let node = tree.node(id);
            let name = tree.name(id);
            let name_index = tree.name_index(id).unwrap_or(u32::MAX);
            let nested = open.get(&name_index).is_some_and(|&k| k > 0);
            *open.entry(name_index).or_insert(0) += 1;
            path.push((depth, name_index));
            let seconds = node.metrics.seconds;
            if node.parent() == Some(root) {
                total += seconds;
            }
            let kids: f64 = node
                .children()
                .iter()
                .map(|&c| tree.node(c).metrics.seconds)
                .sum();
            let i = *index.entry(name).or_insert_with(|| {
                timers.push(RunTimer {
                    name: name.to_owned(),
                    exclusive_avg: 0.0,
                    inclusive_avg: Some(0.0),
                    inclusive_max: Some(0.0),
                });
                timers.len() - 1
            });
            let t = &mut timers[i];
            t.exclusive_avg += seconds - kids;
            if !nested {
                t.inclusive_avg = t.inclusive_avg.map(|x| x + seconds);
                t.inclusive_max = t.inclusive_avg;
            }
        }
        CompareInput {
            label,
            kind: "timer-tree",
            nprocs: None,
            total: Some(Spread {
                min: total,
                avg: total,
                max: total,
            }),
            timers,
        }
    }

    /// Whether the run has the times `metric` needs.
    pub fn has(&self, metric: CompareMetric) -> bool {
        metric == CompareMetric::Exclusive || self.timers.iter().all(|t| t.inclusive_avg.is_some())
    }
}

/// One function across the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionScaling {
    pub name: String,
    /// Seconds per run (`None`: not in that run's report).
    pub times: Vec<Option<f64>>,
    /// t₀ / tᵢ per run.
    pub speedup: Vec<Option<f64>>,
    /// Per run, by [`Scaling`]; the first run's is 1.
    pub efficiency: Vec<Option<f64>>,
    /// Whether the function takes at least the threshold share of the
    /// total time in some run.
    pub matters: bool,
    /// Its least efficiency over the runs (`None`: none computable).
    pub worst: Option<f64>,
}

/// The answer of `compare`.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The runs' labels, first the baseline.
    pub labels: Vec<String>,
    /// The runs' input kinds.
    pub kinds: Vec<&'static str>,
    /// The runs' processes, if known.
    pub nprocs: Vec<Option<u64>>,
    /// The metric compared.
    pub metric: CompareMetric,
    /// What the runs are expected to keep the same.
    pub scaling: Scaling,
    /// The share of a run's total time (percent) from which a function matters.
    pub min_percent: f64,
    /// The total time line (average, or maximum for `--metric max`).
    pub total: FunctionScaling,
    /// Functions that matter by worst efficiency (lowest first), then the
    /// others by their largest time.
    pub functions: Vec<FunctionScaling>,
}

fn ratios(
    times: &[Option<f64>],
    nprocs: &[Option<u64>],
    scaling: Scaling,
) -> (Vec<Option<f64>>, Vec<Option<f64>>) {
    let t0 = times.first().copied().flatten();
    let n0 = nprocs.first().copied().flatten();
    let finite = |x: f64| x.is_finite().then_some(x);
    let speedup = times
        .iter()
        .map(|t| match (t0, *t) {
            (Some(a), Some(b)) if b > 0.0 => finite(a / b),
            _ => None,
        })
        .collect();
    let efficiency = times
        .iter()
        .zip(nprocs)
        .map(|(t, n)| match (t0, *t, scaling) {
            (Some(a), Some(b), Scaling::Weak) if b > 0.0 => finite(a / b),
            (Some(a), Some(b), Scaling::Strong) if b > 0.0 => match (n0, n) {
                // 0 ranks is no run: no efficiency (never 0 %).
                (Some(n0), Some(n)) if n0 > 0 && *n > 0 => finite(a * n0 as f64 / (b * *n as f64)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    (speedup, efficiency)
}

fn scaling_of(
    name: String,
    times: Vec<Option<f64>>,
    nprocs: &[Option<u64>],
    scaling: Scaling,
    matters: bool,
) -> FunctionScaling {
    let (speedup, efficiency) = ratios(&times, nprocs, scaling);
    let worst = efficiency.iter().flatten().copied().reduce(f64::min);
    FunctionScaling {
        name,
        times,
        speedup,
        efficiency,
        matters,
        worst,
    }
}

/// Compares the timers of `runs` against the first: one row per timer of
/// any run (`Other` left out), in the first report's order of appearance.
pub fn compare(
    runs: &[CompareInput],
    metric: CompareMetric,
    scaling: Scaling,
    min_percent: f64,
) -> Comparison {
    let nprocs: Vec<Option<u64>> = runs.iter().map(|r| r.nprocs).collect();
    let mut names: Vec<&str> = Vec::new();
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for r in runs {
        for t in &r.timers {
            index.entry(t.name.as_str()).or_insert_with(|| {
                names.push(t.name.as_str());
                names.len() - 1
            });
        }
    }
    let mut times = vec![vec![None; runs.len()]; names.len()];
    let mut matters = vec![false; names.len()];
    for (j, r) in runs.iter().enumerate() {
        // Without a total, the share is of the largest timer's time.
        let total = r.total.map(|t| t.max).unwrap_or_else(|| {
            r.timers
                .iter()
                .filter_map(|t| metric.of(t))
                .fold(0.0, f64::max)
        });
        for t in &r.timers {
            let i = index[t.name.as_str()];
            if times[i][j].is_none() {
                let x = metric.of(t);
                times[i][j] = x;
                if x.is_some_and(|x| total > 0.0 && x / total * 100.0 >= min_percent) {
                    matters[i] = true;
                }
            }
        }
    }
    let mut functions: Vec<FunctionScaling> = names
        .iter()
        .zip(times)
        .zip(matters)
        .map(|((n, t), m)| scaling_of((*n).to_owned(), t, &nprocs, scaling, m))
        .collect();
    let largest = |f: &FunctionScaling| f.times.iter().flatten().copied().fold(0.0, f64::max);
    functions.sort_by(|a, b| {
        b.matters
            .cmp(&a.matters)
            .then_with(|| {
                if a.matters {
                    let w = |f: &FunctionScaling| f.worst.unwrap_or(f64::INFINITY);
                    w(a).total_cmp(&w(b))
                } else {
                    largest(b).total_cmp(&largest(a))
                }
            })
            .then_with(|| a.name.cmp(&b.name))
    });
    let total_times = runs
        .iter()
        .map(|r| {
            r.total.map(|t| match metric {
                CompareMetric::Max => t.max,
                _ => t.avg,
            })
        })
        .collect();
    Comparison {
        labels: runs.iter().map(|r| r.label.clone()).collect(),
        kinds: runs.iter().map(|r| r.kind).collect(),
        total: scaling_of("total".to_owned(), total_times, &nprocs, scaling, true),
        nprocs,
        metric,
        scaling,
        min_percent,
        functions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tinyprofiler::{Region, TimerTables};

    /// A run of 0 ranks (the first or a later one) has no efficiency.
    #[test]
    fn zero_ranks_give_no_efficiency() {
        let t = [Some(2.0), Some(1.0)];
        for n in [[Some(0), Some(2)], [Some(2), Some(0)]] {
            let (_, e) = ratios(&t, &n, Scaling::Strong);
            assert_eq!(e[1], None, "{n:?}");
        }
        let (_, e) = ratios(&t, &[Some(1), Some(2)], Scaling::Strong);
        assert_eq!(e[1], Some(1.0));
    }

    #[test]
    fn timer_tree_timers_by_name_recursion_once() {
        let mut t: CallTree<Timing> = CallTree::new();
        let set = |t: &mut CallTree<Timing>, path: &[&str], seconds: f64| {
            let id = t.node_at_path(path);
            t.node_mut(id).metrics = Timing { seconds, calls: 1 };
        };
        set(&mut t, &["main"], 10.0);
        set(&mut t, &["main", "solve"], 6.0);
        set(&mut t, &["main", "solve", "solve"], 2.0);
        set(&mut t, &["main", "io"], 1.0);
        let c = CompareInput::timer_tree("t".into(), &t);
        let get = |n: &str| c.timers.iter().find(|x| x.name == n).unwrap();
        assert_eq!(get("solve").inclusive_avg, Some(6.0));
        assert_eq!(get("solve").exclusive_avg, 4.0 + 2.0);
        assert_eq!(get("main").exclusive_avg, 3.0);
        assert_eq!(c.total.unwrap().max, 10.0);
        assert_eq!(c.nprocs, None);
    }

    #[test]
    fn flat_tree_has_timers_and_regions_as_roots() {
        let mut r = report(10.0, &[("main", 10.0), ("REG::io", 2.0), ("write", 1.5)]);
        r.nprocs = Some(2);
        r.regions.push(Region {
            name: "io".into(),
            tables: report(10.0, &[("REG::io", 2.0), ("write", 1.5)]).tables,
        });
        let (t, n) = flat_tree(&r);
        assert_eq!(n, 2);
        let roots: Vec<&str> = t
            .node(t.root())
            .children()
            .iter()
            .map(|&c| t.name(c))
            .collect();
        assert_eq!(roots, ["main", "REG::io", "write", "REGION io"]);
        let region = t.find_child(t.root(), "REGION io").unwrap();
        assert_eq!(t.node(region).metrics.total.inclusive, 4.0);
        let kids: Vec<&str> = t
            .node(region)
            .children()
            .iter()
            .map(|&c| t.name(c))
            .collect();
        assert_eq!(kids, ["write"]);
        let main = t.find_child(t.root(), "main").unwrap();
        assert_eq!(t.node(main).metrics.total.calls, 2);
    }

    fn report(total: f64, timers: &[(&str, f64)]) -> Report {
        let s = |x: f64| Spread {
            min: x,
            avg: x,
            max: x,
        };
        Report {
            line: 1,
            amrex_version: None,
            nprocs: None,
            total: s(total),
            tables: TimerTables {
                timers: timers
                    .iter()
                    .map(|&(n, x)| TimerRow {
                        name: n.to_owned(),
                        ncalls: 1,
                        exclusive: s(x / 2.0),
                        inclusive: s(x),
                        exclusive_percent: 0.0,
                        inclusive_percent: 0.0,
                    })
                    .collect(),
                other: None,
            },
            regions: Vec::new(),
            memory: Vec::new(),
        }
    }

    fn input(label: &str, nprocs: Option<u64>, r: &Report) -> CompareInput {
        CompareInput {
            nprocs,
            ..CompareInput::tinyprofiler(label.to_owned(), r)
        }
    }

    #[test]
    fn strong_and_weak_efficiency_and_order() {
        let a = report(
            10.0,
            &[("main", 10.0), ("solve", 8.0), ("io", 1.0), ("tiny", 0.01)],
        );
        let b = report(
            6.0,
            &[("main", 6.0), ("solve", 4.0), ("io", 1.0), ("tiny", 0.01)],
        );
        let runs = [input("a", Some(1), &a), input("b", Some(2), &b)];
        let c = compare(&runs, CompareMetric::Inclusive, Scaling::Strong, 1.0);
        let names: Vec<&str> = c.functions.iter().map(|f| f.name.as_str()).collect();
        // io scales worst (0.5), then main (10/12), then solve (1.0); tiny does not matter.
        assert_eq!(names, ["io", "main", "solve", "tiny"]);
        let main = &c.functions[1];
        assert_eq!(main.efficiency, [Some(1.0), Some(10.0 / 12.0)]);
        assert_eq!(main.speedup, [Some(1.0), Some(10.0 / 6.0)]);
        assert!(!c.functions[3].matters);
        let w = compare(&runs, CompareMetric::Exclusive, Scaling::Weak, 1.0);
        let solve = w.functions.iter().find(|f| f.name == "solve").unwrap();
        assert_eq!(solve.times, [Some(4.0), Some(2.0)]);
        assert_eq!(solve.efficiency, [Some(1.0), Some(2.0)]);
    }

    #[test]
    fn missing_functions_and_unknown_ranks_give_none() {
        let a = report(10.0, &[("main", 10.0)]);
        let b = report(6.0, &[("main", 0.0), ("new", 1.0)]);
        let runs = [input("a", Some(1), &a), input("b", None, &b)];
        let c = compare(&runs, CompareMetric::Inclusive, Scaling::Strong, 1.0);
        let new = c.functions.iter().find(|f| f.name == "new").unwrap();
        assert_eq!(new.times, [None, Some(1.0)]);
        assert_eq!(new.efficiency, [None, None]);
        let main = c.functions.iter().find(|f| f.name == "main").unwrap();
        assert_eq!(main.speedup, [Some(1.0), None]);
        assert_eq!(main.efficiency, [Some(1.0), None]);
    }
}
