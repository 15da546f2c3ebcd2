"""Lookups of principals: service principals, groups, users. (providers/lookups/__init__.py says
what a lookup is.)"""

from __future__ import annotations

from typing import Any

import pulumi
from pydantic import Field

from providers.client import (
    WorkspaceClient,
)
from providers.core.lookup import (
    LookupResult,
    Result,
    exactly_one,
    lookup_output,
    nothing_if_gone,
    only_one,
)
from providers.identity.groups_api import GroupsApi
from providers.identity.service_principals_api import ServicePrincipalsApi
from providers.identity.users_api import UsersApi


def get_service_principal(
    connection: pulumi.Input[dict],
    *,
    application_id: pulumi.Input[str] | None = None,
    display_name: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A service principal of the workspace by `application_id` or `display_name`."""
    exactly_one("get_service_principal", application_id=application_id, display_name=display_name)
    return lookup_output(
        connection,
        find_service_principal,
        application_id=application_id,
        display_name=display_name,
    )


def get_group(
    connection: pulumi.Input[dict],
    *,
    display_name: pulumi.Input[str] | None = None,
    group_id: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A group by `display_name` or by its SCIM `group_id`, with its members' ids."""
    exactly_one("get_group", display_name=display_name, group_id=group_id)
    return lookup_output(connection, find_group, display_name=display_name, group_id=group_id)


def get_user(
    connection: pulumi.Input[dict], *, user_name: pulumi.Input[str]
) -> pulumi.Output[Result]:
    """A user of the workspace by `user_name` (an e-mail address; case does not matter)."""
    exactly_one("get_user", user_name=user_name)
    return lookup_output(connection, find_user, user_name=user_name)


def get_current_user(connection: pulumi.Input[dict]) -> pulumi.Output[Result]:
    """Who the connection signs in as (SCIM Me): a user, or a service principal."""
    return lookup_output(connection, find_current_user)


def find_current_user(client: WorkspaceClient) -> Result:
    return CurrentUserInfo.from_service(client.me()).as_output()


def find_service_principal(
    client: WorkspaceClient,
    *,
    application_id: str | None = None,
    display_name: str | None = None,
) -> Result:
    key, value = (
        ("applicationId", application_id)
        if application_id is not None
        else (
            "displayName",
            display_name or "",
        )
    )
    what = (
        f"service principal with application_id {application_id!r}"
        if application_id is not None
        else f"service principal named {display_name!r}"
    )
    listed = ServicePrincipalsApi(client).list(f'{key} eq "{_scim_quoted(value)}"')
    # The filter is a first cut: `eq` may ignore case; the match must be exact.
    exact = [p for p in listed if p.get(key) == value]
    found = only_one(client, exact, what, "application_id", key_of=lambda p: p.get("applicationId"))
    return ServicePrincipalInfo.from_service(found).as_output()


def find_group(
    client: WorkspaceClient, *, display_name: str | None = None, group_id: str | None = None
) -> Result:
    if group_id is not None:
        with nothing_if_gone(client, f"group with group_id {group_id!r}"):
            return GroupInfo.from_service(GroupsApi(client).get(group_id)).as_output()
    named = GroupsApi(client).named(display_name or "")
    return GroupInfo.from_service(
        only_one(client, named, f"group named {display_name!r}", "id")
    ).as_output()


def find_user(client: WorkspaceClient, *, user_name: str) -> Result:
    named = UsersApi(client).named(user_name)
    found = only_one(client, named, f"user with user_name {user_name!r}", "id")
    return UserInfo.from_service(found).as_output()


def _scim_quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


class ServicePrincipalInfo(LookupResult):
    id: str
    application_id: str = Field(alias="applicationId")
    display_name: str | None = Field(default=None, alias="displayName")
    active: bool | None = None
    groups: list[str] = Field(default_factory=list)
    entitlements: list[str] = Field(default_factory=list)

    @classmethod
    def from_service(cls, resource: dict[str, Any]) -> ServicePrincipalInfo:
        groups = [g.get("display") or g.get("value") for g in resource.get("groups") or []]
        entitlements = [e.get("value") for e in resource.get("entitlements") or []]
        return cls.model_validate(
            {**resource, "groups": sorted(groups), "entitlements": sorted(entitlements)}
        )

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=False)


def _values(items: list[dict[str, Any]] | None) -> list[str]:
    return sorted(str(item.get("value")) for item in items or [])


class GroupInfo(LookupResult):
    id: str
    display_name: str = Field(alias="displayName")
    external_id: str | None = Field(default=None, alias="externalId")
    # Ids of the direct members (users, service principals and groups) and entitlements.
    members: list[str] = Field(default_factory=list)
    entitlements: list[str] = Field(default_factory=list)

    @classmethod
    def from_service(cls, resource: dict[str, Any]) -> GroupInfo:
        return cls.model_validate(
            {
                **resource,
                "members": _values(resource.get("members")),
                "entitlements": _values(resource.get("entitlements")),
            }
        )

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=False)


class UserInfo(LookupResult):
    id: str
    user_name: str = Field(alias="userName")
    display_name: str | None = Field(default=None, alias="displayName")
    active: bool | None = None
    # Ids of the groups the user is directly in.
    groups: list[str] = Field(default_factory=list)

    @classmethod
    def from_service(cls, resource: dict[str, Any]) -> UserInfo:
        direct = [g for g in resource.get("groups") or [] if g.get("type") != "indirect"]
        return cls.model_validate({**resource, "groups": _values(direct)})

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=False)


class CurrentUserInfo(LookupResult):
    id: str
    # A user's e-mail address; a service principal's application id (as the service's Me
    # gives it).
    user_name: str = Field(alias="userName")
    display_name: str | None = Field(default=None, alias="displayName")
    # Set for a service principal only.
    application_id: str | None = Field(default=None, alias="applicationId")
    # The workspace folder of the principal's own: /Users/<user_name>.
    home: str
    groups: list[str] = Field(default_factory=list)

    @classmethod
    def from_service(cls, resource: dict[str, Any]) -> CurrentUserInfo:
        direct = [g for g in resource.get("groups") or [] if g.get("type") != "indirect"]
        return cls.model_validate({**resource, "groups": _values(direct),
                                   "home": f"/Users/{resource.get('userName')}"})

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=False)
