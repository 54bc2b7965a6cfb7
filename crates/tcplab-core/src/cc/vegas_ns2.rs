//! TCP Vegas as ns-2.35's TCP-Linux runs it (`vegas_variant = "ns2"`): the `tcp_vegas.c`
//! of Linux 2.6.22 that ns-2.35 carries in `tcp/linux/src/tcp_vegas.c`, with the glue of
//! `tcp/tcp-linux.cc` (`LinuxTcpAgent::recv`) and `tcp/linux/src/tcp_cong.c`
//! (`tcp_slow_start`, `tcp_reno_cong_avoid`) around it. Written from a reading of the
//! ns-allinone-2.35 tree, not copied. Whole packets and integer arithmetic, RTTs in
//! microseconds as the module keeps them.
//!
//! Where it differs from the later kernels' Vegas that `cc = "vegas"` runs ([`super::vegas`]):
//!
//! - Diff is judged on the data the last round actually carried, `old_wnd` = (beg_snd_nxt -
//!   beg_snd_una) / mss, not on cwnd, as a fixed-point number with one bit after the point:
//!   diff = 2 old_wnd - 2 old_wnd x BaseRTT / RTT (the queue in half segments, measured
//!   against the round's RTT, not BaseRTT); alpha, beta and gamma are 2 << 1, 4 << 1 and
//!   1 << 1 (`V_PARAM_SHIFT` = 1).
//! - Leaving slow start (diff > gamma) sets ssthresh to 2 packets and cwnd to min(cwnd,
//!   target + 1) with target = old_wnd x BaseRTT / RTT, and the same ACK then still runs
//!   `tcp_slow_start` (+1 packet).
//! - Congestion avoidance moves cwnd by one packet towards the previous round's cwnd +-1
//!   (`beg_snd_cwnd`), and leaves ssthresh alone.
//! - `beg_snd_una` and `beg_snd_cwnd` start with what ns-2's heap left there, not 0 (see
//!   below), and the module's `u32` is a 64-bit `unsigned long`: the first once-per-RTT
//!   judgment always takes the slow-start exit (ssthresh 2, cwnd kept, then +1).
//! - The module is initialised on the first ACK (`initialized_` in `recv`), and judges
//!   only in `TCP_CA_Open`: a fast recovery or a timeout (`TCP_CA_Loss`, until everything
//!   outstanding at the timeout is acknowledged) disables it, and the return to Open
//!   starts a new round with fresh counters (`tcp_vegas_state`); meanwhile, and in rounds
//!   with 2 samples or fewer, `tcp_reno_cong_avoid` runs.
//! - Slow start is `tcp_slow_start` with ns-2's `tcp_abc` = 1: +1 packet per ACK that
//!   acknowledged at least one segment's bytes (`bytes_acked`, reset at each increase);
//!   Reno's avoidance adds one packet per window of bytes acknowledged. Reno's growth
//!   needs a full window in flight (`tcp_is_cwnd_limited`); Vegas's own does not.
//!
//! The first judgment. `tcp_vegas_init` (tcp_vegas.c:97-103, with `vegas_enable` 74-87)
//! sets `baseRTT`, `doing_vegas_now`, `beg_snd_nxt`, `cntRTT` and `minRTT` but not
//! `beg_snd_una` nor `beg_snd_cwnd`: the kernel relies on the socket's private area
//! (`icsk_ca_priv`) being zeroed at allocation. ns-2's `LinuxTcpAgent` holds it as a plain
//! member (`u32 icsk_ca_priv[16]`, tcp/linux/ns-linux-util.h:334) that neither its
//! constructor (tcp/tcp-linux.cc:101-115) nor `load_to_linux_once` with
//! `install_congestion_control` (728-767) nor `reset` (131-144) clears, and `recv` calls
//! `init` on the first ACK (tcp-linux.cc:369-373).
//! So the first `old_wnd = (beg_snd_nxt - beg_snd_una) / mss_cache` (tcp_vegas.c:208)
//! subtracts heap garbage, in ns-linux-util.h:39's `#define __u32 unsigned long` (64 bits):
//! it wraps to about 2^64 / mss, `old_wnd * baseRTT << 1` (257) overflows, and diff (268)
//! comes out far above gamma (272): `snd_ssthresh = 2` (276), `snd_cwnd = min(snd_cwnd,
//! target / 2 + 1)` keeps cwnd (target is about 10^13), and `tcp_slow_start` adds one. With
//! the kernel's zeroed area the same round (2 segments, RTT = BaseRTT) gives diff 0 and slow
//! start goes on to the first queue. Measured on the stock ns-2.35 binary (Debian's
//! `/usr/bin/ns`) with gdb at `LinuxTcpAgent::recv` (`this` + 0x918..0x948 is `struct vegas`):
//! `beg_snd_una` = 0x617274206d770a5f and `beg_snd_cwnd` = 0x2420746e6569736e (the bytes
//! "_\nwm tra" and "nsient $" of a freed Tcl string from ns-2's own library), the same on
//! every ch5.tcl point tried (9 slow-uplink, 3 concurrent); with glibc's `MALLOC_PERTURB_=255`
//! (fresh allocations zeroed) ns-2 leaves slow start at 1.925 s instead of 1.205 s on
//! `ch5.tcl slow vegas 1 200 8000 1`. [`VegasNs2::new`] starts from these values;
//! [`VegasNs2::with_zeroed_private_area`] from the kernel's zeros.
//!
//! Losses: `tcp_reno_ssthresh` (max(cwnd / 2, 2)); a fast recovery leaves cwnd at ssthresh
//! (ns-2's `recovery = "ns2_linux"` sets it at once), a timeout at 1 packet (`enter_loss`).
//! Departures: the RTT sample is the one our sender takes for congestion control
//! (`rtt_source`; ns-2's is the send time of the highest segment acknowledged, which
//! `rtt_source = "ns2_linux"` gives); after a timeout ns-2 resends from snd_una and its
//! `snd_nxt` falls back, where ours counts new data only (snd_max) for the round's end.

