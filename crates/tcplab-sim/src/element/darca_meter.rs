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
//!   table per packet. Connections without timestamps give no RTT (the element then uses a
//!   configured one).
//! - **The original drop rate** `p_orig`: data packets that start below the highest sequence
//!   already seen are retransmissions of losses elsewhere on the path (or reordered);
//!   retransmissions of packets the control point dropped itself are not the path's and are
//!   subtracted. `p_orig` over a period = such retransmissions / data packets.
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
    /// Latest half-RTT samples, nanoseconds.
    last_down: Option<u64>,
    last_up: Option<u64>,
    /// The smallest end-to-end sample.
    min_rtt: Option<u64>,
    /// The current period's counts.
    period: PeriodCounts,
}

/// What one measurement period saw.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PeriodCounts {
    pub data_pkts: u64,
    pub retransmissions: u64,
    /// Data packets the control point dropped itself.
    pub own_drops: u64,
    /// Payload bytes forwarded.
    pub bytes: u64,
}

impl PeriodCounts {
    /// The path's own drop rate: retransmissions not caused by our drops, per data packet.
    pub fn p_orig(&self) -> f64 {
        if self.data_pkts == 0 {
            return 0.0;
        }
        self.retransmissions.saturating_sub(self.own_drops) as f64 / self.data_pkts as f64
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
        match self.high {
            Some(h) if seg.seq < h => self.period.retransmissions += 1,
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
            if self.down.is_none() {
                self.down = Some((ts.tsval, now));
            }
            // The sender echoes an ACK's TSval: the upstream half is complete.
            if let Some((v, t)) = self.up {
                if after(ts.tsecr, v) {
                    self.last_up = Some(now.saturating_since(t).as_nanos());
                    self.up = None;
                    self.sum();
                }
            }
        }
    }

    /// An ACK (receiver to sender) at the control point.
    pub fn on_ack(&mut self, now: Instant, seg: &Segment) {
        if let Some(ts) = seg.options.timestamps {
            if let Some((v, t)) = self.down {
                if after(ts.tsecr, v) {
                    self.last_down = Some(now.saturating_since(t).as_nanos());
                    self.down = None;
                    self.sum();
                }
            }
            if self.up.is_none() {
                self.up = Some((ts.tsval, now));
            }
        }
    }

    fn sum(&mut self) {
        if let (Some(d), Some(u)) = (self.last_down, self.last_up) {
            let r = d + u;
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
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
    fn p_orig_counts_the_paths_retransmissions_not_ours() {
        let mut m = Meter::default();
        for i in 0..10 {
            m.on_data(ms(i), &data(1000 * i as u32, 1000, None), i == 4);
        }
        // The path lost the segment at 2000 and the sender resends it; ours at 4000 too.
        m.on_data(ms(20), &data(2000, 1000, None), false);
        m.on_data(ms(21), &data(4000, 1000, None), false);
        let p = m.take_period();
        assert_eq!(p.data_pkts, 12);
        assert_eq!(p.retransmissions, 2);
        assert_eq!(p.own_drops, 1);
        assert!((p.p_orig() - 1.0 / 12.0).abs() < 1e-12);
        // Forwarded payload: 12 packets less the one we dropped.
        assert_eq!(p.bytes, 11_000);
        // A fresh period.
        assert_eq!(m.take_period(), PeriodCounts::default());
        assert_eq!(PeriodCounts::default().p_orig(), 0.0);
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
