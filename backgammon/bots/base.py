"""The :class:`Bot` interface that every front end (terminal, web, benchmarks) talks to.

A bot answers four questions, always about a position seen from *its own* side:

* :meth:`Bot.choose_move` — which play to make with a roll (or ``None`` when there is none);
* :meth:`Bot.should_double` — whether to double, on its turn before rolling (R28);
* :meth:`Bot.respond_to_double` — :class:`CubeResponse` ``TAKE``, ``PASS`` or ``BEAVER``
  when the opponent has doubled (R29, R30);
* :meth:`Bot.accept_resignation` — whether to accept the opponent's resignation (R31);
* :meth:`Bot.offer_resignation` — whether to offer to resign, and what, on its own turn
  before it doubles or rolls (R31; default: never).

A bot implements one abstract method, :meth:`Bot.choose_index` (pick a play from a
:class:`~backgammon.LegalMoves`, by index); :meth:`Bot.choose_move` is built on it, and a
front end that already holds the legal plays can call :meth:`Bot.choose_index` directly and
read the resulting position with :meth:`~backgammon.LegalMoves.position`. The cube methods
have an evaluation-free default policy here — never double, always take, accept a
resignation only when it gives up nothing, never resign — which a bot overrides with its own.
:func:`resignation_offer` and :func:`last_roll_chances` are the rules-side half of a bot's
resignation policy (what a level is worth, when only one result is left).

Randomness is injected: every bot takes ``seed``, an ``int`` or a :class:`random.Random`
(``None`` seeds from the operating system), and draws only from :attr:`Bot.rng`, so a game
with seeded dice and seeded bots replays exactly.

>>> from backgammon import Position
>>> from backgammon.bots import load, CubeResponse
>>> from backgammon.matchid import MatchState
>>> bot = load("random", seed=1)
>>> bot.choose_move(Position.initial(), (3, 1)) in Position.initial().legal_moves((3, 1))
True
>>> bot.should_double(Position.initial(), MatchState())
False
>>> bot.respond_to_double(Position.initial(), MatchState(player_on_roll=1))
<CubeResponse.TAKE: 'take'>
"""

from __future__ import annotations

import abc
import random
from enum import Enum
from typing import ClassVar

import numpy as np

from ..errors import BackgammonError
from ..matchid import MatchState, Resignation
from ..move import Move
from ..position import Dice, LegalMoves, Position

__all__ = [
    "MATCH_RESIGN_TOLERANCE",
    "RESIGN_TOLERANCE",
    "Bot",
    "BotOptionError",
    "CubeResponse",
    "Seed",
    "UnknownBotError",
    "bot_player",
    "is_post_crawford",
    "last_roll_chances",
    "max_win_level",
    "may_double",
    "resignation_level",
    "resignation_offer",
    "resignation_points",
]

#: What a bot's ``seed`` may be: an int, a :class:`random.Random` to draw from, or ``None``.
Seed = int | random.Random | None


class UnknownBotError(BackgammonError):
    """:func:`backgammon.bots.load` was given a name that no bot is registered under."""


class BotOptionError(BackgammonError):
    """:func:`backgammon.bots.load` was given an option the bot does not take."""


class CubeResponse(Enum):
    """The answer to a double (R29, R30).

    ``BEAVER`` (take and redouble at once, keeping the cube) is only ever returned in money
    play (``match_length == 0``); a front end whose rules have beavers off (R30's default)
    treats it as ``TAKE``.

    >>> CubeResponse("pass")
    <CubeResponse.PASS: 'pass'>
    """

    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"


_LEVEL_NAMES = {"single": 1, "gammon": 2, "backgammon": 3}


def resignation_level(offer: Resignation | int | str) -> int:
    """The level of a resignation offer: 1 single game, 2 gammon, 3 backgammon (R31).

    Accepts a :class:`~backgammon.matchid.Resignation`, the ints 1–3, or the words
    ``"single"``, ``"gammon"``, ``"backgammon"`` (as :meth:`backgammon.game.Game.resign`).
    The points at stake are the level times the cube value (R22–R24).

    >>> resignation_level("gammon"), resignation_level(Resignation.BACKGAMMON)
    (2, 3)
    >>> resignation_level(0)
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: resignation 0: offer a single game, a gammon or a backgammon (1-3)
    """
    level: object = _LEVEL_NAMES.get(offer.strip().lower()) if isinstance(offer, str) else offer
    if not isinstance(level, int) or isinstance(level, bool) or level not in (1, 2, 3):
        raise BackgammonError(f"resignation {offer!r}: offer a single game, a gammon or a backgammon (1-3)")
    return int(level)


