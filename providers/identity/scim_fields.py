"""Input fields the SCIM kinds (service principals, groups) share."""

from __future__ import annotations

from typing import Literal

Entitlement = Literal[
    "allow-cluster-create",
    "allow-instance-pool-create",
    "databricks-sql-access",
    "workspace-access",
]


