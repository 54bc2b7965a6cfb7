"""Live mode (issue 36, docs/live.md): a scenario's network in real time, carrying real
Linux TCP.

The network is the simulator's own code: ``tcplab-live`` (crates/tcplab-live) drives the
links, queues and loss models of ``tcplab-sim`` from a monotonic clock between one network
namespace per host. This module decides what the kernel can honour (a key it cannot is one
``error:`` line and exit code 2, never ignored), hands the canonical scenario to the binary
and packages what comes back as a :class:`tcplab.runner.Result` in the simulator's
summary schema, with a ``live`` block.
"""

from __future__ import annotations

import copy
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from .errors import ScenarioError, SimulationError, TcplabError
from .runner import Result
from .scenario import Scenario, load, variants

#: The p99 release lateness above which a run is marked as not to be trusted (docs/live.md).
LATENESS_BOUND_US = 1000.0

#: The simulator's congestion controls that are kernel modules, by the kernel's name.
KERNEL_CC = {"newreno": "reno", "cubic": "cubic", "vegas": "vegas", "westwood": "westwood"}

#: TCP keys live mode sets on the sockets (the rest must be left as the kernel has them).
HONOURED = {"cc", "snd_buf_bytes", "rcv_buf_bytes", "nagle", "profile"}


class LiveError(TcplabError):
    """Live mode cannot run here or cannot honour the scenario (exit code 2)."""

    exit_code = 2


def kernel_cc_available() -> list[str]:
    try:
        return Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    except OSError:
        return []


def _module_exists(name: str) -> bool:
    base = Path("/lib/modules") / platform.release() / "kernel" / "net" / "ipv4"
    return any(base.glob(f"tcp_{name}.ko*")) if base.is_dir() else False


def kernel_offers() -> str:
    return " ".join(kernel_cc_available()) or "(none listed)"


def binary() -> str:
    """The ``tcplab-live`` executable: $TCPLAB_LIVE_BIN, the venv's bin/, PATH, or the
    repository's cargo build."""
    env = os.environ.get("TCPLAB_LIVE_BIN")
    if env:
        return env
    cand = [Path(sys.prefix) / "bin" / "tcplab-live", Path(sys.executable).parent / "tcplab-live"]
    w = shutil.which("tcplab-live")
    if w:
        cand.append(Path(w))
    repo = Path(__file__).resolve().parents[2]
    cand.append(repo / "target" / "release" / "tcplab-live")
    for c in cand:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    raise LiveError("live mode needs the tcplab-live binary (crates/tcplab-live; `make setup` builds it into .venv/bin)")


def unavailable_reason() -> str | None:
    """Why live mode cannot run on this machine (None: it can)."""
    if sys.platform != "linux":
        return "live mode needs Linux (network namespaces and TUN devices)"
    if not os.path.exists("/dev/net/tun"):
        return "live mode needs the TUN driver (/dev/net/tun is missing)"
    if os.geteuid() != 0:
        return "live mode needs root (or CAP_NET_ADMIN) to create network namespaces and TUN devices"
    if shutil.which("ip") is None:
        return "live mode needs the `ip` command (iproute2)"
    return None


def _kernel_only_cc(raw: dict[str, Any], source: str) -> tuple[dict[str, Any], dict[int, str], str | None]:
    """Kernel congestion controls the simulator does not know (``cc = "bbr"``): replaced by
    a placeholder so the scenario validates, and returned per flow index (``None`` key: from
    ``[defaults]``)."""
    names = set(variants()["cc"])
    avail = set(kernel_cc_available())
    doc = copy.deepcopy(raw)
    per_flow: dict[int, str] = {}
    default = None

    def take(tbl: dict[str, Any], where: str) -> str | None:
        for holder, key in ((tbl, "cc"), (tbl.get("tcp") if isinstance(tbl.get("tcp"), dict) else None, "cc")):
            if holder is not None and isinstance(holder.get(key), str) and holder[key] not in names:
                v = holder[key]
                if v in avail or _module_exists(v):
                    holder[key] = "cubic"
                    return v
                raise ScenarioError(f"{where}.cc = {json.dumps(v)}: unknown congestion control; the kernel offers: {kernel_offers()}; "
                                    f"the simulator's: {', '.join(sorted(names))}", source=source)
        return None

    if isinstance(doc.get("defaults"), dict):
        default = take(doc["defaults"], "defaults")
    flows = doc.get("flows")
    if isinstance(flows, list):
        for i, f in enumerate(flows):
            if isinstance(f, dict):
                v = take(f, f"flows.{i}")
                if v is not None:
                    if "count" in f or "pair" in f:
                        raise ScenarioError(f"flows.{i}.cc = {json.dumps(v)}: a kernel-only congestion control on a flow with count/pair "
                                            "is not supported; list the flows one by one", source=source)
                    per_flow[i] = v
    return doc, per_flow, default


