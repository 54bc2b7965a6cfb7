//! The endpoint's timers (RFC 6298 retransmission, RFC 9293 3.8.6.1 persist, RFC 1122
//! 4.2.3.2 delayed ACK, pacing, the receiver policy's timer, RFC 8985's reordering and
//! probe timers, the congestion controller's tick, Sprout's receiver tick) as a fixed table indexed by an enum: arming, disarming and finding the
//! earliest deadline never walk a list (DESIGN.md "Timers").

use crate::time::Instant;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    Retransmit = 0,
    Persist = 1,
    DelayedAck = 2,
    Pacing = 3,
    /// The receiver policy's own timer (`fc::ReceiverPolicy::poll_timeout`).
    FlowControl = 4,
    /// RACK's reordering timer (RFC 8985 6.3): re-scan for losses once the last segment
    /// that is only reordered so far would be overdue.
    RackReorder = 5,
    /// TLP's probe timeout (RFC 8985 7.2).
    LossProbe = 6,
    /// The congestion controller's periodic tick (`CongestionControl::next_tick`): the
    /// rate-based framework's kernel tick of thesis 4.2.2, for the modules that ask for one.
    CcTick = 7,
    /// Sprout's receiver tick (`rate::sprout::SproutReceiver`, 20 ms): the forecaster
    /// counts arrivals per tick and keeps ticking when none arrive.
    SproutTick = 8,
}

impl Timer {
    pub const ALL: [Timer; 9] = [
        Timer::Retransmit,
        Timer::Persist,
        Timer::DelayedAck,
        Timer::Pacing,
        Timer::FlowControl,
        Timer::RackReorder,
        Timer::LossProbe,
        Timer::CcTick,
        Timer::SproutTick,
    ];
}

/// Deadlines, `Instant::MAX` when disarmed.
#[derive(Clone, Debug)]
pub struct TimerTable {
    deadline: [Instant; Timer::ALL.len()],
}

impl Default for TimerTable {
    fn default() -> Self {
        TimerTable {
            deadline: [Instant::MAX; Timer::ALL.len()],
        }
    }
}

impl TimerTable {
    pub fn arm(&mut self, t: Timer, at: Instant) {
        self.deadline[t as usize] = at;
    }
    pub fn disarm(&mut self, t: Timer) {
        self.deadline[t as usize] = Instant::MAX;
    }
    pub fn get(&self, t: Timer) -> Option<Instant> {
        let d = self.deadline[t as usize];
        (d != Instant::MAX).then_some(d)
    }
    pub fn is_armed(&self, t: Timer) -> bool {
        self.deadline[t as usize] != Instant::MAX
    }
    /// Disarms and reports whether `t` is due at `now`.
    pub fn take_expired(&mut self, t: Timer, now: Instant) -> bool {
        let d = self.deadline[t as usize];
        if d != Instant::MAX && d <= now {
            self.deadline[t as usize] = Instant::MAX;
            true
        } else {
            false
        }
    }
    /// Inline: the simulator asks after every input (out of line, as the endpoint grew,
    /// the call cost ~10 instructions more per data packet on dumbbell-10).
    #[inline]
    pub fn earliest(&self) -> Option<Instant> {
        let m = self.deadline.iter().copied().min().unwrap_or(Instant::MAX);
        (m != Instant::MAX).then_some(m)
    }
}
