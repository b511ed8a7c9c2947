//! amrprofparser's text layout of the `-ws`/`-wts` statistics report
//! (BLPROF_FORMAT.md §8.3), for users whose scripts read it.
//!
//! Differences on purpose: the Avg-ordered table lists every function (the
//! reference keeps only the first of several with an identical Avg), and
//! `MaxCallStackDepth` is printed only when a trace was scanned.

use std::io::{self, Write};

use crate::analysis::function_stats::{FunctionSummary, SortKey};
use crate::report::numfmt::human::fixed;
use crate::report::numfmt::printf::right;

/// The reference's display form of a function name: spaces become `_`.
pub fn reference_name(name: &str) -> String {
    // Shortened past 1,000 bytes as in every table for people: each row is
    // padded to the longest name.
    crate::report::document::shortened_cell(name).replace(' ', "_")
}

/// Writes both tables (by name, by Avg descending) and the totals.
/// `max_depth` and `recursive` come from a trace scan (`-wts`); `None` for `-ws`.
pub fn write_stats_report(
    w: &mut dyn Write,
    s: &FunctionSummary,
    trace: Option<(usize, &[String])>,
) -> io::Result<()> {
    let names: Vec<String> = s
        .functions
        .iter()
        .map(|f| reference_name(&f.name))
        .collect();
    let m = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let width = m + 88;
    let header = format!(
        "{}{}{}{}{}{}{}{}",
        right("Function Name", m + 2),
        right("NCalls", 12),
        right("Min", 12),
        right("Avg", 12),
        right("Max", 12),
        right("StdDev", 12),
        right("CoeffVar", 12),
        right("Percent %", 14)
    );
    // Filled by hand: a format width panics past 65,535 (a long name).
    let rule = fill("Total times ", '-', width);
    let row = |w: &mut dyn Write, i: usize| -> io::Result<()> {
        let f = &s.functions[i];
        write!(
            w,
            "{}  {}",
            right(&names[i], m + 2),
            right(&f.ncalls.to_string(), 10)
        )?;
        for v in [f.min, f.avg, f.max, f.stddev, f.coeff_var] {
            write!(w, "  {}", right(&fixed(v, 4), 10))?;
        }
        writeln!(w, "  {} %", right(&fixed(f.percent, 2), 10))
    };
    // The reference leaves the stream in fixed-2 after the rows, %g without rows.
    let total = |v: f64| {
        if s.functions.is_empty() {
            right(&format!("{v}"), 10)
        } else {
            right(&fixed(v, 2), 10)
        }
    };

    writeln!(w, "\n\n{rule}\n{header}")?;
    for i in 0..s.functions.len() {
        row(w, i)?;
    }
    writeln!(w)?;
    writeln!(w, "Total Timers     = {} seconds.", total(s.total_timers))?;
    if let Some(r) = s.run_time.filter(|&r| r > 0.0) {
        writeln!(w, "Calc Run Time    = {} seconds.", total(r))?;
        writeln!(
            w,
            "Percent Coverage = {} %",
            total(100.0 * s.total_timers / r)
        )?;
    }
    writeln!(w, "\n\n{rule}\n{header}")?;
    for i in SortKey::Avg.order(&s.functions) {
        row(w, i)?;
    }
    writeln!(w, "{}\n", fill("", '=', width))?;
    if let Some((depth, recursive)) = trace {
        writeln!(w, " MaxCallStackDepth = {depth}")?;
        for r in recursive {
            writeln!(w, " Recursive function:  {r}")?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// The `-wts` "Inclusive times" section; `m` is the longest function name
/// of the report (its column width).
pub fn write_inclusive(w: &mut dyn Write, m: usize, inclusive: &[(String, f64)]) -> io::Result<()> {
    let width = m + 16;
    writeln!(w, "\n\n{}", fill("Inclusive times ", '-', width))?;
    writeln!(
        w,
        "{}{}",
        right("Function Name", m + 2),
        right("Time s", 14)
    )?;
    for (name, t) in inclusive {
        writeln!(
            w,
            "{}  {} s",
            right(&reference_name(name), m + 2),
            right(&fixed(*t, 4), 10)
        )?;
    }
    writeln!(w, "{}\n", fill("", '=', width))
}

/// Width of the function-name column of a report on `names`.
pub fn name_width<'a>(names: impl IntoIterator<Item = &'a str>) -> usize {
    names
        .into_iter()
        .map(|n| reference_name(n).len())
        .max()
        .unwrap_or(0)
}

/// `text` followed by `c` up to `width` characters.
fn fill(text: &str, c: char, width: usize) -> String {
    let mut s = text.to_owned();
    s.extend(std::iter::repeat_n(
        c,
        width.saturating_sub(text.chars().count()),
    ));
    s
}
