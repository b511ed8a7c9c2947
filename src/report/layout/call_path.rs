//! Call paths in tables for people: `a > b > c`, and within a width, whole
//! frames left out as `…` (`a > … > c`). The frames kept are those that
//! tell a row's path from the other rows' (where it leaves the paths it
//! shares the most with), so that different paths never print alike: cut
//! character by character in the middle, nine different paths of one
//! program all read `Amr::coarseTimeStep() > Amr::t…ParallelCopy_finish()`.
//!
//! A table's path cell holds the frames joined by [`FRAME_BREAK`] ([`cell`]);
//! the text renderer lays the column out with [`fit_all`] or [`whole`].

use std::collections::HashMap;

use crate::report::layout::fit::middle_ellipsis;

/// Between the frames of a path as people read it.
pub const SEP: &str = " > ";

/// Stands for one or more frames left out.
const HIDDEN: &str = "…";

/// Between the frames of a path cell: a control character, which names
/// shown in a table never carry raw (they are escaped), so the frames can
/// be told apart again however the names look (`pair<int, int> > x`).
pub const FRAME_BREAK: char = '\u{1f}';

/// A table cell holding the call path `frames`.
pub fn cell<S: AsRef<str>>(frames: &[S]) -> String {
    let mut s = String::new();
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            s.push(FRAME_BREAK);
        }
        s.push_str(f.as_ref());
    }
    s
}

/// The frames of a path cell.
pub fn frames(cell: &str) -> Vec<&str> {
    cell.split(FRAME_BREAK).collect()
}

/// A path cell as people read it, whole.
pub fn whole(cell: &str) -> String {
    cell.replace(FRAME_BREAK, SEP)
}

/// The characters of [`whole`]`(cell)`.
pub fn whole_width(cell: &str) -> usize {
    let breaks = cell.chars().filter(|&c| c == FRAME_BREAK).count();
    cell.chars().count() + breaks * (SEP.chars().count() - 1)
}

/// The paths as texts of at most `limit` characters (when a path's
/// innermost frame alone fits), different paths in different texts.
pub fn fit_all(paths: &[Vec<&str>], limit: usize) -> Vec<String> {
    let kin = kin(paths);
    let mut texts: Vec<String> = (0..paths.len())
        .map(|i| shorten(&paths[i], &kin[i], limit))
        .collect();
    // The frames kept tell most paths apart. Paths alike even so (ones
    // that differ only in frames too long to show) are shortened again to
    // leave room for a number, and numbered among those they are then
    // alike with. A second round only for a name that ends in a number.
    for _ in 0..2 {
        let alike: Vec<usize> = alike(paths, &texts).into_iter().flatten().collect();
        if alike.is_empty() {
            break;
        }
        let tag_width = format!(" [{}]", alike.len()).chars().count();
        let room = limit.saturating_sub(tag_width);
        let mut numbered: HashMap<String, Vec<&[&str]>> = HashMap::new();
        for i in alike {
            let base = shorten(&paths[i], &kin[i], room);
            let seen = numbered.entry(base.clone()).or_default();
            let k = match seen.iter().position(|p| *p == paths[i].as_slice()) {
                Some(k) => k,
                None => {
                    seen.push(&paths[i]);
                    seen.len() - 1
                }
            };
            texts[i] = format!("{base} [{}]", k + 1);
        }
    }
    texts
}

/// Rows whose texts are alike while their paths differ, grouped by text
/// (in row order).
fn alike(paths: &[Vec<&str>], texts: &[String]) -> Vec<Vec<usize>> {
    let mut by_text: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, t) in texts.iter().enumerate() {
        by_text.entry(t).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = by_text
        .into_values()
        .filter(|rows| rows.iter().any(|&i| paths[i] != paths[rows[0]]))
        .collect();
    groups.sort_unstable();
    groups
}

/// Per path, the frames (as common prefix and suffix lengths) it shares
/// with its closest other paths: the longest common prefix is with a
/// neighbour in sorted order, the longest common suffix with a neighbour
/// in the order of the reversed paths, so four neighbours stand for all
/// rows (and a table of many rows is not compared pair by pair).
fn kin(paths: &[Vec<&str>]) -> Vec<Vec<(usize, usize)>> {
    let n = paths.len();
    let mut forward: Vec<usize> = (0..n).collect();
    forward.sort_by(|&a, &b| paths[a].cmp(&paths[b]));
    let mut backward: Vec<usize> = (0..n).collect();
    backward.sort_by(|&a, &b| paths[a].iter().rev().cmp(paths[b].iter().rev()));
    let mut kin = vec![Vec::new(); n];
    for order in [&forward, &backward] {
        for w in 0..n {
            let i = order[w];
            // The nearest neighbour on each side whose path differs.
            let before = order[..w].iter().rev().find(|&&j| paths[j] != paths[i]);
            let after = order[w + 1..].iter().find(|&&j| paths[j] != paths[i]);
            for &j in before.into_iter().chain(after) {
                kin[i].push(shared(&paths[i], &paths[j]));
            }
        }
    }
    for k in &mut kin {
        // Closest first: the frames that tell it from those matter most.
        k.sort_by_key(|&(pre, suf)| std::cmp::Reverse(pre + suf));
    }
    kin
}

/// Frames `a` shares with `b` at its start and at its end (not counting a
/// frame twice).
fn shared(a: &[&str], b: &[&str]) -> (usize, usize) {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - pre;
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    (pre, suf)
}

