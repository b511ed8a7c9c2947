//! The tables of a dataset: per table its schema, its columns, how its
//! strings are derived, and the row source that fills its row groups from
//! the rows of [`crate::analysis::export_rows`].

use parquet::data_type::ByteArray;

use crate::analysis::comm::pairs::Pair;
use crate::analysis::export_rows::{self, CallRows, CommRows, FunctionRows};
use crate::analysis::regions::Regions;
use crate::error::{Error, Location, Result, Warning};
use crate::formats::blprof::commdata::{CommRecord, func_name};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::trace::CallRecord;
use crate::formats::blprof::walk::{CommBlockRecords, MappedTraceBlock};

use super::Dataset;
use super::table::{Column, FunctionNames, ROW_GROUP, RowGroup, Rows, Strings, write_table};

const CALLS: &str = "message calls {
    REQUIRED INT32 proc;
    REQUIRED INT32 depth;
    REQUIRED INT32 fnum;
    REQUIRED BYTE_ARRAY function (UTF8);
    REQUIRED INT64 ncalls;
    REQUIRED DOUBLE inclusive;
    REQUIRED DOUBLE exclusive;
    REQUIRED DOUBLE start;
}";

const FUNCTIONS: &str = "message functions {
    REQUIRED INT32 proc;
    REQUIRED INT32 fnum;
    REQUIRED BYTE_ARRAY function (UTF8);
    REQUIRED INT64 ncalls;
    REQUIRED DOUBLE exclusive;
}";

const REGIONS: &str = "message regions {
    REQUIRED INT32 proc;
    REQUIRED INT32 region;
    REQUIRED BYTE_ARRAY name (UTF8);
    REQUIRED DOUBLE start;
    REQUIRED DOUBLE stop;
}";

const COMM: &str = "message comm {
    REQUIRED INT32 proc;
    REQUIRED INT32 type;
    REQUIRED BYTE_ARRAY type_name (UTF8);
    REQUIRED INT32 size;
    REQUIRED INT32 peer;
    REQUIRED INT32 tag;
    REQUIRED DOUBLE time;
}";

const MESSAGES: &str = "message messages {
    REQUIRED INT32 sender;
    REQUIRED INT32 receiver;
    REQUIRED INT32 tag;
    REQUIRED INT32 size;
    REQUIRED DOUBLE send_time;
    REQUIRED DOUBLE recv_time;
    REQUIRED DOUBLE latency;
    OPTIONAL DOUBLE completed_time;
    OPTIONAL DOUBLE latency_to_completion;
}";

impl<'a, B> Rows for CallRows<'a, B>
where
    B: Iterator<Item = std::result::Result<MappedTraceBlock<'a>, Warning>>,
{
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        let [
            Column::I32(procs),
            Column::I32(depth),
            Column::I32(fnum),
            Column::Text,
            Column::I64(ncalls),
            Column::F64(inclusive),
            Column::F64(exclusive),
            Column::F64(start),
        ] = &mut rg.columns[..]
        else {
            unreachable!("schema and columns are declared together")
        };
        rg.rows += self.next_rows(ROW_GROUP - rg.rows, |proc, c: &CallRecord| {
            procs.push(proc);
            depth.push(c.depth);
            fnum.push(c.fnum);
            ncalls.push(c.ncalls);
            inclusive.push(c.inclusive);
            exclusive.push(c.exclusive);
            start.push(c.start);
        });
        Ok(())
    }
}

