"""User: a user of the workspace (SCIM): its user name, display name, whether it is active,
its entitlements and external id.

The user name is the natural key, and the service compares user names without regard to
case: `Alice@Example.com` and `alice@example.com` are one user, so a declared name that
differs from the workspace's spelling in case alone is no change (the workspace's spelling
is recorded). Another name is another user: the resource is replaced, the new user added
before the old one is removed (the names never collide).

Where the workspace is identity-federated, the same create assigns the account user of that
name to the workspace (the account adds the user first where it has none); elsewhere it
makes a workspace-local user. Either way delete removes the user from the workspace only:
an account user stays in the account.

A create answered 409 (a user of that name is there already: left by an interrupted earlier
create, or added by someone else) adopts that user and brings it to the declared state; so
does a create whose answer was lost. Groups are not managed here (GroupMember), nor are
fields left out (display name, entitlements, external id): whatever the workspace holds
stays and never shows as a change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, StrictBool

from providers.client import AlreadyExists
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import Adoption, DrillChange, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, contains_unknown
from providers.core.validators import no_duplicates, not_blank
from providers.identity.scim_fields import Entitlement
from providers.identity.users_api import UsersApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# What a user declared without them holds.
DEFAULTS = {"active": True}


def _user_name(value: str) -> str:
    not_blank(value)
    if value != value.strip() or any(c.isspace() for c in value):
        raise ValueError("must be the user's name (usually an email address), without spaces")
    return value


class UserModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_name: Annotated[str, AfterValidator(_user_name)]
    display_name: Annotated[str, AfterValidator(not_blank)] | None = None
    active: StrictBool = DEFAULTS["active"]
    entitlements: Annotated[list[Entitlement], AfterValidator(no_duplicates)] | None = None
    external_id: Annotated[str, AfterValidator(not_blank)] | None = None


def same_user_name(declared: Any, recorded: Any) -> bool:
    return isinstance(declared, str) and isinstance(recorded, str) and (
        declared.lower() == recorded.lower()
    )


class UserProvider(WorkspaceProvider):
    args_model = UserModel

    def spec(self, args: UserModel) -> Spec:
        # The user name is no part of the spec: `diff` compares it without regard to case.
        spec: Spec = {"active": args.active}
        if args.display_name is not None:
            spec["display_name"] = args.display_name
        if args.entitlements is not None:
            spec["entitlements"] = sorted(args.entitlements)
        if args.external_id is not None:
            spec["external_id"] = args.external_id
        return spec

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        declared = news.get("user_name")
        result = super().diff(_id, olds, news, old_inputs)
        if contains_unknown(declared) or not same_user_name(declared, olds.get("user_name")):
            result.changes = True
            result.changed_keys = sorted({*result.changed_keys, "user_name"})
            result.replaces = ["user_name"]
            result.delete_before_replace = False
        return result

    def create_object(self, client: WorkspaceClient, args: UserModel, spec: Spec):
        body: dict[str, Any] = {"userName": args.user_name, "active": spec["active"]}
        if "display_name" in spec:
            body["displayName"] = spec["display_name"]
        if "entitlements" in spec:
            body["entitlements"] = [{"value": e} for e in spec["entitlements"]]
        if "external_id" in spec:
            body["externalId"] = spec["external_id"]
        try:
            made, adopted = create_or_adopt(
                lambda: UsersApi(client).create(body), lambda: self._find(client, args.user_name)
            )
        except AlreadyExists:
            found = self._find(client, args.user_name)
            if found is None:
                raise
            made, adopted = found, True
        if adopted:
            made = self._set(client, made, spec)
        return str(made["id"]), self._spec_of(made), self._computed(made)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = UsersApi(client).get(id_)
        return self._spec_of(found), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        updated = self._set(client, UsersApi(client).get(id_), spec)
        return self._spec_of(updated), self._computed(updated)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        UsersApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _find(client: WorkspaceClient, user_name: str) -> dict | None:
        return next(iter(UsersApi(client).named(user_name)), None)

    @classmethod
    def _set(cls, client: WorkspaceClient, current: Mapping[str, Any], spec: Spec) -> dict:
        """PATCH the declared fields that differ; the user read back."""
        observed = cls._spec_of(current)
        operations: list[dict[str, Any]] = []
        fields = {"active": "active", "display_name": "displayName", "external_id": "externalId"}
        for key, attribute in fields.items():
            if key in spec and observed.get(key) != spec[key]:
                operations.append({"op": "replace", "path": attribute, "value": spec[key]})
        if "entitlements" in spec and observed["entitlements"] != spec["entitlements"]:
            value = [{"value": e} for e in spec["entitlements"]]
            if value:
                operations.append({"op": "replace", "path": "entitlements", "value": value})
            else:
                operations.append({"op": "remove", "path": "entitlements"})
        if not operations:
            return dict(current)
        UsersApi(client).patch(str(current["id"]), operations)
        return UsersApi(client).get(str(current["id"]))

    @staticmethod
    def _computed(resource: Mapping[str, Any]) -> dict[str, Any]:
        # The workspace's spelling of the name: what `diff` compares the declared one with.
        return {"user_name": resource.get("userName")}

    @staticmethod
    def _spec_of(resource: Mapping[str, Any]) -> Spec:
        spec: Spec = {
            "display_name": resource.get("displayName"),
            "active": resource.get("active", True),
            "entitlements": sorted(e["value"] for e in resource.get("entitlements") or []),
        }
        if resource.get("externalId"):
            spec["external_id"] = resource["externalId"]
        return spec


KIND = declare(
    name="User",
    provider=UserProvider,
    config_key="users",
    named_as=("user_name",),
    names_fold_case=True,
    identity=("user_name",),
    doc="docs/user.md",
    summary="a workspace user, or an account user assigned (never removed from the account)",
    import_id="the user's SCIM id",
    import_id_rule=import_ids.one_segment,
    # The workspace's spelling of the user name (names match regardless of case).
    outputs={"user_name": str},
    defaults=DEFAULTS,
    stack_output=("users", lambda resource: resource.id),
    inventory=lambda client: (
        (str(u["id"]), str(u.get("userName", ""))) for u in UsersApi(client).list()
    ),
    adoption=Adoption(from_outputs=("user_name",)),
    drill=DrillChange(
        lambda user: {
            **user, "display_name": f"{user.get('display_name') or user['user_name']}-updated"
        }
    ),
)
