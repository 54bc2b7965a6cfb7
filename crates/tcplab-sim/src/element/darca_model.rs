//! DARCA's Throughput Control Model and redistribution (Zeng & Yao, "A Drop Aware TCP Rate
//! Control Algorithm for Heterogenic Internet Access", sections 2 and 3): the pure parts the
//! DARCA edge-router element is built from.
//!
//! - TCP's throughput as the Mathis et al. model gives it, `BW = MSS / RTT x sqrt(3 / (2p))`,
//!   inverted for the drop rate `p_tot` that brings a connection to its target TBW, and the
//!   extra drop rate `p_con` that adds to the path's own `p_orig`:
//!   `p_tot = 1 - (1 - p_orig)(1 - p_con)` (section 2); or, instead of drops, the extra
//!   delay `RTT_con` that does the same at `p_orig`.
//! - The round periods of eqs. 1 and 2 in the same Mathis form: `W = sqrt(3 / (2p))` packets
//!   is the window at drop rate p; the convergence period is `max_i W_i x RTT_i` (eq. 1 as
//!   printed) and the measurement period `max_i sqrt(2 / (3 p_i)) x RTT_i` (eq. 2 as printed),
//!   which is two thirds of it. A connection that sees no drop at all (`p = 0`) is not limited
//!   by losses but by its receiver window: `W = rwnd / MSS` then (the paper's senders have a
//!   65536-byte window).
//! - Rate enforcement by drop counters with deterministic spacing (error diffusion): each data
//!   packet adds `p_con` to the counter and is dropped when it reaches 1, so exactly
//!   `floor(n x p_con)` or one more of n packets are dropped, at even spacing, with no random
//!   draw.
//! - The proportional policy (Figs. 6 to 8): remotely bottlenecked connections give up what
//!   they cannot use, and the excess goes to the others in proportion to their administrative
//!   targets (section 4.2: "the excess bandwidth 250kbps from TCP_2 goes to TCP_1", then, when
//!   TCP_3 joins, "redistributed to TCP_1 and TCP_2 fairly because TBW_1 equals to TBW_3": TCP_3
//!   must be meant, TCP_2 being the remote one that gives the excess).
//! - The representative RTT of a class (eq. 5, the harmonic mean) or the midpoint of its range.

/// Mathis et al.'s throughput, bytes per second, at drop rate `p` (0 < p <= 1) and round trip
/// `rtt_s`: `MSS / RTT x sqrt(3 / (2p))`.
pub fn mathis_bw(mss: f64, rtt_s: f64, p: f64) -> f64 {
    mss / rtt_s * (3.0 / (2.0 * p)).sqrt()
}

/// The end-to-end drop rate at which Mathis's model gives `tbw` bytes per second: `p_tot =
/// 3/2 (MSS / (RTT x TBW))^2`, at most 1.
pub fn p_tot_for(tbw: f64, mss: f64, rtt_s: f64) -> f64 {
    if tbw <= 0.0 {
        return 1.0;
    }
    (1.5 * (mss / (rtt_s * tbw)).powi(2)).min(1.0)
}

/// What the control point must add for a target: an extra drop rate, or (when the path
/// already drops more than the target allows) nothing, since drops cannot speed a flow up.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Control {
    /// The end-to-end drop rate the target needs.
    pub p_tot: f64,
    /// The extra drop rate to introduce, `1 - (1 - p_tot) / (1 - p_orig)`, or 0.
    pub p_con: f64,
}

/// `p_con` from `p_tot = 1 - (1 - p_orig)(1 - p_con)` for target `tbw` (bytes per second).
/// With `p_orig = 0` (no drop seen) the extra rate is the whole `p_tot`; with `p_orig >=
/// p_tot` it is 0 (the flow is already slower than the target by the model).
pub fn control_for(tbw: f64, mss: f64, rtt_s: f64, p_orig: f64) -> Control {
    let p_tot = p_tot_for(tbw, mss, rtt_s);
    let p_orig = p_orig.clamp(0.0, 1.0);
    let p_con = if p_orig >= p_tot || p_orig >= 1.0 {
        0.0
    } else if p_orig == 0.0 {
        p_tot
    } else {
        (1.0 - (1.0 - p_tot) / (1.0 - p_orig)).clamp(0.0, 1.0)
    };
    Control { p_tot, p_con }
}

