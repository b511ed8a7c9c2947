//! The text renderer: a [`Document`]'s lines as they are, its tables in
//! columns of fixed least width (cells longer than their column push the
//! rest of the line to the right instead of being cut).

use std::io::{self, Write};

use super::document::{Align, Block, Column, Document, MAX_CELL_BYTES, Table, shortened_cell};

/// Writes every block of `doc`, each line ended by a newline.
pub fn write_document(w: &mut dyn Write, doc: Document<'_>) -> io::Result<()> {
    let mut line = String::new();
    for block in doc.blocks {
        match block {
            // A line block may hold several lines (a report's rows written
            // in runs): its line breaks stay, other control characters
            // from names are escaped.
            Block::Line(text) => writeln!(w, "{}", super::escape::visible_except(&text, &['\n']))?,
            Block::Table(table) => write_table(w, table, &mut line)?,
            Block::Fitted(table) => super::table::write_table(w, &table)?,
        }
    }
    Ok(())
}

fn write_table(w: &mut dyn Write, table: Table<'_>, line: &mut String) -> io::Result<()> {
    let Table {
        columns,
        header,
        rows,
    } = table;
    // A headless table of one column holds lines written in runs (the call
    // tree's rows): their line breaks stay. In every other table a line
    // break in a cell is a name's and is escaped, so it cannot forge a row.
    let keep: &[char] = if !header && columns.len() == 1 {
        &['\n']
    } else {
        &[]
    };
    if header {
        let cells = columns.iter().map(|c| c.header.as_str());
        write_row(w, &columns, cells, keep, line)?;
    }
    for row in rows {
        write_row(w, &columns, row.iter().map(String::as_str), keep, line)?;
    }
    Ok(())
}

fn write_row<'c>(
    w: &mut dyn Write,
    columns: &[Column],
    cells: impl Iterator<Item = &'c str>,
    keep: &[char],
    line: &mut String,
) -> io::Result<()> {
    use std::fmt::Write as _;
    line.clear();
    for (i, (column, cell)) in columns.iter().zip(cells).enumerate() {
        if i > 0 {
            line.push_str(column.gap);
        }
        // Over-long names are shortened, and so is the width they gave
        // their column (every row is padded to it). Not the line runs of a
        // headless one-column table (`keep` holds the line break): those
        // cells hold many rows.
        let (cell, width) = if keep.is_empty() {
            (shortened_cell(cell), column.width.min(MAX_CELL_BYTES))
        } else {
            (cell.into(), column.width)
        };
        // Names from the data: no raw control characters on a terminal.
        let cell = super::escape::visible_except(&cell, keep);
        // Writing into a String cannot fail.
        // Padded by hand: a format width panics past 65,535 (a long name).
        let pad = super::numfmt::Blanks(width.saturating_sub(cell.chars().count()));
        let _ = match column.align {
            Align::Left => write!(line, "{cell}{pad}"),
            Align::Right => write!(line, "{pad}{cell}"),
        };
    }
    line.push('\n');
    w.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut out = Vec::new();
        write_document(&mut out, doc).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "title\n  N  Name    Host\n  1  a       h\n12345  longer name  \n"
        );
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
        let mut out = Vec::new();
        write_document(&mut out, doc).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), " 1\n");
    }
}
