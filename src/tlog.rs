//! tlog trace files (placeholder: being built for issue 5).
