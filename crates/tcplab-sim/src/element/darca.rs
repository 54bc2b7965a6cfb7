//! DARCA, the Drop Aware TCP Rate Control Algorithm (Zeng & Yao, sections 2 and 3), as a
//! node element at the edge router: the control point is the router's input port on the
//! controlled link. It meters every connection in both directions (`darca_meter`), runs the
//! control cycle (`darca_cycle`: Initial, Learning, Stable) round by round, and enforces
//! each round's targets with drop counters on the data packets (`darca_model`: the extra
//! drop rate `p_con` from the Mathis model).
//!
//! A round (section 2, eqs. 1 and 2): rate enforcement at its start (fresh RTT and `p_orig`
//! from the last measurement, `p_con` for every controlled connection or class), then the
//! convergence period, then the realised throughputs are measured over the measurement
//! period and handed to the cycle, and the next round starts. The first round starts at
//! `start` with what the meter saw since the beginning of the run (`RTT_orig`, `p_orig`
//! "before the execution of the TCP throughput policy").
//!
//! Decided here where the paper is silent (docs/darca.md):
//! - `p_con` is recomputed for every connection at the start of every round, not only for
//!   those whose target changed: `p_orig` before control includes the congestion the
//!   control removes, and a connection left uncontrolled on that stale value would never
//!   become stable.
//! - A connection joins when its first packet crosses the control point and leaves on a FIN
//!   or RST in either direction; one that stops sending but stays open remains present and
//!   the learning rounds bring its target to 0 (Fig. 7: "the target bandwidth of stopped
//!   TCP_2 is reduced to zero"). A join or leave retargets and re-enforces at once, without
//!   restarting the round (Fig. 6).
//! - Per-class control (section 3): a connection is classified by its smallest RTT when
//!   the meter completes its first RTT sample; members share one drop counter and one
//!   `p_con` computed for `TBW / fn` at the class's representative RTT (eq. 5 or the range's
//!   midpoint), with the class's pooled `p_orig`.
//! - The model's RTT is the mean of the last measurement period's samples (Mathis's model
//!   takes the average round trip, queueing included), the smallest one seen before any.
//! - Eqs. 1 and 2 run over the connections DARCA converges: those it adds drops to and has
//!   not inferred remote. A connection the path already holds below its target (`p_orig >=
//!   p_tot`, no drops added) or one inferred remote is held by its upstream bottleneck, and
//!   its window times its RTT (up to the receiver window times an RTT inflated by the queue
//!   at that bottleneck: minutes) would stretch every round for nothing.
//! - A connection whose packets the control point dropped during the round is not inferred
//!   remote (`Cycle::on_round`), and one that carried nothing in a round gets a target of 0
//!   at once (`darca_model::revise_remote`).
//! - The convergence period has a floor (`min_convergence`): at a target near 0, eq. 1
//!   gives about one round trip, too short to measure anything.
//! - A connection (class member) that joined during a round is not judged at its end: its
//!   rate covers a stretch it was absent for.
//! - Beyond the paper, `correction = "measured"` ([`Darca::correct`], docs/darca.md): the
//!   model is inverted for the target times a gain learnt from the rounds the control held
//!   the connection; Reno carries 69-94% of Mathis's rate under evenly spaced drops.

use super::darca_cycle::{Cycle, CycleConfig, Phase};
use super::darca_meter::{Meter, PeriodCounts};
use super::darca_model::{
    class_rtt_harmonic, class_rtt_midpoint, control_for, periods, DropCounter,
};
use super::{Actions, Arrival, Element, Fate, NodeView};
use crate::config::{DarcaClassRtt, DarcaCorrection, DarcaSpec};
use crate::packet::Packet;
use serde::Serialize;
use tcplab_core::{Duration, Instant};

const NONE: u32 = u32::MAX;

/// What is being controlled: connections, each its own unit, or classes of connections.
#[derive(Clone, Debug)]
pub enum Units {
    /// (world connection index, name, administrative target bit/s), one per unit.
    Connections(Vec<(u32, String, u64)>),
    /// (RTT range seconds, administrative target bit/s), one per class.
    Classes(Vec<((f64, f64), u64)>, DarcaClassRtt),
}

