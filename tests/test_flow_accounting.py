"""Flow accounting through the `tcplab` command (issue 20, class 2): finite flows stopped
before their application wrote all their configured `bytes`."""

import json

import pytest

from conftest import cli

MSS = 1448
STOP_S = 1.0569  # flow a's last segment is in flight at the stop, flow b's already read

SCENARIO = """\
name = "class2"
duration = "{duration}"
stop_when_done = {stop_when_done}

[topology]
kind = "point_to_point"
[topology.downlink]
rate = "10Mbit/s"
delay = "20ms"
[topology.uplink]
rate = "10Mbit/s"
delay = "20ms"

[[flows]]
name = "a"
bytes = "10MB"
stop = "1056900us"
tcp = {{ snd_buf = "1448B" }}

[[flows]]
name = "b"
bytes = "10MB"
stop = "1056900us"
tcp = {{ snd_buf = "1448B" }}
"""


def run_json(tmp_path, duration: str = "3s", stop_when_done: bool = False) -> dict:
    path = tmp_path / "class2.toml"
    path.write_text(SCENARIO.format(duration=duration, stop_when_done=str(stop_when_done).lower()))
    r = cli("run", str(path), "--out", str(tmp_path / "out"), "--json", "--no-plots")
    # Before the fix: exit 3, "flow 'a': completed with 20272 bytes read of 10000000 written".
    assert r.returncode == 0, r.stdout + r.stderr
    s = json.loads(r.stdout)
    assert s["invariants"] == {"ok": True, "violations": []}
    return s


def test_class2_two_identical_stopped_flows_are_not_completed(tmp_path):
    s = run_json(tmp_path)
    a, b = s["flows"]
    # The case of the report: identical flows, one a segment ahead of the other at the stop.
    assert a["bytes_written"] == b["bytes_written"] + MSS
    for f in (a, b):
        assert f["completion_s"] is None, f
        assert 0 < f["bytes_written"] < 10_000_000
        assert f["bytes_delivered"] == f["bytes_written"], f
        # Both active until the later of the stop and their last read, not the end of the
        # run (before the fix flow b, with nothing in flight, counted all 3 seconds).
        bits = f["bytes_delivered"] * 8
        assert bits / (STOP_S + 0.05) <= f["goodput_mbps"] * 1e6 <= bits / STOP_S * (1 + 1e-9), f


@pytest.mark.parametrize("duration", ["3s", "30s"])
def test_class2_stop_when_done_ends_once_stopped_flows_have_drained(tmp_path, duration):
    s = run_json(tmp_path, duration=duration, stop_when_done=True)
    # Both flows finished (nothing more to read) within a round trip of their stop; before
    # the fix flow b never finished and the run lasted its whole duration.
    assert STOP_S < s["duration_s"] < STOP_S + 0.05, s["duration_s"]
    for f in s["flows"]:
        assert f["completion_s"] is None and f["bytes_delivered"] == f["bytes_written"], f
