//! Timer trees (placeholder: being built for issue 6).
