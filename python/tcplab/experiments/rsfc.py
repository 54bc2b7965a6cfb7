"""RSFC: Y. Xu, W. K. Leong, B. Leong and A. Razeen, "Dynamic Regulation of Mobile 3G/HSPA
Uplink Buffer with Receiver-Side Flow Control" -- section IV, Figures 8, 9, 10, 12, 13, 14,
15 and 16, from the scenario files in ``scenarios/rsfc/`` (``tcplab reproduce rsfc``).

The paper measured live 3G/HSPA networks of three ISPs over days; we replace the ISPs' varying
uplinks by a sweep of constant-rate uplinks over the range it reports (30 kbit/s to
1.6 Mbit/s, section I) and two measured 3G uplink traces, and read its CDFs (over time) as
distributions over that sweep. Each
configuration is one run; the paper's "median over the day" becomes the median over the
configurations. Model choices the paper leaves open are in ``scenarios/rsfc/upload.toml``
and docs/rsfc.md: a 100 ms base RTT, a 1000-packet phone buffer (Linux's txqueuelen), a
2 Mbit/s downlink with a 50-packet buffer, 10 ms timestamp clocks on both hosts.

The paper shows ISP A's results ("ISP A consistently has low upload throughput"): its claims
are verdict rows on our slow uplinks (below 400 kbit/s, Fig. 10's line); "all" rows are over
the whole sweep, the UMTS and EVDO uplink traces included.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from . import Context, Report, Row

PAPER = (
    "Y. Xu, W. K. Leong, B. Leong and A. Razeen, \"Dynamic Regulation of Mobile 3G/HSPA Uplink Buffer with "
    "Receiver-Side Flow Control\" (RSFC), National University of Singapore and Duke University"
)
TITLE = "RSFC: receiver-side flow control of a 3G uplink buffer (Xu, Leong, Leong & Razeen)"
P = "rsfc"

#: Uplink rates in kbit/s: the paper's measured range, 30 kbit/s to 1.6 Mbit/s (section I,
#: Fig. 1), denser below 400 kbit/s where RSFC matters (Fig. 10).
RATES_FULL: tuple[int | str, ...] = (30, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1200, 1600, "umts", "evdo")
#: Trace-driven uplinks (the Mahimahi traces shipped in traces/cellular/, measured by the
#: Sprout authors while driving): a 3G UMTS and a 3G EVDO uplink, means 0.94 and 0.84 Mbit/s,
#: 0 to 1.5 and 1.8 Mbit/s over 1-second windows. Each run starts at the trace's beginning.
TRACES = {"umts": "TMobile-UMTS-driving.up", "evdo": "Verizon-EVDO-driving.up"}
#: Quick mode runs the same grid: the whole reproduction takes about a second (these links
#: carry few packets), so there is nothing to gain from a smaller one.
RATES_QUICK = RATES_FULL
#: Section IV-B, Fig. 10: "RSFC achieves the greatest improvement when the upload throughput
#: is below 400 kbps".
SLOW_KBPS = 400
#: Section IV-F's sender algorithms.
SENDER_CCS = ("cubic", "newreno", "vegas", "westwood")
MS, MBPS = "ms", "Mbit/s"
#: Pages loaded per uplink rate and condition (Fig. 11: the paper loaded the Alexa top 100):
#: draws of the httparchive-2012 page model.
PAGE_SEEDS = (1, 2, 3, 4)

#: Paper numbers (section IV-A, IV-B, IV-D): CUBIC's upload RTT "greater than 6 s 50% of the
#: time", RSFC's "close to 1 s more than 90% of the time"; d1 "lower than 400 kbps all the
#: time", d2 "greater than 400 kbps" 50% of the time; RSFC uploads "relatively fair".
PAPER_CUBIC_RTT_MEDIAN_MS = 6000.0
PAPER_RSFC_RTT_MS = 1000.0
PAPER_D2_MEDIAN_MBPS = 0.4


def case(k: int | str) -> str:
    return f"up{k}k" if isinstance(k, int) else k


def _rate(k: int | str) -> dict[str, Any]:
    """The uplink of configuration ``k``: a constant rate in kbit/s, or a measured trace."""
    if isinstance(k, int):
        return {"topology.uplink.rate": f"{k}kbit/s"}
    return {"topology.uplink": {"trace": f"../../traces/cellular/{TRACES[k]}", "delay": "50ms", "queue": "1000pkts"}}


def _sweep(rates: tuple[int | str, ...]) -> str:
    ks = [k for k in rates if isinstance(k, int)]
    tr = [k for k in rates if not isinstance(k, int)]
    return f"{ks[0]}-{ks[-1]} kbit/s" + (f" and the {' and '.join(t.upper() for t in tr)} uplink traces" if tr else "")


def _flow(s: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in s["flows"] if f["name"] == name)


def _median(xs: list[float]) -> float:
    return float(statistics.median(xs))


def _upload_jobs(ctx: Context, rates: tuple[int | str, ...], cc: str, fc: str) -> list[Any]:
    return [ctx.scenario(P, "upload", _rate(k) | {"flows.0.cc": cc, "flows.0.receiver_tcp.fc": fc}) for k in rates]


def reproduce(ctx: Context) -> Report:
    rates = RATES_QUICK if ctx.quick else RATES_FULL
    slow = [k for k in rates if isinstance(k, int) and k < SLOW_KBPS]
    rows: list[Row] = []
    notes: list[str] = []

    def row(exp: str, c: str, variant: str, metric: str, unit: str, ours: float | None, paper: float | None = None,
            note: str = "", verdict: bool = False) -> Row:
        r = Row(exp, c, variant, metric, unit, None if ours is None else round(float(ours), 4), paper, note, verdict=verdict)
        rows.append(r)
        return r

    # ---- Fig. 8 and Figs. 15: 1 MB uploads, every sender cc, classic or RSFC receiver ------------------
    up: dict[tuple[str, str, int], dict[str, Any]] = {}
    keys = [(cc, fc) for cc in SENDER_CCS for fc in ("classic", "rsfc")]
    jobs = [j for cc, fc in keys for j in _upload_jobs(ctx, rates, cc, fc)]
    res = ctx.run_all(jobs, "rsfc uploads")
    i = 0
    for cc, fc in keys:
        for k in rates:
            up[(cc, fc, k)] = _flow(res[i].summary, "upload")
            i += 1
    rtt = {key: float(f["rtt_ms"]["p50"]) for key, f in up.items()}
    mbps = {key: float(f["goodput_mbps"]) for key, f in up.items()}

    for k in rates:
        for fc, variant in (("classic", "cubic"), ("rsfc", "rsfc")):
            row("rtt-reduction", case(k), variant, "rtt_median_ms", MS, rtt[("cubic", fc, k)])
            row("rtt-reduction", case(k), variant, "upload_mbps", MBPS, mbps[("cubic", fc, k)])
    cubic_med = _median([rtt[("cubic", "classic", k)] for k in rates])
    rsfc_med = _median([rtt[("cubic", "rsfc", k)] for k in rates])
    # The paper's statements are bounds over a day ("greater than 6 s 50% of the time",
    # "close to 1 s more than 90% of the time"): the medians are listed without a paper value
    # and the bounds are verdicts.
    row("rtt-reduction", "all", "cubic", "rtt_median_ms", MS, cubic_med)
    row("rtt-reduction", "all", "rsfc", "rtt_median_ms", MS, rsfc_med)
    # The paper's Figs. 8, 9, 11 and 12 are ISP A's, which "consistently has low upload
    # throughput": its claims are tested on our slow uplinks (< 400 kbit/s, Fig. 10's line).
    cubic_slow = _median([rtt[("cubic", "classic", k)] for k in slow])
    rsfc_rtts = sorted(rtt[("cubic", "rsfc", k)] for k in slow)
    rsfc_p90 = rsfc_rtts[min(len(rsfc_rtts) - 1, int(0.9 * len(rsfc_rtts)))]
    row("rtt-reduction", "slow-uplink", "cubic", "rtt_median_ms", MS, cubic_slow)
    row("rtt-reduction", "slow-uplink", "rsfc", "rtt_median_ms", MS, _median(rsfc_rtts))
    row("rtt-reduction", "slow-uplink", "rsfc", "rtt_p90_ms", MS, rsfc_p90)
    row("verdicts", "slow-uplink", "cubic-rtt-median-above-6s", "holds", "",
        1.0 if cubic_slow > PAPER_CUBIC_RTT_MEDIAN_MS else 0.0, 1.0, verdict=True,
        note="" if cubic_slow > PAPER_CUBIC_RTT_MEDIAN_MS else _note_cubic_rtt(cubic_slow, tuple(slow)))
    ok_rsfc = rsfc_p90 <= 1.2 * PAPER_RSFC_RTT_MS
    row("verdicts", "slow-uplink", "rsfc-rtt-about-1s-or-less-90pct", "holds", "", 1.0 if ok_rsfc else 0.0, 1.0, verdict=True,
        note="" if ok_rsfc else _note_rsfc_rtt(rsfc_med, rsfc_rtts))
    row("rtt-reduction", "all", "cubic", "upload_mbps_median", MBPS, _median([mbps[("cubic", "classic", k)] for k in rates]))
    row("rtt-reduction", "all", "rsfc", "upload_mbps_median", MBPS, _median([mbps[("cubic", "rsfc", k)] for k in rates]))
    # The criteria on slow uplinks: RSFC's median RTT at most a third of CUBIC's, with
    # at least 90% of its throughput, in every slow configuration.
    rtt_ratio = max(rtt[("cubic", "rsfc", k)] / rtt[("cubic", "classic", k)] for k in slow)
    thr_ratio = min(mbps[("cubic", "rsfc", k)] / mbps[("cubic", "classic", k)] for k in slow)
    row("rtt-reduction", "slow-uplink", "rsfc-vs-cubic", "rtt_ratio_max", "", rtt_ratio)
    row("rtt-reduction", "slow-uplink", "rsfc-vs-cubic", "throughput_ratio_min", "", thr_ratio)
    row("verdicts", "slow-uplink", "rtt-at-most-a-third", "holds", "", 1.0 if rtt_ratio <= 1 / 3 else 0.0, 1.0, verdict=True)
    row("verdicts", "slow-uplink", "throughput-at-least-90pct", "holds", "", 1.0 if thr_ratio >= 0.9 else 0.0, 1.0, verdict=True,
        note="" if thr_ratio >= 0.9 else _note_throughput(thr_ratio, slow, up))

    for cc in SENDER_CCS:
        for fc in ("classic", "rsfc"):
            row("compat", "all", f"{cc}/{fc}", "rtt_median_ms", MS, _median([rtt[(cc, fc, k)] for k in rates]))
            row("compat", "all", f"{cc}/{fc}", "upload_mbps_median", MBPS, _median([mbps[(cc, fc, k)] for k in rates]))

    # ---- Figs. 9, 10 and 16: a 1 MB download behind a continuous upload ---------------------------
    conc: dict[tuple[str, str, int], dict[str, Any]] = {}
    ckeys = [(cc, fc) for cc in SENDER_CCS for fc in ("classic", "rsfc")]
    cjobs = []
    for cc, fc in ckeys:
        for k in rates:
            cjobs.append(ctx.scenario(P, "concurrent", _rate(k) | {"flows.0.cc": cc, "flows.0.receiver_tcp.fc": fc}))
    d0_jobs = [ctx.scenario(P, "concurrent", _rate(k) | {"flows": [_download_alone()]}) for k in rates]
    cres = ctx.run_all(cjobs + d0_jobs, "rsfc concurrent")
    i = 0
    for cc, fc in ckeys:
        for k in rates:
            conc[(cc, fc, k)] = cres[i].summary
            i += 1
    d0 = {k: float(_flow(cres[i + j].summary, "download")["goodput_mbps"]) for j, k in enumerate(rates)}
    u0 = {k: mbps[("cubic", "classic", k)] for k in rates}
    d1 = {k: float(_flow(conc[("cubic", "classic", k)], "download")["goodput_mbps"]) for k in rates}
    d2 = {k: float(_flow(conc[("cubic", "rsfc", k)], "download")["goodput_mbps"]) for k in rates}
    u1 = {k: float(_flow(conc[("cubic", "classic", k)], "upload")["goodput_mbps"]) for k in rates}
    u2 = {k: float(_flow(conc[("cubic", "rsfc", k)], "upload")["goodput_mbps"]) for k in rates}
    for k in rates:
        row("concurrent", case(k), "d0", "download_mbps", MBPS, d0[k])
        row("concurrent", case(k), "u0", "upload_mbps", MBPS, u0[k])
        row("concurrent", case(k), "d1", "download_mbps", MBPS, d1[k])
        row("concurrent", case(k), "u1", "upload_mbps", MBPS, u1[k])
        row("concurrent", case(k), "d2", "download_mbps", MBPS, d2[k])
        row("concurrent", case(k), "u2", "upload_mbps", MBPS, u2[k])
        row("concurrent", case(k), "d2-vs-d1", "download_ratio", "", d2[k] / d1[k])
    ratio_all = _median([d2[k] / d1[k] for k in rates])
    ratio_slow = _median([d2[k] / d1[k] for k in rates if u0[k] * 1000 < SLOW_KBPS])
    row("concurrent", "all", "d2-vs-d1", "download_ratio_median", "", ratio_all)
    row("concurrent", "slow-uplink", "d2-vs-d1", "download_ratio_median", "", ratio_slow)
    # Paper (bounds over a day on ISP A): d1 "lower than 400 kbps all the time and ... close to
    # 10 kbps 30% of the time"; d2 "greater than 400 kbps" 50% of the time.
    d1_max = max(d1[k] for k in slow)
    near10 = sum(1 for k in slow if d1[k] <= 0.02) / len(slow)
    d2_med = _median([d2[k] for k in slow])
    row("concurrent", "all", "d1", "download_mbps_max", MBPS, max(d1.values()))
    row("concurrent", "all", "d2", "download_mbps_median", MBPS, _median(list(d2.values())))
    row("concurrent", "slow-uplink", "d1", "download_mbps_max", MBPS, d1_max)
    row("concurrent", "slow-uplink", "d1", "share_at_most_20kbps", "", near10, 0.3,
        note="" if abs(near10 / 0.3 - 1) <= 0.2 else _note_d1(d1))
    row("concurrent", "slow-uplink", "d2", "download_mbps_median", MBPS, d2_med)
    row("verdicts", "slow-uplink", "d1-below-400kbps-always", "holds", "", 1.0 if d1_max < 0.4 else 0.0, 1.0, verdict=True,
        note="" if d1_max < 0.4 else _note_d1(d1))
    row("verdicts", "slow-uplink", "d2-above-400kbps-half-the-time", "holds", "", 1.0 if d2_med >= PAPER_D2_MEDIAN_MBPS else 0.0,
        1.0, verdict=True, note="" if d2_med >= PAPER_D2_MEDIAN_MBPS else _note_d2(d2, d0))
    row("verdicts", "slow-uplink", "download-ratio-at-least-2", "holds", "", 1.0 if ratio_slow >= 2 else 0.0, 1.0, verdict=True)
    for cc in SENDER_CCS:
        for fc in ("classic", "rsfc"):
            row("compat", "all", f"{cc}/{fc}", "download_mbps", MBPS,
                _median([float(_flow(conc[(cc, fc, k)], "download")["goodput_mbps"]) for k in rates]))

    # ---- Fig. 12: two RSFC uploads of 0.5 MB each, against one 1 MB CUBIC upload ---------------------
    two = [{"name": n, "src": "client", "dst": "server", "bytes": "500KB", "cc": "cubic", "receiver_tcp": {"fc": "rsfc"}}
           for n in ("upload-a", "upload-b")]
    fres = ctx.run_all([ctx.scenario(P, "upload", _rate(k) | {"flows": two}) for k in rates], "rsfc fairness")
    jains, effs, detail, slow_jains = [], [], [], []
    for k, r in zip(rates, fres):
        fa, fb = (_flow(r.summary, n) for n in ("upload-a", "upload-b"))
        r1, r2 = float(fa["goodput_mbps"]), float(fb["goodput_mbps"])
        detail.append(f"{case(k)}: {fa['completion_s']:.1f} s and {fb['completion_s']:.1f} s, median RTTs "
                      f"{fa['rtt_ms']['p50'] / 1000:.2f} s and {fb['rtt_ms']['p50'] / 1000:.2f} s, "
                      f"{fa['rsfc']['fast_entries']} and {fb['rsfc']['fast_entries']} fast-state entries")
        jain = (r1 + r2) ** 2 / (2 * (r1 * r1 + r2 * r2))
        eff = (r1 + r2) / mbps[("cubic", "classic", k)]
        jains.append(jain)
        effs.append(eff)
        if k in slow:
            slow_jains.append(jain)
        row("fairness", case(k), "rsfc-rsfc", "jain", "", jain)
        row("fairness", case(k), "rsfc-rsfc", "efficiency", "", eff)
    jain_med, eff_med = _median(jains), _median(effs)
    row("fairness", "all", "rsfc-rsfc", "jain_median", "", jain_med)
    jain_slow = _median(slow_jains)
    row("fairness", "slow-uplink", "rsfc-rsfc", "jain_median", "", jain_slow)
    row("fairness", "all", "rsfc-rsfc", "efficiency_median", "", eff_med)
    row("verdicts", "slow-uplink", "rsfc-jain-at-least-0.9", "holds", "", 1.0 if jain_slow >= 0.9 else 0.0, 1.0, verdict=True,
        note="" if jain_slow >= 0.9 else
        "Paper (Fig. 12): the two RSFC uploads 'achieve very similar throughput'. Ours do not: the two 0.5 MB uploads "
        f"finish at ({'; '.join(detail)}). Each receiver reads the other flow's packets in the shared phone buffer as "
        "its own buffering delay; with both windows clamped on the same queue the two cycles do not alternate as the "
        "paper describes, the shared queue stays long (the median RTTs above, against one RSFC upload's in "
        "rtt-reduction) and the flow that gets ahead keeps its lead. Throughput per flow is the paper's (bytes over the "
        "flow's own duration), which also makes the efficiency exceed 1 when the flows finish at different times. "
        "Not yet understood beyond this; open in the RSFC issue.")

    # ---- Fig. 11: page loads with no upload, a CUBIC upload, an RSFC upload -------------------------
    wvariants = {"no-upload": {"flows": []}, "cubic": {"flows.0.receiver_tcp.fc": "classic"}, "rsfc": {}}
    wjobs = [ctx.scenario(P, "web", _rate(k) | o | {"pages.0.seed": s})
             for o in wvariants.values() for k in rates for s in PAGE_SEEDS]
    wres = ctx.run_all(wjobs, "rsfc web")
    web = ctx.scenario(P, "web").to_dict()
    # How long a page had to load: from its start to the end of the run.
    cap = (web["duration"] - web["pages"][0]["start"]) / 1e9

    def load_row(exp: str, c: str, v: str, metric: str, x: float) -> None:
        """A load time; a page that did not load within the run gives its lower bound, the
        time it had, with a note saying so."""
        if math.isinf(x):
            row(exp, c, v, metric, "s", cap, note=f"At least {cap:.0f} s: the pages did not load within the run "
                "(a lower bound, not a measured time).")
        else:
            row(exp, c, v, metric, "s", x)

    loads: dict[str, list[float]] = {}
    slow_loads: dict[str, list[float]] = {}
    i = 0
    for v in wvariants:
        xs = []
        for k in rates:
            per_rate = []
            for _ in PAGE_SEEDS:
                t = wres[i].summary["pages"][0]["load_time_s"]
                i += 1
                # A page that did not load within the run counts as slower than any that did.
                per_rate.append(math.inf if t is None else float(t))
            load_row("web", case(k), v, "page_load_median_s", statistics.median(per_rate))
            xs += per_rate
            if k in slow:
                slow_loads.setdefault(v, []).extend(per_rate)
        loads[v] = sorted(xs)
        slow_loads[v] = sorted(slow_loads[v])
        load_row("web", "all", v, "page_load_p50_s", _pct(loads[v], 0.5))
        load_row("web", "all", v, "page_load_p90_s", _pct(loads[v], 0.9))
        row("web", "all", v, "share_within_30s", "", _share(loads[v], lambda x: x <= 30))
        row("web", "all", v, "share_above_120s", "", _share(loads[v], lambda x: x > 120))
        load_row("web", "slow-uplink", v, "page_load_p50_s", _pct(slow_loads[v], 0.5))
        load_row("web", "slow-uplink", v, "page_load_p90_s", _pct(slow_loads[v], 0.9))
        row("web", "slow-uplink", v, "share_within_30s", "", _share(slow_loads[v], lambda x: x <= 30))
        row("web", "slow-uplink", v, "share_within_60s", "", _share(slow_loads[v], lambda x: x <= 60))
        row("web", "slow-uplink", v, "share_above_120s", "", _share(slow_loads[v], lambda x: x > 120))
    # Paper (over the Alexa top 100 on ISP A): without an upload "90% of these websites take
    # less than 30 s to load"; with a CUBIC upload "70% of them can take more than 2 mins";
    # RSFC "reduce[s] the load time to within 30 s for 70% of the websites and to within
    # 1 min for 90% of them".
    web_checks = (
        ("no-upload-90pct-within-30s", _share(slow_loads["no-upload"], lambda x: x <= 30) >= 0.9),
        ("cubic-70pct-above-2min", _share(slow_loads["cubic"], lambda x: x > 120) >= 0.7),
        ("rsfc-70pct-within-30s", _share(slow_loads["rsfc"], lambda x: x <= 30) >= 0.7),
        ("rsfc-90pct-within-1min", _share(slow_loads["rsfc"], lambda x: x <= 60) >= 0.9),
    )
    for name, ok in web_checks:
        row("verdicts", "slow-uplink", name, "holds", "", 1.0 if ok else 0.0, 1.0, verdict=True,
            note="" if ok else _note_web(name, slow_loads, tuple(slow)))

    # ---- Figs. 13 and 14: the uplink's delay drops at 5 s and rises back at 20 s -------------------
    # Throughput per phase from runs cut at the phase ends (a run is a prefix of a longer one:
    # the same events up to its end).
    phases = ((0, 5), (5, 20), (20, 60))
    avariants = {"rsfc": {}, "rsfc-no-minima-updates": {"flows.0.receiver_tcp.rsfc_minima_updates": False},
                 "cubic": {"flows.0.receiver_tcp.fc": "classic"}}
    ajobs = [ctx.scenario(P, "adaptation", o | {"duration": f"{end}s"}) for o in avariants.values() for _, end in phases]
    ares = ctx.run_all(ajobs, "rsfc adaptation")
    phase_mbps: dict[tuple[str, int], float] = {}
    i = 0
    for v in avariants:
        delivered = [0]
        for _, end in phases:
            delivered.append(int(_flow(ares[i].summary, "upload")["bytes_delivered"]))
            i += 1
        for p, (a, b) in enumerate(phases):
            phase_mbps[(v, p)] = (delivered[p + 1] - delivered[p]) * 8 / (b - a) / 1e6
            row("adaptation", f"{a}-{b}s", v, "upload_mbps", MBPS, phase_mbps[(v, p)])
        last = _flow(ares[i - 1].summary, "upload")
        row("adaptation", "0-60s", v, "rtt_median_ms", MS, float(last["rtt_ms"]["p50"]))
        if last.get("rsfc"):
            row("adaptation", "0-60s", v, "minima_updates", "",
                last["rsfc"]["cycle_minima_updates"] + last["rsfc"]["monitor_rho_increases"])
    # Fig. 13: without the updates, "after 25 s, the throughput is lower than that achieved during
    # the first 10 s even though the network conditions for both periods are similar"; Fig. 14:
    # with them the link stays used.
    # The verdicts compare each variant's last phase with its own first (the paper's "lower than
    # that achieved during the first 10 s"), with a 10% margin.
    full_ok = phase_mbps[("rsfc", 2)] >= 0.9 * phase_mbps[("rsfc", 0)]
    variant_low = phase_mbps[("rsfc-no-minima-updates", 2)] < 0.9 * phase_mbps[("rsfc-no-minima-updates", 0)]
    row("verdicts", "20-60s", "no-updates-underuses-the-link", "holds", "", 1.0 if variant_low else 0.0, 1.0, verdict=True)
    row("verdicts", "20-60s", "updates-keep-the-link-used", "holds", "", 1.0 if full_ok else 0.0, 1.0, verdict=True)

    notes.append(
        "Set-up (scenarios/rsfc/*.toml): a phone (`client`) and a server on a 3G path with a 100 ms base RTT, the "
        "phone's uplink at each rate of the sweep with a 1000-packet buffer, a 2 Mbit/s downlink with a 50-packet "
        "buffer, 10 ms timestamp clocks on both hosts. The paper's CDFs over a day of live measurements are read as "
        "distributions over the sweep of uplinks "
        f"({', '.join(case(k) for k in rates)}: {_sweep(rates)}); 'median' rows are medians over it. The upload's RTT is the "
        "median of its sender's RTT samples."
    )
    return Report(PAPER, TITLE, rows=rows, notes=notes)


def _download_alone() -> dict[str, Any]:
    return {"name": "download", "src": "server", "dst": "client", "start": "10s", "bytes": "1MB", "cc": "cubic"}


def _note_cubic_rtt(med: float, rates: tuple[int | str, ...]) -> str:
    if abs(med / PAPER_CUBIC_RTT_MEDIAN_MS - 1) <= 0.2:
        return ""
    return (f"Paper: CUBIC's RTT 'greater than 6 s 50% of the time', a lower bound on its median over the day. Ours "
            f"is the median over uplinks of {_sweep(rates)}: the queue a 1 MB CUBIC upload builds is "
            "about the data in flight over the uplink rate, so the RTT falls as the uplink speeds up; the paper's ISP A "
            "spent most of the day at the slow end of the range.")


def _note_rsfc_rtt(med: float, xs: list[float]) -> str:
    if abs(med / PAPER_RSFC_RTT_MS - 1) <= 0.2:
        return ""
    return (f"Paper: RSFC's RTT 'close to 1 s more than 90% of the time'. Ours: median {med:.0f} ms, "
            f"{min(xs):.0f}-{max(xs):.0f} ms over the sweep. RSFC keeps the buffer near T = RTT_min of queue (at most "
            "2T + RTT_min, section III-B), so its RTT is a small multiple of the base RTT, 100 ms here; the paper's 3G "
            "paths had longer base RTTs.")


def _note_throughput(r: float, slow: list[int], up: dict[tuple[str, str, int], dict[str, Any]]) -> str:
    return (f"RSFC's upload reaches {r:.0%} of CUBIC's on the slowest-ratio configuration. Each slow/fast cycle lets "
            "the buffer run empty (section III-B), and RTT_min is the smallest of many samples read off 10 ms clocks, "
            "so the BDP the fast state allows is an under-estimate.")


def _note_d1(d1: dict[int, float]) -> str:
    vals = ", ".join(f"{case(k)}: {v * 1000:.1f}" for k, v in d1.items())
    return (f"Paper: d1 'close to 10 kbps 30% of the time' and 'lower than 400 kbps all the time' over a day on ISP A. "
            f"Ours, d1 in kbit/s per uplink rate: {vals}. Behind a CUBIC upload the download's ACKs wait the whole "
            "uplink queue (seconds to tens of seconds with a 1000-packet buffer), so d1 collapses further at every rate "
            "of our sweep than on the paper's live network, whose uplink buffer and scheduling we do not know.")


def _note_d2(d2: dict[int, float], d0: dict[int, float]) -> str:
    med = _median(list(d2.values()))
    if abs(med / PAPER_D2_MEDIAN_MBPS - 1) <= 0.2:
        return ""
    return (f"Paper: d2 'greater than 400 kbps' 50% of the time, i.e. a median near 0.4 Mbit/s, below d0 (about "
            f"2 Mbit/s). Ours: median {med:.2f} Mbit/s against d0 {_median(list(d0.values())):.2f} Mbit/s; the paper "
            "attributes part of its remaining gap to 3G air-time scheduling between the two directions, which a "
            "point-to-point model does not have.")


def _pct(xs: list[float], q: float) -> float:
    """The q-quantile of sorted ``xs`` (nearest rank)."""
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]


def _share(xs: list[float], pred: Any) -> float:
    return sum(1 for x in xs if pred(x)) / len(xs)


def _note_web(name: str, loads: dict[str, list[float]], rates: tuple[int | str, ...]) -> str:
    def desc(v: str) -> str:
        xs = loads[v]
        return (f"{v}: median {_fmt_s(_pct(xs, 0.5))}, 90th percentile {_fmt_s(_pct(xs, 0.9))}, "
                f"{_share(xs, lambda x: x <= 30):.0%} within 30 s, {_share(xs, lambda x: x > 120):.0%} above 2 min")
    return (f"Ours, over {len(loads['rsfc'])} page loads per condition ({len(PAGE_SEEDS)} pages x uplinks of "
            f"{_sweep(rates)}): {desc('no-upload')}; {desc('cubic')}; {desc('rsfc')}. The paper loaded "
            "the Alexa top 100 sites (many servers, DNS lookups, its ISPs' web proxies) over live 3G; ours is one "
            "server's average 2012 page over 6 connections on a 2 Mbit/s downlink, so absolute load times are not "
            "comparable; the ordering of the three conditions is the claim we test.")


def _fmt_s(x: float) -> str:
    return "did not load" if math.isinf(x) else f"{x:.1f} s"
