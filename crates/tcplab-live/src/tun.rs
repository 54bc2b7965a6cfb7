//! TUN devices (Documentation/networking/tuntap.rst): one per host namespace, carrying raw
//! IPv4 packets (IFF_TUN | IFF_NO_PI) between that namespace's kernel and the emulator.
//! Offloads are switched off (TUNSETOFFLOAD 0): the kernel then segments and checksums
//! everything before it reaches the device, so each packet read is one real segment of at
//! most the MTU, as the simulator's links see them. Not persistent: the device disappears
//! when the emulator's file descriptor closes.

use crate::netns;
use std::fs::{File, OpenOptions};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const TUNSETOFFLOAD: libc::c_ulong = 0x4004_54d0;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// The device name inside every host namespace (names are per namespace).
pub const DEV: &str = "tcplab0";

#[repr(C)]
struct IfReq {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// A TUN device inside a host namespace, with its address.
pub struct Tun {
    pub fd: OwnedFd,
    pub ns: String,
    pub addr: [u8; 4],
}

/// Opens `/dev/net/tun` inside namespace `ns`, creates the device, turns offloads off,
/// gives it `addr/8` (the route to every other host goes through it) and the MTU, and brings
/// it up with the loopback. IPv6 is disabled in the namespace first, so no router
/// solicitation or MLD report ever enters the emulated links.
pub fn open(ns: &str, addr: [u8; 4], mtu: u32) -> Result<Tun, String> {
    let fd = netns::within(ns, || {
        for p in [
            "/proc/sys/net/ipv6/conf/all/disable_ipv6",
            "/proc/sys/net/ipv6/conf/default/disable_ipv6",
        ] {
            let _ = std::fs::write(p, "1");
        }
        let f: File = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/net/tun")
            .map_err(|e| {
                format!("cannot open /dev/net/tun: {e} (live mode needs the TUN driver and root or CAP_NET_ADMIN)")
            })?;
        let mut req = IfReq {
            name: [0; 16],
            flags: IFF_TUN | IFF_NO_PI,
            _pad: [0; 22],
        };
        req.name[..DEV.len()].copy_from_slice(DEV.as_bytes());
        // SAFETY: TUNSETIFF reads and writes one ifreq; TUNSETOFFLOAD takes an integer.
        unsafe {
            if libc::ioctl(f.as_raw_fd(), TUNSETIFF, &mut req) < 0 {
                return Err(format!("TUNSETIFF: {}", std::io::Error::last_os_error()));
            }
            if libc::ioctl(f.as_raw_fd(), TUNSETOFFLOAD, 0 as libc::c_ulong) < 0 {
                return Err(format!(
                    "TUNSETOFFLOAD: {}",
                    std::io::Error::last_os_error()
                ));
            }
            let fl = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(f.as_raw_fd(), libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
        Ok(f.into_raw_fd())
    })?;
    // SAFETY: the fd was just opened and handed over.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let a = format!("{}.{}.{}.{}/8", addr[0], addr[1], addr[2], addr[3]);
    let mtu = mtu.to_string();
    netns::ip(&["-n", ns, "addr", "add", &a, "dev", DEV])?;
    netns::ip(&[
        "-n",
        ns,
        "link",
        "set",
        DEV,
        "mtu",
        &mtu,
        "txqueuelen",
        "1000",
        "up",
    ])?;
    Ok(Tun {
        fd,
        ns: ns.to_string(),
        addr,
    })
}

/// The device's TX drop counter: packets the namespace's kernel discarded because the
/// emulator had not yet read the device's queue ("lost before the emulator read them").
pub fn tx_dropped(ns: &str) -> Option<u64> {
    let out = std::process::Command::new("ip")
        .args(["-n", ns, "-s", "-j", "link", "show", "dev", DEV])
        .output()
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    v.get(0)?
        .get("stats64")?
        .get("tx")?
        .get("dropped")?
        .as_u64()
}
