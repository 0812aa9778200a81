"""The analysis of a finished match on the server, and the match as a file.

``GET /api/tables/{id}/analysis`` answers the analysis of a finished match or money session
(:func:`backgammon.analysis.match.analyse_match`, ``MatchAnalysis.to_dict()``, 200). The
first request starts it: it runs once, in a worker thread, and is kept in the database
(``analyses``, one row per table and depth); until it is done every request is answered 202
with its progress, ``{"status": "queued" | "running", "done": k, "total": n, "plies": p}``,
and the page polls. ``?ply=0|1|2`` chooses the depth (1 by default); ``?start=false`` only
looks (404 with ``"status": "absent"`` when there is nothing; without ``ply`` it answers the
deepest analysis there is).

However many requests come at once, and whichever process of the club they reach, an
analysis is computed once: its row is claimed in the database (an insert, or a takeover of
a row whose computation stopped showing signs of life — :attr:`Analyses.stale_after`), its
computation writes its progress there (a heartbeat) and the result at the end. Each process
runs at most :attr:`Analyses.workers` computations at a time; the others wait, ``queued``.

``GET /api/tables/{id}/match.mat`` and ``/match.sgf``: the match (or money session) as a
match file (:func:`backgammon.formats.dumps`), as an attachment.

>>> import tempfile
>>> from .store import Store
>>> store = Store(f"sqlite:///{tempfile.mkdtemp()}/club.sqlite3")
>>> Analyses(store).lookup("nosuchtable", None)
Progress(status='absent', plies=1, done=0, total=0, result=None, error=None)
>>> store.close()
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import sqlalchemy as sa
import anyio
from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..errors import BackgammonError
from ..match import Match
from ..table import MatchContest
from .store import Store, analyses_t

__all__ = [
    "DEFAULT_PLIES",
    "FILE_TYPES",
    "OPENAPI_PATHS",
    "PLIES",
    "Analyser",
    "Analyses",
    "AnalysisRequestError",
    "Progress",
    "analyse",
    "routes",
]

log = logging.getLogger(__name__)

#: The depths a request may ask for, and the one it gets when it names none.
PLIES = (0, 1, 2)
DEFAULT_PLIES = 1
#: The media type of each match file the server writes.
FILE_TYPES = {"mat": "text/plain; charset=utf-8", "sgf": "application/x-go-sgf; charset=utf-8"}

#: ``analyser(match, plies, names, progress)`` -> ``MatchAnalysis.to_dict()``
Analyser = Callable[[Match, int, tuple[str, str], Callable[[int, int], None]], dict[str, Any]]


class AnalysisRequestError(BackgammonError):
    """A request for an analysis or a match file that cannot be answered; ``status`` is the
    HTTP status (400 a wrong parameter, 409 a table that has no such thing)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def analyse(match: Match, plies: int, names: tuple[str, str],
            progress: Callable[[int, int], None]) -> dict[str, Any]:
    """The default :data:`Analyser`: :func:`backgammon.analysis.match.analyse_match`."""
    from ..analysis.match import analyse_match

    return analyse_match(match, plies=plies, names=names, progress=progress).to_dict()


