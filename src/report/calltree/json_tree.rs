//! Nested JSON trees written without recursion, byte for byte as
//! serde_json's pretty printer writes the same nested value.
//!
//! Call trees can be as deep as their input makes them (a damaged trace, a
//! deep recursion: 100,000 levels), and serde serializes a nested value by
//! recursion, one set of stack frames per level: a deep tree would overflow
//! the stack. Here only each node's own fields go through serde (a flat
//! object); the nesting is an explicit stack. Past [`MAX_INDENT_LEVEL`]
//! levels the indentation stops growing.

use std::io::{self, Write};

use serde::Serialize;

use crate::report::renderers::json::io_error;

/// Levels indented, at most: deeper levels are indented as this one, so
/// that the output of a deep tree grows with its size, not with the square
/// of its depth (real call trees stay far above it: their output is
/// serde_json's exactly).
const MAX_INDENT_LEVEL: usize = 256;

/// serde_json's pretty indent: two blanks per level.
fn indent(w: &mut dyn Write, level: usize) -> io::Result<()> {
    const BLANKS: [u8; 2 * MAX_INDENT_LEVEL] = [b' '; 2 * MAX_INDENT_LEVEL];
    w.write_all(&BLANKS[..2 * level.min(MAX_INDENT_LEVEL)])
}

/// The array being written at one level: its items and how many are done.
struct Open<I> {
    items: Vec<I>,
    done: usize,
    /// Nesting level of the array (its `]` is indented by it).
    level: usize,
}

/// Writes `roots` as a JSON array at nesting `level` (where the caller's
/// cursor is, after `"key": ` or at the start): each item is the object of
/// `fields(item)` followed by `"<children_key>": [...]` with the items of
/// `children(item)`, recursively. The caller writes what comes after the
/// array.
pub fn write_tree_array<I: Copy, F: Serialize>(
    w: &mut dyn Write,
    level: usize,
    roots: Vec<I>,
    children_key: &str,
    fields: impl Fn(I) -> F,
    children: impl Fn(I) -> Vec<I>,
) -> io::Result<()> {
    if roots.is_empty() {
        return w.write_all(b"[]");
    }
    w.write_all(b"[\n")?;
    let mut stack = vec![Open {
        items: roots,
        done: 0,
        level,
    }];
    let mut own = Vec::new();
    while let Some(top) = stack.last_mut() {
        if top.done == top.items.len() {
            w.write_all(b"\n")?;
            indent(w, top.level)?;
            w.write_all(b"]")?;
            let closed = top.level;
            stack.pop();
            if !stack.is_empty() {
                // The array was the children of an object one level out.
                w.write_all(b"\n")?;
                indent(w, closed - 1)?;
                w.write_all(b"}")?;
            }
            continue;
        }
        let item = top.items[top.done];
        if top.done > 0 {
            w.write_all(b",\n")?;
        }
        top.done += 1;
        let object = top.level + 1;
        indent(w, object)?;
        own.clear();
        serde_json::to_writer_pretty(&mut own, &fields(item)).map_err(io_error)?;
        write_open_object(w, &own, object)?;
        w.write_all(b",\n")?;
        indent(w, object + 1)?;
        serde_json::to_writer(&mut *w, children_key).map_err(io_error)?;
        w.write_all(b": ")?;
        let kids = children(item);
        if kids.is_empty() {
            w.write_all(b"[]\n")?;
            indent(w, object)?;
            w.write_all(b"}")?;
        } else {
            w.write_all(b"[\n")?;
            stack.push(Open {
                items: kids,
                done: 0,
                level: object + 1,
            });
        }
    }
    Ok(())
}

/// Writes a flat object's pretty JSON (`{\n  "a": 1\n}`) re-indented to
/// nesting `level`, without its closing line: the caller adds fields.
pub fn write_open_object(w: &mut dyn Write, pretty: &[u8], level: usize) -> io::Result<()> {
    // Strings are escaped, so every raw newline is the printer's own.
    let body = pretty.strip_suffix(b"\n}").unwrap_or(b"{");
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            w.write_all(b"\n")?;
            indent(w, level)?;
        }
        w.write_all(line)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Nested {
        name: String,
        n: usize,
        kids: Vec<Nested>,
    }

    #[derive(Serialize)]
    struct Own<'a> {
        name: &'a str,
        n: usize,
    }

    /// node i's children: 2i+1 and 2i+2 below `len`.
    fn kids(i: usize, len: usize) -> Vec<usize> {
        [2 * i + 1, 2 * i + 2]
            .into_iter()
            .filter(|&k| k < len)
            .collect()
    }

    fn nested(i: usize, len: usize) -> Nested {
        Nested {
            name: format!("n\"{i}\n"),
            n: i,
            kids: kids(i, len).into_iter().map(|k| nested(k, len)).collect(),
        }
    }

    #[test]
    fn same_bytes_as_serde_pretty() {
        for len in [1, 2, 3, 7, 12] {
            for level in [0, 1, 3] {
                let expected = {
                    let value = vec![nested(0, len), nested(0, 1)];
                    let mut out = Vec::new();
                    let mut ser = serde_json::Serializer::with_formatter(
                        &mut out,
                        serde_json::ser::PrettyFormatter::with_indent(b"  "),
                    );
                    value.serialize(&mut ser).unwrap();
                    // Re-indent serde's top-level array as if nested.
                    let s = String::from_utf8(out).unwrap();
                    s.replace('\n', &format!("\n{}", "  ".repeat(level)))
                };
                let names: Vec<String> = (0..len).map(|i| format!("n\"{i}\n")).collect();
                let mut got = Vec::new();
                // Two roots: the tree of 0, and a lone node 0 (ids offset
                // by `len` so that it has no children).
                write_tree_array(
                    &mut got,
                    level,
                    vec![0, len],
                    "kids",
                    |i| Own {
                        name: &names[i % len],
                        n: i % len,
                    },
                    |i| if i < len { kids(i, len) } else { Vec::new() },
                )
                .unwrap();
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    expected,
                    "len {len} level {level}"
                );
            }
        }
    }

    #[test]
    fn a_chain_thirty_thousand_deep_is_written_in_linear_size() {
        let len = 30_000;
        let mut out = Vec::new();
        write_tree_array(
            &mut out,
            0,
            vec![0usize],
            "children",
            |i| Own { name: "x", n: i },
            |i| if i + 1 < len { vec![i + 1] } else { Vec::new() },
        )
        .unwrap();
        // Six lines a node, none longer than the deepest indent and a field.
        assert!(out.len() < len * 6 * (2 * MAX_INDENT_LEVEL + 20));
        // Balanced (names hold no brackets), and the deepest leaf is there.
        let count = |c: u8| out.iter().filter(|&&b| b == c).count();
        assert_eq!((count(b'{'), count(b'[')), (len, len + 1));
        assert_eq!((count(b'}'), count(b']')), (len, len + 1));
        let tail = format!("\"n\": {}", len - 1);
        assert!(out.windows(tail.len()).any(|w| w == tail.as_bytes()));
    }
}
