//! Timer-tree renderers (docs/TIMER_TREE.md): the file forms ([`json`],
//! [`xml`]; their readers are in `formats::timertree`), Truchas' summary
//! ([`truchas`]), the inclusive/exclusive [`table`], and the table and JSON
//! of several trees merged by path ([`merge`], from
//! `analysis::timertree_merge`). The reference write layout is the API's
//! own: `timer_tree::write`.

pub mod json;
pub mod merge;
pub mod table;
pub mod truchas;
pub mod xml;
