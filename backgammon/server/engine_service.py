"""The engine as an HTTP service for other programs and bots (``backgammon engine``).

:func:`engine_app` builds a Starlette application:

* ``POST /v1/move`` — every legal play of a roll, best first (:func:`~backgammon.bots.analysis.rank_plays`:
  all at 0 ply, the best ``count`` again at ``plies``);
* ``POST /v1/evaluate`` — the chances of the side on roll, its cubeless equity and its cubeful
  equity (money) or match winning chances (match); ``{"positions": [...]}`` evaluates a batch
  in one call of the compiled kernels;
* ``POST /v1/cube`` — the cube decision of the side on roll (no double, double/take,
  double/pass, the proper action: :func:`~backgammon.bots.analysis.cube_advice`) and the
  answer of the opponent to a double (:func:`~backgammon.bots.analysis.take_advice`);
* ``GET /v1/health``, ``GET /openapi.json`` (OpenAPI 3.1, :func:`openapi_document`) and
  ``GET /docs`` (a plain HTML page made from that document, :func:`docs_page`).

A position is ``{"position_id": ..., "match_id": ...}`` (gnubg's IDs, the Position ID seen from
the player on roll; without a Match ID: money play, player 0 on roll, cube centred) or
``{"xgid": "XGID=..."}``. The dice come from the body (``"dice": [3, 1]`` or ``"31"``) or from
the Match ID / XGID. Money values are points per unit of cube (gnubg's normalised equity: a
double/pass is 1.0); match values are the match winning chances of the side on roll on the
Kazaross-XG2 table.

Every problem with a request is an answer, never a crash: 400 with ``{"error": {"field":
"dice", "reason": "..."}}`` (the reason quotes the input), 413 for a body over
:attr:`EngineSettings.max_body`. The evaluations run in a thread pool of
:attr:`EngineSettings.workers` threads (the numba kernels release the GIL), so the event loop
stays free while they run. :func:`answer_move`, :func:`answer_evaluate` and
:func:`answer_cube` are the computations without HTTP (a dict in, a dict out).

>>> from starlette.testclient import TestClient
>>> client = TestClient(engine_app(EngineSettings(warm_up=False)))
>>> client.post("/v1/move", json={"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]}).json()["best"]
'8/5 6/5'
>>> client.post("/v1/move", json={"position_id": "4HPwATDgc/ABMA"}).json()["error"]["field"]
'dice'
"""

from __future__ import annotations

import html
import json
import os
import re
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .. import __version__
from ..bots import analysis
from ..engine.evaluator import Evaluator, key_of
from ..engine.probabilities import Probabilities
from ..errors import BackgammonError
from ..matchid import GameState, MatchState
from ..position import Position
from ..rules import Rules
from ..xgid import XGID

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "EngineSettings",
    "RequestError",
    "answer_cube",
    "answer_evaluate",
    "answer_move",
    "docs_page",
    "engine_app",
    "openapi_document",
]


# -- settings and refusals ---------------------------------------------------------------------


def _default_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """How the service runs (a value object; checked on construction).

    >>> EngineSettings().plies, EngineSettings().max_plies
    (1, 2)
    >>> EngineSettings(plies=3)
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: plies=3: the default look-ahead is 0 to max_plies (2)
    """

    #: the look-ahead when a request names none
    plies: int = 1
    #: the deepest look-ahead a request may ask (0, 1 or 2; 2 ply costs about 21 times 1 ply)
    max_plies: int = 2
    #: how many plays ``/v1/move`` looks at ``plies`` deep when the request does not say
    count: int = 5
    #: the largest request body read, in bytes (413 beyond)
    max_body: int = 65_536
    #: the most positions in one ``/v1/evaluate`` batch
    max_batch: int = 500
    #: the threads that evaluate (requests beyond wait for one)
    workers: int = field(default_factory=_default_workers)
    #: load the engine and compile its kernels in the background at start-up
    warm_up: bool = True

    def __post_init__(self) -> None:
        def whole(name: str, low: int, high: int | None = None) -> int:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low or (
                    high is not None and value > high):
                span = f"{low} to {high}" if high is not None else f"at least {low}"
                raise BackgammonError(f"{name}={value!r}: {span}")
            return value

        top = whole("max_plies", 0, 2)
        if not isinstance(self.plies, int) or isinstance(self.plies, bool) or not 0 <= self.plies <= top:
            raise BackgammonError(f"plies={self.plies!r}: the default look-ahead is 0 to max_plies ({top})")
        whole("count", 0, _MAX_COUNT)
        whole("max_body", 64)
        whole("max_batch", 1)
        whole("workers", 1)


#: The most plays a request may have looked at deeply.
_MAX_COUNT = 32


class RequestError(BackgammonError):
    """A request the service does not act on: ``field`` names the part of the body (``None``
    for the body as a whole or the URL), ``reason`` says why, quoting the input.

    >>> RequestError("dice", "'77' is not a roll").to_dict()
    {'error': {'field': 'dice', 'reason': "'77' is not a roll"}}
    """

    def __init__(self, field: str | None, reason: str, status: int = 400) -> None:
        super().__init__(f"{field}: {reason}" if field else reason)
        self.field = field
        self.reason = reason
        self.status = status

    def to_dict(self) -> dict[str, Any]:
        """The JSON answer."""
        return {"error": {"field": self.field, "reason": self.reason}}


