//! Random Early Detection (Floyd and Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993) with the behaviour of ns-2.35's
//! `Queue/RED` (queue/red.cc, rev. 1.90): the same average, the same drop probability,
//! the same count-based spacing, the same order of tests on arrival. Written from a
//! reading of that file, not copied; where ns-2 has options we do not offer (adaptive RED,
//! cautious modes, drop-front/random victims, the `edrop` target) we behave as ns-2 does
//! with its defaults (`adaptive_ 0`, `cautious_ 0`, `drop_tail_ true`, `ns1_compat_ false`).
//!
//! Per arrival (ns-2 `REDQueue::enque`):
//! 1. the average `ave <- (1-w)^(m+1) ave + w q`, `q` the backlog before the arrival
//!    (packets, or bytes with `queue_in_bytes`), `m = int(ptc * idle)` when the link has
//!    been idle with an empty queue (`ptc` = link rate / (8 mean_pktsize): the idle period
//!    counts as `m` small packets arriving to an empty queue);
//! 2. `count += 1`; if `ave >= min_th` and `q > 1`: either the first such arrival
//!    (`old == 0`: count restarts at 1) or an early drop/mark with probability
//!    `pa = modify_p(pb)`; otherwise `old = 0`;
//! 3. an arrival that finds `q >= limit` is dropped (forced, resets `count`).
//!
//! A chosen ECT packet is marked CE instead of dropped when `ecn` (ns-2 `setbit_`) is on
//! and, with `use_mark_p`, only while `pb < mark_p`: with `max_p <= mark_p` (the defaults)
//! that is below `max_th`, so above it RED drops even ECT packets, as ns-2 does. A marked
//! packet that then meets a full queue is dropped (ns-2 marks first and drops after).

use super::{Fifo, QueueCounters, QueueDiscipline, Verdict};
use crate::config::{QueueSpec, RedSpec};
use crate::packet::Packet;
use tcplab_core::{Duration, Ecn, Instant, Rng};

/// What RED did, cumulatively; early drops and marks are RED's own decisions, forced drops
/// are buffer overflows (and, without `use_mark_p`, arrivals with `ave` past the maximum).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct RedStats {
    /// Every arrival that ran the estimator (queued, dropped, or sent straight onto an
    /// idle link).
    pub arrivals: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    /// Packets kept with CE set by RED.
    pub marks: u64,
    /// Sum of `ave` after each arrival's update (ns-2's `ave_` trace): the mean of
    /// `ave` over arrivals is `ave_sum / arrivals`.
    pub ave_sum: f64,
    /// Sum of the backlog each arrival found (ns-2's `curq_`), in the average's unit.
    pub curq_sum: f64,
}

/// The parameters after ns-2's automatic settings (`REDQueue::reset`,
/// `initialize_params`) have been applied; thresholds in the average's unit.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedParams {
    pub th_min: f64,
    pub th_max: f64,
    pub max_p: f64,
    pub q_w: f64,
    /// Packets of `mean_pktsize` the link sends per second.
    pub ptc: f64,
    pub gentle: bool,
    pub wait: bool,
    pub ecn: bool,
    pub use_mark_p: bool,
    pub mark_p: f64,
    pub bytes: bool,
    pub queue_in_bytes: bool,
    pub mean_pktsize: u32,
}

