"""Times the Python package on generated inputs (bench/python.sh runs it).

    python_bench.py calltree DB [--runs N]      open() + calltree(): rows/s, best of N
    python_bench.py memory DB                   peak memory of open() + calltree()
    python_bench.py logs FIXTURES OUT --count N writes N TinyProfiler logs
    python_bench.py thicket DIR [--runs N]      profparse's part of thicket() (the tables),
                                                then the GraphFrames and thicket() itself

Memory is defined as: the peak resident set (VmHWM) of this process while
`run.calltree()` runs, minus the resident set (VmRSS) just before it (the
database already open), compared with the table's own bytes
(`pyarrow.Table.nbytes`); and the same from just before `profparse.open()`
(the database's index included). The peak is reset to the current resident
set by writing 5 to /proc/self/clear_refs (Linux); the script says so when
the kernel refuses.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import profparse
# Imported here, not on the first table: its import (some 40 MB) is not the
# call's memory.
import pyarrow  # noqa: F401


def status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def calltree(args: argparse.Namespace) -> None:
    best = None
    rows = 0
    for _ in range(args.runs):
        t0 = time.perf_counter()
        table = profparse.open(args.db).calltree()
        seconds = time.perf_counter() - t0
        rows = table.num_rows
        del table
        best = seconds if best is None else min(best, seconds)
    print(f"calltree: {rows} rows, best of {args.runs}: {best:.3f} s, "
          f"{rows / best / 1e6:.2f} M rows/s")


def reset_peak() -> bool:
    """Sets the peak resident set (VmHWM) to the current one."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def memory(args: argparse.Namespace) -> None:
    reset = reset_peak()
    before_open = status_kb("VmRSS")
    run = profparse.open(args.db)
    peak_open = status_kb("VmHWM")
    reset = reset_peak() and reset
    before_call = status_kb("VmRSS")
    table = run.calltree()
    peak_call = status_kb("VmHWM")
    whole = (max(peak_open, peak_call) - before_open) * 1024
    call = (peak_call - before_call) * 1024
    nbytes = table.nbytes
    note = "" if reset else " (the kernel refused to reset the peak: figures too high)"
    print(f"calltree memory: table {nbytes / 1e6:.1f} MB ({table.num_rows} rows); peak above "
          f"the start: calltree() {call / 1e6:.1f} MB = {call / nbytes:.2f}x the table, "
          f"open() + calltree() {whole / 1e6:.1f} MB = {whole / nbytes:.2f}x{note}")


# A timer row of a TinyProfiler table: name, calls, min, avg, max, percent.
ROW = re.compile(r"^(.*?\S)(\s+)(\d+)(\s+)(\S+)(\s+)(\S+)(\s+)(\S+)(\s+)(\S+%)$")


def vary(text: str, factor: float) -> str:
    """The log with every timer's min, avg and max scaled by `factor`."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        m = ROW.match(body)
        if m:
            g = list(m.groups())
            try:
                for i in (4, 6, 8):
                    g[i] = f"{float(g[i]) * factor:.4g}"
                body = "".join(g)
            except ValueError:
                pass  # not a timer row after all
        out.append(body + ("\n" if line.endswith("\n") else ""))
    return "".join(out)


def logs(args: argparse.Namespace) -> None:
    sources = sorted(Path(args.fixtures).glob("singlevortex_24.10_np[124].txt"))
    if not sources:
        sys.exit(f"no singlevortex_24.10_np*.txt in {args.fixtures}")
    texts = [s.read_text() for s in sources]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(args.count):
        text = vary(texts[i % len(texts)], 1.0 + 0.001 * i)
        (out / f"run{i:05d}.txt").write_text(text)


def thicket(args: argparse.Namespace) -> None:
    paths = sorted(str(p) for p in Path(args.dir).glob("run*.txt"))
    n = len(paths)

    def best_of(f) -> float:
        best = None
        for _ in range(args.runs):
            t0 = time.perf_counter()
            f()
            s = time.perf_counter() - t0
            best = s if best is None else min(best, s)
        return best

    rows = sum(profparse.open(p).calltree().num_rows for p in paths)
    s = best_of(lambda: [profparse.open(p).calltree() for p in paths])
    print(f"thicket, profparse's part (open + calltree of {n} logs, {rows} rows), "
          f"best of {args.runs}: {s:.3f} s, {n / s:.0f} logs/s")
    s = best_of(lambda: [profparse.open(p).graphframe() for p in paths])
    print(f"thicket, GraphFrames ({n} logs), best of {args.runs}: {s:.3f} s, {n / s:.0f} logs/s")
    t0 = time.perf_counter()
    tk = profparse.thicket(paths)
    s = time.perf_counter() - t0
    print(f"thicket() whole ({n} logs, {len(tk.profile)} profiles), once: {s:.3f} s, "
          f"{n / s:.0f} logs/s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="what", required=True)
    c = sub.add_parser("calltree")
    c.add_argument("db")
    c.add_argument("--runs", type=int, default=5)
    m = sub.add_parser("memory")
    m.add_argument("db")
    g = sub.add_parser("logs")
    g.add_argument("fixtures")
    g.add_argument("out")
    g.add_argument("--count", type=int, default=1000)
    t = sub.add_parser("thicket")
    t.add_argument("dir")
    t.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    {"calltree": calltree, "memory": memory, "logs": logs, "thicket": thicket}[args.what](args)


if __name__ == "__main__":
    main()