def _refused(exc: RequestError) -> JSONResponse:
    return JSONResponse(exc.to_dict(), status_code=exc.status)


def _short(value: Any, limit: int = 80) -> str:
    """``repr`` of an input, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- reading a request ---------------------------------------------------------------------------

_POSITION_FIELDS = ("position_id", "match_id", "xgid")
_DICE_TEXT = re.compile(r"\s*([1-6])\s*[-, ]?\s*([1-6])\s*")


@dataclass(frozen=True, slots=True)
class _Query:
    """A position as a request gave it, checked."""

    #: seen from the player on roll (before the roll; the doubler while a double is pending)
    position: Position
    state: MatchState
    rules: Rules
    #: True when the request came as an XGID (where the answer puts its field names)
    from_xgid: bool
    prefix: str

    @property
    def id_field(self) -> str:
        """The field that carries the state (for refusals)."""
        return self.prefix + ("xgid" if self.from_xgid else "match_id")

    def ids(self) -> dict[str, Any]:
        """The position in the three notations, as the answer echoes it."""
        max_cube = self.rules.cube_limit if self.rules.cube_limit is not None else 1 << 10
        xgid = XGID.from_match_state(self.state, self.position.player, self.position.opponent,
                                     beaver=self.rules.beavers, max_cube=max_cube)
        return {"position_id": self.position.position_id(), "match_id": self.state.to_match_id(),
                "xgid": xgid.to_xgid()}


def _object(body: Any, name: str = "body") -> dict[str, Any]:
    if not isinstance(body, dict):
        kind = {list: "a list", str: "a string", type(None): "null", bool: "true or false"}.get(
            type(body), "a number")
        raise RequestError(None if name == "body" else name,
                           f"a JSON object is needed, not {kind} ({_short(body)})")
    return body


def _check_fields(obj: dict[str, Any], allowed: Sequence[str], prefix: str = "") -> None:
    for key in obj:
        if key not in allowed:
            raise RequestError(prefix + str(key), f"unknown field {key!r}: expected "
                               + ", ".join(repr(a) for a in allowed))


def _text(obj: dict[str, Any], key: str, prefix: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RequestError(prefix + key, f"{_short(value)} is not a string")
    return value


def _query(obj: dict[str, Any], prefix: str = "") -> _Query:
    """The position of ``obj``'s ``position_id`` / ``match_id`` or ``xgid``."""
    xgid = _text(obj, "xgid", prefix)
    pid = _text(obj, "position_id", prefix)
    mid = _text(obj, "match_id", prefix)
    if xgid is not None and (pid is not None or mid is not None):
        raise RequestError(prefix + "xgid", "give an XGID or a Position ID (with an optional Match ID), "
                           f"not both: xgid {_short(xgid)} with position_id {_short(pid)}")
    if xgid is not None:
        try:
            text = xgid.strip()
            x = XGID.from_xgid("XGID=" + text[5:] if text[:5].upper() == "XGID=" else text)
            state = x.match_state()
        except BackgammonError as exc:
            raise RequestError(prefix + "xgid", str(exc)) from None
        position = x.position()
        money = not x.match_length
        rules = Rules(match_length=x.match_length, jacoby=x.jacoby and money, beavers=x.beaver and money,
                      cube_limit=x.max_cube)
        query = _Query(position, state, rules, True, prefix)
    elif pid is not None:
        try:
            position = Position.from_position_id(pid.strip())
        except BackgammonError as exc:
            raise RequestError(prefix + "position_id", str(exc)) from None
        try:
            state = MatchState.from_match_id(mid.strip()) if mid is not None else MatchState()
        except BackgammonError as exc:
            raise RequestError(prefix + "match_id", str(exc)) from None
        rules = Rules(match_length=state.match_length, jacoby=state.jacoby and state.is_money)
        query = _Query(position, state, rules, False, prefix)
    else:
        raise RequestError(prefix + "position_id", 'a position is needed: "position_id" (with an '
                           'optional "match_id") or "xgid"')
    given = xgid if xgid is not None else mid
    state = query.state
    if state.game_state is not GameState.PLAYING:
        raise RequestError(query.id_field, f"{_short(given)}: no game in play (the game state is "
                           f"{state.game_state.name.lower().replace('_', ' ')})")
    if state.match_length and max(state.score) >= state.match_length:
        raise RequestError(query.id_field, f"{_short(given)}: the match is over at "
                           f"{state.score[0]}-{state.score[1]} of {state.match_length}")
    try:
        query.ids()
    except BackgammonError as exc:  # an inconsistent Match ID (a resignation, the turn)
        raise RequestError(query.id_field, f"{_short(given)}: {exc}") from None
    return query


def _dice(value: Any) -> tuple[int, int]:
    if isinstance(value, str):
        found = _DICE_TEXT.fullmatch(value)
        if found:
            return int(found[1]), int(found[2])
    elif (isinstance(value, list) and len(value) == 2
          and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)):
        return value[0], value[1]
    raise RequestError("dice", f'{_short(value)} is not a roll: two numbers from 1 to 6, like [3, 1] or "31"')


def _plies(obj: dict[str, Any], settings: EngineSettings) -> int:
    value = obj.get("plies", settings.plies)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RequestError("plies", f"{_short(value)} is not a look-ahead: a whole number from 0 to "
                           f"{settings.max_plies}")
    if value > settings.max_plies:
        raise RequestError("plies", f"{value} is deeper than this service looks: at most "
                           f"{settings.max_plies} (backgammon engine --max-plies)")
    return value


