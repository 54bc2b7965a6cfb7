//! Sprout itself: Winstein, Sivaraman and Balakrishnan, "Stochastic Forecasts Achieve High
//! Throughput and Low Delay over Cellular Networks" (NSDI 2013), sections 3 (the receiver's
//! forecast, [`super::sprout_forecast`]) and 4 (the sender's window), as the rate-based
//! thesis' baseline (its 6.1.3 describes Sprout as "cwnd-based ... a cwnd-like counter to
//! clock the sending of packets"). Our own code from the paper and from reading the public
//! implementation (keithw/sprout: `src/sprout/receiver.cc`, `src/network/sproutconn.cc`,
//! `src/examples/sproutbt2.cc`), carried over TCP.
//!
//! # The two halves
//! - [`SproutReceiver`], at the data receiver: every 20 ms tick it counts the packets that
//!   arrived, updates its belief over the link's rate and computes the cautious (5th
//!   percentile) cumulative delivery forecast for each of the next 8 ticks. Every ACK it
//!   sends carries the latest forecast and its received count in our TCP option
//!   ([`crate::segment::SproutForecastOption`], negotiated on the SYN).
//! - [`Sprout`], the congestion controller at the data sender (`cc = "sprout"`): a window,
//!   not a pacer. Sprout's window is the bytes it may still send: the forecast's deliveries
//!   over the target delay (100 ms, 5 ticks) from now, minus the estimated queue (bytes sent
//!   but not known received, less what the forecast says drained since the receiver's
//!   count). TCP's sender sends while `pipe < cwnd`, so the controller reports
//!   `cwnd = pipe + that allowance`.
//!
//! # Why the receiver half is not a `fc::ReceiverPolicy`
//! A receiver policy decides the advertised window; Sprout's receiver never touches it and
//! must combine with any of them (classic, AFC, RSFC). It is its own component of the
//! endpoint, present only when both ends negotiated the option, with its own timer
//! (`Timer::SproutTick`): its tick is the receiver's, distinct from the sender's
//! `Timer::CcTick`, and it keeps ticking through an outage when no segment arrives (that is
//! how the belief learns the outage). It starts at the first data segment and stops once the
//! peer's FIN has arrived.
//!
//! # Censoring: TCP's equivalent of Sprout's "time to next"
//! Sprout's sender stamps every packet with the time until it will send again (0 while a
//! flight continues; the bulk sender's `fallback_interval`, 50 ms, on the packet that ends
//! one), and the receiver scores an empty tick (an exact zero) only once that promise has
//! passed: silence the sender announced says nothing about the link. Our sender sets TCP's
//! PSH flag on the data segment after which its window is closed (the flight ended, as PSH
//! marks the end of what the sender has to push now) and no other; the receiver then scores
//! no empty tick that starts within 50 ms of the tick in which that segment arrived. Ticks
//! with arrivals are exact counts unless the tick's last arrival ended a flight (PSH): the
//! link then idled for the rest of the tick for want of data, so n measures the sender's
//! window, not the link, and is scored as a lower bound, `Observation::AtLeast(n)`. (A
//! flight that ends and is followed by the next within the tick, as under a standing queue,
//! leaves it exact. A tick in which a flight started after an idle spell stays exact, as in
//! the implementation: it errs low, the cautious side; scoring it as a lower bound too
//! raised the forecast above a steady link's rate, 10.6 packets per tick at a 10 per tick
//! link, and the delay with it.) A heartbeat (below) is the end of a flight of nothing:
//! PSH, so its tick is a lower bound too.
//!
//! This departs from the implementation, which scores every tick with arrivals as exact
//! (`receiver.cc` `advance_to`; its empty heartbeat's few bytes round up to an exact 1).
//! Scored that way here, a rate drop to about one packet per tick became permanent: once
//! the cautious forecast allowed one segment per flight, every observed tick held one
//! (window-limited) segment, the belief settled at about one packet per tick and the 5th
//! percentile over the target never reached two, so the window never opened again when the
//! link recovered (Verizon-LTE-short: 0.85 Mbit/s over 90 s against CUBIC's 3.93; 3.79
//! with the lower bounds). The original's other differences (its window over forecast
//! ticks k+1..k+6, its drain, and, before we adopted it, its empty heartbeat) did not end
//! the stall when tried here (0.88 to 0.98 Mbit/s on that trace).
//!
//! # Heartbeats
//! The implementation's bulk sender (`sproutbt2.cc`) transmits at least every
//! `fallback_interval` (50 ms): when the window allows nothing, its do-while loop sends one
//! packet of `min(1440, 0)` = no data bytes, with `time_to_next` = 50 ms. What crosses the
//! link is its headers and Sprout's few bytes of framing. The receiver (`receiver.cc`
//! `recv`) adds `len / 1400` of a packet for it and `advance_to` rounds a tick whose count
//! is a fraction up to one packet: a heartbeat alone in a tick is one packet, beside data
//! nothing; its `time_to_next` promises 50 ms of silence; and the reverse direction's next
//! packet carries the new forecast.
//!
//! Ours is the same in TCP: after 50 ms without a transmission the sender sends an empty
//! segment (ACK and PSH, no payload, at SND.NXT: no sequence space, nothing to retransmit,
//! acceptable to RFC 9293 like any ACK; 52 bytes on the wire with timestamps). The receiver
//! takes an empty non-FIN segment with PSH on a Sprout connection for a heartbeat (a pure
//! ACK carries no PSH; our data sender sends no other empty segment with it): one packet in
//! a tick with nothing else, nothing beside data, a 50 ms promise of silence, and a lower
//! bound as the end of a flight (of nothing). As it has no data to ACK, the receiver sends
//! an ACK with the forecast at the end of the heartbeat's tick, standing in for the
//! implementation's reverse-direction packet; with SACK (the default) that ACK is never a
//! duplicate ACK, as it SACKs nothing new. Without SACK it has RFC 5681's form of one (same
//! ACK and window, no data, while data is outstanding), so the sender counts an ACK as a
//! duplicate only when the option's count (the highest offset received) moved: data arrived
//! above a hole (issue 13; the implementation, over UDP, has no duplicate ACKs and never
//! retransmits). The peer's own heartbeats, when data flows both ways (a web page's requests
//! and responses), carry its ACK of our data and, before its receiver's first forecast, no
//! option: they are never counted as duplicate ACKs either (three of them, held in a slow
//! uplink, once arrived while a response was outstanding and started a fast retransmit of
//! data already delivered). Nor does RFC 3042 limited transmit apply: added to a window
//! reported as pipe plus the allowance, it sent the whole send buffer. Its few bytes are not
//! added to the sender's queue estimate (the implementation adds them; they are 52 bytes
//! against 1448-byte segments).
//!
//! We first sent a full-size segment of new data as the heartbeat. On a link slower than
//! 20 segments per second that is a floor above the link's rate: on Verizon-EVDO-driving
//! (0.24 Mbit/s) the heartbeats alone filled the buffer and the p95 one-way delay was 22 s
//! (0.52 s with empty heartbeats; TMobile-UMTS-driving 14 s, now 0.10 s).
//!
//! # Where we depart from the implementation, and why
//! - The received count is sequence space: the highest stream offset received (everything
//!   below it is received or lost, Sprout's `received_or_lost_count` with a throwaway window
//!   of zero, since TCP's own loss recovery handles the holes). Retransmissions sent since
//!   the last count are added to the queue, and the queue is never taken above the TCP
//!   pipe (bytes TCP believes in the network), so segments TCP has declared lost do not stay
//!   queued forever.
//! - Every ACK carries the count (the implementation sends a forecast once per tick, with the
//!   first packet of a flight); the forecast is taken as new, and its ticks counted from its
//!   arrival as the implementation does, only when its tick number changes.
//! - The drain: the implementation subtracts the cumulative count `counts(k)` for each tick
//!   k that passes (over-draining by the earlier ticks' counts again); we subtract the
//!   forecast's deliveries over the ticks that passed, `c[k] - c[k0]`.
//! - Losses: Sprout has no loss response (its window is the forecast); TCP's recovery
//!   retransmits within the same window. A retransmission timeout allows one segment at
//!   once (the window may be closed by a stale forecast), then the forecast governs.
//! - Before the first forecast the window is TCP's initial window (Sprout starts from a
//!   default forecast and heartbeats).
//!
//! Determinism: integer arithmetic on the sender; the forecaster is deterministic.