/// One watched connection.
#[derive(Clone, Debug)]
struct Conn {
    meter: Meter,
    /// The unit (connection or class) it belongs to; NONE: not controlled (yet).
    unit: u32,
    present: bool,
    left: bool,
    /// Per-class control: its first RTT sample has decided its class (or none).
    classified: bool,
    /// Holes and data packets seen during the current round's convergence period.
    conv_holes: u64,
    conv_data: u64,
    /// The last finished measurement period.
    last: PeriodCounts,
}

/// One controlled connection or class.
#[derive(Clone, Debug, Default)]
struct Unit {
    name: String,
    admin_bps: u64,
    rtt_range: Option<(f64, f64)>,
    /// Members present (1 or 0 for a connection).
    members: u32,
    counter: DropCounter,
    /// This round's control.
    p_con: f64,
    rtt_s: f64,
    /// The drop counter's drops when the round started.
    drops_at_round_start: u64,
    /// Rounds in which the unit had no RTT to compute a control from (left uncontrolled).
    no_rtt_rounds: u64,
    /// `correction = "measured"`: the model is asked for the target times this (1 without).
    gain: f64,
    /// When a member last joined.
    joined_at: Option<Instant>,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Stage {
    /// Before `start`: metering only.
    Off,
    /// Rate enforced; the measurement starts at the deadline and lasts the seconds given.
    Converging(Instant, f64),
    /// Measuring since the first instant, until the second.
    Measuring(Instant, Instant),
}

/// One round as the report shows it.
#[derive(Clone, Debug, Serialize)]
struct RoundLog {
    /// When the round's rate enforcement started, seconds.
    t_s: f64,
    phase: &'static str,
    targets_bps: Vec<f64>,
    p_con: Vec<f64>,
    rtt_ms: Vec<f64>,
    convergence_s: f64,
    measurement_s: f64,
    /// The realised throughputs measured at the round's end (bit/s of payload).
    rbw_bps: Vec<f64>,
    /// The gains the round's controls were computed with (`correction = "measured"`).
    gain: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
struct EventLog {
    t_s: f64,
    event: String,
}

pub struct Darca {
    link: u32,
    start: Instant,
    min_convergence: Duration,
    max_convergence: Option<Duration>,
    rwnd_bytes: f64,
    rtt_fallback: Option<f64>,
    class_rtt: Option<DarcaClassRtt>,
    correction: DarcaCorrection,
    /// Per world connection: its index in `conns`, or NONE when its data does not cross
    /// the controlled link.
    slot_of: Vec<u32>,
    conns: Vec<Conn>,
    units: Vec<Unit>,
    cycle: Cycle,
    stage: Stage,
    /// When the current round's enforcement started.
    round_started: Instant,
    rounds: Vec<RoundLog>,
    events: Vec<EventLog>,
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Initial => "initial",
        Phase::Learning => "learning",
        Phase::Stable => "stable",
    }
}

impl Darca {
    /// `watched[f]`: world connection f's data crosses the controlled link `link`.
    pub fn new(spec: &DarcaSpec, link: u32, units: Units, watched: &[bool]) -> Darca {
        let mut slot_of = vec![NONE; watched.len()];
        let mut conns = Vec::new();
        for (f, &w) in watched.iter().enumerate() {
            if w {
                slot_of[f] = conns.len() as u32;
                conns.push(Conn {
                    meter: Meter::default(),
                    unit: NONE,
                    present: false,
                    left: false,
                    classified: false,
                    conv_holes: 0,
                    conv_data: 0,
                    last: PeriodCounts::default(),
                });
            }
        }
        let (unit_list, class_rtt): (Vec<Unit>, _) = match &units {
            Units::Connections(v) => (
                v.iter()
                    .enumerate()
                    .map(|(u, (f, name, bps))| {
                        let s = slot_of[*f as usize];
                        debug_assert!(s != NONE, "build_all checks the route");
                        conns[s as usize].unit = u as u32;
                        Unit {
                            name: name.clone(),
                            admin_bps: *bps,
                            gain: 1.0,
                            ..Default::default()
                        }
                    })
                    .collect(),
                None,
            ),
            Units::Classes(v, how) => (
                v.iter()
                    .enumerate()
                    .map(|(i, (range, bps))| Unit {
                        name: format!("class{}", i + 1),
                        admin_bps: *bps,
                        rtt_range: Some(*range),
                        gain: 1.0,
                        ..Default::default()
                    })
                    .collect(),
                Some(*how),
            ),
        };
        let admin: Vec<f64> = unit_list.iter().map(|u| u.admin_bps as f64).collect();
        let mut cycle = Cycle::new(
            CycleConfig {
                factor: spec.factor,
                tolerance: spec.tolerance,
                max_stable: spec.max_stable,
            },
            &admin,
        );
        // Nothing is present before its first packet.
        for u in 0..unit_list.len() {
            cycle.set_active(u, false);
        }
        Darca {
            link,
            start: spec.start,
            min_convergence: spec.min_convergence,
            max_convergence: spec.max_convergence,
            rwnd_bytes: spec.rwnd as f64,
            rtt_fallback: spec.rtt.map(|d| d.as_secs_f64()),
            class_rtt,
            correction: spec.correction,
            slot_of,
            conns,
            units: unit_list,
            cycle,
            stage: Stage::Off,
            round_started: Instant::ZERO,
            rounds: Vec::new(),
            events: Vec::new(),
        }
    }

