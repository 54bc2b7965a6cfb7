//! Scenario changes during a run (docs/scenarios.md): a link whose fixed rate changes at
//! given times (`rate_changes`), as in the DARCA paper's Fig. 7 experiment ("the
//! bottleneck bandwidth of TCP2 decreased to 100kbps at 100 sec").

mod common;
use common::*;
use tcplab_core::Duration;
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
