//! Names from the data (function, region, barrier, host and timer names)
//! made safe for each medium:
//!
//! * terminals and text: [`visible`] writes control characters as visible
//!   escapes (`\n`, `\r`, `\t`, `\x1b`, `\u{85}`), so an ESC sequence cannot
//!   drive the terminal and a `\r` or `\n` cannot forge a row;
//! * CSV: [`csv_cell`] applies the OWASP rule to text cells: a cell that
//!   starts with `=`, `+`, `-`, `@`, a tab or a CR gets a leading `'`,
//!   unless the whole cell is a number (`-0.5` stays a number); control
//!   characters are then escaped as on terminals;
//! * XML 1.0, which cannot hold most control characters even as character
//!   references: [`xml_char`] says which characters must be replaced
//!   (the XML timer-tree layout writes U+FFFD for them);
//! * HTML and SVG: `renderers::html::escape::markup` (beside the pages and
//!   pictures it serves), built on [`visible_except`].
//!
//! Text without such characters comes back borrowed and unchanged, so the
//! reference layouts stay byte-identical on clean data.
//!
//! At the level of `report/`, not in `render/`: the text and CSV renderers,
//! the reports' own layouts (amrprofparser's, folded stacks, XML), the
//! exporters and the command line's messages all use it.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is a control character (C0, DEL or C1).
fn is_control(c: char) -> bool {
    c.is_control()
}

/// Whether `s` holds a control character (line breaks counted unless
/// `keep_newline`): a byte scan that clears the text of a big tree without
/// decoding it (C1 controls are the UTF-8 sequences `C2 80`..`C2 9F`).
pub(crate) fn has_control_bytes(s: &str, keep_newline: bool) -> bool {
    let b = s.as_bytes();
    // Folds without early exits, which the compiler turns into vector code.
    let c0 = b.iter().fold(false, |found, &x| {
        found | ((x < 0x20) & (x != b'\n' || !keep_newline)) | (x == 0x7f)
    });
    let c1 = b.windows(2).fold(false, |found, w| {
        found | ((w[0] == 0xc2) & (w[1] >= 0x80) & (w[1] <= 0x9f))
    });
    c0 || c1
}

/// `s` with every control character written as a visible escape.
pub fn visible(s: &str) -> Cow<'_, str> {
    visible_except(s, &[])
}

/// [`visible`], keeping the characters in `keep` (a rendered layout's own
/// line breaks) as they are.
pub fn visible_except<'s>(s: &'s str, keep: &[char]) -> Cow<'s, str> {
    if !has_control_bytes(s, keep.contains(&'\n')) || !s.chars().any(|c| is_control(c) && !keep.contains(&c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_control(c) || keep.contains(&c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// A CSV text cell made safe to open in a spreadsheet (OWASP CSV
/// injection rule: a leading `'`), then with its control characters
/// written as in [`visible`] (CSV is often read on a terminal; JSON keeps
/// names exactly).
pub fn csv_cell(s: &str) -> Cow<'_, str> {
    let s = match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') if s.trim().parse::<f64>().is_err() => {
            Cow::Owned(format!("'{s}"))
        }
        _ => Cow::Borrowed(s),
    };
    // CSV is often read on a terminal: control characters as in `visible`.
    match visible(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(v) => Cow::Owned(v),
    }
}

/// Whether XML 1.0 can hold `c` (as itself or as a character reference):
/// tab, line feed, carriage return, and everything from U+0020 except the
/// surrogates and U+FFFE/U+FFFF (which a Rust `char` cannot be anyway, or
/// which are excluded here).
pub fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{fffe}' && c != '\u{ffff}')
}

/// A writer that passes text through with every ASCII control byte but the
/// line feed written as a visible escape (`\x1b`, `\r`, `\t`, …): for
/// layouts written piecewise (amrprofparser's reference layouts, folded
/// stacks), whose own line breaks are the only control bytes they write.
/// UTF-8 sequences pass unchanged (no ASCII byte occurs inside one).
pub struct VisibleWriter<'w> {
    pub inner: &'w mut dyn std::io::Write,
}

impl std::io::Write for VisibleWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let mut rest = buf;
        while let Some(i) = rest
            .iter()
            .position(|&b| (b < 0x20 && b != b'\n') || b == 0x7f)
        {
            self.inner.write_all(&rest[..i])?;
            let esc = match rest[i] {
                b'\r' => "\\r".to_owned(),
                b'\t' => "\\t".to_owned(),
                b => format!("\\x{b:02x}"),
            };
            self.inner.write_all(esc.as_bytes())?;
            rest = &rest[i + 1..];
        }
        self.inner.write_all(rest)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_visible_writer_escapes_control_bytes_but_line_feeds() {
        use std::io::Write;
        let mut out = Vec::new();
        let mut w = VisibleWriter { inner: &mut out };
        w.write_all("a\x1b[2J\r\tb\né\n".as_bytes()).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a\\x1b[2J\\r\\tb\né\n");
    }

    #[test]
    fn visible_escapes_controls_and_borrows_clean_text() {
        assert!(matches!(visible("a b-é"), Cow::Borrowed(_)));
        assert_eq!(visible("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(visible("x\ry\nz\t"), "x\\ry\\nz\\t");
        assert_eq!(visible("\x7f\u{85}"), "\\x7f\\u{85}");
        assert_eq!(visible_except("a\n\x07", &['\n']), "a\n\\x07");
    }

    /// The byte scan finds exactly the characters `char::is_control` does,
    /// C1 controls among two-byte characters that are not (`µ`, `\u{a0}`).
    #[test]
    fn the_byte_scan_agrees_with_is_control() {
        for c in (0..0x800u32).filter_map(char::from_u32) {
            for text in [format!("µ{c}"), format!("{c}é"), format!("ab{c}\u{a0}")] {
                for keep in [&[][..], &['\n'][..]] {
                    let expected = text.chars().any(|c| is_control(c) && !keep.contains(&c));
                    assert_eq!(has_control_bytes(&text, !keep.is_empty()), expected, "{c:?}");
                }
            }
        }
    }

    #[test]
    fn csv_cells_starting_like_formulas_are_quoted_but_numbers_are_not() {
        assert_eq!(csv_cell("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(csv_cell("+x"), "'+x");
        assert_eq!(csv_cell("-cmd"), "'-cmd");
        assert_eq!(csv_cell("@x"), "'@x");
        assert_eq!(csv_cell("\tx"), "'\\tx");
        assert_eq!(csv_cell("\rx"), "'\\rx");
        assert_eq!(csv_cell("a\x1bb"), "a\\x1bb");
        assert_eq!(csv_cell("-0.5"), "-0.5");
        assert_eq!(csv_cell("+3"), "+3");
        assert_eq!(csv_cell("-1e-9"), "-1e-9");
        assert_eq!(csv_cell("name=1"), "name=1");
        assert_eq!(csv_cell(""), "");
    }

    #[test]
    fn xml_chars() {
        assert!(xml_char('a') && xml_char('\n') && xml_char('\t') && xml_char('é'));
        assert!(!xml_char('\x1b') && !xml_char('\0') && !xml_char('\u{ffff}'));
    }
}
