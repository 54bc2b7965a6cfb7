//! Receive-side reassembly of out-of-order data and the SACK blocks it reports
//! (RFC 9293 3.10.7.4 segment text processing; RFC 2018 section 4 block selection).
//! Offsets are 64-bit stream offsets (0 = first byte after the peer's SYN).

/// Out-of-order ranges above `rcv_nxt`, sorted, disjoint and non-adjacent.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    ranges: Vec<(u64, u64)>,
    ooo_bytes: u64,
    /// Starts of the most recently received out-of-order segments, newest first
    /// (RFC 2018: the first block reports the newest segment, then recent blocks).
    recent: [u64; 4],
    recent_len: usize,
}

impl Reassembly {
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }
    pub fn has_gaps(&self) -> bool {
        !self.ranges.is_empty()
    }
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Stores `[start, end)` (at or above `rcv_nxt`); returns the bytes not held before.
    /// `recent` marks an out-of-order arrival for the SACK block order.
    pub fn insert(&mut self, start: u64, end: u64, recent: bool) -> u64 {
        debug_assert!(start < end);
        // First range that ends at or after `start` (adjacent ranges merge too).
        let i = self.ranges.partition_point(|r| r.1 < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        let mut covered = 0;
        while j < self.ranges.len() && self.ranges[j].0 <= end {
            let r = self.ranges[j];
            covered += r.1.min(end).saturating_sub(r.0.max(start));
            s = s.min(r.0);
            e = e.max(r.1);
            j += 1;
        }
        let old: u64 = self.ranges[i..j].iter().map(|r| r.1 - r.0).sum();
        // `ranges[i..j]` becomes the one merged range. Written out rather than `splice`,
        // whose generic drop the compiler keeps out of line (~40 instructions per
        // out-of-order segment on dumbbell-10); the common case, one range grown, is a store.
        match j - i {
            0 => self.ranges.insert(i, (s, e)),
            1 => self.ranges[i] = (s, e),
            _ => {
                self.ranges[i] = (s, e);
                self.ranges.drain(i + 1..j);
            }
        }
        self.ooo_bytes = self.ooo_bytes - old + (e - s);
        if recent {
            self.note_recent(start);
        }
        (end - start) - covered
    }

    fn note_recent(&mut self, at: u64) {
        // Drop entries the new segment's block now subsumes, then put it first.
        let blk = self.block_of(at);
        let mut k = 0;
        let mut kept = [0u64; 4];
        for &r in &self.recent[..self.recent_len] {
            if self.block_of(r) != blk && k < 3 {
                kept[k] = r;
                k += 1;
            }
        }
        self.recent[0] = at;
        self.recent[1..=k].copy_from_slice(&kept[..k]);
        self.recent_len = k + 1;
    }

    fn block_of(&self, at: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|r| r.1 <= at);
        self.ranges.get(i).copied().filter(|r| r.0 <= at)
    }

    /// If data at `rcv_nxt` is buffered, removes that range and returns its end.
    pub fn pop_contiguous(&mut self, rcv_nxt: u64) -> Option<u64> {
        match self.ranges.first() {
            Some(&(s, e)) if s <= rcv_nxt => {
                // `remove(0)`, which the compiler keeps out of line (~30 instructions per
                // hole filled on dumbbell-10): shift the rest down, drop the last.
                self.ranges.copy_within(1.., 0);
                self.ranges.pop();
                self.ooo_bytes -= e - s;
                Some(e)
            }
            _ => None,
        }
    }

    /// Writes up to `max` SACK blocks, newest first, then the remaining ranges from the top.
    pub fn sack_blocks(&self, max: usize, out: &mut [(u64, u64); 4]) -> usize {
        let mut n = 0;
        let max = max.min(4);
        for &r in &self.recent[..self.recent_len] {
            if n >= max {
                return n;
            }
            if let Some(b) = self.block_of(r) {
                if !out[..n].contains(&b) {
                    out[n] = b;
                    n += 1;
                }
            }
        }
        for &b in self.ranges.iter().rev() {
            if n >= max {
                break;
            }
            if !out[..n].contains(&b) {
                out[n] = b;
                n += 1;
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_counts_new_bytes() {
        let mut r = Reassembly::default();
        assert_eq!(r.insert(10, 20, true), 10);
        assert_eq!(r.insert(30, 40, true), 10);
        assert_eq!(r.insert(15, 35, true), 10);
        assert_eq!(r.ranges(), &[(10, 40)]);
        assert_eq!(r.ooo_bytes(), 30);
        assert_eq!(r.insert(40, 45, true), 5);
        assert_eq!(r.ranges(), &[(10, 45)]);
        assert_eq!(r.pop_contiguous(5), None);
        assert_eq!(r.pop_contiguous(10), Some(45));
        assert_eq!(r.ooo_bytes(), 0);
    }

    #[test]
    fn merges_of_several_ranges_and_pops_keep_the_rest_in_order() {
        // The written-out splice (0, 1 or several ranges replaced) and remove(0).
        let mut r = Reassembly::default();
        for s in [10, 30, 50, 70, 90] {
            r.insert(s, s + 5, false);
        }
        assert_eq!(r.insert(32, 73, false), 30);
        assert_eq!(r.ranges(), &[(10, 15), (30, 75), (90, 95)]);
        assert_eq!(r.insert(20, 25, false), 5);
        assert_eq!(r.ranges(), &[(10, 15), (20, 25), (30, 75), (90, 95)]);
        assert_eq!(r.ooo_bytes(), 5 + 5 + 45 + 5);
        assert_eq!(r.pop_contiguous(10), Some(15));
        assert_eq!(r.ranges(), &[(20, 25), (30, 75), (90, 95)]);
        assert_eq!(r.pop_contiguous(20), Some(25));
        assert_eq!(r.ranges(), &[(30, 75), (90, 95)]);
        assert_eq!(r.ooo_bytes(), 50);
    }

    #[test]
    fn sack_blocks_rfc2018_order() {
        // RFC 2018 section 4: "The first SACK block ... MUST specify the contiguous block of
        // data containing the segment which triggered this ACK"; then the most recently
        // reported blocks.
        let mut r = Reassembly::default();
        r.insert(100, 200, true);
        r.insert(300, 400, true);
        r.insert(500, 600, true);
        let mut out = [(0, 0); 4];
        let n = r.sack_blocks(3, &mut out);
        assert_eq!(&out[..n], &[(500, 600), (300, 400), (100, 200)]);
        r.insert(200, 250, true);
        let n = r.sack_blocks(3, &mut out);
        assert_eq!(&out[..n], &[(100, 250), (500, 600), (300, 400)]);
        let n = r.sack_blocks(2, &mut out);
        assert_eq!(&out[..n], &[(100, 250), (500, 600)]);
    }
}
