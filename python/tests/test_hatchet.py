"""Run.graphframe(): a Hatchet GraphFrame that Hatchet's own operations
take, with the CLI's numbers (`calltree --proc N` per rank)."""

from __future__ import annotations

import math
import warnings

import pytest

import profparse
from conftest import BLPROF, FIXTURES, cli_json
from test_blprof import flatten

IDS = [p.parent.name for p in BLPROF]


@pytest.fixture(autouse=True)
def _quiet_pandas():
    # Hatchet calls pandas APIs that pandas 2.x marks deprecated.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


@pytest.mark.parametrize("db", BLPROF, ids=IDS)
def test_per_rank_exclusive_sums_equal_calltree_proc(db):
    gf = profparse.open(db).graphframe()
    df = gf.dataframe
    assert list(df.index.names) == ["node", "rank"]
    assert {"name", "time", "time (inc)", "calls"} <= set(df.columns)
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    ranks = sorted(df.index.get_level_values("rank").unique())
    for rank in ranks:
        expected = flatten(cli_json("calltree", "--proc", str(rank), str(db))["roots"])
        mine = df.xs(rank, level="rank")
        assert math.isclose(mine["time"].sum(), sum(e for _, _, e in expected.values()),
                            rel_tol=1e-12, abs_tol=1e-15)
        assert mine["calls"].sum() == sum(c for c, _, _ in expected.values())


def test_every_node_has_every_rank_and_the_tables_numbers():
    db = next(p for p in BLPROF if p.parent.name == "small4")
    run = profparse.open(db)
    gf = run.graphframe()
    df = gf.dataframe
    nodes = df.index.get_level_values("node").unique()
    assert len(df) == len(nodes) * run.nprocs
    rows = run.calltree().to_pylist()
    by_key = {(r["node"], r["rank"]): r for r in rows}
    # Hatchet numbers the nodes itself; match them through their paths.
    path_of = {}
    for node in gf.graph.traverse():
        parent = node.parents[0] if node.parents else None
        path_of[node] = (path_of[parent] if parent is not None else ()) + (node.frame["name"],)
    from test_blprof import table_paths
    table_path = table_paths(rows)
    number_of = {p: n for n, p in table_path.items()}
    for (node, rank), row in df.iterrows():
        r = by_key.get((number_of[path_of[node]], rank))
        if r is None:
            assert (row["time"], row["time (inc)"], row["calls"]) == (0, 0, 0)
        else:
            assert (row["time"], row["time (inc)"], row["calls"]) == (
                r["exclusive"], r["inclusive"], r["calls"])


def test_hatchet_operations_work_on_it():
    gf = profparse.open(next(p for p in BLPROF if p.parent.name == "small4")).graphframe()
    text = gf.tree()
    assert "main()" in text and "Exchange::ring" in text
    big = gf.filter(lambda row: row["time"] > 1e-3, squash=True)
    assert 0 < len(big.dataframe) < len(gf.dataframe)
    assert (big.dataframe["time"] > 1e-3).all()
    diff = gf - gf.deepcopy()
    assert (diff.dataframe["time"] == 0).all()
    assert gf.metadata["nprocs"] == 4


@pytest.mark.parametrize("path", [
    FIXTURES / "tinyprofiler" / "singlevortex_24.10_np2.txt",
    FIXTURES / "timertree" / "measured_example.json",
], ids=["tinyprofiler", "timertree"])
def test_inputs_without_ranks_are_indexed_by_node(path):
    run = profparse.open(path)
    gf = run.graphframe()
    assert list(gf.dataframe.index.names) == ["node"]
    table = run.calltree()
    assert len(gf.dataframe) == table.num_rows
    assert math.isclose(gf.dataframe["time (inc)"].sum(), sum(table.column("inclusive").to_pylist()))
    assert gf.tree()


def test_thicket_of_a_strong_scaling_study():
    import thicket.stats

    logs = [FIXTURES / "tinyprofiler" / f"singlevortex_24.10_np{n}.txt" for n in (1, 2, 4)]
    tk = profparse.thicket(logs)
    meta = tk.metadata
    assert sorted(meta["nprocs"]) == [1, 2, 4]
    assert sorted(meta["path"]) == sorted(str(p) for p in logs)
    assert set(meta["kind"]) == {"tinyprofiler"}
    assert list(tk.dataframe.index.names) == ["node", "profile"]
    groups = tk.groupby("nprocs")
    assert sorted(groups.keys()) == [1, 2, 4]
    thicket.stats.mean(tk, columns=["time"])
    stats = tk.statsframe.dataframe
    # Each node's mean over the three runs is the mean of the runs' tables.
    totals = [profparse.open(p).calltree() for p in logs]
    step = {}
    for t in totals:
        for row in t.to_pylist():
            if row["name"] == "Amr::coarseTimeStep()" and row["depth"] == 0:
                step.setdefault("time", []).append(row["exclusive"])
    got = stats[stats["name"] == "Amr::coarseTimeStep()"]["time_mean"]
    assert len(got) == 1 and math.isclose(got.iloc[0], sum(step["time"]) / 3)


def test_thicket_of_databases_keeps_ranks():
    dbs = [p for p in BLPROF if p.parent.name in ("small4", "asym4")]
    tk = profparse.thicket(dbs)
    assert list(tk.dataframe.index.names) == ["node", "profile", "rank"]
    assert sorted(tk.metadata["path"]) == sorted(str(p) for p in dbs)
    assert list(tk.metadata["nprocs"]) == [4, 4]
