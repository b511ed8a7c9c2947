//! Step 2 of the message pairing ([`super::pairs`]): the order of a
//! partition's rows of one kind by key, (sender, receiver, tag) then their
//! place among the rows of that key (`seq`, `order`, `nth`), without
//! moving the rows.
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
//!   sorted:  key₀|0 key₀|2 key₁|1 key₁|4 key₂|3   → order 0 2 1 4 3
//! ```
//!
//! The key and the row's arrival are packed into one integer whose order is
//! the key's, so the sort moves 8 or 16 bytes instead of a 40- to 64-byte
//! row; the rows stay where they are, and the arrivals of the sorted keys
//! are the order to read them in (rows moved into their places one after
//! another would wait on memory at every row: a cycle of the permutation
//! is a chain of loads).
//! Within a partition the keys spread over few bits (a few processes, tags
//! of one run), so each field less the partition's smallest value usually
//! packs, with the arrival, into a `u64`: those are put in order by a
//! radix sort of the key's bits alone (stable: a key's rows keep their
//! arrival), in a pass per 11 bits instead of a comparison sort's
//! `log₂ n` passes. Keys too spread for that pack into a `u128` (the sign
//! bits flipped) put in order by comparing. A receive's pass can file
//! receives of one key out of order (a nonblocking receive held until its
//! status comes, a blocking one of the same key filed at once): a check
//! of the result finds that and sorts the order by the rows' full order,
//! so the result is always exactly the rows' [`Ord`] order (the keys are
//! distinct), whatever the arrival.
//!
//! Memory: the packed keys and the order, [`SORT_BYTES`] per row, besides
//! the rows (a `u64` and its copy for the radix sort, or a `u128` and the
//! order's `u32`; [`crate::external_sort::Sorter`] counts them in its
//! share).

/// A row of the pairing: the key it is filed and matched under. Its
/// [`Ord`] orders by that key first (rows of different keys compare as
/// their keys do), then by the row's place.
pub(super) trait Keyed: Ord {
    /// (sender, receiver, tag).
    fn key(&self) -> (i32, i32, i32);
}

/// Bytes per row the sort takes besides the rows.
pub(super) const SORT_BYTES: usize = std::mem::size_of::<u128>() + std::mem::size_of::<u32>();

/// The [`Ord`] order of `rows` (their indices, smallest first): a sort of
/// their keys packed with their arrival (the module docs), then a full
/// sort only where a key's rows did not arrive in order. Past 2³² rows,
/// which no index holds, the rows are sorted in place (`None`).
pub(super) fn sort_by_key<T: Keyed + Copy>(rows: &mut [T]) -> Option<Vec<u32>> {
    if u32::try_from(rows.len()).is_err() {
        rows.sort_unstable();
        return None;
    }
    let (mut order, in_order) = match NarrowKeys::of(rows) {
        Some(narrow) => group_by_narrow_key(rows, &narrow),
        None => group_by_key(rows),
    };
    if !in_order {
        let row = |i: &u32| &rows[*i as usize];
        order.sort_unstable_by(|a, b| row(a).cmp(row(b)));
    }
    Some(order)
}

/// Whether rows sorted by their packed keys (`places`, each key's rows in
/// the order they came) are in their [`Ord`] order: rows of different keys
/// are (the packing orders as the keys, and so does [`Keyed`]'s order), so
/// only neighbours of one key are compared. Loading every row in the
/// order found, all over the rows, was most of this step when the keys
/// are many.
fn in_order<T: Keyed, P: Copy>(
    rows: &[T],
    places: &[P],
    key: impl Fn(P) -> u128,
    arrival: impl Fn(P) -> usize,
) -> bool {
    places.windows(2).all(|w| {
        key(w[0]) != key(w[1]) || rows[arrival(w[0])] <= rows[arrival(w[1])]
    })
}

/// Bits of a radix sort's digit: its counts (8 KB) stay in the first-level
/// cache.
const DIGIT_BITS: u32 = 11;

/// Below this many rows a comparison sort of the packed keys is quicker
/// than the radix sort's passes over its counts.
const RADIX_ROWS: usize = 512;

/// How a partition's keys pack into a `u64` above the rows' arrival: each
/// field less its smallest value, in the bits its spread needs.
#[derive(Debug)]
struct NarrowKeys {
    least: [i32; 3],
    /// Where each field starts; the arrival takes the bits below `shift[2]`.
    shift: [u32; 3],
    /// The bits above the arrival's that hold the key.
    key_bits: u32,
}

