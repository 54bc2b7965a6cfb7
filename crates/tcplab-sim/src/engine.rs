//! The discrete-event core (DESIGN.md "Engine"): one (4-ary) heap of events ordered by
//! `(time, insertion seq)`, so simultaneous events run in the order they were scheduled
//! and every run is reproducible; an event budget turns a livelock into an error.

use tcplab_core::Instant;

/// What happens at an event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A link's serialiser is free: the head of its queue starts transmitting.
    LinkTxDone(u32),
    /// The head of a link's propagation delay line reaches the far end.
    LinkArrive(u32),
    /// An endpoint's timer. Live only if it fires at the endpoint's current wake-up time;
    /// otherwise it is stale (a firing of a live one that finds nothing due is a harmless
    /// no-op by the endpoint's contract).
    EndpointTimer(u32),
    /// A flow's sending application starts (connects, unless it has already, and writes).
    FlowStart(u32),
    /// A flow's sending application stops writing and closes.
    FlowStop(u32),
    /// A rate-limited receiving application reads.
    AppRead(u32),
    /// Time-series sampling tick.
    Sample,
    /// A flow's sender opens its connection before its application starts writing.
    FlowConnect(u32),
    /// A node element's timer (index into the world's elements). Live only if it fires at
    /// the element's current wake-up time, like an endpoint timer.
    ElementTimer(u32),
    /// A flow's sending application reaches the edge of its next pause (`FlowSpec::pauses`):
    /// it stops writing at the pause's start and writes again at its end. One kind for both
    /// edges: the flow knows which one is due from its pause list.
    FlowPause(u32),
    /// The next flow of an open-loop workload arrives (index into the world's workloads;
    /// at most one pending per workload: each arrival schedules the next).
    WorkloadArrival(u32),
}

impl Event {
    /// The kind code stored in a heap key. Exhaustive on purpose: a new variant does not
    /// compile until it has a code, and a test round-trips every code below [`KINDS`]
    /// through [`Event::from_code`], so no kind can alias another.
    fn code(self) -> (u32, u32) {
        match self {
            Event::LinkTxDone(i) => (0, i),
            Event::LinkArrive(i) => (1, i),
            Event::EndpointTimer(i) => (2, i),
            Event::FlowStart(i) => (3, i),
            Event::FlowStop(i) => (4, i),
            Event::AppRead(i) => (5, i),
            Event::Sample => (6, 0),
            Event::FlowConnect(i) => (7, i),
            Event::ElementTimer(i) => (8, i),
            Event::FlowPause(i) => (9, i),
            Event::WorkloadArrival(i) => (10, i),
        }
    }

    fn from_code(kind: u32, i: u32) -> Event {
        match kind {
            0 => Event::LinkTxDone(i),
            1 => Event::LinkArrive(i),
            2 => Event::EndpointTimer(i),
            3 => Event::FlowStart(i),
            4 => Event::FlowStop(i),
            5 => Event::AppRead(i),
            6 => Event::Sample,
            7 => Event::FlowConnect(i),
            8 => Event::ElementTimer(i),
            9 => Event::FlowPause(i),
            // The last code takes the wildcard arm (a panic arm here costs six instructions
            // per event); keys only ever hold codes below KINDS, and the round-trip test
            // fails if a code added to `code` is missing here.
            _ => {
                debug_assert_eq!(kind, KINDS - 1, "event kind {kind} has no decoding");
                Event::WorkloadArrival(i)
            }
        }
    }
}

/// Number of event kinds (codes `0..KINDS`).
const KINDS: u32 = 11;

/// Bits of an entry: time (64) | insertion seq (39) | event kind (4) | index (21). One
/// `u128` compares in two instructions and keeps heap entries at 16 bytes; the seq makes
/// every key unique, so the order is (time, insertion order) exactly.
const INDEX_BITS: u32 = 21;
const KIND_BITS: u32 = 4;
const SEQ_BITS: u32 = 39;
const _: () = assert!(KINDS <= 1 << KIND_BITS && SEQ_BITS + KIND_BITS + INDEX_BITS == 64);
/// Largest element index an event can carry.
pub const MAX_INDEX: u32 = (1 << INDEX_BITS) - 1;

fn pack(time: Instant, seq: u64, ev: Event) -> u128 {
    let (kind, idx) = ev.code();
    debug_assert!(idx <= MAX_INDEX);
    ((time.as_nanos() as u128) << 64)
        | ((seq as u128) << (KIND_BITS + INDEX_BITS))
        | ((kind as u128) << INDEX_BITS)
        | idx as u128
}

fn unpack(key: u128) -> (Instant, Event) {
    let time = Instant((key >> 64) as u64);
    let idx = (key as u32) & MAX_INDEX;
    let ev = Event::from_code((key as u32 >> INDEX_BITS) & ((1 << KIND_BITS) - 1), idx);
    (time, ev)
}

