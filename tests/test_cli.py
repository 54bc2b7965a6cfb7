"""The `tcplab` command: help, run (with a stand-in simulator and for real), --json purity,
--set, --pcap staging, exit codes."""

import json
from pathlib import Path

import pandas as pd
import pytest

from tcplab import cli as tcli
from conftest import EXAMPLES, cli

P2P = str(EXAMPLES / "p2p-bulk.toml")


@pytest.mark.parametrize("args", [[], ["run"], ["validate"], ["trace-info"]])
def test_help_everywhere_with_examples(args):
    r = cli(*args, "--help")
    assert r.returncode == 0 and r.stderr == ""
    assert "usage: tcplab" in r.stdout and "examples:" in r.stdout


def test_version():
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.startswith("tcplab ")


def test_validate_ok():
    r = cli("validate", P2P, str(EXAMPLES / "dumbbell.toml"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("ok: ") == 2


def test_validate_canonical_writes_what_tcplab_sim_runs(tmp_path):
    # The documented way to feed the tcplab-sim binary (its --help names this command).
    r = cli("validate", P2P, "--canonical", "--set", "duration=2s")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    d = json.loads(r.stdout)
    assert d["duration"] == 2_000_000_000 and d["topology"]["kind"] == "point_to_point"
    import tcplab

    assert json.loads(tcplab.load(P2P, ["duration=2s"]).to_canonical_json()) == d
    j = tmp_path / "p2p.json"
    j.write_text(r.stdout)
    sim = Path(__file__).resolve().parent.parent / "target" / "release" / "tcplab-sim"
    if sim.exists():
        import subprocess

        out = subprocess.run([str(sim), str(j), "--no-timeseries"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["flows"][0]["bytes_delivered"] > 0
    # One scenario only: it writes one document.
    r = cli("validate", P2P, P2P, "--canonical")
    assert r.returncode == 2 and "--canonical writes one scenario's JSON; got 2" in r.stderr


# -- run, with the stand-in simulator (in-process) ---------------------------------------


def test_run_writes_outputs(fake_sim, tmp_path, capsys):
    out = tmp_path / "o"
    assert tcli.main(["run", P2P, "--out", str(out), "--seed", "42"]) == 0
    cap = capsys.readouterr()
    assert "bulk" in cap.out and "goodput Mbit/s" in cap.out and f"wrote {out}/" in cap.out
    names = sorted(p.name for p in out.iterdir())
    assert names == ["goodput.png", "owd.png", "queues.png", "scenario.json", "summary.json", "timeseries.parquet", "windows.png"]
    s = json.loads((out / "summary.json").read_text())
    assert s["schema"] == 1 and s["seed"] == 42 and len(s["scenario_sha256"]) == 64 and s["wall_s"] >= 0
    assert fake_sim["calls"][0]["seed"] == 42
    df = pd.read_parquet(out / "timeseries.parquet")
    assert list(df.columns) == ["time_s", "kind", "name", "metric", "value"]
    assert set(df["metric"].astype(str)) >= {"goodput_mbps", "cwnd_bytes"}
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_default_out_dir_is_named_after_the_scenario(fake_sim, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert tcli.main(["run", P2P, "--no-plots"]) == 0
    assert (tmp_path / "out" / "p2p-bulk" / "summary.json").exists()
    assert not list((tmp_path / "out" / "p2p-bulk").glob("*.png"))


def test_run_json_prints_only_json(fake_sim, tmp_path, capsys):
    assert tcli.main(["run", P2P, "--out", str(tmp_path / "o"), "--json"]) == 0
    cap = capsys.readouterr()
    s = json.loads(cap.out)  # the whole of stdout is one JSON document
    assert s["scenario"] == "p2p-bulk" and s == json.loads((tmp_path / "o" / "summary.json").read_text())
    assert cap.err == ""


def test_run_set_overrides_reach_the_simulator(fake_sim, tmp_path, capsys):
    rc = tcli.main(["run", P2P, "--out", str(tmp_path / "o"), "--set", "topology.downlink.rate=5Mbit/s", "--set", "flows.0.cc=cubic"])
    assert rc == 0
    canon = fake_sim["calls"][0]
    assert canon["topology"]["downlink"]["rate"]["bps"] == 5_000_000
    assert canon["flows"][0]["tcp"]["cc"] == "cubic"


def test_run_pcap_paths_land_in_the_out_dir(fake_sim, tmp_path, capsys):
    out = tmp_path / "o"
    assert tcli.main(["run", P2P, "--out", str(out), "--pcap", "downlink", "--pcap", "uplink", "--no-plots"]) == 0
    pcaps = fake_sim["calls"][0]["record"]["pcap"]
    assert [p["link"] for p in pcaps] == ["downlink", "uplink"] and all(p["snaplen"] == 0 for p in pcaps)
    assert (out / "downlink.pcap").read_bytes() == b"fake pcap" and (out / "uplink.pcap").exists()


def test_run_pcap_unknown_link_is_a_user_error(fake_sim, tmp_path, capsys):
    out = tmp_path / "o"
    assert tcli.main(["run", P2P, "--out", str(out), "--pcap", "bottleneck"]) == 2
    err = capsys.readouterr().err
    assert '--pcap "bottleneck": no such link' in err and "links: downlink, uplink" in err
    assert not out.exists() and not fake_sim["calls"]


def test_invariant_violation_exits_3_loudly(fake_sim, tmp_path, capsys):
    fake_sim["ok"] = False
    assert tcli.main(["run", P2P, "--out", str(tmp_path / "o")]) == 3
    err = capsys.readouterr().err
    assert "INVALID RUN" in err and "receiver got 10 bytes it was never sent" in err


def test_simulator_refusal_is_exit_2_and_writes_nothing(tmp_path, monkeypatch, capsys):
    from tcplab import _tcplab

    def refuse(canonical_json, progress=None):
        raise _tcplab.SimulationError("trace", "downlink.down:7: bad line")

    monkeypatch.setattr(_tcplab, "run_json", refuse)
    out = tmp_path / "o"
    assert tcli.main(["run", P2P, "--out", str(out), "--pcap", "downlink"]) == 2
    assert capsys.readouterr().err == f"error: {P2P}: trace error: downlink.down:7: bad line\n"
    assert not out.exists()


def test_event_budget_is_exit_1(tmp_path, monkeypatch, capsys):
    from tcplab import _tcplab

    def budget(canonical_json, progress=None):
        raise _tcplab.SimulationError("event_budget", "event budget exhausted after 10 events at 1ms (livelock?)")

    monkeypatch.setattr(_tcplab, "run_json", budget)
    assert tcli.main(["run", P2P, "--out", str(tmp_path / "o")]) == 1
    assert "livelock" in capsys.readouterr().err


def test_summary_table_formats_dumbbell(fake_sim, tmp_path, capsys):
    assert tcli.main(["run", str(EXAMPLES / "dumbbell.toml"), "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert "cubic3" in out and "Jain fairness index" in out


# -- the real simulator --------------------------------------------------------------------


def test_real_run_not_implemented_message_is_clean(tmp_path):
    r = cli("run", P2P, "--out", str(tmp_path / "o"), "--set", "duration=2s")
    if r.returncode == 2:
        assert "Traceback" not in r.stderr and r.stderr.startswith("error: ")
        assert not (tmp_path / "o").exists()


def test_real_run_json_purity(tmp_path):
    r = cli("run", P2P, "--out", str(tmp_path / "o"), "--set", "duration=2s", "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["schema"] == 1 and s["invariants"]["ok"] and s["flows"][0]["bytes_delivered"] > 0
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [
        "goodput.png", "owd.png", "queues.png", "scenario.json", "summary.json", "timeseries.parquet", "windows.png",
    ]  # fmt: skip


SHORT = {
    "p2p-bulk": [],
    "dumbbell": ["flows.0.start_spacing=500ms"],
    "lossy-link": ["flows.0.stop=1.5s", "flows.1.start=1.5s"],
    "slow-reader": [],
    "cellular-trace": [],
}


@pytest.mark.parametrize("name", list(SHORT))
def test_real_run_examples(name, tmp_path):
    sets = [a for kv in ["duration=3s", *SHORT[name]] for a in ("--set", kv)]
    r = cli("run", str(EXAMPLES / f"{name}.toml"), "--out", str(tmp_path / "o"), *sets, "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["invariants"]["ok"], s["invariants"]["violations"]
    assert all(f["bytes_delivered"] > 0 for f in s["flows"] if f["start_s"] < 2.0)


def test_progress_bar_waits_a_second_then_draws(monkeypatch, capsys):
    clock = {"t": 100.0}
    monkeypatch.setattr(tcli.time, "perf_counter", lambda: clock["t"])
    bar = tcli._ProgressBar()
    clock["t"] += 0.5
    assert bar(1.0, 10.0, 5000) is True
    assert capsys.readouterr().err == ""  # short runs never show a bar
    clock["t"] += 1.0
    bar(5.0, 10.0, 2_000_000)
    err = capsys.readouterr().err
    assert err.startswith("\r[###############...............]  50.0%") and "2.00M events" in err
    bar.close()
    assert capsys.readouterr().err.startswith("\r ")


def test_no_progress_bar_when_stderr_is_not_a_terminal(fake_sim, tmp_path, capsys):
    assert tcli.main(["run", P2P, "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    assert capsys.readouterr().err == ""


def test_seed_does_not_change_the_scenario_hash(fake_sim, tmp_path, capsys):
    hashes = []
    for seed in ("1", "2"):
        assert tcli.main(["run", P2P, "--out", str(tmp_path / seed), "--seed", seed, "--json", "--no-plots"]) == 0
        s = json.loads(capsys.readouterr().out)
        assert s["seed"] == int(seed)
        hashes.append(s["scenario_sha256"])
    assert hashes[0] == hashes[1]
    assert tcli.main(["run", P2P, "--out", str(tmp_path / "3"), "--set", "duration=5s", "--json", "--no-plots"]) == 0
    assert json.loads(capsys.readouterr().out)["scenario_sha256"] != hashes[0]


def test_run_says_on_stderr_and_in_the_summary_what_ran_in_place_of_the_configured(tmp_path):
    """Issue 35: a mechanism that cannot run as configured never runs silently as another.
    AFC on the receiver only (AFC paper 4.2.1: used only when both ends agree) stays a valid
    scenario; the receiver runs classic flow control, and `run` says so: one warning line
    naming the flow, the configured and the effective policy and why, and the summary's
    `fc_effective` and `fallbacks`. A flow that runs as configured prints none."""
    sc = tmp_path / "afc-one-side.toml"
    sc.write_text('duration = "2s"\n[topology]\nkind = "point_to_point"\n'
                  '[topology.downlink]\nrate = "10Mbit/s"\ndelay = "20ms"\n'
                  '[topology.uplink]\nrate = "10Mbit/s"\ndelay = "20ms"\n'
                  '[[flows]]\nname = "bulk"\n[flows.receiver_tcp]\nfc = "afc"\n')
    r = cli("run", str(sc), "--out", str(tmp_path / "o"), "--json", "--no-plots")
    assert r.returncode == 0, r.stderr
    warnings = [x for x in r.stderr.splitlines() if x.startswith("warning:")]
    assert warnings == ["warning: flow 'bulk': the receiver's fc \"afc\" ran as \"classic\": the peer did not "
                        "offer AFC: AFC is used only when both ends agree (AFC paper 4.2.1)"], r.stderr
    f = json.loads(r.stdout)["flows"][0]
    assert (f["fc_effective"], f["cc_effective"], len(f["fallbacks"])) == ("classic", "newreno", 1)
    r = cli("run", P2P, "--out", str(tmp_path / "p"), "--set", "duration=2s", "--json", "--no-plots")
    assert r.returncode == 0 and "warning:" not in r.stderr, r.stderr
    f = json.loads(r.stdout)["flows"][0]
    assert f["cc_effective"] == f["cc"] and f["fc_effective"] == f["fc"] and "fallbacks" not in f
