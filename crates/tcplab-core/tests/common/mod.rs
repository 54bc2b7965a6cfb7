//! A two-endpoint harness: a lossy, reordering, duplicating channel between a writer and a
//! (possibly slow) reader, with the endpoints' invariants checked after every step.
#![allow(dead_code)]

pub mod script;

use tcplab_core::tcp::{
    Endpoint, EndpointState, LossDetection, RtoRule, RttSource, SsthreshRule, TcpConfig,
};

/// The default profile's keys with the RFC rules most dialogues were written against and
/// whose figures their comments give: RFC 6298's RTO, RFC 5681's FlightSize / 2, Karn's
/// send-time samples, one segment per slow-start ACK, RFC 6675's loss detection (no
/// RACK-TLP: its probe would come before the timeouts they script). tests/profiles.rs and
/// tests/rack_dialogue.rs check the other rules.
pub fn rfc_rules() -> TcpConfig {
    TcpConfig {
        rto_rule: RtoRule::Rfc6298,
        ssthresh_rule: SsthreshRule::FlightSize,
        rtt_source: RttSource::SendTime,
        abc_limit_pkts: 1,
        loss_detection: LossDetection::Dupthresh,
        ..TcpConfig::default()
    }
}
use tcplab_core::{Duration, Instant, Rng, Segment, SeqNo};

#[derive(Clone, Debug)]
pub struct Channel {
    pub delay: Duration,
    /// Extra uniform delay in [0, jitter): reorders segments.
    pub jitter: Duration,
    pub loss: f64,
    pub dup: f64,
    /// Seconds of bottleneck per byte (0 = infinite rate); keeps bursts from all arriving at once.
    pub ns_per_byte: u64,
    /// Drop the first transmission of the segments with these sequence numbers.
    pub drop_seqs: Vec<SeqNo>,
    /// Mark CE (RFC 3168 section 5) on the first ECT transmission of the segments with
    /// these sequence numbers, as a congested router would instead of dropping them.
    pub ce_seqs: Vec<SeqNo>,
    /// Delay the first transmission of the segment with this sequence number by this much
    /// more than the others: a deterministic reordering.
    pub delay_seqs: Vec<(SeqNo, Duration)>,
}

impl Default for Channel {
    fn default() -> Self {
        Channel {
            delay: Duration::from_millis(20),
            jitter: Duration::ZERO,
            loss: 0.0,
            dup: 0.0,
            ns_per_byte: 0,
            drop_seqs: Vec::new(),
            ce_seqs: Vec::new(),
            delay_seqs: Vec::new(),
        }
    }
}

struct InFlight {
    at: Instant,
    order: u64,
    seg: Segment,
}

pub struct Pipe {
    ch: Channel,
    q: Vec<InFlight>,
    busy_until: Instant,
    order: u64,
    rng: Rng,
    pub sent: u64,
    pub dropped: u64,
}

impl Pipe {
    pub fn new(ch: Channel, rng: Rng) -> Self {
        Pipe {
            ch,
            q: Vec::new(),
            busy_until: Instant::ZERO,
            order: 0,
            rng,
            sent: 0,
            dropped: 0,
        }
    }
    pub fn send(&mut self, now: Instant, mut seg: Segment) {
        self.sent += 1;
        if seg.ecn.is_ect() {
            if let Some(i) = self.ch.ce_seqs.iter().position(|&q| q == seg.seq) {
                self.ch.ce_seqs.swap_remove(i);
                seg.ecn = tcplab_core::Ecn::Ce;
            }
        }
        if seg.payload_len > 0 {
            if let Some(i) = self.ch.drop_seqs.iter().position(|&q| q == seg.seq) {
                self.ch.drop_seqs.swap_remove(i);
                self.dropped += 1;
                return;
            }
        }
        let mut extra = Duration::ZERO;
        if seg.payload_len > 0 {
            if let Some(i) = self.ch.delay_seqs.iter().position(|&(q, _)| q == seg.seq) {
                extra = self.ch.delay_seqs.swap_remove(i).1;
            }
        }
        if self.rng.bernoulli(self.ch.loss) {
            self.dropped += 1;
            return;
        }
        let copies = if self.rng.bernoulli(self.ch.dup) {
            2
        } else {
            1
        };
        let start = now.max(self.busy_until);
        let ser = Duration(self.ch.ns_per_byte * seg.ip_len() as u64);
        self.busy_until = start + ser;
        for _ in 0..copies {
            let j = if self.ch.jitter.0 > 0 {
                Duration(self.rng.below(self.ch.jitter.0))
            } else {
                Duration::ZERO
            };
            self.order += 1;
            self.q.push(InFlight {
                at: start + ser + self.ch.delay + j + extra,
                order: self.order,
                seg,
            });
        }
    }
    pub fn next_at(&self) -> Option<Instant> {
        self.q.iter().map(|f| f.at).min()
    }
    /// Removes the earliest segment due at or before `now` (ties in send order).
    pub fn pop_due(&mut self, now: Instant) -> Option<Segment> {
        let i = self
            .q
            .iter()
            .enumerate()
            .filter(|(_, f)| f.at <= now)
            .min_by_key(|(_, f)| (f.at, f.order))
            .map(|(i, _)| i)?;
        Some(self.q.swap_remove(i).seg)
    }
}

