//! The canonical scenario the simulator runs: every quantity in base units (ns, bit/s,
//! bytes). The Python layer parses human units from TOML ("10Mbit/s", "265ms") and hands
//! this structure over as JSON; Rust tests and benchmarks build it directly.

use serde::{Deserialize, Serialize};
use tcplab_core::tcp::TcpConfig;
use tcplab_core::{Duration, Instant};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub seed: u64,
    /// Simulated time to run.
    pub duration: Duration,
    /// Maximum events processed before the run is declared a livelock (None: automatic,
    /// generous bound from link capacities and duration).
    #[serde(default)]
    pub event_budget: Option<u64>,
    #[serde(default)]
    pub record: RecordSpec,
    pub topology: TopologySpec,
    pub flows: Vec<FlowSpec>,
    /// End the run early once every finite flow has delivered all its bytes.
    #[serde(default)]
    pub stop_when_done: bool,
    /// Elements on nodes (routers, base stations), in the order they see a packet.
    #[serde(default)]
    pub elements: Vec<ElementSpec>,
    /// Web page loads (docs/scenarios.md "Pages").
    #[serde(default)]
    pub pages: Vec<PageSpec>,
    /// Open-loop workloads: flows that arrive, transfer a drawn size and leave
    /// (docs/scenarios.md "Workloads"). Left out of the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<WorkloadSpec>,
}

impl Scenario {
    /// Reads a canonical scenario: [`resolve_tcp_profiles`], then serde. Errors carry the
    /// path of the offending field ("topology.downlink.rate").
    pub fn from_json(text: &str) -> Result<Scenario, String> {
        let mut v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        resolve_tcp_profiles(&mut v)?;
        serde_path_to_error::deserialize(v).map_err(|e| format!("{}: {}", e.path(), e.inner()))
    }

    /// Flows and page connections: each is a TCP connection of the world, flows first, then
    /// every page's connections in order.
    pub fn connection_count(&self) -> usize {
        self.flows.len()
            + self
                .pages
                .iter()
                .map(|p| p.connections as usize)
                .sum::<usize>()
    }

    /// The (data sender, receiver) nodes of connection `f` (a page's responses go from its
    /// server to its client).
    pub fn connection_ends(&self, f: usize) -> (&str, &str) {
        if let Some(fl) = self.flows.get(f) {
            return (&fl.src, &fl.dst);
        }
        let mut k = f - self.flows.len();
        for p in &self.pages {
            if k < p.connections as usize {
                return (&p.server, &p.client);
            }
            k -= p.connections as usize;
        }
        ("", "")
    }
}

/// One web page load: a client fetches `objects` from a server over up to `connections`
/// persistent TCP connections (HTTP/1.1 without pipelining, as browsers of the RSFC paper's
/// time): the first object (the HTML) alone on the first connection, then the others,
/// each connection sending its next request once the previous response has fully arrived.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageSpec {
    pub name: String,
    /// Node of the browser (it opens the connections) and of the web server.
    pub client: String,
    pub server: String,
    /// When the first connection opens.
    #[serde(default)]
    pub start: Instant,
    /// Most connections open at once (browsers: 6 per host).
    pub connections: u32,
    /// Bytes of each request.
    pub request_bytes: u64,
    /// Response sizes in bytes, in the order requested; the first is the HTML.
    pub objects: Vec<u64>,
    /// TCP of the client (and of the server unless `server_tcp` is set).
    #[serde(default)]
    pub tcp: TcpConfig,
    #[serde(default)]
    pub server_tcp: Option<TcpConfig>,
}

/// An open-loop workload (issue 18; docs/scenarios.md "Workloads"): flows from `src` to
/// `dst` that arrive on their own schedule, whatever the network does (a Poisson process or
/// given times), each sending one size drawn from `sizes` and leaving once the receiving
/// application has read its last byte, as flow-completion-time studies model web or
/// data-centre traffic. Each flow's endpoints exist only while it is alive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    pub name: String,
    /// Node of every flow's data sender (it connects) and of its receiver.
    pub src: String,
    pub dst: String,
    pub arrivals: Arrivals,
    pub sizes: SizeDist,
    /// No flow arrives before `start` or at or after `stop` (None: the end of the run).
    #[serde(default)]
    pub start: Instant,
    #[serde(default)]
    pub stop: Option<Instant>,
    /// At most this many flows arrive (None: no limit but time).
    #[serde(default)]
    pub max_flows: Option<u64>,
    /// Upper edges (bytes, increasing) of the size buckets the summary gives completion
    /// times for; a last bucket holds the sizes above the last edge.
    pub size_buckets: Vec<u64>,
    #[serde(default)]
    pub tcp: TcpConfig,
    #[serde(default)]
    pub receiver_tcp: Option<TcpConfig>,
}

