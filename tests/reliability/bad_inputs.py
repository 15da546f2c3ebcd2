"""The catalogue of invalid inputs: each one a defect in one item (or one stack setting) of
an otherwise valid config, with the field the error must name and a piece of its reason."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

GOOD_JOB = {
    "new_cluster": {"spark_version": "13.3.x-scala2.12", "node_type_id": "Standard_DS3_v2",
                    "num_workers": 1},
    "spark_python_task": {"python_file": "dbfs:/jobs/main.py"},
}
# A multi-task job: the base of the `multi(...)` cases.
ETL_CLUSTER: dict[str, Any] = {"job_cluster_key": "etl", "new_cluster": {
    "spark_version": "15.4.x-scala2.12", "node_type_id": "Standard_D4ds_v5", "num_workers": 2}}
INGEST: dict[str, Any] = {
    "task_key": "ingest", "job_cluster_key": "etl",
    "spark_python_task": {"python_file": "/Workspace/Shared/etl/ingest.py"}}
TRANSFORM: dict[str, Any] = {
    "task_key": "transform", "depends_on": [{"task_key": "ingest"}], "job_cluster_key": "etl",
    "notebook_task": {"notebook_path": "/Workspace/Shared/etl/transform"}}
GOOD_MULTI_TASK_JOB: dict[str, Any] = {"job_clusters": [ETL_CLUSTER], "tasks": [INGEST, TRANSFORM]}
GIT_SOURCE: dict[str, Any] = {"git_url": "https://github.com/example-org/etl.git",
                              "git_provider": "gitHub", "git_branch": "main"}
# The multi-task job's tasks with paths in the repository of GIT_SOURCE.
GIT_TASKS = [
    {**INGEST, "spark_python_task": {"python_file": "etl/ingest.py"}},
    {**TRANSFORM, "notebook_task": {"notebook_path": "etl/transform"}},
]
GOOD_ACL = [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]
VAULT = {
    "resource_id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/dp/"
                   "providers/Microsoft.KeyVault/vaults/dp-kv",
    "dns_name": "https://dp-kv.vault.azure.net/",
}


@dataclass(frozen=True)
class Case:
    """`kind` is a config list (`jobs`, ...) or `setting` (a top-level key of the stack)."""

    kind: str
    label: str
    field: str  # the path the message must name, relative to the item or key
    reason: str  # a piece of the reason the message must give
    change: dict[str, Any] = dataclasses.field(default_factory=dict)  # merged into the good item
    drop: tuple[str, ...] = ()  # keys removed from it
    value: Any = None  # a setting's value


def nested(path: str, value: Any) -> dict[str, Any]:
    """`nested("a.b", 1)` -> {"a": {"b": 1}}, merged over the good item by `merge`."""
    for part in reversed(path.split(".")):
        value = {part: value}
    return value


def merge(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and value:
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def job(label, field, reason, change=None, drop=()):
    return Case("jobs", label, field, reason, change or {}, drop)


def multi(label, field, reason, **change):
    """A case of the multi-task job: `change` replaces its top-level fields (a None value
    anywhere leaves that key out)."""
    return Case("jobs", label, field, reason, {**copy.deepcopy(GOOD_MULTI_TASK_JOB), **change},
                drop=tuple(GOOD_JOB))


def task(key, **fields):
    """The multi-task job's task `key` with `fields` over it (None leaves one out)."""
    return {**{"ingest": INGEST, "transform": TRANSFORM}[key], **fields}


def condition(**fields):
    """A condition task `check` after `ingest`."""
    return {"task_key": "check", "depends_on": [{"task_key": "ingest"}],
            "condition_task": {"op": "GREATER_THAN", "left": "{{tasks.ingest.values.rows}}",
                               "right": "0", **fields}}


def for_each(**fields):
    """A for-each task `each` after `transform`, running a notebook per country."""
    return {"task_key": "each", "depends_on": [{"task_key": "transform"}],
            "for_each_task": {"inputs": '["NL", "BE"]', "concurrency": 2,
                              "task": {"task_key": "each_country", "job_cluster_key": "etl",
                                       "notebook_task": {
                                           "notebook_path": "/Workspace/Shared/etl/export",
                                           "base_parameters": {"country": "{{input}}"}}},
                              **fields}}


