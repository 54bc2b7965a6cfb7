//! One direction of a link at run time: queue -> serialiser -> loss -> propagation delay
//! (DESIGN.md "Engine"; issue 36, "no second implementation").
//!
//! The simulator's event loop (`world`) and the live emulator's real-time driver
//! (`tcplab-live`'s `emu`) both carry packets over a link through this type, so what happens
//! to a packet on a link (straight onto an idle wire or into the queue, the discipline's
//! drops, the departure from the rate model, the loss draw at transmission, a FIFO delay
//! line under delay changes) is decided by one piece of code whichever clock drives it.
//! The driver only says when a step is due: the simulator schedules the times this type
//! returns on its heap; the emulator carries out every step whose ideal time the monotonic
//! clock has passed.
//!
//! The driver keeps what differs between them: what a dropped or lost packet means to the
//! rest of the network (a flow's in-flight count, a slab slot), how a packet is captured
//! (a segment rebuilt from the flow's addresses, or the real bytes), and where it goes next.

use super::{MahimahiTrace, RateModel, TraceRate};
use crate::config::{RateSpec, Scenario};
use crate::element::NodeView;
use crate::error::SimError;
use crate::loss::LossModel;
use crate::output::{Drops, LinkSummary, RedSummary};
use crate::packet::Packet;
use crate::pcap::PcapWriter;
use crate::queue::{Queue, QueueDiscipline, Verdict};
use crate::topology::Graph;
use std::collections::VecDeque;
use std::fs::File;
use std::io::BufWriter;
use std::sync::Arc;
use tcplab_core::{Duration, Instant, Rng};

/// The time-series metrics of a link, in the order [`Line::sample`] returns them.
pub const LINK_METRICS: [&str; 4] = ["queue_packets", "queue_bytes", "tx_mbps", "drops"];

/// One direction of a link: its models, its serialiser and delay line, and its counters.
pub struct Line {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub rate: RateModel,
    pub queue: Queue,
    loss: LossModel,
    rng: Rng,
    delay: Duration,
    /// Pending delay changes (time, new delay), earliest first; consumed as departures pass them.
    delay_changes: VecDeque<(Instant, Duration)>,
    header_bytes: u32,
    /// When the serialiser is free again (the last packet's departure).
    pub busy_until: Instant,
    /// A departure is due at `busy_until` to start the head of the queue (head-of-line
    /// scheduling: at most one pending per link).
    txdone_pending: bool,
    /// Packets propagating, in arrival order (arrivals are clamped to be non-decreasing, so
    /// only the head's arrival is ever due first).
    delay_line: VecDeque<(Instant, Packet)>,
    pub arrived: u64,
    pub dropped_queue: u64,
    pub dropped_loss: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    /// The queue wants to see packets that find the link idle and skip it (RED's average
    /// decays over idle time); a flag, so drop-tail links do not pay for the hook.
    idle_arrivals: bool,
    /// The node this link leads to has elements (set by the driver; read on every arrival
    /// from the link state already in cache, before looking up which).
    pub to_elements: bool,
    /// Wire bytes of the latest transmission (excluded from the capacity check when its
    /// departure lies beyond representable time: it never leaves).
    last_tx_bytes: u32,
    pub delivered: u64,
    pub max_queue_pkts: u64,
    pub max_queue_bytes: u64,
    sampled_tx_bytes: u64,
    sampled_drops: u64,
    /// `record.pcap`: the driver writes each packet at the start of its transmission.
    pub pcap: Option<PcapWriter<BufWriter<File>>>,
}