/// When a workload's flows arrive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrivals {
    /// A Poisson process of `per_second` arrivals per second from `start`: exponential
    /// gaps drawn from the workload's own random stream.
    Poisson { per_second: f64 },
    /// At these instants (non-decreasing; the scenario's `arrivals` file).
    Times { times: Vec<Instant> },
}

/// How many bytes each flow of a workload sends (at least 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    Fixed {
        bytes: u64,
    },
    /// Exponential with the given mean.
    Exponential {
        mean_bytes: f64,
    },
    /// Pareto with shape `shape` (> 1) and the given mean: scale = mean (shape - 1) / shape.
    Pareto {
        mean_bytes: f64,
        shape: f64,
    },
    /// An empirical CDF as (bytes, cumulative probability) points, both non-decreasing, the
    /// last probability 1: a draw u in [0, 1) falls between two points and the size is
    /// interpolated linearly between their sizes (ns-2's EmpiricalRandomVariable with
    /// interpolation, as the pFabric and HOMA workload files are used).
    Empirical {
        points: Vec<(u64, f64)>,
    },
}

/// An element on a node (see `crate::element`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElementSpec {
    pub node: String,
    pub element: ElementKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ElementKind {
    Bsf(BsfSpec),
    Darca(DarcaSpec),
}

/// DARCA at an edge router (DARCA paper sections 2-4; `crate::element::darca`): the control
/// point is the input port of the element's node on `link`. Either per-connection targets
/// (`targets`) or per-class control (`classes`), not both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DarcaSpec {
    /// The controlled link: it ends at the element's node.
    pub link: String,
    /// When DARCA starts its first control cycle (Fig. 5: 100 s; Figs. 6-7: 1 s). It meters
    /// from the start of the run.
    #[serde(default)]
    pub start: Instant,
    /// Per-connection administrative targets.
    #[serde(default)]
    pub targets: Vec<DarcaTarget>,
    /// Per-class control (section 3).
    #[serde(default)]
    pub classes: Vec<DarcaClass>,
    /// How a class's representative RTT is found (section 3).
    #[serde(default)]
    pub class_rtt: DarcaClassRtt,
    /// The learning rounds' revision factor (section 2: 0.8).
    #[serde(default = "default_darca_factor")]
    pub factor: f64,
    /// Relative distance from the target that still sets isSTABLE (the paper gives none).
    #[serde(default = "default_darca_tolerance")]
    pub tolerance: f64,
    /// Longest stable phase before the cycle restarts (Fig. 7: "near 100 sec").
    #[serde(default = "default_darca_max_stable")]
    pub max_stable: Duration,
    /// Shortest convergence period: eq. 1 gives a few round trips at high drop rates, and
    /// a round shorter than this measures too few packets to judge a rate.
    #[serde(default = "default_darca_min_convergence")]
    pub min_convergence: Duration,
    /// Longest convergence period (None: eq. 1 unbounded, as the paper). A connection held
    /// by its own bottleneck but not yet inferred remote enters eq. 1 with an RTT its own
    /// queue inflates: under the `linux` profile Fig. 6's TCP_2 made rounds of 69 s, during
    /// which a joining connection went uncontrolled (docs/darca.md, Known limits).
    #[serde(default)]
    pub max_convergence: Option<Duration>,
    /// The receiver window, bytes, that bounds a connection's window when it sees no drop
    /// (the paper's 65536).
    #[serde(default = "default_darca_rwnd")]
    pub rwnd: u64,
    /// RTT assumed for a connection whose packets carry no timestamps (the meter cannot
    /// time it); None: such a connection is an error to control.
    #[serde(default)]
    pub rtt: Option<Duration>,
    /// Beyond the paper: whether the model's target is corrected by what the control
    /// measured (docs/darca.md, "Measured correction").
    #[serde(default)]
    pub correction: DarcaCorrection,
}

