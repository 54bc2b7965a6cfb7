"""Paper reproductions: `tcplab reproduce PAPER` (one module per paper in this package).

A reproduction runs the paper's experiments from scenario files under ``scenarios/<paper>/``
and compares every number the paper states with ours. Its single source of truth is a list
of :class:`Row`: the ``--json`` output and the markdown report are both rendered from it,
so they never disagree.

A paper module defines ``PAPER`` (a citation string), ``TITLE`` and
``reproduce(ctx: Context) -> Report``; register it in :data:`REGISTRY`.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..errors import InvalidRunError
from ..parallel import Engine
from ..runner import Result, run
from ..scenario import Scenario, load

#: The scenario files ship inside the package (``tcplab/scenarios/<paper>/``), so the
#: reproductions run from an installed wheel as from a checkout.
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"

#: Differences larger than this (relative) must carry an explanation in the report.
EXPLAIN_ABOVE = 0.20


@dataclass
class Row:
    """One number compared with the paper."""

    experiment: str
    case: str
    variant: str
    metric: str
    unit: str
    ours: float | None
    paper: float | None = None
    #: Why ours differs from the paper's (required when they differ by more than 20%).
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if not d["note"]:
            del d["note"]
        return d

    def rel_diff(self) -> float | None:
        if self.ours is None or self.paper is None or self.paper == 0:
            return None
        return self.ours / self.paper - 1.0


@dataclass
class Figure:
    path: Path
    caption: str


def pyplot() -> Any:
    """matplotlib.pyplot on the file-only Agg backend (reproductions never open a window)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path, caption: str) -> Figure:
    """Lay out, write (110 dpi) and close ``fig``; returns the report's entry for it."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
    return Figure(path, caption)


@dataclass
class Report:
    paper: str
    title: str
    rows: list[Row] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    #: Free-form paragraphs: set-up, modelling differences, what is left out.
    notes: list[str] = field(default_factory=list)
    quick: bool = False
    #: The stack profile of `--profile` (docs/profiles.md); None: the validated TCP rules.
    profile: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"paper": self.paper}
        if self.profile is not None:
            out["profile"] = self.profile
        out["rows"] = [r.to_dict() for r in self.rows]
        return out

    def unexplained(self) -> list[Row]:
        """Rows that differ from the paper by more than 20% without a note."""
        return [r for r in self.rows if (d := r.rel_diff()) is not None and abs(d) > EXPLAIN_ABOVE and not r.note]

    def markdown(self, out: Path) -> str:
        lines = [f"# Reproduction: {self.title}", "", f"Paper: {self.paper}", ""]
        if self.quick:
            lines += ["**Quick mode** (`--quick`): shortened runs and grids; numbers are indicative only.", ""]
        if self.profile is not None:
            lines += [f"**Stack profile `{self.profile}`** (`--profile`, docs/profiles.md): every run's TCP follows "
                      "that profile instead of the validated rules (RFC 6298 RTO, RFC 5681 FlightSize, send-time RTT "
                      "samples). The explanations in this report were written from runs under the validated rules: "
                      "where this run's rows differ, they may not describe it.", ""]
        for n in self.notes:
            lines += [n, ""]
        by_exp: dict[str, list[Row]] = {}
        for r in self.rows:
            by_exp.setdefault(r.experiment, []).append(r)
        for exp, rows in by_exp.items():
            lines += [f"## {exp}", "", "| case | variant | metric | ours | paper | diff |", "|---|---|---|---:|---:|---:|"]
            notes = []
            for r in rows:
                d = r.rel_diff()
                mark = ""
                if r.note:
                    notes.append(r.note)
                    mark = f" [{len(notes)}]"
                lines.append(
                    f"| {r.case} | {r.variant} | {r.metric} ({r.unit}) | {_fmt(r.ours)} | {_fmt(r.paper)} | "
                    f"{'' if d is None else f'{d * 100:+.0f}%'}{mark} |"
                )
            lines.append("")
            for i, n in enumerate(notes, 1):
                lines.append(f"[{i}] {n}  ")
            if notes:
                lines.append("")
        for f in self.figures:
            rel = os.path.relpath(f.path, out)
            lines += [f"![{f.caption}]({rel})", "", f"*{f.caption}*", ""]
        return "\n".join(lines)

    def write(self, out: Path) -> list[Path]:
        out.mkdir(parents=True, exist_ok=True)
        md = out / "report.md"
        md.write_text(self.markdown(out) + "\n")
        js = out / "rows.json"
        js.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        return [md, js] + [f.path for f in self.figures]


def _fmt(v: float | None) -> str:
    if v is None:
        return "—"
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return str(v)
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


# The TCP rules every reproduction was validated with before stack profiles existed
# (issue 16): the `linux` profile's keys except these, which were RFC 5681 / RFC 6298's
# (and slow start without HyStart).
# `tcplab reproduce PAPER` runs with them; `--profile NAME` runs under a stack profile
# instead (docs/profiles.md). Keys a scenario or an experiment sets win over both.
VALIDATED_RULES: dict[str, Any] = {
    "rto_rule": "rfc6298",
    "rtt_source": "send_time",
    "ssthresh_rule": "flight_size",
    "abc_limit_pkts": 1,
    "cwnd_limited_growth": False,
    "hystart": False,
    "prr": "off",
    "max_rto": "60s",
    "max_persist": "60s",
}


class Context:
    """What a paper module gets: options, an output folder, and the runner of its grids
    (the sweep engine, :class:`tcplab.parallel.Engine`, on threads of this process)."""

    def __init__(self, *, quick: bool, out: Path, jobs: int, seed: int | None, progress: bool, engine: Engine | None = None,
                 profile: str | None = None):
        self.quick = quick
        self.out = out
        self.jobs = max(1, jobs)
        self.seed = seed
        self.progress = progress
        self.engine = engine
        # None: the validated rules (VALIDATED_RULES); else a stack profile's name.
        self.profile = profile

    def scenario(self, paper: str, name: str, overrides: dict[str, Any] | None = None) -> Scenario:
        """``scenarios/<paper>/<name>.toml`` with the run's TCP rules (the validated ones,
        or ``--profile``'s) under ``[defaults.tcp]``, then ``overrides`` (dotted keys)."""
        path = SCENARIOS / paper / f"{name}.toml"
        with open(path, "rb") as f:
            given = tomllib.load(f).get("defaults", {}).get("tcp", {})
        if self.profile is None:
            rules = {f"defaults.tcp.{k}": v for k, v in VALIDATED_RULES.items() if k not in given}
        else:
            rules = {"defaults.tcp.profile": self.profile}
        return load(path, rules | (overrides or {}))

    def run_all(self, jobs: Sequence[Scenario], label: str = "runs") -> list[Result]:
        """Runs scenarios on the engine, results in order of submission, with a progress
        line on a terminal. A run that breaks an invariant raises: its numbers must not
        enter a report."""
        n = len(jobs)
        show = self.progress and sys.stderr.isatty()
        results: list[Result | None] = [None] * n
        done = 0
        with contextlib.ExitStack() as stack:
            eng = self.engine or stack.enter_context(Engine(self.jobs, processes=False))
            for pairs in eng.map(_run_checked, list(enumerate(jobs)), self.seed):
                for (i, _), r in pairs:
                    results[i] = r  # type: ignore[assignment]
                done += len(pairs)
                if show:
                    print(f"\r{label}: {done}/{n}", end="", file=sys.stderr, flush=True)
        if show:
            print(file=sys.stderr)
        elif self.progress and n > 1:
            print(f"{label}: {n} runs done", file=sys.stderr)
        return results  # type: ignore[return-value]


