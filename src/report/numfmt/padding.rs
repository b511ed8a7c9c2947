//! Blanks and tree indents for the text layouts: widths that come from the
//! data, written without format widths (which panic past 65,535).

/// `n` blanks. Widths that come from the data (a depth times an indent, a
/// name's length) go through this, not through a format width: `{:n$}`
/// panics past 65,535.
#[derive(Debug, Clone, Copy)]
pub struct Blanks(pub usize);

impl std::fmt::Display for Blanks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const CHUNK: &str = "                                                                ";
        let mut left = self.0;
        while left > 0 {
            let n = left.min(CHUNK.len());
            f.write_str(&CHUNK[..n])?;
            left -= n;
        }
        Ok(())
    }
}

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
    fn deep_trees_say_their_depth() {
        assert_eq!(Blanks(3).to_string(), "   ");
        assert_eq!(TreeIndent::new(2).to_string(), "    ");
        let deep = TreeIndent::new(MAX_TREE_INDENT + 1);
        assert_eq!(deep.width(), deep.to_string().len());
        assert!(deep.to_string().ends_with("[depth 257] "));
    }
}
