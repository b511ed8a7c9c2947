//! Call-trace data blocks (`bl_call_stats_D_*`): `nRSS` region start/stop
//! records, then `nTraceStats` call records, the first a sentinel
//! (BLPROF_FORMAT.md §5.2–5.4, BLPROF_REAL_DATA.md §3–4).
//!
//! Records are decoded on the fly from the mapped bytes; nothing is copied.

use super::base::RealWidth;
use super::callstats::TraceBlockRef;
use crate::error::{Error, Location, Result, Warning};
use crate::source::{DataHandle, InputFile};

/// A region start or stop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegionRecord {
    pub time: f64,
    /// Rank-local region number.
    pub number: i32,
    pub start: bool,
}

/// One timed call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallRecord {
    /// Nesting depth; the outermost timed call is 0.
    pub depth: i32,
    /// Rank-local function number (`fName` table of the process).
    pub fnum: i32,
    pub ncalls: i64,
    /// Inclusive seconds.
    pub inclusive: f64,
    /// Exclusive seconds.
    pub exclusive: f64,
    /// Start time (seconds since the process's profiler start).
    pub start: f64,
}

impl CallRecord {
    /// The per-block dummy (and anything else with negative depth or function).
    pub fn is_sentinel(&self) -> bool {
        self.depth < 0 || self.fnum < 0
    }

    pub fn end(&self) -> f64 {
        self.start + self.inclusive
    }
}

fn region_size(real: RealWidth) -> u64 {
    real.bytes() + 8
}

fn call_size(real: RealWidth) -> u64 {
    match real {
        RealWidth::F64 => 40,
        RealWidth::F32 => 32,
    }
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn i64_at(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_le_bytes(a)
}

/// Bytes of the region records and of the whole block, assuming `real`.
fn extent(block: &TraceBlockRef, real: RealWidth) -> Result<(u64, u64)> {
    let too_big = || {
        Error::oversized(
            Location::line(&block.header, block.line),
            format!(
                "trace block of process {} claims {} region and {} call records: more than any file can hold",
                block.proc, block.nrss, block.ntrace
            ),
        )
    };
    let rbytes = block
        .nrss
        .checked_mul(region_size(real))
        .ok_or_else(too_big)?;
    let cbytes = block
        .ntrace
        .checked_mul(call_size(real))
        .ok_or_else(too_big)?;
    let total = rbytes.checked_add(cbytes).ok_or_else(too_big)?;
    Ok((rbytes, total))
}

/// A block of `total` bytes that does not fit in its file of `file_len` bytes.
fn past_end(block: &TraceBlockRef, total: u64, path: &std::path::Path, file_len: u64) -> Error {
    Error::PastEnd {
        location: Location::offset(path, block.seekpos),
        block: format!(
            "trace block of process {} ({} region + {} call records, {total} bytes; header {}:{})",
            block.proc,
            block.nrss,
            block.ntrace,
            block.header.display(),
            block.line,
        ),
        end: block.seekpos.saturating_add(total),
        file_len,
    }
}

/// One trace block's bytes, split into its two record arrays.
#[derive(Debug, Clone, Copy)]
pub struct TraceBlock<'a> {
    regions: &'a [u8],
    calls: &'a [u8],
    real: RealWidth,
}

impl<'a> TraceBlock<'a> {
    /// Locates `block` in `file`, detecting the Real width from the
    /// sentinel (f64 unless only the f32 layout shows one), and checking
    /// that the whole block lies inside the file.
    pub fn read(file: &'a InputFile, block: &TraceBlockRef) -> Result<TraceBlock<'a>> {
        let f64_block = Self::read_as(file, block, RealWidth::F64);
        if matches!(&f64_block, Ok(b) if b.has_sentinel()) {
            return f64_block;
        }
        match Self::read_as(file, block, RealWidth::F32) {
            Ok(b) if b.has_sentinel() => Ok(b),
            _ => f64_block,
        }
    }

    /// Locates `block` assuming `real`.
    pub fn read_as(
        file: &'a InputFile,
        block: &TraceBlockRef,
        real: RealWidth,
    ) -> Result<TraceBlock<'a>> {
        let (rbytes, total) = extent(block, real)?;
        let bytes = file
            .range(block.seekpos, total)
            .map_err(|_| past_end(block, total, file.path(), file.len()))?;
        let (regions, calls) = bytes.split_at(rbytes as usize);
        Ok(TraceBlock {
            regions,
            calls,
            real,
        })
    }