pub struct Scenario {
    pub client: TcpConfig,
    pub server: TcpConfig,
    pub client_isn: SeqNo,
    pub server_isn: SeqNo,
    pub fwd: Channel,
    pub rev: Channel,
    /// Bytes the client writes, then closes.
    pub bytes: u64,
    /// The server app reads this much every `read_every` (None: reads everything at once).
    pub read_chunk: u64,
    pub read_every: Option<Duration>,
    pub seed: u64,
    pub limit: Instant,
}

pub struct Outcome {
    pub a: Endpoint,
    pub b: Endpoint,
    pub now: Instant,
    pub read: u64,
}

fn check(ep: &Endpoint, now: Instant, last_edge: &mut u64, who: &str, seed: u64) {
    if let Err(e) = ep.check_invariants(now) {
        panic!("seed {seed}: {who} at {now:?}: {e}");
    }
    let edge = ep.rcv_right_edge();
    assert!(
        edge >= *last_edge,
        "seed {seed}: {who} right edge moved left {last_edge} -> {edge}"
    );
    *last_edge = edge;
    if let Some(t) = ep.poll_timeout() {
        assert!(t >= now, "seed {seed}: {who} timer in the past");
    }
}

pub fn run(sc: Scenario) -> Outcome {
    let mut a = Endpoint::new(sc.client.clone(), sc.client_isn);
    let mut b = Endpoint::new(sc.server.clone(), sc.server_isn);
    let mut ab = Pipe::new(sc.fwd.clone(), Rng::derive(sc.seed, 0, "ab"));
    let mut ba = Pipe::new(sc.rev.clone(), Rng::derive(sc.seed, 1, "ba"));
    let mut now = Instant::ZERO;
    b.listen();
    a.connect(now);
    let mut written = a.write(now, sc.bytes);
    if written == sc.bytes {
        a.close(now);
    }
    let mut read = 0u64;
    let mut next_read = now;
    let mut b_closed = false;
    let (mut ea, mut eb) = (0u64, 0u64);
    let mut steps = 0u64;
    loop {
        steps += 1;
        assert!(steps < 5_000_000, "seed {}: livelock", sc.seed);
        // The application: the client refills its buffer, the server reads.
        if written < sc.bytes {
            written += a.write(now, sc.bytes - written);
            if written == sc.bytes {
                a.close(now);
            }
        }
        let reading = match sc.read_every {
            None => true,
            Some(d) => {
                if now >= next_read {
                    next_read = now + d;
                    true
                } else {
                    false
                }
            }
        };
        if reading {
            let max = if sc.read_every.is_some() {
                sc.read_chunk
            } else {
                u64::MAX
            };
            let mut budget = max;
            while budget > 0 {
                match b.read(now, budget) {
                    Some(c) => {
                        assert_eq!(
                            c.offset, read,
                            "seed {}: read chunk not contiguous",
                            sc.seed
                        );
                        read += c.len;
                        budget -= c.len;
                    }
                    None => break,
                }
            }
        }
        if !b_closed && b.state() == EndpointState::CloseWait && read == sc.bytes {
            b.close(now);
            b_closed = true;
        }
        // Outputs after every input.
        while let Some(s) = a.poll_transmit(now) {
            ab.send(now, s);
        }
        while let Some(s) = b.poll_transmit(now) {
            ba.send(now, s);
        }
        check(&a, now, &mut ea, "client", sc.seed);
        check(&b, now, &mut eb, "server", sc.seed);
        if a.state() == EndpointState::Done && b.state() == EndpointState::Done && read == sc.bytes
        {
            break;
        }
        let mut t = Instant::MAX;
        for x in [
            ab.next_at(),
            ba.next_at(),
            a.poll_timeout(),
            b.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        {
            t = t.min(x);
        }
        if sc.read_every.is_some() && b.readable_bytes() > 0 {
            t = t.min(next_read.max(now));
        }
        assert!(
            t != Instant::MAX,
            "seed {}: stalled at {now:?}: a={:?} b={:?} read={read} cc={:?} cwnd={} pipe={} peer_wnd={} a={:?}",
            sc.seed,
            a.state(),
            b.state(),
            a.congestion_control(),
            a.cwnd(),
            a.bytes_in_flight(),
            a.peer_window(),
            a.stats()
        );
        assert!(t >= now);
        now = t;
        assert!(
            now < sc.limit,
            "seed {}: not done by {:?}: a={:?} {:?} b={:?} read={read}/{}",
            sc.seed,
            sc.limit,
            a.state(),
            a.stats(),
            b.state(),
            sc.bytes
        );
        if let Some(s) = ab.pop_due(now) {
            b.handle_segment(now, &s);
            continue;
        }
        if let Some(s) = ba.pop_due(now) {
            a.handle_segment(now, &s);
            continue;
        }
        if a.poll_timeout().is_some_and(|d| d <= now) {
            a.handle_timeout(now);
        }
        if b.poll_timeout().is_some_and(|d| d <= now) {
            b.handle_timeout(now);
        }
    }
    assert_eq!(read, sc.bytes, "seed {}", sc.seed);
    assert_eq!(b.stats().bytes_read, sc.bytes);
    assert!(a.all_data_acked() && b.all_data_acked());
    assert_eq!(
        a.stats().payload_tag_mismatches + b.stats().payload_tag_mismatches,
        0,
        "seed {}",
        sc.seed
    );
    Outcome { a, b, now, read }
}
