//! Replays a recorded arrival sequence through tcplab's RED (src/queue/red.rs, after ns-2.35
//! queue/red.cc) in front of a fixed-rate link: the queue alone, on ns-2's arrivals, with
//! no TCP in the loop (bench/red/README.md). Shared by tests/red_ns2_replay.rs and
//! examples/red_replay.rs.

use tcplab_core::{Instant, Rng, Segment};
use tcplab_sim::config::{Discipline, QueueSpec};
use tcplab_sim::packet::Packet;
use tcplab_sim::queue::{QueueDiscipline, Red, RedParams, RedStats, Verdict};

/// Arrivals as bench/red/red.tcl's trace reduces to them: one line per arrival at the RED
/// queue, the gap to the previous arrival in microseconds, then `,size` when the packet is
/// not 1040 bytes. Returns (time ns, size bytes).
pub fn parse_arrivals(text: &str) -> Vec<(u64, u32)> {
    let mut t = 0u64;
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (d, size) = match l.split_once(',') {
                Some((d, s)) => (d, s.parse().expect("size")),
                None => (l, 1040),
            };
            t += d.parse::<u64>().expect("gap in us") * 1000;
            (t, size)
        })
        .collect()
}

/// ns-2's parameters for bench/red/red.tcl's bottleneck (packet mode, wait on).
pub fn params(bps: f64, min_th: f64, max_th: f64, q_w: f64, max_p: f64, gentle: bool) -> RedParams {
    RedParams {
        th_min: min_th,
        th_max: max_th,
        max_p,
        q_w,
        ptc: bps / (8.0 * 500.0),
        gentle,
        wait: true,
        ecn: false,
        use_mark_p: true,
        mark_p: 0.1,
        bytes: false,
        queue_in_bytes: false,
        mean_pktsize: 500,
    }
}

/// Feeds `arrivals` to RED in front of a `bps` link holding `limit` packets; the link
/// takes the head of the queue whenever it is free, as ns-2's LinkDelay does.
pub fn replay(arrivals: &[(u64, u32)], bps: f64, limit: u64, p: RedParams, seed: u64) -> RedStats {
    let spec = QueueSpec {
        discipline: Discipline::Red,
        limit_packets: Some(limit),
        limit_bytes: None,
        red: None,
    };
    let mut q = Red::with_params(&spec, 0, p, Rng::from_seed(seed));
    let tx = |bytes: u32| (bytes as f64 * 8.0 / bps * 1e9).round() as u64;
    let mut busy_until = 0u64;
    for (i, &(t, size)) in arrivals.iter().enumerate() {
        while busy_until <= t && !q.is_empty() {
            let p = q.dequeue(Instant::from_nanos(busy_until)).unwrap();
            busy_until += tx(p.ip_len);
        }
        let pkt = Packet {
            id: i as u64,
            flow: 0,
            from_sender: true,
            hop: 0,
            ip_len: size,
            sent_at: Instant::ZERO,
            seg: Segment::default(),
        };
        let now = Instant::from_nanos(t);
        if busy_until <= t && q.is_empty() {
            q.note_idle_arrival(now, Instant::from_nanos(busy_until), pkt.ip_len);
            busy_until = t + tx(size);
        } else {
            // Drops are counted in RED's stats (early and forced).
            let _: Verdict = q.enqueue(now, pkt);
        }
    }
    q.stats()
}
