//! Trace-driven (Mahimahi) links in real runs (issue 20, class 1 and the trace part of
//! class 5): every shipped trace keeps the link-capacity invariant in both directions, a
//! trace's capacity is its opportunities (the one carrying a packet's last byte included),
//! `capacity_mbps` is the capacity over the run, and a trace's cost follows its lines, not
//! its period.

mod common;
use common::*;
use std::path::PathBuf;
use std::time::Duration as Wall;
use tcplab_core::cc::CcKind;
use tcplab_core::Duration;
use tcplab_sim::config::*;
use tcplab_sim::link::trace_info;

/// The 13 traces shipped in python/tcplab/traces/cellular.
const SHIPPED: [&str; 13] = [
    "ATT-LTE-driving-2016.down",
    "ATT-LTE-driving-2016.up",
    "ATT-LTE-driving.down",
    "ATT-LTE-driving.up",
    "TMobile-LTE-driving.down",
    "TMobile-LTE-short.down",
    "TMobile-LTE-short.up",
    "TMobile-UMTS-driving.down",
    "TMobile-UMTS-driving.up",
    "Verizon-EVDO-driving.down",
    "Verizon-EVDO-driving.up",
    "Verizon-LTE-short.down",
    "Verizon-LTE-short.up",
];

fn shipped(name: &str) -> String {
    trace_dir().join(name).to_string_lossy().into_owned()
}

fn trace_link(path: &str, delay_ms: u64, queue_pkts: u64) -> LinkSpec {
    let mut l = fixed(1, delay_ms, queue_pkts);
    l.rate = RateSpec::Trace {
        path: path.into(),
        opportunity_bytes: 1500,
    };
    l
}