/// How DARCA turns a target into a drop rate (scenario key `correction`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DarcaCorrection {
    /// The paper's open loop: Mathis's model inverted for the target itself.
    #[default]
    None,
    /// Beyond the paper: the model is inverted for the target times a gain per connection
    /// (or class), and after each round in which the control held it the gain moves by the
    /// square root of target / realised rate. Mathis's model leaves out the fast-recovery
    /// round trip and timeouts, so a Reno connection carries 69-94% of its rate (ns-2.35
    /// and tcplab alike, bench/ns2-compare "Reno under evenly spaced drops").
    Measured,
}

/// One connection's administrative target, bit/s of TCP payload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DarcaTarget {
    pub flow: String,
    pub bps: u64,
}

/// A class of connections by RTT (section 3): connections whose smallest measured RTT lies
/// in `[rtt_min, rtt_max)` share the class's target `bps` (its aggregate), each controlled
/// at `bps / fn`, `fn` its members present.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DarcaClass {
    pub rtt_min: Duration,
    pub rtt_max: Duration,
    pub bps: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DarcaClassRtt {
    /// Eq. 5: the harmonic mean of the members' measured RTTs.
    #[default]
    Harmonic,
    /// The middle of the class's RTT range (no per-flow RTT needed).
    Midpoint,
}

fn default_darca_factor() -> f64 {
    0.8
}
fn default_darca_tolerance() -> f64 {
    0.1
}
fn default_darca_max_stable() -> Duration {
    Duration::from_secs(100)
}
fn default_darca_min_convergence() -> Duration {
    Duration::from_millis(500)
}
fn default_darca_rwnd() -> u64 {
    65536
}

/// BSF at a base station (BSF paper section III; `crate::element::bsf`). What the paper
/// leaves open has a stated default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BsfSpec {
    /// The wireless link out of the node whose queue is the base station's TCP buffer.
    pub link: String,
    /// Weight w of the buffer average (eq. 1). The paper gives none; BSF was built into
    /// ns-2's RED, whose default q_weight is 0.002.
    #[serde(default = "default_bsf_weight")]
    pub weight: f64,
    /// TOTAL_buff in packets (eq. 2); default: the link's packet limit.
    #[serde(default)]
    pub total_buffer: Option<u64>,
    /// UDP_buff in packets (eq. 2): the share of the buffer kept for UDP. tcplab has no
    /// UDP sources yet, so it only shrinks TCP_buff.
    #[serde(default)]
    pub udp_buffer: u64,
    /// N of eqs. 3-4; default: the flows whose data crosses the link.
    #[serde(default)]
    pub sessions: Option<u64>,
    /// Thresholds in packets; default: eqs. 3 and 4.
    #[serde(default)]
    pub bsf_thresh: Option<f64>,
    #[serde(default)]
    pub flush_thresh: Option<f64>,
    /// n: a flow whose last n packets carried an ECN signal is not frozen (paper: 3).
    #[serde(default = "default_bsf_ecn_history")]
    pub ecn_history: u32,
    /// Copies of each zero-window advertisement sent at a flush (the paper: one).
    #[serde(default = "default_one_u32")]
    pub zwa_copies: u32,
    /// A collected flow record older than this at a flush is discarded unused.
    #[serde(default = "default_bsf_record_ttl")]
    pub record_ttl: Duration,
}

