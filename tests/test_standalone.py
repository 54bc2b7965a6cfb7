"""The repository stands alone and the package installs (issue 14): no tracked file reaches
outside the checkout, a clone with nothing beside it runs a trace scenario, and a wheel
installed elsewhere carries the example scenarios and traces."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tcplab
from conftest import REPO

# Built from pieces so that this file does not match its own pattern.
OUTSIDE = re.compile(r"\.\./" + "shared" + r"\b|/work/" + "shared")


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    return [REPO / p for p in out.decode().split("\0") if p]


def files_naming_outside(paths: list[Path]) -> list[str]:
    hits = []
    for p in paths:
        if p.is_symlink() or not p.is_file():
            continue
        text = p.read_bytes().decode("utf-8", errors="replace")
        for i, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{p.relative_to(REPO)}:{i}: {line.strip()[:120]}")
    return hits


needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (REPO / ".git").exists(), reason="not a git checkout (or no git)"
)


@needs_git
def test_no_tracked_file_names_the_sibling_reference_folder():
    hits = files_naming_outside(tracked_files())
    assert not hits, "tracked files reach outside the repository:\n" + "\n".join(hits)


def test_the_check_catches_a_file_that_names_it(tmp_path: Path):
    bad = REPO / "tests" / f"_tmp_{os.getpid()}.toml"
    try:
        bad.write_text('trace = "../../..' + "/" + 'shared/traces/cellular/x.down"\n')
        assert files_naming_outside([bad])
    finally:
        bad.unlink()


@needs_git
def test_symlinks_point_inside_the_repository():
    for p in tracked_files():
        if p.is_symlink():
            target = p.resolve()
            assert target.is_relative_to(REPO.resolve()) and target.exists(), (p, target)


@needs_git
def test_a_clone_with_nothing_beside_it_runs_a_trace_scenario(tmp_path: Path):
    clone = tmp_path / "tcplab"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tcplab"], "the clone must have no siblings"
    # The clone's own Python code and data, with the extension module this checkout built
    # (building Rust again would only repeat what `make` did).
    ext = next(Path(tcplab.__file__).parent.glob("_tcplab*.so"))
    shutil.copy2(ext, clone / "python" / "tcplab" / ext.name)
    env = dict(os.environ, PYTHONPATH=str(clone / "python"))
    r = subprocess.run(
        [sys.executable, "-c", "import sys, tcplab, tcplab.cli; print(tcplab.__file__); sys.exit(tcplab.cli.main())", "run",
         "scenarios/examples/cellular-trace.toml", "--set", "duration=2s", "--json", "--no-plots", "--out", "out"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    first, rest = r.stdout.split("\n", 1)
    assert Path(first).is_relative_to(clone), first
    summary = json.loads(rest)
    assert summary["invariants"]["ok"] and summary["flows"][0]["bytes_delivered"] > 0
    # Every scenario the repository ships validates from the clone (all traces resolve).
    r = subprocess.run(
        [sys.executable, "-c", "import tcplab.cli, sys; sys.exit(tcplab.cli.main())", "validate",
         *sorted(str(p.relative_to(clone)) for p in (clone / "scenarios").glob("*/*.toml"))],
        cwd=clone, env=env, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("ok: ") == len(list((clone / "scenarios").glob("*/*.toml")))
    assert (clone / "bench" / "ns3" / "reference" / "p2p-1.jsonl").is_file()


@pytest.mark.skipif(shutil.which("cargo") is None, reason="no Rust toolchain to build a wheel")
def test_a_built_wheel_installed_elsewhere_runs_its_examples(tmp_path: Path):
    maturin = Path(sys.executable).parent / "maturin"
    if not maturin.exists():
        pytest.skip("maturin is not installed in this environment")
    wheels = tmp_path / "wheels"
    r = subprocess.run([str(maturin), "build", "--release", "--quiet", "-o", str(wheels)], cwd=REPO,
                       capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = wheels.glob("tcplab-*.whl")
    site = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(site))

    def tcplab_from_wheel(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tcplab", *args], cwd=elsewhere, env=env,
                              capture_output=True, text=True, timeout=300)

    r = tcplab_from_wheel("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"tcplab {tcplab.__version__}", r.stdout + r.stderr
    r = tcplab_from_wheel("examples", "--json")
    assert r.returncode == 0, r.stderr
    listing = json.loads(r.stdout)
    names = {e["name"] for e in listing["examples"]}
    assert {"cellular-trace", "p2p-bulk", "afc/table3-s2", "rate-based/trace"} <= names
    assert all(Path(e["path"]).is_relative_to(site) for e in listing["examples"])
    assert len(listing["traces"]) == 13 and all(Path(t).is_relative_to(site) for t in listing["traces"])
    r = tcplab_from_wheel("run", "example:cellular-trace", "--set", "duration=2s", "--json", "--no-plots")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["invariants"]["ok"]
    r = tcplab_from_wheel("run", "example:celular-trace")
    assert r.returncode == 2 and 'did you mean "example:cellular-trace"' in r.stderr


def test_examples_lists_every_shipped_scenario_and_runs_by_name(tmp_path: Path):
    from tcplab.data import examples, resolve

    shipped = sorted((REPO / "python" / "tcplab" / "scenarios").glob("*/*.toml"))
    assert sorted(e.path for e in examples()) == [p.resolve() for p in shipped]
    assert resolve("example:p2p-bulk").name == "p2p-bulk.toml"
    sc = tcplab.load("example:rate-based/trace", {"duration": "1s"})
    assert sc.name == "trace" and sc.canonical["topology"]["downlink"]["rate"]["kind"] == "trace"
    with pytest.raises(tcplab.ScenarioError, match="no shipped scenario named 'nope'"):
        tcplab.load("example:nope")
