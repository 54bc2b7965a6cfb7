#!/usr/bin/env python3
"""RED cross-check, tcplab against ns-2.35 (bench/red/README.md).

  python bench/red/compare.py            # tcplab vs the stored ns-2 reference (no ns-2 needed)
  python bench/red/compare.py --ns2      # first re-run ns-2 (red.tcl) and rewrite the reference
  python bench/red/compare.py --json     # the comparison as JSON

Both simulators run the same 100 s scenario (red.tcl / red-ns2.toml) with seeds 1..5; each
figure is the mean over the seeds: the mean over arrivals of RED's average queue (ns-2's
`ave_` trace; tcplab's summary `red.mean_ave`), of the backlog each arrival found (`curq_`),
the 10 ms-sampled queue length, and the drop rate (queue drops / arrivals at the
bottleneck), all over the whole run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import mean

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "ns2-reference.json"
ARRIVALS = HERE / "ns2-arrivals-plain-1.txt"
SEEDS = [1, 2, 3, 4, 5]
VARIANTS = ["plain", "gentle", "ecn"]   # compared with tcplab
NS2_ONLY: list[str] = []
METRICS = ["mean_ave_pkts", "mean_curq_pkts", "mean_queue_sampled_pkts", "drop_rate"]


def run_ns2(variants: list[str], seeds: list[int]) -> dict:
    out: dict = {"simulator": "ns-2.35 (Debian 2.35+dfsg-5)", "script": "bench/red/red.tcl", "seeds": seeds, "variants": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for v in variants:
            runs = []
            for s in seeds:
                subprocess.run(["ns", str(HERE / "red.tcl"), v, str(s), tmp], check=True, stdout=subprocess.DEVNULL)
                runs.append(json.loads(Path(tmp, f"{v}-{s}.json").read_text()))
                if (v, s) == ("plain", 1):  # kept for the queue-only replay
                    shutil.copy(Path(tmp, f"{v}-{s}.arrivals.txt"), ARRIVALS)
            out["variants"][v] = {"runs": runs, "mean": {k: mean(r[k] for r in runs) for k in METRICS}}
    return out


def tcplab_run(variant: str, seed: int) -> dict:
    import tcplab

    sc = tcplab.load(HERE / "red-ns2.toml")
    if variant == "gentle":
        sc = sc.with_overrides({"topology.links.0.queue.gentle": True})
    elif variant == "ecn":
        # red.tcl's ecn variant: setbit_ true at the queue, ecn_ 1 at the senders.
        sc = sc.with_overrides({"topology.links.0.queue.ecn": True, "defaults.tcp.ecn": True})
    elif variant != "plain":
        raise ValueError(variant)
    res = tcplab.run(sc, seed=seed)
    assert res.ok, res.summary.get("invariants")
    link = next(l for l in res.summary["links"] if l["name"] == "bottleneck")
    red = link["red"]
    ts = res._ts_raw  # the raw column arrays (no pandas needed)
    ent = next(i for i, e in enumerate(ts["entities"]) if e == ["link", "bottleneck"])
    met = ts["metrics"].index("queue_packets")
    q = [v for e, m, v in zip(ts["entity"], ts["metric"], ts["value"]) if e == ent and m == met]
    return {
        "seed": seed,
        "arrivals": red["arrivals"],
        "drops": link["drops"]["queue"],
        "early_drops": red["early_drops"],
        "forced_drops": red["forced_drops"],
        "marks": red["marks"],
        "drop_rate": link["drops"]["queue"] / red["arrivals"],
        "mean_ave_pkts": red["mean_ave"],
        "mean_curq_pkts": red["mean_curq"],
        "mean_queue_sampled_pkts": mean(q),
        "queue_samples": len(q),
        # The senders, beside ns-2's Agent/TCP counters (TCP, not the queue, differs).
        "flows": [
            {k: f[k] for k in ["data_packets_delivered", "retransmits", "timeouts", "fast_retransmits"]}
            for f in res.summary["flows"]
        ],
    }


def tcplab_results(variants: list[str], seeds: list[int]) -> dict:
    out: dict = {"variants": {}}
    for v in variants:
        runs = [tcplab_run(v, s) for s in seeds]
        out["variants"][v] = {"runs": runs, "mean": {k: mean(r[k] for r in runs) for k in METRICS}}
    return out


def compare(ref: dict, ours: dict) -> list[dict]:
    rows = []
    for v in VARIANTS:
        for k in METRICS:
            a = ref["variants"][v]["mean"][k]
            b = ours["variants"][v]["mean"][k]
            rows.append({"variant": v, "metric": k, "ns2": a, "tcplab": b, "rel_diff": (b - a) / a})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns2", action="store_true", help="re-run ns-2 and rewrite ns2-reference.json")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.ns2:
        if shutil.which("ns") is None:
            print("error: ns (ns-2) is not installed: apt-get install ns2", file=sys.stderr)
            return 2
        REFERENCE.write_text(json.dumps(run_ns2(VARIANTS + NS2_ONLY, SEEDS), indent=1) + "\n")
    ref = json.loads(REFERENCE.read_text())
    ours = tcplab_results(VARIANTS, SEEDS)
    rows = compare(ref, ours)
    if a.json:
        print(json.dumps({"rows": rows, "tcplab": ours}, indent=1))
        return 0
    print(f"{'variant':8} {'metric':26} {'ns-2':>10} {'tcplab':>10} {'diff':>8}")
    for r in rows:
        print(f"{r['variant']:8} {r['metric']:26} {r['ns2']:10.4f} {r['tcplab']:10.4f} {r['rel_diff']*100:+7.1f}%")
    print("\nsenders, summed over flows, mean over seeds (ns-2: nrexmitpack_, nrexmit_, ncwndcuts_):")
    for v in VARIANTS:
        ns = ref["variants"][v]["runs"]
        tl = ours["variants"][v]["runs"]
        def tot(runs, k):
            return mean(sum(f[k] for f in r["flows"]) for r in runs)
        print(f"{v:8} ns-2:   retransmitted {tot(ns, 'rexmit_pkts'):7.1f}  timeouts {tot(ns, 'timeouts'):6.1f}  window cuts {tot(ns, 'cwnd_cuts'):6.1f}")
        print(f"{'':8} tcplab: retransmitted {tot(tl, 'retransmits'):7.1f}  timeouts {tot(tl, 'timeouts'):6.1f}  fast retransmits {tot(tl, 'fast_retransmits'):6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
