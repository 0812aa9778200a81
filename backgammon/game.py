"""The :class:`Game` state machine: one game of backgammon from the opening roll to the end.

A game moves through phases (:class:`Phase`): the opening roll (R4–R6), then turns of
*roll* (the player on roll may double first, R28) and *play*, with a *cube* phase while a
double awaits take / pass / beaver (R29, R30) and a *resign* phase while a resignation awaits
accept / decline (R31), until it is *over* (R21–R25, R29, R31).

Every action is checked. An action that the rules do not allow now raises
:class:`~backgammon.errors.IllegalActionError` (an illegal play raises
:class:`~backgammon.errors.IllegalMoveError`), with a message naming the action and the
Position ID, and leaves the game exactly as it was. Each action takes an optional
``player``: when given, it must be the player who has to act (R43), which is how a server
rejects a player acting out of turn.

When the dice allow no play, the player still submits the empty play (``game.play("")`` or
``game.play(Move())``): the game never skips a turn on its own, so a front end can show "no
legal move" (``len(game.legal_moves()) == 0``) before going on.

Every action is logged as an event (:mod:`backgammon.events`); the log serialises to JSON
and replays to an equal game, without the dice source.

>>> from backgammon.game import Game, Phase
>>> from backgammon.dice import ScriptedDice
>>> game = Game(dice=ScriptedDice([(3, 1), (6, 4)]))
>>> game.roll()                    # opening roll: player 0 throws 3, player 1 throws 1
>>> game.on_roll, game.dice, game.phase
(0, (3, 1), <Phase.PLAY: 'play'>)
>>> game.play("8/5 6/5")
>>> game.double(player=1)          # player 1 doubles before rolling
>>> game.take()
>>> game.cube_value, game.cube_owner
(2, 0)
>>> game.roll(); game.dice
(6, 4)
>>> game.double()
Traceback (most recent call last):
...
backgammon.errors.IllegalActionError: double by player 1: player 0 owns the cube; only its owner may redouble (R27) [Position ID sGfwATDgc/ABMA]
>>> Game.from_json(game.to_json()) == game
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Generic, NoReturn, Self, TypeVar, overload

from dataclasses import replace

from .dice import DiceSource, SecureDice
from .errors import BackgammonError, IllegalActionError, IllegalMoveError, InvalidPositionError, Refusal
from .events import (
    FORMAT_VERSION,
    GAME_EVENT_TYPES,
    Logged,
    Accept,
    AutomaticDouble,
    Beaver,
    Decline,
    Double,
    GameEnd,
    GameEvent,
    GameResult,
    OpeningRoll,
    Pass,
    Play,
    Resign,
    ResultKind,
    Roll,
    SetUp,
    Take,
    check_header,
    check_same_log,
    event_from_dict,
    event_list,
    load_json,
)
from .matchid import GameState, MatchState, Resignation
from .move import Move
from .position import LegalMoves, Position
from .rules import Rules
from .xgid import XGID, CubeOffer

_T = TypeVar("_T")


class ReadOnly(property, Generic[_T]):
    """A read-only attribute that reads a private one (dotted names reach into it): what a
    ``@property`` returning ``self._name`` says in one line, typed ``_T``. Games, matches and
    chouettes declare their plain readings so.

    >>> class Box:
    ...     size = ReadOnly[int]("_size", "How big.")
    ...     def __init__(self) -> None:
    ...         self._size = 3
    >>> Box().size, Box.size.__doc__
    (3, 'How big.')
    """

    def __init__(self, name: str, doc: str) -> None:
        super().__init__(attrgetter(name), doc=doc)
        self.__doc__ = doc  # a subclass of property keeps the class's docstring otherwise

    if TYPE_CHECKING:

        @overload
        def __get__(self, instance: None, owner: type | None = None, /) -> Self: ...

        @overload
        def __get__(self, instance: object, owner: type | None = None, /) -> _T: ...

        def __get__(self, instance: object, owner: type | None = None, /) -> Any: ...

        def __set__(self, instance: Any, value: NoReturn, /) -> None: ...

__all__ = ["Action", "Game", "GameResult", "Phase", "ResultKind"]

_GAME_EVENTS = GAME_EVENT_TYPES

_LEVELS = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}
_LEVEL_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}
_MAX_OPENING_THROWS = 1000


class Phase(Enum):
    """Where a game stands; :attr:`Game.to_act` says who must act.

    >>> Game().phase
    <Phase.OPENING: 'opening'>
    """

    OPENING = "opening"  #: the opening roll is due (R4)
    ROLL = "roll"  #: the player on roll may double (R28) or roll
    PLAY = "play"  #: the dice are rolled; the player on roll must play
    CUBE = "cube"  #: a double is offered; the opponent takes, passes or beavers
    RESIGN = "resign"  #: a resignation is offered; the opponent accepts or declines
    OVER = "over"  #: the game has ended: see :attr:`Game.result`


class Action(Enum):
    """The actions of a game, for :meth:`Game.legal_actions`.

    >>> Action.PASS.value
    'pass'
    """

    ROLL = "roll"
    PLAY = "play"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    RESIGN = "resign"
    ACCEPT = "accept"
    DECLINE = "decline"


#: every action, in order (iterating a tuple is cheaper than iterating the enum)
_ACTIONS = tuple(Action)


#: The phases in which each action can be taken at all (who may take it is checked apart).
_ALLOWED_IN: dict[Action, tuple[Phase, ...]] = {
    Action.ROLL: (Phase.OPENING, Phase.ROLL),
    Action.DOUBLE: (Phase.ROLL,),
    Action.PLAY: (Phase.PLAY,),
    Action.TAKE: (Phase.CUBE,),
    Action.PASS: (Phase.CUBE,),
    Action.BEAVER: (Phase.CUBE,),
    Action.RESIGN: (Phase.ROLL, Phase.PLAY, Phase.CUBE),
    Action.ACCEPT: (Phase.RESIGN,),
    Action.DECLINE: (Phase.RESIGN,),
}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Game(Logged):
    """One game: the board, the cube, the dice, whose turn it is, and the log.

    ``rules`` are the options (:class:`~backgammon.rules.Rules`; ``rules.match_length > 0``
    for a game in a match). ``score`` is the match (or session) score before this game and
    ``crawford`` marks the Crawford game of a match, in which nobody may double (R33).
    ``dice`` is the dice source (default :class:`~backgammon.dice.SecureDice`).

    The board is kept as a :class:`~backgammon.position.Position` seen from the player on
    roll (:attr:`position`); :meth:`board` shows it from either player. Players are 0 and 1.

    >>> from backgammon.dice import ScriptedDice
    >>> g = Game(dice=ScriptedDice([(2, 2), (5, 6)]))
    >>> g.roll()                   # 2-2 is a tie and is thrown again (R4)
    >>> g.on_roll, g.dice
    (1, (6, 5))
    >>> [e.type for e in g.events]
    ['opening_roll', 'opening_roll']
    >>> g.play("24/13")
    >>> g.resign("gammon")
    >>> g.accept()
    >>> str(g.result)
    'player 1 wins by resignation (gammon): 2 points'
    """

    __slots__ = (
        "_auto_doubles",
        "_crawford",
        "_cube",
        "_dice",
        "_events",
        "_legal",
        "_on_end",
        "_on_roll",
        "_owner",
        "_phase",
        "_position",
        "_resign",
        "_result",
        "_resume",
        "_rules",
        "_score",
        "_source",
    )

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        dice: DiceSource | None = None,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
    ) -> None:
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise BackgammonError(f"rules={rules!r}: expected a Rules object")
        try:
            s0, s1 = score
        except (TypeError, ValueError):
            raise BackgammonError(f"score={score!r}: expected two numbers") from None
        if not (_is_int(s0) and _is_int(s1) and s0 >= 0 and s1 >= 0):
            raise BackgammonError(f"score={score!r}: expected two numbers >= 0")
        n = rules.match_length
        if n and max(s0, s1) >= n:
            raise BackgammonError(f"score={score!r}: the {n}-point match is already over (R32)")
        if not isinstance(crawford, bool):
            raise BackgammonError(f"crawford={crawford!r}: must be True or False")
        if crawford and (not n or max(s0, s1) != n - 1):
            raise BackgammonError(
                f"crawford=True with score {score!r}: the Crawford game needs a player at "
                f"match length - 1 in a match (R33)"
            )
        self._rules = rules
        self._score = (s0, s1)
        self._crawford = crawford
        self._source: DiceSource = SecureDice() if dice is None else dice
        self._phase = Phase.OPENING
        self._on_roll = 0
        self._position = Position.initial()
        self._dice: tuple[int, int] | None = None
        self._cube = 1
        self._owner: int | None = None
        self._auto_doubles = 0
        self._resign: tuple[int, int] | None = None  # (player who offered, level)
        self._resume = Phase.ROLL  # phase to go back to if the resignation is declined
        self._result: GameResult | None = None
        self._events: list[GameEvent] = []
        self._legal: LegalMoves | None = None
        self._on_end: Callable[[Game], None] | None = None

    # -- reading ------------------------------------------------------------------------

    rules = ReadOnly[Rules]("_rules", "The options in force.")
    score = ReadOnly[tuple[int, int]](
        "_score", "The match (or money session) score before this game: (player 0, player 1)."
    )
    match_length = ReadOnly[int]("_rules.match_length", "The match length, 0 for money play.")
    crawford = ReadOnly[bool](
        "_crawford", "True when this is the Crawford game of a match: no doubling (R33)."
    )
    dice_source = ReadOnly[DiceSource]("_source", "Where :meth:`roll` gets its dice.")
    phase = ReadOnly[Phase]("_phase", "The current :class:`Phase`.")

    @property
    def on_roll(self) -> int | None:
        """The player whose turn it is (who rolls or has rolled); ``None`` before the
        opening roll. After the end of the game it is the loser."""
        return None if self._phase is Phase.OPENING else self._on_roll

    @property
    def to_act(self) -> int | None:
        """The player who must act now: the player on roll, or their opponent while a
        double or a resignation awaits an answer. ``None`` before the opening roll (either
        player may throw it) and after the end."""
        phase = self._phase
        if phase is Phase.ROLL or phase is Phase.PLAY:
            return self._on_roll
        if phase is Phase.CUBE:
            return 1 - self._on_roll
        if phase is Phase.RESIGN:
            assert self._resign is not None
            return 1 - self._resign[0]
        return None

    position = ReadOnly[Position](
        "_position", "The board seen from the player on roll (from player 0 before the opening)."
    )

    def board(self, player: int) -> Position:
        """The board seen from ``player`` (as if ``player`` were on roll).

        >>> Game().board(1) == Game().board(0)
        True
        """
        _check_player(player)
        return self._position if player == self._on_roll else self._position.swap()

    def position_id(self) -> str:
        """gnubg's Position ID of the board seen from the player on roll."""
        return self._position.position_id()

    def pip_count(self) -> tuple[int, int]:
        """Pip counts: (player 0, player 1)."""
        mine, theirs = self._position.pip_count()
        return (mine, theirs) if self._on_roll == 0 else (theirs, mine)

    dice = ReadOnly[tuple[int, int] | None](
        "_dice", "The dice to play (in the order rolled), or ``None`` before the roll."
    )
    cube_value = ReadOnly[int]("_cube", "The cube value (1 at the start, R26).")
    cube_owner = ReadOnly[int | None](
        "_owner", "The player who owns the cube, ``None`` while it is centred (R27)."
    )
    automatic_doubles = ReadOnly[int]("_auto_doubles", "How many automatic doubles (R6) this game had.")

    @property
    def resignation(self) -> tuple[int, int] | None:
        """The pending resignation as (player who offers, level 1-3), or ``None``."""
        return self._resign if self._phase is Phase.RESIGN else None

    result = ReadOnly[GameResult | None]("_result", "How the game ended, or ``None`` while it goes on.")

    def is_over(self) -> bool:
        """True once the game has ended."""
        return self._phase is Phase.OVER

    @property
    def winner(self) -> int | None:
        """The winner, once the game is over."""
        return None if self._result is None else self._result.winner

    @property
    def events(self) -> tuple[GameEvent, ...]:
        """The log, oldest first."""
        return tuple(self._events)

    def legal_moves(self) -> LegalMoves:
        """The legal plays of the current roll (:meth:`Position.legal_moves`). Empty when no
        play is possible: then the empty play must be submitted. Only in the play phase."""
        if self._phase is not Phase.PLAY:
            raise self._illegal(Action.PLAY, "legal moves", self._phase_reason(Action.PLAY) or "not in the play phase")
        if self._legal is None:
            assert self._dice is not None
            self._legal = self._position.legal_moves(self._dice)
        return self._legal

    def legal_actions(self, player: int | None = None) -> frozenset[Action]:
        """The actions allowed now (for ``player`` if given, else for :attr:`to_act`).

        >>> sorted(a.value for a in Game().legal_actions())
        ['roll']
        """
        return frozenset(a for a in _ACTIONS if self._reason(a, player) is None)

    def can_double(self, player: int | None = None) -> bool:
        """True when the player on roll (or ``player``) may double now."""
        return self._reason(Action.DOUBLE, player) is None

    def why_not(self, action: Action | str, player: int | None = None) -> Refusal | None:
        """Why ``action`` (an :class:`Action` or its value) is not allowed now (for
        ``player`` if given, else for :attr:`to_act`), as a
        :class:`~backgammon.errors.Refusal`; ``None`` exactly when it is one of
        :meth:`legal_actions`.

        >>> from backgammon.dice import ScriptedDice
        >>> g = Game(dice=ScriptedDice([(3, 1)]))
        >>> g.why_not(Action.ROLL) is None
        True
        >>> g.roll()
        >>> g.why_not(Action.DOUBLE)
        Refusal(action='double', player=0, rule='R28', reason='the dice are already rolled; a double comes before the roll')
        """
        action = Action(action)
        reason = self._reason(action, player)
        return None if reason is None else Refusal.from_text(action.value, self._actor(player), reason)

    # -- checking -----------------------------------------------------------------------

    def _actor(self, player: object) -> int | str | None:
        """Who tries an action: ``player`` when given, else :attr:`to_act`."""
        if player is None:
            return self.to_act
        return player if isinstance(player, (int, str)) and not isinstance(player, bool) else None

    def _illegal(self, action: Action | str, label: str, reason: str, player: object = None) -> IllegalActionError:
        """The error of a refused action: the message names it and the Position ID; its
        :class:`~backgammon.errors.Refusal` holds the reason alone."""
        name = action.value if isinstance(action, Action) else action
        return IllegalActionError(
            f"{label}: {reason} [Position ID {self._position.position_id()}]",
            Refusal.from_text(name, self._actor(player), reason),
        )

    def _phase_reason(self, action: Action) -> str | None:
        """Why ``action`` is not possible in this phase at all, or None."""
        phase = self._phase
        if phase is Phase.OVER:
            return "the game is over"
        allowed = _ALLOWED_IN[action]
        if phase in allowed:
            return None
        if phase is Phase.CUBE:
            return f"a double to {2 * self._cube} is offered: take, pass{' or beaver' if self._beaver_ok() else ''} first"
        if phase is Phase.RESIGN:
            return "a resignation is offered: accept or decline it first"
        if phase is Phase.OPENING:
            return "the game has not started: the opening roll comes first (R4)"
        if action is Action.DOUBLE and phase is Phase.PLAY:
            # what forbids this double at any time comes before the moment (R28)
            late = "the dice are already rolled; a double comes before the roll (R28)"
            return self._double_reason() or late
        if action is Action.ROLL and phase is Phase.PLAY:
            return "the dice are already rolled: play them"
        if action is Action.PLAY:
            return "roll the dice first"
        if action in (Action.TAKE, Action.PASS, Action.BEAVER):
            return "no double has been offered"
        return "no resignation has been offered"

    def _beaver_ok(self) -> bool:
        return self._rules.beavers_apply and self._rules.may_double_to(4 * self._cube)

    def _reason(self, action: Action, player: int | None) -> str | None:
        """Why ``action`` is refused, as a sentence ending in its rule number; None if allowed."""
        if player is not None and (not _is_int(player) or player not in (0, 1)):
            return f"player {player!r}: players are 0 and 1"
        reason = self._phase_reason(action)
        if reason is not None:
            return reason
        actor = self.to_act
        if player is not None and actor is not None and player != actor:
            return f"it is player {actor}'s turn to act, not player {player}'s (R43)"
        rules = self._rules
        if action is Action.DOUBLE:
            return self._double_reason()
        if action is Action.BEAVER:
            if not rules.beavers:
                return "beavers are not allowed under these rules (R30)"
            if not rules.is_money:
                return "beavers do not apply in a match (R34)"
            if not rules.may_double_to(4 * self._cube):
                return f"a beaver would take the cube past its limit of {rules.cube_limit} (R26)"
        return None

    def _double_reason(self) -> str | None:
        """Why the player on roll may not double whatever the phase (R33, R27, R26), or None."""
        if self._crawford:
            return "nobody may double in the Crawford game (R33)"
        if self._owner is not None and self._owner != self._on_roll:
            return f"player {self._owner} owns the cube; only its owner may redouble (R27)"
        if not self._rules.may_double_to(2 * self._cube):
            return f"the cube is at its limit of {self._rules.cube_limit} (R26)"
        return None

    def _require(self, action: Action, player: int | None, label: str) -> None:
        reason = self._reason(action, player)
        if reason is not None:
            raise self._illegal(action, label, reason, player)

    def _label(self, action: str, player: int | None) -> str:
        who = player if player is not None else self.to_act
        return action if who is None else f"{action} by player {who}"

    # -- actions ------------------------------------------------------------------------

    def roll(self, dice: tuple[int, int] | None = None, *, player: int | None = None) -> None:
        """Roll the dice (R7); before the first turn, throw the opening roll (R4).

        Without ``dice`` they come from the dice source. ``dice`` enters a roll made
        elsewhere (real dice, a server): for the opening roll it is one throw, player 0's
        die then player 1's; a tie is logged and leaves the game in the opening phase
        (with an automatic double, R6, if the rules allow it). From the source, the opening
        is thrown again until the dice differ. The winner of the opening then plays both
        opening dice, or with the R5 option rolls afresh (and may double first, R28).
        """
        label = self._label("roll" if dice is None else f"roll {dice!r}", player)
        self._require(Action.ROLL, player, label)
        given: tuple[int, int] | None = None
        if dice is not None:
            try:
                a, b = dice
            except (TypeError, ValueError):
                raise self._illegal(Action.ROLL, label, "dice are two numbers 1-6", player) from None
            if not (_is_int(a) and _is_int(b) and 1 <= a <= 6 and 1 <= b <= 6):
                raise self._illegal(Action.ROLL, label, "dice are two numbers 1-6", player)
            given = (a, b)
        if self._phase is Phase.OPENING:
            throws: list[tuple[int, int]] = []
            if given is not None:
                throws.append(given)
            else:
                while not throws or throws[-1][0] == throws[-1][1]:
                    if len(throws) >= _MAX_OPENING_THROWS:
                        raise self._illegal(
                            Action.ROLL, label, f"the dice source threw {len(throws)} ties in a row", player
                        )
                    throws.append((self._source.die(), self._source.die()))
            for throw in throws:
                self._opening_throw(throw)
        else:
            rolled = given if given is not None else self._source.roll()
            self._dice = rolled
            self._phase = Phase.PLAY
            self._legal = None
            self._events.append(Roll(self._on_roll, rolled))

    def _opening_throw(self, throw: tuple[int, int]) -> None:
        a, b = throw
        self._events.append(OpeningRoll((a, b)))
        if a == b:
            rules = self._rules
            if (
                rules.automatic_doubles_apply
                and self._auto_doubles < rules.automatic_double_limit
                and rules.may_double_to(2 * self._cube)
            ):
                self._cube *= 2
                self._auto_doubles += 1
                self._events.append(AutomaticDouble(self._cube))
            return
        first = 0 if a > b else 1
        if first != self._on_roll:
            self._position = self._position.swap()
        self._on_roll = first
        if self._rules.opening_reroll:
            self._phase = Phase.ROLL
        else:
            self._dice = (max(a, b), min(a, b))
            self._phase = Phase.PLAY
            self._legal = None

    def play(self, move: Move | str, *, player: int | None = None) -> None:
        """Play ``move`` (a :class:`~backgammon.move.Move` or its text) with the current dice.

        The play must be one of :meth:`legal_moves` (or reach the same position, R12);
        with no legal play, the empty play (``""``, ``Move()``). Raises
        :class:`~backgammon.errors.IllegalMoveError` otherwise (text that is not notation:
        :class:`~backgammon.errors.InvalidMoveError`; text that fits two plays:
        :class:`~backgammon.errors.AmbiguousMoveError`).
        """
        text = move if isinstance(move, str) else str(move)
        label = self._label(f"play {text!r}", player)
        if not isinstance(move, (str, Move)):
            raise self._illegal(Action.PLAY, label, f"{move!r} is not a Move or move text", player)
        self._require(Action.PLAY, player, label)
        legal = self.legal_moves()
        dice = self._dice
        assert dice is not None
        pid = self._position.position_id()
        roll = f"{dice[0]}-{dice[1]}"
        actor = self._actor(player)
        if isinstance(move, str):
            try:
                chosen = self._position.parse_move(move, dice)
            except BackgammonError as exc:
                exc.refusal = replace(exc.refusal or Refusal("play", None, None, str(exc)), player=actor)
                raise
        else:
            chosen = move
        if not len(legal):
            if not chosen.is_pass():
                raise IllegalMoveError(
                    f"{label}: no legal play with {roll} in {pid}; submit the empty play",
                    Refusal("play", actor, "R11", f"with {roll} no play is possible: the turn passes with the empty play"),
                )
            after = self._position.swap()
            played = chosen
        else:
            index = self._find(legal, chosen)
            if index is None:
                if chosen.is_pass():
                    raise IllegalMoveError(
                        f"{label}: a play is required with {roll} in {pid} (R11) (for example {legal[0]})",
                        Refusal("play", actor, "R11", f"with {roll} a play is required: {legal[0]} for example"),
                    )
                sample = ", ".join(str(m) for m in legal[:6])
                more = "" if len(legal) <= 6 else f" ... ({len(legal)} in all)"
                raise IllegalMoveError(
                    f"{label}: not a legal play of {roll} in {pid}; legal: {sample}{more}",
                    Refusal("play", actor, None, f"{chosen} is not a legal play of {roll} here"),
                )
            after = legal.position(index)
            played = legal[index]
        mover = self._on_roll
        self._events.append(Play(mover, played))
        self._position = after
        self._on_roll = 1 - mover
        self._dice = None
        self._legal = None
        self._phase = Phase.ROLL
        if after.borne_off()[1] == 15:  # the mover, now the opponent in ``after`` (R21)
            loser_side = after.player
            if after.borne_off()[0]:
                level, kind = 1, ResultKind.SINGLE  # R22
            elif any(loser_side[18:25]):
                level, kind = 3, ResultKind.BACKGAMMON  # R24: bar or the winner's home board
            else:
                level, kind = 2, ResultKind.GAMMON  # R23
            self._end(mover, kind, level, self._cube, self._rules.multiplier(level, self._owner is None))

    @staticmethod
    def _find(legal: LegalMoves, move: Move) -> int | None:
        # R12: plays are the same when they reach the same position, however written
        try:
            target = legal.origin.play(move)
        except BackgammonError:
            return None
        return legal.find_position(target)

    def double(self, *, player: int | None = None) -> None:
        """Offer the cube at twice its value, before rolling (R26–R28, R33)."""
        self._require(Action.DOUBLE, player, self._label("double", player))
        self._phase = Phase.CUBE
        self._events.append(Double(self._on_roll, 2 * self._cube))

    def take(self, *, player: int | None = None) -> None:
        """Take the double: own the cube at twice the value; the doubler rolls (R29)."""
        self._keep_cube(Action.TAKE, player, "take", 2, Take)

    def beaver(self, *, player: int | None = None) -> None:
        """Take and at once redouble, keeping the cube (at four times the value, R30).

        Money play with ``rules.beavers`` only (R34). The doubler then rolls; raccoons
        (redoubling a beaver) are not supported."""
        self._keep_cube(Action.BEAVER, player, "beaver", 4, Beaver)

    def _keep_cube(
        self, action: Action, player: int | None, label: str, factor: int, event: type[Take | Beaver]
    ) -> None:
        """Take (``factor`` 2) or beaver (4): the opponent of the doubler owns the cube at
        ``factor`` times its value, and the doubler rolls."""
        self._require(action, player, self._label(label, player))
        taker = 1 - self._on_roll
        self._cube *= factor
        self._owner = taker
        self._phase = Phase.ROLL
        self._events.append(event(taker, self._cube))

    def pass_double(self, *, player: int | None = None) -> None:
        """Pass (drop) the double: lose the game at the cube value before the double (R29)."""
        self._require(Action.PASS, player, self._label("pass", player))
        self._events.append(Pass(1 - self._on_roll))
        self._end(self._on_roll, ResultKind.PASSED, 1, self._cube, 1)

    drop = pass_double

    def resign(self, level: int | str = 1, *, player: int | None = None) -> None:
        """Offer to resign a single game (1), a gammon (2) or a backgammon (3) (R31).

        The player who must act may resign: on roll, before or after rolling, or when
        doubled. ``level`` may be given as 1-3, ``"single"``, ``"gammon"``,
        ``"backgammon"`` or a :class:`~backgammon.matchid.Resignation`.
        """
        label = self._label(f"resign {level!r}", player)
        self._require(Action.RESIGN, player, label)
        lvl = _LEVELS.get(level.lower()) if isinstance(level, str) else level
        if not isinstance(lvl, int) or isinstance(lvl, bool) or lvl not in (1, 2, 3):
            raise self._illegal(
                Action.RESIGN, label, "a resignation is of a single game, a gammon or a backgammon (1-3)", player
            )
        resigner = self.to_act
        assert resigner is not None
        self._resign = (resigner, int(lvl))
        self._resume = self._phase
        self._phase = Phase.RESIGN
        self._events.append(Resign(resigner, int(lvl)))

    def accept(self, *, player: int | None = None) -> None:
        """Accept the resignation: the game is over at its value (R31)."""
        self._require(Action.ACCEPT, player, self._label("accept", player))
        assert self._resign is not None
        resigner, level = self._resign
        self._events.append(Accept(1 - resigner))
        self._end(
            1 - resigner,
            ResultKind.RESIGNED,
            level,
            self._cube,
            self._rules.multiplier(level, self._owner is None),
        )

    def decline(self, *, player: int | None = None) -> None:
        """Decline the resignation: play goes on where it stood (R31)."""
        self._require(Action.DECLINE, player, self._label("decline", player))
        assert self._resign is not None
        self._events.append(Decline(1 - self._resign[0]))
        self._phase = self._resume
        self._resign = None

    def _end(self, winner: int, kind: ResultKind, level: int, cube: int, multiplier: int) -> None:
        result = GameResult(winner, kind, level, cube, multiplier, cube * multiplier)
        self._result = result
        self._phase = Phase.OVER
        self._dice = None
        self._legal = None
        self._events.append(GameEnd(result))
        if self._on_end is not None:
            self._on_end(self)

    # -- setting up a position ----------------------------------------------------------

    @classmethod
    def from_position(
        cls,
        position: Position,
        *,
        player: int = 0,
        cube: int = 1,
        cube_owner: int | None = None,
        dice: tuple[int, int] | None = None,
        double_offered: bool = False,
        rules: Rules | None = None,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        dice_source: DiceSource | None = None,
    ) -> Game:
        """A game that starts from ``position`` (seen from ``player``, who is on roll), with
        the cube at ``cube`` owned by ``cube_owner``, and either ``dice`` to play, or
        ``double_offered`` (``player`` has doubled), or neither (``player`` to roll). The log
        starts with a :class:`~backgammon.events.SetUp` event.

        >>> p = Position.from_position_id("4HPwATDgc/ABMA")
        >>> g = Game.from_position(p, player=1, cube=2, cube_owner=1, dice=(6, 5))
        >>> g.on_roll, g.phase, str(g.legal_moves()[0])
        (1, <Phase.PLAY: 'play'>, '24/13')
        """
        game = cls(rules, dice=dice_source, score=score, crawford=crawford)
        if not isinstance(position, Position):
            raise InvalidPositionError(f"{position!r}: expected a Position")
        if dice is not None:
            try:
                dice = (dice[0], dice[1])
            except (TypeError, IndexError):
                raise game._illegal("set_up", "set up", f"dice {dice!r} are not two numbers 1-6") from None
        event = SetUp(position.position_id(), player, cube, cube_owner, dice, double_offered)
        game._setup(event, position)
        return game

    def _setup(self, event: SetUp, position: Position | None = None) -> None:
        label = "set up"
        if self._events:
            raise self._illegal("set_up", label, "a set-up can only start a game's log")
        if position is None:
            position = Position.from_position_id(event.position_id)
        elif not isinstance(position, Position):
            raise InvalidPositionError(f"{position!r}: expected a Position")
        player, cube, owner = event.player, event.cube, event.cube_owner
        if not _is_int(player) or player not in (0, 1):
            raise self._illegal("set_up", label, f"player {player!r}: players are 0 and 1")
        if not _is_int(cube) or cube < 1 or cube & (cube - 1):
            raise self._illegal("set_up", label, f"cube {cube!r} is not a power of 2 (R26)")
        if not self._rules.may_double_to(cube):
            raise self._illegal("set_up", label, f"cube {cube} is past the limit of {self._rules.cube_limit} (R26)")
        if owner is not None and (not _is_int(owner) or owner not in (0, 1)):
            raise self._illegal("set_up", label, f"cube owner {owner!r}: 0, 1 or None (centred)")
        if owner is not None and cube == 1:
            raise self._illegal("set_up", label, "a cube at 1 is centred (R26)")
        if self._crawford and (cube != 1 or event.double_offered):
            raise self._illegal("set_up", label, "the cube is out of play in the Crawford game (R33)")
        if position.is_game_over():
            raise InvalidPositionError(f"{position.position_id()}: the game is already over")
        dice = event.dice
        if dice is not None:
            if not (_is_int(dice[0]) and _is_int(dice[1]) and 1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
                raise self._illegal("set_up", label, f"dice {dice!r} are not two numbers 1-6")
            if event.double_offered:
                raise self._illegal("set_up", label, "dice are rolled after the cube decision (R28)")
        if event.double_offered:
            if owner is not None and owner != player:
                raise self._illegal(
                    "set_up", label, f"player {player} cannot have doubled: player {owner} owns the cube (R27)"
                )
            if not self._rules.may_double_to(2 * cube):
                raise self._illegal(
                    "set_up", label, f"player {player} cannot have doubled: the cube is at its limit (R26)"
                )
        self._position = position
        self._on_roll = player
        self._cube = cube
        self._owner = owner
        if event.double_offered:
            self._phase = Phase.CUBE
        elif dice is not None:
            self._dice = dice
            self._phase = Phase.PLAY
        else:
            self._phase = Phase.ROLL
        self._events.append(event)

    # -- replay, undo, copies -----------------------------------------------------------

    def _dispatch(self, event: GameEvent, index: int) -> None:
        """Replay one primary event by taking its action."""
        try:
            if isinstance(event, SetUp):
                self._setup(event)
            elif isinstance(event, OpeningRoll) and self._phase is not Phase.OPENING:
                raise self._illegal(Action.ROLL, f"opening roll {event.dice!r}", "the opening roll is over")
            elif isinstance(event, Roll) and self._phase is Phase.OPENING:
                raise self._illegal(Action.ROLL, f"roll {event.dice!r}", "the opening roll comes first")
            else:
                event.apply(self)
        except BackgammonError as exc:
            raise type(exc)(f"replaying event {index} ({event.type}): {exc}", exc.refusal) from exc

    @classmethod
    def replay(
        cls,
        events: Iterable[GameEvent],
        rules: Rules | None = None,
        *,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        dice: DiceSource | None = None,
    ) -> Game:
        """The game that ``events`` record, rebuilt by taking each logged action again
        (so a log that breaks the rules raises) and checking that every derived event
        (automatic doubles, the end) comes out the same. ``dice`` is the source for rolls
        after the replay (default :class:`~backgammon.dice.SecureDice`)."""
        game = cls(rules, dice=dice, score=score, crawford=crawford)
        log = list(events)
        for i, event in enumerate(log):
            if not isinstance(event, _GAME_EVENTS):
                raise BackgammonError(f"replaying event {i}: {event!r} is not a game event")
            if event.primary:
                game._dispatch(event, i)
        check_same_log(game._events, log)
        return game

    def undo(self) -> tuple[GameEvent, ...]:
        """Take back the last action (and what followed from it); return the removed events.

        Done by replaying the log without it. The library lets any action be undone, the
        roll included; a front end offers undo only for an unconfirmed play (R42). A game
        that ended inside a :class:`~backgammon.match.Match` is undone through the match.
        """
        cut = max(
            (i for i, e in enumerate(self._events) if e.primary and not isinstance(e, SetUp)), default=None
        )
        if cut is None:
            raise self._illegal("undo", "undo", "there is nothing to undo")
        if self._on_end is not None and self._phase is Phase.OVER:
            raise self._illegal("undo", "undo", "the game is over and counted in its match: undo through the match")
        removed = tuple(self._events[cut:])
        fresh = Game.replay(
            self._events[:cut], self._rules, score=self._score, crawford=self._crawford, dice=self._source
        )
        on_end = self._on_end
        self._copy_from(fresh)
        self._on_end = on_end
        return removed

    def _copy_from(self, other: Game) -> None:
        for name in Game.__slots__:
            value = getattr(other, name)
            setattr(self, name, list(value) if name == "_events" else value)

    def copy(self) -> Game:
        """An independent copy (sharing the dice source); equal to this game."""
        twin = object.__new__(Game)
        twin._copy_from(self)
        twin._on_end = None
        return twin

    def _key(self) -> tuple[Any, ...]:
        return (
            self._rules,
            self._score,
            self._crawford,
            self._phase,
            self._on_roll,
            self._position,
            self._dice,
            self._cube,
            self._owner,
            self._auto_doubles,
            self._resign,
            self._resume if self._phase is Phase.RESIGN else None,
            self._result,
            tuple(self._events),
        )


    # -- serialisation ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The log with its header (format, version, rules, score, Crawford flag), JSON-ready."""
        return {
            "format": "backgammon-game",
            "version": FORMAT_VERSION,
            "rules": self._rules.to_dict(),
            "score": list(self._score),
            "crawford": self._crawford,
            "events": [e.to_dict() for e in self._events],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, dice: DiceSource | None = None) -> Game:
        """Rebuild a game from :meth:`to_dict`'s output by replaying its log."""
        check_header(data, "backgammon-game")
        rules = Rules.from_dict(data.get("rules", {}))
        score = data.get("score", [0, 0])
        if not isinstance(score, list) or len(score) != 2:
            raise BackgammonError(f"score {score!r}: expected two numbers")
        events: list[GameEvent] = []
        for raw in event_list(data):
            event = event_from_dict(raw)
            if not isinstance(event, _GAME_EVENTS):
                raise BackgammonError(f"event {raw!r}: not a game event")
            events.append(event)
        return cls.replay(
            events, rules, score=(score[0], score[1]), crawford=data.get("crawford", False), dice=dice
        )

    # -- Match ID -----------------------------------------------------------------------

    def match_state(self) -> MatchState:
        """The game's moment as gnubg's :class:`~backgammon.matchid.MatchState` (scores are
        capped at the match length, as a Match ID requires)."""
        phase = self._phase
        n = self.match_length
        score = self._score if not n else (min(self._score[0], n), min(self._score[1], n))
        if phase is Phase.OVER:
            assert self._result is not None
            state = {
                ResultKind.RESIGNED: GameState.RESIGNED,
                ResultKind.PASSED: GameState.DROPPED,
            }.get(self._result.kind, GameState.OVER)
        elif phase is Phase.OPENING:
            state = GameState.NO_GAME
        else:
            state = GameState.PLAYING
        to_act = self.to_act
        resign = self.resignation
        return MatchState(
            cube_value=self._cube,
            cube_owner=self._owner,
            player_on_roll=self._on_roll,
            crawford=self._crawford,
            game_state=state,
            turn=self._on_roll if to_act is None else to_act,
            double_offered=phase is Phase.CUBE,
            resignation=Resignation(resign[1]) if resign else Resignation.NONE,
            dice=self._dice,
            match_length=n,
            score=score,
            jacoby=self._rules.jacoby_applies,
        )

    def match_id(self) -> str:
        """gnubg's 12-character Match ID of this moment (with :meth:`position_id`, the
        Position ID from the player on roll, it describes the game for gnubg)."""
        return self.match_state().to_match_id()

    # -- XGID ---------------------------------------------------------------------------

    def xgid(self) -> str:
        """eXtreme Gammon's XGID of this moment (gnubg's convention: player 1 at the bottom).

        Only a game in play with no resignation pending has one (not before the opening
        roll, not after the end). The max-cube field is the rules' cube limit, or XG's
        default 2^10 when there is none.

        >>> from backgammon.dice import ScriptedDice
        >>> g = Game(dice=ScriptedDice([(5, 2)]))
        >>> g.roll()
        >>> g.xgid()
        'XGID=-b----E-C---eE---c-e----B-:0:0:-1:52:0:0:0:0:10'
        """
        state = self.match_state()
        if state.game_state is not GameState.PLAYING or state.resignation:
            raise self._illegal("xgid", "xgid", "only a game in play with no resignation pending has an XGID")
        limit = self._rules.cube_limit
        return XGID.from_match_state(
            state,
            self._position.player,
            self._position.opponent,
            beaver=self._rules.beavers_apply,
            max_cube=1 << 10 if limit is None else min(limit, 1 << 15),
        ).to_xgid()

    @classmethod
    def from_xgid(cls, text: str, rules: Rules | None = None, *, dice: DiceSource | None = None) -> Game:
        """A game set up from an XGID (gnubg's convention: the bottom player is player 1).

        The match length, score, Crawford flag and (money play) Jacoby and beaver options
        come from the XGID; the other options from ``rules``. The XGID's max-cube field is
        not read (give ``rules.cube_limit`` instead). A pending beaver or raccoon cannot be
        set up.

        >>> g = Game.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:3:2:0:7:10")
        >>> g.phase, g.on_roll, g.to_act, g.cube_value, g.cube_owner, g.score
        (<Phase.CUBE: 'cube'>, 0, 1, 2, 0, (2, 3))
        >>> g.xgid()
        'XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:3:2:0:7:10'
        """
        x = XGID.from_xgid(text)
        if x.cube_offer in (CubeOffer.BEAVER, CubeOffer.RACCOON):
            what = f"a pending {x.cube_offer.name.lower()} cannot be set up"
            raise IllegalActionError(f"{text!r}: {what}", Refusal("set_up", None, None, what))
        state = x.match_state()
        base = Rules() if rules is None else rules
        money = x.match_length == 0
        game_rules = Rules(
            match_length=x.match_length,
            opening_reroll=base.opening_reroll,
            automatic_doubles=base.automatic_doubles,
            automatic_double_limit=base.automatic_double_limit,
            jacoby=x.jacoby if money else base.jacoby,
            beavers=x.beaver if money else base.beavers,
            backgammon_counts_as_gammon=base.backgammon_counts_as_gammon,
            cube_limit=base.cube_limit,
        )
        return cls.from_position(
            x.position(),
            player=state.player_on_roll,
            cube=x.cube_value,
            cube_owner=state.cube_owner,
            dice=x.dice,
            double_offered=state.double_offered,
            rules=game_rules,
            score=state.score,
            crawford=x.crawford,
            dice_source=dice,
        )

    # -- text ---------------------------------------------------------------------------

    def status(self) -> str:
        """One line saying where the game stands.

        >>> Game().status()
        'opening roll due; cube 1 centred'
        """
        cube = f"cube {self._cube} {'centred' if self._owner is None else f'owned by player {self._owner}'}"
        phase = self._phase
        if phase is Phase.OPENING:
            what = "opening roll due"
        elif phase is Phase.ROLL:
            what = (
                f"player {self._on_roll} to roll or double"
                if self.can_double()
                else f"player {self._on_roll} to roll"
            )
        elif phase is Phase.PLAY:
            assert self._dice is not None
            what = f"player {self._on_roll} to play {self._dice[0]}-{self._dice[1]}"
            if not len(self.legal_moves()):
                what += " (no legal move)"
        elif phase is Phase.CUBE:
            what = f"player {self._on_roll} doubles to {2 * self._cube}: player {1 - self._on_roll} to take or pass"
        elif phase is Phase.RESIGN:
            assert self._resign is not None
            what = (
                f"player {self._resign[0]} offers to resign a {_LEVEL_NAMES[self._resign[1]]}: "
                f"player {1 - self._resign[0]} to accept or decline"
            )
        else:
            what = str(self._result)
        return f"{what}; {cube}"

    def __str__(self) -> str:
        return f"{self._position}\n{self.status()}"

    def __repr__(self) -> str:
        return f"<Game {self.status()!r} events={len(self._events)}>"


def _check_player(player: object) -> None:
    if not _is_int(player) or player not in (0, 1):
        raise BackgammonError(f"player {player!r}: players are 0 and 1")