@dataclass(frozen=True)
class Progress:
    """Where one analysis stands: ``status`` is ``"absent"`` (never asked for, or its
    computation died), ``"queued"`` (waiting for a free worker), ``"running"`` (``done``
    decisions of ``total`` analysed; ``total`` is 0 until the first is), ``"done"``
    (``result`` holds ``MatchAnalysis.to_dict()``) or ``"failed"`` (``error`` says why)."""

    status: str
    plies: int
    done: int = 0
    total: int = 0
    result: dict[str, Any] | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The 202 answer: ``{"status", "done", "total", "plies"}``.

        >>> Progress("running", 1, 3, 80).to_dict()
        {'status': 'running', 'done': 3, 'total': 80, 'plies': 1}
        """
        return {"status": self.status, "done": self.done, "total": self.total, "plies": self.plies}


class _Stopped(Exception):
    """The server is closing: the computation gives up (its row is dropped)."""


class _Lost(Exception):
    """Another computation took the row over (this one was thought dead): give up."""


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _utc(value: datetime) -> datetime:
    """``value`` as an aware UTC datetime (SQLite hands naive ones back)."""
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _progress(row: Any) -> Progress:
    return Progress(row.status, row.plies, row.done, row.total, row.result, row.error)


class Analyses:
    """The analyses of the store's tables, and this process's computations of them.

    ``workers`` computations run at once (the others wait, ``queued``); a computation that
    wrote no heartbeat for ``stale_after`` seconds is taken over by the next request; a
    failed one is tried again by a request ``retry_after`` seconds later; ``heartbeat``:
    the least time between two progress writes; ``analyser`` computes (tests count
    its calls)."""

    def __init__(self, store: Store, *, workers: int = 1, analyser: Analyser = analyse,
                 stale_after: float = 60.0, retry_after: float = 600.0, heartbeat: float = 1.0) -> None:
        if workers < 1:
            raise ValueError(f"workers={workers!r}: at least one computation must be able to run")
        self.store = store
        self.workers = workers
        self.analyser = analyser
        self.stale_after = stale_after
        self.retry_after = retry_after
        self.heartbeat = heartbeat
        self._slots = threading.Semaphore(workers)
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._threads: dict[tuple[str, int], threading.Thread] = {}

    # -- reading ----------------------------------------------------------------------------

    def _rows(self, table_id: str) -> list[Any]:
        query = sa.select(analyses_t).where(analyses_t.c.table_id == table_id)
        with self.store.engine.connect() as connection:
            return list(connection.execute(query))

    def _alive(self, row: Any, now: datetime) -> bool:
        """A row whose computation still shows signs of life (or that is done / failed)."""
        if row.status not in ("queued", "running"):
            return True
        return bool(now - _utc(row.updated) <= timedelta(seconds=self.stale_after))

    def lookup(self, table_id: str, plies: int | None) -> Progress:
        """The analysis of ``table_id`` at ``plies`` (``None``: the deepest one done, else
        the deepest one under way, else a failed one), without starting anything."""
        now = _now()
        rows = [r for r in self._rows(table_id) if self._alive(r, now)]
        if plies is not None:
            rows = [r for r in rows if r.plies == plies]
        else:
            order = {"done": 0, "running": 1, "queued": 1, "failed": 2}
            rows.sort(key=lambda r: (order.get(r.status, 3), -r.plies))
        if not rows:
            return Progress("absent", DEFAULT_PLIES if plies is None else plies)
        return _progress(rows[0])

    # -- starting ---------------------------------------------------------------------------

    def request(self, table_id: str, plies: int, match: Callable[[], tuple[Mapping[str, Any], tuple[str, str]]]
                ) -> Progress:
        """The analysis of ``table_id`` at ``plies``, started unless it is done or under
        way (here or in another process). ``match()`` gives ``Match.to_dict()`` and the
        players' names, asked only when a computation starts."""
        if plies not in PLIES:
            raise AnalysisRequestError(f"plies={plies!r}: an analysis looks 0, 1 or 2 plies ahead")
        now = _now()
        owner = uuid.uuid4().hex
        rows = [r for r in self._rows(table_id) if r.plies == plies]
        claim = {"status": "queued", "owner": owner, "done": 0, "total": 0, "result": None, "error": None,
                 "started": now, "updated": now}
        if not rows:
            try:
                with self.store.engine.begin() as connection:
                    connection.execute(analyses_t.insert().values(table_id=table_id, plies=plies, **claim))
            except IntegrityError:  # another request claimed it first
                return self.lookup(table_id, plies)
        else:
            row = rows[0]
            wait = self.retry_after if row.status == "failed" else self.stale_after
            if row.status == "done" or (row.status in ("queued", "running") and self._alive(row, now)):
                return _progress(row)
            if row.status == "failed" and now - _utc(row.updated) < timedelta(seconds=wait):
                return _progress(row)
            # a dead computation, or a failure long enough ago: take the row over, unless
            # another request did just now (the row's owner changed)
            with self.store.engine.begin() as connection:
                taken = connection.execute(
                    analyses_t.update()
                    .where(analyses_t.c.table_id == table_id, analyses_t.c.plies == plies,
                           analyses_t.c.owner == row.owner, analyses_t.c.updated < now - timedelta(seconds=wait))
                    .values(**claim)
                ).rowcount
            if taken != 1:
                return self.lookup(table_id, plies)
        try:
            data, names = match()
        except BaseException:
            self._drop(table_id, plies, owner)
            raise
        self._spawn(table_id, plies, owner, data, names)
        return Progress("queued", plies)

    def _spawn(self, table_id: str, plies: int, owner: str, data: Mapping[str, Any], names: tuple[str, str]) -> None:
        thread = threading.Thread(target=self._run, args=(table_id, plies, owner, data, names),
                                  name=f"analysis-{table_id}-{plies}", daemon=True)
        with self._lock:
            self._threads[(table_id, plies)] = thread
        thread.start()

    # -- the computation (a worker thread) -----------------------------------------------

    def _beat(self, table_id: str, plies: int, owner: str, **values: Any) -> bool:
        """Write the computation's progress (and sign of life); False when the row is no
        longer this computation's."""
        with self.store.engine.begin() as connection:
            return bool(connection.execute(
                analyses_t.update()
                .where(analyses_t.c.table_id == table_id, analyses_t.c.plies == plies, analyses_t.c.owner == owner)
                .values(updated=_now(), **values)
            ).rowcount == 1)

    def _drop(self, table_id: str, plies: int, owner: str) -> None:
        with self.store.engine.begin() as connection:
            connection.execute(analyses_t.delete().where(
                analyses_t.c.table_id == table_id, analyses_t.c.plies == plies, analyses_t.c.owner == owner))

    def _wait_for_a_worker(self, table_id: str, plies: int, owner: str) -> None:
        while not self._slots.acquire(timeout=max(self.heartbeat, 0.05) * 5):
            if self._stopping.is_set():
                raise _Stopped
            if not self._beat(table_id, plies, owner, status="queued"):
                raise _Lost

    def _run(self, table_id: str, plies: int, owner: str, data: Mapping[str, Any], names: tuple[str, str]) -> None:
        try:
            self._wait_for_a_worker(table_id, plies, owner)
            try:
                self._compute(table_id, plies, owner, data, names)
            finally:
                self._slots.release()
        except _Stopped:
            try:
                self._drop(table_id, plies, owner)
            except Exception:  # noqa: BLE001 - the database may be gone at shutdown
                log.warning("analysis of table %s at %d ply: could not drop its row", table_id, plies)
        except _Lost:
            log.info("analysis of table %s at %d ply: another computation took it over", table_id, plies)
        except Exception as exc:  # noqa: BLE001 - a failure is stored and shown, not raised
            log.exception("analysis of table %s at %d ply failed", table_id, plies)
            try:
                self._beat(table_id, plies, owner, status="failed", error=f"{type(exc).__name__}: {exc}")
            except Exception:  # noqa: BLE001
                log.warning("analysis of table %s at %d ply: could not store its failure", table_id, plies)
        finally:
            with self._lock:
                if self._threads.get((table_id, plies)) is threading.current_thread():
                    del self._threads[(table_id, plies)]

    def _compute(self, table_id: str, plies: int, owner: str, data: Mapping[str, Any], names: tuple[str, str]) -> None:
        if self._stopping.is_set():
            raise _Stopped
        if not self._beat(table_id, plies, owner, status="running"):
            raise _Lost
        match = Match.from_dict(dict(data))
        last = time.monotonic()

        def progress(done: int, total: int) -> None:
            nonlocal last
            if self._stopping.is_set():
                raise _Stopped
            now = time.monotonic()
            if now - last >= self.heartbeat:
                last = now
                if not self._beat(table_id, plies, owner, status="running", done=done, total=total):
                    raise _Lost

        result = self.analyser(match, plies, names, progress)
        decisions = result.get("decisions")
        count = len(decisions) if isinstance(decisions, list) else 0
        if not self._beat(table_id, plies, owner, status="done", result=result, done=count, total=count):
            raise _Lost

    # -- the end ----------------------------------------------------------------------------

    def running(self) -> list[tuple[str, int]]:
        """The (table, plies) this process is computing or about to."""
        with self._lock:
            return sorted(self._threads)

    def close(self, timeout: float = 10.0) -> None:
        """Stop this process's computations (each stops at its next decision and drops its
        row, so a later request starts it afresh) and wait for them up to ``timeout`` s."""
        self._stopping.set()
        deadline = time.monotonic() + timeout
        with self._lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))


