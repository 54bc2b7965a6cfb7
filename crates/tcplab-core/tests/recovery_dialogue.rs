//! Dialogue tests for the recovery choice (`TcpConfig::recovery`): classic Reno (RFC 5681
//! section 3.2, ns-2's `Agent/TCP/Reno`) next to NewReno (RFC 6582). Feed an ACK at t,
//! assert exactly what goes out, and check both sides of the retransmission deadline.

mod common;
use common::script::{ack, drain, ms, offs, synack, ISS, NS};
use common::{run, Channel, Scenario};
use tcplab_core::tcp::{
    Endpoint, EndpointState, Recovery, RtoOnFastRetransmit, RtoRestart, TcpConfig, Timer,
};
use tcplab_core::{Duration, Instant, Segment, SeqNo, TcpOptions};

fn cfg(recovery: Recovery) -> TcpConfig {
    TcpConfig {
        mss: 1000,
        rcv_buf_bytes: 64_000,
        snd_buf_bytes: 64_000,
        min_rto: Duration::from_millis(200),
        timestamps: false,
        recovery,
        ..common::rfc_rules()
    }
}

/// Established at 50 ms (SRTT 50 ms: RTO 200 ms) against a peer that does or does not
/// permit SACK; 20 segments written at 100 ms, the initial window of 10 (offsets 0-9000)
/// sent at once.
fn sending(recovery: Recovery, sack: bool) -> Endpoint {
    sending_cfg(cfg(recovery), sack)
}

/// [`sending`] with any configuration.
fn sending_cfg(cfg: TcpConfig, sack: bool) -> Endpoint {
    let mut a = Endpoint::new(cfg, SeqNo(ISS));
    a.connect(ms(0));
    drain(&mut a, ms(0));
    let synack = synack(
        65535,
        TcpOptions {
            mss: Some(1000),
            sack_permitted: sack,
            ..Default::default()
        },
    );
    a.handle_segment(ms(50), &synack);
    drain(&mut a, ms(50));
    assert_eq!(a.state(), EndpointState::Established);
    assert_eq!(a.negotiated().0, sack);
    a.write(ms(100), 20_000);
    let v = drain(&mut a, ms(100));
    assert_eq!(offs(&v), (0..10).map(|i| i * 1000).collect::<Vec<_>>());
    a
}

/// The receiver's duplicate ACK of `una` after it holds the segments starting at `held`
/// (offsets of 1000-byte segments above `una`), the newest first. With `sack` the ACK
/// carries the SACK blocks an RFC 2018 receiver would send (at most 4); without, none.
fn dupack(una: u32, held: &[u32], sack: bool) -> Segment {
    if !sack {
        return ack(una, &[]);
    }
    // Merge the held segments into ranges; the block of the newest arrival comes first.
    let mut sorted: Vec<u32> = held.iter().copied().filter(|&s| s >= una).collect();
    sorted.sort_unstable();
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &s in &sorted {
        match ranges.last_mut() {
            Some(r) if r.1 == s => r.1 = s + 1000,
            _ => ranges.push((s, s + 1000)),
        }
    }
    let newest = *held.last().unwrap();
    ranges.sort_by_key(|r| !(r.0 <= newest && newest < r.1));
    ranges.truncate(4);
    ack(una, &ranges)
}

/// Feeds the duplicate ACKs of `una` that report the arrivals `(ms, segment offset)`, in
/// order, and returns what went out after each.
fn feed_dupacks(
    a: &mut Endpoint,
    una: u32,
    held: &mut Vec<u32>,
    arrivals: &[(u64, u32)],
    sack: bool,
) -> Vec<Vec<u32>> {
    arrivals
        .iter()
        .map(|&(t, seg)| {
            held.push(seg);
            a.handle_segment(ms(t), &dupack(una, held, sack));
            offs(&drain(a, ms(t)))
        })
        .collect()
}

// ------------------------------------------------------------------------ one loss

