"""`tcplab reproduce darca --quick --json`: the row contract of the DARCA reproduction (Zeng and
Yao, Figures 5-8), rows that follow from the element's own log (the proportional policy, the
learned remote targets), and verdict rows that follow from the measured rows."""

import json
from pathlib import Path

from conftest import ROW_FIELDS, ROW_OPTIONAL, cli

FIELDS = ROW_FIELDS


def _rows(tmp_path: Path, *args: str) -> list[dict]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    r = cli("reproduce", "darca", *args, "--json", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert "Drop Aware" in d["paper"]
    assert (tmp_path / "out" / "darca-fig5-8.png").stat().st_size > 10_000
    if "--quick" in args:  # every quick row is covered by the recorded full-run check
        assert d["quick_check"]["unchecked"] == [], d["quick_check"]["unchecked"]
    # Whether a row was covered by the recorded quick check is quick mode's alone.
    return [{k: v for k, v in row.items() if k not in ("unchecked", "indicative")} for row in d["rows"]]


def test_quick_reproduction_rows_and_verdicts(tmp_path: Path):
    rows = _rows(tmp_path, "--quick")
    for row in rows:
        assert FIELDS <= set(row) <= FIELDS | ROW_OPTIONAL, row
        # Only the time of an event that did not happen is empty (the report says why).
        assert isinstance(row["ours"], (int, float)) or row["metric"].endswith("_s"), row
        # Every row that disagrees with the paper carries a note of its own (issue 17); it
        # counts as explained only when it reads a measured row (issue 35).
        if row.get("consistent") is False:
            assert row.get("note"), row
        if row["paper"] is not None and row["ours"] is None:
            assert row.get("note"), row
    by = {(x["experiment"], x["case"], x["variant"], x["metric"]): x["ours"] for x in rows}

    # The row contract: every target row has its throughput row, and vice versa.
    keys = {(e, c, v) for (e, c, v, m) in by if m in ("target_kbps", "throughput_kbps")}
    for e, c, v in keys:
        assert (e, c, v, "target_kbps") in by and (e, c, v, "throughput_kbps") in by, (e, c, v)

    # Fig. 5: TCP_4 learned down to what its 250 kbit/s link carries (226 kbit/s of payload);
    # the proportional policy gives the other three the rest of 2250 in the ratio 250:500:750.
    t = {u: by[("remote-bottleneck", f"stable/{u}", "darca", "target_kbps")] for u in ("tcp1", "tcp2", "tcp3", "tcp4")}
    assert 200 < t["tcp4"] < 300
    assert abs(sum(t.values()) - 2250) < 1
    assert abs(t["tcp2"] / t["tcp1"] - 2) < 1e-3 and abs(t["tcp3"] / t["tcp1"] - 3) < 1e-3
    assert by[("remote-bottleneck", "control", "darca", "learning_delay_s")] > 0
    for u in ("tcp1", "tcp2", "tcp3"):
        thr = by[("remote-bottleneck", f"stable/{u}", "darca", "throughput_kbps")]
        # The verdict row is the rate over the target (the criterion: within 10%).
        assert abs(by[("verdicts", f"remote-bottleneck/{u}", "darca", "throughput_to_target")] - thr / t[u]) < 2e-3
        # The explanation's measurement: a locally bottlenecked connection's mean window, a
        # handful of segments at these rates.
        assert 3 < by[("remote-bottleneck", f"stable/{u}", "darca", "cwnd_mean_pkts")] < 60

    # Fig. 6: present connections share the administrative total (750, 1000, 750 kbit/s).
    for interval, conns, total in (("1-100s", ("tcp1", "tcp2"), 750), ("100-200s", ("tcp1", "tcp2", "tcp3"), 1000),
                                   ("200-300s", ("tcp2", "tcp3"), 750)):
        s = sum(by[("join-leave", f"{interval}/{u}", "darca", "target_kbps")] for u in conns)
        assert abs(s - total) < 1, (interval, s)
    # TCP_1 and TCP_3 have equal administrative targets: equal shares after the join.
    assert by[("join-leave", "100-200s/tcp1", "darca", "target_kbps")] == by[("join-leave", "100-200s/tcp3", "darca", "target_kbps")]

    # Fig. 7: the stopped TCP_2's share goes to TCP_1 (750 kbit/s in [300 s, restart)).
    k = next(c for (e, c, v, m) in by if e == "network-events" and c.startswith("300s-to-restart") and c.endswith("/tcp1"))
    assert by[("network-events", k, "darca", "target_kbps")] == 750
    assert by[("network-events", k.replace("tcp1", "tcp2"), "darca", "throughput_kbps")] == 0

    # Fig. 8: class 1 learned remote below its 1.5 Mbit/s bottleneck; its excess goes to classes
    # 2 and 3 in the ratio of their targets (2:1); the total stays 6 Mbit/s.
    c = {u: by[("per-class", f"stable/{u}", "per-class", "target_kbps")] for u in ("class1", "class2", "class3")}
    assert c["class1"] < 1500 and abs(sum(c.values()) - 6000) < 1 and abs(c["class2"] / c["class3"] - 2) < 1e-3
    cv = {(v, u): by[("per-class", f"oscillation/{u}", v, "per_flow_goodput_cv")]
          for v in ("per-class", "per-connection") for u in ("class1", "class2", "class3")}
    # "per class control also increases the oscillation" (4.3): the worst class's ratio.
    worst = min(cv[("per-class", u)] / cv[("per-connection", u)] for u in ("class1", "class2", "class3"))
    row = by[("per-class", "oscillation/all-classes", "per-class-vs-per-connection", "min_cv_ratio")]
    assert abs(row / worst - 1) < 0.02, (row, worst)


def test_quick_and_full_are_the_same_runs(tmp_path: Path):
    # The same rows and verdicts (`_rows` leaves out how a quick row stands to the recorded
    # full run, which only quick mode says).
    assert _rows(tmp_path / "q", "--quick") == _rows(tmp_path / "f")
