"""Sweeps on Dask (issue 14): the grid times the seeds, one row per run in a Parquet dataset
that a SIGKILL cannot corrupt, identical rows whatever the number of workers, bad sweep
files refused with one line naming the key, failing runs recorded without stopping."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from conftest import EXAMPLES, cli, tcplab_cmd
from tcplab.sweeps import FLOW_FIGURES, LINK_FIGURES, MANIFEST, load_sweep


def write_sweep(path: Path, body: str) -> Path:
    path.write_text(body)
    return path


LOSSY = f'''
scenario = "{EXAMPLES / 'p2p-bulk.toml'}"
seeds = [1, 2, 3]
[grid]
"duration" = ["2s"]
"topology.downlink.rate" = ["5Mbit/s", "20Mbit/s"]
"topology.downlink.loss" = [{{ kind = "bernoulli", p = 0.01 }}, {{ kind = "bernoulli", p = 0.03 }}]
'''


def test_rows_are_identical_from_one_worker_and_from_two(tmp_path: Path):
    sw = write_sweep(tmp_path / "s.toml", LOSSY)
    one = tcplab.sweep(sw, workers=1, out=tmp_path / "one")
    two = tcplab.sweep(sw, workers=2, out=tmp_path / "two")
    assert len(one) == 2 * 2 * 3 and (one["status"] == "ok").all()
    pd.testing.assert_frame_equal(one, two)
    # What pandas reads from the folder is the same dataset, one row per run.
    stored = pd.read_parquet(tmp_path / "two").sort_values("run").reset_index(drop=True)
    pd.testing.assert_frame_equal(stored, two)
    # Random loss: different seeds give different runs, the seed is in the row, and each
    # row matches a plain run of the same point.
    assert one.groupby("seed")["flow.bulk.retransmits"].sum().nunique() > 1
    row = one.iloc[-1]
    plain = tcplab.run(
        tcplab.load(EXAMPLES / "p2p-bulk.toml", {"duration": "2s", "topology.downlink.rate": row["topology.downlink.rate"],
                                                  "topology.downlink.loss": json.loads(row["topology.downlink.loss"])}),
        seed=int(row["seed"]),
    )
    assert row["flow.bulk.bytes_delivered"] == plain.summary["flows"][0]["bytes_delivered"]
    assert row["scenario_sha256"] == plain.summary["scenario_sha256"]
    assert row["link.downlink.drops.loss"] == plain.summary["links"][0]["drops"]["loss"]


def test_a_sweep_killed_with_sigkill_and_restarted_has_every_run_exactly_once(tmp_path: Path):
    sw = write_sweep(tmp_path / "k.toml", f'''
scenario = "{EXAMPLES / 'dumbbell.toml'}"
seeds = {{ first = 1, count = 60 }}
[grid]
"topology.bottleneck.rate" = ["20Mbit/s", "30Mbit/s"]
''')
    out = tmp_path / "out"
    cmd = [*tcplab_cmd(), "sweep", str(sw), "--workers", "2", "--out", str(out), "--flush-every", "0.2", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("part-*.parquet")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and its worker processes, mid-way
        proc.wait()
    stored = pd.read_parquet(out)
    assert 0 < len(stored) < 120, "the kill must land mid-way for this test to mean anything"
    assert stored["run_id"].is_unique

    r = cli("sweep", str(sw), "--workers", "2", "--out", str(out), "--no-progress")
    assert r.returncode == 0, r.stderr
    assert f"({len(stored)} before, {120 - len(stored)} now" in r.stdout
    df = pd.read_parquet(out)
    assert len(df) == 120 and df["run_id"].is_unique and sorted(df["run"]) == list(range(120))
    assert (df["status"] == "ok").all()
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "no temporary file left behind"
    # Started again once more: nothing to do, nothing duplicated.
    r = cli("sweep", str(sw), "--workers", "1", "--out", str(out), "--no-progress")
    assert r.returncode == 0 and "(120 before, 0 now" in r.stdout
    assert len(pd.read_parquet(out)) == 120


@pytest.mark.parametrize(
    "body, expected",
    [
        (f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [1]\ngird = {{}}\n',
         'gird: unknown key (did you mean "grid"?); valid keys here: name, description, scenario, seeds, grid'),
        (f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [1]\n[grid]\n"flows.0.ccc" = ["cubic"]\n',
         'grid."flows.0.ccc": value "cubic": flows[0].ccc'),
        (f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [1]\n[grid]\n"topology.downlink.rate" = ["5Mbit/s", "5Mbits"]\n',
         'grid."topology.downlink.rate": value "5Mbits": topology.downlink.rate'),
        (f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [1]\n[grid]\nflows.0.cc = ["cubic"]\n',
         'grid."flows": expected an array of values; quote dotted keys'),
        (f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [1]\n[grid]\n"flows.0.cc" = "cubic"\n',
         'grid."flows.0.cc": expected a non-empty array of values, got a string'),
        (f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [1, 1]\n', "seeds: a seed appears twice"),
        (f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [-1]\n', "seeds: expected integers in 0..2^64-1, got -1"),
        ('scenario = "nope.toml"\nseeds = [1]\n', "scenario: "),
        ("seeds = [1]\n", "scenario: missing"),
    ],
)
def test_a_bad_sweep_file_is_one_error_line_naming_the_key(tmp_path: Path, body: str, expected: str):
    sw = write_sweep(tmp_path / "bad.toml", body)
    r = cli("sweep", str(sw), "--out", str(tmp_path / "o"))
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {sw}: "), r.stderr
    assert expected in lines[0], lines[0]
    assert not (tmp_path / "o").exists(), "nothing is written for a refused sweep"


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path: Path):
    # Each value is valid on its own, but a 1 s run cannot start its flow at 2 s.
    sw = write_sweep(tmp_path / "f.toml", f'''
scenario = "{EXAMPLES / 'p2p-bulk.toml'}"
seeds = [1, 2]
[grid]
"duration" = ["3s", "1s"]
"flows.0.start" = ["0s", "2s"]
''')
    r = cli("sweep", str(sw), "--workers", "1", "--out", str(tmp_path / "o"))
    assert r.returncode == 1, r.stderr
    assert "8 runs stored" in r.stdout and "6 ok, 2 failed" in r.stdout
    df = pd.read_parquet(tmp_path / "o").sort_values("run")
    bad = df[df["status"] == "error"]
    assert list(bad["duration"]) == ["1s", "1s"] and list(bad["flows.0.start"]) == ["2s", "2s"]
    assert bad["error"].str.contains("at or after the end of the run").all()
    assert bad["flow.bulk.goodput_mbps"].isna().all()
    assert "starts at 2 s" in r.stderr


def test_another_sweep_into_the_same_folder_is_refused(tmp_path: Path):
    a = write_sweep(tmp_path / "a.toml", f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [1]\n[grid]\nduration = ["1s"]\n')
    b = write_sweep(tmp_path / "b.toml", f'scenario = "{EXAMPLES / "p2p-bulk.toml"}"\nseeds = [2]\n[grid]\nduration = ["1s"]\n')
    assert cli("sweep", str(a), "--workers", "1", "--out", str(tmp_path / "o")).returncode == 0
    r = cli("sweep", str(b), "--workers", "1", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "holds the results of a different sweep" in r.stderr
    (tmp_path / "file").write_text("x")
    r = cli("sweep", str(a), "--out", str(tmp_path / "file"))
    assert r.returncode == 2 and "exists and is not a folder" in r.stderr
    assert json.loads((tmp_path / "o" / MANIFEST).read_text())["runs"] == 1


def test_the_stored_figures_cover_every_number_of_the_summary():
    res = tcplab.run(tcplab.load(EXAMPLES / "p2p-bulk.toml", {"duration": "1s"}))

    def numeric_keys(d: dict, prefix: str = "") -> set[str]:
        out = set()
        for k, v in d.items():
            if isinstance(v, dict):
                out |= numeric_keys(v, f"{prefix}{k}.")
            elif isinstance(v, (int, float)) or v is None:
                out.add(prefix + k)
        return out

    flow_keys = numeric_keys(res.summary["flows"][0]) - {"id"}
    link_keys = numeric_keys(res.summary["links"][0])
    assert flow_keys <= {k for k, _ in FLOW_FIGURES}, flow_keys - {k for k, _ in FLOW_FIGURES}
    assert link_keys <= {k for k, _ in LINK_FIGURES}, link_keys - {k for k, _ in LINK_FIGURES}


def test_sweep_plan_order_and_size(tmp_path: Path):
    sw = load_sweep({"scenario": str(EXAMPLES / "p2p-bulk.toml"), "seeds": {"first": 5, "count": 2},
                     "grid": {"flows.0.cc": ["cubic", "newreno"], "duration": ["1s", "2s"]}})
    runs = list(sw.runs())
    assert sw.size == len(runs) == 8
    assert [(dict(r.overrides)["flows.0.cc"], dict(r.overrides)["duration"], r.seed) for r in runs[:3]] == [
        ("cubic", "1s", 5), ("cubic", "1s", 6), ("cubic", "2s", 5)]
    assert len({r.run_id for r in runs}) == 8
