//! Open-loop workloads (issue 18, `WorkloadSpec`): flows that arrive on their own schedule,
//! send a drawn size and leave, their connection slots reused by later arrivals.

mod common;

use common::*;
use tcplab_core::tcp::TcpConfig;
use tcplab_core::{Duration, Instant};
use tcplab_sim::config::*;

fn workload(arrivals: Arrivals, sizes: SizeDist) -> WorkloadSpec {
    WorkloadSpec {
        name: "web".into(),
        src: "server".into(),
        dst: "client".into(),
        arrivals,
        sizes,
        start: Instant::ZERO,
        stop: None,
        max_flows: None,
        size_buckets: vec![10_000, 100_000],
        tcp: TcpConfig::default(),
        receiver_tcp: None,
    }
}

/// A 10 Mbit/s, 20 ms path with one workload and no flows of its own.
fn scenario(w: WorkloadSpec, secs: u64, loss: f64) -> Scenario {
    let mut down = fixed(10_000_000, 20, 100);
    if loss > 0.0 {
        down.loss = LossSpec::Bernoulli { p: loss };
    }
    let mut up = fixed(10_000_000, 20, 100);
    if loss > 0.0 {
        up.loss = LossSpec::Bernoulli { p: loss };
    }
    let mut s = p2p("workload", down, up, secs);
    s.flows.clear();
    s.workloads = vec![w];
    s
}

fn poisson(per_second: f64) -> Arrivals {
    Arrivals::Poisson { per_second }
}

#[test]
fn every_short_flow_completes_with_an_intact_byte_stream() {
    // 40% load of 20 kB flows, over lossy links both ways: flows end with retransmissions,
    // duplicate and late packets still in the network, which must never reach a later flow
    // that reuses the slot (the byte-stream checks would catch it).
    let s = scenario(
        workload(poisson(25.0), SizeDist::Fixed { bytes: 20_000 }),
        20,
        0.02,
    );
    let out = run_ok(&s);
    let w = &out.summary.workloads[0];
    assert!(w.arrived > 400, "{}", w.arrived);
    assert_eq!(w.completed + w.active_at_end, w.arrived);
    assert!(w.max_active < 30, "{w:?}");
    assert_eq!(
        out.summary.flows.len(),
        0,
        "workload flows are not in `flows`"
    );
    let t = &out.workload_flows;
    assert_eq!(t.id.len() as u64, w.arrived);
    assert_eq!(t.id, (0..w.arrived).collect::<Vec<_>>());
    for i in 0..t.id.len() {
        // Only flows that arrived late may still be in progress at the end.
        if t.start_ns[i] < 10_000_000_000 {
            assert!(
                t.fct_ns[i].is_some(),
                "flow {i} ({} s) never completed",
                t.start_ns[i]
            );
        }
        if let Some(fct) = t.fct_ns[i] {
            assert_eq!(t.bytes_delivered[i], 20_000);
            // At least a handshake and a round trip of data: 2 x 40 ms.
            assert!(fct >= 80_000_000, "flow {i}: {fct} ns");
        }
    }
    // 20 kB is 14 segments of 1448 bytes: at least that many arrived per completed flow.
    assert!(w.data_packets_delivered >= 14 * w.completed, "{w:?}");
    let retx: u64 = t.retransmits.iter().sum();
    assert!(retx > 20, "the links lose packets: {retx} retransmissions");
    // All the flows fell in the middle bucket (10 kB < 20 kB <= 100 kB).
    assert_eq!(w.buckets.len(), 3);
    assert_eq!(w.buckets[1].fct_ms.arrived, w.arrived);
    assert_eq!(w.buckets[1].fct_ms.completed, w.completed);
    assert_eq!(
        (w.buckets[1].min_bytes, w.buckets[1].max_bytes),
        (10_001, Some(100_000))
    );
    assert_eq!(w.buckets[2].max_bytes, None);
    let f = &w.fct_ms;
    assert!(
        f.p50 <= f.p95 && f.p95 <= f.p99 && f.p99 <= f.max && f.mean > 0.0,
        "{f:?}"
    );
}

