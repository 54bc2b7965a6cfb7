//! Scenario changes during a run (docs/scenarios.md): a link whose fixed rate changes at
//! given times (`rate_changes`) and a flow whose sending application pauses (`pauses`), the
//! two events of the DARCA paper's Fig. 7 experiment ("the bottleneck bandwidth of TCP2
//! decreased to 100kbps at 100 sec"; "TCP2 stopped sending data at 200 sec, started
//! sending data at 300 sec").

mod common;
use common::*;
use tcplab_core::{Duration, Instant};
use tcplab_sim::config::*;

/// `delivered_bytes` of flow 0 sampled every 100 ms: index i is the time (i + 1) x 100 ms.
fn delivered(out: &tcplab_sim::RunOutput) -> Vec<f64> {
    series(out, 0, "delivered_bytes")
}

/// Mbit/s of application data read between two sampling times (in tenths of a second).
fn goodput(d: &[f64], from_ds: usize, to_ds: usize) -> f64 {
    (d[to_ds - 1] - d[from_ds - 1]) * 8.0 / ((to_ds - from_ds) as f64 * 0.1) * 1e-6
}

fn downlink(s: &mut Scenario) -> &mut LinkSpec {
    match &mut s.topology {
        TopologySpec::PointToPoint { downlink, .. } => downlink,
        _ => unreachable!(),
    }
}

fn error_of(s: &Scenario) -> String {
    tcplab_sim::run(s, &mut |_| true).unwrap_err().to_string()
}

/// The downlink falls from 10 to 1 Mbit/s at 5 s: a bulk flow's goodput follows the rate
/// in force (1448 payload bytes in every 1500 wire bytes), and the summary's capacity is
/// the mean of the two rates over the run, not the rate configured first.
#[test]
fn a_bulk_flow_follows_a_link_rate_drop() {
    let mut s = p2p(
        "rate-drop",
        fixed(10_000_000, 20, 50),
        fixed(10_000_000, 20, 1000),
        12,
    );
    downlink(&mut s).rate_changes = vec![RateChange {
        at: Duration::from_secs(5),
        bps: 1_000_000,
    }];
    let out = run_ok(&s);
    let d = delivered(&out);
    let payload = 1448.0 / 1500.0;
    let before = goodput(&d, 20, 50); // 2-5 s
    let after = goodput(&d, 70, 120); // 7-12 s
    assert!(
        (before / (10.0 * payload) - 1.0).abs() < 0.03,
        "before the drop: {before} Mbit/s"
    );
    assert!(
        (after / (1.0 * payload) - 1.0).abs() < 0.03,
        "after the drop: {after} Mbit/s"
    );
    let l = &out.summary.links[0];
    let want = (5.0 * 10.0 + 7.0 * 1.0) / 12.0;
    assert!(
        (l.capacity_mbps - want).abs() < 1e-9,
        "capacity over the run {} (want {want})",
        l.capacity_mbps
    );
    // Utilisation against the changed capacity: busy from the first second or so on.
    assert!(
        l.utilization > 0.85 && l.utilization <= 1.0,
        "utilisation {}",
        l.utilization
    );
    // A rise back to 10 Mbit/s at 8 s is followed too.
    downlink(&mut s).rate_changes.push(RateChange {
        at: Duration::from_secs(8),
        bps: 10_000_000,
    });
    let d = delivered(&run_ok(&s));
    let again = goodput(&d, 100, 120); // 10-12 s
    assert!(
        (again / (10.0 * payload) - 1.0).abs() < 0.03,
        "after the rise: {again} Mbit/s"
    );
}

#[test]
fn rate_changes_rules_name_the_link_and_key() {
    let mut s = p2p(
        "rules",
        fixed(10_000_000, 20, 50),
        fixed(10_000_000, 20, 50),
        1,
    );
    let at = |ms| Duration::from_millis(ms);
    downlink(&mut s).rate_changes = vec![
        RateChange {
            at: at(500),
            bps: 1,
        },
        RateChange {
            at: at(200),
            bps: 1,
        },
    ];
    assert_eq!(
        error_of(&s),
        "invalid scenario: link 'downlink': rate_changes must be in increasing time order \
         (200000000 ns after 500000000 ns)"
    );
    downlink(&mut s).rate_changes = vec![RateChange { at: at(1), bps: 0 }];
    assert_eq!(
        error_of(&s),
        "invalid scenario: link 'downlink': rate_changes[0].bps = 0: a link rate must be \
         positive (bit/s)"
    );
    downlink(&mut s).rate_changes = vec![RateChange { at: at(1), bps: 5 }];
    downlink(&mut s).rate = RateSpec::Schedule {
        rates_bps: vec![1_000_000, 2_000_000],
        slot: at(100),
    };
    let e = error_of(&s);
    assert!(
        e.starts_with(
            "invalid scenario: link 'downlink': rate_changes: only a fixed-rate link can change \
             its rate; this link has a rate schedule"
        ),
        "{e}"
    );
}

