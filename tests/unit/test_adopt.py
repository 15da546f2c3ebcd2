"""`python -m stacks.adopt`'s parts without a workspace or an engine: resource names, what is
left out, references by name, the config's rules screening new items, and a broken config
refused before anything is read or written. (Under the engine: tests/e2e/test_adopt.py.)"""

from __future__ import annotations

import copy
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from providers.core.kind import Kind, Reference
from providers.core.registry import kind_named
from stacks import adopt, adoption
from stacks.config import file_values
from stacks.pulumi_cli import REPO_ROOT

JOB = kind_named("Job")
JOB_PERMISSIONS = kind_named("JobPermissions")
SCOPE = kind_named("SecretScope")
PRINCIPAL = kind_named("ServicePrincipal")
GROUP = kind_named("Group")
KINDS = [PRINCIPAL, SCOPE, JOB, JOB_PERMISSIONS, GROUP]
TASKS = [{"task_key": "main", "existing_cluster_id": "0101-120000-shared01",
          "spark_python_task": {"python_file": "dbfs:/jobs/main.py"}}]


@dataclass(frozen=True)
class Candidate:
    """Stands for stacks.adoption.Candidate (the same fields)."""

    kind: Kind
    import_id: str
    display_name: str
    item: dict[str, Any] | None
    problem: str | None = None
    references: dict[str, str] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)


def job(job_id: str, name: str) -> Candidate:
    return Candidate(JOB, job_id, name, {"name": name, "tasks": copy.deepcopy(TASKS)})


def job_permissions(job_id: str, name: str) -> Candidate:
    item = {"job_id": int(job_id),
            "access_controls": [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]}
    return Candidate(JOB_PERMISSIONS, job_id, name, item, references={"job_id": job_id})


def fake(*found: Candidate, own: tuple[str, ...] = ()) -> adopt.Source:
    """The workspace holds `found`; those whose ids are in `own` are the service's own."""

    def listed(client: Any, kind: Kind) -> Iterator[adoption.Listed]:
        for c in found:
            if c.kind is kind:
                reason = "the service's own" if c.import_id in own else None
                yield adoption.Listed(c.import_id, c.display_name, reason)

    def candidate_of(client: Any, kind: Kind, id_: str, name: str) -> Any:
        read.append(id_)
        return next(c for c in found if c.kind is kind and c.import_id == id_)

    read: list[str] = []
    source = adopt.Source(listed, candidate_of)
    object.__setattr__(source, "read", read)  # what was read, for the tests
    return source


def known(
    lists: dict[str, list[dict[str, Any]]] | None = None,
    deployments: dict[str, dict[str, Any]] | None = None,
) -> adopt.Known:
    return adopt.known_of(lists or {}, deployments or {}, "dev", KINDS)


def resource(kind: Kind, name: str, id_: str) -> dict[str, Any]:
    return {"type": kind.type_token, "id": id_,
            "urn": f"urn:pulumi:dev::workspace::{kind.type_token}::{name}"}


def export_of(*resources: dict[str, Any]) -> dict[str, Any]:
    return {"version": 3, "deployment": {"resources": list(resources)}}


def run(found: Iterable[Candidate], known_: adopt.Known | None = None,
        source: adopt.Source | None = None, **selected: Any) -> adopt.Plan:
    selection = adopt.select(KINDS, **selected)
    return adopt.plan(None, selection, known_ or known(),  # type: ignore[arg-type]
                      source=source or fake(*found))


# --- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("display", "expected"), [
    ("Nightly ETL (prod)", "nightly-etl-prod"),
    ("  Ünïcode — names ", "unicode-names"),
    ("x" * 80, "x" * adopt.NAME_LENGTH),
    ("***", ""),
])
def test_slug(display: str, expected: str) -> None:
    assert adopt.slug(display) == expected


def test_names_are_unique_within_their_list() -> None:
    lists = {"groups": [{"name": "analysts", "display_name": "analysts"}]}
    found = [Candidate(GROUP, "1", "Analysts", {"display_name": "Analysts"}),
             Candidate(GROUP, "2", "analysts!", {"display_name": "analysts!"}),
             Candidate(GROUP, "3", "***", {"display_name": "***"})]
    result = run(found, known(lists))
    assert [i["name"] for i in result.additions["groups"]] == [
        "analysts-2", "analysts-3", "group-3"]
    assert result.additions["groups"][0] == {
        "name": "analysts-2", "import": "1", "display_name": "Analysts"}


