"""Access-control rule sets of service principals (the account's access-control service, as
a workspace reaches it through its proxy): who holds a principal's user role (may run as it)
and manager role (may change the principal and this rule set).

A rule set is named `accounts/<account id>/servicePrincipals/<application id>/ruleSets/
default`: the account id is the workspace's account's (the SCIM area's initial-data section
`account`), the application id one of the workspace's service principals. A principal whose
rule set holds, from its creation on, its creator's manager role, as the service grants it
(`made_by`: the caller that created it, `servicePrincipals/<application id>`: every caller of
the emulator is a service principal; the service names a user `users/<user name>`); a
principal of the initial data, created by no caller, has an empty one. Every write takes the
etag of the rule set it read and gets a new one; a write with any other etag is refused (409
RESOURCE_CONFLICT) so that two writers cannot undo each other's grants. A read answers the
latest version whatever etag it names (the emulator is never behind).

Reading needs no role; writing needs a workspace admin or the principal's manager role.
Setting a job's run_as to a principal needs its user role (`may_run_as`, which the jobs
area asks); the manager role does not include it, and a principal may always run as itself.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from workspace_emulator.errors import (
    InvalidParameter,
    NotFound,
    PermissionDenied,
    ResourceConflict,
)
from workspace_emulator.platform.areas.identity.scim.account import Account
from workspace_emulator.platform.directory import Caller, Directory, ServicePrincipal
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS rule_sets (name TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""
USER_ROLE = "roles/servicePrincipal.user"
MANAGER_ROLE = "roles/servicePrincipal.manager"
ROLES = (MANAGER_ROLE, USER_ROLE)
_NAME = re.compile(r"accounts/([^/]+)/servicePrincipals/([^/]+)/ruleSets/default")
_PRINCIPAL = re.compile(r"(users|groups|servicePrincipals)/(.+)")


def etag_of(version: int) -> str:
    return base64.b64encode(f"rule-set-version-{version}".encode()).decode()


def creator_of(caller: Caller) -> str:
    """How a rule set names the caller that created a principal: every caller of the
    emulator is a service principal (the service names a user `users/<user name>`)."""
    return f"servicePrincipals/{caller.application_id}"


class RuleSets:
    def __init__(self, db: Database, directory: Directory, account: Account) -> None:
        self._db = db
        self._directory = directory
        self._account = account

    def get(self, name: str) -> dict[str, Any]:
        self._principal_of(name)
        with self._db.read() as conn:
            doc = self._doc(conn, name)
        return _render(name, doc)

    def update(self, name: str, rule_set: Any, caller: Caller) -> dict[str, Any]:
        if not isinstance(rule_set, dict):
            raise InvalidParameter("'rule_set' is required: {name, grant_rules, etag}")
        if rule_set.get("name") != name:
            raise InvalidParameter(
                f"rule_set.name ({rule_set.get('name')}) must be the name of the request "
                f"({name})")
        application_id = self._principal_of(name)
        rules = self._grant_rules(rule_set.get("grant_rules") or [])
        etag = rule_set.get("etag")
        if not isinstance(etag, str) or not etag:
            raise InvalidParameter("rule_set.etag is required: the etag of the rule set read")
        with self._db.write() as conn:
            doc = self._doc(conn, name)
            if not self._may_manage(caller, application_id, doc):
                raise PermissionDenied(
                    f"{caller.application_id} is not a manager of service principal "
                    f"{application_id}.")
            if etag != etag_of(doc["version"]):
                raise ResourceConflict(
                    "Conflicting update: the rule set changed since it was read (etag "
                    f"{etag} is not the current one); read it again and retry.")
            doc = {"version": doc["version"] + 1, "grant_rules": rules}
            self._store(conn, name, doc)
        return _render(name, doc)

    def made_by(self, caller: Caller, make: Callable[[], ServicePrincipal]) -> ServicePrincipal:
        """`make()`, the creation of a service principal, and its rule set granting the caller
        its manager role, as the service does, in one transaction. The grant is a write: a new
        version and etag; rules a former principal of the application id left are not kept."""
        with self._db.write() as conn:
            principal = make()
            name = self._name(principal.application_id)
            doc = {"version": self._doc(conn, name)["version"] + 1,
                   "grant_rules": [{"role": MANAGER_ROLE, "principals": [creator_of(caller)]}]}
            self._store(conn, name, doc)
        return principal

    def holds(self, application_id: str, role: str, caller: Caller) -> bool:
        """Whether the caller holds `role` on the principal (directly, or through a group)."""
        name = self._name(application_id)
        with self._db.read() as conn:
            doc = self._doc(conn, name)
        return _holds(doc, role, caller)

    def may_run_as(self, application_id: str, caller: Caller) -> bool:
        """Whether the caller may name the principal as a job's run_as."""
        return caller.application_id == application_id or self.holds(
            application_id, USER_ROLE, caller)

    # --- helpers --------------------------------------------------------------------
    def _name(self, application_id: str) -> str:
        return (f"accounts/{self._account.account_id}/servicePrincipals/{application_id}"
                "/ruleSets/default")

    @staticmethod
    def _store(conn, name: str, doc: dict[str, Any]) -> None:
        conn.execute(
            "INSERT INTO rule_sets (name, doc) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET doc = excluded.doc", (name, to_json(doc)))

    def _principal_of(self, name: str) -> str:
        match = _NAME.fullmatch(name or "")
        if match is None:
            raise InvalidParameter(
                f"Invalid rule set name '{name}': the emulator serves rule sets of service "
                "principals, accounts/<account id>/servicePrincipals/<application id>/"
                "ruleSets/default")
        account_id, application_id = match.groups()
        if account_id != self._account.account_id:
            raise NotFound(f"Account {account_id} is not this workspace's account.")
        principal = self._directory.find_service_principal(application_id)
        if principal is None or principal.application_id != application_id:
            raise NotFound(f"Service principal {application_id} does not exist.")
        return application_id

    def _grant_rules(self, rules: Any) -> list[dict[str, Any]]:
        if not isinstance(rules, list):
            raise InvalidParameter("'grant_rules' must be a list of {role, principals}")
        found: dict[str, list[str]] = {}
        for index, rule in enumerate(rules):
            role = rule.get("role") if isinstance(rule, dict) else None
            if role not in ROLES:
                raise InvalidParameter(
                    f"grant_rules[{index}].role: '{role}' cannot be granted on a service "
                    f"principal; assignable roles: {', '.join(ROLES)}")
            principals = rule.get("principals") or []
            if not isinstance(principals, list):
                raise InvalidParameter(f"grant_rules[{index}].principals must be a list")
            for principal in principals:
                self._check_principal(principal, index)
            found.setdefault(role, [])
            found[role] += [p for p in principals if p not in found[role]]
        return [{"role": role, "principals": principals}
                for role, principals in found.items() if principals]

    def _check_principal(self, principal: Any, index: int) -> None:
        match = _PRINCIPAL.fullmatch(principal) if isinstance(principal, str) else None
        if match is None:
            raise InvalidParameter(
                f"grant_rules[{index}].principals: '{principal}' is not users/<user name>, "
                "groups/<group name> or servicePrincipals/<application id>")
        kind, key = match.groups()
        kind = {"users": "user", "groups": "group", "servicePrincipals": "service_principal"}[
            kind]
        if not self._directory.principal_exists(kind, key):
            raise InvalidParameter(f"Principal {principal} does not exist.")

    def _may_manage(self, caller: Caller, application_id: str, doc: dict[str, Any]) -> bool:
        return caller.is_admin or _holds(doc, MANAGER_ROLE, caller)

    @staticmethod
    def _doc(conn, name: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM rule_sets WHERE name = ?", (name,)).fetchone()
        return {"version": 0, "grant_rules": []} if row is None else from_json(row["doc"])


def _holds(doc: dict[str, Any], role: str, caller: Caller) -> bool:
    mine = {f"servicePrincipals/{caller.application_id}",
            *(f"groups/{g}" for g in caller.group_names)}
    return any(rule["role"] == role and mine & set(rule["principals"])
               for rule in doc["grant_rules"])


def _render(name: str, doc: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"name": name, "etag": etag_of(doc["version"])}
    if doc["grant_rules"]:
        answer["grant_rules"] = doc["grant_rules"]
    return answer
