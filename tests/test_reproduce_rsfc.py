"""`tcplab reproduce rsfc --quick --json`: the row contract of the RSFC reproduction (Xu, Leong,
Leong and Razeen, Figures 8-10, 12, 15, 16), verdict rows that follow from the measured rows,
and the issue's criteria on slow uplinks."""

import json
import statistics
from pathlib import Path

from conftest import ROW_FIELDS, ROW_OPTIONAL, cli

FIELDS = ROW_FIELDS
RATES = (30, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1200, 1600)
TRACES = ("umts", "evdo")
CASES = [f"up{k}k" for k in RATES] + list(TRACES)
SLOW = [f"up{k}k" for k in RATES if k < 400]


def _rows(tmp_path: Path, *args: str) -> list[dict]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    r = cli("reproduce", "rsfc", *args, "--json", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert "Receiver-Side Flow Control" in d["paper"]
    # Whether a row was covered by the recorded quick check is quick mode's alone.
    return [{k: v for k, v in row.items() if k not in ("unchecked", "indicative")} for row in d["rows"]]


def test_quick_reproduction_rows_and_verdicts(tmp_path: Path):
    rows = _rows(tmp_path, "--quick")
    for row in rows:
        assert FIELDS <= set(row) <= FIELDS | ROW_OPTIONAL, row
        assert isinstance(row["ours"], (int, float)), row
        # Every row that disagrees with the paper carries its own explanation (issue 17).
        if row.get("consistent") is False:
            assert row.get("note"), row
    by = {(x["experiment"], x["case"], x["variant"], x["metric"]): x["ours"] for x in rows}
    paper = {(x["experiment"], x["case"], x["variant"], x["metric"]): x["paper"] for x in rows}
    # The paper's statements are bounds where it states bounds ("greater than 6 s 50% of the
    # time", "lower than 400 kbps all the time") and values where it states a value.
    assert paper[("rtt-reduction", "slow-uplink", "cubic", "rtt_median_ms")] == {"min": 6000.0}
    assert paper[("rtt-reduction", "slow-uplink", "rsfc", "rtt_p90_ms")] == 1000.0
    assert paper[("concurrent", "slow-uplink", "d1", "download_mbps_max")] == {"max": 0.4}
    assert paper[("concurrent", "slow-uplink", "d2", "download_mbps_median")] == {"min": 0.4}
    assert paper[("concurrent", "slow-uplink", "d1", "share_at_most_20kbps")] == 0.3
    assert paper[("web", "slow-uplink", "rsfc", "share_within_60s")] == {"min": 0.9}

    # Fig. 8: per uplink rate, both receivers; the summary rows are medians over the sweep.
    rtt = {(v, c): by[("rtt-reduction", c, v, "rtt_median_ms")] for v in ("cubic", "rsfc") for c in CASES}
    thr = {(v, c): by[("rtt-reduction", c, v, "upload_mbps")] for v in ("cubic", "rsfc") for c in CASES}
    for v in ("cubic", "rsfc"):
        assert abs(by[("rtt-reduction", "all", v, "rtt_median_ms")] - statistics.median(rtt[(v, c)] for c in CASES)) < 1e-3
        assert abs(by[("rtt-reduction", "slow-uplink", v, "rtt_median_ms")] - statistics.median(rtt[(v, c)] for c in SLOW)) < 1e-3
    for k in RATES:
        # Nobody uploads faster than the link.
        c = f"up{k}k"
        assert 0 < thr[("cubic", c)] <= k / 1000 and 0 < thr[("rsfc", c)] <= k / 1000
    for c in TRACES:
        # The UMTS and EVDO uplink traces peak below 1.8 Mbit/s.
        assert 0 < thr[("rsfc", c)] < 1.8 and 0 < thr[("cubic", c)] < 1.8
    # The criteria, from the per-rate rows: on uplinks under 400 kbit/s RSFC's median
    # RTT is at most a third of CUBIC's with at least 90% of its throughput.
    assert max(rtt[("rsfc", c)] / rtt[("cubic", c)] for c in SLOW) <= 1 / 3
    assert min(thr[("rsfc", c)] / thr[("cubic", c)] for c in SLOW) >= 0.9
    assert by[("verdicts", "slow-uplink", "rtt-at-most-a-third", "holds")] == 1
    assert by[("verdicts", "slow-uplink", "throughput-at-least-90pct", "holds")] == 1

    # Figs. 9-10: the download behind the upload, d2 / d1 at least 2 on slow uplinks.
    ratios = [by[("concurrent", c, "d2-vs-d1", "download_ratio")]
              for c in CASES if by[("concurrent", c, "u0", "upload_mbps")] < 0.4]
    assert by[("concurrent", "slow-uplink", "d2-vs-d1", "download_ratio_median")] >= 2
    assert abs(by[("concurrent", "slow-uplink", "d2-vs-d1", "download_ratio_median")] - statistics.median(ratios)) < 1e-3 * max(ratios)
    assert by[("verdicts", "slow-uplink", "download-ratio-at-least-2", "holds")] == 1

    # Fig. 12: two RSFC uploads, Jain's index per rate in [0.5, 1].
    for c in CASES:
        assert 0.5 <= by[("fairness", c, "rsfc-rsfc", "jain")] <= 1 + 1e-9
    assert by[("verdicts", "slow-uplink", "rsfc-jain-at-least-0.9", "holds")] == (
        1 if by[("fairness", "slow-uplink", "rsfc-rsfc", "jain_median")] >= 0.9 else 0)

    # Figs. 15-16: every sender cc against both receivers.
    for cc in ("cubic", "newreno", "vegas", "westwood"):
        assert by[("compat", "all", f"{cc}/rsfc", "rtt_median_ms")] < 1000
        assert by[("compat", "all", f"{cc}/rsfc", "download_mbps")] > 0.4

    # Figs. 13-14: per-phase throughput under the link's rate; the verdicts follow from the rows.
    ph = {(v, c): by[("adaptation", c, v, "upload_mbps")]
          for v in ("rsfc", "rsfc-no-minima-updates", "cubic") for c in ("0-5s", "5-20s", "20-60s")}
    assert all(0 < x <= 1.0 for x in ph.values())
    assert by[("verdicts", "20-60s", "updates-keep-the-link-used", "holds")] == (
        1 if ph[("rsfc", "20-60s")] >= 0.9 * ph[("rsfc", "0-5s")] else 0)
    assert by[("verdicts", "20-60s", "no-updates-underuses-the-link", "holds")] == (
        1 if ph[("rsfc-no-minima-updates", "20-60s")] < 0.9 * ph[("rsfc-no-minima-updates", "0-5s")] else 0)
    assert by[("adaptation", "0-60s", "rsfc-no-minima-updates", "minima_updates")] == 0

    # Fig. 11: page loads; a page that did not load within the run reports the run's bound.
    notes = {(x["experiment"], x["case"], x["variant"], x["metric"]): x.get("note", "") for x in rows}
    for v in ("no-upload", "cubic", "rsfc"):
        for c in CASES:
            k = ("web", c, v, "page_load_median_s")
            # A measured time, or the run's bound with a note that says it is one.
            assert 0 < by[k] < bound_cap(by) or (by[k] == bound_cap(by) and "lower bound" in notes[k]), k
    for v in ("no-upload", "rsfc"):
        # Every page loaded within the run: the percentiles are measured, not bounds.
        for c in ("all", "slow-uplink"):
            assert 0 < by[("web", c, v, "page_load_p50_s")] <= by[("web", c, v, "page_load_p90_s")] < bound_cap(by)
    # The paper's web claims are ISP A's: tested on the slow uplinks.
    within30 = {v: by[("web", "slow-uplink", v, "share_within_30s")] for v in ("no-upload", "cubic", "rsfc")}
    assert by[("verdicts", "slow-uplink", "no-upload-90pct-within-30s", "holds")] == (1 if within30["no-upload"] >= 0.9 else 0)
    assert by[("verdicts", "slow-uplink", "rsfc-70pct-within-30s", "holds")] == (1 if within30["rsfc"] >= 0.7 else 0)
    assert by[("verdicts", "slow-uplink", "rsfc-90pct-within-1min", "holds")] == (
        1 if by[("web", "slow-uplink", "rsfc", "share_within_60s")] >= 0.9 else 0)
    assert by[("verdicts", "slow-uplink", "cubic-70pct-above-2min", "holds")] == (
        1 if by[("web", "slow-uplink", "cubic", "share_above_120s")] >= 0.7 else 0)
    # RSFC's pages load faster than behind a CUBIC upload on every uplink.
    for c in CASES:
        assert by[("web", c, "rsfc", "page_load_median_s")] < by[("web", c, "cubic", "page_load_median_s")], c

    # Every verdict is a computed 0 or 1; a failing one carries an explanation.
    for x in rows:
        if x["experiment"] == "verdicts":
            assert x["ours"] in (0, 1) and x["paper"] == 1
            assert x["ours"] == 1 or x.get("note"), x


def bound_cap(by: dict) -> float:
    """The longest a page can take and still load within the run (web.toml: 900 s, start 10 s)."""
    return 890.0


def test_quick_and_full_agree(tmp_path: Path):
    # Quick mode runs the full grid (about a second): the same rows, the same verdicts.
    assert _rows(tmp_path / "q", "--quick") == _rows(tmp_path / "f")
