"""Smoke test of the scale benchmark (bench/scale/run.py, issue 18).

The benchmark itself is not a timed test: this runs its --quick mode (dumbbells of 1 and 10
flows for 0.5 simulated seconds, p2p-1 and the open-loop workload at half load, one process
each, no ns-3) and checks that it
completes and that its results file holds the fields docs/performance.md is made from, with
sane values. No speed is asserted.
"""

import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO as ROOT


def test_scale_benchmark_quick_run(tmp_path: Path):
    out, png = tmp_path / "scale.json", tmp_path / "cost.png"
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "scale" / "run.py"), "--quick", "--no-ns3",
         "--out", str(out), "--plot", str(png)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(out.read_text())
    assert res["meta"]["quick"] and res["meta"]["runs"] == 1

    db = {row["flows"]: row for row in res["rows"] if row["kind"] == "dumbbell"}
    assert sorted(db) == [1, 10]
    for n, row in db.items():
        assert row["sim_s"] == 0.5
        assert 0 < row["setup_s"] < 30, n
        assert 2**20 < row["idle_rss_bytes"] < 2**30, n
        t = row["tcplab"]
        assert t["pkts"] > 0 and t["events"] > t["pkts"], n
        assert 0 < t["wall_s"] < 60 and 0 < t["run_wall_s"] <= t["wall_s"], n
        assert t["pkts_per_wall_s"] == t["pkts"] / t["wall_s"]
        assert t["ns_per_pkt"] > 0 and t["run_pkts_per_wall_s"] >= t["pkts_per_wall_s"]
        assert 2**20 < t["peak_rss_bytes"] < 2**30, n
        assert row["ns3"] == {"skipped": "not run (--no-ns3)"}
    # Ten flows on the same 1 Gbit/s bottleneck move more than one flow in slow start.
    assert db[10]["tcplab"]["pkts"] > db[1]["tcplab"]["pkts"]
    assert db[10]["idle_marginal_bytes_per_flow"] is not None

    (ref,) = [row for row in res["rows"] if row["kind"] == "reference"]
    assert ref["scenario"] == "p2p-1" and ref["sim_s"] == 60
    # The count ns-3 delivers on p2p-1 (bench/ns3/reference/p2p-1.jsonl): tcplab is exact here.
    assert ref["tcplab"]["pkts"] == 49823

    # The open-loop workload row: flows came, delivered packets and left.
    (wl,) = [row for row in res["rows"] if row["kind"] == "workload"]
    assert wl["name"] == "load50" and wl["sim_s"] == 0.5
    (w,) = wl["tcplab"]["workloads"]
    assert w["arrived"] > 300 and 0 < w["completed"] <= w["arrived"] and w["max_active"] < w["arrived"]
    assert wl["tcplab"]["pkts"] > 1000 and w["fct_ms"]["p50"] > 0

    assert [a["aim"] for a in res["aims"]] == ["p2p-1: >= 3 M delivered packets per wall-second"]
    md = out.with_suffix(".md").read_text()
    assert "| flows | set-up |" in md and "| p2p-1 | 60 s | 49,823 |" in md and "| load50 | 0.5 s |" in md
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
