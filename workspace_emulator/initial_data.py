"""The workspace's initial data: what a new workspace database starts with.

The file (default: the packaged initial_data.json) is read only when the database is new.
The identity and workspace settings it names are stored with the data, so a later start
with another initial-data file keeps talking to the same tenant with the same bootstrap
credentials.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from workspace_emulator.identity.federation import (
    FEDERATED_CREDENTIAL,
    FEDERATION_POLICY,
    trust_from_initial_data,
)
from workspace_emulator.platform.area import InitialData
from workspace_emulator.platform.workspace import Workspace
from workspace_emulator.storage import INITIALISED_KEY, Database

# What a reset keeps: the stored settings and the identity provider's (and the account's)
# state: applications, issued tokens, OAuth secrets, federation trusts, role assignments
# and managed identities. The identity provider is no part of the workspace, and a test's
# client keeps its token across a reset.
KEPT_ON_RESET = ("meta", "applications", "tokens", "oauth_secrets", "federated_trusts",
                 "role_assignments", "managed_identities")
DEFAULT_RESOURCE_ID = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
                       "emulated/providers/Microsoft.Databricks/workspaces/{name}")

CONFIG_KEY = "config"
REQUIRED_SECTIONS = ("workspace", "identity", "groups")


class InitialDataError(ValueError):
    pass


@dataclass(frozen=True)
class StoredConfig:
    tenant_id: str
    resource: str
    management_resource: str
    client_id: str
    client_secret: str
    workspace_id: int
    metastore_id: str
    # Written by versions before it existed without one: the default's then.
    workspace_resource_id: str = ""


def default_initial_data_path() -> Path:
    return Path(str(resources.files("workspace_emulator").joinpath("initial_data.json")))


def load_initial_data(path: Path | None) -> dict[str, Any]:
    path = path or default_initial_data_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InitialDataError(f"cannot read initial-data file {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InitialDataError(f"initial-data file {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise InitialDataError(f"initial-data file {path} must hold a JSON object")
    missing = [s for s in REQUIRED_SECTIONS if s not in data]
    if missing:
        raise InitialDataError(
            f"initial-data file {path} lacks section(s): {', '.join(missing)}")
    return data


def config_from_initial_data(data: dict[str, Any]) -> StoredConfig:
    try:
        identity, bootstrap = data["identity"], data["identity"]["bootstrap_application"]
        return StoredConfig(
            tenant_id=identity["tenant_id"],
            resource=identity["resource"],
            management_resource=identity.get("management_resource",
                                             "https://management.core.windows.net/"),
            client_id=bootstrap["client_id"],
            client_secret=bootstrap["client_secret"],
            workspace_id=int(data["workspace"]["id"]),
            metastore_id=data["workspace"].get("metastore_id", "emulated-metastore"),
            workspace_resource_id=identity.get("workspace_resource_id") or
            DEFAULT_RESOURCE_ID.format(name=data["workspace"].get("name", "emulated")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InitialDataError(
            f"initial data's identity/workspace settings incomplete: {exc!r}") from exc


def stored_config(db: Database) -> StoredConfig | None:
    data = db.get_meta(CONFIG_KEY)
    if data is None:
        return None
    if not data.get("workspace_resource_id"):
        data["workspace_resource_id"] = DEFAULT_RESOURCE_ID.format(name="emulated")
    return StoredConfig(**data)


def store_config(db: Database, config: StoredConfig) -> None:
    with db.write() as conn:
        db.set_meta(conn, CONFIG_KEY, asdict(config))


def apply_initial_data(db: Database, data: dict[str, Any], config: StoredConfig,
                       ws: Workspace) -> None:
    """Fills a new database with the initial data, as one transaction."""
    try:
        with db.write() as conn:
            _apply(conn, data, config, ws)
            db.set_meta(conn, INITIALISED_KEY, True)
    except (KeyError, TypeError, ValueError) as exc:
        raise InitialDataError(f"initial data rejected: {exc!r}") from exc


def reset_workspace(db: Database, data: dict[str, Any], config: StoredConfig,
                    ws: Workspace) -> None:
    """Empties every workspace table (and the id counters, so ids repeat) and applies the
    initial data again, as one transaction: a reader sees the old or the new workspace."""
    try:
        with db.write() as conn:
            tables = [row["name"] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%'")]
            for table in tables:
                if table not in KEPT_ON_RESET:
                    conn.execute(f'DELETE FROM "{table}"')
            _apply(conn, data, config, ws)
    except (KeyError, TypeError, ValueError) as exc:
        raise InitialDataError(f"initial data rejected: {exc!r}") from exc


def _apply_azure_identity(identity: dict[str, Any], config: StoredConfig,
                          ws: Workspace) -> None:
    """Managed identities, role assignments and federation trusts (applied again by a reset,
    replacing entries of the same key)."""
    for managed in identity.get("managed_identities", []):
        ws.identity.register_secretless_application(
            managed["client_id"], managed.get("display_name", managed["client_id"]))
        ws.identity.managed_identities.add(managed["client_id"],
                                           managed.get("type", "system-assigned") ==
                                           "system-assigned")
    for assignment in identity.get("role_assignments", []):
        ws.identity.role_assignments.assign(
            assignment["client_id"], assignment["role"],
            assignment.get("scope") or config.workspace_resource_id)
    for policy in identity.get("federation_policies", []):
        ws.identity.trusts.add(trust_from_initial_data(FEDERATION_POLICY, policy))
    for credential in identity.get("federated_credentials", []):
        ws.identity.trusts.add(trust_from_initial_data(FEDERATED_CREDENTIAL, credential))


def _apply(conn, data: dict[str, Any], config: StoredConfig,
           ws: Workspace) -> None:
    """The identity provider's part, then each area's, in the registry's order."""
    identity = data["identity"]
    bootstrap = identity["bootstrap_application"]
    ws.identity.register_application(config.client_id, config.client_secret,
                                     bootstrap.get("display_name", "bootstrap"))
    for app in identity.get("applications", []):
        ws.identity.register_application(app["client_id"], app["client_secret"],
                                         app.get("display_name", app["client_id"]))
    _apply_azure_identity(identity, config, ws)

    initial = InitialData(conn, data, ws.workspace_id, ws.directory)
    for area, state in ws.opened:
        if area.initial_data is not None:
            area.initial_data(state, initial)
