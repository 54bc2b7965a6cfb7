"""TOML -> canonical scenario mapping (the contract with tcplab_sim::config::Scenario)."""

import json
from pathlib import Path

import pytest

import tcplab
from tcplab import _tcplab
from conftest import EXAMPLES

MS = 1_000_000
S = 1_000_000_000

P2P = {
    "duration": "10s",
    "topology": {
        "kind": "point_to_point",
        "downlink": {"rate": "10Mbit/s", "delay": "20ms", "queue": "100pkts"},
        "uplink": {"rate": "10Mbit/s", "delay": "20ms"},
    },
    "flows": [{"name": "f"}],
}


def load(d=None, **kw):
    doc = json.loads(json.dumps(d or P2P))
    return tcplab.load(doc, **kw)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_examples_validate_and_meet_the_rust_contract(path: Path):
    sc = tcplab.load(path)
    # The Rust side accepts the canonical JSON and adds nothing to it (it is fully explicit).
    again = json.loads(_tcplab.check_scenario_json(sc.to_canonical_json()))
    assert again == sc.canonical
    assert sc.name == path.stem


def test_point_to_point_mapping():
    sc = load()
    c = sc.canonical
    assert c["duration"] == 10 * S and c["seed"] == 0 and c["name"] == "scenario"
    dl = c["topology"]["downlink"]
    assert dl["rate"] == {"kind": "fixed", "bps": 10_000_000}
    assert dl["delay"] == 20 * MS
    assert dl["queue"] == {"discipline": "drop_tail", "limit_packets": 100, "limit_bytes": None}
    assert dl["loss"] == {"kind": "none"}
    f = c["flows"][0]
    assert (f["src"], f["dst"], f["start"], f["stop"], f["bytes"]) == ("server", "client", 0, None, None)
    assert f["tcp"]["mss"] == 1448 and f["tcp"]["cc"] == "newreno"  # Rust defaults filled in
    assert f["read"] == {"kind": "unlimited"}
    assert sc.links == ["downlink", "uplink"]


def test_link_forms():
    d = json.loads(json.dumps(P2P))
    d["topology"]["downlink"] = {
        "rate": ["3Mbit/s", "0Mbit/s", "15Mbit/s"],
        "slot": "530ms",
        "queue": {"limit": "150KB", "discipline": "drop_head"},
        "loss": {"kind": "gilbert_elliott", "p_good_to_bad": 0.01, "p_bad_to_good": 0.5},
        "header_bytes": 2,
    }
    d["topology"]["uplink"]["queue"] = "unlimited"
    d["topology"]["uplink"]["loss"] = {"kind": "bernoulli", "p": 0}
    c = load(d).canonical["topology"]
    dl = c["downlink"]
    assert dl["rate"] == {"kind": "schedule", "rates_bps": [3_000_000, 0, 15_000_000], "slot": 530 * MS}
    assert dl["queue"] == {"discipline": "drop_head", "limit_packets": None, "limit_bytes": 150_000}
    assert dl["loss"] == {"kind": "gilbert_elliott", "p_good_to_bad": 0.01, "p_bad_to_good": 0.5, "loss_good": 0.0, "loss_bad": 1.0}
    assert dl["header_bytes"] == 2 and dl["delay"] == 0
    assert c["uplink"]["queue"] == {"discipline": "drop_tail", "limit_packets": None, "limit_bytes": None}
    assert c["uplink"]["loss"] == {"kind": "bernoulli", "p": 0.0}


def test_trace_path_is_relative_to_the_scenario_file(tmp_path: Path):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "x.down").write_text("0\n1\n1\n5\n")
    sub = tmp_path / "scen"
    sub.mkdir()
    (sub / "s.toml").write_text(
        'duration = "1s"\n[topology]\nkind = "point_to_point"\n'
        '[topology.downlink]\ntrace = "../traces/x.down"\nopportunity = "1500B"\n'
        '[topology.uplink]\nrate = "1Mbit/s"\n[[flows]]\n'
    )
    sc = tcplab.load(sub / "s.toml")
    assert sc.canonical["topology"]["downlink"]["rate"] == {
        "kind": "trace",
        "path": str((tmp_path / "traces" / "x.down").resolve()),
        "opportunity_bytes": 1500,
    }