# -- the routes ---------------------------------------------------------------------------------


def _error(text: str, code: int = 400, more: Mapping[str, Any] | None = None) -> JSONResponse:
    return JSONResponse({"error": text, **(more or {})}, status_code=code)


def _plies(request: Request) -> int | None:
    raw = request.query_params.get("ply")
    if raw is None or raw == "":
        return None
    if raw not in {str(p) for p in PLIES}:
        raise AnalysisRequestError(f"ply={raw!r}: an analysis looks 0, 1 or 2 plies ahead")
    return int(raw)


def _start(request: Request) -> bool:
    raw = request.query_params.get("start", "true").lower()
    if raw in ("true", "1", "yes"):
        return True
    if raw in ("false", "0", "no"):
        return False
    raise AnalysisRequestError(f"start={raw!r}: say start=true (analyse if needed) or start=false (only look)")


async def _match_of(request: Request, *, finished: bool) -> tuple[Any, MatchContest]:
    """The room of the request's table and its match contest; 409 for a table that is not
    a started match or money session (or, when ``finished``, not over)."""
    from .rooms import RoomError

    try:
        room = await request.app.state.club.room(request.path_params["id"])
    except RoomError as exc:
        raise AnalysisRequestError(str(exc), exc.status) from None
    table = room.table
    if table is None:
        raise AnalysisRequestError("the table has not started yet: every seat must be taken first", 409)
    contest = table.contest
    if not isinstance(contest, MatchContest):
        raise AnalysisRequestError("a chouette has no match to analyse or to write as a match file", 409)
    if finished and not contest.is_over():
        what = "money session" if contest.match.is_money else "match"
        raise AnalysisRequestError(f"the {what} is not over yet: it is analysed once it is finished", 409)
    return room, contest


