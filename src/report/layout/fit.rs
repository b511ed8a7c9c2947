//! Tables that fit a width: the name column is shortened in the middle
//! (`amrex::Fab…::ParallelCopy`), and when that is not enough, columns are
//! dropped, least important first. Never wrapped: one row stays one line,
//! so the output stays easy to read and to grep.

/// Least width a shortened column keeps: below it a name no longer says
/// which function it is, and dropping a column is the better trade.
pub const MIN_SHORTENED: usize = 24;

/// A column as the fitting sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FitColumn {
    /// Widest cell (header included), in characters.
    pub width: usize,
    /// Characters between this column and the one before it (0 for the
    /// first).
    pub gap: usize,
    /// Which columns go first when the table is too wide: higher goes
    /// earlier; 0 is never dropped.
    pub drop_rank: u8,
    /// Whether cells may be shortened in the middle (names).
    pub shrink: bool,
}

/// How a table is laid out within a width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fit {
    /// Per column: whether it is shown.
    pub shown: Vec<bool>,
    /// Per column: the most characters a cell shows (`usize::MAX`: whole).
    pub limit: Vec<usize>,
}

impl Fit {
    /// Every column whole: no width to fit.
    pub fn whole(n: usize) -> Self {
        Fit {
            shown: vec![true; n],
            limit: vec![usize::MAX; n],
        }
    }

    /// Whether the layout leaves out or shortens anything.
    pub fn changes_anything(&self) -> bool {
        self.shown.iter().any(|s| !s) || self.limit.iter().any(|&l| l != usize::MAX)
    }
}

/// The layout of `columns` within `width` characters (`None`: unlimited).
/// Shrinkable columns are shortened first, down to [`MIN_SHORTENED`];
/// then columns are dropped by `drop_rank`, and what is freed goes back to
/// the shrinkable columns. A table that cannot fit even so keeps what
/// cannot be dropped and overflows.
pub fn fit(columns: &[FitColumn], width: Option<usize>) -> Fit {
    let mut layout = Fit::whole(columns.len());
    let Some(width) = width else {
        return layout;
    };
    let total = |shown: &[bool], shrunk: bool| -> usize {
        columns
            .iter()
            .zip(shown)
            .enumerate()
            .filter(|(_, (_, s))| **s)
            .map(|(i, (c, _))| {
                let w = if shrunk && c.shrink {
                    c.width.min(MIN_SHORTENED)
                } else {
                    c.width
                };
                // The first shown column has no gap before it.
                w + if i == first_shown(shown) { 0 } else { c.gap }
            })
            .sum()
    };
    if total(&layout.shown, false) <= width {
        return layout;
    }
    // Drop columns, highest rank first (the rightmost of equal ranks),
    // until the shortened table fits.
    let mut order: Vec<usize> = (0..columns.len())
        .filter(|&i| columns[i].drop_rank > 0)
        .collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(columns[i].drop_rank),
            std::cmp::Reverse(i),
        )
    });
    for i in order {
        if total(&layout.shown, true) <= width {
            break;
        }
        layout.shown[i] = false;
    }
    let short = total(&layout.shown, true);
    if short > width {
        // Nothing left to drop: the names give up more, down to
        // [`LAST_RESORT`] characters, before the table overflows.
        let mut over = short - width;
        for (i, c) in columns.iter().enumerate() {
            let least = c.width.min(MIN_SHORTENED);
            if layout.shown[i] && c.shrink && least > LAST_RESORT && over > 0 {
                let cut = (least - LAST_RESORT).min(over);
                over -= cut;
                layout.limit[i] = least - cut;
            }
        }
        return layout;
    }
    // Share the room left among the shrinkable columns, in order.
    let mut room = width - short;
    for (i, c) in columns.iter().enumerate() {
        if layout.shown[i] && c.shrink && c.width > MIN_SHORTENED {
            let extra = (c.width - MIN_SHORTENED).min(room);
            room -= extra;
            let limit = MIN_SHORTENED + extra;
            if limit < c.width {
                layout.limit[i] = limit;
            }
        }
    }
    layout
}

/// Least width of a shortened name when nothing else can give way.
pub const LAST_RESORT: usize = 12;

fn first_shown(shown: &[bool]) -> usize {
    shown.iter().position(|&s| s).unwrap_or(0)
}

/// `text` in at most `limit` characters: whole when it fits, else its
/// start and end around `…` (the end names the function in a qualified
/// name, the start its namespace).
pub fn middle_ellipsis(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    let n = text.chars().count();
    if n <= limit {
        return text.into();
    }
    if limit == 0 {
        return "".into();
    }
    let keep = limit - 1;
    let tail = keep / 2;
    let head = keep - tail;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(n - tail).collect();
    format!("{start}…{end}").into()
}

/// The table width for people: `COLUMNS` when set (shells set it for
/// their own width), else the terminal's when `terminal`, else 100.
pub fn default_width(terminal: bool) -> usize {
    const NOT_A_TERMINAL: usize = 100;
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or_else(|| terminal.then(terminal_width).flatten())
        .unwrap_or(NOT_A_TERMINAL)
}

/// The width of the terminal on standard output, if it is one.
fn terminal_width() -> Option<usize> {
    comfy_table::Table::new()
        .width()
        .map(usize::from)
        .filter(|&w| w > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(width: usize, drop_rank: u8, shrink: bool) -> FitColumn {
        FitColumn {
            width,
            gap: 1,
            drop_rank,
            shrink,
        }
    }

    #[test]
    fn a_table_that_fits_is_left_whole() {
        let cols = [col(10, 0, true), col(8, 1, false)];
        assert_eq!(fit(&cols, Some(19)), Fit::whole(2));
        assert_eq!(fit(&cols, None), Fit::whole(2));
    }

    #[test]
    fn names_are_shortened_before_columns_are_dropped() {
        let cols = [col(60, 0, true), col(8, 1, false), col(8, 2, false)];
        let f = fit(&cols, Some(50));
        assert_eq!(f.shown, vec![true, true, true]);
        assert_eq!(f.limit[0], 50 - 18);
    }

    #[test]
    fn columns_are_dropped_by_rank_then_names_take_the_room() {
        let cols = [col(60, 0, true), col(10, 1, false), col(10, 2, false)];
        // 24 + 11 + 11 = 46 > 40: the rank-2 column goes; 24 + 11 = 35.
        let f = fit(&cols, Some(40));
        assert_eq!(f.shown, vec![true, true, false]);
        assert_eq!(f.limit[0], 29);
        // Nothing droppable left: the name gives up more, then the table
        // overflows.
        let f = fit(&cols, Some(20));
        assert_eq!(f.shown, vec![true, false, false]);
        assert_eq!(f.limit[0], 20);
        let f = fit(&cols, Some(5));
        assert_eq!(f.limit[0], LAST_RESORT);
    }

    #[test]
    fn middle_ellipsis_keeps_both_ends() {
        assert_eq!(middle_ellipsis("abcdefghij", 10), "abcdefghij");
        assert_eq!(middle_ellipsis("abcdefghij", 5), "ab…ij");
        assert_eq!(middle_ellipsis("abcdefghij", 6), "abc…ij");
        assert_eq!(middle_ellipsis("µµµµµµ", 3), "µ…µ");
        assert_eq!(middle_ellipsis("abc", 0), "");
    }
}
