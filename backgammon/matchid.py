"""gnubg's Match ID: the cube, score and turn state in 12 base64 characters.

The Match ID carries everything about a moment in a game except the checkers (those are in
the Position ID). gnubg builds a *match key*, a bit string packed little-endian into 9 bytes
(the first bit is the least significant bit of the first byte), and writes the 9 bytes in
standard base64 (12 characters, no padding needed). Bit numbers below count from 0:

=======  ====  ==============================================================
bits     size  field
=======  ====  ==============================================================
0-3      4     log2 of the cube value (1-cube = 0, 2-cube = 1, ...)
4-5      2     cube owner: 0 or 1 for that player, 3 (binary 11) for centred
6        1     the player on roll, or who has rolled (gnubg's ``fMove``)
7        1     1 if this game is the Crawford game
8-10     3     game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
11       1     the player who must act now (``fTurn``): differs from bit 6
                while a double or a resignation awaits an answer
12       1     1 if a double is being offered
13-14    2     resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15-17    3     die 1 (0 if the dice are not rolled)
18-20    3     die 2
21-35    15    match length (0 for money play)
36-50    15    score of player 0
51-65    15    score of player 1
66       1     0 if the Jacoby rule is in use, 1 if not
=======  ====  ==============================================================

The manual documents bits 0-65; gnubg 1.07 also writes bit 66 (stored inverted, so that IDs
from before it existed read as "Jacoby on"), and it writes the higher die first. The last 5
bits of the 9th byte are always 0.

Players are gnubg's 0 and 1. In gnubg's own display player 0 sits at the top and player 1
(usually the human) at the bottom; the ID itself only knows the numbers.

>>> from backgammon.matchid import MatchState
>>> state = MatchState.from_match_id("QYkqASAAIAAA")  # the example in gnubg's manual
>>> state.cube_value, state.cube_owner, state.player_on_roll, state.dice
(2, 0, 1, (5, 2))
>>> state.match_length, state.score
(9, (2, 4))
>>> state.to_match_id()
'QYkqASAAIAAA'
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, replace
from enum import IntEnum

from .errors import BackgammonError, InvalidIdError

__all__ = ["MAX_CUBE", "MAX_SCORE", "GameState", "MatchState", "Resignation"]

#: The largest cube a Match ID can hold (4 bits of log2).
MAX_CUBE = 1 << 15
#: The largest match length or score a Match ID can hold (15 bits).
MAX_SCORE = (1 << 15) - 1

_MATCH_ID_RE = re.compile(r"[A-Za-z0-9+/]{12}")


def check_dice(dice: object) -> tuple[int, int]:
    """``dice`` as a tuple when it is two numbers from 1 to 6 (a tuple or a list), in the
    order given; else a :class:`~backgammon.errors.BackgammonError`.

    >>> check_dice([3, 5])
    (3, 5)
    """
    values = tuple(dice) if isinstance(dice, (tuple, list)) else ()
    if len(values) != 2 or not all(
        isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in values
    ):
        raise BackgammonError(f"dice {dice!r} are not two numbers from 1 to 6")
    return (values[0], values[1])


def check_length_and_score(length: object, score: object) -> tuple[int, int]:
    """The score as a tuple when ``length`` is a match length (0 for money play) up to
    :data:`MAX_SCORE` and ``score`` two scores within it; else a
    :class:`~backgammon.errors.BackgammonError`."""
    if not isinstance(length, int) or isinstance(length, bool) or not 0 <= length <= MAX_SCORE:
        raise BackgammonError(f"match length {length!r} is not from 0 to {MAX_SCORE}")
    values = tuple(score) if isinstance(score, (tuple, list)) else ()
    if len(values) != 2 or not all(
        isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_SCORE for s in values
    ):
        raise BackgammonError(f"score {score!r} is not two numbers from 0 to {MAX_SCORE}")
    if length and max(values) > length:
        raise BackgammonError(f"score {values!r} is beyond the match length {length}")
    return (values[0], values[1])
_CENTRED = 3
_KEY_BITS = 67


class GameState(IntEnum):
    """Bits 8-10 of the match key."""

    NO_GAME = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


class Resignation(IntEnum):
    """Bits 13-14 of the match key: what a pending resignation offers."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True)
