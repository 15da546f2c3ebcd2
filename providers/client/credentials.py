"""Unity Catalog credentials of either purpose (`/credentials`): storage credentials and
service credentials, one namespace. Read only here: the listing the audit and adopt walk
for the grants of service credentials. The same in both wire forms."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls
from providers.client.storage_credentials import Objects

CREDENTIALS_PATH = "/api/2.1/unity-catalog/credentials"
PURPOSES = ("SERVICE", "STORAGE")


class CredentialsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"CredentialsApi({self.client!r})"

    def list(self, purpose: str) -> Objects:
        """Every credential of that purpose, every page."""
        if purpose not in PURPOSES:
            raise ValueError(f"purpose must be one of {', '.join(PURPOSES)}; got {purpose!r}")
        found: Objects = []
        params: dict[str, Any] = {"purpose": purpose}
        while True:
            page = self.client.get(CREDENTIALS_PATH, params)
            found += page.get("credentials") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {**params, "page_token": token}


# `client.credentials` (WorkspaceClient finds an area by its module's name).
AREA = CredentialsApi
