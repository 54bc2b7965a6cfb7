//! Receiver-side Flow Control (Xu, Leong, Leong & Razeen, "Dynamic Regulation of Mobile
//! 3G/HSPA Uplink Buffer with Receiver-Side Flow Control", section III): the receiver of an
//! upload estimates how long the sender's packets wait in the uplink buffer from TCP
//! timestamps and clamps its advertised window to the estimated bandwidth-delay product.
//!
//! Measurements (III-A), per data segment that shows no loss and no reordering:
//! - the relative one-way delay `RD = t_r3 - t_s2`: our timestamp clock now minus the
//!   segment's TSval (the sender's clock), no clock synchronisation;
//! - the receiver-side round trip `RTT = t_r3 - t_r1`, `t_r1` being the TSecr (the echo of
//!   our own TSval);
//! - their minima `RD_min` and `RTT_min`, and `t_buff = RD - RD_min`;
//! - the receive rate rho.
//!
//! States: slow (the window grows by one MSS per data packet), fast (the window is
//! `ceil(rho x RTT_min / MSS) x MSS`), and monitor (entered after `2T + 3 RTT_min` in fast,
//! counted from when the fast state's window took effect, see below;
//! the window grows as in slow while rho is watched: (a) rho increases: back to slow with
//! the minima seen in monitor and the window re-derived from them; (b) RD rises by T
//! without rho increasing: halve both minima and go to fast). After a slow/fast cycle in
//! which rho increased, the minima are reset to the cycle's (III-C (i)). `T = RTT_min` by
//! default (III-A).
//!
//! What the paper leaves open, and our choices (each a documented parameter or rule):
//! - rho: bytes newly received over an interval of at least `RTT_min` of our clock (our
//!   precise clock, not the timestamp tick), closed by the arrival that ends it, so
//!   `rho x RTT_min` is about the bytes that arrive in one `RTT_min`. 100 ms before the
//!   first `RTT_min` sample.
//! - "an increase in rho": an interval's rate above the reference by more than
//!   `rho_increase` (default 10%) and by at least one MSS over the interval, since at
//!   3G rates an interval holds a handful of packets and one packet more or less is
//!   quantisation, not a change. The reference is rho at the start of the cycle (its slow
//!   state's entry) for III-C (i), rho at monitor entry for case (a).
//! - The initial window: 10 segments (Linux's initial receive window, `TCP_INIT_CWND x
//!   MSS`), growing in slow state from the start.
//! - The window never falls below one MSS (the paper's formula rounds rho x RTT_min up to
//!   whole segments; a window under one segment would stall the sender).
//! - The advertised right edge never moves left (RFC 9293 3.8.6.2.2, and Linux's
//!   `tcp_select_window`, which the paper's kernel change sat behind): a smaller window is
//!   offered as data arrives, so the clamp takes effect within one window of data. The
//!   fast state's `2T + 3 RTT_min` is counted from then: section III-B derives it from the
//!   moment the frozen window reaches the sender, which the paper takes to be one RTT_min
//!   after the freeze; here it is when the edge offered before has been reached.
//! - Halving RD_min assumes the two timestamp clocks count from a common origin (tcplab's
//!   hosts do, unless `ts_offset` says otherwise); with an offset the halving still forces
//!   the fast state, as the paper intends, and case (a) restores the minima.

use super::{DataArrival, RcvView, ReadAction, ReceiverPolicy, TsClocks};
use crate::time::{Duration, Instant};

/// RSFC's parameters (scenario keys `rsfc_*`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RsfcConfig {
    /// The threshold T on `t_buff`; `None` = `RTT_min` (the paper's setting, III-A).
    pub threshold: Option<Duration>,
    /// Update the minima after a cycle in which rho increased and run the monitor state
    /// (III-C). `false` is the variant of Fig. 13: the minima only ever decrease.
    pub minima_updates: bool,
    /// The window RSFC starts from, in segments.
    pub initial_window_pkts: u32,
    /// The relative rise of rho that counts as an increase (see the module notes).
    pub rho_increase: f64,
}

