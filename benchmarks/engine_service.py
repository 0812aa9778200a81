"""Throughput of the engine service: requests per second and latency through HTTP.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/engine_service.py
    PYTHONPATH=. .venv/bin/python benchmarks/engine_service.py --requests 400 --concurrency 8 --workers 2

The server is the real one: ``backgammon engine`` started as a subprocess on a free loopback
port (uvicorn, its thread pool of ``--workers`` threads), measured once it says it is ready.
The positions are those of random games (seeded): each request asks for one of them, in turn.
For each workload:

* **in-process** (the reference, measured in the same run): the same calls made in this process
  without HTTP — :func:`~backgammon.server.engine_service.answer_move` and friends on the same
  bodies, one after the other;
* **HTTP, sequential**: one client, one request at a time, keep-alive (``httpx.Client``);
* **HTTP, concurrent**: ``--concurrency`` requests in flight (``httpx.AsyncClient``).

It prints requests per second, the latency percentiles (p50, p90, p99, in milliseconds), the
ratio of each HTTP figure to the in-process one, and the CPU time per call of the process that
answers (the server's, read from /proc; this process's for the reference): on a busy machine
the CPU time is steadier than the rates. The workloads: ``/v1/evaluate`` at 0 ply,
``/v1/move`` at 0 and 1 ply, and a batch ``/v1/evaluate`` of 100 positions (counted in
positions per second, against 100 single requests). The client runs on the same machine as the
server, so both share its cores.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from backgammon import Position
from backgammon.server.engine_service import (
    EngineSettings,
    answer_evaluate,
    answer_move,
)

ROOT = Path(__file__).resolve().parent.parent


def positions(count: int, seed: int = 1) -> list[tuple[str, tuple[int, int]]]:
    """``count`` (Position ID, dice) pairs from random games: positions with a legal play."""
    rng = random.Random(seed)
    out: list[tuple[str, tuple[int, int]]] = []
    while len(out) < count:
        pos = Position.initial()
        while len(out) < count and min(sum(pos.player), sum(pos.opponent)) > 0:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            legal = pos.legal_moves(dice)
            if len(legal) > 1:
                out.append((pos.position_id(), dice))
            pos = legal.position(rng.randrange(len(legal))) if len(legal) else pos.swap()
    return out


@dataclass
class Figures:
    """One measurement: how many calls, how long, each call's latency."""

    calls: int
    seconds: float
    latencies: list[float]
    #: CPU seconds the answering process spent (the server's, or this process's in-process)
    cpu: float | None = None
    #: positions per call (a batch)
    per_call: int = 1

    @property
    def rate(self) -> float:
        return self.calls * self.per_call / self.seconds

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def in_process(compute: Callable[[Any, EngineSettings], dict[str, Any]], bodies: list[dict[str, Any]],
               settings: EngineSettings) -> Figures:
    latencies = []
    cpu = time.process_time()
    start = time.perf_counter()
    for body in bodies:
        t = time.perf_counter()
        compute(body, settings)
        latencies.append(time.perf_counter() - t)
    return Figures(len(bodies), time.perf_counter() - start, latencies, time.process_time() - cpu)


def server_cpu(pid: int) -> float | None:
    """The CPU seconds (user + system) process ``pid`` has used, where /proc tells."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def measured(pid: int, run: Callable[[], Figures]) -> Figures:
    """``run()``'s figures with the CPU time the server ``pid`` spent meanwhile."""
    before = server_cpu(pid)
    figures = run()
    after = server_cpu(pid)
    figures.cpu = after - before if before is not None and after is not None else None
    return figures


def sequential(base: str, path: str, bodies: list[dict[str, Any]]) -> Figures:
    latencies = []
    with httpx.Client(base_url=base, timeout=60) as client:
        client.post(path, json=bodies[0]).raise_for_status()  # the connection
        start = time.perf_counter()
        for body in bodies:
            t = time.perf_counter()
            client.post(path, json=body).raise_for_status()
            latencies.append(time.perf_counter() - t)
        return Figures(len(bodies), time.perf_counter() - start, latencies)


