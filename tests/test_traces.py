"""Mahimahi traces: statistics (`tcplab trace-info`) and validation."""

import json
from pathlib import Path

import pytest

import tcplab
from tcplab.traces import read_trace
from conftest import CELLULAR, cli


def test_trace_info_synthetic(tmp_path: Path):
    # 2 s period: 10 opportunities in the first second, 2 in the second.
    p = tmp_path / "t.down"
    p.write_text("\n".join(["0"] * 5 + ["500"] * 5 + ["1200", "2000"]) + "\n")
    i = tcplab.trace_info(p)
    assert (i.lines, i.duration_ms, i.opportunity_bytes) == (12, 2000, 1500)
    assert i.mean_mbps == pytest.approx(12 * 1500 * 8 / 2.0 / 1e6)
    assert i.max_mbps == pytest.approx(10 * 12000 / 1e6) and i.min_mbps == pytest.approx(1 * 12000 / 1e6)


def test_trace_shorter_than_a_second(tmp_path: Path):
    p = tmp_path / "t.down"
    p.write_text("0\n10\n")
    i = tcplab.trace_info(p)
    assert i.min_mbps == i.max_mbps == i.mean_mbps == pytest.approx(2 * 12000 / 0.01 / 1e6)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "{p}: empty trace (expected one integer millisecond timestamp per line)"),
        ("0\n5\n\n7\n", "{p}:3: expected a non-negative integer millisecond timestamp, found ''"),
        ("0\n-5\n", "{p}:2: expected a non-negative integer millisecond timestamp, found '-5'"),
        ("0\n5.5\n", "{p}:2: expected a non-negative integer millisecond timestamp, found '5.5'"),
        ("0\n7\n3\n", "{p}:3: timestamps must not decrease (3 ms after 7 ms)"),
        ("0\n0\n", "{p}: the trace must last a positive time: its last timestamp, the period with which it repeats, is 0 ms"),
    ],
)
def test_bad_traces(tmp_path: Path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    Path("t.down").write_text(text)
    with pytest.raises(tcplab.TraceError) as e:
        read_trace("t.down")
    assert str(e.value) == message.format(p="t.down")


def test_trailing_blank_lines_and_crlf_are_fine(tmp_path: Path):
    p = tmp_path / "t.down"
    p.write_bytes(b"0\r\n3\r\n4\r\n\r\n\n")
    i = read_trace(p)
    assert (i.lines, i.duration_ms) == (3, 4)


def test_cli_trace_info_errors(tmp_path: Path):
    r = cli("trace-info", "missing.down", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", "error: trace file not found: missing.down\n")


@pytest.mark.parametrize(
    "name, mean, seconds",
    [  # the figures of traces/cellular/README.md
        ("Verizon-LTE-short.down", 5.03, 140),
        ("TMobile-LTE-short.up", 13.32, 140),
        ("ATT-LTE-driving-2016.down", 4.56, 120),
    ],
)
def test_trace_info_real(name, mean, seconds):
    i = tcplab.trace_info(CELLULAR / name)
    assert i.mean_mbps == pytest.approx(mean, abs=0.01)
    assert i.duration_ms / 1000 == pytest.approx(seconds, abs=0.5)
    assert 0 <= i.min_mbps < i.mean_mbps < i.max_mbps


def test_cli_trace_info_json_is_pure():
    r = cli("trace-info", "--json", str(CELLULAR / "Verizon-LTE-short.down"))
    assert r.returncode == 0 and r.stderr == ""
    d = json.loads(r.stdout)
    assert set(d) == {"path", "lines", "duration_ms", "opportunity_bytes", "mean_mbps", "min_mbps", "max_mbps"}
    assert d["lines"] == 58655 and d["duration_ms"] == 140000
    r = cli("trace-info", "--json", str(CELLULAR / "Verizon-LTE-short.down"), str(CELLULAR / "Verizon-LTE-short.up"))
    assert [x["lines"] for x in json.loads(r.stdout)] == [58655, 69367]


def test_cli_trace_info_text():
    r = cli("trace-info", str(CELLULAR / "Verizon-LTE-short.down"))
    assert r.returncode == 0
    assert "mean rate     5.028 Mbit/s" in r.stdout and "140.000 s" in r.stdout
