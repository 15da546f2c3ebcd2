"""Dashboard: a Lakeview dashboard, its content from a `.lvdash.json` file of the project
(`source`), in a workspace folder, on a warehouse, and held published or not.

The state knows the content by a digest, never the content: the SHA-256 of the JSON in a
normal form (keys sorted, no spacing: `serialized_sha256`), since the service keeps the
content in a form of its own. Check reads the file and records the digest, so a changed file
is an update in place; a read digests the draft the service holds, so a dashboard edited in
the workspace shows as drift, and the next update puts the declared content back.

The display name, content and warehouse change in place; another `parent_path` replaces the
dashboard (a draft lives at `<parent_path>/<display_name>.lvdash.json`). `published: true`
holds it published: the create publishes it, every update of the draft publishes it again,
and a read that finds it unpublished shows the change; `embed_credentials` (the service's
default true: viewers see the data with the publisher's rights) goes with it. `published:
false` holds it unpublished; left out, publishing is left as it is. A delete moves the
dashboard to the trash. `warehouse_id` may name a SqlWarehouse item of the stack.

A create answered in a way that leaves open whether the dashboard was made, or refused
because its path is taken, adopts the dashboard at that path whose content is the declared
one (what an interrupted run made); anything else there is refused, naming import.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pulumi.dynamic import CheckFailure, CheckResult
from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.client import AlreadyExists, NotFound
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import Adoption, Reference, always, appended_to, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, contains_unknown, user_inputs
from providers.core.project_files import project_file
from providers.core.validators import not_blank, workspace_folder
from providers.dashboards.lakeview_api import LakeviewApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

EXTENSION = ".lvdash.json"
MAX_DASHBOARD_BYTES = 10 * 1024 * 1024
TRASHED = "TRASHED"


def _digest_form(value: str) -> str:
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("must be a SHA-256 digest: 64 hex digits")
    return value


def _dashboard_file(value: str) -> str:
    if not value.endswith(EXTENSION):
        raise ValueError(f"must name a Lakeview dashboard file ({EXTENSION}), as the "
                         "workspace exports it")
    return value


class DashboardModel(BaseModel):
    """A Lakeview dashboard: its name, folder, content file, warehouse and publishing."""

    model_config = ConfigDict(extra="forbid")

    display_name: Annotated[str, AfterValidator(not_blank)]
    source: Annotated[str, AfterValidator(_dashboard_file)]
    parent_path: Annotated[str, AfterValidator(workspace_folder)] | None = None
    warehouse_id: Annotated[str, AfterValidator(not_blank)] | None = None
    published: bool | None = None
    embed_credentials: bool | None = None
    serialized_sha256: Annotated[str, AfterValidator(_digest_form)] | None = None


def normal_digest(serialized: str) -> str:
    """The SHA-256 of the dashboard's JSON in a normal form: the same for the service's
    form and the file's."""
    parsed = json.loads(serialized)
    return hashlib.sha256(json.dumps(parsed, sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode()).hexdigest()


def source_content(source: str) -> str:
    """The content of the file `source` names: a JSON object; ValueError saying what is
    wrong."""
    path = project_file(source, max_bytes=MAX_DASHBOARD_BYTES,
                        limit=f"a dashboard is at most {MAX_DASHBOARD_BYTES} bytes here")
    try:
        text = path.read_bytes().decode("utf-8")
        parsed = json.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"{source} is not a dashboard's JSON: {error}") from None
    if not isinstance(parsed, dict):
        raise ValueError(f"{source} is not a dashboard: a JSON object (with its pages)")
    return text


def exported_dashboard(client: Any, id_: str, observed: Mapping[str, Any]) -> tuple[str, bytes]:
    """(the dashboard's file in the project, its content), for adoption."""
    found = LakeviewApi(client).get(id_)
    name = str(found.get("display_name") or id_).replace("/", "_")
    content = json.dumps(json.loads(str(found.get("serialized_dashboard") or "{}")), indent=2)
    return f"dashboards/{name}{EXTENSION}", (content + "\n").encode()


