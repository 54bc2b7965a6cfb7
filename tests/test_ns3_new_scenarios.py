"""Issue 16's added ns-3 scenarios (lossy, asym, mixed-rtt) against ns-3's stored runs.

bench/ns3/reference/{lossy,asym,mixed-rtt}.jsonl hold 10 runs of ns-3 3.44 each (written by
`compare.py --store-reference`, bench/ns3/tcp-reference.cc); this test runs tcplab's 10 runs
of each (bench/ns3-compare/<name>.toml under profile = "ns3") through compare.py --no-ns3 and
checks the aims of issue 16 on the means over the runs: aggregate goodput within 5% and Jain's
index within 0.05. It also pins what the comparison found beyond the aims (bench/ns3/README.md,
"Added scenarios"):

* mixed-rtt's per-flow shares are phase effects: a single run can miss the Jain aim (run 1,
  the scenario's own start times, did by -0.098 with RFC 6675's pipe; -0.039 with ns-3's),
  and ns-3's own index moves by more between runs whose start times differ by a few ms; the
  mean over 10 runs meets it.
* asym's upload gets 3-10% less in tcplab. With RFC 6675's pipe it had one more
  retransmission timeout per run than ns-3: ns-3's BytesInFlight keeps counting retransmitted
  segments after they are SACKed, so its upload stops sending new data during recovery. The
  `ns3` profile now models that (`pipe_rule = "ns3"`): the timeouts agree (one per run), the
  upload's goodput does not yet (-6.8%, not explained).
"""

import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO as ROOT

ADDED = ["lossy", "asym", "mixed-rtt"]
# The same with ns-3's default recovery, PRR (ns-3 3.44 TcpPrrRecovery), against prr = "ns3".
PRR = [f"{n}-prr" for n in ADDED]


def test_added_ns3_scenarios(tmp_path: Path):
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "ns3-compare" / "compare.py"), "--no-ns3", *ADDED, *PRR, "--out", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {row["scenario"]: row for row in json.loads((tmp_path / "ns3-compare-added.json").read_text())}
    assert set(rows) == set(ADDED + PRR)

    for name, row in rows.items():
        # 10 runs on each side, the same seeds / start times.
        assert row["ns3"]["seeds"] == row["tcplab"]["seeds"] == list(range(1, 11)), name
        assert row["tcplab"]["invariants_ok"], name
        # The aims of issue 16, on the means over the runs.
        assert abs(row["goodput_diff"]) <= 0.05, (name, row["goodput_diff"])
        assert abs(row["jain_diff"]) <= 0.05, (name, row["jain_diff"])

    # lossy: the loss model drops ~1% of the data packets in both simulators, the flows are
    # loss-limited (well under the 20 Mbit/s link), and both recover mostly by fast recovery.
    lossy = rows["lossy"]
    for side in ("ns3", "tcplab"):
        assert 150 <= lossy[side]["error_drops"] <= 250, (side, lossy[side]["error_drops"])
        assert 3.0 <= lossy[side]["goodput_mbps"] <= 4.5, side
        assert lossy[side]["recoveries"] > 20 * lossy[side]["timeouts"], side
    assert abs(lossy["goodput_diff"]) <= 0.03

    # asym: the download matches within 1%; the upload misses by 3-10%, with one timeout per run
    # in both (two in tcplab with RFC 6675's pipe: the retransmission dropped at the full uplink).
    asym = rows["asym"]
    down, up = asym["per_flow_goodput_diff"]
    assert abs(down) <= 0.01, down
    assert -0.10 <= up <= -0.03, up
    assert asym["ns3"]["timeouts"] == 1.0
    assert asym["tcplab"]["timeouts"] == 1.0

    # mixed-rtt: the aggregate is the link's (within 0.1%); run 1 alone is 0.04 off, and ns-3's
    # own index spreads across the runs by more than twice that.
    mixed = rows["mixed-rtt"]
    assert abs(mixed["goodput_diff"]) <= 0.001
    run1 = mixed["tcplab"]["per_seed_jain"][0] - mixed["ns3"]["per_seed_jain"][0]
    assert -0.06 < run1 < -0.02, run1
    ns3_jains = mixed["ns3"]["per_seed_jain"]
    assert max(ns3_jains) - min(ns3_jains) > 0.1
    # The 200 ms flow gets more in ns-3 on average, the 20 ms flow more in tcplab.
    assert mixed["per_flow_goodput_diff"][0] > 0 and mixed["per_flow_goodput_diff"][-1] < 0

    # With PRR on both sides (RFC 6937 as ns-3 3.44 runs it: RecoverFS = pipe, an SMSS per
    # duplicate ACK on top of the SACKed bytes, the 32-bit product) the aims hold too, and
    # PRR moves both simulators the same way on the lossy link: +4.3% in ns-3, +5.1% here.
    for name in ("lossy", "asym", "mixed-rtt"):
        assert abs(rows[f"{name}-prr"]["goodput_diff"]) <= 0.015, (name, rows[f"{name}-prr"]["goodput_diff"])
    gain = lambda side: rows["lossy-prr"][side]["goodput_mbps"] / rows["lossy"][side]["goodput_mbps"] - 1
    assert 0.03 <= gain("ns3") <= 0.06 and 0.03 <= gain("tcplab") <= 0.06, (gain("ns3"), gain("tcplab"))
    # asym's upload is within 5% under PRR (-3.8%), where classic recovery misses by 6.8% (above).
    assert abs(rows["asym-prr"]["per_flow_goodput_diff"][1]) <= 0.05
    # mixed-rtt: ns-3 3.44's product prr_delivered x ssthresh wraps at 2^32, so its large
    # flows send almost nothing in recovery until pipe reaches ssthresh; modelled, the Jain
    # index agrees within 0.01 (without the wrap: +0.047, and 533 retransmitted segments per
    # run against ns-3's 310).
    assert abs(rows["mixed-rtt-prr"]["jain_diff"]) <= 0.01, rows["mixed-rtt-prr"]["jain_diff"]
