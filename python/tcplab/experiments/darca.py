"""DARCA: B. Zeng and L. Yao, "A Drop Aware TCP Rate Control Algorithm for Heterogenic Internet
Access" -- section 4, Figures 5 to 8, from the scenario files in ``scenarios/darca/``
(``tcplab reproduce darca``).

Section 4's topology: sources on access links of capacity BBW_i to router AR, the controlled
10 Mbit/s link L to the edge router ER where DARCA (the ``darca`` node element,
docs/darca.md) is the control point, the receivers behind ER; drop-tail queues, TCP Reno,
MSS 512, a 65536-byte receiver window. Each experiment is one run; ``--quick`` runs the same
grid (every run is a few seconds).

For every connection (or class) and every interval the paper describes, two rows share
``experiment``, ``case`` (``<interval>/<connection>``) and ``variant``: ``target_kbps``, DARCA's
target for it over the measured stretch (time-weighted, from the element's round log), and
``throughput_kbps``, its mean goodput over the interval after a settling time (the first
:data:`SETTLE_S` seconds of the interval, or its first half if shorter: the convergence and
learning rounds the paper's figures also show). ``paper`` is given where the paper's text
states the number (Figs. 6 and 7 describe their targets in words: "the excess bandwidth
250kbps from TCP_2 goes to TCP_1", "the updated TBWs are 650kbps and 100kbps").
"""

from __future__ import annotations

import math
from typing import Any

from . import Context, Report, Row, pyplot, save_figure

PAPER = (
    "B. Zeng and L. Yao, \"A Drop Aware TCP Rate Control Algorithm for Heterogenic Internet Access\", "
    "IJFGCN 9(x), 2016 (DARCA)"
)
TITLE = "DARCA: target rates enforced by drops at the edge router (Zeng & Yao)"
P = "darca"
KBPS = "kbit/s"
#: Seconds at the start of an interval left out of its mean throughput.
SETTLE_S = 20.0
#: The acceptance criterion of the issue: locally bottlenecked connections (and class
#: aggregates) within 10% of their targets in stable phases.
WITHIN = 0.10
#: Payload share of a wire packet here: 512 bytes of payload in 512 + 20 (IP) + 32 (TCP with
#: timestamps) bytes.
PAYLOAD_SHARE = 512 / 564


def _goodput_kbps(ts: Any, name: str, a: float, b: float) -> float:
    """Mean goodput of flow ``name`` over (a, b], kbit/s, from the run's time series."""
    g = ts[(ts.kind == "flow") & (ts.name == name) & (ts.metric == "goodput_mbps") & (ts.time_s > a) & (ts.time_s <= b)]
    return float(g.value.mean()) * 1000 if len(g) else math.nan


