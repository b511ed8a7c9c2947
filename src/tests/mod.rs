//! Tests that reach across the layers: fixture inputs through the readers
//! into the analyses, checked with the crate's internals (the command line
//! and the public API are tested in tests/it/).

use std::path::{Path, PathBuf};

include!("../../tests/it/fixture_macros.rs");

mod analyses;
mod fuzz_regressions;
mod layers;
mod progress;

/// `fixtures/blprof/NAME/bl_prof`: a fixture database.
fn db(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/blprof")
        .join(name)
        .join("bl_prof")
}

/// `fixtures/tlog/REL`: a fixture trace.
fn tlog(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/tlog")
        .join(rel)
}
