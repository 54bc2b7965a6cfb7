//! 32-bit TCP sequence numbers with modular comparison (RFC 9293 section 3.4).
//!
//! Comparisons use the signed distance, valid while the two numbers are less than 2^31
//! apart, which holds for any window TCP can advertise (RFC 7323 section 2.3).

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct SeqNo(pub u32);

impl SeqNo {
    /// Signed distance `self - other` in the sequence space.
    pub fn diff(self, other: SeqNo) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }
    pub fn max(self, other: SeqNo) -> SeqNo {
        if self >= other {
            self
        } else {
            other
        }
    }
    pub fn min(self, other: SeqNo) -> SeqNo {
        if self <= other {
            self
        } else {
            other
        }
    }
}

impl PartialOrd for SeqNo {
    fn partial_cmp(&self, other: &SeqNo) -> Option<Ordering> {
        Some(self.diff(*other).cmp(&0))
    }
}

impl Add<u32> for SeqNo {
    type Output = SeqNo;
    fn add(self, n: u32) -> SeqNo {
        SeqNo(self.0.wrapping_add(n))
    }
}
impl AddAssign<u32> for SeqNo {
    fn add_assign(&mut self, n: u32) {
        self.0 = self.0.wrapping_add(n);
    }
}
/// `a - b` as an unsigned byte count; `a` must not be before `b`.
impl Sub<SeqNo> for SeqNo {
    type Output = u32;
    fn sub(self, o: SeqNo) -> u32 {
        debug_assert!(
            self >= o,
            "sequence subtraction went negative: {self:?} - {o:?}"
        );
        self.0.wrapping_sub(o.0)
    }
}

impl fmt::Debug for SeqNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_wraps() {
        let a = SeqNo(u32::MAX - 10);
        let b = a + 20;
        assert_eq!(b.0, 9);
        assert!(a < b);
        assert_eq!(b - a, 20);
        assert_eq!(a.max(b), b);
    }
}
