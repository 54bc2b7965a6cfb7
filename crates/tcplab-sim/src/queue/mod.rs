//! Queue disciplines in front of a link's serialiser (DESIGN.md "Network elements are
//! sans-IO"): drop-tail (ns-2/ns-3 `DropTailQueue`), drop-head (drop-from-front) and RED
//! (Floyd and Jacobson 1993, as ns-2.35's queue/red.cc).
//!
//! All keep packets in a `VecDeque` that grows with the backlog the queue actually holds
//! (never reserved for its configured limit: a thousand large byte-limited queues must not
//! reserve gigabytes they never use), so the per-packet path stops allocating once the queue
//! has reached its working size; and both keep counters from
//! which packet and byte conservation can be checked at any time:
//! `arrived = dequeued + dropped + backlog` (see [`QueueCounters::check`]).

mod drophead;
mod droptail;
mod red;

pub use drophead::DropHead;
pub use droptail::DropTail;
pub use red::{Red, RedParams, RedStats};

use crate::config::{Discipline, QueueSpec};
use crate::packet::Packet;
use std::collections::VecDeque;
use tcplab_core::{Duration, Instant, Rng};

/// The outcome of one `enqueue`.
#[derive(Debug)]
pub enum Verdict {
    /// The arriving packet was queued and nothing was dropped.
    Queued,
    /// One packet was dropped. For drop-tail it is the arrival; for drop-head the arrival
    /// was queued and this is the old head (or the arrival itself if it alone exceeds the
    /// byte limit). When a byte limit forces drop-head to discard several heads, the
    /// further ones are returned by [`QueueDiscipline::take_dropped`].
    Dropped(Packet),
}

/// A queue discipline. Time is an argument: a discipline knows no time beyond `now`.
pub trait QueueDiscipline {
    fn enqueue(&mut self, now: Instant, pkt: Packet) -> Verdict;
    fn dequeue(&mut self, now: Instant) -> Option<Packet>;
    fn len_packets(&self) -> usize;
    /// Backlog in wire bytes (`ip_len + header_bytes` of every queued packet).
    fn len_bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len_packets() == 0
    }
    fn counters(&self) -> QueueCounters;
    /// Further packets dropped by the last `enqueue` beyond the one its `Verdict` carried
    /// (only drop-head under a byte limit with mixed packet sizes). Call until `None`
    /// after every `Verdict::Dropped` to account for every drop per flow.
    fn take_dropped(&mut self) -> Option<Packet> {
        None
    }
    /// A packet of `ip_len` IP bytes reached the link while it was idle (since
    /// `idle_since`) with this queue empty and goes straight onto the wire without
    /// `enqueue`. Disciplines that keep state per arrival (RED's average) update it here;
    /// the packet is neither queued nor counted. Its length, not the packet: taking the
    /// packet's address on the link's fast path made every idle arrival copy it (measured:
    /// 15 more instructions per packet on dumbbell-10).
    fn note_idle_arrival(&mut self, _now: Instant, _idle_since: Instant, _ip_len: u32) {}
}

/// Cumulative counts since the queue was created. Bytes are wire bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueCounters {
    /// Every packet offered to `enqueue`, whether it was kept or not.
    pub arrived_pkts: u64,
    pub arrived_bytes: u64,
    pub dequeued_pkts: u64,
    pub dequeued_bytes: u64,
    /// Every packet discarded by the discipline (arrivals and, for drop-head, old heads).
    pub dropped_pkts: u64,
    pub dropped_bytes: u64,
    /// Packets kept with CE set by the discipline (RED with ECN): kept, so not drops.
    pub marked_pkts: u64,
}