def principal(label, field, reason, change=None, drop=()):
    return Case("servicePrincipals", label, field, reason, change or {}, drop)


def scope(label, field, reason, change=None, drop=()):
    return Case("secretScopes", label, field, reason, change or {}, drop)


def permission(label, field, reason, change=None, drop=()):
    return Case("jobPermissions", label, field, reason, change or {}, drop)


def branch(label, field, reason, change=None, drop=()):
    return Case("repoBranches", label, field, reason, change or {}, drop)


def binding(label, field, reason, change=None, drop=()):
    return Case("catalogBindings", label, field, reason, change or {}, drop)


def group(label, field, reason, change=None, drop=()):
    return Case("groups", label, field, reason, change or {}, drop)


def member(label, field, reason, change=None, drop=()):
    return Case("groupMembers", label, field, reason, change or {}, drop)


def repo(label, field, reason, change=None, drop=()):
    return Case("repos", label, field, reason, change or {}, drop)


def ip_list(label, field, reason, change=None, drop=()):
    return Case("ipAccessLists", label, field, reason, change or {}, drop)


def setting(label, key, reason, value):
    return Case("setting", label, key, reason, value=value)


ITEM_CASES = [
    # jobs in the legacy single-task shape (the public Jobs 2.0 nesting)
    job("autoscale without its upper end", "new_cluster.autoscale.max_workers", "Field required",
        {"new_cluster": {"num_workers": None, "autoscale": {"min_workers": 1}}}),
    job("node type of wrong type", "new_cluster.node_type_id", "valid string",
        nested("new_cluster.node_type_id", 123)),
    job("min above max", "new_cluster.autoscale", "must not exceed max_workers",
        {"new_cluster": {"num_workers": None, "autoscale": {"min_workers": 5,
                                                            "max_workers": 2}}}),
    job("init script with two destinations", "new_cluster.init_scripts[0]",
        "give exactly one init script destination",
        nested("new_cluster.init_scripts", [{"dbfs": {"destination": "dbfs:/init/x.sh"},
                                             "workspace": {"destination": "/Shared/x.sh"}}])),
    job("negative workers", "new_cluster.num_workers", "must be at least 0",
        nested("new_cluster.num_workers", -1)),
    job("workers as words", "new_cluster.num_workers", "valid integer",
        nested("new_cluster.num_workers", "two")),
    job("dbfs init script elsewhere", "new_cluster.init_scripts[0].dbfs.destination",
        "a dbfs destination starts with 'dbfs:/'",
        nested("new_cluster.init_scripts", [{"dbfs": {"destination": "s3://b/x.sh"}}])),
    job("s3 log destination without its scheme", "new_cluster.cluster_log_conf.s3.destination",
        "a s3 destination starts with 's3://' or 's3a://'",
        nested("new_cluster.cluster_log_conf", {"s3": {"destination": "bucket/logs"}})),
    job("unpinned package", "libraries[0].pypi.package", "must pin one exact version",
        {"libraries": [{"pypi": {"package": "requests"}}]}),
    job("range pin", "libraries[0].pypi.package", "must pin one exact version",
        {"libraries": [{"pypi": {"package": "requests>=2.0"}}]}),
    job("wildcard pin", "libraries[0].pypi.package", "must pin one exact version",
        {"libraries": [{"pypi": {"package": "requests==2.*"}}]}),
    job("library of no kind", "libraries[0]", "give one library kind", {"libraries": [{}]}),
    job("relative task file without git", "spark_python_task.python_file",
        "a workspace path is absolute", nested("spark_python_task.python_file", "jobs/main.py")),
    job("parameters not a list", "spark_python_task.parameters", "valid list",
        nested("spark_python_task.parameters", "--date today")),
    job("negative timeout", "timeout_seconds", "must be at least 0", {"timeout_seconds": -5}),
    job("retries below -1", "max_retries", "must be at least -1", {"max_retries": -2}),
    job("concurrency as words", "max_concurrent_runs", "valid integer",
        {"max_concurrent_runs": "many"}),
    job("reserved tag", "tags", "'pulumi-deployment' is reserved",
        {"tags": {"pulumi-deployment": "x"}}),
    job("misspelt key", "schedul", "did you mean 'schedule'", {"schedul": {}}),
    job("two clusters", "new_cluster", "gives 2 computes (existing_cluster_id, new_cluster)",
        {"existing_cluster_id": "0101-120000-etl00001"}),
    job("env var not text", "new_cluster.spark_env_vars.LEVEL", "valid string",
        nested("new_cluster.spark_env_vars", {"LEVEL": 3})),
    # the legacy form's nesting
    job("legacy-form-nested retries below -1", "new_cluster.max_retries", "must be at least -1",
        nested("new_cluster.max_retries", -3)),
    job("legacy-form-nested value given twice", "new_cluster", "both given, with different values",
        {"timeout_seconds": 60, "new_cluster": {"timeout_seconds": 120}}),
    # multi-task jobs: keys and references
    multi("task key twice", "tasks[1].task_key", "task 'ingest' is given twice",
          tasks=[INGEST, task("transform", task_key="ingest", depends_on=None)]),
    multi("task key with a space", "tasks[trans form].task_key", "is not a valid key",
          tasks=[INGEST, task("transform", task_key="trans form")]),
    multi("undefined job cluster", "tasks[ingest].job_cluster_key",
          "no job cluster 'elt' in this job (did you mean 'etl'?)",
          tasks=[task("ingest", job_cluster_key="elt"), TRANSFORM]),
    multi("dependency on a misspelt task", "tasks[transform].depends_on[0].task_key",
          "no task 'ingst' in this job (did you mean 'ingest'?)",
          tasks=[INGEST, task("transform", depends_on=[{"task_key": "ingst"}])]),
    multi("dependency on itself", "tasks[transform].depends_on[0].task_key",
          "a task cannot depend on itself",
          tasks=[INGEST, task("transform", depends_on=[{"task_key": "transform"}])]),
    multi("dependency cycle", "tasks[transform].depends_on[0].task_key",
          "dependency cycle: ingest -> transform -> ingest",
          tasks=[task("ingest", depends_on=[{"task_key": "transform"}]), TRANSFORM]),
    multi("outcome of a task that is no condition", "tasks[transform].depends_on[0].outcome",
          "'ingest' is not one",
          tasks=[INGEST, task("transform", depends_on=[{"task_key": "ingest",
                                                        "outcome": "true"}])]),
    multi("job cluster key twice", "job_clusters[1].job_cluster_key",
          "job cluster 'etl' is given twice", job_clusters=[ETL_CLUSTER, ETL_CLUSTER]),
    multi("job cluster key with a slash", "job_clusters[etl/big].job_cluster_key",
          "is not a valid key",
          job_clusters=[ETL_CLUSTER, {**ETL_CLUSTER, "job_cluster_key": "etl/big"}]),
    multi("undefined environment", "tasks[ingest].environment_key",
          "no environment 'serverless' in this job: define it in environments",
          tasks=[task("ingest", job_cluster_key=None, environment_key="serverless"),
                 TRANSFORM]),
    # task types and compute
    multi("task of no type", "tasks[transform]", "no task type: give one of",
          tasks=[INGEST, task("transform", notebook_task=None)]),
    multi("task of two types", "tasks[transform].sql_task",
          "gives 2 task types (notebook_task, sql_task)",
          tasks=[INGEST, task("transform", sql_task={"query": {"query_id": "q1"},
                                                     "warehouse_id": "w1"})]),
    multi("python task without compute", "tasks[ingest].spark_python_task",
          "spark_python_task needs compute",
          tasks=[task("ingest", job_cluster_key=None), TRANSFORM]),
    multi("task on two computes", "tasks[ingest].job_cluster_key",
          "gives 2 computes (existing_cluster_id, job_cluster_key)",
          tasks=[task("ingest", existing_cluster_id="0101-120000-shared01"), TRANSFORM]),
    multi("spark submit on an existing cluster", "tasks[ingest].spark_submit_task",
          "runs only on a new cluster",
          tasks=[task("ingest", spark_python_task=None, job_cluster_key=None,
                      existing_cluster_id="0101-120000-shared01",
                      spark_submit_task={"parameters": ["--class", "Main"]}), TRANSFORM]),
    # schedules and triggers
    multi("cron of five fields", "schedule.quartz_cron_expression", "has 5 fields",
          schedule={"quartz_cron_expression": "0 2 * * *", "timezone_id": "UTC"}),
    multi("cron hour 25", "schedule.quartz_cron_expression", "hours field '25'",
          schedule={"quartz_cron_expression": "0 0 25 * * ?", "timezone_id": "UTC"}),
    multi("cron without '?'", "schedule.quartz_cron_expression", "give '?' in exactly one",
          schedule={"quartz_cron_expression": "0 0 6 * * MON", "timezone_id": "UTC"}),
    multi("misspelt time zone", "schedule.timezone_id", "did you mean 'Europe/Amsterdam'",
          schedule={"quartz_cron_expression": "0 0 6 * * ?",
                    "timezone_id": "Europe/Amsterdm"}),
    multi("unknown pause status", "schedule.pause_status", "'PAUSED' or 'UNPAUSED'",
          schedule={"quartz_cron_expression": "0 0 6 * * ?", "timezone_id": "UTC",
                    "pause_status": "STOPPED"}),
    multi("schedule and continuous", "continuous", "are given together",
          schedule={"quartz_cron_expression": "0 0 6 * * ?", "timezone_id": "UTC"},
          continuous={"pause_status": "UNPAUSED"}),
    multi("trigger of no kind", "trigger", "give one trigger kind",
          trigger={"pause_status": "PAUSED"}),
    multi("file arrival at a relative place", "trigger.file_arrival.url",
          "give the external location's URL", trigger={"file_arrival": {"url": "landing/"}}),
    multi("periodic trigger every 0 hours", "trigger.periodic.interval", "must be at least 1",
          trigger={"periodic": {"interval": 0, "unit": "HOURS"}}),
    # run_as, parameters, queue, limits
    multi("run_as nobody", "run_as", "give one principal", run_as={}),
    multi("run_as two principals", "run_as", "give exactly one principal",
          run_as={"user_name": "alice@example.com",
                  "service_principal_name": "1251fa57-177d-41f0-84cd-847f7a048462"}),
    multi("parameter name twice", "parameters[1].name", "job parameter 'day' is given twice",
          parameters=[{"name": "day", "default": "today"}, {"name": "day", "default": "x"}]),
    multi("parameter name with a space", "parameters[run day].name", "only letters",
          parameters=[{"name": "run day", "default": "today"}]),
    multi("parameter without default", "parameters[day].default", "Field required",
          parameters=[{"name": "day"}]),
    multi("queue switch as text", "queue.enabled", "valid boolean",
          queue={"enabled": "sometimes"}),
    multi("concurrent runs above the limit", "max_concurrent_runs", "between 0 and 1000",
          max_concurrent_runs=5000),
    multi("too many tags", "tags", "a job takes at most 25",
          tags={f"tag{i}": "x" for i in range(26)}),
    multi("negative task timeout", "tasks[ingest].timeout_seconds", "must be at least 0",
          tasks=[task("ingest", timeout_seconds=-1), TRANSFORM]),
    multi("single-task field beside tasks", "max_retries", "this job has tasks",
          max_retries=3),
    # libraries and paths
    multi("unpinned package of a task", "tasks[ingest].libraries[0].pypi.package",
          "must pin one exact version",
          tasks=[task("ingest", libraries=[{"pypi": {"package": "pandas"}}]), TRANSFORM]),
    multi("relative wheel", "tasks[ingest].libraries[0].whl", "give an absolute",
          tasks=[task("ingest", libraries=[{"whl": "dist/etl.whl"}]), TRANSFORM]),
    multi("maven without a version", "tasks[ingest].libraries[0].maven.coordinates",
          "give group:artifact:version",
          tasks=[task("ingest", libraries=[{"maven": {"coordinates": "org.jsoup:jsoup"}}]),
                 TRANSFORM]),
    multi("library of two kinds", "tasks[ingest].libraries[0]", "give exactly one library kind",
          tasks=[task("ingest", libraries=[{"jar": "/Volumes/main/libs/a.jar",
                                            "whl": "/Volumes/main/libs/a.whl"}]), TRANSFORM]),
    multi("relative notebook without git", "tasks[transform].notebook_task.notebook_path",
          "a workspace path is absolute",
          tasks=[INGEST, task("transform", notebook_task={"notebook_path": "etl/transform"})]),
    multi("git source of a task without one on the job", "tasks[transform].notebook_task.source",
          "source GIT needs git_source on the job",
          tasks=[INGEST, task("transform", notebook_task={"notebook_path": "etl/transform",
                                                          "source": "GIT"})]),
    multi("absolute notebook with git", "tasks[transform].notebook_task.notebook_path",
          "relative to the repository root", git_source=GIT_SOURCE),
    # condition and for-each tasks
    multi("unknown condition op", "tasks[check].condition_task.op", "Input should be",
          tasks=[INGEST, TRANSFORM, condition(op="BIGGER")]),
    multi("numeric condition on words", "tasks[check].condition_task.left", "compares numbers",
          tasks=[INGEST, TRANSFORM, condition(left="many")]),
    multi("outcome neither true nor false", "tasks[transform].depends_on[0].outcome",
          "must be 'true' or 'false'",
          tasks=[INGEST, condition(), task("transform", depends_on=[{"task_key": "check",
                                                                      "outcome": "yes"}])]),
    multi("for-each without inputs", "tasks[each].for_each_task.inputs", "Field required",
          tasks=[INGEST, TRANSFORM, for_each(inputs=None)]),
    multi("for-each inputs not an array", "tasks[each].for_each_task.inputs",
          "must be a JSON array", tasks=[INGEST, TRANSFORM, for_each(inputs="NL,BE")]),
    multi("for-each of no concurrency", "tasks[each].for_each_task.concurrency",
          "must be at least 1", tasks=[INGEST, TRANSFORM, for_each(concurrency=0)]),
    multi("for-each in a for-each", "tasks[each].for_each_task.task.for_each_task",
          "cannot run another for-each task",
          tasks=[INGEST, TRANSFORM, for_each(task={"task_key": "inner",
                                                   "for_each_task": for_each()["for_each_task"]})]),
    multi("dbt command that is not dbt", "tasks[ingest].dbt_task.commands[0]",
          "starts with 'dbt'",
          tasks=[task("ingest", spark_python_task=None, dbt_task={"commands": ["run"]}),
                 TRANSFORM]),
    multi("run of job 0", "tasks[ingest].run_job_task.job_id", "must be the id of a job",
          tasks=[task("ingest", spark_python_task=None, job_cluster_key=None,
                      run_job_task={"job_id": 0}), TRANSFORM]),
    # health, git source, notifications
    multi("unknown health metric", "health.rules[0].metric", "Input should be",
          health={"rules": [{"metric": "RUN_TIME", "op": "GREATER_THAN", "value": 60}]}),
    multi("negative health threshold", "health.rules[0].value", "must be at least 0",
          health={"rules": [{"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN",
                             "value": -1}]}),
    multi("git source without a reference", "git_source", "give one git reference",
          git_source={**GIT_SOURCE, "git_branch": None}, tasks=GIT_TASKS),
    multi("git source with two references", "git_source", "give exactly one git reference",
          git_source={**GIT_SOURCE, "git_tag": "v1.0.0"}, tasks=GIT_TASKS),
    multi("git source over ssh", "git_source.git_url", "https:// URL",
          git_source={**GIT_SOURCE, "git_url": "git@github.com:example-org/etl.git"},
          tasks=GIT_TASKS),
    multi("webhook without its id", "webhook_notifications.on_failure[0].id", "Field required",
          webhook_notifications={"on_failure": [{}]}),
    multi("recipients not a list", "email_notifications.on_failure", "valid list",
          email_notifications={"on_failure": "oncall@example.com"}),
    # unknown keys deep inside
    multi("misspelt task field", "tasks[ingest].max_retry", "did you mean 'max_retries'",
          tasks=[task("ingest", max_retry=3), TRANSFORM]),
    multi("misspelt notebook field", "tasks[transform].notebook_task.base_parameter",
          "did you mean 'base_parameters'",
          tasks=[INGEST, task("transform", notebook_task={**TRANSFORM["notebook_task"],
                                                          "base_parameter": {"a": "b"}})]),
    multi("misspelt job cluster field", "job_clusters[etl].new_cluster.spark_verison",
          "did you mean 'spark_version'",
          job_clusters=[{"job_cluster_key": "etl", "new_cluster": {
              **ETL_CLUSTER["new_cluster"], "spark_verison": "15.4.x-scala2.12"}}]),
    multi("misspelt notification field", "email_notifications.on_failures",
          "did you mean 'on_failure'", email_notifications={"on_failures": ["a@example.com"]}),
    multi("misspelt for-each field", "tasks[each].for_each_task.concurency",
          "did you mean 'concurrency'", tasks=[INGEST, TRANSFORM, for_each(concurency=2)]),
    # service principals
    principal("application id not a GUID", "application_id", "a GUID",
              {"application_id": "not-a-guid"}),
    principal("neither application id nor display name", "application_id",
              "give application_id (the identity provider's application id), display_name",
              drop=("application_id", "display_name")),
    principal("active as text", "active", "valid boolean", {"active": "yes"}),
    principal("unknown entitlement", "entitlements[0]", "Input should be",
              {"entitlements": ["fly"]}),
    principal("entitlement twice", "entitlements", "more than once",
              {"entitlements": ["workspace-access", "workspace-access"]}),
    principal("blank group", "groups[0]", "must not be empty", {"groups": [" "]}),
    principal("group twice", "groups", "more than once", {"groups": ["1001", "1001"]}),
    principal("blank display name", "display_name", "must not be empty",
              {"display_name": "  "}),
    principal("foreign schema", "schemas", "or left out", {"schemas": ["urn:x"]}),
    principal("misspelt key", "displayname", "did you mean 'display_name'",
              {"displayname": "x"}),
    # secret scopes
    scope("space in name", "name", "1 to 128 characters", {"name": "a b"}),
    scope("name too long", "name", "1 to 128 characters", {"name": "s" * 129}),
    scope("unknown manager", "initial_manage_principal", "'users'",
          {"initial_manage_principal": "admins"}),
    scope("vault id malformed", "keyvault.resource_id", "key vault resource id",
          {"keyvault": {**VAULT, "resource_id": "/subscriptions/x"}}),
    scope("vault over http", "keyvault.dns_name", "vault.azure.net",
          {"keyvault": {**VAULT, "dns_name": "http://dp-kv.vault.azure.net/"}}),
    scope("vault without address", "keyvault.dns_name", "Field required",
          {"keyvault": {"resource_id": VAULT["resource_id"]}}),
    scope("misspelt key", "keyvalt", "unknown key", {"keyvalt": VAULT}),
    # job permissions
    permission("unknown level", "access_controls[0].permission_level", "must be one of",
               {"access_controls": [{"group_name": "analysts", "permission_level": "CAN_FLY"}]}),
    permission("owner declared", "access_controls[0].permission_level", "IS_OWNER cannot",
               {"access_controls": [{"group_name": "analysts", "permission_level": "IS_OWNER"}]}),
    permission("two principals in one entry", "access_controls[0]", "give exactly one of",
               {"access_controls": [{"group_name": "analysts", "user_name": "a@example.com",
                                     "permission_level": "CAN_VIEW"}]}),
    permission("no principal", "access_controls[0]", "give exactly one of",
               {"access_controls": [{"permission_level": "CAN_VIEW"}]}),
    permission("empty list", "access_controls", "at least 1 item", {"access_controls": []}),
    permission("principal twice", "access_controls", "give each principal once",
               {"access_controls": GOOD_ACL + [{"group_name": "analysts",
                                                "permission_level": "CAN_MANAGE_RUN"}]}),
    permission("job id as words", "job_id", "must be a positive integer or a string of digits",
               {"job_id": "abc"}),
    permission("job id zero", "job_id", "must be a positive 64-bit integer", {"job_id": 0}),
    permission("blank group", "access_controls[0]", "group_name must not be empty",
               {"access_controls": [{"group_name": " ", "permission_level": "CAN_VIEW"}]}),
    permission("unknown job", "job", "no job named", {"job": "no-such-job"},
               drop=("job_id",)),
    # repo branches
    branch("path outside repos", "repo_path", "starting /Repos/ or /Workspace/",
           {"repo_path": "/Users/x/repo"}),
    branch("double dot", "branch", "must be a git branch name", {"branch": "a..b"}),
    branch("space in branch", "branch", "must be a git branch name", {"branch": "my branch"}),
    branch("id and path", "repo_id", "exactly one of repo_id or repo_path",
           {"repo_id": "123"}),
    branch("neither id nor path", "repo_id", "exactly one of repo_id or repo_path",
           drop=("repo_path",)),
    branch("id not a number", "repo_id", "must be a positive integer or a string of digits",
           {"repo_id": "abc"}, drop=("repo_path",)),
    branch("unknown delete mode", "on_delete", "'restore' or 'leave'", {"on_delete": "keep"}),
    branch("branch missing", "branch", "Field required", drop=("branch",)),
    # catalog bindings
    binding("bad catalog name", "catalog_name", "letters, digits", {"catalog_name": "fin ance!"}),
    binding("unknown isolation", "isolation_mode", "'ISOLATED' or 'OPEN'",
            {"isolation_mode": "CLOSED"}),
    binding("workspace id not a number", "bindings[0].workspace_id",
            "must be a positive integer or a string of digits",
            {"bindings": [{"workspace_id": "abc"}]}),
    binding("unknown binding type", "bindings[0].binding_type", "BINDING_TYPE_READ_WRITE",
            {"bindings": [{"workspace_id": "1", "binding_type": "RW"}]}),
    binding("workspace twice", "bindings", "more than once",
            {"bindings": [{"workspace_id": "1"}, {"workspace_id": "1"}]}),
    binding("catalog missing", "catalog_name", "catalog_name or securable_name",
            drop=("catalog_name",)),
    binding("bindings as text", "bindings", "valid list", {"bindings": "all"}),
    group("blank name", "display_name", "must not be empty", {"display_name": " "}),
    group("the workspace's own group", "display_name", "workspace itself",
          {"display_name": "admins"}),
    group("unknown entitlement", "entitlements[0]", "allow-cluster-create",
          {"entitlements": ["be-root"]}),
    group("entitlement twice", "entitlements", "more than once",
          {"entitlements": ["workspace-access", "workspace-access"]}),
    group("members on the group", "members", "unknown key", {"members": ["1"]}),
    member("group by name", "group_id", "SCIM id", {"group_id": "analysts"}),
    member("member by e-mail", "member_id", "get_user", {"member_id": "bob@example.com"}),
    member("group in itself", "member_id", "member of itself", {"member_id": "100"}),
    member("member as a number", "member_id", "valid string", {"member_id": 7}),
    member("unknown key", "role", "unknown key", {"role": "owner"}),
    repo("ssh remote", "url", "HTTPS URL", {"url": "git@github.com:org/x.git"}),
    repo("unknown provider", "provider", "gitHub", {"provider": "svn"}),
    repo("path too deep", "path", "/Repos/<folder>/<name>", {"path": "/Repos/a/b/c"}),
    repo("bad branch", "branch", "git branch name", {"branch": "a..b"}),
    repo("branch and tag", "tag", "branch or tag", {"tag": "v1"}),
    repo("no sparse patterns", "sparse_checkout.patterns", "at least 1",
         {"sparse_checkout": {"patterns": []}}),
    ip_list("bad address", "ip_addresses", "[1] '10.0.0.300'",
            {"ip_addresses": ["10.0.0.1", "10.0.0.300"]}),
    ip_list("IPv6", "ip_addresses", "IPv4 only", {"ip_addresses": ["2001:db8::/32"]}),
    ip_list("host bits", "ip_addresses", "10.0.0.0/24", {"ip_addresses": ["10.0.0.1/24"]}),
    ip_list("unknown type", "list_type", "'ALLOW' or 'BLOCK'", {"list_type": "DENY"}),
    ip_list("blank label", "label", "must not be empty", {"label": ""}),
    ip_list("enabled as text", "enabled", "valid boolean", {"enabled": "sometimes"}),
]

