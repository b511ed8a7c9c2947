//! Tables on their way to Python: record batches behind the Arrow C stream
//! interface (`__arrow_c_stream__`), which `pyarrow.table()`, polars or
//! DuckDB take without copying through Python objects.

use std::sync::{Arc, Mutex};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchIterator};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::errors::Error;

/// A table: its schema and its record batches (none, one, or one per run
/// of processes), which Python sees as one table of several chunks.
pub(crate) struct Table {
    pub(crate) schema: SchemaRef,
    pub(crate) batches: Vec<RecordBatch>,
}

impl From<RecordBatch> for Table {
    fn from(batch: RecordBatch) -> Self {
        Table {
            schema: batch.schema(),
            batches: vec![batch],
        }
    }
}

/// One table on its way to Python: what `__arrow_c_stream__` exports once.
#[pyclass(module = "profparse._profparse", frozen)]
pub(crate) struct ArrowStream {
    table: Mutex<Option<Table>>,
}

#[pymethods]
impl ArrowStream {
    /// The Arrow PyCapsule interface: the table as an `ArrowArrayStream`.
    /// A requested schema is ignored (the columns are already of the types
    /// that the schema states).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let table = self
            .table
            .lock()
            .map_err(|_| Error::new_err("the table's lock was poisoned"))?
            .take()
            .ok_or_else(|| Error::new_err("this Arrow stream was already consumed"))?;
        let reader = RecordBatchIterator::new(table.batches.into_iter().map(Ok), table.schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // The capsule owns the stream: its destructor drops (releases) it
        // unless the consumer moved it out, which leaves it released.
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

pub(crate) fn stream(table: Table) -> ArrowStream {
    ArrowStream {
        table: Mutex::new(Some(table)),
    }
}

pub(crate) fn batch(columns: Vec<(&str, DataType, bool, ArrayRef)>) -> Result<Table, ArrowError> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, t, null, _)| Field::new(*n, t.clone(), *null))
        .collect();
    let arrays = columns.into_iter().map(|c| c.3).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map(Table::from)
}

/// A table or a library error, built without the GIL.
pub(crate) type Built = profparse::Result<(Result<Table, ArrowError>, Vec<String>)>;
