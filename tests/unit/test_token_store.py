"""The sealed token cache shared by the program and the provider host of a deployment."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import responses

from providers.client.token import TokenCache
from providers.client.token_store import CACHE_DIR_ENV, SUBDIRECTORY, SharedTokenStore
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
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "tokens"))
    return tmp_path / "tokens" / SUBDIRECTORY


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


def test_a_shared_directory_is_left_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """WORKSPACE_TOKEN_CACHE_DIR may name a directory that holds other things (issue 41,
    L17): the store keeps a subdirectory of its own there, and saving, loading, pruning and
    clearing change nothing else: no mode, no file, however old or however named."""
    import os
    import time

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    old = time.time() - 10 * 24 * 3600
    others = {
        "notes.txt": 0o644,
        f"{'a' * 64}.token": 0o644,  # the store's former file name, someone else's now
        ".token-leftover": 0o644,
        "workspace-iac-tokens.bak": 0o664,
    }
    for name, mode in others.items():
        (shared / name).write_text(name)
        (shared / name).chmod(mode)
        os.utime(shared / name, (old, old))
    monkeypatch.setenv(CACHE_DIR_ENV, str(shared))

    store = SharedTokenStore()
    store.save(KEY, "the-secret", {"value": "v", "expires_on": 1.0})
    assert store.load(KEY, "the-secret") == {"value": "v", "expires_on": 1.0}
    store.save(("other",) + KEY[1:], "the-secret", {"value": "w", "expires_on": 1.0})
    store.clear()

    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert {p.name for p in shared.iterdir()} == {*others, SUBDIRECTORY}
    for name, mode in others.items():
        path = shared / name
        assert (stat.S_IMODE(path.stat().st_mode), path.read_text()) == (mode, name)
        assert path.stat().st_mtime == pytest.approx(old)
    assert stat.S_IMODE((shared / SUBDIRECTORY).stat().st_mode) == 0o700


def test_only_the_stores_own_names_are_pruned_in_its_subdirectory(token_dir: Path):
    import os
    import time

    token_dir.mkdir(parents=True)
    old = time.time() - 10 * 24 * 3600
    foreign = token_dir / "readme.token.txt"
    foreign.write_text("not the store's")
    foreign.chmod(0o644)
    stale = token_dir / f"workspace-iac-{'d' * 64}.token"
    stale.write_bytes(b"sealed")
    for path in (foreign, stale):
        os.utime(path, (old, old))

    SharedTokenStore().save(KEY, "the-secret", {"value": "v", "expires_on": 1.0})

    assert foreign.exists() and stat.S_IMODE(foreign.stat().st_mode) == 0o644
    assert not stale.exists()
