#!/usr/bin/env python3
"""The sweep engine's overhead per run (issue 14): the same runs as a plain loop in one
process, and as `tcplab.sweep` on a 2-worker local Dask cluster.

    .venv/bin/python bench/sweep/overhead.py                  # 1 simulated second per run
    .venv/bin/python bench/sweep/overhead.py --duration 60s   # longer runs
    .venv/bin/python bench/sweep/overhead.py --repeat 5       # medians of 5 (default 3)

The plain loop is what a user would write: validate each grid point once, run it for every
seed, keep the summaries. The sweep does the same work on 2 worker processes and also
writes every row to Parquet. With 2 workers the ideal sweep takes half the loop's time, so

    overhead = sweep_wall / (loop_wall / 2) - 1

is reported twice: for the whole command (cluster start-up and shutdown included), and per
run (the time from the first to the last stored row, i.e. without the fixed start-up). The
machine should be otherwise idle (2 cores are what both use).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "python" / "tcplab" / "scenarios" / "examples" / "p2p-bulk.toml"


def sweep_doc(duration: str, seeds: int) -> dict:
    return {
        "scenario": str(SCENARIO),
        "seeds": {"first": 1, "count": seeds},
        "grid": {
            "duration": [duration],
            "topology.downlink.rate": ["5Mbit/s", "10Mbit/s", "20Mbit/s", "40Mbit/s"],
            "topology.downlink.loss": [{"kind": "bernoulli", "p": p} for p in (0.001, 0.01)],
        },
    }


def plain_loop(sw) -> float:
    import tcplab

    t0 = time.perf_counter()
    rows = []
    keys = list(sw.grid)
    import itertools

    for combo in itertools.product(*(sw.grid[k] for k in keys)):
        sc = sw.scenario.with_overrides(dict(zip(keys, combo)) | {"record.timeseries": False})
        for seed in sw.seeds:
            rows.append(tcplab.run(sc, seed=seed).summary)
    return time.perf_counter() - t0


def engine_sweep(sw, workers: int) -> tuple[float, float]:
    import tcplab

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        df = tcplab.sweep(sw, out=Path(tmp) / "s", workers=workers)
        wall = time.perf_counter() - t0
    assert (df["status"] == "ok").all() and len(df) == sw.size
    return wall, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", default="1s", help="simulated time of each run (default 1s)")
    ap.add_argument("--seeds", type=int, default=100, help="seeds per grid point (8 points; default 100)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions; medians are reported (default 3)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "python"))
    import tcplab
    import importlib

    sweep_mod = importlib.import_module("tcplab.sweeps")

    sw = tcplab.load_sweep(sweep_doc(args.duration, args.seeds))
    # Time the row stream alone: from the first to the last row the store receives.
    stamps: list[float] = []
    orig_add = sweep_mod._Store.add

    def add(self, rows):
        stamps.append(time.perf_counter())
        return orig_add(self, rows)

    sweep_mod._Store.add = add
    loops, walls, streams = [], [], []
    for _ in range(args.repeat):
        loops.append(plain_loop(sw))
        stamps.clear()
        t0 = time.perf_counter()
        wall, _ = engine_sweep(sw, args.workers)
        walls.append(wall)
        streams.append(stamps[-1] - stamps[0])
    loop, wall, stream = statistics.median(loops), statistics.median(walls), statistics.median(streams)
    ideal = loop / args.workers
    n = sw.size
    print(f"{n} runs of {args.duration} simulated (p2p-bulk example with random loss, 8 grid points x {args.seeds} seeds), "
          f"medians of {args.repeat}")
    print(f"  plain loop, 1 process      {loop:7.2f} s  ({loop / n * 1e3:.2f} ms per run)")
    print(f"  sweep, {args.workers} workers, whole  {wall:7.2f} s  overhead vs loop/{args.workers}: {wall / ideal - 1:+.1%}")
    print(f"  sweep, first->last row     {stream:7.2f} s  overhead per run vs loop/{args.workers}: "
          f"{stream / ideal - 1:+.1%}  ({(stream - ideal) / n * 1e3:+.3f} ms per run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
