"""Alert: an alert of the SQL API (the current one, the SDK's AlertsAPI): the query whose
result it checks, its condition (an operator, the operand column, a threshold), its custom
subject and body, whether it notifies when back to OK, how long before it triggers again, its
folder and owner.

The arguments are the SDK's `CreateAlertRequestAlert` and the update's `owner_user_name`
(set after the create, by an update of its own; once declared and then left out, the owner
stays as the service has it). Every setting but the folder changes in place, by an update
mask naming the changed fields only; another `parent_path` replaces the alert. A delete
moves it to the trash (providers/sql/sql_objects.py). `query_id` may name a Query item of the
stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator

from providers.client.sdk_services import service
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import NameReference, Reference, appended_to, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.sdk_schema import ClassRules, model_of
from providers.core.validators import not_blank, workspace_folder
from providers.sql.alerts_api import AlertsApi
from providers.sql.sql_objects import changed_fields, is_trashed, left_over

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

UPDATABLE = ("display_name", "query_id", "condition", "custom_subject", "custom_body",
             "notify_on_ok", "seconds_to_retrigger", "owner_user_name")
VALUE_KINDS = ("bool_value", "double_value", "string_value")


def _not_negative(value: int) -> int:
    if value < 0:
        raise ValueError("must be 0 or more (seconds)")
    return value


RULES = {
    "CreateAlertRequestAlert": ClassRules(
        fields={"display_name": Annotated[str, AfterValidator(not_blank)],
                "query_id": Annotated[str, AfterValidator(not_blank)],
                "parent_path": Annotated[str, AfterValidator(workspace_folder)],
                "seconds_to_retrigger": Annotated[int, AfterValidator(_not_negative)]},
        required=("display_name", "query_id", "condition"),
    ),
    "AlertCondition": ClassRules(required=("op", "operand")),
    "AlertConditionOperand": ClassRules(required=("column",)),
    "AlertOperandColumn": ClassRules(required=("name",)),
    "AlertConditionThreshold": ClassRules(required=("value",)),
}

_AlertBody: Any = model_of(service("sql").CreateAlertRequestAlert, overrides=RULES)


class AlertModel(_AlertBody):  # type: ignore[misc,valid-type]  # derived at import
    """A SQL alert: the create body's fields, and its owner."""

    owner_user_name: Annotated[str, AfterValidator(not_blank)] | None = None


class AlertProvider(WorkspaceProvider):
    args_model = AlertModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"parent_path"})
    kept_when_left_out: ClassVar[frozenset[str]] = frozenset({"owner_user_name"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        condition = AlertModel.model_validate(inputs).condition
        if condition.op == "IS_NULL":
            if condition.threshold is not None:
                return [("condition.threshold", "IS_NULL compares with no threshold: leave "
                                                "it out")]
            return []
        if condition.threshold is None:
            return [("condition.threshold", f"required with the operator {condition.op}")]
        value = condition.threshold.value
        given = [kind for kind in VALUE_KINDS if getattr(value, kind) is not None]
        if len(given) != 1:
            return [("condition.threshold.value",
                     "give exactly one of bool_value, double_value, string_value")]
        return []

    def create_object(self, client: WorkspaceClient, args: Any, spec: Spec):
        body = {k: v for k, v in spec.items() if k != "owner_user_name"}
        api = AlertsApi(client)
        found, _adopted = create_or_adopt(
            lambda: api.create(body),
            lambda: left_over(client, api.list(), body, ("query_id", "condition")))
        owner = spec.get("owner_user_name")
        if owner is not None and found.get("owner_user_name") != owner:
            found = api.update(str(found["id"]), ["owner_user_name"], {"owner_user_name": owner})
        return str(found["id"]), self._spec_of(found), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = AlertsApi(client).get(id_)
        if is_trashed(found):
            return None
        return self._spec_of(found), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec: Spec):
        held = self._recorded_spec(recorded)
        if "owner_user_name" not in spec:  # left out: kept as the service has it
            held.pop("owner_user_name", None)
        fields = changed_fields(held, spec, UPDATABLE)
        api = AlertsApi(client)
        found = api.update(id_, fields, spec) if fields else api.get(id_)
        return self._spec_of(found), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        AlertsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _spec_of(found: Mapping[str, Any]) -> Spec:
        return {k: found[k] for k in (*UPDATABLE, "parent_path")
                if found.get(k) not in (None, "")}

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"state": found.get("state"), "lifecycle_state": found.get("lifecycle_state")}


KIND = declare(
    name="Alert",
    provider=AlertProvider,
    outputs={"state": str, "lifecycle_state": str},
    config_key="alerts",
    names={
        "owner_user_name": NameReference("owner_user_name", ("users",)),
    },
    references={
        "query_id": Reference(target_key="queries", field="query_id", in_place=True),
    },
    after=("directories",),  # made in them, deleted before them
    doc="docs/alert.md",
    summary="a SQL alert (the current SQL API) on a query: condition, notification and "
            "re-trigger settings; changed in place by update mask, trashed on delete",
    import_id="alert id",
    stack_output=("alerts", lambda resource: resource.id),
    inventory=lambda client: ((str(a["id"]), str(a.get("display_name") or ""))
                              for a in AlertsApi(client).list()),
    drill=appended_to("custom_subject"),
)
