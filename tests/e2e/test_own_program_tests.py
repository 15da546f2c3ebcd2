"""examples/own-program's own tests, run as its team runs them: pytest in the project's
virtualenv, where this package is installed from a copy of the checkout, with the engine's
`pulumi` on PATH and nothing of the checkout on the path. The unit tests (Pulumi's mocks) and
the end-to-end test (the Automation API under the real engine) both use the emulator
fixture of the installed package's pytest plugin."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from stacks.pulumi_cli import engine_bin_dir
from tests.checkout import EXAMPLE, copy_checkout, outside_env, project_virtualenv

pytestmark = pytest.mark.engine

EXPECTED = {
    "tests/test_unit.py::test_the_report_runs_daily_on_the_configured_cluster",
    "tests/test_unit.py::test_workspace_resources_use_the_connection_of_workspace_auth",
    "tests/test_e2e.py::test_up_a_second_up_and_destroy",
}


def test_the_examples_tests_pass_in_its_virtualenv(tmp_path: Path) -> None:
    project = tmp_path / "my-workspace"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", "venv"))
    venv = project_virtualenv(project, copy_checkout(tmp_path / "workspace-iac"))

    result = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests"],
        cwd=project,
        env={
            **outside_env(),
            "PATH": f"{engine_bin_dir()}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": "",
        },
        capture_output=True,
        text=True,
        timeout=900,
    )

    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    passed = set(re.findall(r"^(\S+) PASSED", result.stdout, re.MULTILINE))
    assert passed == EXPECTED, report
    assert not (project / "Pulumi.e2e.yaml").exists()  # the test removed its stack
    # The fixtures came from the package installed in the project's virtualenv.
    plugin = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import workspace_emulator.pytest_plugin as p; print(p.__file__)"],
        cwd=project, env=outside_env(), check=True, capture_output=True, text=True,
    ).stdout.strip()
    assert Path(plugin).is_relative_to(venv), plugin
