//! Blanks and tree indents for the text layouts: widths that come from the
//! data, written without format widths (which panic past 65,535).

/// `n` blanks. Widths that come from the data (a depth times an indent, a
/// name's length) go through this, not through a format width: `{:n$}`
/// panics past 65,535.
#[derive(Debug, Clone, Copy)]
pub struct Blanks(pub usize);

impl std::fmt::Display for Blanks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut left = self.0;
        while left > 0 {
            let n = left.min(CHUNK.len());
            f.write_str(&CHUNK[..n])?;
            left -= n;
        }
        Ok(())
    }
}

impl Blanks {
    /// The blanks written at the end of `w` (no formatting machinery: big
    /// trees write one per line).
    pub fn push_to(self, w: &mut String) {
        let mut left = self.0;
        while left > 0 {
            let n = left.min(CHUNK.len());
            w.push_str(&CHUNK[..n]);
            left -= n;
        }
    }
}

/// Right-aligns what was written to `w` since byte `start` in `width`
/// characters, as `{:>width$}` would: blanks before it when it is
/// shorter.
pub fn align_right(w: &mut String, start: usize, width: usize) {
    // Characters: bytes that do not continue a UTF-8 sequence (a loop
    // the compiler keeps inline, for the few bytes of a number).
    let written = w.as_bytes()[start..].iter().filter(|&&b| (b as i8) >= -0x40).count();
    if written < width {
        let blanks = width - written;
        w.insert_str(start, &CHUNK[..blanks.min(CHUNK.len())]);
        if blanks > CHUNK.len() {
            w.insert_str(start, &" ".repeat(blanks - CHUNK.len()));
        }
    }
}

/// Blanks written at a time.
const CHUNK: &str = "                                                                ";

/// Levels of indent at most in the text trees (real call trees nest a few
/// dozen deep): deeper lines stay at this indent and say their depth, so a
/// tree thousands deep does not grow with the square of its depth.
pub const MAX_TREE_INDENT: usize = 256;

/// A tree line's indent: `blanks_per_level` blanks per level; past
/// [`MAX_TREE_INDENT`] levels, those levels' blanks and `[depth N] `
/// (nothing at zero blanks per level: such lines show no depth at all).
#[derive(Debug, Clone, Copy)]
pub struct TreeIndent {
    pub depth: usize,
    pub blanks_per_level: usize,
    /// Levels indented at most (deeper lines say their depth).
    pub max_levels: usize,
}

impl TreeIndent {
    /// Two blanks per level, the text trees' indent.
    pub fn new(depth: usize) -> Self {
        TreeIndent::with_blanks(depth, 2)
    }

    /// `blanks_per_level` blanks per level, up to [`MAX_TREE_INDENT`].
    pub fn with_blanks(depth: usize, blanks_per_level: usize) -> Self {
        TreeIndent {
            depth,
            blanks_per_level,
            max_levels: MAX_TREE_INDENT,
        }
    }

    /// The indent within `room` characters: fewer levels indented (the
    /// rest said by `[depth N]`) when the whole indent would not fit.
    pub fn within(self, room: usize) -> Self {
        if self.width() <= room || self.blanks_per_level == 0 {
            return self;
        }
        let marker = format!("[depth {}] ", self.depth).len();
        let levels = room.saturating_sub(marker) / self.blanks_per_level;
        TreeIndent {
            max_levels: levels.min(self.max_levels),
            ..self
        }
    }

    /// Characters written.
    pub fn width(&self) -> usize {
        let levels = self.depth.min(self.max_levels);
        let marker = if self.depth > self.max_levels && self.blanks_per_level > 0 {
            format!("[depth {}] ", self.depth).len()
        } else {
            0
        };
        levels.saturating_mul(self.blanks_per_level) + marker
    }
}

impl TreeIndent {
    /// The indent written at the end of `w`, as its `Display` writes it.
    pub fn push_to(&self, w: &mut String) {
        let levels = self.depth.min(self.max_levels);
        Blanks(levels.saturating_mul(self.blanks_per_level)).push_to(w);
        if self.depth > self.max_levels && self.blanks_per_level > 0 {
            // Writing into a String cannot fail.
            let _ = std::fmt::Write::write_fmt(w, format_args!("[depth {}] ", self.depth));
        }
    }
}

impl std::fmt::Display for TreeIndent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let levels = self.depth.min(self.max_levels);
        write!(
            f,
            "{}",
            Blanks(levels.saturating_mul(self.blanks_per_level))
        )?;
        if self.depth > self.max_levels && self.blanks_per_level > 0 {
            write!(f, "[depth {}] ", self.depth)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_right_as_a_format_width() {
        for (text, width) in [("1.234 µs", 10), ("12345678901", 10), ("x", 70), ("", 3)] {
            let mut w = String::from("ab");
            w.push_str(text);
            align_right(&mut w, 2, width);
            assert_eq!(w, format!("ab{text:>width$}"));
        }
        for depth in [0, 3, MAX_TREE_INDENT + 2] {
            let indent = TreeIndent::new(depth);
            let mut w = String::new();
            indent.push_to(&mut w);
            assert_eq!(w, indent.to_string());
        }
    }

    #[test]
    fn deep_trees_say_their_depth() {
        assert_eq!(Blanks(3).to_string(), "   ");
        assert_eq!(TreeIndent::new(2).to_string(), "    ");
        let deep = TreeIndent::new(MAX_TREE_INDENT + 1);
        assert_eq!(deep.width(), deep.to_string().len());
        assert!(deep.to_string().ends_with("[depth 257] "));
    }
}
