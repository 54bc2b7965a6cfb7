//! Node elements (issue 11): what a router or base station does to the packets crossing it.
//!
//! An element sits on a node and sees every packet that arrives at the node from a link, in
//! both directions, before the node forwards it or hands it to a local endpoint. For each
//! packet it decides a [`Fate`]: forward it (possibly changed: an ECN mark, a rewritten
//! window), drop it, absorb it (consume it, as a proxy would), or hold it (keep it, to
//! release it later: a delay, a buffer of its own). It may also emit packets of its own
//! (BSF's forged zero-window ACK) and set a timer. Several elements on one node see a packet
//! in the order they are listed; the first that does not forward it ends the chain.
//!
//! Mechanisms built on this seam: BSF (a base station freezing senders with zero-window
//! advertisements) and DARCA (an edge router enforcing rates by drops). RED is a queue
//! discipline, not an element: it acts on a link's queue.
//!
//! Accounting: every packet an element sees is forwarded, dropped, absorbed or held; every
//! held packet is released or still held at the end; every packet an element creates has
//! a packet id like an endpoint's and is counted. The world checks both per element and
//! over the whole network ([`ElementCounters::check`]), so a forged packet is accounted
//! for, never a violation, and a packet an element loses track of is one.
//!
//! Cost: a node without elements pays one branch per arriving packet. Commands an element
//! issues go into an [`Actions`] buffer owned by the world and reused, so the per-packet
//! path does not allocate once it has reached its working size.

pub mod bsf;
pub mod darca;
pub mod darca_cycle;
pub mod darca_meter;
pub mod darca_model;

use crate::packet::Packet;
use tcplab_core::{Duration, Instant, Segment};

/// What happens to a packet an element has seen.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Continue: to the next element of the node, then out of the node.
    Forward,
    /// Discard it as a router drops a packet (counted as the element's drop).
    Drop,
    /// Consume it: the element terminates it (not a drop: nothing was lost to congestion).
    Absorb,
    /// The element keeps a copy and will hand it back with [`Actions::release`] (or still
    /// holds it at the end of the run, where [`Element::held`] counts it).
    Hold,
}

/// Where a packet is, as an element sees it.
#[derive(Copy, Clone, Debug)]
pub struct Arrival {
    /// The link it arrived on.
    pub from_link: u32,
    /// The link the node will send it out on, or None: it is for an endpoint on this node.
    pub next_link: Option<u32>,
}

/// Read-only state of the network an element may consult (the world implements it).
pub trait NodeView {
    /// Packets waiting in the queue of `link` (not counting the one being serialised).
    fn queue_packets(&self, link: u32) -> u64;
    /// Wire bytes waiting in the queue of `link`.
    fn queue_bytes(&self, link: u32) -> u64;
}

/// A packet an element creates: a segment of flow `flow`, in the data direction
/// (`from_sender`) or the ACK direction, leaving the element's node along the flow's route
/// as if the flow's endpoint on that side had sent it from there.
#[derive(Copy, Clone, Debug)]
pub struct Forged {
    pub flow: u32,
    pub from_sender: bool,
    pub seg: Segment,
}

/// Commands an element issues during a call; the world carries them out after it returns.
#[derive(Default)]
pub struct Actions {
    pub(crate) emit: Vec<Forged>,
    pub(crate) release: Vec<Packet>,
    pub(crate) timer: Option<Instant>,
}

impl Actions {
    /// Sends a new packet from this node (see [`Forged`]).
    pub fn emit(&mut self, p: Forged) {
        self.emit.push(p);
    }
    /// Hands a held packet back: it continues out of the node as if just forwarded.
    pub fn release(&mut self, p: Packet) {
        self.release.push(p);
    }
    /// Asks for [`Element::on_timer`] at `at` (the earliest request of a call wins; a
    /// request later than a pending wake-up leaves the earlier one, which the element may
    /// find has nothing to do).
    pub fn wake_at(&mut self, at: Instant) {
        self.timer = Some(self.timer.map_or(at, |t| t.min(at)));
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.emit.is_empty() && self.release.is_empty() && self.timer.is_none()
    }
    /// For a driver outside this crate (live mode, `tcplab-live`): the packets created, the
    /// packets released and the timer asked for, taken out in that order (the world's own
    /// `apply_actions` reads the fields directly).
    pub fn take_emitted(&mut self) -> Vec<Forged> {
        std::mem::take(&mut self.emit)
    }
    pub fn take_released(&mut self) -> Vec<Packet> {
        std::mem::take(&mut self.release)
    }
    pub fn take_timer(&mut self) -> Option<Instant> {
        self.timer.take()
    }
    pub fn has_actions(&self) -> bool {
        !self.is_empty()
    }
}

