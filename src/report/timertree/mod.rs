//! Timer-tree renderers (docs/TIMER_TREE.md): the file forms ([`json`],
//! [`xml`]; their readers are in `formats::timertree`), Truchas' summary
//! ([`truchas`]), the inclusive/exclusive [`table`], and the table and JSON
//! of several trees merged by path ([`merge`], from
//! `analysis::timertree_merge`), and the Fortran reference's write layout
//! ([`reference`], which the instrumentation API writes too). [`tree`] is
//! one tree as a `Report` in all of these.

pub mod json;
pub mod merge;
pub mod reference;
pub mod table;
pub mod tree;
pub mod truchas;
pub mod xml;
