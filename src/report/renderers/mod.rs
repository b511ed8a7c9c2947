//! Renderers: one module per output format, each writing to `impl Write`.
//! The text and CSV renderers write a report's [`Document`](super::Document)
//! or [`Table`](super::Table); JSON writes its wire value; the HTML pages and
//! the SVG pictures are written from the analyses' results directly.

pub mod csv;
pub mod html;
pub mod json;
pub mod svg;
pub mod table;
pub mod text;