/// Builds every link of the scenario, in the graph's order, with the seed's random streams
/// (`Rng::derive(seed, link, "link-queue" | "link-loss")`) and the pcaps `record.pcap` asks
/// for. A trace used by several links (a dumbbell's access links) is read and parsed once.
pub fn build_lines(scn: &Scenario, graph: &Graph) -> Result<Vec<Line>, SimError> {
    let mut lines = Vec::with_capacity(graph.links.len());
    let mut traces: Vec<Arc<MahimahiTrace>> = Vec::new();
    for (i, l) in graph.links.iter().enumerate() {
        let at = |e: SimError| prefix_err(e, &format!("link '{}': ", l.name));
        let rate = match &l.spec.rate {
            RateSpec::Trace {
                path,
                opportunity_bytes,
            } => {
                let t = match traces.iter().find(|t| t.path() == path) {
                    Some(t) => t.clone(),
                    None => {
                        let t = Arc::new(MahimahiTrace::load(path)?);
                        traces.push(t.clone());
                        t
                    }
                };
                TraceRate::new(t, *opportunity_bytes).map(RateModel::Trace)
            }
            spec => RateModel::from_spec(spec),
        }
        .map_err(at)?;
        let loss = LossModel::from_spec(&l.spec.loss).map_err(at)?;
        // RED takes the link's rate and delay as ns-2's does, and its own random stream.
        // The rate is the configured one, before any `rate_changes`: ns-2 sets RED up from
        // the link's bandwidth once, and `validate` resolves RED's automatic thresholds from
        // the same value.
        let queue = Queue::for_link(
            &l.spec.queue,
            l.spec.header_bytes,
            rate.mean_rate_bps(),
            l.spec.delay,
            Rng::derive(scn.seed, i as u64, "link-queue"),
        );
        let rate = rate
            .with_changes(&l.spec.rate, &l.spec.rate_changes)
            .map_err(at)?;
        let idle_arrivals = matches!(queue, Queue::Red(_));
        lines.push(Line {
            name: l.name.clone(),
            from: l.from,
            to: l.to,
            rate,
            queue,
            idle_arrivals,
            loss,
            rng: Rng::derive(scn.seed, i as u64, "link-loss"),
            delay: l.spec.delay,
            delay_changes: l
                .spec
                .delay_changes
                .iter()
                .map(|c| (Instant::ZERO + c.at, c.delay))
                .collect(),
            header_bytes: l.spec.header_bytes,
            busy_until: Instant::ZERO,
            txdone_pending: false,
            // Grows with what the link carries (a few doublings), not reserved up front: a
            // 10^4-flow dumbbell has 4 * 10^4 access links.
            delay_line: VecDeque::new(),
            arrived: 0,
            dropped_queue: 0,
            dropped_loss: 0,
            tx_pkts: 0,
            tx_bytes: 0,
            last_tx_bytes: 0,
            to_elements: false,
            delivered: 0,
            max_queue_pkts: 0,
            max_queue_bytes: 0,
            sampled_tx_bytes: 0,
            sampled_drops: 0,
            pcap: None,
        });
    }
    for p in &scn.record.pcap {
        let li = graph.link(&p.link).ok_or_else(|| {
            let names: Vec<_> = graph.links.iter().map(|l| l.name.as_str()).collect();
            SimError::Config(format!(
                "record.pcap: unknown link '{}' (links: {})",
                p.link,
                names.join(", ")
            ))
        })?;
        let f = File::create(&p.path).map_err(|e| SimError::Io(format!("{}: {e}", p.path)))?;
        let w = PcapWriter::new(BufWriter::with_capacity(1 << 16, f), p.snaplen)
            .map_err(|e| SimError::Io(format!("{}: {e}", p.path)))?;
        lines[li].pcap = Some(w);
    }
    Ok(lines)
}

/// Prefixes a configuration or trace error with where it comes from.
pub(crate) fn prefix_err(e: SimError, p: &str) -> SimError {
    match e {
        SimError::Config(m) => SimError::Config(format!("{p}{m}")),
        SimError::Trace(m) => SimError::Trace(format!("{p}{m}")),
        other => other,
    }
}

impl Line {
    /// A packet of `ip_len` IP bytes reaches the link at `now`: true when the link is idle
    /// with its queue empty, so the packet starts its transmission now
    /// ([`Line::start_tx`]); otherwise the driver queues it ([`Line::enqueue`]). Only
    /// packets that must wait cost a departure step. (The packet is not passed in: moving
    /// it through a return value on this path cost 3% more instructions on dumbbell-10.)
    #[inline]
    pub fn admit_idle(&mut self, now: Instant, ip_len: u32) -> bool {
        self.arrived += 1;
        if !self.txdone_pending && self.busy_until <= now {
            debug_assert!(self.queue.is_empty());
            if self.idle_arrivals {
                self.note_idle_arrival(now, ip_len);
            }
            return true;
        }
        false
    }

