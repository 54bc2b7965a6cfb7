//! Classic receiver flow control: receiver silly-window avoidance (RFC 1122 4.2.3.3,
//! RFC 9293 3.8.6.2.2) and the rule for unsolicited window updates (Linux's
//! `tcp_cleanup_rbuf`, or the single reopening update of the AFC paper's ns-2 baseline).
//! Positions are 64-bit stream offsets.

use super::{DataArrival, RcvView, ReadAction, ReceiverPolicy};
use crate::time::Instant;
use serde::{Deserialize, Serialize};

/// When reading makes the receiver send an unsolicited window update (scenario key
/// `window_update`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum WindowUpdate {
    /// Linux: whenever the window at least doubles from at most half the buffer.
    #[default]
    Linux,
    /// Only when a window smaller than one segment reopens to at least one segment, as the
    /// classic TCP of the AFC paper (section 4.1.3: "the receiver will send the first open
    /// window to the sender as soon as one MSS worth of space opens up in the buffer ...
    /// for an entire round-trip time after that ... the receiver cannot send any further
    /// feedback").
    ReopenOnly,
    /// Never: windows travel only in ACKs of arriving segments (and answers to the
    /// sender's zero-window probes). A documented reading of "the receiver in classical TCP
    /// sends an ACK only on the receipt of a segment" (AFC paper, section 4.1.3).
    None,
}

/// The unit of the advertised window (scenario key `window_granularity`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum WindowGranularity {
    /// Any number of bytes (RFC 9293).
    #[default]
    Bytes,
    /// Whole segments: the free space is rounded down to a multiple of the MSS, as in
    /// ns-2, whose windows and sequence numbers count packets. A buffer with less than one
    /// segment free advertises zero.
    Segments,
}

/// RFC 1122 4.2.3.3: the right edge may advance only by at least min(Fr * RCV.BUFF, MSS)
/// with Fr = 1/2.
pub fn sws_threshold(rcv_buf: u64, mss: u32) -> u64 {
    (rcv_buf / 2).min(mss as u64).max(1)
}

/// The right edge to offer: `read_off + rcv_buf` when that clears the SWS threshold over
/// the edge already advertised, else the old edge (it never moves left).
pub fn right_edge(read_off: u64, rcv_buf: u64, adv_right: u64, mss: u32) -> u64 {
    let max_edge = read_off + rcv_buf;
    if max_edge >= adv_right + sws_threshold(rcv_buf, mss) {
        max_edge
    } else {
        adv_right
    }
}

/// Whether reading made an unsolicited window update due. RFC 9293 3.8.6.2.2 lets the
/// receiver announce the window once the SWS test passes; like Linux we do it when the
/// current window is at most half the buffer and the new one at least doubles it (which
/// covers the window reopening from zero).
pub fn window_update_due(
    read_off: u64,
    rcv_nxt: u64,
    rcv_buf: u64,
    adv_right: u64,
    mss: u32,
) -> bool {
    doubles(
        right_edge(read_off, rcv_buf, adv_right, mss),
        rcv_nxt,
        rcv_buf,
        adv_right,
    )
}

/// Linux's rule for an unsolicited update to the right edge `edge`: the window advertised
/// now is at most half the buffer and the new one at least doubles it.
pub fn doubles(edge: u64, rcv_nxt: u64, rcv_buf: u64, adv_right: u64) -> bool {
    if edge <= adv_right {
        return false;
    }
    let cur = adv_right.saturating_sub(rcv_nxt);
    let new = edge - rcv_nxt;
    2 * cur <= rcv_buf && new >= 2 * cur
}

/// Whether a read makes classic TCP's unsolicited window update due (`rule`), on an
/// established connection whose peer has not closed.
pub fn read_update(rule: WindowUpdate, v: &RcvView, established: bool) -> bool {
    established && update_due(rule, v.read_off, v.rcv_nxt, v.rcv_buf, v.adv_right, v.mss)
}

