"""Replays: a table's history as frames, one per event of its log, and the replay page.

:func:`frames` rebuilds a table from its saved data (:meth:`Table.to_dict
<backgammon.table.Table.to_dict>`) by playing its log again from the start, once, through the
table's own commands: the dice come from the log itself (a dice source that hands out the
logged dice in order, which is exactly how the server's fair dice handed them out). After each
command the new events are checked against the log, narrated (as a spectator's
:class:`~backgammon.table.Narrator` tells them) and each gets a frame with the spectator's
snapshot. The fair-dice proof of every game and :func:`~backgammon.fairdice.verify_record`'s
result come with the frames.

A match starts its next game as soon as one ends, so the table cannot show the end of a game
that is not the last one; the frames of the events that ended it show the ended game's final
board instead (phase ``"over"``, its cube, no dice), then the next game's ``start`` frame shows
the fresh board.

>>> from backgammon.dice import ScriptedDice
>>> from backgammon.table import Seat, Table, commands as cmd
>>> t = Table.match([Seat("ann"), Seat("bob")], length=1, dice=ScriptedDice([(3, 1)]))
>>> _ = t.submit("ann", cmd.Roll()); _ = t.submit("ann", cmd.Play("8/5 6/5", confirm=True))
>>> out = frames(t.to_dict(), {"game": 1, "commitment": "", "client_seeds": [], "revealed": []})
>>> [(f["kind"], f["line"]) for f in out["frames"]]
[('start', 'Game 1'), ('roll', 'Opening roll: ann 3, bob 1. ann goes first, playing 3-1.'), ('play', 'ann plays 8/5 6/5.')]
>>> out["frames"][-1]["snapshot"] == t.snapshot(None).to_dict()
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..dice import ScriptedDice
from ..errors import BackgammonError
from ..fairdice import log_rolls, verify_record
from ..rules import Rules
from ..table import Narrator, Seat, Table
from ..table import commands as cmd
from ..table.contest import MatchContest
from ..table.snapshot import board_view

__all__ = ["OPENAPI_PATHS", "ReplayError", "frames", "routes"]

#: The browser's files (the replay page).
STATIC = Path(__file__).resolve().parent / "static"

#: The kind of a frame, by event type (types not named here are their own kind).
KINDS = {
    "game_start": "start",
    "roll_off": "rolloff",
    "opening_roll": "roll",
    "automatic_double": "double",
    "box_double": "double",
    "team_double": "double",
    "game_end": "game",
    "game_over": "game",
    "match_end": "match",
}

#: The command that takes a logged action again, by event type.
_SIMPLE: dict[str, Callable[[], cmd.Command]] = {
    "opening_roll": cmd.Roll,
    "roll": cmd.Roll,
    "double": cmd.Double,
    "box_double": cmd.Double,
    "propose_double": cmd.ProposeDouble,
    "consent": cmd.Consent,
    "refuse": cmd.Refuse,
    "take": cmd.Take,
    "pass": cmd.Pass,
    "beaver": cmd.Beaver,
    "accept": cmd.Accept,
    "decline": cmd.Decline,
    "next_game": cmd.NextGame,
}


class ReplayError(BackgammonError):
    """A table's data cannot be replayed (damaged, or not a table); the message says where."""


# -- the frames -------------------------------------------------------------------------------


def _fresh_table(data: Mapping[str, Any], dice: ScriptedDice) -> Table:
    """The table of ``data`` before its first action: its seats and rules, an empty log."""
    seats = [Seat.from_dict(s) for s in data.get("seats") or ()]
    log = data.get("log")
    if not isinstance(log, Mapping):
        raise ReplayError("not a saved table: it has no contest log ('log')")
    kind = data.get("contest")
    if kind == "match":
        events = log.get("events")
        head = []  # the derived events before the first action: the first game's start
        for event in events if isinstance(events, list) else ():
            if not isinstance(event, Mapping) or event.get("type") != "game_start":
                break
            head.append(event)
        empty = {**log, "events": head}
        return Table.from_dict({**data, "log": empty, "tentative": None, "consulted": []}, dice=dice)
    if kind == "chouette":
        rules = Rules.from_dict(log.get("rules", {}))
        players = log.get("players")
        if isinstance(players, list):
            order = {name: i for i, name in enumerate(players)}
            seats.sort(key=lambda s: order.get(s.name, len(order)))
        return Table.chouette(seats, rules, dice=dice)
    raise ReplayError(f"contest kind {kind!r}: a replay is of a match ('match') or a chouette ('chouette')")


