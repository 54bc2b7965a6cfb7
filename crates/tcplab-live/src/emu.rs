//! The real-time driver of the simulator's network (issue 36; DESIGN.md "One network, two
//! clocks" and "Departures on the ideal schedule").
//!
//! Each link is the simulator's own `RateModel`, `Queue` and `LossModel` with the random
//! streams the simulator derives for it (`Rng::derive(seed, link, "link-loss" |
//! "link-queue")`), composed exactly as `tcplab_sim::world` composes them (idle link: the
//! packet goes straight onto the wire; else it is queued; the head starts when the
//! serialiser frees; the loss draw is made at transmission; the propagation delay keeps the
//! link FIFO). Only the clock differs: every step happens at its *ideal* time, computed by
//! the models, and is carried out as soon as the monotonic clock has passed it. A
//! departure is max(arrival, previous departure) + serialisation whenever the process woke
//! up; a late wake-up delays the write to the TUN (jitter, measured as lateness) but never
//! the schedule, so no capacity is lost. Packets arrive at the time they are read.
//!
//! Packets are the simulator's `Packet` (`wire::packet`), whose `id` names the slab slot
//! holding the wire bytes and whose `flow` names the route (source and destination host).

use crate::clock::Clock;
use crate::stats::Lateness;
use crate::tun::Tun;
use crate::wire;
use std::collections::BTreeMap;
use std::os::fd::AsRawFd;
use tcplab_core::{Duration, Instant, Segment};
use tcplab_sim::config::RateSpec;
use tcplab_sim::element::{created_hop, Actions, Arrival, Element, Fate, Slot};
use tcplab_sim::link::{build_lines, Line, LinksView, LINK_METRICS};
use tcplab_sim::output::{ElementSummary, LinkSummary, TimeSeries};
use tcplab_sim::topology::Graph;
use tcplab_sim::{Packet, Scenario};

/// `Packet::flow` of a packet that belongs to no scenario flow (a command's traffic):
/// elements do not see it.
pub const NO_FLOW: u32 = u32::MAX;

/// A flow's two ends on the wire: (address, port) of the sender and of the receiver, and
/// their nodes.
#[derive(Copy, Clone, Debug)]
pub struct FlowKey {
    pub sender: ([u8; 4], u16),
    pub receiver: ([u8; 4], u16),
    pub src_node: usize,
    pub dst_node: usize,
}

/// A host's TUN as the emulator sees it.
pub struct Port {
    pub node: usize,
    pub tun: Tun,
}

/// Counters of the emulator itself (what no link accounts for).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct EmuCounters {
    /// IPv4 packets read from the TUNs with a known destination host.
    pub read_packets: u64,
    /// Packets written to their destination host's TUN.
    pub released_packets: u64,
    /// Packets the destination kernel refused (write error).
    pub write_errors: u64,
    /// Packets read that were not IPv4 or had no route (never entered a link).
    pub unroutable: u64,
    /// Packets node elements created (BSF's zero-window ACKs), dropped and absorbed.
    pub element_created: u64,
    pub element_dropped: u64,
    pub element_absorbed: u64,
    /// Packets an element asked to create that cannot be made on the wire (with payload).
    pub forge_failures: u64,
    /// Wake-ups of the event loop.
    pub wakeups: u64,
    /// pcap writes that failed (that link's capture stops).
    pub pcap_errors: u64,
}

pub struct Emulator {
    pub links: Vec<Line>,
    graph: Graph,
    pub ports: Vec<Port>,
    /// Host node -> index into `ports`.
    port_of_node: Vec<Option<usize>>,
    addr_to_node: BTreeMap<[u8; 4], usize>,
    /// Route id (src * nodes + dst) -> links.
    routes: BTreeMap<u32, Vec<u32>>,
    slab: Vec<Vec<u8>>,
    /// Per slab slot: the route id, and the segment as it is on the wire (what queues and
    /// elements change in the packet's view is written back before it leaves).
    route_of: Vec<u32>,
    wire_seg: Vec<Segment>,
    free: Vec<u32>,
    flows: Vec<FlowKey>,
    elements: Vec<Slot>,
    /// Per node, the range of its elements in `elements`.
    node_elems: Vec<(usize, usize)>,
    acts: Actions,
    ip_id: u16,
    pub clock: Clock,
    pub lateness: Lateness,
    pub counters: EmuCounters,
    /// Per link sample state and the time series of the links.
    pub series: Series,
    interval: Duration,
    next_sample: Instant,
    /// Called for every packet released to a host: (source node, destination node, wire
    /// bytes, the packet, actual time). Flows take their one-way delays from it.
    pub on_release: Option<Box<dyn FnMut(usize, usize, &[u8], &Packet, Instant)>>,
    /// Called for every packet read from a host (node, bytes, time read).
    pub on_read: Option<Box<dyn FnMut(usize, &[u8], Instant)>>,
}