def _answer(progress: Progress) -> Response:
    if progress.status == "done" and progress.result is not None:
        return JSONResponse(progress.result)
    if progress.status in ("queued", "running"):
        return JSONResponse(progress.to_dict(), status_code=202, headers={"Retry-After": "1"})
    if progress.status == "failed":
        return _error(f"the analysis at {progress.plies} ply failed: {progress.error}", 500,
                      {"status": "failed", "plies": progress.plies})
    return _error("this match has not been analysed yet: ask without start=false to analyse it", 404,
                  {"status": "absent", "plies": progress.plies})


async def analysis_api(request: Request) -> Response:
    """``GET /api/tables/{id}/analysis``: 200 the analysis, 202 its progress."""
    try:
        plies, start = _plies(request), _start(request)
        room, contest = await _match_of(request, finished=True)
        analyses: Analyses = request.app.state.analyses
        table_id = room.id
        if not start:
            return _answer(await anyio.to_thread.run_sync(analyses.lookup, table_id, plies))
        depth = DEFAULT_PLIES if plies is None else plies
        progress = await anyio.to_thread.run_sync(analyses.lookup, table_id, depth)
        if progress.status in ("done", "queued", "running"):
            return _answer(progress)
        # the match of a finished table does not change: read it now, hand it to the thread
        data, names = contest.match.to_dict(), (contest.seats[0], contest.seats[1])
        progress = await anyio.to_thread.run_sync(analyses.request, table_id, depth, lambda: (data, names))
        return _answer(progress)
    except AnalysisRequestError as exc:
        return _error(str(exc), exc.status)


