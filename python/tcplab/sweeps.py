"""Sweeps: one scenario run over the product of a grid of overrides and a list of seeds, on
Dask (:mod:`tcplab.parallel`), into a Parquet dataset that survives being killed.

A sweep file (docs/sweep.md)::

    scenario = "../scenarios/examples/p2p-bulk.toml"   # relative to this file
    seeds = [1, 2, 3]                                   # or { first = 1, count = 100 }
    [grid]
    "topology.downlink.rate" = ["5Mbit/s", "10Mbit/s"]
    "flows.0.cc" = ["cubic", "newreno"]

Storage contract: every finished run is one row; rows are written in part files
(``part-NNNNNN.parquet``) that appear atomically (written under a dot-name, then renamed),
so a sweep killed at any moment leaves only whole rows, and a restart with the same sweep
skips the runs whose ``run_id`` is stored. ``_sweep.json`` records what the folder holds, so
a different sweep is refused rather than mixed in. ``pandas.read_parquet(DIR)`` reads it all
(readers skip names beginning with ``_`` and ``.``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from .errors import ScenarioError, SimulationError, TcplabError
from .scenario import Scenario, load, read_toml, scenario_sha256

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

SWEEP_KEYS = ["name", "description", "scenario", "seeds", "grid"]
MANIFEST = "_sweep.json"
FORMAT = 1

#: Per-flow figures stored as ``flow.<name>.<figure>`` (docs/summary.md), with their Arrow type.
FLOW_FIGURES: list[tuple[str, str]] = [
    ("cc", "string"), ("fc", "string"), ("goodput_mbps", "float64"), ("bytes_delivered", "int64"),
    ("bytes_written", "int64"), ("data_packets_delivered", "int64"), ("retransmits", "int64"),
    ("timeouts", "int64"), ("spurious_timeouts", "int64"), ("fast_retransmits", "int64"),
    ("zero_window_events", "int64"), ("stall_window_events", "int64"), ("zero_window_probes", "int64"),
    ("rcv_buffer_drops", "int64"),
    ("proactive_acks", "int64"),
    ("owd_ms.mean", "float64"), ("owd_ms.p50", "float64"), ("owd_ms.p95", "float64"), ("owd_ms.count", "int64"),
    ("rtt_ms.mean", "float64"), ("rtt_ms.p50", "float64"), ("rtt_ms.p95", "float64"), ("rtt_ms.count", "int64"),
    ("start_s", "float64"), ("completion_s", "float64"),
]  # fmt: skip
#: Per-link figures stored as ``link.<name>.<figure>``.
LINK_FIGURES: list[tuple[str, str]] = [
    ("utilization", "float64"), ("capacity_mbps", "float64"), ("tx_packets", "int64"), ("tx_bytes", "int64"),
    ("drops.queue", "int64"), ("drops.loss", "int64"), ("max_queue_packets", "int64"), ("max_queue_bytes", "int64"),
]  # fmt: skip
#: Columns every row has, before the grid's.
RUN_COLUMNS: list[tuple[str, str]] = [("run", "int64"), ("run_id", "string")]
#: Columns after the grid's, before the flows' and links'.
RESULT_COLUMNS: list[tuple[str, str]] = [
    ("seed", "uint64"), ("scenario_sha256", "string"), ("status", "string"), ("error", "string"),
    ("events", "int64"), ("duration_s", "float64"), ("jain_fairness", "float64"),
]  # fmt: skip

EXIT_OK, EXIT_RUN_FAILED, EXIT_RUN_INVALID = 0, 1, 3


# -- the sweep file ------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One run of a sweep: its place in the plan, its overrides and seed, and its identity."""

    index: int
    overrides: tuple[tuple[str, Any], ...]
    seed: int
    run_id: str


