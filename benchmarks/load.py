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


def start_server(port: int, database: str, log: Path) -> subprocess.Popen[bytes]:
    """``backgammon serve`` in its own process (its messages to ``log``); returns once the
    port answers."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from backgammon.cli import main; main()", "serve",
             "--port", str(port), "--database", database],
            stdout=subprocess.DEVNULL, stderr=out, cwd=Path(__file__).resolve().parent.parent,
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
    args = ap.parse_args()
    levels = [int(x) for x in args.games.split(",")]

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
