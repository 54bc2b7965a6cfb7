//! The emulator's accuracy (issue 36, "the emulator's own accuracy"): how late each release
//! was against its ideal time, kept in the simulator's own log-linear histogram
//! (`tcplab_sim::stats::DelayStats`, within 0.8%) plus the exact mean and maximum.

use serde::Serialize;
use tcplab_sim::stats::DelayStats;

pub struct Lateness {
    hist: DelayStats,
    max_ns: u64,
}

#[derive(Clone, Debug, Serialize, Default)]
pub struct LatenessSummary {
    pub releases: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            hist: DelayStats::new(false),
            max_ns: 0,
        }
    }
}

impl Lateness {
    pub fn record(&mut self, ns: u64) {
        self.hist.record(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn summary(&mut self) -> LatenessSummary {
        let n = self.hist.count();
        if n == 0 {
            return LatenessSummary::default();
        }
        let p = self.hist.summary_ms();
        LatenessSummary {
            releases: n,
            mean_us: p.mean * 1e3,
            p50_us: p.p50 * 1e3,
            p99_us: self.hist.quantile(0.99) as f64 / 1e3,
            max_us: self.max_ns as f64 / 1e3,
        }
    }
}
