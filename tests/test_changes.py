"""Changes during a run through the public API: a link's `rate_changes` and a flow's `pauses`
(docs/scenarios.md), the two events of the DARCA paper's Fig. 7 experiment."""

import json

import pytest

import tcplab
from conftest import EXAMPLES

MS = 1_000_000
S = 1_000_000_000

P2P = {
    "duration": "12s",
    "topology": {
        "kind": "point_to_point",
        "downlink": {"rate": "10Mbit/s", "delay": "20ms", "queue": "50pkts"},
        "uplink": {"rate": "10Mbit/s", "delay": "20ms"},
    },
    "flows": [{"name": "f", "tcp": {"snd_buf": "256KiB"}}],
}


def load(overrides=None):
    return tcplab.load(json.loads(json.dumps(P2P)), overrides)


def delivered(res, t_s: float) -> float:
    """Bytes flow f's application had read by the sample at `t_s`."""
    df = res.timeseries
    d = df[(df["name"] == "f") & (df["metric"] == "delivered_bytes")]
    row = d[(d["time_s"] - t_s).abs() < 1e-9]
    assert len(row) == 1, t_s
    return float(row["value"].iloc[0])


def goodput_mbps(res, a: float, b: float) -> float:
    return (delivered(res, b) - delivered(res, a)) * 8 / (b - a) / 1e6


# -- the canonical form -------------------------------------------------------------------


def test_mapping_to_the_canonical_scenario():
    sc = load({
        "topology.downlink.rate_changes": [{"at": "100s", "rate": "100kbit/s"}, {"at": "400s", "rate": "250kbit/s"}],
        "flows.0.pauses": [{"at": "200s", "until": "300s"}],
    })
    c = sc.canonical
    assert c["topology"]["downlink"]["rate_changes"] == [{"at": 100 * S, "bps": 100_000}, {"at": 400 * S, "bps": 250_000}]
    assert c["flows"][0]["pauses"] == [{"at": 200 * S, "until": 300 * S}]
    # The Rust side takes them back unchanged.
    assert json.loads(tcplab._tcplab.check_scenario_json(sc.to_canonical_json())) == c


def test_scenarios_without_them_keep_their_canonical_json():
    # Empty lists are left out of the canonical JSON, so it reads as before the keys existed.
    c = tcplab.load(EXAMPLES / "p2p-bulk.toml").canonical
    assert "rate_changes" not in c["topology"]["downlink"]
    assert "pauses" not in c["flows"][0]
    assert "rate_changes" not in load({"topology.downlink.rate_changes": []}).canonical["topology"]["downlink"]


def test_count_copies_share_the_pauses():
    sc = load({"flows.0.count": 3, "flows.0.start_spacing": "1s", "flows.0.pauses": [{"at": "5s", "until": "6s"}]})
    assert [f["pauses"] for f in sc.canonical["flows"]] == [[{"at": 5 * S, "until": 6 * S}]] * 3


# -- errors name the key --------------------------------------------------------------------


TRACE = str(EXAMPLES.parent.parent / "python" / "tcplab" / "traces" / "cellular" / "Verizon-LTE-short.down")


def _on_trace(doc):
    dl = doc["topology"]["downlink"]
    del dl["rate"]
    dl["trace"] = TRACE
    dl["rate_changes"] = [{"at": "2s", "rate": "1Mbit/s"}]


def _set(path, value):
    def edit(doc):
        *keys, last = path.split(".")
        node = doc
        for k in keys:
            node = node[int(k)] if k.isdigit() else node[k]
        node[last] = value

    return edit


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            _set("topology.downlink.rate_changes", [{"at": "2s", "rate": "1Mbit/s"}, {"at": "1s", "rate": "2Mbit/s"}]),
            "topology.downlink.rate_changes[1].at: rate changes must be in increasing time order",
        ),
        (
            _set("topology.downlink.rate_changes", [{"at": "2s", "rate": "0bit/s"}]),
            'topology.downlink.rate_changes[0].rate: expected a rate like "10Mbit/s", got "0bit/s": must be greater than zero',
        ),
        (
            _set("topology.downlink.rate_changes", [{"at": "2s", "delay": "1ms"}]),
            "topology.downlink.rate_changes[0].delay: unknown key; valid keys here: at, rate",
        ),
        (
            _set("topology.downlink.rate_changes", "1Mbit/s"),
            'topology.downlink.rate_changes: expected an array of tables, e.g. [{ at = "100s", rate = "100kbit/s" }]',
        ),
        (
            _on_trace,
            'topology.downlink.rate_changes: only a fixed-rate link (rate = "10Mbit/s") can change its rate; this link has a trace',
        ),
        (
            _set("flows.0.pauses", [{"at": "2s", "until": "2s"}]),
            "flows[0].pauses[0].until: must be after at: the pause would end at 2 s, not after it begins at 2 s",
        ),
        (
            _set("flows.0.pauses", [{"at": "2s", "until": "4s"}, {"at": "1s", "until": "5s"}]),
            "flows[0].pauses[1].at: pauses must be in increasing time order and must not overlap "
            "(this one begins at 1 s, before the previous one ends at 4 s)",
        ),
        (
            lambda d: d["flows"][0].update(start="3s", pauses=[{"at": "2s", "until": "4s"}]),
            "flows[0].pauses[0].at: flow f starts at 3 s, after this pause begins at 2 s (a pause must not begin before the flow starts)",
        ),
        (
            _set("flows.0.pauses", [{"at": "2s"}]),
            "flows[0].pauses[0].until: missing (required)",
        ),
    ],
)
def test_bad_values_name_the_key(edit, message):
    doc = json.loads(json.dumps(P2P))
    edit(doc)
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.load(doc)
    assert str(e.value) == "<dict>: " + message


def test_pages_take_no_pauses():
    doc = json.loads(json.dumps(P2P))
    del doc["flows"]
    doc["pages"] = [{"client": "client", "server": "server", "objects": ["10kB"], "pauses": [{"at": "1s", "until": "2s"}]}]
    with pytest.raises(tcplab.ScenarioError, match=r"pages\[0\].pauses: unknown key"):
        tcplab.load(doc)


# -- runs -------------------------------------------------------------------------------------


def test_a_rate_drop_halfway_sets_goodput_and_capacity():
    res = tcplab.run(load({"topology.downlink.rate_changes": [{"at": "5s", "rate": "1Mbit/s"}]}))
    assert res.ok
    payload = 1448 / 1500
    assert goodput_mbps(res, 2, 5) == pytest.approx(10 * payload, rel=0.03)
    assert goodput_mbps(res, 7, 12) == pytest.approx(1 * payload, rel=0.03)
    link = res.summary["links"][0]
    assert link["capacity_mbps"] == pytest.approx((5 * 10 + 7 * 1) / 12)
    assert 0.85 < link["utilization"] <= 1.0


def test_a_paused_flow_stops_writing_and_resumes():
    res = tcplab.run(load({"flows.0.pauses": [{"at": "4s", "until": "8s"}]}))
    assert res.ok
    payload = 1448 / 1500
    assert goodput_mbps(res, 1, 4) == pytest.approx(10 * payload, rel=0.03)
    # The 256 KiB send buffer and the window in flight drain within half a second; then
    # nothing until 8 s, and the same connection carries on at the link's rate.
    assert delivered(res, 4.5) == delivered(res, 8.0)
    assert goodput_mbps(res, 9, 12) == pytest.approx(10 * payload, rel=0.03)
    f = res.summary["flows"][0]
    assert f["timeouts"] == 0 and f["completion_s"] is None