/// Writes a trace file of this test binary's own and returns its path.
fn write_trace(name: &str, text: &str) -> String {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("tcplab-trace-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// Opportunities of a trace file (one pass) strictly before `ms`, over repeated passes.
fn opportunities_before(path: &str, ms: u64) -> u64 {
    let times: Vec<u64> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let period = *times.last().unwrap();
    let (q, r) = (ms / period, ms % period);
    let at_period = times.iter().filter(|&&t| t == period).count() as u64;
    let boundary = if r == 0 && q > 0 { at_period } else { 0 };
    q * times.len() as u64 - boundary + times.iter().filter(|&&t| t < r).count() as u64
}

fn upload(mut s: Scenario) -> Scenario {
    s.flows[0] = flow("upload", "client", "server");
    s
}

/// The report's run: a 3 s download over ATT-LTE-driving.down (100-packet queue, 20 ms each
/// way) exited 3 with "sent 2002560 bytes but its capacity over the run is 2002500 bytes".
/// The link was busy to the end; its last packet left at the opportunity at 3002 ms, which
/// the check's window [0, 3002 ms) left out: 1335 opportunities counted, 1336 used.
#[test]
fn class1_att_lte_driving_download_from_the_report_keeps_the_capacity_invariant() {
    let down = shipped("ATT-LTE-driving.down");
    assert_eq!(opportunities_before(&down, 3000), 1335);
    assert_eq!(opportunities_before(&down, 3003), 1336);
    for cc in [CcKind::NewReno, CcKind::Cubic] {
        let mut s = p2p(
            "att",
            trace_link(&down, 20, 100),
            trace_link(&shipped("Verizon-LTE-short.up"), 20, 1000),
            3,
        );
        s.flows[0].tcp.cc = cc;
        // The report's run, under the TCP rules of its time (the validated rules): it keeps
        // the link busy to the end, which is the case the check must count.
        common::validated_rules(&mut s.flows[0].tcp);
        let out = run_ok(&s);
        let l = &out.summary.links[0];
        assert!(
            l.tx_bytes > 1335 * 1500,
            "{cc:?}: the link was saturated: {l:?}"
        );
        assert!(l.utilization <= 1.0, "{cc:?}: {l:?}");
    }
}

/// Every shipped trace, as the downlink and as the uplink, under a plain download and a
/// plain upload (so each trace carries data and carries ACKs), for 3, 4 and 7 s, keeps
/// every invariant. (Before the fix 15 of these 156 runs broke the capacity invariant.)
#[test]
fn class1_every_shipped_trace_both_ways_under_downloads_and_uploads() {
    let (mut runs, mut broken) = (0, Vec::new());
    for name in SHIPPED {
        let t = shipped(name);
        for secs in [3, 4, 7] {
            for trace_is_down in [true, false] {
                for is_upload in [false, true] {
                    let (down, up) = if trace_is_down {
                        (trace_link(&t, 20, 100), fixed(20_000_000, 20, 100))
                    } else {
                        (fixed(20_000_000, 20, 100), trace_link(&t, 20, 100))
                    };
                    let mut s = p2p(name, down, up, secs);
                    s.record.timeseries = false;
                    if is_upload {
                        s = upload(s);
                    }
                    s.flows[0].tcp.cc = if is_upload {
                        CcKind::NewReno
                    } else {
                        CcKind::Cubic
                    };
                    let case = format!(
                        "{name} as {}, {}, {secs} s",
                        if trace_is_down { "downlink" } else { "uplink" },
                        if is_upload { "upload" } else { "download" },
                    );
                    let out = tcplab_sim::run(&s, &mut |_| true).expect("run failed");
                    if !out.summary.invariants.ok {
                        broken.push(format!("{case}: {:?}", out.summary.invariants.violations));
                    }
                    for l in out.summary.links.iter().filter(|l| l.utilization > 1.0) {
                        broken.push(format!(
                            "{case}: '{}' utilisation {}",
                            l.name, l.utilization
                        ));
                    }
                    assert!(out.summary.flows[0].bytes_delivered > 0, "{case}");
                    runs += 1;
                }
            }
        }
    }
    assert_eq!(runs, 13 * 3 * 2 * 2);
    assert!(broken.is_empty(), "broken:\n{}", broken.join("\n"));
}

/// A one-line trace whose only opportunity is at 2 s: nothing crosses the link before 2 s
/// (the server's SYN reaches the client at 2 s + 20 ms, and only then does the client
/// answer), and runs that end before the packet has left keep the capacity invariant (the
/// SYN, handed to the link at 0, leaves at the 2 s opportunity).
#[test]
fn class1_one_line_trace_sends_nothing_before_its_opportunity() {
    let t = write_trace("at2s.down", "2000\n");
    let run_ms = |ms: u64| {
        let mut s = p2p(
            "at2s",
            trace_link(&t, 20, 100),
            fixed(10_000_000, 20, 100),
            1,
        );
        s.duration = Duration::from_millis(ms);
        run_ok(&s)
    };
    for ms in [1000, 2000, 2020] {
        let out = run_ms(ms);
        let (down, up) = (&out.summary.links[0], &out.summary.links[1]);
        assert_eq!(up.tx_packets, 0, "{ms} ms: the client heard nothing yet");
        // The run is [0, ms): the opportunity at 2 s is in it from 2001 ms on.
        let opportunities = if ms > 2000 { 1.0 } else { 0.0 };
        let want = opportunities * 12_000.0 / (ms as f64 * 1e-3) / 1e6;
        assert!(
            (down.capacity_mbps - want).abs() < 1e-12,
            "{ms} ms: {down:?}"
        );
        assert_eq!(out.summary.flows[0].bytes_delivered, 0);
    }
    let out = run_ms(2021);
    // The SYN and its retransmission (RTO 1 s), both waiting at 2 s, share that
    // opportunity; the client answers each at 2020 ms.
    assert_eq!(
        out.summary.links[1].tx_packets, 2,
        "the SYN-ACKs, at 2020 ms"
    );
    // Over 4 s the link has had its opportunities at 2 s and 4 s (the period is 2 s).
    let out = run_ms(4100);
    let down = &out.summary.links[0];
    assert!(down.tx_bytes <= 3000, "{down:?}");
    assert!((down.capacity_mbps - 2.0 * 1500.0 * 8.0 / 4.1 / 1e6).abs() < 1e-12);
}

/// `capacity_mbps` is the capacity over the run, bytes the link could carry in
/// [0, duration) * 8 / duration, not the trace's (or schedule's) long-run mean.
#[test]
fn class1_capacity_mbps_is_the_capacity_over_the_run() {
    let att = shipped("ATT-LTE-driving.down");
    let mut s = p2p(
        "cap",
        trace_link(&att, 20, 100),
        fixed(10_000_000, 20, 100),
        3,
    );
    let out = run_ok(&s);
    let l = &out.summary.links[0];
    let want = 1335.0 * 1500.0 * 8.0 / 3.0 / 1e6; // 5.34, the file's mean is 5.17
    assert!(
        (l.capacity_mbps - want).abs() < 1e-12,
        "{}",
        l.capacity_mbps
    );
    assert!((trace_info(&att).unwrap().mean_mbps - 5.17).abs() < 0.01);
    // A fixed rate is its own capacity over any run.
    assert_eq!(out.summary.links[1].capacity_mbps, 10.0);

    // Three opportunities at 0, one at 10 s (the period): 2 s runs see the three only.
    let burst = write_trace("burst.down", "0\n0\n0\n10000\n");
    s.topology = TopologySpec::PointToPoint {
        downlink: trace_link(&burst, 20, 100),
        uplink: fixed(10_000_000, 20, 100),
    };
    s.duration = Duration::from_secs(2);
    let out = run_ok(&s);
    assert!((out.summary.links[0].capacity_mbps - 3.0 * 12_000.0 / 2.0 / 1e6).abs() < 1e-12);

    // A schedule: 3, 15, 15 Mbit/s for 530 ms each; 2 s = 530 ms at 3, 1060 ms at 15 and
    // 410 ms at 3 Mbit/s (the long-run mean is 11).
    let mut down = fixed(1, 20, 100);
    down.rate = RateSpec::Schedule {
        rates_bps: vec![3_000_000, 15_000_000, 15_000_000],
        slot: Duration::from_millis(530),
    };
    s.topology = TopologySpec::PointToPoint {
        downlink: down,
        uplink: fixed(10_000_000, 20, 100),
    };
    let out = run_ok(&s);
    let want = (0.530 * 3.0 + 1.060 * 15.0 + 0.410 * 3.0) / 2.0;
    assert!(
        (out.summary.links[0].capacity_mbps - want).abs() < 1e-6,
        "{} vs {want}",
        out.summary.links[0].capacity_mbps
    );
}

/// Issue 20 class 5: a two-line trace with a huge last timestamp (a period of 31.7 years,
/// or the largest accepted, 584 years) costs no more than any two-line trace: statistics
/// and a 1 s run take microseconds (trace-info took 4 s for the first, 75 s for the second,
/// looping over the period's windows). Each step runs under a hang guard far above its cost
/// and below the loop's (issue 35: a test never asserts a speed).
#[test]
fn class5_huge_period_trace_is_fast_in_info_and_run() {
    for (name, last_ms) in [
        ("huge.down", 1_000_000_000_000u64),
        ("max.down", 18_446_744_073_709),
    ] {
        let t = write_trace(name, &format!("0\n{last_ms}\n"));
        let path = t.clone();
        let info = within_hang_guard(move || trace_info(&path).unwrap());
        assert_eq!((info.lines, info.duration_ms), (2, last_ms));
        // The first 1 s window holds the line at 0; every other whole window is empty.
        assert_eq!(info.min_mbps, 0.0);
        assert!((info.max_mbps - 0.012).abs() < 1e-12);
        // A 1 s download: the first packet takes the opportunity at 0, the rest would wait
        // for the next pass. (No propagation delay on the trace link: a departure centuries
        // away plus a delay can exceed the simulator's clock.)
        let s = p2p(name, trace_link(&t, 0, 100), fixed(10_000_000, 20, 100), 1);
        let out = within_hang_guard(move || run_ok(&s));
        let l = &out.summary.links[0];
        assert!(l.tx_packets >= 1 && l.utilization <= 1.0, "{name}: {l:?}");
        assert!((l.capacity_mbps - 0.012).abs() < 1e-12, "{name}: {l:?}");
    }
}

/// Runs `f` on a thread and fails the test if it has not returned after 20 s: a hang
/// guard, thousands of times the cost of what it guards here, below the bug's.
fn within_hang_guard<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Wall::from_secs(20))
        .expect("hang guard: still running after 20 s (or panicked)")
}