impl Default for RsfcConfig {
    fn default() -> Self {
        RsfcConfig {
            threshold: None,
            minima_updates: true,
            initial_window_pkts: 10,
            rho_increase: 0.1,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RsfcState {
    Slow,
    Fast,
    Monitor,
}

impl RsfcState {
    pub fn name(self) -> &'static str {
        match self {
            RsfcState::Slow => "slow",
            RsfcState::Fast => "fast",
            RsfcState::Monitor => "monitor",
        }
    }
}

/// RSFC's counters (summary `tcp.rsfc`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RsfcStats {
    /// Slow (or monitor case (b)) -> fast.
    pub fast_entries: u64,
    /// Fast -> slow: a completed slow/fast cycle.
    pub slow_entries: u64,
    pub monitor_entries: u64,
    /// III-C (i): minima reset to the last cycle's after rho increased in it.
    pub cycle_minima_updates: u64,
    /// Monitor case (a).
    pub monitor_rho_increases: u64,
    /// Monitor case (b): both minima halved.
    pub minima_halvings: u64,
    /// Data segments that gave a delay sample (no loss, no reordering, timestamps).
    pub delay_samples: u64,
    /// Time spent in each state, nanoseconds, up to the last event.
    pub ns_slow: u64,
    pub ns_fast: u64,
    pub ns_monitor: u64,
}

/// Lowest RD and RTT seen over some span.
#[derive(Copy, Clone, Debug, Default)]
struct Minima {
    rd: Option<i64>,
    rtt: Option<u64>,
}

impl Minima {
    fn add(&mut self, rd: i64, rtt: Option<u64>) {
        self.rd = Some(self.rd.map_or(rd, |m| m.min(rd)));
        if let Some(r) = rtt {
            self.rtt = Some(self.rtt.map_or(r, |m| m.min(r)));
        }
    }
}

#[derive(Clone, Debug)]
pub struct Rsfc {
    cfg: RsfcConfig,
    mss: u64,
    clocks: TsClocks,
    state: RsfcState,
    /// RSFC's window in bytes (what it lets the sender have beyond `rcv_nxt`).
    wnd: u64,
    /// `RD_min` (ns, may be negative with a clock offset) and `RTT_min` (ns).
    rd_min: Option<i64>,
    rtt_min: Option<u64>,
    /// The latest RD sample.
    last_rd: Option<i64>,
    /// The current slow/fast cycle: its minima, rho at its start, its highest rho.
    cycle: Minima,
    cycle_rho_start: f64,
    cycle_rho_max: f64,
    /// When the fast state's window took effect: the edge advertised before it was reached
    /// (the right edge never moves left), so the sender now sees the clamped window.
    clamp_since: Option<Instant>,
    /// Monitor: rho and RD at entry, minima seen in it.
    monitor_rho_ref: f64,
    monitor_rd_start: Option<i64>,
    monitor: Minima,
    /// rho in bytes per second, and the interval being measured.
    rho: f64,
    interval_start: Option<Instant>,
    interval_bytes: u64,
    /// Last time the state clock was advanced (time-in-state counters).
    state_clock: Instant,
    stats: RsfcStats,
}

/// Before the first RTT_min sample, rho is measured over this interval.
const FIRST_RATE_INTERVAL: Duration = Duration::from_millis(100);

impl Rsfc {
    pub fn new(cfg: RsfcConfig, mss: u32, clocks: TsClocks, now: Instant) -> Self {
        let mss = mss.max(1) as u64;
        Rsfc {
            cfg,
            mss,
            clocks,
            state: RsfcState::Slow,
            wnd: cfg.initial_window_pkts.max(1) as u64 * mss,
            rd_min: None,
            rtt_min: None,
            last_rd: None,
            cycle: Minima::default(),
            cycle_rho_start: 0.0,
            cycle_rho_max: 0.0,
            clamp_since: None,
            monitor_rho_ref: 0.0,
            monitor_rd_start: None,
            monitor: Minima::default(),
            rho: 0.0,
            interval_start: None,
            interval_bytes: 0,
            state_clock: now,
            stats: RsfcStats::default(),
        }
    }