impl NarrowKeys {
    /// The packing of `rows`' keys (1 to 2³² rows), if they fit 64 bits.
    fn of<T: Keyed>(rows: &[T]) -> Option<NarrowKeys> {
        let fields = |r: &T| {
            let (a, b, c) = r.key();
            [a, b, c]
        };
        let first = fields(rows.first()?);
        let (mut least, mut most) = (first, first);
        for r in rows {
            for (i, v) in fields(r).into_iter().enumerate() {
                least[i] = least[i].min(v);
                most[i] = most[i].max(v);
            }
        }
        let bits = |spread: u64| u64::BITS - spread.leading_zeros();
        let width: [u32; 3] =
            std::array::from_fn(|i| bits((i64::from(most[i]) - i64::from(least[i])) as u64));
        let arrival_bits = bits(rows.len() as u64 - 1);
        let key_bits = width.iter().sum::<u32>();
        if arrival_bits + key_bits > u64::BITS {
            return None;
        }
        let shift = [
            arrival_bits + width[2] + width[1],
            arrival_bits + width[2],
            arrival_bits,
        ];
        Some(NarrowKeys {
            least,
            shift,
            key_bits,
        })
    }

    /// The key `(a, b, c)` of the row that arrived `i`-th, packed.
    fn packed(&self, (a, b, c): (i32, i32, i32), i: usize) -> u64 {
        // (A field alike in every row may start at bit 64: it adds nothing.)
        let field = |n: usize, v: i32| {
            ((i64::from(v) - i64::from(self.least[n])) as u64)
                .checked_shl(self.shift[n])
                .unwrap_or(0)
        };
        field(0, a) | field(1, b) | field(2, c) | i as u64
    }

    /// The arrival of a packed key.
    fn arrival(&self, packed: u64) -> usize {
        (packed & ((1u64 << self.shift[2]) - 1)) as usize
    }
}

/// The order of `rows` by key, each key's rows in the order they came, by
/// sorting their narrow packed keys; and whether it is their [`Ord`] order.
fn group_by_narrow_key<T: Keyed>(rows: &[T], narrow: &NarrowKeys) -> (Vec<u32>, bool) {
    let mut places: Vec<u64> = (rows.iter().enumerate())
        .map(|(i, r)| narrow.packed(r.key(), i))
        .collect();
    if places.len() < RADIX_ROWS {
        places.sort_unstable();
    } else {
        radix_sort(&mut places, narrow.shift[2], narrow.key_bits);
    }
    // (The key: the bits above the arrival's, fewer than 64 of them.)
    let key = |p: u64| u128::from(p >> narrow.shift[2]);
    let sorted = in_order(rows, &places, key, |p| narrow.arrival(p));
    let order = places.iter().map(|&p| narrow.arrival(p) as u32).collect();
    (order, sorted)
}

/// Sorts `keys` by their bits `low .. low + bits`, stably (a least
/// significant digit first radix sort): keys equal there keep their order.
fn radix_sort(keys: &mut Vec<u64>, low: u32, bits: u32) {
    let mut moved = vec![0u64; keys.len()];
    let end = (low + bits).min(u64::BITS);
    let mut shift = low;
    while shift < end {
        let mask = (1u64 << DIGIT_BITS.min(end - shift)) - 1;
        let digit = |k: u64| ((k >> shift) & mask) as usize;
        let mut starts = [0u32; 1 << DIGIT_BITS];
        for &k in keys.iter() {
            starts[digit(k)] += 1;
        }
        // (A digit all keys share moves none.)
        if keys.first().is_some_and(|&k| starts[digit(k)] as usize != keys.len()) {
            let mut at = 0;
            for s in &mut starts {
                (*s, at) = (at, at + *s);
            }
            for &k in keys.iter() {
                let d = digit(k);
                moved[starts[d] as usize] = k;
                starts[d] += 1;
            }
            std::mem::swap(keys, &mut moved);
        }
        shift += DIGIT_BITS;
    }
}

/// The order of `rows` by key, each key's rows in the order they came
/// (fewer than 2³² rows); and whether it is their [`Ord`] order.
fn group_by_key<T: Keyed>(rows: &[T]) -> (Vec<u32>, bool) {
    let mut places: Vec<u128> = (rows.iter().enumerate())
        .map(|(i, r)| packed(r.key()) | i as u128)
        .collect();
    places.sort_unstable();
    let sorted = in_order(rows, &places, |p| p >> 32, |p| p as u32 as usize);
    (places.iter().map(|&p| p as u32).collect(), sorted)
}

