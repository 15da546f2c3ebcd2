"""The resource-plugin launcher (tools/engine/launchers/pulumi-resource-pulumi-python): which
provider host it runs, and that a `providers` package of a team's own, found first on the
host's path, stops it with a message instead of a silent fall back to Pulumi's own host
(which cannot serve the workspace kinds).

No engine is needed: the launcher is run as the engine runs it, in the program's directory,
and a host that starts prints its port on stdout."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from stacks.pulumi_cli import REPO_ROOT

LAUNCHER = REPO_ROOT / "tools" / "engine" / "launchers" / "pulumi-resource-pulumi-python"
WAIT_SECONDS = 30


def run_launcher(cwd: Path, **env: str) -> tuple[str, int | None, str]:
    """(the first stdout line, the exit code or None while it still serves, stderr)."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("PULUMI_RUNTIME_VIRTUALENV", "PULUMI_PYTHON_CMD")}
    process = subprocess.Popen(
        ["sh", str(LAUNCHER)], cwd=cwd, env={**environment, **env},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    stdout = process.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    try:
        first = lines.get(timeout=WAIT_SECONDS)
    except queue.Empty:
        first = None
    if first == "":  # stdout closed: the launcher is exiting
        process.wait(timeout=WAIT_SECONDS)
    code = process.poll()
    if code is None:
        process.kill()
    process.wait(timeout=10)
    stderr = process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    return (first or "").strip(), code, stderr


def test_the_project_virtualenv_runs_the_workspace_host(tmp_path: Path) -> None:
    first, code, stderr = run_launcher(tmp_path, PULUMI_RUNTIME_VIRTUALENV=sys.prefix)
    assert code is None, stderr
    assert first.isdigit(), (first, stderr)  # the host's port


def test_a_teams_own_providers_package_stops_the_launcher_naming_it(tmp_path: Path) -> None:
    own = tmp_path / "providers"
    own.mkdir()
    (own / "__init__.py").write_text('"""A team\'s own providers, no host module."""\n')

    first, code, stderr = run_launcher(tmp_path, PULUMI_RUNTIME_VIRTUALENV=sys.prefix)

    assert code not in (None, 0), f"the launcher served ({first!r}) instead of failing"
    assert not first.isdigit()
    assert str(own) in stderr
    assert "no `core.host` module" in stderr and "Rename that package" in stderr
    assert "Traceback" not in stderr


def test_without_any_providers_package_pulumis_own_host_serves(tmp_path: Path) -> None:
    # An interpreter that finds no `providers` package anywhere (the project's virtualenv
    # reaches the checkout by a path entry, so a finder that refuses it stands in for a
    # virtualenv without the package).
    shim = tmp_path / "shim.py"
    shim.write_text(textwrap.dedent("""\
        import sys

        class NoProviders:
            def find_spec(self, name, path=None, target=None):
                if name == "providers" or name.startswith("providers."):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, NoProviders())
        code = sys.argv[sys.argv.index("-c") + 1]
        sys.argv = ["-c"]
        exec(compile(code, "<launcher>", "exec"), {"__name__": "__main__"})
    """))
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" -u "{shim}" "$@"\n')
    python.chmod(0o755)

    first, code, stderr = run_launcher(tmp_path, PULUMI_PYTHON_CMD=str(python))

    assert code is None, stderr
    assert first.isdigit(), (first, stderr)
