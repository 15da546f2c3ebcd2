"""Resource properties between the engine's protobuf Structs and Python values, for the
provider host (providers/core/host.py).

The SDK's `rpc.serialize_properties` and `rpc.deserialize_properties` handle everything a
property can be (secrets, assets, resource references, unknown values of a preview) and pay
for it on every value: a message takes a Python call per value, and serialising one runs an
event loop. What the workspace kinds record and answer is plain JSON, so both directions
copy plain JSON straight between the message and Python, with the SDK's rules, and leave
anything else to the SDK: the answer is the SDK's either way (tests/unit/test_properties.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from google.protobuf import struct_pb2
from pulumi.runtime import rpc

_JSON_SCALARS = (str, int, float, bool, type(None))
# The key by which the SDK marks a struct that is not an object: a secret, an asset, a
# resource reference, an output value.
_SIGNATURE_KEY = rpc._special_sig_key  # the SDK has no public name for it


def to_struct(props: dict[str, Any]) -> struct_pb2.Struct:
    """`props` as `rpc.serialize_properties` sends them: a property whose value is None is
    left out. Plain JSON is copied into the message, a tenth of the SDK's cost."""
    if _is_json(props):
        struct = struct_pb2.Struct()
        struct.update({key: value for key, value in props.items() if value is not None})
        return struct
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(rpc.serialize_properties(props, {}))
    finally:
        loop.close()


def from_struct(struct: struct_pb2.Struct, keep_unknowns: bool = False) -> dict[str, Any]:
    """`struct` as `rpc.deserialize_properties(struct, keep_unknowns)` reads it: objects
    leave out None values and the engine's internal keys (`__` but `__provider`), lists keep
    every item. Plain JSON is read straight out of the message, a third of the SDK's cost."""
    try:
        return _object(struct.fields)
    except _NotPlain:
        return rpc.deserialize_properties(struct, keep_unknowns)


def value_of(plain: Any) -> struct_pb2.Value:
    """A plain JSON value as one value of a Struct (to compare with one the engine sent)."""
    struct = struct_pb2.Struct()
    struct.update({"value": plain})
    return struct.fields["value"]


def _is_json(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    return type(value) in _JSON_SCALARS


class _NotPlain(Exception):
    """A value only the SDK reads: a signed struct or an unknown value."""


def _object(fields: Any) -> dict[str, Any]:
    if _SIGNATURE_KEY in fields:
        raise _NotPlain
    result = {}
    for key, value in fields.items():
        if key.startswith("__") and key != "__provider":
            continue
        plain = _value(value)
        if plain is not None:
            result[key] = plain
    return result


def _value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        if value.string_value == rpc.UNKNOWN:
            raise _NotPlain
        return value.string_value
    if kind == "number_value":
        return value.number_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return _object(value.struct_value.fields)
    if kind == "list_value":
        return [_value(item) for item in value.list_value.values]
    return None
