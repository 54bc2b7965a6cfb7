#!/usr/bin/env python3
"""tcplab against ns-2.35 on the baselines of the reproduced experiments (bench/ns2-compare/README.md).

  python bench/ns2-compare/compare.py                  # tcplab vs the stored ns-2 references (no ns-2 needed)
  python bench/ns2-compare/compare.py --ns2            # first re-run ns-2 and rewrite reference/*.json
  python bench/ns2-compare/compare.py --only bsf darca # a subset of the scenarios
  python bench/ns2-compare/compare.py --profile linux  # another stack profile than the scenarios' "ns2"
  python bench/ns2-compare/compare.py --json           # the comparison as JSON
  python bench/ns2-compare/compare.py --diagnose concurrent cubic 5 1000 4000
                                                       # one chapter-5 point, event by event, in both

Scenarios (each an ns-2 script, a tcplab TOML and a stored ns-2 reference):

* ``ch5-concurrent`` (ch5.tcl concurrent / ch5-concurrent-upload.toml): thesis 5.2.4, a 1 MB
  download started at START s behind a saturating CUBIC upload; grid START x uplink x
  downlink x the download's cc (TCP-Linux cubic, reno, westwood, vegas).
* ``ch5-slow`` (ch5.tcl slow / ch5-slow-uplink.toml): thesis 5.2.3, the 1 MB download alone
  over a slow uplink; grid uplink x downlink x cc.
* ``bsf`` (bsf.tcl / bsf-red.toml): the BSF paper's topology without BSF; error rates x seeds.
* ``darca`` (darca.tcl / darca-droptail.toml): the DARCA paper's topology without DARCA.
* ``reno-periodic`` (reno-periodic.tcl / reno-periodic.toml): a mechanism check rather than
  a baseline: one Reno connection on DARCA's path with every PERIOD-th packet on the link
  dropped (ns-2's ErrorModel/Periodic, tcplab's `loss = { kind = "periodic" }`), the pattern
  DARCA's drop counters impose; both against Mathis et al.'s rate, which DARCA inverts.

Metrics: chapter 5, the download's goodput (payload bytes x 8 / (completion - start), or
bytes delivered by the 300 s end of the run / (300 s - start) if it did not complete: both
simulators the same way); the long-lived scenarios, aggregate goodput (payload bytes
delivered in order x 8 / run time) and per connection.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REF = HERE / "reference"

#: ns-2 TCP-Linux module (`select_ca`) -> tcplab `cc`.
CH5_CC = {"cubic": "cubic", "reno": "newreno", "westwood": "westwood", "vegas": "vegas"}
CONC_STARTS = [2, 5, 8]              # s: the download's start (thesis: 1-10 s)
CONC_UPS = [250, 1000, 3000]         # kbit/s (thesis: 250-3000)
CONC_DOWNS = [1000, 4000, 8000]      # kbit/s (thesis: 500-8000)
SLOW_START = 1
SLOW_UPS = [20, 60, 200]             # kbit/s (thesis Fig. 5.4: slow uplinks)
SLOW_DOWNS = [2000, 4000, 8000]      # kbit/s
CH5_DURATION = 300.0                 # s, both TOMLs and ch5.tcl
DOWNLOAD_BYTES = 685 * 1460          # ns-2's `$ftp send 1000000`: 685 segments
STARVED = 0.10                       # starved: goodput below 10% of the downlink rate
BSF_ERRORS = [0.01, 0.05, 0.10]
BSF_SEEDS = [1, 2, 3]
BSF_DURATION = 500
DARCA_SEEDS = [1]                    # drop-tail only: neither simulator draws a random number
DARCA_DURATION = 200
PERIODS = [20, 45, 80, 180, 400]     # packets between drops: Mathis windows of 7 to 33 packets
PERIODIC_DURATION = 300
PERIODIC_MSS = 512                   # payload bytes (packetSize_)
# The path's round trip without queueing: 2 x (20 + 20 + 10) ms of propagation plus a
# 552-byte data packet's serialisation at 100, 10 and 100 Mbit/s and a 40-byte ACK's back.
PERIODIC_RTT_S = 0.100 + 552 * 8 * (2 / 100e6 + 1 / 10e6) + 40 * 8 * (2 / 100e6 + 1 / 10e6)

# Aims of issue 16.
AIM_AGGREGATE = 0.10                 # long-lived: aggregate goodput within 10% of ns-2
AIM_MEDIAN_FACTOR = 1.25             # chapter 5: median per-point ratio within a factor 1.25
AIM_STARVED_PP = 0.10                # chapter 5: starved share within 10 percentage points

SCENARIOS = ["ch5-concurrent", "ch5-slow", "bsf", "darca", "reno-periodic"]
REFERENCE_FILE = {
    "ch5-concurrent": "ch5-concurrent-upload.json",
    "ch5-slow": "ch5-slow-uplink.json",
    "bsf": "bsf-red.json",
    "darca": "darca-droptail.json",
    "reno-periodic": "reno-periodic.json",
}
TOML = {
    "ch5-concurrent": "ch5-concurrent-upload.toml",
    "ch5-slow": "ch5-slow-uplink.toml",
    "bsf": "bsf-red.toml",
    "darca": "darca-droptail.toml",
    "reno-periodic": "reno-periodic.toml",
}


# ----------------------------------------------------------------------------- the grids


def points(scenario: str) -> list[dict[str, Any]]:
    """Every run of a scenario, as the parameters both simulators take."""
    if scenario == "ch5-concurrent":
        return [{"cc": cc, "start_s": t, "up_kbps": u, "down_kbps": d}
                for cc in CH5_CC for t in CONC_STARTS for u in CONC_UPS for d in CONC_DOWNS]
    if scenario == "ch5-slow":
        return [{"cc": cc, "start_s": SLOW_START, "up_kbps": u, "down_kbps": d}
                for cc in CH5_CC for u in SLOW_UPS for d in SLOW_DOWNS]
    if scenario == "bsf":
        return [{"error_rate": e, "seed": s} for e in BSF_ERRORS for s in BSF_SEEDS]
    if scenario == "darca":
        return [{"seed": s} for s in DARCA_SEEDS]
    if scenario == "reno-periodic":
        return [{"period": n} for n in PERIODS]
    raise ValueError(scenario)


def key(scenario: str, p: dict[str, Any]) -> tuple:
    if scenario.startswith("ch5"):
        return (p["cc"], p["start_s"], p["up_kbps"], p["down_kbps"])
    if scenario == "bsf":
        return (p["error_rate"], p["seed"])
    if scenario == "reno-periodic":
        return (p["period"],)
    return (p["seed"],)


# ----------------------------------------------------------------------------- ns-2


def _ns(args: list[str]) -> dict[str, Any]:
    out = subprocess.run(["nice", "-n", "10", "ns", *args], check=True, capture_output=True, text=True).stdout
    # TCP-Linux prints its `select_ca` commands on stdout; the result is the line with the JSON.
    return json.loads(next(line for line in out.splitlines() if line.startswith("{")))


def ns2_point(scenario: str, p: dict[str, Any], trace: Path | None = None) -> dict[str, Any]:
    if scenario.startswith("ch5"):
        mode = "concurrent" if scenario == "ch5-concurrent" else "slow"
        args = [str(HERE / "ch5.tcl"), mode, p["cc"], str(p["start_s"]), str(p["up_kbps"]), str(p["down_kbps"]), "1"]
        return _ns(args + ([str(trace)] if trace else []))
    if scenario == "bsf":
        return _ns([str(HERE / "bsf.tcl"), str(p["error_rate"]), str(p["seed"]), str(BSF_DURATION)])
    if scenario == "darca":
        return _ns([str(HERE / "darca.tcl"), str(p["seed"]), str(DARCA_DURATION)])
    if scenario == "reno-periodic":
        return _ns([str(HERE / "reno-periodic.tcl"), str(p["period"]), str(PERIODIC_DURATION)])
    raise ValueError(scenario)


def run_ns2(scenario: str) -> dict[str, Any]:
    runs = []
    for p in points(scenario):
        print(f"[ns-2] {scenario} {p}", file=sys.stderr)
        runs.append(ns2_point(scenario, p))
    script = "ch5.tcl" if scenario.startswith("ch5") else f"{scenario}.tcl"
    return {
        "simulator": "ns-2.35 (Debian 2.35+dfsg-5)",
        "script": f"bench/ns2-compare/{script}",
        "scenario": scenario,
        "grid": grid_description(scenario),
        "runs": runs,
    }


def grid_description(scenario: str) -> dict[str, Any]:
    if scenario == "ch5-concurrent":
        return {"cc": list(CH5_CC), "start_s": CONC_STARTS, "up_kbps": CONC_UPS, "down_kbps": CONC_DOWNS,
                "duration_s": CH5_DURATION, "seed": 1}
    if scenario == "ch5-slow":
        return {"cc": list(CH5_CC), "start_s": [SLOW_START], "up_kbps": SLOW_UPS, "down_kbps": SLOW_DOWNS,
                "duration_s": CH5_DURATION, "seed": 1}
    if scenario == "bsf":
        return {"error_rate": BSF_ERRORS, "seed": BSF_SEEDS, "duration_s": BSF_DURATION, "mean_burst_pkts": 3}
    if scenario == "reno-periodic":
        return {"period": PERIODS, "duration_s": PERIODIC_DURATION}
    return {"seed": DARCA_SEEDS, "duration_s": DARCA_DURATION}


def load_reference(scenario: str) -> dict[str, Any]:
    return json.loads((REF / REFERENCE_FILE[scenario]).read_text())


# ----------------------------------------------------------------------------- tcplab


def scenario_for(scenario: str, p: dict[str, Any], profile: str | None = None, timeseries: bool = False):
    """The tcplab scenario of one point: the TOML beside this script with the point's values."""
    import tcplab

    sc = tcplab.load(HERE / TOML[scenario])
    ov: dict[str, Any] = {}
    if scenario.startswith("ch5"):
        ov = {"flows.0.cc": CH5_CC[p["cc"]], "flows.0.start": f"{p['start_s']}s",
              "topology.uplink.rate": f"{p['up_kbps']}kbit/s", "topology.downlink.rate": f"{p['down_kbps']}kbit/s"}
    elif scenario == "bsf":
        ov = {"topology.links.0.loss.error_rate": p["error_rate"], "duration": f"{BSF_DURATION}s", "seed": p["seed"]}
    elif scenario == "darca":
        ov = {"duration": f"{DARCA_DURATION}s", "seed": p["seed"]}
    elif scenario == "reno-periodic":
        ov = {"duration": f"{PERIODIC_DURATION}s", "topology.links.0.loss.period": p["period"]}
    if profile is not None:
        # The scenarios run under `profile = "ns2"` (docs/profiles.md); this replaces it,
        # e.g. `--profile linux` shows what the default profile gives on ns-2's set-ups.
        ov["defaults.tcp.profile"] = profile
    if timeseries:
        ov["record.timeseries"] = True
        ov["record.interval"] = "100ms"
    return sc.with_overrides(ov)


