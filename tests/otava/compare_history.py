"""`profparse history` against Apache Otava on the same series (issue 42).

Generates a family of runs of one job with `profparse synth tinyprofiler`
(one job log per run, T timers, log-normal run-to-run noise, now and then
an outlier run in which every timer is 15 % slower) in which every timer
steps twice, at places drawn at random: first up, then up or down, each
step 5 times the noise. Reads the series back with `profparse history
--format json`, gives the very same values to Otava's
`compute_change_points` (its default window of 50 runs and p of 0.001,
and the same 2 % floor as profparse), and counts for both the steps found
within one run of the truth and the change points that match no step.

Passes when profparse finds at least as many true steps as Otava and no
more false ones. Run by .ci/run with Otava in its own virtualenv:

    python compare_history.py PROFPARSE_BIN WORKDIR [--seed N]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

RUNS = 60
TIMERS = 60
NOISE = 0.02
STEP = 5 * NOISE
OUTLIER_RATE = 0.05
OUTLIER_FACTOR = 1.15


def generate(binary: str, out: Path, rng: random.Random):
    """The job logs, and each timer's true steps (first run after each)."""
    steps = {}
    for t in range(TIMERS):
        a = rng.randrange(15, 25)
        b = rng.randrange(35, 45)
        second = STEP if rng.random() < 0.5 else -STEP
        steps[t] = [(a, STEP), (b, second)]
    out.mkdir(parents=True, exist_ok=True)
    for r in range(RUNS):
        outlier = OUTLIER_FACTOR if rng.random() < OUTLIER_RATE else 1.0
        args = [binary, "synth", "tinyprofiler", str(out / f"run{r:03}.log"),
                "--timers", str(TIMERS), "--noise", str(NOISE), "--seed", str(r + 1)]
        for t, ts in steps.items():
            factor = outlier
            for at, size in ts:
                if r >= at:
                    factor *= 1 + size
            if factor != 1.0:
                args += ["--slower", f"{t}:{factor!r}"]
        subprocess.run(args, check=True)
    return steps


def score(found, truth):
    """(true steps found within one run, change points matching no step)."""
    hit = sum(any(abs(f - at) <= 1 for f in found) for at, _ in truth)
    false = sum(all(abs(f - at) > 1 for at, _ in truth) for f in found)
    return hit, false


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("profparse")
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    from otava.analysis import compute_change_points

    rng = random.Random(args.seed)
    runs = args.workdir / "runs"
    truth = generate(args.profparse, runs, rng)
    done = subprocess.run([args.profparse, "history", str(runs), "--format", "json"],
                          check=True, capture_output=True, text=True)
    history = json.loads(done.stdout)
    assert len(history["runs"]) == RUNS, history["runs"][:3]

    totals = {"profparse": [0, 0], "otava": [0, 0]}
    for timer in history["timers"]:
        t = int(timer["name"][len("Timer"):len("Timer") + 4])
        ours = [c["index"] for c in timer["change_points"]]
        theirs, _ = compute_change_points(timer["values"], window_len=50,
                                          max_pvalue=0.001, min_magnitude=0.02)
        theirs = [int(c.index) for c in theirs]
        for name, found in (("profparse", ours), ("otava", theirs)):
            hit, false = score(found, truth[t])
            totals[name][0] += hit
            totals[name][1] += false
    steps = 2 * TIMERS
    print(f"{TIMERS} series of {RUNS} runs, {steps} steps of {STEP:.0%} at {NOISE:.0%} noise, "
          f"outlier runs {OUTLIER_RATE:.0%}:")
    print("| tool | steps found (±1 run) | false change points |")
    print("|---|---|---|")
    for name, (hit, false) in totals.items():
        print(f"| {name} | {hit} of {steps} | {false} |")
    (ph, pf), (oh, of) = totals["profparse"], totals["otava"]
    if ph < oh or pf > of:
        print("profparse does worse than Otava", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