/// A 4-ary min-heap of packed keys: half the depth of a binary heap, and the four children
/// of a node share a cache line, so a pop touches about half as many lines.
#[derive(Default)]
struct QuadHeap {
    v: Vec<u128>,
}

impl QuadHeap {
    fn with_capacity(n: usize) -> Self {
        QuadHeap {
            v: Vec::with_capacity(n),
        }
    }

    #[inline]
    fn push(&mut self, key: u128) {
        let mut i = self.v.len();
        self.v.push(key);
        while i > 0 {
            let parent = (i - 1) / 4;
            let pk = self.v[parent];
            if pk <= key {
                break;
            }
            self.v[i] = pk;
            i = parent;
        }
        self.v[i] = key;
    }

    #[inline]
    fn pop(&mut self) -> Option<u128> {
        let top = *self.v.first()?;
        let last = self.v.pop().expect("non-empty");
        let n = self.v.len();
        if n == 0 {
            return Some(top);
        }
        // Sift `last` down from the root.
        let mut i = 0;
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let end = (c + 4).min(n);
            let mut m = c;
            let mut mk = self.v[c];
            for j in c + 1..end {
                let k = self.v[j];
                if k < mk {
                    m = j;
                    mk = k;
                }
            }
            if mk >= last {
                break;
            }
            self.v[i] = mk;
            i = m;
        }
        self.v[i] = last;
        Some(top)
    }

    fn peek(&self) -> Option<u128> {
        self.v.first().copied()
    }

    fn len(&self) -> usize {
        self.v.len()
    }
}

/// The event queue: a min-heap of packed keys.
pub struct EventQueue {
    heap: QuadHeap,
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
            heap: QuadHeap::with_capacity(1024),
            next_seq: 0,
            now: Instant::ZERO,
        }
    }

    /// Schedules `ev` at `time`; scheduling in the past is a logic error, checked in release
    /// builds too: a past event would make simulated time run backwards unnoticed (one
    /// predictable compare per event; no measurable cost).
    #[inline]
    pub fn schedule(&mut self, time: Instant, ev: Event) {
        assert!(
            time >= self.now,
            "event {ev:?} scheduled in the past ({time} < {})",
            self.now
        );
        let seq = self.next_seq;
        // 2^39 events is weeks of simulation at today's speed; the event budget stops far earlier.
        assert!(seq < 1 << SEQ_BITS, "event sequence space exhausted");
        self.next_seq += 1;
        self.heap.push(pack(time, seq, ev));
    }

    /// The next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Instant, Event)> {
        let key = self.heap.pop()?;
        let (time, ev) = unpack(key);
        self.now = time;
        Some((time, ev))
    }

    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|k| Instant((k >> 64) as u64))
    }

    pub fn now(&self) -> Instant {
        self.now
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_heap_pops_in_order() {
        let mut h = QuadHeap::default();
        let mut x: u64 = 1;
        let mut all = Vec::new();
        for round in 0..50 {
            for _ in 0..(round % 7) + 1 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let k = (x >> 20) as u128;
                h.push(k);
                all.push(k);
            }
            if round % 3 == 0 {
                all.sort_unstable();
                assert_eq!(h.pop(), Some(all.remove(0)));
            }
        }
        all.sort_unstable();
        let rest: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(rest, all);
    }

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
    fn every_event_round_trips_through_its_key() {
        // Every code decodes to an event that encodes back to it, at the extremes of time,
        // sequence and index: a kind added without a decoding, or decoding as another
        // kind, fails here.
        let mut seen = Vec::new();
        for kind in 0..KINDS {
            for idx in [0, 1, 12345, MAX_INDEX] {
                let ev = Event::from_code(kind, idx);
                let want_idx = if ev == Event::Sample { 0 } else { idx };
                assert_eq!(ev.code(), (kind, want_idx));
                for (t, seq) in [
                    (Instant(0), 0),
                    (Instant(u64::MAX - 1), (1 << SEQ_BITS) - 1),
                ] {
                    assert_eq!(unpack(pack(t, seq, ev)), (t, ev));
                }
            }
            seen.push(std::mem::discriminant(&Event::from_code(kind, 0)));
        }
        for (a, da) in seen.iter().enumerate() {
            for db in &seen[a + 1..] {
                assert_ne!(da, db, "two codes decode to one kind");
            }
        }
        // Every variant has a code below KINDS (`code` is exhaustive, so a new variant has
        // one; this catches one numbered past KINDS).
        for ev in [
            Event::LinkTxDone(1),
            Event::LinkArrive(1),
            Event::EndpointTimer(1),
            Event::FlowStart(1),
            Event::FlowStop(1),
            Event::AppRead(1),
            Event::Sample,
            Event::FlowConnect(1),
            Event::ElementTimer(1),
            Event::FlowPause(1),
            Event::WorkloadArrival(1),
        ] {
            assert!(ev.code().0 < KINDS, "{ev:?}");
            assert_eq!(Event::from_code(ev.code().0, ev.code().1), ev);
        }
    }
}