#[test]
fn reno_one_loss_fast_retransmit_inflation_and_exit_at_ssthresh() {
    // Segment 0 is lost. With or without SACK the Reno sender acts the same: it never
    // reads SACK blocks (RFC 6675 would keep cwnd at ssthresh and clock out by pipe).
    for sack in [false, true] {
        let mut a = sending(Recovery::Reno, sack);
        let mut held = Vec::new();
        // Dupacks 1 and 2 (segments 1000 and 2000 arrived): RFC 3042 limited transmit, one
        // new segment each (RFC 5681 3.2 step 1); cwnd itself unchanged.
        let out = feed_dupacks(&mut a, 0, &mut held, &[(150, 1000), (151, 2000)], sack);
        assert_eq!(out, vec![vec![10_000], vec![11_000]], "sack {sack}");
        assert!(!a.in_recovery());
        // Dupack 3: fast retransmit of segment 0, ssthresh = max(FlightSize / 2, 2 SMSS) =
        // 12000 / 2, cwnd = ssthresh + 3 SMSS (RFC 5681 3.2 steps 2-3). FlightSize is
        // 12000 > cwnd: nothing new.
        let out = feed_dupacks(&mut a, 0, &mut held, &[(152, 3000)], sack);
        assert_eq!(out, vec![vec![0]], "sack {sack}");
        assert!(a.in_recovery());
        assert_eq!((a.ssthresh(), a.cwnd()), (6000, 9000), "sack {sack}");
        assert_eq!(a.stats().fast_retransmits, 1);
        // Step 4: one SMSS per further dupack; new data once cwnd exceeds FlightSize
        // (12000), one segment per dupack (step 5).
        let arrivals: Vec<(u64, u32)> = (4..12).map(|i| (150 + i as u64, i * 1000)).collect();
        let out = feed_dupacks(&mut a, 0, &mut held, &arrivals, sack);
        let mut want: Vec<Vec<u32>> = vec![vec![]; 3];
        want.extend((12..17).map(|i| vec![i * 1000]));
        assert_eq!(out, want, "sack {sack}");
        assert_eq!(a.cwnd(), 9000 + 8 * 1000, "sack {sack}");
        // The retransmission arrives: the ACK of new data (here all of it, 12000 = recover)
        // deflates cwnd to ssthresh and ends fast recovery (step 6). FlightSize is 5000
        // (12000-16999), so one new segment fits.
        a.handle_segment(ms(200), &ack(12_000, &[]));
        assert!(!a.in_recovery());
        assert_eq!((a.ssthresh(), a.cwnd()), (6000, 6000), "sack {sack}");
        assert_eq!(offs(&drain(&mut a, ms(200))), vec![17_000], "sack {sack}");
        let s = a.stats();
        assert_eq!(
            (
                s.fast_retransmits,
                s.recoveries_completed,
                s.retransmitted_segments,
                s.timeouts
            ),
            (1, 1, 1, 0),
            "sack {sack}"
        );
    }
}

// ------------------------------------------------------------------------ two losses

/// Segments 0 and 2000 of the first window are lost. The receiver's duplicate ACKs for
/// 1000 and 3000-9000 come at 150-157 ms; the two limited-transmit segments (10000,
/// 11000) arrive and are reported at 200 and 201 ms; at 202 ms the retransmission of 0
/// brings the partial ACK of 2000 (below `recover` = 12000, the highest position sent at
/// the fast retransmit). Without SACK-based recovery (`reno`, `newreno`, or `auto`
/// without SACK) everything up to the partial ACK is the same. Returns the sender and what
/// it sent at 202 ms.
fn two_losses(recovery: Recovery, sack: bool) -> (Endpoint, Vec<u32>) {
    let mut a = sending(recovery, sack);
    let mut held = Vec::new();
    let mut arrivals = vec![(150, 1000)];
    arrivals.extend((3..10).map(|i| (148 + i as u64, i * 1000)));
    arrivals.extend([(200, 10_000), (201, 11_000)]);
    let out = feed_dupacks(&mut a, 0, &mut held, &arrivals, sack);
    // Limited transmit (10000, 11000), the fast retransmit of 0 on the third dupack,
    // then one new segment per dupack once the inflated cwnd passes FlightSize 12000.
    assert_eq!(
        out,
        vec![
            vec![10_000],
            vec![11_000],
            vec![0],
            vec![],
            vec![],
            vec![],
            vec![12_000],
            vec![13_000],
            vec![14_000],
            vec![15_000],
        ],
        "{recovery:?} sack {sack}"
    );
    assert_eq!((a.ssthresh(), a.cwnd()), (6000, 16_000));
    assert!(a.in_recovery());
    assert_eq!(a.stats().fast_retransmits, 1);
    a.handle_segment(ms(202), &dupack(2000, &held, sack));
    let at_partial = offs(&drain(&mut a, ms(202)));
    (a, at_partial)
}

