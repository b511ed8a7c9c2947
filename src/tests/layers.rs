//! The layer rule of docs/ARCHITECTURE.md, checked on the sources: no
//! module names a layer to its right (model → formats → analysis → report →
//! export → cli). Comments may point anywhere; code may not.

use std::path::Path;

/// Each layer and the layers it must not name.
const RULES: &[(&str, &[&str])] = &[
    ("model", &["formats", "analysis", "report", "export", "cli"]),
    ("formats", &["analysis", "report", "export", "cli"]),
    ("analysis", &["report", "export", "cli"]),
    ("report", &["export", "cli"]),
    ("export", &["cli"]),
];

/// `(file, line)` of every code line under `dir` that names `crate::<layer>`.
fn uses(dir: &Path, layer: &str, found: &mut Vec<String>) {
    let needle = format!("crate::{layer}::");
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            uses(&path, layer, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if !code.starts_with("//") && code.contains(&needle) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, code));
                }
            }
        }
    }
}

#[test]
fn no_layer_names_a_layer_to_its_right() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (layer, forbidden) in RULES {
        for right in *forbidden {
            uses(&src.join(layer), right, &mut found);
        }
    }
    assert!(found.is_empty(), "upward imports:\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_an_upward_import() {
    // The same walk over a layer that does name the one to its right.
    let mut found = Vec::new();
    uses(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli"),
        "report",
        &mut found,
    );
    assert!(!found.is_empty());
}
