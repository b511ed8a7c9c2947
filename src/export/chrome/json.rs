//! The wire format, written by hand: numbers as serde_json writes them
//! (zmij's shortest round-trip form, `null` for NaN and infinities),
//! strings escaped as serde_json escapes them. Every event is `,\n{…}`;
//! the writer drops the comma of the first.

use std::io::{self, Write};

/// `x` as a JSON number (`null` when not finite).
#[inline]
pub(super) fn put_f64(out: &mut Vec<u8>, x: f64) {
    if x.is_finite() {
        out.extend_from_slice(zmij::Buffer::new().format_finite(x).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// `seconds` as the trace's microseconds, rounded to the nanosecond: a
/// product like `8.39465899 × 1e6` would otherwise carry float noise
/// (`8394658.999999997`), a seventh of a trace's bytes.
pub(super) fn put_us(out: &mut Vec<u8>, seconds: f64) {
    put_f64(out, (seconds * 1e9).round() / 1e3);
}

pub(super) fn put_int<I: itoa::Integer>(out: &mut Vec<u8>, x: I) {
    out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes());
}

/// `s` as a JSON string: quotes, backslashes and control characters
/// escaped (`\b \t \n \f \r`, else `\u00xx`).
pub(super) fn put_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0c => b"\\f",
            b'\r' => b"\\r",
            0..0x20 => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[from..i]);
        if esc.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(esc);
        }
        from = i + 1;
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

/// `s` as a JSON string, in a buffer of its own (names written often).
pub(super) fn json_str(s: &str) -> Box<[u8]> {
    let mut v = Vec::with_capacity(s.len() + 2);
    put_str(&mut v, s);
    v.into_boxed_slice()
}

/// A plain event: `{"name","ph","ts"[,"dur"],"pid","tid","cat"}`; `ts`
/// and `dur` in seconds.
#[allow(clippy::too_many_arguments)]
pub(super) fn put_event(
    out: &mut Vec<u8>,
    name: &[u8],
    ph: &str,
    ts: f64,
    dur: Option<f64>,
    pid: usize,
    tid: u32,
    cat: &str,
) {
    out.extend_from_slice(b",\n{\"name\":");
    out.extend_from_slice(name);
    out.extend_from_slice(b",\"ph\":\"");
    out.extend_from_slice(ph.as_bytes());
    out.extend_from_slice(b"\",\"ts\":");
    put_us(out, ts);
    if let Some(d) = dur {
        out.extend_from_slice(b",\"dur\":");
        // From the rounded ends, so that slices that nest or touch in
        // seconds still do in the nanoseconds written (no 1 ns overlap).
        let ns = ((ts + d) * 1e9).round() - (ts * 1e9).round();
        put_f64(out, ns.max(0.0) / 1e3);
    }
    out.extend_from_slice(b",\"pid\":");
    put_int(out, pid);
    out.extend_from_slice(b",\"tid\":");
    put_int(out, tid);
    out.extend_from_slice(b",\"cat\":\"");
    out.extend_from_slice(cat.as_bytes());
    out.extend_from_slice(b"\"}");
}

/// A metadata event naming a process or a track.
pub(super) fn put_metadata(out: &mut Vec<u8>, what: &str, pid: usize, tid: u32, name: &str) {
    out.extend_from_slice(b",\n{\"name\":\"");
    out.extend_from_slice(what.as_bytes());
    out.extend_from_slice(b"\",\"ph\":\"M\",\"ts\":");
    put_f64(out, 0.0);
    out.extend_from_slice(b",\"pid\":");
    put_int(out, pid);
    out.extend_from_slice(b",\"tid\":");
    put_int(out, tid);
    out.extend_from_slice(b",\"args\":{\"name\":");
    put_str(out, name);
    out.extend_from_slice(b"}}");
}

/// Writes the event texts in order into `{"traceEvents":[…]`.
pub(super) struct EventWriter<'w> {
    w: &'w mut dyn Write,
    first: bool,
    count: u64,
}

impl EventWriter<'_> {
    pub(super) fn new(w: &mut dyn Write) -> io::Result<EventWriter<'_>> {
        w.write_all(b"{\"traceEvents\":[")?;
        Ok(EventWriter {
            w,
            first: true,
            count: 0,
        })
    }

    /// `text`: `events` events, each starting with `,\n`.
    pub(super) fn write(&mut self, text: &[u8], events: u64) -> io::Result<()> {
        let text = if self.first && !text.is_empty() {
            self.first = false;
            &text[1..]
        } else {
            text
        };
        self.w.write_all(text)?;
        self.count += events;
        Ok(())
    }

    pub(super) fn finish(self) -> io::Result<u64> {
        self.w.write_all(b"\n],\"displayTimeUnit\":\"ms\"}\n")?;
        Ok(self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written JSON is what serde_json writes.
    #[test]
    fn strings_and_numbers_as_serde_json_writes_them() {
        let mut all: String = (0u8..128).map(char::from).collect();
        all.push_str("é∑😀 \u{7f}");
        for s in [all.as_str(), "", "main()", "a\"b\\c\n\t"] {
            let mut out = Vec::new();
            put_str(&mut out, s);
            assert_eq!(out, serde_json::to_vec(s).unwrap(), "{s:?}");
        }
        for x in [
            0.0,
            -0.0,
            1.0,
            105.0,
            74481119.9998446,
            1e-7,
            1.5e300,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let mut out = Vec::new();
            put_f64(&mut out, x);
            assert_eq!(out, serde_json::to_vec(&x).unwrap(), "{x}");
        }
    }
}
