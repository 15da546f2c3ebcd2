"""ServicePrincipal: an identity-provider application added to the workspace (SCIM).

A declared application id is the natural key: the workspace holds at most one principal per
application. A create answered 409 (one left by an interrupted earlier create, or added
by someone else) adopts that one and brings it to the declared state. Deleting removes the
principal from the workspace only; the application stays registered with the identity provider.

Without an application id (AWS, GCP: the service assigns one) the display name stands in
for the natural key: the create looks the name up first and adopts the one principal that
has it, so a create whose answer was lost makes no second principal on the next run
(providers/identity/principal_by_name.py). The assigned id is an output; an application id left out
is never a change, so "not declared" and "assigned" never differ.

Fields left out (display name, groups, entitlements) are not managed: whatever the
workspace holds stays as it is and never shows as a change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import AlreadyExists
from providers.client.listing import TOO_MANY, Cap, Listing
from providers.client.process import Store
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import Adoption, DrillChange, always, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, contains_unknown
from providers.core.validators import no_duplicates, not_blank
from providers.identity import scim_api
from providers.identity.principal_by_name import create_by_display_name
from providers.identity.scim_fields import Entitlement
from providers.identity.service_principals_api import SCIM_SCHEMA, ServicePrincipalsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

GUID = re.compile(r"^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")

GroupId = Annotated[str, AfterValidator(not_blank)]


# What a principal declared without them holds (the provider host's no-op test knows them).
DEFAULTS = {"active": True}

class ServicePrincipalModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    application_id: str | None = None
    display_name: Annotated[str, AfterValidator(not_blank)] | None = None
    active: StrictBool = DEFAULTS["active"]
    entitlements: Annotated[list[Entitlement], AfterValidator(no_duplicates)] | None = None
    groups: Annotated[list[GroupId], AfterValidator(no_duplicates)] | None = None
    schemas: list[str] | None = None

    @field_validator("application_id")
    @classmethod
    def _application_id_is_guid(cls, value: str | None) -> str | None:
        if value is not None and not GUID.match(value):
            raise ValueError(
                "must be the application (client) id from the identity provider, a GUID "
                "like 00000000-0000-0000-0000-000000000000"
            )
        return value

    @field_validator("schemas")
    @classmethod
    def _schemas_constant(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and value != [SCIM_SCHEMA]:
            raise ValueError(f'must be ["{SCIM_SCHEMA}"] or left out')
        return value


def direct_groups(resource: Mapping[str, Any]) -> list[str]:
    """Group ids of the principal's own memberships; those through another group are not
    its own to declare."""
    return sorted(g["value"] for g in resource.get("groups") or [] if g.get("type") != "indirect")


# Principals a refresh lists to answer its reads; a bigger workspace is read one by one.
READ_LIST_MOST = 500


def _principals_by_id(client: WorkspaceClient, most: int) -> dict[str, dict[str, Any]] | None:
    listed = ServicePrincipalsApi(client).list_unless_more_than(most)
    if listed is None:
        return TOO_MANY
    return {str(principal["id"]): principal for principal in listed if "id" in principal}


# At first at most READ_LIST_MOST, more where the run reads more (listing.Cap).
listed_principals = Store(
    "service principals listed for reads",
    lambda: Listing(_principals_by_id, cap=Cap(READ_LIST_MOST, scim_api.LIST_PAGE_SIZE)),
)


NAMED_ONCE = (
    "give application_id (the identity provider's application id), display_name, or both: "
    "with display_name alone the service assigns the application id (AWS, GCP)"
)


class ServicePrincipalProvider(WorkspaceProvider):
    args_model = ServicePrincipalModel

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        if inputs.get("application_id") is None and inputs.get("display_name") is None:
            return [("application_id", NAMED_ONCE)]
        return []

    def spec(self, args: ServicePrincipalModel) -> Spec:
        # The application id is no part of the spec: declared or assigned, it is an output,
        # and `diff` compares it only where it is declared.
        spec: Spec = {"active": args.active}
        if args.display_name is not None:
            spec["display_name"] = args.display_name
        if args.entitlements is not None:
            spec["entitlements"] = sorted(args.entitlements)
        if args.groups is not None:
            spec["groups"] = sorted(args.groups)
        return spec

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        declared = news.get("application_id")
        others = {k: v for k, v in news.items() if k != "application_id"}
        result = super().diff(_id, olds, others, old_inputs)
        if declared is None:  # left out: whatever the principal has (assigned or not) stays
            return result
        if contains_unknown(declared) or not same_guid(declared, olds.get("application_id")):
            # Another application is another principal: the new one is added before the old
            # one is removed (the two never collide).
            result.changes = True
            result.changed_keys = sorted({*result.changed_keys, "application_id"})
            result.replaces = ["application_id"]
            result.delete_before_replace = False
        return result

    def create_object(self, client: WorkspaceClient, args: ServicePrincipalModel, spec: Spec):
        body = self._create_body(args.application_id, spec)
        if args.application_id is None:
            made, adopted = create_by_display_name(client, spec["display_name"], body)
        else:
            made, adopted = self._create_by_application_id(client, args.application_id, body)
        if adopted:
            made = self._replace(client, made, spec)
        return made["id"], self._spec_of(made), self._computed(made)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        # A refresh shares one listing of the workspace's principals (the list shows each
        # as a get does); one it does not hold, or a workspace too big to list, is read alone.
        found = listed_principals().take(client, id_, lambda: ServicePrincipalsApi(client).get(id_))
        found = found or ServicePrincipalsApi(client).get(id_)
        return self._spec_of(found), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        replaced = self._replace(client, ServicePrincipalsApi(client).get(id_), spec)
        return self._spec_of(replaced), self._computed(replaced)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        ServicePrincipalsApi(client).delete(id_, recorded["application_id"])

    # --- helpers ------------------------------------------------------------------
    def _create_by_application_id(
        self, client: WorkspaceClient, application_id: str, body: dict[str, Any]
    ) -> tuple[dict, bool]:
        # Create first: a principal already there for this application id (left by an
        # interrupted earlier create) answers 409 and is adopted, so no lookup is needed
        # before the create.
        try:
            return create_or_adopt(
                lambda: ServicePrincipalsApi(client).create(body),
                lambda: self._find(client, application_id),
            )
        except AlreadyExists:
            found = self._find(client, application_id)
            if found is None:
                raise
            return found, True

    @staticmethod
    def _find(client: WorkspaceClient, application_id: str) -> dict | None:
        listed = ServicePrincipalsApi(client).list(f'applicationId eq "{application_id}"')
        return next(
            (
                p
                for p in listed
                if str(p.get("applicationId", "")).lower() == application_id.lower()
            ),
            None,
        )

    @staticmethod
    def _create_body(application_id: str | None, spec: Spec) -> dict[str, Any]:
        body: dict[str, Any] = {
            "schemas": [SCIM_SCHEMA],
            "active": spec["active"],
            "groups": [{"value": g} for g in spec.get("groups", [])],
            "entitlements": [{"value": e} for e in spec.get("entitlements", [])],
        }
        if application_id is not None:  # left out, the service assigns one
            body["applicationId"] = application_id
        if "display_name" in spec:
            body["displayName"] = spec["display_name"]
        return body

    @staticmethod
    def _replace(client: WorkspaceClient, current: Mapping[str, Any], spec: Spec) -> dict:
        """PUT the current resource with the declared fields set; undeclared ones stay."""
        body = {k: v for k, v in current.items() if k != "meta"}
        body["schemas"] = [SCIM_SCHEMA]
        body["active"] = spec["active"]
        if "display_name" in spec:
            body["displayName"] = spec["display_name"]
        # Undeclared groups stay, but only direct ones: an inherited (indirect) membership
        # PUT back would become a direct one.
        body["groups"] = [{"value": g} for g in spec.get("groups", direct_groups(current))]
        if "entitlements" in spec:
            body["entitlements"] = [{"value": e} for e in spec["entitlements"]]
        return ServicePrincipalsApi(client).replace(current["id"], body)

    @staticmethod
    def _computed(resource: Mapping[str, Any]) -> dict[str, Any]:
        return {"application_id": resource.get("applicationId")}

    @staticmethod
    def _spec_of(resource: Mapping[str, Any]) -> Spec:
        return {
            "display_name": resource.get("displayName"),
            "active": resource.get("active", True),
            "entitlements": sorted(e["value"] for e in resource.get("entitlements") or []),
            "groups": direct_groups(resource),
        }


def same_guid(declared: Any, recorded: Any) -> bool:
    return isinstance(recorded, str) and str(declared).lower() == recorded.lower()


def _drill_change(principal: dict[str, Any]) -> dict[str, Any]:
    """The display name, and no more cluster creation: an update in place."""
    principal["display_name"] = f"{principal.get('display_name') or principal['name']}-updated"
    principal["entitlements"] = [
        e for e in principal.get("entitlements", []) if e != "allow-cluster-create"
    ]
    return principal


KIND = declare(
    name="ServicePrincipal",
    provider=ServicePrincipalProvider,
    config_key="servicePrincipals",
    named_as=("application_id",),
    identity=("application_id",),
    doc="docs/service-principal.md",
    summary="a service principal of the workspace (never removed from the identity provider)",
    import_id="the workspace's principal id",
    import_id_rule=import_ids.one_segment,
    # Declared, or assigned by the service where left out (AWS, GCP).
    outputs={"application_id": str},
    defaults=DEFAULTS,
    stack_output=("service_principals", lambda resource: resource.id),
    inventory=lambda client: (
        (str(p["id"]), p.get("displayName") or p.get("applicationId") or "")
        for p in ServicePrincipalsApi(client).list()
    ),
    adoption=Adoption(
        from_outputs=("application_id",),
        # Its memberships are GroupMember items: declared here too, one would undo the
        # other's change.
        leaves_out={"groups": always},
        principal_of=lambda id_: id_,
        # The memberships of the groups the item declares are its own.
        makes=lambda id_, recorded: [
            ("group_member", f"{group}|{id_}") for group in recorded.get("groups") or ()
        ],
    ),
    drill=DrillChange(_drill_change),
)
