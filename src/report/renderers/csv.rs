//! CSV renderers (RFC 4180 via the `csv` crate), full-precision numbers.

use std::io::{self, Write};

use crate::report::document::Table;

/// A [`Table`]'s header and rows as CSV records.
pub fn write_table(w: &mut dyn Write, table: Table<'_>) -> io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(table.columns.iter().map(|c| c.header.as_str()))
        .map_err(csv_io_error)?;
    let (mut rows, mut row) = (table.rows, Vec::new());
    while rows.next_into(&mut row) {
        // Names from the data must not be read as formulas by a
        // spreadsheet; numbers stay numbers.
        let row: Vec<_> = row
            .iter()
            .map(|c| crate::report::escape::csv_cell(c))
            .collect();
        out.write_record(row.iter().map(|c| c.as_bytes()))
            .map_err(csv_io_error)?;
    }
    out.flush()
}

/// A CSV writer's error as an I/O error that keeps its kind.
pub fn csv_io_error(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}