    pub fn state(&self) -> RsfcState {
        self.state
    }
    /// RSFC's current window in bytes.
    pub fn window(&self) -> u64 {
        self.wnd
    }
    pub fn rd_min(&self) -> Option<Duration> {
        self.rd_min.map(|r| Duration(r.max(0) as u64))
    }
    pub fn rtt_min(&self) -> Option<Duration> {
        self.rtt_min.map(Duration)
    }
    /// The receive rate rho, bytes per second.
    pub fn rho(&self) -> f64 {
        self.rho
    }
    /// `t_buff = RD - RD_min` of the latest sample.
    pub fn t_buff(&self) -> Option<Duration> {
        Some(Duration((self.last_rd? - self.rd_min?).max(0) as u64))
    }
    pub fn stats(&self) -> &RsfcStats {
        &self.stats
    }
    /// Counters with the time in the current state counted up to `now`.
    pub fn stats_at(&self, now: Instant) -> RsfcStats {
        let mut s = self.stats;
        let d = now.saturating_since(self.state_clock).as_nanos();
        match self.state {
            RsfcState::Slow => s.ns_slow += d,
            RsfcState::Fast => s.ns_fast += d,
            RsfcState::Monitor => s.ns_monitor += d,
        }
        s
    }

    /// T: the configured threshold, else RTT_min (0 before the first sample).
    pub fn threshold(&self) -> Duration {
        self.cfg
            .threshold
            .unwrap_or(Duration(self.rtt_min.unwrap_or(0)))
    }

    /// When the fast state turns into monitor: `2T + 3 RTT_min` after its window took
    /// effect (III-C; see `clamp_since`).
    pub fn monitor_deadline(&self) -> Option<Instant> {
        if self.state != RsfcState::Fast || !self.cfg.minima_updates {
            return None;
        }
        let rtt_min = Duration(self.rtt_min?);
        Some(self.clamp_since? + self.threshold().saturating_mul(2) + rtt_min.saturating_mul(3))
    }

    /// The estimated bandwidth-delay product `ceil(rho x RTT_min / MSS) x MSS`, at least
    /// one segment.
    pub fn bdp(&self) -> u64 {
        let rtt = self.rtt_min.unwrap_or(0) as f64 / 1e9;
        let segs = (self.rho * rtt / self.mss as f64).ceil();
        let segs = if segs.is_finite() && segs >= 1.0 {
            segs.min(u32::MAX as f64) as u64
        } else {
            1
        };
        segs * self.mss
    }

    fn rate_interval(&self) -> Duration {
        match self.rtt_min {
            Some(r) => Duration(r).max(self.clocks.ours),
            None => FIRST_RATE_INTERVAL,
        }
    }

    /// Whether `rate` is an increase over `reference` (module notes).
    fn increased(&self, rate: f64, reference: f64) -> bool {
        let secs = self.rate_interval().as_secs_f64();
        rate > reference * (1.0 + self.cfg.rho_increase)
            && (rate - reference) * secs >= self.mss as f64
    }

    fn advance_clock(&mut self, now: Instant) {
        if now <= self.state_clock {
            return;
        }
        let d = now.saturating_since(self.state_clock).as_nanos();
        match self.state {
            RsfcState::Slow => self.stats.ns_slow += d,
            RsfcState::Fast => self.stats.ns_fast += d,
            RsfcState::Monitor => self.stats.ns_monitor += d,
        }
        self.state_clock = now;
    }

    fn enter_fast(&mut self) {
        self.state = RsfcState::Fast;
        self.clamp_since = None;
        self.wnd = self.bdp();
        self.stats.fast_entries += 1;
    }