class MatchState:
    """Everything a Match ID says, as a value object.

    ``cube_value`` is the real value (1, 2, 4 ...), ``cube_owner`` is 0, 1 or ``None`` for a
    centred cube. ``player_on_roll`` is the player who is to roll or has rolled; ``turn`` is
    the player who must act now (the other one while ``double_offered`` or a resignation is
    pending). ``dice`` is ``None`` before the roll and is kept highest die first, as gnubg
    writes it. ``score`` is (player 0, player 1); ``match_length`` 0 means money play.
    ``jacoby`` is bit 66 (read inverted), true for IDs that predate it.

    Construction checks each field against what the ID can hold and raises
    :class:`~backgammon.errors.BackgammonError` otherwise:

    >>> MatchState(match_length=5, score=(4, 2), crawford=True).to_match_id()
    'sAGgAEAAEAAA'
    >>> MatchState(dice=(2, 5)).dice
    (5, 2)
    >>> MatchState(cube_value=3)
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: cube value 3 is not a power of 2 (1, 2, 4 ...)
    """

    cube_value: int = 1
    cube_owner: int | None = None
    player_on_roll: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    double_offered: bool = False
    resignation: int = Resignation.NONE
    dice: tuple[int, int] | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True

    def __post_init__(self) -> None:
        cube = self.cube_value
        if (
            not isinstance(cube, int)
            or isinstance(cube, bool)
            or cube < 1
            or cube & (cube - 1)
        ):
            raise BackgammonError(f"cube value {cube!r} is not a power of 2 (1, 2, 4 ...)")
        if self.cube_owner not in (None, 0, 1):
            raise BackgammonError(f"cube owner {self.cube_owner!r} is not 0, 1 or None")
        for name in ("player_on_roll", "turn"):
            value = getattr(self, name)
            if value not in (0, 1) or isinstance(value, bool):
                raise BackgammonError(f"{name} {value!r} is not 0 or 1")
            object.__setattr__(self, name, int(value))
        try:
            object.__setattr__(self, "game_state", GameState(self.game_state))
        except ValueError:
            raise BackgammonError(f"game state {self.game_state!r} is not 0 to 4") from None
        try:
            object.__setattr__(self, "resignation", Resignation(self.resignation))
        except ValueError:
            raise BackgammonError(f"resignation {self.resignation!r} is not 0 to 3") from None
        for name in ("crawford", "double_offered", "jacoby"):
            object.__setattr__(self, name, bool(getattr(self, name)))
        if self.dice is not None:
            high, low = sorted(check_dice(self.dice), reverse=True)
            object.__setattr__(self, "dice", (high, low))
        object.__setattr__(self, "score", check_length_and_score(self.match_length, self.score))
        if self.crawford and not self.match_length:
            raise BackgammonError("a money game cannot be the Crawford game")

    @property
    def is_money(self) -> bool:
        """True for money play (match length 0).

        >>> MatchState().is_money
        True
        """
        return self.match_length == 0

    def swap_players(self) -> MatchState:
        """The same state with players 0 and 1 exchanged (what gnubg's ``swap players`` does).

        >>> MatchState(player_on_roll=1, turn=1, cube_owner=0, match_length=7,
        ...            score=(2, 5)).swap_players()  # doctest: +NORMALIZE_WHITESPACE
        MatchState(cube_value=1, cube_owner=1, player_on_roll=0, crawford=False,
                   game_state=<GameState.PLAYING: 1>, turn=0, double_offered=False,
                   resignation=<Resignation.NONE: 0>, dice=None, match_length=7, score=(5, 2),
                   jacoby=True)
        """
        return replace(
            self,
            cube_owner=None if self.cube_owner is None else 1 - self.cube_owner,
            player_on_roll=1 - self.player_on_roll,
            turn=1 - self.turn,
            score=(self.score[1], self.score[0]),
        )

    def to_match_id(self) -> str:
        """The 12-character Match ID of this state.

        >>> MatchState(player_on_roll=1, turn=1, dice=(6, 1)).to_match_id()
        'cAkHAAAAAAAA'

        A cube past :data:`MAX_CUBE` (possible without a cube limit, R26) has no Match ID:

        >>> MatchState(cube_value=1 << 16).to_match_id()
        Traceback (most recent call last):
        ...
        backgammon.errors.BackgammonError: cube 65536: a Match ID holds cubes up to 32768
        """
        if self.cube_value > MAX_CUBE:
            raise BackgammonError(
                f"cube {self.cube_value}: a Match ID holds cubes up to {MAX_CUBE}")
        fields = (
            (self.cube_value.bit_length() - 1, 4),
            (_CENTRED if self.cube_owner is None else self.cube_owner, 2),
            (self.player_on_roll, 1),
            (int(self.crawford), 1),
            (int(self.game_state), 3),
            (self.turn, 1),
            (int(self.double_offered), 1),
            (int(self.resignation), 2),
            (self.dice[0] if self.dice else 0, 3),
            (self.dice[1] if self.dice else 0, 3),
            (self.match_length, 15),
            (self.score[0], 15),
            (self.score[1], 15),
            (int(not self.jacoby), 1),
        )
        key = 0
        shift = 0
        for value, width in fields:
            key |= value << shift
            shift += width
        return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")

    @classmethod
    def from_match_id(cls, match_id: str) -> MatchState:
        """Decode a Match ID; raises :class:`~backgammon.errors.InvalidIdError` if it is not one.

        Every ID this accepts encodes back to itself, except that dice written lower die
        first (as gnubg did before 1.0) come back higher die first.

        >>> MatchState.from_match_id("cAkHAAAAAAAA").dice
        (6, 1)
        >>> MatchState.from_match_id("cAkHAAAAAA")
        Traceback (most recent call last):
        ...
        backgammon.errors.InvalidIdError: invalid Match ID 'cAkHAAAAAA': it must be 12 base64 characters
        """
        if not isinstance(match_id, str) or not _MATCH_ID_RE.fullmatch(match_id):
            raise InvalidIdError(f"invalid Match ID {match_id!r}: it must be 12 base64 characters")
        try:
            raw = base64.b64decode(match_id, validate=True)
        except (binascii.Error, ValueError):  # pragma: no cover - the pattern rules this out
            raise InvalidIdError(f"invalid Match ID {match_id!r}: not base64") from None
        key = int.from_bytes(raw, "little")
        if key >> _KEY_BITS:
            raise InvalidIdError(f"invalid Match ID {match_id!r}: bits past bit 66 are set")

        pos = 0

        def take(width: int) -> int:
            nonlocal pos
            value = (key >> pos) & ((1 << width) - 1)
            pos += width
            return value

        cube_log, owner, on_roll, crawford, state = take(4), take(2), take(1), take(1), take(3)
        turn, doubled, resign, die1, die2 = take(1), take(1), take(2), take(3), take(3)
        length, score0, score1, no_jacoby = take(15), take(15), take(15), take(1)

        if owner == 2:
            raise InvalidIdError(f"invalid Match ID {match_id!r}: cube owner bits are 10")
        if state > GameState.DROPPED:
            raise InvalidIdError(f"invalid Match ID {match_id!r}: game state {state} is not 0 to 4")
        if (die1 == 0) != (die2 == 0) or die1 > 6 or die2 > 6:
            raise InvalidIdError(f"invalid Match ID {match_id!r}: dice {die1}{die2} are not a roll")
        try:
            return cls(
                cube_value=1 << cube_log,
                cube_owner=None if owner == _CENTRED else owner,
                player_on_roll=on_roll,
                crawford=bool(crawford),
                game_state=GameState(state),
                turn=turn,
                double_offered=bool(doubled),
                resignation=Resignation(resign),
                dice=(die1, die2) if die1 else None,
                match_length=length,
                score=(score0, score1),
                jacoby=not no_jacoby,
            )
        except BackgammonError as exc:
            raise InvalidIdError(f"invalid Match ID {match_id!r}: {exc}") from None