def _baseline_tcp(profile: str) -> dict[str, Any]:
    sc = load({"name": "baseline", "duration": "1s", "topology": {"kind": "point_to_point",
               "downlink": {"rate": "1Mbit/s"}, "uplink": {"rate": "1Mbit/s"}},
               "flows": [{"name": "f", "src": "server", "dst": "client", "tcp": {"profile": profile}}]})
    return sc.canonical["flows"][0]["tcp"]


def prepare(source: str, overrides: Sequence[str], seed: int | None) -> tuple[Scenario, list[str]]:
    """Loads the scenario for live mode and returns it with each flow's kernel congestion
    control; raises ScenarioError naming the key for anything the kernel cannot honour."""
    from .scenario import _apply_override, parse_override, read_toml

    items = [parse_override(o) for o in overrides]
    if isinstance(source, str) and source.startswith("example:"):
        from .data import resolve

        source = str(resolve(source))
    path = Path(source)
    doc, data = read_toml(path, "scenario")
    # Kernel-only congestion controls (cc = "bbr") are found on the document with the
    # overrides applied, then replaced by a placeholder in both so the scenario validates.
    full = copy.deepcopy(doc)
    for k, v in items:
        _apply_override(full, k, v, str(source))
    _, per_flow, default_cc = _kernel_only_cc(full, str(source))
    doc, _, _ = _kernel_only_cc(doc, str(source))
    known = set(variants()["cc"])
    items = [(k, "cubic" if k.split(".")[-1] == "cc" and isinstance(v, str) and v not in known else v) for k, v in items]
    no_flows = not any(full.get(k) for k in ("flows", "pages", "workloads"))
    if no_flows:
        # A network for a COMMAND only (Mahimahi-shell style): validated with a placeholder
        # flow between the command's two hosts, which is then dropped.
        doc = copy.deepcopy(doc)
        doc["flows"] = [{"name": "_placeholder", **_command_hosts(full)}]
    sc = Scenario(doc, source=str(source), base_dir=path.resolve().parent, source_bytes=data, overrides=items)
    sc._live_validated = copy.deepcopy(sc.canonical)  # type: ignore[attr-defined]
    if no_flows:
        sc.canonical["flows"] = []
    can = sc.canonical
    src = sc.source
    for key in ("pages", "workloads"):
        if can.get(key):
            raise ScenarioError(f"{key}: not supported by tcplab emulate yet (live mode runs links, queues, loss, elements and [[flows]])", source=src)
    avail = kernel_cc_available()
    kernel_cc: list[str] = []
    buffers: list[dict[str, Any]] = []
    baselines: dict[str, dict[str, Any]] = {}
    for i, f in enumerate(can["flows"]):
        p = f"flows.{i}"
        if f.get("pauses"):
            raise ScenarioError(f"{p}.pauses: not supported by tcplab emulate yet", source=src)
        for side in ("tcp", "receiver_tcp"):
            t = f.get(side)
            if t is None:
                continue
            prof = t.get("profile", "default")
            if prof != "linux":
                raise ScenarioError(f"{p}.{side}.profile = {json.dumps(prof)}: a stack profile's rules are the simulator's; "
                                    "live mode runs the kernel's own TCP (profile \"linux\" or none)", source=src)
            if prof not in baselines:
                baselines[prof] = _baseline_tcp(prof)
            base = baselines[prof]
            if t.get("fc", "classic") != "classic":
                raise ScenarioError(f"{p}.{side}.fc = {json.dumps(t['fc'])}: the kernel has only classic flow control "
                                    "(its receive window); AFC and RSFC are tcplab's own", source=src)
            for k in sorted(t):
                if k in HONOURED or k == "fc" or t[k] == base.get(k):
                    continue
                raise ScenarioError(f"{p}.{side}.{k} = {json.dumps(t[k])}: the kernel's TCP cannot be set to this per socket "
                                    f"(live mode sets cc, snd_buf, rcv_buf and nagle; it leaves {k} as Linux has it: "
                                    f"{json.dumps(base.get(k))} in the simulator's model)", source=src)
        cc = per_flow.get(i) or (default_cc if default_cc and not _flow_sets_cc(full, i) else None)
        if cc is None:
            name = f["tcp"]["cc"]
            if name not in KERNEL_CC:
                raise ScenarioError(f"{p}.tcp.cc = {json.dumps(name)}: a rate-based congestion control of tcplab's own, "
                                    f"not a kernel module; the kernel offers: {kernel_offers()}", source=src)
            cc = KERNEL_CC[name]
        if cc not in avail and not _module_exists(cc):
            raise ScenarioError(f"{p}.tcp.cc = {json.dumps(cc)}: the kernel has no such congestion control loaded or as a module; "
                                f"it offers: {kernel_offers()}", source=src)
        kernel_cc.append(cc)
        rt = f.get("receiver_tcp") or f["tcp"]
        base = baselines["linux"]
        buffers.append({"snd_buf": f["tcp"]["snd_buf_bytes"] if f["tcp"]["snd_buf_bytes"] != base["snd_buf_bytes"] else None,
                        "rcv_buf": rt["rcv_buf_bytes"] if rt["rcv_buf_bytes"] != base["rcv_buf_bytes"] else None})
    sc._live_buffers = buffers  # type: ignore[attr-defined]
    if seed is not None:
        sc.canonical["seed"] = seed
    return sc, kernel_cc


