//! One timer tree as a [`Report`] (`tree show`): the table of inclusive and
//! exclusive times for `table`, the JSON file form for `json`, and the
//! layouts of the Fortran reference (`reference`), Truchas (`truchas`) and
//! the XML file form (`xml`).

use std::io::{self, Write};

use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

use crate::model::calltree::{CallTree, NodeId};
use crate::model::timertree::{Serialized, Timing};
use crate::report::numfmt::fortran::Precision;
use crate::report::numfmt::round_trip::time_text;
use crate::report::{Document, Format, Report, not_offered};

use super::{json, reference, table, truchas, xml};

/// A timer tree to show; the reference layout starts at `top` (the root, or
/// a handle's timer from [`reference::subtree_top`]).
pub struct TimerTreeReport<'a> {
    pub tree: &'a CallTree<Timing>,
    pub top: NodeId,
    /// Blanks per nesting level of the reference layout.
    pub indent: usize,
    pub precision: Precision,
}

/// The JSON wire value: the file form's three arrays (docs/TIMER_TREE.md),
/// times that are not finite as the strings `NaN`, `Infinity`, `-Infinity`.
pub struct SerializedWire(pub Serialized);

impl Serialize for SerializedWire {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Times<'a>(&'a [f64]);
        impl Serialize for Times<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
                for &t in self.0 {
                    if t.is_finite() {
                        seq.serialize_element(&t)?;
                    } else {
                        seq.serialize_element(&time_text(t))?;
                    }
                }
                seq.end()
            }
        }
        let mut s = serializer.serialize_struct("Serialized", 3)?;
        s.serialize_field("tree", &self.0.tree)?;
        s.serialize_field("name", &self.0.name)?;
        s.serialize_field("time", &Times(&self.0.time))?;
        s.end()
    }
}

impl Report for TimerTreeReport<'_> {
    type Wire<'a>
        = SerializedWire
    where
        Self: 'a;

    fn wire(&self) -> SerializedWire {
        SerializedWire(Serialized::from_call_tree(self.tree))
    }

    /// The file form exactly, one array per line (what `formats::timertree`
    /// reads back).
    fn write_json(&self, w: &mut dyn Write) -> io::Result<()> {
        json::write_json(w, &self.wire().0)
    }

    fn document(&self) -> Document<'_> {
        let mut doc = Document::new();
        doc.table(table::timer_table(self.tree, self.precision));
        doc
    }

    fn write_other(&self, format: Format, w: &mut dyn Write) -> io::Result<()> {
        match format {
            Format::Reference => {
                reference::write_reference(w, self.tree, self.top, self.indent, self.precision)
            }
            Format::Truchas => truchas::write_truchas(w, self.tree, self.precision),
            Format::Xml => xml::write_xml(w, self.tree),
            other => Err(not_offered(other)),
        }
    }
}
