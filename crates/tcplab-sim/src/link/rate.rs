//! The rate model of a link (DESIGN.md "a link serialises at a rate (fixed, scheduled or
//! trace-driven)"): when the last bit of a packet has left, given when it reached the head.

use super::schedule::Schedule;
use super::trace::{MahimahiTrace, TraceRate};
use crate::config::RateSpec;
use crate::world::SimError;
use std::sync::Arc;
use tcplab_core::{Bandwidth, Instant};

#[derive(Clone, Debug)]
pub enum RateModel {
    Fixed(Bandwidth),
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

    /// A packet of `bytes` wire bytes reaches the head of the queue at `start` with the
    /// link idle (calls come in non-decreasing `start` order, back to back while the queue
    /// is busy). Returns when its last bit has left; never earlier than `start`.
    #[inline]
    pub fn departure_time(&mut self, start: Instant, bytes: u32) -> Instant {
        match self {
            RateModel::Fixed(bw) => start.saturating_add(bw.tx_time(bytes as u64)),
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
            RateModel::Schedule(s) => s.capacity_bytes(from, to),
            RateModel::Trace(t) => t.capacity_bytes(from, to),
        }
    }

    /// Long-run mean rate (over one period for schedules and traces).
    pub fn mean_rate_bps(&self) -> f64 {
        match self {
            RateModel::Fixed(bw) => bw.as_bps() as f64,
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
