//! SVG pictures (self-contained, no scripts), one module per kind of
//! picture: the comm [`matrix`], the [`timeline`]s, the scaling chart of
//! `compare` ([`scaling`]), the load [`imbalance`] bars; their time
//! [`axis`] and [`colour`]s are shared.

pub mod axis;
pub mod colour;
pub mod imbalance;
pub mod matrix;
pub mod scaling;
pub mod timeline;
