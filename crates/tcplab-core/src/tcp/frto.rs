//! F-RTO, spurious retransmission timeout detection (RFC 5682): the basic algorithm of
//! section 2 without SACK, the SACK-enhanced one of section 3 (with RFC 4138 appendix B's
//! rule, as Linux: step 3 needs an acknowledgment of a never-retransmitted segment below
//! `recover`). The response to a spurious timeout is RFC 4015's undo as Linux applies it:
//! the endpoint restores the congestion controller's pre-timeout state, unmarks the
//! segments the timeout declared lost and carries on with new data.
//!
//! This type only holds the state and the step rules; `tcp::endpoint` feeds it the RTO and
//! the ACKs that follow, and obeys what it allows to be sent.

use crate::cc::Cc;

/// Where the sender is in the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrtoPhase {
    /// Not detecting: no timeout, or conventional RTO recovery.
    Idle,
    /// Step 1 done (or due): only the first unacknowledged segment may be (re)sent; waiting
    /// for the first new acknowledgment (step 2).
    AwaitFirstAck,
    /// Step 2b done: up to `quota` new segments may be sent; waiting for the next ACK
    /// (step 3).
    AwaitSecondAck,
}

/// What an ACK during F-RTO decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrtoVerdict {
    /// Keep waiting (step 2 with SACK on a duplicate ACK, or an ACK that tells nothing).
    Wait,
    /// Step 2b: the retransmission was acknowledged; send new data and go to step 3.
    SendNew,
    /// Steps 2a / 3a: the timeout stands, continue with conventional RTO recovery.
    Conventional,
    /// Step 3b: the timeout was spurious.
    Spurious,
}

/// What the endpoint knows about one ACK, for the step rules.
#[derive(Clone, Copy, Debug)]
pub struct FrtoAck {
    /// The cumulative ACK (stream offset) and SND.UNA before it.
    pub ack: u64,
    pub una_before: u64,
    /// A duplicate ACK (RFC 5681 section 2 without SACK; with SACK, one that SACKs new data).
    pub dup: bool,
    /// Lowest start of a segment this ACK newly acknowledged, cumulatively or by SACK,
    /// that had never been retransmitted.
    pub first_original: Option<u64>,
    /// New data (or a FIN) is waiting and the peer's window lets at least a byte go.
    pub can_send_new: bool,
}

/// The F-RTO state of one sender.
#[derive(Clone, Debug)]
pub struct Frto {
    pub phase: FrtoPhase,
    /// RFC 5682 `recover`: the highest position sent when the phase began (step 1, then
    /// step 2b).
    pub recover: u64,
    /// End of the segment retransmitted in step 1.
    pub rtx_end: u64,
    /// Step 1's single retransmission is still to be sent.
    pub rtx_due: bool,
    /// New segments step 2b may still send.
    pub quota: u8,
    /// The congestion controller just before the timeout's `Timeout` event (boxed: made
    /// only at a timeout, and a controller inline would add 520 bytes to every endpoint).
    pub prior_cc: Option<Box<Cc>>,
    /// Use section 3's rules (SACK negotiated) rather than section 2's.
    pub sack: bool,
}

impl Default for Frto {
    fn default() -> Self {
        Frto {
            phase: FrtoPhase::Idle,
            recover: 0,
            rtx_end: 0,
            rtx_due: false,
            quota: 0,
            prior_cc: None,
            sack: false,
        }
    }
}

impl Frto {
    pub fn active(&self) -> bool {
        self.phase != FrtoPhase::Idle
    }

    /// Step 1: the timer expired. `snd_max` is the highest position sent, `front_end` the
    /// end of the first unacknowledged segment (the one retransmitted now).
    pub fn on_rto(&mut self, snd_max: u64, front_end: u64, sack: bool) {
        self.phase = FrtoPhase::AwaitFirstAck;
        self.recover = snd_max;
        self.rtx_end = front_end;
        self.rtx_due = true;
        self.quota = 0;
        self.sack = sack;
    }

    /// Back to conventional behaviour; the snapshot is dropped.
    pub fn stop(&mut self) {
        self.phase = FrtoPhase::Idle;
        self.rtx_due = false;
        self.quota = 0;
        self.prior_cc = None;
    }

    /// Steps 2 and 3 for one incoming ACK. `snd_max` is the highest position sent so far.
    pub fn on_ack(&mut self, a: &FrtoAck, snd_max: u64) -> FrtoVerdict {
        let advanced = a.ack > a.una_before;
        match self.phase {
            FrtoPhase::Idle => FrtoVerdict::Wait,
            FrtoPhase::AwaitFirstAck => {
                if !advanced {
                    // Section 3 step 2: duplicate ACKs only update the scoreboard. Section 2
                    // step 2a: a duplicate ACK means the retransmission was needed.
                    return if a.dup && !self.sack {
                        FrtoVerdict::Conventional
                    } else {
                        FrtoVerdict::Wait
                    };
                }
                // Step 2a: all that was outstanding is acknowledged (nothing to tell apart),
                // or the retransmitted segment only partly.
                if a.ack >= self.recover || a.ack < self.rtx_end || !a.can_send_new {
                    // Step 2b's last paragraph: without new data to send, continue with
                    // conventional slow-start retransmissions.
                    return FrtoVerdict::Conventional;
                }
                // Step 2b.
                self.recover = snd_max;
                self.phase = FrtoPhase::AwaitSecondAck;
                self.quota = 2;
                FrtoVerdict::SendNew
            }
            FrtoPhase::AwaitSecondAck => {
                // Step 3b: an acknowledgment of a segment sent before the timeout and never
                // retransmitted: the original transmissions were delayed, not lost.
                if a.first_original.is_some_and(|s| s < self.recover) {
                    return FrtoVerdict::Spurious;
                }
                // Step 3a: a duplicate ACK (with SACK: one that reports only segments sent
                // after the timeout), or an advance over retransmitted data only.
                if a.dup || advanced {
                    return FrtoVerdict::Conventional;
                }
                FrtoVerdict::Wait
            }
        }
    }
}
