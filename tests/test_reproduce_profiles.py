"""`tcplab reproduce --profile` (issue 16, docs/profiles.md): the reproductions keep the
TCP rules they were validated with unless a stack profile is asked for."""

from pathlib import Path

import pytest

from conftest import cli
from tcplab.experiments import VALIDATED_RULES, Context, Report


def _tcp(ctx: Context, paper: str, name: str) -> dict:
    return ctx.scenario(paper, name).canonical["flows"][0]["tcp"]


def test_validated_rules_unless_a_profile_is_asked_for(tmp_path: Path):
    kw = dict(quick=True, out=tmp_path, jobs=1, seed=None, progress=False)
    t = _tcp(Context(**kw), "darca", "remote-bottleneck")
    assert (t["profile"], t["rto_rule"], t["rtt_source"], t["ssthresh_rule"]) == (
        "linux", "rfc6298", "send_time", "flight_size")
    assert (t["abc_limit_pkts"], t["cwnd_limited_growth"], t["hystart"]) == (1, False, False)
    assert set(VALIDATED_RULES) <= set(t)
    t = _tcp(Context(**kw, profile="ns2"), "darca", "remote-bottleneck")
    assert (t["profile"], t["ssthresh_rule"], t["initial_rto"]) == ("ns2", "window", 3_000_000_000)
    # A key the scenario file sets itself wins over both (concurrent-upload's nagle).
    t = _tcp(Context(**kw), "rate-based", "concurrent-upload")
    assert t["nagle"] is False
    t = _tcp(Context(**kw, profile="linux"), "rate-based", "concurrent-upload")
    assert (t["nagle"], t["rto_rule"]) == (False, "linux")


def test_a_profile_a_mechanism_cannot_run_under_is_refused_with_the_reason(tmp_path: Path):
    r = cli("reproduce", "rsfc", "--quick", "--profile", "ns2", "--out", str(tmp_path / "o"))
    assert r.returncode != 0
    assert 'needs timestamps = true (profile "ns2" sets it false)' in r.stderr


def test_an_unknown_profile_is_a_usage_error(tmp_path: Path):
    r = cli("reproduce", "darca", "--quick", "--profile", "bsd", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "--profile" in r.stderr and "bsd" in r.stderr


def test_a_report_under_a_profile_says_so(tmp_path: Path):
    rep = Report(paper="P", title="T")
    assert "Stack profile" not in rep.markdown(tmp_path) and "profile" not in rep.to_json()
    rep.profile = "ns2"
    assert "**Stack profile `ns2`**" in rep.markdown(tmp_path)
    assert rep.to_json()["profile"] == "ns2"
