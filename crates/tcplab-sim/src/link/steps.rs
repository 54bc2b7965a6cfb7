//! A fixed link rate that changes at given times (`LinkSpec::rate_changes`): the rate in
//! force when a packet's serialisation starts is the rate of the whole packet, as a delay
//! change applies to packets leaving after it.
//!
//! Capacity is integrated exactly in bit-nanoseconds-per-second units, as `Schedule` does
//! (a step of `d` ns at `r` bit/s carries `r * d` units; a byte needs `8 * 1e9`).
//! Because a packet keeps the rate it started with, one that straddles a change carries
//! more (after a decrease) or less (after an increase) than the changed rate would have
//! over its tail. Those packets are recorded as they are sent (at most one per change,
//! since packets on a link never overlap; the record is allocated once, at build), so the
//! capacity bound of the invariant checks and of `utilization` counts what the link could
//! really carry under this rule: a saturated link shows a utilisation of exactly 1.

use crate::config::{RateChange, RateSpec};
use crate::error::SimError;
use tcplab_core::{Bandwidth, Instant};

const UNITS_PER_BYTE: u128 = 8 * 1_000_000_000;

#[derive(Clone, Debug)]
pub struct RateSteps {
    /// `(from, rate)`: the rate from `from` on; the first step starts at time zero, the
    /// others at the changes, in strictly increasing order (a change at time zero makes the
    /// first step empty).
    steps: Vec<(Instant, Bandwidth)>,
    /// The step in force at the latest `departure_time` start (starts never go back).
    cur: usize,
    /// Packets whose serialisation crossed a change: `(start, departure, units carried
    /// minus units the steps give over [start, departure))`.
    straddles: Vec<(Instant, Instant, i128)>,
}

/// The rules of `rate_changes`, shared by validation and the link's construction; errors
/// name the key (the caller prefixes the link).
pub fn check_rate_changes(rate: &RateSpec, changes: &[RateChange]) -> Result<(), SimError> {
    let cfg = |m: String| Err(SimError::Config(m));
    if changes.is_empty() {
        return Ok(());
    }
    match rate {
        RateSpec::Fixed { .. } => {}
        RateSpec::Schedule { .. } => {
            return cfg("rate_changes: only a fixed-rate link can change its rate; this link \
                 has a rate schedule (rate = [...] with slot), which already says how its rate varies"
                .into())
        }
        RateSpec::Trace { .. } => {
            return cfg("rate_changes: only a fixed-rate link can change its rate; this link \
                 follows a trace, which already says how its rate varies"
                .into())
        }
    }
    if let Some(i) = changes.iter().position(|c| c.bps == 0) {
        return cfg(format!(
            "rate_changes[{i}].bps = 0: a link rate must be positive (bit/s)"
        ));
    }
    if let Some(i) = (1..changes.len()).find(|&i| changes[i].at <= changes[i - 1].at) {
        return cfg(format!(
            "rate_changes must be in increasing time order ({} ns after {} ns)",
            changes[i].at.as_nanos(),
            changes[i - 1].at.as_nanos()
        ));
    }
    Ok(())
}

impl RateSteps {
    /// `initial` from time zero, then each change (already checked: positive rates, in
    /// strictly increasing order).
    pub fn new(initial: Bandwidth, changes: &[RateChange]) -> RateSteps {
        let mut steps = Vec::with_capacity(changes.len() + 1);
        steps.push((Instant::ZERO, initial));
        steps.extend(
            changes
                .iter()
                .map(|c| (Instant::ZERO + c.at, Bandwidth::from_bps(c.bps))),
        );
        RateSteps {
            steps,
            cur: 0,
            // Each change lies inside at most one packet's serialisation: no reallocation
            // while the link runs.
            straddles: Vec::with_capacity(changes.len()),
        }
    }

