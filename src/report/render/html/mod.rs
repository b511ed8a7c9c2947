//! HTML pages: the database report ([`page`]) with its parts ([`tree`],
//! [`timeline`], [`search`]), and the TinyProfiler page ([`tinyprofiler`]).

pub mod page;
pub mod search;
pub mod timeline;
pub mod tinyprofiler;
pub mod tree;
