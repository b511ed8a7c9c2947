//! The values a timer tree is exchanged as, shared by the instrumentation
//! API (`timer_tree`), the file readers (`formats::timertree`), the analyses
//! and the reports: [`Timing`], one timer's total, and [`Serialized`], the
//! serialized form.
//!
//! The serialized form: the tree as pre-order open/close pairs of node
//! numbers, plus one name and one time per node (the reference's three
//! arrays). Validation is complete before anything is built, and every
//! failure names the array index.

use crate::model::calltree::{CallTree, NodeId};

/// One timer's total in a snapshot: what reports and files use.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timing {
    /// Accumulated seconds, running time included up to the snapshot.
    pub seconds: f64,
    /// How often the timer was started; 0 when unknown (trees read from
    /// serialized arrays do not record calls).
    pub calls: u64,
}

/// A timer tree as three flat arrays.
///
/// `tree` holds 2n node numbers: each of 1..=n exactly twice, as an open and
/// a close that nest like parentheses, the opens in the order 1, 2, …, n.
/// `name[k-1]` and `time[k-1]` belong to node k.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Serialized {
    /// Signed so that invalid input (0, negatives) can be held and reported.
    pub tree: Vec<i64>,
    /// `name[k-1]`: node k's name.
    pub name: Vec<String>,
    /// `time[k-1]`: node k's seconds.
    pub time: Vec<f64>,
}

/// Why serialized arrays do not describe a timer tree. Indices are 0-based
/// positions in the `tree` array.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SerialError {
    /// `name` and `time` differ in length.
    #[error("name has {names} entries but time has {times}: both need one entry per timer")]
    LengthMismatch {
        /// Entries of `name`.
        names: usize,
        /// Entries of `time`.
        times: usize,
    },
    /// `tree` is not twice as long as `name`.
    #[error("tree has {found} entries, expected {expected} (two per timer)")]
    TreeLength {
        /// Entries of `tree`.
        found: usize,
        /// Twice the timers.
        expected: usize,
    },
    /// An entry of `tree` that names no timer.
    #[error("tree[{index}] = {value} is outside 1..={n}")]
    OutOfRange {
        /// The position in `tree`.
        index: usize,
        /// The entry there.
        value: i64,
        /// The timers.
        n: usize,
    },
    /// A timer that occurs more than twice.
    #[error(
        "tree[{index}] = {value} is a third occurrence of timer {value}: each timer occurs exactly twice"
    )]
    ExtraOccurrence {
        /// The position in `tree`.
        index: usize,
        /// The entry there.
        value: usize,
    },
    /// First occurrences out of the order 1, 2, …, n.
    #[error(
        "tree[{index}] = {value} is the first occurrence of timer {value}, expected timer {expected}: first occurrences must read 1, 2, ..., n"
    )]
    Order {
        /// The position in `tree`.
        index: usize,
        /// The entry there.
        value: usize,
        /// The timer whose first occurrence was due.
        expected: usize,
    },
    /// A timer closed while one opened inside it is still open.
    #[error(
        "tree[{index}] closes timer {value} while timer {open}, opened inside it, is still open: the pairs cross"
    )]
    Crossing {
        /// The position in `tree`.
        index: usize,
        /// The timer closed there.
        value: usize,
        /// The timer opened inside it and still open.
        open: usize,
    },
    /// Two children of one timer with the same name.
    #[error(
        "tree[{index}] opens timer {second} named {name:?}, but its sibling timer {first} has the same name"
    )]
    DuplicateSibling {
        /// The position in `tree`.
        index: usize,
        /// The sibling opened first.
        first: usize,
        /// The sibling opened there.
        second: usize,
        /// Their name.
        name: String,
    },
}

impl Serialized {
    /// Number of timers the arrays claim.
    pub fn len(&self) -> usize {
        self.name.len()
    }