def _whole(obj: dict[str, Any], key: str, default: int | None, low: int,
           high: int | None) -> int | None:
    value = obj.get(key, default)
    if value is None and default is None:
        return None
    if (not isinstance(value, int) or isinstance(value, bool) or value < low
            or (high is not None and value > high)):
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise RequestError(key, f"{_short(value)} is not a whole number {span}")
    return value


# -- the engine at some look-ahead ---------------------------------------------------------------


class _Lookahead(Evaluator):
    """The shipped evaluator whose :meth:`evaluate` looks ``plies`` ahead, answering from
    chances computed beforehand (a batch) when it has them: what :func:`cube_advice` and
    :func:`take_advice` are given so that they decide at the request's depth."""

    def __init__(self, base: Evaluator, plies: int, known: dict[bytes, Probabilities]) -> None:
        super().__init__(base.nets, bearoff=base.bearoff)
        self.plies = plies
        self.known = known

    def evaluate(self, position: Position) -> Probabilities:
        key = key_of(position)
        found = self.known.get(key.tobytes())
        if found is None:
            found = _chances(self, np.array(key), self.plies)[0]
            self.known[key.tobytes()] = found
        return found


def _chances(ev: Evaluator, keys: NDArray[np.uint8], plies: int) -> list[Probabilities]:
    return [Probabilities.from_outputs(row.tolist()) for row in ev.outputs_at(keys, plies)]


def _engine() -> Evaluator:
    ev = analysis.engine()
    if ev is None:
        raise RequestError(None, "the neural engine could not load here (its weights or numba): only "
                           "/v1/move answers, with pubeval's scores", 503)
    return ev


def _probabilities(p: Probabilities | None) -> dict[str, float] | None:
    if p is None:
        return None
    return {"win": p.win, "win_gammon": p.win_gammon, "win_backgammon": p.win_backgammon,
            "lose": p.lose, "lose_gammon": p.lose_gammon, "lose_backgammon": p.lose_backgammon}


def _scaled(value: float | None, query: _Query) -> float | None:
    """A cube advice's value in the answer's unit: money per unit of cube, match as is."""
    if value is None or not query.state.is_money:
        return value
    return value / query.state.cube_value


def _head(query: _Query, plies: int, unit: str) -> dict[str, Any]:
    s = query.state
    return {**query.ids(), "player": s.player_on_roll, "money": s.is_money, "length": s.match_length,
            "score": list(s.score), "cube_value": s.cube_value, "cube_owner": s.cube_owner, "unit": unit,
            "plies": plies}


def _cube_state(state: MatchState) -> MatchState:
    """The state before the roll and before any double (a pending double's decision is the
    doubler's, taken in this state)."""
    return replace(state, dice=None, double_offered=False, turn=state.player_on_roll)


# -- the answers (a dict in, a dict out) ---------------------------------------------------------


def answer_move(body: Any, settings: EngineSettings | None = None) -> dict[str, Any]:
    """``POST /v1/move``: the plays of a roll, best first.

    >>> a = answer_move({"xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"},
    ...                 EngineSettings(warm_up=False))
    >>> a["best"], a["unit"], a["plays"][0]["plies"]
    ('8/5 6/5', 'equity', 1)
    """
    settings = settings or EngineSettings()
    obj = _object(body)
    _check_fields(obj, (*_POSITION_FIELDS, "dice", "plies", "count", "limit"))
    query = _query(obj)
    plies = _plies(obj, settings)
    count = _whole(obj, "count", settings.count, 0, _MAX_COUNT)
    limit = _whole(obj, "limit", None, 1, None)
    state = query.state
    if state.double_offered:
        raise RequestError(query.id_field, "a double awaits an answer: there is no play to make "
                           "before it (POST /v1/cube answers it)")
    dice = _dice(obj["dice"]) if obj.get("dice") is not None else None
    if dice is None:
        if state.dice is None:
            where = ("the XGID has none" if query.from_xgid else "the Match ID has none"
                     if obj.get("match_id") is not None else "a Position ID has none")
            raise RequestError("dice", f'the roll is needed: "dice": [3, 1] in the body, or a Match ID '
                               f"or XGID with the dice rolled ({where})")
        dice = state.dice
    elif state.dice is not None and sorted(dice) != sorted(state.dice):
        raise RequestError("dice", f"{_short(obj['dice'])} is not the roll of the "
                           f"{'XGID' if query.from_xgid else 'Match ID'} ({state.dice[0]}-{state.dice[1]})")
    query = replace(query, state=replace(state, dice=dice))
    legal = query.position.legal_moves(dice)
    ranking = analysis.rank_plays(legal, query.state, plies=plies, count=count)
    shown = ranking.plays if limit is None else ranking.plays[:limit]
    plays = [{
        "rank": p.rank,
        "move": p.move,
        "value": p.value,
        "difference": p.difference,
        "plies": p.plies,
        "equity": p.probabilities.equity if p.probabilities is not None else None,
        "probabilities": _probabilities(p.probabilities),
        "position_id": legal.position(p.index).position_id(),
    } for p in shown]
    best = ranking.best
    return {**_head(query, ranking.plies, ranking.unit), "dice": list(dice), "adviser": ranking.adviser,
            "deep": ranking.deep, "legal": len(legal), "best": best.move if best is not None else None,
            "plays": plays}


