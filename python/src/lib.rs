//! `profparse._profparse`: the native part of the Python package.
//!
//! It opens an input with the library (never the CLI binary), builds the
//! tables as Arrow arrays in Rust and hands them to Python through the Arrow
//! C stream interface: a `PyCapsule` named `arrow_array_stream` returned by
//! `__arrow_c_stream__`, which `pyarrow.table()` (or polars, DuckDB, ...)
//! takes without copying through Python objects. The Python wrapper
//! (`pysrc/profparse/__init__.py`) turns the streams into `pyarrow.Table`s
//! and the warnings into `warnings.warn` calls.
//!
//! The GIL is released (`Python::detach`) while an input is read and while
//! a table is built.

mod arrow_stream;
mod blprof;
mod blprof_comm;
mod blprof_messages;
mod blprof_mpi_time;
mod blprof_regions;
mod blprof_waits;
mod columns;
mod comm_scope;
mod errors;
mod run;
mod timer_tree;
mod tinyprofiler;
mod tlog;
mod tree_table;

use pyo3::prelude::*;

use arrow_stream::ArrowStream;
use errors::{Error, FormatError, NotFoundError, ReadError};
use run::{NativeRun, open};

#[pymodule]
fn _profparse(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_class::<NativeRun>()?;
    m.add_class::<ArrowStream>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("Error", py.get_type::<Error>())?;
    m.add("ReadError", py.get_type::<ReadError>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    m.add("NotFoundError", py.get_type::<NotFoundError>())?;
    Ok(())
}
