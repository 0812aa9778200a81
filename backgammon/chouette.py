"""Chouette: backgammon for three or more players (R35–R41), as a :class:`Chouette` session.

One player, the *box*, plays alone against everyone else, the *team*. The team's checkers are
moved by its *captain* (R36); the other members stand behind the captain in an ordered
*line*. Each team member plays for their own stake against the box: every member has their
own cube (value and owner), and the :attr:`Chouette.ledger` keeps every player's running total
(it always sums to zero).

The session is driven like a :class:`~backgammon.game.Game`: every action names the player
who takes it (``player=``), is checked, and either raises
:class:`~backgammon.errors.IllegalActionError` (an illegal play:
:class:`~backgammon.errors.IllegalMoveError`) and changes nothing, or is appended to the
event log. :attr:`Chouette.phase`, :attr:`Chouette.to_act`, :meth:`Chouette.legal_actions`,
:meth:`Chouette.options` and :meth:`Chouette.status` say who must act and what they may do.

How the rules are applied:

* **Seating, R35.** The constructor throws the roll-off with the dice source: every player
  throws one die; players who tie throw again among themselves (as often as needed, also for
  the lower places), so the whole order is decided. Highest: the box; second: the captain;
  the rest stand in the line in the order of their throws. Each throw is logged
  (:class:`RollOff`).
* **Each game** is a normal money game between the box (the :class:`~backgammon.game.Game`'s
  player 0) and the team (player 1), with the same :class:`~backgammon.rules.Rules`: the
  opening roll (R4–R6; the box and the captain throw), rolls and plays (R7–R21). The board is
  :attr:`Chouette.game` (a copy: act only through the chouette).
* **The captain moves, R36.** Only the captain rolls and plays for the team.
  If the captain leaves the game (passes a box double, accepts the box's resignation, or
  resigns and the box accepts) while other members play on, the next member in line who is
  still in the game rolls and moves the checkers for the rest of the game (standard club
  practice; logged as :class:`NewCaptain`, read as :attr:`Chouette.mover`). This acting
  captain does not change the rotation: :attr:`Chouette.captain` stays the game's captain.
* **Team doubles, R39.** Any team member still in the game may propose a double on the
  team's turn before the roll (:meth:`Chouette.propose_double`), while every member's cube is
  centred or their own. It is offered to the box only when every other member in the game has
  consented (:meth:`Chouette.consent`); one refusal (:meth:`Chouette.refuse`) drops it, and the
  team rolls. The box then takes (every member's stake doubles, the box owns the cubes),
  beavers (stakes × 4, R30) or passes (the box pays every member in the game their stake
  before the double, R29, and the game is over).
* **Box doubles, R40.** The box doubles (:meth:`Chouette.box_double`) before its roll while
  every member's cube is centred or the box's. Each member in the game answers once, alone,
  in any order: :meth:`Chouette.take` (their stake doubles, they own their cube),
  :meth:`Chouette.beaver` (their stake × 4, R30: that member's stake only) or
  :meth:`Chouette.pass_double` (they pay the box their stake before the double at once and
  leave the game). When all have answered, the box rolls; if every member passed, the game
  is over.
* **Resignations, R31, per stake.** The box may offer to resign (single, gammon or
  backgammon) on its turn; each member in the game accepts (the box pays them the value
  on their stake and they leave the game) or declines (they play on), alone. A team member
  may offer to resign *their own stake* on the team's turn; the box accepts (they pay and
  leave) or declines. A game whose members have all left this way is over.
* **Scoring, R22–R25, per stake.** Gammons, backgammons, the backgammon-counts-as-gammon
  option and the Jacoby rule (gammons count single while *that member's* cube is centred)
  apply to each stake as in a two-player money game; automatic doubles (R6) raise every
  stake.
* **Settlement, R41.** When the game ends on the board (or by the box passing), the box pays
  each member still in the game what their stake won, or each of them pays the box. Every
  payment is logged (:class:`Payment`) and booked in the ledger at once.
* **Rotation, R37/R38**, when :meth:`Chouette.next_game` starts the next game. The game is
  won by the side that won the *captain's* stake (so a captain who passed has lost, whatever
  the members who took do later; standard club practice). Box won: the box stays, the next
  in line becomes captain and the old captain goes to the end of the line (R37). Team won:
  the captain goes into the box, the next in line becomes captain, the old box goes to the
  end of the line (R38).

The log serialises to JSON (format ``backgammon-chouette``, version 1) and replays to an
equal session without the dice source (:meth:`Chouette.from_json`, :meth:`Chouette.replay`).

The API at a glance (every action takes ``player=``, the name of who acts):

* seats and money: :attr:`~Chouette.box`, :attr:`~Chouette.captain`, :attr:`~Chouette.line`
  (captain first), :attr:`~Chouette.team` (members still in this game),
  :attr:`~Chouette.mover`, :meth:`~Chouette.role`, :attr:`~Chouette.stakes`
  (:class:`Stake` per member), :attr:`~Chouette.ledger`, :attr:`~Chouette.results`;
* the board: :attr:`~Chouette.position`, :meth:`~Chouette.board`, :attr:`~Chouette.dice`,
  :attr:`~Chouette.on_roll`, :attr:`~Chouette.side_on_roll`, :meth:`~Chouette.legal_moves`,
  :attr:`~Chouette.game`;
* driving a front end: :attr:`~Chouette.phase`, :attr:`~Chouette.to_act`,
  :meth:`~Chouette.legal_actions`, :meth:`~Chouette.options`, :attr:`~Chouette.pending`,
  :meth:`~Chouette.status`, :meth:`~Chouette.standings`, :meth:`~Chouette.match_state` (a
  member's stake as a :class:`~backgammon.matchid.MatchState`, for bots);
* actions: :meth:`~Chouette.roll`, :meth:`~Chouette.play`, :meth:`~Chouette.propose_double`,
  :meth:`~Chouette.consent`, :meth:`~Chouette.refuse`, :meth:`~Chouette.box_double`
  (:meth:`~Chouette.double` picks one of the two by the player's seat),
  :meth:`~Chouette.take`, :meth:`~Chouette.pass_double`, :meth:`~Chouette.beaver`,
  :meth:`~Chouette.resign`, :meth:`~Chouette.accept`, :meth:`~Chouette.decline`,
  :meth:`~Chouette.next_game`, :meth:`~Chouette.undo`;
* the log: :attr:`~Chouette.events`, :meth:`~Chouette.to_json` / :meth:`~Chouette.from_json`,
  :meth:`~Chouette.replay`, :meth:`~Chouette.copy`, ``==``.

>>> from backgammon.chouette import Chouette
>>> from backgammon.dice import ScriptedDice
>>> c = Chouette(["ann", "bob", "cy"], dice=ScriptedDice([4, 6, 2,  3, 1]))
>>> c.box, c.captain, c.line           # bob threw 6, ann 4, cy 2 (R35)
('bob', 'ann', ('ann', 'cy'))
>>> c.roll(player="bob")               # opening: box 3, captain 1: the box plays 3-1
>>> c.play("8/5 6/5", player="bob")
>>> c.to_act, sorted(a.value for a in c.legal_actions("cy"))
(('ann',), ['propose_double', 'resign'])
>>> c.propose_double(player="cy")      # R39: ann must agree too
>>> c.roll(player="ann")
Traceback (most recent call last):
...
backgammon.errors.IllegalActionError: roll by ann: a double proposed by cy awaits the consent of ann (R39)
>>> c.consent(player="ann")            # offered to the box
>>> c.pass_double(player="bob")        # the box pays each member 1 (R29, R41)
>>> c.winner, c.ledger
(<Side.TEAM: 'team'>, {'ann': 1, 'bob': -2, 'cy': 1})
>>> c.next_game()                      # R38: ann into the box, cy captain, bob at the end
>>> c.box, c.line
('ann', ('cy', 'bob'))
>>> Chouette.from_json(c.to_json()) == c
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, ClassVar

from .dice import DiceSource, SecureDice
from .errors import BackgammonError, IllegalActionError, Refusal
from .events import AutomaticDouble as _GameAutomaticDouble
from .events import (
    Event,
    Logged,
    ResultKind,
    check_header,
    check_same_log,
    event_from_dict,
    event_list,
    load_json,
)
from .events import OpeningRoll as _GameOpeningRoll
from .events import Play as _GamePlay
from .events import Roll as _GameRoll
from .game import Game, Phase, ReadOnly
from .matchid import GameState, MatchState, Resignation
from .move import Move
from .position import LegalMoves, Position
from .rules import Rules

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Accept",
    "AutomaticDouble",
    "Beaver",
    "BoxDouble",
    "Chouette",
    "ChouetteAction",
    "ChouetteEvent",
    "ChouettePhase",
    "ChouetteResult",
    "Consent",
    "Decline",
    "GameOver",
    "GameStart",
    "NewCaptain",
    "NextGame",
    "OpeningRoll",
    "Pass",
    "Payment",
    "Play",
    "ProposeDouble",
    "Refuse",
    "Resign",
    "Roll",
    "RollOff",
    "Side",
    "Stake",
    "Take",
    "TeamDouble",
    "chouette_event_from_dict",
]

#: The ``format`` field of :meth:`Chouette.to_dict`.
FORMAT = "backgammon-chouette"
#: The version of that format written by this library.
FORMAT_VERSION = 1

_LEVELS = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}
_LEVEL_NAMES = {1: "single game", 2: "gammon", 3: "backgammon"}
_MAX_ROLL_OFF_THROWS = 1000


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- value objects ------------------------------------------------------------------------


class Side(Enum):
    """The two sides of a chouette game: the box (the game's player 0) and the team (player 1).

    >>> Side("team")
    <Side.TEAM: 'team'>
    """

    BOX = "box"
    TEAM = "team"


class ChouettePhase(Enum):
    """Where the current chouette game stands; :attr:`Chouette.to_act` says who must act.

    >>> ChouettePhase.BOX_DOUBLE.value
    'box_double'
    """

    OPENING = "opening"  #: the box and the captain throw the opening roll (R4)
    ROLL = "roll"  #: the side on roll may double (R28), resign or roll
    PLAY = "play"  #: the box or the (acting) captain plays the dice
    CONSENT = "consent"  #: a team member proposed a double: the others consent or refuse (R39)
    TEAM_DOUBLE = "team_double"  #: the team doubled: the box takes, passes or beavers
    BOX_DOUBLE = "box_double"  #: the box doubled: each member takes, passes or beavers (R40)
    RESIGN = "resign"  #: a resignation awaits its answer(s) (R31)
    OVER = "over"  #: the game is settled: :meth:`Chouette.next_game` starts the next


class ChouetteAction(Enum):
    """The actions of a chouette, for :meth:`Chouette.legal_actions`.

    >>> ChouetteAction.PROPOSE_DOUBLE.value
    'propose_double'
    """

    ROLL = "roll"
    PLAY = "play"
    DOUBLE = "double"  #: the box doubles the team (R40)
    PROPOSE_DOUBLE = "propose_double"  #: a team member proposes the team's double (R39)
    CONSENT = "consent"
    REFUSE = "refuse"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    RESIGN = "resign"
    ACCEPT = "accept"
    DECLINE = "decline"
    NEXT_GAME = "next_game"


@dataclass(frozen=True)
class Stake:
    """One team member's game against the box: their cube and how it ended.

    ``cube`` is the value of the member's cube, ``owner`` who owns it (the box's name, the
    member's name, or ``None`` while centred). ``result`` is ``None`` while the member is in
    the game, then the points they won (> 0) or lost (< 0) against the box in this game;
    ``kind`` says how it was settled.

    >>> s = Stake("cy", cube=2, owner="cy")
    >>> s.in_game, s.centred
    (True, False)
    """

    player: str
    cube: int = 1
    owner: str | None = None
    result: int | None = None
    kind: ResultKind | None = None

    @property
    def in_game(self) -> bool:
        """True while the member still plays this game (not yet settled)."""
        return self.result is None

    @property
    def centred(self) -> bool:
        """True while the member's cube has not been turned (R26; for the Jacoby rule, R25)."""
        return self.owner is None


@dataclass(frozen=True)
class ChouetteResult:
    """A finished chouette game: its number, seats, the side that won the captain's stake
    (which decides the rotation, R37/R38) and every player's net points in it.

    >>> r = ChouetteResult(1, "bob", ("ann", "cy"), Side.TEAM, {"ann": 1, "bob": -2, "cy": 1})
    >>> r.captain
    'ann'
    """

    number: int
    box: str
    line: tuple[str, ...]
    winner: Side
    net: Mapping[str, int] = field(hash=False)

    @property
    def captain(self) -> str:
        """The game's captain."""
        return self.line[0]


# -- events -----------------------------------------------------------------------------


class ChouetteEvent(Event, family="chouette"):
    """Base of the chouette's log entries (the ``"chouette"`` family of
    :class:`~backgammon.events.Event`; players are names). *Primary* events record an action
    and are replayed by taking it again; the others follow from one and are checked on
    replay.

    >>> Take("cy").to_dict()
    {'type': 'take', 'player': 'cy'}
    """


class _ByName(ChouetteEvent):
    """An event with only the player who acted."""

    player: str


class RollOff(ChouetteEvent, type="roll_off"):
    """One throw of the seating roll-off (R35): ``players`` each threw one die, ``dice``.

    >>> RollOff(("ann", "bob"), (3, 3)).to_dict()
    {'type': 'roll_off', 'players': ['ann', 'bob'], 'dice': [3, 3]}
    """

    action: ClassVar[str | None] = None  # taken again by the replay itself
    players: tuple[str, ...]
    dice: tuple[int, ...]


class GameStart(ChouetteEvent, type="game_start", primary=False):
    """Game ``number`` starts with ``box`` in the box and ``line`` (captain first). Derived."""

    number: int
    box: str
    line: tuple[str, ...]


class OpeningRoll(ChouetteEvent, type="opening_roll"):
    """One throw of the opening roll (R4): (the box's die, the captain's die)."""

    action: ClassVar[str | None] = None  # taken again by the replay itself
    dice: tuple[int, int]


class AutomaticDouble(ChouetteEvent, type="automatic_double", primary=False):
    """R6: equal opening dice raised every stake to ``cube``. Derived."""

    cube: int


class Roll(ChouetteEvent, type="roll", arguments=("dice",)):
    """``player`` (the box or the acting captain) rolled ``dice``."""

    player: str
    dice: tuple[int, int]


class Play(ChouetteEvent, type="play", arguments=("move",)):
    """``player`` played ``move`` (the empty move when none was possible)."""

    player: str
    move: Move


class ProposeDouble(_ByName, type="propose_double"):
    """Team member ``player`` proposed that the team doubles (R39)."""


class Consent(_ByName, type="consent"):
    """Team member ``player`` agreed to the proposed team double (R39)."""


class Refuse(_ByName, type="refuse"):
    """Team member ``player`` refused the proposed team double: it is dropped (R39)."""


class TeamDouble(ChouetteEvent, type="team_double", primary=False):
    """Every member agreed: the team doubles the box on the stakes of ``members``. Derived."""

    members: tuple[str, ...]


class BoxDouble(_ByName, type="box_double"):
    """The box, ``player``, doubled every member in the game (R40)."""


class Take(_ByName, type="take"):
    """``player`` took the double (a member: their own stake; the box: every stake)."""


class Pass(_ByName, type="pass", action="pass_double"):
    """``player`` passed the double (R29, R40)."""


class Beaver(_ByName, type="beaver"):
    """``player`` took and redoubled at once, keeping the cube (R30)."""


class Resign(ChouetteEvent, type="resign", arguments=("level",)):
    """``player`` offered to resign at ``level`` (1 single, 2 gammon, 3 backgammon; R31): the
    box to every member in the game, a member for their own stake."""

    player: str
    level: int


class Accept(_ByName, type="accept"):
    """``player`` accepted the resignation (R31)."""


class Decline(_ByName, type="decline"):
    """``player`` declined the resignation; they play on (R31)."""


class NewCaptain(_ByName, type="new_captain", primary=False):
    """The captain left the game: ``player``, next in line still in it, moves for the team
    for the rest of the game. Derived."""


class Payment(ChouetteEvent, type="payment", primary=False):
    """``payer`` paid ``payee`` ``points`` (R40, R41), for a result of ``kind``. Derived.

    >>> Payment("cy", "bob", 2, ResultKind.PASSED).to_dict()
    {'type': 'payment', 'payer': 'cy', 'payee': 'bob', 'points': 2, 'kind': 'passed'}
    """

    payer: str
    payee: str
    points: int
    kind: ResultKind


class GameOver(ChouetteEvent, type="game_over", primary=False):
    """Game ``number`` is settled; ``winner`` won the captain's stake (R37/R38). Derived."""

    number: int
    winner: Side


class NextGame(ChouetteEvent, type="next_game"):
    """The seats rotate (R37/R38) and the next game starts."""


def chouette_event_from_dict(data: Mapping[str, Any]) -> ChouetteEvent:
    """Rebuild a chouette event from :meth:`ChouetteEvent.to_dict`'s output
    (:func:`backgammon.events.event_from_dict` with the ``"chouette"`` family); anything
    malformed raises :class:`~backgammon.errors.BackgammonError`.

    >>> chouette_event_from_dict({"type": "play", "player": "ann", "move": "13/11 24/18"})
    Play(player='ann', move=Move.parse('24/18 13/11'))
    >>> chouette_event_from_dict({"type": "roll", "player": "ann", "dice": [7, 1]})
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: chouette event {'type': 'roll', 'player': 'ann', 'dice': [7, 1]}: [7, 1]: dice are 1-6
    """
    event = event_from_dict(data, family=ChouetteEvent.family)
    assert isinstance(event, ChouetteEvent)
    return event


# -- the session ----------------------------------------------------------------------------


_ANSWER_PHASES: dict[ChouetteAction, tuple[ChouettePhase, ...]] = {
    ChouetteAction.CONSENT: (ChouettePhase.CONSENT,),
    ChouetteAction.REFUSE: (ChouettePhase.CONSENT,),
    ChouetteAction.TAKE: (ChouettePhase.TEAM_DOUBLE, ChouettePhase.BOX_DOUBLE),
    ChouetteAction.PASS: (ChouettePhase.TEAM_DOUBLE, ChouettePhase.BOX_DOUBLE),
    ChouetteAction.BEAVER: (ChouettePhase.TEAM_DOUBLE, ChouettePhase.BOX_DOUBLE),
    ChouetteAction.ACCEPT: (ChouettePhase.RESIGN,),
    ChouetteAction.DECLINE: (ChouettePhase.RESIGN,),
}


@dataclass(frozen=True)
class _Pending:
    """A decision in progress: a proposal (CONSENT), a double (TEAM_DOUBLE, BOX_DOUBLE) or a
    resignation (RESIGN); ``waiting`` are those still to answer, in line order."""

    phase: ChouettePhase
    by: str
    waiting: tuple[str, ...]
    level: int = 0


class Chouette(Logged):
    """A chouette session for three or more ``players`` (names, in any order: the roll-off
    seats them, R35).

    ``rules`` are the options of every game (money play only: ``match_length`` must be 0);
    ``dice`` is the dice source for the roll-off and every game (default
    :class:`~backgammon.dice.SecureDice`; :class:`~backgammon.dice.SeededDice` makes a
    session reproducible from its seed).

    >>> from backgammon.dice import SeededDice
    >>> a, b = Chouette(["a", "b", "c", "d"], dice=SeededDice(7)), Chouette(["a", "b", "c", "d"], dice=SeededDice(7))
    >>> (a.box, a.line) == (b.box, b.line)
    True
    >>> Chouette(["ann", "bob"])
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: a chouette needs 3 or more players; got 2: 'ann', 'bob'
    """

    __slots__ = (
        "_box",
        "_events",
        "_game",
        "_game_net",
        "_ledger",
        "_line",
        "_mover",
        "_number",
        "_pending",
        "_players",
        "_results",
        "_rules",
        "_source",
        "_stakes",
        "_winner",
    )

    def __init__(
        self,
        players: Sequence[str],
        rules: Rules | None = None,
        *,
        dice: DiceSource | None = None,
    ) -> None:
        self._init(players, rules, dice)
        source = self._source
        order = self._roll_off(lambda group: tuple(source.die() for _ in group))
        self._seat(order)

    def _init(self, players: Sequence[str], rules: Rules | None, dice: DiceSource | None) -> None:
        if isinstance(players, str):
            raise BackgammonError(f"players={players!r}: expected a list of names, not one string")
        try:
            names: tuple[Any, ...] = tuple(players)
        except TypeError:
            raise BackgammonError(f"players={players!r}: expected a list of names") from None
        for name in names:
            if not isinstance(name, str) or not name.strip():
                raise BackgammonError(f"player {name!r}: a player is a non-empty name")
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise BackgammonError(f"players {list(names)!r}: each name once ({', '.join(twice)} twice)")
        if len(names) < 3:
            raise BackgammonError(
                f"a chouette needs 3 or more players; got {len(names)}"
                + (": " + ", ".join(repr(n) for n in names) if names else "")
            )
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise BackgammonError(f"rules={rules!r}: expected a Rules object")
        if not rules.is_money:
            raise BackgammonError(
                f"rules with match_length={rules.match_length}: a chouette is money play (match_length=0)"
            )
        self._players: tuple[str, ...] = names
        self._rules = rules
        self._source: DiceSource = SecureDice() if dice is None else dice
        self._ledger = {p: 0 for p in names}
        self._events: list[ChouetteEvent] = []
        self._results: list[ChouetteResult] = []
        self._number = 0
        self._box = ""
        self._line: tuple[str, ...] = ()
        self._mover = ""
        self._stakes: dict[str, Stake] = {}
        self._pending: _Pending | None = None
        self._winner: Side | None = None
        self._game_net: dict[str, int] = {}
        self._game = Game(rules, dice=self._source)

    def _roll_off(self, throw: Callable[[tuple[str, ...]], tuple[int, ...]]) -> tuple[str, ...]:
        """R35: everyone throws one die; each group of tied players throws again among
        themselves until the order is complete. Returns the players, highest first."""
        order: list[str] = []

        def resolve(group: tuple[str, ...]) -> None:
            for _ in range(_MAX_ROLL_OFF_THROWS):
                dice = throw(group)
                self._events.append(RollOff(group, dice))
                if len(set(dice)) > 1:
                    break
            else:
                raise BackgammonError(f"the dice source threw {_MAX_ROLL_OFF_THROWS} ties in a row")
            for value in sorted(set(dice), reverse=True):
                tied = tuple(p for p, d in zip(group, dice) if d == value)
                if len(tied) == 1:
                    order.append(tied[0])
                else:
                    resolve(tied)

        resolve(self._players)
        return tuple(order)

    def _seat(self, order: tuple[str, ...]) -> None:
        self._box = order[0]
        self._line = order[1:]
        self._start_game()

    def _start_game(self) -> None:
        self._number += 1
        self._game = Game(self._rules, dice=self._source)
        self._stakes = {m: Stake(m) for m in self._line}
        self._mover = self._line[0]
        self._pending = None
        self._winner = None
        self._game_net = {p: 0 for p in self._players}
        self._events.append(GameStart(self._number, self._box, self._line))

    # -- reading ----------------------------------------------------------------------------

    players = ReadOnly[tuple[str, ...]]("_players", "Every player, in the order given to the constructor.")
    rules = ReadOnly[Rules]("_rules", "The options of every game.")
    dice_source = ReadOnly[DiceSource]("_source", "Where the dice come from.")
    game_number = ReadOnly[int]("_number", "The number of the current game, from 1.")
    box = ReadOnly[str]("_box", "The player in the box (plays alone against the team).")

    @property
    def captain(self) -> str:
        """The captain of the current game (the first of :attr:`line`). The rotation (R37,
        R38) follows this player's stake even after they leave the game; who rolls and moves
        for the team is :attr:`mover`."""
        return self._line[0]

    line = ReadOnly[tuple[str, ...]]("_line", "The team in line order, the captain first (R35, R37, R38).")

    @property
    def team(self) -> tuple[str, ...]:
        """The team members still in the current game, in line order (empty once it is over)."""
        return tuple(m for m in self._line if self._stakes[m].in_game)

    @property
    def mover(self) -> str:
        """Who rolls and moves the team's checkers: the captain, or, once the captain has left
        the game, the next member in line still in it (R36)."""
        return self._mover

    def role(self, player: str) -> str:
        """``'box'``, ``'captain'`` or ``'team'`` (the rest of the line).

        >>> from backgammon.dice import ScriptedDice
        >>> c = Chouette(["x", "y", "z"], dice=ScriptedDice([1, 2, 3]))
        >>> [c.role(p) for p in "xyz"]
        ['team', 'captain', 'box']
        """
        self._check_name(player)
        if player == self._box:
            return "box"
        return "captain" if player == self._line[0] else "team"

    @property
    def stakes(self) -> dict[str, Stake]:
        """Each team member's :class:`Stake` in the current game (cube, owner, in or out), in
        line order."""
        return dict(self._stakes)

    @property
    def ledger(self) -> dict[str, int]:
        """Every player's running total over the session (R41), in the order of
        :attr:`players`; it always sums to zero."""
        return dict(self._ledger)

    @property
    def game_points(self) -> dict[str, int]:
        """Every player's net points in the current game so far."""
        return dict(self._game_net)

    @property
    def results(self) -> tuple[ChouetteResult, ...]:
        """The finished games, in order."""
        return tuple(self._results)

    winner = ReadOnly[Side | None](
        "_winner", "Once the game is over: the side that won the captain's stake (R37/R38)."
    )

    def is_over(self) -> bool:
        """True once the current game is settled (call :meth:`next_game`)."""
        return self._winner is not None

    @property
    def events(self) -> tuple[ChouetteEvent, ...]:
        """The log, oldest first."""
        return tuple(self._events)

    @property
    def game(self) -> Game:
        """A copy of the current game's board state (the box is player 0, the team player
        1). Read it (position, dice, pips); act only through the chouette. Its cube is not
        used (the stakes are in :attr:`stakes`), and a game the chouette ended by a pass or
        resignations is still in play there."""
        return self._game.copy()

    @property
    def phase(self) -> ChouettePhase:
        """The current :class:`ChouettePhase`."""
        if self._winner is not None:
            return ChouettePhase.OVER
        if self._pending is not None:
            return self._pending.phase
        phase = self._game.phase
        if phase is Phase.OPENING:
            return ChouettePhase.OPENING
        return ChouettePhase.PLAY if phase is Phase.PLAY else ChouettePhase.ROLL

    @property
    def side_on_roll(self) -> Side | None:
        """The side whose turn it is; ``None`` before the opening roll and after the end."""
        if self._winner is not None or self._game.phase is Phase.OPENING:
            return None
        return Side.BOX if self._game.on_roll == 0 else Side.TEAM

    @property
    def on_roll(self) -> str | None:
        """Who rolls or has rolled: the box or :attr:`mover`; ``None`` before the opening
        roll and after the end."""
        side = self.side_on_roll
        if side is None:
            return None
        return self._box if side is Side.BOX else self._mover

    position = ReadOnly[Position](
        "_game.position", "The board seen from the side on roll (from the box before the opening)."
    )

    def board(self, side: Side) -> Position:
        """The board seen from ``side``."""
        return self._game.board(0 if Side(side) is Side.BOX else 1)

    @property
    def dice(self) -> tuple[int, int] | None:
        """The dice to play (also while a resignation offered after the roll awaits its
        answer), or ``None``."""
        return None if self._winner is not None else self._game.dice

    def legal_moves(self) -> LegalMoves:
        """The legal plays of the current roll (empty: submit the empty play ``""``)."""
        if self.phase is not ChouettePhase.PLAY:
            raise IllegalActionError(
                f"legal moves: not in the play phase ({self.status()})",
                Refusal("play", self.on_roll, None, "not in the play phase"),
            )
        return self._game.legal_moves()

    @property
    def pending(self) -> tuple[ChouettePhase, str, tuple[str, ...], int] | None:
        """The decision in progress, if any: (phase, who started it, who must still answer,
        resignation level or 0)."""
        p = self._pending
        return None if p is None else (p.phase, p.by, p.waiting, p.level)

    @property
    def to_act(self) -> tuple[str, ...]:
        """The players who must act for the game to go on (in line order; answers to a
        double, a proposal or the box's resignation may come in any order). Others may also
        have actions (a team member may propose a double or resign on the team's turn):
        see :meth:`options`. Empty once the game is over (:meth:`next_game` is due)."""
        if self._winner is not None:
            return ()
        if self._pending is not None:
            return self._pending.waiting
        if self._game.phase is Phase.OPENING:
            return (self._box, self._line[0])
        on_roll = self.on_roll
        assert on_roll is not None
        return (on_roll,)

    def legal_actions(self, player: str) -> frozenset[ChouetteAction]:
        """The actions ``player`` may take now.

        >>> from backgammon.dice import ScriptedDice
        >>> c = Chouette(["x", "y", "z"], dice=ScriptedDice([1, 2, 3]))
        >>> sorted(a.value for a in c.legal_actions("z")), sorted(a.value for a in c.legal_actions("x"))
        (['roll'], [])
        """
        self._check_name(player)
        return frozenset(a for a in ChouetteAction if self._reason(a, player) is None)

    def why_not(self, action: ChouetteAction | str, player: str) -> Refusal | None:
        """Why ``player`` may not take ``action`` (a :class:`ChouetteAction` or its value)
        now, as a :class:`~backgammon.errors.Refusal`; ``None`` exactly when it is one of
        :meth:`legal_actions`. A name that is not a player's raises
        :class:`~backgammon.errors.IllegalActionError`.

        >>> from backgammon.dice import ScriptedDice
        >>> c = Chouette(["x", "y", "z"], dice=ScriptedDice([1, 2, 3]))
        >>> c.why_not(ChouetteAction.ROLL, "z") is None
        True
        >>> c.why_not(ChouetteAction.ROLL, "x")
        Refusal(action='roll', player='x', rule='R4', reason='the box (z) and the captain (y) throw the opening roll')
        """
        action = ChouetteAction(action)
        self._check_name(player, action)
        reason = self._reason(action, player)
        return None if reason is None else Refusal.from_text(action.value, player, reason)

    def options(self) -> dict[str, frozenset[ChouetteAction]]:
        """Every player who may act now, with their legal actions (in :attr:`players` order)."""
        out: dict[str, frozenset[ChouetteAction]] = {}
        for p in self._players:
            actions = self.legal_actions(p)
            if actions:
                out[p] = actions
        return out

    def match_state(self, member: str) -> MatchState:
        """The state of ``member``'s game against the box as gnubg's
        :class:`~backgammon.matchid.MatchState` (player 0 the box, player 1 the team), for a
        bot's cube and resignation decisions on that stake. The box may pass any member.
        """
        self._check_name(member)
        if member not in self._stakes:
            what = "the box has no stake of its own"
            raise IllegalActionError(f"match state of {member!r}: {what}", Refusal("match_state", member, None, what))
        stake = self._stakes[member]
        owner = None if stake.owner is None else (0 if stake.owner == self._box else 1)
        phase = self.phase
        on_roll = 0 if self._game.phase is Phase.OPENING else self._game.on_roll
        assert on_roll is not None
        turn = on_roll
        double_offered = phase in (ChouettePhase.TEAM_DOUBLE, ChouettePhase.BOX_DOUBLE)
        resignation = Resignation.NONE
        if phase is ChouettePhase.TEAM_DOUBLE:
            turn = 0
        elif phase is ChouettePhase.BOX_DOUBLE:
            turn = 1
        elif phase is ChouettePhase.RESIGN:
            assert self._pending is not None
            turn = 1 if self._pending.by == self._box else 0
            resignation = Resignation(self._pending.level)
        if phase is ChouettePhase.OVER:
            state = GameState.OVER
        elif phase is ChouettePhase.OPENING:
            state = GameState.NO_GAME
        else:
            state = GameState.PLAYING
        return MatchState(
            cube_value=stake.cube,
            cube_owner=owner,
            player_on_roll=on_roll,
            game_state=state,
            turn=turn,
            double_offered=double_offered,
            resignation=resignation,
            dice=self.dice,
            match_length=0,
            jacoby=self._rules.jacoby_applies,
        )

    # -- checking ---------------------------------------------------------------------------

    def _check_name(self, player: object, action: ChouetteAction | None = None) -> None:
        if not isinstance(player, str) or player not in self._players:
            what = f"{player!r} is not a player of this chouette (players: {', '.join(self._players)})"
            raise IllegalActionError(
                what,
                Refusal(
                    "act" if action is None else action.value,
                    player if isinstance(player, str) else None,
                    None,
                    what,
                ),
            )

    def _in_game(self, player: str) -> bool:
        stake = self._stakes.get(player)
        return stake is not None and stake.in_game

    def _pending_reason(self) -> str:
        p = self._pending
        assert p is not None
        waiting = ", ".join(p.waiting)
        if p.phase is ChouettePhase.CONSENT:
            return f"a double proposed by {p.by} awaits the consent of {waiting} (R39)"
        if p.phase is ChouettePhase.TEAM_DOUBLE:
            return f"the team has doubled: the box ({self._box}) must {self._answers(p.waiting)} first"
        if p.phase is ChouettePhase.BOX_DOUBLE:
            return f"the box has doubled: {waiting} must {self._answers(p.waiting)} first (R40)"
        return (
            f"{p.by} offers to resign a {_LEVEL_NAMES[p.level]}: {waiting} must accept or decline first (R31)"
        )

    def _answers(self, waiting: tuple[str, ...]) -> str:
        """The answers to a double that ``waiting`` may give: beaver only when one of them
        may beaver (R30, R26)."""
        if any(self._beaver_reason(w) is None for w in waiting):
            return "take, pass or beaver"
        return "take or pass"

    def _reason(self, action: ChouetteAction, player: str) -> str | None:
        """Why ``player`` may not take ``action`` now, as a sentence ending in its rule
        number, or ``None`` when they may."""
        Ph = ChouettePhase
        phase = self.phase
        if action is ChouetteAction.NEXT_GAME:
            return None if phase is Ph.OVER else "the game is not over"
        if phase is Ph.OVER:
            return "the game is over: start the next one with next_game()"
        is_box = player == self._box
        if not is_box and not self._in_game(player):
            return f"{player} is out of this game"
        answers = _ANSWER_PHASES
        if action in answers:
            if phase not in answers[action]:
                if self._pending is not None:
                    return self._pending_reason()
                if action in (ChouetteAction.CONSENT, ChouetteAction.REFUSE):
                    return "no team double has been proposed"
                if action in (ChouetteAction.ACCEPT, ChouetteAction.DECLINE):
                    return "no resignation has been offered"
                return "no double has been offered"
            p = self._pending
            assert p is not None
            if player not in p.waiting:
                if not is_box and (phase is Ph.TEAM_DOUBLE or (phase is Ph.RESIGN and p.by != self._box)):
                    return f"the box ({self._box}) answers, not a team member"
                if player == p.by:
                    what = "proposed this double" if phase is Ph.CONSENT else "made this offer"
                    return f"{player} {what}; the answer is the others'"
                if phase is Ph.CONSENT and is_box:
                    return "the box has no say in the team's double (R39)"
                return f"{player} has already answered"
            if action is ChouetteAction.BEAVER:
                return self._beaver_reason(player)
            return None
        if self._pending is not None:
            return self._pending_reason()
        side = self.side_on_roll
        if action is ChouetteAction.ROLL:
            if phase is Ph.OPENING:
                if player not in (self._box, self._line[0]):
                    return (
                        f"the box ({self._box}) and the captain ({self._line[0]}) throw the opening roll (R4)"
                    )
                return None
            if phase is Ph.PLAY:
                return f"the dice are already rolled: {self.on_roll} must play them"
            return self._turn_reason(player, "roll")
        if action is ChouetteAction.PLAY:
            if phase is Ph.OPENING:
                return "the game has not started: the opening roll comes first (R4)"
            if phase is Ph.ROLL:
                return f"roll the dice first ({self.on_roll} to roll)"
            return self._turn_reason(player, "play")
        if phase is Ph.OPENING:
            return "the game has not started: the opening roll comes first (R4)"
        if action is ChouetteAction.DOUBLE:
            if not is_box:
                return "only the box doubles this way; the team doubles with propose_double (R39)"
            if side is not Side.BOX:
                return "the box doubles on its own turn (R28)"
            if phase is Ph.PLAY:
                return "the dice are already rolled; a double comes before the roll (R28)"
            return self._double_reason(self._box)
        if action is ChouetteAction.PROPOSE_DOUBLE:
            if is_box:
                return "the box doubles with box_double (R40)"
            if side is not Side.TEAM:
                return "the team doubles on its own turn (R28)"
            if phase is Ph.PLAY:
                return "the dice are already rolled; a double comes before the roll (R28)"
            return self._double_reason(player)
        if action is ChouetteAction.RESIGN:
            if (side is Side.BOX) != is_box:
                return "a resignation is offered on one's own side's turn (R31)"
            return None
        raise AssertionError(action)  # pragma: no cover

    def _turn_reason(self, player: str, what: str) -> str | None:
        on_roll = self.on_roll
        if player == on_roll:
            return None
        if player != self._box and on_roll != self._box:
            return f"only the captain ({on_roll}) rolls and moves the team's checkers (R36)"
        return f"it is {on_roll}'s turn to {what} (R43)"

    def _double_reason(self, doubler: str) -> str | None:
        """Why ``doubler`` (the box, or a team member for the team) may not double now, as
        far as the cubes go (R26, R27)."""
        rules = self._rules
        for m in self.team:
            stake = self._stakes[m]
            if doubler == self._box and stake.owner not in (None, self._box):
                return f"{m} owns their cube; only its owner may redouble (R27)"
            if doubler != self._box and stake.owner == self._box:
                return f"the box owns {m}'s cube; only its owner may redouble (R27)"
            if not rules.may_double_to(2 * stake.cube):
                return f"{m}'s cube is at its limit of {rules.cube_limit} (R26)"
        return None

    def _beaver_reason(self, player: str) -> str | None:
        rules = self._rules
        if not rules.beavers:
            return "beavers are not allowed under these rules (R30)"
        cubes = (
            [self._stakes[m].cube for m in self.team] if player == self._box else [self._stakes[player].cube]
        )
        if not rules.may_double_to(4 * max(cubes)):
            return f"a beaver would take the cube past its limit of {rules.cube_limit} (R26)"
        return None

    def _require(self, action: ChouetteAction, player: str, label: str) -> None:
        self._check_name(player, action)
        reason = self._reason(action, player)
        if reason is not None:
            raise IllegalActionError(
                f"{label} by {player}: {reason}", Refusal.from_text(action.value, player, reason)
            )

    # -- actions: the board -----------------------------------------------------------------

    def roll(self, dice: tuple[int, int] | None = None, *, player: str) -> None:
        """Roll (R7): the box, or for the team its captain (:attr:`mover`). Before the first
        turn the box or the captain throws the opening roll (R4): from the dice source until
        the dice differ, or one throw ``dice`` = (the box's die, the captain's die).
        ``dice`` enters dice thrown elsewhere."""
        self._require(ChouetteAction.ROLL, player, "roll" if dice is None else f"roll {dice!r}")
        before = len(self._game.events)
        self._game.roll(dice)
        for event in self._game.events[before:]:
            if isinstance(event, _GameOpeningRoll):
                self._events.append(OpeningRoll(event.dice))
            elif isinstance(event, _GameAutomaticDouble):
                self._events.append(AutomaticDouble(event.cube))
                for m, stake in self._stakes.items():
                    self._stakes[m] = replace(stake, cube=event.cube)
            elif isinstance(event, _GameRoll):
                self._events.append(Roll(player, event.dice))

    def play(self, move: Move | str, *, player: str) -> None:
        """Play ``move`` with the current dice: the box, or the team's captain
        (:attr:`mover`) alone (R36). With no legal play, the empty play ``""``. An illegal
        play raises :class:`~backgammon.errors.IllegalMoveError` (see
        :meth:`~backgammon.game.Game.play`; the game's player 0 is the box, player 1 the team).
        """
        self._require(ChouetteAction.PLAY, player, f"play {str(move)!r}")
        before = len(self._game.events)
        try:
            self._game.play(move)
        except BackgammonError as exc:
            refusal = exc.refusal or Refusal("play", None, None, str(exc))
            raise type(exc)(f"{player}: {exc}", replace(refusal, player=player)) from None
        played = next(e for e in self._game.events[before:] if isinstance(e, _GamePlay))
        self._events.append(Play(player, played.move))
        result = self._game.result
        if result is not None:  # R21-R25: settled per stake (R41)
            won = Side.BOX if result.winner == 0 else Side.TEAM
            for m in self.team:
                stake = self._stakes[m]
                points = stake.cube * self._rules.multiplier(result.level, stake.centred)
                self._settle(m, won is Side.TEAM, points, result.kind)
            self._finish()

    # -- actions: the cube ------------------------------------------------------------------

    def box_double(self, *, player: str) -> None:
        """The box doubles every member in the game, before its roll (R28, R40). Each member
        then answers alone: :meth:`take`, :meth:`pass_double` or :meth:`beaver`."""
        self._require(ChouetteAction.DOUBLE, player, "double")
        self._events.append(BoxDouble(player))
        self._pending = _Pending(ChouettePhase.BOX_DOUBLE, player, self.team)

    def propose_double(self, *, player: str) -> None:
        """A team member in the game proposes the team's double, before the team's roll. It
        goes to the box once every other member in the game has consented (R39)."""
        self._require(ChouetteAction.PROPOSE_DOUBLE, player, "propose double")
        self._events.append(ProposeDouble(player))
        others = tuple(m for m in self.team if m != player)
        self._pending = _Pending(ChouettePhase.CONSENT, player, others)
        if not others:
            self._offer_team_double()

    def double(self, *, player: str) -> None:
        """:meth:`box_double` for the box, :meth:`propose_double` for a team member."""
        self._check_name(player)
        if player == self._box:
            self.box_double(player=player)
        else:
            self.propose_double(player=player)

    def consent(self, *, player: str) -> None:
        """Agree to the proposed team double (R39); the last consent offers it to the box."""
        self._require(ChouetteAction.CONSENT, player, "consent")
        self._events.append(Consent(player))
        self._answered(player)
        assert self._pending is not None
        if not self._pending.waiting:
            self._offer_team_double()

    def refuse(self, *, player: str) -> None:
        """Refuse the proposed team double: the team does not double (R39)."""
        self._require(ChouetteAction.REFUSE, player, "refuse")
        self._events.append(Refuse(player))
        self._pending = None

    def _offer_team_double(self) -> None:
        assert self._pending is not None
        members = self.team
        self._events.append(TeamDouble(members))
        self._pending = _Pending(ChouettePhase.TEAM_DOUBLE, self._pending.by, (self._box,))

    def _answered(self, player: str) -> None:
        p = self._pending
        assert p is not None
        self._pending = replace(p, waiting=tuple(w for w in p.waiting if w != player))

    def take(self, *, player: str) -> None:
        """Take the double: a member their own stake (R40: it doubles, they own the cube);
        the box every stake of the team's double (R29)."""
        self._cube_answer(ChouetteAction.TAKE, player, 2)

    def beaver(self, *, player: str) -> None:
        """Take and redouble at once, keeping the cube (R30; money play with
        ``rules.beavers``): a member their own stake only, the box every stake."""
        self._cube_answer(ChouetteAction.BEAVER, player, 4)

    def _cube_answer(self, action: ChouetteAction, player: str, factor: int) -> None:
        self._require(action, player, action.value)
        self._events.append(Take(player) if action is ChouetteAction.TAKE else Beaver(player))
        if player == self._box:
            for m in self.team:
                stake = self._stakes[m]
                self._stakes[m] = replace(stake, cube=factor * stake.cube, owner=self._box)
            self._pending = None
            return
        stake = self._stakes[player]
        self._stakes[player] = replace(stake, cube=factor * stake.cube, owner=player)
        self._answered(player)
        self._close_round()

    def pass_double(self, *, player: str) -> None:
        """Pass the double (R29). A member pays the box their stake before the double and
        leaves the game (R40); when the box passes the team's double it pays every member in
        the game their stake, and the game is over."""
        self._require(ChouetteAction.PASS, player, "pass")
        self._events.append(Pass(player))
        if player == self._box:
            for m in self.team:
                self._settle(m, True, self._stakes[m].cube, ResultKind.PASSED)
            self._pending = None
            self._finish()
            return
        self._settle(player, False, self._stakes[player].cube, ResultKind.PASSED)
        self._answered(player)
        self._close_round()

    drop = pass_double

    # -- actions: resignations --------------------------------------------------------------

    def resign(self, level: int | str = 1, *, player: str) -> None:
        """Offer to resign a single game (1), a gammon (2) or a backgammon (3) (R31), on
        one's own side's turn. The box offers it to every member in the game, who answer
        alone; a team member resigns their own stake only, and the box answers."""
        label = f"resign {level!r}"
        self._require(ChouetteAction.RESIGN, player, label)
        lvl = _LEVELS.get(level.strip().lower()) if isinstance(level, str) else level
        if not _is_int(lvl) or lvl not in (1, 2, 3):
            what = "a resignation is of a single game, a gammon or a backgammon (1-3)"
            raise IllegalActionError(f"{label} by {player}: {what}", Refusal("resign", player, None, what))
        assert isinstance(lvl, int)
        self._events.append(Resign(player, lvl))
        waiting = self.team if player == self._box else (self._box,)
        self._pending = _Pending(ChouettePhase.RESIGN, player, waiting, lvl)

    def accept(self, *, player: str) -> None:
        """Accept the resignation: it is settled at its value on the stake (R31, R25) and the
        member leaves the game."""
        self._require(ChouetteAction.ACCEPT, player, "accept")
        p = self._pending
        assert p is not None
        self._events.append(Accept(player))
        member = player if p.by == self._box else p.by
        stake = self._stakes[member]
        points = stake.cube * self._rules.multiplier(p.level, stake.centred)
        self._settle(member, p.by == self._box, points, ResultKind.RESIGNED)
        if p.by == self._box:
            self._answered(player)
        else:
            self._pending = replace(p, waiting=())
        self._close_round()

    def decline(self, *, player: str) -> None:
        """Decline the resignation: play goes on (R31)."""
        self._require(ChouetteAction.DECLINE, player, "decline")
        p = self._pending
        assert p is not None
        self._events.append(Decline(player))
        if p.by == self._box:
            self._answered(player)
        else:
            self._pending = replace(p, waiting=())
        self._close_round()

    # -- settling ---------------------------------------------------------------------------

    def _settle(self, member: str, member_wins: bool, points: int, kind: ResultKind) -> None:
        payer, payee = (self._box, member) if member_wins else (member, self._box)
        self._ledger[payer] -= points
        self._ledger[payee] += points
        self._game_net[payer] -= points
        self._game_net[payee] += points
        self._stakes[member] = replace(
            self._stakes[member], result=points if member_wins else -points, kind=kind
        )
        self._events.append(Payment(payer, payee, points, kind))

    def _close_round(self) -> None:
        """After an answer: when nobody is left to answer, end the decision, end the game if
        no member is left in it, or hand the checkers to the next member in line (R36)."""
        assert self._pending is not None
        if self._pending.waiting:
            return
        self._pending = None
        team = self.team
        if not team:
            self._finish()
        elif team[0] != self._mover:
            self._mover = team[0]
            self._events.append(NewCaptain(self._mover))

    def _finish(self) -> None:
        captain = self._stakes[self._line[0]]
        assert captain.result is not None
        won = Side.TEAM if captain.result > 0 else Side.BOX
        self._winner = won
        self._pending = None
        self._events.append(GameOver(self._number, won))
        self._results.append(ChouetteResult(self._number, self._box, self._line, won, dict(self._game_net)))

    def next_game(self) -> None:
        """Rotate the seats and start the next game (R37, R38); only once the game is over.

        Box won the captain's stake: the box stays, the captain goes to the end of the
        line. Team won it: the captain goes into the box, the old box to the end of the line.
        Either way the next in line becomes captain.
        """
        if self._winner is None:
            raise IllegalActionError(
                f"next game: the game is not over ({self.status()})",
                Refusal("next_game", None, None, "the game is not over"),
            )
        self._events.append(NextGame())
        captain, rest = self._line[0], self._line[1:]
        if self._winner is Side.BOX:  # R37
            self._line = rest + (captain,)
        else:  # R38
            self._line = rest + (self._box,)
            self._box = captain
        self._start_game()

    # -- replay, undo, copies -------------------------------------------------------------

    def _dispatch(self, event: ChouetteEvent) -> None:
        if isinstance(event, OpeningRoll):
            if self.phase is not ChouettePhase.OPENING:
                raise IllegalActionError("the opening roll is over", Refusal("roll", None, None, "the opening roll is over"))
            self.roll(event.dice, player=self._box)
        elif isinstance(event, Roll) and self.phase is ChouettePhase.OPENING:
            raise IllegalActionError(
                "the opening roll comes first", Refusal("roll", event.player, "R4", "the opening roll comes first")
            )
        else:
            event.apply(self)

    @classmethod
    def replay(
        cls,
        players: Sequence[str],
        events: Iterable[ChouetteEvent],
        rules: Rules | None = None,
        *,
        dice: DiceSource | None = None,
    ) -> Chouette:
        """The session that ``events`` record, rebuilt by taking every logged action again
        (so a log that breaks the rules raises) and checking that every derived event comes
        out the same. ``dice`` is the source for rolls after the replay."""
        log = list(events)
        for i, event in enumerate(log):
            if not isinstance(event, ChouetteEvent):
                raise BackgammonError(f"replaying event {i}: {event!r} is not a chouette event")
        session = cls.__new__(cls)
        session._init(players, rules, dice)
        used = 0

        def throw(group: tuple[str, ...]) -> tuple[int, ...]:
            nonlocal used
            event = log[used] if used < len(log) else None
            if not isinstance(event, RollOff) or event.players != group:
                raise BackgammonError(
                    f"replaying event {used}: the roll-off needs a throw by {', '.join(group)}, "
                    f"the log has {event!r}"
                )
            if len(event.dice) != len(group):
                raise BackgammonError(f"replaying event {used}: {event!r} needs one die per player")
            used += 1
            return event.dice

        session._seat(session._roll_off(throw))
        for i in range(used, len(log)):
            event = log[i]
            if not event.primary:
                continue
            try:
                session._dispatch(event)
            except BackgammonError as exc:
                raise type(exc)(f"replaying event {i} ({event.type}): {exc}", exc.refusal) from exc
        check_same_log(session._events, log)
        return session

    def undo(self) -> tuple[ChouetteEvent, ...]:
        """Take back the last action (and what followed from it); return the removed events.
        An opening roll is taken back with all its throws (ties included). The roll-off
        cannot be undone. A front end offers undo for an unconfirmed play (R42).
        """
        cut = max(
            (i for i, e in enumerate(self._events) if e.primary and not isinstance(e, RollOff)),
            default=None,
        )
        if cut is None:
            raise IllegalActionError(
                "undo: there is nothing to undo", Refusal("undo", None, None, "there is nothing to undo")
            )
        if isinstance(self._events[cut], OpeningRoll):  # the whole opening, ties included
            while cut > 0 and isinstance(self._events[cut - 1], (OpeningRoll, AutomaticDouble)):
                cut -= 1
        removed = tuple(self._events[cut:])
        fresh = Chouette.replay(self._players, self._events[:cut], self._rules, dice=self._source)
        for name in Chouette.__slots__:
            setattr(self, name, getattr(fresh, name))
        return removed

    def copy(self) -> Chouette:
        """An independent copy (sharing the dice source), equal to this session."""
        return Chouette.replay(self._players, self._events, self._rules, dice=self._source)

    def _key(self) -> tuple[Any, ...]:
        return (
            self._players,
            self._rules,
            tuple(self._events),
            tuple(self._ledger.items()),
            self._box,
            self._line,
            self._mover,
            tuple(self._stakes.items()),
            self._pending,
            self._winner,
            self._game,
        )


    # -- serialisation ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The log with its header (format, version, players, rules), JSON-ready."""
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "players": list(self._players),
            "rules": self._rules.to_dict(),
            "events": [e.to_dict() for e in self._events],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, dice: DiceSource | None = None) -> Chouette:
        """Rebuild a session from :meth:`to_dict`'s output by replaying its log.

        >>> Chouette.from_dict({"format": "backgammon-match", "version": 1})
        Traceback (most recent call last):
        ...
        backgammon.errors.BackgammonError: format 'backgammon-match': expected 'backgammon-chouette'
        """
        check_header(data, FORMAT, FORMAT_VERSION)
        players = data.get("players")
        if not isinstance(players, list):
            raise BackgammonError(f"players {players!r}: expected a list of names")
        rules = Rules.from_dict(data.get("rules", {}))
        events = [chouette_event_from_dict(e) for e in event_list(data)]
        return cls.replay(players, events, rules, dice=dice)

    # -- text -------------------------------------------------------------------------------

    def status(self) -> str:
        """One line: the game, the seats, who must act, and the stakes.

        >>> from backgammon.dice import ScriptedDice
        >>> Chouette(["x", "y", "z"], dice=ScriptedDice([1, 2, 3])).status()
        'game 1: z in the box v y (captain), x; opening roll due (z and y throw); stakes: y 1, x 1'
        """
        seats = f"game {self._number}: {self._box} in the box v " + ", ".join(
            f"{m} (captain)" if m == self._line[0] else m for m in self._line
        )
        phase = self.phase
        p = self._pending
        if phase is ChouettePhase.OVER:
            what = f"game over: the {self._winner.value if self._winner else '?'} won; next_game() is due"
        elif phase is ChouettePhase.OPENING:
            what = f"opening roll due ({self._box} and {self._line[0]} throw)"
        elif phase is ChouettePhase.ROLL:
            who = self.on_roll
            extra = ""
            if self.side_on_roll is Side.BOX:
                extra = " or double" if self._reason(ChouetteAction.DOUBLE, self._box) is None else ""
            elif self._double_reason(self._mover) is None:
                extra = " (the team may propose a double)"
            what = f"{who} to roll{extra}"
        elif phase is ChouettePhase.PLAY:
            dice = self._game.dice
            assert dice is not None
            what = f"{self.on_roll} to play {dice[0]}-{dice[1]}"
            if not len(self._game.legal_moves()):
                what += " (no legal move)"
        else:
            assert p is not None
            what = self._pending_reason()
        stakes = []
        for m in self._line:
            s = self._stakes[m]
            text = f"{m} {s.cube}"
            if s.owner is not None:
                text += f" (cube {'box' if s.owner == self._box else 'own'})"
            if not s.in_game:
                assert s.result is not None
                text += f" out {s.result:+d}" if phase is not ChouettePhase.OVER else f" {s.result:+d}"
            stakes.append(text)
        return f"{seats}; {what}; stakes: {', '.join(stakes)}"

    def standings(self) -> str:
        """The ledger as text, one player a line, highest first.

        >>> from backgammon.dice import ScriptedDice
        >>> print(Chouette(["x", "y", "z"], dice=ScriptedDice([1, 2, 3])).standings())
        x  +0
        y  +0
        z  +0
        """
        width = max(len(p) for p in self._players)
        rows = sorted(self._ledger.items(), key=lambda kv: -kv[1])
        return "\n".join(f"{p:<{width}}  {v:+d}" for p, v in rows)

    def __str__(self) -> str:
        return f"{self._game.position}\n{self.status()}"

    def __repr__(self) -> str:
        return f"<Chouette {self.status()!r} events={len(self._events)}>"