def _cv(ts: Any, name: str, a: float, b: float, bin_s: float = 1.0) -> float:
    """Coefficient of variation of a flow's goodput in ``bin_s`` bins over (a, b]."""
    g = ts[(ts.kind == "flow") & (ts.name == name) & (ts.metric == "goodput_mbps") & (ts.time_s > a) & (ts.time_s <= b)]
    if len(g) == 0:
        return math.nan
    bins = ((g.time_s - a - 1e-9) // bin_s).astype(int)
    m = g.groupby(bins.values).value.mean()
    return float(m.std(ddof=0) / m.mean()) if m.mean() > 0 else math.nan


class _Run:
    """One run's element log and time series."""

    def __init__(self, r: Any):
        self.summary = r.summary
        self.ts = r.timeseries
        self.d = r.summary["elements"][0]["detail"]
        self.units = [u["name"] for u in self.d["units"]]
        self.rounds = self.d["rounds"]
        self.events = self.d["events"]

    def target_at(self, unit: str, t: float) -> float:
        """The target in force at ``t`` (the last round started at or before it), kbit/s."""
        i = self.units.index(unit)
        cur = None
        for r in self.rounds:
            if r["t_s"] <= t:
                cur = r["targets_bps"][i]
        return math.nan if cur is None else cur / 1000

    def mean_target(self, unit: str, a: float, b: float) -> float:
        """The target in force over [a, b], time-weighted, kbit/s (a restart inside the
        interval shows as a mixture, as it does in the throughput)."""
        i = self.units.index(unit)
        starts = [(r["t_s"], r["targets_bps"][i]) for r in self.rounds]
        total = 0.0
        for k, (t, v) in enumerate(starts):
            t_next = starts[k + 1][0] if k + 1 < len(starts) else math.inf
            lo, hi = max(t, a), min(t_next, b)
            if hi > lo:
                total += v * (hi - lo)
        return total / (b - a) / 1000 if b > a else math.nan

    def event_times(self, what: str) -> list[float]:
        return [e["t_s"] for e in self.events if e["event"] == what]

    def settled_s(self, after: float = 0.0) -> float:
        """When the targets last changed after ``after`` (the start of the last round with new targets)."""
        last, prev = after, None
        for r in self.rounds:
            if r["t_s"] < after:
                prev = r["targets_bps"]
                continue
            if prev is None or any(abs(x - y) > 1e-6 for x, y in zip(r["targets_bps"], prev)):
                last = r["t_s"]
            prev = r["targets_bps"]
        return last


def _interval(a: float, b: float) -> tuple[float, float]:
    return a + min(SETTLE_S, (b - a) / 2), b


def reproduce(ctx: Context) -> Report:
    names = ["remote-bottleneck", "join-leave", "network-events", "per-class"]
    jobs = [ctx.scenario(P, n) for n in names]
    # Fig. 8's trade-off: the same classes controlled per connection (TBW / 3 each).
    per_connection = [{"flow": f"c{k}{x}", "rate": f"{rate // 3}bit/s"}
                      for k, rate in ((1, 3_000_000), (2, 2_000_000), (3, 1_000_000)) for x in "abc"]
    jobs.append(ctx.scenario(P, "per-class", {"elements": [
        {"kind": "darca", "node": "er", "link": "L", "start": "20s", "targets": per_connection}]}))
    # Sensitivity to the isSTABLE tolerance, which the paper does not give: Figs. 5 and 7 again
    # with 20%, wider than the model's error at these windows.
    jobs += [ctx.scenario(P, n, {"elements.0.tolerance": 0.2}) for n in ("remote-bottleneck", "network-events")]
    # The 300 ms class alone, with tcplab's default RTO floor and a wider one (docs/darca.md).
    jobs += [ctx.scenario(P, "long-rtt", {"defaults.tcp.min_rto": m}) for m in ("200ms", "400ms")]
    res = [_Run(r) for r in ctx.run_all(jobs, "darca runs")]
    rows: list[Row] = []
    notes: list[str] = []

    def row(exp: str, c: str, variant: str, metric: str, unit: str, ours: float | None, paper: float | None = None,
            note: str = "", verdict: bool = False) -> Row:
        v = None if ours is None or (isinstance(ours, float) and math.isnan(ours)) else round(float(ours), 3)
        r = Row(exp, c, variant, metric, unit, v, paper, note, verdict=verdict)
        rows.append(r)
        return r

    def pair(exp: str, run: _Run, interval: str, a: float, b: float, unit: str, flows: list[str],
             paper_target: float | None = None, note: str = "") -> tuple[float, float]:
        lo, hi = _interval(a, b)
        tgt = run.mean_target(unit, lo, hi)
        thr = sum(_goodput_kbps(run.ts, f, lo, hi) for f in flows)
        c = f"{interval}/{unit}"
        off = paper_target is not None and paper_target > 0 and abs(tgt / paper_target - 1) > 0.2
        row(exp, c, "darca", "target_kbps", KBPS, tgt, paper_target, note if off or paper_target == 0 and tgt > 0 else "")
        row(exp, c, "darca", "throughput_kbps", KBPS, thr)
        return tgt, thr

    # ---- Fig. 5: remote bottleneck -------------------------------------------------------------------
    rb = res[0]
    start = 100.0
    learn = rb.event_times("enters learning")
    stable = rb.event_times("enters stable")
    settled = rb.settled_s(start)
    end = float(rb.summary["duration_s"])
    a = stable[0] if stable else settled
    tb4_paper = 257.0
    t4 = rb.target_at("tcp4", end)
    bbw4_payload = 250 * PAYLOAD_SHARE
    row("remote-bottleneck", "control", "darca", "learning_starts_s", "s", learn[0] if learn else None, 104.0)
    row("remote-bottleneck", "control", "darca", "stable_starts_s", "s", stable[0] if stable else None, 112.0,
        note="" if stable and abs(stable[0] / 112 - 1) <= 0.2 else
        ("The cycle never entered Stable: " if not stable else f"Stable from {stable[0]:.1f} s: ")
        + f"the targets stopped changing at {settled:.1f} s (row targets_settled_s), but isSTABLE needs every "
          f"connection within {WITHIN:.0%} of its target, and TCP_1 (the smallest window, about 11 packets) carries "
          f"{_goodput_kbps(rb.ts, 'tcp1', a, end) / rb.target_at('tcp1', end):.0%} of its target: Mathis's model, "
          f"which DARCA inverts, leaves out the fast-recovery round trip of each loss cycle (docs/darca.md, Known "
          f"limits). The paper's Reno apparently met the model more closely.")
    row("remote-bottleneck", "control", "darca", "targets_settled_s", "s", settled)
    for u, f in zip(rb.units, ["tcp1", "tcp2", "tcp3", "tcp4"]):
        paper_t = tb4_paper if u == "tcp4" else None
        note = ""
        if u == "tcp4":
            note = (f"Paper: TBW_4 revised to 257 kbit/s, a little above the 250 kbit/s bottleneck; ours ends at "
                    f"{t4:.0f} kbit/s: the learning rounds step 750 x 0.8^n down to the measured rate, and TCP_4's "
                    f"payload rate behind a 250 kbit/s link is {bbw4_payload:.0f} kbit/s (512 of every 564 bytes).")
        tgt = rb.target_at(u, end)
        thr = _goodput_kbps(rb.ts, f, a, end)
        row("remote-bottleneck", f"stable/{u}", "darca", "target_kbps", KBPS, tgt, paper_t,
            note if paper_t and abs(tgt / paper_t - 1) > 0.2 else "")
        row("remote-bottleneck", f"stable/{u}", "darca", "throughput_kbps", KBPS, thr)
        if u != "tcp4":
            ok = abs(thr / tgt - 1) <= WITHIN
            row("verdicts", f"remote-bottleneck/{u}", "darca", "local_within_10pct", "", 1.0 if ok else 0.0, 1.0, verdict=True,
                note="" if ok else f"{thr:.0f} kbit/s for a target of {tgt:.0f} ({thr / tgt:.0%}): the model's "
                f"missing recovery round trip (docs/darca.md, Known limits).")

    # ---- Fig. 6: join and leave ----------------------------------------------------------------------
    jl = res[1]
    fig6 = [("1-100s", 1.0, 100.0, {"tcp1": 500.0, "tcp2": 250.0}),
            ("100-200s", 100.0, 200.0, {"tcp1": 375.0, "tcp2": 250.0, "tcp3": 375.0}),
            ("200-300s", 200.0, 300.0, {"tcp2": 250.0, "tcp3": 500.0})]
    for name, a0, b0, paper in fig6:
        for u in ("tcp1", "tcp2", "tcp3"):
            if u not in paper:
                continue
            note = (f"Paper: {paper[u]:.0f}. TCP_2's bottleneck carries {250 * PAYLOAD_SHARE:.0f} kbit/s of payload; "
                    f"the others share what TCP_2 leaves of the 1000 kbit/s total in proportion to their targets.")
            tgt, thr = pair("join-leave", jl, name, a0, b0, u, [u], paper[u], note)
            if u != "tcp2":
                ok = abs(thr / tgt - 1) <= WITHIN
                row("verdicts", f"join-leave/{name}/{u}", "darca", "local_within_10pct", "", 1.0 if ok else 0.0, 1.0, verdict=True,
                    note="" if ok else f"{thr:.0f} kbit/s for {tgt:.0f} ({thr / tgt:.0%}); see docs/darca.md, Known limits.")
    restarts_jl = jl.event_times("cycle restarts")
    row("join-leave", "control", "darca", "cycle_restarts", "count", float(len(restarts_jl)), 0.0,
        note="" if not restarts_jl else f"Restarts at {', '.join(f'{t:.0f}' for t in restarts_jl)} s.")

    # ---- Fig. 7: network events ----------------------------------------------------------------------
    ne = res[2]
    r_after = lambda t0: next((t for t in ne.event_times("cycle restarts") if t > t0), None)  # noqa: E731
    r1, r2 = r_after(300.0), r_after(400.0)
    row("network-events", "control", "darca", "restart_after_resume_s", "s", r1, 310.0,
        note="" if r1 and abs(r1 / 310 - 1) <= 0.2 else "")
    row("network-events", "control", "darca", "restart_after_rate_increase_s", "s", r2, 415.0)
    e1 = r1 if r1 and r1 < 400 else 400.0
    e2 = r2 if r2 else 500.0
    fig7 = [("1-100s", 1.0, 100.0, {"tcp1": 500.0, "tcp2": 250.0}),
            ("100-200s", 100.0, 200.0, {"tcp1": 650.0, "tcp2": 100.0}),
            ("200-300s", 200.0, 300.0, {"tcp1": 750.0, "tcp2": 0.0}),
            (f"300-{e1:.0f}s", 300.0, e1, {"tcp1": 750.0, "tcp2": 0.0}),
            (f"{e1:.0f}-400s", e1, 400.0, {"tcp1": 650.0, "tcp2": 100.0}),
            (f"400-{e2:.0f}s", 400.0, e2, {"tcp1": 650.0, "tcp2": 100.0}),
            (f"{e2:.0f}-500s", e2, 500.0, {"tcp1": 500.0, "tcp2": 250.0})]
    t2_timeouts = next(f["timeouts"] for f in ne.summary["flows"] if f["name"] == "tcp2")
    restarts_ne = ne.event_times("cycle restarts")
    for name, a0, b0, paper in fig7:
        if b0 - a0 < 1.0:
            continue
        inside = [t for t in restarts_ne if a0 < t < b0]
        for u in ("tcp1", "tcp2"):
            if a0 < 300.0 and paper[u] == 0.0:
                zero = next((r["t_s"] for r in ne.rounds if r["t_s"] > a0 and r["targets_bps"][1] == 0.0), None)
                note = (f"Paper: 0. TCP_2 stops writing at 200 s; what its 64 KB send buffer and its access queue "
                        f"hold still goes out, and the learning rounds set its target to 0 once a whole round saw "
                        f"nothing from it, at {zero:.0f} s" if zero else "Paper: 0; ours never reached 0 here")
                pair("network-events", ne, name, a0, b0, u, [u], paper[u], note + " (the row is time-weighted).")
                continue
            if a0 < 300.0:
                note = (f"Paper: {paper[u]:.0f}. The cycle restarted inside this interval at "
                        f"{', '.join(f'{t:.0f}' for t in inside) or 'no time'} s: a stable-phase measurement left "
                        f"the {WITHIN:.0%} tolerance (TCP_1 runs 5-18% below the model's rate at these windows, and a "
                        f"measurement period spans about one loss cycle), so TCP_1's target fell back to its "
                        f"administrative 250 kbit/s and TCP_2's to 500 until the learning rounds found TCP_2 remote "
                        f"again. The target row is the time-weighted mixture. The paper's restarts came only with "
                        f"its events.")
                pair("network-events", ne, name, a0, b0, u, [u], paper[u], note)
                continue
            note = (f"Paper: {paper[u]:.0f}. After the restart at {e1:.0f} s TCP_2 gets its administrative target "
                    f"back, but it had been blocked (target 0, every packet dropped) since it resumed at 300 s and "
                    f"sits in retransmission backoff ({t2_timeouts} timeouts over the run): it sends nothing in "
                    f"the Initial round, and the learning round that follows finds it silent and sets its target "
                    f"to 0 again (docs/darca.md). The paper's restart came 10 s after the resume, ours "
                    f"{e1 - 300:.0f} s after it, when the backoff interval is longer than a round.")
            pair("network-events", ne, name, a0, b0, u, [u], paper[u], note)
        if a0 >= 1.0 and b0 <= 300.0:
            lo, hi = _interval(a0, b0)
            tgt = ne.mean_target("tcp1", lo, hi)
            thr = _goodput_kbps(ne.ts, "tcp1", lo, hi)
            ok = abs(thr / tgt - 1) <= WITHIN
            row("verdicts", f"network-events/{name}/tcp1", "darca", "local_within_10pct", "", 1.0 if ok else 0.0, 1.0, verdict=True,
                note="" if ok else f"{thr:.0f} kbit/s for {tgt:.0f} ({thr / tgt:.0%}); see docs/darca.md, Known limits.")

    # ---- the 300 ms probe --------------------------------------------------------------------------------
    probe = {}
    for k, m in ((7, 200), (8, 400)):
        run = res[k]
        f = run.summary["flows"][0]
        probe[m] = (run.summary["elements"][0]["counters"]["dropped"], f["timeouts"], f["fast_retransmits"],
                    _goodput_kbps(run.ts, "tcp1", 20.0, float(run.summary["duration_s"])))
        row("long-rtt-probe", "rtt300ms/tcp1", f"min-rto-{m}ms", "darca_drops", "count", float(probe[m][0]))
        row("long-rtt-probe", "rtt300ms/tcp1", f"min-rto-{m}ms", "timeouts", "count", float(probe[m][1]))
        row("long-rtt-probe", "rtt300ms/tcp1", f"min-rto-{m}ms", "fast_retransmits", "count", float(probe[m][2]))
        row("long-rtt-probe", "rtt300ms/tcp1", f"min-rto-{m}ms", "target_kbps", KBPS, run.target_at("tcp1", 1e9))
        row("long-rtt-probe", "rtt300ms/tcp1", f"min-rto-{m}ms", "throughput_kbps", KBPS, probe[m][3])

    # ---- Fig. 8: per-class control -------------------------------------------------------------------
    pcr, pconn = res[3], res[4]
    settled8 = pcr.settled_s(20.0)
    end8 = float(pcr.summary["duration_s"])
    a8 = max(settled8, 20.0)
    members = {"class1": ["c1a", "c1b", "c1c"], "class2": ["c2a", "c2b", "c2c"], "class3": ["c3a", "c3b", "c3c"]}
    for u, fl in members.items():
        tgt = pcr.target_at(u, end8)
        thr = sum(_goodput_kbps(pcr.ts, f, a8, end8) for f in fl)
        admin = {"class1": 3000.0, "class2": 2000.0, "class3": 1000.0}[u]
        row("per-class", f"stable/{u}", "per-class", "admin_target_kbps", KBPS, admin, admin)
        row("per-class", f"stable/{u}", "per-class", "target_kbps", KBPS, tgt,
            1500.0 if u == "class1" else None,
            note="" if u != "class1" or abs(tgt / 1500 - 1) <= 0.2 else
            f"Class 1's bottleneck is 1500 kbit/s on the wire, {1500 * PAYLOAD_SHARE:.0f} of payload.")
        row("per-class", f"stable/{u}", "per-class", "throughput_kbps", KBPS, thr)
        a_c = max(pconn.settled_s(20.0), 20.0)
        thr_c = sum(_goodput_kbps(pconn.ts, f, a_c, end8) for f in fl)
        row("per-class", f"stable/{u}", "per-connection", "target_kbps", KBPS, sum(pconn.target_at(f, end8) for f in fl))
        row("per-class", f"stable/{u}", "per-connection", "throughput_kbps", KBPS, thr_c)
        to = {v: sum(f["timeouts"] for f in run.summary["flows"] if f["name"] in fl) for v, run in
              (("per-class", pcr), ("per-connection", pconn))}
        for v in to:
            row("per-class", f"timeouts/{u}", v, "timeouts", "count", float(to[v]))
        if u != "class1":
            ok = abs(thr / tgt - 1) <= WITHIN
            row("verdicts", f"per-class/{u}", "per-class", "aggregate_within_10pct", "", 1.0 if ok else 0.0, 1.0, verdict=True,
                note="" if ok else f"{thr:.0f} kbit/s for {tgt:.0f} ({thr / tgt:.0%}). Not per-class control's doing: "
                f"controlled per connection the same flows carry {thr_c:.0f} kbit/s. Their RTT is 300 ms and they time "
                f"out {to['per-class']} times over the run ({to['per-connection']} per connection), against "
                f"{sum(f['timeouts'] for f in pcr.summary['flows'] if f['name'] in members['class2'])} for class 2 "
                f"at the same drop rate. Cause, measured (long-rtt-probe rows): tcplab's RTO is RFC 6298's SRTT + "
                f"max(G, 4 RTTVAR) with a 200 ms floor on the total; for a steady 300 ms RTT that is about 301 ms, "
                f"which expires before the third duplicate ACK (RTT + 3 packet times) can trigger the fast "
                f"retransmit, so DARCA's drops end in timeouts. One such flow alone times out on {probe[200][1]} of "
                f"{probe[200][0]} drops and carries {probe[200][3]:.0f} kbit/s; with min_rto 400 ms, {probe[400][1]} "
                f"timeouts in {probe[400][0]} drops and {probe[400][3]:.0f} kbit/s. Linux floors the variance term "
                f"itself at rto_min (RTO >= SRTT + 200 ms) and ns-2's 10 ms ticks widen it: which rule a flow runs "
                f"is the stack-profile question of the fidelity issue.")
    cv = {}
    for v, run in (("per-class", pcr), ("per-connection", pconn)):
        a_v = max(run.settled_s(20.0), 20.0)
        for u, fl in members.items():
            cv[(v, u)] = sum(_cv(run.ts, f, a_v, end8) for f in fl) / len(fl)
            row("per-class", f"oscillation/{u}", v, "per_flow_goodput_cv", "", cv[(v, u)])
    more = [u for u in members if cv[("per-class", u)] > cv[("per-connection", u)]]
    row("verdicts", "per-class/oscillation", "per-class-vs-per-connection", "more_oscillation_per_class", "",
        1.0 if len(more) >= 2 else 0.0, 1.0, verdict=True,
        note="" if len(more) >= 2 else
        f"Per-flow goodput varies more under per-class control in {len(more)} of 3 classes "
        "(" + ", ".join(f"{u}: {cv[('per-class', u)]:.3f} vs {cv[('per-connection', u)]:.3f}" for u in members) + ").")

    # ---- sensitivity: isSTABLE tolerance 20% ----------------------------------------------------------
    rb2, ne2 = res[5], res[6]
    st2 = rb2.event_times("enters stable")
    row("tolerance-20pct", "remote-bottleneck", "darca-tol0.2", "stable_starts_s", "s", st2[0] if st2 else None, 112.0,
        note="" if st2 and abs(st2[0] / 112 - 1) <= 0.2 else "With a 20% tolerance: see the rows' values.")
    row("tolerance-20pct", "remote-bottleneck", "darca-tol0.2", "cycle_restarts", "count",
        float(len(rb2.event_times("cycle restarts"))))
    rs2 = ne2.event_times("cycle restarts")
    row("tolerance-20pct", "network-events", "darca-tol0.2", "cycle_restarts_before_300s", "count",
        float(len([t for t in rs2 if t < 300])), 2.0,
        note="" if len([t for t in rs2 if t < 300]) == 2 else
        f"Restarts at {', '.join(f'{t:.0f}' for t in rs2)} s; the paper's at 100, 200 (its events), 310, 415 s.")
    r1b = next((t for t in rs2 if t > 300), None)
    row("tolerance-20pct", "network-events", "darca-tol0.2", "restart_after_resume_s", "s", r1b, 310.0)
    if r1b is not None and r1b < 390:
        lo, hi = _interval(r1b, 400.0)
        row("tolerance-20pct", f"{r1b:.0f}-400s/tcp2", "darca-tol0.2", "target_kbps", KBPS, ne2.mean_target("tcp2", lo, hi),
            100.0, note="" if abs(ne2.mean_target("tcp2", lo, hi) / 100 - 1) <= 0.2 else
            "TCP_2 is still in retransmission backoff at the restart (see network-events).")
        row("tolerance-20pct", f"{r1b:.0f}-400s/tcp2", "darca-tol0.2", "throughput_kbps", KBPS, _goodput_kbps(ne2.ts, "tcp2", lo, hi))

    notes += [
        "Scenario files: `scenarios/darca/remote-bottleneck.toml` (Fig. 5), `join-leave.toml` (Fig. 6), "
        "`network-events.toml` (Fig. 7: `rate_changes` on TCP_2's access link, `pauses` on its flow) and "
        "`per-class.toml` (Fig. 8; run again with per-connection targets of TBW / 3 for the oscillation rows). "
        "Every run checks the simulator's invariants, DARCA's accounting included (every packet it saw forwarded "
        "or dropped).",
        "Model choices the paper leaves open are in each scenario file and docs/darca.md: RTT_orig 100 ms, drop-tail "
        "queues of 100 packets, MSS 512, an ACK per segment, timestamps on, 64 KB send buffers; DARCA's isSTABLE "
        f"tolerance {WITHIN:.0%}, stable phases of at most 100 s, rounds from eqs. 1 and 2 with a 500 ms floor.",
        f"Throughput rows are the flows' goodput (TCP payload, as the targets) averaged over each interval after "
        f"its first {SETTLE_S:.0f} s (or its first half); target rows are DARCA's target over the same stretch (time-weighted: a cycle restart inside it shows as a mixture, as in the throughput). "
        "Paper values in Figs. 6 and 7 are the targets the text describes; a remote connection's learned target is "
        "its payload rate behind its bottleneck, below the bottleneck's wire rate.",
        "Quick mode runs the same runs as the full one (each a few seconds): same verdicts.",
    ]
    figs = _figures(ctx, res)
    return Report(paper=PAPER, title=TITLE, rows=rows, figures=figs, notes=notes)


def _figures(ctx: Context, res: list[_Run]) -> list[Any]:
    plt = pyplot()
    fig, axs = plt.subplots(2, 2, figsize=(14, 8))
    panels = [(res[0], ["tcp1", "tcp2", "tcp3", "tcp4"], "Fig. 5: remote bottleneck (DARCA on at 100 s)"),
              (res[1], ["tcp1", "tcp2", "tcp3"], "Fig. 6: TCP_3 joins at 100 s, TCP_1 leaves at 200 s"),
              (res[2], ["tcp1", "tcp2"], "Fig. 7: network events at 100, 200, 300, 400 s"),
              (res[3], ["c1a", "c1b", "c1c", "c2a", "c2b", "c2c", "c3a", "c3b", "c3c"], "Fig. 8: per-class control")]
    for ax, (run, flows, title) in zip(axs.flat, panels):
        ts = run.ts
        g = ts[(ts.kind == "flow") & (ts.metric == "goodput_mbps")]
        if title.startswith("Fig. 8"):
            for k, cls in enumerate(("class1", "class2", "class3")):
                sel = g[g.name.isin([f"c{k + 1}{x}" for x in "abc"])].groupby("time_s").value.sum()
                ax.plot(sel.index, sel.rolling(20, min_periods=1).mean() * 1000, label=f"{cls} aggregate")
                xs = [r["t_s"] for r in run.rounds]
                ax.step(xs, [r["targets_bps"][k] / 1000 for r in run.rounds], where="post", ls="--", lw=1, color=f"C{k}")
        else:
            for k, f in enumerate(flows):
                sel = g[g.name == f]
                ax.plot(sel.time_s, sel.value.rolling(20, min_periods=1).mean() * 1000, label=f, color=f"C{k}")
                xs = [r["t_s"] for r in run.rounds]
                i = run.units.index(f)
                ax.step(xs, [r["targets_bps"][i] / 1000 for r in run.rounds], where="post", ls="--", lw=1, color=f"C{k}")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("goodput, 2 s mean (kbit/s); dashed: target")
        ax.set_ylim(0, None)
        ax.legend(fontsize=7)
    return [save_figure(fig, ctx.out / "darca-fig5-8.png",
                        "Figures 5-8: each connection's (class's) goodput and DARCA's target over time")]
