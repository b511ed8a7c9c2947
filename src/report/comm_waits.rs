//! `comm waits`: wait states per process, call type and call path, and
//! the longest waits with who caused them.

use crate::analysis::comm::waits::{StateSeconds, WaitReport};
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::layout::path_tree::tree_lines;
use crate::report::numfmt::human::{duration, write_duration};

pub struct WaitsReport<'a> {
    pub waits: &'a WaitReport,
    /// Call paths shown in the table (JSON has all).
    pub top_paths: usize,
}

fn who(p: Option<usize>) -> String {
    p.map_or_else(|| "-".to_owned(), |p| p.to_string())
}

/// A wait state most databases never show: in the text only when some
/// process waited in it (the other outputs always have it).
struct Rare {
    label: &'static str,
    column: &'static str,
    get: fn(&StateSeconds) -> f64,
}

const RARE: [Rare; 3] = [
    Rare {
        label: "late sender wrong order",
        column: "LS wrong order",
        get: |s| s.late_sender_wrong_order,
    },
    Rare {
        label: "late broadcast",
        column: "Late bcast",
        get: |s| s.late_broadcast,
    },
    Rare {
        label: "early reduce",
        column: "Early reduce",
        get: |s| s.early_reduce,
    },
];

/// Waits per process; the rare states' columns only when some process
/// waited in them.
fn by_process(r: &WaitReport) -> Table<'_> {
    let rare: Vec<&Rare> = RARE
        .iter()
        .filter(|s| r.procs.iter().any(|p| (s.get)(&p.waited) != 0.0))
        .collect();
    let mut columns = vec![
        Column::right("Proc", 5),
        Column::right("Late sender", 12),
        // Narrow outputs keep the totals; the rare states go first.
        Column::right("Late recv", 10).droppable(2),
        Column::right("Barrier", 10).droppable(1),
        Column::right("NxN", 10).droppable(1),
    ];
    columns.extend(rare.iter().map(|s| Column::right(s.column, 14).droppable(2)));
    columns.extend([Column::right("Total", 10), Column::right("Caused", 10)]);
    Table::filled(columns, r.procs.iter(), move |p, cells| {
        let w = &p.waited;
        cells.int(p.proc);
        let seconds = [w.late_sender, w.late_receiver, w.barrier, w.nxn];
        let rare = rare.iter().map(|s| (s.get)(w));
        for x in seconds.into_iter().chain(rare).chain([w.total, p.caused]) {
            write_duration(cells.next(), x);
        }
    })
}

impl Report for WaitsReport<'_> {
    type Wire<'w>
        = &'w WaitReport
    where
        Self: 'w;

    fn wire(&self) -> &WaitReport {
        self.waits
    }

    fn document(&self) -> Document<'_> {
        let r = self.waits;
        let t = &r.totals;
        let mut doc = Document::new();
        crate::report::layout::region_filter::region_line(&mut doc, r.region_filter.as_ref());
        // In sentences, a time without the blank that aligns it in columns.
        let time = |x: f64| crate::report::renderers::text::unbroken(duration(x).trim_end());
        doc.prose(match r.clocks_aligned_to {
            Some(p) => format!("Wait states on process {p}'s clock (--align-clocks; comm clocks)"),
            None => "Wait states on each process's own clock: without --align-clocks, waits \
                     between processes mix clocks"
                .to_owned(),
        })
        .prose(format!(
            "{} waiting: late sender {}, late receiver {}, barrier {}, NxN {}{}",
            time(t.total),
            time(t.late_sender),
            time(t.late_receiver),
            time(t.barrier),
            time(t.nxn),
            RARE.iter()
                .filter(|s| (s.get)(t) != 0.0)
                .map(|s| format!(", {} {}", s.label, time((s.get)(t))))
                .collect::<String>()
        ))
        .line("")
        .line("By process (Caused: what others waited for it)")
        .table(by_process(r));
        doc.line("")
            .line("By wait state and call type")
            .table(Table::new(
            vec![
                Column::left("State", 16),
                Column::left("Function", 14).after("  "),
                Column::right("#", 3).droppable(1),
                Column::right("Waits", 7),
                Column::right("Seconds", 10),
            ],
            r.types.iter().map(|x| {
                vec![
                    x.state.label().to_owned(),
                    x.name.to_owned(),
                    x.kind.to_string(),
                    x.waits.to_string(),
                    duration(x.seconds),
                ]
            }),
        ));
        if let Some(paths) = &r.paths {
            let shown = &paths[..paths.len().min(self.top_paths)];
            let frames: Vec<&[String]> = shown.iter().map(|p| p.path.as_slice()).collect();
            let weight: Vec<f64> = shown.iter().map(|p| p.seconds).collect();
            let lines = tree_lines(&frames, &weight);
            // Names of MPI calls are short; the tree gets the room.
            let function_width = shown.iter().map(|p| p.name.chars().count()).max();
            let function_width = function_width.unwrap_or(0).max("Function".len());
            doc.line("")
                .prose(
                    "By call path (innermost timed call open at the waiting call's entry), \
                     as a tree, heaviest first",
                )
                .table(Table::new(
                    vec![
                        Column::left("Function", function_width),
                        Column::right("Waits", 6),
                        Column::right("Seconds", 9),
                        Column::left("Call path", 0).after("  "),
                    ],
                    lines.into_iter().map(move |l| {
                        let frame = l.frame_text();
                        match l.row.map(|i| &shown[i]) {
                            Some(p) => vec![
                                p.name.clone(),
                                p.waits.to_string(),
                                duration(p.seconds),
                                frame,
                            ],
                            None => vec![String::new(), String::new(), String::new(), frame],
                        }
                    }),
                ));
        }
        doc.line("")
            .line(format!("The {} longest waits", r.top.len()))
            .table(Table::new(
                vec![
                    Column::left("State", 16),
                    Column::right("Proc", 5),
                    Column::left("Function", 14).after("  "),
                    // Narrow outputs keep who waited how long, then who
                    // caused it.
                    Column::right("Entry", 14).droppable(2),
                    Column::right("Seconds", 12),
                    Column::right("Caused by", 10).droppable(1),
                ],
                r.top.iter().map(|w| {
                    vec![
                        w.state.label().to_owned(),
                        w.proc.to_string(),
                        w.name.to_owned(),
                        // A point in time: microseconds, as the trace records it.
                        format!("{:.6} s", w.entry),
                        duration(w.seconds),
                        who(w.caused_by),
                    ]
                }),
            ));
        for u in &r.unmatched_collectives {
            doc.prose(format!("not matched across processes, no NxN waits: {u}"));
        }
        doc
    }
}
