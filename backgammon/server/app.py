"""The Starlette application of ``backgammon serve``: the pages, the JSON API, the WebSockets
and the OpenAPI document (docs/PROTOCOL.md is the contract).

>>> from starlette.testclient import TestClient
>>> with TestClient(create_app("sqlite://")) as client:   # an in-memory database
...     created = client.post("/api/tables", json={"kind": "money", "name": "ann",
...                           "seats": [{"kind": "human"}, {"kind": "human"}]}).json()
...     created["table"]["status"], created["seat"], len(created["token"])
('waiting', 'ann', 43)
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from argon2 import PasswordHasher
import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..bots import available
from ..errors import BackgammonError
from . import protocol
from . import accounts, analysis_api, moderation, replay, results
from .accounts import Accounts, current_user, require_csrf, websocket_origin_ok
from .bus import make_bus
from .openapi import OPENAPI
from .rooms import Club, Connection, DiceFactory, Room, RoomError
from .store import Store, default_url

__all__ = ["STATIC", "create_app"]

log = logging.getLogger(__name__)

#: The browser's files.
STATIC = Path(__file__).resolve().parent / "static"
#: The largest JSON body the API reads.
MAX_BODY = 16_384

# -- helpers of the routes -----------------------------------------------------------------------


def _club(request: Request | WebSocket) -> Club:
    club: Club = request.app.state.club
    return club


def _error(text: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


async def _body(request: Request) -> Any:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise RoomError(f"a request body is at most {MAX_BODY} bytes", 413)
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        raise RoomError("the request body must be JSON") from None


def _page(name: str) -> Response:
    path = STATIC / name
    if not path.is_file():
        return PlainTextResponse(f"{name} is not there yet", status_code=404)
    return FileResponse(path, media_type="text/html")


def _handles_errors(handler: Any) -> Any:
    async def wrapped(request: Request) -> Response:
        try:
            response: Response = await handler(request)
            return response
        except RoomError as exc:
            return _error(str(exc), exc.status)
        except BackgammonError as exc:
            return _error(str(exc))

    return wrapped


# -- pages -----------------------------------------------------------------------------------------


async def lobby_page(request: Request) -> Response:
    """``/``: the lobby page."""
    return _page("index.html")


async def table_page(request: Request) -> Response:
    """``/t/{id}``: the table page."""
    return _page("table.html")


async def verify_page(request: Request) -> Response:
    """``/verify``: the fair-dice verify page."""
    return _page("verify.html")


# -- the JSON API ----------------------------------------------------------------------------------


async def health(request: Request) -> Response:
    """``GET /api/health``: this process, its database and its bus answer (503 otherwise)."""
    club = _club(request)

    def ping() -> None:
        with club.store.engine.connect() as connection:
            connection.execute(sa.text("select 1"))

    problems = []
    try:
        await anyio.to_thread.run_sync(ping)
    except Exception as exc:  # noqa: BLE001 - any failure is the answer
        problems.append(f"database: {exc}")
    try:
        reached = await club.bus.lease(f"health:{club.bus.id}", 5.0)
    except Exception:  # noqa: BLE001 - any failure is the answer
        reached = False
    if not reached:
        problems.append("bus: Redis does not answer")
    body = {"ok": not problems, "rooms": len(club.rooms), "problems": problems}
    return JSONResponse(body, status_code=200 if not problems else 503)


async def bots(request: Request) -> Response:
    """``GET /api/bots``."""
    return JSONResponse({"bots": available()})


async def openapi(request: Request) -> Response:
    """``GET /api/openapi.json``."""
    return JSONResponse(OPENAPI)


@_handles_errors
async def tables(request: Request) -> Response:
    """``GET /api/tables`` (the lobby), ``POST /api/tables`` (create)."""
    club = _club(request)
    if request.method == "GET":
        return JSONResponse({"tables": await club.lobby_infos()})
    await require_csrf(request)
    user = await current_user(request)
    room, seat, tokens = await club.create(await _body(request), user)
    return JSONResponse({"table": room.info(), "seat": seat, "token": tokens[seat], "tokens": tokens})


@_handles_errors
async def table(request: Request) -> Response:
    """``GET /api/tables/{id}``: ``TableInfo`` plus the spectator's ``snapshot``."""
    room = await _club(request).room(request.path_params["id"])
    async with room.lock:
        return JSONResponse({**room.info(), "snapshot": room.spectator_snapshot(), "seq": room.record.seq})


