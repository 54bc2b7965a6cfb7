"""The scenario files and Mahimahi traces shipped inside the package, so that a wheel
installed anywhere carries them: ``tcplab examples`` lists them and ``example:NAME`` names
one wherever a scenario file is expected (``tcplab run example:cellular-trace``)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import ScenarioError

PACKAGE_DIR = Path(__file__).resolve().parent
SCENARIO_DIR = PACKAGE_DIR / "scenarios"
TRACE_DIR = PACKAGE_DIR / "traces"
PREFIX = "example:"


@dataclass(frozen=True)
class Example:
    """A shipped scenario: ``name`` is its file stem under ``scenarios/examples/`` or
    ``<paper>/<stem>`` for a paper's scenarios."""

    name: str
    path: Path
    description: str


def examples() -> list[Example]:
    """Every shipped scenario: the examples first, then each paper's, by name."""
    out = []
    for path in sorted(SCENARIO_DIR.glob("*/*.toml"), key=lambda p: (p.parent.name != "examples", p.parent.name, p.stem)):
        name = path.stem if path.parent.name == "examples" else f"{path.parent.name}/{path.stem}"
        try:
            desc = str(tomllib.loads(path.read_text()).get("description", ""))
        except (OSError, ValueError):
            desc = ""
        out.append(Example(name, path, desc))
    return out


def traces() -> list[Path]:
    """The shipped trace files (``cellular/*.down`` and ``*.up``)."""
    return sorted(p for p in TRACE_DIR.glob("*/*") if p.suffix in (".down", ".up"))


def resolve(spec: str) -> Path:
    """``example:NAME`` -> the shipped scenario file; unknown names list the known ones."""
    name = spec[len(PREFIX):]
    for ex in examples():
        if ex.name == name:
            return ex.path
    import difflib

    names = [e.name for e in examples()]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f' (did you mean "{PREFIX}{close[0]}"?)' if close else ""
    raise ScenarioError(f"no shipped scenario named {name!r}{hint}; `tcplab examples` lists them", source=spec)