impl QueueCounters {
    /// Conservation: everything that arrived was dequeued, dropped, or is still queued.
    pub fn check(&self, backlog_pkts: usize, backlog_bytes: u64) -> Result<(), String> {
        let pkts = self.dequeued_pkts + self.dropped_pkts + backlog_pkts as u64;
        let bytes = self.dequeued_bytes + self.dropped_bytes + backlog_bytes;
        if pkts != self.arrived_pkts || bytes != self.arrived_bytes {
            return Err(format!(
                "queue not conserved: arrived {} pkts / {} B, dequeued+dropped+queued {} pkts / {} B",
                self.arrived_pkts, self.arrived_bytes, pkts, bytes
            ));
        }
        Ok(())
    }
}

/// Storage and bookkeeping shared by the FIFO disciplines.
#[derive(Clone, Debug)]
pub(crate) struct Fifo {
    pkts: VecDeque<Packet>,
    bytes: u64,
    header_bytes: u32,
    /// `u64::MAX` when unlimited: one comparison instead of an `Option` match per packet.
    limit_pkts: u64,
    limit_bytes: u64,
    counters: QueueCounters,
}

impl Fifo {
    pub(crate) fn new(spec: &QueueSpec, header_bytes: u32) -> Fifo {
        let limit_pkts = spec.limit_packets.unwrap_or(u64::MAX);
        let limit_bytes = spec.limit_bytes.unwrap_or(u64::MAX);
        Fifo {
            // Nothing reserved: a queue that backs up doubles a few times and then stays
            // put, so memory follows the backlog, not the configured limit, and the many
            // links that never queue (a large dumbbell's access links) cost nothing.
            pkts: VecDeque::new(),
            bytes: 0,
            header_bytes,
            limit_pkts,
            limit_bytes,
            counters: QueueCounters::default(),
        }
    }

    #[inline]
    pub(crate) fn wire(&self, pkt: &Packet) -> u64 {
        pkt.ip_len as u64 + self.header_bytes as u64
    }

    /// Would `wire` more bytes (one more packet) fit within both limits?
    #[inline]
    pub(crate) fn fits(&self, wire: u64) -> bool {
        (self.pkts.len() as u64) < self.limit_pkts && self.bytes + wire <= self.limit_bytes
    }

    #[inline]
    pub(crate) fn limit_bytes(&self) -> u64 {
        self.limit_bytes
    }

    #[inline]
    pub(crate) fn limit_pkts(&self) -> u64 {
        self.limit_pkts
    }

    #[inline]
    pub(crate) fn note_arrival(&mut self, wire: u64) {
        self.counters.arrived_pkts += 1;
        self.counters.arrived_bytes += wire;
    }

    #[inline]
    pub(crate) fn note_drop(&mut self, wire: u64) {
        self.counters.dropped_pkts += 1;
        self.counters.dropped_bytes += wire;
    }

    #[inline]
    pub(crate) fn note_mark(&mut self) {
        self.counters.marked_pkts += 1;
    }

    #[inline]
    pub(crate) fn push(&mut self, pkt: Packet, wire: u64) {
        self.bytes += wire;
        self.pkts.push_back(pkt);
    }

    /// Removes the head without counting it as dequeued (the caller counts it).
    #[inline]
    pub(crate) fn pop_front_raw(&mut self) -> Option<(Packet, u64)> {
        let p = self.pkts.pop_front()?;
        let w = self.wire(&p);
        self.bytes -= w;
        Some((p, w))
    }

    #[inline]
    pub(crate) fn dequeue(&mut self) -> Option<Packet> {
        let (p, w) = self.pop_front_raw()?;
        self.counters.dequeued_pkts += 1;
        self.counters.dequeued_bytes += w;
        Some(p)
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.pkts.len()
    }

    #[inline]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    #[inline]
    pub(crate) fn counters(&self) -> QueueCounters {
        self.counters
    }

    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.pkts.capacity()
    }
}

/// The disciplines a link can use, dispatched statically (no `dyn` on the per-packet path).
#[derive(Clone, Debug)]
pub enum Queue {
    DropTail(DropTail),
    DropHead(DropHead),
    Red(Box<Red>),
}

