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
import datetime
import fnmatch
import json
import math
import os
import subprocess
import sys
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..errors import InvalidRunError, ScenarioError, SimulationError
from ..parallel import Engine
from ..runner import Result, run
from ..scenario import Scenario, load
from .claims import MARGINAL_REL, POINT_TOLERANCE, Claim, Fact, Note, NoteError, PaperClaim, as_claim, number_forms, stray_numbers

__all__ = ["Claim", "Fact", "Note", "NoteError", "PaperClaim", "Row", "Report", "Figure", "Context", "every_case"]

#: The scenario files ship inside the package (``tcplab/scenarios/<paper>/``), so the
#: reproductions run from an installed wheel as from a checkout.
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"

#: Where each paper's record of its last quick-against-full check lives
#: (`python -m tcplab.experiments.quick_vs_full PAPER --write`).
QUICK_CHECKS = Path(__file__).resolve().parent / "quick_checks"

#: A row's status (:meth:`Row.status`), worst first: how a claim's rows are summed up.
STATUSES = ("unexplained", "explained", "marginal", "consistent")


@dataclass
class Row:
    """One number compared with the paper."""

    experiment: str
    case: str
    variant: str
    metric: str
    unit: str
    ours: float | None
    #: The criterion: a :class:`Claim` (a value with its tolerance and reason, a range, a
    #: bound, a delay from a cause), a bare number (a value within the default tolerance,
    #: flagged as given without a reason), or None. The paper's, unless ``source`` says whose.
    paper: float | Claim | None = None
    #: Why ours differs from the criterion, written for this row. A :class:`Note` is filled
    #: from this run's rows when the report is made (:meth:`Report.resolve_notes`); it
    #: explains the row only if it reads another measured row of the run (an ablation, a
    #: counter, a second seed or simulator): one that restates the row's own number, only
    #: quotes the paper, or a plain string (which may hold no number) leaves it unexplained.
    note: str | Note = ""
    #: Set by the framework in quick mode on rows whose consistency with the criterion the
    #: recorded full run judged differently (``quick_checks/PAPER.json``, written by
    #: `python -m tcplab.experiments.quick_vs_full PAPER --write`): shown as indicative only.
    indicative: bool = field(default=False, kw_only=True)
    #: Set by the framework in quick mode on rows with a criterion that the recorded check
    #: lacks, or whose quick verdict is no longer the recorded one (the code changed since).
    unchecked: bool = field(default=False, kw_only=True)
    #: Whose criterion ``paper`` is when it is not the paper's: a threshold of ours, a
    #: variant of ours, another paper's number ("ours: docs/rsfc.md", "Sprout, NSDI 2013,
    #: Fig. 7"). The report shows it in a column of its own.
    source: str | None = field(default=None, kw_only=True)
    #: The measured noise of ``ours`` (absolute, in the row's unit: the difference between
    #: two seeds, or the spread over the seeds run). A verdict within it of the criterion's
    #: threshold is "marginal"; without it, one within MARGINAL_REL of the threshold is.
    spread: float | None = field(default=None, kw_only=True)
    #: For a row built by :func:`every_case`: the ids of the rows it is the minimum or
    #: maximum of, the worst first.
    over: tuple[str, ...] = field(default=(), kw_only=True)
    #: Set by :meth:`Report.resolve_notes`: the other rows the note read (its evidence).
    evidence: tuple[str, ...] = field(default=(), kw_only=True)
    #: A yes/no judgement of one of the paper's claims (``ours`` 1.0: it holds, 0.0: it does
    #: not): what `--beside` lists first when it changes. Written to JSON only beside another
    #: run, so the JSON of a plain reproduction stays as it was. (Both flags are keyword-only:
    #: given by position, a module's ``verdict`` once landed in ``indicative``.)
    verdict: bool = field(default=False, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        claim = self.claim
        d["paper"] = None if claim is None else claim.to_json()
        if claim is not None:
            d["consistent"] = claim.consistent(self.ours)
            d["status"] = self.status()
            if (tol := claim.tolerance_json()) is not None:
                d["tolerance"] = tol
            if claim.why:
                d["why"] = claim.why
            if claim.cause:
                d["cause"] = claim.cause
        if not self.note:
            del d["note"]
        elif isinstance(self.note, Note):
            raise NoteError(f"{self.id}: the note was not resolved (Report.resolve_notes)")
        del d["verdict"]
        for flag in ("indicative", "unchecked"):
            if not d[flag]:
                del d[flag]
        for opt in ("source", "spread"):
            if d[opt] is None:
                del d[opt]
        d["over"] = list(self.over)
        if not self.over:
            del d["over"]
        del d["evidence"]
        if self.status() == "explained":
            d["explained_by"] = list(self.evidence)
        return d

    @property
    def id(self) -> str:
        """``experiment/case/variant/metric``: how notes refer to this row."""
        return f"{self.experiment}/{self.case}/{self.variant}/{self.metric}"

    @property
    def claim(self) -> Claim | None:
        if self.verdict and isinstance(self.paper, (int, float)):
            # A yes/no judgement holds or it does not: no tolerance.
            return Claim.value(float(self.paper), abs_tol=0.0, why="a yes/no judgement of the claim")
        return as_claim(self.paper)

    def consistent(self) -> bool | None:
        """Whether ours agrees with the paper's claim; None without a claim or a number."""
        claim = self.claim
        return None if claim is None else claim.consistent(self.ours)

    def marginal(self) -> bool:
        """Whether the verdict is within noise of the criterion's threshold: within the
        measured ``spread``, or without one within MARGINAL_REL of the threshold."""
        claim = self.claim
        if claim is None:
            return False
        m = claim.margin(self.ours)
        if m is None:
            return False
        if self.spread is not None:
            return m <= abs(self.spread)
        assert self.ours is not None
        near = min(claim.ends(), key=lambda e: abs(self.ours - e))  # type: ignore[operator]
        return m <= MARGINAL_REL * abs(near)

    def status(self) -> str | None:
        """None (no criterion, or no number), ``"consistent"``, ``"marginal"`` (either way,
        within noise of the threshold), ``"explained"`` (not consistent, and the note reads
        another measured row) or ``"unexplained"``."""
        ok = self.consistent()
        if ok is None:
            return None
        if self.marginal():
            return "marginal"
        if ok:
            return "consistent"
        return "explained" if self.evidence and self.note else "unexplained"

    def rel_diff(self) -> float | None:
        """Relative difference from the paper's value, or from the nearest end of its range
        or bound (0 inside)."""
        claim = self.claim
        return None if claim is None else claim.rel_diff(self.ours)


@dataclass
class Cost:
    """What a reproduction's runs cost in units no machine moves (issue 35: a test bounds
    these, never a wall or CPU time): runs, simulated events, simulated seconds."""

    runs: int = 0
    events: int = 0
    simulated_s: float = 0.0

    def add(self, summary: dict[str, Any]) -> None:
        self.runs += 1
        self.events += int(summary.get("events", 0))
        self.simulated_s += float(summary.get("duration_s", 0.0))


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
    #: What the beside column is, when the paper module adds its agent's keys to the
    #: profile (the module's ``BESIDE``): "ns-2.35 Agent/TCP/Linux as bench/ns2-compare ...".
    agent: str | None = None
    #: That run's report; None when the reproduction refused the profile.
    report: Report | None = None
    #: Why it refused (the scenario error), e.g. RSFC needs timestamps that ns-2 leaves off.
    refused: str | None = None

    def column(self) -> str:
        """The beside column's heading: what the numbers are, the paper's agent under the
        profile, or the profile's rules alone (which are not any simulator's agent)."""
        return f"ours ({self.profile} agent)" if self.agent else f"ours ({self.profile} profile only)"


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
    #: The stack profile of `--profile` (docs/profiles.md); None: the validated TCP rules.
    profile: str | None = None
    #: The run under `--beside`'s profile; None without `--beside`.
    beside: Beside | None = None
    #: Every claim of the paper's abstract, evaluation and conclusion (the module's
    #: ``CLAIMS``), each with the rows that test it; empty: the module lists none.
    claims: list[PaperClaim] = field(default_factory=list)
    #: What the runs cost, in units the machine cannot move: runs, simulated events and
    #: simulated seconds (:class:`Cost`).
    cost: Cost | None = None
    #: Quick mode: the recorded quick-against-full check the rows were compared with
    #: (``quick_checks/PAPER.json``: date, commit); None: no record.
    quick_record: dict[str, Any] | None = None

    def rules(self) -> str:
        """Which TCP rules this report's runs followed, for prose."""
        return "the validated TCP rules" if self.profile is None else f"profile `{self.profile}`"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"paper": self.paper}
        if self.profile is not None:
            out["profile"] = self.profile
        out["summary"] = self.summary()
        if self.claims:
            out["claims"] = [{"where": c.where, "text": c.text, "rows": list(c.rows), "status": st,
                              "matched": [r.id for r in rs]} for c, rs, st in self.claim_verdicts()]
        if self.cost is not None:
            out["cost"] = asdict(self.cost)
        if self.quick:
            out["quick_check"] = self.quick_check()
        if self.beside is None:
            out["rows"] = [r.to_dict() for r in self.rows]
            return out
        from .beside import beside_json

        return out | beside_json(self.rows, self.beside)

    def unexplained(self) -> list[Row]:
        """Rows not consistent with their criterion whose note, if any, reads no other
        measured row of the run (:meth:`Row.status`)."""
        return [r for r in self.rows if r.status() == "unexplained"]

    def summary(self) -> dict[str, int]:
        """The counts of the report's top line: rows with a criterion, the paper's and
        other sources', each status, and value claims given without a reason."""
        judged = [r for r in self.rows if r.status() is not None]
        out = {"criteria": len(judged), "paper": sum(r.source is None for r in judged),
               "other_sources": sum(r.source is not None for r in judged)}
        for st in reversed(STATUSES):
            out[st] = sum(r.status() == st for r in judged)
        out["no_number"] = sum(r.claim is not None and r.status() is None for r in self.rows)
        out["reasonless_tolerance"] = sum(r.claim is not None and r.claim.reasonless for r in self.rows)
        if self.claims:
            verdicts = self.claim_verdicts()
            out["paper_claims"] = len(verdicts)
            out["paper_claims_without_rows"] = sum(st is None for _, _, st in verdicts)
        return out

    def summary_line(self) -> str:
        s = self.summary()
        line = (f"**Claims**: {s['criteria']} rows with a criterion ({s['paper']} the paper's, {s['other_sources']} "
                f"other sources): {s['consistent']} consistent, {s['marginal']} marginal (within noise of the "
                f"threshold), {s['explained']} explained by measurement, {s['unexplained']} unexplained.")
        if s["no_number"]:
            line += f" {s['no_number']} with a criterion have no number of ours."
        if s["reasonless_tolerance"]:
            line += (f" {s['reasonless_tolerance']} value claims use the default ±{POINT_TOLERANCE:.0%} without a "
                     "reason (tolerance without a reason).")
        if "paper_claims" in s:
            line += f" The paper's claims listed: {s['paper_claims']}"
            line += (f", {s['paper_claims_without_rows']} without a row in this run." if s["paper_claims_without_rows"]
                     else ", each with its rows.")
        return line

    def claim_verdicts(self) -> list[tuple[PaperClaim, list[Row], str | None]]:
        """Each listed claim of the paper, the rows with a criterion its patterns match, and
        their worst status (None: no such row in this run)."""
        out = []
        for c in self.claims:
            rs = [r for r in self.rows if r.claim is not None and any(fnmatch.fnmatchcase(r.id, p) for p in c.rows)]
            sts = {r.status() for r in rs}
            worst = next((st for st in STATUSES if st in sts), None)
            out.append((c, rs, worst))
        return out

    def check_claims(self) -> None:
        """A full run must test every claim it lists: a claim whose patterns match no row
        with a criterion is a defect of the paper module (quick mode lists it as "not in
        quick mode")."""
        missing = [c for c, _, st in self.claim_verdicts() if st is None]
        if missing and not self.quick:
            raise NoteError("claims of the paper with no row to test them in this run: " +
                            "; ".join(f"{c.where}: {c.text[:60]!r} ({', '.join(c.rows)})" for c in missing))

    def quick_check(self) -> dict[str, Any]:
        """What the quick rows were checked against: the record's date and commit, how many
        rows it checked, and the ids of the rows it judged differently and of those it did
        not check (or whose quick verdict changed since)."""
        rec = self.quick_record or {}
        return {"date": rec.get("date"), "commit": rec.get("commit"),
                "checked": sum(r.claim is not None and not r.unchecked for r in self.rows),
                "differs": [r.id for r in self.rows if r.indicative],
                "unchecked": [r.id for r in self.rows if r.unchecked]}

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

        read: set[str] = set()

        def lookup(row_id: str) -> float:
            r = by_id.get(row_id)
            if r is None or r.ours is None:
                raise NoteError(f"a note refers to row {row_id!r}, which this run does not have (or has no number)")
            read.add(row_id)
            return r.ours

        problems: list[str] = []

        def resolve(note: str | Note, where: str) -> str:
            read.clear()
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
                # The note's evidence: the other measured rows it read (its own number
                # restated explains nothing).
                r.evidence = tuple(sorted(read - {r.id}))
        self.notes = [resolve(n, f"report note {i + 1}") for i, n in enumerate(self.notes)]
        if problems:
            raise NoteError("; ".join(problems))

    def markdown(self, out: Path) -> str:
        lines = [f"# Reproduction: {self.title}", "", f"Paper: {self.paper}", "", self.summary_line(), ""]
        if self.quick:
            lines += self._quick_lines()
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
                beside_column = f" {self.beside.column()} |"
        for n in self.notes:
            lines += [n, ""]
        if self.claims:
            lines += self._claims_lines()
        by_exp: dict[str, list[tuple[Row, Row | None, Row | None]]] = {}
        for mine, theirs in pairs:
            named = mine if mine is not None else theirs
            assert named is not None
            by_exp.setdefault(named.experiment, []).append((named, mine, theirs))
        for exp, exp_rows in by_exp.items():
            # Criteria that are not the paper's (ours, another paper's) get a column of
            # their own, with their sources under the table.
            sourced = any(m is not None and m.source is not None for _, m, _ in exp_rows)
            crit_col = " criterion (not the paper's) |" if sourced else ""
            lines += [f"## {exp}", "", f"| case | variant | metric | ours |{beside_column} paper |{crit_col} diff |",
                      "|---|---|---|---:|" + "---:|" * (2 + bool(beside_column) + sourced)]
            notes: list[str] = []
            sources: list[str] = []
            for r, mine, theirs in exp_rows:
                d = mine.rel_diff() if mine is not None else None
                mark = ""
                if mine is not None and mine.note:
                    notes.append(mine.note)  # type: ignore[arg-type]
                    mark = f" [{len(notes)}]"
                ours = _fmt(mine.ours if mine is not None else None)
                if beside_column:
                    ours += f" | {_fmt(theirs.ours if theirs is not None else None)}"
                paper, crit = _paper(r), ""
                if sourced:
                    if r.source is not None:
                        if r.source not in sources:
                            sources.append(r.source)
                        paper, crit = "—", f"{_paper(r)} [c{sources.index(r.source) + 1}]"
                    else:
                        crit = "—"
                    crit = f" {crit} |"
                flags = ""
                if mine is not None and mine.indicative:
                    flags += " (indicative in quick mode)"
                if mine is not None and mine.unchecked:
                    flags += " (unchecked in quick mode)"
                if mine is not None and mine.over:
                    flags += f" (worst of {len(mine.over)}: {mine.over[0]})"
                lines.append(f"| {r.case} | {r.variant} | {r.metric} ({r.unit}) | {ours} | {paper} |{crit} "
                             f"{_diff(mine, d)}{flags}{mark} |")
            lines.append("")
            for i, n in enumerate(notes, 1):
                lines.append(f"[{i}] {n}  ")
            for i, src in enumerate(sources, 1):
                lines.append(f"[c{i}] criterion of {src}  ")
            if notes or sources:
                lines.append("")
        for f in self.figures:
            rel = os.path.relpath(f.path, out)
            lines += [f"![{f.caption}]({rel})", "", f"*{f.caption}*", ""]
        return "\n".join(lines)

    def _quick_lines(self) -> list[str]:
        q = self.quick_check()
        if self.quick_record is None:
            return ["**Quick mode** (`--quick`): shortened runs and grids. These rows were **not checked** against a full "
                    "run (no record in `quick_checks/`): every verdict is indicative only.", ""]
        text = (f"**Quick mode** (`--quick`): shortened runs and grids. Checked against a full run on "
                f"{q['date']} (commit `{q['commit']}`, `python -m tcplab.experiments.quick_vs_full --write`): "
                f"{q['checked']} rows with a criterion checked; ")
        text += (f"{len(q['differs'])} of them judged differently by the full run (marked \"indicative in quick "
                 f"mode\")" if q["differs"] else "the full run judges each of them the same")
        if q["unchecked"]:
            text += (f"; {len(q['unchecked'])} rows are **unchecked**: the record lacks them, or their quick verdict "
                     "changed since the check (marked \"unchecked in quick mode\")")
        return [text + ".", ""]

    def _claims_lines(self) -> list[str]:
        lines = ["## The paper's claims", "",
                 "Every claim of the paper's abstract, evaluation and conclusion, the rows that test it and their worst "
                 "status.", "", "| where | claim | rows | status |", "|---|---|---:|---|"]
        for c, rs, st in self.claim_verdicts():
            word = st if st is not None else ("not in quick mode" if self.quick else "**no row**")
            if st == "unexplained":
                word = "**unexplained**"
            text = c.text.replace("|", "\\|")
            lines.append(f"| {c.where} | {text} | {len(rs)} | {word} |")
        return lines + [""]

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
    a range or bound), "inside" a range or bound, then the status where it is not plain
    consistency: "marginal", "explained" (its note reads a measured row) or
    "**unexplained**"."""
    if r is None or d is None:
        return ""
    c = r.claim
    assert c is not None
    text = "inside" if not c.is_point and r.consistent() else f"{d * 100:+.0f}%"
    st = r.status()
    if st == "unexplained":
        text += " **unexplained**"
    elif st == "marginal":
        m = c.margin(r.ours)
        assert m is not None
        noise = f"spread {r.spread:.3g}" if r.spread is not None else "no spread measured"
        text += f" marginal ({m:.3g} from the threshold, {noise})"
    elif st == "explained":
        text += " explained"
    if c.reasonless:
        text += " (tolerance without a reason)"
    return text


def every_case(rows: Sequence[Row], claim: Claim, *, experiment: str, case: str, variant: str, metric: str,
               unit: str, note: str | Note = "", source: str | None = None) -> Row:
    """A claim over all cases ("86% and more in all cases") as one row: ours is the minimum
    over ``rows`` for an at-least bound, the maximum for an at-most bound, and the row
    names the cases it covers, the worst first."""
    if claim.is_point or (claim.lo is not None and claim.hi is not None):
        raise ValueError("every_case takes a one-sided bound (Claim.at_least or Claim.at_most)")
    have = [r for r in rows if r.ours is not None and not (isinstance(r.ours, float) and math.isnan(r.ours))]
    if not have:
        raise ValueError(f"every_case {experiment}/{case}: no row with a number")
    low = claim.hi is None
    ordered = sorted(have, key=lambda r: r.ours if low else -r.ours)  # type: ignore[arg-type, operator]
    return Row(experiment, case, variant, metric, unit, ordered[0].ours, claim, note, source=source,
               over=tuple(r.id for r in ordered))


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
                 profile: str | None = None, pass_name: str | None = None, agent: dict[str, Any] | None = None):
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
        # The paper's agent under the profile (the module's BESIDE keys, dotted): applied
        # after the profile, before the scenario file's own [defaults.tcp] keys.
        self.agent = agent or {}
        # Shared by shallow copies (a module's second-seed context), so every run counts.
        self.cost = Cost()

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
            rules |= {k: v for k, v in self.agent.items() if k.removeprefix("defaults.tcp.") not in given}
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
                    self.cost.add(r.summary)  # type: ignore[union-attr]
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

    mod = mods[paper]
    agents: dict[str, tuple[dict[str, Any], str]] = getattr(mod, "BESIDE", {})

    def one_pass(eng: Engine, rules: str | None, folder: Path, pass_name: str | None, agent: dict[str, Any] | None = None
                 ) -> Report:
        ctx = Context(quick=quick, out=folder, jobs=jobs, seed=seed, progress=progress, engine=eng, profile=rules,
                      pass_name=pass_name, agent=agent)
        rep = mod.reproduce(ctx)
        # Every paper module's notes take their numbers from the run's rows (issue 17).
        rep.resolve_notes()
        rep.quick = quick
        rep.profile = rules
        rep.cost = ctx.cost
        rep.claims = list(getattr(mod, "CLAIMS", ()))
        rep.check_claims()
        if quick:
            apply_quick_record(rep, load_quick_record(paper))
        return rep

    with Engine(jobs, scheduler, processes=False) as eng:
        if beside is None:
            return one_pass(eng, profile, out, None)
        rep = one_pass(eng, profile, out, f"1/2 {'validated rules' if profile is None else profile}")
        keys, agent = agents.get(beside, ({}, None))
        rep.beside = Beside(beside, out / f"beside-{beside}", agent)
        rep.beside.out.mkdir(exist_ok=True)
        try:
            rep.beside.report = one_pass(eng, beside, rep.beside.out, f"2/2 {beside}", keys)
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


def load_quick_record(paper: str) -> dict[str, Any] | None:
    """The paper's recorded quick-against-full check, or None."""
    path = QUICK_CHECKS / f"{paper}.json"
    if not path.exists():
        return None
    with open(path) as f:
        return json.load(f)


