//! Timelines: one lane per process (or group of processes), per column of
//! time the key with the most time — MPI function types in the comm
//! timeline, the functions at one depth in the trace timeline.

use rayon::prelude::*;

use crate::report::renderers::svg::axis::time_axis;
use crate::report::renderers::svg::colour::{comm_type_colour, function_hue};

/// Columns of the timeline picture.
pub const TIMELINE_COLUMNS: usize = 1130;

/// A timeline: one lane per process; per column (a slice of time) the
/// function type with the most time, coloured by type, opacity = share of
/// the slice spent in communication. Size is bounded by columns × processes,
/// whatever the number of calls; above [`MAX_LANES`] processes, a lane shows
/// a group of consecutive processes.
pub fn timeline_svg(
    span: (f64, f64),
    rows: &[crate::analysis::comm::timeline::TimelineRow],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let span = if span.1 > span.0 {
        span
    } else {
        (span.0, span.0 + 1.0)
    };
    let lanes: Vec<(usize, Vec<LaneBar>)> = rows
        .iter()
        .map(|r| {
            let bars = r
                .bars
                .iter()
                .map(|b| LaneBar {
                    first: b.first,
                    last: b.last,
                    key: b.kind as i64,
                    busy: b.busy,
                    calls: b.calls,
                })
                .collect();
            (r.proc, bars)
        })
        .collect();
    let name = |k: i64| {
        i32::try_from(k)
            .ok()
            .and_then(crate::formats::blprof::commdata::func_name)
            .unwrap_or("?")
            .to_owned()
    };
    let colour = |k: i64| comm_type_colour(k);
    lanes_svg(
        &Picture {
            span,
            columns: TIMELINE_COLUMNS,
            what: "type",
            colour: &colour,
            name: &name,
            proc_in_title: false,
            calls: "call(s)",
            split: false,
        },
        &lanes,
        w,
    )
}

/// At most this many lanes in a timeline picture: above, each lane shows
/// `⌈processes / MAX_LANES⌉` consecutive processes.
pub const MAX_LANES: usize = 256;

/// One bar of a lane: columns `first..=last` won by `key`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LaneBar {
    first: u32,
    last: u32,
    key: i64,
    busy: f64,
    calls: u64,
}

/// How to draw the lanes of a timeline.
struct Picture<'a> {
    span: (f64, f64),
    columns: usize,
    /// What the colour stands for ("type", "outermost function").
    what: &'a str,
    /// Fill colour of a key.
    colour: &'a (dyn Fn(i64) -> String + Sync),
    /// Display name of a key (escaped for markup).
    name: &'a (dyn Fn(i64) -> String + Sync),
    /// Tooltips name the process (lane) too.
    proc_in_title: bool,
    /// How the calls of a bar are counted, for tooltips.
    calls: &'a str,
    /// Neighbouring bars of the same key are distinct calls: a pixel of
    /// background between them shows where one ends and the next starts.
    split: bool,
}

