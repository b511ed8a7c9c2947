//! The format-neutral shape of a human-readable report: lines of text and
//! tables, in order. A report builds a [`Document`] once; the text renderer
//! ([`super::text`]) and the CSV renderer ([`super::csv`]) write it. Rows are
//! produced lazily, so a report of a million rows is never held as text.

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
}

impl Column {
    pub fn left(header: impl Into<String>, width: usize) -> Self {
        Column {
            header: header.into(),
            align: Align::Left,
            width,
            gap: " ",
        }
    }

    pub fn right(header: impl Into<String>, width: usize) -> Self {
        Column {
            header: header.into(),
            align: Align::Right,
            width,
            gap: " ",
        }
    }

    /// The same column after `gap` instead of one blank.
    pub fn after(mut self, gap: &'static str) -> Self {
        self.gap = gap;
        self
    }
}

/// Rows of cells, produced as they are written.
pub type Rows<'a> = Box<dyn Iterator<Item = Vec<String>> + 'a>;

/// A table: columns and the rows under them.
pub struct Table<'a> {
    pub columns: Vec<Column>,
    /// Whether the header line is written (a matrix labels its own columns).
    pub header: bool,
    pub rows: Rows<'a>,
}

impl<'a> Table<'a> {
    pub fn new(columns: Vec<Column>, rows: impl Iterator<Item = Vec<String>> + 'a) -> Self {
        Table {
            columns,
            header: true,
            rows: Box::new(rows),
        }
    }

    /// The same table without its header line.
    pub fn headless(mut self) -> Self {
        self.header = false;
        self
    }
}

/// One piece of a document.
pub enum Block<'a> {
    /// A line of text (without its newline).
    Line(String),
    /// Columns of fixed least width.
    Table(Table<'a>),
    /// A table laid out by comfy-table: on a terminal it fits the width
    /// (long names wrap); elsewhere it is never wrapped
    /// ([`super::table::TableStyle`]).
    Fitted(comfy_table::Table),
}

/// A human-readable report: lines and tables in order.
#[derive(Default)]
pub struct Document<'a> {
    pub blocks: Vec<Block<'a>>,
}

impl<'a> Document<'a> {
    pub fn new() -> Self {
        Document { blocks: Vec::new() }
    }

    pub fn line(&mut self, text: impl Into<String>) -> &mut Self {
        self.blocks.push(Block::Line(text.into()));
        self
    }

    pub fn table(&mut self, table: Table<'a>) -> &mut Self {
        self.blocks.push(Block::Table(table));
        self
    }

    pub fn fitted(&mut self, table: comfy_table::Table) -> &mut Self {
        self.blocks.push(Block::Fitted(table));
        self
    }
}