def row_keys(rows: Iterable[Row]) -> list[str]:
    """Each row's key in a quick-check record: its id, and ``#k`` for the k-th repeat of an
    id (rows match by occurrence, as `--beside` pairs them)."""
    seen: dict[str, int] = {}
    out = []
    for r in rows:
        k = seen.get(r.id, 0)
        seen[r.id] = k + 1
        out.append(r.id if k == 0 else f"{r.id}#{k + 1}")
    return out


def apply_quick_record(rep: Report, record: dict[str, Any] | None) -> None:
    """Marks a quick report's rows from the record: indicative where the full run judged
    the row's consistency differently, unchecked where the record lacks the row or its
    quick verdict is no longer the recorded one."""
    rep.quick_record = record
    recorded = (record or {}).get("rows", {})
    for key, r in zip(row_keys(rep.rows), rep.rows):
        if r.claim is None:
            continue
        rec = recorded.get(key)
        if rec is None or rec.get("quick") != r.consistent():
            r.unchecked = True
        else:
            r.indicative = rec.get("full") != rec.get("quick")


def quick_record(paper: str, quick: Report, full: Report) -> dict[str, Any]:
    """The record `quick_vs_full --write` stores: each quick row with a criterion, its
    consistency in the quick and in the full run (None: no number, or no such full row)."""
    full_by_key = dict(zip(row_keys(full.rows), full.rows))
    rows: dict[str, dict[str, Any]] = {}
    for key, r in zip(row_keys(quick.rows), quick.rows):
        if r.claim is None:
            continue
        f = full_by_key.get(key)
        rows[key] = {"quick": r.consistent(), "full": None if f is None else f.consistent()}
    try:
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return {"paper": paper, "date": datetime.date.today().isoformat(), "commit": commit, "rows": rows}
