//! A table built column by column from a report's rows: one method per
//! Arrow type, each reading one field of every row, so that a table reads
//! as its list of columns (name, type, field) and the types are chosen in
//! one place (ranks `UInt32`, counts and bytes `UInt64`, seconds `Float64`,
//! the comm profile's numbers `Int32`, as they are in the files).

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Float64Array, Int32Array, StringArray, UInt32Array, UInt64Array};
use arrow_schema::ArrowError;

use crate::arrow_stream::{Table, batch};

/// The columns of one table over the rows `rows`.
pub(crate) struct Columns<'r, T> {
    rows: &'r [T],
    columns: Vec<(&'static str, bool, ArrayRef)>,
}

impl<'r, T> Columns<'r, T> {
    pub(crate) fn over(rows: &'r [T]) -> Self {
        Columns {
            rows,
            columns: Vec::new(),
        }
    }

    fn add(mut self, name: &'static str, nullable: bool, array: ArrayRef) -> Self {
        self.columns.push((name, nullable, array));
        self
    }

    /// A process number (rank).
    pub(crate) fn rank(self, name: &'static str, f: impl Fn(&T) -> usize) -> Self {
        let a = UInt32Array::from_iter_values(self.rows.iter().map(|r| f(r) as u32));
        self.add(name, false, Arc::new(a))
    }

    /// A process number, or null.
    pub(crate) fn opt_rank(self, name: &'static str, f: impl Fn(&T) -> Option<usize>) -> Self {
        let a: UInt32Array = self.rows.iter().map(|r| f(r).map(|p| p as u32)).collect();
        self.add(name, true, Arc::new(a))
    }

    /// A count or a number of bytes.
    pub(crate) fn count(self, name: &'static str, f: impl Fn(&T) -> u64) -> Self {
        let a = UInt64Array::from_iter_values(self.rows.iter().map(f));
        self.add(name, false, Arc::new(a))
    }

    /// A number as the comm profile stores it (MPI type, tag, peer, size).
    pub(crate) fn int(self, name: &'static str, f: impl Fn(&T) -> i32) -> Self {
        let a = Int32Array::from_iter_values(self.rows.iter().map(f));
        self.add(name, false, Arc::new(a))
    }

    /// Seconds (or another real number).
    pub(crate) fn real(self, name: &'static str, f: impl Fn(&T) -> f64) -> Self {
        let a = Float64Array::from_iter_values(self.rows.iter().map(f));
        self.add(name, false, Arc::new(a))
    }

    /// Seconds, or null.
    pub(crate) fn opt_real(self, name: &'static str, f: impl Fn(&T) -> Option<f64>) -> Self {
        let a: Float64Array = self.rows.iter().map(f).collect();
        self.add(name, true, Arc::new(a))
    }

    /// A name.
    pub(crate) fn text(self, name: &'static str, f: impl Fn(&T) -> &str) -> Self {
        let a = StringArray::from_iter_values(self.rows.iter().map(f));
        self.add(name, false, Arc::new(a))
    }

    /// A name, or null.
    pub(crate) fn opt_text(self, name: &'static str, f: impl Fn(&T) -> Option<&str>) -> Self {
        let a: StringArray = self.rows.iter().map(f).collect();
        self.add(name, true, Arc::new(a))
    }

    /// A list of names (a call path, outermost first).
    pub(crate) fn texts(self, name: &'static str, f: impl Fn(&T) -> &[String]) -> Self {
        // The list's items are not null: a path holds names.
        let items = StringBuilder::new();
        let field = arrow_schema::Field::new("item", arrow_schema::DataType::Utf8, false);
        let mut b = ListBuilder::new(items).with_field(field);
        for r in self.rows {
            for s in f(r) {
                b.values().append_value(s);
            }
            b.append(true);
        }
        self.add(name, false, Arc::new(b.finish()))
    }

    pub(crate) fn build(self) -> Result<Table, ArrowError> {
        batch(
            self.columns
                .into_iter()
                .map(|(n, null, a)| (n, a.data_type().clone(), null, a))
                .collect(),
        )
    }
}
