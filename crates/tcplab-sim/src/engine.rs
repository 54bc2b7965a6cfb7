//! The discrete-event core (DESIGN.md "Engine"): one binary heap of events ordered by
//! `(time, insertion seq)`, so simultaneous events run in the order they were scheduled
//! and every run is reproducible; an event budget turns a livelock into an error.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use tcplab_core::Instant;

/// What happens at an event. Small and `Copy`: the heap stores it inline.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet in a link's serialiser has left it.
    LinkTxDone(u32),
    /// The head of a link's propagation delay line reaches the far end.
    LinkArrive(u32),
    /// An endpoint's timer; stale unless `gen` matches the endpoint's current generation.
    EndpointTimer { ep: u32, gen: u32 },
    /// A flow's sending application starts (connects and writes).
    FlowStart(u32),
    /// A flow's sending application stops writing and closes.
    FlowStop(u32),
    /// A rate-limited receiving application reads.
    AppRead(u32),
    /// Time-series sampling tick.
    Sample,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: Instant,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// The event queue.
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    now: Instant,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: Instant::ZERO,
        }
    }

    /// Schedules `ev` at `time`; scheduling in the past is a logic error.
    pub fn schedule(&mut self, time: Instant, ev: Event) {
        debug_assert!(
            time >= self.now,
            "event {ev:?} scheduled in the past ({time} < {})",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, ev });
    }

    /// The next event, advancing the clock to its time.
    pub fn pop(&mut self) -> Option<(Instant, Event)> {
        let e = self.heap.pop()?;
        self.now = e.time;
        Some((e.time, e.ev))
    }

    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn now(&self) -> Instant {
        self.now
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(Instant(5), Event::AppRead(1));
        q.schedule(Instant(3), Event::AppRead(2));
        q.schedule(Instant(5), Event::AppRead(3));
        q.schedule(Instant(5), Event::Sample);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Instant(3), Event::AppRead(2)),
                (Instant(5), Event::AppRead(1)),
                (Instant(5), Event::AppRead(3)),
                (Instant(5), Event::Sample),
            ]
        );
        assert_eq!(q.now(), Instant(5));
    }

    #[test]
    fn event_is_small() {
        // The heap moves entries on every push/pop: keep them within half a cache line.
        assert!(
            std::mem::size_of::<Entry>() <= 32,
            "{}",
            std::mem::size_of::<Entry>()
        );
    }
}