def tcplab_point(scenario: str, p: dict[str, Any], profile: str | None = None) -> dict[str, Any]:
    import tcplab

    sc = scenario_for(scenario, p, profile)
    res = tcplab.run(sc, seed=p.get("seed", 1))
    if not res.ok:
        raise RuntimeError(f"tcplab run invalid: {res.summary.get('invariants')}")
    s = res.summary
    if scenario.startswith("ch5"):
        f = s["flows"][0]
        complete = f["completion_s"] is not None
        t = (f["completion_s"] if complete else CH5_DURATION) - p["start_s"]
        out = {**p, "complete": complete, "completion_s": f["completion_s"], "bytes_delivered": f["bytes_delivered"],
               "goodput_mbps": f["bytes_delivered"] * 8 / t / 1e6,
               "retransmits": f["retransmits"], "timeouts": f["timeouts"], "fast_retransmits": f["fast_retransmits"],
               "uplink_drops": next(l for l in s["links"] if l["name"] == "uplink")["drops"]["queue"]}
        if scenario == "ch5-concurrent":
            u = s["flows"][1]
            out["upload"] = {k: u[k] for k in ("bytes_delivered", "retransmits", "timeouts", "fast_retransmits")}
        return out
    if scenario == "reno-periodic":
        f = s["flows"][0]
        return {**p, "bytes_delivered": f["bytes_delivered"],
                "goodput_mbps": f["bytes_delivered"] * 8 / PERIODIC_DURATION / 1e6,
                "retransmits": f["retransmits"], "timeouts": f["timeouts"], "fast_retransmits": f["fast_retransmits"],
                "L_loss_drops": next(l for l in s["links"] if l["name"] == "L")["drops"]["loss"]}
    dur = BSF_DURATION if scenario == "bsf" else DARCA_DURATION
    flows = [{"name": f["name"], "bytes_delivered": f["bytes_delivered"],
              "goodput_mbps": f["bytes_delivered"] * 8 / (dur - f["start_s"]) / 1e6,
              "retransmits": f["retransmits"], "timeouts": f["timeouts"], "fast_retransmits": f["fast_retransmits"]}
             for f in s["flows"]]
    return {**p, "aggregate_goodput_mbps": sum(f["bytes_delivered"] for f in flows) * 8 / dur / 1e6, "flows": flows}


