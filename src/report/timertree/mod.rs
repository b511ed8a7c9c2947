//! Timer-tree renderers (docs/TIMER_TREE.md): the file forms
//! ([`json`], [`xml`]; their readers are in `formats::timertree`).
//! The reference write layout is the API's own, `timer_tree::write`.

pub mod json;
pub mod xml;
