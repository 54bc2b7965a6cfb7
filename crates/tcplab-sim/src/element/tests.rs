//! Tests of the element layer itself (issue 11), with small element kinds of their own: a
//! holder that delays packets by a timer, a dropper, an ACK copier that creates packets, and
//! two broken elements whose mistakes the world's accounting must catch.

use super::*;
use crate::config::*;
use crate::world::run_with_elements;
use std::collections::VecDeque;
use tcplab_core::tcp::TcpConfig;
use tcplab_core::Duration;

fn link(bps: u64, delay_ms: u64, queue: u64) -> LinkSpec {
    LinkSpec {
        rate: RateSpec::Fixed { bps },
        delay: Duration::from_millis(delay_ms),
        delay_changes: Vec::new(),
        rate_changes: Vec::new(),
        queue: QueueSpec {
            discipline: Discipline::DropTail,
            limit_packets: Some(queue),
            limit_bytes: None,
            red: None,
        },
        loss: LossSpec::None,
        header_bytes: 0,
    }
}

/// Two bulk flows s0->r0, s1->r1 over a 10 Mbit/s dumbbell for 3 s.
fn dumbbell() -> Scenario {
    let flow = |i: u32| FlowSpec {
        name: format!("f{i}"),
        src: format!("s{i}"),
        dst: format!("r{i}"),
        start: Instant::ZERO,
        connect: None,
        stop: None,
        pauses: Vec::new(),
        bytes: None,
        tcp: TcpConfig::default(),
        receiver_tcp: None,
        read: ReadProfile::Unlimited,
    };
    Scenario {
        name: "elements".into(),
        seed: 7,
        duration: Duration::from_secs(3),
        event_budget: None,
        record: RecordSpec::default(),
        topology: TopologySpec::Dumbbell {
            pairs: 2,
            bottleneck: link(10_000_000, 10, 50),
            bottleneck_rev: link(10_000_000, 10, 50),
            sender_access: link(100_000_000, 1, 1000),
            receiver_access: link(100_000_000, 1, 1000),
        },
        flows: vec![flow(0), flow(1)],
        stop_when_done: false,
        elements: vec![],
        pages: vec![],
        workloads: vec![],
    }
}

/// Holds every data packet for `delay`, releasing them in order by its timer.
struct Holder {
    delay: Duration,
    q: VecDeque<(Instant, Packet)>,
}

impl Element for Holder {
    fn kind(&self) -> &'static str {
        "test-holder"
    }
    fn on_packet(
        &mut self,
        now: Instant,
        pkt: &mut Packet,
        _: Arrival,
        _: &dyn NodeView,
        act: &mut Actions,
    ) -> Fate {
        if !pkt.from_sender {
            return Fate::Forward;
        }
        self.q.push_back((now + self.delay, *pkt));
        act.wake_at(self.q[0].0);
        Fate::Hold
    }
    fn on_timer(&mut self, now: Instant, _: &dyn NodeView, act: &mut Actions) {
        while self.q.front().is_some_and(|(t, _)| *t <= now) {
            act.release(self.q.pop_front().unwrap().1);
        }
        if let Some((t, _)) = self.q.front() {
            act.wake_at(*t);
        }
    }
    fn held(&self) -> u64 {
        self.q.len() as u64
    }
}

/// Drops every `every`-th data packet.
struct Dropper {
    every: u64,
    n: u64,
}

impl Element for Dropper {
    fn kind(&self) -> &'static str {
        "test-dropper"
    }
    fn on_packet(
        &mut self,
        _: Instant,
        pkt: &mut Packet,
        _: Arrival,
        _: &dyn NodeView,
        _: &mut Actions,
    ) -> Fate {
        if pkt.from_sender && pkt.seg.payload_len > 0 {
            self.n += 1;
            if self.n % self.every == 0 {
                return Fate::Drop;
            }
        }
        Fate::Forward
    }
}

/// Sends a copy of every ACK it sees on towards the sender (a packet it creates).
struct AckCopier {
    copies: u64,
}

