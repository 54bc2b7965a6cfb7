//! A forged zero-window advertisement (BSF paper section III-D; Freeze-TCP's ZWA) against
//! a real sender: the window update rules of RFC 9293 3.10.7.4 accept it, the sender stops
//! and probes (RFC 9293 3.8.6.1 persist) with its congestion window intact, and the
//! receiver's reply to a probe, with its open window, resumes it where it stopped.

mod common;
use common::script::{ack, drain, ms, offs, synack, ISS, NS};
use tcplab_core::tcp::{Endpoint, EndpointState, TcpConfig};
use tcplab_core::{Duration, SeqNo, TcpOptions};

fn sender() -> Endpoint {
    let cfg = TcpConfig {
        mss: 1000,
        rcv_buf_bytes: 64_000,
        snd_buf_bytes: 200_000,
        min_rto: Duration::from_millis(200),
        timestamps: false,
        ..common::rfc_rules()
    };
    let mut a = Endpoint::new(cfg, SeqNo(ISS));
    a.connect(ms(0));
    drain(&mut a, ms(0));
    a.handle_segment(
        ms(50),
        &synack(
            65535,
            TcpOptions {
                mss: Some(1000),
                ..Default::default()
            },
        ),
    );
    drain(&mut a, ms(50));
    assert_eq!(a.state(), EndpointState::Established);
    a
}

/// Writes `bytes` at 100 ms and acknowledges everything as it goes out (one ACK per
/// flight, 50 ms later), until all of it is acknowledged; returns the time of the last ACK.
fn send_all_acknowledged(a: &mut Endpoint, bytes: u32) -> u64 {
    a.write(ms(100), bytes as u64);
    let mut t = 100;
    let mut end = 0;
    loop {
        let v = drain(a, ms(t));
        if let Some(&last) = offs(&v).last() {
            end = last + 1000;
        } else if end == bytes {
            return t;
        }
        t += 50;
        a.handle_segment(ms(t), &ack(end, &[]));
    }
}

#[test]
fn a_forged_zero_window_freezes_the_sender_without_shrinking_cwnd_and_the_receiver_resumes_it() {
    let mut a = sender();
    let t = send_all_acknowledged(&mut a, 30_000);
    let cwnd = a.cwnd();
    assert!(cwnd > 10_000, "slow start grew the window: {cwnd}");
    // The base station's ZWA: the receiver's own numbers (its sequence number, its latest
    // acknowledgement) with a zero window, as crates/tcplab-sim/src/element/bsf.rs forges it.
    let mut zwa = ack(30_000, &[]);
    zwa.window = 0;
    a.handle_segment(ms(t + 10), &zwa);
    // Accepted as a window update, not a duplicate ACK (the window changed, RFC 5681 2):
    // nothing counted as a loss, cwnd untouched.
    assert_eq!(a.peer_window(), 0);
    assert_eq!(a.cwnd(), cwnd);
    let s = a.stats();
    assert_eq!(
        (s.timeouts, s.fast_retransmits, s.dup_acks_received),
        (0, 0, 0)
    );
    // The application writes more: the sender holds it back and arms the persist timer
    // (nothing is outstanding, so no retransmission timer).
    let w = ms(t + 20);
    a.write(w, 50_000);
    assert_eq!(drain(&mut a, w), vec![]);
    let probe_at = a.poll_timeout().expect("the persist timer is armed");
    assert!(probe_at > w);
    a.handle_timeout(probe_at - NS);
    assert_eq!(drain(&mut a, probe_at - NS), vec![]);
    a.handle_timeout(probe_at);
    let probe = drain(&mut a, probe_at);
    assert_eq!(offs(&probe), vec![30_000], "one zero-window probe");
    assert_eq!(probe[0].payload_len, 1);
    assert_eq!(a.cwnd(), cwnd, "a probe is not a timeout");
    // The real receiver takes the probe byte and answers with its open window: the sender
    // resumes where it stopped with the congestion window it had.
    let r = probe_at + Duration::from_millis(50);
    a.handle_segment(r, &ack(30_001, &[]));
    let resumed = drain(&mut a, r);
    assert_eq!(offs(&resumed)[0], 30_001);
    // A full congestion window goes out at once (not the restart window of a timeout).
    let bytes: u64 = resumed.iter().map(|s| s.payload_len as u64).sum();
    assert!(
        bytes + 1000 > a.cwnd() && bytes <= a.cwnd(),
        "{bytes} bytes for cwnd {}",
        a.cwnd()
    );
    assert!(a.cwnd() >= cwnd);
    assert_eq!(a.stats().timeouts, 0);
}

#[test]
fn with_data_in_flight_the_receivers_next_ack_reopens_the_window() {
    // The ZWA overtakes nothing: ACKs of data still in flight carry the receiver's open
    // window and end the freeze at once (which is why BSF acts when its buffer runs dry).
    let mut a = sender();
    a.write(ms(100), 100_000);
    assert_eq!(drain(&mut a, ms(100)).len(), 10);
    let cwnd = a.cwnd();
    let mut zwa = ack(0, &[]);
    zwa.window = 0;
    a.handle_segment(ms(120), &zwa);
    assert_eq!(a.peer_window(), 0);
    assert_eq!(drain(&mut a, ms(120)), vec![]);
    assert_eq!(a.stats().dup_acks_received, 0);
    a.handle_segment(ms(150), &ack(10_000, &[]));
    let v = drain(&mut a, ms(150));
    assert_eq!(offs(&v)[0], 10_000);
    assert!(a.cwnd() > cwnd);
    assert_eq!(a.stats().timeouts, 0);
}
