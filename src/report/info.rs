//! `info` as a [`Report`]: what a database holds, part by part.

use crate::analysis::info::DatabaseInfo;
use crate::error::Warning;
use crate::report::Report;
use crate::report::document::Document;
use crate::report::render::json::InfoJson;
use crate::report::render::table::info_document;

pub struct InfoReport<'a> {
    pub info: &'a DatabaseInfo,
    /// Listed in the JSON.
    pub warnings: &'a [Warning],
}

impl Report for InfoReport<'_> {
    type Wire<'w>
        = InfoJson<'w>
    where
        Self: 'w;

    fn wire(&self) -> InfoJson<'_> {
        InfoJson {
            info: self.info,
            warnings: self.warnings.iter().map(|w| w.to_string()).collect(),
        }
    }

    fn document(&self) -> Document<'_> {
        info_document(self.info)
    }
}
