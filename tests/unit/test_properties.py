"""providers/core/properties.py: the host's plain-JSON path through the engine's Structs gives
what the SDK's `rpc.serialize_properties` and `rpc.deserialize_properties` give, both ways."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.protobuf import struct_pb2
from pulumi.output import Unknown
from pulumi.runtime import rpc

from providers.core.properties import from_struct, to_struct

SECRET = {rpc._special_sig_key: rpc._special_secret_sig, "value": "x"}
PLAIN = [
    {"name": "nightly", "job_id": 1000000000001, "ratio": 0.5, "paused": False},
    {"gone": None, "nested": {"kept": None, "list": [None, 1, "a", {"x": [True]}]}},
    {"empty": {}, "none_of_them": [], "text": ""},
]


def sent_by_sdk(props: dict[str, Any]) -> struct_pb2.Struct:
    return asyncio.new_event_loop().run_until_complete(rpc.serialize_properties(props, {}))


@pytest.mark.parametrize("props", [*PLAIN, {"token": SECRET}])
def test_plain_answers_are_sent_as_the_sdk_sends_them(props):
    assert to_struct(props) == sent_by_sdk(props)


def test_an_unknown_value_of_a_preview_is_sent_by_the_sdk():
    props = {"tasks": [{"task_key": Unknown()}]}
    assert to_struct(props) == sent_by_sdk(props)
    assert to_struct(props)["tasks"][0]["task_key"] == rpc.UNKNOWN


def engine_struct(value: dict[str, Any]) -> struct_pb2.Struct:
    """A Struct as the engine sends it: nulls and internal keys included."""
    struct = struct_pb2.Struct()
    struct.update(value)
    return struct


@pytest.mark.parametrize(
    "value",
    [
        *PLAIN,
        {"__defaults": ["name"], "__provider": "code", "kept": {"__inner": 1, "x": None}},
        {"tasks": [{"task_key": "a", "depends_on": [None, {"task_key": "b"}]}], "n": 3},
        {"token": SECRET, "name": "n"},
        {"nested": {"list": [SECRET, "plain"]}},
        {"tasks": [{"task_key": rpc.UNKNOWN}], "name": "n"},
    ],
)
@pytest.mark.parametrize("keep_unknowns", [False, True])
def test_what_the_engine_sends_is_read_as_the_sdk_reads_it(value, keep_unknowns):
    struct = engine_struct(value)
    ours = from_struct(struct, keep_unknowns)
    sdks = rpc.deserialize_properties(struct, keep_unknowns)
    assert _comparable(ours) == _comparable(sdks)


def test_a_secret_stays_marked_and_an_unknown_stays_unknown():
    assert rpc.is_rpc_secret(from_struct(engine_struct({"token": SECRET}))["token"])
    tasks = from_struct(engine_struct({"tasks": [{"task_key": rpc.UNKNOWN}]}), True)["tasks"]
    assert isinstance(tasks[0]["task_key"], Unknown)


def _comparable(value: Any) -> Any:
    """Unknown values compare by identity; they stand for one marker here."""
    if isinstance(value, Unknown):
        return "<unknown>"
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value
