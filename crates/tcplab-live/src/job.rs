//! One live run, start to end (issue 36): stale namespaces from dead runs removed; one
//! namespace and TUN per host; the flows' sockets opened; then the clock starts, the flows'
//! threads, the TCP_INFO sampler and any command run, and the emulator loop carries
//! packets until the scenario's duration (or the command's exit, or a signal); then
//! everything is stopped, counted, checked and removed, and the result is written in the
//! simulator's output shape (`RunOutput`: summary, time series, OWD CDFs) with a `live`
//! block in the summary.

use crate::clock::{realtime_priority, tight_timer_slack, Clock};
use crate::emu::{node_addr, Emulator, FlowKey, Port};
use crate::flows::{self, FlowPlan, FlowState};
use crate::netns::{self, Namespaces};
use crate::tcpinfo;
use crate::tun;
use serde::Deserialize;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::os::fd::{AsRawFd, RawFd};
use std::process::{Child, Command};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tcplab_core::{Duration, Instant};
use tcplab_sim::output::{FlowSummary, Invariants, Percentiles, Summary, SUMMARY_SCHEMA};
use tcplab_sim::stats::DelayStats;
use tcplab_sim::Scenario;

/// What the Python layer asks for.
#[derive(Deserialize)]
pub struct Job {
    /// The canonical scenario (`Scenario.canonical`).
    pub scenario: Value,
    /// The kernel congestion control of each flow (the scenario's names mapped: `newreno`
    /// is Linux's `reno`), in flow order.
    #[serde(default)]
    pub kernel_cc: Vec<String>,
    /// The scenario's one flow is a placeholder that made it valid: run no flows (a
    /// network for a COMMAND only).
    #[serde(default)]
    pub no_flows: bool,
    /// Per flow, the socket buffers the scenario sets explicitly (None: the kernel's
    /// autotuning), in flow order.
    #[serde(default)]
    pub buffers: Vec<Buffers>,
    /// A command to run in the client's namespace; the run ends when it exits.
    #[serde(default)]
    pub command: Vec<String>,
    /// A command to run in the server's namespace for the whole run (started first).
    #[serde(default)]
    pub server_command: Vec<String>,
    /// The p99 release lateness above which the run is marked untrustworthy.
    #[serde(default = "default_bound")]
    pub lateness_bound_us: f64,
}

#[derive(Deserialize, Default, Clone, Copy)]
pub struct Buffers {
    pub snd_buf: Option<u64>,
    pub rcv_buf: Option<u64>,
}

fn default_bound() -> f64 {
    1000.0
}

/// A failed run: the message and the exit code (2: bad input or missing privileges).
pub struct Failure(pub String, pub i32);

fn fail2(m: impl Into<String>) -> Failure {
    Failure(m.into(), 2)
}

/// Hosts: every flow's ends, plus every node with a single neighbour (the ends of a
/// point-to-point path, a dumbbell's senders and receivers).
fn hosts(scn: &Scenario, g: &tcplab_sim::topology::Graph) -> Vec<usize> {
    let mut h = vec![false; g.nodes.len()];
    for f in &scn.flows {
        for n in [&f.src, &f.dst] {
            if let Some(i) = g.node(n) {
                h[i] = true;
            }
        }
    }
    for (n, hn) in h.iter_mut().enumerate() {
        let mut nb: Vec<usize> = g
            .links
            .iter()
            .filter_map(|l| {
                if l.from == n {
                    Some(l.to)
                } else if l.to == n {
                    Some(l.from)
                } else {
                    None
                }
            })
            .collect();
        nb.sort();
        nb.dedup();
        if nb.len() == 1 {
            *hn = true;
        }
    }
    (0..g.nodes.len()).filter(|&i| h[i]).collect()
}

/// The (client, server) hosts of a command: `client`/`server` of a point-to-point path,
/// the first flow's receiver and sender, or a dumbbell's `r0` and `s0`.
fn command_ends(scn: &Scenario, g: &tcplab_sim::topology::Graph) -> Option<(usize, usize)> {
    if let (Some(c), Some(s)) = (g.node("client"), g.node("server")) {
        return Some((c, s));
    }
    if let Some(f) = scn.flows.first() {
        return Some((g.node(&f.dst)?, g.node(&f.src)?));
    }
    Some((g.node("r0")?, g.node("s0")?))
}

