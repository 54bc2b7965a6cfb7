"""Scenario files (TOML, human units) -> the canonical scenario the simulator runs.

The canonical form is ``tcplab_sim::config::Scenario`` as JSON: times and instants in integer
nanoseconds, rates in integer bit/s, sizes in bytes, enums tagged with ``"kind"``. Every key
of the TOML form is documented in docs/scenarios.md.
"""

from __future__ import annotations

import copy
import datetime
import difflib
import hashlib
import json
import math
import os
import re
import stat
import tomllib
from collections import deque
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from . import units
from .errors import ScenarioError
from .traces import TraceError, read_trace

# --------------------------------------------------------------------------------------
# Rust-side facts (defaults, enum names), fetched once from the extension module.


def _ext() -> Any:
    from . import _tcplab

    return _tcplab


_variants: dict[str, list[str]] | None = None
_profiles: dict[str, Any] | None = None


def profiles() -> dict[str, Any]:
    """The stack profiles (docs/profiles.md), from the Rust table: ``{"default": name,
    "keys": [...], "profiles": {name: {key: value}}}`` in canonical units."""
    global _profiles
    if _profiles is None:
        _profiles = json.loads(_ext().profiles_json())
    return _profiles


def effective_tcp(tcp: Mapping[str, Any], key: str) -> Any:
    """A TCP table's value of a profile key: given explicitly, or its profile's (the Rust
    side resolves canonical scenarios the same way); None for a key no profile sets."""
    if key in tcp:
        return tcp[key]
    p = profiles()
    return p["profiles"][tcp.get("profile", p["default"])].get(key)


def variants() -> dict[str, list[str]]:
    """Accepted names of enumerated keys (``cc``, ``fc``, ``discipline``), from the Rust enums."""
    global _variants
    if _variants is None:
        _variants = json.loads(_ext().variants_json())
    return _variants


# --------------------------------------------------------------------------------------
# Walking the TOML document with key paths for error messages.


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _show(v: Any) -> str:
    """A value as it appeared in the file, with its TOML type: ``"yes" (a string)``."""
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=False)
        return (text if len(text) <= 40 else text[:37] + '..."') + " (a string)"
    if isinstance(v, bool):
        return f"{str(v).lower()} (a boolean)"
    if isinstance(v, (int, float)):
        return f"{v} ({_type_name(v)})"
    return _type_name(v)


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "a table"
    return type(v).__name__