    /// Fast -> slow ends a slow/fast cycle (III-C (i)).
    fn end_cycle(&mut self) {
        self.state = RsfcState::Slow;
        self.stats.slow_entries += 1;
        if self.cfg.minima_updates && self.increased(self.cycle_rho_max, self.cycle_rho_start) {
            if let Some(rd) = self.cycle.rd {
                self.rd_min = Some(rd);
            }
            if let Some(r) = self.cycle.rtt {
                self.rtt_min = Some(r);
            }
            self.stats.cycle_minima_updates += 1;
        }
        self.start_cycle();
    }

    fn start_cycle(&mut self) {
        self.cycle = Minima::default();
        self.cycle_rho_start = self.rho;
        self.cycle_rho_max = self.rho;
    }

    fn enter_monitor(&mut self) {
        self.state = RsfcState::Monitor;
        self.monitor_rho_ref = self.rho;
        self.monitor_rd_start = self.last_rd;
        self.monitor = Minima::default();
        self.stats.monitor_entries += 1;
    }

    /// The delay sample of a segment: (RD, RTT) in nanoseconds (III-A).
    fn sample(&self, d: &DataArrival) -> Option<(i64, Option<u64>)> {
        if !d.clean {
            return None;
        }
        let tsval = d.tsval?;
        let ours = self.clocks.ours.as_nanos() as i64;
        let peer = self.clocks.peer.as_nanos() as i64;
        // t_r3 - t_s2 on the two hosts' clocks (III-A, eq. 1).
        let rd = d.our_tsval as i64 * ours - tsval as i64 * peer;
        // t_r3 - t_r1: our clock now minus the echo of our TSval (eq. 2). An echo from the
        // future or more than half the clock's range back is no sample.
        let rtt = d.tsecr.and_then(|e| {
            let ticks = d.our_tsval.wrapping_sub(e);
            (ticks as i32 >= 0).then_some(ticks as u64 * ours as u64)
        });
        Some((rd, rtt))
    }
}

impl ReceiverPolicy for Rsfc {
    fn name(&self) -> &'static str {
        "rsfc"
    }

    /// `min(kernel window, RSFC window)` (III-A "we cannot advertise more than what is
    /// originally allowed by the kernel"), with receiver SWS avoidance as classic TCP.
    fn right_edge(&self, v: &RcvView) -> u64 {
        let target = v.buffer_edge().min(v.rcv_nxt + self.wnd);
        let sws = super::classic::sws_threshold(v.rcv_buf, v.mss);
        if target >= v.adv_right + sws {
            target
        } else {
            target.min(v.adv_right)
        }
    }

    fn rcv_limit(&self, v: &RcvView) -> u64 {
        v.adv_right
    }

