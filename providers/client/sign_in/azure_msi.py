"""`azure-msi`: a token for the machine's managed identity, from the endpoint the platform
gives the machine: the App Service / Functions / Container Apps endpoint where
IDENTITY_ENDPOINT and IDENTITY_HEADER are set, else the instance metadata service (IMDS)
of a virtual machine. `client_id` picks a user-assigned identity; without it the
system-assigned one answers.

The service's SDK has no managed-identity method, so the request is made here, through the
project's transport (timeouts, retries, no redirects). Both endpoints are plain http on the
machine itself (loopback, or the link-local IMDS address): nothing else is accepted.
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from providers.client.auth_type import AuthType
from providers.client.connection import Connection
from providers.client.errors import SignInFailed, error_from_response
from providers.client.token_request import AccessToken, parse_token_response

IMDS_URL = "http://169.254.169.254/metadata/identity/oauth2/token"
IMDS_API_VERSION = "2018-02-01"
APP_SERVICE_API_VERSION = "2019-08-01"
ENDPOINT_ENV = "IDENTITY_ENDPOINT"
HEADER_ENV = "IDENTITY_HEADER"


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    from providers.client import http

    endpoint, header = os.environ.get(ENDPOINT_ENV), os.environ.get(HEADER_ENV)
    if endpoint and header:
        url, version, headers = endpoint, APP_SERVICE_API_VERSION, {"X-IDENTITY-HEADER": header}
    else:
        url, version, headers = IMDS_URL, IMDS_API_VERSION, {"Metadata": "true"}
    _refuse_off_machine(url)
    params = {"api-version": version, "resource": resource}
    if connection.client_id:
        params["client_id"] = connection.client_id
    secrets = (header,) if header else ()
    response = http.send(
        "GET",
        url,
        policy=http.CallPolicy(
            connection.timeout_seconds, connection.max_attempts, connection.max_retry_seconds
        ),
        idempotent=True,
        secrets=secrets,
        params=params,
        headers=headers,
    )
    if not response.ok:
        raise error_from_response(response, secrets=secrets)
    try:
        return parse_token_response(json.loads(response.content), resource, now=now)
    except ValueError as exc:
        raise _failed(f"the managed identity endpoint's answer could not be used: {exc}") from None


def _refuse_off_machine(url: str) -> None:
    host = urlsplit(url).hostname or ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    on_machine = host == "localhost" or (
        address is not None and (address.is_loopback or address.is_link_local)
    )
    if not on_machine:
        raise _failed(
            f"{ENDPOINT_ENV} {url!r} is not on this machine: a managed identity endpoint "
            "is a loopback or link-local address"
        )


def _failed(message: str) -> SignInFailed:
    return SignInFailed(
        status=None, code="MANAGED_IDENTITY", message=message, method=AuthType.AZURE_MSI, path=""
    )