impl Element for AckCopier {
    fn kind(&self) -> &'static str {
        "test-ack-copier"
    }
    fn on_packet(
        &mut self,
        _: Instant,
        pkt: &mut Packet,
        _: Arrival,
        _: &dyn NodeView,
        act: &mut Actions,
    ) -> Fate {
        if !pkt.from_sender && pkt.seg.flags.ack() && !pkt.seg.flags.syn() {
            act.emit(Forged {
                flow: pkt.flow,
                from_sender: false,
                seg: pkt.seg,
            });
            self.copies += 1;
        }
        Fate::Forward
    }
    fn report(&self) -> serde_json::Value {
        serde_json::json!({ "copies": self.copies })
    }
}

/// Says it holds packets but forgets them (a bug the accounting must catch).
struct Forgetful;

impl Element for Forgetful {
    fn kind(&self) -> &'static str {
        "test-forgetful"
    }
    fn on_packet(
        &mut self,
        _: Instant,
        pkt: &mut Packet,
        _: Arrival,
        _: &dyn NodeView,
        _: &mut Actions,
    ) -> Fate {
        if pkt.from_sender && pkt.seg.payload_len > 0 && pkt.id % 50 == 0 {
            Fate::Hold
        } else {
            Fate::Forward
        }
    }
}

/// Creates a packet for flow 1 on a node only flow 0 crosses.
struct OffRoute {
    done: bool,
}

impl Element for OffRoute {
    fn kind(&self) -> &'static str {
        "test-off-route"
    }
    fn on_packet(
        &mut self,
        _: Instant,
        pkt: &mut Packet,
        _: Arrival,
        _: &dyn NodeView,
        act: &mut Actions,
    ) -> Fate {
        if !self.done && pkt.flow == 0 {
            self.done = true;
            act.emit(Forged {
                flow: 1,
                from_sender: true,
                seg: pkt.seg,
            });
        }
        Fate::Forward
    }
}

fn run(extra: Vec<(&str, Box<dyn Element>)>) -> crate::RunOutput {
    run_with_elements(&dumbbell(), extra).expect("run")
}

#[test]
fn no_elements_and_a_forwarding_element_give_the_same_run() {
    // An element that forwards everything unchanged changes nothing but its counters.
    let plain = run(vec![]);
    let with = run(vec![(
        "left",
        Box::new(Dropper {
            every: u64::MAX,
            n: 0,
        }),
    )]);
    assert!(with.summary.invariants.ok, "{:?}", with.summary.invariants);
    assert_eq!(plain.summary.flows, with.summary.flows);
    assert_eq!(plain.summary.links, with.summary.links);
    let e = &with.summary.elements[0];
    assert_eq!((e.node.as_str(), e.kind.as_str()), ("left", "test-dropper"));
    assert!(e.counters.seen > 1000 && e.counters.seen == e.counters.forwarded);
}

#[test]
fn held_packets_released_by_a_timer_are_delayed_and_conserved() {
    // Window-limited flows (16 kB each, below the 30 kB path BDP) build no queue, so the
    // RTT difference is the holder's delay alone, not a change of queueing.
    let mut sc = dumbbell();
    for f in &mut sc.flows {
        f.tcp.rcv_buf_bytes = 16_000;
    }
    let plain = run_with_elements(&sc, vec![]).expect("run");
    let out = run_with_elements(
        &sc,
        vec![(
            "left",
            Box::new(Holder {
                delay: Duration::from_millis(30),
                q: VecDeque::new(),
            }),
        )],
    )
    .expect("run");
    assert!(out.summary.invariants.ok, "{:?}", out.summary.invariants);
    let c = out.summary.elements[0].counters;
    assert!(c.held > 1000 && c.released <= c.held);
    assert_eq!(c.held - c.released, out.summary.elements[0].held_at_end);
    // Every data packet waits 30 ms more: the RTT grows by that much.
    let rtt = |o: &crate::RunOutput| o.summary.flows[0].rtt_ms.p50;
    assert!(
        (rtt(&out) - rtt(&plain) - 30.0).abs() < 2.0,
        "{} vs {}",
        rtt(&out),
        rtt(&plain)
    );
    assert!(out
        .summary
        .flows
        .iter()
        .all(|f| f.bytes_delivered > 100_000));
}

