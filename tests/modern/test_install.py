"""The package installs beside a user's own, newest Pulumi and SDK: in a fresh virtualenv of
this leg's Python (3.13 where the machine has it), a wheel of the checkout next to the
newest pulumi and databricks-sdk. The wheel holds `providers`, `stacks` (the stack program
and the `workspace-iac` command) and `workspace_emulator` and nothing else, every kind of
the registry imports from `providers`, the emulator's web server comes only with the
`emulator` extra, and with it the emulator's pytest fixture serves a team's test."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.version import Version

from providers.core.registry import names as kind_names
from stacks.pulumi_cli import engine_bin_dir
from tests.checkout import copy_checkout, outside_env

PACKAGES = {"providers", "stacks", "workspace_emulator"}
# The checkout's other top-level packages, and the emulator's former name.
NOT_INSTALLED = ("tools", "bench", "tests", "emulator")
WEB_SERVER = ("fastapi", "uvicorn")
INSTALL_HINT = "pip install 'workspace-iac[emulator]'"
# A team's test of the emulator fixture (workspace_emulator/pytest_plugin.py).
FIXTURE_TEST = """
import requests

from providers import WorkspaceAuthArgs
from workspace_emulator.testing import auth_headers


def test_the_emulator_fixture(workspace_emulator):
    args = WorkspaceAuthArgs(**workspace_emulator.auth_args())
    response = requests.get(f"{args.base_url}/api/2.0/clusters/list",
                            headers=auth_headers(workspace_emulator), timeout=10)
    assert response.json()["clusters"]
"""


def run(*argv: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, check=check, capture_output=True, text=True, cwd=cwd, env=outside_env(),
        timeout=600,
    )


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    workdir: Path  # nothing of the checkout in it: the current directory of every command

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    def pip(self, *args: str) -> None:
        run(self.python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            *args, cwd=self.workdir)

    def python_says(self, program: str) -> str:
        return run(self.python, "-c", program, cwd=self.workdir).stdout

    def pytest(self) -> subprocess.CompletedProcess[str]:
        return run(self.python, "-m", "pytest", "-p", "no:cacheprovider", "test_fixture.py",
                   cwd=self.workdir, check=False)


@pytest.fixture(scope="class")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A wheel of a copy of the checkout, installed into a fresh virtualenv beside this leg's
    pulumi and databricks-sdk (the newest: the leg upgrades both at every run)."""
    tmp = tmp_path_factory.mktemp("install")
    workdir = tmp / "work"
    workdir.mkdir()
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    run(python, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
        "--wheel-dir", str(tmp / "dist"), str(copy_checkout(tmp / "workspace-iac")), cwd=tmp)
    [wheel] = (tmp / "dist").glob("workspace_iac-*.whl")
    installed = Installed(wheel, venv, workdir)
    installed.pip(f"pulumi=={importlib.metadata.version('pulumi')}",
                  f"databricks-sdk=={importlib.metadata.version('databricks-sdk')}", str(wheel))
    return installed


@pytest.mark.steps
class TestWheelInstall:
    def test_installs_beside_the_newest_pulumi_and_sdk(self, installed: Installed) -> None:
        names = [name for kind in kind_names() for name in (kind, f"{kind}Args")]
        program = (
            f"from providers import WorkspaceAuth, WorkspaceAuthArgs, {', '.join(names)}\n"
            "import importlib.metadata as m, platform, providers\n"
            "print(platform.python_version(), m.version('pulumi'), m.version('databricks-sdk'),"
            " providers.__file__)\n"
        )
        python_version, pulumi, sdk, where = installed.python_says(program).split()

        assert python_version == ".".join(map(str, sys.version_info[:3]))
        assert pulumi == importlib.metadata.version("pulumi")
        assert sdk == importlib.metadata.version("databricks-sdk")
        assert Path(where).is_relative_to(installed.venv), where  # not the checkout
        # The provider host, under the plugin's name, for a Pulumi.yaml that points at bin/.
        assert (installed.venv / "bin" / "pulumi-resource-pulumi-python").exists()

    def test_the_wheel_holds_providers_stacks_and_workspace_emulator_only(
        self, installed: Installed
    ) -> None:
        in_wheel = {
            name.split("/")[0]
            for name in zipfile.ZipFile(installed.wheel).namelist()
            if not name.split("/")[0].endswith(".dist-info")
        }
        top_level = installed.python_says(
            "import importlib.metadata as m\n"
            "print(m.distribution('workspace-iac').read_text('top_level.txt'))"
        ).split()
        importable = installed.python_says(
            "import importlib.util\n"
            f"for name in {NOT_INSTALLED!r}:\n"
            "    spec = importlib.util.find_spec(name)\n"
            "    print(name, spec and spec.origin)\n"
        )

        assert in_wheel == PACKAGES
        assert sorted(top_level) == sorted(PACKAGES)
        assert importable.split("\n")[:-1] == [f"{name} None" for name in NOT_INSTALLED]

    def test_without_the_extra_the_emulator_says_what_to_install(
        self, installed: Installed
    ) -> None:
        found = installed.python_says(
            "import importlib.util\n"
            f"print([n for n in {WEB_SERVER!r} if importlib.util.find_spec(n)])"
        )
        command = run(str(installed.venv / "bin" / "workspace-emulator"), "--port", "0",
                      cwd=installed.workdir, check=False)
        installed.pip("pytest")
        (installed.workdir / "test_fixture.py").write_text(FIXTURE_TEST)
        tested = installed.pytest()

        assert found.strip() == "[]"
        assert command.returncode == 2 and INSTALL_HINT in command.stderr, command.stderr
        # The plugin loads without the extra; the fixture fails with what to install.
        assert tested.returncode == 1, tested.stdout + tested.stderr
        assert "1 error" in tested.stdout and INSTALL_HINT in tested.stdout, tested.stdout

    def test_with_the_extra_the_emulator_fixture_serves_a_test(
        self, installed: Installed
    ) -> None:
        installed.pip(f"{installed.wheel}[emulator]")
        tested = installed.pytest()

        assert tested.returncode == 0, tested.stdout + tested.stderr
        assert "1 passed" in tested.stdout, tested.stdout


def test_this_leg_runs_the_newest_sdk_under_the_modern_engine() -> None:
    """The SDK is newer than the lock-step release, the engine the modern build."""
    engine = engine_bin_dir()
    version = subprocess.run(
        [str(engine / "pulumi"), "version"], check=True, capture_output=True, text=True
    ).stdout.strip()
    constraints = (Path(__file__).parents[2] / "constraints.txt").read_text()
    [pinned] = [ln.split("==")[1] for ln in constraints.splitlines() if ln.startswith("pulumi==")]

    assert Version(importlib.metadata.version("pulumi")) > Version(pinned)
    assert Version(version.removeprefix("v")) > Version(pinned)
    assert not (engine / "pulumi-language-python").exists()  # inline programs only
