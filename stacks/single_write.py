"""The single-write mode of the project's runs (docs/state.md, "Single-write mode"): the
engine writes the stack's state once, at the end of a deployment, not after every step.

On by default for the project's own runs (the demo, the drills, the benches in their
`_single` variants); a team turns it on for its stack with `workspace:singleWrite: true` in
Pulumi.<stack>.yaml or WORKSPACE_IAC_SINGLE_WRITE=true, and off with either set to false
(the variable wins). `PulumiCli.single_write` gives the engine its variables
(stacks/pulumi_cli.py, `engine_variables`).

Refused, with the reason, for a stack whose state holds a custom resource of another
provider (only workspace kinds adopt what an interrupted run made); the program refuses to
declare one in the mode (providers/auth/single_write.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from providers.auth.single_write import is_safe_custom_type, refusal
from stacks.pulumi_cli import PulumiCli

MODE_VARIABLE = "WORKSPACE_IAC_SINGLE_WRITE"
CONFIG_KEY = "workspace:singleWrite"
TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off", ""})


class SingleWriteRefused(RuntimeError):
    """The stack's state holds resources the mode cannot keep safe."""


def _flag(value: Any, where: str) -> bool:
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise SingleWriteRefused(f"{where}: {value!r} is neither true nor false")


def requested(project_dir: Path, stack: str, default: bool = False) -> bool:
    """Whether the stack's runs write the state once: the variable, else the stack's
    config, else `default`."""
    if MODE_VARIABLE in os.environ:
        return _flag(os.environ[MODE_VARIABLE], MODE_VARIABLE)
    config_file = project_dir / f"Pulumi.{stack}.yaml"
    if config_file.is_file():
        config = (yaml.safe_load(config_file.read_text()) or {}).get("config") or {}
        if CONFIG_KEY in config:
            return _flag(config[CONFIG_KEY], f"{config_file.name}: {CONFIG_KEY}")
    return default


def other_providers_resources(resources: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """(type, name) of each custom resource of the state the mode cannot keep safe."""
    return [
        (r["type"], r["urn"].rsplit("::", 1)[-1])
        for r in resources
        if r.get("custom", True) and not is_safe_custom_type(r["type"])
    ]


def refusal_for(deployment: dict[str, Any]) -> str | None:
    """Why a stack of this deployment (`pulumi stack export`) cannot run in the mode."""
    found = other_providers_resources((deployment.get("deployment") or {}).get("resources") or [])
    if not found:
        return None
    shown = "; ".join(refusal(type_, name) for type_, name in found[:3])
    more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
    return f"the stack's state holds resources of other providers: {shown}{more}"


def stack_exists(cli: PulumiCli) -> bool:
    listed = cli.run("stack", "ls", "--json", check=False)
    return listed.returncode == 0 and any(
        s.get("name") == cli.stack for s in json_list(listed.stdout)
    )


def json_list(text: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def enable(cli: PulumiCli) -> PulumiCli:
    """`cli` in the mode, once its stack's state is found to hold only what the mode keeps
    safe; SingleWriteRefused saying why not."""
    if stack_exists(cli):
        why = refusal_for(cli.export())
        if why is not None:
            raise SingleWriteRefused(f"stack {cli.stack}: single-write mode refused: {why}")
    cli.single_write = True
    return cli


def as_requested(cli: PulumiCli, default: bool = False) -> PulumiCli:
    """`cli` in the mode where its stack asks for it (`requested`), checked by `enable`."""
    if requested(cli.project_dir, cli.stack, default):
        return enable(cli)
    return cli
