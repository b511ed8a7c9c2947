//! Progress bars on stderr for long work: shown only when stderr is a
//! terminal and `-q` is not given; hidden (`ProgressBar::hidden`) otherwise.
//! The library reports through [`crate::progress::Progress`] hooks and
//! knows nothing about terminals.

use crate::progress::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::context::Context;

/// One bar; cleared from the screen when dropped.
pub struct Bar<'c> {
    bar: ProgressBar,
    ctx: &'c Context,
}

impl<'c> Bar<'c> {
    pub(crate) fn new(ctx: &'c Context, visible: bool, len: u64, what: &str, unit: &str) -> Self {
        let bar = if visible {
            let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
            let template =
                format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{elapsed}}, eta {{eta}})");
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(what.to_owned());
            bar
        } else {
            ProgressBar::hidden()
        };
        Bar { bar, ctx }
    }

    /// A hook for the library: advances this bar (nothing once it is done).
    pub fn hook(&self) -> Progress {
        if self.bar.is_hidden() {
            return Progress::none();
        }
        let bar = self.bar.clone();
        Progress::new(move |n| {
            if !bar.is_finished() {
                // (Never past the end: a pass that gives up is followed
                // by another over the same units.)
                let room = bar
                    .length()
                    .map_or(n, |len| len.saturating_sub(bar.position()));
                bar.inc(n.min(room));
            }
        })
    }

    pub(crate) fn progress_bar(&self) -> ProgressBar {
        self.bar.clone()
    }
}

impl Drop for Bar<'_> {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
        self.ctx.bar_done();
    }
}
