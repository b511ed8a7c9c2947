//! Generators of valid inputs of any size, deterministic by seed, for
//! benchmarks and scale tests (`profparse synth …`, hidden from the help).

pub mod blprof;
mod blprof_scenes;
pub mod blprof_waits;
pub mod tinyprofiler;
pub mod tlog;

/// A small, fast, deterministic generator (SplitMix64): reproducible inputs
/// without a dependency.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
