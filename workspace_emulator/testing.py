"""Start the emulator as a subprocess for tests, and talk to its admin endpoints.

    with running_emulator() as info:
        token = fetch_token(info)
        requests.get(f"{info.base_url}/api/2.0/clusters/list",
                     headers={"Authorization": f"Bearer {token}"})
        WorkspaceAuthArgs(**info.auth_args())       # a Pulumi program's connection to it

The pytest fixtures around it are in workspace_emulator/pytest_plugin.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import requests

from workspace_emulator.extra import require_emulator_extra

START_TIMEOUT_SECONDS = 30.0
STOP_TIMEOUT_SECONDS = 15.0
INFO_FIELDS = ("base_url", "auth_url", "app_url", "admin_url", "flow_api_base", "tenant_id",
               "client_id", "client_secret", "resource", "management_resource", "admin_token",
               "workspace_resource_id", "managed_identity_endpoint", "managed_identity_header",
               "imds_endpoint", "github_oidc_request_url", "github_oidc_request_token")
# Fields an emulator of an earlier version may not print (read as "").
OPTIONAL_INFO_FIELDS = INFO_FIELDS[INFO_FIELDS.index("admin_token"):]
# The real service's spelling of the API, which a team's program sends in production.
DEFAULT_WIRE_FORM = "public"
# The account around the emulator's workspace (initial_data.json `account.id`): what a
# stack's `workspace:accountId` names, its account host being the emulator's own URL.
ACCOUNT_ID = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"


class ConfigValue(NamedTuple):
    """One stack config value; `pulumi.automation.ConfigValue(*value)` takes it as it is."""

    value: str
    secret: bool = False


@dataclass(frozen=True)
class EmulatorInfo:
    """The start-up JSON line, plus the process that printed it."""

    base_url: str
    auth_url: str
    app_url: str
    admin_url: str
    flow_api_base: str
    tenant_id: str
    client_id: str
    client_secret: str = field(repr=False)
    resource: str
    management_resource: str
    # What the administrative API (/_emulator/*) asks for; the helpers below send it.
    admin_token: str = field(default="", repr=False)
    # The workspace as an Azure resource (the management-token sign-in names it).
    workspace_resource_id: str = ""
    # The secretless sign-ins' loopback endpoints (workspace_emulator/README.md#signing-in).
    managed_identity_endpoint: str = ""
    managed_identity_header: str = field(default="", repr=False)
    imds_endpoint: str = ""
    github_oidc_request_url: str = ""
    github_oidc_request_token: str = field(default="", repr=False)
    process: subprocess.Popen | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_json(cls, line: str, process: subprocess.Popen | None = None) -> EmulatorInfo:
        data = json.loads(line)
        values = {name: data[name] for name in INFO_FIELDS if name not in OPTIONAL_INFO_FIELDS}
        # An emulator of before the admin token printed none (its admin API asked for none),
        # nor the sign-in fields before those.
        optional = {name: data.get(name, "") for name in OPTIONAL_INFO_FIELDS}
        return cls(**values, **optional, process=process)

    def admin_headers(self) -> dict[str, str]:
        """The header the administrative API (/_emulator/*) needs."""
        return {"Authorization": f"Bearer {self.admin_token}"}

    @property
    def token_url(self) -> str:
        return f"{self.auth_url}/{self.tenant_id}/oauth2/token"

    @property
    def oidc_token_url(self) -> str:
        """The workspace's own OAuth token endpoint (OAuth secrets, token federation)."""
        return f"{self.base_url}/oidc/v1/token"

    def auth_args(self, wire_form: str = DEFAULT_WIRE_FORM) -> dict[str, Any]:
        """`WorkspaceAuthArgs(**info.auth_args())`: the bootstrap principal (a workspace
        admin) over plain HTTP, which the emulator's loopback addresses allow."""
        return {
            "base_url": self.base_url,
            "auth_url": self.auth_url,
            "tenant_id": self.tenant_id,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "resource": self.resource,
            "wire_form": wire_form,
            "allow_insecure_http": True,
        }

    def stack_config(self, wire_form: str = DEFAULT_WIRE_FORM,
                     namespace: str = "workspace") -> dict[str, ConfigValue]:
        """The same as stack config, under the keys of the Connection table of
        docs/configuration.md
        (`workspace:baseUrl`, ...), the client secret a secret: for `pulumi config set
        [--secret] KEY VALUE` or the Automation API's `stack.set_all_config`."""
        return {
            f"{namespace}:{_camel_case(name)}": ConfigValue(
                str(value).lower() if isinstance(value, bool) else value,
                secret=name == "client_secret",
            )
            for name, value in self.auth_args(wire_form).items()
        }


def _camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def emulator_command(options: dict[str, Any]) -> list[str]:
    """`python -m workspace_emulator` flags for keyword options: in_memory=True,
    fault_rate_500=0.1..."""
    settings: dict[str, Any] = {"port": 0, "transition_seconds": 0}
    if "data_dir" not in options:
        settings["in_memory"] = True
    settings.update(options)
    command = [sys.executable, "-m", "workspace_emulator"]
    for name, value in settings.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            command.append(flag)
        elif isinstance(value, list | tuple):
            command += [flag, ",".join(str(v) for v in value)]
        else:
            command += [flag, str(value)]
    return command


EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _ephemeral_low(default: int = 32768) -> int:
    try:
        return int(EPHEMERAL_RANGE_FILE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


def free_port_block(size: int = 5, attempts: int = 200) -> int:
    """A port P with P..P+size-1 free now (the emulator takes five consecutive ports).

    Drawn below the kernel's ephemeral range: a port the kernel hands out to outgoing
    connections may be taken by one between this check and the emulator's bind, which
    a busy parallel test run does within seconds."""
    high = _ephemeral_low() - size
    for _ in range(attempts):
        base = random.randint(10_000, high)
        holders: list[socket.socket] = []
        try:
            for port in range(base, base + size):
                holder = socket.socket()
                holders.append(holder)
                holder.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for holder in holders:
                holder.close()
    raise RuntimeError(f"no {size} consecutive free ports found in {attempts} attempts")


class EmulatorProcess:
    """One emulator subprocess: start (waits for the JSON line), stop (SIGTERM), kill."""

    def __init__(self, extra_args: Sequence[str] = (), env: dict[str, str] | None = None,
                 **options: Any) -> None:
        self.command = emulator_command(options) + list(extra_args)
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen | None = None
        self._stderr = tempfile.TemporaryFile()

    def start(self, timeout: float = START_TIMEOUT_SECONDS) -> EmulatorInfo:
        require_emulator_extra()
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.PIPE, stderr=self._stderr, env=self.env,
            cwd=os.getcwd(), text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        stdout = self.process.stdout
        assert stdout is not None
        threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise RuntimeError(f"emulator printed nothing in {timeout}s: {self.stderr()}") from None
        if not line.strip():
            self.process.wait(timeout=5)
            raise RuntimeError(
                f"emulator exited with {self.process.returncode}: {self.stderr()}")
        return EmulatorInfo.from_json(line, self.process)

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-4000:]

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> int:
        """SIGTERM and wait; returns the exit code."""
        if self.process is None or self.process.poll() is not None:
            return self.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        return self.returncode

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    @property
    def returncode(self) -> int:
        return -1 if self.process is None or self.process.returncode is None else \
            self.process.returncode

    def close(self) -> None:
        self.stop()
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()
        self._stderr.close()


@contextlib.contextmanager
def running_emulator(extra_args: Sequence[str] = (), env: dict[str, str] | None = None,
                     **options: Any) -> Iterator[EmulatorInfo]:
    """`python -m workspace_emulator --port 0 --in-memory --transition-seconds 0` plus `options`
    (keyword names are flag names with underscores); SIGTERM on exit."""
    emulator = EmulatorProcess(extra_args, env, **options)
    try:
        yield emulator.start()
    finally:
        emulator.close()


# talking to a running emulator (the administrative API with the info's admin token)

def fetch_token(info: EmulatorInfo, client_id: str | None = None,
                client_secret: str | None = None, resource: str | None = None) -> str:
    """A token from the identity provider (public form: POST, client_credentials)."""
    response = requests.post(info.token_url, data={
        "grant_type": "client_credentials",
        "client_id": client_id or info.client_id,
        "client_secret": client_secret or info.client_secret,
        "resource": resource or info.resource,
    }, timeout=10)
    response.raise_for_status()
    return response.json()["access_token"]


def auth_headers(info: EmulatorInfo, **token_options: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {fetch_token(info, **token_options)}"}


def request_log(info: EmulatorInfo) -> list[dict[str, Any]]:
    response = requests.get(f"{info.base_url}/_emulator/requests",
                            headers=info.admin_headers(), timeout=10)
    response.raise_for_status()
    return response.json()["requests"]


def clear_request_log(info: EmulatorInfo) -> None:
    requests.delete(f"{info.base_url}/_emulator/requests", headers=info.admin_headers(),
                    timeout=10).raise_for_status()


def set_faults(info: EmulatorInfo, **settings: Any) -> dict[str, Any]:
    """Replaces the fault settings: rate_429, rate_500, rate_503, rate_drop, latency_ms,
    random_state, paths (list of globs). Calling it with nothing turns faults off."""
    response = requests.post(f"{info.base_url}/_emulator/faults", json=settings,
                             headers=info.admin_headers(), timeout=10)
    response.raise_for_status()
    return response.json()


def get_faults(info: EmulatorInfo) -> dict[str, Any]:
    response = requests.get(f"{info.base_url}/_emulator/faults", headers=info.admin_headers(),
                            timeout=10)
    response.raise_for_status()
    return response.json()


def reset_workspace(info: EmulatorInfo) -> None:
    """Returns the workspace to its initial data (and empties the request log); tokens,
    fault settings and the clock are kept."""
    requests.post(f"{info.base_url}/_emulator/reset", headers=info.admin_headers(),
                  timeout=30).raise_for_status()


def advance_clock(info: EmulatorInfo, seconds: float) -> int:
    """Moves the manual clock (`clock="manual"`) on; returns the new time in ms."""
    response = requests.post(f"{info.base_url}/_emulator/clock/advance",
                             json={"seconds": seconds}, headers=info.admin_headers(), timeout=10)
    response.raise_for_status()
    return response.json()["now_ms"]


def register_application(info: EmulatorInfo, display_name: str | None = None) -> dict[str, str]:
    """A new identity-provider application (client_id, client_secret, display_name)."""
    body = {"display_name": display_name} if display_name else {}
    response = requests.post(f"{info.base_url}/_emulator/applications", json=body,
                             headers=info.admin_headers(), timeout=10)
    response.raise_for_status()
    return response.json()


def initial_applications(initial_data: Path | None = None) -> list[dict[str, str]]:
    """The extra (non-bootstrap) applications of an initial-data file, default the packaged
    one."""
    from workspace_emulator.initial_data import load_initial_data

    return list(load_initial_data(initial_data)["identity"].get("applications", []))