/// A node element. Time is an argument: an element knows no time beyond `now`.
pub trait Element {
    /// The element's kind as written in the scenario (`"bsf"`).
    fn kind(&self) -> &'static str;
    /// A packet arrived at the node. The element may change it (an ECN mark, a window)
    /// before forwarding it.
    fn on_packet(
        &mut self,
        now: Instant,
        pkt: &mut Packet,
        at: Arrival,
        view: &dyn NodeView,
        act: &mut Actions,
    ) -> Fate;
    /// A timer the element needs before any packet reaches it (DARCA's activation time);
    /// the world sets it when the run starts.
    fn first_timer(&self) -> Option<Instant> {
        None
    }
    /// The timer asked for with [`Actions::wake_at`] fired.
    fn on_timer(&mut self, _now: Instant, _view: &dyn NodeView, _act: &mut Actions) {}
    /// Packets held now (0 for an element that never holds).
    fn held(&self) -> u64 {
        0
    }
    /// Element-specific counters for the run's summary (a JSON object).
    fn report(&self) -> serde_json::Value {
        serde_json::Value::Object(Default::default())
    }
}

/// What the world counts for each element, independently of the element's own report.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ElementCounters {
    /// Packets the element saw (arrivals at its node that reached it in the chain).
    pub seen: u64,
    pub forwarded: u64,
    pub dropped: u64,
    pub absorbed: u64,
    /// Packets it kept ([`Fate::Hold`]) and packets it handed back.
    pub held: u64,
    pub released: u64,
    /// Packets it created.
    pub created: u64,
}

impl ElementCounters {
    /// Conservation at the element: everything seen was forwarded, dropped, absorbed or
    /// held, and what is held now is what was kept and not yet released.
    pub fn check(&self, held_now: u64) -> Result<(), String> {
        if self.seen != self.forwarded + self.dropped + self.absorbed + self.held {
            return Err(format!(
                "packets not conserved: {} seen != {} forwarded + {} dropped + {} absorbed + {} held",
                self.seen, self.forwarded, self.dropped, self.absorbed, self.held
            ));
        }
        if self.released > self.held || self.held - self.released != held_now {
            return Err(format!(
                "held packets not conserved: {} held - {} released != {} holding now",
                self.held, self.released, held_now
            ));
        }
        Ok(())
    }
}

/// An element on its node as a driver holds it (the simulator's world, the live
/// emulator): the counters the driver keeps of it, independently of the element's own
/// report, and when its timer is due (`Instant::MAX`: none).
pub struct Slot {
    pub node: usize,
    pub elem: Box<dyn Element>,
    pub wake: Instant,
    pub c: ElementCounters,
}

impl Slot {
    pub fn new(node: usize, elem: Box<dyn Element>) -> Slot {
        Slot {
            node,
            elem,
            wake: Instant::MAX,
            c: ElementCounters::default(),
        }
    }

    /// The element sees `p` arrive at its node; the driver counts it by its fate.
    #[inline]
    pub fn see(
        &mut self,
        now: Instant,
        p: &mut Packet,
        at: Arrival,
        view: &dyn NodeView,
        acts: &mut Actions,
    ) -> Fate {
        self.c.seen += 1;
        let fate = self.elem.on_packet(now, p, at, view, acts);
        match fate {
            Fate::Forward => self.c.forwarded += 1,
            Fate::Drop => self.c.dropped += 1,
            Fate::Absorb => self.c.absorbed += 1,
            Fate::Hold => self.c.held += 1,
        }
        fate
    }

    /// A packet the element created that cannot be sent (its route does not pass the
    /// node; live: it cannot be made on the wire): counted as seen and absorbed where it
    /// was made, so conservation still holds.
    pub fn absorb_created(&mut self) {
        self.c.seen += 1;
        self.c.absorbed += 1;
    }
}

/// Where on `route` a packet an element on `node` created starts: the route's first link
/// out of the node, or the route's end when the node is the one it leads to (the packet is
/// for the endpoint there); None when the route does not pass the node. `ends(link)` is
/// the link's (from, to) nodes.
pub fn created_hop(
    route: &[u32],
    node: usize,
    ends: impl Fn(u32) -> (usize, usize),
) -> Option<usize> {
    match route.iter().position(|&x| ends(x).0 == node) {
        Some(h) => Some(h),
        None if route.last().is_some_and(|&x| ends(x).1 == node) => Some(route.len()),
        None => None,
    }
}