class DashboardProvider(WorkspaceProvider):
    args_model = DashboardModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"parent_path"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = DashboardModel.model_validate(inputs)
        problems: list[tuple[str, str]] = []
        try:
            source_content(args.source)
        except ValueError as error:
            problems.append(("source", str(error)))
        if args.embed_credentials is not None and not args.published:
            problems.append(("embed_credentials", "goes with published: true (how the "
                             "published dashboard reads its data)"))
        if args.published and args.warehouse_id is None:
            problems.append(("warehouse_id", "required with published: true: a published "
                             "dashboard runs its queries on a warehouse"))
        return problems

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        """Records the digest of the file's content in the checked inputs (never the
        content)."""
        result = super().check(olds, news)
        inputs = user_inputs(news)
        if result.failures or contains_unknown(inputs):
            return result
        key = normal_digest(source_content(inputs["source"]))
        declared = inputs.get("serialized_sha256")
        if declared is not None and declared != key:
            return CheckResult(news, [CheckFailure("serialized_sha256", (
                f"the content's SHA-256 is {key}, not the declared {declared} (the file "
                "changed, or the digest is of other content)"))])
        return CheckResult({**news, "serialized_sha256": key}, [])

    def spec(self, args: DashboardModel) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True, exclude={"source"})
        spec["serialized_sha256"] = args.serialized_sha256 or normal_digest(
            source_content(args.source))
        if args.published and args.embed_credentials is None:
            spec["embed_credentials"] = True  # the service's default
        return spec

    def create_object(self, client: WorkspaceClient, args: DashboardModel, spec: Spec):
        api = LakeviewApi(client)
        content = self._content(args, spec)
        body: dict[str, Any] = {
            "display_name": spec["display_name"], "serialized_dashboard": content,
            **{k: spec[k] for k in ("parent_path", "warehouse_id") if k in spec}}
        try:
            made: tuple[dict[str, Any], bool] = create_or_adopt(
                lambda: api.create(body), lambda: self._left_over(client, spec))
            found = made[0]
        except AlreadyExists as error:
            left_over = self._left_over(client, spec)
            if left_over is None:
                error.message += (
                    f" ({spec.get('parent_path', 'the folder')} holds a dashboard of that name "
                    "made outside this stack: import it (`import: <dashboard id>` in the stack "
                    "config, or `pulumi import`), or give another display_name)")
                error.args = (str(error),)
                raise
            found = left_over
        dashboard_id = str(found["dashboard_id"])
        published = self._hold_publishing(api, dashboard_id, spec, None)
        return dashboard_id, self._spec_of(found, published), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        api = LakeviewApi(client)
        found = api.get(id_)
        if found.get("lifecycle_state") == TRASHED:
            return None
        return self._spec_of(found, self._published(api, id_)), self._computed(found)

    def update_object(self, client, id_, recorded, args: DashboardModel, spec: Spec):
        api = LakeviewApi(client)
        held = self._recorded_spec(recorded)
        fields: dict[str, Any] = {
            key: spec[key] for key in ("display_name", "warehouse_id")
            if key in spec and spec[key] != held.get(key)}
        if spec["serialized_sha256"] != held.get("serialized_sha256"):
            fields["serialized_dashboard"] = self._content(args, spec)
        found = api.update(id_, fields) if fields else api.get(id_)
        published = self._hold_publishing(api, id_, spec, self._published(api, id_),
                                          draft_changed=bool(fields))
        return self._spec_of(found, published), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        LakeviewApi(client).trash(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _content(args: DashboardModel, spec: Spec) -> str:
        content = source_content(args.source)
        if normal_digest(content) != spec["serialized_sha256"]:
            raise ValueError(
                f"{args.source} changed since this deployment checked it (SHA-256 "
                f"{spec['serialized_sha256']}, now {normal_digest(content)}): run the update "
                "again")
        return content

    @staticmethod
    def _published(api: LakeviewApi, dashboard_id: str) -> dict[str, Any] | None:
        try:
            return api.get_published(dashboard_id)
        except NotFound:
            return None

    @staticmethod
    def _hold_publishing(api: LakeviewApi, dashboard_id: str, spec: Spec,
                         published: dict[str, Any] | None, draft_changed: bool = True
                         ) -> dict[str, Any] | None:
        """Publishes or unpublishes as the spec holds; the published copy after."""
        wanted = spec.get("published")
        if wanted is True:
            stale = published is None or draft_changed or any(
                published.get(key) != spec.get(key)
                for key in ("embed_credentials", "warehouse_id"))
            if stale:
                return api.publish(dashboard_id, spec.get("embed_credentials"),
                                   spec.get("warehouse_id"))
        elif wanted is False and published is not None:
            api.unpublish(dashboard_id)
            return None
        return published

    @staticmethod
    def _left_over(client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The dashboard of the declared name and folder whose content is the declared one."""
        api = LakeviewApi(client)
        for listed in api.list():
            if listed.get("display_name") != spec["display_name"]:
                continue
            if "parent_path" in spec and listed.get("parent_path") != spec["parent_path"]:
                continue
            found = api.get(str(listed["dashboard_id"]))
            content = found.get("serialized_dashboard")
            if isinstance(content, str) and normal_digest(content) == spec["serialized_sha256"]:
                return found
        return None

    @staticmethod
    def _spec_of(found: Mapping[str, Any], published: Mapping[str, Any] | None) -> Spec:
        spec: Spec = {k: found[k] for k in ("display_name", "parent_path", "warehouse_id")
                      if found.get(k)}
        spec["serialized_sha256"] = normal_digest(str(found.get("serialized_dashboard") or "{}"))
        spec["published"] = published is not None
        if published is not None:
            spec["embed_credentials"] = bool(published.get("embed_credentials"))
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"path": found.get("path"), "etag": found.get("etag"),
                "update_time": found.get("update_time")}


KIND = declare(
    name="Dashboard",
    provider=DashboardProvider,
    outputs={"path": str, "etag": str, "update_time": str},
    config_key="dashboards",
    references={
        "warehouse_id": Reference(target_key="sqlWarehouses", field="warehouse_id",
                                  in_place=True),
    },
    after=("directories",),  # made in them, deleted before them
    doc="docs/dashboard.md",
    summary="a Lakeview dashboard from a project's .lvdash.json file (its digest in the "
            "state), on a warehouse, held published; edits in the workspace show as drift",
    import_id="dashboard id",
    stack_output=("dashboards", lambda resource: resource.id),
    inventory=lambda client: ((str(d["dashboard_id"]), str(d.get("display_name") or ""))
                              for d in LakeviewApi(client).list()),
    adoption=Adoption(content=exported_dashboard,
                      leaves_out={"serialized_sha256": always}),
    drill=appended_to("display_name"),
)