/// Merges the lanes of `k` consecutive processes into one: per column the
/// key that wins in most of them (ties: the lower key), busy = the mean over
/// the `k` processes (idle ones count 0), calls summed. `votes` is the
/// tally, reused from group to group (emptied here).
///
/// The columns are taken a segment at a time: between two bar edges of the
/// group every column is covered by the same bars, so it gets the same
/// tally (a bar's calls count in its first column only, an edge). Tallying
/// each column alone cost processes × columns (a long call is a bar over
/// the whole lane: 18 million steps at 16,384 processes); each tally adds
/// the same bars in the same order, so the sums are the same bits.
fn group_lanes(rows: &[(usize, Vec<LaneBar>)], columns: usize, votes: &mut Votes) -> Vec<LaneBar> {
    let mut out: Vec<LaneBar> = Vec::new();
    let Some(last_column) = columns.checked_sub(1) else {
        return out;
    };
    // The columns a bar covers: none when it starts past the last one.
    let cover = |b: &LaneBar| {
        let (a, z) = (b.first as usize, (b.last as usize).min(last_column));
        (a <= z).then_some((a, z))
    };
    let Votes { edges, next, tally } = votes;
    edges.clear();
    for (_, bars) in rows {
        for (a, z) in bars.iter().filter_map(cover) {
            edges.extend([a, z + 1]);
        }
    }
    edges.sort_unstable();
    edges.dedup();
    // Per row, its first bar that may still cover a column (bars come in
    // column order, one per column at most).
    next.clear();
    next.resize(rows.len(), 0);
    let k = rows.len().max(1) as f64;
    for s in edges.windows(2) {
        let (start, end) = (s[0], s[1]);
        tally.clear();
        for ((_, bars), at) in rows.iter().zip(next.iter_mut()) {
            while let Some(b) = bars.get(*at) {
                match cover(b) {
                    Some((_, z)) if z >= start => break,
                    _ => *at += 1,
                }
            }
            let Some(b) = bars.get(*at) else {
                continue;
            };
            let Some((a, _)) = cover(b).filter(|&(a, _)| a <= start) else {
                continue;
            };
            let calls = if a == start { b.calls } else { 0 };
            match tally.iter_mut().find(|v| v.0 == b.key) {
                Some(v) => {
                    v.1 += 1;
                    v.2 += b.busy;
                    v.3 += calls;
                }
                None => tally.push((b.key, 1, b.busy, calls)),
            }
        }
        let Some(&(key, _, _, _)) = tally.iter().max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)))
        else {
            continue;
        };
        let busy = tally.iter().map(|e| e.2).sum::<f64>() / k;
        let calls: u64 = tally.iter().filter(|e| e.0 == key).map(|e| e.3).sum();
        add_grouped_column(&mut out, start as u32, key, busy, calls);
        for c in start + 1..end {
            add_grouped_column(&mut out, c as u32, key, busy, 0);
        }
    }
    out
}

/// Adds column `c` of a group's lane, won by `key`, to its bars.
fn add_grouped_column(out: &mut Vec<LaneBar>, c: u32, key: i64, busy: f64, calls: u64) {
    match out.last_mut() {
        Some(b) if b.key == key && b.last + 1 == c => {
            let n = (b.last - b.first + 1) as f64;
            b.busy = (b.busy * n + busy) / (n + 1.0);
            b.last = c;
            b.calls += calls;
        }
        _ => out.push(LaneBar {
            first: c,
            last: c,
            key,
            busy,
            calls,
        }),
    }
}

/// [`group_lanes`]' memory, reused from group to group.
#[derive(Default)]
struct Votes {
    /// The columns where a bar starts or ends (the column after its last).
    edges: Vec<usize>,
    /// Per row, the index of its first bar not yet passed.
    next: Vec<usize>,
    /// Per key of a segment: (key, processes it wins, Σ busy, calls
    /// starting in its first column), keys in order of first appearance.
    tally: Vec<(i64, u32, f64, u64)>,
}

