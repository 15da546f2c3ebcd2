"""In-place references: a key that is the API's own field (`pipeline_task.pipeline_id`, a
Permissions' `object_id`) holds either a name of an item of the stack, which is a reference
to it (the program fills in its id and orders the two), or an id as the service gives it,
kept as it is."""

from __future__ import annotations

from typing import Any

import pytest

from providers.core.kind import Reference, ReferenceByType, declare, reference_for
from providers.core.kind import with_nested_references as resolved
from providers.core.registry import kind_named
from stacks import adopt, adopt_python, adoption
from stacks.config_rules import problems

JOB = kind_named("Job")
PERMISSIONS = kind_named("Permissions")
CLUSTER = {"name": "shared", "cluster_name": "shared", "spark_version": "15.4.x-scala2.12",
           "node_type_id": "Standard_DS3_v2", "num_workers": 1}


def config(**lists: Any) -> dict[str, Any]:
    return {
        "baseUrl": "http://127.0.0.1:8765",
        "authUrl": "http://127.0.0.1:8766",
        "tenantId": "dd523c38-5331-469f-bb30-6ee31e3da8ff",
        "clientId": "1251fa57-177d-41f0-84cd-847f7a048462",
        "resource": "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
        "allowInsecureHttp": "true",
        **lists,
    }


def permissions(object_type: str, object_id: str) -> dict[str, Any]:
    return {"name": "p", "object_type": object_type, "object_id": object_id,
            "access_controls": [{"group_name": "analysts", "permission_level": "CAN_MANAGE"}]}


def pipeline_job(pipeline_id: str) -> dict[str, Any]:
    return {"name": "refresh", "tasks": [
        {"task_key": "run", "pipeline_task": {"pipeline_id": pipeline_id}}]}


def test_an_in_place_reference_must_be_declared_at_its_own_field() -> None:
    with pytest.raises(ValueError, match="must end in its field"):
        declare(name="Odd", provider=PERMISSIONS.provider, doc="", summary="",
                action="does nothing",
                references={"tasks[].pipeline": Reference("pipelines", "pipeline_id",
                                                          in_place=True)})


def test_a_name_of_the_list_is_a_reference_and_any_other_value_an_id() -> None:
    reference = Reference("pipelines", "pipeline_id", in_place=True)
    names = {"pipelines": {"etl"}}
    assert reference.names_item("etl", names)
    assert not reference.names_item("0123-4567-abcd", names)
    assert not reference.names_item("etl", {})  # no such list in the stack
    # A reference of its own key always names an item (the config rules judge the name).
    assert Reference("jobs", "job_id").names_item("anything", {})


def test_the_job_fills_a_named_pipeline_and_keeps_a_pasted_id() -> None:
    names = {"pipelines": {"etl"}}

    def value_of(reference: Any, name: Any) -> Any:
        return f"id-of-{name}" if reference.names_item(name, names) else name

    by_name = resolved(pipeline_job("etl"), JOB, value_of)
    pasted = resolved(pipeline_job("0123-4567-abcd"), JOB, value_of)
    assert by_name["tasks"][0]["pipeline_task"] == {"pipeline_id": "id-of-etl"}
    assert pasted["tasks"][0]["pipeline_task"] == {"pipeline_id": "0123-4567-abcd"}


def test_the_config_rules_take_a_name_or_a_pasted_id_without_complaint() -> None:
    for object_id in ("shared", "0101-000000-abcdef"):
        found = problems(config(clusters=[CLUSTER],
                                permissions=[permissions("clusters", object_id)]))
        assert [p for p in found if p.startswith("workspace:permissions")] == [], object_id


def test_the_config_rules_still_judge_a_pasted_id_as_the_field_it_is() -> None:
    found = problems(config(permissions=[{**permissions("clusters", "x"), "object_id": ["x"]}]))
    assert any(p.startswith("workspace:permissions[0].object_id") for p in found), found


