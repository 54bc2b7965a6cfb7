//! Pacing for the rate-based framework (thesis section 4.3.1, "Sending of packets"): packets
//! leave continuously at the rate the algorithm sets, not ACK-clocked. Where the ideal
//! schedule falls between ticks, Buffer Fill rounds the number of packets *up* and Buffer
//! Drain / Monitor round it *down*, and the rounding error is carried forward.
//!
//! The pacer keeps the *exact* ideal schedule (a rational number of nanoseconds) and only
//! rounds its output: a release time is the ideal time rounded down to the tick (so a tick
//! releases every packet whose ideal time falls inside it: the packet count is rounded up)
//! or rounded up to the tick (only packets whose ideal time has passed: rounded down).
//! Because the schedule itself is never rounded, the error never accumulates: after N
//! back-to-back packets the release time differs from the exact sum by less than one tick.
//! With `tick = 1 ns` this is per-packet pacing with sub-nanosecond carry; with `tick = 1 ms`
//! it models the kernel's per-jiffy send loop of the thesis.

use crate::time::{Duration, Instant};
use crate::units::Bandwidth;

/// Which way a release time is rounded onto the tick grid (thesis 4.3.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Rounding {
    /// Buffer Fill: round the packet count up, i.e. release at the start of the tick in
    /// which the ideal send time falls (never later than ideal).
    Up,
    /// Buffer Drain and Monitor: round the packet count down, i.e. release at the first tick
    /// boundary at or after the ideal send time (never earlier than ideal).
    #[default]
    Down,
}

/// Turns a rate and packet sizes into send times.
///
/// Calling order for the endpoint: before sending, ask [`Pacer::next_send_time`] with the
/// controller's `pacing_rounding()` and current `pacing_rate()`; send when `now >=` it
/// (retransmissions first, thesis 4.3.3) and then report the packet with [`Pacer::on_sent`].
/// Arm the pacing timer at `next_send_time` when data is waiting, and ask again whenever the
/// rate may have changed (every ACK).
///
/// The gap after a packet is charged at the rate *current when the next packet is due*, not
/// the rate at which the previous one left: the kernel loop of 4.3.1 recomputes the number
/// of packets from the current rate every tick, so a rate that rises (Monitor -> Fill, or a
/// new estimate) takes effect at once instead of after a gap computed at the old, low rate.
#[derive(Clone, Debug)]
pub struct Pacer {
    tick_ns: u64,
    /// The ideal send time of the last packet and its size. `None` until the first packet
    /// (which may leave at once).
    last: Option<(Ideal, u64)>,
}

/// An exact time: `ns + num / den` nanoseconds, `num < den`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Ideal {
    ns: u64,
    num: u128,
    den: u64,
}

impl Pacer {
    /// A pacer on a tick grid of `tick` (at least 1 ns).
    pub fn new(tick: Duration) -> Self {
        Pacer {
            tick_ns: tick.as_nanos().max(1),
            last: None,
        }
    }

    /// The exact ideal time of the next packet at `rate` (`None`: never, the rate is zero).
    fn ideal_next(&self, rate: Bandwidth) -> Option<Option<Ideal>> {
        let (base, bytes) = self.last?;
        let r = rate.as_bps();
        if r == 0 {
            return Some(None);
        }
        // Re-express the carried fraction over the new rate (error < 1/r ns), then add
        // bytes * 8 bit * 1e9 ns/s / r bit/s, kept exact as whole ns plus a remainder.
        let carried = if base.den == r {
            base.num
        } else {
            base.num * r as u128 / base.den as u128
        };
        let num = carried + bytes as u128 * 8 * 1_000_000_000;
        let whole = num / r as u128;
        Some(Some(Ideal {
            ns: base.ns.saturating_add(whole.min(u64::MAX as u128) as u64),
            num: num % r as u128,
            den: r,
        }))
    }

    /// Earliest time the next packet may leave at `rate` under `rounding`.
    /// `Instant::ZERO` before the first packet (send at once), `Instant::MAX` at rate zero.
    pub fn next_send_time(&self, rounding: Rounding, rate: Bandwidth) -> Instant {
        let id = match self.ideal_next(rate) {
            None => return Instant::ZERO,
            Some(None) => return Instant::MAX,
            Some(Some(id)) => id,
        };
        if id.ns == u64::MAX {
            return Instant::MAX;
        }
        let t = self.tick_ns;
        let floor = id.ns - id.ns % t;
        let exact_on_grid = id.ns % t == 0 && id.num == 0;
        Instant(match rounding {
            Rounding::Up => floor,
            Rounding::Down if exact_on_grid => id.ns,
            Rounding::Down => floor.saturating_add(t),
        })
    }

    /// A packet of `bytes` left at `now` while the rate was `rate`. Its ideal time is the
    /// previous one plus the previous packet's gap at `rate`, so rounding is carried; if the
    /// sender was idle for more than a tick past the schedule (application-limited, or
    /// waiting for the window), the schedule restarts at `now`: idle time earns no burst.
    pub fn on_sent(&mut self, now: Instant, bytes: u64, rate: Bandwidth) {
        let base = match self.ideal_next(rate) {
            Some(Some(id)) if id.ns != u64::MAX && now.0 <= id.ns.saturating_add(self.tick_ns) => {
                id
            }
            _ => Ideal {
                ns: now.0,
                num: 0,
                den: 1,
            },
        };
        self.last = Some((base, bytes));
    }

