//! Tables on their way to Python: a record batch behind the Arrow C stream
//! interface (`__arrow_c_stream__`), which `pyarrow.table()`, polars or
//! DuckDB take without copying through Python objects.

use std::sync::{Arc, Mutex};

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchIterator};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::errors::Error;

/// One table on its way to Python: a record batch that `__arrow_c_stream__`
/// exports once.
#[pyclass(module = "profparse._profparse", frozen)]
pub(crate) struct ArrowStream {
    batch: Mutex<Option<RecordBatch>>,
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
        let batch = self
            .batch
            .lock()
            .map_err(|_| Error::new_err("the table's lock was poisoned"))?
            .take()
            .ok_or_else(|| Error::new_err("this Arrow stream was already consumed"))?;
        let schema = batch.schema();
        let reader = RecordBatchIterator::new([Ok(batch)], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // The capsule owns the stream: its destructor drops (releases) it
        // unless the consumer moved it out, which leaves it released.
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

pub(crate) fn stream(batch: RecordBatch) -> ArrowStream {
    ArrowStream {
        batch: Mutex::new(Some(batch)),
    }
}

pub(crate) fn batch(
    columns: Vec<(&str, DataType, bool, ArrayRef)>,
) -> Result<RecordBatch, ArrowError> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, t, null, _)| Field::new(*n, t.clone(), *null))
        .collect();
    let arrays = columns.into_iter().map(|c| c.3).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

/// A table or a library error, built without the GIL.
pub(crate) type Built = profparse::Result<(Result<RecordBatch, ArrowError>, Vec<String>)>;