#[test]
fn reno_partial_ack_ends_recovery_and_the_second_hole_waits_for_the_rto() {
    for sack in [false, true] {
        let (mut a, at_partial) = two_losses(Recovery::Reno, sack);
        // RFC 5681 3.2 step 6: the partial ACK deflates cwnd to ssthresh and ends fast
        // recovery; nothing is retransmitted (FlightSize 2000-15999 = 14000 > cwnd).
        assert_eq!(at_partial, Vec::<u32>::new(), "sack {sack}");
        assert!(!a.in_recovery());
        assert_eq!((a.ssthresh(), a.cwnd()), (6000, 6000), "sack {sack}");
        // The ACK of new data restarted the retransmission timer (RFC 6298 5.3); the RTO
        // is still the 200 ms floor.
        assert_eq!(a.poll_timeout(), Some(ms(402)), "sack {sack}");
        // The segments sent during recovery (12000-15000) arrive and bring four more
        // duplicate ACKs of 2000. They are below `recover`: no new fast retransmit (ns-2
        // Reno's `bugFix_`, RFC 6582 3.2 step 1), no inflation, no limited transmit.
        let mut held: Vec<u32> = (3..12).map(|i| i * 1000).collect();
        let arrivals = [(206, 12_000), (207, 13_000), (250, 14_000), (251, 15_000)];
        let out = feed_dupacks(&mut a, 2000, &mut held, &arrivals, sack);
        assert_eq!(out, vec![Vec::<u32>::new(); 4], "sack {sack}");
        assert!(!a.in_recovery());
        assert_eq!(a.cwnd(), 6000);
        // Nothing until the RTO, which alone repairs the second hole.
        assert_eq!(a.poll_timeout(), Some(ms(402)));
        a.handle_timeout(ms(402) - NS);
        assert!(drain(&mut a, ms(402) - NS).is_empty());
        assert_eq!(
            a.stats().retransmitted_segments,
            1,
            "only the fast retransmit"
        );
        a.handle_timeout(ms(402));
        assert_eq!(offs(&drain(&mut a, ms(402))), vec![2000], "sack {sack}");
        // RFC 5681 3.1: cwnd = 1 SMSS, ssthresh = FlightSize / 2 = 14000 / 2.
        assert_eq!((a.cwnd(), a.ssthresh()), (1000, 7000), "sack {sack}");
        let s = a.stats();
        assert_eq!(
            (
                s.fast_retransmits,
                s.recoveries_completed,
                s.retransmitted_segments,
                s.timeouts
            ),
            (1, 0, 2, 1),
            "sack {sack}"
        );
        // The receiver now holds everything up to 16000: one ACK ends the episode, and
        // slow start goes on with new data (cwnd 2000).
        a.handle_segment(ms(452), &ack(16_000, &[]));
        assert_eq!(offs(&drain(&mut a, ms(452))), vec![16_000, 17_000]);
    }
}

