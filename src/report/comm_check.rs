//! `comm check` as a [`Report`]: what was checked in the communication
//! records and the problems found ([`crate::analysis::comm::check`]).

use crate::analysis::comm::check::CommCheck;
use crate::report::Report;
use crate::report::document::Document;

/// `comm check`: what was checked and the problems found.
pub struct CommCheckReport<'a> {
    /// The database as the user named it.
    pub database: String,
    pub check: &'a CommCheck,
}

impl Report for CommCheckReport<'_> {
    type Wire<'w>
        = &'w CommCheck
    where
        Self: 'w;

    fn wire(&self) -> &CommCheck {
        self.check
    }

    fn document(&self) -> Document<'_> {
        let r = self.check;
        let mut doc = Document::new();
        doc.line(format!(
            "{}: checked {} processes, {} blocks, {} records, {} barriers, {} name tags",
            self.database, r.procs, r.blocks, r.records, r.barriers, r.name_tags
        ));
        if r.problems.is_empty() {
            doc.line("clean");
        } else {
            doc.line(format!("{} problem(s):", r.problems.len()));
            for p in &r.problems {
                doc.item(p.to_string());
            }
        }
        doc
    }
}
