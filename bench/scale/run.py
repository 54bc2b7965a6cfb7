#!/usr/bin/env python3
"""Scale benchmark (issue 18): what a tcplab run costs as the number of flows grows.

The dumbbell is ns-3's reference dumbbell-100 (bench/ns3-compare/dumbbell-100.toml: 1 Gbit/s,
20 ms, 5000-packet bottleneck, 1 Gbit/s 1 ms access links, NewReno bulk flows) with `pairs` and
`count` set to N and `start_spacing` to 0.1 s / N, so every size starts its flows within the
first 0.1 s, as ns-3's program does. For each N (default 1, 10, 100, 1000, 10000) it measures,
each a median of --runs fresh `tcplab-sim` processes, timed whole (process start to exit):

* set-up: the same scenario with every flow starting at 0 and a duration of 1 ns, so the run
  stops right after each flow has opened (its application writes, its SYN leaves the host);
  nothing arrives anywhere. What remains is the whole start-up cost: reading and parsing the
  canonical JSON, building topology, routes, links and endpoints, the N start events, and
  writing an N-flow summary. Its peak RSS is the memory of N flows just opened ("idle");
* the run: --sim-time simulated seconds (default 5 s). Delivered data packets (the sum of the
  flows' `data_packets_delivered`: data segments reaching the receiver, retransmissions
  included) per wall-second of the whole process, and per wall-second of the binary's own
  clock (`data_pkts_per_wall_s`: the simulation with set-up, without process start, JSON
  parsing and printing), ns per delivered packet, and peak RSS (GNU time's %M, the
  process's own);
* ns-3 3.44 (bench/ns3/build/tcp-reference --scenario=dumbbell-100 --flows=N --simTime=S, the
  same dumbbell), in the same sitting, timed the same way: its `rx_data_pkts` (data segments
  arriving at the receiver hosts, retransmissions included) per whole-process wall-second.
  ns-3 runs while a run fits in --ns3-budget seconds; a run killed at the budget ends the
  ns-3 column for that size and every larger one. tcp-reference.cc gives each host a /24 of
  its own (10.1.i.0 for the first 256 pairs, as the reference scenarios have it, then
  10.(16 + i/256).(i%256).0), up to 28,672 flows.

It also runs the three reference scenarios at their own settings (p2p-1, dumbbell-10,
dumbbell-100, as in bench/ns3-compare) for the raw-speed aims, and with --setup-sizes the
set-up measurement alone at larger N (default 100000, the issue's 10^5 aim). Every row kind
is one function (`ROW_KINDS`); rows run one process at a time, in the order given.

    .venv/bin/python bench/scale/run.py --wait-idle 1800 --plot   # everything, 5 runs, ns-3 included
    .venv/bin/python bench/scale/run.py --no-ns3 --runs 3 --sizes 10,10000
    .venv/bin/python bench/scale/run.py --quick --no-ns3     # the smoke test's run (seconds)
    .venv/bin/python bench/scale/run.py --from-json bench/results/scale.json --plot

Writes --out (JSON, default bench/results/scale.json) and the same tables as markdown beside
it (.md); --plot writes the cost-per-packet plot (default docs/performance-cost-per-packet.png).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
COMPARE = ROOT / "bench" / "ns3-compare"
NS3_DIR = ROOT / "bench" / "ns3"
SIZES = [1, 10, 100, 1000, 10000]
SETUP_SIZES = [100000]
REFERENCE = ["p2p-1", "dumbbell-10", "dumbbell-100"]
PLOT = ROOT / "docs" / "performance-cost-per-packet.png"
NS3_MAX_FLOWS = 28_672  # tcp-reference.cc: one /24 per host, 112 x 256 of them each side

# The issue's aims.
AIM_SETUP_1E4_S = 1.0
AIM_SETUP_1E5_S = 10.0
AIM_IDLE_BYTES_PER_FLOW = 10_000
AIM_RSS_1E4_BYTES = 1_000_000_000
AIM_RATIO_1E4_TO_10 = 0.7
AIM_RAW = {"p2p-1": 3.0e6, "dumbbell-10": 2.5e6, "dumbbell-100": 2.5e6}


# --- one process, measured -------------------------------------------------------------------


@dataclass
class Proc:
    wall_s: float
    maxrss_bytes: int
    stdout: str
    stderr: str
    returncode: int
    timed_out: bool = False


TIME = Path("/usr/bin/time")


def measure(cmd: list[str], timeout: float | None = None) -> Proc:
    """Run ``cmd`` alone: its whole-process wall time and its own peak RSS.

    The RSS comes from GNU time (``%M``), which forks the command from its own small image:
    a child forked from this Python process would count the ~30 MB it inherits before exec
    in its ru_maxrss. Without /usr/bin/time, wait4's ru_maxrss (with that floor) is used."""
    with tempfile.TemporaryDirectory() as d:
        rss_file = Path(d) / "rss"
        full = [str(TIME), "-f", "%M", "-o", str(rss_file), *cmd] if TIME.exists() else cmd
        with open(Path(d) / "out", "w+b") as out, open(Path(d) / "err", "w+b") as err:
            t0 = time.perf_counter()
            p = subprocess.Popen(full, stdout=out, stderr=err, start_new_session=True)
            killed: list[bool] = []

            def kill() -> None:
                killed.append(True)
                os.killpg(p.pid, 9)

            timer = threading.Timer(timeout, kill) if timeout else None
            if timer:
                timer.start()
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            if timer:
                timer.cancel()
            p.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read().decode(), err.read().decode()
        rss = ru.ru_maxrss * 1024
        if TIME.exists():
            # GNU time exits with the command's status and writes %M on the last line.
            text = rss_file.read_text().split() if rss_file.exists() else []
            digits = [w for w in text if w.isdigit()]
            rss = int(digits[-1]) * 1024 if digits else 0
        return Proc(wall, rss, stdout, stderr, p.returncode, bool(killed))


