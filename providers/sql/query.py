"""Query: a query of the SQL API (the current one, the SDK's QueriesAPI): its text, given
inline (`query_text`) or from a file of the project (`source`), its warehouse, default
catalog and schema, parameters, folder, description, tags and run-as mode.

The arguments are the SDK's `CreateQueryRequestQuery` and `source`. A query from a file is
known to the state by the SHA-256 of its text (`query_sha256`), never the text: check reads
the file and records the digest, so a changed file is an update in place, and a read digests
the text the service holds, so a query edited in the workspace shows as drift. An inline
query's text is its own setting. Every setting but the folder changes in place, by an update
mask naming the changed fields only; another `parent_path` replaces the query. A delete
moves it to the trash (providers/sql/sql_objects.py: folders, masks, trash, left-overs).
`warehouse_id` may name a SqlWarehouse item of the stack.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pulumi.dynamic import CheckFailure, CheckResult
from pydantic import AfterValidator

from providers.client.sdk_services import service
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import Adoption, NameReference, Reference, always, appended_to, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, contains_unknown, user_inputs
from providers.core.project_files import project_file
from providers.core.sdk_schema import ClassRules, model_of
from providers.core.validators import not_blank, workspace_folder
from providers.sql.queries_api import QueriesApi
from providers.sql.sql_objects import (
    changed_fields,
    is_trashed,
    left_over,
    unique_names,
)

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

MAX_QUERY_BYTES = 1024 * 1024
VALUE_KINDS = ("text_value", "numeric_value", "enum_value", "query_backed_value",
               "date_value", "date_range_value")
# The spec keys an update sends, as the API's fields (the digest stands for the text).
UPDATABLE = ("display_name", "query_text", "query_sha256", "warehouse_id", "catalog",
             "schema", "parameters", "description", "tags", "run_as_mode", "apply_auto_limit")
FIELD_OF = {"query_sha256": "query_text"}


def _digest_form(value: str) -> str:
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("must be a SHA-256 digest: 64 hex digits")
    return value


RULES = {
    "CreateQueryRequestQuery": ClassRules(
        fields={"display_name": Annotated[str, AfterValidator(not_blank)],
                "parent_path": Annotated[str, AfterValidator(workspace_folder)]},
        required=("display_name",),
    ),
}

with warnings.catch_warnings():
    # The API's `schema` field shadows a deprecated BaseModel method: a field all the same.
    warnings.filterwarnings("ignore", "Field name .* shadows an attribute")
    _QueryBody: Any = model_of(service("sql").CreateQueryRequestQuery, overrides=RULES)

    class QueryModel(_QueryBody):  # type: ignore[misc,valid-type]  # derived at import
        """A SQL query: the create body's fields, and its text from a file of the project."""

        source: str | None = None
        query_sha256: Annotated[str, AfterValidator(_digest_form)] | None = None


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def source_text(source: str) -> str:
    """The query text of the file `source` names (UTF-8); ValueError saying what is wrong."""
    path = project_file(source, max_bytes=MAX_QUERY_BYTES,
                        limit=f"a query's text is at most {MAX_QUERY_BYTES} bytes here")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text") from None


