"""Running a scenario through the Rust simulator and packaging what it returns."""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .errors import SimulationError
from .scenario import Scenario, load

if TYPE_CHECKING:
    import pandas as pd

#: ``progress(sim_time_s, duration_s, events) -> bool | None``; returning False cancels.
ProgressFn = Callable[[float, float, int], "bool | None"]

TIMESERIES_COLUMNS = ["time_s", "kind", "name", "metric", "value"]


class Result:
    """What one run produced.

    - ``summary``: the ``summary.json`` dict (schema 1, docs/summary.md);
    - ``timeseries``: a pandas DataFrame in long form, columns ``time_s, kind, name, metric,
      value`` (``kind`` is ``"flow"`` or ``"link"``);
    - ``owd_cdf``: per flow, the one-way delay CDF of all its data packets;
    - ``scenario``: the :class:`Scenario` that ran.
    """

    def __init__(self, scenario: Scenario, output: dict[str, Any]):
        self.scenario = scenario
        self.summary: dict[str, Any] = output["summary"]
        self._ts_raw: dict[str, Any] = output.get("timeseries") or {}
        self._ts: "pd.DataFrame | None" = None
        self._wf_raw: dict[str, Any] = output.get("workload_flows") or {}
        #: Per flow name: the one-way delay CDF of its data packets, ``[(delay_ms, fraction)]``.
        self.owd_cdf: dict[str, list[tuple[float, float]]] = {
            name: [(float(v), float(c)) for v, c in pts] for name, pts in output.get("owd_cdf_ms") or []
        }

    @property
    def ok(self) -> bool:
        """False when the simulator found invariant violations: the numbers are not to be trusted."""
        return bool(self.summary.get("invariants", {}).get("ok", False))

    @property
    def workload_flows(self) -> "pd.DataFrame":
        """One row per flow of the scenario's ``[[workloads]]``: ``workload`` (its name),
        ``id`` (its place among the workload's arrivals), ``size_bytes``, ``start_s``,
        ``fct_s`` (completion time: arrival to last byte read; NaN if not complete at the
        end of the run), ``bytes_delivered``, ``retransmits``, ``timeouts``."""
        return workload_flows_frame(self._wf_raw, [w["name"] for w in self.summary.get("workloads", [])])

    @property
    def timeseries(self) -> "pd.DataFrame":
        if self._ts is None:
            self._ts = timeseries_frame(self._ts_raw)
        return self._ts

    def write(self, out_dir: str | os.PathLike[str], *, plots: bool = True) -> list[Path]:
        """Write ``summary.json``, ``scenario.json`` (canonical), ``timeseries.parquet`` and
        the PNG plots into ``out_dir`` (created if needed). Returns the paths written."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        p = out / "summary.json"
        p.write_text(json.dumps(self.summary, indent=2) + "\n")
        written.append(p)
        p = out / "scenario.json"
        # The scenario that ran: with the seed it ran with (``--seed`` replaces the file's).
        ran = self.scenario.to_dict()
        ran["seed"] = self.summary.get("seed", ran["seed"])
        p.write_text(json.dumps(ran, sort_keys=True, indent=2) + "\n")
        written.append(p)
        p = out / "timeseries.parquet"
        self.timeseries.to_parquet(p, index=False)
        written.append(p)
        if self.summary.get("workloads"):
            p = out / "workload_flows.parquet"
            self.workload_flows.to_parquet(p, index=False)
            written.append(p)
        if plots:
            from .plots import write_plots

            written += write_plots(self, out)
        return written

    def __repr__(self) -> str:
        flows = ", ".join(f"{f['name']}={f['goodput_mbps']:.3g} Mbit/s" for f in self.summary.get("flows", []))
        return f"<tcplab.Result {self.summary.get('scenario')!r} seed={self.summary.get('seed')} ok={self.ok}: {flows}>"


def fallback_warnings(summary: dict[str, Any]) -> list[str]:
    """One line per mechanism that ran as another than configured (issue 35): the flow, the
    end, the configured and the effective controller or receiver policy, and why, from the
    summary's ``fallbacks`` (docs/summary.md). Empty when everything ran as configured."""
    out = []
    for f in summary.get("flows", []):
        for fb in f.get("fallbacks", []):
            out.append(f"flow '{f['name']}': the {fb['end']}'s {fb['key']} \"{fb['configured']}\" "
                       f"ran as \"{fb['effective']}\": {fb['why']}")
    return out


