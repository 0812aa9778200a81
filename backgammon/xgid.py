"""eXtreme Gammon's XGID: a whole position, cube and score on one line.

An XGID is ``XGID=`` (optional) and ten fields separated by colons::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10
         position                   | | | |  | | | | |
                                    | | | |  | | | | max cube (log2)
                                    | | | |  | | | match length (0 = money)
                                    | | | |  | | Crawford (match) or Jacoby/beaver (money)
                                    | | | |  | score of the top player
                                    | | | |  score of the bottom player
                                    | | | dice
                                    | | turn: 1 bottom player on roll, -1 top player
                                    | cube position: 1 bottom owns, 0 centred, -1 top owns
                                    cube value (log2)

The 26-character position is drawn from the bottom player's side: character ``i`` (1-24) is
the bottom player's point ``i``, character 25 the bottom player's bar and character 0 the
top player's bar. Upper case letters are the bottom player's checkers, lower case the top
player's, ``A``/``a`` = 1 up to ``O``/``o`` = 15, ``-`` an empty point. So a lower case
letter at character ``i`` sits on the top player's own point ``25 - i``.

The dice field is ``00`` before the roll, two digits once rolled, ``D`` when the player
named by the turn field has doubled and the other must take or pass, ``B`` when the double
was beavered and ``R`` when it was then raccooned. The rules field is 1 for the Crawford
game in a match; in money play it holds 1 for the Jacoby rule plus 2 for beavers.

GNU Backgammon reads XGIDs (``set xgid``) as its player 1 at the bottom and player 0 at the
top; :meth:`XGID.match_state` follows it.

>>> from backgammon.xgid import XGID
>>> x = XGID.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
>>> x.player == x.opponent == (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5) + (0,) * 10 + (2, 0)
True
>>> x.dice, x.match_length, x.turn
((5, 2), 7, 1)
>>> x.match_state().to_match_id()
'cInqAAAAAAAE'
>>> x.to_xgid()
'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from .errors import BackgammonError, InvalidIdError, InvalidPositionError
from .matchid import MAX_SCORE, GameState, MatchState, Resignation, check_dice, check_length_and_score

if TYPE_CHECKING:
    from .position import Position

__all__ = ["XGID", "CubeOffer"]

_MAX_CUBE_LOG = 15
_POSITION_RE = re.compile(r"[-a-oA-O]{26}")
_NUMBER_RE = re.compile(r"0|[1-9][0-9]{0,5}")
_DICE_RE = re.compile(r"[1-6]{2}")


class CubeOffer(Enum):
    """A cube action that awaits an answer (the XGID dice field when it is a letter)."""

    NONE = "00"
    DOUBLE = "D"
    BEAVER = "B"
    RACCOON = "R"


def _side(values: Sequence[int], name: str) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or len(values) != 25:
        raise InvalidPositionError(
            f"{name}={values!r}: each side needs 25 counts (points 1-24 from its own side, then the bar)"
        )
    side = tuple(values)
    if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 15 for c in side):
        raise InvalidPositionError(f"{name}={values!r}: checker counts must be 0-15")
    if sum(side) > 15:
        raise InvalidPositionError(f"{name}={values!r}: {sum(side)} checkers (at most 15)")
    return side


def _power_of_two(value: int, name: str) -> int:
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < 1
        or value > 1 << _MAX_CUBE_LOG
        or value & (value - 1)
    ):
        raise BackgammonError(f"{name} {value!r} is not a power of 2 from 1 to {1 << _MAX_CUBE_LOG}")
    return value


@dataclass(frozen=True)
class XGID:
    """The state an XGID describes.

    ``player`` and ``opponent`` are the checkers of the player named by the turn field (the
    one on roll, or the doubler while a double is offered) and of the other player, each as
    25 counts from its own side in gnubg's layout (index ``i`` is point ``i + 1``, index 24
    the bar), as in :class:`backgammon.Position`.

    The other fields keep the XGID's own top/bottom view, so that every XGID round-trips:
    ``turn`` is 1 when the bottom player is ``player``, -1 when the top player is;
    ``cube_position`` is 1 / 0 / -1 for bottom owns / centred / top owns; ``score`` is
    (bottom, top). ``cube_value`` and ``max_cube`` are real values (1, 2, 4 ...). ``dice``
    is ``None`` before the roll and keeps the XGID's order. ``crawford`` is only for
    matches, ``jacoby`` and ``beaver`` only for money play.

    >>> x = XGID(player=(0,) * 5 + (2,) + (0,) * 19, opponent=(1,) + (0,) * 24,
    ...          cube_value=2, cube_position=-1, turn=-1, dice=(3, 1))
    >>> x.to_xgid()
    'XGID=-A-----------------b------:1:-1:-1:31:0:0:0:0:10'
    >>> XGID.from_xgid(x.to_xgid()) == x
    True
    """

    player: tuple[int, ...]
    opponent: tuple[int, ...]
    turn: int = 1
    cube_value: int = 1
    cube_position: int = 0
    dice: tuple[int, int] | None = None
    cube_offer: CubeOffer = CubeOffer.NONE
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    match_length: int = 0
    max_cube: int = 1 << 10

    def __post_init__(self) -> None:
        player = _side(self.player, "player")
        opponent = _side(self.opponent, "opponent")
        for i in range(24):
            if player[i] and opponent[23 - i]:
                raise InvalidPositionError(
                    f"player={list(player)!r}, opponent={list(opponent)!r}: "
                    f"both colours on the player's point {i + 1}"
                )
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "opponent", opponent)
        if self.turn not in (1, -1) or isinstance(self.turn, bool):
            raise BackgammonError(f"turn {self.turn!r} is not 1 (bottom) or -1 (top)")
        _power_of_two(self.cube_value, "cube value")
        _power_of_two(self.max_cube, "max cube")
        if self.cube_position not in (1, 0, -1) or isinstance(self.cube_position, bool):
            raise BackgammonError(f"cube position {self.cube_position!r} is not 1, 0 or -1")
        try:
            object.__setattr__(self, "cube_offer", CubeOffer(self.cube_offer))
        except ValueError:
            raise BackgammonError(f"cube offer {self.cube_offer!r} is not a CubeOffer") from None
        if self.dice is not None:
            dice = check_dice(self.dice)
            if self.cube_offer is not CubeOffer.NONE:
                raise BackgammonError(f"dice {self.dice!r} rolled while a double is offered")
            object.__setattr__(self, "dice", dice)
        length = self.match_length
        object.__setattr__(self, "score", check_length_and_score(length, self.score))
        for name in ("crawford", "jacoby", "beaver"):
            object.__setattr__(self, name, bool(getattr(self, name)))
        if self.crawford and not length:
            raise BackgammonError("a money game cannot be the Crawford game")
        if (self.jacoby or self.beaver) and length:
            raise BackgammonError("the Jacoby and beaver rules are for money play only")

    # -- views ----------------------------------------------------------------------------

    @property
    def bottom(self) -> tuple[int, ...]:
        """The bottom player's checkers (upper case in the XGID), from its own side."""
        return self.player if self.turn == 1 else self.opponent

    @property
    def top(self) -> tuple[int, ...]:
        """The top player's checkers (lower case in the XGID), from its own side."""
        return self.opponent if self.turn == 1 else self.player

    @property
    def player_score(self) -> int:
        """The score of ``player`` (the side named by the turn field)."""
        return self.score[0] if self.turn == 1 else self.score[1]

    @property
    def opponent_score(self) -> int:
        """The score of ``opponent``."""
        return self.score[1] if self.turn == 1 else self.score[0]

    def position(self) -> Position:
        """The board as a :class:`backgammon.Position`, seen from ``player``.

        >>> XGID.from_xgid("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10").position().position_id()
        '4HPwATDgc/ABMA'
        """
        from .position import Position

        return Position(self.player, self.opponent)

    # -- text -----------------------------------------------------------------------------

    def to_xgid(self) -> str:
        """The XGID text, with the ``XGID=`` prefix.

        >>> start = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5) + (0,) * 10 + (2, 0)
        >>> XGID(start, start, cube_offer=CubeOffer.DOUBLE, match_length=5, score=(3, 4),
        ...      crawford=False).to_xgid()
        'XGID=-b----E-C---eE---c-e----B-:0:0:1:D:3:4:0:5:10'
        """
        chars = ["-"] * 26
        for i, n in enumerate(self.bottom):
            if n:
                chars[i + 1] = chr(ord("A") + n - 1)
        for i, n in enumerate(self.top):
            if n:
                chars[24 - i] = chr(ord("a") + n - 1)
        if self.dice is not None:
            dice = f"{self.dice[0]}{self.dice[1]}"
        else:
            dice = self.cube_offer.value
        if self.match_length:
            rules = int(self.crawford)
        else:
            rules = int(self.jacoby) + 2 * int(self.beaver)
        fields = (
            "".join(chars),
            self.cube_value.bit_length() - 1,
            self.cube_position,
            self.turn,
            dice,
            self.score[0],
            self.score[1],
            rules,
            self.match_length,
            self.max_cube.bit_length() - 1,
        )
        return "XGID=" + ":".join(str(f) for f in fields)

    def __str__(self) -> str:
        return self.to_xgid()

    @classmethod
    def from_xgid(cls, text: str) -> XGID:
        """Decode an XGID, with or without the ``XGID=`` prefix.

        Raises :class:`~backgammon.errors.InvalidIdError` quoting the text if it is not a
        valid XGID. Everything accepted encodes back to the same text (with the prefix).

        >>> XGID.from_xgid("-b----E-C---eE---c-e----B-:0:0:-1:D:2:3:1:5:10").cube_offer
        <CubeOffer.DOUBLE: 'D'>
        >>> XGID.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7")
        Traceback (most recent call last):
        ...
        backgammon.errors.InvalidIdError: invalid XGID 'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7': it needs 10 fields separated by ':', not 9
        """

        def bad(reason: str) -> InvalidIdError:
            return InvalidIdError(f"invalid XGID {text!r}: {reason}")

        if not isinstance(text, str):
            raise bad("not a string")
        body = text.removeprefix("XGID=")
        fields = body.split(":")
        if len(fields) != 10:
            raise bad(f"it needs 10 fields separated by ':', not {len(fields)}")
        pos, cube, cube_pos, turn, dice_text, score0, score1, rules, length, max_cube = fields

        if not _POSITION_RE.fullmatch(pos):
            raise bad("the position needs 26 characters from '-', 'a'-'o', 'A'-'O'")
        if pos[0].isupper():
            raise bad("character 0 is the top player's bar: '-' or lower case only")
        if pos[25].islower():
            raise bad("character 25 is the bottom player's bar: '-' or upper case only")
        bottom = [0] * 25
        top = [0] * 25
        for i, ch in enumerate(pos):
            if ch.isupper():
                bottom[i - 1] = ord(ch) - ord("A") + 1
            elif ch.islower():
                top[24 - i] = ord(ch) - ord("a") + 1

        numbers: dict[str, int] = {}
        for name, value in (
            ("cube value", cube),
            ("bottom score", score0),
            ("top score", score1),
            ("rules", rules),
            ("match length", length),
            ("max cube", max_cube),
        ):
            if not _NUMBER_RE.fullmatch(value):
                raise bad(f"the {name} {value!r} is not a number")
            numbers[name] = int(value)
        for name in ("cube value", "max cube"):
            if numbers[name] > _MAX_CUBE_LOG:
                raise bad(f"the {name} field {numbers[name]} is above {_MAX_CUBE_LOG}")
        if cube_pos not in ("1", "0", "-1"):
            raise bad(f"the cube position {cube_pos!r} is not 1, 0 or -1")
        if turn not in ("1", "-1"):
            raise bad(f"the turn {turn!r} is not 1 or -1")
        offer = CubeOffer.NONE
        dice: tuple[int, int] | None = None
        if dice_text in ("00", "D", "B", "R"):
            offer = CubeOffer(dice_text)
        elif _DICE_RE.fullmatch(dice_text):
            dice = (int(dice_text[0]), int(dice_text[1]))
        else:
            raise bad(f"the dice {dice_text!r} are not 00, D, B, R or two digits 1-6")
        match_length = numbers["match length"]
        rule_bits = numbers["rules"]
        if rule_bits > (1 if match_length else 3):
            raise bad(f"the rules field {rule_bits} is not {'0 or 1' if match_length else '0 to 3'}")

        side = 1 if turn == "1" else -1
        try:
            return cls(
                player=tuple(bottom) if side == 1 else tuple(top),
                opponent=tuple(top) if side == 1 else tuple(bottom),
                turn=side,
                cube_value=1 << numbers["cube value"],
                cube_position=int(cube_pos),
                dice=dice,
                cube_offer=offer,
                score=(numbers["bottom score"], numbers["top score"]),
                crawford=bool(match_length and rule_bits),
                jacoby=bool(not match_length and rule_bits & 1),
                beaver=bool(not match_length and rule_bits & 2),
                match_length=match_length,
                max_cube=1 << numbers["max cube"],
            )
        except BackgammonError as exc:
            raise bad(str(exc)) from None

    # -- gnubg's Match ID -------------------------------------------------------------------

    def match_state(self) -> MatchState:
        """The equivalent gnubg :class:`~backgammon.matchid.MatchState`.

        As GNU Backgammon's ``set xgid`` does: the bottom player is gnubg's player 1 and the
        top player player 0; a ``D`` makes the turn-field player the doubler
        (``player_on_roll``) and the other player the one to act (``turn``). The Match ID
        has no room for ``max_cube`` or the beaver rule, and no beaver or raccoon state: a
        ``B`` or ``R`` offer raises :class:`~backgammon.errors.BackgammonError`.

        >>> x = XGID.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:1:D:2:3:0:7:10")
        >>> m = x.match_state()
        >>> m.player_on_roll, m.turn, m.double_offered, m.cube_owner, m.score
        (1, 0, True, 0, (3, 2))
        """
        if self.cube_offer in (CubeOffer.BEAVER, CubeOffer.RACCOON):
            raise BackgammonError(
                f"{self.to_xgid()!r}: a Match ID cannot express a {self.cube_offer.name.lower()}"
            )
        on_roll = 1 if self.turn == 1 else 0
        doubled = self.cube_offer is CubeOffer.DOUBLE
        return MatchState(
            cube_value=self.cube_value,
            cube_owner={1: 1, 0: None, -1: 0}[self.cube_position],
            player_on_roll=on_roll,
            crawford=self.crawford,
            game_state=GameState.PLAYING,
            turn=1 - on_roll if doubled else on_roll,
            double_offered=doubled,
            resignation=Resignation.NONE,
            dice=self.dice,
            match_length=self.match_length,
            score=(self.score[1], self.score[0]),
            jacoby=self.jacoby,
        )

    @classmethod
    def from_match_state(
        cls,
        state: MatchState,
        player: Sequence[int],
        opponent: Sequence[int],
        *,
        beaver: bool = False,
        max_cube: int = 1 << 10,
    ) -> XGID:
        """The XGID of a gnubg state, the inverse of :meth:`match_state`.

        ``player`` is the board of ``state.player_on_roll`` (gnubg's Position ID is seen
        from that side) and ``opponent`` the other. gnubg's player 1 goes to the bottom.
        Only states in play with no resignation pending have an XGID.

        >>> start = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5) + (0,) * 10 + (2, 0)
        >>> state = MatchState.from_match_id("QYkqASAAIAAA")
        >>> XGID.from_match_state(state, start, start).to_xgid()
        'XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10'
        """
        if state.game_state is not GameState.PLAYING or state.resignation:
            raise BackgammonError(f"{state!r}: only a game in play with no resignation has an XGID")
        if state.double_offered == (state.turn == state.player_on_roll):
            raise BackgammonError(
                f"{state!r}: the player to act must be the other player exactly while a double is offered"
            )
        turn = 1 if state.player_on_roll == 1 else -1
        return cls(
            player=tuple(player),
            opponent=tuple(opponent),
            turn=turn,
            cube_value=state.cube_value,
            cube_position={1: 1, None: 0, 0: -1}[state.cube_owner],
            dice=state.dice,
            cube_offer=CubeOffer.DOUBLE if state.double_offered else CubeOffer.NONE,
            score=(state.score[1], state.score[0]),
            crawford=state.crawford,
            jacoby=state.jacoby and state.is_money,
            beaver=beaver,
            match_length=state.match_length,
            max_cube=max_cube,
        )
