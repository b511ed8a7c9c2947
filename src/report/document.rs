//! The format-neutral shape of a human-readable report: lines of text and
//! tables, in order. A report builds a [`Document`] once; the text renderer
//! ([`crate::report::renderers::text`]) and the CSV renderer
//! ([`crate::report::renderers::csv`]) write it. Rows are produced lazily, so a
//! report of a million rows is never held as text.
//!
//! At the level of `report/`, not in `render/`: it is the seam between the
//! two, the value every report builds and every renderer of text reads;
//! inside `render/`, each report would import its data type from the
//! renderers.

/// Longest cell, in bytes, a table for people shows whole. Every row of a
/// column is padded to its longest cell: one name of 40 MB (damaged or
/// hostile data) made a table of gigabytes. JSON and CSV keep such names.
pub const MAX_CELL_BYTES: usize = 1000;

/// `text` as a table for people shows it: whole up to [`MAX_CELL_BYTES`],
/// beyond that cut at a character boundary, with the number of characters
/// left out.
pub fn shortened_cell(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_CELL_BYTES {
        return text.into();
    }
    let mut cut = MAX_CELL_BYTES - 100;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let hidden = text[cut..].chars().count();
    format!("{}… ({hidden} more characters)", &text[..cut]).into()
}

/// How a cell sits in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One column of a [`Table`].
#[derive(Debug, Clone)]
pub struct Column {
    pub header: String,
    pub align: Align,
    /// The least width of the column in characters; longer cells overflow
    /// it rather than being cut.
    pub width: usize,
    /// What separates this column from the one before it (ignored for the
    /// first column).
    pub gap: &'static str,
    /// When the table is wider than the output: whether cells may be
    /// shortened in the middle (names; left-aligned columns by default).
    pub shrink: bool,
    /// When the table is wider than the output: which columns go first
    /// (higher earlier; 0, the default, never).
    pub drop_rank: u8,
    /// Cells are call paths ([`crate::report::layout::call_path::cell`]): shortened by
    /// whole frames, different paths kept apart.
    pub path: bool,
}

impl Column {
    pub fn left(header: impl Into<String>, width: usize) -> Self {
        Column {
            header: header.into(),
            align: Align::Left,
            width,
            gap: " ",
            shrink: true,
            drop_rank: 0,
            path: false,
        }
    }

    /// A column of call paths ([`crate::report::layout::call_path::cell`] cells), left
    /// aligned.
    pub fn path(header: impl Into<String>, width: usize) -> Self {
        Column {
            path: true,
            ..Column::left(header, width)
        }
    }

    pub fn right(header: impl Into<String>, width: usize) -> Self {
        Column {
            header: header.into(),
            align: Align::Right,
            width,
            gap: " ",
            shrink: false,
            drop_rank: 0,
            path: false,
        }
    }

    /// The same column after `gap` instead of one blank.
    pub fn after(mut self, gap: &'static str) -> Self {
        self.gap = gap;
        self
    }

    /// The same column, dropped when the table is too wide: `rank` orders
    /// the dropped columns (higher first).
    pub fn droppable(mut self, rank: u8) -> Self {
        self.drop_rank = rank;
        self
    }

    /// The same column, never shortened (identifiers that must stay whole).
    pub fn whole(mut self) -> Self {
        self.shrink = false;
        self
    }
}

/// Rows of cells, produced as they are written, each into a row the
/// renderer keeps from one row to the next: a table filled cell by cell
/// ([`Table::filled`]) allocates no string per cell (a table of a row per
/// process made a string per cell, 130,000 at 16,384 processes, each
/// allocated and freed on the thread that writes the output).
pub struct Rows<'a>(Box<NextRow<'a>>);

/// Puts the next row's cells in a row; `false` after the last row.
type NextRow<'a> = dyn FnMut(&mut Vec<String>) -> bool + 'a;

impl<'a> Rows<'a> {
    /// Rows made whole, one `Vec` each.
    pub fn whole(rows: impl Iterator<Item = Vec<String>> + 'a) -> Self {
        let mut rows = rows;
        Rows(Box::new(move |row| match rows.next() {
            Some(next) => {
                *row = next;
                true
            }
            None => false,
        }))
    }

    /// Puts the next row's cells in `row` (in place of its cells); `false`
    /// after the last row.
    pub fn next_into(&mut self, row: &mut Vec<String>) -> bool {
        (self.0)(row)
    }
}

/// The cells of one row of a [`Table::filled`], written in order into the
/// strings of the row before.
pub struct Cells<'r> {
    row: &'r mut Vec<String>,
    written: usize,
}

