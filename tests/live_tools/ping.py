"""ICMP echo (RFC 792) from the client's namespace, for the live-mode idle-RTT test:
`ping.py DST COUNT INTERVAL OUT.json` sends COUNT echo requests over a raw socket (root)
and writes the RTTs in milliseconds: from just before the send to the kernel's receive
timestamp of the reply (SO_TIMESTAMPNS), both on CLOCK_REALTIME, at real-time priority when
allowed, so that the test's own scheduling on a loaded machine does not add to the RTT."""

import json
import os
import socket
import struct
import sys
import time


def csum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


dst, count, interval, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(5))
except (OSError, AttributeError):
    pass
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMPNS", 35), 1)
s.settimeout(2.0)
ident = os.getpid() & 0xFFFF
rtts = []
for seq in range(count):
    body = b"tcplab-ping" + bytes(45)
    hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    pkt = struct.pack("!BBHHH", 8, 0, csum(hdr + body), ident, seq) + body
    t0 = time.time_ns()
    s.sendto(pkt, (dst, 0))
    while True:
        try:
            r, anc, _, _ = s.recvmsg(2048, 64)
        except socket.timeout:
            break
        t1 = None
        for level, typ, d in anc:
            if level == socket.SOL_SOCKET and typ == 35:  # SCM_TIMESTAMPNS
                sec, ns = struct.unpack("qq", d[:16])
                t1 = sec * 1_000_000_000 + ns
        ihl = (r[0] & 15) * 4
        typ, _, _, rid, rseq = struct.unpack("!BBHHH", r[ihl:ihl + 8])
        if typ == 0 and rid == ident and rseq == seq:
            rtts.append(((t1 if t1 is not None else time.time_ns()) - t0) / 1e6)
            break
    time.sleep(interval)
json.dump({"rtt_ms": rtts}, open(out, "w"))
