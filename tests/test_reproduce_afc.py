"""`tcplab reproduce afc --quick --json`: the row structure and the qualitative results of the
AFC paper (Sanadhya & Sivakumar 2014) that the quick grid can show."""

import json
import time
from pathlib import Path

from conftest import cli

FIELDS = {"experiment", "case", "variant", "metric", "unit", "ours", "paper"}


def test_quick_reproduction_rows_and_qualitative_results(tmp_path: Path):
    t0 = time.monotonic()
    r = cli("reproduce", "afc", "--quick", "--json", "--out", str(tmp_path / "out"), cwd=tmp_path)
    elapsed = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    assert elapsed < 60, f"--quick took {elapsed:.0f} s"
    d = json.loads(r.stdout)
    assert "Sanadhya" in d["paper"]
    rows = d["rows"]
    for row in rows:
        assert FIELDS <= set(row) <= FIELDS | {"note"}
        assert isinstance(row["ours"], (int, float))
        # The report explains every difference above 20% (the framework's rule).
        if row["paper"]:
            if abs(row["ours"] / row["paper"] - 1) > 0.2:
                assert row.get("note"), row
    t3 = {(x["case"], x["variant"]): x for x in rows if x["experiment"] == "table3" and x["metric"] == "goodput_mbps"}
    assert set(t3) == {(f"scenario-{s}", v) for s in range(1, 6) for v in ("ideal", "default", "afc")}
    assert [t3[(f"scenario-{s}", "ideal")]["paper"] for s in range(1, 6)] == [2.0, 4.0, 3.3, 4.0, 11.0]
    for s in range(1, 6):
        ideal = t3[(f"scenario-{s}", "ideal")]["ours"]
        dflt = t3[(f"scenario-{s}", "default")]["ours"]
        afc = t3[(f"scenario-{s}", "afc")]["ours"]
        # Section 5.2: AFC improves on the default in every scenario ...
        assert afc > dflt, (s, afc, dflt)
        # ... and the default degrades: "the default flow control can only achieve up to 60%
        # of the ideal performance" (ours within a 10% margin).
        assert dflt <= 0.66 * ideal, (s, dflt, ideal)
    # Scenarios 1-4: "100% and more" in the paper; at least +50% in ours.
    for s in range(1, 5):
        assert t3[(f"scenario-{s}", "afc")]["ours"] >= 1.5 * t3[(f"scenario-{s}", "default")]["ours"], s
    # Figure 7(f): a reader that reads a single slot is buffer-limited, AFC or not.
    f7f = {(x["case"], x["variant"]): x["ours"] for x in rows if x["experiment"] == "fig7f"}
    assert abs(f7f[("idle-1-read-1", "afc")] - f7f[("idle-1-read-1", "default")]) < 0.1
    # The markdown report and the figures are written.
    out = tmp_path / "out"
    assert (out / "report.md").is_file() and (out / "afc-fig6.png").is_file() and (out / "afc-fig7.png").is_file()


def test_afc_scenario_keys_parse_and_validate():
    import pytest

    from tcplab import ScenarioError
    from tcplab.scenario import load

    base = {
        "duration": "1s",
        "topology": {"kind": "point_to_point", "downlink": {"rate": "10Mbit/s"}, "uplink": {"rate": "10Mbit/s"}},
        "flows": [{"name": "f", "fc": "afc", "read": {"pattern": ["0Mbit/s", "6Mbit/s"], "slot": "530ms", "blocking": True},
                   "tcp": {"afc_history_factor": 0.25, "afc_proactive_factor": 1.5, "afc_proactive_delay": "10ms",
                           "afc_burst_threshold_pkts": 4, "window_update": "reopen_only"}}],
    }
    f = load(base).canonical["flows"][0]
    t = f["tcp"]
    assert (t["fc"], t["afc_history_factor"], t["afc_proactive_factor"]) == ("afc", 0.25, 1.5)
    assert (t["afc_proactive_delay"], t["afc_burst_threshold_pkts"], t["window_update"]) == (10_000_000, 4, "reopen_only")
    assert f["read"]["blocking"] is True
    with pytest.raises(ScenarioError, match="afc_history_factor .*expected a number between 0 and 1"):
        load(base, {"flows.0.tcp.afc_history_factor": 2})
    with pytest.raises(ScenarioError, match="afc_proactive_factor .*expected a number of at least 1"):
        load(base, {"flows.0.tcp.afc_proactive_factor": 0.5})
    # The ablation switches (defaults: the paper).
    assert (t["afc_rate_sampling"], t["afc_suppress_congestion"], t["afc_open_window_in_recovery"]) == ("paper", True, False)
    t = load(base, {"flows.0.tcp.afc_rate_sampling": "reads_only", "flows.0.tcp.afc_suppress_congestion": False,
                    "flows.0.tcp.afc_open_window_in_recovery": True}).canonical["flows"][0]["tcp"]
    assert (t["afc_rate_sampling"], t["afc_suppress_congestion"], t["afc_open_window_in_recovery"]) == ("reads_only", False, True)
    with pytest.raises(ScenarioError, match='unknown value "reads"'):
        load(base, {"flows.0.tcp.afc_rate_sampling": "reads"})
    with pytest.raises(ScenarioError, match='unknown value "afcc"'):
        load(base, {"flows.0.fc": "afcc"})
