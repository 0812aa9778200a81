"""Results of finished matches, the rating update, profiles, the leaderboard and history.

When a match ends, the room's final commit runs :func:`finish` inside its transaction
(``Commit.after``): one row of ``results`` (winner, loser, score, why it ended) and, for a
rated match between two accounts, the FIBS update of both (:func:`backgammon.rating.rate`).
Running it again for the same table changes nothing, so a commit retried after a rollback
is safe.

The reads (:func:`profile`, :func:`history`, :func:`leaderboard`, :func:`result_of`) are
plain functions over the store, called in a worker thread by :func:`routes`' handlers.

>>> import tempfile
>>> from datetime import datetime, timezone
>>> from backgammon.dice import ScriptedDice
>>> from backgammon.table import Seat, Table, commands as cmd
>>> from .store import Store, tables_t
>>> store = Store(f"sqlite:///{tempfile.mkdtemp()}/club.sqlite3")
>>> table = Table.match([Seat("ann"), Seat("bob")], length=1, dice=ScriptedDice([(3, 1)]))
>>> _ = table.submit("ann", cmd.Roll()); _ = table.submit("ann", cmd.Resign(1))
>>> _ = table.submit("bob", cmd.Accept())
>>> settings = {"length": 1, "rules": {}, "seats": [{"name": "ann", "kind": "human"},
...                                                 {"name": "bob", "kind": "human"}]}
>>> now = datetime.now(timezone.utc)
>>> with store.engine.begin() as c:
...     _ = c.execute(tables_t.insert().values(id="t1", kind="match", settings=settings, tokens={},
...                   state={}, seq=3, status="over", created=now, updated=now))
...     finish(c, "t1", "match", settings, table, now)
>>> result_of(store, "t1")
{'winner': 'bob', 'reason': 'resigned', 'ratings': None}
>>> store.close()
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import anyio
import sqlalchemy as sa
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..errors import BackgammonError
from ..events import ResultKind
from ..rating import Rating, rate
from ..table import MatchContest, Table
from .store import Store, results_t, seat_users_t, tables_t, users_t

__all__ = [
    "OPENAPI_PATHS",
    "REASONS",
    "ResultsError",
    "finish",
    "history",
    "leaderboard",
    "profile",
    "result_of",
    "routes",
]

#: Why a match ended: played out, the last game resigned, a seat out of time, a seat left.
REASONS = ("played", "resigned", "time", "abandoned")
#: The roles whose accounts are ranked (people, moderators included, and bots).
RANKED_ROLES = ("player", "moderator", "bot")
#: How many results a profile lists.
RECENT = 10
#: Page sizes of the history and the leaderboard: (default, most).
HISTORY_LIMIT = (20, 100)
LEADERBOARD_LIMIT = (50, 200)

STATIC = Path(__file__).resolve().parent / "static"

Source = Store | sa.Engine | sa.Connection
T = TypeVar("T")


class ResultsError(BackgammonError):
    """A request for a profile, history or leaderboard that cannot be answered; ``status``
    is the HTTP status (404: no such player, 400: a bad parameter)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# -- small pieces ------------------------------------------------------------------------------


def _utc(value: datetime) -> datetime:
    """``value`` as an aware UTC datetime (SQLite hands naive ones back)."""
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else _utc(value).isoformat()


def _read(source: Source, fn: Callable[[sa.Connection], T]) -> T:
    """Run ``fn`` on a connection of ``source`` (a Store, an Engine or a Connection)."""
    if isinstance(source, sa.Connection):
        return fn(source)
    engine = source.engine if isinstance(source, Store) else source
    with engine.connect() as connection:
        return fn(connection)


def _key(name: str) -> str:
    """A name as ``users.name_key`` keeps it."""
    return name.casefold()


def _seat_names(settings: Mapping[str, Any]) -> list[str | None]:
    """The seats' names of a table's settings (None: a seat nobody has taken yet)."""
    seats = settings.get("seats") or []
    return [s.get("name") if isinstance(s, Mapping) else None for s in seats]


