//! The text renderer: a [`Document`]'s lines as they are, its tables in
//! columns of fixed least width (cells longer than their column push the
//! rest of the line to the right instead of being cut), fitted to the
//! output's width ([`crate::report::layout::fit`]).

use std::io::{self, Write};

use crate::report::document::{
    Align, Block, Column, Document, MAX_CELL_BYTES, Table, shortened_cell,
};
use crate::report::layout::call_path;
use crate::report::layout::fit::{Fit, FitColumn, fit, middle_ellipsis};

/// Rows of a table measured to fit it: later rows get the same layout
/// (their long names shortened to it), so a table of millions of rows is
/// never held whole.
const MEASURED_ROWS: usize = 10_000;

/// Writes every block of `doc`, each line ended by a newline; tables fit in
/// `width` characters (`None`: whole, however wide).
pub fn write_document(
    w: &mut dyn Write,
    doc: Document<'_>,
    width: Option<usize>,
) -> io::Result<()> {
    let mut line = String::new();
    for block in doc.blocks {
        match block {
            // A line block may hold several lines (a report's rows written
            // in runs): its line breaks stay, other control characters
            // from names are escaped.
            Block::Line(text) => writeln!(
                w,
                "{}",
                crate::report::escape::visible_except(&text, &['\n'])
            )?,
            Block::Prose(text) => {
                let text = crate::report::escape::visible_except(&text, &['\n']);
                for l in wrapped(&text, width) {
                    writeln!(w, "{}", l.replace(NO_BREAK, " "))?;
                }
            }
            Block::Item(text) => {
                let text = crate::report::escape::visible_except(&text, &['\n']);
                // Every line within the width with the deeper indent.
                let room = width.map(|w| w.saturating_sub(ITEM_INDENT.len() + 2));
                for (i, l) in wrapped(&text, room).into_iter().enumerate() {
                    let more = if i == 0 { "" } else { "  " };
                    writeln!(w, "{ITEM_INDENT}{more}{}", l.replace(NO_BREAK, " "))?;
                }
            }
            Block::Table(table) => write_table(w, table, width, &mut line)?,
            Block::Fitted(table, rule) => {
                crate::report::renderers::table::write_table(w, &table, &rule, width)?
            }
        }
    }
    Ok(())
}

/// Before an item of a list; its further lines have two blanks more.
const ITEM_INDENT: &str = "  ";

/// Stands for a blank where prose lines do not break (`12.35 ms`); written
/// as a blank.
const NO_BREAK: char = '\u{a0}';

/// `text` for prose, its blanks ones where lines do not break.
pub fn unbroken(text: &str) -> String {
    text.replace(' ', &NO_BREAK.to_string())
}

/// `text` in lines of at most `width` characters, broken at blanks; a
/// word longer than the width (a file's path) is broken where it must.
fn wrapped(text: &str, width: Option<usize>) -> Vec<String> {
    let Some(width) = width.filter(|&w| w > 0) else {
        return text.lines().map(str::to_owned).collect();
    };
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        let mut used = 0;
        for word in paragraph.split(' ').filter(|w| !w.is_empty()) {
            let n = word.chars().count();
            if used > 0 && used + 1 + n <= width {
                line.push(' ');
                line.push_str(word);
                used += 1 + n;
                continue;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
            }
            let chars: Vec<char> = word.chars().collect();
            let mut pieces = chars.chunks(width).peekable();
            while let Some(piece) = pieces.next() {
                line = piece.iter().collect();
                used = piece.len();
                if pieces.peek().is_some() {
                    lines.push(std::mem::take(&mut line));
                }
            }
        }
        lines.push(line);
    }
    lines
}

