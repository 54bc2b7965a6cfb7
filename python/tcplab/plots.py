"""PNG plots of one run: goodput, windows, queues, one-way delay.

They read the long-form time series (metric names in docs/summary.md) and the summary;
a plot whose metrics the run did not record says so on the figure instead of going missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from .runner import Result

#: Metric names the plots read (first one present wins).
GOODPUT = ("goodput_mbps",)
CWND = ("cwnd_bytes",)
RWND = ("rwnd_bytes", "adv_window_bytes")
QUEUE = ("queue_packets", "queue_bytes")


def _pick(df: "pd.DataFrame", kind: str, names: tuple[str, ...]) -> tuple[str | None, "pd.DataFrame"]:
    sub = df[df["kind"] == kind]
    for m in names:
        rows = sub[sub["metric"] == m]
        if len(rows):
            return m, rows
    return None, sub.iloc[0:0]


def _empty(ax: Any, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} recorded in this run", ha="center", va="center", transform=ax.transAxes, color="0.4")


def _per_entity(ax: Any, rows: "pd.DataFrame", scale: float = 1.0, style: str = "-", label_suffix: str = "") -> None:
    for name, g in rows.groupby("name", observed=True, sort=False):
        ax.plot(g["time_s"], g["value"] * scale, style, label=f"{name}{label_suffix}", linewidth=1.2)


def write_plots(result: "Result", out: Path) -> list[Path]:
    """Write goodput.png, windows.png, queues.png and owd.png into ``out``; return their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = result.timeseries
    name = result.summary.get("scenario", result.scenario.name)
    seed = result.summary.get("seed")
    tag = f"{name} (seed {seed})"
    written: list[Path] = []

    def save(fig: Any, fname: str) -> None:
        p = out / fname
        fig.tight_layout()
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)

    # Goodput.
    fig, ax = plt.subplots(figsize=(8, 4.2))
    m, rows = _pick(df, "flow", GOODPUT)
    if m:
        _per_entity(ax, rows)
        ax.set_ylim(bottom=0)
        ax.legend(loc="best", fontsize="small")
    else:
        _empty(ax, "goodput")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_title(f"Goodput per flow: {tag}")
    ax.grid(alpha=0.3)
    save(fig, "goodput.png")

    # Congestion and advertised windows.
    fig, ax = plt.subplots(figsize=(8, 4.2))
    mc, crows = _pick(df, "flow", CWND)
    mr, rrows = _pick(df, "flow", RWND)
    if mc or mr:
        if mc:
            _per_entity(ax, crows, 1 / 1000, "-", " cwnd")
        if mr:
            ax.set_prop_cycle(None)
            _per_entity(ax, rrows, 1 / 1000, "--", " adv. window")
        hi = [r["value"].max() for r in (crows, rrows) if len(r)]
        lo = [r["value"][r["value"] > 0].min() for r in (crows, rrows) if len(r) and (r["value"] > 0).any()]
        if hi and lo and max(hi) > 20 * max(min(lo), 1):
            ax.set_yscale("log")
        ax.legend(loc="best", fontsize="small")
    else:
        _empty(ax, "window")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("window (kB)" + (", log scale" if ax.get_yscale() == "log" else ""))
    ax.set_title(f"Congestion window (solid) and advertised window (dashed): {tag}")
    ax.grid(alpha=0.3)
    save(fig, "windows.png")

    # Queues: only links that ever held a packet, so a dumbbell's idle access links stay out.
    fig, ax = plt.subplots(figsize=(8, 4.2))
    mq, qrows = _pick(df, "link", QUEUE)
    busy = qrows.groupby("name", observed=True)["value"].max() if mq else None
    if mq and busy is not None and (busy > 0).any():
        _per_entity(ax, qrows[qrows["name"].isin(busy[busy > 0].index)])
        ax.legend(loc="best", fontsize="small")
    elif mq:
        _empty(ax, "non-empty queue")
    else:
        _empty(ax, "queue length")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue length (packets)" if mq != "queue_bytes" else "queue length (bytes)")
    ax.set_title(f"Queue length per link: {tag}")
    ax.grid(alpha=0.3)
    save(fig, "queues.png")

    # One-way delay CDF: every data packet of each flow (from the simulator's histogram).
    fig, ax = plt.subplots(figsize=(8, 4.2))
    drew = False
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, f in enumerate(result.summary.get("flows", [])):
        color = colors[i % len(colors)]
        pts = result.owd_cdf.get(f["name"]) or []
        if pts:
            ax.step([p[0] for p in pts], [p[1] for p in pts], where="post", color=color, label=f"{f['name']}")
            drew = True
        o = f.get("owd_ms") or {}
        if o.get("count"):
            ax.plot([o["p50"], o["p95"]], [0.50, 0.95], "o", color=color, markersize=6,
                    label=f"{f['name']}: p50 {o['p50']:.1f} ms, p95 {o['p95']:.1f} ms ({o['count']} packets)")
            drew = True
    if drew:
        ax.legend(loc="lower right", fontsize="small")
        ax.set_ylim(0, 1.02)
    else:
        _empty(ax, "one-way delay")
    ax.set_xlabel("one-way delay (ms)")
    ax.set_ylabel("cumulative fraction")
    ax.set_title(f"One-way delay distribution: {tag}")
    ax.grid(alpha=0.3)
    save(fig, "owd.png")
    return written