def test_a_job_is_named_by_its_name_and_two_of_one_name_are_refused() -> None:
    result = run([job("1", "nightly"), job("2", "nightly"), job("3", "hourly")])
    assert [i["name"] for i in result.additions["jobs"]] == ["nightly", "hourly"]
    assert [(r.kind, r.id) for r in result.refused] == [("job", "2")]
    assert "rename one of them in the workspace" in result.refused[0].problem


# --- what is left out ------------------------------------------------------------------------


def test_managed_and_ignored_objects_are_left_out() -> None:
    deployments = {
        "dev": export_of(resource(SCOPE, "etl", "etl")),
        "other": export_of(resource(JOB, "nightly", "1")),
    }
    lists = {"groups": [{"name": "team", "import": "9", "display_name": "team"}]}
    found = [
        Candidate(SCOPE, "etl", "etl", {"name": "etl"}),  # in dev's state
        job("1", "nightly"),  # in another stack's state
        Candidate(GROUP, "9", "team", {"display_name": "team"}),  # imported by the config
        Candidate(SCOPE, "scratch-1", "scratch-1", {"name": "scratch-1"}),  # ignored
        Candidate(GROUP, "100", "users", {"display_name": "users"}),  # the service's own
        Candidate(SCOPE, "kept", "kept", {"name": "kept"}),
    ]
    source = fake(*found, own=("100",))
    result = run(found, known(lists, deployments), source, ignores=["secret_scope:scratch-*"])
    assert result.additions == {"secretScopes": [{"name": "kept", "import": "kept"}]}
    assert (result.managed, result.left_out, result.refused) == (3, 2, [])
    assert source.read == ["kept"]  # type: ignore[attr-defined]  # only what it takes is read


def test_kind_and_match_select_what_is_taken() -> None:
    found = [job("1", "etl-a"), job("2", "report"), Candidate(SCOPE, "s", "s", {"name": "s"})]
    matched = run(found, matches=["job:etl-*"])
    assert list(matched.additions) == ["jobs"]
    assert [i["name"] for i in matched.additions["jobs"]] == ["etl-a"]
    whole = run(found, kinds=["SecretScope"], matches=["job:2"])
    assert {k: [i["name"] for i in v] for k, v in whole.additions.items()} == {
        "secretScopes": ["s"], "jobs": ["report"]}


@pytest.mark.parametrize(("option", "value", "message"), [
    ("kinds", ["notebook"], "--kind 'notebook': not a kind adopt takes"),
    ("matches", ["job"], "--match 'job' must be KIND:GLOB"),
    ("matches", ["notebook:x"], "--match 'notebook:x' must be KIND:GLOB"),
])
def test_a_bad_selection_is_refused(option: str, value: list[str], message: str) -> None:
    with pytest.raises(adopt.AdoptError, match=message.replace("(", r"\(")):
        adopt.select(KINDS, **{option: value})


def test_an_object_that_cannot_be_adopted_is_reported_not_written() -> None:
    problem = "its value is never returned: `pulumi config set --secret --path ...`"
    found = [Candidate(SCOPE, "s", "s", None, problem)]
    result = run(found)
    assert result.additions == {}
    assert result.refused == [adopt.Refusal("secret_scope", "s", "s", problem)]
    table = adopt.render_refusals(result.refused)
    assert "secret_scope  s   s     its value is never returned" in table
    assert table.endswith("1 object(s) cannot be adopted")


# --- references ------------------------------------------------------------------------------


def test_references_name_the_item_the_list_holds() -> None:
    result = run([job("1", "nightly"), job_permissions("1", "nightly")])
    assert result.additions["jobPermissions"] == [{
        "name": "nightly", "import": "1", "job": "nightly",
        "access_controls": [{"group_name": "analysts", "permission_level": "CAN_VIEW"}],
    }]


def test_a_reference_to_a_managed_object_names_its_resource() -> None:
    lists = {"jobs": [{"name": "etl", "tasks": TASKS}]}
    deployments = {"dev": export_of(resource(JOB, "etl", "7"))}
    result = run([job("7", "etl"), job_permissions("7", "etl")], known(lists, deployments))
    assert "jobs" not in result.additions
    assert result.additions["jobPermissions"][0]["job"] == "etl"