use super::sprout_forecast::{Observation, SproutForecast, SproutForecastConfig};
use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::segment::{SproutForecastOption, SPROUT_FORECAST_TICKS};
use crate::tcp::rtt::RttEstimator;
use crate::time::{Duration, Instant};

/// Sprout's parameters, shared by both halves (both ends read them from the flow's config).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SproutConfig {
    /// The receiver's forecaster: 20 ms ticks, 8 ticks ahead, every horizon.
    pub forecast: SproutForecastConfig,
    /// The window's target delay (100 ms: `TARGET_DELAY_TICKS` = 5 ticks of 20 ms).
    pub target_delay: Duration,
    /// How long an ended flight promises silence, and how long a closed window waits
    /// before a heartbeat (`fallback_interval` of the implementation's bulk sender, 50 ms).
    pub heartbeat: Duration,
}

impl SproutConfig {
    /// The implementation's: 20 ms ticks, 8-tick forecast at the 5th percentile, sigma 200
    /// packets/s/sqrt(s), 256 bins up to 1000 packets/s, target 100 ms, heartbeat 50 ms.
    pub fn original() -> Self {
        SproutConfig {
            forecast: SproutForecastConfig {
                tick: Duration::from_millis(20),
                horizon_ticks: SPROUT_FORECAST_TICKS as u32,
                all_horizons: true,
                ..SproutForecastConfig::default()
            },
            target_delay: Duration::from_millis(100),
            heartbeat: Duration::from_millis(50),
        }
    }

