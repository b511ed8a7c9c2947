"""bl_prof comm tables and regions: each equals the CLI's JSON (`regions`,
`comm stats`, `comm pairs`, `comm waits`, `comm time`) on every shipped
fixture database with comm data and on `profparse synth blprof` output,
with and without region filters, `--proc` and `--align-clocks`; inputs
without the data raise the CLI's error."""

from __future__ import annotations

import json
import shutil
import warnings

import pytest

import profparse
from conftest import BLPROF, FIXTURES, cli, cli_json

COMM = [p for p in BLPROF if any(p.glob("bl_comm_prof_H*"))]


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    """Generated databases: one plain, one with clock offsets and late
    processes (so that aligning clocks and wait states have work)."""
    root = tmp_path_factory.mktemp("synth")
    made = []
    for name, extra in [
        ("plain", []),
        ("skewed", ["--clock-offsets", "0.001", "--late-sender", "1:0.0005",
                    "--late-barrier", "2:0.0005", "--blocks", "2"]),
    ]:
        code, _, err = cli("synth", "blprof", str(root / name), "--procs", "4", *extra)
        assert code == 0, err
        made.append(root / name)
    return made


@pytest.fixture(params=[*COMM, "synth-plain", "synth-skewed"],
                ids=[*(p.parent.name for p in COMM), "synth-plain", "synth-skewed"])
def db(request, synth):
    p = request.param
    return {"synth-plain": synth[0], "synth-skewed": synth[1]}.get(p, p)


def test_every_fixture_database_has_comm_data():
    assert COMM == BLPROF and len(COMM) >= 7


def user_region(db):
    """The longest region of the database (summed over processes) other
    than `__NoRegion__`, for filters that leave some of everything."""
    regions = [r for r in cli_json("regions", str(db))["regions"] if r["name"] != "__NoRegion__"]
    return max(regions, key=lambda r: r["total"])["name"]


def filters(db):
    """(keywords, CLI flags): none, an include and an exclude filter."""
    r = user_region(db)
    return [
        ({}, []),
        ({"include_regions": [r]}, ["--include-region", r]),
        ({"exclude_regions": [r]}, ["--exclude-region", r]),
    ]


def rows(table):
    return table.to_pylist()


def test_regions_equal_regions_json(db):
    run = profparse.open(db)
    expected = cli_json("regions", str(db))["regions"]
    assert rows(run.regions()) == expected and expected
    last = str(run.nprocs - 1)
    expected = cli_json("regions", "--proc", last, str(db))["ranges"]
    assert rows(run.regions(rank=run.nprocs - 1)) == expected and expected


def test_comm_equals_comm_stats_json(db):
    run = profparse.open(db)
    for kw, flags in filters(db):
        expected = cli_json("comm", "stats", *flags, str(db))
        assert rows(run.comm(**kw)) == expected["by_type"], flags
        assert rows(run.comm(by="proc", **kw)) == expected["procs"], flags
    expected = cli_json("comm", "stats", "--proc", "0", str(db))
    assert rows(run.comm(rank=0)) == expected["by_type"]
    assert rows(run.comm(by="proc", rank=0)) == expected["procs"]


def pairs_json(*args):
    """`comm pairs`'s messages as `messages()` has them: the pairs, then
    the unmatched sends and receives with the other side null."""
    code, out, err = cli("comm", "pairs", *args, "--format", "json")
    assert code in (0, 3), err  # 3: a partial result, with warnings
    d = json.loads(out)
    out = [{**p, "unmatched": None, "type": None} for p in d["pairs"]]
    none = dict.fromkeys(["latency", "completed_time", "latency_to_completion"])
    for e in d["unmatched_sends"]:
        out.append({"from": e["proc"], "to": e["peer"], "tag": e["tag"], "size": e["size"],
                    "send_time": e["time"], "recv_time": None, **none,
                    "unmatched": "send", "type": e["type"]})
    for e in d["unmatched_recvs"]:
        out.append({"from": e["peer"], "to": e["proc"], "tag": e["tag"], "size": e["size"],
                    "send_time": None, "recv_time": e["time"], **none,
                    "unmatched": "recv", "type": e["type"]})
    return out


def test_messages_equal_comm_pairs_json(db):
    run = profparse.open(db)
    for kw, flags in filters(db):
        assert rows(run.messages(**kw)) == pairs_json(*flags, str(db)), flags
    aligned = run.messages(align_clocks=True)
    assert rows(aligned) == pairs_json("--align-clocks", str(db))
    last = run.nprocs - 1
    assert rows(run.messages(rank=last)) == pairs_json("--proc", str(last), str(db))