# -- the result of a match ---------------------------------------------------------------------


def _forfeit(table: Table) -> tuple[str | None, str | None]:
    """The seat that forfeited the match and why (``"time"``/``"abandoned"``), from the log's
    forfeit event; ``(None, None)`` when the match was not forfeited."""
    contest = table.contest
    for event in reversed(contest.events):
        if getattr(event, "type", None) != "forfeit":
            continue
        data = event.to_dict()
        player = data.get("player", data.get("seat"))
        seat = contest.seats[player] if isinstance(player, int) and 0 <= player < len(contest.seats) else player
        reason = data.get("reason")
        return (seat if isinstance(seat, str) else None,
                reason if reason in ("time", "abandoned") else "abandoned")
    return None, None


def outcome(table: Table) -> tuple[str, str, str, dict[str, int]]:
    """``(winner seat, loser seat, reason, score)`` of a finished match at ``table``;
    :class:`ResultsError` when the table holds no match or its match is not over."""
    contest = table.contest
    if not isinstance(contest, MatchContest) or contest.match.is_money:
        raise ResultsError("only a match to N points has a result; this table plays money or a chouette")
    match = contest.match
    seats = contest.seats
    forfeited, why = _forfeit(table)
    if match.winner is not None:
        winner = seats[match.winner]
    elif forfeited is not None:
        winner = seats[1 - seats.index(forfeited)]
    else:
        raise ResultsError("the match is not over: a result is written when it ends")
    loser = seats[1 - seats.index(winner)]
    if why is not None:
        reason = why
    else:
        last = match.games[-1].result
        reason = "resigned" if last is not None and last.kind is ResultKind.RESIGNED else "played"
    score = {seat: points for seat, points in zip(seats, match.capped_score)}
    if forfeited is not None:
        score[winner] = match.length  # R32: the side that did not forfeit wins the match
    return winner, loser, reason, score


def _accounts(connection: sa.Connection, table_id: str, settings: Mapping[str, Any]) -> dict[str, int]:
    """The account id of each seat of a table that has one: ``seat_users``, and for a bot
    seat without a row there, the bot's account (role ``bot``, named after its level)."""
    rows = connection.execute(
        sa.select(seat_users_t.c.seat, seat_users_t.c.user_id).where(seat_users_t.c.table_id == table_id)
    )
    accounts = {row.seat: row.user_id for row in rows}
    for seat in settings.get("seats") or []:
        if not isinstance(seat, Mapping) or seat.get("kind") != "bot" or seat.get("name") in accounts:
            continue
        level = seat.get("bot")
        if not isinstance(level, str):
            continue
        bot_id = connection.execute(
            sa.select(users_t.c.id).where(users_t.c.name_key == _key(level), users_t.c.role == "bot")
        ).scalar()
        if bot_id is not None:
            accounts[seat["name"]] = bot_id
    return accounts


