//! What a run produces: the summary (the `summary.json` schema, version 1, documented in
//! docs/summary.md) and the time series in long form (one row per time, entity, metric).

use serde::{Deserialize, Serialize};

pub const SUMMARY_SCHEMA: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub schema: u32,
    pub scenario: String,
    pub seed: u64,
    /// Filled by the caller that knows the scenario's source text (empty from Rust).
    pub scenario_sha256: String,
    pub duration_s: f64,
    pub events: u64,
    /// Filled by the caller (the simulator never reads a clock).
    pub wall_s: f64,
    pub invariants: Invariants,
    pub flows: Vec<FlowSummary>,
    pub links: Vec<LinkSummary>,
    /// Node elements, in the order the scenario lists them per node (absent in summaries
    /// written before elements existed).
    #[serde(default)]
    pub elements: Vec<ElementSummary>,
    /// Jain's index over the flows' goodputs (1.0 with a single flow).
    pub jain_fairness: f64,
    /// Web page loads (absent from runs without any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<PageSummary>,
    /// Open-loop workloads (absent from runs without any); their flows are not in `flows`
    /// but one row each in the run's `workload_flows`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<WorkloadSummary>,
}

/// One open-loop workload (`[[workloads]]`): its flows' completion times, over all of them
/// and per size bucket. A flow's completion time (FCT) runs from its arrival to the
/// receiving application's read of its last byte.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadSummary {
    pub name: String,
    /// "src->dst" nodes of the data direction.
    pub direction: String,
    pub cc: String,
    pub fc: String,
    /// Flows that arrived within the run.
    pub arrived: u64,
    /// Flows whose last byte was read within the run.
    pub completed: u64,
    /// Flows alive at the end of the run (arrived, not completed).
    pub active_at_end: u64,
    /// Most flows alive at once.
    pub max_active: u64,
    /// Bytes of the flows that arrived, and the offered load they make over the time
    /// arrivals were possible (from `start` to `stop` or the end of the run).
    pub bytes_arrived: u64,
    pub offered_mbps: f64,
    /// Bytes the receiving applications read, all flows (those alive at the end included).
    pub bytes_delivered: u64,
    /// Data packets that reached the receivers (retransmissions included), all flows.
    pub data_packets_delivered: u64,
    pub fct_ms: FctStats,
    pub buckets: Vec<FctBucket>,
}

/// Completion times of the completed flows of one size range, in milliseconds (nearest
/// rank, from the log histogram of every delay statistic: within 0.8%, or exact with
/// `record.exact_percentiles`); `arrived` counts the range's flows, complete or not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct FctStats {
    pub arrived: u64,
    pub completed: u64,
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// One size bucket: flows of `min_bytes..=max_bytes` (`max_bytes` None: no upper edge).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FctBucket {
    pub min_bytes: u64,
    pub max_bytes: Option<u64>,
    pub fct_ms: FctStats,
}

/// Every flow of the run's workloads, one row each in column arrays (the Parquet table
/// `workload_flows.parquet`), ordered by workload then arrival.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct WorkloadFlows {
    /// Index into `Summary::workloads`.
    pub workload: Vec<u32>,
    /// The flow's place in its workload's arrivals, from 0.
    pub id: Vec<u64>,
    pub size_bytes: Vec<u64>,
    pub start_ns: Vec<u64>,
    /// Completion time; None for flows not complete at the end of the run.
    pub fct_ns: Vec<Option<u64>>,
    pub bytes_delivered: Vec<u64>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
}