def cpu_busy_s() -> float | None:
    """CPU seconds spent busy on all cores since boot (/proc/stat), None where unavailable."""
    try:
        f = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = f[3] + (f[4] if len(f) > 4 else 0)  # idle + iowait
    return (sum(f[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    """CPU seconds of this process and of its children reaped so far."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class OtherLoad:
    """Cores kept busy by other work while measuring: the machine's busy CPU time less this
    process's and its children's, per wall-second (None without /proc/stat)."""

    def __init__(self) -> None:
        self.b0, self.m0, self.w0 = cpu_busy_s(), own_cpu_s(), time.monotonic()

    def cores(self) -> float | None:
        b1, m1, w1 = cpu_busy_s(), own_cpu_s(), time.monotonic()
        if self.b0 is None or b1 is None or w1 <= self.w0:
            return None
        return max(0.0, ((b1 - self.b0) - (m1 - self.m0)) / (w1 - self.w0))


def wait_idle(max_wait: float, log: Callable[[str], None]) -> float:
    """Wait (up to ``max_wait`` s) until the machine was idle for 2 s: under 0.05 cores busy.
    Returns the seconds waited."""
    t0 = time.monotonic()
    while True:
        b0, w0 = cpu_busy_s(), time.monotonic()
        time.sleep(2)
        b1, w1 = cpu_busy_s(), time.monotonic()
        if b0 is None or (b1 - b0) / (w1 - w0) < 0.05:
            return time.monotonic() - t0
        if time.monotonic() - t0 > max_wait:
            log(f"[idle] still {(b1 - b0) / (w1 - w0):.2f} cores busy after {max_wait:g} s; going on")
            return time.monotonic() - t0


def median(xs: list[float]) -> float:
    return statistics.median(xs)


# --- scenarios --------------------------------------------------------------------------------


def fmt_time(ns: int) -> str:
    return f"{ns}ns"


def dumbbell_toml(n: int, duration_ns: int, spacing_ns: int | None = None) -> str:
    """bench/ns3-compare/dumbbell-100.toml with N flows on N pairs, starts spread over 0.1 s
    (or ``spacing_ns`` apart), ``duration_ns`` simulated."""
    src = (COMPARE / "dumbbell-100.toml").read_text()
    if spacing_ns is None:
        spacing_ns = round(100_000_000 / n)
    subs = [
        (r'^duration = "20s"$', f'duration = "{fmt_time(duration_ns)}"'),
        (r"^pairs = 100$", f"pairs = {n}"),
        (r"^count = 100$", f"count = {n}"),
        (r'^start_spacing = "1ms"$', f'start_spacing = "{fmt_time(spacing_ns)}"'),
    ]
    for pat, rep in subs:
        src, k = re.subn(pat, rep, src, flags=re.M)
        if k != 1:
            raise SystemExit(f"dumbbell-100.toml changed: no single line matches {pat!r}")
    return src.replace('name = "dumbbell-100"', f'name = "scale-dumbbell-{n}"', 1)


def canonical(toml_path: Path) -> Path:
    """The canonical JSON that tcplab-sim runs (what `tcplab validate --canonical` writes)."""
    import tcplab

    out = toml_path.with_suffix(".json")
    out.write_text(tcplab.load(toml_path).to_canonical_json())
    return out


# --- the simulators -----------------------------------------------------------------------------


@dataclass
class Ctx:
    args: argparse.Namespace
    exe: Path
    tmp: Path
    ns3_exe: Path | None = None
    ns3_stop: str | None = None  # why ns-3 runs no more sizes
    log: Callable[[str], None] = field(default=lambda s: print(s, file=sys.stderr, flush=True))


def run_tcplab(ctx: Ctx, scn: Path, label: str, runs: int) -> dict:
    """``runs`` fresh processes of tcplab-sim on ``scn``: medians and every run's figures."""
    walls, rss, own = [], [], []
    load = OtherLoad()
    pkts = events = None
    workloads: list[dict] = []
    for i in range(runs):
        p = measure([str(ctx.exe), str(scn), "--no-timeseries"])
        if p.returncode != 0:
            raise SystemExit(f"tcplab-sim failed on {label} (exit {p.returncode}):\n{p.stderr}")
        s = json.loads(p.stdout.splitlines()[-1])
        n = sum(f["data_packets_delivered"] for f in s["flows"]) + sum(w["data_packets_delivered"] for w in s.get("workloads", []))
        if pkts is not None and (n, s["events"]) != (pkts, events):
            raise SystemExit(f"tcplab is not deterministic on {label}: {n} packets after {pkts}")
        pkts, events = n, s["events"]
        workloads = s.get("workloads", [])
        if not s["invariants"]["ok"]:
            raise SystemExit(f"invariants violated on {label}: {s['invariants']}")
        walls.append(p.wall_s)
        rss.append(p.maxrss_bytes)
        own.append(s["wall_s"])
        ctx.log(f"[tcplab {label} #{i + 1}] {p.wall_s:.3f} s whole process ({s['wall_s']:.3f} s in run), "
                f"{p.maxrss_bytes / 1e6:.1f} MB, {n} pkts")
    wall = median(walls)
    own_wall = median(own)
    return {
        "runs": runs,
        "wall_s": wall,
        "walls_s": walls,
        "run_wall_s": own_wall,
        "peak_rss_bytes": int(median(rss)),
        "pkts": pkts,
        "events": events,
        "pkts_per_wall_s": pkts / wall if wall > 0 else None,
        "run_pkts_per_wall_s": pkts / own_wall if own_wall > 0 else None,
        "ns_per_pkt": wall / pkts * 1e9 if pkts else None,
        "run_ns_per_pkt": own_wall / pkts * 1e9 if pkts else None,
        "other_cores_busy": load.cores(),
        "workloads": [{k: w[k] for k in ("arrived", "completed", "max_active", "offered_mbps", "fct_ms")} for w in workloads],
    }


def ns3_binary(ctx: Ctx) -> Path:
    if ctx.ns3_exe is None:
        exe = ctx.args.ns3_build / "tcp-reference"
        src = NS3_DIR / "tcp-reference.cc"
        if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
            ctx.log(f"[ns-3] building {exe}")
            env = dict(os.environ, BUILD_DIR=str(ctx.args.ns3_build))
            subprocess.run(["bash", str(NS3_DIR / "build.sh")], check=True, env=env)
        ctx.ns3_exe = exe
    return ctx.ns3_exe


def run_ns3(ctx: Ctx, n: int, sim_s: float) -> dict:
    """ns-3's dumbbell at N flows, measured like tcplab's; or why it was not run."""
    if ctx.args.no_ns3:
        return {"skipped": "not run (--no-ns3)"}
    if n > NS3_MAX_FLOWS:
        return {"skipped": f"cannot build: tcp-reference.cc gives each host its own /24, at most {NS3_MAX_FLOWS:,} flows"}
    if ctx.ns3_stop:
        return {"skipped": ctx.ns3_stop}
    exe = ns3_binary(ctx)
    budget = ctx.args.ns3_budget
    walls, rss = [], []
    load = OtherLoad()
    out = None
    for i in range(ctx.args.ns3_runs):
        p = measure([str(exe), "--scenario=dumbbell-100", f"--flows={n}", f"--simTime={sim_s:g}"], timeout=budget)
        if p.timed_out:
            ctx.ns3_stop = f"over budget: a run at {n} flows did not finish in {budget:g} s"
            ctx.log(f"[ns-3 {n} flows #{i + 1}] killed after {budget:g} s")
            return {"skipped": ctx.ns3_stop}
        if p.returncode != 0:
            raise SystemExit(f"ns-3 failed at {n} flows (exit {p.returncode}):\n{p.stderr[-2000:]}")
        r = json.loads(p.stdout.strip().splitlines()[-1])
        if out is not None and r["rx_data_pkts"] != out["rx_data_pkts"]:
            raise SystemExit(f"ns-3 is not deterministic at {n} flows")
        out = r
        walls.append(p.wall_s)
        rss.append(p.maxrss_bytes)
        ctx.log(f"[ns-3 {n} flows #{i + 1}] {p.wall_s:.2f} s whole process ({r['wall_run_s']:.2f} s in Run), "
                f"{p.maxrss_bytes / 1e6:.1f} MB, {r['rx_data_pkts']} pkts")
    wall = median(walls)
    pkts = out["rx_data_pkts"]
    return {
        "runs": len(walls),
        "wall_s": wall,
        "walls_s": walls,
        "peak_rss_bytes": int(median(rss)),
        "pkts": pkts,
        "events": out["events"],
        "goodput_mbps": out["goodput_mbps"],
        "pkts_per_wall_s": pkts / wall,
        "ns_per_pkt": wall / pkts * 1e9,
        "other_cores_busy": load.cores(),
    }


# --- row kinds: each one function of (key, ctx) -> row ------------------------------------------


def setup_row(n: int, ctx: Ctx) -> dict:
    """Set-up only: N flows opened at time 0, 1 ns simulated."""
    toml = ctx.tmp / f"setup-{n}.toml"
    toml.write_text(dumbbell_toml(n, duration_ns=1, spacing_ns=0))
    r = run_tcplab(ctx, canonical(toml), f"set-up {n}", ctx.args.runs)
    return {"kind": "setup", "flows": n, "setup_s": r["wall_s"], "setup_walls_s": r["walls_s"],
            "setup_run_s": r["run_wall_s"], "idle_rss_bytes": r["peak_rss_bytes"],
            "setup_other_cores_busy": r["other_cores_busy"]}


def dumbbell_row(n: int, ctx: Ctx) -> dict:
    """The dumbbell at N flows: set-up, the run of --sim-time seconds, ns-3 beside it."""
    row = setup_row(n, ctx)
    row["kind"] = "dumbbell"
    sim_ns = round(ctx.args.sim_time * 1e9)
    toml = ctx.tmp / f"dumbbell-{n}.toml"
    toml.write_text(dumbbell_toml(n, duration_ns=sim_ns))
    row["sim_s"] = ctx.args.sim_time
    row["tcplab"] = run_tcplab(ctx, canonical(toml), f"dumbbell {n}", ctx.args.runs)
    row["ns3"] = run_ns3(ctx, n, ctx.args.sim_time)
    return row


def reference_row(name: str, ctx: Ctx) -> dict:
    """A reference scenario of bench/ns3-compare at its own settings (the raw-speed aims)."""
    import tcplab

    scn = tcplab.load(COMPARE / f"{name}.toml")
    path = ctx.tmp / f"reference-{name}.json"
    path.write_text(scn.to_canonical_json())
    r = run_tcplab(ctx, path, name, ctx.args.runs)
    return {"kind": "reference", "scenario": name, "flows": len(scn.canonical["flows"]),
            "sim_s": scn.canonical["duration"] / 1e9, "tcplab": r}


def workload_toml(rate_per_s: float, duration_ns: int, max_flows: int | None, rows: bool) -> str:
    """The open-loop workload on the dumbbell's bottleneck (one pair: s0 -> r0): Poisson
    arrivals of Pareto sizes (mean 50 kB, shape 1.2: a heavy tail, as web and data-centre
    flow sizes have), Nagle off (as ns-3 and most FCT studies)."""
    src = dumbbell_toml(1, duration_ns)
    head, _, _ = src.partition("[[flows]]")
    cap = "" if max_flows is None else f"max_flows = {max_flows}\n"
    record = "" if rows else "\n[record]\nworkload_flows = false\n"
    return (head.replace('name = "scale-dumbbell-1"', 'name = "scale-workload"', 1).replace("\n[topology]", f"{record}\n[topology]", 1)
            + "[[workloads]]\nname = \"web\"\npair = 0\n"
            + f"arrivals = {{ kind = \"poisson\", rate = {rate_per_s:g} }}\n"
            + "sizes = { kind = \"pareto\", mean = \"50kB\", shape = 1.2 }\n"
            + "tcp = { nagle = false }\n" + cap)


def workload_row(name: str, ctx: Ctx) -> dict:
    """The open-loop workload: `load50` offers half the 1 Gbit/s bottleneck (1250 flows/s of
    mean 50 kB) for --sim-time; `seq100k` runs 10^5 flows in turn (record.workload_flows off)
    for the memory of flows that come and go."""
    if name == "load50":
        sim_ns = round(ctx.args.sim_time * 1e9)
        text = workload_toml(1250, sim_ns, None, rows=True)
    elif name == "seq100k":
        text = workload_toml(2000, 200 * 10**9, 100_000, rows=False).replace(
            "duration = ", "stop_when_done = true\nduration = ", 1)
    else:
        raise SystemExit(f"unknown workload row {name!r} (load50, seq100k)")
    toml = ctx.tmp / f"workload-{name}.toml"
    toml.write_text(text)
    r = run_tcplab(ctx, canonical(toml), f"workload {name}", ctx.args.runs)
    import tcplab

    return {"kind": "workload", "name": name, "sim_s": tcplab.load(toml).canonical["duration"] / 1e9, "tcplab": r}


ROW_KINDS: dict[str, Callable[[Any, Ctx], dict]] = {
    "dumbbell": dumbbell_row,
    "setup": setup_row,
    "reference": reference_row,
    "workload": workload_row,
}


# --- derived figures, aims, tables, plot --------------------------------------------------------


def derive(rows: list[dict]) -> None:
    """Bytes per flow: peak RSS over N, and above the smallest size measured (the marginal cost)."""
    opened = sorted((r["flows"], r["idle_rss_bytes"]) for r in rows if r["kind"] in ("dumbbell", "setup"))
    base = opened[0] if opened else None
    ran = sorted((r["flows"], r["tcplab"]["peak_rss_bytes"]) for r in rows if r["kind"] == "dumbbell")
    run_base = ran[0] if ran else None
    for r in rows:
        if r["kind"] in ("dumbbell", "setup"):
            n = r["flows"]
            r["idle_bytes_per_flow"] = r["idle_rss_bytes"] / n
            r["idle_marginal_bytes_per_flow"] = (
                (r["idle_rss_bytes"] - base[1]) / (n - base[0]) if base and n > base[0] else None)
            r["idle_marginal_base_flows"] = base[0] if base else None
        if r["kind"] == "dumbbell":
            t = r["tcplab"]
            t["rss_bytes_per_flow"] = t["peak_rss_bytes"] / r["flows"]
            t["marginal_rss_bytes_per_flow"] = (
                (t["peak_rss_bytes"] - run_base[1]) / (r["flows"] - run_base[0])
                if run_base and r["flows"] > run_base[0] else None)
            ns3 = r.get("ns3", {})
            if "pkts_per_wall_s" in ns3:
                ns3["speedup"] = t["pkts_per_wall_s"] / ns3["pkts_per_wall_s"]


def aims(rows: list[dict]) -> list[dict]:
    """The issue's aims that these rows measure, with the measured value and met or not."""
    db = {r["flows"]: r for r in rows if r["kind"] == "dumbbell"}
    opened = {r["flows"]: r for r in rows if r["kind"] in ("dumbbell", "setup")}
    ref = {r["scenario"]: r for r in rows if r["kind"] == "reference"}
    out = []

    def add(aim: str, measured: str, met: bool) -> None:
        out.append({"aim": aim, "measured": measured, "met": bool(met)})

    if 10000 in opened:
        s = opened[10000]["setup_s"]
        add(f"10^4 flows set up in under {AIM_SETUP_1E4_S:g} s", f"{s:.2f} s", s < AIM_SETUP_1E4_S)
    if 100000 in opened:
        s = opened[100000]["setup_s"]
        add(f"10^5 flows set up in under {AIM_SETUP_1E5_S:g} s", f"{s:.2f} s", s < AIM_SETUP_1E5_S)
    # Per idle flow: judged at 10^4 flows or more, where the fixed part of the process is small.
    big = max((n for n in opened if n >= 10000 and opened[n].get("idle_marginal_bytes_per_flow")), default=None)
    if big:
        b = opened[big]["idle_marginal_bytes_per_flow"]
        add(f"under {AIM_IDLE_BYTES_PER_FLOW / 1000:g} KB per idle flow",
            f"{b / 1000:.1f} KB (peak RSS of the set-up run at {big:,} flows above {opened[big]['idle_marginal_base_flows']:,}, per flow)",
            b < AIM_IDLE_BYTES_PER_FLOW)
    if 10000 in db:
        m = db[10000]["tcplab"]["peak_rss_bytes"]
        add("a 10^4-flow dumbbell under 1 GB", f"{m / 1e6:,.0f} MB peak RSS ({db[10000]['sim_s']:g} s simulated)",
            m < AIM_RSS_1E4_BYTES)
    if 10000 in db and 10 in db:
        a, b = db[10000]["tcplab"]["pkts_per_wall_s"], db[10]["tcplab"]["pkts_per_wall_s"]
        add(f"packets per wall-second at 10^4 flows >= {AIM_RATIO_1E4_TO_10} x at 10 flows (same bottleneck, same simulated time)",
            f"{a / b:.2f} ({a / 1e6:.3f} M / {b / 1e6:.3f} M)", a / b >= AIM_RATIO_1E4_TO_10)
    for name, target in AIM_RAW.items():
        if name in ref:
            t = ref[name]["tcplab"]
            add(f"{name}: >= {target / 1e6:g} M delivered packets per wall-second",
                f"{t['pkts_per_wall_s'] / 1e6:.2f} M whole process ({t['run_pkts_per_wall_s'] / 1e6:.2f} M in the run)",
                t["pkts_per_wall_s"] >= target)
    return out


def mb(b: float) -> str:
    return f"{b / 1e6:,.1f} MB"


def kb(b: float | None) -> str:
    return "-" if b is None else f"{b / 1000:,.1f} KB"


def other_load(b: float | None) -> str:
    return "-" if b is None else f"{b:.2f}"


def tables(res: dict) -> str:
    rows, meta = res["rows"], res["meta"]
    out = []
    db = [r for r in rows if r["kind"] == "dumbbell"]
    if db:
        sim = db[0]["sim_s"]
        out += [f"### Dumbbell at N flows ({sim:g} s simulated; medians of {meta['runs']} runs)", "",
                "| flows | set-up | RSS after set-up | per flow (marginal) | delivered pkts | wall | pkts/wall-s "
                "| ns/pkt | pkts/wall-s in run | peak RSS | per flow (marginal) | other load |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in db:
            t = r["tcplab"]
            out.append(f"| {r['flows']:,} | {r['setup_s']:.3f} s | {mb(r['idle_rss_bytes'])} | "
                       f"{kb(r['idle_marginal_bytes_per_flow'])} | {t['pkts']:,} | {t['wall_s']:.3f} s | "
                       f"{t['pkts_per_wall_s']:,.0f} | {t['ns_per_pkt']:,.0f} | {t['run_pkts_per_wall_s']:,.0f} | "
                       f"{mb(t['peak_rss_bytes'])} | {kb(t['marginal_rss_bytes_per_flow'])} | {other_load(t.get('other_cores_busy'))} |")
        out += ["", f"### ns-3 3.44 on the same dumbbell, same sitting", "",
                "| flows | ns-3 delivered pkts | ns-3 wall | ns-3 pkts/wall-s | ns-3 ns/pkt | ns-3 peak RSS | tcplab pkts/wall-s | tcplab / ns-3 | other load |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in db:
            n3, t = r["ns3"], r["tcplab"]
            if "skipped" in n3:
                out.append(f"| {r['flows']:,} | {n3['skipped']} | | | | | {t['pkts_per_wall_s']:,.0f} | | |")
            else:
                out.append(f"| {r['flows']:,} | {n3['pkts']:,} | {n3['wall_s']:.2f} s ({n3['runs']} runs) | "
                           f"{n3['pkts_per_wall_s']:,.0f} | {n3['ns_per_pkt']:,.0f} | {mb(n3['peak_rss_bytes'])} | "
                           f"{t['pkts_per_wall_s']:,.0f} | {n3['speedup']:,.0f}x | {other_load(n3.get('other_cores_busy'))} |")
        out.append("")
    su = [r for r in rows if r["kind"] == "setup"]
    if su:
        out += ["### Set-up only", "", "| flows | set-up | in the run | RSS after set-up | per flow (marginal) | other load |",
                "|---:|---:|---:|---:|---:|---:|"]
        for r in su:
            out.append(f"| {r['flows']:,} | {r['setup_s']:.3f} s | {r['setup_run_s']:.3f} s | {mb(r['idle_rss_bytes'])} | "
                       f"{kb(r['idle_marginal_bytes_per_flow'])} | {other_load(r.get('setup_other_cores_busy'))} |")
        out.append("")
    wl = [r for r in rows if r["kind"] == "workload"]
    if wl:
        out += ["### Open-loop workload on the dumbbell's bottleneck (Poisson arrivals, Pareto sizes of mean 50 kB)", "",
                "| run | simulated | flows arrived | most alive at once | delivered pkts | wall | pkts/wall-s | ns/pkt | peak RSS | FCT p50 / p99 ms | other load |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in wl:
            t = r["tcplab"]
            w = t["workloads"][0]
            out.append(f"| {r['name']} | {r['sim_s']:g} s | {w['arrived']:,} | {w['max_active']:,} | {t['pkts']:,} | {t['wall_s']:.3f} s | "
                       f"{t['pkts_per_wall_s']:,.0f} | {t['ns_per_pkt']:,.0f} | {mb(t['peak_rss_bytes'])} | "
                       f"{w['fct_ms']['p50']:.1f} / {w['fct_ms']['p99']:.1f} | {other_load(t.get('other_cores_busy'))} |")
        out.append("")
    ref = [r for r in rows if r["kind"] == "reference"]
    if ref:
        out += ["### Reference scenarios at their own settings", "",
                "| scenario | simulated | delivered pkts | wall | pkts/wall-s | pkts/wall-s in run | ns/pkt | peak RSS | other load |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in ref:
            t = r["tcplab"]
            out.append(f"| {r['scenario']} | {r['sim_s']:g} s | {t['pkts']:,} | {t['wall_s']:.3f} s | "
                       f"{t['pkts_per_wall_s']:,.0f} | {t['run_pkts_per_wall_s']:,.0f} | {t['ns_per_pkt']:,.0f} | "
                       f"{mb(t['peak_rss_bytes'])} | {other_load(t.get('other_cores_busy'))} |")
        out.append("")
    loads = [x for r in rows for x in (r.get("setup_other_cores_busy"), r.get("tcplab", {}).get("other_cores_busy"),
                                       r.get("ns3", {}).get("other_cores_busy")) if x is not None]
    if loads:
        out += ["Other load: cores kept busy by other work during that measurement (the machine's busy CPU time "
                "less the benchmark's own, per wall-second; 2 cores in all).", ""]
    if res["aims"]:
        out += ["### Aims (issue 18)", "", "| aim | measured | met |", "|---|---|---|"]
        out += [f"| {a['aim']} | {a['measured']} | {'yes' if a['met'] else 'NO'} |" for a in res["aims"]]
        out.append("")
    load = meta.get("loadavg_before"), meta.get("loadavg_after")
    peak = max((r.get("loadavg_1min_at_start", 0) for r in rows), default=0)
    busy = f"; other work kept {statistics.mean(loads):.2f} cores busy on average during the measurements (at most {max(loads):.2f})" if loads else ""
    out.append(f"`{meta['command']}` on {meta['date']}, {meta['machine']}; load average "
               f"{load[0][0]:.2f} before, {load[1][0]:.2f} after, at most {peak:.2f} at the start of a row "
               f"(1-minute; the benchmark itself adds 1){busy}; starting and timing an "
               f"empty process takes {meta['launch_overhead_s'] * 1e3:.1f} ms.")
    return "\n".join(out) + "\n"


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    db = [r for r in res["rows"] if r["kind"] == "dumbbell"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    n = [r["flows"] for r in db]
    ax.plot(n, [r["tcplab"]["ns_per_pkt"] for r in db], "o-", label="tcplab (whole process)")
    ax.plot(n, [r["tcplab"]["run_ns_per_pkt"] for r in db], "o--", alpha=0.7, label="tcplab (the run alone)")
    n3 = [(r["flows"], r["ns3"]["ns_per_pkt"]) for r in db if "ns_per_pkt" in r["ns3"]]
    if n3:
        ax.plot([a for a, _ in n3], [b for _, b in n3], "s-", label="ns-3 3.44 (whole process)")
    missing = [r["flows"] for r in db if "skipped" in r["ns3"]]
    if n3 and missing:
        ax.annotate(f"ns-3 not run at {', '.join(f'{m:,}' for m in missing)} flows (see the table)",
                    xy=(0.98, 0.62), xycoords="axes fraction", ha="right", fontsize=8, color="0.35")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flows")
    ax.set_ylabel("wall-clock ns per delivered data packet")
    sim = db[0]["sim_s"] if db else 0
    ax.set_title(f"Dumbbell, 1 Gbit/s bottleneck, {sim:g} s simulated", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- main -------------------------------------------------------------------------------------


def machine() -> str:
    model = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}"


WORKLOADS = ["load50", "seq100k"]


def workload_names(text: str) -> list[str]:
    out = [x for x in text.split(",") if x]
    bad = [x for x in out if x not in WORKLOADS]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown workload run {bad[0]!r}; choose from {', '.join(WORKLOADS)}")
    return out


def sizes(text: str) -> list[int]:
    try:
        out = [int(float(s)) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of flow counts: {text!r}")
    if any(n < 1 for n in out):
        raise argparse.ArgumentTypeError("flow counts must be >= 1")
    return out


def names(text: str) -> list[str]:
    out = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in out if s not in REFERENCE]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown reference scenario {bad[0]!r}; choose from {', '.join(REFERENCE)}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=sizes, default=SIZES, help="dumbbell flow counts (default 1,10,100,1000,10000)")
    ap.add_argument("--setup-sizes", type=sizes, default=SETUP_SIZES,
                    help="flow counts measured for set-up time and memory only (default 100000; '' for none)")
    ap.add_argument("--reference", type=names, default=REFERENCE,
                    help="reference scenarios run at their own settings (default p2p-1,dumbbell-10,dumbbell-100; '' for none)")
    ap.add_argument("--runs", type=int, default=5, help="tcplab processes per measurement (medians; default 5)")
    ap.add_argument("--sim-time", type=float, default=5.0, help="simulated seconds of the dumbbell runs (default 5)")
    ap.add_argument("--no-ns3", action="store_true", help="do not run ns-3")
    ap.add_argument("--ns3-runs", type=int, default=3, help="ns-3 processes per size (medians; default 3)")
    ap.add_argument("--ns3-budget", type=float, default=120.0,
                    help="kill an ns-3 run after this many seconds and run ns-3 at no larger size (default 120)")
    ap.add_argument("--ns3-build", type=Path, default=NS3_DIR / "build", help="where bench/ns3/build.sh puts tcp-reference")
    ap.add_argument("--wait-idle", type=float, default=0, metavar="SECONDS",
                    help="before each row wait, up to this long, until the machine was idle for 2 s (default: do not wait)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: sizes 1,10, 1 run, 0.5 s simulated, p2p-1 only, no set-up-only sizes")
    ap.add_argument("--exe", type=Path, help="the tcplab-sim binary (default: cargo build --release, target/release/tcplab-sim)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scale.json",
                    help="results JSON (the markdown tables go beside it, .md)")
    ap.add_argument("--plot", type=Path, nargs="?", const=PLOT, help=f"write the cost-per-packet plot (default {PLOT.relative_to(ROOT)})")
    ap.add_argument("--workloads", type=workload_names, default=WORKLOADS,
                    help="open-loop workload runs: load50 (half the bottleneck for --sim-time), seq100k (10^5 flows in turn); "
                         "default both, none with an empty string")
    ap.add_argument("--from-json", type=Path, help="no runs: print the tables (and --plot) of an earlier results file")
    args = ap.parse_args(argv)

    if args.from_json:
        res = json.loads(args.from_json.read_text())
        print(tables(res), end="")
        if args.plot:
            plot(res, args.plot)
        return 0

    if args.quick:
        args.sizes, args.runs, args.sim_time, args.setup_sizes = [1, 10], 1, 0.5, []
        args.reference = ["p2p-1"]
        args.workloads = ["load50"]
        args.ns3_runs = min(args.ns3_runs, 1)
    if args.runs < 1 or args.ns3_runs < 1 or args.sim_time <= 0:
        ap.error("--runs and --ns3-runs must be >= 1 and --sim-time > 0")

    sys.path.insert(0, str(ROOT / "python"))
    if args.exe:
        exe = args.exe.resolve()
    else:
        subprocess.run(["cargo", "build", "--release", "-q", "--bin", "tcplab-sim"], check=True, cwd=ROOT)
        target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
        exe = (target if target.is_absolute() else ROOT / target) / "release" / "tcplab-sim"

    plan: list[tuple[str, Any]] = [("dumbbell", n) for n in args.sizes]
    plan += [("setup", n) for n in args.setup_sizes]
    plan += [("reference", s) for s in args.reference]
    plan += [("workload", w) for w in args.workloads]

    meta = {
        "command": " ".join(["python bench/scale/run.py", *map(shlex.quote, sys.argv[1:] if argv is None else argv)]),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": machine(),
        "runs": args.runs,
        "ns3_runs": args.ns3_runs,
        "ns3_budget_s": args.ns3_budget,
        "sim_s": args.sim_time,
        "quick": args.quick,
        "loadavg_before": os.getloadavg(),
    }
    if args.wait_idle:
        wait_idle(args.wait_idle, lambda s: print(s, file=sys.stderr, flush=True))
    # What starting and timing a process costs by itself (`true` under the same wrapper).
    meta["launch_overhead_s"] = median([measure(["true"]).wall_s for _ in range(5)])
    rows = []
    with tempfile.TemporaryDirectory(prefix="tcplab-scale-") as tmp:
        ctx = Ctx(args, exe, Path(tmp))
        for kind, key in plan:
            waited = wait_idle(args.wait_idle, ctx.log) if args.wait_idle else 0.0
            load = os.getloadavg()[0]
            row = ROW_KINDS[kind](key, ctx)
            row["loadavg_1min_at_start"] = load
            row["waited_for_idle_s"] = waited
            rows.append(row)
    meta["loadavg_after"] = os.getloadavg()
    derive(rows)
    res = {"meta": meta, "rows": rows, "aims": aims(rows)}
    text = tables(res)
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(text)
    if args.plot:
        plot(res, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