def test_dumbbell_count_expansion_and_pairs():
    d = {
        "duration": "10s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 5,
            **{k: {"rate": "10Mbit/s"} for k in ("bottleneck", "bottleneck_rev", "sender_access", "receiver_access")},
        },
        "flows": [
            {"name": "c", "count": 3, "start": "1s", "start_spacing": "500ms", "cc": "cubic"},
            {"name": "n"},
            {"name": "x", "pair": 4, "stop": "9s"},
        ],
    }
    sc = load(d)
    fl = sc.canonical["flows"]
    assert [(f["name"], f["src"], f["dst"], f["start"]) for f in fl] == [
        ("c0", "s0", "r0", 1 * S),
        ("c1", "s1", "r1", 1500 * MS),
        ("c2", "s2", "r2", 2 * S),
        ("n", "s3", "r3", 0),
        ("x", "s4", "r4", 0),
    ]
    assert [f["tcp"]["cc"] for f in fl] == ["cubic"] * 3 + ["newreno"] * 2
    assert fl[4]["stop"] == 9 * S
    assert "s4->left" in sc.links and "right->r4" in sc.links and "bottleneck_rev" in sc.links
    assert len(sc.links) == 2 + 4 * 5


def test_custom_topology():
    d = {
        "duration": "1s",
        "topology": {
            "kind": "custom",
            "nodes": ["a", "m", "b"],
            "links": [
                {"from": "a", "to": "m", "rate": "10Mbit/s"},
                {"from": "m", "to": "b", "rate": "5Mbit/s", "delay": "10ms"},
                {"name": "back", "from": "b", "to": "a", "rate": "5Mbit/s"},
            ],
        },
        "flows": [{"src": "a", "dst": "b"}],
    }
    sc = load(d)
    links = sc.canonical["topology"]["links"]
    assert [(l["name"], l["from"], l["to"]) for l in links] == [("a->m", "a", "m"), ("m->b", "m", "b"), ("back", "b", "a")]
    assert links[1]["rate"] == {"kind": "fixed", "bps": 5_000_000} and links[1]["delay"] == 10 * MS


def test_tcp_defaults_flow_overrides_and_receiver():
    d = json.loads(json.dumps(P2P))
    d["defaults"] = {"tcp": {"cc": "cubic", "rcv_buf": "1MiB", "min_rto": "1s", "sack": False}, "read": "6Mbit/s"}
    d["flows"] = [
        {"name": "a", "tcp": {"mss": "1460B", "initial_cwnd_pkts": 4}, "receiver_tcp": {"rcv_buf": "64KiB"}},
        {"name": "b", "fc": "classic", "read": {"pattern": ["0Mbit/s", "6Mbit/s"], "slot": "530ms", "tick": "2ms"}, "bytes": "2MB"},
    ]
    a, b = load(d).canonical["flows"]
    assert a["tcp"]["cc"] == "cubic" and a["tcp"]["rcv_buf_bytes"] == 1 << 20 and a["tcp"]["min_rto"] == S
    assert a["tcp"]["mss"] == 1460 and a["tcp"]["initial_cwnd_pkts"] == 4 and a["tcp"]["sack"] is False
    # The receiver is the sender's configuration with the receiver_tcp keys on top.
    assert a["receiver_tcp"]["rcv_buf_bytes"] == 65536 and a["receiver_tcp"]["mss"] == 1460 and a["receiver_tcp"]["cc"] == "cubic"
    assert a["read"] == {"kind": "constant", "bps": 6_000_000, "tick": MS, "blocking": False}
    assert b["receiver_tcp"] is None and b["bytes"] == 2_000_000
    assert b["read"] == {"kind": "pattern", "rates_bps": [0, 6_000_000], "slot": 530 * MS, "tick": 2 * MS, "blocking": False,
                         "phase": 0}


def test_record_and_pcap():
    d = json.loads(json.dumps(P2P))
    d["record"] = {"interval": "10ms", "exact_percentiles": True, "pcap": ["downlink", {"link": "uplink", "snaplen": 96}]}
    r = load(d).canonical["record"]
    assert r == {
        "interval": 10 * MS,
        "timeseries": True,
        "exact_percentiles": True,
        "pcap": [
            {"link": "downlink", "path": "downlink.pcap", "snaplen": 0},
            {"link": "uplink", "path": "uplink.pcap", "snaplen": 96},
        ],
    }


def test_pcap_file_names_are_safe():
    from tcplab.scenario import _pcap_file_name

    assert _pcap_file_name("s0->left") == "s0-to-left.pcap"
    assert _pcap_file_name("a b/c") == "a_b_c.pcap"


