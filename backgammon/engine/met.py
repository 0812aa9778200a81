"""Match equity tables and match-play cube decisions.

**The tables** (:class:`MatchEquityTable`) give the match winning chances (MWC) at the start
of a game for the player ``a``-away against ``b``-away:

* :data:`KAZAROSS_XG2` (the default, :data:`DEFAULT_MET`): Neil Kazaross's table from XG
  rollouts to 9 points, GNU Backgammon rollouts to 15 and extrapolation to 25
  (:mod:`.kazaross_xg2`, cited there), with its post-Crawford column; beyond 25-away the
  computed model below takes over;
* :data:`COMPUTED`: a table computed here with a simple recursive model in the spirit of
  Zadeh's and Rockwell–Kazaross's methods — every game is even (50% at its start) and
  :data:`GAMMON_RATE` (26%) of the games won are gammons (backgammons ignored);
  **post-Crawford** (:func:`post_crawford`) the trailer doubles at once and the leader
  takes, so each game is worth 2 (gammon 4): ``P(n) = ½·[(1 − g)·P(n − 2) + g·P(n − 4)]``
  with ``P(k ≤ 0) = 1`` and ``P(1) = ½`` (the free drop is ignored); **the Crawford game**
  (no cube): the trailer's chance is ``½·[(1 − g)·P(n − 1) + g·P(n − 2)]``; **before
  Crawford**: the MWC at cube ``c`` as a function of the win chance ``p`` is Janowski's
  piecewise-linear live cube (see :mod:`.cube`) — from ``(0, L)`` through the take point
  ``(TP, pass value)`` and the cash point ``(CP, cash value)`` to ``(1, W)`` — blended with
  the dead-cube line with efficiency :data:`X_MATCH`, the take and cash points found
  recursively up the cube levels. It stays within 2.5% of Kazaross-XG2 up to 15-away
  (``tests/test_cube.py``).

**Decisions** (:func:`match_decision`): with the position's own probabilities, ``W`` and
``L`` (the MWC after a win / loss of each kind, from the table) replace the generic gammon
rate at the root; the dead-cube part is the exact cubeless MWC, the live part uses take and
cash points computed as above on the table's values (Janowski's interpolation with
:data:`X_MATCH`). The Crawford game has no cube, and nobody doubles when the cube already
covers what they need.

>>> mwc(1, 1), mwc(3, 3)
(0.5, 0.5)
>>> mwc(2, 3), mwc(2, 1), mwc(2, 1, post=True)
(0.59947, 0.32264, 0.48803)
>>> round(COMPUTED.mwc(2, 5) + COMPUTED.mwc(5, 2), 12)
1.0
"""

from __future__ import annotations

from functools import cache

from . import kazaross_xg2
from .cube import CubeDecision, CubeOwner
from .probabilities import Probabilities

__all__ = ["COMPUTED", "DEFAULT_MET", "GAMMON_RATE", "KAZAROSS_XG2", "MAX_AWAY",
           "MatchEquityTable", "X_MATCH", "crawford", "match_decision", "met", "met_table",
           "mwc", "post_crawford"]

#: The share of games won that are gammons, in the computed model.
GAMMON_RATE = 0.26
#: Cube efficiency in the computed model and in match decisions.
X_MATCH = 0.68
#: The largest away-score the tables are meant for (they compute beyond, more slowly).
MAX_AWAY = 25

_G = GAMMON_RATE
Points = list[tuple[float, float]]


class MatchEquityTable:
    """A match equity table: :meth:`mwc` for any score (compare by identity).

    ``pre[i][j]``: MWC of ``i + 1``-away against ``j + 1``-away before the Crawford game
    (1-away rows and columns: the Crawford game); ``post[j]``: the trailer's MWC, ``j + 1``
    away against 1-away, after it. Without them (or beyond their size) the computed model
    answers.
    """

    def __init__(self, name: str, pre: tuple[tuple[float, ...], ...] | None = None,
                 post: tuple[float, ...] | None = None) -> None:
        self.name = name
        self.pre = pre
        self.post = post
        self.size = len(pre) if pre is not None else 0
        if pre is not None and (post is None or len(post) != self.size
                                or any(len(r) != self.size for r in pre)):
            raise ValueError(f"{name}: a square pre-Crawford table and a post-Crawford "
                             "column of the same size are needed")

    def __repr__(self) -> str:
        return f"MatchEquityTable({self.name!r})"

    def mwc(self, a: int, b: int, post: bool = False) -> float:
        """MWC at the start of a game (or at the end of the match) for ``a``-away against
        ``b``-away. ``post``: the Crawford game has been played (or is this game) — a score
        with a 1-away side is then post-Crawford, otherwise it is the Crawford game."""
        if (self.pre is None or self.post is None or min(a, b) <= 0 or (a == 1 and b == 1)
                or a > self.size or b > self.size):
            return _model_mwc(a, b, post)
        if a == 1:
            return 1.0 - self.post[b - 1] if post else self.pre[0][b - 1]
        if b == 1:
            return self.post[a - 1] if post else self.pre[a - 1][0]
        return self.pre[a - 1][b - 1]

    def table(self, n: int = MAX_AWAY) -> list[list[float]]:
        """``table[i][j]`` = pre-Crawford :meth:`mwc` ``(i + 1, j + 1)`` for ``1..n``."""
        return [[self.mwc(i, j) for j in range(1, n + 1)] for i in range(1, n + 1)]


