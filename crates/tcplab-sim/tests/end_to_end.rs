//! End-to-end runs of the simulator (DESIGN.md testing layers 4 and 6): invariants in every
//! run, sanity against TCP theory, determinism, and each network element in a real run.

mod common;
use common::*;
use tcplab_core::cc::CcKind;
use tcplab_core::{Duration, Instant};
use tcplab_sim::config::*;
use tcplab_sim::SimError;

/// Issue 2: one flow on a 10 Mbit/s, 40 ms RTT link with a BDP-sized buffer reaches at
/// least 95% utilisation.
#[test]
fn one_flow_fills_a_bdp_buffered_link() {
    for cc in [CcKind::NewReno, CcKind::Cubic] {
        // BDP = 10 Mbit/s x 40 ms = 50 kB = 34 packets of 1500 B.
        let mut s = p2p(
            "bdp",
            fixed(10_000_000, 20, 34),
            fixed(10_000_000, 20, 1000),
            60,
        );
        s.flows[0].tcp.cc = cc;
        let out = run_ok(&s);
        let down = &out.summary.links[0];
        assert_eq!(down.name, "downlink");
        assert!(
            down.utilization >= 0.95,
            "{cc:?}: downlink utilisation {:.3}",
            down.utilization
        );
        assert!(down.utilization <= 1.0);
        let f = &out.summary.flows[0];
        assert!(
            f.goodput_mbps > 9.0 && f.goodput_mbps < 10.0,
            "{cc:?}: goodput {}",
            f.goodput_mbps
        );
        assert!(
            down.drops.queue > 0,
            "{cc:?}: a BDP buffer must overflow now and then"
        );
    }
}

