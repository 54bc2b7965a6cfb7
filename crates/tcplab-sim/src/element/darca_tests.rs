//! DARCA as an element in whole runs (issue 12): what the pure parts' tests cannot show,
//! that the control point meters real connections, holds local ones near their targets by
//! its drops, learns a remote one, follows joins and leaves, and keeps every packet
//! accounted for.

use crate::config::Scenario;
use serde_json::{json, Value};

/// Sources s1..sN to router AR over access links of the given rates, the 10 Mbit/s link L
/// to ER (the control point) and one receiver behind it: RTT 100 ms. `flows` are (name,
/// source index, start s, stop s or None); `darca` the element's keys.
fn topology(
    access_bps: &[u64],
    flows: &[(&str, usize, f64, Option<f64>)],
    darca: Value,
    secs: u64,
) -> Scenario {
    let link = |name: String, from: String, to: String, bps: u64, ms: u64| {
        json!({ "name": name, "from": from, "to": to, "rate": { "kind": "fixed", "bps": bps },
                "delay": ms * 1_000_000, "queue": { "limit_packets": 100 } })
    };
    let mut nodes = vec!["ar".to_string(), "er".into(), "rx".into()];
    let mut links = vec![
        link("L".into(), "ar".into(), "er".into(), 10_000_000, 20),
        link("L_rev".into(), "er".into(), "ar".into(), 10_000_000, 20),
        link("er->rx".into(), "er".into(), "rx".into(), 100_000_000, 10),
        link("rx->er".into(), "rx".into(), "er".into(), 100_000_000, 10),
    ];
    for (i, &bps) in access_bps.iter().enumerate() {
        let s = format!("s{}", i + 1);
        nodes.push(s.clone());
        links.push(link(format!("{s}->ar"), s.clone(), "ar".into(), bps, 20));
        links.push(link(format!("ar->{s}"), "ar".into(), s, 100_000_000, 20));
    }
    let tcp = json!({ "cc": "newreno", "recovery": "reno", "mss": 512, "sack": false,
                      "timestamps": true, "delayed_ack": false, "rcv_buf_bytes": 65536,
                      // A small send buffer: a stopped flow's FIN (its leave) follows soon.
                      "snd_buf_bytes": 65536 });
    let flows: Vec<Value> = flows
        .iter()
        .map(|&(name, src, start, stop)| {
            json!({ "name": name, "src": format!("s{}", src + 1), "dst": "rx",
                    "start": (start * 1e9) as u64, "stop": stop.map(|s| (s * 1e9) as u64), "tcp": tcp })
        })
        .collect();
    let mut e = json!({ "kind": "darca", "link": "L" });
    for (k, v) in darca.as_object().expect("keys") {
        e[k] = v.clone();
    }
    let mut s: Scenario = serde_json::from_value(json!({
        "name": "darca-test", "seed": 1, "duration": secs * 1_000_000_000,
        "record": { "timeseries": false },
        "topology": { "kind": "custom", "nodes": nodes, "links": links },
        "flows": flows,
        "elements": [{ "node": "er", "element": e }],
    }))
    .expect("a valid scenario");
    // The TCP rules `tcplab reproduce darca` runs with (docs/profiles.md): these tests
    // check DARCA's control cycle on the reproduction's TCP. Under the `linux` rules the
    // control cycle of `joins_and_leaves_redistribute_without_a_restart` diverges after c
    // joins: a's measured rate is 0 in the round at 30.7 s, and the learning round after it
    // needs a 35 s measurement period, past the end of the run.
    for f in &mut s.flows {
        f.tcp.apply_validated_rules();
    }
    s
}

fn run(s: &Scenario) -> (crate::RunOutput, Value) {
    let out = crate::run(s, &mut |_| true).expect("run");
    assert!(out.summary.invariants.ok, "{:?}", out.summary.invariants);
    let e = &out.summary.elements[0];
    assert_eq!(e.kind, "darca");
    let c = e.counters;
    assert_eq!(
        c.seen,
        c.forwarded + c.dropped,
        "DARCA only forwards or drops"
    );
    let detail = e.detail.clone();
    (out, detail)
}

/// Mean goodput, bit/s, of flow `name` from `from` s to the end of the run.
fn goodput_after(
    out: &crate::RunOutput,
    name: &str,
    delivered_at_from: u64,
    from: f64,
    secs: u64,
) -> f64 {
    let f = out
        .summary
        .flows
        .iter()
        .find(|f| f.name == name)
        .expect("flow");
    (f.bytes_delivered - delivered_at_from) as f64 * 8.0 / (secs as f64 - from)
}

