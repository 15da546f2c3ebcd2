"""The Git credentials area of the REST API: the calling principal's credentials, one per
Git provider. The token is sent, never answered."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls

GIT_CREDENTIALS_PATH = "/api/2.0/git-credentials"


class GitCredentialsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"GitCredentialsApi({self.client!r})"

    def list(self) -> list[dict[str, Any]]:
        return self.client.get(GIT_CREDENTIALS_PATH).get("credentials") or []

    def get(self, credential_id: str) -> dict[str, Any]:
        return self.client.get(_path(credential_id))

    def create(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The credential made (`git_provider` and the other fields of the create body).
        Not repeated after a lost answer: the kind looks for what it made first."""
        return self.client.post(GIT_CREDENTIALS_PATH, fields)

    def update(self, credential_id: str, fields: dict[str, Any]) -> None:
        """Change the fields given (`git_provider` is required); a token given replaces the
        stored one."""
        self.client.patch(_path(credential_id), fields)

    def delete(self, credential_id: str) -> None:
        self.client.delete(_path(credential_id))


def _path(credential_id: str) -> str:
    if not str(credential_id).isdigit():
        raise ValueError(f"a Git credential id is a number, got {credential_id!r}")
    return f"{GIT_CREDENTIALS_PATH}/{credential_id}"
