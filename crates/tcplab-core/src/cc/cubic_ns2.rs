//! CUBIC v2.1 as ns-2.35's TCP-Linux runs it (`cubic_variant = "ns2"`): the `tcp_cubic.c`
//! of Linux 2.6.22.6 that ns-2.35 carries in `tcp/linux/src/tcp_cubic.c` ("TCP CUBIC:
//! Binary Increase Congestion control for TCP v2.1", `MODULE_VERSION("2.1")`), with the
//! glue of `tcp/tcp-linux.cc` and `tcp/linux/src/tcp_cong.c` around it (read at
//! github.com/hbatmit/ns2.35). Written from that reading, not copied. Everything is in
//! whole packets and integer arithmetic, with ns-2's `HZ` = 1000 (`tcp_time_stamp` is the
//! simulated time in milliseconds, truncated).
//!
//! The algorithm, in the module's terms:
//!
//! - Parameters: `beta` = 819/1024 (ssthresh = max(cwnd x 819 / 1024, 2), a decrease to
//!   0.8, where RFC 9438 and later kernels use 0.7), `bic_scale` = 41 (C = 41 x 10 / 1024
//!   = 0.4 per s^3 with the fixed 100 ms RTT the constants assume), `max_increment` = 16,
//!   `fast_convergence` and `tcp_friendliness` on.
//! - Epoch: the first congestion-avoidance ACK after a reduction records `epoch_start`;
//!   below the last maximum, K = cbrt(cube_factor x (last_max_cwnd - cwnd)) in units of
//!   1/1024 s (cube_factor = 2^40 / 410) and the origin is `last_max_cwnd`; otherwise K
//!   = 0 and the origin is cwnd ([`k_units`]).
//! - Target: t = (now + delay_min - epoch_start) in 1/1024 s, target = origin -+
//!   410 |t - K|^3 / 2^40 ([`bic_target`]); `cnt` (ACKs per one-packet increase) =
//!   cwnd / (target - cwnd), or 100 cwnd at or above the target; at or past K at least
//!   cwnd x 8000 / (160 delay_min) (at most 16 packets per 100 ms of `delay_min`); 50
//!   whenever no loss has been seen yet (`loss_cwnd` = 0, before the first loss and after
//!   every timeout); TCP-friendliness caps it at cwnd / (W_tcp - cwnd) where W_tcp grows
//!   by one every (cwnd x 23) >> 3 *ACKs*; finally scaled by the delayed-ACK ratio
//!   ([`ack_count`]). `cnt` is recomputed at most once per 1/32 s while cwnd is unchanged.
//! - Increase: congestion avoidance counts ACKs (`snd_cwnd_cnt`) and adds one packet when
//!   the count reaches `cnt`; slow start (cwnd <= ssthresh) adds one packet per ACK, however
//!   much it acknowledges (ns-2's `tcp_abc = 0`); with `abc_limit_pkts` = L >= 2, min(L,
//!   segments acknowledged) (L = 2 is Linux's `tcp_abc = 2`).
//!   Neither grows the window unless the flight filled it (`tcp_is_cwnd_limited`: in
//!   flight >= cwnd).
//! - `delay_min` is the smallest RTT in whole milliseconds (x 8) measured from timestamps
//!   (none without them), ignoring samples within 1 s of the epoch's start -- and, as the
//!   epoch start is 0 until the first one, during the first simulated second.
//! - Delayed-ACK ratio: packets per ACK x 16, averaged as ratio += pkts - ratio / 16.
//! - Fast retransmit (ns-2's `tcp_fastretrans_alert`): ssthresh as above, `last_max_cwnd`
//!   = cwnd, or cwnd x (1 + 0.8) / 2 below the previous one (fast convergence),
//!   `loss_cwnd` = cwnd, cwnd = ssthresh; at the end of recovery cwnd = max(cwnd,
//!   ssthresh).
//! - Timeout (ns-2's `enter_loss`): ssthresh as above, cwnd = 1, then the switch to
//!   `TCP_CA_Loss` runs `bictcp_reset`: `last_max_cwnd`, `loss_cwnd`, `delay_min` and the
//!   epoch are forgotten and the ratio is 2 again. The next congestion avoidance therefore
//!   starts a curve at the cwnd it finds, with `cnt` = 50: cwnd / 50 packets per RTT (2%
//!   per RTT) until the next fast retransmit -- slower than one packet per RTT below 50
//!   packets of window, where RFC 9438's Reno-friendly region gives at least 0.53.
//!
//! Departures, each small: the cube root is exact (floor), where Linux's `cubic_root`
//! (a table lookup and one Newton step) errs by 0.195% on average -- K by a few ms; the
//! cubic term is computed in 128 bits and saturates where Linux's 64-bit product wraps
//! (an epoch of more than about 340 s past K); the delayed-ACK ratio is updated on every
//! ACK our sender hands over outside fast recovery, including those between a timeout
//! and the end of its recovery, where ns-2 (in `TCP_CA_Loss`) leaves it alone; ns-2's
//! `tcp_moderate_cwnd` at the end of recovery and its `snd_cwnd_clamp` (the advertised
//! window) are left to our sender; the RTT for `delay_min` is the newest segment's
//! (Karn's rule applied) where ns-2 uses the echoed timestamp. With `hystart` set,
//! Linux 6.x's HyStart (a later kernel's, [`super::hystart`]) ends slow start.