@dataclass
class Sweep:
    """A parsed and checked sweep: the base scenario, the grid and the seeds."""

    name: str
    source: str
    scenario_path: Path
    scenario: Scenario
    seeds: list[int]
    grid: dict[str, list[Any]]
    description: str = ""
    _columns: list[tuple[str, str]] | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        return math.prod(len(v) for v in self.grid.values()) * len(self.seeds)

    def runs(self) -> Iterable[Run]:
        """Every run, in plan order: the grid's product (last key fastest), seeds innermost."""
        keys = list(self.grid)
        base = self.scenario._source_bytes
        i = 0
        for combo in itertools.product(*(self.grid[k] for k in keys)):
            ov = tuple(zip(keys, combo))
            sha = scenario_sha256(base, list(ov))
            for seed in self.seeds:
                yield Run(i, ov, seed, f"{sha[:32]}-{seed}")
                i += 1

    def columns(self) -> list[tuple[str, str]]:
        """The dataset's columns: fixed before any run, from the flows and links that the
        grid's structural keys (``flows...``, ``topology...``) can produce."""
        if self._columns is None:
            cols = list(RUN_COLUMNS) + [(k, _grid_type(v)) for k, v in self.grid.items()] + list(RESULT_COLUMNS)
            flows: dict[str, None] = {}
            links: dict[str, None] = {}
            structural = [k for k in self.grid if k.split(".")[0] in ("flows", "topology")]
            for combo in itertools.product(*(self.grid[k] for k in structural)):
                try:
                    sc = self.scenario.with_overrides(dict(zip(structural, combo)))
                except TcplabError:
                    continue  # an invalid combination is a failed run, with no figures
                flows.update(dict.fromkeys(f["name"] for f in sc.canonical["flows"]))
                links.update(dict.fromkeys(sc.links))
            cols += [(f"flow.{n}.{k}", t) for n in flows for k, t in FLOW_FIGURES]
            cols += [(f"link.{n}.{k}", t) for n in links for k, t in LINK_FIGURES]
            self._columns = cols
        return self._columns

    def identity(self) -> dict[str, Any]:
        """What makes two sweeps the same (stored in ``_sweep.json``)."""
        return {
            "format": FORMAT,
            "scenario_sha256": hashlib.sha256(self.scenario._source_bytes).hexdigest(),
            "grid": [[k, v] for k, v in self.grid.items()],
            "seeds": self.seeds,
        }


def _grid_type(values: Sequence[Any]) -> str:
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int64" if all(-(2**63) <= v < 2**63 for v in values) else "string"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "float64"
    return "string"


def _grid_cell(value: Any, typ: str) -> Any:
    if typ == "string" and not isinstance(value, str):
        return json.dumps(value, sort_keys=True, default=str)
    if typ == "float64":
        return float(value)
    return value