def _seat_of(table: Table, event: Mapping[str, Any]) -> str:
    """The seat that took the action ``event`` records (a match logs players as 0 and 1; an
    opening roll names nobody: the first seat to act)."""
    player = event.get("player")
    if isinstance(player, int) and not isinstance(player, bool):
        return table.contest.seats[player]
    if isinstance(player, str):
        return player
    to_act = table.contest.to_act()
    return to_act[0] if to_act else table.contest.seats[0]


def _command_of(event: Mapping[str, Any]) -> cmd.Command:
    """The command that takes ``event``'s action again."""
    kind = str(event.get("type"))
    if kind in _SIMPLE:
        return _SIMPLE[kind]()
    if kind == "play":
        return cmd.Play(str(event.get("move", "")), confirm=True)
    if kind == "resign":
        level = event.get("level", 1)
        return cmd.Resign(level if isinstance(level, int) else 1)
    raise ReplayError(f"a {kind!r} event is not an action a replay can take again")


def _take_again(table: Table, index: int, event: Mapping[str, Any]) -> None:
    """Take the action of log event ``index`` again on ``table``."""
    seat = _seat_of(table, event)
    if event.get("type") == "forfeit":
        table.forfeit(seat, str(event.get("reason")))
        return
    outcome = table.submit(seat, _command_of(event))
    if outcome.refusal is not None:
        raise ReplayError(f"event {index} ({event.get('type')}) does not replay: {outcome.refusal}")


def _ended_game_view(table: Table, view: dict[str, Any]) -> dict[str, Any]:
    """``view`` (the spectator's snapshot right after a match's game ended and the next one
    began) turned back to the ended game's final board."""
    contest = table.contest
    assert isinstance(contest, MatchContest)
    game = contest.match.games[-2]
    owner = game.cube_owner
    try:
        match_id: str | None = game.match_state().to_match_id()
    except BackgammonError:
        match_id = None
    return {
        **view,
        "board": board_view(game.board(0)).to_dict(),
        "dice": None,
        "on_roll": None,
        "phase": "over",
        "cube": game.cube_value,
        "cube_owner": None if owner is None else contest.seats[owner],
        "crawford": game.crawford,
        "post_crawford": bool(view["post_crawford"]) and not game.crawford,
        "game_number": contest.match.game_number - 1,
        "to_act": [],
        "actions": [],
        "legal": [],
        "tentative": None,
        "offer": None,
        "position_id": game.position.position_id(),
        "match_id": match_id,
    }