def timeseries_frame(ts: dict[str, Any]) -> "pd.DataFrame":
    """``output::TimeSeries`` (column arrays + interned entities and metrics) as a long DataFrame."""
    import numpy as np
    import pandas as pd

    if not ts or not ts.get("time_ns"):
        return pd.DataFrame(
            {
                "time_s": pd.Series([], dtype="float64"),
                "kind": pd.Categorical([]),
                "name": pd.Categorical([]),
                "metric": pd.Categorical([]),
                "value": pd.Series([], dtype="float64"),
            }
        )
    entities = ts["entities"]
    ent = np.asarray(ts["entity"], dtype=np.int64)
    kinds = [e[0] for e in entities]
    names = [e[1] for e in entities]
    kind_cats = sorted(set(kinds))
    name_cats = list(dict.fromkeys(names))
    kind_codes = np.array([kind_cats.index(k) for k in kinds], dtype=np.int32)
    name_codes = np.array([name_cats.index(n) for n in names], dtype=np.int32)
    return pd.DataFrame(
        {
            "time_s": np.asarray(ts["time_ns"], dtype=np.float64) / 1e9,
            "kind": pd.Categorical.from_codes(kind_codes[ent], categories=kind_cats),
            "name": pd.Categorical.from_codes(name_codes[ent], categories=name_cats),
            "metric": pd.Categorical.from_codes(np.asarray(ts["metric"], dtype=np.int32), categories=list(ts["metrics"])),
            "value": np.asarray(ts["value"], dtype=np.float64),
        }
    )


def workload_flows_frame(wf: dict[str, Any], names: list[str]) -> "pd.DataFrame":
    """``output::WorkloadFlows`` (column arrays) as a DataFrame, one row per flow."""
    import numpy as np
    import pandas as pd

    n = len(wf.get("id", []))
    codes = np.asarray(wf.get("workload", []), dtype=np.int32)
    fct = [np.nan if v is None else v / 1e9 for v in wf.get("fct_ns", [])]
    return pd.DataFrame(
        {
            "workload": pd.Categorical.from_codes(codes, categories=names) if names else pd.Categorical([]),
            "id": np.asarray(wf.get("id", []), dtype=np.uint64),
            "size_bytes": np.asarray(wf.get("size_bytes", []), dtype=np.uint64),
            "start_s": np.asarray(wf.get("start_ns", []), dtype=np.float64) / 1e9,
            "fct_s": np.asarray(fct, dtype=np.float64),
            "bytes_delivered": np.asarray(wf.get("bytes_delivered", []), dtype=np.uint64),
            "retransmits": np.asarray(wf.get("retransmits", []), dtype=np.uint64),
            "timeouts": np.asarray(wf.get("timeouts", []), dtype=np.uint64),
        },
        index=pd.RangeIndex(n),
    )


def _resolve_pcaps(canonical: dict[str, Any], pcap_dir: str | os.PathLike[str] | None) -> None:
    base = Path(pcap_dir) if pcap_dir is not None else Path.cwd()
    for spec in canonical.get("record", {}).get("pcap", []):
        p = Path(spec["path"])
        if not p.is_absolute():
            spec["path"] = str(base / p)


def run(
    scenario: Scenario | str | os.PathLike[str] | dict[str, Any],
    seed: int | None = None,
    *,
    progress: ProgressFn | None = None,
    pcap_dir: str | os.PathLike[str] | None = None,
) -> Result:
    """Run a scenario and return its :class:`Result`.

    ``scenario`` is a :class:`Scenario` or anything :func:`tcplab.load` accepts. ``seed``
    replaces the scenario's seed. Relative pcap paths (``record.pcap``) are resolved against
    ``pcap_dir`` (default: the current directory). The simulator runs without the GIL;
    ``progress`` is called now and then from the simulating thread with the GIL held.

    Raises :class:`tcplab.SimulationError` when the simulator refuses the scenario or aborts.
    A run with invariant violations does not raise: check ``result.ok``.
    """
    from . import _tcplab

    sc = scenario if isinstance(scenario, Scenario) else load(scenario)
    # Only the seed and the pcap paths change: a shallow copy with its own record table
    # (a deep copy of a large scenario costs more than a short run).
    canonical = dict(sc.canonical)
    canonical["record"] = copy.deepcopy(sc.canonical["record"])
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an integer in 0..2^64-1, got {seed!r}")
        canonical["seed"] = seed
    _resolve_pcaps(canonical, pcap_dir)
    for spec in canonical.get("record", {}).get("pcap", []):
        Path(spec["path"]).parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        raw = _tcplab.run_json(json.dumps(canonical, sort_keys=True), progress)
    except _tcplab.SimulationError as e:
        kind, message = (e.args + ("", ""))[:2] if len(e.args) >= 2 else ("config", str(e))
        raise SimulationError(str(kind), str(message), source=sc.source) from None
    wall = time.perf_counter() - t0
    output = json.loads(raw)
    output["summary"]["wall_s"] = wall
    output["summary"]["scenario_sha256"] = sc.sha256
    return Result(sc, output)
