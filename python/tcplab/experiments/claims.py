"""What a paper states, and explanations whose numbers come from the run (issue 17:
"reports that cannot lie by accident").

A reproduction row compares our number with the paper's. The paper's side is a
:class:`Claim`, encoded as the paper states it (issue 35): a value read from its text or a
figure, within a tolerance that the claim gives with its reason ("1.45 Mbit/s", read off a
figure: ±10%), an event as a delay from its cause, a range ("2 to 4 times": ``[2, 4]``) or a
bound ("at least 75%": ``>= 0.75``), consistent only inside. A row that is not consistent is
explained only by a note that reads another measured row (the report's ``explained``);
otherwise it is ``unexplained``, and the report counts it. :class:`PaperClaim` lists a
paper's claims with the rows that test them.

Explanations are :class:`Note` templates: every measured number in one is a placeholder
filled from this run's rows when the report is made, so a note cannot state a figure from
another run (the full run's, in a quick report) or one typed by hand that has since gone
stale. :func:`stray_numbers` finds numbers typed into a note's text; the report refuses a
note that has one, except citations ("section 2.4.2", "Algorithm 4 line 15", "RFC 6582")
and the paper's own values (the claims of the report's rows). Set-up facts (a buffer size,
an RTT of the scenario) are given as :class:`Fact` placeholders, named, so that a reader of
the module sees they are inputs, not results.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass, field
from typing import Callable, Mapping

#: A point value given without a tolerance of its own (a bare number, or ``Claim.value(v)``)
#: is consistent with ours within this relative difference; the report flags such a claim
#: ("tolerance without a reason", issue 35): a tolerance belongs to the claim, with its reason.
POINT_TOLERANCE = 0.20

#: Without a measured spread (``Row.spread``), a verdict whose distance to the claim's
#: nearest end is within this fraction of that end is "marginal": within noise of its
#: threshold, neither a firm pass nor a firm fail.
MARGINAL_REL = 0.01


@dataclass(frozen=True)
class Claim:
    """The paper's side of a row: a value (``lo == hi``) within a relative tolerance
    ``tol`` or an absolute one ``abs_tol``, a range ``[lo, hi]`` or a one-sided bound
    (``lo`` or ``hi`` None), inclusive. ``why`` says where the claim and its tolerance come
    from (a value read off a figure's gridlines is not a value stated in the text); ``cause``
    marks an event claim whose number is a delay from that cause (:meth:`delay`)."""

    lo: float | None
    hi: float | None
    tol: float | None = None
    abs_tol: float | None = None
    why: str | None = None
    cause: str | None = None

    @staticmethod
    def value(v: float, tol: float | None = None, abs_tol: float | None = None, why: str | None = None) -> Claim:
        """A point value: consistent within ``tol`` (relative) or ``abs_tol`` (absolute, in
        the row's unit). Without either, :data:`POINT_TOLERANCE`, flagged unless ``why``
        gives its reason."""
        if tol is not None and abs_tol is not None:
            raise ValueError("a value has one tolerance: tol (relative) or abs_tol (absolute)")
        for t in (tol, abs_tol):
            if t is not None and not t >= 0:
                raise ValueError(f"a tolerance is >= 0, got {t}")
        return Claim(v, v, tol, abs_tol, why)

    @staticmethod
    def delay(v: float, abs_tol: float, cause: str, why: str | None = None) -> Claim:
        """An event as the paper states it, a delay from its cause ("restarts 10 s after the
        resume"): the row's ``ours`` is our event time less our cause's time, never the
        absolute event time (which would pass within a tolerance relative to the whole run)."""
        if not cause:
            raise ValueError("a delay claim names its cause")
        return Claim(v, v, None, abs_tol, why, cause)

    @staticmethod
    def between(lo: float, hi: float, why: str | None = None) -> Claim:
        if lo > hi:
            raise ValueError(f"a range needs lo <= hi, got [{lo}, {hi}]")
        return Claim(lo, hi, why=why)

    @staticmethod
    def at_least(v: float, why: str | None = None) -> Claim:
        return Claim(v, None, why=why)

    @staticmethod
    def at_most(v: float, why: str | None = None) -> Claim:
        return Claim(None, v, why=why)

    @property
    def is_point(self) -> bool:
        return self.lo is not None and self.lo == self.hi

    @property
    def point_tolerance(self) -> float:
        """The relative tolerance of a value claim without an absolute one."""
        return POINT_TOLERANCE if self.tol is None else self.tol

    @property
    def reasonless(self) -> bool:
        """A value whose tolerance is the default one, given without a reason."""
        return self.is_point and self.tol is None and self.abs_tol is None and not self.why

    def ends(self) -> list[float]:
        """The thresholds a verdict is decided at: a range's or bound's ends, a value's
        ``v ± tolerance``."""
        if self.is_point:
            assert self.lo is not None
            if self.abs_tol == 0:
                return []  # an exact value (a yes/no verdict): no threshold to be near
            if self.abs_tol is not None:
                return [self.lo - self.abs_tol, self.lo + self.abs_tol]
            if self.lo == 0:
                return []
            t = self.point_tolerance * abs(self.lo)
            return [self.lo - t, self.lo + t]
        return [v for v in (self.lo, self.hi) if v is not None]

    def consistent(self, ours: float | None) -> bool | None:
        """Whether ours agrees with the claim; None without a number of ours."""
        if ours is None or (isinstance(ours, float) and math.isnan(ours)):
            return None
        if self.is_point:
            assert self.lo is not None
            if self.abs_tol is not None:
                return abs(ours - self.lo) <= self.abs_tol
            if self.lo == 0:
                return ours == 0
            return abs(ours / self.lo - 1.0) <= self.point_tolerance
        return (self.lo is None or ours >= self.lo) and (self.hi is None or ours <= self.hi)

    def margin(self, ours: float | None) -> float | None:
        """The distance (in the row's unit) from ours to the nearest threshold of the
        verdict; None without a number or a threshold."""
        if ours is None or (isinstance(ours, float) and (math.isnan(ours) or math.isinf(ours))):
            return None
        ends = self.ends()
        return min(abs(ours - e) for e in ends) if ends else None

    def rel_diff(self, ours: float | None) -> float | None:
        """Relative difference of ours from the value, or from the nearest end of a range or
        bound when outside it (0 inside)."""
        if ours is None or (isinstance(ours, float) and math.isnan(ours)):
            return None
        for end, outside in ((self.lo, ours < (self.lo if self.lo is not None else -math.inf)),
                             (self.hi, ours > (self.hi if self.hi is not None else math.inf))):
            if outside and end is not None:
                return None if end == 0 else ours / end - 1.0
        if self.is_point:
            assert self.lo is not None
            return None if self.lo == 0 else ours / self.lo - 1.0
        return 0.0

    def to_json(self) -> float | dict[str, float]:
        """A value as a bare number (as before ranges existed), a range or bound as
        ``{"min": lo, "max": hi}`` with the open end left out. The tolerance and its reason
        are the row's ``tolerance`` and ``why`` (:meth:`Row.to_dict`)."""
        if self.is_point:
            assert self.lo is not None
            return self.lo
        out = {}
        if self.lo is not None:
            out["min"] = self.lo
        if self.hi is not None:
            out["max"] = self.hi
        return out

    def tolerance_json(self) -> dict[str, float] | None:
        """A value's tolerance as rows.json gives it: ``{"rel": t}`` or ``{"abs": t}``."""
        if not self.is_point:
            return None
        return {"abs": self.abs_tol} if self.abs_tol is not None else {"rel": self.point_tolerance}

    def text(self, fmt: Callable[[float | None], str]) -> str:
        if self.is_point:
            if self.abs_tol == 0:
                s = fmt(self.lo)
            elif self.abs_tol is not None:
                s = f"{fmt(self.lo)} ± {fmt(self.abs_tol)}"
            else:
                s = f"{fmt(self.lo)} ± {self.point_tolerance * 100:g}%"
            return s + (f" after {self.cause}" if self.cause else "")
        if self.hi is None:
            return f">= {fmt(self.lo)}"
        if self.lo is None:
            return f"<= {fmt(self.hi)}"
        return f"[{fmt(self.lo)}, {fmt(self.hi)}]"

    def numbers(self) -> list[float]:
        return [v for v in (self.lo, self.hi, self.abs_tol) if v is not None]


@dataclass(frozen=True)
class PaperClaim:
    """One claim of the paper (its abstract, evaluation or conclusion), where it is made,
    its words, and the rows that test it: row ids ``experiment/case/variant/metric`` or
    :mod:`fnmatch` patterns of them. Each paper module lists them all in ``CLAIMS``, so a
    claim without a row is visible (issue 35, class 4)."""

    where: str
    text: str
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if isinstance(self.rows, str):
            raise TypeError("PaperClaim.rows is a tuple of row ids or patterns, not one string")
        if not self.rows:
            raise ValueError(f"a claim with no row to test it: {self.text[:60]!r}")


def as_claim(paper: float | Claim | None) -> Claim | None:
    if paper is None or isinstance(paper, Claim):
        return paper
    return Claim.value(float(paper))


@dataclass(frozen=True)
class Fact:
    """A set-up fact a note states (an input of the scenario or a constant of a standard,
    not a result): ``Fact(530, "ms")`` renders ``530 ms``; a name (a case, a variant) is
    given as a string."""

    value: float | str
    unit: str = ""

    def render(self, spec: str) -> str:
        if isinstance(self.value, str):
            return self.value
        v = format(self.value, spec) if spec else _plain(self.value)
        return f"{v} {self.unit}" if self.unit else v


#: What a placeholder of a :class:`Note` stands for: a row id
#: ``"experiment/case/variant/metric"`` (the row's ``ours``), a :class:`Fact`, or a
#: function of a lookup (row id -> ours) for a number derived from several rows.
Ref = str | Fact | Callable[[Callable[[str], float]], float]


class NoteError(ValueError):
    """A note that states a number not from this run, or refers to a row the run lacks."""


@dataclass(frozen=True)
class Note:
    """An explanation with placeholders (``str.format`` syntax, ``{name}`` or
    ``{name:.0%}``) filled from this run's rows when the report is rendered."""

    text: str
    refs: Mapping[str, Ref] = field(default_factory=dict)

    def __init__(self, text: str, **refs: Ref):
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "refs", refs)

    def literal_text(self) -> str:
        """The note's words without its placeholders: where typed numbers would be."""
        return " ".join(lit for lit, _, _, _ in string.Formatter().parse(self.text))

    def render(self, lookup: Callable[[str], float]) -> str:
        """The text with every placeholder filled; ``lookup`` gives a row's ``ours`` by id
        (and raises :class:`NoteError` for a row this run does not have). Which rows it read
        is what the report takes as the note's evidence (:meth:`Report.resolve_notes`)."""
        out = []
        for lit, name, spec, _conv in string.Formatter().parse(self.text):
            out.append(lit)
            if name is None:
                continue
            if name not in self.refs:
                raise NoteError(f"note placeholder {{{name}}} has no reference: {self.text[:80]!r}")
            ref = self.refs[name]
            if isinstance(ref, Fact):
                out.append(ref.render(spec or ""))
                continue
            v = lookup(ref) if isinstance(ref, str) else ref(lookup)
            out.append(format(v, spec) if spec else _plain(v))
        return "".join(out)


def _plain(v: float) -> str:
    """A number as a note shows it by default: 3 significant digits, integers whole."""
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) < 1e6):
        return str(int(v))
    return f"{v:.3g}"


# Citations and names that carry numbers without being measurements: "section 2.4.2",
# "Algorithm 4 line 15", "Figures 6(b) and 7", "eqs. 3-5", "RFC 6582", "scenarios 1 and 3".
_CITATION = re.compile(
    r"\b(?:[Ss]ections?|§|[Aa]lgorithms?|lines?|[Ee]qs?\.|[Ee]quations?|[Ff]igs?\.|[Ff]igures?|[Tt]ables?|RFCs?"
    r"|[Ss]cenarios?|[Cc]hapters?|[Ss]teps?|[Ii]ssues?|[Aa]ppendix|Linux|[Vv]ersion)"
    r"\s+\d[\d.]*[a-z]?(?:\([a-z]\))?"
    r"(?:\s*(?:-|–|to|and|or|,)\s*\d[\d.]*[a-z]?(?:\([a-z]\))?)*"
)
# A number standing on its own: not glued to a name ("ns-2", "TCP_4", "p95", "x86_64").
_NUMBER = re.compile(r"(?<![\w.])(?<![A-Za-z]-)\d+(?:[.,]\d+)*(?![\w])|(?<![\w.])\.\d+")


def stray_numbers(text: str, allowed: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Numbers typed into ``text`` (a note without its placeholders) that are neither
    citations nor in ``allowed`` (the paper's values, as :func:`number_forms` writes them)."""
    bare = _CITATION.sub(" ", text)
    return [m.group(0) for m in _NUMBER.finditer(bare) if m.group(0).replace(",", "") not in allowed]


def number_forms(v: float) -> set[str]:
    """How a paper value may be typed in a note: 328, 1.45, 0.85 and 85 (as a percentage)."""
    out = {_plain(v), f"{v:g}", repr(v)}
    if 0 < abs(v) <= 10:
        out |= {_plain(v * 100), f"{v * 100:g}"}
    return {s.lstrip("-") for s in out}
