//! Layout helpers shared by several reports and the text renderer: fitting
//! tables to a width ([`fit`]), call paths in cells ([`call_path`]) and as
//! trees of lines ([`path_tree`]), lists of names ([`names`]).

pub mod call_path;
pub mod fit;
pub mod names;
pub mod path_tree;
pub mod region_filter;