/// [`window_update_due`] under the chosen rule.
pub fn update_due(
    rule: WindowUpdate,
    read_off: u64,
    rcv_nxt: u64,
    rcv_buf: u64,
    adv_right: u64,
    mss: u32,
) -> bool {
    match rule {
        WindowUpdate::Linux => window_update_due(read_off, rcv_nxt, rcv_buf, adv_right, mss),
        WindowUpdate::ReopenOnly => {
            let mss = (mss as u64).min(rcv_buf);
            let cur = adv_right.saturating_sub(rcv_nxt);
            let edge = right_edge(read_off, rcv_buf, adv_right, mss as u32);
            cur < mss && edge.saturating_sub(rcv_nxt) >= mss
        }
        WindowUpdate::None => false,
    }
}

/// Classic flow control as a [`ReceiverPolicy`]: the window is the free buffer space with
/// receiver SWS avoidance, and reading sends an unsolicited update under `rule`.
#[derive(Clone, Debug)]
pub struct Classic {
    pub rule: WindowUpdate,
}

impl ReceiverPolicy for Classic {
    fn name(&self) -> &'static str {
        "classic"
    }
    #[inline]
    fn right_edge(&self, v: &RcvView) -> u64 {
        right_edge(v.read_off, v.rcv_buf, v.adv_right, v.mss)
    }
    /// Classic TCP never keeps data beyond the edge it advertised.
    #[inline]
    fn rcv_limit(&self, v: &RcvView) -> u64 {
        v.adv_right
    }
    #[inline]
    fn observes_data(&self) -> bool {
        false
    }
    #[inline]
    fn on_data(&mut self, _now: Instant, _d: &DataArrival, _v: &RcvView) {}
    fn on_read(&mut self, _now: Instant, _n: u64, v: &RcvView, established: bool) -> ReadAction {
        ReadAction {
            window_update: read_update(self.rule, v, established),
            ack_by: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sws_rfc1122_4_2_3_3() {
        // "the window is not increased until the increase is at least min(Fr*RCV.BUFF, MSS)".
        assert_eq!(sws_threshold(4000, 1448), 1448);
        assert_eq!(sws_threshold(2000, 1448), 1000);
        // 4000-byte buffer fully used (edge 4000), app read 1000: 1000 < 1448, hold.
        assert_eq!(right_edge(1000, 4000, 4000, 1448), 4000);
        assert_eq!(right_edge(1448, 4000, 4000, 1448), 5448);
    }

    #[test]
    fn update_when_window_reopens() {
        // Zero window (rcv_nxt = edge = 4000); reading 1448 reopens it to 1448.
        assert!(window_update_due(1448, 4000, 4000, 4000, 1448));
        assert!(!window_update_due(1000, 4000, 4000, 4000, 1448));
        // A large open window: no update for a small read.
        assert!(!window_update_due(
            60_000,
            60_000,
            100_000,
            160_000 - 2000,
            1448
        ));
    }

    #[test]
    fn reopen_only_sends_the_first_open_window_alone() {
        // AFC paper 4.1.3: "the receiver will send the first open window to the sender as
        // soon as one MSS worth of space opens up in the buffer. Thus, for an entire
        // round-trip time after that open window transmission, the receiver cannot send any
        // further feedback to the sender even if the buffer is completely drained."
        let r = WindowUpdate::ReopenOnly;
        // Full 4000-byte buffer: nothing until one MSS is free.
        assert!(!update_due(r, 1000, 4000, 4000, 4000, 1448));
        assert!(update_due(r, 1448, 4000, 4000, 4000, 1448));
        // The window now open (edge 5448), the buffer drains completely: no more updates.
        assert!(!update_due(r, 4000, 4000, 4000, 5448, 1448));
        // Linux keeps reporting as the window doubles.
        assert!(update_due(
            WindowUpdate::Linux,
            4000,
            4000,
            4000,
            5448,
            1448
        ));
    }
}
