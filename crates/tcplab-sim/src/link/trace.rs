//! Trace-driven link capacity in the format and semantics of Mahimahi's link emulator
//! (Netravali et al., USENIX ATC 2015; `mahimahi/src/packet/link_queue.cc`).
//!
//! A trace is one integer per line: a time in milliseconds at which the bottleneck may
//! deliver one opportunity's worth of bytes (1500 by default). Like Mahimahi, the trace
//! repeats with a period equal to its last timestamp (so the last line of one pass and the
//! first line of the next, if it is 0, fall at the same instant), a packet larger than an
//! opportunity's remaining credit continues in the following opportunities, and credit
//! left in an opportunity serves the next packet only if that packet is already waiting
//! at that instant: credit is never banked across idle time.

use crate::error::SimError;
use serde::Serialize;
use std::sync::Arc;
use tcplab_core::{Duration, Instant};

const NS_PER_MS: u64 = 1_000_000;
/// Largest trace file read (docs/reliability.md): the longest shipped trace is 3.4 MB.
pub const MAX_TRACE_BYTES: u64 = 256 << 20;
/// Largest timestamp whose nanosecond value fits in a u64 (about 584 years).
const MAX_MS: u64 = u64::MAX / NS_PER_MS;

/// A parsed Mahimahi trace. Immutable once loaded: share it between links with `Arc`.
#[derive(Clone, Debug, PartialEq)]
pub struct MahimahiTrace {
    path: String,
    /// Opportunity times of the first pass in ns, non-decreasing, last == `period_ns`.
    times_ns: Vec<u64>,
    period_ns: u64,
    /// How many entries equal the period: they coincide with the start of the next pass.
    at_period: u64,
}

impl MahimahiTrace {
    /// Reads and parses a trace file. Errors name the file (and the line).
    pub fn load(path: &str) -> Result<MahimahiTrace, SimError> {
        use std::io::Read;
        let cannot = |e: std::io::Error| SimError::Trace(format!("{path}: cannot read: {e}"));
        // A regular file, read at most MAX_TRACE_BYTES: a FIFO without a writer would block
        // `validate` forever and an endless device would be read until memory ran out.
        let meta = std::fs::metadata(path).map_err(cannot)?;
        if !meta.is_file() {
            return Err(SimError::Trace(format!(
                "{path}: not a regular file (a trace must be a file of millisecond timestamps)"
            )));
        }
        let mut text = Vec::new();
        std::fs::File::open(path)
            .map_err(cannot)?
            .take(MAX_TRACE_BYTES + 1)
            .read_to_end(&mut text)
            .map_err(cannot)?;
        if text.len() as u64 > MAX_TRACE_BYTES {
            return Err(SimError::Trace(format!(
                "{path}: larger than {} MiB, the limit for a trace file",
                MAX_TRACE_BYTES >> 20
            )));
        }
        MahimahiTrace::parse(path, &text)
    }

    /// Parses trace text; `path` is only used in messages and in `TraceInfo`.
    pub fn parse(path: &str, text: &[u8]) -> Result<MahimahiTrace, SimError> {
        let err = |line: usize, msg: String| SimError::Trace(format!("{path}:{line}: {msg}"));
        let mut times_ns = Vec::with_capacity(text.iter().filter(|&&b| b == b'\n').count() + 1);
        let mut last_ms = 0u64;
        // A blank line is only an error if something follows it (editors leave them at
        // the end; Mahimahi itself rejects any empty line).
        let mut blank_at = None;
        for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
            let line = raw.trim_ascii();
            if line.is_empty() {
                blank_at.get_or_insert(i + 1);
                continue;
            }
            if let Some(b) = blank_at {
                return Err(err(
                    b,
                    "expected a non-negative integer millisecond timestamp, found ''".into(),
                ));
            }
            let ms = parse_ms(line).ok_or_else(|| {
                let shown = String::from_utf8_lossy(&line[..line.len().min(40)]).into_owned();
                err(
                    i + 1,
                    format!(
                        "expected a non-negative integer millisecond timestamp, found '{shown}'"
                    ),
                )
            })?;
            if ms > MAX_MS {
                return Err(err(
                    i + 1,
                    format!("timestamp {ms} ms is too large (at most {MAX_MS} ms)"),
                ));
            }
            if ms < last_ms {
                return Err(err(
                    i + 1,
                    format!("timestamps must not decrease ({ms} ms after {last_ms} ms)"),
                ));
            }
            last_ms = ms;
            times_ns.push(ms * NS_PER_MS);
        }
        if times_ns.is_empty() {
            return Err(SimError::Trace(format!(
                "{path}: empty trace (expected one integer millisecond timestamp per line)"
            )));
        }
        if last_ms == 0 {
            return Err(SimError::Trace(format!(
                "{path}: the trace must last a positive time: its last timestamp, the period with \
                 which it repeats, is 0 ms"
            )));
        }
        let period_ns = last_ms * NS_PER_MS;
        let at_period = times_ns
            .iter()
            .rev()
            .take_while(|&&t| t == period_ns)
            .count() as u64;
        times_ns.shrink_to_fit();
        Ok(MahimahiTrace {
            path: path.to_string(),
            times_ns,
            period_ns,
            at_period,
        })
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// Number of delivery opportunities (lines) in one pass.
    pub fn len(&self) -> usize {
        self.times_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times_ns.is_empty()
    }