# -- overrides ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, key, value",
    [
        ("topology.downlink.rate=5Mbit/s", "topology.downlink.rate", "5Mbit/s"),
        ("flows.0.cc=cubic", "flows.0.cc", "cubic"),
        ("seed=3", "seed", 3),
        ("flows.0.tcp.sack=false", "flows.0.tcp.sack", False),
        ('topology.downlink.rate=["1Mbit/s", "2Mbit/s"]', "topology.downlink.rate", ["1Mbit/s", "2Mbit/s"]),
        ('name="a b"', "name", "a b"),
        ("loss.p = 0.5", "loss.p", 0.5),
    ],
)
def test_parse_override(text, key, value):
    assert tcplab.parse_override(text) == (key, value)


def test_overrides_apply_and_change_the_hash():
    base = load()
    sc = base.with_overrides(["topology.downlink.rate=5Mbit/s", "flows.0.cc=cubic", "flows.0.tcp.sack=false"])
    assert sc.canonical["topology"]["downlink"]["rate"]["bps"] == 5_000_000
    assert sc.canonical["flows"][0]["tcp"]["cc"] == "cubic" and sc.canonical["flows"][0]["tcp"]["sack"] is False
    assert base.canonical["topology"]["downlink"]["rate"]["bps"] == 10_000_000  # unchanged
    assert sc.sha256 != base.sha256
    assert sc.with_overrides({"seed": 9}).seed == 9
    # Same file + same overrides: same hash.
    assert load().with_overrides({"flows.0.cc": "cubic"}).sha256 == load().with_overrides(["flows.0.cc=cubic"]).sha256


def test_override_can_repair_an_invalid_file():
    d = json.loads(json.dumps(P2P))
    d["topology"]["downlink"]["rate"] = "10"
    with pytest.raises(tcplab.ScenarioError):
        tcplab.load(d)
    sc = tcplab.load(d, overrides=["topology.downlink.rate=2Mbit/s"])
    assert sc.canonical["topology"]["downlink"]["rate"]["bps"] == 2_000_000


@pytest.mark.parametrize(
    "override, message",
    [
        (
            "flows.3.cc=cubic",
            "<dict>: flows (--set flows.3.cc): index 3 is out of range: flows has 1 entry",
        ),
        (
            "flows.x.cc=cubic",
            '<dict>: flows (--set flows.x.cc): "x" is not an index into the array flows (use e.g. flows.0)',
        ),
        (
            "flows.0.cc=cubc",
            '<dict>: flows[0].cc (set by --set flows.0.cc=cubc): unknown value "cubc" (did you mean "cubic"?); expected one of "newreno", "cubic", "vegas", "westwood", "rre", "proprate-high", "proprate-low", "rre-table6.1", "proprate", "sprout-rate", "proprate-target", "proteus-rate", "sprout"',
        ),
        (
            "topology.downlink.rat=5Mbit/s",
            '<dict>: topology.downlink.rat (set by --set topology.downlink.rat=5Mbit/s): unknown key (did you mean "rate"?); '
            "valid keys here: rate, slot, trace, opportunity, rate_changes, delay, delay_changes, queue, loss, header_bytes",
        ),
        ("duration.x=1", "<dict>: duration (--set duration.x): cannot set duration.x: duration is a string, not a table or array"),
    ],
)
def test_override_errors(override, message):
    with pytest.raises(tcplab.ScenarioError) as e:
        load().with_overrides([override])
    assert str(e.value) == message


def test_override_syntax_error():
    with pytest.raises(tcplab.ScenarioError, match="expected KEY.PATH=VALUE"):
        tcplab.parse_override("seed")


def test_file_hash_is_of_the_file_bytes(tmp_path: Path):
    import hashlib

    p = tmp_path / "s.toml"
    src = (EXAMPLES / "p2p-bulk.toml").read_bytes()
    p.write_bytes(src)
    assert tcplab.load(p).sha256 == hashlib.sha256(src).hexdigest()
    p.write_bytes(src + b"\n# a comment changes the hash\n")
    assert tcplab.load(p).sha256 != hashlib.sha256(src).hexdigest()