def test_permissions_name_the_list_of_their_object_type() -> None:
    declared = PERMISSIONS.item_references["object_id"]
    assert isinstance(declared, ReferenceByType)
    assert reference_for(declared, permissions("pipelines", "etl")) == Reference(
        "pipelines", "object_id", in_place=True)
    assert reference_for(declared, permissions("warehouses", "bi")) == Reference(
        "sqlWarehouses", "object_id", in_place=True)
    # Objects addressed by path, or of a type no stack declares, name no list.
    assert reference_for(declared, permissions("notebooks", "123")) is None


def test_adoption_writes_the_name_of_an_adopted_object_in_place() -> None:
    item = permissions("clusters", "0101-shared")
    item.pop("name")
    references = adoption.references_of(PERMISSIONS, item)
    assert references == {"object_id": "0101-shared"}
    candidate = adoption.Candidate(PERMISSIONS, "clusters/0101-shared", "p", item, None,
                                   references)
    known = adopt.Known(by_id={"clusters": {"0101-shared": "shared"}})
    assert adopt.with_references(PERMISSIONS, candidate, known)["object_id"] == "shared"
    # An object the stack does not declare keeps its id.
    assert adopt.with_references(PERMISSIONS, candidate, adopt.Known())["object_id"] == (
        "0101-shared")


def test_adoption_writes_a_named_pipeline_in_a_jobs_task() -> None:
    item = pipeline_job("0123-4567-abcd")
    known = adopt.Known(by_id={"pipelines": {"0123-4567-abcd": "etl"}})
    named = adopt.with_nested_names(JOB, adoption.references_of(JOB, item), known, item)
    assert named["tasks"][0]["pipeline_task"] == {"pipeline_id": "etl"}


def test_the_python_module_declares_a_name_as_the_resources_id_and_an_id_as_it_is() -> None:
    kinds = {"clusters": kind_named("Cluster"), "permissions": PERMISSIONS}
    named = {**permissions("clusters", "shared"), "name": "on-shared", "import": "clusters/1"}
    pasted = {**permissions("clusters", "0101-x"), "name": "elsewhere", "import": "clusters/2"}
    additions = {"clusters": [{**CLUSTER, "import": "1"}], "permissions": [named, pasted]}
    text = adopt_python.module_text(additions, kinds, "https://ws")
    assert "'object_id': made['clusters']['shared'].id" in text
    assert "'object_id': '0101-x'" in text


def test_a_tasks_wheel_and_a_clusters_init_script_name_volume_files_of_the_stack() -> None:
    names = {"volumeFiles": {"tasks-wheel", "install-deps"}}

    def value_of(reference: Any, name: Any) -> Any:
        return f"path-of-{name}" if reference.names_item(name, names) else name

    job = {"name": "j", "job_clusters": [{"job_cluster_key": "c", "new_cluster": {
        "init_scripts": [{"volumes": {"destination": "install-deps"}},
                         {"workspace": {"destination": "install-deps"}}]}}],
        "tasks": [{"task_key": "t", "libraries": [
            {"whl": "tasks-wheel"}, {"jar": "/Volumes/main/libs/jars/x.jar"},
            {"pypi": {"package": "tasks-wheel"}}]}]}
    made = resolved(job, JOB, value_of)
    assert made["job_clusters"][0]["new_cluster"]["init_scripts"] == [
        {"volumes": {"destination": "path-of-install-deps"}},
        {"workspace": {"destination": "install-deps"}},  # a workspace file: no volume file
    ]
    assert made["tasks"][0]["libraries"] == [
        {"whl": "path-of-tasks-wheel"}, {"jar": "/Volumes/main/libs/jars/x.jar"},
        {"pypi": {"package": "tasks-wheel"}}]
    cluster = {"name": "c", "libraries": [{"whl": "tasks-wheel"}],
               "init_scripts": [{"volumes": {"destination": "install-deps"}}]}
    made = resolved(cluster, kind_named("Cluster"), value_of)
    assert made["libraries"] == [{"whl": "path-of-tasks-wheel"}]
    assert made["init_scripts"] == [{"volumes": {"destination": "path-of-install-deps"}}]