/// Issue 2: under Bernoulli loss p with a large buffer, NewReno's goodput is within 30% of
/// the Mathis et al. (1997) model MSS/RTT * sqrt(3/(2p)). The model assumes an ACK per
/// segment (b = 1), so delayed ACKs are off here; the link is fast enough never to limit.
#[test]
fn newreno_follows_the_square_root_law_under_random_loss() {
    for &p in &[0.001, 0.005, 0.01, 0.02] {
        let mut down = fixed(1_000_000_000, 20, 100_000);
        down.loss = LossSpec::Bernoulli { p };
        let mut s = p2p("mathis", down, fixed(1_000_000_000, 20, 100_000), 200);
        s.seed = 7;
        s.flows[0].tcp.delayed_ack = false;
        s.flows[0].tcp.min_rto = Duration::from_millis(200);
        s.record.timeseries = false;
        let out = run_ok(&s);
        let f = &out.summary.flows[0];
        let rtt = 0.040;
        let model = 1448.0 * 8.0 / rtt * (3.0 / (2.0 * p)).sqrt() * 1e-6;
        let ratio = f.goodput_mbps / model;
        eprintln!(
            "p={p}: goodput {:.2} Mbit/s, model {:.2}, ratio {:.2}",
            f.goodput_mbps, model, ratio
        );
        assert!(
            (0.7..=1.3).contains(&ratio),
            "p={p}: goodput {:.3} vs model {:.3}",
            f.goodput_mbps,
            model
        );
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_losses() {
    let mut down = fixed(20_000_000, 10, 50);
    down.loss = LossSpec::GilbertElliott {
        p_good_to_bad: 0.01,
        p_bad_to_good: 0.3,
        loss_good: 0.001,
        loss_bad: 0.3,
    };
    let mut s = p2p("det", down, fixed(20_000_000, 10, 50), 10);
    s.flows[0].tcp.cc = CcKind::Cubic;
    let a = serde_json::to_string(&run_ok(&s)).unwrap();
    let b = serde_json::to_string(&run_ok(&s)).unwrap();
    assert_eq!(
        a, b,
        "same scenario and seed must give byte-identical output"
    );
    s.seed = 2;
    let c = run_ok(&s);
    let a: tcplab_sim::RunOutput = serde_json::from_str(&a).unwrap();
    assert_ne!(
        a.summary.links[0].drops, c.summary.links[0].drops,
        "another seed must change the loss pattern"
    );
}

/// Finite transfers complete and deliver every byte once, in order, whatever the loss.
#[test]
fn finite_transfers_complete_under_loss_in_both_directions() {
    for seed in 0..12u64 {
        for sack in [true, false] {
            let mut down = fixed(8_000_000, 15, 30);
            down.loss = LossSpec::Bernoulli { p: 0.03 };
            let mut up = fixed(2_000_000, 15, 30);
            up.loss = LossSpec::Bernoulli { p: 0.03 };
            let mut s = p2p("finite", down, up, 120);
            s.seed = seed;
            s.stop_when_done = true;
            s.flows[0].bytes = Some(300_000 + seed * 7919);
            s.flows[0].tcp.sack = sack;
            s.flows[0].tcp.cc = if seed % 2 == 0 {
                CcKind::NewReno
            } else {
                CcKind::Cubic
            };
            let out = run_ok(&s);
            let f = &out.summary.flows[0];
            assert!(
                f.completion_s.is_some(),
                "seed {seed} sack {sack}: transfer did not complete"
            );
            assert_eq!(f.bytes_delivered, 300_000 + seed * 7919);
        }
    }
}

/// A slow reader with a small receive buffer: the receiver advertises zero windows, the
/// sender probes, and goodput equals the read rate.
#[test]
fn slow_reader_causes_zero_windows_and_paces_the_flow() {
    let mut s = p2p(
        "slow-reader",
        fixed(10_000_000, 20, 100),
        fixed(10_000_000, 20, 100),
        30,
    );
    s.flows[0].tcp.rcv_buf_bytes = 64 * 1024;
    s.flows[0].read = ReadProfile::Pattern {
        blocking: false,
        rates_bps: vec![0, 4_000_000, 4_000_000],
        slot: Duration::from_millis(500),
        tick: Duration::from_millis(1),
        phase: Duration::ZERO,
    };
    let out = run_ok(&s);
    let f = &out.summary.flows[0];
    assert!(f.zero_window_events > 0, "expected zero windows: {f:?}");
    // Mean read rate is 2/3 x 4 Mbit/s; the first slot reads nothing.
    assert!(
        f.goodput_mbps > 2.2 && f.goodput_mbps <= 2.67,
        "goodput {}",
        f.goodput_mbps
    );
}

/// The cellular papers' asymmetric path: a download's ACKs queue behind an upload.
#[test]
fn upload_and_download_share_the_path() {
    let mut s = p2p(
        "bidir",
        fixed(10_000_000, 25, 200),
        fixed(1_000_000, 25, 200),
        60,
    );
    s.flows.push(flow("upload", "client", "server"));
    let out = run_ok(&s);
    let (d, u) = (&out.summary.flows[0], &out.summary.flows[1]);
    assert_eq!(d.direction, "server->client");
    assert_eq!(u.direction, "client->server");
    assert!(u.goodput_mbps > 0.6, "upload {}", u.goodput_mbps);
    // ACKs stuck behind a 200-packet upload queue slow the download down (thesis ch. 5).
    assert!(d.goodput_mbps < 9.0, "download {}", d.goodput_mbps);
    // The base RTT is 50 ms; the download's ACKs wait behind a queue of upload packets
    // (12 ms each at 1 Mbit/s): 396 ms at the median under the default profile.
    assert!(
        d.rtt_ms.p50 > 250.0,
        "download RTT should include the uplink queue: {:?}",
        d.rtt_ms
    );
}

#[test]
fn dumbbell_flows_share_fairly() {
    let s = Scenario {
        name: "dumbbell".into(),
        seed: 3,
        duration: Duration::from_secs(60),
        event_budget: None,
        record: RecordSpec::default(),
        topology: TopologySpec::Dumbbell {
            pairs: 4,
            bottleneck: fixed(20_000_000, 20, 100),
            bottleneck_rev: fixed(20_000_000, 20, 100),
            sender_access: fixed(1_000_000_000, 1, 10_000),
            receiver_access: fixed(1_000_000_000, 1, 10_000),
        },
        flows: (0..4)
            .map(|i| {
                let mut f = flow(&format!("f{i}"), &format!("s{i}"), &format!("r{i}"));
                f.start = Instant::from_millis(25 * i);
                f
            })
            .collect(),
        stop_when_done: false,
        elements: vec![],
        pages: vec![],
        workloads: vec![],
    };
    let out = run_ok(&s);
    let total: f64 = out.summary.flows.iter().map(|f| f.goodput_mbps).sum();
    assert!(total > 18.5 && total < 20.0, "aggregate {total}");
    assert!(
        out.summary.jain_fairness > 0.9,
        "Jain {}",
        out.summary.jain_fairness
    );
}

#[test]
fn schedule_link_carries_its_mean_rate() {
    // A buffer above the peak BDP (15 Mbit/s x 530 ms = 663 packets) so that the link, not
    // TCP's sawtooth, is what the test measures.
    let mut down = fixed(0, 265, 2000);
    down.rate = RateSpec::Schedule {
        rates_bps: vec![3_000_000, 15_000_000, 15_000_000],
        slot: Duration::from_millis(530),
    };
    let mut s = p2p("schedule", down, fixed(15_000_000, 265, 200), 120);
    s.flows[0].tcp.rcv_buf_bytes = 8 << 20;
    s.flows[0].tcp.snd_buf_bytes = 8 << 20;
    // The link is under test, so the TCP is the one the figure below was set with (the
    // validated rules). Under the default `linux` profile this flow fills 81% of it (4
    // timeouts, 16,085 retransmissions as the rate drops from 15 to 3 Mbit/s into a
    // 2000-packet queue); tcplab's linux profile lacks PRR and RACK (docs/profiles.md).
    common::validated_rules(&mut s.flows[0].tcp);
    let out = run_ok(&s);
    let l = &out.summary.links[0];
    // Capacity over the 120 s run (issue 20 class 1), not the 11 Mbit/s long-run mean: 75
    // whole 1.59 s periods, then 530 ms at 3 and 220 ms at 15 Mbit/s.
    let want = (75.0 * 1.59 * 11.0 + 0.53 * 3.0 + 0.22 * 15.0) / 120.0; // 10.972
    assert!(
        (l.capacity_mbps - want).abs() < 1e-6,
        "schedule capacity over the run {} (want {want})",
        l.capacity_mbps
    );
    assert!(l.utilization > 0.85, "utilisation {}", l.utilization);
}

#[test]
fn trace_link_runs_a_real_cellular_trace() {
    let dir = trace_dir();
    let trace = |f: &str| LinkSpec {
        rate: RateSpec::Trace {
            path: dir.join(f).to_string_lossy().into_owned(),
            opportunity_bytes: 1500,
        },
        delay: Duration::from_millis(20),
        delay_changes: Vec::new(),
        rate_changes: Vec::new(),
        queue: QueueSpec {
            discipline: Discipline::DropTail,
            limit_packets: Some(500),
            limit_bytes: None,
            red: None,
        },
        loss: LossSpec::None,
        header_bytes: 0,
    };
    let mut s = p2p(
        "trace",
        trace("Verizon-LTE-short.down"),
        trace("Verizon-LTE-short.up"),
        60,
    );
    s.flows[0].tcp.cc = CcKind::Cubic;
    let out = run_ok(&s);
    let l = &out.summary.links[0];
    let f = &out.summary.flows[0];
    assert!(
        l.utilization > 0.5 && l.utilization <= 1.0,
        "utilisation {}",
        l.utilization
    );
    assert!(
        f.goodput_mbps < l.capacity_mbps,
        "goodput {} capacity {}",
        f.goodput_mbps,
        l.capacity_mbps
    );
    // A bufferbloated cellular link: CUBIC fills the 500-packet queue.
    assert!(f.owd_ms.p95 > 100.0, "{:?}", f.owd_ms);
}

#[test]
fn drophead_queue_drops_old_packets() {
    let mut down = fixed(5_000_000, 20, 20);
    down.queue.discipline = Discipline::DropHead;
    let s = p2p("drophead", down, fixed(5_000_000, 20, 100), 20);
    let out = run_ok(&s);
    assert!(out.summary.links[0].drops.queue > 0);
    assert!(out.summary.flows[0].goodput_mbps > 4.0);
}

#[test]
fn an_exhausted_event_budget_is_an_error() {
    let mut s = p2p(
        "budget",
        fixed(10_000_000, 20, 100),
        fixed(10_000_000, 20, 100),
        10,
    );
    s.event_budget = Some(1000);
    match tcplab_sim::run(&s, &mut |_| true) {
        Err(SimError::EventBudget { events, .. }) => assert_eq!(events, 1001),
        other => panic!(
            "expected an event-budget error, got {:?}",
            other.map(|o| o.summary.events)
        ),
    }
}

#[test]
fn bad_scenarios_are_config_errors() {
    let mut s = p2p(
        "bad",
        fixed(10_000_000, 20, 100),
        fixed(10_000_000, 20, 100),
        10,
    );
    s.flows[0].dst = "nowhere".into();
    let e = tcplab_sim::run(&s, &mut |_| true).err().expect("must fail");
    assert_eq!(
        e.to_string(),
        "invalid scenario: flows[0] ('download').dst: unknown node 'nowhere' (nodes: server, client)"
    );
}

#[test]
fn timeseries_has_every_flow_and_link_metric() {
    let s = p2p(
        "ts",
        fixed(10_000_000, 20, 100),
        fixed(10_000_000, 20, 100),
        5,
    );
    let out = run_ok(&s);
    let ts = &out.timeseries;
    assert_eq!(ts.entities.len(), 3);
    // 50 samples at 100 ms, 11 flow metrics + 2 links x 4 link metrics each.
    assert_eq!(ts.time_ns.len(), 50 * (11 + 8));
    assert_eq!(ts.time_ns.len(), ts.value.len());
    let goodput = series(&out, 0, "goodput_mbps");
    assert_eq!(goodput.len(), 50);
    assert!(goodput[40] > 8.0, "{goodput:?}");
}

#[test]
fn stop_when_done_waits_for_finite_flows_and_ignores_unlimited_ones() {
    let mut s = p2p(
        "done",
        fixed(10_000_000, 10, 100),
        fixed(10_000_000, 10, 100),
        30,
    );
    s.stop_when_done = true;
    // Only an unlimited flow: the run lasts its full duration.
    let out = run_ok(&s);
    assert_eq!(out.summary.duration_s, 30.0);
    // A 1 MB download beside it: the run ends when that one is read.
    s.flows.push(flow("short", "server", "client"));
    s.flows[1].bytes = Some(1_000_000);
    let out = run_ok(&s);
    let done = out.summary.flows[1].completion_s.expect("completes");
    assert_eq!(out.summary.duration_s, done);
    assert!(done < 5.0, "{done}");
}

/// An RTT equal to the initial RTO (1 s) makes the first flight time out spuriously. With
/// Karn's algorithm the backed-off RTO stays until a clean sample arrives, so the flow
/// recovers; resetting the backoff on every new ACK would time out every flight forever.
#[test]
fn an_rtt_as_long_as_the_initial_rto_does_not_lock_the_flow_in_timeouts() {
    let s = p2p(
        "long-rtt",
        fixed(4_000_000, 500, 1000),
        fixed(4_000_000, 500, 1000),
        120,
    );
    let out = run_ok(&s);
    let f = &out.summary.flows[0];
    assert!(f.timeouts <= 3, "timeouts {}", f.timeouts);
    assert!(f.goodput_mbps > 3.0, "goodput {}", f.goodput_mbps);
}

/// F-RTO (RFC 5682): a download over a link that stops for 3 s every 13 s. Each outage
/// fires the RTO although nothing is lost (the packets wait in the queue); with F-RTO the
/// timeouts are found spurious and undone, without it the sender resends the queued window
/// and overflows the buffer.
#[test]
fn frto_undoes_the_timeouts_of_link_outages() {
    let run = |frto: bool| {
        let mut down = fixed(0, 20, 600);
        let mut rates = vec![10_000_000; 10];
        rates.extend([0, 0, 0]);
        down.rate = RateSpec::Schedule {
            rates_bps: rates,
            slot: Duration::from_secs(1),
        };
        let mut s = p2p("outage", down, fixed(10_000_000, 20, 1000), 65);
        s.flows[0].tcp.cc = CcKind::Cubic;
        s.flows[0].tcp.frto = frto;
        // A receive window (550 packets) below BDP + buffer: CUBIC alone never overflows the
        // queue, so every drop and retransmission is the outages' doing.
        s.flows[0].tcp.rcv_buf_bytes = 800_000;
        let out = run_ok(&s);
        let f = out.summary.flows[0].clone();
        let l = out.summary.links[0].clone();
        eprintln!(
            "frto={frto}: goodput {:.2} Mbit/s, timeouts {}, spurious {}, retransmits {}, queue drops {}, owd mean {:.0} ms p95 {:.0} ms",
            f.goodput_mbps, f.timeouts, f.spurious_timeouts, f.retransmits, l.drops.queue,
            f.owd_ms.mean, f.owd_ms.p95
        );
        (f, l)
    };
    let (on, on_link) = run(true);
    let (off, off_link) = run(false);
    assert!(
        off.timeouts >= 5,
        "every outage fires the RTO: {}",
        off.timeouts
    );
    assert_eq!(off.spurious_timeouts, 0);
    assert!(on.timeouts > 0 && on.spurious_timeouts > 0, "{on:?}");
    assert!(on.spurious_timeouts <= on.timeouts);
    assert!(
        on.retransmits * 2 < off.retransmits,
        "retransmits with F-RTO {} vs without {}",
        on.retransmits,
        off.retransmits
    );
    assert!(off_link.drops.queue > 0, "go-back-N overflows the buffer");
    assert!(
        on_link.drops.queue * 2 < off_link.drops.queue,
        "queue drops with F-RTO {} vs without {}",
        on_link.drops.queue,
        off_link.drops.queue
    );
}

/// Thesis 5.2.6 (Figure 5.9) changes the RTT mid-flow. A downlink whose delay rises from
/// 20 ms to 70 ms at 3 s and falls back at 6 s: the flow's smoothed RTT follows, the link
/// stays FIFO when the delay shrinks (no reordering, so no retransmission on a loss-free
/// path), and the one-way delays of both periods show up.
#[test]
fn link_delay_changes_mid_run_and_stays_fifo() {
    let mut down = fixed(10_000_000, 20, 1000);
    down.delay_changes = vec![
        DelayChange {
            at: Duration::from_secs(3),
            delay: Duration::from_millis(70),
        },
        DelayChange {
            at: Duration::from_secs(6),
            delay: Duration::from_millis(20),
        },
    ];
    let mut s = p2p("delay-change", down, fixed(10_000_000, 20, 1000), 9);
    // A 64 KiB receive window keeps the queue far below its 1000 packets: no loss.
    let mut rcv = s.flows[0].tcp.clone();
    rcv.rcv_buf_bytes = 64 << 10;
    s.flows[0].receiver_tcp = Some(rcv);
    s.record.interval = Duration::from_millis(100);
    let out = run_ok(&s);
    let f = &out.summary.flows[0];
    assert_eq!((f.retransmits, f.fast_retransmits), (0, 0));
    assert_eq!(out.summary.links[0].drops.queue, 0);
    let srtt = series(&out, 0, "srtt_ms");
    // Samples at 100 ms: 2.9 s (before), 5.9 s (after the rise), 8.9 s (restored).
    assert!(srtt[28] < 60.0, "{}", srtt[28]);
    assert!(srtt[58] > 90.0, "{}", srtt[58]);
    assert!(srtt[88] < 60.0, "{}", srtt[88]);
    // Out-of-order changes are refused.
    s.topology = match s.topology {
        TopologySpec::PointToPoint {
            mut downlink,
            uplink,
        } => {
            downlink.delay_changes.reverse();
            TopologySpec::PointToPoint { downlink, uplink }
        }
        _ => unreachable!(),
    };
    let e = tcplab_sim::run(&s, &mut |_| true).unwrap_err();
    assert!(
        e.to_string()
            .contains("delay_changes must be in increasing time order"),
        "{e}"
    );
}

#[test]
fn abc_limit_two_doubles_slow_start_per_rtt_with_delayed_acks() {
    // RFC 3465's L: with delayed ACKs every 2 segments, L = 1 grows the window 1.5x per
    // RTT and L = 2 doubles it. 300 kB over a 10 Mbit/s, 200 ms RTT path with a deep
    // buffer never leaves slow start: L = 2 needs fewer RTTs.
    let fct = |l: u32| {
        let mut s = p2p(
            "abc",
            fixed(10_000_000, 100, 5000),
            fixed(10_000_000, 100, 5000),
            30,
        );
        s.flows[0].tcp.cc = CcKind::Cubic;
        s.flows[0].tcp.abc_limit_pkts = l;
        s.flows[0].bytes = Some(300_000);
        let out = run_ok(&s);
        assert_eq!(out.summary.flows[0].retransmits, 0);
        out.summary.flows[0].completion_s.unwrap()
    };
    let (one, two) = (fct(1), fct(2));
    assert!(two + 0.15 < one, "L = 2: {two} s, L = 1: {one} s");
}

#[test]
fn hystart_leaves_slow_start_before_a_deep_buffer_overflows() {
    // 10 Mbit/s, 100 ms RTT (a BDP of 83 packets) and a 300-packet buffer: RFC 5681 slow
    // start overshoots it within 2 s; HyStart (the delay test: 4 ms of queue is 3.4
    // packets) ends slow start near the BDP and nothing is lost in 5 s, with either CUBIC.
    use tcplab_core::cc::cubic::CubicVariant;
    let run = |variant, hystart| {
        let mut s = p2p(
            "hystart",
            fixed(10_000_000, 50, 300),
            fixed(10_000_000, 50, 1000),
            5,
        );
        s.flows[0].tcp.cc = CcKind::Cubic;
        s.flows[0].tcp.cubic_variant = variant;
        s.flows[0].tcp.hystart = hystart;
        let out = run_ok(&s);
        let f = &out.summary.flows[0];
        (
            f.retransmits,
            out.summary.links[0].drops.queue,
            f.goodput_mbps,
        )
    };
    for v in [CubicVariant::Rfc9438, CubicVariant::Ns2] {
        let (on, off) = (run(v, true), run(v, false));
        eprintln!("{v:?}: hystart (retransmits, drops, goodput) {on:?}, without {off:?}");
        assert_eq!((on.0, on.1), (0, 0), "{v:?}");
        assert!(off.0 > 0 && off.1 > 0, "{v:?}");
        assert!(on.2 > 6.0, "{v:?}: goodput {}", on.2);
    }
}

/// `read.phase` (issue 17): a pattern starts that far into its cycle. <0, 0, 4 Mbit/s> in
/// 300 ms slots reads nothing in the first 600 ms of the flow; started 600 ms into its
/// cycle, it reads from the first data on.
#[test]
fn read_pattern_phase_shifts_the_cycle() {
    let read_bytes = |phase_ms: u64| {
        let mut s = p2p(
            "phase",
            fixed(10_000_000, 20, 100),
            fixed(10_000_000, 20, 100),
            1,
        );
        s.duration = Duration::from_millis(600);
        s.flows[0].read = ReadProfile::Pattern {
            blocking: false,
            rates_bps: vec![0, 0, 4_000_000],
            slot: Duration::from_millis(300),
            tick: Duration::from_millis(1),
            phase: Duration::from_millis(phase_ms),
        };
        run_ok(&s).summary.flows[0].bytes_delivered
    };
    assert_eq!(read_bytes(0), 0);
    let shifted = read_bytes(600);
    // At most 4 Mbit/s x 600 ms = 300 kB, less while slow start brings the data in.
    assert!(shifted > 50_000 && shifted <= 300_000, "{shifted}");
}
