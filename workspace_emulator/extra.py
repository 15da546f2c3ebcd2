"""The `emulator` extra: the web server the emulator runs on, which a plain
`pip install workspace-iac` leaves out. Checked before starting one, so that a missing extra
says what to install instead of failing on an import."""

from __future__ import annotations

import importlib.util

MODULES = ("fastapi", "uvicorn")
INSTALL = "pip install 'workspace-iac[emulator]'"


class EmulatorExtraMissing(RuntimeError):
    """The emulator cannot run in this environment: its extra is not installed."""


def missing_extra() -> str | None:
    """What to install, where the extra is missing; None where it is installed."""
    missing = [name for name in MODULES if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return (
        f"the workspace emulator cannot run without {' and '.join(missing)}, which the "
        f"package's `emulator` extra installs: {INSTALL}"
    )


def require_emulator_extra() -> None:
    problem = missing_extra()
    if problem is not None:
        raise EmulatorExtraMissing(problem)