SETTING_CASES = [
    setting("misspelt list", "jbos", "did you mean 'jobs'", []),
    setting("secret in plain text", "clientSecret", "stored in plain text", "hunter2"),
    setting("unknown wire form", "wireForm", "'legacy' or 'public'", "xml"),
    setting("negative timeout", "timeoutSeconds", "greater than 0", "-1"),
    setting("no attempts", "maxAttempts", "greater than or equal to 1", "0"),
    setting("negative rate limit", "rateLimitPerSecond", "greater than or equal to 0", "-3"),
    setting("plain http to a remote host", "baseUrl", "non-loopback host",
            "http://workspace.example.com"),
    setting("query string in address", "authUrl", "query string", "http://127.0.0.1:1/?x=1"),
    setting("a switch to skip TLS verification", "skipTlsVerify", "unknown key", "true"),
    setting("list that is not a list", "repoBranches", "must be a list of objects",
            {"name": "x"}),
]


def good_item(kind: str, index: int) -> dict[str, Any]:
    """A valid item of `kind`, distinct from every other (names and identities)."""
    name = f"{kind.lower()}-{index}"
    if kind == "jobs":
        return {"name": name, **copy.deepcopy(GOOD_JOB)}
    if kind == "servicePrincipals":
        return {"name": name, "application_id": f"00000000-0000-0000-0000-{index:012d}"}
    if kind == "secretScopes":
        return {"name": name}
    if kind == "jobPermissions":
        return {"name": name, "job_id": 1000 + index, "access_controls": GOOD_ACL}
    if kind == "repoBranches":
        return {"name": name, "repo_path": f"/Repos/drill/repo-{index}", "branch": "main"}
    if kind == "catalogBindings":
        return {"name": name, "catalog_name": f"catalog_{index}",
                "bindings": [{"workspace_id": "1234567890123456"}]}
    if kind == "groups":
        return {"name": name, "display_name": f"drill-group-{index}"}
    if kind == "groupMembers":
        return {"name": name, "group_id": "100", "member_id": str(200 + index)}
    if kind == "repos":
        return {"name": name, "url": "https://github.com/example-org/etl.git",
                "provider": "gitHub", "path": f"/Repos/drill/made-{index}", "branch": "main"}
    if kind == "ipAccessLists":
        return {"name": name, "label": f"drill-{index}", "list_type": "ALLOW",
                "ip_addresses": ["10.0.0.0/8"]}
    raise ValueError(kind)


