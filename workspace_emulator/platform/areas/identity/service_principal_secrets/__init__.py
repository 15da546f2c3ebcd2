"""OAuth secrets of the workspace's service principals, through the workspace's proxy of
the account API (routes.py). No state of its own: the secrets are the identity provider's
(identity/oauth_secrets.py), the principals the directory's."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.identity.service_principal_secrets import routes
from workspace_emulator.platform.fidelity import stateful

SECRETS_PATH = "/accounts/servicePrincipals/{service_principal_id}/credentials/secrets"

AREA: Area[None] = Area(
    name="service_principal_secrets",
    routers=(Mount(routes.router),),
    route_priority=110,
    support={
        f"POST {SECRETS_PATH}": stateful(
            "admins; the principal's workspace id; lifetime \"<n>s\" up to 730 days; the "
            "value shown once, stored hashed"),
        f"GET {SECRETS_PATH}": stateful("admins; ACTIVE or EXPIRED, no values; one page"),
        f"DELETE {SECRETS_PATH}/{{secret_id}}": stateful("the secret stops signing in"),
    },
)