@_handles_errors
async def join(request: Request) -> Response:
    """``POST /api/tables/{id}/join``: the first free human seat."""
    await require_csrf(request)
    user = await current_user(request)
    room = await _club(request).room(request.path_params["id"])
    body = await _body(request)
    name = user.name if user is not None else body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, str) or not 0 < len(name.strip()) <= 40:
        raise RoomError('send your name to join: {"name": "bob"} (1-40 characters)')
    seat, token = await room.join(" ".join(name.split()), user)
    return JSONResponse({"seat": seat, "token": token, "table": room.info()})


@_handles_errors
async def rematch(request: Request) -> Response:
    """``POST /api/tables/{id}/rematch``: a new table with the same settings and people."""
    await require_csrf(request)
    body = await _body(request)
    tokens: Any = []
    if isinstance(body, dict):
        tokens = body.get("tokens") or ([body["token"]] if "token" in body else [])
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise RoomError('send a seat token of this table: {"token": "..."}', 403)
    room, mine = await _club(request).rematch(request.path_params["id"], tokens)
    return JSONResponse({"table": room.info(), "tokens": mine})


@_handles_errors
async def record(request: Request) -> Response:
    """``GET /api/tables/{id}/record``: ``Table.to_dict()`` plus ``"fair"``."""
    room = await _club(request).room(request.path_params["id"])
    async with room.lock:
        return JSONResponse(room.download())


# -- WebSockets ------------------------------------------------------------------------------------


def _sender(websocket: WebSocket) -> Any:
    lock = asyncio.Lock()

    async def send(message: dict[str, Any]) -> None:
        async with lock:
            await websocket.send_text(json.dumps(message, separators=(",", ":")))

    return send


async def table_socket(websocket: WebSocket) -> None:
    """``/ws/tables/{id}``: play, watch and chat (docs/PROTOCOL.md)."""
    if not websocket_origin_ok(websocket):
        await websocket.close(4403, "this page's origin may not use your session here")
        return
    await websocket.accept()
    rate, burst = websocket.app.state.throttle

    async def close(code: int, reason: str) -> None:
        await websocket.close(code, reason)

    conn = Connection(_sender(websocket), throttle=protocol.Throttle(rate, burst),
                      user=await current_user(websocket), close=close)
    try:
        room = await _club(websocket).room(websocket.path_params["id"])
    except RoomError as exc:
        await conn.send(protocol.error(str(exc)))
        await websocket.close(4404)
        return
    try:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text, data = frame.get("text"), frame.get("bytes")
            raw: str | bytes = text if isinstance(text, str) else data if isinstance(data, bytes) else b""
            if not conn.throttle.allow():
                if conn.throttle.flooding:
                    await websocket.close(1008, "too many messages")
                    break
                await conn.send(protocol.error(
                    f"slow down: at most {conn.throttle.rate:g} messages a second; this one was dropped"))
                continue
            try:
                await _dispatch(room, conn, raw)
            except (WebSocketDisconnect, asyncio.CancelledError):
                raise
            except Exception:  # a bug must not take the connection down silently
                log.exception("table %s: a message failed", room.id)
                text = "the server failed on that message (a bug, logged); nothing changed"
                await conn.send(protocol.error(text))
    except WebSocketDisconnect:
        pass
    finally:
        room.leave(conn)