use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::tcp::rtt::RttEstimator;
use crate::time::Instant;

/// `V_PARAM_SHIFT`: alpha, beta, gamma and diff carry one bit after the point.
const V_PARAM_SHIFT: u32 = 1;
const ALPHA: u64 = 2 << V_PARAM_SHIFT;
const BETA: u64 = 4 << V_PARAM_SHIFT;
const GAMMA: u64 = 1 << V_PARAM_SHIFT;
/// The module's "no sample yet" RTT (`0x7fffffff` microseconds).
const NO_RTT: u64 = 0x7fff_ffff;
/// `beg_snd_una` and `beg_snd_cwnd` before the first judgment in the stock ns-2.35 binary:
/// heap bytes `tcp_vegas_init` leaves in place (module docs, "The first judgment").
const NS2_HEAP_BEG_SND_UNA: u64 = 0x6172_7420_6d77_0a5f;
const NS2_HEAP_BEG_SND_CWND: u64 = 0x2420_746e_6569_736e;

#[derive(Clone, Debug)]
pub struct VegasNs2 {
    mss: u64,
    /// `snd_cwnd`, `snd_ssthresh` (packets).
    cwnd: u64,
    ssthresh: u64,
    /// `snd_cwnd_cnt` (Reno avoidance without ABC is not used: ns-2 runs `tcp_abc` = 1).
    bytes_acked: u64,
    /// The module has been initialised (first ACK).
    initialized: bool,
    /// `doing_vegas_now`: the connection is in `TCP_CA_Open`.
    doing: bool,
    base_rtt_us: u64,
    min_rtt_us: u64,
    cnt_rtt: u32,
    beg_snd_una: u64,
    beg_snd_nxt: u64,
    beg_snd_cwnd: u64,
    /// New bytes sent (`snd_nxt`, as snd_max) and cumulatively acknowledged (`snd_una`).
    sent: u64,
    acked: u64,
    /// `TCP_CA_Loss` after a timeout, until everything then outstanding is acknowledged.
    loss_until: Option<u64>,
    /// `TCP_CA_Recovery` (the sender's fast recovery).
    in_recovery: bool,
}

impl VegasNs2 {
    /// ns-2.35's module as the stock binary runs it: the first judgment sees the heap's
    /// `beg_snd_una` and `beg_snd_cwnd` (module docs, "The first judgment").
    pub fn new(mss: u32, initial_cwnd_bytes: u64) -> Self {
        let mut v = Self::with_zeroed_private_area(mss, initial_cwnd_bytes);
        v.beg_snd_una = NS2_HEAP_BEG_SND_UNA;
        v.beg_snd_cwnd = NS2_HEAP_BEG_SND_CWND;
        v
    }