#[test]
fn packets_outliving_their_flow_never_reach_the_next_one() {
    // The ACK path's delay jumps from 20 ms to 300 ms and back every 0.5 s: flows time out
    // spuriously and retransmit, and the original ACKs then end them while the
    // retransmissions are still on their way. Their slots must wait for those packets
    // (a slot reused at once would hand them to the next flow: a payload or byte-stream
    // violation, or a flow that never ends).
    let mut s = scenario(
        workload(poisson(40.0), SizeDist::Fixed { bytes: 15_000 }),
        20,
        0.0,
    );
    let TopologySpec::PointToPoint { uplink, .. } = &mut s.topology else {
        unreachable!()
    };
    uplink.delay_changes = (1..40)
        .map(|i| DelayChange {
            at: Duration::from_millis(500 * i),
            delay: Duration::from_millis(if i % 2 == 1 { 300 } else { 20 }),
        })
        .collect();
    let out = run_ok(&s);
    let w = &out.summary.workloads[0];
    let t = &out.workload_flows;
    let spurious: u64 = t.timeouts.iter().sum();
    assert!(spurious > 50, "{spurious} timeouts");
    for i in 0..t.id.len() {
        if t.start_ns[i] < 15_000_000_000 {
            assert!(t.fct_ns[i].is_some(), "flow {i} never completed: {w:?}");
            assert_eq!(t.bytes_delivered[i], 15_000);
        }
    }
    assert!(w.max_active < 150, "slots are released: {w:?}");
}

#[test]
fn same_seed_same_run_and_another_seed_another() {
    let s = scenario(
        workload(
            poisson(50.0),
            SizeDist::Pareto {
                mean_bytes: 30_000.0,
                shape: 1.5,
            },
        ),
        5,
        0.0,
    );
    let a = run_ok(&s);
    let b = run_ok(&s);
    assert_eq!(a.workload_flows, b.workload_flows);
    assert_eq!(a.summary.workloads, b.summary.workloads);
    let mut s2 = s.clone();
    s2.seed += 1;
    let c = run_ok(&s2);
    assert_ne!(a.workload_flows.size_bytes, c.workload_flows.size_bytes);
}

#[test]
fn given_times_and_an_empirical_cdf() {
    let times: Vec<Instant> = (0..50).map(|i| Instant(i * 20_000_000)).collect();
    let mut w = workload(
        Arrivals::Times {
            times: times.clone(),
        },
        SizeDist::Empirical {
            points: vec![(1_000, 0.5), (1_000, 0.5), (50_000, 1.0)],
        },
    );
    // Arrivals before `start` or from `stop` on are skipped.
    w.start = Instant(100_000_000);
    w.stop = Some(Instant(600_000_000));
    let out = run_ok(&scenario(w, 5, 0.0));
    let t = &out.workload_flows;
    let expect: Vec<u64> = times
        .iter()
        .map(|t| t.as_nanos())
        .filter(|&t| (100_000_000..600_000_000).contains(&t))
        .collect();
    assert_eq!(t.start_ns, expect);
    assert!(t.size_bytes.iter().all(|&b| (1_000..=50_000).contains(&b)));
    assert!(
        t.size_bytes.contains(&1_000),
        "half the draws are at the first point"
    );
    assert!(
        t.fct_ns.iter().all(|f| f.is_some()),
        "all complete within 5 s"
    );
}

#[test]
fn max_flows_and_stop_when_done_end_the_run() {
    let mut w = workload(
        poisson(100.0),
        SizeDist::Exponential {
            mean_bytes: 5_000.0,
        },
    );
    w.max_flows = Some(30);
    let mut s = scenario(w, 60, 0.0);
    s.stop_when_done = true;
    let out = run_ok(&s);
    let w = &out.summary.workloads[0];
    assert_eq!((w.arrived, w.completed, w.active_at_end), (30, 30, 0));
    assert!(
        out.summary.duration_s < 5.0,
        "the run ends with its last flow: {}",
        out.summary.duration_s
    );
}

