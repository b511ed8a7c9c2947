//! Renderers: one module per output format, all writing to `impl Write`.

pub mod numfmt;
