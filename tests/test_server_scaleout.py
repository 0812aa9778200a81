"""Two ``backgammon serve`` processes over one PostgreSQL database and one Redis (issue 12,
"Scale-out"; docs/CLUB-DESIGN.md, "Server processes: the bus").

Each test starts two real server processes, A and B, on two ports, against the real
PostgreSQL (a fresh schema per test, see ``pg_schema`` in tests/test_store.py) and the
real Redis (a channel prefix of the test's own, in the URL: ``redis://...?prefix=...``), then:

* a match between two people, one connected to A and one to B: both see every state (the same
  ``seq``, the same position) whichever process they are on; A is killed with SIGKILL in the
  middle, the player of A reconnects to B and the match is played to its end there, with
  nothing lost (the players' records, the stored commands and the ``/record`` download agree);
* a match against a bot created on A, its player on B: A is killed when the bot is to act and
  B takes the table over (its lease expires, B claims the due table), so the bot goes on.

Skipped with a sentence without PostgreSQL or Redis (failing instead under
``BACKGAMMON_REQUIRE_POSTGRES=1`` / ``BACKGAMMON_REQUIRE_REDIS=1``).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from backgammon.fairdice import verify_record
from backgammon.server.bus import RedisBus
from backgammon.server.store import Store
from backgammon.table import Narrator, Table
from backgammon.table import commands as cmd

from .test_server_bus import redis_base
from .test_store import pg_schema

ROOT = Path(__file__).resolve().parent.parent
#: seconds to wait for any one message
TIMEOUT = 20.0
#: seconds within which a surviving process must take over a dead one's table (lease 15 s,
#: a claim every few seconds, and a loaded test machine)
TAKEOVER = 30.0
#: commands a second a player sends at most (the server allows 20, bursts of 40)
PACE = 12.0
#: snapshot fields that depend on who is looking; every other field is the same for everybody
VIEWER_FIELDS = frozenset({"viewer", "side", "actions", "legal", "tentative"})

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# -- the database, Redis and the processes ----------------------------------------------------------


@pytest.fixture
def database() -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a fresh schema (dropped afterwards)."""
    with pg_schema("test_scale_") as url:
        yield url


