//! Loss models of a link: Bernoulli (independent), the two-state Gilbert-Elliott channel
//! (Gilbert 1960, Elliott 1963) stepped once per packet, and ns-2's deterministic periodic
//! model (`ErrorModel/Periodic`, ns-2.35 `queue/errmodel.cc`), which drops evenly spaced
//! packets: the loss pattern Mathis et al.'s throughput model assumes (one loss every 1/p
//! packets), and the one DARCA's drop counters impose.

use crate::config::LossSpec;
use crate::error::SimError;
use tcplab_core::Rng;

/// A link's loss process. The RNG is passed in (the link owns its stream, derived from
/// `(seed, link, "loss")`), so the model itself is plain data.
#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    /// Never loses and never draws from the RNG.
    None,
    /// Each packet is lost independently with probability `p` (one draw per packet).
    Bernoulli { p: f64 },
    /// Gilbert-Elliott channel. Per packet, in this order: (1) the chain makes one
    /// transition (Good->Bad with `p_good_to_bad`, Bad->Good with `p_bad_to_good`),
    /// (2) the packet is lost with the loss probability of the *new* state. It starts in
    /// Good. Exactly two draws per packet, whatever the state, so the stream position
    /// depends only on the packet count. Stationary loss rate:
    /// `pi_B * loss_bad + pi_G * loss_good` with `pi_B = p_gb / (p_gb + p_bg)`.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
    },
    /// Every `period`-th packet, the first at the `offset`-th (1-based; 0 counts as 1).
    /// `count` is the packets transmitted since the last loss (or since the start, before
    /// the first): ns-2's `cnt_`, reset at each loss.
    Periodic {
        period: u64,
        offset: u64,
        count: u64,
        started: bool,
    },
}

fn probability(field: &str, p: f64) -> Result<f64, SimError> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(SimError::Config(format!(
            "loss.{field} = {p}: expected a probability between 0 and 1"
        )))
    }
}

impl LossModel {
    pub fn from_spec(spec: &LossSpec) -> Result<LossModel, SimError> {
        Ok(match *spec {
            LossSpec::None => LossModel::None,
            LossSpec::Bernoulli { p } => LossModel::Bernoulli {
                p: probability("p", p)?,
            },
            LossSpec::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => LossModel::GilbertElliott {
                p_good_to_bad: probability("p_good_to_bad", p_good_to_bad)?,
                p_bad_to_good: probability("p_bad_to_good", p_bad_to_good)?,
                loss_good: probability("loss_good", loss_good)?,
                loss_bad: probability("loss_bad", loss_bad)?,
                bad: false,
            },
            LossSpec::Periodic { period, offset } => {
                if period == 0 {
                    return Err(SimError::Config(
                        "loss.period = 0: expected a period of at least 1 packet".into(),
                    ));
                }
                LossModel::Periodic {
                    period,
                    offset,
                    count: 0,
                    started: false,
                }
            }
        })
    }

