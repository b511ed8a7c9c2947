//! A tlog trace file as a Chrome trace, its events as
//! [`crate::analysis::tlog_events`] finds them.

use std::io::{self, Write};

use crate::analysis::tlog_events::{TlogEvent, for_each_tlog_event};

use super::json::{EventWriter, json_str, put_event, put_metadata};

/// Chrome trace of a tlog file: an `X` event per matched IN/OUT interval and
/// an `i` event per single event, `pid` = process; returns the event count.
pub fn write_tlog_trace(
    w: &mut dyn Write,
    t: &crate::formats::tlog::TlogFile,
    names: &crate::analysis::tlog_summary::EventNames,
) -> io::Result<u64> {
    let mut out = EventWriter::new(w)?;
    let mut text = Vec::with_capacity(1 << 16);
    let mut events = 0u64;
    for_each_tlog_event(t, |e| {
        match e {
            TlogEvent::Process(pid) => {
                put_metadata(&mut text, "process_name", pid, 0, &format!("process {pid}"));
                put_metadata(&mut text, "thread_name", pid, 0, "events");
                events += 2;
            }
            TlogEvent::Interval {
                pid,
                pair,
                start,
                dur,
            } => {
                let name = json_str(&names.pair(pair));
                put_event(&mut text, &name, "X", start, Some(dur), pid, 0, "interval");
                events += 1;
            }
            TlogEvent::Single { pid, kind, time } => {
                let name = json_str(&names.single(kind));
                put_event(&mut text, &name, "i", time, None, pid, 0, "single");
                events += 1;
            }
        }
        // Written a buffer at a time.
        if text.len() >= 1 << 16 {
            out.write(&text, events)?;
            text.clear();
            events = 0;
        }
        Ok::<(), io::Error>(())
    })?;
    out.write(&text, events)?;
    out.finish()
}
