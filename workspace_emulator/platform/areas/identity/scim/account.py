"""The account above the workspace, as far as the workspace's SCIM users see it: its id, its
users, and whether the workspace is identity-federated.

How the emulator models identity federation (initial data, section `account`):

    "account": {"id": "<account id>", "identity_federation": true,
                "users": [{"id": "...", "user_name": "...", "display_name": "..."}]}

- Federated (`identity_federation: true`, the default of the section): a user is an account
  user assigned to the workspace. `POST /Users` with a `userName` the account has (compared
  without regard to case) assigns that account user: the workspace user takes the account
  user's id and its spelling of the name. A name the account lacks is added to the account
  first (as the service does for a workspace admin), then assigned. `DELETE /Users/{id}`
  removes the assignment only: the account user stays, and adding it again gives it its
  old id back.
- Not federated (`identity_federation: false`): `POST /Users` makes a workspace-local user
  with an id of its own, and `DELETE` removes it for good; the account's users are not
  looked at.

Either way a user name the workspace already has, in any case, is refused (409).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from workspace_emulator.platform.directory import Directory, User, UserSpec
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS account_users (id TEXT PRIMARY KEY, user_name TEXT NOT NULL,
    doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS account_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
ACCOUNT_USER_ID_START = 6_000_000_000_000_001
DEFAULT_ACCOUNT_ID = "00000000-0000-0000-0000-000000000000"


@dataclass(frozen=True)
class AccountUser:
    id: str
    user_name: str
    display_name: str


class Account:
    def __init__(self, db: Database, directory: Directory) -> None:
        self._db = db
        self._directory = directory

    # --- settings ---------------------------------------------------------------------
    def _setting(self, key: str, default: Any) -> Any:
        with self._db.read() as conn:
            row = conn.execute("SELECT value FROM account_settings WHERE key = ?",
                               (key,)).fetchone()
        return default if row is None else from_json(row["value"])

    @property
    def account_id(self) -> str:
        return str(self._setting("id", DEFAULT_ACCOUNT_ID))

    @property
    def identity_federated(self) -> bool:
        return bool(self._setting("identity_federation", True))

    def add_initial(self, conn: sqlite3.Connection, section: dict[str, Any]) -> None:
        for key in ("id", "identity_federation"):
            if key in section:
                conn.execute(
                    "INSERT INTO account_settings (key, value) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, to_json(section[key])))
        for user in section.get("users", []):
            self._add_account_user(conn, AccountUser(
                str(user["id"]), user["user_name"],
                user.get("display_name", user["user_name"])))

    # --- account users ------------------------------------------------------------------
    def account_users(self) -> list[AccountUser]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT id, user_name, doc FROM account_users").fetchall()
        return [AccountUser(r["id"], r["user_name"], from_json(r["doc"])["display_name"])
                for r in rows]

    def _account_user(self, conn: sqlite3.Connection, user_name: str) -> AccountUser | None:
        for row in conn.execute("SELECT id, user_name, doc FROM account_users").fetchall():
            if row["user_name"].lower() == user_name.lower():
                return AccountUser(row["id"], row["user_name"],
                                   from_json(row["doc"])["display_name"])
        return None

    @staticmethod
    def _add_account_user(conn: sqlite3.Connection, user: AccountUser) -> None:
        conn.execute("INSERT INTO account_users (id, user_name, doc) VALUES (?, ?, ?)",
                     (user.id, user.user_name, to_json({"display_name": user.display_name})))

    # --- the workspace's users ----------------------------------------------------------
    def add_user(self, user_name: str, spec: UserSpec) -> User:
        """POST /Users: assign the account user (federated) or make a local one."""
        with self._db.write() as conn:
            if not self.identity_federated:
                return self._directory.create_user(
                    conn, self._directory.new_user_id(conn), user_name, spec)
            account_user = self._account_user(conn, user_name)
            if account_user is None:
                account_user = AccountUser(
                    str(self._db.next_value(conn, "account_user_id", ACCOUNT_USER_ID_START)),
                    user_name, spec.display_name or user_name)
                self._add_account_user(conn, account_user)
            if spec.display_name is None:
                spec = UserSpec(account_user.display_name, spec.active, spec.entitlements,
                                spec.external_id)
            return self._directory.create_user(
                conn, account_user.id, account_user.user_name, spec)