def test_messages_list_unmatched_ends(tmp_path):
    db = tmp_path / "bl_prof"
    shutil.copytree(next(p for p in BLPROF if p.parent.name == "small4"), db)
    (db / "bl_comm_prof_D_00003").unlink()  # process 3's messages are gone
    code, _, expected_warnings = cli("comm", "pairs", str(db))
    assert code == 3 and expected_warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = profparse.open(db).messages()
    got = [str(w.message) for w in caught if issubclass(w.category, profparse.ProfparseWarning)]
    assert got == expected_warnings
    assert rows(table) == pairs_json(str(db))
    kinds = table.column("unmatched").to_pylist()
    assert kinds.count("send") > 0 and kinds.count("recv") > 0
    assert table.schema.field("recv_time").nullable


WAIT_LISTS = {"proc": "procs", "type": "types", "path": "paths", "wait": "top"}


def test_waits_equal_comm_waits_json(db):
    run = profparse.open(db)
    for align in (False, True):
        clock = ["--align-clocks"] if align else []
        for kw, flags in filters(db):
            expected = cli_json("comm", "waits", *clock, *flags, "--top", "1000000000", str(db))
            for by, key in WAIT_LISTS.items():
                got = rows(run.waits(align, by=by, top=None, **kw))
                assert got == expected[key], (align, flags, by)
    last = run.nprocs - 1
    expected = cli_json("comm", "waits", "--proc", str(last), str(db))
    assert rows(run.waits(rank=last, by="wait")) == expected["top"]  # top=20, the CLI's
    assert rows(run.waits(rank=last)) == expected["procs"]


def time_rows(d, by):
    """`comm time`'s JSON as the rows of `mpi_time(by=...)`."""
    if by == "type":
        return [{k: v for k, v in t.items() if k != "sizes"} for t in d["by_type"]]
    if by == "size":
        return [{"type": t["type"], "number": t["number"], **s}
                for t in d["by_type"] for s in t["sizes"]]
    if by == "proc":
        return [{k: v for k, v in p.items() if k != "by_type"} for p in d["procs"]]
    if by == "proc_type":
        return [{"proc": p["proc"], **t} for p in d["procs"] for t in p["by_type"]]
    return d[{"path": "paths", "region": "regions"}[by]]


def test_mpi_time_equals_comm_time_json(db):
    run = profparse.open(db)
    for kw, flags in filters(db):
        expected = cli_json("comm", "time", *flags, str(db))
        for by in ("type", "size", "proc", "proc_type", "path", "region"):
            got = rows(run.mpi_time(by=by, **kw))
            assert got == time_rows(expected, by), (flags, by)
            assert got or kw, by
    last = run.nprocs - 1
    expected = cli_json("comm", "time", "--proc", str(last), str(db))
    assert rows(run.mpi_time(rank=last)) == time_rows(expected, "type")
    assert rows(run.mpi_time(by="proc", rank=last)) == time_rows(expected, "proc")


def test_time_windows_equal_the_cli(db):
    run = profparse.open(db)
    stats = cli_json("comm", "stats", str(db))
    t0, t1 = stats["time_min"], stats["time_max"]
    a, b = t0 + (t1 - t0) / 3, t0 + 2 * (t1 - t0) / 3
    for window, flag in [((a, b), f"{a!r}..{b!r}"), ((a, None), f"{a!r}.."),
                         ((None, b), f"..{b!r}")]:
        args = ["--time", flag, str(db)]
        assert rows(run.comm(time=window)) == cli_json("comm", "stats", *args)["by_type"]
        assert rows(run.messages(time=window)) == pairs_json(*args)
        assert rows(run.waits(time=window, by="wait")) == cli_json(
            "comm", "waits", *args)["top"]
        assert rows(run.mpi_time(time=window, by="proc")) == time_rows(
            cli_json("comm", "time", *args), "proc")
    assert rows(run.comm(time=(a, b))) != rows(run.comm())


def test_filters_change_the_numbers():
    db = next(p for p in BLPROF if p.parent.name == "small4")
    run = profparse.open(db)
    whole = run.mpi_time().column("seconds").to_pylist()
    compute = run.mpi_time(include_regions=["R::Comm"]).column("seconds").to_pylist()
    assert sum(compute) < sum(whole)