def finish(
    connection: sa.Connection,
    table_id: str,
    kind: str,
    settings: Mapping[str, Any],
    table: Table,
    at: datetime,
) -> None:
    """Write the result of the match that just ended at ``table`` (``kind`` ``"match"``),
    inside the caller's transaction on ``connection``: the ``results`` row and, when
    ``settings["rated"]`` and both seats are distinct accounts, the FIBS update of both
    accounts' rating and experience (bots' accounts too). Does nothing when the table has a
    result already, when ``kind`` is not ``"match"`` or when the match is not over."""
    if kind != "match":
        return
    contest = table.contest
    if not isinstance(contest, MatchContest) or contest.match.is_money:
        return
    exists = connection.execute(
        sa.select(results_t.c.table_id).where(results_t.c.table_id == table_id)
    ).first()
    if exists is not None:
        return
    try:
        winner, loser, reason, score = outcome(table)
    except ResultsError:
        return
    accounts = _accounts(connection, table_id, settings)
    winner_id, loser_id = accounts.get(winner), accounts.get(loser)
    length = contest.match.length
    rated = bool(settings.get("rated")) and winner_id is not None and loser_id is not None and winner_id != loser_id
    ratings: dict[str, dict[str, float | int]] | None = None
    if rated:
        assert winner_id is not None and loser_id is not None
        rows = connection.execute(
            sa.select(users_t.c.id, users_t.c.rating, users_t.c.experience)
            .where(users_t.c.id.in_((winner_id, loser_id)))
            .order_by(users_t.c.id)
            .with_for_update()
        )
        before = {row.id: Rating(float(row.rating), int(row.experience)) for row in rows}
        if len(before) == 2:
            after_w, after_l = rate(before[winner_id], before[loser_id], length)
            ratings = {}
            for seat, uid, new in ((winner, winner_id, after_w), (loser, loser_id, after_l)):
                old = before[uid]
                connection.execute(
                    users_t.update().where(users_t.c.id == uid)
                    .values(rating=new.rating, experience=new.experience)
                )
                ratings[seat] = {
                    "before": old.rating,
                    "after": new.rating,
                    "experience_before": old.experience,
                    "experience_after": new.experience,
                }
        else:  # an account was deleted meanwhile: the result stands, unrated
            rated = False
    connection.execute(
        results_t.insert().values(
            table_id=table_id,
            rated=rated,
            length=length,
            winner_seat=winner,
            loser_seat=loser,
            winner_id=winner_id,
            loser_id=loser_id,
            score=score,
            reason=reason,
            ratings=ratings,
            finished=_utc(at),
        )
    )


def _result_dict(row: Any) -> dict[str, Any]:
    return {"winner": row.winner_seat, "reason": row.reason, "ratings": row.ratings}


def result_of(source: Source, table_id: str) -> dict[str, Any] | None:
    """TableInfo's ``"result"`` of a table: ``{"winner": seat, "reason", "ratings"}``
    (``ratings`` null when unrated), or None while it has no result."""

    def read(connection: sa.Connection) -> dict[str, Any] | None:
        row = connection.execute(sa.select(results_t).where(results_t.c.table_id == table_id)).first()
        return None if row is None else _result_dict(row)

    return _read(source, read)


# -- profiles ----------------------------------------------------------------------------------


def _user(connection: sa.Connection, name: str) -> Any:
    row = connection.execute(sa.select(users_t).where(users_t.c.name_key == _key(name))).first()
    if row is None:
        raise ResultsError(f"there is no player called {name!r}", 404)
    return row


def _count(connection: sa.Connection, *where: Any) -> int:
    value = connection.execute(sa.select(sa.func.count()).select_from(results_t).where(*where)).scalar()
    return int(value or 0)


def _names_of_seats(connection: sa.Connection, table_ids: Sequence[str]) -> dict[str, dict[str, str]]:
    """The account name of each seat of each table (``seat_users``, then results' ids)."""
    out: dict[str, dict[str, str]] = {t: {} for t in table_ids}
    if not table_ids:
        return out
    rows = connection.execute(
        sa.select(seat_users_t.c.table_id, seat_users_t.c.seat, users_t.c.name)
        .join(users_t, users_t.c.id == seat_users_t.c.user_id)
        .where(seat_users_t.c.table_id.in_(table_ids))
    )
    for row in rows:
        out[row.table_id][row.seat] = row.name
    winners = users_t.alias("winners")
    losers = users_t.alias("losers")
    rows = connection.execute(
        sa.select(results_t.c.table_id, results_t.c.winner_seat, results_t.c.loser_seat,
                  winners.c.name.label("winner_name"), losers.c.name.label("loser_name"))
        .outerjoin(winners, winners.c.id == results_t.c.winner_id)
        .outerjoin(losers, losers.c.id == results_t.c.loser_id)
        .where(results_t.c.table_id.in_(table_ids))
    )
    for row in rows:
        if row.winner_name is not None:
            out[row.table_id].setdefault(row.winner_seat, row.winner_name)
        if row.loser_name is not None:
            out[row.table_id].setdefault(row.loser_seat, row.loser_name)
    return out