    /// The discipline takes the packet (the link is busy). Returns the first packet it
    /// dropped, the arriving one or an old one (further ones come from
    /// [`Line::take_dropped`]), and the time of a departure step the driver must now
    /// arrange, if none was pending.
    #[inline]
    pub fn enqueue(&mut self, now: Instant, pkt: Packet) -> (Option<Packet>, Option<Instant>) {
        let dropped = match self.queue.enqueue(now, pkt) {
            Verdict::Dropped(d) => {
                self.dropped_queue += 1;
                Some(d)
            }
            Verdict::Queued => None,
        };
        self.max_queue_pkts = self.max_queue_pkts.max(self.queue.len_packets() as u64);
        self.max_queue_bytes = self.max_queue_bytes.max(self.queue.len_bytes());
        let depart = if !self.txdone_pending && !self.queue.is_empty() {
            self.txdone_pending = true;
            Some(self.busy_until.max(now))
        } else {
            None
        };
        (dropped, depart)
    }

    /// Further packets the discipline dropped for one arrival (drop-head under a byte
    /// limit may push out several old ones).
    #[inline]
    pub fn take_dropped(&mut self) -> Option<Packet> {
        let d = self.queue.take_dropped()?;
        self.dropped_queue += 1;
        Some(d)
    }

    /// Out of line: only links whose queue asked for it (RED) pay for the call.
    #[inline(never)]
    fn note_idle_arrival(&mut self, now: Instant, ip_len: u32) {
        let since = self.busy_until;
        self.queue.note_idle_arrival(now, since, ip_len);
    }

    /// Starts serialising `p` at `now` (the link is idle): its departure time is known at
    /// once, so the loss draw and its place in the delay line are decided here. The
    /// driver captures the packet (pcap) before calling this, at the same `now`. Returns
    /// `Err(p)` when the loss model took it; otherwise `Ok(Some(t))` when the delay line
    /// was empty, so its arrival at `t` is the next arrival step the driver must arrange.
    #[inline]
    pub fn start_tx(&mut self, now: Instant, p: Packet) -> Result<Option<Instant>, Packet> {
        let wire = p.ip_len + self.header_bytes;
        let dep = self.rate.departure_time(now, wire);
        self.busy_until = dep;
        self.tx_pkts += 1;
        self.tx_bytes += wire as u64;
        self.last_tx_bytes = wire;
        if self.loss.lose(&mut self.rng) {
            self.dropped_loss += 1;
            return Err(p);
        }
        while let Some(&(t, d)) = self.delay_changes.front() {
            if t > dep {
                break;
            }
            self.delay = d;
            self.delay_changes.pop_front();
        }
        // FIFO when the delay shrinks: never before the packet ahead (a packet already
        // arrived did so by `now`, before `dep + delay`).
        let ahead = self.delay_line.back().map_or(Instant::ZERO, |e| e.0);
        // Saturating: a trace whose next opportunity is centuries away must not wrap.
        let at = dep.saturating_add(self.delay).max(ahead);
        let first = self.delay_line.is_empty();
        self.delay_line.push_back((at, p));
        Ok(first.then_some(at))
    }

    /// The departure step: the serialiser is free at `now`, and the head of the queue (if
    /// any) is what starts next ([`Line::start_tx`], then [`Line::more_queued`]).
    #[inline]
    pub fn head(&mut self, now: Instant) -> Option<Packet> {
        self.txdone_pending = false;
        self.queue.dequeue(now)
    }

    /// After the head started: the time of the next departure step, when packets still wait.
    #[inline]
    pub fn more_queued(&mut self) -> Option<Instant> {
        if self.queue.is_empty() {
            return None;
        }
        self.txdone_pending = true;
        Some(self.busy_until)
    }

    /// The arrival step: the head of the delay line reaches the far end at `now`; returned
    /// with its `hop` advanced. The next arrival, if another packet propagates, is
    /// [`Line::next_arrival`].
    #[inline]
    pub fn arrive(&mut self, now: Instant) -> Packet {
        let (at, mut p) = self
            .delay_line
            .pop_front()
            .expect("an arrival step with an empty delay line");
        debug_assert_eq!(at, now);
        self.delivered += 1;
        p.hop += 1;
        p
    }

    /// The earliest step due on this link (a departure or an arrival), or `Instant::MAX`,
    /// for a driver that polls instead of scheduling ([`Line::next_departure`] and
    /// [`Line::next_arrival`] say which).
    pub fn next_step(&self) -> Instant {
        self.next_departure().min(self.next_arrival())
    }

