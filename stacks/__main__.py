"""The workspace stack: a WorkspaceAuth component and the objects the config declares."""

import pulumi

from providers.auth import WorkspaceAuth
from providers.secret_scope import KeyVaultArgs, SecretScope, SecretScopeArgs
from stacks.config import NAMESPACE, auth_args, object_list

config = pulumi.Config(NAMESPACE)
auth = WorkspaceAuth("workspace", auth_args(config))

scopes = {}
for item in object_list(config, "secretScopes"):
    vault = item.get("keyvault")
    scopes[item["name"]] = SecretScope(
        item["name"],
        SecretScopeArgs(
            name=item.get("scope", item["name"]),
            keyvault=KeyVaultArgs(**vault) if vault else None,
            initial_manage_principal=item.get("initialManagePrincipal"),
        ),
        connection=auth.connection,
    )

pulumi.export("workspace_url", config.require("baseUrl"))
pulumi.export("secret_scopes", sorted(scopes))
