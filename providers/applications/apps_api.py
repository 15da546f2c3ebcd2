"""The apps area of the REST API: an app addressed by its name; its compute started and
stopped, its code deployed from a workspace folder."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

APPS_PATH = "/api/2.0/apps"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]


class AppsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"AppsApi({self.client!r})"

    def list(self) -> Objects:
        found: Objects = []
        params: dict[str, Any] = {}
        while True:
            page = self.client.get(APPS_PATH, params or None)
            found += page.get("apps") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_token": token}

    def get(self, name: str) -> dict[str, Any]:
        return self.client.get(_path(name))

    def create(self, app: dict[str, Any], *, no_compute: bool = False) -> dict[str, Any]:
        """The app as made (its compute starting, unless `no_compute`). Not repeated after a
        lost answer: callers look for the app by its name, which is unique."""
        path = f"{APPS_PATH}?no_compute=true" if no_compute else APPS_PATH
        return self.client.post(path, app)

    def update(self, name: str, app: dict[str, Any]) -> dict[str, Any]:
        """Replace the settings given (description, resources, compute size, scopes)."""
        return self.client.patch(_path(name), app)

    def start(self, name: str) -> None:
        self.client.post(f"{_path(name)}/start", {}, idempotent=True)

    def stop(self, name: str) -> None:
        self.client.post(f"{_path(name)}/stop", {}, idempotent=True)

    def deploy(self, name: str, source_code_path: str) -> dict[str, Any]:
        """A deployment of the folder's code (IN_PROGRESS); the app's compute must be
        active."""
        return self.client.post(f"{_path(name)}/deployments",
                                {"source_code_path": source_code_path, "mode": "SNAPSHOT"})

    def deployment(self, name: str, deployment_id: str) -> dict[str, Any]:
        return self.client.get(f"{_path(name)}/deployments/{quote(deployment_id, safe='')}")

    def delete(self, name: str) -> None:
        self.client.delete(_path(name))


def _path(name: str) -> str:
    return f"{APPS_PATH}/{quote(name, safe='')}"
