"""The stack's config layer (stacks/config.py): every problem names its key and reason, the
committed environment files are valid config for the program, and values arrive in either
form (parsed YAML from a file, or the engine's text)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from stacks import check as config_check
from stacks import config_rules
from stacks.config import file_values
from stacks.config_rules import problems, validate
from stacks.errors import ConfigError
from stacks.pulumi_cli import REPO_ROOT

ENVIRONMENTS = ["local", "dev", "staging", "prod"]


def values_of(stack: str) -> dict[str, Any]:
    return copy.deepcopy(file_values(REPO_ROOT / f"Pulumi.{stack}.yaml")[0])


def as_engine_passes_them(values: dict[str, Any]) -> dict[str, str]:
    """Config as the engine hands it to the program: every value text, objects as JSON."""
    return {
        k: v if isinstance(v, str) else json.dumps(v) if isinstance(v, list | dict) else str(v)
        for k, v in values.items()
    }


@pytest.fixture()
def local() -> dict[str, Any]:
    """The local stack's settings, its (encrypted) client secret left out."""
    values = values_of("local")
    del values["clientSecret"]
    return values


@pytest.mark.parametrize("stack", ENVIRONMENTS)
def test_committed_environment_files_are_valid(stack: str) -> None:
    values, secrets = file_values(REPO_ROOT / f"Pulumi.{stack}.yaml")
    assert problems(values, secrets) == []
    assert problems(as_engine_passes_them(values), secrets) == []
    assert check_files(str(REPO_ROOT / f"Pulumi.{stack}.yaml")) == 0


def check_files(*paths: str) -> int:
    """`workspace-iac check` of the files named, in this project."""
    return config_check.main(["--project-dir", str(REPO_ROOT), *paths])


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_real_environments_use_the_public_wire_form_and_hold_no_secret(stack: str) -> None:
    text = (REPO_ROOT / f"Pulumi.{stack}.yaml").read_text()
    values = values_of(stack)
    assert values["wireForm"] == "public"
    assert values["baseUrl"].startswith("https://") and "allowInsecureHttp" not in values
    assert "clientSecret" not in values and "secure:" not in text
    # Every kind declared, but those whose items hold a secret value (a secret's, a Git
    # credential's token, a connection's password): set per stack, encrypted, never committed
    # (docs/secret.md, docs/connection.md).
    with_secret_values = {"secrets", "gitCredentials", "connections"}
    assert all(values[key] for key in config_rules.object_lists()
               if key not in with_secret_values)


def test_environments_differ_in_size_and_permissions() -> None:
    def biggest_cluster(stack: str) -> int:
        sizes = []
        for job in values_of(stack)["jobs"]:
            cluster = job["new_cluster"]
            sizes.append(
                cluster.get("autoscale", {}).get("max_workers", cluster.get("num_workers"))
            )
        return max(sizes)

    def engineer_levels(stack: str) -> set[str]:
        return {
            entry["permission_level"]
            for permissions in values_of(stack)["jobPermissions"]
            for entry in permissions["access_controls"]
            if entry.get("group_name") == "data-engineers"
        }

    assert biggest_cluster("dev") < biggest_cluster("staging") < biggest_cluster("prod")
    assert engineer_levels("dev") == {"CAN_MANAGE"}
    assert engineer_levels("staging") == {"CAN_MANAGE_RUN"}
    assert engineer_levels("prod") == {"CAN_VIEW"}


def test_unknown_top_level_key_suggests_the_close_one(local: dict[str, Any]) -> None:
    local["job"] = local.pop("jobs")
    local["baseURL"] = "https://x.example.com"
    found = problems(local)
    assert "workspace:job: unknown key (did you mean 'jobs'?)" in found
    assert "workspace:baseURL: unknown key (did you mean 'baseUrl'?)" in found
    # the permissions now name a job the stack no longer declares
    assert any(p.startswith("workspace:jobPermissions[0].job: no job named") for p in found)


def test_extension_keys_are_known(local: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    local["healthThresholds"] = {"runTest": 1.5}
    assert problems(local) == ["workspace:healthThresholds: unknown key"]
    monkeypatch.setitem(config_rules.EXTENSION_KEYS, "healthThresholds", "docs/health.md")
    assert problems(local) == []


def test_missing_required_connection_keys(local: dict[str, Any]) -> None:
    del local["baseUrl"]
    local["tenantId"] = ""
    found = problems(local)
    assert "workspace:baseUrl: required (`pulumi config set workspace:baseUrl <value>`)" in found
    assert (
        "workspace:tenantId: required (`pulumi config set workspace:tenantId <value>`) by "
        "authType 'azure-client-secret' (the default)"
    ) in found


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("wireForm", "private", "workspace:wireForm: Input should be 'legacy' or 'public'"),
        (
            "allowInsecureHttp",
            "sometimes",
            "workspace:allowInsecureHttp: Input should be a valid boolean",
        ),
        ("maxAttempts", "many", "workspace:maxAttempts: Input should be a valid integer"),
        ("timeoutSeconds", "0", "workspace:timeoutSeconds: Input should be greater than 0"),
        (
            "authUrl",
            "login.example.com",
            "workspace:authUrl: authUrl must be an absolute https:// URL",
        ),
    ],
)
def test_connection_settings_are_typed(
    local: dict[str, Any], key: str, value: str, reason: str
) -> None:
    local[key] = value
    found = problems(local)
    assert len(found) == 1 and found[0].startswith(reason), found