    /// Forget the schedule (e.g. after a retransmission timeout): the next packet may leave
    /// at once.
    pub fn reset(&mut self) {
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `sizes` back to back (each as soon as allowed) and returns the release times.
    fn run(p: &mut Pacer, rate: Bandwidth, rounding: Rounding, sizes: &[u64]) -> Vec<Instant> {
        let mut out = Vec::new();
        let mut now = Instant::from_secs(1);
        for &b in sizes {
            now = now.max(p.next_send_time(rounding, rate));
            out.push(now);
            p.on_sent(now, b, rate);
        }
        out
    }

    #[test]
    fn carried_error_keeps_total_within_one_ns_over_many_packets() {
        // Thesis 4.3.1: "A time history of the exact number of bytes sent is kept so we can
        // make up for the rounding discrepancy". 1448 B at 7 Mbit/s is 1654857.142857.. ns,
        // not a whole number: without carry the error would grow by ~0.14 ns per packet.
        let rate = Bandwidth::from_bps(7_000_000);
        let n = 100_000u64;
        for rounding in [Rounding::Up, Rounding::Down] {
            let mut p = Pacer::new(Duration::from_nanos(1));
            let sizes = vec![1448u64; n as usize + 1];
            let times = run(&mut p, rate, rounding, &sizes);
            let total = times[n as usize] - times[0];
            let exact_num = n as u128 * 1448 * 8 * 1_000_000_000;
            let exact_floor = (exact_num / 7_000_000) as u64;
            let err = total.as_nanos() as i128 - exact_floor as i128;
            assert!((0..=1).contains(&err), "{rounding:?}: off by {err} ns");
            // Fill never releases later than ideal, drain never earlier.
            match rounding {
                Rounding::Up => assert_eq!(total.as_nanos(), exact_floor),
                Rounding::Down => assert_eq!(total.as_nanos(), exact_floor + 1),
            }
        }
    }

    #[test]
    fn mixed_packet_sizes_sum_exactly() {
        let rate = Bandwidth::from_bps(3_000_001);
        let sizes: Vec<u64> = (0..1000).map(|i| 40 + (i * 37) % 1460).collect();
        let mut p = Pacer::new(Duration::from_nanos(1));
        let times = run(&mut p, rate, Rounding::Up, &sizes);
        let bits: u128 = sizes[..sizes.len() - 1]
            .iter()
            .map(|&b| b as u128 * 8)
            .sum();
        let exact_floor = (bits * 1_000_000_000 / 3_000_001) as u64;
        assert_eq!((times[999] - times[0]).as_nanos(), exact_floor);
    }

    #[test]
    fn per_tick_rounds_packet_count_up_in_fill_and_down_in_drain() {
        // Kernel-style 1 ms ticks at 1.5 packets per tick (1000 B at 12 Mbit/s = 0.667 ms).
        // Thesis 4.3.1: round up in Buffer Fill, down in Buffer Drain, carry the remainder.
        let rate = Bandwidth::from_mbps(12);
        let tick = Duration::from_millis(1);
        let count_per_tick = |rounding| {
            let mut p = Pacer::new(tick);
            let times = run(&mut p, rate, rounding, &[1000; 31]);
            let t0 = times[0];
            let mut per = [0u32; 8];
            for t in &times {
                let k = ((*t - t0).as_nanos() / 1_000_000) as usize;
                if k < 8 {
                    per[k] += 1;
                }
            }
            per
        };
        // Ideal times 0, .667, 1.333, 2, 2.667, 3.333, 4 ms, ...
        // Up: tick k releases the ideal times in [k, k+1): 0 and .667, then 1.333, ...
        assert_eq!(count_per_tick(Rounding::Up), [2, 1, 2, 1, 2, 1, 2, 1]);
        // Down: tick k releases the ideal times in (k-1, k]: 0; .667; 1.333 and 2; ...
        assert_eq!(count_per_tick(Rounding::Down), [1, 1, 2, 1, 2, 1, 2, 1]);
        // Either way exactly 3 packets per 2 ms on average: the error is carried.
    }

    #[test]
    fn idle_sender_gets_no_burst_credit_and_zero_rate_never_sends() {
        let mut p = Pacer::new(Duration::from_nanos(1));
        let r12 = Bandwidth::from_mbps(12);
        assert_eq!(p.next_send_time(Rounding::Down, r12), Instant::ZERO);
        p.on_sent(Instant::from_millis(0), 1500, r12);
        assert_eq!(
            p.next_send_time(Rounding::Down, r12),
            Instant::from_millis(1)
        );
        // Idle until 10 ms: the schedule restarts there, not at 1 ms.
        p.on_sent(Instant::from_millis(10), 1500, r12);
        assert_eq!(
            p.next_send_time(Rounding::Up, r12),
            Instant::from_millis(11)
        );
        p.on_sent(Instant::from_millis(11), 1500, r12);
        assert_eq!(
            p.next_send_time(Rounding::Up, Bandwidth::ZERO),
            Instant::MAX
        );
    }

    #[test]
    fn a_rate_change_applies_to_the_pending_gap() {
        // 4.3.1: the kernel recomputes from the current rate every tick. After a packet sent
        // at 0.12 Mbit/s (100 ms for 1500 B) the rate rises to 12 Mbit/s: the next packet is
        // due 1 ms after the last, not 100 ms.
        let mut p = Pacer::new(Duration::from_nanos(1));
        p.on_sent(Instant::from_millis(5), 1500, Bandwidth::from_kbps(120));
        assert_eq!(
            p.next_send_time(Rounding::Down, Bandwidth::from_kbps(120)),
            Instant::from_millis(105)
        );
        assert_eq!(
            p.next_send_time(Rounding::Down, Bandwidth::from_mbps(12)),
            Instant::from_millis(6)
        );
    }
}
