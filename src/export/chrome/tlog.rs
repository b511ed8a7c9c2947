//! A tlog trace file as a Chrome trace.

use std::io::{self, Write};

use super::json::{EventWriter, json_str, put_event, put_metadata};

/// Chrome trace of a tlog file: an `X` event per matched IN/OUT interval and
/// an `i` event per single event, `pid` = process; returns the event count.
pub fn write_tlog_trace(
    w: &mut dyn Write,
    t: &crate::formats::tlog::TlogFile,
    names: &crate::analysis::tlog_summary::EventNames,
) -> io::Result<u64> {
    use crate::formats::tlog::EventKind;
    let mut out = EventWriter::new(w)?;
    let mut text = Vec::with_capacity(1 << 16);
    let mut events = 0u64;
    for p in t.procs() {
        let pid = p as usize;
        put_metadata(&mut text, "process_name", pid, 0, &format!("process {pid}"));
        put_metadata(&mut text, "thread_name", pid, 0, "events");
        events += 2;
        let mut open: Vec<(u8, f64)> = Vec::new();
        for (_, r) in t.proc_events(p) {
            if !r.time.is_finite() {
                continue;
            }
            match EventKind::of(r.kind) {
                EventKind::In(k) => open.push((k, r.time)),
                EventKind::Out(k) => {
                    if let Some(j) = open.iter().rposition(|o| o.0 == k) {
                        let (_, t0) = open.remove(j);
                        let name = json_str(&names.pair(k));
                        let dur = (r.time - t0).max(0.0);
                        put_event(&mut text, &name, "X", t0, Some(dur), pid, 0, "interval");
                        events += 1;
                    }
                }
                EventKind::Single(k) => {
                    let name = json_str(&names.single(k));
                    put_event(&mut text, &name, "i", r.time, None, pid, 0, "single");
                    events += 1;
                }
                EventKind::Start | EventKind::End | EventKind::Unknown(_) => {}
            }
            if text.len() >= 1 << 16 {
                out.write(&text, events)?;
                text.clear();
                events = 0;
            }
        }
    }
    out.write(&text, events)?;
    out.finish()
}
