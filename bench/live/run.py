#!/usr/bin/env python3
"""The live emulator's capacity on this machine (issue 36, `bench/live/`): the highest packet
rate it carries through one link with p99 release lateness under 1 ms, and its CPU per packet.

For each rate R in --rates (Mbit/s), one `tcplab emulate` run of a point-to-point scenario
whose uplink is R with a 5 ms delay and a 1000-packet drop-tail queue (the downlink, 1 Gbit/s,
carries nothing but iperf3's control connection). iperf3 (Debian's, `make live-tools`)
offers UDP at --offered (default 0.98) of R in IP bytes, in 1500-byte IP datagrams, for
--seconds from the client to a server in the other namespace; the run ends when iperf3 does.

Per run, from the emulator's own summary (`live.accuracy`, `live.emulator`, `live.cost`) and
iperf3's receiver report:
- delivered Mbit/s: the uplink's transmitted IP bytes over iperf3's interval, and iperf3's
  receiver-side rate and loss;
- lateness of releases (mean, p99, max) against the ideal schedule;
- packets lost before the emulator read them (the TUN's tx_dropped), queue drops;
- the emulator loop's CPU time (its thread's user + system) per packet read.

A rate is *carried* when p99 lateness is under 1 ms and nothing was lost before the emulator
read it or refused when it wrote it (`carried`). Queue drops (the modelled link's: iperf3's
catch-up bursts after it was descheduled) and iperf3's receiver loss (with every packet
released, the receiving host's: its socket buffer, its share of the two cores) are reported
beside it. The capacity is the highest rate up to which
every run of every rate was carried. `--report FILE` rebuilds the table from a results file. Each rate runs --repeat times (medians reported),
one process at a time; `--wait-idle` first waits until the machine was idle for 2 s
(bench/scale's `wait_idle`).

Usage: .venv/bin/python bench/live/run.py [--rates 100,200,...] [--seconds 5] [--repeat 3]
           [--out bench/live/results.json] [--md bench/live/results.md]
Needs root, /dev/net/tun and iperf3 (as the live tests do)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TCPLAB = [sys.executable, "-m", "tcplab"]

SCENARIO = """
name = "live-capacity-{mbps}"
duration = "{duration}s"
seed = 1
[topology]
kind = "point_to_point"
[topology.downlink]
rate = "1Gbit/s"
delay = "5ms"
queue = "1000pkts"
[topology.uplink]
rate = "{mbps}Mbit/s"
delay = "5ms"
queue = "1000pkts"
"""

IP_BYTES = 1500
UDP_PAYLOAD = IP_BYTES - 28


def _scale_bench():
    """bench/scale/run.py, for its idle wait (one definition of "the machine is idle")."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_scale_run", ROOT / "bench" / "scale" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def wait_idle(limit_s: float = 120) -> float:
    """Waits until the machine was idle for 2 s (bench/scale's rule), at most `limit_s`;
    returns the seconds waited."""
    return _scale_bench().wait_idle(limit_s, lambda m: print(m, file=sys.stderr))


def one_run(mbps: float, seconds: float, offered: float, tmp: Path) -> dict:
    sc = tmp / f"cap-{mbps:g}.toml"
    sc.write_text(SCENARIO.format(mbps=f"{mbps:g}", duration=f"{seconds + 20:g}"))
    out = tmp / f"out-{mbps:g}"
    shutil.rmtree(out, ignore_errors=True)
    log = tmp / f"iperf-{mbps:g}.json"
    log.unlink(missing_ok=True)
    # iperf3's -b counts UDP payload bits: offered IP rate * payload / IP bytes.
    b = mbps * 1e6 * offered * UDP_PAYLOAD / IP_BYTES
    cmd = ["iperf3", "-c", "$TCPLAB_SERVER", "-u", "-b", f"{b:.0f}", "-l", str(UDP_PAYLOAD), "-t", f"{seconds:g}",
           "-w", "8M", "--get-server-output", "-J", "--logfile", str(log)]
    p = subprocess.run([*TCPLAB, "emulate", str(sc), "--out", str(out), "--no-plots", "--json", "--server", "iperf3 -s -1",
                        "--", *cmd], capture_output=True, text=True, cwd=ROOT, timeout=seconds + 120)
    if p.returncode not in (0,):
        raise SystemExit(f"error: tcplab emulate at {mbps} Mbit/s exited {p.returncode}: {p.stderr.strip()[-500:]}")
    s = json.loads((out / "summary.json").read_text())
    ip = json.loads(log.read_text())
    up = next(l for l in s["links"] if l["name"] == "uplink")
    lv = s["live"]
    acc = lv["accuracy"]
    srv = ip.get("server_output_json", {}).get("end", {}).get("sum", {})
    cli = ip["end"]["sum"]
    interval = cli.get("seconds") or seconds
    return {
        "rate_mbps": mbps,
        "offered_mbps": mbps * offered,
        "link_tx_mbps": up["tx_bytes"] * 8 / interval / 1e6,
        "iperf_received_mbps": (srv.get("bits_per_second") or cli.get("bits_per_second", 0)) * IP_BYTES / UDP_PAYLOAD / 1e6,
        "iperf_lost_percent": srv.get("lost_percent", cli.get("lost_percent")),
        "packets_read": lv["emulator"]["read_packets"],
        "packets_per_s": up["tx_packets"] / interval,
        "queue_drops": up["drops"]["queue"],
        "lost_before_read": acc["lost_before_read"],
        "released_packets": lv["emulator"]["released_packets"],
        "write_errors": lv["emulator"]["write_errors"],
        "lateness_mean_us": acc["lateness_us"]["mean_us"],
        "lateness_p99_us": acc["lateness_us"]["p99_us"],
        "lateness_max_us": acc["lateness_us"]["max_us"],
        "loop_cpu_s": lv["cost"]["loop_cpu_s"],
        "loop_cpu_share": lv["cost"]["loop_cpu_s"] / s["duration_s"] if s["duration_s"] else 0.0,
        "loop_cpu_ns_per_packet": lv["cost"]["loop_cpu_ns_per_packet"],
        "wakeups": lv["emulator"]["wakeups"],
        "realtime_priority": lv.get("realtime_priority"),
        "invariants_ok": s["invariants"]["ok"],
    }


