"""bl_prof databases: the tables equal the CLI's JSON on every shipped
fixture database (`summary`, `calltree`, `calltree --proc N`)."""

from __future__ import annotations

import math
import shutil
import warnings
from collections import defaultdict

import pytest

import profparse
from conftest import BLPROF, cli, cli_json

IDS = [p.parent.name for p in BLPROF]


def test_every_fixture_database_is_tested():
    assert len(BLPROF) >= 7, BLPROF


@pytest.mark.parametrize("db", BLPROF, ids=IDS)
def test_open_reads_kind_nprocs_and_metadata(db):
    run = profparse.open(db)
    info = cli_json("info", str(db))
    assert run.kind == "blprof"
    assert run.nprocs == info["nprocs"]
    meta = run.metadata
    assert meta["path"] == str(db)
    assert meta["kind"] == "blprof"
    assert meta["nprocs"] == info["nprocs"]
    assert meta["parts"] == info["parts"]


def test_open_takes_the_run_folder_too():
    db = BLPROF[0]
    run = profparse.open(db.parent)
    assert run.kind == "blprof"
    assert run.metadata["database"] == str(db)
    assert run.functions().to_pylist() == profparse.open(db).functions().to_pylist()


@pytest.mark.parametrize("db", BLPROF, ids=IDS)
def test_functions_equal_summary_json(db):
    expected = cli_json("summary", str(db))["functions"]
    table = profparse.open(db).functions()
    assert table.column_names[:6] == ["name", "calls", "ncalls", "min", "avg", "max"]
    rows = table.to_pylist()
    assert len(rows) == len(expected) > 0
    for row, f in zip(rows, expected):
        assert row["name"] == f["name"]
        assert row["calls"] == f["ncalls_total"]
        assert row["ncalls"] == f["ncalls"]
        for key in ("min", "avg", "max", "stddev", "coeff_var", "percent",
                    "min_proc", "max_proc", "imbalance"):
            assert row[key] == f[key], (f["name"], key)


def flatten(nodes, path=()):
    """A JSON tree's nodes by call path: (calls, inclusive, exclusive)."""
    out = {}
    for n in nodes:
        p = path + (n["name"],)
        out[p] = (n["calls"], n["inclusive"], n["exclusive"])
        out.update(flatten(n.get("children", []), p))
    return out


def table_paths(rows):
    """Each row's call path, found through `parent` and checked against `depth`."""
    by_node = {}
    for r in rows:
        assert by_node.setdefault(r["node"], (r["name"], r["parent"], r["depth"])) == (
            r["name"], r["parent"], r["depth"]), "a node number names one path at every rank"
    def path(node):
        name, parent, _ = by_node[node]
        return (path(parent) if parent is not None else ()) + (name,)
    paths = {n: path(n) for n in by_node}
    for n, (_, _, depth) in by_node.items():
        assert len(paths[n]) == depth + 1
    return paths


def per_rank(rows):
    paths = table_paths(rows)
    ranks = defaultdict(dict)
    for r in rows:
        ranks[r["rank"]][paths[r["node"]]] = (r["calls"], r["inclusive"], r["exclusive"])
    return ranks


@pytest.mark.parametrize("db", BLPROF, ids=IDS)
def test_calltree_per_rank_equals_calltree_proc_json(db):
    rows = profparse.open(db).calltree().to_pylist()
    ranks = per_rank(rows)
    assert sorted(ranks) == list(range(len(ranks))) and ranks
    for rank, nodes in ranks.items():
        expected = flatten(cli_json("calltree", "--proc", str(rank), str(db))["roots"])
        assert nodes == expected, f"rank {rank}"


