"""The alerts area of the SQL API (/api/2.0/sql/alerts): create, get, list, update by mask,
delete (to the trash)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.sql.queries_api import Fields, Objects, every_page

ALERTS_PATH = "/api/2.0/sql/alerts"


class AlertsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"AlertsApi({self.client!r})"

    def list(self) -> Objects:
        """Every alert not in the trash, all pages."""
        return every_page(self.client, ALERTS_PATH)

    def get(self, alert_id: str) -> dict[str, Any]:
        return self.client.get(_path(alert_id))

    def create(self, alert: dict[str, Any]) -> dict[str, Any]:
        """The alert made from a create body's `alert`. Not repeated after a lost answer
        (create_or_adopt)."""
        return self.client.post(ALERTS_PATH, {"alert": alert})

    def update(self, alert_id: str, fields: Fields, alert: dict[str, Any]) -> dict[str, Any]:
        """Change the `fields` named (the update mask), each to its value in `alert` or
        cleared where `alert` leaves it out."""
        return self.client.patch(_path(alert_id),
                                 {"update_mask": ",".join(fields), "alert": alert})

    def delete(self, alert_id: str) -> None:
        """Moves the alert to the trash."""
        self.client.delete(_path(alert_id))


def _path(alert_id: str) -> str:
    return f"{ALERTS_PATH}/{quote(str(alert_id), safe='')}"
