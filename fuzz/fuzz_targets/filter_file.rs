//! The RegionFilters file parser on arbitrary text, and the parsed filter
//! applied to a small fixed set of regions.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profparse::analysis::filter::RegionFilter;
use profparse::analysis::regions::{ProcRegions, Regions};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut warnings = Vec::new();
    let Ok(f) = RegionFilter::parse_filter_file(&text, Path::new("RegionFilters"), &mut warnings)
    else {
        return;
    };
    for w in &warnings {
        let _ = w.to_string();
    }
    let _ = f.is_everything();
    let mut regions = Regions::default();
    for (n, name) in [(0, "__NoRegion__"), (1, "RCompute"), (2, "RComm")] {
        regions.names.insert(n, name.into());
    }
    let p = ProcRegions::pair(
        0,
        [
            (0.0, 0, true),
            (0.1, 0, false),
            (0.1, 1, true),
            (0.4, 1, false),
            (0.4, 2, true),
            (0.9, 2, false),
            (0.9, 0, true),
        ],
    );
    regions.span = p.time_span;
    regions.procs.push(p);
    if let Ok(lists) = f.time_ranges(&regions) {
        for l in &lists {
            let _ = l.total();
        }
    }
});