class _Ctx:
    """Raises errors labelled with the scenario's source and, for keys set by ``--set``, the override."""

    def __init__(self, source: str, base_dir: Path, overridden: dict[str, str]):
        self.source = source
        self.base_dir = base_dir
        self.overridden = overridden

    def error(self, path: str, message: str) -> ScenarioError:
        note = None
        for opath, text in self.overridden.items():
            if path == opath or path.startswith(opath + ".") or path.startswith(opath + "["):
                note = f"set by --set {text}"
                break
        return ScenarioError(message, source=self.source, path=path or None, note=note)

    # -- shapes --------------------------------------------------------------------------

    def table(self, value: Any, path: str, allowed: Iterable[str], required: Iterable[str] = ()) -> dict[str, Any]:
        allowed = list(allowed)
        if not isinstance(value, dict):
            raise self.error(path, f"expected a table, got {_type_name(value)}")
        for key in value:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
                hint = f' (did you mean "{close[0]}"?)' if close else ""
                raise self.error(
                    _join(path, key), f"unknown key{hint}; valid keys here: {', '.join(allowed)}"
                )
        for key in required:
            if key not in value:
                raise self.error(_join(path, key), "missing (required)")
        return value

    def get(self, tbl: Mapping[str, Any], key: str, path: str, conv: Callable[[Any, str], Any], default: Any = None) -> Any:
        if key not in tbl:
            return default
        return conv(tbl[key], _join(path, key))

    # -- scalars -------------------------------------------------------------------------

    def _unit(self, fn: Callable[..., int], **kw: Any) -> Callable[[Any, str], int]:
        def conv(v: Any, path: str) -> int:
            try:
                return fn(v, **kw)
            except units.UnitError as e:
                raise self.error(path, str(e)) from None

        return conv

    def rate(self, allow_zero: bool = False) -> Callable[[Any, str], int]:
        return self._unit(units.parse_rate, allow_zero=allow_zero)

    def time(self, allow_zero: bool = True) -> Callable[[Any, str], int]:
        return self._unit(units.parse_duration, allow_zero=allow_zero)

    def size(self, allow_zero: bool = False) -> Callable[[Any, str], int]:
        return self._unit(units.parse_size, allow_zero=allow_zero)

    def boolean(self, v: Any, path: str) -> bool:
        if not isinstance(v, bool):
            raise self.error(path, f"expected true or false, got {_show(v)}")
        return v

    def string(self, v: Any, path: str) -> str:
        if not isinstance(v, str) or not v:
            raise self.error(path, f"expected a non-empty string, got {_show(v)}")
        return v

    def name(self, v: Any, path: str) -> str:
        """A name (scenario, flow, node, link): a non-empty string of at most 256 bytes
        (names head every summary row and error line; docs/reliability.md)."""
        v = self.string(v, path)
        if not v.isprintable():
            raise self.error(path, "a name must be printable (no line breaks, tabs or control characters)")
        if len(v.encode()) > MAX_NAME_BYTES:
            raise self.error(path, f"a name of {len(v.encode())} bytes; at most {MAX_NAME_BYTES}")
        return v

    def integer(self, lo: int = 0, hi: int = 2**64 - 1) -> Callable[[Any, str], int]:
        def conv(v: Any, path: str) -> int:
            if isinstance(v, bool) or not isinstance(v, int):
                raise self.error(path, f"expected an integer, got {_show(v)}")
            if v < lo or v > hi:
                raise self.error(path, f"expected an integer in {lo}..{hi}, got {v}")
            return v

        return conv

    def probability(self, v: Any, path: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(path, f"expected a probability between 0 and 1 (e.g. 0.01), got {_show(v)}")
        if not 0.0 <= float(v) <= 1.0:
            raise self.error(path, f"expected a probability between 0 and 1 (e.g. 0.01), got {v}")
        return float(v)

    def fraction(self, v: Any, path: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
            raise self.error(path, f"expected a number between 0 and 1 (e.g. 0.5), got {_show(v)}")
        return float(v)

    def factor(self, v: Any, path: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v) >= 1.0 or float(v) == float("inf"):
            raise self.error(path, f"expected a number of at least 1 (e.g. 2), got {_show(v)}")
        return float(v)

    def choice(self, options: list[str]) -> Callable[[Any, str], str]:
        def conv(v: Any, path: str) -> str:
            if not isinstance(v, str):
                raise self.error(path, f"expected one of {', '.join(map(json.dumps, options))}, got {_show(v)}")
            if v not in options:
                close = difflib.get_close_matches(v, options, n=1, cutoff=0.5)
                hint = f' (did you mean "{close[0]}"?)' if close else ""
                raise self.error(path, f'unknown value "{v}"{hint}; expected one of {", ".join(map(json.dumps, options))}')
            return v

        return conv


# --------------------------------------------------------------------------------------
# Tables of the scenario file.

TOP_KEYS = ["name", "description", "duration", "seed", "event_budget", "stop_when_done", "record", "topology", "defaults", "flows", "elements", "pages", "workloads"]
# Keys of an open-loop workload (docs/scenarios.md "Workloads").
WORKLOAD_KEYS = ["name", "src", "dst", "pair", "arrivals", "sizes", "start", "stop", "max_flows", "size_buckets", "cc", "fc", "tcp", "receiver_tcp"]
ARRIVAL_KEYS = {"poisson": ["kind", "rate"], "file": ["kind", "path"], "times": ["kind", "times"]}
SIZE_KEYS = {"fixed": ["kind", "bytes"], "exponential": ["kind", "mean"], "pareto": ["kind", "mean", "shape"], "cdf": ["kind", "path", "points"]}
DEFAULT_SIZE_BUCKETS = [10_000, 100_000, 1_000_000, 10_000_000]
# Keys of a web page load (docs/scenarios.md "Pages").
PAGE_KEYS = ["name", "client", "server", "start", "connections", "request", "objects", "model", "seed", "cc", "tcp", "server_tcp"]
#: Page models (docs/scenarios.md "Pages"): the HTTP Archive's average web page of early
#: 2012 (S. Souders, "HTTP Archive: 2011 recap", 1 Feb 2012: 773 kB in Jan 2012, of which
#: 34 kB HTML; "HTTP Archive: nine months", 17 Aug 2011: 76 requests per page): the HTML,
#: then 75 objects with exponentially distributed sizes of mean (773 - 34) / 75 kB.
PAGE_MODELS = {"httparchive-2012": {"html": 34_000, "objects": 75, "mean": (773_000 - 34_000) / 75, "min": 100}}
# Keys of each node element kind (docs/scenarios.md "Elements"), besides "node" and "kind".
ELEMENT_KEYS: dict[str, list[str]] = {
    "bsf": ["link", "weight", "total_buffer", "udp_buffer", "sessions", "bsf_thresh", "flush_thresh",
            "ecn_history", "zwa_copies", "record_ttl"],
    "darca": ["link", "start", "targets", "classes", "class_rtt", "factor", "tolerance", "max_stable",
              "min_convergence", "rwnd", "rtt", "correction", "max_convergence"],
}
# RED's keys in a `queue` table (discipline = "red"), after ns-2.35's Queue/RED parameters.
RED_KEYS = ["min_th", "max_th", "max_p", "weight", "gentle", "wait", "ecn", "use_mark_p", "mark_p", "byte_mode", "queue_in_bytes", "mean_pktsize"]
LINK_KEYS = ["rate", "slot", "trace", "opportunity", "rate_changes", "delay", "delay_changes", "queue", "loss", "header_bytes"]
TCP_KEYS = [
    "mss", "initial_cwnd_pkts", "sack", "max_sack_blocks", "timestamps", "window_scale", "ts_granularity", "ts_offset",
    "initial_rto", "min_rto", "max_rto", "delayed_ack", "delayed_ack_count", "delayed_ack_timeout",
    "rcv_buf", "snd_buf", "dupack_threshold", "nagle", "max_persist", "cc", "fc",
    "window_update", "afc_history_factor", "afc_proactive_factor", "afc_proactive_delay", "afc_burst_threshold_pkts",
    "afc_rate_sampling", "afc_suppress_congestion", "afc_open_window_in_recovery", "afc_recover_point", "rate_error_cv", "rre_feedback_delay", "abc_limit_pkts",
    "recovery", "ecn", "rsfc_threshold", "rsfc_minima_updates", "rsfc_initial_window_pkts", "rsfc_rho_increase",
    "proprate_threshold", "proprate_k_fill", "proprate_k_drain", "rre_threshold", "rre_b_max", "rre_b_min",
    "sprout_percentile", "sprout_tick", "sprout_sigma", "sprout_max_rate", "sprout_threshold",
    "sprout_k_fill", "sprout_k_drain", "frto", "zero_window_freeze",
    "cubic_variant", "vegas_variant", "hystart",
    "profile", "rtt_source", "rto_rule", "ssthresh_rule", "rto_restart", "cwnd_limited_growth", "prr", "handshake",
    "loss_detection", "pipe_rule", "window_granularity", "proprate_target_delay",
    "proteus_window", "proteus_history", "proteus_threshold", "proteus_k_fill", "proteus_k_drain",
    "sprout_target_delay", "rto_on_fast_retransmit", "grow_on_recovery_exit",
    "ca_exact_increase",
]  # fmt: skip
FLOW_KEYS = ["name", "count", "pair", "src", "dst", "connect", "start", "start_spacing", "stop", "pauses", "bytes", "cc", "fc", "tcp", "receiver_tcp", "read"]
TOPOLOGY_KINDS = ["point_to_point", "dumbbell", "custom"]


def _pcap_file_name(link: str) -> str:
    safe = link.replace("->", "-to-")
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in safe) + ".pcap"


def _search(start: str, adj: Mapping[str, list[str]]) -> set[str]:
    """The nodes a breadth-first search over ``adj`` reaches from ``start`` (itself too)."""
    seen = {start}
    todo = deque([start])
    while todo:
        for m in adj.get(todo.popleft(), []):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


class _Topology:
    def __init__(self, spec: dict[str, Any], nodes: list[str], links: list[tuple[str, str, str]]):
        self.spec = spec
        self.nodes = nodes
        self.links = links  # (name, from, to)
        self._adj: dict[str, list[str]] | None = None
        self._radj: dict[str, list[str]] = {}
        # Nodes reachable from a source, and nodes a destination is reachable from.
        self._reach: dict[str, set[str]] = {}
        self._rreach: dict[str, set[str]] = {}
        self._asked_src: dict[str, int] = {}
        self._asked_dst: dict[str, int] = {}

    def route_exists(self, a: str, b: str) -> bool:
        """Whether links lead from ``a`` to ``b``. One breadth-first search per node, kept:
        forward from ``a`` or backward from ``b``, whichever end the checks have named more
        often, so that many hosts' flows to one server (and its ACKs back to each) cost a
        search of the server's, not one per host: linear in flows, not flows x links."""
        if self._adj is None:
            self._adj = {}
            for _, f, t in self.links:
                self._adj.setdefault(f, []).append(t)
                self._radj.setdefault(t, []).append(f)
        self._asked_src[a] = self._asked_src.get(a, 0) + 1
        self._asked_dst[b] = self._asked_dst.get(b, 0) + 1
        if a in self._reach:
            return b in self._reach[a]
        if b in self._rreach:
            return a in self._rreach[b]
        if self._asked_dst[b] > self._asked_src[a]:
            self._rreach[b] = _search(b, self._radj)
            return a in self._rreach[b]
        self._reach[a] = _search(a, self._adj)
        return b in self._reach[a]


class _Parser:
    def __init__(self, ctx: _Ctx):
        self.c = ctx

    # -- links ---------------------------------------------------------------------------

    def link(self, value: Any, path: str, extra_keys: tuple[str, ...] = ()) -> dict[str, Any]:
        c = self.c
        t = c.table(value, path, list(extra_keys) + LINK_KEYS)
        out: dict[str, Any] = {}
        if "rate" in t and "trace" in t:
            raise c.error(_join(path, "trace"), 'give either "rate" or "trace", not both')
        if "rate" in t:
            r = t["rate"]
            if isinstance(r, list):
                if not r:
                    raise c.error(_join(path, "rate"), "a rate schedule needs at least one rate")
                rates = [c.rate(allow_zero=True)(x, _join(_join(path, "rate"), i)) for i, x in enumerate(r)]
                if not any(rates):
                    raise c.error(_join(path, "rate"), "every rate of the schedule is zero: the link would never send")
                if "slot" not in t:
                    raise c.error(_join(path, "slot"), 'missing: a rate schedule (an array of rates) needs "slot", e.g. slot = "530ms"')
                slot = c.time(allow_zero=False)(t["slot"], _join(path, "slot"))
                out["rate"] = {"kind": "schedule", "rates_bps": rates, "slot": slot}
            else:
                if "slot" in t:
                    raise c.error(_join(path, "slot"), '"slot" only applies to a rate schedule (rate = ["3Mbit/s", "15Mbit/s"])')
                out["rate"] = {"kind": "fixed", "bps": c.rate()(r, _join(path, "rate"))}
            if "opportunity" in t:
                raise c.error(_join(path, "opportunity"), '"opportunity" only applies to a trace link (trace = "file.down")')
        elif "trace" in t:
            if "slot" in t:
                raise c.error(_join(path, "slot"), '"slot" only applies to a rate schedule, not to a trace')
            rel = c.string(t["trace"], _join(path, "trace"))
            p = Path(rel).expanduser()
            if not p.is_absolute():
                p = c.base_dir / p
            p = Path(os.path.normpath(p))
            try:
                read_trace(p)
            except TraceError as e:
                raise c.error(_join(path, "trace"), str(e)) from None
            except OSError as e:  # a name the file system refuses (too long, ...)
                raise c.error(_join(path, "trace"), f"cannot read {rel[:80]!r}{'...' if len(rel) > 80 else ''}: {e.strerror}") from None
            opp = c.get(t, "opportunity", path, c.size(), 1500)
            if opp > 2**32 - 1:
                raise c.error(_join(path, "opportunity"), f"{opp} bytes: at most 4294967295 bytes per delivery opportunity")
            out["rate"] = {"kind": "trace", "path": str(p), "opportunity_bytes": opp}
        else:
            raise c.error(_join(path, "rate"), 'missing: give "rate" (e.g. "10Mbit/s", or an array with "slot") or "trace" (a Mahimahi file)')
        if "rate_changes" in t:
            # Only a fixed rate changes this way: a schedule or a trace already says how its
            # rate varies (the Rust validator holds the same rule for canonical scenarios).
            if out["rate"]["kind"] != "fixed":
                what = "a rate schedule (rate = [...])" if out["rate"]["kind"] == "schedule" else "a trace"
                raise c.error(_join(path, "rate_changes"), f'only a fixed-rate link (rate = "10Mbit/s") can change its rate; this link has {what}')
            out["rate_changes"] = self.rate_changes(t["rate_changes"], _join(path, "rate_changes"))
        out["delay"] = c.get(t, "delay", path, c.time(), 0)
        if "delay_changes" in t:
            out["delay_changes"] = self.delay_changes(t["delay_changes"], _join(path, "delay_changes"))
        if "queue" in t:
            out["queue"] = self.queue(t["queue"], _join(path, "queue"))
        if "loss" in t:
            out["loss"] = self.loss(t["loss"], _join(path, "loss"))
        out["header_bytes"] = c.get(t, "header_bytes", path, c.integer(0, 2**32 - 1), 0)
        return out

    def delay_changes(self, v: Any, path: str) -> list[dict[str, int]]:
        """``[{ at = "4s", delay = "75ms" }, ...]``: the propagation delay from ``at`` on."""
        return self._changes(v, path, "delay", "delay", self.c.time(), '[{ at = "4s", delay = "75ms" }]')

    def rate_changes(self, v: Any, path: str) -> list[dict[str, int]]:
        """``[{ at = "100s", rate = "100kbit/s" }, ...]``: a fixed link's rate from ``at`` on
        (canonical ``{"at": ns, "bps": bit/s}``), as :meth:`delay_changes` for the delay."""
        return self._changes(v, path, "rate", "bps", self.c.rate(), '[{ at = "100s", rate = "100kbit/s" }]')

    def _changes(self, v: Any, path: str, key: str, out_key: str, conv: Callable[[Any, str], int],
                 example: str) -> list[dict[str, int]]:
        """A link's schedule of changes of ``key``: tables ``{ at, <key> }`` in increasing ``at``."""
        c = self.c
        if not isinstance(v, list):
            raise c.error(path, f"expected an array of tables, e.g. {example}")
        out: list[dict[str, int]] = []
        for i, e in enumerate(v):
            p = _join(path, i)
            t = c.table(e, p, ["at", key], ["at", key])
            at = c.time()(t["at"], _join(p, "at"))
            if out and at <= out[-1]["at"]:
                raise c.error(_join(p, "at"), f"{key} changes must be in increasing time order")
            out.append({"at": at, out_key: conv(t[key], _join(p, key))})
        return out

    def queue(self, v: Any, path: str) -> dict[str, Any]:
        c = self.c
        disc = "drop_tail"
        limit: Any = v
        red: dict[str, Any] | None = None
        if isinstance(v, dict):
            t = c.table(v, path, ["limit", "discipline", *RED_KEYS], ["limit"])
            limit = t["limit"]
            disc = c.get(t, "discipline", path, c.choice(variants()["discipline"]), "drop_tail")
            if disc == "red":
                red = self.red(t, path)
            else:
                for key in RED_KEYS:
                    if key in t:
                        raise c.error(_join(path, key), f'a RED parameter: only with discipline = "red" (this queue is "{disc}")')
            path = _join(path, "limit")
        out: dict[str, Any] = {"discipline": disc}
        if limit == "unlimited":
            out.update({"limit_packets": None, "limit_bytes": None})
        else:
            try:
                kind, n = units.parse_queue_limit(limit)
            except units.UnitError as e:
                raise c.error(path, f'{e} (or "unlimited")') from None
            out.update({"limit_packets": n if kind == "packets" else None, "limit_bytes": n if kind == "bytes" else None})
        if red is not None:
            out["red"] = red
        return out

    def red(self, t: Mapping[str, Any], path: str) -> dict[str, Any]:
        """RED's keys (docs/scenarios.md), in ns-2.35's units and with its defaults; the
        ranges (max_p in (0, 1], min_th < max_th, ...) are checked by the Rust validator."""
        c = self.c

        def number(v: Any, p: str) -> float:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
                raise c.error(p, f"expected a number, got {_show(v)}")
            return float(v)

        def auto(code: float) -> Callable[[Any, str], float]:
            def conv(v: Any, p: str) -> float:
                return code if v == "auto" else number(v, p)

            return conv

        return {
            "min_th": c.get(t, "min_th", path, auto(0.0), 0.0),
            "max_th": c.get(t, "max_th", path, auto(0.0), 0.0),
            "max_p": c.get(t, "max_p", path, number, 0.1),
            "q_weight": c.get(t, "weight", path, auto(-1.0), -1.0),
            "gentle": c.get(t, "gentle", path, c.boolean, True),
            "wait": c.get(t, "wait", path, c.boolean, True),
            "ecn": c.get(t, "ecn", path, c.boolean, False),
            "use_mark_p": c.get(t, "use_mark_p", path, c.boolean, True),
            "mark_p": c.get(t, "mark_p", path, number, 0.1),
            "bytes": c.get(t, "byte_mode", path, c.boolean, True),
            "queue_in_bytes": c.get(t, "queue_in_bytes", path, c.boolean, True),
            "mean_pktsize": c.get(t, "mean_pktsize", path, c.size(), 500),
        }

    def loss(self, v: Any, path: str) -> dict[str, Any]:
        c = self.c
        if v == "none":
            return {"kind": "none"}
        if not isinstance(v, dict):
            raise c.error(path, f'expected "none" or a table like {{ kind = "bernoulli", p = 0.01 }}, got {_type_name(v)}')
        kind = c.get(v, "kind", path, c.choice(["none", "bernoulli", "gilbert_elliott", "periodic"]))
        if kind is None:
            raise c.error(_join(path, "kind"), 'missing: one of "none", "bernoulli", "gilbert_elliott", "periodic"')
        if kind == "none":
            c.table(v, path, ["kind"])
            return {"kind": "none"}
        if kind == "bernoulli":
            t = c.table(v, path, ["kind", "p"], ["p"])
            return {"kind": "bernoulli", "p": c.probability(t["p"], _join(path, "p"))}
        if kind == "periodic":
            # ns-2's ErrorModel/Periodic in packet units: the offset-th packet the link sends
            # is lost, then every period-th after it. The offset defaults to the period (ns-2's
            # offset_ 0 would lose the very first packet, a SYN here).
            t = c.table(v, path, ["kind", "period", "offset"], ["period"])
            period = c.integer(1)(t["period"], _join(path, "period"))
            return {"kind": "periodic", "period": period, "offset": c.get(t, "offset", path, c.integer(0), period)}
        if "error_rate" in v or "mean_burst" in v:
            # The form papers give ("error rate 1% to 10%", BSF section IV): a mean loss rate
            # e and a mean burst of L packets, every packet lost in the bad state and none in
            # the good one. The bad state lasts 1/p_bad_to_good packets on average, so
            # p_bad_to_good = 1/L; the stationary share of the bad state,
            # p_good_to_bad / (p_good_to_bad + p_bad_to_good), must equal e.
            t = c.table(v, path, ["kind", "error_rate", "mean_burst"], ["error_rate", "mean_burst"])
            e = c.probability(t["error_rate"], _join(path, "error_rate"))
            burst = t["mean_burst"]
            if isinstance(burst, bool) or not isinstance(burst, (int, float)) or not math.isfinite(burst) or burst < 1:
                raise c.error(_join(path, "mean_burst"), f"expected a mean burst of at least 1 packet (e.g. 3), got {_show(burst)}")
            if e >= burst / (burst + 1):
                raise c.error(_join(path, "error_rate"), f"{e} is too high for bursts of {burst:g} packets: the good state "
                              f"would last less than one packet (at most {burst / (burst + 1):.4g})")
            p_bg = 1.0 / burst
            return {"kind": "gilbert_elliott", "p_good_to_bad": e / (1.0 - e) * p_bg, "p_bad_to_good": p_bg,
                    "loss_good": 0.0, "loss_bad": 1.0}
        t = c.table(v, path, ["kind", "p_good_to_bad", "p_bad_to_good", "loss_good", "loss_bad"], ["p_good_to_bad", "p_bad_to_good"])
        return {
            "kind": "gilbert_elliott",
            "p_good_to_bad": c.probability(t["p_good_to_bad"], _join(path, "p_good_to_bad")),
            "p_bad_to_good": c.probability(t["p_bad_to_good"], _join(path, "p_bad_to_good")),
            "loss_good": c.get(t, "loss_good", path, c.probability, 0.0),
            "loss_bad": c.get(t, "loss_bad", path, c.probability, 1.0),
        }

    # -- topology ------------------------------------------------------------------------

    def topology(self, v: Any, path: str) -> _Topology:
        c = self.c
        if not isinstance(v, dict):
            raise c.error(path, f"expected a table, got {_type_name(v)}")
        if "kind" not in v:
            raise c.error(_join(path, "kind"), f"missing: one of {', '.join(map(json.dumps, TOPOLOGY_KINDS))}")
        kind = c.choice(TOPOLOGY_KINDS)(v["kind"], _join(path, "kind"))
        if kind == "point_to_point":
            t = c.table(v, path, ["kind", "downlink", "uplink"], ["downlink", "uplink"])
            spec = {
                "kind": kind,
                "downlink": self.link(t["downlink"], _join(path, "downlink")),
                "uplink": self.link(t["uplink"], _join(path, "uplink")),
            }
            return _Topology(spec, ["server", "client"], [("downlink", "server", "client"), ("uplink", "client", "server")])
        if kind == "dumbbell":
            names = ["bottleneck", "bottleneck_rev", "sender_access", "receiver_access"]
            t = c.table(v, path, ["kind", "pairs", *names], ["pairs", *names])
            pairs = c.integer(1, 100_000)(t["pairs"], _join(path, "pairs"))
            spec = {"kind": kind, "pairs": pairs} | {n: self.link(t[n], _join(path, n)) for n in names}
            nodes = [f"s{i}" for i in range(pairs)] + [f"r{i}" for i in range(pairs)] + ["left", "right"]
            links = [("bottleneck", "left", "right"), ("bottleneck_rev", "right", "left")]
            for i in range(pairs):
                links += [
                    (f"s{i}->left", f"s{i}", "left"),
                    (f"left->s{i}", "left", f"s{i}"),
                    (f"right->r{i}", "right", f"r{i}"),
                    (f"r{i}->right", f"r{i}", "right"),
                ]
            return _Topology(spec, nodes, links)
        t = c.table(v, path, ["kind", "nodes", "links"], ["nodes", "links"])
        npath = _join(path, "nodes")
        if not isinstance(t["nodes"], list) or not t["nodes"]:
            raise c.error(npath, "expected a non-empty array of node names")
        nodes = [c.name(n, _join(npath, i)) for i, n in enumerate(t["nodes"])]
        seen_nodes: set[str] = set()
        for i, n in enumerate(nodes):
            if n in seen_nodes:
                raise c.error(_join(npath, i), f'duplicate node "{n}"')
            seen_nodes.add(n)
        lpath = _join(path, "links")
        if not isinstance(t["links"], list) or not t["links"]:
            raise c.error(lpath, "expected a non-empty array of link tables ([[topology.links]])")
        links_out = []
        triples: list[tuple[str, str, str]] = []
        link_names: set[str] = set()
        node_set = seen_nodes
        for i, lv in enumerate(t["links"]):
            p = _join(lpath, i)
            if not isinstance(lv, dict):
                raise c.error(p, f"expected a table, got {_type_name(lv)}")
            c.table(lv, p, ["name", "from", "to", *LINK_KEYS], ["from", "to"])
            ends = []
            for end in ("from", "to"):
                n = c.string(lv[end], _join(p, end))
                if n not in node_set:
                    raise c.error(_join(p, end), self._unknown_node(n, nodes))
                ends.append(n)
            if ends[0] == ends[1]:
                raise c.error(_join(p, "to"), f'a link must join two different nodes (from = to = "{ends[0]}")')
            name = c.name(lv["name"], _join(p, "name")) if "name" in lv else f"{ends[0]}->{ends[1]}"
            if name in link_names:
                raise c.error(_join(p, "name"), f'duplicate link name "{name}"')
            link_names.add(name)
            spec = self.link({k: x for k, x in lv.items() if k not in ("name", "from", "to")}, p)
            links_out.append({"name": name, "from": ends[0], "to": ends[1], **spec})
            triples.append((name, ends[0], ends[1]))
        return _Topology({"kind": "custom", "nodes": nodes, "links": links_out}, nodes, triples)

    @staticmethod
    def _unknown_node(n: str, nodes: list[str]) -> str:
        close = difflib.get_close_matches(n, nodes, n=1, cutoff=0.5)
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        shown = nodes if len(nodes) <= 12 else nodes[:12] + ["..."]
        return f'unknown node "{n}"{hint}; nodes: {", ".join(shown)}'

    # -- TCP and the receiving application -------------------------------------------------

    def tcp(self, v: Any, path: str) -> dict[str, Any]:
        c = self.c
        t = c.table(v, path, TCP_KEYS)
        out: dict[str, Any] = {}
        convs: dict[str, tuple[str, Callable[[Any, str], Any]]] = {
            "mss": ("mss", c.size()),
            "initial_cwnd_pkts": ("initial_cwnd_pkts", c.integer(1, 2**32 - 1)),
            "sack": ("sack", c.boolean),
            "max_sack_blocks": ("max_sack_blocks", c.integer(1, 4)),
            "timestamps": ("timestamps", c.boolean),
            "window_scale": ("window_scale", c.boolean),
            "ts_granularity": ("ts_granularity", c.time(allow_zero=False)),
            "ts_offset": ("ts_offset", c.time()),
            "initial_rto": ("initial_rto", c.time(allow_zero=False)),
            "min_rto": ("min_rto", c.time(allow_zero=False)),
            "max_rto": ("max_rto", c.time(allow_zero=False)),
            "delayed_ack": ("delayed_ack", c.boolean),
            "delayed_ack_count": ("delayed_ack_count", c.integer(1, 2**32 - 1)),
            "delayed_ack_timeout": ("delayed_ack_timeout", c.time(allow_zero=False)),
            "rcv_buf": ("rcv_buf_bytes", c.size()),
            "snd_buf": ("snd_buf_bytes", c.size()),
            "dupack_threshold": ("dupack_threshold", c.integer(1, 2**32 - 1)),
            "nagle": ("nagle", c.boolean),
            "max_persist": ("max_persist", c.time(allow_zero=False)),
            "cc": ("cc", c.choice(variants()["cc"])),
            "fc": ("fc", c.choice(variants()["fc"])),
            "window_update": ("window_update", c.choice(variants()["window_update"])),
            "window_granularity": ("window_granularity", c.choice(variants()["window_granularity"])),
            "recovery": ("recovery", c.choice(variants()["recovery"])),
            "afc_history_factor": ("afc_history_factor", c.fraction),
            "afc_proactive_factor": ("afc_proactive_factor", c.factor),
            "afc_proactive_delay": ("afc_proactive_delay", c.time()),
            "afc_burst_threshold_pkts": ("afc_burst_threshold_pkts", c.integer(0, 2**32 - 1)),
            "afc_rate_sampling": ("afc_rate_sampling", c.choice(["paper", "reads_only"])),
            "afc_suppress_congestion": ("afc_suppress_congestion", c.boolean),
            "afc_open_window_in_recovery": ("afc_open_window_in_recovery", c.boolean),
            "afc_recover_point": ("afc_recover_point", c.boolean),
            "rsfc_threshold": ("rsfc_threshold", self._rsfc_threshold),
            "rsfc_minima_updates": ("rsfc_minima_updates", c.boolean),
            "rsfc_initial_window_pkts": ("rsfc_initial_window_pkts", c.integer(1, 2**20)),
            "rsfc_rho_increase": ("rsfc_rho_increase", self._rsfc_rho_increase),
            "rate_error_cv": ("rate_error_cv", self._cv),
            "rre_feedback_delay": ("rre_feedback_delay", c.choice(["rtt_min", "buffer_plus_rtt_min", "srtt"])),
            "abc_limit_pkts": ("abc_limit_pkts", c.integer(0, 2**32 - 1)),
            "proprate_threshold": ("proprate_threshold", c.time(allow_zero=False)),
            "proprate_k_fill": ("proprate_k_fill", self._gain(above_one=True)),
            "proprate_k_drain": ("proprate_k_drain", self._gain(above_one=False)),
            "rre_threshold": ("rre_threshold", c.time(allow_zero=False)),
            "rre_b_max": ("rre_b_max", c.time(allow_zero=False)),
            "rre_b_min": ("rre_b_min", c.time(allow_zero=False)),
            "sprout_percentile": ("sprout_percentile", self._bounded("a percentile above 0 and below 100 (e.g. 5)", 0, 100, False, False)),
            "sprout_tick": ("sprout_tick", c.time(allow_zero=False)),
            "sprout_sigma": ("sprout_sigma", self._bounded("packets/s per sqrt(s), 0 to 100000 (e.g. 200)", 0, 100_000, True, True)),
            "sprout_max_rate": ("sprout_max_rate", self._bounded("packets per second above 0 (e.g. 1000)", 0, 1e9, False, True)),
            "sprout_threshold": ("sprout_threshold", c.time(allow_zero=False)),
            "sprout_k_fill": ("sprout_k_fill", self._gain(above_one=True)),
            "sprout_k_drain": ("sprout_k_drain", self._gain(above_one=False)),
            "sprout_target_delay": ("sprout_target_delay", c.time(allow_zero=False)),
            "frto": ("frto", c.boolean),
            "zero_window_freeze": ("zero_window_freeze", c.boolean),
            "ecn": ("ecn", c.boolean),
            "cubic_variant": ("cubic_variant", c.choice(variants()["cubic_variant"])),
            "vegas_variant": ("vegas_variant", c.choice(variants()["vegas_variant"])),
            "hystart": ("hystart", c.boolean),
            "profile": ("profile", c.choice(variants()["profile"])),
            "rtt_source": ("rtt_source", c.choice(variants()["rtt_source"])),
            "rto_rule": ("rto_rule", c.choice(variants()["rto_rule"])),
            "ssthresh_rule": ("ssthresh_rule", c.choice(variants()["ssthresh_rule"])),
            "rto_restart": ("rto_restart", c.choice(variants()["rto_restart"])),
            "rto_on_fast_retransmit": ("rto_on_fast_retransmit", c.choice(variants()["rto_on_fast_retransmit"])),
            "grow_on_recovery_exit": ("grow_on_recovery_exit", c.boolean),
            "ca_exact_increase": ("ca_exact_increase", c.boolean),
            "cwnd_limited_growth": ("cwnd_limited_growth", c.boolean),
            "prr": ("prr", c.choice(variants()["prr"])),
            "handshake": ("handshake", c.boolean),
            "loss_detection": ("loss_detection", c.choice(variants()["loss_detection"])),
            "pipe_rule": ("pipe_rule", c.choice(variants()["pipe_rule"])),
            "proprate_target_delay": ("proprate_target_delay", self._target_delay),
            "proteus_window": ("proteus_window", c.time(allow_zero=False)),
            "proteus_history": ("proteus_history", c.integer(5, 1024)),
            "proteus_threshold": ("proteus_threshold", c.time(allow_zero=False)),
            "proteus_k_fill": ("proteus_k_fill", self._bounded("a gain from 1 to 10 (e.g. 1.0)", 1, 10, True, True)),
            "proteus_k_drain": ("proteus_k_drain", self._bounded("a gain above 0 and below 1 (e.g. 0.25)", 0, 1, False, False)),
        }
        for key, value in t.items():
            target, conv = convs[key]
            out[target] = conv(value, _join(path, key))
        if "mss" in out and out["mss"] > 65455:
            raise c.error(_join(path, "mss"), f"{out['mss']} bytes: at most 65455 (an IPv4 datagram of 65535 bytes less "
                          "20 bytes of IP header, 20 of TCP header and up to 40 of TCP options)")
        return out

    def _check_rre_delays(self, tcp: dict[str, Any], path: str) -> None:
        """`cc = "rre-table6.1"`'s B_min < T < B_max (thesis 5.1.2), defaults filled in."""
        ms = 1_000_000
        lo, t, hi = tcp.get("rre_b_min", 20 * ms), tcp.get("rre_threshold", 40 * ms), tcp.get("rre_b_max", 60 * ms)
        if not lo < t < hi:
            raise self.c.error(
                path,
                f"rre_b_min < rre_threshold < rre_b_max must hold, got {lo / ms:g} ms, {t / ms:g} ms and {hi / ms:g} ms "
                "(unset ones are 20, 40 and 60 ms, Table 6.1's RRE row)",
            )

    def _target_delay(self, v: Any, path: str) -> int:
        """`cc = "proprate-target"`'s 95th-percentile one-way delay: 20 ms to 2 s (below, the
        path's base delay and the 1 ms timestamp tick dominate; above, the controller's 4 s
        histogram would clip the tail it measures)."""
        ns = self.c.time(allow_zero=False)(v, path)
        if not 20_000_000 <= ns <= 2_000_000_000:
            raise self.c.error(path, f"expected a delay between 20ms and 2s (e.g. \"100ms\"), got {_show(v)}")
        return ns

    def _bounded(self, what: str, lo: float, hi: float, lo_in: bool, hi_in: bool) -> Callable[[Any, str], float]:
        """A finite number between lo and hi, each end included or not (the `sprout_*` keys)."""

        def conv(v: Any, path: str) -> float:
            ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
            if not (ok and (lo <= v if lo_in else lo < v) and (v <= hi if hi_in else v < hi)):
                raise self.c.error(path, f"expected {what}, got {_show(v)}")
            return float(v)

        return conv

    def _gain(self, above_one: bool) -> Callable[[Any, str], float]:
        """PropRate's k (thesis 6.1.1): above 1 in Buffer Fill, between 0 and 1 in Drain."""

        def conv(v: Any, path: str) -> float:
            ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
            if above_one and not (ok and 1 < v <= 10):
                raise self.c.error(path, f"expected a multiple of rho above 1 and at most 10 (e.g. 1.25), got {_show(v)}")
            if not above_one and not (ok and 0 < v < 1):
                raise self.c.error(path, f"expected a multiple of rho between 0 and 1, exclusive (e.g. 0.75), got {_show(v)}")
            return float(v)

        return conv

    def _rsfc_threshold(self, v: Any, path: str) -> int | None:
        """RSFC's T (section III-A): "rtt_min" (the paper's T = RTT_min) or a time above 0."""
        if v == "rtt_min":
            return None
        try:
            return units.parse_duration(v, allow_zero=False)
        except units.UnitError as e:
            raise self.c.error(path, f'expected "rtt_min" or a time above 0 (e.g. "200ms"): {e}') from None

    def _rsfc_rho_increase(self, v: Any, path: str) -> float:
        """The relative rise of RSFC's receive rate that counts as an increase: above 0, at most 10."""
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < v <= 10):
            raise self.c.error(path, f"expected a relative increase above 0 and at most 10 (0.1 = 10%), got {_show(v)}")
        return float(v)

    def _cv(self, v: Any, path: str) -> float:
        """A coefficient of variation: a plain number, 0 or more (1 = 100%)."""
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 <= v <= 10):
            raise self.c.error(path, f"expected a coefficient of variation between 0 and 10 (1 = 100%), got {_show(v)}")
        return float(v)

    def read(self, v: Any, path: str) -> dict[str, Any]:
        c = self.c
        if v == "unlimited":
            return {"kind": "unlimited"}
        expected = 'expected "unlimited", a rate like "6Mbit/s" or a table { pattern = [...], slot = "530ms" }'
        if isinstance(v, str):
            # Any quantity the rate parser takes (".5Mbit/s" too): one rule for rates.
            try:
                bps = units.parse_rate(v, allow_zero=True)
            except units.UnitError as e:
                # A word ("fast") needs no unit list; a quantity gets the rate parser's reason.
                looks_numeric = v.strip()[:1] in tuple("0123456789.+-") or any(ch.isdigit() for ch in v)
                detail = str(e).split(units._describe(v), 1)[-1].lstrip(":; ") if looks_numeric else ""
                raise c.error(path, f"{expected}, got {_show(v)}" + (f": {detail}" if detail else "")) from None
            return {"kind": "constant", "bps": bps, "tick": 1_000_000}
        if not isinstance(v, dict):
            raise c.error(path, f"{expected}, got {_show(v)}")
        if "pattern" in v:
            t = c.table(v, path, ["pattern", "slot", "tick", "blocking", "phase"], ["slot"])
            pp = _join(path, "pattern")
            if not isinstance(t["pattern"], list) or not t["pattern"]:
                raise c.error(pp, 'expected a non-empty array of rates, e.g. ["0Mbit/s", "6Mbit/s", "6Mbit/s"]')
            rates = [c.rate(allow_zero=True)(x, _join(pp, i)) for i, x in enumerate(t["pattern"])]
            slot = c.time(allow_zero=False)(t["slot"], _join(path, "slot"))
            phase = c.get(t, "phase", path, c.time(allow_zero=True), 0)
            if phase >= slot * len(rates):
                raise c.error(_join(path, "phase"), f"must be shorter than the pattern's cycle ({len(rates)} slots of "
                              f"{slot / 1e6:g} ms = {slot * len(rates) / 1e6:g} ms), got {_show(t['phase'])}")
            return {
                "kind": "pattern",
                "rates_bps": rates,
                "slot": slot,
                "tick": c.get(t, "tick", path, c.time(allow_zero=False), 1_000_000),
                "blocking": c.get(t, "blocking", path, c.boolean, False),
                "phase": phase,
            }
        t = c.table(v, path, ["rate", "tick", "pattern", "slot", "blocking", "phase"], ["rate"])
        for k in ("slot", "phase"):
            if k in t:
                raise c.error(_join(path, k), f'"{k}" only applies to a read pattern (pattern = [...])')
        return {
            "kind": "constant",
            "bps": c.rate(allow_zero=True)(t["rate"], _join(path, "rate")),
            "tick": c.get(t, "tick", path, c.time(allow_zero=False), 1_000_000),
            "blocking": c.get(t, "blocking", path, c.boolean, False),
        }

    # -- flows ---------------------------------------------------------------------------

    def flows(self, raw: Mapping[str, Any], topo: _Topology, duration: int) -> list[dict[str, Any]]:
        c = self.c
        defaults = c.table(raw.get("defaults", {}), "defaults", ["tcp", "receiver_tcp", "read"])
        d_tcp = self.tcp(defaults["tcp"], "defaults.tcp") if "tcp" in defaults else {}
        d_rtcp = self.tcp(defaults["receiver_tcp"], "defaults.receiver_tcp") if "receiver_tcp" in defaults else None
        d_read = self.read(defaults["read"], "defaults.read") if "read" in defaults else {"kind": "unlimited"}
        if "flows" not in raw:
            if "pages" in raw or "workloads" in raw:
                return []
            raise c.error("flows", "missing: add at least one [[flows]] table (or [[pages]], or [[workloads]])")
        fl = raw["flows"]
        if isinstance(fl, list) and not fl and (raw.get("pages") or raw.get("workloads")):
            return []  # page loads or workloads alone
        if not isinstance(fl, list) or not fl or not all(isinstance(x, dict) for x in fl):
            raise c.error("flows", "expected an array of tables ([[flows]]) with at least one flow")
        kind = topo.spec["kind"]
        out: list[dict[str, Any]] = []
        names: set[str] = set()
        next_pair = 0
        for k, fv in enumerate(fl):
            p = _join("flows", k)
            t = c.table(fv, p, FLOW_KEYS)
            count = c.get(t, "count", p, c.integer(1, 100_000), 1)
            tcp, rtcp = self._sender_receiver_tcp(t, p, d_tcp, d_rtcp)
            read = self.read(t["read"], _join(p, "read")) if "read" in t else d_read
            start = c.get(t, "start", p, c.time(), 0)
            spacing = c.get(t, "start_spacing", p, c.time(), 0)
            stop = c.get(t, "stop", p, c.time(allow_zero=False), None)
            connect = c.get(t, "connect", p, c.time(), None)
            pauses = self.pauses(t["pauses"], _join(p, "pauses")) if "pauses" in t else []
            nbytes = None
            if "bytes" in t and t["bytes"] != "unlimited":
                try:
                    nbytes = units.parse_size(t["bytes"])
                except units.UnitError as e:
                    raise c.error(_join(p, "bytes"), f'{e} (or "unlimited")') from None
            # Endpoints.
            if "pair" in t and kind != "dumbbell":
                raise c.error(_join(p, "pair"), '"pair" only applies to a dumbbell topology; use src and dst')
            if kind == "dumbbell" and "src" not in t and "dst" not in t:
                first = c.get(t, "pair", p, c.integer(0, 100_000), next_pair)
                pairs = topo.spec["pairs"]
                last = first + count - 1
                if last >= pairs:
                    where = _join(p, "count") if count > 1 else _join(p, "pair")
                    raise c.error(
                        where,
                        f"flow uses dumbbell pair {last} but topology.pairs = {pairs} (pairs are numbered 0..{pairs - 1})",
                    )
                ends = [(f"s{first + i}", f"r{first + i}") for i in range(count)]
                next_pair = last + 1
            else:
                if "pair" in t:
                    raise c.error(_join(p, "pair"), '"pair" and src/dst exclude each other')
                if kind == "custom" and ("src" not in t or "dst" not in t):
                    raise c.error(_join(p, "src" if "src" not in t else "dst"), "missing (required in a custom topology)")
                if kind == "dumbbell" and ("src" not in t or "dst" not in t):
                    raise c.error(_join(p, "src" if "src" not in t else "dst"), "give both src and dst, or neither (then pairs are assigned in order)")
                src, dst = self._src_dst(t, p, topo)
                ends = [(src, dst)] * count
            base = c.get(t, "name", p, c.name, None)
            for i, (src, dst) in enumerate(ends):
                if base is None:
                    name = f"flow{len(out)}"
                else:
                    name = base if count == 1 else f"{base}{i}"
                f_start = start + i * spacing
                if f_start >= duration:
                    raise c.error(_join(p, "start"), f"flow {name} starts at {f_start / 1e9:g} s, at or after the end of the run (duration = {duration / 1e9:g} s)")
                if connect is not None and connect > f_start:
                    raise c.error(_join(p, "connect"), f"flow {name} connects at {connect / 1e9:g} s, after its start at {f_start / 1e9:g} s")
                if stop is not None and stop <= f_start:
                    raise c.error(_join(p, "stop"), f"flow {name} stops at {stop / 1e9:g} s, not after its start at {f_start / 1e9:g} s")
                if pauses and pauses[0]["at"] < f_start:
                    # Pauses are absolute times, the same for every copy of a `count`; the
                    # pause list is in order, so the first one decides.
                    raise c.error(_join(_join(_join(p, "pauses"), 0), "at"), f"flow {name} starts at {f_start / 1e9:g} s, after this pause "
                                  f"begins at {pauses[0]['at'] / 1e9:g} s (a pause must not begin before the flow starts)")
                flow: dict[str, Any] = {
                    "name": name,
                    "src": src,
                    "dst": dst,
                    "start": f_start,
                    "stop": stop,
                    "bytes": nbytes,
                    "tcp": dict(tcp),
                    "receiver_tcp": dict(rtcp) if rtcp is not None else None,
                    "read": dict(read),
                }
                if connect is not None:
                    flow["connect"] = connect
                if pauses:
                    flow["pauses"] = [dict(x) for x in pauses]
                if name in names:
                    raise c.error(_join(p, "name"), f'duplicate flow name "{name}"')
                names.add(name)
                out.append(flow)
        return out

    def pauses(self, v: Any, path: str) -> list[dict[str, int]]:
        """``[{ at = "200s", until = "300s" }, ...]``: the sending application writes nothing
        during each ``[at, until)``; non-empty, in increasing order, not overlapping."""
        c = self.c
        if not isinstance(v, list):
            raise c.error(path, 'expected an array of tables, e.g. [{ at = "200s", until = "300s" }]')
        out: list[dict[str, int]] = []
        for i, e in enumerate(v):
            p = _join(path, i)
            t = c.table(e, p, ["at", "until"], ["at", "until"])
            at = c.time()(t["at"], _join(p, "at"))
            until = c.time()(t["until"], _join(p, "until"))
            if out and at < out[-1]["until"]:
                raise c.error(_join(p, "at"), f"pauses must be in increasing time order and must not overlap (this one begins at "
                              f"{at / 1e9:g} s, before the previous one ends at {out[-1]['until'] / 1e9:g} s)")
            if until <= at:
                raise c.error(_join(p, "until"), f"must be after at: the pause would end at {until / 1e9:g} s, not after it begins at {at / 1e9:g} s")
            out.append({"at": at, "until": until})
        return out

    # -- record ----------------------------------------------------------------------------

    def pages(self, raw: Mapping[str, Any], topo: _Topology, seed: int) -> list[dict[str, Any]]:
        """``[[pages]]``: web page loads (the RSFC paper's section IV-C workload). Objects are
        given as sizes, or drawn from a page model with the page's ``seed``."""
        c = self.c
        v = raw.get("pages", [])
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise c.error("pages", f"expected an array of tables ([[pages]]), got {_type_name(v)}")
        defaults = c.table(raw.get("defaults", {}), "defaults", ["tcp", "receiver_tcp", "read"])
        d_tcp = self.tcp(defaults["tcp"], "defaults.tcp") if "tcp" in defaults else {}
        out = []
        for i, pv in enumerate(v):
            p = _join("pages", i)
            t = c.table(pv, p, PAGE_KEYS, ["client", "server"])
            name = c.get(t, "name", p, c.name, f"page-{i}")
            ends = {}
            for key in ("client", "server"):
                n = c.name(t[key], _join(p, key))
                if n not in topo.nodes:
                    raise c.error(_join(p, key), self._unknown_node(n, topo.nodes))
                ends[key] = n
            if ends["client"] == ends["server"]:
                raise c.error(_join(p, "server"), "the client and the server are the same node")
            for a, b, key in ((ends["server"], ends["client"], "client"), (ends["client"], ends["server"], "server")):
                if not topo.route_exists(a, b):
                    raise c.error(_join(p, key), f"no route from '{a}' to '{b}'")
            if ("objects" in t) == ("model" in t):
                raise c.error(p, 'give either "objects" (a list of sizes) or "model" ("httparchive-2012")')
            if "objects" in t:
                ov = t["objects"]
                if not isinstance(ov, list) or not ov:
                    raise c.error(_join(p, "objects"), f"expected a non-empty array of sizes (e.g. [\"34kB\", \"10kB\"]), got {_show(ov)}")
                objects = [c.size()(x, _join(_join(p, "objects"), k)) for k, x in enumerate(ov)]
                if "seed" in t:
                    raise c.error(_join(p, "seed"), '"seed" only applies to a page "model"')
            else:
                model = c.choice(list(PAGE_MODELS))(t["model"], _join(p, "model"))
                pseed = c.get(t, "seed", p, c.integer(), seed * 1_000_003 + i)
                objects = _page_model(model, pseed)
            tcp = dict(d_tcp)
            if "tcp" in t:
                tcp |= self.tcp(t["tcp"], _join(p, "tcp"))
            if "cc" in t:
                if "tcp" in t and "cc" in t["tcp"]:
                    raise c.error(_join(p, "cc"), "given twice: here and as tcp.cc; keep one")
                tcp["cc"] = c.choice(variants()["cc"])(t["cc"], _join(p, "cc"))
            server_tcp = None
            if "server_tcp" in t:
                server_tcp = dict(tcp) | self.tcp(t["server_tcp"], _join(p, "server_tcp"))
            out.append({
                "name": name,
                "client": ends["client"],
                "server": ends["server"],
                "start": c.get(t, "start", p, c.time(), 0),
                "connections": c.get(t, "connections", p, c.integer(1, 64), 6),
                "request_bytes": c.get(t, "request", p, c.size(), 500),
                "objects": objects,
                "tcp": tcp,
                "server_tcp": server_tcp,
            })
        return out

    def _src_dst(self, t: Mapping[str, Any], p: str, topo: _Topology) -> tuple[str, str]:
        """A flow's or a workload's ``src`` and ``dst`` nodes (default ``server`` and
        ``client``): known, distinct, and with routes both ways (data and ACKs)."""
        c = self.c
        src = c.get(t, "src", p, c.string, "server")
        dst = c.get(t, "dst", p, c.string, "client")
        for key, n in (("src", src), ("dst", dst)):
            if n not in topo.nodes:
                raise c.error(_join(p, key), self._unknown_node(n, topo.nodes))
        if src == dst:
            raise c.error(_join(p, "dst"), f'src and dst are the same node "{src}"')
        for a, b in ((src, dst), (dst, src)):
            if not topo.route_exists(a, b):
                raise c.error(p, f"no route from {a} to {b} (a flow needs links both ways: data and ACKs)")
        return src, dst

    def _sender_receiver_tcp(self, t: Mapping[str, Any], p: str, d_tcp: dict[str, Any],
                             d_rtcp: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The TCP tables of a flow's or a workload's sender and receiver: ``[defaults.tcp]``
        under ``tcp`` and the ``cc`` / ``fc`` shorthands; the receiver's (None: the same) is
        the sender's under ``[defaults.receiver_tcp]`` and ``receiver_tcp``."""
        c = self.c
        tcp = dict(d_tcp)
        if "tcp" in t:
            tcp |= self.tcp(t["tcp"], _join(p, "tcp"))
        for short in ("cc", "fc"):
            if short in t:
                if "tcp" in t and short in t["tcp"]:
                    raise c.error(_join(p, short), f"given twice: here and as tcp.{short}; keep one")
                tcp[short] = c.choice(variants()[short])(t[short], _join(p, short))
        self._check_rre_delays(tcp, _join(p, "tcp"))
        rtcp = None
        if d_rtcp is not None or "receiver_tcp" in t:
            rtcp = dict(tcp) | (d_rtcp or {})
            if "receiver_tcp" in t:
                rtcp |= self.tcp(t["receiver_tcp"], _join(p, "receiver_tcp"))
        # Which mechanisms the two ends make impossible (RSFC or a rate-based cc without
        # timestamps, Sprout without a Sprout receiver) is the Rust rule's to say
        # (validate.rs `check_ends`, reached through `check_scenario_json`): one copy.
        return tcp, rtcp

    def workloads(self, raw: Mapping[str, Any], topo: _Topology) -> list[dict[str, Any]]:
        """``[[workloads]]``: open-loop flows that arrive (Poisson, or times from a file),
        send a drawn size (fixed, exponential, Pareto, or an empirical CDF from a file) and
        leave. Files are read here, so the canonical scenario carries their contents."""
        c = self.c
        v = raw.get("workloads", [])
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise c.error("workloads", f"expected an array of tables ([[workloads]]), got {_type_name(v)}")
        defaults = c.table(raw.get("defaults", {}), "defaults", ["tcp", "receiver_tcp", "read"])
        d_tcp = self.tcp(defaults["tcp"], "defaults.tcp") if "tcp" in defaults else {}
        d_rtcp = self.tcp(defaults["receiver_tcp"], "defaults.receiver_tcp") if "receiver_tcp" in defaults else None
        kind = topo.spec["kind"]
        out = []
        for i, wv in enumerate(v):
            p = _join("workloads", i)
            t = c.table(wv, p, WORKLOAD_KEYS, ["arrivals", "sizes"])
            name = c.get(t, "name", p, c.name, f"workload{i}")
            if kind == "dumbbell" and "src" not in t and "dst" not in t:
                pair = c.get(t, "pair", p, c.integer(0, 100_000), 0)
                if pair >= topo.spec["pairs"]:
                    raise c.error(_join(p, "pair"), f"dumbbell pair {pair} but topology.pairs = {topo.spec['pairs']} "
                                  f"(pairs are numbered 0..{topo.spec['pairs'] - 1})")
                src, dst = f"s{pair}", f"r{pair}"
            else:
                if "pair" in t:
                    raise c.error(_join(p, "pair"), '"pair" applies to a dumbbell topology, without src and dst')
                if kind != "point_to_point" and ("src" not in t or "dst" not in t):
                    raise c.error(_join(p, "src" if "src" not in t else "dst"), "missing (required in this topology)")
                src, dst = self._src_dst(t, p, topo)
            tcp, rtcp = self._sender_receiver_tcp(t, p, d_tcp, d_rtcp)
            buckets = DEFAULT_SIZE_BUCKETS
            if "size_buckets" in t:
                bv = t["size_buckets"]
                if not isinstance(bv, list):
                    raise c.error(_join(p, "size_buckets"), f'expected an array of sizes (e.g. ["10kB", "100kB"]), got {_show(bv)}')
                buckets = [c.size()(x, _join(_join(p, "size_buckets"), k)) for k, x in enumerate(bv)]
                if any(b <= a for a, b in zip(buckets, buckets[1:])):
                    raise c.error(_join(p, "size_buckets"), "edges must be strictly increasing")
            out.append({
                "name": name,
                "src": src,
                "dst": dst,
                "arrivals": self._arrivals(t["arrivals"], _join(p, "arrivals")),
                "sizes": self._sizes(t["sizes"], _join(p, "sizes")),
                "start": c.get(t, "start", p, c.time(), 0),
                "stop": c.get(t, "stop", p, c.time(allow_zero=False), None),
                "max_flows": c.get(t, "max_flows", p, c.integer(1), None),
                "size_buckets": buckets,
                "tcp": tcp,
                "receiver_tcp": rtcp,
            })
        return out

    def _file_lines(self, v: Any, path: str) -> tuple[Path, list[tuple[int, list[str]]]]:
        """A text file named relative to the scenario: its (line number, fields) rows,
        blank lines and ``#`` comments left out."""
        c = self.c
        rel = c.string(v, path)
        f = Path(rel)
        if not f.is_absolute():
            f = c.base_dir / f
        try:
            text = f.read_text()
        except OSError as e:
            raise c.error(path, f"cannot read {rel[:80]!r}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise c.error(path, f"{rel[:80]!r} is not a text file") from None
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if line:
                rows.append((n, line.replace(",", " ").split()))
        if not rows:
            raise c.error(path, f"{rel[:80]!r} has no data lines")
        return f, rows

    def _arrivals(self, v: Any, path: str) -> dict[str, Any]:
        c = self.c
        if not isinstance(v, dict) or "kind" not in v:
            raise c.error(path, 'expected a table with a kind: { kind = "poisson", rate = 100 } (flows per second) '
                          'or { kind = "file", path = "arrivals.txt" } (one time in seconds per line)')
        kind = c.choice(list(ARRIVAL_KEYS))(v["kind"], _join(path, "kind"))
        t = c.table(v, path, ARRIVAL_KEYS[kind], ARRIVAL_KEYS[kind])
        if kind == "poisson":
            r = t["rate"]
            if isinstance(r, bool) or not isinstance(r, (int, float)) or not 0 < float(r) < float("inf"):
                raise c.error(_join(path, "rate"), f"expected a positive number of flows per second (e.g. 100), got {_show(r)}")
            return {"kind": "poisson", "per_second": float(r)}
        if kind == "times":
            tv = t["times"]
            if not isinstance(tv, list) or not tv:
                raise c.error(_join(path, "times"), f'expected a non-empty array of times (e.g. ["0.1s", "0.25s"]), got {_show(tv)}')
            times = [c.time()(x, _join(_join(path, "times"), k)) for k, x in enumerate(tv)]
        else:
            f, rows = self._file_lines(t["path"], _join(path, "path"))
            times = []
            for n, fields in rows:
                try:
                    sec = float(fields[0])
                except ValueError:
                    sec = float("nan")
                if len(fields) != 1 or not 0 <= sec < float("inf"):
                    raise c.error(_join(path, "path"), f"{f.name} line {n}: expected one time in seconds (e.g. 0.125), got {' '.join(fields)[:60]!r}")
                times.append(round(sec * 1e9))
        for k in range(1, len(times)):
            if times[k] < times[k - 1]:
                raise c.error(path, f"arrival times must not decrease: time {k + 1} ({times[k] / 1e9:g} s) is before time {k} ({times[k - 1] / 1e9:g} s)")
        return {"kind": "times", "times": times}

    def _sizes(self, v: Any, path: str) -> dict[str, Any]:
        c = self.c
        if not isinstance(v, dict) or "kind" not in v:
            raise c.error(path, 'expected a table with a kind: { kind = "fixed", bytes = "20kB" }, '
                          '{ kind = "exponential", mean = "50kB" }, { kind = "pareto", mean = "50kB", shape = 1.2 } '
                          'or { kind = "cdf", path = "sizes.cdf" }')
        kind = c.choice(list(SIZE_KEYS))(v["kind"], _join(path, "kind"))
        required = {"fixed": ["bytes"], "exponential": ["mean"], "pareto": ["mean", "shape"], "cdf": []}[kind]
        t = c.table(v, path, SIZE_KEYS[kind], required)
        if kind == "fixed":
            return {"kind": "fixed", "bytes": c.size()(t["bytes"], _join(path, "bytes"))}
        if kind in ("exponential", "pareto"):
            out: dict[str, Any] = {"kind": kind, "mean_bytes": float(c.size()(t["mean"], _join(path, "mean")))}
            if kind == "pareto":
                a = t["shape"]
                if isinstance(a, bool) or not isinstance(a, (int, float)) or not 1 < float(a) < float("inf"):
                    raise c.error(_join(path, "shape"), f"expected a number greater than 1 (a Pareto law of shape <= 1 has no mean), got {_show(a)}")
                out["shape"] = float(a)
            return out
        if ("path" in t) == ("points" in t):
            raise c.error(path, 'give either "path" (a file of "bytes probability" lines) or "points" (an array of [size, probability])')
        pts: list[list[Any]] = []
        if "points" in t:
            pv = t["points"]
            if not isinstance(pv, list) or not pv:
                raise c.error(_join(path, "points"), f'expected a non-empty array of [size, probability] pairs, got {_show(pv)}')
            for k, e in enumerate(pv):
                ep = _join(_join(path, "points"), k)
                if not isinstance(e, list) or len(e) != 2:
                    raise c.error(ep, f'expected a [size, probability] pair (e.g. ["10kB", 0.5]), got {_show(e)}')
                pts.append([c.size()(e[0], ep), c.probability(e[1], ep)])
        else:
            f, rows = self._file_lines(t["path"], _join(path, "path"))
            for n, fields in rows:
                try:
                    size, prob = float(fields[0]), float(fields[1]) if len(fields) == 2 else float("nan")
                except ValueError:
                    size = prob = float("nan")
                if len(fields) != 2 or not (1 <= size < 2**63 and 0 <= prob <= 1):
                    raise c.error(_join(path, "path"), f"{f.name} line {n}: expected a size in bytes (at least 1) and a cumulative "
                                  f"probability in [0, 1], got {' '.join(fields)[:60]!r}")
                pts.append([round(size), prob])
        for k in range(1, len(pts)):
            if pts[k][0] < pts[k - 1][0] or pts[k][1] < pts[k - 1][1]:
                raise c.error(path, f"CDF point {k + 1} ({pts[k][0]} bytes, {pts[k][1]}) is below point {k} "
                              f"({pts[k - 1][0]} bytes, {pts[k - 1][1]}); sizes and probabilities must not decrease")
        if pts[-1][1] != 1.0:
            raise c.error(path, f"the CDF's last probability is {pts[-1][1]}; it must end at 1")
        return {"kind": "empirical", "points": pts}

    def elements(self, v: Any, topo: _Topology) -> list[dict[str, Any]]:
        """``[[elements]]``: elements on nodes (routers, base stations), each a table with
        ``node``, ``kind`` and the kind's keys; the Rust side checks what needs the whole
        scenario (BSF's thresholds, eq. 5)."""
        c = self.c
        if not isinstance(v, list):
            raise c.error("elements", f"expected an array of tables ([[elements]]), got {_type_name(v)}")
        out = []
        names = [x[0] for x in topo.links]
        for i, e in enumerate(v):
            ep = _join("elements", i)
            if not isinstance(e, dict):
                raise c.error(ep, f"expected a table, got {_type_name(e)}")
            if "kind" not in e:
                raise c.error(_join(ep, "kind"), f'missing; one of {", ".join(map(json.dumps, ELEMENT_KEYS))}')
            kind = c.choice(list(ELEMENT_KEYS))(e["kind"], _join(ep, "kind"))
            t = c.table(e, ep, ["node", "kind"] + ELEMENT_KEYS[kind], ["node", "kind", "link"])
            node = c.name(t["node"], _join(ep, "node"))
            if node not in topo.nodes:
                raise c.error(_join(ep, "node"), self._unknown_node(node, topo.nodes))
            spec: dict[str, Any] = {"kind": kind}
            if kind == "bsf":
                spec["link"] = self._link_name(t["link"], _join(ep, "link"), names)
                if "weight" in t:
                    w = c.fraction(t["weight"], _join(ep, "weight"))
                    if w == 0.0:
                        raise c.error(_join(ep, "weight"), "must be greater than 0")
                    spec["weight"] = w
                for key in ("total_buffer", "udp_buffer"):
                    if key in t:
                        spec[key] = self._packets(t[key], _join(ep, key), allow_zero=key == "udp_buffer")
                if "sessions" in t:
                    spec["sessions"] = c.integer(1, 2**32 - 1)(t["sessions"], _join(ep, "sessions"))
                for key in ("bsf_thresh", "flush_thresh"):
                    if key in t:
                        x = t[key]
                        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
                            raise c.error(_join(ep, key), f"expected a number of packets (e.g. 9), got {_show(x)}")
                        spec[key] = float(x)
                if "ecn_history" in t:
                    spec["ecn_history"] = c.integer(0, 32)(t["ecn_history"], _join(ep, "ecn_history"))
                if "zwa_copies" in t:
                    spec["zwa_copies"] = c.integer(1, 16)(t["zwa_copies"], _join(ep, "zwa_copies"))
                if "record_ttl" in t:
                    spec["record_ttl"] = c.time(allow_zero=False)(t["record_ttl"], _join(ep, "record_ttl"))
            if kind == "darca":
                spec.update(self._darca(t, ep, names))
            out.append({"node": node, "element": spec})
        return out

    def _darca(self, t: Mapping[str, Any], ep: str, links: list[str]) -> dict[str, Any]:
        """DARCA's keys (docs/darca.md); the Rust side checks flows, routes and ranges."""
        c = self.c
        spec: dict[str, Any] = {"link": self._link_name(t["link"], _join(ep, "link"), links)}
        if "start" in t:
            spec["start"] = c.time()(t["start"], _join(ep, "start"))
        for key in ("max_stable", "min_convergence", "max_convergence"):
            if key in t:
                spec[key] = c.time(allow_zero=False)(t[key], _join(ep, key))
        if spec.get("max_convergence", 10**30) < spec.get("min_convergence", 500_000_000):
            raise c.error(_join(ep, "max_convergence"), f"must be at least min_convergence (default 500ms), got {_show(t['max_convergence'])}")
        if spec.get("min_convergence", 10_000_000) < 10_000_000:
            raise c.error(_join(ep, "min_convergence"), f"must be at least 10ms (a round must be long enough to measure a rate), got {_show(t['min_convergence'])}")
        if "rtt" in t:
            spec["rtt"] = c.time(allow_zero=False)(t["rtt"], _join(ep, "rtt"))
        for key in ("factor", "tolerance"):
            if key in t:
                x = c.fraction(t[key], _join(ep, key))
                if not 0.0 < x < 1.0:
                    raise c.error(_join(ep, key), f"must be between 0 and 1 (exclusive), got {_show(t[key])}")
                spec[key] = x
        if "rwnd" in t:
            spec["rwnd"] = c.size()(t["rwnd"], _join(ep, "rwnd"))
        if "class_rtt" in t:
            spec["class_rtt"] = c.choice(["harmonic", "midpoint"])(t["class_rtt"], _join(ep, "class_rtt"))
        if "correction" in t:
            spec["correction"] = c.choice(["none", "measured"])(t["correction"], _join(ep, "correction"))
        if ("targets" in t) == ("classes" in t):
            raise c.error(_join(ep, "targets"), "give either targets (per connection) or classes (per class), one of the two")
        if "targets" in t:
            spec["targets"] = [
                {"flow": c.name(xt["flow"], _join(tp, "flow")), "bps": c.rate()(xt["rate"], _join(tp, "rate"))}
                for tp, xt in self._table_array(t["targets"], _join(ep, "targets"), ["flow", "rate"],
                                                '[{ flow = "tcp1", rate = "250kbit/s" }]')
            ]
        else:
            out = []
            for tp, xt in self._table_array(t["classes"], _join(ep, "classes"), ["rtt_min", "rtt_max", "rate"],
                                            '[{ rtt_min = "0ms", rtt_max = "60ms", rate = "3Mbit/s" }]'):
                lo = c.time()(xt["rtt_min"], _join(tp, "rtt_min"))
                hi = c.time(allow_zero=False)(xt["rtt_max"], _join(tp, "rtt_max"))
                if hi <= lo:
                    raise c.error(_join(tp, "rtt_max"), f"must be above rtt_min ({_show(xt['rtt_min'])}), got {_show(xt['rtt_max'])}")
                out.append({"rtt_min": lo, "rtt_max": hi, "bps": c.rate()(xt["rate"], _join(tp, "rate"))})
            spec["classes"] = out
        return spec

    def _table_array(self, v: Any, path: str, keys: list[str], example: str) -> list[tuple[str, dict[str, Any]]]:
        """A non-empty array of tables with exactly ``keys``, as (path, table) pairs."""
        c = self.c
        if not isinstance(v, list) or not v:
            raise c.error(path, f"expected a non-empty array like {example}, got {_show(v)}")
        return [(_join(path, i), c.table(x, _join(path, i), keys, keys)) for i, x in enumerate(v)]

    def _link_name(self, v: Any, path: str, links: list[str]) -> str:
        link = self.c.name(v, path)
        if link not in links:
            close = difflib.get_close_matches(link, links, n=1, cutoff=0.5)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            raise self.c.error(path, f'unknown link "{link}"{hint}')
        return link

    def _packets(self, v: Any, path: str, *, allow_zero: bool) -> int:
        """A count of packets written like a queue limit in packets: ``"20pkts"``."""
        c = self.c
        if allow_zero and v in ("0pkts", "0 pkts", "0packets"):
            return 0
        try:
            kind, n = units.parse_queue_limit(v)
        except units.UnitError as e:
            raise c.error(path, str(e).replace("a queue limit", "a number of packets").replace('"100pkts"', '"20pkts"')) from None
        if kind != "packets":
            raise c.error(path, f'expected packets like "20pkts", got {_show(v)}')
        return n

    def record(self, v: Any, topo: _Topology) -> dict[str, Any]:
        c = self.c
        t = c.table(v, "record", ["interval", "timeseries", "exact_percentiles", "pcap", "workload_flows"])
        out: dict[str, Any] = {}
        if "interval" in t:
            out["interval"] = c.time(allow_zero=False)(t["interval"], "record.interval")
        for key in ("timeseries", "exact_percentiles", "workload_flows"):
            if key in t:
                out[key] = c.boolean(t[key], _join("record", key))
        if "pcap" in t:
            pp = "record.pcap"
            if not isinstance(t["pcap"], list):
                raise c.error(pp, f'expected an array of link names, e.g. ["downlink"], got {_type_name(t["pcap"])}')
            pcaps = []
            names = [x[0] for x in topo.links]
            for i, e in enumerate(t["pcap"]):
                ep = _join(pp, i)
                if isinstance(e, str):
                    e = {"link": e}
                et = c.table(e, ep, ["link", "path", "snaplen"], ["link"])
                link = c.string(et["link"], _join(ep, "link"))
                if link not in names:
                    close = difflib.get_close_matches(link, names, n=1, cutoff=0.5)
                    hint = f' (did you mean "{close[0]}"?)' if close else ""
                    shown = names if len(names) <= 12 else names[:12] + ["..."]
                    raise c.error(ep if isinstance(t["pcap"][i], str) else _join(ep, "link"), f'unknown link "{link}"{hint}; links: {", ".join(shown)}')
                path = c.get(et, "path", ep, c.string, _pcap_file_name(link))
                # Relative to the run's output folder, and inside it: a run writes nowhere else.
                norm = os.path.normpath(path)
                if not path or os.path.isabs(path) or norm == ".." or norm.startswith("../") or norm == "." or "\0" in path:
                    raise c.error(_join(ep, "path"), f'"{path}": must be a file path inside the run\'s output folder '
                                  '(relative, without ".." leading out of it), e.g. "pcaps/downlink.pcap"')
                path = norm
                if len(path.encode()) > 1024 or any(len(part.encode()) > 255 for part in path.split("/")):
                    raise c.error(_join(ep, "path"), "too long: at most 255 bytes a folder or file name and 1024 in all")
                snap = c.get(et, "snaplen", ep, c.integer(0, 2**32 - 1), 0)
                pcaps.append({"link": link, "path": path, "snaplen": snap})
            out["pcap"] = pcaps
        return out


# --------------------------------------------------------------------------------------
# Overrides (--set key.path=value).


def parse_override(text: str) -> tuple[str, Any]:
    """``"topology.downlink.rate=5Mbit/s"`` -> ``("topology.downlink.rate", "5Mbit/s")``.

    The value is read as a TOML value when it is one (``3``, ``true``, ``["1Mbit/s"]``,
    ``"quoted"``) and as a plain string otherwise (``5Mbit/s``, ``cubic``).
    """
    if "=" not in text:
        raise ScenarioError(f'expected KEY.PATH=VALUE, e.g. topology.downlink.rate=5Mbit/s, got "{text}"', source="--set")
    key, _, raw = text.partition("=")
    key = key.strip()
    if not key:
        raise ScenarioError(f'missing key before "=" in "{text}"', source="--set")
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    except RecursionError:
        raise ScenarioError(f"the value of {key} is nested more than {MAX_NESTING} levels deep", source="--set") from None
    check_plain(value, "--set", key)
    return key, value


#: Limits on what tcplab reads (docs/reliability.md): checked before any work.
MAX_TOML_BYTES = 16 * 2**20
MAX_NAME_BYTES = 256
MAX_NESTING = 32


def check_plain(value: Any, source: str, path: str = "") -> None:
    """Scenario and sweep documents hold strings, numbers, booleans, arrays and tables, at
    most :data:`MAX_NESTING` deep. TOML's dates and times (and, from Python, any other
    object) are refused here, with the key, rather than failing later in a hash or in JSON."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        v, at, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ScenarioError(f"nested more than {MAX_NESTING} levels deep", source=source, path=at or None)
        if isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise ScenarioError(f"table keys must be strings, got {k!r}", source=source, path=at or None)
                stack.append((x, _join(at, k), depth + 1))
        elif isinstance(v, list):
            stack.extend((x, _join(at, i), depth + 1) for i, x in enumerate(v))
        elif isinstance(v, (datetime.date, datetime.time)):
            raise ScenarioError(f"TOML dates and times are not used by any key; write durations with units, e.g. \"20s\" (got {v.isoformat()})",
                                source=source, path=at or None)
        elif not isinstance(v, (str, int, float, bool)):
            raise ScenarioError(f"expected a string, number, boolean, array or table, got {type(v).__name__}", source=source, path=at or None)


def _apply_override(doc: dict[str, Any], key: str, value: Any, source: str) -> str:
    """Set ``key`` (dotted; integers index arrays) in ``doc``; returns the key path in error-message form."""
    parts = key.split(".")
    node: Any = doc
    shown = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, list):
            if not part.isdigit():
                raise ScenarioError(f'"{part}" is not an index into the array {shown} (use e.g. {shown}.0)', source=source, path=shown, note=f"--set {key}")
            idx = int(part)
            if idx >= len(node):
                raise ScenarioError(f"index {idx} is out of range: {shown} has {len(node)} entr{'y' if len(node) == 1 else 'ies'}", source=source, path=shown, note=f"--set {key}")
            shown = _join(shown, idx)
            if last:
                node[idx] = value
            else:
                node = node[idx]
        elif isinstance(node, dict):
            shown = _join(shown, part)
            if last:
                node[part] = value
            else:
                if part not in node:
                    node[part] = [] if part == "flows" else {}
                node = node[part]
        else:
            raise ScenarioError(f"cannot set {key}: {shown} is {_type_name(node)}, not a table or array", source=source, path=shown, note=f"--set {key}")
    return shown


# --------------------------------------------------------------------------------------
# The public object.


class Scenario:
    """A validated scenario: the canonical dict the simulator runs, plus where it came from.

    Build one with :func:`load`. ``canonical`` follows ``tcplab_sim::config::Scenario``
    (integer ns, bit/s, bytes); treat it as read-only and use :meth:`with_overrides`.
    """

    def __init__(self, doc: dict[str, Any], *, source: str, base_dir: Path, source_bytes: bytes, overrides: list[tuple[str, Any]] | None = None):
        self._doc = doc
        self.source = source
        self.base_dir = base_dir
        self._source_bytes = source_bytes
        self.overrides: list[tuple[str, Any]] = list(overrides or [])
        raw = copy.deepcopy(doc)
        overridden: dict[str, str] = {}
        for k, v in self.overrides:
            shown = _apply_override(raw, k, v, source)
            overridden[shown] = f"{k}={json.dumps(v) if not isinstance(v, str) else v}"
        self.canonical: dict[str, Any] = _build(raw, _Ctx(source, base_dir, overridden), Path(source).stem if source and source != "<dict>" else "scenario")
        self.links: list[str] = self.canonical.pop("_links")
        self.nodes: list[str] = self.canonical.pop("_nodes")

    # -- properties --------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.canonical["name"])

    @property
    def seed(self) -> int:
        return int(self.canonical["seed"])

    @property
    def duration_s(self) -> float:
        return self.canonical["duration"] / 1e9

    @property
    def sha256(self) -> str:
        """sha256 of the scenario file's bytes followed by the canonical overrides."""
        return scenario_sha256(self._source_bytes, self.overrides)

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the canonical scenario."""
        return copy.deepcopy(self.canonical)

    def to_canonical_json(self, indent: int | None = None) -> str:
        """The canonical JSON handed to the simulator (sorted keys)."""
        return json.dumps(self.canonical, sort_keys=True, indent=indent, separators=None if indent else (",", ":"))

    def with_overrides(self, overrides: Mapping[str, Any] | Iterable[str] | None = None, **kw: Any) -> "Scenario":
        """A new scenario with dotted-path overrides applied to the TOML document and revalidated.

        ``overrides`` is ``{"topology.downlink.rate": "5Mbit/s", "flows.0.cc": "cubic"}`` or
        ``["topology.downlink.rate=5Mbit/s", ...]`` (the ``--set`` syntax). Keyword arguments
        set top-level keys (``seed=3``).
        """
        items: list[tuple[str, Any]] = []
        if isinstance(overrides, Mapping):
            items += list(overrides.items())
        elif overrides is not None:
            items += [parse_override(s) for s in overrides]
        items += list(kw.items())
        for k, v in items:
            check_plain(v, self.source, k)
        return Scenario(self._doc, source=self.source, base_dir=self.base_dir, source_bytes=self._source_bytes, overrides=self.overrides + items)

    def add_pcap(self, links: Iterable[str]) -> "Scenario":
        """A new scenario that also writes a pcap of each named link (``--pcap``)."""
        existing = self._current_raw().get("record", {}).get("pcap", [])
        if not isinstance(existing, list):
            existing = []
        return self.with_overrides({"record.pcap": list(existing) + list(links)})

    def _current_raw(self) -> dict[str, Any]:
        raw = copy.deepcopy(self._doc)
        for k, v in self.overrides:
            _apply_override(raw, k, v, self.source)
        return raw

    def __repr__(self) -> str:
        return f"<tcplab.Scenario {self.name!r} from {self.source!r}: {len(self.canonical['flows'])} flows, {self.duration_s:g} s>"


def scenario_sha256(source_bytes: bytes, overrides: list[tuple[str, Any]]) -> str:
    """The scenario hash of summary.json: sha256 of the file's bytes followed by the
    overrides (not the seed), computable without validating the scenario (sweeps do)."""
    h = hashlib.sha256(source_bytes)
    if overrides:
        h.update(b"\0overrides:")
        h.update(json.dumps([list(kv) for kv in overrides], sort_keys=True, separators=(",", ":")).encode())
    return h.hexdigest()


_RANGE = re.compile(r"expected u(8|16|32|64)")


def _page_model(model: str, seed: int) -> list[int]:
    """A page of ``PAGE_MODELS[model]``: the HTML, then object sizes drawn (exponential) with
    Python's Mersenne Twister seeded with ``seed``, the same on every machine."""
    import random

    m = PAGE_MODELS[model]
    r = random.Random(seed)
    sizes = [int(m["html"])]
    for _ in range(int(m["objects"])):
        sizes.append(max(int(m["min"]), round(-m["mean"] * math.log(1.0 - r.random()))))
    return sizes


def _build(raw: dict[str, Any], ctx: _Ctx, default_name: str) -> dict[str, Any]:
    c = ctx
    p = _Parser(ctx)
    top = c.table(raw, "", TOP_KEYS, ["duration", "topology"])
    name = c.get(top, "name", "", c.name, default_name)
    if "description" in top:
        c.string(top["description"], "description")
    duration = c.time(allow_zero=False)(top["duration"], "duration")
    topo = p.topology(top["topology"], "topology")
    flows = p.flows(top, topo, duration)
    record = p.record(top.get("record", {}), topo)
    elements = p.elements(top.get("elements", []), topo)
    seed = c.get(top, "seed", "", c.integer(), 0)
    pages = p.pages(top, topo, seed)
    workloads = p.workloads(top, topo)
    partial = {
        "name": name,
        "seed": c.get(top, "seed", "", c.integer(), 0),
        "duration": duration,
        "event_budget": c.get(top, "event_budget", "", c.integer(1), None),
        "record": record,
        "topology": topo.spec,
        "flows": flows,
        "stop_when_done": c.get(top, "stop_when_done", "", c.boolean, False),
        "elements": elements,
    }
    if pages:
        partial["pages"] = pages
    if workloads:
        partial["workloads"] = workloads
    ext = _ext()
    # The Rust side holds every rule a scenario must satisfy (tcplab_sim::validate), the
    # same that `run` applies: validating and running accept exactly the same scenarios.
    try:
        full = json.loads(ext.check_scenario_json(json.dumps(partial)))
    except ext.SimulationError as e:
        kind, message = (list(e.args) + ["", ""])[:2]
        if kind == "scenario_json":  # a value the Rust field cannot hold (e.g. beyond u32)
            path, _, why = str(message).partition(": ")
            why = _RANGE.sub(lambda m: f"expected an integer of at most {2 ** int(m.group(1)) - 1}", why)
            why = re.sub(r" at line \d+ column \d+$", "", why)
            raise ScenarioError(f"out of range: {why}", source=c.source, path=path or None) from None
        raise ScenarioError(str(message), source=c.source) from None
    full["_links"] = [x[0] for x in topo.links]
    full["_nodes"] = topo.nodes
    return full


def load(source: str | os.PathLike[str] | Mapping[str, Any], overrides: Mapping[str, Any] | Iterable[str] | None = None) -> Scenario:
    """Load and validate a scenario from a TOML file, a shipped example (``"example:NAME"``,
    see ``tcplab examples``) or a dict of the same shape.

    Raises :class:`tcplab.ScenarioError` (one line naming file and key) on bad input. Paths
    (traces) are relative to the file; for a dict, to the current directory.
    """
    items: list[tuple[str, Any]] = []
    if isinstance(overrides, Mapping):
        items = list(overrides.items())
        for k, v in items:
            check_plain(v, "overrides", k)
    elif overrides is not None:
        items = [parse_override(s) for s in overrides]
    if isinstance(source, Mapping):
        check_plain(dict(source), "<dict>")
        doc = copy.deepcopy(dict(source))
        data = json.dumps(doc, sort_keys=True, default=str).encode()
        return Scenario(doc, source="<dict>", base_dir=Path.cwd(), source_bytes=data, overrides=items)
    if isinstance(source, str) and source.startswith("example:"):
        from .data import resolve

        source = resolve(source)
    path = Path(source)
    doc, data = read_toml(path, "scenario")
    return Scenario(doc, source=str(source), base_dir=path.resolve().parent, source_bytes=data, overrides=items)


def read_toml(path: Path, what: str) -> tuple[dict[str, Any], bytes]:
    """A TOML file's document and bytes; ``ScenarioError`` naming the file if it cannot be
    read or parsed (``what`` is "scenario", "sweep", ... for the messages)."""
    shown = str(path)
    try:
        # A regular file only: opening a FIFO without a writer blocks forever, and a device
        # can be endless (the read below is bounded as well).
        if path.exists() and not path.is_dir() and not stat.S_ISREG(path.stat().st_mode):
            raise ScenarioError(f"not a regular file (a {what} file must be a TOML file)", source=shown)
        with open(path, "rb") as fh:
            # Bounded: a path that is an endless stream (/dev/zero, a FIFO) must not be read
            # until memory runs out.
            data = fh.read(MAX_TOML_BYTES + 1)
    except FileNotFoundError:
        raise ScenarioError(f"{what} file not found", source=shown) from None
    except IsADirectoryError:
        raise ScenarioError(f"is a directory, not a {what} file", source=shown) from None
    except OSError as e:
        raise ScenarioError(f"cannot read: {e.strerror}", source=shown) from None
    if len(data) > MAX_TOML_BYTES:
        raise ScenarioError(f"larger than {MAX_TOML_BYTES // 2**20} MiB, the limit for a {what} file", source=shown)
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ScenarioError("not a UTF-8 text file", source=shown) from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"invalid TOML: {e}", source=shown) from None
    except RecursionError:
        raise ScenarioError(f"invalid TOML: nested more than {MAX_NESTING} levels deep", source=shown) from None
    check_plain(doc, shown)
    return doc, data