use crate::cc::hystart::{self, HyStart};
use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::tcp::rtt::RttEstimator;
use crate::time::Instant;

/// `BICTCP_BETA_SCALE` and `beta`: multiplicative decrease to 819/1024.
pub const BETA_SCALE: u64 = 1024;
pub const BETA: u64 = 819;
/// `bic_scale`: C = bic_scale x 10 / 1024 per s^3 (with the assumed 100 ms RTT).
pub const BIC_SCALE: u64 = 41;
/// `max_increment`: at most 16 packets per 100 ms of `delay_min` past K.
pub const MAX_INCREMENT: u64 = 16;
/// ns-2's `HZ`: `tcp_time_stamp` ticks per second.
pub const HZ: u64 = 1000;
/// `BICTCP_HZ`: t and K are in units of 2^-10 s.
const BICTCP_HZ: u32 = 10;
/// `ACK_RATIO_SHIFT`: the delayed-ACK ratio is kept x 16.
const ACK_RATIO_SHIFT: u32 = 4;
/// `cube_rtt_scale` = bic_scale x 10 = 410.
pub const CUBE_RTT_SCALE: u64 = BIC_SCALE * 10;
/// `cube_factor` = 2^40 / (bic_scale x 10) = 2,681,735,677.
pub const CUBE_FACTOR: u64 = (1 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE * 10);
/// `beta_scale` = 8 (1024 + 819) / 3 / (1024 - 819) = 23 in integers: W_tcp grows by one
/// every (cwnd x 23) >> 3 ACKs (3 (1 + beta) / (1 - beta) ... 1 / alpha = 2.9 cwnd).
pub const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);

