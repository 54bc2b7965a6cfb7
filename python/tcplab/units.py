"""Human units of scenario files, parsed into the simulator's base units.

Accepted forms (case-sensitive; one optional space between number and unit and no other
whitespace; decimals allowed as long as the result is a whole number of base units):

- rates -> bit/s: ``bit/s kbit/s Kbit/s Mbit/s Gbit/s`` and ``bps kbps Kbps Mbps Gbps``
  (k/K = 10^3, M = 10^6, G = 10^9). E.g. ``"10Mbit/s"``, ``"500kbit/s"``, ``"1.5Gbps"``.
- times -> nanoseconds: ``ns us µs ms s``. E.g. ``"530ms"``, ``"2.5s"``, ``"200us"``.
- sizes -> bytes: ``B``; decimal ``kB KB MB GB`` (10^3, 10^6, 10^9);
  binary ``KiB MiB GiB`` (2^10, 2^20, 2^30). E.g. ``"1460B"``, ``"256KB"``, ``"4MiB"``.
- queue limits: a size as above, or packets ``pkts`` / ``packets`` (e.g. ``"100pkts"``).

Bare numbers are never accepted where a unit is required.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation

RATE_UNITS: dict[str, int] = {
    "bit/s": 1,
    "kbit/s": 10**3,
    "Kbit/s": 10**3,
    "Mbit/s": 10**6,
    "Gbit/s": 10**9,
    "bps": 1,
    "kbps": 10**3,
    "Kbps": 10**3,
    "Mbps": 10**6,
    "Gbps": 10**9,
}

TIME_UNITS: dict[str, int] = {
    "ns": 1,
    "us": 10**3,
    "µs": 10**3,
    "ms": 10**6,
    "s": 10**9,
}

SIZE_UNITS: dict[str, int] = {
    "B": 1,
    "kB": 10**3,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
}

PACKET_UNITS: dict[str, int] = {"pkts": 1, "packets": 1}

# ASCII only: Python's \d also matches other scripts' digits ("٣Mbit/s"), which trace files and
# the Rust side refuse; one rule for every quantity.
# The number, then at most one ASCII space, then the unit: nothing before or after, so a
# newline or tab inside a quantity ("5\nms") is refused rather than read as "5ms".
_QUANTITY = re.compile(r"([+-]?)(\d+(?:\.\d*)?|\.\d+) ?([^\s\d.+-]\S*)?", re.ASCII)


class UnitError(ValueError):
    """A value that is not a quantity of the expected kind; the message is user-facing."""


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, int):
        return f"{value} (a bare integer)"
    if isinstance(value, float):
        return f"{value} (a bare number)"
    if isinstance(value, str):
        # JSON quoting shows a newline or tab inside the value as \n or \t, on one line.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def _parse(
    value: object,
    units: dict[str, int],
    what: str,
    example: str,
    base: str,
    *,
    allow_zero: bool,
) -> int:
    expected = f'expected {what} like "{example}"'
    accepted = "accepted units: " + ", ".join(units)
    if not isinstance(value, str):
        raise UnitError(f"{expected}, got {_describe(value)}; {accepted}")
    if any(ch.isdigit() and not ch.isascii() for ch in value):
        raise UnitError(f"{expected}, got {_describe(value)}: write the number with the digits 0-9")
    m = _QUANTITY.fullmatch(value)
    if not m:
        if value.strip() != value or any(ch.isspace() and ch != " " for ch in value) or "  " in value:
            raise UnitError(
                f"{expected}, got {_describe(value)}: write the number and unit with at most one "
                "space between them and no other whitespace"
            )
        raise UnitError(f"{expected}, got {_describe(value)}; {accepted}")
    sign, number, unit = m.groups()
    if unit is None:
        raise UnitError(f"{expected}, got {_describe(value)}: the unit is missing; {accepted}")
    if unit not in units:
        hint = ""
        lowered = {u.lower(): u for u in units}
        if unit.lower() in lowered:
            hint = f' (units are case-sensitive: did you mean "{lowered[unit.lower()]}"?)'
        raise UnitError(f'{expected}, got {_describe(value)}: unknown unit "{unit}"{hint}; {accepted}')
    if sign == "-":
        raise UnitError(f"{expected}, got {_describe(value)}: must not be negative")
    try:
        exact = Decimal(number) * units[unit]
    except InvalidOperation:  # pragma: no cover - the regex only lets decimals through
        raise UnitError(f"{expected}, got {_describe(value)}") from None
    if exact != exact.to_integral_value():
        raise UnitError(f"{expected}, got {_describe(value)}: not a whole number of {base}")
    result = int(exact)
    if result == 0 and not allow_zero:
        raise UnitError(f"{expected}, got {_describe(value)}: must be greater than zero")
    if result >= 2**64:
        raise UnitError(f"{expected}, got {_describe(value)}: too large")
    return result


def parse_rate(value: object, *, allow_zero: bool = False) -> int:
    """A rate string such as ``"10Mbit/s"`` in bit/s."""
    return _parse(value, RATE_UNITS, "a rate", "10Mbit/s", "bit/s", allow_zero=allow_zero)


def parse_duration(value: object, *, allow_zero: bool = True) -> int:
    """A time string such as ``"530ms"`` in nanoseconds."""
    return _parse(value, TIME_UNITS, "a time", "530ms", "nanoseconds", allow_zero=allow_zero)


def parse_size(value: object, *, allow_zero: bool = False) -> int:
    """A size string such as ``"256KB"`` (KB = 1000 B, KiB = 1024 B) in bytes."""
    return _parse(value, SIZE_UNITS, "a size", "256KB", "bytes", allow_zero=allow_zero)


def parse_queue_limit(value: object) -> tuple[str, int]:
    """A queue limit: ``("packets", n)`` for ``"100pkts"`` or ``("bytes", n)`` for ``"150KB"``."""
    units = {**PACKET_UNITS, **SIZE_UNITS}
    n = _parse(value, units, "a queue limit", "100pkts", "bytes", allow_zero=False)
    assert isinstance(value, str)
    m = _QUANTITY.fullmatch(value)
    assert m is not None
    return ("packets" if m.group(3) in PACKET_UNITS else "bytes", n)


def format_rate(bps: float) -> str:
    """A rate for people: ``"10 Mbit/s"``."""
    for unit, k in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if bps >= k:
            return f"{bps / k:.3g} {unit}"
    return f"{bps:.3g} bit/s"


def format_size(nbytes: float) -> str:
    """A size for people, in decimal units: ``"10kB"``, ``"1.5MB"``, ``"999B"``."""
    for unit, k in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= k:
            return f"{nbytes / k:.4g}{unit}"
    return f"{nbytes:.4g}B"
