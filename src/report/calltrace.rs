//! The chronological text call trace of one process (amrprofparser
//! `-ttrace`, BLPROF_FORMAT.md §8.15), streamed block by block.
//!
//! Within a block, runs of consecutive calls of the same function at the
//! same depth (repeated leaf calls) are combined into one line with summed
//! calls and times, unless combining is off. The last two records of a block
//! are always printed on their own, as the reference does.

use std::io::{self, Write};

use super::numfmt::c_g;
use crate::error::{Location, Warning};
use crate::formats::blprof::database::{Database, ProcTrace};
use crate::formats::blprof::trace::{CallRecord, TraceBlock};

pub const HEADER: &str = "Text Trace  (function number :: function name :: inclusive time :: exclusive time :: ncalls :: callstackdepth :: call time)";

struct Line<'a> {
    w: &'a mut dyn Write,
    p: &'a ProcTrace,
    delimiter: &'a str,
    reference_names: bool,
}

impl Line<'_> {
    fn write(&mut self, c: &CallRecord) -> io::Result<()> {
        let d = self.delimiter;
        let raw = self.p.functions.name(c.fnum as i64).unwrap_or("?");
        let name = if self.reference_names {
            raw.replace(' ', "_")
        } else {
            raw.to_owned()
        };
        writeln!(
            self.w,
            "{}{d}{}{d}{}{d}{}{d}{}{d}{}{d}{}{d}{}",
            "---|".repeat(c.depth.max(0) as usize),
            c.fnum,
            name,
            c_g(c.inclusive, 16),
            c_g(c.exclusive, 16),
            c.ncalls,
            c.depth,
            c_g(c.start, 16)
        )
    }
}

/// Writes the trace of `p` (`reference_names`: spaces in names become `_`,
/// as amrprofparser prints them); returns warnings for blocks that could not be read.
pub fn write_calltrace(
    w: &mut dyn Write,
    db: &Database,
    p: &ProcTrace,
    delimiter: &str,
    combine: bool,
    reference_names: bool,
) -> io::Result<Vec<Warning>> {
    writeln!(w, "{HEADER}\n")?;
    let mut warnings = Vec::new();
    let mut out = Line {
        w,
        p,
        delimiter,
        reference_names,
    };
    for b in &p.blocks {
        db.progress().advance(1);
        let file = match db.trace_block_file(b) {
            Ok(f) => f,
            Err(e) => {
                warnings.push(Warning::new(
                    Location::line(&b.header, b.line),
                    format!("block skipped: {e}"),
                ));
                continue;
            }
        };
        let block = match TraceBlock::read(&file, b) {
            Ok(b) => b,
            Err(e) => {
                warnings.push(Warning::new(
                    Location::line(&b.header, b.line),
                    format!("block skipped: {e}"),
                ));
                continue;
            }
        };
        let n = block.calls_len();
        let mut comb: Option<CallRecord> = None;
        for i in 0..n {
            // Streamed: what is read need not stay resident.
            if i % 100_000 == 99_999 {
                file.release_before(block.offset_after_call(b, i.saturating_sub(2)));
            }
            let cs = block.call(i);
            if cs.is_sentinel() {
                continue;
            }
            if !combine {
                out.write(&cs)?;
                continue;
            }
            if i + 2 >= n {
                if let Some(c) = comb.take() {
                    out.write(&c)?;
                }
                out.write(&cs)?;
                continue;
            }
            let nx = block.call(i + 1);
            let acc = |c: Option<CallRecord>| match c {
                Some(mut c) => {
                    c.ncalls += cs.ncalls;
                    c.inclusive += cs.inclusive;
                    c.exclusive += cs.exclusive;
                    c
                }
                None => cs,
            };
            if nx.depth == cs.depth && nx.fnum == cs.fnum {
                comb = Some(acc(comb.take()));
            } else {
                let c = acc(comb.take());
                out.write(&c)?;
            }
        }
    }
    Ok(warnings)
}