def test_a_reference_to_an_object_outside_the_stack_stays_an_id() -> None:
    deployments = {"other": export_of(resource(JOB, "etl", "7"))}  # another stack's job
    result = run([job("7", "etl"), job_permissions("7", "etl")], known({}, deployments))
    item = result.additions["jobPermissions"][0]
    assert item["job_id"] == 7 and "job" not in item


# --- the config's rules -------------------------------------------------------------------


def test_new_items_the_rules_refuse_are_dropped_and_reported() -> None:
    values, secret_keys = file_values(REPO_ROOT / "Pulumi.dev.yaml")
    result = run([Candidate(SCOPE, "s", "s", {"name": "s", "bogus": 1}),
                  Candidate(SCOPE, "t", "t", {"name": "t"})])
    kinds = {k.config_key: k for k in KINDS if k.config_key}
    screened = adopt.screened(values, set(secret_keys), result, kinds)
    assert [i["name"] for i in screened.additions["secretScopes"]] == ["t"]
    (refused,) = screened.refused
    assert (refused.kind, refused.id) == ("secret_scope", "s")
    assert ".bogus: unknown key" in refused.problem


def test_a_broken_config_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    settings = yaml.safe_load((REPO_ROOT / "Pulumi.dev.yaml").read_text())
    settings["config"]["workspace:jobz"] = []
    settings["config"]["workspace:secretScopes"] = [{"name": "a"}, {"name": "a"}]
    path = tmp_path / "Pulumi.broken.yaml"
    path.write_text(yaml.safe_dump(settings))
    # The notebook file the config names, in the project adopt judges the config in.
    report = tmp_path / "stacks/notebooks/nightly_report.py"
    report.parent.mkdir(parents=True)
    report.write_bytes((REPO_ROOT / "stacks/notebooks/nightly_report.py").read_bytes())
    before = path.read_text()
    args = adopt.parse_args(["--stack", "broken", "--project-dir", str(tmp_path),
                             "--state-dir", str(tmp_path / "state")])
    with pytest.raises(adopt.AdoptError) as refused:
        adopt.adopt(args, io.StringIO(), io.StringIO())
    message = str(refused.value)
    assert "Pulumi.broken.yaml has 4 problem(s); fix them first, nothing was written" in message
    assert "workspace:jobz: unknown key (did you mean 'jobs'?)" in message
    assert "workspace:secretScopes[1].name: 'a' is declared twice" in message
    assert path.read_text() == before
    assert not (tmp_path / "state").exists()  # no pulumi ran


def test_the_import_key_is_judged() -> None:
    from stacks.config_rules import problems

    values, secret_keys = file_values(REPO_ROOT / "Pulumi.dev.yaml")
    values = dict(values)
    values["secretScopes"] = [{"name": "a", "import": ""}, {"name": "b", "import": "b"},
                              {"name": "c", "import": "b"}]
    values["jobRuns"] = [{"name": "r", "job_id": 1, "import": "5"}]
    found = problems(values, secret_keys)
    assert "workspace:secretScopes[0].import: must be a non-empty string, the scope name of " \
        "the object to import" in found
    assert "workspace:secretScopes[2].import: 'b' is also declared by secretScopes[1]; one " \
        "resource per object" in found
    assert "workspace:jobRuns[0].import: a JobRun cannot be imported (it is an action)" in found


def test_a_secret_to_add_by_hand_gets_its_exact_command() -> None:
    """The index in `pulumi config set --secret --path` is the one the item takes when the
    refused items are added at the end of the list, in the order reported."""
    def problem(key: str) -> str:
        return (f"add {{\"key\": \"{key}\"}}; then `pulumi config set --secret --path "
                "'workspace:secrets[<i>].string_value' <value>` (<i>: its index)")

    result = adopt.Plan(refused=[
        adopt.Refusal("secret", "s/a", "s/a", problem("a")),
        adopt.Refusal("job", "1", "x", "a setting the kind cannot express"),
        adopt.Refusal("secret", "s/b", "s/b", problem("b")),
    ])
    lists = {"secrets": [{"name": "one"}, {"name": "two"}]}
    numbered = adopt.with_indexes(result, lists).refused
    assert "'workspace:secrets[2].string_value'" in numbered[0].problem
    assert "(2: its index)" in numbered[0].problem
    assert numbered[1].problem == "a setting the kind cannot express"
    assert "'workspace:secrets[3].string_value'" in numbered[2].problem