#[test]
fn local_connections_are_held_near_their_targets_by_drops() {
    let flows = [("a", 0, 0.0, None), ("b", 1, 0.1, None)];
    let free = topology(
        &[100_000_000; 2],
        &flows,
        json!({ "start": 1_000_000_000_000u64, "targets": [
        { "flow": "a", "bps": 1_000_000 }, { "flow": "b", "bps": 2_000_000 }] }),
        60,
    );
    let s = topology(
        &[100_000_000; 2],
        &flows,
        json!({ "targets": [
        { "flow": "a", "bps": 1_000_000 }, { "flow": "b", "bps": 2_000_000 }] }),
        60,
    );
    let (plain, d0) = run(&free);
    assert_eq!(d0["rounds"].as_array().unwrap().len(), 0, "never started");
    assert_eq!(plain.summary.elements[0].counters.dropped, 0);
    let (out, d) = run(&s);
    // Drops do the holding (48 in 60 s under the default profile; the count follows the
    // profile's loss response, the goodputs below are what matters).
    assert!(out.summary.elements[0].counters.dropped > 30);
    for (name, target) in [("a", 1e6), ("b", 2e6)] {
        let g = goodput_after(&out, name, 0, 0.0, 60);
        let g0 = goodput_after(&plain, name, 0, 0.0, 60);
        // Uncontrolled they share 10 Mbit/s; controlled, Mathis's model holds them within
        // the bias it has for Reno (it omits the fast-recovery round trip: a few % at these
        // windows of 25 and 50 packets).
        assert!(g0 > 3e6, "{name} free: {g0}");
        assert!(
            g > 0.8 * target && g < 1.1 * target,
            "{name}: {g} for {target}"
        );
    }
    let units = d["units"].as_array().unwrap();
    assert!(
        units.iter().all(|u| u["p_con"].as_f64().unwrap() > 0.0),
        "{units:?}"
    );
    assert_eq!(d["mode"], "connection");
}