def _evaluation(query: _Query, probs: Probabilities, plies: int, ev: Evaluator) -> dict[str, Any]:
    """One position's evaluation, the chances given (at ``plies``)."""
    known = {key_of(query.position).tobytes(): probs}
    state = _cube_state(query.state)
    advice = analysis.cube_advice(query.position, state, query.rules,
                                  evaluator=_Lookahead(ev, plies, known))
    nd, dt, dp = advice.no_double, advice.double_take, advice.double_pass
    proper = min(dt, dp) if advice.double and dt is not None and dp is not None else nd
    money = state.is_money
    out = {**_head(query, plies, analysis.EQUITY if money else analysis.MWC),
           "probabilities": _probabilities(probs), "cubeless_equity": probs.equity,
           "cubeful_equity": _scaled(proper, query) if money else None,
           "cubeless_mwc": None if money else analysis.cubeless_mwc(probs, state, state.player_on_roll),
           "cubeful_mwc": None if money else proper,
           "cube_action": advice.action}
    return out


def answer_evaluate(body: Any, settings: EngineSettings | None = None) -> dict[str, Any]:
    """``POST /v1/evaluate``: one position (``{"position_id": ...}``) or a batch
    (``{"positions": [...]}``, answered as ``{"results": [...]}`` in one call of the kernels).

    >>> a = answer_evaluate({"position_id": "4HPwATDgc/ABMA", "plies": 0}, EngineSettings(warm_up=False))
    >>> 0.45 < a["probabilities"]["win"] < 0.55, a["cube_action"]
    (True, 'no double')
    """
    settings = settings or EngineSettings()
    obj = _object(body)
    if "positions" in obj:
        _check_fields(obj, ("positions", "plies"))
        items = obj["positions"]
        if not isinstance(items, list) or not items:
            raise RequestError("positions", f"{_short(items)} is not a list of positions (one at least)")
        if len(items) > settings.max_batch:
            raise RequestError("positions", f"{len(items)} positions: at most {settings.max_batch} a request")
        queries = []
        for i, item in enumerate(items):
            prefix = f"positions[{i}]."
            one = _object(item, f"positions[{i}]")
            _check_fields(one, _POSITION_FIELDS, prefix)
            queries.append(_query(one, prefix))
    else:
        _check_fields(obj, (*_POSITION_FIELDS, "plies"))
        queries = [_query(obj)]
    plies = _plies(obj, settings)
    ev = _engine()
    keys = np.vstack([key_of(q.position) for q in queries])
    chances = _chances(ev, keys, plies)
    results = [_evaluation(q, p, plies, ev) for q, p in zip(queries, chances, strict=True)]
    return {"results": results} if "positions" in obj else results[0]


def answer_cube(body: Any, settings: EngineSettings | None = None) -> dict[str, Any]:
    """``POST /v1/cube``: the cube decision of the player on roll (before the roll; the doubler
    while a double is pending) and the opponent's answer to a double.

    >>> a = answer_cube({"position_id": "4HPwATDgc/ABMA", "plies": 0}, EngineSettings(warm_up=False))
    >>> a["cube"]["action"], a["take"]["action"], a["cube"]["double_pass"]
    ('no double', 'take', 1.0)
    """
    settings = settings or EngineSettings()
    obj = _object(body)
    _check_fields(obj, (*_POSITION_FIELDS, "plies"))
    query = _query(obj)
    plies = _plies(obj, settings)
    state = _cube_state(query.state)
    ev = analysis.engine()
    lookahead = None if ev is None else _Lookahead(ev, plies, {})
    cube = analysis.cube_advice(query.position, state, query.rules, evaluator=lookahead)
    take = analysis.take_advice(query.position.swap(), state, query.rules, evaluator=lookahead)
    return {
        **_head(query, plies if ev is not None else 0, cube.unit),
        "double_offered": query.state.double_offered,
        "probabilities": _probabilities(cube.probabilities),
        "cube": {
            "action": cube.action,
            "double": cube.double,
            "available": cube.available,
            "no_double": _scaled(cube.no_double, query),
            "double_take": _scaled(cube.double_take, query),
            "double_pass": _scaled(cube.double_pass, query),
        },
        "take": {
            "action": take.action,
            "take": _scaled(take.take, query),
            "pass": _scaled(take.pass_, query),
            "beaver": take.beaver,
        },
    }


# -- HTTP ------------------------------------------------------------------------------------------


