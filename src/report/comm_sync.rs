//! `comm barriers` and `comm matrix` as [`Report`] values: the waits at
//! barriers and reductions, and the bytes per sender × receiver
//! ([`crate::analysis::comm::sync`]).

use std::collections::BTreeMap;

use crate::analysis::comm::sync::{BarrierSummary, Route, SendMatrix, SendMatrixGroups};
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::layout::region_filter::region_line;
use crate::report::numfmt::human::duration;

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// `comm barriers`: wait per barrier and per process.
pub struct BarriersReport<'a>(pub &'a BarrierSummary);

impl Report for BarriersReport<'_> {
    type Wire<'w>
        = &'w BarrierSummary
    where
        Self: 'w;

    fn wire(&self) -> &BarrierSummary {
        self.0
    }

    fn document(&self) -> Document<'_> {
        let r = self.0;
        let mut doc = Document::new();
        region_line(&mut doc, r.region_filter.as_ref());
        if let Some(p) = r.clocks_aligned_to {
            doc.line(format!(
                "Times on process {p}'s clock (--align-clocks; comm clocks): last in = latest arrival"
            ))
            .line("");
        }
        doc.table(Table::new(
            vec![
                Column::right("Barrier", 7),
                Column::left("Name", 36).after("  "),
                Column::right("Procs", 6),
                Column::right("Wait total", 12),
                Column::right("Wait max", 12),
                Column::right("Last in", 10),
            ],
            r.barriers.iter().map(|b| {
                vec![
                    b.number.to_string(),
                    b.name.to_string(),
                    b.procs.len().to_string(),
                    duration(b.wait_total),
                    duration(b.wait_max),
                    opt(b.last_arrival),
                ]
            }),
        ));
        doc.line("").table(Table::filled(
            vec![
                Column::right("Proc", 5),
                Column::right("Barriers", 9),
                Column::right("Wait", 12),
                Column::right("Last arrivals", 14),
            ],
            r.procs.iter(),
            |p, cells| {
                cells.int(p.proc).int(p.barriers);
                cells.text(&duration(p.wait)).int(p.last_arrivals);
            },
        ));
        if !r.reductions.is_empty() {
            reductions_section(&mut doc, r);
        }
        doc
    }
}

/// The all-reductions (types 1–4), which wait like barriers: one row per
/// reduction type (there is one reduction per call, thousands in a run),
/// then the waits per process.
fn reductions_section<'a>(doc: &mut Document<'a>, r: &'a BarrierSummary) {
    // Per type: reductions, wait total, wait max.
    let mut by_name: BTreeMap<&str, (usize, f64, f64)> = BTreeMap::new();
    for b in &r.reductions {
        let e = by_name.entry(b.name.as_str()).or_default();
        e.0 += 1;
        e.1 += b.wait_total;
        e.2 = e.2.max(b.wait_max);
    }
    doc.line("")
        .line("All-reductions (each process waits at an all-reduction as at a barrier)")
        .table(Table::new(
            vec![
                Column::left("Reduction", 14),
                Column::right("Calls", 9),
                Column::right("Wait total", 12),
                Column::right("Wait max", 12),
            ],
            by_name.into_iter().map(|(name, (n, total, max))| {
                vec![
                    name.to_owned(),
                    n.to_string(),
                    duration(total),
                    duration(max),
                ]
            }),
        ));
    doc.line("").table(Table::filled(
        vec![
            Column::right("Proc", 5),
            Column::right("Reductions", 11),
            Column::right("Wait", 12),
            Column::right("Last arrivals", 14),
        ],
        r.reduction_procs.iter(),
        |p, cells| {
            cells.int(p.proc).int(p.barriers);
            cells.text(&duration(p.wait)).int(p.last_arrivals);
        },
    ));
}

/// `comm matrix`: messages and bytes per sender × receiver.
pub struct MatrixReport<'a>(pub &'a SendMatrix);

/// Cells per side of the matrix tables: one per process up to this many
/// processes, groups of consecutive processes beyond (a wider grid does
/// not fit a terminal; `--format csv` and `--svg` show every route).
pub const MATRIX_TABLE_CELLS: usize = 8;

/// Routes listed under a grouped matrix table.
const BUSIEST_ROUTES: usize = 20;

/// One matrix of `g` as a table: a column of senders, one column per
/// receiver; a group of processes is labelled by its first process.
fn grid(group: usize, values: Vec<Vec<u64>>, header: bool) -> Table<'static> {
    let mut columns = vec![Column::right("", 6)];
    columns.extend((0..values.len()).map(|to| Column::right((to * group).to_string(), 8)));
    let rows = values.into_iter().enumerate().map(move |(from, row)| {
        let mut cells = Vec::with_capacity(row.len() + 1);
        cells.push((from * group).to_string());
        cells.extend(row.iter().map(u64::to_string));
        cells
    });
    let table = Table::new(columns, rows);
    if header { table } else { table.headless() }
}

impl Report for MatrixReport<'_> {
    type Wire<'w>
        = &'w SendMatrix
    where
        Self: 'w;

    fn wire(&self) -> &SendMatrix {
        self.0
    }

    fn document(&self) -> Document<'_> {
        let m = self.0;
        let g = SendMatrixGroups::from_matrix(m, MATRIX_TABLE_CELLS);
        let mut doc = Document::new();
        region_line(&mut doc, m.region_filter.as_ref());
        if g.group > 1 {
            doc.line(format!(
                "{} processes, {} consecutive ones per cell, labelled by the first \
                 (--format csv lists every sender and receiver)",
                m.nprocs, g.group
            ));
        }
        doc.line("Messages (rows: sender, columns: receiver)")
            .table(grid(g.group, g.messages, true))
            .line("\nBytes")
            .table(grid(g.group, g.bytes, false));
        if g.group > 1 && !m.routes.is_empty() {
            let mut busiest: Vec<&Route> = m.routes.iter().collect();
            busiest.sort_by_key(|r| (std::cmp::Reverse(r.bytes), r.from, r.to));
            busiest.truncate(BUSIEST_ROUTES);
            let rows = busiest.into_iter().map(|r| {
                vec![
                    r.from.to_string(),
                    r.to.to_string(),
                    r.messages.to_string(),
                    r.bytes.to_string(),
                ]
            });
            doc.line(format!(
                "\nBusiest routes (by bytes; {} of {})",
                m.routes.len().min(BUSIEST_ROUTES),
                m.routes.len()
            ))
            .table(Table::new(
                vec![
                    Column::right("from", 6),
                    Column::right("to", 6),
                    Column::right("messages", 8),
                    Column::right("bytes", 8),
                ],
                rows,
            ));
        }
        doc
    }

    /// One row per sender and receiver that exchanged messages.
    fn csv(&self) -> Option<Table<'_>> {
        let rows = self.0.routes.iter().map(|r| {
            vec![
                r.from.to_string(),
                r.to.to_string(),
                r.messages.to_string(),
                r.bytes.to_string(),
            ]
        });
        Some(Table::new(
            ["from", "to", "messages", "bytes"]
                .into_iter()
                .map(|h| Column::left(h, 0))
                .collect(),
            rows,
        ))
    }
}