@pytest.mark.parametrize("db", BLPROF, ids=IDS)
def test_calltree_summed_over_ranks_equals_merged_json(db):
    rows = profparse.open(db).calltree().to_pylist()
    paths = table_paths(rows)
    sums = defaultdict(lambda: [0, 0.0, 0.0])
    for r in rows:
        s = sums[paths[r["node"]]]
        s[0] += r["calls"]
        s[1] += r["inclusive"]
        s[2] += r["exclusive"]
    expected = flatten(cli_json("calltree", str(db))["roots"])
    assert set(sums) == set(expected)
    for path, (calls, inc, exc) in expected.items():
        got = sums[path]
        assert got[0] == calls, path
        assert math.isclose(got[1], inc, rel_tol=1e-12, abs_tol=1e-15), path
        assert math.isclose(got[2], exc, rel_tol=1e-12, abs_tol=1e-15), path


def test_calltree_of_one_rank_is_that_ranks_rows():
    db = BLPROF[-1]
    run = profparse.open(db)
    whole = run.calltree()
    for rank in range(run.nprocs):
        one = run.calltree(rank=rank)
        assert set(one.column("rank").to_pylist()) == {rank}
        mine = [r for r in whole.to_pylist() if r["rank"] == rank]
        assert one.to_pylist() == mine


def test_calltree_schema_and_pandas():
    table = profparse.open(BLPROF[-1]).calltree()
    assert table.column_names == [
        "node", "parent", "name", "depth", "rank", "calls", "inclusive", "exclusive"]
    df = table.to_pandas()
    assert len(df) == table.num_rows > 0
    assert df["parent"].isna().sum() == (df["depth"] == 0).sum()
    # Names as a dictionary: each name stored once, a categorical in pandas.
    import pyarrow as pa

    assert pa.types.is_dictionary(table.schema.field("name").type)
    assert str(df["name"].dtype) == "category"
    assert set(df["name"]) == set(table.column("name").to_pylist()) > set()


def test_region_filters_match_the_cli():
    db = next(p for p in BLPROF if p.parent.name == "small4")
    table = profparse.open(db).calltree(rank=0, include_regions=["R::Compute"])
    expected = flatten(cli_json(
        "calltree", "--proc", "0", "--include-region", "R::Compute", str(db))["roots"])
    assert per_rank(table.to_pylist())[0] == expected
    everything = flatten(cli_json("calltree", "--proc", "0", str(db))["roots"])
    assert expected != everything


def test_arrow_stream_is_a_pycapsule_consumed_once():
    import pyarrow as pa

    stream, _ = profparse.open(BLPROF[-1])._native.functions()
    capsule = stream.__arrow_c_stream__()
    assert type(capsule).__name__ == "PyCapsule"
    del capsule  # released unconsumed: no leak, no crash
    with pytest.raises(profparse.Error, match="already consumed"):
        stream.__arrow_c_stream__()
    stream, _ = profparse.open(BLPROF[-1])._native.calltree(None, [], [])
    assert pa.table(stream).num_rows > 0


def test_damaged_database_warns_as_the_cli_and_gives_the_rest(tmp_path):
    db = tmp_path / "bl_prof"
    shutil.copytree(next(p for p in BLPROF if p.parent.name == "small4"), db)
    (db / "bl_prof_D_00001").write_bytes(b"")
    code, out, expected = cli("summary", "--format", "json", str(db))
    assert code == 3 and expected  # 3: a partial result, with warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = profparse.open(db).functions()
    got = [str(w.message) for w in caught if issubclass(w.category, profparse.ProfparseWarning)]
    assert got == expected
    import json
    assert table.column("avg").to_pylist() == [f["avg"] for f in json.loads(out)["functions"]]


def test_threads_share_a_run():
    # Tables are built without the GIL and without a lock held meanwhile:
    # threads that use one run at once all finish, with the same table.
    from concurrent.futures import ThreadPoolExecutor

    run = profparse.open(max(BLPROF, key=lambda p: sum(f.stat().st_size for f in p.iterdir())))
    expected = run.calltree().to_pylist()
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(run.calltree) for _ in range(8)]
        tables = [f.result(timeout=120) for f in futures]
    assert all(t.to_pylist() == expected for t in tables)
