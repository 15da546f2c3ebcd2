"""Bench program: N workspace objects of mixed kinds behind one WorkspaceAuth.

Config: `bench:count` (N), `bench:applicationIds` and the `workspace:*` connection settings
of the stack program. The mix (which kind at each index, its name and inputs) is
bench/programs/mix.py, which bench/programs/floor_same declares too.
"""

import dataclasses
from typing import Any

import pulumi

from bench.programs.mix import declare
from providers import WorkspaceAuth
from providers.core.registry import kind_named
from stacks.config import auth_args

bench = pulumi.Config("bench")
# Service principals need applications registered with the identity provider; the bench
# driver registers one per principal.
application_ids = iter(bench.require_object("applicationIds"))
auth = auth_args()
# `bench:rateLimit` overrides the client's calls per second (0: no limit) for comparisons.
rate_limit = bench.get_float("rateLimit")
if rate_limit is not None:
    auth = dataclasses.replace(auth, rate_limit_per_second=rate_limit)
connection = WorkspaceAuth("workspace", auth).connection


def build(kind: str, name: str, inputs: dict[str, Any]) -> Any:
    # The mix's four kinds are the only ones this program loads.
    return kind_named(kind).resource(name, inputs, connection=connection)


declare(
    bench.require_int("count"),
    f"{pulumi.get_project()}-{pulumi.get_stack()}",
    application_ids,
    build,
)