impl RedParams {
    /// ns-2's resolution of the automatic values, for a link of `link_bps` and propagation
    /// `delay` (ns-2 reads both from the link the queue is attached to).
    pub fn resolve(spec: &RedSpec, link_bps: f64, delay: Duration) -> RedParams {
        let mean = spec.mean_pktsize.max(1) as f64;
        let ptc = link_bps / (8.0 * mean);
        // q_weight_: 0 -> one packet time constant of 1/C s; -1 (ns-2's default) -> ten
        // "RTTs" of 3 (delay + one packet time), at least 100 ms; -2 -> 10/C s.
        let q_w = if spec.q_weight == 0.0 {
            1.0 - (-1.0 / ptc).exp()
        } else if spec.q_weight == -1.0 {
            let rtt = (3.0 * (delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        } else if spec.q_weight == -2.0 {
            1.0 - (-10.0 / ptc).exp()
        } else {
            spec.q_weight
        };
        // thresh_ 0: max(5, half the queue of targetdelay_ = 5 ms); maxthresh_ 0: 3 min_th.
        let mut th_min_pkts = spec.min_th;
        if th_min_pkts == 0.0 {
            th_min_pkts = 5.0f64.max(TARGET_DELAY_S * ptc / 2.0);
        }
        let mut th_max_pkts = spec.max_th;
        if th_max_pkts == 0.0 {
            th_max_pkts = 3.0 * th_min_pkts;
        }
        let scale = if spec.queue_in_bytes { mean } else { 1.0 };
        RedParams {
            th_min: th_min_pkts * scale,
            th_max: th_max_pkts * scale,
            max_p: spec.max_p,
            q_w,
            ptc,
            gentle: spec.gentle,
            wait: spec.wait,
            ecn: spec.ecn,
            use_mark_p: spec.use_mark_p,
            mark_p: spec.mark_p,
            bytes: spec.bytes,
            queue_in_bytes: spec.queue_in_bytes,
            mean_pktsize: spec.mean_pktsize.max(1),
        }
    }
}

/// ns-2's `targetdelay_` default, used only for the automatic `min_th`.
const TARGET_DELAY_S: f64 = 0.005;

/// What one arrival's test decided.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Decision {
    Keep,
    Mark,
    EarlyDrop,
    ForcedDrop,
}

#[derive(Clone, Debug)]
pub struct Red {
    fifo: Fifo,
    p: RedParams,
    /// Slopes of the probability: `pb = max_p (v_a ave + v_b)` between the thresholds,
    /// `v_c ave + v_d` in the gentle region.
    v_a: f64,
    v_b: f64,
    v_c: f64,
    v_d: f64,
    ave: f64,
    /// Arrivals (and bytes) since the last early drop or mark.
    count: i64,
    count_bytes: i64,
    /// The previous arrival was already in the dropping region (ns-2 `edv_.old`).
    old: bool,
    rng: Rng,
    stats: RedStats,
}

impl Red {
    /// `link_bps` and `delay` are the link's (for `ptc` and the automatic weight); `rng` is
    /// the queue's own stream, so RED's draws do not shift the link's loss draws.
    pub fn new(
        spec: &QueueSpec,
        header_bytes: u32,
        link_bps: f64,
        delay: Duration,
        rng: Rng,
    ) -> Red {
        let red = spec.red.clone().unwrap_or_default();
        Red::with_params(
            spec,
            header_bytes,
            RedParams::resolve(&red, link_bps, delay),
            rng,
        )
    }

    pub fn with_params(spec: &QueueSpec, header_bytes: u32, p: RedParams, rng: Rng) -> Red {
        let mut th_diff = p.th_max - p.th_min;
        if th_diff == 0.0 {
            th_diff = 1.0; // as ns-2: no division by zero when the thresholds coincide
        }
        let (v_c, v_d) = if p.gentle {
            ((1.0 - p.max_p) / p.th_max, 2.0 * p.max_p - 1.0)
        } else {
            (0.0, 0.0)
        };
        Red {
            fifo: Fifo::new(spec, header_bytes),
            v_a: 1.0 / th_diff,
            v_b: -p.th_min / th_diff,
            v_c,
            v_d,
            p,
            ave: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            rng,
            stats: RedStats::default(),
        }
    }

    pub fn params(&self) -> &RedParams {
        &self.p
    }

    pub fn stats(&self) -> RedStats {
        self.stats
    }

    /// The current average queue (ns-2 `ave_`).
    pub fn ave(&self) -> f64 {
        self.ave
    }

    /// The backlog in the average's unit.
    fn qlen(&self) -> f64 {
        if self.p.queue_in_bytes {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        }
    }

    /// ns-2 `calculate_p_new`: the base probability for average `ave`.
    pub fn pb(&self, ave: f64) -> f64 {
        let p = if ave >= self.p.th_max {
            if self.p.gentle {
                self.v_c * ave + self.v_d
            } else {
                1.0
            }
        } else {
            (self.v_a * ave + self.v_b) * self.p.max_p
        };
        p.min(1.0)
    }

