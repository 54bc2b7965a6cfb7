//! Property tests (DESIGN.md testing layer 3/4): random loss (SYN, FIN and ACKs included),
//! reordering, duplication, ISNs near the wrap, small buffers and slow readers; after every
//! step the endpoints' invariants hold, and at the end the reader got every byte once, in order.

mod common;

use common::{run, Channel, Scenario};
use tcplab_core::cc::CcKind;
use tcplab_core::fc::FcKind;
use tcplab_core::tcp::{Recovery, TcpConfig};
use tcplab_core::{Duration, Instant, Rng, SeqNo};

fn random_scenario(seed: u64) -> Scenario {
    let mut r = Rng::derive(seed, 0, "scenario");
    let mut cfg = TcpConfig {
        sack: r.bernoulli(0.5),
        timestamps: r.bernoulli(0.5),
        window_scale: r.bernoulli(0.7),
        delayed_ack: r.bernoulli(0.7),
        nagle: r.bernoulli(0.5),
        cc: [
            CcKind::NewReno,
            CcKind::Cubic,
            CcKind::Vegas,
            CcKind::Westwood,
            CcKind::Rre,
            CcKind::PropRateHigh,
            CcKind::PropRateLow,
            CcKind::RreTable61,
        ][r.below(8) as usize],
        mss: [536, 1000, 1448][r.below(3) as usize],
        min_rto: Duration::from_millis(200),
        ..TcpConfig::default()
    };
    let small = r.bernoulli(0.4);
    if small {
        cfg.rcv_buf_bytes = 2_000 + r.below(30_000);
        cfg.snd_buf_bytes = 4_000 + r.below(60_000);
    } else {
        cfg.rcv_buf_bytes = 64 << 10 << r.below(4);
    }
    // F-RTO on in most runs, off in some; drawn from its own stream so that the other
    // draws (and thus the rest of each scenario) are those of the sweep before F-RTO.
    cfg.frto = Rng::derive(seed, 1, "frto").bernoulli(0.7);
    // ns-2.35 TCP-Linux's recovery (`ns2_linux`) in some runs, from its own stream too:
    // its scoreboard, rate halving and cleared board must keep every invariant.
    if Rng::derive(seed, 3, "recovery").bernoulli(0.25) {
        cfg.recovery = Recovery::Ns2Linux;
    }
    let mut server = cfg.clone();
    // The receiver policy, from its own stream as F-RTO: classic, or RSFC (with the paper's
    // 10 ms timestamp clocks in some runs); AFC on both ends in some.
    let mut fr = Rng::derive(seed, 2, "fc");
    match fr.below(4) {
        0 => {
            server.fc = FcKind::Rsfc;
            if fr.bernoulli(0.5) {
                server.ts_granularity = Duration::from_millis(10);
                cfg.ts_granularity = Duration::from_millis(10);
            }
            if fr.bernoulli(0.3) {
                server.rsfc_minima_updates = false;
            }
        }
        // AFC on both ends, with any sender (with a rate-based one, seed 208 once starved:
        // the pacer held every retransmission after AFC's quiet timeouts).
        1 => {
            cfg.fc = FcKind::Afc;
            server.fc = FcKind::Afc;
        }
        _ => {}
    }
    // The two sides need not agree: negotiation must fall back cleanly.
    if r.bernoulli(0.3) {
        server.sack = !server.sack;
    }
    if r.bernoulli(0.3) {
        server.timestamps = !server.timestamps;
    }
    if r.bernoulli(0.3) {
        server.window_scale = !server.window_scale;
    }
    let lossy = r.bernoulli(0.8);
    let loss = if lossy {
        [0.01, 0.03, 0.08][r.below(3) as usize]
    } else {
        0.0
    };
    let jitter = if r.bernoulli(0.3) {
        Duration::from_millis(r.below(15))
    } else {
        Duration::ZERO
    };
    let dup = if r.bernoulli(0.2) { 0.02 } else { 0.0 };
    let delay = Duration::from_millis(1 + r.below(60));
    let ch = Channel {
        delay,
        jitter,
        loss,
        dup,
        ns_per_byte: [0, 800, 8000][r.below(3) as usize],
        drop_seqs: vec![],
        ce_seqs: vec![],
        delay_seqs: vec![],
    };
    let near_wrap = |r: &mut Rng| SeqNo(u32::MAX - r.below(200_000) as u32);
    let client_isn = if r.bernoulli(0.5) {
        near_wrap(&mut r)
    } else {
        SeqNo(r.next_u32())
    };
    let server_isn = if r.bernoulli(0.5) {
        near_wrap(&mut r)
    } else {
        SeqNo(r.next_u32())
    };
    let slow = r.bernoulli(0.4);
    Scenario {
        client: cfg,
        server,
        client_isn,
        server_isn,
        fwd: ch.clone(),
        rev: Channel {
            ns_per_byte: 0,
            ..ch
        },
        bytes: 1 + r.below(150_000),
        read_chunk: 500 + r.below(4000),
        read_every: slow.then(|| {
            if r.bernoulli(0.3) {
                Duration::from_millis(100 + r.below(500))
            } else {
                Duration::from_millis(1 + r.below(20))
            }
        }),
        seed,
        limit: Instant::from_secs(3000),
    }
}

