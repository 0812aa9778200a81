"""Load: bots as WebSocket clients play concurrent games against one ``backgammon serve``.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/load.py                       # 100, 500, 1000 games
    PYTHONPATH=. .venv/bin/python benchmarks/load.py --games 100 --seconds 10
    PYTHONPATH=. .venv/bin/python benchmarks/load.py --database postgresql://postgres@127.0.0.1/test

The server runs as a separate process on loopback (a fresh SQLite file under a temporary
folder unless ``--database`` is given), exactly as ``backgammon serve`` starts it. This process
plays the clients: each simulated game creates a one-point match for two people at one screen
(``same_screen``: one connection holds both seats), connects to ``/ws/tables/{id}``, and plays it
to the end like a quick person: it waits ``--think`` seconds (uniformly 0.5×–1.5×) before
each command, rolls, picks a random legal play, answers every double with a take, starts the
next game, and opens a new table when the match is over. Every command's latency is the time
from sending it to receiving the ``state`` broadcast that carries its result (or the
``refused`` answer).

For each level (concurrent games) the run ramps the clients up, measures for ``--seconds``,
and prints: games per second (the commands per second over the mean number of commands of
such a game, measured in the reference run: at a person's pace a game lasts minutes, longer
than the window), commands per second, and the p50 / p99 / max latency.
The reference measured in the same run is the table layer alone: the same random games played
in this process through :class:`backgammon.table.Table` (no network, no database, no JSON),
as commands per second; the ratio says what the server costs per command.

Two processes (docs/DEPLOY.md)::

    PYTHONPATH=. .venv/bin/python benchmarks/load.py --processes 2 \
        --database postgresql://postgres@127.0.0.1/test --redis redis://127.0.0.1:6379/0

measures each level twice in the same run, one process and then two (``backgammon serve
--redis``, both over the PostgreSQL database), and prints them side by side. Each table is then
a match between two people on two connections: one player's on the process that opened the
table, the other's (and the join) on the other process, so every command crosses from one
process to the other through the database and Redis; in the one-process column both
connections go to the one process (which runs without Redis, as a club of one process would).
A command's latency is until its sender has the ``state``; the next command waits until both
players have it. Every measurement gets a fresh PostgreSQL schema (dropped afterwards) and its
own Redis channel prefix.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import websockets

from backgammon.dice import SeededDice
from backgammon.table import Seat, Table
from backgammon.table import commands as cmd


@dataclass
class Stats:
    """What the clients measured in the window."""

    latencies: list[float] = field(default_factory=list)
    games: int = 0
    commands: int = 0
    errors: list[str] = field(default_factory=list)
    measuring: bool = False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, database: str, log: Path, redis: str | None = None) -> subprocess.Popen[bytes]:
    """``backgammon serve`` in its own process (its messages to ``log``; ``--redis`` when
    ``redis`` is given); returns once the port answers."""
    extra = ["--redis", redis] if redis else []
    env = {k: v for k, v in os.environ.items() if k != "BACKGAMMON_REDIS"}
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from backgammon.cli import main; main()", "serve",
             "--port", str(port), "--database", database, *extra],
            stdout=subprocess.DEVNULL, stderr=out, cwd=Path(__file__).resolve().parent.parent, env=env,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped at start: {log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not answer within 60 s")


def choose(snapshot: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A quick player's command for one seat's snapshot (None: nothing to do)."""
    actions = snapshot["actions"]
    if "take" in actions:
        return {"type": "take"}
    if "accept" in actions:
        return {"type": "accept"}
    if "roll" in actions:
        return {"type": "roll"}
    if "play" in actions:
        return {"type": "play", "move": rng.choice(snapshot["legal"]) if snapshot["legal"] else "", "confirm": True}
    if "next_game" in actions:
        return {"type": "next_game"}
    return None


