"""profparse for Python: AMReX bl_prof databases, TinyProfiler logs, tlog
traces and timer trees read by the profparse library (Rust), with Arrow tables.

    >>> import profparse
    >>> run = profparse.open("fixtures/blprof/small4/bl_prof")
    >>> run.kind, run.nprocs
    ('blprof', 4)
    >>> run.functions().to_pandas()          # as `profparse summary --format json`
    >>> run.calltree(rank=0)                 # as `profparse calltree --proc 0 --format json`

Errors are ``profparse.Error`` (subclasses ``ReadError``, ``FormatError``,
``NotFoundError``) with the library's message; what the readers skipped comes
as ``profparse.ProfparseWarning`` through the ``warnings`` module.
See docs/PYTHON.md.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _profparse
from ._profparse import Error, FormatError, NotFoundError, ReadError

__all__ = [
    "Error",
    "FormatError",
    "NotFoundError",
    "ProfparseWarning",
    "ReadError",
    "Run",
    "open",
]
__version__ = _profparse.__version__


class ProfparseWarning(UserWarning):
    """Something a reader could not read, or a known quirk of the data
    (the CLI's ``warning:`` lines): the result is still given."""


def _warn(messages: List[str]) -> None:
    for message in messages:
        warnings.warn(message, ProfparseWarning, stacklevel=3)


def _table(stream: Any) -> "pyarrow.Table":  # noqa: F821
    import pyarrow as pa

    # The Arrow PyCapsule interface (`__arrow_c_stream__`): no copy.
    return pa.RecordBatchReader.from_stream(stream).read_all()


class Run:
    """One input that :func:`open` read: a bl_prof database, a TinyProfiler
    log, a tlog trace or a timer tree."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self._metadata: Dict[str, Any] = json.loads(native.metadata_json)

    @property
    def kind(self) -> str:
        """``"blprof"``, ``"tinyprofiler"``, ``"tlog"`` or ``"timertree"``."""
        return self._native.kind

    @property
    def path(self) -> str:
        """The path given to :func:`open`."""
        return self._native.path

    @property
    def nprocs(self) -> Optional[int]:
        """The number of processes (MPI ranks) the input records."""
        return self._native.nprocs

    @property
    def metadata(self) -> Dict[str, Any]:
        """``path``, ``kind``, ``nprocs`` and what the input records (a
        database's parts and header versions, a log's AMReX version, ...)."""
        return dict(self._metadata)

    def functions(self) -> "pyarrow.Table":  # noqa: F821
        """One row per function, as ``profparse summary --format json``:
        ``name``, ``calls`` (over all processes), ``ncalls`` (process 0's),
        ``min``/``avg``/``max`` exclusive seconds over processes, ``stddev``,
        ``coeff_var``, ``percent``, ``min_proc``, ``max_proc``, ``imbalance``."""
        stream, messages = self._native.functions()
        _warn(messages)
        return _table(stream)

    def calltree(
        self,
        rank: Optional[int] = None,
        *,
        include_regions: Sequence[str] = (),
        exclude_regions: Sequence[str] = (),
    ) -> "pyarrow.Table":  # noqa: F821
        """The call-path tree, one row per (node, rank): ``node``, ``parent``
        (null at the top), ``name``, ``depth``, ``rank``, ``calls``,
        ``inclusive``, ``exclusive`` (seconds). ``rank=N``: that process
        only, as ``profparse calltree --proc N``. Region names or globs as
        ``--include-region`` / ``--exclude-region``."""
        if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
            raise ValueError(f"rank must be a process number (an int >= 0), not {rank!r}")
        stream, messages = self._native.calltree(
            rank, list(include_regions), list(exclude_regions)
        )
        _warn(messages)
        return _table(stream)

    def __repr__(self) -> str:
        return f"profparse.Run(kind={self.kind!r}, nprocs={self.nprocs!r}, path={self.path!r})"


def open(path: Union[str, "os.PathLike[str]"]) -> Run:  # noqa: A001
    """Reads the input at ``path`` as ``profparse`` does: a bl_prof database
    (or the run folder holding its ``bl_prof``), a job log with TinyProfiler
    reports, a tlog trace or a timer-tree file. Raises :class:`Error` (a
    subclass of it) with the library's message when it cannot."""
    native, messages = _profparse.open(os.fspath(path))
    _warn(messages)
    return Run(native)