def bot_player(state: MatchState, *, answering: bool) -> int:
    """Which of the Match ID's players (0 or 1) the bot is.

    For a decision on its own turn (``answering=False``: doubling) the bot is
    ``state.player_on_roll``. For an answer (``answering=True``: to a double or a
    resignation) it is ``state.turn`` when the state records the pending offer
    (``double_offered`` or ``resignation``, as :meth:`backgammon.game.Game.match_state`
    writes it), otherwise the player not on roll (a double and, usually, a resignation
    come from the player on roll).

    >>> bot_player(MatchState(player_on_roll=1), answering=True)
    0
    >>> bot_player(MatchState(player_on_roll=1, turn=1, resignation=1), answering=True)
    1
    """
    if not answering:
        return state.player_on_roll
    if state.double_offered or state.resignation != Resignation.NONE:
        return state.turn
    return 1 - state.player_on_roll


def is_post_crawford(state: MatchState) -> bool:
    """True in a match game after the Crawford game: someone is 1-away and it is not the
    Crawford game itself (R33). Doubling is allowed again there.

    >>> is_post_crawford(MatchState(match_length=5, score=(4, 2)))
    True
    >>> is_post_crawford(MatchState(match_length=5, score=(4, 2), crawford=True))
    False
    """
    n = state.match_length
    return bool(n) and not state.crawford and max(state.score) == n - 1


def may_double(state: MatchState, player: int) -> bool:
    """Whether the rules let ``player`` double now (R27, R33): the cube is centred or
    theirs, it is not the Crawford game, and no double is already pending.

    >>> may_double(MatchState(cube_value=2, cube_owner=1), 0)
    False
    >>> may_double(MatchState(match_length=5, score=(4, 0), crawford=True), 1)
    False
    """
    if state.crawford or state.double_offered:
        return False
    return state.cube_owner is None or state.cube_owner == player


def max_win_level(position: Position) -> int:
    """The highest result the player on roll of ``position`` can still win: 1 (single),
    2 (gammon) or 3 (backgammon), from the rules alone (R22–R24).

    Once the opponent has borne off a checker, only a single game. A backgammon stays
    possible while an opposing checker is on the bar or in the player's home board, or
    while there is contact (a hit can send one back).

    >>> max_win_level(Position.initial())
    3
    """
    if position.borne_off()[1]:
        return 1
    opp = position.opponent
    # The player's home board is the opponent's points 19-24 (indices 18-23); 24 is the bar.
    if any(opp[18:25]) or not position.is_race():
        return 3
    return 2


#: How unlikely every other result than the one resigned must be before a bot offers to
#: resign (:func:`resignation_offer`).
RESIGN_TOLERANCE = 1e-3
#: A resignation that hands the opponent the match is offered only when winning the game is
#: no more likely than this: in practice, when the game cannot be won at all (the exact
#: bear-off chances carry the float32 tables' rounding, about 1e-8).
MATCH_RESIGN_TOLERANCE = 1e-6

_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def _finishes_with_any_roll(position: Position) -> bool:
    """Whether the player on roll of ``position`` bears off every checker with any roll."""
    if sum(position.player) > 2:  # a roll that is not a double bears off two at most
        return False
    for roll in _ROLLS:
        boards = position.legal_moves(roll).boards
        # each row is the resulting key from the opponent's view: the mover's slots are 25-49
        if not len(boards) or not (boards[:, 25:] == 0).all(axis=1).any():
            return False
    return True


def last_roll_chances(position: Position) -> tuple[float, float, float] | None:
    """``(win, lose_gammon, lose_backgammon)`` for the player on roll, exactly, when the race
    is over but for this roll: no contact, and the opponent bears off its last checkers with
    any roll. ``None`` otherwise.

    The player wins only by bearing off everything now; it saves the gammon by bearing off
    a checker, and the backgammon by leaving the opponent's home board and the bar (R22–R24).
    Each roll is played for the best of these (21 rolls, every legal play).

    >>> from backgammon import Position
    >>> opp = [1] + [0] * 24                          # one checker on its 1-point
    >>> last_roll_chances(Position([0] * 6 + [15] + [0] * 18, opp))   # 15 on the 7-point
    (0.0, 1.0, 0.0)
    >>> last_roll_chances(Position.initial()) is None
    True
    """
    if not position.is_race() or not _finishes_with_any_roll(position.swap()):
        return None
    win = gammon = backgammon = 0  # in 36ths
    for roll in _ROLLS:
        weight = 1 if roll[0] == roll[1] else 2
        boards = position.legal_moves(roll).boards
        mine = boards[:, 25:] if len(boards) else np.array([position.player], np.uint8)
        off = 15 - mine.sum(axis=1)
        # the player's bar (24) and points 19-24 (18-23) are the opponent's home board
        stuck = mine[:, 18:25].sum(axis=1)
        # 0 win, 1 single, 2 gammon, 3 backgammon lost: the best play is the smallest
        result = int(np.where(off == 15, 0, np.where(off > 0, 1, np.where(stuck > 0, 3, 2))).min())
        win += weight * (result == 0)
        gammon += weight * (result >= 2)
        backgammon += weight * (result == 3)
    return win / 36, gammon / 36, backgammon / 36


