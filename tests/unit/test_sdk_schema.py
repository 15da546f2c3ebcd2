"""providers.core.sdk_schema: pydantic models derived from the SDK's dataclasses."""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated, Any

import pytest
from databricks.sdk.service import compute, jobs
from pydantic import AfterValidator, BaseModel, ValidationError

from providers.core.sdk_schema import ClassRules, SdkModels, model_at, model_of

# Derived at run time: the type checker knows none of its fields, so its instances are Any.
JobSettings: Any = model_of(jobs.JobSettings)


def errors_of(model: type[BaseModel], data: Any) -> list[tuple[tuple, str, str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [(tuple(e["loc"]), e["type"], e["msg"]) for e in caught.value.errors()]


def sdk_classes(root: type) -> list[type]:
    """Every dataclass `root` nests, itself included."""
    found: list[type] = []

    def visit(cls: type) -> None:
        if cls in found:
            return
        found.append(cls)
        for hint in typing.get_type_hints(cls).values():
            for inner in flatten(hint):
                if isinstance(inner, type) and dataclasses.is_dataclass(inner):
                    visit(inner)

    def flatten(hint: Any) -> list[Any]:
        args = typing.get_args(hint)
        return [x for arg in args for x in flatten(arg)] if args else [hint]

    visit(root)
    return found


# --- the derivation --------------------------------------------------------------------


@pytest.mark.parametrize("root", [jobs.JobSettings, compute.ClusterSpec])
def test_every_sdk_class_has_a_model_with_exactly_its_fields(root):
    models = SdkModels()
    classes = sdk_classes(root)
    assert len(classes) > 10
    for cls in classes:
        model = models.model_of(cls)
        assert list(model.model_fields) == [f.name for f in dataclasses.fields(cls)], cls
        for field in dataclasses.fields(cls):
            sdk_optional = field.default is not dataclasses.MISSING
            assert model.model_fields[field.name].is_required() is not sdk_optional, (
                cls,
                field.name,
            )


def test_unknown_fields_are_errors_at_their_path():
    errors = errors_of(
        JobSettings, {"tasks": [{"task_key": "a", "notebook_task": {"notebok_path": "/x"}}]}
    )
    assert [(loc, kind) for loc, kind, _ in errors] == [
        (("tasks", 0, "notebook_task", "notebook_path"), "missing"),
        (("tasks", 0, "notebook_task", "notebok_path"), "extra_forbidden"),
    ]


def test_optional_fields_default_to_none_and_required_ones_are_required():
    settings = JobSettings.model_validate({})
    assert settings.name is None and settings.tasks is None
    errors = errors_of(JobSettings, {"tasks": [{"notebook_task": {"notebook_path": "/x"}}]})
    assert errors == [(("tasks", 0, "task_key"), "missing", "Field required")]


def test_explicit_nulls_are_accepted_for_optional_fields():
    settings = JobSettings.model_validate({"name": None, "schedule": None})
    assert settings.schedule is None


def test_enums_take_their_string_values_and_keep_the_sdk_spelling():
    settings = JobSettings.model_validate(
        {"schedule": {"quartz_cron_expression": "0 0 1 * * ?", "timezone_id": "UTC",
                      "pause_status": "paused"},
         "git_source": {"git_url": "https://github.com/acme/etl", "git_provider": "github",
                        "git_branch": "main"}}
    )  # fmt: skip
    assert settings.schedule.pause_status == "PAUSED"
    assert settings.git_source.git_provider == "gitHub"
    dumped = settings.model_dump(mode="json", exclude_none=True)
    assert dumped["schedule"]["pause_status"] == "PAUSED"


def test_enum_members_of_the_sdk_are_accepted_too():
    settings = JobSettings.model_validate({"format": jobs.Format.MULTI_TASK})
    assert settings.format == "MULTI_TASK"


def test_a_wrong_enum_value_lists_the_allowed_ones():
    errors = errors_of(JobSettings, {"tasks": [{"task_key": "a", "run_if": "SOMETIMES"}]})
    [(loc, kind, message)] = errors
    assert loc == ("tasks", 0, "run_if") and kind == "literal_error"
    for value in jobs.RunIf:
        assert repr(value.value) in message


def test_field_types_follow_the_sdk_hints():
    errors = errors_of(
        JobSettings,
        {"max_concurrent_runs": "many", "tags": {"team": 7}, "tasks": [{"task_key": 3}]},
    )
    assert {(loc, kind) for loc, kind, _ in errors} == {
        (("max_concurrent_runs",), "int_parsing"),
        (("tags", "team"), "string_type"),
        (("tasks", 0, "task_key"), "string_type"),
    }


def test_whole_floats_are_ints_as_pulumi_sends_numbers():
    settings = JobSettings.model_validate({"max_concurrent_runs": 3.0, "timeout_seconds": 60.0})
    assert settings.max_concurrent_runs == 3 and isinstance(settings.max_concurrent_runs, int)
    errors = errors_of(JobSettings, {"max_concurrent_runs": 2.5})
    assert errors[0][:2] == (("max_concurrent_runs",), "int_from_float")


def test_recursive_classes_resolve_a_for_each_task_holds_a_task():
    settings = JobSettings.model_validate(
        {"tasks": [{"task_key": "loop", "for_each_task": {"inputs": "[1, 2]", "task": {
            "task_key": "body", "notebook_task": {"notebook_path": "/Workspace/x"}}}}]}
    )  # fmt: skip
    inner = settings.tasks[0].for_each_task.task
    assert type(inner) is type(settings.tasks[0])
    assert inner.notebook_task.notebook_path == "/Workspace/x"
    errors = errors_of(
        JobSettings,
        {"tasks": [{"task_key": "l", "for_each_task": {"inputs": "[]", "task": {"x": 1}}}]},
    )
    assert {loc for loc, *_ in errors} == {
        ("tasks", 0, "for_each_task", "task", "task_key"),
        ("tasks", 0, "for_each_task", "task", "x"),
    }


def test_a_field_named_like_a_basemodel_method_is_a_field():
    settings = JobSettings.model_validate(
        {"tasks": [{"task_key": "d", "dbt_task": {"commands": ["dbt run"], "schema": "sales"}}]}
    )
    assert settings.tasks[0].dbt_task.schema == "sales"


# --- the same shape as the SDK ---------------------------------------------------------

REALISTIC = {
    "name": "orders",
    "email_notifications": {"on_failure": ["data@example.com"], "no_alert_for_skipped_runs": False},
    "timeout_seconds": 0,
    "max_concurrent_runs": 1,
    "tasks": [
        {"task_key": "ingest", "notebook_task": {"notebook_path": "/Workspace/etl/ingest",
         "source": "WORKSPACE"}, "job_cluster_key": "etl", "run_if": "ALL_SUCCESS"},
        {"task_key": "load", "depends_on": [{"task_key": "ingest"}], "spark_python_task": {
            "python_file": "dbfs:/jobs/load.py", "parameters": ["--full"]},
         "new_cluster": {"spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge",
                         "num_workers": 2, "aws_attributes": {"availability": "SPOT_WITH_FALLBACK",
                         "zone_id": "auto", "first_on_demand": 1},
                         "init_scripts": [{"workspace": {"destination": "/Shared/init.sh"}}]},
         "libraries": [{"pypi": {"package": "requests==2.32.3"}}, {"maven": {
             "coordinates": "org.jsoup:jsoup:1.7.2"}}]},
    ],
    "job_clusters": [{"job_cluster_key": "etl", "new_cluster": {
        "spark_version": "15.4.x-scala2.12", "policy_id": "E0631F5C0D0004F1",
        "apply_policy_default_values": True, "autoscale": {"min_workers": 1, "max_workers": 8}}}],
    "schedule": {"quartz_cron_expression": "0 15 3 * * ?", "timezone_id": "UTC",
                 "pause_status": "UNPAUSED"},
    "queue": {"enabled": True},
    "format": "MULTI_TASK",
}  # fmt: skip


def test_the_model_reads_and_writes_what_the_sdk_does():
    ours = JobSettings.model_validate(REALISTIC).model_dump(mode="json", exclude_none=True)
    assert ours == jobs.JobSettings.from_dict(REALISTIC).as_dict() == REALISTIC


def test_compute_classes_are_derived_the_same_way_for_a_cluster_resource():
    spec: Any = model_of(compute.ClusterSpec)
    cluster = spec.model_validate(
        {"cluster_name": "shared", "spark_version": "15.4.x-scala2.12", "num_workers": 1,
         "data_security_mode": "user_isolation", "runtime_engine": "PHOTON"}
    )  # fmt: skip
    assert cluster.data_security_mode == "USER_ISOLATION"
    # One model per class: the job's clusters are the very same model.
    job_cluster = model_of(jobs.JobCluster)
    assert job_cluster.model_fields["new_cluster"].annotation == spec | None
    assert errors_of(spec, {"num_worker": 1})[0][:2] == (("num_worker",), "extra_forbidden")


# --- caching and rules -----------------------------------------------------------------


def test_models_are_cached_per_class_and_per_rules():
    rules = {"JobSettings": ClassRules(required=("name",))}
    assert model_of(jobs.JobSettings) is JobSettings
    ruled = model_of(jobs.JobSettings, overrides=rules)
    assert ruled is model_of(jobs.JobSettings, overrides=rules)
    assert ruled is not JobSettings
    # Classes the rules do not touch are still derived once per set of rules.
    models = SdkModels(rules)
    assert models.model_of(jobs.Task) is models.model_of(jobs.Task)


def shout(value: str) -> str:
    if value != value.upper():
        raise ValueError("must be upper case")
    return value


def test_rules_replace_a_field_type_and_it_applies_at_every_depth():
    models = SdkModels({"NotebookTask": ClassRules(fields={"notebook_path": Annotated[
        str, AfterValidator(shout)]})})  # fmt: skip
    settings = models.model_of(jobs.JobSettings)
    loop = {"task_key": "l", "for_each_task": {"inputs": "[]", "task": {
        "task_key": "b", "notebook_task": {"notebook_path": "/x"}}}}  # fmt: skip
    errors = errors_of(settings, {"tasks": [loop]})
    assert errors == [
        (("tasks", 0, "for_each_task", "task", "notebook_task", "notebook_path"), "value_error",
         "Value error, must be upper case")
    ]  # fmt: skip
    # The field keeps the SDK's optionality: notebook_path is required, so still required.
    notebook = models.model_of(jobs.NotebookTask)
    assert notebook.model_fields["notebook_path"].is_required()


def test_rules_make_an_optional_field_required():
    settings = SdkModels({"JobSettings": ClassRules(required=("name",))}).model_of(jobs.JobSettings)
    assert errors_of(settings, {}) == [(("name",), "missing", "Field required")]


def test_rules_check_whole_objects_at_the_objects_path():
    def workers_in_order(autoscale: Any) -> None:
        if autoscale.min_workers > autoscale.max_workers:
            raise ValueError("min_workers must not exceed max_workers")

    spec = SdkModels({"AutoScale": ClassRules(validators=(workers_in_order,))}).model_of(
        compute.ClusterSpec
    )
    errors = errors_of(spec, {"autoscale": {"min_workers": 5, "max_workers": 2}})
    assert errors == [
        (("autoscale",), "value_error", "Value error, min_workers must not exceed max_workers")
    ]
    assert spec.model_validate({"autoscale": {"min_workers": 1, "max_workers": 2}})


def test_rules_naming_a_field_the_sdk_lacks_fail_loudly():
    models = SdkModels({"JobSettings": ClassRules(required=("nmae",))})
    with pytest.raises(ValueError, match=r"JobSettings.*\['nmae'\]"):
        models.model_of(jobs.JobSettings)


def test_only_dataclasses_have_models():
    with pytest.raises(TypeError, match="not an SDK dataclass"):
        model_of(dict)


# --- model_at --------------------------------------------------------------------------


def test_model_at_follows_an_error_location_to_its_model():
    task = model_of(jobs.Task)
    settings: type[BaseModel] = JobSettings
    assert model_at(settings, ("tasks", 2)) is task
    assert model_at(settings, ("tasks", 0, "for_each_task", "task")) is task
    assert model_at(settings, ("tasks", 0, "new_cluster")) is model_of(compute.ClusterSpec)
    assert model_at(settings, ()) is settings
    assert model_at(settings, ("tasks", 0, "no_such_field")) is None
    assert model_at(settings, ("tags", "team")) is None
