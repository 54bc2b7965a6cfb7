//! The AFC glue of the endpoint (Sanadhya & Sivakumar 2014, section 4.2): the AFC-permitted
//! handshake (4.2.1) and the sender's flow window, zero-window flag, open-window recovery
//! and burst control (Algorithm 4, 4.1.2, 4.1.4). The receiver half (rate sampling, the
//! rate option, proactive ACKs: Algorithms 1-3, 4.1.3) is a receiver policy,
//! `fc::afc::AfcReceiver`; the algorithms themselves are in `fc/afc.rs`.

use super::Endpoint;
use crate::cc::{CongestionControl, CongestionEvent};
use crate::fc::afc;
use crate::fc::{Fc, FcKind};
use crate::segment::{Segment, TcpOptions};
use crate::tcp::timers::Timer;
use crate::time::Instant;

/// Per-connection AFC state. Inert (`ok == false`) unless both ends offered AFC, in which
/// case the endpoint behaves exactly as classic TCP (section 4.2.1: backward compatible).
#[derive(Clone, Debug)]
pub(super) struct AfcState {
    /// Both ends offered AFC-permitted on the SYN exchange.
    pub(super) ok: bool,
    pub(super) peer_offered: bool,
    // Sender (Algorithm 4).
    /// `app_rate`: the peer's last reported read rate, bytes per second.
    pub(super) peer_rate: f64,
    pub(super) zw_flag: bool,
    /// A timeout under the zero-window flag made the first segment the next probe.
    pub(super) probe_due: bool,
    /// `ts_recover`: set at an open window; congestion signals are ignored until an ACK
    /// echoes a timestamp sent after it (4.1.2).
    pub(super) ts_recover: Option<Instant>,
    pub(super) ts_recover_tsval: u32,
    /// Without timestamps: the highest position sent at the open window; an ACK beyond it
    /// acknowledges data sent after `ts_recover`.
    pub(super) recover_point: u64,
    /// Burst control: the next packet may not leave before this (4.1.4).
    pub(super) next_send_at: Instant,
    // Receiver (Algorithm 1).
    /// Where the last duplicate the receiver ignored began (see `afc_ack_duplicate`).
    pub(super) last_ignored_dup: Option<u64>,
}

impl AfcState {
    pub(super) fn new() -> Self {
        AfcState {
            ok: false,
            peer_offered: false,
            peer_rate: 0.0,
            zw_flag: false,
            probe_due: false,
            ts_recover: None,
            ts_recover_tsval: 0,
            recover_point: 0,
            next_send_at: Instant::ZERO,
            last_ignored_dup: None,
        }
    }
}

impl Endpoint {
    // ------------------------------------------------------------ handshake (4.2.1)

    /// Whether our SYN (or SYN-ACK) carries AFC-permitted.
    pub(super) fn afc_offer(&self, active: bool) -> bool {
        self.cfg.fc == FcKind::Afc && (active || self.afc.peer_offered)
    }

    /// "If both ends of the connection agree to use AFC as the flow control mechanism,
    /// another ... option field is used to convey the application read rate."
    pub(super) fn afc_accept_syn(&mut self, o: &TcpOptions) {
        self.afc.peer_offered = o.afc_permitted;
        self.afc.ok = self.cfg.fc == FcKind::Afc && o.afc_permitted;
    }

    /// The receiver policy in use (classic until the connection is established).
    pub fn receiver_policy(&self) -> &Fc {
        &self.fc
    }

    /// Whether AFC is in use on this connection (negotiated by both ends).
    pub fn afc_negotiated(&self) -> bool {
        self.afc.ok
    }

    /// The receiver's `smooth_rx` in bytes per second (0 without AFC).
    pub fn afc_read_rate(&self) -> f64 {
        match &self.fc {
            Fc::Afc(r) => r.sampler.smooth_rx(),
            _ => 0.0,
        }
    }

    /// The sender's flow window: `W_fc = awnd + app_rate * rtt` with AFC (Algorithm 4
    /// lines 1-5), the advertised window otherwise.
    pub fn flow_window(&self) -> u64 {
        if self.afc.ok {
            afc::flow_window(self.peer_wnd, self.afc.peer_rate, self.rtt.srtt)
        } else {
            self.peer_wnd
        }
    }

    // ------------------------------------------------------------ receiver (Alg. 1)

