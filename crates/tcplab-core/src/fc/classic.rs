//! Classic receiver flow control: receiver silly-window avoidance (RFC 1122 4.2.3.3,
//! RFC 9293 3.8.6.2.2) and the rule for unsolicited window updates (Linux's
//! `tcp_cleanup_rbuf`). Positions are 64-bit stream offsets.

/// RFC 1122 4.2.3.3: the right edge may advance only by at least min(Fr * RCV.BUFF, MSS)
/// with Fr = 1/2.
pub fn sws_threshold(rcv_buf: u64, mss: u32) -> u64 {
    (rcv_buf / 2).min(mss as u64).max(1)
}

/// The right edge to offer: `read_off + rcv_buf` when that clears the SWS threshold over
/// the edge already advertised, else the old edge (it never moves left).
pub fn right_edge(read_off: u64, rcv_buf: u64, adv_right: u64, mss: u32) -> u64 {
    let max_edge = read_off + rcv_buf;
    if max_edge >= adv_right + sws_threshold(rcv_buf, mss) {
        max_edge
    } else {
        adv_right
    }
}

/// Whether reading made an unsolicited window update due. RFC 9293 3.8.6.2.2 lets the
/// receiver announce the window once the SWS test passes; like Linux we do it when the
/// current window is at most half the buffer and the new one at least doubles it (which
/// covers the window reopening from zero).
pub fn window_update_due(
    read_off: u64,
    rcv_nxt: u64,
    rcv_buf: u64,
    adv_right: u64,
    mss: u32,
) -> bool {
    let edge = right_edge(read_off, rcv_buf, adv_right, mss);
    if edge == adv_right {
        return false;
    }
    let cur = adv_right.saturating_sub(rcv_nxt);
    let new = edge - rcv_nxt;
    2 * cur <= rcv_buf && new >= 2 * cur
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sws_rfc1122_4_2_3_3() {
        // "the window is not increased until the increase is at least min(Fr*RCV.BUFF, MSS)".
        assert_eq!(sws_threshold(4000, 1448), 1448);
        assert_eq!(sws_threshold(2000, 1448), 1000);
        // 4000-byte buffer fully used (edge 4000), app read 1000: 1000 < 1448, hold.
        assert_eq!(right_edge(1000, 4000, 4000, 1448), 4000);
        assert_eq!(right_edge(1448, 4000, 4000, 1448), 5448);
    }

    #[test]
    fn update_when_window_reopens() {
        // Zero window (rcv_nxt = edge = 4000); reading 1448 reopens it to 1448.
        assert!(window_update_due(1448, 4000, 4000, 4000, 1448));
        assert!(!window_update_due(1000, 4000, 4000, 4000, 1448));
        // A large open window: no update for a small read.
        assert!(!window_update_due(
            60_000,
            60_000,
            100_000,
            160_000 - 2000,
            1448
        ));
    }
}
