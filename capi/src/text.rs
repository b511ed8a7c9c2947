//! The reference write layout into a string: library-allocated or into the
//! caller's buffer.

use std::ffi::{c_char, c_int};

use crate::boundary::{Failure, PP_TIMER_BUFFER_TOO_SMALL, malloc_copy, status_of, store};
use crate::target::{Target, handle_arg, pp_timer_tree};

/// The layout as bytes: `indent` blanks per level; `handle` 0 for the whole
/// tree, else that timer's subtree with its root at depth 0.
fn layout(tree: *mut pp_timer_tree, indent: c_int, handle: c_int) -> Result<Vec<u8>, Failure> {
    let indent = usize::try_from(indent)
        .map_err(|_| Failure::argument(format!("indent {indent} is negative")))?;
    let handle = match handle {
        0 => None,
        h => Some(handle_arg(h)?),
    };
    let mut text = Vec::new();
    // SAFETY: the caller's promise on `tree`.
    unsafe { Target::of(tree) }.write(&mut text, indent, handle)?;
    Ok(text)
}

/// Writes the tree as the Fortran reference does (one line per timer in
/// pre-order: `depth × indent` blanks, the name, `:`, the seconds in
/// `ES12.5`, `\n`) into a new NUL-terminated string stored through `text`
/// (free it with `pp_timer_free`), its length without the NUL through `len`
/// (may be NULL). `handle` 0 writes the whole tree; another handle only that
/// timer's subtree, its root unindented. Running timers count up to now and
/// keep running. An empty tree is `PP_TIMER_EMPTY`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_write(
    tree: *mut pp_timer_tree,
    indent: c_int,
    handle: c_int,
    text: *mut *mut c_char,
    len: *mut usize,
) -> c_int {
    status_of(|| {
        if text.is_null() {
            return Err(Failure::argument("text is NULL"));
        }
        let mut bytes = layout(tree, indent, handle)?;
        let n = bytes.len();
        bytes.push(0);
        let copy = malloc_copy(&bytes)?;
        // SAFETY: `text` is non-NULL and writable; `len` NULL or writable.
        unsafe {
            store(text, copy.cast::<c_char>());
            store(len, n);
        }
        Ok(())
    })
}

/// As `pp_timer_write`, into the caller's `cap` bytes at `buf`. The length
/// the text needs (without its NUL) is stored through `len` in every case;
/// when `cap` is less than that plus one, nothing is written and the status
/// is `PP_TIMER_BUFFER_TOO_SMALL` (call with `cap` 0 to learn the size).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_write_into(
    tree: *mut pp_timer_tree,
    indent: c_int,
    handle: c_int,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> c_int {
    status_of(|| {
        let bytes = layout(tree, indent, handle)?;
        // SAFETY: `len` NULL or writable.
        unsafe { store(len, bytes.len()) };
        if cap <= bytes.len() || buf.is_null() {
            return Err(Failure::new(
                PP_TIMER_BUFFER_TOO_SMALL,
                format!(
                    "the text needs {} bytes and its NUL; the buffer has {cap}",
                    bytes.len()
                ),
            ));
        }
        // SAFETY: `buf` has `cap` > bytes.len() writable bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), bytes.len());
            *buf.add(bytes.len()) = 0;
        }
        Ok(())
    })
}
