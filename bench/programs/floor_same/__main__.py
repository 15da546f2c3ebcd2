"""Bench floor with ours' state: N dynamic resources whose providers do nothing and call
nobody, declared with the same mix as bench/programs/ours (bench/programs/mix.py: the same
kinds, names, inputs and dependencies) and recording about the same state per resource
(bench/programs/floor_same/echo.py). Ours over this floor is our own cost (program, provider
host, HTTP, emulator) without the engine's cost of writing ours' state, which grows with
its bytes. Config: `bench:count` (N); `bench:outputs: declared` makes the outputs repeat no
input (the `floor_declared` variant: bench/programs/floor_same/echo.py).
"""

import itertools
import uuid
from typing import Any

import pulumi
from echo import DECLARED_PROVIDERS, MODULE, PROVIDERS
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider

from bench.programs.mix import JOB, declare

project, stack = pulumi.get_project(), pulumi.get_stack()
providers = DECLARED_PROVIDERS if pulumi.Config("bench").get("outputs") == "declared" else PROVIDERS


class Echoed(pulumi.CustomResource):
    """A dynamic resource (the `pulumi-python` provider serves it from its `__provider`) of
    type `pulumi-python:dynamic/floor_same:<kind>`, the shape of ours' type tokens.

    Unlike `pulumi.dynamic.Resource`, its `__provider` is no secret: ours' entries hold no
    secret, and the encrypted form would add as many bytes again to each entry's inputs and
    outputs.
    """

    def __init__(self, kind: str, name: str, props: dict[str, Any]) -> None:
        props[PROVIDER_KEY] = serialize_provider(providers[kind]())
        super().__init__(f"pulumi-python:dynamic/{MODULE}:{kind}", name, props)


# Stand-ins of the applications' client ids (no identity provider here).
application_ids = (str(uuid.UUID(int=number)) for number in itertools.count(1))


def build(kind: str, name: str, inputs: dict[str, Any]) -> Any:
    props: dict[str, Any] = {key: None for key in providers[kind].computed_keys}
    props.update(inputs)
    if kind == JOB:
        # What ours stamps on a job, so a retried create finds what it made.
        props["deployment_tag"] = f"{project}/{stack}/{name}"
    return Echoed(kind, name, props)


declare(pulumi.Config("bench").require_int("count"), f"{project}-{stack}", application_ids, build)
