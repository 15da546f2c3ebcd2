"""A program of your own: one workspace connection, a secret scope, a multi-task job, and
a dynamic provider of the team's own beside them.

Config (namespace `workspace`, as in the repository's stack config):
  baseUrl, authUrl, tenantId, clientId, resource   the workspace and its service principal
  clientSecret                                     set with `pulumi config set --secret`
  clusterId                                        the cluster the job runs on
  wireForm (default public), allowInsecureHttp (default false)
Config of the project's own namespace (`my-workspace`):
  announcements    a list of {name, channel, message}: the team's own resources (below)
  announcementsDir where they are kept (default ./announcements)
  signature        signs them, where the Pulumi SDK configures dynamic providers
"""

from pathlib import Path

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, ResourceProvider, UpdateResult

from providers import Job, JobArgs, SecretScope, SecretScopeArgs, WorkspaceAuth, WorkspaceAuthArgs


class AnnouncementProvider(ResourceProvider):
    """The team's own dynamic provider: a message per channel, kept as a file. It is served
    by Pulumi's dynamic-provider plugin exactly as it would be without this package."""

    signature = ""

    def configure(self, req):  # newer Pulumi SDKs call this with the stack's config
        self.signature = req.config.get("signature") or ""

    def create(self, props):
        return CreateResult(props["channel"], self._write(props))

    def diff(self, _id, olds, news):
        changed = [key for key in ("channel", "message") if olds.get(key) != news.get(key)]
        return DiffResult(changes=bool(changed), replaces=[k for k in changed if k == "channel"])

    def update(self, _id, _olds, news):
        return UpdateResult(self._write(news))

    def delete(self, _id, props):
        Path(props["directory"], f"{props['channel']}.txt").unlink(missing_ok=True)

    def read(self, id_, props):
        path = Path(props["directory"], f"{id_}.txt")
        return ReadResult(id_ if path.exists() else None, props)

    def _write(self, props):
        path = Path(props["directory"], f"{props['channel']}.txt")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(props["message"] + (f"\n-- {self.signature}" if self.signature else ""))
        return {**props, "signed_by": self.signature}


class Announcement(pulumi.dynamic.Resource):
    signed_by: pulumi.Output[str]

    def __init__(self, name, channel, message, directory, opts=None):
        props = {"channel": channel, "message": message, "directory": directory,
                 "signed_by": None}
        super().__init__(AnnouncementProvider(), name, props, opts)


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

cluster_id = config.require("clusterId")
report = Job(
    "daily-report",
    JobArgs(
        name="daily-report",
        tags={"team": "analytics"},
        timeout_seconds=1800,
        tasks=[
            {
                "task_key": "report",
                "existing_cluster_id": cluster_id,
                "notebook_task": {"notebook_path": "/Workspace/reports/daily"},
                "max_retries": 1,
            },
            {
                "task_key": "publish",
                "depends_on": [{"task_key": "report"}],
                "existing_cluster_id": cluster_id,
                "notebook_task": {"notebook_path": "/Workspace/reports/publish"},
            },
        ],
        schedule={"quartz_cron_expression": "0 0 7 * * ?", "timezone_id": "UTC"},
    ),
    connection=auth.connection,
)

team = pulumi.Config()
announcements = team.get_object("announcements") or [
    {"name": "report-time", "channel": "analytics", "message": "The report runs at 07:00 UTC."}
]
directory = str(Path(team.get("announcementsDir") or "announcements").resolve())
for item in announcements:
    Announcement(item["name"], item["channel"], item["message"], directory)

pulumi.export("secret_scope", scope.name)
pulumi.export("job_id", report.job_id)
pulumi.export("job_url", report.url)
