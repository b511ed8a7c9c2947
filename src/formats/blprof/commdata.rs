//! Communication data blocks (`bl_comm_prof_D_*`): `nCommStats` records of
//! `CommStatsSize` bytes (24 with f64 `Real`, 20 with f32), decoded on the fly.
//!
//! Reports stream each block's records through a small buffer with
//! positioned reads (`pread`) from data files opened once per run; `comm
//! check` maps one block at a time. Every block is checked against its
//! file's length before it is read.

use std::path::Path;
use std::sync::Arc;

use super::base::RealWidth;
use super::comm::CommBlockRef;
use crate::error::{Error, Location, Result, Warning};
use crate::source::{DataHandle, InputFile};

/// `size`/`commpid`/`tag` sentinel: the record before an MPI call.
pub const BEFORE_CALL: i32 = -5;
/// The record after an MPI call.
pub const AFTER_CALL: i32 = -7;

/// The names of CommFuncType 0..=42, as amrprofparser prints them.
pub const FUNC_NAMES: [&str; 43] = [
    "InvalidCFT",
    "AllReduceT",
    "AllReduceR",
    "AllReduceL",
    "AllReduceI",
    "AsendTsii",
    "AsendTsiiM",
    "AsendvTii",
    "SendTsii",
    "SendvTii",
    "ArecvTsii",
    "ArecvTsiiM",
    "ArecvTii",
    "ArecvvTii",
    "RecvTsii",
    "RecvvTii",
    "ReduceT",
    "ReduceR",
    "ReduceL",
    "ReduceI",
    "BCastTsi",
    "GatherTsT1Si",
    "GatherTi",
    "GatherRiRi",
    "ScatterTsT1si",
    "Barrier",
    "Waitsome",
    "NameTag",
    "AllCFTypes",
    "NoCFTypes",
    "IOStart",
    "IOEnd",
    "TagWrap",
    "Allgather",
    "Alltoall",
    "Alltoallv",
    "Gatherv",
    "Get_count",
    "Iprobe",
    "Test",
    "Wait",
    "Waitall",
    "Waitany",
];

pub const BARRIER: i32 = 25;
pub const WAITSOME: i32 = 26;
pub const NAME_TAG: i32 = 27;

/// The CommFuncType name of `kind`, or `None` outside 0..=42.
pub fn func_name(kind: i32) -> Option<&'static str> {
    usize::try_from(kind)
        .ok()
        .and_then(|k| FUNC_NAMES.get(k).copied())
}

/// True for the send types (5..=9).
pub fn is_send(kind: i32) -> bool {
    (5..=9).contains(&kind)
}

/// True for the receive types (10..=15).
pub fn is_recv(kind: i32) -> bool {
    (10..=15).contains(&kind)
}

/// One communication record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommRecord {
    pub kind: i32,
    pub size: i32,
    pub peer: i32,
    pub tag: i32,
    pub time: f64,
}

#[cfg(test)]
impl CommRecord {
    /// A record from its fields, for the analyses' unit tests.
    pub(crate) fn of(kind: i32, size: i32, peer: i32, tag: i32, time: f64) -> Self {
        CommRecord {
            kind,
            size,
            peer,
            tag,
            time,
        }
    }
}

/// One block's records, decoded from the mapped bytes.
#[derive(Debug, Clone, Copy)]
pub struct CommBlock<'a> {
    bytes: &'a [u8],
    stride: usize,
    real: RealWidth,
}

impl<'a> CommBlock<'a> {
    /// Locates `block` in `file`, checking `seekpos + n · record size`
    /// against the file length (with overflow checks) before any read. A
    /// `record_size` too small for one record (16 + the Real width) is an error.
    pub fn read(
        file: &'a InputFile,
        block: &CommBlockRef,
        record_size: u64,
        real: RealWidth,
    ) -> Result<CommBlock<'a>> {
        let len = checked_len(block, record_size, real, file.path(), file.len())?;
        let bytes = file
            .range(block.seekpos, len)
            .map_err(|_| past_end(block, record_size, file.path(), file.len()))?;
        Ok(CommBlock {
            bytes,
            stride: record_size as usize,
            real,
        })
    }

    pub fn len(&self) -> usize {
        self.bytes.len() / self.stride.max(1)
    }

    #[cfg(feature = "internals")]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Record `i` (`i < len()`).
    pub fn get(&self, i: usize) -> Option<CommRecord> {
        let start = i.checked_mul(self.stride)?;
        let r = self.bytes.get(start..start.checked_add(self.stride)?)?;
        Some(decode(r, self.real))
    }

    pub fn records(&self) -> impl ExactSizeIterator<Item = CommRecord> + 'a {
        let real = self.real;
        self.bytes
            .chunks_exact(self.stride.max(1))
            .map(move |r| decode(r, real))
    }
}

