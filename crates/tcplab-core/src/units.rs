//! Bandwidth and byte-count helpers (DESIGN.md "Units and numbers").
//!
//! Rates are integer bits per second; serialisation times are rounded *up* to the next
//! nanosecond so a link can never run faster than its configured rate.

use crate::time::Duration;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A data rate in bits per second.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Bandwidth(pub u64);

impl Bandwidth {
    pub const ZERO: Bandwidth = Bandwidth(0);

    pub const fn from_bps(bps: u64) -> Self {
        Bandwidth(bps)
    }
    pub const fn from_kbps(kbps: u64) -> Self {
        Bandwidth(kbps * 1_000)
    }
    pub const fn from_mbps(mbps: u64) -> Self {
        Bandwidth(mbps * 1_000_000)
    }
    pub const fn as_bps(self) -> u64 {
        self.0
    }
    pub fn as_mbps_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
    /// A computed rate in bit/s, rounded to the nearest bit/s; negative (and NaN) is zero.
    pub fn from_bps_f64(bps: f64) -> Self {
        Bandwidth(bps.max(0.0).round() as u64)
    }
    /// Time to serialise `bytes` at this rate, rounded up to a whole nanosecond.
    /// A zero rate never finishes: returns `Duration::MAX`.
    pub fn tx_time(self, bytes: u64) -> Duration {
        if self.0 == 0 {
            return Duration::MAX;
        }
        // u64 arithmetic covers any packet (up to 2.3 GB); u128 division is far slower and
        // this runs for every packet on every link.
        if bytes <= u64::MAX / 8_000_000_000 {
            return Duration((bytes * 8_000_000_000).div_ceil(self.0));
        }
        let bits_ns = bytes as u128 * 8 * 1_000_000_000;
        Duration(bits_ns.div_ceil(self.0 as u128) as u64)
    }
    /// Whole bytes this rate carries in `d` (rounded down).
    pub fn bytes_in(self, d: Duration) -> u64 {
        (self.0 as u128 * d.0 as u128 / 8 / 1_000_000_000) as u64
    }
    /// The rate that moves `bytes` in `d` (zero for an empty interval).
    pub fn from_bytes_per(bytes: u64, d: Duration) -> Self {
        if d.0 == 0 {
            return Bandwidth(0);
        }
        Bandwidth((bytes as u128 * 8 * 1_000_000_000 / d.0 as u128) as u64)
    }
}

impl fmt::Debug for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bit/s", self.0)
    }
}
impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_rounds_up() {
        // 1500 B at 10 Mbit/s is exactly 1.2 ms.
        assert_eq!(
            Bandwidth::from_mbps(10).tx_time(1500),
            Duration::from_micros(1200)
        );
        // 1 B at 3 bit/s is 2.666.. s: rounded up.
        assert_eq!(Bandwidth(3).tx_time(1), Duration(2_666_666_667));
        assert_eq!(Bandwidth::ZERO.tx_time(1), Duration::MAX);
    }

    #[test]
    fn bytes_in_inverts_tx_time() {
        let bw = Bandwidth::from_mbps(4);
        assert_eq!(bw.bytes_in(Duration::from_secs(1)), 500_000);
        assert_eq!(
            Bandwidth::from_bytes_per(500_000, Duration::from_secs(1)),
            bw
        );
    }
}