#[test]
fn newreno_retransmits_the_second_hole_on_the_partial_ack() {
    // The same losses: RFC 6582 3.2 step 4 retransmits 2000 at once and stays in recovery
    // (Recovery::NewReno with SACK negotiated behaves as plain NewReno without SACK).
    for (recovery, sack) in [(Recovery::Auto, false), (Recovery::NewReno, true)] {
        let (mut a, at_partial) = two_losses(recovery, sack);
        // Deflated by the 2000 bytes acknowledged, plus one SMSS back: 15000, one segment
        // more than FlightSize 2000-15999, so new data 16000 follows the retransmission.
        assert_eq!(at_partial, vec![2000, 16_000], "{recovery:?} sack {sack}");
        assert!(a.in_recovery());
        assert_eq!(a.cwnd(), 16_000 - 2000 + 1000);
        // Its ACK (everything up to 16000, beyond `recover`) is a full ACK: recovery over
        // with cwnd = ssthresh, no timeout.
        a.handle_segment(ms(252), &ack(16_000, &[]));
        assert!(!a.in_recovery());
        assert_eq!(a.cwnd(), 6000);
        let s = a.stats();
        assert_eq!(
            (
                s.fast_retransmits,
                s.recoveries_completed,
                s.retransmitted_segments,
                s.timeouts
            ),
            (1, 1, 2, 0),
            "{recovery:?} sack {sack}"
        );
    }
}

// ------------------------------------------------------------------------ transfers

fn transfer(recovery: Recovery, sack: bool, drop_offsets: &[u32]) -> common::Outcome {
    let c = TcpConfig {
        sack,
        ..cfg(recovery)
    };
    let isn = SeqNo(u32::MAX - 3000);
    run(Scenario {
        client: c.clone(),
        server: c,
        client_isn: isn,
        server_isn: SeqNo(77),
        fwd: Channel {
            drop_seqs: drop_offsets.iter().map(|&o| isn + 1 + o).collect(),
            ..Channel::default()
        },
        rev: Channel::default(),
        bytes: 40_000,
        read_chunk: 0,
        read_every: None,
        seed: 0,
        limit: Instant::from_secs(30),
    })
}

#[test]
fn reno_transfer_one_loss_recovers_fast_several_losses_in_a_window_time_out() {
    // (drops in the first window, retransmissions): after the timeout Reno goes back N
    // without SACK information, so three holes cost one needless retransmission.
    let cases: [(&[u32], u64); 3] = [(&[3000], 1), (&[3000, 6000], 2), (&[2000, 5000, 7000], 4)];
    for (drops, rtx) in cases {
        let reno = transfer(Recovery::Reno, false, drops);
        let s = reno.a.stats().clone();
        // One fast retransmit for the first hole; any other waits for one timeout.
        let several = drops.len() > 1;
        assert_eq!(
            (
                s.fast_retransmits,
                s.recoveries_completed,
                s.timeouts,
                s.retransmitted_segments
            ),
            (1, !several as u64, several as u64, rtx),
            "{drops:?}: {s:?}"
        );
        // With SACK negotiated (the receiver sends SACK blocks) the Reno sender ignores
        // them: the same transfer, segment for segment.
        let with_sack = transfer(Recovery::Reno, true, drops);
        assert!(with_sack.a.negotiated().0);
        assert_eq!(with_sack.a.stats(), &s, "{drops:?}");
        assert_eq!(with_sack.now, reno.now, "{drops:?}");
        // NewReno, and RFC 6675 with SACK, repair the same losses without a timeout.
        for sack in [false, true] {
            let auto = transfer(Recovery::Auto, sack, drops).a.stats().clone();
            assert_eq!(
                (auto.timeouts, auto.retransmitted_segments),
                (0, drops.len() as u64),
                "sack {sack} {drops:?}: {auto:?}"
            );
        }
        // `recovery = newreno` over a SACK connection is NewReno without SACK.
        let newreno = transfer(Recovery::NewReno, true, drops);
        let plain = transfer(Recovery::Auto, false, drops);
        assert_eq!(newreno.a.stats(), plain.a.stats(), "{drops:?}");
        assert_eq!(newreno.now, plain.now, "{drops:?}");
    }
}

// ------------------------------------------------- ns-2.35 TCP-Linux (`ns2_linux`)

