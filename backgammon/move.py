"""Plays and their notation.

A :class:`Move` is a whole play (up to four checker steps) as a value object. Its text is
the standard notation in gnubg's style, and it round-trips:

>>> from backgammon.move import Move
>>> str(Move.parse("13/11 24/18"))
'24/18 13/11'
>>> str(Move.parse("bar/22* 13/11"))
'bar/22* 13/11'
>>> str(Move.parse("13/7 13/7"))
'13/7(2)'
>>> Move.parse("6/off").steps
(Step(src=6, dst=0, hit=False),)

A move groups its hops into checker journeys (``24/18 18/13`` is ``24/13``) and keeps an
intermediate point only where the checker hit there (``8/5*/1``). Two moves are equal when
they have the same journeys, in whatever order they were written. A :class:`Move` says nothing about legality: use
:meth:`backgammon.Position.parse_move` to read a player's text against a position and dice.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from typing import NamedTuple

from .errors import InvalidMoveError

__all__ = ["BAR", "OFF", "Move", "Step", "parse_hops"]

#: The bar, as a point number in the mover's numbering.
BAR = 25
#: Borne off, as a destination.
OFF = 0


class Step(NamedTuple):
    """One hop of one checker from ``src`` to ``dst`` (25 = bar, 0 = off).

    ``hit`` is true when the checker hits a blot on ``dst``.
    """

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{_point_text(self.src)}/{_point_text(self.dst)}{'*' if self.hit else ''}"


def _point_text(p: int) -> str:
    if p == BAR:
        return "bar"
    if p == OFF:
        return "off"
    return str(p)


_TOKEN = re.compile(
    r"""^(?P<path>(?:bar|b|off|o|\d{1,2})\*?(?:[/-](?:bar|b|off|o|\d{1,2})\*?)+)
        (?:\((?P<count>[1-4])\))?$""",
    re.VERBOSE,
)
_POINT = re.compile(r"(bar|b|off|o|\d{1,2})(\*?)")


def _point_value(text: str, source: str) -> int:
    if text in ("bar", "b"):
        return BAR
    if text in ("off", "o"):
        return OFF
    value = int(text)
    if value == 25:
        return BAR
    if not 0 <= value <= 24:
        raise InvalidMoveError(f"{source!r}: there is no point {value}")
    return value


def _chains(steps: Iterable[Step]) -> list[tuple[Step, ...]]:
    """Group hops into checker journeys, gnubg's way.

    Hops are sorted from the highest starting point down (ties: the longer hop... i.e. the
    higher destination first); each journey takes the next unused hop that starts where it
    ended. Within a journey, hops are merged across points where nothing was hit, so
    ``24/18 18/13`` becomes ``24/13`` but ``8/5* 5/1`` stays ``8/5*/1`` (and a second
    checker through the same point stays ``8/5/1``: ``13/9*/5*(2)``).
    """
    pool = sorted(steps, key=lambda s: (-s.src, -s.dst, not s.hit))
    # Only the first checker to land on a point can hit there: played highest point first,
    # that is the first hop in this order ("13/9*(2)" is one hit, "6/1* 3/1" too).
    hit_points = {s.dst for s in pool if s.hit}
    stops = set(hit_points)  # journeys keep these points, whoever hit there
    for k, s in enumerate(pool):
        if s.dst in hit_points:
            hit_points.discard(s.dst)
            pool[k] = Step(s.src, s.dst, True)
        elif s.hit:
            pool[k] = Step(s.src, s.dst, False)
    used = [False] * len(pool)
    chains: list[tuple[Step, ...]] = []
    for i, first in enumerate(pool):
        if used[i]:
            continue
        used[i] = True
        chain = [first]
        while chain[-1].dst != OFF:
            end = chain[-1].dst
            for j in range(i + 1, len(pool)):
                if not used[j] and pool[j].src == end:
                    used[j] = True
                    nxt = pool[j]
                    last = chain[-1]
                    if last.dst in stops:
                        chain.append(nxt)
                    else:
                        chain[-1] = Step(last.src, nxt.dst, nxt.hit)
                    break
            else:
                break
        chains.append(tuple(chain))
    return chains


def parse_hops(text: str) -> list[Step]:
    """The hops written in ``text``, as written (no merging); see :meth:`Move.parse`.

    >>> parse_hops("8/5/1")
    [Step(src=8, dst=5, hit=False), Step(src=5, dst=1, hit=False)]
    """
    source = text
    cleaned = text.strip().lower().replace(",", " ")
    if cleaned in ("", "pass", "-", "cannot move", "no move"):
        return []
    steps: list[Step] = []
    for token in cleaned.split():
        m = _TOKEN.match(token)
        if m is None:
            raise InvalidMoveError(
                f"{source!r}: {token!r} is not a checker move like 24/18, bar/22*, 6/off or 13/7(2)"
            )
        points = [(_point_value(p, source), star == "*") for p, star in _POINT.findall(m["path"])]
        if points[0][1]:
            raise InvalidMoveError(f"{source!r}: {token!r} marks a hit on its starting point")
        hops = []
        for (src, _), (dst, hit) in zip(points, points[1:]):
            if src == OFF or dst == BAR:
                raise InvalidMoveError(f"{source!r}: {token!r} moves from off or onto the bar")
            if dst >= src:
                raise InvalidMoveError(f"{source!r}: {token!r} moves backwards")
            if hit and dst == OFF:
                raise InvalidMoveError(f"{source!r}: {token!r} hits off the board")
            hops.append(Step(src, dst, hit))
        steps.extend(hops * int(m["count"] or 1))
    if len(steps) > 16:
        raise InvalidMoveError(f"{source!r}: too many checker moves for one play")
    return steps


class _ByKey:
    """Value semantics of an immutable object: equal when of the same kind with equal
    ``_key``, hashed by ``_hash`` (the key's hash, computed once)."""

    __slots__ = ()

    _key: Hashable
    _hash: int

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return self._hash


class Move(_ByKey):
    """A play: the hops of its checkers, in canonical order. Immutable and hashable.

    >>> Move.parse("24/18*/13") == Move([Step(24, 18, True), Step(18, 13)])
    True
    >>> Move.parse("24/20 20/16") == Move.parse("24/16")
    True
    """

    __slots__ = ("_chains", "_hash", "_key", "_steps")

    def __init__(self, steps: Iterable[Step | tuple[int, int] | tuple[int, int, bool]] = ()) -> None:
        raw: list[Step] = []
        for s in steps:
            step = s if isinstance(s, Step) else Step(*s)
            if not (1 <= step.src <= BAR and OFF <= step.dst < step.src and step.dst != BAR):
                raise InvalidMoveError(f"{str(step)!r}: a checker moves forward from a point or the bar")
            if step.hit and step.dst == OFF:
                raise InvalidMoveError(f"{str(step)!r}: nothing can be hit off the board")
            raw.append(Step(step.src, step.dst, bool(step.hit)))
        self._chains = _chains(raw)
        self._steps = tuple(s for chain in self._chains for s in chain)
        self._key = tuple(sorted(self._chains))
        self._hash = hash(self._key)

    @property
    def steps(self) -> tuple[Step, ...]:
        """The hops, journey by journey, in display order."""
        return self._steps

    @property
    def pips(self) -> int:
        """Pips moved, counting a checker borne off as moving to point 0."""
        return sum(s.src - s.dst for s in self._steps)

    def is_pass(self) -> bool:
        """True for the empty play (no legal move)."""
        return not self._steps

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read standard notation: ``24/18 13/11``, ``bar/22*``, ``8/5*/1``, ``13/7(2)``.

        Accepts ``bar``/``b``/``25`` for the bar, ``off``/``o``/``0`` for off, ``-`` as
        well as ``/``, commas between parts, any case and order. An empty text (or
        ``pass``) is the empty play.

        >>> str(Move.parse("24-20(2), 13-9(2)"))
        '24/20(2) 13/9(2)'
        """
        return cls(parse_hops(text))

    def __str__(self) -> str:
        chains = [
            _point_text(c[0].src) + "".join(f"/{_point_text(s.dst)}{'*' if s.hit else ''}" for s in c)
            for c in self._chains
        ]
        # checkers making the same journey are counted, "13/9*(2)": the first one hit
        routes = [tuple((s.src, s.dst) for s in c) for c in self._chains]
        out: list[str] = []
        i = 0
        while i < len(chains):
            j = i
            while j + 1 < len(chains) and routes[j + 1] == routes[i]:
                j += 1
            out.append(chains[i] if j == i else f"{chains[i]}({j - i + 1})")
            i = j + 1
        return " ".join(out)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def __len__(self) -> int:
        return len(self._steps)
