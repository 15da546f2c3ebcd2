"""Runs the service's official CLI against an emulator, as a user on a fresh machine would.

Authentication is by environment (`DATABRICKS_HOST`, `DATABRICKS_TOKEN` with a token from
the emulator's identity provider); the CLI's home and config file live in a directory of
the test run, so nothing of the user's (`~/.databrickscfg`, profiles, caches) is read or
written. `--debug` output gives the HTTP exchange, so a test can check what the CLI sent
and the status it got.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMMAND_TIMEOUT_SECONDS = 120
_REQUEST_LINE = re.compile(r"Debug: (GET|POST|PUT|PATCH|DELETE) (\S+)")
_STATUS_LINE = re.compile(r"^< HTTP/1\.1 (\d{3}) ")


@dataclass(frozen=True)
class Exchange:
    """One HTTP request the CLI made (from its --debug log) and the status it got."""

    method: str
    path: str
    body: Any
    status: int | None


def exchanges(debug_log: str) -> list[Exchange]:
    """The requests in a `--debug` log: method, path (with query), JSON body, status."""
    found: list[Exchange] = []
    lines = debug_log.splitlines()
    for index, line in enumerate(lines):
        match = _REQUEST_LINE.search(line)
        if match is None:
            continue
        body_lines, status = [], None
        for following in lines[index + 1:]:
            if following.startswith("> "):
                body_lines.append(following[2:])
                continue
            status_match = _STATUS_LINE.match(following)
            if status_match:
                status = int(status_match.group(1))
            break
        body = json.loads("\n".join(body_lines)) if body_lines else None
        found.append(Exchange(match.group(1), match.group(2), body, status))
    return found


@dataclass(frozen=True)
class Failure:
    """A command that exited non-zero: its error line and the last HTTP status it got."""

    message: str
    status: int | None
    exchanges: list[Exchange]


class Cli:
    """The CLI binary with one identity against one emulator."""

    def __init__(self, binary: Path, home: Path, host: str, token: str | None) -> None:
        self.binary = binary
        self.home = home
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "DATABRICKS_CONFIG_FILE": str(home / ".databrickscfg"),
            "DATABRICKS_CLI_DISABLE_TELEMETRY": "1",
            "DATABRICKS_HOST": host,
        }
        if token is not None:
            self.env["DATABRICKS_TOKEN"] = token

    def with_env(self, **changes: str | None) -> Cli:
        """The same CLI with environment variables changed (None removes one)."""
        other = Cli(self.binary, self.home, self.env["DATABRICKS_HOST"], None)
        other.env = {**self.env}
        for name, value in changes.items():
            if value is None:
                other.env.pop(name, None)
            else:
                other.env[name] = value
        return other

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.binary), *args], env=self.env, cwd=self.home, capture_output=True,
            text=True, timeout=COMMAND_TIMEOUT_SECONDS, check=False)

    def ok(self, *args: str) -> Any:
        """Runs `args -o json`; asserts success; the JSON it printed (None if nothing)."""
        result = self.run(*args, "-o", "json")
        assert result.returncode == 0, f"databricks {' '.join(args)}: {result.stderr}"
        return json.loads(result.stdout) if result.stdout.strip() else None

    def sent(self, *args: str) -> tuple[Any, list[Exchange]]:
        """Runs `args -o json --debug`; asserts success; (its JSON, the requests it made)."""
        result = self.run(*args, "-o", "json", "--debug")
        assert result.returncode == 0, f"databricks {' '.join(args)}: {result.stderr}"
        output = json.loads(result.stdout) if result.stdout.strip() else None
        return output, exchanges(result.stderr)

    def fails(self, *args: str) -> Failure:
        """Runs `args --debug`; asserts it fails; its error and the status the service gave."""
        result = self.run(*args, "--debug")
        assert result.returncode != 0, f"databricks {' '.join(args)} succeeded: {result.stdout}"
        errors = [line[len("Error: "):] for line in result.stderr.splitlines()
                  if line.startswith("Error: ")]
        assert errors, result.stderr
        sent = exchanges(result.stderr)
        return Failure(errors[-1], sent[-1].status if sent else None, sent)
