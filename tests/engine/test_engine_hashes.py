"""H2, on the real engine: ensure.sh accepts the engine whose binaries have the hashes
tools/engine/engine.sha256 records, and refuses it once a binary differs by one byte or
anything else sits beside it on PATH."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from stacks.pulumi_cli import engine_bin_dir
from tests.unit.test_engine_hashes import ENGINE, ensure, release, toolchain

pytestmark = pytest.mark.engine


@pytest.fixture
def copied(tmp_path: Path) -> tuple[Path, Path]:
    """The classic engine's directory copied into a cache of the test's own."""
    cache = tmp_path / "cache"
    bin_dir = cache / f"pulumi-{release(ENGINE / 'go.mod')}-{toolchain()}" / "bin"
    shutil.copytree(engine_bin_dir(), bin_dir)
    return cache, bin_dir


def test_the_recorded_engine_is_accepted(copied: tuple[Path, Path]) -> None:
    cache, bin_dir = copied
    result = ensure(cache)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(bin_dir)


def test_a_binary_changed_by_one_byte_is_refused(copied: tuple[Path, Path]) -> None:
    cache, bin_dir = copied
    with (bin_dir / "pulumi-language-python").open("ab") as binary:
        binary.write(b"\0")
    result = ensure(cache)
    assert result.returncode == 1 and result.stdout == ""
    assert "pulumi-language-python has SHA-256 " in result.stderr


def test_anything_planted_beside_the_engine_is_refused(copied: tuple[Path, Path]) -> None:
    """The directory goes first on PATH: a `python3` there would run for the launchers."""
    cache, bin_dir = copied
    (bin_dir / "python3").write_text("#!/bin/sh\n")
    result = ensure(cache)
    assert result.returncode == 1 and result.stdout == ""
    assert "it holds python3, which is not part of the engine" in result.stderr


def test_a_launcher_that_is_not_the_checkouts_is_put_back(copied: tuple[Path, Path]) -> None:
    cache, bin_dir = copied
    (bin_dir / "pulumi-resource-pulumi-python").write_text("#!/bin/sh\necho planted\n")
    result = ensure(cache)
    assert result.returncode == 0, result.stderr
    assert (bin_dir / "pulumi-resource-pulumi-python").read_bytes() == (
        ENGINE / "launchers" / "pulumi-resource-pulumi-python").read_bytes()


def test_a_launcher_linked_elsewhere_is_replaced_by_the_checkouts(
        copied: tuple[Path, Path], tmp_path: Path) -> None:
    """A link whose target is the launcher today could be another file tomorrow."""
    cache, bin_dir = copied
    elsewhere = tmp_path / "elsewhere"
    shutil.copy2(ENGINE / "launchers" / "pulumi-language-python-exec", elsewhere)
    (bin_dir / "pulumi-language-python-exec").unlink()
    (bin_dir / "pulumi-language-python-exec").symlink_to(elsewhere)
    result = ensure(cache)
    assert result.returncode == 0, result.stderr
    assert not (bin_dir / "pulumi-language-python-exec").is_symlink()
