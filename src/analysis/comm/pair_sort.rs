//! Step 2 of the message pairing ([`super::pairs`]): a partition's rows of
//! one kind put in key order, (sender, receiver, tag) then their place
//! among the rows of that key (`seq`, `order`, `nth`), moving each row
//! once.
//!
//! # Why the rows need sorting by key only
//!
//! Every row of a key is filed by one process's pass ([`super::pair_rows`]):
//! a send by its sender's, a receive and a completion by its receiver's.
//! That pass numbers the rows of its kind in record order and files them
//! through one writer, whose chunks reach the partition in the order it
//! wrote them ([`crate::spill`]). So a key's rows are read back almost
//! always already in their place order, and putting the partition in
//! order is a *stable* sort by key alone:
//!
//! ```text
//!   read:    (0→1 t7 #0) (0→2 t9 #1) (0→1 t7 #2) (3→1 t7 #0) (0→2 t9 #3)
//!   packed:  key₀|0      key₁|1      key₀|2      key₂|3      key₁|4     (key in 96 bits, arrival in 32)
//!   sorted:  key₀|0 key₀|2 key₁|1 key₁|4 key₂|3   → rows moved to those places
//! ```
//!
//! The key and the row's arrival are packed into one `u128` whose order is
//! the key's (the sign bits flipped), so the sort compares integers and
//! moves 16 bytes instead of a 40- to 64-byte row; the rows are then moved
//! once, cycle by cycle, into their places. A receive's pass can file
//! receives of one key out of order (a nonblocking receive held until its
//! status comes, a blocking one of the same key filed at once): a check
//! of the result finds that and sorts the rows by their full order, so the
//! result is always exactly the rows' [`Ord`] order (the keys are
//! distinct), whatever the arrival.
//!
//! Memory: the packed keys, [`SORT_BYTES`] per row, besides the rows
//! ([`crate::external_sort::Sorter`] counts them in its share).

/// A row of the pairing: the key it is filed and matched under.
pub(super) trait Keyed: Ord {
    /// (sender, receiver, tag).
    fn key(&self) -> (i32, i32, i32);
}

/// Bytes per row the sort takes besides the rows.
pub(super) const SORT_BYTES: usize = std::mem::size_of::<u128>();

/// Puts `rows` in their [`Ord`] order: a sort of their keys packed with
/// their arrival (the module docs), then a full sort only where a key's
/// rows did not arrive in order.
pub(super) fn sort_by_key<T: Keyed + Copy>(rows: &mut [T]) {
    if u32::try_from(rows.len()).is_err() {
        rows.sort_unstable();
        return;
    }
    group_by_key(rows);
    if !rows.is_sorted() {
        rows.sort_unstable();
    }
}

/// Puts `rows` in key order, each key's rows in the order they came
/// (fewer than 2³² rows).
fn group_by_key<T: Keyed + Copy>(rows: &mut [T]) {
    let mut places: Vec<u128> = (rows.iter().enumerate())
        .map(|(i, r)| packed(r.key()) | i as u128)
        .collect();
    places.sort_unstable();
    move_into_places(rows, &mut places);
}

/// Key `(a, b, c)` in the top 96 bits, ordered as the key is.
fn packed((a, b, c): (i32, i32, i32)) -> u128 {
    let bits = |v: i32| u128::from(v as u32 ^ 0x8000_0000);
    bits(a) << 96 | bits(b) << 64 | bits(c) << 32
}