# ----------------------------------------------------------------------------- comparison


def starved(run: dict[str, Any]) -> bool:
    return run["goodput_mbps"] < STARVED * run["down_kbps"] / 1000


def compare_ch5(scenario: str, ref: dict[str, Any], ours: list[dict[str, Any]]) -> dict[str, Any]:
    ns = {key(scenario, r): r for r in ref["runs"]}
    per_cc: dict[str, Any] = {}
    rows = []
    for cc in CH5_CC:
        mine = [r for r in ours if r["cc"] == cc]
        if not mine:
            continue
        theirs = [ns[key(scenario, r)] for r in mine]
        ratios = [a["goodput_mbps"] / b["goodput_mbps"] if b["goodput_mbps"] > 0 else math.inf for a, b in zip(mine, theirs)]
        med = statistics.median(ratios)
        st_ns = sum(starved(r) for r in theirs) / len(theirs)
        st_tl = sum(starved(r) for r in mine) / len(mine)
        per_cc[cc] = {
            "points": len(mine),
            "median_goodput_ns2": statistics.median(r["goodput_mbps"] for r in theirs),
            "median_goodput_tcplab": statistics.median(r["goodput_mbps"] for r in mine),
            "median_ratio": med,
            "ratio_p25": statistics.quantiles(ratios, n=4)[0] if len(ratios) > 1 else med,
            "ratio_p75": statistics.quantiles(ratios, n=4)[2] if len(ratios) > 1 else med,
            "within_1_25": sum(1 / AIM_MEDIAN_FACTOR <= x <= AIM_MEDIAN_FACTOR for x in ratios) / len(ratios),
            "starved_ns2": st_ns,
            "starved_tcplab": st_tl,
            "complete_ns2": sum(r["complete"] for r in theirs) / len(theirs),
            "complete_tcplab": sum(r["complete"] for r in mine) / len(mine),
            "aim_median_met": 1 / AIM_MEDIAN_FACTOR <= med <= AIM_MEDIAN_FACTOR,
            "aim_starved_met": abs(st_ns - st_tl) <= AIM_STARVED_PP + 1e-12,
        }
        for a, b, x in zip(mine, theirs, ratios):
            rows.append({"cc": cc, "start_s": a["start_s"], "up_kbps": a["up_kbps"], "down_kbps": a["down_kbps"],
                         "ns2": b["goodput_mbps"], "tcplab": a["goodput_mbps"], "ratio": x,
                         "ns2_timeouts": b["timeouts"], "tcplab_timeouts": a["timeouts"]})
    return {"per_cc": per_cc, "rows": rows}


