//! Proportional Rate Reduction (RFC 6937): how much a sender in SACK-based fast recovery
//! may send on each ACK, so that the window comes down to ssthresh smoothly over one round
//! trip instead of in the burst-after-silence pattern of RFC 6675's pipe rule.
//!
//! Three flavours, chosen by the scenario key `prr` ([`PrrRule`]), differ only in three
//! inputs; the arithmetic is the RFC's:
//! - `rfc6937`: RFC 6937 section 3 as written, RecoverFS = FlightSize at entry
//!   (SND.NXT - SND.UNA) and the Slow Start Reduction Bound on every ACK.
//! - `linux`: net/ipv4/tcp_input.c `tcp_init_cwnd_reduction` / `tcp_cwnd_reduction`
//!   (Linux 5.12 and later): RecoverFS is the window before the reduction (`prior_cwnd`),
//!   and the reduction bound is the SSRB only on an ACK that advances SND.UNA and marks no
//!   new loss, the conservative bound (CRB) otherwise.
//! - `ns3`: ns-3 3.44 `TcpPrrRecovery`: RecoverFS is the pipe at entry (its
//!   `BytesInFlight`), every duplicate ACK and the entering ACK count one SMSS delivered on
//!   top of what SACK reports (the double count ns-3 fixed after 3.44, issue #1350), the
//!   product prr_delivered x ssthresh wraps at 2^32 as ns-3 3.44's uint32_t arithmetic does
//!   (fixed after 3.44, issue #1282), and the SSRB applies when the ACK cumulatively
//!   acknowledges retransmitted data.
//!
//! Only SACK recovery uses it: without SACK, tcplab's recovery is RFC 6582's window
//! inflation (Linux and ns-3 run PRR there too, with one SMSS per duplicate ACK; a
//! SACK-less Linux or ns-3 sender is not modelled). The rate-based controllers pace
//! themselves and, like Linux's `cong_control` modules (BBR), bypass it.
//!
//! The endpoint calls [`Prr::enter`] when recovery starts, [`Prr::on_ack`] on every ACK
//! of the recovery (the entering one included) and [`Prr::on_sent`] for every byte sent
//! during it; [`Prr::window`] is then the congestion window (pipe + sndcnt).

use serde::{Deserialize, Serialize};

/// Which PRR the sender runs in SACK recovery (scenario key `prr`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrRule {
    /// No PRR: RFC 6675's rule, send while pipe < cwnd (= ssthresh).
    #[default]
    Off,
    /// RFC 6937 section 3 with PRR-SSRB.
    Rfc6937,
    /// Linux's `tcp_cwnd_reduction`.
    Linux,
    /// ns-3 3.44's `TcpPrrRecovery`.
    Ns3,
}

/// What one ACK of the recovery tells PRR.
#[derive(Copy, Clone, Debug, Default)]
pub struct PrrAck {
    /// DeliveredData: bytes newly acknowledged cumulatively or by SACK, not counting bytes
    /// SACKed before.
    pub delivered: u64,
    /// An RFC 6675 duplicate ACK (it newly SACKs data and leaves SND.UNA).
    pub dup_ack: bool,
    /// The ACK advanced SND.UNA.
    pub una_advanced: bool,
    /// The ACK marked a segment lost that was not before (Linux's `newly_lost`).
    pub newly_lost: bool,
    /// The ACK cumulatively acknowledged a retransmitted segment (ns-3's
    /// `m_isRetransDataAcked`).
    pub retransmission_acked: bool,
    /// RFC 6675 pipe after the ACK was processed.
    pub pipe: u64,
    /// The target the window comes down to.
    pub ssthresh: u64,
    pub mss: u64,
}

/// One recovery's PRR state (RFC 6937 section 3's variables, in bytes).
#[derive(Copy, Clone, Debug, Default)]
pub struct Prr {
    rule: PrrRule,
    /// RecoverFS: what the reduction is proportional to.
    recover_fs: u64,
    /// prr_delivered: data delivered to the receiver since recovery started.
    delivered: u64,
    /// prr_out: data sent since recovery started.
    out: u64,
    /// pipe + sndcnt of the last ACK that delivered something; None before the first.
    window: Option<u64>,
    /// The current recovery runs PRR (not so without SACK or with a rate-based sender).
    active: bool,
}

impl Prr {
    pub fn new(rule: PrrRule) -> Self {
        Prr {
            rule,
            ..Prr::default()
        }
    }