    /// Decides the fate of one packet (true: lost); steps the Gilbert-Elliott chain once.
    #[inline]
    pub fn lose(&mut self, rng: &mut Rng) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.bernoulli(*p),
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
                bad,
            } => {
                let flip = if *bad { *p_bad_to_good } else { *p_good_to_bad };
                *bad ^= rng.bernoulli(flip);
                rng.bernoulli(if *bad { *loss_bad } else { *loss_good })
            }
            LossModel::Periodic {
                period,
                offset,
                count,
                started,
            } => {
                *count += 1;
                let due = if *started { *period } else { *offset };
                if *count >= due {
                    *started = true;
                    *count = 0;
                    true
                } else {
                    false
                }
            }
        }
    }

    /// The long-run fraction of packets lost (for reports and tests).
    pub fn stationary_loss_rate(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
                ..
            } => {
                let s = p_good_to_bad + p_bad_to_good;
                // Both zero: the chain never leaves Good.
                let pi_bad = if s > 0.0 { p_good_to_bad / s } else { 0.0 };
                pi_bad * loss_bad + (1.0 - pi_bad) * loss_good
            }
            LossModel::Periodic { period, .. } => 1.0 / period as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(p_gb: f64, p_bg: f64, lg: f64, lb: f64) -> LossSpec {
        LossSpec::GilbertElliott {
            p_good_to_bad: p_gb,
            p_bad_to_good: p_bg,
            loss_good: lg,
            loss_bad: lb,
        }
    }

    fn rate(m: &mut LossModel, seed: u64, n: usize) -> f64 {
        let mut rng = Rng::derive(seed, 0, "loss");
        (0..n).filter(|_| m.lose(&mut rng)).count() as f64 / n as f64
    }

    #[test]
    fn none_never_draws() {
        let mut m = LossModel::from_spec(&LossSpec::None).unwrap();
        let mut rng = Rng::from_seed(5);
        for _ in 0..100 {
            assert!(!m.lose(&mut rng));
        }
        assert_eq!(rng.next_u64(), Rng::from_seed(5).next_u64());
    }

    #[test]
    fn periodic_loses_the_offset_th_packet_then_every_period_th_and_never_draws() {
        let lost = |period, offset| {
            let mut m = LossModel::from_spec(&LossSpec::Periodic { period, offset }).unwrap();
            let mut rng = Rng::from_seed(5);
            let v: Vec<u64> = (1..=20).filter(|_| m.lose(&mut rng)).collect();
            assert_eq!(rng.next_u64(), Rng::from_seed(5).next_u64());
            v
        };
        // ns-2's PeriodicErrorModel (pkt units): first loss when cnt_ >= offset_, then
        // cnt_ resets and every period_-th packet after it is lost.
        assert_eq!(lost(5, 5), vec![5, 10, 15, 20]);
        assert_eq!(lost(7, 3), vec![3, 10, 17]);
        assert_eq!(lost(4, 0), vec![1, 5, 9, 13, 17]);
        assert_eq!(lost(4, 1), vec![1, 5, 9, 13, 17]);
        assert_eq!(lost(1, 2), (2..=20).collect::<Vec<_>>());
        assert!(LossModel::from_spec(&LossSpec::Periodic {
            period: 0,
            offset: 1
        })
        .is_err());
    }

    #[test]
    fn bernoulli_rate_matches_p() {
        let mut m = LossModel::from_spec(&LossSpec::Bernoulli { p: 0.02 }).unwrap();
        let r = rate(&mut m, 1, 200_000);
        assert!((r - 0.02).abs() < 0.0015, "rate {r}");
    }

    #[test]
    fn gilbert_elliott_matches_the_stationary_formula() {
        // pi_B = 0.01 / (0.01 + 0.2) = 0.0476; loss = 0.0476 * 0.5 + 0.9524 * 0.001 = 0.0248.
        let mut m = LossModel::from_spec(&ge(0.01, 0.2, 0.001, 0.5)).unwrap();
        let want = m.stationary_loss_rate();
        assert!((want - 0.024762).abs() < 1e-5, "{want}");
        let r = rate(&mut m, 2, 400_000);
        // Bursty losses have a larger variance than Bernoulli: allow 10 % relative error.
        assert!((r - want).abs() < 0.1 * want, "rate {r} vs {want}");
    }

    #[test]
    fn gilbert_elliott_losses_are_bursty() {
        // Default loss_bad = 1: every packet in Bad is lost, mean burst 1 / p_bg = 5.
        let mut m = LossModel::from_spec(&ge(0.01, 0.2, 0.0, 1.0)).unwrap();
        let mut rng = Rng::from_seed(3);
        let (mut bursts, mut lost, mut prev) = (0u64, 0u64, false);
        for _ in 0..200_000 {
            let l = m.lose(&mut rng);
            lost += l as u64;
            bursts += (l && !prev) as u64;
            prev = l;
        }
        let mean_burst = lost as f64 / bursts as f64;
        assert!((mean_burst - 5.0).abs() < 0.5, "mean burst {mean_burst}");
    }

    #[test]
    fn transition_happens_before_the_loss_draw() {
        // p_gb = 1: the first packet already sees Bad and is lost with loss_bad = 1.
        let mut m = LossModel::from_spec(&ge(1.0, 0.0, 0.0, 1.0)).unwrap();
        assert!(m.lose(&mut Rng::from_seed(1)));
    }

    #[test]
    fn same_seed_same_losses() {
        let spec = ge(0.05, 0.3, 0.01, 0.7);
        let run = |seed| {
            let mut m = LossModel::from_spec(&spec).unwrap();
            let mut rng = Rng::derive(seed, 4, "loss");
            (0..1000).map(|_| m.lose(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(run(9), run(9));
        assert_ne!(run(9), run(10));
    }

    #[test]
    fn probabilities_outside_0_1_are_rejected() {
        for spec in [
            LossSpec::Bernoulli { p: 1.5 },
            LossSpec::Bernoulli { p: f64::NAN },
            ge(0.1, -0.1, 0.0, 1.0),
        ] {
            match LossModel::from_spec(&spec) {
                Err(SimError::Config(m)) => assert!(m.contains("between 0 and 1"), "{m}"),
                r => panic!("{r:?}"),
            }
        }
        assert!(LossModel::from_spec(&LossSpec::Bernoulli { p: 1.0 }).is_ok());
    }
}
