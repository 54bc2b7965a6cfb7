"""A synthetic `RunOutput` (same JSON shape as tcplab_sim::output::RunOutput) so the result,
parquet and plot paths can be tested before the simulation loop exists."""

from __future__ import annotations

import math
from typing import Any


def fake_run_output(scenario: Any, *, ok: bool = True) -> dict[str, Any]:
    canon = scenario.canonical
    dur_s = canon["duration"] / 1e9
    interval = canon["record"]["interval"]
    flows = canon["flows"]
    links = scenario.links
    entities = [["flow", f["name"]] for f in flows] + [["link", n] for n in links]
    metrics = ["goodput_mbps", "cwnd_bytes", "rwnd_bytes", "owd_ms", "queue_packets"]
    ts: dict[str, list[Any]] = {"time_ns": [], "entity": [], "metric": [], "value": []}
    n = int(canon["duration"] // interval)

    def add(t: int, e: int, m: int, v: float) -> None:
        ts["time_ns"].append(t)
        ts["entity"].append(e)
        ts["metric"].append(m)
        ts["value"].append(v)

    for k in range(1, n + 1):
        t = k * interval
        x = t / 1e9
        for i, _ in enumerate(flows):
            saw = (x * (1 + i * 0.3)) % 4.0
            add(t, i, 0, 8.0 / len(flows) * (1 - 0.2 * math.exp(-x)))
            add(t, i, 1, 30_000 + 60_000 * saw / 4.0)
            add(t, i, 2, 4 << 20 if i % 2 == 0 else 200_000 * (1 + math.sin(x)))
            add(t, i, 3, 20 + 30 * saw / 4.0)
        for j, _ in enumerate(links):
            add(t, len(flows) + j, 4, 100 * ((x % 4.0) / 4.0) if j == 0 else 0.0)
    pct = {"mean": 35.0, "p50": 33.0, "p95": 48.0, "count": 1000}
    summary = {
        "schema": 1,
        "scenario": canon["name"],
        "seed": canon["seed"],
        "scenario_sha256": "",
        "duration_s": dur_s,
        "events": 123456,
        "wall_s": 0.0,
        "invariants": {"ok": ok, "violations": [] if ok else ["flow bulk: receiver got 10 bytes it was never sent"]},
        "flows": [
            {
                "id": i,
                "name": f["name"],
                "direction": f"{f['src']}->{f['dst']}",
                "cc": f["tcp"]["cc"],
                "fc": f["tcp"]["fc"],
                "goodput_mbps": 8.0 / len(flows),
                "bytes_delivered": int(1e6 * dur_s / len(flows)),
                "bytes_written": int(1e6 * dur_s / len(flows)),
                "data_packets_delivered": 1000,
                "retransmits": 3,
                "timeouts": 0,
                "fast_retransmits": 3,
                "zero_window_events": 0,
                "zero_window_probes": 0,
                "rcv_buffer_drops": 0,
                "proactive_acks": 0,
                "owd_ms": pct,
                "rtt_ms": {"mean": 45.0, "p50": 44.0, "p95": 60.0, "count": 500},
                "start_s": f["start"] / 1e9,
                "completion_s": None,
            }
            for i, f in enumerate(flows)
        ],
        "links": [
            {
                "name": n,
                "from": "a",
                "to": "b",
                "utilization": 0.8 if j == 0 else 0.01,
                "capacity_mbps": 10.0,
                "tx_packets": 1000 if j == 0 else 10,
                "tx_bytes": 1_500_000,
                "drops": {"queue": 3, "loss": 0},
                "max_queue_packets": 100,
                "max_queue_bytes": 150_000,
            }
            for j, n in enumerate(links)
        ],
        "jain_fairness": 1.0,
    }
    return {"summary": summary, "timeseries": {"entities": entities, "metrics": metrics, **ts}}
