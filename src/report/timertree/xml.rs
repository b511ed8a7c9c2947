//! Writing the nested-XML file form (read by `formats::timertree::xml`):
//!
//! ```text
//! <TIMER_TREE>
//!   <TIMER NAME="A" TIME="0.04503002017736435">
//!     <TIMER NAME="B" TIME="0.010015728883445263">
//!     </TIMER>
//!   </TIMER>
//! </TIMER_TREE>
//! ```
//! Names escaped, indented by depth, shortest round-trip times (`NaN`,
//! `Infinity`, `-Infinity` for the special values).

use std::io::{self, Write};

use crate::model::calltree::CallTree;
use crate::model::timertree::Timing;
use crate::report::numfmt::padding::{Blanks, MAX_TREE_INDENT};
use crate::report::numfmt::round_trip::time_text;

/// Writes the XML form of `tree`.
pub fn write_xml(w: &mut dyn Write, tree: &CallTree<Timing>) -> io::Result<()> {
    writeln!(w, "<TIMER_TREE>")?;
    let mut open = 0usize;
    for (id, depth) in tree.preorder() {
        while open > depth {
            open -= 1;
            writeln!(w, "{}</TIMER>", xml_indent(open))?;
        }
        writeln!(
            w,
            "{}<TIMER NAME=\"{}\" TIME=\"{}\">",
            xml_indent(depth),
            escape(tree.name(id)),
            time_text(tree.node(id).metrics.seconds)
        )?;
        open += 1;
    }
    while open > 0 {
        open -= 1;
        writeln!(w, "{}</TIMER>", xml_indent(open))?;
    }
    writeln!(w, "</TIMER_TREE>")
}

/// Two blanks per level below `<TIMER_TREE>`, at most [`MAX_TREE_INDENT`]
/// levels: the blanks mean nothing to XML readers, and a tree thousands deep
/// should not grow with the square of its depth.
fn xml_indent(depth: usize) -> Blanks {
    Blanks(2 * (depth.min(MAX_TREE_INDENT) + 1))
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // Literal line breaks and tabs in attributes are normalized to
            // blanks by XML readers; character references keep them.
            '\n' | '\r' | '\t' => out.push_str(&format!("&#{};", c as u32)),
            // XML 1.0 cannot hold other control characters, not even as
            // character references: U+FFFD stands for each.
            c if !crate::report::escape::xml_char(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::formats::timertree::xml::read_xml;
    use crate::model::timertree::Serialized;

    fn read(s: &str) -> crate::Result<Serialized> {
        read_xml(s.as_bytes(), Path::new("t.xml"))
    }

    #[test]
    fn escaped_names_and_specials_round_trip() {
        let s = Serialized {
            tree: vec![1, 2, 2, 3, 3, 1],
            name: vec!["a<b&\"c\"\n".into(), "  lead".into(), "".into()],
            time: vec![f64::NAN, -0.0, 1e300],
        };
        let tree = s.to_call_tree().unwrap();
        let mut out = Vec::new();
        write_xml(&mut out, &tree).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(r#"<TIMER NAME="a&lt;b&amp;&quot;c&quot;&#10;" TIME="NaN">"#),
            "{text}"
        );
        let back = read(&text).unwrap();
        assert_eq!(back.tree, s.tree);
        assert_eq!(back.name, s.name);
        assert!(back.time[0].is_nan());
        assert!(back.time[1] == 0.0 && back.time[1].is_sign_negative());
        assert_eq!(back.time[2], 1e300);
    }
}