def concurrent(base: str, path: str, bodies: list[dict[str, Any]], concurrency: int) -> Figures:
    async def run() -> Figures:
        latencies: list[float] = []
        queue = list(reversed(bodies))
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
            await asyncio.gather(*(client.post(path, json=bodies[0]) for _ in range(concurrency)))

            async def worker() -> None:
                while queue:
                    body = queue.pop()
                    t = time.perf_counter()
                    (await client.post(path, json=body)).raise_for_status()
                    latencies.append(time.perf_counter() - t)

            start = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return Figures(len(bodies), time.perf_counter() - start, latencies)

    return asyncio.run(run())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, workers: int) -> subprocess.Popen[bytes]:
    """``backgammon engine`` on ``port``, returned once its engine is loaded."""
    process = subprocess.Popen(
        [sys.executable, "-m", "backgammon.cli", "engine", "--port", str(port), "--workers", str(workers),
         "--max-body", str(1 << 20)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).json()["ready"]:
                return process
        except httpx.TransportError:
            if process.poll() is not None:
                raise SystemExit("backgammon engine did not start") from None
        time.sleep(0.2)
    process.kill()
    raise SystemExit("backgammon engine was not ready within 300 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400, help="requests per measurement (default 400)")
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="the server's evaluation threads (default: the cores)")
    parser.add_argument("--batch", type=int, default=100, help="positions per batch request (default 100)")
    args = parser.parse_args(argv)
    n = args.requests
    sample = positions(max(n, args.batch))
    settings = EngineSettings(warm_up=False, max_body=1 << 20)
    workloads: list[tuple[str, str, Callable[[Any, EngineSettings], dict[str, Any]], list[dict[str, Any]]]] = [
        ("evaluate, 0 ply", "/v1/evaluate", answer_evaluate,
         [{"position_id": p, "plies": 0} for p, _ in sample[:n]]),
        ("move, 0 ply", "/v1/move", answer_move,
         [{"position_id": p, "dice": list(d), "plies": 0} for p, d in sample[:n]]),
        ("move, 1 ply", "/v1/move", answer_move,
         [{"position_id": p, "dice": list(d), "plies": 1} for p, d in sample[:n]]),
    ]
    batch = {"positions": [{"position_id": p} for p, _ in sample[: args.batch]], "plies": 0}
    batches = max(1, n // args.batch)
    # compile (or load from numba's cache) in this process too, before the reference runs
    for _, _, compute, bodies in workloads:
        in_process(compute, bodies[:3], settings)
    port = free_port()
    print(f"backgammon engine on 127.0.0.1:{port}: {args.workers} evaluation threads, {os.cpu_count()} cores "
          f"(client and server share them); {n} requests a measurement, {args.concurrency} in flight "
          "when concurrent", flush=True)
    server = start_server(port, args.workers)
    base = f"http://127.0.0.1:{port}"
    rows = []
    try:
        for name, path, compute, bodies in workloads:
            ref = in_process(compute, bodies, settings)
            seq = measured(server.pid, partial(sequential, base, path, bodies))
            con = measured(server.pid, partial(concurrent, base, path, bodies, args.concurrency))
            rows.append((name, ref, seq, con))
        ref = in_process(answer_evaluate, [batch] * batches, settings)
        seq = measured(server.pid, partial(sequential, base, "/v1/evaluate", [batch] * batches))
        con = measured(server.pid, partial(concurrent, base, "/v1/evaluate", [batch] * max(batches, args.concurrency),
                                           args.concurrency))
        for f in (ref, seq, con):
            f.per_call = args.batch
        rows.append((f"evaluate, batches of {args.batch}, 0 ply (positions/s)", ref, seq, con))
    finally:
        server.terminate()
        server.wait(timeout=10)

    head = (f"{'workload':<46} {'':<12} {'per s':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} "
            f"{'/ in-process':>12} {'CPU ms/call':>11}")
    print(head)
    print("-" * len(head))
    for name, ref, seq, con in rows:
        for label, f in (("in-process", ref), ("HTTP, 1", seq), (f"HTTP, {args.concurrency}", con)):
            ratio = "" if f is ref else f"{f.rate / ref.rate:.2f}"
            cpu = "" if f.cpu is None else f"{1000 * f.cpu / f.calls:.2f}"
            print(f"{name if f is ref else '':<46} {label:<12} {f.rate:>9.0f} {f.percentile(0.5):>8.2f} "
                  f"{f.percentile(0.9):>8.2f} {f.percentile(0.99):>8.2f} {ratio:>12} {cpu:>11}")
    # the batch against single requests
    single = rows[0][2]
    print(f"\na batch of {args.batch} over HTTP evaluates {rows[-1][2].rate / single.rate:.1f} times as many "
          "positions per second as single requests one at a time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