#[test]
fn element_drops_are_counted_and_recovered_by_tcp() {
    let out = run(vec![("left", Box::new(Dropper { every: 40, n: 0 }))]);
    assert!(out.summary.invariants.ok, "{:?}", out.summary.invariants);
    let c = out.summary.elements[0].counters;
    assert!(c.dropped > 10);
    let rtx: u64 = out.summary.flows.iter().map(|f| f.retransmits).sum();
    assert!(
        rtx >= c.dropped,
        "{rtx} retransmits for {} drops",
        c.dropped
    );
}

#[test]
fn created_packets_are_accounted_for_not_violations() {
    let out = run(vec![("right", Box::new(AckCopier { copies: 0 }))]);
    assert!(out.summary.invariants.ok, "{:?}", out.summary.invariants);
    let e = &out.summary.elements[0];
    assert!(e.counters.created > 1000);
    assert_eq!(e.detail["copies"], e.counters.created);
    // The copies reached the senders: the reverse bottleneck carried twice the ACKs.
    let rev = out
        .summary
        .links
        .iter()
        .find(|l| l.name == "bottleneck_rev")
        .unwrap();
    assert!(rev.tx_packets > e.counters.created + e.counters.created / 2);
}

#[test]
fn an_element_that_loses_a_held_packet_breaks_conservation() {
    let out = run(vec![("left", Box::new(Forgetful))]);
    let v = &out.summary.invariants.violations;
    assert!(!out.summary.invariants.ok);
    assert!(
        v.iter()
            .any(|m| m
                .contains("element 0 (test-forgetful) on node 'left': held packets not conserved")),
        "{v:?}"
    );
    assert!(
        v.iter()
            .any(|m| m.starts_with("network: packets not conserved")),
        "{v:?}"
    );
}

#[test]
fn a_packet_created_off_its_flows_route_is_a_violation() {
    // s0 is on flow 0's route only.
    let out = run(vec![("s0", Box::new(OffRoute { done: false }))]);
    let v = &out.summary.invariants.violations;
    assert!(
        v.iter().any(
            |m| m.contains("created a packet for flow 'f1' whose route does not pass the node")
        ),
        "{v:?}"
    );
    // Counted where it was made: nothing else is out of balance.
    assert_eq!(v.len(), 1, "{v:?}");
}

#[test]
fn runs_with_elements_are_deterministic() {
    let mk = || -> Vec<(&str, Box<dyn Element>)> {
        vec![
            ("left", Box::new(Dropper { every: 33, n: 0 })),
            (
                "left",
                Box::new(Holder {
                    delay: Duration::from_millis(3),
                    q: VecDeque::new(),
                }),
            ),
            ("right", Box::new(AckCopier { copies: 0 })),
        ]
    };
    let a = run(mk());
    let b = run(mk());
    assert!(a.summary.invariants.ok, "{:?}", a.summary.invariants);
    assert_eq!(a.summary, b.summary);
    // Two elements on one node see a packet in the listed order: the holder only sees
    // what the dropper forwarded.
    let (d, h) = (&a.summary.elements[0], &a.summary.elements[1]);
    assert_eq!(
        (d.kind.as_str(), h.kind.as_str()),
        ("test-dropper", "test-holder")
    );
    assert_eq!(h.counters.seen, d.counters.forwarded);
}

// ------------------------------------------------------------------------------ BSF

fn bsf_spec() -> BsfSpec {
    serde_json::from_value(serde_json::json!({ "link": "wireless" })).expect("defaults")
}