def test_red_queue_mapping_and_ns2_defaults():
    d = json.loads(json.dumps(P2P))
    d["topology"]["downlink"]["queue"] = {"limit": "100pkts", "discipline": "red", "min_th": 5, "max_th": 15, "weight": 0.002, "max_p": 0.1, "gentle": False, "ecn": True}
    d["topology"]["uplink"]["queue"] = {"limit": "50pkts", "discipline": "red"}
    c = load(d).canonical["topology"]
    assert c["downlink"]["queue"] == {
        "discipline": "red", "limit_packets": 100, "limit_bytes": None,
        "red": {"min_th": 5.0, "max_th": 15.0, "max_p": 0.1, "q_weight": 0.002, "gentle": False, "wait": True, "ecn": True,
                "use_mark_p": True, "mark_p": 0.1, "bytes": True, "queue_in_bytes": True, "mean_pktsize": 500},
    }
    # ns-2.35's defaults (tcl/lib/ns-default.tcl): automatic thresholds and weight, gentle, byte mode.
    assert c["uplink"]["queue"]["red"] == {"min_th": 0.0, "max_th": 0.0, "max_p": 0.1, "q_weight": -1.0, "gentle": True, "wait": True,
                                           "ecn": False, "use_mark_p": True, "mark_p": 0.1, "bytes": True, "queue_in_bytes": True, "mean_pktsize": 500}
    again = json.loads(_tcplab.check_scenario_json(json.dumps(load(d).canonical)))
    assert again["topology"]["downlink"]["queue"] == c["downlink"]["queue"]


@pytest.mark.parametrize(
    "queue, message",
    [
        ({"min_th": 15, "max_th": 5}, "link 'downlink': queue.min_th: must be less than queue.max_th, got min_th 15 and max_th 5 packets"),
        ({"min_th": 5, "max_th": 5}, "queue.min_th: must be less than queue.max_th"),
        ({"min_th": 30, "max_th": "auto"}, None),  # valid: max_th = 3 min_th
        ({"max_th": 4}, "got min_th 6.25 (automatic) and max_th 4 packets"),
        ({"max_p": 0}, "link 'downlink': queue.max_p: must be in (0, 1], got 0"),
        ({"max_p": 1.5}, "queue.max_p: must be in (0, 1], got 1.5"),
        ({"weight": 1.5}, "queue.weight: must be in (0, 1]"),
        ({"weight": -0.5}, "queue.weight: must be in (0, 1]"),
        ({"min_th": -1}, "queue.min_th: must be at least 0"),
        ({"mark_p": 2}, "queue.mark_p: must be in [0, 1]"),
        ({"gentle": "yes"}, "topology.downlink.queue.gentle: expected true or false"),
        ({"max_p": "0.1"}, "topology.downlink.queue.max_p: expected a number"),
    ],
)
def test_red_bad_values_name_the_key(queue, message):
    d = json.loads(json.dumps(P2P))
    d["topology"]["downlink"]["queue"] = {"limit": "100pkts", "discipline": "red", **queue}
    if message is None:
        load(d)
        return
    with pytest.raises(tcplab.ScenarioError) as e:
        load(d)
    assert message in str(e.value), str(e.value)


def test_red_keys_only_with_red():
    d = json.loads(json.dumps(P2P))
    d["topology"]["downlink"]["queue"] = {"limit": "100pkts", "min_th": 5}
    with pytest.raises(tcplab.ScenarioError, match=r'topology.downlink.queue.min_th: a RED parameter: only with discipline = "red" \(this queue is "drop_tail"\)'):
        load(d)


def test_variants_come_from_rust():
    from tcplab.scenario import variants

    v = variants()
    assert "newreno" in v["cc"] and "cubic" in v["cc"]
    assert v["fc"][0] == "classic"
    assert v["discipline"] == ["drop_tail", "drop_head", "red"]


def test_every_key_is_documented():
    from tcplab.scenario import FLOW_KEYS, LINK_KEYS, RED_KEYS, TCP_KEYS, TOP_KEYS

    from conftest import REPO

    doc = (REPO / "docs" / "scenarios.md").read_text()
    for key in TOP_KEYS + LINK_KEYS + TCP_KEYS + FLOW_KEYS + RED_KEYS + ["interval", "timeseries", "exact_percentiles", "pcap", "pairs", "nodes"]:
        assert f"`{key}`" in doc or f"`[{key}]`" in doc or f"`[[{key}]]`" in doc, key


