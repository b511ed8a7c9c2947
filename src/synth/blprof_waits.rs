//! Communication records with known clock offsets and injected waits, so
//! that tests can check what the clock alignment and the wait-state
//! analysis recover (`synth blprof --clock-offsets`, `--late-sender`,
//! `--late-barrier`).
//!
//! Every process follows one schedule on a common true clock; each
//! process then writes its times on its own clock, true time + its offset
//! (process 0's offset is 0). Per comm block `b`:
//!
//! ```text
//! barrier      arrive at base + jitter (+ delay of the late process);
//!              all leave together, 10 µs after the base (+ delay), within 0.2 µs
//! name tag
//! message m    post an Irecv from the left neighbour, Isend to the right
//!              (the late sender sends `delay` later), Waitall: returns 0.1 µs
//!              after the left neighbour's message arrived (3 µs after its send)
//! ```
//!
//! so the only waits are the right neighbour's of the late sender (late
//! sender, `delay − 0.2 µs` per message) and everybody's at each barrier
//! (`delay ± 9 µs` each, caused by the late process). The [`Scenes`] for
//! the other wait states follow the messages. The truth is written beside
//! the database as `synth_truth.json`.
//!
//! Realistic clocks (`--jitter`, `--drift`): process `p` writes
//! `true + offset_p + drift_p · true + jitter`, the jitter drawn per
//! reading in `[−J, J]`; a reading never goes before the process's
//! previous one (its clock is monotonic), so a jittered record order stays
//! the true order.

use super::SplitMix64;
pub use super::blprof_scenes::Scenes;
use super::blprof_scenes::ScenesTruth;

/// File the truth is written to, in the database directory.
pub const TRUTH_FILE: &str = "synth_truth.json";

/// What to inject.
#[derive(Debug, Clone, Default)]
pub struct Injected {
    /// Offsets are drawn in `[−max, max]` seconds (process 0: 0).
    pub clock_offsets: f64,
    /// (process, seconds): that process sends every message this late.
    pub late_sender: Option<(u64, f64)>,
    /// (process, seconds): that process arrives this late at every barrier.
    pub late_barrier: Option<(u64, f64)>,
    /// The scenes after the messages (other wait states).
    pub scenes: Scenes,
    /// Per-reading clock jitter, seconds: each time is off by up to this.
    pub jitter: f64,
    /// Clock drift rates are drawn in `[−max, max]` (process 0: 0).
    pub drift: f64,
}

/// Network latency of a message on the true clock.
const LATENCY: f64 = 3e-6;
/// Time between two records of one call.
const STEP: f64 = 1e-7;

/// What was injected, as the analysis should find it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Truth {
    /// Per process: its clock minus the true clock (process 0: 0).
    pub clock_offsets: Vec<f64>,
    /// The late sender, if one was injected.
    pub late_sender: Option<LateSenderTruth>,
    /// The late arriver at barriers, if one was injected.
    pub late_barrier: Option<LateBarrierTruth>,
    /// Per process: its clock's drift rate (process 0: 0).
    pub clock_drifts: Vec<f64>,
    /// Per-reading jitter bound, seconds.
    pub jitter: f64,
    /// Per comm block: the waits of the scenes (absent: none played).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scenes: Vec<ScenesTruth>,
}

/// The waits a late sender causes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LateSenderTruth {
    /// The late process and by how much each of its sends is late.
    pub proc: u64,
    /// Seconds each of its sends is late.
    pub delay: f64,
    /// The process that waits (its right neighbour), messages, and the
    /// late-sender seconds each (the send's entry − the Waitall's entry).
    pub receiver: u64,
    /// Messages the waiting process receives from it.
    pub messages: u64,
    /// Late-sender seconds of each.
    pub wait_per_message: f64,
}

/// The waits a late arrival at barriers causes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LateBarrierTruth {
    /// The late process.
    pub proc: u64,
    /// Seconds it arrives late at each barrier.
    pub delay: f64,
    /// Barriers.
    pub barriers: u64,
    /// Σ over barriers and processes of (last entry − own entry).
    pub wait_total: f64,
}

