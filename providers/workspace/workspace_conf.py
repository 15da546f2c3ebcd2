"""WorkspaceConf: workspace settings other kinds depend on, as the service's key/value
pairs (`enableIpAccessLists` for IpAccessList, `maxTokenLifetimeDays` and
`enableTokensConfig` for personal tokens, `enableResultsDownloading`, ...).

Only the declared keys are managed: the others are never read, compared or changed. Values
are strings as the API takes them: switches "true" or "false" (any case; recorded in lower
case), `maxTokenLifetimeDays` a whole number of days from 1 to 730. Each key's value before
the stack first set it is recorded (`previous_values`, at create, and at the update that
adds the key); a key dropped from the declaration, and every key at destroy, goes back to
it. Every change is in place: the settings are one PATCH, which sets the same values again
when repeated, so a create after an interrupted run converges (recording the values then
held as the ones to go back to).

The resource's id is `workspace-conf`. An import takes the id `workspace-conf` (every known
key that differs from a new workspace's default) or a comma-separated list of keys (exactly
those); the values found are the ones a destroy leaves.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StrictStr, field_validator

from providers.client import InvalidState
from providers.core.kind import DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.workspace.workspace_conf_api import WorkspaceConfApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

CONF_ID = "workspace-conf"
PREVIOUS_KEY = "previous_values"
MAX_TOKEN_LIFETIME_DAYS = 730


def _switch(value: str) -> str:
    if value.lower() not in ("true", "false"):
        raise ValueError('takes "true" or "false" (a string: quote it in YAML)')
    return value.lower()


def _days(value: str) -> str:
    if not value.isdigit() or not 1 <= int(value) <= MAX_TOKEN_LIFETIME_DAYS:
        raise ValueError(f"takes a whole number of days from 1 to {MAX_TOKEN_LIFETIME_DAYS}, as a "
                         'string ("90")')
    return str(int(value))


# key -> (how its value is written, the value a new workspace has; None: no value). The
# service knows these keys (and more this kind does not manage); the emulator checks the same.
SETTINGS: dict[str, tuple[Callable[[str], str], str | None]] = {
    "enableIpAccessLists": (_switch, "false"),
    "enableTokensConfig": (_switch, "true"),
    "maxTokenLifetimeDays": (_days, None),
    "enableResultsDownloading": (_switch, "true"),
    "enableExportNotebook": (_switch, "true"),
    "enableNotebookTableClipboard": (_switch, "true"),
    "enableUploadDataUis": (_switch, "true"),
    "enableWebTerminal": (_switch, "false"),
    "enableDbfsFileBrowser": (_switch, "false"),
    "enableVerboseAuditLogs": (_switch, "false"),
}


class WorkspaceConfModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    settings: dict[str, StrictStr]

    @field_validator("settings", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(item, bool | int | float):
                    shown = str(item).lower() if isinstance(item, bool) else str(item)
                    raise ValueError(f'{key}: values are strings: write "{shown}" (quoted)')
        return value

    @field_validator("settings")
    @classmethod
    def _known(cls, value: dict[str, str]) -> dict[str, str]:
        if not value:
            raise ValueError("declare at least one setting")
        problems, written = [], {}
        for key, item in value.items():
            if key not in SETTINGS:
                problems.append(f"{key}: not a setting this kind manages (one of "
                                f"{', '.join(SETTINGS)})")
                continue
            try:
                written[key] = SETTINGS[key][0](item)
            except ValueError as error:
                problems.append(f"{key}: {error}")
        if problems:
            raise ValueError("; ".join(problems))
        return written


def _restored(value: str | None) -> str:
    """What a PATCH sends to give a key back a value it held (none: "")."""
    return "" if value is None else value


def _held(found: Mapping[str, str | None]) -> dict[str, str]:
    """Values as the state records them: "" for none (the engine drops a null in a map)."""
    return {key: _restored(value) for key, value in found.items()}


class WorkspaceConfProvider(WorkspaceProvider):
    args_model = WorkspaceConfModel
    replace_keys: ClassVar[frozenset[str]] = frozenset()

    def spec(self, args: WorkspaceConfModel) -> Spec:
        return {"settings": dict(sorted(args.settings.items()))}

    def create_object(self, client: WorkspaceClient, args: WorkspaceConfModel, spec: Spec):
        previous = _held(WorkspaceConfApi(client).get(spec["settings"]))
        with _explained():
            WorkspaceConfApi(client).set(spec["settings"])
        return CONF_ID, self._observed(client, spec["settings"]), {PREVIOUS_KEY: previous}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        settings = recorded.get("settings")
        keys = list(settings) if isinstance(settings, Mapping) else self._keys_of(client, id_)
        observed = self._observed(client, keys)
        previous = recorded.get(PREVIOUS_KEY)
        if not isinstance(previous, Mapping):  # an import: a destroy leaves what it found
            previous = dict(observed["settings"])
        return observed, {PREVIOUS_KEY: dict(previous)}

    def update_object(self, client, id_, recorded, args: WorkspaceConfModel, spec: Spec):
        previous = dict(recorded.get(PREVIOUS_KEY) or {})
        declared = spec["settings"]
        added = [key for key in declared if key not in previous]
        previous.update(_held(WorkspaceConfApi(client).get(added)))
        dropped = {key: _restored(previous.pop(key)) for key in list(previous)
                   if key not in declared}
        with _explained():
            WorkspaceConfApi(client).set({**dropped, **declared})
        return self._observed(client, declared), {PREVIOUS_KEY: previous}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        previous = recorded.get(PREVIOUS_KEY) or {}
        with _explained():
            WorkspaceConfApi(client).set({key: _restored(value) for key, value in previous.items()})

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _observed(client: WorkspaceClient, keys: Any) -> Spec:
        found = WorkspaceConfApi(client).get(keys)
        # A key with no value shows as "" (a declared value is never empty).
        return {"settings": dict(sorted(_held(found).items()))}

    @staticmethod
    def _keys_of(client: WorkspaceClient, id_: str) -> list[str]:
        """An import's keys: those its id lists, or for `workspace-conf` every known key
        whose value is not a new workspace's."""
        if id_ != CONF_ID:
            keys = [key.strip() for key in id_.split(",") if key.strip()]
            unknown = [key for key in keys if key not in SETTINGS]
            if unknown or not keys:
                raise ValueError(
                    f"a WorkspaceConf's import id is {CONF_ID} or a comma-separated list of "
                    f"its keys ({', '.join(SETTINGS)}); {', '.join(unknown) or id_!r} is not")
            return keys
        found = WorkspaceConfApi(client).get(SETTINGS)
        return [key for key, value in found.items() if value != SETTINGS[key][1]]