/// One web page load (`[[pages]]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageSummary {
    pub name: String,
    pub start_s: f64,
    pub objects: u64,
    /// Response bytes of all objects.
    pub bytes: u64,
    pub objects_done: u64,
    pub connections_opened: u64,
    /// From `start` to the last byte of the last object read; None if the page did not load
    /// within the run.
    pub load_time_s: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct Invariants {
    pub ok: bool,
    pub violations: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct Percentiles {
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub count: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowSummary {
    pub id: u32,
    pub name: String,
    /// "src->dst" nodes of the data direction.
    pub direction: String,
    pub cc: String,
    pub fc: String,
    /// The congestion controller the sender ran (issue 35): `cc`, or `"cubic"` when the
    /// handshake left a rate-based or Sprout sender without what it reads (`fallbacks`
    /// says why). Older summaries lack it (read as "").
    #[serde(default)]
    pub cc_effective: String,
    /// The receiver policy the receiver ran: its configured `fc`, or `"classic"` when the
    /// handshake left RSFC without timestamps or AFC without the peer's option.
    #[serde(default)]
    pub fc_effective: String,
    /// Each mechanism that ran as another than configured, with why (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<Fallback>,
    /// Bytes read by the receiving application * 8 / (active time of the flow).
    pub goodput_mbps: f64,
    /// Bytes read by the receiving application.
    pub bytes_delivered: u64,
    /// Bytes the sending application wrote into TCP: the configured `bytes`, or less when
    /// the flow's `stop` came first.
    pub bytes_written: u64,
    pub data_packets_delivered: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Timeouts F-RTO (RFC 5682) found spurious and undid (a subset of `timeouts`).
    pub spurious_timeouts: u64,
    pub fast_retransmits: u64,
    pub zero_window_events: u64,
    /// Times the sender saw the advertised window fall below one segment (zero included)
    /// with data waiting: stalls like a zero window's, which a packet-granular stack would
    /// have advertised as zero (issue 17). Older summaries lack it (read as 0).
    #[serde(default)]
    pub stall_window_events: u64,
    pub zero_window_probes: u64,
    /// AFC: data segments the receive buffer had no room for (dropped by the receiver).
    pub rcv_buffer_drops: u64,
    /// AFC: proactive ACKs the receiver sent.
    pub proactive_acks: u64,
    pub owd_ms: Percentiles,
    pub rtt_ms: Percentiles,
    pub start_s: f64,
    /// When the receiving application read the last byte of a finite flow's configured
    /// `bytes`. None for unlimited flows and for flows stopped before writing all of them.
    pub completion_s: Option<f64>,
    /// ECN counters (RFC 3168), only for flows whose sender or receiver has `tcp.ecn` set
    /// (absent otherwise, so summaries of runs without ECN are unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<EcnSummary>,
    /// RSFC's receiver state (RSFC paper section III), only for flows whose receiver ran
    /// it (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rsfc: Option<RsfcSummary>,
}

/// A mechanism that ran as another than configured (issue 35), at one end of a flow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fallback {
    /// "sender" or "receiver": the endpoint whose configuration it is.
    pub end: String,
    /// "cc" or "fc".
    pub key: String,
    pub configured: String,
    pub effective: String,
    pub why: String,
}

/// One RSFC receiver at the end of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct RsfcSummary {
    /// The state at the end: "slow", "fast" or "monitor".
    pub state: String,
    /// Fractions of the time since the connection was established spent in each state.
    pub time_slow: f64,
    pub time_fast: f64,
    pub time_monitor: f64,
    pub fast_entries: u64,
    /// Completed slow/fast cycles (fast -> slow).
    pub slow_entries: u64,
    pub monitor_entries: u64,
    /// III-C (i): minima raised to the last cycle's after the receive rate rose in it.
    pub cycle_minima_updates: u64,
    /// Monitor case (a): the receive rate rose.
    pub monitor_rho_increases: u64,
    /// Monitor case (b): both minima halved.
    pub minima_halvings: u64,
    /// Data segments that gave a delay sample (in order, no hole, timestamps).
    pub delay_samples: u64,
    /// RD_min and RTT_min at the end, milliseconds (RD_min includes any clock offset).
    pub rd_min_ms: Option<f64>,
    pub rtt_min_ms: Option<f64>,
    /// RSFC's window at the end, bytes.
    pub window_bytes: u64,
}

impl RsfcSummary {
    pub fn of(rcv: &tcplab_core::tcp::Endpoint, now: tcplab_core::time::Instant) -> Option<Self> {
        let tcplab_core::fc::Fc::Rsfc(r) = rcv.receiver_policy() else {
            return None;
        };
        let s = r.stats_at(now);
        let total = (s.ns_slow + s.ns_fast + s.ns_monitor).max(1) as f64;
        Some(RsfcSummary {
            state: r.state().name().to_string(),
            time_slow: s.ns_slow as f64 / total,
            time_fast: s.ns_fast as f64 / total,
            time_monitor: s.ns_monitor as f64 / total,
            fast_entries: s.fast_entries,
            slow_entries: s.slow_entries,
            monitor_entries: s.monitor_entries,
            cycle_minima_updates: s.cycle_minima_updates,
            monitor_rho_increases: s.monitor_rho_increases,
            minima_halvings: s.minima_halvings,
            delay_samples: s.delay_samples,
            rd_min_ms: r.rd_min().map(|d| d.as_millis_f64()),
            rtt_min_ms: r.rtt_min().map(|d| d.as_millis_f64()),
            window_bytes: r.window(),
        })
    }
}

/// One flow's ECN events (RFC 3168 section 6.1), from both endpoints' counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct EcnSummary {
    /// Both ends asked for ECN in the handshake (6.1.1); all counters are 0 otherwise.
    pub negotiated: bool,
    /// Data segments the sender sent as ECT(0) (new data; never retransmissions or probes).
    pub ect_sent: u64,
    /// Data segments that reached the receiver marked CE.
    pub ce_received: u64,
    /// ACKs the receiver sent with ECE.
    pub ece_sent: u64,
    /// Window reductions the sender made on ECE (at most one per window of data).
    pub reductions: u64,
    /// Data segments the sender sent with CWR.
    pub cwr_sent: u64,
}

