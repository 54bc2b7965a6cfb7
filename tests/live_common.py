"""Shared helpers of the live-mode tests (tests/test_live*.py): skip with the reason where
live mode cannot run (no root, no /dev/net/tun), unless TCPLAB_REQUIRE_LIVE=1 (set by
.ci/run on the development and CI machines, which have both) turns the skip into a
failure; and a check that every namespace a run created is gone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = Path(__file__).resolve().parent / "live_tools"
TCPLAB = [sys.executable, "-m", "tcplab"]


def require_live() -> None:
    from tcplab import live

    why = live.unavailable_reason()
    if why is None:
        try:
            live.binary()
        except live.LiveError as e:
            why = str(e)
    if why is None:
        return
    if os.environ.get("TCPLAB_REQUIRE_LIVE") == "1":
        pytest.fail(f"TCPLAB_REQUIRE_LIVE=1 but live mode cannot run here: {why}")
    pytest.skip(why)


def tcplab_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [l.split()[0] for l in out.splitlines() if l.startswith("tcplab-")]


def _owner(name: str) -> int | None:
    """The pid in a run's namespace name (`tcplab-<pid>-<host>`)."""
    parts = name.split("-")
    return int(parts[1]) if len(parts) > 2 and parts[1].isdigit() else None


def leaked_namespaces() -> set[str]:
    """Namespaces of runs whose process is gone: a run removes its namespaces before it
    exits, so one still there is left behind. Namespaces of runs still going (another
    suite's on the same machine) are not; listed again after the owner check, so a run
    that removed its own in between is not counted."""
    dead = {n for n in tcplab_namespaces() if (pid := _owner(n)) is not None and not Path(f"/proc/{pid}").exists()}
    return dead & set(tcplab_namespaces())


def children(pid: int) -> set[int]:
    """The direct children of process `pid`."""
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def emulate(scenario: Path | str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`tcplab emulate SCENARIO ARGS...` with a hang guard far above its cost; fails if the
    run left a namespace behind (robust to other live runs on the machine meanwhile)."""
    before = leaked_namespaces()
    p = subprocess.run([*TCPLAB, "emulate", str(scenario), *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    left = leaked_namespaces() - before
    assert not left, f"namespaces left behind: {left}"
    return p


def summary(out_dir: Path) -> dict:
    return json.loads((out_dir / "summary.json").read_text())


def write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p
