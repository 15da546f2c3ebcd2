"""Azure role assignments of the emulated subscription: which client holds which role on
which scope (a resource id, or a resource group or subscription above it, whose roles the
resources inside inherit, as in Azure)."""

from __future__ import annotations

from workspace_emulator.storage import Database

# Roles that may manage the workspace resource, and so sign a principal in to it.
WORKSPACE_MANAGING_ROLES = ("Owner", "Contributor")


def _covers(scope: str, resource_id: str) -> bool:
    # Azure resource ids compare case-insensitively.
    scope, resource_id = scope.rstrip("/").lower(), resource_id.rstrip("/").lower()
    return resource_id == scope or resource_id.startswith(scope + "/")


class RoleAssignments:
    def __init__(self, db: Database) -> None:
        self._db = db

    def assign(self, client_id: str, role: str, scope: str) -> None:
        with self._db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO role_assignments (client_id, role, scope)"
                         " VALUES (?, ?, ?)", (client_id, role, scope))

    def roles_on(self, client_id: str, resource_id: str) -> set[str]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT role, scope FROM role_assignments WHERE client_id = ?",
                                (client_id,)).fetchall()
        return {row["role"] for row in rows if _covers(row["scope"], resource_id)}

    def may_manage(self, client_id: str, resource_id: str) -> bool:
        return bool(self.roles_on(client_id, resource_id) & set(WORKSPACE_MANAGING_ROLES))