fn write_table(
    w: &mut dyn Write,
    table: Table<'_>,
    width: Option<usize>,
    line: &mut String,
) -> io::Result<()> {
    let Table {
        columns,
        header,
        mut rows,
    } = table;
    // A headless table of one column holds lines written in runs (the call
    // tree's rows): their line breaks stay, and the report fits them
    // itself. In every other table a line break in a cell is a name's and
    // is escaped, so it cannot forge a row.
    let runs = !header && columns.len() == 1;
    let keep: &[char] = if runs { &['\n'] } else { &[] };
    // Path columns are measured at any width: each is as wide as its
    // widest path laid out (whole without a width).
    let any_path = columns.iter().any(|c| c.path);
    // A table whose columns can be neither shortened nor dropped is laid
    // out whole at any width: nothing to measure, so its rows are written
    // as they come, not held (a table of a row per process held 10,000
    // rows, 50,000 cells, before writing the first).
    let fixed = !columns.iter().any(|c| c.shrink || c.drop_rank > 0 || c.path);
    let (mut measured, layout) = if runs || fixed || (width.is_none() && !any_path) {
        (HeldRows::default(), Fit::whole(columns.len()))
    } else {
        let (mut measured, mut row) = (HeldRows::default(), Vec::new());
        while measured.len() < MEASURED_ROWS && rows.next_into(&mut row) {
            measured.push(&row);
        }
        let layout = fit(&fit_columns(&columns, header, &measured), width);
        (measured, layout)
    };
    // Call paths: the measured rows' paths are laid out together (so they
    // stay apart), later rows' one by one.
    let paths: Vec<(usize, usize)> = (0..columns.len())
        .filter(|&i| columns[i].path && layout.shown[i])
        .map(|i| (i, layout.limit[i]))
        .collect();
    let mut widest = vec![0; columns.len()];
    for &(i, limit) in &paths {
        let texts = {
            let cells: Vec<Option<&str>> = measured.rows().map(|r| r.get(i)).collect();
            laid_out_paths(&cells, limit)
        };
        measured.replace_column(i, &texts);
        // A path column is as wide as its widest text laid out.
        widest[i] = measured
            .rows()
            .filter_map(|r| r.get(i))
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0);
    }
    let columns: Vec<(Column, usize)> = columns
        .into_iter()
        .zip(&widest)
        .zip(layout.shown.iter().zip(&layout.limit))
        .filter(|(_, (shown, _))| **shown)
        .map(|((c, &widest), (_, &limit))| {
            let width = if c.path {
                c.width.max(widest).min(MAX_CELL_BYTES)
            } else {
                c.width
            };
            let width = width.min(limit);
            (Column { width, ..c }, limit)
        })
        .collect();
    let shown = layout.shown;
    if header {
        let cells = columns.iter().map(|(c, _)| c.header.as_str());
        write_row(w, &columns, cells, keep, line)?;
    }
    for row in measured.rows() {
        write_row(w, &columns, shown_cells(row.cells(), &shown), keep, line)?;
    }
    // One row kept for all: a filled table's cells reuse its strings.
    let mut row = Vec::new();
    while rows.next_into(&mut row) {
        for &(i, limit) in &paths {
            if let Some(cell) = row.get_mut(i) {
                let text = laid_out_paths(&[Some(cell.as_str())], limit).pop();
                *cell = text.unwrap_or_default();
            }
        }
        let cells = row.iter().map(String::as_str);
        write_row(w, &columns, shown_cells(cells, &shown), keep, line)?;
    }
    Ok(())
}

/// The cells of a row in the columns `shown`.
fn shown_cells<'c>(
    cells: impl Iterator<Item = &'c str>,
    shown: &[bool],
) -> impl Iterator<Item = &'c str> {
    cells.zip(shown).filter(|(_, s)| **s).map(|(c, _)| c)
}

/// Rows held while a table is measured, their cells end to end in one
/// string: a table of a row per process held 10,000 rows of cells, each
/// its own allocation, which grew the heap only to be freed again.
#[derive(Default)]
struct HeldRows {
    text: String,
    /// Where each cell ends in `text`.
    cell_ends: Vec<usize>,
    /// Where each row's cells end in `cell_ends`.
    row_ends: Vec<usize>,
}

/// One row of [`HeldRows`].
#[derive(Clone, Copy)]
struct HeldRow<'h> {
    text: &'h str,
    /// Where the row starts in `text`, and where its cells end.
    start: usize,
    ends: &'h [usize],
}

impl<'h> HeldRow<'h> {
    /// Cell `i`, if the row has it.
    fn get(&self, i: usize) -> Option<&'h str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { self.start } else { self.ends[i - 1] };
        Some(&self.text[start..end])
    }

    /// The cells in order.
    fn cells(self) -> impl Iterator<Item = &'h str> {
        (0..self.ends.len()).filter_map(move |i| self.get(i))
    }
}

impl HeldRows {
    fn push(&mut self, row: &[String]) {
        for cell in row {
            self.text.push_str(cell);
            self.cell_ends.push(self.text.len());
        }
        self.row_ends.push(self.cell_ends.len());
    }

    /// Rows held.
    fn len(&self) -> usize {
        self.row_ends.len()
    }