fn addr_str(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// User plus system CPU time of this thread (`RUSAGE_THREAD`) or process (`RUSAGE_SELF`).
fn cpu_seconds(who: libc::c_int) -> f64 {
    // SAFETY: getrusage fills the struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut u) } != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Kernel release (uname -r).
pub fn kernel_release() -> String {
    // SAFETY: uname fills the struct.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    unsafe { libc::uname(&mut u) };
    let r: Vec<u8> = u
        .release
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&r).into_owned()
}

fn spawn_in(
    ns: &str,
    cmd: &[String],
    env: &[(String, String)],
    own_group: bool,
) -> Result<Child, Failure> {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new("ip");
    c.args(["netns", "exec", ns]).args(cmd);
    for (k, v) in env {
        c.env(k, v);
    }
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(move || {
            // The emulator blocks the signals it reads from a signalfd; a child must not
            // inherit that mask.
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
            if own_group {
                libc::setpgid(0, 0);
            }
            Ok(())
        });
    }
    c.spawn()
        .map_err(|e| Failure(format!("cannot run {:?}: {e}", cmd.join(" ")), 2))
}

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread (call before any thread starts, so
/// every thread inherits the mask) and returns a signalfd that reads them: a signal then
/// ends the run through the emulator loop, which removes everything it created.
pub fn block_signals() -> RawFd {
    // SAFETY: building a signal set and a signalfd.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        // If the parent (the Python CLI) dies, this process gets SIGTERM and cleans up.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        libc::signalfd(-1, &set, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC)
    }
}

pub struct Outcome {
    pub output: Value,
    pub code: i32,
}

