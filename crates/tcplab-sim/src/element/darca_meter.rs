//! DARCA's meter (Zeng & Yao, section 2, Fig. 2: "A meter is used to measure the RTT and
//! packet drop of a connection"): what a router at the control point can learn of one TCP
//! connection from the packets crossing it in both directions, without touching them.
//!
//! - **RTT** from TCP timestamps, in two halves (the passive technique of Kathleen Nichols'
//!   `pping`): a data packet's TSval passes the control point and comes back as the TSecr of
//!   an ACK (the part from the control point to the receiver and back), and an ACK's TSval
//!   comes back as the TSecr of a data packet (the part to the sender and back). Their sum is
//!   one end-to-end RTT sample; the meter keeps the latest of each half and the smallest sum.
//!   One sample of each half is in flight at a time, so the meter holds two numbers, not a
//!   table per packet. As in `pping`, a sample starts only at the first packet carrying a
//!   new TSval (packets sent in the same clock tick share one, and the echo of the first of
//!   them comes back first) and ends only at the exact echo of that value: a later echo
//!   means the receiver skipped it (the cumulative ACK after a retransmission fills a hole
//!   echoes the retransmission's newer TSval, which would otherwise time the retransmission
//!   instead of the packet) and the sample is abandoned. Connections without timestamps give
//!   no RTT (the element then uses a configured one).
//! - **The original drop rate** `p_orig`: holes, data packets that start above the highest
//!   sequence seen so far, are losses upstream of the control point (or reordering there);
//!   `p_orig` over a period = holes / data packets, a loss-event rate as Mathis's model
//!   takes it. Retransmissions (data starting below that sequence) are counted too, but
//!   they do not measure the path: a sender that times out resends a whole window for one
//!   loss (go-back-N), and those of packets the control point dropped itself are its own.
//!   Losses downstream of the control point leave no hole and are not seen; DARCA's control
//!   point is at the downstream edge, next to the receivers (section 4; its conclusion
//!   leaves a control point elsewhere on the path to future work).
//! - **Realised throughput** RBW: payload bytes the control point forwarded in the period.

use tcplab_core::{Instant, Segment, SeqNo};

/// One connection's meter.
#[derive(Clone, Debug, Default)]
pub struct Meter {
    /// The highest data sequence end seen (None before the first data packet).
    high: Option<SeqNo>,
    /// A data TSval on its way to the receiver, and when it passed.
    down: Option<(u32, Instant)>,
    /// An ACK TSval on its way to the sender, and when it passed.
    up: Option<(u32, Instant)>,
    /// The TSval of the previous packet each way (a sample starts at a new one).
    prev_data_tsval: Option<u32>,
    prev_ack_tsval: Option<u32>,
    /// Samples abandoned because the echo skipped their TSval.
    pub abandoned: u64,
    /// Latest half-RTT samples, nanoseconds.
    last_down: Option<u64>,
    last_up: Option<u64>,
    /// The smallest end-to-end sample.
    min_rtt: Option<u64>,
    /// The current period's counts.
    period: PeriodCounts,
    /// The largest payload seen: the connection's MSS as far as the model is concerned.
    pub mss: u32,
}

/// What one measurement period saw.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PeriodCounts {
    pub data_pkts: u64,
    /// Data starting above the highest sequence seen: a loss upstream.
    pub holes: u64,
    pub retransmissions: u64,
    /// Data packets the control point dropped itself.
    pub own_drops: u64,
    /// Payload bytes forwarded.
    pub bytes: u64,
    /// End-to-end RTT samples completed in the period and their sum (nanoseconds), for the
    /// period's mean RTT (Mathis's model takes the average round trip, queueing included).
    pub rtt_samples: u64,
    pub rtt_sum_ns: u64,
}

impl PeriodCounts {
    /// The path's own drop rate upstream of the control point: holes per data packet.
    pub fn p_orig(&self) -> f64 {
        if self.data_pkts == 0 {
            return 0.0;
        }
        self.holes as f64 / self.data_pkts as f64
    }

    /// The mean of the period's RTT samples, seconds.
    pub fn mean_rtt_s(&self) -> Option<f64> {
        (self.rtt_samples > 0).then(|| self.rtt_sum_ns as f64 / self.rtt_samples as f64 / 1e9)
    }