def test_the_python_module_declares_the_same_objects_with_their_import_ids() -> None:
    from stacks import adopt_python

    result = run([job("1", "nightly"), job_permissions("1", "nightly")])
    kinds = {k.config_key: k for k in KINDS if k.config_key}
    text = adopt_python.module_text(result.additions, kinds, "https://ws")
    compile(text, "adopted.py", "exec")
    assert "providers.Job(\n        'nightly'," in text
    assert "opts=pulumi.ResourceOptions(import_='1')" in text
    # The permissions' job is the module's own job resource.
    assert "'job_id': made['jobs']['nightly'].id," in text
    assert "'job':" not in text


@pytest.mark.parametrize("url", [
    'https://ws.example.com/\n"""\nimport os; os.system("id")\n"""',
    "https://ws.example.com/\"+__import__('os').system('id')+\"",
    "https://ws.example.com/'; import os #",
    "https://ws.example.com/\\",
    "https://ws.example.com/\x1b[2J",
    " https://ws.example.com",
])
def test_the_python_module_refuses_a_hostile_workspace_url(url: str) -> None:
    """A URL that would end a string of the generated module (a newline, quotes) is refused,
    naming baseUrl, before any text is made; the Connection refuses it as well."""
    from providers.client.connection import InsecureUrlError, check_url_shape
    from stacks import adopt_python

    kinds = {k.config_key: k for k in KINDS if k.config_key}
    with pytest.raises(InsecureUrlError, match="baseUrl must be a plain URL"):
        adopt_python.module_text({}, kinds, url)
    with pytest.raises(InsecureUrlError):
        check_url_shape(url, field="base_url")


def test_the_python_module_writes_every_string_as_a_literal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names, ids and settings holding quotes, newlines and code are literals of the module:
    it compiles, running it defines `declare` and runs nothing else, and each string comes
    back as it was; the URL is the normalised one (no trailing slash), in WORKSPACE_URL."""
    from stacks import adopt_python

    odd = "x'''\"\"\"\n__import__('os').system('touch pwned')\n#"
    result = run([job("1", odd)])
    result.additions["jobs"][0]["description"] = odd
    kinds = {k.config_key: k for k in KINDS if k.config_key}
    text = adopt_python.module_text(result.additions, kinds, "https://WS.example.com/ws/")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    exec(compile(text, "adopted.py", "exec"), namespace)  # noqa: S102 - the point of the test
    assert list(tmp_path.iterdir()) == []
    assert namespace["WORKSPACE_URL"] == "https://WS.example.com/ws"
    assert callable(namespace["declare"])
    assert f"'description': {odd!r}" in text
    assert "import_='1'" in text


def test_a_location_names_its_credential_whatever_the_case() -> None:
    """Unity Catalog names fold case: a location whose credential_name differs in case from
    the credential's name references the adopted credential's item."""
    credential_kind, location_kind = kind_named("StorageCredential"), kind_named(
        "ExternalLocation")
    credential = Candidate(credential_kind, "Lake-Cred", "Lake-Cred", {
        "name": "Lake-Cred",
        "azure_managed_identity": {"access_connector_id": "/subscriptions/0/ac"}})
    location = Candidate(location_kind, "raw", "raw", {
        "name": "raw", "url": "abfss://raw@lake.dfs.core.windows.net",
        "credential_name": "lake-cred"}, references={"credential_name": "lake-cred"})
    kinds = [credential_kind, location_kind]
    result = adopt.plan(None, adopt.select(kinds), adopt.known_of({}, {}, "dev", kinds),  # type: ignore[arg-type]
                        source=fake(credential, location))
    assert result.additions["externalLocations"] == [{
        "name": "raw", "import": "raw", "url": "abfss://raw@lake.dfs.core.windows.net",
        "storage_credential": "Lake-Cred"}]


def test_only_a_reference_whose_target_folds_case_matches_another_case() -> None:
    known_ = adopt.Known(by_id={"storageCredentials": {"Lake-Cred": "lake"}})
    folding = Reference(target_key="storageCredentials", field="credential_name",
                        folds_case=True)
    exact = Reference(target_key="storageCredentials", field="credential_name")
    assert known_.name_of(folding, "LAKE-cred") == "lake"
    assert known_.name_of(exact, "LAKE-cred") is None
    assert known_.name_of(exact, "Lake-Cred") == "lake"
    assert known_.name_of(folding, "other") is None
