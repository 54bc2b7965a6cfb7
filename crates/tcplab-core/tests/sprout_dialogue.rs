//! Sprout (`cc = "sprout"`, rate::sprout) between two endpoints: the option's negotiation
//! and encoding, a classic peer, and a bulk transfer over a bottleneck whose link goes out
//! for 3 s, with the endpoints' invariants checked after every step.

mod common;
use common::script;
use tcplab_core::cc::{Cc, CcKind, CongestionControl};
use tcplab_core::segment::SproutForecastOption;
use tcplab_core::tcp::{Endpoint, TcpConfig, Timer};
use tcplab_core::{Duration, Flags, Instant, Segment, SeqNo, TcpOptions};

const MSS: u32 = 1000;
const OWD: Duration = Duration::from_millis(20);

fn cfg(cc: CcKind) -> TcpConfig {
    TcpConfig {
        cc,
        mss: MSS,
        rcv_buf_bytes: 4 << 20,
        snd_buf_bytes: 4 << 20,
        ..TcpConfig::default()
    }
}

/// The path: data crosses a FIFO bottleneck of `per_pkt` per data segment (unbounded
/// buffer) that delivers nothing during `outage`, then OWD; segments without data queue
/// behind the data at no service time; ACKs take OWD back.
struct Path {
    per_pkt: Duration,
    outage: Option<(Instant, Instant)>,
    /// A slower per-segment time for segments starting service in this interval.
    slow: Option<(Instant, Instant, Duration)>,
    /// A link that serialises every segment A -> B, headers included, at this time per
    /// byte of IP datagram (instead of `per_pkt` per data segment).
    per_byte: Option<Duration>,
    busy_until: Instant,
    fwd: Vec<(Instant, u64, Segment)>,
    rev: Vec<(Instant, u64, Segment)>,
    order: u64,
    /// Per data segment delivered: (send time, arrival time).
    log: Vec<(Instant, Instant)>,
    /// Every segment each way, for the option checks.
    sent_ab: Vec<Segment>,
    sent_ba: Vec<Segment>,
}

impl Path {
    fn new(per_pkt: Duration) -> Path {
        Path {
            per_pkt,
            outage: None,
            slow: None,
            per_byte: None,
            busy_until: Instant::ZERO,
            fwd: Vec::new(),
            rev: Vec::new(),
            order: 0,
            log: Vec::new(),
            sent_ab: Vec::new(),
            sent_ba: Vec::new(),
        }
    }

    fn send_ab(&mut self, now: Instant, s: Segment) {
        self.sent_ab.push(s);
        self.order += 1;
        let at = if let Some(b) = self.per_byte {
            let start = now.max(self.busy_until);
            self.busy_until = start + b * s.ip_len() as u64;
            if s.payload_len > 0 {
                self.log.push((now, self.busy_until + OWD));
            }
            self.busy_until + OWD
        } else if s.payload_len > 0 {
            let mut start = now.max(self.busy_until);
            if let Some((a, b)) = self.outage {
                if start + self.per_pkt > a && start < b {
                    start = b;
                }
            }
            let per_pkt = match self.slow {
                Some((a, b, d)) if start >= a && start < b => d,
                _ => self.per_pkt,
            };
            self.busy_until = start + per_pkt;
            self.log.push((now, self.busy_until + OWD));
            self.busy_until + OWD
        } else {
            // Segments without data (Sprout's heartbeats) take no service time but wait
            // their turn in the FIFO, and through the outage.
            let mut start = now.max(self.busy_until);
            if let Some((a, b)) = self.outage {
                if start >= a && start < b {
                    start = b;
                }
            }
            start + OWD
        };
        self.fwd.push((at, self.order, s));
    }

    fn send_ba(&mut self, now: Instant, s: Segment) {
        self.sent_ba.push(s);
        self.order += 1;
        self.rev.push((now + OWD, self.order, s));
    }
}

fn pop(q: &mut Vec<(Instant, u64, Segment)>, now: Instant) -> Option<Segment> {
    let i = q
        .iter()
        .enumerate()
        .filter(|(_, f)| f.0 <= now)
        .min_by_key(|(_, f)| (f.0, f.1))
        .map(|(i, _)| i)?;
    Some(q.swap_remove(i).2)
}

struct Run {
    a: Endpoint,
    b: Endpoint,
    p: Path,
    now: Instant,
    read: u64,
}

