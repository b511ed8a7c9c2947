"""TinyProfiler logs, tlog traces and timer trees: what open() tells."""

from __future__ import annotations

import pytest

import profparse
from conftest import FIXTURES, cli_json


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
    assert run.metadata == {"path": str(FIXTURES / "tlog" / "np4.log"), "kind": "tlog", "nprocs": 4}


def test_timer_tree():
    path = FIXTURES / "timertree" / "doc_example.json"
    run = profparse.open(path)
    assert (run.kind, run.nprocs) == ("timertree", 1)
    assert run.metadata["path"] == str(path)
