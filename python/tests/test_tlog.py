"""tlog traces: the tables against `profparse tlog summary` and `tlog tree`."""

from __future__ import annotations

import json
import math
import warnings

import pytest

import profparse
from conftest import FIXTURES, cli, cli_json
from test_blprof import flatten, per_rank, table_paths

TLOGS = sorted((FIXTURES / "tlog").glob("*.log"))


def test_every_fixture_trace_is_tested():
    assert len(TLOGS) >= 4, TLOGS


def tlog_json(*args):
    """The CLI's JSON; exit code 3 is a report made with warnings."""
    code, out, err = cli(*args, "--format", "json")
    assert code in (0, 3), f"profparse {' '.join(args)} failed: {err}"
    return json.loads(out)


def quiet_open(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", profparse.ProfparseWarning)
        return profparse.open(path)


@pytest.mark.parametrize("trace", TLOGS, ids=[p.name for p in TLOGS])
def test_functions_are_tlog_summarys_intervals(trace):
    summary = tlog_json("tlog", "summary", str(trace))
    _, _, cli_warnings = cli("tlog", "summary", str(trace))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = profparse.open(trace)
        rows = run.functions().to_pylist()
    # The same warnings as the CLI's, in its order (its last line may
    # count the ones it did not list).
    assert [str(w.message) for w in caught] == cli_warnings
    assert run.nprocs == summary["nprocs"]
    assert run.metadata["events"] == summary["events"]
    expected = [a for a in summary["across"] if a["role"] == "interval"]
    assert len(rows) == len(expected)
    for row, a in zip(rows, expected):
        assert row["calls"] == a["count"]
        for key in ("name", "kind", "procs", "min", "avg", "max", "max_proc"):
            assert row[key] == a[key], (a["name"], key)


@pytest.mark.parametrize("trace", TLOGS, ids=[p.name for p in TLOGS])
def test_calltree_per_rank_is_tlog_tree_proc(trace):
    run = quiet_open(trace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", profparse.ProfparseWarning)
        rows = run.calltree().to_pylist()
    ranks = per_rank(rows)
    summary = tlog_json("tlog", "summary", str(trace))
    with_events = {p["proc"] for p in summary["processes"] if p["events"] > 0}
    assert set(ranks) <= with_events
    for rank, got in ranks.items():
        tree = tlog_json("tlog", "tree", "--proc", str(rank), str(trace))
        assert got == flatten(tree["roots"]), rank
        # One rank alone gives the same rows.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", profparse.ProfparseWarning)
            alone = run.calltree(rank=rank).to_pylist()
        assert per_rank(alone) == {rank: got}

    # Over all ranks: the calls and times summed per call path are the
    # merged tree's (sums in another order: equal to rounding).
    if ranks:
        merged = flatten(tlog_json("tlog", "tree", str(trace))["roots"])
        paths = table_paths(rows)
        sums = {}
        for r in rows:
            c, i, e = sums.get(paths[r["node"]], (0, 0.0, 0.0))
            sums[paths[r["node"]]] = (c + r["calls"], i + r["inclusive"], e + r["exclusive"])
        assert sums.keys() == merged.keys()
        for path, (calls, inc, exc) in merged.items():
            assert sums[path][0] == calls
            assert math.isclose(sums[path][1], inc, rel_tol=1e-12, abs_tol=1e-15), path
            assert math.isclose(sums[path][2], exc, rel_tol=1e-9, abs_tol=1e-12), path


def test_a_rank_without_events_is_not_found():
    run = profparse.open(FIXTURES / "tlog" / "np4.log")
    with pytest.raises(profparse.NotFoundError, match="rank 9: no events"):
        run.calltree(rank=9)


def test_event_names_rename_the_kinds(tmp_path):
    names = tmp_path / "names.txt"
    names.write_text("pair 1 Solve  # the task\npair 3 Halo exchange\n")
    trace = FIXTURES / "tlog" / "np4.log"
    run = profparse.open(trace)
    rows = run.functions(event_names=names).to_pylist()
    expected = cli_json("tlog", "summary", "--event-names", str(names), str(trace))
    assert [r["name"] for r in rows] == [
        a["name"] for a in expected["across"] if a["role"] == "interval"
    ]
    assert {"Solve", "Halo exchange"} <= {r["name"] for r in rows}
    tree = run.calltree(rank=0, event_names=names).to_pylist()
    by_cli = cli_json("tlog", "tree", "--proc", "0", "--event-names", str(names), str(trace))
    assert per_rank(tree) == {0: flatten(by_cli["roots"])}


def test_bad_event_names_raise_the_clis_error(tmp_path):
    names = tmp_path / "names.txt"
    names.write_text("pair 12 Too big\n")
    trace = FIXTURES / "tlog" / "np4.log"
    code, _, err = cli("tlog", "summary", "--event-names", str(names), str(trace))
    assert code != 0
    with pytest.raises(profparse.Error) as e:
        profparse.open(trace).functions(event_names=names)
    assert str(e.value) == err[-1]


def test_keywords_of_other_kinds_are_refused():
    run = profparse.open(FIXTURES / "tlog" / "np4.log")
    with pytest.raises(profparse.NotFoundError, match="region filters"):
        run.calltree(include_regions=["R"])
    with pytest.raises(profparse.NotFoundError, match="run= applies to TinyProfiler"):
        run.functions(run=1)
    db = profparse.open(FIXTURES / "blprof" / "small4" / "bl_prof")
    with pytest.raises(profparse.NotFoundError, match="event_names= applies to tlog"):
        db.functions(event_names="x")


def test_graphframe_of_a_trace_has_ranks():
    pytest.importorskip("hatchet")
    run = profparse.open(FIXTURES / "tlog" / "np4.log")
    gf = run.graphframe()
    assert gf.dataframe.index.names == ["node", "rank"]
    exclusive = gf.dataframe.groupby("rank")["time"].sum()
    for rank, total in exclusive.items():
        rows = run.calltree(rank=int(rank)).to_pylist()
        assert math.isclose(total, sum(r["exclusive"] for r in rows), rel_tol=1e-12)


FIRST = FIXTURES / "tinyprofiler" / "asyncout_24.10_np1.txt"
SECOND = FIXTURES / "tinyprofiler" / "asyncout_24.10_np4.txt"


def test_run_picks_a_tinyprofiler_report(tmp_path):
    # A job log holding two runs, as a job that ran the code twice leaves.
    log = tmp_path / "job.log"
    log.write_text(FIRST.read_text() + "\n" + SECOND.read_text())
    run = profparse.open(log)
    assert run.metadata["runs"] == 2
    for n, alone in ((1, FIRST), (2, SECOND), (None, SECOND)):
        args = ["summary", str(log)] + ([] if n is None else ["--run", str(n)])
        expected = cli_json(*args)["functions"]
        rows = run.functions(run=n).to_pylist()
        assert [(r["name"], r["calls"], r["avg"]) for r in rows] == [
            (f["name"], f["ncalls"], f["avg"]) for f in expected
        ]
        # `calltree LOG` shows the last run: run N's tree is that of a log
        # holding run N alone.
        table = run.calltree(run=n).to_pylist()
        paths = table_paths(table)
        got = {paths[r["node"]]: (r["calls"], r["inclusive"], r["exclusive"]) for r in table}
        assert got == flatten(cli_json("calltree", str(alone))["roots"])
    assert run.functions(run=1).to_pylist() != run.functions(run=2).to_pylist()
    code, _, err = cli("summary", "--run", "3", str(log))
    assert code != 0
    with pytest.raises(profparse.Error) as e:
        run.functions(run=3)
    assert str(e.value) == err[-1]
