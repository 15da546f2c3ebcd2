"""The sealed token cache shared by the program and the provider host of a deployment."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import responses

from providers.client.token import TokenCache
from providers.client.token_store import CACHE_DIR_ENV, SharedTokenStore
from tests.unit.client_support import (
    ACCESS_TOKEN,
    CLIENT_SECRET,
    TOKEN_URL,
    FakeClock,
    connection,
    token_body,
)

KEY = ("https://login.example", "tenant", "client", "resource")


@pytest.fixture()
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "tokens"
    monkeypatch.setenv(CACHE_DIR_ENV, str(directory))
    return directory


def test_a_saved_record_loads_with_the_same_secret_only(token_dir: Path):
    store = SharedTokenStore()
    store.save(KEY, "the-secret", {"value": "tok.en.value", "expires_on": 123.0})

    assert store.load(KEY, "the-secret") == {"value": "tok.en.value", "expires_on": 123.0}
    assert store.load(KEY, "another-secret") is None
    assert store.load(("other",) + KEY[1:], "the-secret") is None


def test_the_file_is_sealed_and_private(token_dir: Path):
    SharedTokenStore().save(KEY, "the-secret", {"value": "tok.en.value", "expires_on": 1.0})

    [path] = list(token_dir.iterdir())
    content = path.read_bytes()
    assert b"tok.en.value" not in content and b"the-secret" not in content
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(token_dir.stat().st_mode) == 0o700


def test_a_damaged_file_is_a_miss(token_dir: Path):
    store = SharedTokenStore()
    store.save(KEY, "the-secret", {"value": "v", "expires_on": 1.0})
    [path] = list(token_dir.iterdir())
    path.write_bytes(b"not a sealed record")

    assert store.load(KEY, "the-secret") is None


def test_off_keeps_nothing_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(CACHE_DIR_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    store = SharedTokenStore()
    store.save(KEY, "the-secret", {"value": "v", "expires_on": 1.0})

    assert store.load(KEY, "the-secret") is None
    assert list(tmp_path.rglob("*")) == []


def test_a_second_process_reuses_the_first_ones_token(token_dir: Path):
    # Two caches with one store stand for the program and the provider host.
    clock = FakeClock(now=10_000.0)
    program = TokenCache(clock=clock, store=SharedTokenStore())
    host = TokenCache(clock=clock, store=SharedTokenStore())
    with responses.RequestsMock() as mocked:
        call = mocked.get(TOKEN_URL, json=token_body(expires_on=clock.now + 3600, now=clock.now))
        first = program.get(connection())
        second = host.get(connection())

    assert call.call_count == 1
    assert first == second and second.value == ACCESS_TOKEN


def test_a_stored_token_near_expiry_is_fetched_anew(token_dir: Path):
    clock = FakeClock(now=10_000.0)
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("first", expires_on=clock.now + 3600, now=clock.now))
        mocked.get(
            TOKEN_URL, json=token_body("second", expires_on=clock.now + 7200, now=clock.now + 3300)
        )
        assert TokenCache(clock=clock, store=SharedTokenStore()).get(connection()).value == "first"
        clock.now += 3600 - 300
        later = TokenCache(clock=clock, store=SharedTokenStore())
        assert later.get(connection()).value == "second"
        assert len(mocked.calls) == 2


def test_invalidate_drops_the_stored_token_too(token_dir: Path):
    clock = FakeClock(now=10_000.0)
    cache = TokenCache(clock=clock, store=SharedTokenStore())
    with responses.RequestsMock() as mocked:
        expires = clock.now + 3600
        mocked.get(TOKEN_URL, json=token_body("revoked", expires_on=expires, now=clock.now))
        mocked.get(TOKEN_URL, json=token_body("fresh", expires_on=expires, now=clock.now))
        stale = cache.get(connection())
        cache.invalidate(connection(), stale=stale)
        other_process = TokenCache(clock=clock, store=SharedTokenStore())
        assert other_process.get(connection()).value == "fresh"
        assert len(mocked.calls) == 2


def test_a_rotated_secret_never_reads_the_old_record(token_dir: Path):
    clock = FakeClock(now=10_000.0)
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("old", expires_on=clock.now + 3600))
        mocked.get(TOKEN_URL, json=token_body("new", expires_on=clock.now + 3600))
        TokenCache(clock=clock, store=SharedTokenStore()).get(connection())
        rotated = connection(client_secret=CLIENT_SECRET + "-rotated")
        assert TokenCache(clock=clock, store=SharedTokenStore()).get(rotated).value == "new"
        assert len(mocked.calls) == 2
