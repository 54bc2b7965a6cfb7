#!/usr/bin/env bash
# run.sh: runs tcplab's ns-3 reference scenarios (build/tcp-reference) one process at a time,
# keeps the JSON lines and prints a summary table. Builds first if the binary is missing.
#
#   ./run.sh                               # p2p-1, dumbbell-10, dumbbell-100, 3 runs each
#   ./run.sh p2p-1 dumbbell-10             # a subset
#   RUNS=1 ./run.sh                        # fewer (or more) runs per scenario
#   ARGS="--recovery=prr --simTime=10" ./run.sh   # extra flags for every run
#
# Results: $RES_DIR/<scenario>.jsonl (default results/ beside this script; overwritten).
# Only the wall times vary between runs; the table flags any other field that does.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exe="${BUILD_DIR:-$here/build}/tcp-reference"
res="${RES_DIR:-$here/results}"
runs="${RUNS:-3}"
read -r -a extra <<< "${ARGS:-}"
if [ "$#" -gt 0 ]; then scenarios=("$@"); else scenarios=(p2p-1 dumbbell-10 dumbbell-100); fi

[ -x "$exe" ] || "$here/build.sh"
mkdir -p "$res"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
for s in "${scenarios[@]}"; do
    : > "$res/$s.jsonl"
    for ((i = 1; i <= runs; i++)); do
        line="$("$exe" --scenario="$s" "${extra[@]}")"
        printf '%s\n' "$line" >> "$res/$s.jsonl"
        printf '[ns3 run %s %d/%d] %s\n' "$s" "$i" "$runs" "${line:0:150}" >&2
    done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$res" "$load_before" "$load_after" "${scenarios[@]}" <<'EOF'
import json
import statistics
import sys

res, load_before, load_after, scenarios = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
wall_keys = {"wall_run_s", "wall_total_s"}
cols = ["scenario", "flows", "sim s", "wall s median (min..max)", "rx data pkts",
        "pkts/wall-s", "events/wall-s", "goodput Mbit/s", "bn drops"]
rows = []
for s in scenarios:
    runs = [json.loads(x) for x in open(f"{res}/{s}.jsonl") if x.strip()]
    first = runs[0]
    same = all({k: v for k, v in r.items() if k not in wall_keys}
               == {k: v for k, v in first.items() if k not in wall_keys} for r in runs)
    walls = sorted(r["wall_run_s"] for r in runs)
    med = statistics.median(walls)
    rows.append([s, first["flows"], f'{first["sim_seconds"]:g}',
                 f"{med:.3f} ({walls[0]:.3f}..{walls[-1]:.3f})", first["rx_data_pkts"],
                 f'{first["rx_data_pkts"] / med:,.0f}', f'{first["events"] / med:,.0f}',
                 f'{first["goodput_mbps"]:.4f}' + ("" if same else " NOT DETERMINISTIC"),
                 first["bottleneck_drops"]])
rows = [[str(c) for c in r] for r in rows]
width = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
print(" | ".join(c.ljust(w) for c, w in zip(cols, width)))
print("-+-".join("-" * w for w in width))
for r in rows:
    print(" | ".join(c.ljust(w) for c, w in zip(r, width)))
print(f"wall = Simulator::Run() only; pkts = data segments reaching receivers incl. "
      f"retransmissions; load average before {load_before}, after {load_after}")
EOF
