//! `regress --format markdown`: a comment for a pull request (GitHub,
//! GitLab): a one-line verdict, the caveats, and a table of the timers
//! that changed or could not be told (every timer with `--all`).

use std::io::{self, Write};

use super::{
    RegressReport, change_text, ci_text, name, percent, prob, seconds, verdict_text,
};
use crate::analysis::regress::verdict::Verdict;
use crate::report::escape::visible;

/// A name for a Markdown table cell: control characters visible, and the
/// characters that would end the cell or start markup escaped.
fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&visible(c.encode_utf8(&mut [0; 4])));
            continue;
        }
        if matches!(c, '|' | '\\' | '`' | '*' | '_' | '<' | '>' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub fn write(r: &RegressReport, w: &mut dyn Write) -> io::Result<()> {
    let verdict = if r.regress.any_slower() {
        "**Performance regression**"
    } else {
        "No performance regression found"
    };
    writeln!(w, "### profparse regress: {verdict}\n")?;
    writeln!(w, "{}\n", r.heading())?;
    for c in r.caveats() {
        writeln!(w, "> {c}\n")?;
    }
    let listed: Vec<_> = r.listed().collect();
    if !listed.is_empty() {
        writeln!(w, "| Timer | Base | New | Change | 95 % CI | p | q | Verdict |")?;
        writeln!(w, "|:--|--:|--:|--:|--:|--:|--:|:--|")?;
        for t in listed {
            let v = verdict_text(t);
            let v = match t.verdict {
                Verdict::Slower | Verdict::Faster => format!("**{v}**"),
                _ => v,
            };
            writeln!(
                w,
                "| {} | {} | {} | {} | {} | {} | {} | {v} |",
                cell(&name(t)),
                seconds(t.base_median),
                seconds(t.new_median),
                change_text(t),
                ci_text(t),
                prob(t.p),
                prob(t.q),
            )?;
        }
        writeln!(w)?;
    }
    let floor = percent(r.regress.options.thresholds.min_change);
    writeln!(
        w,
        "{}. A timer is *slower* when it changed by more than {} with q < {} \
         (Benjamini–Hochberg over all timers); see docs/REGRESS.md.",
        r.tally(),
        floor.trim_start_matches('+'),
        prob(Some(r.regress.options.thresholds.alpha))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_the_table() {
        assert_eq!(cell("a|b`c"), "a\\|b\\`c");
        assert_eq!(cell("x\ny"), "x\\ny");
        assert_eq!(cell("Vec<T>::push"), "Vec\\<T\\>::push");
    }
}
