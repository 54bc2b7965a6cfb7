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


def _shown(p: Path) -> str:
    """A path for messages: relative to the current directory when that is shorter."""
    try:
        rel = os.path.relpath(p)
    except ValueError:
        return str(p)
    return rel if len(rel) < len(str(p)) else str(p)


def trace_info(path: str | os.PathLike[str], opportunity_bytes: int = 1500) -> TraceInfo:
    """Duration and mean/min/max rate of a Mahimahi trace; raises :class:`TraceError`.

    The file is parsed by the simulator's own reader (one implementation of the format, so
    `tcplab validate` accepts exactly what a run accepts).
    """
    import json

    from . import _tcplab

    p = Path(path)
    shown = _shown(p) if p.is_absolute() else str(p)
    try:
        if p.is_dir():
            raise TraceError(f"trace path is a directory, not a file: {shown}")
        if not p.exists():
            raise TraceError(f"trace file not found: {shown}")
    except OSError as e:  # a name the file system refuses (too long, ...)
        raise TraceError(f"cannot read trace {shown[:120]}{'...' if len(shown) > 120 else ''}: {e.strerror}") from None
    try:
        d = json.loads(_tcplab.trace_info_json(str(p), opportunity_bytes))
    except _tcplab.SimulationError as e:
        msg = str(e.args[1]) if len(e.args) > 1 else str(e)
        raise TraceError(msg.replace(str(p), shown)) from None
    return TraceInfo(**{k: d[k] for k in TraceInfo.__dataclass_fields__})


def read_trace(path: str | os.PathLike[str]) -> TraceInfo:
    """Validates a trace file (raises :class:`TraceError` naming file and line)."""
    return trace_info(path)
