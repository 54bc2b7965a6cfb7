//! The real-time clock of live mode: CLOCK_MONOTONIC in nanoseconds since the run's origin.
//! CLOCK_MONOTONIC is one clock for the whole machine (network namespaces do not change
//! it), so the emulator and every flow thread share the origin.

use tcplab_core::Instant;

/// Nanoseconds of CLOCK_MONOTONIC.
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer to a timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The run's time origin: `now()` is the time since it, as the simulator's `Instant`.
#[derive(Copy, Clone, Debug)]
pub struct Clock {
    pub origin_ns: u64,
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            origin_ns: mono_ns(),
        }
    }

    pub fn at(origin_ns: u64) -> Clock {
        Clock { origin_ns }
    }

    pub fn now(&self) -> Instant {
        Instant::from_nanos(mono_ns().saturating_sub(self.origin_ns))
    }

    /// Sleeps until `t` (run time), with the thread's timer slack as the only error.
    pub fn sleep_until(&self, t: Instant) {
        let target = self.origin_ns + t.as_nanos();
        let ts = libc::timespec {
            tv_sec: (target / 1_000_000_000) as libc::time_t,
            tv_nsec: (target % 1_000_000_000) as libc::c_long,
        };
        loop {
            // SAFETY: absolute sleep on CLOCK_MONOTONIC with a valid timespec.
            let r = unsafe {
                libc::clock_nanosleep(
                    libc::CLOCK_MONOTONIC,
                    libc::TIMER_ABSTIME,
                    &ts,
                    std::ptr::null_mut(),
                )
            };
            if r != libc::EINTR {
                break;
            }
        }
    }
}

/// A timer slack of 1 ns for the calling thread: the kernel's default of 50 us would add
/// that much jitter to every wake-up of the emulator (prctl(2) PR_SET_TIMERSLACK).
pub fn tight_timer_slack() {
    // SAFETY: prctl with an integer argument.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Moves the calling thread to SCHED_FIFO at a low real-time priority when allowed (root
/// or CAP_SYS_NICE): the emulator sleeps in ppoll between releases, so it costs others
/// nothing while idle, but it is no longer queued behind a compiler on a busy machine,
/// which would make releases late. Returns whether it worked (recorded in the summary).
pub fn realtime_priority() -> bool {
    let p = libc::sched_param { sched_priority: 10 };
    // SAFETY: sched_setscheduler on the calling thread (pid 0) with a valid param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 }
}
