//! SKELETON: to be implemented.
use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::tcp::rtt::RttEstimator;
use crate::time::Instant;

#[derive(Clone, Debug)]
pub struct NewReno {
    cwnd: u64,
}

impl NewReno {
    pub fn new(_mss: u32, initial_cwnd_bytes: u64) -> Self {
        NewReno {
            cwnd: initial_cwnd_bytes,
        }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn on_ack(&mut self, _now: Instant, _ack: &AckSample, _rtt: &RttEstimator) {}
    fn on_congestion_event(
        &mut self,
        _now: Instant,
        _e: CongestionEvent,
        _f: u64,
        _rtt: &RttEstimator,
    ) {
    }
    fn congestion_window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
}
