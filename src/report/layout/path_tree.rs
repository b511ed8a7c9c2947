//! Rows keyed by call paths, laid out as the tree of their paths: each
//! frame on a line of its own, indented by its depth, a row's numbers on
//! the line of its innermost frame. In a narrow table a flat path keeps
//! room for two or three frames, and the paths of one program differ in
//! the middle (one more `Amr::timeStep()`): as a tree, every path shows
//! whole and different paths end on different lines.

use std::collections::HashMap;

/// One line of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeLine<'a> {
    /// Frames above this one.
    pub depth: usize,
    /// The frame; `None` for rows of the empty path (outside any frame).
    pub name: Option<&'a str>,
    /// The row whose path ends here (`None`: a frame on the way only).
    pub row: Option<usize>,
}

impl TreeLine<'_> {
    /// The frame as its tree cell: indented by its depth, the empty path
    /// named.
    pub fn frame_text(&self) -> String {
        format!(
            "{}{}",
            crate::report::numfmt::padding::TreeIndent::new(self.depth),
            self.name.unwrap_or("(outside timed calls)")
        )
    }
}

struct Node<'a> {
    name: &'a str,
    depth: usize,
    children: Vec<usize>,
    rows: Vec<usize>,
    /// The heaviest row at or below this frame: siblings are in this
    /// order, so the heaviest path comes first.
    weight: f64,
}

/// The tree of `paths` (one per row) as lines in pre-order; siblings by
/// the heaviest `weight` of a row below them (then by first row), a
/// frame's own rows in row order before its children.
pub fn tree_lines<'a, S: AsRef<str>>(paths: &[&'a [S]], weight: &[f64]) -> Vec<TreeLine<'a>> {
    let mut nodes = vec![Node {
        name: "",
        depth: 0,
        children: Vec::new(),
        rows: Vec::new(),
        weight: f64::NEG_INFINITY,
    }];
    let mut child: HashMap<(usize, &'a str), usize> = HashMap::new();
    for (row, path) in paths.iter().enumerate() {
        let w = weight.get(row).copied().unwrap_or(0.0);
        let mut at = 0;
        nodes[0].weight = nodes[0].weight.max(w);
        for (depth, frame) in path.iter().enumerate() {
            let name = frame.as_ref();
            at = match child.get(&(at, name)) {
                Some(&c) => c,
                None => {
                    let c = nodes.len();
                    nodes.push(Node {
                        name,
                        depth,
                        children: Vec::new(),
                        rows: Vec::new(),
                        weight: w,
                    });
                    nodes[at].children.push(c);
                    child.insert((at, name), c);
                    c
                }
            };
            nodes[at].weight = nodes[at].weight.max(w);
        }
        nodes[at].rows.push(row);
    }
    for i in 0..nodes.len() {
        let mut children = std::mem::take(&mut nodes[i].children);
        // Stable: equal weights keep the order of their first rows.
        children.sort_by(|&a, &b| nodes[b].weight.total_cmp(&nodes[a].weight));
        nodes[i].children = children;
    }
    let mut lines = Vec::new();
    // Pre-order with a stack: paths from the data may be thousands deep.
    let mut stack = vec![0];
    while let Some(i) = stack.pop() {
        let n = &nodes[i];
        let name = (i != 0).then_some(n.name);
        if n.rows.is_empty() && i != 0 {
            lines.push(TreeLine {
                depth: n.depth,
                name,
                row: None,
            });
        }
        for &row in &n.rows {
            lines.push(TreeLine {
                depth: n.depth,
                name,
                row: Some(row),
            });
        }
        stack.extend(n.children.iter().rev());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(paths: &[&str], weight: &[f64]) -> Vec<String> {
        let split: Vec<Vec<&str>> = paths
            .iter()
            .map(|p| p.split('/').filter(|f| !f.is_empty()).collect())
            .collect();
        let refs: Vec<&[&str]> = split.iter().map(Vec::as_slice).collect();
        tree_lines(&refs, weight)
            .into_iter()
            .map(|l| {
                format!(
                    "{}{}{}",
                    "  ".repeat(l.depth),
                    l.name.unwrap_or("(none)"),
                    l.row.map_or_else(String::new, |r| format!(" #{r}"))
                )
            })
            .collect()
    }

    #[test]
    fn paths_share_their_frames_and_the_heaviest_comes_first() {
        let got = lines(
            &["main/step/copy", "main/step/step/copy", "main/plot", ""],
            &[1.0, 5.0, 3.0, 0.5],
        );
        assert_eq!(
            got,
            [
                "(none) #3",
                "main",
                "  step",
                "    step",
                "      copy #1",
                "    copy #0",
                "  plot #2",
            ]
        );
    }

    #[test]
    fn rows_of_one_path_share_its_line_and_a_path_may_end_inside_another() {
        let got = lines(&["a/b", "a", "a/b"], &[2.0, 1.0, 3.0]);
        assert_eq!(got, ["a #1", "  b #0", "  b #2"]);
    }
}