    /// See [`super::RateModel::departure_time`]: the rate in force at `start`, for the whole
    /// packet.
    #[inline]
    pub fn departure_time(&mut self, start: Instant, bytes: u32) -> Instant {
        debug_assert!(start >= self.steps[self.cur].0, "starts went back in time");
        while self.steps.get(self.cur + 1).is_some_and(|s| s.0 <= start) {
            self.cur += 1;
        }
        let rate = self.steps[self.cur].1;
        let dep = start.saturating_add(rate.tx_time(bytes as u64));
        if self.steps.get(self.cur + 1).is_some_and(|s| s.0 < dep) {
            self.note_straddle(start, dep, rate);
        }
        dep
    }

    /// Out of line: at most once per change.
    #[inline(never)]
    fn note_straddle(&mut self, start: Instant, dep: Instant, rate: Bandwidth) {
        let carried = rate.as_bps() as u128 * (dep - start).as_nanos() as u128;
        let stepped = self.units(start, dep);
        // Saturating: only absurd rates and packet sizes come near i128's range.
        let sat = |u: u128| i128::try_from(u).unwrap_or(i128::MAX);
        let carry = if carried >= stepped {
            sat(carried - stepped)
        } else {
            -sat(stepped - carried)
        };
        self.straddles.push((start, dep, carry));
    }

    /// Units the steps carry in `[from, to)`.
    fn units(&self, from: Instant, to: Instant) -> u128 {
        // The steps are disjoint and each product is below 2^128, but their sum over a
        // window of centuries at rates near 2^64 bit/s could pass u128: saturate.
        let mut total = 0u128;
        for (i, &(at, rate)) in self.steps.iter().enumerate() {
            let end = self.steps.get(i + 1).map_or(Instant::MAX, |s| s.0);
            let (a, b) = (at.max(from), end.min(to));
            if a < b {
                total = total.saturating_add(rate.as_bps() as u128 * (b - a).as_nanos() as u128);
            }
        }
        total
    }

    /// Bytes the steps carry in `[from, to)` (rounded down): the link's nominal capacity.
    pub fn capacity_bytes(&self, from: Instant, to: Instant) -> u64 {
        if to <= from {
            return 0;
        }
        (self.units(from, to) / UNITS_PER_BYTE).min(u64::MAX as u128) as u64
    }

    /// Bytes packets that started at or after `from` and left by `to` can have carried: the
    /// steps' capacity, corrected by each such packet that crossed a change (it ran at its
    /// starting rate throughout). Exact for a link busy all the time.
    pub fn capacity_bytes_through(&self, from: Instant, to: Instant) -> u64 {
        if to <= from {
            return 0;
        }
        // Unsigned and saturating (a rate near 2^64 bit/s over centuries nears u128's
        // range). A packet's shortfall never exceeds what the steps give over its own
        // interval, which lies inside the window, so the subtraction cannot pass zero.
        let mut units = self.units(from, to);
        for &(s, d, carry) in &self.straddles {
            if from <= s && d <= to {
                units = if carry >= 0 {
                    units.saturating_add(carry as u128)
                } else {
                    units.saturating_sub(carry.unsigned_abs())
                };
            }
        }
        (units / UNITS_PER_BYTE).min(u64::MAX as u128) as u64
    }

