//! DARCA's control cycle (Zeng & Yao, section 2, Figs. 3 and 4) as a state machine fed with
//! measurements, apart from packets and timers so that every transition can be tested: the
//! element asks it for targets, runs a round (rate enforcement, then a measurement after the
//! convergence period), and hands it the realised throughputs.
//!
//! - **Initial**: every target is its administrative value; after the round's measurement
//!   each connection's `isSTABLE` is set and the cycle moves to Learning.
//! - **Learning**: at the start of each round, a connection that is not stable and carries
//!   less than its target is inferred to be remotely bottlenecked; its target becomes
//!   `max(0.8 x TBW, RBW)` (`darca_model::revise_remote`), and the proportional policy
//!   redistributes what the remote connections leave (`darca_model::redistribute`). When
//!   every connection is stable after a round, the cycle moves to Stable.
//! - **Stable**: measurements go on; when one breaks the stable criterion, or the stable phase
//!   has lasted `max_stable` (about 100 s in Fig. 7), the cycle restarts at Initial.
//! - **Joins and leaves** change the set of present connections; the targets are
//!   redistributed at once and the cycle goes on (Fig. 6: a join at 100 s and a leave at
//!   200 s are absorbed without a restart). A connection that stops sending stays present
//!   and is found remote, down to a cap of 0, by the learning rounds (Fig. 7).
//!
//! "Stable" means the realised throughput is within `tolerance` of the target (relative; the
//! paper gives no value).

use super::darca_model::{is_stable, redistribute, revise_remote, Share};
use tcplab_core::{Duration, Instant};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Initial,
    Learning,
    Stable,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CycleConfig {
    /// The learning revision factor (section 2: 0.8).
    pub factor: f64,
    /// Relative distance from the target that still counts as stable.
    pub tolerance: f64,
    /// Longest stable phase before the cycle restarts (Fig. 7: about 100 s).
    pub max_stable: Duration,
}

/// One connection (or class) under control.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Conn {
    pub admin: f64,
    /// The revised target of a connection inferred remote in this cycle.
    pub remote_cap: Option<f64>,
    pub active: bool,
    pub stable: bool,
}

#[derive(Clone, Debug)]
pub struct Cycle {
    cfg: CycleConfig,
    pub phase: Phase,
    conns: Vec<Conn>,
    /// Current targets, one per connection (0 for inactive ones).
    targets: Vec<f64>,
    stable_since: Option<Instant>,
    /// Counts of what happened, for the report.
    pub cycles_started: u64,
    pub learning_rounds: u64,
    /// The current round's `held` flags (see [`Cycle::on_round`]).
    held: Vec<bool>,
    /// The current round's `silent` flags.
    silent: Vec<bool>,
}

impl Cycle {
    /// A cycle over connections with these administrative targets, started at Initial.
    pub fn new(cfg: CycleConfig, admin: &[f64]) -> Self {
        let conns = admin
            .iter()
            .map(|&a| Conn {
                admin: a,
                remote_cap: None,
                active: true,
                stable: false,
            })
            .collect();
        let mut c = Cycle {
            cfg,
            phase: Phase::Initial,
            conns,
            targets: Vec::new(),
            stable_since: None,
            cycles_started: 0,
            learning_rounds: 0,
            held: Vec::new(),
            silent: Vec::new(),
        };
        c.restart();
        c
    }

    /// The targets for the next round.
    pub fn targets(&self) -> &[f64] {
        &self.targets
    }

    pub fn conns(&self) -> &[Conn] {
        &self.conns
    }

    /// Back to Initial: administrative targets, nothing inferred.
    fn restart(&mut self) {
        self.phase = Phase::Initial;
        self.stable_since = None;
        self.cycles_started += 1;
        for c in &mut self.conns {
            c.remote_cap = None;
            c.stable = false;
        }
        self.retarget();
    }

    fn retarget(&mut self) {
        let shares: Vec<Share> = self
            .conns
            .iter()
            .map(|c| Share {
                admin: c.admin,
                remote_cap: c.remote_cap,
                active: c.active,
            })
            .collect();
        self.targets = redistribute(&shares);
    }

    /// A connection joins (`active`) or leaves; the targets are redistributed at once.
    pub fn set_active(&mut self, i: usize, active: bool) {
        if self.conns[i].active != active {
            self.conns[i].active = active;
            self.conns[i].stable = false;
            self.retarget();
        }
    }

    /// The round's measurement: realised throughputs, one per connection, at `now`. Updates
    /// the phase and the targets of the next round.
    pub fn on_measurement(&mut self, now: Instant, rbw: &[f64]) {
        let silent: Vec<bool> = rbw.iter().map(|&r| r <= 0.0).collect();
        self.on_round(now, rbw, &vec![false; rbw.len()], &silent);
    }

