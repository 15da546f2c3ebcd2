"""The managed identities of the emulated Azure subscription: applications without a secret
whose tokens their host hands out (managed_identity.py serves those endpoints)."""

from __future__ import annotations

from workspace_emulator.storage import Database


class ManagedIdentities:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, client_id: str, system_assigned: bool) -> None:
        with self._db.write() as conn:
            conn.execute("INSERT INTO managed_identities (client_id, system_assigned)"
                         " VALUES (?, ?) ON CONFLICT(client_id) DO UPDATE"
                         " SET system_assigned = excluded.system_assigned",
                         (client_id, int(system_assigned)))

    def pick(self, client_id: str | None) -> str | None:
        """The identity a request names, or the system-assigned one; None if neither is."""
        with self._db.read() as conn:
            if client_id:
                row = conn.execute("SELECT client_id FROM managed_identities WHERE client_id = ?",
                                   (client_id,)).fetchone()
            else:
                row = conn.execute("SELECT client_id FROM managed_identities"
                                   " WHERE system_assigned = 1 ORDER BY rowid").fetchone()
        return None if row is None else row["client_id"]