/// Draws one lane per process, or per group of processes above [`MAX_LANES`].
fn lanes_svg(
    pic: &Picture<'_>,
    rows: &[(usize, Vec<LaneBar>)],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let (t0, t1) = pic.span;
    let per_lane = rows.len().div_ceil(MAX_LANES).max(1);
    // (label, bars) per lane.
    let lanes: Vec<(String, std::borrow::Cow<'_, [LaneBar]>)> = if per_lane == 1 {
        rows.iter()
            .map(|(p, bars)| (format!("proc {p}"), std::borrow::Cow::Borrowed(&bars[..])))
            .collect()
    } else {
        // Groups in parallel (64 processes per lane at 16,384 processes:
        // the lanes were a tenth of `report` there), each thread's tally
        // reused over its groups.
        let columns = pic.columns;
        rows.par_chunks(per_lane)
            .map_init(Votes::default, |votes, g| {
                let (a, z) = (g[0].0, g[g.len() - 1].0);
                (
                    format!("procs {a}–{z}"),
                    std::borrow::Cow::Owned(group_lanes(g, columns, votes)),
                )
            })
            .collect()
    };
    let Lanes { lane, gap, every } = Lanes::for_rows(lanes.len());
    let left = if per_lane == 1 { 60.0 } else { 90.0 };
    // A second caption line when processes share lanes.
    let top = if per_lane == 1 { 24.0 } else { 38.0 };
    let width = left + pic.columns as f64 + 10.0;
    let legend = legend_entries(&lanes);
    let legend_rows = legend.len().div_ceil(LEGEND_PER_ROW);
    let lanes_bottom = top + lane * lanes.len() as f64;
    // The time axis under the lanes, then the legend.
    let height = lanes_bottom + 34.0 + 16.0 * legend_rows as f64;
    let slice = (t1 - t0).max(f64::MIN_POSITIVE) / pic.columns.max(1) as f64;
    writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    )?;
    writeln!(
        w,
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    )?;
    writeln!(
        w,
        r#"<text x="{left}" y="14" font-size="12" font-family="sans-serif">{t0:.6} s … {t1:.6} s, {slice:.3e} s per column; colour = {} with most time, opacity = busy share (each process on its own clock)</text>"#,
        pic.what
    )?;
    if per_lane > 1 {
        writeln!(
            w,
            r#"<text x="{left}" y="28" font-size="12" font-family="sans-serif">{per_lane} processes per lane: colour = the {} that most of them show, opacity = their mean busy share</text>"#,
            pic.what
        )?;
    }
    // Each lane's markup is formatted on the workers, a group of lanes at
    // a time, and written in order: writing the lanes one after another was
    // a serial tenth of `report` at 16,384 processes. A group bounds what is
    // held (a lane is at most a bar per column).
    let geometry = LaneGeometry {
        left,
        top,
        lane,
        gap,
        every,
        slice,
        shared: per_lane > 1,
    };
    for (g, group) in lanes.chunks(LANES_FORMATTED_AT_ONCE).enumerate() {
        let texts: Vec<String> = group
            .par_iter()
            .enumerate()
            .map(|(k, (label, bars))| {
                lane_markup(pic, &geometry, g * LANES_FORMATTED_AT_ONCE + k, label, bars)
            })
            .collect();
        for text in texts {
            w.write_all(text.as_bytes())?;
        }
    }
    time_axis(w, (t0, t1), left, pic.columns as f64, lanes_bottom)?;
    for (i, key) in legend.iter().enumerate() {
        let x = left + (i % LEGEND_PER_ROW) as f64 * (pic.columns as f64 / LEGEND_PER_ROW as f64);
        let y = lanes_bottom + 34.0 + 16.0 * (i / LEGEND_PER_ROW) as f64;
        writeln!(
            w,
            r#"<rect x="{x}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{y}" font-size="11" font-family="sans-serif">{}</text>"#,
            y - 9.0,
            (pic.colour)(*key),
            x + 14.0,
            (pic.name)(*key)
        )?;
    }
    writeln!(w, "</svg>")
}

/// Lanes whose markup is formatted at once (in parallel) and held until
/// written.
const LANES_FORMATTED_AT_ONCE: usize = 16;

/// Where a timeline's lanes go, shared by every lane.
struct LaneGeometry {
    left: f64,
    top: f64,
    lane: f64,
    gap: f64,
    /// Labels on every `every`-th lane.
    every: usize,
    /// Seconds per column.
    slice: f64,
    /// A lane shows a group of processes.
    shared: bool,
}

