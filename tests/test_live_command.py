"""`tcplab emulate SCENARIO -- COMMAND` (issue 36, "Any program over the scenario's
network"): COMMAND runs in the client's namespace with the server's address in
$TCPLAB_SERVER, as Mahimahi's shells run theirs; `--server CMD` runs a server in the
server's namespace. Tested with real clients no one here wrote: iperf3 (Debian; `make
test` installs it) and curl against Python's http.server."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from live_common import emulate, require_live, summary, write

NET = """
name = "{name}"
duration = "60s"
[topology]
kind = "point_to_point"
[topology.downlink]
rate = "{rate}"
delay = "10ms"
queue = "100pkts"
[topology.uplink]
rate = "{rate}"
delay = "10ms"
queue = "100pkts"
"""


def test_iperf3_runs_over_the_emulated_link(tmp_path: Path) -> None:
    require_live()
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 is not installed (make test installs it with apt as root)")
    sc = write(tmp_path, "n.toml", NET.format(name="iperf", rate="8Mbit/s"))
    out = tmp_path / "out"
    res = tmp_path / "iperf.json"
    # iperf3 sends client -> server: the uplink carries the data.
    p = emulate(sc, "--out", str(out), "--no-plots", "--server", "iperf3 -s -1",
                "--", "sh", "-c", f"iperf3 -c $TCPLAB_SERVER -t 4 -J > {res}")
    assert p.returncode == 0, p.stderr
    r = json.loads(res.read_text())
    bps = r["end"]["sum_received"]["bits_per_second"]
    assert 0.85 * 8e6 < bps <= 8e6 * 1.001, bps
    s = summary(out)
    up = next(l for l in s["links"] if l["name"] == "uplink")
    assert up["tx_bytes"] > 3_000_000
    assert s["invariants"]["ok"], s["invariants"]
    assert s["live"]["command"]["exit_code"] == 0


def test_curl_fetches_from_a_server_in_the_other_namespace(tmp_path: Path) -> None:
    require_live()
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    www = tmp_path / "www"
    www.mkdir()
    body = bytes(range(256)) * 4096  # 1 MiB
    (www / "f.bin").write_bytes(body)
    sc = write(tmp_path, "n.toml", NET.format(name="curl", rate="20Mbit/s"))
    out = tmp_path / "out"
    got = tmp_path / "got.bin"
    server = f"cd {www} && exec {sys.executable} -m http.server 8000 --bind $TCPLAB_SERVER"
    p = emulate(sc, "--out", str(out), "--no-plots", "--server", server,
                "--", "curl", "-sS", "--retry", "5", "--retry-connrefused", "-o", str(got), "http://$TCPLAB_SERVER:8000/f.bin")
    assert p.returncode == 0, p.stderr
    assert got.read_bytes() == body
    s = summary(out)
    down = next(l for l in s["links"] if l["name"] == "downlink")
    assert down["tx_bytes"] > len(body)
    assert s["invariants"]["ok"]


def test_a_failing_command_is_exit_code_1(tmp_path: Path) -> None:
    require_live()
    sc = write(tmp_path, "n.toml", NET.format(name="fail", rate="1Mbit/s"))
    p = emulate(sc, "--out", str(tmp_path / "o"), "--no-plots", "--", "sh", "-c", "exit 7")
    assert p.returncode == 1
    assert "COMMAND exited with status 7" in p.stderr
