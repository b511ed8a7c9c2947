//! A generator of valid tlog files: per process START, nested IN/OUT pairs
//! and single events with non-decreasing microsecond times, END; blocks of
//! one process each, ranks in order, the last block padded with zeros —
//! exactly what libtlog's writer produces.

use std::io::{self, Write};

use super::SplitMix64;
use crate::formats::tlog::{BLOCK, RECORD};

/// What to generate.
#[derive(Debug, Clone)]
pub struct TlogConfig {
    /// Processes.
    pub nprocs: u16,
    /// Events per process, START and END included (at least 2).
    pub events: u64,
    /// Seed of the generator: the same seed, the same bytes.
    pub seed: u64,
}

fn record(out: &mut Vec<u8>, proc: u16, kind: i8, arg2: i32, time: f64) {
    out.extend_from_slice(&proc.to_be_bytes());
    out.push(kind as u8);
    out.push(0);
    out.extend_from_slice(&arg2.to_be_bytes());
    out.extend_from_slice(&time.to_be_bytes());
}

impl TlogConfig {
    /// Writes the file; returns the number of bytes written.
    pub fn write(&self, w: &mut impl Write) -> io::Result<u64> {
        let mut written = 0u64;
        let events = self.events.max(2);
        for p in 0..self.nprocs {
            let mut rng =
                SplitMix64::new(self.seed ^ (p as u64).wrapping_mul(0xA24B_AED4_963E_E407));
            let mut t = 2.76e-4 + p as f64 * 1e-6;
            let mut block = Vec::with_capacity(BLOCK);
            let flush = |block: &mut Vec<u8>, w: &mut dyn Write, pad: bool| -> io::Result<u64> {
                if block.len() == BLOCK || (pad && !block.is_empty()) {
                    block.resize(BLOCK, 0);
                    w.write_all(block)?;
                    block.clear();
                    return Ok(BLOCK as u64);
                }
                Ok(0)
            };
            record(&mut block, p, 1, 0, t);
            written += flush(&mut block, w, false)?;
            let mut open: Vec<i8> = Vec::new();
            let mut left = events - 2;
            while left > 0 {
                t += (1 + rng.next_u64() % 50) as f64 * 1e-6;
                // Close what is open when only the closes still fit.
                let must_close = left as usize <= open.len();
                let r = rng.next_u64() % 10;
                let (kind, arg2) = if must_close || (r < 4 && !open.is_empty()) {
                    (open.pop().map_or(31, |k| k + 1), 0)
                } else if r < 8 && open.len() < 6 && left as usize > open.len() + 1 {
                    let k = 10 + 2 * (rng.next_u64() % 9) as i8;
                    open.push(k);
                    (k, 0)
                } else {
                    (
                        31 + (rng.next_u64() % 9) as i8,
                        (rng.next_u64() % 1000) as i32,
                    )
                };
                record(&mut block, p, kind, arg2, t);
                written += flush(&mut block, w, false)?;
                left -= 1;
            }
            record(&mut block, p, 2, 0, t + 1e-6);
            written += flush(&mut block, w, false)?;
            written += flush(&mut block, w, true)?;
        }
        debug_assert_eq!(written % RECORD as u64, 0);
        Ok(written)
    }
}

/// A trace of one process whose intervals nest `depth` deep: START,
/// `depth` IN events of kind `10 + 2·(level mod 9)` a microsecond apart,
/// their OUTs in reverse, END (the hostile input of a call path as long as
/// the trace). Each interval's own time is 2 µs (the innermost's 1 µs).
pub fn nested_tlog(depth: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let kind = |level: u32| 10 + 2 * (level % 9) as i8;
    let mut t = 1e-3;
    record(&mut out, 0, 1, 0, t);
    for level in 0..depth {
        t += 1e-6;
        record(&mut out, 0, kind(level), 0, t);
    }
    for level in (0..depth).rev() {
        t += 1e-6;
        record(&mut out, 0, kind(level) + 1, 0, t);
    }
    record(&mut out, 0, 2, 0, t + 1e-6);
    out.resize(out.len().div_ceil(BLOCK) * BLOCK, 0);
    out
}
