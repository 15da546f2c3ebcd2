"""The bench's mix (bench/programs/mix.py) as an OpenTofu configuration of the service's
Terraform provider: the peer of bench/programs/ours in bench/deploy_cost.py.

The same `declare` decides the mix, so the peer gets the same kinds at the same indexes,
with the same inputs, each kind as the provider's resource for it:

    Job               databricks_job                 (job_clusters -> job_cluster blocks,
                                                      tasks -> task blocks, depends_on,
                                                      new_cluster, spark_python_task and
                                                      schedule blocks)
    JobPermissions    databricks_permissions         (job_id of the job just before,
                                                      access_controls -> access_control)
    SecretScope       databricks_secret_scope
    ServicePrincipal  databricks_service_principal   (the same application ids)

A dict input is a nested block of the same name, a list of dicts one block per item (named
in the singular where the provider's schema does); anything else is an attribute.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bench.programs.mix import JOB, JOB_PERMISSIONS, SECRET_SCOPE, SERVICE_PRINCIPAL, declare

RESOURCE_TYPE = {
    JOB: "databricks_job",
    JOB_PERMISSIONS: "databricks_permissions",
    SECRET_SCOPE: "databricks_secret_scope",
    SERVICE_PRINCIPAL: "databricks_service_principal",
}
# Our inputs' list names whose items are the provider's repeated blocks of another name.
BLOCK_NAME = {"job_clusters": "job_cluster", "tasks": "task", "access_controls": "access_control"}
PROVIDER_SOURCE = "databricks/databricks"
INDENT = "  "


class Expression(str):
    """An HCL expression (a reference), written as it is rather than as a string."""


@dataclass(frozen=True)
class Declared:
    """What `build` returns: a job's id is a reference to its resource."""

    address: str

    @property
    def job_id(self) -> Expression:
        return Expression(f"{self.address}.id")


def local_name(name: str) -> str:
    """`bench-0007` -> `bench_0007`."""
    return name.replace("-", "_")


def value(item: Any) -> str:
    if isinstance(item, Expression):
        return str(item)
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int | float):
        return repr(item)
    if isinstance(item, str):
        if "${" in item or "%{" in item:
            raise ValueError(f"{item!r}: a template sequence in a bench name or setting")
        return json.dumps(item)
    if isinstance(item, list):
        return "[" + ", ".join(value(x) for x in item) + "]"
    raise TypeError(f"{item!r} is not a value this configuration writes")


def body(inputs: dict[str, Any], depth: int) -> list[str]:
    """Attributes first, then blocks, each in the inputs' order."""
    pad = INDENT * depth
    attributes = [(k, v) for k, v in inputs.items() if not _is_block(v)]
    width = max((len(k) for k, _ in attributes), default=0)
    lines = [f"{pad}{k.ljust(width)} = {value(v)}" for k, v in attributes]
    for key, nested in inputs.items():
        if not _is_block(nested):
            continue
        items = nested if isinstance(nested, list) else [nested]
        for item in items:
            lines += [f"{pad}{BLOCK_NAME.get(key, key)} {{", *body(item, depth + 1), f"{pad}}}"]
    return lines


def _is_block(item: Any) -> bool:
    return isinstance(item, dict) or (
        isinstance(item, list) and bool(item) and all(isinstance(x, dict) for x in item)
    )


def resource(kind: str, name: str, inputs: dict[str, Any]) -> tuple[str, str]:
    """(address, the resource block) of one object of the mix."""
    resource_type = RESOURCE_TYPE[kind]
    address = f"{resource_type}.{local_name(name)}"
    block = [f'resource "{resource_type}" "{local_name(name)}" {{', *body(inputs, 1), "}"]
    return address, "\n".join(block)


def configuration(count: int, scope_prefix: str, application_ids: Iterable[str]) -> str:
    """The whole configuration: the provider (signed in from the environment) and the mix of
    `count` resources."""
    blocks = [
        "terraform {\n"
        f'{INDENT}required_providers {{\n'
        f'{INDENT * 2}databricks = {{ source = "{PROVIDER_SOURCE}" }}\n'
        f"{INDENT}}}\n"
        "}",
        '# Host and token from DATABRICKS_HOST and DATABRICKS_TOKEN.\nprovider "databricks" {}',
    ]

    def build(kind: str, name: str, inputs: dict[str, Any]) -> Declared:
        address, block = resource(kind, name, inputs)
        blocks.append(block)
        return Declared(address)

    declare(count, scope_prefix, iter(application_ids), build)
    return "\n\n".join(blocks) + "\n"