    pub fn real(&self) -> RealWidth {
        self.real
    }

    fn has_sentinel(&self) -> bool {
        self.calls_len() > 0 && {
            let c = self.call(0);
            c.depth == -1 && c.fnum == -1 && c.ncalls == -1 && (c.inclusive + 1.1).abs() < 1e-6
        }
    }

    #[cfg(feature = "internals")]
    pub fn regions_len(&self) -> usize {
        self.regions.len() / region_size(self.real) as usize
    }

    pub fn calls_len(&self) -> usize {
        self.calls.len() / call_size(self.real) as usize
    }

    pub fn regions(&self) -> impl ExactSizeIterator<Item = RegionRecord> + 'a {
        let real = self.real;
        self.regions
            .chunks_exact(region_size(real) as usize)
            .map(move |r| {
                let w = real.bytes() as usize;
                RegionRecord {
                    time: real.read(r),
                    number: i32_at(r, w),
                    start: i32_at(r, w + 4) != 0,
                }
            })
    }

    /// File offset just past call record `i` of `block` (for releasing the
    /// bytes already read, see [`InputFile::release_before`]).
    pub fn offset_after_call(&self, block: &TraceBlockRef, i: usize) -> u64 {
        block.seekpos + self.regions.len() as u64 + (i as u64 + 1) * call_size(self.real)
    }

    /// Call record `i` (`i < calls_len()`).
    pub fn call(&self, i: usize) -> CallRecord {
        let s = call_size(self.real) as usize;
        decode_call(&self.calls[i * s..(i + 1) * s], self.real)
    }

    /// All call records, the sentinel included.
    #[cfg(any(test, feature = "internals"))]
    pub fn calls(&self) -> impl ExactSizeIterator<Item = CallRecord> + 'a {
        let real = self.real;
        self.calls
            .chunks_exact(call_size(real) as usize)
            .map(move |c| decode_call(c, real))
    }
}

/// Decodes one call record of `real`'s layout (`c` holds at least one record).
#[inline(always)]
pub fn decode_call(c: &[u8], real: RealWidth) -> CallRecord {
    // The common layout with fixed offsets: no bounds check per field.
    if let (RealWidth::F64, Ok(c)) = (real, <&[u8; 40]>::try_from(c)) {
        let f = |at: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&c[at..at + 8]);
            f64::from_le_bytes(a)
        };
        return CallRecord {
            depth: i32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            fnum: i32::from_le_bytes([c[4], c[5], c[6], c[7]]),
            ncalls: i64::from_le_bytes([c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]]),
            inclusive: f(16),
            exclusive: f(24),
            start: f(32),
        };
    }
    let w = real.bytes() as usize;
    CallRecord {
        depth: i32_at(c, 0),
        fnum: i32_at(c, 4),
        ncalls: i64_at(c, 8),
        inclusive: real.read(&c[16..]),
        exclusive: real.read(&c[16 + w..]),
        start: real.read(&c[16 + 2 * w..]),
    }
}

/// Call records per positioned read of [`stream_calls`] (250 KB of f64
/// records: the buffer stays in cache while it is decoded).
const STREAM_CALLS: usize = 6400;

/// Calls `f` on every call record of `block` (the sentinel included), in
/// order, read from its data file with positioned reads into a small
/// buffer. For whole passes over big blocks this beats a memory map: no page
/// table work per 4 KiB, memory stays at the buffer. The Real width is
/// detected as [`TraceBlock::read`] does, with the same errors.
#[cfg(test)]
pub fn stream_calls(
    file: &DataHandle,
    block: &TraceBlockRef,
    mut f: impl FnMut(&CallRecord),
) -> Result<()> {
    stream_call_batches(file, block, |batch| {
        // One plain loop, so that `f` is inlined into it.
        for c in batch.calls() {
            f(&c);
        }
    })
}