def test_column_types():
    import pyarrow as pa

    run = profparse.open(next(p for p in BLPROF if p.parent.name == "small4"))
    m = run.messages().schema
    assert m.field("from").type == pa.uint32() and m.field("send_time").type == pa.float64()
    c = run.comm().schema
    assert c.field("type").type == pa.string() and c.field("calls").type == pa.uint64()
    w = run.waits(by="path").schema
    assert w.field("path").type == pa.list_(pa.field("item", pa.string(), nullable=False))
    t = run.mpi_time(by="proc").schema
    assert t.field("proc").type == pa.uint32() and t.field("share").nullable
    assert run.regions().schema.field("max_proc").type == pa.uint32()


def cli_error(*args):
    code, _, err = cli(*args)
    assert code != 0
    return err[-1]


OTHER_INPUTS = [
    FIXTURES / "tinyprofiler" / "singlevortex_24.10_np2.txt",
    FIXTURES / "tlog" / "np4.log",
    FIXTURES / "timertree" / "doc_example.json",
]


@pytest.mark.parametrize("path", OTHER_INPUTS, ids=lambda p: p.name)
def test_other_inputs_raise_the_cli_error(path):
    run = profparse.open(path)
    expected = cli_error("comm", "stats", str(path))
    for table in (run.comm, run.messages, run.waits, run.mpi_time):
        with pytest.raises(profparse.Error) as e:
            table()
        assert str(e.value) == expected
    with pytest.raises(profparse.Error) as e:
        run.regions()
    assert str(e.value) == cli_error("regions", str(path))


def test_database_without_comm_data(tmp_path):
    db = tmp_path / "bl_prof"
    shutil.copytree(next(p for p in BLPROF if p.parent.name == "small4"), db)
    for f in db.glob("bl_comm_prof*"):
        f.unlink()
    run = profparse.open(db)
    assert run.regions().num_rows > 0
    for table, command in [(run.comm, "stats"), (run.messages, "pairs"),
                           (run.waits, "waits"), (run.mpi_time, "time")]:
        with pytest.raises(profparse.NotFoundError) as e:
            table()
        assert str(e.value) == cli_error("comm", command, str(db))


def test_database_without_call_traces(tmp_path):
    db = tmp_path / "bl_prof"
    shutil.copytree(next(p for p in BLPROF if p.parent.name == "small4"), db)
    for f in db.glob("bl_call_stats*"):
        f.unlink()
    run = profparse.open(db)
    assert rows(run.comm()) == cli_json("comm", "stats", str(db))["by_type"]
    expected = cli_json("comm", "time", str(db))
    assert expected["paths"] is None
    assert rows(run.mpi_time(by="proc")) == time_rows(expected, "proc")
    message = cli_error("comm", "stats", "--include-region", "R::Comm", str(db))
    with pytest.raises(profparse.NotFoundError) as e:
        run.comm(include_regions=["R::Comm"])
    assert str(e.value) == message
    for call in (run.regions, lambda: run.waits(by="path"), lambda: run.mpi_time(by="path")):
        with pytest.raises(profparse.NotFoundError) as e:
            call()
        assert str(e.value) == cli_error("regions", str(db))


def test_bad_arguments():
    run = profparse.open(next(p for p in BLPROF if p.parent.name == "small4"))
    with pytest.raises(profparse.NotFoundError, match="rank 99"):
        run.comm(rank=99)
    with pytest.raises(profparse.NotFoundError, match="rank 99"):
        run.regions(rank=99)
    with pytest.raises(ValueError, match="by="):
        run.mpi_time(by="nothing")
    with pytest.raises(ValueError):
        run.waits(rank=-1)
    with pytest.raises(ValueError):
        run.waits(top=-1)
    with pytest.raises(ValueError, match="time"):
        run.comm(time=(2.0, 1.0))
    with pytest.raises(ValueError, match="time"):
        run.messages(time=(float("nan"), None))
    with pytest.raises(ValueError, match="include_regions"):
        run.mpi_time(include_regions="R::Comm")
    with pytest.raises(profparse.NotFoundError) as e:
        run.comm(include_regions=["No::Such"])
    assert str(e.value) == cli_error(
        "comm", "stats", "--include-region", "No::Such", str(run.path))


def test_align_clocks_moves_the_times(synth):
    # The skewed database's processes have clock offsets: aligned times differ.
    run = profparse.open(synth[1])
    own = run.messages().column("recv_time").to_pylist()
    aligned = run.messages(align_clocks=True).column("recv_time").to_pylist()
    assert len(own) == len(aligned) > 0 and own != aligned
    assert rows(run.waits(True, by="wait")) != rows(run.waits(False, by="wait"))
