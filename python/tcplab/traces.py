"""Mahimahi link traces: reading, validation and statistics (``tcplab trace-info``).

Format (Mahimahi, Netravali et al., USENIX ATC 2015): one integer per line, a time in
milliseconds; each line is one opportunity to deliver one packet of up to 1500 bytes. The
last timestamp is the period: the trace then repeats.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import TcplabError


class TraceError(TcplabError):
    """A trace file that is missing, empty or malformed (the message names file and line)."""


@dataclass(frozen=True)
class TraceInfo:
    """Statistics of one Mahimahi trace (rates in Mbit/s over the trace's period)."""

    path: str
    lines: int
    duration_ms: int
    opportunity_bytes: int
    mean_mbps: float
    #: Lowest and highest rate over the trace's whole 1-second windows (the whole trace when
    #: it is shorter than a second).
    min_mbps: float
    max_mbps: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_cache: dict[tuple[str, int, int], list[int]] = {}


def _shown(p: Path) -> str:
    """A path for messages: relative to the current directory when that is shorter."""
    try:
        rel = os.path.relpath(p)
    except ValueError:
        return str(p)
    return rel if len(rel) < len(str(p)) else str(p)


def read_trace(path: str | os.PathLike[str]) -> list[int]:
    """The validated timestamps (ms) of a trace file; raises :class:`TraceError`."""
    p = Path(path)
    shown = _shown(p) if p.is_absolute() else str(p)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise TraceError(f"trace file not found: {shown}") from None
    except OSError as e:
        raise TraceError(f"cannot read trace file {shown}: {e.strerror}") from None
    if p.is_dir():
        raise TraceError(f"trace path is a directory, not a file: {shown}")
    key = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    if key in _cache:
        return _cache[key]
    try:
        text = p.read_bytes().decode("ascii")
    except UnicodeDecodeError as e:
        line = p.read_bytes()[: e.start].count(b"\n") + 1
        raise TraceError(f"{shown}:{line}: not a text file (Mahimahi traces hold one integer per line)") from None
    except OSError as e:
        raise TraceError(f"cannot read trace file {shown}: {e.strerror}") from None
    lines = text.splitlines()
    # Trailing blank lines are harmless; blank lines inside are not.
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise TraceError(f"trace file is empty: {shown} (expected one integer millisecond timestamp per line)")
    out: list[int] = []
    prev = 0
    for i, raw in enumerate(lines, start=1):
        s = raw.strip()
        if not s.isdigit():
            bad = raw if len(raw) <= 40 else raw[:37] + "..."
            raise TraceError(f'{shown}:{i}: expected a non-negative integer (milliseconds), got "{bad}"')
        t = int(s)
        if t < prev:
            raise TraceError(f"{shown}:{i}: timestamps must not decrease ({t} ms after {prev} ms)")
        out.append(t)
        prev = t
    if out[-1] == 0:
        raise TraceError(f"{shown}:{len(out)}: the last timestamp is 0 ms; a trace must span at least 1 ms")
    _cache.clear()  # keep at most one trace in memory
    _cache[key] = out
    return out


def trace_info(path: str | os.PathLike[str], opportunity_bytes: int = 1500) -> TraceInfo:
    """Duration and mean/min/max rate of a Mahimahi trace."""
    rust = _rust_trace_info(path, opportunity_bytes)
    if rust is not None:
        return rust
    ts = read_trace(path)
    period = ts[-1]
    bits = opportunity_bytes * 8
    mean = len(ts) * bits / (period / 1000.0) / 1e6
    if period < 1000:
        lo = hi = mean
    else:
        windows = [0] * (period // 1000)
        n = len(windows)
        for t in ts:
            k = t // 1000
            if k < n:
                windows[k] += 1
        lo = min(windows) * bits / 1e6
        hi = max(windows) * bits / 1e6
    return TraceInfo(
        path=str(path),
        lines=len(ts),
        duration_ms=period,
        opportunity_bytes=opportunity_bytes,
        mean_mbps=mean,
        min_mbps=lo,
        max_mbps=hi,
    )


def _rust_trace_info(path: str | os.PathLike[str], opportunity_bytes: int) -> TraceInfo | None:
    """The simulator's own reader once the binding exposes it (see WIRE-ME in crates/tcplab-py)."""
    if opportunity_bytes != 1500:
        return None
    try:
        from . import _tcplab
    except ImportError:
        return None
    fn = getattr(_tcplab, "trace_info_json", None)
    if fn is None:
        return None
    import json

    try:
        d = json.loads(fn(str(path)))
    except _tcplab.SimulationError as e:
        raise TraceError(str(e.args[1]) if len(e.args) > 1 else str(e)) from None
    return TraceInfo(**{k: d[k] for k in TraceInfo.__dataclass_fields__ if k in d} | {"opportunity_bytes": 1500})