def test_recovery_key_selects_classic_reno_and_defaults_to_auto():
    base = tcplab.load(EXAMPLES / "p2p-bulk.toml")
    assert base.canonical["flows"][0]["tcp"]["recovery"] == "auto"
    sc = base.with_overrides({"flows.0.tcp.recovery": "reno"})
    assert sc.canonical["flows"][0]["tcp"]["recovery"] == "reno"
    with pytest.raises(tcplab.ScenarioError, match='did you mean "reno"'):
        base.with_overrides({"flows.0.tcp.recovery": "renoo"})


def test_cubic_variant_and_hystart_keys_follow_the_profile():
    from tcplab.scenario import variants

    base = tcplab.load(EXAMPLES / "p2p-bulk.toml")
    tcp = base.canonical["flows"][0]["tcp"]
    # The default `linux` profile: RFC 9438 CUBIC with HyStart (docs/profiles.md).
    assert (tcp["cubic_variant"], tcp["hystart"]) == ("rfc9438", True)
    tcp = base.with_overrides({"defaults.tcp.profile": "ns2"}).canonical["flows"][0]["tcp"]
    assert (tcp["cubic_variant"], tcp["hystart"]) == ("ns2", False)
    assert variants()["cubic_variant"] == ["rfc9438", "ns2"]
    sc = base.with_overrides({"flows.0.tcp.cubic_variant": "ns2", "flows.0.tcp.hystart": True})
    tcp = sc.canonical["flows"][0]["tcp"]
    assert (tcp["cubic_variant"], tcp["hystart"]) == ("ns2", True)
    with pytest.raises(tcplab.ScenarioError, match=r'flows.0..tcp.cubic_variant.*unknown value "ns-2" \(did you mean "ns2"\?\)'):
        base.with_overrides({"flows.0.tcp.cubic_variant": "ns-2"})
    with pytest.raises(tcplab.ScenarioError, match=r"flows.0..tcp.cubic_variant.*expected one of"):
        base.with_overrides({"flows.0.tcp.cubic_variant": 2})
    with pytest.raises(tcplab.ScenarioError, match="flows.0..tcp.hystart.*expected true or false"):
        base.with_overrides({"flows.0.tcp.hystart": "on"})


def test_ecn_key_defaults_to_false_and_reaches_the_run_summary():
    # RFC 3168 ECN is per flow and off by default; a flow's receiver inherits the sender's
    # value unless receiver_tcp sets it.
    base = load()
    assert base.canonical["flows"][0]["tcp"]["ecn"] is False
    sc = base.with_overrides({"flows.0.tcp.ecn": True})
    assert sc.canonical["flows"][0]["tcp"]["ecn"] is True
    with pytest.raises(tcplab.ScenarioError, match="flows.0..tcp.ecn.*expected true or false"):
        base.with_overrides({"flows.0.tcp.ecn": "yes"})
    # The summary reports ECN counters only for ECN flows (runs without it are unchanged).
    short = {"duration": "2s", "flows.0.bytes": "1MB"}
    plain = tcplab.run(base.with_overrides(short))
    assert "ecn" not in plain.summary["flows"][0]
    res = tcplab.run(sc.with_overrides(short))
    e = res.summary["flows"][0]["ecn"]
    assert e["negotiated"] is True and e["ect_sent"] > 0 and e["reductions"] == 0
    one_sided = tcplab.run(sc.with_overrides({**short, "flows.0.receiver_tcp.ecn": False}))
    assert one_sided.summary["flows"][0]["ecn"]["negotiated"] is False


def _diamond(first_via: str, extra_hop: bool = False) -> dict:
    """a -> {b, c} -> d and back; the links out of a (and out of d) listed with `first_via`'s first."""
    other = "c" if first_via == "b" else "b"
    link = lambda f, t: {"from": f, "to": t, "rate": "10Mbit/s", "delay": "5ms"}  # noqa: E731
    links = [link("a", first_via), link("a", other), link(first_via, "d"), link(other, "d"),
             link("d", first_via), link("d", other), link(first_via, "a"), link(other, "a")]
    nodes = ["a", "b", "c", "d"]
    if extra_hop:
        # The first-listed way is one hop longer: b -> x -> d instead of b -> d.
        nodes.append("x")
        links = [link("a", "b"), link("a", "c"), link("b", "x"), link("x", "d"), link("c", "d"),
                 link("d", "c"), link("c", "a")]
    return {
        "duration": "1s",
        "topology": {"kind": "custom", "nodes": nodes, "links": links},
        "flows": [{"name": "f", "src": "a", "dst": "d", "bytes": "100kB"}],
    }