/// A FIFO path that loses the first `lost` transmissions of segment 0 and delivers
/// everything else in the order sent, one arrival per millisecond from 150 ms; each
/// arrival is ACKed with the blocks an RFC 2018 receiver sends. Returns, for every
/// arrival, what the sender sent in answer, and stops after `arrivals`.
fn fifo_losing_front(
    a: &mut Endpoint,
    first_flight: Vec<u32>,
    lost: usize,
    arrivals: usize,
) -> Vec<(u32, Vec<u32>)> {
    let mut path: std::collections::VecDeque<u32> = first_flight.into();
    let mut zero_sent = 0;
    let mut held = Vec::new();
    let mut una = 0;
    let mut log = Vec::new();
    for k in 0..arrivals as u64 {
        let Some(seg) = path.pop_front() else { break };
        if seg == 0 {
            zero_sent += 1;
            if zero_sent <= lost {
                continue;
            }
        }
        held.push(seg);
        while held.contains(&una) {
            una += 1000;
        }
        let t = 150 + k;
        a.handle_segment(ms(t), &dupack(una, &held, true));
        let out = offs(&drain(a, ms(t)));
        path.extend(out.iter().copied());
        log.push((seg, out));
    }
    log
}

#[test]
fn ns2_linux_resends_a_lost_retransmission_when_a_later_segment_is_sacked() {
    // ns-2.35 tcp/scoreboard1.cc `UpdateScoreBoard`: a retransmission is lost again once a
    // segment sent after it (at or above SND.NXT of the retransmission) is SACKed, and
    // `send_much` re-sends it at once. RFC 6675 (`auto`) has no such rule: its lost
    // retransmission waits for the RTO.
    let mut a = sending(Recovery::Ns2Linux, true);
    let first: Vec<u32> = (0..10).map(|i| i * 1000).collect();
    let log = fifo_losing_front(&mut a, first.clone(), 2, 40);
    let when = |log: &[(u32, Vec<u32>)]| -> Vec<usize> {
        (0..log.len()).filter(|&k| log[k].1.contains(&0)).collect()
    };
    let zero = when(&log);
    // FACK threshold (`fack_ - (dupack_threshold + 1)`): segment 0 is lost once segment 4
    // is SACKed -- the fourth duplicate ACK, one later than RFC 6675's IsLost().
    assert_eq!(log[3].0, 4000);
    assert_eq!(zero[0], 3, "{log:?}");
    assert!(a.stats().fast_retransmits == 1);
    // The first segment sent after that retransmission: its SACK marks 0 lost again.
    let after: u32 = log[3..]
        .iter()
        .flat_map(|(_, out)| out.iter().copied())
        .find(|&s| s >= 10_000 && !log[..3].iter().any(|(_, o)| o.contains(&s)))
        .expect("new data after the retransmission");
    let k = log.iter().position(|(seg, _)| *seg == after).unwrap();
    assert_eq!(zero[1], k, "re-sent on the SACK of {after}: {log:?}");
    assert_eq!(log[k].1[0], 0, "the lowest LOST segment goes first");
    // Once that third transmission arrives, everything is acknowledged and the recovery
    // ends without a timeout (one window cut).
    assert_eq!((a.stats().timeouts, a.stats().fast_retransmits), (0, 1));
    assert_eq!(a.stats().recoveries_completed, 1, "{log:?}");

    // RFC 6675 on the same path: segment 0 goes once (third duplicate ACK), and the lost
    // retransmission is not seen.
    let mut b = sending(Recovery::Auto, true);
    let log = fifo_losing_front(&mut b, first, 2, 40);
    assert_eq!(when(&log), vec![2], "{log:?}");
    assert_eq!(b.stats().recoveries_completed, 0);
}

