//! Renderers of a `regress` comparison ([`crate::analysis::regress`]): a
//! table for people, JSON (docs/JSON.md, `regress`), a Markdown comment
//! for a pull request ([`markdown`]) and JUnit XML for CI dashboards
//! ([`junit`]). The numbers of every format are written by the helpers
//! here, so the formats agree.

mod junit;
mod markdown;

use std::io;

use serde::Serialize;

use crate::analysis::regress::verdict::{Evidence, Verdict, runs_for_significance};
use crate::analysis::regress::{Regress, TimerResult};
use crate::analysis::regress::samples::Key;
use crate::report::document::{Column, Document, Table};
use crate::report::layout::call_path;
use crate::report::numfmt::human::{duration, fixed_not_zero};
use crate::report::numfmt::printf::c_g;
use crate::report::{Format, Report, not_offered};

/// Everything a regress report shows.
#[derive(Debug, Clone)]
pub struct RegressReport {
    /// The input kind (`tinyprofiler`, `blprof`, …).
    pub kind: &'static str,
    /// The base runs as given.
    pub base: Vec<String>,
    /// The new runs as given.
    pub new: Vec<String>,
    /// The comparison.
    pub regress: Regress,
    /// Tables list unchanged timers too.
    pub all: bool,
    /// Listed in the JSON.
    pub warnings: Vec<String>,
}

/// A relative change in percent with its sign (`+3.1 %`).
pub(crate) fn percent(x: f64) -> String {
    let s = fixed_not_zero(100.0 * x, 1);
    if x > 0.0 { format!("+{s} %") } else { format!("{s} %") }
}

/// A change, or `new` when the base is 0 s.
pub(crate) fn change_text(t: &TimerResult) -> String {
    match t.change {
        Some(c) => percent(c),
        None if t.new_median > 0.0 => "new".to_owned(),
        None => "-".to_owned(),
    }
}

/// The 95 % interval, or `-` when the runs are too few for one.
pub(crate) fn ci_text(t: &TimerResult) -> String {
    match t.ci {
        Some((lo, hi)) => format!("{} … {}", percent(lo), percent(hi)),
        None => "-".to_owned(),
    }
}

/// A p- or q-value with two significant digits, `-` when there is none.
pub(crate) fn prob(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |x| c_g(x, 2))
}

/// A median time for people.
pub(crate) fn seconds(x: f64) -> String {
    duration(x).trim_end().to_owned()
}

/// The verdict in words, with the runs a noisy one needs.
pub(crate) fn verdict_text(t: &TimerResult) -> String {
    match (t.verdict, t.runs_needed) {
        (Verdict::Noisy, Some(n)) => format!("too noisy to tell (~{n} runs per side)"),
        (v, _) => v.text().to_owned(),
    }
}

/// The timer's name, or its path joined for one line.
pub(crate) fn name(t: &TimerResult) -> String {
    t.path.join(" > ")
}

impl RegressReport {
    /// The timers a table for people lists: all with `--all`, else those
    /// that are not unchanged.
    pub(crate) fn listed(&self) -> impl Iterator<Item = &TimerResult> {
        self.regress
            .timers
            .iter()
            .filter(|t| self.all || t.verdict != Verdict::Unchanged)
    }

    /// One line: how many timers got each verdict.
    pub(crate) fn tally(&self) -> String {
        let [slower, faster, noisy, unchanged] = self.regress.counts();
        format!(
            "{slower} slower, {faster} faster, {noisy} too noisy to tell, {unchanged} unchanged"
        )
    }

    /// What the comparison is of, in one sentence.
    pub(crate) fn heading(&self) -> String {
        let r = &self.regress;
        let o = &r.options;
        format!(
            "{} base run(s) vs {} new run(s) ({}), {} seconds per timer {}; noise floor {}, alpha {}.",
            r.base_runs,
            r.new_runs,
            self.kind,
            o.metric.name(),
            match o.key {
                Key::Name => "name",
                Key::Path => "call path",
            },
            percent(o.thresholds.min_change).trim_start_matches('+'),
            c_g(o.thresholds.alpha, 3),
        )
    }

    /// What limits the verdicts, for people: one run per side, groups too
    /// small for significance, runs left out as outliers.
    pub(crate) fn caveats(&self) -> Vec<String> {
        let r = &self.regress;
        let mut out = Vec::new();
        let enough = || runs_for_significance(r.options.thresholds.alpha, r.timers.len());
        match r.evidence {
            Evidence::Processes => out.push(format!(
                "One run per side: run-to-run noise is unknown. p, q and the interval compare \
                 the two runs' processes, which shows how steady each run was, not whether the \
                 code changed, so nothing is called slower or faster. Run each side {} or more \
                 times for a verdict.",
                enough()
            )),
            Evidence::None => out.push(format!(
                "One run per side: run-to-run noise is unknown and this input has no \
                 per-process values, so there is no p, no interval, and nothing is called \
                 slower or faster. Run each side {} or more times for a verdict.",
                enough()
            )),
            Evidence::Runs => {
                let alpha = r.options.thresholds.alpha;
                let timers = r.timers.len();
                let lone = alpha / timers.max(1) as f64;
                if r.min_p >= alpha {
                    out.push(format!(
                        "With {} vs {} runs the smallest p the test can give is {}: nothing can \
                         be significant at alpha {}. Use 4 or more runs per side.",
                        r.base_runs - r.outliers[0].len(),
                        r.new_runs - r.outliers[1].len(),
                        c_g(r.min_p, 2),
                        c_g(alpha, 3)
                    ));
                } else if r.min_p > lone {
                    out.push(format!(
                        "With {timers} timers compared, one changed timer is significant only at \
                         p ≤ {} (alpha / timers), below the smallest p of {} vs {} runs ({}): \
                         a lone change shows as too noisy to tell. Use {} or more runs per side.",
                        c_g(lone, 2),
                        r.base_runs - r.outliers[0].len(),
                        r.new_runs - r.outliers[1].len(),
                        c_g(r.min_p, 2),
                        runs_for_significance(alpha, timers)
                    ));
                }
            }
        }
        for (group, runs, paths) in [
            ("base", &r.outliers[0], &self.base),
            ("new", &r.outliers[1], &self.new),
        ] {
            for o in runs {
                out.push(format!(
                    "Left out: {group} run {} ({}), an outlier run: all its timers {} against the other {group} runs.",
                    o.index + 1,
                    paths.get(o.index).map_or("?", String::as_str),
                    percent(o.factor)
                ));
            }
        }
        out
    }
}

