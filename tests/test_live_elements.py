"""Node elements live (issue 36: "Live BSF and DARCA"): the simulator's own BSF and DARCA
(crates/tcplab-sim/src/element/) on the real TCP headers of kernel flows. BSF's
zero-window ACKs are built on the wire (addresses and ports of the flow, the timestamps of
the receiver's last ACK, checksums fixed) and must show in a pcap as valid segments;
DARCA's drops are real drops; the conservation counters of both must balance."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from live_common import TOOLS, emulate, require_live, summary, write

sys.path.insert(0, str(TOOLS))
from freeze import freezes  # noqa: E402

STAR = """
name = "{name}"
duration = "{duration}"
seed = 1
[topology]
kind = "custom"
nodes = ["s0", "s1", "{mid}", "mh"]
[[topology.links]]
name = "wireless"
from = "{mid}"
to = "mh"
rate = "{rate}"
delay = "10ms"
queue = "{queue}"
[[topology.links]]
name = "wireless_up"
from = "mh"
to = "{mid}"
rate = "100Mbit/s"
delay = "10ms"
""" + "".join(f"""
[[topology.links]]
from = "s{i}"
to = "{{mid}}"
rate = "100Mbit/s"
delay = "5ms"
[[topology.links]]
from = "{{mid}}"
to = "s{i}"
rate = "100Mbit/s"
delay = "5ms"
""" for i in range(2)) + "".join(f"""
[[flows]]
name = "f{i}"
src = "s{i}"
dst = "mh"
cc = "{{cc}}"
start = "{i * 0.2}s"
""" for i in range(2))


def _records(pcap: bytes):
    o = 24
    while o < len(pcap):
        _, _, incl, _ = struct.unpack("<IIII", pcap[o:o + 16])
        yield pcap[o + 16:o + 16 + incl]
        o += 16 + incl


def _tcp_checksum_ok(p: bytes) -> bool:
    ihl = (p[0] & 15) * 4
    total = struct.unpack("!H", p[2:4])[0]
    seg = p[ihl:total]
    pseudo = p[12:20] + struct.pack("!BBH", 0, 6, len(seg))
    data = pseudo + seg + (b"\0" if len(seg) % 2 else b"")
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def test_live_bsf_sends_valid_zero_window_acks_to_kernel_senders(tmp_path: Path) -> None:
    require_live()
    # Bursty wireless losses drain the buffer below FLUSH_thresh, so BSF freezes the senders
    # (without them one flush in 6 s).
    star = STAR.format(name="bsf-live", duration="6s", mid="bs", rate="4Mbit/s", queue="20pkts", cc="newreno").replace(
        'queue = "20pkts"', 'queue = "20pkts"\nloss = { kind = "gilbert_elliott", error_rate = 0.03, mean_burst = 3 }', 1)
    sc = write(tmp_path, "bsf.toml", star + """
