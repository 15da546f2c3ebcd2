"""A program of your own: one workspace connection, a secret scope and a job.

Config (namespace `workspace`, as in the repository's stack config):
  baseUrl, authUrl, tenantId, clientId, resource   the workspace and its service principal
  clientSecret                                     set with `pulumi config set --secret`
  clusterId                                        the cluster the job runs on
  wireForm (default public), allowInsecureHttp (default false)
"""

import pulumi

from providers import Job, JobArgs, SecretScope, SecretScopeArgs, WorkspaceAuth, WorkspaceAuthArgs

config = pulumi.Config("workspace")

auth = WorkspaceAuth(
    "workspace",
    WorkspaceAuthArgs(
        base_url=config.require("baseUrl"),
        auth_url=config.require("authUrl"),
        tenant_id=config.require("tenantId"),
        client_id=config.require("clientId"),
        client_secret=config.require_secret("clientSecret"),
        resource=config.require("resource"),
        wire_form=config.get("wireForm") or "public",
        allow_insecure_http=config.get_bool("allowInsecureHttp") or False,
    ),
)

scope = SecretScope(
    "team-secrets",
    SecretScopeArgs(name="team-secrets"),
    connection=auth.connection,
)

report = Job(
    "daily-report",
    JobArgs(
        name="daily-report",
        tags={"team": "analytics"},
        timeout_seconds=1800,
        tasks=[
            {
                "task_key": "report",
                "existing_cluster_id": config.require("clusterId"),
                "notebook_task": {"notebook_path": "/Workspace/reports/daily"},
                "max_retries": 1,
            }
        ],
        schedule={"quartz_cron_expression": "0 0 7 * * ?", "timezone_id": "UTC"},
    ),
    connection=auth.connection,
)

pulumi.export("secret_scope", scope.name)
pulumi.export("job_id", report.job_id)
pulumi.export("job_url", report.url)
