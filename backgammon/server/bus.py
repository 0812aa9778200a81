"""Messages between the server processes of one club, and leases (docs/CLUB-DESIGN.md, "Server
processes: the bus").

Several ``backgammon serve`` processes may share one database; the bus tells the others what
one of them did (a table committed, a chat line, the lobby changed, a kick or a ban) and hands
out *leases*: a key (``table:<id>``) that at most one process holds at a time, for a few
seconds unless renewed, so exactly one process drives a table's bots and clocks, and another
takes over within seconds when the holder dies.

* :class:`LocalBus`: one process on its own. Publishing goes nowhere and every lease is ours.
* :class:`RedisBus`: a Redis server (``redis://...``). Every process subscribes to one pub/sub
  channel (``"backgammon"``, or another *prefix*, so that separate clubs or parallel test runs
  sharing one Redis never hear each other); a lease is ``SET key id NX PX ttl`` (renewed with
  ``PEXPIRE`` while the value is this process's id), released only by its holder.
* :func:`make_bus` chooses one from ``backgammon serve --redis URL``.

>>> import asyncio
>>> async def demo() -> list[object]:
...     bus = make_bus(None)
...     await bus.start(lambda message: asyncio.sleep(0))
...     await bus.publish({"type": "lobby"})          # nobody else to tell
...     taken = await bus.lease("table:abc", 15.0)
...     await bus.release("table:abc")
...     await bus.close()
...     return [type(bus).__name__, taken]
>>> asyncio.run(demo())
['LocalBus', True]
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import BackgammonError

__all__ = [
    "DEFAULT_PREFIX",
    "Bus",
    "BusError",
    "Handler",
    "LocalBus",
    "RECONNECTED",
    "RedisBus",
    "make_bus",
]

log = logging.getLogger(__name__)

#: What is done with every message of another process (awaited one at a time, in order).
Handler = Callable[[dict[str, Any]], Awaitable[None]]

#: The pub/sub channel, and the start of every lease's key, unless another prefix is chosen.
DEFAULT_PREFIX = "backgammon"

#: The ``type`` of the message a :class:`RedisBus` hands its own handler after the connection
#: to Redis came back: messages of the outage were lost, so the process should reload what it
#: holds. (Never published; ``origin`` is this bus's id.)
RECONNECTED = "reconnected"

#: Take the lease when free, renew it when ours: 1 when held afterwards, 0 when another holds it.
_LEASE = """
local holder = redis.call('GET', KEYS[1])
if holder == false then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 1
end
if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return 1
end
return 0
"""

#: Delete the lease only when ours.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class BusError(BackgammonError):
    """The bus cannot be set up: a URL it does not understand, or a Redis server that does not
    answer at start (the sentence says which and what to check)."""


def _new_id() -> str:
    return secrets.token_hex(8)


def _milliseconds(ttl: float) -> int:
    if not math.isfinite(ttl) or ttl <= 0:
        raise ValueError(f"a lease lasts a positive number of seconds, not {ttl!r}")
    return max(1, round(ttl * 1000))


class Bus(abc.ABC):
    """What the club needs of its fellow processes: messages to all of them, and leases."""

    #: this process's id on the bus (random; the value of the leases it holds)
    id: str

    @abc.abstractmethod
    async def start(self, handler: Handler) -> None:
        """From now on ``handler`` is awaited with every message another process publishes."""

    @abc.abstractmethod
    async def publish(self, message: dict[str, Any]) -> None:
        """Send ``message`` (a JSON object) to every other process (not to this one)."""

    @abc.abstractmethod
    async def lease(self, key: str, ttl: float) -> bool:
        """Take ``key`` for ``ttl`` seconds, or renew it for ``ttl`` seconds from now when this
        process holds it already; ``False`` when another process holds it."""

    @abc.abstractmethod
    async def release(self, key: str) -> None:
        """Give ``key`` up, if this process holds it (another's lease is left alone)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Stop listening and give up every lease held."""


class LocalBus(Bus):
    """The bus of a process on its own: nobody else hears a message, and every lease is ours.

    >>> async def demo() -> tuple[bool, bool, list[dict[str, object]]]:
    ...     heard: list[dict[str, object]] = []
    ...     async def handler(message: dict[str, object]) -> None:
    ...         heard.append(message)
    ...     bus = LocalBus()
    ...     await bus.start(handler)
    ...     await bus.publish({"type": "table", "table": "abc", "seq": 3})
    ...     first = await bus.lease("table:abc", 0.001)
    ...     again = await bus.lease("table:abc", 15.0)     # renewing is taking again
    ...     await bus.close()
    ...     return first, again, heard
    >>> asyncio.run(demo())                                 # not even this process hears it
    (True, True, [])
    >>> len(LocalBus().id), LocalBus().id != LocalBus().id
    (16, True)
    """

    def __init__(self) -> None:
        self.id = _new_id()
        self._handler: Handler | None = None

    async def start(self, handler: Handler) -> None:
        """Keep ``handler`` (no other process will ever call it)."""
        self._handler = handler

    async def publish(self, message: dict[str, Any]) -> None:
        """Nothing: there is no other process.

        >>> asyncio.run(LocalBus().publish({"type": "lobby"})) is None
        True
        """

    async def lease(self, key: str, ttl: float) -> bool:
        """``True``: nobody else could hold ``key``. ``ttl`` must be positive seconds.

        >>> asyncio.run(LocalBus().lease("table:abc", 0))
        Traceback (most recent call last):
        ...
        ValueError: a lease lasts a positive number of seconds, not 0
        """
        _milliseconds(ttl)
        return True

    async def release(self, key: str) -> None:
        """Nothing to give up."""

    async def close(self) -> None:
        """Forget the handler."""
        self._handler = None


class RedisBus(Bus):
    """Processes that share a Redis server: one pub/sub channel (``prefix``), JSON messages
    with ``"origin"`` (the publisher's :attr:`id`; a process ignores its own), and leases as
    keys ``<prefix>:lease:<key>`` whose value is the holder's id.

    When the connection to Redis drops, the listener logs it and reconnects with backoff
    (0.1 s doubling to 5 s), never stopping the server; after it is back, the handler gets
    ``{"type": "reconnected"}`` (:data:`RECONNECTED`): what was published meanwhile is lost.
    While Redis is away :meth:`publish` drops its message (logged), :meth:`lease` answers
    ``False`` (nobody can prove a lease; the database's sequence numbers still order every
    commit) and :meth:`release` leaves the key to expire.
    """

    def __init__(self, url: str, prefix: str = DEFAULT_PREFIX, *, connect_timeout: float = 10.0) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        if not prefix or any(c.isspace() for c in prefix):
            raise BusError(f"a bus prefix is a word without spaces, not {prefix!r}")
        self.id = _new_id()
        self.url = url
        self.prefix = prefix
        self.channel = prefix
        self.connect_timeout = connect_timeout
        #: the name of this process's connections in Redis's ``CLIENT LIST``
        self.client_name = f"{prefix}-{self.id}"
        options: dict[str, Any] = {"client_name": self.client_name, "socket_connect_timeout": 5,
                                   "socket_keepalive": True, "health_check_interval": 15,
                                   "decode_responses": True}
        try:
            # commands retry on a fresh connection (a pooled one may be stale); the subscriber
            # does not, so that the listener sees every drop (and says "reconnected")
            self._redis = aioredis.Redis.from_url(url, **options)
            self._sub = aioredis.Redis.from_url(url, retry=Retry(NoBackoff(), 0), **options)
        except ValueError as exc:
            raise BusError(f"the Redis URL {_safe(url)!r} is not understood ({exc}); "
                           "write it like redis://127.0.0.1:6379/0") from None
        self._lease_script = self._redis.register_script(_LEASE)
        self._release_script = self._redis.register_script(_RELEASE)
        self._handler: Handler | None = None
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._held: set[str] = set()
        self._redis_away = False

    def _key(self, key: str) -> str:
        return f"{self.prefix}:lease:{key}"

    # -- messages ----------------------------------------------------------------------------

    async def start(self, handler: Handler) -> None:
        """Subscribe, and return once the subscription is in place (so nothing published
        after this returns is missed). :class:`BusError` when Redis did not answer within
        ``connect_timeout`` seconds; once started, losing Redis is only logged."""
        if self._listener is not None:
            raise RuntimeError("this bus is started already")
        self._handler = handler
        self._listener = asyncio.get_running_loop().create_task(self._listen(), name=f"bus {self.id}")
        waiter = asyncio.ensure_future(self._subscribed.wait())
        done, _ = await asyncio.wait({waiter, self._listener}, timeout=self.connect_timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if waiter in done:
            return
        waiter.cancel()
        await self.close()
        raise BusError(f"the Redis server at {_safe(self.url)} did not answer within {self.connect_timeout:g} s: "
                       "start it (or correct --redis / BACKGAMMON_REDIS), then start the server again")

    async def _listen(self) -> None:
        """Receive messages for ever; reconnect with backoff when the connection drops."""
        import redis.exceptions

        delay = 0.1
        first = True
        while True:
            pubsub = self._sub.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                if not first:
                    log.warning("bus: connected to Redis again (%s)", _safe(self.url))
                    await self._deliver({"type": RECONNECTED, "origin": self.id})
                first = False
                delay = 0.1
                self._subscribed.set()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        await self._received(message.get("data"))
            except asyncio.CancelledError:
                raise
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
                log.warning("bus: the connection to Redis at %s failed (%s); trying again in %.1f s",
                            _safe(self.url), exc, delay)
            except Exception:  # a bug must not stop the messages of the other processes
                log.exception("bus: the listener failed; starting it again in %.1f s", delay)
            finally:
                with contextlib.suppress(Exception):
                    # aclose is untyped in some redis-py releases and typed in later ones
                    close = cast(Callable[[], Awaitable[None]], pubsub.aclose)
                    await asyncio.shield(close())
            await asyncio.sleep(delay)
            delay = min(5.0, delay * 2)

    async def _received(self, data: Any) -> None:
        try:
            message = json.loads(data)
        except (TypeError, ValueError):
            log.warning("bus: a message that is not JSON was ignored: %.200r", data)
            return
        if not isinstance(message, dict):
            log.warning("bus: a message that is not a JSON object was ignored: %.200r", data)
            return
        if message.get("origin") == self.id:
            return
        await self._deliver(message)

    async def _deliver(self, message: dict[str, Any]) -> None:
        handler = self._handler
        if handler is None:
            return
        try:
            await handler(message)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bus: handling %.200r failed", message)

    async def publish(self, message: dict[str, Any]) -> None:
        """Send ``message`` plus ``"origin"`` to every other process; dropped (logged) when
        Redis is away."""
        import redis.exceptions

        data = json.dumps({**message, "origin": self.id}, separators=(",", ":"))
        try:
            await self._redis.publish(self.channel, data)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
            log.warning("bus: a %s message was not published, Redis is away (%s)", message.get("type"), exc)

    # -- leases ------------------------------------------------------------------------------

    async def lease(self, key: str, ttl: float) -> bool:
        """Take or renew ``key`` for ``ttl`` seconds (one atomic script); ``False`` when
        another process holds it, or when Redis is away."""
        import redis.exceptions

        ms = _milliseconds(ttl)
        try:
            held = bool(await self._lease_script(keys=[self._key(key)], args=[self.id, ms]))
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
            if not self._redis_away:
                log.warning("bus: no lease can be taken while Redis is away (%s)", exc)
            self._redis_away = True
            self._held.discard(key)
            return False
        if self._redis_away:
            log.warning("bus: Redis answers leases again")
            self._redis_away = False
        if held:
            self._held.add(key)
        else:
            self._held.discard(key)
        return held

    async def release(self, key: str) -> None:
        """Delete ``key`` if this process holds it (one atomic script); when Redis is away it
        is left to expire."""
        import redis.exceptions

        self._held.discard(key)
        try:
            await self._release_script(keys=[self._key(key)], args=[self.id])
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
            log.warning("bus: the lease %s was not released, Redis is away; it expires by itself (%s)", key, exc)

    async def holder(self, key: str) -> str | None:
        """The id of the process holding ``key`` (``None``: free). For tests and diagnostics."""
        value = await self._redis.get(self._key(key))
        return None if value is None else str(value)

    async def close(self) -> None:
        """Stop the listener, release the leases still held (so another process takes the
        tables over at once) and close the connections."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await listener
        self._handler = None
        for key in list(self._held):
            await self.release(key)
        for client in (self._redis, self._sub):
            with contextlib.suppress(Exception):
                await client.aclose()


def _safe(url: str) -> str:
    """``url`` without its password (for messages and the log).

    >>> _safe("redis://:secret@cache:6379/2")
    'redis://***@cache:6379/2'
    >>> _safe("redis://127.0.0.1:6379")
    'redis://127.0.0.1:6379'
    """
    parts = urlsplit(url)
    if parts.password is None and parts.username is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"***@{host}"))


def make_bus(url: str | None, prefix: str | None = None) -> Bus:
    """The bus of ``backgammon serve --redis URL``: a :class:`RedisBus` for ``redis://``,
    ``rediss://`` (TLS) or ``unix://`` URLs, a :class:`LocalBus` for none. The channel's prefix
    is ``prefix``, else the URL's ``prefix`` query parameter (``redis://host/0?prefix=club2``),
    else ``"backgammon"``.

    >>> type(make_bus(None)).__name__, type(make_bus("")).__name__
    ('LocalBus', 'LocalBus')
    >>> bus = make_bus("redis://127.0.0.1:6379/0?prefix=club2")
    >>> type(bus).__name__, bus.channel
    ('RedisBus', 'club2')
    >>> make_bus("http://127.0.0.1:6379")
    Traceback (most recent call last):
    ...
    backgammon.server.bus.BusError: the bus URL 'http://127.0.0.1:6379' is not a Redis URL: write redis://HOST:6379/0 (or rediss:// for TLS, unix:///path/redis.sock)
    """
    if not url:
        return LocalBus()
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix"):
        raise BusError(f"the bus URL {_safe(url)!r} is not a Redis URL: write redis://HOST:6379/0 "
                       "(or rediss:// for TLS, unix:///path/redis.sock)")
    if parts.scheme != "unix" and parts.path.strip("/") and not parts.path.strip("/").isdigit():
        raise BusError(f"the Redis URL {_safe(url)!r} is not understood: after the host comes a "
                       f"database number (redis://HOST:6379/0), not {parts.path!r}")
    query = parse_qsl(parts.query, keep_blank_values=True)
    in_url = [value for name, value in query if name == "prefix"]
    rest = urlencode([(name, value) for name, value in query if name != "prefix"])
    chosen = prefix or (in_url[-1] if in_url else DEFAULT_PREFIX)
    return RedisBus(urlunsplit(parts._replace(query=rest)), chosen)