    /// Whether a duplicate segment starting at `start` (data already read or held) gets an
    /// ACK. Classic TCP ACKs every one (RFC 5681 4.2). Algorithm 1 line 32 ACKs none
    /// ("duplicate packets are completely ignored", 4.2.2), which keeps the go-back after
    /// an open window from drawing duplicate ACKs. Taken literally it deadlocks a sender
    /// whose ACKs were lost: its timeout resends the first unacknowledged segment, which
    /// the receiver holds and ignores, for ever (the random-transfer property test found
    /// it). So the same segment duplicated twice in a row -- a retransmission repeated by
    /// the sender's timer -- is answered; a single duplicate is ignored as the paper says.
    pub(super) fn afc_ack_duplicate(&mut self, start: u64) -> bool {
        if !self.afc.ok {
            return true;
        }
        let repeated = self.afc.last_ignored_dup == Some(start);
        self.afc.last_ignored_dup = if repeated { None } else { Some(start) };
        repeated
    }

    // ------------------------------------------------------------ sender (Alg. 4)

    /// Algorithm 4 lines 1-19 on an acceptable ACK, after the cumulative ACK and SACK
    /// blocks were applied. Returns true when congestion indicators carried by this ACK
    /// must be ignored (lines 20-32): while the zero-window flag is set, and after an open
    /// window until an ACK echoes a timestamp sent after `ts_recover`.
    pub(super) fn afc_on_ack(&mut self, now: Instant, seg: &Segment, ack: u64) -> bool {
        if !self.afc.ok {
            return false;
        }
        if let Some(k) = seg.options.afc_rate_kbps {
            self.afc.peer_rate = afc::decode_rate_kbps(k);
        }
        let awnd = self.peer_wnd;
        if awnd == 0 && !self.afc.zw_flag {
            self.afc.zw_flag = true;
            self.stats.afc_zero_window_flags += 1;
        } else if awnd > 0 && self.afc.zw_flag {
            self.afc.zw_flag = false;
            if !self.in_recovery {
                self.afc_open_window(now);
            } else if self.cfg.afc_open_window_in_recovery {
                // Ablation (`afc_open_window_in_recovery`): the open-window go-back also
                // ends a fast recovery, as a timeout would, keeping the reduced cwnd.
                self.in_recovery = false;
                self.recovery_cwnd = None;
                self.cc.on_recovery_exit(now);
                self.afc_open_window(now);
            }
        }
        if !self.cfg.afc_suppress_congestion {
            // Ablation (`afc_suppress_congestion = false`): the flag and the open-window
            // recovery stay, but loss indicators reach congestion control as in classic TCP.
            self.afc.ts_recover = None;
            return false;
        }
        if self.afc.zw_flag {
            return true;
        }
        if self.afc.ts_recover.is_some() {
            let after = match (self.ts_ok, seg.options.timestamps) {
                // Line 28: "if ack.ts_echo > ts_recover".
                (true, Some(ts)) => (ts.tsecr.wrapping_sub(self.afc.ts_recover_tsval) as i32) > 0,
                _ => ack > self.afc.recover_point,
            };
            if after {
                self.afc.ts_recover = None;
            } else {
                return true;
            }
        }
        false
    }

    /// Algorithm 4 lines 10-18 / section 4.1.2: an open window after a zero window.
    fn afc_open_window(&mut self, now: Instant) {
        self.afc.ts_recover = Some(now);
        self.afc.ts_recover_tsval = self.tsval(now);
        self.afc.recover_point = self.snd_max();
        self.stats.afc_open_windows += 1;
        if self.sb.is_empty() {
            return;
        }
        // Lines 12-16: "snd_nxt <- highest_ack + 1", then "Process SACK information":
        // everything outstanding that the receiver does not hold is sent again, in order,
        // as the windows allow, without waiting for the retransmission timer. Our sender
        // keeps new data and retransmissions apart, so the reset is the RTO's go-back
        // (RFC 6675 5.1) minus the congestion response, and minus the RTO's recovery point
        // (RFC 6582 `recover = snd_max`): Algorithm 4 sets none, and one would bar fast
        // recovery for a loss anywhere in the resent window until all of it is
        // acknowledged, leaving that loss to the retransmission timer (issue 17).
        if !self.cfg.afc_suppress_congestion {
            // Ablation (`afc_suppress_congestion = false`): the data the go-back resends was
            // lost, at the full buffer or in the network; classic TCP counts that as one
            // congestion event (RFC 5681 eq. 4) instead of hiding it (4.1.2).
            let flight = self.sb.flight_size();
            self.cc
                .on_congestion_event(now, CongestionEvent::FastRecovery, flight, &self.rtt);
        }
        self.sb.on_rto();
        if self.cfg.afc_recover_point {
            // Ablation (`afc_recover_point`): the timeout's recovery point too.
            self.recover = self.snd_max();
        }
        self.dupacks = 0;
        self.force_rtx = false;
        self.probe_at = None;
        // Line 17: "Reset the retransmit timer".
        self.rtt.reset_backoff();
        self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
        self.afc.next_send_at = now;
    }

