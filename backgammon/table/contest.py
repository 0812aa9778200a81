"""Contests: what a :class:`~backgammon.table.Table` is playing, behind one interface.

A contest is a two-player match or money session (:class:`MatchContest`, over a
:class:`~backgammon.match.Match`) or a chouette (:class:`ChouetteContest`, over a
:class:`~backgammon.chouette.Chouette`). Either way players are named by their seat (a
string), and the table asks the same questions: who must act, what may a seat do, why not,
do it, what does the board look like from a seat, what does a bot on a seat decide about.

Every seat plays one of the board's two *sides*: side 0 (``X``: a match's player 0, a
chouette's box) or side 1 (``O``: player 1, the chouette's team). :meth:`Contest.board`
gives the board seen from a seat's side.

>>> from backgammon.dice import ScriptedDice
>>> c = MatchContest(("ann", "bob"), length=3, dice=ScriptedDice([(6, 1)]))
>>> c.to_act(), sorted(c.actions("bob"))
(('ann', 'bob'), ['roll'])
>>> c.apply("bob", "roll")
>>> c.to_act(), c.dice
(('ann',), (6, 1))
>>> c.why_not("bob", "double")
Refusal(action='double', player=1, rule='R43', reason="it is ann's turn, not yours")
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..chouette import Chouette, ChouetteAction, ChouettePhase, Side
from ..dice import DiceSource
from ..errors import BackgammonError, Refusal
from ..game import Action, Game, Phase
from ..match import Match
from ..matchid import MatchState
from ..move import Move
from ..position import LegalMoves, Position
from ..rules import Rules

__all__ = ["CONTEST_TYPES", "ChouetteContest", "Contest", "MatchContest", "Offer", "contest_from_dict"]


@dataclass(frozen=True)
class Offer:
    """A decision that waits for answers: a double (``"double"``: a player's, the team's or
    the box's), a proposed team double (``"proposal"``, R39) or a resignation
    (``"resignation"``, ``level`` 1–3, R31). ``by`` offered it; ``waiting`` must still
    answer; ``cube`` is the value the cube goes to (the proposer's stake's, in a chouette)."""

    kind: str
    by: str
    waiting: tuple[str, ...]
    cube: int = 0
    level: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "kind": self.kind,
            "by": self.by,
            "waiting": list(self.waiting),
            "cube": self.cube,
            "level": self.level,
        }


class Contest(abc.ABC):
    """The interface a :class:`~backgammon.table.Table` drives. Actions are named by the
    strings of :class:`~backgammon.game.Action` / :class:`~backgammon.chouette.ChouetteAction`
    (``"roll"``, ``"play"``, ``"double"``, ``"propose_double"``, ``"consent"``...)."""

    #: ``"match"`` or ``"chouette"``: the ``kind`` in :meth:`to_dict`.
    kind: ClassVar[str]
    #: True when seats that are not awaited may act too (a chouette team member's
    #: proposal of a double, R39): the table then asks them once a turn.
    has_options: ClassVar[bool] = False

    @property
    @abc.abstractmethod
    def seats(self) -> tuple[str, ...]:
        """The seats, in order (a match: player 0 then player 1)."""

    @abc.abstractmethod
    def side(self, seat: str) -> int:
        """The side ``seat`` plays now: 0 (X, a chouette's box) or 1 (O, the team)."""

    @abc.abstractmethod
    def to_act(self) -> tuple[str, ...]:
        """The seats whose action the game waits for (several while each answers alone)."""

    @abc.abstractmethod
    def actions(self, seat: str) -> frozenset[str]:
        """What ``seat`` may do now (also optional actions: a team member's proposal)."""

    @abc.abstractmethod
    def why_not(self, seat: str, action: str) -> Refusal | None:
        """Why ``seat`` may not take ``action`` now, or ``None``."""

    @abc.abstractmethod
    def apply(self, seat: str, action: str, argument: Any = None) -> None:
        """Take ``action`` for ``seat`` (``argument``: the move of a play, the level of a
        resignation). The game or chouette checks it again and raises a
        :class:`~backgammon.errors.BackgammonError`, changing nothing, when it is not
        allowed; ask :meth:`why_not` first for the refusal addressed to the seat."""

    @abc.abstractmethod
    def game(self) -> Game:
        """The current game's board state (read only)."""

    @abc.abstractmethod
    def phase(self) -> str:
        """Where the game stands: the value of :class:`~backgammon.game.Phase` (a match) or
        :class:`~backgammon.chouette.ChouettePhase` (a chouette): ``"opening"``, ``"roll"``,
        ``"play"``, ``"cube"``, ``"consent"``, ... ``"over"``."""

    #: the Match or Chouette that keeps the log (set by each contest)
    _log: Match | Chouette

    @property
    def game_number(self) -> int:
        """The number of the current game, from 1."""
        return self._log.game_number

    @abc.abstractmethod
    def match_state(self, seat: str) -> MatchState:
        """The state of ``seat``'s game as gnubg's :class:`~backgammon.matchid.MatchState`
        (player 0 is side 0), for a bot's cube and resignation decisions on its stake."""

    @abc.abstractmethod
    def offer(self) -> Offer | None:
        """The decision that waits for answers, if any."""

    def undo(self) -> None:
        """Take back the last action (only tests and analysis use this; a table offers undo
        of unconfirmed plays only, R42)."""
        self._log.undo()

    @abc.abstractmethod
    def is_over(self) -> bool:
        """True once nothing more can happen (a match that is won)."""

    @abc.abstractmethod
    def game_over(self) -> bool:
        """True while the current game is over and the next has not started (a chouette
        between games, the last game of a finished match)."""

    @property
    def events(self) -> tuple[Any, ...]:
        """The log, oldest first."""
        return self._log.events

    def log_size(self) -> int:
        """How many events the log holds (it only grows, but for :meth:`undo`)."""
        return len(self.events)

    def proposed_this_turn(self) -> bool:
        """True when a team double was proposed in the current turn (R39): a refused
        proposal is not made again before the next roll."""
        return False

    @property
    def rules(self) -> Rules:
        """The options in force."""
        return self._log.rules

    def to_dict(self) -> dict[str, Any]:
        """The log with its header, JSON-ready (the library's own format)."""
        return self._log.to_dict()

    @abc.abstractmethod
    def __eq__(self, other: object) -> bool: ...

    __hash__ = None  # type: ignore[assignment]

    # -- shared ------------------------------------------------------------------------

    @property
    def dice(self) -> tuple[int, int] | None:
        """The dice to play, or ``None``."""
        return self.game().dice

    def board(self, seat: str) -> Position:
        """The board seen from ``seat``'s side."""
        return self.game().board(self.side(seat))

    def legal_moves(self) -> LegalMoves:
        """The legal plays of the current roll (in the mover's numbering)."""
        return self.game().legal_moves()

    def mover(self) -> str | None:
        """The seat that rolls and plays the checkers of the side on roll; ``None`` before
        the opening roll, between games and once the contest is over."""
        if self.game_over() or self.is_over():
            return None
        return self._mover_of(self.game().on_roll)

    @abc.abstractmethod
    def _mover_of(self, side: int | None) -> str | None: ...

    def turn_key(self) -> tuple[int, int]:
        """The current turn: (game number, plays made in the game); it changes with each play."""
        return (self.game_number, sum(1 for e in self._game_log() if e.type == "play"))

    def resignations_offered(self, seat: str) -> int:
        """The highest resignation ``seat`` offered in the current game (0: none)."""
        log = self._game_log()
        levels = [e.level for e in log if e.type == "resign" and self._seat_of_event(e.player) == seat]
        return max(levels, default=0)

    def _game_log(self) -> Sequence[Any]:
        """The current game's events."""
        return self.game().events

    def _seat_of_event(self, player: Any) -> Any:
        """The seat an event's ``player`` names (a match logs players as 0 and 1)."""
        return player


class MatchContest(Contest):
    """A match to ``length`` points (0: a money session) between two seats.

    >>> c = MatchContest(("you", "bot"))
    >>> c.seats, c.side("bot"), c.match.is_money
    (('you', 'bot'), 1, True)
    """

    kind: ClassVar[str] = "match"

    def __init__(
        self,
        seats: Sequence[str],
        length: int = 0,
        rules: Rules | None = None,
        *,
        dice: DiceSource | None = None,
        match: Match | None = None,
    ) -> None:
        names = tuple(seats)
        if len(names) != 2 or len(set(names)) != 2 or not all(isinstance(n, str) and n for n in names):
            raise BackgammonError(f"seats {list(names)!r}: a match has two seats with different names")
        self._seats = names
        self.match = match if match is not None else Match(length, rules, dice=dice)
        self._log = self.match

    @property
    def seats(self) -> tuple[str, ...]:
        return self._seats

    def side(self, seat: str) -> int:
        try:
            return self._seats.index(seat)
        except ValueError:
            raise BackgammonError(f"{seat!r} is not a seat of this table ({', '.join(self._seats)})") from None

    def game(self) -> Game:
        return self.match.game

    def phase(self) -> str:
        return Phase.OVER.value if self.match.is_over() else self.match.game.phase.value

    def log_size(self) -> int:
        m = self.match
        return sum(len(g.events) for g in m.games) + m.game_number + (m.forfeited is not None) + m.is_over()

    def forfeit(self, seat: str, reason: str) -> None:
        """``seat`` loses the match on ``reason`` (``"time"`` or ``"abandoned"``): see
        :meth:`Match.forfeit <backgammon.match.Match.forfeit>`.

        >>> c = MatchContest(("ann", "bob"), length=3)
        >>> c.forfeit("ann", "abandoned")
        >>> c.is_over(), c.match.winner, c.match.score, c.phase(), c.to_act()
        (True, 1, (0, 3), 'over', ())
        """
        self.match.forfeit(reason, player=self.side(seat))

    def to_act(self) -> tuple[str, ...]:
        if self.match.is_over():
            return ()
        game = self.match.game
        if game.phase is Phase.OPENING:
            return self._seats
        actor = game.to_act
        return () if actor is None else (self._seats[actor],)

    def actions(self, seat: str) -> frozenset[str]:
        if self.match.is_over():
            return frozenset()
        return frozenset(a.value for a in self.match.game.legal_actions(self.side(seat)))

    def why_not(self, seat: str, action: str) -> Refusal | None:
        player = self.side(seat)
        if self.match.is_over():
            return Refusal(action, player, "R32", "the match is over")
        try:
            kind = Action(action)
        except ValueError:
            return Refusal(action, player, None, f"{action!r} is not an action of a two-player game")
        refusal = self.match.game.why_not(kind, player)
        actors = self.to_act()
        if refusal is not None and actors and seat not in actors:
            return Refusal(action, player, "R43", f"it is {actors[0]}'s turn, not yours")
        return refusal

    def apply(self, seat: str, action: str, argument: Any = None) -> None:
        game, player = self.match.game, self.side(seat)
        if action == "roll":
            game.roll(player=None if game.phase is Phase.OPENING else player)
        elif action == "play":
            game.play(argument if argument is not None else Move(), player=player)
        elif action == "double":
            game.double(player=player)
        elif action == "take":
            game.take(player=player)
        elif action == "pass":
            game.pass_double(player=player)
        elif action == "beaver":
            game.beaver(player=player)
        elif action == "resign":
            game.resign(1 if argument is None else argument, player=player)
        elif action == "accept":
            game.accept(player=player)
        elif action == "decline":
            game.decline(player=player)
        else:  # pragma: no cover - why_not refused it
            raise AssertionError(action)

    def match_state(self, seat: str) -> MatchState:
        self.side(seat)
        return self.match.match_state()

    def offer(self) -> Offer | None:
        game = self.match.game
        if self.match.is_over():
            return None
        if game.phase is Phase.CUBE:
            on_roll = game.on_roll
            assert on_roll is not None
            return Offer("double", self._seats[on_roll], (self._seats[1 - on_roll],), cube=2 * game.cube_value)
        resignation = game.resignation
        if resignation is not None:
            by, level = resignation
            return Offer("resignation", self._seats[by], (self._seats[1 - by],), level=level)
        return None


    def is_over(self) -> bool:
        return self.match.is_over()

    def game_over(self) -> bool:
        return self.match.game.is_over()

    def _mover_of(self, side: int | None) -> str | None:
        return None if side is None else self._seats[side]

    def _seat_of_event(self, player: Any) -> Any:
        return self._seats[player] if isinstance(player, int) else player


    @classmethod
    def from_dict(
        cls, seats: Sequence[str], data: Mapping[str, Any], *, dice: DiceSource | None = None
    ) -> MatchContest:
        """Rebuild from :meth:`to_dict` (a match log) and the seat names."""
        return cls(seats, match=Match.from_dict(dict(data), dice=dice))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MatchContest):
            return NotImplemented
        return self._seats == other._seats and self.match == other.match


class ChouetteContest(Contest):
    """A chouette (R35–R41) of three or more seats.

    >>> from backgammon.dice import ScriptedDice
    >>> c = ChouetteContest(["ann", "bob", "cy"], dice=ScriptedDice([4, 6, 2]))
    >>> c.chouette.box, c.side("bob"), c.side("ann"), c.to_act()
    ('bob', 0, 1, ('bob', 'ann'))
    """

    kind: ClassVar[str] = "chouette"
    has_options: ClassVar[bool] = True

    def __init__(
        self,
        seats: Sequence[str],
        rules: Rules | None = None,
        *,
        dice: DiceSource | None = None,
        chouette: Chouette | None = None,
    ) -> None:
        self.chouette = chouette if chouette is not None else Chouette(list(seats), rules, dice=dice)
        self._log = self.chouette

    @property
    def seats(self) -> tuple[str, ...]:
        return self.chouette.players

    def side(self, seat: str) -> int:
        if seat not in self.chouette.players:
            raise BackgammonError(
                f"{seat!r} is not a seat of this table ({', '.join(self.chouette.players)})"
            )
        return 0 if seat == self.chouette.box else 1

    def game(self) -> Game:
        return self.chouette.game

    def phase(self) -> str:
        return self.chouette.phase.value

    @property
    def dice(self) -> tuple[int, int] | None:
        return self.chouette.dice

    def board(self, seat: str) -> Position:
        return self.chouette.board(Side.BOX if self.side(seat) == 0 else Side.TEAM)

    def legal_moves(self) -> LegalMoves:
        return self.chouette.legal_moves()


    def to_act(self) -> tuple[str, ...]:
        c = self.chouette
        if c.phase is ChouettePhase.OVER:
            return tuple(p for p in c.players if ChouetteAction.NEXT_GAME in c.legal_actions(p))[:1]
        return c.to_act

    def actions(self, seat: str) -> frozenset[str]:
        return frozenset(a.value for a in self.chouette.legal_actions(seat))

    def why_not(self, seat: str, action: str) -> Refusal | None:
        try:
            kind = ChouetteAction(action)
        except ValueError:
            return Refusal(action, seat, None, f"{action!r} is not an action of a chouette")
        return self.chouette.why_not(kind, seat)

    def apply(self, seat: str, action: str, argument: Any = None) -> None:
        c = self.chouette
        if action == "play":
            c.play(argument if argument is not None else Move(), player=seat)
        elif action == "resign":
            c.resign(1 if argument is None else argument, player=seat)
        elif action == "next_game":
            c.next_game()
        else:
            method = {
                "roll": c.roll,
                "double": c.double,
                "propose_double": c.propose_double,
                "consent": c.consent,
                "refuse": c.refuse,
                "take": c.take,
                "pass": c.pass_double,
                "beaver": c.beaver,
                "accept": c.accept,
                "decline": c.decline,
            }[action]
            method(player=seat)

    def match_state(self, seat: str) -> MatchState:
        c = self.chouette
        if seat != c.box:
            return c.match_state(seat)
        # the box decides for every stake at once: it looks at the stake of the team's mover
        team = c.team or c.line
        return c.match_state(c.mover if c.mover in team else team[0])

    def offer(self) -> Offer | None:
        c = self.chouette
        pending = c.pending
        if pending is None:
            return None
        phase, by, waiting, level = pending
        if phase is ChouettePhase.RESIGN:
            return Offer("resignation", by, waiting, level=level)
        if phase is ChouettePhase.CONSENT:
            return Offer("proposal", by, waiting, cube=2 * c.stakes[by].cube)
        stake_of = by if by != c.box else (c.team[0] if c.team else c.captain)
        return Offer("double", by, waiting, cube=2 * c.stakes[stake_of].cube)


    def is_over(self) -> bool:
        return False

    def game_over(self) -> bool:
        return self.chouette.phase is ChouettePhase.OVER

    def _mover_of(self, side: int | None) -> str | None:
        return self.chouette.on_roll

    def _game_log(self) -> Sequence[Any]:
        log = self.chouette.events
        start = max((i for i, e in enumerate(log) if e.type == "game_start"), default=0)
        return log[start:]

    def proposed_this_turn(self) -> bool:
        for event in reversed(self.chouette.events):
            if event.type in ("play", "game_start"):
                return False
            if event.type == "propose_double":
                return True
        return False


    @classmethod
    def from_dict(
        cls, seats: Sequence[str], data: Mapping[str, Any], *, dice: DiceSource | None = None
    ) -> ChouetteContest:
        """Rebuild from :meth:`to_dict` (a chouette log)."""
        contest = cls(seats, chouette=Chouette.from_dict(data, dice=dice))
        if set(contest.seats) != set(seats):
            raise BackgammonError(
                f"the chouette's players ({', '.join(contest.seats)}) are not the table's seats "
                f"({', '.join(seats)})"
            )
        return contest

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChouetteContest):
            return NotImplemented
        return self.chouette == other.chouette


#: The contest classes by their ``kind``.
CONTEST_TYPES: Mapping[str, type[Contest]] = {"match": MatchContest, "chouette": ChouetteContest}


def contest_from_dict(
    kind: str, seats: Sequence[str], data: Mapping[str, Any], *, dice: DiceSource | None = None
) -> Contest:
    """The contest of ``kind`` rebuilt from its log (:meth:`Contest.to_dict`)."""
    if kind == "match":
        return MatchContest.from_dict(seats, data, dice=dice)
    if kind == "chouette":
        return ChouetteContest.from_dict(seats, data, dice=dice)
    raise BackgammonError(f"contest kind {kind!r}: expected 'match' or 'chouette'")