    /// The target delay in whole ticks (rounded, 1 to 8: the forecast's horizon).
    pub fn target_ticks(&self) -> usize {
        let t = self.forecast.tick.as_nanos().max(1);
        let n = (self.target_delay.as_nanos() + t / 2) / t;
        (n as usize).clamp(1, SPROUT_FORECAST_TICKS)
    }
}

/// The receiver half (module docs).
#[derive(Clone, Debug)]
pub struct SproutReceiver {
    fc: SproutForecast,
    tick: Duration,
    heartbeat: Duration,
    mss: u64,
    /// Start of the tick being counted; `None` before the first data and after the FIN.
    tick_start: Option<Instant>,
    /// Ticks completed (the option's `seq` is this mod 256).
    ticks: u64,
    bytes_this_tick: u64,
    /// A heartbeat arrived in the tick being counted.
    heartbeat_this_tick: bool,
    /// A heartbeat arrived: the next tick's forecast is to be sent back at once.
    reply_due: bool,
    /// Empty ticks starting before this are not scored (the sender's promise).
    score_from: Instant,
    /// The highest stream offset received.
    highest: u64,
    /// The last arrival so far did not end a flight (had no PSH).
    open_now: bool,
    /// The forecast's increments per tick, once one exists.
    deltas: Option<[u8; SPROUT_FORECAST_TICKS]>,
    /// Ticks scored (exact counts or lower bounds) and skipped, for tests and reports.
    pub scored_ticks: u64,
    /// Of the scored ticks, those scored as lower bounds (the sender was window-limited).
    pub censored_ticks: u64,
    pub skipped_ticks: u64,
    /// Heartbeats received.
    pub heartbeats: u64,
}

impl SproutReceiver {
    pub fn new(cfg: &SproutConfig, mss: u32) -> Self {
        SproutReceiver {
            fc: SproutForecast::new(cfg.forecast),
            tick: cfg.forecast.tick,
            heartbeat: cfg.heartbeat,
            mss: mss.max(1) as u64,
            tick_start: None,
            ticks: 0,
            bytes_this_tick: 0,
            heartbeat_this_tick: false,
            reply_due: false,
            score_from: Instant::ZERO,
            highest: 0,
            open_now: false,
            deltas: None,
            scored_ticks: 0,
            censored_ticks: 0,
            skipped_ticks: 0,
            heartbeats: 0,
        }
    }

    pub fn forecaster(&self) -> &SproutForecast {
        &self.fc
    }

    /// A data segment of `len` payload bytes ending at stream offset `end` arrived (any:
    /// new, duplicate or out of order: Sprout counts every arrival); `flight_ended` is its
    /// PSH flag.
    pub fn on_data(&mut self, now: Instant, len: u64, end: u64, flight_ended: bool) {
        let start = *self.tick_start.get_or_insert(now);
        self.bytes_this_tick += len;
        self.highest = self.highest.max(end);
        // Sprout's `_score_time = max(_time + time_to_next, _score_time)`, `_time` being the
        // current tick's start.
        let promise = if flight_ended {
            self.heartbeat
        } else {
            Duration::ZERO
        };
        self.score_from = self.score_from.max(start + promise);
        self.open_now = !flight_ended;
    }

    /// The sender's empty heartbeat arrived (an empty segment with PSH: module docs,
    /// "Heartbeats"). Like the implementation's (`receiver.cc` `recv` adds its few bytes,
    /// and `advance_to` rounds a fraction up to one packet), it counts as one packet in a
    /// tick in which nothing else arrived and adds nothing to one in which data did; it ended
    /// a flight (of nothing), so it promises the heartbeat interval's silence and leaves the
    /// tick a lower bound. The forecast of the tick it arrived in is sent back at the tick's
    /// end, since the sender, its window closed, has no data for us to ACK.
    pub fn on_heartbeat(&mut self, now: Instant) {
        let start = *self.tick_start.get_or_insert(now);
        self.heartbeat_this_tick = true;
        self.score_from = self.score_from.max(start + self.heartbeat);
        self.open_now = false;
        self.reply_due = true;
        self.heartbeats += 1;
    }