def compare_long(scenario: str, ref: dict[str, Any], ours: list[dict[str, Any]]) -> dict[str, Any]:
    ns = {key(scenario, r): r for r in ref["runs"]}
    groups: dict[Any, list[tuple[dict, dict]]] = {}
    for r in ours:
        g = r.get("error_rate", "all")
        groups.setdefault(g, []).append((r, ns[key(scenario, r)]))
    out = {}
    for g, pairs in groups.items():
        a = statistics.mean(r["aggregate_goodput_mbps"] for r, _ in pairs)
        b = statistics.mean(n["aggregate_goodput_mbps"] for _, n in pairs)
        nflows = len(pairs[0][0]["flows"])
        per_flow = [
            {"ns2": statistics.mean(n["flows"][i]["goodput_mbps"] for _, n in pairs),
             "tcplab": statistics.mean(r["flows"][i]["goodput_mbps"] for r, _ in pairs),
             "ns2_timeouts": statistics.mean(n["flows"][i]["timeouts"] for _, n in pairs),
             "tcplab_timeouts": statistics.mean(r["flows"][i]["timeouts"] for r, _ in pairs)}
            for i in range(nflows)
        ]
        out[str(g)] = {"runs": len(pairs), "aggregate_ns2": b, "aggregate_tcplab": a, "rel_diff": (a - b) / b,
                       "aim_met": abs(a - b) / b <= AIM_AGGREGATE, "per_flow": per_flow}
    return out


