"""Reproduction of Leong Wai Kay's thesis, chapters 5 and 6: RRE and PropRate on the
rate-based congestion-control framework of chapter 4 (``tcplab reproduce rate-based``).

Chapter 5 runs on the ns-2 model of section 5.2.2 (scenarios ``slow-uplink``,
``concurrent-upload``, ``normal``, ``fluctuation``, ``friendliness``); chapter 6 on the
Mahimahi cellular traces (``trace``, ``congested-uplink``). The thesis states few numbers in
its text (most results are figures): those it states are in the ``paper`` column, as it states
them (a value, a range such as "between 2 to 4 times", a bound such as "at least 75%"); every
other row has ``paper = None`` and is there to be read against the figure named in its
experiment. A row that disagrees is explained by a note reading the measured rows that show the
mechanism, or counted unexplained (issue 35); ``CLAIMS`` lists the thesis's claims and their
rows, ``BESIDE`` the ns-2 agent of ``--beside ns2``.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

from . import Claim, Context, Fact, Note, PaperClaim, Report, Row, every_case, pyplot, save_figure

PAPER = (
    "Leong Wai Kay, A Rate-based TCP Congestion Control Framework for Cellular Data Networks, "
    "PhD thesis, National University of Singapore, 2014 (chapters 4-6)"
)
TITLE = "Rate-based TCP congestion control: RRE and PropRate (thesis chapters 5 and 6)"
P = "rate-based"

#: `--beside ns2`: ns-2.35 with the thesis's agent. The keys are those bench/ns2-compare's
#: chapter-5 scenarios (ch5-concurrent-upload.toml, ch5-slow-uplink.toml) set over the `ns2`
#: profile, validated there against ns-2.35 runs of the same model: `Agent/TCP/Linux` with
#: `TCPSink/Sack1`. Its window-based agents run with timestamps off (`timestamps_ false`), as
#: validated; the rate-based senders and Sprout get them on, flow by flow (`_scenario`): the
#: thesis's ns-2 RRE agent reads the receiver's TSval (4.1.2), and without it our endpoint would
#: run CUBIC in its place. Scenario keys still win (the topology, `nagle`, the receive-window
#: ablations' `rcv_buf`).
NS2_AGENT = {
    "defaults.tcp.ts_granularity": "1ms",
    "defaults.tcp.mss": "1460B",
    "defaults.tcp.sack": True,
    "defaults.tcp.recovery": "ns2_linux",
    "defaults.tcp.timestamps": False,
    "defaults.tcp.window_scale": True,
    "defaults.tcp.initial_cwnd_pkts": 2,
    "defaults.tcp.initial_rto": "3s",
    "defaults.tcp.min_rto": "200ms",
    "defaults.tcp.max_rto": "120s",
    "defaults.tcp.delayed_ack": False,
    "defaults.tcp.nagle": False,
    "defaults.tcp.frto": False,
    "defaults.tcp.rto_restart": "any_ack",
    "defaults.tcp.handshake": False,
    "defaults.tcp.rtt_source": "ns2_linux",
    "defaults.tcp.abc_limit_pkts": 1,
    "defaults.tcp.rcv_buf": "14600000B",
    "defaults.tcp.snd_buf": "16MB",
}
BESIDE = {"ns2": (NS2_AGENT, (
    "ns-2.35's Agent/TCP/Linux with TCPSink/Sack1, as bench/ns2-compare validated it for the thesis's chapter-5 "
    "model (its ch5 scenarios' keys over the ns2 profile: 1460-byte segments, an ACK per segment, ScoreBoard1 "
    "recovery, no handshake, initial RTO 3 s); timestamps on for the rate-based senders and Sprout only (the "
    "thesis's agent reads the receiver's TSval), off for the window-based ones as in ns-2"))}

#: Every claim of the thesis's abstract, evaluation (sections 5.2 and 6.2, with their
#: summaries 5.3 and 6.3) and conclusion (chapter 7) that its model can check, with the rows
#: that check it. Not listed, having no experiment here: the measurement study (chapter 3),
#: the Linux-kernel and live-network runs (5.2.8, 6.2.7), Sprout's "relatively low variance"
#: on the mobile traces (6.2.2) and Sprout's confidence sweep on the ISP C trace (6.2.5),
#: whose direction the thesis states two ways.
CLAIMS: list[PaperClaim] = [
    PaperClaim("abstract; chapter 7", "we can achieve high throughput/utilization in the presence of a saturated or "
               "congested uplink", ("concurrent-upload/all/rre-vs-*/goodput_ratio_median",
                                    "congested-uplink/*/rate-based-vs-cwnd-based/throughput_ratio_min")),
    PaperClaim("abstract; chapter 7", "the algorithms can optimize and tradeoff between throughput and delay",
               ("fig6.8a-proprate-frontier/T=20ms-vs-T=60ms/proprate/*",)),
    PaperClaim("abstract", "a quick reacting rate-based algorithm can perform just as well, if not better by "
               "maintaining a higher throughput", ("frontier-sprout/frontier/sprout-rate-vs-proprate/*",
                                                   "frontier-proteus/all/proteus-vs-proprate/max_throughput_ratio")),
    PaperClaim("section 5.2.3, Fig. 5.5", "RRE is able to achieve a higher goodput than CUBIC when the uplink is a much "
               "slower than the downlink", ("fig5.5-rre-vs-cubic/below-threshold/rre-vs-cubic/goodput_ratio_median",)),
    PaperClaim("section 5.2.3", "RRE is able to achieve a downlink utilization close to 80% for 90% of the scenarios",
               ("fig5.5-rre-vs-cubic/below-threshold/rre/fraction_util_ge_80pct",)),
    PaperClaim("section 5.2.4, Fig. 5.6", "the achieved goodputs for TCP-Reno, CUBIC and TCP Westwood are extremely "
               "similar", ("concurrent-upload/all/cubic-newreno-westwood/goodput_median_max_over_min",)),
    PaperClaim("section 5.2.4, Fig. 5.6", "TCP Vegas performs relatively poorly and is starved about 30% of the time",
               ("concurrent-upload/all/vegas/fraction_starved",)),
    PaperClaim("section 5.2.4, Fig. 5.6; section 5.3", "RRE is able to achieve downlink goodput that is between 2 to 4 "
               "times of that for the other window-based ACK-clocked TCP variants",
               ("concurrent-upload/all/rre-vs-cubic/goodput_ratio_median",
                "concurrent-upload/all/rre-vs-newreno/goodput_ratio_median",
                "concurrent-upload/all/rre-vs-westwood/goodput_ratio_median")),
    PaperClaim("section 5.2.5, Fig. 5.7; section 5.3", "the achieved downstream goodput are all comparable; RRE performs "
               "no worse than CUBIC under regular link conditions", ("fig5.7-normal/all/rre-vs-*/goodput_ratio_median",)),
    PaperClaim("section 5.2.5, Fig. 5.7", "RRE performs slightly better than the other variants when the downlink "
               "bandwidth is high", ("fig5.7-normal/*/rre-vs-all/goodput_ratio_min",)),
    PaperClaim("section 5.2.6, Fig. 5.9", "the achieved receive rate is comparable to CUBIC ... converges to the correct "
               "send rate within a few seconds", ("fig5.9-fluctuation/all/rre-vs-cubic/link_utilization_ratio_min",)),
    PaperClaim("section 5.2.7, Fig. 5.10", "RRE and TCP Vegas ... achieves a fairness index value consistently above "
               "0.95", ("fig5.10-friendliness/all/rre-vs-rre/jain_min", "fig5.10-friendliness/all/vegas-vs-vegas/jain_min")),
    PaperClaim("section 5.2.7, Fig. 5.10", "RRE and TCP Vegas are significantly more fair when contending with the same "
               "variant ... compared to CUBIC and TCP-Reno",
               ("fig5.10-friendliness/all/*-vs-cubic-and-newreno-self/jain_median_ratio",)),
    PaperClaim("section 5.2.7, Fig. 5.10", "if we start a RRE flow first, a subsequent CUBIC flow would ... cause RRE to "
               "back-off and significantly reduce its rate below the 'fair' rate; if a CUBIC flow starts first, a "
               "subsequent RRE flow is able to acquire a reasonably fair share",
               ("fig5.10-friendliness/all/rre-vs-cubic/rre_share_median", "fig5.10-friendliness/all/cubic-vs-rre/rre_share_median",
                "fig5.10-friendliness/all/rre-first-vs-second/rre_share_ratio")),
    PaperClaim("section 6.2.2, Figs. 6.1-6.4", "Westwood achieves lower delays than CUBIC at slightly lower throughputs",
               ("traces-claims/all/westwood-vs-cubic/*",)),
    PaperClaim("section 6.2.2, Figs. 6.1-6.4", "Vegas outperformed Sprout in terms of latency for all the traces",
               ("traces-claims/all/vegas-vs-sprout/owd_p95_ratio_max",)),
    PaperClaim("section 6.2.2, Figs. 6.1-6.4", "PropRate (high) is able to achieve high throughputs that are relatively "
               "close to the optimal value", ("traces-claims/all/proprate-high/throughput_over_capacity_median",)),
    PaperClaim("section 6.2.2, Figs. 6.1-6.4", "PropRate (low) is able to achieve low delays comparable to Sprout and "
               "Vegas, but at a higher throughput", ("traces-claims/all/proprate-low-vs-vegas/throughput_ratio_median",
                                                     "traces-claims/all/proprate-low-vs-sprout/throughput_ratio_median",
                                                     "traces-claims/all/vegas-vs-proprate-low/owd_p95_ratio_median")),
    PaperClaim("section 6.2.3, Fig. 6.5", "the background uplink flow will significantly degrade the performance of the "
               "downlink by at least 75% for all the algorithms", ("congested-uplink/*/all/degradation_min",)),
    PaperClaim("section 6.2.3, Fig. 6.5", "our rate-based algorithms are significantly more resilient than the "
               "cwnd-based algorithms", ("congested-uplink/*/rate-based-vs-cwnd-based/throughput_ratio_min",)),
    PaperClaim("section 6.2.3, Fig. 6.5", "Both Vegas and Sprout are effectively starved",
               ("congested-uplink/*/vegas-and-sprout/degradation_min",)),
    PaperClaim("section 6.2.4, Fig. 6.7", "the errors have a marginal effect on the latency",
               ("fig6.7-estimation-error/cv=1/*/owd_p95_ratio", "fig6.7-estimation-error/cv=1/*/owd_mean_ratio")),
    PaperClaim("section 6.2.4, Fig. 6.7", "Degradation was about 10% when the standard deviation of the errors "
               "introduced was up to 100% of the mean", ("fig6.7-estimation-error/cv=1/*/throughput_degradation",)),
    PaperClaim("section 6.2.5, Fig. 6.8(a)", "the achieved latency is lower with a smaller threshold, at the cost of "
               "reduced throughput", ("fig6.8a-proprate-frontier/T=20ms-vs-T=60ms/proprate/*",)),
    PaperClaim("section 6.2.5, Fig. 6.8(a)", "The throughput however will drop off quite steeply when the threshold T "
               "is reduced below 20 ms", ("fig6.8a-proprate-frontier/below-vs-above-T=20ms/proprate/*",)),
    PaperClaim("section 6.2.5, Fig. 6.8(b)", "somewhat lower latencies by using the PROTEUS forecasting algorithm, at the "
               "cost of slightly lower throughput compared to PropRate", ("frontier-proteus/all/proteus-vs-proprate/*",)),
    PaperClaim("section 6.2.5, Fig. 6.8(c)", "by using the Sprout forecasting algorithm, we again can achieve lower "
               "latencies than PropRate, but at a cost to the achieved throughput",
               ("frontier-sprout/all/sprout-rate-vs-proprate/min_owd_p95_ratio", "frontier-sprout/same-gains/*")),
    PaperClaim("section 6.2.5, Fig. 6.8(d)", "it was not possible to sufficiently drain the buffer to achieve low "
               "latencies by just varying these parameters", ("fig6.8d-rre-frontier/all/rre-vs-proprate/min_owd_p95_ratio",)),
    PaperClaim("section 6.2.6, Fig. 6.9(a)", "CUBIC is in fact not very fair when contending with another CUBIC flow and "
               "... PropRate is relatively friendly to itself", ("fig6.9-trace-friendliness/all/proprate-self/jain_min",
                                                                  "fig6.9-trace-friendliness/all/cubic-vs-proprate-self/*")),
    PaperClaim("section 6.2.6, Fig. 6.9(b)", "if it [CUBIC] starts first ... PropRate still achieves slightly higher "
               "throughputs than Sprout and Vegas", ("fig6.9-trace-friendliness/all/proprate-behind-cubic/*",)),
    PaperClaim("section 6.2.6, Fig. 6.9(b)", "If the CUBIC flow were to start later, then PropRate and Sprout are able to "
               "obtain a significantly larger share", ("fig6.9-trace-friendliness/all/*-vs-cubic/share_first_over_second",)),
    PaperClaim("chapter 7; section 6.3", "a simple algorithm like PropRate can perform better given the correct "
               "parameters", ("frontier-sprout/frontier/sprout-rate-vs-proprate/throughput_ratio_median_at_same_delay",)),
]

#: Chapter 5 window-based baselines ("TCP-Reno" is NewReno with SACK here).
CH5_BASELINES = ["cubic", "newreno", "westwood", "vegas"]
#: Chapter 6 algorithms, in the order of the Figure 6.1 legend.
CH6 = ["cubic", "newreno", "vegas", "westwood", "rre", "proprate-high", "proprate-low"]
#: The `cc` each chapter-6 variant runs: chapter 6's RRE is Table 6.1's row (T = 40 ms,
#: sigma = (1 -+ 20/(40 + RTT)) rho, 6.2.1), not chapter 5's packet-based RRE.
CH6_CC = {"rre": "rre-table6.1"}
#: The forecasting algorithms of 6.1.3 on the traces: Sprout-Rate (the thesis's port) and
#: Sprout itself (its baseline, `cc = "sprout"`: the receiver's forecast back in a TCP option).
TRACE_EXTRA = ["sprout-rate", "sprout"]
#: The LTE traces (the Sprout paper's claims are about its LTE and 3G traces; its Figure 1 is
#: Verizon LTE).
LTE = ["ATT-LTE-driving", "ATT-LTE-driving-2016", "TMobile-LTE-short", "Verizon-LTE-short"]


#: Figures 6.1-6.4 also show PROTEUS-Rate (6.1.2; its training period excluded).
CH6_TRACES = CH6 + ["proteus-rate"]
#: PROTEUS-Rate's training period at its defaults: 64 windows of 500 ms (6.1.2), plus the
#: handshake and the first window's start; the `*_after_training` rows start here.
PROTEUS_TRAIN_S = 33.0


def _after(res: Any, from_s: float) -> dict[str, float] | None:
    """A flow's goodput and its mean one-way delay (weighted by the interval's goodput, so by
    the packets delivered) over the time series after ``from_s``; ``None`` when the run ends
    before it."""
    ts = res.timeseries
    f = ts[(ts.kind == "flow") & (ts.time_s > from_s)]
    g = f[f.metric == "goodput_mbps"].set_index("time_s").value
    o = f[f.metric == "owd_ms"].set_index("time_s").value
    if g.empty:
        return None
    both = (g * o).dropna()
    w = g[both.index].sum()
    return {"throughput_mbps": float(g.mean()), "owd_mean_ms": float(both.sum() / w) if w > 0 else float("nan")}


def _ch6_cc(variant: str) -> str:
    return CH6_CC.get(variant, variant)
TRACE_DIR = "../../traces/cellular"
#: Traces with both directions (TMobile-LTE-driving has no uplink file).
TRACES = [
    "ATT-LTE-driving",
    "ATT-LTE-driving-2016",
    "TMobile-LTE-short",
    "TMobile-UMTS-driving",
    "Verizon-EVDO-driving",
    "Verizon-LTE-short",
]

#: The modelling difference every chapter-5 explanation shares (a Note's text and its facts).
NS2 = ("ns-2 model against ours: the thesis's ns-2 TCP agents (Linux-like CUBIC, Reno, Westwood and Vegas ports) "
       "and its unspecified ACK policy differ from our RFC endpoint (delayed ACKs every {dack} segments, SACK, "
       "{mss} MSS, {ack} ACKs)")
NS2_FACTS = {"dack": Fact(2), "mss": Fact(1448, "byte"), "ack": Fact(52, "byte")}


#: The senders that read the receiver's clock off its TSval (the framework of chapter 4,
#: thesis 4.3.4: "it does require the TCP timestamp option to be enabled") or, Sprout, carry
#: their forecast beside it: their flows have timestamps on under every set of rules (the
#: `ns2` profile's Agent/TCP/Linux has them off, and would run CUBIC in their place).
NEED_TIMESTAMPS = frozenset({"rre", "rre-table6.1", "proprate", "proprate-high", "proprate-low", "proprate-target",
                             "sprout-rate", "proteus-rate", "sprout"})
_FILE_CCS: dict[str, list[str | None]] = {}


def _scenario(ctx: Context, name: str, overrides: dict[str, Any]) -> Any:
    """``scenarios/rate-based/<name>.toml`` with ``overrides``, and ``tcp.timestamps = true``
    on every flow whose cc needs them (NEED_TIMESTAMPS), whatever the run's TCP rules: the
    rules never turn a rate-based sender into another one."""
    if name not in _FILE_CCS:
        import tomllib

        from . import SCENARIOS
        with open(SCENARIOS / P / f"{name}.toml", "rb") as f:
            _FILE_CCS[name] = [fl.get("cc") for fl in tomllib.load(f).get("flows", [])]
    extra = {f"flows.{i}.tcp.timestamps": True for i, cc in enumerate(_FILE_CCS[name])
             if overrides.get(f"flows.{i}.cc", cc) in NEED_TIMESTAMPS}
    return ctx.scenario(P, name, {**overrides, **extra})


def _run_all(ctx: Context, jobs: list[Any], label: str) -> list[Any]:
    """``ctx.run_all``, refusing a run in which a flow ran another controller than it asked
    for (the summary's ``cc_effective``, where the simulator reports it)."""
    res = ctx.run_all(jobs, label)
    for r in res:
        for f in r.summary["flows"]:
            if f.get("cc_effective", f["cc"]) != f["cc"]:
                raise RuntimeError(f"{label}: flow {f['name']} asked for {f['cc']} and ran {f['cc_effective']}; its "
                                   "numbers are not the mechanism's")
    return res


def _row(rep: Report, r: Row, note: str | Note = "") -> Row:
    """Appends ``r``; an explanation of a disagreement with the thesis is attached only when
    the row disagrees (a row without a claim keeps its remark)."""
    if note and r.consistent() is not True:
        r.note = note
    rep.rows.append(r)
    return r


def _mbps(r: str) -> float:
    return float(r.removesuffix("kbit/s")) / 1000 if r.endswith("kbit/s") else float(r.removesuffix("Mbit/s"))


def _flow(res: Any, i: int = 0) -> dict[str, Any]:
    return res.summary["flows"][i]


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


# ----------------------------------------------------------------------------- chapter 5


def slow_uplink(ctx: Context, rep: Report) -> None:
    """Figures 5.4 and 5.5: CUBIC's utilisation against the uplink rate, then RRE against
    CUBIC where the uplink throttles CUBIC."""
    if ctx.quick:
        downs = ["2Mbit/s", "8Mbit/s"]
        ups = ["20kbit/s", "60kbit/s", "200kbit/s", "1000kbit/s"]
    else:
        downs = ["1Mbit/s", "2Mbit/s", "4Mbit/s", "6Mbit/s", "8Mbit/s"]
        ups = [f"{u}kbit/s" for u in (10, 20, 30, 40, 60, 80, 100, 150, 200, 300, 500, 1000)]
    grid = [(d, u) for d in downs for u in ups]
    jobs = [
        _scenario(ctx, "slow-uplink", {"topology.downlink.rate": d, "topology.uplink.rate": u, "flows.0.cc": cc})
        for cc in ("cubic", "rre")
        for d, u in grid
    ]
    res = _run_all(ctx, jobs, "slow uplink (Fig. 5.4/5.5)")
    n = len(grid)
    util = {
        cc: {g: _flow(r)["goodput_mbps"] / _mbps(g[0]) for g, r in zip(grid, res[k * n : (k + 1) * n])}
        for k, cc in enumerate(("cubic", "rre"))
    }
    for d in downs:
        for u in ups:
            rep.rows.append(Row("fig5.4-slow-uplink", f"down={d},up={u}", "cubic", "utilization", "", round(util["cubic"][(d, u)], 4)))
    # "Below the threshold": where CUBIC reaches less than 90% of its best utilisation on
    # that downlink (the dotted line of Figure 5.4).
    below = []
    for d in downs:
        best = max(util["cubic"][(d, u)] for u in ups)
        below += [(d, u) for u in ups if util["cubic"][(d, u)] < 0.9 * best]
    rre_u = [util["rre"][g] for g in below]
    ratio = [util["rre"][g] / util["cubic"][g] for g in below if util["cubic"][g] > 0]
    frac80 = sum(x >= 0.8 for x in rre_u) / len(rre_u) if rre_u else None
    # Ablation: which delay (5.5)/(5.6) divide by. The default is RTT_min (section 6.2.1);
    # behind a slow uplink the feedback actually takes the smoothed RTT, ACK queueing included.
    abl = _run_all(ctx, 
        [
            _scenario(ctx, "slow-uplink", {"topology.downlink.rate": d, "topology.uplink.rate": u, "flows.0.cc": "rre",
                                            "flows.0.tcp.rre_feedback_delay": "srtt"})
            for d, u in below
        ],
        "slow uplink, RRE with (5.5)/(5.6) over the smoothed RTT (ablation)",
    )
    srtt_u = [_flow(r)["goodput_mbps"] / _mbps(g[0]) for g, r in zip(below, abl)]
    frac80_srtt = sum(x >= 0.8 for x in srtt_u) / len(srtt_u) if srtt_u else None
    e55 = "fig5.5-rre-vs-cubic/below-threshold"
    # "RRE is able to achieve a downlink utilization close to 80% for 90% of the scenarios"
    # (5.2.3): a value, the share of below-threshold configurations at 80% or more.
    _row(rep, Row("fig5.5-rre-vs-cubic", "below-threshold", "rre", "fraction_util_ge_80pct", "", frac80, Claim.at_least(
        0.9, why="'RRE is able to achieve a downlink utilization close to 80% for 90% of the scenarios' (5.2.3): a share "
                 "of at least 90% of the below-threshold configurations at 80% or more (the 75% row holds the looser "
                 "reading of 'close to')")), Note(
        "{f:.0%} of our below-threshold configurations reach {bar:.0%} utilisation ({u75:.0%} reach {bar75:.0%}). Two "
        "causes: the {size} transfer's own ceiling is low at high downlink rates (the `utilization_fast_uplink` rows, "
        "down to {ceil:.2f}: Slow Start's bursts and the last packet's propagation are a large part of a short "
        "transfer), and behind a slow uplink RRE drains at half of rho (RTT = RTT_min in eq. 5.6) while the feedback "
        "takes seconds: with the smoothed RTT in eqs. 5.5 and 5.6 {srtt:.0%} reach it (the `rre-srtt-feedback` row). "
        + NS2 + ".", f=f"{e55}/rre/fraction_util_ge_80pct", u75=f"{e55}/rre/fraction_util_ge_75pct", bar=Fact(0.8),
        bar75=Fact(0.75), size=Fact(1, "MB"), srtt=f"{e55}/rre-srtt-feedback/fraction_util_ge_80pct",
        ceil=lambda v: min(v(f"fig5.5-rre-vs-cubic/down={d},up={ups[-1]}/rre/utilization_fast_uplink") for d in downs),
        **NS2_FACTS))
    _row(rep, Row("fig5.5-rre-vs-cubic", "below-threshold", "rre", "fraction_util_ge_75pct", "",
                  sum(x >= 0.75 for x in rre_u) / len(rre_u) if rre_u else None),
         Note("'close to {bar:.0%}' read as at least {bar75:.0%}.", bar=Fact(0.8), bar75=Fact(0.75)))
    _row(rep, Row("fig5.5-rre-vs-cubic", "below-threshold", "rre-srtt-feedback", "fraction_util_ge_80pct", "", frac80_srtt),
         Note("Ablation (tcp key rre_feedback_delay = \"srtt\"): the smoothed RTT instead of RTT_min in eqs. 5.5 and "
              "5.6."))
    rep.rows += [
        Row("fig5.5-rre-vs-cubic", "below-threshold", "rre-vs-cubic", "goodput_ratio_median", "", _median(ratio),
            Claim.at_least(1.0, why="'RRE is able to achieve a higher goodput than CUBIC when the uplink is a much slower "
                                    "than the downlink' (5.2.3): the median over the below-threshold configurations of "
                                    "RRE's goodput over CUBIC's above one")),
        Row("fig5.5-rre-vs-cubic", "below-threshold", "rre", "configs", "", float(len(below))),
    ]
    # What a 1 MB transfer can reach at all: RRE's utilisation with the fastest uplink of the
    # grid, per downlink. Goodput counts from the application's start (the connection is
    # already open, as ns-2 has no handshake), so Slow Start's bursts and the last packet's
    # propagation are in it and the ceiling falls as the transfer time shrinks; the 80% bar
    # is out of reach where this is below 0.8.
    fastest = ups[-1]
    for d in downs:
        rep.rows.append(Row("fig5.5-rre-vs-cubic", f"down={d},up={fastest}", "rre", "utilization_fast_uplink", "",
                            round(util["rre"][(d, fastest)], 4)))
    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for d in downs:
        ax[0].plot([_mbps(u) * 1000 for u in ups], [util["cubic"][(d, u)] for u in ups], marker="o", label=f"down {d}")
    ax[0].set_xscale("log")
    ax[0].set_xlabel("uplink bandwidth (kbit/s)")
    ax[0].set_ylabel("downlink utilisation")
    ax[0].set_title("Fig. 5.4: CUBIC, 1 MB download")
    ax[0].legend(fontsize=7)
    ax[1].scatter([util["cubic"][g] * _mbps(g[0]) for g in below], [util["rre"][g] * _mbps(g[0]) for g in below], s=12)
    m = max([util["rre"][g] * _mbps(g[0]) for g in below] + [1.0])
    ax[1].plot([0, m], [0, m], "k:", lw=1)
    ax[1].set_xlabel("CUBIC goodput (Mbit/s)")
    ax[1].set_ylabel("RRE goodput (Mbit/s)")
    ax[1].set_title("Fig. 5.5: slow uplinks (below threshold)")
    rep.figures.append(save_figure(fig, ctx.out / "fig5_4_5_5_slow_uplink.png", "Figures 5.4 and 5.5: CUBIC utilisation vs uplink; RRE vs CUBIC below the threshold"))


def concurrent_upload(ctx: Context, rep: Report) -> None:
    """Figure 5.6: goodput ratio RRE / X of a 1 MB download behind a CUBIC upload."""
    if ctx.quick:
        delays, ups, downs = [2, 8], [500, 1500, 3000], [1000, 4000, 8000]
    else:
        delays = list(range(1, 11))
        ups = list(range(250, 3001, 250))
        downs = list(range(500, 8001, 500))
    grid = [(t, u, d) for t in delays for u in ups for d in downs]
    variants = ["rre"] + CH5_BASELINES
    jobs = [
        _scenario(ctx, "concurrent-upload", {
            "flows.0.start": f"{t}s", "topology.uplink.rate": f"{u}kbit/s",
            "topology.downlink.rate": f"{d}kbit/s", "flows.0.cc": cc,
        })
        for cc in variants
        for t, u, d in grid
    ]
    # Ablation: CUBIC whose slow start adds 2 segments per delayed ACK (Linux since 3.9 adds
    # every segment an ACK covers; RFC 5681, ns-3 and Linux before 3.9 add one per ACK).
    jobs += [
        _scenario(ctx, "concurrent-upload", {
            "flows.0.start": f"{t}s", "topology.uplink.rate": f"{u}kbit/s",
            "topology.downlink.rate": f"{d}kbit/s", "flows.0.cc": "cubic", "flows.0.tcp.abc_limit_pkts": 2,
        })
        for t, u, d in grid
    ]
    res = _run_all(ctx, jobs, "concurrent upload (Fig. 5.6)")
    n = len(grid)
    good = {cc: [_flow(r)["goodput_mbps"] for r in res[k * n : (k + 1) * n]] for k, cc in enumerate(variants + ["cubic-abc2"])}
    abc2 = [a / b if b > 0 else math.inf for a, b in zip(good["rre"], good["cubic-abc2"])]
    _row(rep, Row("concurrent-upload", "all", "rre-vs-cubic-abc2", "goodput_ratio_median", "", _median(abc2)), Note(
        "Ablation (tcp key abc_limit_pkts = {k}): CUBIC's slow start grows by the {k} segments a delayed ACK covers, as "
        "Linux has since {lv}, instead of one segment per ACK (RFC 5681, ns-3, Linux before {lv}). The thesis does not "
        "say which its baselines did.", k=Fact(2), lv=Fact("version 3.9")))
    ratios = {}
    for cc in CH5_BASELINES:
        ratios[cc] = [a / b if b > 0 else math.inf for a, b in zip(good["rre"], good[cc])]
        # 5.2.4: "RRE is able to achieve downlink goodput that is between 2 to 4 times of that for
        # the other window-based ACK-clocked TCP variants": a range (Vegas is the thesis's
        # starved exception, stated apart).
        paper = None if cc == "vegas" else Claim.between(2.0, 4.0, why=(
            "'between 2 to 4 times of that for the other window-based ACK-clocked TCP variants' (5.2.4): a range, "
            "for the median over the grid's configurations; Vegas is stated apart"))
        med = _median(ratios[cc])
        cu = "concurrent-upload/all"
        abc = ("; with CUBIC's slow start growing by the {k} segments a delayed ACK covers, the median against it falls "
               "to {abc:.3g} (the `rre-vs-cubic-abc2` row)" if cc == "cubic" else
               " (the `rre-vs-cubic-abc2` row measures how much of CUBIC's gap that accounts for)")
        _row(rep, Row("concurrent-upload", "all", f"rre-vs-{cc}", "goodput_ratio_median", "", med, paper), Note(
            "Our median ratio is {m:.3g}, the middle half of the configurations from {p25:.3g} to {p75:.3g}, and "
            "{f:.0%} of them in the thesis's range. Behind the uplink buffer ({buf} of ACKs at the slowest uplink's "
            "{up} drain in {drain}) the {size} download is timed in RTTs of seconds, and the thesis says slow start "
            "dominates such a transfer; with one segment per delayed ACK it grows by half a window per RTT, while RRE "
            "needs its Slow Start burst's feedback and then paces" + abc + ". " + NS2 + ".",
            m=f"{cu}/rre-vs-{cc}/goodput_ratio_median", p25=f"{cu}/rre-vs-{cc}/goodput_ratio_p25",
            p75=f"{cu}/rre-vs-{cc}/goodput_ratio_p75", f=f"{cu}/rre-vs-{cc}/fraction_ratio_2_to_4",
            buf=Fact(1, "MB"), size=Fact(1, "MB"), up=Fact(ups[0], "kbit/s"), drain=Fact(8e6 / (ups[0] * 1000), "s"), k=Fact(2),
            abc=f"{cu}/rre-vs-cubic-abc2/goodput_ratio_median", **NS2_FACTS) if paper is not None else "")
    for cc in ("cubic", "newreno", "westwood"):
        r = sorted(ratios[cc])
        in_2_4 = sum(2 <= x <= 4 for x in r) / len(r)
        rep.rows.append(Row("concurrent-upload", "all", f"rre-vs-{cc}", "goodput_ratio_p25", "", r[len(r) // 4]))
        rep.rows.append(Row("concurrent-upload", "all", f"rre-vs-{cc}", "goodput_ratio_p75", "", r[3 * len(r) // 4]))
        rep.rows.append(Row("concurrent-upload", "all", f"rre-vs-{cc}", "fraction_ratio_2_to_4", "", in_2_4))
    # "TCP Vegas ... is starved about 30% of the time by the concurrent upload": starved =
    # less than 5% of the downlink (the thesis gives no definition).
    starved = {cc: sum(g < 0.05 * d / 1000 for g, (_, _, d) in zip(good[cc], grid)) / n for cc in variants}
    # "TCP Vegas performs relatively poorly and is starved about 30% of the time by the
    # concurrent upload" (5.2.4): a value.
    vegas_note = Note(
        "Vegas is the most starved variant, as in the thesis, but in {v:.0%} of our configurations. Behind the "
        "uplink buffer every ACK-clocked download waits for the same delayed ACKs (CUBIC, Reno and Westwood+ are "
        "starved in {c:.0%}, {r:.0%} and {w:.0%} here). Vegas (Linux tcp_vegas rules) also takes the RTT that the "
        "upload's queue adds for a queue of its own while the upload is still filling the buffer, and gives up a "
        "segment per RTT of seconds (its share of the gap is not measured separately). Starved = under {thr:.0%} of "
        "the downlink, our definition; the thesis gives none.", v="concurrent-upload/all/vegas/fraction_starved",
        c="concurrent-upload/all/cubic/fraction_starved", r="concurrent-upload/all/newreno/fraction_starved",
        w="concurrent-upload/all/westwood/fraction_starved", thr=Fact(0.05))
    for cc in variants:
        _row(rep, Row("concurrent-upload", "all", cc, "fraction_starved", "", starved[cc], Claim.value(0.3, abs_tol=0.1, why=(
            "'starved about 30% of the time' (5.2.4): 'about' read as 10 points either way, a reading off Fig. 5.6's "
            "CDF")) if cc == "vegas" else None),
             vegas_note if cc == "vegas" else "")
    # "(i) the achieved goodputs for TCP-Reno, CUBIC and TCP Westwood are extremely similar ...
    # it is hard to tell them apart" (5.2.4).
    meds = [_median(good[cc]) for cc in ("cubic", "newreno", "westwood")]
    rep.rows.append(Row("concurrent-upload", "all", "cubic-newreno-westwood", "goodput_median_max_over_min", "",
                        max(meds) / min(meds) if min(meds) > 0 else None, Claim.at_most(1.1, why=(
                            "'the achieved goodputs for TCP-Reno, CUBIC and TCP Westwood are extremely similar' (5.2.4, "
                            "Fig. 5.6: 'hard to tell them apart'): no number; read as their median goodputs within 10% "
                            "of each other"))))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for cc in CH5_BASELINES:
        xs = sorted(min(x, 100.0) for x in ratios[cc])
        ax.plot(xs, [(i + 1) / len(xs) for i in range(len(xs))], label=f"RRE / {cc}")
    ax.set_xscale("log")
    ax.set_xlabel("goodput ratio (RRE / other), 1 MB download behind a CUBIC upload")
    ax.set_ylabel("CDF")
    ax.axvspan(2, 4, color="0.9")
    ax.legend()
    ax.set_title("Fig. 5.6 (shaded: the thesis's 2-4x)")
    rep.figures.append(save_figure(fig, ctx.out / "fig5_6_concurrent_upload.png", f"Figure 5.6: CDF over {n} configurations of the goodput ratio RRE / other"))


def normal(ctx: Context, rep: Report) -> None:
    """Figures 5.7 and 5.8: 10 MB downloads with a fast uplink."""
    downs = [1000, 4000, 8000] if ctx.quick else list(range(500, 8001, 500))
    variants = ["rre"] + CH5_BASELINES
    jobs = [_scenario(ctx, "normal", {"topology.downlink.rate": f"{d}kbit/s", "flows.0.cc": cc}) for cc in variants for d in downs]
    res = _run_all(ctx, jobs, "normal conditions (Fig. 5.7)")
    n = len(downs)
    good = {cc: [_flow(r)["goodput_mbps"] for r in res[k * n : (k + 1) * n]] for k, cc in enumerate(variants)}
    for cc in variants:
        mean_util = statistics.mean(g / (d / 1000) for g, d in zip(good[cc], downs))
        rep.rows.append(Row("fig5.7-normal", "all", cc, "utilization_mean", "", mean_util))
    top = []
    for cc in CH5_BASELINES:
        # "the achieved downstream goodput are all comparable" (5.2.5); "it performs no worse
        # than CUBIC under regular link conditions" (5.3).
        rep.rows.append(Row("fig5.7-normal", "all", f"rre-vs-{cc}", "goodput_ratio_median", "",
                            _median([a / b for a, b in zip(good["rre"], good[cc]) if b > 0]), Claim.between(0.9, 1.1, why=(
                                "'the achieved downstream goodput are all comparable' (5.2.5) and RRE 'performs no worse "
                                "than CUBIC under regular link conditions' (5.3): no number; read as the median over "
                                "the downlinks of RRE's goodput over the other's within 10%"))))
        top.append(Row("fig5.7-normal", f"down={downs[-1]}kbit/s", f"rre-vs-{cc}", "goodput_ratio", "",
                       good["rre"][-1] / good[cc][-1] if good[cc][-1] > 0 else None))
    rep.rows += top
    # "RRE performs slightly better than the other variants when the downlink bandwidth is
    # high" (5.2.5): at the grid's fastest downlink, against every other variant.
    rep.rows.append(every_case(top, Claim.at_least(1.0, why=(
        "'RRE performs slightly better than the other variants when the downlink bandwidth is high' (5.2.5): at the "
        "fastest downlink of the grid, RRE's goodput over each other variant's at least one")),
        experiment="fig5.7-normal", case=f"down={downs[-1]}kbit/s", variant="rre-vs-all", metric="goodput_ratio_min", unit=""))
    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for cc in variants:
        ax[0].plot([d / 1000 for d in downs], good[cc], marker="o", label=cc)
    ax[0].set_xlabel("downlink bandwidth (Mbit/s)")
    ax[0].set_ylabel("goodput (Mbit/s)")
    ax[0].set_title("Fig. 5.7: 10 MB download")
    ax[0].legend()
    i = len(downs) - 1
    for k, cc in enumerate(variants):
        ts = res[k * n + i].timeseries
        g = ts[(ts.kind == "flow") & (ts.metric == "goodput_mbps")]
        ax[1].plot(g.time_s, g.value.rolling(5, min_periods=1).mean(), label=cc)
    ax[1].set_xlabel("time (s)")
    ax[1].set_ylabel("goodput (Mbit/s, 0.5 s mean)")
    ax[1].set_title(f"Fig. 5.8: time traces at {downs[i] / 1000:g} Mbit/s")
    ax[1].legend(fontsize=7)
    rep.figures.append(save_figure(fig, ctx.out / "fig5_7_5_8_normal.png", "Figures 5.7 and 5.8: goodput under normal conditions"))


def fluctuation(ctx: Context, rep: Report) -> None:
    """Figure 5.9: RRE and CUBIC while the RTT and the downlink rate change."""
    jobs = [_scenario(ctx, "fluctuation", {"flows.0.cc": cc}) for cc in ("rre", "cubic")]
    res = _run_all(ctx, jobs, "fluctuation (Fig. 5.9)")
    plt = pyplot()
    fig, ax = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    # Phases between the changes (RTT at 4, 8, 20 s; bandwidth at 15, 24, 30 s).
    phases = [("0-4s", 0, 4, 3.0), ("4-8s", 4, 8, 3.0), ("8-15s", 8, 15, 3.0), ("15-20s", 15, 20, 2.0),
              ("20-24s", 20, 24, 2.0), ("24-30s", 24, 30, 5.0), ("30-40s", 30, 40, 3.0)]
    util: dict[tuple[str, str], float] = {}
    for cc, r in zip(("rre", "cubic"), res):
        ts = r.timeseries
        g = ts[(ts.kind == "flow") & (ts.metric == "goodput_mbps")]
        q = ts[(ts.kind == "link") & (ts.name == "downlink") & (ts.metric == "queue_packets")]
        ax[0].plot(g.time_s, g.value.rolling(5, min_periods=1).mean(), label=cc)
        ax[1].plot(q.time_s, q.value, label=cc)
        tx = ts[(ts.kind == "link") & (ts.name == "downlink") & (ts.metric == "tx_mbps")]
        for name, a, b, cap in phases:
            # Skip the first 2 s of each phase: the convergence the thesis describes. The
            # link's throughput, not the reader's goodput: after a loss CUBIC's hole is
            # repaired behind thousands of queued packets and the reader gets it in one lump.
            sel = tx[(tx.time_s > a + 2) & (tx.time_s <= b)]
            util[(name, cc)] = float(sel.value.mean() / cap)
            rep.rows.append(Row("fig5.9-fluctuation", name, cc, "link_utilization", "", util[(name, cc)]))
            qs = q[(q.time_s > a + 2) & (q.time_s <= b)]
            rep.rows.append(Row("fig5.9-fluctuation", name, cc, "queue_pkts_mean", "pkts", float(qs.value.mean())))
    # "the achieved receive rate is comparable to CUBIC ... RRE reacts to the changes rather
    # quickly and typically converges to the correct send rate within a few seconds" (5.2.6).
    ratios = [Row("fig5.9-fluctuation", name, "rre-vs-cubic", "link_utilization_ratio", "",
                  util[(name, "rre")] / util[(name, "cubic")] if util[(name, "cubic")] > 0 else None)
              for name, _, _, _ in phases]
    rep.rows += ratios
    rep.rows.append(every_case(ratios, Claim.at_least(0.9, why=(
        "'the achieved receive rate is comparable to CUBIC' and RRE 'converges to the correct send rate within a few "
        "seconds' (5.2.6): no number; in every phase from its third second on, RRE's link utilisation at least 90% of "
        "CUBIC's")), experiment="fig5.9-fluctuation", case="all", variant="rre-vs-cubic", metric="link_utilization_ratio_min",
        unit=""))
    for a, b, cap in [(0, 15, 3), (15, 24, 2), (24, 30, 5), (30, 40, 3)]:
        ax[0].hlines(cap, a, b, colors="k", linestyles=":")
    ax[0].set_ylabel("goodput (Mbit/s)")
    ax[0].legend()
    ax[1].set_ylabel("downlink queue (pkts)")
    ax[1].set_xlabel("time (s)")
    for t in (4, 8, 20):
        for a in ax:
            a.axvline(t, color="grey", ls="--", lw=0.6)
    ax[0].set_title("Fig. 5.9: RTT 100 -> 150 (4 s) -> 200 (8 s) -> 100 ms (20 s); "
                    "bandwidth 3 -> 2 (15 s) -> 5 (24 s) -> 3 Mbit/s (30 s)", fontsize=9)
    rep.figures.append(save_figure(fig, ctx.out / "fig5_9_fluctuation.png", "Figure 5.9: RRE and CUBIC under RTT (dashed lines) and bandwidth (dotted: capacity) changes"))


def friendliness(ctx: Context, rep: Report) -> None:
    """Figure 5.10: Jain's index of two downloads, the second started 1-10 s later."""
    pairs = [("rre", "rre"), ("vegas", "vegas"), ("cubic", "cubic"), ("newreno", "newreno"), ("rre", "cubic"), ("cubic", "rre")]
    delays = [2, 6] if ctx.quick else list(range(1, 11))
    downs = ["4Mbit/s"] if ctx.quick else ["2Mbit/s", "4Mbit/s", "8Mbit/s"]
    grid = [(t, d) for t in delays for d in downs]
    # The RRE / CUBIC pairs record their time series: each flow's goodput while both run.
    mixed = {("rre", "cubic"), ("cubic", "rre")}
    jobs = [
        _scenario(ctx, "friendliness", {"flows.0.cc": a, "flows.1.cc": b, "flows.1.start": f"{t}s", "topology.downlink.rate": d,
                                         **({"record.timeseries": True} if (a, b) in mixed else {})})
        for a, b in pairs
        for t, d in grid
    ]
    res = _run_all(ctx, jobs, "friendliness (Fig. 5.10)")
    n = len(grid)
    _rre_vs_cubic(rep, pairs, grid, res)
    medians: dict[str, float | None] = {}
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, (a, b) in enumerate(pairs):
        per = {g: r.summary["jain_fairness"] for g, r in zip(grid, res[k * n : (k + 1) * n])}
        jain = sorted(per.values())
        label = f"{a}-vs-{b}"
        # "RRE and TCP Vegas are significantly more fair when contending with the same variant
        # (and achieves a fairness index value consistently above 0.95)" (5.2.7): a bound.
        paper = Claim.at_least(0.95, why=(
            "'RRE and TCP Vegas ... achieves a fairness index value consistently above 0.95' (5.2.7): a bound on every "
            "configuration, the least index")) if a == b and a in ("rre", "vegas") else None
        for (t, d), j in per.items():
            rep.rows.append(Row("fig5.10-friendliness", f"down={d},delay={t}s", label, "jain", "", j))
        rep.rows.append(Row("fig5.10-friendliness", "all", label, "jain_median", "", _median(jain)))
        worst = min(per, key=lambda g: per[g])
        wc = f"down={worst[1]},delay={worst[0]}s"
        lowest = Note("Our lowest pair: the second flow started {t} after the first on the {d} downlink, index {j:.3g} "
                      "(the per-configuration rows; median {m:.3g}).", t=Fact(worst[0], "s"), d=Fact(worst[1]),
                      j=f"fig5.10-friendliness/{wc}/{label}/jain", m=f"fig5.10-friendliness/all/{label}/jain_median")
        note = lowest if a != "vegas" else Note(
            "Ours is Linux's tcp_vegas, whose late-comer unfairness is well known (Mo et al., {mo}): the second flow "
            "measures its BaseRTT over the first flow's standing queue, takes that queue for propagation delay and "
            "keeps a larger window. " + lowest.text + " The thesis's ns-2 Vegas agent and parameters are not given; "
            "how the index varies with the delay and the downlink is in the per-configuration rows.",
            mo=Fact("INFOCOM 1999"), **lowest.refs)
        _row(rep, Row("fig5.10-friendliness", "all", label, "jain_min", "", jain[0], paper), note if paper else "")
        ax.plot(jain, [(i + 1) / len(jain) for i in range(len(jain))], label=label)
        medians[label] = _median(jain)
    # "RRE and TCP Vegas are significantly more fair when contending with the same variant ...
    # compared to CUBIC and TCP-Reno" (5.2.7).
    for v in ("rre", "vegas"):
        rep.rows.append(Row("fig5.10-friendliness", "all", f"{v}-vs-cubic-and-newreno-self", "jain_median_ratio", "",
                            medians[f"{v}-vs-{v}"] / max(medians["cubic-vs-cubic"], medians["newreno-vs-newreno"]),
                            Claim.at_least(1.0, why=(
                                "'RRE and TCP Vegas are significantly more fair when contending with the same variant "
                                "... compared to CUBIC and TCP-Reno' (5.2.7): the median index against itself over the "
                                "larger of CUBIC's and Reno's; 'significantly' has no number, so the bound is 'more'"))))
    ax.set_xlabel("Jain's fairness index")
    ax.set_ylabel("CDF")
    ax.legend(fontsize=7)
    ax.set_title("Fig. 5.10: two 10 MB downloads, second started 1-10 s later")
    rep.figures.append(save_figure(fig, ctx.out / "fig5_10_friendliness.png", "Figure 5.10: Jain's index of contending flows (first-vs-second)"))


# ----------------------------------------------------------------------------- chapter 6


def _overlap_share(res: Any, i: int) -> float | None:
    """Flow ``i``'s share of the two flows' goodput while both run (from the second's start to
    the first completion), from the 100 ms time series."""
    a, b = res.summary["flows"]
    lo = max(a["start_s"], b["start_s"])
    hi = min(a["completion_s"] or math.inf, b["completion_s"] or math.inf)
    ts = res.timeseries
    g = ts[(ts.kind == "flow") & (ts.metric == "goodput_mbps") & (ts.time_s > lo) & (ts.time_s <= hi)]
    x = [float(g[g.name == f["name"]].value.sum()) for f in (a, b)]
    return x[i] / sum(x) if sum(x) > 0 else None


def _rre_vs_cubic(rep: Report, pairs: list[tuple[str, str]], grid: list[tuple[int, str]], res: list[Any]) -> None:
    """Figure 5.10's two mixed lines (5.2.7): RRE's share of the pair's goodput (the R_1, R_2
    of the thesis's Jain index: each flow's average goodput over its transfer) when it starts
    first and when CUBIC does, and RRE's share of the downlink while both flows run."""
    e, n = "fig5.10-friendliness", len(grid)
    share, overlap = {}, {}
    for first in ("rre", "cubic"):
        k = pairs.index((first, "cubic" if first == "rre" else "rre"))
        i = 0 if first == "rre" else 1  # RRE's flow
        rs = res[k * n : (k + 1) * n]
        share[first] = [_flow(r, i)["goodput_mbps"] / (_flow(r, 0)["goodput_mbps"] + _flow(r, 1)["goodput_mbps"]) for r in rs]
        overlap[first] = [_overlap_share(r, i) for r in rs]
        label = "rre-vs-cubic" if first == "rre" else "cubic-vs-rre"
        for (t, d), x, o in zip(grid, share[first], overlap[first]):
            rep.rows.append(Row(e, f"down={d},delay={t}s", label, "rre_share", "", round(x, 4)))
            rep.rows.append(Row(e, f"down={d},delay={t}s", label, "rre_share_while_both_run", "", None if o is None else round(o, 4)))
    m = {f: _median(share[f]) for f in share}
    mo = {f: _median([o for o in overlap[f] if o is not None]) for f in overlap}
    rep.rows.append(Row(e, "all", "rre-vs-cubic", "rre_share_while_both_run_median", "", mo["rre"]))
    rep.rows.append(Row(e, "all", "cubic-vs-rre", "rre_share_while_both_run_median", "", mo["cubic"]))
    a = "fig5.10-friendliness/all/{v}/{m}"
    why_mech = Note(
        "RRE's share of the pair's goodput (each flow's average over its own transfer, the thesis's measure) is {f:.2f} "
        "when RRE starts first and {s:.2f} when CUBIC does. While both flows run, RRE gets {of:.2f} of the downlink when "
        "it started first and {os:.2f} when it started second (the `rre_share_while_both_run` rows). A transfer's "
        "average also counts the time RRE has the link alone once CUBIC's {size} transfer is done, which moves its "
        "share toward the fair half in either order.",
        f=a.format(v="rre-vs-cubic", m="rre_share_median"), s=a.format(v="cubic-vs-rre", m="rre_share_median"),
        of=a.format(v="rre-vs-cubic", m="rre_share_while_both_run_median"),
        os=a.format(v="cubic-vs-rre", m="rre_share_while_both_run_median"), size=Fact(10, "MB"))
    fair = ("the fair rate is half of the pair's goodput (Jain's R1 = R2, each flow's average over its transfer, the "
            "thesis's measure); 'significantly' has no number, read as a fifth of it or more")
    _row(rep, Row(e, "all", "rre-vs-cubic", "rre_share_median", "", m["rre"], Claim.at_most(0.4, why=(
        "'if we start a RRE flow first, a subsequent CUBIC flow would ... cause RRE to back-off and significantly reduce "
        "its rate below the \"fair\" rate' (5.2.7): " + fair + ", so below 0.4; the median over the configurations"))),
         why_mech)
    _row(rep, Row(e, "all", "cubic-vs-rre", "rre_share_median", "", m["cubic"], Claim.at_least(0.4, why=(
        "'if a CUBIC flow starts first, a subsequent RRE flow is able to acquire a reasonably fair share' (5.2.7): "
        "within the same fifth of the fair half, 0.4 or more; the median over the configurations"))), why_mech)
    _row(rep, Row(e, "all", "rre-first-vs-second", "rre_share_ratio", "", m["rre"] / m["cubic"], Claim.at_most(1.0, why=(
        "'how well RRE contends with CUBIC depends on which flow starts first' (5.2.7): RRE's median share when it "
        "starts first below its share when CUBIC does"))), why_mech)


def _trace_overrides(name: str) -> dict[str, str]:
    return {"topology.downlink.trace": f"{TRACE_DIR}/{name}.down", "topology.uplink.trace": f"{TRACE_DIR}/{name}.up"}


def traces(ctx: Context, rep: Report) -> dict[tuple[str, str], dict[str, float]]:
    """Figures 6.1-6.4: throughput and one-way delay per trace and algorithm."""
    names = ["Verizon-LTE-short", "TMobile-UMTS-driving"] if ctx.quick else TRACES
    dur = "20s" if ctx.quick else "90s"
    ccs = CH6_TRACES + TRACE_EXTRA
    # PROTEUS-Rate's runs record their time series, for the rows after its training period.
    ts = lambda cc: {"record.timeseries": True} if cc == "proteus-rate" else {}  # noqa: E731
    jobs = [_scenario(ctx, "trace", {**_trace_overrides(t), "flows.0.cc": _ch6_cc(cc), "duration": dur, **ts(cc)})
            for t in names for cc in ccs]
    res = _run_all(ctx, jobs, "traces (Fig. 6.1-6.4)")
    out: dict[tuple[str, str], dict[str, float]] = {}
    plt = pyplot()
    cols = min(3, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axs = plt.subplots(rows, cols, figsize=(5 * cols, 4 * rows), squeeze=False)
    for extra in range(len(names), rows * cols):
        axs[extra // cols][extra % cols].set_visible(False)
    for ti, t in enumerate(names):
        ax = axs[ti // cols][ti % cols]
        # The capacity of the part of the trace the run used (the files' means cover the
        # whole, longer trace): the link's capacity over the run, as the summary gives it.
        cap = res[ti * len(ccs)].summary["links"][0]["capacity_mbps"]
        for ci, cc in enumerate(ccs):
            r = res[ti * len(ccs) + ci]
            f = _flow(r)
            m = {"throughput_mbps": f["goodput_mbps"], "owd_mean_ms": f["owd_ms"]["mean"], "owd_p95_ms": f["owd_ms"]["p95"]}
            out[(t, cc)] = m
            for metric, unit in (("throughput_mbps", "Mbit/s"), ("owd_mean_ms", "ms"), ("owd_p95_ms", "ms")):
                rep.rows.append(Row("traces", t, cc, metric, unit, round(m[metric], 4)))
            after = _after(r, PROTEUS_TRAIN_S) if cc == "proteus-rate" else None
            if after is not None:
                for metric, unit in (("throughput_mbps", "Mbit/s"), ("owd_mean_ms", "ms")):
                    rep.rows.append(Row("traces", t, cc, f"{metric}_after_training", unit, round(after[metric], 4),
                                        note=Note("thesis section 6.2.2: its PROTEUS-Rate results 'do not include the "
                                                  "long initial training period'; ours from {s} on ({w} windows of "
                                                  "{ms}), from the {iv} time series (the 95th percentile is over the "
                                                  "whole run only).", s=Fact(PROTEUS_TRAIN_S, "s"), w=Fact(64),
                                                  ms=Fact(500, "ms"), iv=Fact(100, "ms"))))
            c = f"C{ci}"
            ax.scatter([m["owd_mean_ms"]], [m["throughput_mbps"]], marker="o", color=c, label=cc)
            ax.scatter([m["owd_p95_ms"]], [m["throughput_mbps"]], marker="x", color=c)
        rep.rows.append(Row("traces", t, "capacity", "throughput_mbps", "Mbit/s", round(cap, 4)))
        ax.axhline(cap, color="k", ls=":", lw=1)
        ax.axvline(20.0, color="k", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("one-way delay (ms): o mean, x 95th pct")
        ax.set_ylabel("throughput (Mbit/s)")
        ax.set_title(t, fontsize=9)
        if ti == 0:
            ax.legend(fontsize=6)
    rep.figures.append(save_figure(fig, ctx.out / "fig6_1_traces.png", "Figures 6.1-6.4: throughput vs one-way delay per trace (dotted: trace capacity, 20 ms propagation)"))
    # The qualitative claims of 6.2.2, over the traces.
    lo_vs_cubic = [out[(t, "cubic")]["owd_p95_ms"] / out[(t, "proprate-low")]["owd_p95_ms"] for t in names]
    lo_vs_vegas = [out[(t, "proprate-low")]["throughput_mbps"] / max(out[(t, "vegas")]["throughput_mbps"], 1e-9) for t in names]
    vegas_vs_lo_delay = [out[(t, "vegas")]["owd_p95_ms"] / out[(t, "proprate-low")]["owd_p95_ms"] for t in names]
    behind = [t for t, x in zip(names, lo_vs_vegas) if x <= 1]
    e = "traces-claims"
    per = []  # per-trace rows the every_case rows below take their worst case from
    for t in names:
        cu, ww, ve, sp = (out[(t, cc)] for cc in ("cubic", "westwood", "vegas", "sprout"))
        hi, lo = out[(t, "proprate-high")], out[(t, "proprate-low")]
        cap = next(r.ours for r in rep.rows if r.experiment == "traces" and r.case == t and r.variant == "capacity")
        per += [
            Row(e, t, "westwood-vs-cubic", "owd_p95_ratio", "", round(ww["owd_p95_ms"] / cu["owd_p95_ms"], 4)),
            Row(e, t, "westwood-vs-cubic", "throughput_ratio", "", round(ww["throughput_mbps"] / cu["throughput_mbps"], 4)),
            Row(e, t, "vegas-vs-sprout", "owd_p95_ratio", "", round(ve["owd_p95_ms"] / sp["owd_p95_ms"], 4)),
            Row(e, t, "proprate-high", "throughput_over_capacity", "", round(hi["throughput_mbps"] / cap, 4)),
            Row(e, t, "proprate-low-vs-sprout", "throughput_ratio", "",
                round(lo["throughput_mbps"] / max(sp["throughput_mbps"], 1e-9), 4)),
        ]
    rep.rows += per
    pick = lambda v, m: [r for r in per if r.variant == v and r.metric == m]  # noqa: E731
    said_low = "'PropRate (low) is able to achieve low delays comparable to Sprout and Vegas, but at a higher throughput'"
    rep.rows += [
        Row(e, "all", "cubic-vs-proprate-low", "owd_p95_ratio_median", "", _median(lo_vs_cubic)),
        Row(e, "all", "cubic-vs-proprate-low", "fraction_owd_p95_ratio_ge_3", "",
            sum(x >= 3 for x in lo_vs_cubic) / len(lo_vs_cubic)),
        # "Westwood achieves lower delays than CUBIC at slightly lower throughputs" (6.2.2).
        Row(e, "all", "westwood-vs-cubic", "owd_p95_ratio_median", "", _median([r.ours for r in pick("westwood-vs-cubic", "owd_p95_ratio")]),
            Claim.at_most(1.0, why="'Westwood achieves lower delays than CUBIC' (6.2.2): the median over the traces "
                                   "of Westwood's p95 over CUBIC's below one")),
        Row(e, "all", "westwood-vs-cubic", "throughput_ratio_median", "",
            _median([r.ours for r in pick("westwood-vs-cubic", "throughput_ratio")]),
            Claim.between(0.8, 1.0, why="'at slightly lower throughputs' (6.2.2): no number; 'slightly' read as "
                                        "within a fifth below CUBIC's, the median over the traces")),
        Row(e, "all", "proprate-low-vs-vegas", "throughput_ratio_median", "", _median(lo_vs_vegas),
            Claim.at_least(1.0, why=said_low + " (6.2.2): the median over the traces of PropRate (Low)'s throughput "
                                     "over Vegas's above one")),
        Row(e, "all", "proprate-low-vs-vegas", "fraction_throughput_ratio_gt_1", "",
            sum(x > 1 for x in lo_vs_vegas) / len(lo_vs_vegas),
            note=Note("Where Vegas is not behind, PropRate (low)'s throughput over Vegas's: " +
                      ", ".join(f"{{t{i}}} ({{x{i}:.2f}})" for i in range(len(behind))) + ".",
                      **{f"t{i}": Fact(t) for i, t in enumerate(behind)},
                      **{f"x{i}": (lambda v, t=t: v(f"traces/{t}/proprate-low/throughput_mbps")
                                   / v(f"traces/{t}/vegas/throughput_mbps")) for i, t in enumerate(behind)})
            if behind else ""),
        Row(e, "all", "proprate-low-vs-sprout", "throughput_ratio_median", "",
            _median([r.ours for r in pick("proprate-low-vs-sprout", "throughput_ratio")]),
            Claim.at_least(1.0, why=said_low + " (6.2.2): the median over the traces of PropRate (Low)'s throughput "
                                     "over Sprout's above one")),
        Row(e, "all", "vegas-vs-proprate-low", "owd_p95_ratio_median", "", _median(vegas_vs_lo_delay),
            Claim.between(0.5, 2.0, why=said_low + " (6.2.2): no number; 'comparable' read as within a factor of two "
                                     "either way (Fig. 6.1's delay axis is logarithmic)")),
        Row(e, "all", "proprate-high", "throughput_over_capacity_median", "",
            _median([r.ours for r in pick("proprate-high", "throughput_over_capacity")]),
            Claim.at_least(0.8, why="'PropRate (high) is able to achieve high throughputs that are relatively close to "
                                    "the optimal value' (6.2.2; the optimum is the trace's capacity, Fig. 6.1's dotted "
                                    "line): no number; read as 80% of it or more, the median over the traces")),
        # "Vegas outperformed Sprout in terms of latency for all the traces" (6.2.2): all cases.
        every_case(pick("vegas-vs-sprout", "owd_p95_ratio"), Claim.at_most(1.0, why=(
            "'Vegas outperformed Sprout in terms of latency for all the traces' (6.2.2): a bound on every trace, the "
            "largest of Vegas's p95 over Sprout's")), experiment=e, case="all", variant="vegas-vs-sprout",
            metric="owd_p95_ratio_max", unit=""),
    ]
    _sprout_claims(rep, names, out)
    return out


def _sprout_claims(rep: Report, names: list[str], out: dict[tuple[str, str], dict[str, float]]) -> None:
    """Sprout (`cc = "sprout"`) on its own paper's terms (Winstein et al., NSDI 2013: criteria
    of another paper, in their own column), on the LTE traces of this run."""
    lte = [t for t in names if t in LTE]
    prop = 20.0  # ms each way (trace.toml)
    for t in lte:
        sp, cu = out[(t, "sprout")], out[(t, "cubic")]
        rep.rows.append(Row("traces-sprout", t, "sprout", "owd_p95_minus_propagation_ms", "ms",
                            round(sp["owd_p95_ms"] - prop, 3),
                            paper=Claim.at_most(100, why=(
                                "Sprout 'tries to keep each packet's delay less than 100 ms with 95% probability': its "
                                "self-inflicted delay, ours the one-way delay's 95th percentile less the propagation "
                                "delay")),
                            source="the Sprout paper (Winstein et al., NSDI 2013), Figure 1's caption; not the thesis's")
                        )
        rep.rows.append(Row("traces-sprout", t, "cubic-vs-sprout", "owd_p95_ratio", "",
                            round(cu["owd_p95_ms"] / max(sp["owd_p95_ms"], 1e-9), 3)))
        rep.rows.append(Row("traces-sprout", t, "sprout-vs-cubic", "throughput_ratio", "",
                            round(sp["throughput_mbps"] / max(cu["throughput_mbps"], 1e-9), 4)))
    if not lte:
        return
    cubic_ratio = [out[(t, "cubic")]["owd_p95_ms"] / max(out[(t, "sprout")]["owd_p95_ms"], 1e-9) for t in lte]
    share = [out[(t, "sprout")]["throughput_mbps"] / max(out[(t, "cubic")]["throughput_mbps"], 1e-9) for t in lte]
    rep.rows += [
        Row("traces-sprout", "lte", "cubic-vs-sprout", "owd_p95_ratio_min", "", round(min(cubic_ratio), 3)),
        Row("traces-sprout", "lte", "sprout-vs-cubic", "throughput_ratio_median", "", round(_median(share), 4)),
    ]


def outage_receive_window(ctx: Context, rep: Report) -> None:
    """Ablation on the traces with outages: the receiver's buffer (so its window) bounds what
    any sender can queue into a stalled link. 6.2.3 names 'the default TCP receive window' as
    what limited PropRate's sending; the thesis does not give its receiver's buffer."""
    names = ["TMobile-UMTS-driving"] if ctx.quick else ["TMobile-UMTS-driving", "Verizon-EVDO-driving"]
    dur = "20s" if ctx.quick else "90s"
    bufs = ["4MiB", "87380B"] if ctx.quick else ["4MiB", "256kB", "87380B"]
    ccs = ["cubic", "proprate-high", "proprate-low", "rre"]
    grid = [(t, cc, b) for t in names for cc in ccs for b in bufs]
    jobs = [
        _scenario(ctx, "trace", {**_trace_overrides(t), "duration": dur, "flows.0.cc": _ch6_cc(cc), "flows.0.tcp.rcv_buf": b})
        for t, cc, b in grid
    ]
    res = _run_all(ctx, jobs, "receive window on the outage traces (ablation)")
    p95 = {g: _flow(r)["owd_ms"]["p95"] for g, r in zip(grid, res)}
    for (t, cc, b), r in zip(grid, res):
        f = _flow(r)
        note: str | Note = ""
        if b == bufs[-1] and cc == "cubic":
            ow = "outage-receive-window/{t},rcv_buf={b}/cubic/owd_p95_ms"
            note = Note(
                "Ablation, not in the thesis: the receiver's buffer, so its advertised window, caps what any sender "
                "keeps in flight; {small} is Linux's default tcp_rmem before autotuning. It cuts CUBIC's p95 here from "
                "{big_s:.1f} s to {small_s:.1f} s, so a small window is no advantage of the rate-based senders; the "
                "thesis does not give its receiver's buffer.", small=Fact(87380, "B"),
                big_s=lambda v, t=t: v(ow.format(t=t, b=bufs[0])) / 1000,
                small_s=lambda v, t=t, b=b: v(ow.format(t=t, b=b)) / 1000)
        rep.rows.append(Row("outage-receive-window", f"{t},rcv_buf={b}", cc, "throughput_mbps", "Mbit/s", round(f["goodput_mbps"], 4)))
        rep.rows.append(Row("outage-receive-window", f"{t},rcv_buf={b}", cc, "owd_p95_ms", "ms", round(f["owd_ms"]["p95"], 4),
                            note=note))

def congested_uplink(ctx: Context, rep: Report) -> None:
    """Figures 6.5 and 6.6: the trace download with a CUBIC upload alongside."""
    t = "ATT-LTE-driving"
    dur = "20s" if ctx.quick else "90s"
    # Sprout too: 6.2.3 says "Both Vegas and Sprout are effectively starved".
    ccs = CH6 + ["sprout"]
    rate_based = ["rre", "proprate-high", "proprate-low"]
    # Ablation: the rate-based senders behind Linux's default receive buffer (its window before
    # autotuning), "the default TCP receive window" 6.2.3 names as what gapped PropRate's sending.
    small = "87380B"
    base = {**_trace_overrides(t), "duration": dur}
    jobs = []
    for cc in ccs:
        jobs.append(_scenario(ctx, "congested-uplink", {**base, "flows.0.cc": _ch6_cc(cc)}))
        jobs.append(_scenario(ctx, "trace", {**base, "flows.0.cc": _ch6_cc(cc)}))
    for cc in rate_based:
        for name in ("congested-uplink", "trace"):
            jobs.append(_scenario(ctx, name, {**base, "flows.0.cc": _ch6_cc(cc), "flows.0.tcp.rcv_buf": small}))
    res = _run_all(ctx, jobs, "congested uplink (Fig. 6.5)")
    abl = res[2 * len(ccs):]
    res = res[: 2 * len(ccs)]
    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    e = "congested-uplink"
    links = {l["name"]: float(l["capacity_mbps"]) for l in res[1].summary["links"]}
    for name in ("downlink", "uplink"):
        if name in links:
            rep.rows.append(Row(e, t, "capacity", f"{name}_mbps", "Mbit/s", round(links[name], 4)))
    for k, cc in enumerate(rate_based):
        w, a = _flow(abl[2 * k])["goodput_mbps"], _flow(abl[2 * k + 1])["goodput_mbps"]
        rep.rows += [
            Row(e, f"{t},rcv_buf={small}", cc, "throughput_mbps", "Mbit/s", round(w, 4)),
            Row(e, f"{t},rcv_buf={small}", cc, "throughput_alone_mbps", "Mbit/s", round(a, 4)),
            Row(e, f"{t},rcv_buf={small}", cc, "degradation", "", 1 - w / a if a > 0 else None,
                note=Note("Ablation, not in the thesis: the receiver's buffer at Linux's default before autotuning "
                          "({b}), so a receive window of that size, with and without the upload.", b=Fact(87380, "B"))),
        ]
    degs = []
    for ci, cc in enumerate(ccs):
        with_up, alone = _flow(res[2 * ci]), _flow(res[2 * ci + 1])
        deg = 1 - with_up["goodput_mbps"] / alone["goodput_mbps"] if alone["goodput_mbps"] > 0 else None
        rep.rows += [
            Row(e, t, cc, "throughput_mbps", "Mbit/s", round(with_up["goodput_mbps"], 4)),
            Row(e, t, cc, "throughput_alone_mbps", "Mbit/s", round(alone["goodput_mbps"], 4)),
            Row(e, t, cc, "owd_mean_ms", "ms", round(with_up["owd_ms"]["mean"], 2)),
            Row(e, t, cc, "owd_p95_ms", "ms", round(with_up["owd_ms"]["p95"], 2)),
        ]
        degs.append(Row(e, t, cc, "degradation", "", deg))
        rep.rows.append(degs[-1])
        c = f"C{ci}"
        ax[0].scatter([with_up["owd_ms"]["mean"]], [with_up["goodput_mbps"]], color=c, label=cc)
        ax[0].scatter([with_up["owd_ms"]["p95"]], [with_up["goodput_mbps"]], color=c, marker="x")
        if cc in ("cubic", "proprate-high"):
            ts = res[2 * ci].timeseries
            g = ts[(ts.kind == "flow") & (ts.name == "download") & (ts.metric == "goodput_mbps")]
            ax[1].plot(g.time_s, g.value, label=cc, lw=0.8)
    # "the background uplink flow will significantly degrade the performance of the downlink by
    # at least 75% for all the algorithms" (6.2.3): a bound, over every algorithm.
    i = f"{e}/{t}"
    worst = every_case([r for r in degs if r.variant in CH6], Claim.at_least(0.75, why=(
        "'by at least 75% for all the algorithms' (6.2.3): a bound, the least degradation over the algorithms of "
        "Fig. 6.5")), experiment=e, case=t, variant="all", metric="degradation_min", unit="")
    worst.note = Note(
        "The rate-based senders degrade least: {r0:.0%}, {r1:.0%} and {r2:.0%} (RRE, PropRate (High), (Low)), the "
        "window-based ones {c:.0%} (CUBIC) to {v:.0%} (Vegas). The thesis traces its PropRate gaps to 'the default TCP "
        "receive window' (section 6.2.3); ours is {rbuf}. Behind Linux's default receive buffer ({small}, the rows "
        "of case {case}) they degrade by {a0:.0%}, {a1:.0%} and {a2:.0%}: a receive window of that size stops "
        "a rate-based sender once a window of data is unacknowledged, and the upload holds the ACKs.",
        r0=f"{i}/rre/degradation", r1=f"{i}/proprate-high/degradation", r2=f"{i}/proprate-low/degradation",
        c=f"{i}/cubic/degradation", v=f"{i}/vegas/degradation", rbuf=Fact(4, "MiB"), small=Fact(87380, "B"),
        case=Fact(f"{t},rcv_buf={small}"),
        a0=f"{i},rcv_buf={small}/rre/degradation", a1=f"{i},rcv_buf={small}/proprate-high/degradation",
        a2=f"{i},rcv_buf={small}/proprate-low/degradation") if worst.consistent() is False else ""
    rep.rows.append(worst)
    # "our rate-based algorithms are significantly more resilient than the cwnd-based algorithms":
    # the least throughput of a rate-based sender with the upload over the best window-based one's.
    tp = {cc: _flow(res[2 * ci])["goodput_mbps"] for ci, cc in enumerate(ccs)}
    best_w = max(tp[cc] for cc in ("cubic", "newreno", "vegas", "westwood"))
    rep.rows.append(Row(e, t, "rate-based-vs-cwnd-based", "throughput_ratio_min", "",
                        min(tp[cc] for cc in rate_based) / best_w if best_w > 0 else None,
                        Claim.at_least(2.0, why="'significantly more resilient than the cwnd-based algorithms' (6.2.3): "
                                       "no number; read as at least twice the best window-based sender's throughput "
                                       "with the upload, for each rate-based one")))
    # "Both Vegas and Sprout are effectively starved".
    rep.rows.append(every_case([r for r in degs if r.variant in ("vegas", "sprout")], Claim.at_least(0.9, why=(
        "'Both Vegas and Sprout are effectively starved' (6.2.3): read as losing 90% or more of their throughput "
        "alone")), experiment=e, case=t, variant="vegas-and-sprout", metric="degradation_min", unit=""))
    ax[0].set_xscale("log")
    ax[0].set_xlabel("one-way delay (ms): o mean, x 95th pct")
    ax[0].set_ylabel("throughput (Mbit/s)")
    ax[0].set_title(f"Fig. 6.5: {t} with a CUBIC upload")
    ax[0].legend(fontsize=6)
    ax[1].set_xlabel("time (s)")
    ax[1].set_ylabel("downstream goodput (Mbit/s, 100 ms)")
    ax[1].set_title("Fig. 6.6 (our receive-side view)")
    ax[1].legend()
    rep.figures.append(save_figure(fig, ctx.out / "fig6_5_6_6_congested_uplink.png", "Figures 6.5 and 6.6: download with a concurrent CUBIC upload"))


def _queue_stats(res: Any) -> tuple[float, float]:
    """(share of the 100 ms samples with an empty downlink queue, mean queue in packets)."""
    ts = res.timeseries
    q = ts[(ts.kind == "link") & (ts.name == "downlink") & (ts.metric == "queue_packets")].value
    return float((q == 0).mean()), float(q.mean())


#: 6.2.4: "Degradation was about 10% when the standard deviation of the errors introduced was
#: up to 100% of the mean of the original estimates": a value.
CLAIM_DEGRADATION = Claim.value(0.10, abs_tol=0.05, why=(
    "'Degradation was about 10%' at an error of standard deviation 'up to 100% of the mean' (6.2.4): 'about' read as "
    "5 points either way"))
#: 6.2.4: "We found that the errors have a marginal effect on the latency, though larger errors
#: will slightly reduce the throughput": a bound on the delay's rise.
CLAIM_MARGINAL = Claim.at_most(1.1, why=(
    "'the errors have a marginal effect on the latency, though larger errors will slightly reduce the throughput' "
    "(6.2.4): no number; the thesis calls its 10% throughput loss 'slight', so a marginal effect is read as the "
    "error-free delay rising by at most that, at the largest error"))
#: Figure 6.7's second and third seeds at the largest error: the error's draws are seeded, so
#: these measure how much of a row is the draw (``spread``).
ERROR_SEEDS = [2, 3]


def robustness(ctx: Context, rep: Report) -> None:
    """Figure 6.7: PropRate with a seeded error of coefficient of variation 0-100% on rho."""
    t = "Verizon-LTE-short"
    # Quick's points are a subset of the full run's, so each quick row has its counterpart.
    cvs = [0.0, 0.4, 1.0] if ctx.quick else [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    dur = "20s" if ctx.quick else "90s"
    ccs = ["proprate-high", "proprate-low"]
    base = {**_trace_overrides(t), "duration": dur, "record.timeseries": True}
    jobs = [_scenario(ctx, "trace", {**base, "flows.0.cc": cc, "flows.0.tcp.rate_error_cv": cv}) for cc in ccs for cv in cvs]
    # The largest error again from other seeds (an explicit --seed makes them the first's).
    jobs += [_scenario(ctx, "trace", {**base, "seed": sd, "flows.0.cc": cc, "flows.0.tcp.rate_error_cv": cvs[-1]})
             for cc in ccs for sd in ERROR_SEEDS]
    res = _run_all(ctx, jobs, "estimation error (Fig. 6.7)")
    extra = res[len(ccs) * len(cvs):]
    e = "fig6.7-estimation-error"
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, cc in enumerate(ccs):
        rs = res[k * len(cvs) : (k + 1) * len(cvs)]
        fl = [_flow(r) for r in rs]
        for cv, f, r in zip(cvs, fl, rs):
            empty, qmean = _queue_stats(r)
            case = f"cv={cv:g}"
            rep.rows += [
                Row(e, case, cc, "throughput_mbps", "Mbit/s", round(f["goodput_mbps"], 4)),
                Row(e, case, cc, "owd_p95_ms", "ms", round(f["owd_ms"]["p95"], 2)),
                Row(e, case, cc, "owd_mean_ms", "ms", round(f["owd_ms"]["mean"], 2)),
                Row(e, case, cc, "queue_empty_fraction", "", round(empty, 4)),
                Row(e, case, cc, "queue_pkts_mean", "pkts", round(qmean, 2)),
            ]
        # The largest error from the other seeds: its three values of each measure.
        seeds = [fl[-1]] + [_flow(r) for r in extra[k * len(ERROR_SEEDS) : (k + 1) * len(ERROR_SEEDS)]]
        for sd, f in zip(ERROR_SEEDS, seeds[1:]):
            case = f"cv={cvs[-1]:g},seed={sd}"
            rep.rows += [
                Row(e, case, cc, "throughput_mbps", "Mbit/s", round(f["goodput_mbps"], 4)),
                Row(e, case, cc, "owd_p95_ms", "ms", round(f["owd_ms"]["p95"], 2)),
                Row(e, case, cc, "owd_mean_ms", "ms", round(f["owd_ms"]["mean"], 2)),
            ]
        g0, p0, m0 = fl[0]["goodput_mbps"], fl[0]["owd_ms"]["p95"], fl[0]["owd_ms"]["mean"]
        deg = [1 - f["goodput_mbps"] / g0 for f in seeds]
        p95r = [f["owd_ms"]["p95"] / p0 for f in seeds]
        meanr = [f["owd_ms"]["mean"] / m0 for f in seeds]
        c0, c1 = f"{e}/cv={cvs[0]:g}/{cc}", f"{e}/cv={cvs[-1]:g}/{cc}"
        mech = Note(
            "Without error the downlink queue is empty in {e0:.0%} of the samples, at the largest error in {e1:.0%}; its "
            "mean goes from {q0:.0f} to {q1:.0f} packets (the `queue_empty_fraction` and `queue_pkts_mean` rows). Each "
            "estimate is multiplied by {formula}, independently per ACK, and the paced rate follows it: where the queue "
            "fills, the link stays busy and the delay grows; where it empties more often, throughput is lost. From the "
            "other seeds the largest error gives {x2:.3g} and {x3:.3g} Mbit/s at a p95 of {d2:.0f} and {d3:.0f} ms "
            "(against {x1:.3g} Mbit/s and {d1:.0f} ms from the first); the row is the median over the three, its spread "
            "half their range.",
            e0=f"{c0}/queue_empty_fraction", e1=f"{c1}/queue_empty_fraction", q0=f"{c0}/queue_pkts_mean",
            q1=f"{c1}/queue_pkts_mean", formula=Fact("max(0, 1 + cv N(0,1))"),
            x1=f"{c1}/throughput_mbps", d1=f"{c1}/owd_p95_ms",
            x2=f"{e}/cv={cvs[-1]:g},seed={ERROR_SEEDS[0]}/{cc}/throughput_mbps",
            d2=f"{e}/cv={cvs[-1]:g},seed={ERROR_SEEDS[0]}/{cc}/owd_p95_ms",
            x3=f"{e}/cv={cvs[-1]:g},seed={ERROR_SEEDS[1]}/{cc}/throughput_mbps",
            d3=f"{e}/cv={cvs[-1]:g},seed={ERROR_SEEDS[1]}/{cc}/owd_p95_ms")
        case = f"cv={cvs[-1]:g}"
        # "Degradation was about 10% when the standard deviation of the errors introduced was
        # up to 100% of the mean of the original estimates" (6.2.4): a value.
        # Each of these is the median over the three seeds (the error's draws), its spread half
        # their range.
        med = lambda xs: statistics.median(xs)  # noqa: E731
        half = lambda xs: (max(xs) - min(xs)) / 2  # noqa: E731
        _row(rep, Row(e, case, cc, "throughput_degradation", "", med(deg), CLAIM_DEGRADATION, spread=half(deg)), mech)
        # "the errors have a marginal effect on the latency" (6.2.4): a bound on the rise of
        # each of Fig. 6.7's two delays (mean and 95th percentile).
        _row(rep, Row(e, case, cc, "owd_p95_ratio", "", med(p95r), CLAIM_MARGINAL, spread=half(p95r)), mech)
        _row(rep, Row(e, case, cc, "owd_mean_ratio", "", med(meanr), CLAIM_MARGINAL, spread=half(meanr)), mech)
        ax.plot([f["owd_ms"]["mean"] for f in fl], [f["goodput_mbps"] for f in fl], marker="o", label=cc)
        for cv, f in zip(cvs, fl):
            ax.annotate(f"{cv:g}", (f["owd_ms"]["mean"], f["goodput_mbps"]), fontsize=7)
    ax.set_xlabel("mean one-way delay (ms)")
    ax.set_ylabel("throughput (Mbit/s)")
    ax.set_title(f"Fig. 6.7: error CV 0-100% on rho ({t})")
    ax.legend()
    rep.figures.append(save_figure(fig, ctx.out / "fig6_7_estimation_error.png", "Figure 6.7: PropRate with estimation errors (labels: coefficient of variation)"))


def _pareto(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the (delay, throughput) points no other point beats on both: lower or equal
    delay and higher or equal throughput, one of them strictly."""
    keep = []
    for i, (d, x) in enumerate(points):
        if not any((d2 <= d and x2 >= x) and (d2 < d or x2 > x) for d2, x2 in points):
            keep.append(i)
    return sorted(keep, key=lambda i: points[i][0])


def frontier(ctx: Context, rep: Report) -> tuple[list[tuple[float, float]], list[tuple[int, float, float]]]:
    """Figure 6.8(a) and (d): the throughput / delay frontiers of PropRate (over its threshold T
    and gains k) and of Table 6.1's RRE (over T, B_max and B_min), on the trace that stands in
    for the thesis's ISP C mobile trace (as in 6.2.3)."""
    t = "ATT-LTE-driving"
    dur = "20s" if ctx.quick else "90s"
    if ctx.quick:
        ts, kfs, kds = [10, 20, 60], [1.25], [0.25, 0.75]
        rre_ts, ups, downs = [20, 60], [20], [5, 15]
    else:
        ts, kfs, kds = [10, 20, 30, 40, 60, 80], [1.1, 1.25, 1.5], [0.25, 0.5, 0.75]
        rre_ts, ups, downs = [20, 40, 60, 80], [10, 20, 40], [5, 10, 15]
    base = {**_trace_overrides(t), "duration": dur}
    prop = [((tt, kf, kd), {"flows.0.cc": "proprate", "flows.0.tcp.proprate_threshold": f"{tt}ms",
                            "flows.0.tcp.proprate_k_fill": kf, "flows.0.tcp.proprate_k_drain": kd})
            for tt in ts for kf in kfs for kd in kds]
    rre = [((tt, tt + u, tt - d), {"flows.0.cc": "rre-table6.1", "flows.0.tcp.rre_threshold": f"{tt}ms",
                                   "flows.0.tcp.rre_b_max": f"{tt + u}ms", "flows.0.tcp.rre_b_min": f"{tt - d}ms"})
           for tt in rre_ts for u in ups for d in downs]
    refs = ["cubic", "vegas", "proprate-high", "proprate-low", "rre"]
    jobs = [_scenario(ctx, "trace", {**base, **o}) for _, o in prop + rre]
    jobs += [_scenario(ctx, "trace", {**base, "flows.0.cc": _ch6_cc(cc)}) for cc in refs]
    res = _run_all(ctx, jobs, "PropRate and RRE frontiers (Fig. 6.8a, 6.8d)")
    pts = [(_flow(r)["owd_ms"]["p95"], _flow(r)["goodput_mbps"]) for r in res]
    p_pts, r_pts, ref_pts = pts[: len(prop)], pts[len(prop) : len(prop) + len(rre)], pts[len(prop) + len(rre) :]

    def points(exp: str, variant: str, cases: list[str], xy: list[tuple[float, float]]) -> list[int]:
        front = _pareto(xy)
        for i, case in enumerate(cases):
            rep.rows.append(Row(exp, case, variant, "throughput_mbps", "Mbit/s", round(xy[i][1], 4)))
            rep.rows.append(Row(exp, case, variant, "owd_p95_ms", "ms", round(xy[i][0], 2)))
            rep.rows.append(Row(exp, case, variant, "on_frontier", "", float(i in front)))
        for cc, (d, x) in zip(refs, ref_pts):
            rep.rows.append(Row(exp, "reference", cc, "throughput_mbps", "Mbit/s", round(x, 4)))
            rep.rows.append(Row(exp, "reference", cc, "owd_p95_ms", "ms", round(d, 2)))
        return front

    ea, ed = "fig6.8a-proprate-frontier", "fig6.8d-rre-frontier"
    p_front = points(ea, "proprate", [f"T={a}ms,kf={b:g},kd={c:g}" for (a, b, c), _ in prop], p_pts)
    r_front = points(ed, "rre-table6.1", [f"T={a}ms,Bmax={b}ms,Bmin={c}ms" for (a, b, c), _ in rre], r_pts)
    # 6.2.5: "the achieved latency is lower with a smaller threshold, at the cost of reduced
    # throughput. The throughput however will drop off quite steeply when the threshold T is
    # reduced below 20 ms." Medians over the gains at each T.
    by_t = {tt: [i for i, ((a, _, _), _) in enumerate(prop) if a == tt] for tt in ts}
    med = {tt: statistics.median(p_pts[i][1] for i in by_t[tt]) for tt in ts}
    for tt in ts:
        rep.rows.append(Row(ea, f"T={tt}ms", "proprate", "throughput_mbps_median", "Mbit/s", round(med[tt], 4)))
        rep.rows.append(Row(ea, f"T={tt}ms", "proprate", "owd_p95_ms_median", "ms",
                            round(statistics.median(p_pts[i][0] for i in by_t[tt]), 2)))
    dmed = {tt: statistics.median(p_pts[i][0] for i in by_t[tt]) for tt in ts}
    # "the achieved latency is lower with a smaller threshold, at the cost of reduced throughput"
    # (6.2.5): T = 20 ms against 60 ms (both in both grids), medians over the gains.
    rep.rows.append(Row(ea, "T=20ms-vs-T=60ms", "proprate", "owd_p95_ratio_median", "", dmed[20] / dmed[60],
                        Claim.at_most(1.0, why="'the achieved latency is lower with a smaller threshold' (6.2.5): "
                                               "the median p95 over the gains at T = 20 ms over that at 60 ms")))
    rep.rows.append(Row(ea, "T=20ms-vs-T=60ms", "proprate", "throughput_ratio_median", "", med[20] / med[60],
                        Claim.at_most(1.0, why="'at the cost of reduced throughput' (6.2.5): the median throughput "
                                               "at T = 20 ms over that at 60 ms")))
    rep.rows.append(Row(ea, "T=10ms-vs-T=20ms", "proprate", "throughput_ratio_median", "", med[10] / med[20]))
    # "The throughput however will drop off quite steeply when the threshold T is reduced below
    # 20 ms": the throughput lost per ms of threshold from 20 to 10 ms, over that from 60 to 20.
    above = (1 - med[20] / med[60]) / 40
    rep.rows.append(Row(ea, "below-vs-above-T=20ms", "proprate", "throughput_loss_per_ms_ratio", "",
                        ((1 - med[10] / med[20]) / 10) / above if above > 0 else None, Claim.at_least(1.0, why=(
                            "'The throughput however will drop off quite steeply when the threshold T is reduced below "
                            "20 ms' (6.2.5): the relative throughput lost per ms of threshold between 20 and 10 ms over "
                            "that between 60 and 20 ms; 'quite steeply' has no number, so the bound is 'steeper'"))))
    # 6.2.5 on RRE: "it was not possible to sufficiently drain the buffer to achieve low
    # latencies by just varying these parameters".
    rep.rows.append(Row(ed, "all", "rre-vs-proprate", "min_owd_p95_ratio", "",
                        min(d for d, _ in r_pts) / min(d for d, _ in p_pts), Claim.at_least(1.0, why=(
                            "for RRE 'it was not possible to sufficiently drain the buffer to achieve low latencies by "
                            "just varying these parameters' (6.2.5): the lowest p95 of the RRE grid (Fig. 6.8(d)) above "
                            "the lowest of PropRate's (Fig. 6.8(a))"))))
    plt = pyplot()
    fig, axs = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for k, tt in enumerate(ts):
        axs[0].scatter([p_pts[i][0] for i in by_t[tt]], [p_pts[i][1] for i in by_t[tt]], s=14, color=f"C{k}",
                       label=f"T={tt} ms")
    for k, tt in enumerate(rre_ts):
        sel = [i for i, ((a, _, _), _) in enumerate(rre) if a == tt]
        axs[1].scatter([r_pts[i][0] for i in sel], [r_pts[i][1] for i in sel], s=14, color=f"C{k}", label=f"T={tt} ms")
    for ax, xy, front, title in ((axs[0], p_pts, p_front, "(a) PropRate over T, k_fill, k_drain"),
                                 (axs[1], r_pts, r_front, "(d) RRE (Table 6.1 form) over T, B_max, B_min")):
        ax.plot([xy[i][0] for i in front], [xy[i][1] for i in front], "k-", lw=1, label="frontier")
        for cc, (d, x) in zip(refs, ref_pts):
            ax.scatter([d], [x], marker="x", s=40, color="k")
            ax.annotate(cc, (d, x), fontsize=7)
        ax.set_xscale("log")
        ax.set_xlabel("95th-percentile one-way delay (ms)")
        ax.set_title(f"Fig. 6.8{title} ({t})", fontsize=9)
        ax.legend(fontsize=6)
    axs[0].set_ylabel("throughput (Mbit/s)")
    rep.figures.append(save_figure(fig, ctx.out / "fig6_8_frontiers.png",
                                   "Figure 6.8(a) and (d): throughput / 95th-percentile delay frontiers (x: reference algorithms)"))
    return p_pts, [g for g, _ in prop]


def _frontier_throughput_at(points: list[tuple[float, float]], delay: float) -> float | None:
    """The best throughput among `points` (p95 delay, throughput) whose delay is at most
    `delay`: the measured frontier read at that delay (no interpolation); None when no point
    reaches it."""
    ok = [x for d, x in points if d <= delay]
    return max(ok) if ok else None


def frontier_sprout(ctx: Context, rep: Report, proprate: tuple[list[tuple[float, float]], list[tuple[int, float, float]]]) -> None:
    """Figure 6.8(c): Sprout-Rate over Sprout's confidence parameter (the forecast's
    percentile, 6.2.5), its threshold T and drain gain, and Sprout itself over its confidence
    parameter (the parameters the thesis varies for
    PROTEUS-Rate's points, 6.2.5), on the trace of Fig. 6.8(a), beside PropRate's points from
    `frontier` (`proprate`: its points and their (T, k_fill, k_drain)). The tick stays the
    thesis port's 100 ms (6.1.3)."""
    proprate_points, proprate_params = proprate
    t = "ATT-LTE-driving"
    dur = "20s" if ctx.quick else "90s"
    if ctx.quick:
        pcts, ts, kds = [5, 25], [20, 50], [0.5]
    else:
        pcts, ts, kds = [1, 5, 25], [10, 20, 35, 50], [0.25, 0.5]
    base = {**_trace_overrides(t), "duration": dur, "flows.0.cc": "sprout-rate"}
    grid = [(p, tt, kd) for tt in ts for kd in kds for p in pcts]
    jobs = [_scenario(ctx, "trace", {**base, "flows.0.tcp.sprout_percentile": p,
                                      "flows.0.tcp.sprout_threshold": f"{tt}ms",
                                      "flows.0.tcp.sprout_k_drain": kd}) for p, tt, kd in grid]
    # PropRate with Sprout-Rate's gains (Table 6.1: sigma_f = 2.00 rho) at each (T, k_drain):
    # the two differ then only in rho (measured receive rate against the cautious forecast).
    same = [(tt, kd) for tt in ts for kd in kds]
    jobs += [_scenario(ctx, "trace", {**base, "flows.0.cc": "proprate", "flows.0.tcp.proprate_threshold": f"{tt}ms",
                                      "flows.0.tcp.proprate_k_fill": 2.0, "flows.0.tcp.proprate_k_drain": kd})
             for tt, kd in same]
    # Sprout itself over its confidence parameter, as the thesis ran the original "following
    # the methodology used by Winstein et al." (6.2.5).
    sprout_pcts = [5, 25] if ctx.quick else [1, 2, 5, 10, 25, 50]
    jobs += [_scenario(ctx, "trace", {**base, "flows.0.cc": "sprout", "flows.0.tcp.sprout_percentile": p})
             for p in sprout_pcts]
    res = _run_all(ctx, jobs, "Sprout-Rate and Sprout frontiers (Fig. 6.8c)")
    allpts = [(_flow(r)["owd_ms"]["p95"], _flow(r)["goodput_mbps"]) for r in res]
    pts, same_pts = allpts[: len(grid)], allpts[len(grid) : len(grid) + len(same)]
    sprout_pts = allpts[len(grid) + len(same) :]
    exp = "frontier-sprout"
    front = _pareto(pts)
    for i, (p, tt, kd) in enumerate(grid):
        case = f"percentile={p:g},T={tt}ms,kd={kd:g}"
        rep.rows.append(Row(exp, case, "sprout-rate", "throughput_mbps", "Mbit/s", round(pts[i][1], 4)))
        rep.rows.append(Row(exp, case, "sprout-rate", "owd_p95_ms", "ms", round(pts[i][0], 2)))
        rep.rows.append(Row(exp, case, "sprout-rate", "on_frontier", "", float(i in front)))
    sprout_front = _pareto(sprout_pts)
    for i, (p, (d, x)) in enumerate(zip(sprout_pcts, sprout_pts)):
        case = f"percentile={p:g}"
        rep.rows.append(Row(exp, case, "sprout", "throughput_mbps", "Mbit/s", round(x, 4)))
        rep.rows.append(Row(exp, case, "sprout", "owd_p95_ms", "ms", round(d, 2)))
        rep.rows.append(Row(exp, case, "sprout", "on_frontier", "", float(i in sprout_front)))
    # 6.2.5: on the MIT trace the sweep "produces a nice performance frontier", "however, this
    # was not the case for our ISP C mobile LTE trace" (no number): the share of the sweep's
    # points on their own frontier (1: every percentile trades throughput for delay).
    rep.rows.append(Row(exp, "all", "sprout", "fraction_on_own_frontier", "",
                        round(len(sprout_front) / len(sprout_pts), 4),
                        note=Note("thesis section 6.2.5: varying Sprout's confidence parameter 'produces a nice "
                                  "performance frontier for the MIT Sprout trace ... However, this was not the case for "
                                  "our ISP C mobile LTE trace' (no number; ATT-LTE-driving stands in for ISP C's trace).")))
    for (tt, kd), (d, x) in zip(same, same_pts):
        case = f"T={tt}ms,kf=2,kd={kd:g}"
        rep.rows.append(Row(exp, case, "proprate-sprout-gains", "throughput_mbps", "Mbit/s", round(x, 4)))
        rep.rows.append(Row(exp, case, "proprate-sprout-gains", "owd_p95_ms", "ms", round(d, 2)))
    # 6.2.5: "by using the Sprout forecasting algorithm, we again can achieve lower latencies
    # than PropRate, but at a cost to the achieved throughput" (no number). (1) Lowest p95 of
    # the Sprout-Rate grid over PropRate's lowest (Fig. 6.8(a)'s grid); (2) at equal T and
    # gains, Sprout-Rate (5th percentile, Table 6.1) over PropRate, delay and throughput;
    # (3) at each Sprout-Rate frontier point, its throughput over the best PropRate point at
    # no more delay.
    said = ("thesis section 6.2.5: 'by using the Sprout forecasting algorithm, we again can achieve lower latencies "
            "than PropRate, but at a cost to the achieved throughput' (no number).")
    rep.rows.append(Row(exp, "all", "sprout-rate", "min_owd_p95_ms", "ms", round(min(d for d, _ in pts), 2)))
    rep.rows.append(Row(exp, "all", "proprate", "min_owd_p95_ms", "ms", round(min(d for d, _ in proprate_points), 2)))
    at5 = {(tt, kd): i for i, (p, tt, kd) in enumerate(grid) if p == 5}
    d_ratio = _median([pts[at5[k]][0] / d for k, (d, _) in zip(same, same_pts)])
    x_ratio = _median([pts[at5[k]][1] / x for k, (_, x) in zip(same, same_pts)])
    lo_ratio = min(d for d, _ in pts) / min(d for d, _ in proprate_points)
    lo_i = min(range(len(proprate_points)), key=lambda i: proprate_points[i][0])
    rep.rows.append(Row(exp, "all", "sprout-rate-vs-proprate", "min_owd_p95_ratio", "", round(lo_ratio, 4),
                        Claim.at_most(1.0, why="'by using the Sprout forecasting algorithm, we again can achieve "
                                      "lower latencies than PropRate' (6.2.5): the lowest p95 of the Sprout-Rate grid "
                                      "over the lowest of PropRate's (Fig. 6.8(a))"), note=Note(
                            "Our lowest Sprout-Rate p95 ({s:.0f} ms) is above PropRate's lowest ({p:.0f} ms): PropRate's "
                            "grid reaches it with a fill gain of {kf:g} x rho (T = {t:.0f}), while Sprout-Rate keeps Table 6.1's {k2} x "
                            "rho ('we had to use a rate that was double its forecast', thesis section 6.2.1). At the same threshold and "
                            "gains (the `proprate-sprout-gains` rows) Sprout-Rate's p95 is {dr:.2f} of PropRate's and its "
                            "throughput {xr:.2f} (medians over the grid's T and k_drain): lower latency at a cost in "
                            "throughput, the thesis's statement.",
                            s=f"{exp}/all/sprout-rate/min_owd_p95_ms", p=f"{exp}/all/proprate/min_owd_p95_ms",
                            kf=Fact(proprate_params[lo_i][1]), t=Fact(proprate_params[lo_i][0], "ms"), k2=Fact(2.0), dr=f"{exp}/same-gains/sprout-rate-vs-proprate/owd_p95_ratio_median",
                            xr=f"{exp}/same-gains/sprout-rate-vs-proprate/throughput_ratio_median")
                        if lo_ratio > 1 else ""))
    rep.rows.append(Row(exp, "same-gains", "sprout-rate-vs-proprate", "owd_p95_ratio_median", "", round(d_ratio, 4),
                        Claim.at_most(1.0, why="'lower latencies than PropRate' (6.2.5): at the same threshold and "
                                               "gains, Sprout-Rate's p95 over PropRate's, the median over the grid")))
    rep.rows.append(Row(exp, "same-gains", "sprout-rate-vs-proprate", "throughput_ratio_median", "", round(x_ratio, 4),
                        Claim.at_most(1.0, why="'but at a cost to the achieved throughput' (6.2.5): at the same "
                                               "threshold and gains, Sprout-Rate's throughput over PropRate's")))
    shares = []
    for i in front:
        best = _frontier_throughput_at(proprate_points, pts[i][0])
        if best:
            shares.append(pts[i][1] / best)
    if shares:
        rep.rows.append(Row(exp, "frontier", "sprout-rate-vs-proprate", "throughput_ratio_median_at_same_delay", "",
                            round(statistics.median(shares), 4), Claim.at_most(1.0, why=(
                                "'a simple algorithm like PropRate can perform better given the correct parameters' "
                                "(chapter 7; 'just as well, if not better by maintaining a higher throughput', the "
                                "abstract): at each Sprout-Rate frontier point, its throughput over the best of "
                                "PropRate's grid at no more delay, the median"))))
    rep.rows.append(Row(exp, "frontier", "sprout-rate-vs-proprate", "points_compared", "", float(len(shares)),
                        note=Note("Sprout-Rate frontier points for which PropRate's grid has a point at no more delay "
                                  "(the others are below PropRate's lowest delay).")))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for k, tt in enumerate(ts):
        sel = [i for i, g in enumerate(grid) if g[1] == tt]
        ax.scatter([pts[i][0] for i in sel], [pts[i][1] for i in sel], s=14, color=f"C{k}", label=f"Sprout-Rate, T={tt} ms")
        for i in sel:
            ax.annotate(f"{grid[i][0]:g}%", pts[i], fontsize=6)
    ax.plot([pts[i][0] for i in front], [pts[i][1] for i in front], "k-", lw=1, label="Sprout-Rate frontier")
    ax.scatter([d for d, _ in sprout_pts], [x for _, x in sprout_pts], s=24, marker="s", facecolors="none",
               edgecolors="k", label="Sprout over its percentile")
    for p, xy in zip(sprout_pcts, sprout_pts):
        ax.annotate(f"{p:g}%", xy, fontsize=6)
    pf = _pareto(proprate_points)
    ax.plot([proprate_points[i][0] for i in pf], [proprate_points[i][1] for i in pf], "k--", lw=1,
            label="PropRate frontier (Fig. 6.8a)")
    ax.set_xscale("log")
    ax.set_xlabel("95th-percentile one-way delay (ms)")
    ax.set_ylabel("throughput (Mbit/s)")
    ax.set_title(f"Fig. 6.8(c) Sprout-Rate over its percentile, T and drain gain; Sprout ({t})", fontsize=9)
    ax.legend(fontsize=6)
    rep.figures.append(save_figure(fig, ctx.out / "fig6_8c_sprout_frontier.png",
                                   "Figure 6.8(c): Sprout-Rate's throughput / 95th-percentile delay over its confidence "
                                   "parameter, threshold and drain gain, and Sprout over its confidence parameter (labels: percentile), "
                                   "beside PropRate's frontier"))


#: `delay-target`'s targets for the 95th-percentile one-way delay (issue 13), in ms.
DELAY_TARGETS = [50, 100, 200]
#: Start offsets (s) into the trace from which `delay-target` runs every fixed-parameter point
#: and the controller (full run; the quick run uses the first three). The p95 of a fixed
#: setting on a cellular trace depends on where its fill/drain cycles and the outages fall: from
#: one start, the best of the sweep's points at a target is partly the best phase (the point
#: that set TMobile-LTE-short's frontier at 100 ms gives 97 ms from 0 s, 120 and 102 ms from
#: 1 s and 2 s). Both sides are judged over the same starts: a point's (or the controller's)
#: p95 is the median over them, its throughput the mean.
DELAY_TARGET_STARTS = list(range(10))
#: Whose criteria the `delay-target` rows are: ours (beyond the thesis, whose 7.1.1 leaves
#: navigating the frontier to future work).
DELAY_TARGET_SOURCE = "ours: issue 13's acceptance for cc = proprate-target (the thesis's 7.1.1 is future work)"
DELAY_TARGET_STARTS_QUICK = [0, 1, 2]
#: Held-out segments for `delay-target-heldout` (full run only): parts of traces the sweep of
#: `delay-target` never ran, on which proprate-target's parameter path (fitted on the in-sample
#: sweeps, crates/tcplab-core/src/rate/proprate_target.rs) is checked. (case, downlink trace,
#: uplink trace, starts in s); TMobile-LTE-driving has no uplink file and borrows
#: TMobile-LTE-short's.
DELAY_TARGET_HELDOUT = [
    ("ATT-LTE-driving@150-740s", "ATT-LTE-driving", "ATT-LTE-driving", [150, 250, 350, 450, 550, 650]),
    ("TMobile-LTE-driving", "TMobile-LTE-driving", "TMobile-LTE-short", [0, 60, 120, 180, 240, 300, 360]),
    ("TMobile-UMTS-driving@150-840s", "TMobile-UMTS-driving", "TMobile-UMTS-driving", [150, 300, 450, 600, 750]),
]


def _over_starts(rs: list[Any]) -> tuple[float, float]:
    """(median p95 one-way delay, mean throughput) of one setting's runs from several starts."""
    p95 = [_flow(r)["owd_ms"]["p95"] for r in rs]
    return float(statistics.median(p95)), sum(_flow(r)["goodput_mbps"] for r in rs) / len(rs)


def _delay_target_runs(ctx: Context, cases: list[tuple[str, str, str, list[int]]], grid: list[tuple[int, float, float]],
                       dur_s: int, label: str) -> dict[tuple[str, int], list[Any]]:
    """Every sweep point and proprate-target at every target, for each case from each of its
    starts: {(case, start): [grid results..., target results...]}."""
    jobs, keys = [], []
    for case, down, up, starts in cases:
        for st in starts:
            base = {"topology.downlink.trace": f"{TRACE_DIR}/{down}.down", "topology.uplink.trace": f"{TRACE_DIR}/{up}.up",
                    "duration": f"{dur_s + st}s"}
            if st:
                base["flows.0.start"] = f"{st}s"
            keys.append((case, st))
            jobs += [_scenario(ctx, "trace", {**base, "flows.0.cc": "proprate", "flows.0.tcp.proprate_threshold": f"{tt}ms",
                                               "flows.0.tcp.proprate_k_fill": kf, "flows.0.tcp.proprate_k_drain": kd})
                     for tt, kf, kd in grid]
            jobs += [_scenario(ctx, "trace", {**base, "flows.0.cc": "proprate-target",
                                               "flows.0.tcp.proprate_target_delay": f"{g}ms"}) for g in DELAY_TARGETS]
    res = _run_all(ctx, jobs, label)
    per = len(grid) + len(DELAY_TARGETS)
    return {k: res[i * per : (i + 1) * per] for i, k in enumerate(keys)}


def _judge(rep: Report, exp: str, case: str, v: str, g: int, ctl: tuple[float, float], best: float | None,
           verdict_claims: bool) -> bool | None:
    """The acceptance rows of one (case, target): p95 within 25% of the target and throughput at
    least 90% of the frontier's. None when the frontier does not reach the target."""
    p95, x = ctl
    rid = f"{exp}/{case}/{v}"
    crit_p95, crit_x = Fact(25, "%"), Fact(90, "%")
    rep.rows.append(Row(exp, case, v, "throughput_mbps", "Mbit/s", round(x, 4)))
    _row(rep, Row(exp, case, v, "owd_p95_ms", "ms", round(p95, 2), Claim.between(0.75 * g, 1.25 * g, why=(
        "the p95 one-way delay within a quarter of the target")) if verdict_claims else None,
        source=DELAY_TARGET_SOURCE if verdict_claims else None),
         Note("issue 13's acceptance (not the thesis's): the 95th-percentile delay within {c} of the target. "
              "proprate-target reached {p:.0f} ms at {x:.2f} Mbit/s (the median p95 and the mean throughput over the "
              "starts, as for every sweep point).", c=crit_p95, p=f"{rid}/owd_p95_ms", x=f"{rid}/throughput_mbps"))
    if best is None:
        rep.rows.append(Row(exp, case, v, "frontier_throughput_mbps", "Mbit/s", None, note=Note(
            "no fixed-parameter point reaches a p95 of {g} (median over the starts); this pair is not counted.",
            g=Fact(g, "ms"))))
        return None
    rep.rows.append(Row(exp, case, v, "frontier_throughput_mbps", "Mbit/s", round(best, 4)))
    _row(rep, Row(exp, case, v, "throughput_over_frontier", "", round(x / best, 4),
                          Claim.at_least(0.9, why="at least 90% of the measured frontier's throughput at the target")
                          if verdict_claims else None, source=DELAY_TARGET_SOURCE if verdict_claims else None),
                 Note("issue 13's acceptance (not the thesis's): at least {c} of the best fixed-parameter throughput "
                      "with a p95 at most the target ({b:.2f} Mbit/s); proprate-target's {x:.2f} Mbit/s at a p95 of "
                      "{p:.0f} ms.", c=crit_x, b=f"{rid}/frontier_throughput_mbps", x=f"{rid}/throughput_mbps",
                      p=f"{rid}/owd_p95_ms"))
    both = x / best >= 0.9 and 0.75 * g <= p95 <= 1.25 * g
    _row(rep, Row(exp, case, v, "meets_both", "", float(both), Claim.value(1.0, abs_tol=0.0, why="both criteria met")
                  if verdict_claims else None, verdict=verdict_claims, source=DELAY_TARGET_SOURCE if verdict_claims else None),
         Note("issue 13's acceptance: {yes} when the p95 is within {c} of the target and the throughput at least {x} of "
              "the frontier's, else {no} (the two rows above).", c=crit_p95, x=crit_x, yes=Fact(1), no=Fact(0)))
    return both


def delay_target(ctx: Context, rep: Report) -> None:
    """Beyond the thesis (issue 13, section 7.1.1 "Navigating the performance frontier"):
    `cc = "proprate-target"` for targets of the 95th-percentile one-way delay, against the
    measured frontier of fixed-parameter PropRate (a Fig. 6.8(a) sweep over T, k_f and k_d) on
    every trace, both run from the same several starts into the trace; then (full run) the same
    on held-out trace segments."""
    exp = "delay-target"
    names = ["ATT-LTE-driving", "Verizon-LTE-short"] if ctx.quick else TRACES
    # 60 s quick runs: the controller's 10 s memory settles (with 20 s, 9 verdicts differed from the full run's).
    dur_s = 60 if ctx.quick else 90
    starts = DELAY_TARGET_STARTS_QUICK if ctx.quick else DELAY_TARGET_STARTS
    if ctx.quick:
        ts, kfs, kds = [5, 20, 60], [1.1, 1.25], [0.25, 0.5]
    else:
        ts, kfs, kds = [5, 10, 20, 30, 40, 60, 80, 120, 160], [1.1, 1.25, 1.5], [0.25, 0.5, 0.75]
    grid = [(tt, kf, kd) for tt in ts for kf in kfs for kd in kds]
    runs = _delay_target_runs(ctx, [(t, t, t, starts) for t in names], grid, dur_s,
                              "PropRate for a delay target (issue 13)")
    met, counted = 0, 0
    met_at = {st: 0 for st in starts}
    counted_at = {st: 0 for st in starts}
    plt = pyplot()
    cols = min(3, len(names))
    nrows = math.ceil(len(names) / cols)
    fig, axs = plt.subplots(nrows, cols, figsize=(5 * cols, 4 * nrows), squeeze=False)
    for extra in range(len(names), nrows * cols):
        axs[extra // cols][extra % cols].set_visible(False)
    for ti, t in enumerate(names):
        pts = [_over_starts([runs[(t, st)][i] for st in starts]) for i in range(len(grid))]
        front = _pareto(pts)
        # Every point (as fig6.8a's rows): the quick grid is a subset of the full one, so a
        # quick row always has its full-run counterpart.
        for i, (tt, kf, kd) in enumerate(grid):
            case = f"{t}:T={tt}ms,kf={kf:g},kd={kd:g}"
            rep.rows.append(Row(f"{exp}-frontier", case, "proprate", "throughput_mbps", "Mbit/s", round(pts[i][1], 4)))
            rep.rows.append(Row(f"{exp}-frontier", case, "proprate", "owd_p95_ms", "ms", round(pts[i][0], 2)))
            rep.rows.append(Row(f"{exp}-frontier", case, "proprate", "on_frontier", "", float(i in front)))
        rep.rows.append(Row(f"{exp}-frontier", t, "proprate", "min_owd_p95_ms", "ms", round(min(d for d, _ in pts), 2)))
        ax = axs[ti // cols][ti % cols]
        ax.scatter([d for d, _ in pts], [x for _, x in pts], s=8, color="0.7", label="fixed PropRate")
        ax.plot([pts[i][0] for i in front], [pts[i][1] for i in front], "k-", lw=1, label="frontier")
        for gi, g in enumerate(DELAY_TARGETS):
            v = f"target-{g}ms"
            ctl = _over_starts([runs[(t, st)][len(grid) + gi] for st in starts])
            both = _judge(rep, exp, t, v, g, ctl, _frontier_throughput_at(pts, g), True)
            if both is not None:
                counted += 1
                met += both
            # One start at a time (not the criterion): the controller and that start's frontier.
            ph = f"{exp}-starts"
            for st in starts:
                f = _flow(runs[(t, st)][len(grid) + gi])
                p95, x = f["owd_ms"]["p95"], f["goodput_mbps"]
                best = _frontier_throughput_at([(_flow(r)["owd_ms"]["p95"], _flow(r)["goodput_mbps"])
                                     for r in runs[(t, st)][: len(grid)]], g)
                rep.rows.append(Row(ph, t, v, f"owd_p95_ms_start_{st}s", "ms", round(p95, 2)))
                rep.rows.append(Row(ph, t, v, f"throughput_mbps_start_{st}s", "Mbit/s", round(x, 4)))
                rep.rows.append(Row(ph, t, v, f"frontier_throughput_mbps_start_{st}s", "Mbit/s",
                                    None if best is None else round(best, 4)))
                if best is not None:
                    ok = x / best >= 0.9 and 0.75 * g <= p95 <= 1.25 * g
                    counted_at[st] += 1
                    met_at[st] += ok
                    rep.rows.append(Row(ph, t, v, f"meets_both_start_{st}s", "", float(ok)))
            ax.scatter([ctl[0]], [ctl[1]], marker="*", s=90, color=f"C{gi}", zorder=3, label=f"target {g} ms")
            ax.axvline(g, color=f"C{gi}", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("95th-percentile one-way delay (ms, median over the starts)")
        ax.set_ylabel("throughput (Mbit/s, mean over the starts)")
        ax.set_title(t, fontsize=9)
        if ti == 0:
            ax.legend(fontsize=6)
    rep.rows.append(Row(exp, "all", "targets", "starts", "", float(len(starts)),
                        note=Note("start offsets into the trace, {a} to {b}, from which every point and the controller ran.",
                                  a=Fact(starts[0], "s"), b=Fact(starts[-1], "s"))))
    rep.rows.append(Row(exp, "all", "targets", "pairs_counted", "", float(counted),
                        note=Note("(trace, target) pairs where the fixed-parameter frontier reaches the target.")))
    rep.rows.append(Row(exp, "all", "targets", "pairs_meeting_both", "", float(met),
                        note=Note("pairs whose p95 is within {c} of the target and whose throughput is at least {x} of the "
                                  "frontier's, out of {n:.0f} counted.", c=Fact(25, "%"), x=Fact(90, "%"),
                                  n=f"{exp}/all/targets/pairs_counted")))
    for st in starts:
        rep.rows.append(Row(f"{exp}-starts", "all", "targets", f"pairs_counted_start_{st}s", "", float(counted_at[st])))
        rep.rows.append(Row(f"{exp}-starts", "all", "targets", f"pairs_meeting_both_start_{st}s", "", float(met_at[st]),
                            note=Note("judged from the one start {s} alone: the controller's run against that start's "
                                      "frontier.", s=Fact(st, "s"))))
    rep.figures.append(save_figure(fig, ctx.out / "delay_target.png",
                                   "Issue 13: proprate-target (stars) at each target (dotted) against the fixed-parameter "
                                   "PropRate sweep (grey) and its frontier, per trace, over the starts"))
    if ctx.quick:
        return
    ho = f"{exp}-heldout"
    hruns = _delay_target_runs(ctx, DELAY_TARGET_HELDOUT, grid, dur_s, "delay target: held-out segments")
    hmet, hcounted = 0, 0
    for case, _, _, hstarts in DELAY_TARGET_HELDOUT:
        pts = [_over_starts([hruns[(case, st)][i] for st in hstarts]) for i in range(len(grid))]
        for gi, g in enumerate(DELAY_TARGETS):
            ctl = _over_starts([hruns[(case, st)][len(grid) + gi] for st in hstarts])
            both = _judge(rep, ho, case, f"target-{g}ms", g, ctl, _frontier_throughput_at(pts, g), False)
            if both is not None:
                hcounted += 1
                hmet += both
    rep.rows.append(Row(ho, "all", "targets", "pairs_counted", "", float(hcounted)))
    rep.rows.append(Row(ho, "all", "targets", "pairs_meeting_both", "", float(hmet), note=Note(
        "held-out segments (parts of traces the sweeps above never ran; proprate-target's path was fitted on those "
        "sweeps): pairs meeting both criteria, judged the same way, out of {n:.0f} counted.",
        n=f"{ho}/all/targets/pairs_counted")))


def frontier_proteus(ctx: Context, rep: Report) -> None:
    """Figure 6.8(b): PROTEUS-Rate's throughput / delay points over its observation window,
    threshold T and drain gain (and, in the full run, its history), on the trace of
    `frontier()`, with the same reference algorithms."""
    t = "ATT-LTE-driving"
    dur = "20s" if ctx.quick else "90s"
    # (window ms, history windows, T ms, k_drain); history 64 and k_fill 1.0 unless varied.
    if ctx.quick:
        grid = [(w, 64, tt, 0.25) for w in (100, 250) for tt in (20, 50)]
    else:
        grid = [(w, 64, tt, kd) for w in (100, 250, 500) for tt in (20, 50, 80) for kd in (0.25, 0.5, 0.75)]
        grid += [(500, h, 50, 0.25) for h in (16, 32)]
    base = {**_trace_overrides(t), "duration": dur, "flows.0.cc": "proteus-rate"}
    jobs = [_scenario(ctx, "trace", {**base, "flows.0.tcp.proteus_window": f"{w}ms", "flows.0.tcp.proteus_history": h,
                                      "flows.0.tcp.proteus_threshold": f"{tt}ms", "flows.0.tcp.proteus_k_drain": kd})
            for w, h, tt, kd in grid]
    refs = ["cubic", "vegas", "proprate-high", "proprate-low", "rre"]
    jobs += [_scenario(ctx, "trace", {**_trace_overrides(t), "duration": dur, "flows.0.cc": _ch6_cc(cc)}) for cc in refs]
    res = _run_all(ctx, jobs, "PROTEUS-Rate frontier (Fig. 6.8b)")
    pts = [(_flow(r)["owd_ms"]["p95"], _flow(r)["goodput_mbps"]) for r in res]
    g_pts, ref_pts = pts[: len(grid)], dict(zip(refs, pts[len(grid):]))
    e = "frontier-proteus"
    front = _pareto(g_pts)
    case = lambda w, h, tt, kd: f"W={w}ms,H={h},T={tt}ms,kd={kd:g}"  # noqa: E731
    for i, p in enumerate(grid):
        rep.rows.append(Row(e, case(*p), "proteus-rate", "throughput_mbps", "Mbit/s", round(g_pts[i][1], 4)))
        rep.rows.append(Row(e, case(*p), "proteus-rate", "owd_p95_ms", "ms", round(g_pts[i][0], 2)))
        rep.rows.append(Row(e, case(*p), "proteus-rate", "on_frontier", "", float(i in front)))
    for cc, (d, x) in ref_pts.items():
        rep.rows.append(Row(e, "reference", cc, "throughput_mbps", "Mbit/s", round(x, 4)))
        rep.rows.append(Row(e, "reference", cc, "owd_p95_ms", "ms", round(d, 2)))
    # 6.2.5: "somewhat lower latencies by using the PROTEUS forecasting algorithm, at the cost
    # of slightly lower throughput compared to PropRate": the grid's lowest delay against the
    # lower of PropRate's two presets, and its highest throughput against the higher.
    said = Note("thesis section 6.2.5: PROTEUS-Rate achieves 'somewhat lower latencies by using the PROTEUS "
                "forecasting algorithm, at the cost of slightly lower throughput compared to PropRate' (no number); "
                "PropRate here is Table 6.1's two presets, the reference points of this experiment.")
    lo_d = min(ref_pts["proprate-low"][0], ref_pts["proprate-high"][0])
    hi_x = max(ref_pts["proprate-low"][1], ref_pts["proprate-high"][1])
    rep.rows.append(Row(e, "all", "proteus-vs-proprate", "min_owd_p95_ratio", "", min(d for d, _ in g_pts) / lo_d,
                        Claim.at_most(1.0, why="'somewhat lower latencies by using the PROTEUS forecasting algorithm' "
                                               "(6.2.5): the grid's lowest p95 over the lower of PropRate's two presets'"),
                        note=said))
    rep.rows.append(Row(e, "all", "proteus-vs-proprate", "max_throughput_ratio", "", max(x for _, x in g_pts) / hi_x,
                        Claim.between(0.8, 1.0, why="'at the cost of slightly lower throughput compared to PropRate' "
                                                    "(6.2.5): no number; 'slightly' read as within a fifth below the "
                                                    "higher preset's"), note=said))
    # "We experimented with shorter time windows and less history to reduce this initialization
    # time, but we found that doing so adversely affected the achieved performance" (6.1.2):
    # medians over the threshold and drain gains at each window size, and the history points.
    windows = sorted({w for w, _, _, _ in grid})
    med = {}
    for w in windows:
        sel = [i for i, (ww, h, _, _) in enumerate(grid) if ww == w and h == 64]
        med[w] = (statistics.median(g_pts[i][1] for i in sel), statistics.median(g_pts[i][0] for i in sel))
        rep.rows.append(Row(e, f"W={w}ms", "proteus-rate", "throughput_mbps_median", "Mbit/s", round(med[w][0], 4)))
        rep.rows.append(Row(e, f"W={w}ms", "proteus-rate", "owd_p95_ms_median", "ms", round(med[w][1], 2)))
    shorter = Note("thesis section 6.1.2: 'We experimented with shorter time windows and less history to reduce this "
                   "initialization time, but we found that doing so adversely affected the achieved performance' (no "
                   "number).")
    # The shortest window against each longer one (quick runs 100 and 250 ms; the full run
    # also 500 ms), so every quick row has its full-run counterpart.
    lo_w = windows[0]
    for hi_w in windows[1:]:
        rep.rows.append(Row(e, f"W={lo_w}ms-vs-W={hi_w}ms", "proteus-rate", "throughput_ratio_median", "",
                            med[lo_w][0] / med[hi_w][0], note=shorter))
        rep.rows.append(Row(e, f"W={lo_w}ms-vs-W={hi_w}ms", "proteus-rate", "owd_p95_ratio_median", "",
                            med[lo_w][1] / med[hi_w][1], note=shorter))
    if not ctx.quick:
        dflt = grid.index((500, 64, 50, 0.25))
        for h in (16, 32):
            i = grid.index((500, h, 50, 0.25))
            rep.rows.append(Row(e, f"H={h}-vs-H=64", "proteus-rate", "throughput_ratio", "", g_pts[i][1] / g_pts[dflt][1],
                                note=shorter))
            rep.rows.append(Row(e, f"H={h}-vs-H=64", "proteus-rate", "owd_p95_ratio", "", g_pts[i][0] / g_pts[dflt][0],
                                note=shorter))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for k, w in enumerate(windows):
        sel = [i for i, (ww, _, _, _) in enumerate(grid) if ww == w]
        ax.scatter([g_pts[i][0] for i in sel], [g_pts[i][1] for i in sel], s=14, color=f"C{k}", label=f"window {w} ms")
    ax.plot([g_pts[i][0] for i in front], [g_pts[i][1] for i in front], "k-", lw=1, label="frontier")
    for cc, (d, x) in ref_pts.items():
        ax.scatter([d], [x], marker="x", s=40, color="k")
        ax.annotate(cc, (d, x), fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("95th-percentile one-way delay (ms)")
    ax.set_ylabel("throughput (Mbit/s)")
    ax.set_title(f"Fig. 6.8(b) PROTEUS-Rate over window, T, k_drain ({t})", fontsize=9)
    ax.legend(fontsize=6)
    rep.figures.append(save_figure(fig, ctx.out / "fig6_8b_proteus_frontier.png",
                                   "Figure 6.8(b): PROTEUS-Rate's throughput / 95th-percentile delay points over its "
                                   "observation window, threshold and drain gain (x: reference algorithms)"))


def trace_friendliness(ctx: Context, rep: Report) -> None:
    """Figure 6.9: flow X, then flow Y 30 s later, on one trace; throughputs over the last 30 s."""
    names = ["Verizon-LTE-short"] if ctx.quick else ["Verizon-LTE-short", "TMobile-LTE-short"]
    same = ["cubic", "proprate-high", "proprate-low", "vegas", "sprout"]
    vs_cubic = ["proprate-high", "proprate-low", "vegas", "sprout"]
    pairs = [(a, a) for a in same] + [(a, "cubic") for a in vs_cubic] + [("cubic", a) for a in vs_cubic]
    jobs = [
        _scenario(ctx, "trace-friendliness", {**_trace_overrides(t), "flows.0.cc": a, "flows.1.cc": b})
        for t in names
        for a, b in pairs
    ]
    res = _run_all(ctx, jobs, "trace friendliness (Fig. 6.9)")
    plt = pyplot()
    fig, axs = plt.subplots(1, 2, figsize=(11, 4.5))
    k = 0
    share = {}
    for t in names:
        for a, b in pairs:
            ts = res[k].timeseries
            k += 1
            g = ts[(ts.kind == "flow") & (ts.metric == "goodput_mbps") & (ts.time_s > 30.0)]
            x = float(g[g.name == "x"].value.mean())
            y = float(g[g.name == "y"].value.mean())
            jain = (x + y) ** 2 / (2 * (x * x + y * y)) if x + y > 0 else 0.0
            case, var = t, f"{a}-then-{b}"
            rep.rows.append(Row("fig6.9-trace-friendliness", case, var, "x_throughput_mbps", "Mbit/s", round(x, 4)))
            rep.rows.append(Row("fig6.9-trace-friendliness", case, var, "y_throughput_mbps", "Mbit/s", round(y, 4)))
            rep.rows.append(Row("fig6.9-trace-friendliness", case, var, "jain", "", round(jain, 4)))
            share[(t, a, b)] = (x, y)
            ax = axs[0] if a == b else axs[1]
            ax.scatter([x], [y], s=18, marker="o" if t == names[0] else "s", color=f"C{same.index(b if a == 'cubic' else a)}")
            ax.annotate(f"{a} / {b}", (x, y), fontsize=6)
    # 6.2.6: "if [CUBIC] starts first, then the throughput of the other algorithm is significantly
    # reduced"; "If the CUBIC flow were to start later, then PropRate ... [is] able to obtain a
    # significantly larger share": X's share of the pair when X starts first vs second.
    for cc in vs_cubic:
        first = [share[(t, cc, "cubic")][0] / max(sum(share[(t, cc, "cubic")]), 1e-9) for t in names]
        second = [share[(t, "cubic", cc)][1] / max(sum(share[(t, "cubic", cc)]), 1e-9) for t in names]
        m1, m2 = _median(first), _median(second)
        said = ("thesis section 6.2.6: with CUBIC first 'the throughput of the other algorithm is significantly "
                "reduced, though PropRate still achieves slightly higher throughputs than Sprout and Vegas'; with CUBIC "
                "second PropRate obtains 'a significantly larger share of the available bandwidth than that in the "
                "earlier case' (no number).")
        if cc == "sprout":
            said = ("thesis section 6.2.6: with CUBIC first 'the throughput of the other algorithm is significantly "
                    "reduced, though PropRate still achieves slightly higher throughputs than Sprout and Vegas'; 'If the "
                    "CUBIC flow were to start later, then PropRate and Sprout are able to obtain a significantly larger "
                    "share' (no number).")
        if cc.startswith("proprate") and m1 is not None and m2 is not None and m1 < 1.2 * m2:
            said += (" Not reproduced: our PropRate's share over the last {w} is about the same whichever flow "
                     "started first ({m1:.0%} first, {m2:.0%} second). The thesis gives neither its buffer size nor its "
                     "receive windows, which decide how long a late CUBIC takes to take over the buffer.")
        e69 = f"fig6.9-trace-friendliness/all/{cc}-vs-cubic"
        rep.rows.append(Row("fig6.9-trace-friendliness", "all", f"{cc}-vs-cubic", "share_when_first_median", "", m1,
                            note=Note(said, w=Fact(30, "s"), m1=f"{e69}/share_when_first_median",
                                      m2=f"{e69}/share_when_second_median")))
        rep.rows.append(Row("fig6.9-trace-friendliness", "all", f"{cc}-vs-cubic", "share_when_second_median", "", m2))
        if cc != "vegas":
            # "If the CUBIC flow were to start later, then PropRate and Sprout are able to obtain
            # a significantly larger share of the available bandwidth than that in the earlier case".
            rep.rows.append(Row("fig6.9-trace-friendliness", "all", f"{cc}-vs-cubic", "share_first_over_second", "",
                                m1 / m2 if m1 is not None and m2 else None, Claim.at_least(1.2, why=(
                                    "'If the CUBIC flow were to start later, then PropRate and Sprout are able to obtain "
                                    "a significantly larger share of the available bandwidth than that in the earlier "
                                    "case' (6.2.6): no number; 'significantly larger' read as a fifth larger or more, the "
                                    "medians over the traces"))))
    e9 = "fig6.9-trace-friendliness"
    jain9 = lambda t, a, b: next(r.ours for r in rep.rows if r.experiment == e9 and r.case == t  # noqa: E731
                                 and r.variant == f"{a}-then-{b}" and r.metric == "jain")
    # "CUBIC is in fact not very fair when contending with another CUBIC flow and ... PropRate is
    # relatively friendly to itself" (6.2.6).
    selfj = [Row(e9, t, f"{cc}-self", "jain", "", jain9(t, cc, cc)) for t in names for cc in ("proprate-high", "proprate-low")]
    rep.rows.append(every_case(selfj, Claim.at_least(0.9, why=(
        "'PropRate is relatively friendly to itself' (6.2.6): no number; Jain's index of the two PropRate flows over "
        "the last 30 s at least 0.9, on every trace and for both presets")), experiment=e9, case="all",
        variant="proprate-self", metric="jain_min", unit=""))
    cubic_vs = [Row(e9, t, f"cubic-vs-{cc}-self", "jain_ratio", "", jain9(t, "cubic", "cubic") / jain9(t, cc, cc))
                for t in names for cc in ("proprate-high", "proprate-low")]
    rep.rows += cubic_vs
    rep.rows.append(every_case(cubic_vs, Claim.at_most(1.0, why=(
        "'CUBIC is in fact not very fair when contending with another CUBIC flow' next to PropRate's self-friendliness "
        "(6.2.6): CUBIC's index against itself below PropRate's, on every trace")), experiment=e9, case="all",
        variant="cubic-vs-proprate-self", metric="jain_ratio_max", unit=""))
    # "CUBIC is rather aggressive and if it starts first, then the throughput of the other
    # algorithm is significantly reduced, though PropRate still achieves slightly higher
    # throughputs than Sprout and Vegas" (6.2.6).
    behind = [Row(e9, t, f"{cc}-behind-cubic", "y_throughput_ratio_vs_sprout_and_vegas", "",
                  share[(t, "cubic", cc)][1] / max(share[(t, "cubic", o)][1] for o in ("sprout", "vegas"))
                  if max(share[(t, "cubic", o)][1] for o in ("sprout", "vegas")) > 0 else None)
              for t in names for cc in ("proprate-high", "proprate-low")]
    rep.rows += behind
    rep.rows.append(every_case(behind, Claim.at_least(1.0, why=(
        "with CUBIC first 'PropRate still achieves slightly higher throughputs than Sprout and Vegas' (6.2.6): each "
        "PropRate preset's throughput as flow Y over the better of Sprout's and Vegas's, on every trace")),
        experiment=e9, case="all", variant="proprate-behind-cubic", metric="y_throughput_ratio_min", unit=""))
    for ax, title in zip(axs, ("(a) self-contention", "(b) against CUBIC (X / Y)")):
        m = max([v for p in share.values() for v in p] + [1.0])
        ax.plot([0, m], [0, m], "k:", lw=1)
        ax.set_xlabel("flow X throughput, 30-60 s (Mbit/s)")
        ax.set_ylabel("flow Y throughput (Y started at 30 s)")
        ax.set_title(f"Fig. 6.9{title}", fontsize=9)
    rep.figures.append(save_figure(fig, ctx.out / "fig6_9_trace_friendliness.png",
                                   "Figure 6.9: throughput of flow X vs flow Y (started 30 s later) over the last 30 s; "
                                   "o / s: " + " / ".join(names)))


def reproduce(ctx: Context) -> Report:
    rep = Report(PAPER, TITLE)
    # The outage traces this run has (the quick grid runs one) and the rate-based senders
    # the known-weakness paragraph measures on them.
    outage = [t for t in (["Verizon-LTE-short", "TMobile-UMTS-driving"] if ctx.quick else TRACES)
              if t in ("TMobile-UMTS-driving", "Verizon-EVDO-driving")]
    p95 = "traces/{t}/{cc}/owd_p95_ms"
    rep.notes += [
        Note("Set-up: chapter 5 on the ns-2 model of section 5.2.2 (point-to-point, downlink buffer {dq}, uplink buffer "
             "{uq}, RTT {rtt}; the timed downloads connect at time zero, as ns-2's one-way agents have no handshake); "
             "chapter 6 on the Mahimahi traces shipped with tcplab in traces/cellular/ (both directions, {prop} "
             "propagation each way, {tq} drop-tail buffers, {dur} downloads). Our RFC TCP endpoint (SACK, timestamps, "
             "delayed ACKs, {mss} MSS; window-based slow start one segment per ACK, RFC 5681) hosts the rate-based "
             "framework: paced on a {tick} tick, rounding up in Buffer Fill and down in Drain/Monitor, estimates from "
             "the receiver's TSval. Vegas follows Linux's tcp_vegas (the thesis's baseline).",
             dq=Fact(2000, "packets"), uq=Fact(1, "MB"), rtt=Fact(100, "ms"), prop=Fact(20, "ms"), tq=Fact(1, "MB"),
             dur=Fact(20 if ctx.quick else 90, "s"), mss=Fact(1448, "byte"), tick=Fact(1, "ms")),
        "Not reproduced: the thesis's own ISP A/B/C traces "
        "(the Mahimahi traces stand in, as in its Figure 6.4; ATT-LTE-driving stands in for ISP C's mobile trace, "
        "the two 'short' traces for its stationary ones); "
        "the Linux-kernel and live-network experiments (sections 5.2.8 and 6.2.7).",
        Note("Our additions to the framework, each argued in crates/tcplab-core/src/rate/: a sending-rate floor of one "
             "MSS per smoothed RTT, only where the module's rate is not positive (RRE's sigma_d at small BDPs); a "
             "Monitor probe the application could not fill gives up after the monitor timeout (a probe that went out "
             "waits for its feedback, as section 4.1.4 says); the estimator's window restarts after each Slow Start "
             "burst (the idle RTT before the next burst or before paced sending is not the path's receive rate); when "
             "the {cap} cap binds, the window is the fixed last {cap}, so an outage lowers rho instead of shrinking the "
             "window to the burst that ends it; the EWMA gain ({gain}) is not given by the thesis.",
             cap=Fact(500, "ms"), gain=Fact("1/8")),
        Note("Chapter 6's RRE is Table 6.1's row (cc = rre-table6.1: T = {t}, sigma = {sigma}, section 6.2.1); "
             "chapter 5 runs the packet-based RRE of section 5.1 (cc = rre).", t=Fact(40, "ms"),
             sigma=Fact("(1 -+ 20/(40 + RTT)) rho")),
    ]
    if outage:
        rb = [(t, cc) for t in outage for cc in ("rre", "proprate-high")]
        rep.notes.append(Note(
            "Known weakness (open): on the low-rate traces with outages (" + ", ".join(f"{{o{i}}}" for i in range(len(outage)))
            + " here) the rate-based senders other than PropRate (Low) reach 95th-percentile one-way delays of {lo:.1f} "
            "to {hi:.1f} s (the `traces` rows): when the link stops for several seconds no ACK comes back, rho cannot "
            "change, and the sender paces at its last rate, open loop, into the buffer until the retransmission timer "
            "(which the queueing delay has inflated) fires. The thesis sees the same weakness (section 6.2.2: PropRate "
            "'can be further optimized to better cope with periodic complete network outages') but gives no numbers for "
            "it. Three artefacts of ours that made it worse are fixed: a rate floor of one MSS per minimum RTT applied "
            "to every rate ({floor} at a {minrtt} minimum RTT, above these traces' rate in their slow stretches), an "
            "estimator window that shrank after a gap to the few ticks of the burst ending it, and a Monitor that gave "
            "up on a sent probe and sent another burst every few RTTs into the stalled link; PropRate (Low) now reaches "
            + ", ".join(f"{{l{i}:.1f}} s on {{o{i}}}" for i in range(len(outage))) + ". A smaller receive window caps "
            "the queue on TMobile-UMTS-driving (the `outage-receive-window` rows), CUBIC's as well as the rate-based "
            "senders'.",
            lo=lambda v: min(v(p95.format(t=t, cc=cc)) for t, cc in rb) / 1000,
            hi=lambda v: max(v(p95.format(t=t, cc=cc)) for t, cc in rb) / 1000,
            floor=Fact(1448 * 8 / 0.040 / 1e6, "Mbit/s"), minrtt=Fact(40, "ms"),
            **{f"o{i}": Fact(t) for i, t in enumerate(outage)},
            **{f"l{i}": (lambda v, t=t: v(p95.format(t=t, cc="proprate-low")) / 1000) for i, t in enumerate(outage)}))
    rep.notes.append(Note(
        "PROTEUS-Rate (cc = proteus-rate, section 6.1.2: the `traces` rows and Fig. 6.8(b)): of the PROTEUS paper we "
        "found only its abstract, so the regression tree (CART, least squares, depth at most {d}, {leaf} windows a "
        "leaf), its features (the last {lags} windows' throughputs and the sending rate) and the targets are our "
        "choices, argued in crates/tcplab-core/src/rate/proteus_rate.rs. One departs from Table 6.1's letter: with "
        "sigma_f = rho the sender never offers more than the forecast, so a window in which the link kept up "
        "gets {g} times the forecast as its target (the thesis's forecasts ran 'slightly higher than the actual "
        "bandwidth', section 6.2.1; ours, from exactly paced windows, do not). Its `traces` rows include the {train} "
        "training period, which the thesis leaves out; the `*_after_training` rows leave it out when the run is "
        "longer ({dur} here).", d=Fact(4), leaf=Fact(4), lags=Fact(3), g=Fact(1.25), train=Fact(PROTEUS_TRAIN_S, "s"),
        dur=Fact(20 if ctx.quick else 90, "s")))
    rep.notes.append(
        "`paper` holds what the thesis states (a value with its tolerance, a range such as \"between 2 to 4 times\", "
        "a bound such as \"at least\", or the worst case over \"all the traces\"), each with its reading; a "
        "qualitative claim's reading is given as such. Criteria that are not the thesis's (the Sprout paper's delay "
        "target, issue 13's delay-target acceptance) name their source. A row that disagrees is explained only by a "
        "note that reads the measured rows showing the mechanism; the others are counted unexplained.")
    slow_uplink(ctx, rep)
    concurrent_upload(ctx, rep)
    normal(ctx, rep)
    fluctuation(ctx, rep)
    friendliness(ctx, rep)
    traces(ctx, rep)
    outage_receive_window(ctx, rep)
    congested_uplink(ctx, rep)
    robustness(ctx, rep)
    frontier_sprout(ctx, rep, frontier(ctx, rep))
    frontier_proteus(ctx, rep)
    trace_friendliness(ctx, rep)
    rep.notes.append(Note(
        "Beyond the thesis (issue 13, section 7.1.1): `delay-target` runs cc = proprate-target for p95 one-way-delay "
        "targets of {a}, {b} and {c} on each trace against a sweep of fixed-parameter PropRate (T, k_fill, k_drain; "
        "the frontier at a target is the best throughput among the sweep's points whose p95 is at most the target, "
        "no interpolation). Every point and the controller run from {k:.0f} starts into the trace, and each is judged "
        "by its median p95 and mean throughput over them: from one start, the best of the sweep's points at a target "
        "is partly the best phase of the trace. Its claims are the issue's acceptance, not the thesis's: p95 within "
        "{p} of the target, throughput at least {x} of the frontier's, counted only where the sweep reaches the "
        "target ({n:.0f} pairs here, {m:.0f} meeting both). `delay-target-starts` judges each start alone. The "
        "controller steers by the sender's own estimate (half its least RTT plus the timestamp buffer delay) and "
        "moves along a parameter path chosen on these same sweeps (in-sample); the full run checks it on held-out "
        "trace segments (`delay-target-heldout`).",
        a=Fact(DELAY_TARGETS[0], "ms"), b=Fact(DELAY_TARGETS[1], "ms"), c=Fact(DELAY_TARGETS[2], "ms"),
        p=Fact(25, "%"), x=Fact(90, "%"), n="delay-target/all/targets/pairs_counted",
        m="delay-target/all/targets/pairs_meeting_both", k="delay-target/all/targets/starts"))
    delay_target(ctx, rep)
    return rep