/// A uniform draw in [−1, 1] from `key`.
fn unit(key: u64) -> f64 {
    let u = (SplitMix64::new(key).next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    2.0 * u - 1.0
}

/// A comm record: (type, size, peer, tag, time).
pub type Rec = (i32, i32, i32, i32, f64);

impl Injected {
    /// Process `p`'s clock offset (deterministic by seed).
    pub fn offset(&self, seed: u64, p: u64) -> f64 {
        if p == 0 {
            return 0.0;
        }
        self.clock_offsets * unit(seed ^ p.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    /// Process `p`'s clock drift rate (deterministic by seed).
    pub fn drift_rate(&self, seed: u64, p: u64) -> f64 {
        if p == 0 {
            return 0.0;
        }
        self.drift * unit(seed ^ p.wrapping_mul(0x9E6C_63D0_676A_9A99) ^ 0xD1F7)
    }

    /// Process `p`'s clock reading of true time `t`, its `i`-th reading.
    fn reading(&self, seed: u64, p: u64, i: u64, t: f64) -> f64 {
        let jitter = if self.jitter > 0.0 {
            let key = seed
                ^ p.wrapping_mul(0xA24B_AED4_963E_E407)
                ^ i.wrapping_mul(0x9FB2_1C65_1E98_DF25);
            self.jitter * unit(key)
        } else {
            0.0
        };
        t + self.offset(seed, p) + self.drift_rate(seed, p) * t + jitter
    }

    fn delay_of(x: Option<(u64, f64)>, p: u64) -> f64 {
        x.filter(|&(q, _)| q == p).map_or(0.0, |(_, d)| d.max(0.0))
    }

    fn barrier_delay(&self) -> f64 {
        self.late_barrier.map_or(0.0, |(_, d)| d.max(0.0))
    }

    fn send_delay(&self) -> f64 {
        self.late_sender.map_or(0.0, |(_, d)| d.max(0.0))
    }

    /// Arrival jitter at barrier `b` (0–9 µs).
    fn jitter(p: u64, b: u64) -> f64 {
        1e-6 * ((p * 7 + b * 3) % 10) as f64
    }

    /// True time at which block `b`'s comm records start.
    fn base(&self, messages: u64, b: u64) -> f64 {
        let span =
            1e-3 + self.barrier_delay() + messages as f64 * self.round() + self.scenes.span();
        0.01 + self.clock_offsets.abs() + b as f64 * span
    }

    /// True time between two messages.
    fn round(&self) -> f64 {
        20e-6 + self.send_delay()
    }

    /// When `p` sends message `m` of block `b` (true clock).
    fn send_time(&self, first_round: f64, m: u64, p: u64) -> f64 {
        first_round + m as f64 * self.round() + 2.0 * STEP + Self::delay_of(self.late_sender, p)
    }

    /// The records of process `p` in comm block `b`: a barrier (numbered
    /// `barrier`), a name tag (`tag`), `messages` ring messages; on `p`'s
    /// clock.
    #[allow(clippy::too_many_arguments)]
    pub fn records(
        &self,
        seed: u64,
        nprocs: u64,
        messages: u64,
        p: u64,
        b: u64,
        barrier: i32,
        tag: i32,
    ) -> Vec<Rec> {
        let off = self.offset(seed, p);
        let right = ((p + 1) % nprocs) as i32;
        let left = (p + nprocs - 1) % nprocs;
        let base = self.base(messages, b);
        let mut recs: Vec<Rec> = Vec::new();
        let arrive = base + Self::jitter(p, b) + Self::delay_of(self.late_barrier, p);
        let exit = base + 1e-5 + self.barrier_delay() + STEP * (p % 3) as f64;
        recs.push((25, 0, -5, barrier, arrive));
        recs.push((25, -7, -7, barrier, exit));
        recs.push((27, 0, 2, tag, exit + 5.0 * STEP));
        let first_round = base + 2e-5 + self.barrier_delay();
        for m in 0..messages {
            let tag = 1000 + (m % 1000) as i32;
            let r = first_round + m as f64 * self.round();
            recs.push((11, 512, left as i32, tag, r));
            recs.push((11, -7, left as i32, tag, r + STEP));
            let s = self.send_time(first_round, m, p);
            recs.push((6, 512, right, tag, s));
            recs.push((6, -7, right, tag, s + STEP));
            let w = s + 2.0 * STEP;
            let arrived = self.send_time(first_round, m, left) + LATENCY;
            recs.push((41, -5, -5, -3, w));
            recs.push((41, 512, left as i32, tag, w.max(arrived) + STEP));
        }
        let scenes_at = first_round + messages as f64 * self.round() + 2e-5;
        recs.extend(self.scenes.records(nprocs, p, b, scenes_at));
        let mut last = f64::NEG_INFINITY;
        for (i, r) in recs.iter_mut().enumerate() {
            if self.jitter > 0.0 || self.drift > 0.0 {
                let i = b.wrapping_mul(1 << 32) ^ i as u64;
                r.4 = self.reading(seed, p, i, r.4).max(last + 1e-9);
                last = r.4;
            } else {
                r.4 += off;
            }
        }
        recs
    }

    /// What the analysis should find in a database of `nprocs` processes,
    /// `blocks` comm blocks of `messages` messages each.
    pub fn truth(&self, seed: u64, nprocs: u64, blocks: u64, messages: u64) -> Truth {
        let late_sender = self
            .late_sender
            .filter(|&(p, _)| p < nprocs && nprocs > 1)
            .map(|(p, d)| LateSenderTruth {
                proc: p,
                delay: d.max(0.0),
                receiver: (p + 1) % nprocs,
                messages: messages * blocks,
                // The receiver enters its Waitall 2 steps after its own send.
                wait_per_message: (d.max(0.0) - 2.0 * STEP).max(0.0),
            });
        let late_barrier = self
            .late_barrier
            .filter(|&(p, _)| p < nprocs)
            .map(|(lp, d)| {
                let mut total = 0.0;
                for b in 0..blocks {
                    let entry = |p: u64| Self::jitter(p, b) + Self::delay_of(self.late_barrier, p);
                    let last = (0..nprocs).map(entry).fold(f64::NEG_INFINITY, f64::max);
                    total += (0..nprocs).map(|p| last - entry(p)).sum::<f64>();
                }
                LateBarrierTruth {
                    proc: lp,
                    delay: d.max(0.0),
                    barriers: blocks,
                    wait_total: total,
                }
            });
        let played = self.scenes.span() > 0.0 && nprocs >= 3;
        Truth {
            clock_offsets: (0..nprocs).map(|p| self.offset(seed, p)).collect(),
            late_sender,
            late_barrier,
            clock_drifts: (0..nprocs).map(|p| self.drift_rate(seed, p)).collect(),
            jitter: self.jitter,
            scenes: if played {
                (0..blocks).map(|b| self.scenes.truth(nprocs, b)).collect()
            } else {
                Vec::new()
            },
        }
    }
}