async def one_game(http: httpx.AsyncClient, ws_base: str, think: float, rng: random.Random, stats: Stats) -> None:
    """Create a table, play it to the end, return."""
    r = await http.post("/api/tables", json={"kind": "match", "length": 1, "name": "load",
                                             "seats": [{"kind": "human"}, {"kind": "human"}],
                                             "same_screen": True})
    r.raise_for_status()
    created = r.json()
    table_id = created["table"]["id"]
    tokens = list(created["tokens"].values())
    async with websockets.connect(f"{ws_base}/ws/tables/{table_id}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "tokens": tokens}))
        sent_at: float | None = None
        last_seq = -1
        next_id = 0
        while True:
            msg = json.loads(await ws.recv())
            kind = msg.get("type")
            if kind == "refused" or kind == "error":
                if stats.measuring:
                    stats.errors.append(json.dumps(msg)[:200])
                if sent_at is not None and stats.measuring:
                    stats.latencies.append(time.perf_counter() - sent_at)
                sent_at = None
                continue
            if kind != "state" or msg.get("seq", 0) <= last_seq:
                continue
            last_seq = msg["seq"]
            if sent_at is not None:
                if stats.measuring:
                    stats.latencies.append(time.perf_counter() - sent_at)
                    stats.commands += 1
                sent_at = None
            snapshots: dict[str, dict[str, Any]] = msg["snapshots"]
            if any(s.get("over") for s in snapshots.values()):
                if stats.measuring:
                    stats.games += 1
                return
            for seat, snap in snapshots.items():
                command = choose(snap, rng)
                if command is not None:
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                    next_id += 1
                    sent_at = time.perf_counter()
                    await ws.send(json.dumps({"type": "command", "seat": seat, "id": next_id, "command": command}))
                    break


async def client_loop(http: httpx.AsyncClient, ws_base: str, think: float, seed: int, stats: Stats,
                      stop: asyncio.Event) -> None:
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            await one_game(http, ws_base, think, rng, stats)
        except (OSError, websockets.WebSocketException, httpx.HTTPError, KeyError) as exc:
            stats.errors.append(f"{type(exc).__name__}: {exc}"[:200])
            await asyncio.sleep(0.5)


async def run_level(port: int, games: int, seconds: float, think: float, ramp: float) -> tuple[Stats, float]:
    stats = Stats()
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60) as http:
        tasks = []
        for k in range(games):
            tasks.append(asyncio.create_task(client_loop(http, f"ws://127.0.0.1:{port}", think, k, stats, stop)))
            await asyncio.sleep(ramp / games)
        await asyncio.sleep(think * 2)  # settle
        stats.measuring = True
        cpu0, t0 = time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        stats.measuring = False
        elapsed = time.perf_counter() - t0
        client_cpu = (time.process_time() - cpu0) / elapsed
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return stats, client_cpu


class Seated:
    """One player's connection in a two-connection game: its seat and the latest ``state``."""

    def __init__(self, ws: Any, seat: str) -> None:
        self.ws = ws
        self.seat = seat
        self.state: dict[str, Any] = {"seq": -1, "snapshots": {}}

    async def until_seq(self, seq: int, stats: Stats) -> dict[str, Any] | None:
        """Read until a ``state`` at ``seq`` or later (``None``: the command was refused)."""
        while self.state["seq"] < seq or not self.state["snapshots"]:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), 60))
            kind = msg.get("type")
            if kind == "refused" or kind == "error":
                if stats.measuring:
                    stats.errors.append(json.dumps(msg)[:200])
                return None
            if kind == "state" and msg.get("seq", -1) >= self.state["seq"]:
                self.state = msg
        return self.state


