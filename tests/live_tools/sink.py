"""UDP receiver of the live-mode accuracy tests, run in the client's namespace as the
COMMAND of `tcplab emulate`: `sink.py PORT SECONDS OUT.json` records each datagram's IP
length and kernel receive time (SO_TIMESTAMPNS) until SECONDS after the first one (or 3 s
of silence), and writes them as JSON."""

import json
import socket
import struct
import sys

port, secs, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMPNS", 35), 1)
s.bind(("0.0.0.0", port))
s.settimeout(3.0)
times, sizes = [], []
first = None
while True:
    try:
        data, anc, _, _ = s.recvmsg(65536, 64)
    except socket.timeout:
        break
    ts = None
    for level, typ, d in anc:
        if level == socket.SOL_SOCKET and typ == 35:  # SCM_TIMESTAMPNS
            sec, ns = struct.unpack("qq", d[:16])
            ts = sec + ns * 1e-9
    times.append(ts)
    sizes.append(len(data) + 28)
    if first is None:
        first = ts
    elif ts - first >= secs:
        break
json.dump({"t": times, "ip_len": sizes}, open(out, "w"))