    fn log(&mut self, now: Instant, event: String) {
        self.events.push(EventLog {
            t_s: now.as_secs_f64(),
            event,
        });
    }

    /// A member joins or leaves unit `u`: the cycle learns of it, and a running control
    /// re-enforces at once with the redistributed targets.
    fn member_change(&mut self, now: Instant, u: u32, joins: bool) {
        let unit = &mut self.units[u as usize];
        if joins {
            unit.members += 1;
            unit.joined_at = Some(now);
        } else {
            unit.members = unit.members.saturating_sub(1);
        }
        let active = unit.members > 0;
        let what = format!(
            "{} {} ({} present)",
            unit.name,
            if joins {
                "member joins"
            } else {
                "member leaves"
            },
            unit.members
        );
        self.cycle.set_active(u as usize, active);
        self.log(now, what);
        if self.stage != Stage::Off {
            self.enforce();
        }
    }

    /// Computes every unit's control from the last measurement and the current targets;
    /// returns eqs. 1 and 2's (convergence, measurement) periods in seconds.
    fn enforce(&mut self) -> (f64, f64) {
        let mut model = Vec::with_capacity(self.units.len());
        for u in 0..self.units.len() {
            let target = self.cycle.targets()[u];
            let unit = &self.units[u];
            if unit.members == 0 {
                self.units[u].p_con = 0.0;
                continue;
            }
            let mut pooled = PeriodCounts::default();
            let mut mss = 0u32;
            let mut rtts = Vec::new();
            for c in self
                .conns
                .iter()
                .filter(|c| c.unit == u as u32 && c.present)
            {
                pooled.add(&c.last);
                mss = mss.max(c.meter.mss);
                if let Some(r) = c.last.mean_rtt_s().or(c.meter.min_rtt_s()) {
                    rtts.push(r);
                }
            }
            let rtt = match (self.class_rtt, unit.rtt_range) {
                (Some(DarcaClassRtt::Midpoint), Some((lo, hi))) => Some(class_rtt_midpoint(lo, hi)),
                _ => class_rtt_harmonic(&rtts),
            }
            .or(self.rtt_fallback);
            let per_member = target / unit.members as f64;
            let model_target = per_member * unit.gain;
            let unit = &mut self.units[u];
            match rtt {
                _ if per_member <= 0.0 => {
                    unit.p_con = 1.0;
                }
                Some(r) if mss > 0 => {
                    let c = control_for(model_target / 8.0, mss as f64, r, pooled.p_orig());
                    unit.p_con = c.p_con;
                    unit.rtt_s = r;
                    if self.cycle.conns()[u].remote_cap.is_none() && c.p_con > 0.0 {
                        model.push((c.p_tot, r, self.rwnd_bytes / mss as f64));
                    }
                }
                _ => {
                    // No RTT (or no data) yet: uncontrolled this round.
                    unit.p_con = 0.0;
                    unit.no_rtt_rounds += 1;
                }
            }
        }
        let (conv, meas) = periods(&model);
        let floor = self.min_convergence.as_secs_f64();
        let (conv, meas) = (conv.max(floor), meas.max(floor * 2.0 / 3.0));
        match self.max_convergence {
            // Eq. 2's measurement period stays 2/3 of the convergence period it caps.
            Some(cap) => {
                let cap = cap.as_secs_f64().max(floor);
                (conv.min(cap), meas.min(cap * 2.0 / 3.0))
            }
            None => (conv, meas),
        }
    }