fn default_bsf_weight() -> f64 {
    0.002
}
fn default_bsf_ecn_history() -> u32 {
    3
}
fn default_one_u32() -> u32 {
    1
}
fn default_bsf_record_ttl() -> Duration {
    Duration::from_secs(1)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecordSpec {
    /// Sampling interval of the time series.
    pub interval: Duration,
    /// Record time series at all (off for large parameter sweeps).
    pub timeseries: bool,
    /// Keep every RTT and one-way-delay sample for exact percentiles (otherwise a
    /// fixed-size log histogram with 1% relative error is used).
    pub exact_percentiles: bool,
    /// pcap files to write, one per named link.
    pub pcap: Vec<PcapSpec>,
    /// Keep one row per workload flow (`workload_flows`; a few dozen bytes per ended
    /// flow). Off, a workload's memory is only its live flows and its completion-time
    /// histograms, whatever the number of flows over the run. Left out of the JSON when on.
    #[serde(skip_serializing_if = "is_true")]
    pub workload_flows: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Default for RecordSpec {
    fn default() -> Self {
        RecordSpec {
            interval: Duration::from_millis(100),
            timeseries: true,
            exact_percentiles: false,
            pcap: Vec::new(),
            workload_flows: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Link name (see `TopologySpec` for generated names).
    pub link: String,
    /// Output file path.
    pub path: String,
    /// Bytes of each packet to store (0 = whole packet, payload materialised from the
    /// byte pattern so checksums are real).
    #[serde(default)]
    pub snaplen: u32,
}

/// Topologies. Generated link names:
/// - `point_to_point`: nodes `server`, `client`; links `downlink` (server->client) and
///   `uplink` (client->server).
/// - `dumbbell`: nodes `s0..`, `r0..`, `left`, `right`; links `bottleneck` (left->right),
///   `bottleneck_rev` (right->left), `s{i}->left`, `left->s{i}`, `right->r{i}`, `r{i}->right`.
/// - `custom`: as listed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    PointToPoint {
        downlink: LinkSpec,
        uplink: LinkSpec,
    },
    Dumbbell {
        pairs: u32,
        bottleneck: LinkSpec,
        bottleneck_rev: LinkSpec,
        /// Sender access links (both directions).
        sender_access: LinkSpec,
        /// Receiver access links (both directions).
        receiver_access: LinkSpec,
    },
    Custom {
        nodes: Vec<String>,
        links: Vec<NamedLinkSpec>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedLinkSpec {
    pub name: String,
    pub from: String,
    pub to: String,
    #[serde(flatten)]
    pub spec: LinkSpec,
}

/// One direction of a link: serialiser + queue in front of it + propagation delay + loss.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub rate: RateSpec,
    #[serde(default)]
    pub delay: Duration,
    /// Changes of the propagation delay during the run (thesis 5.2.6, Figure 5.9: the RTT
    /// raised and restored mid-flow), in increasing `at`. A packet takes the delay in force
    /// when its last bit leaves the serialiser; the link stays FIFO (a packet never arrives
    /// before the one ahead of it), so a shorter delay first bunches the packets behind the
    /// ones still propagating under the longer one.
    #[serde(default)]
    pub delay_changes: Vec<DelayChange>,
    /// Changes of a fixed link rate during the run (the DARCA paper's Fig. 7: a bottleneck
    /// falling to 100 kbit/s mid-run), in increasing `at`; only with `RateSpec::Fixed` (a
    /// schedule or a trace already says how its rate varies). A packet takes the rate in
    /// force when its serialisation starts, as a delay change takes effect at departure.
    /// Left out of the JSON when empty, so the canonical form of every scenario without
    /// changes reads as it did before the key existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_changes: Vec<RateChange>,
    #[serde(default)]
    pub queue: QueueSpec,
    #[serde(default)]
    pub loss: LossSpec,
    /// Link-layer bytes added to every IP packet (ns-3 PPP: 2; Ethernet: 14 + 4 + 20).
    #[serde(default)]
    pub header_bytes: u32,
}

/// From simulated time `at` on, the link's propagation delay is `delay`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayChange {
    pub at: Duration,
    pub delay: Duration,
}

/// From simulated time `at` on, a fixed-rate link serialises at `bps` bit/s (positive).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateChange {
    pub at: Duration,
    pub bps: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RateSpec {
    Fixed {
        bps: u64,
    },
    /// Piecewise-constant, repeating: slot i lasts `slot` at `rates_bps[i]`.
    Schedule {
        rates_bps: Vec<u64>,
        slot: Duration,
    },
    /// Mahimahi trace: each line a millisecond timestamp of one delivery opportunity.
    Trace {
        path: String,
        #[serde(default = "default_opportunity_bytes")]
        opportunity_bytes: u32,
    },
}

fn default_opportunity_bytes() -> u32 {
    1500
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    #[default]
    DropTail,
    DropHead,
    /// Random Early Detection as ns-2.35's `Queue/RED` (queue/red.rs); parameters in
    /// `QueueSpec::red`.
    Red,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueueSpec {
    pub discipline: Discipline,
    /// Capacity in packets (None: unlimited unless `limit_bytes` is set).
    pub limit_packets: Option<u64>,
    /// Capacity in bytes (wire bytes: IP length plus link header).
    pub limit_bytes: Option<u64>,
    /// RED's parameters (`discipline = red` only; None there means ns-2's defaults).
    /// Absent from the JSON of other disciplines, so their scenarios read as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red: Option<RedSpec>,
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            discipline: Discipline::DropTail,
            limit_packets: Some(1000),
            limit_bytes: None,
            red: None,
        }
    }
}

/// RED parameters with ns-2.35's names and defaults (tcl/lib/ns-default.tcl). Zero and
/// negative values keep ns-2's meaning of "automatic" where ns-2 gives them one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedSpec {
    /// `thresh_`, packets (scaled by `mean_pktsize` when `queue_in_bytes`); 0 = automatic:
    /// max(5, half the packets the link sends in 5 ms).
    pub min_th: f64,
    /// `maxthresh_`, packets; 0 = automatic: 3 min_th.
    pub max_th: f64,
    /// `1 / linterm_`: the drop probability at max_th.
    pub max_p: f64,
    /// `q_weight_`: in (0, 1], or ns-2's automatic settings 0 (1 - exp(-1/C)), -1 (the
    /// default: 1 - exp(-1/(10 RTT C)), RTT = max(0.1 s, 3 (delay + 1/C))) and -2
    /// (1 - exp(-10/C)), C the link's rate in mean-sized packets per second.
    pub q_weight: f64,
    /// `gentle_`: between max_th and 2 max_th the probability rises from max_p to 1.
    pub gentle: bool,
    /// `wait_`: no drop until 1/pb arrivals after the last one.
    pub wait: bool,
    /// `setbit_`: mark ECN-capable packets CE instead of dropping them early.
    pub ecn: bool,
    /// `use_mark_p_`: mark only while the base probability is below `mark_p`, drop above.
    pub use_mark_p: bool,
    /// `mark_p_`.
    pub mark_p: f64,
    /// `bytes_`: byte mode (the probability scales with the packet's size).
    pub bytes: bool,
    /// `queue_in_bytes_`: the average (and thresholds) in bytes.
    pub queue_in_bytes: bool,
    /// `mean_pktsize_`, bytes.
    pub mean_pktsize: u32,
}

