//! SKELETON: RFC 6298 RTT estimator (to be implemented).
use crate::time::Duration;

#[derive(Clone, Debug, Default)]
pub struct RttEstimator {
    pub srtt: Option<Duration>,
    pub rttvar: Duration,
    pub min_rtt: Option<Duration>,
    pub latest: Option<Duration>,
}