/// The address of node `n`, as the simulator's pcaps number nodes.
pub fn node_addr(n: usize) -> [u8; 4] {
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8 + 1]
}

impl Emulator {
    /// The scenario's links, built from their specs as the simulator builds them, with
    /// the seed's random streams.
    pub fn new(
        scn: &Scenario,
        graph: Graph,
        ports: Vec<Port>,
        clock: Clock,
    ) -> Result<Emulator, String> {
        // The simulator's own links, random streams and pcaps (`tcplab_sim::link::line`).
        let links = build_lines(scn, &graph).map_err(|e| e.to_string())?;
        let n_nodes = graph.nodes.len();
        let mut port_of_node = vec![None; n_nodes];
        let mut addr_to_node = BTreeMap::new();
        for (i, p) in ports.iter().enumerate() {
            port_of_node[p.node] = Some(i);
            addr_to_node.insert(p.tun.addr, p.node);
        }
        let interval = scn.record.interval;
        let mut series = Series::default();
        for l in &links {
            series.entity("link", &l.name);
        }
        Ok(Emulator {
            links,
            graph,
            ports,
            port_of_node,
            addr_to_node,
            routes: BTreeMap::new(),
            slab: Vec::new(),
            route_of: Vec::new(),
            wire_seg: Vec::new(),
            free: Vec::new(),
            flows: Vec::new(),
            node_elems: vec![(0, 0); n_nodes],
            elements: Vec::new(),
            acts: Actions::default(),
            ip_id: 0,
            clock,
            lateness: Lateness::default(),
            counters: EmuCounters::default(),
            series,
            interval,
            next_sample: Instant::ZERO + interval,
            on_release: None,
            on_read: None,
        })
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The scenario's flows as they appear on the wire, so their packets carry the flow's
    /// index and direction (`Packet::flow`, `from_sender`) that elements key on.
    pub fn set_flows(&mut self, flows: Vec<FlowKey>) {
        self.flows = flows;
    }

    /// The scenario's elements (`tcplab_sim::element::build_all`), in node order as listed.
    pub fn set_elements(&mut self, mut elems: Vec<(usize, Box<dyn Element>)>) {
        elems.sort_by_key(|e| e.0); // stable: the listed order within a node stays
        for (node, elem) in elems {
            let mut slot = Slot::new(node, elem);
            slot.wake = slot.elem.first_timer().unwrap_or(Instant::MAX);
            self.elements.push(slot);
        }
        for (n, r) in self.node_elems.iter_mut().enumerate() {
            let a = self.elements.iter().position(|e| e.node == n).unwrap_or(0);
            let k = self.elements.iter().filter(|e| e.node == n).count();
            *r = (a, a + k);
        }
    }

    /// The route id from `src` to `dst` (cached), or None without a route.
    fn route_id(&mut self, src: usize, dst: usize) -> Option<u32> {
        let n = self.graph.nodes.len() as u32;
        let rid = src as u32 * n + dst as u32;
        if !self.routes.contains_key(&rid) {
            match self.graph.route(src, dst) {
                Some(r) if !r.is_empty() => {
                    self.routes.insert(rid, r);
                }
                _ => return None,
            }
        }
        Some(rid)
    }

    /// The flow and direction of a packet, from its addresses and ports.
    fn flow_of(&self, b: &[u8], ip: &wire::Ipv4) -> (u32, bool) {
        if ip.proto != wire::PROTO_TCP {
            return (NO_FLOW, true);
        }
        let Some((sp, _)) = wire::ports(b, ip) else {
            return (NO_FLOW, true);
        };
        for (f, k) in self.flows.iter().enumerate() {
            if k.sender == (ip.src, sp) {
                return (f as u32, true);
            }
            if k.receiver == (ip.src, sp) {
                return (f as u32, false);
            }
        }
        (NO_FLOW, true)
    }

    fn store(&mut self, b: &[u8], route: u32) -> u64 {
        match self.free.pop() {
            Some(i) => {
                let s = &mut self.slab[i as usize];
                s.clear();
                s.extend_from_slice(b);
                self.route_of[i as usize] = route;
                i as u64
            }
            None => {
                self.slab.push(b.to_vec());
                self.route_of.push(route);
                self.wire_seg.push(Segment::default());
                (self.slab.len() - 1) as u64
            }
        }
    }

    /// Writes what a queue (RED's CE mark) or an element (a rewritten window) changed in
    /// the packet's view back into its bytes, checksums fixed.
    fn sync_wire(&mut self, p: &Packet) {
        let i = p.id as usize;
        if self.wire_seg[i] != p.seg {
            let before = self.wire_seg[i];
            wire::apply_changes(&mut self.slab[i], &before, &p.seg);
            self.wire_seg[i] = p.seg;
        }
    }

    fn release_slot(&mut self, id: u64) {
        self.free.push(id as u32);
    }

    /// A packet read from host `node`'s TUN at `now`: onto the first link of its route.
    pub fn ingress(&mut self, node: usize, b: &[u8], now: Instant) {
        if let Some(cb) = self.on_read.as_mut() {
            cb(node, b, now);
        }
        let Some(ip) = wire::parse_ipv4(b) else {
            self.counters.unroutable += 1;
            return;
        };
        let Some(&dst) = self.addr_to_node.get(&ip.dst) else {
            self.counters.unroutable += 1;
            return;
        };
        if dst == node {
            self.counters.unroutable += 1;
            return;
        }
        let Some(rid) = self.route_id(node, dst) else {
            self.counters.unroutable += 1;
            return;
        };
        self.counters.read_packets += 1;
        let (flow, from_sender) = self.flow_of(b, &ip);
        let id = self.store(&b[..ip.total_len as usize], rid);
        let mut pkt = wire::packet(id, flow, b, &ip, now);
        pkt.from_sender = from_sender;
        self.wire_seg[id as usize] = pkt.seg;
        let first = self.routes[&rid][0] as usize;
        self.link_enqueue(now, first, pkt);
    }

    /// A packet reaches link `l` at `now` (`Line::admit`, as the simulator's `link_enqueue`);
    /// a packet the discipline drops frees its slot.
    fn link_enqueue(&mut self, now: Instant, l: usize, pkt: Packet) {
        if self.links[l].admit_idle(now, pkt.ip_len) {
            self.transmit(now, l, pkt);
            return;
        }
        // The departure step needs no arranging: `run_due` polls `next_departure`.
        if let (Some(d), _) = self.links[l].enqueue(now, pkt) {
            self.release_slot(d.id);
            while let Some(d) = self.links[l].take_dropped() {
                self.release_slot(d.id);
            }
        }
    }

    /// Link `l` starts serialising `p` at its ideal time `now` (`Line::start_tx`): what a
    /// queue or an element changed is written into its bytes first, and the pcap gets the
    /// real packet.
    fn transmit(&mut self, now: Instant, l: usize, p: Packet) {
        self.sync_wire(&p);
        let link = &mut self.links[l];
        if let Some(w) = link.pcap.as_mut() {
            if w.write_raw(now, &self.slab[p.id as usize]).is_err() {
                self.counters.pcap_errors += 1;
                link.pcap = None;
            }
        }
        if let Err(lost) = link.start_tx(now, p) {
            self.release_slot(lost.id);
        }
    }

    /// Carries out, in ideal-time order, every link step due by `now`.
    pub fn run_due(&mut self, now: Instant) {
        loop {
            let mut best = (Instant::MAX, usize::MAX);
            for (i, l) in self.links.iter().enumerate() {
                let t = l.next_step();
                if t < best.0 {
                    best = (t, i);
                }
            }
            let mut timer = None;
            for (i, e) in self.elements.iter().enumerate() {
                if e.wake < best.0 {
                    best.0 = e.wake;
                    timer = Some(i);
                }
            }
            let (t, l) = best;
            if t > now {
                break;
            }
            if let Some(i) = timer {
                self.elements[i].wake = Instant::MAX;
                let view = LinksView(&self.links);
                self.elements[i].elem.on_timer(t, &view, &mut self.acts);
                self.apply_actions(t, i);
                continue;
            }
            if l == usize::MAX {
                break;
            }
            // A departure and an arrival due at once: the departure first.
            let link = &mut self.links[l];
            if link.next_departure() == t {
                if let Some(p) = link.head(t) {
                    self.transmit(t, l, p);
                    self.links[l].more_queued();
                }
            } else {
                let mut p = link.arrive(t);
                let to = link.to;
                let (a, b) = self.node_elems[to];
                if a < b && p.flow != NO_FLOW && !self.run_elements(t, l, &mut p, a, b) {
                    continue;
                }
                self.forward(t, p);
            }
        }
        while self.next_sample <= now {
            let t = self.next_sample;
            self.sample(t);
            self.next_sample = t + self.interval;
        }
    }

    /// Sends `p` on from the node it is at: onto its route's next link (`p.hop`), or to
    /// its destination host when the route ends here (`World::forward`).
    fn forward(&mut self, t: Instant, p: Packet) {
        let route = &self.routes[&self.route_of[p.id as usize]];
        if (p.hop as usize) < route.len() {
            let next = route[p.hop as usize] as usize;
            self.link_enqueue(t, next, p);
        } else {
            let dst = self.links[*route.last().unwrap() as usize].to;
            self.release(t, dst, p);
        }
    }

    /// A packet arriving at a node with elements (`World::run_elements`): they see it in
    /// order; true when it goes on.
    fn run_elements(&mut self, t: Instant, l: usize, p: &mut Packet, a: usize, b: usize) -> bool {
        let route = &self.routes[&self.route_of[p.id as usize]];
        let at = Arrival {
            from_link: l as u32,
            next_link: route.get(p.hop as usize).copied(),
        };
        for i in a..b {
            let view = LinksView(&self.links);
            let fate = self.elements[i].see(t, p, at, &view, &mut self.acts);
            if self.acts.has_actions() {
                self.apply_actions(t, i);
            }
            match fate {
                Fate::Forward => {}
                Fate::Drop | Fate::Absorb => {
                    if fate == Fate::Drop {
                        self.counters.element_dropped += 1;
                    } else {
                        self.counters.element_absorbed += 1;
                    }
                    self.release_slot(p.id);
                    return false;
                }
                // The element keeps the packet (and so its slot) until it releases it.
                Fate::Hold => return false,
            }
        }
        true
    }

    /// What element `i` asked for (`World::apply_actions`): created packets leave its node
    /// on their flow's route, built on the wire from the flow's addresses and ports;
    /// released packets continue; its timer is set.
    fn apply_actions(&mut self, t: Instant, i: usize) {
        let node = self.elements[i].node;
        for fg in self.acts.take_emitted() {
            self.elements[i].c.created += 1;
            let k = self.flows[fg.flow as usize];
            let (src, dst, sn, dn) = if fg.from_sender {
                (k.sender, k.receiver, k.src_node, k.dst_node)
            } else {
                (k.receiver, k.sender, k.dst_node, k.src_node)
            };
            self.ip_id = self.ip_id.wrapping_add(1);
            let (Some(bytes), Some(rid)) = (
                wire::forge(src, dst, &fg.seg, self.ip_id),
                self.route_id(sn, dn),
            ) else {
                self.counters.forge_failures += 1;
                self.elements[i].absorb_created();
                continue;
            };
            let route = &self.routes[&rid];
            let links = &self.links;
            let Some(hop) = created_hop(route, node, |x| {
                (links[x as usize].from, links[x as usize].to)
            }) else {
                self.counters.forge_failures += 1;
                self.elements[i].absorb_created();
                continue;
            };
            self.counters.element_created += 1;
            let id = self.store(&bytes, rid);
            let ip = wire::parse_ipv4(&bytes).expect("a forged packet is IPv4");
            let mut pkt = wire::packet(id, fg.flow, &bytes, &ip, t);
            pkt.from_sender = fg.from_sender;
            pkt.hop = hop as u16;
            self.wire_seg[id as usize] = pkt.seg;
            self.forward(t, pkt);
        }
        for p in self.acts.take_released() {
            self.elements[i].c.released += 1;
            self.forward(t, p);
        }
        if let Some(w) = self.acts.take_timer() {
            let e = &mut self.elements[i];
            e.wake = e.wake.min(w.max(t));
        }
    }

    /// The elements in the simulator's summary schema.
    pub fn element_summaries(&self) -> Vec<ElementSummary> {
        self.elements
            .iter()
            .map(|e| ElementSummary::of(e, &self.graph.nodes))
            .collect()
    }

    /// Writes the packet to its destination host at its ideal time `t` (now or later than
    /// `t` by the lateness recorded).
    fn release(&mut self, t: Instant, dst: usize, p: Packet) {
        self.sync_wire(&p);
        debug_assert!(p.sent_at <= t);
        let Some(pi) = self.port_of_node[dst] else {
            self.counters.unroutable += 1;
            self.release_slot(p.id);
            return;
        };
        let fd = self.ports[pi].tun.fd.as_raw_fd();
        let b = &self.slab[p.id as usize];
        // SAFETY: writing a byte buffer to an open TUN fd.
        let r = unsafe { libc::write(fd, b.as_ptr() as *const libc::c_void, b.len()) };
        let now = self.clock.now();
        if r < 0 {
            self.counters.write_errors += 1;
        } else {
            self.counters.released_packets += 1;
        }
        self.lateness.record(now.saturating_since(t).as_nanos());
        if let Some(cb) = self.on_release.as_mut() {
            let n = self.graph.nodes.len() as u32;
            cb((self.route_of[p.id as usize] / n) as usize, dst, b, &p, now);
        }
        self.release_slot(p.id);
    }

    fn sample(&mut self, t: Instant) {
        let secs = self.interval.as_secs_f64();
        for (i, l) in self.links.iter_mut().enumerate() {
            for (m, v) in l.sample(secs).into_iter().enumerate() {
                self.series.push(t, i as u32, LINK_METRICS[m], v);
            }
        }
    }

    /// Flushes the pcaps; false if any failed.
    pub fn flush_pcaps(&mut self) -> bool {
        let mut ok = self.counters.pcap_errors == 0;
        for l in &mut self.links {
            if let Some(w) = l.pcap.as_mut() {
                ok &= w.flush().is_ok();
            }
        }
        ok
    }

    /// The earliest ideal time of any pending step or sample.
    pub fn next_deadline(&self) -> Instant {
        self.links
            .iter()
            .map(|l| l.next_step())
            .chain(self.elements.iter().map(|e| e.wake))
            .min()
            .unwrap_or(Instant::MAX)
            .min(self.next_sample)
    }

    /// Reads every packet waiting on every TUN (non-blocking) as arrivals at `now`.
    pub fn read_all(&mut self, now: Instant, buf: &mut [u8]) {
        for pi in 0..self.ports.len() {
            let fd = self.ports[pi].tun.fd.as_raw_fd();
            let node = self.ports[pi].node;
            loop {
                // SAFETY: reading into a buffer of its own length from an open fd.
                let r = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
                if r <= 0 {
                    break;
                }
                // The caller's buffer, not a copy: no allocation per packet read.
                self.ingress(node, &buf[..r as usize], now);
            }
        }
    }

    /// Conservation per link (`arrived = queue drops + losses + delivered + queued + in the
    /// delay line`, and the queue's own counters) and over the emulated network (every
    /// packet read was released, dropped, or is still inside a link).
    pub fn check_invariants(&self, end: Instant) -> Vec<String> {
        let mut v = Vec::new();
        let mut inside = 0u64;
        let mut dropped = 0u64;
        for l in &self.links {
            l.check(end, &mut v);
            inside += l.inside();
            dropped += l.dropped_queue + l.dropped_loss;
        }
        let mut held = 0;
        for e in &self.elements {
            let h = e.elem.held();
            held += h;
            if let Err(m) = e.c.check(h) {
                v.push(format!(
                    "element {} on '{}': {m}",
                    e.elem.kind(),
                    self.graph.nodes[e.node]
                ));
            }
        }
        let c = &self.counters;
        let out = c.released_packets + c.write_errors;
        let gone = dropped + c.element_dropped + c.element_absorbed;
        if c.read_packets + c.element_created != out + gone + inside + held {
            v.push(format!(
                "network not conserved: read {} + created {} packets, released {}, dropped or absorbed {}, inside links {}, held {}",
                c.read_packets, c.element_created, out, gone, inside, held
            ));
        }
        v
    }

    /// The links in the simulator's summary schema over `[0, end)`.
    pub fn link_summaries(&self, end: Instant) -> Vec<LinkSummary> {
        self.links
            .iter()
            .map(|l| l.summary(&self.graph.nodes, end))
            .collect()
    }

    /// True when a link's rate is a trace (for the summary's notes).
    pub fn is_trace(spec: &RateSpec) -> bool {
        matches!(spec, RateSpec::Trace { .. })
    }
}

/// A time series under construction, in the simulator's columnar form.
#[derive(Default)]
pub struct Series {
    pub ts: TimeSeries,
}

impl Series {
    pub fn entity(&mut self, kind: &str, name: &str) -> u32 {
        self.ts.entities.push((kind.to_string(), name.to_string()));
        (self.ts.entities.len() - 1) as u32
    }

    pub fn push(&mut self, t: Instant, entity: u32, metric: &str, v: f64) {
        let m = match self.ts.metrics.iter().position(|x| x == metric) {
            Some(m) => m,
            None => {
                self.ts.metrics.push(metric.to_string());
                self.ts.metrics.len() - 1
            }
        };
        self.ts.time_ns.push(t.as_nanos());
        self.ts.entity.push(entity);
        self.ts.metric.push(m as u16);
        self.ts.value.push(v);
    }
}