/// [`stream_calls`] a buffer at a time: `f` gets each buffer of records,
/// so that a caller's loop over one keeps its state in registers (a
/// closure called per record keeps what it captured in memory).
pub fn stream_call_batches(
    file: &DataHandle,
    block: &TraceBlockRef,
    mut f: impl FnMut(CallBatch<'_>),
) -> Result<()> {
    with_scratch(|buf| {
        // A small block's calls at once: one positioned read instead of
        // two for the many tiny blocks of a run of thousands of processes.
        if let Some(len) = read_small_f64(file, block, buf, SmallRead::Calls)? {
            f(CallBatch {
                bytes: &buf[..len.total],
                real: RealWidth::F64,
            });
            return Ok(());
        }
        let (real, rbytes, total) = locate(file, block)?;
        let stride = call_size(real) as usize;
        let buf = sized(buf, STREAM_CALLS.min(block.ntrace as usize) * stride);
        let mut at = block.seekpos + rbytes;
        let end = block.seekpos + total;
        while at < end {
            let n = buf.len().min((end - at) as usize);
            file.read_exact_at(&mut buf[..n], at)?;
            f(CallBatch {
                bytes: &buf[..n],
                real,
            });
            at += n as u64;
        }
        Ok(())
    })
}

thread_local! {
    /// The thread's buffer for the records read from a block (at most
    /// [`STREAM_CALLS`] records): a run of thousands of tiny processes
    /// allocated, zeroed and freed one per block read otherwise.
    static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Runs `f` with the thread's scratch buffer (taken out while `f` runs, so
/// that a read nested in `f` gets a buffer of its own).
fn with_scratch<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    let mut buf = SCRATCH.take();
    let r = f(&mut buf);
    SCRATCH.set(buf);
    r
}

/// The first `len` bytes of `buf`, grown as needed; what they held before
/// is left (every reader overwrites them whole).
fn sized(buf: &mut Vec<u8>, len: usize) -> &mut [u8] {
    if buf.len() < len {
        buf.resize(len, 0);
    }
    &mut buf[..len]
}

/// A buffer of call records (see [`stream_call_batches`]).
#[derive(Clone, Copy)]
pub struct CallBatch<'a> {
    bytes: &'a [u8],
    real: RealWidth,
}

impl<'a> CallBatch<'a> {
    /// The records, the sentinel included.
    #[inline]
    pub fn calls(self) -> impl Iterator<Item = CallRecord> + 'a {
        let real = self.real;
        self.bytes
            .chunks_exact(call_size(real) as usize)
            .map(move |c| decode_call(c, real))
    }
}

/// The region records of `block`, read with positioned reads; the Real
/// width is the one the calls' sentinel shows, as in [`TraceBlock::read`].
pub fn read_regions(file: &DataHandle, block: &TraceBlockRef) -> Result<Vec<RegionRecord>> {
    let (real, rbytes, _) = locate(file, block)?;
    let stride = region_size(real) as usize;
    let mut records = Vec::new();
    with_scratch(|buf| {
        let buf = sized(buf, (STREAM_CALLS * stride).min(rbytes as usize));
        let mut at = block.seekpos;
        let end = block.seekpos + rbytes;
        while at < end {
            let n = buf.len().min((end - at) as usize);
            file.read_exact_at(&mut buf[..n], at)?;
            let regions = TraceBlock {
                regions: &buf[..n],
                calls: &[],
                real,
            };
            records.extend(regions.regions());
            at += n as u64;
        }
        Ok(records)
    })
}

/// Bytes up to which a block is read whole by [`read_regions_and_call_batches`]
/// (the reads the read-ahead window serves, see `crate::source`).
const WHOLE_BLOCK: u64 = 16 << 10;

