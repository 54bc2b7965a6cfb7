"""`python -m tcplab.experiments.quick_vs_full PAPER`: runs a reproduction in quick mode
and in full, and lists the rows whose consistency with the paper the two judge differently
(issue 17: "--quick must reach the same verdict as the full run on every headline row, or
mark the row as indicative in quick mode").

The list it prints is what the paper module's ``QUICK_VERDICT_DIFFERS`` must hold; it exits
1 when the module's set differs from it. Rows the quick grid lacks are not compared; rows
only the quick grid has (none should) are listed. A full run takes minutes to an hour.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from . import registry, reproduce


def differing(paper: str, jobs: int | None = None) -> tuple[list[str], list[str]]:
    """(row ids whose verdict differs between quick and full, ids only quick has)."""
    with tempfile.TemporaryDirectory() as tmp:
        quick = reproduce(paper, quick=True, out=Path(tmp) / "quick", jobs=jobs, progress=True)
        full = reproduce(paper, quick=False, out=Path(tmp) / "full", jobs=jobs, progress=True)
    full_by_id = {r.id: r for r in full.rows}
    differs, only_quick = [], []
    for r in quick.rows:
        f = full_by_id.get(r.id)
        if f is None:
            only_quick.append(r.id)
        elif r.consistent() != f.consistent():
            differs.append(r.id)
    return differs, only_quick


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paper", choices=sorted(registry()))
    ap.add_argument("--jobs", type=int, default=None)
    a = ap.parse_args(argv)
    differs, only_quick = differing(a.paper, a.jobs)
    declared = set(getattr(registry()[a.paper], "QUICK_VERDICT_DIFFERS", ()))
    print(f"rows whose verdict differs between --quick and the full run ({len(differs)}):")
    for i in differs:
        print(f"  {i!r},")
    if only_quick:
        print(f"rows only the quick run has ({len(only_quick)}): " + ", ".join(only_quick))
    if set(differs) != declared:
        print(f"QUICK_VERDICT_DIFFERS of {a.paper} does not match: missing {sorted(set(differs) - declared)}, "
              f"extra {sorted(declared - set(differs))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