    /// Starts a round at `now`: enforcement, then the convergence period.
    fn begin_round(&mut self, now: Instant, act: &mut Actions) {
        if self.class_rtt.is_some() {
            // Membership tracking: a connection's smallest RTT only falls as the meter sees
            // it with emptier queues, so its class is revisited every round.
            for ci in 0..self.conns.len() {
                if let Some(r) = self.conns[ci].meter.min_rtt_s() {
                    self.classify(now, ci, r);
                }
            }
        }
        if self.rounds.is_empty() {
            // The first round's RTT_orig and p_orig: everything since the run began.
            for c in &mut self.conns {
                c.last = c.meter.take_period();
            }
        }
        let (conv, meas) = self.enforce();
        self.round_started = now;
        for u in &mut self.units {
            u.drops_at_round_start = u.counter.dropped;
        }
        self.rounds.push(RoundLog {
            t_s: now.as_secs_f64(),
            phase: phase_name(self.cycle.phase),
            targets_bps: self.cycle.targets().to_vec(),
            p_con: self.units.iter().map(|u| u.p_con).collect(),
            rtt_ms: self.units.iter().map(|u| u.rtt_s * 1e3).collect(),
            convergence_s: conv,
            measurement_s: meas,
            rbw_bps: Vec::new(),
            gain: self.units.iter().map(|u| u.gain).collect(),
        });
        let until = now.saturating_add(Duration::from_nanos((conv * 1e9).round() as u64));
        self.stage = Stage::Converging(until, meas);
        act.wake_at(until);
    }
}

impl Element for Darca {
    fn kind(&self) -> &'static str {
        "darca"
    }

    fn on_packet(
        &mut self,
        now: Instant,
        pkt: &mut Packet,
        at: Arrival,
        _view: &dyn NodeView,
        _act: &mut Actions,
    ) -> Fate {
        let s = self.slot_of[pkt.flow as usize];
        if s == NONE {
            return Fate::Forward;
        }
        let seg = &pkt.seg;
        let ci = s as usize;
        // Joins and leaves (connection tracking as a router does it).
        if !self.conns[ci].present
            && !self.conns[ci].left
            && !seg.flags.contains(tcplab_core::Flags::RST)
        {
            self.conns[ci].present = true;
            let u = self.conns[ci].unit;
            if u != NONE {
                self.member_change(now, u, true);
            }
        } else if self.conns[ci].present
            && (seg.flags.fin() || seg.flags.contains(tcplab_core::Flags::RST))
        {
            self.conns[ci].present = false;
            self.conns[ci].left = true;
            let u = self.conns[ci].unit;
            if u != NONE {
                self.member_change(now, u, false);
            }
        }
        if !pkt.from_sender {
            self.conns[ci].meter.on_ack(now, seg);
            self.maybe_classify(now, ci);
            return Fate::Forward;
        }
        if at.from_link != self.link {
            return Fate::Forward;
        }
        let u = self.conns[ci].unit;
        let drop = u != NONE
            && self.stage != Stage::Off
            && seg.payload_len > 0
            && self.conns[ci].present
            && {
                let unit = &mut self.units[u as usize];
                unit.counter.on_data(unit.p_con)
            };
        self.conns[ci].meter.on_data(now, seg, drop);
        self.maybe_classify(now, ci);
        if drop {
            Fate::Drop
        } else {
            Fate::Forward
        }
    }

    fn first_timer(&self) -> Option<Instant> {
        Some(self.start)
    }

