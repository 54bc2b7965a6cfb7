"""`python -m tcplab.experiments.quick_vs_full PAPER [--write]`: runs a reproduction in quick
mode and in full, and lists the rows whose consistency with their criterion the two judge
differently (issue 17: "--quick must reach the same verdict as the full run on every headline
row, or mark the row as indicative in quick mode"; issue 35: "the report of a quick run
states which rows were checked against a full run, and when").

With ``--write`` it stores the comparison as ``quick_checks/PAPER.json`` beside this module
(date, commit, each quick row's consistency in both runs): a quick report reads it, marks
the rows the full run judged differently as indicative, and the rows the record lacks or
whose quick verdict has changed since as unchecked. Each paper's test fails on unchecked
rows, so a change that moves a quick verdict comes with a new check. A full run takes
minutes (BSF: about 20 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from . import QUICK_CHECKS, quick_record, registry, reproduce


def check(paper: str, jobs: int | None = None) -> dict:
    """The record of one quick and one full run of ``paper``."""
    with tempfile.TemporaryDirectory() as tmp:
        quick = reproduce(paper, quick=True, out=Path(tmp) / "quick", jobs=jobs, progress=True)
        full = reproduce(paper, quick=False, out=Path(tmp) / "full", jobs=jobs, progress=True)
    return quick_record(paper, quick, full)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paper", choices=sorted(registry()))
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--write", action="store_true", help=f"store the record as {QUICK_CHECKS.name}/PAPER.json")
    a = ap.parse_args(argv)
    rec = check(a.paper, a.jobs)
    rows = rec["rows"]
    differs = [k for k, v in rows.items() if v["quick"] != v["full"]]
    print(f"{len(rows)} quick rows with a criterion; {len(differs)} judged differently by the full run:")
    for k in differs:
        print(f"  {k}: quick {rows[k]['quick']}, full {rows[k]['full']}")
    if a.write:
        QUICK_CHECKS.mkdir(exist_ok=True)
        path = QUICK_CHECKS / f"{a.paper}.json"
        path.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