#[test]
fn rto_restart_any_ack_restarts_the_timer_on_duplicate_acks() {
    // ns-2.35 tcp/tcp-linux.cc `time_processing`: with `timerfix_`, `renew_timer`
    // reschedules the retransmission timer on every ACK, a duplicate too; RFC 6298 5.3
    // (`every_ack`) only on an ACK of new data.
    for (rule, moves) in [(RtoRestart::EveryAck, false), (RtoRestart::AnyAck, true)] {
        let mut a = sending_cfg(
            TcpConfig {
                rto_restart: rule,
                ..cfg(Recovery::Ns2Linux)
            },
            true,
        );
        let before = a.timer(Timer::Retransmit).unwrap();
        a.handle_segment(ms(150), &dupack(0, &[1000], true));
        drain(&mut a, ms(150));
        let after = a.timer(Timer::Retransmit).unwrap();
        assert_eq!(after != before, moves, "{rule:?}");
        if moves {
            assert_eq!(after, ms(150) + a.rtt().rto());
        }
    }
}

#[test]
fn rto_on_fast_retransmit_restart_gives_the_fast_retransmission_a_full_rto() {
    // Segment 0 (sent at 100 ms with the window) is lost; the third duplicate ACK, at
    // 152 ms, sends the fast retransmission. ns-2.35's `dupack_action` calls
    // `reset_rtx_timer(1,0)` first, and Linux re-arms when it resends the head: the timer
    // then runs from 152 ms. RFC 6298 5.1 (`keep`, ns-3) leaves the timer armed at 100 ms
    // running, which here expires at 300 ms, before a 200 ms-RTT ACK of the retransmission.
    for recovery in [Recovery::Reno, Recovery::NewReno] {
        for (rule, restarts) in [
            (RtoOnFastRetransmit::Keep, false),
            (RtoOnFastRetransmit::Restart, true),
        ] {
            let mut a = sending_cfg(
                TcpConfig {
                    rto_on_fast_retransmit: rule,
                    ..cfg(recovery)
                },
                false,
            );
            let armed = a.timer(Timer::Retransmit).unwrap();
            assert_eq!(armed, ms(100) + a.rtt().rto());
            let sent = feed_dupacks(
                &mut a,
                0,
                &mut Vec::new(),
                &[(150, 1000), (151, 2000), (152, 3000)],
                false,
            );
            assert_eq!(
                sent[2].first(),
                Some(&0),
                "{recovery:?} {rule:?}: fast retransmit"
            );
            let after = a.timer(Timer::Retransmit).unwrap();
            if restarts {
                assert_eq!(after, ms(152) + a.rtt().rto(), "{recovery:?} {rule:?}");
            } else {
                assert_eq!(after, armed, "{recovery:?} {rule:?}");
            }
        }
    }
}

#[test]
fn grow_on_recovery_exit_grows_the_deflated_window_on_the_exit_ack() {
    // ns-2.35's Agent/TCP/Reno and /Newreno: the ACK that ends the recovery clears
    // `dupwnd_` and then runs `recv_newack_helper`, whose `opencwnd` grows `cwnd_` by
    // 1/cwnd (congestion avoidance). RFC 5681 3.2 step 6 / RFC 6582 3.2 step 3 only deflate.
    // One loss (segment 0) as in the test above: ssthresh 6000.
    for recovery in [Recovery::Reno, Recovery::NewReno] {
        for grow in [false, true] {
            let mut a = sending_cfg(
                TcpConfig {
                    grow_on_recovery_exit: grow,
                    ..cfg(recovery)
                },
                false,
            );
            let mut held = Vec::new();
            let arrivals: Vec<(u64, u32)> = (1..12).map(|i| (149 + i as u64, i * 1000)).collect();
            feed_dupacks(&mut a, 0, &mut held, &arrivals, false);
            assert!(a.in_recovery());
            assert_eq!(a.ssthresh(), 6000);
            a.handle_segment(ms(200), &ack(12_000, &[]));
            assert!(!a.in_recovery());
            // Congestion avoidance's per-ACK step: SMSS * SMSS / cwnd = 166 bytes.
            let want = if grow {
                6000 + 1000 * 1000 / 6000
            } else {
                6000
            };
            assert_eq!(a.cwnd(), want, "{recovery:?} grow {grow}");
        }
    }
}