def _recent(connection: sa.Connection, user_id: int, limit: int) -> list[dict[str, Any]]:
    """The account's last ``limit`` results, newest first, from its own point of view."""
    query = (
        sa.select(results_t, tables_t.c.settings)
        .join(tables_t, tables_t.c.id == results_t.c.table_id)
        .where(sa.or_(results_t.c.winner_id == user_id, results_t.c.loser_id == user_id))
        .order_by(results_t.c.finished.desc(), results_t.c.table_id.desc())
        .limit(limit)
    )
    rows = list(connection.execute(query))
    names = _names_of_seats(connection, [row.table_id for row in rows])
    out = []
    for row in rows:
        won = row.winner_id == user_id
        mine, theirs = (row.winner_seat, row.loser_seat) if won else (row.loser_seat, row.winner_seat)
        ratings = row.ratings or {}
        out.append({
            "table": row.table_id,
            "length": row.length,
            "rated": row.rated,
            "finished": _iso(row.finished),
            "seat": mine,
            "opponent": {"name": theirs, "account": names[row.table_id].get(theirs)},
            "won": won,
            "reason": row.reason,
            "score": row.score,
            "rating": ratings.get(mine),
            "links": _links(row.table_id),
        })
    return out


def _links(table_id: str) -> dict[str, str]:
    return {"live": f"/t/{table_id}", "replay": f"/r/{table_id}"}


def profile(source: Source, name: str) -> dict[str, Any]:
    """The profile of the account called ``name`` (any case): name, role, rating,
    experience, created, matches won, lost and abandoned, the last results;
    :class:`ResultsError` 404 when there is no such account."""

    def read(connection: sa.Connection) -> dict[str, Any]:
        user = _user(connection, name)
        return {
            "name": user.name,
            "role": user.role,
            "rating": round(float(user.rating), 2),
            "experience": user.experience,
            "created": _iso(user.created),
            "won": _count(connection, results_t.c.winner_id == user.id),
            "lost": _count(connection, results_t.c.loser_id == user.id),
            "abandoned": _count(connection, results_t.c.loser_id == user.id, results_t.c.reason == "abandoned"),
            "recent": _recent(connection, user.id, RECENT),
            "links": {"profile": f"/u/{user.name}", "history": f"/u/{user.name}/history"},
        }

    return _read(source, read)


# -- history -----------------------------------------------------------------------------------


def _score_of(kind: str, settings: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, int] | None:
    """The score of an unfinished match or money session from its stored log (the last
    ``game_start`` or ``match_end``), by seat; None for a chouette or a table not started."""
    if kind not in ("match", "money"):
        return None
    table = state.get("table") if isinstance(state, Mapping) else None
    if not isinstance(table, Mapping):
        return None
    seats = [s.get("name") for s in table.get("seats") or [] if isinstance(s, Mapping)]
    log = table.get("log")
    events = log.get("events") if isinstance(log, Mapping) else None
    if len(seats) != 2 or not isinstance(events, list):
        return None
    length = settings.get("length") or 0
    for event in reversed(events):
        if isinstance(event, Mapping) and event.get("type") in ("match_end", "game_start"):
            score = event.get("score")
            if isinstance(score, list) and len(score) == 2:
                points = [min(p, length) if length else p for p in score]
                return {str(seat): int(p) for seat, p in zip(seats, points)}
    return {str(seat): 0 for seat in seats}


def _page_size(raw: str | None, limits: tuple[int, int]) -> int:
    default, most = limits
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ResultsError(f"limit={raw!r}: send a whole number from 1 to {most}") from None
    if not 1 <= value <= most:
        raise ResultsError(f"limit={value}: send a whole number from 1 to {most}")
    return value


def _before(raw: str | None) -> datetime | None:
    if raw is None or raw == "":
        return None
    try:
        return _utc(datetime.fromisoformat(raw.replace("Z", "+00:00")))
    except ValueError:
        raise ResultsError(
            f"before={raw!r}: send a time like 2025-01-31T12:00:00+00:00 (the 'next' of the previous page)"
        ) from None