def resignation_points(level: int, state: MatchState, receiver: int) -> int:
    """What a resignation at ``level`` (1–3) is worth to ``receiver`` (a Match ID player),
    in points: the level times the cube; a single game when the Jacoby rule applies (money,
    cube centred, R25); in a match, at most the points the receiver still needs (R32).

    >>> resignation_points(2, MatchState(cube_value=2, jacoby=False), 0)
    4
    >>> resignation_points(2, MatchState(match_length=5, score=(0, 4)), 1)
    1
    """
    if state.is_money:
        if state.jacoby and state.cube_owner is None:
            level = 1
        return level * state.cube_value
    return min(level * state.cube_value, state.match_length - state.score[receiver])


def resignation_offer(
    position: Position,
    state: MatchState,
    win: float,
    lose_gammon: float,
    lose_backgammon: float,
    *,
    tolerance: float = RESIGN_TOLERANCE,
) -> int:
    """The resignation the player on roll of ``position`` (``state.player_on_roll``) may
    safely offer (R31): 1 single, 2 gammon, 3 backgammon, or 0 for none, from its chances
    ``win``, ``lose_gammon`` (or worse) and ``lose_backgammon``.

    A resignation at level L gives the opponent what a loss at L would. It is offered only
    when that is practically the result anyway: the chance of every result worth a
    different amount to the opponent — winning, and losing for less or for more — is below
    ``tolerance``. So a single game when the game cannot be won and a gammon is practically
    impossible, a gammon when a gammon is practically certain and a backgammon practically
    impossible, a backgammon when even that is certain. Of levels worth the same the smallest
    is offered: under the Jacoby rule (money, cube centred, R25) every loss is worth a single
    game; in a match the points count only up to what the opponent still needs (R32), so a
    single game when that already ends the match. A resignation that gives the opponent the
    match is offered only when the game cannot be won at all (``win`` at most
    :data:`MATCH_RESIGN_TOLERANCE`). Results the rules exclude (:func:`max_win_level` of the
    opponent) count as impossible whatever the estimates say.

    >>> from backgammon import Position
    >>> race = Position([0] * 6 + [15] + [0] * 18, [1] + [0] * 24)
    >>> resignation_offer(race, MatchState(jacoby=False), 0.0, 1.0, 0.0)
    2
    >>> resignation_offer(race, MatchState(jacoby=True), 0.0, 1.0, 0.0)
    1
    >>> resignation_offer(race, MatchState(jacoby=False), 0.0, 0.6, 0.0)
    0
    """
    if not 0.0 <= win < tolerance:
        return 0
    most = max_win_level(position.swap())  # the opponent's best result, by the rules
    gammon = min(max(lose_gammon, 0.0), 1.0 - win) if most >= 2 else 0.0
    backgammon = min(max(lose_backgammon, 0.0), gammon) if most >= 3 else 0.0
    chances = {1: max(1.0 - win - gammon, 0.0), 2: gammon - backgammon, 3: backgammon}
    opponent = 1 - state.player_on_roll
    need = state.match_length - state.score[opponent]

    def worth(level: int) -> int:
        return resignation_points(level, state, opponent)

    for level in (1, 2, 3):
        other = win + sum(p for k, p in chances.items() if worth(k) != worth(level))
        if other < tolerance:
            if not state.is_money and worth(level) >= need and win > MATCH_RESIGN_TOLERANCE:
                return 0
            return level
    return 0