    /// The repetition period: the last timestamp.
    pub fn period(&self) -> Duration {
        Duration::from_nanos(self.period_ns)
    }

    /// Opportunity times of the first pass, in ns.
    pub fn times_ns(&self) -> &[u64] {
        &self.times_ns
    }

    /// Opportunities, over all passes, strictly before `t` ns; also the absolute index of
    /// the first opportunity at or after `t`. O(log n).
    fn count_before(&self, t: u64) -> u64 {
        let n = self.times_ns.len() as u64;
        let (q, r) = (t / self.period_ns, t % self.period_ns);
        // Passes 0..q-1 are complete, except that when t falls exactly on a pass boundary
        // the previous pass's entries at its period end sit at t itself, not before it.
        let boundary = if r == 0 && q > 0 { self.at_period } else { 0 };
        q.saturating_mul(n) - boundary + self.times_ns.partition_point(|&x| x < r) as u64
    }

    /// Opportunities, over all passes, at or before `t` ns. O(log n).
    fn count_through(&self, t: u64) -> u64 {
        let n = self.times_ns.len() as u64;
        let (q, r) = (t / self.period_ns, t % self.period_ns);
        // Passes 0..q-1 end at or before t (their entries at the period end sit at q *
        // period <= t); pass q contributes its entries at offsets <= r.
        q.saturating_mul(n) + self.times_ns.partition_point(|&x| x <= r) as u64
    }

    /// Summary statistics for `opportunity_bytes` per line. `min_mbps` and `max_mbps` are
    /// over the whole 1-second windows [k s, k+1 s) of the first pass (a final partial
    /// second is ignored; a trace shorter than a second is one window of its length).
    /// O(lines): the windows are found by walking the lines, and the empty ones (however
    /// many a long gap holds) are counted arithmetically, never visited.
    pub fn info(&self, opportunity_bytes: u32) -> TraceInfo {
        const SEC: u64 = 1_000_000_000;
        let bits = opportunity_bytes as f64 * 8.0;
        let mbps = |count: u64, ns: u64| count as f64 * bits / (ns as f64 * 1e-9) / 1e6;
        let windows = self.period_ns / SEC;
        let (min, max) = if windows == 0 {
            // Shorter than a second: the one window is the whole pass, so min = max = mean.
            let r = mbps(self.times_ns.len() as u64, self.period_ns);
            (r, r)
        } else {
            // Lines of the first pass before the end of the last whole window (a line at
            // the period end belongs to no whole window), grouped by window.
            let end = windows * SEC;
            let (mut nonempty, mut lo, mut hi) = (0u64, u64::MAX, 0u64);
            let (mut window, mut count) = (u64::MAX, 0u64);
            for &t in self.times_ns.iter().take_while(|&&t| t < end) {
                if t / SEC != window {
                    if count > 0 {
                        (lo, hi) = (lo.min(count), hi.max(count));
                    }
                    (window, count) = (t / SEC, 0);
                    nonempty += 1;
                }
                count += 1;
            }
            if count > 0 {
                (lo, hi) = (lo.min(count), hi.max(count));
            }
            if nonempty < windows {
                lo = 0; // some whole window has no line
            }
            (mbps(lo, SEC), mbps(hi, SEC))
        };
        TraceInfo {
            path: self.path.clone(),
            lines: self.times_ns.len() as u64,
            duration_ms: self.period_ns / NS_PER_MS,
            opportunity_bytes,
            mean_mbps: mbps(self.times_ns.len() as u64, self.period_ns),
            min_mbps: min,
            max_mbps: max,
        }
    }
}

