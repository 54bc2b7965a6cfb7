"""Cross-validation against ns-3 3.44 (issue 2), against ns-3's stored reference results.

`make bench` runs ns-3 itself (it needs the ns3 wheel from PyPI and minutes of CPU); this
test compares tcplab's runs of the same scenarios with the numbers ns-3 produced there,
stored in the repository (bench/ns3/reference/*.jsonl, written by bench/ns3/tcp-reference.cc;
ns-3 is deterministic, so they are exact):
aggregate goodput within 5% and Jain's index within 0.05 on each scenario.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO as ROOT

REFERENCE = ROOT / "bench" / "ns3" / "reference"


def test_tcplab_matches_ns3_reference_scenarios(tmp_path: Path):
    # The three scenarios of issue 2 (compare.py's default set); issue 16's added ones
    # (asym, lossy, mixed-rtt, each also with PRR) are tested in test_ns3_new_scenarios.py.
    assert sorted(p.name for p in REFERENCE.glob("*.jsonl")) == [
        "asym-prr.jsonl", "asym.jsonl", "dumbbell-10.jsonl", "dumbbell-100.jsonl", "lossy-prr.jsonl", "lossy.jsonl",
        "mixed-rtt-prr.jsonl", "mixed-rtt.jsonl", "p2p-1.jsonl"]
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "ns3-compare" / "compare.py"), "--no-ns3", "--runs", "1", "--out", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {row["scenario"]: row for row in json.loads((tmp_path / "ns3-compare.json").read_text())}
    assert set(rows) == {"p2p-1", "dumbbell-10", "dumbbell-100"}
    for name, row in rows.items():
        assert abs(row["goodput_diff"]) <= 0.05, (name, row["goodput_diff"])
        assert abs(row["jain_diff"]) <= 0.05, (name, row["jain_diff"])
        assert row["tcplab"]["invariants_ok"], name
    # The single flow sees exactly ns-3's bytes: same drops, same recovery, same timing.
    assert rows["p2p-1"]["tcplab"]["goodput_mbps"] == pytest.approx(rows["p2p-1"]["ns3"]["goodput_mbps"], abs=1e-4)