#[test]
fn bsf_thresholds_follow_eqs_2_to_4() {
    // TCP_buff = 20 packets: BSF_thresh = N + ceil(20 / N), FLUSH_thresh = N - ceil(20 / N).
    for (n, bsf, flush) in [(5, 9.0, 1.0), (10, 12.0, 8.0), (15, 17.0, 13.0)] {
        let th = bsf::Thresholds::new(&bsf_spec(), 20, n).unwrap();
        assert_eq!(
            (th.tcp_buffer, th.bsf, th.flush),
            (20, bsf, flush),
            "N = {n}"
        );
    }
    // eq. 2: the UDP share comes off the total.
    let mut spec = bsf_spec();
    spec.udp_buffer = 5;
    let th = bsf::Thresholds::new(&spec, 25, 5).unwrap();
    assert_eq!((th.tcp_buffer, th.bsf, th.flush), (20, 9.0, 1.0));
    // eq. 4 with 50 packets and 5 sessions: FLUSH_thresh = 5 - 10 < 0, BSF would never act.
    let e = bsf::Thresholds::new(&bsf_spec(), 50, 5).unwrap_err();
    assert!(
        e.contains("FLUSH_thresh = -5") && e.contains("never act"),
        "{e}"
    );
    // eq. 5 with 2 sessions and a 4-packet buffer: BSF_thresh = 2 + 2 = 4, not below
    // TCP_buff = 4.
    let e = bsf::Thresholds::new(&bsf_spec(), 4, 2).unwrap_err();
    assert!(e.contains("eq. 5"), "{e}");
}

/// Fig. 5 in small: `n` wired senders (10 Mbit/s) to a base station, one 2 Mbit/s wireless
/// link with bursty losses to a mobile host, classic Reno without SACK (ns-2's defaults).
fn base_station(n: u32, bsf: Option<BsfSpec>, secs: u64) -> Scenario {
    let mut nodes: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
    nodes.extend(["bs".to_string(), "mh".to_string()]);
    let named = |name: String, from: &str, to: &str, spec: LinkSpec| NamedLinkSpec {
        name,
        from: from.into(),
        to: to.into(),
        spec,
    };
    let mut links = Vec::new();
    for i in 0..n {
        let s = format!("s{i}");
        links.push(named(
            format!("{s}->bs"),
            &s,
            "bs",
            link(10_000_000, 10, 1000),
        ));
        links.push(named(
            format!("bs->{s}"),
            "bs",
            &s,
            link(10_000_000, 10, 1000),
        ));
    }
    let mut wireless = link(2_000_000, 5, 20);
    wireless.loss = LossSpec::GilbertElliott {
        p_good_to_bad: 0.02,
        p_bad_to_good: 0.3,
        loss_good: 0.0,
        loss_bad: 1.0,
    };
    links.push(named("wireless".into(), "bs", "mh", wireless));
    links.push(named(
        "wireless_up".into(),
        "mh",
        "bs",
        link(2_000_000, 5, 1000),
    ));
    let tcp = TcpConfig {
        sack: false,
        timestamps: false,
        recovery: tcplab_core::tcp::Recovery::Reno,
        ..TcpConfig::default()
    };
    let flows = (0..n)
        .map(|i| FlowSpec {
            name: format!("f{i}"),
            src: format!("s{i}"),
            dst: "mh".into(),
            start: Instant::ZERO,
            connect: None,
            stop: None,
            pauses: Vec::new(),
            bytes: None,
            tcp: tcp.clone(),
            receiver_tcp: None,
            read: ReadProfile::Unlimited,
        })
        .collect();
    Scenario {
        name: "bsf".into(),
        seed: 3,
        duration: Duration::from_secs(secs),
        event_budget: None,
        record: RecordSpec::default(),
        topology: TopologySpec::Custom { nodes, links },
        flows,
        stop_when_done: false,
        elements: bsf
            .map(|b| ElementSpec {
                node: "bs".into(),
                element: ElementKind::Bsf(b),
            })
            .into_iter()
            .collect(),
        pages: vec![],
        workloads: vec![],
    }
}

#[test]
fn bsf_sends_zero_window_advertisements_the_senders_accept_and_every_packet_is_accounted() {
    // A fast average (w = 0.2) so that the buffer state shows within seconds.
    let mut spec = bsf_spec();
    spec.weight = 0.2;
    let out = crate::run(&base_station(5, Some(spec), 60), &mut |_| true).unwrap();
    assert!(out.summary.invariants.ok, "{:?}", out.summary.invariants);
    let e = &out.summary.elements[0];
    assert_eq!((e.node.as_str(), e.kind.as_str()), ("bs", "bsf"));
    let zwas = e.detail["zwas_sent"].as_u64().unwrap();
    assert!(zwas > 10, "{}", e.detail);
    assert_eq!(
        e.counters.created, zwas,
        "every ZWA is a packet the element created"
    );
    assert_eq!(e.detail["flush_thresh"], 1.0);
    // The senders saw zero windows (and probed or were reopened by the receiver).
    let frozen: u64 = out.summary.flows.iter().map(|f| f.zero_window_events).sum();
    assert!(frozen > 0, "{:?}", out.summary.flows);
    assert!(out
        .summary
        .flows
        .iter()
        .all(|f| f.bytes_delivered > 100_000));
}

