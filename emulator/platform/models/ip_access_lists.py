"""IP access lists (from the initial data; read through the API)."""

from __future__ import annotations

from typing import Any

from emulator import clock
from emulator.errors import NotFound
from emulator.storage import Database, from_json, to_json


class IpAccessLists:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add_initial(self, conn, spec: dict[str, Any]) -> None:
        now = clock.now_ms()
        addresses = list(spec.get("ip_addresses", []))
        doc = {
            "list_id": spec["list_id"],
            "label": spec.get("label", spec["list_id"]),
            "list_type": spec.get("list_type", "ALLOW"),
            "ip_addresses": addresses,
            "address_count": len(addresses),
            "enabled": spec.get("enabled", True),
            "created_at": spec.get("created_at", now),
            "created_by": spec.get("created_by", 0),
            "updated_at": spec.get("updated_at", now),
            "updated_by": spec.get("updated_by", 0),
        }
        conn.execute("INSERT INTO ip_access_lists (list_id, doc) VALUES (?, ?)",
                     (doc["list_id"], to_json(doc)))

    def all(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM ip_access_lists ORDER BY rowid").fetchall()
        return [from_json(row["doc"]) for row in rows]

    def get(self, list_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM ip_access_lists WHERE list_id = ?",
                               (list_id,)).fetchone()
        if row is None:
            raise NotFound(f"IP access list {list_id} does not exist.")
        return from_json(row["doc"])