/// Digits only (Mahimahi reads with `myatoi`, which also accepts nothing else); `None` on
/// anything else or on u64 overflow.
fn parse_ms(s: &[u8]) -> Option<u64> {
    let mut v: u64 = 0;
    for &b in s {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// What `tcplab trace-info` prints about a trace file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceInfo {
    pub path: String,
    /// Delivery opportunities in one pass.
    pub lines: u64,
    /// Length of one pass (the last timestamp).
    pub duration_ms: u64,
    pub opportunity_bytes: u32,
    /// lines * opportunity_bytes * 8 / duration.
    pub mean_mbps: f64,
    /// Lowest and highest rate over the 1-second windows of the first pass.
    pub min_mbps: f64,
    pub max_mbps: f64,
}

/// Loads `path` and summarises it with Mahimahi's default 1500-byte opportunities.
pub fn trace_info(path: &str) -> Result<TraceInfo, SimError> {
    Ok(MahimahiTrace::load(path)?.info(1500))
}

/// A link's position in a shared trace. Calls must come in non-decreasing `start` order;
/// the cursor only moves forward, so serving a packet costs O(1) amortised (a long idle
/// gap is crossed with one binary search, never a scan from the beginning).
#[derive(Clone, Debug)]
pub struct TraceRate {
    trace: Arc<MahimahiTrace>,
    opportunity_bytes: u64,
    /// The next unused opportunity: `base_ns + times_ns[idx]`, `base_ns` = pass * period.
    idx: usize,
    base_ns: u64,
    /// Credit left in the last used opportunity, which happened at `left_at_ns`.
    left_bytes: u64,
    left_at_ns: u64,
}

impl TraceRate {
    pub fn new(trace: Arc<MahimahiTrace>, opportunity_bytes: u32) -> Result<TraceRate, SimError> {
        if opportunity_bytes == 0 {
            return Err(SimError::Config(format!(
                "rate.opportunity_bytes = 0 for trace {}: each line must carry a positive number of bytes (Mahimahi: 1500)",
                trace.path
            )));
        }
        Ok(TraceRate {
            trace,
            opportunity_bytes: opportunity_bytes as u64,
            idx: 0,
            base_ns: 0,
            left_bytes: 0,
            left_at_ns: 0,
        })
    }

    pub fn trace(&self) -> &Arc<MahimahiTrace> {
        &self.trace
    }

    /// Saturates at `u64::MAX` (never) for a pass beyond the representable time, which a
    /// trace whose period is centuries long reaches after its first pass.
    #[inline]
    fn next_ns(&self) -> u64 {
        self.base_ns.saturating_add(self.trace.times_ns[self.idx])
    }

    #[inline]
    fn advance(&mut self, m: u64) {
        let n = self.trace.times_ns.len() as u64;
        let i = self.idx as u64 + m;
        if i < n {
            self.idx = i as usize;
        } else {
            let passes = (i / n).saturating_mul(self.trace.period_ns);
            self.base_ns = self.base_ns.saturating_add(passes);
            self.idx = (i % n) as usize;
        }
    }

    /// Moves the cursor to the first opportunity at or after `s`.
    #[inline]
    fn seek(&mut self, s: u64) {
        // Back-to-back traffic needs zero or a few steps; after idle time, jump.
        for _ in 0..8 {
            if self.next_ns() >= s {
                return;
            }
            self.advance(1);
        }
        if self.next_ns() < s {
            let k = self.trace.count_before(s);
            let n = self.trace.times_ns.len() as u64;
            self.base_ns = (k / n).saturating_mul(self.trace.period_ns);
            self.idx = (k % n) as usize;
        }
    }

    /// See [`super::RateModel::departure_time`]: the time of the opportunity that carries
    /// the packet's last byte.
    #[inline]
    pub fn departure_time(&mut self, start: Instant, bytes: u32) -> Instant {
        let s = start.as_nanos();
        let mut need = bytes as u64;
        if need == 0 {
            return start;
        }
        if self.left_bytes > 0 && s <= self.left_at_ns {
            // Waiting when the last opportunity fired: it may use that opportunity's rest.
            if need <= self.left_bytes {
                self.left_bytes -= need;
                return Instant::from_nanos(self.left_at_ns);
            }
            need -= self.left_bytes;
        } else {
            self.seek(s);
        }
        let k = need.div_ceil(self.opportunity_bytes);
        self.advance(k - 1);
        let t = self.next_ns();
        self.left_bytes = k * self.opportunity_bytes - need;
        self.left_at_ns = t;
        self.advance(1);
        Instant::from_nanos(t)
    }

    /// Bytes of the opportunities in `[from, to)`.
    pub fn capacity_bytes(&self, from: Instant, to: Instant) -> u64 {
        let c = self
            .trace
            .count_before(to.as_nanos())
            .saturating_sub(self.trace.count_before(from.as_nanos()));
        c.saturating_mul(self.opportunity_bytes)
    }

    /// Bytes of the opportunities in `[from, to]`: those at the instant `to` itself count,
    /// as a packet departing at `to` left in (and may have needed) one of them.
    pub fn capacity_bytes_through(&self, from: Instant, to: Instant) -> u64 {
        let c = self
            .trace
            .count_through(to.as_nanos())
            .saturating_sub(self.trace.count_before(from.as_nanos()));
        c.saturating_mul(self.opportunity_bytes)
    }

    pub fn mean_rate_bps(&self) -> f64 {
        self.trace.times_ns.len() as f64 * self.opportunity_bytes as f64 * 8.0
            / (self.trace.period_ns as f64 * 1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Rng;

    const MS: u64 = NS_PER_MS;

    fn trace(text: &str) -> Arc<MahimahiTrace> {
        Arc::new(MahimahiTrace::parse("t.down", text.as_bytes()).unwrap())
    }

    fn trace_err(text: &str) -> String {
        match MahimahiTrace::parse("t.down", text.as_bytes()) {
            Err(SimError::Trace(m)) => m,
            r => panic!("{r:?}"),
        }
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        assert_eq!(
            trace_err("1\n2\nx3\n"),
            "t.down:3: expected a non-negative integer millisecond timestamp, found 'x3'"
        );
        assert_eq!(
            trace_err("1\n-2\n"),
            "t.down:2: expected a non-negative integer millisecond timestamp, found '-2'"
        );
        assert_eq!(
            trace_err("1\n1.5\n"),
            "t.down:2: expected a non-negative integer millisecond timestamp, found '1.5'"
        );
        assert_eq!(
            trace_err("1\n\n2\n"),
            "t.down:2: expected a non-negative integer millisecond timestamp, found ''"
        );
        assert_eq!(
            trace_err("40\n42\n41\n"),
            "t.down:3: timestamps must not decrease (41 ms after 42 ms)"
        );
        assert_eq!(
            trace_err(""),
            "t.down: empty trace (expected one integer millisecond timestamp per line)"
        );
        assert_eq!(
            trace_err("\n \n"),
            "t.down: empty trace (expected one integer millisecond timestamp per line)"
        );
        assert!(trace_err("0\n0\n").starts_with("t.down: the trace must last a positive time"));
        assert!(trace_err("99999999999999999999\n").starts_with("t.down:1: expected"));
        assert!(trace_err("18446744073710\n")
            .starts_with("t.down:1: timestamp 18446744073710 ms is too large"));
        match MahimahiTrace::load("/nonexistent/dir/foo.up") {
            Err(SimError::Trace(m)) => assert!(
                m.starts_with("/nonexistent/dir/foo.up: cannot read: "),
                "{m}"
            ),
            r => panic!("{r:?}"),
        }
    }

    #[test]
    fn parse_accepts_crlf_spaces_and_trailing_blank_lines() {
        let t = MahimahiTrace::parse("t", b"0\r\n 5 \r\n5\n10\n\n\n").unwrap();
        assert_eq!(t.times_ns(), &[0, 5 * MS, 5 * MS, 10 * MS]);
        assert_eq!(t.period(), Duration::from_millis(10));
        assert_eq!(t.at_period, 1);
    }

    #[test]
    fn counts_across_passes() {
        // Passes of 5 ms: 1,1,2,5 | 6,6,7,10 | 11,11,12,15 ...
        let t = trace("1\n1\n2\n5\n");
        assert_eq!(t.count_before(0), 0);
        assert_eq!(t.count_before(MS), 0);
        assert_eq!(t.count_before(MS + 1), 2);
        assert_eq!(t.count_before(5 * MS), 3);
        assert_eq!(t.count_before(5 * MS + 1), 4);
        assert_eq!(t.count_before(10 * MS), 7);
        // A trace starting at 0 has two opportunities at each pass boundary.
        let z = trace("0\n3\n");
        assert_eq!(z.count_before(3 * MS), 1);
        assert_eq!(z.count_before(3 * MS + 1), 3);
        assert_eq!(z.count_before(6 * MS), 3);
    }

    #[test]
    fn departures_follow_mahimahi() {
        let mut r = TraceRate::new(trace("1\n1\n2\n5\n"), 1500).unwrap();
        let at = |ms: u64| Instant::from_nanos(ms * MS);
        assert_eq!(r.departure_time(at(0), 1500), at(1));
        assert_eq!(r.departure_time(at(1), 1500), at(1)); // second opportunity at 1 ms
        assert_eq!(r.departure_time(at(1), 100), at(2)); // leaves 1400 at 2 ms
        assert_eq!(r.departure_time(at(2), 100), at(2)); // leftover, same opportunity
        assert_eq!(r.departure_time(at(2), 1500), at(5)); // 1300 left + 200 of the 5 ms one
                                                          // Arriving after the 5 ms opportunity fired: its 1300 B are gone.
        assert_eq!(
            r.departure_time(Instant::from_nanos(5 * MS + 1), 100),
            at(6)
        );
        // 1400 left at 6 ms + the second 6 ms opportunity + 100 B of the 7 ms one.
        assert_eq!(r.departure_time(at(6), 3000), at(7));
        // A long idle gap: 200 passes later.
        assert_eq!(
            r.departure_time(Instant::from_nanos(1000 * MS + MS / 2), 1500),
            at(1001)
        );
        assert_eq!(r.departure_time(at(1005), 1500), at(1005)); // last line of pass 200
        assert_eq!(r.departure_time(at(1005), 1500), at(1006));
    }

    #[test]
    fn two_links_share_one_trace() {
        let t = trace("1\n2\n");
        let mut a = TraceRate::new(t.clone(), 1500).unwrap();
        let mut b = TraceRate::new(t.clone(), 1000).unwrap();
        assert_eq!(
            a.departure_time(Instant::ZERO, 1500),
            Instant::from_millis(1)
        );
        assert_eq!(
            b.departure_time(Instant::ZERO, 1500),
            Instant::from_millis(2)
        );
        assert_eq!(Arc::strong_count(&t), 3);
        assert!(TraceRate::new(t, 0).is_err());
    }

    /// Mahimahi's `LinkQueue::use_a_delivery_opportunity`, transcribed literally: walk
    /// the opportunities one by one, fill each with queued packets that have arrived.
    fn mahimahi_reference(t: &MahimahiTrace, opp: u64, pkts: &[(u64, u32)]) -> Vec<u64> {
        let n = t.times_ns.len() as u64;
        let time = |k: u64| (k / n) * t.period_ns + t.times_ns[(k % n) as usize];
        let mut out = Vec::new();
        let (mut k, mut next_pkt, mut in_transit_left) = (0u64, 0usize, 0u64);
        while out.len() < pkts.len() {
            let now = time(k);
            let mut left = opp;
            while left > 0 {
                if in_transit_left == 0 {
                    if next_pkt == pkts.len() || pkts[next_pkt].0 > now {
                        break;
                    }
                    in_transit_left = pkts[next_pkt].1 as u64;
                    next_pkt += 1;
                }
                let amount = left.min(in_transit_left);
                in_transit_left -= amount;
                left -= amount;
                if in_transit_left == 0 {
                    out.push(now);
                }
            }
            k += 1;
        }
        out
    }

    #[test]
    fn matches_a_literal_transcription_of_mahimahi() {
        let mut rng = Rng::from_seed(77);
        for case in 0..20 {
            // Random trace: bursts of repeated milliseconds and gaps, sometimes from 0.
            let mut text = String::new();
            let mut ms = if case % 2 == 0 { 0 } else { rng.below(5) };
            for _ in 0..(1 + rng.below(40)) {
                ms += rng.below(4);
                for _ in 0..(1 + rng.below(3)) {
                    text.push_str(&format!("{ms}\n"));
                }
            }
            text.push_str(&format!("{}\n", ms + 1));
            let t = trace(&text);
            let opp = [1500u64, 1000, 100][case % 3];
            // Arrivals: mostly bursts, sometimes long idle gaps over many passes.
            let mut pkts = Vec::new();
            let mut at = 0u64;
            for _ in 0..400 {
                at += match rng.below(10) {
                    0 => rng.below(50 * t.period_ns),
                    1..=4 => 0,
                    _ => rng.below(2 * MS),
                };
                pkts.push((at, [40u32, 52, 600, 1500, 3100][rng.below(5) as usize]));
            }
            let want = mahimahi_reference(&t, opp, &pkts);
            let mut r = TraceRate::new(t.clone(), opp as u32).unwrap();
            let mut prev = 0u64;
            for (i, &(arrival, bytes)) in pkts.iter().enumerate() {
                let start = arrival.max(prev);
                let d = r
                    .departure_time(Instant::from_nanos(start), bytes)
                    .as_nanos();
                assert!(d >= start);
                assert_eq!(d, want[i], "case {case} packet {i}: trace {text:?}");
                prev = d;
            }
        }
    }

    #[test]
    fn capacity_counts_opportunities() {
        let r = TraceRate::new(trace("1\n1\n2\n5\n"), 1500).unwrap();
        assert_eq!(
            r.capacity_bytes(Instant::ZERO, Instant::from_millis(5)),
            3 * 1500
        );
        assert_eq!(
            r.capacity_bytes(Instant::ZERO, Instant::from_millis(500)),
            399 * 1500
        );
        assert_eq!(
            r.capacity_bytes(
                Instant::from_millis(6),
                Instant::from_millis(6) + Duration(1)
            ),
            3000
        );
        assert!((r.mean_rate_bps() - 4.0 * 1500.0 * 8.0 / 0.005).abs() < 1e-6);
    }

    #[test]
    fn class1_capacity_through_counts_the_opportunities_at_its_end() {
        // Passes of 5 ms: 1,1,2,5 | 6,6,7,10 | ...; "0\n3\n": 0,3 | 3,6 | 6,9 ...
        let r = TraceRate::new(trace("1\n1\n2\n5\n"), 1500).unwrap();
        let at = Instant::from_millis;
        assert_eq!(r.capacity_bytes(at(0), at(1)), 0);
        assert_eq!(r.capacity_bytes_through(at(0), at(1)), 3000);
        assert_eq!(r.capacity_bytes_through(at(0), at(5)), 4 * 1500);
        assert_eq!(r.capacity_bytes_through(at(5), at(5)), 1500);
        assert_eq!(r.capacity_bytes_through(at(6), at(5)), 0);
        assert_eq!(r.capacity_bytes_through(at(0), at(6)), 6 * 1500);
        let z = TraceRate::new(trace("0\n3\n"), 1000).unwrap();
        assert_eq!(z.capacity_bytes_through(at(0), at(0)), 1000);
        assert_eq!(z.capacity_bytes_through(at(0), at(3)), 3000);
        assert_eq!(z.capacity_bytes_through(at(3), at(3)), 2000);
        // count_through(t) is count_before(t + 1 ns), across passes and boundaries.
        let mut rng = Rng::from_seed(5);
        for text in [
            "1\n1\n2\n5\n",
            "0\n3\n",
            "0\n0\n4\n4\n",
            "7\n",
            "2\n2\n9\n9\n9\n",
        ] {
            let t = trace(text);
            for _ in 0..2000 {
                let x = match rng.below(3) {
                    0 => rng.below(40) * MS,
                    1 => (rng.below(40) * MS + 2 * rng.below(2)).saturating_sub(1),
                    _ => rng.below(40 * MS),
                };
                assert_eq!(t.count_through(x), t.count_before(x + 1), "{text:?} at {x}");
            }
        }
    }

    /// A packet that leaves at the instant of an opportunity used that opportunity: what
    /// `departure_time` hands out up to a departure never exceeds `capacity_bytes_through`
    /// of that departure (and can exceed `capacity_bytes` up to it).
    #[test]
    fn class1_bytes_sent_fit_the_capacity_through_the_last_departure() {
        let mut rng = Rng::from_seed(20);
        let mut exceeded_half_open = false;
        for case in 0..30 {
            let mut text = String::new();
            let mut ms = rng.below(3);
            for _ in 0..(1 + rng.below(30)) {
                ms += rng.below(3);
                text.push_str(&format!("{ms}\n"));
            }
            text.push_str(&format!("{}\n", ms + 1 + rng.below(3)));
            let opp = [1500u32, 1000, 300][case % 3];
            let mut r = TraceRate::new(trace(&text), opp).unwrap();
            let (mut t, mut sent) = (0u64, 0u64);
            for _ in 0..300 {
                t += [0, 0, rng.below(MS), rng.below(20 * MS)][rng.below(4) as usize];
                let bytes = [40u32, 60, 1500, 2900][rng.below(4) as usize];
                let d = r.departure_time(Instant::from_nanos(t), bytes);
                sent += bytes as u64;
                let through = r.capacity_bytes_through(Instant::ZERO, d);
                assert!(
                    sent <= through,
                    "case {case}: {sent} > {through} at {d:?}, {text:?}"
                );
                exceeded_half_open |= sent > r.capacity_bytes(Instant::ZERO, d);
                t = d.as_nanos(); // back to back: the next packet starts when this one left
            }
        }
        assert!(
            exceeded_half_open,
            "the half-open window is too small somewhere"
        );
    }

    /// The old `info`: one binary search per 1-second window of the pass.
    fn info_by_every_window(t: &MahimahiTrace, opportunity_bytes: u32) -> (f64, f64) {
        let bits = opportunity_bytes as f64 * 8.0;
        let mbps = |count: u64, ns: u64| count as f64 * bits / (ns as f64 * 1e-9) / 1e6;
        let windows = t.period_ns / 1_000_000_000;
        if windows == 0 {
            let r = mbps(t.times_ns.len() as u64, t.period_ns);
            return (r, r);
        }
        let (mut min, mut max, mut prev) = (f64::INFINITY, 0.0f64, 0);
        for k in 1..=windows {
            let c = t.count_before(k * 1_000_000_000);
            min = min.min(mbps(c - prev, 1_000_000_000));
            max = max.max(mbps(c - prev, 1_000_000_000));
            prev = c;
        }
        (min, max)
    }

    #[test]
    fn class5_info_walks_the_lines_and_matches_a_walk_over_every_second() {
        let mut rng = Rng::from_seed(55);
        for case in 0..200 {
            let mut text = String::new();
            let mut ms = if case % 2 == 0 { 0 } else { rng.below(3000) };
            for _ in 0..(1 + rng.below(50)) {
                ms += [0, rng.below(300), rng.below(2500)][rng.below(3) as usize];
                text.push_str(&format!("{ms}\n"));
            }
            if case % 3 == 0 {
                ms = ms.div_ceil(1000).max(1) * 1000; // end on a whole second
            } else {
                ms += 1 + rng.below(1500);
            }
            text.push_str(&format!("{ms}\n"));
            let t = trace(&text);
            let info = t.info(1500);
            assert_eq!(
                (info.min_mbps, info.max_mbps),
                info_by_every_window(&t, 1500),
                "{text:?}"
            );
        }
        // A 31.7-year period with two lines: 10^9 windows, all but the first empty. The walk
        // over the lines gives the empty windows' minimum without visiting them; the test
        // that it does so without a loop over the windows is in tests/trace_links.rs (a hang
        // guard: no test asserts a speed).
        let huge = trace("0\n1000000000000\n").info(1500);
        assert_eq!((huge.min_mbps, huge.max_mbps), (0.0, 0.012));
        assert_eq!((huge.lines, huge.duration_ms), (2, 1_000_000_000_000));
    }

    #[test]
    fn class5_departures_past_the_clock_saturate_instead_of_wrapping() {
        // The largest accepted period (584 years): a packet needing more opportunities than
        // the first pass holds departs "never" (u64::MAX), not at a wrapped-around time.
        let t = trace(&format!("0\n{MAX_MS}\n"));
        let mut r = TraceRate::new(t.clone(), 100).unwrap();
        assert_eq!(r.departure_time(Instant::ZERO, 100), Instant::ZERO);
        assert_eq!(r.departure_time(Instant::ZERO, 1500), Instant::MAX);
        let mut r = TraceRate::new(t.clone(), 1500).unwrap();
        assert_eq!(r.departure_time(Instant::ZERO, 1500), Instant::ZERO);
        let p = Instant::from_nanos(MAX_MS * MS);
        assert_eq!(r.departure_time(Instant::from_millis(1), 1500), p);
        assert_eq!(r.departure_time(p, 1500), p); // the next pass's line at 0
        assert_eq!(r.departure_time(p, 1500), Instant::MAX);
        assert_eq!(r.capacity_bytes_through(Instant::ZERO, p), 3 * 1500);
    }

    #[test]
    fn info_of_a_small_trace() {
        // 2 s: first second 1 line, second second 3 lines (one at 2000 = the period end,
        // which belongs to the next pass's first instant and to no whole window).
        let info = MahimahiTrace::parse("x", b"500\n1000\n1500\n2000\n")
            .unwrap()
            .info(1500);
        assert_eq!(
            (info.lines, info.duration_ms, info.opportunity_bytes),
            (4, 2000, 1500)
        );
        assert!((info.mean_mbps - 0.024).abs() < 1e-9);
        assert!((info.min_mbps - 0.012).abs() < 1e-9 && (info.max_mbps - 0.024).abs() < 1e-9);
        let short = MahimahiTrace::parse("x", b"0\n0\n100\n")
            .unwrap()
            .info(1000);
        // Shorter than a second: one window, the whole pass, at the mean rate (3 lines per
        // 100 ms, as every pass repeats them).
        assert!((short.min_mbps - 0.24).abs() < 1e-9 && short.min_mbps == short.max_mbps);
        assert_eq!(short.min_mbps, short.mean_mbps);
    }

    #[test]
    fn cellular_traces_match_the_published_means() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../python/tcplab/traces/cellular"
        );
        // From the traces' README.md (Mbit/s, 1500-byte opportunities).
        let table = [
            ("ATT-LTE-driving.down", 5.17),
            ("ATT-LTE-driving.up", 0.83),
            ("ATT-LTE-driving-2016.down", 4.56),
            ("ATT-LTE-driving-2016.up", 1.91),
            ("TMobile-LTE-driving.down", 12.77),
            ("TMobile-LTE-short.down", 16.70),
            ("TMobile-LTE-short.up", 13.32),
            ("TMobile-UMTS-driving.down", 2.02),
            ("TMobile-UMTS-driving.up", 0.94),
            ("Verizon-EVDO-driving.down", 0.52),
            ("Verizon-EVDO-driving.up", 0.84),
            ("Verizon-LTE-short.down", 5.03),
            ("Verizon-LTE-short.up", 5.95),
        ];
        for (name, mbps) in table {
            let info = trace_info(&format!("{dir}/{name}")).unwrap();
            assert!(
                (info.mean_mbps - mbps).abs() < 0.006,
                "{name}: {} vs {mbps}",
                info.mean_mbps
            );
            assert!(
                info.min_mbps <= info.mean_mbps && info.mean_mbps <= info.max_mbps,
                "{info:?}"
            );
        }
        let umts = trace_info(&format!("{dir}/TMobile-UMTS-driving.down")).unwrap();
        assert_eq!((umts.lines, umts.duration_ms), (156_262, 928_424));
    }
}
