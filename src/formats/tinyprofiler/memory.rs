//! The memory sections: `<Arena> Memory Usage:`, a rule, the header
//! (`Name Nalloc Nfree AvgMem MaxMem`, or with `min avg max` of each when
//! there is more than one rank), a rule, rows, a closing rule.

use std::path::Path;

use super::checks;
use super::lines::{Line, Lines, invalid, split_last};
use crate::error::Result;
use crate::model::tinyprofiler::{MemoryRow, MemoryTable, Spread};

/// The arena of a memory section's title line (`Cpu Memory Usage:` →
/// `Cpu`), when `line` is one.
pub(super) fn title(line: &Line) -> Option<String> {
    let t = line.text.trim();
    let arena = t.strip_suffix("Usage:")?.trim_end();
    let arena = arena.strip_suffix("Memory").unwrap_or(arena).trim_end();
    Some(arena.to_owned())
}

/// Reads the section whose title line `lines` is at.
pub(super) fn read_section(lines: &mut Lines, path: &Path) -> Result<MemoryTable> {
    let title_line = lines
        .next_line()
        .ok_or_else(|| invalid(path, lines.number(), "the log ends"))?;
    let arena = title(&title_line).unwrap_or_default();
    lines.expect_rule(path, "under the memory section's title")?;
    let header = lines.next_line().ok_or_else(|| {
        invalid(
            path,
            lines.number(),
            "the log ends where a memory table header should be",
        )
    })?;
    let h = &header.text;
    if !(h.starts_with("Name") && h.contains("Nalloc") && h.contains("MaxMem")) {
        return Err(invalid(
            path,
            header.number,
            "expected a memory table header (Name, Nalloc, Nfree, AvgMem, MaxMem)",
        ));
    }
    let one_rank = !h.contains("MaxMem max");
    lines.expect_rule(path, "under the memory table header")?;
    let mut rows = Vec::new();
    loop {
        let Some(line) = lines.next_line() else {
            return Err(invalid(
                path,
                lines.number(),
                "the log ends inside a memory table (no closing rule)",
            ));
        };
        if line.is_rule() {
            return Ok(MemoryTable {
                arena,
                one_rank,
                rows,
            });
        }
        rows.push(parse_row(&line, one_rank, path)?);
    }
}

/// `name nalloc nfree` and 2 or 6 sizes, from the right.
fn parse_row(line: &Line, one_rank: bool, path: &Path) -> Result<MemoryRow> {
    let bad = |what: &str| invalid(path, line.number, format!("not a memory row: {what}"));
    let mut rest: &str = &line.text;
    let mut sizes = [0u64; 6];
    let n = if one_rank { 2 } else { 6 };
    for slot in sizes[..n].iter_mut().rev() {
        let (r, unit) = split_last(rest).ok_or_else(|| bad("too few columns"))?;
        let (r, value) = split_last(r).ok_or_else(|| bad("too few columns"))?;
        *slot =
            bytes(value, unit).ok_or_else(|| bad(&format!("'{value} {unit}' is not a size")))?;
        rest = r;
    }
    let mut count = || -> Result<u64> {
        let (r, word) = split_last(rest).ok_or_else(|| bad("too few columns"))?;
        rest = r;
        word.parse::<u64>()
            .map_err(|_| bad(&format!("'{word}' is not a count")))
    };
    let nfree = count()?;
    let nalloc = count()?;
    let name = rest.trim();
    if name.is_empty() {
        return Err(bad("no name"));
    }
    let spread = |s: &[u64]| match s {
        [v] => Spread {
            min: *v,
            avg: *v,
            max: *v,
        },
        [min, avg, max] => Spread {
            min: *min,
            avg: *avg,
            max: *max,
        },
        _ => Spread::default(),
    };
    let (avg_mem, max_mem) = if one_rank {
        (spread(&sizes[0..1]), spread(&sizes[1..2]))
    } else {
        (spread(&sizes[0..3]), spread(&sizes[3..6]))
    };
    checks::sizes(path, line.number, &format!("AvgMem of {name}"), avg_mem)?;
    checks::sizes(path, line.number, &format!("MaxMem of {name}"), max_mem)?;
    Ok(MemoryRow {
        name: name.to_owned(),
        nalloc,
        nfree,
        avg_mem,
        max_mem,
    })
}

/// A printed size in bytes: the value times its unit (`B`, `KiB`, `MiB`,
/// `GiB`, `TiB`); `None` when it is none or overflows.
pub(super) fn bytes(value: &str, unit: &str) -> Option<u64> {
    let shift = match unit {
        "B" => 0,
        "KiB" => 10,
        "MiB" => 20,
        "GiB" => 30,
        "TiB" => 40,
        "PiB" => 50,
        _ => return None,
    };
    let v: u64 = value.parse().ok()?;
    v.checked_mul(1u64 << shift)
}
