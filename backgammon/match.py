"""Matches to N points (R32, R33) and money sessions: :class:`Match`.

A :class:`Match` plays :class:`~backgammon.game.Game` after game with one dice source.
Act on the current game, :attr:`Match.game`; when it ends, the match adds its points to the
score and starts the next game at once (unless the match is over). In a match the
Crawford game (R33) is the game right after a player first reaches exactly N − 1 points;
games after it are post-Crawford. With ``length=0`` the same class is a money session:
it keeps a running score of points won and ends only when a player forfeits it.

A player who runs out of time or leaves forfeits (:meth:`Match.forfeit`): the other player
wins the match, their score shown as the match length (R32); a money session ends with the
score as it stands. The log records a :class:`~backgammon.events.Forfeit`.

The score may pass N (a gammon at 4-away in a 5-point match): :attr:`Match.score` keeps the
points as won, and only reporting caps them (:attr:`Match.capped_score`,
:meth:`Match.counted_points`).

>>> from backgammon.match import Match
>>> from backgammon.dice import ScriptedDice
>>> m = Match(3, dice=ScriptedDice([(6, 1), (5, 2), (4, 3)]))
>>> m.game.roll()                      # player 0 opens with 6-1
>>> m.game.play("13/7 8/7")
>>> m.game.double(); m.game.pass_double()
>>> m.score, m.game_number
((0, 1), 2)
>>> m.game.roll(); m.game.resign(); m.game.accept()
>>> m.score, m.crawford                # player 1 is at N - 1: the Crawford game (R33)
((0, 2), True)
>>> m.game.roll(); m.game.play("24/20 13/10")
>>> m.game.double()
Traceback (most recent call last):
...
backgammon.errors.IllegalActionError: double by player 1: nobody may double in the Crawford game (R33) [Position ID 4HPiASHgc/ABMA]
>>> m.game.resign("gammon"); m.game.accept()   # player 1, on roll, resigns a gammon
>>> m.score, m.crawford, m.post_crawford, m.game_number
((2, 2), False, True, 4)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, TypedDict, Unpack, cast

from .dice import DiceSource, SecureDice
from .errors import BackgammonError, IllegalActionError, Refusal
from .events import (
    FORFEIT_REASONS,
    FORMAT_VERSION,
    Forfeit,
    GameEvent,
    GameResult,
    GameStart,
    Logged,
    MatchEnd,
    MatchEvent,
    SetUp,
    check_header,
    check_same_log,
    event_from_dict,
    event_list,
    load_json,
)
from .game import Game, ReadOnly, _is_int
from .matchid import MatchState
from .rules import Rules

__all__ = ["Match"]


class _Start(TypedDict, total=False):
    """The keywords of :class:`Match` that say how it starts, passed on by :meth:`Match.replay`."""

    dice: DiceSource | None
    score: tuple[int, int]
    crawford: bool
    post_crawford: bool


class Match(Logged):
    """A match to ``length`` points (R32) with the Crawford rule (R33), or with
    ``length=0`` a money session with a running score.

    ``rules`` give the other options (their ``match_length`` is set to ``length``; in a
    match automatic doubles, Jacoby and beavers do not apply, R34). ``score``,
    ``crawford`` and ``post_crawford`` describe the start, for a match taken up in the
    middle: the first game is the Crawford game, or the Crawford game has been played.

    >>> m = Match(5, Rules(jacoby=True))
    >>> m.rules.match_length, m.rules.jacoby_applies, m.game.crawford
    (5, False, False)
    >>> Match.money().is_money
    True
    """

    __slots__ = (
        "_crawford_used",
        "_forfeit",
        "_games",
        "_rules",
        "_score",
        "_source",
        "_start",
        "_starts",
        "_winner",
    )

    def __init__(
        self,
        length: int = 0,
        rules: Rules | None = None,
        *,
        dice: DiceSource | None = None,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        post_crawford: bool = False,
    ) -> None:
        if not _is_int(length) or length < 0:
            raise BackgammonError(
                f"length={length!r}: a match is to N >= 1 points, or 0 for money play (R32)"
            )
        base = Rules() if rules is None else rules
        if not isinstance(base, Rules):
            raise BackgammonError(f"rules={rules!r}: expected a Rules object")
        self._rules = replace(base, match_length=length)
        if crawford and post_crawford:
            raise BackgammonError("a match cannot be both in the Crawford game and past it (R33)")
        if post_crawford and not length:
            raise BackgammonError("post-Crawford is for matches only (R33)")
        self._source: DiceSource = SecureDice() if dice is None else dice
        self._score = (0, 0)
        self._games: list[Game] = []
        self._starts: list[GameStart] = []
        self._crawford_used = post_crawford
        self._winner: int | None = None
        self._forfeit: Forfeit | None = None
        # Game() checks the score and the Crawford flag
        first = Game(self._rules, dice=self._source, score=score, crawford=crawford)
        self._score = first.score
        self._start = (first.score, crawford, post_crawford)
        self._add_game(first)

    @classmethod
    def money(cls, rules: Rules | None = None, *, dice: DiceSource | None = None) -> Match:
        """A money session: games without end, with a running score of points won."""
        return cls(0, rules, dice=dice)

    def _add_game(self, game: Game) -> None:
        if game.crawford:
            self._crawford_used = True
        game._on_end = self._game_over
        self._starts.append(GameStart(len(self._games) + 1, game.score, game.crawford))
        self._games.append(game)

    def _game_over(self, game: Game) -> None:
        result = game.result
        assert result is not None and game is self._games[-1]
        score = list(self._score)
        score[result.winner] += result.points
        self._score = (score[0], score[1])
        n = self._rules.match_length
        if n and self._score[result.winner] >= n:
            self._winner = result.winner  # R32
            return
        crawford = bool(n) and not self._crawford_used and self._score[result.winner] == n - 1  # R33
        self._add_game(Game(self._rules, dice=self._source, score=self._score, crawford=crawford))

    # -- reading ------------------------------------------------------------------------

    rules = ReadOnly[Rules]("_rules", "The options, with ``match_length`` set.")
    length = ReadOnly[int]("_rules.match_length", "N, the points needed to win; 0 for a money session.")
    is_money = ReadOnly[bool]("_rules.is_money", "True for a money session.")
    dice_source = ReadOnly[DiceSource]("_source", "The dice source shared by the games.")
    score = ReadOnly[tuple[int, int]](
        "_score", "Points won so far (player 0, player 1), uncapped: may pass N."
    )

    @property
    def capped_score(self) -> tuple[int, int]:
        """The score for display: capped at N in a match."""
        n = self.length
        if not n:
            return self._score
        return min(self._score[0], n), min(self._score[1], n)

    @property
    def game(self) -> Game:
        """The current game (the last one, once the match is over). Act on it directly."""
        return self._games[-1]

    @property
    def games(self) -> tuple[Game, ...]:
        """Every game so far, the current one last."""
        return tuple(self._games)

    @property
    def game_number(self) -> int:
        """The number of the current game, from 1."""
        return len(self._games)

    @property
    def results(self) -> tuple[GameResult, ...]:
        """The results of the finished games, in order."""
        return tuple(g.result for g in self._games if g.result is not None)

    def counted_points(self, index: int) -> int:
        """The points game ``index`` (from 0) counts for in the match: its result's
        points, capped at what the winner still needed (money play: not capped).

        >>> from backgammon.dice import ScriptedDice
        >>> m = Match(1, dice=ScriptedDice([(4, 1)]))
        >>> m.game.roll(); m.game.resign("backgammon"); m.game.accept()
        >>> m.results[0].points, m.counted_points(0), m.score, m.capped_score
        (3, 1, (0, 3), (0, 1))
        """
        result = self._games[index].result
        if result is None:
            what = f"game {index + 1} is not over"
            raise IllegalActionError(what, Refusal("counted_points", None, None, what))
        if not self.length:
            return result.points
        before = self._starts[index].score[result.winner]
        return min(result.points, self.length - before)

    @property
    def crawford(self) -> bool:
        """True while the current game is the Crawford game (R33)."""
        return self.game.crawford and not self.game.is_over() and self._winner is None

    @property
    def post_crawford(self) -> bool:
        """True once the Crawford game has been played (R33)."""
        return self._crawford_used and not self.crawford

    def is_over(self) -> bool:
        """True once a player has reached N or forfeited (a money session: once forfeited)."""
        return self._winner is not None

    winner = ReadOnly[int | None]("_winner", "The winner of the match, once it is over.")
    forfeited = ReadOnly[Forfeit | None]("_forfeit", "The forfeit that ended the match, if one did.")

    def forfeit(self, reason: str, *, player: int) -> None:
        """``player`` loses the match without playing it out: ``reason`` is ``"time"`` (their
        clock ran out) or ``"abandoned"`` (they left). The other player wins the match and
        their score becomes the match length (R32); a money session ends with the score as
        it stands. The game in progress is left as it stood: act on it no more.

        >>> m = Match(5)
        >>> m.forfeit("time", player=0)
        >>> m.is_over(), m.winner, m.score, [e.type for e in m.events[-2:]]
        (True, 1, (0, 5), ['forfeit', 'match_end'])
        >>> m.forfeit("time", player=1)
        Traceback (most recent call last):
        ...
        backgammon.errors.IllegalActionError: forfeit by player 1: the match is over (R32)
        """
        if player not in (0, 1) or isinstance(player, bool):
            raise BackgammonError(f"player={player!r}: a match's players are 0 and 1")
        if reason not in FORFEIT_REASONS:
            raise BackgammonError(
                f"reason={reason!r}: a match is forfeited on {' or by '.join(map(repr, FORFEIT_REASONS))}"
            )
        if self._winner is not None:
            refusal = Refusal("forfeit", player, "R32", "the match is over")
            raise IllegalActionError(f"forfeit by player {player}: {refusal}", refusal)
        winner = 1 - player
        self._forfeit = Forfeit(player, reason)
        self._winner = winner
        n = self.length
        if n:
            score = list(self._score)
            score[winner] = max(score[winner], n)  # R32: the winner has the match
            self._score = (score[0], score[1])

    @property
    def events(self) -> tuple[MatchEvent, ...]:
        """The match log: each game's :class:`~backgammon.events.GameStart`, then its events;
        a :class:`~backgammon.events.MatchEnd` at the end."""
        out: list[MatchEvent] = []
        for start, game in zip(self._starts, self._games):
            out.append(start)
            out.extend(game.events)
        if self._forfeit is not None:
            out.append(self._forfeit)
        if self._winner is not None:
            out.append(MatchEnd(self._winner, self._score))
        return tuple(out)

    # -- ids ----------------------------------------------------------------------------

    def match_state(self) -> MatchState:
        """gnubg's :class:`~backgammon.matchid.MatchState` of the current moment (the score
        capped at N; after a game ends, the score after it)."""
        return replace(self.game.match_state(), score=self.capped_score)

    def match_id(self) -> str:
        """gnubg's Match ID of the current moment."""
        return self.match_state().to_match_id()

    def xgid(self) -> str:
        """The XGID of the current game (see :meth:`Game.xgid`)."""
        return self.game.xgid()

    @classmethod
    def from_xgid(cls, text: str, rules: Rules | None = None, *, dice: DiceSource | None = None) -> Match:
        """A match (or money session) taken up at an XGID: its length, score and Crawford
        flag, and the first game set up from it (see :meth:`Game.from_xgid`). A player at
        N − 1 outside the Crawford game means the Crawford game was played.

        >>> m = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:4:2:1:5:10")
        >>> m.length, m.score, m.crawford, m.game.on_roll, m.game.dice
        (5, (2, 4), True, 1, (5, 2))
        """
        game = Game.from_xgid(text, rules, dice=dice)
        n = game.match_length
        post = bool(n) and not game.crawford and n - 1 in game.score and n > 1
        match = cls(n, game.rules, dice=dice, score=game.score, crawford=game.crawford, post_crawford=post)
        setup = game.events[0]
        assert isinstance(setup, SetUp)
        match.game._setup(setup)
        return match

    # -- replay, undo, copies -----------------------------------------------------------

    @classmethod
    def replay(
        cls,
        events: Iterable[MatchEvent],
        length: int = 0,
        rules: Rules | None = None,
        **start: Unpack[_Start],
    ) -> Match:
        """The match that ``events`` record (as :meth:`Game.replay`, game after game); ``start``
        takes the constructor's keywords (``dice``, ``score``, ``crawford``, ``post_crawford``)."""
        match = cls(length, rules, **start)
        log = list(events)
        for i, event in enumerate(log):
            if event.primary:
                if match.is_over():
                    raise IllegalActionError(
                        f"replaying event {i} ({event.type}): the match is over (R32)",
                        Refusal(event.type, getattr(event, "player", None), "R32", "the match is over"),
                    )
                if isinstance(event, Forfeit):
                    try:
                        event.apply(match)
                    except BackgammonError as exc:
                        raise type(exc)(f"replaying event {i} (forfeit): {exc}", exc.refusal) from exc
                else:
                    match.game._dispatch(cast(GameEvent, event), i)
        check_same_log(match.events, log)
        return match

    def undo(self) -> tuple[MatchEvent, ...]:
        """Take back the last action of the match (even one that ended a game); return the
        removed events. See :meth:`Game.undo`."""
        log = self.events
        cut = max((i for i, e in enumerate(log) if e.primary and not isinstance(e, SetUp)), default=None)
        if cut is None:
            raise IllegalActionError(
                f"undo: there is nothing to undo [Position ID {self.game.position_id()}]",
                Refusal("undo", None, None, "there is nothing to undo"),
            )
        removed = tuple(log[cut:])
        fresh = self._replay_same(log[:cut])
        for name in Match.__slots__:
            setattr(self, name, getattr(fresh, name))
        for game in self._games:
            game._on_end = self._game_over
        return removed

    def _replay_same(self, log: Sequence[MatchEvent]) -> Match:
        score, crawford, post = self._start
        return Match.replay(
            log,
            self.length,
            self._rules,
            dice=self._source,
            score=score,
            crawford=crawford,
            post_crawford=post,
        )

    def copy(self) -> Match:
        """An independent copy (sharing the dice source), equal to this match."""
        return self._replay_same(self.events)

    def _key(self) -> tuple[Any, ...]:
        state = (self._rules, self._start, self._score, self._winner, self._crawford_used, self._forfeit)
        return (*state, self.events, tuple(self._games))


    # -- serialisation ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The log with its header (format, version, rules, start), JSON-ready."""
        score, crawford, post = self._start
        return {
            "format": "backgammon-match",
            "version": FORMAT_VERSION,
            "rules": self._rules.to_dict(),
            "start": {"score": list(score), "crawford": crawford, "post_crawford": post},
            "events": [e.to_dict() for e in self.events],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, dice: DiceSource | None = None) -> Match:
        """Rebuild a match from :meth:`to_dict`'s output by replaying its log."""
        check_header(data, "backgammon-match")
        rules = Rules.from_dict(data.get("rules", {}))
        start = data.get("start", {})
        if not isinstance(start, dict):
            raise BackgammonError(f"start {start!r}: expected a JSON object")
        score = start.get("score", [0, 0])
        if not isinstance(score, list) or len(score) != 2:
            raise BackgammonError(f"score {score!r}: expected two numbers")
        events = [cast(MatchEvent, event_from_dict(raw)) for raw in event_list(data)]
        return cls.replay(
            events,
            rules.match_length,
            rules,
            dice=dice,
            score=(score[0], score[1]),
            crawford=start.get("crawford", False),
            post_crawford=start.get("post_crawford", False),
        )

    # -- text ---------------------------------------------------------------------------

    def status(self) -> str:
        """One line: the score and the state of the current game."""
        forfeit = self._forfeit
        if self.is_money:
            head = f"money session, game {self.game_number}, score {self._score[0]}-{self._score[1]}"
            if forfeit is not None:
                why = "ran out of time" if forfeit.reason == "time" else "left"
                return f"{head}; player {forfeit.player} {why}: the session is over"
        else:
            s0, s1 = self.capped_score
            head = f"{self.length}-point match, game {self.game_number}, score {s0}-{s1}"
            if forfeit is not None:
                why = "lost the match on time" if forfeit.reason == "time" else "left the match"
                return f"{head}; player {forfeit.player} {why}: player {self._winner} wins"
            if self._winner is not None:
                return f"{head}; player {self._winner} wins the match"
            if self.crawford:
                head += " (Crawford game)"
            elif self.post_crawford:
                head += " (post-Crawford)"
        return f"{head}; {self.game.status()}"

    def __repr__(self) -> str:
        return f"<Match {self.status()!r}>"
