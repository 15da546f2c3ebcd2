"""Validation errors shown to the user never print the values given (issue 41, I1): pydantic's
own text carries `input_value=...`, so a token given as a number, or a secret of the wrong
type, would be printed with it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pydantic
import pytest

from providers.auth.component import WorkspaceAuthError, check_credentials
from providers.client.connection import Connection
from providers.core.host import WorkspaceProviderHost, _others_to_pulumi
from providers.core.validation_errors import InvalidInput, describe

TOKEN_AS_A_NUMBER = 987654321012345
BASE_URL = "https://adb-123.example.net"
JOB_URN = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:Job::etl"


def settings(**overrides: Any) -> dict[str, Any]:
    return {"base_url": BASE_URL, "auth_type": "pat", "token": TOKEN_AS_A_NUMBER} | overrides


def test_a_connection_with_a_token_of_the_wrong_type_does_not_print_it():
    with pytest.raises(pydantic.ValidationError) as caught:
        Connection.from_props(settings())
    text = str(caught.value)
    assert "token" in text and "valid string" in text
    assert str(TOKEN_AS_A_NUMBER) not in text and "input_value" not in text


def test_workspace_auth_names_the_key_and_not_the_value():
    with pytest.raises(WorkspaceAuthError) as caught:
        check_credentials(settings())
    assert "token (workspace:token)" in str(caught.value)
    assert str(TOKEN_AS_A_NUMBER) not in str(caught.value)


class _Secretive(pydantic.BaseModel):
    password: str
    port: int


def test_describe_gives_each_place_and_reason_without_the_values():
    with pytest.raises(pydantic.ValidationError) as caught:
        _Secretive.model_validate({"password": 424242424242, "port": "hunter2-not-a-port"})
    text = describe(caught.value)
    assert text.startswith("invalid _Secretive: ")
    assert "password: Input should be a valid string" in text and "port: " in text
    assert "424242424242" not in text and "hunter2" not in text


def test_the_provider_host_reports_a_validation_error_without_the_values():
    def create(self: Any, request: Any, context: Any) -> Any:
        _Secretive.model_validate({"password": 424242424242, "port": "hunter2-not-a-port"})

    routed = _others_to_pulumi(create)
    with pytest.raises(InvalidInput) as caught:
        routed(WorkspaceProviderHost(), SimpleNamespace(urn=JOB_URN), None)
    assert "password" in str(caught.value)
    assert "424242424242" not in str(caught.value) and "hunter2" not in str(caught.value)
