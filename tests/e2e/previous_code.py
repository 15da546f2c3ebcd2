"""Another commit's code deploying a stack, so that a test can upgrade the stack to this
checkout's: its tree (`git archive`), and its program and provider host run on the engine of
this test leg."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from stacks.pulumi_cli import REPO_ROOT, PulumiCli, engine_kind

SERVE_PROGRAM = Path(__file__).with_name("serve_program.py")


def tree_at(commit: str, destination: Path) -> Path:
    """The files of `commit` under `destination`, with this checkout's virtualenv."""
    archive = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "archive", commit], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(destination, filter="data")
    (destination / ".venv").symlink_to(REPO_ROOT / ".venv")
    return destination


def run_program_of(stack: PulumiCli, tree: Path) -> None:
    """Points the stack's project at the program of `tree`, and its provider host at the
    same code."""
    project = stack.project_dir / "Pulumi.yaml"
    document = yaml.safe_load(project.read_text())
    document["main"] = str(tree / "stacks")
    project.write_text(yaml.safe_dump(document))
    stack.extra_env["PYTHONPATH"] = str(tree)


@contextmanager
def running_code_of(stack: PulumiCli, tree: Path, main: Path) -> Iterator[None]:
    """Within the block, the stack's program (at `main`) and its provider host import the
    packages of `tree` first. The classic engine's language host runs the program in a
    process of its own; the modern engine's inline program then runs in a process of its own
    too, served to the engine as the Automation API serves one."""
    stack.extra_env["PYTHONPATH"] = str(tree)
    server = None
    if engine_kind() == "modern":
        server = subprocess.Popen(
            [sys.executable, str(SERVE_PROGRAM), str(main)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**stack.env(), "PYTHONPATH": str(tree)},
        )
        assert server.stdout is not None
        stack.language_server = server.stdout.readline().strip()
    try:
        yield
    finally:
        stack.extra_env.pop("PYTHONPATH")
        stack.language_server = None
        if server is not None:
            server.communicate("", timeout=60)


def deployed_by(stack: PulumiCli, tree: Path) -> None:
    """An up of the stack by the program and provider host of `tree`, on either engine; then
    the stack's project points at this checkout's program again, whose next run upgrades it."""
    run_program_of(stack, tree)
    with running_code_of(stack, tree, tree / "stacks"):
        stack.up()
    run_program_of(stack, REPO_ROOT)