    /// Adds another period's (or another connection's) counts: a class's aggregate.
    pub fn add(&mut self, o: &PeriodCounts) {
        self.data_pkts += o.data_pkts;
        self.holes += o.holes;
        self.retransmissions += o.retransmissions;
        self.own_drops += o.own_drops;
        self.bytes += o.bytes;
        self.rtt_samples += o.rtt_samples;
        self.rtt_sum_ns += o.rtt_sum_ns;
    }
}

fn after(a: u32, b: u32) -> bool {
    a.wrapping_sub(b) as i32 >= 0
}

impl Meter {
    /// A data packet (sender to receiver) at the control point; `dropped`: the control point
    /// drops it (rate enforcement).
    pub fn on_data(&mut self, now: Instant, seg: &Segment, dropped: bool) {
        if seg.payload_len == 0 {
            return;
        }
        let end = seg.seq + seg.payload_len;
        self.period.data_pkts += 1;
        self.mss = self.mss.max(seg.payload_len);
        match self.high {
            Some(h) if seg.seq < h => self.period.retransmissions += 1,
            Some(h) if seg.seq > h => self.period.holes += 1,
            _ => {}
        }
        if self.high.is_none_or(|h| end > h) {
            self.high = Some(end);
        }
        if dropped {
            self.period.own_drops += 1;
            return;
        }
        self.period.bytes += seg.payload_len as u64;
        if let Some(ts) = seg.options.timestamps {
            if self.down.is_none() && self.prev_data_tsval != Some(ts.tsval) {
                self.down = Some((ts.tsval, now));
            }
            self.prev_data_tsval = Some(ts.tsval);
            // The sender echoes an ACK's TSval: the upstream half is complete.
            if let Some((v, t)) = self.up {
                self.last_up = self.echo(ts.tsecr, v, t, now, true).or(self.last_up);
            }
        }
    }

    /// An ACK (receiver to sender) at the control point.
    pub fn on_ack(&mut self, now: Instant, seg: &Segment) {
        if let Some(ts) = seg.options.timestamps {
            if let Some((v, t)) = self.down {
                self.last_down = self.echo(ts.tsecr, v, t, now, false).or(self.last_down);
            }
            if self.up.is_none() && self.prev_ack_tsval != Some(ts.tsval) {
                self.up = Some((ts.tsval, now));
            }
            self.prev_ack_tsval = Some(ts.tsval);
        }
    }

    /// An echo `tsecr` seen at `now` against the pending sample of TSval `v` started at `t`
    /// (`up`: the half towards the sender): the half's duration when it is `v`'s echo; the
    /// sample is dropped when the echo has passed `v` without it.
    fn echo(&mut self, tsecr: u32, v: u32, t: Instant, now: Instant, up: bool) -> Option<u64> {
        if tsecr == v {
            let d = now.saturating_since(t).as_nanos();
            self.clear(up);
            // `sum` reads the halves: store this one first.
            if up {
                self.last_up = Some(d);
            } else {
                self.last_down = Some(d);
            }
            self.sum();
            Some(d)
        } else {
            if after(tsecr, v) {
                self.clear(up);
                self.abandoned += 1;
            }
            None
        }
    }

    fn clear(&mut self, up: bool) {
        if up {
            self.up = None;
        } else {
            self.down = None;
        }
    }

    fn sum(&mut self) {
        if let (Some(d), Some(u)) = (self.last_down, self.last_up) {
            let r = d + u;
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.period.rtt_samples += 1;
            self.period.rtt_sum_ns += r;
        }
    }

    /// The latest end-to-end RTT sample (seconds), once both halves were measured.
    pub fn rtt_s(&self) -> Option<f64> {
        Some((self.last_down? + self.last_up?) as f64 / 1e9)
    }

    /// The smallest end-to-end RTT seen (seconds).
    pub fn min_rtt_s(&self) -> Option<f64> {
        self.min_rtt.map(|r| r as f64 / 1e9)
    }

