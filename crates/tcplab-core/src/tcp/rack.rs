//! RACK-TLP loss detection (RFC 8985): section 6 (RACK: a segment is lost once a segment
//! sent sufficiently later was delivered; the reordering window and the reordering timer)
//! and section 7 (TLP: the probe timeout and the probe), as Linux runs them by default
//! (`net.ipv4.tcp_recovery = 1`, `tcp_early_retrans = 3`): net/ipv4/tcp_recovery.c
//! (`tcp_rack_advance`, `tcp_rack_reo_wnd`, `tcp_rack_detect_loss`, `tcp_rack_reo_timeout`)
//! and net/ipv4/tcp_output.c (`tcp_schedule_loss_probe`, `tcp_send_loss_probe`).
//!
//! As Linux's `tcp_time_to_recover` with RACK on, RFC 6675's IsLost() and the duplicate-ACK
//! count no longer start recovery: RACK does, once it marks a loss. The duplicate
//! threshold lives on inside RACK's reordering window, which is zero once DupThresh
//! segments are SACKed (RFC 8985 6.2 step 4, Linux without `TCP_RACK_NO_DUPTHRESH`).
//!
//! Not modelled: the reordering window's growth on D-SACKs (RFC 8985 6.2 step 4's
//! `reo_wnd_mult`, Linux `tcp_rack_update_reo_wnd`) and TLP's congestion response (7.4):
//! both need D-SACK, which tcplab's receivers do not send. Linux's adaptive DupThresh
//! (`tp->reordering` raised when reordering is seen) is not modelled either.
//!
//! The loss scan ([`crate::tcp::sack::Scoreboard::rack_mark_lost`]) walks the scoreboard
//! from its front and stops at the first never-retransmitted segment sent after
//! RACK.xmit_ts: nothing is allocated, and the cost per ACK is the number of segments
//! below the most recently sent delivered one (outside recovery usually none; in a
//! recovery the SACKed run below the highest SACK).

use crate::time::{Duration, Instant};
use serde::{Deserialize, Serialize};

/// How the sender decides a segment is lost (scenario key `loss_detection`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossDetection {
    /// RFC 6675 IsLost() / RFC 5681 DupThresh duplicate ACKs, and the RTO for the rest.
    #[default]
    Dupthresh,
    /// RFC 8985 RACK-TLP (SACK connections only; without SACK, `dupthresh`).
    RackTlp,
}

/// Linux's `TCP_TIMEOUT_MIN` (2 ms): the slack added to the reordering timer and to a
/// probe timeout with more than one segment in flight.
pub const TIMEOUT_MIN: Duration = Duration::from_millis(2);
/// Linux's `TCP_TIMEOUT_INIT` (1 s): the probe timeout before the first RTT sample.
const PTO_WITHOUT_SRTT: Duration = Duration::from_secs(1);

/// RACK's and TLP's state (RFC 8985 6.1 and 7.1's variables).
#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// RACK.xmit_ts, and in place of RACK.end_seq the transmission order
    /// ([`crate::tcp::sack::SentSeg::tx_order`]), of the most recently sent segment
    /// delivered (cumulatively or selectively acknowledged); `None` before one.
    newest_delivered: Option<(Instant, u64)>,
    /// RACK.rtt: the RTT of the latest such segment (RFC 8985 6.2 step 2).
    rtt: Duration,
    /// RACK.xmit_ts moved on this ACK: a loss scan is due (Linux `rack.advanced`).
    advanced: bool,
    /// Reordering was observed on this connection (Linux `tp->reord_seen`, RFC 8985
    /// RACK.reordering_seen): a never-retransmitted segment was delivered below the
    /// highest SACKed one. It is never cleared, as in Linux.
    pub reordering_seen: bool,
    /// TLP.end_seq: SND.MAX when the outstanding probe went (at most one at a time).
    pub probe_high: Option<u64>,
}

impl Rack {
    /// RFC 8985 6.2 step 2 for one ACK: `delivered` is the newest (send time, transmission
    /// order) among
    /// the segments the ACK newly delivered (retransmissions younger than min_RTT already
    /// left out, step 2's spurious-retransmission filter).
    pub fn on_delivered(&mut self, now: Instant, delivered: Option<(Instant, u64)>) {
        let Some(d) = delivered else { return };
        self.advanced = true;
        self.rtt = now - d.0;
        if self.newest_delivered.is_none_or(|n| d.1 > n.1) {
            self.newest_delivered = Some(d);
        }
    }

    /// Takes the "a loss scan is due" flag (Linux `tcp_rack_mark_lost` runs the scan only
    /// on ACKs that advanced RACK; the reordering timer runs it regardless).
    pub fn take_advanced(&mut self) -> bool {
        std::mem::take(&mut self.advanced)
    }

    pub fn newest_delivered(&self) -> Option<(Instant, u64)> {
        self.newest_delivered
    }

    /// RACK.rtt plus the reordering window: how long after its own send time a segment
    /// sent before RACK.xmit_ts is declared lost.
    ///
    /// The reordering window is Linux's `tcp_rack_reo_wnd`: zero while no reordering was
    /// seen and either a recovery is under way or DupThresh segments are SACKed, else
    /// min_RTT / 4, at most SRTT.
    pub fn loss_delay(
        &self,
        in_recovery: bool,
        dupthresh_sacked: bool,
        min_rtt: Option<Duration>,
        srtt: Option<Duration>,
    ) -> Duration {
        let reo_wnd = if !self.reordering_seen && (in_recovery || dupthresh_sacked) {
            Duration::ZERO
        } else {
            let quarter = Duration(min_rtt.unwrap_or(Duration::ZERO).0 / 4);
            quarter.min(srtt.unwrap_or(Duration::ZERO))
        };
        self.rtt + reo_wnd
    }

    /// RFC 8985 7.2, as Linux's `tcp_schedule_loss_probe`: the probe timeout, 2 SRTT plus
    /// the minimum RTO when a single segment is in flight (its ACK may be delayed; Linux
    /// adds `tcp_rto_min`, RFC 8985 a max_ack_delay) or `TIMEOUT_MIN` otherwise; 1 s
    /// before an RTT sample. The caller caps it at the retransmission timer.
    pub fn probe_timeout(
        srtt: Option<Duration>,
        one_in_flight: bool,
        min_rto: Duration,
    ) -> Duration {
        match srtt {
            None => PTO_WITHOUT_SRTT,
            Some(s) => s.saturating_mul(2) + if one_in_flight { min_rto } else { TIMEOUT_MIN },
        }
    }
}
