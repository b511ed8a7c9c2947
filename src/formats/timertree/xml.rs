//! Reading the nested-XML file form from the reference documentation:
//!
//! ```text
//! <TIMER_TREE>
//!   <TIMER NAME="A" TIME="0.04503002017736435">
//!     <TIMER NAME="B" TIME="0.010015728883445263">
//!     </TIMER>
//!   </TIMER>
//! </TIMER_TREE>
//! ```
//! The reader accepts what `report::timertree::xml` writes (escaped names,
//! shortest round-trip times, `NaN`, `Infinity`, `-Infinity`) and the
//! reference's own output: no `TIMER_TREE` wrapper,
//! padded times in Fortran `E` form (` 4.50300202E-02 `), self-closing
//! `<TIMER .../>`, comments and an XML declaration. It is a small strict
//! reader of this one vocabulary, not a general XML parser: other elements,
//! text content, DTDs and unknown entities are errors.

use std::path::Path;

use crate::error::{Error, Location, Result};
use crate::model::timertree::Serialized;

use super::json::special_value;

/// Reads the XML form into serialized arrays; `path` only names the file in
/// errors, which give the line.
pub fn read_xml(bytes: &[u8], path: &Path) -> Result<Serialized> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::syntax(
            Location::offset(path, e.valid_up_to() as u64),
            "not UTF-8 text (XML timer tree)",
        )
    })?;
    let mut reader = Reader {
        text,
        pos: 0,
        out: Serialized::default(),
        open: Vec::new(),
        wrapper: Wrapper::None,
    };
    reader.document().map_err(|(pos, message)| {
        Error::syntax(Location::line(path, line_of(text, pos)), message)
    })?;
    Ok(reader.out)
}

fn line_of(text: &str, pos: usize) -> usize {
    1 + text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// A failure: byte offset and message.
type Failure = (usize, String);

/// Attributes of one tag in document order: name and unescaped value.
type Attrs<'a> = Vec<(&'a str, String)>;

#[derive(PartialEq)]
enum Wrapper {
    None,
    Open,
    Closed,
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
    out: Serialized,
    /// Node numbers of the open TIMER elements.
    open: Vec<i64>,
    wrapper: Wrapper,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn fail<T>(&self, at: usize, message: impl Into<String>) -> Result<T, Failure> {
        Err((at, message.into()))
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// Moves past `end`, which must follow.
    fn skip_past(&mut self, end: &str, what: &str) -> Result<(), Failure> {
        match self.rest().find(end) {
            Some(i) => {
                self.pos += i + end.len();
                Ok(())
            }
            None => self.fail(self.pos, format!("unterminated {what}")),
        }
    }

    fn document(&mut self) -> Result<(), Failure> {
        loop {
            self.skip_ws();
            let rest = self.rest();
            if rest.is_empty() {
                break;
            }
            let start = self.pos;
            if rest.starts_with("<?") {
                self.skip_past("?>", "processing instruction")?;
            } else if rest.starts_with("<!--") {
                self.skip_past("-->", "comment")?;
            } else if rest.starts_with("<!") {
                return self.fail(start, "DTDs are not supported in a timer tree");
            } else if rest.starts_with("</") {
                self.end_tag()?;
            } else if rest.starts_with('<') {
                self.start_tag()?;
            } else {
                return self.fail(
                    start,
                    "text outside a tag: expected <TIMER ...> or </TIMER>",
                );
            }
        }
        if let Some(&k) = self.open.last() {
            let name = self
                .out
                .name
                .get(k as usize - 1)
                .cloned()
                .unwrap_or_default();
            return self.fail(
                self.text.len(),
                format!("<TIMER NAME={name:?}> is never closed"),
            );
        }
        if self.wrapper == Wrapper::Open {
            return self.fail(self.text.len(), "<TIMER_TREE> is never closed");
        }
        Ok(())
    }

    fn tag_name(&mut self) -> &'a str {
        let rest = self.rest();
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
            .unwrap_or(rest.len());
        self.pos += end;
        &rest[..end]
    }

    fn end_tag(&mut self) -> Result<(), Failure> {
        let start = self.pos;
        self.pos += 2;
        let name = self.tag_name();
        self.skip_ws();
        if !self.rest().starts_with('>') {
            return self.fail(self.pos, format!("expected '>' to end </{name}"));
        }
        self.pos += 1;
        if name == "TIMER" {
            match self.open.pop() {
                Some(k) => self.out.tree.push(k),
                None => return self.fail(start, "</TIMER> without an open <TIMER>"),
            }
        } else if name == "TIMER_TREE" && self.wrapper == Wrapper::Open && self.open.is_empty() {
            self.wrapper = Wrapper::Closed;
        } else {
            return self.fail(start, format!("unexpected </{name}>"));
        }
        Ok(())
    }

    fn start_tag(&mut self) -> Result<(), Failure> {
        let start = self.pos;
        self.pos += 1;
        let name = self.tag_name();
        let (attrs, self_closing) = self.attributes()?;
        match name {
            "TIMER" => {
                if self.wrapper == Wrapper::Closed {
                    return self.fail(start, "<TIMER> after </TIMER_TREE>");
                }
                let name =
                    take_attr(&attrs, "NAME").ok_or((start, "<TIMER> without NAME".to_owned()))?;
                let time =
                    take_attr(&attrs, "TIME").ok_or((start, "<TIMER> without TIME".to_owned()))?;
                let Some(time) = parse_time(&time) else {
                    return self.fail(start, format!("TIME={time:?} is not a number"));
                };
                let k = self.out.name.len() as i64 + 1;
                self.out.tree.push(k);
                self.out.name.push(name);
                self.out.time.push(time);
                if self_closing {
                    self.out.tree.push(k);
                } else {
                    self.open.push(k);
                }
            }
            "TIMER_TREE" if self.wrapper == Wrapper::None && self.out.name.is_empty() => {
                self.wrapper = if self_closing {
                    Wrapper::Closed
                } else {
                    Wrapper::Open
                };
            }
            _ => {
                return self.fail(
                    start,
                    format!("unexpected element <{name}>: expected <TIMER>"),
                );
            }
        }
        Ok(())
    }

