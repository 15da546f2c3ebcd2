"""The Pipelines area through the official SDK, unchanged (raw HTTP for the refusals'
wording): create with dry_run and the duplicate-name rule, get, edit with
expected_last_modified, delete, list with its filters and pages, the checks of the settings,
the creator as owner in the permissions API, and updates played out on the manual clock
(the states in order, FAILED with an ERROR event when a source is missing, validate_only,
stop), their events and the pipeline's IDLE/RUNNING."""

from __future__ import annotations

import uuid

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    InvalidParameterValue,
    NotFound,
    PermissionDenied,
    ResourceConflict,
)
from databricks.sdk.service import iam
from databricks.sdk.service import pipelines as p

from tests.emulator.conftest import MANUAL_TRANSITION_SECONDS
from tests.emulator.support import add_service_principal
from workspace_emulator.testing import advance_clock, fetch_token

NOTEBOOK = "/Shared/examples/quickstart"  # a notebook of the initial data
BOOTSTRAP = "1251fa57-177d-41f0-84cd-847f7a048462"  # the bootstrap principal's application id
SLOT = MANUAL_TRANSITION_SECONDS / 5  # each state of an update before its end


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def on_notebook(path: str = NOTEBOOK) -> list[p.PipelineLibrary]:
    return [p.PipelineLibrary(notebook=p.NotebookLibrary(path=path))]


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture
def manual_sdk(manual) -> WorkspaceClient:
    return WorkspaceClient(host=manual.base_url, token=fetch_token(manual))


# pipelines


def test_create_and_get(sdk):
    name = unique("etl")
    created = sdk.pipelines.create(name=name, target="sales", libraries=on_notebook(),
                                   configuration={"source": "orders"}, development=True)
    assert created.effective_settings is None
    got = sdk.pipelines.get(created.pipeline_id)
    assert got.pipeline_id == created.pipeline_id
    assert got.name == name
    assert got.state == p.PipelineState.IDLE
    assert got.creator_user_name == got.run_as_user_name == BOOTSTRAP
    assert got.run_as is None
    assert got.last_modified and got.last_modified > 0
    assert got.latest_updates == [] and got.cluster_id is None
    # the spec as given, with the id and (outside Unity Catalog) the storage the service makes
    assert got.spec.as_dict() == {
        "id": created.pipeline_id, "name": name, "target": "sales",
        "libraries": [{"notebook": {"path": NOTEBOOK}}], "configuration": {"source": "orders"},
        "development": True, "storage": f"dbfs:/pipelines/{created.pipeline_id}"}


def test_a_unity_catalog_pipeline_keeps_no_storage_and_shows_run_as(sdk):
    name = unique("uc")
    created = sdk.pipelines.create(
        name=name, catalog="main", schema="bronze", serverless=True, channel="PREVIEW",
        libraries=on_notebook(), run_as=p.RunAs(user_name="alice@example.com"))
    got = sdk.pipelines.get(created.pipeline_id)
    assert got.spec.storage is None
    assert (got.spec.catalog, got.spec.schema, got.spec.serverless) == ("main", "bronze", True)
    assert got.run_as == p.RunAs(user_name="alice@example.com")
    assert got.run_as_user_name == "alice@example.com"
    assert got.creator_user_name == BOOTSTRAP


def test_dry_run_checks_and_stores_nothing(sdk):
    name = unique("dry")
    answer = sdk.pipelines.create(name=name, target="t", libraries=on_notebook(),
                                  dry_run=True)
    assert answer.pipeline_id is None
    settings = answer.effective_settings
    assert settings is not None and settings.name == name and settings.id
    assert settings.storage == f"dbfs:/pipelines/{settings.id}"
    assert list(sdk.pipelines.list_pipelines(filter=f"name LIKE '{name}'")) == []
    with pytest.raises(InvalidParameterValue, match="edition 'ULTIMATE'"):
        sdk.pipelines.create(name=name, edition="ULTIMATE", dry_run=True)


