//! The JSON renderer: pretty JSON of a report's wire value, the texts of
//! its warnings and notes, and JSON errors as I/O errors. The wire types
//! themselves (the documented machine contract, docs/JSON.md, kept apart
//! from the models) live beside their reports.

use std::io::{self, Write};

use serde::Serialize;

use crate::error::Warning;

/// The texts of the warnings about damage, for a report's `warnings`.
pub fn warning_texts(warnings: &[Warning]) -> Vec<String> {
    warnings
        .iter()
        .filter(|w| !w.is_note())
        .map(ToString::to_string)
        .collect()
}

/// The texts of the notes (known quirks of healthy data), for a report's
/// `notes` (left out when there are none).
pub fn note_texts(warnings: &[Warning]) -> Vec<String> {
    warnings
        .iter()
        .filter(|w| w.is_note())
        .map(ToString::to_string)
        .collect()
}

/// Pretty JSON followed by a newline.
pub fn write_pretty(w: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value).map_err(io_error)?;
    writeln!(w)
}

/// A JSON writer's error as an I/O error that keeps its kind (a closed pipe
/// must stay `BrokenPipe`, which is not an error for us).
pub fn io_error(e: serde_json::Error) -> io::Error {
    match e.io_error_kind() {
        Some(kind) => io::Error::new(kind, e),
        None => io::Error::other(e),
    }
}
