//! The rate-based sender (thesis chapter 4) inside the TCP endpoint, against a scripted
//! receiver behind an 8 Mbit/s bottleneck: what goes out when, and what the framework learns
//! from the ACKs (TSval, SACK, duplicate ACKs). Endpoint contract: `crate::rate` docs.

mod common;
use common::script::{ms, synack, IRS, ISS};
use tcplab_core::cc::{Cc, CcKind};
use tcplab_core::rate::RateState;
use tcplab_core::tcp::{Endpoint, TcpConfig, Timer};
use tcplab_core::{
    Bandwidth, Duration, Flags, Instant, SackBlock, Segment, SeqNo, TcpOptions, Timestamps,
};

const MSS: u64 = 1000;
/// One-way propagation delay each way and the bottleneck's time per 1000-byte segment.
const OWD: Duration = Duration::from_millis(25);
const PER_PKT: Duration = Duration::from_millis(1);

/// The receiver and the path: segments cross a FIFO bottleneck of PER_PKT per segment after
/// OWD, are ACKed at once (no delayed ACK) with a TSval of the receiver's clock
/// ((t + offset) / g, wrapping) and SACK blocks, and the ACK takes OWD back.
struct Peer {
    g_ns: u64,
    offset_ns: u64,
    busy_until: Instant,
    /// (arrival at the sender, ACK) in time order.
    acks: Vec<(Instant, Segment)>,
    /// Received ranges of stream offsets, merged and sorted.
    got: Vec<(u64, u64)>,
    /// Stream offsets whose first transmission is dropped.
    drop: Vec<u64>,
    /// Drop every ACK from this time on (a dead return path).
    blackout_from: Option<Instant>,
    /// The bottleneck delivers nothing in [start, end) (a cellular outage): what reaches it
    /// then waits in its queue.
    outage: Option<(Instant, Instant)>,
    /// The return path holds the ACKs the receiver sends in [start, end) until end (an
    /// uplink outage): they reach the sender at end + OWD, in order.
    ack_hold: Option<(Instant, Instant)>,
    /// Per data segment: (offset, send time, arrival time at the receiver).
    log: Vec<(u64, Instant, Instant)>,
}

impl Peer {
    fn new(g_ms: u64, offset_ms: u64) -> Peer {
        Peer {
            g_ns: g_ms * 1_000_000,
            offset_ns: offset_ms * 1_000_000,
            busy_until: Instant::ZERO,
            acks: Vec::new(),
            got: Vec::new(),
            drop: Vec::new(),
            blackout_from: None,
            outage: None,
            ack_hold: None,
            log: Vec::new(),
        }
    }

    fn tsval(&self, t: Instant) -> u32 {
        ((t.0 + self.offset_ns) / self.g_ns) as u32
    }

    fn rcv_nxt(&self) -> u64 {
        match self.got.first() {
            Some(&(0, e)) => e,
            _ => 0,
        }
    }

