"""`tcplab reproduce rate-based --quick --json`: row structure and the thesis's qualitative
claims that the quick grid can show (chapters 5 and 6)."""

import json

from conftest import ROW_FIELDS, ROW_OPTIONAL, cli

FIELDS = ROW_FIELDS


def _rows(tmp_path):
    r = cli("reproduce", "rate-based", "--quick", "--json", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert "Leong" in j["paper"]
    rows = j["rows"]
    for row in rows:
        assert FIELDS <= set(row) <= FIELDS | ROW_OPTIONAL, row
    # A row that disagrees without a measured explanation is counted unexplained (issue 35),
    # not hidden behind a note that only quotes the thesis.
    return {(r["experiment"], r["case"], r["variant"], r["metric"]): r for r in rows}


def test_quick_reproduction_rows_and_claims(tmp_path):
    rows = _rows(tmp_path)
    get = lambda *k: rows[k]["ours"]  # noqa: E731

    # 5.2.4: RRE well ahead of CUBIC, Reno and Westwood+ behind a saturated uplink (thesis: 2-4x).
    for other in ("cubic", "newreno", "westwood", "vegas"):
        r = rows[("concurrent-upload", "all", f"rre-vs-{other}", "goodput_ratio_median")]
        assert r["unit"] == "" and r["ours"] >= 2.0, r
    # "between 2 to 4 times": a range, not its midpoint.
    assert rows[("concurrent-upload", "all", "rre-vs-cubic", "goodput_ratio_median")]["paper"] == {"min": 2.0, "max": 4.0}

    # 5.2.5: under normal conditions RRE is no worse than the window-based variants.
    assert get("fig5.7-normal", "all", "rre-vs-cubic", "goodput_ratio_median") >= 0.95

    # 5.2.7: RRE against itself is fair (thesis: "consistently above 0.95", a bound).
    assert get("fig5.10-friendliness", "all", "rre-vs-rre", "jain_min") > 0.95
    assert rows[("fig5.10-friendliness", "all", "rre-vs-rre", "jain_min")]["paper"] == {"min": 0.95}
    # 6.2.3: "at least 75%" is a bound; the rate-based senders fall below it, each with its
    # explanation.
    assert rows[("congested-uplink", "ATT-LTE-driving", "all", "degradation_min")]["paper"] == {"min": 0.75}

    # 6.2.2: on the traces, every algorithm has the three metrics per trace.
    cases = {k[1] for k in rows if k[0] == "traces"}
    assert {"Verizon-LTE-short", "TMobile-UMTS-driving"} <= cases
    for t in cases:
        for cc in ("cubic", "newreno", "vegas", "westwood", "rre", "proprate-high", "proprate-low", "sprout-rate", "sprout"):
            for m, unit in (("throughput_mbps", "Mbit/s"), ("owd_mean_ms", "ms"), ("owd_p95_ms", "ms")):
                r = rows[("traces", t, cc, m)]
                assert r["unit"] == unit and r["paper"] is None and r["ours"] > 0
        # PROTEUS-Rate (6.1.2) on every trace too; the quick runs (20 s) end before its 33 s of
        # training, so no row after training.
        for m in ("throughput_mbps", "owd_mean_ms", "owd_p95_ms"):
            assert rows[("traces", t, "proteus-rate", m)]["ours"] > 0
        assert ("traces", t, "proteus-rate", "throughput_mbps_after_training") not in rows
        cap = get("traces", t, "capacity", "throughput_mbps")
        # PropRate (Low): a 95th percentile delay several times below CUBIC's ...
        assert get("traces", t, "cubic", "owd_p95_ms") > 3 * get("traces", t, "proprate-low", "owd_p95_ms")
        # ... while PropRate (High) keeps most of the capacity.
        assert get("traces", t, "proprate-high", "throughput_mbps") > 0.6 * cap

    # Sprout (cc = "sprout") on the LTE trace of the quick grid: a 95th-percentile delay far
    # below CUBIC's (its paper's claim against multi-second queues) at a share of its
    # throughput; the target is the paper's ("less than 100 ms", a bound on the delay above
    # propagation).
    v = "Verizon-LTE-short"
    assert ("traces-sprout", "TMobile-UMTS-driving", "sprout", "owd_p95_minus_propagation_ms") not in rows
    r = rows[("traces-sprout", v, "sprout", "owd_p95_minus_propagation_ms")]
    assert r["paper"] == {"max": 100.0} and r["ours"] == round(get("traces", v, "sprout", "owd_p95_ms") - 20, 3)
    assert get("traces-sprout", v, "cubic-vs-sprout", "owd_p95_ratio") > 5
    share = get("traces-sprout", v, "sprout-vs-cubic", "throughput_ratio")
    # Near CUBIC's since window-limited ticks are lower bounds (1.07 in the 20 s quick run,
    # 0.85-0.98 over 90 s): a sizeable share is the check, not an upper bound.
    assert 0.2 < share < 1.5, share
    assert rows[("traces-claims", "all", "vegas-vs-sprout", "owd_p95_ratio_max")]["paper"] == {"max": 1.0}

    # The receive-window ablation: the explicit default buffer reproduces the traces rows, and
    # Linux's default tcp_rmem (87380 B) shortens CUBIC's delay on the outage trace as well.
    u = "TMobile-UMTS-driving"
    for cc in ("cubic", "proprate-high", "proprate-low", "rre"):
        for m in ("throughput_mbps", "owd_p95_ms"):
            assert get("outage-receive-window", f"{u},rcv_buf=4MiB", cc, m) == get("traces", u, cc, m)
    assert get("outage-receive-window", f"{u},rcv_buf=87380B", "cubic", "owd_p95_ms") < 0.5 * get("traces", u, "cubic", "owd_p95_ms")

    # 6.2.3: the rate-based senders are far more resilient to a congested uplink. CUBIC's ACKs
    # queue behind the upload and fire spurious timeouts, which F-RTO (tcp key frto, on by
    # default as in the thesis's Linux) undoes: about 1 Mbit/s in the quick run instead of
    # 0.16 without it, against 5.2 for PropRate (High).
    for cc in ("rre", "proprate-high"):
        assert get("congested-uplink", "ATT-LTE-driving", cc, "throughput_mbps") > 3 * get(
            "congested-uplink", "ATT-LTE-driving", "cubic", "throughput_mbps")

    # 6.2.5: cc = "proprate" with Table 6.1's parameters is the preset, run for run.
    assert sum(r["ours"] for k, r in rows.items() if k[0] == "fig6.8a-proprate-frontier" and k[3] == "on_frontier") >= 2
    for case, preset in (("T=60ms,kf=1.25,kd=0.75", "proprate-high"), ("T=20ms,kf=1.25,kd=0.25", "proprate-low")):
        for m in ("throughput_mbps", "owd_p95_ms"):
            ref = get("fig6.8a-proprate-frontier", "reference", preset, m)
            assert get("fig6.8a-proprate-frontier", case, "proprate", m) == ref
    # A smaller threshold: lower delay, lower throughput.
    assert get("fig6.8a-proprate-frontier", "T=10ms", "proprate", "owd_p95_ms_median") < get(
        "fig6.8a-proprate-frontier", "T=60ms", "proprate", "owd_p95_ms_median")
    assert get("fig6.8a-proprate-frontier", "T=10ms-vs-T=20ms", "proprate", "throughput_ratio_median") < 1
    # ... and RRE "was not possible to sufficiently drain the buffer to achieve low latencies".
    assert get("fig6.8d-rre-frontier", "all", "rre-vs-proprate", "min_owd_p95_ratio") > 1.5

    # 6.2.5 (Fig. 6.8(c)): Sprout-Rate over its percentile, T and k_drain. Its default point is
    # cc = "sprout-rate" itself; at PropRate's gains and thresholds it has the lower delay and the
    # lower throughput ("lower latencies than PropRate, but at a cost to the achieved throughput").
    fs = [k for k in rows if k[0] == "frontier-sprout" and k[2] == "sprout-rate" and k[3] == "on_frontier"]
    assert len(fs) >= 4 and sum(rows[k]["ours"] for k in fs) >= 1
    assert get("frontier-sprout", "same-gains", "sprout-rate-vs-proprate", "owd_p95_ratio_median") < 1
    assert get("frontier-sprout", "same-gains", "sprout-rate-vs-proprate", "throughput_ratio_median") < 1
    # Sprout itself over its confidence parameter (the thesis ran the original the same way).
    for pct in ("5", "25"):
        assert get("frontier-sprout", f"percentile={pct}", "sprout", "throughput_mbps") > 0
    assert 0 < get("frontier-sprout", "all", "sprout", "fraction_on_own_frontier") <= 1
    # A lower threshold lowers Sprout-Rate's delay, as it does PropRate's.
    assert get("frontier-sprout", "percentile=5,T=20ms,kd=0.5", "sprout-rate", "owd_p95_ms") < get(
        "frontier-sprout", "percentile=5,T=50ms,kd=0.5", "sprout-rate", "owd_p95_ms")

    # 6.2.6 (Figure 6.9): "CUBIC is in fact not very fair when contending with another CUBIC flow
    # and ... PropRate is relatively friendly to itself"; behind an earlier CUBIC flow "PropRate
    # still achieves slightly higher throughputs than Sprout and Vegas".
    t9 = lambda v, m: get("fig6.9-trace-friendliness", "Verizon-LTE-short", v, m)  # noqa: E731
    assert t9("proprate-high-then-proprate-high", "jain") > 0.95
    assert t9("cubic-then-cubic", "jain") < t9("proprate-high-then-proprate-high", "jain")
    assert t9("cubic-then-proprate-high", "y_throughput_mbps") > t9("cubic-then-vegas", "y_throughput_mbps")

    # Issue 13 (beyond the thesis): proprate-target at 50/100/200 ms against the measured
    # fixed-parameter frontier, per trace of the quick grid, both over the same starts.
    dt = "delay-target"
    starts = (0, 1, 2)
    assert get(dt, "all", "targets", "starts") == len(starts)
    for t in ("ATT-LTE-driving", "Verizon-LTE-short"):
        pts = [(rows[(f"{dt}-frontier", k[1], "proprate", "owd_p95_ms")]["ours"], r["ours"],
                rows[(f"{dt}-frontier", k[1], "proprate", "on_frontier")]["ours"]) for k, r in rows.items()
               if k[0] == f"{dt}-frontier" and k[1].startswith(f"{t}:") and k[3] == "throughput_mbps"]
        assert len(pts) == 12 and get(f"{dt}-frontier", t, "proprate", "min_owd_p95_ms") == min(d for d, _, _ in pts)
        front = [(d, x) for d, x, on in pts if on == 1.0]
        # The frontier: no point beats a frontier point on both delay and throughput.
        assert front and not any(d2 <= d and x2 >= x and (d2, x2) != (d, x) for d, x in front for d2, x2, _ in pts)
        for g in (50, 100, 200):
            v = f"target-{g}ms"
            p95 = rows[(dt, t, v, "owd_p95_ms")]
            assert p95["unit"] == "ms" and p95["ours"] > 0 and p95["paper"] == {"min": 0.75 * g, "max": 1.25 * g}
            # The controller's p95 is the median of its per-start p95s, its throughput their mean.
            per = [get(f"{dt}-starts", t, v, f"owd_p95_ms_start_{s}s") for s in starts]
            assert abs(p95["ours"] - sorted(per)[1]) < 0.01
            xs = [get(f"{dt}-starts", t, v, f"throughput_mbps_start_{s}s") for s in starts]
            assert abs(get(dt, t, v, "throughput_mbps") - sum(xs) / 3) < 1e-3
            # The frontier at the target: the best frontier throughput with p95 <= target.
            reach = [x for d, x in front if d <= g]
            best = rows[(dt, t, v, "frontier_throughput_mbps")]
            if reach:
                assert best["ours"] == max(reach)
                assert rows[(dt, t, v, "throughput_over_frontier")]["paper"] == {"min": 0.9}
                both = get(dt, t, v, "throughput_over_frontier") >= 0.9 and 0.75 * g <= p95["ours"] <= 1.25 * g
                assert get(dt, t, v, "meets_both") == float(both)
            else:
                assert best["ours"] is None and best["note"]
                assert (dt, t, v, "meets_both") not in rows
            # One start alone: its own frontier and verdict.
            for s in starts:
                fb = rows[(f"{dt}-starts", t, v, f"frontier_throughput_mbps_start_{s}s")]["ours"]
                key = (f"{dt}-starts", t, v, f"meets_both_start_{s}s")
                if fb is None:
                    assert key not in rows
                else:
                    ok = xs[s] / fb >= 0.9 and 0.75 * g <= per[s] <= 1.25 * g
                    assert rows[key]["ours"] == float(ok)
    for s in starts:
        assert get(f"{dt}-starts", "all", "targets", f"pairs_meeting_both_start_{s}s") == sum(
            r["ours"] for k, r in rows.items() if k[0] == f"{dt}-starts" and k[3] == f"meets_both_start_{s}s")
    # The held-out segments are a full-run check only.
    assert not any(k[0] == f"{dt}-heldout" for k in rows)
    counted = sum(1 for k, r in rows.items() if k[0] == dt and k[3] == "frontier_throughput_mbps" and r["ours"] is not None)
    assert get(dt, "all", "targets", "pairs_counted") == counted >= 1
    assert get(dt, "all", "targets", "pairs_meeting_both") == sum(
        r["ours"] for k, r in rows.items() if k[0] == dt and k[3] == "meets_both")
    # The controller acts on its target: on the trace standing in for ISP C, a lower target
    # gives a lower delay and a lower throughput (a key that did not reach the sender, or a
    # controller that never moved, would give three equal runs).
    a = "ATT-LTE-driving"
    assert get(dt, a, "target-50ms", "owd_p95_ms") < get(dt, a, "target-100ms", "owd_p95_ms") < get(dt, a, "target-200ms", "owd_p95_ms")
    assert get(dt, a, "target-50ms", "throughput_mbps") < get(dt, a, "target-200ms", "throughput_mbps")
    # Sprout's pairs of Figure 6.9: against itself and against CUBIC, both orders.
    for pair in ("sprout-then-sprout", "sprout-then-cubic", "cubic-then-sprout"):
        assert t9(pair, "x_throughput_mbps") > 0 and t9(pair, "y_throughput_mbps") > 0, pair
    for m in ("share_when_first_median", "share_when_second_median"):
        assert 0 < get("fig6.9-trace-friendliness", "all", "sprout-vs-cubic", m) < 1

    # Some rows disagree with the thesis.
    assert any(r.get("consistent") is False for r in rows.values())

    # Figure 6.8(b), PROTEUS-Rate (6.1.2, 6.2.5).
    _check_proteus_frontier(rows)


def _check_proteus_frontier(rows):
    """Figure 6.8(b): PROTEUS-Rate's points over window and threshold, the reference
    algorithms, and the thesis's two statements as rows computed from the points (from the
    one quick run of the test above)."""
    e = "frontier-proteus"
    cases = sorted({k[1] for k in rows if k[0] == e and k[2] == "proteus-rate" and k[3] == "on_frontier"})
    assert cases == sorted(f"W={w}ms,H=64,T={t}ms,kd=0.25" for w in (100, 250) for t in (20, 50))
    front = [rows[(e, c, "proteus-rate", "on_frontier")]["ours"] for c in cases]
    assert set(front) <= {0.0, 1.0} and sum(front) >= 1
    for c in cases:
        assert rows[(e, c, "proteus-rate", "throughput_mbps")]["ours"] > 0
        assert rows[(e, c, "proteus-rate", "owd_p95_ms")]["ours"] > 0
    for cc in ("cubic", "vegas", "proprate-high", "proprate-low", "rre"):
        assert rows[(e, "reference", cc, "throughput_mbps")]["ours"] > 0
    # The claims are ratios of this run's points, each with the thesis's words as its note.
    pts = [(rows[(e, c, "proteus-rate", "owd_p95_ms")]["ours"], rows[(e, c, "proteus-rate", "throughput_mbps")]["ours"]) for c in cases]
    lo = min(rows[(e, "reference", cc, "owd_p95_ms")]["ours"] for cc in ("proprate-high", "proprate-low"))
    r = rows[(e, "all", "proteus-vs-proprate", "min_owd_p95_ratio")]
    assert abs(r["ours"] - min(d for d, _ in pts) / lo) < 1e-2 * r["ours"] and "somewhat lower latencies" in r["note"]
    r = rows[(e, "W=100ms-vs-W=250ms", "proteus-rate", "throughput_ratio_median")]
    assert r["ours"] > 0 and "shorter time windows" in r["note"]
