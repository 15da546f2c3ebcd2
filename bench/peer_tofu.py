"""The peer tools of the benches: the service's Terraform provider and OpenTofu, built by
bench/peer/ensure.sh from the Go module proxy, pointed at a running emulator.

Shared by bench/adopt_cost.py (the provider's exporter, and `tofu plan` of what it wrote) and
bench/deploy_cost.py (`tofu apply`, refresh and destroy of the bench's mix): how the tools are
found or built, the personal access token the provider signs in with, the environment it
runs in, and the CLI configuration under which the provider built here stands in for the
registry's.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import requests

from workspace_emulator.testing import EmulatorInfo, fetch_token

ROOT = Path(__file__).resolve().parent.parent
PEER_ENSURE = ROOT / "bench" / "peer" / "ensure.sh"
# The provider's source address as a configuration names it (the exporter's too): in short
# form, which OpenTofu completes with its default registry, the dev override's key as well.
PROVIDER_SOURCE = "databricks/databricks"


def ensure_peer(tool: str = "provider",
                progress: Callable[[str], None] | None = None) -> tuple[Path | None, str]:
    """The binary of the Terraform provider (`provider`) or of OpenTofu (`tofu`):
    bench/peer/ensure.sh builds it from the Go module proxy once per machine; or None and why
    not. `progress` gets ensure.sh's own lines as they come (it says when it builds)."""
    try:
        process = subprocess.Popen(["bash", str(PEER_ENSURE), tool], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        return None, f"bench/peer/ensure.sh did not start: {exc}"
    assert process.stderr is not None and process.stdout is not None
    said: list[str] = []
    for line in process.stderr:
        said.append(line.rstrip("\n"))
        if progress is not None:
            progress(said[-1])
    out = process.stdout.read()
    code = process.wait()
    if code != 0:
        tail = "\n".join(said[-5:])
        return None, f"bench/peer/ensure.sh {tool} failed ({code}): {tail}"
    return Path(out.strip().splitlines()[-1]), ""


def version_of(binary: Path) -> str:
    """`v1.84.0` from ensure.sh's cache layout (`<name>-<version>/bin/<name>`)."""
    return binary.parent.parent.name.removeprefix(f"{binary.name}-")


def personal_access_token(info: EmulatorInfo, comment: str = "bench: the Terraform provider",
                          lifetime_seconds: int = 7200) -> str:
    """A PAT of the emulator's bootstrap principal (a workspace admin)."""
    response = requests.post(
        f"{info.base_url}/api/2.0/token/create",
        json={"comment": comment, "lifetime_seconds": lifetime_seconds},
        headers={"Authorization": f"Bearer {fetch_token(info)}"}, timeout=10,
    )
    response.raise_for_status()
    return str(response.json()["token_value"])


def peer_env(info: EmulatorInfo, token: str, home: Path) -> dict[str, str]:
    """The machine's environment without any other Databricks or Azure settings (the SDK's
    config would pick them up), a HOME of its own (no ~/.databrickscfg), the PAT."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DATABRICKS_", "ARM_", "AZURE_", "TF_"))}
    env.update({"HOME": str(home), "DATABRICKS_HOST": info.base_url,
                "DATABRICKS_TOKEN": token, "CHECKPOINT_DISABLE": "1"})
    return env


def tofu_env(env: dict[str, str], provider: Path, cli_config: Path) -> dict[str, str]:
    """`env` for OpenTofu, with a CLI configuration (written to `cli_config`) whose dev
    override makes the provider built here the one a configuration gets, with no `init`."""
    cli_config.write_text(
        "provider_installation {\n  dev_overrides {\n"
        f'    "{PROVIDER_SOURCE}" = "{provider.parent}"\n'
        "  }\n  direct {}\n}\n"
    )
    return {**env, "TF_CLI_CONFIG_FILE": str(cli_config), "TF_IN_AUTOMATION": "1"}


def timed(command: list[str], env: dict[str, str], cwd: Path = ROOT,
          timeout: float = 1800) -> tuple[subprocess.CompletedProcess[str], float]:
    began = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    return result, time.perf_counter() - began
