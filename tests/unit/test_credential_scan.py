"""stacks.credential_scan and adopt's refusal of what it finds (issue 41, M10): a value that
looks like a credential outside the kinds' secret fields (a storage key in `spark_conf`, a
password in `spark_env_vars`, a token in a task's parameters or in a notebook's source) is
never written into the files adopt tells a team to commit; the refusal says where and how
to move it into a secret scope, and never shows the value."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

import pytest

from providers.core.registry import kind_named
from stacks import adopt, adoption
from stacks.adoption import candidate_of
from stacks.credential_scan import (
    Finding,
    in_content,
    in_settings,
    is_secret_reference,
    looks_like_credential_name,
)

NO_CLIENT: Any = SimpleNamespace()
PAT = "dapi" + "0123456789abcdef" * 2
STORAGE_KEY = "q1w2e3r4t5y6u7i8o9p0" * 4 + "=="
AWS_KEY = "AKIA" + "ABCDEFGHIJKLMNOP"
CLUSTER = {"cluster_name": "shared", "spark_version": "13.3.x-scala2.12",
           "node_type_id": "Standard_DS3_v2", "num_workers": 2}


# --- the detector ----------------------------------------------------------------------


@pytest.mark.parametrize("name", [
    "spark.hadoop.fs.azure.account.key.lake.dfs.core.windows.net", "fs.s3a.secret.key",
    "fs.azure.account.oauth2.client.secret", "DB_PASSWORD", "apiToken", "AWS_ACCESS_KEY_ID",
    "fs.azure.sas.raw.lake.blob.core.windows.net", "credentials", "--password", "myapikey",
])
def test_names_that_say_credential(name: str) -> None:
    assert looks_like_credential_name(name)


@pytest.mark.parametrize("name", [
    "spark.sql.shuffle.partitions", "fs.azure.account.oauth2.client.id",
    "fs.azure.account.auth.type", "PYSPARK_PYTHON", "monkey", "keyspace_name", "date",
])
def test_names_that_do_not(name: str) -> None:
    assert not looks_like_credential_name(name)


@pytest.mark.parametrize(("value", "reference"), [
    ("{{secrets/lake/key}}", True), (" {{ secrets/lake/key }} ", True),
    ("{{secrets/a/b}}{{secrets/c/d}}", True), ("pre{{secrets/a/b}}", False),
    ("{{secrets/only-scope}}", False), ("plain", False), ("", False),
])
def test_secret_references(value: str, reference: bool) -> None:
    assert is_secret_reference(value) is reference


def test_known_credential_forms_in_content_by_line() -> None:
    content = (
        "# Databricks notebook source\n"
        f"token = '{PAT}'\n"
        "x = 1\n"
        f"aws = '{AWS_KEY}'\n"
        "-----BEGIN RSA PRIVATE KEY-----\n"
        f"conn = 'DefaultEndpointsProtocol=https;AccountName=lake;AccountKey={STORAGE_KEY}'\n"
        "url = 'https://lake.blob.core.windows.net/c?sv=2022&sig=" + "a%2Bb" * 8 + "'\n"
        "gh = 'ghp_" + "A1" * 18 + "'\n"
        "secret = dbutils.secrets.get('lake', 'key')\n"
    ).encode()
    assert in_content(content) == [
        Finding("line 2", "a personal access token (dapi...)"),
        Finding("line 4", "an AWS access key id"),
        Finding("line 5", "a private key"),
        Finding("line 6", "an Azure storage account key (AccountKey=)"),
        Finding("line 7", "an Azure shared access signature (sig=)"),
        Finding("line 8", "a GitHub token"),
    ]
    assert in_content(b"# Databricks notebook source\nprint('dapi is a prefix')\n") == []


def test_settings_named_like_credentials_and_values_of_known_forms() -> None:
    job = {
        "name": "etl",
        "parameters": [{"name": "db_password", "default": "hunter2"},
                       {"name": "db_user", "default": "etl"},
                       {"name": "api_token", "default": "{{secrets/etl/token}}"}],
        "description": f"calls the API with {PAT}",
        "job_clusters": [{"job_cluster_key": "main", "new_cluster": {
            "spark_conf": {"fs.s3a.secret.key": "s3cr3t", "spark.sql.ansi.enabled": "true",
                           "fs.s3a.access.key": "{{secrets/aws/id}}"},
            "spark_env_vars": {"DB_PASSWORD": "hunter2", "PYSPARK_PYTHON": "/py"}}}],
        "tasks": [{"task_key": "a", "notebook_task": {
            "notebook_path": "/etl", "base_parameters": {"token": "abc", "day": "mon"}}},
                  {"task_key": "b", "spark_python_task": {
                      "python_file": "x.py",
                      "parameters": ["--password=hunter2", "--token", "abc", "--day", "mon",
                                     "--verbose", "--key={{secrets/a/b}}"]}},
                  {"task_key": "c", "python_wheel_task": {
                      "package_name": "p", "entry_point": "e",
                      "named_parameters": {"secret": "abc", "enable_token_cache": "false"}}}],
    }
    found = in_settings(job)
    assert [f.where for f in found] == [
        "parameters[0].default",
        "description",
        "job_clusters[0].new_cluster.spark_conf['fs.s3a.secret.key']",
        "job_clusters[0].new_cluster.spark_env_vars['DB_PASSWORD']",
        "tasks[0].notebook_task.base_parameters['token']",
        "tasks[1].spark_python_task.parameters[0]",
        "tasks[1].spark_python_task.parameters[2]",
        "tasks[2].python_wheel_task.named_parameters['secret']",
    ]
    assert found[1].what == "a personal access token (dapi...)"
    assert all("hunter2" not in f.where + f.what and "abc" not in f.what for f in found)
    # A kind's declared secret field is the engine's to keep secret: not a finding.
    assert in_settings({"string_value": PAT}, skip=("string_value",)) == []


# --- adopt refuses them ------------------------------------------------------------------


def read_as(monkeypatch: pytest.MonkeyPatch, kind: Any, observed: dict[str, Any]) -> None:
    monkeypatch.setattr(kind.provider, "read_object", lambda self, c, i, r: (observed, {}))


def test_a_storage_key_in_spark_conf_is_refused_with_the_remedy(monkeypatch) -> None:
    kind = kind_named("Cluster")
    key = "spark.hadoop.fs.azure.account.key.lake.dfs.core.windows.net"
    read_as(monkeypatch, kind, {**CLUSTER, "spark_conf": {key: STORAGE_KEY},
                                "spark_env_vars": {"DB_PASSWORD": "hunter2"}})
    candidate = candidate_of(NO_CLIENT, kind, "0101-120000-abc", "shared")
    assert candidate is not None and candidate.item is None
    problem = candidate.problem or ""
    assert f"spark_conf[{key!r}] (a setting named like a credential)" in problem
    assert "spark_env_vars['DB_PASSWORD']" in problem
    assert "put the value in a secret scope and reference it as `{{secrets/<scope>/<key>}}`" \
        in problem
    assert "Review it" in problem and "cluster:0101-120000-abc" in problem
    assert STORAGE_KEY not in problem and "hunter2" not in problem


def test_a_secret_reference_in_spark_conf_is_adopted(monkeypatch) -> None:
    kind = kind_named("Cluster")
    conf = {"spark.hadoop.fs.azure.account.key.lake.dfs.core.windows.net": "{{secrets/lake/key}}"}
    read_as(monkeypatch, kind, {**CLUSTER, "spark_conf": conf})
    candidate = candidate_of(NO_CLIENT, kind, "0101-120000-abc", "shared")
    assert candidate is not None and candidate.problem is None
    assert candidate.item is not None and candidate.item["spark_conf"] == conf


def test_a_storage_key_in_a_pipelines_configuration_is_refused(monkeypatch) -> None:
    """A pipeline's `configuration` is Spark settings as a cluster's `spark_conf` is: a
    value named like a credential there is refused, never written into the project."""
    kind = kind_named("Pipeline")
    key = "spark.hadoop.fs.azure.account.key.lake.dfs.core.windows.net"
    read_as(monkeypatch, kind, {"name": "sales", "target": "sales",
                                "configuration": {key: "plain-storage-key-value",
                                                  "source": "/Volumes/main/raw/sales"}})
    candidate = candidate_of(NO_CLIENT, kind, "0a1b2c3d", "sales")
    assert candidate is not None and candidate.item is None
    problem = candidate.problem or ""
    assert f"configuration[{key!r}] (a setting named like a credential)" in problem
    assert "plain-storage-key-value" not in problem


def test_a_token_in_a_tasks_parameters_is_refused(monkeypatch) -> None:
    kind = kind_named("Job")
    read_as(monkeypatch, kind, {"name": "etl", "tasks": [{
        "task_key": "main", "existing_cluster_id": "0101-120000-abc",
        "notebook_task": {"notebook_path": "/etl", "base_parameters": {"api_token": PAT}}}]})
    candidate = candidate_of(NO_CLIENT, kind, "42", "etl")
    assert candidate is not None and candidate.item is None
    assert "tasks[0].notebook_task.base_parameters['api_token']" in (candidate.problem or "")
    assert PAT not in (candidate.problem or "")


def test_a_notebook_whose_source_holds_a_token_is_refused_and_nothing_is_written(
    monkeypatch, tmp_path
) -> None:
    kind = kind_named("Notebook")
    source = f"# Databricks notebook source\nTOKEN = '{PAT}'\n".encode()
    read_as(monkeypatch, kind, {"path": "/Shared/etl", "language": "PYTHON"})
    monkeypatch.setattr(adoption, "exported_files",
                        lambda client, kind, import_id, observed: {"Shared/etl.py": source})
    candidate = candidate_of(NO_CLIENT, kind, "/Shared/etl", "/Shared/etl")
    assert candidate is not None and candidate.item is None and candidate.files == {}
    problem = candidate.problem or ""
    assert "its content Shared/etl.py, line 2 (a personal access token (dapi...))" in problem
    assert PAT not in problem
    listing = [adoption.Listed("/Shared/etl", "etl", None)]
    result = adopt.plan(NO_CLIENT, adopt.select([kind]), adopt.known_of({}, {}, "dev", [kind]),
                        source=adopt.Source(listed=lambda c, k: iter(listing)),
                        place=adopt.ContentPlace(tmp_path))
    assert result.files == {} and result.additions == {}
    [refused] = result.refused
    table = adopt.render_refusals(result.refused)
    assert refused.id == "/Shared/etl" and "secret scope" in table and PAT not in table


def test_adopts_report_says_review_before_committing() -> None:
    result = adopt.Plan(additions={"clusters": [{"name": "shared"}]})
    text = adopt.summary(result, "Pulumi.dev.yaml", False, 1.0, "dev")
    assert "review before committing" in text
    assert "`{{secrets/<scope>/<key>}}`" in text
    out = io.StringIO()
    print(text, file=out)
    assert out.getvalue().count("review before committing") == 1
