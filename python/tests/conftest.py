"""Shared helpers: the repository's fixtures and the CLI whose JSON the
tables must equal (target/debug/profparse, or $PROFPARSE_BIN)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
BLPROF = sorted(p for p in (FIXTURES / "blprof").glob("*/bl_prof") if p.is_dir())


def cli_path() -> Path:
    given = os.environ.get("PROFPARSE_BIN")
    path = Path(given) if given else ROOT / "target" / "debug" / "profparse"
    if not path.is_file():
        pytest.fail(
            f"the profparse CLI is not built at {path}: run `cargo build --bin profparse` "
            "(python/run-tests.sh does) or set PROFPARSE_BIN"
        )
    return path


def cli(*args: str) -> Tuple[int, str, List[str]]:
    """Runs the CLI: exit code, stdout, and stderr's lines (the `warning: `
    and `error: ` prefixes removed)."""
    done = subprocess.run(
        [str(cli_path()), *args], capture_output=True, text=True, timeout=120
    )
    lines = []
    for line in done.stderr.splitlines():
        for prefix in ("warning: ", "error: "):
            if line.startswith(prefix):
                line = line[len(prefix):]
        lines.append(line)
    return done.returncode, done.stdout, lines


def cli_json(*args: str):
    code, out, err = cli(*args, "--format", "json")
    assert code == 0, f"profparse {' '.join(args)} failed: {err}"
    return json.loads(out)