pub(super) fn write_calls(
    db: &Database,
    out: &Dataset<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<u64> {
    use Column::*;
    let procs = &db.trace_index().procs;
    // Names once per process (a ByteArray clone shares its bytes).
    let names = procs
        .iter()
        .filter_map(|p| {
            let proc = i32::try_from(p.proc).ok()?;
            let table = FunctionNames::new(p.functions.entries.iter().filter_map(|(n, name)| {
                Some((
                    i32::try_from(*n).ok()?,
                    ByteArray::from(name.as_bytes().to_vec()),
                ))
            }));
            Some((proc, table))
        })
        .collect();
    let mut rows = export_rows::call_rows(db, out.procs());
    let written = write_table(
        out,
        "calls",
        CALLS,
        || {
            vec![
                I32(vec![]),
                I32(vec![]),
                I32(vec![]),
                Text,
                I64(vec![]),
                F64(vec![]),
                F64(vec![]),
                F64(vec![]),
            ]
        },
        &Strings::Function(names),
        &mut rows,
    );
    warnings.append(&mut rows.take_warnings());
    written
}

impl Rows for FunctionRows<'_> {
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        let [
            Column::I32(procs),
            Column::I32(fnum),
            Column::Text,
            Column::I64(ncalls),
            Column::F64(exclusive),
        ] = &mut rg.columns[..]
        else {
            unreachable!("schema and columns are declared together")
        };
        rg.rows += self.next_rows(ROW_GROUP - rg.rows, |proc, f, n, t| {
            procs.push(proc);
            fnum.push(f);
            ncalls.push(n);
            exclusive.push(t);
        });
        Ok(())
    }
}

pub(super) fn write_functions(
    db: &Database,
    out: &Dataset<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<u64> {
    use Column::*;
    let profile = db.base_profile(warnings)?;
    let names = profile
        .header
        .functions
        .iter()
        .map(|n| ByteArray::from(n.as_bytes().to_vec()))
        .collect();
    let mut rows = FunctionRows::new(&profile, out.procs());
    write_table(
        out,
        "functions",
        FUNCTIONS,
        || vec![I32(vec![]), I32(vec![]), Text, I64(vec![]), F64(vec![])],
        &Strings::BaseFunction(names),
        &mut rows,
    )
}

/// The closed ranges of every region of every process.
struct RegionRows<I> {
    rows: I,
}

impl<I: Iterator<Item = (i32, i32, f64, f64)>> Rows for RegionRows<I> {
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        while rg.rows < ROW_GROUP {
            let Some((proc, number, start, stop)) = self.rows.next() else {
                break;
            };
            rg.i32s(0).push(proc);
            rg.i32s(1).push(number);
            rg.f64s(3).push(start);
            rg.f64s(4).push(stop);
            rg.rows += 1;
        }
        Ok(())
    }
}

pub(super) fn write_regions(regions: &Regions, out: &Dataset<'_>) -> Result<u64> {
    use Column::*;
    let names = regions
        .procs
        .iter()
        .flat_map(|p| p.ranges.keys().copied())
        .map(|n| (n, ByteArray::from(regions.name(n).into_bytes())))
        .collect();
    let mut rows = RegionRows {
        rows: export_rows::region_rows(regions, out.procs()),
    };
    write_table(
        out,
        "regions",
        REGIONS,
        || vec![I32(vec![]), I32(vec![]), Text, F64(vec![]), F64(vec![])],
        &Strings::Region(names),
        &mut rows,
    )
}

impl<'a, B> Rows for CommRows<'a, B>
where
    B: Iterator<Item = std::result::Result<CommBlockRecords<'a>, Warning>>,
{
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        let [
            Column::I32(procs),
            Column::I32(kind),
            Column::Text,
            Column::I32(size),
            Column::I32(peer),
            Column::I32(tag),
            Column::F64(time),
        ] = &mut rg.columns[..]
        else {
            unreachable!("schema and columns are declared together")
        };
        rg.rows += self.next_rows(ROW_GROUP - rg.rows, |proc, r: &CommRecord| {
            procs.push(proc);
            kind.push(r.kind);
            size.push(r.size);
            peer.push(r.peer);
            tag.push(r.tag);
            time.push(r.time);
        });
        Ok(())
    }
}

