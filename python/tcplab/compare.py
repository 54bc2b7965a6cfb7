"""Sim beside live (issue 36, "Sim beside live"): ``tcplab compare SCENARIO.toml`` runs a
scenario in the simulator and live (``tcplab emulate``) and sets the two summaries side by
side, per flow and per link, with the differences, and the goodput time series overlaid.
The simulator runs the scenario as written, whose TCP is the ``linux`` profile unless it
names another (live mode refuses any other, so both sides run the same profile)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

FLOW_METRICS = [
    ("goodput_mbps", "goodput Mbit/s", lambda f: f["goodput_mbps"]),
    ("retransmits", "retransmits", lambda f: f["retransmits"]),
    ("rtt_mean_ms", "RTT mean ms", lambda f: f["rtt_ms"]["mean"]),
    ("owd_mean_ms", "OWD mean ms", lambda f: f["owd_ms"]["mean"]),
    ("completion_s", "completion s", lambda f: f["completion_s"]),
]
LINK_METRICS = [
    ("utilization", "utilisation", lambda l: l["utilization"]),
    ("drops_queue", "queue drops", lambda l: l["drops"]["queue"]),
    ("max_queue_packets", "max queue pkts", lambda l: l["max_queue_packets"]),
]


def _diff(sim: Any, live: Any) -> float | None:
    if sim is None or live is None:
        return None
    if sim == 0:
        return None if live != 0 else 0.0
    return (live - sim) / abs(sim) * 100.0


def rows(sim: dict[str, Any], live: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (entity, metric): sim, live and live's difference in percent of sim."""
    out = []
    for fs, fl in zip(sim["flows"], live["flows"]):
        for key, label, get in FLOW_METRICS:
            a, b = get(fs), get(fl)
            out.append({"kind": "flow", "name": fs["name"], "metric": key, "label": label, "sim": a, "live": b, "diff_pct": _diff(a, b)})
    # Elements (BSF, DARCA) matched by node and kind: the counters the driver keeps of each
    # (the same code counts in both), and the element's own report's numbers.
    live_elems = {(e["node"], e["kind"]): e for e in live.get("elements", [])}
    for es in sim.get("elements", []):
        el = live_elems.get((es["node"], es["kind"]))
        if el is None:
            continue
        name = f"{es['kind']}@{es['node']}"
        for key in ("seen", "dropped", "created"):
            a, b = es["counters"][key], el["counters"][key]
            out.append({"kind": "element", "name": name, "metric": key, "label": f"packets {key}", "sim": a, "live": b,
                        "diff_pct": _diff(a, b)})
        for key, a in sorted(es.get("detail", {}).items()):
            b = el.get("detail", {}).get(key)
            if isinstance(a, (int, float)) and not isinstance(a, bool) and isinstance(b, (int, float)):
                out.append({"kind": "element", "name": name, "metric": f"detail.{key}", "label": key, "sim": a, "live": b,
                            "diff_pct": _diff(a, b)})
    by_name = {l["name"]: l for l in live["links"]}
    for ls in sim["links"]:
        ll = by_name.get(ls["name"])
        if ll is None:
            continue
        for key, label, get in LINK_METRICS:
            a, b = get(ls), get(ll)
            out.append({"kind": "link", "name": ls["name"], "metric": key, "label": label, "sim": a, "live": b, "diff_pct": _diff(a, b)})
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def markdown(name: str, rs: list[dict[str, Any]], live: dict[str, Any]) -> str:
    lv = live["live"]
    lat = lv["accuracy"]["lateness_us"]
    lines = [f"# {name}: simulator beside live", "",
             f"Live: kernel {lv['kernel']}, flows' cc as the sockets report it: "
             + ", ".join(f"{f['name']}={f['cc']}" for f in live["flows"])
             + f"; release lateness mean {lat['mean_us']:.0f} us, p99 {lat['p99_us']:.0f} us"
             + ("" if lv["accuracy"]["within_bound"] else " (**beyond the bound: do not trust the live column**)"), "",
             "| entity | metric | sim | live | live - sim |", "|---|---|---:|---:|---:|"]
    for r in rs:
        d = "-" if r["diff_pct"] is None else f"{r['diff_pct']:+.1f}%"
        lines.append(f"| {r['kind']} {r['name']} | {r['label']} | {_fmt(r['sim'])} | {_fmt(r['live'])} | {d} |")
    return "\n".join(lines) + "\n"


def overlay(sim_res: Any, live_res: Any, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    for res, style, who in ((sim_res, "-", "sim"), (live_res, "--", "live")):
        ts = res.timeseries
        g = ts[(ts.kind == "flow") & (ts.metric == "goodput_mbps")]
        for name, d in g.groupby("name", observed=True):
            ax.plot(d.time_s, d.value, style, label=f"{name} ({who})")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput (Mbit/s)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
