//! Drop-head FIFO (drop-from-front, Linux `pfifo_head_drop`): an arrival that does not fit
//! pushes packets out of the head until it does, so the freshest data survives and loss
//! is signalled a queueing delay earlier than with drop-tail.

use super::{Fifo, QueueCounters, QueueDiscipline, Verdict};
use crate::config::QueueSpec;
use crate::packet::Packet;
use std::collections::VecDeque;
use tcplab_core::Instant;

#[derive(Clone, Debug)]
pub struct DropHead {
    fifo: Fifo,
    /// Heads dropped by the last `enqueue` beyond the one in its `Verdict`; only a byte
    /// limit with mixed packet sizes needs this. Grown on the first drops and kept, so it
    /// stops allocating after them.
    extra: VecDeque<Packet>,
}

impl DropHead {
    pub fn new(spec: &QueueSpec, header_bytes: u32) -> DropHead {
        DropHead {
            fifo: Fifo::new(spec, header_bytes),
            extra: VecDeque::new(),
        }
    }

    #[cfg(test)]
    pub(crate) fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

impl QueueDiscipline for DropHead {
    fn enqueue(&mut self, _now: Instant, pkt: Packet) -> Verdict {
        let wire = self.fifo.wire(&pkt);
        self.fifo.note_arrival(wire);
        // Extras not collected by the caller belong to an earlier enqueue: already counted.
        self.extra.clear();
        if self.fifo.fits(wire) {
            self.fifo.push(pkt, wire);
            return Verdict::Queued;
        }
        // Packets that could never fit, even in an empty queue, are refused outright
        // rather than flushing the whole queue for nothing.
        if wire > self.fifo.limit_bytes() || self.fifo.limit_pkts() == 0 {
            self.fifo.note_drop(wire);
            return Verdict::Dropped(pkt);
        }
        let mut first = None;
        while !self.fifo.fits(wire) {
            // Cannot be empty here: an empty queue fits any packet within the limits.
            let (p, w) = self.fifo.pop_front_raw().expect("non-empty");
            self.fifo.note_drop(w);
            if first.is_none() {
                first = Some(p);
            } else {
                self.extra.push_back(p);
            }
        }
        self.fifo.push(pkt, wire);
        Verdict::Dropped(first.expect("dropped at least one"))
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
    #[inline]
    fn take_dropped(&mut self) -> Option<Packet> {
        self.extra.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Discipline;
    use crate::queue::tests::{pkt, spec};

    #[test]
    fn full_queue_drops_the_oldest() {
        let mut q = DropHead::new(&spec(Discipline::DropHead, Some(2), None), 0);
        let t = Instant::ZERO;
        assert!(matches!(q.enqueue(t, pkt(1, 1500)), Verdict::Queued));
        assert!(matches!(q.enqueue(t, pkt(2, 1500)), Verdict::Queued));
        match q.enqueue(t, pkt(3, 1500)) {
            Verdict::Dropped(p) => assert_eq!(p.id, 1),
            v => panic!("{v:?}"),
        }
        assert!(q.take_dropped().is_none());
        assert_eq!(q.dequeue(t).unwrap().id, 2);
        assert_eq!(q.dequeue(t).unwrap().id, 3);
        q.counters().check(0, 0).unwrap();
    }

    #[test]
    fn byte_limit_may_drop_several_heads() {
        let mut q = DropHead::new(&spec(Discipline::DropHead, None, Some(1600)), 0);
        let t = Instant::ZERO;
        for id in 1..=3 {
            assert!(matches!(q.enqueue(t, pkt(id, 500)), Verdict::Queued));
        }
        match q.enqueue(t, pkt(4, 1000)) {
            Verdict::Dropped(p) => assert_eq!(p.id, 1),
            v => panic!("{v:?}"),
        }
        assert_eq!(q.take_dropped().unwrap().id, 2);
        assert!(q.take_dropped().is_none());
        assert_eq!(q.len_bytes(), 1500);
        assert_eq!(q.dequeue(t).unwrap().id, 3);
        assert_eq!(q.dequeue(t).unwrap().id, 4);
        let c = q.counters();
        assert_eq!((c.dropped_pkts, c.dropped_bytes), (2, 1000));
        c.check(0, 0).unwrap();
    }

    #[test]
    fn arrival_larger_than_the_byte_limit_is_dropped_itself() {
        let mut q = DropHead::new(&spec(Discipline::DropHead, None, Some(1000)), 0);
        let t = Instant::ZERO;
        assert!(matches!(q.enqueue(t, pkt(1, 500)), Verdict::Queued));
        match q.enqueue(t, pkt(2, 1001)) {
            Verdict::Dropped(p) => assert_eq!(p.id, 2),
            v => panic!("{v:?}"),
        }
        assert_eq!(q.len_packets(), 1);
        q.counters().check(1, 500).unwrap();
    }
}
