//! HyStart (Ha & Rhee, "Taming the Elephants: New TCP Slow Start", 2011) as Linux runs it
//! by default in CUBIC: `net/ipv4/tcp_cubic.c` of Linux 6.x (the HyStart code as Eric
//! Dumazet reworked it for 5.7; read at the v6.9+ file with `hystart_ack_delta_us`), with
//! its defaults `hystart = 1`, `hystart_detect = 3` (ACK train and delay),
//! `hystart_low_window = 16` and `hystart_ack_delta_us = 2000`.
//!
//! What it does, per ACK that carries an RTT sample (Linux `cubictcp_acked` and
//! `hystart_update`):
//!
//! - `delay_min` is the smallest RTT sample seen, in microseconds; samples within 1 s of the
//!   start of a congestion-avoidance epoch are discarded (right after a fast recovery).
//! - Only in slow start and while no exit point has been found: a new *round* starts once
//!   an ACK acknowledges data sent after the current round began (Linux: SND.UNA passes
//!   `end_seq`, SND.NXT at the round's start). Below 16 segments of cwnd nothing else
//!   happens.
//! - ACK train: ACKs no more than 2 ms apart extend the train; once a train reaches
//!   further than `(delay_min + cushion) / 2` from the round's start, slow start ends
//!   (`cushion` is Linux's allowance for TSO/GRO aggregation, `min(1 ms, 4 * 64 KiB /
//!   pacing_rate)` with the pacing rate Linux computes in slow start, 2 cwnd / SRTT; our
//!   CUBIC is not paced, so Linux halves the threshold as for `SK_PACING_NONE`).
//! - Delay: the smallest of the first 8 samples of a round is the round's RTT (later
//!   samples lower it too); after 8 samples, if it exceeds `delay_min + clamp(delay_min /
//!   8, 4 ms, 16 ms)`, slow start ends.
//! - Ending slow start sets ssthresh to the current cwnd (the caller does it); a
//!   retransmission timeout resets everything, `delay_min` included (Linux
//!   `cubictcp_state(TCP_CA_Loss)`).
//!
//! Differences from Linux, all from what an `AckSample` carries: rounds are told by send
//! times (the latest-sent segment an ACK newly acknowledges was sent at or after the
//! round's start) instead of sequence numbers, so a round may also end on a SACK; the
//! round after a timeout starts at the first ACK after it (Linux: at the timeout, ending
//! once everything outstanding then is acknowledged). Time is integer microseconds from
//! the integer nanosecond clock, in 64 bits (no 32-bit wrap-around).

use crate::time::{Duration, Instant};

