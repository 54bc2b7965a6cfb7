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

from ..errors import InvalidRunError, ScenarioError, SimulationError
from ..parallel import Engine
from ..runner import Result, run
from ..scenario import Scenario, load
from .claims import Claim, Fact, Note, NoteError, as_claim, number_forms, stray_numbers

__all__ = ["Claim", "Fact", "Note", "NoteError", "Row", "Report", "Figure", "Context"]

#: The scenario files ship inside the package (``tcplab/scenarios/<paper>/``), so the
#: reproductions run from an installed wheel as from a checkout.
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"

#: Differences larger than this (relative) from a single value of the paper's must carry an
#: explanation in the report (a range or bound must hold ours inside it).
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
    #: What the paper states: a number (a value, consistent within 20%), a :class:`Claim`
    #: (a value, range or bound), or None.
    paper: float | Claim | None = None
    #: Why ours differs from the paper's, written for this row (required when it is not
    #: consistent with the claim). A :class:`Note` is filled from this run's rows when the
    #: report is made (:meth:`Report.resolve_notes`); a plain string may hold no number.
    note: str | Note = ""
    #: Set by the framework in quick mode on rows whose consistency with the paper the full
    #: run judges differently (the paper module's ``QUICK_VERDICT_DIFFERS``, measured by
    #: `python -m tcplab.experiments.quick_vs_full PAPER`): shown as indicative only.
    indicative: bool = field(default=False, kw_only=True)
    #: A yes/no judgement of one of the paper's claims (``ours`` 1.0: it holds, 0.0: it does
    #: not): what `--beside` lists first when it changes. Written to JSON only beside another
    #: run, so the JSON of a plain reproduction stays as it was. (Both flags are keyword-only:
    #: given by position, a module's ``verdict`` once landed in ``indicative``.)
    verdict: bool = field(default=False, kw_only=True)
    source: str | None = field(default=None, kw_only=True)
    spread: float | None = field(default=None, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        claim = self.claim
        d["paper"] = None if claim is None else claim.to_json()
        if claim is not None:
            d["consistent"] = claim.consistent(self.ours)
            if claim.why:
                d["why"] = claim.why
        if not self.note:
            del d["note"]
        elif isinstance(self.note, Note):
            raise NoteError(f"{self.id}: the note was not resolved (Report.resolve_notes)")
        del d["verdict"]
        for k in ("source", "spread"):
            if d[k] is None:
                del d[k]
        if not self.indicative:
            del d["indicative"]
        return d

    @property
    def id(self) -> str:
        """``experiment/case/variant/metric``: how notes refer to this row."""
        return f"{self.experiment}/{self.case}/{self.variant}/{self.metric}"

    @property
    def claim(self) -> Claim | None:
        return as_claim(self.paper)

    def consistent(self) -> bool | None:
        """Whether ours agrees with the paper's claim; None without a claim or a number."""
        claim = self.claim
        return None if claim is None else claim.consistent(self.ours)

    def rel_diff(self) -> float | None:
        """Relative difference from the paper's value, or from the nearest end of its range
        or bound (0 inside)."""
        claim = self.claim
        return None if claim is None else claim.rel_diff(self.ours)


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
class Beside:
    """The same reproduction run a second time under another stack profile
    (`--beside PROFILE`), beside the primary run in one report."""

    profile: str
    #: Where that run's own report and figures go (``OUT/beside-PROFILE/``).
    out: Path
    #: That run's report; None when the reproduction refused the profile.
    report: Report | None = None
    #: Why it refused (the scenario error), e.g. RSFC needs timestamps that ns-2 leaves off.
    refused: str | None = None


@dataclass
class Report:
    paper: str
    title: str
    rows: list[Row] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    #: Free-form paragraphs: set-up, modelling differences, what is left out (numbers only
    #: through :class:`Note` placeholders, as in row notes).
    notes: list[str | Note] = field(default_factory=list)
    quick: bool = False
    #: Whether the paper module's quick verdicts were compared with the full run's
    #: (``QUICK_VERDICT_DIFFERS`` defined): then the rows that differ are marked.
    quick_checked: bool = False
    #: The stack profile of `--profile` (docs/profiles.md); None: the validated TCP rules.
    profile: str | None = None
    #: The run under `--beside`'s profile; None without `--beside`.
    beside: Beside | None = None

    def rules(self) -> str:
        """Which TCP rules this report's runs followed, for prose."""
        return "the validated TCP rules" if self.profile is None else f"profile `{self.profile}`"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"paper": self.paper}
        if self.profile is not None:
            out["profile"] = self.profile
        if self.beside is None:
            out["rows"] = [r.to_dict() for r in self.rows]
            return out
        from .beside import beside_json

        return out | beside_json(self.rows, self.beside)

    def unexplained(self) -> list[Row]:
        """Rows not consistent with the paper's claim (outside its range or bound, or more
        than 20% from its value) that carry no explanation of their own."""
        return [r for r in self.rows if r.consistent() is False and not r.note]

    def resolve_notes(self) -> None:
        """Fills every :class:`Note` (row notes and report paragraphs) from this run's rows,
        and refuses a note with a number typed in: every measured number must come from
        the rows, so a report cannot state another run's figures. Citations ("section
        2.4.2") and the paper's own values (the rows' claims) may be typed. Raises
        :class:`NoteError` listing every offence."""
        by_id: dict[str, Row] = {}
        for r in self.rows:
            by_id.setdefault(r.id, r)
        allowed: set[str] = set()
        for r in self.rows:
            if (c := r.claim) is not None:
                for v in c.numbers():
                    allowed |= number_forms(v)

        def lookup(row_id: str) -> float:
            r = by_id.get(row_id)
            if r is None or r.ours is None:
                raise NoteError(f"a note refers to row {row_id!r}, which this run does not have (or has no number)")
            return r.ours

        problems: list[str] = []

        def resolve(note: str | Note, where: str) -> str:
            text = note.literal_text() if isinstance(note, Note) else note
            stray = stray_numbers(text, allowed)
            if stray:
                problems.append(f"{where}: number(s) {', '.join(stray)} typed into the note instead of taken from "
                                f"this run's rows (use a placeholder, or Fact for a set-up input): {text[:100]!r}")
            try:
                return note.render(lookup) if isinstance(note, Note) else note
            except NoteError as e:
                problems.append(f"{where}: {e}")
                return ""

        for r in self.rows:
            if r.note:
                r.note = resolve(r.note, r.id)
        self.notes = [resolve(n, f"report note {i + 1}") for i, n in enumerate(self.notes)]
        if problems:
            raise NoteError("; ".join(problems))

    def markdown(self, out: Path) -> str:
        lines = [f"# Reproduction: {self.title}", "", f"Paper: {self.paper}", ""]
        if self.quick:
            n = sum(r.indicative for r in self.rows)
            lines += ["**Quick mode** (`--quick`): shortened runs and grids; numbers are indicative only.", ""] \
                if not self.quick_checked else ["**Quick mode** (`--quick`): shortened runs and grids. Each row's agreement with the paper is "
                      "the full run's, except on rows marked \"indicative in quick mode\"" +
                      (f" ({n} here), where the full run judges it differently." if n else
                       " (none here)."), ""]
        if self.profile is not None:
            lines += [f"**Stack profile `{self.profile}`** (`--profile`, docs/profiles.md): every run's TCP follows "
                      "that profile instead of the validated rules (RFC 6298 RTO, RFC 5681 FlightSize, send-time RTT "
                      "samples). The explanations in this report were written from runs under the validated rules: "
                      "where this run's rows differ, they may not describe it.", ""]
        # Each table line is a pair (this run's row, the beside run's); a row that one run
        # lacks is None there.
        pairs: list[tuple[Row | None, Row | None]] = [(r, None) for r in self.rows]
        beside_column = ""
        if self.beside is not None:
            from .beside import beside_section, pair_rows

            lines += beside_section(self, out)
            if self.beside.report is not None:
                pairs = pair_rows(self.rows, self.beside.report.rows)
                beside_column = f" ours ({self.beside.profile}) |"
        for n in self.notes:
            lines += [n, ""]
        by_exp: dict[str, list[tuple[Row, Row | None, Row | None]]] = {}
        for mine, theirs in pairs:
            named = mine if mine is not None else theirs
            assert named is not None
            by_exp.setdefault(named.experiment, []).append((named, mine, theirs))
        for exp, exp_rows in by_exp.items():
            lines += [f"## {exp}", "", f"| case | variant | metric | ours |{beside_column} paper | diff |",
                      "|---|---|---|---:|" + "---:|" * (3 if beside_column else 2)]
            notes = []
            for r, mine, theirs in exp_rows:
                d = mine.rel_diff() if mine is not None else None
                mark = ""
                if mine is not None and mine.note:
                    notes.append(mine.note)
                    mark = f" [{len(notes)}]"
                ours = _fmt(mine.ours if mine is not None else None)
                if beside_column:
                    ours += f" | {_fmt(theirs.ours if theirs is not None else None)}"
                lines.append(
                    f"| {r.case} | {r.variant} | {r.metric} ({r.unit}) | {ours} | {_paper(r)} | "
                    f"{_diff(mine, d)}{' (indicative in quick mode)' if mine is not None and mine.indicative else ''}{mark} |"
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
        written = [md, js] + [f.path for f in self.figures]
        if self.beside is not None and self.beside.report is not None:
            written += self.beside.report.write(self.beside.out)
        return written


def _paper(r: Row) -> str:
    """The paper column: a value, ``[lo, hi]``, ``>= lo`` or ``<= hi``."""
    c = r.claim
    return "—" if c is None else c.text(_fmt)


def _diff(r: Row | None, d: float | None) -> str:
    """The diff column: the relative difference from the value (or from the nearest end of
    a range or bound), "inside" a range or bound, and "**unexplained**" on a row that is
    not consistent with the paper and has no explanation of its own."""
    if r is None or d is None:
        return ""
    c = r.claim
    assert c is not None
    text = "inside" if not c.is_point and r.consistent() else f"{d * 100:+.0f}%"
    if r.consistent() is False and not r.note:
        text += " **unexplained**"
    return text


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
    "loss_detection": "dupthresh",
    "max_rto": "60s",
    "max_persist": "60s",
    "rto_on_fast_retransmit": "keep",
    "grow_on_recovery_exit": False,
    "ca_exact_increase": False,
}