    /// Attributes up to `>` or `/>`; true when the tag closes itself.
    fn attributes(&mut self) -> Result<(Attrs<'a>, bool), Failure> {
        let mut attrs: Attrs<'a> = Vec::new();
        loop {
            self.skip_ws();
            let rest = self.rest();
            if rest.starts_with("/>") {
                self.pos += 2;
                return Ok((attrs, true));
            }
            if rest.starts_with('>') {
                self.pos += 1;
                return Ok((attrs, false));
            }
            let at = self.pos;
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '=' || c == '>' || c == '/')
                .unwrap_or(rest.len());
            if end == 0 {
                return self.fail(at, "expected an attribute, '>' or '/>'");
            }
            let key = &rest[..end];
            self.pos += end;
            self.skip_ws();
            if !self.rest().starts_with('=') {
                return self.fail(self.pos, format!("expected '=' after attribute {key}"));
            }
            self.pos += 1;
            self.skip_ws();
            let quote = match self.rest().chars().next() {
                Some(q @ ('"' | '\'')) => q,
                _ => return self.fail(self.pos, format!("expected a quoted value for {key}")),
            };
            self.pos += 1;
            let Some(len) = self.rest().find(quote) else {
                return self.fail(at, format!("unterminated value of {key}"));
            };
            let raw = &self.rest()[..len];
            let value = unescape(raw).map_err(|(i, m)| (self.pos + i, m))?;
            self.pos += len + 1;
            if attrs.iter().any(|(k, _)| *k == key) {
                return self.fail(at, format!("attribute {key} given twice"));
            }
            attrs.push((key, value));
        }
    }
}

fn take_attr(attrs: &[(&str, String)], key: &str) -> Option<String> {
    attrs
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.clone())
}

/// A time: shortest decimals, Fortran `E` form with padding, or a special.
fn parse_time(s: &str) -> Option<f64> {
    let s = s.trim();
    special_value(s).or_else(|| {
        // Rust also accepts "inf" and "nan" spellings, and overflowing
        // decimals (1e999) parse as infinity: only finite numbers here.
        let numeric = s
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
        s.parse().ok().filter(|x: &f64| numeric && x.is_finite())
    })
}

fn unescape(raw: &str) -> Result<String, Failure> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find(['&', '<']) {
        out.push_str(&rest[..i]);
        let at = raw.len() - rest.len() + i;
        if rest[i..].starts_with('<') {
            return Err((at, "'<' inside an attribute value".into()));
        }
        let Some(semi) = rest[i..].find(';') else {
            return Err((at, "'&' without ';'".into()));
        };
        let entity = &rest[i + 1..i + semi];
        let c = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| entity.strip_prefix('#').map(|d| d.parse::<u32>()))
                .and_then(|r| r.ok())
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => out.push(c),
            None => return Err((at, format!("unknown entity &{entity};"))),
        }
        rest = &rest[i + semi + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<Serialized> {
        read_xml(s.as_bytes(), Path::new("t.xml"))
    }

    #[test]
    fn reference_form_without_wrapper_and_self_closing() {
        let s = read(" <TIMER NAME=\"A\" TIME=\"   4.50300202E-02 \">\n <TIMER NAME='B' TIME='1'/>\n </TIMER>\n")
            .unwrap();
        assert_eq!(s.tree, vec![1, 2, 2, 1]);
        assert_eq!(s.time, vec![4.50300202E-02, 1.0]);
    }

    #[test]
    fn malformed_xml_is_a_located_error() {
        for (input, needle) in [
            (
                "<TIMER NAME=\"A\" TIME=\"1\">\n",
                "t.xml:2: <TIMER NAME=\"A\"> is never closed",
            ),
            (
                "<TIMER NAME=\"A\">\n</TIMER>",
                "t.xml:1: <TIMER> without TIME",
            ),
            ("<TIMER NAME=\"A\" TIME=\"fast\"/>", "is not a number"),
            ("<TIMER NAME=\"A\" TIME=\"inf\"/>", "is not a number"),
            ("<TIMER NAME=\"A\" TIME=\"1e999\"/>", "is not a number"),
            ("\n\n</TIMER>", "t.xml:3: </TIMER> without an open"),
            (
                "<TIMER NAME=\"&bogus;\" TIME=\"1\"/>",
                "unknown entity &bogus;",
            ),
            ("<TIMER NAME=\"A\" NAME=\"B\" TIME=\"1\"/>", "given twice"),
            ("<TIMER NAME=\"A TIME=\"1\"/>", "expected '='"),
            ("<TIMER NAME=\"A\" TIME=\"1\"/> text", "text outside a tag"),
            ("<FOO/>", "unexpected element <FOO>"),
            ("<!-- x", "unterminated comment"),
            (
                "<TIMER_TREE><TIMER NAME=\"A\" TIME=\"1\"/>",
                "<TIMER_TREE> is never closed",
            ),
        ] {
            let e = read(input).unwrap_err().to_string();
            assert!(e.contains(needle), "{input:?}: {e}");
        }
        let e = read_xml(b"<TIMER NAME=\"\xff\"", Path::new("t.xml")).unwrap_err();
        assert!(e.to_string().contains("byte offset 13"), "{e}");
    }
}
