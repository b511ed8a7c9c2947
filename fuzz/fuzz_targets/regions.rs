//! Region pairing (`ProcRegions::pair`) on fuzzed start/stop records, then
//! everything built on the pairs: region statistics, a filter's time ranges
//! and the range-list operations.
//!
//! Input: `len: u8`, `len` bytes of RegionFilters text, then records of 8
//! bytes: `proc: u8` (mod 4), `start: u8` (bit 0), `number: i16 LE`,
//! `time: f32 LE` (any bits: NaN and infinities included).
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profparse::analysis::filter::{RegionFilter, write_filter_file};
use profparse::analysis::ranges::TimeRange;
use profparse::analysis::regions::{ProcRegions, Regions, region_stats};

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let (filter_text, records) = rest.split_at((n as usize).min(rest.len()));
    let mut per_proc: BTreeMap<usize, Vec<(f64, i32, bool)>> = BTreeMap::new();
    for r in records.chunks_exact(8) {
        per_proc.entry((r[0] % 4) as usize).or_default().push((
            f32::from_le_bytes([r[4], r[5], r[6], r[7]]) as f64,
            i16::from_le_bytes([r[2], r[3]]) as i32,
            r[1] & 1 == 1,
        ));
    }
    let probes: Vec<f64> = records
        .chunks_exact(8)
        .map(|r| f32::from_le_bytes([r[4], r[5], r[6], r[7]]) as f64)
        .collect();
    let mut regions = Regions::default();
    regions.names.insert(0, "__NoRegion__".into());
    regions.names.insert(1, "RCompute".into());
    for (proc, recs) in per_proc {
        let p = ProcRegions::pair(proc, recs);
        for &n in p.ranges.keys() {
            let _ = p.total(n);
        }
        if let Some((a, b)) = p.time_span {
            regions.span = Some(match regions.span {
                None => (a, b),
                Some((x, y)) => (x.min(a), y.max(b)),
            });
        }
        regions.procs.push(p);
    }
    for n in regions.numbers() {
        let _ = regions.name(n);
    }
    let _ = regions.proc(1);
    let _ = region_stats(&regions);
    let _ = write_filter_file(&mut std::io::sink(), &regions);

    let text = String::from_utf8_lossy(filter_text);
    let mut warnings = Vec::new();
    let filters = [
        RegionFilter::parse_filter_file(&text, Path::new("RegionFilters"), &mut warnings).ok(),
        Some(RegionFilter::from_names(&["RCompute".into()], &[])),
        Some(RegionFilter::from_names(&[], &["RCompute".into()])),
    ];
    for f in filters.into_iter().flatten() {
        let _ = f.is_everything();
        if let Ok(lists) = f.time_ranges(&regions) {
            for l in &lists {
                let _ = (l.total(), l.is_empty(), l.contains(0.5));
                // The cursor promises the same answers as `contains`, for
                // times in any order, on a list sorted by stop time.
                let valid = l.ranges().windows(2).all(|w| w[0].stop <= w[1].stop);
                let mut ts = probes.clone();
                ts.extend(l.ranges().iter().flat_map(|r| [r.start, r.stop]));
                let mut c = l.cursor();
                for &t in &ts {
                    let (a, b) = (c.contains(t), l.contains(t));
                    if valid {
                        assert_eq!(
                            a,
                            b,
                            "cursor and contains disagree at {t} on {:?}",
                            l.ranges()
                        );
                    }
                }
                // And the same pieces as `intersect`, on a list of ranges
                // that are sorted and apart (as the list keeps them).
                let apart = l.ranges().windows(2).all(|w| w[0].stop < w[1].start);
                let mut c = l.cursor();
                for w in ts.windows(2) {
                    let p = TimeRange::new(w[0], w[1]);
                    let mut each = Vec::new();
                    c.for_each_piece(p, |x| each.push(x));
                    if apart {
                        let expected: Vec<TimeRange> = l.intersect(p).collect();
                        assert_eq!(each, expected, "pieces of {p:?} on {:?}", l.ranges());
                    }
                }
                let _ = l.intersect(TimeRange::new(0.0, 1.0)).count();
            }
        }
    }
});
