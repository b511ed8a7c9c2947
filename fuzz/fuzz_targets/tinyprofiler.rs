//! TinyProfiler job logs on arbitrary bytes: find and read every report,
//! then render `summary` (timers and memory, every format), `info`, the
//! flat profile of `calltree`, and
//! `compare` of the reports against one another (and its SVG), to `io::sink`.
#![no_main]

use std::io::sink;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profparse::analysis::tinyprofiler::{
    CompareInput, CompareMetric, Scaling, compare, flat_tree, select_run, timer_metrics,
};
use profparse::formats::tinyprofiler::{TOTAL_MARKER, parse};
use profparse::report::calltree::{TreeReport, TreeView};
use profparse::report::renderers::svg::scaling::compare_svg;
use profparse::report::tinyprofiler::compare::CompareReport;
use profparse::report::tinyprofiler::{TinyInfoReport, TinySummaryReport};
use profparse::report::{Format, render};

fuzz_target!(|data: &[u8]| {
    let Ok(log) = parse(Path::new("job.out"), data) else {
        return;
    };
    // A report starts at a total-time line: never more reports than lines.
    let markers = data
        .windows(TOTAL_MARKER.len())
        .filter(|w| *w == TOTAL_MARKER)
        .count();
    assert!(!log.reports.is_empty() && log.reports.len() <= markers);
    for (i, report) in log.reports.iter().enumerate() {
        let _ = timer_metrics(report);
        let (tree, nprocs) = flat_tree(report);
        let page = TreeReport {
            tree: &tree,
            view: TreeView {
                nprocs,
                ..TreeView::default()
            },
            proc: None,
            source: Some("job.out".into()),
        };
        for format in [Format::Text, Format::Json, Format::Hatchet, Format::Html] {
            render(&page, format, Some(80), &mut sink()).unwrap();
        }
        for memory in [false, true] {
            let r = TinySummaryReport {
                log: "job.out".into(),
                run: i + 1,
                runs: log.reports.len(),
                report,
                memory,
                top: Some(3),
            };
            for format in [Format::Table, Format::Json, Format::Csv] {
                render(&r, format, Some(80), &mut sink()).unwrap();
            }
        }
    }
    assert!(select_run(&log, None, "job.out").is_ok());
    assert!(select_run(&log, Some(0), "job.out").is_err());
    let info = TinyInfoReport {
        log: "job.out".into(),
        parsed: &log,
    };
    render(&info, Format::Table, Some(80), &mut sink()).unwrap();
    render(&info, Format::Json, Some(80), &mut sink()).unwrap();
    let runs: Vec<CompareInput> = log
        .reports
        .iter()
        .map(|r| CompareInput::tinyprofiler("r".into(), r))
        .collect();
    for scaling in [Scaling::Strong, Scaling::Weak] {
        let c = compare(&runs, CompareMetric::Inclusive, scaling, 1.0);
        let r = CompareReport {
            comparison: &c,
            top: None,
        };
        for format in [Format::Table, Format::Json, Format::Csv] {
            render(&r, format, Some(80), &mut sink()).unwrap();
        }
        compare_svg(&c, &mut sink()).unwrap();
    }
});