    /// Whether a heartbeat is waiting for the forecast of its tick (cleared by the call).
    pub fn take_reply_due(&mut self) -> bool {
        std::mem::take(&mut self.reply_due)
    }

    /// The end of the tick being counted.
    pub fn next_tick(&self) -> Option<Instant> {
        self.tick_start.map(|t| t + self.tick)
    }

    /// Closes every tick that ended by `now` (the implementation's `advance_to`).
    pub fn on_tick(&mut self, now: Instant) {
        while let Some(start) = self.tick_start.filter(|&t| t + self.tick <= now) {
            let obs = if self.bytes_this_tick > 0 || self.heartbeat_this_tick {
                // Whole packets as the implementation rounds (nearest; a fraction, such as
                // a heartbeat alone, is one).
                let n = ((self.bytes_this_tick + self.mss / 2) / self.mss).max(1);
                // Exact unless the tick's last arrival ended a flight: then the link went
                // idle for the rest of the tick for want of data, and n is what the sender
                // offered, a lower bound on what the link could have carried (module docs,
                // "Censoring").
                if self.open_now {
                    Some(Observation::Exact(n))
                } else {
                    Some(Observation::AtLeast(n))
                }
            } else if start >= self.score_from {
                Some(Observation::Exact(0))
            } else {
                None
            };
            if let Some(Observation::AtLeast(_)) = obs {
                self.censored_ticks += 1;
            }
            match obs {
                Some(_) => self.scored_ticks += 1,
                None => self.skipped_ticks += 1,
            }
            self.fc.tick(obs);
            self.bytes_this_tick = 0;
            self.heartbeat_this_tick = false;
            self.ticks += 1;
            self.tick_start = Some(start + self.tick);
        }
        if self.fc.has_observed() {
            let mut d = [0u8; SPROUT_FORECAST_TICKS];
            let mut prev = 0;
            for (x, &c) in d.iter_mut().zip(self.fc.cumulative_forecast()) {
                *x = c.saturating_sub(prev).min(255) as u8;
                prev = c;
            }
            self.deltas = Some(d);
        }
    }

    /// The peer's FIN arrived: nothing more to forecast.
    pub fn stop(&mut self) {
        self.tick_start = None;
    }

    /// The option for the next outgoing segment (none before the first forecast).
    #[inline]
    pub fn option(&self) -> Option<SproutForecastOption> {
        self.deltas
            .map(|deltas| SproutForecastOption::new(self.ticks as u8, self.highest as u32, deltas))
    }
}

/// The sender half, `cc = "sprout"` (module docs).
#[derive(Clone, Debug)]
pub struct Sprout {
    cfg: SproutConfig,
    mss: u64,
    initial_window: u64,
    target_ticks: usize,
    /// The forecast as cumulative packets: `cum[i]` over the first i ticks after it arrived.
    cum: [u64; SPROUT_FORECAST_TICKS + 1],
    /// Tick number of the forecast in use; `None` before the first.
    seq: Option<u8>,
    /// When it arrived.
    forecast_at: Instant,
    /// Its ticks that have passed (at most 8).
    k: usize,
    /// `k` when the receiver last reported its count.
    k_report: usize,
    /// The receiver's count: the highest stream offset it has received.
    received: u64,
    /// The highest stream offset sent.
    snd_max: u64,
    /// Retransmitted bytes since the receiver's last count.
    rtx_since_report: u64,
    /// RFC 6675 pipe as of the latest event.
    pipe: u64,
    last_send: Option<Instant>,
    /// The window has let nothing go for 50 ms: an empty heartbeat is due (module docs,
    /// "Heartbeats"). It adds nothing to the window.
    heartbeat_due: bool,
    /// One full segment allowed regardless of the window, after a retransmission timeout.
    rto_segment: bool,
    window: u64,
    /// Heartbeats sent, for tests and reports.
    pub heartbeats_sent: u64,
}

