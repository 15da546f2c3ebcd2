"""The queries area of the SQL API (/api/2.0/sql/queries): create, get, list, update by
mask, delete (to the trash)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

QUERIES_PATH = "/api/2.0/sql/queries"
# Module-level: inside the classes `list` names a method.
Objects = list[dict[str, Any]]
Fields = list[str]


def every_page(client: Calls, path: str) -> Objects:
    """Every object of a SQL API listing (`results`, `next_page_token`), all pages."""
    found: Objects = []
    params: dict[str, Any] = {"page_size": 100}
    while True:
        page = client.get(path, params)
        found += page.get("results") or []
        token = page.get("next_page_token")
        if not token:
            return found
        params = {"page_size": 100, "page_token": token}


class QueriesApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"QueriesApi({self.client!r})"

    def list(self) -> Objects:
        """Every query not in the trash, all pages."""
        return every_page(self.client, QUERIES_PATH)

    def get(self, query_id: str) -> dict[str, Any]:
        return self.client.get(_path(query_id))

    def create(self, query: dict[str, Any]) -> dict[str, Any]:
        """The query made from a create body's `query` (display_name, query_text, ...). Not
        repeated after a lost answer (create_or_adopt)."""
        return self.client.post(QUERIES_PATH, {"query": query})

    def update(self, query_id: str, fields: Fields, query: dict[str, Any]) -> dict[str, Any]:
        """Change the `fields` named (the update mask): each to its value in `query`, or
        cleared where `query` leaves it out."""
        return self.client.patch(_path(query_id),
                                 {"update_mask": ",".join(fields), "query": query})

    def delete(self, query_id: str) -> None:
        """Moves the query to the trash."""
        self.client.delete(_path(query_id))


def _path(query_id: str) -> str:
    return f"{QUERIES_PATH}/{quote(str(query_id), safe='')}"
