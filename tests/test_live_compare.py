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

    from live_common import ROOT, tcplab_namespaces

    p = subprocess.run([sys.executable, "-m", "tcplab", "compare", str(sc), "--out", str(out), "--no-plots"],
                       capture_output=True, text=True, timeout=200, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert not tcplab_namespaces()
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
