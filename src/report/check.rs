//! `check` as a [`Report`]: per part of the database, what was checked and
//! what was found; problems and notes listed after the summary table.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::check::{DatabaseCheck, Section};
use crate::report::Report;
use crate::report::document::{Column, Document, Table};

pub struct CheckReport<'a> {
    /// The database as the user named it.
    pub database: String,
    pub check: &'a DatabaseCheck,
}

/// The JSON of `check`.
#[derive(Serialize)]
pub struct CheckWire<'a> {
    database: &'a str,
    /// No problems (notes allowed).
    clean: bool,
    problems: usize,
    notes: usize,
    sections: Vec<SectionWire<'a>>,
}

#[derive(Serialize)]
struct SectionWire<'a> {
    name: &'a str,
    present: bool,
    checked: BTreeMap<&'a str, u64>,
    problems: Vec<String>,
    notes: Vec<String>,
}

impl<'a> From<&'a Section> for SectionWire<'a> {
    fn from(s: &'a Section) -> Self {
        SectionWire {
            name: s.name,
            present: s.present,
            checked: s.checked.iter().copied().collect(),
            problems: s.problems.iter().map(ToString::to_string).collect(),
            notes: s.notes.iter().map(ToString::to_string).collect(),
        }
    }
}

/// What a section's row says it checked: `8 processes, 8 blocks`.
fn checked_text(s: &Section) -> String {
    if !s.present {
        return "not in this database".into();
    }
    s.checked
        .iter()
        .map(|(what, n)| format!("{n} {what}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn verdict(s: &Section) -> String {
    match (s.present, s.problems.len(), s.notes.len()) {
        (false, _, _) => "-".into(),
        (true, 0, 0) => "clean".into(),
        (true, 0, n) => format!("clean, {n} note(s)"),
        (true, p, 0) => format!("{p} problem(s)"),
        (true, p, n) => format!("{p} problem(s), {n} note(s)"),
    }
}

impl Report for CheckReport<'_> {
    type Wire<'w>
        = CheckWire<'w>
    where
        Self: 'w;

    fn wire(&self) -> CheckWire<'_> {
        CheckWire {
            database: &self.database,
            clean: self.check.problems() == 0,
            problems: self.check.problems(),
            notes: self.check.notes(),
            sections: self.check.sections.iter().map(SectionWire::from).collect(),
        }
    }

    fn document(&self) -> Document<'_> {
        let c = self.check;
        let mut doc = Document::new();
        doc.line(format!("{}: integrity check", self.database))
            .line("")
            .table(Table::new(
                vec![
                    Column::left("Part", 8),
                    Column::left("Result", 24).after("  "),
                    Column::left("Checked", 0).after("  "),
                ],
                c.sections
                    .iter()
                    .map(|s| vec![s.name.to_owned(), verdict(s), checked_text(s)]),
            ));
        for (title, pick) in [
            (
                "Problems",
                (|s: &Section| &s.problems) as fn(&Section) -> &Vec<_>,
            ),
            ("Notes (known quirks of healthy runs)", |s: &Section| {
                &s.notes
            }),
        ] {
            let items: Vec<String> = c
                .sections
                .iter()
                .flat_map(|s| pick(s).iter().map(move |w| format!("{}: {w}", s.name)))
                .collect();
            if !items.is_empty() {
                doc.line("").line(format!("{title}:"));
                for i in items {
                    doc.item(i);
                }
            }
        }
        doc.line("").line(match (c.problems(), c.notes()) {
            (0, 0) => "clean".to_owned(),
            (0, n) => format!("clean ({n} note(s))"),
            (p, _) => format!("{p} problem(s)"),
        });
        doc
    }
}
