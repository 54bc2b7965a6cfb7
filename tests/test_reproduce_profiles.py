"""`tcplab reproduce --profile` and `--beside` (issue 16, docs/profiles.md): the reproductions
keep the TCP rules they were validated with unless a stack profile is asked for, and can show
a second profile's numbers beside them."""

from pathlib import Path

import pytest

from conftest import cli
from tcplab.experiments import VALIDATED_RULES, Beside, Context, Figure, Report, Row


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


# ---- `--beside PROFILE`: one report, both runs ----------------------------------------------------

def _beside_reports() -> tuple[Report, Report]:
    """A primary run and a beside run of the same made-up paper: the beside run lists its rows
    in another order, flips one verdict and not the other, moves one number by 25% and one by
    5%, and each run has a row the other lacks."""
    primary = Report(paper="P", title="T", rows=[
        Row("verdicts", "a", "claim", "holds", "", 1.0, 1.0, verdict=True),
        Row("verdicts", "b", "claim", "holds", "", 0.0, 1.0, note="why b fails", verdict=True),
        Row("fig1", "c", "v", "goodput", "Mbit/s", 2.0, 2.1, note="why fig1 differs"),
        Row("fig1", "d", "v", "goodput", "Mbit/s", 4.0),
        Row("fig1", "only-primary", "v", "goodput", "Mbit/s", 3.0),
    ])
    other = Report(paper="P", title="T", profile="ns2", rows=[
        Row("fig1", "d", "v", "goodput", "Mbit/s", 4.2),
        Row("fig1", "c", "v", "goodput", "Mbit/s", 2.5, 2.1),
        Row("verdicts", "b", "claim", "holds", "", 0.0, 1.0, verdict=True),
        Row("verdicts", "a", "claim", "holds", "", 0.0, 1.0, verdict=True),
        Row("fig2", "only-beside", "v", "goodput", "Mbit/s", 7.0),
    ])
    primary.beside = Beside("ns2", Path("out/beside-ns2"), report=other)
    return primary, other


def test_beside_rows_are_matched_by_key_in_a_column_of_their_own(tmp_path: Path):
    rep, _ = _beside_reports()
    md = rep.markdown(Path("out"))
    # The profile alone is not any simulator's agent, and the column says so (issue 35).
    assert "| case | variant | metric | ours | ours (ns2 profile only) | paper | diff |" in md
    # Matched by key, not position; the diff and its note stay the primary run's.
    assert "| c | v | goodput (Mbit/s) | 2 | 2.5 | 2.1 ± 20% | -5% (tolerance without a reason) [1] |" in md
    assert "| d | v | goodput (Mbit/s) | 4 | 4.2 | — |  |" in md
    assert "| a | claim | holds () | 1 | 0 | 1 | +0% |" in md
    # A row one run lacks shows "—" there; the beside run's own experiment gets its table.
    assert "| only-primary | v | goodput (Mbit/s) | 3 | — | — |  |" in md
    assert "## fig2" in md and "| only-beside | v | goodput (Mbit/s) | — | 7 | — |  |" in md
    rows = {(r["experiment"], r["case"]): r for r in rep.to_json()["rows"]}
    assert rows[("fig1", "c")]["beside"] == {"profile": "ns2", "ours": 2.5}
    assert rows[("fig1", "only-primary")]["beside"] == {"profile": "ns2", "ours": None}
    assert rows[("fig2", "only-beside")]["ours"] is None and rows[("fig2", "only-beside")]["beside"]["ours"] == 7.0
    assert rows[("verdicts", "a")]["verdict"] is True and "verdict" not in rows[("fig1", "c")]
    assert rep.to_json()["beside_profile"] == "ns2" and "beside_refused" not in rep.to_json()


def test_the_section_on_top_lists_the_flipped_verdict_and_the_numbers_that_moved(tmp_path: Path):
    rep, _ = _beside_reports()
    md = rep.markdown(Path("out"))
    section = md[md.index("## Under profile `ns2`"):md.index("## verdicts")]
    assert "1 of 2 change under `ns2`" in section
    assert "`verdicts / a / claim / holds`: holds → does not hold" in section
    assert "`verdicts / b /" not in section  # did not flip
    # 2.0 -> 2.5 moved (+25%), 4.0 -> 4.2 (+5%) did not; the moved one is a number the paper states.
    assert "**All numbers**: 1 of 2 rows move by more than 10%" in section
    assert "| fig1 | c | v | goodput (Mbit/s) | 2 | 2.5 | +25% |" in section
    assert "**Numbers the paper states**: 1 of 1 move" in section
    assert "`fig1 / only-primary / v / goodput`: 3 → —" in section
    assert "`fig2 / only-beside / v / goodput`: — → 7" in section
    assert "[`beside-ns2/`](beside-ns2/report.md)" in section


