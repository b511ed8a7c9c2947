//! Region selection shared by every trace-based report (BLPROF_FORMAT.md §7.3).
//!
//! Per process, start from everything (`[first, last]` region record of
//! the whole database) or from nothing; union in the ranges of every
//! included region; then cut out the ranges of every excluded region.
//! Includes are always applied before excludes.

use std::path::Path;

use super::ranges::{RangeList, TimeRange};
use super::regions::Regions;
use crate::error::{Error, Location, Result, Warning};
use crate::formats::blprof::header::{HeaderLine, LineError, numbered_lines, parse_line};

/// A region named by number, exact name, or glob pattern on names.
#[derive(Debug, Clone, PartialEq)]
pub enum RegionSel {
    Number(i32),
    Name(String),
}

/// Which regions a report looks at.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionFilter {
    /// Every region is selected before the exclusions (no `include`, or
    /// "all" named).
    pub include_all: bool,
    /// Regions selected.
    pub include: Vec<RegionSel>,
    /// Regions left out (after the inclusions).
    pub exclude: Vec<RegionSel>,
}

impl Default for RegionFilter {
    fn default() -> Self {
        RegionFilter {
            include_all: true,
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }
}

impl RegionFilter {
    /// From `--include-region`/`--exclude-region`: with includes, only they
    /// are selected; with only excludes, everything but them.
    pub fn from_names(include: &[String], exclude: &[String]) -> Self {
        RegionFilter {
            include_all: include.is_empty(),
            include: include.iter().map(|n| RegionSel::Name(n.clone())).collect(),
            exclude: exclude.iter().map(|n| RegionSel::Name(n.clone())).collect(),
        }
    }

    /// True when the filter selects everything (no filtering).
    /// The filter of a RegionFilters file (if any) with the regions named
    /// on the command line added: `include` names only count with a file
    /// (without one they make the filter, see [`Self::from_names`]);
    /// `exclude` names always add.
    pub fn with_names(file: Option<RegionFilter>, include: &[String], exclude: &[String]) -> Self {
        let mut f = match file {
            Some(mut f) => {
                f.include
                    .extend(include.iter().map(|n| RegionSel::Name(n.clone())));
                f
            }
            None => RegionFilter::from_names(include, &[]),
        };
        f.exclude
            .extend(exclude.iter().map(|n| RegionSel::Name(n.clone())));
        f
    }

    /// Whether it selects every call (nothing included by name, nothing
    /// excluded).
    pub fn is_everything(&self) -> bool {
        self.include_all && self.exclude.is_empty()
    }

    /// Adds the rules of an amrprofparser `RegionFilters` file: `__IncludeAll__`,
    /// `__IncludeNone__`, `+ "name" n`, `- "name" n`, `: "name" n` (no effect),
    /// `#`/`//` comments. Regions are chosen by number, as the reference does.
    pub fn parse_filter_file(text: &str, path: &Path, warnings: &mut Vec<Warning>) -> Result<Self> {
        let mut f = RegionFilter::default();
        for (n, line) in numbered_lines(text) {
            let number = |v: i64| {
                i32::try_from(v).map_err(|_| {
                    Error::syntax(
                        Location::line(path, n),
                        format!("region number {v} is out of range"),
                    )
                })
            };
            match parse_line(line) {
                Ok(p) => match p.line {
                    HeaderLine::IncludeAll => f.include_all = true,
                    HeaderLine::IncludeNone => f.include_all = false,
                    HeaderLine::FilterInclude { number: v, .. } => {
                        f.include.push(RegionSel::Number(number(v)?))
                    }
                    HeaderLine::FilterExclude { number: v, .. } => {
                        f.exclude.push(RegionSel::Number(number(v)?))
                    }
                    HeaderLine::FilterPlaceholder { .. } | HeaderLine::Comment => {}
                    _ => warnings.push(Warning::new(
                        Location::line(path, n),
                        "not a region filter line; ignored",
                    )),
                },
                Err(LineError::Malformed { expected, .. }) => {
                    return Err(Error::syntax(
                        Location::line(path, n),
                        format!("malformed filter line (expected `{expected}`): {line:?}"),
                    ));
                }
                Err(LineError::Unknown) => {
                    return Err(Error::syntax(
                        Location::line(path, n),
                        format!(
                            "not a region filter line: {line:?} (expected `+|-|: \"<name>\" <number>`, __IncludeAll__, __IncludeNone__ or a comment)"
                        ),
                    ));
                }
            }
        }
        Ok(f)
    }

    /// Region numbers a selector stands for; names and globs must match.
    fn resolve(sel: &RegionSel, regions: &Regions) -> Result<Vec<i32>> {
        match sel {
            RegionSel::Number(n) => Ok(vec![*n]),
            RegionSel::Name(pat) => {
                let glob = glob::Pattern::new(pat)
                    .map_err(|e| Error::NotFound(format!("bad region pattern {pat:?}: {e}")))?;
                let found: Vec<i32> = regions
                    .names
                    .iter()
                    .filter(|(_, name)| *name == pat || glob.matches(name))
                    .map(|(n, _)| *n)
                    .collect();
                if found.is_empty() {
                    let known: Vec<&str> = regions.names.values().map(String::as_str).collect();
                    return Err(Error::NotFound(format!(
                        "no region matches {pat:?}; regions: {}",
                        known.join(", ")
                    )));
                }
                Ok(found)
            }
        }
    }

