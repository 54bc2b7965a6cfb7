"""Does a sender freeze under zero windows? Reads two nanosecond pcaps of tcplab links (each
packet stamped at the start of its transmission on that link): `acks`, the link carrying the
ACKs (and BSF's zero-window ACKs) towards the sender, and `data`, the link its data leaves
on. A freeze runs from a zero-window ACK's arrival at the sender (its stamp plus the ACK
link's delay) to the arrival of the next ACK with an open window. Returns the freezes, the
time frozen, and the data segments the sender started while frozen that carried new data
(beyond the highest sequence sent before), which a frozen sender never sends; a
retransmission (the timer still runs, RFC 9293) or a probe is not new data."""

from __future__ import annotations

import bisect
import struct
from pathlib import Path

# An arrival within this of a freeze's edge is the sender answering the ACK that opened it
# (the ACK link's serialisation is not in the stamp).
EDGE_S = 50e-6


def tcp_records(path: Path):
    b = Path(path).read_bytes()
    o = 24
    while o < len(b):
        sec, ns, incl, _ = struct.unpack("<IIII", b[o:o + 16])
        p = b[o + 16:o + 16 + incl]
        o += 16 + incl
        ihl = (p[0] & 15) * 4
        total = struct.unpack("!H", p[2:4])[0]
        _, _, seq, ack, off, flags, win = struct.unpack("!HHIIBBH", p[ihl:ihl + 16])
        yield sec + ns * 1e-9, seq, ack, flags, win, total - ihl - (off >> 4) * 4


def freezes(acks: Path, data: Path, ack_delay_s: float, late_s: float = 0.0) -> dict:
    """`late_s`: how late the emulator may have released a packet (live: the run's maximum
    release lateness); a freeze is counted from the zero-window ACK's ideal arrival plus
    that, when the sender has surely seen it. The stamps are ideal times, and an ACK
    released late only opens the freeze later, so the end needs no slack."""
    a = list(tcp_records(acks))
    wins = []
    i = 0
    while i < len(a):
        if a[i][4] != 0:
            i += 1
            continue
        j = i + 1
        while j < len(a) and a[j][4] == 0:
            j += 1
        if j < len(a):
            wins.append((a[i][0] + ack_delay_s, a[j][0] + ack_delay_s))
        i = j
    starts = [w[0] for w in wins]
    hi = None
    new_frozen = new_open = 0
    for t, seq, _, _, _, plen in tcp_records(data):
        end = (seq + plen) & 0xFFFFFFFF
        new = plen > 0 and (hi is None or 0 < ((end - hi) & 0xFFFFFFFF) < 2**31)
        k = bisect.bisect_right(starts, t) - 1
        frozen = k >= 0 and wins[k][0] + late_s + EDGE_S < t < wins[k][1] - EDGE_S
        if new:
            hi = end
            if frozen:
                new_frozen += 1
            else:
                new_open += 1
    return {"freezes": len(wins), "frozen_s": sum(max(0.0, b - a - late_s) for a, b in wins), "new_data_while_frozen": new_frozen,
            "new_data_otherwise": new_open}