def _file_of(fmt: str) -> Callable[[Request], Any]:
    async def match_file(request: Request) -> Response:
        """``GET /api/tables/{id}/match.FMT``: the match file, as an attachment."""
        from .. import formats

        try:
            room, contest = await _match_of(request, finished=False)
        except AnalysisRequestError as exc:
            return _error(str(exc), exc.status)
        async with room.lock:
            data = contest.match.to_dict()
            names = (contest.seats[0], contest.seats[1])
        info = {"event": f"Table {room.id}", "date": room.record.created.date().isoformat()}

        def write() -> str:
            return formats.dumps(formats.MatchRecord(Match.from_dict(data), names=names, info=info), fmt)

        try:
            text = await anyio.to_thread.run_sync(write)
        except BackgammonError as exc:
            log.exception("table %s: the .%s file cannot be written", room.id, fmt)
            return _error(f"this match cannot be written as a .{fmt} file: {exc}", 500)
        filename = f"table-{room.id}.{fmt}"
        return Response(text, media_type=FILE_TYPES[fmt],
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})

    return match_file


def routes() -> list[Route]:
    """The routes: the analysis and the two match files."""
    return [
        Route("/api/tables/{id}/analysis", analysis_api, methods=["GET"]),
        *(Route(f"/api/tables/{{id}}/match.{fmt}", _file_of(fmt), methods=["GET"]) for fmt in FILE_TYPES),
    ]


# -- OpenAPI ------------------------------------------------------------------------------------