@pytest.fixture
def bus_url() -> Iterator[str]:
    """The Redis URL with a channel and key prefix of this test alone (keys deleted afterwards)."""
    import redis

    base = redis_base()
    prefix = "test_scale_" + uuid.uuid4().hex[:12]
    yield f"{base}{'&' if '?' in base else '?'}prefix={prefix}"
    client = redis.Redis.from_url(base)
    keys = list(client.scan_iter(f"{prefix}:*"))
    if keys:
        client.delete(*keys)
    client.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """One ``backgammon serve --database URL --redis URL`` process; its messages go to a file."""

    def __init__(self, name: str, folder: Path, database: str, redis_url: str, bot_delay: float = 0.0) -> None:
        self.name = name
        self.port = free_port()
        self.log = folder / f"serve-{name}.log"
        env = {k: v for k, v in os.environ.items() if k != "BACKGAMMON_REDIS"}
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "backgammon.cli", "serve", "--port", str(self.port), "--database", database,
                 "--redis", redis_url, "--bot-delay", str(bot_delay)],
                stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"server {name} did not start (exit {self.process.returncode}):\n{self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise AssertionError(f"server {name} did not open its port within 60 s:\n{self.output()}")

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def kill(self) -> None:
        """SIGKILL: no shutdown, no lease released, nothing flushed."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture
def servers(tmp_path: Path, database: str, bus_url: str) -> Iterator[Callable[..., Server]]:
    """Start servers (one after the other: the first runs the migrations); all stopped at the end."""
    started: list[Server] = []

    def start(name: str, bot_delay: float = 0.0) -> Server:
        server = Server(name, tmp_path, database, bus_url, bot_delay)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    for server in started:  # a traceback in a server's log is a bug even when the test passed
        problems = [line for line in server.output().splitlines() if "Traceback" in line]
        assert not problems, f"server {server.name} logged an error:\n{server.output()}"


# -- a player --------------------------------------------------------------------------------------


class Player:
    """One person's WebSocket at a table: every ``state`` it was sent, by ``seq``, and the
    record (narration) made whole across messages and connections."""

    def __init__(self, seat: str, token: str, table_id: str) -> None:
        self.seat = seat
        self.token = token
        self.table_id = table_id
        self.ws: Any = None
        self.latest: dict[str, Any] = {}
        self.by_seq: dict[int, dict[str, Any]] = {}
        self.log: list[dict[str, str]] = []
        self.next_id = 0
        self.fresh = True
        self.sent_at = 0.0

    async def connect(self, server: Server) -> dict[str, Any]:
        """Open a connection to ``server`` and say hello; the first ``state``."""
        self.ws = await websockets.connect(f"{server.ws}/ws/tables/{self.table_id}", max_size=2**22)
        self.fresh = True  # a new connection is sent the whole record again
        await self.ws.send(json.dumps({"type": "hello", "protocol": 1, "tokens": [self.token]}))
        welcome = await self.until("welcome")
        assert welcome["seats"] == [self.seat], welcome
        return await self.until("state")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        if message.get("type") == "state":
            start, lines = message["log_start"], message["log"]
            assert start == 0 or not self.fresh, message  # the whole record on a new connection
            self.fresh = False
            if start == 0:  # the whole record (again): it still has every line seen
                assert lines[: len(self.log)] == self.log, (lines, self.log)
                self.log = list(lines)
            else:
                assert start == len(self.log), (start, len(self.log))  # no line lost or repeated
                self.log.extend(lines)
            self.latest = message
            if message["snapshots"]:
                self.by_seq[message["seq"]] = message
        elif message.get("type") == "error":
            raise AssertionError(f"{self.seat} was sent an error: {message}")
        return message

    async def until(self, kind: str, pred: Callable[[dict[str, Any]], bool] = lambda m: True,
                    timeout: float = TIMEOUT) -> dict[str, Any]:
        """The first message of type ``kind`` that ``pred`` accepts (others are kept as seen)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.seat}: no {kind} message within {timeout:g} s; "
                                     f"the last state had seq {self.latest.get('seq')}")
            try:
                message = await self.recv(left)
            except asyncio.TimeoutError:
                continue
            if message["type"] == kind and pred(message):
                return message

    async def at_least(self, seq: int, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The first state at ``seq`` or later (the latest one when already there)."""
        if self.latest.get("seq", -1) >= seq and self.latest.get("snapshots"):
            return self.latest
        return await self.until("state", lambda m: m["seq"] >= seq and bool(m["snapshots"]), timeout)

    async def command(self, command: dict[str, Any]) -> None:
        """Send ``command`` (at most :data:`PACE` a second, under the server's throttle of 20);
        it must be acknowledged."""
        wait = self.sent_at + 1 / PACE - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        self.sent_at = time.monotonic()
        self.next_id += 1
        await self.ws.send(json.dumps({"type": "command", "seat": self.seat, "id": self.next_id, "command": command}))
        while (reply := await self.recv())["type"] not in ("ack", "refused"):
            pass
        assert reply == {"type": "ack", "id": self.next_id}, reply

    @property
    def snapshot(self) -> dict[str, Any]:
        snapshot: dict[str, Any] = self.latest["snapshots"][self.seat]
        return snapshot


def choose(state: dict[str, Any], seat: str) -> dict[str, Any] | None:
    """What ``seat`` does in ``state`` (the first of the state's plays, a take, a roll...), or
    ``None`` when it has nothing to do."""
    actions = state["snapshots"][seat]["actions"]
    if "play" in actions:
        return {"type": "play", "move": state["plays"][0]["move"] if state["plays"] else "", "confirm": True}
    kind = next((a for a in ("roll", "take", "accept", "next_game") if a in actions), None)
    return None if kind is None else {"type": kind}


def public(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without what depends on the viewer (the position, dice, cube, score... as
    side 0 sees them: side 1's board is drawn from its own side)."""
    out = {k: v for k, v in snapshot.items() if k not in VIEWER_FIELDS}
    if snapshot["side"] == 1:
        board = snapshot["board"]
        out["board"] = {"points": [-p for p in reversed(board["points"])],
                        **{k: list(reversed(board[k])) for k in ("bar", "off", "pips")}}
    return out


async def play_round(players: list[Player], sent: list[tuple[str, dict[str, Any]]]) -> bool:
    """One command of whoever is to act, then both players' states at the next ``seq``
    (the same position for both); ``False`` once the match is over."""
    seq = players[0].latest["seq"]
    assert all(p.latest["seq"] == seq for p in players), [p.latest["seq"] for p in players]
    if players[0].snapshot["over"]:
        return False
    mover, command = next(((p, c) for p in players if (c := choose(p.latest, p.seat)) is not None), (None, None))
    assert mover is not None and command is not None, f"nobody can act at seq {seq}: {players[0].snapshot}"
    await mover.command(command)
    sent.append((mover.seat, command))
    states = await asyncio.gather(*(p.at_least(seq + 1) for p in players))
    assert [s["seq"] for s in states] == [seq + 1] * len(players), [s["seq"] for s in states]
    first, second = (public(s["snapshots"][p.seat]) for s, p in zip(states, players))
    assert first == second, (first, second)
    return True


def stored_commands(database: str, table_id: str) -> list[tuple[int, str | None, dict[str, Any] | None, list[Any]]]:
    store = Store(database)
    try:
        return [(e.seq, e.seat, e.command, e.events) for e in store.events(table_id)]
    finally:
        store.close()


def same_command(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return cmd.command_from_dict(a).to_dict() == cmd.command_from_dict(b).to_dict()


# -- the tests -------------------------------------------------------------------------------------


def test_a_match_across_two_processes_survives_one_being_killed(
        servers: Callable[..., Server], database: str) -> None:
    a = servers("A")
    b = servers("B")
    created = httpx.post(f"{a.http}/api/tables", json={
        "kind": "match", "length": 3, "name": "ann", "seats": [{"kind": "human"}, {"kind": "human"}]}, timeout=30)
    assert created.status_code == 200, created.text
    table_id = created.json()["table"]["id"]
    joined = httpx.post(f"{b.http}/api/tables/{table_id}/join", json={"name": "bob"}, timeout=30)
    assert joined.status_code == 200, joined.text
    assert joined.json()["seat"] == "bob" and joined.json()["table"]["status"] == "playing"

    ann = Player("ann", created.json()["token"], table_id)
    bob = Player("bob", joined.json()["token"], table_id)
    players = [ann, bob]
    sent: list[tuple[str, dict[str, Any]]] = []

    async def scenario() -> None:
        await ann.connect(a)  # A created the table, B started it: A must know
        await bob.connect(b)
        start = max(p.latest["seq"] for p in players)
        for p in players:
            await p.at_least(start)
        assert ann.latest["table"]["status"] == bob.latest["table"]["status"] == "playing"
        for _ in range(30):
            assert await play_round(players, sent), "the match ended before the kill"
        last, lines = ann.latest, list(ann.log)
        a.kill()
        await ann.close()
        state = await ann.connect(b)
        assert state["seq"] == last["seq"]  # nothing committed was lost, nothing else happened
        assert state["snapshots"] == last["snapshots"] and state["plays"] == last["plays"]
        assert ann.log == lines  # the record she had, line for line
        for _ in range(3000):
            if not await play_round(players, sent):
                break
        else:
            raise AssertionError("the match did not end in 3000 commands")
        await ann.close()
        await bob.close()

    asyncio.run(scenario())

    # the match is over for both, and both saw every state from the start to the end
    final = ann.latest
    assert final["table"]["status"] == bob.latest["table"]["status"] == "over"
    assert ann.snapshot["over"] and bob.snapshot["over"]
    assert max(ann.snapshot["score"]) >= 3
    seqs = sorted(ann.by_seq)
    assert seqs == list(range(seqs[0], final["seq"] + 1)) and sorted(bob.by_seq) == seqs
    for seq in seqs:
        assert public(ann.by_seq[seq]["snapshots"]["ann"]) == public(bob.by_seq[seq]["snapshots"]["bob"]), seq

    # the stored commands are exactly the acknowledged ones, in order, one per seq
    rows = stored_commands(database, table_id)
    assert [r[0] for r in rows] == list(range(1, final["seq"] + 1))
    by_people = [(seat, command) for _, seat, command, _ in rows if seat is not None and command is not None]
    assert len(by_people) == len(sent)
    assert all(s1 == s2 and same_command(c1, c2) for (s1, c1), (s2, c2) in zip(by_people, sent))

    # the record download (from the survivor): its log is every stored event, its dice are
    # fair, and its narration is what each player was told
    record = httpx.get(f"{b.http}/api/tables/{table_id}/record", timeout=30).json()
    assert record["log"]["events"] == [event for *_, events in rows for event in events]
    report = verify_record(record)
    assert report.ok, report.lines()
    table = Table.from_dict({k: v for k, v in record.items() if k != "fair"})
    for player in players:
        told = [line.to_dict() for line in Narrator(table, player.seat).lines(table.contest.events)]
        assert player.log == told, player.seat


def lease_holder(bus_url: str, table_id: str) -> str | None:
    """The bus id of the process that holds ``table_id``'s lease (``None``: nobody)."""
    import redis

    from backgammon.server.bus import make_bus

    bus = make_bus(bus_url)
    assert isinstance(bus, RedisBus)
    client = redis.Redis.from_url(bus.url, decode_responses=True)
    try:
        value = client.get(f"{bus.prefix}:lease:table:{table_id}")
        return None if value is None else str(value)
    finally:
        client.close()


def test_a_bot_goes_on_when_the_process_that_drove_it_is_killed(
        servers: Callable[..., Server], bus_url: str) -> None:
    # A's bot waits 1.5 s before each action, so A can be killed before it acts
    a = servers("A", bot_delay=1.5)
    b = servers("B")
    created = httpx.post(f"{a.http}/api/tables", json={
        "kind": "match", "length": 1, "name": "ann",
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]}, timeout=30)
    assert created.status_code == 200, created.text
    table_id = created.json()["table"]["id"]
    ann = Player("ann", created.json()["token"], table_id)

    async def scenario() -> float:
        await ann.connect(a)  # until the bot has acted once: A drives it, holding its lease
        driver: str | None = None
        killed_at: float | None = None
        taken_over = -1.0
        for _ in range(2000):
            state = await ann.at_least(ann.latest["seq"])
            if ann.snapshot["over"]:
                break
            command = choose(state, "ann")
            if command is None:  # the bot is to act
                await ann.until("state", lambda m: m["seq"] > state["seq"])
                if driver is None:
                    driver = lease_holder(bus_url, table_id)
                    assert driver is not None, "A's bot acted without the table's lease"
                    await ann.close()
                    await ann.connect(b)  # the player goes on from B; A still drives the bot
                continue
            await ann.command(command)
            after = await ann.at_least(state["seq"] + 1)
            if killed_at is None and command["type"] == "play" and not ann.snapshot["over"] \
                    and choose(after, "ann") is None and driver is not None \
                    and lease_holder(bus_url, table_id) == driver:
                # the bot is to act and A holds the lease (its bot waits 1.5 s): B may not act
                # until the lease runs out
                assert ann.latest["seq"] == after["seq"], "B drove the bot while A held its lease"
                a.kill()  # the bot is to act, and A (its driver so far) is gone
                killed_at = time.monotonic()
                await ann.until("state", lambda m: m["seq"] > after["seq"], TAKEOVER)
                taken_over = time.monotonic() - killed_at
                assert lease_holder(bus_url, table_id) not in (None, driver)  # B's now
        else:
            raise AssertionError("the match did not end")
        assert killed_at is not None, "the match ended before the bot was to act after a play of ann's"
        assert ann.latest["table"]["status"] == "over"
        await ann.close()
        return taken_over

    taken_over = asyncio.run(scenario())
    print(f"B took the table over {taken_over:.1f} s after A was killed")
    # not before the lease A held ran out (B may not drive the bot meanwhile), and soon after
    assert 1.0 < taken_over < TAKEOVER, taken_over
    record = httpx.get(f"{b.http}/api/tables/{table_id}/record", timeout=30).json()
    assert record["log"]["events"] and verify_record(record).ok