    /// The selected time ranges of every process (same order as `regions.procs`).
    pub fn time_ranges(&self, regions: &Regions) -> Result<Vec<RangeList>> {
        let mut include = Vec::new();
        for s in &self.include {
            include.extend(Self::resolve(s, regions)?);
        }
        include.sort_unstable();
        include.dedup();
        let mut exclude = Vec::new();
        for s in &self.exclude {
            exclude.extend(Self::resolve(s, regions)?);
        }
        exclude.sort_unstable();
        exclude.dedup();
        Ok(regions
            .procs
            .iter()
            .map(|p| {
                let ranges_of = |numbers: &[i32]| {
                    RangeList::union_of(
                        numbers
                            .iter()
                            .flat_map(|n| p.ranges.get(n).into_iter().flatten().copied())
                            .collect(),
                    )
                };
                let mut list = RangeList::new();
                if self.include_all
                    && let Some((a, b)) = regions.span
                {
                    list.add(TimeRange::new(a, b));
                }
                list.add_all(&ranges_of(&include));
                list.subtract_all(&ranges_of(&exclude));
                list
            })
            .collect())
    }
}

/// A filter as the JSON outputs name it (`region_filter`, docs/JSON.md):
/// regions by name or, from a RegionFilters file, by number.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FilterNames {
    pub include_all: bool,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

impl From<&RegionFilter> for FilterNames {
    fn from(f: &RegionFilter) -> Self {
        let s = |v: &[RegionSel]| {
            v.iter()
                .map(|r| match r {
                    RegionSel::Number(n) => n.to_string(),
                    RegionSel::Name(n) => n.clone(),
                })
                .collect()
        };
        FilterNames {
            include_all: f.include_all,
            include: s(&f.include),
            exclude: s(&f.exclude),
        }
    }
}

/// Writes a `RegionFilters` template listing every region (the reference's
/// `-mff` intends this but writes no region lines).
pub fn write_filter_file(w: &mut dyn std::io::Write, regions: &Regions) -> std::io::Result<()> {
    writeln!(w, "__IncludeAll__")?;
    writeln!(w, "//__IncludeNone__")?;
    for n in regions.numbers() {
        writeln!(w, ": \"{}\" {n}", regions.name(n))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::regions::ProcRegions;

    fn regions() -> Regions {
        let p = ProcRegions::pair(
            0,
            [
                (0.0, 0, true),
                (1.0, 0, false),
                (1.0, 1, true),
                (2.0, 2, true),
                (3.0, 2, false),
                (4.0, 1, false),
                (4.0, 0, true),
                (5.0, 0, false),
            ],
        );
        let mut r = Regions {
            span: p.time_span,
            procs: vec![p],
            ..Default::default()
        };
        r.names.insert(0, "__NoRegion__".into());
        r.names.insert(1, "R::Step".into());
        r.names.insert(2, "R::Comm".into());
        r
    }

    fn ranges(f: &RegionFilter) -> Vec<(f64, f64)> {
        f.time_ranges(&regions()).unwrap()[0]
            .ranges()
            .iter()
            .map(|r| (r.start, r.stop))
            .collect()
    }

    #[test]
    fn filter_file_semantics() {
        let mut w = Vec::new();
        let text = "# comment\n__IncludeAll__\n- \"R::Comm\" 2\n: \"R::Step\" 1\n// x\n";
        let f = RegionFilter::parse_filter_file(text, Path::new("F"), &mut w).unwrap();
        assert!(w.is_empty());
        assert_eq!(ranges(&f), vec![(0.0, 2.0), (3.0, 5.0)]);
        let text = "__IncludeNone__\n+ \"R::Comm\" 2\n";
        let f = RegionFilter::parse_filter_file(text, Path::new("F"), &mut w).unwrap();
        assert_eq!(ranges(&f), vec![(2.0, 3.0)]);
        // Includes are applied before excludes, whatever the order in the file.
        let text = "__IncludeNone__\n- \"R::Comm\" 2\n+ \"R::Step\" 1\n";
        let f = RegionFilter::parse_filter_file(text, Path::new("F"), &mut w).unwrap();
        assert_eq!(ranges(&f), vec![(1.0, 2.0), (3.0, 4.0)]);
        let e =
            RegionFilter::parse_filter_file("+ R::Comm 2\n", Path::new("F"), &mut w).unwrap_err();
        assert!(e.to_string().starts_with("F:1:"), "{e}");
    }

    #[test]
    fn names_and_globs() {
        let f = RegionFilter::from_names(&["R::*".into()], &["R::Comm".into()]);
        assert_eq!(ranges(&f), vec![(1.0, 2.0), (3.0, 4.0)]);
        let f = RegionFilter::from_names(&[], &["R::Step".into()]);
        assert_eq!(ranges(&f), vec![(0.0, 1.0), (4.0, 5.0)]);
        assert!(RegionFilter::default().is_everything());
        let e = RegionFilter::from_names(&["Nope".into()], &[])
            .time_ranges(&regions())
            .unwrap_err();
        assert!(e.to_string().contains("R::Comm"), "{e}");
    }

    #[test]
    fn template_lists_every_region() {
        let mut out = Vec::new();
        write_filter_file(&mut out, &regions()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "__IncludeAll__\n//__IncludeNone__\n: \"__NoRegion__\" 0\n: \"R::Step\" 1\n: \"R::Comm\" 2\n"
        );
    }
}