async def _read_json(request: Request, limit: int) -> Any:
    """The request's JSON body, read up to ``limit`` bytes."""
    too_big = RequestError(None, f"the body is over {limit} bytes (backgammon engine --max-body; "
                           "split a batch)", 413)
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise too_big
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise too_big
    if not raw.strip():
        raise RequestError(None, 'the body is empty: send a JSON object, like {"position_id": '
                           '"4HPwATDgc/ABMA", "dice": [3, 1]}')
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RequestError(None, f"the body is not UTF-8 text ({_short(bytes(raw[:40]))})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(None, f"the body is not JSON ({exc.msg} at line {exc.lineno} column "
                           f"{exc.colno}): {_short(text)}") from None
    except RecursionError:
        raise RequestError(None, f"the body nests too deeply to read: {_short(text)}") from None


def _post(compute: Callable[[Any, EngineSettings], dict[str, Any]]) -> Callable[[Request], Any]:
    """A POST route: read the body here, compute in a worker thread."""

    async def route(request: Request) -> Response:
        settings: EngineSettings = request.app.state.settings
        try:
            body = await _read_json(request, settings.max_body)
            limiter = request.app.state.limiter
            if limiter is None:  # made in the event loop, on the first request
                limiter = request.app.state.limiter = anyio.CapacityLimiter(settings.workers)
            answer = await anyio.to_thread.run_sync(partial(compute, body, settings), limiter=limiter)
        except RequestError as exc:
            return _refused(exc)
        except BackgammonError as exc:  # the library's word on an input the checks let through
            return _refused(RequestError(None, str(exc)))
        return JSONResponse(answer)

    return route


async def _health(request: Request) -> Response:
    settings: EngineSettings = request.app.state.settings
    ready: threading.Event = request.app.state.ready
    loaded = analysis.engine() is not None if ready.is_set() else None
    return JSONResponse({
        "ok": True, "version": __version__, "ready": ready.is_set(),
        "engine": None if loaded is None else "expert" if loaded else "pubeval",
        "plies": settings.plies, "max_plies": settings.max_plies, "count": settings.count,
        "max_body": settings.max_body, "max_batch": settings.max_batch, "workers": settings.workers,
    })


async def _openapi(request: Request) -> Response:
    return JSONResponse(request.app.state.openapi)


async def _docs(request: Request) -> Response:
    page: str = request.app.state.docs
    return HTMLResponse(page.replace(_HOST, html.escape(str(request.base_url).rstrip("/"))))


async def _root(request: Request) -> Response:
    return RedirectResponse("/docs")


async def _not_found(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 404
    what = "no such route" if status == 404 else "this route does not take that method"
    headers = exc.headers if isinstance(exc, HTTPException) else None
    return JSONResponse({"error": {"field": None, "reason": f"{request.method} {request.url.path}: {what} "
                                   "(the routes are listed at /docs and /openapi.json)"}},
                        status_code=status, headers=headers)


def _warm(settings: EngineSettings, ready: threading.Event) -> None:
    """Load the engine and compile (or load from numba's cache) what the answers run."""
    try:
        if analysis.warm_up():
            for plies in range(settings.max_plies + 1):
                answer_cube({"position_id": "4HPwATDgc/ABMA", "plies": plies}, settings)
                answer_move({"position_id": "4HPwATDgc/ABMA", "dice": [3, 1], "plies": plies,
                             "count": 1}, settings)
    finally:
        ready.set()


def engine_app(settings: EngineSettings | None = None) -> Starlette:
    """The engine service's Starlette application (module docs)."""
    settings = settings or EngineSettings()
    ready = threading.Event()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if settings.warm_up and not ready.is_set():
            threading.Thread(target=_warm, args=(settings, ready), name="engine-warm-up", daemon=True).start()
        yield

    routes = [
        Route("/", _root, methods=["GET"]),
        Route("/v1/move", _post(answer_move), methods=["POST"]),
        Route("/v1/evaluate", _post(answer_evaluate), methods=["POST"]),
        Route("/v1/cube", _post(answer_cube), methods=["POST"]),
        Route("/v1/health", _health, methods=["GET"]),
        Route("/openapi.json", _openapi, methods=["GET"]),
        Route("/docs", _docs, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={404: _not_found, 405: _not_found})
    if not settings.warm_up:
        ready.set()
    app.state.settings = settings
    app.state.ready = ready
    app.state.limiter = None
    app.state.openapi = openapi_document(settings)
    app.state.docs = docs_page(app.state.openapi)
    return app


# -- the OpenAPI document and the page -------------------------------------------------------------


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(required: Sequence[str], **properties: Any) -> dict[str, Any]:
    """A closed object schema."""
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


_NUM = {"type": "number"}
_NUM_OR_NULL = {"type": ["number", "null"]}
_INT = {"type": "integer"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}
_UNIT = {"enum": ["equity", "mwc", "score", "pubeval"],
         "description": "equity: money, points per unit of cube; mwc: match winning chances (0-1); "
                        "score: pubeval's scores (the neural engine could not load: only the order means "
                        "something); pubeval: actions only, no numbers"}

_POSITION_PROPS = {
    "position_id": {"type": "string", "description": "gnubg's Position ID, seen from the player on roll",
                    "examples": ["4HPwATDgc/ABMA"]},
    "match_id": {"type": "string", "description": "gnubg's Match ID (score, cube, turn, dice); none: money "
                 "play, player 0 on roll, cube centred, Jacoby rule on", "examples": ["cAkAAAAAAAAA"]},
    "xgid": {"type": "string", "description": "an XGID (eXtreme Gammon), with or without 'XGID='",
             "examples": ["XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"]},
}
_ONE_POSITION = {"oneOf": [{"required": ["position_id"]}, {"required": ["xgid"]}]}


def _plies_schema(settings: EngineSettings) -> dict[str, Any]:
    return {"type": "integer", "minimum": 0, "maximum": settings.max_plies, "default": settings.plies,
            "description": "look-ahead: 0 (the network), 1 (every roll of the side to play next), 2 "
                           "(about 21 times slower than 1)"}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref("Error")}}}


def _answer(schema: dict[str, Any], description: str, example: Any) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": schema, "example": example}}}