pub fn run(job: Job, sigfd: RawFd) -> Result<Outcome, Failure> {
    let wall0 = std::time::Instant::now();
    for n in netns::cleanup_stale() {
        eprintln!("tcplab-live: removed stale namespace {n} (its run is gone)");
    }
    let text = serde_json::to_string(&job.scenario).unwrap();
    let scn = Scenario::from_json(&text).map_err(|e| fail2(format!("scenario: {e}")))?;
    let graph = tcplab_sim::validate::validate(&scn).map_err(|e| fail2(e.to_string()))?;
    let mut scn = scn;
    if job.no_flows {
        scn.flows.clear();
    }
    if !scn.pages.is_empty() || !scn.workloads.is_empty() {
        return Err(fail2(
            "live mode does not run [[pages]] or [[workloads]] yet",
        ));
    }
    let host_nodes = hosts(&scn, &graph);
    let names: Vec<String> = host_nodes.iter().map(|&n| graph.nodes[n].clone()).collect();
    let ns = Namespaces::create(&names).map_err(fail2)?;
    let ns_of =
        |n: usize| -> String { ns.names[host_nodes.iter().position(|&h| h == n).unwrap()].clone() };
    let mut ports = Vec::new();
    for &n in &host_nodes {
        let t = tun::open(&ns_of(n), node_addr(n), 1500).map_err(fail2)?;
        ports.push(Port { node: n, tun: t });
    }
    // Flows: plans and sockets, before the clock starts.
    let mut plans = Vec::new();
    for (i, f) in scn.flows.iter().enumerate() {
        let (s, d) = (graph.node(&f.src).unwrap(), graph.node(&f.dst).unwrap());
        let bufs = job.buffers.get(i).copied().unwrap_or_default();
        let cc = job
            .kernel_cc
            .get(i)
            .cloned()
            .unwrap_or_else(|| "cubic".into());
        plans.push(FlowPlan {
            index: i,
            name: f.name.clone(),
            src_ns: ns_of(s),
            dst_ns: ns_of(d),
            src_addr: node_addr(s),
            dst_addr: node_addr(d),
            sport: 10_000 + i as u16,
            dport: 5001 + i as u16,
            bytes: f.bytes,
            connect: f.connect.unwrap_or(f.start),
            start: f.start,
            stop: f.stop,
            snd_buf: bufs.snd_buf,
            rcv_buf: bufs.rcv_buf,
            cc,
            mss: None,
            nodelay: !f.tcp.nagle,
            read: f.read.clone(),
        });
    }
    let mut socks = Vec::new();
    for p in &plans {
        socks.push(
            flows::open(p).map_err(|e| fail2(format!("flows.{} ('{}'): {e}", p.index, p.name)))?,
        );
    }

    // The clock starts: flows, sampler, commands, and the emulator loop on this thread.
    let clock = Clock::start();
    let stop = Arc::new(AtomicBool::new(false));
    let states: Vec<Arc<FlowState>> = plans
        .iter()
        .map(|_| {
            let s = FlowState::default();
            s.completion_ns.store(u64::MAX, Ordering::Relaxed);
            s.sender_fd.store(-1, Ordering::Relaxed);
            s.receiver_fd.store(-1, Ordering::Relaxed);
            Arc::new(s)
        })
        .collect();
    let mut threads = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let (pl, st, sp) = (p.clone(), states[i].clone(), stop.clone());
        let lfd = socks[i].listener;
        threads.push(std::thread::spawn(move || {
            flows::run_receiver(pl, lfd, st, clock, sp)
        }));
        let (pl, st, sp) = (p.clone(), states[i].clone(), stop.clone());
        let sfd = socks[i].sender;
        threads.push(std::thread::spawn(move || {
            flows::run_sender(pl, sfd, st, clock, sp)
        }));
    }
    let interval = scn.record.interval;
    let samples: Arc<Mutex<Vec<(u64, u32, &'static str, f64)>>> = Arc::new(Mutex::new(Vec::new()));
    let rtts: Arc<Mutex<Vec<DelayStats>>> = Arc::new(Mutex::new(
        plans.iter().map(|_| DelayStats::new(false)).collect(),
    ));
    let retrans: Arc<Mutex<Vec<u64>>> = Arc::new(Mutex::new(vec![0; plans.len()]));
    let sampler = {
        let (states, stop, samples, rtts, retrans) = (
            states.clone(),
            stop.clone(),
            samples.clone(),
            rtts.clone(),
            retrans.clone(),
        );
        std::thread::spawn(move || {
            let mut prev: Vec<(u64, u64)> = vec![(0, 0); states.len()];
            let mut t = Instant::ZERO + interval;
            while !stop.load(Ordering::Relaxed) {
                clock.sleep_until(t);
                let secs = interval.as_secs_f64();
                let mut rows = samples.lock().unwrap();
                for (f, st) in states.iter().enumerate() {
                    let d = st.delivered.load(Ordering::Relaxed);
                    let fd = st.sender_fd.load(Ordering::Relaxed);
                    let info = if fd >= 0 { tcpinfo::read(fd) } else { None };
                    let ti = t.as_nanos();
                    let f32_ = f as u32;
                    rows.push((
                        ti,
                        f32_,
                        "goodput_mbps",
                        (d - prev[f].0) as f64 * 8.0 / secs / 1e6,
                    ));
                    rows.push((ti, f32_, "delivered_bytes", d as f64));
                    if let Some(i) = info {
                        rows.push((ti, f32_, "cwnd_bytes", i.snd_cwnd as f64 * i.snd_mss as f64));
                        rows.push((ti, f32_, "srtt_ms", i.rtt_us as f64 / 1e3));
                        rows.push((ti, f32_, "in_flight_bytes", i.in_flight_bytes() as f64));
                        rows.push((ti, f32_, "peer_window_bytes", i.snd_wnd as f64));
                        rows.push((
                            ti,
                            f32_,
                            "sent_mbps",
                            (i.bytes_sent - prev[f].1.min(i.bytes_sent)) as f64 * 8.0 / secs / 1e6,
                        ));
                        rows.push((
                            ti,
                            f32_,
                            "pacing_rate_mbps",
                            i.pacing_rate as f64 * 8.0 / 1e6,
                        ));
                        rows.push((ti, f32_, "retransmits", i.total_retrans as f64));
                        if i.rtt_us > 0 {
                            rtts.lock().unwrap()[f].record(i.rtt_us as u64 * 1000);
                        }
                        retrans.lock().unwrap()[f] = i.total_retrans as u64;
                        prev[f].1 = i.bytes_sent;
                    }
                    prev[f].0 = d;
                }
                drop(rows);
                t = t + interval;
            }
        })
    };
    // One-way delays and data packets per flow, from the emulator's releases.
    let owd: Rc<RefCell<Vec<(DelayStats, u64)>>> = Rc::new(RefCell::new(
        plans.iter().map(|_| (DelayStats::new(false), 0)).collect(),
    ));
    let mut emu = Emulator::new(&scn, graph.clone(), ports, clock).map_err(fail2)?;
    emu.set_flows(
        plans
            .iter()
            .map(|p| FlowKey {
                sender: (p.src_addr, p.sport),
                receiver: (p.dst_addr, p.dport),
                src_node: graph.node(&scn.flows[p.index].src).unwrap(),
                dst_node: graph.node(&scn.flows[p.index].dst).unwrap(),
            })
            .collect(),
    );
    // The scenario's node elements, built by the simulator's own rules (BSF, DARCA).
    let elems = tcplab_sim::element::build_all(&scn, &graph, &mut |f| {
        let (s, d) = scn.connection_ends(f);
        graph
            .route(graph.node(s).unwrap(), graph.node(d).unwrap())
            .unwrap_or_default()
    })
    .map_err(|e| fail2(e.to_string()))?;
    emu.set_elements(elems);
    {
        let owd = owd.clone();
        let keys: Vec<([u8; 4], u16)> = plans.iter().map(|p| (p.src_addr, p.sport)).collect();
        emu.on_release = Some(Box::new(move |_s, _d, b, p, now| {
            let Some(ip) = crate::wire::parse_ipv4(b) else {
                return;
            };
            if ip.proto != crate::wire::PROTO_TCP || p.seg.payload_len == 0 {
                return;
            }
            let Some((sport, _)) = crate::wire::ports(b, &ip) else {
                return;
            };
            let f = sport.wrapping_sub(10_000) as usize;
            if f < keys.len() && keys[f] == (ip.src, sport) {
                let mut o = owd.borrow_mut();
                o[f].0.record(now.saturating_since(p.sent_at).as_nanos());
                o[f].1 += 1;
            }
        }));
    }
    // Commands (Mahimahi-shell style): the server's first, then the client's.
    let ends = command_ends(&scn, &graph);
    let mut env = Vec::new();
    if let Some((c, s)) = ends {
        env.push(("TCPLAB_SERVER".to_string(), addr_str(node_addr(s))));
        env.push(("TCPLAB_CLIENT".to_string(), addr_str(node_addr(c))));
    }
    let mut server_child = None;
    let mut client_child = None;
    if !job.server_command.is_empty() || !job.command.is_empty() {
        let (c, s) = ends.ok_or_else(|| fail2("a command needs a client and a server host"))?;
        if !job.server_command.is_empty() {
            server_child = Some(spawn_in(&ns_of(s), &job.server_command, &env, true)?);
            // Let the server bind before the client starts.
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
        if !job.command.is_empty() {
            client_child = Some(spawn_in(&ns_of(c), &job.command, &env, false)?);
        }
    }
    let end = if client_child.is_some() {
        Instant::MAX
    } else {
        Instant::ZERO + scn.duration
    };

    // The emulator loop, on this thread only: a tight timer slack and real-time priority
    // (set after every other thread and child started, so none of them inherits it).
    tight_timer_slack();
    let realtime = realtime_priority();
    let mut buf = vec![0u8; 65536];
    let mut pfds: Vec<libc::pollfd> = emu
        .ports
        .iter()
        .map(|p| libc::pollfd {
            fd: p.tun.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    pfds.push(libc::pollfd {
        fd: sigfd,
        events: libc::POLLIN,
        revents: 0,
    });
    let mut interrupted = false;
    let mut command_status = None;
    let mut now;
    loop {
        now = clock.now();
        emu.counters.wakeups += 1;
        emu.run_due(now);
        emu.read_all(now, &mut buf);
        emu.run_due(now);
        if now >= end {
            break;
        }
        if pfds.last().unwrap().revents != 0 {
            interrupted = true;
            break;
        }
        if let Some(c) = client_child.as_mut() {
            if let Ok(Some(st)) = c.try_wait() {
                command_status = Some(st);
                break;
            }
        }
        let next = emu
            .next_deadline()
            .min(end)
            .min(now + Duration::from_millis(20));
        let wait = next.saturating_since(clock.now()).as_nanos();
        let ts = libc::timespec {
            tv_sec: (wait / 1_000_000_000) as libc::time_t,
            tv_nsec: (wait % 1_000_000_000) as libc::c_long,
        };
        for p in pfds.iter_mut() {
            p.revents = 0;
        }
        // SAFETY: pfds is a valid array; no signal mask change.
        unsafe {
            libc::ppoll(
                pfds.as_mut_ptr(),
                pfds.len() as libc::nfds_t,
                &ts,
                std::ptr::null(),
            )
        };
    }
    let end_t = now.min(end);
    // The emulator's own CPU (this thread runs the loop; flows and samplers have threads of
    // their own): bench/live reports it per packet.
    let loop_cpu_s = cpu_seconds(libc::RUSAGE_THREAD);

    // Stop everything, then count.
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let _ = sampler.join();
    if let Some(mut c) = client_child.take() {
        if command_status.is_none() {
            let _ = c.kill();
            command_status = c.wait().ok();
        }
    }
    if let Some(mut c) = server_child.take() {
        // SAFETY: signalling the server command's own process group.
        unsafe { libc::kill(-(c.id() as i32), libc::SIGTERM) };
        let _ = c.wait();
    }
    let lost_before_read: u64 = emu
        .ports
        .iter()
        .filter_map(|p| tun::tx_dropped(&p.tun.ns))
        .sum();
    let mut violations = emu.check_invariants(end_t);
    if !emu.flush_pcaps() {
        violations.push("a pcap could not be written".into());
    }
    for st in &states {
        if let Some(e) = st.error.lock().unwrap().clone() {
            violations.push(e);
        }
    }
    let links = emu.link_summaries(end_t);
    let rtts = rtts.lock().unwrap();
    let retrans = retrans.lock().unwrap();
    let mut flows_out = Vec::new();
    let mut cdfs = Vec::new();
    let mut goodputs = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let st = &states[i];
        let f = &scn.flows[i];
        let delivered = st.delivered.load(Ordering::Relaxed);
        let written = st.written.load(Ordering::Relaxed);
        let comp = st.completion_ns.load(Ordering::Relaxed);
        let until = if comp != u64::MAX {
            Instant::from_nanos(comp)
        } else {
            end_t
        };
        let active = until.saturating_since(p.start).as_secs_f64();
        let goodput = if active > 0.0 {
            delivered as f64 * 8.0 / active * 1e-6
        } else {
            0.0
        };
        goodputs.push(goodput);
        let mut o = owd.borrow_mut();
        let owd_p = o[i].0.summary_ms();
        cdfs.push(json!([
            p.name,
            o[i].0
                .cdf()
                .iter()
                .map(|(v, c)| (*v as f64 / 1e6, *c))
                .collect::<Vec<_>>()
        ]));
        let mut r = rtts[i].clone();
        let cc_back = st.cc_readback.lock().unwrap().clone();
        if let Some(b) = p.bytes {
            if delivered > b {
                violations.push(format!(
                    "flow '{}': read {delivered} bytes, more than the {b} written",
                    p.name
                ));
            }
        }
        if delivered > written {
            violations.push(format!(
                "flow '{}': read {delivered} bytes, more than the {written} written",
                p.name
            ));
        }
        flows_out.push(FlowSummary {
            id: i as u32,
            name: p.name.clone(),
            direction: format!("{}->{}", f.src, f.dst),
            // The kernel's socket ran what TCP_CONGESTION reads back (an unknown name is
            // refused before the run), and the kernel's receiver is classic flow control.
            cc_effective: cc_back.clone(),
            fc_effective: "classic".into(),
            fallbacks: Vec::new(),
            cc: cc_back,
            fc: "classic".into(),
            goodput_mbps: goodput,
            bytes_delivered: delivered,
            bytes_written: written,
            data_packets_delivered: o[i].1,
            retransmits: retrans[i],
            timeouts: 0,
            spurious_timeouts: 0,
            fast_retransmits: 0,
            zero_window_events: 0,
            stall_window_events: 0,
            zero_window_probes: 0,
            rcv_buffer_drops: 0,
            proactive_acks: 0,
            owd_ms: owd_p,
            rtt_ms: if r.count() > 0 {
                r.summary_ms()
            } else {
                Percentiles::default()
            },
            start_s: p.start.as_secs_f64(),
            completion_s: (comp != u64::MAX).then(|| comp as f64 / 1e9),
            ecn: None,
            rsfc: None,
        });
    }
    let mut series = std::mem::take(&mut emu.series);
    let flow_ent: Vec<u32> = plans
        .iter()
        .map(|p| series.entity("flow", &p.name))
        .collect();
    let mut rows = samples.lock().unwrap().clone();
    rows.sort_by_key(|r| r.0);
    for (t, f, m, v) in rows {
        series.push(Instant::from_nanos(t), flow_ent[f as usize], m, v);
    }
    let lat = emu.lateness.summary();
    let within = lat.p99_us <= job.lateness_bound_us;
    let summary = Summary {
        schema: SUMMARY_SCHEMA,
        scenario: scn.name.clone(),
        seed: scn.seed,
        scenario_sha256: String::new(),
        duration_s: end_t.as_secs_f64(),
        events: emu.counters.read_packets,
        wall_s: wall0.elapsed().as_secs_f64(),
        invariants: Invariants {
            ok: violations.is_empty(),
            violations,
        },
        flows: flows_out,
        links,
        elements: emu.element_summaries(),
        jain_fairness: tcplab_sim::world::jain(&goodputs),
        pages: Vec::new(),
        workloads: Vec::new(),
    };
    let mut sv = serde_json::to_value(&summary).unwrap();
    sv["live"] = json!({
        "live": true,
        "kernel": kernel_release(),
        "namespaces": ns.names,
        "hosts": host_nodes.iter().map(|&n| json!({"node": graph.nodes[n], "address": addr_str(node_addr(n))})).collect::<Vec<_>>(),
        "accuracy": {
            "lateness_us": lat,
            "lateness_bound_us": job.lateness_bound_us,
            "within_bound": within,
            "lost_before_read": lost_before_read,
        },
        "emulator": emu.counters,
        "cost": {
            "loop_cpu_s": loop_cpu_s,
            "process_cpu_s": cpu_seconds(libc::RUSAGE_SELF),
            "loop_cpu_ns_per_packet": if emu.counters.read_packets > 0 {
                loop_cpu_s * 1e9 / emu.counters.read_packets as f64
            } else {
                0.0
            },
        },
        "realtime_priority": realtime,
        "interrupted": interrupted,
        "command": command_status.map(|s| json!({"exit_code": s.code(), "signal": std::os::unix::process::ExitStatusExt::signal(&s)})),
        "not_measured": ["timeouts", "spurious_timeouts", "fast_retransmits", "zero_window_events", "stall_window_events", "zero_window_probes"],
    });
    sv["live_run"] = json!(true);
    let output = json!({"summary": sv, "timeseries": series.ts, "owd_cdf_ms": cdfs});
    for s in socks {
        // SAFETY: closing the sockets this run opened, after every thread using them ended.
        unsafe {
            libc::close(s.listener);
            libc::close(s.sender);
        }
    }
    for st in &states {
        let fd = st.receiver_fd.load(Ordering::Relaxed);
        if fd >= 0 {
            // SAFETY: the accepted socket, no longer used.
            unsafe { libc::close(fd) };
        }
    }
    drop(emu);
    drop(ns);
    let code = if interrupted {
        130
    } else if !summary.invariants.ok {
        3
    } else {
        0
    };
    Ok(Outcome { output, code })
}
