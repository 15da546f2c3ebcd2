"""Property-based run over the platform's OpenAPI document: whatever schemathesis sends,
positive or negative, the answer is never a 5xx and never takes long.

The schema is built from the application at collection time (schemathesis' lazy fixture
loader does not work with pytest 9); a test checks it is the served /openapi.json.
"""

from __future__ import annotations

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings

from tests.conftest import emulator_fixture
from workspace_emulator.platform.app import openapi_document
from workspace_emulator.testing import fetch_token

MAX_EXAMPLES = 12
REQUEST_TIMEOUT = 5

schema = schemathesis.openapi.from_dict(openapi_document())


# Its own emulator: the run creates, changes and deletes things at random.
fuzzed_emulator = emulator_fixture("module")


@pytest.fixture(scope="module")
def bearer(fuzzed_emulator) -> dict[str, str]:
    return {"Authorization": f"Bearer {fetch_token(fuzzed_emulator)}"}


def test_served_document_is_the_fuzzed_one(fuzzed_emulator):
    served = requests.get(f"{fuzzed_emulator.base_url}/openapi.json", timeout=5).json()
    assert served == openapi_document()
    assert len(served["paths"]) > 30


# Some 9,000 requests, most of them the coverage phase's (some 50 per operation beside the 12
# generated ones), and a minute of CPU or more: `make test` runs it, `make check` leaves it out.
@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
def test_no_server_errors_and_no_hangs(case, fuzzed_emulator, bearer):
    response = case.call(base_url=fuzzed_emulator.base_url, headers=bearer,
                         timeout=REQUEST_TIMEOUT)
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:300]}")
    if case.method == "HEAD":
        # A HEAD answer has no body, an error's neither: the status and headers tell it.
        assert response.content == b"", (case.formatted_path, response.content[:300])
    elif response.status_code >= 400:
        body = response.json()
        assert body.get("error_code") or body.get("detail"), body

