"""Every file in tests/bad_scenarios/ starts with `# error: <message>`: both `tcplab validate`
and `tcplab run` must print exactly `error: <message>` on stderr, nothing on stdout, exit with
code 2 and write nothing."""

from pathlib import Path

import pytest

from conftest import BAD, cli

CASES = sorted(BAD.glob("*.toml"))


def expected(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# error: "), f"{path.name} must start with '# error: <expected message>'"
    return "error: " + first[len("# error: ") :] + "\n"


def test_there_are_many_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_validate_rejects(path: Path):
    r = cli("validate", path.name, cwd=BAD)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", expected(path))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_run_rejects_and_writes_nothing(path: Path, tmp_path: Path):
    out = tmp_path / "out"
    r = cli("run", path.name, "--out", str(out), cwd=BAD)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", expected(path))
    assert not out.exists()
    assert "Traceback" not in r.stderr


def test_run_rejects_bad_override_and_names_it(tmp_path: Path):
    out = tmp_path / "out"
    r = cli("run", "../../scenarios/examples/p2p-bulk.toml", "--out", str(out), "--set", "topology.downlink.rate=10", cwd=BAD)
    assert r.returncode == 2
    assert r.stderr == (
        "error: ../../scenarios/examples/p2p-bulk.toml: topology.downlink.rate (set by --set topology.downlink.rate=10): "
        'expected a rate like "10Mbit/s", got 10 (a bare integer); accepted units: bit/s, kbit/s, Kbit/s, Mbit/s, Gbit/s, bps, kbps, Kbps, Mbps, Gbps\n'
    )
    assert not out.exists()


def test_missing_scenario_file(tmp_path: Path):
    r = cli("run", "nope.toml", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert (r.returncode, r.stderr) == (2, "error: nope.toml: scenario file not found\n")
    assert not (tmp_path / "o").exists()


def test_usage_error_exit_code():
    # Usage errors are one "error:" line like every other bad input, pointing at --help.
    r = cli("run")
    assert (r.returncode, r.stderr) == (2, "error: tcplab run: the following arguments are required: SCENARIO.toml (see tcplab run --help)\n")
    r = cli("run", "x.toml", "--seed", "-1")
    assert r.returncode == 2 and "--seed" in r.stderr and len(r.stderr.splitlines()) == 1
    r = cli("frobnicate")
    assert r.returncode == 2 and r.stderr.startswith("error: tcplab: argument COMMAND: invalid choice") and len(r.stderr.splitlines()) == 1