/// Records every ZWA it sees on its way to the senders (an element after BSF would not see
/// them: a created packet leaves its node directly), here on the sender's side of the path.
struct ZwaWatch {
    seen: Vec<Segment>,
    last_ack: Vec<Option<Segment>>,
}

impl Element for ZwaWatch {
    fn kind(&self) -> &'static str {
        "test-zwa-watch"
    }
    fn on_packet(
        &mut self,
        _: Instant,
        pkt: &mut Packet,
        _: Arrival,
        _: &dyn NodeView,
        _: &mut Actions,
    ) -> Fate {
        if !pkt.from_sender {
            let f = pkt.flow as usize;
            if pkt.seg.window == 0 {
                self.seen.push(pkt.seg);
                // A ZWA repeats the receiver's latest ACK through the base station.
                let last = self.last_ack[f].expect("an ACK before the ZWA");
                assert_eq!((pkt.seg.seq, pkt.seg.ack), (last.seq, last.ack));
                assert_eq!(pkt.seg.options.timestamps, last.options.timestamps);
            } else {
                self.last_ack[f] = Some(pkt.seg);
            }
        }
        Fate::Forward
    }
    fn report(&self) -> serde_json::Value {
        serde_json::json!({ "zwas": self.seen.len(), "with_timestamps": self.seen.iter().filter(|s| s.options.timestamps.is_some()).count() })
    }
}

#[test]
fn bsf_zero_windows_repeat_the_receivers_numbers_and_timestamps() {
    // With timestamps (RFC 7323) the ZWA carries the receiver's latest TSval and TSecr, so
    // a stack that checks PAWS accepts it (tcplab's endpoints do not check PAWS yet, so the
    // run alone could not tell: the element on the sender's node checks the bytes).
    let mut spec = bsf_spec();
    spec.weight = 0.2;
    let mut scn = base_station(5, Some(spec), 60);
    for f in &mut scn.flows {
        f.tcp.timestamps = true;
        f.tcp.sack = true;
    }
    let watch = ZwaWatch {
        seen: Vec::new(),
        last_ack: vec![None; 5],
    };
    let out = run_with_elements(&scn, vec![("s0", Box::new(watch))]).unwrap();
    assert!(out.summary.invariants.ok, "{:?}", out.summary.invariants);
    let zwas = out
        .summary
        .elements
        .iter()
        .find(|e| e.kind == "bsf")
        .unwrap()
        .detail["zwas_sent"]
        .as_u64()
        .unwrap();
    assert!(zwas > 10);
    let w = &out
        .summary
        .elements
        .iter()
        .find(|e| e.kind == "test-zwa-watch")
        .unwrap()
        .detail;
    assert!(w["zwas"].as_u64().unwrap() > 0, "{w}");
    assert_eq!(w["zwas"], w["with_timestamps"]);
    let frozen: u64 = out.summary.flows.iter().map(|f| f.zero_window_events).sum();
    assert!(frozen > 0, "{:?}", out.summary.flows);
}

#[test]
fn bsf_runs_are_deterministic_and_differ_from_red_only() {
    let mut spec = bsf_spec();
    spec.weight = 0.2;
    let a = crate::run(&base_station(5, Some(spec.clone()), 20), &mut |_| true).unwrap();
    let b = crate::run(&base_station(5, Some(spec), 20), &mut |_| true).unwrap();
    assert_eq!(a.summary, b.summary);
    let plain = crate::run(&base_station(5, None, 20), &mut |_| true).unwrap();
    assert!(plain.summary.elements.is_empty());
    assert_ne!(plain.summary.flows, a.summary.flows);
}