def mathis_mbps(period: int) -> float:
    """Mathis, Semke, Mahdavi and Ott (1997): BW = MSS / RTT x sqrt(3 / (2p)), p = 1 / period,
    at the path's round trip without queueing (the window stays below the path's 226-packet
    BDP, so the queue stays near empty): the rate DARCA's model promises for this drop rate."""
    return PERIODIC_MSS * 8 / PERIODIC_RTT_S * math.sqrt(1.5 * period) / 1e6


def compare_periodic(ref: dict[str, Any], ours: list[dict[str, Any]]) -> dict[str, Any]:
    ns = {key("reno-periodic", r): r for r in ref["runs"]}
    rows = []
    for r in ours:
        n = ns[key("reno-periodic", r)]
        m = mathis_mbps(r["period"])
        rows.append({"period": r["period"], "mathis_window_pkts": math.sqrt(8 * r["period"] / 3), "mathis_mbps": m,
                     "ns2_mbps": n["goodput_mbps"], "tcplab_mbps": r["goodput_mbps"],
                     "ns2_to_mathis": n["goodput_mbps"] / m, "tcplab_to_mathis": r["goodput_mbps"] / m,
                     "rel_diff": (r["goodput_mbps"] - n["goodput_mbps"]) / n["goodput_mbps"],
                     "aim_met": abs(r["goodput_mbps"] - n["goodput_mbps"]) / n["goodput_mbps"] <= AIM_AGGREGATE,
                     "ns2_timeouts": n["timeouts"], "tcplab_timeouts": r["timeouts"],
                     "ns2_rexmit": n["rexmit_pkts"], "tcplab_rexmit": r["retransmits"]})
    return {"rows": rows}


