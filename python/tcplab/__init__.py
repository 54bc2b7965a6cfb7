"""tcplab: a deterministic packet-level simulator for TCP flow control and rate-based
congestion control on cellular links.

>>> import tcplab
>>> sc = tcplab.load("scenarios/examples/p2p-bulk.toml")
>>> sc = sc.with_overrides({"topology.downlink.rate": "5Mbit/s", "flows.0.cc": "cubic"})
>>> res = tcplab.run(sc, seed=7)              # doctest: +SKIP
>>> res.summary["flows"][0]["goodput_mbps"]   # doctest: +SKIP
>>> res.timeseries.query("metric == 'cwnd_bytes'")  # doctest: +SKIP
>>> res.write("out/p2p-bulk")                 # doctest: +SKIP
"""

from .errors import ScenarioError, SimulationError, TcplabError
from .runner import Result, run
from .scenario import Scenario, load, parse_override
from .traces import TraceError, TraceInfo, trace_info

__version__ = "0.1.0"

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
    "trace_info",
]