def test_a_second_pipeline_of_a_name_is_refused_unless_allowed(sdk):
    name = unique("twice")
    first = sdk.pipelines.create(name=name, libraries=on_notebook()).pipeline_id
    with pytest.raises(ResourceConflict) as refused:
        sdk.pipelines.create(name=name, libraries=on_notebook())
    assert first in str(refused.value) and "allow_duplicate_names" in str(refused.value)
    with pytest.raises(ResourceConflict):  # a dry run answers as the create would
        sdk.pipelines.create(name=name, dry_run=True)
    second = sdk.pipelines.create(name=name, libraries=on_notebook(),
                                  allow_duplicate_names=True).pipeline_id
    assert second != first
    listed = {s.pipeline_id for s in sdk.pipelines.list_pipelines(filter=f"name LIKE '{name}'")}
    assert listed == {first, second}


def test_edit_replaces_every_setting(sdk):
    pipeline_id = sdk.pipelines.create(
        name=unique("edit"), target="t", libraries=on_notebook(), photon=True,
        configuration={"a": "1"}, tags={"team": "data"}).pipeline_id
    before = sdk.pipelines.get(pipeline_id)
    renamed = unique("edited")
    sdk.pipelines.update(pipeline_id, name=renamed, target="t2", libraries=on_notebook(),
                         expected_last_modified=before.last_modified)
    after = sdk.pipelines.get(pipeline_id)
    assert after.name == after.spec.name == renamed
    assert after.spec.as_dict() == {  # photon, configuration, tags gone
        "id": pipeline_id, "name": renamed, "target": "t2",
        "libraries": [{"notebook": {"path": NOTEBOOK}}],
        "storage": f"dbfs:/pipelines/{pipeline_id}"}
    assert after.last_modified > before.last_modified


def test_edit_with_an_outdated_last_modified_is_refused(sdk):
    pipeline_id = sdk.pipelines.create(name=unique("stale"), libraries=on_notebook()
                                       ).pipeline_id
    first = sdk.pipelines.get(pipeline_id).last_modified
    sdk.pipelines.update(pipeline_id, name=unique("stale"), libraries=on_notebook())
    with pytest.raises(ResourceConflict, match="expected_last_modified"):
        sdk.pipelines.update(pipeline_id, name=unique("late"), libraries=on_notebook(),
                             expected_last_modified=first)
    assert sdk.pipelines.get(pipeline_id).name.startswith("stale-")


def test_edit_to_a_name_in_use_is_refused_unless_allowed(sdk):
    taken = unique("taken")
    sdk.pipelines.create(name=taken, libraries=on_notebook())
    other = sdk.pipelines.create(name=unique("other"), libraries=on_notebook()).pipeline_id
    with pytest.raises(ResourceConflict):
        sdk.pipelines.update(other, name=taken, libraries=on_notebook())
    sdk.pipelines.update(other, name=taken, libraries=on_notebook(),
                         allow_duplicate_names=True)
    assert sdk.pipelines.get(other).name == taken
    # keeping its own name is no conflict
    sdk.pipelines.update(other, name=taken, libraries=on_notebook(), allow_duplicate_names=True)


def test_delete(sdk):
    pipeline_id = sdk.pipelines.create(name=unique("gone"), libraries=on_notebook()
                                       ).pipeline_id
    sdk.pipelines.delete(pipeline_id)
    with pytest.raises(NotFound, match=f"The specified pipeline {pipeline_id} was not found"):
        sdk.pipelines.get(pipeline_id)
    with pytest.raises(NotFound):
        sdk.pipelines.get_permissions(pipeline_id)
    with pytest.raises(NotFound):
        sdk.pipelines.delete(pipeline_id)


def test_list_filters_and_pages(sdk, api):
    prefix = unique("listed")
    ids = [sdk.pipelines.create(name=f"{prefix}-{index}",
                                libraries=on_notebook(f"/Shared/{prefix}/nb{index % 2}")
                                ).pipeline_id for index in range(5)]
    # the SDK's iterator follows next_page_token
    found = list(sdk.pipelines.list_pipelines(filter=f"name LIKE '{prefix}-%'", max_results=2))
    assert sorted(s.pipeline_id for s in found) == sorted(ids)
    assert all(s.state == p.PipelineState.IDLE and s.creator_user_name == BOOTSTRAP
               for s in found)
    by_name = [s.name for s in sdk.pipelines.list_pipelines(
        filter=f"name LIKE '{prefix}%'", order_by=["name desc"])]
    assert by_name == [f"{prefix}-{index}" for index in reversed(range(5))]
    page = api.get("/api/2.0/pipelines", params={"filter": f"name LIKE '{prefix}-_'",
                                                 "max_results": 3}).json()
    assert len(page["statuses"]) == 3 and page["next_page_token"]
    on_nb1 = {s.pipeline_id for s in sdk.pipelines.list_pipelines(
        filter=f"notebook='/Shared/{prefix}/nb1'")}
    assert on_nb1 == {ids[1], ids[3]}
    assert list(sdk.pipelines.list_pipelines(filter=f"name LIKE '{prefix}'")) == []