    /// The rows in order.
    fn rows(&self) -> impl Iterator<Item = HeldRow<'_>> {
        (0..self.row_ends.len()).map(move |r| {
            let first = if r == 0 { 0 } else { self.row_ends[r - 1] };
            let start = if first == 0 { 0 } else { self.cell_ends[first - 1] };
            HeldRow {
                text: &self.text,
                start,
                ends: &self.cell_ends[first..self.row_ends[r]],
            }
        })
    }

    /// The same rows with their cells of column `col` replaced by `texts`
    /// (one per row; a row without that column keeps its cells).
    fn replace_column(&mut self, col: usize, texts: &[String]) {
        let mut new = HeldRows::default();
        let mut row = Vec::new();
        for (r, text) in self.rows().zip(texts) {
            row.clear();
            row.extend(r.cells().enumerate().map(|(i, c)| {
                if i == col { text.clone() } else { c.to_owned() }
            }));
            new.push(&row);
        }
        *self = new;
    }
}

/// Call path cells as text within `limit` (whole for `usize::MAX`),
/// laid out together so that different paths stay apart; a missing cell
/// counts as an empty path.
fn laid_out_paths(cells: &[Option<&str>], limit: usize) -> Vec<String> {
    if limit == usize::MAX {
        return cells.iter().map(|c| call_path::whole(c.unwrap_or(""))).collect();
    }
    let paths: Vec<Vec<&str>> = cells
        .iter()
        .map(|c| c.map_or_else(Vec::new, call_path::frames))
        .collect();
    call_path::fit_all(&paths, limit)
}

/// The columns as the fitting sees them: widths from the header and the
/// measured rows.
fn fit_columns(columns: &[Column], header: bool, rows: &HeldRows) -> Vec<FitColumn> {
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let header_width = if header { c.header.chars().count() } else { 0 };
            let cells = rows
                .rows()
                .filter_map(|r| r.get(i))
                .map(|s| {
                    if c.path {
                        call_path::whole_width(s).min(MAX_CELL_BYTES)
                    } else if s.len() <= MAX_CELL_BYTES && s.is_ascii() {
                        // Kept whole, a character a byte: no decoding.
                        s.len()
                    } else {
                        shortened_cell(s).chars().count()
                    }
                })
                .max()
                .unwrap_or(0);
            FitColumn {
                width: c.width.min(MAX_CELL_BYTES).max(header_width).max(cells),
                gap: if i == 0 { 0 } else { c.gap.chars().count() },
                drop_rank: c.drop_rank,
                shrink: c.shrink,
            }
        })
        .collect()
}

fn write_row<'c>(
    w: &mut dyn Write,
    columns: &[(Column, usize)],
    cells: impl Iterator<Item = &'c str>,
    keep: &[char],
    line: &mut String,
) -> io::Result<()> {
    line.clear();
    for (i, ((column, limit), cell)) in columns.iter().zip(cells).enumerate() {
        if i > 0 {
            line.push_str(column.gap);
        }
        // Most cells (numbers, plain names) need none of the work below:
        // written as they are, their width their length.
        if let Some(chars) = plain_chars(cell, column, *limit) {
            let width = if keep.is_empty() {
                column.width.min(MAX_CELL_BYTES)
            } else {
                column.width
            };
            push_padded(line, cell, chars, width, column.align);
            continue;
        }
        let cell = if column.shrink {
            middle_ellipsis(cell, *limit)
        } else {
            cell.into()
        };
        // Over-long names are shortened, and so is the width they gave
        // their column (every row is padded to it). Not the line runs of a
        // headless one-column table (`keep` holds the line break): those
        // cells hold many rows.
        let (cell, width) = if keep.is_empty() {
            (shortened_cell(&cell), column.width.min(MAX_CELL_BYTES))
        } else {
            (cell.as_ref().into(), column.width)
        };
        // Names from the data: no raw control characters on a terminal.
        let cell = crate::report::escape::visible_except(&cell, keep);
        // A column of no least width pads nothing: the runs of a big
        // tree's lines (30 MB) are not counted.
        let chars = if width == 0 { 0 } else { cell.chars().count() };
        push_padded(line, &cell, chars, width, column.align);
    }
    line.push('\n');
    w.write_all(line.as_bytes())
}

/// The characters of `cell` when it is written in `column` as it is: no
/// control character (nothing escaped), within [`MAX_CELL_BYTES`] and, in
/// a column that shrinks, within its `limit`.
fn plain_chars(cell: &str, column: &Column, limit: usize) -> Option<usize> {
    if cell.len() > MAX_CELL_BYTES || crate::report::escape::has_control_bytes(cell, false) {
        return None;
    }
    // Characters: bytes that do not continue a UTF-8 sequence.
    let chars = cell.bytes().filter(|&b| (b as i8) >= -0x40).count();
    (!column.shrink || chars <= limit).then_some(chars)
}