    /// Recovery starts. `flight_size` is SND.NXT - SND.UNA, `pipe` RFC 6675's pipe (with the
    /// first segment marked lost) and `prior_cwnd` the window before the reduction.
    pub fn enter(&mut self, flight_size: u64, pipe: u64, prior_cwnd: u64) {
        self.recover_fs = match self.rule {
            PrrRule::Off => return,
            PrrRule::Rfc6937 => flight_size,
            PrrRule::Linux => prior_cwnd,
            PrrRule::Ns3 => pipe,
        }
        .max(1);
        self.active = true;
        self.delivered = 0;
        self.out = 0;
        self.window = None;
    }

    /// RFC 6937 section 3, "On every ACK during recovery": the new window, or None while
    /// the rule is off or nothing has been delivered yet (the window then stays where the
    /// endpoint had it).
    pub fn on_ack(&mut self, a: &PrrAck) -> Option<u64> {
        if !self.active {
            return None;
        }
        let mut delivered = a.delivered;
        if self.rule == PrrRule::Ns3 && a.dup_ack && self.delivered < self.recover_fs {
            // ns-3 3.44 adds an SMSS per duplicate ACK even when SACK reported the data.
            delivered += a.mss;
        }
        if delivered == 0 {
            return self.window;
        }
        self.delivered += delivered;
        let sndcnt = if a.pipe > a.ssthresh {
            // Proportional part: ceil(prr_delivered * ssthresh / RecoverFS) - prr_out.
            let product = if self.rule == PrrRule::Ns3 {
                // ns-3 3.44 multiplies two uint32_t before converting to double, so the
                // product wraps at 2^32 (prr_delivered and ssthresh both above ~64 kB):
                // it then sends little or nothing until pipe falls to ssthresh (fixed after
                // 3.44, ns-3 issue #1282).
                (self.delivered as u32).wrapping_mul(a.ssthresh as u32) as u128
            } else {
                self.delivered as u128 * a.ssthresh as u128
            };
            let due = product.div_ceil(self.recover_fs as u128);
            (due as u64).saturating_sub(self.out)
        } else {
            // The reduction bound: catch up on what was delivered and not yet sent (CRB),
            // plus one SMSS to grow back towards ssthresh (SSRB) when recovery progresses.
            let ssrb = match self.rule {
                PrrRule::Off | PrrRule::Rfc6937 => true,
                PrrRule::Linux => a.una_advanced && !a.newly_lost,
                PrrRule::Ns3 => a.retransmission_acked,
            };
            let limit = self.delivered.saturating_sub(self.out).max(delivered)
                + if ssrb { a.mss } else { 0 };
            limit.min(a.ssthresh - a.pipe)
        };
        // The fast retransmission goes on the entering ACK whatever the arithmetic says.
        let sndcnt = if self.out == 0 {
            sndcnt.max(a.mss)
        } else {
            sndcnt
        };
        let w = a.pipe + sndcnt;
        self.window = Some(w);
        Some(w)
    }

    /// RFC 6937: prr_out += data sent (new data and retransmissions alike).
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// The congestion window PRR allows now (None: not set yet in this recovery).
    pub fn window(&self) -> Option<u64> {
        if self.active {
            self.window
        } else {
            None
        }
    }

