"""A program declaring one object per kind given, each imported when it has an id.

Config `workspace:objects` maps a kind to `{"args": {<the kind's args>}, "id": <import id>}`
("id" optional); the connection settings are the stack program's (stacks/config.py).
`workspace:withoutAuth: true` declares them as a stack did before WorkspaceAuth had its
provider: a plain connection, served by the default provider. `workspace:takeOver: true`
has the WorkspaceAuth take those over.
"""

from dataclasses import fields

import pulumi

from providers import WorkspaceAuth
from providers.client import Connection
from providers.core.registry import kind_named
from stacks.config import auth_args
from stacks.errors import NAMESPACE

config = pulumi.Config(NAMESPACE)
settings = auth_args()
if config.get_bool("withoutAuth"):
    values = {f.name: getattr(settings, f.name) for f in fields(settings)}
    connection = pulumi.Output.all(**values).apply(
        lambda v: Connection.model_validate(v).to_props()
    )
else:
    connection = WorkspaceAuth(
        "workspace", settings, take_over_default_provider=bool(config.get_bool("takeOver"))
    ).connection

made: dict[str, pulumi.Resource] = {}
for kind, item in (config.get_object("objects") or {}).items():
    declared = kind_named(kind)
    # As when a stack refers to its job: the permissions go before the job on destroy.
    job = [made["Job"]] if kind == "JobPermissions" and "Job" in made else []
    made[kind] = declared.resource(
        kind.lower(),
        declared.args(**item["args"]),
        connection=connection,
        opts=pulumi.ResourceOptions(import_=item.get("id"), depends_on=job),
    )
