"""The bus between server processes (docs/CLUB-DESIGN.md, "Server processes: the bus").

:class:`RedisBus` is tested against the real Redis server at 127.0.0.1:6379 (or
``BACKGAMMON_TEST_REDIS``); each test uses a prefix of its own, so parallel runs never hear
each other. Without a Redis server the Redis tests are skipped with a sentence, or fail under
``BACKGAMMON_REQUIRE_REDIS=1``.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon.server.bus import RECONNECTED, BusError, LocalBus, RedisBus, make_bus

TIMEOUT = 5.0

# -- the Redis server ---------------------------------------------------------------------------

_REDIS: tuple[str | None, str] | None = None


def redis_base() -> str:
    """The URL of a reachable Redis; skips (or fails under BACKGAMMON_REQUIRE_REDIS=1) without one."""
    global _REDIS
    if _REDIS is None:
        url = os.environ.get("BACKGAMMON_TEST_REDIS", "redis://127.0.0.1:6379/0")
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=3)
            client.ping()
            client.close()
            _REDIS = (url, "")
        except (redis.exceptions.RedisError, OSError) as exc:
            _REDIS = (None, f"{url}: {exc}")
    found, why = _REDIS
    if found is None:
        message = f"no Redis server answered ({why})"
        if os.environ.get("BACKGAMMON_REQUIRE_REDIS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture
def redis_url() -> str:
    return redis_base()


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    """A channel and key prefix of this test alone; its keys are deleted afterwards."""
    name = "test_bus_" + uuid.uuid4().hex[:12]
    yield name
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(f"{name}:*"))
    if keys:
        client.delete(*keys)
    client.close()


class Inbox:
    """A handler that keeps every message it is given, in order."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.seen.append(message)
        await self.queue.put(message)

    async def next(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        return await asyncio.wait_for(self.queue.get(), timeout)

    async def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = await self.next(max(0.01, deadline - time.monotonic()))
            if pred(message):
                return message


def run(coroutine: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(coroutine(), 60))


async def started(url: str, prefix: str) -> tuple[RedisBus, Inbox]:
    bus = RedisBus(url, prefix)
    inbox = Inbox()
    await bus.start(inbox)
    return bus, inbox


# -- messages -----------------------------------------------------------------------------------


def test_two_buses_exchange_messages_and_nobody_hears_their_own(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a, a_in = await started(redis_url, prefix)
        b, b_in = await started(redis_url, prefix)
        try:
            assert a.id != b.id
            await a.publish({"type": "table", "table": "abc", "seq": 7})
            assert await b_in.next() == {"type": "table", "table": "abc", "seq": 7, "origin": a.id}
            # b's reply reaches a after a's own message would have: a never got its own
            await b.publish({"type": "lobby"})
            assert await a_in.next() == {"type": "lobby", "origin": b.id}
            assert a_in.seen == [{"type": "lobby", "origin": b.id}]
            assert b_in.seen == [{"type": "table", "table": "abc", "seq": 7, "origin": a.id}]
        finally:
            await a.close()
            await b.close()

    run(scenario)


def test_messages_arrive_in_the_order_they_were_published(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a, _ = await started(redis_url, prefix)
        b, b_in = await started(redis_url, prefix)
        try:
            for seq in range(1, 101):
                await a.publish({"type": "table", "table": "t", "seq": seq})
            got = [(await b_in.next())["seq"] for _ in range(100)]
            assert got == list(range(1, 101))
        finally:
            await a.close()
            await b.close()

    run(scenario)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.dictionaries(st.text(max_size=8).filter(lambda k: k != "origin"), json_values, max_size=5),
                min_size=1, max_size=8))
def test_any_json_object_crosses_the_bus_unchanged(redis_url: str, prefix: str, messages: list[dict[str, Any]]) -> None:
    async def scenario() -> None:
        a, _ = await started(redis_url, prefix)
        b, b_in = await started(redis_url, prefix)
        try:
            for message in messages:
                await a.publish(message)
            for message in messages:
                assert await b_in.next() == {**message, "origin": a.id}
        finally:
            await a.close()
            await b.close()

    run(scenario)


def test_separate_prefixes_never_hear_each_other(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        club1 = [await started(redis_url, prefix + "_1") for _ in range(2)]
        club2 = [await started(redis_url, prefix + "_2") for _ in range(2)]
        try:
            (a, _), (_, b_in) = club1
            (c, c_in), (d, _) = club2
            await a.publish({"type": "lobby", "club": 1})
            assert (await b_in.next())["club"] == 1
            await d.publish({"type": "lobby", "club": 2})  # published after club 1's message
            assert (await c_in.next())["club"] == 2
            assert [m["club"] for m in c_in.seen] == [2] and [m["club"] for m in b_in.seen] == [1]
            # the same lease key is a different lease under each prefix
            assert await a.lease("table:x", 5) and await c.lease("table:x", 5)
        finally:
            for bus, _ in club1 + club2:
                await bus.close()

    run(scenario)


def test_a_prefix_can_be_chosen_in_the_url(redis_url: str, prefix: str) -> None:
    separator = "&" if "?" in redis_url else "?"
    bus = make_bus(f"{redis_url}{separator}prefix={prefix}")
    assert isinstance(bus, RedisBus) and (bus.channel, bus.prefix) == (prefix, prefix)
    assert "prefix=" not in bus.url

    async def scenario() -> None:
        other, other_in = await started(redis_url, prefix)
        try:
            await bus.start(Inbox())
            await bus.publish({"type": "lobby"})
            assert await other_in.next() == {"type": "lobby", "origin": bus.id}
        finally:
            await bus.close()
            await other.close()

    run(scenario)


def test_a_failing_handler_or_a_bad_message_does_not_stop_the_listener(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        inbox = Inbox()

        async def handler(message: dict[str, Any]) -> None:
            if message.get("boom"):
                raise RuntimeError("a bug in the handler")
            await inbox(message)

        a, _ = await started(redis_url, prefix)
        b = RedisBus(redis_url, prefix)
        await b.start(handler)
        raw = redis.asyncio.Redis.from_url(redis_url)
        try:
            await a.publish({"type": "x", "boom": True})
            await raw.publish(prefix, b"not json {")
            await raw.publish(prefix, b"[1, 2]")
            await a.publish({"type": "after"})
            assert await inbox.next() == {"type": "after", "origin": a.id}
            assert inbox.seen == [{"type": "after", "origin": a.id}]
        finally:
            await raw.aclose()
            await a.close()
            await b.close()

    run(scenario)


def _kill_subscriber(redis_url: str, bus: RedisBus) -> int:
    """Close ``bus``'s pub/sub connection from the Redis side (as a Redis restart would)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        killed = 0
        for entry in client.client_list():
            if entry.get("name") == bus.client_name and int(entry.get("sub", 0)) > 0:
                client.client_kill_filter(_id=entry["id"])
                killed += 1
        return killed
    finally:
        client.close()


def test_the_listener_reconnects_after_the_connection_drops(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a, _ = await started(redis_url, prefix)
        b, b_in = await started(redis_url, prefix)
        try:
            await a.publish({"type": "before"})
            assert (await b_in.next())["type"] == "before"
            assert _kill_subscriber(redis_url, b) == 1
            notice = await b_in.next(10)
            assert notice == {"type": RECONNECTED, "origin": b.id}  # messages may have been lost
            await a.publish({"type": "after"})
            assert await b_in.next() == {"type": "after", "origin": a.id}
            assert b._listener is not None and not b._listener.done()
        finally:
            await a.close()
            await b.close()

    run(scenario)


# -- leases -------------------------------------------------------------------------------------


def test_a_lease_is_held_by_one_process_at_a_time(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a, b = RedisBus(redis_url, prefix), RedisBus(redis_url, prefix)
        try:
            assert await a.lease("table:abc", 5)
            assert not await b.lease("table:abc", 5)
            assert await a.lease("table:abc", 5)  # the holder renews
            assert await a.holder("table:abc") == a.id
            assert await b.lease("table:other", 5)  # another key is another lease
        finally:
            await a.close()
            await b.close()

    run(scenario)


def test_of_many_racing_for_a_lease_exactly_one_wins(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        buses = [RedisBus(redis_url, prefix) for _ in range(12)]
        try:
            won = await asyncio.gather(*(bus.lease("table:race", 5) for bus in buses))
            assert sum(won) == 1
            winner = buses[won.index(True)]
            assert await buses[0].holder("table:race") == winner.id
        finally:
            for bus in buses:
                await bus.close()

    run(scenario)


def test_a_lease_expires_unless_renewed(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a, b = RedisBus(redis_url, prefix), RedisBus(redis_url, prefix)
        try:
            assert await a.lease("table:e", 0.5)
            assert not await b.lease("table:e", 0.5)
            await asyncio.sleep(0.8)
            assert await a.holder("table:e") is None
            assert await b.lease("table:e", 5)  # a's lease ran out: b takes it
            assert not await a.lease("table:e", 5)  # and a cannot renew what it lost
        finally:
            await a.close()
            await b.close()

    run(scenario)


def test_renewing_a_lease_extends_it_from_now(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a, b = RedisBus(redis_url, prefix), RedisBus(redis_url, prefix)
        raw = redis.asyncio.Redis.from_url(redis_url)
        try:
            assert await a.lease("table:r", 1.0)
            for _ in range(4):  # 4 x 0.5 s: well past the first 1 s
                await asyncio.sleep(0.5)
                assert await a.lease("table:r", 1.0)
                assert not await b.lease("table:r", 1.0)
            ttl = await raw.pttl(f"{prefix}:lease:table:r")
            assert 500 < ttl <= 1000
            await asyncio.sleep(1.3)
            assert await b.lease("table:r", 1.0)
        finally:
            await raw.aclose()
            await a.close()
            await b.close()

    run(scenario)


def test_only_the_holder_releases_a_lease(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a, b = RedisBus(redis_url, prefix), RedisBus(redis_url, prefix)
        try:
            assert await a.lease("table:rel", 30)
            await b.release("table:rel")  # not b's: nothing happens
            assert await a.holder("table:rel") == a.id
            assert not await b.lease("table:rel", 30)
            await a.release("table:rel")
            assert await a.holder("table:rel") is None
            assert await b.lease("table:rel", 30)  # free at once, long before 30 s
            await a.release("table:rel")  # a released it already: b keeps it
            assert await a.holder("table:rel") == b.id
        finally:
            await a.close()
            await b.close()

    run(scenario)


def test_closing_a_bus_releases_its_leases(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a, _ = await started(redis_url, prefix)
        b = RedisBus(redis_url, prefix)
        try:
            assert await a.lease("table:1", 30) and await a.lease("table:2", 30)
            assert await b.lease("table:3", 30)
            await a.close()
            assert a._listener is None
            assert await b.lease("table:1", 30) and await b.lease("table:2", 30)
            assert await b.holder("table:3") == b.id
        finally:
            await b.close()

    run(scenario)


def test_a_lease_lasts_a_positive_time(redis_url: str, prefix: str) -> None:
    async def scenario() -> None:
        a = RedisBus(redis_url, prefix)
        try:
            for ttl in (0, -1, float("nan"), float("inf")):
                with pytest.raises(ValueError, match="positive number of seconds"):
                    await a.lease("table:t", ttl)
        finally:
            await a.close()

    run(scenario)


# -- without Redis --------------------------------------------------------------------------------


def test_an_unreachable_redis_at_start_is_a_sentence() -> None:
    async def scenario() -> None:
        bus = RedisBus("redis://127.0.0.1:1/0", "test_bus_nowhere", connect_timeout=1.0)
        with pytest.raises(BusError, match=r"redis://127.0.0.1:1/0 did not answer within 1 s: start it"):
            await bus.start(Inbox())
        assert bus._listener is None

    run(scenario)


def test_without_redis_leases_are_refused_and_publishing_is_dropped() -> None:
    async def scenario() -> None:
        bus = RedisBus("redis://127.0.0.1:1/0", "test_bus_nowhere")
        try:
            assert not await bus.lease("table:x", 5)  # nobody can prove a lease
            await bus.publish({"type": "lobby"})  # logged, not raised
            await bus.release("table:x")
        finally:
            await bus.close()

    run(scenario)


@pytest.mark.parametrize(("url", "words"), [
    ("http://127.0.0.1:6379", "is not a Redis URL"),
    ("postgresql://postgres@127.0.0.1/test", "is not a Redis URL"),
    ("redis://127.0.0.1:6379/notanumber", "is not understood: after the host comes a database number"),
    ("redis://127.0.0.1:6379/0?socket_timeout=soon", "is not understood"),
])
def test_a_bad_bus_url_is_a_sentence(url: str, words: str) -> None:
    with pytest.raises(BusError, match=words):
        make_bus(url)


def test_a_password_never_shows_in_a_message() -> None:
    with pytest.raises(BusError) as caught:
        make_bus("http://:hunter2@cache:6379")
    assert "hunter2" not in str(caught.value)


# -- one process ---------------------------------------------------------------------------------


def test_a_local_bus_hears_nothing_and_owns_every_lease() -> None:
    async def scenario() -> None:
        inbox = Inbox()
        first, second = make_bus(None), make_bus(None)
        assert isinstance(first, LocalBus) and isinstance(second, LocalBus) and first.id != second.id
        await first.start(inbox)
        await first.publish({"type": "table", "table": "t", "seq": 1})
        await second.publish({"type": "table", "table": "t", "seq": 2})  # another process's bus, alone too
        await asyncio.sleep(0.05)
        assert inbox.seen == []
        # each process on its own holds every lease: nobody shares its tables
        assert await first.lease("table:t", 0.001) and await second.lease("table:t", 15)
        await asyncio.sleep(0.01)
        assert await first.lease("table:t", 15)
        await first.release("table:t")
        assert await first.lease("table:t", 15)
        with pytest.raises(ValueError, match="positive"):
            await first.lease("table:t", 0)
        await first.close()
        await second.close()

    run(scenario)
