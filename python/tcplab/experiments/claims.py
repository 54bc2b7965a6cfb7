"""What a paper states, and explanations whose numbers come from the run (issue 17:
"reports that cannot lie by accident").

A reproduction row compares our number with the paper's. The paper's side is a
:class:`Claim`: a value read from its text or a figure ("1.45 Mbit/s": consistent within
:data:`POINT_TOLERANCE`), a range ("2 to 4 times": ``[2, 4]``) or a bound ("at least 75%":
``>= 0.75``), consistent only inside. A row that is not consistent needs an explanation of
its own, attached to it by the paper module (no catch-all note).

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

#: A point value of the paper's (a number read from text or a figure) is consistent with
#: ours within this relative difference.
POINT_TOLERANCE = 0.20


@dataclass(frozen=True)
class Claim:
    """The paper's side of a row: a value (``lo == hi``, within :data:`POINT_TOLERANCE`), a
    range ``[lo, hi]`` or a one-sided bound (``lo`` or ``hi`` None), inclusive."""

    lo: float | None
    hi: float | None
    abs_tol: float | None = None
    why: str = ""

    @staticmethod
    def value(v: float, tol=None, abs_tol=None, why="") -> Claim:
        return Claim(v, v, abs_tol, why)

    @staticmethod
    def between(lo: float, hi: float, why="") -> Claim:
        return Claim(lo, hi, None, why)

    @staticmethod
    def at_least(v: float, why="") -> Claim:
        return Claim(v, None, None, why)

    @staticmethod
    def at_most(v: float, why="") -> Claim:
        return Claim(None, v, None, why)

    @property
    def is_point(self) -> bool:
        return self.lo is not None and self.lo == self.hi

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
            return abs(ours / self.lo - 1.0) <= POINT_TOLERANCE
        return (self.lo is None or ours >= self.lo) and (self.hi is None or ours <= self.hi)

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
        ``{"min": lo, "max": hi}`` with the open end left out."""
        if self.is_point:
            assert self.lo is not None
            return self.lo
        out = {}
        if self.lo is not None:
            out["min"] = self.lo
        if self.hi is not None:
            out["max"] = self.hi
        return out

    def text(self, fmt: Callable[[float | None], str]) -> str:
        if self.is_point:
            return fmt(self.lo)
        if self.hi is None:
            return f">= {fmt(self.lo)}"
        if self.lo is None:
            return f"<= {fmt(self.hi)}"
        return f"[{fmt(self.lo)}, {fmt(self.hi)}]"

    def numbers(self) -> list[float]:
        return [v for v in (self.lo, self.hi) if v is not None]


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
        (and raises :class:`NoteError` for a row this run does not have)."""
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