def _fair(table_data: Mapping[str, Any], fair: Mapping[str, Any], starts: Mapping[int, int]) -> dict[str, Any]:
    """The fair-dice proof per game and the verdict of :func:`verify_record`."""
    report = verify_record({**table_data, "fair": fair})
    checks = {g.game: g for g in report.games}
    try:
        logged = log_rolls(table_data)
    except BackgammonError:
        logged = {}
    revealed = [r for r in fair.get("revealed") or () if isinstance(r, Mapping)]
    entries: dict[int, dict[str, Any]] = {}
    for r in revealed:
        if isinstance(r.get("game"), int):
            entries[r["game"]] = {"server_seed": r.get("server_seed"), **r, "revealed": True}
    current = fair.get("game")
    if isinstance(current, int) and current not in entries:
        entries[current] = {
            "game": current, "commitment": fair.get("commitment"), "server_seed": None,
            "client_seeds": fair.get("client_seeds", []), "dice": fair.get("dice", []), "revealed": False,
        }
    games = []
    for number in sorted(set(entries) | set(logged)):
        entry = entries.get(number, {"game": number, "commitment": None, "server_seed": None,
                                     "client_seeds": [], "revealed": False})
        check = checks.get(number)
        if check is None and number not in logged and not entry.get("dice"):
            continue  # the next game of a finished match: committed, never played
        games.append({
            "game": number,
            "commitment": entry.get("commitment"),
            "server_seed": entry.get("server_seed"),
            "client_seeds": list(entry.get("client_seeds") or ()),
            "rolls": logged.get(number, []),
            "revealed": bool(entry.get("revealed")),
            "ok": check is not None and check.ok,
            "summary": check.summary() if check is not None else f"game {number}: no fair-dice record",
            "frame": starts.get(number),
        })
    proven = report.ok and bool(games) and all(g["revealed"] and g["ok"] for g in games)
    return {"verified": report.ok, "proven": proven, "report": report.lines(),
            "messages": list(report.messages), "games": games}


def frames(table_data: dict[str, Any], fair: dict[str, Any]) -> dict[str, Any]:
    """The replay of a table: ``{"frames": [...], "fair": {...}}``, one frame per event of
    the log of ``table_data`` (:meth:`Table.to_dict`), from the start.

    A frame is ``{"index": event number, "event": the event, "kind": "start" | "roll" |
    "play" | "double" | "take" | "pass" | "beaver" | "resign" | "accept" | "decline" |
    "game" | "match" | "forfeit" | ..., "game": its game's number, "score": [side 0, side 1],
    "snapshot": the spectator's snapshot after it, "lines": its narration lines
    (``{"text", "tone"}``), "line": their text joined}``. ``fair`` (the protocol's ``fair``
    object with ``revealed``) gives ``"fair"``: ``verified`` (every check passed),
    ``proven`` (and every game's seed is revealed), ``report`` (the verify lines) and
    ``games`` (each game's commitment, revealed seed, client seeds, rolls, ``ok``, and the
    index of its ``start`` frame). Raises :class:`ReplayError` when the log does not replay."""
    try:
        raw_events = list(table_data["log"]["events"])
        rolls = log_rolls(table_data)
    except (KeyError, TypeError, BackgammonError):
        raise ReplayError("not a saved table: expected 'log' with a list of 'events'") from None
    dice = ScriptedDice([d for game in sorted(rolls) for d in rolls[game]])
    try:
        table = _fresh_table(table_data, dice)
    except ReplayError:
        raise
    except BackgammonError as exc:
        raise ReplayError(f"the table's data cannot be read: {exc}") from None
    narrator = Narrator(table, None)
    out: list[dict[str, Any]] = []
    starts: dict[int, int] = {}
    game = 1
    done = 0
    while True:
        events = table.contest.events
        new = events[done:]
        if new:
            view = table.snapshot(None).to_dict()
            starts_at = [i for i, e in enumerate(new) if e.type == "game_start"]
            boundary = 0  # the events before it belong to a match's game that ended just now
            if isinstance(table.contest, MatchContest) and starts_at:
                if any(e.type == "game_end" for e in new[: starts_at[0]]):
                    boundary = starts_at[0]
            ended_view = _ended_game_view(table, view) if boundary else view
            for i, event in enumerate(new):
                data = event.to_dict()
                at = done + i
                if at >= len(raw_events) or data != raw_events[at]:
                    logged = raw_events[at] if at < len(raw_events) else "nothing"
                    raise ReplayError(f"event {at} of the log does not replay: the log has {logged}, the replay {data}")
                if event.type == "game_start" and isinstance(data.get("number"), int):
                    game = data["number"]
                    starts.setdefault(game, at)
                shown = ended_view if i < boundary else view
                lines = [line.to_dict() for line in narrator.lines([event])]
                out.append({
                    "index": at,
                    "event": data,
                    "kind": KINDS.get(event.type, event.type),
                    "game": game,
                    "score": list(shown["score"]),
                    "snapshot": shown,
                    "lines": lines,
                    "line": " ".join(line["text"] for line in lines),
                })
            done = len(events)
        if done >= len(raw_events):
            break
        event = raw_events[done]
        if not isinstance(event, Mapping):
            raise ReplayError(f"event {done} of the log is not an object: {event!r}")
        try:
            _take_again(table, done, event)
        except ReplayError:
            raise
        except BackgammonError as exc:
            raise ReplayError(f"event {done} ({event.get('type')}) does not replay: {exc}") from None
    return {"frames": out, "fair": _fair(table_data, fair, starts)}


