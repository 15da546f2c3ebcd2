"""Both wire forms of every row of docs/api.md#wire-forms."""

from __future__ import annotations

import copy
import pickle

import pytest

from providers.client.connection import WireForm
from providers.client.wire import (
    SCIM_SERVICE_PRINCIPALS,
    normalise_job_settings,
    parse_binding_workspace_id,
    profile,
)

LEGACY = profile(WireForm.LEGACY)
PUBLIC = profile(WireForm.PUBLIC)

PUBLIC_JOB = {
    "name": "nightly",
    "new_cluster": {
        "name": "nightly-cluster",
        "spark_version": "13.3.x-scala2.12",
        "node_type_id": "Standard_DS3_v2",
        "autoscale": {"min_workers": 1, "max_workers": 4},
        "init_scripts": [{"dbfs": {"destination": "dbfs:/init/setup.sh"}}],
        "cluster_log_conf": {"dbfs": {"destination": "dbfs:/mnt/logs"}},
        "spark_env_vars": {"ENV": "dev"},
    },
    "libraries": [{"pypi": {"package": "requests==2.34.2"}}],
    "timeout_seconds": 3600,
    "max_retries": 2,
    "spark_python_task": {"python_file": "dbfs:/jobs/main.py", "parameters": ["--a", "1"]},
}

LEGACY_FORM_JOB = {
    "name": "nightly",
    "new_cluster": {
        "name": "nightly-cluster",
        "spark_version": "13.3.x-scala2.12",
        "node_type_id": "Standard_DS3_v2",
        "autoscale": {"min_workers": 1, "max_workers": 4},
        "init_scripts": [{"dbfs": {"destination": "dbfs:/init/setup.sh"}}],
        "cluster_log_conf": {
            "dbfs": {"destination": "dbfs:/mnt/logs"},
            "spark_env_vars": {"ENV": "dev"},
        },
        "libraries": [{"pypi": {"package": "requests==2.34.2"}}],
        "timeout_seconds": 3600,
        "max_retries": 2,
        "spark_python_task": {"python_file": "dbfs:/jobs/main.py", "parameters": ["--a", "1"]},
    },
}


def test_profile_accepts_the_enum_or_its_value():
    assert profile("legacy") is LEGACY
    assert profile("public") is PUBLIC
    with pytest.raises(ValueError, match="'other' is not a valid WireForm"):
        profile("other")


def test_profiles_pickle_to_themselves():
    assert pickle.loads(pickle.dumps(LEGACY)) is LEGACY
    assert pickle.loads(pickle.dumps(PUBLIC)) is PUBLIC


def test_row_token_request():
    assert (LEGACY.token_method, LEGACY.token_grant_type) == ("GET", "client_credential")
    assert (PUBLIC.token_method, PUBLIC.token_grant_type) == ("POST", "client_credentials")


def test_row_keyvault_scope():
    assert (LEGACY.keyvault_backend_type, LEGACY.keyvault_field) == (
        "CLOUD_KEYVAULT",
        "backend_cloud_keyvault",
    )
    assert (PUBLIC.keyvault_backend_type, PUBLIC.keyvault_field) == (
        "AZURE_KEYVAULT",
        "backend_azure_keyvault",
    )
    assert LEGACY.keyvault_scope_body("s", "/subs/x", "https://kv.vault.net/") == {
        "scope": "s",
        "scope_backend_type": "CLOUD_KEYVAULT",
        "backend_cloud_keyvault": {"resource_id": "/subs/x", "dns_name": "https://kv.vault.net/"},
        "initial_manage_principal": "users",
    }
    assert PUBLIC.keyvault_scope_body("s", "/subs/x", "https://kv.vault.net/") == {
        "scope": "s",
        "scope_backend_type": "AZURE_KEYVAULT",
        "backend_azure_keyvault": {"resource_id": "/subs/x", "dns_name": "https://kv.vault.net/"},
        "initial_manage_principal": "users",
    }


def test_row_job_create_body():
    assert LEGACY.job_settings_to_wire(PUBLIC_JOB) == LEGACY_FORM_JOB
    assert PUBLIC.job_settings_to_wire(PUBLIC_JOB) == PUBLIC_JOB


