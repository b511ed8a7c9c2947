//! The one escaping function of every HTML page and SVG picture:
//! [`markup`] writes the markup characters as entities and control
//! characters (but tab, LF, CR) as visible escapes, so a name from the data
//! cannot end the page's well-formedness. Control characters are written as
//! on terminals ([`crate::report::escape`]), which this module builds on;
//! nothing in the HTML or SVG renderers is imported here, so the
//! dependency is one-way.

use crate::report::escape::visible_except;

/// Text for HTML or SVG element content and quoted attribute values: the
/// markup characters as entities, and control characters other than tab,
/// line feed and carriage return (which XML 1.0 cannot hold, not even as
/// character references) written as in [`visible`](crate::report::escape::visible) (`\x1b`, `\u{85}`).
pub fn markup(s: &str) -> String {
    let s = visible_except(s, &['\t', '\n', '\r']);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_escapes_entities_and_controls_xml_cannot_hold() {
        assert_eq!(
            markup("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(
            markup("a\x1b[2J\x07\0b\u{85}"),
            "a\\x1b[2J\\x07\\x00b\\u{85}"
        );
        assert_eq!(markup("t\tl\nr\r"), "t\tl\nr\r");
        assert!(markup("x\x01\x7f\u{9f}").chars().all(|c| !c.is_control()));
    }
}
