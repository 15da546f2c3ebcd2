"""IP access lists and their enforcement.

The workspace's feature switch (`enableIpAccessLists`, off until an admin turns it on)
decides whether the lists count. While it is on, an address in an enabled block list is
refused, and where at least one enabled allow list exists, an address in none of them is
refused too. A create, update or replace that would refuse the caller's own address, and
turning the feature on while the lists refuse it, are answered `INVALID_STATE`, so an admin
cannot lock themselves out through the API.
"""

from __future__ import annotations

import ipaddress
import uuid
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import (
    InvalidParameter,
    InvalidState,
    NotFound,
    PermissionDenied,
    QuotaExceeded,
)
from workspace_emulator.storage import Database, from_json, to_json

LIST_TYPES = ("ALLOW", "BLOCK")
# For all lists together; a CIDR range counts once.
MAX_ADDRESSES = 1000
FEATURE_KEY = "enableIpAccessLists"
FEATURE_META_KEY = "workspace_conf.enableIpAccessLists"
TABLES = """
CREATE TABLE IF NOT EXISTS ip_access_lists (list_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


def _network(value: Any, index: int) -> ipaddress.IPv4Network:
    try:
        return ipaddress.IPv4Network(value, strict=False)
    except (ValueError, TypeError):
        raise InvalidParameter(
            f"ip_addresses[{index}]: {value!r} is not an IPv4 address or CIDR range.") from None


def _addresses(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise InvalidParameter("'ip_addresses' must be a list of IPv4 addresses or CIDR ranges")
    for index, item in enumerate(value):
        _network(item, index)
    return list(value)


def _refuses(lists: list[dict[str, Any]], address: str) -> bool:
    """Whether enabled `lists` refuse `address`."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False  # not an IP peer (a test client): nothing to match

    def matches(item: dict[str, Any]) -> bool:
        return any(ip in _network(a, i) for i, a in enumerate(item["ip_addresses"]))

    enabled = [item for item in lists if item.get("enabled")]
    if any(item["list_type"] == "BLOCK" and matches(item) for item in enabled):
        return True
    allows = [item for item in enabled if item["list_type"] == "ALLOW"]
    return bool(allows) and not any(matches(item) for item in allows)


class IpAccessLists:
    DECISIONS_KEPT = 1024

    def __init__(self, db: Database) -> None:
        self._db = db
        # Enforcement runs before every call: its answer per address is kept while what it
        # reads (the feature switch in `meta`, the lists) is unchanged.
        self._enforcement_inputs = db.changes_to("meta", "ip_access_lists")
        self._decided_at = -1
        self._refused: dict[str, bool] = {}

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

    # the feature switch and enforcement

    def feature_enabled(self) -> bool:
        return bool(self._db.get_meta(FEATURE_META_KEY))

    def _is_refused(self, address: str) -> bool:
        inputs = self._enforcement_inputs.count
        if inputs != self._decided_at or len(self._refused) >= self.DECISIONS_KEPT:
            self._refused.clear()
            self._decided_at = inputs
        refused = self._refused.get(address)
        if refused is None:
            refused = self._refused[address] = (self.feature_enabled()
                                                and _refuses(self.all(), address))
        return refused

    def set_feature(self, enabled: bool, caller_address: str) -> None:
        if enabled and _refuses(self.all(), caller_address):
            raise InvalidState(
                f"Turning IP access lists on would block your current IP address "
                f"{caller_address}; add it to an allow list first.")
        with self._db.write() as conn:
            self._db.set_meta(conn, FEATURE_META_KEY, enabled)

    def refuse_if_blocked(self, address: str, workspace_id: int) -> None:
        if self._is_refused(address):
            raise PermissionDenied(
                f"Source IP address: {address} is blocked by the IP access lists of "
                f"workspace {workspace_id}.")

    # changes

    def create(self, body: dict[str, Any], caller: int, caller_address: str) -> dict[str, Any]:
        label, list_type = body.get("label"), body.get("list_type")
        now = clock.now_ms()
        doc = {
            "list_id": str(uuid.uuid4()), "label": label, "list_type": list_type,
            "ip_addresses": body.get("ip_addresses", []), "enabled": True,
            "created_at": now, "created_by": caller, "updated_at": now, "updated_by": caller,
        }
        return self._store(doc, caller_address, new=True)

    def update(self, list_id: str, body: dict[str, Any], caller: int, caller_address: str,
               whole: bool) -> dict[str, Any]:
        """PATCH (`whole` False: the fields given) or PUT (`whole`: label, list_type and
        enabled required)."""
        if whole:
            missing = [f for f in ("label", "list_type", "enabled") if body.get(f) is None]
            if missing:
                raise InvalidParameter(f"'{missing[0]}' is required to replace a list")
        doc = self.get(list_id)
        for name in ("label", "list_type", "ip_addresses", "enabled"):
            if body.get(name) is not None:
                doc[name] = body[name]
        if whole and body.get("ip_addresses") is None:
            doc["ip_addresses"] = []
        doc.update(updated_at=clock.now_ms(), updated_by=caller)
        return self._store(doc, caller_address, new=False)

    def delete(self, list_id: str) -> None:
        with self._db.write() as conn:
            self.get(list_id)
            conn.execute("DELETE FROM ip_access_lists WHERE list_id = ?", (list_id,))

    def _store(self, doc: dict[str, Any], caller_address: str, new: bool) -> dict[str, Any]:
        if not isinstance(doc["label"], str) or not doc["label"]:
            raise InvalidParameter("'label' is required and cannot be empty")
        if doc["list_type"] not in LIST_TYPES:
            raise InvalidParameter(f"'list_type' must be ALLOW or BLOCK, not {doc['list_type']!r}")
        if not isinstance(doc["enabled"], bool):
            raise InvalidParameter("'enabled' must be true or false")
        doc["ip_addresses"] = _addresses(doc["ip_addresses"])
        doc["address_count"] = len(doc["ip_addresses"])
        with self._db.write() as conn:
            others = [item for item in self.all() if item["list_id"] != doc["list_id"]]
            total = sum(len(item["ip_addresses"]) for item in others) + doc["address_count"]
            if total > MAX_ADDRESSES:
                raise QuotaExceeded(
                    f"The IP access lists would hold {total} addresses and ranges; the "
                    f"workspace allows at most {MAX_ADDRESSES}.")
            if self.feature_enabled() and _refuses([*others, doc], caller_address):
                raise InvalidState(
                    f"This change would block your current IP address {caller_address}.")
            if new:
                conn.execute("INSERT INTO ip_access_lists (list_id, doc) VALUES (?, ?)",
                             (doc["list_id"], to_json(doc)))
            else:
                conn.execute("UPDATE ip_access_lists SET doc = ? WHERE list_id = ?",
                             (to_json(doc), doc["list_id"]))
        return doc