    fn on_data(&mut self, now: Instant, d: &DataArrival, v: &RcvView) {
        self.advance_clock(now);
        // rho: bytes over an interval of at least RTT_min, closed by an arrival.
        let mut rho_updated = false;
        if d.new_bytes > 0 {
            match self.interval_start {
                None => {
                    // The first arrival opens the first interval; its bytes arrived at its
                    // start, so they are not counted against it.
                    self.interval_start = Some(now);
                }
                Some(start) => {
                    self.interval_bytes += d.new_bytes;
                    let elapsed = now.saturating_since(start);
                    if elapsed >= self.rate_interval() {
                        self.rho = self.interval_bytes as f64 / elapsed.as_secs_f64();
                        self.interval_start = Some(now);
                        self.interval_bytes = 0;
                        rho_updated = true;
                        self.cycle_rho_max = self.cycle_rho_max.max(self.rho);
                    }
                }
            }
        }
        if d.len == 0 {
            return;
        }
        let sample = self.sample(d);
        if let Some((rd, rtt)) = sample {
            self.stats.delay_samples += 1;
            // Minima only ever decrease here (III-C: "these two variables will simply be
            // updated"); the cycle and monitor rules raise them.
            self.rd_min = Some(self.rd_min.map_or(rd, |m| m.min(rd)));
            if let Some(r) = rtt {
                self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
            }
            self.cycle.add(rd, rtt);
            if self.state == RsfcState::Monitor {
                self.monitor.add(rd, rtt);
            }
            self.last_rd = Some(rd);
        }
        let cap = u64::MAX / 4;
        let t = self.threshold().as_nanos() as i64;
        // t_buff > T, from this segment's sample (III-A), once both minima exist.
        let over = match (sample, self.rd_min, self.rtt_min) {
            (Some((rd, _)), Some(m), Some(_)) => Some(rd - m > t),
            _ => None,
        };
        match self.state {
            RsfcState::Slow => {
                // "we increase the rwnd by one MSS after the receiver receives each data
                // packet"
                self.wnd = (self.wnd + self.mss).min(cap);
                if over == Some(true) {
                    self.enter_fast();
                }
            }
            RsfcState::Fast => {
                if self.monitor_deadline().is_some_and(|dl| now >= dl) {
                    self.enter_monitor();
                    self.wnd = (self.wnd + self.mss).min(cap);
                } else if over == Some(false) {
                    // The buffer drained: a slow/fast cycle is complete.
                    self.end_cycle();
                    self.wnd = (self.wnd + self.mss).min(cap);
                } else {
                    // Freeze at the estimated BDP, following rho.
                    self.wnd = self.bdp();
                }
            }
            RsfcState::Monitor => {
                // "Like in the slow state, rwnd is increased by 1 for every data packet".
                self.wnd = (self.wnd + self.mss).min(cap);
                if rho_updated && self.increased(self.rho, self.monitor_rho_ref) {
                    // (a): back to slow with the minima seen in monitor.
                    if let Some(rd) = self.monitor.rd {
                        self.rd_min = Some(rd);
                    }
                    if let Some(r) = self.monitor.rtt {
                        self.rtt_min = Some(r);
                    }
                    self.state = RsfcState::Slow;
                    self.wnd = self.bdp();
                    self.stats.monitor_rho_increases += 1;
                    self.start_cycle();
                } else if let (Some((rd, _)), Some(start)) = (sample, self.monitor_rd_start) {
                    if rd >= start + t {
                        // (b): RD rose by T and rho did not: the link is still full.
                        self.rd_min = self.rd_min.map(|m| m / 2);
                        self.rtt_min = self.rtt_min.map(|m| m / 2);
                        self.stats.minima_halvings += 1;
                        self.enter_fast();
                    }
                } else if self.monitor_rd_start.is_none() {
                    self.monitor_rd_start = sample.map(|s| s.0);
                }
            }
        }
        // The clamp has taken effect once the edge offered before it is reached: from then
        // on the next ACK offers rcv_nxt + the fast-state window (within one segment).
        if self.state == RsfcState::Fast
            && self.clamp_since.is_none()
            && v.adv_right <= v.rcv_nxt + self.wnd + self.mss
        {
            self.clamp_since = Some(now);
        }
    }

    /// Reading never changes RSFC's window; an update is due, as Linux's rule says, when
    /// the window we would offer at least doubles from at most half the buffer (the
    /// buffer was what limited it).
    fn on_read(&mut self, _now: Instant, _n: u64, v: &RcvView, established: bool) -> ReadAction {
        ReadAction {
            window_update: established
                && super::classic::doubles(self.right_edge(v), v.rcv_nxt, v.rcv_buf, v.adv_right),
            ack_by: None,
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.monitor_deadline()
    }

    /// The fast state has lasted `2T + 3 RTT_min`: monitor (III-C (ii)), even if no data
    /// arrives to notice it.
    fn on_timeout(&mut self, now: Instant) {
        if self.monitor_deadline().is_some_and(|dl| now >= dl) {
            self.advance_clock(now);
            self.enter_monitor();
        }
    }
}

#[cfg(test)]
mod tests;