/// [`read_regions`] and [`stream_call_batches`] of one block, with the same
/// answers and errors, for a pass that wants both: a small f64 block (most
/// of a run of thousands of processes) is read once, whole, instead of
/// once per part, with its Real width found once.
pub fn read_regions_and_call_batches(
    file: &DataHandle,
    block: &TraceBlockRef,
    mut f: impl FnMut(CallBatch<'_>),
) -> (Result<Vec<RegionRecord>>, Result<()>) {
    let whole = with_scratch(|buf| {
        // On a failed read, each part is read again, with its own errors.
        let len = read_small_f64(file, block, buf, SmallRead::Whole)
            .ok()
            .flatten()?;
        let (regions, calls) = buf[..len.total].split_at(len.regions);
        f(CallBatch {
            bytes: calls,
            real: RealWidth::F64,
        });
        let regions = TraceBlock {
            regions,
            calls: &[],
            real: RealWidth::F64,
        };
        Some(regions.regions().collect())
    });
    match whole {
        Some(regions) => (Ok(regions), Ok(())),
        None => {
            let calls = stream_call_batches(file, block, f);
            (read_regions(file, block), calls)
        }
    }
}

/// Byte lengths of the region records and of all the bytes that
/// [`read_small_f64`] read of a block.
struct BlockLen {
    regions: usize,
    total: usize,
}

/// What [`read_small_f64`] reads of a block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SmallRead {
    /// The call records, however many bytes the block has.
    Calls,
    /// Region and call records, up to [`WHOLE_BLOCK`] bytes.
    Whole,
}

/// Reads `part` of `block` into the start of `buf` with one positioned read
/// when the block is an f64 block of 1 to [`STREAM_CALLS`] calls that fits
/// in its file and whose first call is the f64 sentinel (what [`locate`]
/// would find: it is then read as f64 without error), and gives the
/// lengths of what was read. `Ok(None)` for any other block (nothing, or
/// bytes that are not the answer, left in `buf`).
fn read_small_f64(
    file: &DataHandle,
    block: &TraceBlockRef,
    buf: &mut Vec<u8>,
    part: SmallRead,
) -> Result<Option<BlockLen>> {
    let Ok((rbytes, total)) = extent(block, RealWidth::F64) else {
        return Ok(None);
    };
    let fits = block
        .seekpos
        .checked_add(total)
        .is_some_and(|end| end <= file.len());
    let too_big = part == SmallRead::Whole && total > WHOLE_BLOCK;
    if block.ntrace == 0 || block.ntrace > STREAM_CALLS as u64 || too_big || !fits {
        return Ok(None);
    }
    // Bytes of the block before the first one read.
    let skipped = if part == SmallRead::Calls { rbytes } else { 0 };
    let len = BlockLen {
        regions: (rbytes - skipped) as usize,
        total: (total - skipped) as usize,
    };
    let bytes = sized(buf, len.total);
    file.read_exact_at(bytes, block.seekpos + skipped)?;
    let first = &bytes[len.regions..len.regions + call_size(RealWidth::F64) as usize];
    Ok(is_sentinel_record(&decode_call(first, RealWidth::F64)).then_some(len))
}

/// The Real width of `block` (f64 unless only the f32 layout shows a
/// sentinel), its region bytes and its whole length, checked against the
/// file's length: the same answers and errors as [`TraceBlock::read`].
fn locate(file: &DataHandle, block: &TraceBlockRef) -> Result<(RealWidth, u64, u64)> {
    let fits = |real| {
        matches!(extent(block, real), Ok((_, total))
            if block.seekpos.checked_add(total).is_some_and(|end| end <= file.len()))
    };
    let has_sentinel = |real: RealWidth| -> Result<bool> {
        let Ok((rbytes, _)) = extent(block, real) else {
            return Ok(false);
        };
        if block.ntrace == 0 || !fits(real) {
            return Ok(false);
        }
        let mut first = [0u8; 40];
        let first = &mut first[..call_size(real) as usize];
        file.read_exact_at(first, block.seekpos + rbytes)?;
        Ok(is_sentinel_record(&decode_call(first, real)))
    };
    let real = if !has_sentinel(RealWidth::F64)? && has_sentinel(RealWidth::F32)? {
        RealWidth::F32
    } else {
        RealWidth::F64
    };
    let (rbytes, total) = extent(block, real)?;
    if !fits(real) {
        return Err(past_end(block, total, file.path(), file.len()));
    }
    Ok((real, rbytes, total))
}

