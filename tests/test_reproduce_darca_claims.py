"""Issue 35 for the DARCA reproduction (Zeng & Yao): an event is a delay from its cause, the
criteria that are ours (darca+correction, the 20% tolerance, the 10% threshold) carry their
source, every claim of the paper has a row, and `--beside ns2` is ns-2's Reno agent."""

import fnmatch
import json
from pathlib import Path

import pytest

from conftest import cli


@pytest.fixture(scope="module")
def darca(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("darca-claims")
    r = cli("reproduce", "darca", "--quick", "--beside", "ns2", "--json", "--out", str(tmp / "out"), cwd=tmp)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    d["report"] = (tmp / "out" / "report.md").read_text()
    d["by"] = {f'{x["experiment"]}/{x["case"]}/{x["variant"]}/{x["metric"]}': x for x in d["rows"]}
    return d


def test_restart_is_a_delay_from_the_resume(darca: dict):
    """Class 2: the restart "at 310 sec" came 10 s after TCP_2 resumed at 300 s; ours at
    334 s passed within 20% of 310 though it comes 34 s after. The row is the delay."""
    by = darca["by"]
    row = by["network-events/control/darca/restart_delay_after_resume_s"]
    assert row["paper"] == 10.0
    restarts = sorted(x["ours"] for k, x in by.items() if k.startswith("network-events/restart-")
                      and x["ours"] is not None)
    first = next(t for t in restarts if t >= 300.0)
    assert abs(row["ours"] - (first - 300.0)) < 1e-3
    assert row["consistent"] is (abs(row["ours"] - 10.0) <= 5.0)
    # The other events of Fig. 7 and Fig. 5 are delays from theirs too.
    assert by["network-events/control/darca/restart_delay_after_rate_increase_s"]["paper"] == 15.0
    assert by["remote-bottleneck/control/darca/learning_delay_s"]["paper"] == 4.0
    assert by["remote-bottleneck/control/darca/stable_delay_s"]["paper"] == 12.0
    for x in darca["rows"]:
        if x.get("paper") is not None:
            assert x.get("why"), x


def test_our_criteria_carry_their_source(darca: dict):
    """Class 5: darca+correction is a variant of ours, the 20% tolerance a sensitivity run of
    ours, the 10% threshold the issue's: their rows say whose criterion they are."""
    rows = [x for x in darca["rows"] if x.get("paper") is not None]
    corrected = [x for x in rows if x["variant"] == "darca+correction"]
    assert len(corrected) >= 12 and all("correction" in x["source"] for x in corrected)
    assert all(x.get("source") for x in rows if x["variant"] == "darca-tol0.2")
    verdicts = [x for x in rows if x["metric"] == "throughput_to_target" and x["variant"] != "darca+correction"]
    assert len(verdicts) >= 10 and all("10%" in x["source"] for x in verdicts)
    # Near the threshold a verdict is marginal: each carries the spread between the two
    # halves of its stretch.
    assert all(x.get("spread") is not None for x in verdicts)
    # The paper's own claims have none.
    assert not darca["by"]["remote-bottleneck/stable/tcp4/darca/target_kbps"].get("source")


def test_claims_list_covers_the_rows(darca: dict):
    """Class 4: every claim of the abstract, section 4 and the conclusion has rows, and the
    ones that had none (TCP_1's realised rates in Fig. 7, the proportional split of Fig. 8,
    per-class control's oscillation in every class) have a criterion now."""
    from tcplab.experiments import darca as mod

    criteria = [k for k, x in darca["by"].items() if x.get("paper") is not None]
    for c in mod.CLAIMS:
        assert c.where and c.text and c.rows, c
        assert any(fnmatch.fnmatchcase(k, pat) for pat in c.rows for k in criteria), c
    by = darca["by"]
    assert by["network-events/100-200s/tcp1/darca/throughput_kbps"]["paper"] == 650.0
    assert by["per-class/excess/class2-to-class3/per-class/target_ratio"]["paper"] == 2.0
    assert by["per-class/oscillation/all-classes/per-class-vs-per-connection/min_cv_ratio"]["paper"] == {"min": 1.0}


def test_beside_ns2_is_the_reno_agent(darca: dict):
    """Class 1: the ns2 column is ns-2.35's Agent/TCP/Reno as bench/ns2-compare validated it,
    with the timestamps DARCA's meter needs, and the report says so."""
    from tcplab.experiments import darca as mod

    keys, description = mod.BESIDE["ns2"]
    assert keys["defaults.tcp.recovery"] == "reno" and "Reno" in description and "timestamps" in description
    assert "Agent/TCP/Reno" in darca["report"]