#: The table computed by the model of the module docs.
COMPUTED = MatchEquityTable("computed")
#: Kazaross-XG2 (:mod:`.kazaross_xg2`).
KAZAROSS_XG2 = MatchEquityTable("Kazaross-XG2", kazaross_xg2.PRE_CRAWFORD,
                                kazaross_xg2.POST_CRAWFORD)
#: The table the bots and ``hint`` use.
DEFAULT_MET = KAZAROSS_XG2


@cache
def post_crawford(n: int) -> float:
    """The computed model's MWC of the trailer, ``n``-away against 1-away, after the
    Crawford game.

    >>> post_crawford(1), post_crawford(2), round(post_crawford(3), 3)
    (0.5, 0.5, 0.315)
    """
    if n <= 0:
        return 1.0
    if n == 1:
        return 0.5
    return 0.5 * ((1.0 - _G) * post_crawford(n - 2) + _G * post_crawford(n - 4))


@cache
def crawford(n: int) -> float:
    """The computed model's MWC of the leader (1-away) in the Crawford game against
    ``n``-away (``n >= 2``).

    >>> round(crawford(2), 3)
    0.685
    """
    return 1.0 - 0.5 * ((1.0 - _G) * post_crawford(n - 1) + _G * post_crawford(n - 2))


def _model_mwc(a: int, b: int, post: bool) -> float:
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    if a == 1 and b == 1:
        return 0.5
    if a == 1:
        return 1.0 - post_crawford(b) if post else crawford(b)
    if b == 1:
        return post_crawford(a) if post else 1.0 - crawford(a)
    return _model_met(a, b)


def mwc(a: int, b: int, post: bool = False, table: MatchEquityTable = DEFAULT_MET) -> float:
    """:meth:`MatchEquityTable.mwc` of ``table``."""
    return table.mwc(a, b, post)


def met(a: int, b: int, table: MatchEquityTable = DEFAULT_MET) -> float:
    """Pre-Crawford MWC (Crawford game when one side is 1-away) for ``a``-away v ``b``-away.

    >>> 0.5 < met(2, 4) < met(2, 8) < 1.0
    True
    """
    return table.mwc(a, b)


@cache
def _model_met(a: int, b: int) -> float:
    """The model's value, made exactly symmetric (it is, up to rounding)."""
    if a == b:
        return 0.5
    mine = _value(_points(COMPUTED, a, b, 1, CubeOwner.CENTRED, False), 0.5)
    theirs = _value(_points(COMPUTED, b, a, 1, CubeOwner.CENTRED, False), 0.5)
    return 0.5 * (mine + 1.0 - theirs)


def met_table(n: int = MAX_AWAY, table: MatchEquityTable = DEFAULT_MET) -> list[list[float]]:
    """``table[i][j]`` = :func:`met` ``(i + 1, j + 1)`` for ``1..n``."""
    return table.table(n)


def _value(points: Points, p: float) -> float:
    p = min(max(p, 0.0), 1.0)
    for (p0, e0), (p1, e1) in zip(points, points[1:], strict=False):
        if p <= p1:
            return e0 if p1 - p0 < 1e-12 else e0 + (e1 - e0) * (p - p0) / (p1 - p0)
    return points[-1][1]


def _root(points: Points, target: float) -> float:
    """The smallest ``p`` where the increasing piecewise-linear function reaches ``target``
    (0 when it starts above, 1 when it never does)."""
    if points[0][1] >= target:
        return 0.0
    for (p0, e0), (p1, e1) in zip(points, points[1:], strict=False):
        if e1 >= target:
            return p0 if e1 - e0 < 1e-15 else p0 + (p1 - p0) * (target - e0) / (e1 - e0)
    return 1.0


def _may_double(away: int, cube: int) -> bool:
    return away > cube