def test_plain_http_needs_loopback_and_the_switch(local: dict[str, Any]) -> None:
    local["allowInsecureHttp"] = "false"
    [problem] = problems(local)
    assert problem.startswith("workspace:baseUrl: baseUrl 'http://127.0.0.1:8765' uses http://")
    assert "allowInsecureHttp" in problem


def test_client_secret_in_plain_text_is_refused(local: dict[str, Any]) -> None:
    local["clientSecret"] = "s3cr3t-value"
    found = problems(local, secret_keys=())
    assert found == [
        "workspace:clientSecret: stored in plain text; set it with `pulumi config set "
        "--secret workspace:clientSecret <secret>`"
    ]
    assert "s3cr3t-value" not in found[0]
    assert problems(local, secret_keys={"clientSecret"}) == []


def test_lists_must_be_lists_of_objects(local: dict[str, Any]) -> None:
    local["jobs"] = {"name": "nightly-etl"}
    local["secretScopes"] = ["etl-secrets"]
    local["repoBranches"] = "{not json"
    found = problems(local)
    assert "workspace:jobs: must be a list of objects, got an object" in found
    assert "workspace:secretScopes[0]: must be an object, got text" in found
    assert "workspace:repoBranches: must be a list of objects, got text" in found


def test_names_are_required_and_unique(local: dict[str, Any]) -> None:
    scopes = local["secretScopes"]
    local["secretScopes"] = [*scopes, {"name": "etl-secrets"}, {"keyvault": None}]
    found = problems(local)
    assert (
        "workspace:secretScopes[2].name: 'etl-secrets' is declared twice (first at secretScopes[0])"
        in found
    )
    assert (
        "workspace:secretScopes[3].name: required (a non-empty string, the resource name)" in found
    )


def test_two_items_for_one_workspace_object_are_refused(local: dict[str, Any]) -> None:
    local["catalogBindings"].append({**local["catalogBindings"][0], "name": "finance-again"})
    local["servicePrincipals"].append({**local["servicePrincipals"][0], "name": "etl-copy"})
    local["jobPermissions"].append({**local["jobPermissions"][0], "name": "more-access"})
    found = problems(local)
    assert (
        "workspace:catalogBindings[1].catalog_name: 'finance' is also declared by "
        "catalogBindings[0]; one resource per object" in found
    )
    assert any(p.startswith("workspace:servicePrincipals[1].application_id: ") for p in found)
    assert any(
        p.startswith("workspace:jobPermissions[1].job: 'nightly-etl' is also") for p in found
    )


def test_kind_arguments_are_judged_by_the_kinds_own_rules(local: dict[str, Any]) -> None:
    job = local["jobs"][0]
    job["max_concurrent_runs"] = "two"
    job["job_clustrs"] = job.pop("job_clusters")
    local["repoBranches"][0]["branch"] = "bad..name"
    local["servicePrincipals"][0]["entitlements"].append("root")
    found = problems(local)
    assert (
        "workspace:jobs[0].max_concurrent_runs: Input should be a valid integer, "
        "unable to parse string as an integer" in found
    )
    assert "workspace:jobs[0].job_clustrs: unknown key (did you mean 'job_clusters'?)" in found
    assert any(p.startswith("workspace:repoBranches[0].branch: ") for p in found)
    assert any(
        p.startswith("workspace:servicePrincipals[0].entitlements[2]: Input should be")
        for p in found
    )


def test_nested_paths_and_unknown_nested_keys(local: dict[str, Any]) -> None:
    local["jobs"][0]["job_clusters"][0]["new_cluster"]["autoscale"] = {
        "min_workers": 5,
        "max_workerz": 4,
    }
    local["jobPermissions"][0]["access_controls"][1]["permision_level"] = "CAN_VIEW"
    found = problems(local)
    assert (
        "workspace:jobs[0].job_clusters[etl].new_cluster.autoscale.max_workerz: unknown key "
        "(did you mean 'max_workers'?)" in found
    )
    assert (
        "workspace:jobs[0].job_clusters[etl].new_cluster.autoscale.max_workers: Field required"
        in found
    )
    assert (
        "workspace:jobPermissions[0].access_controls[1].permision_level: unknown key "
        "(did you mean 'permission_level'?)" in found
    )


