//! CSV renderers (RFC 4180 via the `csv` crate), full-precision numbers.

use std::io::{self, Write};

use crate::analysis::function_stats::FunctionSummary;
use crate::report::document::{Column, Table};

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// `summary --format csv`: one row per function in `order`, full precision.
pub fn summary_table(s: &FunctionSummary, order: Vec<usize>) -> Table<'_> {
    let columns = [
        "name",
        "ncalls",
        "ncalls_total",
        "min",
        "avg",
        "max",
        "stddev",
        "coeff_var",
        "percent",
        "min_proc",
        "max_proc",
        "imbalance",
    ];
    let rows = order.into_iter().map(move |i| {
        let f = &s.functions[i];
        vec![
            f.name.clone(),
            f.ncalls.to_string(),
            f.ncalls_total.to_string(),
            f.min.to_string(),
            f.avg.to_string(),
            f.max.to_string(),
            f.stddev.to_string(),
            f.coeff_var.to_string(),
            f.percent.to_string(),
            opt(f.min_proc),
            opt(f.max_proc),
            opt(f.imbalance),
        ]
    });
    Table::new(
        columns.into_iter().map(|h| Column::left(h, 0)).collect(),
        rows,
    )
}

/// A [`Table`]'s header and rows as CSV records.
pub fn write_table(w: &mut dyn Write, table: Table<'_>) -> io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(table.columns.iter().map(|c| c.header.as_str()))
        .map_err(csv_io_error)?;
    for row in table.rows {
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
