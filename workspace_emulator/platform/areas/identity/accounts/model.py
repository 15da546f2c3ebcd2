"""The account above the workspace: its groups, service principals and users (the users
table is the scim area's, account.py) and which of them are assigned to the workspace.

Assignment is identity federation as the emulator models it: an account principal assigned
(USER or ADMIN) appears in the workspace's SCIM under its account id (a service principal
under a workspace id of its own, with its application id), and its workspace entitlements
are the workspace's to keep (changing the assignment leaves them alone). ADMIN makes it a
member of the workspace's `admins` group. Removing the assignment removes it from the
workspace only. The members of an account group are the account's: the workspace's copy of
the group lists none.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass, replace
from typing import Any

from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.identity import IdentityProvider
from workspace_emulator.platform.areas.identity.scim.account import (
    ACCOUNT_USER_ID_START,
    Account,
    AccountUser,
)
from workspace_emulator.platform.directory import (
    ADMINS_GROUP,
    Directory,
    Group,
    GroupSpec,
    ServicePrincipalSpec,
    UserSpec,
)
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS account_groups (id TEXT PRIMARY KEY, display_name TEXT NOT NULL,
    doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS account_service_principals (id TEXT PRIMARY KEY,
    application_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS workspace_assignments (principal_id TEXT PRIMARY KEY,
    permissions TEXT NOT NULL);
"""
ACCOUNT_GROUP_ID_START = 7_000_000_000_000_001
ACCOUNT_PRINCIPAL_ID_START = 8_000_000_000_000_001
PERMISSIONS = ("USER", "ADMIN")


@dataclass(frozen=True)
class AccountGroup:
    id: str
    display_name: str
    member_ids: tuple[str, ...] = ()
    external_id: str | None = None


@dataclass(frozen=True)
class AccountServicePrincipal:
    id: str
    application_id: str
    display_name: str
    active: bool = True


@dataclass(frozen=True)
class Principal:
    """An account principal as an assignment names it."""

    kind: str  # "group", "user" or "service_principal"
    id: str
    name: str  # the group's display name, the user name, the application id
    display_name: str


