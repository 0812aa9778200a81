"""A match equity table computed with a live-cube model, and match-play cube decisions.

**The table.** Match winning chances (MWC) at the start of a game, for the player
``a``-away against ``b``-away, are computed here (not typed in) with a simple recursive model
in the spirit of Zadeh's and Rockwell–Kazaross's methods (no published table is copied):

* every game is even (50% at its start) and :data:`GAMMON_RATE` (26%) of the games won are
  gammons (backgammons ignored);
* **post-Crawford** (:func:`post_crawford`): the trailer doubles at once and the leader
  takes, so each game is worth 2 (gammon 4): ``P(n) = ½·[(1 − g)·P(n − 2) + g·P(n − 4)]``
  with ``P(k ≤ 0) = 1`` and ``P(1) = ½`` (double match point); the free drop is ignored;
* **the Crawford game** (no cube): the trailer's chance is
  ``½·[(1 − g)·P(n − 1) + g·P(n − 2)]``;
* **before Crawford**: at cube ``c`` the player's MWC is a function of its win chance ``p``:
  Janowski's piecewise-linear live cube (see :mod:`.cube`) — from ``(0, L)`` through the take
  point ``(TP, pass value)`` and the cash point ``(CP, cash value)`` to ``(1, W)``, ``W`` and
  ``L`` the MWC after a win / loss at cube ``c`` (gammons included) — blended with the dead
  cube line with efficiency :data:`X_MATCH`. The take and cash points are where the
  equity at cube ``2c`` (the taker owning it) equals the pass value, found exactly on the
  piecewise-linear functions, recursively up the cube levels; a player never doubles when
  its wins already end the match at the current cube (dead cube). ``MET(a, b)`` is the
  centred-cube function at cube 1 and ``p = ½``.

The result is close to the published tables (e.g. 2-away/2-away 50%, 1-away/2-away
Crawford about 68–70%) but not identical; it is symmetric by construction.

**Decisions** (:func:`match_decision`): with the position's own probabilities, ``W`` and
``L`` (the MWC after a win / loss of each kind) replace the generic gammon rate at the
root; the dead-cube part is the exact cubeless MWC, the live part uses the take and cash
points of the model above (the last-roll / dead-cube approximation with the Janowski
interpolation on top). The Crawford game has no cube, and nobody doubles when the cube
already covers what they need.

>>> met(1, 1), met(3, 3)
(0.5, 0.5)
>>> round(met(2, 5) + met(5, 2), 12)
1.0
"""

from __future__ import annotations

from functools import lru_cache

from .cube import CubeDecision, CubeOwner
from .probabilities import Probabilities

__all__ = ["GAMMON_RATE", "MAX_AWAY", "X_MATCH", "crawford", "match_decision", "met",
           "met_table", "mwc", "post_crawford"]

#: The share of games won that are gammons, in the table's model.
GAMMON_RATE = 0.26
#: Cube efficiency in the table's model and in match decisions.
X_MATCH = 0.68
#: The largest away-score the table is meant for (it computes beyond, more slowly).
MAX_AWAY = 25

_G = GAMMON_RATE
Points = list[tuple[float, float]]


@lru_cache(maxsize=None)
def post_crawford(n: int) -> float:
    """The trailer's MWC, ``n``-away against 1-away, after the Crawford game.

    >>> post_crawford(1), post_crawford(2), round(post_crawford(3), 3)
    (0.5, 0.5, 0.315)
    """
    if n <= 0:
        return 1.0
    if n == 1:
        return 0.5
    return 0.5 * ((1.0 - _G) * post_crawford(n - 2) + _G * post_crawford(n - 4))


@lru_cache(maxsize=None)
def crawford(n: int) -> float:
    """The leader's (1-away) MWC in the Crawford game against ``n``-away (``n >= 2``).

    >>> round(crawford(2), 3)
    0.685
    """
    return 1.0 - 0.5 * ((1.0 - _G) * post_crawford(n - 1) + _G * post_crawford(n - 2))


def mwc(a: int, b: int, post: bool = False) -> float:
    """MWC at the start of a game (or at the end of the match) for ``a``-away against
    ``b``-away. ``post``: the Crawford game has been played (or is this game) — a score with
    a 1-away side is then post-Crawford, otherwise it is the Crawford game."""
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
    return met(a, b)


def met(a: int, b: int) -> float:
    """Pre-Crawford MWC (Crawford game when one side is 1-away) for ``a``-away v ``b``-away.

    >>> 0.5 < met(2, 4) < met(2, 8) < 1.0
    True
    """
    if a <= 1 or b <= 1:
        return mwc(a, b)
    return _met(a, b)


@lru_cache(maxsize=None)
def _met(a: int, b: int) -> float:
    """The model's value, made exactly symmetric (it is, up to rounding)."""
    if a == b:
        return 0.5
    mine = _value(_points(a, b, 1, CubeOwner.CENTRED, False), 0.5)
    theirs = _value(_points(b, a, 1, CubeOwner.CENTRED, False), 0.5)
    return 0.5 * (mine + 1.0 - theirs)


def met_table(n: int = MAX_AWAY) -> list[list[float]]:
    """``table[i][j]`` = :func:`met` ``(i + 1, j + 1)`` for ``1..n``."""
    return [[met(i, j) for j in range(1, n + 1)] for i in range(1, n + 1)]


