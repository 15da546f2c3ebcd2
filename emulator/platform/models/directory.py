"""Who is in the workspace: groups, users and service principals.

A service principal is the workspace's record of an identity-provider application; only
active principals may call the platform. Every principal is implicitly in `users`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from emulator.errors import AlreadyExists, InvalidParameter, NotFound
from emulator.storage import Database, from_json, to_json

ADMINS_GROUP = "admins"
USERS_GROUP = "users"
ENTITLEMENTS = frozenset(
    {"allow-cluster-create", "allow-instance-pool-create", "databricks-sql-access",
     "workspace-access"}
)
PRINCIPAL_ID_START = 4_000_000_000_000_001


@dataclass(frozen=True)
class Group:
    id: str
    display_name: str


@dataclass(frozen=True)
class User:
    id: str
    user_name: str
    display_name: str
    group_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServicePrincipalSpec:
    """The changeable part of a service principal."""

    display_name: str | None = None
    active: bool = True
    group_ids: tuple[str, ...] = ()
    entitlements: tuple[str, ...] = ()
    external_id: str | None = None


@dataclass(frozen=True)
class ServicePrincipal:
    id: str
    application_id: str
    display_name: str
    active: bool
    group_ids: tuple[str, ...]
    entitlements: tuple[str, ...]
    external_id: str | None = None

    def to_doc(self) -> dict:
        return {
            "display_name": self.display_name, "active": self.active,
            "group_ids": list(self.group_ids), "entitlements": list(self.entitlements),
            "external_id": self.external_id,
        }

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> ServicePrincipal:
        doc = from_json(row["doc"])
        return cls(
            id=row["id"], application_id=row["application_id"],
            display_name=doc["display_name"], active=doc["active"],
            group_ids=tuple(doc["group_ids"]), entitlements=tuple(doc["entitlements"]),
            external_id=doc.get("external_id"),
        )


@dataclass(frozen=True)
class Caller:
    """An authenticated service principal making a platform call."""

    application_id: str
    principal_id: str
    display_name: str
    group_names: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_admin(self) -> bool:
        return ADMINS_GROUP in self.group_names


class Directory:
    def __init__(self, db: Database, application_name: Callable[[str], str | None]) -> None:
        self._db = db
        # The identity provider's registry: display name of an application, None if unknown.
        self._application_name = application_name

    @property
    def generation(self) -> int:
        """Changes with every committed write (see Database.generation)."""
        return self._db.generation

    # groups and users (from the initial data, read-only through the API)

    def add_group(self, conn: sqlite3.Connection, group: Group) -> None:
        conn.execute("INSERT INTO groups (id, display_name) VALUES (?, ?)",
                     (group.id, group.display_name))

    def add_user(self, conn: sqlite3.Connection, user: User) -> None:
        doc = {"display_name": user.display_name, "group_ids": list(user.group_ids)}
        conn.execute("INSERT INTO users (id, user_name, doc) VALUES (?, ?, ?)",
                     (user.id, user.user_name, to_json(doc)))

    def groups(self) -> list[Group]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT id, display_name FROM groups ORDER BY display_name")
            return [Group(row["id"], row["display_name"]) for row in rows]

    def group(self, group_id: str) -> Group:
        for group in self.groups():
            if group.id == group_id:
                return group
        raise NotFound(f"Group with id {group_id} not found.")

    def group_by_name(self, display_name: str) -> Group | None:
        return next((g for g in self.groups() if g.display_name == display_name), None)

    def users(self) -> list[User]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT id, user_name, doc FROM users ORDER BY user_name").fetchall()
        users = []
        for row in rows:
            doc = from_json(row["doc"])
            users.append(User(row["id"], row["user_name"], doc["display_name"],
                              tuple(doc["group_ids"])))
        return users

    def user(self, user_id: str) -> User:
        for user in self.users():
            if user.id == user_id:
                return user
        raise NotFound(f"User with id {user_id} not found.")

    def user_by_name(self, user_name: str) -> User | None:
        return next((u for u in self.users() if u.user_name.lower() == user_name.lower()), None)

    # service principals

    def service_principals(self) -> list[ServicePrincipal]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT id, application_id, doc FROM service_principals ORDER BY rowid"
            ).fetchall()
        return [ServicePrincipal.from_row(row) for row in rows]

    def find_service_principal(self, key: str) -> ServicePrincipal | None:
        """By the workspace's id or by application id (the seed form uses the latter)."""
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT id, application_id, doc FROM service_principals"
                " WHERE id = ? OR application_id = ?",
                (key, key),
            ).fetchone()
        return None if row is None else ServicePrincipal.from_row(row)

    def service_principal(self, key: str) -> ServicePrincipal:
        principal = self.find_service_principal(key)
        if principal is None:
            raise NotFound(f"Service principal {key} not found in the workspace.")
        return principal

    def create_service_principal(
        self, application_id: str, spec: ServicePrincipalSpec,
        conn: sqlite3.Connection | None = None,
    ) -> ServicePrincipal:
        known_name = self._application_name(application_id)
        if known_name is None:
            raise InvalidParameter(
                f"Application ID {application_id} does not exist in the identity provider's "
                "tenant; register the application there first."
            )
        spec = self._validated(spec)
        if conn is None:
            with self._db.write() as own_conn:
                return self._insert(own_conn, application_id, spec, known_name)
        return self._insert(conn, application_id, spec, known_name)

    def _insert(
        self, conn: sqlite3.Connection, application_id: str, spec: ServicePrincipalSpec,
        known_name: str,
    ) -> ServicePrincipal:
        taken = conn.execute(
            "SELECT 1 FROM service_principals WHERE application_id = ?", (application_id,)
        ).fetchone()
        if taken:
            raise AlreadyExists(
                f"Service principal with application ID {application_id} already exists."
            )
        principal_id = str(self._db.next_value(conn, "principal_id", PRINCIPAL_ID_START))
        principal = ServicePrincipal(
            id=principal_id, application_id=application_id,
            display_name=spec.display_name or known_name, active=spec.active,
            group_ids=spec.group_ids, entitlements=spec.entitlements,
            external_id=spec.external_id,
        )
        conn.execute(
            "INSERT INTO service_principals (id, application_id, doc) VALUES (?, ?, ?)",
            (principal.id, principal.application_id, to_json(principal.to_doc())),
        )
        return principal

    def replace_service_principal(self, key: str, spec: ServicePrincipalSpec) -> ServicePrincipal:
        spec = self._validated(spec)
        with self._db.write() as conn:
            current = self.service_principal(key)
            updated = replace(
                current, display_name=spec.display_name or current.display_name,
                active=spec.active, group_ids=spec.group_ids, entitlements=spec.entitlements,
                external_id=spec.external_id,
            )
            conn.execute("UPDATE service_principals SET doc = ? WHERE id = ?",
                         (to_json(updated.to_doc()), updated.id))
        return updated

    def delete_service_principal(self, key: str) -> None:
        """Removes the principal from the workspace; the application stays registered."""
        with self._db.write() as conn:
            principal = self.service_principal(key)
            conn.execute("DELETE FROM service_principals WHERE id = ?", (principal.id,))

    def _validated(self, spec: ServicePrincipalSpec) -> ServicePrincipalSpec:
        known_groups = {g.id for g in self.groups()}
        for group_id in spec.group_ids:
            if group_id not in known_groups:
                raise InvalidParameter(f"Group with id {group_id} does not exist.")
        for entitlement in spec.entitlements:
            if entitlement not in ENTITLEMENTS:
                known = ", ".join(sorted(ENTITLEMENTS))
                raise InvalidParameter(f"Unknown entitlement '{entitlement}'; known: {known}.")
        return replace(
            spec,
            group_ids=tuple(dict.fromkeys(spec.group_ids)),
            entitlements=tuple(dict.fromkeys(spec.entitlements)),
        )

    # callers and principals named in permissions

    def caller(self, application_id: str) -> Caller | None:
        """The calling principal, or None if the application is not an active member."""
        principal = self.find_service_principal(application_id)
        if principal is None or principal.application_id != application_id or not principal.active:
            return None
        names = {g.display_name for g in self.groups() if g.id in principal.group_ids}
        return Caller(
            application_id=principal.application_id, principal_id=principal.id,
            display_name=principal.display_name,
            group_names=frozenset(names | {USERS_GROUP}),
        )

    def group_names_of_user(self, user: User) -> set[str]:
        return {g.display_name for g in self.groups() if g.id in user.group_ids} | {USERS_GROUP}

    def display_name_of(self, kind: str, name: str) -> str | None:
        if kind == "user":
            user = self.user_by_name(name)
            return user.display_name if user else None
        if kind == "service_principal":
            principal = self.find_service_principal(name)
            return principal.display_name if principal else None
        return None

    def principal_exists(self, kind: str, name: str) -> bool:
        if kind == "group":
            return self.group_by_name(name) is not None
        if kind == "user":
            return self.user_by_name(name) is not None
        principal = self.find_service_principal(name)
        return principal is not None and principal.application_id == name