/// Puts row `places[i] as u32` at `i`, for every `i`, moving each row
/// once: each cycle of the permutation is followed from its first place,
/// whose row waits aside. A place done is marked by pointing at itself.
fn move_into_places<T: Copy>(rows: &mut [T], places: &mut [u128]) {
    let from = |p: u128| p as u32 as usize;
    for start in 0..rows.len() {
        if from(places[start]) == start {
            continue;
        }
        let first = rows[start];
        let mut at = start;
        loop {
            let next = from(places[at]);
            places[at] = at as u128;
            if next == start {
                rows[at] = first;
                break;
            }
            rows[at] = rows[next];
            at = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Xorshift;

    /// A row: its key, its place among its key's rows, and what it carries
    /// (to see that rows move whole).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    struct TestRow {
        key: (i32, i32, i32),
        place: u64,
        payload: u64,
    }

    impl Keyed for TestRow {
        fn key(&self) -> (i32, i32, i32) {
            self.key
        }
    }

    /// `n` rows over about `keys` keys (negative ones among them), each
    /// key's rows numbered in arrival order as a pass files them.
    fn arriving_in_order(rng: &mut Xorshift, n: usize, keys: u64) -> Vec<TestRow> {
        let mut next_place = std::collections::HashMap::new();
        (0..n)
            .map(|i| {
                let k = rng.below(keys) as i32;
                let tag = if k % 11 == 0 { i32::MIN + k } else { k / 3 - 40 };
                let key = (k % 5 - 2, k % 7, tag);
                let place = next_place.entry(key).or_insert(0u64);
                *place += 1 + rng.below(3);
                TestRow {
                    key,
                    place: *place,
                    payload: i as u64,
                }
            })
            .collect()
    }

    fn sorted_by_comparing(rows: &[TestRow]) -> Vec<TestRow> {
        let mut want = rows.to_vec();
        want.sort_unstable();
        want
    }

    /// Rows whose keys arrive in place order come out as a comparison sort
    /// puts them, for a key per row, hot keys and everything between.
    #[test]
    fn rows_arriving_in_order_come_out_as_a_comparison_sort_puts_them() {
        let mut rng = Xorshift::new(0x9e37_79b9_7f4a_7c15);
        for (n, keys) in [(0, 1), (1, 1), (2, 1), (500, 1), (3000, 40), (3000, 100_000)] {
            let mut rows = arriving_in_order(&mut rng, n, keys);
            let want = sorted_by_comparing(&rows);
            // (In order without the check's full sort.)
            let mut grouped = rows.clone();
            group_by_key(&mut grouped);
            assert_eq!(grouped, want, "{n} rows over {keys} keys");
            sort_by_key(&mut rows);
            assert_eq!(rows, want, "{n} rows over {keys} keys");
        }
    }

    /// Rows of a key out of order (swapped pairs, and a shuffle) come out
    /// in order all the same.
    #[test]
    fn rows_arriving_out_of_order_come_out_in_order() {
        let mut rng = Xorshift::new(0x2545_f491_4f6c_dd1d);
        for keys in [1, 30, 3000] {
            let mut rows = arriving_in_order(&mut rng, 2000, keys);
            for _ in 0..20 {
                let (i, j) = (rng.below(2000) as usize, rng.below(2000) as usize);
                rows.swap(i, j);
            }
            let want = sorted_by_comparing(&rows);
            sort_by_key(&mut rows);
            assert_eq!(rows, want, "swapped, {keys} keys");
            for i in (1..rows.len()).rev() {
                rows.swap(i, rng.below(i as u64 + 1) as usize);
            }
            sort_by_key(&mut rows);
            assert_eq!(rows, want, "shuffled, {keys} keys");
        }
    }

    /// The permutation moves each row to the place it is given.
    #[test]
    fn rows_move_to_the_places_given() {
        let mut rows: Vec<u32> = (0..6).collect();
        let mut places: Vec<u128> = [3u128, 0, 4, 5, 1, 2].to_vec();
        move_into_places(&mut rows, &mut places);
        assert_eq!(rows, [3, 0, 4, 5, 1, 2]);
    }

    /// The packed keys order as the keys do, signs included.
    #[test]
    fn packed_keys_order_as_the_keys() {
        let keys = [
            (i32::MIN, 0, 0),
            (-1, i32::MAX, i32::MAX),
            (0, -1, 5),
            (0, 0, i32::MIN),
            (0, 0, -1),
            (0, 0, 0),
            (i32::MAX, i32::MIN, 0),
        ];
        for w in keys.windows(2) {
            assert!(packed(w[0]) < packed(w[1]), "{w:?}");
        }
    }
}
