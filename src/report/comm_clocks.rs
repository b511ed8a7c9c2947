//! `comm clocks`: the estimated clock offsets and how well they fit.

use crate::analysis::comm::clocks::ClockOffsets;
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::numfmt::human::{duration, percent, write_duration};

pub struct ClocksReport<'a>(pub &'a ClockOffsets);

/// Percent of `part` in `whole` (`-` when empty).
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".to_owned()
    } else {
        percent(100.0 * part as f64 / whole as f64)
    }
}

impl Report for ClocksReport<'_> {
    type Wire<'w>
        = &'w ClockOffsets
    where
        Self: 'w;

    fn wire(&self) -> &ClockOffsets {
        self.0
    }

    fn document(&self) -> Document<'_> {
        let c = self.0;
        let r = &c.residual;
        let mut doc = Document::new();
        doc.line(format!(
            "Clock offsets against process {} (aligned time = raw time - offset):",
            c.reference
        ))
        .line("median of barrier exits, then shifted so that messages complete after")
        .line("they are sent (docs/COMM.md)")
        .line("")
        .table(Table::filled(
            vec![
                Column::right("Proc", 5),
                Column::right("Offset", 14),
                // Narrow outputs keep the offset; its parts go first.
                Column::right("From barriers", 14).droppable(2),
                Column::right("Barriers", 9).droppable(3),
                Column::right("Message shift", 14).droppable(1),
            ],
            c.procs.iter(),
            |p, cells| {
                cells.int(p.proc);
                write_duration(cells.next(), p.offset);
                match p.barrier_offset {
                    Some(t) => write_duration(cells.next(), t),
                    None => cells.next().push('-'),
                }
                cells.int(p.barriers);
                write_duration(cells.next(), p.message_shift);
            },
        ))
        .line("")
        .line("Residual")
        .table(Table::new(
            vec![
                Column::left("", 44),
                Column::right("Raw", 14),
                Column::right("Aligned", 14),
            ],
            [
                vec![
                    format!("barrier exit spread, median ({} barriers)", r.barriers),
                    duration(r.raw_exit_spread_median),
                    duration(r.exit_spread_median),
                ],
                vec![
                    "barrier exit spread, max".to_owned(),
                    duration(r.raw_exit_spread_max),
                    duration(r.exit_spread_max),
                ],
                vec![
                    format!("% of {} messages done before sent", r.messages),
                    share(r.negative_raw, r.messages),
                    share(r.negative_aligned, r.messages),
                ],
            ]
            .into_iter(),
        ));
        doc.line(format!(
            "message step: {} sweep(s), {} process(es) whose routes conflict",
            r.sweeps, r.conflicts
        ));
        doc
    }
}