def _request(schema: dict[str, Any], examples: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {
        "schema": schema,
        "examples": {name: {"summary": summary, "value": value} for name, (summary, value) in examples.items()},
    }}}


_REFUSALS = {
    "400": _error("the request was not acted on: `field` names the part of the body, `reason` says why"),
    "413": _error("the body is over the service's size limit"),
    "503": _error("the neural engine could not load on this server"),
}

#: The examples: the answers of the shipped network (rounded; a new network changes the figures).
_AFTER_31 = {"win": 0.5551, "win_gammon": 0.1458, "win_backgammon": 0.0066, "lose": 0.4449,
             "lose_gammon": 0.1010, "lose_backgammon": 0.0045}
_OPENING = {"win": 0.5281, "win_gammon": 0.1252, "win_backgammon": 0.0053, "lose": 0.4719,
            "lose_gammon": 0.1030, "lose_backgammon": 0.0043}
_START = {"position_id": "4HPwATDgc/ABMA", "match_id": "MAEAAAAAAAAA",
          "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:1:0:10", "player": 0, "money": True,
          "length": 0, "score": [0, 0], "cube_value": 1, "cube_owner": None, "unit": "equity", "plies": 1}
_MOVE_EXAMPLE = {
    **_START, "match_id": "MIEFAAAAAAAA", "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:0:0:1:0:10",
    "dice": [3, 1], "adviser": "expert", "deep": 5, "legal": 16, "best": "8/5 6/5",
    "plays": [{"rank": 1, "move": "8/5 6/5", "value": 0.1572, "difference": 0.0, "plies": 1,
               "equity": 0.1572, "probabilities": _AFTER_31, "position_id": "sGfwATDgc/ABMA"}],
}
_EVALUATE_EXAMPLE = {
    **_START, "probabilities": _OPENING, "cubeless_equity": 0.0794, "cubeful_equity": 0.0817,
    "cubeless_mwc": None, "cubeful_mwc": None, "cube_action": "no double",
}
_CUBE_EXAMPLE = {
    **_START, "double_offered": False, "probabilities": _OPENING,
    "cube": {"action": "no double", "double": False, "available": True, "no_double": 0.0817,
             "double_take": -0.1622, "double_pass": 1.0},
    "take": {"action": "take", "take": 0.1622, "pass": -1.0, "beaver": False},
}

_HEAD_PROPS = {
    "position_id": _STR, "match_id": _STR, "xgid": _STR,
    "player": {"enum": [0, 1], "description": "the player on roll (gnubg's numbering)"},
    "money": _BOOL, "length": {"type": "integer", "description": "the match length, 0 for money play"},
    "score": {"type": "array", "items": _INT, "minItems": 2, "maxItems": 2, "description": "players 0 and 1"},
    "cube_value": {"type": "integer", "description": "the cube's value"},
    "cube_owner": {"enum": [0, 1, None], "description": "who owns the cube (null: centred)"},
    "unit": _UNIT,
    "plies": {"type": "integer", "description": "the look-ahead the answer used"},
}
_HEAD = tuple(_HEAD_PROPS)


