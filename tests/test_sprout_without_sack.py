"""Sprout (`cc = "sprout"`, rate::sprout) without SACK over a cellular trace with an outage
(issue 13): the receiver's reply to a heartbeat must not count as a duplicate ACK. It did,
and RFC 3042 limited transmit, added to Sprout's window (TCP's pipe plus what the forecast
allows), then sent the whole send buffer into the 1 MB drop-tail queue on the first one: on
ATT-LTE-driving, 300 retransmissions, 0.38 Mbit/s and a 1.1 s p95 one-way delay instead of
SACK's 4.2 Mbit/s and 89 ms. Without SACK, Sprout must now do about what it does with it."""

import pytest

import tcplab
from conftest import REPO

SCENARIO = REPO / "scenarios" / "rate-based" / "trace.toml"


def _run(trace: str, sack: bool) -> dict:
    path = f"../../traces/cellular/{trace}"
    res = tcplab.run(tcplab.load(SCENARIO, {
        "flows.0.cc": "sprout",
        "duration": "30s",
        "topology.downlink.trace": f"{path}.down",
        "topology.uplink.trace": f"{path}.up",
        "flows.0.tcp.sack": sack,
    }))
    assert res.summary["invariants"]["ok"], res.summary["invariants"]
    return res.summary["flows"][0]


# Both traces have an outage of about a second in their first 30 s (ATT-LTE-driving at 24.4 s,
# TMobile-UMTS-driving at 16.7 s) and heartbeats answered while data was outstanding.
@pytest.mark.parametrize("trace", ["ATT-LTE-driving", "TMobile-UMTS-driving"])
def test_sprout_without_sack_does_what_it_does_with_sack(trace):
    with_sack, without = _run(trace, True), _run(trace, False)
    case = (trace, with_sack, without)
    # No spurious fast retransmit: none more than with SACK (whose duplicate ACKs must newly
    # SACK data, so that a heartbeat's reply never is one).
    assert without["fast_retransmits"] <= with_sack["fast_retransmits"], case
    # No burst: a few retransmissions (the timeouts' at the outage), not hundreds.
    assert without["retransmits"] <= with_sack["retransmits"] + 2 * without["timeouts"] + 5, case
    assert without["goodput_mbps"] == pytest.approx(with_sack["goodput_mbps"], rel=0.02), case
    assert without["owd_ms"]["p95"] < 1.2 * with_sack["owd_ms"]["p95"], case