    /// The same module with the kernel's zeroed private area (`beg_snd_una` = `beg_snd_cwnd`
    /// = 0): the first round counts everything sent before the module was initialised.
    pub fn with_zeroed_private_area(mss: u32, initial_cwnd_bytes: u64) -> Self {
        let mss = mss as u64;
        VegasNs2 {
            mss,
            cwnd: (initial_cwnd_bytes / mss).max(1),
            // ns-2 starts ssthresh at `snd_cwnd_clamp` (the agent's `window_`): no bound
            // the receiver's window does not already impose.
            ssthresh: u64::MAX / 2,
            bytes_acked: 0,
            initialized: false,
            doing: false,
            base_rtt_us: NO_RTT,
            min_rtt_us: NO_RTT,
            cnt_rtt: 0,
            beg_snd_una: 0,
            beg_snd_nxt: 0,
            beg_snd_cwnd: 0,
            sent: 0,
            acked: 0,
            loss_until: None,
            in_recovery: false,
        }
    }

    /// `vegas_enable`: begin a round at the next send.
    fn enable(&mut self) {
        self.doing = true;
        self.beg_snd_nxt = self.sent;
        self.cnt_rtt = 0;
        self.min_rtt_us = NO_RTT;
    }

    /// `tcp_slow_start` with `tcp_abc` = 1.
    fn slow_start(&mut self) {
        if self.bytes_acked < self.mss {
            return;
        }
        self.bytes_acked = 0;
        self.cwnd += 1;
    }

    /// `tcp_reno_cong_avoid` with `tcp_abc` = 1.
    fn reno_cong_avoid(&mut self, ack: &AckSample) {
        if ack.prior_in_flight < self.cwnd * self.mss {
            return; // !tcp_is_cwnd_limited
        }
        if self.cwnd <= self.ssthresh {
            self.slow_start();
        } else if self.bytes_acked >= self.cwnd * self.mss {
            self.bytes_acked -= self.cwnd * self.mss;
            self.cwnd += 1;
        }
    }

    /// `tcp_vegas_cong_avoid` on an ACK of new data (`ack` = snd_una in bytes).
    fn cong_avoid(&mut self, ack: &AckSample) {
        if !self.doing {
            return self.reno_cong_avoid(ack);
        }
        if self.acked > self.beg_snd_nxt {
            // The once-per-RTT adjustment, in ns-2's 64-bit `u32` (`unsigned long`) with its
            // wrap-around: it matters only while `beg_snd_una` and `beg_snd_cwnd` still hold
            // the heap's values (tcp_vegas.c:208, 257-258, 268, 302-312).
            let old_wnd = self.beg_snd_nxt.wrapping_sub(self.beg_snd_una) / self.mss;
            let old_snd_cwnd = self.beg_snd_cwnd;
            self.beg_snd_una = self.beg_snd_nxt;
            self.beg_snd_nxt = self.sent;
            self.beg_snd_cwnd = self.cwnd;
            if self.cnt_rtt <= 2 {
                self.reno_cong_avoid(ack);
            } else {
                let rtt = self.min_rtt_us.max(1);
                let target = (old_wnd.wrapping_mul(self.base_rtt_us) << V_PARAM_SHIFT) / rtt;
                // With real edges diff is never negative (BaseRTT is the minimum RTT, so
                // target <= 2 old_wnd); with the heap's `beg_snd_una` it may wrap, as in ns-2.
                let diff = (old_wnd << V_PARAM_SHIFT).wrapping_sub(target);
                if self.cwnd <= self.ssthresh {
                    if diff > GAMMA {
                        self.ssthresh = 2;
                        self.cwnd = self.cwnd.min((target >> V_PARAM_SHIFT) + 1);
                    }
                    self.slow_start();
                } else {
                    let next = if diff > BETA {
                        old_snd_cwnd.wrapping_sub(1)
                    } else if diff < ALPHA {
                        old_snd_cwnd.wrapping_add(1)
                    } else {
                        old_snd_cwnd
                    };
                    if next > self.cwnd {
                        self.cwnd += 1;
                    } else if next < self.cwnd {
                        self.cwnd -= 1;
                    }
                }
                self.cwnd = self.cwnd.max(2);
            }
            self.cnt_rtt = 0;
            self.min_rtt_us = NO_RTT;
        } else if self.cwnd <= self.ssthresh {
            self.slow_start();
        }
    }
}

impl CongestionControl for VegasNs2 {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_packet_sent(&mut self, _now: Instant, bytes: u32, _in_flight: u64, retransmit: bool) {
        if !retransmit {
            self.sent += bytes as u64;
        }
    }