def history(source: Source, name: str, before: datetime | None = None,
            limit: int = HISTORY_LIMIT[0]) -> dict[str, Any]:
    """Every table the account called ``name`` held a seat at (``seat_users``, or a result
    that names it: a bot's), finished or not, newest first: at most ``limit`` created before
    ``before``. ``next`` is the ``before`` of the following page (None: no more)."""

    def read(connection: sa.Connection) -> dict[str, Any]:
        user = _user(connection, name)
        held = sa.select(seat_users_t.c.table_id).where(seat_users_t.c.user_id == user.id)
        decided = sa.select(results_t.c.table_id).where(
            sa.or_(results_t.c.winner_id == user.id, results_t.c.loser_id == user.id)
        )
        query = (
            sa.select(tables_t.c.id, tables_t.c.kind, tables_t.c.settings, tables_t.c.state,
                      tables_t.c.status, tables_t.c.created, tables_t.c.updated)
            .where(sa.or_(tables_t.c.id.in_(held), tables_t.c.id.in_(decided)))
            .order_by(tables_t.c.created.desc(), tables_t.c.id.desc())
            .limit(limit + 1)
        )
        if before is not None:
            query = query.where(tables_t.c.created < before)
        rows = list(connection.execute(query))
        more = len(rows) > limit
        rows = rows[:limit]
        ids = [row.id for row in rows]
        results = {
            r.table_id: r
            for r in connection.execute(sa.select(results_t).where(results_t.c.table_id.in_(ids)))
        } if ids else {}
        mine = {
            r.table_id: r.seat
            for r in connection.execute(
                sa.select(seat_users_t.c.table_id, seat_users_t.c.seat)
                .where(seat_users_t.c.user_id == user.id, seat_users_t.c.table_id.in_(ids))
            )
        } if ids else {}
        names = _names_of_seats(connection, ids)
        matches = []
        for row in rows:
            result = results.get(row.id)
            seat = mine.get(row.id)
            if seat is None and result is not None:
                seat = result.winner_seat if result.winner_id == user.id else result.loser_seat
            settings = row.settings or {}
            opponents = [
                {"name": s, "account": names[row.id].get(s) if s is not None else None}
                for s in _seat_names(settings) if s != seat
            ]
            matches.append({
                "id": row.id,
                "kind": row.kind,
                "length": settings.get("length", 0),
                "seat": seat,
                "opponents": opponents,
                "status": row.status,
                "score": result.score if result is not None else _score_of(row.kind, settings, row.state),
                "result": None if result is None else _result_dict(result),
                "won": None if result is None else result.winner_id == user.id,
                "rated": result.rated if result is not None else bool(settings.get("rated", False)),
                "created": _iso(row.created),
                "updated": _iso(row.updated),
                "links": _links(row.id),
            })
        return {
            "name": user.name,
            "matches": matches,
            "next": _iso(rows[-1].created) if more and rows else None,
        }

    return _read(source, read)


# -- the leaderboard ---------------------------------------------------------------------------


def leaderboard(source: Source, limit: int = LEADERBOARD_LIMIT[0]) -> dict[str, Any]:
    """The accounts that have played rated matches (experience > 0), best rating first:
    rank, name, role, rating, experience, matches won and lost."""

    def read(connection: sa.Connection) -> dict[str, Any]:
        won = (sa.select(sa.func.count()).select_from(results_t)
               .where(results_t.c.winner_id == users_t.c.id).scalar_subquery())
        lost = (sa.select(sa.func.count()).select_from(results_t)
                .where(results_t.c.loser_id == users_t.c.id).scalar_subquery())
        query = (
            sa.select(users_t.c.name, users_t.c.role, users_t.c.rating, users_t.c.experience,
                      won.label("won"), lost.label("lost"))
            .where(users_t.c.experience > 0, users_t.c.role.in_(RANKED_ROLES))
            .order_by(users_t.c.rating.desc(), users_t.c.experience.desc(), users_t.c.name_key)
            .limit(limit)
        )
        players = [
            {
                "rank": rank,
                "name": row.name,
                "role": row.role,
                "rating": round(float(row.rating), 2),
                "experience": row.experience,
                "won": int(row.won or 0),
                "lost": int(row.lost or 0),
            }
            for rank, row in enumerate(connection.execute(query), start=1)
        ]
        return {"players": players}

    return _read(source, read)