@pytest.mark.parametrize(("params", "named"), [
    ({"max_results": 101}, "max_results must be between 1 and 100"),
    ({"filter": "name LIKE 'a' AND notebook='/x'"}, "filter"),
    ({"filter": "state = 'IDLE'"}, "filter"),
    ({"order_by": "state asc"}, "order_by"),
    ({"page_token": "nonsense"}, "page_token"),
])
def test_list_refusals(api, params, named):
    answer = api.get("/api/2.0/pipelines", params=params)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error_code"] == "INVALID_PARAMETER_VALUE"
    assert named in answer.json()["message"]


@pytest.mark.parametrize(("body", "named"), [
    ({}, "name is required"),
    ({"name": "  "}, "name is required"),
    ({"name": "x", "schema": "a", "target": "b"}, "schema and target"),
    ({"name": "x", "catalog": "main"}, "catalog 'main' is set without a schema"),
    ({"name": "x", "catalog": "main", "schema": "s", "storage": "dbfs:/p"}, "storage"),
    ({"name": "x", "catalog": "main", "schema": "main.s"}, "schema 'main.s'"),
    ({"name": "x", "target": "main.s"}, "target 'main.s'"),
    ({"name": "x", "serverless": True, "target": "t"}, "serverless pipelines publish"),
    ({"name": "x", "serverless": True, "catalog": "main", "schema": "s",
      "clusters": [{"label": "default", "node_type_id": "Standard_DS3_v2"}]},
     "clusters[0] sets node_type_id"),
    ({"name": "x", "channel": "BETA"}, "channel 'BETA'"),
    ({"name": "x", "edition": "GOLD"}, "edition 'GOLD'"),
    ({"name": "x", "clusters": [{"label": "workers"}]}, "clusters[0].label 'workers'"),
    ({"name": "x", "clusters": [{"label": "default"}, {}]}, "clusters[1].label 'default'"),
    ({"name": "x", "clusters": [{"num_workers": 2, "autoscale": {"min_workers": 1,
                                                                  "max_workers": 3}}]},
     "both num_workers and autoscale"),
    ({"name": "x", "clusters": [{"autoscale": {"min_workers": 4, "max_workers": 4}}]},
     "clusters[0].autoscale.max_workers (4) must be greater"),
    ({"name": "x", "clusters": [{"autoscale": {"min_workers": 1, "max_workers": 4,
                                               "mode": "FAST"}}]},
     "clusters[0].autoscale.mode 'FAST'"),
    ({"name": "x", "libraries": [{"notebook": {"path": "/a"}, "whl": "/b.whl"}]},
     "libraries[0] must be exactly one of"),
    ({"name": "x", "libraries": [{"egg": "/b.egg"}]}, "libraries[0] must be exactly one of"),
    ({"name": "x", "libraries": [{"notebook": {"path": "relative"}}]},
     "libraries[0].notebook.path"),
    ({"name": "x", "libraries": [{"maven": {}}]}, "libraries[0].maven.coordinates"),
    ({"name": "x", "configuration": {"a": 1}}, "configuration must be an object of string"),
    ({"name": "x", "run_as": {"user_name": "nobody@example.com"}},
     "run_as.user_name 'nobody@example.com' does not exist"),
    ({"name": "x", "run_as": {"user_name": "alice@example.com",
                              "service_principal_name": BOOTSTRAP}},
     "run_as must name exactly one"),
])
def test_settings_refused_naming_the_field(api, body, named):
    answer = api.post("/api/2.0/pipelines", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error_code"] == "INVALID_PARAMETER_VALUE"
    assert named in answer.json()["message"]


def test_an_edit_is_checked_as_a_create(sdk, api):
    pipeline_id = sdk.pipelines.create(name=unique("checked"), libraries=on_notebook()
                                       ).pipeline_id
    answer = api.request("PUT", f"/api/2.0/pipelines/{pipeline_id}",
                         json={"name": "x", "catalog": "main"})
    assert answer.status_code == 400
    assert "without a schema" in answer.json()["message"]
    answer = api.request("PUT", f"/api/2.0/pipelines/{pipeline_id}",
                         json={"id": "another", "name": "x"})
    assert answer.status_code == 400 and "id 'another'" in answer.json()["message"]
    answer = api.request("PUT", "/api/2.0/pipelines/no-such-pipeline", json={"name": "x"})
    assert answer.status_code == 404
    assert answer.json()["error_code"] == "RESOURCE_DOES_NOT_EXIST"


def test_the_creator_owns_a_pipeline_and_grants_are_kept(sdk):
    pipeline_id = sdk.pipelines.create(name=unique("owned"), libraries=on_notebook()
                                       ).pipeline_id

    def direct(permissions: p.PipelinePermissions) -> dict[str, str]:
        shown = permissions.as_dict()["access_control_list"]
        return {(entry.get("user_name") or entry.get("group_name")
                 or entry["service_principal_name"]): entry["all_permissions"][0][
                     "permission_level"]
                for entry in shown if not entry["all_permissions"][0]["inherited"]}

    assert direct(sdk.pipelines.get_permissions(pipeline_id)) == {BOOTSTRAP: "IS_OWNER"}
    sdk.pipelines.set_permissions(pipeline_id, access_control_list=[
        p.PipelineAccessControlRequest(group_name="analysts",
                                       permission_level=p.PipelinePermissionLevel.CAN_VIEW)])
    assert direct(sdk.pipelines.get_permissions(pipeline_id)) == {
        BOOTSTRAP: "IS_OWNER", "analysts": "CAN_VIEW"}
    levels = sdk.pipelines.get_permission_levels(pipeline_id).permission_levels
    assert [level.permission_level.value for level in levels] == [
        "CAN_VIEW", "CAN_RUN", "CAN_MANAGE", "IS_OWNER"]
    # the generic permissions API sees the same object
    generic = sdk.permissions.get("pipelines", pipeline_id)
    assert generic.object_id == f"/pipelines/{pipeline_id}"
    assert isinstance(generic.access_control_list[0], iam.AccessControlResponse)


def _client_of(emulator, application: dict) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(
        emulator, application["client_id"], application["client_secret"]))


