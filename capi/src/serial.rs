//! The serialized arrays (tree, names, times) in and out: the reference's
//! interchange form, as Fortran holds it (names blank-padded to one length).

use std::ffi::{c_char, c_int};

use profparse::timer_tree::Serialized;

use crate::boundary::{
    Failure, PP_TIMER_BUFFER_TOO_SMALL, bytes_arg, free_copy, malloc_copy, status_of, store,
};
use crate::target::{Target, pp_timer_tree};

/// A serialized timer tree; all arrays allocated by the library, freed with
/// `pp_timer_serialized_free`.
#[repr(C)]
pub struct pp_timer_serialized {
    /// Number of timers, n.
    pub count: usize,
    /// 2n node numbers: each of 1..n twice (open, close), nested like
    /// parentheses, the opens in the order 1, 2, …, n (pre-order).
    pub tree: *mut c_int,
    /// Bytes per name: the longest name.
    pub name_len: usize,
    /// n names of `name_len` bytes each, blank-padded, no NUL.
    pub names: *mut c_char,
    /// n seconds; `time[k-1]` belongs to node k.
    pub time: *mut f64,
}

/// The snapshot's arrays, laid out for C.
struct Flat {
    tree: Vec<c_int>,
    name_len: usize,
    names: Vec<String>,
    time: Vec<f64>,
}

fn flatten(tree: *mut pp_timer_tree) -> Result<Flat, Failure> {
    // SAFETY: the caller's promise on `tree`.
    let s = unsafe { Target::of(tree) }.serialize()?;
    let tree = s
        .tree
        .iter()
        .map(|&n| c_int::try_from(n))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| {
            Failure::new(
                crate::PP_TIMER_INTERNAL,
                "more timers than a C int can number",
            )
        })?;
    Ok(Flat {
        tree,
        name_len: s.name.iter().map(String::len).max().unwrap_or(0),
        names: s.name,
        time: s.time,
    })
}

/// Writes the names blank-padded to `stride` bytes each.
fn padded(names: &[String], stride: usize) -> Vec<u8> {
    let mut out = vec![b' '; names.len() * stride];
    for (slot, name) in out.chunks_mut(stride.max(1)).zip(names) {
        slot[..name.len()].copy_from_slice(name.as_bytes());
    }
    out
}

/// Serializes the tree (running timers count up to now and keep running)
/// into arrays the library allocates, stored through `out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_serialize(
    tree: *mut pp_timer_tree,
    out: *mut *mut pp_timer_serialized,
) -> c_int {
    status_of(|| {
        if out.is_null() {
            return Err(Failure::argument("out is NULL"));
        }
        let flat = flatten(tree)?;
        let names = padded(&flat.names, flat.name_len);
        let serialized = Box::new(pp_timer_serialized {
            count: flat.time.len(),
            tree: malloc_copy(&flat.tree)?,
            name_len: flat.name_len,
            names: malloc_copy(&names)?.cast(),
            time: malloc_copy(&flat.time)?,
        });
        // SAFETY: `out` is non-NULL and writable.
        unsafe { store(out, Box::into_raw(serialized)) };
        Ok(())
    })
}

/// Frees what `pp_timer_serialize` returned (NULL allowed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_serialized_free(s: *mut pp_timer_serialized) {
    if s.is_null() {
        return;
    }
    // SAFETY: `s` came from `Box::into_raw` in `pp_timer_serialize`, its
    // arrays from `malloc_copy`; each is freed once.
    unsafe {
        let s = Box::from_raw(s);
        free_copy(s.tree);
        free_copy(s.names);
        free_copy(s.time);
    }
}

/// Serializes into the caller's arrays: `tree` of 2 × `count_cap` ints,
/// `time` of `count_cap` doubles, `names` of `count_cap` slots of
/// `name_stride` bytes (each name blank-padded to the stride, as a Fortran
/// `character(len=name_stride)` array). The number of timers and the longest
/// name are stored through `count` and `name_len` in every case; when they
/// exceed `count_cap` or `name_stride`, nothing else is written and the
/// status is `PP_TIMER_BUFFER_TOO_SMALL` (call with 0 capacities to learn
/// the sizes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_serialize_into(
    tree: *mut pp_timer_tree,
    tree_out: *mut c_int,
    names_out: *mut c_char,
    name_stride: usize,
    time_out: *mut f64,
    count_cap: usize,
    count: *mut usize,
    name_len: *mut usize,
) -> c_int {
    status_of(|| {
        let flat = flatten(tree)?;
        let n = flat.time.len();
        // SAFETY: `count` and `name_len` are NULL or writable.
        unsafe {
            store(count, n);
            store(name_len, flat.name_len);
        }
        if n > count_cap || flat.name_len > name_stride {
            return Err(Failure::new(
                PP_TIMER_BUFFER_TOO_SMALL,
                format!(
                    "the tree needs {n} timers with names of {} bytes; the arrays hold {count_cap} of {name_stride}",
                    flat.name_len
                ),
            ));
        }
        if tree_out.is_null() || time_out.is_null() || (names_out.is_null() && name_stride > 0) {
            return Err(Failure::argument("tree, names or time is NULL"));
        }
        let names = padded(&flat.names, name_stride);
        // SAFETY: the caller gives arrays of the capacities checked above.
        unsafe {
            std::ptr::copy_nonoverlapping(flat.tree.as_ptr(), tree_out, flat.tree.len());
            std::ptr::copy_nonoverlapping(names.as_ptr(), names_out.cast::<u8>(), names.len());
            std::ptr::copy_nonoverlapping(flat.time.as_ptr(), time_out, n);
        }
        Ok(())
    })
}

/// Replaces the whole tree by serialized arrays: `tree` of `tree_len`
/// ints, `count` names of `name_stride` bytes each (trailing blanks are
/// removed, as the reference does), `count` seconds. Everything is checked
/// first (counts, ranges, order, nesting, sibling names); on error the tree
/// is unchanged and the message names the array index. Afterwards handle k
/// is node k and nothing runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pp_timer_deserialize(
    tree: *mut pp_timer_tree,
    tree_in: *const c_int,
    tree_len: usize,
    names: *const c_char,
    name_stride: usize,
    time: *const f64,
    count: usize,
) -> c_int {
    status_of(|| {
        let name_bytes = count
            .checked_mul(name_stride)
            .ok_or_else(|| Failure::argument("count × name_stride overflows"))?;
        // SAFETY: the caller gives arrays of these lengths.
        let (tree_in, names, time) = unsafe {
            (
                bytes_arg(tree_in, tree_len, "tree")?,
                bytes_arg(names.cast::<u8>(), name_bytes, "names")?,
                bytes_arg(time, count, "time")?,
            )
        };
        let name = if name_stride == 0 {
            vec![String::new(); count]
        } else {
            names
                .chunks(name_stride)
                .map(|n| String::from_utf8_lossy(n).trim_end_matches(' ').to_owned())
                .collect()
        };
        let s = Serialized {
            tree: tree_in.iter().map(|&n| i64::from(n)).collect(),
            name,
            time: time.to_vec(),
        };
        // SAFETY: the caller's promise on `tree`.
        unsafe { Target::of(tree) }.deserialize(&s)?;
        Ok(())
    })
}
