"""`[[pages]]`: web page loads (docs/scenarios.md "Pages"): the page model's draw, and a page
loaded end to end through the CLI's reader."""

import statistics

import tcplab

BASE = {
    "duration": "120s",
    "stop_when_done": True,
    "record": {"timeseries": False},
    "topology": {
        "kind": "point_to_point",
        "downlink": {"rate": "2Mbit/s", "delay": "50ms", "queue": "50pkts"},
        "uplink": {"rate": "400kbit/s", "delay": "50ms", "queue": "100pkts"},
    },
}


def _page(**kw):
    return dict(BASE, pages=[{"client": "client", "server": "server", "start": "1s", **kw}])


def test_the_httparchive_2012_model_is_the_cited_average_page():
    objs = tcplab.load(_page(model="httparchive-2012", seed=3)).to_dict()["pages"][0]["objects"]
    # 76 requests per page, the first the 34 kB HTML, 773 kB on average.
    assert len(objs) == 76 and objs[0] == 34_000 and min(objs) >= 100
    assert 0.5 * 9_853 < statistics.mean(objs[1:]) < 1.5 * 9_853
    again = tcplab.load(_page(model="httparchive-2012", seed=3)).to_dict()["pages"][0]["objects"]
    other = tcplab.load(_page(model="httparchive-2012", seed=4)).to_dict()["pages"][0]["objects"]
    assert again == objs and other != objs
    # Without a seed: the scenario's seed and the page's index.
    d = tcplab.load(dict(_page(model="httparchive-2012"), seed=5)).to_dict()["pages"][0]["objects"]
    assert d == tcplab.load(_page(model="httparchive-2012", seed=5 * 1_000_003)).to_dict()["pages"][0]["objects"]


def test_a_page_loads_and_its_connections_are_flows():
    r = tcplab.run(tcplab.load(_page(name="web", objects=["30kB"] + ["8kB"] * 12, connections=4, cc="cubic")))
    assert r.ok, r.summary["invariants"]
    pg = r.summary["pages"][0]
    assert (pg["objects"], pg["objects_done"], pg["connections_opened"]) == (13, 13, 4)
    assert pg["bytes"] == 30_000 + 12 * 8_000
    assert 0.3 < pg["load_time_s"] < 10
    assert [f["name"] for f in r.summary["flows"]] == ["web/0", "web/1", "web/2", "web/3"]
    assert sum(f["bytes_delivered"] for f in r.summary["flows"]) == pg["bytes"]
