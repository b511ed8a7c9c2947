//! The Python exceptions and the glue that turns library results into
//! Python ones: errors by kind of failure, panics as `profparse.Error`,
//! warnings as the CLI's texts.

use arrow_schema::ArrowError;
use profparse::Warning;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    profparse,
    Error,
    PyException,
    "Base class of every error profparse raises: the library's message (the file and the line or byte offset)."
);
create_exception!(
    profparse,
    ReadError,
    Error,
    "A file or directory that could not be opened or read (it is missing, or permission was denied)."
);
create_exception!(
    profparse,
    FormatError,
    Error,
    "An input that is not of a kind profparse reads, or is damaged past reading."
);
create_exception!(
    profparse,
    NotFoundError,
    Error,
    "A process, region, part of a database or item the input does not have."
);

/// The Python exception for a library error: its class by kind of failure,
/// its message the library's (as the CLI prints it).
pub(crate) fn to_py(e: profparse::Error) -> PyErr {
    let message = e.to_string();
    match e {
        profparse::Error::Io { .. } => ReadError::new_err(message),
        profparse::Error::NotFound(_) | profparse::Error::MissingPart { .. } => {
            NotFoundError::new_err(message)
        }
        _ => FormatError::new_err(message),
    }
}

pub(crate) fn arrow_err(e: ArrowError) -> PyErr {
    Error::new_err(format!("building an Arrow table: {e}"))
}

/// Runs `f` without the GIL. A panic (a bug: bad input is an error, never a
/// panic) comes back as `profparse.Error`, not as pyo3's `PanicException`.
pub(crate) fn detached<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> profparse::Result<T> + Send,
) -> PyResult<T> {
    py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)))
        .map_err(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Error::new_err(format!(
                "internal error (a bug in profparse: please report it): {what}"
            ))
        })?
        .map_err(to_py)
}

/// The warnings as the CLI prints them (`location: message`).
pub(crate) fn texts(warnings: &[Warning]) -> Vec<String> {
    warnings.iter().map(ToString::to_string).collect()
}