/// The block's length in bytes, checked against `file_len` (with overflow
/// checks) before anything is read.
fn checked_len(
    block: &CommBlockRef,
    record_size: u64,
    real: RealWidth,
    path: &Path,
    file_len: u64,
) -> Result<u64> {
    let min = 16 + real.bytes();
    if record_size < min {
        return Err(Error::invalid(
            Location::line(&block.header, block.line),
            format!(
                "comm block of process {}: records of {record_size} bytes cannot hold kind, size, peer, tag and a {}-byte time ({min} bytes)",
                block.proc,
                real.bytes()
            ),
        ));
    }
    let len = block.ncomm.checked_mul(record_size).ok_or_else(|| {
        Error::oversized(
            Location::line(&block.header, block.line),
            format!(
                "comm block of process {} claims {} records: more than any file can hold",
                block.proc, block.ncomm
            ),
        )
    })?;
    match block.seekpos.checked_add(len) {
        Some(end) if end <= file_len => Ok(len),
        _ => Err(past_end(block, record_size, path, file_len)),
    }
}

fn past_end(block: &CommBlockRef, record_size: u64, path: &Path, file_len: u64) -> Error {
    Error::PastEnd {
        location: Location::offset(path, block.seekpos),
        block: format!(
            "comm block of process {} ({} records of {record_size} bytes; header {}:{})",
            block.proc,
            block.ncomm,
            block.header.display(),
            block.line,
        ),
        end: block
            .seekpos
            .saturating_add(block.ncomm.saturating_mul(record_size)),
        file_len,
    }
}

/// The largest record size a header can declare (`CommStatsSize` is 24 or 20).
const MAX_RECORD_SIZE: usize = 24;

/// Records `first .. first + N` of `block` (fewer past its end), read with
/// one positioned read into a buffer on the stack: for readers that pick a
/// few records by index in each of thousands of blocks (`comm barriers`),
/// where opening a [`CommRecords`] per block allocated a buffer each time.
pub fn records_at<const N: usize>(
    file: &DataHandle,
    block: &CommBlockRef,
    record_size: u64,
    real: RealWidth,
    first: u64,
) -> Result<[Option<CommRecord>; N]> {
    let len = checked_len(block, record_size, real, file.path(), file.len())?;
    let stride = record_size as usize;
    let available = (len / record_size).saturating_sub(first);
    let n = available.min(N as u64) as usize;
    let mut buf = [[0u8; MAX_RECORD_SIZE]; N];
    let Some(bytes) = buf.as_flattened_mut().get_mut(..n * stride) else {
        return Err(Error::invalid(
            Location::line(&block.header, block.line),
            format!("records of {record_size} bytes are longer than any CommStatsSize"),
        ));
    };
    let mut out = [None; N];
    if n > 0 {
        file.read_exact_at(bytes, block.seekpos + first * record_size)?;
        for (o, r) in out.iter_mut().zip(bytes.chunks_exact(stride)) {
            *o = Some(decode(r, real));
        }
    }
    Ok(out)
}

/// Records per positioned read of [`CommRecords`] (about 256 KiB).
const STREAM_RECORDS: u64 = 10_000;

thread_local! {
    /// The buffer of the thread's last [`CommRecords`], for its next one: a
    /// buffer allocated and freed per block was a tenth of `comm stats`'
    /// time at 16,384 processes (a block of a few kilobytes each).
    static SPARE_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A block's records read in order through a small buffer with positioned
/// reads: resident memory stays at the buffer whatever the block's size (a
/// mapped block stays resident until it is unmapped). For reports that read
/// each record once.
pub struct CommRecords {
    file: Arc<DataHandle>,
    /// File offset of the next unread byte, and the block's end.
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    at: usize,
    stride: usize,
    real: RealWidth,
    error: Option<Error>,
}

impl CommRecords {
    /// Opens `block` in the data file `file`, checking its extent first.
    pub fn open(
        file: Arc<DataHandle>,
        block: &CommBlockRef,
        record_size: u64,
        real: RealWidth,
    ) -> Result<CommRecords> {
        let len = checked_len(block, record_size, real, file.path(), file.len())?;
        Ok(CommRecords {
            file,
            pos: block.seekpos,
            end: block.seekpos + len,
            buf: SPARE_BUFFER.take(),
            at: 0,
            stride: record_size as usize,
            real,
            error: None,
        })
    }

    /// The remaining records of the current buffer, refilled first when it
    /// is used up; `None` when the records run out. A plain loop over each
    /// batch keeps its state in registers (the iterator checks for a refill
    /// per record, and a closure's captured state stays in memory).
    #[inline]
    pub fn next_batch(&mut self) -> Option<RecordBatch<'_>> {
        if self.at + self.stride > self.buf.len() && !self.refill() {
            return None;
        }
        let at = std::mem::replace(&mut self.at, self.buf.len());
        Some(RecordBatch {
            bytes: &self.buf[at..],
            stride: self.stride,
            real: self.real,
        })
    }

    /// Ok when every record was read; the read error otherwise (the file
    /// changed or failed under us: the records before it were delivered).
    pub fn finish(mut self) -> Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }

    fn refill(&mut self) -> bool {
        let n = (self.end - self.pos).min(STREAM_RECORDS * self.stride as u64) as usize;
        if n < self.stride || self.error.is_some() {
            return false;
        }
        self.buf.resize(n, 0);
        if let Err(e) = self.file.read_exact_at(&mut self.buf, self.pos) {
            self.error = Some(e);
            return false;
        }
        self.pos += n as u64;
        self.at = 0;
        true
    }
}

