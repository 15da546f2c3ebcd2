"""MLflow experiments through the official SDK, unchanged: create, read by id and by name,
rename, delete to the trash and restore, search (filter, view type, order, pages), tags; a
name held by a deleted experiment refused until it is restored. Each rule with its
refusal."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    InvalidParameterValue,
    InvalidState,
    NotFound,
    ResourceAlreadyExists,
)
from databricks.sdk.service import ml, workspace

from tests.emulator.support import expect_error, unique
from workspace_emulator.testing import fetch_token


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture
def folder(sdk) -> str:
    path = f"/Shared/{unique('exp')}"
    sdk.workspace.mkdirs(path)
    return path


def test_experiment_lifecycle(sdk, folder):
    name = f"{folder}/churn"
    made = sdk.experiments.create_experiment(
        name, tags=[ml.ExperimentTag(key="team", value="ml")])
    assert made.experiment_id and made.experiment_id.isdigit()
    found = sdk.experiments.get_experiment(made.experiment_id).experiment
    assert found is not None and found.name == name and found.lifecycle_stage == "active"
    assert found.artifact_location == f"dbfs:/databricks/mlflow-tracking/{made.experiment_id}"
    assert [(t.key, t.value) for t in found.tags or []] == [("team", "ml")]
    by_name = sdk.experiments.get_by_name(name).experiment
    assert by_name is not None and by_name.experiment_id == made.experiment_id
    with pytest.raises(ResourceAlreadyExists, match="already exists"):
        sdk.experiments.create_experiment(name)
    sdk.experiments.update_experiment(made.experiment_id, new_name=f"{folder}/renamed")
    renamed = sdk.experiments.get_experiment(made.experiment_id).experiment
    assert renamed is not None and renamed.name == f"{folder}/renamed"
    with pytest.raises(NotFound):
        sdk.experiments.get_by_name(name)


def test_delete_moves_to_the_trash_and_a_create_of_its_name_is_refused(sdk, folder):
    name = f"{folder}/trash"
    experiment_id = sdk.experiments.create_experiment(
        name, artifact_location="s3://bucket/exp").experiment_id
    assert experiment_id is not None
    sdk.experiments.delete_experiment(experiment_id)
    trashed = sdk.experiments.get_experiment(experiment_id).experiment
    assert trashed is not None and trashed.lifecycle_stage == "deleted"
    assert trashed.artifact_location == "s3://bucket/exp"
    with pytest.raises(ResourceAlreadyExists, match="trash"):
        sdk.experiments.create_experiment(name)
    with pytest.raises(InvalidState, match="restore"):
        sdk.experiments.set_experiment_tag(experiment_id, "k", "v")
    sdk.experiments.restore_experiment(experiment_id)
    restored = sdk.experiments.get_by_name(name).experiment
    assert restored is not None and restored.lifecycle_stage == "active"


def test_names_are_workspace_paths_in_existing_folders(sdk, api):
    with pytest.raises(InvalidParameterValue, match="absolute path"):
        sdk.experiments.create_experiment("relative/name")
    with pytest.raises(NotFound):
        sdk.experiments.create_experiment(f"/Shared/{unique('missing')}/exp")
    with pytest.raises(NotFound, match="does not exist"):
        sdk.experiments.get_experiment("123")
    expect_error(api.get("/api/2.0/mlflow/experiments/get", params={"experiment_id": "x"}),
                 404, "RESOURCE_DOES_NOT_EXIST")
    missing = expect_error(api.post("/api/2.0/mlflow/experiments/update",
                                    {"new_name": "/Shared/x"}), 400, "INVALID_PARAMETER_VALUE")
    assert "experiment_id" in missing["message"]


def test_tags_set_and_deleted(sdk, api, folder):
    experiment_id = sdk.experiments.create_experiment(f"{folder}/tags").experiment_id
    assert experiment_id is not None
    sdk.experiments.set_experiment_tag(experiment_id, "a", "1")
    sdk.experiments.set_experiment_tag(experiment_id, "a", "2")
    sdk.experiments.set_experiment_tag(experiment_id, "b", "3")
    found = sdk.experiments.get_experiment(experiment_id).experiment
    assert found is not None
    assert {(t.key, t.value) for t in found.tags or []} == {("a", "2"), ("b", "3")}
    deleted = api.post("/api/2.0/mlflow/experiments/delete-experiment-tag",
                       {"experiment_id": experiment_id, "key": "a"})
    assert deleted.status_code == 200, deleted.text
    found = sdk.experiments.get_experiment(experiment_id).experiment
    assert found is not None and [t.key for t in found.tags or []] == ["b"]
    expect_error(api.post("/api/2.0/mlflow/experiments/delete-experiment-tag",
                          {"experiment_id": experiment_id, "key": "a"}),
                 404, "RESOURCE_DOES_NOT_EXIST")


def test_search_filters_views_orders_and_pages(sdk, folder):
    ids = [sdk.experiments.create_experiment(
        f"{folder}/s{n}", tags=[ml.ExperimentTag(key="n", value=str(n % 2))]).experiment_id
        for n in range(5)]
    sdk.experiments.delete_experiment(ids[0])
    mine = f"name LIKE '{folder}/s%'"
    active = list(sdk.experiments.search_experiments(filter=mine, max_results=2,
                                                     order_by=["name ASC"]))
    assert [e.name for e in active] == [f"{folder}/s{n}" for n in (1, 2, 3, 4)]
    odd = list(sdk.experiments.search_experiments(filter=f"{mine} AND tags.n = '1'"))
    assert sorted(e.name for e in odd) == [f"{folder}/s1", f"{folder}/s3"]
    gone = list(sdk.experiments.search_experiments(filter=mine,
                                                   view_type=ml.ViewType.DELETED_ONLY))
    assert [e.experiment_id for e in gone] == [ids[0]]
    every = list(sdk.experiments.search_experiments(filter=mine, view_type=ml.ViewType.ALL))
    assert len(every) == 5
    with pytest.raises(InvalidParameterValue, match="filter"):
        list(sdk.experiments.search_experiments(filter="name ~ 'x'"))


def test_the_permissions_path_knows_active_experiments(sdk, api, folder):
    experiment_id = sdk.experiments.create_experiment(f"{folder}/perm").experiment_id
    found = api.get(f"/api/2.0/permissions/experiments/{experiment_id}")
    assert found.status_code == 200, found.text
    sdk.experiments.delete_experiment(str(experiment_id))
    expect_error(api.get(f"/api/2.0/permissions/experiments/{experiment_id}"), 404)


def test_a_file_is_no_folder_for_an_experiment(sdk, folder):
    sdk.workspace.upload(f"{folder}/notes", b"x", format=workspace.ImportFormat.AUTO)
    with pytest.raises(InvalidParameterValue, match="not a folder"):
        sdk.experiments.create_experiment(f"{folder}/notes/exp")
