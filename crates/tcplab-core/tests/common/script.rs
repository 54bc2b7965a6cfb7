//! What every dialogue test needs: fixed sequence origins, millisecond instants, and the
//! segments an endpoint sends in response to one input.

use tcplab_core::tcp::Endpoint;
use tcplab_core::{Duration, Flags, Instant, SackBlock, Segment, SeqNo, TcpOptions};

/// One nanosecond: "just before a deadline" is `deadline - NS`.
pub const NS: Duration = Duration(1);
/// Our initial sequence number and the peer's.
pub const ISS: u32 = 1000;
pub const IRS: u32 = 5000;

pub fn ms(x: u64) -> Instant {
    Instant::from_millis(x)
}

/// Everything `ep` sends at `now`, in order.
pub fn drain(ep: &mut Endpoint, now: Instant) -> Vec<Segment> {
    std::iter::from_fn(|| ep.poll_transmit(now)).collect()
}

/// The one segment `ep` sends at `now` (fails the test if it sends none or several).
pub fn one(ep: &mut Endpoint, now: Instant) -> Segment {
    let v = drain(ep, now);
    assert_eq!(v.len(), 1, "expected exactly one segment, got {v:#?}");
    v[0]
}

/// The peer's SYN-ACK to our SYN (ISS), from its IRS, advertising `window` with `options`.
pub fn synack(window: u16, options: TcpOptions) -> Segment {
    Segment {
        seq: SeqNo(IRS),
        ack: SeqNo(ISS + 1),
        flags: Flags::SYN | Flags::ACK,
        window,
        options,
        ..Default::default()
    }
}

/// An endpoint of `cfg` connected at 0 ms and established at 50 ms by a SYN-ACK offering
/// MSS 1000 and SACK with `window`: RTT, SRTT and min RTT 50 ms.
pub fn established_with_sack(cfg: tcplab_core::tcp::TcpConfig, window: u16) -> Endpoint {
    let mut a = Endpoint::new(cfg, SeqNo(ISS));
    a.connect(ms(0));
    drain(&mut a, ms(0));
    let opts = TcpOptions {
        mss: Some(1000),
        sack_permitted: true,
        ..Default::default()
    };
    a.handle_segment(ms(50), &synack(window, opts));
    drain(&mut a, ms(50));
    a
}

/// Stream offsets of the data segments in `v`.
pub fn offs(v: &[Segment]) -> Vec<u32> {
    v.iter().map(|s| s.seq.0 - ISS - 1).collect()
}

/// An ACK from the peer of stream offset `off`, with SACK blocks (offsets).
pub fn ack(off: u32, sack: &[(u32, u32)]) -> Segment {
    let mut s = Segment {
        seq: SeqNo(IRS + 1),
        ack: SeqNo(ISS + 1 + off),
        flags: Flags::ACK,
        window: 65535,
        ..Default::default()
    };
    for &(x, y) in sack {
        s.options.push_sack(SackBlock {
            start: SeqNo(ISS + 1 + x),
            end: SeqNo(ISS + 1 + y),
        });
    }
    s
}
