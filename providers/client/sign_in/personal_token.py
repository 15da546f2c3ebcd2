"""`pat`: a personal access token, sent as it is. There is nothing to fetch; whether the
service still takes it shows on the first call (WorkspaceAuth makes one at program time)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from providers.client.connection import Connection
from providers.client.token_request import AccessToken


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    assert connection.token is not None  # the connection's validation requires it
    return AccessToken(connection.token.get_secret_value(), math.inf, resource)
