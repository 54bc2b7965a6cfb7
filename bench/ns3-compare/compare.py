#!/usr/bin/env python3
"""Cross-validation and speed benchmark against ns-3 3.44 (issue 2).

Runs the three reference scenarios (p2p-1, dumbbell-10, dumbbell-100) in ns-3, through our
program bench/ns3/tcp-reference.cc, and in tcplab (the scenario files beside this script),
then prints:

* aggregate goodput (sink bytes * 8 / simulated seconds, as ns-3's script computes it) and
  Jain's index across flows, ours beside ns-3's, with the acceptance bounds of issue 2
  (goodput within 5%, Jain within 0.05);
* speed: data packets delivered to receivers per wall-clock second, median of --runs runs
  of each simulator, measured in this same invocation, one process at a time.

The ns-3 program is compiled against the ns-3 PyPI wheel by bench/ns3/build.sh on first use
(needs PyPI once). tcplab runs through the release `tcplab-sim` binary on the canonical
scenario that `tcplab` derives from each TOML file, with time series off (ns-3 records none
either).

    python bench/ns3-compare/compare.py                 # all three, 3 runs each
    python bench/ns3-compare/compare.py --runs 5 p2p-1  # a subset
    python bench/ns3-compare/compare.py --no-ns3        # tcplab only (uses bench/ns3/reference/*.jsonl)

Writes bench/results/ns3-compare.json and .md. Exit status 1 if a bound is violated.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NS3_DIR = ROOT / "bench" / "ns3"
NS3_EXE = "tcp-reference"
SCENARIOS = ["p2p-1", "dumbbell-10", "dumbbell-100"]
GOODPUT_TOL = 0.05
JAIN_TOL = 0.05


def jain(x: list[float]) -> float:
    s, s2 = sum(x), sum(v * v for v in x)
    return 1.0 if s2 == 0 else s * s / (len(x) * s2)


def run_ns3(name: str, runs: int, build_dir: Path) -> dict:
    exe = build_dir / NS3_EXE
    src = NS3_DIR / f"{NS3_EXE}.cc"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        env = dict(os.environ, BUILD_DIR=str(build_dir))
        print(f"[ns-3] building {exe} (first use or source changed)", file=sys.stderr)
        subprocess.run(["bash", str(NS3_DIR / "build.sh")], check=True, env=env)
    results = []
    for i in range(runs):
        out = subprocess.run([str(exe), f"--scenario={name}"], check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"[ns-3 {name} #{i + 1}] wall {r['wall_run_s']:.3f} s", file=sys.stderr)
        results.append(r)
    return summarise_ns3(results)


def summarise_ns3(results: list[dict]) -> dict:
    r0 = results[0]
    wall = statistics.median(r["wall_run_s"] for r in results)
    return {
        "goodput_mbps": r0["goodput_mbps"],
        "jain": jain(r0["per_flow_goodput_mbps"]),
        "rx_data_pkts": r0["rx_data_pkts"],
        "wall_s": wall,
        "pkts_per_wall_s": r0["rx_data_pkts"] / wall,
        "runs": len(results),
        "bottleneck_drops": r0["bottleneck_drops"],
    }


def canonical(name: str, out_dir: Path) -> Path:
    sys.path.insert(0, str(ROOT / "python"))
    import tcplab  # noqa: E402  (the package built by `make`)

    scn = tcplab.load(HERE / f"{name}.toml").with_overrides({"record.timeseries": False})
    path = out_dir / f"{name}.canonical.json"
    path.write_text(scn.to_canonical_json())
    return path


def run_tcplab(name: str, runs: int, out_dir: Path, exe: Path) -> dict:
    scn = canonical(name, out_dir)
    proc = subprocess.run([str(exe), str(scn), "--repeat", str(runs), "--no-timeseries"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"tcplab-sim failed on {name}:\n{proc.stderr}")
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    for i, r in enumerate(results):
        print(f"[tcplab {name} #{i + 1}] wall {r['wall_s']:.3f} s", file=sys.stderr)
    s = results[0]
    dur = s["duration_s"]
    per_flow = [f["bytes_delivered"] * 8 / dur / 1e6 for f in s["flows"]]
    pkts = sum(f["data_packets_delivered"] for f in s["flows"])
    wall = statistics.median(r["wall_s"] for r in results)
    drops = sum(l["drops"]["queue"] for l in s["links"] if l["name"] in ("bottleneck", "bottleneck_rev", "downlink"))
    for r in results[1:]:
        if [f["bytes_delivered"] for f in r["flows"]] != [f["bytes_delivered"] for f in s["flows"]]:
            raise SystemExit(f"tcplab is not deterministic on {name}")
    return {
        "goodput_mbps": sum(per_flow),
        "jain": jain(per_flow),
        "rx_data_pkts": pkts,
        "wall_s": wall,
        "pkts_per_wall_s": pkts / wall,
        "runs": len(results),
        "bottleneck_drops": drops,
        "events": s["events"],
        "invariants_ok": s["invariants"]["ok"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*", metavar="SCENARIO", help=f"any of {', '.join(SCENARIOS)} (default: all)")
    ap.add_argument("--runs", type=int, default=3, help="runs per simulator and scenario (median wall time)")
    ap.add_argument("--no-ns3", action="store_true", help="use the stored ns-3 results in bench/ns3/reference instead of running ns-3")
    ap.add_argument("--ns3-build", type=Path, default=NS3_DIR / "build", help="where bench/ns3/build.sh puts the ns-3 binary")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = ap.parse_args()
    for s in args.scenarios:
        if s not in SCENARIOS:
            ap.error(f"unknown scenario {s!r}; choose from {', '.join(SCENARIOS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "tcplab-sim"], check=True, cwd=ROOT)
    exe = ROOT / "target" / "release" / "tcplab-sim"

    rows, ok = [], True
    for name in args.scenarios or SCENARIOS:
        if args.no_ns3:
            ref = [json.loads(l) for l in (NS3_DIR / "reference" / f"{name}.jsonl").read_text().splitlines() if l.strip()]
            ns3 = summarise_ns3(ref)
            ns3["stored"] = True
        else:
            ns3 = run_ns3(name, args.runs, args.ns3_build)
        ours = run_tcplab(name, args.runs, args.out, exe)
        gdiff = ours["goodput_mbps"] / ns3["goodput_mbps"] - 1
        jdiff = ours["jain"] - ns3["jain"]
        good = abs(gdiff) <= GOODPUT_TOL and abs(jdiff) <= JAIN_TOL and ours["invariants_ok"]
        ok &= good
        rows.append({"scenario": name, "ns3": ns3, "tcplab": ours, "goodput_diff": gdiff,
                     "jain_diff": jdiff, "within_bounds": good})

    hdr = ("scenario | goodput ns-3 | goodput tcplab | diff | Jain ns-3 | Jain tcplab | diff | "
           "bn drops ns-3/tcplab | pkts/wall-s ns-3 | pkts/wall-s tcplab | speed-up | ok")
    lines = [hdr, "|".join("---" for _ in hdr.split("|"))]
    for r in rows:
        n, t = r["ns3"], r["tcplab"]
        lines.append(
            f"{r['scenario']} | {n['goodput_mbps']:.2f} Mbit/s | {t['goodput_mbps']:.2f} Mbit/s | "
            f"{r['goodput_diff'] * 100:+.1f}% | {n['jain']:.3f} | {t['jain']:.3f} | {r['jain_diff']:+.3f} | "
            f"{n['bottleneck_drops']}/{t['bottleneck_drops']} | {n['pkts_per_wall_s']:,.0f}"
            f"{' (stored)' if n.get('stored') else ''} | {t['pkts_per_wall_s']:,.0f} | "
            f"{t['pkts_per_wall_s'] / n['pkts_per_wall_s']:.1f}x | {'yes' if r['within_bounds'] else 'NO'}"
        )
    table = "\n".join(lines)
    print(table)
    note = (f"\nBounds (issue 2): aggregate goodput within {GOODPUT_TOL:.0%}, Jain within {JAIN_TOL}. "
            f"Wall times are medians of {args.runs} sequential runs; pkts = data segments arriving "
            "at receivers incl. retransmissions.\n")
    (args.out / "ns3-compare.md").write_text("# tcplab vs ns-3 3.44\n\n" + table + "\n" + note)
    (args.out / "ns3-compare.json").write_text(json.dumps(rows, indent=2))
    print(note)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