def compare(scenario: str, ref: dict[str, Any], ours: list[dict[str, Any]]) -> dict[str, Any]:
    if scenario == "reno-periodic":
        return compare_periodic(ref, ours)
    return compare_ch5(scenario, ref, ours) if scenario.startswith("ch5") else compare_long(scenario, ref, ours)


def print_report(results: dict[str, Any]) -> None:
    for sc, res in results.items():
        print(f"\n== {sc}")
        if sc.startswith("ch5"):
            print(f"{'cc':9} {'pts':>3} {'med ns-2':>9} {'med tcplab':>10} {'med ratio':>9} {'p25-p75':>13} "
                  f"{'in 1.25x':>8} {'starved ns-2/tcplab':>20} {'complete ns-2/tcplab':>21}  aims (median, starved)")
            for cc, r in res["per_cc"].items():
                print(f"{cc:9} {r['points']:3d} {r['median_goodput_ns2']:9.3f} {r['median_goodput_tcplab']:10.3f} "
                      f"{r['median_ratio']:9.2f} {r['ratio_p25']:6.2f}-{r['ratio_p75']:<6.2f} {r['within_1_25']:8.0%} "
                      f"{r['starved_ns2']:9.0%} / {r['starved_tcplab']:<8.0%} {r['complete_ns2']:10.0%} / {r['complete_tcplab']:<8.0%}  "
                      f"{'met' if r['aim_median_met'] else 'MISSED'}, {'met' if r['aim_starved_met'] else 'MISSED'}")
        elif sc == "reno-periodic":
            print(f"{'period':>6} {'W_mathis':>8} {'Mathis':>7} {'ns-2':>7} {'tcplab':>7} {'diff':>6} {'ns-2/M':>6} {'tcplab/M':>8} "
                  f"{'timeouts ns-2/tcplab':>20} {'rexmit ns-2/tcplab':>18}  (Mbit/s)")
            for r in res["rows"]:
                print(f"{r['period']:6d} {r['mathis_window_pkts']:8.1f} {r['mathis_mbps']:7.3f} {r['ns2_mbps']:7.3f} {r['tcplab_mbps']:7.3f} "
                      f"{r['rel_diff'] * 100:+5.1f}% {r['ns2_to_mathis']:6.2f} {r['tcplab_to_mathis']:8.2f} "
                      f"{r['ns2_timeouts']:9d} / {r['tcplab_timeouts']:<8d} {r['ns2_rexmit']:8d} / {r['tcplab_rexmit']:<8d}"
                      f"  {'met' if r['aim_met'] else 'MISSED'}")
        else:
            for g, r in res.items():
                label = f"error rate {g}" if sc == "bsf" else "all"
                print(f"{label}: aggregate ns-2 {r['aggregate_ns2']:.4f} Mbit/s, tcplab {r['aggregate_tcplab']:.4f} Mbit/s, "
                      f"{r['rel_diff'] * 100:+.1f}% ({'met' if r['aim_met'] else 'MISSED'}; {r['runs']} run(s))")
                print("   per connection (Mbit/s, timeouts): " + ", ".join(
                    f"{f['ns2']:.3f}/{f['tcplab']:.3f} ({f['ns2_timeouts']:.0f}/{f['tcplab_timeouts']:.0f})" for f in r["per_flow"]))


# ----------------------------------------------------------------------------- diagnosis