def _schemas(settings: EngineSettings) -> dict[str, Any]:
    dice = {"oneOf": [
        {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6}, "minItems": 2, "maxItems": 2},
        {"type": "string", "pattern": "^\\s*[1-6]\\s*[-, ]?\\s*[1-6]\\s*$"},
    ], "description": "the roll: [3, 1], \"31\" or \"3-1\"; none: the dice of the Match ID / XGID"}
    plies = _plies_schema(settings)
    return {
        "Error": _obj(("error",), error=_obj(("field", "reason"),
                      field={"type": ["string", "null"], "description": "the part of the body (null: "
                             "the body or the URL as a whole)", "examples": ["dice", "positions[2].xgid"]},
                      reason={"type": "string", "description": "why, quoting the input"})),
        "Probabilities": _obj(("win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon"),
                              **{k: {"type": "number", "minimum": 0, "maximum": 1} for k in
                                 ("win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon")}),
        "Position": {**_obj((), **_POSITION_PROPS), **_ONE_POSITION},
        "MoveRequest": {**_obj((), **_POSITION_PROPS, dice=dice, plies=plies,
                               count={"type": "integer", "minimum": 0, "maximum": _MAX_COUNT,
                                      "default": settings.count,
                                      "description": "how many of the best 0-ply plays are looked at `plies` deep"},
                               limit={"type": "integer", "minimum": 1,
                                      "description": "list only the best `limit` plays (default: all)"}),
                        **_ONE_POSITION},
        "Play": _obj(("rank", "move", "value", "difference", "plies", "equity", "probabilities", "position_id"),
                     rank=_INT, move={"type": "string", "description": "standard notation; '' when no play "
                                      "is possible"},
                     value={"type": "number", "description": "in the answer's unit, for the player on roll"},
                     difference={"type": "number", "description": "value minus the best play's (<= 0)"},
                     plies={"type": "integer", "description": "the look-ahead of this play's value"},
                     equity={"type": ["number", "null"], "description": "cubeless money equity after the play"},
                     probabilities={"oneOf": [_ref("Probabilities"), {"type": "null"}]},
                     position_id={"type": "string", "description": "the position after the play, seen by "
                                  "the opponent (on roll next)"}),
        "MoveAnswer": _obj((*_HEAD, "dice", "adviser", "deep", "legal", "best", "plays"), **_HEAD_PROPS,
                           dice={"type": "array", "items": _INT, "minItems": 2, "maxItems": 2},
                           adviser={"enum": ["expert", "pubeval"]},
                           deep={"type": "integer", "description": "how many plays were looked at `plies` deep"},
                           legal={"type": "integer", "description": "the number of legal plays"},
                           best={"type": ["string", "null"], "description": "null when there is no legal play"},
                           plays={"type": "array", "items": _ref("Play")}),
        "EvaluateRequest": {**_obj((), **_POSITION_PROPS, plies=plies), **_ONE_POSITION},
        "EvaluateBatch": _obj(("positions",), positions={"type": "array", "minItems": 1,
                                                         "maxItems": settings.max_batch,
                                                         "items": _ref("Position")}, plies=plies),
        "Evaluation": _obj((*_HEAD, "probabilities", "cubeless_equity", "cubeful_equity", "cubeless_mwc",
                            "cubeful_mwc", "cube_action"), **_HEAD_PROPS,
                           probabilities=_ref("Probabilities"),
                           cubeless_equity={"type": "number", "description": "money equity with no cube"},
                           cubeful_equity={"type": ["number", "null"], "description": "money play: the "
                                           "equity with the cube (doubling when right), per unit of cube; "
                                           "null in a match"},
                           cubeless_mwc={"type": ["number", "null"], "description": "match: the match "
                                         "winning chances if nobody doubles again; null in money play"},
                           cubeful_mwc={"type": ["number", "null"], "description": "match: the match "
                                        "winning chances with the cube; null in money play"},
                           cube_action=_STR),
        "EvaluateBatchAnswer": _obj(("results",), results={"type": "array", "items": _ref("Evaluation")}),
        "CubeRequest": {**_obj((), **_POSITION_PROPS, plies=plies), **_ONE_POSITION},
        "CubeAnswer": _obj((*_HEAD, "double_offered", "probabilities", "cube", "take"), **_HEAD_PROPS,
                           double_offered={"type": "boolean", "description": "the Match ID / XGID has a "
                                           "double pending (the decision is the doubler's all the same)"},
                           probabilities={"oneOf": [_ref("Probabilities"), {"type": "null"}]},
                           cube=_obj(("action", "double", "available", "no_double", "double_take", "double_pass"),
                                     action={"enum": ["no double", "double, take", "double, pass", "too good",
                                                      "no double, beaver", "no cube action", "double"],
                                             "description": "the proper action of the player on roll"},
                                     double=_BOOL, available={"type": "boolean", "description": "the rules "
                                                              "let the player on roll double now"},
                                     no_double=_NUM_OR_NULL, double_take=_NUM_OR_NULL,
                                     double_pass=_NUM_OR_NULL),
                           take=_obj(("action", "take", "pass", "beaver"),
                                     action={"enum": ["take", "pass", "beaver"],
                                             "description": "the opponent's answer to a double"},
                                     take={"type": ["number", "null"], "description": "for the opponent"},
                                     **{"pass": {"type": ["number", "null"], "description": "for the opponent"}},
                                     beaver=_BOOL)),
        "Health": _obj(("ok", "version", "ready", "engine", "plies", "max_plies", "count", "max_body",
                        "max_batch", "workers"), ok=_BOOL, version=_STR,
                       ready={"type": "boolean", "description": "the engine is loaded and compiled"},
                       engine={"enum": ["expert", "pubeval", None]}, plies=_INT, max_plies=_INT, count=_INT,
                       max_body=_INT, max_batch=_INT, workers=_INT),
    }


