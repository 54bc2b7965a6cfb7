//! The rate model of a link (DESIGN.md "a link serialises at a rate (fixed, scheduled or
//! trace-driven)"): when the last bit of a packet has left, given when it reached the head.

use super::schedule::Schedule;
use super::steps::{check_rate_changes, RateSteps};
use super::trace::{MahimahiTrace, TraceRate};
use crate::config::{RateChange, RateSpec};
use crate::error::SimError;
use std::sync::Arc;
use tcplab_core::{Bandwidth, Instant};

#[derive(Clone, Debug)]
pub enum RateModel {
    Fixed(Bandwidth),
    /// A fixed rate with `rate_changes`. Its own variant, so a fixed link without changes
    /// (nearly all of them) pays nothing for the feature on its per-packet path.
    Steps(RateSteps),
    Schedule(Schedule),
    Trace(TraceRate),
}

impl RateModel {
    /// Builds the model; trace problems are `SimError::Trace` (naming file and line),
    /// impossible values (zero rate, empty schedule, zero slot) `SimError::Config`.
    pub fn from_spec(spec: &RateSpec) -> Result<RateModel, SimError> {
        match spec {
            RateSpec::Fixed { bps } => {
                if *bps == 0 {
                    return Err(SimError::Config(
                        "rate.bps = 0: a fixed-rate link needs a positive rate in bit/s".into(),
                    ));
                }
                Ok(RateModel::Fixed(Bandwidth::from_bps(*bps)))
            }
            RateSpec::Schedule { rates_bps, slot } => Ok(RateModel::Schedule(Schedule::new(
                rates_bps.clone(),
                *slot,
            )?)),
            RateSpec::Trace {
                path,
                opportunity_bytes,
            } => {
                let trace = Arc::new(MahimahiTrace::load(path)?);
                Ok(RateModel::Trace(TraceRate::new(trace, *opportunity_bytes)?))
            }
        }
    }

    /// The model with `changes` (`LinkSpec::rate_changes`) applied: unchanged when there
    /// are none; a `Steps` model for a fixed rate; a `SimError::Config` naming the key for
    /// a schedule or a trace, a zero rate or changes out of order.
    pub fn with_changes(
        self,
        rate: &RateSpec,
        changes: &[RateChange],
    ) -> Result<RateModel, SimError> {
        check_rate_changes(rate, changes)?;
        Ok(match self {
            RateModel::Fixed(bw) if !changes.is_empty() => {
                RateModel::Steps(RateSteps::new(bw, changes))
            }
            other => other,
        })
    }

    /// A packet of `bytes` wire bytes reaches the head of the queue at `start` with the
    /// link idle (calls come in non-decreasing `start` order, back to back while the queue
    /// is busy). Returns when its last bit has left; never earlier than `start`.
    #[inline]
    pub fn departure_time(&mut self, start: Instant, bytes: u32) -> Instant {
        match self {
            RateModel::Fixed(bw) => start.saturating_add(bw.tx_time(bytes as u64)),
            RateModel::Steps(s) => s.departure_time(start, bytes),
            RateModel::Schedule(s) => s.departure_time(start, bytes),
            RateModel::Trace(t) => t.departure_time(start, bytes),
        }
    }

    /// Bytes the link could carry in `[from, to)` (rounded down; zero if `to <= from`).
    pub fn capacity_bytes(&self, from: Instant, to: Instant) -> u64 {
        if to <= from {
            return 0;
        }
        match self {
            RateModel::Fixed(bw) => bw.bytes_in(to - from),
            RateModel::Steps(s) => s.capacity_bytes(from, to),
            RateModel::Schedule(s) => s.capacity_bytes(from, to),
            RateModel::Trace(t) => t.capacity_bytes(from, to),
        }
    }

    /// Bytes the link could carry from `from` up to and including the instant `to`: a bound
    /// on what packets whose last bit left by `to` can have used. An instant carries nothing
    /// at a fixed or scheduled rate, so this is `capacity_bytes`; a trace's opportunities at
    /// `to` itself count (a packet departing at `to` left in one of them). A changing rate
    /// also counts the packets that crossed a change at the rate they started with
    /// (`RateSteps::capacity_bytes_through`).
    pub fn capacity_bytes_through(&self, from: Instant, to: Instant) -> u64 {
        match self {
            RateModel::Trace(t) if from <= to => t.capacity_bytes_through(from, to),
            RateModel::Steps(s) => s.capacity_bytes_through(from, to),
            _ => self.capacity_bytes(from, to),
        }
    }

    /// Mean rate over `[from, to)` in bit/s: `capacity_bytes * 8 / (to - from)` (exactly the
    /// rate for a fixed link, the time-weighted mean of its steps for a changing one; the
    /// long-run mean for an empty interval).
    pub fn rate_over_bps(&self, from: Instant, to: Instant) -> f64 {
        match self {
            RateModel::Fixed(bw) => bw.as_bps() as f64,
            _ if to <= from => self.mean_rate_bps(),
            _ => self.capacity_bytes(from, to) as f64 * 8.0 / (to - from).as_secs_f64(),
        }
    }