class AccountDirectory:
    def __init__(self, db: Database, directory: Directory, account: Account,
                 identity: IdentityProvider, workspace_id: int) -> None:
        self._db = db
        self._directory = directory
        self._account = account
        self._identity = identity
        self.workspace_id = workspace_id

    @property
    def account_id(self) -> str:
        return self._account.account_id

    def check_path(self, account_id: str, workspace_id: str | None = None) -> None:
        if account_id != self.account_id:
            raise NotFound(f"Account {account_id} not found; this emulator's account is "
                           f"{self.account_id}.")
        if workspace_id is not None and workspace_id != str(self.workspace_id):
            raise NotFound(f"Workspace {workspace_id} not found in account {account_id}.")

    # --- groups -------------------------------------------------------------------------
    def groups(self) -> list[AccountGroup]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT id, display_name, doc FROM account_groups "
                                "ORDER BY display_name").fetchall()
        return [_group(row) for row in rows]

    def group(self, group_id: str) -> AccountGroup:
        found = next((g for g in self.groups() if g.id == group_id), None)
        if found is None:
            raise NotFound(f"Group with id {group_id} not found in the account.")
        return found

    def create_group(self, display_name: str, member_ids: tuple[str, ...],
                     external_id: str | None) -> AccountGroup:
        self._check_members(member_ids)
        with self._db.write() as conn:
            if conn.execute("SELECT 1 FROM account_groups WHERE display_name = ?",
                            (display_name,)).fetchone():
                raise AlreadyExists(f"Group with name {display_name} already exists.")
            group = AccountGroup(
                str(self._db.next_value(conn, "account_group_id", ACCOUNT_GROUP_ID_START)),
                display_name, tuple(dict.fromkeys(member_ids)), external_id)
            conn.execute("INSERT INTO account_groups (id, display_name, doc) VALUES (?, ?, ?)",
                         (group.id, group.display_name, _group_doc(group)))
        return group

    def change_group(self, group_id: str, display_name: str, member_ids: tuple[str, ...],
                     external_id: str | None) -> AccountGroup:
        current = self.group(group_id)
        self._check_members(member_ids)
        group = replace(current, display_name=display_name,
                        member_ids=tuple(dict.fromkeys(member_ids)), external_id=external_id)
        with self._db.write() as conn:
            if display_name != current.display_name and conn.execute(
                    "SELECT 1 FROM account_groups WHERE display_name = ?",
                    (display_name,)).fetchone():
                raise AlreadyExists(f"Group with name {display_name} already exists.")
            conn.execute("UPDATE account_groups SET display_name = ?, doc = ? WHERE id = ?",
                         (group.display_name, _group_doc(group), group.id))
            if display_name != current.display_name and self._assigned(conn, group_id):
                conn.execute("UPDATE groups SET display_name = ? WHERE id = ?",
                             (display_name, group_id))
        return group

    def delete_group(self, group_id: str) -> None:
        self.group(group_id)
        self.unassign(group_id, missing_ok=True)
        with self._db.write() as conn:
            conn.execute("DELETE FROM account_groups WHERE id = ?", (group_id,))
            for group in self.groups():
                if group_id in group.member_ids:
                    conn.execute("UPDATE account_groups SET doc = ? WHERE id = ?", (_group_doc(
                        replace(group, member_ids=tuple(
                            m for m in group.member_ids if m != group_id))), group.id))

    def _check_members(self, member_ids: tuple[str, ...]) -> None:
        for member_id in member_ids:
            if self.principal(member_id) is None:
                raise InvalidParameter(
                    f"Member {member_id} is neither a user, a service principal nor a group "
                    "of the account.")

    # --- users --------------------------------------------------------------------------
    def users(self) -> list[AccountUser]:
        return sorted(self._account.account_users(), key=lambda u: u.user_name)

    def user(self, user_id: str) -> AccountUser:
        found = next((u for u in self.users() if u.id == user_id), None)
        if found is None:
            raise NotFound(f"User with id {user_id} not found in the account.")
        return found

    def create_user(self, user_name: str, display_name: str | None) -> AccountUser:
        if any(u.user_name.lower() == user_name.lower() for u in self.users()):
            raise AlreadyExists(f"User with username {user_name} already exists.")
        with self._db.write() as conn:
            user = AccountUser(
                str(self._db.next_value(conn, "account_user_id", ACCOUNT_USER_ID_START)),
                user_name, display_name or user_name)
            conn.execute("INSERT INTO account_users (id, user_name, doc) VALUES (?, ?, ?)",
                         (user.id, user.user_name,
                          to_json({"display_name": user.display_name})))
        return user

    def delete_user(self, user_id: str) -> None:
        self.user(user_id)
        self.unassign(user_id, missing_ok=True)
        with self._db.write() as conn:
            conn.execute("DELETE FROM account_users WHERE id = ?", (user_id,))

    # --- service principals -------------------------------------------------------------
    def service_principals(self) -> list[AccountServicePrincipal]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT id, application_id, doc FROM "
                                "account_service_principals ORDER BY rowid").fetchall()
        return [AccountServicePrincipal(r["id"], r["application_id"], **from_json(r["doc"]))
                for r in rows]

    def service_principal(self, principal_id: str) -> AccountServicePrincipal:
        found = next((p for p in self.service_principals() if p.id == principal_id), None)
        if found is None:
            raise NotFound(f"Service principal with id {principal_id} not found in the "
                           "account.")
        return found

    def create_service_principal(self, application_id: str | None,
                                 display_name: str | None) -> AccountServicePrincipal:
        """Without an application id, a new application of the account's (as the service
        does): registered with the identity provider, no secret yet."""
        if application_id is None:
            if not display_name:
                raise InvalidParameter("'applicationId' or 'displayName' is required")
            application_id = str(uuid.uuid4())
            self._identity.register_secretless_application(application_id, display_name)
        if any(p.application_id == application_id for p in self.service_principals()):
            raise AlreadyExists(f"Service principal with application ID {application_id} "
                                "already exists.")
        with self._db.write() as conn:
            principal = AccountServicePrincipal(
                str(self._db.next_value(conn, "account_principal_id",
                                        ACCOUNT_PRINCIPAL_ID_START)),
                application_id, display_name or application_id)
            conn.execute("INSERT INTO account_service_principals (id, application_id, doc) "
                         "VALUES (?, ?, ?)", (principal.id, principal.application_id, to_json(
                             {"display_name": principal.display_name,
                              "active": principal.active})))
        return principal

    def delete_service_principal(self, principal_id: str) -> None:
        self.service_principal(principal_id)
        self.unassign(principal_id, missing_ok=True)
        with self._db.write() as conn:
            conn.execute("DELETE FROM account_service_principals WHERE id = ?",
                         (principal_id,))

    # --- principals and their assignment to the workspace --------------------------------
    def principal(self, principal_id: str) -> Principal | None:
        for group in self.groups():
            if group.id == principal_id:
                return Principal("group", group.id, group.display_name, group.display_name)
        for user in self.users():
            if user.id == principal_id:
                return Principal("user", user.id, user.user_name, user.display_name)
        for sp in self.service_principals():
            if sp.id == principal_id:
                return Principal("service_principal", sp.id, sp.application_id,
                                 sp.display_name)
        return None

    def assignments(self) -> list[tuple[Principal, list[str]]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT principal_id, permissions FROM "
                                "workspace_assignments ORDER BY rowid").fetchall()
        found = []
        for row in rows:
            principal = self.principal(row["principal_id"])
            if principal is not None:
                found.append((principal, from_json(row["permissions"])))
        return found

    @staticmethod
    def _assigned(conn: sqlite3.Connection, principal_id: str) -> bool:
        return conn.execute("SELECT 1 FROM workspace_assignments WHERE principal_id = ?",
                            (principal_id,)).fetchone() is not None

    def assign(self, principal_id: str, permissions: list[Any]) -> tuple[Principal, list[str]]:
        """Sets the principal's permissions on the workspace ("ADMIN" wins over "USER";
        other values are ignored, and none left removes the assignment)."""
        principal = self.principal(principal_id)
        if principal is None:
            raise NotFound(f"Principal {principal_id} not found in the account.")
        kept = [p for p in PERMISSIONS if p in permissions]
        if not kept:
            self.unassign(principal_id, missing_ok=True)
            return principal, []
        admin = "ADMIN" in kept
        kept = ["ADMIN"] if admin else ["USER"]
        with self._db.write() as conn:
            conn.execute("INSERT INTO workspace_assignments (principal_id, permissions) "
                         "VALUES (?, ?) ON CONFLICT(principal_id) DO UPDATE SET "
                         "permissions = excluded.permissions", (principal_id, to_json(kept)))
        workspace_id = self._in_workspace(principal)
        self._set_admin(workspace_id, admin)
        return principal, kept

    def unassign(self, principal_id: str, missing_ok: bool = False) -> None:
        with self._db.write() as conn:
            assigned = self._assigned(conn, principal_id)
            conn.execute("DELETE FROM workspace_assignments WHERE principal_id = ?",
                         (principal_id,))
        if not assigned:
            if missing_ok:
                return
            raise NotFound(f"Principal {principal_id} has no permissions on workspace "
                           f"{self.workspace_id}.")
        principal = self.principal(principal_id)
        if principal is None:
            return
        local = self._workspace_id_of(principal)
        if local is None:
            return
        if principal.kind == "group":
            self._directory.delete_group(local)
        elif principal.kind == "user":
            self._directory.delete_user(local)
        else:
            self._directory.delete_service_principal(local)

    def _workspace_id_of(self, principal: Principal) -> str | None:
        if principal.kind == "group":
            group = self._directory.group_by_name(principal.name)
            return group.id if group is not None and group.id == principal.id else None
        if principal.kind == "user":
            user = self._directory.user_by_name(principal.name)
            return user.id if user is not None else None
        sp = self._directory.find_service_principal(principal.name)
        return sp.id if sp is not None else None

    def _in_workspace(self, principal: Principal) -> str:
        """The principal's id in the workspace, adding it there if it is not yet."""
        known = self._workspace_id_of(principal)
        if known is not None:
            return known
        if principal.kind == "service_principal":
            return self._directory.create_service_principal(
                principal.name, ServicePrincipalSpec(display_name=principal.display_name)).id
        with self._db.write() as conn:
            if principal.kind == "group":
                if self._directory.group_by_name(principal.name) is not None:
                    raise AlreadyExists(
                        f"The workspace has a group of its own named {principal.name}: "
                        "rename or delete it before assigning the account's.")
                self._directory.add_group(conn, Group(principal.id, principal.name,
                                                          account=True))
                return principal.id
            return self._directory.create_user(
                conn, principal.id, principal.name, UserSpec(principal.display_name)).id

    def _set_admin(self, workspace_id: str, admin: bool) -> None:
        admins = self._directory.group_by_name(ADMINS_GROUP)
        if admins is None:
            return
        members = tuple(m.id for m in self._directory.members(admins.id))
        wanted = tuple(dict.fromkeys((*members, workspace_id))) if admin else tuple(
            m for m in members if m != workspace_id)
        if wanted != members:
            self._directory.change_group(admins.id, GroupSpec(
                admins.display_name, admins.entitlements, admins.external_id, wanted))


def _group(row: sqlite3.Row) -> AccountGroup:
    doc = from_json(row["doc"])
    return AccountGroup(row["id"], row["display_name"], tuple(doc.get("member_ids", ())),
                        doc.get("external_id"))


def _group_doc(group: AccountGroup) -> str:
    return to_json({"member_ids": list(group.member_ids), "external_id": group.external_id})
