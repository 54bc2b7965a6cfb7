#!/usr/bin/env python3
"""tcplab's own fuzzer (issue 20). See fuzz/README.md.

    .venv/bin/python fuzz/fuzz.py --mode valid|malformed|both --seconds N --seed S [--cases N] [--out DIR]

valid      random VALID scenario documents over every documented key; each must load, run
           twice with identical results, keep every invariant and write its outputs.
malformed  valid documents damaged (wrong types, bad units, unknown keys, TOML damage, bad
           trace files, bad --set strings, bad command lines) and handed to the `tcplab`
           command (`validate` and `run`): exit 2 with exactly one `error: ` line on stderr and
           nothing written, or exit 0 (the damage left it valid) and a clean run.

Case `i` of a mode is generated from its own random.Random seeded with (seed, mode, i): the
cases do not depend on wall time, on --jobs or on which cases ran before; --seconds only
decides how many run. Every case runs in a forked child with a watchdog (a hang is killed and
recorded, not waited on) and an address-space limit. Failures are written to
DIR/failures/<class>-<n>.toml with the command line that reproduces them (<class>-<n>.cmd).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import random
import re
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # forked children: no BLAS thread pools
os.environ.setdefault("MPLBACKEND", "Agg")

REPO = Path(__file__).resolve().parent.parent
MODES = ("valid", "malformed")

# Failure classes. Everything else a case reports is a note, not a failure.
VALID_CLASSES = {
    "refused-valid": "tcplab.load refused a scenario generated from docs/scenarios.md (docs and validation disagree, or a generator bug)",
    "rejected-at-run": "load accepted it but the simulator refused it at run time (validate says ok, run exits 2)",
    "sim-error": "a valid scenario's run failed (event budget, I/O: exit 1)",
    "invariant": "the run broke an invariant (result.ok is False: exit 3)",
    "nondeterminism": "two runs of the same scenario and seed differ (summary without wall_s, time series, OWD CDF or pcap bytes)",
    "bad-output": "summary.json holds NaN/Infinity or writing the outputs failed",
}
COMMON_CLASSES = {
    "panic": "a Rust panic surfaced (PanicException, 'panicked at')",
    "traceback": "an unexpected Python exception (a traceback)",
    "crash": "the process died on a signal (abort, segfault, allocation failure)",
    "hang": "a case ran past its watchdog and was killed",
    "fuzzer-error": "the fuzzer itself failed on this case (a bug in fuzz.py)",
}
MALFORMED_CLASSES = {
    "contract": "exit 2 but not exactly one 'error: ' line on stderr / something on stdout, or an exit code outside the contract",
    "wrote-output": "a refused run left something in --out",
    "validate-run-mismatch": "validate and run disagree about the same file (one accepts, the other refuses)",
    "invariant": "the damage left the scenario valid and its run broke an invariant (exit 3)",
    "exec-divergence": "the forked CLI failed but a real subprocess passed (a fuzzer artefact; investigate)",
}
ALL_CLASSES = {**VALID_CLASSES, **MALFORMED_CLASSES, **COMMON_CLASSES}


# ======================================================================================
# Quantities with units, as people write them.

RATE_UNITS = [("bit/s", 1), ("kbit/s", 10**3), ("Kbit/s", 10**3), ("Mbit/s", 10**6), ("Gbit/s", 10**9),
              ("bps", 1), ("kbps", 10**3), ("Kbps", 10**3), ("Mbps", 10**6), ("Gbps", 10**9)]
TIME_UNITS = [("ns", 1), ("us", 10**3), ("µs", 10**3), ("ms", 10**6), ("s", 10**9)]
SIZE_UNITS = [("B", 1), ("kB", 10**3), ("KB", 10**3), ("MB", 10**6), ("GB", 10**9),
              ("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30)]
MS = 10**6
S = 10**9
U64 = 2**64 - 1


def quantity(rng: random.Random, value: int, units: list[tuple[str, int]]) -> str:
    """``value`` (base units) written with a random unit that represents it exactly."""
    cands = []
    for unit, k in units:
        d = Decimal(value) / Decimal(k)
        text = format(d.normalize(), "f")
        if len(text.replace(".", "")) <= 22:
            cands.append((unit, text))
    unit, text = rng.choice(cands)
    if "." in text and text.startswith("0.") and rng.random() < 0.2:
        text = text[1:]  # ".5s"
    elif "." not in text and rng.random() < 0.05:
        text += ".0"
    return f"{text}{' ' if rng.random() < 0.1 else ''}{unit}"


#: The rate-based controllers (crates/tcplab-core/src/cc/mod.rs `CcKind::is_rate_based`):
#: they read the receiver's TSval (thesis 4.3.4), so both ends need timestamps.
RATE_BASED = {"rre", "proprate-high", "proprate-low", "rre-table6.1", "proprate", "sprout-rate",
              "proprate-target", "proteus-rate"}


def _possible_ends(snd: dict[str, Any], rcv: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The keys to add to a connection's sender and receiver tables (``rcv`` None: the
    receiver uses the sender's table) so that the simulator's rule on the two ends
    (crates/tcplab-sim/src/validate.rs `check_ends`, issue 35) accepts them: a rate-based
    sender or an RSFC receiver with timestamps on at both ends, a Sprout sender with a
    Sprout receiver. ``snd``/``rcv`` are the effective tables (defaults and shorthands in)."""
    r = snd if rcv is None else rcv
    fix_s: dict[str, Any] = {}
    fix_r: dict[str, Any] = {}
    if snd.get("cc") in RATE_BASED or r.get("fc") == "rsfc":
        if _timestamps_off(snd):
            fix_s["timestamps"] = True
        if rcv is not None and _timestamps_off(rcv):
            fix_r["timestamps"] = True
    if rcv is not None and snd.get("cc") == "sprout" and rcv.get("cc", "newreno") != "sprout":
        fix_r["cc"] = "sprout"
    return fix_s, fix_r


def _no_freeze_with_afc(table: dict[str, Any], effective: dict[str, Any]) -> None:
    """`zero_window_freeze` is refused beside `fc = "afc"` (AFC's sender has its own
    zero-window rule; validate.rs `check_tcp`): a valid case drops the freeze."""
    if effective.get("fc") == "afc" and effective.get("zero_window_freeze"):
        table["zero_window_freeze"] = False


def _timestamps_off(tcp: dict[str, Any]) -> bool:
    """A TCP table without timestamps: given as false, or left to a stack profile that
    turns them off (docs/profiles.md; `tcplab.scenario.effective_tcp`)."""
    from tcplab.scenario import effective_tcp

    return effective_tcp(tcp, "timestamps") is False


def log_uniform(rng: random.Random, lo: float, hi: float) -> int:
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


# ======================================================================================
# A small TOML writer (the standard library only reads TOML).


class Raw:
    """Text written into the TOML document verbatim (dates, damaged values)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raw) and other.text == self.text

    def __deepcopy__(self, memo: Any) -> "Raw":
        return self


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(k: str) -> str:
    return k if _BARE.match(k) else toml_str(k)


def toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(v: Any) -> str:
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return toml_str(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_key(str(k))} = {toml_value(x)}" for k, x in v.items()) + " }" if v else "{}"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _is_aot(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def toml_dumps(doc: dict[str, Any], inline_depth: int = 2) -> str:
    """Tables up to ``inline_depth`` levels as [sections] / [[arrays]], deeper ones inline."""
    out: list[str] = []

    def table(t: dict[str, Any], prefix: list[str]) -> None:
        deep = len(prefix) >= inline_depth
        for k, v in t.items():
            if deep or not (isinstance(v, dict) or _is_aot(v)):
                out.append(f"{toml_key(str(k))} = {toml_value(v)}")
        if deep:
            return
        for k, v in t.items():
            if isinstance(v, dict):
                out.append("")
                out.append("[" + ".".join(toml_key(str(p)) for p in prefix + [k]) + "]")
                table(v, prefix + [k])
        for k, v in t.items():
            if _is_aot(v):
                for item in v:
                    out.append("")
                    out.append("[[" + ".".join(toml_key(str(p)) for p in prefix + [k]) + "]]")
                    table(item, prefix + [k])

    table(doc, [])
    return "\n".join(out).lstrip("\n") + "\n"


# ======================================================================================
# Mahimahi traces.


def trace_text(ms: list[int], rng: random.Random) -> bytes:
    """Valid trace text in any accepted layout (CRLF, spaces, leading zeros, blank tail)."""
    crlf = rng.random() < 0.15
    lines = []
    for m in ms:
        s = str(m)
        r = rng.random()
        if r < 0.03:
            s = "00" + s
        elif r < 0.06:
            s = f"  {s}\t"
        lines.append(s)
    text = ("\r\n" if crlf else "\n").join(lines)
    r = rng.random()
    if r < 0.8:
        text += "\n"
    elif r < 0.9:
        text += "\n\n  \n"
    return text.encode()


def gen_trace_ms(rng: random.Random, extreme: bool) -> list[int]:
    """Millisecond timestamps of a valid trace: regular, bursty, gappy, from zero, one line..."""
    kind = rng.choice(["regular", "bursty", "gappy", "zero", "single", "ramp"] + (["century", "max", "sparse"] if extreme else []))
    if kind == "regular":
        step = rng.choice([1, 1, 2, 3, 5, 10])
        n = rng.randint(1, 400)
        return [step * (i + 1) for i in range(n)]
    if kind == "bursty":
        out, t = [], rng.randint(0, 5)
        for _ in range(rng.randint(1, 200)):
            t += rng.choice([0, 1, 1, 2, 5, 20])
            out += [t] * rng.randint(1, 6)
        return out + [t + rng.randint(1, 10)]
    if kind == "gappy":  # empty 1-second windows
        out, t = [], 0
        for _ in range(rng.randint(1, 30)):
            t += rng.choice([1, 3, 900, 1500, 2500])
            out.append(t)
        return out
    if kind == "zero":
        n = rng.randint(1, 50)
        return [0] * rng.randint(1, 3) + sorted(rng.randint(1, 100) for _ in range(n))
    if kind == "single":
        return [rng.choice([1, 2, 7, 100, 1000, 5000])]
    if kind == "ramp":
        out, t = [], 0
        for i in range(rng.randint(2, 60)):
            t += max(1, 30 - i)
            out.append(t)
        return out
    if kind == "century":  # one opportunity, then nothing for a century
        return [1, 100 * 365 * 86400 * 1000]
    if kind == "max":  # the largest timestamp whose ns value fits in a u64
        return [0, 5, U64 // MS]
    return [rng.randint(1, 10), 86_400_000]  # "sparse": one per day


def trace_peak_bps(ms: list[int], opp: int) -> float:
    """An upper bound of the trace's rate: the busiest millisecond, every millisecond."""
    c = Counter(ms)
    return max(c.values()) * opp * 8 * 1000.0


# ======================================================================================
# The generator of valid scenarios.


@dataclass
class Case:
    mode: str
    index: int
    doc: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)  # path relative to DIR -> bytes
    used: set[str] = field(default_factory=set)  # keys and values covered (coverage report)
    run_seed: int | None = None
    use_dict: bool = False
    write_outputs: str | None = None  # None, "plain" or "plots"
    # malformed mode
    mutations: list[str] = field(default_factory=list)
    text_ops: list[tuple[Any, ...]] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)
    validate_args: list[str] | None = None  # replaces the default argv (placeholders below)
    run_args: list[str] | None = None
    special: list[tuple[str, str]] = field(default_factory=list)  # (kind, path): fifo, dir, file...
    trace_checks: list[str] = field(default_factory=list)  # bad trace files also given to `tcplab trace-info`

    @property
    def cid(self) -> str:
        return f"{self.mode}-{self.index}"


def case_rng(seed: int, mode: str, index: int) -> random.Random:
    return random.Random(f"tcplab-fuzz:{seed}:{mode}:{index}")