# -- the routes ---------------------------------------------------------------------------------


def _error(text: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


async def replay(request: Request) -> Response:
    """``GET /api/tables/{id}/replay``: :func:`frames` of the table (409 while it waits)."""
    from .rooms import RoomError

    try:
        room = await request.app.state.club.room(request.path_params["id"])
        async with room.lock:
            record = room.download()
    except RoomError as exc:
        return _error(str(exc), exc.status)
    fair = record.pop("fair")
    try:
        data = await anyio.to_thread.run_sync(frames, record, fair)
    except ReplayError as exc:
        return _error(f"this table cannot be replayed: {exc}", 500)
    return JSONResponse({"id": room.id, "info": room.info(), **data})


async def replay_page(request: Request) -> Response:
    """``GET /r/{id}``: the replay page."""
    path = STATIC / "replay.html"
    if not path.is_file():  # pragma: no cover - shipped with the package
        return PlainTextResponse("replay.html is not there", status_code=404)
    return FileResponse(path, media_type="text/html")


def routes() -> list[Route]:
    """The replay's routes: ``GET /api/tables/{id}/replay`` and ``GET /r/{id}``."""
    return [
        Route("/api/tables/{id}/replay", replay, methods=["GET"]),
        Route("/r/{id}", replay_page, methods=["GET"]),
    ]


_ERROR = {"$ref": "#/components/schemas/Error"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_FRAME = {
    "type": "object",
    "required": ["index", "event", "kind", "game", "score", "snapshot", "lines", "line"],
    "properties": {
        "index": {"type": "integer", "description": "the event's place in the log"},
        "event": {"type": "object", "description": "the log event"},
        "kind": {"type": "string", "description": "start, roll, play, double, take, pass, beaver, resign, "
                 "accept, decline, game (game over), match (match over), forfeit, ..."},
        "game": {"type": "integer"},
        "score": {"type": "array", "items": {"type": "integer"}},
        "snapshot": {"type": "object", "description": "the spectator's Snapshot.to_dict() after the event"},
        "lines": {"type": "array", "items": {"type": "object", "properties": {
            "text": {"type": "string"}, "tone": {"type": "string"}}}},
        "line": {"type": "string", "description": "the narration lines' text, joined"},
    },
}

#: This module's paths of the OpenAPI document (merged into ``openapi.OPENAPI``).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/tables/{id}/replay": {"get": {
        "summary": "the table's history as frames (one per log event) and its fair-dice proof",
        "operationId": "tableReplay",
        "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"},
                        "description": "the table's id"}],
        "responses": {
            "200": _json({
                "type": "object",
                "required": ["id", "frames", "fair"],
                "properties": {
                    "id": {"type": "string"},
                    "info": {"type": "object", "description": "the TableInfo"},
                    "frames": {"type": "array", "items": _FRAME},
                    "fair": {"type": "object", "properties": {
                        "verified": {"type": "boolean", "description": "every check of verify_record passed"},
                        "proven": {"type": "boolean", "description": "verified, and every game's seed revealed"},
                        "report": {"type": "array", "items": {"type": "string"}},
                        "games": {"type": "array", "items": {"type": "object"}},
                    }},
                },
            }, "the replay"),
            "400": _json(_ERROR, "the request was not acted on"),
            "404": _json(_ERROR, "no such table"),
            "409": _json(_ERROR, "the table has not started"),
        },
    }},
}
