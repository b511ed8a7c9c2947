//! Lists of names (regions, steps) written for people: in natural order
//! (`STEP 2` before `STEP 10`), with numbered runs folded (`STEP 0–19`).

use std::cmp::Ordering;

/// Natural order: digits compare as numbers, the rest as text.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    natord::compare(a, b)
}

/// `names` sorted naturally, with runs of consecutive numbers after the same
/// prefix folded (`timeStep STEP 0–19`), joined by `, `; past `max_items`
/// items the rest is counted (`…, and 12 more`).
pub fn summarise(names: &[String], max_items: usize) -> String {
    let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
    sorted.sort_by(|a, b| natural_cmp(a, b));
    sorted.dedup();
    // Each item with the number of names it stands for.
    let mut items: Vec<(String, u64)> = Vec::new();
    // The open run: prefix, first and last number.
    let mut run: Option<(&str, u64, u64)> = None;
    let close = |run: Option<(&str, u64, u64)>, items: &mut Vec<(String, u64)>| {
        if let Some((prefix, a, z)) = run {
            let text = match z - a {
                0 => format!("{prefix}{a}"),
                1 => format!("{prefix}{a}, {prefix}{z}"),
                _ => format!("{prefix}{a}–{z}"),
            };
            items.push((text, z - a + 1));
        }
    };
    for name in sorted {
        match numbered(name) {
            Some((prefix, n)) => match run {
                Some((p, a, z)) if p == prefix && z.checked_add(1) == Some(n) => {
                    run = Some((p, a, n));
                }
                _ => {
                    close(run.take(), &mut items);
                    run = Some((prefix, n, n));
                }
            },
            None => {
                close(run.take(), &mut items);
                items.push((name.to_owned(), 1));
            }
        }
    }
    close(run, &mut items);
    let rest: u64 = items.iter().skip(max_items).map(|(_, n)| n).sum();
    let mut shown: Vec<String> = items.into_iter().take(max_items).map(|(t, _)| t).collect();
    if rest > 0 {
        shown.push(format!("and {rest} more"));
    }
    shown.join(", ")
}

/// A name ending in a plain decimal number (no leading zero): its prefix and
/// the number.
fn numbered(name: &str) -> Option<(&str, u64)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let (prefix, number) = name.split_at(name.len() - digits);
    if number.len() > 1 && number.starts_with('0') {
        return None;
    }
    Some((prefix, number.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn steps_sort_by_number_and_fold() {
        let mut v = names(&["__NoRegion__", "Amr::init()", "amr_level.advance"]);
        v.extend((0..20).map(|i| format!("timeStep STEP {i}")));
        assert_eq!(
            summarise(&v, 10),
            "Amr::init(), __NoRegion__, amr_level.advance, timeStep STEP 0–19"
        );
    }

    #[test]
    fn gaps_pairs_and_padded_numbers() {
        let v = names(&[
            "R 1", "R 2", "R 3", "R 5", "R 7", "R 8", "f007", "f008", "R 10",
        ]);
        assert_eq!(summarise(&v, 10), "R 1–3, R 5, R 7, R 8, R 10, f007, f008");
        assert_eq!(summarise(&v, 2), "R 1–3, R 5, and 5 more");
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["STEP 10", "STEP 2", "STEP 1"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["STEP 1", "STEP 2", "STEP 10"]);
    }
}