    fn data(&mut self, now: Instant, seg: &Segment) {
        if seg.payload_len == 0 {
            return;
        }
        let off = seg.seq.diff(SeqNo(ISS + 1)) as u64;
        if let Some(i) = self.drop.iter().position(|&o| o == off) {
            self.drop.swap_remove(i);
            return;
        }
        let mut start = (now + OWD).max(self.busy_until);
        if let Some((a, b)) = self.outage {
            if start + PER_PKT > a && start < b {
                start = b;
            }
        }
        let arrive = start + PER_PKT;
        self.busy_until = arrive;
        self.log.push((off, now, arrive));
        let end = off + seg.payload_len as u64;
        self.got.push((off, end));
        self.got.sort();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for &(s, e) in &self.got {
            match merged.last_mut() {
                Some(l) if s <= l.1 => l.1 = l.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.got = merged;
        let mut options = TcpOptions {
            timestamps: Some(Timestamps {
                tsval: self.tsval(arrive),
                tsecr: seg.options.timestamps.map_or(0, |t| t.tsval),
            }),
            ..Default::default()
        };
        let una = self.rcv_nxt();
        // RFC 2018 4: the block holding the segment just received first.
        let mut blocks: Vec<(u64, u64)> = self.got.iter().copied().filter(|r| r.0 > una).collect();
        blocks.sort_by_key(|r| !(r.0 <= off && off < r.1));
        for &(s, e) in blocks.iter().take(3) {
            options.push_sack(SackBlock {
                start: SeqNo(ISS + 1 + s as u32),
                end: SeqNo(ISS + 1 + e as u32),
            });
        }
        let ack = Segment {
            seq: SeqNo(IRS + 1),
            ack: SeqNo(ISS + 1 + una as u32),
            flags: Flags::ACK,
            window: 65535,
            options,
            ..Default::default()
        };
        let mut back = arrive + OWD;
        if let Some((a, b)) = self.ack_hold {
            if arrive >= a && arrive < b {
                back = b + OWD;
            }
        }
        if self.blackout_from.is_none_or(|b| back < b) {
            self.acks.push((back, ack));
            self.acks.sort_by_key(|a| a.0);
        }
    }
}

fn cfg(cc: CcKind, sack: bool) -> TcpConfig {
    TcpConfig {
        mss: MSS as u32,
        cc,
        sack,
        rcv_buf_bytes: 1 << 20,
        snd_buf_bytes: 1 << 20,
        ..common::rfc_rules()
    }
}

/// Established at 50 ms (RTT sample 50 ms) against the scripted peer.
fn client(c: TcpConfig, peer: &Peer) -> Endpoint {
    let sack = c.sack;
    let mut a = Endpoint::new(c, SeqNo(ISS));
    a.connect(ms(0));
    assert!(a.poll_transmit(ms(0)).is_some());
    let synack = synack(
        65535,
        TcpOptions {
            mss: Some(MSS as u16),
            window_scale: Some(4),
            sack_permitted: sack,
            timestamps: Some(Timestamps {
                tsval: peer.tsval(ms(25)),
                tsecr: 0,
            }),
            ..Default::default()
        },
    );
    a.handle_segment(ms(50), &synack);
    while a.poll_transmit(ms(50)).is_some() {}
    a
}

/// Runs the dialogue until `until`; returns the data segments sent, with their times.
fn drive(a: &mut Endpoint, p: &mut Peer, from: Instant, until: Instant) -> Vec<(Instant, Segment)> {
    let mut now = from;
    let mut sent = Vec::new();
    loop {
        while let Some(s) = a.poll_transmit(now) {
            if s.payload_len > 0 {
                sent.push((now, s));
            }
            p.data(now, &s);
        }
        a.check_invariants(now).unwrap();
        let next = [p.acks.first().map(|x| x.0), a.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        match next {
            Some(t) if t <= until => now = t.max(now),
            _ => return sent,
        }
        while p.acks.first().is_some_and(|x| x.0 <= now) {
            let (_, ack) = p.acks.remove(0);
            a.handle_segment(now, &ack);
        }
        a.handle_timeout(now);
    }
}

fn state(a: &Endpoint) -> RateState {
    a.congestion_control().rate_state().unwrap()
}

fn rho(a: &Endpoint) -> Bandwidth {
    a.congestion_control().rate_estimates().unwrap().0.unwrap()
}

fn near(x: Bandwidth, y: Bandwidth, tol: f64) -> bool {
    (x.as_bps() as f64 / y.as_bps() as f64 - 1.0).abs() <= tol
}

#[test]
fn slow_start_is_one_burst_of_n_then_pacing_at_sigma_f() {
    // 4.1.1: "a burst of n packets are sent to obtain an initial estimate of the receive
    // rate"; 4.1.5: n = 10. Then Buffer Fill at sigma_f = 1.25 rho (Table 6.1, PropRate).
    let mut p = Peer::new(1, 0);
    let mut a = client(cfg(CcKind::PropRateHigh, true), &p);
    assert_eq!(state(&a), RateState::SlowStart);
    a.write(ms(50), 1 << 20);
    let burst = drive(&mut a, &mut p, ms(50), ms(50));
    assert_eq!(burst.len(), 10, "the Slow Start burst is n = 10 segments");
    assert_eq!(a.timer(Timer::Pacing), None, "a burst is not paced");
    // The burst's ACKs arrive from 50 + 25 + 1 + 25 = 101 ms, one per ms: 8 Mbit/s.
    let sent = drive(&mut a, &mut p, ms(50), ms(300));
    assert_eq!(state(&a), RateState::BufferFill);
    assert!(
        near(rho(&a), Bandwidth::from_mbps(8), 0.03),
        "rho {:?}",
        rho(&a)
    );
    // Paced, not ACK-clocked: over a stretch of 100 ms in Fill the sender releases about
    // sigma_f x 100 ms = 10 Mbit/s x 0.1 s / 8000 bit = 125 segments.
    let n = sent
        .iter()
        .filter(|(t, _)| *t >= ms(180) && *t < ms(280))
        .count();
    assert!((118..=132).contains(&n), "{n} segments in 100 ms");
    // Both sides of a pacing deadline: nothing 1 ns before, a segment at it.
    let at = a
        .timer(Timer::Pacing)
        .expect("pacing timer armed while data waits");
    assert!(a.poll_transmit(at - Duration(1)).is_none());
    let s = a
        .poll_transmit(at)
        .expect("a segment at the pacing deadline");
    assert!(s.payload_len > 0);
}

#[test]
fn rd_minus_rd_min_is_the_queueing_delay_with_10ms_ticks_and_an_offset() {
    // 4.1.3: RD = t_r - t_s from the ACK's TSval and the send time of the segment it
    // reports; t_buff = RD - RD_min. Here the receiver's clock ticks every 10 ms and reads
    // 12345678 ms at time zero; t_buff must track the bottleneck queue within a tick.
    let mut p = Peer::new(10, 12_345_678);
    let mut c = cfg(CcKind::PropRateHigh, true);
    c.ts_granularity = Duration::from_millis(10);
    let mut a = client(c, &p);
    a.write(ms(50), 1 << 20);
    let mut checked = 0;
    let mut t = ms(50);
    while t < ms(2000) {
        let next = t + Duration::from_millis(7);
        a.write(t, 1 << 20);
        drive(&mut a, &mut p, t, next);
        t = next;
        if let Cc::PropRate(f) = a.congestion_control() {
            if let (Some(b), Some(&(_, sent, arrive))) = (
                f.buffer_delay(),
                p.log.iter().filter(|l| l.2 + OWD <= t).last(),
            ) {
                let queue = arrive - sent - OWD - PER_PKT;
                let err = b.as_nanos() as i64 - queue.as_nanos() as i64;
                assert!(
                    err.abs() <= 20_000_000,
                    "t_buff {b:?} vs queue {queue:?} at {t:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 200);
    assert!(
        near(rho(&a), Bandwidth::from_mbps(8), 0.05),
        "rho {:?}",
        rho(&a)
    );
}

#[test]
fn a_loss_drains_and_the_retransmission_goes_first_at_the_current_rate() {
    // 4.3.3: no fast-recovery state; "we switch momentarily to Buffer Drain state" and "the
    // packets to be retransmitted are simply given priority to be sent at the current
    // sending rate".
    let mut p = Peer::new(1, 0);
    let mut a = client(cfg(CcKind::PropRateHigh, true), &p);
    a.write(ms(50), 1 << 20);
    drive(&mut a, &mut p, ms(50), ms(400));
    assert_eq!(state(&a), RateState::BufferFill);
    let lost = p.log.last().unwrap().0 + 20 * MSS;
    p.drop.push(lost);
    let sent = drive(&mut a, &mut p, ms(400), ms(700));
    let i = sent
        .iter()
        .position(|(_, s)| {
            s.seq == SeqNo(ISS + 1 + lost as u32) && a.stats().retransmitted_segments > 0
        })
        .expect("retransmitted");
    let (t_rtx, _) = sent[i];
    // The retransmission follows the previous segment by one paced interval, not at once
    // after a burst: pacing holds (sigma_d = 0.75 rho = 6 Mbit/s -> 1.33 ms per segment, at
    // most one tick early or late).
    let gap = t_rtx - sent[i - 1].0;
    assert!(gap <= Duration::from_millis(3), "gap {gap:?}");
    assert_eq!(a.stats().fast_retransmits, 1);
    assert!(matches!(
        state(&a),
        RateState::BufferDrain | RateState::BufferFill
    ));
    // Duplicate ACKs carried SACK blocks and the rate estimate survived the hole.
    assert!(
        near(rho(&a), Bandwidth::from_mbps(8), 0.1),
        "rho {:?}",
        rho(&a)
    );
    // In Drain right after the loss: check from the transmission log that the first
    // segments after the retransmission were sent below rho (Drain or at worst Fill's rate
    // decided by the ACKs since).
    assert_eq!(p.drop.len(), 0);
}

#[test]
fn duplicate_acks_without_sack_count_one_mss_each() {
    // 4.1.2: "assuming that each duplicate ACK corresponds to one MSS packet received": a
    // loss without SACK must not make the estimate collapse while the hole is open.
    let mut p = Peer::new(1, 0);
    let mut a = client(cfg(CcKind::PropRateHigh, false), &p);
    a.write(ms(50), 1 << 20);
    drive(&mut a, &mut p, ms(50), ms(400));
    let before = rho(&a);
    let lost = p.log.last().unwrap().0 + 10 * MSS;
    p.drop.push(lost);
    drive(&mut a, &mut p, ms(400), ms(800));
    assert_eq!(a.stats().fast_retransmits, 1);
    assert!(a.stats().dup_acks_received >= 3);
    assert!(
        near(rho(&a), before, 0.15),
        "rho {:?} before {before:?}",
        rho(&a)
    );
}

#[test]
fn rto_returns_to_slow_start_and_resends_a_burst_of_n() {
    // 4.1.1: "if there is a retransmission timeout, the stack returns to the Slow Start
    // state"; the restart burst is n = 10 segments whatever was in flight. With F-RTO
    // (RFC 5682) step 1 would resend only the first segment: this is the conventional path.
    let mut p = Peer::new(1, 0);
    let mut a = client(
        TcpConfig {
            frto: false,
            ..cfg(CcKind::Rre, true)
        },
        &p,
    );
    a.write(ms(50), 1 << 20);
    drive(&mut a, &mut p, ms(50), ms(500));
    assert_ne!(state(&a), RateState::SlowStart);
    p.blackout_from = Some(ms(500));
    let before = a.stats().retransmitted_segments;
    // Run until the last ACK is in, then to the retransmission deadline and not beyond.
    drive(&mut a, &mut p, ms(500), ms(700));
    let rto_at = a.timer(Timer::Retransmit).expect("RTO armed");
    drive(&mut a, &mut p, ms(700), rto_at - Duration(1));
    assert_eq!(a.stats().timeouts, 0);
    drive(&mut a, &mut p, rto_at - Duration(1), rto_at);
    assert_eq!(a.stats().timeouts, 1);
    assert_eq!(state(&a), RateState::SlowStart);
    assert_eq!(
        a.stats().retransmitted_segments - before,
        10,
        "a burst of n = 10"
    );
    // The return path comes back: the burst's ACKs give a new estimate and pacing resumes.
    p.blackout_from = None;
    drive(&mut a, &mut p, rto_at, rto_at + Duration::from_secs(2));
    assert_ne!(state(&a), RateState::SlowStart);
    assert!(a.stats().bytes_acked > 400_000);
}

#[test]
fn spurious_rto_after_a_stall_resumes_the_prior_state_with_frto() {
    // RFC 5682 + RFC 4015 in the framework: the forward path stalls for 3 s (the packets
    // wait, as in a cellular outage). The timeouts resend only the first segment (step 1);
    // the originals' ACKs then show the timeout spurious, and the sender leaves the Slow
    // Start of 4.1.1 for the state and rate it had before.
    let mut p = Peer::new(1, 0);
    let mut a = client(cfg(CcKind::Rre, true), &p);
    a.write(ms(50), 1 << 20);
    drive(&mut a, &mut p, ms(50), ms(500));
    let before_state = state(&a);
    assert_ne!(before_state, RateState::SlowStart);
    p.busy_until = ms(3500);
    let rtx0 = a.stats().retransmitted_segments;
    drive(&mut a, &mut p, ms(500), ms(3400));
    assert!(a.stats().timeouts >= 2);
    assert_eq!(state(&a), RateState::SlowStart);
    // Step 1 at every expiry: the first segment only, once per timeout.
    assert_eq!(a.stats().retransmitted_segments - rtx0, a.stats().timeouts);
    drive(&mut a, &mut p, ms(3400), ms(4500));
    assert_eq!(a.stats().spurious_timeouts, 1);
    assert_ne!(state(&a), RateState::SlowStart);
    assert_eq!(
        a.stats().retransmitted_segments - rtx0,
        a.stats().timeouts,
        "nothing else resent after the undo"
    );
    assert!(a.all_data_acked());
}

/// A bulk sender against the peer: drive in 100 ms steps, topping up the send buffer before
/// each (the dialogue's `write` is bounded by the 1 MiB buffer).
fn bulk(a: &mut Endpoint, p: &mut Peer, from: Instant, until: Instant) {
    let mut t = from;
    while t < until {
        let next = (t + Duration::from_millis(100)).min(until);
        a.write(t, 1 << 20);
        drive(a, p, t, next);
        t = next;
    }
}

/// Thesis 4.2.2 and 6.1.3: Sprout-Rate's forecast runs on its 100 ms tick, so through a 3 s
/// outage of the bottleneck, with no ACK at all, the sending rate keeps following the
/// forecast down towards the outage state; when the link comes back the sender resumes.
#[test]
fn sprout_rate_keeps_ticking_through_a_three_second_outage_and_resumes() {
    let mut p = Peer::new(1, 0);
    p.outage = Some((ms(3000), ms(6000)));
    let mut a = client(cfg(CcKind::SproutRate, true), &p);
    bulk(&mut a, &mut p, ms(50), ms(3000));
    // 8 Mbit/s is 1000 packets of 1000 bytes a second: the cautious forecast sits below it.
    let before = rho(&a);
    assert!(
        before > Bandwidth::from_mbps(3) && before <= Bandwidth::from_mbps(8),
        "rho before the outage {before:?}"
    );
    assert!(matches!(
        state(&a),
        RateState::BufferFill | RateState::BufferDrain
    ));
    // Step through the outage a tick at a time: no ACK after the last pre-outage arrival
    // (3000 + 25 ms), yet the tick stays armed and rho falls tick by tick.
    let mut rhos = Vec::new();
    let mut t = ms(3100);
    while t <= ms(6000) {
        bulk(&mut a, &mut p, t - Duration::from_millis(100), t);
        assert!(a.timer(Timer::CcTick).is_some(), "tick armed at {t:?}");
        let (r, _) = a.congestion_control().rate_estimates().unwrap();
        rhos.push(r.unwrap_or(Bandwidth::ZERO));
        t = t + Duration::from_millis(100);
    }
    let arrivals_in_outage = p
        .log
        .iter()
        .filter(|(_, _, at)| *at > ms(3001) && *at < ms(6000))
        .count();
    assert_eq!(arrivals_in_outage, 0);
    assert!(rhos[3] < before, "{before:?} -> {rhos:?}");
    assert!(
        rhos[5..].windows(2).all(|w| w[1] <= w[0]),
        "rho rose during the outage: {rhos:?}"
    );
    assert!(
        *rhos.last().unwrap() < Bandwidth::from_bps(before.as_bps() / 4),
        "{before:?} -> {rhos:?}"
    );
    // The link comes back at 6 s: the backlog drains, the forecast recovers and the sender
    // goes on sending new data.
    let got_before = p.rcv_nxt();
    bulk(&mut a, &mut p, ms(6000), ms(10_000));
    assert!(rho(&a) > Bandwidth::from_mbps(2), "rho after {:?}", rho(&a));
    let delivered = p.rcv_nxt() - got_before;
    // Over 4 s at up to 8 Mbit/s: at least a third of the link's 4 MB.
    assert!(
        delivered > 1_300_000,
        "{delivered} bytes delivered after the outage"
    );
}

/// The PROTEUS-Rate module inside the framework (for its training state).
fn proteus(a: &Endpoint) -> &tcplab_core::rate::proteus_rate::ProteusRate {
    match a.congestion_control() {
        Cc::ProteusRate(c) => c.algorithm(),
        _ => unreachable!("not proteus-rate"),
    }
}

/// Thesis 6.1.2: PROTEUS-Rate (with 250 ms windows and 16 of history, to train in 4 s) on the
/// 8 Mbit/s bottleneck: the tree takes over from the measured rate once trained, and through
/// a 3 s outage, with no ACK at all, its tick keeps closing windows of the receiver's
/// (extrapolated) clock, so the forecast falls to the outage's zero; when the link comes
/// back the sender resumes at the link's rate. Every step keeps the endpoint's invariants.
#[test]
fn proteus_rate_trains_then_keeps_ticking_through_a_three_second_outage_and_resumes() {
    let mut p = Peer::new(1, 0);
    p.outage = Some((ms(8000), ms(11_000)));
    let c = TcpConfig {
        proteus_window: Duration::from_millis(250),
        proteus_history: 16,
        ..cfg(CcKind::ProteusRate, true)
    };
    let mut a = client(c, &p);
    bulk(&mut a, &mut p, ms(50), ms(3000));
    assert!(!proteus(&a).trained(), "16 windows of 250 ms take 4 s");
    bulk(&mut a, &mut p, ms(3000), ms(8000));
    assert!(proteus(&a).trained());
    let before = rho(&a);
    assert_eq!(Some(before), proteus(&a).forecast());
    // The link's 8 Mbit/s, or up to 1.25 times it after a window that probed upwards.
    assert!(
        before > Bandwidth::from_mbps(6) && before <= Bandwidth::from_mbps(10),
        "rho before the outage {before:?}"
    );
    let closed = proteus(&a).windows_closed();
    let mut rhos = Vec::new();
    let mut t = ms(8100);
    while t <= ms(11_000) {
        bulk(&mut a, &mut p, t - Duration::from_millis(100), t);
        assert!(a.timer(Timer::CcTick).is_some(), "tick armed at {t:?}");
        let (r, _) = a.congestion_control().rate_estimates().unwrap();
        rhos.push(r.unwrap_or(Bandwidth::ZERO));
        t = t + Duration::from_millis(100);
    }
    let arrivals_in_outage = p
        .log
        .iter()
        .filter(|(_, _, at)| *at > ms(8001) && *at < ms(11_000))
        .count();
    assert_eq!(arrivals_in_outage, 0);
    // 3 s of 250 ms windows closed with no ACK (less the one or two the last ACKs closed).
    assert!(
        proteus(&a).windows_closed() >= closed + 10,
        "{closed} -> {}",
        proteus(&a).windows_closed()
    );
    assert_eq!(proteus(&a).forecast(), Some(Bandwidth::ZERO), "{rhos:?}");
    // The link comes back at 11 s: the backlog drains, the forecast recovers and the sender
    // goes on sending new data.
    let got_before = p.rcv_nxt();
    bulk(&mut a, &mut p, ms(11_000), ms(15_000));
    assert!(rho(&a) > Bandwidth::from_mbps(4), "rho after {:?}", rho(&a));
    let delivered = p.rcv_nxt() - got_before;
    // Over 4 s at up to 8 Mbit/s: at least a third of the link's 4 MB.
    assert!(
        delivered > 1_300_000,
        "{delivered} bytes delivered after the outage"
    );
}

/// An uplink outage holds the ACKs back past the RTO: the timeout retransmits the first
/// unacknowledged segment, and the held ACK of its original then newly acknowledges it.
/// That ACK reports the original (its TSecr, RFC 3522), so the framework takes no RD from
/// it: paired with the retransmission's send time it would read low by the time between the
/// two transmissions, and as RD_min it would make every later t_buff read high by as much.
#[test]
fn held_acks_after_a_spurious_timeout_leave_rd_min_alone() {
    let mut p = Peer::new(1, 0);
    // RD from the scoreboard's send times (the reproductions' `rtt_source = "send_time"`),
    // where the pairing needs the TSecr check.
    let c = TcpConfig {
        rtt_source: tcplab_core::tcp::RttSource::SendTime,
        ..cfg(CcKind::PropRate, true)
    };
    let mut a = client(c, &p);
    bulk(&mut a, &mut p, ms(50), ms(600));
    let rd_min = a.congestion_control().rate_rd_min().unwrap();
    p.ack_hold = Some((ms(600), ms(2600)));
    // Just after the held ACKs arrived (2625 ms; a later Monitor probe would reset RD_min).
    bulk(&mut a, &mut p, ms(600), ms(2650));
    assert!(a.stats().timeouts >= 1);
    let after = a.congestion_control().rate_rd_min().unwrap();
    // The path's base delay did not change: RD_min may only move by the TSval tick.
    assert!(
        (after - rd_min).abs() <= 2_000_000,
        "RD_min {rd_min} -> {after} ns"
    );
}

/// Issue 35: a sender the handshake leaves without what it reads runs CUBIC and says so.
/// A scenario cannot ask for this any more (tcplab-sim validate.rs refuses timestamps off
/// at either end), so the case left is a peer whose SYN-ACK does not answer as configured:
/// here one without the timestamp option (thesis 4.3.4) or without Sprout's option.
#[test]
fn a_peer_without_the_option_a_sender_reads_leaves_cubic_reported() {
    let handshake = |cc: CcKind, options: TcpOptions| {
        let cfg = TcpConfig {
            cc,
            mss: MSS as u32,
            ..TcpConfig::default()
        };
        let mut a = Endpoint::new(cfg, SeqNo(ISS));
        a.connect(ms(0));
        while a.poll_transmit(ms(0)).is_some() {}
        assert_eq!(a.cc_effective(), cc, "configured until established");
        a.handle_segment(ms(50), &synack(65535, options));
        while a.poll_transmit(ms(50)).is_some() {}
        a
    };
    let ts = Some(Timestamps { tsval: 7, tsecr: 0 });
    let base = TcpOptions {
        mss: Some(MSS as u16),
        sack_permitted: true,
        ..Default::default()
    };
    // Timestamps echoed: PropRate runs, nothing to report.
    let a = handshake(
        CcKind::PropRateLow,
        TcpOptions {
            timestamps: ts,
            ..base
        },
    );
    assert_eq!(
        (a.cc_effective(), a.cc_fallback()),
        (CcKind::PropRateLow, None)
    );
    assert!(matches!(a.congestion_control(), Cc::PropRate(_)));
    // No timestamp option from the peer: CUBIC, with the reason.
    let a = handshake(CcKind::PropRateLow, base);
    assert_eq!(a.cc_effective(), CcKind::Cubic);
    assert!(matches!(a.congestion_control(), Cc::Cubic(_)));
    let why = a.cc_fallback().expect("the fallback is reported");
    assert!(
        why.contains("no timestamp option") && why.contains("4.3.4"),
        "{why}"
    );
    // Sprout whose peer did not echo its option.
    let a = handshake(
        CcKind::Sprout,
        TcpOptions {
            timestamps: ts,
            ..base
        },
    );
    assert_eq!(a.cc_effective(), CcKind::Cubic);
    assert!(a.cc_fallback().unwrap().contains("Sprout's option"));
    let a = handshake(
        CcKind::Sprout,
        TcpOptions {
            timestamps: ts,
            sprout_permitted: true,
            ..base
        },
    );
    assert_eq!((a.cc_effective(), a.cc_fallback()), (CcKind::Sprout, None));
}