async def _dispatch(room: Room, conn: Connection, raw: str | bytes) -> None:
    """Act on one client message."""
    try:
        message = protocol.parse(raw)
    except protocol.ProtocolError as exc:
        await conn.send(protocol.error(str(exc), exc.id))
        return
    if isinstance(message, protocol.Hello):
        if conn.greeted:
            text = "this connection already said hello: open a new one to change seats"
            await conn.send(protocol.error(text))
            return
        await room.hello(conn, message)
        return
    if not conn.greeted:
        await conn.send(protocol.error('say hello first: {"type": "hello", "protocol": 1, "tokens": [...]}'))
        return
    if isinstance(message, protocol.CommandMessage):
        await room.submit(conn, message)
    elif isinstance(message, protocol.ChatMessage):
        await room.chat(conn, message.text)
    elif isinstance(message, protocol.MuteSpectators):
        await room.mute(conn, message.mute)
    elif isinstance(message, protocol.SeedMessage):
        await room.seed(conn, message)
    elif isinstance(message, protocol.HintRequest):
        await room.hint(conn, message)
    elif isinstance(message, protocol.Leave):
        await room.leave_match(conn, message)
    else:
        await conn.send({"type": "pong"})


async def lobby_socket(websocket: WebSocket) -> None:
    """``/ws/lobby``: the lobby on connect and after every change."""
    await websocket.accept()
    club = _club(websocket)
    conn = Connection(_sender(websocket))
    club.lobby.add(conn)
    try:
        await conn.send({"type": "lobby", "tables": await club.lobby_infos()})
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
    except WebSocketDisconnect:
        pass
    finally:
        club.lobby.discard(conn)


# -- the application -------------------------------------------------------------------------------


def create_app(database_url: str | None = None, *, dice_factory: DiceFactory | None = None,
               bot_delay: float = 0.0, message_rate: float = protocol.RATE,
               message_burst: float = protocol.BURST, redis_url: str | None = None,
               hasher: PasswordHasher | None = None) -> Starlette:
    """The server over the database at ``database_url`` (``store.default_url()`` when
    ``None``); ``dice_factory`` builds each table's fair dice (tests inject seeded ones);
    ``bot_delay`` seconds pass before each bot action (so people see the moves); each
    connection may send ``message_rate`` messages a second, bursts of ``message_burst``;
    ``redis_url``: the Redis server shared with the other processes of the club (``None``:
    this process is the whole club); ``hasher``: the password hasher (tests use a cheap one)."""
    url = database_url or default_url()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = await anyio.to_thread.run_sync(Store, url)
        club = Club(store, dice_factory, bot_delay, make_bus(redis_url))
        club.accounts = Accounts(store, club.writer, hasher)
        app.state.club = club
        app.state.store = store
        app.state.accounts = club.accounts
        app.state.throttle = (message_rate, message_burst)
        app.state.analyses = analysis_api.Analyses(store)
        try:
            await club.accounts.ensure_bots()
            await club.start()
            yield
        finally:
            await anyio.to_thread.run_sync(app.state.analyses.close)
            await club.close()
            store.close()

    routes = [
        Route("/", lobby_page),
        Route("/t/{id}", table_page),
        Route("/verify", verify_page),
        Route("/api/openapi.json", openapi),
        Route("/api/bots", bots),
        Route("/api/health", health),
        Route("/api/tables", tables, methods=["GET", "POST"]),
        Route("/api/tables/{id}", table),
        Route("/api/tables/{id}/join", join, methods=["POST"]),
        Route("/api/tables/{id}/rematch", rematch, methods=["POST"]),
        Route("/api/tables/{id}/record", record),
        *accounts.routes(),
        *results.routes(),
        *replay.routes(),
        *analysis_api.routes(),
        *moderation.routes(),
        WebSocketRoute("/ws/tables/{id}", table_socket),
        WebSocketRoute("/ws/lobby", lobby_socket),
        Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
    ]
    # the replay of a long match is a few MB of JSON: compress what is worth it
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(GZipMiddleware, minimum_size=2048)])
