"""The notification destinations area of the REST API: where jobs and other features send
notifications (e-mail, Slack, webhooks, PagerDuty, Microsoft Teams). Of every type but
e-mail the service never answers the fields: it shows `<field>_set` instead."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

DESTINATIONS_PATH = "/api/2.0/notification-destinations"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]


class NotificationDestinationsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"NotificationDestinationsApi({self.client!r})"

    def create(self, display_name: str, config: dict[str, Any]) -> dict[str, Any]:
        """The destination made. Not repeated after a lost answer: the kind looks for what
        it made (create_or_adopt)."""
        return self.client.post(DESTINATIONS_PATH,
                                {"display_name": display_name, "config": config})

    def get(self, destination_id: str) -> dict[str, Any]:
        return self.client.get(_path(destination_id))

    def list(self) -> Objects:
        """Every destination (`id`, `display_name`, `destination_type`), all pages."""
        found: Objects = []
        params: dict[str, Any] = {}
        while True:
            page = self.client.get(DESTINATIONS_PATH, params or None)
            found += page.get("results") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_token": token}

    def update(self, destination_id: str, display_name: str,
               config: dict[str, Any]) -> dict[str, Any]:
        return self.client.patch(_path(destination_id),
                                 {"display_name": display_name, "config": config})

    def delete(self, destination_id: str) -> None:
        self.client.delete(_path(destination_id))


def _path(destination_id: str) -> str:
    return f"{DESTINATIONS_PATH}/{quote(destination_id, safe='')}"
