//! Flows as real kernel TCP sockets (issue 36, "Flows are real kernel sockets"): each
//! `[[flows]]` entry is a listening socket in the receiver's namespace and a connecting
//! socket in the sender's, both opened by this process (a socket keeps the namespace it was
//! created in, so the threads that drive them need not move). The sender writes `bytes`
//! (or until `stop` or the end), the receiver reads as the scenario's `read` profile says,
//! paced on the real clock with the simulator's rules (allowance per `tick`, never banked;
//! `blocking` takes data the moment it arrives, up to the tick's remaining allowance).
//! `snd_buf`/`rcv_buf` are SO_SNDBUF/SO_RCVBUF, `cc` is TCP_CONGESTION, read back from the
//! socket for the summary; `mss` is TCP_MAXSEG and `nagle = false` TCP_NODELAY.

use crate::clock::Clock;
use crate::netns;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tcplab_core::{Duration, Instant};
use tcplab_sim::config::ReadProfile;

/// What one flow is to do, resolved from the scenario.
#[derive(Clone, Debug)]
pub struct FlowPlan {
    pub index: usize,
    pub name: String,
    pub src_ns: String,
    pub dst_ns: String,
    pub src_addr: [u8; 4],
    pub dst_addr: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    pub bytes: Option<u64>,
    pub connect: Instant,
    pub start: Instant,
    pub stop: Option<Instant>,
    pub snd_buf: Option<u64>,
    pub rcv_buf: Option<u64>,
    pub cc: String,
    pub mss: Option<u32>,
    pub nodelay: bool,
    pub read: ReadProfile,
}

/// What the flow's threads report, shared with the sampler and the summary.
#[derive(Default)]
pub struct FlowState {
    pub delivered: AtomicU64,
    pub written: AtomicU64,
    pub sender_fd: AtomicI32,
    pub receiver_fd: AtomicI32,
    /// Run time (ns) when the receiver read the last of `bytes`; u64::MAX until then.
    pub completion_ns: AtomicU64,
    pub cc_readback: Mutex<String>,
    pub error: Mutex<Option<String>>,
}

fn err(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

fn setsockopt_int(fd: RawFd, level: i32, opt: i32, v: i32) -> Result<(), String> {
    // SAFETY: an int option of an open socket.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            opt,
            &v as *const i32 as *const libc::c_void,
            std::mem::size_of::<i32>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(err(&format!("setsockopt({level}, {opt}, {v})")));
    }
    Ok(())
}

fn sockaddr(addr: [u8; 4], port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(addr),
        },
        sin_zero: [0; 8],
    }
}

fn bind(fd: RawFd, addr: [u8; 4], port: u16) -> Result<(), String> {
    let sa = sockaddr(addr, port);
    // SAFETY: a sockaddr_in of the right size.
    let r = unsafe {
        libc::bind(
            fd,
            &sa as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(err(&format!("bind port {port}")));
    }
    Ok(())
}

fn tcp_socket() -> Result<RawFd, String> {
    // SAFETY: plain socket(2).
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(err("socket"));
    }
    setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_REUSEADDR, 1)?;
    Ok(fd)
}

/// Sets TCP_CONGESTION; the error names the algorithm and what the kernel offers.
pub fn set_cc(fd: RawFd, cc: &str) -> Result<(), String> {
    // SAFETY: a byte string option of an open socket.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cc.as_ptr() as *const libc::c_void,
            cc.len() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(format!(
            "cc = \"{cc}\": the kernel refused TCP_CONGESTION ({}); it offers: {}",
            std::io::Error::last_os_error(),
            available_cc()
        ));
    }
    Ok(())
}

/// The congestion control the socket uses, read back with TCP_CONGESTION.
pub fn get_cc(fd: RawFd) -> String {
    let mut buf = [0u8; 32];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return String::new();
    }
    let s = &buf[..len as usize];
    let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
    String::from_utf8_lossy(&s[..end]).into_owned()
}