def test_an_items_own_references_resolved_first_are_not_copied_with_the_nested_ones() -> None:
    class Unpicklable:
        """Stands for an Output: it refuses to be deep-copied."""

        def __deepcopy__(self, memo: Any) -> Any:
            raise AssertionError("an input outside the nested paths was copied")

    catalog = Unpicklable()
    pipeline = {"name": "orders", "catalog": catalog,
                "libraries": [{"notebook": {"path": "orders-notebook"}}]}
    made = resolved(pipeline, kind_named("Pipeline"), lambda reference, name: f"id-of-{name}")
    assert made["catalog"] is catalog
    assert made["libraries"] == [{"notebook": {"path": "id-of-orders-notebook"}}]
    assert pipeline["libraries"] == [{"notebook": {"path": "orders-notebook"}}]


def test_permissions_on_a_serving_endpoint_item_take_its_endpoint_id_not_its_name() -> None:
    declared = PERMISSIONS.item_references["object_id"]
    assert reference_for(declared, permissions("serving-endpoints", "churn")) == Reference(
        "servingEndpoints", "object_id", in_place=True, output="endpoint_id")
    # Other types keep the resource's id.
    assert reference_for(declared, permissions("apps", "orders")) == Reference(
        "apps", "object_id", in_place=True)


def test_the_program_fills_a_reference_with_the_output_it_names() -> None:
    class Endpoint:
        id = "churn"  # a serving endpoint's resource id: its name
        endpoint_id = "ep-0123"

    made = {"servingEndpoints": {"churn": Endpoint()}}
    by_output = Reference("servingEndpoints", "object_id", in_place=True, output="endpoint_id")
    assert by_output.value_in(made, "churn") == "ep-0123"
    by_id = Reference("servingEndpoints", "object_id", in_place=True)
    assert by_id.value_in(made, "churn") == "churn"
    assert by_output.value_in(made, "ep-4567") == "ep-4567"  # an id as the service gives it
    # The program reads the output from the service (known in a preview of an update).
    read = by_output.value_in(made, "churn", lambda key, resource, output: (
        key, resource.id, output))
    assert read == ("servingEndpoints", "churn", "endpoint_id")


def test_the_python_module_names_the_output_a_reference_takes() -> None:
    kinds = {"servingEndpoints": kind_named("ServingEndpoint"), "permissions": PERMISSIONS}
    named = {**permissions("serving-endpoints", "churn"), "name": "on-churn",
             "import": "serving-endpoints/ep-0123"}
    endpoint = {"name": "churn", "config": {"served_entities": [
        {"entity_name": "main.ml.churn", "entity_version": "1", "scale_to_zero_enabled": True}]},
        "import": "churn"}
    text = adopt_python.module_text({"servingEndpoints": [endpoint], "permissions": [named]},
                                    kinds, "https://ws")
    assert "'object_id': made['servingEndpoints']['churn'].endpoint_id" in text


def hooked_job(job_hook: str, task_hook: str) -> dict[str, Any]:
    return {"name": "nightly",
            "webhook_notifications": {"on_failure": [{"id": job_hook}]},
            "tasks": [{"task_key": "run", "notebook_task": {"notebook_path": "/Shared/n"},
                       "webhook_notifications": {"on_start": [{"id": task_hook}]}}]}


def test_a_jobs_webhook_notifications_name_destination_items_or_keep_an_id() -> None:
    names = {"notificationDestinations": {"pager"}}

    def value_of(reference: Any, name: Any) -> Any:
        return f"id-of-{name}" if reference.names_item(name, names) else name

    filled = resolved(hooked_job("pager", "0f1e2d3c-aaaa"), JOB, value_of)
    assert filled["webhook_notifications"] == {"on_failure": [{"id": "id-of-pager"}]}
    assert filled["tasks"][0]["webhook_notifications"] == {"on_start": [{"id": "0f1e2d3c-aaaa"}]}


def test_adoption_writes_a_named_destination_in_a_jobs_webhook_notification() -> None:
    item = hooked_job("0f1e2d3c-aaaa", "0f1e2d3c-aaaa")
    known = adopt.Known(by_id={"notificationDestinations": {"0f1e2d3c-aaaa": "pager"}})
    named = adopt.with_nested_names(JOB, adoption.references_of(JOB, item), known, item)
    assert named["webhook_notifications"] == {"on_failure": [{"id": "pager"}]}
    assert named["tasks"][0]["webhook_notifications"] == {"on_start": [{"id": "pager"}]}
