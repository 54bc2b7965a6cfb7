//! Network namespaces of a live run (issue 36, "Safe on a shared machine"): one per host,
//! named `tcplab-<pid>-<host>`, removed when the run ends (the `Namespaces` guard's drop,
//! reached on normal exit, on errors and after SIGINT/SIGTERM, which the binary turns into
//! an orderly stop) and, after a crash, by the next run's [`cleanup_stale`], which removes
//! the namespaces of every `tcplab-<pid>-` prefix whose process is gone. Nothing here
//! touches the default namespace's addresses or routes: every `ip` command is `ip -n NS`.
//!
//! The `ip` command (iproute2) does the namespace bookkeeping (`/run/netns` bind mounts)
//! so a namespace is visible to `ip netns list` and removable by hand if all else fails.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::Command;

/// The prefix shared by every namespace of every tcplab run.
pub const PREFIX: &str = "tcplab-";

/// The prefix of this process's namespaces.
pub fn own_prefix() -> String {
    format!("{PREFIX}{}-", std::process::id())
}

/// Runs `ip ARGS...`; an error carries the command and what `ip` printed.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Names of the namespaces `ip netns` knows (the entries of /run/netns).
pub fn list() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/run/netns")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn pid_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}

/// The pid in a `tcplab-<pid>-<host>` name.
pub fn owner_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, _) = rest.split_once('-')?;
    pid.parse().ok()
}

/// Removes the namespaces left by tcplab runs whose process no longer exists (a run killed
/// with SIGKILL, or a machine crash with /run kept). Returns the names removed.
pub fn cleanup_stale() -> Vec<String> {
    let mut removed = Vec::new();
    for n in list() {
        if let Some(pid) = owner_pid(&n) {
            if pid != std::process::id() as i32
                && !pid_alive(pid)
                && ip(&["netns", "del", &n]).is_ok()
            {
                removed.push(n);
            }
        }
    }
    removed
}

/// The namespaces of one run; dropping it deletes them (and with them every device inside:
/// the TUNs go when their file descriptors close, the loopbacks with the namespace).
pub struct Namespaces {
    pub names: Vec<String>,
}

impl Namespaces {
    /// Creates `tcplab-<pid>-<host>` for each host. On failure, what was created is removed.
    pub fn create(hosts: &[String]) -> Result<Namespaces, String> {
        let prefix = own_prefix();
        let mut ns = Namespaces { names: Vec::new() };
        for h in hosts {
            let name = format!("{prefix}{}", sanitize(h));
            ip(&["netns", "add", &name]).map_err(|e| {
                format!("{e} (live mode needs root or CAP_NET_ADMIN to create network namespaces)")
            })?;
            ns.names.push(name.clone());
            ip(&["-n", &name, "link", "set", "lo", "up"])?;
        }
        Ok(ns)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for n in self.names.drain(..) {
            if let Err(e) = ip(&["netns", "del", &n]) {
                eprintln!("tcplab-live: warning: {e}");
            }
        }
    }
}

/// A host name as it may appear in a namespace name (letters, digits, `-`, `_`, `.`).
pub fn sanitize(h: &str) -> String {
    h.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Moves the calling thread into namespace `name` (setns(2) changes only this thread).
/// Used from threads that exist to work in one namespace: the TUN opener, flow threads.
pub fn enter(name: &str) -> Result<(), String> {
    let f = File::open(format!("/run/netns/{name}"))
        .map_err(|e| format!("cannot open namespace {name}: {e}"))?;
    // SAFETY: a valid namespace fd; CLONE_NEWNET checks that it is a network namespace.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r != 0 {
        return Err(format!(
            "setns into {name}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Runs `f` on a new thread inside namespace `name` and returns its result: sockets and
/// TUN devices it opens belong to that namespace, and the caller's thread never moves.
pub fn within<T: Send + 'static>(
    name: &str,
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let name = name.to_string();
    std::thread::spawn(move || {
        enter(&name)?;
        f()
    })
    .join()
    .map_err(|_| "namespace thread panicked".to_string())?
}
