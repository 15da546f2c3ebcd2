"""H2: tools/engine/ensure.sh runs no engine binary whose SHA-256 is not the recorded one.
The engine's directory may come from a CI cache, which someone else's branch could have
written: a planted binary is refused before anything runs it (docs/ci-previews.md, "The
engine a job runs")."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from stacks.pulumi_cli import REPO_ROOT

ENGINE = REPO_ROOT / "tools" / "engine"
ENSURE = ENGINE / "ensure.sh"
SUMS = ENGINE / "engine.sha256"


def toolchain() -> str:
    found = re.search(r"^toolchain=(go\S+)$", ENSURE.read_text(), re.MULTILINE)
    assert found
    return found.group(1)


def release(go_mod: Path) -> str:
    found = re.search(r"github\.com/pulumi/pulumi/pkg/v3 (v\S+)", go_mod.read_text())
    assert found
    return found.group(1)


def ensure(cache: Path, engine: str = "classic") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WORKSPACE_IAC_CACHE": str(cache), "WORKSPACE_IAC_ENGINE": engine}
    return subprocess.run([str(ENSURE)], env=env, capture_output=True, text=True, timeout=120)


def plant(bin_dir: Path, name: str, ran: Path) -> None:
    """A stand-in for an engine binary that leaves `ran` behind if anything runs it."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / name).write_text(f"#!/bin/sh\ntouch '{ran}'\nexec /bin/true\n")
    (bin_dir / name).chmod(0o755)


def test_a_planted_engine_binary_is_refused_and_not_run(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    bin_dir = cache / f"pulumi-{release(ENGINE / 'go.mod')}-{toolchain()}" / "bin"
    ran = tmp_path / "ran"
    for name in ("pulumi", "pulumi-language-python"):
        plant(bin_dir, name, ran)

    result = ensure(cache)

    assert result.returncode == 1, result.stderr
    assert result.stdout == ""  # no directory to put on PATH
    assert f"engine: refusing the engine in {bin_dir}: pulumi has " in result.stderr
    assert "rm -rf" in result.stderr and "nothing in it was run" in result.stderr
    assert not ran.exists()


def test_a_planted_modern_engine_is_refused_too(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    bin_dir = cache / f"pulumi-{release(ENGINE / 'modern' / 'go.mod')}-{toolchain()}" / "bin"
    ran = tmp_path / "ran"
    plant(bin_dir, "pulumi", ran)

    result = ensure(cache, "modern")

    assert result.returncode == 1 and result.stdout == ""
    assert f"refusing the engine in {bin_dir}: pulumi has " in result.stderr
    assert not ran.exists()


def test_the_hashes_of_ci_s_platform_are_committed_for_both_engines() -> None:
    """CI runs on linux/amd64: its hashes are the reviewed ones, never a record made on the
    runner (which a restored cache could bring)."""
    lines = [line.split() for line in SUMS.read_text().splitlines()
             if line and not line.startswith("#")]
    assert all(len(fields) == 5 and re.fullmatch(r"[0-9a-f]{64}", fields[0]) for fields in lines)
    recorded = {tuple(fields[1:]) for fields in lines}
    classic, modern = release(ENGINE / "go.mod"), release(ENGINE / "modern" / "go.mod")
    assert {(classic, toolchain(), "linux/amd64", "pulumi"),
            (classic, toolchain(), "linux/amd64", "pulumi-language-python"),
            (modern, toolchain(), "linux/amd64", "pulumi")} <= recorded
    # The build the hashes are of: one toolchain, no C toolchain, no paths.
    script = ENSURE.read_text()
    assert 'GOTOOLCHAIN="$toolchain"' in script and "CGO_ENABLED=0" in script
    assert "go build -trimpath" in script
