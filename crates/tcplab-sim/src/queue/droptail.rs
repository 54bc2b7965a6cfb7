//! Drop-tail FIFO (ns-3 `DropTailQueue`, Linux `pfifo`/`bfifo`): an arrival that would
//! exceed the packet or the byte limit is discarded; queued packets are never touched.

use super::{Fifo, QueueCounters, QueueDiscipline, Verdict};
use crate::config::QueueSpec;
use crate::packet::Packet;
use tcplab_core::Instant;

#[derive(Clone, Debug)]
pub struct DropTail {
    fifo: Fifo,
}

impl DropTail {
    #[cfg(test)]
    pub(crate) fn fifo(&self) -> &Fifo {
        &self.fifo
    }

    pub fn new(spec: &QueueSpec, header_bytes: u32) -> DropTail {
        DropTail {
            fifo: Fifo::new(spec, header_bytes),
        }
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn enqueue(&mut self, _now: Instant, pkt: Packet) -> Verdict {
        let wire = self.fifo.wire(&pkt);
        self.fifo.note_arrival(wire);
        if self.fifo.fits(wire) {
            self.fifo.push(pkt, wire);
            Verdict::Queued
        } else {
            self.fifo.note_drop(wire);
            Verdict::Dropped(pkt)
        }
    }
    #[inline]
    fn dequeue(&mut self, _now: Instant) -> Option<Packet> {
        self.fifo.dequeue()
    }
    #[inline]
    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn counters(&self) -> QueueCounters {
        self.fifo.counters()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Discipline;
    use crate::queue::tests::{pkt, spec};

    #[test]
    fn packet_limit_drops_the_arrival() {
        let mut q = DropTail::new(&spec(Discipline::DropTail, Some(2), None), 0);
        let t = Instant::ZERO;
        assert!(matches!(q.enqueue(t, pkt(1, 1500)), Verdict::Queued));
        assert!(matches!(q.enqueue(t, pkt(2, 1500)), Verdict::Queued));
        match q.enqueue(t, pkt(3, 40)) {
            Verdict::Dropped(p) => assert_eq!(p.id, 3),
            v => panic!("{v:?}"),
        }
        assert_eq!(q.dequeue(t).unwrap().id, 1);
        assert!(matches!(q.enqueue(t, pkt(4, 40)), Verdict::Queued));
        assert_eq!(q.dequeue(t).unwrap().id, 2);
        assert_eq!(q.dequeue(t).unwrap().id, 4);
        assert!(q.dequeue(t).is_none() && q.is_empty());
    }

    #[test]
    fn byte_limit_counts_link_headers() {
        // 3000 B of wire bytes: two 1498-byte packets plus 2 B PPP header each fit exactly.
        let mut q = DropTail::new(&spec(Discipline::DropTail, None, Some(3000)), 2);
        let t = Instant::ZERO;
        assert!(matches!(q.enqueue(t, pkt(1, 1498)), Verdict::Queued));
        assert!(matches!(q.enqueue(t, pkt(2, 1498)), Verdict::Queued));
        assert_eq!(q.len_bytes(), 3000);
        assert!(matches!(q.enqueue(t, pkt(3, 38)), Verdict::Dropped(_)));
        let c = q.counters();
        assert_eq!(
            (c.arrived_pkts, c.dropped_pkts, c.dropped_bytes),
            (3, 1, 40)
        );
        c.check(q.len_packets(), q.len_bytes()).unwrap();
    }

    #[test]
    fn both_limits_apply() {
        let mut q = DropTail::new(&spec(Discipline::DropTail, Some(3), Some(100)), 0);
        let t = Instant::ZERO;
        assert!(matches!(q.enqueue(t, pkt(1, 40)), Verdict::Queued));
        assert!(matches!(q.enqueue(t, pkt(2, 40)), Verdict::Queued));
        assert!(matches!(q.enqueue(t, pkt(3, 40)), Verdict::Dropped(_))); // bytes
        assert!(matches!(q.enqueue(t, pkt(4, 20)), Verdict::Queued));
        assert!(matches!(q.enqueue(t, pkt(5, 0)), Verdict::Dropped(_))); // packets
    }
}