    /// ns-2 `modify_p`: spreads drops uniformly over arrivals since the last one (`wait`:
    /// none before 1/pb arrivals, all by 2/pb); in byte mode scaled by the packet's size.
    pub fn pa(&self, pb: f64, size: u64) -> f64 {
        let count = if self.p.bytes {
            // ns-2 divides two ints here: whole mean-sized packets.
            (self.count_bytes / self.p.mean_pktsize as i64) as f64
        } else {
            self.count as f64
        };
        let mut p = pb;
        if self.p.wait {
            if count * p < 1.0 {
                p = 0.0;
            } else if count * p < 2.0 {
                p /= 2.0 - count * p;
            } else {
                p = 1.0;
            }
        } else if count * p < 1.0 {
            p /= 1.0 - count * p;
        } else {
            p = 1.0;
        }
        if self.p.bytes && p < 1.0 {
            p = p * size as f64 / self.p.mean_pktsize as f64;
        }
        p.min(1.0)
    }

    /// One arrival that found `qlen` queued (`idle`: the link idle since that instant with
    /// an empty queue). Updates the average and the counts; marks `pkt` CE if chosen.
    fn arrive(
        &mut self,
        now: Instant,
        idle: Option<Instant>,
        pkt: &mut Packet,
        wire: u64,
    ) -> Decision {
        let mut m: u64 = 0;
        if let Some(since) = idle {
            let idle_s = now.saturating_since(since).as_secs_f64();
            // ns-2 truncates to int; saturate rather than overflow after a very long idle.
            m = (self.p.ptc * idle_s).min(u32::MAX as f64) as u64;
        }
        let qlen = self.qlen();
        // (1-w)^m for the idle period, then one ordinary step; ns-2 multiplies m times in
        // a loop, which powi matches to rounding, at O(1) per arrival.
        let decay = 1.0 - self.p.q_w;
        let mut ave = self.ave;
        if m > 0 {
            ave *= decay.powi(m.min(i32::MAX as u64) as i32);
        }
        ave = ave * decay + self.p.q_w * qlen;
        self.ave = ave;
        self.stats.arrivals += 1;
        self.stats.ave_sum += ave;
        self.stats.curq_sum += qlen;

        self.count += 1;
        self.count_bytes += wire as i64;
        let mut decision = Decision::Keep;
        if ave >= self.p.th_min && qlen > 1.0 {
            let past_max = if self.p.gentle {
                ave >= 2.0 * self.p.th_max
            } else {
                ave >= self.p.th_max
            };
            if !self.p.use_mark_p && past_max {
                decision = Decision::ForcedDrop;
            } else if !self.old {
                // Just crossed min_th (or the queue was nearly empty until now): start
                // counting afresh, no drop yet.
                self.count = 1;
                self.count_bytes = wire as i64;
                self.old = true;
            } else {
                let pb = self.pb(ave);
                let pa = self.pa(pb, wire);
                let u = self.rng.next_f64();
                if u <= pa {
                    self.count = 0;
                    self.count_bytes = 0;
                    if self.p.ecn
                        && pkt.seg.ecn.is_ect()
                        && (!self.p.use_mark_p || pb < self.p.mark_p)
                    {
                        pkt.seg.ecn = Ecn::Ce;
                        decision = Decision::Mark;
                    } else {
                        decision = Decision::EarlyDrop;
                    }
                }
            }
        } else {
            self.old = false;
        }
        // The physical limit, tested as ns-2 does: on the backlog before the arrival
        // (`q >= limit`), for each configured limit in its own unit.
        let full = self.fifo.len() as u64 >= self.fifo.limit_pkts()
            || self.fifo.bytes() >= self.fifo.limit_bytes();
        if full {
            decision = Decision::ForcedDrop;
        }
        if decision == Decision::ForcedDrop {
            self.count = 0;
            self.count_bytes = 0;
        }
        decision
    }

