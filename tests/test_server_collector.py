"""The server's garbage-collector schedule (backgammon.server.collector): it freezes, yet
cyclic garbage is reclaimed at the periodic full pass, and stopping gives gc its settings back."""

from __future__ import annotations

import gc
import time
import weakref

from backgammon.server.collector import Collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_frozen_cyclic_garbage_is_reclaimed_by_the_full_pass() -> None:
    before = gc.get_threshold()
    c = Collector(freeze_every=0.02, full_every=0.2)
    c.start()
    try:
        assert gc.get_threshold() == (20_000, 50, 50)
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the collector frees it
        probe = weakref.ref(a)
        deadline = time.monotonic() + 2
        while c.freezes < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert c.freezes >= 2 and gc.get_freeze_count() > 0  # the cycle is frozen by now
        del a, b
        gc.collect()
        assert probe() is not None  # frozen: a collection does not see it
        while (probe() is not None or c.full_collections < 1) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert probe() is None and c.full_collections >= 1  # the full pass reclaimed it
    finally:
        c.stop()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
