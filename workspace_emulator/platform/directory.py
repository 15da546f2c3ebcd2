"""Who is in the workspace: groups, users and service principals.

A service principal is the workspace's record of an identity-provider application; only
active principals may call the platform. Every principal is implicitly in `users`.

A membership is held by the member: a user's, a service principal's or a group's
`group_ids` name the groups it is in, so a group's members are the principals naming it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.storage import Database, from_json, to_json

ADMINS_GROUP = "admins"
USERS_GROUP = "users"
ENTITLEMENTS = frozenset(
    {"allow-cluster-create", "allow-instance-pool-create", "databricks-sql-access",
     "workspace-access"}
)
PRINCIPAL_ID_START = 4_000_000_000_000_001
USER_ID_START = 5_000_000_000_000_001
GROUP_ID_START = 100_000_000_100_001
# Groups the workspace itself needs: never deleted or renamed.
SYSTEM_GROUPS = frozenset({ADMINS_GROUP, USERS_GROUP})
# Every table `Directory.caller` reads: a change to any of them makes a kept caller stale.
CALLER_TABLES = ("service_principals", "groups", "group_docs")
TABLES = """
CREATE TABLE IF NOT EXISTS groups (id TEXT PRIMARY KEY, display_name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS group_docs (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, user_name TEXT NOT NULL UNIQUE,
    doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS service_principals (id TEXT PRIMARY KEY,
    application_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL);
"""


@dataclass(frozen=True)
class Group:
    id: str
    display_name: str
    entitlements: tuple[str, ...] = ()
    external_id: str | None = None
    # The groups this group is a member of.
    group_ids: tuple[str, ...] = ()
    # An account group assigned to the workspace (identity federation), not the workspace's
    # own: its SCIM `meta.resourceType` is `Group`, a local one's `WorkspaceGroup`.
    account: bool = False


@dataclass(frozen=True)
class GroupSpec:
    """The changeable part of a group; `member_ids` None leaves the members as they are."""

    display_name: str
    entitlements: tuple[str, ...] = ()
    external_id: str | None = None
    member_ids: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Member:
    """A principal in a group: `kind` is Users, ServicePrincipals or Groups (its SCIM
    resource type)."""

    kind: str
    id: str
    display: str


@dataclass(frozen=True)
class User:
    id: str
    user_name: str
    display_name: str
    group_ids: tuple[str, ...] = ()
    active: bool = True
    entitlements: tuple[str, ...] = ()
    external_id: str | None = None

    def to_doc(self) -> dict:
        return {"display_name": self.display_name, "group_ids": list(self.group_ids),
                "active": self.active, "entitlements": list(self.entitlements),
                "external_id": self.external_id}


@dataclass(frozen=True)
class UserSpec:
    """The changeable part of a user (its groups are changed through the groups)."""

    display_name: str | None = None
    active: bool = True
    entitlements: tuple[str, ...] = ()
    external_id: str | None = None


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
        self._caller_tables = db.changes_to(*CALLER_TABLES)

    @property
    def generation(self) -> int:
        """Changes whenever a table `caller` reads does: a caller found at one generation
        is still right while it is unchanged."""
        return self._caller_tables.count

    # groups and users (from the initial data, read-only through the API)

    def add_group(self, conn: sqlite3.Connection, group: Group) -> None:
        conn.execute("INSERT INTO groups (id, display_name) VALUES (?, ?)",
                     (group.id, group.display_name))
        self._store_group_doc(conn, group)

    def add_user(self, conn: sqlite3.Connection, user: User) -> None:
        conn.execute("INSERT INTO users (id, user_name, doc) VALUES (?, ?, ?)",
                     (user.id, user.user_name, to_json(user.to_doc())))

    @staticmethod
    def _store_group_doc(conn: sqlite3.Connection, group: Group) -> None:
        doc = {"entitlements": list(group.entitlements), "external_id": group.external_id,
               "group_ids": list(group.group_ids), "account": group.account}
        conn.execute("INSERT INTO group_docs (id, doc) VALUES (?, ?) ON CONFLICT(id) DO UPDATE "
                     "SET doc = excluded.doc", (group.id, to_json(doc)))

    def groups(self) -> list[Group]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT g.id, g.display_name, d.doc FROM groups g"
                " LEFT JOIN group_docs d ON d.id = g.id ORDER BY g.display_name").fetchall()
        groups = []
        for row in rows:
            doc = from_json(row["doc"]) if row["doc"] else {}
            groups.append(Group(row["id"], row["display_name"],
                                tuple(doc.get("entitlements", ())), doc.get("external_id"),
                                tuple(doc.get("group_ids", ())), bool(doc.get("account"))))
        return groups

    def group(self, group_id: str) -> Group:
        for group in self.groups():
            if group.id == group_id:
                return group
        raise NotFound(f"Group with id {group_id} not found.")

    def group_by_name(self, display_name: str) -> Group | None:
        return next((g for g in self.groups() if g.display_name == display_name), None)

    # groups: made, changed and removed through SCIM

    def members(self, group_id: str) -> list[Member]:
        """Every direct member of the group, users first, then principals, then groups."""
        found = [Member("Users", u.id, u.display_name)
                 for u in self.users() if group_id in u.group_ids]
        found += [Member("ServicePrincipals", p.id, p.display_name)
                  for p in self.service_principals() if group_id in p.group_ids]
        found += [Member("Groups", g.id, g.display_name)
                  for g in self.groups() if group_id in g.group_ids]
        return found

    def create_group(self, spec: GroupSpec) -> Group:
        spec = self._validated_group(spec)
        with self._db.write() as conn:
            self._refuse_taken_name(conn, spec.display_name)
            group_id = str(self._db.next_value(conn, "group_id", GROUP_ID_START))
            group = Group(group_id, spec.display_name, spec.entitlements, spec.external_id)
            self.add_group(conn, group)
            self._set_members(conn, group_id, spec.member_ids or ())
        return group

    def change_group(self, group_id: str, spec: GroupSpec) -> Group:
        """Sets the group's fields (and its members, unless `spec.member_ids` is None)."""
        spec = self._validated_group(spec)
        with self._db.write() as conn:
            current = self.group(group_id)
            if spec.display_name != current.display_name:
                if current.display_name in SYSTEM_GROUPS:
                    raise InvalidParameter(
                        f"The group '{current.display_name}' cannot be renamed.")
                self._refuse_taken_name(conn, spec.display_name)
                conn.execute("UPDATE groups SET display_name = ? WHERE id = ?",
                             (spec.display_name, group_id))
            group = replace(current, display_name=spec.display_name,
                            entitlements=spec.entitlements, external_id=spec.external_id)
            self._store_group_doc(conn, group)
            if spec.member_ids is not None:
                self._set_members(conn, group_id, spec.member_ids)
        return group

    def delete_group(self, group_id: str) -> None:
        """Removes the group and every membership in it; its members stay."""
        with self._db.write() as conn:
            group = self.group(group_id)
            if group.display_name in SYSTEM_GROUPS:
                raise InvalidParameter(f"The group '{group.display_name}' cannot be deleted.")
            self._set_members(conn, group_id, ())
            conn.execute("DELETE FROM groups WHERE id = ?", (group_id,))
            conn.execute("DELETE FROM group_docs WHERE id = ?", (group_id,))

    def _refuse_taken_name(self, conn: sqlite3.Connection, display_name: str) -> None:
        taken = conn.execute("SELECT 1 FROM groups WHERE display_name = ?",
                             (display_name,)).fetchone()
        if taken:
            raise AlreadyExists(f"Group with name {display_name} already exists.")

    def _validated_group(self, spec: GroupSpec) -> GroupSpec:
        if not isinstance(spec.display_name, str) or not spec.display_name.strip():
            raise InvalidParameter("'displayName' is required")
        self._check_entitlements(spec.entitlements)
        members = spec.member_ids
        return replace(spec, entitlements=tuple(dict.fromkeys(spec.entitlements)),
                       member_ids=None if members is None else tuple(dict.fromkeys(members)))

    def _set_members(self, conn: sqlite3.Connection, group_id: str,
                     member_ids: tuple[str, ...]) -> None:
        """Makes exactly `member_ids` the group's direct members."""
        wanted = set(member_ids)
        known = {m.id for m in self.members(group_id)}
        for member_id in member_ids:
            self._principal_kind(member_id)  # unknown ids are refused before any change
            if member_id == group_id or member_id in self._ancestors(group_id):
                raise InvalidParameter(
                    f"Group {member_id} cannot be a member of group {group_id}: a group "
                    "cannot contain itself.")
        for member_id in known - wanted:
            self._move_membership(conn, member_id, group_id, add=False)
        for member_id in member_ids:
            if member_id not in known:
                self._move_membership(conn, member_id, group_id, add=True)

    def _ancestors(self, group_id: str) -> set[str]:
        """The groups `group_id` is in, directly or through other groups."""
        parents = {g.id: g.group_ids for g in self.groups()}
        found: set[str] = set()
        todo = list(parents.get(group_id, ()))
        while todo:
            current = todo.pop()
            if current not in found:
                found.add(current)
                todo += parents.get(current, ())
        return found

    def _principal_kind(self, principal_id: str) -> str:
        if any(u.id == principal_id for u in self.users()):
            return "Users"
        if any(p.id == principal_id for p in self.service_principals()):
            return "ServicePrincipals"
        if any(g.id == principal_id for g in self.groups()):
            return "Groups"
        raise InvalidParameter(
            f"Member {principal_id} is neither a user, a service principal nor a group of "
            "this workspace.")

    def _move_membership(self, conn: sqlite3.Connection, member_id: str, group_id: str,
                         add: bool) -> None:
        def changed(group_ids: tuple[str, ...] | list[str]) -> list[str]:
            kept = [g for g in group_ids if g != group_id]
            return [*kept, group_id] if add else kept

        kind = self._principal_kind(member_id)
        if kind == "Groups":
            group = self.group(member_id)
            self._store_group_doc(conn, replace(group, group_ids=tuple(changed(group.group_ids))))
            return
        table = "users" if kind == "Users" else "service_principals"
        row = conn.execute(f"SELECT doc FROM {table} WHERE id = ?", (member_id,)).fetchone()
        doc = from_json(row["doc"])
        doc["group_ids"] = changed(doc["group_ids"])
        conn.execute(f"UPDATE {table} SET doc = ? WHERE id = ?", (to_json(doc), member_id))

    def users(self) -> list[User]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT id, user_name, doc FROM users ORDER BY user_name").fetchall()
        users = []
        for row in rows:
            doc = from_json(row["doc"])
            users.append(User(row["id"], row["user_name"], doc["display_name"],
                              tuple(doc["group_ids"]), doc.get("active", True),
                              tuple(doc.get("entitlements", ())), doc.get("external_id")))
        return users

    def user(self, user_id: str) -> User:
        for user in self.users():
            if user.id == user_id:
                return user
        raise NotFound(f"User with id {user_id} not found.")

    def user_by_name(self, user_name: str) -> User | None:
        return next((u for u in self.users() if u.user_name.lower() == user_name.lower()), None)

    def new_user_id(self, conn: sqlite3.Connection) -> str:
        return str(self._db.next_value(conn, "user_id", USER_ID_START))

    def create_user(self, conn: sqlite3.Connection, user_id: str, user_name: str,
                    spec: UserSpec) -> User:
        """Adds the user under `user_id`; a user name the workspace has in any case is
        refused, as the service compares user names without regard to case."""
        if not user_name.strip():
            raise InvalidParameter("'userName' is required")
        self._check_entitlements(spec.entitlements)
        for row in conn.execute("SELECT id, user_name FROM users").fetchall():
            if row["user_name"].lower() == user_name.lower() or row["id"] == user_id:
                raise AlreadyExists(f"User with username {user_name} already exists.")
        user = User(user_id, user_name, spec.display_name or user_name, (), spec.active,
                    tuple(dict.fromkeys(spec.entitlements)), spec.external_id)
        self.add_user(conn, user)
        return user

    def replace_user(self, user_id: str, spec: UserSpec) -> User:
        """The user with the spec's fields (its user name and groups as they were)."""
        self._check_entitlements(spec.entitlements)
        with self._db.write() as conn:
            current = self.user(user_id)
            updated = replace(
                current, display_name=spec.display_name or current.display_name,
                active=spec.active, entitlements=tuple(dict.fromkeys(spec.entitlements)),
                external_id=spec.external_id)
            conn.execute("UPDATE users SET doc = ? WHERE id = ?",
                         (to_json(updated.to_doc()), user_id))
        return updated

    def delete_user(self, user_id: str) -> User:
        """Removes the user (and so its memberships) from the workspace."""
        with self._db.write() as conn:
            user = self.user(user_id)
            conn.execute("DELETE FROM users WHERE id = ?", (user_id,))
        return user

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
        self._check_entitlements(spec.entitlements)
        return replace(
            spec,
            group_ids=tuple(dict.fromkeys(spec.group_ids)),
            entitlements=tuple(dict.fromkeys(spec.entitlements)),
        )

    @staticmethod
    def _check_entitlements(entitlements: tuple[str, ...]) -> None:
        for entitlement in entitlements:
            if entitlement not in ENTITLEMENTS:
                known = ", ".join(sorted(ENTITLEMENTS))
                raise InvalidParameter(f"Unknown entitlement '{entitlement}'; known: {known}.")

    # callers and principals named in permissions

    def caller(self, application_id: str) -> Caller | None:
        """The calling principal, or None if the application is not an active member.
        Reads CALLER_TABLES only."""
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