/// Key `(a, b, c)` in the top 96 bits, ordered as the key is.
fn packed((a, b, c): (i32, i32, i32)) -> u128 {
    let bits = |v: i32| u128::from(v as u32 ^ 0x8000_0000);
    bits(a) << 96 | bits(b) << 64 | bits(c) << 32
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

    /// `rows` read in `order`.
    fn in_order(rows: &[TestRow], order: &[u32]) -> Vec<TestRow> {
        order.iter().map(|&i| rows[i as usize]).collect()
    }

    /// `rows` in the order [`sort_by_key`] gives.
    fn sorted_by_key(rows: &[TestRow]) -> Vec<TestRow> {
        let mut sorted = rows.to_vec();
        match sort_by_key(&mut sorted) {
            Some(order) => in_order(&sorted, &order),
            None => sorted,
        }
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
            let rows = arriving_in_order(&mut rng, n, keys);
            let want = sorted_by_comparing(&rows);
            // (In order without the check's full sort, and found so.)
            let (order, sorted) = group_by_key(&rows);
            assert_eq!(in_order(&rows, &order), want, "{n} rows over {keys} keys");
            assert!(sorted, "{n} rows over {keys} keys: found in order");
            if let Some(narrow) = NarrowKeys::of(&rows) {
                let (order, sorted) = group_by_narrow_key(&rows, &narrow);
                let grouped = in_order(&rows, &order);
                assert_eq!(grouped, want, "{n} rows over {keys} keys, packed narrow");
                assert!(sorted, "{n} rows over {keys} keys, packed narrow: found in order");
            }
            assert_eq!(sorted_by_key(&rows), want, "{n} rows over {keys} keys");
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
            assert_eq!(sorted_by_key(&rows), want, "swapped, {keys} keys");
            // (Swapped rows of one key are found out of order.)
            let found = |rows: &[TestRow]| {
                let narrow = NarrowKeys::of(rows).map(|n| group_by_narrow_key(rows, &n).1);
                (group_by_key(rows).1, narrow.unwrap_or(false))
            };
            if keys == 1 {
                assert_eq!(found(&rows), (false, false), "swapped, one key");
            }
            for i in (1..rows.len()).rev() {
                rows.swap(i, rng.below(i as u64 + 1) as usize);
            }
            assert_eq!(sorted_by_key(&rows), want, "shuffled, {keys} keys");
        }
    }

    /// The radix sort orders by the bits asked for alone, and keeps the
    /// order of keys equal there; digits all keys share are skipped.
    #[test]
    fn the_radix_sort_orders_by_its_bits_stably() {
        let mut rng = Xorshift::new(0x1234_5678_9abc_def1);
        for (n, low, bits) in [(0, 0, 64), (1, 3, 20), (5000, 13, 27), (5000, 0, 64), (3000, 40, 5)] {
            let mut keys: Vec<u64> = (0..n).map(|_| rng.next()).collect();
            // (Some keys alike in the sorted bits, and a digit shared.)
            for i in (0..keys.len()).step_by(7) {
                keys[i] &= !(0x7ffu64 << low.min(53));
            }
            let in_bits = |k: u64| (k >> low) & (u64::MAX >> (64 - bits));
            let mut want = keys.clone();
            want.sort_by_key(|&k| in_bits(k));
            radix_sort(&mut keys, low, bits);
            assert_eq!(keys, want, "{n} keys, bits {low}..{}", low + bits);
        }
    }

    /// Keys pack narrow when their spread and the arrival fit 64 bits,
    /// ordered as the keys, with the arrival below; wider ones do not.
    #[test]
    fn narrow_keys_pack_in_order_or_not_at_all() {
        let row = |key| TestRow {
            key,
            place: 0,
            payload: 0,
        };
        let rows: Vec<TestRow> = [(-3, 9, i32::MIN), (-3, 9, i32::MAX), (4, -1, 0), (-3, 10, 7)]
            .into_iter()
            .map(row)
            .collect();
        let narrow = NarrowKeys::of(&rows).unwrap();
        assert_eq!(narrow.key_bits, 3 + 4 + 32);
        let packed: Vec<u64> = (rows.iter().enumerate())
            .map(|(i, r)| narrow.packed(r.key, i))
            .collect();
        assert!(packed[0] < packed[1] && packed[1] < packed[3] && packed[3] < packed[2]);
        let arrivals: Vec<usize> = packed.iter().map(|&p| narrow.arrival(p)).collect();
        assert_eq!(arrivals, [0, 1, 2, 3]);
        let wide = [(i32::MIN, i32::MIN, 0), (i32::MAX, i32::MAX, 1)].map(row);
        assert!(NarrowKeys::of(&wide).is_none());
        assert!(NarrowKeys::of::<TestRow>(&[]).is_none());
        // The first field alike in every row and the others filling all
        // 64 bits: it sits at bit 64, out of the word.
        let full = [(5, i32::MIN, 0), (5, 0, 1 << 30)].map(row);
        let narrow = NarrowKeys::of(&full).unwrap();
        assert_eq!(narrow.key_bits + 1, 64);
        assert!(narrow.packed(full[0].key, 0) < narrow.packed(full[1].key, 1));
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
