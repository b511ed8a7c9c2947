//! Human-readable tables (comfy-table), fitted to the output's width by the
//! text renderer (names shortened in the middle, columns dropped), never
//! wrapped.

use std::io::{self, Write};

use comfy_table::{
    CellAlignment, ColumnConstraint, ContentArrangement, LineStyle, Table, TableStyle as Style,
};

use crate::report::document::{FitRule, MAX_CELL_BYTES, shortened_cell};
use crate::report::layout::fit::{FitColumn, fit, middle_ellipsis};

/// How tables are laid out.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableStyle {
    /// Output goes to a terminal: fit its width.
    pub terminal: bool,
    /// Show every column (process numbers, total calls).
    pub wide: bool,
}

/// Only a rule under the header: dense, readable, and easy to grep.
const STYLE: Style = Style::new().header_separator(LineStyle::none().fill('─').junction(' '));

pub(crate) fn new_table(header: Vec<&str>) -> Table {
    let mut t = Table::new();
    t.load_style(STYLE);
    // Never wrapped: the text renderer fits the table to the width itself
    // (shortened names, dropped columns), so one row stays one line.
    t.force_no_tty();
    t.set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(header);
    t
}

/// `t` as it is written within `width`: cells over [`MAX_CELL_BYTES`]
/// shortened, and when the table is too wide, its names shortened in the
/// middle and columns dropped by `rule` (a copy; only when something
/// changes, so a normal table is written as built).
fn laid_out(t: &Table, rule: &FitRule, width: Option<usize>) -> Option<Table> {
    // The widest cell of each column, in one pass over the rows.
    let mut widest: Vec<usize> = Vec::new();
    for row in t.header().into_iter().chain(t.row_iter()) {
        for (i, c) in row.cell_iter().enumerate() {
            let w = shortened_cell(&c.content()).chars().count();
            if i >= widest.len() {
                widest.resize(i + 1, 0);
            }
            widest[i] = widest[i].max(w);
        }
    }
    let n = widest.len();
    let columns: Vec<FitColumn> = widest
        .iter()
        .enumerate()
        .map(|(i, &content)| {
            let padding = t.column(i).map_or(0, |c| usize::from(c.padding_width()));
            FitColumn {
                width: content + padding,
                // The (blank) column separator of the style.
                gap: usize::from(i > 0),
                drop_rank: rule.drop_ranks.get(i).copied().unwrap_or(0),
                shrink: rule.shrink == Some(i),
            }
        })
        .collect();
    let layout = fit(&columns, width);
    let long = |r: &comfy_table::Row| r.cell_iter().any(|c| c.content().len() > MAX_CELL_BYTES);
    if !layout.changes_anything() && !t.header().is_some_and(long) && !t.row_iter().any(long) {
        return None;
    }
    // The most characters of each column's cells (its limit less padding).
    let limits: Vec<usize> = (0..n)
        .map(|i| match layout.limit[i] {
            usize::MAX => usize::MAX,
            l => l.saturating_sub(t.column(i).map_or(0, |c| usize::from(c.padding_width()))),
        })
        .collect();
    let short = |r: &comfy_table::Row| -> Vec<String> {
        r.cell_iter()
            .enumerate()
            .map(|(i, c)| {
                let text = c.content();
                let text = shortened_cell(&text);
                if limits[i] != usize::MAX {
                    middle_ellipsis(&text, limits[i]).into_owned()
                } else {
                    text.into_owned()
                }
            })
            .collect()
    };
    let mut s = t.clone();
    if let Some(h) = t.header() {
        s.set_header(short(h));
    }
    for (new, old) in s.row_iter_mut().zip(t.row_iter()) {
        *new = short(old).into();
    }
    for (i, shown) in layout.shown.iter().enumerate() {
        if let (false, Some(c)) = (shown, s.column_mut(i)) {
            c.set_constraint(ColumnConstraint::Hidden);
        }
    }
    Some(s)
}

/// Writes a table within `width` characters (see [`laid_out`]) without the
/// padding blanks at the ends of its lines.
pub(crate) fn write_table(
    w: &mut dyn Write,
    t: &Table,
    rule: &FitRule,
    width: Option<usize>,
) -> io::Result<()> {
    let laid = laid_out(t, rule, width);
    let t = laid.as_ref().unwrap_or(t);
    for line in t.lines() {
        // Names from the data: no raw control characters on a terminal
        // (a line break in a cell is laid out by comfy-table as a second
        // line inside the cell, within its borders).
        let line = crate::report::escape::visible(line.trim_end());
        writeln!(w, "{line}")?;
    }
    Ok(())
}

pub(crate) fn right_align_from(t: &mut Table, first: usize) {
    let n = t
        .header()
        .into_iter()
        .chain(t.row_iter())
        .map(|r| r.cell_count())
        .max()
        .unwrap_or(0);
    for i in 0..n {
        if let Some(c) = t.column_mut(i) {
            c.set_padding((0, 1));
            if i >= first {
                c.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
}

/// A number, or `-` for none.
pub(crate) fn opt_num<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}
