"""The guardrails' rules on resource props, without the engine (docs/guardrails.md): each
starter rule flags what it is about and nothing else, names the fix and never a credential's
value; a stack's `workspace:guardrails` becomes the pack's config, bad config is named; the
summary lists the guardrails broken under their resource."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from stacks.guardrails.command import run_guarded, write
from stacks.guardrails.rules import RULES, check, kind_of
from stacks.guardrails.settings import GuardrailsError, pack_config, problems
from stacks.preview_summary import policy_events, summarise

# What every workspace resource carries besides the kind's arguments.
BOOKKEEPING = {"__provider": "gAWVx...", "connection": {"base_url": "https://w.example"}}
STORAGE_KEY = "AccountKey=" + "Qm9ndXNLZXlGb3JUZXN0c09ubHlOb3RSZWFs" * 2


def job(**fields: Any) -> dict[str, Any]:
    return {**BOOKKEEPING, "name": "etl", "tasks": [{"task_key": "main"}], **fields}


def test_the_kind_of_a_type_token() -> None:
    assert kind_of("pulumi-python:dynamic/workspace:Job") == "Job"
    assert kind_of("pulumi:pulumi:Stack") is None


def test_job_owner_tag() -> None:
    assert check("Job", job(tags={"owner": "data-platform"})) == {}
    assert check("Job", job(tags={"owner": " "})) == {
        "job-owner-tag": ["the job has no `owner` tag: add the tag to the job's `tags` "
                          "(e.g. `tags: {owner: data-platform}`)"]}
    assert list(check("Job", job())) == ["job-owner-tag"]
    # the tag's name is a setting of the rule
    assert check("Job", job(tags={"team": "x"}), {"job-owner-tag": {"tag": "team"}}) == {}


def test_cluster_auto_termination() -> None:
    assert check("Cluster", {**BOOKKEEPING, "autotermination_minutes": 30}) == {}
    for minutes, shown in ((None, "not set"), (0, "0")):
        props = {**BOOKKEEPING, **({} if minutes is None else
                                   {"autotermination_minutes": minutes})}
        [message] = check("Cluster", props)["cluster-auto-termination"]
        assert f"(`autotermination_minutes` is {shown})" in message
        assert message.endswith("set `autotermination_minutes` (10 to 10000) so an idle "
                                "cluster stops")
    # a job's clusters are not all-purpose clusters
    assert "cluster-auto-termination" not in check("Job", job(tags={"owner": "x"}))


def grants(securable: str, full_name: str, principal: str, *privileges: str) -> dict[str, Any]:
    return {**BOOKKEEPING, "securable_type": securable, "full_name": full_name,
            "privilege_assignments": [{"principal": principal, "privileges": list(privileges)}]}


def test_all_privileges_to_account_users_on_a_production_catalog() -> None:
    rule = "no-all-privileges-to-account-users"
    [message] = check("Grants", grants("catalog", "prod", "account users", "ALL_PRIVILEGES"))[rule]
    assert message.startswith("`account users` is granted ALL_PRIVILEGES on the catalog prod")
    # inside the catalog too, and by a Grant of one principal
    assert rule in check("Grants", grants("schema", "prod.sales", "account users",
                                          "all_privileges"))
    assert rule in check("Grant", {**BOOKKEEPING, "securable_type": "catalog",
                                   "full_name": "prod", "principal": "account users",
                                   "privileges": ["ALL_PRIVILEGES"]})
    # less than everything, another principal, or not a catalog's securable: allowed
    assert check("Grants", grants("catalog", "prod", "account users", "USE_CATALOG")) == {}
    assert check("Grants", grants("catalog", "prod", "admins", "ALL_PRIVILEGES")) == {}
    assert check("Grants", grants("external_location", "landing", "account users",
                                  "ALL_PRIVILEGES")) == {}
    # which catalogs are production is the stack's setting
    only_prod = {rule: {"catalogs": ["prod", "prod_*"]}}
    assert check("Grants", grants("catalog", "dev", "account users", "ALL_PRIVILEGES"),
                 only_prod) == {}
    assert rule in check("Grants", grants("catalog", "prod_eu", "account users",
                                          "ALL_PRIVILEGES"), only_prod)


def test_no_credential_in_spark_conf_names_where_never_the_value() -> None:
    rule = "no-credential-in-spark-conf"
    cluster = {**BOOKKEEPING, "autotermination_minutes": 30, "spark_conf": {
        "fs.azure.account.key.lake.dfs.core.windows.net": "hunter2-not-a-reference",
        "spark.hadoop.fs.s3a.secret.key": "{{secrets/aws/secret-key}}",
        "spark.sql.shuffle.partitions": "8",
    }, "spark_env_vars": {"STORAGE": STORAGE_KEY}}
    found = check("Cluster", cluster)[rule]
    assert found == [
        "`spark_conf['fs.azure.account.key.lake.dfs.core.windows.net']` holds what looks like "
        "a credential (a setting named like a credential): put the value in a secret scope "
        "and reference it as `{{secrets/<scope>/<key>}}`",
        "`spark_env_vars['STORAGE']` holds what looks like a credential (an Azure storage "
        "account key (AccountKey=)): put the value in a secret scope and reference it as "
        "`{{secrets/<scope>/<key>}}`",
    ]
    assert "hunter2" not in json.dumps(found) and STORAGE_KEY not in json.dumps(found)
    in_job = job(tags={"owner": "x"}, job_clusters=[{"job_cluster_key": "c", "new_cluster": {
        "spark_conf": {"spark.hadoop.fs.s3a.access.key": "AKIAABCDEFGHIJKLMNOP"}}}])
    [message] = check("Job", in_job)[rule]
    assert message.startswith("`job_clusters[0].new_cluster.spark_conf"
                              "['spark.hadoop.fs.s3a.access.key']`")
    # a credential-like value outside Spark's settings is another matter (adopt's)
    assert check("Job", job(tags={"owner": "x"}, description="AKIAABCDEFGHIJKLMNOP")) == {}


def test_the_stacks_levels_and_settings_become_the_packs_config() -> None:
    config = pack_config({"guardrails": {
        "job-owner-tag": "mandatory",
        "no-all-privileges-to-account-users": {"level": "mandatory", "catalogs": ["prod"]},
        "cluster-auto-termination": "disabled",
    }})
    assert config == {
        "job-owner-tag": {"enforcementLevel": "mandatory", "tag": "owner"},
        "cluster-auto-termination": {"enforcementLevel": "disabled"},
        "no-all-privileges-to-account-users": {
            "enforcementLevel": "mandatory", "catalogs": ["prod"], "principal": "account users"},
        "no-credential-in-spark-conf": {"enforcementLevel": "advisory"},
    }
    # as the engine passes it: JSON text; a rule not named keeps its level (advisory)
    assert pack_config({"guardrails": json.dumps({"job-owner-tag": "advisory"})})[
        "no-credential-in-spark-conf"] == {"enforcementLevel": "advisory"}
    assert set(pack_config({})) == set(RULES)


def test_bad_guardrails_config_is_named_with_the_fix() -> None:
    assert problems({"guardrails": {
        "job-owner-tags": "mandatory",
        "job-owner-tag": "strict",
        "cluster-auto-termination": {"level": "advisory", "minutes": 30},
    }}) == [
        "workspace:guardrails.job-owner-tags: no such rule; the rules are " + ", ".join(RULES),
        "workspace:guardrails.job-owner-tag: the level must be one of advisory, mandatory, "
        "disabled, got 'strict'",
        "workspace:guardrails.cluster-auto-termination: unknown setting minutes; the rule "
        "takes level",
    ]
    assert problems({"guardrails": ["job-owner-tag"]}) == [
        "workspace:guardrails: must map rule names to a level (advisory, mandatory, disabled) "
        "or to {level: ..., <setting>: ...}"]
    with pytest.raises(GuardrailsError, match="got 'strict'"):
        pack_config({"guardrails": {"job-owner-tag": "strict"}})


def test_the_command_writes_the_pack_and_prints_the_engines_flags(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.dev.yaml").write_text(
        "config:\n  workspace:guardrails:\n    job-owner-tag: mandatory\n")
    flags = write(tmp_path, "dev")
    pack, config = tmp_path / ".guardrails" / "dev" / "pack", tmp_path / ".guardrails" / "dev"
    assert flags == ["--policy-pack", str(pack), "--policy-pack-config",
                     str(config / "config.json")]
    project = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())
    assert project["runtime"] == {"name": "python", "options": {"virtualenv": sys.prefix}}
    assert "serve([])" in (pack / "__main__.py").read_text()
    assert json.loads((config / "config.json").read_text())["job-owner-tag"][
        "enforcementLevel"] == "mandatory"
    (tmp_path / "Pulumi.bad.yaml").write_text(
        "config:\n  workspace:guardrails:\n    job-owner-tag: strict\n")
    result = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "guardrails", "--stack", "bad",
         "--project-dir", str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert "workspace:guardrails.job-owner-tag: the level must be one of" in result.stderr


class EngineLogging:
    """A stack's CLI whose engine writes one policy event to the run's `--event-log`."""

    stack = "dev"

    def __init__(self, project_dir: Path) -> None:
        self.project_dir = project_dir
        self.extra_env: dict[str, str] = {}
        self.calls: list[tuple[tuple[str, ...], dict[str, Any]]] = []

    def run(self, *args: str, **options: Any) -> subprocess.CompletedProcess[str]:
        self.calls.append((args, options))
        event = {"policyEvent": {"policyName": "job-owner-tag", "enforcementLevel": "advisory"}}
        Path(args[args.index("--event-log") + 1]).write_text(
            '{"sequence": 0, "cancelEvent": {}}\n' + json.dumps(event) + "\n")
        return subprocess.CompletedProcess(args, 255, "{}", "")


def test_a_guarded_run_has_the_packs_flags_and_the_event_log_and_reads_it_back(
    tmp_path: Path,
) -> None:
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    cli = EngineLogging(tmp_path)
    result, broken = run_guarded(cli, "up", "--yes", timeout=60)  # type: ignore[arg-type]
    (args, options), = cli.calls
    out = tmp_path / ".guardrails" / "dev"
    assert args[:-1] == ("up", "--yes", "--stack", "dev", "--policy-pack", str(out / "pack"),
                         "--policy-pack-config", str(out / "config.json"), "--event-log")
    assert not Path(args[-1]).exists(), "a scratch event log is removed after the run"
    assert options == {"check": False, "timeout": 60}
    assert cli.extra_env == {"PULUMI_DEBUG_COMMANDS": "true"}  # `--event-log` on 3.79
    assert result.returncode == 255
    assert broken == [{"policyName": "job-owner-tag", "enforcementLevel": "advisory"}]

    # flags written already are used as they are; the event log is kept where asked
    log = tmp_path / "events.jsonl"
    cli.calls.clear()
    run_guarded(cli, "preview", "--json", timeout=5, flags=["--policy-pack", "P"],  # type: ignore[arg-type]
                event_log=log)
    assert cli.calls[0][0] == ("preview", "--json", "--stack", "dev", "--policy-pack", "P",
                               "--event-log", str(log))
    assert policy_events(log.read_text()) == broken


def test_the_config_check_knows_the_guardrails_keys() -> None:
    from stacks.config_rules import problems as config_problems
    found = config_problems({"baseUrl": "https://w.example", "guardrails": {},
                             "guardrailRules": []})
    assert not [p for p in found if "guardrail" in p], found


EVENT = {"resourceUrn": "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:Job::etl",
         "message": "Every job names its owner in a tag.\nthe job has no `owner` tag: add it\n",
         "policyName": "job-owner-tag", "policyPackName": "workspace-guardrails",
         "enforcementLevel": "mandatory"}


def test_the_summary_lists_each_guardrail_broken_under_its_resource() -> None:
    log = "\n".join([json.dumps({"sequence": 1, "diagnosticEvent": {"message": "x"}}),
                     json.dumps({"sequence": 2, "policyEvent": EVENT}),
                     json.dumps({"sequence": 3, "policyEvent": {
                         **EVENT, "enforcementLevel": "warning", "policyName": "other|rule"}}),
                     '{"sequence": 4, "policy'])  # a line the engine was still writing
    events = policy_events(log)
    assert [e["policyName"] for e in events] == ["job-owner-tag", "other|rule"]
    failed = {"diagnostics": [{"severity": "error", "message": "error: preview failed\n"}]}
    assert summarise(failed, "dev", events).endswith("\n".join([
        "**Guardrails**",
        "",
        "A mandatory guardrail is broken: the preview fails, and an update would write "
        "nothing, until it is fixed.",
        "",
        "- `etl (Job)`",
        "  - **mandatory** `job-owner-tag`: the job has no \\`owner\\` tag: add it",
        "  - **advisory** `other\\|rule`: the job has no \\`owner\\` tag: add it",
        "",
    ]))
    clean = summarise({"steps": [], "changeSummary": {"same": 3}}, "dev", [])
    assert "Guardrails" not in clean