def _grant(sdk: WorkspaceClient, pipeline_id: str, application: dict,
           level: p.PipelinePermissionLevel) -> None:
    sdk.pipelines.update_permissions(pipeline_id, access_control_list=[
        p.PipelineAccessControlRequest(service_principal_name=application["client_id"],
                                       permission_level=level)])


def test_each_call_needs_its_level_on_the_pipeline(api, emulator):
    creator_app, _ = add_service_principal(api, emulator)
    other_app, _ = add_service_principal(api, emulator)
    creator, other = _client_of(emulator, creator_app), _client_of(emulator, other_app)
    name = unique("guarded")
    pipeline_id = str(creator.pipelines.create(name=name, libraries=on_notebook()).pipeline_id)
    # the creator (not an admin) owns it and may do everything
    creator.pipelines.update(pipeline_id, name=name, libraries=on_notebook())
    update_id = str(creator.pipelines.start_update(pipeline_id).update_id)

    with pytest.raises(PermissionDenied, match="CAN_VIEW permission on pipeline"):
        other.pipelines.get(pipeline_id)
    with pytest.raises(PermissionDenied):
        list(other.pipelines.list_pipeline_events(pipeline_id))
    assert list(other.pipelines.list_pipelines(filter=f"name LIKE '{name}'")) == []
    with pytest.raises(NotFound):  # a missing pipeline is 404 whoever asks
        other.pipelines.get("no-such-pipeline")

    _grant(creator, pipeline_id, other_app, p.PipelinePermissionLevel.CAN_VIEW)
    assert other.pipelines.get(pipeline_id).name == name
    assert other.pipelines.get_update(pipeline_id, update_id).as_dict()["update"][
        "update_id"] == update_id
    assert [s.pipeline_id for s in other.pipelines.list_pipelines(
        filter=f"name LIKE '{name}'")] == [pipeline_id]
    with pytest.raises(PermissionDenied, match="CAN_RUN"):
        other.pipelines.start_update(pipeline_id)

    _grant(creator, pipeline_id, other_app, p.PipelinePermissionLevel.CAN_RUN)
    other.pipelines.start_update(pipeline_id)
    other.pipelines.stop(pipeline_id)
    with pytest.raises(PermissionDenied, match="CAN_MANAGE"):
        other.pipelines.update(pipeline_id, name=name, libraries=on_notebook())
    with pytest.raises(PermissionDenied, match="CAN_MANAGE"):
        other.pipelines.delete(pipeline_id)

    _grant(creator, pipeline_id, other_app, p.PipelinePermissionLevel.CAN_MANAGE)
    other.pipelines.delete(pipeline_id)


