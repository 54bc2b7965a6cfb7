"""Shared fixtures: paths, the `tcplab` command, and a fake simulator for CLI plumbing tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tcplab

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "scenarios" / "examples"
BAD = Path(__file__).resolve().parent / "bad_scenarios"
CELLULAR = REPO / "python" / "tcplab" / "traces" / "cellular"

sys.path.insert(0, str(Path(__file__).resolve().parent))




#: The fields a reproduction's row always has in rows.json, and those it may have.
ROW_FIELDS = {"experiment", "case", "variant", "metric", "unit", "ours", "paper"}
ROW_OPTIONAL = {"note", "consistent", "status", "indicative", "unchecked", "tolerance", "why", "cause", "source",
                "spread", "over", "explained_by"}


def tcplab_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "tcplab"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "tcplab"]


def cli(*args: str, cwd: Path | str | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the installed `tcplab` command. ``timeout`` is a hang guard: far above what the
    command costs on any machine, far below what the bug it guards against would cost
    (issue 35: a test never asserts a speed)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([*tcplab_cmd(), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture
def fake_sim(monkeypatch: pytest.MonkeyPatch):
    """Replace the simulator with one returning a synthetic RunOutput (tests/fake_output.py)."""
    from fake_output import fake_run_output

    from tcplab import _tcplab

    state: dict[str, Any] = {"ok": True, "calls": []}

    def fake_run_json(canonical_json: str, progress: Any = None) -> str:
        canon = json.loads(canonical_json)
        state["calls"].append(canon)
        for spec in canon["record"]["pcap"]:
            Path(spec["path"]).write_bytes(b"fake pcap")
        if progress is not None:
            progress(canon["duration"] / 2e9, canon["duration"] / 1e9, 1000)

        class _Sc:
            canonical = canon
            links: list[str] = []

        sc = _Sc()
        topo = canon["topology"]
        if topo["kind"] == "point_to_point":
            sc.links = ["downlink", "uplink"]
        elif topo["kind"] == "custom":
            sc.links = [l["name"] for l in topo["links"]]
        else:
            sc.links = ["bottleneck", "bottleneck_rev"]
        return json.dumps(fake_run_output(sc, ok=state["ok"]))

    monkeypatch.setattr(_tcplab, "run_json", fake_run_json)
    return state
