//! `calltree --bottom-up` and `calltree --focus FUNC`: trees of callers
//! (and callees) built per process from the call traces, then merged.

use std::process::ExitCode;

use crate::analysis::callers::{self, Built, FunctionMatch, MAX_LEVELS};
use crate::analysis::calltree::{Spread, process_trees};
use crate::analysis::trace_summary::Selection;
use crate::formats::blprof::Database;
use crate::model::calltree::CallTree;
use crate::report::calltree::focus::FocusReport;
use crate::report::calltree::{Order, TreeReport, TreeView};
use crate::{Location, Warning};

use super::{CallTreeArgs, guard_folded};
use crate::cli::context::Context;
use crate::cli::output::{UsageError, emit};

/// `--bottom-up` and `--focus`: built from each process's tree, then
/// merged over processes as the top-down tree is.
pub(super) fn report(
    args: &CallTreeArgs,
    db: &Database,
    sel: &Selection,
    view: TreeView,
    bar: crate::cli::progress::Bar<'_>,
    ctx: &Context,
) -> anyhow::Result<ExitCode> {
    let (trees, warnings) = process_trees(db, sel, args.proc);
    drop(bar);
    ctx.warn_all(&warnings);
    let view = TreeView {
        nprocs: trees.len(),
        ..view
    };
    let source = Some(args.db.db.display().to_string());
    let warn_cut = |built: &Built<Spread>, what: &str| {
        if built.cut {
            ctx.warn(&Warning::note(
                Location::file(db.dir()),
                format!("{what} deeper than {MAX_LEVELS} levels are cut there"),
            ));
        }
    };
    if args.bottom_up {
        let up = callers::merged(&trees, |t| callers::bottom_up(t, &|_| true));
        drop(trees);
        warn_cut(&up, "caller paths");
        let report = TreeReport {
            tree: &up.tree,
            view: TreeView {
                order: Order::Exclusive,
                ..view
            },
            proc: args.proc,
            source,
        };
        guard_folded(&report, args.format, ctx)?;
        emit(&report, args.format, &args.output)?;
    } else {
        let (up, down) = focus_trees(args, &trees)?;
        drop(trees);
        warn_cut(&up, "caller paths");
        warn_cut(&down, "callee paths");
        let report = FocusReport {
            callers: &up.tree,
            callees: &down.tree,
            view,
            proc: args.proc,
            source,
        };
        emit(&report, args.format, &args.output)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The callers' and callees' trees of the functions `--focus` names; a
/// usage error when it names none.
fn focus_trees(
    args: &CallTreeArgs,
    trees: &[(usize, CallTree)],
) -> anyhow::Result<(Built<Spread>, Built<Spread>)> {
    let pattern = args.focus.as_deref().unwrap_or_default();
    let wanted = FunctionMatch::new(pattern);
    let keep = |name: &str| wanted.matches(name);
    let up = callers::merged(trees, |t| callers::bottom_up(t, &keep));
    let down = callers::merged(trees, |t| callers::callees(t, &keep));
    if no_roots(&up.tree) && no_roots(&down.tree) {
        return Err(UsageError(format!(
            "--focus {pattern:?}: no function of the call traces has that name or matches that pattern"
        ))
        .into());
    }
    Ok((up, down))
}

fn no_roots(tree: &CallTree<Spread>) -> bool {
    tree.node(tree.root()).children().is_empty()
}
