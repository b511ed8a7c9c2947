//! Sets of process numbers written the way people read them.

/// `0–3, 5, 9–10` for processes 0, 1, 2, 3, 5, 9, 10 (any order, repeats
/// ignored). At most `max_runs` runs are written; the rest is counted
/// (`…, and 12 more`) so that a message about 100,000 processes stays one line.
pub fn process_list(procs: &[usize], max_runs: usize) -> String {
    let mut sorted = procs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for p in sorted {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == p => *end = p,
            _ => runs.push((p, p)),
        }
    }
    let shown: Vec<String> = runs
        .iter()
        .take(max_runs)
        .map(|&(a, b)| match b - a {
            0 => a.to_string(),
            1 => format!("{a}, {b}"),
            _ => format!("{a}–{b}"),
        })
        .collect();
    let mut text = shown.join(", ");
    let rest: usize = runs.iter().skip(max_runs).map(|(a, b)| b - a + 1).sum();
    if rest > 0 {
        text.push_str(&format!(", and {rest} more"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::process_list;

    #[test]
    fn runs_and_singles() {
        assert_eq!(process_list(&[5, 0, 1, 2, 3, 9, 10, 3], 8), "0–3, 5, 9, 10");
        assert_eq!(process_list(&[7], 8), "7");
        assert_eq!(process_list(&[], 8), "");
    }

    #[test]
    fn long_lists_are_counted() {
        let every_other: Vec<usize> = (0..100).step_by(2).collect();
        assert_eq!(process_list(&every_other, 3), "0, 2, 4, and 47 more");
    }
}