/// Builds the scenario's elements, each with the index of its node, in the order listed;
/// every rule about element keys lives here (`validate` calls it too). `route_fwd(f)` is
/// flow `f`'s data route as link indices.
pub fn build_all(
    scn: &crate::config::Scenario,
    graph: &crate::topology::Graph,
    route_fwd: &mut dyn FnMut(usize) -> Vec<u32>,
) -> Result<Vec<(usize, Box<dyn Element>)>, crate::SimError> {
    use crate::config::ElementKind;
    let mut out: Vec<(usize, Box<dyn Element>)> = Vec::with_capacity(scn.elements.len());
    for (i, e) in scn.elements.iter().enumerate() {
        let err = |k: &str, m: String| crate::SimError::Config(format!("elements[{i}].{k}: {m}"));
        let node = graph.node(&e.node).ok_or_else(|| {
            err(
                "node",
                format!(
                    "unknown node '{}' (nodes: {})",
                    e.node,
                    graph.nodes.join(", ")
                ),
            )
        })?;
        match &e.element {
            ElementKind::Bsf(spec) => {
                let li = graph
                    .link(&spec.link)
                    .ok_or_else(|| err("link", format!("unknown link '{}'", spec.link)))?;
                let l = &graph.links[li];
                if l.from != node {
                    return Err(err(
                        "link",
                        format!(
                            "link '{}' does not leave node '{}' (it leaves '{}'): BSF watches the \
                             buffer of a link out of its own node",
                            spec.link, e.node, graph.nodes[l.from]
                        ),
                    ));
                }
                if !(spec.weight > 0.0 && spec.weight <= 1.0) {
                    return Err(err(
                        "weight",
                        format!("must be in (0, 1], got {}", spec.weight),
                    ));
                }
                if spec.ecn_history > 32 {
                    return Err(err("ecn_history", "at most 32 packets".into()));
                }
                if spec.zwa_copies == 0 || spec.zwa_copies > 16 {
                    return Err(err("zwa_copies", "must be between 1 and 16".into()));
                }
                for (k, v) in [
                    ("bsf_thresh", spec.bsf_thresh),
                    ("flush_thresh", spec.flush_thresh),
                ] {
                    if v.is_some_and(|x| !x.is_finite()) {
                        return Err(err(k, "must be a finite number of packets".into()));
                    }
                }
                let total = match spec.total_buffer.or(l.spec.queue.limit_packets) {
                    Some(t) if t > 0 => t,
                    _ => {
                        return Err(err(
                            "total_buffer",
                            format!(
                                "link '{}' has no packet limit: give the buffer in packets",
                                spec.link
                            ),
                        ))
                    }
                };
                let sessions = match spec.sessions {
                    Some(0) => return Err(err("sessions", "must be at least 1".into())),
                    Some(n) => n,
                    None => {
                        let n = (0..scn.connection_count())
                            .filter(|&f| route_fwd(f).contains(&(li as u32)))
                            .count() as u64;
                        if n == 0 {
                            return Err(err(
                                "link",
                                format!("no flow sends data over link '{}'", spec.link),
                            ));
                        }
                        n
                    }
                };
                let th = bsf::Thresholds::new(spec, total, sessions).map_err(|m| {
                    crate::SimError::Config(format!("elements[{i}] (bsf on '{}'): {m}", e.node))
                })?;
                out.push((
                    node,
                    Box::new(bsf::Bsf::new(spec, li as u32, th, scn.connection_count())),
                ));
            }
            ElementKind::Darca(spec) => {
                out.push((node, build_darca(scn, graph, node, spec, route_fwd, &err)?));
            }
        }
    }
    Ok(out)
}