/// The JSON wire value (docs/JSON.md, `regress`).
#[derive(Serialize)]
pub struct Wire<'a> {
    kind: &'static str,
    metric: &'static str,
    by: &'static str,
    min_change: f64,
    alpha: f64,
    evidence: Evidence,
    runs: Runs<'a>,
    outliers: Vec<OutlierWire<'a>>,
    summary: Summary,
    timers: Vec<TimerWire<'a>>,
    warnings: &'a [String],
}

#[derive(Serialize)]
struct Runs<'a> {
    base: &'a [String],
    new: &'a [String],
}

#[derive(Serialize)]
struct OutlierWire<'a> {
    group: &'static str,
    path: &'a str,
    factor: f64,
}

#[derive(Serialize)]
struct Summary {
    slower: usize,
    faster: usize,
    noisy: usize,
    unchanged: usize,
}

#[derive(Serialize)]
struct TimerWire<'a> {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a [String]>,
    base_median: f64,
    new_median: f64,
    change: Option<f64>,
    ci_low: Option<f64>,
    ci_high: Option<f64>,
    p: Option<f64>,
    q: Option<f64>,
    verdict: Verdict,
    runs_needed: Option<usize>,
}

impl Report for RegressReport {
    type Wire<'a> = Wire<'a>;

    fn wire(&self) -> Wire<'_> {
        let r = &self.regress;
        let o = &r.options;
        let [slower, faster, noisy, unchanged] = r.counts();
        let outliers = [("base", &r.outliers[0], &self.base), ("new", &r.outliers[1], &self.new)]
            .into_iter()
            .flat_map(|(group, runs, paths)| {
                runs.iter().map(move |o| OutlierWire {
                    group,
                    path: paths.get(o.index).map_or("", String::as_str),
                    factor: o.factor,
                })
            })
            .collect();
        Wire {
            kind: self.kind,
            metric: o.metric.name(),
            by: match o.key {
                Key::Name => "name",
                Key::Path => "path",
            },
            min_change: o.thresholds.min_change,
            alpha: o.thresholds.alpha,
            evidence: r.evidence,
            runs: Runs {
                base: &self.base,
                new: &self.new,
            },
            outliers,
            summary: Summary {
                slower,
                faster,
                noisy,
                unchanged,
            },
            timers: r
                .timers
                .iter()
                .map(|t| TimerWire {
                    name: name(t),
                    path: (o.key == Key::Path).then_some(t.path.as_slice()),
                    base_median: t.base_median,
                    new_median: t.new_median,
                    change: t.change,
                    ci_low: t.ci.map(|c| c.0),
                    ci_high: t.ci.map(|c| c.1),
                    p: t.p,
                    q: t.q,
                    verdict: t.verdict,
                    runs_needed: t.runs_needed,
                })
                .collect(),
            warnings: &self.warnings,
        }
    }

    fn document(&self) -> Document<'_> {
        let mut doc = Document::new();
        doc.prose(self.heading());
        for c in self.caveats() {
            doc.prose(c);
        }
        doc.line("");
        let listed: Vec<&TimerResult> = self.listed().collect();
        if !listed.is_empty() {
            let columns = vec![
                Column::path(
                    match self.regress.options.key {
                        Key::Name => "Timer",
                        Key::Path => "Call path",
                    },
                    0,
                ),
                Column::right("Base", 9).after("  "),
                Column::right("New", 9).after("  "),
                Column::right("Change", 8).after("  "),
                Column::right("95 % CI", 17).after("  ").droppable(2),
                Column::right("p", 7).after("  ").droppable(1),
                Column::right("q", 7).after("  ").droppable(1),
                Column::left("Verdict", 7).after("  ").whole(),
                Column::right("Runs needed", 11).after("  ").droppable(3),
            ];
            let rows = listed.into_iter().map(|t| {
                vec![
                    call_path::cell(&t.path),
                    seconds(t.base_median),
                    seconds(t.new_median),
                    change_text(t),
                    ci_text(t),
                    prob(t.p),
                    prob(t.q),
                    t.verdict.text().to_owned(),
                    t.runs_needed.map_or_else(String::new, |n| format!("~{n} a side")),
                ]
            });
            doc.table(Table::new(columns, rows));
            doc.line("");
        }
        let hidden = if self.all {
            String::new()
        } else {
            " (unchanged timers not listed; --all lists them)".to_owned()
        };
        doc.prose(format!("{}{hidden}.", self.tally()));
        doc
    }

    fn write_other(&self, format: Format, w: &mut dyn io::Write) -> io::Result<()> {
        match format {
            Format::Markdown => markdown::write(self, w),
            Format::Junit => junit::write(self, w),
            _ => Err(not_offered(format)),
        }
    }
}
