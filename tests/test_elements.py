"""Node elements from scenario files (issue 11): `[[elements]]` keys reach the simulator,
runs report what each element did, and bad keys are one error line naming the key (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tcplab
from conftest import cli


def base_station(n: int = 5, element: str | None = 'node = "bs"\nkind = "bsf"\nlink = "wireless"\nweight = 0.2') -> str:
    """Fig. 5 of the BSF paper in small: n wired senders, a base station, a 2 Mbit/s
    wireless link with bursty losses to one mobile host."""
    out = ['name = "bs"', 'duration = "30s"', "seed = 2", "", "[topology]", 'kind = "custom"',
           "nodes = [" + ", ".join(f'"s{i}"' for i in range(n)) + ', "bs", "mh"]', ""]
    for i in range(n):
        for a, b in ((f"s{i}", "bs"), ("bs", f"s{i}")):
            out += ["[[topology.links]]", f'from = "{a}"', f'to = "{b}"', 'rate = "10Mbit/s"', 'delay = "10ms"', ""]
    out += ["[[topology.links]]", 'name = "wireless"', 'from = "bs"', 'to = "mh"', 'rate = "2Mbit/s"', 'delay = "5ms"',
            'queue = "20pkts"', 'loss = { kind = "gilbert_elliott", p_good_to_bad = 0.02, p_bad_to_good = 0.3 }', "",
            "[[topology.links]]", 'name = "wireless_up"', 'from = "mh"', 'to = "bs"', 'rate = "2Mbit/s"', 'delay = "5ms"', "",
            "[defaults.tcp]", 'recovery = "reno"', "sack = false", "timestamps = false", ""]
    for i in range(n):
        out += ["[[flows]]", f'name = "f{i}"', f'src = "s{i}"', 'dst = "mh"', ""]
    if element is not None:
        out += ["[[elements]]", element, ""]
    return "\n".join(out)


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "bs.toml"
    p.write_text(text)
    return p


def test_a_bsf_run_reports_its_element_and_accounts_for_every_zwa(tmp_path):
    r = tcplab.run(tcplab.load(write(tmp_path, base_station())))
    s = r.summary
    assert s["invariants"]["ok"], s["invariants"]
    (e,) = s["elements"]
    assert (e["node"], e["kind"]) == ("bs", "bsf")
    assert e["detail"]["zwas_sent"] > 0 and e["counters"]["created"] == e["detail"]["zwas_sent"]
    assert (e["detail"]["tcp_buffer"], e["detail"]["bsf_thresh"], e["detail"]["flush_thresh"]) == (20, 9.0, 1.0)
    c = e["counters"]
    assert c["seen"] == c["forwarded"] + c["dropped"] + c["absorbed"] + c["held"]


def test_the_cli_prints_the_element_table(tmp_path):
    r = cli("run", str(write(tmp_path, base_station())), "--no-plots", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if l.startswith("bsf "))
    assert " bs " in line and "zwas_sent=" in line
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["elements"][0]["kind"] == "bsf"


def test_keys_reach_the_canonical_scenario(tmp_path):
    el = 'node = "bs"\nkind = "bsf"\nlink = "wireless"\nweight = 0.01\ntotal_buffer = "30pkts"\nudp_buffer = "10pkts"\n' \
         'sessions = 5\necn_history = 2\nzwa_copies = 2\nrecord_ttl = "500ms"'
    sc = tcplab.load(write(tmp_path, base_station(element=el)))
    (e,) = sc.canonical["elements"]
    assert e == {"node": "bs", "element": {"kind": "bsf", "link": "wireless", "weight": 0.01, "total_buffer": 30,
                                           "udp_buffer": 10, "sessions": 5, "bsf_thresh": None, "flush_thresh": None,
                                           "ecn_history": 2, "zwa_copies": 2, "record_ttl": 500_000_000}}


@pytest.mark.parametrize(
    "element, fragments",
    [
        ('node = "bs"\nkind = "bfs"\nlink = "wireless"', ['elements[0].kind', 'unknown value "bfs" (did you mean "bsf"?)']),
        ('node = "bs"\nlink = "wireless"', ["elements[0].kind", "missing"]),
        ('kind = "bsf"\nlink = "wireless"', ["elements[0]", "node"]),
        ('node = "bss"\nkind = "bsf"\nlink = "wireless"', ["elements[0].node", "bss"]),
        ('node = "bs"\nkind = "bsf"\nlink = "wirless"', ["elements[0].link", 'unknown link "wirless" (did you mean "wireless"?)']),
        ('node = "mh"\nkind = "bsf"\nlink = "wireless"', ["elements[0].link", "does not leave node 'mh'"]),
        ('node = "bs"\nkind = "bsf"\nlink = "wireless"\nweight = 0', ["elements[0].weight", "greater than 0"]),
        ('node = "bs"\nkind = "bsf"\nlink = "wireless"\nweight = 1.5', ["elements[0].weight", "between 0 and 1"]),
        ('node = "bs"\nkind = "bsf"\nlink = "wireless"\ntotal_buffer = "20KB"', ["elements[0].total_buffer", "packets"]),
        ('node = "bs"\nkind = "bsf"\nlink = "wireless"\ntotal_buffer = "50pkts"', ["FLUSH_thresh = -5", "never act"]),
        ('node = "bs"\nkind = "bsf"\nlink = "wireless"\nbsf_thresh = 25', ["eq. 5", "BSF_thresh = 25"]),
        ('node = "bs"\nkind = "bsf"\nlink = "wireless"\nthreshold = 3', ["elements[0]", 'unknown key']),
        ('node = "bs"\nkind = "bsf"\nlink = "wireless"\nsessions = 0', ["elements[0].sessions"]),
    ],
)
def test_bad_element_keys_are_one_error_line(tmp_path, element, fragments):
    r = cli("validate", str(write(tmp_path, base_station(element=element))))
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


def test_elements_must_be_an_array_of_tables(tmp_path):
    text = base_station(element=None).replace('name = "bs"', 'name = "bs"\nelements = "bsf"', 1)
    r = cli("validate", str(write(tmp_path, text)))
    assert r.returncode == 2 and "elements: expected an array of tables" in r.stderr, r.stderr


@pytest.mark.parametrize("e, burst", [(0.01, 1), (0.05, 3), (0.1, 2.5)])
def test_an_error_rate_and_burst_length_map_onto_gilbert_elliott(tmp_path, e, burst):
    text = base_station(element=None).replace(
        'loss = { kind = "gilbert_elliott", p_good_to_bad = 0.02, p_bad_to_good = 0.3 }',
        f'loss = {{ kind = "gilbert_elliott", error_rate = {e}, mean_burst = {burst} }}')
    sc = tcplab.load(write(tmp_path, text))
    wl = next(l for l in sc.canonical["topology"]["links"] if l["name"] == "wireless")
    ge = wl["loss"]
    assert ge["p_bad_to_good"] == pytest.approx(1 / burst)
    # The stationary share of the bad state is the error rate.
    assert ge["p_good_to_bad"] / (ge["p_good_to_bad"] + ge["p_bad_to_good"]) == pytest.approx(e)
    assert (ge["loss_good"], ge["loss_bad"]) == (0.0, 1.0)
    # And a long run loses that share of packets (the chain steps once per packet).
    r = tcplab.run(sc.with_overrides({"duration": "200s"}))
    link = next(l for l in r.summary["links"] if l["name"] == "wireless")
    assert link["drops"]["loss"] / link["tx_packets"] == pytest.approx(e, rel=0.15)


def test_an_error_rate_too_high_for_its_bursts_is_refused(tmp_path):
    text = base_station(element=None).replace(
        'loss = { kind = "gilbert_elliott", p_good_to_bad = 0.02, p_bad_to_good = 0.3 }',
        'loss = { kind = "gilbert_elliott", error_rate = 0.6, mean_burst = 1 }')
    r = cli("validate", str(write(tmp_path, text)))
    assert r.returncode == 2 and "error_rate: 0.6 is too high for bursts of 1 packets" in r.stderr, r.stderr