def test_without_beside_the_json_and_the_report_are_as_before(tmp_path: Path):
    rep, _ = _beside_reports()
    rep.beside = None
    j = rep.to_json()
    assert list(j) == ["paper", "summary", "rows"]
    assert j["rows"][0] == {"experiment": "verdicts", "case": "a", "variant": "claim", "metric": "holds", "unit": "",
                            "ours": 1.0, "paper": 1.0, "consistent": True, "status": "consistent",
                            "tolerance": {"abs": 0.0}, "why": "a yes/no judgement of the claim"}
    md = rep.markdown(tmp_path)
    assert "Under profile" not in md and "| case | variant | metric | ours | paper | diff |" in md


class _TinyPaper:
    """A paper module without simulations: its rows are the TCP rules its scenario gets, so
    the two passes differ exactly as the profiles do."""

    PAPER = TITLE = "tiny"
    passes: list[tuple[str | None, Path, str | None]] = []

    @classmethod
    def reproduce(cls, ctx: Context) -> Report:
        cls.passes.append((ctx.profile, ctx.out, ctx.pass_name))
        t = _tcp(ctx, "darca", "remote-bottleneck")
        fig = ctx.out / "fig.png"
        fig.write_bytes(b"png")
        return Report(cls.PAPER, cls.TITLE, figures=[Figure(fig, "a figure")], rows=[
            Row("rules", "flow0", "tcp", "initial_rto", "s", t["initial_rto"] / 1e9),
            Row("verdicts", "ssthresh", "tcp", "from_flight_size", "", float(t["ssthresh_rule"] == "flight_size"), 1.0,
                verdict=True),
        ])


def test_both_passes_run_from_the_command_and_land_in_one_report(tmp_path: Path, monkeypatch, capsys):
    import json

    import tcplab.experiments as experiments
    from tcplab.cli import main

    monkeypatch.setattr(experiments, "registry", lambda: {"tiny": _TinyPaper})
    _TinyPaper.passes = []
    out = tmp_path / "o"
    assert main(["reproduce", "tiny", "--beside", "ns2", "--json", "--out", str(out), "--jobs", "1"]) == 0
    assert _TinyPaper.passes == [(None, out, "1/2 validated rules"), ("ns2", out / "beside-ns2", "2/2 ns2")]
    j = json.loads(capsys.readouterr().out)
    assert j["beside_profile"] == "ns2"
    assert [(r["ours"], r["beside"]["ours"]) for r in j["rows"]] == [(1.0, 3.0), (1.0, 0.0)]
    assert json.loads((out / "rows.json").read_text()) == j
    # The beside run's own report and figure sit in its folder; the report shows the primary's figure.
    assert json.loads((out / "beside-ns2" / "rows.json").read_text())["profile"] == "ns2"
    assert (out / "beside-ns2" / "fig.png").exists()
    md = (out / "report.md").read_text()
    assert "](fig.png)" in md and "`verdicts / ssthresh / tcp / from_flight_size`: holds → does not hold" in md
    # The same profile twice is a usage error.
    assert main(["reproduce", "tiny", "--profile", "ns2", "--beside", "ns2", "--out", str(out)]) == 2


class _NeedsTimestamps:
    """A paper module whose one run is RSFC's upload without the agent keys RSFC's own module
    gives the `ns2` pass (rsfc.BESIDE: timestamps on): the profile cannot express it."""

    PAPER = TITLE = "needs-timestamps"

    @classmethod
    def reproduce(cls, ctx: Context) -> Report:
        (r,) = ctx.run_all([ctx.scenario("rsfc", "upload", {"topology.uplink.rate": "1Mbit/s", "flows.0.bytes": "20KB"})])
        return Report(cls.PAPER, cls.TITLE, rows=[Row("runs", "a", "v", "goodput", "Mbit/s",
                                                      r.summary["flows"][0]["goodput_mbps"])])


def test_a_beside_pass_the_profile_cannot_run_is_refused_with_the_reason_and_the_primary_report_still_written(
        tmp_path: Path, monkeypatch, capsys):
    import json

    import tcplab.experiments as experiments
    from tcplab.cli import main

    monkeypatch.setattr(experiments, "registry", lambda: {"needs-timestamps": _NeedsTimestamps})
    out = tmp_path / "o"
    assert main(["reproduce", "needs-timestamps", "--beside", "ns2", "--json", "--out", str(out), "--jobs", "1"]) == 0
    reason = 'needs timestamps = true (profile "ns2" sets it false)'
    cap = capsys.readouterr()
    j = json.loads(cap.out)
    assert j["beside_profile"] == "ns2" and reason in j["beside_refused"]
    assert j["beside_refused"].startswith("scenarios/rsfc/")  # not where tcplab is installed
    assert j["rows"] and not any("beside" in row for row in j["rows"])
    md = (out / "report.md").read_text()
    assert "**Not run**: this reproduction cannot run under profile `ns2`" in md and reason in md
    assert "ours (ns2" not in md
    assert not (out / "beside-ns2").exists()
    assert reason in cap.err
