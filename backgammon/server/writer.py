"""The server's one database writer: group commit.

Every accepted command must be committed before anyone is told of it. Committing each on its
own, from many worker threads at once, makes the writers queue for the database's lock and
for the disk's flush: with a few hundred tables the wait reaches seconds. :class:`GroupCommit`
instead gives the database one writer thread: a table hands it a
:class:`~backgammon.server.store.Commit` and awaits it; the thread takes every commit that
arrived while the previous flush ran and writes them in ONE transaction
(:meth:`Store.commit_many <backgammon.server.store.Store.commit_many>`), so a flush serves
all the tables that acted meanwhile, and each awaiting table resumes (or gets its own
:class:`~backgammon.server.store.StaleWrite`) once the data is on disk.

The server's other writes (a new table, seats taken, a chat line) go through the same thread
(:meth:`GroupCommit.run`), in turn with the commits, so that no two writers ever wait for
each other's lock; reads run anywhere.

A table has at most one commit in flight (its room holds its lock across the commit), so
each table's commands reach the database in order.

>>> import asyncio, datetime
>>> from backgammon.server.store import Commit, Store, TableRecord
>>> store = Store("sqlite://")
>>> now = datetime.datetime.now(datetime.timezone.utc)
>>> store.create(TableRecord("t1", "money", {}, {}, {}, 0, "playing", now, now))
>>> async def main() -> int:
...     writer = GroupCommit(store)
...     try:
...         await writer.commit(Commit("t1", 1, "ann", {"type": "roll"}, [], {"n": 1}, "playing"))
...     finally:
...         writer.close()
...     return store.load("t1").seq
>>> asyncio.run(main())
1
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from .store import Commit, Store, StoreError

T = TypeVar("T")

#: a write waiting for the thread: a command's commit or another write, its future, its loop
_Job = tuple[Commit | Callable[[], Any], "asyncio.Future[Any]", asyncio.AbstractEventLoop]

__all__ = ["GroupCommit", "MAX_BATCH"]

log = logging.getLogger("backgammon.server")

#: The most commits written in one transaction.
MAX_BATCH = 500


class GroupCommit:
    """One writer thread in front of a :class:`Store` (see the module's docstring)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: deque[_Job] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        #: transactions written and commits in them (for the load benchmark and the log)
        self.flushes = 0
        self.commits = 0

    async def commit(self, commit: Commit) -> None:
        """Write ``commit``; returns once it is in the database (raises its
        :class:`StoreError` if it was refused, e.g. a stale write)."""
        await self._queue(commit)

    async def run(self, write: Callable[..., T], *args: Any) -> T:
        """Run ``write(*args)`` (a :class:`Store` method that writes) in the writer thread,
        in turn with the commits; its result, or its exception."""
        result: T = await self._queue(lambda: write(*args))
        return result

    async def _queue(self, job: Commit | Callable[[], Any]) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        with self._cond:
            if self._closed:
                raise StoreError("the server is shutting down: nothing more is stored")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="backgammon-writer", daemon=True)
                self._thread.start()
            self._pending.append((job, future, loop))
            self._cond.notify()
        return await future

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if not self._pending:
                    return
                if not isinstance(self._pending[0][0], Commit):  # another write: on its own
                    job, future, loop = self._pending.popleft()
                    assert not isinstance(job, Commit)
                    try:
                        value = job()
                    except Exception as exc:
                        loop.call_soon_threadsafe(_settle, future, exc)
                    else:
                        loop.call_soon_threadsafe(_settle, future, None, value)
                    continue
                batch: list[_Job] = []
                while self._pending and len(batch) < MAX_BATCH and isinstance(self._pending[0][0], Commit):
                    batch.append(self._pending.popleft())
            commits = [c for c, _, _ in batch if isinstance(c, Commit)]
            try:
                results: list[BaseException | None] = list(self.store.commit_many(commits))
            except Exception as exc:  # the database itself failed: every waiting table is told
                log.error("group commit of %d commands failed: %s", len(batch), exc)
                results = [exc] * len(batch)
            self.flushes += 1
            self.commits += len(batch)
            for (_, future, loop), result in zip(batch, results):
                loop.call_soon_threadsafe(_settle, future, result)

    def close(self) -> None:
        """Write what is pending, then stop the thread (later commits are refused)."""
        with self._cond:
            self._closed = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join()


def _settle(future: asyncio.Future[Any], error: BaseException | None, value: Any = None) -> None:
    if future.done():  # the awaiting task was cancelled
        return
    if error is None:
        future.set_result(value)
    else:
        future.set_exception(error)