    /// Long-run mean rate (over one period for schedules and traces; the last rate of a
    /// changing one).
    pub fn mean_rate_bps(&self) -> f64 {
        match self {
            RateModel::Fixed(bw) => bw.as_bps() as f64,
            RateModel::Steps(s) => s.mean_rate_bps(),
            RateModel::Schedule(s) => s.mean_rate_bps(),
            RateModel::Trace(t) => t.mean_rate_bps(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Duration;

    #[test]
    fn fixed_rate_serialises_at_the_rate() {
        let mut m = RateModel::from_spec(&RateSpec::Fixed { bps: 10_000_000 }).unwrap();
        let t = Instant::from_millis(5);
        assert_eq!(m.departure_time(t, 1500), t + Duration::from_micros(1200));
        assert_eq!(
            m.capacity_bytes(Instant::ZERO, Instant::from_secs(1)),
            1_250_000
        );
        assert_eq!(m.capacity_bytes(Instant::from_secs(1), Instant::ZERO), 0);
        assert_eq!(m.mean_rate_bps(), 1e7);
    }

    #[test]
    fn class1_rate_over_a_run_is_its_capacity_not_the_long_run_mean() {
        let at = Instant::from_millis;
        let fixed = RateModel::from_spec(&RateSpec::Fixed { bps: 12_345_678 }).unwrap();
        assert_eq!(fixed.rate_over_bps(at(0), at(3)), 12_345_678.0);
        assert_eq!(
            fixed.capacity_bytes_through(at(0), at(1000)),
            fixed.capacity_bytes(at(0), at(1000))
        );
        // 3, 15, 15 Mbit/s for 530 ms each: the first 530 ms run at 3, the mean is 11.
        let sched = RateModel::from_spec(&RateSpec::Schedule {
            rates_bps: vec![3_000_000, 15_000_000, 15_000_000],
            slot: Duration::from_millis(530),
        })
        .unwrap();
        assert!((sched.rate_over_bps(at(0), at(530)) - 3e6).abs() < 1e-6);
        assert!((sched.rate_over_bps(at(0), at(1590)) - 11e6).abs() < 1e-6);
        assert_eq!(sched.rate_over_bps(at(5), at(5)), 11e6);
        // A trace (built in memory): opportunities at 1, 1, 2 and 5 ms, repeating every 5 ms.
        let trace = RateModel::Trace(
            TraceRate::new(
                Arc::new(MahimahiTrace::parse("t", b"1\n1\n2\n5\n").unwrap()),
                1500,
            )
            .unwrap(),
        );
        assert!((trace.rate_over_bps(at(0), at(2)) - 2.0 * 12_000.0 / 0.002).abs() < 1e-6);
        assert!((trace.mean_rate_bps() - 4.0 * 12_000.0 / 0.005).abs() < 1e-6);
        assert_eq!(trace.capacity_bytes(at(0), at(2)), 3000);
        assert_eq!(trace.capacity_bytes_through(at(0), at(2)), 4500);
        assert_eq!(trace.capacity_bytes_through(at(3), at(2)), 0);
    }

    #[test]
    fn rate_changes_make_a_stepped_model_only_when_there_are_some() {
        let spec = RateSpec::Fixed { bps: 10_000_000 };
        let base = || RateModel::from_spec(&spec).unwrap();
        // No changes: the plain fixed model, whose per-packet path is untouched.
        assert!(matches!(
            base().with_changes(&spec, &[]).unwrap(),
            RateModel::Fixed(_)
        ));
        // 10 Mbit/s for 1 s, then 1 Mbit/s.
        let changes = [RateChange {
            at: Duration::from_secs(1),
            bps: 1_000_000,
        }];
        let m = base().with_changes(&spec, &changes).unwrap();
        assert!(matches!(m, RateModel::Steps(_)));
        let s = Instant::from_secs;
        assert_eq!(m.capacity_bytes(s(0), s(3)), 1_250_000 + 250_000);
        assert!((m.rate_over_bps(s(0), s(2)) - 5.5e6).abs() < 1e-6);
        assert_eq!(m.mean_rate_bps(), 1e6);
        // A schedule cannot take changes.
        let sched = RateSpec::Schedule {
            rates_bps: vec![1, 2],
            slot: Duration::from_millis(1),
        };
        let e = RateModel::from_spec(&sched)
            .unwrap()
            .with_changes(&sched, &changes);
        assert!(matches!(e, Err(SimError::Config(_))), "{e:?}");
    }

    #[test]
    fn bad_specs_are_config_errors() {
        for spec in [
            RateSpec::Fixed { bps: 0 },
            RateSpec::Schedule {
                rates_bps: vec![],
                slot: Duration::from_millis(1),
            },
            RateSpec::Schedule {
                rates_bps: vec![0, 0],
                slot: Duration::from_millis(1),
            },
            RateSpec::Schedule {
                rates_bps: vec![1],
                slot: Duration::ZERO,
            },
        ] {
            assert!(
                matches!(RateModel::from_spec(&spec), Err(SimError::Config(_))),
                "{spec:?}"
            );
        }
        let missing = RateSpec::Trace {
            path: "/nonexistent/x.down".into(),
            opportunity_bytes: 1500,
        };
        match RateModel::from_spec(&missing) {
            Err(SimError::Trace(m)) => {
                assert!(m.starts_with("/nonexistent/x.down: cannot read"), "{m}")
            }
            r => panic!("{r:?}"),
        }
    }
}