/// `hystart_low_window`: no detection below this cwnd, in segments.
pub const LOW_WINDOW: u64 = 16;
/// `hystart_ack_delta_us`: ACKs at most this far apart form a train.
pub const ACK_DELTA_US: u64 = 2_000;
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
pub const MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`: the delay threshold's clamp.
pub const DELAY_MIN_US: u64 = 4_000;
pub const DELAY_MAX_US: u64 = 16_000;
/// Linux's cap on the ACK-train cushion (`USEC_PER_MSEC`).
const CUSHION_MAX_US: u64 = 1_000;
/// `sk_gso_max_size` (GSO_LEGACY_MAX_SIZE, 64 KiB) in the cushion.
const GSO_MAX_SIZE: u64 = 65_536;

/// Why slow start ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

/// What the caller knows at one ACK.
#[derive(Copy, Clone, Debug)]
pub struct AckInfo {
    pub now: Instant,
    /// The ACK's RTT sample (Karn's rule applied: none for retransmitted data).
    pub rtt: Option<Duration>,
    /// Send time of the latest-sent segment this ACK newly acknowledges.
    pub echo_sent_at: Option<Instant>,
    /// cwnd in whole segments.
    pub cwnd_pkts: u64,
    /// cwnd in bytes and SRTT, for Linux's slow-start pacing rate (the cushion).
    pub cwnd_bytes: u64,
    pub srtt: Option<Duration>,
    /// The controller is in slow start (its own test).
    pub in_slow_start: bool,
    /// Discard the sample for `delay_min` (within 1 s of an epoch's start).
    pub discard: bool,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    /// Smallest RTT sample, microseconds (0 = none yet).
    delay_min_us: u64,
    /// Start of the current round and time of the last ACK of the train, microseconds.
    round_start_us: u64,
    last_ack_us: u64,
    /// Smallest RTT of the current round, microseconds.
    curr_rtt_us: u64,
    sample_cnt: u8,
    /// A round starts at the next sample (connection start and after a timeout).
    round_pending: bool,
    found: Option<Exit>,
}

impl Default for HyStart {
    fn default() -> Self {
        Self::new()
    }
}

impl HyStart {
    pub fn new() -> Self {
        HyStart {
            delay_min_us: 0,
            round_start_us: 0,
            last_ack_us: 0,
            curr_rtt_us: u64::MAX,
            sample_cnt: 0,
            round_pending: true,
            found: None,
        }
    }

    /// Why slow start ended, if HyStart ended it.
    pub fn found(&self) -> Option<Exit> {
        self.found
    }

    /// `delay_min` in microseconds (0 before the first sample).
    pub fn delay_min_us(&self) -> u64 {
        self.delay_min_us
    }

    /// The delay test's threshold above `delay_min`: clamp(delay_min / 8, 4 ms, 16 ms).
    pub fn delay_threshold_us(delay_min_us: u64) -> u64 {
        (delay_min_us >> 3).clamp(DELAY_MIN_US, DELAY_MAX_US)
    }

    /// The ACK-train threshold (from the round's start): (delay_min + cushion) / 2.
    pub fn train_threshold_us(delay_min_us: u64, cwnd_bytes: u64, srtt: Option<Duration>) -> u64 {
        (delay_min_us + Self::cushion_us(cwnd_bytes, srtt)) >> 1
    }

    /// Linux `hystart_ack_delay`: min(1 ms, 4 x 64 KiB / pacing rate), the slow-start pacing
    /// rate being 2 x cwnd / SRTT (`tcp_pacing_ss_ratio` = 200%). No SRTT: Linux's rate is
    /// then its unscaled (very large) value, which makes the cushion 0.
    fn cushion_us(cwnd_bytes: u64, srtt: Option<Duration>) -> u64 {
        let srtt_ns = match srtt {
            Some(s) if s.as_nanos() > 0 => s.as_nanos() as u128,
            _ => return 0,
        };
        // rate in bytes/s = 2 * cwnd_bytes * 1e9 / srtt_ns
        let rate = 2 * cwnd_bytes as u128 * 1_000_000_000 / srtt_ns;
        if rate == 0 {
            return CUSHION_MAX_US;
        }
        let c = GSO_MAX_SIZE as u128 * 4 * 1_000_000 / rate;
        (c as u64).min(CUSHION_MAX_US)
    }

    fn reset_round(&mut self, now_us: u64) {
        self.round_start_us = now_us;
        self.last_ack_us = now_us;
        self.curr_rtt_us = u64::MAX;
        self.sample_cnt = 0;
        self.round_pending = false;
    }

    /// Linux `cubictcp_acked`: returns `Some` on the ACK that ends slow start (the caller
    /// then sets ssthresh = cwnd).
    pub fn on_ack(&mut self, a: &AckInfo) -> Option<Exit> {
        let rtt = a.rtt?;
        if a.discard {
            return None;
        }
        let delay = rtt.as_micros().max(1);
        if self.delay_min_us == 0 || self.delay_min_us > delay {
            self.delay_min_us = delay;
        }
        if self.found.is_some() || !a.in_slow_start {
            return None;
        }
        let now_us = a.now.as_nanos() / 1_000;
        // A new round once data sent since this one began is acknowledged.
        let round_over = a
            .echo_sent_at
            .is_some_and(|t| t.as_nanos() / 1_000 >= self.round_start_us);
        if self.round_pending || round_over {
            self.reset_round(now_us);
        }
        if a.cwnd_pkts < LOW_WINDOW {
            return None;
        }
        // ACK train.
        if now_us.saturating_sub(self.last_ack_us) <= ACK_DELTA_US {
            self.last_ack_us = now_us;
            let threshold = Self::train_threshold_us(self.delay_min_us, a.cwnd_bytes, a.srtt);
            if now_us.saturating_sub(self.round_start_us) > threshold {
                self.found = Some(Exit::AckTrain);
            }
        }
        // Delay increase.
        self.curr_rtt_us = self.curr_rtt_us.min(delay);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt_us > self.delay_min_us + Self::delay_threshold_us(self.delay_min_us)
        {
            self.found = Some(Exit::Delay);
        }
        self.found
    }

    /// A retransmission timeout (Linux `cubictcp_state(TCP_CA_Loss)`: `bictcp_reset` and
    /// `bictcp_hystart_reset`): forget everything, `delay_min` and the exit included.
    pub fn on_timeout(&mut self) {
        *self = HyStart::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_linux() {
        // clamp(delay_min >> 3, 4 ms, 16 ms): 20 ms -> 4 ms, 64 ms -> 8 ms, 200 ms -> 16 ms.
        assert_eq!(HyStart::delay_threshold_us(20_000), 4_000);
        assert_eq!(HyStart::delay_threshold_us(64_000), 8_000);
        assert_eq!(HyStart::delay_threshold_us(200_000), 16_000);
        // Cushion: 2 x 100 x 1448 B per 40 ms = 7.24 MB/s; 4 x 65536 B at that rate is
        // 36.2 ms, capped at 1 ms. At 2 x 100,000 x 1448 B per 40 ms (7.24 GB/s): 36 us.
        let srtt = Some(Duration::from_millis(40));
        assert_eq!(HyStart::train_threshold_us(40_000, 144_800, srtt), 20_500);
        assert_eq!(
            HyStart::train_threshold_us(40_000, 144_800_000, srtt),
            (40_000 + 36) / 2
        );
        assert_eq!(HyStart::train_threshold_us(40_000, 144_800, None), 20_000);
    }
}