def diagnose(mode: str, cc: str, start: float, up: int, down: int) -> None:
    """One chapter-5 point in both simulators: the download's cwnd (packets) every 2 s, its
    timeouts, and for the concurrent case the upload's counters (README.md, Results)."""
    import tempfile

    import tcplab

    scenario = "ch5-concurrent" if mode == "concurrent" else "ch5-slow"
    p = {"cc": cc, "start_s": start, "up_kbps": up, "down_kbps": down}
    with tempfile.TemporaryDirectory() as tmp:
        tr = Path(tmp) / "cwnd.tr"
        ns = ns2_point(scenario, p, tr)
        ns_cwnd, ns_rto = [], []
        for line in tr.read_text().splitlines():
            f = line.split()
            if f[5] == "cwnd_":
                ns_cwnd.append((float(f[0]), float(f[6])))
            elif f[5] == "nrexmit_":
                ns_rto.append(float(f[0]))
    res = tcplab.run(scenario_for(scenario, p, timeseries=True), seed=1)
    df = res.timeseries
    d = df[(df.kind == "flow") & (df.name == "download")].pivot(index="time_s", columns="metric", values="value")
    tl = tcplab_point(scenario, p)
    print(f"ns-2:   {json.dumps({k: ns[k] for k in ns if k not in ('mode',)})}")
    print(f"tcplab: {json.dumps(tl)}")
    print(f"ns-2 download timeouts at: {', '.join(f'{t:.2f}' for t in ns_rto) or 'none'} s")
    end = (ns["completion_s"] or CH5_DURATION)
    print(f"{'t (s)':>6} {'ns-2 cwnd':>10} {'tcplab cwnd':>12} {'tcplab srtt ms':>15} {'tcplab delivered kB':>20}")
    t = float(start)
    while t <= min(max(end, tl["completion_s"] or CH5_DURATION), CH5_DURATION) + 1e-9:
        c = [v for (x, v) in ns_cwnd if x <= t]
        row = d[d.index <= t + 1e-9].iloc[-1] if (d.index <= t + 1e-9).any() else None
        print(f"{t:6.1f} {c[-1] if c else float('nan'):10.1f} "
              f"{(row.cwnd_bytes / 1460) if row is not None else float('nan'):12.1f} "
              f"{row.srtt_ms if row is not None else float('nan'):15.0f} "
              f"{(row.delivered_bytes / 1000) if row is not None else float('nan'):20.1f}")
        t += 2.0


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns2", action="store_true", help="re-run ns-2 and rewrite reference/*.json")
    ap.add_argument("--only", nargs="+", choices=SCENARIOS, default=SCENARIOS)
    ap.add_argument("--profile", metavar="NAME", help="run under this stack profile instead of the scenarios' own \"ns2\" (docs/profiles.md)")
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON")
    ap.add_argument("--out", type=Path, help="also write the comparison (and tcplab's runs) as JSON here")
    ap.add_argument("--diagnose", nargs=5, metavar=("MODE", "CC", "START", "UP_KBPS", "DOWN_KBPS"),
                    help="one chapter-5 point event by event in both simulators (needs ns-2)")
    a = ap.parse_args(argv)
    if (a.ns2 or a.diagnose) and shutil.which("ns") is None:
        print("error: ns (ns-2) is not installed: apt-get install ns2", file=sys.stderr)
        return 2
    if a.diagnose:
        m, cc, t, u, d = a.diagnose
        diagnose(m, cc, float(t) if "." in t else int(t), int(u), int(d))
        return 0
    if a.ns2:
        REF.mkdir(exist_ok=True)
        for sc in a.only:
            (REF / REFERENCE_FILE[sc]).write_text(json.dumps(run_ns2(sc), indent=1) + "\n")
    import tcplab

    results, ours_all = {}, {}
    for sc in a.only:
        ref = load_reference(sc)
        try:
            ours = [tcplab_point(sc, p, a.profile) for p in points(sc)]
        except tcplab.ScenarioError as e:
            print(f"error: --profile {a.profile}: tcplab rejected the scenario: {e}" if a.profile else f"error: {e}",
                  file=sys.stderr)
            return 2
        ours_all[sc] = ours
        results[sc] = compare(sc, ref, ours)
    if a.out:
        a.out.write_text(json.dumps({"profile": a.profile, "comparison": results, "tcplab": ours_all}, indent=1) + "\n")
    if a.json:
        print(json.dumps(results, indent=1))
    else:
        if a.profile:
            print(f"tcplab with profile = {a.profile!r}")
        print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
