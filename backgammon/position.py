"""Positions: the board seen from the player on roll, gnubg Position IDs, legal plays.

>>> from backgammon import Position
>>> p = Position.initial()
>>> p.position_id()
'4HPwATDgc/ABMA'
>>> p.pip_count()
(167, 167)
>>> moves = p.legal_moves((3, 1))
>>> len(moves)
16
>>> p.parse_move("8/5 6/5", (3, 1)) in moves
True
>>> after = p.play(p.parse_move("8/5 6/5", (3, 1)))
>>> after.swap().pip_count()
(163, 167)
"""

from __future__ import annotations

import base64
import binascii
import operator
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

from .errors import AmbiguousMoveError, IllegalMoveError, InvalidIdError, InvalidPositionError, Refusal
from .move import BAR, OFF, Move, Step, _ByKey, parse_hops

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Dice", "LegalMoves", "Position"]

Dice = tuple[int, int]

_INITIAL = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


#: the pips of a checker on each of a side's 25 slots (points 1-24, the bar 25)
_WEIGHTS = tuple(range(1, 26))

class Position(_ByKey):
    """A backgammon position seen from the player on roll. Immutable and hashable.

    ``player`` and ``opponent`` are 25 checker counts each, from that side's own point of
    view: index ``i`` is point ``i + 1``, index 24 the bar (gnubg's layout). The player on
    roll moves from 24 down to 1 and bears off; the opponent's point ``q`` is the player's
    point ``25 - q``.
    """

    __slots__ = ("_hash", "_key")

    _key: bytes

    def __init__(self, player: Sequence[int], opponent: Sequence[int]) -> None:
        if len(player) != 25 or len(opponent) != 25:
            raise InvalidPositionError(
                f"player={list(player)!r}, opponent={list(opponent)!r}: each side needs 25 counts "
                "(points 1-24 from its own side, then the bar)"
            )
        key = bytes(int(c) & 0xFF if 0 <= int(c) <= 15 else 0xFF for c in (*player, *opponent))
        self._key = key
        self._validate(repr((list(player), list(opponent))))
        self._hash = hash(key)

    @classmethod
    def _from_key(cls, key: bytes) -> Position:
        """Build from a trusted 50-byte key (no validation)."""
        self = object.__new__(cls)
        self._key = key
        self._hash = hash(key)
        return self

    def _validate(self, source: str) -> None:
        key = self._key
        if any(c > 15 for c in key):
            raise InvalidPositionError(f"{source}: checker counts must be 0-15")
        for side, name in ((key[:25], "player on roll"), (key[25:], "opponent")):
            if sum(side) > 15:
                raise InvalidPositionError(f"{source}: the {name} has {sum(side)} checkers (at most 15)")
        for p in range(1, 25):
            if key[p - 1] and key[25 + 24 - p]:
                raise InvalidPositionError(f"{source}: both colours on the player's point {p}")

    # -- construction -------------------------------------------------------------------

    @classmethod
    def initial(cls) -> Position:
        """The starting position (R2)."""
        return cls._from_key(bytes(_INITIAL * 2))

    @classmethod
    def from_position_id(cls, position_id: str) -> Position:
        """Decode gnubg's 14-character Position ID (seen from the player on roll).

        >>> Position.from_position_id("4HPwATDgc/ABMA") == Position.initial()
        True
        """
        text = position_id.strip()
        if text.lower().startswith("position id:"):
            text = text[12:].strip()
        if len(text) != 14:
            raise InvalidIdError(f"{position_id!r}: a Position ID has 14 characters")
        try:
            raw = base64.b64decode(text + "==", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InvalidIdError(f"{position_id!r}: not base64 ({exc})") from None
        bits = int.from_bytes(raw, "little")
        counts: list[int] = []
        run = 0
        for i in range(80):
            if bits >> i & 1:
                run += 1
                if run > 15:
                    raise InvalidIdError(f"{position_id!r}: more than 15 checkers on one point")
            else:
                counts.append(run)
                run = 0
                if len(counts) == 50:
                    break
        if len(counts) < 50 or bits >> (i + 1):
            raise InvalidIdError(f"{position_id!r}: more than 15 checkers for a side")
        opponent, player = counts[:25], counts[25:]
        try:
            return cls(player, opponent)
        except InvalidPositionError as exc:
            raise InvalidIdError(f"{position_id!r}: {exc}") from None

    def position_id(self) -> str:
        """gnubg's Position ID: the opponent's slots then the player's, as unary runs.

        >>> Position.initial().position_id()
        '4HPwATDgc/ABMA'
        """
        bits = 0
        n = 0
        key = self._key
        for c in (*key[25:], *key[:25]):
            bits |= ((1 << c) - 1) << n
            n += c + 1
        return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii")[:14]

    # -- value semantics ----------------------------------------------------------------

    def __repr__(self) -> str:
        return f"Position.from_position_id({self.position_id()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Position.from_position_id, (self.position_id(),))

    # -- reading ------------------------------------------------------------------------

    @property
    def player(self) -> tuple[int, ...]:
        """The player on roll's 25 counts (points 1–24 from their side, then the bar)."""
        return tuple(self._key[:25])

    @property
    def opponent(self) -> tuple[int, ...]:
        """The opponent's 25 counts, from the opponent's own side."""
        return tuple(self._key[25:])

    def bar(self) -> tuple[int, int]:
        """Checkers on the bar: (player on roll, opponent)."""
        return self._key[24], self._key[49]

    def borne_off(self) -> tuple[int, int]:
        """Checkers borne off: (player on roll, opponent)."""
        return 15 - sum(self._key[:25]), 15 - sum(self._key[25:])

    def pip_count(self) -> tuple[int, int]:
        """Pips to bear off everything: (player on roll, opponent). The bar counts 25."""
        key = self._key
        return sum(map(operator.mul, key[:25], _WEIGHTS)), sum(map(operator.mul, key[25:50], _WEIGHTS))

    def is_race(self) -> bool:
        """True when contact is broken: no checker of one side can meet one of the other.

        >>> Position.initial().is_race()
        False
        """
        key = self._key
        if key[24] or key[49]:
            return False
        # player's rearmost checker (highest point) vs opponent's rearmost, on player's numbers
        back = max((p for p in range(1, 25) if key[p - 1]), default=0)
        opp_back = min((25 - q for q in range(1, 25) if key[24 + q]), default=25)
        return back < opp_back

    def is_game_over(self) -> bool:
        """True when either side has borne off all 15 checkers (R21)."""
        return 15 in self.borne_off()

    def swap(self) -> Position:
        """The same position seen by the other player."""
        return Position._from_key(self._key[25:] + self._key[:25])

    def __str__(self) -> str:
        """A text diagram from the player on roll's side: X on roll moves 24 → 1 (bottom right)."""
        key = self._key
        cells: dict[int, str] = {}
        for p in range(1, 25):
            mine, theirs = key[p - 1], key[24 + 25 - p]
            cells[p] = f"X{mine}" if mine else (f"O{theirs}" if theirs else " .")
        top = list(range(13, 25))
        bottom = list(range(12, 0, -1))

        def row(points: list[int]) -> str:
            left = " ".join(f"{cells[p]:>3}" for p in points[:6])
            right = " ".join(f"{cells[p]:>3}" for p in points[6:])
            return f"|{left} |BAR|{right} |"

        def labels(points: list[int]) -> str:
            left = " ".join(f"{p:>3}" for p in points[:6])
            right = " ".join(f"{p:>3}" for p in points[6:])
            return f" {left}       {right}"

        pips = self.pip_count()
        off = self.borne_off()
        lines = [
            labels(top),
            row(top) + f"  O: bar {key[49]}, off {off[1]}, pips {pips[1]}",
            row(bottom) + f"  X: bar {key[24]}, off {off[0]}, pips {pips[0]} (on roll)",
            labels(bottom),
            f"Position ID: {self.position_id()}",
        ]
        return "\n".join(lines)

    # -- plays --------------------------------------------------------------------------

    def legal_moves(self, dice: Dice) -> LegalMoves:
        """Every legal play of ``dice``, one per distinct resulting position (R3, R8–R20).

        An empty sequence when no checker can move (the turn is lost, R11).
        """
        if dice.__class__ is tuple and len(dice) == 2:  # the common case, checked fast
            d1, d2 = dice
            if not (d1.__class__ is int and d2.__class__ is int and 0 < d1 < 7 and 0 < d2 < 7):
                d1, d2 = dice = _check_dice(dice, self)
        else:
            d1, d2 = dice = _check_dice(dice, self)
        try:  # _generate, inlined: this is the hot path of every bot and of the benchmark
            kernel, buf, flat = _local.state
        except AttributeError:
            kernel, buf, flat = _state()
        n = kernel(self._key, d1, d2, buf)
        return LegalMoves(self, dice, flat[: n * _ROW].tobytes())

    def play(self, move: Move) -> Position:
        """The position after ``move``, seen by the opponent (who is on roll next).

        The move's hops are applied in order; a checker landing on a blot hits it. Raises
        :class:`IllegalMoveError` when a hop is impossible here (no checker to move, a
        blocked point, bearing off with checkers outside, moving while on the bar). Dice
        are not checked: use :meth:`legal_moves` or :meth:`parse_move` for that.
        """
        me = list(self._key[:25])
        opp = list(self._key[25:])
        # Moves first, highest point first (the bar first, R13), then bearing off (R16).
        hops = sorted(move.steps, key=lambda s: (s.dst == OFF, -s.src))
        for step in hops:
            src, dst = step.src, step.dst
            if me[src - 1] == 0:
                where = "the bar" if src == BAR else src
                raise IllegalMoveError(
                    f"{str(move)!r}: no checker on {where} in {self.position_id()}",
                    _refused(None, f"{move} moves a checker from {where}, where there is none"),
                )
            if me[24] and src != BAR:
                raise IllegalMoveError(
                    f"{str(move)!r}: enter from the bar first (R13) in {self.position_id()}",
                    _refused("R13", f"{move} moves a checker while one is on the bar: enter from the bar first"),
                )
            me[src - 1] -= 1
            if dst == OFF:
                continue
            theirs = opp[24 - dst]
            if theirs >= 2:
                me[src - 1] += 1
                raise IllegalMoveError(
                    f"{str(move)!r}: point {dst} is blocked (R3) in {self.position_id()}",
                    _refused("R3", f"{move} lands on point {dst}, which is blocked"),
                )
            me[dst - 1] += 1
            if theirs == 1:
                opp[24 - dst] = 0
                opp[24] += 1
        if any(s.dst == OFF for s in hops) and any(me[6:25]):
            raise IllegalMoveError(
                f"{str(move)!r}: bearing off with checkers outside the home board (R16) in {self.position_id()}",
                _refused("R16", f"{move} bears off with checkers outside the home board"),
            )
        return Position._from_key(bytes(opp) + bytes(me))

    def parse_move(self, text: str, dice: Dice) -> Move:
        """Read a player's text against the legal plays of ``dice``; return the legal Move.

        Accepts hops in any order, one checker's hops written separately or joined
        (``24/20`` for 2-2), and omitted ``*``. Raises :class:`InvalidMoveError` for bad
        syntax, :class:`IllegalMoveError` when no legal play fits, and
        :class:`AmbiguousMoveError` when plays with different results fit.

        >>> Position.initial().parse_move("13/11 24/18", (6, 2))
        Move.parse('24/18 13/11')
        """
        d1, d2 = _check_dice(dice, self)
        legal = _generate(self, d1, d2)
        hops = parse_hops(text)
        wanted = Move(hops)
        if not legal:
            if wanted.is_pass():
                return wanted
            raise IllegalMoveError(
                f"{text!r}: no legal play with {d1}-{d2} in {self.position_id()}; the turn passes",
                _refused("R11", f"with {d1}-{d2} no play is possible: the turn passes with the empty play"),
            )
        if wanted.is_pass():
            raise IllegalMoveError(
                f"{text!r}: a play is required with {d1}-{d2} in {self.position_id()}"
                f" (for example {legal[0]!s})",
                _refused("R11", f"with {d1}-{d2} a play is required: {legal[0]} for example"),
            )
        # Where do the checkers go? (intermediate stops cancel out)
        me = list(self._key[:25]) + [15 - sum(self._key[:25])]  # index 25 = borne off
        for s in wanted.steps:
            me[s.src - 1] -= 1
            me[(s.dst - 1) if s.dst else 25] += 1
        if min(me) < 0:
            raise IllegalMoveError(
                f"{text!r}: moves checkers that are not there in {self.position_id()}",
                _refused(None, f"{text} moves checkers that are not there"),
            )
        target = bytes(me[:25])
        opp = self._key[25:]
        blots = {25 - q for q in range(1, 25) if opp[q - 1] == 1}
        implied = {s.dst for s in hops if s.dst in blots or s.hit}
        if any(p not in blots for p in implied):
            raise IllegalMoveError(
                f"{text!r}: marks a hit where there is no blot in {self.position_id()}",
                _refused("R10", f"{text} marks a hit where there is no blot"),
            )
        candidates = [i for i in range(len(legal)) if legal.mover_after(i) == target]
        exact = [i for i in candidates if legal.hits(i) == implied]
        if len(exact) == 1:
            return legal[exact[0]]
        loose = [i for i in candidates if legal.hits(i) >= implied]
        if len(loose) == 1:
            return legal[loose[0]]
        if not loose:
            sample = ", ".join(str(m) for m in list(legal)[:6])
            more = "" if len(legal) <= 6 else f" ... ({len(legal)} in all)"
            raise IllegalMoveError(
                f"{text!r}: not a legal play of {d1}-{d2} in {self.position_id()}; legal: {sample}{more}",
                _refused(None, f"{text} is not a legal play of {d1}-{d2} here"),
            )
        options = " or ".join(str(legal[i]) for i in loose)
        raise AmbiguousMoveError(
            f"{text!r}: could mean {options} in {self.position_id()}; say which",
            _refused(None, f"{text} could mean {options}: say which"),
        )


def _refused(rule: str | None, reason: str) -> Refusal:
    """Why a play is refused, as data (the player is filled in by the game)."""
    return Refusal("play", None, rule, reason)


def _check_dice(dice: Any, pos: Position) -> Dice:
    try:
        d1, d2 = (int(d) for d in dice)
    except (TypeError, ValueError):
        raise IllegalMoveError(
            f"{dice!r}: dice are two numbers 1-6 (position {pos.position_id()})", _refused(None, "dice are two numbers 1-6")
        ) from None
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise IllegalMoveError(
            f"{dice!r}: dice are two numbers 1-6 (position {pos.position_id()})", _refused(None, "dice are two numbers 1-6")
        )
    return d1, d2


class LegalMoves(Sequence[Move]):
    """The legal plays of one roll, as an immutable sequence of :class:`Move`.

    Backed by the bytes the compiled generator wrote (one row of ``_ROW`` bytes a play:
    the resulting key, then the steps): ``len()`` costs nothing, and each :class:`Move`,
    the :attr:`boards` array and the resulting positions are built when first read.
    :meth:`position` gives the resulting position of a play without replaying it, and
    :attr:`boards` all of them as a ``uint8[n, 50]`` array (each row the resulting
    position's key, from the opponent's view) for batch evaluation.

    >>> legal = Position.initial().legal_moves((6, 5))
    >>> len(legal), str(legal[0]), legal.boards.shape
    (7, '24/13', (7, 50))
    """

    __slots__ = ("_boards", "_cache", "_data", "_dice", "_origin", "_texts")

    def __init__(self, origin: Position, dice: Dice, data: bytes) -> None:
        self._origin = origin
        self._dice = dice
        self._data = data
        self._boards: np.ndarray | None = None
        self._cache: list[Move | None] | None = None
        self._texts: tuple[str, ...] | None = None

    @property
    def origin(self) -> Position:
        """The position the plays start from."""
        return self._origin

    @property
    def dice(self) -> Dice:
        """The roll."""
        return self._dice

    @property
    def boards(self) -> np.ndarray:
        """Resulting positions as ``uint8[n, 50]`` keys (opponent's slots first)."""
        if self._boards is None:
            import numpy as np

            rows = np.frombuffer(self._data, np.uint8).reshape(-1, _ROW)
            self._boards = rows[:, :50].copy()
        return self._boards

    @property
    def _steps(self) -> np.ndarray:
        """The generator's steps as ``int8[n, 12]``: ``(from, to, hit)`` four times, -1 unused."""
        import numpy as np

        rows = np.frombuffer(self._data, np.int8).reshape(-1, _ROW)
        return rows[:, 50:62].copy()

    def texts(self) -> tuple[str, ...]:
        """Every play in standard notation, in order (computed once: views ask often).

        >>> Position.initial().legal_moves((2, 1)).texts()[:3]
        ('24/23 24/22', '24/21', '24/22 8/7')
        """
        if self._texts is None:
            self._texts = tuple(str(m) for m in self)
        return self._texts

    def __len__(self) -> int:
        return len(self._data) // _ROW

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> list[Move]: ...

    def __getitem__(self, index: int | slice) -> Move | list[Move]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = self._row(index)
        cache = self._cache
        if cache is None:
            cache = self._cache = [None] * len(self)
        move = cache[i]
        if move is None:
            data = self._data
            at = i * _ROW + 50
            move = Move(
                Step(data[k], data[k + 1], bool(data[k + 2])) for k in range(at, at + 12, 3) if data[k] != _NONE
            )
            cache[i] = move
        return move

    def __iter__(self) -> Iterator[Move]:
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LegalMoves({[str(m) for m in self]!r})"

    def _row(self, index: int) -> int:
        """``index`` as a row number (negative counts from the end); IndexError outside."""
        n = len(self._data) // _ROW
        i = operator.index(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"play {index} of {n} (dice {self._dice[0]}-{self._dice[1]})")
        return i

    def position(self, index: int) -> Position:
        """The position after play ``index``, seen by the opponent (as :meth:`Position.play`)."""
        at = self._row(index) * _ROW
        return Position._from_key(self._data[at : at + 50])

    def positions(self) -> list[Position]:
        """The resulting positions of all plays, in order."""
        data = self._data
        return [Position._from_key(data[at : at + 50]) for at in range(0, len(data), _ROW)]

    def find_position(self, position: Position) -> int | None:
        """The index of the play that leads to ``position`` (as :meth:`position` gives it), or None."""
        data = self._data
        key = position._key
        for i, at in enumerate(range(0, len(data), _ROW)):
            if data[at : at + 50] == key:
                return i
        return None

    def mover_after(self, index: int) -> bytes:
        """The mover's 25 slots after play ``index``."""
        at = self._row(index) * _ROW
        return self._data[at + 25 : at + 50]

    def hits(self, index: int) -> set[int]:
        """Points (mover's numbering) where play ``index`` hits."""
        data = self._data
        at = self._row(index) * _ROW + 50
        return {data[k + 1] for k in range(at, at + 12, 3) if data[k] != _NONE and data[k + 2]}


#: Bytes a play takes in :class:`LegalMoves`' data (``backgammon._movegen.ROW``), and the
#: step byte of an unused step (the kernel's -1 as an unsigned byte).
_ROW = 64
_NONE = 255


_local = threading.local()


def _state() -> tuple[Any, np.ndarray, memoryview]:
    """This thread's kernel handle and buffer (the kernel runs without the GIL).

    The handle is :func:`backgammon._movegen.api_entry`, which skips numba's dispatch.
    """
    from . import _movegen

    buf = _movegen.scratch_rows()
    _local.state = state = _movegen.api_entry(buf), buf, buf.data
    return state


def _generate(pos: Position, d1: int, d2: int) -> LegalMoves:
    """The legal plays of ``(d1, d2)`` (checked dice) from ``pos``, by the compiled kernel."""
    try:
        kernel, buf, flat = _local.state
    except AttributeError:
        kernel, buf, flat = _state()
    n = kernel(pos._key, d1, d2, buf)
    return LegalMoves(pos, (d1, d2), flat[: n * _ROW].tobytes())
