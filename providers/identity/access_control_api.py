"""The account access-control proxy (`AccessControlApi(client)`): the rule set of a resource
(a service principal's: who holds its user and manager roles), read with its etag and
written whole with the etag it was read at."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from providers.client.calls import Calls

RULE_SETS_PATH = "/api/2.0/preview/accounts/access-control/rule-sets"


class AccessControlApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"AccessControlApi({self.client!r})"

    def get_rule_set(self, name: str, etag: str = "") -> dict[str, Any]:
        """`name`, `grant_rules` and `etag` of the rule set; `etag` (of a write just made)
        asks for a version at least that new, "" for the latest."""
        return self.client.get(RULE_SETS_PATH, {"name": name, "etag": etag})

    def update_rule_set(
        self, name: str, grant_rules: Sequence[Mapping[str, Any]], etag: str
    ) -> dict[str, Any]:
        """Replace the grant rules; refused (RESOURCE_CONFLICT) when `etag` is not the rule
        set's current one. The rule set written, with its new etag."""
        rule_set = {"name": name, "grant_rules": [dict(r) for r in grant_rules], "etag": etag}
        return self.client.put(RULE_SETS_PATH, {"name": name, "rule_set": rule_set})