def _window(t: MatchEquityTable, a: int, b: int, c: int, owner: CubeOwner, post: bool,
            crawford_game: bool) -> tuple[float | None, float | None]:
    """(TP, CP) of the player ``a``-away at cube ``c``: None where that side cannot double."""
    cp = tp = None
    if not crawford_game and owner is not CubeOwner.OPPONENT and _may_double(a, c):
        cash = t.mwc(a - c, b, post)
        cp = _root(_points(t, a, b, 2 * c, CubeOwner.OPPONENT, post), cash)
    if not crawford_game and owner is not CubeOwner.PLAYER and _may_double(b, c):
        pass_value = t.mwc(a, b - c, post)
        tp = _root(_points(t, a, b, 2 * c, CubeOwner.PLAYER, post), pass_value)
    if tp is not None and cp is not None and tp > cp:
        tp = cp = 0.5 * (tp + cp)
    return tp, cp


def _blend(t: MatchEquityTable, a: int, b: int, c: int, post: bool, tp: float | None,
           cp: float | None, w: float, lv: float) -> Points:
    live: Points = [(0.0, lv)]
    if tp is not None:
        live.append((tp, t.mwc(a, b - c, post)))
    if cp is not None:
        live.append((cp, t.mwc(a - c, b, post)))
    live.append((1.0, w))
    return [(p, X_MATCH * e + (1.0 - X_MATCH) * (p * w + (1.0 - p) * lv)) for p, e in live]


@cache
def _points(t: MatchEquityTable, a: int, b: int, c: int, owner: CubeOwner,
            post: bool) -> Points:
    """The MWC for the ``a``-away player as a piecewise-linear function of its win chance,
    at cube ``c`` held as ``owner`` says (seen from that player), with the generic gammon
    rate, on table ``t``."""
    w = (1.0 - _G) * t.mwc(a - c, b, post) + _G * t.mwc(a - 2 * c, b, post)
    lv = (1.0 - _G) * t.mwc(a, b - c, post) + _G * t.mwc(a, b - 2 * c, post)
    tp, cp = _window(t, a, b, c, owner, post, False)
    return _blend(t, a, b, c, post, tp, cp, w, lv)


def _outcome_values(t: MatchEquityTable, p: Probabilities, a: int, b: int, c: int,
                    post: bool) -> tuple[float, float]:
    """MWC after a win and after a loss (averaged over their kinds) at cube ``c``."""
    singles = p.win - p.win_gammon
    if p.win > 1e-12:
        w = (singles * t.mwc(a - c, b, post)
             + (p.win_gammon - p.win_backgammon) * t.mwc(a - 2 * c, b, post)
             + p.win_backgammon * t.mwc(a - 3 * c, b, post)) / p.win
    else:
        w = t.mwc(a - c, b, post)
    lose = 1.0 - p.win
    if lose > 1e-12:
        lv = ((lose - p.lose_gammon) * t.mwc(a, b - c, post)
              + (p.lose_gammon - p.lose_backgammon) * t.mwc(a, b - 2 * c, post)
              + p.lose_backgammon * t.mwc(a, b - 3 * c, post)) / lose
    else:
        lv = t.mwc(a, b - c, post)
    return w, lv


def _equity(t: MatchEquityTable, p: Probabilities, a: int, b: int, c: int, owner: CubeOwner,
            post: bool, crawford_game: bool) -> float:
    w, lv = _outcome_values(t, p, a, b, c, post)
    tp, cp = _window(t, a, b, c, owner, post, crawford_game)
    return _value(_blend(t, a, b, c, post, tp, cp, w, lv), p.win)


def match_decision(probs: Probabilities, away: int, opp_away: int, *, cube: int = 1,
                   owner: CubeOwner = CubeOwner.CENTRED, crawford_game: bool = False,
                   post: bool = False, table: MatchEquityTable = DEFAULT_MET) -> CubeDecision:
    """Match cube decision for the side on roll (``away``-away against ``opp_away``), in
    match winning chances on ``table``. ``post``: the Crawford game is over (this is a post-Crawford
    game). Not available in the Crawford game, when the cube is the opponent's, or when the
    cube already covers what the side on roll needs (``away <= cube``).

    >>> d = match_decision(Probabilities(0.5, 0.1, 0.0, 0.1, 0.0), 5, 5)
    >>> d.action
    'no double'
    >>> match_decision(Probabilities(0.9, 0.0, 0.0, 0.0, 0.0), 2, 5, crawford_game=True).action
    'no cube action'
    """
    post = post or crawford_game
    a, b, c, t = away, opp_away, cube, table
    nd = _equity(t, probs, a, b, c, owner, post, crawford_game)
    available = (not crawford_game and owner is not CubeOwner.OPPONENT
                 and _may_double(a, c))
    if available:
        dt = _equity(t, probs, a, b, 2 * c, CubeOwner.OPPONENT, post, False)
    else:
        dt = nd
    dp = t.mwc(a - c, b, post)
    return CubeDecision(nd, dt, dp, available, False)
