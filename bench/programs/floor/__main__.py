"""Bench floor: N dynamic resources whose provider does nothing and calls nobody.

The cost of this program is what the engine and the dynamic-provider host take for N
resources; no provider can do less. Config: `bench:count` (N).
"""

import pulumi
from nothing import NothingProvider
from pulumi.dynamic import Resource


class Nothing(Resource):
    def __init__(self, name: str, index: int) -> None:
        super().__init__(NothingProvider(), name, {"index": index})


for index in range(pulumi.Config("bench").require_int("count")):
    Nothing(f"bench-{index:04d}", index)
