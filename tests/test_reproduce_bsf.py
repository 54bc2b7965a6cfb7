"""`tcplab reproduce bsf --quick --json`: the row contract of the BSF reproduction (Choi, Yoo
and Yoo, Figures 6-8), verdict rows that follow from the measured rows, and the verdict logic
on synthetic results (the verdicts are computed, not written in)."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROW_FIELDS, ROW_OPTIONAL, cli

FIELDS = ROW_FIELDS
SESSIONS = (5, 10, 15)
ERRORS = range(1, 11)
#: The simulated events `reproduce bsf --quick` may take: about three times its cost when this
#: bound was set (issue 35: a test bounds what the machine cannot move, never a CPU or wall
#: time; quick mode's 5,000 s per point was 127 s of CPU on a loaded machine, 65 s on another).
QUICK_EVENTS = 1_800_000_000


def test_quick_reproduction_rows_and_verdicts(tmp_path: Path):
    r = cli("reproduce", "bsf", "--quick", "--json", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["cost"]["runs"] > 0 and d["cost"]["events"] < QUICK_EVENTS, d["cost"]
    assert "Choi" in d["paper"] and "Buffer State" in d["paper"]
    rows = d["rows"]
    for row in rows:
        assert FIELDS <= set(row) <= FIELDS | ROW_OPTIONAL, row
        assert isinstance(row["ours"], (int, float)), row
        # Every row that disagrees with the paper carries its own explanation (issue 17).
        if row.get("consistent") is False:
            assert row.get("note"), row
    by = {(x["experiment"], x["case"], x["variant"], x["metric"]): x for x in rows}

    # Figures 6 and 7: eq. 6's total throughput for every case and variant, within what the
    # lossy 2 Mbit/s link can carry; no number of the paper's figures is invented.
    cases = [f"n{n}-err{e}" for n in SESSIONS for e in ERRORS]
    thr = {}
    for c in cases:
        for v in ("red", "bsf"):
            x = by[("throughput", c, v, "throughput_mbps")]
            assert x["unit"] == "Mbit/s" and x["paper"] is None
            e = int(c.split("err")[1])
            assert 0 < x["ours"] <= 2 * (1 - e / 100) * 1000 / 1040 + 1e-3, x
            thr[(c, v)] = x["ours"]
    assert {k[1] for k in by if k[0] == "throughput"} == set(cases)

    # Figure 8: the ratio BSF / RED-only of the same case; the paper's one stated number beside ours.
    ratio = {}
    for c in cases:
        x = by[("gain", c, "bsf-vs-red", "ratio")]
        assert x["ours"] == pytest.approx(thr[(c, "bsf")] / thr[(c, "red")], rel=2e-3, abs=2e-4), c
        assert x["paper"] == (2.5 if c == "n5-err8" else None), x
        ratio[c] = x["ours"]

    # The verdicts follow from the rows above.
    n5 = [ratio[f"n5-err{e}"] for e in range(3, 11)]
    above = by[("verdicts", "n5-err3-10", "bsf-above-red", "holds")]
    if not any(0 < abs(x - 1) < 1e-4 for x in n5):  # rounding could hide which side of 1
        assert above["ours"] == float(all(x > 1 for x in n5)), (above, n5)
    mean = {n: by[("verdicts", f"n{n}-err1-10", "bsf-vs-red", "mean_ratio")]["ours"] for n in SESSIONS}
    for n in SESSIONS:
        assert mean[n] == pytest.approx(sum(ratio[f"n{n}-err{e}"] for e in ERRORS) / 10, abs=1e-3)
    shrinks = by[("verdicts", "n5-n10-n15", "gain-shrinks-with-sessions", "holds")]
    if min(abs(mean[5] - mean[10]), abs(mean[10] - mean[15])) > 1e-3:
        assert shrinks["ours"] == float(mean[5] > mean[10] > mean[15]), (shrinks, mean)
    near = by[("verdicts", "n5-err8", "ratio-within-20pct-of-paper", "holds")]
    assert near["ours"] == float(abs(ratio["n5-err8"] / 2.5 - 1) <= 0.2)
    for v in (above, shrinks, near):
        assert v["paper"] == 1.0 and v["ours"] in (0.0, 1.0)
        if v["ours"] == 0.0:
            assert v.get("note"), v

    # The measurements the explanations cite are rows too.
    for c in cases:
        for m in ("below_flush_share", "zwas_per_1000s", "flushes_per_1000s"):
            assert by[("bsf-activity", c, "bsf", m)]["ours"] >= 0
        for v in ("red", "bsf"):
            assert by[("bsf-activity", c, v, "timeouts_per_1000s")]["ours"] >= 0
    for c in cases:
        assert by[("capacity-bound", c, "any-scheme-vs-red", "max_ratio")]["ours"] >= ratio[c] - 1e-3

    # The sensitivity grid (burst length and delays at N = 5): every set-up's throughputs, their
    # ratio, the bound on any scheme's ratio and BSF's counters; the scenario files' own set-up
    # is the main grid's run; the verdict follows from the grid's largest ratio at 8%.
    from tcplab.experiments import bsf

    assert set(bsf.SENS_BURSTS) >= {1, 3, 10} and (3, 8) == bsf.SENS_ERROR_PCT
    rtts = sorted(bsf.sens_rtt_ms(d) for d in bsf.SENS_DELAYS_MS)
    assert rtts[0] <= 20 and rtts[-1] >= 200, rtts
    sens = {}
    for e in bsf.SENS_ERROR_PCT:
        for b in bsf.SENS_BURSTS:
            for d in bsf.SENS_DELAYS_MS:
                c = f"n5-err{e}-burst{b}-rtt{bsf.sens_rtt_ms(d)}ms"
                red = by[("sensitivity", c, "red", "throughput_mbps")]["ours"]
                bs = by[("sensitivity", c, "bsf", "throughput_mbps")]["ours"]
                bound = 2 * (1 - e / 100) * 1000 / 1040
                assert 0 < red <= bound + 1e-3 and 0 < bs <= bound + 1e-3, (c, red, bs)
                x = by[("sensitivity", c, "bsf-vs-red", "ratio")]
                assert x["paper"] is None and x["ours"] == pytest.approx(bs / red, rel=2e-3, abs=2e-4), c
                assert by[("sensitivity", c, "any-scheme-vs-red", "max_ratio")]["ours"] == pytest.approx(
                    bound / red, rel=2e-3, abs=2e-4)
                assert by[("sensitivity", c, "any-scheme-vs-red", "max_ratio")]["ours"] >= x["ours"] - 1e-3
                for v, m in (("bsf", "zwas_per_1000s"), ("bsf", "below_flush_share"), ("bsf", "mean_queue_at_arrival_pkts"),
                             ("red", "timeouts_per_1000s"),
                             ("bsf", "timeouts_per_1000s"), ("red", "wireless_idle_share")):
                    assert by[("sensitivity", c, v, m)]["ours"] >= 0, (c, v, m)
                sens[(e, b, d)] = x["ours"]
        # The scenario files' set-up is the main grid's point, not a run of its own.
        assert sens[(e, 3, (10, 10))] == ratio[f"n5-err{e}"]
        mx = by[("sensitivity", f"n5-err{e}-all", "bsf-vs-red", "max_ratio")]
        assert mx["ours"] == max(v for k, v in sens.items() if k[0] == e)
        assert mx["paper"] == (2.5 if e == 8 else None)
    # The set-ups differ in their runs (the overrides took effect): not every ratio is the same.
    assert len({by[("sensitivity", f"n5-err8-burst{b}-rtt{bsf.sens_rtt_ms(d)}ms", "red", "throughput_mbps")]["ours"]
                for b in bsf.SENS_BURSTS for d in bsf.SENS_DELAYS_MS}) > 1
    anyset = by[("verdicts", "n5-err8-sensitivity", "any-setup-within-20pct-of-paper", "holds")]
    mx8 = by[("sensitivity", "n5-err8-all", "bsf-vs-red", "max_ratio")]["ours"]
    assert anyset["paper"] == 1.0 and anyset["ours"] == float(abs(mx8 / 2.5 - 1) <= 0.2)
    if anyset["ours"] == 0.0:
        assert anyset.get("note") and mx8 > 0, anyset

    out = tmp_path / "out"
    assert (out / "report.md").is_file() and (out / "rows.json").is_file() and (out / "bsf-fig6-8.png").is_file()
    assert (out / "bsf-sensitivity.png").is_file()
    assert "Quick mode" in (out / "report.md").read_text()


# ---------------------------------------------------------------- verdict logic on synthetic runs


def _summary(thr_mbps: float, dur: float = 1000.0, bsf: bool = False) -> dict:
    flows = [{"bytes_delivered": int(thr_mbps * 1e6 * dur / 8 / 5), "timeouts": 10, "zero_window_events": 0,
              "fast_retransmits": 3} for _ in range(5)]
    el = [{"detail": {"arrivals": 100, "below_flush": 5, "flushes": 2, "zwas_sent": 4}}] if bsf else []
    return {"duration_s": dur, "flows": flows, "elements": el,
            "links": [{"name": "wireless", "utilization": 0.9, "red": {"mean_ave": 4.0, "mean_curq": 6.0}}]}


class _FakeCtx:
    """A Context whose runs return throughputs from ``gain(n, e, variant)``."""

    def __init__(self, out: Path, gain):
        self.quick, self.out, self.seed, self.gain = True, out, None, gain

    def scenario(self, paper, name, overrides):
        return (int(name[1:]), overrides)

    def run_all(self, jobs, label=""):
        res = []
        for n, o in jobs:
            e = round(o["topology.links.0.loss"]["error_rate"] * 100)
            red = 1.5 - 0.1 * e
            v = "red" if o.get("elements") == [] else "bsf"
            thr = red if v == "red" else red * self.gain(n, e, o)
            res.append(SimpleNamespace(summary=_summary(thr, bsf=v == "bsf")))
        return res


@pytest.mark.parametrize("kind", ["paper-like", "no-gain"])
def test_verdicts_are_computed_from_the_runs(tmp_path: Path, kind: str):
    from tcplab.experiments import bsf

    if kind == "paper-like":
        def gain(n, e, o):  # BSF ahead, more so with fewer sessions; 2.5 at N = 5, 8%
            return 2.5 if (n, e) == (5, 8) else 1 + 0.5 * 5 / n

        expect = 1.0
    else:
        def gain(n, e, o):
            return 0.95

        expect = 0.0
    rep = bsf.reproduce(_FakeCtx(tmp_path, gain))
    # Every explanation the module writes for these runs takes its numbers from their rows.
    rep.resolve_notes()
    by = {(r.experiment, r.case, r.variant, r.metric): r for r in rep.rows}
    for key in (("verdicts", "n5-err3-10", "bsf-above-red", "holds"),
                ("verdicts", "n5-n10-n15", "gain-shrinks-with-sessions", "holds"),
                ("verdicts", "n5-err8", "ratio-within-20pct-of-paper", "holds"),
                ("verdicts", "n5-err8-sensitivity", "any-setup-within-20pct-of-paper", "holds")):
        assert by[key].ours == expect, (key, by[key])
    assert by[("gain", "n5-err8", "bsf-vs-red", "ratio")].ours == pytest.approx(2.5 if expect else 0.95)
    assert not rep.unexplained()


def test_scenario_files_hold_the_paper_set_up():
    import tcplab
    from tcplab import ScenarioError
    from tcplab.experiments import SCENARIOS

    for n in SESSIONS:
        sc = tcplab.load(SCENARIOS / "bsf" / f"n{n}.toml")
        c = sc.canonical
        assert c["duration"] == 200_000 * 10**9  # the paper's 200,000 s per point
        assert len(c["flows"]) == n
        (el,) = c["elements"]
        assert el["element"]["kind"] == "bsf" and el["element"]["total_buffer"] == 20
    # A larger buffer would leave BSF no FLUSH_thresh at N = 5 (eq. 4): refused, not run.
    with pytest.raises(ScenarioError, match="never act"):
        tcplab.load(SCENARIOS / "bsf" / "n5.toml", {"elements.0.total_buffer": "21pkts"})


def test_sensitivity_overrides_set_every_link():
    # A sensitivity set-up changes the burst of the wireless loss and the delay of every link
    # (both wireless directions, every wired one), and nothing else of the topology.
    import tcplab
    from tcplab.experiments import SCENARIOS, bsf

    base = tcplab.load(SCENARIOS / "bsf" / "n5.toml").canonical
    sc = tcplab.load(SCENARIOS / "bsf" / "n5.toml", bsf._sens_overrides("red", 8, 10, (90, 10), 100)).canonical
    links, links0 = sc["topology"]["links"], base["topology"]["links"]
    assert len(links) == len(links0) == 12
    for l, l0 in zip(links, links0):
        wireless = "mh" in (l["from"], l["to"])
        assert l["delay"] == (10 if wireless else 90) * 10**6, l
        assert {k: v for k, v in l.items() if k not in ("delay", "loss")} == \
            {k: v for k, v in l0.items() if k not in ("delay", "loss")}
    assert sc["elements"] == [] and base["elements"]
    # mean burst 10 at 8%: p_bad_to_good = 1/10 (docs/scenarios.md's mapping)
    assert links[0]["loss"]["p_bad_to_good"] == pytest.approx(0.1)
    assert links[0]["loss"]["p_good_to_bad"] == pytest.approx(0.08 / 0.92 / 10)
    assert bsf.sens_rtt_ms((90, 10)) == 200
