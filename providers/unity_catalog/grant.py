"""Grant: one principal's privileges on one Unity Catalog securable, additively.

The resource owns the declared principal's direct privileges on the securable and nothing
else: other principals' grants are never read into it nor changed, so several stacks (or a
Grant beside grants made by hand) can share a securable. A privilege of that principal
revoked outside the stack shows in a refresh and is granted again by the next update; one
granted to it outside the stack shows too, and the update revokes it (declare it, or leave
that principal to whoever grants it). Privileges compare as sets and are checked per
securable type before any call; the principal is named as the service matches it (a user's
name without regard to case).

Create and update read the principal's grants and send only the difference, so a create
repeated after an interrupted run sends nothing. Delete revokes what the resource recorded.
Another securable or principal replaces the resource. The id is
`<securable type>/<full name>/<principal>`.

Do not declare a principal both in a Grant and in a Grants of the same securable: the two
would undo each other. Grants (providers/unity_catalog/grants.py) is the authoritative kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import field_validator

from providers.core.kind import (
    PRINCIPALS,
    Adoption,
    DrillChange,
    NameByType,
    NameReference,
    declare,
)
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.unity_catalog.grants_api import GrantsApi
from providers.unity_catalog.securables import (
    SECURABLE_LISTS,
    SECURABLES_BY_TYPE,
    SecurableModel,
    changes_between,
    converge,
    held,
    principal_name,
    privilege_list,
    privilege_rules,
    split_id,
)
from providers.unity_catalog.uc_privileges import principal_key

if TYPE_CHECKING:
    from providers.client import WorkspaceClient


class GrantModel(SecurableModel):
    principal: str
    privileges: list[str]

    _principal = field_validator("principal")(principal_name)
    _privileges = field_validator("privileges")(privilege_list)


def split_grant_id(id_: str) -> tuple[str, str, str]:
    """`<securable type>/<full name>/<principal>` -> its parts (a full name holds no '/')."""
    head, _, rest = id_.partition("/")
    full_name, _, principal = rest.partition("/")
    if not principal:
        raise ValueError(
            "a Grant id is <securable type>/<full name>/<principal> "
            f"(e.g. catalog/main/data-engineers); got {id_!r}"
        )
    securable_type, full_name = split_id(f"{head}/{full_name}")
    return securable_type, full_name, principal_key(principal)


class GrantProvider(WorkspaceProvider):
    args_model = GrantModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"securable_type", "full_name", "principal"}
    )
    matched_without_case = frozenset({"full_name"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = GrantModel.model_validate(inputs)
        return privilege_rules(args.securable_type, args.privileges, "privileges")

    def spec(self, args: GrantModel) -> Spec:
        return {
            "securable_type": args.securable_type,
            "full_name": args.full_name,
            "principal": args.principal,
            "privileges": sorted(args.privileges),
        }

    def create_object(self, client: WorkspaceClient, args: GrantModel, spec: Spec):
        observed = converge(lambda: self._apply(client, spec))
        return f"{args.securable_type}/{args.full_name}/{args.principal}", observed, {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        securable_type, full_name, principal = split_grant_id(id_)
        privileges = self._held(client, securable_type, full_name, principal)
        return self._spec_of(securable_type, full_name, principal, privileges), {}

    def update_object(self, client, id_, recorded, args: GrantModel, spec: Spec):
        return converge(lambda: self._apply(client, spec)), {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        securable_type, full_name, principal = split_grant_id(id_)
        now = self._held(client, securable_type, full_name, principal)
        revoke = now & set(recorded.get("privileges") or [])
        if revoke:
            GrantsApi(client).update(
                securable_type, full_name,
                [{"principal": principal, "remove": sorted(revoke)}],
            )

    # --- helpers ------------------------------------------------------------------
    def _apply(self, client: WorkspaceClient, spec: Spec) -> Spec:
        securable_type, full_name = spec["securable_type"], spec["full_name"]
        principal = spec["principal"]
        has = self._held(client, securable_type, full_name, principal)
        wants = set(spec["privileges"])
        changes = changes_between(
            {principal: (principal, has)}, {principal: (principal, wants)}, [principal]
        )
        if changes:
            GrantsApi(client).update(securable_type, full_name, changes)
            has = self._held(client, securable_type, full_name, principal)
        return self._spec_of(securable_type, full_name, principal, has)

    @staticmethod
    def _held(
        client: WorkspaceClient, securable_type: str, full_name: str, principal: str
    ) -> set[str]:
        """The principal's direct privileges on the securable (the service matches it)."""
        found = held(GrantsApi(client).get(securable_type, full_name, principal=principal))
        return set(found.get(principal, (principal, set()))[1])

    @staticmethod
    def _spec_of(securable_type: str, full_name: str, principal: str, privileges: set[str]):
        return {
            "securable_type": securable_type,
            "full_name": full_name,
            "principal": principal,
            "privileges": sorted(privileges),
        }


def _shared_securable(id_: str, recorded: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The securable's Grants id (`<type>/<full name>`), as listed: names fold case."""
    securable = f"{recorded.get('securable_type')}/{recorded.get('full_name')}"
    return [("grants", securable), ("grants", securable.lower())]


KIND = declare(
    name="Grant",
    provider=GrantProvider,
    config_key="principalGrants",
    names={
        "full_name": NameByType("full_name", "securable_type", SECURABLES_BY_TYPE),
        "principal": NameReference("principal", PRINCIPALS),
    },
    # An account group is granted to once the workspace has it (assigned).
    after=(*SECURABLE_LISTS, "serviceCredentials", "workspaceAssignments"),
    doc="docs/grant.md",
    summary="one principal's privileges on one Unity Catalog securable (additive)",
    import_id="<securable type>/<full name>/<principal>",
    adoption=Adoption(
        refused="a securable's grants are adopted whole, as Grants (workspace:grants)",
        # A securable a stack grants on additively is not the audit's to report, nor adopt's
        # to take over whole: its Grants would undo the other stacks' Grant.
        makes=_shared_securable,
    ),
    drill=DrillChange(
        lambda grant: {**grant, "privileges": [*grant["privileges"], "READ_FILES"]}
    ),
)
