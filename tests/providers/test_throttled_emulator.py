"""Against an emulator that throttles (`--rate-limit`: N calls per second per client, then 429
with Retry-After), creates from many threads at once, as the provider host makes them,
all succeed: the client's adaptive limit learns the pace from the first 429s, so few calls
are refused. Its own workspace, unthrottled client settings (no ceiling)."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from providers.client import ratelimit
from providers.core.lifecycle import CONNECTION_KEY
from providers.secrets.secret_scope import SecretScopeProvider
from tests.conftest import emulator_connection, emulator_fixture
from workspace_emulator.testing import clear_request_log, request_log

RATE = 20
emulator = emulator_fixture("module", rate_limit=RATE)
CREATES = 120
THREADS = 8


def test_creates_converge_with_few_429s(emulator, fresh_client_caches) -> None:
    connection = emulator_connection(emulator).to_props()
    assert connection["rate_limit_per_second"] == 0  # no ceiling: the 429s set the pace
    provider = SecretScopeProvider()
    prefix = f"throttled-{uuid.uuid4().hex[:6]}"
    clear_request_log(emulator)

    def create(index: int) -> Any:
        return provider.create({"name": f"{prefix}-{index}", CONNECTION_KEY: connection})

    with ThreadPoolExecutor(THREADS) as pool:
        made = list(pool.map(create, range(CREATES)))

    assert sorted(result.id for result in made) == sorted(f"{prefix}-{i}" for i in range(CREATES))
    creates = [e for e in request_log(emulator) if e["path"].endswith("/scopes/create")]
    refused = [e for e in creates if e["status"] == 429]
    assert len(creates) - len(refused) == CREATES  # each made once, none twice
    # The first burst meets the limit; after that the pace holds below it.
    assert len(refused) <= CREATES // 8, f"{len(refused)} 429s for {CREATES} creates"
    limit = ratelimit.limits()[f"{emulator.base_url} secrets"]
    assert limit.learned and limit.decreases >= 1
    print(f"{len(refused)} 429s for {CREATES} creates; {limit.decreases} decreases")