# updates (on the manual clock: each state lasts a fifth of the transition time)


def _state(sdk: WorkspaceClient, pipeline_id: str, update_id: str) -> str:
    return sdk.pipelines.get_update(pipeline_id, update_id).as_dict()["update"]["state"]


def test_an_update_goes_through_the_service_states(manual, manual_sdk):
    pipeline_id = manual_sdk.pipelines.create(
        name=unique("states"), target="t", libraries=on_notebook()).pipeline_id
    update_id = manual_sdk.pipelines.start_update(pipeline_id, full_refresh=True).update_id
    seen = [_state(manual_sdk, pipeline_id, update_id)]
    running = manual_sdk.pipelines.get(pipeline_id)
    assert running.state == p.PipelineState.RUNNING
    assert running.cluster_id and running.latest_updates[0].update_id == update_id
    with pytest.raises(ResourceConflict, match=f"An active update {update_id}"):
        manual_sdk.pipelines.start_update(pipeline_id)
    for _ in range(5):
        advance_clock(manual, SLOT)
        seen.append(_state(manual_sdk, pipeline_id, update_id))
    assert seen == ["QUEUED", "WAITING_FOR_RESOURCES", "INITIALIZING", "SETTING_UP_TABLES",
                    "RUNNING", "COMPLETED"]
    done = manual_sdk.pipelines.get(pipeline_id)
    assert done.state == p.PipelineState.IDLE and done.cluster_id is None
    assert done.health == p.GetPipelineResponseHealth.HEALTHY
    assert done.latest_updates == [p.UpdateStateInfo(
        update_id=update_id, state=p.UpdateStateInfoState.COMPLETED,
        creation_time=done.latest_updates[0].creation_time)]
    info = manual_sdk.pipelines.get_update(pipeline_id, update_id).update
    assert info.full_refresh is True and info.validate_only is False
    assert info.cause == p.UpdateInfoCause.API_CALL
    assert info.config == done.spec and info.cluster_id == running.cluster_id
    events = list(manual_sdk.pipelines.list_pipeline_events(pipeline_id,
                                                            order_by=["timestamp asc"]))
    assert [e.message.split(" is ")[-1] for e in events[1:]] == [
        "QUEUED.", "WAITING_FOR_RESOURCES.", "INITIALIZING.", "SETTING_UP_TABLES.",
        "RUNNING.", "COMPLETED."]
    assert events[0].event_type == "create_update"
    assert {e.origin.update_id for e in events} == {update_id}
    assert all(e.level == p.EventLevel.INFO for e in events)


def test_a_missing_notebook_fails_the_update_with_an_error_event(manual, manual_sdk):
    missing = "/Shared/nowhere/ingest"
    pipeline_id = manual_sdk.pipelines.create(
        name=unique("missing"), libraries=[*on_notebook(), *on_notebook(missing)]
    ).pipeline_id
    update_id = manual_sdk.pipelines.start_update(pipeline_id).update_id
    advance_clock(manual, 2 * SLOT)
    assert _state(manual_sdk, pipeline_id, update_id) == "INITIALIZING"
    advance_clock(manual, SLOT)
    assert _state(manual_sdk, pipeline_id, update_id) == "FAILED"
    got = manual_sdk.pipelines.get(pipeline_id)
    assert got.state == p.PipelineState.IDLE
    assert got.health == p.GetPipelineResponseHealth.UNHEALTHY
    errors = list(manual_sdk.pipelines.list_pipeline_events(pipeline_id,
                                                            filter="level='ERROR'"))
    assert len(errors) == 1
    assert errors[0].message == f"Update {update_id[:6]} is FAILED."
    assert errors[0].error.fatal is True
    assert f"Unable to load the notebook '{missing}': it does not exist" in \
        errors[0].error.exceptions[0].message