    /// The pending departure step's time, or `Instant::MAX`.
    pub fn next_departure(&self) -> Instant {
        if self.txdone_pending {
            self.busy_until
        } else {
            Instant::MAX
        }
    }

    /// The next arrival's time, or `Instant::MAX`.
    pub fn next_arrival(&self) -> Instant {
        self.delay_line.front().map_or(Instant::MAX, |e| e.0)
    }

    /// Packets queued and propagating.
    pub fn inside(&self) -> u64 {
        self.queue.len_packets() as u64 + self.delay_line.len() as u64
    }

    /// One time-series sample over the last `dt_s` seconds, in [`LINK_METRICS`]' order:
    /// queue length (packets, bytes) now, throughput and drops since the previous sample.
    pub fn sample(&mut self, dt_s: f64) -> [f64; 4] {
        let drops = self.dropped_queue + self.dropped_loss;
        let vals = [
            self.queue.len_packets() as f64,
            self.queue.len_bytes() as f64,
            (self.tx_bytes - self.sampled_tx_bytes) as f64 * 8.0 / dt_s * 1e-6,
            (drops - self.sampled_drops) as f64,
        ];
        self.sampled_tx_bytes = self.tx_bytes;
        self.sampled_drops = drops;
        vals
    }

    /// The link's invariants at the end of a run at `end`: packets conserved (in = queue
    /// drops + losses + out + inside), the queue's own counters, and no more bytes sent
    /// than the rate model allows.
    pub fn check(&self, end: Instant, msgs: &mut Vec<String>) {
        let inside = self.inside();
        if self.arrived != self.dropped_queue + self.dropped_loss + self.delivered + inside {
            msgs.push(format!(
                "link '{}': packets not conserved: {} in != {} queue drops + {} losses + {} out + {} inside",
                self.name, self.arrived, self.dropped_queue, self.dropped_loss, self.delivered, inside
            ));
        }
        if let Err(e) = self
            .queue
            .counters()
            .check(self.queue.len_packets(), self.queue.len_bytes())
        {
            msgs.push(format!("link '{}': {e}", self.name));
        }
        // Bytes are counted when their transmission starts, so the window runs until the
        // last one has left, that instant included: a trace link's last packet leaves in an
        // opportunity at exactly `busy_until`. A departure that saturated at Instant::MAX (a
        // trace whose opportunities are centuries apart, smaller than the packet) never
        // happens: that packet is still on the link, not sent, and everything before it
        // left by `end`.
        let (sent, until) = if self.busy_until == Instant::MAX {
            (self.tx_bytes - self.last_tx_bytes as u64, end)
        } else {
            (self.tx_bytes, end.max(self.busy_until))
        };
        let cap = self.rate.capacity_bytes_through(Instant::ZERO, until);
        if sent > cap {
            msgs.push(format!(
                "link '{}': sent {} bytes but its capacity over the run is {} bytes",
                self.name, self.tx_bytes, cap
            ));
        }
    }

    /// The link in the summary's schema over `[0, end)`.
    pub fn summary(&self, nodes: &[String], end: Instant) -> LinkSummary {
        let cap = self
            .rate
            .capacity_bytes_through(Instant::ZERO, end.max(self.busy_until));
        LinkSummary {
            name: self.name.clone(),
            from: nodes[self.from].clone(),
            to: nodes[self.to].clone(),
            utilization: if cap > 0 {
                self.tx_bytes as f64 / cap as f64
            } else {
                0.0
            },
            // What the link could carry in [0, end), not its long-run mean.
            capacity_mbps: self.rate.rate_over_bps(Instant::ZERO, end) * 1e-6,
            tx_packets: self.tx_pkts,
            tx_bytes: self.tx_bytes,
            drops: Drops {
                queue: self.dropped_queue,
                loss: self.dropped_loss,
                marks: self.queue.red_stats().map(|r| r.marks),
            },
            red: self.queue.red_stats().map(RedSummary::from),
            max_queue_packets: self.max_queue_pkts,
            max_queue_bytes: self.max_queue_bytes,
        }
    }
}

/// Queue lengths as elements see them (`element::NodeView`).
pub struct LinksView<'a>(pub &'a [Line]);

impl NodeView for LinksView<'_> {
    fn queue_packets(&self, link: u32) -> u64 {
        self.0[link as usize].queue.len_packets() as u64
    }
    fn queue_bytes(&self, link: u32) -> u64 {
        self.0[link as usize].queue.len_bytes()
    }
}
