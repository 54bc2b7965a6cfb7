"""The fuzzer (fuzz/fuzz.py, issue 20): a fixed small batch of both modes must find nothing,
and the fuzzer must catch each kind of failure it claims to catch (planted ones): a check
that cannot fail is a defect."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _load_fuzz():
    spec = importlib.util.spec_from_file_location("tcplab_fuzz", REPO / "fuzz" / "fuzz.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tcplab_fuzz"] = mod
    spec.loader.exec_module(mod)
    return mod


fz = _load_fuzz()

SEED = 20  # the fixed batch: case i of each mode is a pure function of (SEED, mode, i)
BATCH = 40


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return fz.make_ctx(tmp_path_factory.mktemp("fuzz"), SEED, timeout=30, mem_mb=4096, exec_mode="fork")


def small_ctx(tmp_path, **kw):
    args = dict(seed=SEED, timeout=30, mem_mb=4096, exec_mode="fork")
    args.update(kw)
    return fz.make_ctx(tmp_path, args.pop("seed"), **args)


def describe(camp) -> str:
    return "\n".join(f"{sig} x{d['count']} {d['examples'][:1]}" for sig, d in camp.signatures.items())


# -- the fixed batch ----------------------------------------------------------------------


def test_fixed_batch_finds_nothing(ctx):
    camp = fz.Campaign(ctx, jobs=2, quiet=True)
    camp.run(["valid", "malformed"], seconds=600, max_cases=BATCH)
    assert dict(camp.cases) == {"valid": BATCH, "malformed": BATCH}
    assert not camp.by_class, "the fuzzer found failures (reproducers in the output folder):\n" + describe(camp)
    # The damage mostly makes input that the CLI refuses, and sometimes leaves it valid:
    # both halves of the contract are exercised.
    outcomes = {k: v for k, v in camp.notes.items() if k.startswith("outcome: ")}
    refused = sum(v for k, v in outcomes.items() if "validate=2" in k)
    assert refused >= BATCH // 2, outcomes
    if outcomes.get("outcome: validate=0 run=0", 0) == 0:
        # Damage that leaves a document valid is the rarer outcome (a few percent of cases),
        # so a batch of 40 can miss it; the next cases of the same fixed stream must show it.
        more = fz.Campaign(ctx, jobs=2, quiet=True)
        more.run(["malformed"], seconds=600, max_cases=4 * BATCH)
        assert not more.by_class, describe(more)
        outcomes = {k: v for k, v in more.notes.items() if k.startswith("outcome: ")}
    assert outcomes.get("outcome: validate=0 run=0", 0) >= 1, outcomes


def test_cases_do_not_depend_on_time_or_order(ctx, tmp_path):
    a = [fz.generate(ctx, m, i) for m in fz.MODES for i in (0, 7, 31)]
    b = [fz.generate(ctx, m, i) for m in reversed(fz.MODES) for i in (31, 7, 0)]
    key = lambda c: (c.mode, c.index)  # noqa: E731
    for x, y in zip(sorted(a, key=key), sorted(b, key=key)):
        assert (fz.toml_dumps(x.doc), x.files, x.mutations, x.overrides) == (fz.toml_dumps(y.doc), y.files, y.mutations, y.overrides)
    other = small_ctx(tmp_path, seed=SEED + 1)
    assert fz.toml_dumps(fz.generate(other, "valid", 0).doc) != fz.toml_dumps(a[0].doc)


def test_generated_documents_are_toml_and_cover_every_documented_key(ctx):
    used: set[str] = set()
    for i in range(600):
        case = fz.generate(ctx, "valid", i)
        text = fz.toml_dumps(case.doc, inline_depth=1 + i % 2)
        assert tomllib.loads(text) == case.doc, text
        used |= case.used
    assert fz.coverage_gaps(used) == []
    # Every key docs/scenarios.md documents in a table is one the scenario reader knows.
    from tcplab import scenario as s

    known = set(s.TOP_KEYS) | set(s.LINK_KEYS) | set(s.TCP_KEYS) | set(s.FLOW_KEYS) | set(s.RED_KEYS) | {"kind", "pairs", "nodes", "links", "from", "to"}
    known |= {"interval", "timeseries", "exact_percentiles", "pcap", "workload_flows"}
    known |= set(s.WORKLOAD_KEYS) | {k for keys in s.ARRIVAL_KEYS.values() for k in keys} | {k for keys in s.SIZE_KEYS.values() for k in keys}
    known |= {"node"} | {k for keys in s.ELEMENT_KEYS.values() for k in keys} | set(s.PAGE_KEYS)
    assert fz.documented_keys() - known == set()


# -- planted failures: the oracle of each class ------------------------------------------


def _planted(tmp_path, monkeypatch, fake_run=None, fake_load=None, cases=2, timeout=30):
    import tcplab

    c = small_ctx(tmp_path, timeout=timeout)
    if fake_run is not None:
        monkeypatch.setattr(tcplab, "run", fake_run)
    if fake_load is not None:
        monkeypatch.setattr(tcplab, "load", fake_load)
    camp = fz.Campaign(c, jobs=2, quiet=True)
    camp.run(["valid"], seconds=600, max_cases=cases)  # forked children inherit the patches
    return camp


def test_planted_nondeterminism_is_caught(tmp_path, monkeypatch):
    import tcplab

    real = tcplab.run
    calls = {"n": 0}

    def flaky(sc, seed=None, **kw):
        res = real(sc, seed=seed, **kw)
        calls["n"] += 1
        if calls["n"] % 2 == 0:  # the second run of every case differs
            res.summary["events"] += 1
        return res

    camp = _planted(tmp_path, monkeypatch, fake_run=flaky)
    assert camp.by_class.get("nondeterminism") == 2, describe(camp)
    stored = sorted(p.name for p in (tmp_path / "failures").iterdir())
    assert "nondeterminism-1.toml" in stored and "nondeterminism-1.cmd" in stored


def test_planted_invariant_violation_is_caught(tmp_path, monkeypatch):
    import tcplab

    real = tcplab.run

    def broken(sc, seed=None, **kw):
        res = real(sc, seed=seed, **kw)
        res.summary["invariants"] = {"ok": False, "violations": ["planted"]}
        return res

    assert _planted(tmp_path, monkeypatch, fake_run=broken).by_class.get("invariant") == 2


def test_planted_panic_is_caught(tmp_path, monkeypatch):
    class PanicException(BaseException):  # what pyo3 raises for a Rust panic
        pass

    def panics(sc, seed=None, **kw):
        raise PanicException("attempt to add with overflow")

    assert _planted(tmp_path, monkeypatch, fake_run=panics).by_class.get("panic") == 2


def test_planted_refusal_of_a_valid_scenario_is_caught(tmp_path, monkeypatch):
    from tcplab.errors import ScenarioError

    def refuses(src, overrides=None):
        raise ScenarioError("planted refusal", source="x.toml", path="duration")

    assert _planted(tmp_path, monkeypatch, fake_load=refuses).by_class.get("refused-valid") == 2


def test_planted_crash_is_caught(tmp_path, monkeypatch):
    def aborts(sc, seed=None, **kw):  # as a Rust abort would (SIGKILL: pytest's faulthandler stays quiet)
        os.kill(os.getpid(), signal.SIGKILL)

    assert _planted(tmp_path, monkeypatch, fake_run=aborts).by_class.get("crash") == 2


def test_planted_hang_is_killed_not_waited_on(tmp_path, monkeypatch):
    import time

    def hangs(sc, seed=None, **kw):
        time.sleep(3600)

    t0 = time.monotonic()
    camp = _planted(tmp_path, monkeypatch, fake_run=hangs, cases=1, timeout=1)
    assert camp.by_class.get("hang") == 1, describe(camp)
    # A hang guard, not a speed: the watchdog ends the case after a few seconds (its 1 s
    # timeout plus the set-up allowance); a campaign that waited would take the hour.
    assert time.monotonic() - t0 < 600


def _res(rc, stderr="", stdout="", sig=None):
    return fz.CliResult(["validate", "x.toml"], rc, stdout, stderr, 0.1, sig)


@pytest.mark.parametrize(
    "res, cls",
    [
        (_res(2, "error: x.toml: duration: bad\n"), None),
        (_res(2, "error: tcplab run: the following arguments are required: SCENARIO.toml (see tcplab run --help)\n"), None),
        (_res(2, "usage: tcplab run [-h]\ntcplab run: error: the following arguments are required\n"), "contract"),
        (_res(2, "error: x.toml: flows[0].src: unknown node \"a\nb\"\n"), "contract"),
        (_res(2, "error: x.toml: a\rb\n"), "contract"),
        (_res(2, "error: x.toml: bell \x07\n"), "contract"),
        (_res(2, "x.toml: no prefix\n"), "contract"),
        (_res(2, "error: x.toml: bad\n", stdout="ok: x.toml\n"), "contract"),
        (_res(1, "Traceback (most recent call last):\n  File ...\nRuntimeError: boom\n"), "traceback"),
        (_res(1, "thread '<unnamed>' panicked at src/world.rs:1:1:\noverflow\n"), "panic"),
        (_res(-6, "memory allocation of 8 bytes failed\n", sig=6), "crash"),
        (_res(None), "hang"),
        (_res(3, "INVALID RUN\n  - flow 'f': broken\n"), "invariant"),
        (_res(1, "error: x.toml: something else\n"), "contract"),
        (_res(1, "error: event budget exhausted after 5 events at t=0s (livelock?)\n"), "contract"),  # validate never runs
        (_res(1, "error: x: cannot write: File name too long\n"), "contract"),
        (_res(0, "", "ok: x.toml: x: point_to_point, 2 links, 1 flows, 1 s\n"), None),
        (_res(0, "some noise\n", "ok: x.toml\n"), "contract"),
    ],
)
def test_cli_oracle(res, cls):
    got = fz.check_contract(res, None, "validate")
    assert (got[0]["class"] if got else None) == cls, got


def test_cli_oracle_accepts_documented_exit_1_of_run():
    for err in ("error: event budget exhausted after 5 events at t=0s (livelock?)\n", "error: out/x: cannot write: No space left on device\n"):
        assert fz.check_contract(_res(1, err), None, "run") == []


def test_cli_oracle_notices_output_written_on_refusal(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{}")
    got = fz.check_contract(_res(2, "error: x.toml: bad\n"), out, "run")
    assert [g["class"] for g in got] == ["wrote-output"]


def test_planted_contract_breach_through_a_real_subprocess(tmp_path):
    """A fake `tcplab` that prints a two-line error: the malformed mode, executing real
    subprocesses, must record it as a contract failure with its reproducer."""
    c = small_ctx(tmp_path, exec_mode="subprocess")
    c.tcplab_exe = [sys.executable, "-c", "import sys; sys.stderr.write('error: x.toml: bad value \"a\\nb\"\\n'); sys.exit(2)"]
    camp = fz.Campaign(c, jobs=2, quiet=True)
    camp.run(["malformed"], seconds=600, max_cases=3)
    assert camp.by_class.get("contract") == 3, describe(camp)
    cmd = (tmp_path / "failures" / "contract-1.cmd").read_text()
    assert cmd.startswith("# contract: tcplab ") and "-> exit 2" in cmd, cmd
    meta = json.loads((tmp_path / "failures" / "contract-1.json").read_text())
    assert meta["mode"] == "malformed" and meta["failure"]["class"] == "contract"


def test_forked_cli_failures_are_confirmed_by_a_real_subprocess(tmp_path, monkeypatch):
    """The fork shortcut must not report what the real command does not do."""
    import tcplab.cli

    def liar(argv=None):
        print("error: planted\nsecond line", file=sys.stderr)
        return 2

    monkeypatch.setattr(tcplab.cli, "main", liar)
    c = small_ctx(tmp_path, exec_mode="fork")
    camp = fz.Campaign(c, jobs=2, quiet=True)
    camp.run(["malformed"], seconds=600, max_cases=2)
    assert camp.by_class.get("exec-divergence", 0) >= 1, describe(camp)
    assert "contract" not in camp.by_class or camp.by_class["contract"] < 2