[[elements]]
node = "bs"
kind = "bsf"
link = "wireless"
weight = 1.0
bsf_thresh = 10
flush_thresh = 2
ecn_history = 0
""")
    out = tmp_path / "o"
    p = emulate(sc, "--out", str(out), "--no-plots", "--pcap", "bs->s0", "--pcap", "bs->s1", "--pcap", "s0->bs", "--pcap", "s1->bs")
    assert p.returncode == 0, p.stderr
    s = summary(out)
    assert s["invariants"]["ok"], s["invariants"]
    (e,) = s["elements"]
    assert e["kind"] == "bsf" and e["detail"]["zwas_sent"] > 0, e
    assert e["counters"]["created"] == e["detail"]["zwas_sent"]
    c = e["counters"]
    assert c["seen"] == c["forwarded"] + c["dropped"] + c["absorbed"] + c["held"]
    zwas = 0
    for link in ("bs->s0", "bs->s1"):
        for pkt in _records((out / f"{link.replace('->', '-to-')}.pcap").read_bytes()):
            ihl = (pkt[0] & 15) * 4
            sport, _, _, _, off, flags, window = struct.unpack("!HHIIBBH", pkt[ihl:ihl + 16])
            assert _tcp_checksum_ok(pkt), pkt.hex()
            total = struct.unpack("!H", pkt[2:4])[0]
            if window == 0 and flags & 0x10 and total == ihl + (off >> 4) * 4 and sport in (5001, 5002):
                zwas += 1
    assert zwas == e["detail"]["zwas_sent"], (zwas, e["detail"])
    # The kernel senders freeze: from a zero-window ACK's arrival (bs -> s_i: 5 ms) until an
    # open window's, no segment with new data leaves them (tests/live_tools/freeze.py).
    # A zero-window ACK released late reaches the sender late: counted from then.
    late = s["live"]["accuracy"]["lateness_us"]["max_us"] * 1e-6
    fr = [freezes(out / f"bs-to-s{i}.pcap", out / f"s{i}-to-bs.pcap", 0.005, late) for i in range(2)]
    print(f"live bsf: {fr}")
    assert sum(f["freezes"] for f in fr) >= 10 and sum(f["new_data_otherwise"] for f in fr) > 100, fr
    assert sum(f["frozen_s"] for f in fr) > 0.05, fr  # the check covered some time
    assert all(f["new_data_while_frozen"] == 0 for f in fr), fr
    assert all(f["bytes_delivered"] > 100_000 for f in s["flows"]), s["flows"]


DARCA_NET = """
name = "darca-live"
duration = "12s"
seed = 1
[topology]
kind = "custom"
nodes = ["s0", "s1", "ar", "er", "rx"]
[[topology.links]]
name = "L"
from = "ar"
to = "er"
rate = "10Mbit/s"
delay = "20ms"
queue = "100pkts"
[[topology.links]]
name = "L_rev"
from = "er"
to = "ar"
rate = "10Mbit/s"
delay = "20ms"
[[topology.links]]
from = "er"
to = "rx"
rate = "100Mbit/s"
delay = "10ms"
[[topology.links]]
from = "rx"
to = "er"
rate = "100Mbit/s"
delay = "10ms"
""" + "".join(f"""
[[topology.links]]
from = "s{i}"
to = "ar"
rate = "100Mbit/s"
delay = "10ms"
[[topology.links]]
from = "ar"
to = "s{i}"
rate = "100Mbit/s"
delay = "10ms"
[[flows]]
name = "f{i}"
src = "s{i}"
dst = "rx"
cc = "newreno"
""" for i in range(2)) + """
[[elements]]
kind = "darca"
node = "er"
link = "L"
start = "1s"
targets = [
  { flow = "f0", rate = "2Mbit/s" },
  { flow = "f1", rate = "4Mbit/s" },
]
"""


def test_live_darca_drops_real_packets_and_balances(tmp_path: Path) -> None:
    """DARCA (the edge router's rate control by drops) on kernel Reno flows: its drops are
    real, its counters and the network's balance; the goodputs are printed beside the
    targets (docs/live.md gives the numbers measured)."""
    require_live()
    sc = write(tmp_path, "darca.toml", DARCA_NET)
    out = tmp_path / "o"
    p = emulate(sc, "--out", str(out), "--no-plots")
    assert p.returncode == 0, p.stderr
    s = summary(out)
    assert s["invariants"]["ok"], s["invariants"]
    (e,) = s["elements"]
    assert e["kind"] == "darca" and e["counters"]["dropped"] > 0, e
    g = [f["goodput_mbps"] for f in s["flows"]]
    # How near the targets the kernel flows are is reported, not asserted: in 12 s DARCA's
    # cycle has not settled (docs/live.md).
    print(f"darca live: goodputs {g} Mbit/s for targets 2 and 4 Mbit/s; element {e['counters']}")
    assert all(x > 0.5 for x in g), g