/// Bounds the counts of `block` by the bytes its data file holds: a
/// header claiming more records than fit between `seekpos` and the end of
/// the file (a damaged count, such as 461,168,601,842,738,790 calls) is cut
/// to the whole records that are there, and the warning names the header
/// line. The Real width is the one the sentinel shows where the claimed
/// region records end. A block that starts past the end is left as it is
/// (its readers report it); one that fits costs no read.
pub fn fit_to_file(file: &DataHandle, block: &mut TraceBlockRef) -> Result<Option<Warning>> {
    let fits = |b: &TraceBlockRef, real| {
        matches!(extent(b, real), Ok((_, total))
            if b.seekpos.checked_add(total).is_some_and(|end| end <= file.len()))
    };
    if fits(block, RealWidth::F64) || block.seekpos >= file.len() {
        return Ok(None);
    }
    let sentinel_at = |real: RealWidth| -> Result<bool> {
        let Some(at) = block
            .nrss
            .checked_mul(region_size(real))
            .and_then(|r| r.checked_add(block.seekpos))
            .filter(|at| at.saturating_add(call_size(real)) <= file.len())
        else {
            return Ok(false);
        };
        let mut first = [0u8; 40];
        let first = &mut first[..call_size(real) as usize];
        file.read_exact_at(first, at)?;
        Ok(is_sentinel_record(&decode_call(first, real)))
    };
    let real = if !sentinel_at(RealWidth::F64)? && sentinel_at(RealWidth::F32)? {
        RealWidth::F32
    } else {
        RealWidth::F64
    };
    if fits(block, real) {
        return Ok(None);
    }
    let available = file.len() - block.seekpos;
    let nrss = block.nrss.min(available / region_size(real));
    let ntrace = block
        .ntrace
        .min((available - nrss * region_size(real)) / call_size(real));
    let warning = Warning::new(
        Location::line(&block.header, block.line),
        format!(
            "trace block of process {} claims {} region and {} call records, more than {} holds \
             ({available} bytes from byte offset {}): a damaged header or a cut data file; read as {nrss} region \
             and {ntrace} call records",
            block.proc,
            block.nrss,
            block.ntrace,
            file.path().display(),
            block.seekpos,
        ),
    );
    block.nrss = nrss;
    block.ntrace = ntrace;
    Ok(Some(warning))
}