impl Cells<'_> {
    /// The next cell, empty, to write into.
    pub fn next(&mut self) -> &mut String {
        if self.written == self.row.len() {
            self.row.push(String::new());
        }
        let cell = &mut self.row[self.written];
        cell.clear();
        self.written += 1;
        cell
    }

    /// The next cell: `text`.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.next().push_str(text);
        self
    }

    /// The next cell: the integer `n` in decimal.
    pub fn int(&mut self, n: impl itoa::Integer) -> &mut Self {
        self.next().push_str(itoa::Buffer::new().format(n));
        self
    }
}

/// A table: columns and the rows under them.
pub struct Table<'a> {
    /// The columns, left to right.
    pub columns: Vec<Column>,
    /// Whether the header line is written (a matrix labels its own columns).
    pub header: bool,
    /// The rows, made as they are written.
    pub rows: Rows<'a>,
}

impl<'a> Table<'a> {
    /// A table with a header line.
    pub fn new(columns: Vec<Column>, rows: impl Iterator<Item = Vec<String>> + 'a) -> Self {
        Table {
            columns,
            header: true,
            rows: Rows::whole(rows),
        }
    }

    /// A table with a header line and a row per item, its cells written by
    /// `fill` in column order (a long table: no string per cell).
    pub fn filled<T>(
        columns: Vec<Column>,
        items: impl Iterator<Item = T> + 'a,
        mut fill: impl FnMut(T, &mut Cells<'_>) + 'a,
    ) -> Self {
        let mut items = items;
        let rows = Rows(Box::new(move |row| {
            let Some(item) = items.next() else {
                return false;
            };
            let mut cells = Cells { row, written: 0 };
            fill(item, &mut cells);
            let written = cells.written;
            row.truncate(written);
            true
        }));
        Table {
            columns,
            header: true,
            rows,
        }
    }

    /// The same table without its header line.
    pub fn headless(mut self) -> Self {
        self.header = false;
        self
    }
}

/// How a comfy-table table fits a width too small for it.
#[derive(Debug, Clone)]
pub struct FitRule {
    /// The column shortened in the middle (names), if any.
    pub shrink: Option<usize>,
    /// One rank per column: which go first (higher earlier, 0 or missing
    /// never).
    pub drop_ranks: Vec<u8>,
}

impl Default for FitRule {
    fn default() -> Self {
        FitRule {
            shrink: Some(0),
            drop_ranks: Vec::new(),
        }
    }
}

/// One piece of a document.
pub enum Block<'a> {
    /// A line of text (without its newline).
    Line(String),
    /// Sentences: wrapped at blanks to the output's width.
    Prose(String),
    /// An item of a list: prose indented, its further lines under its
    /// text.
    Item(String),
    /// Columns of fixed least width.
    Table(Table<'a>),
    /// A table laid out by comfy-table, fitted to the output's width by
    /// the same rule as [`Table`]s.
    Fitted(Box<comfy_table::Table>, FitRule),
}

/// A human-readable report: lines and tables in order.
#[derive(Default)]
pub struct Document<'a> {
    /// The lines and tables, in order.
    pub blocks: Vec<Block<'a>>,
}

impl<'a> Document<'a> {
    /// An empty document.
    pub fn new() -> Self {
        Document { blocks: Vec::new() }
    }

    /// A line, written as it is.
    pub fn line(&mut self, text: impl Into<String>) -> &mut Self {
        self.blocks.push(Block::Line(text.into()));
        self
    }

    /// Sentences for people, wrapped to the output's width (a [`line`]
    /// is written as it is).
    ///
    /// [`line`]: Document::line
    pub fn prose(&mut self, text: impl Into<String>) -> &mut Self {
        self.blocks.push(Block::Prose(text.into()));
        self
    }

    /// An item of a list (one finding, one note), wrapped to the
    /// output's width like [`prose`], indented.
    ///
    /// [`prose`]: Document::prose
    pub fn item(&mut self, text: impl Into<String>) -> &mut Self {
        self.blocks.push(Block::Item(text.into()));
        self
    }

    /// A table, aligned by the text renderer.
    pub fn table(&mut self, table: Table<'a>) -> &mut Self {
        self.blocks.push(Block::Table(table));
        self
    }

    /// A comfy-table table whose first column is shortened when it is too
    /// wide, and no column dropped.
    pub fn fitted(&mut self, table: comfy_table::Table) -> &mut Self {
        self.fitted_by(table, FitRule::default())
    }

    /// A comfy-table table fitted to the width by `rule`.
    pub fn fitted_by(&mut self, table: comfy_table::Table, rule: FitRule) -> &mut Self {
        self.blocks.push(Block::Fitted(Box::new(table), rule));
        self
    }
}