pub(super) fn write_comm(
    db: &Database,
    out: &Dataset<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<u64> {
    use Column::*;
    let type_names: Vec<ByteArray> = (0..=42)
        .map(|k| ByteArray::from(func_name(k).unwrap_or("?").as_bytes().to_vec()))
        .collect();
    let unknown = ByteArray::from(b"?".to_vec());
    let mut rows = export_rows::comm_rows(db, out.procs());
    let written = write_table(
        out,
        "comm",
        COMM,
        || {
            vec![
                I32(vec![]),
                I32(vec![]),
                Text,
                I32(vec![]),
                I32(vec![]),
                I32(vec![]),
                F64(vec![]),
            ]
        },
        &Strings::CommType(type_names, unknown),
        &mut rows,
    );
    warnings.append(&mut rows.take_warnings());
    written
}

/// The matched messages, as chunks of pairs come from the pairing.
struct MessageRows {
    chunks: std::sync::mpsc::Receiver<Vec<Pair>>,
    chunk: std::vec::IntoIter<Pair>,
}

impl Rows for MessageRows {
    fn fill(&mut self, rg: &mut RowGroup) -> Result<()> {
        while rg.rows < ROW_GROUP {
            let Some(p) = self.chunk.next() else {
                match self.chunks.recv() {
                    Ok(c) => self.chunk = c.into_iter(),
                    Err(_) => break, // the pairing is done
                }
                continue;
            };
            let [
                Column::I32(sender),
                Column::I32(receiver),
                Column::I32(tag),
                Column::I32(size),
                Column::F64(send_time),
                Column::F64(recv_time),
                Column::F64(latency),
                Column::OptF64(completed, completed_defined),
                Column::OptF64(to_completion, to_completion_defined),
            ] = &mut rg.columns[..]
            else {
                unreachable!("schema and columns are declared together")
            };
            sender.push(i32::try_from(p.from).unwrap_or(i32::MAX));
            receiver.push(i32::try_from(p.to).unwrap_or(i32::MAX));
            tag.push(p.tag);
            size.push(p.size);
            send_time.push(p.send_time);
            recv_time.push(p.recv_time);
            latency.push(p.latency);
            let optional = |v: Option<f64>, values: &mut Vec<f64>, defined: &mut Vec<i16>| {
                defined.push(i16::from(v.is_some()));
                values.extend(v);
            };
            optional(p.completed_time, completed, completed_defined);
            optional(
                p.latency_to_completion,
                to_completion,
                to_completion_defined,
            );
            rg.rows += 1;
        }
        Ok(())
    }
}

/// `messages/`: every send paired with its receive
/// ([`export_rows::sent_messages`]: each shard the messages its processes
/// sent). The pairing runs on its own thread and
/// hands its chunks over a short queue, so memory holds a few chunks.
pub(super) fn write_messages(
    db: &Database,
    out: &Dataset<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<u64> {
    use Column::*;
    let (send, chunks) = std::sync::mpsc::sync_channel::<Vec<Pair>>(4);
    std::thread::scope(|scope| {
        let pairing = scope.spawn(move || {
            // A writer that failed stops reading: the rest is dropped.
            export_rows::sent_messages(db, out.procs(), &mut |v| {
                if !v.is_empty() {
                    let _ = send.send(v);
                }
            })
        });
        let mut rows = MessageRows {
            chunks,
            chunk: Vec::new().into_iter(),
        };
        let written = write_table(
            out,
            "messages",
            MESSAGES,
            || {
                vec![
                    I32(vec![]),
                    I32(vec![]),
                    I32(vec![]),
                    I32(vec![]),
                    F64(vec![]),
                    F64(vec![]),
                    F64(vec![]),
                    OptF64(vec![], vec![]),
                    OptF64(vec![], vec![]),
                ]
            },
            &Strings::None,
            &mut rows,
        );
        // Unblocks the pairing if the writer stopped early.
        drop(rows);
        let Ok(found) = pairing.join() else {
            return Err(Error::invalid(
                Location::file(out.dir),
                "the pairing of messages failed: messages/ is incomplete",
            ));
        };
        warnings.extend(found);
        written
    })
}