/// The markup of lane `i`: its label (on every `every`-th lane) and a
/// rectangle with a tooltip per bar.
fn lane_markup(
    pic: &Picture<'_>,
    at: &LaneGeometry,
    i: usize,
    label: &str,
    bars: &[LaneBar],
) -> String {
    use std::fmt::Write as _;
    let t0 = pic.span.0;
    let mut w = String::new();
    let y = at.top + at.lane * i as f64;
    // Writing to a String cannot fail.
    if i.is_multiple_of(at.every) {
        let _ = writeln!(
            w,
            r#"<text x="4" y="{}" font-size="11" font-family="sans-serif">{label}</text>"#,
            y + at.lane.min(12.0),
        );
    }
    let who = if pic.proc_in_title || at.shared {
        format!("{label} ")
    } else {
        String::new()
    };
    let mut prev: Option<&LaneBar> = None;
    for b in bars {
        let mut x0 = at.left + b.first as f64;
        let mut wd = (b.last - b.first + 1) as f64;
        let follows = prev.is_some_and(|p| p.key == b.key && p.last + 1 == b.first);
        if pic.split && follows && wd >= 2.0 {
            x0 += 1.0;
            wd -= 1.0;
        }
        prev = Some(b);
        let (a, z) = (
            t0 + at.slice * b.first as f64,
            t0 + at.slice * (b.last + 1) as f64,
        );
        let _ = writeln!(
            w,
            r#"<rect x="{x0}" y="{y}" width="{wd}" height="{}" fill="{}" fill-opacity="{:.2}"><title>{who}{} {a:.6}..{z:.6} s: {} {}, {:.0}% busy</title></rect>"#,
            at.lane - at.gap,
            (pic.colour)(b.key),
            0.25 + 0.75 * b.busy,
            (pic.name)(b.key),
            b.calls,
            pic.calls,
            100.0 * b.busy
        );
    }
    w
}

/// Legend entries per row of a timeline picture.
const LEGEND_PER_ROW: usize = 6;
/// Keys in a timeline's legend at most (the ones drawn over most columns).
const MAX_LEGEND: usize = 24;

