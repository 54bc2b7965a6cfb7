"""The Python API: load -> run -> Result -> write, determinism, the progress callback."""

import json
import threading

import pandas as pd
import pytest

import tcplab
from conftest import EXAMPLES
from fake_output import fake_run_output


def test_round_trip_with_stand_in_simulator(fake_sim, tmp_path):
    sc = tcplab.load(EXAMPLES / "p2p-bulk.toml")
    seen = []
    res = tcplab.run(sc, seed=5, progress=lambda t, d, e: seen.append((t, d, e)))
    assert seen == [(10.0, 20.0, 1000)]
    assert isinstance(res, tcplab.Result) and res.ok
    assert res.summary["seed"] == 5 and res.summary["scenario_sha256"] == sc.sha256
    df = res.timeseries
    assert list(df.columns) == ["time_s", "kind", "name", "metric", "value"]
    assert set(df["kind"].astype(str)) == {"flow", "link"}
    cw = df[(df["metric"] == "cwnd_bytes") & (df["name"] == "bulk")]
    assert len(cw) == 200 and cw["time_s"].iloc[0] == pytest.approx(0.1)
    paths = res.write(tmp_path / "o")
    assert {p.name for p in paths} >= {"summary.json", "timeseries.parquet", "scenario.json"}
    back = pd.read_parquet(tmp_path / "o" / "timeseries.parquet")
    pd.testing.assert_frame_equal(back.astype({c: str for c in ("kind", "name", "metric")}), df.astype({c: str for c in ("kind", "name", "metric")}))
    assert json.loads((tmp_path / "o" / "scenario.json").read_text()) == {**sc.canonical, "seed": 5}  # the seed that ran


def test_run_accepts_path_and_dict(fake_sim):
    r1 = tcplab.run(EXAMPLES / "p2p-bulk.toml")
    doc = {
        "duration": "1s",
        "topology": {"kind": "point_to_point", "downlink": {"rate": "1Mbit/s"}, "uplink": {"rate": "1Mbit/s"}},
        "flows": [{}],
    }
    r2 = tcplab.run(doc)
    assert r1.summary["scenario"] == "p2p-bulk" and r2.summary["scenario"] == "scenario"


def test_bad_seed():
    with pytest.raises(ValueError):
        tcplab.run(EXAMPLES / "p2p-bulk.toml", seed=-1)


def test_empty_timeseries_frame():
    from tcplab.runner import timeseries_frame

    df = timeseries_frame({})
    assert list(df.columns) == ["time_s", "kind", "name", "metric", "value"] and len(df) == 0


def test_scenario_error_from_api_is_one_line():
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.load({"duration": "1s", "topology": {"kind": "ring"}, "flows": [{}]})
    assert str(e.value) == '<dict>: topology.kind: unknown value "ring"; expected one of "point_to_point", "dumbbell", "custom"'
    assert e.value.path == "topology.kind" and e.value.source == "<dict>"


def test_not_implemented_placeholder_maps_to_simulation_error():
    try:
        tcplab.run(EXAMPLES / "p2p-bulk.toml")
    except tcplab.SimulationError as e:
        assert e.kind in ("config", "trace", "event_budget", "io", "cancelled")
        assert str(e).startswith(str(EXAMPLES / "p2p-bulk.toml") + ": ")


# -- the real simulator ---------------------------------------------------------------------


def test_real_run_is_deterministic():
    sc = tcplab.load(EXAMPLES / "lossy-link.toml").with_overrides({"duration": "3s", "flows.0.stop": "1.5s", "flows.1.start": "1.5s"})
    a = tcplab.run(sc, seed=3)
    b = tcplab.run(sc, seed=3)
    c = tcplab.run(sc, seed=4)
    strip = lambda s: {k: v for k, v in s.items() if k != "wall_s"}
    assert strip(a.summary) == strip(b.summary)
    pd.testing.assert_frame_equal(a.timeseries, b.timeseries)
    assert strip(a.summary) != strip(c.summary)  # 1% random loss: another seed, another run


def test_real_run_calls_progress_without_holding_the_gil():
    sc = tcplab.load(EXAMPLES / "dumbbell.toml").with_overrides({"duration": "10s"})
    ticks = []
    other = {"n": 0}
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            other["n"] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        res = tcplab.run(sc, progress=lambda s, d, e: ticks.append(e))
    finally:
        stop.set()
        t.join()
    assert res.ok
    assert ticks and ticks == sorted(ticks)
    assert other["n"] > 1000  # the other Python thread ran during the simulation


def test_real_run_cancel_from_progress():
    sc = tcplab.load(EXAMPLES / "dumbbell.toml").with_overrides({"duration": "30s"})
    with pytest.raises(tcplab.SimulationError) as e:
        tcplab.run(sc, progress=lambda s, d, ev: False)
    assert e.value.kind == "cancelled" and e.value.exit_code == 1
