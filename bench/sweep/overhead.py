#!/usr/bin/env python3
"""The sweep engine's overhead per run (issue 14): the same runs as a plain loop in one
process, and as `tcplab.sweep` on a 2-worker local Dask cluster.

    .venv/bin/python bench/sweep/overhead.py                       # 1 simulated second, light runs
    .venv/bin/python bench/sweep/overhead.py --workload dumbbell --seeds 25   # heavier runs
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
#: Two workloads of 1 simulated second: a light one (one flow on a 10 Mbit/s link with
#: random loss: well under a millisecond of wall time per run, the worst case for any
#: scheduler) and a heavier one (ns-3's dumbbell-10: ten flows through 100 Mbit/s).
WORKLOADS = {
    "p2p": (ROOT / "python" / "tcplab" / "scenarios" / "examples" / "p2p-bulk.toml", {
        "topology.downlink.rate": ["5Mbit/s", "10Mbit/s", "20Mbit/s", "40Mbit/s"],
        "topology.downlink.loss": [{"kind": "bernoulli", "p": p} for p in (0.001, 0.01)],
    }),
    "dumbbell": (ROOT / "bench" / "ns3-compare" / "dumbbell-10.toml", {
        "topology.bottleneck.rate": ["50Mbit/s", "100Mbit/s"],
        "topology.bottleneck.queue": ["500pkts", "1000pkts"],
    }),
}


def sweep_doc(duration: str, seeds: int, workload: str = "p2p") -> dict:
    scenario, grid = WORKLOADS[workload]
    return {"scenario": str(scenario), "seeds": {"first": 1, "count": seeds}, "grid": {"duration": [duration], **grid}}


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


def _pool_chunk(args):
    import importlib

    sweeps = importlib.import_module("tcplab.sweeps")
    shared, runs = args
    return [sweeps._execute_packed(shared, r) for r in runs]


def pool_reference(sw, workers: int) -> float:
    """The same worker function on a plain multiprocessing pool (warmed up, chunks of 100,
    nothing stored): what two processes on this machine reach without Dask."""
    import importlib
    import multiprocessing as mp

    sweeps = importlib.import_module("tcplab.sweeps")
    cols = tuple(sw.columns())
    shared = sweeps._Shared(sw.scenario.source, sw.scenario._source_bytes, str(sw.scenario.base_dir), cols,
                            tuple((k, t) for k, t in cols if k in sw.grid))
    runs = list(sw.runs())
    with mp.get_context("spawn").Pool(workers) as pool:
        pool.map(_pool_chunk, [(shared, runs[:2])] * workers)
        t0 = time.perf_counter()
        pool.map(_pool_chunk, [(shared, runs[i:i + 100]) for i in range(0, len(runs), 100)])
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
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="p2p", help="which runs (default p2p)")
    ap.add_argument("--duration", default="1s", help="simulated time of each run (default 1s)")
    ap.add_argument("--seeds", type=int, default=100, help="seeds per grid point (default 100)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions; medians are reported (default 3)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "python"))
    import tcplab
    import importlib

    sweep_mod = importlib.import_module("tcplab.sweeps")

    sw = tcplab.load_sweep(sweep_doc(args.duration, args.seeds, args.workload))
    # Time the row stream alone: from the first to the last row the store receives.
    stamps: list[float] = []
    orig_add = sweep_mod._Store.add

    def add(self, rows):
        stamps.append(time.perf_counter())
        return orig_add(self, rows)

    sweep_mod._Store.add = add
    loops, walls, streams, pools = [], [], [], []
    for _ in range(args.repeat):
        loops.append(plain_loop(sw))
        pools.append(pool_reference(sw, args.workers))
        stamps.clear()
        t0 = time.perf_counter()
        wall, _ = engine_sweep(sw, args.workers)
        walls.append(wall)
        streams.append(stamps[-1] - stamps[0])
    loop, wall, stream = statistics.median(loops), statistics.median(walls), statistics.median(streams)
    pool = statistics.median(pools)
    ideal = loop / args.workers
    n = sw.size
    print(f"{n} runs of {args.duration} simulated ({args.workload}: {sw.scenario_path.name}, "
          f"{n // args.seeds} grid points x {args.seeds} seeds), medians of {args.repeat}")
    print(f"  plain loop, 1 process      {loop:7.2f} s  ({loop / n * 1e3:.2f} ms per run)")
    print(f"  multiprocessing pool, {args.workers}     {pool:7.2f} s  (reference, nothing stored) vs loop/{args.workers}: "
          f"{pool / ideal - 1:+.1%}")
    print(f"  sweep, {args.workers} workers, whole  {wall:7.2f} s  overhead vs loop/{args.workers}: {wall / ideal - 1:+.1%}")
    print(f"  sweep, first->last row     {stream:7.2f} s  overhead per run vs loop/{args.workers}: "
          f"{stream / ideal - 1:+.1%}  ({(stream - ideal) / n * 1e3:+.3f} ms per run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