/// floor(cbrt(a)), exactly (binary search; cbrt(2^64) < 2^22).
pub fn cube_root(a: u64) -> u64 {
    let (mut lo, mut hi) = (0u64, 1u64 << 22);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if (mid as u128).pow(3) <= a as u128 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `bic_K` for a window `gap` = last_max_cwnd - cwnd packets below the last maximum, in
/// units of 2^-10 s: cbrt(cube_factor x gap) = 1024 cbrt(gap / 0.4004).
pub fn k_units(gap: u64) -> u64 {
    cube_root(CUBE_FACTOR.saturating_mul(gap))
}

/// `bic_target` at t (2^-10 s since the epoch's start, `delay_min` included): origin -+
/// (410 |t - K|^3) >> 40 packets, below the origin before K and above it after.
pub fn bic_target(origin: u64, k: u64, t: u64) -> u64 {
    let offs = t.abs_diff(k) as u128;
    let delta = (CUBE_RTT_SCALE as u128 * offs * offs * offs) >> (10 + 3 * BICTCP_HZ);
    let delta = delta.min(u64::MAX as u128) as u64;
    if t < k {
        origin.saturating_sub(delta)
    } else {
        origin.saturating_add(delta)
    }
}

/// The final scaling of `cnt` by the delayed-ACK ratio (x 16): `cnt` counts ACKs, so with
/// two packets per ACK half as many are needed. Never 0.
pub fn ack_count(cnt: u64, delayed_ack: u64) -> u64 {
    ((cnt << ACK_RATIO_SHIFT) / delayed_ack.max(1)).max(1)
}

#[derive(Clone, Debug)]
pub struct CubicNs2 {
    mss: u64,
    /// RFC 3465's L (`abc_limit_pkts`): 1 is ns-2's `tcp_abc = 0`, 2 or more `tcp_abc = 2`.
    abc_limit: u32,
    /// `snd_cwnd` and `snd_ssthresh` in packets (ssthresh u32::MAX: not set yet).
    cwnd: u32,
    ssthresh: u32,
    /// `snd_cwnd_cnt`: ACKs counted towards the next increase.
    cwnd_cnt: u32,
    // struct bictcp
    cnt: u32,
    last_max_cwnd: u32,
    loss_cwnd: u32,
    last_cwnd: u32,
    /// ms (`tcp_time_stamp`).
    last_time: u64,
    origin: u32,
    /// 2^-10 s.
    k: u32,
    /// ms x 8; 0 = none yet.
    delay_min: u32,
    /// ms; 0 = no epoch.
    epoch_start: u64,
    ack_cnt: u32,
    tcp_cwnd: u32,
    /// Packets per ACK x 16.
    delayed_ack: u32,
    hystart: Option<HyStart>,
}

impl CubicNs2 {
    pub fn new(mss: u32, initial_cwnd_bytes: u64, hystart: bool) -> Self {
        let mss = mss.max(1) as u64;
        let iw = (initial_cwnd_bytes / mss).clamp(1, u32::MAX as u64) as u32;
        let mut c = CubicNs2 {
            mss,
            abc_limit: 1,
            cwnd: iw,
            ssthresh: u32::MAX,
            cwnd_cnt: 0,
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin: 0,
            k: 0,
            delay_min: 0,
            epoch_start: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            delayed_ack: 0,
            hystart: hystart.then(HyStart::new),
        };
        c.reset();
        c
    }

    pub fn set_abc_limit(&mut self, l: u32) {
        self.abc_limit = l.max(1);
    }

    /// cwnd in packets, `cnt`, `last_max_cwnd`, `loss_cwnd`, K (2^-10 s), `delay_min`
    /// (ms x 8) and the delayed-ACK ratio (x 16): tests and tracing.
    pub fn state(&self) -> Ns2State {
        Ns2State {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            cnt: self.cnt,
            last_max_cwnd: self.last_max_cwnd,
            loss_cwnd: self.loss_cwnd,
            k: self.k,
            origin: self.origin,
            delay_min: self.delay_min,
            delayed_ack: self.delayed_ack,
            tcp_cwnd: self.tcp_cwnd,
        }
    }

    /// HyStart's state (tests and tracing); None when it is off.
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }

    /// `bictcp_reset`.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.origin = 0;
        self.k = 0;
        self.delay_min = 0;
        self.epoch_start = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
    }

    /// `bictcp_recalc_ssthresh`: ends the epoch, sets the maximum and returns ssthresh.
    fn recalc_ssthresh(&mut self) -> u32 {
        self.epoch_start = 0;
        let cwnd = self.cwnd as u64;
        self.last_max_cwnd = if self.cwnd < self.last_max_cwnd {
            // Fast convergence.
            (cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)) as u32
        } else {
            self.cwnd
        };
        self.loss_cwnd = self.cwnd;
        (cwnd * BETA / BETA_SCALE).max(2) as u32
    }

    /// `bictcp_update`: recomputes `cnt` for the current cwnd at `now_ms`.
    fn update(&mut self, now_ms: u64) {
        self.ack_cnt = self.ack_cnt.saturating_add(1);
        if self.last_cwnd == self.cwnd && now_ms.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        self.last_cwnd = self.cwnd;
        self.last_time = now_ms;
        let cwnd = self.cwnd as u64;
        if self.epoch_start == 0 {
            self.epoch_start = now_ms;
            self.ack_cnt = 1;
            self.tcp_cwnd = self.cwnd;
            if self.last_max_cwnd <= self.cwnd {
                self.k = 0;
                self.origin = self.cwnd;
            } else {
                let gap = (self.last_max_cwnd - self.cwnd) as u64;
                self.k = k_units(gap).min(u32::MAX as u64) as u32;
                self.origin = self.last_max_cwnd;
            }
        }
        let k = self.k as u64;
        let t = ((now_ms + (self.delay_min as u64 >> 3)).saturating_sub(self.epoch_start)
            << BICTCP_HZ)
            / HZ;
        let target = bic_target(self.origin as u64, k, t);
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if self.delay_min > 0 {
            // At most max_increment packets per 100 ms of delay_min, past K only.
            let min_cnt = cwnd * HZ * 8 / (10 * MAX_INCREMENT * self.delay_min as u64);
            if cnt < min_cnt && t >= k {
                cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            // "slow start and low utilization": no loss seen (or forgotten at a timeout).
            cnt = 50;
        }
        // TCP friendliness: W_tcp grows by one every (cwnd x 23) >> 3 ACKs.
        let delta = (cwnd * FRIENDLY_SCALE) >> 3;
        let acks = self.ack_cnt as u64;
        if delta > 0 && acks > delta {
            let n = (acks - 1) / delta;
            self.ack_cnt = (acks - n * delta) as u32;
            self.tcp_cwnd = self.tcp_cwnd.saturating_add(n as u32);
        }
        if self.tcp_cwnd > self.cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - self.cwnd) as u64;
            cnt = cnt.min(max_cnt);
        }
        self.cnt = ack_count(cnt, self.delayed_ack as u64).min(u32::MAX as u64) as u32;
    }
}