def _command_hosts(doc: dict[str, Any]) -> dict[str, str]:
    """The server and client of a scenario without flows, as tcplab-live picks them."""
    topo = doc.get("topology") or {}
    kind = topo.get("kind")
    if kind == "dumbbell":
        return {"src": "s0", "dst": "r0"}
    if kind == "custom":
        nodes = [n if isinstance(n, str) else n.get("name") for n in topo.get("nodes", [])]
        if "server" in nodes and "client" in nodes:
            return {"src": "server", "dst": "client"}
        links = topo.get("links") or [{}]
        return {"src": links[0].get("from", ""), "dst": links[0].get("to", "")}
    return {"src": "server", "dst": "client"}


def _flow_sets_cc(doc: dict[str, Any], i: int) -> bool:
    """Whether flow i of the document names its own cc (so [defaults]' does not apply)."""
    fl = doc.get("flows") or []
    if i >= len(fl) or not isinstance(fl[i], dict):
        return False
    return "cc" in fl[i] or "cc" in (fl[i].get("tcp") or {})


def emulate(sc: Scenario, kernel_cc: list[str], *, command: Sequence[str] = (), server_command: Sequence[str] = (),
            lateness_bound_us: float = LATENESS_BOUND_US, quiet_commands: bool = False,
            pcap_dir: str | os.PathLike[str] | None = None) -> Result:
    """Runs the scenario live; returns the Result (summary with ``live``). Relative pcap
    paths are taken in ``pcap_dir`` (default: the current directory)."""
    from .runner import _resolve_pcaps

    why = unavailable_reason()
    if why:
        raise LiveError(why)
    exe = binary()
    with tempfile.TemporaryDirectory(prefix="tcplab-live-") as tmp:
        job = Path(tmp) / "job.json"
        res = Path(tmp) / "result.json"
        scenario = getattr(sc, "_live_validated", sc.canonical)
        if not sc.canonical["flows"]:
            scenario = dict(scenario, flows=scenario["flows"][:1])
        scenario["seed"] = sc.canonical["seed"]
        scenario = copy.deepcopy(scenario)
        scenario["record"]["pcap"] = copy.deepcopy(sc.canonical["record"]["pcap"])
        _resolve_pcaps(scenario, pcap_dir)
        job.write_text(json.dumps({"scenario": scenario, "no_flows": not sc.canonical["flows"], "kernel_cc": kernel_cc,
                                   "buffers": getattr(sc, "_live_buffers", []), "command": list(command),
                                   "server_command": list(server_command), "lateness_bound_us": lateness_bound_us}))
        out = sys.stderr if quiet_commands else None
        p = subprocess.Popen([exe, str(job), str(res)], stdout=out, stderr=subprocess.PIPE, text=True)
        try:
            _, err = p.communicate()
        except KeyboardInterrupt:
            # The child got the same SIGINT (same process group) and removes its namespaces;
            # wait for it, then report the interruption.
            p.send_signal(signal.SIGTERM)
            p.wait()
            raise
        for line in err.splitlines():
            if not line.startswith("error: "):
                print(line, file=sys.stderr)
        if p.returncode == 2:
            msg = next((l[len("error: "):] for l in err.splitlines() if l.startswith("error: ")), err.strip())
            raise LiveError(msg)
        if p.returncode == 130:
            raise KeyboardInterrupt
        if not res.exists():
            msg = next((l[len("error: "):] for l in err.splitlines() if l.startswith("error: ")), err.strip())
            raise SimulationError("io", f"live run failed (exit {p.returncode}): {msg}")
        output = json.loads(res.read_text())
    output["summary"]["scenario_sha256"] = sc.sha256
    return Result(sc, output)