async def two_seat_game(creator: httpx.AsyncClient, joiner: httpx.AsyncClient, ws_first: str, ws_second: str,
                        think: float, rng: random.Random, stats: Stats) -> None:
    """Create a table for two people on ``creator``, join it on ``joiner``, connect the first
    player to ``ws_first`` and the second to ``ws_second``, and play it to the end."""
    r = await creator.post("/api/tables", json={"kind": "match", "length": 1, "name": "load",
                                                "seats": [{"kind": "human"}, {"kind": "human"}]})
    r.raise_for_status()
    created = r.json()
    table_id = created["table"]["id"]
    r = await joiner.post(f"/api/tables/{table_id}/join", json={"name": "load"})
    r.raise_for_status()
    joined = r.json()
    async with websockets.connect(f"{ws_first}/ws/tables/{table_id}", max_size=2**22) as ws1, \
            websockets.connect(f"{ws_second}/ws/tables/{table_id}", max_size=2**22) as ws2:
        players = [Seated(ws1, created["seat"]), Seated(ws2, joined["seat"])]
        for p, token in zip(players, (created["token"], joined["token"])):
            await p.ws.send(json.dumps({"type": "hello", "protocol": 1, "tokens": [token]}))
        seq = 0
        for p in players:
            await p.until_seq(0, stats)
            seq = max(seq, p.state["seq"])
        next_id = 0
        while True:
            for p in players:  # both players have the latest state
                await p.until_seq(seq, stats)
            if any(s.get("over") for p in players for s in p.state["snapshots"].values()):
                if stats.measuring:
                    stats.games += 1
                return
            mover, command = next(((p, c) for p in players
                                   if (c := choose(p.state["snapshots"][p.seat], rng)) is not None), (None, None))
            if mover is None or command is None:
                raise KeyError(f"nobody can act at seq {seq}")
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            next_id += 1
            sent_at = time.perf_counter()
            await mover.ws.send(json.dumps({"type": "command", "seat": mover.seat, "id": next_id, "command": command}))
            state = await mover.until_seq(seq + 1, stats)
            if stats.measuring:
                stats.latencies.append(time.perf_counter() - sent_at)
            if state is None:
                await asyncio.sleep(0.5)
                continue
            if stats.measuring:
                stats.commands += 1
            seq = state["seq"]


async def two_seat_loop(http: list[httpx.AsyncClient], ws: list[str], k: int, think: float, stats: Stats,
                        stop: asyncio.Event) -> None:
    """Client ``k``: tables one after the other, opened on process ``k % n``, the second player
    on the next process (the same one when there is one)."""
    rng = random.Random(k)
    a, b = k % len(http), (k + 1) % len(http)
    while not stop.is_set():
        try:
            await two_seat_game(http[a], http[b], ws[a], ws[b], think, rng, stats)
        except (OSError, asyncio.TimeoutError, websockets.WebSocketException, httpx.HTTPError, KeyError) as exc:
            stats.errors.append(f"{type(exc).__name__}: {exc}"[:200])
            await asyncio.sleep(0.5)


async def run_split_level(ports: list[int], games: int, seconds: float, think: float, ramp: float) -> tuple[Stats, float]:
    """One level of two-connection games over the servers on ``ports``."""
    stats = Stats()
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    clients = [httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60) for port in ports]
    ws = [f"ws://127.0.0.1:{port}" for port in ports]
    try:
        tasks = []
        for k in range(games):
            tasks.append(asyncio.create_task(two_seat_loop(clients, ws, k, think, stats, stop)))
            await asyncio.sleep(ramp / games)
        await asyncio.sleep(think * 2)  # settle
        stats.measuring = True
        cpu0, t0 = time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        stats.measuring = False
        client_cpu = (time.process_time() - cpu0) / (time.perf_counter() - t0)
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for client in clients:
            await client.aclose()
    return stats, client_cpu


@dataclass
class Measured:
    """One configuration's figures at one level."""

    stats: Stats
    seconds: float
    server_cpu: float
    client_cpu: float
    problems: list[str]

    @property
    def cps(self) -> float:
        return self.stats.commands / self.seconds


def fresh_schema(database: str) -> tuple[str, Any]:
    """A URL of ``database`` whose search_path is a new schema, and a function that drops it."""
    import uuid

    import sqlalchemy as sa

    from backgammon.server.store import normalize_url

    base = normalize_url(database).render_as_string(hide_password=False)
    schema = "load_" + uuid.uuid4().hex[:12]
    engine = sa.create_engine(base)
    with engine.begin() as connection:
        connection.execute(sa.text(f'create schema "{schema}"'))

    def drop() -> None:
        with engine.begin() as connection:
            connection.execute(sa.text(f'drop schema "{schema}" cascade'))
        engine.dispose()

    separator = "&" if "?" in base else "?"
    return f"{base}{separator}options=-csearch_path%3D{schema}", drop