/// DARCA's element, after checking every key (docs/darca.md).
fn build_darca(
    scn: &crate::config::Scenario,
    graph: &crate::topology::Graph,
    node: usize,
    spec: &crate::config::DarcaSpec,
    route_fwd: &mut dyn FnMut(usize) -> Vec<u32>,
    err: &dyn Fn(&str, String) -> crate::SimError,
) -> Result<Box<dyn Element>, crate::SimError> {
    let li = graph
        .link(&spec.link)
        .ok_or_else(|| err("link", format!("unknown link '{}'", spec.link)))?;
    let l = &graph.links[li];
    if l.to != node {
        return Err(err(
            "link",
            format!(
                "link '{}' does not end at node '{}' (it ends at '{}'): DARCA's control point is \
                 the input port of its own node on the controlled link",
                spec.link, graph.nodes[node], graph.nodes[l.to]
            ),
        ));
    }
    if !(spec.factor > 0.0 && spec.factor < 1.0) {
        return Err(err(
            "factor",
            format!("must be in (0, 1), got {}", spec.factor),
        ));
    }
    if !(spec.tolerance > 0.0 && spec.tolerance < 1.0) {
        return Err(err(
            "tolerance",
            format!("must be in (0, 1), got {}", spec.tolerance),
        ));
    }
    if spec.max_stable.as_nanos() == 0 {
        return Err(err("max_stable", "must be longer than 0".into()));
    }
    // Each round takes at least this and 2/3 of it to measure: shorter, a round measures
    // a handful of packets, and a timer every few microseconds would swamp the run.
    if spec.min_convergence < Duration::from_millis(10) {
        return Err(err(
            "min_convergence",
            "must be at least 10ms (a round must be long enough to measure a rate)".into(),
        ));
    }
    if spec.rwnd == 0 {
        return Err(err("rwnd", "must be at least 1 byte".into()));
    }
    let n = scn.connection_count();
    let watched: Vec<bool> = (0..n)
        .map(|f| route_fwd(f).contains(&(li as u32)))
        .collect();
    if !watched.iter().any(|&w| w) {
        return Err(err(
            "link",
            format!("no flow sends data over link '{}'", spec.link),
        ));
    }
    let timestamps = |f: usize| scn.flows.get(f).is_none_or(|fl| fl.tcp.timestamps);
    let units =
        match (spec.targets.is_empty(), spec.classes.is_empty()) {
            (true, true) | (false, false) => return Err(err(
                "targets",
                "give either per-connection targets or per-class control (classes), one of the two"
                    .into(),
            )),
            (false, true) => {
                let mut v: Vec<(u32, String, u64)> = Vec::with_capacity(spec.targets.len());
                for (k, t) in spec.targets.iter().enumerate() {
                    let key = format!("targets[{k}]");
                    let f = scn
                        .flows
                        .iter()
                        .position(|fl| fl.name == t.flow)
                        .ok_or_else(|| {
                            err(&format!("{key}.flow"), format!("unknown flow '{}'", t.flow))
                        })?;
                    if v.iter().any(|x| x.0 == f as u32) {
                        return Err(err(
                            &format!("{key}.flow"),
                            format!("flow '{}' has a target already", t.flow),
                        ));
                    }
                    if !watched[f] {
                        return Err(err(
                            &format!("{key}.flow"),
                            format!(
                            "flow '{}' does not send data over link '{}': DARCA cannot control it",
                            t.flow, spec.link
                        ),
                        ));
                    }
                    if t.bps == 0 {
                        return Err(err(&format!("{key}.rate"), "must be above 0".into()));
                    }
                    if spec.rtt.is_none() && !timestamps(f) {
                        return Err(err(
                            &format!("{key}.flow"),
                            format!(
                                "flow '{}' sends no timestamps, so the meter cannot time its RTT: \
                             enable tcp.timestamps or give the element an rtt",
                                t.flow
                            ),
                        ));
                    }
                    v.push((f as u32, t.flow.clone(), t.bps));
                }
                darca::Units::Connections(v)
            }
            (true, false) => {
                let mut v: Vec<((f64, f64), u64)> = Vec::with_capacity(spec.classes.len());
                for (k, c) in spec.classes.iter().enumerate() {
                    let key = format!("classes[{k}]");
                    if c.rtt_max <= c.rtt_min {
                        return Err(err(
                            &format!("{key}.rtt_max"),
                            "must be above rtt_min".into(),
                        ));
                    }
                    if c.bps == 0 {
                        return Err(err(&format!("{key}.rate"), "must be above 0".into()));
                    }
                    let (lo, hi) = (c.rtt_min.as_secs_f64(), c.rtt_max.as_secs_f64());
                    if let Some(j) = v.iter().position(|x| lo < x.0 .1 && x.0 .0 < hi) {
                        return Err(err(
                            &format!("{key}.rtt_min"),
                            format!("the RTT range overlaps that of classes[{j}]"),
                        ));
                    }
                    v.push(((lo, hi), c.bps));
                }
                // A connection without timestamps has no RTT to be classified by: it stays
                // uncontrolled and is counted in the report's `unclassified`.
                darca::Units::Classes(v, spec.class_rtt)
            }
        };
    Ok(Box::new(darca::Darca::new(
        spec, li as u32, units, &watched,
    )))
}

#[cfg(test)]
mod tests;