    /// The rate from the last change on, which holds for ever: the long-run mean.
    pub fn mean_rate_bps(&self) -> f64 {
        self.steps.last().map_or(0.0, |s| s.1.as_bps() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Duration;

    fn change(at_ms: u64, bps: u64) -> RateChange {
        RateChange {
            at: Duration::from_millis(at_ms),
            bps,
        }
    }

    #[test]
    fn a_packet_takes_the_rate_in_force_when_it_starts() {
        // 10 Mbit/s, 1 Mbit/s from 5 ms, 2 Mbit/s from 10 ms.
        let mut r = RateSteps::new(
            Bandwidth::from_mbps(10),
            &[change(5, 1_000_000), change(10, 2_000_000)],
        );
        let at = |us: u64| Instant::from_nanos(us * 1_000);
        // 1250 B: 1 ms at 10 Mbit/s, 10 ms at 1 Mbit/s, 5 ms at 2 Mbit/s.
        assert_eq!(r.departure_time(at(0), 1250), at(1_000));
        // Starts before the drop at 5 ms: the old rate throughout, past the change.
        assert_eq!(r.departure_time(at(4_500), 1250), at(5_500));
        // Starts at the change itself: the new rate.
        assert_eq!(r.departure_time(at(5_500), 1250), at(15_500));
        // Two changes passed while idle: the latest applies.
        assert_eq!(r.departure_time(at(20_000), 1250), at(25_000));
        assert_eq!(r.mean_rate_bps(), 2e6);
    }

    #[test]
    fn capacity_integrates_the_steps_and_counts_straddling_packets() {
        let mut r = RateSteps::new(Bandwidth::from_mbps(10), &[change(5, 1_000_000)]);
        let at = |us: u64| Instant::from_nanos(us * 1_000);
        // 5 ms at 10 Mbit/s = 6250 B, then 5 ms at 1 Mbit/s = 625 B.
        assert_eq!(r.capacity_bytes(at(0), at(10_000)), 6875);
        assert_eq!(r.capacity_bytes(at(4_000), at(6_000)), 1250 + 125);
        assert_eq!(r.capacity_bytes(at(6_000), at(4_000)), 0);
        // A busy link: back-to-back 1250 B packets from 0; the fifth starts at 4 ms and the
        // sixth at 5 ms (rate 1 Mbit/s from then on). Nothing straddles: the bound is the
        // integral.
        let mut t = at(0);
        let mut sent = 0u64;
        while t < at(20_000) {
            t = r.departure_time(t, 1250);
            sent += 1250;
        }
        assert_eq!(r.capacity_bytes_through(at(0), t), sent);
        // A packet started at 4.5 ms keeps 10 Mbit/s until 5.5 ms: 500 us x 9 Mbit/s more
        // than the steps give, and the bound says so (exactly, for a busy link).
        let mut r = RateSteps::new(Bandwidth::from_mbps(10), &[change(5, 1_000_000)]);
        let mut t = at(500);
        let mut sent = 0u64;
        while t < at(20_000) {
            t = r.departure_time(t, 1250);
            sent += 1250;
        }
        // Seven packets (0.5 to 25.5 ms); the steps give 4.5 ms at 10 and 20.5 ms at 1 Mbit/s.
        assert_eq!((r.capacity_bytes(at(500), t), sent), (8187, 8750));
        assert_eq!(r.capacity_bytes_through(at(500), t), sent);
        // A window that does not hold the straddling packet does not get its credit.
        assert_eq!(
            r.capacity_bytes_through(at(4_600), t),
            r.capacity_bytes(at(4_600), t)
        );
    }

    #[test]
    fn rate_changes_rules() {
        let fixed = RateSpec::Fixed { bps: 1_000_000 };
        assert!(check_rate_changes(&fixed, &[]).is_ok());
        assert!(check_rate_changes(&fixed, &[change(0, 1), change(1, 5)]).is_ok());
        let err = |spec: &RateSpec, ch: &[RateChange]| match check_rate_changes(spec, ch) {
            Err(SimError::Config(m)) => m,
            r => panic!("{r:?}"),
        };
        assert_eq!(
            err(&fixed, &[change(1, 5), change(1, 6)]),
            "rate_changes must be in increasing time order (1000000 ns after 1000000 ns)"
        );
        assert_eq!(
            err(&fixed, &[change(1, 5), change(2, 0)]),
            "rate_changes[1].bps = 0: a link rate must be positive (bit/s)"
        );
        let sched = RateSpec::Schedule {
            rates_bps: vec![1, 2],
            slot: Duration::from_millis(1),
        };
        assert!(err(&sched, &[change(1, 5)]).starts_with(
            "rate_changes: only a fixed-rate link can change its rate; this link has a rate schedule"
        ));
        let trace = RateSpec::Trace {
            path: "x".into(),
            opportunity_bytes: 1500,
        };
        assert!(err(&trace, &[change(1, 5)]).contains("follows a trace"));
        // An empty list is fine on any link.
        assert!(check_rate_changes(&trace, &[]).is_ok());
    }
}