    /// This recovery runs without PRR.
    pub fn deactivate(&mut self) {
        self.active = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(delivered: u64, pipe: u64, ssthresh: u64) -> PrrAck {
        PrrAck {
            delivered,
            dup_ack: delivered > 0,
            pipe,
            ssthresh,
            mss: MSS,
            ..PrrAck::default()
        }
    }

    /// RFC 6937 appendix A's example: 20 segments in flight, one lost, ssthresh 10. Each
    /// duplicate ACK delivers one segment; PRR sends one segment for every two delivered,
    /// so after the 19 duplicate ACKs 10 segments have gone (the retransmission first)
    /// and the window stands at ssthresh, where RFC 6675 would have sent nothing for the
    /// first 9 ACKs and then one per ACK.
    #[test]
    fn halves_the_sending_rate_over_one_round_trip() {
        let mut p = Prr::new(PrrRule::Rfc6937);
        p.enter(20 * MSS, 19 * MSS, 20 * MSS);
        let mut pipe = 19 * MSS;
        let mut sent = Vec::new();
        for _ in 0..19 {
            pipe -= MSS; // one segment left the network
            let w = p.on_ack(&ack(MSS, pipe, 10 * MSS)).unwrap();
            let n = w.saturating_sub(pipe) / MSS;
            p.on_sent(n * MSS);
            pipe += n * MSS;
            sent.push(n);
        }
        assert_eq!(sent.iter().sum::<u64>(), 10, "{sent:?}");
        // Interleaved: 1, 0, 1, 0, ... never a burst.
        assert!(sent.iter().all(|&n| n <= 1), "{sent:?}");
        assert_eq!(sent[0], 1, "the fast retransmission goes on the first ACK");
        assert_eq!(pipe, 10 * MSS);
    }

    /// Below ssthresh (heavy losses), the SSRB grows the window by at most one SMSS more
    /// than was delivered; Linux's CRB (an ACK marking a new loss) only sends what was
    /// delivered.
    #[test]
    fn reduction_bounds() {
        let mut rfc = Prr::new(PrrRule::Rfc6937);
        let mut linux = Prr::new(PrrRule::Linux);
        for p in [&mut rfc, &mut linux] {
            p.enter(20 * MSS, 5 * MSS, 20 * MSS);
            p.on_sent(MSS); // the fast retransmission
        }
        let mut a = ack(2 * MSS, 4 * MSS, 10 * MSS);
        a.newly_lost = true;
        // prr_delivered 2, prr_out 1: max(1, 2) = 2 segments, + 1 for SSRB.
        assert_eq!(rfc.on_ack(&a), Some(4 * MSS + 3 * MSS));
        assert_eq!(linux.on_ack(&a), Some(4 * MSS + 2 * MSS));
        // Linux uses the SSRB once SND.UNA advances with no new loss.
        a.newly_lost = false;
        a.una_advanced = true;
        assert_eq!(linux.on_ack(&a), Some(4 * MSS + 4 * MSS));
        // Never above ssthresh.
        let big = ack(30 * MSS, 9 * MSS, 10 * MSS);
        assert_eq!(rfc.on_ack(&big), Some(10 * MSS));
    }

    /// ns-3 3.44 counts an SMSS per duplicate ACK on top of the SACKed bytes, so it sends
    /// about twice RFC 6937's share while pipe is above ssthresh.
    #[test]
    fn ns3_counts_duplicate_acks_twice() {
        let mut ns3 = Prr::new(PrrRule::Ns3);
        let mut rfc = Prr::new(PrrRule::Rfc6937);
        ns3.enter(20 * MSS, 20 * MSS, 20 * MSS);
        rfc.enter(20 * MSS, 20 * MSS, 20 * MSS);
        for p in [&mut ns3, &mut rfc] {
            p.on_sent(MSS);
        }
        // Four duplicate ACKs of one segment each, pipe 18 (> ssthresh 10).
        let (mut wn, mut wr) = (0, 0);
        for _ in 0..4 {
            wn = ns3.on_ack(&ack(MSS, 18 * MSS, 10 * MSS)).unwrap();
            wr = rfc.on_ack(&ack(MSS, 18 * MSS, 10 * MSS)).unwrap();
        }
        // ns-3: ceil(8 * 10 / 20) - 1 = 3; RFC: ceil(4 * 10 / 20) - 1 = 1.
        assert_eq!((wn - 18 * MSS) / MSS, 3);
        assert_eq!((wr - 18 * MSS) / MSS, 1);
    }

    /// ns-3 3.44 computes prr_delivered * ssthresh in 32 bits: past 2^32 the proportional
    /// share wraps to a fraction of itself. 100 kB delivered with a 100 kB ssthresh over
    /// RecoverFS 200 kB is 50 kB due by RFC 6937, 7 051 B in ns-3 3.44.
    #[test]
    fn ns3_product_wraps_at_32_bits() {
        let big = |rule| {
            let mut p = Prr::new(rule);
            p.enter(200_000, 200_000, 200_000);
            let a = PrrAck {
                delivered: 100_000,
                pipe: 150_000,
                ssthresh: 100_000,
                mss: MSS,
                ..PrrAck::default()
            };
            p.on_ack(&a).unwrap() - 150_000
        };
        assert_eq!(big(PrrRule::Rfc6937), 50_000);
        assert_eq!(
            big(PrrRule::Ns3),
            (10_000_000_000u64 % (1 << 32)).div_ceil(200_000)
        );
        assert_eq!(big(PrrRule::Ns3), 7_051);
    }

    #[test]
    fn off_never_sets_a_window() {
        let mut p = Prr::new(PrrRule::Off);
        p.enter(10 * MSS, 10 * MSS, 10 * MSS);
        assert_eq!(p.on_ack(&ack(MSS, 5 * MSS, 5 * MSS)), None);
        assert_eq!(p.window(), None);
    }
}