    /// Ends a measurement period: its counts, and a fresh period.
    pub fn take_period(&mut self) -> PeriodCounts {
        std::mem::take(&mut self.period)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::{Flags, Timestamps};

    fn data(seq: u32, len: u32, ts: Option<(u32, u32)>) -> Segment {
        let mut s = Segment {
            seq: SeqNo(seq),
            flags: Flags::ACK,
            payload_len: len,
            ..Default::default()
        };
        s.options.timestamps = ts.map(|(tsval, tsecr)| Timestamps { tsval, tsecr });
        s
    }

    fn ack(tsval: u32, tsecr: u32) -> Segment {
        let mut s = Segment {
            flags: Flags::ACK,
            ..Default::default()
        };
        s.options.timestamps = Some(Timestamps { tsval, tsecr });
        s
    }

    fn ms(x: u64) -> Instant {
        Instant::from_millis(x)
    }

    #[test]
    fn rtt_is_the_sum_of_the_two_halves_seen_at_the_control_point() {
        // The control point sits 10 ms (each way) from the receiver and 40 ms from the
        // sender: the RTT is 100 ms.
        let mut m = Meter::default();
        m.on_data(ms(0), &data(1000, 1000, Some((500, 70))), false);
        assert_eq!(m.rtt_s(), None);
        // The receiver's ACK echoes TSval 500 20 ms later: the downstream half.
        m.on_ack(ms(20), &ack(71, 500));
        assert_eq!(m.rtt_s(), None, "only one half so far");
        // The sender's next data echoes the ACK's TSval 71 after 80 ms: the upstream half.
        m.on_data(ms(100), &data(2000, 1000, Some((508, 71))), false);
        assert_eq!(m.rtt_s(), Some(0.1));
        assert_eq!(m.min_rtt_s(), Some(0.1));
        // An older echo does not complete a newer sample.
        m.on_ack(ms(110), &ack(72, 499));
        m.on_data(ms(115), &data(3000, 1000, Some((509, 71))), false);
        assert_eq!(m.rtt_s(), Some(0.1));
    }

    #[test]
    fn p_orig_counts_holes_upstream_not_retransmissions() {
        let mut m = Meter::default();
        // The path upstream lost the segment at 2000: it never reaches the control point,
        // which drops the one at 4000 itself.
        for i in (0..10).filter(|&i| i != 2) {
            m.on_data(ms(i), &data(1000 * i as u32, 1000, None), i == 4);
        }
        // Both are resent; a sender that timed out resends 5000 and 6000 as well.
        for (t, seq) in [(20, 2000), (21, 4000), (22, 5000), (23, 6000)] {
            m.on_data(ms(t), &data(seq, 1000, None), false);
        }
        let p = m.take_period();
        assert_eq!(p.data_pkts, 13);
        assert_eq!(p.holes, 1);
        assert_eq!(p.retransmissions, 4);
        assert_eq!(p.own_drops, 1);
        assert!((p.p_orig() - 1.0 / 13.0).abs() < 1e-12);
        // Forwarded payload: 13 packets less the one we dropped.
        assert_eq!(p.bytes, 12_000);
        // A fresh period.
        assert_eq!(m.take_period(), PeriodCounts::default());
        assert_eq!(PeriodCounts::default().p_orig(), 0.0);
    }

    #[test]
    fn an_echo_that_skips_the_timed_tsval_abandons_the_sample() {
        let mut m = Meter::default();
        // Data of TSval 500 passes; the receiver had a hole, and the ACK that fills it
        // echoes the retransmission's newer TSval 530 only 1 ms later.
        m.on_data(ms(0), &data(1000, 1000, Some((500, 70))), false);
        m.on_ack(ms(1), &ack(71, 530));
        assert_eq!(m.last_down, None, "not a 1 ms round trip");
        assert_eq!(m.abandoned, 1);
        // The next new TSval is timed properly.
        m.on_data(ms(2), &data(2000, 1000, Some((502, 70))), false);
        m.on_ack(ms(22), &ack(72, 502));
        assert_eq!(m.last_down, Some(20_000_000));
    }

    #[test]
    fn a_sample_starts_at_the_first_packet_of_a_tsval() {
        let mut m = Meter::default();
        // Two packets share TSval 500 (one clock tick); only the first starts a sample.
        m.on_data(ms(0), &data(1000, 1000, Some((500, 70))), false);
        m.on_ack(ms(20), &ack(71, 500));
        m.on_data(ms(1), &data(2000, 1000, Some((500, 70))), false);
        // The echo of 500 again (the second packet's ACK) times nothing.
        m.on_ack(ms(21), &ack(72, 500));
        assert_eq!(m.last_down, Some(20_000_000));
    }

    #[test]
    fn sequence_numbers_wrap() {
        let mut m = Meter::default();
        m.on_data(ms(0), &data(u32::MAX - 999, 1000, None), false);
        m.on_data(ms(1), &data(0, 1000, None), false);
        m.on_data(ms(2), &data(1000, 1000, None), false);
        assert_eq!(m.take_period().retransmissions, 0);
        m.on_data(ms(3), &data(u32::MAX - 999, 1000, None), false);
        assert_eq!(m.take_period().retransmissions, 1);
    }
}