#[test]
fn a_remote_connections_target_is_learnt_and_its_excess_goes_to_the_others() {
    // b's own access link carries 300 kbit/s: a target of 1 Mbit/s is out of its reach.
    let flows = [("a", 0, 0.0, None), ("b", 1, 0.1, None)];
    let s = topology(
        &[100_000_000, 300_000],
        &flows,
        json!({ "start": 5_000_000_000u64, "targets": [
        { "flow": "a", "bps": 1_000_000 }, { "flow": "b", "bps": 1_000_000 }] }),
        80,
    );
    let (_, d) = run(&s);
    let units = d["units"].as_array().unwrap();
    let (ta, tb) = (
        units[0]["target_bps"].as_f64().unwrap(),
        units[1]["target_bps"].as_f64().unwrap(),
    );
    // b carries about 300 kbit/s on the wire, 270 of payload: its target comes down to
    // what it carries, and a gets the rest of the 2 Mbit/s.
    assert!(tb > 240e3 && tb < 330e3, "b's target {tb}");
    assert!((ta + tb - 2e6).abs() < 1.0, "{ta} + {tb}");
    assert!(d["learning_rounds"].as_u64().unwrap() >= 3);
    let events: Vec<&str> = d["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert!(events.contains(&"enters learning"), "{events:?}");
}

#[test]
fn joins_and_leaves_redistribute_without_a_restart() {
    // c joins at 20 s, a leaves (closes) at 40 s; b is remote at 300 kbit/s.
    let flows = [
        ("a", 0, 0.0, Some(40.0)),
        ("b", 1, 0.1, None),
        ("c", 2, 20.0, None),
    ];
    let s = topology(
        &[100_000_000, 300_000, 100_000_000],
        &flows,
        json!({ "start": 1_000_000_000u64, "targets": [
        { "flow": "a", "bps": 250_000 }, { "flow": "b", "bps": 500_000 }, { "flow": "c", "bps": 250_000 }] }),
        60,
    );
    let (_, d) = run(&s);
    let events: Vec<String> = d["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{:.0} {}",
                e["t_s"].as_f64().unwrap().floor(),
                e["event"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        events.iter().any(|e| e.starts_with("20 c member joins")),
        "{events:?}"
    );
    // It closes at 40 s; its FIN follows what is left in its 64 KB send buffer, which
    // drains at its target of a few hundred kbit/s: within 8 s.
    let left: Vec<f64> = d["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"].as_str().unwrap().starts_with("a member leaves"))
        .map(|e| e["t_s"].as_f64().unwrap())
        .collect();
    assert!(
        left.len() == 1 && left[0] > 40.0 && left[0] < 48.0,
        "{events:?}"
    );
    let units = d["units"].as_array().unwrap();
    // After a leaves, its target is 0 and c holds what b cannot use.
    assert_eq!(units[0]["target_bps"].as_f64().unwrap(), 0.0);
    let (tb, tc) = (
        units[1]["target_bps"].as_f64().unwrap(),
        units[2]["target_bps"].as_f64().unwrap(),
    );
    assert!(tb < 330e3 && (tb + tc - 750e3).abs() < 1.0, "{tb} {tc}");
    // Rounds were logged with a's target 0 after its leave.
    let last = d["rounds"].as_array().unwrap().last().unwrap();
    assert_eq!(last["targets_bps"][0].as_f64().unwrap(), 0.0);
}

#[test]
fn classes_are_formed_by_rtt_and_share_a_target() {
    let flows = [
        ("a", 0, 0.0, None),
        ("b", 1, 0.1, None),
        ("c", 2, 0.2, None),
    ];
    let s = topology(
        &[100_000_000; 3],
        &flows,
        json!({ "start": 2_000_000_000u64, "classes": [
        { "rtt_min": 0, "rtt_max": 300_000_000u64, "bps": 3_000_000 }] }),
        60,
    );
    let (out, d) = run(&s);
    assert_eq!(d["mode"], "class");
    let u = &d["units"][0];
    assert_eq!(u["members"], 3);
    assert_eq!(d["unclassified"], 0);
    // The class's aggregate near its target: each member at TBW / fn.
    let total: f64 = ["a", "b", "c"]
        .iter()
        .map(|n| goodput_after(&out, n, 0, 0.0, 60))
        .sum();
    assert!(total > 0.8 * 3e6 && total < 1.2 * 3e6, "{total}");
}

#[test]
fn darca_runs_are_deterministic() {
    let flows = [("a", 0, 0.0, None), ("b", 1, 0.1, None)];
    let s = topology(
        &[100_000_000, 300_000],
        &flows,
        json!({ "start": 2_000_000_000u64, "targets": [
        { "flow": "a", "bps": 1_000_000 }, { "flow": "b", "bps": 1_000_000 }] }),
        20,
    );
    let (a, _) = run(&s);
    let (b, _) = run(&s);
    assert_eq!(a.summary, b.summary);
}

#[test]
fn the_measured_correction_brings_small_window_connections_to_their_targets() {
    // Targets of 300 and 600 kbit/s at 100 ms: Mathis windows of about 10 and 20 packets,
    // where Reno carries 0.75-0.9 of the model's rate (the fast recovery's round trip; ns-2
    // the same, bench/ns2-compare "Reno under evenly spaced drops"). The paper's open loop
    // leaves the smaller one more than 10% short; `correction = "measured"` learns a gain
    // above 1 and holds both within 10% over the second half.
    let flows = [("a", 0, 0.0, None), ("b", 1, 0.1, None)];
    let targets = json!([{ "flow": "a", "bps": 300_000 }, { "flow": "b", "bps": 600_000 }]);
    let secs = 90;
    let goodputs = |correction: &str| {
        let s = topology(
            &[100_000_000; 2],
            &flows,
            json!({ "targets": targets, "correction": correction }),
            secs,
        );
        let (half, _) = run(&topology(
            &[100_000_000; 2],
            &flows,
            json!({ "targets": targets, "correction": correction }),
            secs / 2,
        ));
        let (out, d) = run(&s);
        let g: Vec<f64> = ["a", "b"]
            .iter()
            .map(|n| {
                let at_half = half
                    .summary
                    .flows
                    .iter()
                    .find(|f| f.name == *n)
                    .unwrap()
                    .bytes_delivered;
                goodput_after(&out, n, at_half, (secs / 2) as f64, secs)
            })
            .collect();
        let gains: Vec<f64> = d["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["gain"].as_f64().unwrap())
            .collect();
        assert_eq!(d["correction"], correction);
        (g, gains)
    };
    let (open, open_gains) = goodputs("none");
    assert_eq!(open_gains, vec![1.0, 1.0]);
    assert!(open[0] < 0.9 * 300e3, "open loop: a {}", open[0]);
    let (closed, gains) = goodputs("measured");
    for (g, target) in closed.iter().zip([300e3, 600e3]) {
        assert!(
            (g / target - 1.0).abs() <= 0.1,
            "corrected: {g} for {target}"
        );
    }
    assert!(gains[0] > 1.1, "{gains:?}");
}

#[test]
fn max_convergence_caps_the_rounds_a_remote_connection_stretches() {
    // b is held by its 250 kbit/s access link (100 packets of queue: seconds of RTT) with
    // a target of 2 Mbit/s it cannot reach: until it is inferred remote it enters eq. 1
    // with a small drop rate and an RTT its own queue inflates, and the rounds last tens
    // of seconds. `max_convergence` bounds them (and eq. 2's period to 2/3 of the bound).
    let flows = [("a", 0, 0.0, None), ("b", 1, 0.1, None)];
    let rounds = |cap: Option<u64>| {
        let mut keys = json!({ "start": 5_000_000_000u64, "targets": [
            { "flow": "a", "bps": 1_000_000 }, { "flow": "b", "bps": 2_000_000 }] });
        if let Some(c) = cap {
            keys["max_convergence"] = json!(c);
        }
        let (_, d) = run(&topology(&[100_000_000, 250_000], &flows, keys, 120));
        d["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["convergence_s"].as_f64().unwrap(),
                    r["measurement_s"].as_f64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let free = rounds(None);
    assert!(free.iter().any(|&(c, _)| c > 5.0), "eq. 1 alone: {free:?}");
    let capped = rounds(Some(5_000_000_000));
    assert!(
        capped
            .iter()
            .all(|&(c, m)| c <= 5.0 && m <= 5.0 * 2.0 / 3.0 + 1e-9),
        "{capped:?}"
    );
    assert!(capped.len() > free.len());
}
