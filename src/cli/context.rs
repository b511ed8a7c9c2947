//! Run-wide state of one invocation: how to show warnings, and the exit code.

use crate::report::escape::visible;
use std::cell::{Cell, RefCell};
use std::process::ExitCode;

use crate::{Error, Warning, WarningKind};

use crate::cli::args::GlobalArgs;
use crate::cli::progress::Bar;

/// Exit codes scripts can rely on (docs/ERRORS.md).
pub const EXIT_OK: u8 = 0;
pub const EXIT_DATA: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
/// The report was produced, but the input was damaged or suspicious: see the warnings.
pub const EXIT_PARTIAL: u8 = 3;

/// Skipped-block warnings printed before the rest are only counted (a
/// data file shared by thousands of processes, cut short, skips a block of
/// each).
const SKIPPED_BLOCKS_SHOWN: usize = 10;

/// Outputs estimated above this many bytes need `--force` (the environment
/// variable `PROFPARSE_OUTPUT_LIMIT` sets another number of bytes).
pub const OUTPUT_LIMIT: u64 = 2 << 30;

pub struct Context {
    pub strict: bool,
    pub force: bool,
    output_limit: u64,
    pub quiet: bool,
    pub verbose: u8,
    warnings: Cell<usize>,
    /// Skipped-block warnings seen, and how many of them were not printed.
    skipped_blocks: Cell<(usize, usize)>,
    /// The warnings' texts, for reports that list them (JSON `warnings`).
    texts: RefCell<Vec<String>>,
    /// The bar on screen, if any: messages on stderr are printed around it.
    bar: RefCell<Option<indicatif::ProgressBar>>,
}

impl Context {
    pub fn new(args: &GlobalArgs) -> Self {
        Context {
            strict: args.strict,
            force: args.force,
            output_limit: std::env::var("PROFPARSE_OUTPUT_LIMIT")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(OUTPUT_LIMIT),
            quiet: args.quiet,
            verbose: args.verbose,
            warnings: Cell::new(0),
            skipped_blocks: Cell::new((0, 0)),
            texts: RefCell::new(Vec::new()),
            bar: RefCell::new(None),
        }
    }

    /// Prints one warning (unless `-q`) and counts it for `--strict`; a
    /// note (a known quirk of healthy data) is printed but not counted.
    pub fn warn(&self, w: &Warning) {
        if w.is_note() {
            if !self.quiet {
                self.stderr(|| eprintln!("note: {}", visible(&w.to_string())));
            }
            return;
        }
        self.warnings.set(self.warnings.get() + 1);
        self.texts.borrow_mut().push(w.to_string());
        if w.kind == WarningKind::SkippedBlock {
            let (seen, hidden) = self.skipped_blocks.get();
            if seen >= SKIPPED_BLOCKS_SHOWN && self.verbose == 0 {
                self.skipped_blocks.set((seen + 1, hidden + 1));
                return;
            }
            self.skipped_blocks.set((seen + 1, hidden));
        }
        if !self.quiet {
            self.stderr(|| eprintln!("warning: {}", visible(&w.to_string())));
        }
    }

    /// The warnings so far, as text.
    pub fn warning_texts(&self) -> Vec<String> {
        self.texts.borrow().clone()
    }

