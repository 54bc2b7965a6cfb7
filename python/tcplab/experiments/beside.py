"""`tcplab reproduce PAPER --beside PROFILE`: a reproduction's rows under two sets of TCP
rules, matched row by row, and the report's "Under profile" section, computed from them:
which verdicts change, which numbers move and by how much (issue 16: "where a headline
result moves, the reports say so").

Rows match by (experiment, case, variant, metric); a key a run repeats matches by its
occurrence. The primary run (the validated rules, or ``--profile``) owns the report: its
notes, its ``diff`` column and its figures. The beside run writes its own complete report
into ``OUT/beside-PROFILE/``.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import Beside, Report, Row, _fmt, _paper

#: A number "moves" when it changes by more than this, relative to the primary run's.
MOVED_ABOVE = 0.10
#: How many of the largest movers the section shows.
LARGEST_MOVERS = 5
#: How many rows a list in the section shows before "and N more" (the JSON has them all).
LIST_AT_MOST = 10

Pair = tuple[Row | None, Row | None]


def _key(r: Row) -> tuple[str, str, str, str]:
    return (r.experiment, r.case, r.variant, r.metric)


def pair_rows(primary: list[Row], other: list[Row]) -> list[Pair]:
    """The two runs' rows matched by key, in the primary run's order; rows only the other
    run has follow in its order, paired with None."""

    def keyed(rows: list[Row]) -> dict[tuple[Any, ...], Row]:
        seen: Counter[tuple[str, str, str, str]] = Counter()
        out = {}
        for r in rows:
            k = _key(r)
            out[(*k, seen[k])] = r
            seen[k] += 1
        return out

    mine, theirs = keyed(primary), keyed(other)
    return [(r, theirs.get(k)) for k, r in mine.items()] + [(None, r) for k, r in theirs.items() if k not in mine]


def _value(r: Row | None) -> float | None:
    """A row's number; None for a missing row, no value and NaN alike (none is a number
    the two runs could agree on)."""
    if r is None or r.ours is None or (isinstance(r.ours, float) and math.isnan(r.ours)):
        return None
    return r.ours


def relative_change(a: float, b: float) -> float:
    """``(b - a) / |a|``: +0.25 is 25% up. Infinite (with b - a's sign) from zero or from an
    infinite value to anything else."""
    if a == b:
        return 0.0
    if a == 0 or math.isinf(a) or math.isinf(b):
        return math.copysign(math.inf, b - a)
    return (b - a) / abs(a)


@dataclass
class Movement:
    """What changed between the two runs, row by row."""

    #: Verdict rows in either run.
    verdicts: int = 0
    #: Verdict rows whose value differs (a row missing from one run counts as differing).
    flips: list[Pair] = field(default_factory=list)
    #: Other rows with a number in both runs.
    numeric: int = 0
    #: Of those, the rows beside a number the paper states: the paper's headline numbers.
    stated: int = 0
    #: Those that moved by more than MOVED_ABOVE, with their relative change, largest first.
    moved: list[tuple[Row, Row, float]] = field(default_factory=list)
    #: Other rows with a number in one run only.
    one_sided: list[Pair] = field(default_factory=list)

    def stated_moved(self) -> list[tuple[Row, Row, float]]:
        return [m for m in self.moved if m[0].paper is not None]


def movement(pairs: list[Pair]) -> Movement:
    """Sorts matched rows into verdicts, numbers in both runs and numbers in one: a verdict
    counts only as a verdict (its 1 -> 0 is no "number that moved")."""
    m = Movement()
    for mine, theirs in pairs:
        a, b = _value(mine), _value(theirs)
        if (mine is not None and mine.verdict) or (theirs is not None and theirs.verdict):
            m.verdicts += 1
            if a != b:
                m.flips.append((mine, theirs))
        elif a is not None and b is not None:
            assert mine is not None and theirs is not None
            m.numeric += 1
            m.stated += mine.paper is not None
            d = relative_change(a, b)
            if abs(d) > MOVED_ABOVE:
                m.moved.append((mine, theirs, d))
        elif a is not None or b is not None:
            m.one_sided.append((mine, theirs))
    # Largest first; sorted() keeps the report's order among equals.
    m.moved = sorted(m.moved, key=lambda x: -abs(x[2]))
    return m


def _name(r: Row) -> str:
    return f"`{r.experiment} / {r.case} / {r.variant} / {r.metric}`"


def _verdict_word(r: Row | None) -> str:
    v = _value(r)
    return {1.0: "holds", 0.0: "does not hold"}.get(v, _fmt(v)) if v is not None else "—"


def _change(d: float, a: Row) -> str:
    """A relative change as the report writes it; from zero there is no percentage."""
    if math.isinf(d):
        return "from 0" if a.ours == 0 else "—"
    return f"{d * 100:+.0f}%"


def _either(mine: Row | None, theirs: Row | None) -> Row:
    """The row a pair names (every pair has at least one)."""
    r = mine or theirs
    assert r is not None
    return r


def _capped(items: list[str], total: int) -> list[str]:
    """The first LIST_AT_MOST items, and a line for the rest."""
    out = items[:LIST_AT_MOST]
    if total > LIST_AT_MOST:
        out.append(f"  - and {total - LIST_AT_MOST} more (rows.json has every row's two values)")
    return out


def beside_section(rep: Report, out: Path) -> list[str]:
    """The markdown lines of the report's "Under profile" section, from the rows alone."""
    b = rep.beside
    assert b is not None
    head = [f"## Under profile `{b.profile}`", ""]
    if b.report is None:
        return head + [f"**Not run**: this reproduction cannot run under profile `{b.profile}` (`--beside`): "
                       f"{b.refused}. The report shows the run under {rep.rules()} only.", ""]
    folder = os.path.relpath(b.out, out)
    agent = (f" with the paper's agent's keys on top: {b.agent}" if b.agent else
             f" alone: its rules, not any simulator's agent (the paper module names no agent for `{b.profile}`)")
    lines = head + [
        f"Every run was repeated under stack profile `{b.profile}` (`--beside`, docs/profiles.md){agent}, on the same "
        f"engine, scenarios and seeds: the column `{b.column()}`. The `diff` column, the notes and the "
        f"figures belong to the run under {rep.rules()}; the `{b.profile}` run's own report and figures are in "
        f"[`{folder}/`]({folder}/report.md). "
        "Computed from the two runs' rows:", ""]
    m = movement(pair_rows(rep.rows, b.report.rows))
    p = b.profile
    if not m.verdicts:
        lines.append("- **Verdicts**: this reproduction has none.")
    elif not m.flips:
        lines.append(f"- **Verdicts**: none of the {m.verdicts} changes under `{p}`.")
    else:
        lines.append(f"- **Verdicts**: {len(m.flips)} of {m.verdicts} change under `{p}`:")
        lines += [f"  - {_name(_either(mine, theirs))}: {_verdict_word(mine)} → {_verdict_word(theirs)}"
                  for mine, theirs in m.flips]
    if m.stated:
        stated = m.stated_moved()
        lines.append(f"- **Numbers the paper states**: {len(stated)} of {m.stated} move by more than "
                     f"{MOVED_ABOVE:.0%}{':' if stated else '.'}")
        lines += _capped([f"  - {_name(a)}: {_fmt(a.ours)} → {_fmt(b_.ours)}{f' {a.unit}' if a.unit else ''} "
                          f"({_change(d, a)}; paper {_paper(a)})" for a, b_, d in stated], len(stated))
    lines.append(f"- **All numbers**: {len(m.moved)} of {m.numeric} rows move by more than {MOVED_ABOVE:.0%}"
                 f"{'; the largest:' if m.moved else '.'}")
    if m.moved:
        lines += ["", f"  | experiment | case | variant | metric | ours | ours ({p}) | change |",
                  "  |---|---|---|---|---:|---:|---:|"]
        lines += [f"  | {a.experiment} | {a.case} | {a.variant} | {a.metric} ({a.unit}) | {_fmt(a.ours)} | "
                  f"{_fmt(b_.ours)} | {_change(d, a)} |"
                  for a, b_, d in m.moved[:LARGEST_MOVERS]]
        lines.append("")
    if m.one_sided:
        lines.append(f"- **A number in one run only**: {len(m.one_sided)} rows:")
        lines += _capped([f"  - {_name(_either(mine, theirs))}: {_fmt(_value(mine))} → {_fmt(_value(theirs))}"
                          for mine, theirs in m.one_sided], len(m.one_sided))
    return lines + [""]


def beside_json(rows: list[Row], b: Beside) -> dict[str, Any]:
    """The JSON keys `--beside` adds: ``beside_profile``, ``beside_refused`` when refused, and
    rows that carry ``"verdict": true`` where they are verdicts and, when the beside run ran,
    ``"beside": {"profile", "ours"}`` (rows only it has come last, with ``ours`` null)."""
    out: dict[str, Any] = {"beside_profile": b.profile}
    if b.report is None:
        out["beside_refused"] = b.refused
        pairs: list[Pair] = [(r, None) for r in rows]
    else:
        pairs = pair_rows(rows, b.report.rows)
    js = []
    for mine, theirs in pairs:
        r = _either(mine, theirs)
        d = r.to_dict()
        if mine is None:
            d["ours"] = None
            d.pop("note", None)  # the other run's explanation, not this row's
        if r.verdict:
            d["verdict"] = True
        if b.report is not None:
            d["beside"] = {"profile": b.profile, "ours": theirs.ours if theirs is not None else None}
        js.append(d)
    out["rows"] = js
    return out
