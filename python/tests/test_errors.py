"""Bad inputs raise profparse.Error (a subclass by kind of failure) with
the CLI's message; nothing crashes the interpreter."""

from __future__ import annotations

import shutil

import pytest

import profparse
from conftest import BLPROF, FIXTURES, cli


def cli_error(*args):
    code, _, err = cli(*args)
    assert code != 0
    return err[-1]


def test_error_classes():
    for cls in (profparse.ReadError, profparse.FormatError, profparse.NotFoundError):
        assert issubclass(cls, profparse.Error)
    assert issubclass(profparse.Error, Exception)
    assert profparse.Error.__module__ == "profparse"


def test_missing_path(tmp_path):
    path = tmp_path / "nothing_here"
    with pytest.raises(profparse.ReadError) as e:
        profparse.open(path)
    assert str(e.value) == cli_error("summary", str(path))


def test_directory_that_is_no_database(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(profparse.Error) as e:
        profparse.open(tmp_path)
    assert str(e.value) == cli_error("summary", str(tmp_path))


def test_empty_tlog():
    path = FIXTURES / "tlog" / "bad" / "empty.log"
    with pytest.raises(profparse.FormatError) as e:
        profparse.open(path)
    assert str(e.value) == cli_error("tlog", "summary", str(path))


def test_truncated_tlog_warns_as_the_cli():
    path = FIXTURES / "tlog" / "bad" / "truncated_mid_record.log"
    code, _, expected = cli("tlog", "summary", str(path))
    assert code == 3 and expected  # 3: a partial result, with warnings
    with pytest.warns(profparse.ProfparseWarning) as caught:
        run = profparse.open(path)
    assert [str(w.message) for w in caught] == expected
    assert run.kind == "tlog" and run.nprocs == 4


def test_broken_timer_tree(tmp_path):
    path = tmp_path / "tree.json"
    path.write_text('{"main": {"time": ')
    with pytest.raises(profparse.FormatError) as e:
        profparse.open(path)
    assert str(e.value) == cli_error("tree", "show", str(path))


def test_database_without_call_traces(tmp_path):
    db = tmp_path / "bl_prof"
    shutil.copytree(next(p for p in BLPROF if p.parent.name == "small4"), db)
    for f in db.glob("bl_call_stats*"):
        f.unlink()
    run = profparse.open(db)
    assert run.functions().num_rows > 0
    with pytest.raises(profparse.NotFoundError) as e:
        run.calltree()
    assert str(e.value) == cli_error("calltree", str(db))


def test_rank_without_traces():
    run = profparse.open(BLPROF[-1])
    with pytest.raises(profparse.NotFoundError, match="rank 99"):
        run.calltree(rank=99)
    with pytest.raises(ValueError):
        run.calltree(rank=-1)


@pytest.mark.filterwarnings("ignore::profparse.ProfparseWarning")
def test_every_bad_tlog_raises_or_reads():
    for path in sorted((FIXTURES / "tlog" / "bad").glob("*.log")):
        try:
            profparse.open(path)
        except profparse.Error as e:
            assert str(path) in str(e)