    fn on_ack(&mut self, _now: Instant, ack: &AckSample, _rtt: &RttEstimator) {
        if ack.bytes_acked == 0 {
            return; // a duplicate: neither pkts_acked nor cong_avoid runs
        }
        self.acked += ack.bytes_acked;
        self.bytes_acked += ack.bytes_acked;
        if !self.initialized {
            // `recv`: `init` (tcp_vegas_init: BaseRTT unknown, vegas_enable) on the first ACK.
            self.initialized = true;
            self.enable();
        }
        if let Some(r) = ack.rtt {
            // `tcp_vegas_pkts_acked`: "Never allow zero rtt or baseRTT".
            let vrtt = r.as_nanos() / 1000 + 1;
            self.base_rtt_us = self.base_rtt_us.min(vrtt);
            self.min_rtt_us = self.min_rtt_us.min(vrtt);
            self.cnt_rtt += 1;
        }
        if self.in_recovery && !ack.in_recovery {
            // Recovery -> Open (`tcp_vegas_state`).
            self.in_recovery = false;
            self.enable();
        }
        if let Some(high) = self.loss_until {
            if self.acked >= high {
                // Loss -> Open.
                self.loss_until = None;
                self.enable();
            }
        }
        if ack.in_recovery {
            // `tcp_may_raise_cwnd` is false in TCP_CA_Recovery.
            self.in_recovery = true;
            self.doing = false;
            return;
        }
        self.cong_avoid(ack);
    }

