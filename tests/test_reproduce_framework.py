"""The reproduction framework: rows are the single source of the JSON and the report."""

import json
from pathlib import Path

from tcplab.experiments import Report, Row
from conftest import cli


def _report() -> Report:
    return Report(
        paper="A. Author, A paper, 2014",
        title="A paper",
        rows=[
            Row("table3", "scenario-1", "afc", "goodput_mbps", "Mbit/s", 1.9, 1.7),
            Row("table3", "scenario-2", "default", "goodput_mbps", "Mbit/s", 2.0, 1.45, note="ns-2 persists more slowly"),
            Row("fig6b", "10-flows", "afc", "jain", "", 0.97, None),
            Row("table3", "scenario-3", "afc", "goodput_mbps", "Mbit/s", 1.0, 3.0),
        ],
    )


def test_json_rows_have_the_issue_fields():
    j = _report().to_json()
    assert j["paper"] == "A. Author, A paper, 2014"
    assert set(j["rows"][0]) == {"experiment", "case", "variant", "metric", "unit", "ours", "paper"}
    assert j["rows"][2]["paper"] is None
    assert j["rows"][1]["note"] == "ns-2 persists more slowly"


def test_large_differences_need_an_explanation():
    bad = _report().unexplained()
    assert [(r.case, r.variant) for r in bad] == [("scenario-3", "afc")]


def test_markdown_carries_every_row_and_its_note(tmp_path: Path):
    rep = _report()
    md = rep.markdown(tmp_path)
    for r in rep.rows:
        assert f"| {r.case} | {r.variant} |" in md
    assert "[1] ns-2 persists more slowly" in md
    assert "+38% [1]" in md  # 2.0 vs 1.45
    written = rep.write(tmp_path)
    assert json.loads((tmp_path / "rows.json").read_text()) == rep.to_json()
    assert {p.name for p in written} == {"report.md", "rows.json"}


def test_unknown_paper_is_a_usage_error(tmp_path: Path):
    r = cli("reproduce", "no-such-paper", cwd=tmp_path)
    assert r.returncode == 2
    assert "unknown paper 'no-such-paper'" in r.stderr
