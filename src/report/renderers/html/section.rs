//! The database report's sections: their order and headings, and the frame
//! each is written in — its body, or the reason it is absent.

use std::io::{self, Write};

use crate::analysis::overview::{Absent, Section};
use crate::report::renderers::html::escape::markup as escape;

/// The sections, in page order: (id, heading).
pub const SECTIONS: [(&str, &str); 6] = [
    ("summary", "Function summary"),
    ("calltree", "Call trees"),
    ("regions", "Regions"),
    ("timeline", "Timelines"),
    ("comm-matrix", "Communication matrix"),
    ("imbalance", "Load imbalance"),
];

/// `<section>` with its heading, then the body or the reason it is absent.
pub(crate) fn section<T>(
    w: &mut dyn Write,
    i: usize,
    data: &Section<T>,
    body: impl FnOnce(&mut dyn Write, &T) -> io::Result<()>,
) -> io::Result<()> {
    let (id, title) = SECTIONS[i];
    writeln!(w, "<section id=\"{id}\">\n<h2>{title}</h2>")?;
    match data {
        Ok(d) => body(w, d)?,
        Err(a) => absent(w, a)?,
    }
    writeln!(w, "</section>")
}

pub(crate) fn absent(w: &mut dyn Write, a: &Absent) -> io::Result<()> {
    writeln!(w, "<p class=\"absent\">{}</p>", escape(&a.0))
}