pub fn available_cc() -> String {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// The sockets of a flow, opened in their namespaces before the clock starts.
pub struct FlowSockets {
    pub listener: RawFd,
    pub sender: RawFd,
}

/// Opens the listener (receiver's namespace, SO_RCVBUF before listen so accepted sockets
/// inherit it and the window scale is chosen for it) and the sender's socket (SO_SNDBUF,
/// both only when the scenario sets them: otherwise the kernel's autotuning stays on,
/// TCP_CONGESTION, TCP_MAXSEG, TCP_NODELAY, bound to its port), not yet connected.
pub fn open(plan: &FlowPlan) -> Result<FlowSockets, String> {
    let p = plan.clone();
    let listener = netns::within(&plan.dst_ns, move || {
        let fd = tcp_socket()?;
        if let Some(b) = p.rcv_buf {
            // FORCE: beyond net.core.rmem_max, as the scenario says (root in the namespace).
            // The kernel doubles the value for its bookkeeping (socket(7)), which leaves
            // about the value itself for data.
            setsockopt_int(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVBUFFORCE,
                b.min(i32::MAX as u64 / 2) as i32,
            )?;
        }
        bind(fd, p.dst_addr, p.dport)?;
        // SAFETY: listen on a bound socket.
        if unsafe { libc::listen(fd, 8) } != 0 {
            return Err(err("listen"));
        }
        Ok(fd)
    })?;
    let p = plan.clone();
    let sender = netns::within(&plan.src_ns, move || {
        let fd = tcp_socket()?;
        if let Some(b) = p.snd_buf {
            setsockopt_int(
                fd,
                libc::SOL_SOCKET,
                libc::SO_SNDBUFFORCE,
                b.min(i32::MAX as u64 / 2) as i32,
            )?;
        }
        set_cc(fd, &p.cc)?;
        if let Some(m) = p.mss {
            setsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, m as i32)?;
        }
        if p.nodelay {
            setsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, 1)?;
        }
        bind(fd, p.src_addr, p.sport)?;
        Ok(fd)
    })?;
    Ok(FlowSockets { listener, sender })
}

fn poll_one(fd: RawFd, events: i16, timeout_ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: one pollfd.
    unsafe { libc::poll(&mut p, 1, timeout_ms) > 0 }
}

