"""The ``tcplab`` command: run, validate, sweep, examples, trace-info, reproduce.

Exit codes: 0 success; 1 the simulation failed (event budget, I/O, cancelled); 2 bad input
(scenario, trace, usage); 3 the run finished but broke an invariant (results untrustworthy).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from .errors import ScenarioError, TcplabError

EXIT_SIM_FAILED = 1
EXIT_USER = 2
EXIT_INVALID_RUN = 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        # Usage errors follow the one-line contract of every bad input (exit 2, one
        # "error:" line, no traceback) and point at the command's help instead of printing
        # argparse's usage block.
        self.exit(EXIT_USER, f"error: {self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def _build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    p = _Parser(
        prog="tcplab",
        description="Deterministic packet-level simulator for TCP flow control and rate-based congestion control.",
        epilog=(
            "examples:\n"
            "  tcplab examples\n"
            "  tcplab run example:cellular-trace\n"
            "  tcplab run scenarios/examples/p2p-bulk.toml --set flows.0.cc=cubic\n"
            "  tcplab validate scenarios/examples/*.toml\n"
            "  tcplab sweep my-sweep.toml --workers 2 --out out/my-sweep\n"
            "  tcplab trace-info traces/cellular/Verizon-LTE-short.down\n\n"
            "docs: docs/scenarios.md (scenario files), docs/summary.md (outputs), docs/sweep.md, docs/cli.md"
        ),
        formatter_class=fmt,
    )
    from . import __version__

    p.add_argument("--version", action="version", version=f"tcplab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    r = sub.add_parser(
        "run",
        help="run one scenario and write its summary, time series and plots",
        description="Run one scenario file; print a summary table and write summary.json, "
        "scenario.json, timeseries.parquet and PNG plots to the output folder.",
        epilog=(
            "examples:\n"
            "  tcplab run scenarios/examples/p2p-bulk.toml\n"
            "  tcplab run example:cellular-trace --set duration=10s\n"
            "  tcplab run scenarios/examples/p2p-bulk.toml --seed 7 --out out/bulk-7\n"
            "  tcplab run scenarios/examples/p2p-bulk.toml --set topology.downlink.rate=5Mbit/s --set flows.0.cc=cubic\n"
            "  tcplab run scenarios/examples/p2p-bulk.toml --json > summary.json\n"
            "  tcplab run scenarios/examples/p2p-bulk.toml --pcap downlink --pcap uplink\n\n"
            "exit codes: 0 ok, 1 simulation failed, 2 bad input, 3 invariant violated"
        ),
        formatter_class=fmt,
    )
    r.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (docs/scenarios.md), or example:NAME (tcplab examples)")
    r.add_argument("--seed", type=_seed, metavar="N", help="seed (replaces the file's seed)")
    r.add_argument("--out", metavar="DIR", help="output folder (default: out/<scenario name>)")
    r.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override a key of the file, e.g. topology.downlink.rate=5Mbit/s or flows.0.cc=cubic (repeatable)",
    )
    r.add_argument("--json", action="store_true", help="print summary.json to stdout and nothing else")
    r.add_argument("--pcap", action="append", default=[], metavar="LINK", help="write a pcap of this link to DIR/<link>.pcap (repeatable)")
    r.add_argument("--no-plots", action="store_true", help="skip the PNG plots")

    em = sub.add_parser(
        "emulate",
        help="run a scenario live: its network in real time between network namespaces, carrying real Linux TCP",
        description="Run a scenario's links, queues and loss models (the simulator's own code) in real time "
        "between one network namespace per host, with its [[flows]] as real kernel TCP sockets, or run COMMAND "
        "in the client's namespace (the server's address in $TCPLAB_SERVER). Needs Linux, root (or "
        "CAP_NET_ADMIN) and /dev/net/tun. Writes the same outputs as run, with a live block in summary.json "
        "(docs/live.md).",
        epilog=(
            "examples:\n"
            "  tcplab emulate scenarios/examples/p2p-bulk.toml --set flows.0.cc=cubic\n"
            "  tcplab emulate scenarios/examples/p2p-bulk.toml --json | jq .live.accuracy\n"
            "  tcplab emulate scenarios/examples/cellular-trace.toml --server 'iperf3 -s -1' -- iperf3 -c '$TCPLAB_SERVER'\n\n"
            "exit codes: 0 ok, 1 failed (or COMMAND failed), 2 bad input or missing privileges, 3 invariant violated, 130 interrupted"
        ),
        formatter_class=fmt,
    )
    em.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file, or example:NAME")
    em.add_argument("--seed", type=_seed, metavar="N", help="seed (replaces the file's seed; fixes the loss draws)")
    em.add_argument("--out", metavar="DIR", help="output folder (default: out/<scenario name>-live)")
    em.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE", help="override a key, as for run")
    em.add_argument("--json", action="store_true", help="print summary.json to stdout and nothing else (COMMAND's output goes to stderr)")
    em.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    em.add_argument("--pcap", action="append", default=[], metavar="LINK", help="write a pcap of this link's real packets to DIR/<link>.pcap (repeatable)")
    em.add_argument("--server", metavar="CMD", help="a command to run in the server's namespace for the whole run (a shell line)")
    em.add_argument("--lateness-bound", type=float, default=None, metavar="US",
                    help="p99 release lateness in microseconds above which the run is marked untrustworthy (default 1000)")

    cp = sub.add_parser(
        "compare",
        help="run a scenario in the simulator and live, and set the results side by side",
        description="Run a scenario in the simulator (its TCP under the linux profile) and live (tcplab emulate: "
        "real Linux TCP over the same links, queues, loss models and elements), and write compare.md and "
        "compare.json (per flow and per link: sim, live, the difference), goodput-overlay.png, and both runs' "
        "outputs in DIR/sim and DIR/live (docs/live.md). Needs what emulate needs.",
        formatter_class=fmt,
    )
    cp.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file, or example:NAME")
    cp.add_argument("--seed", type=_seed, metavar="N", help="seed for both runs")
    cp.add_argument("--out", metavar="DIR", help="output folder (default: out/<scenario name>-compare)")
    cp.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE", help="override a key, as for run")
    cp.add_argument("--json", action="store_true", help="print compare.json to stdout and nothing else")
    cp.add_argument("--no-plots", action="store_true", help="skip the PNG plots")

    v = sub.add_parser(
        "validate",
        help="check scenario files (and their trace files) without running them",
        description="Check scenario files, including the trace files they name, without running them.",
        epilog="examples:\n  tcplab validate scenarios/examples/p2p-bulk.toml\n  tcplab validate scenarios/examples/*.toml --set duration=5s\n"
               "  tcplab validate scenarios/examples/p2p-bulk.toml --canonical > p2p.json   # then: tcplab-sim p2p.json",
        formatter_class=fmt,
    )
    v.add_argument("scenarios", nargs="+", metavar="SCENARIO.toml")
    v.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.PATH=VALUE", help="override a key, as for run")
    v.add_argument("--canonical", action="store_true",
                   help="print the scenario's canonical JSON (every quantity in base units, defaults filled in, trace "
                        "paths absolute) instead of the ok line: the input of the tcplab-sim binary; one scenario only")

    sw = sub.add_parser(
        "sweep",
        help="run a scenario over a grid of overrides and seeds, on Dask, into a Parquet dataset",
        description="Run every point of a sweep file's grid with every seed (docs/sweep.md) on a Dask "
        "cluster: a local one by default, or an existing scheduler. One row per run is stored in a "
        "Parquet dataset in the output folder as runs finish; started again with the same sweep, it "
        "skips the runs already stored.",
        epilog=(
            "sweep file:\n"
            '  scenario = "../scenarios/examples/p2p-bulk.toml"   # relative to the sweep file\n'
            "  seeds = [1, 2, 3]                                   # or { first = 1, count = 100 }\n"
            "  [grid]\n"
            '  "topology.downlink.rate" = ["5Mbit/s", "10Mbit/s"]\n'
            '  "flows.0.cc" = ["cubic", "newreno"]\n\n'
            "examples:\n"
            "  tcplab sweep my-sweep.toml --workers 2\n"
            "  tcplab sweep my-sweep.toml --scheduler tcp://10.0.0.5:8786 --out /scratch/sweeps/a\n"
            "  python -c \"import pandas; print(pandas.read_parquet('out/my-sweep'))\"\n\n"
            "exit codes: 0 every run ok, 1 some run failed (recorded with its error), 2 bad input, "
            "3 some run broke an invariant"
        ),
        formatter_class=fmt,
    )
    sw.add_argument("sweep", metavar="SWEEP.toml", help="sweep file (docs/sweep.md)")
    sw.add_argument("--workers", type=int, metavar="N", help="worker processes of the local cluster (default: all cores)")
    sw.add_argument("--scheduler", metavar="ADDRESS", help="use a running Dask scheduler, e.g. tcp://host:8786, instead of a local cluster")
    sw.add_argument("--out", metavar="DIR", help="Parquet dataset folder (default: out/<sweep name>)")
    sw.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines on stderr")
    sw.add_argument("--flush-every", type=float, default=5.0, metavar="SECONDS",
                    help="write finished rows at least this often (default 5; a kill loses at most this much work)")

    ex = sub.add_parser(
        "examples",
        help="list the scenarios and traces shipped with tcplab",
        description="List the scenario files shipped inside the package (run one with "
        "`tcplab run example:NAME`) and the folder of the shipped Mahimahi traces.",
        formatter_class=fmt,
    )
    ex.add_argument("--json", action="store_true", help="print JSON: {examples: [{name, path, description}], traces: [path]}")

    t = sub.add_parser(
        "trace-info",
        help="duration and mean/min/max rate of Mahimahi trace files",
        description="Print a Mahimahi trace's duration, number of delivery opportunities and "
        "mean/min/max rate (min and max over whole 1-second windows).",
        epilog="examples:\n  tcplab trace-info traces/cellular/Verizon-LTE-short.down\n  tcplab trace-info --json trace.down\n\n"
        "the traces shipped with tcplab: tcplab examples",
        formatter_class=fmt,
    )
    t.add_argument("traces", nargs="+", metavar="FILE")
    t.add_argument("--json", action="store_true", help="print JSON (an object for one file, an array for several)")

    rp = sub.add_parser(
        "reproduce",
        help="reproduce a paper's experiments and compare every number with the paper",
        description="Run a paper's experiments (scenario files in scenarios/<paper>/) and write "
        "report.md, rows.json and PNG figures: each number the paper states beside ours.",
        epilog=(
            "papers: afc, bsf, darca, rate-based, rsfc\n\n"
            "examples:\n"
            "  tcplab reproduce afc --quick\n"
            "  tcplab reproduce bsf --quick --out out/bsf-quick\n"
            "  tcplab reproduce rate-based --out out/rate-based --jobs 2\n"
            "  tcplab reproduce rate-based --scheduler tcp://10.0.0.5:8786\n"
            "  tcplab reproduce afc --json > afc.json\n"
            "  tcplab reproduce darca --quick --beside ns2\n\n"
            "--json prints {\"paper\": ..., \"rows\": [{experiment, case, variant, metric, unit, ours, paper}, ...]}"
        ),
        formatter_class=fmt,
    )
    rp.add_argument("paper", metavar="PAPER", help="afc, bsf, darca, rate-based or rsfc")
    rp.add_argument("--quick", action="store_true", help="shortened runs and grids (about a minute; used in CI)")
    rp.add_argument("--out", metavar="DIR", help="output folder (default: out/reproduce-<paper>)")
    rp.add_argument("--json", action="store_true", help="print the rows as JSON to stdout and nothing else")
    rp.add_argument("--jobs", type=int, metavar="N", help="parallel simulations (default: all cores)")
    rp.add_argument("--scheduler", metavar="ADDRESS", help="run on a running Dask scheduler's workers (tcp://host:8786) instead of local threads")
    rp.add_argument("--seed", type=_seed, metavar="N", help="seed for every run (default: each scenario's own)")
    rp.add_argument("--profile", choices=["linux", "ns3", "ns2", "rfc"], metavar="NAME",
                    help="run every scenario under this TCP stack profile (linux, ns3, ns2, rfc; docs/profiles.md) "
                         "instead of the rules the reproduction was validated with")
    rp.add_argument("--beside", choices=["linux", "ns3", "ns2", "rfc"], metavar="NAME",
                    help="also run everything under this stack profile: the report gains a column `ours (NAME)` and a "
                         "section on what moved; that run's own report and figures go to DIR/beside-NAME/")
    return p


def _seed(text: str) -> int:
    try:
        n = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if not 0 <= n < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in 0..2^64-1, got {n}")
    return n


def one_line(text: str) -> str:
    """``text`` with every unprintable character escaped (``\\n``, ``\\x1b``, ``\\u2028``): an error
    line quotes user input (a trace's bad line, a key, a value) and must stay one line that
    cannot move the cursor or recolour a terminal."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _err(msg: str) -> None:
    print(f"error: {one_line(msg)}", file=sys.stderr)


def check_out_dir(out: Path, flag: str = "--out") -> None:
    """Fails before any work if ``out`` cannot become the output folder: it is a file, or
    its nearest existing ancestor is not a writable folder. Nothing is created here, so a
    refused run leaves the file system as it was."""
    if out.exists():
        if not out.is_dir():
            raise ScenarioError("exists and is not a folder", source=str(out), path=flag)
        _probe_writable(out, out, flag)
        return
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ScenarioError(f"cannot be created: {parent} is not a folder", source=str(out), path=flag)
    _probe_writable(parent, out, flag)


def _probe_writable(folder: Path, out: Path, flag: str) -> None:
    """Writes and removes an empty file in ``folder``: permission bits do not tell root
    about a read-only mount or an immutable folder, a write does."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".tcplab-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ScenarioError(f"cannot be written: {folder}: {e.strerror}", source=str(out), path=flag) from None


# ----------------------------------------------------------------------------------------


class _ProgressBar:
    """A one-line bar on stderr, shown only on a terminal and only once a run passes 1 s."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.shown = False
        self.width = 30

    def __call__(self, sim_s: float, dur_s: float, events: int) -> bool:
        now = time.perf_counter()
        if now - self.t0 < 1.0 or now - self.last < 0.1:
            return True
        self.last = now
        self.shown = True
        frac = min(1.0, sim_s / dur_s) if dur_s > 0 else 1.0
        filled = int(frac * self.width)
        el = now - self.t0
        eta = f"eta {el / frac - el:4.0f}s" if frac > 0.01 else "eta    ?"
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {frac * 100:5.1f}%  sim {sim_s:7.2f}/{dur_s:g} s  {events / 1e6:7.2f}M events  {eta} ")
        sys.stderr.flush()
        return True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()



def _element_details(d: dict) -> str:
    """An element's report as one table cell: scalars as key=value; lists and tables (DARCA's
    rounds and units) only by their length, which summary.json gives in full."""
    out = []
    for k, v in d.items():
        if isinstance(v, float):
            out.append(f"{k}={v:g}")
        elif isinstance(v, (list, dict)):
            out.append(f"{k}=[{len(v)}]")
        else:
            out.append(f"{k}={v}")
    return " ".join(out)

def _summary_table(s: dict[str, Any]) -> str:
    lines = [f"scenario {s['scenario']}  seed {s['seed']}  simulated {s['duration_s']:g} s  {s['events']} events  wall {s['wall_s']:.2f} s"]
    hdr = ("flow", "direction", "cc/fc", "goodput Mbit/s", "delivered MB", "retx", "RTOs", "zero-win", "OWD p50/p95 ms", "RTT p50/p95 ms", "done s")
    rows = []
    for f in s.get("flows", []):
        o, r = f.get("owd_ms", {}), f.get("rtt_ms", {})
        rows.append(
            (
                f["name"],
                f["direction"],
                f"{f['cc']}/{f['fc']}",
                f"{f['goodput_mbps']:.3f}",
                f"{f['bytes_delivered'] / 1e6:.3f}",
                str(f["retransmits"]),
                str(f["timeouts"]),
                str(f["zero_window_events"]),
                f"{o.get('p50', 0):.1f}/{o.get('p95', 0):.1f}",
                f"{r.get('p50', 0):.1f}/{r.get('p95', 0):.1f}",
                "-" if f.get("completion_s") is None else f"{f['completion_s']:.3f}",
            )
        )
    if rows or not s.get("workloads"):
        lines += _table(hdr, rows)
    if s.get("workloads"):
        if rows:
            lines.append("")
        lines += _workload_tables(s["workloads"])
    lhdr = ("link", "from->to", "capacity Mbit/s", "util %", "tx pkts", "drops queue/loss", "max queue pkts")
    lrows = [
        (
            l["name"],
            f"{l['from']}->{l['to']}",
            f"{l['capacity_mbps']:.3f}",
            f"{l['utilization'] * 100:.1f}",
            str(l["tx_packets"]),
            # RED links also report their CE marks (kept packets, not drops).
            f"{l['drops']['queue']}/{l['drops']['loss']}" + ("" if l["drops"].get("marks") is None else f" ({l['drops']['marks']} CE)"),
            str(l["max_queue_packets"]),
        )
        for l in s.get("links", [])
        if l["tx_packets"] > 0
    ]
    if lrows:
        lines.append("")
        lines += _table(lhdr, lrows)
    ehdr = ("element", "node", "seen", "forwarded", "dropped", "absorbed", "held", "created", "details")
    erows = [
        (
            e["kind"],
            e["node"],
            *(str(e["counters"][k]) for k in ("seen", "forwarded", "dropped", "absorbed", "held", "created")),
            _element_details(e.get("detail", {})),
        )
        for e in s.get("elements", [])
    ]
    if erows:
        lines.append("")
        lines += _table(ehdr, erows)
    prows = [
        (
            pg["name"],
            f"{pg['start_s']:g}",
            f"{pg['objects_done']}/{pg['objects']}",
            f"{pg['bytes']:,}",
            str(pg["connections_opened"]),
            "-" if pg["load_time_s"] is None else f"{pg['load_time_s']:.3f}",
        )
        for pg in s.get("pages", [])
    ]
    if prows:
        lines.append("")
        lines += _table(("page", "start s", "objects", "bytes", "connections", "load time s"), prows)
    if len(s.get("flows", [])) > 1:
        lines.append(f"Jain fairness index: {s['jain_fairness']:.4f}")
    return "\n".join(lines)


def _fct(f: dict[str, Any]) -> str:
    if not f.get("completed"):
        return "-"
    return f"{f['mean']:.1f}/{f['p50']:.1f}/{f['p95']:.1f}/{f['p99']:.1f}"


def _size_range(b: dict[str, Any]) -> str:
    from .units import format_size

    lo = format_size(b["min_bytes"])
    return f">= {lo}" if b["max_bytes"] is None else f"{lo}-{format_size(b['max_bytes'])}"


def _workload_tables(ws: list[dict[str, Any]]) -> list[str]:
    """The workloads' flow counts and completion times (FCT: arrival to last byte read),
    over all their flows and per size bucket."""
    rows = [
        (
            w["name"],
            w["direction"],
            f"{w['cc']}/{w['fc']}",
            str(w["arrived"]),
            str(w["completed"]),
            str(w["active_at_end"]),
            str(w["max_active"]),
            f"{w['offered_mbps']:.3f}",
            _fct(w["fct_ms"]),
        )
        for w in ws
    ]
    out = _table(("workload", "direction", "cc/fc", "arrived", "completed", "active at end", "max active", "offered Mbit/s",
                  "FCT mean/p50/p95/p99 ms"), rows)
    brows = [
        (w["name"], _size_range(b), str(b["fct_ms"]["arrived"]), str(b["fct_ms"]["completed"]), _fct(b["fct_ms"]))
        for w in ws
        for b in w["buckets"]
        if b["fct_ms"]["arrived"] > 0
    ]
    if brows:
        out.append("")
        out += _table(("workload", "flow size", "arrived", "completed", "FCT mean/p50/p95/p99 ms"), brows)
    return out


def _table(hdr: Sequence[str], rows: list[Sequence[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(hdr)]
    fmt = "  ".join(f"{{:<{w}}}" if i < 2 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*hdr), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in rows]


# ----------------------------------------------------------------------------------------


def _check_pcap_links(sc: Any, names: Sequence[str]) -> None:
    """Each ``--pcap LINK`` names a link of the scenario; the error names the option, not the
    ``record.pcap`` override it becomes."""
    import difflib

    from .errors import ScenarioError

    for name in names:
        if name not in sc.links:
            close = difflib.get_close_matches(name, sc.links, n=1, cutoff=0.6)
            hint = f" (did you mean {json.dumps(close[0])}?)" if close else ""
            raise ScenarioError(
                f"--pcap {json.dumps(name, ensure_ascii=False)}: no such link{hint}; links: {', '.join(sc.links)}",
                source=sc.source,
            )


@contextlib.contextmanager
def _staged(out: Path, prefix: str) -> Iterator[Path]:
    """Yields a staging folder; its contents move into ``out`` only when the block succeeds, so
    a refused or failed run (simulated, live or compared) leaves ``out`` as it was."""
    stage = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield stage
        out.mkdir(parents=True, exist_ok=True)
        for f in sorted(stage.iterdir()):
            dest = out / f.name
            if dest.is_dir():
                shutil.rmtree(dest)
            shutil.move(str(f), str(dest))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _cmd_run(args: argparse.Namespace) -> int:
    from .runner import fallback_warnings, run
    from .scenario import load

    sc = load(args.scenario, args.overrides)
    if args.pcap:
        _check_pcap_links(sc, args.pcap)
        sc = sc.add_pcap(args.pcap)
    out = Path(args.out) if args.out else Path("out") / sc.name
    check_out_dir(out)
    bar = _ProgressBar() if (sys.stderr.isatty() and not args.json) else None
    with _staged(out, "tcplab-run-") as stage:
        try:
            # --seed is not an override: the scenario hash stays the same across seeds.
            res = run(sc, seed=args.seed, progress=bar, pcap_dir=stage)
        finally:
            if bar:
                bar.close()
        res.write(stage, plots=not args.no_plots)
    s = res.summary
    # A sender or receiver that ran as another than configured is never silent (issue 35).
    for line in fallback_warnings(s):
        print(f"warning: {line}", file=sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps(s, indent=2) + "\n")
    else:
        print(_summary_table(s))
        print(f"\nwrote {out}/: " + ", ".join(sorted(p.name for p in out.iterdir() if p.is_file())))
    if not res.ok:
        _print_invalid(s, "simulation")
        return EXIT_INVALID_RUN
    return 0


def _print_invalid(summary: dict, what: str) -> None:
    """The banner of a run that broke an invariant, on stderr, with each violation."""
    bar_line = "!" * 78
    violations = summary.get("invariants", {}).get("violations", [])
    print(f"{bar_line}\nINVALID RUN: the {what} broke {len(violations)} invariant(s); do not use these numbers.", file=sys.stderr)
    for v in violations:
        print(f"  - {v}", file=sys.stderr)
    print(bar_line, file=sys.stderr)


def _cmd_emulate(args: argparse.Namespace) -> int:
    from . import live

    overrides = list(args.overrides)
    if args.pcap:
        overrides.append("record.pcap=" + json.dumps(list(args.pcap)))
    sc, kernel_cc = live.prepare(args.scenario, overrides, args.seed)
    if args.pcap:
        _check_pcap_links(sc, args.pcap)
    command = list(getattr(args, "remainder", []) or [])
    if not command and not sc.canonical["flows"] and not args.server:
        raise live.LiveError("nothing to run: the scenario has no [[flows]] and no COMMAND was given after --")
    out = Path(args.out) if args.out else Path("out") / f"{sc.name}-live"
    check_out_dir(out)
    server = ["sh", "-c", args.server] if args.server else []
    # A command line is run through the shell so $TCPLAB_SERVER expands in its namespace.
    cmd = ["sh", "-c", " ".join(_shell_quote(c) for c in command)] if command else []
    bound = args.lateness_bound if args.lateness_bound is not None else live.LATENESS_BOUND_US
    with _staged(out, "tcplab-emulate-") as stage:
        res = live.emulate(sc, kernel_cc, command=cmd, server_command=server, lateness_bound_us=bound, quiet_commands=args.json,
                           pcap_dir=stage)
        res.write(stage, plots=not args.no_plots)
    s = res.summary
    lv = s["live"]
    acc = lv["accuracy"]
    if args.json:
        sys.stdout.write(json.dumps(s, indent=2) + "\n")
    else:
        print(_summary_table(s))
        lat = acc["lateness_us"]
        print(f"\nlive: kernel {lv['kernel']}; release lateness mean {lat['mean_us']:.0f} us, p99 {lat['p99_us']:.0f} us, "
              f"max {lat['max_us']:.0f} us over {lat['releases']} packets; {acc['lost_before_read']} lost before the emulator read them")
        print(f"wrote {out}/: " + ", ".join(sorted(p.name for p in out.iterdir() if p.is_file())))
    if not acc["within_bound"]:
        print(f"warning: UNTRUSTED RUN: p99 release lateness {acc['lateness_us']['p99_us']:.0f} us exceeds the bound of "
              f"{acc['lateness_bound_us']:.0f} us (an overloaded machine); live.accuracy.within_bound is false", file=sys.stderr)
    if not res.ok:
        _print_invalid(s, "emulation")
        return EXIT_INVALID_RUN
    cmd_status = lv.get("command")
    if cmd_status and cmd_status.get("exit_code") not in (0, None):
        _err(f"COMMAND exited with status {cmd_status['exit_code']}")
        return EXIT_SIM_FAILED
    if cmd_status and cmd_status.get("signal"):
        _err(f"COMMAND was killed by signal {cmd_status['signal']}")
        return EXIT_SIM_FAILED
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from . import compare, live
    from .runner import run

    sc, kernel_cc = live.prepare(args.scenario, args.overrides, args.seed)
    if not sc.canonical["flows"]:
        raise live.LiveError("compare needs [[flows]]: a COMMAND's traffic has no simulated counterpart")
    for i, f in enumerate(sc.canonical["flows"]):
        if live.KERNEL_CC.get(f["tcp"]["cc"]) != kernel_cc[i]:
            raise ScenarioError(f"flows.{i}.cc = {json.dumps(kernel_cc[i])}: a kernel congestion control the simulator "
                                "does not model; compare needs one of " + ", ".join(sorted(live.KERNEL_CC)), source=sc.source)
    out = Path(args.out) if args.out else Path("out") / f"{sc.name}-compare"
    check_out_dir(out)
    with _staged(out, "tcplab-compare-") as stage:
        sim = run(sc, seed=args.seed)
        lv = live.emulate(sc, kernel_cc, pcap_dir=stage / "live")
        sim.write(stage / "sim", plots=not args.no_plots)
        lv.write(stage / "live", plots=not args.no_plots)
        rs = compare.rows(sim.summary, lv.summary)
        doc = {"scenario": sc.name, "seed": sim.summary["seed"], "rows": rs,
               "live": lv.summary["live"], "sim_ok": sim.ok, "live_ok": lv.ok}
        (stage / "compare.json").write_text(json.dumps(doc, indent=2) + "\n")
        md = compare.markdown(sc.name, rs, lv.summary)
        (stage / "compare.md").write_text(md)
        if not args.no_plots:
            compare.overlay(sim, lv, stage / "goodput-overlay.png")
    if args.json:
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        print(md)
        print(f"wrote {out}/: compare.md, compare.json, sim/, live/")
    if not (sim.ok and lv.ok):
        print("INVALID RUN: a run broke an invariant; see sim/summary.json and live/summary.json", file=sys.stderr)
        return EXIT_INVALID_RUN
    return 0


def _shell_quote(word: str) -> str:
    """Quotes a word for sh, leaving $VAR references (``$TCPLAB_SERVER``) to expand."""
    import re
    import shlex

    if re.fullmatch(r"[A-Za-z0-9_./:=@%+,-]*(\$\{?TCPLAB_[A-Z]+\}?[A-Za-z0-9_./:=@%+,-]*)*", word):
        return word
    return shlex.quote(word)


def _cmd_validate(args: argparse.Namespace) -> int:
    from .scenario import load

    if args.canonical and len(args.scenarios) != 1:
        _err(f"--canonical writes one scenario's JSON; got {len(args.scenarios)} scenarios")
        return EXIT_USER
    worst = 0
    for path in args.scenarios:
        try:
            sc = load(path, args.overrides)
        except TcplabError as e:
            _err(str(e))
            worst = max(worst, e.exit_code)
            continue
        if args.canonical:
            print(sc.to_canonical_json(indent=2))
            continue
        topo = sc.canonical["topology"]["kind"]
        extra = "".join(f", {len(sc.canonical[k])} {k}" for k in ("pages", "workloads") if sc.canonical.get(k))
        print(f"ok: {path}: {sc.name}: {topo}, {len(sc.links)} links, {len(sc.canonical['flows'])} flows{extra}, {sc.duration_s:g} s")
    return worst


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .sweeps import EXIT_OK, EXIT_RUN_FAILED, EXIT_RUN_INVALID, load_sweep, run_sweep

    if args.workers is not None and args.workers < 1:
        _err("--workers must be at least 1")
        return EXIT_USER
    if args.workers is not None and args.scheduler:
        _err("--workers sizes the local cluster; with --scheduler the scheduler's workers run the sweep")
        return EXIT_USER
    sw = load_sweep(args.sweep)
    out = Path(args.out) if args.out else Path("out") / sw.name
    check_out_dir(out)
    print(f"sweep {sw.name}: {sw.size} runs ({sw.size // len(sw.seeds)} grid points x {len(sw.seeds)} seeds) -> {out}/",
          file=sys.stderr)
    if not args.flush_every > 0:
        _err("--flush-every must be a positive number of seconds")
        return EXIT_USER
    res = run_sweep(sw, out, workers=args.workers, scheduler=args.scheduler, progress=not args.no_progress,
                    flush_every_s=args.flush_every)
    n = res.counts()
    print(f"{res.total} runs stored in {out}/ ({res.stored_before} before, {res.ran} now, {res.wall_s:.1f} s): "
          f"{n['ok']} ok, {n['error']} failed, {n['invalid']} broke an invariant")
    bad = res.frame[res.frame["status"] != "ok"]
    for _, row in bad.head(5).iterrows():
        keys = ", ".join(f"{k}={row[k]}" for k in sw.grid)
        print(f"  run {row['run']} ({keys}{', ' if keys else ''}seed={row['seed']}): {row['status']}: {row['error']}",
              file=sys.stderr)
    if len(bad) > 5:
        print(f"  ... and {len(bad) - 5} more (column 'error' of the dataset)", file=sys.stderr)
    if n["invalid"]:
        return EXIT_RUN_INVALID
    return EXIT_RUN_FAILED if n["error"] else EXIT_OK


def _cmd_examples(args: argparse.Namespace) -> int:
    from .data import TRACE_DIR, examples, traces

    exs = examples()
    if args.json:
        payload = {"examples": [{"name": e.name, "path": str(e.path), "description": e.description} for e in exs],
                   "traces": [str(p) for p in traces()]}
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return 0
    width = max(len(e.name) for e in exs)
    print("scenarios (tcplab run example:NAME):")
    for e in exs:
        print(f"  {e.name:<{width}}  {e.description}")
    print(f"\ntraces (Mahimahi format) in {TRACE_DIR}:")
    for p in traces():
        print(f"  {p.relative_to(TRACE_DIR)}")
    return 0


def _cmd_trace_info(args: argparse.Namespace) -> int:
    from .traces import trace_info

    infos = []
    for path in args.traces:
        infos.append(trace_info(path))
    if args.json:
        payload: Any = infos[0].to_dict() if len(infos) == 1 else [i.to_dict() for i in infos]
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return 0
    for i in infos:
        print(f"{i.path}")
        print(f"  duration      {i.duration_ms / 1000:.3f} s ({i.duration_ms} ms, then repeats)")
        print(f"  opportunities {i.lines} x {i.opportunity_bytes} B")
        print(f"  mean rate     {i.mean_mbps:.3f} Mbit/s")
        print(f"  min / max     {i.min_mbps:.3f} / {i.max_mbps:.3f} Mbit/s (over 1 s windows)")
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from .experiments import registry, reproduce

    papers = sorted(registry())
    if args.paper not in papers:
        import difflib

        close = difflib.get_close_matches(args.paper, papers, n=1)
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        _err(f"unknown paper {args.paper!r}{hint}; available: {', '.join(papers) or 'none'}")
        return EXIT_USER
    if args.jobs is not None and args.jobs < 1:
        _err("--jobs must be at least 1")
        return EXIT_USER
    if args.beside is not None and args.beside == args.profile:
        _err(f"--beside {args.beside} names the profile the reproduction already runs under (--profile)")
        return EXIT_USER
    out = Path(args.out) if args.out else Path("out") / f"reproduce-{args.paper}"
    check_out_dir(out)
    rep = reproduce(args.paper, quick=args.quick, out=out, jobs=args.jobs, seed=args.seed, progress=not args.json,
                    scheduler=args.scheduler, profile=args.profile, beside=args.beside)
    written = rep.write(out)
    if args.json:
        sys.stdout.write(json.dumps(rep.to_json(), indent=2) + "\n")
    else:
        print(rep.markdown(out))
        print(f"\nwrote {out}/: " + ", ".join(sorted(os.path.relpath(p, out) for p in written)))
    if rep.beside is not None and rep.beside.refused is not None:
        print(f"note: not run under --beside {rep.beside.profile}: {rep.beside.refused}", file=sys.stderr)
    # The report's top line, on stderr too: how many rows hold, are marginal, are
    # explained by a measured row, or are unexplained (marked so in report.md).
    print(f"{args.paper}: " + rep.summary_line().replace("**", ""), file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tcplab`` console script."""
    parser = _build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    remainder: list[str] = []
    if "emulate" in argv and "--" in argv and argv.index("--") > argv.index("emulate"):
        i = argv.index("--")
        argv, remainder = argv[:i], argv[i + 1:]
    args = parser.parse_args(argv)
    args.remainder = remainder
    try:
        if args.command == "emulate":
            return _cmd_emulate(args)
        if args.command == "compare":
            return _cmd_compare(args)
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "validate":
            return _cmd_validate(args)
        if args.command == "reproduce":
            return _cmd_reproduce(args)
        if args.command == "sweep":
            return _cmd_sweep(args)
        if args.command == "examples":
            return _cmd_examples(args)
        return _cmd_trace_info(args)
    except ScenarioError as e:
        _err(str(e))
        return e.exit_code
    except TcplabError as e:
        _err(str(e))
        return e.exit_code
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # writing results failed after the checks (disk full, a race)
        _err(f"{e.filename or 'output'}: cannot write: {e.strerror or e}")
        return EXIT_SIM_FAILED


if __name__ == "__main__":
    sys.exit(main())
