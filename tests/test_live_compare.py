"""`tcplab compare SCENARIO` (issue 36, "Sim beside live"): the simulator under the linux
profile and live kernel TCP on the same scenario, one table side by side."""

from __future__ import annotations

import json
from pathlib import Path

from live_common import emulate, require_live, write

SC = """
name = "cmp"
duration = "8s"
seed = 1
[topology]
kind = "point_to_point"
[topology.downlink]
rate = "10Mbit/s"
delay = "20ms"
queue = "100pkts"
[topology.uplink]
rate = "10Mbit/s"
delay = "20ms"
[[flows]]
name = "bulk"
src = "server"
dst = "client"
cc = "cubic"
"""


def test_compare_sets_sim_and_live_side_by_side(tmp_path: Path) -> None:
    require_live()
    sc = write(tmp_path, "c.toml", SC)
    out = tmp_path / "o"
    import subprocess
    import sys

    from live_common import ROOT, leaked_namespaces

    before = leaked_namespaces()

    p = subprocess.run([sys.executable, "-m", "tcplab", "compare", str(sc), "--out", str(out), "--no-plots"],
                       capture_output=True, text=True, timeout=200, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert not (leaked_namespaces() - before)
    d = json.loads((out / "compare.json").read_text())
    g = next(r for r in d["rows"] if r["kind"] == "flow" and r["metric"] == "goodput_mbps")
    print(f"compare: goodput sim {g['sim']:.3f} live {g['live']:.3f} Mbit/s ({g['diff_pct']:+.1f}%)")
    assert g["sim"] > 8.5 and g["live"] > 8.0
    assert abs(g["diff_pct"]) < 10.0
    assert (out / "sim" / "summary.json").exists() and (out / "live" / "summary.json").exists()
    md = (out / "compare.md").read_text()
    assert "| flow bulk | goodput Mbit/s |" in md


def test_compare_refuses_a_kernel_only_cc(tmp_path: Path) -> None:
    require_live()
    import subprocess
    import sys

    sc = write(tmp_path, "c.toml", SC.replace('cc = "cubic"', 'cc = "bbr"'))
    p = subprocess.run([sys.executable, "-m", "tcplab", "compare", str(sc), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "bbr" in p.stderr and p.stderr.startswith("error: "), p.stderr


def test_compare_rows_set_elements_side_by_side() -> None:
    """Elements are matched by node and kind: the driver's counters and the report's numbers."""
    from tcplab import compare

    def summ(created: int, zwas: int) -> dict:
        return {"flows": [], "links": [], "elements": [
            {"node": "bs", "kind": "bsf", "counters": {"seen": 10, "dropped": 0, "created": created},
             "detail": {"zwas_sent": zwas, "note": "text is left out"}}]}

    rs = {(r["kind"], r["name"], r["metric"]): r for r in compare.rows(summ(4, 4), summ(5, 5))}
    assert rs[("element", "bsf@bs", "created")]["diff_pct"] == 25.0
    assert rs[("element", "bsf@bs", "detail.zwas_sent")]["live"] == 5
    assert ("element", "bsf@bs", "detail.note") not in rs


def test_bench_live_vs_sim_scenarios_are_valid_and_have_results() -> None:
    """bench/live-vs-sim: every scenario validates and has its stored comparison."""
    import subprocess
    import sys

    from live_common import ROOT

    d = ROOT / "bench" / "live-vs-sim"
    names = sorted(p.stem for p in d.glob("*.toml"))
    assert len(names) >= 6, names
    for n in names:
        p = subprocess.run([sys.executable, "-m", "tcplab", "validate", str(d / f"{n}.toml")], capture_output=True,
                           text=True, timeout=60, cwd=ROOT)
        assert p.returncode == 0, (n, p.stderr)
        doc = json.loads((d / "results" / f"{n}.json").read_text())
        assert doc["live_ok"] and doc["sim_ok"] and doc["rows"], n