/// The receiver: accepts, then reads by the profile until EOF or the stop flag.
pub fn run_receiver(
    plan: FlowPlan,
    listener: RawFd,
    st: Arc<FlowState>,
    clock: Clock,
    stop: Arc<AtomicBool>,
) {
    let fd = loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if poll_one(listener, libc::POLLIN, 50) {
            // SAFETY: accept on a listening socket.
            let fd = unsafe {
                libc::accept4(
                    listener,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    libc::SOCK_CLOEXEC,
                )
            };
            if fd >= 0 {
                break fd;
            }
        }
    };
    st.receiver_fd.store(fd, Ordering::Relaxed);
    let mut buf = vec![0u8; 1 << 18];
    let got = |n: usize, st: &FlowState| {
        let total = st.delivered.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
        if let Some(b) = plan.bytes {
            if total >= b && st.completion_ns.load(Ordering::Relaxed) == u64::MAX {
                st.completion_ns
                    .store(clock.now().as_nanos(), Ordering::Relaxed);
            }
        }
    };
    // SAFETY (all reads below): reading into our buffer from the accepted socket.
    let read = |fd: RawFd, buf: &mut [u8], max: usize| unsafe {
        libc::recv(
            fd,
            buf.as_mut_ptr() as *mut libc::c_void,
            max.min(buf.len()),
            libc::MSG_DONTWAIT,
        )
    };
    let (rate_at, tick, blocking): (Box<dyn Fn(Instant) -> u64>, Duration, bool) = match &plan.read
    {
        ReadProfile::Unlimited => (Box::new(|_| u64::MAX), Duration::ZERO, false),
        ReadProfile::Constant {
            bps,
            tick,
            blocking,
        } => {
            let b = *bps;
            (Box::new(move |_| b), *tick, *blocking)
        }
        ReadProfile::Pattern {
            rates_bps,
            slot,
            tick,
            blocking,
            phase,
        } => {
            let (r, s, ph, st0) = (
                rates_bps.clone(),
                slot.as_nanos().max(1),
                phase.as_nanos(),
                plan.start.as_nanos(),
            );
            (
                Box::new(move |t: Instant| {
                    let k = ((t.as_nanos().saturating_sub(st0) + ph) / s) as usize % r.len();
                    r[k]
                }),
                *tick,
                *blocking,
            )
        }
    };
    if tick == Duration::ZERO {
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            if !poll_one(fd, libc::POLLIN, 50) {
                continue;
            }
            let r = read(fd, &mut buf, usize::MAX);
            if r == 0 {
                return;
            }
            if r > 0 {
                got(r as usize, &st);
            }
        }
    }
    // Paced reader: an allowance per tick from the rate in force, carried as bit-ns so the
    // rounding never drifts (the simulator's accumulator), unused allowance not banked.
    let mut t = plan.start;
    clock.sleep_until(t);
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let end = t + tick;
        let mut allowance = (rate_at(t) as u128 * tick.as_nanos() as u128 / 8_000_000_000) as usize;
        while allowance > 0 {
            let r = read(fd, &mut buf, allowance);
            if r == 0 {
                return;
            }
            if r > 0 {
                got(r as usize, &st);
                allowance -= r as usize;
                continue;
            }
            if !blocking {
                break;
            }
            let left = end.saturating_since(clock.now()).as_nanos();
            if left == 0 || !poll_one(fd, libc::POLLIN, (left / 1_000_000).max(1) as i32) {
                break;
            }
        }
        clock.sleep_until(end);
        t = end;
    }
}

/// The sender: connects at `connect`, writes from `start` until `bytes`, `stop` or the stop
/// flag, then shuts its side down (the socket stays open for TCP_INFO until the end).
pub fn run_sender(
    plan: FlowPlan,
    fd: RawFd,
    st: Arc<FlowState>,
    clock: Clock,
    stop: Arc<AtomicBool>,
) {
    clock.sleep_until(plan.connect);
    let sa = sockaddr(plan.dst_addr, plan.dport);
    // SAFETY: connecting a bound socket to a sockaddr_in.
    let r = unsafe {
        libc::connect(
            fd,
            &sa as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if r != 0 {
        *st.error.lock().unwrap() = Some(format!("flow '{}': {}", plan.name, err("connect")));
        return;
    }
    st.sender_fd.store(fd, Ordering::Relaxed);
    *st.cc_readback.lock().unwrap() = get_cc(fd);
    clock.sleep_until(plan.start);
    // Payload: the simulator's pattern bytes are virtual; real bytes here, a fixed pattern.
    let chunk: Vec<u8> = (0..65536u32).map(|i| (i % 251) as u8).collect();
    let mut written = 0u64;
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if let Some(s) = plan.stop {
            if clock.now() >= s {
                break;
            }
        }
        let want = match plan.bytes {
            Some(b) if written >= b => break,
            Some(b) => ((b - written) as usize).min(chunk.len()),
            None => chunk.len(),
        };
        if !poll_one(fd, libc::POLLOUT, 20) {
            continue;
        }
        // SAFETY: sending from our buffer on a connected socket.
        let r = unsafe {
            libc::send(
                fd,
                chunk.as_ptr() as *const libc::c_void,
                want,
                libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
            )
        };
        if r > 0 {
            written += r as u64;
            st.written.store(written, Ordering::Relaxed);
        } else if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::WouldBlock {
                break;
            }
        }
    }
    // SAFETY: shutting down the write side of our socket.
    unsafe { libc::shutdown(fd, libc::SHUT_WR) };
}
