"""The Jellyfish / gnubg text match format (``.mat``): :func:`loads` and :func:`dumps`.

A ``.mat`` file is what gnubg's ``export match mat`` writes (and ``import mat`` reads): a few
comment lines (``; [EventDate "2026.12.03"]``), the length (`` 5 point match``; 0 for a
money session), then each game: `` Game 3``, the score line ``alpha : 2    beta : 0``
(player 0 on the left, player 1 on the right), and numbered lines with one column per
player::

      1)                             21: 13/11 24/23
      2) 52: 13/8 24/22              63: 8/5 11/5
      3)  Doubles => 2                Takes
     ...
                                      Wins 2 points

Each entry is a roll and its play (``52: 13/8 24/22``; the dice alone when no play is
possible; ``25`` is the bar and ``0`` off), ``Doubles => N``, ``Takes``, ``Drops``,
``Beavers => N`` (R30), and the end: ``Wins N points`` in the winner's column. A game that
ends with "Wins" while its board is not over was resigned (R31): it reads as
:class:`~backgammon.events.Resign` by the loser at level N / cube (at most 3) and
:class:`~backgammon.events.Accept`. Plays go through :meth:`Game.play
<backgammon.game.Game.play>`, so they must be legal and any text reaching the same position
is the same play (R12): ``bar``/``25``, ``off``/``0``, hops written separately or joined
(``24/18 18/13`` or ``24/18/13``), ``(2)``.

Reading copes with what other programs write: names with spaces, no comment lines, no
``N point match`` line (read as a money session), ``Passes`` for ``Drops``, ``Wins N points
and the match``, ``\\r`` line ends, a last game without an end (left unfinished). Rules come
from comment lines (``; [Jacoby "On"]``, ``; [Beaver "On"]``, ``; [CubeLimit "64"]``); a file
with a beaver allows beavers, and a money session whose scores only add up with the Jacoby
rule (R25; gnubg does not write it) is read with it.

What the format cannot hold is not written: tied opening throws (only the winning throw is
written), declined resignations and one still awaiting its answer, automatic doubles, set-up
positions (:func:`dumps` refuses them), forfeits, and rules other than Jacoby, beavers and the
cube limit; a roll that no play is possible for, ending a file, reads as the turn lost (R11).
Everything else reads back equal.

A wrong file raises :class:`~backgammon.formats.MatchFileError` naming the line, or with
``strict=False`` the game stops at the first entry that cannot be applied, the problem is
listed in :attr:`MatchRecord.problems <backgammon.formats.MatchRecord.problems>`, and the
game is ended with the result the file gives it (its "Wins" line or the next game's score)
when the loser is the player to act, so that the next games are read; otherwise reading
stops there.

>>> from backgammon.formats import mat
>>> text = '''
...  1 point match
...
...  Game 1
...  Ann Lee : 0                    bob : 0
...   1)                             31: 8/5 6/5
...   2) 62: 24/18 13/11             41: 24/23 13/9
...                                   Wins 1 point
... '''
>>> record = mat.loads(text)
>>> record.names, record.match.score, [e.type for e in record.match.game.events[-3:]]
(('Ann Lee', 'bob'), (0, 1), ['resign', 'accept', 'game_end'])
>>> print(mat.dumps(record), end="")  # doctest: +NORMALIZE_WHITESPACE
 1 point match
<BLANKLINE>
 Game 1
 Ann Lee : 0                    bob : 0
  1)                             31: 8/5 6/5
  2) 62: 24/18 13/11             41: 13/9 24/23
                                  Wins 1 point
<BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from ..errors import BackgammonError
from ..events import Accept, Beaver, Decline, Double, GameEnd, OpeningRoll, Pass, Play, Resign, Roll, SetUp, Take
from ..game import Game, Phase
from ..match import Match
from ..move import BAR, OFF, Move, Step
from ..position import Position
from ..rules import Rules
from . import FileProblem, MatchFileError, MatchRecord

__all__ = ["dumps", "loads"]

#: comment tags that hold facts of the match, and the :attr:`MatchRecord.info` key of each
_TAGS = {
    "Event": "event",
    "Site": "place",
    "EventDate": "date",
    "EventTime": "time",
    "Round": "round",
    "Annotator": "annotator",
    "Transcriber": "transcriber",
    "Comment": "comment",
}
_INFO_TAG = {v: k for k, v in _TAGS.items()}
#: comment tags that set rules or names (never kept in ``info``)
_RULE_TAGS = ("Jacoby", "Beaver", "CubeLimit", "Crawford", "Variation", "Player 1", "Player 2")

#: a date as gnubg writes it (``2026.12.03``) or as ISO 8601 (``2026-12-03``)
_DATE = re.compile(r"^(\d{4})[.-](\d{2})[.-](\d{2})$")


def _iso_date(text: str) -> str:
    """``info["date"]`` is ISO 8601, as the SGF reader gives it: gnubg's ``2026.12.03`` is
    ``2026-12-03``; any other text is kept as it is.

    >>> _iso_date("2026.12.03"), _iso_date("3 Dec 2026")
    ('2026-12-03', '3 Dec 2026')
    """
    return _DATE.sub(r"\1-\2-\3", text.strip())


_COMMENT_TAG = re.compile(r'^\s*;\s*\[\s*(?P<key>[^"\]]+?)\s*"(?P<value>.*)"\s*\]\s*$')
_LENGTH = re.compile(r"^\s*(?P<n>\d+)\s*-?\s*points?\s+match\b", re.I)
_GAME = re.compile(r"^\s*Game\s+(?P<n>\d+)\b", re.I)
_SCORES = re.compile(r"^\s*(?P<a>\S.*?)\s*:\s*(?P<sa>\d+)\s+(?P<b>\S.*?)\s*:\s*(?P<sb>\d+)\s*$")
_NAMES = re.compile(r"^\s*(?P<a>\S.*?)\s{2,}(?P<b>\S.*?)\s*$")
_NUMBERED = re.compile(r"^\s*\d+\)")
_ITEM = re.compile(
    r"""(?P<roll>(?<![\w/*])(?P<d1>[1-6])(?P<d2>[1-6]):)
    |(?P<double>\bDoubles?\s*=>\s*(?P<dv>\d+))
    |(?P<beaver>\bBeavers?\s*=>\s*(?P<bv>\d+))
    |(?P<take>\b(?:Takes|Accepts)\b)
    |(?P<drop>\b(?:Drops|Passes|Rejects|Refuses)\b)
    |(?P<wins>\bWins\s+(?P<points>\d+)\s+points?(?P<match>\s+and\s+the\s+match)?)""",
    re.X | re.I,
)
#: an entry starting this far into its line (or further) is in the right-hand column
_RIGHT_COLUMN = 18
_WINS_RIGHT = " " * 33


@dataclass(frozen=True)
class _Item:
    """One entry of a game: who (the column), what, and where in the file."""

    line: int
    player: int
    kind: str  # roll, double, beaver, take, drop, wins; bad: a line that is no entry
    text: str
    dice: tuple[int, int] = (0, 0)
    move: str = ""
    value: int = 0


@dataclass
class _GameText:
    """A game as the file writes it: its header line, scores and entries."""

    line: int
    number: int
    names: tuple[str, str] | None = None
    score: tuple[int, int] | None = None
    score_line: int = 0
    items: list[_Item] | None = None


class _Stop(Exception):
    """A strict read met its first problem."""


# -- reading ----------------------------------------------------------------------------------


def loads(text: str, *, path: str = "", strict: bool = True) -> MatchRecord:
    """Read a ``.mat`` file's text (see the module's description)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    parsed = _Parsed(text.split("\n"), path)
    reader = _Reader(parsed, parsed.rules(), strict)
    record = reader.run()
    match = record.match
    # gnubg writes no rules: a money session whose scores add up only with the Jacoby rule (R25)
    if reader.score_mismatch and match.is_money and not match.rules.jacoby:
        again = _Reader(parsed, replace(parsed.rules(), jacoby=True), strict=False).run()
        if not again.problems:
            return again
    if strict and reader.stopped is not None:
        raise MatchFileError(reader.stopped, record)
    return record


class _Parsed:
    """The lines of a file sorted into its header, rules and games."""

    def __init__(self, lines: Sequence[str], path: str) -> None:
        self.path = path
        self.length: int | None = None
        self.info: dict[str, str] = {}
        self.tags: dict[str, str] = {}
        self.games: list[_GameText] = []
        self.problems: list[FileProblem] = []
        for number, raw in enumerate(lines, 1):
            self._line(number, raw.expandtabs(8).rstrip())

    def problem(self, line: int, expected: str, found: str = "") -> None:
        self.problems.append(FileProblem(line, expected, found[:80], self.path))

    def _line(self, number: int, line: str) -> None:
        if not line.strip():
            return
        stripped = line.strip()
        if stripped.startswith(";"):
            tag = _COMMENT_TAG.match(line)
            if tag is not None:
                key, value = tag["key"], tag["value"]
                if key in _RULE_TAGS:
                    self.tags[key] = value
                else:
                    name = _TAGS.get(key, key)
                    self.info[name] = _iso_date(value) if name == "date" else value
            return
        length = _LENGTH.match(line)
        if length is not None and not self.games:
            self.length = int(length["n"])
            return
        game = _GAME.match(line)
        if game is not None:
            self.games.append(_GameText(number, int(game["n"]), items=[]))
            return
        if not self.games:
            self.problem(number, "a comment, 'N point match' or 'Game 1'", stripped)
            return
        current = self.games[-1]
        assert current.items is not None
        if current.names is None and not current.items and not _ITEM.search(line):
            scores = _SCORES.match(line)
            if scores is not None:
                current.names = (scores["a"], scores["b"])
                current.score = (int(scores["sa"]), int(scores["sb"]))
                current.score_line = number
                return
            names = _NAMES.match(line)
            if names is not None and not _NUMBERED.match(line):
                current.names = (names["a"], names["b"])
                return
        items = list(_items(number, line))
        current.items.extend(items or [_Item(number, 0, "bad", stripped)])

    def rules(self) -> Rules:
        """The rules the comment tags give, with beavers when a game has one (R30)."""
        on = {"on", "yes", "true", "1"}
        jacoby = self.tags.get("Jacoby", "").strip().lower() in on
        beavers = self.tags.get("Beaver", "").strip().lower() in on or any(
            item.kind == "beaver" for game in self.games for item in game.items or ()
        )
        limit: int | None = None
        raw = self.tags.get("CubeLimit", "").strip()
        if raw.isdigit() and int(raw) >= 1 and not int(raw) & (int(raw) - 1):
            limit = int(raw)
        return Rules(jacoby=jacoby, beavers=beavers, cube_limit=limit)


def _items(number: int, line: str) -> Iterator[_Item]:
    """The entries of one move line, each in its column."""
    found = list(_ITEM.finditer(line))
    numbered = _NUMBERED.match(line)
    if numbered is not None and line[numbered.end():].strip() and (
        not found or line[numbered.end(): found[0].start()].strip()
    ):
        # text that is no entry: a play without its dice
        found = []
    if not found:
        return
    # by position (gnubg writes "65:       Wins 1 point" for a resignation before a play),
    # but a second play or cube action on a line is always the right-hand player's
    columns: list[int] = []
    for m in found:
        right = m.start() >= _RIGHT_COLUMN or (bool(columns) and not m["wins"])
        columns.append(1 if right or (columns and columns[-1] == 1) else 0)
    for k in range(len(found) - 1):
        roll, wins = found[k], found[k + 1]
        if roll["roll"] and wins["wins"] and not line[roll.end(): wins.start()].strip():
            # a roll, no play, and "Wins" on the same line: the roller resigned. gnubg puts
            # the winner in the gap: 7 spaces for player 0, 2 or many for player 1 (and writes
            # a game's first such roll on the left whoever threw it)
            gap = wins.start() - roll.end()
            winner = 0 if 3 <= gap <= 12 else 1
            columns[k], columns[k + 1] = 1 - winner, winner
    for k, (m, column) in enumerate(zip(found, columns)):
        end = found[k + 1].start() if k + 1 < len(found) else len(line)
        tail = line[m.end(): end].strip()
        if m["roll"]:
            yield _Item(number, column, "roll", line[m.start(): end].strip(), (int(m["d1"]), int(m["d2"])), tail)
            continue
        text = line[m.start(): end].strip()
        if m["double"]:
            yield _Item(number, column, "double", text, value=int(m["dv"]))
        elif m["beaver"]:
            yield _Item(number, column, "beaver", text, value=int(m["bv"]))
        elif m["take"]:
            yield _Item(number, column, "take", text)
        elif m["drop"]:
            yield _Item(number, column, "drop", text)
        else:
            yield _Item(number, column, "wins", text, value=int(m["points"]))


class _Reader:
    """Applies a parsed file's games to a :class:`Match`, noting problems."""

    def __init__(self, parsed: _Parsed, rules: Rules, strict: bool) -> None:
        self.parsed = parsed
        self.rules = rules
        self.strict = strict
        self.problems: list[FileProblem] = []
        self.stopped: FileProblem | None = None
        self.score_mismatch = False
        self.names: tuple[str, str] = ("Player 0", "Player 1")
        self.match: Match | None = None

    def problem(self, line: int, expected: str, found: str = "") -> None:
        problem = FileProblem(line, expected, found[:80], self.parsed.path)
        self.problems.append(problem)
        if self.strict and self.stopped is None:
            self.stopped = problem
            raise _Stop

    def record(self) -> MatchRecord:
        match = self.match if self.match is not None else Match(self.parsed.length or 0, self.rules)
        return MatchRecord(match, self.names, dict(self.parsed.info), tuple(self.problems))

    def run(self) -> MatchRecord:
        try:
            self._run()
        except _Stop:
            pass
        return self.record()

    def _run(self) -> None:
        parsed = self.parsed
        for problem in parsed.problems:
            self.problem(problem.line, problem.expected, problem.found)
        tags = parsed.tags
        if tags.get("Player 1") and tags.get("Player 2"):
            self.names = (tags["Player 1"], tags["Player 2"])
        variation = tags.get("Variation", "Backgammon").strip()
        if variation.lower() not in ("backgammon", ""):
            self.problem(0, 'the variation "Backgammon" (this library plays no other)', variation)
        games = parsed.games
        if games and games[0].names is not None:
            self.names = games[0].names
        self.match = self._start(games[0] if games else None)
        for index, text in enumerate(games):
            match = self.match
            if index:
                self._check_score(text)
            if match.is_over():
                self.problem(text.line, "no more games: the match is over (R32)", f"Game {text.number}")
                return
            if not self._game(match.game, text, games[index + 1] if index + 1 < len(games) else None):
                return

    def _start(self, first: _GameText | None) -> Match:
        length = self.parsed.length or 0
        score = first.score if first is not None and first.score is not None else (0, 0)
        crawford = post = False
        if length > 1 and length - 1 in score and max(score) < length:
            # the file does not say: the first game is the Crawford game unless someone doubles in it
            doubled = first is not None and any(i.kind == "double" for i in first.items or ())
            post, crawford = doubled, not doubled
        try:
            return Match(length, self.rules, score=score, crawford=crawford, post_crawford=post)
        except BackgammonError:
            line = first.score_line if first is not None else 0
            self.problem(line, f"a score below the match length {length} (R32)", f"{score[0]}-{score[1]}")
            return Match(length, self.rules)

    def _check_score(self, text: _GameText) -> None:
        match = self.match
        assert match is not None
        if text.score is not None and text.score != match.score:
            self.score_mismatch = True
            a, b = match.score
            self.problem(
                text.score_line,
                f"the score {a}-{b} that the games before give (game {text.number})",
                f"{text.score[0]}-{text.score[1]}",
            )

    def _name(self, player: int) -> str:
        return f"{self.names[player]} (player {player})"

    def _game(self, game: Game, text: _GameText, following: _GameText | None) -> bool:
        """Apply one game's entries; False when reading must stop after it."""
        items = text.items or []
        beavered = False
        k = 0
        try:
            while k < len(items):
                item = items[k]
                if game.is_over():
                    if item.kind == "wins":
                        self._check_end(game, item)
                    else:
                        self.problem(item.line, f"nothing more in game {text.number}: it is over", item.text)
                        break
                    k += 1
                    continue
                nxt = items[k + 1] if k + 1 < len(items) else None
                if item.kind == "take" and beavered and game.phase is not Phase.CUBE:
                    beavered = False  # gnubg's take of a beaver: the beaver already kept the cube (R30)
                    k += 1
                    continue
                beavered = item.kind == "beaver"
                self._apply(game, item, nxt)
                if item.kind == "drop" and nxt is not None and nxt.kind == "wins":
                    self._check_end(game, nxt)
                    k += 1
                k += 1
        except _Failed:
            return self._finish_cut(game, text, following)
        if not game.is_over() and following is not None:
            self.problem(
                following.line - 1 if following.line > 1 else following.line,
                f"the end of game {text.number} (a 'Wins N points' line)",
                f"Game {following.number}",
            )
            return self._finish_cut(game, text, following)
        return True

    def _apply(self, game: Game, item: _Item, nxt: _Item | None) -> None:
        player = item.player
        if item.kind == "bad":
            self.problem(item.line, "a move line such as '  3) 52: 13/8 13/11' or a 'Wins N points' line", item.text)
            raise _Failed
        try:
            if item.kind == "roll":
                self._roll(game, item)
                if not item.move and (nxt is None or nxt.kind == "wins"):
                    # rolled, then resigned (or the file stops) before playing; with no
                    # play possible, the roller resigns before passing the turn
                    if len(game.legal_moves()) or (nxt is not None and nxt.player != player):
                        return
                game.play(item.move, player=player)
            elif item.kind == "double":
                if item.value != 2 * game.cube_value:
                    raise BackgammonError(f"the cube is at {game.cube_value}: a double is to {2 * game.cube_value}")
                game.double(player=player)
            elif item.kind == "take":
                game.take(player=player)
            elif item.kind == "beaver":
                if item.value != 4 * game.cube_value:
                    raise BackgammonError(f"a beaver of a double to {2 * game.cube_value} is to {4 * game.cube_value}")
                game.beaver(player=player)
            elif item.kind == "drop":
                game.pass_double(player=player)
            else:
                self._resigned(game, item)
        except BackgammonError as exc:
            self.problem(item.line, self._expected(game, item, exc), item.text)
            raise _Failed from None

    def _expected(self, game: Game, item: _Item, exc: BackgammonError) -> str:
        who = self._name(item.player)
        reason = exc.refusal.reason if exc.refusal is not None else str(exc)
        what = {
            "roll": f"a legal play of {item.dice[0]}-{item.dice[1]} by {who}",
            "double": f"a double by {who}",
            "take": f"a take by {who}",
            "beaver": f"a beaver by {who}",
            "drop": f"a pass by {who}",
            "wins": f"a resignation that {who} may accept",
        }[item.kind]
        return f"{what} ({reason})"

    def _roll(self, game: Game, item: _Item) -> None:
        a, b = item.dice
        player = item.player
        if game.phase is Phase.OPENING:
            if a == b:
                raise BackgammonError("the opening roll is of two different dice (R4)")
            high, low = max(a, b), min(a, b)
            game.roll((high, low) if player == 0 else (low, high))
        else:
            game.roll((a, b), player=player)

    def _resigned(self, game: Game, item: _Item) -> None:
        winner = item.player
        loser = 1 - winner
        cube = game.cube_value
        if item.value < cube or item.value % cube:
            raise BackgammonError(f"with the cube at {cube}, a resignation is worth 1, 2 or 3 times {cube}")
        if game.to_act != loser:
            raise BackgammonError(
                f"{self._name(loser)} resigns while {self._name(1 - loser)} is to act,"
                " and only the player to act may resign (R31)"
            )
        game.resign(min(item.value // cube, 3), player=loser)
        game.accept(player=winner)

    def _check_end(self, game: Game, item: _Item) -> None:
        result = game.result
        assert result is not None
        # gnubg writes a win as level x cube, whatever the Jacoby rule (R25) made of it
        allowed = {result.points, result.level * result.cube}
        if item.player != result.winner or item.value not in allowed:
            self.score_mismatch = True
            self.problem(
                item.line,
                f"'Wins {result.points} point{'s' if result.points != 1 else ''}' for {self._name(result.winner)}",
                item.text,
            )

    def _finish_cut(self, game: Game, text: _GameText, following: _GameText | None) -> bool:
        """End a game whose entries stopped early with the result the file gives it."""
        match = self.match
        assert match is not None
        if game.is_over():
            return True
        winner = points = None
        ends = [i for i in text.items or () if i.kind == "wins"]
        if ends:
            winner, points = ends[-1].player, ends[-1].value
        elif following is not None and following.score is not None:
            gained = [following.score[p] - match.score[p] for p in (0, 1)]
            if sorted(gained)[0] == 0 and max(gained) > 0:
                winner = gained.index(max(gained))
                points = max(gained)
        if winner is None or points is None:
            return following is None
        loser = 1 - winner
        cube = game.cube_value
        if game.to_act != loser or points < cube or points % cube or game.phase is Phase.RESIGN:
            if following is not None:
                self.problem(
                    following.line,
                    f"game {text.number} to end before game {following.number} starts "
                    "(the games after it are not read)",
                    f"Game {following.number}",
                )
            return False
        game.resign(min(points // cube, 3), player=loser)
        game.accept(player=winner)
        return True


class _Failed(Exception):
    """An entry could not be applied (a lenient read goes on with the next game)."""


# -- writing ----------------------------------------------------------------------------------


def dumps(record: MatchRecord) -> str:
    """The ``.mat`` text of ``record``, laid out as gnubg 1.07 writes it."""
    match = record.match
    out: list[str] = []
    for key, value in record.info.items():
        tag = _INFO_TAG.get(key, key)
        if key == "date":
            value = _DATE.sub(r"\1.\2.\3", value)
        out.append(f'; [{tag} "{_one_line(value)}"]')
    rules = match.rules
    if rules.jacoby:
        out.append('; [Jacoby "On"]')
    if rules.beavers:
        out.append('; [Beaver "On"]')
    if rules.cube_limit is not None:
        out.append(f'; [CubeLimit "{rules.cube_limit}"]')
    if out:
        out.append("")
    out.append(f" {match.length} point match")
    out.append("")
    names = tuple(_one_line(n) or f"Player {i}" for i, n in enumerate(record.names))
    starts = [e for e in match.events if e.type == "game_start"]
    for number, (game, start) in enumerate(zip(match.games, starts), 1):
        if not game.events:
            break  # the next game of a match that stopped between games
        out.append(f" Game {number}")
        score = getattr(start, "score")
        out.append(" " + f"{names[0]} : {score[0]}".ljust(31) + f"{names[1]} : {score[1]}")
        out.extend(_game_lines(game))
        out.append("")
    return "\n".join(out) + "\n"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _points(n: int) -> str:
    return f" Wins {n} point{'s' if n != 1 else ''}"


def _game_lines(game: Game) -> list[str]:
    """A game's numbered lines, two columns (player 0 left), as gnubg lays them out."""
    entries: list[tuple[int, str]] = []
    position = Position.initial()
    events = game.events
    dice: tuple[int, int] | None = None
    for k, event in enumerate(events):
        if isinstance(event, OpeningRoll):
            a, b = event.dice
            if a != b:
                dice = (max(a, b), min(a, b))
                if not (k + 1 < len(events) and isinstance(events[k + 1], Play)):
                    entries.append((0 if a > b else 1, f"{dice[0]}{dice[1]}: "))
        elif isinstance(event, SetUp):
            raise MatchFileError(FileProblem(0, "games that start at the opening (a .mat file cannot hold a set-up position)", event.position_id))
        elif isinstance(event, Roll):
            dice = event.dice
            if not (k + 1 < len(events) and isinstance(events[k + 1], Play)):
                entries.append((event.player, f"{dice[0]}{dice[1]}: "))
        elif isinstance(event, Play):
            assert dice is not None
            hops = _hops(position, dice, event.move)
            entries.append((event.player, f"{dice[0]}{dice[1]}: " + " ".join(hops) + (" " if len(hops) < 4 else "")))
            position = position.play(event.move)
        elif isinstance(event, Double):
            entries.append((event.player, f" Doubles => {event.cube}"))
        elif isinstance(event, Take):
            entries.append((event.player, " Takes"))
        elif isinstance(event, Beaver):
            entries.append((event.player, f" Beavers => {event.cube}"))
        elif isinstance(event, Pass):
            entries.append((event.player, " Drops"))
        elif isinstance(event, GameEnd):
            result = event.result
            if result.kind.value == "resigned":
                entries.append((result.winner, _points(result.level * result.cube)))
            else:
                entries.append((result.winner, _points(result.points)))
        elif isinstance(event, (Resign, Accept, Decline)):
            continue  # an accepted resignation is its "Wins" line; a declined one is not written
    return _layout(entries)


def _layout(entries: Sequence[tuple[int, str]]) -> list[str]:
    lines: list[str] = []
    number = 0
    open_left: str | None = None  # a numbered line with its left column written
    for player, text in entries:
        wins = text.startswith(" Wins")
        if player == 0:
            if open_left is not None:
                lines.append(open_left.rstrip() if wins else open_left)
                open_left = None
            if wins:
                lines.append("     " + text)
            else:
                number += 1
                open_left = f"{number:3d}) {text:<27} "
        else:
            if open_left is not None:
                lines.append(open_left + text)
                open_left = None
            elif wins:
                lines.append(_WINS_RIGHT + text)
            else:
                number += 1
                lines.append(f"{number:3d})" + " " * 29 + text)
    if open_left is not None:
        lines.append(open_left)
    return lines


def _hops(position: Position, dice: tuple[int, int], move: Move) -> list[str]:
    """``move`` as single-die hops in an order that can be played (``25`` the bar, ``0``
    off, ``*`` a hit), as gnubg writes plays: ``24/18 18/13`` for 24/13."""
    if move.is_pass():
        return []
    a, b = dice
    pool = [a] * 4 if a == b else [a, b]
    spans = _spans(move)
    me = list(position.player)
    opp = list(position.opponent)
    found = _search(me, opp, pool, spans, move, [])
    steps = found if found is not None else list(move.steps)
    return [f"{s.src}/{s.dst}{'*' if s.hit else ''}" for s in steps]


def _spans(move: Move) -> list[tuple[int, int]]:
    chains: list[tuple[int, int]] = []
    start: int | None = None
    last = 0
    for step in move.steps:
        if start is None or step.src != last:
            if start is not None:
                chains.append((start, last))
            start = step.src
        last = step.dst
    assert start is not None
    chains.append((start, last))
    return chains


def _search(
    me: list[int], opp: list[int], pool: list[int], spans: Sequence[tuple[int, int]], target: Move, done: list[Step]
) -> list[Step] | None:
    if done and Move(done) == target:
        return list(done)
    if not pool:
        return None
    for die in sorted(set(pool), reverse=True):
        rest = list(pool)
        rest.remove(die)
        for src in range(25, 0, -1):
            if not me[src - 1] or (me[24] and src != BAR):
                continue
            dst = src - die
            if dst <= 0:
                if any(me[6:25]) or (dst < 0 and any(me[src:24])):
                    continue
                dst = OFF
            if not any(end <= dst < src <= start for start, end in spans):
                continue
            theirs = opp[24 - dst] if dst != OFF else 0
            if theirs >= 2:
                continue
            hit = theirs == 1
            me[src - 1] -= 1
            if dst != OFF:
                me[dst - 1] += 1
            if hit:
                opp[24 - dst] -= 1
                opp[24] += 1
            done.append(Step(src, dst, hit))
            found = _search(me, opp, rest, spans, target, done)
            done.pop()
            if hit:
                opp[24] -= 1
                opp[24 - dst] += 1
            if dst != OFF:
                me[dst - 1] -= 1
            me[src - 1] += 1
            if found is not None:
                return found
    return None