def _changed(client: Any) -> Iterator[tuple[str, str]]:
    """The settings that differ from a new workspace's, as one object (the audit's)."""
    found = WorkspaceConfApi(client).get(SETTINGS)
    changed = [f"{key}={value}" for key, value in found.items() if value != SETTINGS[key][1]]
    if changed:
        yield CONF_ID, ", ".join(changed)


@contextlib.contextmanager
def _explained() -> Iterator[None]:
    """Adds what to do to the service's refusal to turn on IP access lists that would block
    the deployment's own address."""
    try:
        yield
    except InvalidState as error:
        error.message += (
            " (turning enableIpAccessLists on would block the address this deployment calls "
            "from: declare an enabled IpAccessList of type ALLOW holding that address in the "
            "same stack (WorkspaceConf waits for the stack's ipAccessLists), and no BLOCK "
            "list holding it)"
        )
        error.args = (str(error),)
        raise


KIND = declare(
    name="WorkspaceConf",
    provider=WorkspaceConfProvider,
    outputs={PREVIOUS_KEY: dict},
    config_key="workspaceConf",
    doc="docs/workspace-conf.md",
    summary="workspace settings as key/value pairs; only the declared keys, each given back "
    "its earlier value on destroy",
    import_id=f"{CONF_ID}, or a comma-separated list of keys",
    after=("ipAccessLists",),  # lists that hold the deployment's address, before the switch
    inventory=_changed,
    drill=DrillChange(
        lambda conf: {**conf, "settings": {**conf["settings"], "maxTokenLifetimeDays": "90"}}
    ),
)