# -- routes ------------------------------------------------------------------------------------


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _answers(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
    """A handler whose :class:`ResultsError` becomes ``{"error": sentence}`` with its status."""

    async def wrapped(request: Request) -> Response:
        try:
            response: Response = await handler(request)
            return response
        except ResultsError as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)

    wrapped.__doc__ = handler.__doc__
    wrapped.__name__ = getattr(handler, "__name__", "handler")
    return wrapped


@_answers
async def user_api(request: Request) -> Response:
    """``GET /api/users/{name}``: a profile."""
    name = request.path_params["name"]
    return JSONResponse(await anyio.to_thread.run_sync(profile, _store(request), name))


@_answers
async def matches_api(request: Request) -> Response:
    """``GET /api/users/{name}/matches?before=&limit=``: a page of history."""
    name = request.path_params["name"]
    before = _before(request.query_params.get("before"))
    limit = _page_size(request.query_params.get("limit"), HISTORY_LIMIT)
    return JSONResponse(await anyio.to_thread.run_sync(history, _store(request), name, before, limit))


@_answers
async def leaderboard_api(request: Request) -> Response:
    """``GET /api/leaderboard?limit=``."""
    limit = _page_size(request.query_params.get("limit"), LEADERBOARD_LIMIT)
    return JSONResponse(await anyio.to_thread.run_sync(leaderboard, _store(request), limit))


def _page(name: str) -> Response:
    path = STATIC / name
    if not path.is_file():
        return PlainTextResponse(f"{name} is not there yet", status_code=404)
    return FileResponse(path, media_type="text/html")


async def profile_page(request: Request) -> Response:
    """``/u/{name}``: the profile page (it reads the API itself)."""
    return _page("profile.html")


async def history_page(request: Request) -> Response:
    """``/u/{name}/history``: the history page."""
    return _page("history.html")


async def leaderboard_page(request: Request) -> Response:
    """``/leaderboard``: the leaderboard page."""
    return _page("leaderboard.html")


def routes() -> list[Route]:
    """The routes of this module, to mount in the application."""
    return [
        Route("/api/users/{name}", user_api),
        Route("/api/users/{name}/matches", matches_api),
        Route("/api/leaderboard", leaderboard_api),
        Route("/u/{name}", profile_page),
        Route("/u/{name}/history", history_page),
        Route("/leaderboard", leaderboard_page),
    ]


# -- OpenAPI -----------------------------------------------------------------------------------

_STR = {"type": "string"}
_INT = {"type": "integer"}
_NUM = {"type": "number"}
_BOOL = {"type": "boolean"}
_TIME = {"type": "string", "format": "date-time"}
_ERROR = {"$ref": "#/components/schemas/Error"}