impl Queue {
    /// A queue for tests and tools that have no link: RED gets a 10 Mbit/s, zero-delay
    /// link and seed 0 (use `for_link` in a simulation).
    pub fn new(spec: &QueueSpec, header_bytes: u32) -> Queue {
        Queue::for_link(spec, header_bytes, 10e6, Duration::ZERO, Rng::from_seed(0))
    }

    /// The queue of a link of mean rate `link_bps` and propagation `delay` (RED derives its
    /// packet time constant and automatic weight from them, as ns-2 does from its link);
    /// `rng` is the queue's own random stream.
    pub fn for_link(
        spec: &QueueSpec,
        header_bytes: u32,
        link_bps: f64,
        delay: Duration,
        rng: Rng,
    ) -> Queue {
        match spec.discipline {
            Discipline::DropTail => Queue::DropTail(DropTail::new(spec, header_bytes)),
            Discipline::DropHead => Queue::DropHead(DropHead::new(spec, header_bytes)),
            Discipline::Red => {
                Queue::Red(Box::new(Red::new(spec, header_bytes, link_bps, delay, rng)))
            }
        }
    }

    /// RED's statistics, for a RED queue.
    pub fn red_stats(&self) -> Option<RedStats> {
        match self {
            Queue::Red(r) => Some(r.stats()),
            _ => None,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            Queue::DropTail($q) => $e,
            Queue::DropHead($q) => $e,
            Queue::Red($q) => $e,
        }
    };
}

