//! `info` as a [`Report`]: what a database holds, part by part.

use super::Report;
use super::document::Document;
use super::json::InfoJson;
use super::table::info_document;
use crate::analysis::info::DatabaseInfo;
use crate::error::Warning;

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
