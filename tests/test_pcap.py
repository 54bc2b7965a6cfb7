"""pcap export checked with tshark: no malformed packets or expert errors, and the bytes on
the wire match the summary. Needs the simulation loop and the pcap writer (skips until the
simulator stops answering 'not implemented yet') and tshark (skips when absent)."""

import json
import re
import shutil
import subprocess

import pytest

from conftest import EXAMPLES, cli

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")


def tshark(*args: str) -> str:
    r = subprocess.run(["tshark", *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_pcap_of_a_download_is_clean_and_matches_the_summary(tmp_path):
    out = tmp_path / "o"
    r = cli(
        "run", str(EXAMPLES / "p2p-bulk.toml"), "--out", str(out), "--set", "duration=2s",
        "--set", 'flows.0.bytes="500KB"', "--pcap", "downlink", "--pcap", "uplink", "--json", "--no-plots",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    pcap = out / "downlink.pcap"
    assert pcap.exists() and (out / "uplink.pcap").exists()

    # No malformed packets, no expert errors.
    assert tshark("-r", str(pcap), "-Y", "_ws.malformed || _ws.expert.severity == error").strip() == ""
    # Highest acknowledged-or-sent byte: the data bytes of the flow, as tshark counts them.
    fields = tshark("-r", str(pcap), "-T", "fields", "-e", "tcp.seq", "-e", "tcp.len", "-o", "tcp.relative_sequence_numbers:TRUE")
    top = 0
    for line in fields.splitlines():
        m = re.match(r"(\d+)\s+(\d+)", line)
        if m:
            top = max(top, int(m.group(1)) + int(m.group(2)))
    flow = s["flows"][0]
    # Relative seq starts at 1 after the SYN; a FIN may add one.
    assert abs((top - 1) - flow["bytes_written"]) <= 1, (top, flow)
    assert flow["bytes_delivered"] == 500_000
    # Every frame is a TCP segment of this flow, in both files.
    assert tshark("-r", str(pcap), "-Y", "!tcp").strip() == ""
    assert int(tshark("-r", str(pcap), "-T", "fields", "-e", "frame.number").split()[-1]) > 300


def test_without_handshake_the_first_packet_is_data(tmp_path):
    """`handshake = false` (ns-2's one-way agents, the `ns2` profile): no SYN on the wire,
    the first frame carries data at the flow's start, and the first RTO is `initial_rto`
    (no sample from a handshake). With the handshake the first frame is the SYN."""
    firsts = {}
    for hs in ("true", "false"):
        out = tmp_path / hs
        r = cli(
            "run", str(EXAMPLES / "p2p-bulk.toml"), "--out", str(out), "--set", "duration=2s",
            "--set", 'flows.0.bytes="200KB"', "--set", f"defaults.tcp.handshake={hs}",
            "--pcap", "downlink", "--pcap", "uplink", "--json", "--no-plots",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        s = json.loads(r.stdout)
        assert s["invariants"]["ok"] and s["flows"][0]["bytes_delivered"] == 200_000
        rows = tshark("-r", str(out / "downlink.pcap"), "-T", "fields", "-e", "frame.time_relative",
                      "-e", "tcp.flags.syn", "-e", "tcp.len").splitlines()
        syns = tshark("-r", str(out / "uplink.pcap"), "-Y", "tcp.flags.syn == 1").strip()
        firsts[hs] = (rows[0].split("\t"), syns)
    (t, syn, length), syns_up = firsts["true"]
    assert syn in ("1", "True") and int(length) == 0 and syns_up != ""
    (t, syn, length), syns_up = firsts["false"]
    assert syn in ("0", "False") and int(length) > 0 and syns_up == ""