class Gen:
    """Random valid scenario documents (the TOML form of docs/scenarios.md)."""

    def __init__(self, rng: random.Random, ctx: "Ctx", extreme: float = 0.03):
        self.r = rng
        self.ctx = ctx
        self.extreme_p = extreme
        self.used: set[str] = set()
        self.files: dict[str, bytes] = {}
        self.cc = ctx.variants["cc"]
        self.fc = ctx.variants["fc"]
        self.window_update = ctx.variants["window_update"]
        self.disciplines = ctx.variants["discipline"]
        self.min_mss = 1448  # the smallest segment generated (the run-time budget counts packets)

    # -- helpers ---------------------------------------------------------------------
    def p(self, x: float) -> bool:
        return self.r.random() < x

    def ext(self) -> bool:
        return self.r.random() < self.extreme_p

    def use(self, *keys: str) -> None:
        self.used.update(keys)

    def rate(self, bps: int) -> str:
        return quantity(self.r, bps, RATE_UNITS)

    def time(self, ns: int) -> str:
        return quantity(self.r, ns, TIME_UNITS)

    def size(self, b: int) -> str:
        return quantity(self.r, b, SIZE_UNITS)

    def link_rate_bps(self) -> int:
        if self.ext():
            self.use("extreme.rate")
            return self.r.choice([1, 8, 1000, 10**10, 4 * 10**10, 10**11, U64])
        return log_uniform(self.r, 50_000, 1e9) if self.p(0.8) else self.r.choice([10**6, 10**7, 10**8, 15 * 10**6])

    # -- links -----------------------------------------------------------------------
    def trace_ref(self) -> tuple[str, list[int] | None, str]:
        """(path relative to the case file, timestamps or None for a shipped trace, name)."""
        if self.p(0.4) and self.ctx.shipped:
            name = self.r.choice(sorted(self.ctx.shipped))
            self.use("trace.shipped")
            return f"../traces/cellular/{name}", None, name
        ms = gen_trace_ms(self.r, self.ext())
        data = trace_text(ms, self.r)
        import hashlib

        name = hashlib.sha256(data).hexdigest()[:16] + self.r.choice([".down", ".up", ".trace"])
        self.files[f"traces/{name}"] = data
        self.use("trace.generated")
        return f"../traces/{name}", ms, name

    def link(self, min_dur_ns: int) -> tuple[dict[str, Any], float]:
        """A link table and an upper bound of its rate in bit/s (for the run-time budget)."""
        t: dict[str, Any] = {}
        kind = self.r.choices(["fixed", "schedule", "trace"], [5, 2, 3])[0]
        if kind == "fixed":
            bps = self.link_rate_bps()
            t["rate"] = self.rate(bps)
            peak = float(bps)
            self.use("link.rate")
            if self.p(0.15):
                # Only a fixed rate takes changes; the peak (the run-time budget's bound)
                # is the fastest of the rates.
                at, changes = 0, []
                for _ in range(self.r.randint(1, 3)):
                    at += log_uniform(self.r, 1000, 2 * S) if not self.ext() else self.r.choice([1, 10**6])
                    new = self.link_rate_bps()
                    peak = max(peak, float(new))
                    changes.append({"at": self.time(at if changes or self.p(0.9) else 0), "rate": self.rate(new)})
                t["rate_changes"] = changes
                self.use("link.rate_changes")
        elif kind == "schedule":
            n = self.r.randint(1, 6)
            rates = [0 if self.p(0.25) else self.link_rate_bps() for _ in range(n)]
            if not any(rates):
                rates[self.r.randrange(n)] = self.link_rate_bps()
            t["rate"] = [self.rate(x) for x in rates]
            slot = self.r.choice([log_uniform(self.r, 10**5, 2 * S), 530 * MS]) if not self.ext() else self.r.choice([1, 1000, 3600 * S, U64 // n])
            t["slot"] = self.time(slot)
            peak = float(max(rates))
            self.use("link.rate", "link.slot")
        else:
            path, ms, name = self.trace_ref()
            t["trace"] = path
            opp = 1500
            if self.p(0.4):
                opp = self.r.choice([1500, 1000, 100, self.r.randint(40, 9000)]) if not self.ext() else self.r.choice([1, 64, 65535, 10**6])
                t["opportunity"] = self.size(opp)
                self.use("link.opportunity")
            peak = trace_peak_bps(ms, opp) if ms is not None else self.ctx.shipped[name] * opp / 1500
            self.use("link.trace")
        if self.p(0.7):
            d = 0 if self.p(0.15) else log_uniform(self.r, 10_000, 100 * MS) if self.p(0.9) else log_uniform(self.r, 1, 400 * MS)
            if self.ext():
                d = self.r.choice([0, 1, 10 * S, U64])
            t["delay"] = self.time(d)
            self.use("link.delay")
        if self.p(0.15):
            at, changes = 0, []
            for _ in range(self.r.randint(1, 3)):
                at += log_uniform(self.r, 1000, 2 * S) if not self.ext() else self.r.choice([1, 10**6])
                changes.append({"at": self.time(at), "delay": self.time(log_uniform(self.r, 1, 400 * MS) if self.p(0.9) else 0)})
            t["delay_changes"] = changes
            self.use("link.delay_changes")
        if self.p(0.6):
            t["queue"] = self.queue()
            self.use("link.queue")
        if self.p(0.35):
            t["loss"] = self.loss()
            self.use("link.loss")
        if self.p(0.2):
            t["header_bytes"] = self.r.choice([0, 2, 14, 38, self.r.randint(0, 100)]) if not self.ext() else self.r.choice([65535, 2**20])
            self.use("link.header_bytes")
        return t, peak

    def queue(self) -> Any:
        r = self.r.random()
        if r < 0.1:
            self.use("queue.unlimited")
            limit: Any = "unlimited"
        elif r < 0.55:
            n = self.r.choice([1, 2, 10, 100, 1000, self.r.randint(1, 3000)]) if not self.ext() else self.r.choice([1, 10**7])
            limit = f"{n}{self.r.choice(['pkts', 'packets', ' pkts'])}"
            self.use("queue.packets")
        else:
            limit = self.size(self.r.choice([1500, 64 * 1024, 150_000, 10**6, self.r.randint(1, 5 * 10**6)]) if not self.ext() else self.r.choice([1, 40, 2**31]))
            self.use("queue.bytes")
        if self.p(0.35):
            t: dict[str, Any] = {"limit": limit}
            if self.p(0.8):
                t["discipline"] = self.r.choice(self.disciplines)
                self.use(f"queue.discipline.{t['discipline']}")
                if t["discipline"] == "red" and self.p(0.7):
                    t.update(self.red())
            self.use("queue.table")
            return t
        return limit

    def red(self) -> dict[str, Any]:
        """Valid RED parameters (docs/scenarios.md): both thresholds or neither (an explicit
        max_th below the automatic min_th is an error)."""
        r = self.r
        t: dict[str, Any] = {}
        if self.p(0.6):
            lo = r.choice([1, 5, r.uniform(0.5, 50)])
            t["min_th"], t["max_th"] = lo, lo + r.choice([1, 10, r.uniform(0.1, 100)])
        for key, value in [("max_p", r.choice([0.02, 0.1, 1, r.uniform(1e-6, 1)])),
                           ("weight", r.choice(["auto", 0.002, 1, r.uniform(1e-6, 1)])),
                           ("mark_p", r.choice([0, 0.1, r.random()])),
                           ("mean_pktsize", self.size(r.choice([500, 1000, r.randint(1, 9000)])))]:
            if self.p(0.4):
                t[key] = value
        for key in ("gentle", "wait", "ecn", "use_mark_p", "byte_mode", "queue_in_bytes"):
            if self.p(0.3):
                t[key] = self.p(0.5)
        return t

    def loss(self) -> Any:
        kind = self.r.choice(["none", "none-table", "bernoulli", "gilbert_elliott", "periodic"])
        self.use(f"loss.{kind}")
        if kind == "none":
            return "none"
        if kind == "none-table":
            return {"kind": "none"}
        prob = lambda hi: self.r.choice([0.0, 1.0]) if self.ext() else round(self.r.uniform(0, hi), 6)  # noqa: E731
        if kind == "bernoulli":
            return {"kind": "bernoulli", "p": prob(0.1)}
        if kind == "periodic":
            t = {"kind": "periodic", "period": self.r.choice([1, 2, 20, self.r.randint(1, 1000)])}
            if self.p(0.5):
                t["offset"] = self.r.choice([0, 1, self.r.randint(0, 1000)])
            return t
        if self.p(0.3):
            # The error-rate form (docs/scenarios.md): e below L / (L + 1).
            burst = self.r.choice([1, 3, round(self.r.uniform(1, 50), 3)])
            self.use("loss.gilbert_elliott.error_rate")
            return {"kind": "gilbert_elliott", "error_rate": round(self.r.uniform(0, min(0.3, burst / (burst + 1) * 0.999)), 6),
                    "mean_burst": burst}
        t = {"kind": "gilbert_elliott", "p_good_to_bad": prob(0.05), "p_bad_to_good": self.r.choice([prob(1.0), 0.3])}
        if self.p(0.5):
            t["loss_good"] = prob(0.02)
        if self.p(0.5):
            t["loss_bad"] = prob(1.0)
        return t

    # -- topology --------------------------------------------------------------------
    def topology(self, dur: int) -> tuple[dict[str, Any], list[str], list[tuple[str, str, str, float]]]:
        """The topology table, its nodes and its links (name, from, to, peak bit/s)."""
        kind = self.r.choices(["point_to_point", "dumbbell", "custom"], [45, 25, 30])[0]
        self.use(f"topology.{kind}")
        if kind == "point_to_point":
            (d, dp), (u, up) = self.link(dur), self.link(dur)
            return ({"kind": kind, "downlink": d, "uplink": u}, ["server", "client"],
                    [("downlink", "server", "client", dp), ("uplink", "client", "server", up)])
        if kind == "dumbbell":
            pairs = self.r.randint(1, 5) if not self.ext() else self.r.choice([1, 40])
            t: dict[str, Any] = {"kind": kind, "pairs": pairs}
            peaks = {}
            for n in ["bottleneck", "bottleneck_rev", "sender_access", "receiver_access"]:
                t[n], peaks[n] = self.link(dur)
            nodes = [f"s{i}" for i in range(pairs)] + [f"r{i}" for i in range(pairs)] + ["left", "right"]
            links = [("bottleneck", "left", "right", peaks["bottleneck"]), ("bottleneck_rev", "right", "left", peaks["bottleneck_rev"])]
            for i in range(pairs):
                links += [(f"s{i}->left", f"s{i}", "left", peaks["sender_access"]), (f"left->s{i}", "left", f"s{i}", peaks["sender_access"]),
                          (f"right->r{i}", "right", f"r{i}", peaks["receiver_access"]), (f"r{i}->right", f"r{i}", "right", peaks["receiver_access"])]
            return t, nodes, links
        n = self.r.randint(2, 7)
        pool = ["phone", "bs", "server", "gw", "core", "cdn", "laptop", "ap", "n8", "router-1", "x_y", "nœud", "基站", "a b", "A.B"]
        nodes = self.r.sample(pool, n)
        if any(x in ("nœud", "基站", "a b", "A.B") for x in nodes):
            self.use("custom.unusual_node_names")
        pairs = []
        for i in range(1, n):  # a random tree, both ways: every node reaches every other
            j = self.r.randrange(i)
            pairs += [(nodes[j], nodes[i]), (nodes[i], nodes[j])]
        for _ in range(self.r.randint(0, 3)):  # extra one-way links, duplicates of a pair allowed
            a, b = self.r.sample(nodes, 2)
            pairs.append((a, b))
        self.r.shuffle(pairs)
        links_t, links, names = [], [], set()
        for a, b in pairs:
            spec, peak = self.link(dur)
            name = f"{a}->{b}"
            lt: dict[str, Any] = {"from": a, "to": b}
            if name in names or self.p(0.3):
                name = f"l{len(names)}-{self.r.choice(['radio', 'wire', 'sat', 'λ'])}"
                lt["name"] = name
                self.use("custom.link_name")
            names.add(name)
            lt.update(spec)
            links_t.append(lt)
            links.append((name, a, b, peak))
        return {"kind": "custom", "nodes": nodes, "links": links_t}, nodes, links

    # -- TCP -------------------------------------------------------------------------
    def mss(self, v: int) -> int:
        self.min_mss = min(self.min_mss, v)
        return v

    def tiny_time(self, dur: int) -> int:
        """A short time for a timer that may fire repeatedly: at most ~10^4 firings a run."""
        return max(1, dur // 10**4, self.r.choice([1, 1000, 10**5]))

    def tcp(self, dur: int, p_key: float = 0.15) -> dict[str, Any]:
        t: dict[str, Any] = {}
        r = self.r
        ext = self.ext

        def huge() -> int:
            return r.choice([3600 * S, 10**6 * S, 18_446_744_073 * S, U64])

        gens: dict[str, Callable[[], Any]] = {
            "mss": lambda: self.size(self.mss(r.choice([536, 1024, 1448, 1460, 8960, r.randint(64, 9000)]) if not ext() else r.choice([64, 65455]))),
            "initial_cwnd_pkts": lambda: r.choice([1, 2, 4, 10, r.randint(1, 100)]) if not ext() else r.choice([2**32 - 1, 10**6]),
            "sack": lambda: r.random() < 0.5,
            "max_sack_blocks": lambda: r.choice([4, 3, r.randint(1, 4)]),
            "timestamps": lambda: r.random() < 0.7,
            "window_scale": lambda: r.random() < 0.5,
            "ts_granularity": lambda: self.time(r.choice([10**3, MS, 10 * MS, log_uniform(r, 1, 100 * MS)]) if not ext() else r.choice([1, S])),
            "ts_offset": lambda: self.time(r.choice([0, log_uniform(r, 1, 100 * S)]) if not ext() else huge()),
            "initial_rto": lambda: self.time(r.choice([S, 3 * S, log_uniform(r, MS, 5 * S)]) if not ext() else r.choice([self.tiny_time(dur), huge()])),
            "min_rto": lambda: self.time(r.choice([200 * MS, log_uniform(r, MS, S)]) if not ext() else r.choice([self.tiny_time(dur), huge()])),
            "max_rto": lambda: self.time(r.choice([60 * S, log_uniform(r, 100 * MS, 120 * S)]) if not ext() else r.choice([self.tiny_time(dur), huge()])),
            "delayed_ack": lambda: r.random() < 0.6,
            "delayed_ack_count": lambda: r.choice([1, 2, 3, r.randint(1, 16)]) if not ext() else 2**32 - 1,
            "delayed_ack_timeout": lambda: self.time(log_uniform(r, MS, 500 * MS) if not ext() else r.choice([self.tiny_time(dur), huge()])),
            "rcv_buf": lambda: self.size(r.choice([4 * 2**20, 256 * 1024, 64 * 1024, log_uniform(r, 2000, 2**25)]) if not ext() else r.choice([1, 100, 2**31])),
            "snd_buf": lambda: self.size(r.choice([4 * 2**20, 256 * 1024, log_uniform(r, 2000, 2**25)]) if not ext() else r.choice([1, 100, 2**31])),
            "dupack_threshold": lambda: r.choice([1, 2, 3, r.randint(1, 10)]) if not ext() else 2**32 - 1,
            "nagle": lambda: r.random() < 0.5,
            "max_persist": lambda: self.time(log_uniform(r, 10 * MS, 120 * S) if not ext() else r.choice([self.tiny_time(dur), huge()])),
            "cc": lambda: r.choice(self.cc),
            "fc": lambda: r.choice(self.fc),
            "window_update": lambda: r.choice(self.window_update),
            "afc_history_factor": lambda: r.choice([0.0, 0.5, 1.0, round(r.random(), 4)]),
            "afc_proactive_factor": lambda: r.choice([1.0, 2, 1.5, round(r.uniform(1, 8), 3)]) if not ext() else r.choice([1e300, 1]),
            "afc_proactive_delay": lambda: self.time(r.choice([0, 40 * MS, log_uniform(r, 1, S)])),
            "afc_burst_threshold_pkts": lambda: r.choice([0, 1, 10, r.randint(0, 64)]) if not ext() else 2**32 - 1,
            "afc_rate_sampling": lambda: r.choice(["paper", "reads_only"]),
            "afc_suppress_congestion": lambda: r.random() < 0.5,
            "afc_open_window_in_recovery": lambda: r.random() < 0.5,
            "afc_recover_point": lambda: r.random() < 0.5,
            "rate_error_cv": lambda: r.choice([0, 0.0, 0.1, 1, round(r.uniform(0, 2), 3)]) if not ext() else r.choice([10, 10.0]),
            "rre_feedback_delay": lambda: r.choice(["rtt_min", "buffer_plus_rtt_min", "srtt"]),
            "abc_limit_pkts": lambda: r.choice([1, 2, 64, r.randint(1, 64)]),
            "proprate_threshold": lambda: self.time(r.choice([60 * MS, log_uniform(r, MS, S)]) if not ext() else r.choice([1, 3600 * S])),
            "proprate_k_fill": lambda: r.choice([1.25, 10, 2, round(r.uniform(1.001, 10), 4)]) if not ext() else r.choice([math.nextafter(1.0, 2.0), 10.0]),
            "proprate_k_drain": lambda: r.choice([0.75, 0.5, round(r.uniform(0.001, 0.999), 4)]) if not ext() else r.choice([5e-324, math.nextafter(1.0, 0.0)]),
            "sprout_threshold": lambda: self.time(r.choice([50 * MS, log_uniform(r, MS, S)]) if not ext() else r.choice([1, 3600 * S])),
            "sprout_k_fill": lambda: r.choice([2, 1.25, round(r.uniform(1.001, 10), 4)]) if not ext() else r.choice([math.nextafter(1.0, 2.0), 10.0]),
            "sprout_k_drain": lambda: r.choice([0.5, 0.25, round(r.uniform(0.001, 0.999), 4)]) if not ext() else r.choice([5e-324, math.nextafter(1.0, 0.0)]),
            "frto": lambda: r.random() < 0.7,
            "zero_window_freeze": lambda: r.random() < 0.3,
            "ecn": lambda: r.random() < 0.5,
            "hystart": lambda: r.random() < 0.5,
            "cwnd_limited_growth": lambda: r.random() < 0.5,
            "handshake": lambda: r.random() < 0.7,
            "grow_on_recovery_exit": lambda: r.random() < 0.5,
            "ca_exact_increase": lambda: r.random() < 0.5,
            "rsfc_threshold": lambda: r.choice(["rtt_min", self.time(log_uniform(r, 1, S))]) if not ext() else self.time(r.choice([1, huge()])),
            "rsfc_minima_updates": lambda: r.random() < 0.5,
            "rsfc_initial_window_pkts": lambda: r.choice([1, 10, r.randint(1, 100)]) if not ext() else 2**20,
            "rsfc_rho_increase": lambda: r.choice([0.1, 0.5, round(r.uniform(0.001, 10), 4)]) if not ext() else r.choice([5e-324, 10.0]),
            "proprate_target_delay": lambda: self.time(r.choice([100 * MS, log_uniform(r, 20 * MS, 2 * S)]) if not ext() else r.choice([20 * MS, 2 * S])),
        }
        # Enumerated keys the Rust side names (a variant, or a whole key, added later is covered
        # the day it lands); keys the scenario reader does not know (yet) are left out.
        for key, names in self.ctx.variants.items():
            if key not in gens and key in self.ctx.tcp_keys:
                gens[key] = lambda names=names: r.choice(names)
        for key, g in gens.items():
            if key not in self.ctx.tcp_keys:
                continue
            if r.random() < p_key:
                t[key] = g()
                self.use(f"tcp.{key}")
                if key in self.ctx.variants:
                    self.use(f"{key}.{t[key]}")
        if "sprout_percentile" in self.ctx.tcp_keys:
            # Sprout-Rate's forecast; its rate bins may hold at most 250 packets per tick, so the
            # tick and the top rate are drawn together.
            if r.random() < p_key:
                t["sprout_percentile"] = r.choice([5, 1, 50, round(r.uniform(0.1, 99.9), 3)]) if not ext() else r.choice([1e-9, 99.999])
                self.use("tcp.sprout_percentile")
            if r.random() < p_key:
                t["sprout_sigma"] = r.choice([200, 0, 100, round(r.uniform(0, 2000), 2)]) if not ext() else r.choice([0.0, 100_000])
                self.use("tcp.sprout_sigma")
            if r.random() < p_key:
                tick = r.choice([100 * MS, 20 * MS, log_uniform(r, 10 * MS, S)])
                top = 250 * S / tick * 0.999_999  # below the bound whatever the rounding
                t["sprout_tick"] = self.time(tick)
                t["sprout_max_rate"] = r.choice([min(1000, top), round(r.uniform(1, top), 2)]) if not ext() else top
                self.use("tcp.sprout_tick", "tcp.sprout_max_rate")
        if "sprout_target_delay" in self.ctx.tcp_keys and r.random() < p_key:
            # Sprout's target delay: whole or not, within its 8 ticks of 20 ms.
            t["sprout_target_delay"] = self.time(r.choice([100 * MS, 20 * MS, 160 * MS, log_uniform(r, 20 * MS, 160 * MS)]))
            self.use("tcp.sprout_target_delay")
        if r.random() < p_key and "rre_b_min" in self.ctx.tcp_keys:  # B_min < T < B_max: always the three together
            lo = log_uniform(r, 1000, 100 * MS)
            mid = lo + log_uniform(r, 1, 100 * MS)
            hi = mid + log_uniform(r, 1, 100 * MS)
            t.update(rre_b_min=self.time(lo), rre_threshold=self.time(mid), rre_b_max=self.time(hi))
            self.use("tcp.rre_b_min", "tcp.rre_threshold", "tcp.rre_b_max")
        if "proteus_window" in self.ctx.tcp_keys:
            # PROTEUS-Rate: window 10 ms-10 s, history 5-1024 windows, k_fill in [1, 10],
            # k_drain in (0, 1), threshold > 0.
            if r.random() < p_key:
                w = r.choice([500 * MS, 100 * MS, log_uniform(r, 10 * MS, 10 * S)]) if not ext() else r.choice([10 * MS, 10 * S])
                t["proteus_window"] = self.time(w)
                self.use("tcp.proteus_window")
            if r.random() < p_key:
                t["proteus_history"] = r.choice([64, 16, r.randint(5, 200)]) if not ext() else r.choice([5, 1024])
                self.use("tcp.proteus_history")
            if r.random() < p_key:
                t["proteus_threshold"] = self.time(r.choice([50 * MS, log_uniform(r, 1000, S)]))
                self.use("tcp.proteus_threshold")
            if r.random() < p_key:
                t["proteus_k_fill"] = r.choice([1.0, 1.25, round(r.uniform(1, 10), 4)]) if not ext() else r.choice([1.0, 10.0])
                self.use("tcp.proteus_k_fill")
            if r.random() < p_key:
                t["proteus_k_drain"] = r.choice([0.25, 0.75, round(r.uniform(0.001, 0.999), 4)]) if not ext() else r.choice([5e-324, math.nextafter(1.0, 0.0)])
                self.use("tcp.proteus_k_drain")
        return t

    # -- read profiles ---------------------------------------------------------------
    def read(self, dur: int) -> Any:
        kind = self.r.choice(["unlimited", "string", "rate", "pattern"])
        self.use(f"read.{kind}")
        min_tick = max(1, dur // 200_000)

        def tick() -> str:
            return self.time(max(min_tick, self.r.choice([MS, 10 * MS, log_uniform(self.r, 100_000, 50 * MS)]) if not self.ext() else self.r.choice([1000, U64])))

        def rbps() -> int:
            return 0 if self.p(0.15) else log_uniform(self.r, 10_000, 10**8) if not self.ext() else self.r.choice([1, 10**11])

        if kind == "unlimited":
            return "unlimited"
        if kind == "string":
            return self.rate(max(1, rbps()))
        t: dict[str, Any] = {}
        if kind == "rate":
            t["rate"] = self.rate(rbps())
        else:
            pat = [rbps() for _ in range(self.r.randint(1, 5))]
            if not any(pat):
                pat[0] = log_uniform(self.r, 10_000, 10**7)
            t["pattern"] = [self.rate(x) for x in pat]
            slot = self.r.choice([530 * MS, log_uniform(self.r, MS, 2 * S)])
            t["slot"] = self.time(slot)
            if self.p(0.3):
                # Anywhere in the cycle, its last nanosecond included (the second slot's start
                # only when there is a second slot: a one-slot cycle ends there).
                cycle = len(pat) * slot
                t["phase"] = self.time(self.r.choice([0, min(slot, cycle - 1), cycle - 1, self.r.randrange(cycle)]))
                self.use("read.phase")
        if self.p(0.5):
            t["tick"] = tick()
            self.use("read.tick")
        if self.p(0.5):
            t["blocking"] = self.p(0.5)
            self.use("read.blocking")
        return t

    # -- the whole document ----------------------------------------------------------
    def scenario(self) -> dict[str, Any]:
        r = self.r
        target = log_uniform(r, 100 * MS, 4 * S) if not self.ext() else r.choice([1, 1000, MS, 10 * MS])
        topo, nodes, links = self.topology(target)
        doc: dict[str, Any] = {}
        if self.p(0.5):
            doc["name"] = r.choice(["fuzz", "p2p bulk", "ünïcødé-名前", "x" * 60, "a-b_c.d"])
            self.use("top.name")
        if self.p(0.3):
            doc["description"] = r.choice(["", "free text", "line\nbreak", "\"quoted\" \\ back"])
            if doc["description"] == "":
                del doc["description"]  # an empty string is refused (documented as free text)
            else:
                self.use("top.description")
        doc["duration"] = None  # placeholder: keeps the key order readable
        if self.p(0.6):
            doc["seed"] = r.choice([0, 1, 42, r.getrandbits(64), U64])
            self.use("top.seed")
        if self.p(0.05):
            doc["event_budget"] = r.choice([10**12, U64])
            self.use("top.event_budget")
        if self.p(0.3):
            doc["stop_when_done"] = self.p(0.5)
            self.use("top.stop_when_done")
        doc["topology"] = topo

        # TCP settings first: the run-time budget depends on the smallest segment.
        defaults: dict[str, Any] = {}
        if self.p(0.4):
            defaults["tcp"] = self.tcp(target, 0.2)
            self.use("defaults.tcp")
        if self.p(0.1):
            defaults["receiver_tcp"] = self.tcp(target, 0.1)
            self.use("defaults.receiver_tcp")
        nflows = r.choices([1, 2, 3, 4], [5, 3, 2, 1])[0]
        adj: dict[str, list[tuple[str, float]]] = {}
        for name, a, b, peak in links:
            adj.setdefault(a, []).append((b, peak))
        flows: list[dict[str, Any]] = []
        shapes = []
        next_pair = 0
        pairs = topo.get("pairs", 0)
        for k in range(nflows):
            f: dict[str, Any] = {}
            count = 1
            if self.p(0.15):
                count = r.randint(2, 4)
                f["count"] = count
                self.use("flow.count")
            # endpoints
            if topo["kind"] == "dumbbell" and next_pair + count <= pairs and self.p(0.7):
                if self.p(0.3):
                    f["pair"] = r.randint(next_pair, pairs - count)
                    self.use("flow.pair")
                first = f.get("pair", next_pair)
                next_pair = first + count
                ends = (f"s{first}", f"r{first}")
            elif topo["kind"] == "point_to_point" and self.p(0.5):
                ends = ("server", "client")  # the defaults
            else:
                ends = tuple(r.sample(nodes, 2))  # every graph here connects all nodes both ways
                f["src"], f["dst"] = ends
                self.use("flow.src", "flow.dst")
            if topo["kind"] == "point_to_point" and ends == ("server", "client") and self.p(0.3):
                f["src"], f["dst"] = ends
                self.use("flow.src", "flow.dst")
            if self.p(0.6):
                f["name"] = f"flow-{'ABCDEFGH'[k]}{'' if count == 1 else '-'}"
                self.use("flow.name")
            if self.p(0.5):
                tcp = self.tcp(target)
                for short in ("cc", "fc"):
                    if short in tcp and self.p(0.5):
                        f[short] = tcp.pop(short)
                        self.use(f"flow.{short}")
                if tcp:
                    f["tcp"] = tcp
                    self.use("flow.tcp")
            elif self.p(0.4):
                f["cc"] = r.choice(self.cc)
                self.use("flow.cc", f"cc.{f['cc']}")
            if self.p(0.2):
                f["receiver_tcp"] = self.tcp(target, 0.15)
                self.use("flow.receiver_tcp")
            if self.p(0.25):
                fc = r.choice(self.fc)
                if "tcp" in f and "fc" in f["tcp"] or "fc" in f:
                    pass
                else:
                    f["fc"] = fc
                    self.use("flow.fc", f"fc.{fc}")
            # What the two ends make impossible is refused (RSFC or a rate-based cc without
            # timestamps, Sprout without a Sprout receiver; docs/scenarios.md), so a valid
            # case adds the keys that make it possible.
            self._fix_ends(f, defaults, "flow")
            flows.append(f)
            shapes.append(ends)

        # The run-time budget: about 150k packets over the whole run.
        smallest_mss = self.min_mss
        pps = 0.0
        for src, dst in shapes:
            for a, b in ((src, dst), (dst, src)):
                pps += 2 * path_min_rate(adj, a, b) / (8 * (smallest_mss + 52))
        dur = int(min(target, 150_000 / max(pps, 1e-9) * S))
        dur = max(dur, 1)
        doc["duration"] = self.time(dur)
        self.use("top.duration")

        if self.p(0.2):
            defaults["read"] = self.read(dur)
            self.use("defaults.read")
        if defaults:
            doc["defaults"] = defaults
        for f in flows:
            count = f.get("count", 1)
            self.flow_times(f, dur, count)
            if self.p(0.3):
                f["read"] = self.read(dur)
                self.use("flow.read")
            if self.p(0.3):
                f["bytes"] = "unlimited" if self.p(0.2) else self.size(r.choice([1, 1448, 10**5, log_uniform(r, 1, 5 * 10**6)]))
                self.use("flow.bytes")
        doc["flows"] = flows
        if self.p(0.4):
            doc["record"] = self.record(dur, [x[0] for x in links])
        if self.p(0.25):
            doc["elements"] = self.elements(dur, links)
        # DARCA controls flows whose data crosses its link: the generated topologies' routes
        # are known for the default ends (p2p server -> client over "downlink", dumbbell
        # s<i> -> r<i> over "bottleneck").
        crossing = {"point_to_point": (("server", "client"), "downlink", "client"),
                    "dumbbell": (None, "bottleneck", "right")}.get(topo["kind"])
        if crossing is not None and self.p(0.15):
            ends, link, node = crossing
            hits = [f for f, sh in zip(flows, shapes) if (sh == ends if ends else sh[0].startswith("s") and sh[1] == "r" + sh[0][1:])]
            if hits:
                doc.setdefault("elements", []).append(self.darca(dur, link, node, hits))
        if self.p(0.2):
            doc["pages"] = self.pages(dur, nodes, defaults)
            self.use("top.pages")
        # Workloads may not cross a node with an element (documented limit): only without.
        if self.p(0.2) and not doc.get("elements"):
            doc["workloads"] = self.workloads(dur, nodes, topo, defaults)
            self.use("top.workloads")
            if self.p(0.3):
                doc.setdefault("record", {})["workload_flows"] = self.p(0.5)
                self.use("record.workload_flows")
        return doc

    def workloads(self, dur: int, nodes: list[str], topo: dict[str, Any], defaults: dict[str, Any]) -> list[dict[str, Any]]:
        """Open-loop workloads: Poisson or given arrivals (inline or a file), sizes of every
        kind (an empirical CDF inline or from a file), between two nodes."""
        r = self.r
        out: list[dict[str, Any]] = []
        for k in range(r.choice([1, 1, 2])):
            w: dict[str, Any] = {}
            if topo["kind"] == "dumbbell" and self.p(0.3):
                w["pair"] = r.randrange(topo["pairs"])
                self.use("workload.pair")
            else:
                src, dst = r.sample(nodes, 2)
                if topo["kind"] != "point_to_point" or self.p(0.5):
                    w["src"], w["dst"] = src, dst
                    self.use("workload.src", "workload.dst")
            if self.p(0.5):
                w["name"] = f"wl-{'PQ'[k]}"
                self.use("workload.name")
            kind = r.choice(["poisson", "poisson", "times", "file"])
            if kind == "poisson":
                w["arrivals"] = {"kind": "poisson", "rate": r.choice([0.5, 3, 20, 60.5])}
            else:
                ts = sorted(r.randint(0, dur) for _ in range(r.randint(1, 20)))
                if kind == "times":
                    w["arrivals"] = {"kind": "times", "times": [self.time(t) for t in ts]}
                else:
                    name = f"arrivals-{self.r.getrandbits(32):08x}.txt"
                    self.files[f"traces/{name}"] = ("# seconds\n" + "".join(f"{t / S!r}\n" for t in ts)).encode()
                    w["arrivals"] = {"kind": "file", "path": f"../traces/{name}"}
            self.use("workload.arrivals", f"arrivals.{kind}")
            sk = r.choice(["fixed", "exponential", "pareto", "cdf-points", "cdf-file"])
            if sk == "fixed":
                w["sizes"] = {"kind": "fixed", "bytes": self.size(r.choice([1, 1448, 20_000, log_uniform(r, 1, 200_000)]))}
            elif sk == "exponential":
                w["sizes"] = {"kind": "exponential", "mean": self.size(r.choice([1, 5_000, log_uniform(r, 1, 100_000)]))}
            elif sk == "pareto":
                w["sizes"] = {"kind": "pareto", "mean": self.size(log_uniform(r, 1, 100_000)), "shape": r.choice([1.05, 1.2, 2, 3.5])}
            else:
                n = r.randint(1, 6)
                sizes = sorted(log_uniform(r, 1, 300_000) for _ in range(n))
                probs = sorted(round(r.random(), 3) for _ in range(n - 1)) + [1.0]
                if sk == "cdf-points":
                    w["sizes"] = {"kind": "cdf", "points": [[self.size(b), p] for b, p in zip(sizes, probs)]}
                else:
                    name = f"sizes-{self.r.getrandbits(32):08x}.cdf"
                    self.files[f"traces/{name}"] = ("# bytes cdf\n" + "".join(f"{b} {p!r}\n" for b, p in zip(sizes, probs))).encode()
                    w["sizes"] = {"kind": "cdf", "path": f"../traces/{name}"}
            self.use("workload.sizes", f"sizes.{sk}")
            if self.p(0.3):
                w["start"] = self.time(r.randint(0, dur // 2))
                self.use("workload.start")
            if self.p(0.3):
                w["stop"] = self.time(r.randint(dur // 2 + 1, dur + S))
                self.use("workload.stop")
            if self.p(0.3):
                w["max_flows"] = r.choice([1, 5, 100])
                self.use("workload.max_flows")
            if self.p(0.3):
                edges = sorted({log_uniform(r, 1, 10**6) for _ in range(r.randint(0, 4))})
                w["size_buckets"] = [self.size(b) for b in edges]
                self.use("workload.size_buckets")
            if self.p(0.3):
                w["tcp"] = self.tcp(dur)
                self.use("workload.tcp")
            if self.p(0.2):
                w["cc"] = r.choice(self.cc)
                w.get("tcp", {}).pop("cc", None)
                self.use("workload.cc")
            if self.p(0.2):
                w["fc"] = r.choice([f for f in self.fc if f != "rsfc"])
                w.get("tcp", {}).pop("fc", None)
                self.use("workload.fc")
            if self.p(0.2):
                w["receiver_tcp"] = self.tcp(dur)
                self.use("workload.receiver_tcp")
            # As for flows: the two ends must make their mechanisms possible.
            self._fix_ends(w, defaults, "workload")
            out.append(w)
        return out

    def _fix_ends(self, f: dict[str, Any], defaults: dict[str, Any], kind: str) -> None:
        """Adds to a flow's or a workload's tables what `_possible_ends` asks for, and keeps
        `zero_window_freeze` away from AFC."""
        snd = dict(defaults.get("tcp", {})) | f.get("tcp", {}) | {k: f[k] for k in ("cc", "fc") if k in f}
        rcv = None
        if "receiver_tcp" in f or "receiver_tcp" in defaults:
            rcv = snd | defaults.get("receiver_tcp", {}) | f.get("receiver_tcp", {})
        fs, fr = _possible_ends(snd, rcv)
        if fs:
            f.setdefault("tcp", {}).update(fs)
            snd |= fs
            if rcv is not None:
                rcv |= {k: v for k, v in fs.items() if k not in defaults.get("receiver_tcp", {}) and k not in f.get("receiver_tcp", {})}
            self.use(f"{kind}.tcp")
        if fr:
            f.setdefault("receiver_tcp", {}).update(fr)
            rcv = (rcv or dict(snd)) | fr
            self.use(f"{kind}.receiver_tcp")
        _no_freeze_with_afc(f.setdefault("tcp", {}), snd)
        if not f["tcp"]:
            del f["tcp"]
        if rcv is not None:
            rcv_table = f.setdefault("receiver_tcp", {})
            _no_freeze_with_afc(rcv_table, rcv | {k: rcv_table[k] for k in rcv_table})
            if not rcv_table:
                del f["receiver_tcp"]

    def pages(self, dur: int, nodes: list[str], defaults: dict[str, Any]) -> list[dict[str, Any]]:
        """Web page loads between two nodes (every topology here connects all nodes both ways):
        sizes given or the page model, with or without their own TCP tables."""
        r = self.r
        out: list[dict[str, Any]] = []
        for k in range(r.choice([1, 1, 2])):
            client, server = r.sample(nodes, 2)
            pg: dict[str, Any] = {"client": client, "server": server}
            self.use("page.client", "page.server")
            if self.p(0.5):
                pg["name"] = f"page-{'XYZ'[k]}"
                self.use("page.name")
            if self.p(0.5):
                pg["start"] = self.time(r.randint(0, max(dur // 2, 0)))
                self.use("page.start")
            if self.p(0.5):
                pg["connections"] = r.choice([1, 2, 6, 64])
                self.use("page.connections")
            if self.p(0.4):
                pg["request"] = self.size(r.choice([1, 300, 500, 2000]))
                self.use("page.request")
            if self.p(0.7):
                pg["objects"] = [self.size(r.choice([1, 1000, log_uniform(r, 1, 50_000)])) for _ in range(r.randint(1, 12))]
                self.use("page.objects")
            else:
                pg["model"] = "httparchive-2012"
                self.use("page.model")
                if self.p(0.5):
                    pg["seed"] = r.choice([0, 7, U64])
                    self.use("page.seed")
            if self.p(0.3):
                pg["tcp"] = self.tcp(dur)
                self.use("page.tcp")
            if self.p(0.3):
                pg["cc"] = r.choice(self.cc)
                pg.get("tcp", {}).pop("cc", None)
                self.use("page.cc")
            if self.p(0.2):
                pg["server_tcp"] = self.tcp(dur)
                self.use("page.server_tcp")
            # Both ends of a page send and receive (requests, objects): each direction's
            # mechanisms must be possible (validate.rs `check_ends`, both ways).
            client_tcp = dict(defaults.get("tcp", {})) | pg.get("tcp", {}) | ({"cc": pg["cc"]} if "cc" in pg else {})
            server_tcp = client_tcp | pg.get("server_tcp", {}) if "server_tcp" in pg else None
            for _ in range(2):  # a fix one way may call for one the other way (a cc set to sprout)
                for snd, rcv, s_key, r_key in ((server_tcp, client_tcp, "server_tcp", "tcp"),
                                              (client_tcp, server_tcp, "tcp", "server_tcp")):
                    if snd is None:
                        snd, s_key = client_tcp, "tcp"
                    fs, fr = _possible_ends(snd, rcv)
                    for key, fix in ((s_key, fs), (r_key, fr)):
                        if fix:
                            pg.setdefault(key, {}).update(fix)
                            (client_tcp if key == "tcp" else server_tcp).update(fix)
                            if key == "tcp" and server_tcp is not None and "server_tcp" in pg:
                                # The server's table inherits the client's: keep what it set itself.
                                server_tcp.update({k: v for k, v in fix.items() if k not in pg["server_tcp"]})
            for key, eff in (("tcp", client_tcp), ("server_tcp", server_tcp)):
                if eff is not None and key in pg:
                    _no_freeze_with_afc(pg[key], eff)
                    eff.update({k: pg[key][k] for k in ("zero_window_freeze",) if k in pg[key]})
            out.append(pg)
        return out

    def elements(self, dur: int, links: list[tuple[str, str, str, float]]) -> list[dict[str, Any]]:
        """BSF on the node a link leaves, with thresholds that satisfy eq. 5 (given, or from
        eqs. 3-4 when the buffer and sessions allow it), sometimes several on one node."""
        r = self.r
        out: list[dict[str, Any]] = []
        for _ in range(r.choices([1, 2, 3], [6, 2, 1])[0]):
            name, a, _b, _peak = r.choice(links)
            e: dict[str, Any] = {"node": a, "kind": "bsf", "link": name}
            self.use("top.elements", "elements.bsf")
            sessions = r.randint(1, 20)
            e["sessions"] = sessions
            if self.p(0.5):
                # Eqs. 3-4 hold when TCP_buff <= N(N - 1) and N + ceil(TCP_buff / N) < TCP_buff.
                fits = [t for t in range(2, sessions * (sessions - 1) + 1) if sessions + -(-t // sessions) < t]
                if fits:
                    e["total_buffer"] = f"{r.choice(fits)}pkts"
                    self.use("elements.bsf.formulas")
            if "total_buffer" not in e:
                total = log_uniform(r, 3, 5000)
                e["total_buffer"] = f"{total}pkts"
                if self.p(0.3):
                    udp = r.randint(0, total - 3)
                    e["udp_buffer"] = f"{udp}pkts"
                    total -= udp
                    self.use("elements.bsf.udp_buffer")
                flush = r.uniform(0.001, total - 2)
                e["flush_thresh"] = round(flush, 3) if self.p(0.5) else flush
                e["bsf_thresh"] = r.uniform(e["flush_thresh"] + 0.001, total - 0.001)
            if self.p(0.5):
                e["weight"] = r.choice([1.0, 0.002, 0.2, r.uniform(1e-6, 1.0)])
            if self.p(0.3):
                e["ecn_history"] = r.randint(0, 32)
            if self.p(0.3):
                e["zwa_copies"] = r.randint(1, 16)
            if self.p(0.3):
                e["record_ttl"] = self.time(r.choice([1, MS, S, log_uniform(r, 1, 10 * S)]))
            self.use(*(f"elements.bsf.{k}" for k in e if k not in ("node", "kind")))
            out.append(e)
        return out

    def darca(self, dur: int, link: str, node: str, flows: list[dict[str, Any]]) -> dict[str, Any]:
        """DARCA at the node `link` ends at, per connection (the named single flows among
        `flows`, all of which cross `link`) or per class; every key sometimes."""
        r = self.r
        e: dict[str, Any] = {"node": node, "kind": "darca", "link": link}
        self.use("top.elements", "elements.darca")
        named = [f["name"] for f in flows if "name" in f and f.get("count", 1) == 1]
        if named and self.p(0.6):
            e["targets"] = [{"flow": n, "rate": self.rate(log_uniform(r, 1, 10**9))} for n in r.sample(named, r.randint(1, len(named)))]
            # A connection without timestamps needs an assumed RTT.
            e["rtt"] = self.time(r.choice([MS, 100 * MS, log_uniform(r, 1, 10 * S)]))
        else:
            edges = sorted({0, *(log_uniform(r, 1, 5 * S) for _ in range(r.randint(1, 3)))})
            if len(edges) < 2:
                edges.append(edges[-1] + S)
            e["classes"] = [{"rtt_min": self.time(lo), "rtt_max": self.time(hi), "rate": self.rate(log_uniform(r, 1, 10**9))}
                            for lo, hi in zip(edges, edges[1:])]
            if self.p(0.4):
                e["class_rtt"] = r.choice(["harmonic", "midpoint"])
        if self.p(0.5):
            e["start"] = self.time(r.randrange(0, max(1, dur)))
        for key, lo, hi in (("factor", 0.01, 0.99), ("tolerance", 0.01, 0.99)):
            if self.p(0.3):
                e[key] = r.uniform(lo, hi)
        if self.p(0.3):
            e["max_stable"] = self.time(log_uniform(r, 1, 200 * S))
        if self.p(0.3):
            e["min_convergence"] = self.time(log_uniform(r, 10 * MS, 5 * S))
        if self.p(0.3):
            e["rwnd"] = self.size(log_uniform(r, 1, 10**7))
        if self.p(0.3):
            e["correction"] = r.choice(["none", "measured"])
        if self.p(0.3) and "min_convergence" not in e:
            e["max_convergence"] = self.time(log_uniform(r, S, 100 * S))
        self.use(*(f"elements.darca.{k}" for k in e if k not in ("node", "kind")))
        return e

    def flow_times(self, f: dict[str, Any], dur: int, count: int) -> None:
        r = self.r
        start = 0
        if self.p(0.3):
            start = r.randrange(0, dur) if dur > 1 and self.p(0.2) else r.randrange(0, max(1, dur // 3))
            if start or self.p(0.3):
                f["start"] = self.time(start)
                self.use("flow.start")
        last = start
        if count > 1 and self.p(0.6):
            room = (dur - 1 - start) // (count - 1)
            spacing = r.randint(0, room) if room > 0 else 0
            f["start_spacing"] = self.time(spacing)
            self.use("flow.start_spacing")
            last = start + (count - 1) * spacing
        if self.p(0.25):
            f["connect"] = self.time(r.randint(0, start))
            self.use("flow.connect")
        if self.p(0.25):
            f["stop"] = self.time(last + r.randint(1, 2 * dur))  # after every copy's start; maybe after the end
            self.use("flow.stop")
        if self.p(0.15):
            # From the last copy's start on (pauses are absolute times shared by every copy),
            # in order, apart or back to back, some past the stop or the end of the run.
            edge, pauses = last, []
            for _ in range(r.randint(1, 3)):
                at = edge + (0 if self.p(0.2) else r.randint(0, max(1, dur // 2)))
                edge = at + r.randint(1, max(1, dur // 2))
                pauses.append({"at": self.time(at), "until": self.time(edge)})
            f["pauses"] = pauses
            self.use("flow.pauses")

    def record(self, dur: int, link_names: list[str]) -> dict[str, Any]:
        r = self.r
        t: dict[str, Any] = {}
        if self.p(0.5):
            t["interval"] = self.time(max(max(1, dur // 2000), r.choice([100 * MS, 530 * MS, 10 * MS, log_uniform(r, MS, S)])))
            self.use("record.interval")
        for k in ("timeseries", "exact_percentiles"):
            if self.p(0.4):
                t[k] = self.p(0.5)
                self.use(f"record.{k}")
        if self.p(0.3):
            chosen = r.sample(link_names, min(len(link_names), r.randint(1, 3)))
            pc: list[Any] = []
            for i, name in enumerate(chosen):
                if self.p(0.5):
                    pc.append(name)
                else:
                    e: dict[str, Any] = {"link": name}
                    if self.p(0.6):
                        e["path"] = r.choice([f"cap{i}.pcap", f"pcaps/{i}/x.pcap", f"./c{i}.pcap", f"a/../c{i}.pcap"])
                        self.use("pcap.path")
                    if self.p(0.5):
                        e["snaplen"] = r.choice([0, 54, 96, 65535, 2**32 - 1])
                        self.use("pcap.snaplen")
                    pc.append(e)
            t["pcap"] = pc
            self.use("record.pcap")
        return t


def path_min_rate(adj: dict[str, list[tuple[str, float]]], a: str, b: str) -> float:
    """The smallest peak rate on a shortest (in hops) path from a to b (the largest if none)."""
    best: dict[str, float] = {a: math.inf}
    frontier = [a]
    while frontier and b not in best:
        nxt = []
        for n in frontier:
            for m, peak in adj.get(n, []):
                if m not in best:
                    best[m] = min(best[n], peak)
                    nxt.append(m)
        frontier = nxt
    v = best.get(b, max((p for l in adj.values() for _, p in l), default=1.0))
    return v if math.isfinite(v) else 1e9


# ======================================================================================
# The mutator: valid documents damaged in the ways people (and scripts) damage them.


def paths_of(v: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path (tuples of str keys and int indices) of a document."""
    out = [prefix] if prefix else []
    if isinstance(v, dict):
        for k, x in v.items():
            out += paths_of(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += paths_of(x, prefix + (i,))
    return out


def get_path(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def set_path(doc: Any, path: tuple, value: Any) -> None:
    get_path(doc, path[:-1])[path[-1]] = value


def del_path(doc: Any, path: tuple) -> None:
    parent = get_path(doc, path[:-1])
    del parent[path[-1]]


def dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path)


QUANTITY_RE = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s?\D")

BAD_UNITS = ["10", "10M", "10 mbps", "10MB/s", "-5ms", "0.5ns", "1e3ms", "10  Mbit/s", "ms", "", " ", "∞ms",
             "10Mbit/s/s", "1,5s", "0x10B", "+-1s", "10 ms ms", "nan s", "inf ms", "1_000ms", "10Mbit/S", "10 KIB", "ten ms",
             "5 bit/s", "0pkts", "0B", "0Mbit/s", "0s", "1.5 pkts", "10pkt", "1.0000000001B"]
NON_ASCII = [("0123456789", "٠١٢٣٤٥٦٧٨٩"), ("0123456789", "０１２３４５６７８９"), ("0123456789", "०१२३४५६७८९")]
WRONG_TYPES: list[Any] = [42, -1, 3.5, True, False, "text", [], [1, "a"], {}, {"x": 1}, "", Raw("1979-05-27T07:32:00Z"),
                          Raw("07:32:00"), Raw("1979-05-27"), [{"a": 1}], 0, Raw("inf"), Raw("nan"), Raw("-inf")]
OUT_OF_RANGE: list[Any] = [-1, 2**64, 2**63, -(2**63), Raw("inf"), Raw("nan"), -0.0, 0, 1.5, 10**30, 1.0000001, -0.5, 65, 100001, 2**32]
JUNK_STRINGS = ["\0", "\x1b[31mred", "a" * 100_000, "../../etc/passwd", "\u202eevil", "a\nb", "line\r\nbreak", "tab\there",
                "'", '"', "\\", "{}", "$HOME", "%s%n", "\ud7ff", "é" * 1000, "example:p2p-bulk"]
UNKNOWN_KEYS = ["dealy", "rtae", "flwos", "duraton", "qeueu", "kind2", "x", "Rate", "DURATION", "tcp ", "a.b", "名前", "", " ",
                "rate_bps", "bps", "limit_packets", "delay_ms"]
BAD_SETS = [
    "noequals", "=5", "flows.9.cc=cubic", "flows.x.cc=cubic", "duration=", "duration", "topology.downlink.rate.x=1",
    "..=1", "flows.0=" + "[" * 40 + "]" * 40, "duration=1979-05-27", "seed=-1", "seed=1e3", "seed=18446744073709551616",
    "a" * 5000 + "=1", "flows.0.cc=newrenoo", "topology.kind=ring", "flows.-1.cc=cubic", "flows.0.tcp=3", "topology=1", "=",
    'flows.0.name="a\\nb"', 'flows.0.src="\\u0000"', 'duration="10"', "duration=10", "flows.0.read={ pattern = [] }",
    "record.pcap.0=nosuchlink", "flows=[]", "flows.0.tcp.mss=70000B", "topology.downlink.queue=0pkts", "seed=true",
    "flows.0.count=0", "duration=1e999", "duration=[", 'duration="', "defaults.tcp.cc=", "flows.0.bytes=-1B",
    "topology.uplink=", "flows.0.start=99999999999s", "duration=18446744074s", "flows.0.tcp.nosuch=1",
    "record.interval=0s", "flows.0.read.tick=0ms", "flows.0.cc.x=1", "seed.x=1", "flows.0.0=1",
    # these keep the scenario valid
    "duration=50ms", "flows.0.cc=cubic", "seed=3", "record.timeseries=false",
]


class Mutator:
    """Each method damages the case in one way and returns a description of what it did."""

    def __init__(self, rng: random.Random, ctx: "Ctx", case: Case):
        self.r = rng
        self.ctx = ctx
        self.c = case

    def leaf_paths(self, pred: Callable[[tuple, Any], bool] = lambda p, v: True) -> list[tuple]:
        return [p for p in paths_of(self.c.doc) if pred(p, get_path(self.c.doc, p))]

    def pick(self, pred: Callable[[tuple, Any], bool] = lambda p, v: True) -> tuple | None:
        ps = self.leaf_paths(pred)
        return self.r.choice(ps) if ps else None

    # -- document-level damage -------------------------------------------------------
    def delete_key(self) -> str:
        p = self.pick()
        if p is None:
            return "delete: nothing"
        del_path(self.c.doc, p)
        return f"delete {dotted(p)}"

    def wrong_type(self) -> str:
        p = self.pick()
        if p is None:
            return "wrong type: nothing"
        v = self.r.choice(WRONG_TYPES)
        set_path(self.c.doc, p, copy.deepcopy(v))
        return f"{dotted(p)} = {toml_value(v)[:60]} (wrong type)"

    def bad_quantity(self) -> str:
        p = self.pick(lambda p, v: isinstance(v, str) and bool(QUANTITY_RE.match(v)))
        if p is None:
            return self.wrong_type()
        v = self.r.choice(BAD_UNITS)
        set_path(self.c.doc, p, v)
        return f"{dotted(p)} = {v!r} (bad quantity)"

    def bad_number(self) -> str:
        p = self.pick(lambda p, v: isinstance(v, (int, float)) and not isinstance(v, bool))
        if p is None:
            p = self.pick(lambda p, v: not isinstance(v, (dict, list)))
        if p is None:
            return "bad number: nothing"
        v = self.r.choice(OUT_OF_RANGE)
        set_path(self.c.doc, p, v)
        return f"{dotted(p)} = {toml_value(v)} (out of range)"

    def non_ascii_digits(self) -> str:
        p = self.pick(lambda p, v: isinstance(v, str) and any(ch.isdigit() for ch in v))
        if p is None:
            return self.bad_quantity()
        v = get_path(self.c.doc, p)
        src, dst = self.r.choice(NON_ASCII)
        if self.r.random() < 0.2:
            nv = v.replace(" ", "\u00a0") if " " in v else re.sub(r"(\d)(\D)", "\\1\u00a0\\2", v, count=1)
        else:
            nv = v.translate(str.maketrans(src, dst))
        set_path(self.c.doc, p, nv)
        return f"{dotted(p)} = {nv!r} (non-ASCII digits/space)"

    def huge_value(self) -> str:
        choices: list[tuple[tuple, Any]] = [
            (("duration",), "18446744074s"), (("duration",), "9999999999999999999999ms"), (("seed",), 2**64),
            (("event_budget",), 0), (("event_budget",), 2**64),
        ]
        topo = self.c.doc.get("topology", {})
        for lp in self.link_paths():
            link = get_path(self.c.doc, lp)
            choices += [(lp + ("rate",), "18446744073709551616bit/s"), (lp + ("queue",), "18446744073709551616pkts"),
                        (lp + ("header_bytes",), 2**32), (lp + ("delay",), "18446744074s"), (lp + ("queue",), "20000000000GB")]
            if "trace" in link:
                choices += [(lp + ("opportunity",), self.r.choice(["5GB", "4GiB", "4294967296B", "4294967295B"]))]
        if topo.get("kind") == "dumbbell":
            choices += [(("topology", "pairs"), self.r.choice([0, 100_001, 2**32, 10**9]))]
        for i, f in enumerate(self.c.doc.get("flows", [])):
            choices += [(("flows", i, "count"), self.r.choice([0, 100_001, 10**9])),
                        (("flows", i, "tcp"), {"mss": self.r.choice(["70000B", "65496B", "4GiB"])}),
                        (("flows", i, "tcp"), {"initial_cwnd_pkts": 2**32}),
                        (("flows", i, "tcp"), {"rcv_buf": "20000000000GB"}),
                        (("flows", i, "bytes"), "18446744073709551616B"),
                        (("flows", i, "start"), "18446744073709551615ns"),
                        (("flows", i, "tcp"), {"abc_limit_pkts": 65}),
                        (("flows", i, "tcp"), {"rate_error_cv": self.r.choice([10.5, 1e308, -0.1])})]
        p, v = self.r.choice(choices)
        try:
            set_path(self.c.doc, p, v)
        except (KeyError, IndexError, TypeError):
            return "huge: nothing"
        return f"{dotted(p)} = {toml_value(v)} (huge)"

    def unknown_key(self) -> str:
        tables = [()] + [p for p in paths_of(self.c.doc) if isinstance(get_path(self.c.doc, p), dict)]
        p = self.r.choice(tables)
        k = self.r.choice(UNKNOWN_KEYS)
        get_path(self.c.doc, p)[k] = self.r.choice([1, "x", True, {"y": 2}])
        return f"{dotted(p + (k,))} added (unknown key)"

    def nested_junk(self) -> str:
        p = self.pick()
        if p is None:
            return "nested: nothing"
        depth = self.r.choice([3, 10, 31, 33, 40, 200])
        v: Any = self.r.choice([1, "x", {}])
        for _ in range(depth):
            v = [v] if self.r.random() < 0.5 else {"k": v}
        if self.r.random() < 0.2:
            v = list(range(self.r.choice([1000, 100_000])))
        set_path(self.c.doc, p, v)
        return f"{dotted(p)} = nested junk (depth {depth})"

    def string_junk(self) -> str:
        p = self.pick(lambda p, v: isinstance(v, str))
        if p is None:
            return "string junk: nothing"
        v = self.r.choice(JUNK_STRINGS)
        set_path(self.c.doc, p, v)
        return f"{dotted(p)} = {v[:30]!r} (junk string)"

    def link_paths(self) -> list[tuple]:
        topo = self.c.doc.get("topology")
        if not isinstance(topo, dict):
            return []
        out = [("topology", k) for k in ("downlink", "uplink", "bottleneck", "bottleneck_rev", "sender_access", "receiver_access")
               if isinstance(topo.get(k), dict)]
        if isinstance(topo.get("links"), list):
            out += [("topology", "links", i) for i, x in enumerate(topo["links"]) if isinstance(x, dict)]
        return out

    def semantic(self) -> str:
        """Well-typed values that break a documented rule."""
        doc, r = self.c.doc, self.r
        flows = doc.get("flows") if isinstance(doc.get("flows"), list) else []
        links = self.link_paths()
        ops: list[Callable[[], str]] = []
        if flows:
            i = r.randrange(len(flows))
            f = flows[i]

            def start_after_end() -> str:
                f["start"] = doc.get("duration", "1s")
                return f"flows.{i}.start = duration"

            def connect_after_start() -> str:
                f["start"] = "0s"
                f["connect"] = "1ns"
                return f"flows.{i}.connect after start"

            def stop_before_start() -> str:
                f["start"] = "0s"
                f["stop"] = r.choice(["0s", "0ns"])
                return f"flows.{i}.stop <= start"

            def same_node() -> str:
                f["src"] = f["dst"] = f.get("src", "server")
                f.pop("pair", None)
                return f"flows.{i}.src = dst"

            def unknown_node() -> str:
                f[r.choice(["src", "dst"])] = r.choice(["nowhere", "Server", "client ", "a\nb", "\u0000"])
                f.pop("pair", None)
                return f"flows.{i} unknown node"

            def duplicate_name() -> str:
                flows.append(copy.deepcopy(f))
                f["name"] = flows[-1]["name"] = "dup"
                f.pop("count", None)
                flows[-1].pop("count", None)
                return "duplicate flow name"

            def cc_twice() -> str:
                f["cc"] = "cubic"
                f.setdefault("tcp", {})["cc"] = "vegas"
                return f"flows.{i}.cc and tcp.cc"

            def rre_order() -> str:
                f.setdefault("tcp", {}).update(rre_b_min="50ms", rre_threshold="40ms", rre_b_max="60ms")
                return f"flows.{i}.tcp rre_b_min > rre_threshold"

            def pair() -> str:
                f["pair"] = r.choice([-1, 10**6, "0"])
                return f"flows.{i}.pair out of range"

            def read_bad() -> str:
                f["read"] = r.choice([{"pattern": [], "slot": "1s"}, {"pattern": ["1Mbit/s"]}, {"rate": "1Mbit/s", "slot": "1s"},
                                      {"tick": "1ms"}, "fast", {"pattern": ["0Mbit/s"], "slot": "1s", "tick": "0ms"}, 5])
                return f"flows.{i}.read = {f['read']!r}"

            def pauses_bad() -> str:
                f["start"] = "1s"
                f.pop("start_spacing", None)
                f["pauses"] = r.choice([[{"at": "2s", "until": "2s"}], [{"at": "3s", "until": "2s"}],
                                        [{"at": "2s", "until": "4s"}, {"at": "3s", "until": "5s"}],
                                        [{"at": "2s", "until": "3s"}, {"at": "1.5s", "until": "1.8s"}],
                                        [{"at": "0.5s", "until": "2s"}], [{"at": "2s"}], [{"until": "2s"}],
                                        {"at": "2s", "until": "3s"}, ["2s", "3s"], [{"at": "2s", "until": "3s", "rate": "1Mbit/s"}]])
                return f"flows.{i}.pauses = {f['pauses']!r}"

            ops += [start_after_end, connect_after_start, stop_before_start, same_node, unknown_node, duplicate_name, cc_twice,
                    rre_order, pair, read_bad, pauses_bad]
        if links:
            lp = r.choice(links)
            link = get_path(doc, lp)

            def rate_and_trace() -> str:
                link["rate"], link["trace"] = "1Mbit/s", "../traces/cellular/Verizon-LTE-short.down"
                return f"{dotted(lp)}: rate and trace"

            def slot_without_schedule() -> str:
                link.pop("trace", None)
                link["rate"], link["slot"] = "1Mbit/s", "1s"
                return f"{dotted(lp)}: slot with a fixed rate"

            def schedule_bad() -> str:
                link.pop("trace", None)
                link.pop("opportunity", None)
                link["rate"] = r.choice([[], ["0Mbit/s", "0bit/s"], ["1Mbit/s"]])
                if r.random() < 0.5:
                    link["slot"] = r.choice(["0s", "1s"])
                else:
                    link.pop("slot", None)
                return f"{dotted(lp)}: bad schedule {link['rate']}"

            def opportunity_on_rate() -> str:
                link.pop("trace", None)
                link.pop("slot", None)
                link["rate"], link["opportunity"] = "1Mbit/s", "1500B"
                return f"{dotted(lp)}: opportunity on a fixed rate"

            def delay_changes_order() -> str:
                link["delay_changes"] = r.choice([[{"at": "2s", "delay": "1ms"}, {"at": "1s", "delay": "1ms"}],
                                                  [{"at": "1s", "delay": "1ms"}, {"at": "1s", "delay": "2ms"}],
                                                  [{"at": "1s"}], {"at": "1s", "delay": "1ms"}, ["1s"]])
                return f"{dotted(lp)}.delay_changes damaged"

            def rate_changes_bad() -> str:
                which = r.randrange(3)
                if which == 0:  # on a schedule or a trace
                    link.pop("rate", None)
                    link.pop("slot", None)
                    link.pop("opportunity", None)
                    if r.random() < 0.5:
                        link["rate"], link["slot"] = ["1Mbit/s", "2Mbit/s"], "1s"
                    else:
                        link["trace"] = "../traces/cellular/Verizon-LTE-short.down"
                    link["rate_changes"] = [{"at": "1s", "rate": "1Mbit/s"}]
                    return f"{dotted(lp)}.rate_changes on a schedule or trace"
                link.pop("trace", None)
                link.pop("slot", None)
                link.pop("opportunity", None)
                link["rate"] = "1Mbit/s"
                if which == 1:
                    link["rate_changes"] = r.choice([[{"at": "2s", "rate": "1Mbit/s"}, {"at": "1s", "rate": "2Mbit/s"}],
                                                     [{"at": "1s", "rate": "1Mbit/s"}, {"at": "1s", "rate": "2Mbit/s"}]])
                    return f"{dotted(lp)}.rate_changes out of order"
                link["rate_changes"] = r.choice([[{"at": "1s", "rate": "0Mbit/s"}], [{"at": "1s", "rate": "-1Mbit/s"}], [{"at": "1s"}],
                                                 [{"rate": "1Mbit/s"}], {"at": "1s", "rate": "1Mbit/s"}, ["1Mbit/s"],
                                                 [{"at": "1s", "rate": "1Mbit/s", "delay": "1ms"}], [{"at": "1s", "rate": 1000000}]])
                return f"{dotted(lp)}.rate_changes = {link['rate_changes']!r}"

            def queue_bad() -> str:
                link["queue"] = r.choice([{"discipline": "drop_head"}, {"limit": "10pkts", "discipline": "red", "min_th": 15, "max_th": 5},
                                          {"limit": "10pkts", "discipline": "red", "max_p": 0}, {"limit": "10pkts", "discipline": "codel"}, "0pkts",
                                          {"limit": "unlimited", "discipline": "drop_tail", "x": 1}, "infinite", 100])
                return f"{dotted(lp)}.queue = {link['queue']!r}"

            def loss_bad() -> str:
                link["loss"] = r.choice([{"kind": "bernoulli"}, {"kind": "bernoulli", "p": 1.5}, {"kind": "gilbert_elliott", "p_good_to_bad": 0.1},
                                         {"kind": "markov", "p": 0.1}, {"p": 0.1}, "bernoulli", 0.1, {"kind": "none", "p": 0},
                                         {"kind": "periodic"}, {"kind": "periodic", "period": 0}, {"kind": "periodic", "period": 2.5},
                                         {"kind": "periodic", "period": 10, "offset": -1}])
                return f"{dotted(lp)}.loss = {link['loss']!r}"

            def no_rate() -> str:
                for k in ("rate", "trace", "slot", "opportunity"):
                    link.pop(k, None)
                return f"{dotted(lp)}: no rate"

            ops += [rate_and_trace, slot_without_schedule, schedule_bad, opportunity_on_rate, delay_changes_order, rate_changes_bad, queue_bad,
                    loss_bad, no_rate]
        topo = doc.get("topology")
        if isinstance(topo, dict) and topo.get("kind") == "custom":

            def custom_bad() -> str:
                which = r.randrange(5)
                if which == 0 and topo["nodes"]:
                    topo["nodes"].append(topo["nodes"][0])
                    return "duplicate node"
                if which == 1 and topo["links"]:
                    topo["links"][0]["to"] = topo["links"][0]["from"]
                    return "self link"
                if which == 2 and len(topo["links"]) > 1:
                    topo["links"][1]["name"] = topo["links"][0].get("name", f"{topo['links'][0]['from']}->{topo['links'][0]['to']}")
                    return "duplicate link name"
                if which == 3 and topo["links"]:
                    del topo["links"][0]
                    return "a link removed (a route may vanish)"
                topo["nodes"] = r.choice([[], "phone", [1, 2]])
                return "nodes damaged"

            ops.append(custom_bad)

        def whole() -> str:
            which = r.randrange(8)
            if which == 0:
                doc["flows"] = r.choice([[], {}, "flow", [1]])
                return "flows damaged"
            if which == 1:
                doc["topology"] = r.choice(["p2p", [], {"kind": "ring"}, {}])
                return "topology damaged"
            if which == 2:
                doc.pop("duration", None)
                return "no duration"
            if which == 3:
                doc["record"] = r.choice([{"pcap": ["nosuch"]}, {"pcap": [{"link": "downlink", "path": "../x.pcap"}]},
                                          {"pcap": [{"link": "downlink", "path": "/tmp/abs.pcap"}]}, {"interval": "0s"},
                                          {"pcap": "downlink"}, {"pcap": [{"path": "x.pcap"}]}, {"pcap": [{"link": "downlink", "path": "."}]}])
                return f"record = {doc['record']!r}"
            if which == 4:
                doc["defaults"] = r.choice([{"tcp": {"cc": "bbr"}}, {"read": "slow"}, {"tcp": 1}, {"flows": {}}, []])
                return f"defaults = {doc['defaults']!r}"
            if which == 5:
                doc["duration"] = r.choice(["0s", "0ns", "-1s", 0])
                return f"duration = {doc['duration']!r}"
            if which == 6 and isinstance(topo, dict):
                topo["kind"] = r.choice(["Point_to_point", "dumbell", "", 1])
                return f"topology.kind = {topo['kind']!r}"
            doc["flows"] = [{"src": "server", "dst": "client", "start": "1s"}] * 2
            return "flows replaced"

        ops.append(whole)
        return r.choice(ops)()

    # -- text-level damage: applied to the TOML file's bytes --------------------------
    def toml_syntax(self) -> str:
        op = self.r.choice(["delete_char", "insert_char", "dup_line", "truncate", "eq_to_colon", "bad_utf8", "bom", "nul", "cr",
                            "deep_inline", "empty", "whitespace", "long_key", "dup_table", "huge_file", "unterminated"])
        if op == "huge_file" and self.r.random() > 0.1:
            op = "truncate"  # a 16 MiB file per case would dominate the campaign's time
        self.c.text_ops.append((op, self.r.random(), self.r.choice("[]{}=\"'\n#,.\\")))
        return f"TOML damage: {op}"

    # -- trace files ---------------------------------------------------------------------
    def bad_trace(self) -> str:
        kinds = ["binary", "decreasing", "huge", "max+1", "empty", "zeros", "blank_middle", "negative", "float", "non_ascii", "crlf_only",
                 "directory", "missing", "dev_null", "nul", "utf16", "spaces_inside", "hex", "plus"]
        if self.r.random() < 0.02:
            kinds += ["fifo", "dev_zero"]
        kind = self.r.choice(kinds)
        name = f"bad-{kind}.down"
        rel = f"{self.c.cid}.files/{name}"
        content: bytes | None = {
            "binary": bytes(self.r.getrandbits(8) for _ in range(self.r.randint(1, 2000))),
            "decreasing": b"1\n5\n3\n10\n",
            "huge": b"1\n99999999999999999999999\n",
            "max+1": f"1\n{U64 // MS + 1}\n".encode(),
            "empty": b"",
            "zeros": b"0\n0\n0\n",
            "blank_middle": b"1\n\n2\n",
            "negative": b"-1\n5\n",
            "float": b"1.5\n3\n",
            "non_ascii": "١\n٢\n".encode(),
            "crlf_only": b"\r\n\r\n",
            "nul": b"1\n\x002\n",
            "utf16": "1\n2\n".encode("utf-16"),
            "spaces_inside": b"1 2\n3\n",
            "hex": b"0x10\n",
            "plus": b"+5\n",
        }.get(kind)
        if kind == "directory":
            self.c.special.append(("dir", rel))
        elif kind == "fifo":
            self.c.special.append(("fifo", rel))
        elif kind == "missing":
            rel = f"{self.c.cid}.files/nope/missing.down"
        elif kind == "dev_null":
            rel = "/dev/null"
        elif kind == "dev_zero":
            rel = "/dev/zero"
        else:
            assert content is not None
            self.c.files[rel] = content
        if kind not in ("fifo", "dev_zero"):
            self.c.trace_checks.append(rel)
        links = self.link_paths()
        if not links:
            return "bad trace: no link"
        lp = self.r.choice(links)
        link = get_path(self.c.doc, lp)
        for k in ("rate", "slot"):
            link.pop(k, None)
        link["trace"] = rel
        return f"{dotted(lp)}.trace = {kind}"

    # -- overrides and command lines ----------------------------------------------------
    def bad_set(self) -> str:
        s = self.r.choice(BAD_SETS)
        self.c.overrides.append(s)
        return f"--set {s[:60]!r}"

    def bad_cmdline(self) -> str:
        r = self.r
        which = r.choice(["unknown_flag", "seed_missing", "seed_bad", "out_file", "out_in_file", "out_unwritable", "pcap_unknown",
                          "pcap_empty", "scenario_missing", "scenario_dir", "scenario_devnull", "scenario_binary", "example_missing",
                          "extra_positional", "set_missing", "scenario_fifo", "example_escape", "scenario_dash", "seed_nonascii"])
        run = ["run", "{scenario}", "--out", "{files}/out", "--no-plots"]
        val = ["validate", "{scenario}"]
        if which == "unknown_flag":
            run.append("--frobnicate")
            val.append("--frobnicate")
        elif which == "seed_missing":
            run.append("--seed")
        elif which == "seed_bad":
            run += ["--seed", r.choice(["-1", "abc", "18446744073709551616", "1.5", "", "0x10", " 1"])]
        elif which == "seed_nonascii":
            run += ["--seed", "١"]
        elif which == "out_file":
            self.c.files[f"{self.c.cid}.files/afile"] = b"keep me"
            run[3] = "{files}/afile"
        elif which == "out_in_file":
            self.c.files[f"{self.c.cid}.files/afile"] = b"keep me"
            run[3] = "{files}/afile/sub"
        elif which == "out_unwritable":
            run[3] = r.choice(["/proc/tcplab-fuzz", "/dev/null/x", "/sys/x"])
        elif which == "pcap_unknown":
            run += ["--pcap", r.choice(["nosuchlink", "../x", "downlink "])]
        elif which == "pcap_empty":
            run += ["--pcap", ""]
        elif which == "scenario_missing":
            run[1] = val[1] = "{files}/missing.toml"
        elif which == "scenario_dir":
            self.c.special.append(("dir", f"{self.c.cid}.files/adir"))
            run[1] = val[1] = "{files}/adir"
        elif which == "scenario_devnull":
            run[1] = val[1] = "/dev/null"
        elif which == "scenario_binary":
            self.c.files[f"{self.c.cid}.files/bin.toml"] = bytes(r.getrandbits(8) for _ in range(500))
            run[1] = val[1] = "{files}/bin.toml"
        elif which == "example_missing":
            run[1] = val[1] = r.choice(["example:nope", "example:", "example:afc/nope"])
        elif which == "example_escape":
            run[1] = val[1] = r.choice(["example:../../pyproject", "example:/etc/passwd", "example:examples/../afc/table3-s2"])
        elif which == "extra_positional":
            run.insert(2, "{scenario}")
        elif which == "set_missing":
            run.append("--set")
            val.append("--set")
        elif which == "scenario_fifo":
            if r.random() < 0.1:
                self.c.special.append(("fifo", f"{self.c.cid}.files/fifo.toml"))
                run[1] = val[1] = "{files}/fifo.toml"
            else:
                run[1] = val[1] = "{files}/missing.toml"
        elif which == "scenario_dash":
            run[1] = val[1] = "-"
        self.c.run_args, self.c.validate_args = run, val
        return f"command line: {which}"

    def mutate(self) -> None:
        ops = [(self.delete_key, 6), (self.wrong_type, 8), (self.bad_quantity, 8), (self.bad_number, 6), (self.non_ascii_digits, 3),
               (self.huge_value, 5), (self.unknown_key, 5), (self.nested_junk, 3), (self.string_junk, 4), (self.semantic, 14),
               (self.toml_syntax, 6), (self.bad_trace, 6), (self.bad_set, 5), (self.bad_cmdline, 4)]
        n = self.r.choices([1, 2, 3], [6, 3, 1])[0]
        for _ in range(n):
            op = self.r.choices([o for o, _ in ops], [w for _, w in ops])[0]
            try:
                self.c.mutations.append(op())
            except (KeyError, IndexError, TypeError, AttributeError, ValueError) as e:
                # The document was already damaged beyond this mutation's reach.
                self.c.mutations.append(f"{op.__name__}: skipped ({type(e).__name__})")


def apply_text_ops(text: bytes, ops: list[tuple[Any, ...]]) -> bytes:
    for op, frac, ch in ops:
        n = len(text)
        at = int(frac * n)
        if op == "delete_char" and n:
            text = text[:at] + text[at + 1:]
        elif op == "insert_char":
            text = text[:at] + ch.encode() + text[at:]
        elif op == "dup_line":
            lines = text.split(b"\n")
            k = int(frac * len(lines))
            lines.insert(k, lines[k] if k < len(lines) else b"")
            text = b"\n".join(lines)
        elif op == "truncate":
            text = text[:at]
        elif op == "eq_to_colon":
            text = text.replace(b" = ", b": ", 1)
        elif op == "bad_utf8":
            text = text[:at] + b"\xff\xfe\xc3" + text[at:]
        elif op == "bom":
            text = b"\xef\xbb\xbf" + text
        elif op == "nul":
            text = text[:at] + b"\x00" + text[at:]
        elif op == "cr":
            text = text.replace(b"\n", b"\r", 1)
        elif op == "deep_inline":
            text += b"\n[zz]\nx = " + b"[" * 500 + b"]" * 500 + b"\n"
        elif op == "empty":
            text = b""
        elif op == "whitespace":
            text = b" \n\t\n"
        elif op == "long_key":
            text = b"k" * 100_000 + b" = 1\n" + text
        elif op == "dup_table":
            text += b"\n[topology]\nkind = \"point_to_point\"\n"
        elif op == "huge_file":
            text += b"\n# " + b"x" * (16 * 2**20) + b"\n"
        elif op == "unterminated":
            text = text[:at] + b'"' + text[at:]
    return text


# ======================================================================================
# Context shared by the cases.


@dataclass
class Ctx:
    out: Path
    seed: int
    timeout: float
    mem_mb: int
    exec_mode: str
    variants: dict[str, list[str]]
    shipped: dict[str, float]  # shipped trace name -> peak bit/s at 1500 B
    tcplab_exe: list[str]
    keep_per_signature: int = 3
    tcp_keys: tuple[str, ...] = ()  # the TCP keys the scenario reader knows

    @property
    def cases_dir(self) -> Path:
        return self.out / "cases"


def preimport() -> None:
    """Everything a run imports lazily, imported once before the forks (each forked case
    would otherwise pay for pandas, pyarrow and matplotlib again)."""
    import matplotlib

    matplotlib.use("Agg")
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import tcplab  # noqa: F401
    import tcplab.cli  # noqa: F401
    import tcplab.plots  # noqa: F401
    import tcplab.runner  # noqa: F401


def make_ctx(out: Path, seed: int, timeout: float, mem_mb: int, exec_mode: str, keep: int = 3) -> Ctx:
    preimport()
    from tcplab.data import TRACE_DIR
    from tcplab.scenario import variants

    out.mkdir(parents=True, exist_ok=True)
    (out / "traces" / "cellular").mkdir(parents=True, exist_ok=True)
    (out / "cases").mkdir(exist_ok=True)
    (out / "failures").mkdir(exist_ok=True)
    shipped: dict[str, float] = {}
    for p in sorted((TRACE_DIR / "cellular").glob("*")):
        if p.suffix in (".down", ".up"):
            dest = out / "traces" / "cellular" / p.name
            data = p.read_bytes()
            if not dest.exists() or dest.stat().st_size != len(data):
                dest.write_bytes(data)
            ms = [int(x) for x in data.split()]
            shipped[p.name] = trace_peak_bps(ms, 1500)
    exe = Path(sys.executable).parent / "tcplab"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "tcplab"]
    from tcplab.scenario import TCP_KEYS

    return Ctx(out=out, seed=seed, timeout=timeout, mem_mb=mem_mb, exec_mode=exec_mode, variants=variants(), shipped=shipped,
               tcplab_exe=cmd, keep_per_signature=keep, tcp_keys=tuple(TCP_KEYS))


def generate(ctx: Ctx, mode: str, index: int) -> Case:
    """Case ``index`` of ``mode``: a pure function of (seed, mode, index)."""
    rng = case_rng(ctx.seed, mode, index)
    g = Gen(rng, ctx)
    doc = g.scenario()
    case = Case(mode=mode, index=index, doc=doc, files=dict(g.files), used=set(g.used))
    case.run_seed = rng.choice([None, None, 0, rng.getrandbits(64)])
    case.use_dict = rng.random() < 0.25
    case.write_outputs = rng.choices([None, "plain", "plots"], [85, 10, 5])[0]
    if mode == "malformed":
        Mutator(rng, ctx, case).mutate()
    return case


# ======================================================================================
# Running cases.


def normalise(msg: str, cid: str = "") -> str:
    """A failure's signature: its message with names, numbers and paths abstracted."""
    if cid:
        msg = msg.replace(f"{cid}.toml", "<scenario>").replace(f"{cid}.files", "<files>")
    msg = re.sub(r"^<dict>", "<scenario>", msg)
    # the key path of a scenario error ("<scenario>: flows[0].tcp.mss: ...") is not the bug
    msg = re.sub(r"(<scenario>|<path>): [\w\[\].\- ()]+?( \(set by --set [^)]*\))?: ", r"\1: <key>: ", msg)
    msg = msg.split("; ")[0]  # what follows lists alternatives (nodes, units, keys)
    msg = re.sub(r"\S*<scenario>", "<scenario>", msg)
    msg = re.sub(r"(found|got) '.*", r"\1 '…'", msg)
    msg = re.sub(r"thread '[^']*' \(\d+\) ", "", msg)
    msg = re.sub(r"(?<![\w<])(/[^\s:'\"]+)+", "<path>", msg)
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r'"[^"]*"', '"…"', msg)
    msg = re.sub(r"\d+(\.\d+)?(e[+-]?\d+)?", "N", msg)
    return msg[:240]


def failure(cls: str, message: str, **kw: Any) -> dict[str, Any]:
    return {"class": cls, "message": message[:4000], **kw}


def exc_failure(e: BaseException, where: str) -> dict[str, Any]:
    name = type(e).__name__
    tb = "".join(traceback.format_exception(e))[-3000:]
    cls = "panic" if name == "PanicException" else "traceback"
    return failure(cls, f"{where}: {name}: {str(e)[:500]}", traceback=tb)


def write_case_files(ctx: Ctx, case: Case) -> Path:
    """Writes the scenario file, its trace files and special files; returns the TOML path."""
    cases = ctx.cases_dir
    for rel, data in case.files.items():
        p = ctx.out / rel if rel.startswith("traces/") else cases / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if rel.startswith("traces/") and p.exists():
            continue
        tmp = p.with_name(p.name + f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, p)
    for kind, rel in case.special:
        p = cases / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if kind == "dir":
            p.mkdir(exist_ok=True)
        elif kind == "fifo" and not p.exists():
            os.mkfifo(p)
    (cases / f"{case.cid}.files").mkdir(exist_ok=True)
    text = toml_dumps(case.doc, inline_depth=2 if case.index % 3 else 1).encode()
    text = apply_text_ops(text, case.text_ops)
    path = cases / f"{case.cid}.toml"
    path.write_bytes(text)
    return path


def absolutise(doc: Any, base: Path) -> Any:
    """Trace paths and workload files (arrival times, size CDFs) made absolute, for
    ``tcplab.load(dict)`` (paths relative to the cwd); pcap paths stay relative to the run's
    output folder."""
    if isinstance(doc, dict):
        def is_file(k: str, v: Any) -> bool:
            return isinstance(v, str) and (k == "trace" or (k == "path" and doc.get("kind") in ("file", "cdf")))

        return {k: (str((base / v).resolve()) if is_file(k, v) else absolutise(v, base)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [absolutise(x, base) for x in doc]
    return doc


def _strip_wall(summary: dict[str, Any]) -> dict[str, Any]:
    s = dict(summary)
    s.pop("wall_s", None)
    return s


def _has_nonfinite(v: Any) -> bool:
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, dict):
        return any(_has_nonfinite(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_nonfinite(x) for x in v)
    return False


def run_valid(ctx: Ctx, case: Case, path: Path) -> list[dict[str, Any]]:
    import tcplab
    from tcplab.errors import ScenarioError, SimulationError

    files = ctx.cases_dir / f"{case.cid}.files"
    try:
        sc = tcplab.load(absolutise(case.doc, ctx.cases_dir) if case.use_dict else path)
    except ScenarioError as e:
        return [failure("refused-valid", str(e))]
    except BaseException as e:  # noqa: BLE001 - classified
        return [exc_failure(e, "load")]
    results = []
    for k in (1, 2):
        try:
            results.append(tcplab.run(sc, seed=case.run_seed, pcap_dir=files / f"pcap{k}"))
        except SimulationError as e:
            cls = "rejected-at-run" if e.kind in ("config", "trace", "scenario_json") else "sim-error"
            return [failure(cls, f"{e.kind}: {e}")]
        except BaseException as e:  # noqa: BLE001
            return [exc_failure(e, f"run {k}")]
    a, b = results
    out: list[dict[str, Any]] = []
    if not a.ok:
        v = a.summary.get("invariants", {}).get("violations", [])
        out.append(failure("invariant", "; ".join(map(str, v))[:3000] or "invariants.ok is false", violations=v[:20]))
    diffs = []
    if _strip_wall(a.summary) != _strip_wall(b.summary):
        diffs.append("summary")
    if a._ts_raw != b._ts_raw:
        diffs.append("timeseries")
    if a.owd_cdf != b.owd_cdf:
        diffs.append("owd_cdf")
    for spec in sc.canonical["record"]["pcap"]:
        pa, pb = files / "pcap1" / spec["path"], files / "pcap2" / spec["path"]
        if pa.read_bytes() != pb.read_bytes():
            diffs.append(f"pcap {spec['path']}")
    if diffs:
        out.append(failure("nondeterminism", "two runs differ in " + ", ".join(diffs)))
    if _has_nonfinite(a.summary):
        out.append(failure("bad-output", "summary holds NaN or Infinity (summary.json would not be standard JSON)"))
    if case.write_outputs:
        try:
            a.write(files / "written", plots=case.write_outputs == "plots")
            _ = a.timeseries
        except BaseException as e:  # noqa: BLE001
            f = exc_failure(e, "Result.write")
            if f["class"] == "traceback":
                f["class"] = "bad-output"
            out.append(f)
    return out


# -- the CLI --------------------------------------------------------------------------------


@dataclass
class CliResult:
    argv: list[str]
    rc: int | None  # None: killed by the watchdog
    stdout: str
    stderr: str
    wall: float
    signal: int | None = None


def _limit_memory(mb: int) -> None:
    if mb > 0:
        resource.setrlimit(resource.RLIMIT_AS, (mb * 2**20, mb * 2**20))


def _wait(pid: int, timeout: float) -> tuple[int | None, int | None]:
    """(exit code, signal) of a child, or (None, None) after killing it at the timeout."""
    fd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([fd], [], [], max(0.0, timeout))
    finally:
        os.close(fd)
    if not ready:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        return None, None
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), os.WTERMSIG(status)
    return os.WEXITSTATUS(status), None


def run_cli_fork(ctx: Ctx, argv: list[str], cwd: Path, timeout: float) -> CliResult:
    """``tcplab ARGV`` in a forked child of this process (tcplab and its dependencies already
    imported): what the console script does, minus the interpreter start-up."""
    so, se = cwd / f".stdout.{os.getpid()}", cwd / f".stderr.{os.getpid()}"
    t0 = time.monotonic()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        rc = 1
        try:
            os.setpgid(0, 0)
            _limit_memory(ctx.mem_mb)
            os.chdir(cwd)
            for fd, p in ((1, so), (2, se)):
                f = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(f, fd)
                os.close(f)
            import io

            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=False)
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace",
                                          line_buffering=True)
            sys.argv = ["tcplab", *argv]
            from tcplab.cli import main

            try:
                code = main(argv)
                rc = 0 if code is None else int(code)
            except SystemExit as e:
                if e.code is None:
                    rc = 0
                elif isinstance(e.code, int):
                    rc = e.code
                else:
                    print(e.code, file=sys.stderr)
                    rc = 1
            except BaseException:  # noqa: BLE001 - as the interpreter does at top level
                traceback.print_exc()
                rc = 1
        except BaseException:  # noqa: BLE001
            try:
                traceback.print_exc()
            except BaseException:  # noqa: BLE001
                pass
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:  # noqa: BLE001
                pass
            os._exit(rc & 0xFF)
    rc, sig = _wait(pid, timeout)
    out = so.read_bytes().decode("utf-8", "replace") if so.exists() else ""
    err = se.read_bytes().decode("utf-8", "replace") if se.exists() else ""
    for p in (so, se):
        p.unlink(missing_ok=True)
    return CliResult(argv, rc, out, err, time.monotonic() - t0, sig)


def run_cli_subprocess(ctx: Ctx, argv: list[str], cwd: Path, timeout: float) -> CliResult:
    t0 = time.monotonic()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([*ctx.tcplab_exe, *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         start_new_session=True, preexec_fn=lambda: _limit_memory(ctx.mem_mb))
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return CliResult(argv, None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - t0)
    rc = p.returncode
    return CliResult(argv, rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - t0,
                     -rc if rc < 0 else None)


def _head_tail(text: str, n: int = 1500) -> str:
    return text if len(text) <= 2 * n else text[:n] + "\n[...]\n" + text[-n:]


def _is_warning_line(line: str) -> bool:
    """A Python warning (``file:line: SomeWarning: text``) or the source line it quotes."""
    return bool(re.search(r":\d+: \w*Warning: ", line)) or line.startswith("  ")


def check_contract(res: CliResult, out_dir: Path | None, cmd: str) -> list[dict[str, Any]]:
    """The exit-code contract of docs/cli.md for one invocation on (maybe) bad input."""
    where = f"tcplab {cmd}"
    err_lines = res.stderr.splitlines()
    if res.rc is None:
        return [failure("hang", f"{where}: no exit after {res.wall:.0f} s")]
    if "panicked at" in res.stderr or "PanicException" in res.stderr:
        msg = next((l for l in err_lines if "PanicException" in l), None)
        if msg is None:  # the line after "thread ... panicked at FILE:LINE:COL:" is the message
            i = next(i for i, l in enumerate(err_lines) if "panicked at" in l)
            msg = " ".join(err_lines[i:i + 2])
        return [failure("panic", f"{where}: {msg}", stderr=_head_tail(res.stderr))]
    if res.signal is not None:
        return [failure("crash", f"{where}: killed by signal {res.signal} ({signal.Signals(res.signal).name}): {res.stderr.strip()[-300:]}",
                        stderr=_head_tail(res.stderr))]
    if "Traceback (most recent call last)" in res.stderr:
        last = next((l for l in reversed(err_lines) if l.strip()), "")
        return [failure("traceback", f"{where}: {last}", stderr=_head_tail(res.stderr))]
    if res.rc == 2:
        # Usage errors (argparse) follow the same one-line contract as every other bad input.
        # Lines as a terminal or `grep` sees them: "\n" ends one, a "\r" rewrites it.
        lines = res.stderr.split("\n")
        first = lines[0]
        if not res.stderr.startswith("error: "):
            problem = "stderr does not start with 'error: '"
        elif len(lines) != 2 or lines[1] != "":
            problem = f"{len([l for l in lines if l])} lines on stderr"
        elif "\r" in first:
            problem = "a carriage return inside the error line"
        elif any(ord(ch) < 32 and ch != "\t" or 0x7F <= ord(ch) < 0xA0 for ch in first):
            problem = "control characters in the error line"
        elif res.stdout:
            problem = "stdout not empty"
        else:
            problem = ""
        if problem:
            shown = re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m.group()):02x}", first[:400])
            return [failure("contract", f"{where}: {problem}: {shown}", stderr=res.stderr[:3000], stdout=res.stdout[:1000])]
        if out_dir is not None and out_dir.exists():
            return [failure("wrote-output", f"{where}: exit 2 but {out_dir.name}/ was written: {sorted(p.name for p in out_dir.iterdir())[:10]}")]
        return []
    if res.rc == 0:
        probs = []
        if cmd == "validate" and not (res.stdout.startswith("ok: ") and res.stdout.count("\n") == 1):
            probs.append(f"validate exit 0 without one 'ok:' line: {res.stdout[:200]!r}")
        noise = [l for l in err_lines if l.strip() and not _is_warning_line(l)]
        if noise:
            probs.append(f"exit 0 with stderr: {res.stderr[:300]!r}")
        if cmd == "run" and out_dir is not None:
            missing = [n for n in ("summary.json", "scenario.json", "timeseries.parquet") if not (out_dir / n).exists()]
            if missing:
                probs.append(f"exit 0 but {missing} not written")
        return [failure("contract", f"{where}: " + "; ".join(probs))] if probs else []
    if res.rc == 3:
        return [failure("invariant", f"{where}: exit 3: " + " ".join(l.strip() for l in err_lines if l.strip().startswith("- "))[:2000])]
    if res.rc == 1 and cmd == "run" and len(err_lines) == 1 and err_lines[0].startswith("error: ") and (
            "event budget" in res.stderr or "cannot write" in res.stderr):
        return []  # exit 1 as documented: the event budget ran out, or writing the outputs failed
    return [failure("contract", f"{where}: exit {res.rc} (expected 2, or 0 for input that stayed valid): {res.stderr[-400:]!r}")]


def run_malformed(ctx: Ctx, case: Case, path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    cwd = ctx.cases_dir
    files = f"{case.cid}.files"
    sets = [a for s in case.overrides for a in ("--set", s)]
    val = case.validate_args or ["validate", "{scenario}"]
    run = case.run_args or ["run", "{scenario}", "--out", "{files}/out", "--no-plots"]
    if case.write_outputs == "plots" and "--no-plots" in run:
        run = [a for a in run if a != "--no-plots"]
    if case.run_seed is not None and case.run_args is None:
        run = run + ["--seed", str(case.run_seed)]
    fill = lambda args: [a.replace("{scenario}", path.name).replace("{files}", files) for a in args]  # noqa: E731
    invocations = [("validate", fill(val) + sets, None), ("run", fill(run) + sets, None)]
    if "--out" in run:
        invocations[1] = ("run", invocations[1][1], cwd / fill([run[run.index("--out") + 1]])[0])
    for rel in case.trace_checks:  # the trace parser through `tcplab trace-info` too
        invocations.append(("trace-info", ["trace-info", rel], None))
    runner = run_cli_fork if ctx.exec_mode == "fork" else run_cli_subprocess
    fails: list[dict[str, Any]] = []
    log: list[dict[str, Any]] = []
    notes: list[str] = []
    rcs = {}
    for cmd, argv, out_dir in invocations:
        pre_existing = out_dir is not None and out_dir.exists()
        res = runner(ctx, argv, cwd, ctx.timeout)
        f = check_contract(res, None if pre_existing else out_dir, cmd)
        if f and ctx.exec_mode == "fork" and f[0]["class"] != "hang":
            # Confirm with a real process (the console script): the fork is only a shortcut.
            if out_dir is not None and out_dir.exists() and not pre_existing:
                shutil.rmtree(out_dir, ignore_errors=True)
            res2 = run_cli_subprocess(ctx, argv, cwd, ctx.timeout)
            f2 = check_contract(res2, None if pre_existing else out_dir, cmd)
            if not f2:
                f = [failure("exec-divergence", f"tcplab {cmd}: forked: {f[0]['message'][:500]} / subprocess: exit {res2.rc}")]
            else:
                res, f = res2, f2
        for x in f:
            x["argv"] = argv
        fails += f
        rcs[cmd] = (res.rc, res.stderr.strip())
        if res.rc == 0:
            notes += sorted({re.sub(r"^.*?:\d+: ", "", l)[:200] for l in res.stderr.splitlines() if _is_warning_line(l) and not l.startswith("  ")})
        log.append({"argv": argv, "rc": res.rc, "stdout": res.stdout[-2000:], "stderr": res.stderr[-3000:], "wall": round(res.wall, 3)})
    v, r = rcs.get("validate"), rcs.get("run")  # trace-info is checked on its own
    plain_run = case.run_args is None and case.validate_args is None
    if v and r and plain_run and not fails:
        if (v[0] == 0) != (r[0] in (0, 3)) and not (v[0] == 0 and r[0] == 1):
            fails.append(failure("validate-run-mismatch", f"validate exit {v[0]} ({v[1][:300]}) but run exit {r[0]} ({r[1][:300]})",
                                 argv=invocations[1][1]))
        elif v[0] == 2 and r[0] == 2 and v[1] != r[1]:
            fails.append(failure("validate-run-mismatch", f"different messages: validate: {v[1][:300]} / run: {r[1][:300]}",
                                 argv=invocations[1][1]))
    usage = any(x["stderr"].startswith("error: tcplab") and "--help)" in x["stderr"] for x in log)
    notes.append("outcome: " + ("usage error" if usage else " ".join(f"{c}={rc}" for c, (rc, _) in rcs.items() if c != "trace-info")))
    return fails, log, notes


def execute(ctx: Ctx, case: Case) -> dict[str, Any]:
    """Runs one case in this process (a forked child); returns its outcome."""
    t0 = time.monotonic()
    log: list[dict[str, Any]] = []
    notes: list[str] = []
    try:
        path = write_case_files(ctx, case)
        if case.mode == "valid":
            import warnings

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fails = run_valid(ctx, case, path)
            notes = sorted({f"{w.category.__name__}: {w.message}"[:200] for w in caught})
        else:
            fails, log, notes = run_malformed(ctx, case, path)
    except BaseException as e:  # noqa: BLE001 - a bug in the fuzzer, reported as such
        fails = [failure("fuzzer-error", f"{type(e).__name__}: {e}", traceback=traceback.format_exc()[-3000:])]
    for f in fails:
        f["signature"] = f"{f['class']}: {normalise(f['message'], case.cid)}"
    return {"mode": case.mode, "index": case.index, "failures": fails, "wall": time.monotonic() - t0, "used": sorted(case.used),
            "mutations": case.mutations, "invocations": log, "run_seed": case.run_seed, "use_dict": case.use_dict,
            "notes": notes}


# ======================================================================================
# The scheduler: one forked child per case, a watchdog on each.


class Campaign:
    def __init__(self, ctx: Ctx, jobs: int, quiet: bool = False, execute_fn: Callable[[Ctx, Case], dict[str, Any]] = execute,
                 generate_fn: Callable[[Ctx, str, int], Case] = generate):
        self.ctx = ctx
        self.jobs = max(1, jobs)
        self.quiet = quiet
        self.execute_fn = execute_fn
        self.generate_fn = generate_fn
        self.cases = Counter()  # mode -> cases run
        self.failed_cases = Counter()  # mode -> cases with at least one failure
        self.by_class = Counter()  # class -> failures
        self.by_class_mode: Counter = Counter()
        self.signatures: dict[str, dict[str, Any]] = {}
        self.coverage: Counter = Counter()
        self.notes: Counter = Counter()  # warnings and other non-failures, by message
        self.walls: list[tuple[float, str]] = []
        self.wall = 0.0

    def case_timeout(self, mode: str) -> float:
        return self.ctx.timeout * (1 if mode == "valid" else 5) + min(10.0, 2 + self.ctx.timeout)

    def _child(self, mode: str, index: int) -> None:  # pragma: no cover - runs in the fork
        code = 0
        try:
            os.setpgid(0, 0)
            _limit_memory(self.ctx.mem_mb)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            res_path = self.ctx.cases_dir / f"{mode}-{index}.result.json"
            err_path = self.ctx.cases_dir / f"{mode}-{index}.stderr"
            sys.stderr.flush()
            fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)  # Rust panic messages and warnings: kept with the case, not on the console
            os.close(fd)
            try:
                case = self.generate_fn(self.ctx, mode, index)
                res = self.execute_fn(self.ctx, case)
            except BaseException as e:  # noqa: BLE001
                res = {"mode": mode, "index": index, "wall": 0, "used": [], "mutations": [], "invocations": [],
                       "failures": [{"class": "fuzzer-error", "message": f"{type(e).__name__}: {e}", "signature": f"fuzzer-error: {type(e).__name__}",
                                     "traceback": traceback.format_exc()[-3000:]}]}
            tmp = res_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(res, default=str))
            os.replace(tmp, res_path)
        except BaseException:  # noqa: BLE001
            code = 70
        os._exit(code)

    def run(self, modes: list[str], seconds: float, max_cases: int | None, only: int | None = None) -> None:
        t0 = time.monotonic()
        deadline = t0 + seconds
        plan: list[tuple[str, int]] = []
        next_index = {m: 0 for m in modes}
        if only is not None:
            plan = [(m, only) for m in modes]

        def next_case() -> tuple[str, int] | None:
            if only is not None:
                return plan.pop(0) if plan else None
            if time.monotonic() >= deadline:
                return None
            cands = [m for m in modes if max_cases is None or next_index[m] < max_cases]
            if not cands:
                return None
            m = min(cands, key=lambda m: next_index[m])  # interleave the modes
            i = next_index[m]
            next_index[m] += 1
            return m, i

        running: dict[int, tuple[str, int, float]] = {}  # pid -> (mode, index, started)
        fds: dict[int, int] = {}
        last_print = t0
        try:
            while True:
                while len(running) < self.jobs:
                    nc = next_case()
                    if nc is None:
                        break
                    mode, index = nc
                    sys.stdout.flush()
                    sys.stderr.flush()
                    pid = os.fork()
                    if pid == 0:  # pragma: no cover
                        self._child(mode, index)
                    running[pid] = (mode, index, time.monotonic())
                    fds[pid] = os.pidfd_open(pid)
                if not running:
                    break
                now = time.monotonic()
                wait = min(started + self.case_timeout(m) - now for m, _, started in running.values())
                ready, _, _ = select.select(list(fds.values()), [], [], max(0.0, min(wait, 2.0)))
                now = time.monotonic()
                for pid, (mode, index, started) in list(running.items()):
                    overdue = now - started > self.case_timeout(mode)
                    if fds[pid] not in ready and not overdue:
                        continue
                    if overdue and fds[pid] not in ready:
                        try:
                            os.killpg(pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                    _, status = os.waitpid(pid, 0)
                    os.close(fds.pop(pid))
                    del running[pid]
                    self._collect(mode, index, status, overdue and not os.WIFEXITED(status), now - started)
                if not self.quiet and time.monotonic() - last_print > 10:
                    last_print = time.monotonic()
                    print(f"  {sum(self.cases.values())} cases, {sum(self.by_class.values())} failures, "
                          f"{last_print - t0:.0f} s", file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            for pid in running:
                try:
                    os.killpg(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
            print("interrupted", file=sys.stderr)
        self.wall = time.monotonic() - t0

    def _collect(self, mode: str, index: int, status: int, killed: bool, wall: float) -> None:
        cid = f"{mode}-{index}"
        res_path = self.ctx.cases_dir / f"{cid}.result.json"
        res: dict[str, Any]
        if res_path.exists():
            res = json.loads(res_path.read_text())
        elif killed:
            res = {"mode": mode, "index": index, "wall": wall, "used": [], "mutations": [], "invocations": [],
                   "failures": [failure("hang", f"case ran past its watchdog ({self.case_timeout(mode):.0f} s) and was killed")]}
        else:
            sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
            what = f"signal {sig} ({signal.Signals(sig).name})" if sig else f"exit {os.WEXITSTATUS(status)} without a result"
            res = {"mode": mode, "index": index, "wall": wall, "used": [], "mutations": [], "invocations": [],
                   "failures": [failure("crash", f"the case process died: {what}")]}
        err_path = self.ctx.cases_dir / f"{cid}.stderr"
        if res["failures"] and err_path.exists():
            tail = _head_tail(err_path.read_bytes().decode("utf-8", "replace"))
            for f in res["failures"]:
                if tail.strip():
                    f.setdefault("stderr", tail)
        for f in res["failures"]:
            f.setdefault("signature", f"{f['class']}: {normalise(f['message'], cid)}")
        self.cases[mode] += 1
        self.coverage.update(res.get("used", []))
        self.notes.update(res.get("notes", []))
        self.walls.append((res.get("wall", wall), cid))
        if res["failures"]:
            self.failed_cases[mode] += 1
            self._store(cid, res)
        self._cleanup(cid)

    def _store(self, cid: str, res: dict[str, Any]) -> None:
        fdir = self.ctx.out / "failures"
        seen_classes = set()
        for f in res["failures"]:
            cls = f["class"]
            if cls in seen_classes:
                continue
            seen_classes.add(cls)
            self.by_class[cls] += 1
            self.by_class_mode[(res["mode"], cls)] += 1
            sig = self.signatures.setdefault(f["signature"], {"class": cls, "mode": res["mode"], "count": 0, "examples": []})
            sig["count"] += 1
            if len(sig["examples"]) >= self.ctx.keep_per_signature:
                continue
            n = self.by_class[cls]
            name = f"{cls}-{n}"
            src = self.ctx.cases_dir / f"{cid}.toml"
            if src.exists():
                shutil.copyfile(src, fdir / f"{name}.toml")
            files = self.ctx.cases_dir / f"{cid}.files"
            if files.exists() and any(files.iterdir()):
                dest = fdir / f"{cid}.files"
                if not dest.exists():
                    shutil.copytree(files, dest, symlinks=True, ignore=shutil.ignore_patterns("pcap1", "pcap2", "written", "out", "*.pcap"),
                                    ignore_dangling_symlinks=True, copy_function=_copy_regular)
            (fdir / f"{name}.cmd").write_text(reproduce_text(self.ctx, res, f, name, cid))
            (fdir / f"{name}.json").write_text(json.dumps({**res, "failure": f}, indent=2, default=str))
            sig["examples"].append(f"failures/{name}.toml")

    def _cleanup(self, cid: str) -> None:
        cases = self.ctx.cases_dir
        for p in (cases / f"{cid}.toml", cases / f"{cid}.result.json", cases / f"{cid}.result.tmp", cases / f"{cid}.stderr"):
            p.unlink(missing_ok=True)
        shutil.rmtree(cases / f"{cid}.files", ignore_errors=True)

    # -- reporting -------------------------------------------------------------------
    def report(self) -> dict[str, Any]:
        total = sum(self.cases.values())
        return {
            "seed": self.ctx.seed,
            "wall_s": round(self.wall, 1),
            "cases": dict(self.cases),
            "cases_per_s": round(total / self.wall, 2) if self.wall else None,
            "failed_cases": dict(self.failed_cases),
            "failures_by_class": dict(self.by_class),
            "failures_by_mode_and_class": {f"{m}/{c}": n for (m, c), n in self.by_class_mode.items()},
            "signatures": self.signatures,
            "slowest": sorted(self.walls, reverse=True)[:10],
            "coverage": dict(sorted(self.coverage.items())),
            "notes": dict(self.notes.most_common(50)),
        }

    def print_table(self, file: Any = sys.stdout) -> None:
        total = sum(self.cases.values())
        rate = total / self.wall if self.wall else 0.0
        print(f"\ntcplab fuzz: seed {self.ctx.seed}, {total} cases in {self.wall:.1f} s ({rate:.1f} cases/s), out {self.ctx.out}", file=file)
        modes = sorted(self.cases)
        print(f"{'class':<22}" + "".join(f"{m:>12}" for m in modes) + f"{'total':>10}", file=file)
        print(f"{'cases':<22}" + "".join(f"{self.cases[m]:>12}" for m in modes) + f"{total:>10}", file=file)
        print(f"{'cases failed':<22}" + "".join(f"{self.failed_cases[m]:>12}" for m in modes) + f"{sum(self.failed_cases.values()):>10}", file=file)
        for cls in ALL_CLASSES:
            row = [self.by_class_mode[(m, cls)] for m in modes]
            if cls in self.by_class or cls in ("panic", "traceback", "invariant", "nondeterminism", "hang", "contract"):
                print(f"{cls:<22}" + "".join(f"{n:>12}" for n in row) + f"{self.by_class[cls]:>10}", file=file)
        if self.signatures:
            print(f"\n{len(self.signatures)} distinct failures (class: normalised message; count; first reproducer):", file=file)
            for sig, d in sorted(self.signatures.items(), key=lambda kv: -kv[1]["count"]):
                ex = d["examples"][0] if d["examples"] else "-"
                print(f"  [{d['mode']}] {sig[:200]}\n      x{d['count']}  {ex}", file=file)


def _copy_regular(src: str, dst: str) -> None:
    if stat_is_regular(src):
        shutil.copy2(src, dst)


def stat_is_regular(p: str) -> bool:
    import stat as st

    try:
        return st.S_ISREG(os.lstat(p).st_mode)
    except OSError:
        return False


def reproduce_text(ctx: Ctx, res: dict[str, Any], f: dict[str, Any], name: str, cid: str) -> str:
    fuzz = shlex.quote(str(Path(__file__).resolve()))
    py = shlex.quote(sys.executable)
    lines = [f"# {f['class']}: {f['message'][:1000]}", f"# case {cid} of seed {ctx.seed}; mutations: {res.get('mutations')}",
             f"# re-run the case:  {py} {fuzz} --mode {res['mode']} --seed {ctx.seed} --only {res['index']} --out /tmp/tcplab-fuzz-replay",
             f"cd {shlex.quote(str((ctx.out / 'failures').resolve()))}"]
    if res["mode"] == "valid":
        seed = res.get("run_seed")
        lines.append(shlex.join([*ctx.tcplab_exe, "run", f"{name}.toml", "--out", f"/tmp/tcplab-fuzz-{name}", "--no-plots"])
                     + ("" if seed is None else f" --seed {seed}"))
        lines.append(f"# or: {py} -c 'import tcplab; r = tcplab.run(tcplab.load(\"{name}.toml\"), seed={seed}); "
                     "print(r.ok, r.summary[\"invariants\"])'")
    else:
        argv = [a.replace(f"{cid}.toml", f"{name}.toml") for a in f.get("argv") or []]
        if argv:
            lines.append(shlex.join([*ctx.tcplab_exe, *argv]))
        for inv in res.get("invocations", []):
            lines.append(f"#   {shlex.join(inv['argv'])[:300]} -> exit {inv['rc']}: {inv['stderr'][-300:]!r}")
    return "\n".join(lines) + "\n"


# ======================================================================================
# Documented keys (docs/scenarios.md) against the generator's coverage.


def documented_keys(doc_path: Path = REPO / "docs" / "scenarios.md") -> set[str]:
    """Every key named in the first column of docs/scenarios.md's tables."""
    keys: set[str] = set()
    for line in doc_path.read_text().splitlines():
        m = re.match(r"^\|\s*(`[^|]*`)\s*\|", line)
        if m:
            keys.update(re.findall(r"`([a-z_]+)`", m.group(1)))
    return keys


def coverage_gaps(used: set[str] | Counter) -> list[str]:
    """Keys and values of the scenario schema the generator never produced."""
    from tcplab import scenario as s

    want = {f"tcp.{k}" for k in s.TCP_KEYS}
    want |= {f"top.{k}" for k in s.TOP_KEYS if k not in ("topology", "flows", "record", "defaults")}
    want |= {f"flow.{k}" for k in s.FLOW_KEYS}
    want |= {f"link.{k}" for k in s.LINK_KEYS}
    want |= {f"topology.{k}" for k in s.TOPOLOGY_KINDS}
    want |= {f"{k}.{v}" for k, vs in s.variants().items() if k in s.TCP_KEYS for v in vs}
    want |= {f"read.{k}" for k in ("unlimited", "string", "rate", "pattern", "tick", "blocking", "phase")}
    want |= {f"record.{k}" for k in ("interval", "timeseries", "exact_percentiles", "pcap")}
    want |= {f"queue.discipline.{d}" for d in s.variants()["discipline"]}
    want |= {f"page.{k}" for k in s.PAGE_KEYS}
    want |= {f"workload.{k}" for k in s.WORKLOAD_KEYS} | {"record.workload_flows"}
    want |= {f"arrivals.{k}" for k in s.ARRIVAL_KEYS} | {f"sizes.{k}" for k in ("fixed", "exponential", "pareto", "cdf-points", "cdf-file")}
    want |= {"elements.bsf", "elements.bsf.formulas"} | {f"elements.bsf.{k}" for k in s.ELEMENT_KEYS["bsf"]}
    want |= {"elements.darca"} | {f"elements.darca.{k}" for k in s.ELEMENT_KEYS["darca"]}
    want |= {"defaults.tcp", "defaults.receiver_tcp", "defaults.read", "trace.shipped", "trace.generated", "queue.unlimited",
             "queue.packets", "queue.bytes", "queue.table", "loss.bernoulli", "loss.gilbert_elliott", "loss.none", "loss.periodic",
             "loss.gilbert_elliott.error_rate"}
    return sorted(k for k in want if k not in used)


# ======================================================================================
# Minimising a failure: drop what does not matter, keep the signature.


def minimise(ctx: Ctx, case: Case, signature: str, budget_s: float = 120.0) -> Case:
    """Greedy: delete keys and array items while the case still fails with ``signature``."""
    t_end = time.monotonic() + budget_s

    def still_fails(c: Case) -> bool:
        if time.monotonic() > t_end:
            return False
        res = run_isolated(ctx, c)
        return any(f["signature"] == signature for f in res["failures"])

    best = case
    changed = True
    while changed and time.monotonic() < t_end:
        changed = False
        for p in sorted(paths_of(best.doc), key=len, reverse=True):
            try:
                trial = copy.deepcopy(best)
                parent = get_path(trial.doc, p[:-1])
                if isinstance(parent, list) and len(parent) <= 1:
                    continue
                del parent[p[-1]]
            except (KeyError, IndexError, TypeError):
                continue
            if still_fails(trial):
                best, changed = trial, True
                break
    return best


def run_isolated(ctx: Ctx, case: Case) -> dict[str, Any]:
    """``execute`` in a forked child with the watchdog (for --only and the minimiser)."""
    res_path = ctx.cases_dir / f"{case.cid}.result.json"
    res_path.unlink(missing_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        code = 0
        try:
            os.setpgid(0, 0)
            _limit_memory(ctx.mem_mb)
            res = execute(ctx, case)
            res_path.write_text(json.dumps(res, default=str))
        except BaseException:  # noqa: BLE001
            code = 70
        os._exit(code)
    rc, sig = _wait(pid, ctx.timeout * 5 + 10)
    if res_path.exists():
        res = json.loads(res_path.read_text())
        res_path.unlink()
        return res
    cls = "hang" if rc is None else "crash"
    return {"failures": [{"class": cls, "message": f"exit {rc} signal {sig}", "signature": f"{cls}: exit {rc} signal {sig}"}]}


# ======================================================================================


def main(argv: list[str] | None = None) -> int:
    # `nested_junk` may land inside an earlier mutation's junk (depth 200 within depth 200):
    # writing such a case recursed past Python's default limit of 1000 frames (three per
    # level) and the campaign counted its own RecursionError as a failure. The simulator
    # rejects anything nested beyond 32 levels with a clean error; the fuzzer must be able
    # to write it first.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    ap = argparse.ArgumentParser(prog="fuzz.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=["valid", "malformed", "both"], default="both")
    ap.add_argument("--seconds", type=float, default=60.0, help="time budget: no new case starts after it (default 60)")
    ap.add_argument("--seed", type=int, default=0, help="campaign seed (default 0); case i of a mode depends only on it")
    ap.add_argument("--cases", type=int, default=None, help="at most this many cases per mode")
    ap.add_argument("--out", type=Path, default=REPO / "out" / "fuzz", help="output folder (default out/fuzz)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cases run in parallel (default: every core)")
    ap.add_argument("--timeout", type=float, default=30.0, help="watchdog per run / per command, seconds (default 30)")
    ap.add_argument("--mem-mb", type=int, default=4096, help="address-space limit of every case, MiB (default 4096; 0: none)")
    ap.add_argument("--exec", dest="exec_mode", choices=["fork", "subprocess"], default="fork",
                    help="malformed mode: run the CLI in a forked child of the fuzzer (fast; failures are confirmed with a real "
                         "subprocess) or always as a subprocess of the console script")
    ap.add_argument("--only", type=int, default=None, help="run only case INDEX of --mode (reproduce one case) and print it")
    ap.add_argument("--minimise", type=int, default=0, metavar="N",
                    help="after the campaign, minimise the first reproducer of up to N signatures (deleting keys)")
    ap.add_argument("--minimise-seconds", type=float, default=120.0, help="time budget of each minimisation (default 120)")
    ap.add_argument("--keep", type=int, default=3, help="reproducers stored per distinct failure (default 3)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    modes = list(MODES) if args.mode == "both" else [args.mode]
    ctx = make_ctx(args.out, args.seed, args.timeout, args.mem_mb, args.exec_mode, args.keep)
    if args.only is not None:
        for m in modes:
            case = generate(ctx, m, args.only)
            print(f"# case {case.cid} (seed {ctx.seed}); mutations: {case.mutations}")
            print(toml_dumps(case.doc))
            res = run_isolated(ctx, case)
            print(json.dumps(res, indent=2, default=str)[:20000])
            if args.minimise and res["failures"] and not case.text_ops:
                sig = res["failures"][0]["signature"]
                small = minimise(ctx, case, sig, budget_s=args.minimise_seconds)
                p = ctx.out / f"{case.cid}.min.toml"
                p.write_text(toml_dumps(small.doc))
                print(f"# minimised ({sig}): {p}")
                print(toml_dumps(small.doc))
                for rel in small.files:
                    print(f"# needs {rel}")
        return 0
    camp = Campaign(ctx, args.jobs, quiet=args.quiet)
    camp.run(modes, args.seconds, args.cases)
    report = camp.report()
    if args.minimise:
        mins = {}
        for sig, d in list(camp.signatures.items())[: args.minimise]:
            if not d["examples"]:
                continue
            name = Path(d["examples"][0]).stem
            meta = json.loads((ctx.out / "failures" / f"{name}.json").read_text())
            case = generate(ctx, meta["mode"], meta["index"])
            if case.text_ops:
                continue
            small = minimise(ctx, case, sig, budget_s=args.minimise_seconds)
            p = ctx.out / "failures" / f"{name}.min.toml"
            p.write_text(toml_dumps(small.doc))
            mins[sig] = str(p.relative_to(ctx.out))
        report["minimised"] = mins
    gaps = coverage_gaps(camp.coverage) if "valid" in modes and sum(camp.cases.values()) >= 200 else []
    report["coverage_gaps"] = gaps
    (ctx.out / "summary.json").write_text(json.dumps(report, indent=2, default=str))
    camp.print_table()
    if gaps:
        print(f"\nkeys the generator never produced in this campaign: {', '.join(gaps)}")
    shutil.rmtree(ctx.cases_dir, ignore_errors=True)
    ctx.cases_dir.mkdir(exist_ok=True)
    return 1 if camp.by_class else 0


if __name__ == "__main__":
    sys.exit(main())
