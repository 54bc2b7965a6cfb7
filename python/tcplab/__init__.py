"""tcplab: a deterministic packet-level simulator for TCP flow control and rate-based
congestion control on cellular links.

>>> import tcplab
>>> sc = tcplab.load("example:p2p-bulk")      # or a path: scenarios/examples/p2p-bulk.toml
>>> sc = sc.with_overrides({"topology.downlink.rate": "5Mbit/s", "flows.0.cc": "cubic"})
>>> res = tcplab.run(sc, seed=7)              # doctest: +SKIP
>>> res.summary["flows"][0]["goodput_mbps"]   # doctest: +SKIP
>>> res.timeseries.query("metric == 'cwnd_bytes'")  # doctest: +SKIP
>>> res.write("out/p2p-bulk")                 # doctest: +SKIP
>>> df = tcplab.sweep("my-sweep.toml", workers=2, out="out/my-sweep")  # doctest: +SKIP
"""

from .errors import ScenarioError, SimulationError, TcplabError
from .runner import Result, run
from .scenario import Scenario, load, parse_override
from .sweeps import Sweep, load_sweep, sweep
from .traces import TraceError, TraceInfo, trace_info

try:  # one source of truth: the version in pyproject.toml, as installed
    from importlib.metadata import version as _version

    __version__ = _version("tcplab")
except Exception:  # noqa: BLE001 - running from a source tree that was never installed
    __version__ = "0.1.0+unknown"

__all__ = [
    "Result",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "TcplabError",
    "TraceError",
    "TraceInfo",
    "load",
    "parse_override",
    "run",
    "sweep",
    "load_sweep",
    "Sweep",
    "trace_info",
]