def test_a_file_library_that_is_a_notebook_fails_the_update(sdk):
    pipeline_id = sdk.pipelines.create(
        name=unique("file"), libraries=[p.PipelineLibrary(file=p.FileLibrary(path=NOTEBOOK))]
    ).pipeline_id
    update_id = sdk.pipelines.start_update(pipeline_id).update_id
    assert _state(sdk, pipeline_id, update_id) == "FAILED"
    error = next(iter(sdk.pipelines.list_pipeline_events(pipeline_id, filter="level='ERROR'")))
    assert error.error.exceptions[0].message == \
        f"Unable to load the file '{NOTEBOOK}': it is a notebook, not a file."


def test_an_update_fails_until_its_schema_exists(sdk):
    catalog = unique("pipecat").replace("-", "_")
    sdk.catalogs.create(catalog)
    pipeline_id = sdk.pipelines.create(name=unique("uc"), catalog=catalog, schema="silver",
                                       libraries=on_notebook()).pipeline_id
    failed = sdk.pipelines.start_update(pipeline_id).update_id
    assert _state(sdk, pipeline_id, failed) == "FAILED"
    error = next(iter(sdk.pipelines.list_pipeline_events(pipeline_id, filter="level='ERROR'")))
    assert f"schema '{catalog}.silver'" in error.error.exceptions[0].message
    sdk.schemas.create("silver", catalog)
    passed = sdk.pipelines.start_update(pipeline_id).update_id
    assert _state(sdk, pipeline_id, passed) == "COMPLETED"


def test_validate_only_ends_after_setting_up_tables(manual, manual_sdk):
    pipeline_id = manual_sdk.pipelines.create(name=unique("validate"), libraries=on_notebook()
                                              ).pipeline_id
    update_id = manual_sdk.pipelines.start_update(pipeline_id, validate_only=True).update_id
    advance_clock(manual, 3 * SLOT)
    assert _state(manual_sdk, pipeline_id, update_id) == "SETTING_UP_TABLES"
    advance_clock(manual, SLOT)
    assert _state(manual_sdk, pipeline_id, update_id) == "COMPLETED"
    assert manual_sdk.pipelines.get_update(pipeline_id, update_id).update.validate_only


def test_stop_cancels_the_active_update(manual, manual_sdk):
    pipeline_id = manual_sdk.pipelines.create(name=unique("stopped"), libraries=on_notebook()
                                              ).pipeline_id
    manual_sdk.pipelines.stop(pipeline_id)  # nothing to stop: no change
    update_id = manual_sdk.pipelines.start_update(pipeline_id).update_id
    advance_clock(manual, 2 * SLOT)
    stopped = manual_sdk.pipelines.stop_and_wait(pipeline_id)
    assert stopped.state == p.PipelineState.IDLE
    assert _state(manual_sdk, pipeline_id, update_id) == "CANCELED"
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    assert _state(manual_sdk, pipeline_id, update_id) == "CANCELED"
    newest = next(iter(manual_sdk.pipelines.list_pipeline_events(pipeline_id)))
    assert newest.message == f"Update {update_id[:6]} is CANCELED."
    # a new update may start once the last one ended
    manual_sdk.pipelines.start_update(pipeline_id)