/// A snapshot of [`CubicNs2`]'s state.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ns2State {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub cnt: u32,
    pub last_max_cwnd: u32,
    pub loss_cwnd: u32,
    pub k: u32,
    pub origin: u32,
    pub delay_min: u32,
    pub delayed_ack: u32,
    pub tcp_cwnd: u32,
}

impl CongestionControl for CubicNs2 {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, now: Instant, ack: &AckSample, rtt: &RttEstimator) {
        let now_ms = now.as_nanos() / 1_000_000;
        if let Some(h) = self.hystart.as_mut() {
            // A later kernel's HyStart, run from `pkts_acked` as there (before cong_avoid).
            let cwnd_bytes = self.cwnd as u64 * self.mss;
            let info = hystart::AckInfo {
                now,
                rtt: ack.rtt,
                echo_sent_at: ack.echo_sent_at,
                cwnd_pkts: self.cwnd as u64,
                cwnd_bytes,
                srtt: rtt.srtt,
                in_slow_start: self.cwnd <= self.ssthresh,
                discard: self.epoch_start != 0 && now_ms.saturating_sub(self.epoch_start) < HZ,
            };
            if h.on_ack(&info).is_some() {
                self.ssthresh = self.cwnd;
            }
        }
        if ack.in_recovery || ack.bytes_acked == 0 {
            return;
        }
        let pkts = ack.bytes_acked.div_ceil(self.mss).min(u32::MAX as u64) as u32;
        // bictcp_acked: the delayed-ACK ratio, ratio += pkts - ratio / 16.
        self.delayed_ack = (self.delayed_ack as u64 + pkts as u64)
            .saturating_sub((self.delayed_ack >> ACK_RATIO_SHIFT) as u64)
            .min(u32::MAX as u64) as u32;
        // bictcp_cong_avoid. measure_delay: timestamps only, not within 1 s of the epoch.
        if ack.peer_tsval.is_some() && now_ms.saturating_sub(self.epoch_start) >= HZ {
            if let Some(r) = ack.rtt {
                let sent_ms = now.as_nanos().saturating_sub(r.as_nanos()) / 1_000_000;
                let delay = ((now_ms - sent_ms) << 3).clamp(1, u32::MAX as u64) as u32;
                if self.delay_min == 0 || self.delay_min > delay {
                    self.delay_min = delay;
                }
            }
        }
        // tcp_is_cwnd_limited: in flight (packets) >= cwnd.
        if ack.prior_in_flight.div_ceil(self.mss) < self.cwnd as u64 {
            return;
        }
        if self.cwnd <= self.ssthresh {
            // tcp_slow_start: snd_cwnd_cnt += cwnd (x 2 for an ACK of two segments with
            // tcp_abc = 2), one packet per cwnd counted.
            let segs = (ack.bytes_acked / self.mss).max(1);
            let mult = segs.min(self.abc_limit as u64);
            let mut cnt = self.cwnd_cnt as u64 + self.cwnd as u64 * mult;
            let mut cwnd = self.cwnd as u64;
            while cnt >= cwnd {
                cnt -= cwnd;
                cwnd += 1;
            }
            self.cwnd = cwnd.min(u32::MAX as u64) as u32;
            self.cwnd_cnt = cnt as u32;
        } else {
            self.update(now_ms);
            if self.cwnd_cnt >= self.cnt {
                self.cwnd = self.cwnd.saturating_add(1);
                self.cwnd_cnt = 0;
            } else {
                self.cwnd_cnt += 1;
            }
        }
    }

    fn on_congestion_event(
        &mut self,
        _now: Instant,
        event: CongestionEvent,
        _in_flight: u64,
        _rtt: &RttEstimator,
    ) {
        self.ssthresh = self.recalc_ssthresh();
        self.cwnd_cnt = 0;
        match event {
            CongestionEvent::FastRecovery => {
                self.cwnd = self.ssthresh;
            }
            CongestionEvent::Timeout => {
                self.cwnd = 1;
                // tcp_set_ca_state(TCP_CA_Loss) -> bictcp_state -> bictcp_reset.
                self.reset();
                if let Some(h) = self.hystart.as_mut() {
                    h.on_timeout();
                }
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: Instant) {
        self.cwnd = self.cwnd.max(self.ssthresh);
    }

    fn ns2_linux_recovery_exit(&mut self, _now: Instant, limit: u64) {
        // tcp-linux.cc `tcp_fastretrans_alert`: `if (snd_cwnd < snd_ssthresh) { snd_cwnd =
        // snd_ssthresh; tcp_moderate_cwnd(); }`, in packets.
        if self.ssthresh != u32::MAX && self.cwnd < self.ssthresh {
            let limit = (limit / self.mss).min(u32::MAX as u64) as u32;
            self.cwnd = self.ssthresh.min(limit).max(1);
        }
    }

    fn congestion_window(&self) -> u64 {
        self.cwnd.max(1) as u64 * self.mss
    }

    fn ssthresh(&self) -> u64 {
        if self.ssthresh == u32::MAX {
            u64::MAX
        } else {
            self.ssthresh as u64 * self.mss
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_modules() {
        assert_eq!(CUBE_FACTOR, 2_681_735_677);
        assert_eq!(CUBE_RTT_SCALE, 410);
        assert_eq!(FRIENDLY_SCALE, 23);
    }

    #[test]
    fn cube_root_is_the_exact_floor() {
        for a in [0u64, 1, 7, 8, 26, 27, 1_000_000, 999_999, u64::MAX] {
            let r = cube_root(a) as u128;
            assert!(
                r.pow(3) <= a as u128 && (r + 1).pow(3) > a as u128,
                "a = {a}"
            );
        }
        assert_eq!(cube_root(u64::MAX), 2_642_245);
    }

    #[test]
    fn k_target_and_cnt_follow_the_linux_formula_by_hand() {
        // Loss at 100 packets, epoch at cwnd = 80: K = floor(cbrt(2681735677 x 20)) =
        // floor(cbrt(53,634,713,540)) = 3771 (3771^3 = 53,625,283,011 and 3772^3 =
        // 53,668,955,648), i.e. 3.683 s = cbrt(20 / 0.4004).
        assert_eq!(k_units(20), 3771);
        assert!(3771u64.pow(3) <= CUBE_FACTOR * 20 && 3772u64.pow(3) > CUBE_FACTOR * 20);
        assert_eq!(k_units(21), 3833);
        assert_eq!(k_units(1), 1389);
        // 100 ms of delay_min into the epoch: t = (100 << 10) / 1000 = 102, |t - K| = 3669,
        // delta = 410 x 3669^3 >> 40 = 18 (18.44), target = 100 - 18 = 82.
        assert_eq!(bic_target(100, 3771, 102), 82);
        // At K the target is the origin; 1389 units (1.36 s) past K still +0 (410 x 1389^3
        // = 1.0987e12 < 2^40); 5120 units (5 s) past K +50 (410 x 5120^3 / 2^40 = 50.05);
        // 2 s past K = 0 +3 (3.2).
        assert_eq!(bic_target(100, 3771, 3771), 100);
        assert_eq!(bic_target(100, 3771, 3771 + 1389), 100);
        assert_eq!(bic_target(100, 3771, 3771 + 5120), 150);
        assert_eq!(bic_target(100, 0, 2048), 103);
        // cnt = cwnd / (target - cwnd) = 80 / 2 = 40 ACKs per packet; at 2 packets per ACK
        // (ratio 32 / 16) half as many: (40 << 4) / 32 = 20. Never 0.
        assert_eq!(ack_count(40, 32), 20);
        assert_eq!(ack_count(40, 31), 20); // 640 / 31 = 20.6
        assert_eq!(ack_count(0, 32), 1);
        assert_eq!(ack_count(50, 32), 25);
    }

    fn ack(pkts: u64, rtt_ms: u64) -> AckSample {
        AckSample {
            bytes_acked: pkts * 1000,
            rtt: Some(crate::time::Duration::from_millis(rtt_ms)),
            prior_in_flight: u64::MAX / 2,
            peer_tsval: Some(1),
            ..Default::default()
        }
    }

    #[test]
    fn a_loss_at_100_packets_then_the_epoch_by_hand() {
        let r = RttEstimator::default();
        let at = Instant::from_millis;
        let mut c = CubicNs2::new(1000, 100_000, false);
        // Fast retransmit at 100: ssthresh = 100 x 819 / 1024 = 79 (79.98), W_max = 100.
        c.on_congestion_event(at(9_000), CongestionEvent::FastRecovery, 100_000, &r);
        c.on_recovery_exit(at(9_100));
        let s = c.state();
        assert_eq!(
            (s.cwnd, s.ssthresh, s.last_max_cwnd, s.loss_cwnd),
            (79, 79, 100, 100)
        );
        assert_eq!(c.ssthresh(), 79_000);
        // An ACK of 2 packets keeps the ratio at 32 (32 + 2 - 32 / 16). cwnd <= ssthresh is
        // still slow start in 2.6.22: one more packet.
        c.on_ack(at(10_000), &ack(2, 100), &r);
        let s = c.state();
        assert_eq!((s.cwnd, s.delayed_ack, s.delay_min), (80, 32, 800));
        // The next ACK opens the epoch at cwnd 80: K = 3771, origin 100, t = 102, target 82,
        // cnt = (80 / 2) x 16 / 32 = 20 ACKs per packet.
        c.on_ack(at(10_000), &ack(2, 100), &r);
        let s = c.state();
        assert_eq!((s.k, s.origin, s.cnt, s.cwnd), (3771, 100, 20, 80));
        // cwnd + 1 on the ACK that finds 20 counted (ns-2's snd_cwnd_cnt >= cnt): 20 more.
        for _ in 0..19 {
            c.on_ack(at(10_010), &ack(2, 100), &r);
        }
        assert_eq!(c.state().cwnd, 80);
        c.on_ack(at(10_010), &ack(2, 100), &r);
        assert_eq!(c.state().cwnd, 81);
        // A second loss below W_max: fast convergence, W_max = 81 x 1843 / 2048 = 72 (72.9),
        // ssthresh = 81 x 819 / 1024 = 64 (64.8).
        c.on_congestion_event(at(11_000), CongestionEvent::FastRecovery, 81_000, &r);
        let s = c.state();
        assert_eq!(
            (s.cwnd, s.ssthresh, s.last_max_cwnd, s.loss_cwnd),
            (64, 64, 72, 81)
        );
    }

    #[test]
    fn a_timeout_forgets_the_maximum_and_the_loss_then_grows_by_50_acks() {
        let r = RttEstimator::default();
        let at = Instant::from_millis;
        let mut c = CubicNs2::new(1000, 100_000, false);
        c.on_ack(at(2_000), &ack(3, 100), &r);
        assert_eq!(c.state().delayed_ack, 33); // 32 + 3 - 2
        c.on_congestion_event(at(3_000), CongestionEvent::Timeout, 100_000, &r);
        let s = c.state();
        // ssthresh = 101 x 819 / 1024 = 80 (80.8); bictcp_reset: all forgotten, ratio 2.
        assert_eq!((s.cwnd, s.ssthresh), (1, 80));
        assert_eq!(
            (s.last_max_cwnd, s.loss_cwnd, s.delay_min, s.delayed_ack),
            (0, 0, 0, 32)
        );
        // Slow start: one packet per ACK up to 81 (cwnd <= ssthresh grows).
        for _ in 0..80 {
            c.on_ack(at(3_500), &ack(2, 100), &r);
        }
        assert_eq!(c.state().cwnd, 81);
        // Congestion avoidance with loss_cwnd = 0: cnt = 50, x 16 / 32 = 25 ACKs, so cwnd + 1
        // on the 26th ACK of the epoch (the first one counts 0).
        c.on_ack(at(4_000), &ack(2, 100), &r);
        let s = c.state();
        assert_eq!((s.cnt, s.k, s.origin, s.cwnd), (25, 0, 81, 81));
        for _ in 0..24 {
            c.on_ack(at(4_010), &ack(2, 100), &r);
        }
        assert_eq!(c.state().cwnd, 81);
        c.on_ack(at(4_010), &ack(2, 100), &r);
        assert_eq!(c.state().cwnd, 82);
    }

    #[test]
    fn tcp_friendliness_lifts_cwnd_off_the_cubic_plateau() {
        // A loss at 10 packets: ssthresh 7, one more packet of slow start (cwnd <= ssthresh),
        // the epoch at 8 with K = cbrt(cube_factor x 2) = 1750 (1.7 s); the target stays at
        // 10 while |t - K| < 1.36 s (0.4 (t - K)^3 < 1), so the cubic part alone holds cwnd
        // at 10 (cnt = 100 cwnd). W_tcp, one more every (10 x 23) >> 3 = 28 ACKs from 8 at
        // the epoch's start, passes 10 after about 60 ACKs, and then cnt = cwnd / (W_tcp -
        // cwnd).
        let r = RttEstimator::default();
        let mut c = CubicNs2::new(1000, 10_000, false);
        c.on_congestion_event(
            Instant::from_millis(9_000),
            CongestionEvent::FastRecovery,
            0,
            &r,
        );
        let mut t = 10_000;
        while t < 12_600 {
            c.on_ack(Instant::from_millis(t), &ack(2, 100), &r);
            t += 20;
        }
        let s = c.state();
        assert_eq!((s.last_max_cwnd, s.k, s.origin), (10, 1750, 10));
        assert!(s.tcp_cwnd > 10 && s.cwnd > 10, "{s:?}");
        // Still on the plateau: the cubic target alone would not have grown it.
        assert!(bic_target(10, 1750, ((t - 20 - 10_020 + 100) << 10) / 1000) <= 10);
    }

    #[test]
    fn no_growth_unless_the_flight_fills_cwnd() {
        let r = RttEstimator::default();
        let mut c = CubicNs2::new(1000, 10_000, false);
        let mut a = ack(2, 100);
        a.prior_in_flight = 9_000;
        c.on_ack(Instant::from_millis(5), &a, &r);
        assert_eq!(c.congestion_window(), 10_000);
        a.prior_in_flight = 9_001; // 10 packets once rounded up
        c.on_ack(Instant::from_millis(5), &a, &r);
        assert_eq!(c.congestion_window(), 11_000);
    }
}