    /// A packet reached the link while it was idle since `idle_since` with an empty queue,
    /// and goes straight onto the wire: RED still runs its estimator on it, as ns-2's link
    /// passes every packet through the queue. It is never dropped or marked (the queue it
    /// finds is empty, below ns-2's `q > 1`), so it is not counted as a queue arrival.
    pub fn idle_arrival(&mut self, now: Instant, idle_since: Instant, ip_len: u32) {
        // A stand-in of the packet's size: the estimator reads only the size, and an idle
        // arrival is never marked (the queue it finds is empty).
        let mut p = Packet {
            id: 0,
            flow: 0,
            from_sender: true,
            hop: 0,
            ip_len,
            sent_at: Instant::ZERO,
            seg: tcplab_core::Segment::default(),
        };
        let wire = self.fifo.wire(&p);
        let d = self.arrive(now, Some(idle_since.min(now)), &mut p, wire);
        debug_assert_eq!(d, Decision::Keep);
    }
}

impl QueueDiscipline for Red {
    #[inline]
    fn enqueue(&mut self, now: Instant, mut pkt: Packet) -> Verdict {
        let wire = self.fifo.wire(&pkt);
        self.fifo.note_arrival(wire);
        match self.arrive(now, None, &mut pkt, wire) {
            Decision::Keep => {
                self.fifo.push(pkt, wire);
                Verdict::Queued
            }
            Decision::Mark => {
                self.stats.marks += 1;
                self.fifo.note_mark();
                self.fifo.push(pkt, wire);
                Verdict::Queued
            }
            Decision::EarlyDrop => {
                self.stats.early_drops += 1;
                self.fifo.note_drop(wire);
                Verdict::Dropped(pkt)
            }
            Decision::ForcedDrop => {
                self.stats.forced_drops += 1;
                self.fifo.note_drop(wire);
                Verdict::Dropped(pkt)
            }
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
    fn note_idle_arrival(&mut self, now: Instant, idle_since: Instant, ip_len: u32) {
        self.idle_arrival(now, idle_since, ip_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Discipline;
    use crate::queue::tests::{pkt, spec};

    /// Packet mode, 5/15 packets, max_p 0.1, the given weight; 10 Mbit/s of 500-byte
    /// packets: ptc = 2500 packets/s.
    fn params(q_w: f64, gentle: bool, wait: bool) -> RedParams {
        RedParams {
            th_min: 5.0,
            th_max: 15.0,
            max_p: 0.1,
            q_w,
            ptc: 2500.0,
            gentle,
            wait,
            ecn: false,
            use_mark_p: true,
            mark_p: 0.1,
            bytes: false,
            queue_in_bytes: false,
            mean_pktsize: 500,
        }
    }

    fn red(p: RedParams, limit: u64) -> Red {
        Red::with_params(
            &spec(Discipline::Red, Some(limit), None),
            0,
            p,
            Rng::from_seed(7),
        )
    }

    /// Puts `n` packets in the queue without running RED on them (counted as arrivals).
    fn preload(r: &mut Red, n: usize, ecn: Ecn) {
        for _ in 0..n {
            let mut p = pkt(0, 500);
            p.seg.ecn = ecn;
            r.fifo.note_arrival(500);
            r.fifo.push(p, 500);
        }
    }

    fn ect(id: u64) -> Packet {
        let mut p = pkt(id, 500);
        p.seg.ecn = Ecn::Ect0;
        p
    }

    #[test]
    fn ewma_per_arrival_and_idle_decay() {
        let w = 0.002;
        let mut r = red(params(w, false, true), 1000);
        let t = Instant::from_secs(1);
        // Arrivals to a busy link: ave <- (1-w) ave + w q, q the backlog found.
        let mut want = 0.0f64;
        for id in 0..10u64 {
            r.enqueue(t, pkt(id, 500));
            want = (1.0 - w) * want + w * id as f64;
            assert!((r.ave() - want).abs() < 1e-15, "{} {}", r.ave(), want);
        }
        for _ in 0..10 {
            r.dequeue(t);
        }
        // 2 ms idle at 2500 packets/s: m = int(5.0) = 5 empty arrivals, then this one.
        let since = Instant::from_nanos(t.as_nanos() + 10_000_000);
        let now = Instant::from_nanos(since.as_nanos() + 2_000_000);
        r.idle_arrival(now, since, pkt(99, 500).ip_len);
        let mut want_idle = want;
        for _ in 0..5 {
            want_idle *= 1.0 - w; // ns-2's loop: `while (--m >= 1)`
        }
        want_idle = want_idle * (1.0 - w) + w * 0.0;
        assert!(
            (r.ave() - want_idle).abs() < 1e-12 * want,
            "{} {}",
            r.ave(),
            want_idle
        );
        // A fraction of a packet time truncates to m = 0: one ordinary step.
        let before = r.ave();
        let now2 = Instant::from_nanos(now.as_nanos() + 399_999);
        r.idle_arrival(now2, now, pkt(100, 500).ip_len);
        assert_eq!(r.ave(), before * (1.0 - w));
        assert_eq!(r.stats().arrivals, 12);
        assert_eq!(
            r.counters().arrived_pkts,
            10,
            "idle arrivals are not queued"
        );
    }

    #[test]
    fn base_probability_between_thresholds_and_gentle() {
        let r = red(params(0.002, false, true), 100);
        assert_eq!(r.pb(5.0), 0.0);
        assert!((r.pb(10.0) - 0.05).abs() < 1e-15);
        assert!((r.pb(14.0) - 0.09).abs() < 1e-15);
        assert_eq!(r.pb(15.0), 1.0, "non-gentle: 1 from max_th on");
        let g = red(params(0.002, true, true), 100);
        assert!((g.pb(10.0) - 0.05).abs() < 1e-15);
        // From max_p at max_th to 1 at 2 max_th.
        assert!((g.pb(15.0) - 0.1).abs() < 1e-15);
        assert!((g.pb(22.5) - 0.55).abs() < 1e-12);
        assert_eq!(g.pb(30.0), 1.0);
        assert_eq!(g.pb(40.0), 1.0);
    }

    #[test]
    fn count_spacing_formulas() {
        let mut r = red(params(0.002, false, false), 100);
        let pb = 0.05;
        for count in [0i64, 1, 5, 10, 19] {
            r.count = count;
            let want = (pb / (1.0 - count as f64 * pb)).min(1.0);
            assert!((r.pa(pb, 500) - want).abs() < 1e-15, "count {count}");
        }
        r.count = 20;
        assert_eq!(r.pa(pb, 500), 1.0);
        let mut w = red(params(0.002, false, true), 100);
        for (count, want) in [
            (0i64, 0.0),
            (19, 0.0),
            (20, 0.05 / (2.0 - 1.0)),
            (30, 0.05 / (2.0 - 1.5)),
            (40, 1.0),
        ] {
            w.count = count;
            assert!((w.pa(pb, 500) - want).abs() < 1e-15, "wait, count {count}");
        }
    }

    /// Holds `ave` at `level` (a vanishing weight) with the backlog at `level` packets and
    /// returns the gaps, in arrivals, between successive early drops.
    fn drop_gaps(wait: bool, level: usize, n: u64) -> Vec<u64> {
        let mut r = red(params(1e-300, false, wait), 1000);
        let t = Instant::ZERO;
        preload(&mut r, level, Ecn::NotEct);
        r.ave = level as f64;
        let mut gaps = Vec::new();
        let mut last = 0;
        for id in 0..n {
            match r.enqueue(t, pkt(1000 + id, 500)) {
                Verdict::Dropped(_) => {
                    gaps.push(id - last);
                    last = id;
                }
                Verdict::Queued => {
                    r.dequeue(t);
                }
            }
        }
        assert_eq!(r.stats().forced_drops, 0);
        gaps.remove(0); // the first gap starts at the crossing, not at a drop
        gaps
    }

    #[test]
    fn count_spreads_drops_uniformly() {
        // pb = 0.05; count includes the arrival being tested (ns-2 increments it first),
        // so the n-th arrival after a drop goes with pa = pb / (1 - n pb): the gap is
        // uniform on 1..=19 (mean 10). With wait, pa = 0 while n pb < 1 and pb / (2 - n pb)
        // after: uniform on 20..=39 (mean 29.5).
        let g = drop_gaps(false, 10, 200_000);
        assert!(
            g.iter().all(|&x| (1..=19).contains(&x)),
            "{:?}",
            g.iter().max()
        );
        let mean = g.iter().sum::<u64>() as f64 / g.len() as f64;
        assert!((mean - 10.0).abs() < 0.15, "{mean}");
        let g = drop_gaps(true, 10, 200_000);
        assert!(
            g.iter().all(|&x| (20..=39).contains(&x)),
            "{:?} {:?}",
            g.iter().min(),
            g.iter().max()
        );
        let mean = g.iter().sum::<u64>() as f64 / g.len() as f64;
        assert!((mean - 29.5).abs() < 0.3, "{mean}");
    }

    #[test]
    fn no_early_drop_below_min_th_or_with_at_most_one_queued() {
        let mut r = red(params(1e-300, false, false), 1000);
        let t = Instant::ZERO;
        r.ave = 4.99;
        preload(&mut r, 2, Ecn::NotEct);
        for id in 0..1000 {
            assert!(matches!(r.enqueue(t, pkt(10 + id, 500)), Verdict::Queued));
            r.dequeue(t);
        }
        // ave far past max_th, but only one packet queued: ns-2's `qlen > 1`.
        let mut r = red(params(1e-300, false, false), 1000);
        r.ave = 14.0;
        preload(&mut r, 1, Ecn::NotEct);
        for id in 0..1000 {
            assert!(matches!(r.enqueue(t, pkt(10 + id, 500)), Verdict::Queued));
            r.dequeue(t);
        }
        assert!(!r.old, "q <= 1 leaves the dropping region");
    }

    #[test]
    fn ect_is_marked_below_max_th_and_dropped_above_or_when_full() {
        let mut p = params(1e-300, false, false);
        p.ecn = true;
        let mut r = red(p, 30);
        let t = Instant::ZERO;
        preload(&mut r, 12, Ecn::NotEct);
        r.ave = 12.0; // pb = 0.07 < mark_p
        let (mut marked, mut dropped_plain) = (0, 0);
        for id in 0..20_000u64 {
            let (a, b) = (ect(100 + 2 * id), pkt(101 + 2 * id, 500));
            match r.enqueue(t, a) {
                Verdict::Queued => {}
                v => panic!("ECT packet not kept: {v:?}"),
            }
            match r.enqueue(t, b) {
                Verdict::Dropped(_) => dropped_plain += 1,
                Verdict::Queued => {}
            }
            // Keep 12 packets queued; count the CE marks leaving.
            while r.len_packets() > 12 {
                let out = r.dequeue(t).unwrap();
                if out.seg.ecn == Ecn::Ce {
                    marked += 1;
                }
            }
        }
        assert!(marked > 0 && dropped_plain > 0);
        let s = r.stats();
        assert_eq!(s.early_drops, dropped_plain);
        assert_eq!(
            s.marks as i64 - marked,
            r.fifo.pkts.iter().filter(|p| p.seg.ecn == Ecn::Ce).count() as i64
        );
        assert_eq!(r.counters().marked_pkts, s.marks);
        r.counters().check(r.len_packets(), r.len_bytes()).unwrap();
        // Above max_th (non-gentle) pb = 1 >= mark_p: the ECT packet is dropped.
        r.ave = 16.0;
        assert!(r.old);
        assert!(matches!(r.enqueue(t, ect(1)), Verdict::Dropped(_)));
        // A full buffer drops an ECT packet too, even one chosen for marking.
        r.ave = 12.0;
        let n = 30 - r.len_packets();
        preload(&mut r, n, Ecn::NotEct);
        for id in 0..100 {
            assert!(matches!(r.enqueue(t, ect(3 + id)), Verdict::Dropped(_)));
        }
        assert_eq!(r.stats().forced_drops, 100);
        // Without `ecn` an ECT packet is dropped like any other.
        let mut q = red(params(1e-300, false, false), 1000);
        preload(&mut q, 12, Ecn::NotEct);
        q.ave = 12.0;
        let mut d = 0;
        for id in 0..2000 {
            if let Verdict::Dropped(_) = q.enqueue(t, ect(100 + id)) {
                d += 1;
            } else {
                q.dequeue(t);
            }
        }
        assert!(d > 0 && q.stats().marks == 0);
    }

    #[test]
    fn byte_mode_scales_by_size_and_counts_whole_mean_packets() {
        let mut p = params(0.002, false, false);
        p.bytes = true;
        let mut r = red(p, 100);
        r.count_bytes = 2499; // 4 whole 500-byte packets (integer division, as ns-2)
        let pb = 0.05;
        let base = pb / (1.0 - 4.0 * pb);
        assert!((r.pa(pb, 500) - base).abs() < 1e-15);
        assert!((r.pa(pb, 1000) - 2.0 * base).abs() < 1e-15);
        assert!((r.pa(pb, 40) - base * 40.0 / 500.0).abs() < 1e-15);
        // The average in bytes when queue_in_bytes: thresholds scale by mean_pktsize.
        let spec_red = crate::config::RedSpec {
            min_th: 5.0,
            max_th: 15.0,
            q_weight: 0.002,
            ..Default::default()
        };
        let rp = RedParams::resolve(&spec_red, 10e6, Duration::from_millis(20));
        assert_eq!((rp.th_min, rp.th_max), (2500.0, 7500.0));
        let mut q = Red::with_params(
            &spec(Discipline::Red, Some(100), None),
            0,
            rp,
            Rng::from_seed(1),
        );
        q.enqueue(Instant::ZERO, pkt(0, 1000));
        q.enqueue(Instant::ZERO, pkt(1, 1000));
        assert!((q.ave() - 0.002 * 1000.0).abs() < 1e-12);
    }

    #[test]
    fn ns2_automatic_parameters() {
        // 10 Mbit/s, 500-byte mean: ptc 2500/s. q_weight_ -1: RTT max(0.1, 3 (0.02 +
        // 0.0004)) = 0.1 s, w = 1 - exp(-1/(10 * 0.1 * 2500)).
        let d = crate::config::RedSpec::default();
        let p = RedParams::resolve(&d, 10e6, Duration::from_millis(20));
        assert_eq!(p.ptc, 2500.0);
        assert!((p.q_w - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
        // thresh_ 0: max(5, 0.005 * 2500 / 2) = 6.25 packets, maxthresh_ 3x; in bytes.
        assert_eq!((p.th_min, p.th_max), (6.25 * 500.0, 18.75 * 500.0));
        assert!(p.gentle && p.wait && p.bytes && p.queue_in_bytes && !p.ecn);
        let mut s = d.clone();
        s.q_weight = 0.0;
        let p = RedParams::resolve(&s, 10e6, Duration::ZERO);
        assert!((p.q_w - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
        s.q_weight = -2.0;
        let p = RedParams::resolve(&s, 10e6, Duration::ZERO);
        assert!((p.q_w - (1.0 - (-10.0f64 / 2500.0).exp())).abs() < 1e-18);
        // A long-delay link: RTT 3 (0.2 + 0.0004) s.
        s.q_weight = -1.0;
        let p = RedParams::resolve(&s, 10e6, Duration::from_millis(200));
        let rtt: f64 = 3.0 * (0.2 + 1.0 / 2500.0);
        assert!((p.q_w - (1.0 - (-1.0 / (10.0 * rtt * 2500.0)).exp())).abs() < 1e-18);
    }

    #[test]
    fn same_seed_same_decisions() {
        let run = |seed| {
            let mut r = Red::with_params(
                &spec(Discipline::Red, Some(40), None),
                0,
                params(0.02, true, true),
                Rng::from_seed(seed),
            );
            let mut rng = Rng::from_seed(3);
            let mut out = Vec::new();
            for id in 0..20_000u64 {
                let v = r.enqueue(Instant::ZERO, pkt(id, 500));
                out.push(matches!(v, Verdict::Dropped(_)));
                if rng.below(10) < 9 {
                    r.dequeue(Instant::ZERO);
                }
            }
            (out, r.stats())
        };
        let (a, sa) = run(5);
        assert_eq!(a, run(5).0);
        assert_ne!(a, run(6).0);
        assert!(sa.early_drops > 0, "{sa:?}");
    }
}
