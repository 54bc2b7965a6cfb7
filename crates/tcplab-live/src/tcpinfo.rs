//! TCP_INFO (linux/tcp.h `struct tcp_info`): the fields live mode samples, read at their
//! offsets in the kernel's layout (stable ABI: fields are only ever appended), so the code
//! needs no bindings and works with any kernel that has them (5.x and later; a shorter
//! struct from an older kernel leaves the later fields zero).

use std::os::fd::RawFd;

#[derive(Copy, Clone, Debug, Default)]
pub struct TcpInfo {
    pub state: u8,
    pub snd_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub rtt_us: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub bytes_acked: u64,
    pub min_rtt_us: u32,
    pub delivery_rate: u64,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub snd_wnd: u32,
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    b.get(o..o + 4)
        .map(|s| u32::from_ne_bytes([s[0], s[1], s[2], s[3]]))
        .unwrap_or(0)
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    b.get(o..o + 8)
        .map(|s| u64::from_ne_bytes(s.try_into().unwrap()))
        .unwrap_or(0)
}

/// TCP_INFO of socket `fd`, or None if the socket is gone.
pub fn read(fd: RawFd) -> Option<TcpInfo> {
    let mut buf = [0u8; 512];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `buf`.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            buf.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return None;
    }
    let b = &buf[..len as usize];
    Some(TcpInfo {
        state: b[0],
        snd_mss: u32_at(b, 16),
        unacked: u32_at(b, 24),
        sacked: u32_at(b, 28),
        lost: u32_at(b, 32),
        retrans: u32_at(b, 36),
        rtt_us: u32_at(b, 68),
        snd_ssthresh: u32_at(b, 76),
        snd_cwnd: u32_at(b, 80),
        total_retrans: u32_at(b, 100),
        pacing_rate: u64_at(b, 104),
        bytes_acked: u64_at(b, 120),
        min_rtt_us: u32_at(b, 148),
        delivery_rate: u64_at(b, 160),
        bytes_sent: u64_at(b, 200),
        bytes_retrans: u64_at(b, 208),
        snd_wnd: u32_at(b, 228),
    })
}

impl TcpInfo {
    /// Bytes in flight as Linux counts them (tcp_packets_in_flight: unacked - sacked -
    /// lost + retransmitted, in segments).
    pub fn in_flight_bytes(&self) -> u64 {
        (self.unacked as i64 - self.sacked as i64 - self.lost as i64 + self.retrans as i64).max(0)
            as u64
            * self.snd_mss as u64
    }
}