def openapi_document(settings: EngineSettings | None = None) -> dict[str, Any]:
    """The service's OpenAPI 3.1 document (defaults and limits from ``settings``).

    >>> sorted(openapi_document()["paths"])
    ['/', '/docs', '/openapi.json', '/v1/cube', '/v1/evaluate', '/v1/health', '/v1/move']
    """
    settings = settings or EngineSettings()
    opening = "4HPwATDgc/ABMA"
    paths: dict[str, Any] = {
        "/v1/move": {"post": {
            "summary": "the best play of a roll and every legal play, ranked",
            "description": "All plays at 0 ply, the best `count` again at `plies`; money values in cubeless "
                           "equity, match values in cubeless match winning chances of the player on roll.",
            "operationId": "move",
            "requestBody": _request(_ref("MoveRequest"), {
                "opening": ("the opening 3-1, money", {"position_id": opening, "dice": [3, 1]}),
                "xgid": ("an XGID with its dice, 0 ply, the best 3",
                         {"xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "plies": 0, "limit": 3}),
                "match": ("a 7-point match at 2-4 (the Match ID has the dice 6-1)",
                          {"position_id": opening, "match_id": "MAHnACAAIAAA"}),
            }),
            "responses": {"200": _answer(_ref("MoveAnswer"), "the plays, best first", _MOVE_EXAMPLE),
                          **_REFUSALS},
        }},
        "/v1/evaluate": {"post": {
            "summary": "the chances, cubeless and cubeful equity (money) or match winning chances (match)",
            "description": "The position before the roll, for the player on roll. A body "
                           "`{\"positions\": [...], \"plies\": n}` evaluates up to "
                           f"{settings.max_batch} positions in one call and answers `{{\"results\": [...]}}`.",
            "operationId": "evaluate",
            "requestBody": _request({"oneOf": [_ref("EvaluateRequest"), _ref("EvaluateBatch")]}, {
                "opening": ("the opening position, money", {"position_id": opening}),
                "match": ("an XGID in a 5-point match, 0 ply",
                          {"xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:5:10", "plies": 0}),
                "batch": ("two positions at once", {"positions": [{"position_id": opening},
                                                                   {"position_id": "4HPwASDgc/ABMA"}],
                                                    "plies": 0}),
            }),
            "responses": {"200": _answer({"oneOf": [_ref("Evaluation"), _ref("EvaluateBatchAnswer")]},
                                         "the evaluation (or the list of them)", _EVALUATE_EXAMPLE),
                          **_REFUSALS},
        }},
        "/v1/cube": {"post": {
            "summary": "the cube decision of the player on roll and the take decision of the opponent",
            "description": "No double / double, take / double, pass for the player on roll before its roll "
                           "(money: per unit of cube, so double/pass is 1.0; match: match winning chances), "
                           "the proper action, and the opponent's answer to a double (its values).",
            "operationId": "cube",
            "requestBody": _request(_ref("CubeRequest"), {
                "opening": ("the opening position", {"position_id": opening}),
                "race": ("a race, 69 pips against 96: double, pass", {"position_id": "2N1tAAC2uxsAAA", "plies": 0}),
            }),
            "responses": {"200": _answer(_ref("CubeAnswer"), "the decision", _CUBE_EXAMPLE), **_REFUSALS},
        }},
        "/v1/health": {"get": {
            "summary": "the service answers; whether its engine is loaded, and its settings",
            "operationId": "health",
            "responses": {"200": _answer(_ref("Health"), "the service's state", {
                "ok": True, "version": __version__, "ready": True, "engine": "expert", "plies": settings.plies,
                "max_plies": settings.max_plies, "count": settings.count, "max_body": settings.max_body,
                "max_batch": settings.max_batch, "workers": settings.workers})},
        }},
        "/openapi.json": {"get": {
            "summary": "this document",
            "operationId": "openapi",
            "responses": {"200": {"description": "OpenAPI 3.1",
                                  "content": {"application/json": {"schema": {"type": "object"}}}}},
        }},
        "/docs": {"get": {
            "summary": "a page listing the endpoints with examples",
            "operationId": "docs",
            "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": _STR}}}},
        }},
        "/": {"get": {
            "summary": "sends a browser to /docs",
            "operationId": "root",
            "responses": {"307": {"description": "to /docs"}},
        }},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "backgammon engine",
            "version": __version__,
            "description": "The backgammon engine for other programs and bots: best plays, evaluations and "
                           "cube decisions. Positions as gnubg's Position ID (with an optional Match ID) or "
                           "an XGID. Money values are points per unit of cube; match values are match "
                           "winning chances (Kazaross-XG2 table). Refusals are `{\"error\": {\"field\", "
                           "\"reason\"}}`.",
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "paths": paths,
        "components": {"schemas": _schemas(settings)},
    }


#: Where the page's examples name the service (``/docs`` puts the address it was reached at).
_HOST = "http://HOST:PORT"


def docs_page(document: dict[str, Any]) -> str:
    """A plain HTML page of ``document``'s endpoints, each with its examples (no script, nothing
    fetched from elsewhere).

    >>> "POST /v1/move" in docs_page(openapi_document())
    True
    """
    def e(text: str) -> str:  # escaped, with Markdown's `code` as <code>
        return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))

    info = document["info"]
    parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(info['title'])}</title>",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;"
        "line-height:1.4}pre{background:#f4f4f4;padding:.6rem;overflow-x:auto}h2{border-top:1px solid #ccc;"
        "padding-top:1rem}code{background:#f4f4f4}</style></head><body>",
        f"<h1>{e(info['title'])} {e(info['version'])}</h1>", f"<p>{e(info['description'])}</p>",
        '<p>The machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>',
        "<ul>",
    ]
    operations = [(path, method, op) for path, item in document["paths"].items() for method, op in item.items()]
    for path, method, op in operations:
        anchor = op["operationId"]
        parts.append(f'<li><a href="#{e(anchor)}"><code>{method.upper()} {e(path)}</code></a> — {e(op["summary"])}</li>')
    parts.append("</ul>")
    for path, method, op in operations:
        parts.append(f'<h2 id="{e(op["operationId"])}"><code>{method.upper()} {e(path)}</code></h2>')
        parts.append(f"<p>{e(op['summary'])}.</p>")
        if "description" in op:
            parts.append(f"<p>{e(op['description'])}</p>")
        if method == "get" and path.startswith("/v1/"):
            parts.append(f"<pre>curl -s {_HOST}{e(path)}</pre>")
        body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
        for example in body.get("examples", {}).values():
            value = json.dumps(example["value"])
            parts.append(f"<h3>{e(example['summary'])}</h3>")
            parts.append("<pre>curl -s -X POST " + _HOST + e(path)
                         + " -H 'content-type: application/json' -d '" + e(value) + "'</pre>")
        for status, response in op["responses"].items():
            content = response.get("content", {}).get("application/json", {})
            if "example" in content:
                parts.append(f"<p>Answer ({e(status)}, {e(response['description'])}):</p>")
                parts.append(f"<pre>{e(json.dumps(content['example'], indent=2))}</pre>")
            elif status != "200":
                parts.append(f"<p>{e(status)}: {e(response['description'])}.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)
