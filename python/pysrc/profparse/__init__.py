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
import math
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

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
    "thicket",
]
__version__ = _profparse.__version__


class ProfparseWarning(UserWarning):
    """Something a reader could not read, or a known quirk of the data
    (the CLI's ``warning:`` lines): the result is still given."""


def _warn(messages: List[str], stacklevel: int = 3) -> None:
    for message in messages:
        warnings.warn(message, ProfparseWarning, stacklevel=stacklevel)


def _rank(rank: Optional[int]) -> Optional[int]:
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
        raise ValueError(f"rank must be a process number (an int >= 0), not {rank!r}")
    return rank


def _select(
    rank: Optional[int],
    time: Optional[Tuple[Optional[float], Optional[float]]],
    include_regions: Sequence[str],
    exclude_regions: Sequence[str],
) -> Dict[str, Any]:
    """The keywords of a comm table as the native module takes them."""
    if time is None:
        time = (None, None)
    if isinstance(time, (str, bytes)) or len(time) != 2:
        raise ValueError(f"time must be (t0, t1) in seconds, None for an open end, not {time!r}")
    t0 = -math.inf if time[0] is None else float(time[0])
    t1 = math.inf if time[1] is None else float(time[1])
    if math.isnan(t0) or math.isnan(t1) or t0 > t1:
        raise ValueError(f"time={time!r}: not a window (t0 <= t1, no NaN)")
    for name, regions in (("include_regions", include_regions),
                          ("exclude_regions", exclude_regions)):
        if isinstance(regions, (str, bytes)):
            raise ValueError(f"{name} must be a list of region names, not the string {regions!r}")
    return {
        "rank": _rank(rank),
        "window": (t0, t1),
        "include_regions": list(include_regions),
        "exclude_regions": list(exclude_regions),
    }


def _path_or_none(path: Optional[Union[str, "os.PathLike[str]"]]) -> Optional[str]:
    return None if path is None else os.fspath(path)


def _table(stream: Any) -> "pyarrow.Table":  # noqa: F821
    import pyarrow as pa

    # The Arrow PyCapsule interface (`__arrow_c_stream__`): no copy.
    return pa.RecordBatchReader.from_stream(stream).read_all()