/// A bulk flow pauses during [3 s, 6 s): once the send buffer (256 KiB, 0.2 s at 10 Mbit/s)
/// has drained, nothing more is read until 6 s; the connection stays open and the flow
/// resumes at the link's rate.
#[test]
fn a_paused_flow_sends_its_buffer_then_nothing_then_resumes() {
    let mut s = p2p(
        "pause",
        fixed(10_000_000, 20, 50),
        fixed(10_000_000, 20, 1000),
        9,
    );
    s.flows[0].tcp.snd_buf_bytes = 256 << 10;
    s.flows[0].pauses = vec![Pause {
        at: Instant::from_secs(3),
        until: Instant::from_secs(6),
    }];
    let out = run_ok(&s);
    let d = delivered(&out);
    let payload = 1448.0 / 1500.0;
    let rate = |a, b| goodput(&d, a, b) / (10.0 * payload);
    assert!(
        (rate(10, 30) - 1.0).abs() < 0.03,
        "before: {}",
        rate(10, 30)
    );
    // The buffer and what was in flight at 3 s arrive within 0.4 s; then nothing.
    assert!(d[29 + 4] - d[29] > 0.0);
    assert!(
        d[29 + 4] - d[29] <= (256 << 10) as f64 + 100_000.0,
        "{} bytes after the pause began",
        d[29 + 4] - d[29]
    );
    assert_eq!(d[33], d[59], "read during the pause (3.4 s to 6 s)");
    assert!((rate(70, 90) - 1.0).abs() < 0.03, "after: {}", rate(70, 90));
    let f = &out.summary.flows[0];
    assert_eq!(f.completion_s, None);
}

/// A pause from the flow's start writes nothing from the first instant on (the connection
/// still opens at `start`), and two pauses back to back ([1, 2) s, [2, 3) s) are one pause
/// [1, 3) s: nothing is written at 2 s.
#[test]
fn pauses_at_the_start_and_back_to_back() {
    let base = || {
        let mut s = p2p(
            "pauses",
            fixed(10_000_000, 20, 50),
            fixed(10_000_000, 20, 1000),
            5,
        );
        s.flows[0].tcp.snd_buf_bytes = 64 << 10;
        s
    };
    let mut s = base();
    s.flows[0].pauses = vec![Pause {
        at: Instant::ZERO,
        until: Instant::from_millis(1500),
    }];
    let out = run_ok(&s);
    let d = delivered(&out);
    assert_eq!(d[14], 0.0, "read before the pause at the start ended");
    assert!(d[25] > 0.0);
    // The handshake's RTT sample is there at 1 s: the connection opened at the start.
    let srtt = series(&out, 0, "srtt_ms");
    assert!(srtt[9] > 39.0 && srtt[9] < 45.0, "srtt at 1 s: {}", srtt[9]);

    let at = Instant::from_secs;
    let mut one = base();
    one.flows[0].pauses = vec![Pause {
        at: at(1),
        until: at(3),
    }];
    let mut two = base();
    two.flows[0].pauses = vec![
        Pause {
            at: at(1),
            until: at(2),
        },
        Pause {
            at: at(2),
            until: at(3),
        },
    ];
    let (a, b) = (run_ok(&one), run_ok(&two));
    assert_eq!(delivered(&a), delivered(&b));
    assert_eq!(
        a.summary.flows[0].bytes_written,
        b.summary.flows[0].bytes_written
    );
    let d = delivered(&a);
    assert_eq!(d[14], d[29], "read between 1.5 s and 3 s");
    assert!(d[49] > d[29]);
}

/// A pause that ends when the flow stops: the stop comes first, nothing is written after.
/// A flow of `bytes` completes later by the pause's length.
#[test]
fn pauses_with_stop_and_bytes() {
    let mut s = p2p(
        "pause-stop",
        fixed(10_000_000, 20, 50),
        fixed(10_000_000, 20, 1000),
        4,
    );
    s.flows[0].tcp.snd_buf_bytes = 64 << 10;
    s.flows[0].stop = Some(Instant::from_secs(2));
    s.flows[0].pauses = vec![Pause {
        at: Instant::from_secs(1),
        until: Instant::from_secs(2),
    }];
    let out = run_ok(&s);
    let d = delivered(&out);
    assert_eq!(d[14], d[39], "read after the buffer drained in the pause");
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, f.bytes_written);

    let mut s = p2p(
        "pause-bytes",
        fixed(10_000_000, 20, 50),
        fixed(10_000_000, 20, 1000),
        10,
    );
    s.flows[0].bytes = Some(2_000_000);
    s.flows[0].tcp.snd_buf_bytes = 64 << 10;
    let plain = run_ok(&s).summary.flows[0].completion_s.expect("completes");
    s.flows[0].pauses = vec![Pause {
        at: Instant::from_millis(500),
        until: Instant::from_millis(2500),
    }];
    let paused = run_ok(&s).summary.flows[0].completion_s.expect("completes");
    assert!(
        paused - plain > 1.8 && paused - plain < 2.3,
        "{plain} s without the pause, {paused} s with it"
    );
}

#[test]
fn pauses_rules_name_the_flow_and_key() {
    let mut s = p2p(
        "rules",
        fixed(10_000_000, 20, 50),
        fixed(10_000_000, 20, 50),
        10,
    );
    s.flows[0].start = Instant::from_secs(1);
    let p = |a: u64, b: u64| Pause {
        at: Instant::from_millis(a),
        until: Instant::from_millis(b),
    };
    s.flows[0].pauses = vec![p(500, 2000)];
    assert_eq!(
        error_of(&s),
        "invalid scenario: flows[0] ('download').pauses[0].at: a pause must not begin before \
         the flow starts (500000000 ns before 1000000000 ns)"
    );
    s.flows[0].pauses = vec![p(2000, 3000), p(2500, 4000)];
    assert_eq!(
        error_of(&s),
        "invalid scenario: flows[0] ('download').pauses[1].at: pauses must be in increasing \
         time order and must not overlap (this one begins at 2500000000 ns, before the \
         previous one ends at 3000000000 ns)"
    );
    s.flows[0].pauses = vec![p(2000, 3000), p(4000, 4000)];
    assert_eq!(
        error_of(&s),
        "invalid scenario: flows[0] ('download').pauses[1].until: must be after at \
         (4000000000 ns is not after 4000000000 ns)"
    );
    // Past the end of the run (and back to back) is fine.
    s.flows[0].pauses = vec![p(2000, 3000), p(3000, 4000), p(20_000, 30_000)];
    run_ok(&s);
}
