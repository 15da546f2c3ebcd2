"""ClusterPolicy: a cluster policy of the workspace (docs/cluster-policy.md).

Its fields are the service's `Policy` (derived from the official SDK) but those the service
fills itself. The definition (and a family's overrides) is a JSON object, given as a mapping
or as JSON text, and compared as JSON: a definition written with other spacing or key order
is no change. A policy either has a definition of its own or inherits its family's
(`policy_family_id`, with `policy_family_definition_overrides` merged over it), never both.

Every field is changed in place (the service's edit replaces them all: fields set outside
the stack that it never declared are sent back as they are). A policy's name is unique, so a
create that finds a policy of its name with the declared fields (left by an interrupted
earlier create) adopts it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

import pydantic
from pydantic import AfterValidator

from providers.client import AlreadyExists
from providers.client.sdk_services import compute
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.rules import COMPUTE_RULES, library_problems
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import Adoption, DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, spec_changes
from providers.core.sdk_schema import ClassRules, model_of

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# The cluster policies the service makes in every workspace (from its policy families).
BUILT_IN_POLICIES = frozenset(
    {
        "Personal Compute",
        "Power User Compute",
        "Shared Compute",
        "Legacy Shared Compute",
        "Job Compute",
    }
)

NAME_LENGTH = (1, 100)
# What the service fills itself: never an input.
OUTPUT_FIELDS = ("policy_id", "created_at_timestamp", "creator_user_name", "is_default")
JSON_FIELDS = ("definition", "policy_family_definition_overrides")


def _json_object(value: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise ValueError(f"is not valid JSON ({error}): give a JSON object") from None
    if not isinstance(value, dict):
        raise ValueError("must be a JSON object of rules, e.g. {\"spark_version\": {...}}")
    return value


def _name(value: str) -> str:
    low, high = NAME_LENGTH
    if not low <= len(value.strip()) <= high:
        raise ValueError(f"must be {low} to {high} characters (not blank)")
    return value


def _positive(value: int) -> int:
    if value < 1:
        raise ValueError(f"must be at least 1 (leave it out for no limit), got {value}")
    return value


JsonObject = Annotated[str | dict[str, Any], AfterValidator(_json_object)]
POLICY_RULES: dict[str, ClassRules] = {
    **COMPUTE_RULES,
    "Policy": ClassRules(
        fields={
            "name": Annotated[str, AfterValidator(_name)],
            "definition": JsonObject,
            "policy_family_definition_overrides": JsonObject,
            "max_clusters_per_user": Annotated[int, AfterValidator(_positive)],
        },
        required=("name",),
    ),
}
_PolicyModel: Any = model_of(compute.Policy, overrides=POLICY_RULES)

# The service's own fields are not inputs: the derived model without them.
ClusterPolicyModel: Any = pydantic.create_model(  # type: ignore[call-overload]  # fields known at run time
    "ClusterPolicyModel",
    __config__=_PolicyModel.model_config,
    __doc__="A cluster policy: the service's Policy without what the service fills.",
    **{
        name: (info.annotation, info)
        for name, info in _PolicyModel.model_fields.items()
        if name not in OUTPUT_FIELDS
    },
)
FIELDS = tuple(ClusterPolicyModel.model_fields)


def _library_key(library: Any) -> str:
    return json.dumps(library, sort_keys=True)


def _normal(fields: Mapping[str, Any]) -> Spec:
    """A policy's fields in one form: JSON text parsed, libraries as a set."""
    spec: Spec = {}
    for name in FIELDS:
        value = fields.get(name)
        if value is None:
            continue
        if name in JSON_FIELDS and isinstance(value, str):
            value = json.loads(value)
        if name == "libraries":
            value = sorted(value, key=_library_key)
        spec[name] = value
    return spec