    /// A retransmission timeout under AFC. While the zero-window flag is set, the
    /// outstanding data was dropped by a full buffer, and the sender's job is to "send zero
    /// window probes to learn about open windows" (Algorithm 4 line 21): the first segment
    /// goes again as the probe, with backoff, and congestion control is not told (4.1.2:
    /// loss indicators, "both triple duplicate ACKs and timeouts", are ignored). Returns
    /// true when it handled the timeout.
    pub(super) fn afc_on_rto(&mut self, now: Instant) -> bool {
        if !(self.afc.ok && self.afc.zw_flag) {
            return false;
        }
        self.stats.timeouts += 1;
        if self.cfg.afc_suppress_congestion {
            self.stats.afc_ignored_congestion_signals += 1;
        } else if self.rtt.backoff() == 0 {
            // Ablation: the timeout is a congestion signal (RFC 5681 3.1, once per episode).
            let flight = self.sb.flight_size();
            self.cc
                .on_congestion_event(now, CongestionEvent::Timeout, flight, &self.rtt);
        }
        self.sb.mark_front_lost();
        self.afc.probe_due = true;
        self.rtt.back_off();
        self.timers.arm(Timer::Retransmit, now + self.rtt.rto());
        true
    }

    /// Whether a timeout must leave congestion control alone: after an open window and
    /// before an ACK for data sent since (4.1.2).
    pub(super) fn afc_rto_is_quiet(&mut self) -> bool {
        let quiet =
            self.afc.ok && self.cfg.afc_suppress_congestion && self.afc.ts_recover.is_some();
        if quiet {
            self.stats.afc_ignored_congestion_signals += 1;
        }
        quiet
    }

    /// Retransmissions are sent "if allowed by min(cwnd, rwnd)" (Algorithm 4 line 34) like
    /// new data: after the open-window reset they are the new `snd_nxt`. Under the
    /// zero-window flag only the probe a timeout asked for goes (line 21).
    pub(super) fn afc_rtx_allowed(&self, i: usize) -> bool {
        if !self.afc.ok {
            return true;
        }
        let s = self.sb.get(i);
        (self.afc.probe_due && i == 0) || s.start < self.snd_una + self.flow_window()
    }

    /// Burst control gate (4.1.4): true while the next packet must wait.
    pub(super) fn afc_burst_hold(&mut self, now: Instant) -> bool {
        if !self.afc.ok || now >= self.afc.next_send_at {
            return false;
        }
        let at = self.afc.next_send_at;
        let at = self.timers.get(Timer::Pacing).map_or(at, |d| d.min(at));
        self.timers.arm(Timer::Pacing, at);
        true
    }

    /// After a data segment left: "The occurrence of a burst is detected by the difference
    /// in the allowed range of outstanding packets, which is snd_una + min(cwnd, rwnd), and
    /// the next packet to be sent (snd_nxt). If this difference is above a threshold, every
    /// packet is delayed by RTT/sender's window." With retransmissions pending the next
    /// packet to be sent is below our `snd_nxt`, so the range is measured from the pipe.
    pub(super) fn afc_after_send(&mut self, now: Instant) {
        if !self.afc.ok {
            return;
        }
        self.afc.probe_due = false;
        let win = self.cwnd().min(self.flow_window());
        let allowed = win.saturating_sub(self.sb.pipe());
        let unsent_or_lost = (self.written - self.snd_nxt) > 0 || self.sb.next_lost().is_some();
        let threshold = self.cfg.afc_burst_threshold_pkts as u64 * self.mss as u64;
        match afc::burst_gap(allowed, threshold, win, self.mss, self.rtt.srtt) {
            Some(gap) if unsent_or_lost => {
                self.afc.next_send_at = now + gap;
                self.stats.afc_paced_segments += 1;
            }
            _ => self.afc.next_send_at = now,
        }
    }
}