def test_selections_and_updates_listed_newest_first(sdk, api):
    pipeline_id = sdk.pipelines.create(name=unique("updates"), libraries=on_notebook()
                                       ).pipeline_id
    refused = api.post(f"/api/2.0/pipelines/{pipeline_id}/updates",
                       json={"full_refresh": True, "refresh_selection": ["orders"]})
    assert refused.status_code == 400 and "full_refresh" in refused.json()["message"]
    first = sdk.pipelines.start_update(pipeline_id, refresh_selection=["orders"],
                                       full_refresh_selection=["customers"]).update_id
    second = sdk.pipelines.start_update(pipeline_id, cause=p.StartUpdateCause.JOB_TASK
                                        ).update_id
    third = sdk.pipelines.start_update(pipeline_id).update_id
    listed = sdk.pipelines.list_updates(pipeline_id)
    assert [u.update_id for u in listed.updates] == [third, second, first]
    assert all(u.config is None for u in listed.updates)
    assert listed.updates[1].cause == p.UpdateInfoCause.JOB_TASK
    assert (listed.updates[2].refresh_selection, listed.updates[2].full_refresh_selection) \
        == (["orders"], ["customers"])
    paged = sdk.pipelines.list_updates(pipeline_id, max_results=2)
    assert [u.update_id for u in paged.updates] == [third, second]
    rest = sdk.pipelines.list_updates(pipeline_id, max_results=2,
                                      page_token=paged.next_page_token)
    assert [u.update_id for u in rest.updates] == [first] and rest.prev_page_token
    until = sdk.pipelines.list_updates(pipeline_id, until_update_id=second)
    assert [u.update_id for u in until.updates] == [third, second]
    with pytest.raises(NotFound):
        sdk.pipelines.get_update(pipeline_id, "no-such-update")


def test_events_paged_filtered_and_ordered(sdk, api):
    pipeline_id = sdk.pipelines.create(name=unique("events"), libraries=on_notebook()
                                       ).pipeline_id
    updates = [sdk.pipelines.start_update(pipeline_id).update_id for _ in range(2)]
    every = list(sdk.pipelines.list_pipeline_events(pipeline_id, max_results=3))
    assert len(every) == 2 * 7  # create_update and six states each
    assert len({e.id for e in every}) == len(every)
    sequence = [e.sequence.control_plane_seq_no for e in every]
    assert sequence == sorted(sequence, reverse=True)  # newest first
    ascending = list(sdk.pipelines.list_pipeline_events(pipeline_id,
                                                        order_by=["timestamp asc"]))
    assert ascending == list(reversed(every))
    of_first = list(sdk.pipelines.list_pipeline_events(
        pipeline_id, filter=f"update_id='{updates[0]}' AND level in ('INFO', 'WARN')"))
    assert len(of_first) == 7 and {e.origin.update_id for e in of_first} == {updates[0]}
    assert list(sdk.pipelines.list_pipeline_events(pipeline_id,
                                                   filter="level='ERROR'")) == []
    assert list(sdk.pipelines.list_pipeline_events(
        pipeline_id, filter="timestamp > '2000-01-01T00:00:00.000Z'")) == every
    refused = api.get(f"/api/2.0/pipelines/{pipeline_id}/events",
                      params={"filter": "flow_name = 'x'"})
    assert refused.status_code == 400 and "flow_name" in refused.json()["message"]
    # a page token carries the filter and order of its listing: nothing else beside it
    first = api.get(f"/api/2.0/pipelines/{pipeline_id}/events",
                    params={"filter": "level='INFO'", "order_by": "timestamp asc",
                            "max_results": 10}).json()
    rest = api.get(f"/api/2.0/pipelines/{pipeline_id}/events",
                   params={"page_token": first["next_page_token"], "max_results": 10}).json()
    assert [e["id"] for e in first["events"] + rest["events"]] == [e.id for e in ascending]
    assert "next_page_token" not in rest and rest["prev_page_token"]
    refused = api.get(f"/api/2.0/pipelines/{pipeline_id}/events",
                      params={"page_token": first["next_page_token"], "filter": "level='INFO'"})
    assert refused.status_code == 400 and "page_token" in refused.json()["message"]


def test_deleting_a_pipeline_takes_its_updates(sdk, api):
    pipeline_id = sdk.pipelines.create(name=unique("cascade"), libraries=on_notebook()
                                       ).pipeline_id
    update_id = sdk.pipelines.start_update(pipeline_id).update_id
    sdk.pipelines.delete(pipeline_id)
    for path in (f"/updates/{update_id}", "/updates", "/events"):
        answer = api.get(f"/api/2.0/pipelines/{pipeline_id}{path}")
        assert answer.status_code == 404, path