def _wire(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Fields as the service takes them: JSON objects as text."""
    return {
        name: json.dumps(value) if name in JSON_FIELDS else value
        for name, value in spec.items()
    }


class ClusterPolicyProvider(WorkspaceProvider):
    args_model = ClusterPolicyModel

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        if inputs.get("policy_family_id") is not None:
            if inputs.get("definition") is not None:
                found.append((
                    "definition",
                    "a policy of a family inherits its definition: give "
                    "policy_family_definition_overrides instead, or leave out policy_family_id",
                ))
        elif inputs.get("policy_family_definition_overrides") is not None:
            found.append((
                "policy_family_definition_overrides",
                "overrides apply to a family's definition: give policy_family_id too",
            ))
        model: Any = cls.args_model.model_validate(inputs)
        for index, library in enumerate(model.libraries or []):
            found += [
                (".".join(str(p) for p in loc), reason)
                for loc, reason in library_problems(library, ("libraries", index))
            ]
        return found

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        # A reformatted definition is no change in the pull-request summary either.
        return spec_changes(cls(), recorded, new_inputs)

    def spec(self, args: Any) -> Spec:
        return _normal(args.model_dump(mode="json", exclude_none=True))

    def create_object(self, client: WorkspaceClient, args: Any, spec: Spec):
        body = _wire(spec)

        def find() -> str | None:
            found = _named(client, args.name)
            return None if found is None else str(found["policy_id"])

        try:
            policy_id, _adopted = create_or_adopt(
                lambda: ClusterPoliciesApi(client).create(body), find
            )
        except AlreadyExists:
            # Made by an interrupted earlier create: adopt it if it is the declared policy.
            left = _named(client, args.name)
            if left is None or not _holds(_normal(left), spec):
                raise
            policy_id = str(left["policy_id"])
        # No read-back: the service keeps the fields as sent, and the creator is the caller.
        return policy_id, spec, _computed(policy_id, client.connection.client_id)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = ClusterPoliciesApi(client).get(id_)
        return _normal(found), _computed(str(found["policy_id"]), found.get("creator_user_name"))

    def update_object(self, client, id_, recorded, args, spec: Spec):
        current = _normal(ClusterPoliciesApi(client).get(id_))
        dropped = set(self._recorded_spec(recorded)) - set(spec)
        if "policy_family_id" in spec:
            dropped.add("definition")  # the family's, merged: not to be sent back
        elif "definition" in spec:
            dropped |= {"policy_family_id", "policy_family_definition_overrides"}
        kept = {k: v for k, v in current.items() if k not in dropped}
        if "policy_family_id" in kept:
            kept.pop("definition", None)
        ClusterPoliciesApi(client).edit(id_, _wire({**kept, **spec}))
        return spec, _computed(id_, recorded.get("creator_user_name"))

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        ClusterPoliciesApi(client).delete(id_)


def _computed(policy_id: str, creator: str | None) -> dict[str, Any]:
    return {"policy_id": policy_id, "creator_user_name": creator}


def _holds(found: Spec, spec: Spec) -> bool:
    """Whether a policy's fields are the declared ones (those it has beside them are the
    service's)."""
    return all(found.get(name) == value for name, value in spec.items())


def _named(client: WorkspaceClient, name: str) -> dict[str, Any] | None:
    return next((p for p in ClusterPoliciesApi(client).list() if p.get("name") == name), None)


KIND = declare(
    name="ClusterPolicy",
    provider=ClusterPolicyProvider,
    outputs={"policy_id": str, "creator_user_name": str},
    config_key="clusterPolicies",
    identity=("name",),
    doc="docs/cluster-policy.md",
    summary="a cluster policy: its definition (compared as JSON) or its family's, changed "
    "in place",
    import_id="policy id",
    import_id_rule=import_ids.one_segment,
    stack_output=("cluster_policies", lambda resource: resource.policy_id),
    # The policies the service makes in every workspace are its own.
    inventory=lambda client: (
        (str(p["policy_id"]), str(p.get("name", "")))
        for p in ClusterPoliciesApi(client).list()
        if p.get("name") not in BUILT_IN_POLICIES
    ),
    adoption=Adoption(
        # A policy of a family shows the family's definition merged: not its own.
        leaves_out={"definition": lambda observed, _: "policy_family_id" in observed},
    ),
    drill=DrillChange(
        lambda policy: {
            **policy, "max_clusters_per_user": policy.get("max_clusters_per_user", 1) + 1
        }
    ),
)