    /// As [`Cycle::on_measurement`], with `held[i]`: the control point dropped packets of
    /// connection i in the round. Such a connection's rate is the control's doing, so it is
    /// not inferred remote for being below its target (section 2: a connection DARCA holds
    /// "should eventually reduce or raise up to its TBW"; only one whose bottleneck is
    /// elsewhere "would never" reach it). Without this, a round in which the model's drop rate
    /// overshoots would take a local connection for a remote one and cut its target, and the
    /// next round's higher drop rate would cut it again.
    ///
    /// `silent[i]`: connection i sent no data at all in the round (convergence and
    /// measurement). A remote connection that was silent gets a target of 0 at once (Fig. 7:
    /// "the target bandwidth of stopped TCP_2 is reduced to zero"; 0.8 steps would only
    /// approach it); one that sent something, if only a retransmission after a backoff, is
    /// revised by the factor as any other (a connection blocked by a target of 0 that
    /// comes back after a restart is in retransmission backoff, and may send nothing during
    /// one measurement period).
    pub fn on_round(&mut self, now: Instant, rbw: &[f64], held: &[bool], silent: &[bool]) {
        self.held.clear();
        self.held.extend_from_slice(held);
        self.silent.clear();
        self.silent.extend_from_slice(silent);
        for (i, c) in self.conns.iter_mut().enumerate() {
            c.stable = !c.active || is_stable(rbw[i], self.targets[i], self.cfg.tolerance);
        }
        let all_stable = self.conns.iter().all(|c| c.stable);
        match self.phase {
            Phase::Initial => {
                self.phase = Phase::Learning;
                self.learn(rbw);
            }
            Phase::Learning => {
                if all_stable {
                    self.phase = Phase::Stable;
                    self.stable_since = Some(now);
                } else {
                    self.learn(rbw);
                }
            }
            Phase::Stable => {
                let too_long = self
                    .stable_since
                    .is_some_and(|t| now.saturating_since(t) >= self.cfg.max_stable);
                if !all_stable || too_long {
                    self.restart();
                }
            }
        }
    }