def _value(points: Points, p: float) -> float:
    p = min(max(p, 0.0), 1.0)
    for (p0, e0), (p1, e1) in zip(points, points[1:]):
        if p <= p1:
            return e0 if p1 - p0 < 1e-12 else e0 + (e1 - e0) * (p - p0) / (p1 - p0)
    return points[-1][1]


def _root(points: Points, target: float) -> float:
    """The smallest ``p`` where the increasing piecewise-linear function reaches ``target``
    (0 when it starts above, 1 when it never does)."""
    if points[0][1] >= target:
        return 0.0
    for (p0, e0), (p1, e1) in zip(points, points[1:]):
        if e1 >= target:
            return p0 if e1 - e0 < 1e-15 else p0 + (p1 - p0) * (target - e0) / (e1 - e0)
    return 1.0


def _may_double(away: int, cube: int) -> bool:
    return away > cube


def _window(a: int, b: int, c: int, owner: CubeOwner, post: bool,
            crawford_game: bool) -> tuple[float | None, float | None]:
    """(TP, CP) of the player ``a``-away at cube ``c``: None where that side cannot double."""
    cp = tp = None
    if not crawford_game and owner is not CubeOwner.OPPONENT and _may_double(a, c):
        cash = mwc(a - c, b, post)
        cp = _root(_points(a, b, 2 * c, CubeOwner.OPPONENT, post), cash)
    if not crawford_game and owner is not CubeOwner.PLAYER and _may_double(b, c):
        pass_value = mwc(a, b - c, post)
        tp = _root(_points(a, b, 2 * c, CubeOwner.PLAYER, post), pass_value)
    if tp is not None and cp is not None and tp > cp:
        tp = cp = 0.5 * (tp + cp)
    return tp, cp


def _blend(a: int, b: int, c: int, post: bool, tp: float | None, cp: float | None,
           w: float, lv: float) -> Points:
    live: Points = [(0.0, lv)]
    if tp is not None:
        live.append((tp, mwc(a, b - c, post)))
    if cp is not None:
        live.append((cp, mwc(a - c, b, post)))
    live.append((1.0, w))
    return [(p, X_MATCH * e + (1.0 - X_MATCH) * (p * w + (1.0 - p) * lv)) for p, e in live]


@lru_cache(maxsize=None)
def _points(a: int, b: int, c: int, owner: CubeOwner, post: bool) -> Points:
    """The model's MWC for the ``a``-away player as a piecewise-linear function of its win
    chance, at cube ``c`` held as ``owner`` says (seen from that player)."""
    w = (1.0 - _G) * mwc(a - c, b, post) + _G * mwc(a - 2 * c, b, post)
    lv = (1.0 - _G) * mwc(a, b - c, post) + _G * mwc(a, b - 2 * c, post)
    tp, cp = _window(a, b, c, owner, post, False)
    return _blend(a, b, c, post, tp, cp, w, lv)


def _outcome_values(p: Probabilities, a: int, b: int, c: int, post: bool) -> tuple[float, float]:
    """MWC after a win and after a loss (averaged over their kinds) at cube ``c``."""
    singles = p.win - p.win_gammon
    if p.win > 1e-12:
        w = (singles * mwc(a - c, b, post) + (p.win_gammon - p.win_backgammon)
             * mwc(a - 2 * c, b, post) + p.win_backgammon * mwc(a - 3 * c, b, post)) / p.win
    else:
        w = mwc(a - c, b, post)
    lose = 1.0 - p.win
    if lose > 1e-12:
        lv = ((lose - p.lose_gammon) * mwc(a, b - c, post) + (p.lose_gammon - p.lose_backgammon)
              * mwc(a, b - 2 * c, post) + p.lose_backgammon * mwc(a, b - 3 * c, post)) / lose
    else:
        lv = mwc(a, b - c, post)
    return w, lv


def _equity(p: Probabilities, a: int, b: int, c: int, owner: CubeOwner, post: bool,
            crawford_game: bool) -> float:
    w, lv = _outcome_values(p, a, b, c, post)
    tp, cp = _window(a, b, c, owner, post, crawford_game)
    return _value(_blend(a, b, c, post, tp, cp, w, lv), p.win)


def match_decision(probs: Probabilities, away: int, opp_away: int, *, cube: int = 1,
                   owner: CubeOwner = CubeOwner.CENTRED, crawford_game: bool = False,
                   post: bool = False) -> CubeDecision:
    """Match cube decision for the side on roll (``away``-away against ``opp_away``), in
    match winning chances. ``post``: the Crawford game is over (this is a post-Crawford
    game). Not available in the Crawford game, when the cube is the opponent's, or when the
    cube already covers what the side on roll needs (``away <= cube``).

    >>> d = match_decision(Probabilities(0.5, 0.1, 0.0, 0.1, 0.0), 5, 5)
    >>> d.action
    'no double'
    >>> match_decision(Probabilities(0.9, 0.0, 0.0, 0.0, 0.0), 2, 5, crawford_game=True).action
    'no cube action'
    """
    post = post or crawford_game
    a, b, c = away, opp_away, cube
    nd = _equity(probs, a, b, c, owner, post, crawford_game)
    available = (not crawford_game and owner is not CubeOwner.OPPONENT
                 and _may_double(a, c))
    if available:
        dt = _equity(probs, a, b, 2 * c, CubeOwner.OPPONENT, post, False)
    else:
        dt = nd
    dp = mwc(a - c, b, post)
    return CubeDecision(nd, dt, dp, available, False)
