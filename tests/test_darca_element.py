"""DARCA from scenario files (issue 12): `kind = "darca"` keys reach the simulator, a run
reports its control cycle, and bad keys are one error line naming the key (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tcplab
from conftest import cli

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = ROOT / "scenarios" / "darca" / "remote-bottleneck.toml"
ELEMENT = SCENARIO.read_text().split("[[elements]]")[0]


def with_element(tmp_path: Path, element: str) -> Path:
    p = tmp_path / "darca.toml"
    p.write_text(ELEMENT + "[[elements]]\n" + element + "\n")
    return p


def test_keys_reach_the_simulator_with_units_and_defaults(tmp_path):
    el = ('kind = "darca"\nnode = "er"\nlink = "L"\nstart = "5s"\ntolerance = 0.2\nmax_stable = "50s"\n'
          'targets = [{ flow = "tcp1", rate = "1Mbit/s" }]')
    e = tcplab.load(with_element(tmp_path, el)).canonical["elements"][0]
    assert e == {"node": "er", "element": {
        "kind": "darca", "link": "L", "start": 5_000_000_000, "targets": [{"flow": "tcp1", "bps": 1_000_000}],
        "classes": [], "class_rtt": "harmonic", "factor": 0.8, "tolerance": 0.2, "max_stable": 50_000_000_000,
        "min_convergence": 500_000_000, "rwnd": 65536, "rtt": None, "correction": "none", "max_convergence": None}}
    el = ('kind = "darca"\nnode = "er"\nlink = "L"\nclass_rtt = "midpoint"\n'
          'classes = [{ rtt_min = "0ms", rtt_max = "150ms", rate = "2Mbit/s" }, { rtt_min = "150ms", rtt_max = "3s", rate = "1Mbit/s" }]')
    e = tcplab.load(with_element(tmp_path, el)).canonical["elements"][0]["element"]
    assert e["classes"] == [{"rtt_min": 0, "rtt_max": 150_000_000, "bps": 2_000_000},
                            {"rtt_min": 150_000_000, "rtt_max": 3_000_000_000, "bps": 1_000_000}]
    assert e["class_rtt"] == "midpoint"


def test_a_darca_run_reports_its_cycle(tmp_path):
    sc = tcplab.load(SCENARIO).with_overrides({"duration": "40s", "elements.0.start": "10s"})
    r = tcplab.run(sc)
    e = r.summary["elements"][0]
    assert (e["node"], e["kind"]) == ("er", "darca")
    d = e["detail"]
    assert d["mode"] == "connection" and [u["name"] for u in d["units"]] == ["tcp1", "tcp2", "tcp3", "tcp4"]
    assert d["rounds"][0]["t_s"] == 10.0 and d["rounds"][0]["phase"] == "initial"
    assert e["counters"]["dropped"] > 0 and r.summary["invariants"]["ok"]
    # The text summary shows the cycle's scalars and the lengths of its logs, not the logs.
    out = tmp_path / "o"
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO.read_text().replace('duration = "200s"', 'duration = "20s"').replace('start = "100s"', 'start = "5s"'))
    res = cli("run", str(p), "--out", str(out))
    assert res.returncode == 0, res.stderr
    line = next(l for l in res.stdout.splitlines() if l.startswith("darca "))
    assert "rounds=[" in line and "mode=connection" in line and "'t_s'" not in line
    assert json.loads((out / "summary.json").read_text())["elements"][0]["detail"]["rounds"]


T = 'kind = "darca"\nnode = "er"\nlink = "L"\n'
TGT = 'targets = [{ flow = "tcp1", rate = "1Mbit/s" }]'


@pytest.mark.parametrize(
    "element, fragments",
    [
        (T, ["elements[0].targets", "either targets"]),
        (T + TGT + '\nclasses = [{ rtt_min = "0ms", rtt_max = "1s", rate = "1Mbit/s" }]', ["elements[0].targets", "one of the two"]),
        (T + 'targets = []', ["elements[0].targets", "non-empty"]),
        (T + 'targets = [{ flow = "tcp9", rate = "1Mbit/s" }]', ["elements[0].targets[0].flow", "unknown flow 'tcp9'"]),
        (T + 'targets = [{ flow = "tcp1" }]', ["elements[0].targets[0]", "rate"]),
        (T + 'targets = [{ flow = "tcp1", rate = "1Mbit/s" }, { flow = "tcp1", rate = "2Mbit/s" }]', ["elements[0].targets[1].flow", "has a target already"]),
        (T + 'targets = [{ flow = "tcp1", rate = "0Mbit/s" }]', ["elements[0].targets[0].rate"]),
        (T + TGT + "\nfactor = 1.2", ["elements[0].factor", "between 0 and 1"]),
        (T + TGT + "\ntolerance = 0", ["elements[0].tolerance", "between 0 and 1"]),
        (T + TGT + '\nmax_stable = "0s"', ["elements[0].max_stable"]),
        (T + TGT + '\nmin_convergence = "1ms"', ["elements[0].min_convergence", "at least 10ms"]),
        (T + TGT + '\nclass_rtt = "mean"', ["elements[0].class_rtt", "harmonic"]),
        (T + TGT + '\ncorrection = "closed"', ["elements[0].correction", "measured"]),
        (T + TGT + '\nmax_convergence = "100ms"', ["elements[0].max_convergence", "at least min_convergence"]),
        (T + TGT + '\ncorrection = true', ["elements[0].correction"]),
        (T + 'classes = [{ rtt_min = "100ms", rtt_max = "50ms", rate = "1Mbit/s" }]', ["elements[0].classes[0].rtt_max", "above rtt_min"]),
        (T + 'classes = [{ rtt_min = "0ms", rtt_max = "100ms", rate = "1Mbit/s" }, { rtt_min = "50ms", rtt_max = "1s", rate = "1Mbit/s" }]',
         ["elements[0].classes[1].rtt_min", "overlaps that of classes[0]"]),
        ('kind = "darca"\nnode = "ar"\nlink = "L"\n' + TGT, ["elements[0].link", "does not end at node 'ar'"]),
        ('kind = "darca"\nnode = "er"\nlink = "Lx"\n' + TGT, ["elements[0].link", 'unknown link "Lx"']),
        ('kind = "darca"\nnode = "er"\nlink = "access4"\n' + TGT, ["elements[0].link", "does not end at node 'er'"]),
        (T + TGT + "\ngain = 2", ["elements[0]", "unknown key"]),
    ],
)
def test_bad_darca_keys_are_one_error_line(tmp_path, element, fragments):
    r = cli("validate", str(with_element(tmp_path, element)))
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


def test_a_flow_not_crossing_the_controlled_link_cannot_be_targeted(tmp_path):
    text = ELEMENT.replace('nodes = ["s1", "s2", "s3", "s4", "ar", "er", "rx"]', 'nodes = ["s1", "s2", "s3", "s4", "ar", "er", "rx", "s5"]')
    text += '[[topology.links]]\nfrom = "s5"\nto = "rx"\nrate = "1Mbit/s"\n\n[[topology.links]]\nfrom = "rx"\nto = "s5"\nrate = "1Mbit/s"\n\n'
    text += '[[flows]]\nname = "side"\nsrc = "s5"\ndst = "rx"\n\n'
    p = tmp_path / "d.toml"
    p.write_text(text + '[[elements]]\nkind = "darca"\nnode = "er"\nlink = "L"\ntargets = [{ flow = "side", rate = "1Mbit/s" }]\n')
    r = cli("validate", str(p))
    assert r.returncode == 2 and "flow 'side' does not send data over link 'L'" in r.stderr, r.stderr


def test_timestamps_are_needed_to_time_a_connection_unless_an_rtt_is_given(tmp_path):
    text = ELEMENT.replace("timestamps = true", "timestamps = false")
    p = tmp_path / "d.toml"
    p.write_text(text + "[[elements]]\n" + T + TGT + "\n")
    r = cli("validate", str(p))
    assert r.returncode == 2 and "sends no timestamps" in r.stderr, r.stderr
    p.write_text(text + "[[elements]]\n" + T + TGT + '\nrtt = "100ms"\n')
    assert cli("validate", str(p)).returncode == 0