/// The alternative to drops: the extra round-trip delay `RTT_con` that brings the flow to
/// `tbw` at its own drop rate `p_orig`, `RTT_tot = MSS / TBW x sqrt(3 / (2 p_orig))`, minus
/// the RTT it has. None when the path drops nothing (`p_orig = 0`: no delay brings a
/// loss-free flow to a target in Mathis's model, its window is the receiver's) or when the
/// flow is already below the target.
pub fn rtt_con_for(tbw: f64, mss: f64, rtt_s: f64, p_orig: f64) -> Option<f64> {
    if p_orig <= 0.0 || tbw <= 0.0 {
        return None;
    }
    let rtt_tot = mss / tbw * (3.0 / (2.0 * p_orig)).sqrt();
    (rtt_tot > rtt_s).then_some(rtt_tot - rtt_s)
}

/// The window, in packets, of Mathis's model at drop rate `p`: `sqrt(3 / (2p))`, or the
/// receiver window when there is no drop.
pub fn mathis_window_pkts(p: f64, rwnd_pkts: f64) -> f64 {
    if p <= 0.0 {
        rwnd_pkts
    } else {
        (3.0 / (2.0 * p)).sqrt().min(rwnd_pkts.max(1.0))
    }
}

/// Eqs. 1 and 2: (convergence period, measurement period) in seconds over connections given
/// as (p_tot, RTT_tot seconds, receiver window in packets).
pub fn periods(conns: &[(f64, f64, f64)]) -> (f64, f64) {
    let mut conv: f64 = 0.0;
    for &(p, rtt, rwnd) in conns {
        conv = conv.max(mathis_window_pkts(p, rwnd) * rtt);
    }
    // sqrt(2 / (3p)) = (2/3) sqrt(3 / (2p)).
    (conv, conv * 2.0 / 3.0)
}

/// A drop counter with deterministic spacing: `p` added per data packet, a drop each time it
/// reaches 1. In fixed point (`p` in units of 2^-32, rounded to nearest), so that a rate of
/// 1/n drops exactly every n-th packet, which accumulated floats would miss by one.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct DropCounter {
    acc: u64,
    pub dropped: u64,
    pub seen: u64,
}

const ONE: u64 = 1 << 32;

impl DropCounter {
    /// Whether this data packet is to be dropped at rate `p`.
    pub fn on_data(&mut self, p: f64) -> bool {
        self.seen += 1;
        self.acc += (p.clamp(0.0, 1.0) * ONE as f64).round() as u64;
        if self.acc >= ONE {
            self.acc -= ONE;
            self.dropped += 1;
            true
        } else {
            false
        }
    }
}

/// One connection (or class) in the proportional policy.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Share {
    /// The administrative target.
    pub admin: f64,
    /// What a remotely bottlenecked connection was revised down to (None: not remote).
    pub remote_cap: Option<f64>,
    /// Present. A connection that has not joined or has left is not administered at all
    /// (Fig. 6: when TCP_1 leaves, only "the excess bandwidth originally received by TCP_1"
    /// moves on); one that is present but stopped sending is remote with a cap of 0 (Fig. 7:
    /// its whole target goes to the others).
    pub active: bool,
}

/// The proportional policy: each remote connection's target is its cap, an absent one's 0;
/// what the remote connections leave of their administrative targets goes to the other
/// present connections in proportion to their administrative targets.
pub fn redistribute(shares: &[Share]) -> Vec<f64> {
    let mut excess = 0.0;
    let mut weight = 0.0;
    for s in shares {
        match (s.active, s.remote_cap) {
            (false, _) => {}
            (true, Some(cap)) => excess += (s.admin - cap).max(0.0),
            (true, None) => weight += s.admin,
        }
    }
    shares
        .iter()
        .map(|s| match (s.active, s.remote_cap) {
            (false, _) => 0.0,
            (true, Some(cap)) => cap.min(s.admin),
            (true, None) if weight > 0.0 => s.admin + excess * s.admin / weight,
            (true, None) => s.admin,
        })
        .collect()
}

/// A learning round's revision of a remotely bottlenecked connection's target (section 2:
/// "DARCA updates its TBW_i to TBW_i * 0.8"), never below what it was measured to carry
/// (Fig. 5 ends at 257 kbit/s, a measured rate, not a power of 0.8 times 750).
pub fn revise_remote(tbw: f64, rbw: f64, factor: f64) -> f64 {
    (tbw * factor).max(rbw).min(tbw)
}