impl Sprout {
    pub fn new(cfg: SproutConfig, mss: u32, initial_window: u64) -> Self {
        let mut s = Sprout {
            target_ticks: cfg.target_ticks(),
            cfg,
            mss: mss.max(1) as u64,
            initial_window,
            cum: [0; SPROUT_FORECAST_TICKS + 1],
            seq: None,
            forecast_at: Instant::ZERO,
            k: 0,
            k_report: 0,
            received: 0,
            snd_max: 0,
            rtx_since_report: 0,
            pipe: 0,
            last_send: None,
            heartbeat_due: false,
            rto_segment: false,
            window: initial_window,
            heartbeats_sent: 0,
        };
        s.recompute();
        s
    }

    pub fn config(&self) -> &SproutConfig {
        &self.cfg
    }

    /// Whether a forecast has arrived.
    pub fn has_forecast(&self) -> bool {
        self.seq.is_some()
    }

    /// The forecast in use, cumulative packets over 0..=8 of its ticks.
    pub fn cumulative_forecast(&self) -> &[u64; SPROUT_FORECAST_TICKS + 1] {
        &self.cum
    }

    /// Sprout's queue estimate in bytes: sent and not known received, less what the
    /// forecast drained since the receiver's count (never above the TCP pipe).
    pub fn queue_estimate(&self) -> u64 {
        let unreported = self.snd_max.saturating_sub(self.received) + self.rtx_since_report;
        let drained = (self.cum[self.k] - self.cum[self.k_report]) * self.mss;
        unreported.min(self.pipe).saturating_sub(drained)
    }

    /// Sprout's `window_size()`: the bytes it may still send now.
    pub fn allowance(&self) -> u64 {
        if self.seq.is_none() {
            return self.initial_window.saturating_sub(self.pipe);
        }
        let to = (self.k + self.target_ticks).min(SPROUT_FORECAST_TICKS);
        let forecast = (self.cum[to] - self.cum[self.k]) * self.mss;
        forecast.saturating_sub(self.queue_estimate())
    }

    fn recompute(&mut self) {
        let rto = if self.rto_segment { self.mss } else { 0 };
        self.window = self.pipe + self.allowance() + rto;
    }

    /// Nothing has been sent for the heartbeat interval: the endpoint is to send an empty
    /// segment (ACK and PSH, no data) if it has nothing else to send (module docs,
    /// "Heartbeats").
    pub fn heartbeat_due(&self) -> bool {
        self.heartbeat_due
    }

    /// The endpoint sent the empty heartbeat: the next is due 50 ms after it (as after any
    /// transmission; the bulk sender's `time_of_next_transmission`). It occupies no sequence
    /// space, so neither the window nor the queue estimate changes.
    pub fn on_heartbeat_sent(&mut self, now: Instant) {
        self.last_send = Some(now);
        self.heartbeat_due = false;
        self.heartbeats_sent += 1;
    }

    /// Counts the forecast's ticks that have passed by `now`.
    fn advance(&mut self, now: Instant) {
        if self.seq.is_none() {
            return;
        }
        let tick = self.cfg.forecast.tick;
        while self.k < SPROUT_FORECAST_TICKS && self.forecast_at + tick * (self.k as u64 + 1) <= now
        {
            self.k += 1;
        }
    }

    /// An ACK carried the receiver's option. `snd_max` is the highest stream offset sent,
    /// `pipe` the RFC 6675 pipe after the ACK was processed.
    pub fn on_forecast(&mut self, now: Instant, f: &SproutForecastOption, snd_max: u64, pipe: u64) {
        self.advance(now);
        if self.seq != Some(f.seq) {
            // A new forecast: its ticks count from its arrival (sproutconn.cc `recv`).
            self.seq = Some(f.seq);
            self.forecast_at = now;
            self.k = 0;
            let mut c = 0;
            for (i, &d) in f.deltas.iter().enumerate() {
                c += d as u64;
                self.cum[i + 1] = c;
            }
        }
        // The received count, unwrapped below the highest offset sent.
        let behind = (snd_max as u32).wrapping_sub(f.received()) as u64;
        self.received = snd_max.saturating_sub(behind);
        self.snd_max = snd_max;
        self.k_report = self.k;
        self.rtx_since_report = 0;
        self.pipe = pipe;
        self.recompute();
    }
}