def test_job_permissions_reference_a_job_of_the_stack(local: dict[str, Any]) -> None:
    permissions = local["jobPermissions"]
    entry = permissions[0]
    permissions += [
        {**entry, "name": "typo", "job": "nightly-etI"},
        {**entry, "name": "nothing", "job": "weekly-report"},
        {
            "name": "both",
            "job": "nightly-etl",
            "job_id": 5,
            "access_controls": entry["access_controls"],
        },
        {"name": "neither", "access_controls": entry["access_controls"]},
        {"name": "by-id", "job_id": "not-a-number", "access_controls": entry["access_controls"]},
    ]
    found = problems(local)
    assert (
        "workspace:jobPermissions[1].job: no job named 'nightly-etI' in workspace:jobs "
        "(did you mean 'nightly-etl'?)" in found
    )
    assert (
        "workspace:jobPermissions[2].job: no job named 'weekly-report' in workspace:jobs "
        "(jobs declared: nightly-etl, orders-refresh)" in found
    )
    assert (
        "workspace:jobPermissions[3]: give either job or job_id, not both"
        in found
    )
    assert "workspace:jobPermissions[4].job: required (or job_id)" in found
    assert (
        "workspace:jobPermissions[5].job_id: must be a positive integer or a string of digits"
        in found
    )


def test_validate_reports_every_problem_at_once(local: dict[str, Any]) -> None:
    local["job"] = []
    local["wireForm"] = "private"
    with pytest.raises(ConfigError) as raised:
        validate(local)
    message = str(raised.value)
    assert message.startswith("the stack's config has 2 problem(s):\n")
    assert "workspace:job: unknown key" in message and "workspace:wireForm:" in message


def test_file_values_know_encrypted_keys(tmp_path: Path) -> None:
    document = yaml.safe_load((REPO_ROOT / "Pulumi.dev.yaml").read_text())
    # A method that takes a client secret (dev itself signs in by github-oidc, secretless).
    document["config"]["workspace:authType"] = "oauth-m2m"
    document["config"]["workspace:clientSecret"] = {"secure": "v1:abc:def"}
    document["config"]["other:key"] = "not ours"
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(document))
    values, secrets = file_values(path)
    assert secrets == {"clientSecret"} and "other:key" not in values
    assert problems(values, secrets) == []


def test_command_line_prints_problems_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())
    document["config"]["workspace:jobz"] = []
    path = tmp_path / "Pulumi.broken.yaml"
    path.write_text(yaml.safe_dump(document))
    assert check_files(str(path)) == 1
    assert f"{path}: workspace:jobz: unknown key (did you mean 'jobs'?)" in capsys.readouterr().out
    assert config_check.main(["--project-dir", str(tmp_path)]) == 2  # no project there


# --- secret values of the kinds' lists (docs/secret.md) ---------------------------------------


def local_file_with(tmp_path: Path, **secret_item: Any) -> Path:
    """Pulumi.local.yaml with one secret item of `secret_item`'s value fields."""
    document = yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())
    item = {"name": "etl-api-token", "secret_scope": "etl-secrets", "key": "api-token"}
    document["config"]["workspace:secrets"] = [{**item, **secret_item}]
    path = tmp_path / "Pulumi.local.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


@pytest.mark.parametrize("field", ["string_value", "bytes_value"])
def test_a_secret_value_stored_as_the_docs_say_is_accepted_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    # What `pulumi config set --secret --path 'workspace:secrets[0].string_value'` writes.
    path = local_file_with(tmp_path, **{field: {"secure": "v1:bm9uY2U=:Y2lwaGVydGV4dA=="}})
    values, secrets = file_values(path)
    assert problems(values, secrets) == []
    assert check_files(str(path)) == 0
    assert capsys.readouterr().out == f"{path}: ok\n"


@pytest.mark.parametrize("field", ["string_value", "bytes_value"])
def test_a_secret_value_in_plain_text_is_refused_as_a_plain_client_secret_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    path = local_file_with(tmp_path, **{field: "cGxhaW4tdG9rZW4="})
    expected = (
        f"workspace:secrets[0].{field}: stored in plain text; set it with `pulumi config set "
        f"--secret --path 'workspace:secrets[0].{field}' <secret>`"
    )
    assert problems(*file_values(path)) == [expected]
    assert check_files(str(path)) == 1
    out = capsys.readouterr().out
    assert f"{path}: {expected}" in out and "cGxhaW4tdG9rZW4=" not in out


def test_the_engine_marks_a_list_with_an_encrypted_value_secret(local: dict[str, Any]) -> None:
    """The running program gets the list decrypted, as JSON text; the engine names the key
    secret when any value in it was stored encrypted, which is all it can tell."""
    local["secrets"][0]["string_value"] = "decrypted-by-the-engine"
    engine = as_engine_passes_them(local)
    assert problems(engine, {"secrets"}) == []
    assert problems(engine, set()) == [
        "workspace:secrets[0].string_value: stored in plain text; set it with `pulumi config "
        "set --secret --path 'workspace:secrets[0].string_value' <secret>`"
    ]


def test_the_local_stack_keeps_its_demo_secret_encrypted() -> None:
    document = yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())
    [item] = document["config"]["workspace:secrets"]
    assert set(item["string_value"]) == {"secure"}
