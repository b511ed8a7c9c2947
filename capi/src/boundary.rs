//! What every exported function shares: status codes, the calling thread's
//! last error message, catching panics, and reading C arguments.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void};
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};

use profparse::timer_tree::{SerialError, TimerError};

/// Success.
pub const PP_TIMER_OK: c_int = 0;
/// `stop` named a timer that is not the innermost running one; the tree is
/// unchanged. (-1, as the Fortran reference's `stat`.)
pub const PP_TIMER_MISNEST: c_int = -1;
/// A handle that names no timer of the tree.
pub const PP_TIMER_BAD_HANDLE: c_int = -2;
/// Writing or serializing a tree that has no timers.
pub const PP_TIMER_EMPTY: c_int = -3;
/// Serialized arrays that do not describe a timer tree; the tree is unchanged.
pub const PP_TIMER_INVALID_SERIAL: c_int = -4;
/// A NULL pointer where one is needed, a negative indent or length, an
/// unknown name rule.
pub const PP_TIMER_INVALID_ARGUMENT: c_int = -5;
/// A caller-provided buffer is too small; the sizes needed were stored.
pub const PP_TIMER_BUFFER_TOO_SMALL: c_int = -6;
/// A bug in the library (a caught panic) or no memory.
pub const PP_TIMER_INTERNAL: c_int = -7;

/// A failed call: its status and message.
pub(crate) struct Failure {
    pub(crate) status: c_int,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: c_int, message: impl Display) -> Self {
        Failure {
            status,
            message: message.to_string(),
        }
    }

    pub(crate) fn argument(message: impl Display) -> Self {
        Failure::new(PP_TIMER_INVALID_ARGUMENT, message)
    }
}

impl From<TimerError> for Failure {
    fn from(e: TimerError) -> Self {
        let status = match e {
            TimerError::Misnest { .. } => PP_TIMER_MISNEST,
            TimerError::BadHandle { .. } => PP_TIMER_BAD_HANDLE,
            TimerError::Empty => PP_TIMER_EMPTY,
            TimerError::Io(_) => PP_TIMER_INTERNAL,
        };
        Failure::new(status, e)
    }
}

impl From<SerialError> for Failure {
    fn from(e: SerialError) -> Self {
        Failure::new(PP_TIMER_INVALID_SERIAL, e)
    }
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs the body of an exported function: a status for C, the message kept
/// for this thread on failure, and no panic across the boundary.
pub(crate) fn status_of(body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| {
        Err(Failure::new(
            PP_TIMER_INTERNAL,
            "internal error in the timer-tree library (a panic was caught)",
        ))
    });
    match outcome {
        Ok(()) => PP_TIMER_OK,
        Err(failure) => {
            LAST_ERROR.with_borrow_mut(|m| m.clone_from(&failure.message));
            failure.status
        }
    }
}

/// Copies the message of this thread's last failed call into `buf` (at most
/// `cap - 1` bytes and a NUL; nothing when `buf` is NULL or `cap` is 0) and
/// returns its whole length in bytes, without the NUL. Successful calls
/// leave it as it is.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_last_error(buf: *mut c_char, cap: usize) -> usize {
    LAST_ERROR.with_borrow(|message| {
        if !buf.is_null() && cap > 0 {
            let n = message.len().min(cap - 1);
            // SAFETY: the caller gives `cap` writable bytes at `buf`.
            unsafe {
                std::ptr::copy_nonoverlapping(message.as_ptr(), buf.cast::<u8>(), n);
                *buf.add(n) = 0;
            }
        }
        message.len()
    })
}

unsafe extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

/// Frees a string returned by `pp_timer_write` (any pointer this library
/// allocated for the caller, except a `pp_timer_serialized`, which has its
/// own free). NULL is allowed. It is C's `free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_free(ptr: *mut c_void) {
    // SAFETY: `ptr` came from `malloc` below, or is NULL.
    unsafe { free(ptr) }
}

/// A C-heap copy of `items`, freed with `free` by the caller.
pub(crate) fn malloc_copy<T: Copy>(items: &[T]) -> Result<*mut T, Failure> {
    // At least one byte, so that an empty array is not confused with failure.
    let bytes = std::mem::size_of_val(items).max(1);
    // SAFETY: plain allocation; checked for NULL below.
    let ptr = unsafe { malloc(bytes) }.cast::<T>();
    if ptr.is_null() {
        return Err(Failure::new(PP_TIMER_INTERNAL, "out of memory"));
    }
    // SAFETY: `ptr` has room for `items.len()` values of T (malloc aligns
    // for any fundamental type).
    unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), ptr, items.len()) };
    Ok(ptr)
}

/// Frees what `malloc_copy` returned (NULL allowed).
pub(crate) unsafe fn free_copy<T>(ptr: *mut T) {
    // SAFETY: see `malloc_copy`.
    unsafe { free(ptr.cast()) }
}

/// `len` bytes at `ptr` as a name (NULL is allowed when `len` is 0).
pub(crate) unsafe fn name_arg(ptr: *const c_char, len: usize) -> Result<String, Failure> {
    // SAFETY: the caller gives `len` readable bytes at `ptr`.
    let bytes = unsafe { bytes_arg(ptr.cast::<u8>(), len, "name") }?;
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// `len` readable values at `ptr`; NULL only when `len` is 0.
pub(crate) unsafe fn bytes_arg<'a, T>(
    ptr: *const T,
    len: usize,
    what: &str,
) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::argument(format!(
            "{what} is NULL but its length is {len}"
        )));
    }
    // SAFETY: the caller gives `len` readable values at `ptr`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Stores `value` through `out` unless it is NULL.
pub(crate) unsafe fn store<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: the caller gives a writable T at `out`.
        unsafe { out.write(value) };
    }
}
