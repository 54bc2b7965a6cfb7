"""UDP traffic for the live-mode accuracy tests, run inside a host namespace by `tcplab
emulate --server`: `flood.py DST PORT RATE_BPS SECONDS SIZE` sends SIZE-byte IP datagrams
at RATE_BPS (paced on the monotonic clock, in small bursts), `flood.py DST PORT burst N SIZE`
sends N datagrams back to back."""

import socket
import sys
import time

dst, port = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
if sys.argv[3] == "burst":
    n, size = int(sys.argv[4]), int(sys.argv[5])
    payload = b"x" * (size - 28)
    time.sleep(1.5)  # the receiver (started after this server) must be bound first
    for i in range(n):
        s.sendto(payload, (dst, port))
    sys.exit(0)
rate, secs, size = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
payload = b"x" * (size - 28)
gap = size * 8 / rate
t0 = time.monotonic()
sent = 0
while True:
    now = time.monotonic()
    if now - t0 > secs:
        break
    due = int((now - t0) / gap) + 1
    while sent < due:
        try:
            s.sendto(payload, (dst, port))
        except OSError:
            pass
        sent += 1
    time.sleep(min(gap, 0.002))