/// `cell` of `chars` characters at the end of `line`, padded to `width`
/// on the side its alignment leaves.
fn push_padded(line: &mut String, cell: &str, chars: usize, width: usize, align: Align) {
    // Padded by hand: a format width panics past 65,535 (a long name).
    let pad = crate::report::numfmt::padding::Blanks(width.saturating_sub(chars));
    match align {
        Align::Left => {
            line.push_str(cell);
            pad.push_to(line);
        }
        Align::Right => {
            pad.push_to(line);
            line.push_str(cell);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `doc` as text within `width`.
    fn written(doc: Document, width: Option<usize>) -> String {
        let mut out = Vec::new();
        write_document(&mut out, doc, width).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// A table filled cell by cell writes what the same rows made whole
    /// write, at any width (measured or not), however many cells each row
    /// has: the strings of the row before are reused, never shown again.
    #[test]
    fn filled_rows_write_as_whole_rows() {
        let rows: Vec<Vec<String>> = vec![
            vec!["1".into(), "a name".into(), "host-1".into()],
            vec!["22".into(), "b".into()],
            vec![],
            vec!["333".into(), "a much longer name than the rest".into(), "h".into()],
            vec!["4".into()],
        ];
        let columns = || {
            vec![
                Column::right("N", 3),
                Column::left("Name", 6).after("  "),
                Column::left("Host", 0).after("  "),
            ]
        };
        for width in [None, Some(20), Some(80)] {
            let mut whole = Document::new();
            whole.table(Table::new(columns(), rows.clone().into_iter()));
            let mut filled = Document::new();
            filled.table(Table::filled(columns(), rows.iter(), |row, cells| {
                for (i, cell) in row.iter().enumerate() {
                    match cell.parse::<u32>() {
                        Ok(n) if i == 0 => cells.int(n),
                        _ => cells.text(cell),
                    };
                }
            }));
            assert_eq!(written(filled, width), written(whole, width), "{width:?}");
        }
        // CSV rows are all as long as the header.
        let mut csv = Vec::new();
        let table = Table::filled(columns(), rows.iter(), |row, cells| {
            for i in 0..3 {
                cells.text(row.get(i).map_or("", String::as_str));
            }
        });
        crate::report::renderers::csv::write_table(&mut csv, table).unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap(),
            "N,Name,Host\n1,a name,host-1\n22,b,\n,,\n333,a much longer name than the rest,h\n4,,\n"
        );
    }

    #[test]
    fn columns_keep_their_least_width_and_gaps() {
        let mut doc = Document::new();
        doc.line("title").table(Table::new(
            vec![
                Column::right("N", 3),
                Column::left("Name", 6).after("  "),
                Column::left("Host", 0).after("  "),
            ],
            vec![
                vec!["1".into(), "a".into(), "h".into()],
                vec!["12345".into(), "longer name".into(), "".into()],
            ]
            .into_iter(),
        ));
        assert_eq!(
            written(doc, None),
            "title\n  N  Name    Host\n  1  a       h\n12345  longer name  \n"
        );
    }

    #[test]
    fn tables_fit_the_width_by_shortening_names_then_dropping_columns() {
        let table = || {
            Table::new(
                vec![
                    Column::left("Name", 0),
                    Column::right("Calls", 6).droppable(1),
                    Column::right("Time", 9),
                ],
                vec![vec![
                    "amrex::FabArray<amrex::FArrayBox>::ParallelCopy_nowait".into(),
                    "12".into(),
                    "1.234 ms".into(),
                ]]
                .into_iter(),
            )
        };
        let render = |width| {
            let mut doc = Document::new();
            doc.table(table());
            written(doc, width)
        };
        let whole = render(None);
        assert!(whole.contains("ParallelCopy_nowait"), "{whole}");
        let narrow = render(Some(44));
        assert!(narrow.lines().all(|l| l.chars().count() <= 44), "{narrow}");
        assert!(narrow.contains('…') && narrow.contains("Calls"), "{narrow}");
        // Past the least name width, the droppable column goes.
        let narrower = render(Some(30));
        assert!(!narrower.contains("Calls"), "{narrower}");
        assert!(narrower.contains("1.234 ms"), "{narrower}");
    }

    #[test]
    fn prose_wraps_at_blanks_within_the_width() {
        let text = "Timers by worst efficiency first; a/very/long/path/name here.\nnext";
        assert_eq!(
            wrapped(text, Some(20)),
            [
                "Timers by worst",
                "efficiency first;",
                "a/very/long/path/nam",
                "e here.",
                "next"
            ]
        );
        assert_eq!(wrapped(text, None).len(), 2);
        let times = format!("late sender {}", unbroken("49.21 ms"));
        assert_eq!(wrapped(&times, Some(16)), ["late sender", "49.21\u{a0}ms"]);
        assert_eq!(wrapped("", Some(5)), [""]);
    }

    #[test]
    fn items_wrap_within_the_width_under_their_text() {
        let mut doc = Document::new();
        doc.item("regions: region \"advance\" (number 5): 140 stops without a start");
        assert_eq!(
            written(doc, Some(30)),
            "  regions: region \"advance\"\n    (number 5): 140 stops\n    without a start\n"
        );
    }

    #[test]
    fn plain_cells_are_counted_in_characters_and_others_left_to_the_escapes() {
        let name = Column::left("Name", 4);
        assert_eq!(plain_chars("1.234 µs", &name, 20), Some(8));
        assert_eq!(plain_chars("a\tb", &name, 20), None);
        assert_eq!(plain_chars("a\u{85}b", &name, 20), None);
        // Longer than a shrinking column's limit: shortened, not plain.
        assert_eq!(plain_chars("abcdef", &name, 5), None);
        assert_eq!(plain_chars("abcdef", &Column::right("N", 4), 5), Some(6));
        assert_eq!(plain_chars(&"x".repeat(MAX_CELL_BYTES + 1), &name, usize::MAX), None);
        let mut doc = Document::new();
        doc.table(Table::new(
            vec![Column::right("Wait", 10), Column::left("Host", 6).after(" |")],
            vec![
                vec!["1.234 µs".into(), "né".into()],
                vec!["2 s".into(), "a\tb".into()],
            ]
            .into_iter(),
        ));
        assert_eq!(
            written(doc, None),
            "      Wait |Host  \n  1.234 µs |né    \n       2 s |a\\tb  \n"
        );
    }

    #[test]
    fn rows_of_a_table_that_cannot_change_are_written_as_they_come() {
        use std::cell::RefCell;
        use std::rc::Rc;
        /// Output shared with the rows, which look at it as they are made.
        #[derive(Clone, Default)]
        struct Shared(Rc<RefCell<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0.borrow_mut().write(buf)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let out = Shared::default();
        // Each row holds the lines written before it was made.
        let seen = out.clone();
        let rows = (0..3).map(move |_| {
            let lines = seen.0.borrow().iter().filter(|&&b| b == b'\n').count();
            vec![lines.to_string(), "x".into()]
        });
        let mut doc = Document::new();
        doc.table(Table::new(
            vec![Column::right("Seen", 4), Column::right("X", 2)],
            rows,
        ));
        write_document(&mut out.clone(), doc, Some(80)).unwrap();
        let text = String::from_utf8(out.0.borrow().clone()).unwrap();
        // The header, then each row once the one before it was written.
        assert_eq!(text, "Seen  X\n   1  x\n   2  x\n   3  x\n");
    }

    #[test]
    fn held_rows_give_back_their_cells_and_replace_a_column() {
        let mut held = HeldRows::default();
        let rows: [&[&str]; 4] = [&["a", "bc", ""], &[], &["d"], &["ef", "g", "h"]];
        for row in rows {
            held.push(&row.iter().map(|c| c.to_string()).collect::<Vec<_>>());
        }
        let back = |held: &HeldRows| -> Vec<Vec<String>> {
            held.rows()
                .map(|r| r.cells().map(str::to_owned).collect())
                .collect()
        };
        assert_eq!(back(&held), rows.map(|r| r.to_vec()));
        assert_eq!(held.rows().nth(3).and_then(|r| r.get(1)), Some("g"));
        assert_eq!(held.rows().nth(2).and_then(|r| r.get(1)), None);
        // Column 1 replaced; the rows without it keep their cells.
        let texts = ["1", "2", "3", "4"].map(String::from);
        held.replace_column(1, &texts);
        let expected: [&[&str]; 4] = [&["a", "1", ""], &[], &["d"], &["ef", "4", "h"]];
        assert_eq!(back(&held), expected.map(|r| r.to_vec()));
    }

    #[test]
    fn a_headless_table_has_no_header_line() {
        let mut doc = Document::new();
        doc.table(
            Table::new(
                vec![Column::right("x", 2)],
                std::iter::once(vec!["1".into()]),
            )
            .headless(),
        );
        assert_eq!(written(doc, None), " 1\n");
    }
}
