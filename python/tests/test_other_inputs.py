"""TinyProfiler logs, tlog traces and timer trees: what open() tells."""

from __future__ import annotations

import json
import math
import warnings

import pytest

import profparse
from conftest import FIXTURES, cli, cli_json
from test_blprof import flatten, table_paths

LOGS = sorted((FIXTURES / "tinyprofiler").glob("*.txt"))
LOG_IDS = [p.name for p in LOGS]


def test_every_fixture_log_is_tested():
    assert len(LOGS) >= 10, LOGS


@pytest.mark.parametrize("log", LOGS, ids=LOG_IDS)
def test_tinyprofiler_tables_equal_the_cli_json(log):
    code, out, err = cli("summary", "--format", "json", str(log))
    if code != 0:
        # A log without a report: open() raises the CLI's error.
        with pytest.raises(profparse.FormatError) as e:
            profparse.open(log)
        assert str(e.value) == err[-1]
        return
    summary = json.loads(out)
    run = profparse.open(log)
    assert run.kind == "tinyprofiler"
    assert run.nprocs == summary["nprocs"]
    assert run.metadata["amrex_version"] == summary["amrex_version"]
    assert run.metadata["runs"] == summary["runs"]

    rows = run.functions().to_pylist()
    assert len(rows) == len(summary["functions"]) > 0
    for row, f in zip(rows, summary["functions"]):
        assert row["calls"] == f["ncalls"]
        for key in ("name", "min", "avg", "max", "inclusive_min", "inclusive_avg",
                    "inclusive_max", "percent", "inclusive_percent"):
            assert row[key] == f[key], (f["name"], key)

    table = run.calltree().to_pylist()
    assert {r["rank"] for r in table} == {None}
    paths = table_paths(table)
    got = {paths[r["node"]]: (r["calls"], r["inclusive"], r["exclusive"]) for r in table}
    assert got == flatten(cli_json("calltree", str(log))["roots"])


def test_tinyprofiler_has_no_tree_per_rank():
    run = profparse.open(LOGS[0])
    with pytest.raises(profparse.NotFoundError, match="per-rank"):
        run.calltree(rank=0)
    with pytest.raises(profparse.NotFoundError, match="region filters"):
        run.calltree(include_regions=["R"])


@pytest.mark.parametrize("name,nprocs", [
    ("asyncout_24.10_np1.txt", 1),
    ("asyncout_24.10_np4.txt", 4),
    ("singlevortex_24.10_np2.txt", 2),
])
def test_tinyprofiler_log(name, nprocs):
    run = profparse.open(FIXTURES / "tinyprofiler" / name)
    assert run.kind == "tinyprofiler"
    assert run.nprocs == nprocs
    assert run.metadata["amrex_version"] == "24.10"
    assert run.metadata["nprocs"] == nprocs


def test_tlog():
    run = profparse.open(FIXTURES / "tlog" / "np4.log")
    assert (run.kind, run.nprocs) == ("tlog", 4)
    assert run.metadata == {
        "path": str(FIXTURES / "tlog" / "np4.log"), "kind": "tlog", "nprocs": 4, "events": 369
    }


TREES = sorted((FIXTURES / "timertree").glob("*.json"))


def serialized_paths(doc, number):
    """The nodes of `tree show --layout json` (the file's arrays: opens
    and closes of nodes 1..n) by path: inclusive seconds and children."""
    stack, paths, seconds, children = [], {}, {}, {}
    for k in doc["tree"]:
        if stack and stack[-1] == k:
            stack.pop()
            continue
        parent = paths[stack[-1]] if stack else ()
        path = parent + (doc["name"][k - 1],)
        paths[k] = path
        seconds[path] = number(doc["time"][k - 1])
        children.setdefault(parent, []).append(path)
        stack.append(k)
    return seconds, children


@pytest.mark.parametrize("path", TREES, ids=[p.name for p in TREES])
def test_timer_tree_calltree_equals_the_files_tree(path):
    code, out, err = cli("tree", "show", "--layout", "json", str(path))
    assert code in (0, 3), err
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = profparse.open(path)
    assert [str(w.message) for w in caught] == err  # the CLI's warnings
    assert (run.kind, run.nprocs) == ("timertree", 1)
    assert run.metadata["path"] == str(path)
    # JSON spells the times no number is as strings ("NaN", "Infinity").
    doc = json.loads(out)
    assert run.metadata["timers"] == len(doc["name"])
    seconds, children = serialized_paths(doc, float)
    rows = run.calltree().to_pylist()
    paths = table_paths(rows)
    assert {r["rank"] for r in rows} == {None}
    got = {paths[r["node"]]: (r["inclusive"], r["exclusive"]) for r in rows}
    expected = {
        p: (s, s - sum(seconds[c] for c in children.get(p, [])))
        for p, s in seconds.items()
    }
    assert got.keys() == expected.keys()
    for p, pair in expected.items():
        for a, b in zip(got[p], pair):
            assert a == b or (math.isnan(a) and math.isnan(b)), p
    with pytest.raises(profparse.NotFoundError, match="no tree of one rank"):
        run.calltree(rank=0)
    with pytest.raises(profparse.NotFoundError, match="use calltree"):
        run.functions()