class Context:
    """What a paper module gets: options, an output folder, and the runner of its grids
    (the sweep engine, :class:`tcplab.parallel.Engine`, on threads of this process)."""

    def __init__(self, *, quick: bool, out: Path, jobs: int, seed: int | None, progress: bool, engine: Engine | None = None,
                 profile: str | None = None, pass_name: str | None = None):
        self.quick = quick
        self.out = out
        self.jobs = max(1, jobs)
        self.seed = seed
        self.progress = progress
        self.engine = engine
        # None: the validated rules (VALIDATED_RULES); else a stack profile's name.
        self.profile = profile
        # Prefixes the progress lines when a reproduction runs twice (`--beside`), so the
        # two passes' identical grid labels can be told apart.
        self.pass_name = pass_name

    def scenario(self, paper: str, name: str, overrides: dict[str, Any] | None = None,
                 profile: str | None = None) -> Scenario:
        """``scenarios/<paper>/<name>.toml`` with the run's TCP rules (the validated ones,
        or ``--profile``'s; ``profile`` names a stack profile for this scenario alone, for
        a paper's model of another simulator) under ``[defaults.tcp]``, then ``overrides``
        (dotted keys)."""
        path = SCENARIOS / paper / f"{name}.toml"
        with open(path, "rb") as f:
            given = tomllib.load(f).get("defaults", {}).get("tcp", {})
        profile = profile or self.profile
        if profile is None:
            rules = {f"defaults.tcp.{k}": v for k, v in VALIDATED_RULES.items() if k not in given}
        else:
            rules = {"defaults.tcp.profile": profile}
        return load(path, rules | (overrides or {}))

    def run_all(self, jobs: Sequence[Scenario], label: str = "runs") -> list[Result]:
        """Runs scenarios on the engine, results in order of submission, with a progress
        line on a terminal. A run that breaks an invariant raises: its numbers must not
        enter a report."""
        n = len(jobs)
        show = self.progress and sys.stderr.isatty()
        if self.pass_name is not None:
            label = f"[{self.pass_name}] {label}"
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
              progress: bool = True, scheduler: Any = None, profile: str | None = None,
              beside: str | None = None) -> Report:
    """Runs a paper's experiments on one engine: ``jobs`` threads of a local Dask cluster
    in this process, or the workers of ``scheduler`` (an address or a Client). ``profile``
    (a stack profile's name, docs/profiles.md) replaces the validated TCP rules. ``beside``
    (another profile) runs everything a second time under it, on the same engine with the
    same seeds, into ``out/beside-<profile>/``: the report shows both (``Report.beside``)."""
    mods = registry()
    if paper not in mods:
        raise KeyError(paper)
    jobs = jobs or os.cpu_count() or 1
    out.mkdir(parents=True, exist_ok=True)

    def one_pass(eng: Engine, rules: str | None, folder: Path, pass_name: str | None) -> Report:
        ctx = Context(quick=quick, out=folder, jobs=jobs, seed=seed, progress=progress, engine=eng, profile=rules,
                      pass_name=pass_name)
        mod = mods[paper]
        rep = mod.reproduce(ctx)
        # Every paper module's notes take their numbers from the run's rows (issue 17).
        rep.resolve_notes()
        if quick and hasattr(mod, "QUICK_VERDICT_DIFFERS"):
            rep.quick_checked = True
            differs = set(mod.QUICK_VERDICT_DIFFERS)
            for r in rep.rows:
                r.indicative = r.id in differs
        rep.quick = quick
        rep.profile = rules
        return rep

    with Engine(jobs, scheduler, processes=False) as eng:
        if beside is None:
            return one_pass(eng, profile, out, None)
        rep = one_pass(eng, profile, out, f"1/2 {'validated rules' if profile is None else profile}")
        rep.beside = Beside(beside, out / f"beside-{beside}")
        rep.beside.out.mkdir(exist_ok=True)
        try:
            rep.beside.report = one_pass(eng, beside, rep.beside.out, f"2/2 {beside}")
        except (ScenarioError, SimulationError) as e:
            # The primary run took the same scenarios, so a scenario the second pass rejects
            # is one the profile cannot express (RSFC under ns2: no timestamps): a refusal
            # the report states, not a failure. A run that breaks an invariant or runs out
            # of events is a failure and propagates.
            if isinstance(e, SimulationError) and e.kind not in ("config", "trace"):
                raise
            # The reason names the scenario file: relative to the package, so the report does
            # not depend on where tcplab is installed.
            rep.beside.refused = str(e).replace(f"{SCENARIOS}{os.sep}", "scenarios/")
            with contextlib.suppress(OSError):
                rep.beside.out.rmdir()  # only if the refused pass left it empty
    return rep


@dataclass
class PaperClaim:
    where: str
    text: str
    rows: tuple


def every_case(rows, claim, *, experiment, case, variant, metric, unit=""):
    vals = [r for r in rows if r.ours is not None]
    pick = min if claim.hi is None else max
    w = pick(vals, key=lambda r: r.ours)
    return Row(experiment, case, variant, metric, unit, w.ours, claim, note=Note("worst case: {c}", c=Fact(w.case)))
