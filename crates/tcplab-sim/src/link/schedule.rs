//! Piecewise-constant, repeating link rate (e.g. "3, 15, 15 Mbit/s, 530 ms per slot", the
//! varying bottleneck of the rate-based CC experiments), integrated exactly in integers.
//!
//! Work is counted in bit-nanoseconds-per-second units: a slot of `d` ns at `r` bit/s
//! carries `r * d` units and a packet of `b` bytes needs `b * 8 * 1e9`, so boundaries
//! are exact and the only rounding is the final ceil to a whole nanosecond (as for
//! `Bandwidth::tx_time`: a link never runs faster than configured).

use crate::error::SimError;
use tcplab_core::{Duration, Instant};

const UNITS_PER_BYTE: u128 = 8 * 1_000_000_000;

#[derive(Clone, Debug)]
pub struct Schedule {
    rates_bps: Vec<u64>,
    slot_ns: u64,
    period_ns: u64,
    /// Units carried in one full period.
    period_units: u128,
    /// `prefix[i]`: units carried by slots `0..i` of a period (len + 1 entries).
    prefix: Vec<u128>,
    /// The slot the last packet finished in, `[cur_start, cur_end)` with index `cur_i`:
    /// back-to-back calls land in it and skip the divisions that locate a slot.
    cur_i: usize,
    cur_start: u64,
    cur_end: u64,
}

impl Schedule {
    pub fn new(rates_bps: Vec<u64>, slot: Duration) -> Result<Schedule, SimError> {
        if rates_bps.is_empty() {
            return Err(SimError::Config(
                "rate.rates_bps is empty: list at least one rate in bit/s".into(),
            ));
        }
        if slot.as_nanos() == 0 {
            return Err(SimError::Config(
                "rate.slot = 0: each slot must last a positive time".into(),
            ));
        }
        if rates_bps.iter().all(|&r| r == 0) {
            return Err(SimError::Config(
                "rate.rates_bps are all zero: the link could never send; give at least one positive rate".into(),
            ));
        }
        let slot_ns = slot.as_nanos();
        let period_ns = slot_ns.checked_mul(rates_bps.len() as u64).ok_or_else(|| {
            SimError::Config(
                "rate schedule period (slot * number of rates) overflows 584 years".into(),
            )
        })?;
        let mut prefix = Vec::with_capacity(rates_bps.len() + 1);
        let mut acc = 0u128;
        prefix.push(0);
        for &r in &rates_bps {
            acc += r as u128 * slot_ns as u128;
            prefix.push(acc);
        }
        Ok(Schedule {
            rates_bps,
            slot_ns,
            period_ns,
            period_units: acc,
            prefix,
            cur_i: 0,
            cur_start: 0,
            cur_end: slot_ns,
        })
    }

    pub fn rates_bps(&self) -> &[u64] {
        &self.rates_bps
    }

    pub fn slot(&self) -> Duration {
        Duration::from_nanos(self.slot_ns)
    }

    /// See [`super::RateModel::departure_time`]. Zero-rate slots are waited out; a packet
    /// spanning many periods skips whole periods arithmetically, so the cost is bounded
    /// by the number of slots whatever the packet size.
    pub fn departure_time(&mut self, start: Instant, bytes: u32) -> Instant {
        let mut need = bytes as u128 * UNITS_PER_BYTE;
        let t0 = start.as_nanos();
        if need == 0 {
            return start;
        }
        let n = self.rates_bps.len();
        let (mut i, mut slot_end) = if self.cur_start <= t0 && t0 < self.cur_end {
            (self.cur_i, self.cur_end as u128)
        } else {
            let i = ((t0 % self.period_ns) / self.slot_ns) as usize;
            (i, (t0 - t0 % self.slot_ns) as u128 + self.slot_ns as u128)
        };
        let mut t = t0 as u128;
        let mut skipped = false;
        loop {
            let r = self.rates_bps[i] as u128;
            let avail = (slot_end - t) * r;
            if need <= avail {
                // need > 0 and avail >= need imply r > 0; the result is <= slot_end.
                // Packet-sized work fits a u64, whose division is much cheaper.
                let dt = match u64::try_from(need) {
                    Ok(nd) => nd.div_ceil(r as u64) as u128,
                    Err(_) => need.div_ceil(r),
                };
                if slot_end <= u64::MAX as u128 {
                    self.cur_i = i;
                    self.cur_end = slot_end as u64;
                    self.cur_start = self.cur_end - self.slot_ns;
                }
                return Instant::from_nanos(sat_u64(t + dt));
            }
            need -= avail;
            t = slot_end;
            slot_end += self.slot_ns as u128;
            i += 1;
            if i == n {
                i = 0;
            }
            if !skipped && need > self.period_units {
                // Whole periods starting at a slot boundary carry exactly period_units;
                // keep a remainder in (0, period_units] so the exact finish is found below.
                let k = (need - 1) / self.period_units;
                need -= k * self.period_units;
                t += k * self.period_ns as u128;
                slot_end += k * self.period_ns as u128;
                skipped = true;
            }
        }
    }

    /// Units carried in `[0, t)`.
    fn units_before(&self, t: u64) -> u128 {
        let periods = (t / self.period_ns) as u128;
        let off = t % self.period_ns;
        let i = (off / self.slot_ns) as usize;
        let into = (off - i as u64 * self.slot_ns) as u128;
        periods * self.period_units + self.prefix[i] + into * self.rates_bps[i] as u128
    }

    pub fn capacity_bytes(&self, from: Instant, to: Instant) -> u64 {
        let u = self.units_before(to.as_nanos()) - self.units_before(from.as_nanos());
        sat_u64(u / UNITS_PER_BYTE)
    }