impl QueueDiscipline for Queue {
    #[inline]
    fn enqueue(&mut self, now: Instant, pkt: Packet) -> Verdict {
        dispatch!(self, q => q.enqueue(now, pkt))
    }
    #[inline]
    fn dequeue(&mut self, now: Instant) -> Option<Packet> {
        dispatch!(self, q => q.dequeue(now))
    }
    #[inline]
    fn len_packets(&self) -> usize {
        dispatch!(self, q => q.len_packets())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    fn counters(&self) -> QueueCounters {
        dispatch!(self, q => q.counters())
    }
    #[inline]
    fn take_dropped(&mut self) -> Option<Packet> {
        dispatch!(self, q => q.take_dropped())
    }
    #[inline]
    fn note_idle_arrival(&mut self, now: Instant, idle_since: Instant, ip_len: u32) {
        dispatch!(self, q => q.note_idle_arrival(now, idle_since, ip_len))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use tcplab_core::{Rng, Segment};

    pub(crate) fn pkt(id: u64, ip_len: u32) -> Packet {
        Packet {
            id,
            flow: 0,
            from_sender: true,
            hop: 0,
            ip_len,
            sent_at: Instant::ZERO,
            seg: Segment::default(),
        }
    }

    pub(crate) fn spec(d: Discipline, pkts: Option<u64>, bytes: Option<u64>) -> QueueSpec {
        QueueSpec {
            discipline: d,
            limit_packets: pkts,
            limit_bytes: bytes,
            red: None,
        }
    }

    /// Random operation sequences: after every step the queue is within its limits,
    /// conserves packets and bytes, and is FIFO among the packets it keeps.
    #[test]
    fn random_operations_keep_invariants() {
        let mut rng = Rng::from_seed(11);
        for d in [Discipline::DropTail, Discipline::DropHead] {
            for (lp, lb) in [
                (Some(5), None),
                (None, Some(6000)),
                (Some(8), Some(9000)),
                (None, None),
            ] {
                let mut q = Queue::new(&spec(d, lp, lb), 2);
                let mut last_out = None;
                let mut dropped = 0u64;
                for id in 0..5000u64 {
                    if rng.below(3) < 2 {
                        let len = [40, 52, 576, 1500][rng.below(4) as usize];
                        if let Verdict::Dropped(_) = q.enqueue(Instant::ZERO, pkt(id, len)) {
                            dropped += 1;
                            while q.take_dropped().is_some() {
                                dropped += 1;
                            }
                        }
                    } else if let Some(p) = q.dequeue(Instant::ZERO) {
                        assert!(last_out.is_none_or(|l| p.id > l), "FIFO order");
                        last_out = Some(p.id);
                    }
                    assert!(q.len_packets() as u64 <= lp.unwrap_or(u64::MAX));
                    assert!(q.len_bytes() <= lb.unwrap_or(u64::MAX));
                    let c = q.counters();
                    c.check(q.len_packets(), q.len_bytes()).unwrap();
                    assert_eq!(c.dropped_pkts, dropped);
                }
            }
        }
    }

    /// RED keeps the same invariants under random operations (packet limits: ns-2 tests a
    /// byte limit on the backlog before the arrival, so a byte-limited RED queue may pass
    /// its limit by one packet).
    #[test]
    fn red_random_operations_keep_invariants() {
        let mut rng = Rng::from_seed(12);
        for limit in [3u64, 20, 60] {
            let mut s = spec(Discipline::Red, Some(limit), None);
            s.red = Some(crate::config::RedSpec {
                min_th: 5.0,
                max_th: 15.0,
                q_weight: 0.02,
                queue_in_bytes: false,
                ..Default::default()
            });
            let mut q = Queue::new(&s, 2);
            let mut last_out = None;
            let mut dropped = 0u64;
            for id in 0..20_000u64 {
                if rng.below(3) < 2 {
                    let len = [40, 52, 576, 1500][rng.below(4) as usize];
                    if let Verdict::Dropped(_) = q.enqueue(Instant::ZERO, pkt(id, len)) {
                        dropped += 1;
                    }
                } else if let Some(p) = q.dequeue(Instant::ZERO) {
                    assert!(last_out.is_none_or(|l| p.id > l), "FIFO order");
                    last_out = Some(p.id);
                }
                assert!(q.len_packets() as u64 <= limit);
                let c = q.counters();
                c.check(q.len_packets(), q.len_bytes()).unwrap();
                assert_eq!(c.dropped_pkts, dropped);
            }
            let r = q.red_stats().unwrap();
            assert_eq!(r.early_drops + r.forced_drops, dropped);
            assert!(dropped > 0);
        }
    }

    #[test]
    fn class5_memory_follows_the_backlog_not_the_configured_limit() {
        // Issue 20 class 5: a queue of 10^9 bytes used to reserve 65,536 packet slots
        // (7.9 MB) before a packet arrived; a thousand of them aborted on allocation.
        // Issue 18: nothing is reserved before a packet arrives, whatever the limit.
        let huge = Fifo::new(&spec(Discipline::DropTail, None, Some(1_000_000_000)), 0);
        assert_eq!(huge.capacity(), 0);
        let small = Fifo::new(&spec(Discipline::DropTail, Some(3), None), 0);
        assert_eq!(small.capacity(), 0);
        // It grows when a backlog builds, and keeps what it grew to.
        let mut q = Queue::new(&spec(Discipline::DropTail, Some(10_000), None), 0);
        for id in 0..5_000 {
            q.enqueue(Instant::ZERO, pkt(id, 1500));
        }
        let grown = match &q {
            Queue::DropTail(d) => d.fifo().capacity(),
            _ => unreachable!(),
        };
        assert!(grown >= 5_000);
    }

    #[test]
    fn steady_state_does_not_reallocate() {
        let mut q = Queue::new(&spec(Discipline::DropHead, Some(64), None), 0);
        // The first fill grows the queue to its limit (nothing is reserved up front) ...
        for id in 0..200 {
            q.enqueue(Instant::ZERO, pkt(id, 1500));
        }
        // ... and after it, a queue churning at its limit never allocates again.
        let cap = match &q {
            Queue::DropHead(d) => d.fifo().capacity(),
            _ => unreachable!(),
        };
        for id in 200..10_000 {
            q.enqueue(Instant::ZERO, pkt(id, 1500));
            if id % 3 == 0 {
                q.dequeue(Instant::ZERO);
            }
        }
        match &q {
            Queue::DropHead(d) => assert_eq!(d.fifo().capacity(), cap),
            _ => unreachable!(),
        }
    }
}
