"""Two workspace connections in one program, a secret scope through each, and a team's own
dynamic resource (on the default provider) that records both scopes' names."""

import json
from pathlib import Path

import pulumi
from pulumi.dynamic import CreateResult, ResourceProvider

from providers import SecretScope, SecretScopeArgs, WorkspaceAuth, WorkspaceAuthArgs


class RecordProvider(ResourceProvider):
    def create(self, props):
        Path(props["path"]).parent.mkdir(parents=True, exist_ok=True)
        Path(props["path"]).write_text(json.dumps(props["names"]))
        return CreateResult(props["path"], props)

    def delete(self, _id, props):
        Path(props["path"]).unlink(missing_ok=True)


class Record(pulumi.dynamic.Resource):
    def __init__(self, name, props):
        super().__init__(RecordProvider(), name, props)


config = pulumi.Config("workspace")
scopes = []
for name in ("first", "second"):
    auth = WorkspaceAuth(
        name,
        WorkspaceAuthArgs(
            base_url=config.require("baseUrl"),
            auth_url=config.require("authUrl"),
            tenant_id=config.require("tenantId"),
            client_id=config.require("clientId"),
            client_secret=config.require_secret("clientSecret"),
            resource=config.require("resource"),
            allow_insecure_http=True,
        ),
    )
    scopes.append(
        SecretScope(f"{name}-scope", SecretScopeArgs(name=f"{name}-scope"),
                    connection=auth.connection)
    )

directory = Path(pulumi.Config().require("announcementsDir"))
Record("both", {"path": str(directory / "both.txt"), "names": [scope.name for scope in scopes]})
