#!/usr/bin/env python3
"""The `linux` profile beside the kernel (issue 36, "Sim beside live"): `tcplab compare` on
every scenario of this folder (long flows, a trace link, a concurrent upload, a read-limited
receiver, a BSF and a DARCA node), one at a time. Each run's compare.json is stored in
`results/NAME.json` (rows: per flow goodput, retransmissions, RTT, one-way delay, completion;
per link utilisation, queue drops, queue maximum; per element its counters and report; the
live run's accuracy); the table of all of them goes to `results.md`, which docs/live.md
quotes.

Usage: .venv/bin/python bench/live-vs-sim/run.py [NAME ...] [--wait-idle]
A live run is not bit-identical: its numbers move between runs by the kernel's and the
scheduler's timing; the table says the release lateness of each run so an overloaded one
can be told apart. Needs root and /dev/net/tun."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def wait_idle() -> float:
    """bench/live's idle wait (bench/scale's rule: one definition of idle), loaded by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_live_run", ROOT / "bench" / "live" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.wait_idle()


SHOWN = {("flow", "goodput_mbps"), ("flow", "retransmits"), ("flow", "rtt_mean_ms"),
         ("link", "utilization"), ("link", "drops_queue"), ("element", "dropped"), ("element", "created")}


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="scenarios (file stems) to run; default all")
    ap.add_argument("--wait-idle", action="store_true", help="wait for idle cores before each scenario")
    ap.add_argument("--report", action="store_true", help="only rebuild results.md from the stored results")
    a = ap.parse_args()
    names = [] if a.report else (a.names or sorted(p.stem for p in HERE.glob("*.toml")))
    (HERE / "results").mkdir(exist_ok=True)
    for name in names:
        if a.wait_idle:
            wait_idle()
        with tempfile.TemporaryDirectory(prefix="tcplab-lvs-") as t:
            out = Path(t) / "o"
            t0 = time.monotonic()
            p = subprocess.run([sys.executable, "-m", "tcplab", "compare", str(HERE / f"{name}.toml"), "--out", str(out),
                                "--no-plots"], capture_output=True, text=True, cwd=ROOT, timeout=900)
            if p.returncode != 0:
                print(f"error: compare {name} exited {p.returncode}: {p.stderr.strip()[-600:]}", file=sys.stderr)
                return 1
            doc = json.loads((out / "compare.json").read_text())
            doc["date"] = time.strftime("%Y-%m-%d")
            doc["wall_s"] = round(time.monotonic() - t0, 1)
            (HERE / "results" / f"{name}.json").write_text(json.dumps(doc, indent=2) + "\n")
            print(f"{name}: done in {doc['wall_s']} s", file=sys.stderr)
    lines = ["`tcplab compare` on bench/live-vs-sim (sim: the `linux` profile; live: kernel TCP over `tcplab emulate`). "
             "Differences are live's, in percent of sim.", ""]
    for name in sorted(p.stem for p in (HERE / "results").glob("*.json")):
        d = json.loads((HERE / "results" / f"{name}.json").read_text())
        lat = d["live"]["accuracy"]["lateness_us"]
        lines += [f"### {name} ({d['date']}; live release lateness p99 {lat['p99_us']:.0f} us, max {lat['max_us']:.0f} us"
                  + ("" if d["live"]["accuracy"]["within_bound"] else "; BEYOND THE BOUND") + ")", "",
                  "| entity | metric | sim | live | live - sim |", "|---|---|---:|---:|---:|"]
        for r in d["rows"]:
            if (r["kind"], r["metric"]) not in SHOWN:
                continue
            diff = "-" if r["diff_pct"] is None else f"{r['diff_pct']:+.1f}%"
            lines.append(f"| {r['kind']} {r['name']} | {r['label']} | {fmt(r['sim'])} | {fmt(r['live'])} | {diff} |")
        lines.append("")
    (HERE / "results.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