    fn on_timer(&mut self, now: Instant, _view: &dyn NodeView, act: &mut Actions) {
        match self.stage {
            Stage::Off => {
                if now >= self.start && self.rounds.is_empty() {
                    self.log(now, "control starts".into());
                    self.begin_round(now, act);
                } else {
                    act.wake_at(self.start);
                }
            }
            Stage::Converging(until, meas) => {
                if now < until {
                    act.wake_at(until);
                    return;
                }
                // The measurement period starts: what came before belongs to convergence.
                for c in &mut self.conns {
                    let conv = c.meter.take_period();
                    c.conv_holes = conv.holes;
                    c.conv_data = conv.data_pkts;
                }
                let end = now.saturating_add(Duration::from_nanos((meas * 1e9).round() as u64));
                self.stage = Stage::Measuring(now, end);
                act.wake_at(end);
            }
            Stage::Measuring(from, until) => {
                if now < until {
                    act.wake_at(until);
                    return;
                }
                let secs = now.saturating_since(from).as_secs_f64().max(1e-9);
                // Per unit over the round: payload bytes measured, holes upstream and data
                // packets seen (convergence and measurement).
                let mut bytes = vec![0u64; self.units.len()];
                let mut holes = vec![0u64; self.units.len()];
                let mut sent = vec![0u64; self.units.len()];
                for c in &mut self.conns {
                    c.last = c.meter.take_period();
                    if c.unit != NONE {
                        let u = c.unit as usize;
                        bytes[u] += c.last.bytes;
                        holes[u] += c.last.holes + c.conv_holes;
                        sent[u] += c.last.data_pkts + c.conv_data;
                    }
                }
                let rbw: Vec<f64> = bytes.iter().map(|&b| b as f64 * 8.0 / secs).collect();
                let before = self.cycle.phase;
                let cycles = self.cycle.cycles_started;
                // Held by the control: over the whole round (convergence and measurement)
                // the control point dropped its packets, more of them than the path lost
                // upstream (holes). A round lasts at least eq. 1's W x RTT and 2/3 of it, so a
                // connection the control holds sends at least 2.5 / p_con packets in it, and
                // the evenly spaced counter drops two or more of them; a remote connection
                // loses at its own bottleneck, or sends nothing (stopped), and the control's
                // rate for it is small or zero.
                let held: Vec<bool> = self
                    .units
                    .iter()
                    .zip(&holes)
                    .map(|(u, &h)| {
                        let own = u.counter.dropped - u.drops_at_round_start;
                        own > 0 && own > h
                    })
                    .collect();
                // A member that joined during the round was present for part of it only:
                // its rate over the measurement period says nothing about its bottleneck
                // (Fig. 6's TCP_3, joining 1.9 s into a round, averaged 321 kbit/s over a
                // period it spent partly absent and was taken for remote at a target of 372).
                // It is judged from the next round on; meanwhile it counts as held.
                let fresh: Vec<bool> = self
                    .units
                    .iter()
                    .map(|u| u.joined_at.is_some_and(|t| t > self.round_started))
                    .collect();
                let held: Vec<bool> = held.iter().zip(&fresh).map(|(&h, &f)| h || f).collect();
                let silent: Vec<bool> = sent.iter().map(|&n| n == 0).collect();
                if self.correction == DarcaCorrection::Measured {
                    self.correct(&rbw, &held, &fresh);
                }
                self.cycle.on_round(now, &rbw, &held, &silent);
                if self.correction == DarcaCorrection::Measured {
                    // A connection inferred remote is held by its own bottleneck: what the
                    // gain learned of it no longer says anything about the model.
                    for (u, c) in self.units.iter_mut().zip(self.cycle.conns()) {
                        if c.remote_cap.is_some() {
                            u.gain = 1.0;
                        }
                    }
                }
                if let Some(r) = self.rounds.last_mut() {
                    r.rbw_bps = rbw;
                }
                if self.cycle.cycles_started != cycles {
                    self.log(now, "cycle restarts".into());
                } else if self.cycle.phase != before {
                    let p = phase_name(self.cycle.phase);
                    self.log(now, format!("enters {p}"));
                }
                self.begin_round(now, act);
            }
        }
    }

