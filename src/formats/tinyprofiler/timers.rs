//! The timer tables: a rule, the header (`Name NCalls Excl. Min …` or
//! `… Incl. Min …`), a rule, one row per timer, a closing rule; and the
//! exclusive and inclusive tables joined by timer name.

use std::collections::HashMap;
use std::path::Path;

use super::checks;
use super::lines::{Line, Lines, invalid, split_last};
use crate::error::Result;
use crate::model::tinyprofiler::{Spread, TimerRow, TimerTables};

/// Which figure a table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Exclusive,
    Inclusive,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Exclusive => "exclusive",
            Kind::Inclusive => "inclusive",
        }
    }
}

/// One printed row.
struct Row {
    line: usize,
    name: String,
    ncalls: u64,
    times: Spread<f64>,
    percent: f64,
}

/// The name of the folded row.
pub(super) const OTHER: &str = "Other";

/// Whether `line` is the header row of a timer table.
pub(super) fn is_header(line: &Line) -> bool {
    let t = &line.text;
    t.starts_with("Name")
        && t.contains("NCalls")
        && (t.contains("Excl. Min") || t.contains("Incl. Min"))
}

/// Reads the exclusive table and then the inclusive table (blank lines
/// before each), and joins them.
pub(super) fn read_tables(lines: &mut Lines, path: &Path) -> Result<TimerTables> {
    let (k1, excl) = read_table(lines, path)?;
    let (k2, incl) = read_table(lines, path)?;
    if (k1, k2) != (Kind::Exclusive, Kind::Inclusive) {
        return Err(invalid(
            path,
            lines.number().saturating_sub(1),
            format!(
                "expected the exclusive table and then the inclusive one, found the {} and then the {}",
                k1.name(),
                k2.name()
            ),
        ));
    }
    join(excl, incl, path)
}

/// Reads one table, after any blank lines.
fn read_table(lines: &mut Lines, path: &Path) -> Result<(Kind, Vec<Row>)> {
    let start = lines.skip_blank();
    let Some(start) = start else {
        return Err(invalid(
            path,
            lines.number(),
            "the log ends where a timer table should be",
        ));
    };
    if !start.is_rule() {
        return Err(invalid(
            path,
            start.number,
            "expected a timer table (a rule of '-')",
        ));
    }
    lines.next_raw();
    let header = lines.next_line().ok_or_else(|| {
        invalid(
            path,
            lines.number(),
            "the log ends where a table header should be",
        )
    })?;
    let kind = if !is_header(&header) {
        return Err(invalid(
            path,
            header.number,
            "expected a timer table header (Name, NCalls, Excl./Incl. Min, Avg, Max, Max %)",
        ));
    } else if header.text.contains("Excl. Min") {
        Kind::Exclusive
    } else {
        Kind::Inclusive
    };
    lines.expect_rule(path, "under the table header")?;
    let mut rows = Vec::new();
    loop {
        let Some(line) = lines.next_line() else {
            return Err(invalid(
                path,
                lines.number(),
                "the log ends inside a timer table (no closing rule)",
            ));
        };
        if line.is_rule() {
            return Ok((kind, rows));
        }
        rows.push(parse_row(&line, path)?);
    }
}

/// `name  ncalls  min  avg  max  pct%`: the numbers are taken from the
/// right, since a name may hold blanks.
fn parse_row(line: &Line, path: &Path) -> Result<Row> {
    let bad = |what: &str| invalid(path, line.number, format!("not a timer row: {what}"));
    let (rest, pct) = split_last(&line.text).ok_or_else(|| bad("blank line"))?;
    let percent = pct
        .strip_suffix('%')
        .and_then(|p| p.parse::<f64>().ok())
        .ok_or_else(|| bad(&format!("'{pct}' is not a percentage")))?;
    let mut rest = rest;
    let mut nums = [0.0f64; 3];
    for slot in nums.iter_mut().rev() {
        let (r, word) = split_last(rest).ok_or_else(|| bad("too few columns"))?;
        *slot = word
            .parse::<f64>()
            .map_err(|_| bad(&format!("'{word}' is not a number of seconds")))?;
        rest = r;
    }
    let (rest, calls) = split_last(rest).ok_or_else(|| bad("too few columns"))?;
    let ncalls = calls
        .parse::<u64>()
        .map_err(|_| bad(&format!("'{calls}' is not a number of calls")))?;
    let name = rest.trim();
    if name.is_empty() {
        return Err(bad("no name"));
    }
    let times = Spread {
        min: nums[0],
        avg: nums[1],
        max: nums[2],
    };
    checks::times(path, line.number, &format!("the times of {name}"), times)?;
    checks::percent(path, line.number, percent)?;
    Ok(Row {
        line: line.number,
        name: name.to_owned(),
        ncalls,
        times,
        percent,
    })
}

/// Joins the rows of the two tables by name, in the exclusive table's
/// order; a name printed in one table only is an error at its row. The
/// exclusive table's last row, when named `Other`, is the folded row.
fn join(excl: Vec<Row>, incl: Vec<Row>, path: &Path) -> Result<TimerTables> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in incl.iter().enumerate().rev() {
        by_name.entry(r.name.as_str()).or_default().push(i);
    }
    let mut used = vec![false; incl.len()];
    let mut timers = Vec::with_capacity(excl.len());
    for e in &excl {
        let Some(i) = by_name.get_mut(e.name.as_str()).and_then(Vec::pop) else {
            return Err(invalid(
                path,
                e.line,
                format!(
                    "'{}' is in the exclusive table but not in the inclusive one",
                    e.name
                ),
            ));
        };
        used[i] = true;
        let n = &incl[i];
        timers.push(TimerRow {
            name: e.name.clone(),
            ncalls: e.ncalls,
            exclusive: e.times,
            inclusive: n.times,
            exclusive_percent: e.percent,
            inclusive_percent: n.percent,
        });
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(invalid(
            path,
            incl[i].line,
            format!(
                "'{}' is in the inclusive table but not in the exclusive one",
                incl[i].name
            ),
        ));
    }
    let other = if excl.last().is_some_and(|r| r.name == OTHER) {
        timers.pop()
    } else {
        None
    };
    Ok(TimerTables { timers, other })
}