impl Run {
    fn new(ca: TcpConfig, cb: TcpConfig, per_pkt: Duration) -> Run {
        let mut a = Endpoint::new(ca, SeqNo(1000));
        let mut b = Endpoint::new(cb, SeqNo(5000));
        b.listen();
        a.connect(Instant::ZERO);
        Run {
            a,
            b,
            p: Path::new(per_pkt),
            now: Instant::ZERO,
            read: 0,
        }
    }

    /// A bulk sender (its buffer kept full) and a reader that reads everything, until
    /// `until`; `each` sees the run after every step.
    fn go(&mut self, until: Instant, mut each: impl FnMut(&Run)) {
        loop {
            if self.a.send_buffer_free() > 0
                && self.a.state() == tcplab_core::tcp::EndpointState::Established
            {
                self.a.write(self.now, self.a.send_buffer_free());
            }
            while let Some(c) = self.b.read(self.now, u64::MAX) {
                self.read += c.len;
            }
            while let Some(s) = self.a.poll_transmit(self.now) {
                self.p.send_ab(self.now, s);
            }
            while let Some(s) = self.b.poll_transmit(self.now) {
                self.p.send_ba(self.now, s);
            }
            for ep in [&self.a, &self.b] {
                if let Err(e) = ep.check_invariants(self.now) {
                    panic!("at {:?}: {e}", self.now);
                }
            }
            each(self);
            let next = [
                self.a.poll_timeout(),
                self.b.poll_timeout(),
                self.p.fwd.iter().map(|f| f.0).min(),
                self.p.rev.iter().map(|f| f.0).min(),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(t) = next.filter(|&t| t <= until) else {
                self.now = until;
                return;
            };
            self.now = t;
            while let Some(s) = pop(&mut self.p.fwd, t) {
                self.b.handle_segment(t, &s);
            }
            while let Some(s) = pop(&mut self.p.rev, t) {
                self.a.handle_segment(t, &s);
            }
            self.a.handle_timeout(t);
            self.b.handle_timeout(t);
        }
    }
}

fn ms(x: u64) -> Instant {
    Instant::from_millis(x)
}

#[test]
fn the_option_is_negotiated_on_the_syn_and_carries_the_forecast_on_acks() {
    let mut r = Run::new(
        cfg(CcKind::Sprout),
        cfg(CcKind::Sprout),
        Duration::from_millis(2),
    );
    r.go(ms(2000), |_| {});
    let (syn, synack) = (&r.p.sent_ab[0], &r.p.sent_ba[0]);
    assert!(syn.flags.syn() && syn.options.sprout_permitted);
    assert!(synack.flags.syn() && synack.options.sprout_permitted);
    // The permitted option's 4 bytes are counted in the header.
    let mut bare = *syn;
    bare.options.sprout_permitted = false;
    assert_eq!(syn.options.wire_len(), bare.options.wire_len() + 4);
    assert!(r.a.sprout_negotiated() && r.b.sprout_negotiated());
    assert_eq!(r.a.congestion_control().name(), "sprout");
    // The data sender's segments carry no forecast (it receives no data); the receiver's
    // ACKs carry one from its first tick on, with its highest received offset.
    assert!(r.p.sent_ab.iter().all(|s| s.options.sprout().is_none()));
    let with: Vec<&Segment> =
        r.p.sent_ba
            .iter()
            .filter(|s| s.options.sprout_present)
            .collect();
    assert!(with.len() > 100, "{} ACKs with the option", with.len());
    let last = with.last().unwrap();
    let f = last.options.sprout().unwrap();
    let acked = last.ack.diff(SeqNo(1001)) as u32;
    assert!(
        f.received() >= acked,
        "received {} below the ACK {}",
        f.received(),
        acked
    );
    assert_eq!(last.options.wire_len() % 4, 0);
    assert!(last.options.wire_len() >= 17 + 10);
    // 2 ms per packet is 500 packets/s, 10 per 20 ms tick: the cautious forecast is below
    // that and above half of it.
    let per_tick = f.deltas.iter().map(|&d| d as u64).sum::<u64>() as f64 / 8.0;
    assert!((5.0..10.0).contains(&per_tick), "{:?}", f.deltas);
    // Data segments that end a flight carry PSH, and not all do.
    let data: Vec<&Segment> = r.p.sent_ab.iter().filter(|s| s.payload_len > 0).collect();
    let psh = data.iter().filter(|s| s.flags.contains(Flags::PSH)).count();
    assert!(psh > 0 && psh < data.len(), "{psh} of {}", data.len());
    match r.a.congestion_control() {
        Cc::Sprout(s) => assert!(s.has_forecast()),
        c => panic!("{}", c.name()),
    }
}

#[test]
fn a_classic_peer_ignores_the_option_and_the_sender_falls_back_to_cubic() {
    // Sender Sprout, receiver CUBIC: the SYN-ACK does not echo the option.
    let mut r = Run::new(
        cfg(CcKind::Sprout),
        cfg(CcKind::Cubic),
        Duration::from_millis(2),
    );
    r.go(ms(1000), |_| {});
    assert!(r.p.sent_ab[0].options.sprout_permitted);
    assert!(!r.p.sent_ba[0].options.sprout_permitted);
    assert!(!r.a.sprout_negotiated() && !r.b.sprout_negotiated());
    assert_eq!(r.a.congestion_control().name(), "cubic");
    assert!(r.b.sprout_receiver().is_none());
    assert!(r.p.sent_ba.iter().all(|s| s.options.sprout().is_none()));
    assert!(r.p.sent_ab.iter().all(|s| !s.flags.contains(Flags::PSH)));
    assert!(r.read > 100_000);
    // And a CUBIC sender to a Sprout receiver: nothing offered, nothing echoed.
    let mut r = Run::new(
        cfg(CcKind::Cubic),
        cfg(CcKind::Sprout),
        Duration::from_millis(2),
    );
    r.go(ms(500), |_| {});
    assert!(!r.p.sent_ab[0].options.sprout_permitted);
    assert!(!r.p.sent_ba[0].options.sprout_permitted);
    assert!(r.p.sent_ba.iter().all(|s| s.options.sprout().is_none()));
}

/// The sender's window follows the forecast minus the queue: sampled after every step of a
/// bulk transfer, cwnd - pipe is exactly Sprout's allowance (forecast over the 5 target
/// ticks ahead minus the queue estimate), and the standing delay stays near the target.
#[test]
fn the_window_follows_the_forecast_minus_the_queue() {
    let mut r = Run::new(
        cfg(CcKind::Sprout),
        cfg(CcKind::Sprout),
        Duration::from_millis(2),
    );
    let mut checked = 0;
    r.go(ms(5000), |r| {
        if let Cc::Sprout(s) = r.a.congestion_control() {
            if s.has_forecast() {
                let heartbeat = s.congestion_window() - r.a.bytes_in_flight() - s.allowance();
                assert!(heartbeat == 0 || heartbeat == MSS as u64, "{heartbeat}");
                checked += 1;
            }
        }
    });
    assert!(checked > 1000);
    // One-way delays after the first second: base 20 ms + 2 ms; Sprout aims at 100 ms.
    let late: Vec<u64> =
        r.p.log
            .iter()
            .filter(|(s, _)| *s > ms(1000))
            .map(|(s, a)| (*a - *s).as_nanos() / 1_000_000)
            .collect();
    let mut sorted = late.clone();
    sorted.sort();
    let p95 = sorted[sorted.len() * 95 / 100];
    assert!(p95 < 130, "p95 one-way delay {p95} ms");
    // And it keeps most of the link busy: 500 packets/s over 4 s.
    assert!(late.len() > 1200, "{} packets in 4 s", late.len());
}

/// A 3 s outage of the bottleneck: the receiver keeps ticking with nothing arriving (its
/// tick stays armed), its forecast falls to nothing, and when the link returns the transfer
/// resumes at the link's rate.
#[test]
fn sprout_survives_a_three_second_outage() {
    let mut r = Run::new(
        cfg(CcKind::Sprout),
        cfg(CcKind::Sprout),
        Duration::from_millis(2),
    );
    r.p.outage = Some((ms(3000), ms(6000)));
    r.go(ms(3000), |_| {});
    let before =
        r.b.sprout_receiver()
            .unwrap()
            .forecaster()
            .forecast_packets();
    assert!(
        before > 40,
        "8-tick forecast {before} at 10 packets per tick"
    );
    let mut forecasts = Vec::new();
    let mut t = 3100;
    while t <= 6000 {
        r.go(ms(t), |_| {});
        assert!(
            r.b.timer(Timer::SproutTick).is_some(),
            "receiver tick armed at {t} ms"
        );
        forecasts.push(
            r.b.sprout_receiver()
                .unwrap()
                .forecaster()
                .forecast_packets(),
        );
        t += 100;
    }
    assert_eq!(*forecasts.last().unwrap(), 0, "{before} -> {forecasts:?}");
    let read_at_6 = r.read;
    r.go(ms(10_000), |_| {});
    let after =
        r.b.sprout_receiver()
            .unwrap()
            .forecaster()
            .forecast_packets();
    assert!(
        after > before / 2,
        "forecast {before} before, {after} after"
    );
    // 4 s at 500 packets/s is 2 MB; at least half of it.
    let delivered = r.read - read_at_6;
    assert!(delivered > 1_000_000, "{delivered} bytes after the outage");
    assert!(
        r.a.stats().timeouts <= 6,
        "{} timeouts",
        r.a.stats().timeouts
    );
}

/// The link drops to one packet per 20 ms tick for 3 s, then returns to 500 packets/s
/// (Verizon-LTE-short's dip). Sprout must follow it back up: with window-limited ticks
/// scored as exact counts its belief settled at about one packet per tick and its window at
/// one segment per flight, for good (92 KB in the last 4 s instead of 2 MB).
#[test]
fn sprout_recovers_after_the_link_slows_to_one_packet_per_tick() {
    let mut r = Run::new(
        cfg(CcKind::Sprout),
        cfg(CcKind::Sprout),
        Duration::from_millis(2),
    );
    r.p.slow = Some((ms(3000), ms(6000), Duration::from_millis(20)));
    r.go(ms(8000), |_| {});
    let read_at_8 = r.read;
    r.go(ms(12_000), |_| {});
    // 4 s at 500 packets/s is 2 MB; at least half of it.
    let delivered = r.read - read_at_8;
    let rx = r.b.sprout_receiver().unwrap();
    assert!(
        delivered > 1_000_000,
        "{delivered} bytes in the last 4 s; {} ticks scored, {} of them lower bounds",
        rx.scored_ticks,
        rx.censored_ticks
    );
    assert!(rx.censored_ticks > 0 && rx.censored_ticks < rx.scored_ticks);
}

/// A link slower than 20 full-size segments per second (Verizon-EVDO-driving's 0.24 Mbit/s
/// is about that): Sprout's heartbeat, sent every 50 ms while its window is closed, must not
/// load it. The original's heartbeat carries no data; a full-size one (ours before) is 20
/// segments per second whatever the forecast, more than this link carries, and the queue
/// grew to seconds (22 s p95 on Verizon-EVDO-driving). Here 15 full segments per second.
#[test]
fn heartbeats_do_not_load_a_slow_link() {
    let mut r = Run::new(
        cfg(CcKind::Sprout),
        cfg(CcKind::Sprout),
        Duration::from_millis(2),
    );
    // 1052-byte datagrams (1000 payload, 52 of headers) at 15 per second.
    r.p.per_byte = Some(Duration::from_nanos(1_000_000_000 / (15 * 1052)));
    r.go(ms(20_000), |_| {});
    let late: Vec<u64> =
        r.p.log
            .iter()
            .filter(|(s, _)| *s > ms(5000))
            .map(|(s, a)| (*a - *s).as_nanos() / 1_000_000)
            .collect();
    let mut sorted = late.clone();
    sorted.sort();
    let p95 = sorted[sorted.len() * 95 / 100];
    // Heartbeats: segments A -> B after the handshake that carry no data and no FIN.
    let empty: Vec<&Segment> =
        r.p.sent_ab
            .iter()
            .skip(2)
            .filter(|s| s.payload_len == 0 && !s.flags.fin())
            .collect();
    let hb_bytes: u64 = empty.iter().map(|s| s.ip_len() as u64).sum();
    assert!(
        p95 < 600,
        "p95 one-way delay {p95} ms after 5 s; {} empty segments A->B",
        empty.len()
    );
    // The heartbeats are there (the window is closed most of the time on this link), empty,
    // marked PSH (a flight of nothing that ended), and the receiver counted them.
    assert!(empty.len() > 50, "{} heartbeats", empty.len());
    assert!(empty.iter().all(|s| s.flags.contains(Flags::PSH)));
    // They take a few percent of the link (52 of 1052 bytes per segment time each).
    assert!(
        hb_bytes * 10 < 20 * 15 * 1052,
        "{hb_bytes} bytes of heartbeats"
    );
    // And the link still carries data: over 15 s, at least a third of its 15 per second.
    assert!(late.len() > 75, "{} data segments after 5 s", late.len());
}

/// A Sprout sender without SACK, connected by a SYN-ACK (MSS 1000, Sprout's option, no SACK,
/// window 65535) at 50 ms, that sent its initial window of 10 segments and heard at 100 ms
/// that the receiver has 4 of them, with a forecast of nothing: the window is closed and
/// offsets 4000..10000 are outstanding and stay so (a stall: they are stuck in a queue).
fn stalled_sprout_without_sack() -> Endpoint {
    let c = TcpConfig {
        sack: false,
        min_rto: Duration::from_secs(3),
        ..cfg(CcKind::Sprout)
    };
    let mut a = Endpoint::new(c, SeqNo(script::ISS));
    a.connect(ms(0));
    script::drain(&mut a, ms(0));
    let opts = TcpOptions {
        mss: Some(MSS as u16),
        sprout_permitted: true,
        ..Default::default()
    };
    a.handle_segment(ms(50), &script::synack(65535, opts));
    assert!(a.sprout_negotiated());
    a.write(ms(50), 100_000);
    let sent = script::drain(&mut a, ms(50));
    assert_eq!(
        script::offs(&sent),
        (0..10).map(|i| i * MSS).collect::<Vec<_>>()
    );
    a.handle_segment(ms(100), &sprout_ack(4000, 1, 4000));
    assert!(script::drain(&mut a, ms(100)).is_empty());
    a
}

/// The receiver's pure ACK of offset `off` carrying its forecast of tick `tick` (of nothing)
/// and its count `received` (the highest offset it holds).
fn sprout_ack(off: u32, tick: u8, received: u32) -> Segment {
    let mut s = script::ack(off, &[]);
    s.options
        .set_sprout(Some(SproutForecastOption::new(tick, received, [0; 8])));
    s
}

/// Runs `a`'s timers up to `until`; everything it sends.
fn run_timers(a: &mut Endpoint, until: Instant) -> Vec<Segment> {
    let mut out = Vec::new();
    while let Some(t) = a.poll_timeout().filter(|&t| t <= until) {
        a.handle_timeout(t);
        out.extend(script::drain(a, t));
    }
    out
}

/// Issue 13: without SACK, the receiver's answer to a heartbeat (an ACK of what it already
/// acknowledged, same window, while data is outstanding) has RFC 5681 section 2's form of
/// a duplicate ACK. Sprout's count in the option tells them apart: a true duplicate comes
/// from data arriving above the hole, which raises the count; a reply to a heartbeat moves
/// nothing. Three replies during the stall: no duplicate ACK, no fast retransmit. Then three
/// ACKs whose count grows (segments 5, 6 and 7 arrived, 4 did not): a fast retransmit.
#[test]
fn heartbeat_replies_are_not_duplicate_acks_without_sack() {
    let mut a = stalled_sprout_without_sack();
    let mut t = 100;
    let mut tick = 1;
    for n in 0..4 {
        // The window stays closed: after 50 ms of silence, one empty heartbeat, no data
        // (at 100, 150, 200 and 250 ms); its reply comes back 40 ms later.
        t += 40;
        let out = run_timers(&mut a, ms(t));
        let hb: Vec<&Segment> = out.iter().filter(|s| s.payload_len == 0).collect();
        assert_eq!(hb.len(), 1, "heartbeat {n}: {out:#?}");
        assert!(hb[0].flags.contains(Flags::PSH) && !hb[0].flags.fin());
        assert!(out.iter().all(|s| s.payload_len == 0), "{out:#?}");
        // Its reply: the same ACK and window, a new forecast tick, the same count.
        tick += 1;
        a.handle_segment(ms(t), &sprout_ack(4000, tick, 4000));
        let out = script::drain(&mut a, ms(t));
        assert!(
            out.iter().all(|s| s.payload_len == 0),
            "reply {n}: {out:#?}"
        );
        assert_eq!(a.stats().dup_acks_received, 0, "reply {n}");
        t += 10;
    }
    assert_eq!(a.stats().fast_retransmits, 0);
    assert_eq!(a.stats().retransmitted_segments, 0);
    assert!(!a.in_recovery());
    // Now segments 5..7 arrive above the hole at 4000: three true duplicate ACKs.
    for (i, received) in [5000, 6000, 7000].into_iter().enumerate() {
        tick += 1;
        a.handle_segment(ms(t + i as u64), &sprout_ack(4000, tick, received));
        // The forecast allows nothing: RFC 3042's limited transmit sends nothing new
        // either (it once sent the whole send buffer on the first duplicate ACK), and the
        // third retransmits the hole's segment, nothing else.
        let out = script::drain(&mut a, ms(t + i as u64));
        let want: &[u32] = if i < 2 { &[] } else { &[4000] };
        assert_eq!(script::offs(&out), want, "duplicate ACK {i}");
    }
    assert_eq!(a.stats().dup_acks_received, 3);
    assert_eq!(a.stats().fast_retransmits, 1);
    assert!(a.in_recovery());
}

/// The 3 s outage without SACK (issue 13): the spurious timeouts' retransmissions arrive
/// after their originals, and the receiver's ACKs of them, like its replies to the
/// heartbeats sent through the outage, repeat its ACK with no new data received. Counted as
/// duplicate ACKs, they started a fast retransmit and limited transmit sent 4179 segments at
/// once (959 retransmitted in all).
#[test]
fn sprout_without_sack_comes_out_of_an_outage_without_a_fast_retransmit() {
    let c = TcpConfig {
        sack: false,
        ..cfg(CcKind::Sprout)
    };
    let mut r = Run::new(c.clone(), c, Duration::from_millis(2));
    r.p.outage = Some((ms(3000), ms(6000)));
    r.go(ms(10_000), |_| {});
    let s = r.a.stats();
    let hb = r.b.sprout_receiver().unwrap().heartbeats;
    assert!(hb > 50, "{hb} heartbeats received");
    assert_eq!(s.fast_retransmits, 0, "{s:?}");
    assert_eq!(s.dup_acks_received, 0, "{s:?}");
    // Only the timeouts' retransmissions.
    assert!(s.retransmitted_segments <= s.timeouts, "{s:?}");
    // 7 s of link at 500 packets/s is 3.5 MB: the transfer goes on as with SACK.
    assert!(r.read > 3_000_000, "{} bytes read", r.read);
}

/// Issue 13, data both ways without SACK: the peer's own Sprout sender sends heartbeats too
/// (empty segments with PSH, carrying its ACK of our data). Before the peer's receiver has a
/// forecast they carry no Sprout option, so the count could not tell them from a receiver's
/// duplicate ACK; while our data was outstanding, three of them (heartbeats the peer sent
/// before our data reached it, held in a slow uplink) started a fast retransmit of data
/// already delivered (a web page's requests and responses over TMobile-UMTS-driving: two of
/// six connections retransmitted the start of a response). A heartbeat is the peer's
/// sender's, never a signal of its receiver: no duplicate ACK.
#[test]
fn the_peers_heartbeats_are_not_duplicate_acks_without_sack() {
    let mut a = stalled_sprout_without_sack();
    for (i, t) in [110, 111, 112, 113].into_iter().enumerate() {
        // The peer's heartbeat: its ACK of offset 4000 (nothing new), no option, PSH.
        let mut hb = script::ack(4000, &[]);
        hb.flags = hb.flags | Flags::PSH;
        a.handle_segment(ms(t), &hb);
        let out = script::drain(&mut a, ms(t));
        assert!(
            out.iter().all(|s| s.payload_len == 0),
            "heartbeat {i}: {out:#?}"
        );
    }
    assert_eq!(a.stats().dup_acks_received, 0);
    assert_eq!(a.stats().fast_retransmits, 0);
    assert!(!a.in_recovery());
    // The same segments without PSH (a receiver's ACKs with no option: data arrived above
    // the hole before its first forecast) are duplicates.
    for (i, t) in [120, 121, 122].into_iter().enumerate() {
        a.handle_segment(ms(t), &script::ack(4000, &[]));
        let out = script::drain(&mut a, ms(t));
        let want: &[u32] = if i < 2 { &[] } else { &[4000] };
        assert_eq!(script::offs(&out), want, "duplicate ACK {i}");
    }
    assert_eq!(a.stats().fast_retransmits, 1);
}