    /// Whether the arrays hold no timer.
    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }

    /// The arrays of a call tree, nodes numbered in pre-order (which equals
    /// the node ids only when the nodes were created in pre-order).
    pub fn from_call_tree(tree: &CallTree<Timing>) -> Self {
        let mut out = Serialized::default();
        // (node, number) of the nodes whose close is still to be written.
        let mut open: Vec<(NodeId, usize)> = Vec::new();
        for (id, depth) in tree.preorder() {
            while open.len() > depth {
                if let Some((_, k)) = open.pop() {
                    out.tree.push(k as i64);
                }
            }
            let k = out.name.len() + 1;
            out.tree.push(k as i64);
            out.name.push(tree.name(id).to_owned());
            out.time.push(tree.node(id).metrics.seconds);
            open.push((id, k));
        }
        while let Some((_, k)) = open.pop() {
            out.tree.push(k as i64);
        }
        out
    }

    /// Checks the arrays (the reference's checks, then proper nesting and
    /// unique sibling names) and builds the tree: node id k = node k.
    /// Trailing blanks of names are removed, as the reference pads them.
    pub fn to_call_tree(&self) -> Result<CallTree<Timing>, SerialError> {
        let n = self.validate()?;
        let mut out: CallTree<Timing> = CallTree::new();
        let mut stack = vec![out.root()];
        let mut high = 0usize;
        for (index, &v) in self.tree.iter().enumerate() {
            // validate() proved 1 <= v <= n.
            let v = v as usize;
            if v <= high {
                stack.pop();
                continue;
            }
            high = v;
            let parent = stack.last().copied().unwrap_or(out.root());
            let name = self.name[v - 1].trim_end_matches(' ');
            let id = out.child(parent, name);
            if id.0 as usize != v {
                return Err(SerialError::DuplicateSibling {
                    index,
                    first: id.0 as usize,
                    second: v,
                    name: name.to_owned(),
                });
            }
            out.node_mut(id).metrics.seconds = self.time[v - 1];
            stack.push(id);
        }
        debug_assert_eq!(out.len(), n);
        Ok(out)
    }

    /// The structural checks, in the reference's order; returns n.
    fn validate(&self) -> Result<usize, SerialError> {
        let n = self.name.len();
        if self.time.len() != n {
            return Err(SerialError::LengthMismatch {
                names: n,
                times: self.time.len(),
            });
        }
        // Checked, so that no arithmetic on a huge n can overflow.
        if n.checked_mul(2) != Some(self.tree.len()) {
            return Err(SerialError::TreeLength {
                found: self.tree.len(),
                expected: n.saturating_mul(2),
            });
        }
        for (index, &value) in self.tree.iter().enumerate() {
            if value < 1 || value as u64 > n as u64 {
                return Err(SerialError::OutOfRange { index, value, n });
            }
        }
        // Sized by n, which is the length of an array really present.
        let mut seen = vec![0u8; n + 1];
        for (index, &v) in self.tree.iter().enumerate() {
            let v = v as usize;
            seen[v] += 1;
            if seen[v] > 2 {
                return Err(SerialError::ExtraOccurrence { index, value: v });
            }
        }
        // With 2n entries and none above two, every timer occurs twice.
        let mut high = 0usize;
        let mut open: Vec<usize> = Vec::new();
        for (index, &v) in self.tree.iter().enumerate() {
            let v = v as usize;
            if v > high {
                if v != high + 1 {
                    return Err(SerialError::Order {
                        index,
                        value: v,
                        expected: high + 1,
                    });
                }
                high = v;
                open.push(v);
            } else {
                match open.last() {
                    Some(&top) if top == v => {
                        open.pop();
                    }
                    top => {
                        return Err(SerialError::Crossing {
                            index,
                            value: v,
                            open: top.copied().unwrap_or(0),
                        });
                    }
                }
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrays(tree: &[i64], names: &[&str]) -> Serialized {
        Serialized {
            tree: tree.to_vec(),
            name: names.iter().map(|s| s.to_string()).collect(),
            time: (0..names.len()).map(|i| i as f64 + 0.5).collect(),
        }
    }

    #[test]
    fn doc_example_builds_with_node_k_as_id_k() {
        let s = arrays(
            &[1, 2, 2, 3, 4, 4, 3, 1, 5, 6, 6, 7, 7, 8, 8, 5],
            &["A", "B", "C", "B", "B", "X", "Y", "Z"],
        );
        let t = s.to_call_tree().unwrap();
        assert_eq!(t.len(), 8);
        assert_eq!(t.path(NodeId(4)), vec!["A", "C", "B"]);
        assert_eq!(t.node(NodeId(8)).metrics.seconds, 7.5);
        assert_eq!(Serialized::from_call_tree(&t), s);
    }

    #[test]
    fn each_invalid_kind_is_named() {
        let mut s = arrays(&[1, 1], &["A"]);
        s.time.push(1.0);
        assert_eq!(
            s.to_call_tree().unwrap_err(),
            SerialError::LengthMismatch { names: 1, times: 2 }
        );
        let e = arrays(&[1, 2, 2], &["A", "B"]).to_call_tree().unwrap_err();
        assert_eq!(
            e,
            SerialError::TreeLength {
                found: 3,
                expected: 4
            }
        );
        let e = arrays(&[1, 1, 0, 2], &["A", "B"])
            .to_call_tree()
            .unwrap_err();
        assert_eq!(
            e,
            SerialError::OutOfRange {
                index: 2,
                value: 0,
                n: 2
            }
        );
        let e = arrays(&[1, 3, 2, 2], &["A", "B"])
            .to_call_tree()
            .unwrap_err();
        assert_eq!(
            e,
            SerialError::OutOfRange {
                index: 1,
                value: 3,
                n: 2
            }
        );
        let e = arrays(&[1, 1, 1, 2], &["A", "B"])
            .to_call_tree()
            .unwrap_err();
        assert_eq!(e, SerialError::ExtraOccurrence { index: 2, value: 1 });
        let e = arrays(&[2, 1, 1, 2], &["A", "B"])
            .to_call_tree()
            .unwrap_err();
        assert_eq!(
            e,
            SerialError::Order {
                index: 0,
                value: 2,
                expected: 1
            }
        );
        let e = arrays(&[1, 2, 1, 2], &["A", "B"])
            .to_call_tree()
            .unwrap_err();
        assert_eq!(
            e,
            SerialError::Crossing {
                index: 2,
                value: 1,
                open: 2
            }
        );
        let e = arrays(&[1, 1, 2, 2], &["A", "A  "])
            .to_call_tree()
            .unwrap_err();
        assert_eq!(
            e,
            SerialError::DuplicateSibling {
                index: 2,
                first: 1,
                second: 2,
                name: "A".into()
            }
        );
        assert!(e.to_string().contains("tree[2]"), "{e}");
    }

    #[test]
    fn trailing_blanks_are_trimmed_and_leading_kept() {
        let t = arrays(&[1, 2, 2, 1], &["trailing   ", "  lead"])
            .to_call_tree()
            .unwrap();
        assert_eq!(t.name(NodeId(1)), "trailing");
        assert_eq!(t.name(NodeId(2)), "  lead");
    }

    #[test]
    fn empty_arrays_are_an_empty_tree() {
        assert!(Serialized::default().to_call_tree().unwrap().is_empty());
    }
}