@pytest.mark.parametrize("first_via", ["b", "c"])
def test_custom_routes_are_shortest_with_ties_to_the_first_listed_link(first_via):
    # docs/scenarios.md "custom": shortest in hops; of equally short routes, the one whose
    # links come first in listing order, hop by hop from the source.
    res = tcplab.run(_diamond(first_via))
    tx = {l["name"]: l["tx_packets"] for l in res.summary["links"]}
    other = "c" if first_via == "b" else "b"
    assert tx[f"a->{first_via}"] > 0 and tx[f"{first_via}->d"] > 0
    assert tx[f"a->{other}"] == 0 and tx[f"{other}->d"] == 0
    # The ACKs come back the same way: d's first-listed link.
    assert tx[f"d->{first_via}"] > 0 and tx[f"d->{other}"] == 0


def test_custom_routes_prefer_fewer_hops_over_listing_order():
    res = tcplab.run(_diamond("b", extra_hop=True))
    tx = {l["name"]: l["tx_packets"] for l in res.summary["links"]}
    assert tx["a->c"] > 0 and tx["c->d"] > 0
    assert tx["a->b"] == 0 and tx["x->d"] == 0


def test_a_profile_fills_what_is_not_given_and_explicit_keys_win():
    # docs/profiles.md: the merged table's profile fills the keys it sets that neither
    # [defaults.tcp] nor the flow gives; the canonical scenario carries every value.
    from tcplab.scenario import profiles

    base = tcplab.load(EXAMPLES / "p2p-bulk.toml")
    linux = base.canonical["flows"][0]["tcp"]
    assert linux["profile"] == profiles()["default"] == "linux"
    assert (linux["rto_rule"], linux["rtt_source"], linux["ssthresh_rule"], linux["min_rto"]) == (
        "linux", "linux", "cwnd", 200_000_000)
    sc = base.with_overrides({"defaults.tcp.profile": "ns3", "defaults.tcp.min_rto": "300ms",
                              "flows.0.tcp.frto": True})
    t = sc.canonical["flows"][0]["tcp"]
    assert t["profile"] == "ns3"
    assert (t["rtt_source"], t["ssthresh_rule"], t["delayed_ack_timeout"], t["nagle"]) == (
        "tsecr", "pipe", 200_000_000, False)
    assert (t["min_rto"], t["frto"]) == (300_000_000, True)  # given explicitly: they win
    # A flow's own profile beats the defaults' one, whose explicit keys still apply.
    t = base.with_overrides({"defaults.tcp.profile": "ns3", "defaults.tcp.min_rto": "300ms",
                             "flows.0.tcp.profile": "ns2"}).canonical["flows"][0]["tcp"]
    assert (t["profile"], t["initial_rto"], t["sack"], t["min_rto"]) == ("ns2", 3_000_000_000, False, 300_000_000)
    with pytest.raises(tcplab.ScenarioError, match=r'defaults.tcp.profile.*unknown value "bsd"'):
        base.with_overrides({"defaults.tcp.profile": "bsd"})
    # RSFC needs the receiver's timestamps: a profile that turns them off is named.
    with pytest.raises(tcplab.ScenarioError, match=r'needs timestamps = true \(profile "ns2" sets it false\)'):
        base.with_overrides({"defaults.tcp.profile": "ns2", "flows.0.fc": "rsfc"})


def test_read_pattern_phase():
    """`read.phase` (issue 17): where in its cycle a read pattern is when the flow starts."""
    import pytest

    d = json.loads(json.dumps(P2P))
    d["flows"] = [{"name": "f", "read": {"pattern": ["0Mbit/s", "6Mbit/s", "6Mbit/s"], "slot": "530ms", "phase": "1060ms"}}]
    assert load(d).canonical["flows"][0]["read"]["phase"] == 1060 * MS
    d["flows"][0]["read"]["phase"] = "1590ms"  # a whole cycle: almost surely a mistake
    with pytest.raises(tcplab.ScenarioError, match=r"flows\[0\]\.read\.phase: must be shorter than the pattern's cycle "
                                            r"\(3 slots of 530 ms = 1590 ms\), got \"1590ms\""):
        load(d)
    d["flows"][0]["read"] = {"rate": "6Mbit/s", "phase": "10ms"}
    with pytest.raises(tcplab.ScenarioError, match=r'read\.phase: "phase" only applies to a read pattern'):
        load(d)