/// The keys a timeline draws, most columns first (ties: the lower key).
fn legend_entries(lanes: &[(String, std::borrow::Cow<'_, [LaneBar]>)]) -> Vec<i64> {
    let mut columns: std::collections::BTreeMap<i64, u64> = Default::default();
    for (_, bars) in lanes {
        for b in bars.iter() {
            *columns.entry(b.key).or_default() += u64::from(b.last - b.first + 1);
        }
    }
    let mut keys: Vec<(i64, u64)> = columns.into_iter().collect();
    keys.sort_by_key(|&(k, n)| (std::cmp::Reverse(n), k));
    keys.into_iter().take(MAX_LEGEND).map(|(k, _)| k).collect()
}

/// Lane geometry of a timeline of `n` processes: 18 px lanes up to 64
/// processes, thinner ones (down to 3 px) above, so that the picture stays
/// about 1200 px tall; labels on every `every`-th lane only, so that they
/// never overlap.
struct Lanes {
    lane: f64,
    /// Blank pixels between lanes.
    gap: f64,
    every: usize,
}

impl Lanes {
    fn for_rows(n: usize) -> Lanes {
        let lane: f64 = if n <= 64 {
            18.0
        } else {
            (1152.0 / n as f64).floor().max(3.0)
        };
        Lanes {
            lane,
            gap: if lane >= 8.0 { 4.0 } else { 1.0 },
            every: (12.0 / lane).ceil().max(1.0) as usize,
        }
    }
}

/// The timeline of the calls at `depth` (0: the outermost calls): one lane
/// per process (or group of processes above [`MAX_LANES`]); per column the
/// function with the most time, coloured by function, opacity = share of
/// the column inside calls at that depth; back-to-back calls of one
/// function a pixel apart. Size is bounded by columns × lanes, whatever
/// the number of calls.
pub fn trace_timeline_svg(
    t: &crate::analysis::trace_timeline::TraceTimeline,
    depth: usize,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use crate::report::renderers::html::escape::markup as escape;
    let lanes: Vec<(usize, Vec<LaneBar>)> = t
        .rows
        .iter()
        .map(|r| {
            let bars = r
                .bars
                .iter()
                .map(|b| LaneBar {
                    first: b.first,
                    last: b.last,
                    key: b.function as i64,
                    busy: b.busy,
                    calls: b.calls,
                })
                .collect();
            (r.proc, bars)
        })
        .collect();
    let name = |k: i64| {
        escape(
            usize::try_from(k)
                .ok()
                .and_then(|f| t.names.get(f))
                .map_or("?", String::as_str),
        )
    };
    let colour = |k: i64| format!("hsl({:.0},65%,48%)", function_hue(k as u32));
    let what = if depth == 0 {
        "outermost function".to_owned()
    } else {
        format!("function at depth {depth}")
    };
    lanes_svg(
        &Picture {
            span: t.span,
            columns: t.columns,
            what: &what,
            colour: &colour,
            name: &name,
            proc_in_title: true,
            calls: "call(s) start here",
            split: true,
        },
        &lanes,
        w,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(first: u32, last: u32, key: i64, busy: f64, calls: u64) -> LaneBar {
        LaneBar {
            first,
            last,
            key,
            busy,
            calls,
        }
    }

    #[test]
    fn grouped_lanes_take_the_most_common_winner() {
        let rows = vec![
            (0, vec![bar(0, 3, 7, 1.0, 2)]),
            (1, vec![bar(0, 1, 5, 1.0, 1), bar(2, 3, 7, 0.5, 1)]),
            (2, vec![bar(1, 2, 5, 1.0, 1)]),
        ];
        // Column 0: 7 and 5 once each (the lower key wins); 1: 5 twice;
        // 2: 7 twice; 3: 7 twice.
        let g = group_lanes(&rows, 4, &mut Votes::default());
        // A tally left over from another group (more columns) counts for
        // nothing.
        let mut used = Votes::default();
        group_lanes(&[(9, vec![bar(0, 5, 7, 1.0, 3)])], 6, &mut used);
        assert_eq!(group_lanes(&rows, 4, &mut used), g);
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].first, g[0].last, g[0].key), (0, 1, 5));
        assert_eq!((g[1].first, g[1].last, g[1].key), (2, 3, 7));
        // Calls of the winning key that start in the run: rows 1 and 2
        // start a 5 in columns 0 and 1; row 1 a 7 in column 2.
        assert_eq!((g[0].calls, g[1].calls), (2, 1));
        // Column 3: busy 1.0 + 0.5 over 3 processes.
        assert!((g[1].busy - (2.5 / 3.0 + 1.5 / 3.0) / 2.0).abs() < 1e-12);
    }

    /// [`group_lanes`] as it tallied every column alone: the reference
    /// its segments must match bit for bit.
    fn group_lanes_per_column(rows: &[(usize, Vec<LaneBar>)], columns: usize) -> Vec<LaneBar> {
        let mut votes: Vec<Vec<(i64, u32, f64, u64)>> = vec![Vec::new(); columns];
        for (_, bars) in rows {
            for b in bars {
                let span = b.first as usize..=(b.last as usize).min(columns.saturating_sub(1));
                let Some(span) = votes.get_mut(span) else {
                    continue;
                };
                let mut calls = b.calls;
                for column in span {
                    match column.iter_mut().find(|v| v.0 == b.key) {
                        Some(v) => {
                            v.1 += 1;
                            v.2 += b.busy;
                            v.3 += calls;
                        }
                        None => column.push((b.key, 1, b.busy, calls)),
                    }
                    calls = 0;
                }
            }
        }
        let k = rows.len().max(1) as f64;
        let mut out = Vec::new();
        for (c, v) in votes.iter().enumerate() {
            let Some(&(key, _, _, _)) = v.iter().max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)))
            else {
                continue;
            };
            let busy = v.iter().map(|e| e.2).sum::<f64>() / k;
            let calls: u64 = v.iter().filter(|e| e.0 == key).map(|e| e.3).sum();
            add_grouped_column(&mut out, c as u32, key, busy, calls);
        }
        out
    }

    /// Lanes of uneven bars (busy shares whose sums' bits depend on their
    /// order, gaps, bars past the last column) group as tallied per column.
    #[test]
    fn grouped_segments_are_the_per_column_tally() {
        let mut rng = crate::test_rng::Xorshift::new(41);
        let mut used = Votes::default();
        for columns in [1, 7, 40] {
            let rows: Vec<(usize, Vec<LaneBar>)> = (0..23)
                .map(|p| {
                    let mut bars = Vec::new();
                    let mut c = rng.below(4) as u32;
                    while c < columns as u32 + 3 {
                        let len = rng.below(9) as u32;
                        let busy = 0.1 + rng.uniform() / 7.0;
                        bars.push(bar(c, c + len, rng.below(3) as i64, busy, rng.below(4)));
                        c += len + 1 + rng.below(3) as u32;
                    }
                    (p, bars)
                })
                .collect();
            let expected = group_lanes_per_column(&rows, columns);
            assert!(!expected.is_empty());
            assert_eq!(group_lanes(&rows, columns, &mut used), expected, "{columns} columns");
        }
        assert!(group_lanes(&[(0, vec![bar(0, 3, 1, 1.0, 1)])], 0, &mut used).is_empty());
    }

    #[test]
    fn many_processes_share_lanes() {
        let rows: Vec<crate::analysis::comm::timeline::TimelineRow> = (0..600)
            .map(|p| crate::analysis::comm::timeline::TimelineRow {
                proc: p,
                bars: vec![crate::analysis::comm::timeline::Bar {
                    first: 0,
                    last: 9,
                    kind: 2,
                    name: crate::formats::blprof::commdata::func_name(2).unwrap(),
                    busy: 0.5,
                    calls: 1,
                }],
            })
            .collect();
        let mut out = Vec::new();
        timeline_svg((0.0, 1.0), &rows, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        // 600 processes, 3 per lane: 200 lanes of one bar each (bars carry
        // a tooltip), and the one type in the legend.
        assert_eq!(text.matches("</rect>").count(), 200);
        assert!(text.contains("3 processes per lane"));
        let name = crate::formats::blprof::commdata::func_name(2).unwrap();
        assert!(text.contains(&format!("font-family=\"sans-serif\">{name}</text>")));
        assert!(text.contains(&format!("<title>procs 597–599 {name} ")));
        let mut out = Vec::new();
        timeline_svg((0.0, 1.0), &rows[..4], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(&format!(
            "<title>{name} 0.000000..0.008850 s: 1 call(s), 50% busy</title>"
        )));
    }

    #[test]
    fn lanes_shrink_for_many_processes_and_labels_never_overlap() {
        let few = Lanes::for_rows(64);
        assert_eq!((few.lane, few.every), (18.0, 1));
        let many = Lanes::for_rows(4096);
        assert_eq!(many.lane, 3.0);
        assert!(many.lane * many.every as f64 >= 12.0);
        let some = Lanes::for_rows(100);
        assert_eq!(some.lane, 11.0);
        assert_eq!(some.every, 2);
    }

    /// Lanes formatted in parallel groups come out in lane order, each
    /// once, at any thread count.
    #[test]
    fn lanes_are_written_in_order_whatever_the_threads() {
        let rows: Vec<(usize, Vec<LaneBar>)> = (0..3 * LANES_FORMATTED_AT_ONCE + 5)
            .map(|p| (p, vec![bar(0, 3, 1, 0.5, 1), bar(4, 9, 2, 1.0, 2)]))
            .collect();
        let colour = |k: i64| format!("c{k}");
        let name = |k: i64| format!("n{k}");
        let pic = Picture {
            span: (0.0, 1.0),
            columns: 10,
            what: "type",
            colour: &colour,
            name: &name,
            proc_in_title: true,
            calls: "call(s)",
            split: false,
        };
        let draw = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut out = Vec::new();
            pool.install(|| lanes_svg(&pic, &rows, &mut out)).unwrap();
            String::from_utf8(out).unwrap()
        };
        let svg = draw(3);
        assert_eq!(svg, draw(1));
        let lanes: Vec<usize> = svg
            .lines()
            .filter_map(|l| l.split("<title>proc ").nth(1))
            .map(|t| t.split(' ').next().unwrap().parse().unwrap())
            .collect();
        let expected: Vec<usize> = rows.iter().flat_map(|(p, _)| [*p, *p]).collect();
        assert_eq!(lanes, expected);
    }
}
