//! Sample statistics for delays: a log-linear histogram (HdrHistogram's layout: a power-of-
//! two exponent and 128 linear sub-buckets, so any value is within 0.8% of its bucket)
//! that needs no allocation per sample, or exact samples when the scenario asks for them.

use crate::output::Percentiles;

const SUB_BITS: u32 = 7;
const SUB: usize = 1 << SUB_BITS;

#[derive(Clone, Debug)]
pub struct DelayStats {
    /// Counts of buckets `first..first + buckets.len()`: only the span of values seen is
    /// stored (a path's delays sit within a few powers of two: a few hundred buckets,
    /// where a dense array from zero would hold about 1,400 per series, per flow).
    buckets: Vec<u64>,
    first: usize,
    exact: Option<Vec<u64>>,
    count: u64,
    sum: u128,
}

fn bucket_of(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = msb - (SUB_BITS - 1);
    let sub = (v >> shift) as usize & (SUB / 2 - 1);
    (shift as usize + 1) * (SUB / 2) + sub + SUB / 2
}

/// The midpoint of a bucket's value range (its representative value).
fn bucket_value(b: usize) -> u64 {
    if b < SUB {
        return b as u64;
    }
    let shift = (b - SUB / 2) / (SUB / 2) - 1;
    let sub = (b - SUB / 2) % (SUB / 2);
    let lo = ((SUB / 2 + sub) as u64) << shift;
    lo + ((1u64 << shift) >> 1)
}

impl DelayStats {
    pub fn new(exact: bool) -> Self {
        DelayStats {
            buckets: Vec::new(),
            first: 0,
            exact: exact.then(Vec::new),
            count: 0,
            sum: 0,
        }
    }

    pub fn record(&mut self, v_ns: u64) {
        self.count += 1;
        self.sum += v_ns as u128;
        match &mut self.exact {
            Some(s) => s.push(v_ns),
            None => {
                let b = bucket_of(v_ns);
                if self.buckets.is_empty() {
                    self.first = b;
                } else if b < self.first {
                    // Grow downwards: shift the span up by the missing buckets.
                    let grow = self.first - b;
                    self.buckets.splice(0..0, std::iter::repeat_n(0, grow));
                    self.first = b;
                }
                let i = b - self.first;
                if i >= self.buckets.len() {
                    self.buckets.resize(i + 1, 0);
                }
                self.buckets[i] += 1;
            }
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Value (ns) at quantile q in [0, 1] (nearest rank).
    pub fn quantile(&mut self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        match &mut self.exact {
            Some(s) => {
                s.sort_unstable();
                s[rank as usize - 1]
            }
            None => {
                let mut acc = 0;
                for (i, &c) in self.buckets.iter().enumerate() {
                    acc += c;
                    if acc >= rank {
                        return bucket_value(self.first + i);
                    }
                }
                unreachable!("histogram counts add up to count")
            }
        }
    }

    /// Mean, median and 95th percentile in milliseconds.
    pub fn summary_ms(&mut self) -> Percentiles {
        if self.count == 0 {
            return Percentiles::default();
        }
        Percentiles {
            mean: (self.sum as f64 / self.count as f64) * 1e-6,
            p50: self.quantile(0.5) as f64 * 1e-6,
            p95: self.quantile(0.95) as f64 * 1e-6,
            count: self.count,
        }
    }

    /// (value_ns, cumulative fraction) points of the CDF, one per non-empty bucket.
    pub fn cdf(&mut self) -> Vec<(u64, f64)> {
        let n = self.count as f64;
        let mut out = Vec::new();
        match &mut self.exact {
            Some(s) => {
                s.sort_unstable();
                let step = (s.len() / 512).max(1);
                for (i, &v) in s.iter().enumerate() {
                    if (i + 1) % step == 0 || i + 1 == s.len() {
                        out.push((v, (i + 1) as f64 / n));
                    }
                }
            }
            None => {
                let mut acc = 0;
                for (i, &c) in self.buckets.iter().enumerate() {
                    if c > 0 {
                        acc += c;
                        out.push((bucket_value(self.first + i), acc as f64 / n));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_error_is_below_one_percent() {
        for v in [
            0u64,
            1,
            127,
            128,
            129,
            1000,
            40_000_000,
            1_234_567_891,
            u64::MAX / 3,
        ] {
            let r = bucket_value(bucket_of(v));
            let err = (r as f64 - v as f64).abs() / (v as f64).max(1.0);
            assert!(err <= 0.008, "v={v} r={r} err={err}");
        }
        // Buckets are monotone.
        let mut last = 0;
        for v in (0..2_000_000u64).step_by(997) {
            let b = bucket_of(v);
            assert!(b >= last);
            last = b;
        }
    }

    #[test]
    fn quantiles_match_exact_within_a_percent() {
        let mut h = DelayStats::new(false);
        let mut e = DelayStats::new(true);
        let mut x: u64 = 12345;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = 20_000_000 + (x >> 40) % 30_000_000;
            h.record(v);
            e.record(v);
        }
        for q in [0.5, 0.95] {
            let (a, b) = (h.quantile(q) as f64, e.quantile(q) as f64);
            assert!((a - b).abs() / b < 0.01, "q={q}: {a} vs {b}");
        }
        assert_eq!(h.summary_ms().mean, e.summary_ms().mean);
    }

    /// The stored span grows both ways and answers as a dense array from zero would.
    #[test]
    fn sparse_span_matches_dense_counts() {
        let values = [40_000_000u64, 39_000_000, 5, 90_000_000, 41_000_000, 1_000];
        let mut h = DelayStats::new(false);
        let mut dense = vec![0u64; bucket_of(100_000_000) + 1];
        for &v in &values {
            h.record(v);
            dense[bucket_of(v)] += 1;
        }
        assert_eq!(h.first, bucket_of(5));
        assert_eq!(h.buckets.len(), bucket_of(90_000_000) - bucket_of(5) + 1);
        for (i, &c) in h.buckets.iter().enumerate() {
            assert_eq!(c, dense[h.first + i], "bucket {}", h.first + i);
        }
        assert_eq!(h.quantile(0.5), bucket_value(bucket_of(39_000_000)));
        assert_eq!(h.cdf().first().unwrap().0, bucket_value(bucket_of(5)));
        // A flow whose delays stay within 20-50 ms stores a few hundred buckets at most.
        let mut narrow = DelayStats::new(false);
        for v in (20_000_000..50_000_000).step_by(1_000) {
            narrow.record(v);
        }
        assert!(narrow.buckets.len() < 200, "{}", narrow.buckets.len());
    }
}
