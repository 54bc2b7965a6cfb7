"""Open-loop workloads (`[[workloads]]`, docs/scenarios.md "Workloads"; issue 18): flows
that arrive on their own schedule, send a drawn size and leave, with completion times in
the summary and one row per flow in `workload_flows.parquet`."""

import json
import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab.errors import ScenarioError

S = 1_000_000_000
ROOT = Path(__file__).resolve().parent.parent
SIM = ROOT / "target" / "release" / "tcplab-sim"


def scenario(**workload):
    w = {"name": "web", "arrivals": {"kind": "poisson", "rate": 20}, "sizes": {"kind": "fixed", "bytes": "20kB"}}
    w.update(workload)
    return {
        "name": "wl",
        "duration": "10s",
        "topology": {
            "kind": "point_to_point",
            "downlink": {"rate": "10Mbit/s", "delay": "20ms", "queue": "100pkts"},
            "uplink": {"rate": "10Mbit/s", "delay": "20ms"},
        },
        "workloads": [w],
    }


def test_canonical_form_of_each_arrival_and_size_kind(tmp_path):
    (tmp_path / "arrivals.txt").write_text("# seconds\n0.5\n1.25\n\n2\n")
    (tmp_path / "sizes.cdf").write_text("# bytes  cdf\n1000 0.5\n20000, 0.9\n100000 1\n")
    toml = tmp_path / "w.toml"
    toml.write_text(
        """
duration = "5s"
[topology]
kind = "point_to_point"
downlink = { rate = "10Mbit/s", delay = "10ms" }
uplink = { rate = "10Mbit/s", delay = "10ms" }
[defaults.tcp]
nagle = false
[[workloads]]
name = "a"
arrivals = { kind = "file", path = "arrivals.txt" }
sizes = { kind = "cdf", path = "sizes.cdf" }
cc = "cubic"
[[workloads]]
name = "b"
arrivals = { kind = "times", times = ["1s", "1.5s"] }
sizes = { kind = "cdf", points = [["1kB", 0.25], ["1MB", 1.0]] }
size_buckets = ["10kB"]
[[workloads]]
name = "c"
arrivals = { kind = "poisson", rate = 2.5 }
sizes = { kind = "pareto", mean = "50kB", shape = 1.2 }
start = "1s"
stop = "3s"
max_flows = 7
[[workloads]]
name = "d"
arrivals = { kind = "poisson", rate = 1 }
sizes = { kind = "exponential", mean = "2kB" }
"""
    )
    c = tcplab.load(toml).canonical
    assert "flows" not in c or c["flows"] == []
    a, b, cc, d = c["workloads"]
    assert a["arrivals"] == {"kind": "times", "times": [S // 2, 5 * S // 4, 2 * S]}
    assert a["sizes"] == {"kind": "empirical", "points": [[1000, 0.5], [20000, 0.9], [100000, 1.0]]}
    assert a["tcp"]["cc"] == "cubic" and a["tcp"]["nagle"] is False  # defaults.tcp applies
    assert a["size_buckets"] == [10_000, 100_000, 1_000_000, 10_000_000]
    assert b["arrivals"]["times"] == [S, 3 * S // 2]
    assert b["sizes"]["points"] == [[1000, 0.25], [1_000_000, 1.0]]
    assert b["size_buckets"] == [10_000]
    assert cc["arrivals"] == {"kind": "poisson", "per_second": 2.5}
    assert cc["sizes"] == {"kind": "pareto", "mean_bytes": 50_000.0, "shape": 1.2}
    assert (cc["start"], cc["stop"], cc["max_flows"]) == (S, 3 * S, 7)
    assert d["sizes"] == {"kind": "exponential", "mean_bytes": 2000.0}
    assert (a["src"], a["dst"]) == ("server", "client")
    res = tcplab.run(toml)
    assert res.ok, res.summary["invariants"]
    ws = {w["name"]: w for w in res.summary["workloads"]}
    assert ws["a"]["arrived"] == 3 and ws["b"]["arrived"] == 2
    assert ws["c"]["arrived"] <= 7


def test_run_summary_and_parquet(tmp_path):
    res = tcplab.run(scenario())
    assert res.ok, res.summary["invariants"]
    w = res.summary["workloads"][0]
    assert w["arrived"] > 150 and w["completed"] + w["active_at_end"] == w["arrived"]
    assert res.summary["flows"] == []
    df = res.workload_flows
    assert list(df.columns) == ["workload", "id", "size_bytes", "start_s", "fct_s", "bytes_delivered", "retransmits", "timeouts"]
    assert len(df) == w["arrived"] and (df["workload"] == "web").all()
    assert (df["size_bytes"] == 20_000).all()
    done = df[df["fct_s"].notna()]
    assert len(done) == w["completed"] and (done["bytes_delivered"] == 20_000).all()
    # The summary's median agrees with the rows' (within the histogram's 0.8%).
    assert abs(done["fct_s"].median() * 1e3 - w["fct_ms"]["p50"]) / w["fct_ms"]["p50"] < 0.01
    written = res.write(tmp_path / "out", plots=False)
    assert tmp_path / "out" / "workload_flows.parquet" in written
    back = pd.read_parquet(tmp_path / "out" / "workload_flows.parquet")
    assert len(back) == len(df)


def test_cli_prints_the_workload_tables(tmp_path):
    p = tmp_path / "w.toml"
    p.write_text(
        """
duration = "10s"
[topology]
kind = "point_to_point"
downlink = { rate = "10Mbit/s", delay = "20ms", queue = "100pkts" }
uplink = { rate = "10Mbit/s", delay = "20ms" }
[[workloads]]
name = "web"
arrivals = { kind = "poisson", rate = 20 }
sizes = { kind = "exponential", mean = "30kB" }
"""
    )
    r = subprocess.run([sys.executable, "-m", "tcplab", "run", str(p), "--out", str(tmp_path / "o"), "--no-plots"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "FCT mean/p50/p95/p99 ms" in r.stdout
    assert "10kB-100kB" in r.stdout and "1B-10kB" in r.stdout


def test_same_seed_same_flows():
    a = tcplab.run(scenario(sizes={"kind": "pareto", "mean": "20kB", "shape": 1.3}))
    b = tcplab.run(scenario(sizes={"kind": "pareto", "mean": "20kB", "shape": 1.3}))
    pd.testing.assert_frame_equal(a.workload_flows, b.workload_flows)
    c = tcplab.run(scenario(sizes={"kind": "pareto", "mean": "20kB", "shape": 1.3}), seed=99)
    assert not a.workload_flows["size_bytes"].equals(c.workload_flows["size_bytes"])


BAD = [
    ({"arrivals": {"kind": "poisson"}}, "workloads[0].arrivals.rate", "missing"),
    ({"arrivals": {"kind": "poisson", "rate": 0}}, "workloads[0].arrivals.rate", "positive number"),
    ({"arrivals": {"kind": "gamma", "rate": 1}}, "workloads[0].arrivals.kind", "unknown value"),
    ({"arrivals": 5}, "workloads[0].arrivals", "expected a table with a kind"),
    ({"arrivals": {"kind": "times", "times": ["2s", "1s"]}}, "workloads[0].arrivals", "must not decrease"),
    ({"arrivals": {"kind": "file", "path": "/nonexistent/arrivals.txt"}}, "workloads[0].arrivals.path", "cannot read"),
    ({"sizes": {"kind": "fixed"}}, "workloads[0].sizes.bytes", "missing"),
    ({"sizes": {"kind": "fixed", "bytes": "0B"}}, "workloads[0].sizes.bytes", ""),
    ({"sizes": {"kind": "pareto", "mean": "10kB", "shape": 1}}, "workloads[0].sizes.shape", "greater than 1"),
    ({"sizes": {"kind": "cdf"}}, "workloads[0].sizes", 'give either "path"'),
    ({"sizes": {"kind": "cdf", "points": [["1kB", 0.5]]}}, "workloads[0].sizes", "must end at 1"),
    ({"sizes": {"kind": "cdf", "points": [["2kB", 0.5], ["1kB", 1]]}}, "workloads[0].sizes", "must not decrease"),
    ({"sizes": {"kind": "cdf", "points": [["1kB", 1.5]]}}, "workloads[0].sizes.points[0]", "probability"),
    ({"sizes": {"kind": "fixed", "bytes": "1kB", "mean": "1kB"}}, "workloads[0].sizes.mean", "unknown key"),
    ({"dst": "nowhere"}, "workloads[0].dst", "unknown node"),
    ({"dst": "server"}, "workloads[0].dst", "same node"),
    ({"pair": 0}, "workloads[0].pair", "dumbbell"),
    ({"stop": "0s"}, "workloads[0].stop", ""),
    ({"max_flows": 0}, "workloads[0].max_flows", ""),
    ({"size_buckets": ["10kB", "1kB"]}, "workloads[0].size_buckets", "strictly increasing"),
    ({"rate": 5}, "workloads[0].rate", "unknown key"),
]


@pytest.mark.parametrize("change,path,words", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_workload_keys_name_the_key(change, path, words):
    with pytest.raises(ScenarioError) as e:
        tcplab.load(scenario(**change))
    assert e.value.path == path, str(e.value)
    assert words in str(e.value)


def test_a_bad_line_in_a_file_names_the_line(tmp_path):
    (tmp_path / "a.txt").write_text("0.1\n0.2 0.3\n")
    s = scenario(arrivals={"kind": "file", "path": str(tmp_path / "a.txt")})
    with pytest.raises(ScenarioError, match="a.txt line 2: expected one time in seconds"):
        tcplab.load(s)
    (tmp_path / "s.cdf").write_text("1000 0.5\n2000 x\n")
    s = scenario(sizes={"kind": "cdf", "path": str(tmp_path / "s.cdf")})
    with pytest.raises(ScenarioError, match="s.cdf line 2: expected a size in bytes"):
        tcplab.load(s)


def test_workloads_through_an_element_are_refused():
    s = scenario()
    s["elements"] = [{"node": "client", "kind": "bsf", "link": "downlink"}]
    s["flows"] = [{"name": "f"}]
    with pytest.raises(ScenarioError, match="workloads through elements are not supported yet"):
        tcplab.load(s)


def _peak_rss_kb(canonical_json: Path) -> int:
    """Peak RSS of one tcplab-sim process running the scenario (a fresh child each time)."""
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run([sys.argv[1], sys.argv[2], '--no-timeseries'], check=True, stdout=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(SIM), str(canonical_json)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


@pytest.mark.skipif(not SIM.exists(), reason="needs the tcplab-sim binary (cargo build --release)")
def test_memory_of_ended_flows_is_reused(tmp_path):
    # Issue 18: peak RSS of 10^5 sequential short flows within 2x of 10^3. Without rows
    # (record.workload_flows = false) what a flow leaves is its completion time in a
    # histogram, so memory is that of the flows alive at once (a few dozen here).
    rss = {}
    for n in (1_000, 100_000):
        s = scenario(arrivals={"kind": "poisson", "rate": 200}, sizes={"kind": "fixed", "bytes": "10kB"}, max_flows=n)
        s["duration"] = "2000s"
        s["stop_when_done"] = True
        s["record"] = {"timeseries": False, "workload_flows": False}
        s["topology"]["downlink"] = {"rate": "1Gbit/s", "delay": "1ms", "queue": "1000pkts"}
        s["topology"]["uplink"] = {"rate": "1Gbit/s", "delay": "1ms", "queue": "1000pkts"}
        p = tmp_path / f"seq{n}.json"
        p.write_text(tcplab.load(s).to_canonical_json())
        rss[n] = _peak_rss_kb(p)
    assert rss[100_000] < 2 * rss[1_000], rss