def test_job_settings_to_wire_accepts_either_nesting():
    assert LEGACY.job_settings_to_wire(LEGACY_FORM_JOB) == LEGACY_FORM_JOB
    assert PUBLIC.job_settings_to_wire(LEGACY_FORM_JOB) == PUBLIC_JOB


def test_job_settings_to_wire_never_changes_its_input():
    before = copy.deepcopy(PUBLIC_JOB)
    LEGACY.job_settings_to_wire(PUBLIC_JOB)["new_cluster"]["name"] = "changed"
    PUBLIC.job_settings_to_wire(PUBLIC_JOB)["new_cluster"]["name"] = "changed"
    assert before == PUBLIC_JOB


def test_normalise_job_settings_round_trips_both_nestings():
    assert normalise_job_settings(LEGACY_FORM_JOB) == PUBLIC_JOB
    assert normalise_job_settings(PUBLIC_JOB) == PUBLIC_JOB
    assert LEGACY.job_settings_to_wire(normalise_job_settings(LEGACY_FORM_JOB)) == LEGACY_FORM_JOB
    assert normalise_job_settings(LEGACY.job_settings_to_wire(PUBLIC_JOB)) == PUBLIC_JOB


def test_legacy_env_vars_without_a_log_conf_get_one_and_lose_it_again():
    public = {"name": "j", "new_cluster": {"spark_env_vars": {"A": "1"}}}
    legacy = LEGACY.job_settings_to_wire(public)
    assert legacy == {
        "name": "j",
        "new_cluster": {"cluster_log_conf": {"spark_env_vars": {"A": "1"}}},
    }
    assert normalise_job_settings(legacy) == public


def test_normalise_prefers_the_public_position_when_both_are_present():
    mixed = {"timeout_seconds": 10, "new_cluster": {"timeout_seconds": 99}}
    assert normalise_job_settings(mixed) == {"timeout_seconds": 10, "new_cluster": {}}


def test_job_without_new_cluster_passes_through():
    settings = {"name": "j", "existing_cluster_id": "abc", "timeout_seconds": 5}
    assert LEGACY.job_settings_to_wire(settings) == settings
    assert normalise_job_settings(settings) == settings


def test_row_delete_principal():
    app_id, workspace_id = "9f1c-app", "123456"
    assert LEGACY.principal_delete_path(app_id, workspace_id) == (
        f"{SCIM_SERVICE_PRINCIPALS}/{app_id}"
    )
    assert PUBLIC.principal_delete_path(app_id, workspace_id) == (
        f"{SCIM_SERVICE_PRINCIPALS}/{workspace_id}"
    )


def test_principal_path_is_quoted():
    assert LEGACY.principal_delete_path("a/b", "1").endswith("/a%2Fb")


def test_row_repo_branch():
    assert LEGACY.repo_update_method == "POST"
    assert PUBLIC.repo_update_method == "PATCH"


def test_row_stop_cluster():
    assert LEGACY.cluster_stop_path == "/api/2.0/clusters/stop"
    assert PUBLIC.cluster_stop_path == "/api/2.0/clusters/delete"


def test_row_binding_workspace_ids():
    big = 2**62 + 7
    assert LEGACY.binding_workspace_id(big) == str(big)
    assert PUBLIC.binding_workspace_id(big) == big
    assert parse_binding_workspace_id(str(big)) == parse_binding_workspace_id(big) == big
    assert LEGACY.bind_body([1, 2]) == {
        "add": [
            {"workspace_id": "1", "binding_type": "BINDING_TYPE_READ_WRITE"},
            {"workspace_id": "2", "binding_type": "BINDING_TYPE_READ_WRITE"},
        ],
        "remove": [],
    }
    assert PUBLIC.bind_body([1], "BINDING_TYPE_READ_ONLY") == {
        "add": [{"workspace_id": 1, "binding_type": "BINDING_TYPE_READ_ONLY"}],
        "remove": [],
    }


def test_row_unbind():
    assert LEGACY.unbind_body([1, 2]) == {"unassign_workspaces": ["1", "2"]}
    assert PUBLIC.unbind_body([1, 2]) == {
        "remove": [
            {"workspace_id": 1, "binding_type": "BINDING_TYPE_READ_WRITE"},
            {"workspace_id": 2, "binding_type": "BINDING_TYPE_READ_WRITE"},
        ]
    }