class Bot(abc.ABC):
    """A computer player. Subclasses implement :meth:`choose_index`; the cube methods have
    a default, evaluation-free policy (never double, always take, accept a resignation only
    when it costs nothing) that a subclass may override.

    ``seed`` is an ``int``, a :class:`random.Random` (used as is, so several bots may share
    one stream) or ``None`` (seeded by the operating system); all of a bot's randomness comes
    from :attr:`rng`.

    >>> from backgammon.bots import load
    >>> bot = load("random", seed=7)
    >>> bot.name, isinstance(bot, Bot)
    ('random', True)
    """

    #: The name the bot is registered under (see :func:`backgammon.bots.register`).
    name: ClassVar[str] = "bot"

    def __init__(self, *, seed: Seed = None) -> None:
        if isinstance(seed, random.Random):
            self.rng = seed
        elif seed is None or (isinstance(seed, int) and not isinstance(seed, bool)):
            self.rng = random.Random(seed)
        else:
            raise BotOptionError(f"seed={seed!r}: a seed is an int, a random.Random or None")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # -- checker play -------------------------------------------------------------------

    @abc.abstractmethod
    def choose_index(self, legal: LegalMoves) -> int:
        """The index, in ``legal``, of the play to make. ``legal`` is never empty.

        ``legal.origin`` is the position (from the bot's side) and ``legal.dice`` the roll.
        """

    def choose_move(self, position: Position, dice: Dice) -> Move | None:
        """One of ``position.legal_moves(dice)``, or ``None`` when no play is possible (R11).

        ``position`` is seen from the bot, which is on roll.

        >>> from backgammon.bots import load
        >>> print(load("pubeval").choose_move(Position.initial(), (3, 1)))
        8/5 6/5
        """
        legal = position.legal_moves(dice)
        if not legal:
            return None
        return legal[self.choose_index(legal)]

    # -- cube and resignations ------------------------------------------------------------

    def should_double(self, position: Position, state: MatchState) -> bool:
        """Whether to double now, on the bot's turn before it rolls (R28).

        ``position`` is seen from the bot (on roll); the bot is ``state.player_on_roll``.
        Default: never.

        >>> from backgammon.bots import load
        >>> load("random").should_double(Position.initial(), MatchState())
        False
        """
        return False

    def respond_to_double(self, position: Position, state: MatchState) -> CubeResponse:
        """Take, pass or beaver the opponent's double (R29, R30).

        ``position`` is seen from the bot (the doubler is on roll but the position is
        turned to the bot's side); the bot is found by :func:`bot_player`. Default: take.

        >>> from backgammon.bots import load
        >>> load("random").respond_to_double(Position.initial(), MatchState())
        <CubeResponse.TAKE: 'take'>
        """
        return CubeResponse.TAKE

    def accept_resignation(
        self, position: Position, state: MatchState, offer: Resignation | int | str
    ) -> bool:
        """Whether to accept the opponent's resignation of ``offer`` (R31).

        ``offer`` is the level: 1 / ``"single"``, 2 / ``"gammon"``, 3 / ``"backgammon"``
        (or a :class:`~backgammon.matchid.Resignation`); the points are that times the cube.
        ``position`` is seen from the bot; the bot is found by :func:`bot_player`.

        Default: accept exactly when the offer is worth at least the most the bot could
        still win (:meth:`resignation_value` of :func:`max_win_level`), counting the Jacoby
        rule in money play and, in a match, that points past the match length are worth
        nothing.

        >>> from backgammon.bots import load
        >>> bot = load("random")
        >>> bot.accept_resignation(Position.initial(), MatchState(jacoby=False), "single")
        False
        >>> bot.accept_resignation(Position.initial(), MatchState(jacoby=False), "backgammon")
        True
        """
        level = resignation_level(offer)
        best = max_win_level(position)
        return self.resignation_value(level, state) >= self.resignation_value(best, state)

    def offer_resignation(self, position: Position, state: MatchState) -> int:
        """The resignation to offer now, on the bot's turn before it doubles or rolls (R31):
        0 none, 1 a single game, 2 a gammon, 3 a backgammon (times the cube).

        ``position`` is seen from the bot (on roll); the bot is ``state.player_on_roll``. A
        front end makes the offer through :meth:`backgammon.game.Game.resign`; after a
        decline it does not ask for that level (or a lower one) again in the game, as gnubg.
        Default: never. A bot with an evaluation may use :func:`resignation_offer`.

        >>> from backgammon.bots import load
        >>> load("random").offer_resignation(Position.initial(), MatchState())
        0
        """
        return 0

    def resignation_value(self, level: int, state: MatchState) -> int:
        """What winning at ``level`` (1–3) is worth to the bot, in points: the level times the
        cube; a single game when the Jacoby rule applies (money, cube centred, R25); in a
        match, at most the points the bot still needs (R32).

        >>> from backgammon.bots import load
        >>> bot = load("random")
        >>> bot.resignation_value(2, MatchState(cube_value=2, jacoby=False))
        4
        >>> bot.resignation_value(2, MatchState(match_length=5, score=(0, 4), turn=1, resignation=1))
        1
        """
        return resignation_points(level, state, bot_player(state, answering=True))