def _obj(required: tuple[str, ...], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_SEAT_RATING = _obj(("before", "after", "experience_before", "experience_after"),
                    before=_NUM, after=_NUM, experience_before=_INT, experience_after=_INT)
_RATINGS = {"type": ["object", "null"], "additionalProperties": _SEAT_RATING,
            "description": "seat -> its rating and experience before and after; null when unrated"}
_SCORE = {"type": "object", "additionalProperties": _INT, "description": "seat -> points (capped at the length)"}
_RESULT = _obj(("winner", "reason", "ratings"), winner=_STR,
               reason={"type": "string", "enum": list(REASONS)}, ratings=_RATINGS)
_LINKS = _obj(("live", "replay"), live=_STR, replay=_STR)
_ACCOUNT_SEAT = _obj(("name", "account"), name={"type": ["string", "null"], "description": "the seat's name; null: open"},
                     account={"type": ["string", "null"], "description": "the account at the seat; null: a guest"})
_RECENT = _obj(
    ("table", "length", "rated", "finished", "seat", "opponent", "won", "reason", "score", "rating", "links"),
    table=_STR, length=_INT, rated=_BOOL, finished=_TIME, seat=_STR, opponent=_ACCOUNT_SEAT, won=_BOOL,
    reason={"type": "string", "enum": list(REASONS)}, score=_SCORE,
    rating={"oneOf": [_SEAT_RATING, {"type": "null"}]}, links=_LINKS,
)
_PROFILE = _obj(
    ("name", "role", "rating", "experience", "created", "won", "lost", "abandoned", "recent"),
    name=_STR, role={"type": "string", "enum": ["player", "moderator", "bot"]}, rating=_NUM,
    experience=_INT, created=_TIME, won=_INT, lost=_INT,
    abandoned={"type": "integer", "description": "matches lost by leaving them"},
    recent={"type": "array", "items": _RECENT, "maxItems": RECENT}, links=_obj(("profile", "history"), profile=_STR, history=_STR),
)
_HISTORY_ENTRY = _obj(
    ("id", "kind", "length", "seat", "opponents", "status", "score", "result", "won", "rated", "created",
     "updated", "links"),
    id=_STR, kind={"type": "string", "enum": ["match", "money", "chouette"]}, length=_INT,
    seat={"type": ["string", "null"]}, opponents={"type": "array", "items": _ACCOUNT_SEAT},
    status={"type": "string", "enum": ["waiting", "playing", "over"]},
    score={"oneOf": [_SCORE, {"type": "null"}]}, result={"oneOf": [_RESULT, {"type": "null"}]},
    won={"type": ["boolean", "null"]}, rated=_BOOL, created=_TIME, updated=_TIME, links=_LINKS,
)
_NAME_PARAM = {"name": "name", "in": "path", "required": True, "schema": _STR, "description": "the account's name (any case)"}
_NOT_FOUND = {"404": _json(_ERROR, "no player of that name")}
_BAD = {"400": _json(_ERROR, "a parameter is out of range (the sentence says which)")}

#: This module's paths of the OpenAPI 3.1 document (merged into ``openapi.OPENAPI``).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/users/{name}": {"get": {
        "summary": "a player's profile: rating, experience, matches won, lost and abandoned, recent results",
        "operationId": "getUser",
        "parameters": [_NAME_PARAM],
        "responses": {"200": _json(_PROFILE, "the profile"), **_NOT_FOUND},
    }},
    "/api/users/{name}/matches": {"get": {
        "summary": "a player's history: every table they sat at, finished or not, newest first",
        "operationId": "listUserMatches",
        "parameters": [
            _NAME_PARAM,
            {"name": "before", "in": "query", "required": False, "schema": _TIME,
             "description": "only tables created before this time (the previous page's next)"},
            {"name": "limit", "in": "query", "required": False,
             "schema": {"type": "integer", "minimum": 1, "maximum": HISTORY_LIMIT[1], "default": HISTORY_LIMIT[0]}},
        ],
        "responses": {
            "200": _json(_obj(("name", "matches", "next"), name=_STR,
                              matches={"type": "array", "items": _HISTORY_ENTRY},
                              next={"type": ["string", "null"], "format": "date-time",
                                    "description": "before= of the next page; null: no more"}),
                         "a page of the history"),
            **_BAD, **_NOT_FOUND,
        },
    }},
    "/api/leaderboard": {"get": {
        "summary": "the rated players (experience > 0), best rating first",
        "operationId": "getLeaderboard",
        "parameters": [
            {"name": "limit", "in": "query", "required": False,
             "schema": {"type": "integer", "minimum": 1, "maximum": LEADERBOARD_LIMIT[1],
                        "default": LEADERBOARD_LIMIT[0]}},
        ],
        "responses": {
            "200": _json(_obj(("players",), players={"type": "array", "items": _obj(
                ("rank", "name", "role", "rating", "experience", "won", "lost"),
                rank=_INT, name=_STR, role=_STR, rating=_NUM, experience=_INT, won=_INT, lost=_INT)}),
                "the leaderboard"),
            **_BAD,
        },
    }},
}