#[test]
fn random_transfers_complete_exactly_once_in_order() {
    let mut timeouts = 0;
    let mut fast = 0;
    let mut probes = 0;
    let mut spurious = 0;
    let (mut rsfc_runs, mut rsfc_fast) = (0, 0);
    // TCPLAB_SEEDS=n widens the sweep for a soak run; 200 keeps `cargo test` quick.
    let n: u64 = std::env::var("TCPLAB_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    for seed in 0..n {
        let out = run(random_scenario(seed));
        timeouts += out.a.stats().timeouts;
        fast += out.a.stats().fast_retransmits;
        probes += out.a.stats().zero_window_probes_sent;
        spurious += out.a.stats().spurious_timeouts;
        if let tcplab_core::fc::Fc::Rsfc(r) = out.b.receiver_policy() {
            rsfc_runs += 1;
            rsfc_fast += r.stats().fast_entries;
        }
        assert!(out.a.stats().spurious_timeouts <= out.a.stats().timeouts);
        let inv = out.a.stats().invalid_segments + out.b.stats().invalid_segments;
        // Loss, reordering and duplication are not misbehaviour: nothing may be rejected.
        assert_eq!(
            inv,
            0,
            "seed {seed}: a={:?} b={:?}",
            out.a.stats(),
            out.b.stats()
        );
    }
    // The generator must actually exercise the corners.
    // Spurious timeouts are rare here (losses, not delay spikes): the sweep mostly checks
    // that F-RTO's fallback to conventional recovery keeps every invariant.
    eprintln!(
        "timeouts {timeouts} (spurious {spurious}) fast {fast} probes {probes}; \
         RSFC receivers {rsfc_runs} (fast-state entries {rsfc_fast})"
    );
    assert!(
        timeouts > 0 && fast > 0 && probes > 0 && rsfc_runs > 0 && rsfc_fast > 0,
        "timeouts {timeouts} spurious {spurious} fast {fast} probes {probes} \
         rsfc {rsfc_runs} rsfc fast {rsfc_fast}"
    );
}

#[test]
fn lossless_bulk_transfer_has_no_retransmissions() {
    for (sack, cc) in [
        (true, CcKind::NewReno),
        (false, CcKind::NewReno),
        (true, CcKind::Cubic),
    ] {
        let cfg = TcpConfig {
            sack,
            cc,
            ..TcpConfig::default()
        };
        let out = run(Scenario {
            client: cfg.clone(),
            server: cfg,
            client_isn: SeqNo(u32::MAX - 5000),
            server_isn: SeqNo(7),
            fwd: Channel {
                ns_per_byte: 800,
                ..Channel::default()
            },
            rev: Channel::default(),
            bytes: 3_000_000,
            read_chunk: 0,
            read_every: None,
            seed: 1,
            limit: Instant::from_secs(100),
        });
        let s = out.a.stats();
        assert_eq!((s.retransmitted_segments, s.timeouts), (0, 0), "{s:?}");
        assert_eq!(
            out.a.stats().invalid_segments + out.b.stats().invalid_segments,
            0
        );
    }
}
