//! Scenario builders shared by the end-to-end tests.
#![allow(dead_code)]

use tcplab_core::tcp::TcpConfig;
use tcplab_core::{Duration, Instant};
use tcplab_sim::config::*;

pub fn fixed(bps: u64, delay_ms: u64, queue_pkts: u64) -> LinkSpec {
    LinkSpec {
        rate: RateSpec::Fixed { bps },
        delay: Duration::from_millis(delay_ms),
        delay_changes: Vec::new(),
        rate_changes: Vec::new(),
        queue: QueueSpec {
            discipline: Discipline::DropTail,
            limit_packets: Some(queue_pkts),
            limit_bytes: None,
            red: None,
        },
        loss: LossSpec::None,
        header_bytes: 0,
    }
}

pub fn flow(name: &str, src: &str, dst: &str) -> FlowSpec {
    FlowSpec {
        name: name.into(),
        src: src.into(),
        dst: dst.into(),
        start: Instant::ZERO,
        connect: None,
        stop: None,
        pauses: Vec::new(),
        bytes: None,
        tcp: TcpConfig::default(),
        receiver_tcp: None,
        read: ReadProfile::Unlimited,
    }
}

/// A download over a point-to-point path: `down` carries data, `up` carries ACKs.
pub fn p2p(name: &str, down: LinkSpec, up: LinkSpec, secs: u64) -> Scenario {
    Scenario {
        name: name.into(),
        seed: 1,
        duration: Duration::from_secs(secs),
        event_budget: None,
        record: RecordSpec::default(),
        topology: TopologySpec::PointToPoint {
            downlink: down,
            uplink: up,
        },
        flows: vec![flow("download", "server", "client")],
        stop_when_done: false,
        elements: vec![],
        pages: vec![],
        workloads: vec![],
    }
}

pub fn run_ok(s: &Scenario) -> tcplab_sim::RunOutput {
    let out = tcplab_sim::run(s, &mut |_| true).expect("run failed");
    assert!(
        out.summary.invariants.ok,
        "invariants violated: {:#?}",
        out.summary.invariants.violations
    );
    out
}

/// The time series of one metric of entity `entity` (flows first, then links), in time order.
pub fn series(out: &tcplab_sim::RunOutput, entity: u32, metric: &str) -> Vec<f64> {
    let ts = &out.timeseries;
    (0..ts.value.len())
        .filter(|&i| ts.entity[i] == entity && ts.metrics[ts.metric[i] as usize] == metric)
        .map(|i| ts.value[i])
        .collect()
}

/// The cellular traces shipped in the repository (inside the Python package, so wheels carry them).
pub fn trace_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/tcplab/traces/cellular")
}

/// The TCP rules the reproductions validate with (`TcpConfig::apply_validated_rules`).
pub fn validated_rules(t: &mut TcpConfig) {
    t.apply_validated_rules();
}