/// A buffer of records from [`CommRecords::next_batch`].
pub struct RecordBatch<'a> {
    bytes: &'a [u8],
    stride: usize,
    real: RealWidth,
}

impl RecordBatch<'_> {
    #[inline]
    pub fn records(&self) -> impl Iterator<Item = CommRecord> + '_ {
        self.bytes
            .chunks_exact(self.stride)
            .map(|r| decode(r, self.real))
    }
}

impl Drop for CommRecords {
    fn drop(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        SPARE_BUFFER.set(buf);
    }
}

impl Iterator for CommRecords {
    type Item = CommRecord;

    // Always inlined: its callers' loops run once per record, and left to
    // itself the compiler kept it out of some of them (the Parquet export's
    // comm rows, behind the block walk: 12 M instructions more).
    #[inline(always)]
    fn next(&mut self) -> Option<CommRecord> {
        if self.at + self.stride > self.buf.len() && !self.refill() {
            return None;
        }
        let r = decode(&self.buf[self.at..self.at + self.stride], self.real);
        self.at += self.stride;
        Some(r)
    }
}

#[inline(always)]
fn decode(r: &[u8], real: RealWidth) -> CommRecord {
    // The common layout with fixed offsets: no bounds check per field.
    if let (RealWidth::F64, Ok(r)) = (real, <&[u8; 24]>::try_from(r)) {
        let i = |at: usize| i32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]]);
        let mut t = [0u8; 8];
        t.copy_from_slice(&r[16..24]);
        return CommRecord {
            kind: i(0),
            size: i(4),
            peer: i(8),
            tag: i(12),
            time: f64::from_le_bytes(t),
        };
    }
    let i = |at: usize| i32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]]);
    CommRecord {
        kind: i(0),
        size: i(4),
        peer: i(8),
        tag: i(12),
        time: real.read(&r[16..]),
    }
}

/// Bounds `block`'s record count by the bytes its data file holds (as
/// [`super::trace::fit_to_file`] for call traces): a header claiming more
/// `record`-byte records than fit between `seekpos` and the end of a file
/// of `file_len` bytes is cut to the whole records there, with a warning
/// naming the header line. A block starting past the end is left to its
/// readers to report.
pub fn fit_to_file(
    file: &Path,
    file_len: u64,
    record: u64,
    block: &mut CommBlockRef,
) -> Option<Warning> {
    let available = file_len.checked_sub(block.seekpos).filter(|&a| a > 0)?;
    if block
        .ncomm
        .checked_mul(record)
        .is_some_and(|n| n <= available)
        || record == 0
    {
        return None;
    }
    let ncomm = available / record;
    let warning = Warning::new(
        Location::line(&block.header, block.line),
        format!(
            "comm block of process {} claims {} records, more than {} holds \
             ({available} bytes from byte offset {}): a damaged header or a cut data file; read as {ncomm} records",
            block.proc,
            block.ncomm,
            file.display(),
            block.seekpos,
        ),
    );
    block.ncomm = ncomm;
    Some(warning)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_checks_bounds() {
        let mut bytes = Vec::new();
        for (k, s, p, t, time) in [(25, 0, -5, 3, 0.5f64), (25, -7, -7, 3, 0.75)] {
            for v in [k, s, p, t] as [i32; 4] {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            bytes.extend_from_slice(&time.to_le_bytes());
        }
        let f = InputFile::from_bytes("bl_comm_prof_D_00000", bytes);
        let mut b = CommBlockRef {
            proc: 0,
            ncomm: 2,
            datafile: "bl_comm_prof_D_00000".into(),
            seekpos: 0,
            host: None,
            barriers: Default::default(),
            name_tags: Default::default(),
            rare: None,
            time_min_max: None,
            timer_time: None,
            tag_range: None,
            header: std::path::Path::new("h").into(),
            line: 1,
        };
        let blk = CommBlock::read(&f, &b, 24, RealWidth::F64).unwrap();
        assert_eq!(blk.len(), 2);
        assert_eq!(
            blk.get(1).unwrap(),
            CommRecord {
                kind: 25,
                size: -7,
                peer: -7,
                tag: 3,
                time: 0.75
            }
        );
        assert_eq!(func_name(25), Some("Barrier"));
        assert_eq!(func_name(43), None);
        b.ncomm = 3;
        let e = CommBlock::read(&f, &b, 24, RealWidth::F64)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("byte offset 0") && e.contains("runs past the end"),
            "{e}"
        );
        b.ncomm = 1 << 62;
        assert!(CommBlock::read(&f, &b, 24, RealWidth::F64).is_err());
    }
}
