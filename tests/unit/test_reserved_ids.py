"""Ids reserved a block at a time: sequential within a run, never handed out twice (not
after a restart, a rolled-back reservation, or by a counter that counts one at a time),
starting again once the counters are emptied (a reset)."""

from __future__ import annotations

import pytest

from workspace_emulator.storage import Database, ReservedIds

START, BLOCK = 1000, 4


@pytest.fixture
def db(tmp_path):
    on_disk = Database(tmp_path / "workspace.sqlite3")
    yield on_disk
    on_disk.close()


def create(db: Database, ids: ReservedIds, fail: bool = False) -> int:
    with db.write() as conn:
        value = ids.take(conn)
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, 'x')", (f"id{value}",))
        if fail:
            raise RuntimeError("rolled back")
    ids.taken(value)
    return value


def counter(db: Database) -> int | None:
    with db.read() as conn:
        row = conn.execute("SELECT value FROM counters WHERE name = 'ids'").fetchone()
    return None if row is None else row["value"]


def test_ids_are_sequential_and_the_counter_is_written_once_per_block(db):
    ids = ReservedIds(db, "ids", START, BLOCK)
    assert [create(db, ids) for _ in range(BLOCK)] == list(range(START, START + BLOCK))
    assert counter(db) == START + BLOCK - 1
    assert create(db, ids) == START + BLOCK
    assert counter(db) == START + 2 * BLOCK - 1


def test_a_restart_skips_the_rest_of_the_block(db):
    create(db, ReservedIds(db, "ids", START, BLOCK))
    assert create(db, ReservedIds(db, "ids", START, BLOCK)) == START + BLOCK


def test_a_counter_that_counts_one_at_a_time_continues_above_every_id_handed_out(db):
    ids = ReservedIds(db, "ids", START, BLOCK)
    handed_out = [create(db, ids) for _ in range(2)]
    with db.write() as conn:
        assert db.next_value(conn, "ids", START) > max(handed_out)


def test_a_rolled_back_reservation_is_not_used(db):
    ids = ReservedIds(db, "ids", START, BLOCK)
    for _ in range(BLOCK):
        create(db, ids)
    with pytest.raises(RuntimeError):
        create(db, ids, fail=True)  # its block (the second) is rolled back with it
    later = create(db, ids)
    assert later == START + BLOCK  # the second block, reserved again
    assert counter(db) == START + 2 * BLOCK - 1
    assert create(db, ReservedIds(db, "ids", START, BLOCK)) > later


def test_a_rolled_back_id_of_a_block_is_handed_out_again(db):
    ids = ReservedIds(db, "ids", START, BLOCK)
    first = create(db, ids)
    with pytest.raises(RuntimeError):
        create(db, ids, fail=True)
    assert create(db, ids) == first + 1


def test_emptied_counters_start_the_ids_again(db):
    ids = ReservedIds(db, "ids", START, BLOCK)
    create(db, ids)
    create(db, ids)
    with db.write() as conn:
        conn.execute("DELETE FROM counters")
    assert create(db, ids) == START


def test_another_counter_changing_keeps_the_ids_unique(db):
    ids = ReservedIds(db, "ids", START, BLOCK)
    first = create(db, ids)
    with db.write() as conn:
        db.next_value(conn, "other", 1)
    assert create(db, ids) > first
