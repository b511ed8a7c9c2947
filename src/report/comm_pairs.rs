//! `comm pairs` as a [`Report`] (per route, then the unmatched ends), and
//! the stream that writes every matched message in JSON or CSV while the
//! pairing runs ([`PairStream`]): millions of pairs never sit in memory
//! ([`crate::analysis::comm::pairs`]).

use std::io::{self, Write};

use crate::analysis::comm::pairs::{Pair, PairingSummary};
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::layout::region_filter::region_line;
use crate::report::numfmt::human::{fixed, write_duration};

/// `comm pairs` in a table: per route, then the unmatched ends.
pub struct PairsReport<'a>(pub &'a PairingSummary);

impl Report for PairsReport<'_> {
    type Wire<'w>
        = &'w PairingSummary
    where
        Self: 'w;

    fn wire(&self) -> &PairingSummary {
        self.0
    }

    fn document(&self) -> Document<'_> {
        let r = self.0;
        let mut doc = Document::new();
        region_line(&mut doc, r.region_filter.as_ref());
        doc.line(format!(
            "{} messages paired; {} sends and {} receives unmatched.",
            r.paired,
            r.unmatched_sends.len(),
            r.unmatched_recvs.len()
        ))
        .line(match r.clocks_aligned_to {
            Some(p) => format!("Times on process {p}'s clock (--align-clocks; comm clocks)."),
            None => {
                "Latencies mix two processes' clocks: compare them per pair of processes.".into()
            }
        })
        .line("Latency runs to the receive's record (a nonblocking receive's post);")
        .line("to done, to the wait that returned its status (docs/COMM.md).\n")
        .table(Table::filled(
            vec![
                Column::right("From", 5),
                Column::right("To", 5),
                Column::right("Messages", 9),
                Column::right("Bytes", 12).droppable(1),
                Column::right("Mean latency", 13),
                Column::right("Max latency", 13).droppable(2),
                Column::right("Mean to done", 13),
                Column::right("Max to done", 13).droppable(3),
            ],
            r.routes.iter(),
            |x, cells| {
                cells.int(x.from).int(x.to).int(x.messages).int(x.bytes);
                write_duration(cells.next(), x.latency_mean);
                write_duration(cells.next(), x.latency_max);
                for done in [x.completion_latency_mean, x.completion_latency_max] {
                    match done {
                        Some(t) => write_duration(cells.next(), t),
                        None => cells.next().push('-'),
                    }
                }
            },
        ));
        for (title, list) in [
            ("Unmatched sends", &r.unmatched_sends),
            ("Unmatched receives", &r.unmatched_recvs),
        ] {
            if list.is_empty() {
                continue;
            }
            doc.line(format!("\n{title} (first 20 of {}):", list.len()));
            for e in list.iter().take(20) {
                doc.line(format!(
                    "  proc {} {} peer {} tag {} size {} at {}",
                    e.proc,
                    e.kind,
                    e.peer,
                    e.tag,
                    e.size,
                    fixed(e.time, 9)
                ));
            }
        }
        doc
    }
}

/// Emptied text buffers for reuse by the parallel formatting tasks of
/// [`PairStream`]: new ones would be page-faulted in again for every task.
#[derive(Default)]
struct BufferPool(std::sync::Mutex<Vec<Vec<u8>>>);

impl BufferPool {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    fn give(&self, mut buf: Vec<u8>) {
        buf.clear();
        if let Ok(mut v) = self.0.lock() {
            v.push(buf);
        }
    }
}

/// Pairs formatted by one task, and the task's first error.
pub enum PairChunk {
    Json {
        text: Vec<u8>,
        error: Option<io::Error>,
    },
    Csv {
        /// Boxed: a CSV writer is ten times a JSON chunk's size.
        csv: Box<csv::Writer<Vec<u8>>>,
        error: Option<io::Error>,
    },
}

impl PairChunk {
    /// Formats one pair at the end of the chunk.
    pub fn add(&mut self, p: &Pair) {
        match self {
            PairChunk::Json { text, error } => {
                text.extend_from_slice(b",\n    ");
                if let Err(e) = serde_json::to_writer(&mut *text, p) {
                    error.get_or_insert(crate::report::renderers::json::io_error(e));
                }
            }
            PairChunk::Csv { csv, error } => {
                let r = csv.serialize((
                    p.from,
                    p.to,
                    p.tag,
                    p.size,
                    p.send_time,
                    p.recv_time,
                    p.latency,
                    p.completed_time,
                    p.latency_to_completion,
                ));
                if let Err(e) = r {
                    error.get_or_insert(crate::report::renderers::csv::csv_io_error(e));
                }
            }
        }
    }
}