    pub fn mean_rate_bps(&self) -> f64 {
        self.rates_bps.iter().map(|&r| r as f64).sum::<f64>() / self.rates_bps.len() as f64
    }
}

fn sat_u64(x: u128) -> u64 {
    x.min(u64::MAX as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn sched(rates: &[u64], slot_ms: u64) -> Schedule {
        Schedule::new(rates.to_vec(), Duration::from_millis(slot_ms)).unwrap()
    }

    #[test]
    fn within_one_slot_it_is_the_slot_rate() {
        let mut s = sched(&[8_000_000, 16_000_000], 10);
        // 1000 B at 8 Mbit/s = 1 ms; at 16 Mbit/s = 0.5 ms.
        assert_eq!(
            s.departure_time(Instant::ZERO, 1000),
            Instant::from_millis(1)
        );
        assert_eq!(
            s.departure_time(Instant::from_millis(12), 1000).as_nanos(),
            12 * MS + MS / 2
        );
        // The schedule repeats: t = 25 ms is slot 0 again.
        assert_eq!(
            s.departure_time(Instant::from_millis(25), 1000),
            Instant::from_millis(26)
        );
    }

    #[test]
    fn packets_integrate_across_slot_boundaries() {
        // 3 and 15 Mbit/s, 1 ms slots. 1500 B = 12000 bits: 0.5 ms at 3 Mbit/s carries 1500
        // bits, leaving 10500 bits at 15 Mbit/s = 0.7 ms.
        let mut s = sched(&[3_000_000, 15_000_000], 1);
        assert_eq!(
            s.departure_time(Instant::from_nanos(500_000), 1500)
                .as_nanos(),
            1_700_000
        );
    }

    #[test]
    fn zero_rate_slots_are_waited_out() {
        let mut s = sched(&[8_000_000, 0, 0], 1);
        // 0.5 ms at 8 Mbit/s = 500 B; the rest waits for the next period at t = 3 ms.
        assert_eq!(
            s.departure_time(Instant::from_nanos(500_000), 1000)
                .as_nanos(),
            3 * MS + MS / 2
        );
        // Starting inside a zero slot.
        assert_eq!(
            s.departure_time(Instant::from_millis(1), 1000).as_nanos(),
            4 * MS
        );
        // Exact fill ends at the slot boundary, not after the zero slots.
        assert_eq!(
            s.departure_time(Instant::ZERO, 1000),
            Instant::from_millis(1)
        );
    }

    #[test]
    fn huge_packets_skip_whole_periods() {
        // 1 kB per period of 3 ms; 10 kB from t = 0: 10 periods minus the two trailing zero
        // slots of the last one = 28 ms.
        let mut s = sched(&[8_000_000, 0, 0], 1);
        assert_eq!(
            s.departure_time(Instant::ZERO, 10_000),
            Instant::from_millis(28)
        );
        assert_eq!(
            s.departure_time(Instant::from_millis(2), 10_000),
            Instant::from_millis(31)
        );
    }

    #[test]
    fn rounding_is_up_to_the_nanosecond() {
        let mut s = sched(&[3, 3], 1000);
        // 1 B at 3 bit/s is 2.666.. s: same as Bandwidth::tx_time.
        assert_eq!(s.departure_time(Instant::ZERO, 1).as_nanos(), 2_666_666_667);
    }

    #[test]
    fn capacity_is_the_integral_of_the_rate() {
        let s = sched(&[3_000_000, 15_000_000, 15_000_000], 530);
        let period = Instant::from_millis(1590);
        // 3 * 0.53 + 15 * 0.53 * 2 = 17.49 Mbit per period.
        assert_eq!(s.capacity_bytes(Instant::ZERO, period), 17_490_000 / 8);
        assert_eq!(
            s.capacity_bytes(Instant::from_millis(530), Instant::from_millis(1060)),
            15_000_000 * 53 / 800
        );
        assert_eq!(
            s.capacity_bytes(Instant::ZERO, Instant::from_millis(1590 * 10)),
            174_900_000 / 8
        );
        assert!((s.mean_rate_bps() - 11e6).abs() < 1e-6);
    }

    #[test]
    fn back_to_back_departures_match_capacity() {
        // Sending back to back for a whole period delivers (almost) exactly the capacity:
        // the ceil per packet loses at most a nanosecond each.
        let mut s = sched(&[3_000_000, 15_000_000, 0, 15_000_000], 530);
        let end = Instant::from_millis(4 * 530);
        let (mut t, mut sent) = (Instant::ZERO, 0u64);
        loop {
            let d = s.departure_time(t, 1500);
            assert!(d >= t);
            if d > end {
                break;
            }
            sent += 1500;
            t = d;
        }
        let cap = s.capacity_bytes(Instant::ZERO, end);
        assert!(sent <= cap && cap - sent < 1500, "sent {sent} cap {cap}");
    }

    #[test]
    fn the_slot_cache_never_changes_a_result() {
        let fresh = sched(&[3_000_000, 15_000_000, 0, 15_000_000], 7);
        let mut s = fresh.clone();
        let mut rng = tcplab_core::Rng::from_seed(4);
        let mut t = Instant::ZERO;
        for _ in 0..20_000 {
            t = t.saturating_add(Duration::from_nanos(rng.below(3) * rng.below(4 * MS)));
            let bytes = [40, 1500, 60_000][rng.below(3) as usize];
            let d = s.departure_time(t, bytes);
            assert_eq!(d, fresh.clone().departure_time(t, bytes), "at {t}");
            if rng.below(2) == 0 {
                t = d; // back to back
            }
        }
    }
}