/// The flow-side capacity check had the same half-open window: a flow that connects early,
/// writes one byte at 73.7 ms and has it read at 74 ms, the instant of the trace
/// opportunity (every 2 ms, no propagation delay) that carried it, "read 1 bytes but link
/// 'downlink' could carry only 0 bytes while it was active" (found by fuzzing).
#[test]
fn class1_a_flow_read_at_the_instant_of_its_last_opportunity_keeps_the_flow_check() {
    let t = write_trace("every2ms.down", "2\n");
    let mut s = p2p(
        "at-opportunity",
        trace_link(&t, 0, 100),
        fixed(10_000_000, 0, 100),
        1,
    );
    s.flows[0].connect = Some(tcplab_core::Instant::from_millis(29));
    s.flows[0].start = tcplab_core::Instant::from_nanos(73_722_898);
    s.flows[0].bytes = Some(1);
    s.stop_when_done = true;
    let out = run_ok(&s);
    assert_eq!(out.summary.flows[0].completion_s, Some(0.074));
    assert_eq!(out.summary.flows[0].bytes_delivered, 1);
}

#[test]
fn class1_a_packet_that_cannot_leave_before_the_end_of_time_is_not_counted_as_sent() {
    // The fuzzer's case: opportunities 100 years apart, each of 100 bytes, so a 1500-byte
    // packet needs more opportunities than fit in u64 nanoseconds. Its departure saturates
    // at Instant::MAX; the check used to count it as sent against the 11 opportunities that
    // precede that instant ("sent 1560 bytes but its capacity over the run is 1100").
    let t = write_trace("century.down", "1\n3153600000000\n");
    let mut down = trace_link(&t, 0, 100);
    down.rate = RateSpec::Trace {
        path: t.clone(),
        opportunity_bytes: 100,
    };
    let mut s = p2p("century", down, fixed(10_000_000, 1, 100), 1);
    s.duration = Duration::from_millis(1200);
    let out = run_ok(&s);
    assert!(out.summary.links[0].tx_packets >= 1);
}