def load_sweep(source: str | os.PathLike[str] | Mapping[str, Any]) -> Sweep:
    """Parse and check a sweep file (or a dict of the same shape, paths relative to the
    current directory). Raises :class:`ScenarioError` naming the file and the key."""
    if isinstance(source, Mapping):
        doc, shown, base = dict(source), "<sweep>", Path.cwd()
    else:
        path = Path(source)
        shown = str(source)
        doc, _ = read_toml(path, "sweep")
        base = path.resolve().parent

    def err(key: str, msg: str) -> ScenarioError:
        return ScenarioError(msg, source=shown, path=key or None)

    for k in doc:
        if k not in SWEEP_KEYS:
            import difflib

            close = difflib.get_close_matches(k, SWEEP_KEYS, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            raise err(k, f"unknown key{hint}; valid keys here: {', '.join(SWEEP_KEYS)}")
    for k in ("scenario", "seeds"):
        if k not in doc:
            raise err(k, 'missing (a sweep needs scenario = "file.toml" and seeds = [1, 2, ...])')
    for k in ("name", "description", "scenario"):
        if k in doc and not isinstance(doc[k], str):
            raise err(k, f"expected a string, got {_type_name(doc[k])}")
    if doc["scenario"].startswith("example:"):
        from .data import resolve

        try:
            scen_path = resolve(doc["scenario"])
        except ScenarioError as e:
            raise err("scenario", str(e)) from None
    else:
        scen_path = Path(doc["scenario"])
        if not scen_path.is_absolute():
            scen_path = base / scen_path
    try:
        scenario = load(scen_path)
    except ScenarioError as e:
        raise err("scenario", str(e)) from None
    seeds = _seeds(doc["seeds"], err)
    grid_doc = doc.get("grid", {})
    if not isinstance(grid_doc, dict):
        raise err("grid", f'expected a table of override keys, e.g. "flows.0.cc" = ["cubic", "newreno"], got {_type_name(grid_doc)}')
    grid: dict[str, list[Any]] = {}
    for k, values in grid_doc.items():
        shown_k = f'grid."{k}"'
        if isinstance(values, dict):
            raise err(shown_k, 'expected an array of values; quote dotted keys ("flows.0.cc" = [...]), '
                      "as a bare dotted key makes a nested table")
        if not isinstance(values, list) or not values:
            raise err(shown_k, f"expected a non-empty array of values, got {_type_name(values)}")
        seen = set()
        for v in values:
            j = json.dumps(v, sort_keys=True, default=str)
            if j in seen:
                raise err(shown_k, f"value {j} appears twice (each grid point would run twice)")
            seen.add(j)
        grid[k] = values
    name = doc.get("name") or (Path(shown).stem if shown != "<sweep>" else "sweep")
    sw = Sweep(name=name, source=shown, scenario_path=scen_path, scenario=scenario, seeds=seeds, grid=grid,
               description=doc.get("description", ""))
    _check_grid(sw, err)
    return sw


def _seeds(v: Any, err: Any) -> list[int]:
    if isinstance(v, dict):
        extra = set(v) - {"first", "count"}
        if extra or set(v) != {"first", "count"}:
            raise err("seeds", "expected an array of seeds or a table { first = N, count = M }")
        first, count = v["first"], v["count"]
        for k, x in (("first", first), ("count", count)):
            if isinstance(x, bool) or not isinstance(x, int) or x < 0:
                raise err(f"seeds.{k}", f"expected a non-negative integer, got {x!r}")
        if count < 1 or first + count > 2**64:
            raise err("seeds.count", "expected at least 1 seed, all below 2^64")
        return list(range(first, first + count))
    if not isinstance(v, list) or not v:
        raise err("seeds", f"expected a non-empty array of integers, got {_type_name(v)}")
    for s in v:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**64:
            raise err("seeds", f"expected integers in 0..2^64-1, got {s!r}")
    if len(set(v)) != len(v):
        raise err("seeds", "a seed appears twice")
    return list(v)


def _check_grid(sw: Sweep, err: Any) -> None:
    """Each grid value, with the other keys at their first values, must make a valid
    scenario: a typo fails the whole sweep at once, not half of its runs later. (A
    combination that is invalid only as a whole is recorded as a failed run.)"""
    first = {k: v[0] for k, v in sw.grid.items()}
    for k, values in sw.grid.items():
        for v in values:
            try:
                sw.scenario.with_overrides({**first, k: v})
            except ScenarioError as e:
                raise err(f'grid."{k}"', f"value {json.dumps(v, default=str)}: {e.path + ': ' if e.path else ''}{e.message}") from None


def _type_name(v: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array", dict: "a table"}.get(type(v), type(v).__name__)


# -- running -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Shared:
    """What every run of a sweep shares, sent to each worker once."""

    source: str
    source_bytes: bytes
    base_dir: str
    columns: tuple[tuple[str, str], ...]
    grid_types: tuple[tuple[str, str], ...]


#: Worker side: the parsed scenario file, and the last validated grid point. Runs arrive in
#: plan order, seeds innermost, so consecutive runs of a chunk share a grid point and are
#: validated once (as a plain loop over seeds would do).
_DOC_CACHE: dict[bytes, dict[str, Any]] = {}
_POINT_CACHE: dict[tuple[bytes, str], Scenario] = {}


def _scenario_for(shared: _Shared, overrides: tuple[tuple[str, Any], ...]) -> Scenario:
    doc = _DOC_CACHE.get(shared.source_bytes)
    if doc is None:
        _DOC_CACHE.clear()
        doc = _DOC_CACHE[shared.source_bytes] = tomllib.loads(shared.source_bytes.decode("utf-8"))
    key = (shared.source_bytes, json.dumps(overrides, sort_keys=True, default=str))
    sc = _POINT_CACHE.get(key)
    if sc is None:
        # Sweeps keep summary figures only: no time series, no pcaps.
        sc = Scenario(doc, source=shared.source, base_dir=Path(shared.base_dir), source_bytes=shared.source_bytes,
                      overrides=list(overrides) + [("record.timeseries", False), ("record.pcap", [])])
        _POINT_CACHE.clear()
        _POINT_CACHE[key] = sc
    return sc


def _execute(shared: _Shared, run: Run) -> dict[str, Any]:
    """Worker side: one run, as a row (never raises for a run's own failure)."""
    from .runner import run as run_scenario

    types = dict(shared.grid_types)
    row: dict[str, Any] = {"run": run.index, "run_id": run.run_id, "seed": run.seed}
    for k, v in run.overrides:
        row[k] = _grid_cell(v, types[k])
    row["scenario_sha256"] = scenario_sha256(shared.source_bytes, list(run.overrides))
    try:
        res = run_scenario(_scenario_for(shared, run.overrides), seed=run.seed)
    except (TcplabError, SimulationError) as e:
        row.update(status="error", error=str(e))
        return row
    except Exception as e:  # noqa: BLE001 - a bug, but one run must not end the sweep
        row.update(status="error", error=f"{type(e).__name__}: {e}")
        return row
    s = res.summary
    if not res.ok:
        row.update(status="invalid", error="invariants violated: " + "; ".join(s["invariants"]["violations"][:5]))
        return row  # figures of an invalid run are not stored: they must not be used
    row.update(status="ok", events=s["events"], duration_s=s["duration_s"], jain_fairness=s["jain_fairness"])
    for f in s["flows"]:
        for k, _ in FLOW_FIGURES:
            row[f"flow.{f['name']}.{k}"] = _dig(f, k)
    for l in s["links"]:
        for k, _ in LINK_FIGURES:
            row[f"link.{l['name']}.{k}"] = _dig(l, k)
    return row


def _execute_packed(shared: _Shared, run: Run) -> list[Any]:
    """Worker side: the row as a list in column order (half the bytes of a dict to send,
    and the driver builds Arrow columns from it without a key lookup)."""
    row = _execute(shared, run)
    return [row.get(name) for name, _ in shared.columns]


def _dig(d: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        d = d.get(part) if type(d) is dict else None  # type: ignore[assignment]
    return d


def _arrow_schema(columns: Sequence[tuple[str, str]]) -> "pa.Schema":
    import pyarrow as pa

    types = {"int64": pa.int64(), "uint64": pa.uint64(), "float64": pa.float64(), "string": pa.string(), "bool": pa.bool_()}
    return pa.schema([(n, types[t]) for n, t in columns])


class _Store:
    """The output folder: manifest, stored run ids, and atomic part files."""

    def __init__(self, out: Path, sweep: Sweep):
        self.out = out
        self.sweep = sweep
        self.schema = _arrow_schema(sweep.columns())
        names = [n for n, _ in sweep.columns()]
        self.i_run_id, self.i_status = names.index("run_id"), names.index("status")
        self.buffer: list[list[Any]] = []
        self.done: set[str] = set()
        self.next_part = 0

    def open(self) -> None:
        out = self.out
        if out.exists() and not out.is_dir():
            raise ScenarioError("is a file, not a folder for the sweep's results", source=str(out), path="--out")
        manifest = out / MANIFEST
        ident = self.sweep.identity()
        if manifest.exists():
            try:
                stored = json.loads(manifest.read_text())
            except (OSError, ValueError) as e:
                raise ScenarioError(f"unreadable {MANIFEST} ({e}); remove the folder or choose another --out", source=str(out)) from None
            if stored.get("identity") != ident:
                raise ScenarioError(
                    f"holds the results of a different sweep (another scenario file, grid or seeds; see {MANIFEST}); "
                    "choose another --out, or remove the folder to start over", source=str(out), path="--out")
        elif out.exists() and any(not p.name.startswith(".") for p in out.iterdir()):
            raise ScenarioError(f"exists and is not a sweep's folder (no {MANIFEST}); choose another --out", source=str(out), path="--out")
        try:
            out.mkdir(parents=True, exist_ok=True)
            if not manifest.exists():
                tmp = out / f".{MANIFEST}.tmp"
                tmp.write_text(json.dumps({"identity": ident, "name": self.sweep.name, "scenario": str(self.sweep.scenario_path),
                                           "runs": self.sweep.size, "columns": self.sweep.columns()}, indent=1) + "\n")
                os.replace(tmp, manifest)
        except OSError as e:
            raise ScenarioError(f"cannot write: {e.strerror}", source=str(out), path="--out") from None
        import pyarrow.parquet as pq

        for p in sorted(out.iterdir()):
            if p.name.startswith(".") and p.name.endswith(".tmp"):
                p.unlink(missing_ok=True)  # a write the last sweep did not finish
            elif p.name.startswith("part-") and p.suffix == ".parquet":
                self.next_part = max(self.next_part, int(p.stem.split("-")[1]) + 1)
                self.done.update(pq.read_table(p, columns=["run_id"]).column("run_id").to_pylist())

    def add(self, rows: list[list[Any]]) -> None:
        self.buffer += rows

    def flush(self) -> None:
        if not self.buffer:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = list(zip(*self.buffer))
        table = pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(columns, self.schema)], schema=self.schema)
        name = f"part-{self.next_part:06d}.parquet"
        tmp = self.out / f".{name}.tmp"
        pq.write_table(table, tmp)
        with open(tmp, "rb") as fh:  # the rename below must not reach the disk before the data
            os.fsync(fh.fileno())
        os.replace(tmp, self.out / name)
        self.next_part += 1
        self.done.update(columns[self.i_run_id])
        self.buffer = []

    def frame(self) -> "pd.DataFrame":
        import pandas as pd

        parts = sorted(self.out.glob("part-*.parquet"))
        if not parts:
            return self.schema.empty_table().to_pandas()
        df = pd.read_parquet(self.out)
        return df.sort_values("run", kind="stable").reset_index(drop=True)


class _Progress:
    """Runs done, failed and left, with the rate and the time left: a bar on a terminal,
    a line every 10 s otherwise."""

    def __init__(self, total: int, stored: int, enabled: bool, i_status: int):
        self.i_status = i_status
        self.total, self.stored = total, stored
        self.done = self.failed = 0
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.enabled = enabled
        self.tty = sys.stderr.isatty()

    def update(self, rows: list[list[Any]]) -> None:
        self.done += len(rows)
        self.failed += sum(r[self.i_status] != "ok" for r in rows)
        now = time.perf_counter()
        if self.enabled and now - self.last >= (0.2 if self.tty else 10.0):
            self.last = now
            self._show(now)

    def _show(self, now: float, final: bool = False) -> None:
        todo = self.total - self.stored
        left = todo - self.done
        el = now - self.t0
        rate = self.done / el if el > 0 else 0.0
        eta = f"{left / rate:.0f}s" if rate > 0 and left else ("0s" if not left else "?")
        width = 24
        frac = (self.stored + self.done) / self.total if self.total else 1.0
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        msg = (f"[{bar}] {self.stored + self.done}/{self.total} runs: {self.done} done now, {self.failed} failed, "
               f"{left} left, {rate:.1f} runs/s, eta {eta}")
        if self.tty:
            sys.stderr.write("\r" + msg + (" " * 4) + ("\n" if final else ""))
        else:
            sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and (self.tty or self.done):
            self._show(time.perf_counter(), final=True)


@dataclass
class SweepOutcome:
    """What :func:`run_sweep` did: the whole dataset and the counts of this invocation."""

    frame: "pd.DataFrame"
    out: Path
    total: int
    stored_before: int
    ran: int
    wall_s: float

    def counts(self) -> dict[str, int]:
        st = self.frame["status"].value_counts() if len(self.frame) else {}
        return {k: int(st.get(k, 0)) for k in ("ok", "error", "invalid")}


#: Seconds between part files while runs stream in (also bounds the work a kill can lose).
FLUSH_EVERY_S = 5.0
FLUSH_ROWS = 5000


def run_sweep(sweep: Sweep, out: str | os.PathLike[str], *, workers: int | None = None, scheduler: Any = None,
              progress: bool = True, flush_every_s: float = FLUSH_EVERY_S) -> SweepOutcome:
    """Run every run of ``sweep`` not yet stored in ``out``; returns the whole dataset.
    Finished rows are written at least every ``flush_every_s`` seconds (what a kill can lose)."""
    from .parallel import Engine, Failure

    t0 = time.perf_counter()
    store = _Store(Path(out), sweep)
    store.open()
    todo = [r for r in sweep.runs() if r.run_id not in store.done]
    stored_before = sweep.size - len(todo)
    bar = _Progress(sweep.size, stored_before, progress, store.i_status)
    if todo:
        grid_types = tuple((k, t) for k, t in sweep.columns() if k in sweep.grid)
        shared = _Shared(sweep.scenario.source, sweep.scenario._source_bytes, str(sweep.scenario.base_dir),
                         tuple(sweep.columns()), grid_types)
        last = time.perf_counter()
        try:
            with Engine(workers, scheduler) as eng:
                for pairs in eng.map(_execute_packed, todo, shared, isolate_failures=True):
                    rows = [_failed_row(shared, run, res.error) if isinstance(res, Failure) else res for run, res in pairs]
                    store.add(rows)
                    bar.update(rows)
                    now = time.perf_counter()
                    if now - last >= flush_every_s or len(store.buffer) >= FLUSH_ROWS:
                        store.flush()
                        last = now
        finally:
            store.flush()  # an interrupted sweep keeps what finished
            bar.close()
    return SweepOutcome(store.frame(), Path(out), sweep.size, stored_before, len(todo), time.perf_counter() - t0)


def _failed_row(shared: _Shared, run: Run, error: str) -> list[Any]:
    types = dict(shared.grid_types)
    row: dict[str, Any] = {"run": run.index, "run_id": run.run_id, "seed": run.seed, "status": "error",
                           "error": f"worker failed: {error}",
                           "scenario_sha256": scenario_sha256(shared.source_bytes, list(run.overrides))}
    for k, v in run.overrides:
        row[k] = _grid_cell(v, types[k])
    return [row.get(name) for name, _ in shared.columns]


def sweep(source: str | os.PathLike[str] | Mapping[str, Any] | Sweep, *, out: str | os.PathLike[str] | None = None,
          workers: int | None = None, scheduler: Any = None, progress: bool = False,
          flush_every_s: float = FLUSH_EVERY_S) -> "pd.DataFrame":
    """Run a sweep (a sweep file, a dict of the same shape, or a :class:`Sweep`) and return
    its rows as a DataFrame, one per run in plan order. With ``out`` the rows are stored
    there as a Parquet dataset (and a rerun skips what is stored); without, in a temporary
    folder. ``scheduler``: None (a LocalCluster of ``workers`` processes), a scheduler
    address, or a ``distributed.Client`` / cluster object."""
    import tempfile

    sw = source if isinstance(source, Sweep) else load_sweep(source)
    if out is not None:
        return run_sweep(sw, out, workers=workers, scheduler=scheduler, progress=progress, flush_every_s=flush_every_s).frame
    with tempfile.TemporaryDirectory(prefix="tcplab-sweep-") as tmp:
        return run_sweep(sw, Path(tmp) / "sweep", workers=workers, scheduler=scheduler, progress=progress).frame