    /// A learning round: connections below their target and not stable are remote.
    fn learn(&mut self, rbw: &[f64]) {
        self.learning_rounds += 1;
        for (i, c) in self.conns.iter_mut().enumerate() {
            if c.active && !c.stable && rbw[i] < self.targets[i] && !self.held[i] {
                c.remote_cap = Some(if self.silent[i] {
                    0.0
                } else {
                    revise_remote(self.targets[i], rbw[i], self.cfg.factor)
                });
            }
        }
        self.retarget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> CycleConfig {
        CycleConfig {
            factor: 0.8,
            tolerance: 0.05,
            max_stable: Duration::from_secs(100),
        }
    }

    fn s(x: u64) -> Instant {
        Instant::from_secs(x)
    }

    #[test]
    fn initial_sets_the_administrative_targets_and_moves_to_learning() {
        let mut c = Cycle::new(cfg(), &[250.0, 500.0, 750.0, 750.0]);
        assert_eq!(c.phase, Phase::Initial);
        assert_eq!(c.targets(), &[250.0, 500.0, 750.0, 750.0]);
        // Fig. 5: TCP_4 is remotely bottlenecked at 250 kbit/s.
        c.on_measurement(s(104), &[250.0, 500.0, 750.0, 257.0]);
        assert_eq!(c.phase, Phase::Learning);
        // The first learning round revises TCP_4 to 0.8 x 750 and hands the 150 to the others
        // in proportion to their targets (250 : 500 : 750).
        assert_eq!(c.conns()[3].remote_cap, Some(600.0));
        let t = c.targets();
        assert!(
            (t[0] - 275.0).abs() < 1e-9
                && (t[1] - 550.0).abs() < 1e-9
                && (t[2] - 825.0).abs() < 1e-9
        );
        assert_eq!(t[3], 600.0);
    }

    #[test]
    fn learning_revises_remote_targets_until_all_are_stable() {
        let mut c = Cycle::new(cfg(), &[250.0, 500.0, 750.0, 750.0]);
        c.on_measurement(s(104), &[250.0, 500.0, 750.0, 257.0]);
        let mut rounds = 0;
        while c.phase == Phase::Learning {
            // The local connections reach their targets; TCP_4 stays at 257.
            let t = c.targets().to_vec();
            c.on_measurement(s(105 + rounds), &[t[0], t[1], t[2], 257.0]);
            rounds += 1;
            assert!(rounds < 20);
        }
        assert_eq!(c.phase, Phase::Stable);
        // 600, 480, 384, 307.2, then the measured 257: Fig. 5's revised TBW_4.
        assert_eq!(c.targets()[3], 257.0);
        assert_eq!(c.learning_rounds, 5);
        // What TCP_4 leaves (493) goes to the others in proportion: they share 1993.
        let sum: f64 = c.targets()[..3].iter().sum();
        assert!((sum - (250.0 + 500.0 + 750.0 + 750.0 - 257.0)).abs() < 1e-9);
    }

    #[test]
    fn a_connection_the_control_holds_is_not_inferred_remote() {
        let mut c = Cycle::new(cfg(), &[250.0, 750.0]);
        // Both run below target; only the second carried its rate without our drops.
        c.on_round(s(1), &[180.0, 300.0], &[true, false], &[false, false]);
        assert_eq!(c.phase, Phase::Learning);
        assert_eq!(
            c.conns()[0].remote_cap,
            None,
            "held by the control: not remote"
        );
        assert_eq!(c.conns()[1].remote_cap, Some(600.0));
        // Nothing measured, but a retransmission seen in the round: a factor step.
        c.on_round(s(2), &[250.0, 0.0], &[true, false], &[false, false]);
        assert_eq!(c.conns()[1].remote_cap, Some(480.0));
        // A stopped connection (nothing at all in the round) goes to 0 at once.
        c.on_round(s(3), &[250.0, 0.0], &[true, false], &[false, true]);
        assert_eq!(c.conns()[1].remote_cap, Some(0.0));
        assert_eq!(c.targets(), &[1000.0, 0.0]);
    }

    #[test]
    fn learning_with_every_connection_stable_moves_to_stable_and_not_before() {
        let mut c = Cycle::new(cfg(), &[500.0, 500.0]);
        c.on_measurement(s(1), &[500.0, 500.0]);
        assert_eq!(c.phase, Phase::Learning);
        // 6% off is outside the 5% tolerance: still learning (and inferred remote).
        c.on_measurement(s(2), &[470.0, 500.0]);
        assert_eq!(c.phase, Phase::Learning);
        let t = c.targets().to_vec();
        c.on_measurement(s(3), &[t[0] * 0.96, t[1] * 1.04]);
        assert_eq!(c.phase, Phase::Stable);
    }

    #[test]
    fn stable_restarts_when_a_measurement_breaks_the_criterion_or_after_max_stable() {
        let mut c = Cycle::new(cfg(), &[500.0, 500.0]);
        c.on_measurement(s(1), &[500.0, 500.0]);
        c.on_measurement(s(2), &[500.0, 500.0]);
        assert_eq!(c.phase, Phase::Stable);
        c.on_measurement(s(50), &[500.0, 500.0]);
        assert_eq!(c.phase, Phase::Stable);
        // A connection falls 10% short: back to Initial with the administrative targets.
        c.on_measurement(s(60), &[450.0, 500.0]);
        assert_eq!((c.phase, c.cycles_started), (Phase::Initial, 2));
        assert_eq!(c.targets(), &[500.0, 500.0]);
        // Stable again, then the stable phase reaches 100 s: restart (Fig. 7's 310 s and 415 s).
        c.on_measurement(s(61), &[500.0, 500.0]);
        c.on_measurement(s(62), &[500.0, 500.0]);
        assert_eq!(c.phase, Phase::Stable);
        c.on_measurement(s(161), &[500.0, 500.0]);
        assert_eq!(c.phase, Phase::Stable, "99 s");
        c.on_measurement(s(162), &[500.0, 500.0]);
        assert_eq!((c.phase, c.cycles_started), (Phase::Initial, 3));
    }

    #[test]
    fn joins_and_leaves_redistribute_at_once() {
        // Fig. 6: TCP_1 (250, local), TCP_2 (500, remote at 250), TCP_3 (250) not yet there.
        let mut c = Cycle::new(cfg(), &[250.0, 500.0, 250.0]);
        c.set_active(2, false);
        c.on_measurement(s(2), &[500.0, 250.0, 0.0]);
        // TCP_1 is above its 250 (stable? no: 100% off) but not below: only TCP_2 is remote.
        while c.phase == Phase::Learning {
            let t = c.targets().to_vec();
            c.on_measurement(s(3), &[t[0], 250.0, 0.0]);
        }
        // Learning stops once TCP_2's revised target is within the tolerance of what it
        // carries (256 against 250): Fig. 6's 500 and 250, to within 5%.
        let t = c.targets().to_vec();
        assert_eq!(c.phase, Phase::Stable);
        assert!(
            is_stable(t[0], 500.0, 0.05) && is_stable(t[1], 250.0, 0.05) && t[2] == 0.0,
            "{t:?}"
        );
        // TCP_3 joins: the excess is shared by TCP_1 and TCP_3 (equal targets).
        c.set_active(2, true);
        let j = c.targets().to_vec();
        assert_eq!(j[0], j[2]);
        assert_eq!(j[1], t[1], "the remote connection keeps its revised target");
        // Everything administered is handed out: 250 + 500 + 250.
        assert!((j[0] + j[1] + j[2] - 1000.0).abs() < 1e-9, "{j:?}");
        // TCP_1 leaves: the excess it received goes to TCP_3 (Fig. 6: TCP_3 then near 500);
        // TCP_1's own 250 is no longer administered.
        c.set_active(0, false);
        let l = c.targets().to_vec();
        assert_eq!(l[0], 0.0);
        assert!((l[2] - (750.0 - l[1])).abs() < 1e-9, "{l:?}");
    }
}