class QueryProvider(WorkspaceProvider):
    args_model = QueryModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"parent_path"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = QueryModel.model_validate(inputs)
        problems: list[tuple[str, str]] = []
        if (args.query_text is None) == (args.source is None):
            problems.append(("query_text", "give the query's text inline (query_text) or a "
                                           "file of the project (source), one of them"))
        elif args.source is not None:
            try:
                source_text(args.source)
            except ValueError as error:
                problems.append(("source", str(error)))
        elif args.query_sha256 is not None:
            problems.append(("query_sha256", "only a query from a file (source) has one"))
        parameters = args.parameters or []
        problems += unique_names(parameters, lambda p: p.name, "parameters")
        for index, parameter in enumerate(parameters):
            if not parameter.name:
                problems.append((f"parameters[{index}].name", "required"))
            kinds = [k for k in VALUE_KINDS if getattr(parameter, k) is not None]
            if len(kinds) > 1:
                problems.append((f"parameters[{index}]", f"gives {' and '.join(kinds)}: a "
                                 "parameter has one kind of value"))
        for index, tag in enumerate(args.tags or []):
            if not tag.strip():
                problems.append((f"tags[{index}]", "must not be blank"))
        return problems

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        """Records the digest of a file's text in the checked inputs (never the text)."""
        result = super().check(olds, news)
        inputs = user_inputs(news)
        if result.failures or contains_unknown(inputs) or inputs.get("source") is None:
            return result
        key = text_digest(source_text(inputs["source"]))
        declared = inputs.get("query_sha256")
        if declared is not None and declared != key:
            return CheckResult(news, [CheckFailure("query_sha256", (
                f"the text's SHA-256 is {key}, not the declared {declared} (the file "
                "changed, or the digest is of other text)"))])
        return CheckResult({**news, "query_sha256": key}, [])

    def spec(self, args: Any) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True, exclude={"source"})
        if args.source is not None:
            spec.pop("query_text", None)
            spec["query_sha256"] = args.query_sha256 or text_digest(source_text(args.source))
        if "tags" in spec:
            spec["tags"] = sorted(spec["tags"])
        return spec

    def create_object(self, client: WorkspaceClient, args: Any, spec: Spec):
        body = self._body(args, spec)
        api = QueriesApi(client)
        found, _adopted = create_or_adopt(
            lambda: api.create(body),
            lambda: left_over(client, api.list(), body, ("query_text", "warehouse_id")))
        return str(found["id"]), self._spec_of(found), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = QueriesApi(client).get(id_)
        if is_trashed(found):
            return None
        return self._spec_of(found), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec: Spec):
        fields = changed_fields(self._recorded_spec(recorded), spec, UPDATABLE, FIELD_OF)
        api = QueriesApi(client)
        found = api.update(id_, fields, self._body(args, spec)) if fields else api.get(id_)
        return self._spec_of(found), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        QueriesApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _body(args: Any, spec: Spec) -> dict[str, Any]:
        body = {k: v for k, v in spec.items() if k != "query_sha256"}
        if args.source is not None:
            body["query_text"] = source_text(args.source)
        return body

    @staticmethod
    def _spec_of(found: Mapping[str, Any]) -> Spec:
        spec: Spec = {k: found[k] for k in (*UPDATABLE, "parent_path")
                      if found.get(k) not in (None, "", [])}
        if "tags" in spec:
            spec["tags"] = sorted(spec["tags"])
        spec["query_sha256"] = text_digest(str(found.get("query_text") or ""))
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"owner_user_name": found.get("owner_user_name"),
                "lifecycle_state": found.get("lifecycle_state")}


KIND = declare(
    name="Query",
    provider=QueryProvider,
    outputs={"owner_user_name": str, "lifecycle_state": str},
    config_key="queries",
    names={
        "catalog": NameReference("catalog", ("catalogs",)),
        "schema": NameReference("schema", ("schemas",), within=("catalog",)),
    },
    references={
        "warehouse_id": Reference(target_key="sqlWarehouses", field="warehouse_id",
                                  in_place=True),
    },
    after=("directories",),  # made in them, deleted before them
    doc="docs/query.md",
    summary="a SQL query (the current SQL API): text inline or from a project file, "
            "warehouse, parameters; changed in place by update mask, trashed on delete",
    import_id="query id",
    stack_output=("queries", lambda resource: resource.id),
    inventory=lambda client: ((str(q["id"]), str(q.get("display_name") or ""))
                              for q in QueriesApi(client).list()),
    # An adopted query's text goes into the item inline, not as a digest.
    adoption=Adoption(leaves_out={"query_sha256": always}),
    drill=appended_to("description"),
)
