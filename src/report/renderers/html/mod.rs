//! HTML pages: the database report ([`page`]) with its parts ([`tree`],
//! [`timeline`], [`search`], [`section`]), and the TinyProfiler page
//! ([`tinyprofiler`]); both carry the same [`style`]. Every name from the
//! data goes through [`escape`].
//!
//! Imports run one way: `page` uses the parts, the parts use `section`,
//! `style` and `escape`, and those three use nothing here.

pub mod escape;
pub mod page;
pub mod search;
pub mod section;
pub mod style;
pub mod timeline;
pub mod tinyprofiler;
pub mod tree;
