"""Bots at the web tables think off the event loop (issue 11): while one table's bot thinks,
the other tables are served at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from backgammon.bots.randombot import RandomBot
from backgammon.bots.registry import register, unregister
from backgammon.position import LegalMoves
from backgammon.server.app import create_app

from .test_server import TWO_PEOPLE, create, hello, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

THINK = 1.5


class SlowBot(RandomBot):
    """A random bot that takes THINK seconds over each play (time.sleep releases the GIL as the
    network's compiled kernels do); ``thinking`` is set while it thinks."""

    name = "slow"
    thinking = threading.Event()

    def choose_index(self, legal: LegalMoves) -> int:
        SlowBot.thinking.set()
        try:
            time.sleep(THINK)
        finally:
            SlowBot.thinking.clear()
        return super().choose_index(legal)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    register("slow", replace=True)(SlowBot)
    try:
        with TestClient(create_app(f"sqlite:///{tmp_path}/club.sqlite3", message_rate=1000, message_burst=1000)) as c:
            yield c
    finally:
        unregister("slow")


def test_a_thinking_bot_never_stalls_another_table(client: TestClient) -> None:
    # table 1: ann against the slow bot; the bot wins the opening roll or plays after ann
    slow = create(client, {"kind": "money", "name": "ann", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "slow"}]})
    # table 2: two people at one screen
    busy = create(client, {**TWO_PEOPLE, "same_screen": True})
    with client.websocket_connect(f"/ws/tables/{slow['table']['id']}") as ws1, \
            client.websocket_connect(f"/ws/tables/{busy['table']['id']}") as ws2:
        _, state1 = hello(ws1, [slow["token"]])
        _, state2 = hello(ws2, list(busy["tokens"].values()))
        # get the slow bot thinking: ann rolls the opening, and plays if she won it
        ws1.send_json({"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}})
        until(ws1, "ack")
        state1 = until(ws1, "state")
        snap = state1["snapshots"]["ann"]
        if "play" in snap["actions"]:  # ann won the opening roll: her play, then the bot's turn
            ws1.send_json({"type": "command", "seat": "ann", "id": 2,
                           "command": {"type": "play", "move": snap["legal"][0], "confirm": True}})
        assert SlowBot.thinking.wait(10), "the slow bot never started thinking"
        # while it thinks, the other table is served: each command answered well within THINK
        started = time.monotonic()
        latencies = []
        for n in range(6):
            snaps = state2["snapshots"]
            seat, snap = next((s, v) for s, v in snaps.items() if v["actions"])
            if "roll" in snap["actions"]:
                command = {"type": "roll"}
            else:
                command = {"type": "play", "move": snap["legal"][0] if snap["legal"] else "", "confirm": True}
            t0 = time.monotonic()
            ws2.send_json({"type": "command", "seat": seat, "id": n, "command": command})
            assert until(ws2, "ack")["id"] == n
            state2 = until(ws2, "state")
            latencies.append(time.monotonic() - t0)
        assert SlowBot.thinking.is_set() or time.monotonic() - started < THINK
        assert max(latencies) < THINK / 3, latencies