_ERROR = {"$ref": "#/components/schemas/Error"}
_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}, "description": "the table's id"}
_NUM = {"type": "number"}
_INT = {"type": "integer"}
_STR = {"type": "string"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _obj(required: Sequence[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": properties}


_CUBE = _obj(
    ("decisions", "error"), decisions=_INT, error=_NUM, missed_doubles=_INT, wrong_doubles=_INT,
    wrong_takes=_INT, wrong_passes=_INT)
_PLAYER = _obj(
    ("name", "decisions", "unforced", "checker", "cube", "error", "rate", "pr", "luck", "rating"),
    name=_STR, decisions=_INT, unforced=_INT,
    checker=_obj(("decisions", "unforced", "error", "rate"), decisions=_INT, unforced=_INT, error=_NUM, rate=_NUM),
    cube=_CUBE,
    error={"type": "number", "description": "equity given away in all, EMG"},
    rate={"type": "number", "description": "mEMG per unforced decision (as gnubg counts it)"},
    pr={"type": "number", "description": "XG's PR: 500 x the mean error per unforced decision"},
    luck={"type": "number", "description": "luck in all, EMG; positive = lucky"},
    luck_rate=_NUM, rating={"type": "string", "description": "gnubg's words: 'World class', ..."})
_DECISION = _obj(
    ("index", "event", "game", "player", "kind", "action", "best", "error", "chances", "label"),
    index=_INT,
    event={"type": "integer", "description": "the index in the match's log of the event the decision made "
           "(the replay's frame)"},
    game=_INT, turn=_INT, player=_INT,
    kind={"type": "string", "enum": ["play", "cube", "take"]},
    position_id=_STR, match_id=_STR, xgid=_STR,
    dice={"type": ["array", "null"], "items": _INT},
    action=_STR, best=_STR,
    error={"type": "number", "description": "equity given away (EMG), >= 0"},
    error_mwc={"type": ["number", "null"], "description": "match-winning chances given away (null in money play)"},
    forced={"type": "boolean"}, luck={"type": ["number", "null"]},
    chances={"type": "number", "description": "player 0's match-winning chances (money: equity) after it"},
    label={"type": "string", "enum": ["", "doubtful", "bad", "very bad"]},
    candidates={"type": "array", "items": _obj(("move", "value", "difference"), move=_STR, value=_NUM,
                                                difference=_NUM)},
    cube={"type": ["object", "null"], "properties": {
        "no_double": _NUM, "double_take": _NUM, "double_pass": _NUM, "proper": _STR}})
_ANALYSIS = _obj(
    ("format", "version", "plies", "money", "length", "names", "players", "games", "decisions"),
    format={"const": "backgammon-analysis"}, version=_INT, plies=_INT, money={"type": "boolean"}, length=_INT,
    names={"type": "array", "items": _STR, "minItems": 2, "maxItems": 2},
    players={"type": "array", "items": _PLAYER, "minItems": 2, "maxItems": 2},
    games={"type": "array", "items": _obj(("number", "score"), number=_INT,
                                          score={"type": "array", "items": _INT},
                                          winner={"type": ["integer", "null"]}, points=_INT)},
    decisions={"type": "array", "items": _DECISION})
_PROGRESS = _obj(
    ("status", "done", "total", "plies"),
    status={"type": "string", "enum": ["queued", "running"]},
    done={"type": "integer", "description": "decisions analysed so far"},
    total={"type": "integer", "description": "decisions in all (0 until the first is analysed)"},
    plies=_INT)
_REFUSAL = {"type": "object", "required": ["error"], "properties": {
    "error": _STR, "status": {"type": "string", "enum": ["absent", "failed"]}, "plies": _INT}}


def _file_path(fmt: str, words: str) -> dict[str, Any]:
    return {"get": {
        "summary": f"the match (or money session) as a {words} (an attachment)",
        "operationId": f"tableMatchFile{fmt.capitalize()}",
        "parameters": [_ID],
        "responses": {
            "200": {"description": f"the .{fmt} file",
                    "content": {FILE_TYPES[fmt].split(";")[0]: {"schema": {"type": "string"}}}},
            "404": _json(_ERROR, "no such table"),
            "409": _json(_ERROR, "the table has not started, or it is a chouette"),
            "500": _json(_ERROR, "the match cannot be written in this format"),
        },
    }}


#: This module's paths of the OpenAPI document (merged into ``openapi.OPENAPI``).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/tables/{id}/analysis": {"get": {
        "summary": "the analysis of a finished match or money session: every decision judged, the "
                   "players' error rates and luck (computed once, then kept)",
        "description": "The first request starts the analysis; until it is done every request is "
                       "answered 202 with its progress (poll again after Retry-After seconds). "
                       "Computed once whatever the number of requests.",
        "operationId": "tableAnalysis",
        "parameters": [
            _ID,
            {"name": "ply", "in": "query", "required": False, "schema": {"type": "integer", "enum": list(PLIES)},
             "description": f"how deep the engine looks ({DEFAULT_PLIES} by default; with start=false "
                            "and no ply: the deepest analysis there is)"},
            {"name": "start", "in": "query", "required": False, "schema": {"type": "boolean", "default": True},
             "description": "false: only look, never start an analysis"},
        ],
        "responses": {
            "200": _json(_ANALYSIS, "the analysis (MatchAnalysis.to_dict())"),
            "202": _json(_PROGRESS, "the analysis is under way"),
            "400": _json(_ERROR, "a wrong parameter"),
            "404": _json(_REFUSAL, "no such table; or, with start=false, no analysis yet (status: absent)"),
            "409": _json(_ERROR, "the table is not a finished match or money session"),
            "500": _json(_REFUSAL, "the analysis failed (status: failed); it is tried again later"),
        },
    }},
    "/api/tables/{id}/match.mat": _file_path("mat", "match file in gnubg's and Jellyfish's text format (.mat)"),
    "/api/tables/{id}/match.sgf": _file_path("sgf", "gnubg SGF file (.sgf)"),
}