/// The per-block dummy record that AMReX writes first in every block.
fn is_sentinel_record(c: &CallRecord) -> bool {
    c.depth == -1 && c.fnum == -1 && c.ncalls == -1 && (c.inclusive + 1.1).abs() < 1e-6
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Bytes of one f64 trace block: region records then calls (a sentinel first).
    pub fn block_bytes(
        regions: &[(f64, i32, bool)],
        calls: &[(i32, i32, f64, f64, f64)],
    ) -> Vec<u8> {
        let mut v = Vec::new();
        for &(t, n, s) in regions {
            v.extend_from_slice(&t.to_le_bytes());
            v.extend_from_slice(&n.to_le_bytes());
            v.extend_from_slice(&(s as i32).to_le_bytes());
        }
        let mut call = |d: i32, f: i32, n: i64, inc: f64, exc: f64, st: f64| {
            v.extend_from_slice(&d.to_le_bytes());
            v.extend_from_slice(&f.to_le_bytes());
            v.extend_from_slice(&n.to_le_bytes());
            v.extend_from_slice(&inc.to_le_bytes());
            v.extend_from_slice(&exc.to_le_bytes());
            v.extend_from_slice(&st.to_le_bytes());
        };
        call(-1, -1, -1, -1.1, -1.2, -1.3);
        for &(d, f, inc, exc, st) in calls {
            call(d, f, 1, inc, exc, st);
        }
        v
    }

    pub fn block_ref(proc: usize, nrss: u64, ntrace: u64, seekpos: u64) -> TraceBlockRef {
        TraceBlockRef {
            proc,
            nrss,
            ntrace,
            datafile: "bl_call_stats_D_00000".into(),
            seekpos,
            time_min_max: None,
            header: PathBuf::from("bl_call_stats_H_00000").into(),
            line: 1,
        }
    }

    #[test]
    fn decodes_regions_calls_and_sentinel() {
        let bytes = block_bytes(&[(0.5, 0, false), (0.4, 2, true)], &[(0, 3, 2.0, 1.0, 0.4)]);
        let f = InputFile::from_bytes("d", bytes);
        let b = TraceBlock::read(&f, &block_ref(0, 2, 2, 0)).unwrap();
        assert_eq!(b.real(), RealWidth::F64);
        let r: Vec<_> = b.regions().collect();
        assert_eq!(
            r[1],
            RegionRecord {
                time: 0.4,
                number: 2,
                start: true
            }
        );
        let c: Vec<_> = b.calls().collect();
        assert!(c[0].is_sentinel());
        assert_eq!(
            (c[1].depth, c[1].fnum, c[1].inclusive, c[1].start),
            (0, 3, 2.0, 0.4)
        );
        assert_eq!(c[1].end(), 2.4);
    }

    /// f32 bytes of a block like [`block_bytes`]'s.
    /// Appends `bytes` to `file`, giving their seek position there.
    fn append(file: &mut Vec<u8>, bytes: &[u8]) -> u64 {
        let seekpos = file.len() as u64;
        file.extend_from_slice(bytes);
        seekpos
    }

    fn block_bytes_f32(regions: &[(f32, i32, bool)], calls: &[(i32, i32, f32)]) -> Vec<u8> {
        let mut v = Vec::new();
        for &(t, n, s) in regions {
            v.extend_from_slice(&t.to_le_bytes());
            v.extend_from_slice(&n.to_le_bytes());
            v.extend_from_slice(&(s as i32).to_le_bytes());
        }
        for &(d, f, x) in [(-1, -1, -1.1f32)].iter().chain(calls) {
            v.extend_from_slice(&d.to_le_bytes());
            v.extend_from_slice(&f.to_le_bytes());
            v.extend_from_slice(&(d as i64).to_le_bytes());
            for _ in 0..3 {
                v.extend_from_slice(&x.to_le_bytes());
            }
            v.extend_from_slice(&[0; 4]); // the struct's alignment padding
        }
        v
    }

    /// Positioned reads give exactly what the mapped block gives, in both
    /// Real widths, across read buffers, and the same error past the end.
    #[test]
    fn streamed_records_match_the_mapped_block() {
        let dir = tempfile::tempdir().unwrap();
        let calls: Vec<_> = (0..2 * STREAM_CALLS + 7)
            .map(|i| (i as i32 % 5, i as i32 % 3, 1.0, 0.5, i as f64))
            .collect();
        let f64_bytes = block_bytes(&[(0.5, 0, true), (0.9, 0, false)], &calls);
        let f32_calls: Vec<_> = (0..50).map(|i| (i % 4, i, i as f32 * 0.25)).collect();
        let f32_bytes = block_bytes_f32(&[(0.25, 1, true), (0.75, 1, false)], &f32_calls);
        for (bytes, nrss, ntrace, real) in [
            (f64_bytes, 2, calls.len() as u64 + 1, RealWidth::F64),
            (f32_bytes, 2, 51, RealWidth::F32),
        ] {
            // The block after some other bytes, as in a file of several blocks.
            let mut file = vec![7u8; 24];
            file.extend_from_slice(&bytes);
            let path = dir.path().join("bl_call_stats_D_00000");
            std::fs::write(&path, &file).unwrap();
            let block = block_ref(0, nrss, ntrace, 24);
            let mapped = InputFile::from_bytes(&path, file.clone());
            let b = TraceBlock::read(&mapped, &block).unwrap();
            assert_eq!(b.real(), real);
            let handle = DataHandle::open(&path).unwrap();
            let mut streamed = Vec::new();
            stream_calls(&handle, &block, |c| streamed.push(*c)).unwrap();
            assert_eq!(streamed, b.calls().collect::<Vec<_>>());
            let regions = read_regions(&handle, &block).unwrap();
            assert_eq!(regions, b.regions().collect::<Vec<_>>());

            let short = block_ref(0, nrss, ntrace + 1, 24);
            let want = TraceBlock::read(&mapped, &short).unwrap_err().to_string();
            let got = stream_calls(&handle, &short, |_| {})
                .unwrap_err()
                .to_string();
            assert_eq!(got, want);
            assert!(got.contains("past the end"), "{got}");
            assert!(read_regions(&handle, &short).is_err());
        }
    }

    /// The thread's scratch buffer, grown by a big block, gives a small
    /// block after it its own records only (and its regions), for the
    /// small-block read and the streamed one alike.
    #[test]
    fn a_smaller_block_after_a_bigger_one_reads_its_own_records() {
        let dir = tempfile::tempdir().unwrap();
        let big_calls: Vec<_> = (0..STREAM_CALLS + 3)
            .map(|i| (0, 1, 2.0, 1.0, i as f64))
            .collect();
        let big = block_bytes(&[(0.5, 0, true), (0.9, 0, false)], &big_calls);
        let small_calls = [(0, 2, 3.0, 3.0, 7.0), (1, 3, 0.5, 0.5, 8.0)];
        let small = block_bytes(&[(0.25, 1, true)], &small_calls);
        let mut file = big.clone();
        file.extend_from_slice(&small);
        let path = dir.path().join("bl_call_stats_D_00000");
        std::fs::write(&path, &file).unwrap();
        let mapped = InputFile::from_bytes(&path, file.clone());
        let handle = DataHandle::open(&path).unwrap();
        let blocks = [
            block_ref(0, 2, big_calls.len() as u64 + 1, 0),
            block_ref(0, 1, 3, big.len() as u64),
            block_ref(0, 2, big_calls.len() as u64 + 1, 0),
        ];
        for block in &blocks {
            let want = TraceBlock::read(&mapped, block).unwrap();
            let mut streamed = Vec::new();
            stream_calls(&handle, block, |c| streamed.push(*c)).unwrap();
            assert_eq!(streamed, want.calls().collect::<Vec<_>>());
            let regions = read_regions(&handle, block).unwrap();
            assert_eq!(regions, want.regions().collect::<Vec<_>>());
        }
    }

    /// Reading both parts of a block together gives what reading each
    /// alone gives: a small f64 block (read whole), an f32 one, one too big
    /// to read whole, and one past the end of its file (the same errors).
    #[test]
    fn regions_and_calls_read_together_match_each_read_alone() {
        let dir = tempfile::tempdir().unwrap();
        let small = block_bytes(&[(0.25, 1, true), (0.5, 1, false)], &[(0, 2, 3.0, 3.0, 7.0)]);
        let big_calls: Vec<_> = (0..STREAM_CALLS + 3)
            .map(|i| (0, 1, 2.0, 1.0, i as f64))
            .collect();
        let big = block_bytes(&[(0.5, 0, true), (0.9, 0, false)], &big_calls);
        let f32 = block_bytes_f32(&[(0.25, 1, true)], &[(0, 4, 0.5)]);
        let mut file = small.clone();
        let mut at = |bytes: &[u8]| append(&mut file, bytes);
        let blocks = [
            block_ref(0, 2, 2, 0),
            block_ref(1, 2, big_calls.len() as u64 + 1, at(&big)),
            block_ref(2, 1, 2, at(&f32)),
            block_ref(3, 2, 2, at(&[]) - 50),
        ];
        let path = dir.path().join("bl_call_stats_D_00000");
        std::fs::write(&path, &file).unwrap();
        let handle = DataHandle::open(&path).unwrap();
        let text = |r: &Result<()>| r.as_ref().map_err(ToString::to_string).cloned();
        for block in &blocks {
            let mut alone = Vec::new();
            let calls_alone = stream_calls(&handle, block, |c| alone.push(*c));
            let regions_alone = read_regions(&handle, block).map_err(|e| e.to_string());
            let mut together = Vec::new();
            let (regions, calls) = read_regions_and_call_batches(&handle, block, |batch| {
                together.extend(batch.calls())
            });
            assert_eq!(together, alone, "process {}", block.proc);
            assert_eq!(regions.map_err(|e| e.to_string()), regions_alone);
            assert_eq!(text(&calls), text(&calls_alone));
        }
        assert!(read_regions(&handle, &blocks[3]).is_err());
    }

    /// A small f64 block is read at once, its calls alone or whole (up to
    /// [`WHOLE_BLOCK`] bytes); an f32 block, an empty one and one past the
    /// end of its file are left to the readers of each part.
    #[test]
    fn small_f64_blocks_are_read_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let small = block_bytes(&[(0.25, 1, true)], &[(0, 2, 3.0, 3.0, 7.0)]);
        let many: Vec<_> = (0..WHOLE_BLOCK / 40).map(|i| (0, 1, 2.0, 1.0, i as f64)).collect();
        let big = block_bytes(&[], &many);
        let f32 = block_bytes_f32(&[(0.25, 1, true)], &[(0, 4, 0.5)]);
        let mut file = small.clone();
        let mut at = |bytes: &[u8]| append(&mut file, bytes);
        // The f32 block first: read as f64, it fits in the file.
        let (f32_at, big_at) = (at(&f32), at(&big));
        let end = at(&[]);
        let path = dir.path().join("bl_call_stats_D_00000");
        std::fs::write(&path, &file).unwrap();
        let handle = DataHandle::open(&path).unwrap();
        let read = |block: &TraceBlockRef, part| {
            let mut buf = Vec::new();
            let len = read_small_f64(&handle, block, &mut buf, part).unwrap();
            len.map(|l| (l.regions, l.total, buf[l.regions..l.total].to_vec()))
        };
        let calls = small[16..].to_vec();
        let block = block_ref(0, 1, 2, 0);
        assert_eq!(read(&block, SmallRead::Whole), Some((16, 96, calls.clone())));
        assert_eq!(read(&block, SmallRead::Calls), Some((0, 80, calls)));
        let block = block_ref(1, 0, many.len() as u64 + 1, big_at);
        assert_eq!(read(&block, SmallRead::Whole), None, "over WHOLE_BLOCK bytes");
        assert_eq!(read(&block, SmallRead::Calls).map(|r| r.1), Some(big.len()));
        for block in [
            block_ref(2, 1, 2, f32_at),
            block_ref(3, 0, 0, 0),
            block_ref(4, 1, 2, end - 50),
        ] {
            assert_eq!(read(&block, SmallRead::Whole), None, "process {}", block.proc);
            assert_eq!(read(&block, SmallRead::Calls), None, "process {}", block.proc);
        }
    }

    #[test]
    fn block_past_the_end_names_offset_and_header_line() {
        let bytes = block_bytes(&[], &[(0, 0, 1.0, 1.0, 0.0)]);
        let f = InputFile::from_bytes("bl_call_stats_D_00000", bytes);
        let e = TraceBlock::read(&f, &block_ref(3, 0, 3, 0))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("byte offset 0") && e.contains("process 3"),
            "{e}"
        );
        let e = TraceBlock::read(&f, &block_ref(3, u64::MAX / 2, 3, 0))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("more than any file can hold") || e.contains("past the end"),
            "{e}"
        );
    }
}
