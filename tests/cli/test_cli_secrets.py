"""`databricks secrets`: put-secret (string, bytes, standard input), list-secrets,
get-secret, delete-secret, and scope ACLs (put-acl, get-acl, list-acls, delete-acl),
enforced for a service principal that is not a workspace admin."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Callable

import pytest

from tests.cli.cli import Cli
from tests.emulator.support import unique
from workspace_emulator.testing import register_application


@pytest.fixture
def scope(cli: Cli) -> str:
    name = unique("cli-secrets")
    cli.ok("secrets", "create-scope", name)
    return name


def _value(cli: Cli, scope: str, key: str) -> bytes:
    return base64.b64decode(cli.ok("secrets", "get-secret", scope, key)["value"])


def test_put_list_get_delete(cli: Cli, scope: str) -> None:
    assert cli.ok("secrets", "put-secret", scope, "text", "--string-value", "hunter2") is None
    # The flag takes the bytes themselves (the CLI encodes them); --json takes base64.
    cli.ok("secrets", "put-secret", scope, "bytes", "--bytes-value", "raw bytes")
    raw = b"\x00\x01binary\xff"
    cli.ok("secrets", "put-secret", "--json", json.dumps(
        {"scope": scope, "key": "json", "bytes_value": base64.b64encode(raw).decode()}))
    piped = subprocess.run([str(cli.binary), "secrets", "put-secret", scope, "piped"],
                           input="from stdin", env=cli.env, cwd=cli.home, capture_output=True,
                           text=True, timeout=60, check=False)
    assert piped.returncode == 0, piped.stderr

    listed = cli.ok("secrets", "list-secrets", scope)
    assert sorted(s["key"] for s in listed) == ["bytes", "json", "piped", "text"]
    assert all("value" not in s and s["last_updated_timestamp"] > 0 for s in listed)
    assert _value(cli, scope, "text") == b"hunter2"
    assert _value(cli, scope, "bytes") == b"raw bytes"
    assert _value(cli, scope, "json") == raw
    assert _value(cli, scope, "piped") == b"from stdin"

    cli.ok("secrets", "put-secret", scope, "text", "--string-value", "changed")
    assert _value(cli, scope, "text") == b"changed"

    assert cli.ok("secrets", "delete-secret", scope, "bytes") is None
    assert sorted(s["key"] for s in cli.ok("secrets", "list-secrets", scope)) == [
        "json", "piped", "text"]
    again = cli.fails("secrets", "delete-secret", scope, "bytes")
    assert again.status == 404
    missing = cli.fails("secrets", "get-secret", scope, "nothing")
    assert missing.status == 404


def test_secrets_of_an_unknown_scope(cli: Cli) -> None:
    failure = cli.fails("secrets", "put-secret", "no-such-scope", "k", "--string-value", "v")
    assert failure.status == 404
    assert cli.fails("secrets", "list-secrets", "no-such-scope").status == 404


def test_acls_put_get_list_delete(cli: Cli, scope: str, emulator) -> None:
    # The creator of a scope holds MANAGE on it.
    assert cli.ok("secrets", "list-acls", scope) == [
        {"principal": emulator.client_id, "permission": "MANAGE"}]
    assert cli.ok("secrets", "put-acl", scope, "users", "READ") is None
    assert cli.ok("secrets", "get-acl", scope, "users") == {
        "principal": "users", "permission": "READ"}
    cli.ok("secrets", "put-acl", scope, "users", "WRITE")
    acls = {a["principal"]: a["permission"] for a in cli.ok("secrets", "list-acls", scope)}
    assert acls == {emulator.client_id: "MANAGE", "users": "WRITE"}
    assert cli.ok("secrets", "delete-acl", scope, "users") is None
    gone = cli.fails("secrets", "get-acl", scope, "users")
    assert gone.status == 404
    bad = cli.fails("secrets", "put-acl", scope, "users", "OWNER")
    assert bad.status == 400


def test_acls_are_enforced_for_a_principal_without_them(
        cli: Cli, cli_as: Callable[[dict[str, str]], Cli], scope: str, emulator) -> None:
    application = register_application(emulator, unique("cli-reader"))
    cli.ok("service-principals", "create", "--application-id", application["client_id"])
    reader = cli_as(application)
    cli.ok("secrets", "put-secret", scope, "key", "--string-value", "secret-value")

    refused = reader.fails("secrets", "get-secret", scope, "key")
    assert refused.status == 403
    assert refused.message == (
        f"{application['client_id']} does not have READ permission on scope {scope}.")
    assert reader.fails("secrets", "list-secrets", scope).status == 403

    cli.ok("secrets", "put-acl", scope, application["client_id"], "READ")
    assert _value(reader, scope, "key") == b"secret-value"
    assert [s["key"] for s in reader.ok("secrets", "list-secrets", scope)] == ["key"]
    # READ is not WRITE (put, delete) nor MANAGE (ACLs).
    write = reader.fails("secrets", "put-secret", scope, "key", "--string-value", "x")
    assert write.status == 403 and "WRITE" in write.message
    assert reader.fails("secrets", "delete-secret", scope, "key").status == 403
    manage = reader.fails("secrets", "list-acls", scope)
    assert manage.status == 403 and "MANAGE" in manage.message
    assert _value(cli, scope, "key") == b"secret-value"