    fn on_congestion_event(
        &mut self,
        _now: Instant,
        event: CongestionEvent,
        _in_flight: u64,
        _rtt: &RttEstimator,
    ) {
        // `tcp_reno_ssthresh`, then the state change disables Vegas.
        self.ssthresh = (self.cwnd / 2).max(2);
        self.doing = false;
        match event {
            CongestionEvent::FastRecovery => {
                self.cwnd = self.ssthresh;
                self.in_recovery = true;
            }
            CongestionEvent::Timeout => {
                self.cwnd = 1;
                self.bytes_acked = 0;
                self.in_recovery = false;
                self.loss_until = Some(self.sent);
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: Instant) {
        if self.in_recovery {
            self.in_recovery = false;
            self.enable();
        }
    }

    fn ns2_linux_recovery_exit(&mut self, now: Instant, limit: u64) {
        // tcp-linux.cc: `if (snd_cwnd < snd_ssthresh) { snd_cwnd = snd_ssthresh;
        // tcp_moderate_cwnd(); }`, then the return to Open.
        if self.cwnd < self.ssthresh {
            self.cwnd = self.ssthresh.min(limit / self.mss).max(1);
        }
        self.on_recovery_exit(now);
    }

    fn congestion_window(&self) -> u64 {
        self.cwnd * self.mss
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh.saturating_mul(self.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;

    fn ack(bytes: u64, rtt_ms: u64, in_flight: u64) -> AckSample {
        AckSample {
            bytes_acked: bytes,
            rtt: Some(Duration::from_millis(rtt_ms)),
            prior_in_flight: in_flight,
            ..Default::default()
        }
    }

    /// Two rounds at 100 ms then a round whose RTT says 2 of its 5 packets queued: with
    /// old_wnd = 5, BaseRTT 100 ms and RTT 167 ms, target = 2 x 5 x 100001 / 167001 = 5
    /// (half segments, floor), diff = 10 - 5 = 5 > gamma = 2: slow start ends with
    /// ssthresh 2 and cwnd min(cwnd, 5 / 2 + 1 = 3), then +1 from `tcp_slow_start`.
    #[test]
    fn leaves_slow_start_on_the_rounds_queue_with_ssthresh_two() {
        let mss = 1000;
        let mut v = VegasNs2::with_zeroed_private_area(mss, 2 * mss as u64);
        let t = Instant::ZERO;
        let rtt = RttEstimator::default();
        // Round 0: 2 packets out before the first ACK initialises the module.
        v.on_packet_sent(t, 1000, 1000, false);
        v.on_packet_sent(t, 1000, 2000, false);
        v.on_ack(t, &ack(1000, 100, 2000), &rtt); // init: beg_snd_nxt = 2000; cwnd 3
        v.on_packet_sent(t, 1000, 2000, false);
        v.on_packet_sent(t, 1000, 3000, false);
        v.on_ack(t, &ack(1000, 100, 3000), &rtt); // cwnd 4
        for _ in 0..3 {
            v.on_packet_sent(t, 1000, 4000, false);
        }
        // acked 3000 > beg_snd_nxt 2000: the round (old_wnd 2) ends with 3 samples and no
        // queue (diff 0): slow start goes on.
        v.on_ack(t, &ack(1000, 100, 4000), &rtt);
        assert_eq!(
            (v.cwnd, v.ssthresh > 1000, v.beg_snd_nxt, v.beg_snd_una),
            (5, true, 7000, 2000)
        );
        // Round of 5 packets (2000..7000): three samples at 167 ms.
        for _ in 0..3 {
            v.on_ack(t, &ack(1000, 167, 5000), &rtt);
        }
        assert_eq!(v.cwnd, 8);
        v.on_ack(t, &ack(1000, 167, 5000), &rtt); // acked 7000: not past beg_snd_nxt
        v.on_ack(t, &ack(1000, 167, 5000), &rtt); // acked 8000 > 7000: judge old_wnd = 5
        assert_eq!((v.ssthresh, v.cwnd), (2, 4));
    }

    /// ns-2's first round (ch5.tcl slow vegas 1 200 8000): 2 segments out, the first ACK
    /// initialises the module, and the third ACK ends the round with 3 samples and no queue
    /// (every RTT 101.6 ms). With the heap's `beg_snd_una` old_wnd wraps and diff overflows
    /// past gamma: ssthresh 2 and cwnd 4 kept, then +1 (ns-2's trace: `ssthresh_ 2` at
    /// 1.20474 s, cwnd 4 -> 5); with zeroed edges diff is 0 and slow start goes on.
    #[test]
    fn first_judgment_leaves_slow_start_on_ns2s_heap_edges() {
        let mss = 1460;
        let first_round = |mut v: VegasNs2| {
            let t = Instant::ZERO;
            let rtt = RttEstimator::default();
            let a = |v: &mut VegasNs2, inflight: u64| {
                v.on_ack(t, &ack_us(mss as u64, 101_640, inflight), &rtt)
            };
            for _ in 0..2 {
                v.on_packet_sent(t, mss, 0, false);
            }
            a(&mut v, 2 * mss as u64); // init: beg_snd_nxt = 2 segments; cwnd 3
            for _ in 0..2 {
                v.on_packet_sent(t, mss, 0, false);
            }
            a(&mut v, 2 * mss as u64); // cwnd 4
            for _ in 0..2 {
                v.on_packet_sent(t, mss, 0, false);
            }
            a(&mut v, 4 * mss as u64); // acked 3 > beg_snd_nxt 2: the first judgment
            (v.ssthresh, v.cwnd, v.beg_snd_una, v.beg_snd_cwnd)
        };
        let m = mss as u64;
        assert_eq!(
            first_round(VegasNs2::new(mss, 2 * m)),
            (2, 5, 2 * m, 4),
            "ns-2.35's heap edges"
        );
        let (ssthresh, cwnd, una, beg_cwnd) =
            first_round(VegasNs2::with_zeroed_private_area(mss, 2 * m));
        assert!(ssthresh > 1 << 40, "zeroed edges: still in slow start");
        assert_eq!((cwnd, una, beg_cwnd), (5, 2 * m, 4));
    }

    fn ack_us(bytes: u64, rtt_us: u64, in_flight: u64) -> AckSample {
        AckSample {
            bytes_acked: bytes,
            rtt: Some(Duration::from_micros(rtt_us)),
            prior_in_flight: in_flight,
            ..Default::default()
        }
    }

    #[test]
    fn congestion_avoidance_steps_towards_last_rounds_cwnd() {
        let mss = 1000;
        let mut v = VegasNs2::new(mss, 10 * mss as u64);
        let t = Instant::ZERO;
        let rtt = RttEstimator::default();
        v.ssthresh = 2; // in congestion avoidance
        v.initialized = true;
        v.enable();
        v.beg_snd_cwnd = 10;
        v.beg_snd_una = 0;
        v.beg_snd_nxt = 10_000;
        v.sent = 20_000;
        v.acked = 10_000;
        // No queue (RTT = BaseRTT): diff 0 < alpha -> next = 10 + 1 > cwnd 10: +1.
        for _ in 0..3 {
            v.on_ack(t, &ack(0, 100, 10_000), &rtt); // duplicates are ignored
        }
        v.cnt_rtt = 3;
        v.base_rtt_us = 100_001;
        v.min_rtt_us = 100_001;
        v.on_ack(t, &ack(1000, 100, 10_000), &rtt);
        assert_eq!((v.cwnd, v.beg_snd_cwnd, v.ssthresh), (11, 10, 2));
    }
}
