"""The tentative play of a roll (R42): built whole or a checker at a time, undone, confirmed.

A :class:`Tentative` belongs to one roll in one position. It holds the hops made so far (each
entry a whole play typed in notation, or one checker moved by one die) and knows whether they
can still end in a legal play (R8–R20) and whether they already make one. Nothing here
changes the game: the table plays :meth:`Tentative.move` when the mover confirms.

>>> from backgammon.position import Position
>>> t = Tentative(Position.initial(), (3, 1))
>>> t = t.step(8, 3); str(t.move), t.complete, t.remaining
('8/5', False, (1,))
>>> t = t.step(6, 1); str(t.move), t.complete
('8/5 6/5', True)
>>> t.step(24, 1)
Traceback (most recent call last):
...
backgammon.errors.IllegalMoveError: 24/23: no die of 1 is left to play (8/5 6/5 uses the roll)
>>> str(t.undo().move)
'8/5'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from ..errors import BackgammonError, IllegalMoveError, Refusal
from ..move import BAR, OFF, Move, Step
from ..position import LegalMoves, Position

__all__ = ["Tentative"]


def _hop(position: Position, origin: int, die: int) -> Step | None:
    """The hop of one checker from ``origin`` by ``die`` in ``position`` (mover's view), or
    ``None`` when the rules forbid it whatever the rest of the play (R8, R13–R16, R18)."""
    me, opp = position.player, position.opponent
    if not 1 <= origin <= BAR or me[origin - 1] == 0:
        return None
    if origin != BAR and me[BAR - 1]:
        return None  # R13: the bar first
    dst = origin - die
    if dst <= 0:
        if any(me[6:25]):
            return None  # R15: bear off only with every checker home
        if dst < 0 and any(me[origin:6]):
            return None  # R16: a higher die bears off only from the highest point
        return Step(origin, OFF)
    blockers = opp[24 - dst]
    if blockers >= 2:
        return None  # R8: a point held by two or more
    return Step(origin, dst, blockers == 1)


def _after(position: Position, step: Step) -> Position:
    """``position`` (mover's view) after one hop, still from the mover's view."""
    return position.play(Move([step])).swap()


@dataclass(frozen=True)
class Tentative:
    """The tentative play of ``dice`` in ``origin`` (seen from the mover): ``entries`` are
    what was added, in order (a whole play, or one hop with the die it used)."""

    origin: Position
    dice: tuple[int, int]
    entries: tuple[tuple[Move, tuple[int, ...]], ...] = ()

    @classmethod
    def of(cls, legal: LegalMoves, dice: tuple[int, int]) -> Tentative:
        """The empty tentative play of the roll whose legal plays are ``legal`` (already
        generated: they are not generated again)."""
        tentative = cls(legal.origin, dice)
        tentative.__dict__["legal"] = legal  # what the cached property would compute
        return tentative

    @cached_property
    def legal(self) -> LegalMoves:
        """The legal plays of the roll."""
        return self.origin.legal_moves(self.dice)

    @property
    def move(self) -> Move:
        """The hops so far as one play."""
        return Move([s for move, _ in self.entries for s in move.steps])

    @property
    def position(self) -> Position:
        """The board after the hops so far, from the mover's view."""
        return self.origin.play(self.move).swap() if self.entries else self.origin

    @property
    def used(self) -> tuple[int, ...]:
        """The dice the hops so far used."""
        return tuple(d for _, dice in self.entries for d in dice)

    @property
    def remaining(self) -> tuple[int, ...]:
        """The dice not used yet (four for doubles); empty once a whole play was entered."""
        a, b = self.dice
        left = [a] * 4 if a == b else [a, b]
        for d in self.used:
            if d in left:
                left.remove(d)
        if any(not dice for _, dice in self.entries):
            return ()
        return tuple(left)

    @property
    def complete(self) -> bool:
        """True when the hops make a legal play of the roll (R11: as much of it as can be played)."""
        legal = self.legal
        if not len(legal):
            return not self.entries
        return bool(self.entries) and self.index() is not None

    def index(self) -> int | None:
        """The index of the play in :attr:`legal` that the hops make, or ``None``."""
        try:
            return self.legal.find_position(self.origin.play(self.move))
        except BackgammonError:
            return None

    def _finals(self, position: Position, dice: tuple[int, ...]) -> Iterator[Position]:
        """Every position reachable from ``position`` by playing ``dice`` one hop at a time,
        as far as they go (mover's view)."""
        seen: set[tuple[Position, tuple[int, ...]]] = set()
        stack = [(position, dice)]
        while stack:
            pos, left = stack.pop()
            if (pos, left) in seen:
                continue
            seen.add((pos, left))
            moved = False
            for die in set(left):
                rest = list(left)
                rest.remove(die)
                for origin in range(1, BAR + 1):
                    hop = _hop(pos, origin, die)
                    if hop is not None:
                        moved = True
                        stack.append((_after(pos, hop), tuple(rest)))
            if not moved:
                yield pos

    def _can_finish(self, position: Position, dice: tuple[int, ...]) -> bool:
        legal = self.legal
        for final in self._finals(position, dice):
            if legal.find_position(final.swap()) is not None:
                return True
        return False

    def refusal(self, origin: int, die: int) -> Refusal | None:
        """Why the checker on ``origin`` may not move by ``die`` now, or ``None``."""
        text = f"{'bar' if origin == BAR else origin}/{max(origin - die, 0) or 'off'}"
        if die not in self.remaining:
            if not self.remaining and self.entries:
                why = f"no die of {die} is left to play ({self.move} uses the roll)"
            else:
                left = "-".join(map(str, self.remaining)) or "none"
                why = f"no die of {die} is left to play (left: {left})"
            return Refusal("step", None, None, f"{text}: {why}")
        position = self.position
        hop = _hop(position, origin, die)
        if hop is None:
            return Refusal("step", None, None, f"{text}: that checker cannot move by {die} here")
        rest = list(self.remaining)
        rest.remove(die)
        if not self._can_finish(_after(position, hop), tuple(rest)):
            return Refusal(
                "step", None, "R11", f"{text}: it cannot start a legal play (the roll must be played in full)"
            )
        return None

    def step(self, origin: int, die: int) -> Tentative:
        """The tentative play with one more hop: the checker on ``origin`` (25 the bar)
        moved by ``die``. :class:`~backgammon.errors.IllegalMoveError` (with a
        :class:`~backgammon.errors.Refusal`) when that cannot be part of a legal play."""
        refusal = self.refusal(origin, die)
        if refusal is not None:
            raise IllegalMoveError(refusal.reason, refusal)
        hop = _hop(self.position, origin, die)
        assert hop is not None
        return self._with(self.entries + ((Move([hop]), (die,)),))

    def whole(self, move: Move) -> Tentative:
        """The tentative play set to ``move``, a legal play of the roll (replacing any hops)."""
        return self._with(((move, ()),))

    def _with(self, entries: tuple[tuple[Move, tuple[int, ...]], ...]) -> Tentative:
        twin = Tentative(self.origin, self.dice, entries)
        twin.__dict__["legal"] = self.legal  # the same roll: its legal plays are known
        return twin

    def undo(self) -> Tentative:
        """The tentative play without its last entry."""
        if not self.entries:
            raise IllegalMoveError(
                "undo: there is no tentative play to take back",
                Refusal("undo", None, "R42", "there is no tentative play to take back"),
            )
        return self._with(self.entries[:-1])

    def destinations(self, origin: int) -> tuple[tuple[int, int], ...]:
        """The (die, destination point) pairs the checker on ``origin`` may move to now,
        for highlighting legal drops (0 is off)."""
        out = []
        for die in sorted(set(self.remaining), reverse=True):
            if self.refusal(origin, die) is None:
                out.append((die, max(origin - die, OFF)))
        return tuple(out)
