"""The project's `local` stack (Pulumi.local.yaml) pointed at an emulator on free ports,
in a scratch project directory with its own file-backend state.

The desired objects are read from Pulumi.local.yaml at run time, so the drills always
deploy what the demo deploys; only the connection settings are swapped for the
emulator's. The local stack's secret values are read decrypted (its development
passphrase) and written to a scratch stack encrypted under that stack's own salt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from providers.core.registry import by_config_key
from stacks.pulumi_cli import (
    LOCAL_PASSPHRASE,
    REPO_ROOT,
    PulumiCli,
    inline_where_needed,
    project_settings,
)
from tools.stack_secrets import Crypter, decrypted, encrypt_secret_inputs
from workspace_emulator.testing import ACCOUNT_ID, EmulatorInfo

LOCAL_CONFIG = REPO_ROOT / "Pulumi.local.yaml"
NAMESPACE = "workspace"


# The kinds the drills other than after_write deploy: widening them to every kind would
# slow them (more requests per up, a cluster to create) for no new failure mode.
SIX_KINDS = ("servicePrincipals", "secretScopes", "jobs", "jobPermissions", "repoBranches",
             "catalogBindings")


def stack_kinds(settings: Path = LOCAL_CONFIG) -> tuple[str, ...]:
    """Every registered kind's config key the local stack declares (as `settings`, another
    checkout's Pulumi.local.yaml, declared it), in the registry's order."""
    config = yaml.safe_load(settings.read_text())["config"]
    return tuple(key for key in by_config_key() if f"{NAMESPACE}:{key}" in config)


def local_objects(
    kinds: tuple[str, ...] | None = SIX_KINDS, settings: Path = LOCAL_CONFIG
) -> dict[str, Any]:
    """The `workspace:<kind list>` entries of the local stack for `kinds` (None: every kind
    the stack declares, `stack_kinds()`), secret values decrypted; from `settings`, the
    local stack of another checkout, where given."""
    document = yaml.safe_load(settings.read_text())
    config = document["config"]
    objects = {key: config[f"{NAMESPACE}:{key}"] for key in (kinds or stack_kinds(settings))
               if f"{NAMESPACE}:{key}" in config}
    if "secure:" not in yaml.safe_dump(objects):
        return objects
    return decrypted(objects, Crypter(LOCAL_PASSPHRASE, document["encryptionsalt"]))


def with_secret_inputs_encrypted(cli: PulumiCli, document: dict[str, Any]) -> dict[str, Any]:
    """A stack's settings `document` with the plain secret values of its kinds' lists
    encrypted under the stack's salt and passphrase, as `pulumi config set --secret --path`
    stores them (the program refuses a plain one). Without a salt (no passphrase provider)
    the document is left as it is."""
    salt = document.get("encryptionsalt")
    config = document.get("config") or {}
    if not salt or not config:
        return document
    passphrase = cli.env().get("PULUMI_CONFIG_PASSPHRASE", LOCAL_PASSPHRASE)
    return {**document, "config": encrypt_secret_inputs(config, Crypter(passphrase, salt))}


def local_wire_form() -> str:
    """The wire form the local stack talks (Pulumi.local.yaml says it: `legacy`)."""
    config = yaml.safe_load(LOCAL_CONFIG.read_text())["config"]
    return str(config[f"{NAMESPACE}:wireForm"])


def connection_config(info: EmulatorInfo, wire_form: str | None = None) -> dict[str, Any]:
    """The connection settings of a stack on `info`'s emulator, talking `wire_form` (None:
    the local stack's)."""
    return {
        f"{NAMESPACE}:baseUrl": info.base_url,
        f"{NAMESPACE}:authUrl": info.auth_url,
        f"{NAMESPACE}:tenantId": info.tenant_id,
        f"{NAMESPACE}:clientId": info.client_id,
        f"{NAMESPACE}:resource": info.resource,
        f"{NAMESPACE}:wireForm": wire_form or local_wire_form(),
        f"{NAMESPACE}:allowInsecureHttp": True,
    }


def account_config(info: EmulatorInfo) -> dict[str, Any]:
    """The account connection's settings of a stack on `info`'s emulator (docs/account.md)."""
    return {f"{NAMESPACE}:accountHost": info.base_url, f"{NAMESPACE}:accountId": ACCOUNT_ID}


def scratch_stack(workdir: Path, info: EmulatorInfo, objects: dict[str, Any] | None = None,
                  stack: str = "local", secret: str | None = None,
                  wire_form: str | None = None, extra_env: dict[str, str] | None = None,
                  backend_url: str | None = None, single_write: bool = False) -> PulumiCli:
    """A stack of the project's program (stacks/) declaring `objects` (default: the local
    stack's), talking `wire_form` (default: the local stack's), its project file under
    `workdir`, its state there too or at `backend_url`; `single_write`: the engine writes
    the state once per run (stacks/single_write.py)."""
    project = workdir / "project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "Pulumi.yaml").write_text(
        yaml.safe_dump(project_settings("workspace", main=REPO_ROOT / "stacks"))
    )
    cli = PulumiCli(
        project_dir=project,
        stack=stack,
        state_dir=workdir / "state",
        extra_env=extra_env or {},
        backend_url=backend_url,
        program=inline_where_needed(REPO_ROOT / "stacks"),
        single_write=single_write,
    )
    cli.select_or_init()
    write_stack_config(cli, {
        **connection_config(info, wire_form),
        **{f"{NAMESPACE}:{k}": v
           for k, v in (local_objects() if objects is None else objects).items()},
    })
    if secret != "":  # "" leaves the stack without a client secret
        cli.set_config(
            SECRET_CONFIG_KEY, secret if secret is not None else info.client_secret, secret=True
        )
    return cli


SECRET_CONFIG_KEY = f"{NAMESPACE}:clientSecret"


def write_stack_config(cli: PulumiCli, config: dict[str, Any]) -> None:
    """Replaces the `config` section of the stack's settings file (keeps its salt and its
    encrypted client secret)."""
    path = cli.project_dir / f"Pulumi.{cli.stack}.yaml"
    document = (yaml.safe_load(path.read_text()) if path.exists() else None) or {}
    kept = {k: v for k, v in (document.get("config") or {}).items() if k == SECRET_CONFIG_KEY}
    document["config"] = {**kept, **config}
    path.write_text(yaml.safe_dump(with_secret_inputs_encrypted(cli, document)))


def repoint(cli: PulumiCli, info: EmulatorInfo) -> None:
    """Points the stack at a (restarted) emulator's new addresses, in the wire form it talks."""
    path = cli.project_dir / f"Pulumi.{cli.stack}.yaml"
    document = yaml.safe_load(path.read_text())
    wire_form = document["config"].get(f"{NAMESPACE}:wireForm")
    document["config"].update(connection_config(info, wire_form))
    path.write_text(yaml.safe_dump(document))