class Run:
    """One input that :func:`open` read: a bl_prof database, a TinyProfiler
    log, a tlog trace or a timer tree."""

    def __init__(self, native: Any) -> None:
        self._native = native
        # Made on first use: a database's summary reads every comm header.
        self._metadata: Optional[Dict[str, Any]] = None

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
        if self._metadata is None:
            self._metadata = json.loads(self._native.metadata_json)
        return dict(self._metadata)

    def functions(
        self,
        *,
        run: Optional[int] = None,
        event_names: Optional[Union[str, "os.PathLike[str]"]] = None,
    ) -> "pyarrow.Table":  # noqa: F821
        """One row per function. A database, as ``profparse summary --format
        json``: ``name``, ``calls`` (over all processes), ``ncalls`` (process
        0's), ``min``/``avg``/``max`` exclusive seconds over processes,
        ``stddev``, ``coeff_var``, ``percent``, ``min_proc``, ``max_proc``,
        ``imbalance``. A TinyProfiler log, its timers (``run=N``: the N-th
        report of the log, 1 = the first, as ``--run``; default the last).
        A tlog trace, its kinds of interval as ``profparse tlog summary``'s
        ``across`` (``event_names``: a names file, as ``--event-names``)."""
        stream, messages = self._native.functions(run, _path_or_none(event_names))
        _warn(messages)
        return _table(stream)

    def calltree(
        self,
        rank: Optional[int] = None,
        *,
        include_regions: Sequence[str] = (),
        exclude_regions: Sequence[str] = (),
        run: Optional[int] = None,
        event_names: Optional[Union[str, "os.PathLike[str]"]] = None,
    ) -> "pyarrow.Table":  # noqa: F821
        """The call-path tree, one row per (node, rank): ``node``, ``parent``
        (null at the top), ``name``, ``depth``, ``rank``, ``calls``,
        ``inclusive``, ``exclusive`` (seconds). ``rank=N``: that process
        only, as ``profparse calltree --proc N`` (``tlog tree --proc N``).
        Region names or globs as ``--include-region`` /
        ``--exclude-region``; ``run`` and ``event_names`` as in
        :meth:`functions`."""
        stream, messages = self._native.calltree(
            _rank(rank),
            list(include_regions),
            list(exclude_regions),
            run,
            _path_or_none(event_names),
        )
        _warn(messages)
        return _table(stream)

    def regions(self, rank: Optional[int] = None) -> "pyarrow.Table":  # noqa: F821
        """bl_prof with call traces: one row per region, as ``profparse regions
        --format json``'s ``regions``: ``name``, ``number``, ``count`` (ranges
        over all processes), ``total``, ``min``, ``avg``, ``max`` (seconds per
        process), ``max_proc``. ``rank=N``: that process's ranges in time
        order instead (``regions --proc N``'s ``ranges``): ``region``,
        ``number``, ``start``, ``stop``."""
        return self._read(self._native.regions(_rank(rank)))

    def comm(
        self,
        *,
        by: str = "type",
        rank: Optional[int] = None,
        time: Optional[Tuple[Optional[float], Optional[float]]] = None,
        include_regions: Sequence[str] = (),
        exclude_regions: Sequence[str] = (),
    ) -> "pyarrow.Table":  # noqa: F821
        """bl_prof with comm data: the MPI calls counted, as ``profparse comm
        stats --format json``. ``by="type"``: one row per MPI call type
        (``by_type``: ``type``, ``number``, ``calls``, ``records``,
        ``reference_calls``, ``bytes``); ``by="proc"``: one per process
        (``procs``). ``rank=N`` is ``--proc N``; ``time=(t0, t1)`` (seconds,
        ``None`` for an open end) is ``--time T0..T1``; region names or globs
        as ``--include-region`` / ``--exclude-region`` (needs call traces)."""
        return self._read(self._native.comm(
            by, _select(rank, time, include_regions, exclude_regions)))

    def messages(
        self,
        *,
        align_clocks: bool = False,
        rank: Optional[int] = None,
        time: Optional[Tuple[Optional[float], Optional[float]]] = None,
        include_regions: Sequence[str] = (),
        exclude_regions: Sequence[str] = (),
    ) -> "pyarrow.Table":  # noqa: F821
        """bl_prof with comm data: each send paired with its receive, as
        ``profparse comm pairs --format json``'s ``pairs`` (``from``, ``to``,
        ``tag``, ``size``, ``send_time``, ``recv_time``, ``latency``,
        ``completed_time``, ``latency_to_completion``), then its unmatched
        sends and receives (``unmatched`` ``"send"``/``"recv"``, ``type``,
        the missing side null). ``align_clocks=True`` is
        ``--align-clocks``; ``rank``, ``time``, ``include_regions``,
        ``exclude_regions`` as in :meth:`comm`."""
        return self._read(self._native.messages(
            bool(align_clocks), _select(rank, time, include_regions, exclude_regions)))

    def waits(
        self,
        align_clocks: bool = False,
        *,
        by: str = "proc",
        top: Optional[int] = 20,
        rank: Optional[int] = None,
        time: Optional[Tuple[Optional[float], Optional[float]]] = None,
        include_regions: Sequence[str] = (),
        exclude_regions: Sequence[str] = (),
    ) -> "pyarrow.Table":  # noqa: F821
        """bl_prof with comm data: wait states, as ``profparse comm waits
        [--align-clocks] --format json``. ``by="proc"``: seconds waited per
        process and state and what it caused others (``procs``);
        ``"type"``: per state and MPI call type (``types``); ``"path"``: per
        call path and type (``paths``, needs call traces); ``"wait"``: the
        ``top`` longest waits (``top``; ``top=None``: every wait).
        ``rank``, ``time``, ``include_regions``, ``exclude_regions`` as
        in :meth:`comm`."""
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 0):
            raise ValueError(f"top must be an int >= 0 or None, not {top!r}")
        return self._read(self._native.waits(
            bool(align_clocks), by, top, _select(rank, time, include_regions, exclude_regions)))

    def mpi_time(
        self,
        *,
        by: str = "type",
        rank: Optional[int] = None,
        time: Optional[Tuple[Optional[float], Optional[float]]] = None,
        include_regions: Sequence[str] = (),
        exclude_regions: Sequence[str] = (),
    ) -> "pyarrow.Table":  # noqa: F821
        """bl_prof with comm data: seconds in MPI, as ``profparse comm time
        --format json``. ``by="type"``: per MPI call type (``by_type``);
        ``"size"``: calls per type and message-size bucket (its ``sizes``);
        ``"proc"``: per process (``procs``); ``"proc_type"``: per process and
        type (``procs[].by_type``); ``"path"``, ``"region"``: per call path
        and type, per region (``paths``, ``regions``; need call traces).
        ``rank``, ``time``, ``include_regions``, ``exclude_regions`` as
        in :meth:`comm`."""
        return self._read(self._native.mpi_time(
            by, _select(rank, time, include_regions, exclude_regions)))

    @staticmethod
    def _read(built: Any) -> "pyarrow.Table":  # noqa: F821
        stream, messages = built
        _warn(messages, stacklevel=4)
        return _table(stream)

    def graphframe(
        self,
        *,
        include_regions: Sequence[str] = (),
        exclude_regions: Sequence[str] = (),
        run: Optional[int] = None,
        event_names: Optional[Union[str, "os.PathLike[str]"]] = None,
    ) -> "hatchet.GraphFrame":  # noqa: F821
        """The call tree as a Hatchet ``GraphFrame`` (``pip install
        llnl-hatchet``): its dataframe indexed by (node, rank) where the
        input has ranks (a bl_prof database, a tlog trace), by node otherwise, with the
        metrics ``time`` (exclusive seconds), ``time (inc)`` and ``calls``
        and a ``name`` column. A node a rank never entered has zeros at that
        rank, as Hatchet's readers give. Built from :meth:`calltree`."""
        import pandas as pd
        from hatchet import GraphFrame
        from hatchet.frame import Frame
        from hatchet.graph import Graph
        from hatchet.node import Node

        table = self.calltree(
            include_regions=include_regions,
            exclude_regions=exclude_regions,
            run=run,
            event_names=event_names,
        )
        cols = table.select(["node", "parent", "name"]).to_pydict()
        shape: Dict[int, Any] = {}
        for node, parent, name in zip(cols["node"], cols["parent"], cols["name"]):
            shape.setdefault(node, (parent, name))
        # Node numbers are a pre-order: a parent comes before its children.
        nodes: Dict[int, Any] = {}
        roots = []
        for number in sorted(shape):
            parent, name = shape[number]
            up = nodes[parent] if parent is not None else None
            node = Node(Frame({"name": name, "type": "function"}), up)
            if up is None:
                roots.append(node)
            else:
                up.add_child(node)
            nodes[number] = node
        graph = Graph(roots)
        graph.enumerate_traverse()

        df = table.select(["node", "rank", "calls", "inclusive", "exclusive"]).to_pandas()
        df = df.rename(columns={"exclusive": "time", "inclusive": "time (inc)"})
        df["node"] = df["node"].map(nodes)
        ranked = df["rank"].notna().any()
        if ranked:
            df["rank"] = df["rank"].astype("int64")
            ranks = sorted(df["rank"].unique())
            full = pd.MultiIndex.from_product(
                [list(nodes.values()), ranks], names=["node", "rank"]
            )
            df = df.set_index(["node", "rank"]).reindex(full, fill_value=0)
        else:
            df = df.drop(columns=["rank"]).set_index("node")
        df["calls"] = df["calls"].astype("uint64")
        df["name"] = [n.frame["name"] for n in df.index.get_level_values("node")]
        df = df[["name", "time", "time (inc)", "calls"]].sort_index()
        return GraphFrame(
            graph,
            df,
            exc_metrics=["time"],
            inc_metrics=["time (inc)"],
            default_metric="time",
            metadata=self.metadata,
        )

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


def thicket(
    paths: Sequence[Union[str, "os.PathLike[str]"]],
    *,
    intersection: bool = False,
) -> "thicket.Thicket":  # noqa: F821
    """A Thicket (``pip install llnl-thicket``) of several runs: one profile
    per path, each :func:`open`-ed and made a GraphFrame
    (:meth:`Run.graphframe`); its metadata table is the runs' ``metadata``
    (``path``, ``kind``, ``nprocs``, ...), one row per profile, so that
    ``Thicket.groupby("nprocs")`` and ``thicket.stats`` work. The call trees
    are united (``intersection=True``: only the nodes every run has). The
    runs must all have ranks (bl_prof databases, tlog traces) or all have none
    (TinyProfiler logs, timer trees): the dataframes' indices must agree."""
    from thicket import Thicket

    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("thicket() needs at least one path")
    frames = [Thicket.thicketize_graphframe(open(p).graphframe(), p) for p in paths]
    if len(frames) == 1:
        return frames[0]
    return Thicket.concat_thickets(
        thickets=frames,
        axis="index",
        calltree="intersection" if intersection else "union",
        disable_tqdm=True,
    )