def _run_checked(seed: int | None, job: tuple[int, Scenario]) -> Result:
    sc = job[1]
    r = run(sc, seed=seed)
    if not r.ok:
        raise InvalidRunError(f"{sc.source}: INVALID RUN in a reproduction (seed {r.summary['seed']}), its numbers are "
                              f"not used: {'; '.join(r.summary['invariants']['violations'][:3])}")
    return r


def registry() -> dict[str, Any]:
    """Paper name -> module. Imported lazily so a broken module does not break the CLI."""
    import importlib

    names = {"afc": "afc", "bsf": "bsf", "darca": "darca", "rate-based": "rate_based", "rsfc": "rsfc"}
    out = {}
    for key, mod in names.items():
        try:
            out[key] = importlib.import_module(f".{mod}", __name__)
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{mod}":
                raise
    return out


def reproduce(paper: str, *, quick: bool, out: Path, jobs: int | None = None, seed: int | None = None,
              progress: bool = True, scheduler: Any = None, profile: str | None = None) -> Report:
    """Runs a paper's experiments on one engine: ``jobs`` threads of a local Dask cluster
    in this process, or the workers of ``scheduler`` (an address or a Client). ``profile``
    (a stack profile's name, docs/profiles.md) replaces the validated TCP rules."""
    mods = registry()
    if paper not in mods:
        raise KeyError(paper)
    jobs = jobs or os.cpu_count() or 1
    out.mkdir(parents=True, exist_ok=True)
    with Engine(jobs, scheduler, processes=False) as eng:
        ctx = Context(quick=quick, out=out, jobs=jobs, seed=seed, progress=progress, engine=eng, profile=profile)
        rep = mods[paper].reproduce(ctx)
    rep.quick = quick
    rep.profile = profile
    return rep