impl CongestionControl for Sprout {
    fn name(&self) -> &'static str {
        "sprout"
    }

    fn on_packet_sent(&mut self, now: Instant, bytes: u32, in_flight: u64, retransmit: bool) {
        if retransmit {
            self.rtx_since_report += bytes as u64;
        } else {
            self.snd_max += bytes as u64;
        }
        self.pipe = in_flight;
        self.last_send = Some(now);
        self.heartbeat_due = false;
        self.rto_segment = false;
        self.recompute();
    }

    fn on_ack(&mut self, now: Instant, ack: &AckSample, _rtt: &RttEstimator) {
        self.advance(now);
        self.pipe = ack.in_flight;
        self.recompute();
    }

    /// Sprout has no loss response: its window is the forecast. A timeout (everything
    /// outstanding now counts as lost, RFC 6675's pipe is zero) allows one segment at once.
    fn on_congestion_event(
        &mut self,
        now: Instant,
        event: CongestionEvent,
        _in_flight: u64,
        _rtt: &RttEstimator,
    ) {
        self.advance(now);
        if event == CongestionEvent::Timeout {
            self.pipe = 0;
            self.rto_segment = true;
        }
        self.recompute();
    }

    fn congestion_window(&self) -> u64 {
        self.window
    }

    fn ssthresh(&self) -> u64 {
        u64::MAX
    }

    /// The next of: the forecast's next tick boundary (while it has ticks left), and the
    /// heartbeat 50 ms after the last transmission.
    fn next_tick(&self) -> Option<Instant> {
        let tick = (self.seq.is_some() && self.k < SPROUT_FORECAST_TICKS)
            .then(|| self.forecast_at + self.cfg.forecast.tick * (self.k as u64 + 1));
        let hb = self
            .last_send
            .filter(|_| !self.heartbeat_due)
            .map(|t| t + self.cfg.heartbeat);
        match (tick, hb) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_tick(&mut self, now: Instant) {
        self.advance(now);
        if self
            .last_send
            .is_some_and(|t| t + self.cfg.heartbeat <= now)
        {
            self.heartbeat_due = true;
        }
        self.recompute();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn opt(seq: u8, received: u32, deltas: [u8; 8]) -> SproutForecastOption {
        SproutForecastOption::new(seq, received, deltas)
    }

    #[test]
    fn the_original_parameters() {
        let c = SproutConfig::original();
        assert_eq!(c.forecast.tick, Duration::from_millis(20));
        assert_eq!((c.forecast.horizon_ticks, c.forecast.percentile), (8, 0.05));
        assert_eq!(c.target_ticks(), 5);
        assert_eq!(c.heartbeat, Duration::from_millis(50));
    }

    #[test]
    fn the_window_is_the_forecast_over_the_target_minus_the_queue() {
        let mut s = Sprout::new(SproutConfig::original(), MSS, 10 * MSS as u64);
        // Before any forecast: the initial window.
        assert_eq!(s.congestion_window(), 10_000);
        let t0 = Instant::from_millis(100);
        // 4 packets per tick forecast; 30 packets sent, the receiver has 12 of them; TCP's
        // pipe is the other 18.
        s.on_forecast(t0, &opt(1, 12_000, [4; 8]), 30_000, 18_000);
        // Forecast over 5 ticks: 20 packets; queue 18: 2 more may go.
        assert_eq!(s.queue_estimate(), 18_000);
        assert_eq!(s.allowance(), 2_000);
        assert_eq!(s.congestion_window(), 20_000);
        // Sending one takes from the allowance (cwnd stays pipe + allowance).
        s.on_packet_sent(t0, 1000, 19_000, false);
        assert_eq!(s.allowance(), 1_000);
        assert_eq!(s.congestion_window(), 20_000);
        // Two ticks later: the forecast says 8 packets drained; the window looks at ticks
        // 2..7 of the forecast (20 packets) minus the queue 19 - 8 = 11.
        s.on_tick(t0 + Duration::from_millis(40));
        assert_eq!(s.queue_estimate(), 11_000);
        assert_eq!(s.allowance(), 9_000);
        // Five ticks on, only three of the forecast's ticks remain ahead: 12 packets; the
        // drain has emptied the queue estimate.
        s.on_tick(t0 + Duration::from_millis(100));
        assert_eq!(s.queue_estimate(), 0);
        assert_eq!(s.allowance(), 12_000);
        // The same forecast again (same tick number): its ticks keep counting from its
        // arrival, but the receiver's count resets the queue: 31 sent, 25 received.
        s.on_forecast(
            t0 + Duration::from_millis(100),
            &opt(1, 25_000, [4; 8]),
            31_000,
            6_000,
        );
        assert_eq!(s.queue_estimate(), 6_000);
        assert_eq!(s.allowance(), 6_000);
        // A new forecast (a growing one): counted from now.
        s.on_forecast(
            t0 + Duration::from_millis(110),
            &opt(2, 25_000, [1, 2, 3, 4, 5, 6, 7, 8]),
            31_000,
            6_000,
        );
        assert_eq!(s.allowance(), 15_000 - 6_000);
        // The queue is never taken above TCP's pipe (lost segments leave it).
        s.on_forecast(
            t0 + Duration::from_millis(110),
            &opt(2, 25_000, [1, 2, 3, 4, 5, 6, 7, 8]),
            31_000,
            2_000,
        );
        assert_eq!(s.queue_estimate(), 2_000);
        // After 8 ticks the forecast is spent: nothing more may go (until a heartbeat).
        s.on_tick(t0 + Duration::from_millis(110 + 160));
        assert_eq!(s.allowance(), 0);
    }

    #[test]
    fn the_received_count_unwraps_around_the_highest_offset_sent() {
        let mut s = Sprout::new(SproutConfig::original(), MSS, 10_000);
        let sent = (1u64 << 32) + 5_000;
        s.on_forecast(Instant::ZERO, &opt(0, 1_000, [10; 8]), sent, 4_000);
        assert_eq!(s.queue_estimate(), 4_000);
        s.on_forecast(
            Instant::ZERO,
            &opt(0, u32::MAX - 999, [10; 8]),
            sent,
            10_000,
        );
        // 2^32 - 1000 is 6000 below 2^32 + 5000.
        assert_eq!(s.queue_estimate(), 6_000);
    }

    #[test]
    fn a_closed_window_heartbeats_after_50_ms_and_a_timeout_allows_one_segment() {
        let mut s = Sprout::new(SproutConfig::original(), MSS, 10_000);
        let t0 = Instant::from_millis(10);
        s.on_forecast(t0, &opt(3, 0, [0; 8]), 0, 0);
        assert_eq!(s.congestion_window(), 0);
        s.on_packet_sent(t0, 1000, 1000, false);
        assert_eq!(s.congestion_window(), 1000);
        // The forecast's next tick comes first, then the heartbeat.
        assert_eq!(s.next_tick(), Some(t0 + Duration::from_millis(20)));
        s.on_tick(t0 + Duration::from_millis(40));
        assert_eq!(s.next_tick(), Some(t0 + Duration::from_millis(50)));
        assert!(!s.heartbeat_due());
        s.on_tick(t0 + Duration::from_millis(50));
        // The heartbeat is due, and empty: the window does not open for it.
        assert!(s.heartbeat_due());
        assert_eq!(s.congestion_window(), 1000, "no data for a heartbeat");
        assert_eq!(s.next_tick(), Some(t0 + Duration::from_millis(60)));
        s.on_heartbeat_sent(t0 + Duration::from_millis(50));
        assert!(!s.heartbeat_due());
        assert_eq!((s.heartbeats_sent, s.congestion_window()), (1, 1000));
        // The next one 50 ms after it.
        s.on_tick(t0 + Duration::from_millis(99));
        assert!(!s.heartbeat_due());
        s.on_tick(t0 + Duration::from_millis(100));
        assert!(s.heartbeat_due());
        s.on_packet_sent(t0 + Duration::from_millis(100), 1000, 2000, false);
        assert!(!s.heartbeat_due(), "any transmission counts");
        assert_eq!(s.congestion_window(), 2000);
        let rtt = RttEstimator::new(
            Duration::from_secs(1),
            Duration::from_millis(200),
            Duration::from_secs(60),
            Duration::from_millis(1),
        );
        s.on_congestion_event(
            t0 + Duration::from_millis(300),
            CongestionEvent::Timeout,
            2000,
            &rtt,
        );
        assert_eq!(s.congestion_window(), 1000, "pipe 0 plus one segment");
    }

    #[test]
    fn the_receiver_scores_busy_ticks_and_skips_promised_silence() {
        let cfg = SproutConfig::original();
        let mut r = SproutReceiver::new(&cfg, MSS);
        assert_eq!(r.next_tick(), None);
        assert_eq!(r.option(), None);
        let t0 = Instant::from_millis(5);
        // 10 packets in the first tick, the last one ending the flight (PSH).
        for i in 0..10u64 {
            r.on_data(t0, 1000, (i + 1) * 1000, i == 9);
        }
        assert_eq!(r.next_tick(), Some(t0 + Duration::from_millis(20)));
        r.on_tick(t0 + Duration::from_millis(20));
        assert_eq!((r.scored_ticks, r.skipped_ticks), (1, 0));
        // The flight ended within the tick, nothing after it: a lower bound, not an exact 10.
        assert_eq!(r.censored_ticks, 1);
        let o = r.option().unwrap();
        assert_eq!((o.seq, o.received()), (1, 10_000));
        assert!(o.deltas.iter().any(|&d| d > 0), "{o:?}");
        // The sender promised 50 ms of silence from the first tick's start: the empty
        // ticks starting at 20 and 40 ms are skipped, the one at 60 ms is scored.
        r.on_tick(t0 + Duration::from_millis(80));
        assert_eq!((r.scored_ticks, r.skipped_ticks), (2, 2));
        assert_eq!(r.option().unwrap().seq, 4);
        // Without the promise, empty ticks are exact zeros at once.
        let mut q = SproutReceiver::new(&cfg, MSS);
        q.on_data(t0, 1000, 1000, false);
        q.on_tick(t0 + Duration::from_millis(60));
        assert_eq!((q.scored_ticks, q.skipped_ticks), (3, 0));
        assert_eq!(q.censored_ticks, 0, "no flight ended");
        // A flight spanning three ticks: the two in which it was under way at the tick's end
        // are exact counts, the one it ended in a lower bound.
        let mut w = SproutReceiver::new(&cfg, MSS);
        for i in 0..30u64 {
            let at = t0 + Duration::from_millis(2 * i);
            w.on_tick(at);
            w.on_data(at, 1000, (i + 1) * 1000, i == 29);
        }
        w.on_tick(t0 + Duration::from_millis(60));
        assert_eq!((w.scored_ticks, w.censored_ticks), (3, 1));
        // A flight that ends and a next one arriving within the same tick: exact.
        let mut v = SproutReceiver::new(&cfg, MSS);
        v.on_data(t0, 1000, 1000, true);
        v.on_data(t0 + Duration::from_millis(5), 1000, 2000, false);
        v.on_tick(t0 + Duration::from_millis(20));
        assert_eq!((v.scored_ticks, v.censored_ticks), (1, 0));
        q.stop();
        assert_eq!(q.next_tick(), None);
    }

    #[test]
    fn a_heartbeat_counts_as_one_packet_alone_and_nothing_beside_data() {
        let cfg = SproutConfig::original();
        let t0 = Instant::from_millis(5);
        let tick = Duration::from_millis(20);
        // A heartbeat alone in a tick: one packet, a lower bound (it ended a flight of
        // nothing), and its tick's forecast is to go back.
        let mut r = SproutReceiver::new(&cfg, MSS);
        r.on_data(t0, 1000, 1000, true);
        r.on_tick(t0 + tick);
        assert!(!r.take_reply_due());
        let before = r.forecaster().clone();
        // (The endpoint closes ticks at their ends, before anything later arrives.)
        r.on_tick(t0 + Duration::from_millis(70));
        r.on_heartbeat(t0 + Duration::from_millis(70));
        assert_eq!(r.heartbeats, 1);
        r.on_tick(t0 + tick * 4);
        // Ticks at 20 and 40 ms: empty within the data's promise (skipped); at 60 ms: the
        // heartbeat's, scored.
        assert_eq!(
            (r.scored_ticks, r.censored_ticks, r.skipped_ticks),
            (2, 2, 2)
        );
        assert!(r.take_reply_due());
        assert!(!r.take_reply_due(), "taken once");
        let mut expect = before;
        expect.tick(None);
        expect.tick(None);
        expect.tick(Some(Observation::AtLeast(1)));
        assert_eq!(
            r.forecaster().cumulative_forecast(),
            expect.cumulative_forecast()
        );
        // It promises 50 ms of silence from its tick's start (60 ms): the empty ticks at
        // 80 and 100 ms are skipped, the one at 120 ms scored.
        r.on_tick(t0 + tick * 7);
        assert_eq!((r.scored_ticks, r.skipped_ticks), (3, 4));
        // Beside data it adds nothing: 3 segments and a heartbeat are 3 packets; data after
        // it in the tick leaves the count exact.
        let mut a = SproutReceiver::new(&cfg, MSS);
        let mut b = SproutReceiver::new(&cfg, MSS);
        for (i, x) in [&mut a, &mut b].into_iter().enumerate() {
            x.on_data(t0, 1000, 1000, false);
            if i == 1 {
                x.on_heartbeat(t0 + Duration::from_millis(1));
            }
            x.on_data(t0 + Duration::from_millis(2), 1000, 2000, false);
            x.on_data(t0 + Duration::from_millis(3), 1000, 3000, false);
            x.on_tick(t0 + tick);
            assert_eq!((x.scored_ticks, x.censored_ticks), (1, 0));
        }
        assert_eq!(
            a.forecaster().cumulative_forecast(),
            b.forecaster().cumulative_forecast()
        );
    }
}