/// Makes the chunks of a [`PairStream`] (shared by the pairing's tasks).
pub struct PairChunks {
    csv: bool,
    pool: BufferPool,
}

impl PairChunks {
    /// Chunks for `format`: [`Format::Csv`](crate::report::Format::Csv) gives CSV
    /// rows, anything else JSON.
    pub fn new(format: crate::report::Format) -> Self {
        PairChunks {
            csv: format == crate::report::Format::Csv,
            pool: BufferPool::default(),
        }
    }

    /// An empty chunk for one task.
    pub fn chunk(&self) -> PairChunk {
        if self.csv {
            PairChunk::Csv {
                csv: Box::new(
                    csv::WriterBuilder::new()
                        .has_headers(false)
                        .from_writer(self.pool.take()),
                ),
                error: None,
            }
        } else {
            PairChunk::Json {
                text: self.pool.take(),
                error: None,
            }
        }
    }
}

/// `comm pairs --format json|csv`: every matched message, written in
/// order as the pairing's tasks hand their chunks over (millions of pairs
/// never sit in memory), then the rest of the report. The first error
/// stops the writing and is returned by [`PairStream::finish`].
pub struct PairStream<'w> {
    out: &'w mut dyn Write,
    chunks: &'w PairChunks,
    /// No pair written yet (the first one takes no comma).
    first: bool,
    failed: Option<io::Error>,
}

impl<'w> PairStream<'w> {
    /// Writes the head (the JSON object's opening, or the CSV header).
    pub fn begin(out: &'w mut dyn Write, chunks: &'w PairChunks) -> Self {
        let mut stream = PairStream {
            out,
            chunks,
            first: true,
            failed: None,
        };
        if chunks.csv {
            let mut c = csv::Writer::from_writer(&mut *stream.out);
            let head = c
                .write_record([
                    "from",
                    "to",
                    "tag",
                    "size",
                    "send_time",
                    "recv_time",
                    "latency",
                    "completed_time",
                    "latency_to_completion",
                ])
                .map_err(crate::report::renderers::csv::csv_io_error)
                .and_then(|()| c.flush());
            drop(c);
            stream.keep(head);
        } else {
            let head = stream.out.write_all(b"{\n  \"pairs\": [");
            stream.keep(head);
        }
        stream
    }

    fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.failed.get_or_insert(e);
        }
    }

    /// Writes one task's chunk (the chunks come in order).
    pub fn write(&mut self, chunk: PairChunk) {
        match chunk {
            PairChunk::Json { text, error } => {
                let mut bytes = text.as_slice();
                if self.first && !bytes.is_empty() {
                    bytes = &bytes[1..];
                    self.first = false;
                }
                self.keep(error.map_or(Ok(()), Err));
                let r = self.out.write_all(bytes);
                self.keep(r);
                self.chunks.pool.give(text);
            }
            PairChunk::Csv { csv, error } => {
                self.keep(error.map_or(Ok(()), Err));
                match csv.into_inner() {
                    Ok(text) => {
                        let r = self.out.write_all(&text);
                        self.keep(r);
                        self.chunks.pool.give(text);
                    }
                    Err(e) => self.keep(Err(e.into_error())),
                }
            }
        }
    }

    /// Writes the tail (for JSON, the report's other fields, pretty) and
    /// returns the first error met.
    pub fn finish(mut self, report: &PairingSummary) -> io::Result<()> {
        if !self.chunks.csv {
            let r = self.out.write_all(b"\n  ]");
            self.keep(r);
            if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(report) {
                for (k, v) in m {
                    let text = serde_json::to_string_pretty(&v).unwrap_or_default();
                    let r = write!(self.out, ",\n  \"{k}\": {}", text.replace('\n', "\n  "));
                    self.keep(r);
                }
            }
            let r = self.out.write_all(b"\n}\n");
            self.keep(r);
        }
        self.failed.map_or(Ok(()), Err)
    }
}
