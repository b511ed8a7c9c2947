//! Serialized timer-tree files (docs/TIMER_TREE.md): which form a file is
//! in, and reading it into a validated tree. Readers only: the writers of
//! these forms are in `report::timertree`.
//!
//! The form is chosen by extension (`.json`, `.xml`); any other name is
//! sniffed from the first non-blank byte: `{` is JSON, `<` is XML.

pub mod json;
pub mod xml;

use std::path::Path;

use crate::error::{Error, Location, Result, Warning};
use crate::model::calltree::{CallTree, NodeId};
use crate::model::timertree::{Serialized, Timing};
use crate::source::InputFile;

use json::read_json;
use xml::read_xml;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileForm {
    Json,
    Xml,
}

impl FileForm {
    /// The form of `bytes` named `path`, or an error when neither the
    /// extension nor the content tells.
    pub fn detect(path: &Path, bytes: &[u8]) -> Result<Self> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let page = || {
            Err(Error::wrong_kind(
                Location::file(path),
                "an HTML page or SVG picture, not a serialized timer tree",
            ))
        };
        match ext.as_deref() {
            Some("json") => return Ok(FileForm::Json),
            Some("xml") => return Ok(FileForm::Xml),
            // What `report`, `history --html` and the `--svg` options write
            // often lands beside the runs (a directory `history` reads).
            Some("html" | "htm" | "svg") => return page(),
            _ => {}
        }
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let text = text.trim_ascii_start();
        // `tag` whole: `<svgtree>` is an XML timer tree's root.
        let starts = |tag: &[u8]| {
            text.get(..tag.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(tag))
                && text
                    .get(tag.len())
                    .is_none_or(|&b| b.is_ascii_whitespace() || b == b'>' || b == b'/')
        };
        if starts(b"<!doctype html") || starts(b"<html") || starts(b"<svg") {
            return page();
        }
        match text.first() {
            Some(b'{') => Ok(FileForm::Json),
            Some(b'<') => Ok(FileForm::Xml),
            _ => Err(Error::wrong_kind(
                Location::file(path),
                "not a serialized timer tree: expected JSON ('{') or XML ('<')",
            )),
        }
    }
}

/// Parses `bytes` (named `path` in errors) into serialized arrays, not yet
/// validated.
pub fn parse_serialized(bytes: &[u8], path: &Path) -> Result<Serialized> {
    let bytes_no_bom = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match FileForm::detect(path, bytes)? {
        FileForm::Json => read_json(bytes_no_bom, path),
        FileForm::Xml => read_xml(bytes_no_bom, path),
    }
}

/// Validates serialized arrays into a tree (node id k = serialized node k).
pub fn to_tree(s: &Serialized, path: &Path) -> Result<CallTree<Timing>> {
    s.to_call_tree().map_err(|e| {
        Error::syntax(
            Location::file(path),
            format!("invalid serialized timer tree: {e}"),
        )
    })
}

/// Opens, parses and validates one timer-tree file.
pub fn read_timer_tree_file(path: &Path) -> Result<CallTree<Timing>> {
    let input = InputFile::open(path)?;
    to_tree(&parse_serialized(input.bytes(), path)?, path)
}

/// Times that no real measurement gives: negative (below zero; -0.0 is
/// zero) or not finite. The file is still usable, so these are warnings.
pub fn suspicious_times(tree: &CallTree<Timing>, path: &Path) -> Vec<Warning> {
    let what = |id: NodeId| {
        let t = tree.node(id).metrics.seconds;
        if t.is_nan() {
            Some("is NaN")
        } else if t.is_infinite() {
            Some("is infinite")
        } else if t < 0.0 {
            Some("is negative")
        } else {
            None
        }
    };
    let odd = tree
        .preorder()
        .into_iter()
        .filter_map(|(id, _)| what(id).map(|w| (id, w)));
    Warning::listed(
        odd,
        |(id, what)| {
            let message = format!(
                "time of timer {} ({}) {what}",
                id.0,
                tree.short_path(id, "/")
            );
            Warning::new(Location::file(path), message)
        },
        |more| {
            Warning::new(
                Location::file(path),
                format!("{more} more timers whose time is negative, NaN or infinite"),
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_wins_then_content() {
        let p = Path::new;
        assert_eq!(
            FileForm::detect(p("a.JSON"), b"<x").unwrap(),
            FileForm::Json
        );
        assert_eq!(FileForm::detect(p("a.xml"), b"{").unwrap(), FileForm::Xml);
        assert_eq!(
            FileForm::detect(p("a.txt"), b" \n{").unwrap(),
            FileForm::Json
        );
        assert_eq!(
            FileForm::detect(p("a"), b"\xEF\xBB\xBF <T").unwrap(),
            FileForm::Xml
        );
        let e = FileForm::detect(p("a.txt"), b"tree: 1 1").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a.txt: not a serialized timer tree"),
            "{e}"
        );
        assert!(FileForm::detect(p("empty"), b"").is_err());
    }

    #[test]
    fn pages_and_pictures_are_no_timer_trees() {
        let p = Path::new;
        for (name, bytes) in [
            ("page.html", &b"<T/>"[..]),
            ("chart.SVG", b"<T/>"),
            ("page", b"\n<!DOCTYPE html><html>"),
            ("page", b"<HTML lang=en>"),
            ("chart", b"  <svg xmlns=\"http://www.w3.org/2000/svg\">"),
        ] {
            let e = FileForm::detect(p(name), bytes).unwrap_err();
            assert!(e.to_string().contains("HTML page or SVG picture"), "{name}: {e}");
        }
        // A timer tree whose root is named like a tag is still one.
        assert_eq!(
            FileForm::detect(p("t"), b"<svgtree/>").unwrap_or(FileForm::Json),
            FileForm::Xml
        );
    }

    #[test]
    fn invalid_arrays_name_the_file() {
        let bytes = br#"{"tree": [1, 2, 1, 2], "name": ["A", "B"], "time": [1, 2]}"#;
        let s = parse_serialized(bytes, Path::new("r0.json")).unwrap();
        let e = to_tree(&s, Path::new("r0.json")).unwrap_err().to_string();
        assert!(
            e.starts_with("r0.json: invalid serialized timer tree: tree[2] closes timer 1"),
            "{e}"
        );
    }

    #[test]
    fn negative_and_special_times_are_warned_about() {
        let bytes =
            br#"{"tree": [1, 2, 2, 3, 3, 1], "name": ["A", "B", "C"], "time": [1, -2.5, "NaN"]}"#;
        let p = Path::new("w.json");
        let tree = to_tree(&parse_serialized(bytes, p).unwrap(), p).unwrap();
        let w: Vec<String> = suspicious_times(&tree, p)
            .iter()
            .map(|w| w.to_string())
            .collect();
        assert_eq!(
            w,
            [
                "w.json: time of timer 2 (A/B) is negative",
                "w.json: time of timer 3 (A/C) is NaN"
            ]
        );
    }
}
