//! Turning analysis results into bytes. `report/` holds:
//!
//! * the seam: the [`Report`] trait (a report's text [`Document`], its
//!   JSON wire value, its CSV [`Table`]), the [`Format`]s, and
//!   [`render`](fn@render), which writes a report in one format through
//!   that format's renderer;
//! * [`render`](mod@render): the renderers, one per output format
//!   (`text`, `table`, `json`, `csv`, `html/`, `svg/`), all writing to
//!   `impl Write`;
//! * report values beside the analyses they render, one module each, named
//!   after `analysis/<name>.rs` (`comm_stats`, `comm_sync`, `function_stats`,
//!   `regions`, …); `calltree/` is the tree view and one writer per format;
//! * shared helpers: [`document`] (the value reports build and renderers
//!   read), [`layout`] (fitting to a width, call paths, lists of names),
//!   [`escape`] (names made safe for each medium), [`numfmt`] (all number
//!   formatting);
//! * writers that stream a whole input in order ([`calltrace`],
//!   [`tlog_dump`], the exporters `chrome`, `parquet`, `tau`), for outputs
//!   too big to build as a value.
//!
//! Imports run one way, with no circle: report values use the renderers and
//! the helpers; renderers use the helpers and [`document`] (and the HTML
//! page the call tree's [`view`](calltree::view), which imports no
//! renderer); the helpers use neither.

pub mod calltrace;
pub mod calltree;
pub mod check;
pub mod comm_check;
pub mod comm_clocks;
pub mod comm_pairs;
pub mod comm_stats;
pub mod comm_sync;
pub mod comm_time;
pub mod comm_waits;
pub mod diff;
pub mod document;
pub mod escape;
pub mod function_stats;
pub mod info;
pub mod layout;
pub mod numfmt;
pub mod regions;
pub mod history;
pub mod regress;
pub mod renderers;
pub mod timertree;
pub mod tinyprofiler;
pub mod tlog_dump;
pub mod tlog_summary;

use std::io;

pub use document::{Column, Document, Table};
use renderers::{csv, json, text};

/// Every output format a report can be written in. Each command offers
/// some of them (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Aligned tables for people.
    Table,
    /// Text for people (trees, layouts that are not tables).
    Text,
    /// One JSON object (docs/JSON.md).
    Json,
    /// Rows of comma-separated values, full precision.
    Csv,
    /// The reference tool's own text layout (amrprofparser's; the Fortran
    /// timer tree's write).
    Reference,
    /// Folded stacks for flame graph tools.
    Folded,
    /// One self-contained HTML page.
    Html,
    /// Hatchet's literal JSON.
    Hatchet,
    /// Truchas' "TIMING SUMMARY" of a timer tree.
    Truchas,
    /// The nested XML file form of a timer tree.
    Xml,
    /// A Markdown comment for a pull request.
    Markdown,
    /// JUnit XML for CI dashboards.
    Junit,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 12] = [
        Format::Table,
        Format::Text,
        Format::Json,
        Format::Csv,
        Format::Reference,
        Format::Folded,
        Format::Html,
        Format::Hatchet,
        Format::Truchas,
        Format::Xml,
        Format::Markdown,
        Format::Junit,
    ];

    /// The name on the command line (`--format NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Text => "text",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Reference => "reference",
            Format::Folded => "folded",
            Format::Html => "html",
            Format::Hatchet => "hatchet",
            Format::Truchas => "truchas",
            Format::Xml => "xml",
            Format::Markdown => "markdown",
            Format::Junit => "junit",
        }
    }

    /// The format named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// A finished report: what an analysis found, in the views the output
/// formats need. The views borrow the report; rows are made as they are
/// written.
pub trait Report {
    /// The JSON wire value (docs/JSON.md): the contract, kept apart from
    /// the text layout.
    type Wire<'a>: serde::Serialize
    where
        Self: 'a;

    /// The report's JSON value.
    fn wire(&self) -> Self::Wire<'_>;

    /// Writes the wire value as pretty JSON. Reports whose wire value nests
    /// as deep as their input (call trees) write the same bytes without
    /// recursion instead (`json_tree`).
    fn write_json(&self, w: &mut dyn io::Write) -> io::Result<()> {
        json::write_pretty(w, &self.wire())
    }

    /// Lines and tables for people (`table`/`text`).
    fn document(&self) -> Document<'_>;

    /// One table of full-precision values (`csv`), for reports that offer it.
    fn csv(&self) -> Option<Table<'_>> {
        None
    }

    /// The formats that belong to this report alone (amrprofparser's
    /// `reference` layout of a summary, say): written by the report itself.
    fn write_other(&self, format: Format, _w: &mut dyn io::Write) -> io::Result<()> {
        Err(not_offered(format))
    }
}

/// Writes `report` in `format`, its tables for people within `width`
/// characters (`None`: no limit). A format the report does not offer is an
/// `InvalidInput` error (commands only offer what their reports have).
pub fn render(
    report: &impl Report,
    format: Format,
    width: Option<usize>,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    match format {
        Format::Table | Format::Text => text::write_document(w, report.document(), width),
        Format::Json => report.write_json(w),
        Format::Csv => match report.csv() {
            Some(table) => csv::write_table(w, table),
            None => Err(not_offered(format)),
        },
        // Layouts of plain text: names from the data carry no raw control
        // characters (see `escape`).
        Format::Reference | Format::Folded | Format::Truchas | Format::Markdown => {
            report.write_other(format, &mut escape::VisibleWriter { inner: w })
        }
        // HTML and XML escape names their own way; Hatchet is JSON.
        Format::Html | Format::Hatchet | Format::Xml | Format::Junit => {
            report.write_other(format, w)
        }
    }
}

pub(crate) fn not_offered(format: Format) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("this report has no {} format", format.name()),
    )
}

/// Creates the output directory `dir` (and its parents); an existing file
/// that is not a directory is refused by name (`create_dir_all` would only
/// say "File exists").
pub(crate) fn create_output_dir(dir: &std::path::Path) -> crate::error::Result<()> {
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return Err(crate::error::Error::io(
            dir,
            std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "exists and is not a directory: choose a directory for the output",
            ),
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| crate::error::Error::io(dir, e))
}
