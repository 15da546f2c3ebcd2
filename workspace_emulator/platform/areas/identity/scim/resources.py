"""SCIM 2.0 protocol pieces: resource rendering, list filters and PatchOp application.

These translate between SCIM documents and the directory's service principals and groups;
the directory's rules (groups exist, application registered, unique) stay in the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.directory import (
    Directory,
    Group,
    GroupSpec,
    ServicePrincipal,
    ServicePrincipalSpec,
    User,
    UserSpec,
)

SP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServicePrincipal"
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"

# The value is in double quotes, in single quotes as the Terraform provider writes it, or
# bare (`displayName eq etl`: the service takes the word as the value).
_CLAUSE = re.compile(r'\s*([A-Za-z][\w.]*)\s+(eq|ne|co|sw)\s+'
                     r'(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([^\s"\']+))\s*', re.IGNORECASE)
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_PATCH_PATH = re.compile(r'([A-Za-z]+)(?:\[\s*value\s+eq\s+"([^"]*)"\s*\])?')


# rendering

def render_service_principal(principal: ServicePrincipal, directory: Directory) -> dict:
    names = {g.id: g.display_name for g in directory.groups()}
    resource = {
        "schemas": [SP_SCHEMA],
        "id": principal.id,
        "applicationId": principal.application_id,
        "displayName": principal.display_name,
        "active": principal.active,
        "groups": [{"value": gid, "display": names.get(gid, gid), "type": "direct",
                    "$ref": f"Groups/{gid}"} for gid in principal.group_ids],
        "entitlements": [{"value": e} for e in principal.entitlements],
    }
    if principal.external_id:
        resource["externalId"] = principal.external_id
    return resource


def render_user(user: User, directory: Directory) -> dict:
    names = {g.id: g.display_name for g in directory.groups()}
    resource = {
        "schemas": [USER_SCHEMA], "id": user.id, "userName": user.user_name,
        "displayName": user.display_name, "active": user.active,
        "emails": [{"value": user.user_name, "type": "work", "primary": True}],
        "groups": [{"value": gid, "display": names.get(gid, gid), "type": "direct",
                    "$ref": f"Groups/{gid}"} for gid in user.group_ids],
        "entitlements": [{"value": e} for e in user.entitlements],
    }
    if user.external_id:
        resource["externalId"] = user.external_id
    return resource


def render_group(group: Group, directory: Directory) -> dict:
    names = {g.id: g.display_name for g in directory.groups()}
    resource = {
        "schemas": [GROUP_SCHEMA], "id": group.id, "displayName": group.display_name,
        "members": [{"value": m.id, "display": m.display, "$ref": f"{m.kind}/{m.id}"}
                    for m in directory.members(group.id)],
        "entitlements": [{"value": e} for e in group.entitlements],
        "groups": [{"value": gid, "display": names.get(gid, gid), "type": "direct",
                    "$ref": f"Groups/{gid}"} for gid in group.group_ids],
        # As the service tells them apart: an account group assigned to the workspace
        # (identity federation) is a `Group`, a group of the workspace's own a
        # `WorkspaceGroup`.
        "meta": {"resourceType": "Group" if group.account else "WorkspaceGroup"},
    }
    if group.external_id:
        resource["externalId"] = group.external_id
    return resource


# listing

def _matches(resource: dict, attribute: str, operator: str, value: str) -> bool:
    key = next((k for k in resource if k.lower() == attribute.lower()), None)
    actual = resource.get(key) if key else None
    if isinstance(actual, bool):
        actual = str(actual).lower()
    if actual is None:
        return operator == "ne"
    actual, expected = str(actual), value.replace('\\"', '"')
    if attribute.lower() in ("displayname", "username"):
        actual, expected = actual.lower(), expected.lower()
    return {
        "eq": actual == expected, "ne": actual != expected,
        "co": expected in actual, "sw": actual.startswith(expected),
    }[operator.lower()]


def parse_filter(text: str | None) -> Callable[[dict], bool]:
    """A SCIM filter of `attr op "value"` clauses joined by `and` (the value may be bare)."""
    if not text or not text.strip():
        return lambda resource: True
    clauses = []
    for part in _AND.split(text.strip()):
        match = _CLAUSE.fullmatch(part)
        if match is None:
            raise InvalidParameter(
                f"Unsupported filter '{text}': use attribute eq|ne|co|sw \"value\" clauses "
                "joined by 'and'.")
        attribute, operator, double_quoted, single_quoted, bare = match.groups()
        value = next(v for v in (double_quoted, single_quoted, bare) if v is not None)
        clauses.append((attribute, operator, value))
    return lambda resource: all(_matches(resource, *clause) for clause in clauses)


def list_response(resources: Sequence[dict], filter_text: str | None, start_index: int | None,
                  count: int | None) -> dict:
    keep = parse_filter(filter_text)
    matching = [r for r in resources if keep(r)]
    start = max(1, start_index or 1)
    page = matching[start - 1:] if count is None else matching[start - 1:start - 1 + max(0, count)]
    return {"schemas": [LIST_SCHEMA], "totalResults": len(matching), "startIndex": start,
            "itemsPerPage": len(page), "Resources": page}


# create / replace / patch bodies

def _values(items: Any, attribute: str) -> tuple[str, ...]:
    if items is None:
        return ()
    if not isinstance(items, list):
        raise InvalidParameter(f"'{attribute}' must be a list of {{value}} objects")
    values = []
    for item in items:
        if item == {}:
            continue  # the Terraform provider sends [{}] for "none"; the service ignores it
        value = item.get("value") if isinstance(item, dict) else None
        if not isinstance(value, str) or not value:
            raise InvalidParameter(f"every entry of '{attribute}' needs a string 'value'")
        values.append(value)
    return tuple(values)


def _active(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise InvalidParameter("'active' must be true or false")


def _optional_string(value: Any, attribute: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidParameter(f"'{attribute}' must be a string")
    return value


def require_schema(body: dict, schema: str) -> None:
    """`schemas`, when the body has it, names `schema`. The service accepts a body without
    `schemas` (the official CLI's flag forms and the Python SDK send none)."""
    if "schemas" not in body:
        return
    schemas = body.get("schemas")
    if not isinstance(schemas, list) or schema not in schemas:
        raise InvalidParameter(f"'schemas' must contain \"{schema}\"")


def spec_from_resource(body: dict) -> ServicePrincipalSpec:
    return ServicePrincipalSpec(
        display_name=_optional_string(body.get("displayName"), "displayName"),
        active=_active(body.get("active", True)),
        group_ids=_values(body.get("groups"), "groups"),
        entitlements=_values(body.get("entitlements"), "entitlements"),
        external_id=_optional_string(body.get("externalId"), "externalId"),
    )


def user_spec_from_resource(body: dict) -> UserSpec:
    """A POST or PUT body of a user (its groups are changed through the groups)."""
    return UserSpec(
        display_name=_optional_string(body.get("displayName"), "displayName"),
        active=_active(body.get("active", True)),
        entitlements=_values(body.get("entitlements"), "entitlements"),
        external_id=_optional_string(body.get("externalId"), "externalId"),
    )


_USER_ATTRIBUTES = {"displayname": "display_name", "active": "active",
                    "entitlements": "entitlements", "externalid": "external_id"}


def patched_user_spec(user: User, body: dict) -> UserSpec:
    """The user after a PatchOp body's operations on displayName, active, entitlements and
    externalId."""
    spec = UserSpec(user.display_name, user.active, user.entitlements, user.external_id)
    for op, path, value in _operations(body):
        match = _PATCH_PATH.fullmatch(path.strip())
        field = _USER_ATTRIBUTES.get(match.group(1).lower()) if match else None
        if match is None or field is None:
            raise InvalidParameter(f"Unsupported patch path '{path}'")
        selected = match.group(2)
        if field == "entitlements":
            spec = replace(spec, entitlements=_apply_multi_valued(
                spec.entitlements, op, path, selected, value))
        elif selected is not None:
            raise InvalidParameter(f"'{path}' is not a multi-valued attribute")
        elif field == "active":
            spec = replace(spec, active=True if op == "remove" else _active(value))
        elif field == "display_name":
            spec = replace(spec, display_name=None if op == "remove"
                           else _optional_string(value, path))
        else:
            spec = replace(spec, external_id=None if op == "remove"
                           else _optional_string(value, path))
    return spec


def group_spec_from_resource(body: dict) -> GroupSpec:
    """A POST or PUT body: the members it lists are the group's members."""
    name = body.get("displayName")
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameter("'displayName' is required")
    return GroupSpec(
        display_name=name,
        entitlements=_values(body.get("entitlements"), "entitlements"),
        external_id=_optional_string(body.get("externalId"), "externalId"),
        member_ids=_values(body.get("members"), "members"),
    )


def _spec_of(principal: ServicePrincipal) -> ServicePrincipalSpec:
    return ServicePrincipalSpec(
        display_name=principal.display_name, active=principal.active,
        group_ids=principal.group_ids, entitlements=principal.entitlements,
        external_id=principal.external_id,
    )


_ATTRIBUTES = {"displayname": "display_name", "active": "active", "groups": "group_ids",
               "entitlements": "entitlements", "externalid": "external_id"}


def _apply_multi_valued(current: tuple[str, ...], op: str, path: str, selected: str | None,
                        value: Any) -> tuple[str, ...]:
    if op == "remove":
        if selected is not None:
            gone = {selected}
        else:
            gone = set(_values(value, path)) or set(current)  # no value: remove all
        return tuple(v for v in current if v not in gone)
    if op == "add" or selected is not None:
        return current + tuple(v for v in _values(value, path) if v not in current)
    return _values(value, path)


def _apply(spec: ServicePrincipalSpec, op: str, path: str, value: Any) -> ServicePrincipalSpec:
    match = _PATCH_PATH.fullmatch(path.strip())
    field = _ATTRIBUTES.get(match.group(1).lower()) if match else None
    if match is None or field is None:
        raise InvalidParameter(f"Unsupported patch path '{path}'")
    selected = match.group(2)
    if field == "group_ids":
        return replace(spec, group_ids=_apply_multi_valued(
            spec.group_ids, op, path, selected, value))
    if field == "entitlements":
        return replace(spec, entitlements=_apply_multi_valued(
            spec.entitlements, op, path, selected, value))
    if selected is not None:
        raise InvalidParameter(f"'{path}' is not a multi-valued attribute")
    if field == "active":
        return replace(spec, active=True if op == "remove" else _active(value))
    text = None if op == "remove" else _optional_string(value, path)
    if field == "display_name":
        return replace(spec, display_name=text)
    return replace(spec, external_id=text)


def _operations(body: dict) -> list[tuple[str, str, Any]]:
    """The (op, path, value) of each operation of a PatchOp body; a path-less operation
    becomes one per attribute of its value."""
    require_schema(body, PATCH_SCHEMA)
    operations = body.get("Operations", body.get("operations"))
    if not isinstance(operations, list) or not operations:
        raise InvalidParameter("'Operations' must be a non-empty list")
    found = []
    for operation in operations:
        if not isinstance(operation, dict):
            raise InvalidParameter("every operation must be an object")
        op = str(operation.get("op", "")).lower()
        if op not in ("add", "remove", "replace"):
            raise InvalidParameter(f"Unsupported op '{operation.get('op')}'")
        path, value = operation.get("path"), operation.get("value")
        if path is not None and not isinstance(path, str):
            raise InvalidParameter("'path' must be a string")
        if path:
            found.append((op, path, value))
        elif op == "remove":
            raise InvalidParameter("a remove operation needs a path")
        elif isinstance(value, dict):
            found += [(op, attribute, item) for attribute, item in value.items()]
        else:
            raise InvalidParameter("an operation without a path needs an object value")
    return found


def patched_spec(principal: ServicePrincipal, body: dict) -> ServicePrincipalSpec:
    spec = _spec_of(principal)
    for op, path, value in _operations(body):
        spec = _apply(spec, op, path, value)
    return spec


_GROUP_ATTRIBUTES = {"displayname": "display_name", "members": "member_ids",
                     "entitlements": "entitlements", "externalid": "external_id"}


def patched_group_spec(group: Group, member_ids: tuple[str, ...], body: dict) -> GroupSpec:
    """The group after the body's operations: `add` and `remove` of `members` change only
    the members they name (a `remove` without a value or filter removes them all)."""
    spec = GroupSpec(group.display_name, group.entitlements, group.external_id, member_ids)
    for op, path, value in _operations(body):
        match = _PATCH_PATH.fullmatch(path.strip())
        field = _GROUP_ATTRIBUTES.get(match.group(1).lower()) if match else None
        if match is None or field is None:
            raise InvalidParameter(f"Unsupported patch path '{path}'")
        selected = match.group(2)
        if field == "member_ids":
            spec = replace(spec, member_ids=_apply_multi_valued(
                spec.member_ids or (), op, path, selected, value))
        elif field == "entitlements":
            spec = replace(spec, entitlements=_apply_multi_valued(
                spec.entitlements, op, path, selected, value))
        elif selected is not None:
            raise InvalidParameter(f"'{path}' is not a multi-valued attribute")
        elif field == "display_name":
            if op == "remove":
                raise InvalidParameter("'displayName' cannot be removed")
            spec = replace(spec, display_name=_optional_string(value, path) or "")
        else:
            spec = replace(spec, external_id=None if op == "remove"
                           else _optional_string(value, path))
    return spec
