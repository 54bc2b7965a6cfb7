"""Errors shown to users: one line naming the file, the key path and what is accepted."""

from __future__ import annotations


class TcplabError(Exception):
    """Base class of every error tcplab reports to users without a traceback."""

    #: Exit code of the ``tcplab`` command for this error.
    exit_code: int = 2


class ScenarioError(TcplabError):
    """A scenario that cannot be run as written.

    ``str(err)`` reads ``scenario.toml: topology.downlink.rate: expected a rate like ...``.
    """

    def __init__(self, message: str, *, source: str | None = None, path: str | None = None, note: str | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.path = path
        self.note = note

    def __str__(self) -> str:
        parts = []
        if self.source:
            parts.append(self.source)
        if self.path:
            parts.append(self.path + (f" ({self.note})" if self.note else ""))
        parts.append(self.message)
        return ": ".join(parts)


class SimulationError(TcplabError):
    """The simulator refused or aborted a run (``tcplab_sim::SimError``).

    ``kind`` is ``"config"`` or ``"trace"`` (a scenario the simulator rejects: exit code 2),
    ``"event_budget"``, ``"io"`` or ``"cancelled"`` (exit code 1).
    """

    def __init__(self, kind: str, message: str, *, source: str | None = None):
        self.kind = kind
        self.message = message
        self.source = source
        self.exit_code = 2 if kind in ("config", "trace") else 1
        super().__init__(str(self))

    def __str__(self) -> str:
        prefix = {"config": "invalid scenario: ", "trace": "trace error: "}.get(self.kind, "")
        text = self.message if self.message.startswith(prefix) or not prefix else prefix + self.message
        return f"{self.source}: {text}" if self.source else text


class InvalidRunError(TcplabError):
    """A run broke an invariant where its numbers were about to be used (a reproduction):
    the ``tcplab`` command stops with exit code 3, as ``tcplab run`` does for such a run."""

    exit_code = 3