/// `path` in at most `limit` characters: whole when it fits, else the
/// frames kept in this order, each while it fits: the innermost; where the
/// path leaves its closest kin (from the inside, then from the root); the
/// root; the others from the inside out.
fn shorten(path: &[&str], kin: &[(usize, usize)], limit: usize) -> String {
    let n = path.len();
    let len = |s: &str| s.chars().count();
    let sep = len(SEP);
    let full = path.iter().map(|f| len(f)).sum::<usize>() + sep * n.saturating_sub(1);
    if full <= limit || n == 0 {
        return path.join(SEP);
    }
    let last = path[n - 1];
    if n == 1 || len(last) + sep + 1 > limit {
        // Not even the innermost frame fits with `… > ` before it.
        return if n == 1 {
            middle_ellipsis(last, limit).into_owned()
        } else {
            format!(
                "{HIDDEN}{SEP}{}",
                middle_ellipsis(last, limit.saturating_sub(sep + 1))
            )
        };
    }
    let mut order = vec![n - 1];
    for &(pre, suf) in kin {
        if suf < n {
            order.push(n - 1 - suf);
        }
        if pre < n {
            order.push(pre);
        }
    }
    order.push(0);
    order.extend((1..n - 1).rev());
    // Everything hidden: one `…`. Keeping frame k replaces the hidden run
    // around it by the frame and the runs left on either side.
    let mut kept = vec![false; n];
    let mut width = len(HIDDEN);
    for k in order {
        if kept[k] {
            continue;
        }
        let left = k > 0 && !kept[k - 1];
        let right = k + 1 < n && !kept[k + 1];
        let runs = usize::from(left) + usize::from(right);
        // Items: the frame and `runs` runs replace one run.
        let grown = width + len(path[k]) + runs * (len(HIDDEN) + sep) - len(HIDDEN);
        if grown <= limit {
            kept[k] = true;
            width = grown;
        }
    }
    let mut items: Vec<&str> = Vec::new();
    for (k, f) in path.iter().enumerate() {
        if kept[k] {
            items.push(f);
        } else if k == 0 || kept[k - 1] {
            items.push(HIDDEN);
        }
    }
    items.join(SEP)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(paths: &[&str], limit: usize) -> Vec<String> {
        let paths: Vec<Vec<&str>> = paths.iter().map(|p| p.split('/').collect()).collect();
        fit_all(&paths, limit)
    }

    #[test]
    fn paths_that_fit_are_whole() {
        assert_eq!(texts(&["a/b/c", "a"], 9), ["a > b > c", "a"]);
    }

    #[test]
    fn whole_frames_are_left_out_and_the_differing_ones_kept() {
        let t = texts(
            &[
                "main/step/advance/exchange/copy_finish",
                "main/step/regrid/exchange/copy_finish",
            ],
            34,
        );
        assert_eq!(
            t,
            [
                "… > advance > … > copy_finish",
                "… > regrid > … > copy_finish"
            ]
        );
    }

    #[test]
    fn paths_that_differ_only_in_their_depth_print_apart() {
        let t = texts(&["main/step/step/copy/finish", "main/step/copy/finish"], 22);
        assert_ne!(t[0], t[1], "{t:?}");
        assert!(t.iter().all(|t| t.chars().count() <= 22), "{t:?}");
    }

    #[test]
    fn paths_alike_within_the_limit_are_numbered() {
        // Differ only in a frame too long to show: numbers tell them apart.
        let a = format!("main/{}x/finish", "m".repeat(40));
        let b = format!("main/{}y/finish", "m".repeat(40));
        let t = texts(&[&a, &b, &a], 16);
        assert_eq!(t, ["… > finish [1]", "… > finish [2]", "… > finish [1]"]);
        // Numbered among the paths alike after the room for the number is
        // taken: each number once per text.
        let d = format!("main/{}p/q/finish", "m".repeat(40));
        let e = format!("main/{}r/q/finish", "m".repeat(40));
        let t = texts(&[&a, &b, &d, &e], 16);
        assert_eq!(
            t,
            [
                "… > finish [1]",
                "… > finish [2]",
                "… > finish [3]",
                "… > finish [4]"
            ]
        );
    }

    #[test]
    fn an_innermost_frame_too_long_is_cut_in_the_middle() {
        assert_eq!(texts(&["a/abcdefghij"], 9), ["… > ab…ij"]);
        assert_eq!(texts(&["abcdefghij"], 5), ["ab…ij"]);
    }

    #[test]
    fn random_paths_fit_and_print_apart() {
        let mut rng = crate::test_rng::Xorshift::new(0x5eed);
        let names = ["Amr::timeStep()", "main", "FabArray::copy", "f", "g()"];
        for _ in 0..200 {
            let rows: Vec<String> = (0..1 + rng.below(12))
                .map(|_| {
                    (0..1 + rng.below(9))
                        .map(|_| names[rng.below(names.len() as u64) as usize])
                        .collect::<Vec<_>>()
                        .join("/")
                })
                .collect();
            let limit = 20 + rng.below(40) as usize;
            let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            let t = texts(&rows, limit);
            for i in 0..rows.len() {
                for j in 0..rows.len() {
                    assert_eq!(rows[i] == rows[j], t[i] == t[j], "{rows:?} {t:?}");
                }
                assert!(t[i].chars().count() <= limit, "{limit}: {t:?}");
            }
        }
    }

    #[test]
    fn cells_hold_the_frames() {
        let c = cell(&["a > b", "c"]);
        assert_eq!(frames(&c), ["a > b", "c"]);
        assert_eq!(whole(&c), "a > b > c");
        assert_eq!(whole_width(&c), 9);
    }
}