def without(item: dict[str, Any], dotted: str) -> dict[str, Any]:
    parts = dotted.split(".")
    target = item
    for part in parts[:-1]:
        target = target[part]
    target.pop(parts[-1], None)
    return item


def bad_item(case: Case, index: int) -> dict[str, Any]:
    item = good_item(case.kind, index)
    for dotted in case.drop:
        without(item, dotted)
    changed = merge(item, case.change)
    # `None` in a change means "leave this key out" (e.g. num_workers when autoscale is set).
    def prune(value):
        if isinstance(value, dict):
            return {k: prune(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [prune(v) for v in value]
        return value
    return prune(changed)


@dataclass
class Batch:
    config: dict[str, Any]                              # workspace:<key> -> value
    expected: list[tuple[Case, str]]                    # (case, the key path it must name)


def item_batch() -> Batch:
    """Every item case in one config: the stack judges the whole config at once."""
    lists: dict[str, list[dict[str, Any]]] = {}
    expected = []
    for case in ITEM_CASES:
        items = lists.setdefault(case.kind, [])
        items.append(bad_item(case, len(items)))
        expected.append((case, f"workspace:{case.kind}[{len(items) - 1}].{case.field}"))
    # one extra item per defect that only shows between items
    duplicate = good_item("secretScopes", 900)
    lists["secretScopes"] += [duplicate, dict(duplicate)]
    expected.append((scope("name declared twice", "name", "declared twice"),
                     f"workspace:secretScopes[{len(lists['secretScopes']) - 1}].name"))
    # A scope's name is also its identity (the object it stands for): said a second time.
    expected.append((scope("scope declared twice", "name", "also declared by"),
                     f"workspace:secretScopes[{len(lists['secretScopes']) - 1}].name"))
    twin = good_item("servicePrincipals", 901)
    lists["servicePrincipals"] += [twin, {**twin, "name": "twin"}]
    expected.append((principal("application id declared twice", "application_id",
                               "also declared by"),
                     f"workspace:servicePrincipals[{len(lists['servicePrincipals']) - 1}]"
                     ".application_id"))
    lists["repoBranches"].append({"repo_path": "/Repos/drill/nameless", "branch": "main"})
    expected.append((branch("item without a name", "name", "required"),
                     f"workspace:repoBranches[{len(lists['repoBranches']) - 1}].name"))
    return Batch({f"workspace:{k}": v for k, v in lists.items()}, expected)


def setting_batch() -> Batch:
    config = {f"workspace:{c.field}": c.value for c in SETTING_CASES}
    return Batch(config, [(c, f"workspace:{c.field}") for c in SETTING_CASES])