    pub fn warn_all<'a>(&self, ws: impl IntoIterator<Item = &'a Warning>) {
        for w in ws {
            self.warn(w);
        }
    }

    /// Refuses (a usage error, exit 2) an output estimated at more than
    /// [`OUTPUT_LIMIT`] bytes (by default) unless `--force` was given; `advice` says how
    /// to make it smaller.
    pub fn guard_output(&self, estimate: u64, what: &str, advice: &str) -> anyhow::Result<()> {
        if estimate <= self.output_limit || self.force {
            return Ok(());
        }
        Err(self.output_refusal(estimate, what, advice).into())
    }

    /// The refusal of [`Context::guard_output`], for writers that find out
    /// on the way ([`Context::output_budget`]).
    pub fn output_refusal(
        &self,
        estimate: u64,
        what: &str,
        advice: &str,
    ) -> crate::cli::output::UsageError {
        crate::cli::output::UsageError(format!(
            "{what} would write about {} (more than {}); {advice}, or pass --force to write it anyway",
            crate::report::numfmt::human::bytes(estimate),
            crate::report::numfmt::human::bytes(self.output_limit)
        ))
    }

    /// The bytes an output may take without `--force`: what writers that
    /// can only estimate as they go stop at (then [`Context::guard_output`]
    /// words the refusal).
    pub fn output_budget(&self) -> u64 {
        if self.force {
            u64::MAX
        } else {
            self.output_limit
        }
    }

    /// Verbose-only information on stderr.
    pub fn info(&self, level: u8, msg: impl AsRef<str>) {
        if self.verbose >= level {
            self.stderr(|| eprintln!("{}", msg.as_ref()));
        }
    }

    /// Prints on stderr with the progress bar (if one is shown) out of the way.
    fn stderr(&self, f: impl FnOnce()) {
        match &*self.bar.borrow() {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// A progress bar of `len` units of `unit` on stderr, shown only when
    /// stderr is a terminal and `-q` is not given. Give the library its
    /// [`Bar::hook`]; dropping the bar clears it.
    pub fn progress(&self, len: u64, what: &str, unit: &str) -> Bar<'_> {
        use std::io::IsTerminal;
        let visible = !self.quiet && len > 0 && std::io::stderr().is_terminal();
        let bar = Bar::new(self, visible, len, what, unit);
        if visible {
            *self.bar.borrow_mut() = Some(bar.progress_bar());
        }
        bar
    }

    /// Like [`Self::progress`] for work that writes its report while it
    /// runs: hidden as well when that report goes to the terminal.
    pub fn progress_beside(
        &self,
        output: &crate::cli::args::OutputArg,
        len: u64,
        what: &str,
        unit: &str,
    ) -> Bar<'_> {
        if self.table_style(output).terminal {
            return Bar::new(self, false, len, what, unit);
        }
        self.progress(len, what, unit)
    }

    pub(crate) fn bar_done(&self) {
        self.bar.borrow_mut().take();
    }

    /// Says how many skipped-block warnings were not printed.
    fn count_hidden(&self) {
        let (seen, hidden) = self.skipped_blocks.get();
        if hidden > 0 && !self.quiet {
            self.stderr(|| {
                eprintln!(
                    "warning: {hidden} more of these {seen} skipped blocks not shown (-v shows every one)"
                )
            });
        }
    }

    /// Turns a command's result into the process exit code, printing errors.
    pub fn exit_code(&self, result: anyhow::Result<ExitCode>) -> ExitCode {
        self.count_hidden();
        match result {
            Ok(code) => {
                let warnings = self.warnings.get();
                if warnings == 0 {
                    code
                } else if self.strict {
                    eprintln!("error: {}", Error::Strict { count: warnings });
                    ExitCode::from(EXIT_DATA)
                } else {
                    ExitCode::from(EXIT_PARTIAL)
                }
            }
            Err(e) => {
                if is_broken_pipe(&e) {
                    // `profparse … | head` is not an error.
                    return ExitCode::from(EXIT_OK);
                }
                eprint!("error: {e}");
                for cause in e.chain().skip(1) {
                    eprint!(": {cause}");
                }
                eprintln!();
                ExitCode::from(exit_code_of(&e))
            }
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn exit_code_of(e: &anyhow::Error) -> u8 {
    for cause in e.chain() {
        if let Some(err) = cause.downcast_ref::<Error>() {
            return if err.is_unreadable_input() {
                EXIT_USAGE
            } else {
                EXIT_DATA
            };
        }
        if cause
            .downcast_ref::<crate::cli::output::UsageError>()
            .is_some()
        {
            return EXIT_USAGE;
        }
    }
    EXIT_DATA
}

impl Context {
    /// Table layout for a report going to `-o` or stdout.
    pub fn table_style(
        &self,
        output: &crate::cli::args::OutputArg,
    ) -> crate::report::renderers::table::TableStyle {
        use std::io::IsTerminal;
        crate::report::renderers::table::TableStyle {
            terminal: output.to_stdout() && std::io::stdout().is_terminal(),
            wide: false,
        }
    }
}