def measure_split(processes: int, database: str, redis: str | None, n: int, args: argparse.Namespace,
                  tmp: str) -> Measured:
    """Level ``n`` with two-connection games over ``processes`` servers (a fresh schema; with
    more than one process, Redis with a prefix of this measurement)."""
    import uuid

    url, drop = fresh_schema(database)
    bus = None
    if processes > 1 and redis:
        bus = f"{redis}{'&' if '?' in redis else '?'}prefix=load_{uuid.uuid4().hex[:12]}"
    servers: list[subprocess.Popen[bytes]] = []
    logs = [Path(tmp) / f"server-{n}-{processes}p-{i}.log" for i in range(processes)]
    try:
        ports = []
        for log in logs:  # one after the other: the first one runs the migrations
            ports.append(free_port())
            servers.append(start_server(ports[-1], url, log, bus))
        cpu0 = sum(_proc_cpu(s.pid) for s in servers)
        t0 = time.perf_counter()
        stats, client_cpu = asyncio.run(run_split_level(ports, n, args.seconds, args.think, args.ramp))
        server_cpu = (sum(_proc_cpu(s.pid) for s in servers) - cpu0) / (time.perf_counter() - t0)
    finally:
        for server in servers:
            server.send_signal(signal.SIGINT)
        for server in servers:
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        drop()
    problems = [line for log in logs if log.exists() for line in log.read_text().splitlines()
                if "ERROR" in line or "Traceback" in line]
    return Measured(stats, args.seconds, server_cpu, client_cpu, problems)


def side_by_side(args: argparse.Namespace, levels: list[int]) -> None:
    """``--processes N``: each level with one process, then with N, printed side by side."""
    if not args.database or not args.database.startswith(("postgresql", "postgres:")):
        raise SystemExit("--processes 2 needs the PostgreSQL database they share: "
                         "--database postgresql://USER@HOST/DB")
    if not args.redis:
        raise SystemExit("--processes 2 needs the Redis server they share: --redis redis://127.0.0.1:6379/0")
    n_proc = args.processes
    print(f"two players per table on two connections; clients think {args.think:g} s (0.5x-1.5x) "
          f"before each command; window {args.seconds:g} s per level")
    print()
    head = f"{'one process':^24}   {f'{n_proc} processes':^24}"
    print(f"{'':>6} {head}")
    print(f"{'games':>6} {'cmds/s':>8} {'p50 ms':>7} {'p99 ms':>7}   {'cmds/s':>8} {'p50 ms':>7} {'p99 ms':>7}"
          f" {'server cpu':>10} {'client cpu':>10} errors")
    with tempfile.TemporaryDirectory() as tmp:
        for n in levels:
            one = measure_split(1, args.database, None, n, args, tmp)
            many = measure_split(n_proc, args.database, args.redis, n, args, tmp)
            cells = []
            for m in (one, many):
                lat = m.stats.latencies
                cells.append(f"{m.cps:>8.0f} {pct(lat, .5) * 1e3:>7.1f} {pct(lat, .99) * 1e3:>7.1f}")
            print(f"{n:>6} {cells[0]}   {cells[1]} {one.server_cpu:>4.0%}/{many.server_cpu:<5.0%}"
                  f" {one.client_cpu:>4.0%}/{many.client_cpu:<5.0%} "
                  f"{len(one.stats.errors)}/{len(many.stats.errors)}")
            for label, m in (("one process", one), (f"{n_proc} processes", many)):
                for e in m.stats.errors[:3]:
                    print(f"       {label}, e.g. {e}")
                if m.problems:
                    print(f"       {label}: the servers logged {len(m.problems)} errors, e.g. {m.problems[0][:160]}")
            sys.stdout.flush()
    print()
    print("latency: from sending a command to its sender's state; server cpu (one/many, all processes"
          " together) over the whole level, client cpu over the window; 100% = one core")


