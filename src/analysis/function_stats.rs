//! Per-function statistics across processes.
