//! The regions a timeline shows, on lanes: a track holds slices that nest
//! or follow each other, so regions that overlap without nesting (a region
//! started in one and stopped after it) go on a lane of their own, at most
//! [`MAX_LANES`] per process.
//!
//! ```text
//! lane 0   A━━━━━━━━━━━━━━━━━━┓    D━━━━━┓E━━┓
//!            B━━┓                          (B nests in A, D follows A,
//! lane 1           C━━━━━━━━━━━━━━━━━━┓     E touches D: lane 0; C starts
//!                                           in A and stops after it)
//! ```

use std::collections::BTreeMap;

use crate::analysis::regions::{ProcRegions, Regions};

use super::overlaps;

/// Lanes per process at most.
pub const MAX_LANES: usize = 8;

/// A lane per range (ranges sorted by start, longest first) such that the
/// ranges of a lane nest or follow each other, as slices of one track
/// must: each range goes to the first lane where it fits inside the
/// innermost range still open, or where nothing is open. Ranges that fit
/// nowhere after the last lane go there anyway (damaged data; the viewer
/// then draws them as best it can).
pub fn region_lanes(ranges: impl Iterator<Item = (f64, f64)>) -> Vec<u32> {
    let mut open: Vec<Vec<f64>> = Vec::new(); // per lane, the open ranges' stops
    let mut lanes = Vec::new();
    for (start, stop) in ranges {
        for stops in open.iter_mut() {
            while stops.last().is_some_and(|&z| z <= start) {
                stops.pop();
            }
        }
        let fits = |stops: &Vec<f64>| stops.last().is_none_or(|&z| stop <= z);
        let lane = match open.iter().position(fits) {
            Some(l) => l,
            None if open.len() < MAX_LANES => {
                open.push(Vec::new());
                open.len() - 1
            }
            None => open.len() - 1,
        };
        open[lane].push(stop);
        lanes.push(lane as u32);
    }
    lanes
}

/// The regions' numbers in first-seen order over the processes: each
/// region's position, so that its name is written once.
#[derive(Default)]
pub struct RegionOrder {
    slot: BTreeMap<i32, u32>,
    /// Region numbers by position.
    pub numbers: Vec<i32>,
}

impl RegionOrder {
    pub fn new(regions: &Regions) -> Self {
        let mut order = RegionOrder::default();
        for p in &regions.procs {
            for &n in p.ranges.keys() {
                if let std::collections::btree_map::Entry::Vacant(e) = order.slot.entry(n)
                    && let Ok(i) = u32::try_from(order.numbers.len())
                {
                    e.insert(i);
                    order.numbers.push(n);
                }
            }
        }
        order
    }

    /// The position of region `number` (`u32::MAX`: not a region of these).
    pub fn position(&self, number: i32) -> u32 {
        self.slot.get(&number).copied().unwrap_or(u32::MAX)
    }
}

/// A region range as shown.
#[derive(Debug, Clone, Copy)]
pub struct RegionSlice {
    /// Shifted to the common clock.
    pub start: f64,
    pub stop: f64,
    /// The region's position in [`RegionOrder`].
    pub name: u32,
    pub lane: u32,
}

/// The ranges of process `r` overlapping `window`, by start (longest
/// first), each on its lane, their times minus `shift`; and the number of
/// lanes (at least one, so that the region track is named).
pub fn laned_regions(
    r: &ProcRegions,
    order: &RegionOrder,
    window: (f64, f64),
    shift: f64,
) -> (u32, Vec<RegionSlice>) {
    let mut ranges: Vec<(f64, f64, u32)> = Vec::new();
    for (&n, list) in &r.ranges {
        let name = order.position(n);
        ranges.extend(
            list.iter()
                .filter(|x| overlaps(window, x.start, x.stop))
                .map(|x| (x.start, x.stop, name)),
        );
    }
    ranges.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let lanes = region_lanes(ranges.iter().map(|&(a, z, _)| (a, z)));
    let used = lanes.iter().copied().max().map_or(0, |l| l + 1);
    let slices = ranges
        .iter()
        .zip(&lanes)
        .map(|(&(start, stop, name), &lane)| RegionSlice {
            start: start - shift,
            stop: stop - shift,
            name,
            lane,
        })
        .collect();
    (used.max(1), slices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_that_overlap_without_nesting_get_a_lane_of_their_own() {
        // A ⊃ B, then C starts inside A and stops after it; D follows A;
        // E touches D's end.
        let ranges = [
            (0.0, 10.0),  // A
            (1.0, 2.0),   // B inside A
            (5.0, 15.0),  // C: overlaps A's end
            (10.0, 12.0), // D: after A
            (12.0, 13.0), // E: touches D
        ];
        assert_eq!(region_lanes(ranges.into_iter()), [0, 0, 1, 0, 0]);
    }

    #[test]
    fn lanes_are_bounded() {
        // Every range starts inside the previous one and stops after it.
        let ranges = (0..100).map(|i| (i as f64, i as f64 + 1.5));
        let lanes = region_lanes(ranges);
        assert!(lanes.iter().all(|&l| (l as usize) < MAX_LANES));
        assert_eq!(&lanes[..3], [0, 1, 0]);
    }
}
