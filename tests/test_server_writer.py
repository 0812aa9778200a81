"""The server's group commit (backgammon.server.writer): many tables' commands written in few
transactions, each table's in order, a stale write refused alone; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from backgammon.server.store import Commit, StaleWrite, Store
from backgammon.server.writer import GroupCommit

from .test_store import pg_url, record, state, url  # noqa: F401  (fixtures)


@pytest.fixture
def store(url: str) -> Iterator[Store]:  # noqa: F811
    s = Store(url)
    try:
        yield s
    finally:
        s.close()


def _commit(table_id: str, seq: int) -> Commit:
    return Commit(table_id, seq, "ann", {"type": "roll", "n": seq}, [{"type": "roll", "dice": [3, 1]}],
                  state(seq), "playing")


def test_many_tables_share_flushes_and_each_keeps_its_order(store: Store) -> None:
    tables = [f"w{i}" for i in range(40)]
    for t in tables:
        store.create(record(t, status="playing"))

    async def play(writer: GroupCommit, table_id: str) -> None:
        for seq in range(1, 6):
            await writer.commit(_commit(table_id, seq))

    async def main() -> GroupCommit:
        writer = GroupCommit(store)
        try:
            await asyncio.gather(*(play(writer, t) for t in tables))
        finally:
            writer.close()
        return writer

    writer = asyncio.run(main())
    assert writer.commits == 200
    assert writer.flushes < writer.commits  # commands of several tables shared a transaction
    for t in tables:
        loaded = store.load(t)
        assert loaded is not None and loaded.seq == 5 and loaded.state == state(5)
        assert [e.seq for e in store.events(t)] == [1, 2, 3, 4, 5]
        assert [e.command for e in store.events(t)] == [{"type": "roll", "n": n} for n in range(1, 6)]


def test_a_stale_write_is_refused_alone(store: Store) -> None:
    store.create(record("good", status="playing"))
    store.create(record("bad", status="playing"))

    async def main() -> list[BaseException | None]:
        writer = GroupCommit(store)
        try:
            results = await asyncio.gather(
                writer.commit(_commit("good", 1)),
                writer.commit(_commit("bad", 2)),  # the table is at 0: 2 cannot follow
                return_exceptions=True,
            )
        finally:
            writer.close()
        return list(results)

    results = asyncio.run(main())
    assert results[0] is None
    assert isinstance(results[1], StaleWrite) and "cannot follow" in str(results[1])
    good, bad = store.load("good"), store.load("bad")
    assert good is not None and good.seq == 1
    assert bad is not None and bad.seq == 0 and store.events("bad") == []


def test_close_writes_what_is_pending_and_refuses_later_commits(store: Store) -> None:
    store.create(record("c", status="playing"))

    async def main() -> None:
        writer = GroupCommit(store)
        await writer.commit(_commit("c", 1))
        writer.close()
        with pytest.raises(Exception, match="shutting down"):
            await writer.commit(_commit("c", 2))

    asyncio.run(main())
    loaded = store.load("c")
    assert loaded is not None and loaded.seq == 1


def test_other_writes_run_in_the_writer_in_turn_with_the_commits(store: Store) -> None:
    async def main() -> None:
        writer = GroupCommit(store)
        try:
            await writer.run(store.create, record("r", status="playing"))
            commit, chat = await asyncio.gather(
                writer.commit(_commit("r", 1)),
                writer.run(store.add_chat, "r", "ann", "hello", False),
            )
            assert commit is None and chat.text == "hello"
            with pytest.raises(Exception, match="already exists"):
                await writer.run(store.create, record("r", status="playing"))
        finally:
            writer.close()

    asyncio.run(main())
    loaded = store.load("r")
    assert loaded is not None and loaded.seq == 1
    assert [c.text for c in store.chat("r")] == ["hello"]