    fn report(&self) -> serde_json::Value {
        let units: Vec<serde_json::Value> = self
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                serde_json::json!({
                    "name": u.name,
                    "admin_bps": u.admin_bps,
                    "target_bps": self.cycle.targets()[i],
                    "members": u.members,
                    "drops": u.counter.dropped,
                    "data_pkts_counted": u.counter.seen,
                    "p_con": u.p_con,
                    "gain": u.gain,
                    "rounds_without_rtt": u.no_rtt_rounds,
                })
            })
            .collect();
        serde_json::json!({
            "mode": if self.class_rtt.is_some() { "class" } else { "connection" },
            "correction": self.correction,
            "phase": phase_name(self.cycle.phase),
            "cycles_started": if self.rounds.is_empty() { 0 } else { self.cycle.cycles_started },
            "learning_rounds": self.cycle.learning_rounds,
            "unclassified": if self.class_rtt.is_some() {
                self.conns.iter().filter(|c| c.unit == NONE && !c.left && c.present).count()
            } else {
                0
            },
            "units": units,
            "events": self.events,
            "rounds": self.rounds,
        })
    }
}

impl Darca {
    /// `correction = "measured"` (beyond the paper), at a round's end: the gain of every
    /// unit the control held this round (its own drops outnumber the holes upstream: the
    /// model's drop rate is what limits it), not inferred remote and present, moves by the
    /// square root of target / realised rate, when that is within a factor 2 (the model's
    /// bias is tens of percent; more is something else). The square root halves the log error per
    /// round (0.77 -> 0.88 -> 0.94 -> 0.97), so one noisy measurement period, about one
    /// loss cycle, moves the gain by half its error. Bounded to [1/4, 4]: Mathis's model
    /// is off by tens of percent, not by factors, and a runaway gain is a bug to see.
    fn correct(&mut self, rbw: &[f64], held: &[bool], fresh: &[bool]) {
        for (u, unit) in self.units.iter_mut().enumerate() {
            let target = self.cycle.targets()[u];
            let cycle_conn = &self.cycle.conns()[u];
            if !held[u]
                || fresh[u]
                || unit.members == 0
                || cycle_conn.remote_cap.is_some()
                || target <= 0.0
                || !(0.5..=2.0).contains(&(rbw[u] / target))
            {
                // Beyond a factor 2 something other than the model's bias holds the
                // connection (its own bottleneck, a timeout, a burst after a join): Reno
                // under the model's drops carries 0.69-0.94 of its rate (ns-2.35 and
                // tcplab alike), and a gain that chased a remote connection's shortfall
                // would only shrink its drop rate and stretch the rounds (eq. 1's W x RTT
                // at an RTT its own queue inflates: 41 s under the `linux` profile).
                continue;
            }
            unit.gain = (unit.gain * (target / rbw[u]).sqrt()).clamp(0.25, 4.0);
        }
    }

    /// Per-class control: the connection's class by its smallest RTT (section 3: "we use
    /// RTT as the grouping criterion"); outside every range, it stays uncontrolled.
    fn maybe_classify(&mut self, now: Instant, ci: usize) {
        if self.class_rtt.is_none() || self.conns[ci].classified {
            return;
        }
        if let Some(r) = self.conns[ci].meter.min_rtt_s() {
            self.conns[ci].classified = true;
            self.classify(now, ci, r);
        }
    }

    fn classify(&mut self, now: Instant, ci: usize, rtt_s: f64) {
        let class = self
            .units
            .iter()
            .position(|u| {
                u.rtt_range
                    .is_some_and(|(lo, hi)| rtt_s >= lo && rtt_s < hi)
            })
            .map_or(NONE, |u| u as u32);
        let was = self.conns[ci].unit;
        if class == was {
            return;
        }
        self.conns[ci].unit = class;
        if self.conns[ci].present {
            if was != NONE {
                self.member_change(now, was, false);
            }
            if class != NONE {
                self.member_change(now, class, true);
            }
        }
    }
}

#[cfg(test)]
#[path = "darca_tests.rs"]
mod tests;