def carried(r: dict) -> bool:
    """The emulator carried the rate: releases on time at the 99th percentile, and nothing
    lost before it read it or refused when it wrote it. Queue drops are the modelled link's
    (iperf3 catching up after it was descheduled sends bursts the 1000-packet queue cannot
    hold at 98% load) and iperf3's receiver loss the receiving host's (its socket buffer,
    its share of the two cores); both are reported beside it."""
    return r["lateness_p99_us"] < 1000 and r["lost_before_read"] == 0 and r["write_errors"] == 0


def report(doc: dict, md: str) -> int:
    rows = doc["rows"]
    for r in rows:
        r["carried_runs"] = sum(carried(x) for x in r["runs"])
    cap = None
    for r in sorted(rows, key=lambda r: r["rate_mbps"]):
        if r["carried_runs"] != len(r["runs"]):
            break
        cap = r["rate_mbps"]
    doc["capacity_mbps"] = cap
    lines = [f"Live emulator capacity ({doc['date']}, kernel {doc['kernel']}, {doc['cpus']} cores; {doc['repeat']} runs per "
             f"rate, medians; offered {doc['offered']:.2f} of the link rate in 1500-byte UDP datagrams for {doc['seconds']:g} s)", "",
             "| link rate | delivered (link) | packets/s | lateness mean / p99 / max | lost before read | "
             "loop CPU per packet | loop CPU share | carried (runs) | queue drops | iperf3 receiver loss |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        m = r["median"]
        lines.append(f"| {r['rate_mbps']:g} Mbit/s | {m['link_tx_mbps']:.1f} Mbit/s | {m['packets_per_s']:,.0f} | "
                     f"{m['lateness_mean_us']:.0f} / {m['lateness_p99_us']:.0f} / {m['lateness_max_us']:.0f} us | "
                     f"{m['lost_before_read']:.0f} | {m['loop_cpu_ns_per_packet']:,.0f} ns | {m['loop_cpu_share']:.2f} | "
                     f"{r['carried_runs']} of {len(r['runs'])} | {m['queue_drops']:.0f} | {m.get('iperf_lost_percent', float('nan')):.3f}% |")
    lines += ["", "Capacity (the highest rate up to which every run of every rate was carried: p99 lateness < 1 ms, "
              "nothing lost before read or refused at write): "
              + (f"{cap:g} Mbit/s" if cap is not None else "none of the rates")]
    Path(md).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rates", default="100,200,400,500,600,700,800,1000", help="link rates in Mbit/s, comma-separated")
    ap.add_argument("--seconds", type=float, default=5.0, help="iperf3's sending time per run (default 5)")
    ap.add_argument("--offered", type=float, default=0.98, help="offered load as a fraction of the link rate (default 0.98)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per rate; medians are reported (default 3)")
    ap.add_argument("--wait-idle", action="store_true", help="wait for idle cores before each rate")
    ap.add_argument("--out", default=str(ROOT / "bench/live/results.json"))
    ap.add_argument("--md", default=str(ROOT / "bench/live/results.md"))
    ap.add_argument("--report", metavar="RESULTS_JSON", help="only rebuild the table from a results file")
    a = ap.parse_args()
    if a.report:
        return report(json.loads(Path(a.report).read_text()), a.md)
    if shutil.which("iperf3") is None:
        print("error: iperf3 is not installed (make live-tools)", file=sys.stderr)
        return 2
    rates = [float(x) for x in a.rates.split(",") if x.strip()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="tcplab-bench-live-") as t:
        tmp = Path(t)
        for mbps in rates:
            idle = wait_idle() if a.wait_idle else None
            runs = []
            for k in range(a.repeat):
                r = one_run(mbps, a.seconds, a.offered, tmp)
                runs.append(r)
                print(f"{mbps:g} Mbit/s run {k + 1}/{a.repeat}: link {r['link_tx_mbps']:.1f} Mbit/s, iperf3 loss "
                      f"{r['iperf_lost_percent']}%, lateness p99 {r['lateness_p99_us']:.0f} us, "
                      f"{r['loop_cpu_ns_per_packet']:.0f} ns CPU/packet", file=sys.stderr)
            med = {k: statistics.median(x[k] for x in runs) for k in runs[0] if isinstance(runs[0][k], (int, float))
                   and not isinstance(runs[0][k], bool) and all(x[k] is not None for x in runs)}
            rows.append({"rate_mbps": mbps, "median": med, "runs": runs, "idle_wait_s": idle})
    doc = {"machine": os.uname().nodename, "kernel": os.uname().release, "cpus": os.cpu_count(),
           "date": time.strftime("%Y-%m-%d"), "seconds": a.seconds, "offered": a.offered, "repeat": a.repeat, "rows": rows}
    rc = report(doc, a.md)
    Path(a.out).write_text(json.dumps(doc, indent=2) + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