impl EcnSummary {
    /// The summary of a flow from its sender's and receiver's endpoints, if either end was
    /// configured for ECN.
    pub fn of(
        snd: &tcplab_core::tcp::Endpoint,
        rcv: &tcplab_core::tcp::Endpoint,
    ) -> Option<EcnSummary> {
        if !snd.config().ecn && !rcv.config().ecn {
            return None;
        }
        let (s, r) = (snd.stats(), rcv.stats());
        Some(EcnSummary {
            negotiated: snd.ecn_negotiated(),
            ect_sent: s.ecn_ect_sent,
            ce_received: r.ecn_ce_received,
            ece_sent: r.ecn_ece_sent,
            reductions: s.ecn_reductions,
            cwr_sent: s.ecn_cwr_sent,
        })
    }
}

/// One node element: what the world counted of it and what it reports itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElementSummary {
    pub node: String,
    pub kind: String,
    pub counters: crate::element::ElementCounters,
    pub held_at_end: u64,
    /// The element's own counters (for BSF: arrivals, flushes, ZWAs sent, thresholds).
    pub detail: serde_json::Value,
}

impl ElementSummary {
    /// An element as its driver (the world, the live emulator) holds it, on `nodes`.
    pub fn of(slot: &crate::element::Slot, nodes: &[String]) -> ElementSummary {
        ElementSummary {
            node: nodes[slot.node].clone(),
            kind: slot.elem.kind().to_string(),
            counters: slot.c,
            held_at_end: slot.elem.held(),
            detail: slot.elem.report(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct Drops {
    /// Dropped by the queue discipline (buffer full).
    pub queue: u64,
    /// Dropped by the link's loss model.
    pub loss: u64,
    /// Kept with CE set by the queue (RED links only; absent elsewhere). Not drops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marks: Option<u64>,
}

/// What a RED queue did over the run (ns-2's counterparts in brackets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct RedSummary {
    /// Every arrival at the link, those sent straight onto an idle link included.
    pub arrivals: u64,
    /// Random drops between the thresholds and in the gentle region (ns-2 "unforced").
    pub early_drops: u64,
    /// Buffer overflows (ns-2 "forced").
    pub forced_drops: u64,
    /// CE marks (ECN-capable packets chosen early, kept).
    pub marks: u64,
    /// Mean over arrivals of the average queue after its update (ns-2's `ave_` trace),
    /// in packets or, with `queue_in_bytes`, bytes.
    pub mean_ave: f64,
    /// Mean over arrivals of the backlog each found (ns-2's `curq_` trace).
    pub mean_curq: f64,
}

impl From<crate::queue::RedStats> for RedSummary {
    fn from(s: crate::queue::RedStats) -> Self {
        let n = s.arrivals.max(1) as f64;
        RedSummary {
            arrivals: s.arrivals,
            early_drops: s.early_drops,
            forced_drops: s.forced_drops,
            marks: s.marks,
            mean_ave: s.ave_sum / n,
            mean_curq: s.curq_sum / n,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    /// Wire bytes sent / bytes the link could have carried over the run.
    pub utilization: f64,
    pub capacity_mbps: f64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: Drops,
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    /// RED links only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<RedSummary>,
}

/// Long-form time series: row i is `(time_ns[i], entities[entity[i]], metrics[metric[i]], value[i])`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct TimeSeries {
    /// (kind, name): kind is "flow" or "link".
    pub entities: Vec<(String, String)>,
    pub metrics: Vec<String>,
    pub time_ns: Vec<u64>,
    pub entity: Vec<u32>,
    pub metric: Vec<u16>,
    /// NaN where a metric has no value at that time (JSON writes it as `null`).
    #[serde(deserialize_with = "nan_from_null")]
    pub value: Vec<f64>,
}

/// serde_json writes NaN as `null`; read it back as NaN so output round-trips.
fn nan_from_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    let v: Vec<Option<f64>> = serde::Deserialize::deserialize(d)?;
    Ok(v.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect())
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunOutput {
    pub summary: Summary,
    pub timeseries: TimeSeries,
    /// Per flow (name): the one-way delay CDF of data packets as (delay_ms, fraction) points.
    pub owd_cdf_ms: Vec<(String, Vec<(f64, f64)>)>,
    /// The workloads' flows (empty without workloads, and then left out of the JSON).
    #[serde(default, skip_serializing_if = "WorkloadFlows::is_empty")]
    pub workload_flows: WorkloadFlows,
}

impl WorkloadFlows {
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}