def reference(seconds: float) -> tuple[float, float]:
    """Commands per second through the table layer alone (random legal plays, takes), and
    the mean number of commands in one of these one-point games."""
    rng = random.Random(1)
    done = 0
    games = 0
    t0 = time.perf_counter()
    k = 0
    while time.perf_counter() - t0 < seconds:
        k += 1
        table = Table.match([Seat("a"), Seat("b")], length=1, dice=SeededDice(k))
        while True:
            snap = {s: table.snapshot(s).to_dict() for s in ("a", "b")}
            if snap["a"]["over"]:
                games += 1
                break
            acted = False
            for seat, s in snap.items():
                c = choose(s, rng)
                if c is not None:
                    out = table.submit(seat, cmd.command_from_dict(c))
                    assert out.accepted, out.refusal
                    done += 1
                    acted = True
                    break
            if not acted:
                break
    return done / (time.perf_counter() - t0), done / max(1, games)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default="100,500,1000", help="concurrent games per level, comma separated")
    ap.add_argument("--seconds", type=float, default=20.0, help="measuring window per level")
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds a client waits before each command")
    ap.add_argument("--ramp", type=float, default=10.0, help="seconds to bring the clients up")
    ap.add_argument("--database", default=None, help="database URL (default: a fresh SQLite file)")
    ap.add_argument("--processes", type=int, default=1,
                    help="with 2 (or more): every level with one process and with this many, side by side "
                         "(needs --database postgresql://... and --redis)")
    ap.add_argument("--redis", default=None, metavar="URL", help="the Redis of --processes (redis://HOST:6379/0)")
    args = ap.parse_args()
    levels = [int(x) for x in args.games.split(",")]
    if args.processes > 1:
        side_by_side(args, levels)
        return
    if args.processes < 1:
        raise SystemExit("--processes is 1 or more")

    ref, per_game = reference(3.0)
    print(f"reference: the table layer alone, in this process: {ref:,.0f} commands/s "
          f"({per_game:.0f} commands per one-point game)")
    print(f"clients think {args.think:g} s (0.5x-1.5x) before each command; window {args.seconds:g} s per level")
    print()
    print(f"{'games':>6} {'games/s':>8} {'cmds/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
          f"{'server cpu':>10} {'client cpu':>10} {'vs table':>8} errors")
    with tempfile.TemporaryDirectory() as tmp:
        for n in levels:
            database = args.database or f"sqlite:///{tmp}/load-{n}.sqlite3"
            port = free_port()
            log = Path(tmp) / f"server-{n}.log"
            server = start_server(port, database, log)
            try:
                cpu0 = _proc_cpu(server.pid)
                t0 = time.perf_counter()
                stats, client_cpu = asyncio.run(run_level(port, n, args.seconds, args.think, args.ramp))
                server_cpu = (_proc_cpu(server.pid) - cpu0) / (time.perf_counter() - t0)
            finally:
                server.send_signal(signal.SIGINT)
                try:
                    server.wait(10)
                except subprocess.TimeoutExpired:
                    server.kill()
            lat = stats.latencies
            cps = stats.commands / args.seconds
            print(f"{n:>6} {cps / per_game:>8.1f} {cps:>8.0f} {pct(lat, .5) * 1e3:>7.1f} "
                  f"{pct(lat, .99) * 1e3:>7.1f} {max(lat, default=float('nan')) * 1e3:>7.1f} "
                  f"{server_cpu:>9.0%} {client_cpu:>9.0%} {cps / ref:>8.3f} {len(stats.errors)}")
            for e in stats.errors[:3]:
                print(f"       e.g. {e}")
            problems = [line for line in log.read_text().splitlines() if "ERROR" in line or "Traceback" in line]
            if problems:
                print(f"       the server logged {len(problems)} errors, e.g. {problems[0][:160]}")
            sys.stdout.flush()
    print()
    print("games/s: commands/s over the commands of a one-point game (a game takes minutes at this pace);")
    print("server cpu is over the whole level (ramp included), client cpu over the window; 100% = one core")


def _proc_cpu(pid: int) -> float:
    """CPU seconds used so far by process ``pid`` (user + system), from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


if __name__ == "__main__":
    main()