/// Whether a realised throughput meets its target within `tolerance` (relative).
pub fn is_stable(rbw: f64, tbw: f64, tolerance: f64) -> bool {
    if tbw <= 0.0 {
        return rbw <= 0.0;
    }
    (rbw / tbw - 1.0).abs() <= tolerance
}

/// Eq. 5: the representative RTT of a class, the harmonic mean of its members' RTTs.
pub fn class_rtt_harmonic(rtts: &[f64]) -> Option<f64> {
    if rtts.is_empty() || rtts.iter().any(|&r| r <= 0.0) {
        return None;
    }
    let inv: f64 = rtts.iter().map(|r| 1.0 / r).sum();
    Some(rtts.len() as f64 / inv)
}

/// The other option of section 3: the middle of the class's RTT range.
pub fn class_rtt_midpoint(lo: f64, hi: f64) -> f64 {
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: f64 = 1460.0;

    #[test]
    fn the_inversion_gives_back_the_target_through_mathis() {
        // p_tot = 3/2 (MSS / (RTT TBW))^2, and Mathis at p_tot is TBW again.
        for &(tbw, rtt) in &[(250e3 / 8.0, 0.1), (750e3 / 8.0, 0.05), (3e6 / 8.0, 0.2)] {
            let p = p_tot_for(tbw, MSS, rtt);
            assert!(
                (mathis_bw(MSS, rtt, p) / tbw - 1.0).abs() < 1e-12,
                "{tbw} {rtt} {p}"
            );
        }
        // 250 kbit/s over 100 ms with 1460-byte segments: (1460 / (0.1 x 31250))^2 x 1.5.
        let p = p_tot_for(31_250.0, MSS, 0.1);
        assert!((p - 1.5 * (1460.0f64 / 3125.0).powi(2)).abs() < 1e-15);
        // A target below one segment per RTT needs every packet dropped: capped at 1.
        assert_eq!(p_tot_for(100.0, MSS, 0.1), 1.0);
        assert_eq!(p_tot_for(0.0, MSS, 0.1), 1.0);
    }

    #[test]
    fn p_con_composes_with_p_orig_as_section_2_says() {
        let tbw = 500e3 / 8.0;
        let c = control_for(tbw, MSS, 0.08, 0.01);
        // p_tot = 1 - (1 - p_orig)(1 - p_con).
        assert!((1.0 - (1.0 - 0.01) * (1.0 - c.p_con) - c.p_tot).abs() < 1e-15);
        // p_orig = 0: the whole p_tot.
        let c0 = control_for(tbw, MSS, 0.08, 0.0);
        assert_eq!(c0.p_con, c0.p_tot);
        // The path already drops more than the target allows: nothing to add.
        let c1 = control_for(tbw, MSS, 0.08, 0.5);
        assert_eq!(c1.p_con, 0.0);
        assert!(c1.p_tot < 0.5);
    }

    #[test]
    fn rtt_con_is_the_delay_alternative() {
        let tbw = 250e3 / 8.0;
        let p = 0.001;
        let extra = rtt_con_for(tbw, MSS, 0.05, p).unwrap();
        assert!((mathis_bw(MSS, 0.05 + extra, p) / tbw - 1.0).abs() < 1e-12);
        assert_eq!(
            rtt_con_for(tbw, MSS, 0.05, 0.0),
            None,
            "no drops: no delay does it"
        );
        assert_eq!(
            rtt_con_for(1e9, MSS, 0.05, p),
            None,
            "already below the target"
        );
    }

    #[test]
    fn periods_follow_eqs_1_and_2_in_the_mathis_form() {
        // W = sqrt(3 / 2p): p = 0.015 gives W = 10 packets.
        let (conv, meas) = periods(&[(0.015, 0.1, 44.0), (0.06, 0.2, 44.0)]);
        // max(10 x 0.1, 5 x 0.2) = 1 s; eq. 2: sqrt(2 / 3p) RTT = (2/3) of it.
        assert!((conv - 1.0).abs() < 1e-12);
        assert!((meas - 2.0 / 3.0).abs() < 1e-12);
        // No drop: the receiver window bounds W (65536 B / 1460 B = 44.9 packets).
        let (conv, _) = periods(&[(0.0, 0.1, 65536.0 / MSS)]);
        assert!((conv - 65536.0 / MSS * 0.1).abs() < 1e-12);
    }

    #[test]
    fn drop_counters_space_drops_evenly_and_exactly() {
        let mut c = DropCounter::default();
        let drops: Vec<u64> = (1..=100).filter(|_| c.on_data(0.1)).collect();
        assert_eq!(drops.len(), 10);
        // Every 10th packet.
        assert!(drops.windows(2).all(|w| w[1] - w[0] == 10), "{drops:?}");
        let mut c = DropCounter::default();
        for _ in 0..1000 {
            c.on_data(0.0123);
        }
        assert!(c.dropped == 12 || c.dropped == 13);
        let mut c = DropCounter::default();
        assert!((0..5).all(|_| !c.on_data(0.0)));
        assert!((0..5).all(|_| c.on_data(1.0)));
    }

    #[test]
    fn proportional_redistribution_of_figs_6_and_7() {
        let local = |admin| Share {
            admin,
            remote_cap: None,
            active: true,
        };
        let remote = |admin, cap| Share {
            admin,
            remote_cap: Some(cap),
            active: true,
        };
        // Fig. 6: TCP_2 (500, remote at 250) gives 250 to TCP_1 (250): 500 and 250.
        assert_eq!(
            redistribute(&[local(250.0), remote(500.0, 250.0)]),
            vec![500.0, 250.0]
        );
        // TCP_3 (250) joins: the 250 of excess is shared "fairly because TBW_1 equals to
        // TBW_3" (the paper's "TCP_1 and TCP_2" must mean TCP_1 and TCP_3).
        assert_eq!(
            redistribute(&[local(250.0), remote(500.0, 250.0), local(250.0)]),
            vec![375.0, 250.0, 375.0]
        );
        // Fig. 7 (a): the remote bottleneck falls to 100: "the updated TBWs are 650kbps and
        // 100kbps"; (b) TCP_2 stops: "750kbps and 0kbps".
        assert_eq!(
            redistribute(&[local(250.0), remote(500.0, 100.0)]),
            vec![650.0, 100.0]
        );
        assert_eq!(
            redistribute(&[local(250.0), remote(500.0, 0.0)]),
            vec![750.0, 0.0]
        );
        // Fig. 6 at 200 s: TCP_1 leaves; "the excess bandwidth originally received by TCP_1
        // is now redistributed to TCP_3" (its own 250 is no longer administered).
        let gone = Share {
            admin: 250.0,
            remote_cap: None,
            active: false,
        };
        assert_eq!(
            redistribute(&[gone, remote(500.0, 250.0), local(250.0)]),
            vec![0.0, 250.0, 500.0]
        );
        // Proportional to the administrative targets.
        assert_eq!(
            redistribute(&[local(100.0), local(300.0), remote(400.0, 0.0)]),
            vec![200.0, 600.0, 0.0]
        );
    }

    #[test]
    fn learning_rounds_revise_remote_targets_by_0_8_down_to_the_measured_rate() {
        // Fig. 5: TBW_4 = 750 with a 250 kbit/s remote bottleneck, measured at 257.
        let mut t = 750.0;
        let mut rounds = vec![];
        while t > 257.0 {
            t = revise_remote(t, 257.0, 0.8);
            rounds.push(t);
        }
        assert_eq!(rounds, vec![600.0, 480.0, 384.0, 307.20000000000005, 257.0]);
        // A measurement above the target never raises it.
        assert_eq!(revise_remote(300.0, 400.0, 0.8), 300.0);
        assert_eq!(revise_remote(300.0, 0.0, 0.8), 240.0);
    }

    #[test]
    fn stability_tolerance_and_class_rtts() {
        assert!(is_stable(520.0, 500.0, 0.05));
        assert!(!is_stable(530.0, 500.0, 0.05));
        assert!(is_stable(0.0, 0.0, 0.05));
        // Eq. 5: fn / sum(1 / R_i).
        let r = class_rtt_harmonic(&[0.05, 0.1, 0.2]).unwrap();
        assert!((r - 3.0 / (20.0 + 10.0 + 5.0)).abs() < 1e-15);
        assert_eq!(class_rtt_harmonic(&[]), None);
        assert_eq!(class_rtt_midpoint(0.05, 0.15), 0.1);
    }
}
