"""Secret: a key and its value in a secret scope.

The value (`string_value`, or `bytes_value`: the bytes in base64) is always a Pulumi secret:
the resource makes it one if the program gave it in plain text, the state holds it only
encrypted among the inputs, and no output, log line, check failure or error carries it. The
outputs keep a salted digest of the value instead (`value_digest`, a secret too), so a
changed value is found without reading it back from the service, which is an in-place
update (a put overwrites). A value written by someone else is found the same way: the
service lists each key's `last_updated_timestamp`, and a refresh that sees another one than
the last write's marks the value as unknown, so the next up writes it again.

A put creates or overwrites, so a create after an interrupted one converges on the same
secret; it also takes over a secret of that key that was there before (destroy deletes it).
Another scope or key replaces the resource. The id is `<scope>/<key>`. An import reads the
value once, to record its digest, so an import of the declared value shows no change.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from providers.core.digest import digest, same_value
from providers.core.kind import NameReference, Reference, appended_to, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, contains_unknown
from providers.secrets.names import scope_name, scope_names
from providers.secrets.secrets_api import SecretsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# What a secret's state and outputs name, and its inputs that are always Pulumi secrets.
SECRET_VALUE_FIELDS = ("string_value", "bytes_value")
SECRET_DIGEST_KEY = "value_digest"
SECRET_TIMESTAMP_KEY = "last_updated_timestamp"

KEY_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
MAX_VALUE_BYTES = 128 * 1024


class SecretModel(BaseModel):
    """Reasons never quote a value: they say what is wrong with it."""

    model_config = ConfigDict(extra="forbid")

    scope: str
    key: str
    string_value: str | None = None
    bytes_value: str | None = None

    _scope = field_validator("scope")(scope_name)

    @field_validator("key")
    @classmethod
    def _key_rules(cls, value: str) -> str:
        if not KEY_NAME.match(value):
            raise ValueError("must be 1 to 128 characters of letters, digits, '-', '_' and '.'")
        return value

    @field_validator("bytes_value")
    @classmethod
    def _base64(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError("must be the bytes in base64 (base64.b64encode(data))") from None
        return value

    @model_validator(mode="after")
    def _one_value(self) -> SecretModel:
        given = [f for f in SECRET_VALUE_FIELDS if getattr(self, f) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of string_value and bytes_value")
        if len(self.value_bytes()) > MAX_VALUE_BYTES:
            raise ValueError(f"the value may hold at most {MAX_VALUE_BYTES} bytes")
        return self

    def value_bytes(self) -> bytes:
        return value_bytes(self.string_value, self.bytes_value)


def value_bytes(string_value: str | None, bytes_value: str | None) -> bytes:
    """What the service stores: a string's UTF-8, or the base64's bytes."""
    if string_value is not None:
        return string_value.encode("utf-8")
    return base64.b64decode(bytes_value or "")


class SecretProvider(WorkspaceProvider):
    args_model = SecretModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"scope", "key"})

    def spec(self, args: SecretModel) -> Spec:
        # The value is no part of the spec: it is compared through its digest (`diff`).
        return {"scope": args.scope, "key": args.key}

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        result = super().diff(_id, olds, news, old_inputs)
        if result.replaces:
            return result
        declared = [f for f in SECRET_VALUE_FIELDS if news.get(f) is not None]
        if any(contains_unknown(news[f]) for f in declared):
            changed = True
        else:
            try:
                value = value_bytes(news.get("string_value"), news.get("bytes_value"))
            except (binascii.Error, ValueError):
                changed = True
            else:
                changed = not same_value(olds.get(SECRET_DIGEST_KEY), value)
        if changed:
            result.changes = True
            result.changed_keys = sorted({*result.changed_keys, *(declared or SECRET_VALUE_FIELDS)})
        return result

    def create_object(self, client: WorkspaceClient, args: SecretModel, spec: Spec):
        return f"{args.scope}/{args.key}", spec, self._write(client, args)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        scope, key = split_id(id_)
        secrets = SecretsApi(client).list_secrets(scope)
        listed = next((s for s in secrets if s.get("key") == key), None)
        if listed is None:
            return None
        timestamp = listed.get(SECRET_TIMESTAMP_KEY)
        if SECRET_DIGEST_KEY in recorded:
            # Rewritten since our last write: the value is unknown, so the next up writes it.
            same = timestamp == recorded.get(SECRET_TIMESTAMP_KEY)
            value_digest = recorded[SECRET_DIGEST_KEY] if same else ""
        else:  # an import: the one read of the value, kept only as its digest
            answer = SecretsApi(client).get(scope, key)
            value_digest = digest(base64.b64decode(answer.get("value") or ""))
        computed = {SECRET_DIGEST_KEY: value_digest, SECRET_TIMESTAMP_KEY: timestamp}
        return {"scope": scope, "key": key}, computed

    def update_object(self, client, id_, recorded, args: SecretModel, spec: Spec):
        return spec, self._write(client, args)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        SecretsApi(client).delete(*split_id(id_))

    @staticmethod
    def _write(client: WorkspaceClient, args: SecretModel) -> dict[str, Any]:
        SecretsApi(client).put(
            args.scope, args.key, string_value=args.string_value, bytes_value=args.bytes_value
        )
        listed: dict[str, Any] = next(
            (s for s in SecretsApi(client).list_secrets(args.scope) if s.get("key") == args.key), {}
        )
        return {
            SECRET_DIGEST_KEY: digest(args.value_bytes()),
            SECRET_TIMESTAMP_KEY: listed.get(SECRET_TIMESTAMP_KEY),
        }


def split_id(id_: str) -> tuple[str, str]:
    """`<scope>/<key>` -> (scope, key); neither may hold a '/'."""
    scope, _, rest = id_.partition("/")
    if not scope or not rest or "/" in rest:
        raise ValueError(f"a Secret's id is <scope>/<key>, got {id_!r}")
    return scope, rest


def _secrets(client: Any) -> Any:
    for scope in scope_names(client):
        for secret in SecretsApi(client).list_secrets(scope):
            yield f"{scope}/{secret['key']}", f"{scope}/{secret['key']}"


KIND = declare(
    name="Secret",
    provider=SecretProvider,
    outputs={SECRET_DIGEST_KEY: str, SECRET_TIMESTAMP_KEY: int},
    config_key="secrets",
    names={
        "scope": NameReference("scope", ("secretScopes",)),
    },
    references={"secret_scope": Reference(target_key="secretScopes", field="scope")},
    doc="docs/secret.md",
    summary="a key and its value (a Pulumi secret) in a secret scope",
    import_id="<scope>/<key>",
    secrets=(*SECRET_VALUE_FIELDS, SECRET_DIGEST_KEY),
    inventory=_secrets,
    drill=appended_to("string_value", "-updated"),
)
