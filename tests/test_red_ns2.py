"""RED against ns-2.35 (bench/red/README.md): the tcplab scenario bench/red/red-ns2.toml
against ns-2's Queue/RED in bench/red/red.tcl, each figure the mean over seeds 1..5. The ns-2
figures are stored in bench/red/ns2-reference.json (re-made by
`python bench/red/compare.py --ns2`), so these tests need no ns-2.

The average queue agrees within 10% (about +4.5%); the drop rate does not (about +20%): on
ns-2's own arrivals tcplab's RED drops within 2% of ns-2's rate and averages within 1%
(crates/tcplab-sim/tests/red_ns2_replay.rs), so the queue matches and the difference comes
from the TCP senders, which settle at a slightly higher average, and the drop probability
grows with (average - min_th): 4.6% more average near min_th is 21% more drops."""

import json
import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench" / "red"))
import compare  # noqa: E402

REF = json.loads((REPO / "bench" / "red" / "ns2-reference.json").read_text())


@pytest.fixture(scope="module")
def ours():
    return compare.tcplab_results(compare.VARIANTS, compare.SEEDS)


def within(ours, variant, metric, tol=0.10):
    a = REF["variants"][variant]["mean"][metric]
    b = ours["variants"][variant]["mean"][metric]
    assert abs(b - a) <= tol * a, f"{variant} {metric}: ns-2 {a:.5f}, tcplab {b:.5f} ({(b - a) / a:+.1%})"


@pytest.mark.parametrize("variant", compare.VARIANTS)
@pytest.mark.parametrize("metric", ["mean_ave_pkts", "mean_queue_sampled_pkts"])
def test_average_queue_within_ten_percent_of_ns2(ours, variant, metric):
    within(ours, variant, metric)


@pytest.mark.parametrize("variant", ["plain", "gentle"])
def test_drop_rate_within_ten_percent_of_ns2(ours, variant):
    # Under `profile = "ns2"` (issue 16): ns-2's Reno halves min(cwnd, rwnd), not FlightSize;
    # with RFC 5681's FlightSize / 2 (`ssthresh_rule = "flight_size"`) tcplab's drop rate
    # was +20 to +28% above ns-2's (bench/red/README.md).
    within(ours, variant, "drop_rate")


def test_with_ecn_the_drop_rate_is_within_ten_percent_of_ns2(ours):
    # ECN senders (tcp.ecn) and a marking queue (setbit_): early decisions mark, and what
    # is still dropped (forced drops, marks refused above mark_p) matches ns-2's rate.
    within(ours, "ecn", "drop_rate")
    us = ours["variants"]["ecn"]["runs"]
    assert all(r["marks"] > 2 * r["drops"] for r in us), [(r["marks"], r["drops"]) for r in us]


@pytest.mark.parametrize("variant", ["plain", "gentle"])
def test_drop_rate_follows_the_average_as_in_ns2(ours, variant):
    # Between the thresholds pb = max_p (ave - min_th) / (max_th - min_th): the ratio of the
    # drop rates follows the ratio of (ave - min_th) within 10% when the queues behave alike.
    ns, us = REF["variants"][variant]["mean"], ours["variants"][variant]["mean"]
    predicted = ns["drop_rate"] * (us["mean_ave_pkts"] - 5) / (ns["mean_ave_pkts"] - 5)
    assert abs(us["drop_rate"] - predicted) <= 0.10 * predicted, (us["drop_rate"], predicted)


def test_reference_is_what_red_tcl_wrote():
    for v in REF["variants"].values():
        for r in v["runs"]:
            # ave_ is traced when it changes: every arrival but those at ave = 0 at the start.
            assert r["arrivals"] - 10 <= r["ave_trace_records"] <= r["arrivals"]
            # Conservation at the queue: what is left at the end is at most the buffer.
            assert 0 <= r["arrivals"] - r["drops"] - r["departures"] <= 100


def test_runs_account_for_every_drop(ours):
    for name, v in ours["variants"].items():
        for r in v["runs"]:
            assert r["early_drops"] + r["forced_drops"] == r["drops"]
            # Only the ecn variant has ECT senders and a marking queue.
            assert (r["marks"] > 0) == (name == "ecn"), (name, r["marks"])