#[test]
fn without_rows_the_summary_still_has_the_completion_times() {
    let mut s = scenario(
        workload(poisson(30.0), SizeDist::Fixed { bytes: 5_000 }),
        5,
        0.0,
    );
    let with_rows = run_ok(&s);
    s.record.workload_flows = false;
    let without = run_ok(&s);
    assert!(without.workload_flows.is_empty());
    assert_eq!(
        with_rows.workload_flows.id.len() as u64,
        with_rows.summary.workloads[0].arrived
    );
    // The same run: only what is kept differs.
    assert_eq!(with_rows.summary.workloads, without.summary.workloads);
}

#[test]
fn a_workload_alongside_a_bulk_flow_keeps_the_flow_summaries() {
    let mut s = scenario(
        workload(poisson(10.0), SizeDist::Fixed { bytes: 50_000 }),
        5,
        0.0,
    );
    s.flows = vec![flow("bulk", "server", "client")];
    s.record.timeseries = true;
    let out = run_ok(&s);
    assert_eq!(out.summary.flows.len(), 1);
    assert!(out.summary.flows[0].goodput_mbps > 1.0);
    assert!(out.summary.workloads[0].completed > 20);
    // The time series has the bulk flow and the two links, no workload flow.
    assert_eq!(out.timeseries.entities.len(), 3);
}

#[test]
fn bad_workloads_are_refused_with_the_key_named() {
    let cases: Vec<(Box<dyn Fn(&mut WorkloadSpec)>, &str)> = vec![
        (
            Box::new(|w| w.dst = "nowhere".into()),
            "workloads[0] ('web').dst: unknown node",
        ),
        (
            Box::new(|w| w.dst = "server".into()),
            "dst: the same node as src",
        ),
        (Box::new(|w| w.arrivals = poisson(0.0)), "arrivals.rate"),
        (
            Box::new(|w| {
                w.arrivals = Arrivals::Times {
                    times: vec![Instant(5), Instant(4)],
                }
            }),
            "arrival times must not decrease",
        ),
        (
            Box::new(|w| w.sizes = SizeDist::Fixed { bytes: 0 }),
            "sizes.bytes",
        ),
        (
            Box::new(|w| {
                w.sizes = SizeDist::Pareto {
                    mean_bytes: 1e4,
                    shape: 1.0,
                }
            }),
            "sizes.shape",
        ),
        (
            Box::new(|w| {
                w.sizes = SizeDist::Empirical {
                    points: vec![(10, 0.5), (5, 1.0)],
                }
            }),
            "must not decrease",
        ),
        (
            Box::new(|w| {
                w.sizes = SizeDist::Empirical {
                    points: vec![(10, 0.5)],
                }
            }),
            "a CDF ends at 1",
        ),
        (
            Box::new(|w| w.stop = Some(Instant::ZERO)),
            "stop: must be after start",
        ),
        (Box::new(|w| w.max_flows = Some(0)), "max_flows"),
        (Box::new(|w| w.size_buckets = vec![10, 10]), "size_buckets"),
    ];
    for (change, want) in cases {
        let mut w = workload(poisson(1.0), SizeDist::Fixed { bytes: 1 });
        change(&mut w);
        let err = tcplab_sim::run(&scenario(w, 1, 0.0), &mut |_| true)
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains(want), "{err:?} should contain {want:?}");
    }
    // Two workloads of one name.
    let mut s = scenario(workload(poisson(1.0), SizeDist::Fixed { bytes: 1 }), 1, 0.0);
    s.workloads.push(s.workloads[0].clone());
    let err = tcplab_sim::run(&s, &mut |_| true)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("name used twice"), "{err}");
    let _ = Duration::ZERO;
}