impl Default for RedSpec {
    fn default() -> Self {
        RedSpec {
            min_th: 0.0,
            max_th: 0.0,
            max_p: 0.1,
            q_weight: -1.0,
            gentle: true,
            wait: true,
            ecn: false,
            use_mark_p: true,
            mark_p: 0.1,
            bytes: true,
            queue_in_bytes: true,
            mean_pktsize: 500,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossSpec {
    #[default]
    None,
    Bernoulli {
        p: f64,
    },
    /// Two-state Gilbert-Elliott channel, stepped once per packet.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one")]
        loss_bad: f64,
    },
    /// ns-2's `ErrorModel/Periodic` in packet units (`queue/errmodel.cc`,
    /// `PeriodicErrorModel::corrupt` with `default_drop_ 0`): the `offset`-th packet the
    /// link transmits is lost (the first one when `offset` is 0 or 1), then every
    /// `period`-th after it. Deterministic: no draw.
    Periodic {
        period: u64,
        offset: u64,
    },
}

fn one() -> f64 {
    1.0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    /// Node of the data sender (it connects) and of the receiver (it listens).
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub start: Instant,
    /// The sender opens the connection at this time, before `start` (when the application
    /// starts writing and goodput is counted from). None = at `start`. Lets a scenario model
    /// a simulator without handshakes (ns-2's one-way TCP agents) or a persistent connection.
    #[serde(default)]
    pub connect: Option<Instant>,
    /// The sending application stops writing and closes at this time.
    #[serde(default)]
    pub stop: Option<Instant>,
    /// Intervals `[at, until)` during which the sending application writes nothing (the
    /// DARCA paper's Fig. 7: a flow that stops sending at 200 s and starts again at 300 s).
    /// The connection stays open and what is already in the send buffer still goes out.
    /// In increasing, non-overlapping order, none before `start`. Left out of the JSON
    /// when empty, so the canonical form of a flow without pauses is unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pauses: Vec<Pause>,
    /// Bytes to send; None = unlimited (bulk until `stop` or the end of the run).
    #[serde(default)]
    pub bytes: Option<u64>,
    /// TCP configuration of the sender (and of the receiver unless `receiver_tcp` is set).
    #[serde(default)]
    pub tcp: TcpConfig,
    #[serde(default)]
    pub receiver_tcp: Option<TcpConfig>,
    /// How fast the receiving application reads.
    #[serde(default)]
    pub read: ReadProfile,
}

/// The sending application of a flow writes nothing from `at` until (not including)
/// `until`, then resumes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pause {
    pub at: Instant,
    pub until: Instant,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReadProfile {
    /// Reads everything as soon as it is in order.
    #[default]
    Unlimited,
    /// Reads at a constant rate, in ticks of `tick`.
    Constant {
        bps: u64,
        #[serde(default = "default_read_tick")]
        tick: Duration,
        /// A reader that found less than its tick's allowance waits in a blocking read and
        /// takes data the moment it arrives, up to what is left of that allowance (a socket
        /// read wakes on data; the AFC paper's "waiting application", Algorithm 1 l. 18).
        /// Otherwise it reads only at its ticks.
        #[serde(default)]
        blocking: bool,
    },
    /// Repeating pattern: slot i lasts `slot` at `rates_bps[i]` (AFC's "<0,6,6> per RTT").
    Pattern {
        rates_bps: Vec<u64>,
        slot: Duration,
        #[serde(default = "default_read_tick")]
        tick: Duration,
        #[serde(default)]
        blocking: bool,
        /// How far into its cycle the pattern is when the flow starts (0: the first slot
        /// begins then). Sets the phase against a link's rate schedule, which the AFC paper
        /// leaves open and which decides its scenario 5 (issue 17).
        #[serde(default)]
        phase: Duration,
    },
}

fn default_read_tick() -> Duration {
    Duration::from_millis(1)
}

/// Fills in each TCP table (`tcp`, `receiver_tcp`, `server_tcp`) the keys its stack profile
/// sets ([`TcpConfig::PROFILE_KEYS`], docs/profiles.md) that the table does not give: a
/// canonical scenario from the Python layer has them all already, a hand-written one may
/// name only `profile`. Keys given explicitly win, as in the Python layer.
pub fn resolve_tcp_profiles(v: &mut serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if matches!(k.as_str(), "tcp" | "receiver_tcp" | "server_tcp") {
                    if let Value::Object(t) = child {
                        let profile = match t.get("profile") {
                            None => tcplab_core::tcp::Profile::default(),
                            Some(p) => serde_json::from_value(p.clone())
                                .map_err(|e| format!("{k}.profile: {e}"))?,
                        };
                        let rows = serde_json::to_value(TcpConfig::for_profile(profile))
                            .expect("TcpConfig serialises");
                        for key in TcpConfig::PROFILE_KEYS {
                            if !t.contains_key(key) {
                                t.insert(key.to_string(), rows[key].clone());
                            }
                        }
                        continue;
                    }
                }
                resolve_tcp_profiles(child)?;
            }
        }
        Value::Array(items) => {
            for x in items {
                resolve_tcp_profiles(x)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod profile_tests {
    use super::*;
    use tcplab_core::tcp::Profile;

    /// Every key on which two profiles differ is one the resolver fills: a profile row
    /// missing from PROFILE_KEYS would be silently ignored by the scenario layer.
    #[test]
    fn profile_keys_cover_every_difference() {
        let tables: Vec<serde_json::Value> = Profile::ALL
            .iter()
            .map(|&p| serde_json::to_value(TcpConfig::for_profile(p)).unwrap())
            .collect();
        let keys = tables[0]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>();
        for k in keys {
            let differs = tables.iter().any(|t| t[&k] != tables[0][&k]);
            assert!(
                !differs || TcpConfig::PROFILE_KEYS.contains(&k.as_str()),
                "{k} differs between profiles but is not in PROFILE_KEYS"
            );
        }
        for k in TcpConfig::PROFILE_KEYS {
            assert!(tables[0].get(k).is_some(), "{k} is not a TcpConfig field");
        }
    }

    #[test]
    fn a_named_profile_fills_what_is_not_given() {
        let mut v = serde_json::json!({"flows": [{"tcp": {"profile": "ns2", "min_rto": 1_000_000_000u64}}]});
        resolve_tcp_profiles(&mut v).unwrap();
        let t: TcpConfig = serde_json::from_value(v["flows"][0]["tcp"].clone()).unwrap();
        let ns2 = TcpConfig::for_profile(Profile::Ns2);
        assert_eq!(t.min_rto, tcplab_core::Duration::from_secs(1));
        assert_eq!(
            (t.initial_rto, t.sack, t.delayed_ack),
            (ns2.initial_rto, false, false)
        );
        assert_eq!(t.profile, Profile::Ns2);
        let mut bad = serde_json::json!({"tcp": {"profile": "bsd"}});
        let e = resolve_tcp_profiles(&mut bad).unwrap_err();
        assert!(e.starts_with("tcp.profile: unknown variant `bsd`"), "{e}");
    }
}
