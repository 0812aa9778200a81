"""Cubeful money equity with Janowski's model, and the money cube decisions.

Rick Janowski, "Take-points in money games" (1993), as used by GNU Backgammon ("cubeful
equities", gnubg manual) and eXtreme Gammon: from the cubeless probabilities of the side on
roll, with ``p`` its chance to win,

* ``W = 1 + (wg + wbg) / p`` — the average value of a win, ``L = 1 + (lg + lbg) / (1 − p)``
  — the average value of a loss (cube 1);
* **dead cube** (nobody can double again): ``E_dead = p·W − (1 − p)·L`` (cubeless equity);
* **live cube** (a fully efficient cube, the market never jumps): the player's take point
  ``TP = (L − ½) / (W + L + ½)`` and cash point ``CP = (L + 1) / (W + L + ½)``; the equity is
  piecewise linear in ``p`` between ``(0, −L)`` and ``(1, W)``:

  - cube owned by the player: ``(0, −L)`` → ``(CP, +1)`` → ``(1, W)``;
  - cube owned by the opponent (unavailable): ``(0, −L)`` → ``(TP, −1)`` → ``(1, W)``;
  - cube centred: ``(0, −L)`` → ``(TP, −1)`` → ``(CP, +1)`` → ``(1, W)``;

* **cubeful equity** ``E = x·E_live + (1 − x)·E_dead`` (per unit of cube), where ``x`` is the
  *cube efficiency*: 0 makes the cube dead (last roll: take point 25% without gammons), 1
  fully live (take point 20%). Without gammons the taker's equity after ``x``-interpolation is
  ``2·[x·(−1 + 2.5q) + (1 − x)(2q − 1)] = −2 + q·(4 + x)`` for its win chance ``q``, so the take
  point is ``q = 1 / (4 + x)``: 25% at ``x = 0``, 21.37% at ``x = 0.68``, 20% at ``x = 1``.

``x`` (:func:`cube_efficiency`): 0.68 in contact positions (gnubg's default, Janowski's
typical value); in races ``0.55 + 0.00125 · pips`` of the side on roll, clamped to
``[0.6, 0.7]`` (gnubg's race defaults, as its source sets them; quoted from memory of
gnubg's ``eval.c``, not checked against it here).

Decisions for the side on roll, in points (cube value included): no double ``ND`` (the
equity with the cube as it is), double/take ``DT = 2·E(cube owned by the taker)``,
double/pass ``DP = +cube``. Double when ``min(DT, DP) > ND``; the taker takes when
``DT <= DP``, beavers (money only) when its equity after taking, ``−DT``, exceeds
:data:`BEAVER_MARGIN` times the doubled cube. The Jacoby rule (money, cube centred):
gammons count only once the cube is turned, so ``ND`` with a centred cube uses ``W = L = 1``.

>>> from backgammon.engine.probabilities import Probabilities
>>> round(take_point(1.0, 1.0, 0.0), 4), round(take_point(1.0, 1.0, 0.68), 4)
(0.25, 0.2137)
>>> d = money_decision(Probabilities(0.5, 0.0, 0.0, 0.0, 0.0), x=0.68)
>>> d.action
'no double'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .probabilities import Probabilities

__all__ = [
    "BEAVER_MARGIN",
    "CubeDecision",
    "CubeOwner",
    "X_BEAROFF",
    "X_CONTACT",
    "cube_efficiency",
    "cubeful_equity",
    "dead_equity",
    "live_equity",
    "money_decision",
    "take_point",
    "win_loss_values",
]

#: Janowski's cube efficiency for contact positions (gnubg's default).
X_CONTACT = 0.68
#: ... for bear-offs (every checker home, gnubg's one-sided bear-off class).
X_BEAROFF = 0.6
#: ... for races: ``0.55 + 0.00125·pips`` of the side on roll, within [0.6, 0.7]. These are
#: gnubg's defaults (``rRaceCoefficientX``, ``rRaceFactorX``, ``rRaceMin``, ``rRaceMax`` and
#: ``rOSCubeX``, ``rContactX`` in its ``eval.c``; ``show cube efficiency`` prints them),
#: checked against its source.
_RACE_FACTOR, _RACE_COEFF, _RACE_MIN, _RACE_MAX = 0.00125, 0.55, 0.6, 0.7
#: The taker beavers when its equity after taking is above this (per doubled cube): a
#: conservative margin ("clearly positive"), as a wrong beaver costs four times the cube.
BEAVER_MARGIN = 0.15
_EPS = 1e-9


class CubeOwner(Enum):
    """Who holds the cube, seen from the side on roll."""

    CENTRED = "centred"
    PLAYER = "player"
    OPPONENT = "opponent"


def cube_efficiency(race: bool, pips: int = 0, bearoff: bool = False) -> float:
    """Janowski's ``x`` (gnubg's values): 0.68 in contact, 0.6 in a bear-off,
    ``0.55 + 0.00125·pips`` (the pip count of the side on roll) in [0.6, 0.7] in other races.

    >>> cube_efficiency(False), cube_efficiency(True, 80), cube_efficiency(True, 200)
    (0.68, 0.65, 0.7)
    >>> cube_efficiency(True, 60, bearoff=True)
    0.6
    """
    if not race:
        return X_CONTACT
    if bearoff:
        return X_BEAROFF
    return min(max(_RACE_COEFF + _RACE_FACTOR * pips, _RACE_MIN), _RACE_MAX)


def win_loss_values(p: Probabilities, *, gammons: bool = True) -> tuple[float, float]:
    """``(W, L)``: the average value of a win and of a loss (1 when gammons do not count or
    when the event has no chance)."""
    if not gammons:
        return 1.0, 1.0
    w = 1.0 + (p.win_gammon + p.win_backgammon) / p.win if p.win > _EPS else 1.0
    lose = 1.0 - p.win
    lv = 1.0 + (p.lose_gammon + p.lose_backgammon) / lose if lose > _EPS else 1.0
    return w, lv


def take_point(w: float, l: float, x: float) -> float:
    """The taker's take point (its win chance) for a taker whose average win is ``w`` and
    average loss ``l`` (per cube), interpolated with ``x`` (the module's formula, solved for
    the taker owning the doubled cube): ``(L − ½) / (W + L + ½x)``."""
    return (l - 0.5) / (w + l + 0.5 * x)


def _interp(points: list[tuple[float, float]], p: float) -> float:
    for (p0, e0), (p1, e1) in zip(points, points[1:]):
        if p <= p1:
            return e0 if p1 - p0 < _EPS else e0 + (e1 - e0) * (p - p0) / (p1 - p0)
    return points[-1][1]


def live_equity(p: float, w: float, l: float, owner: CubeOwner) -> float:
    """Janowski's fully live cube equity (per unit of cube) for the side on roll."""
    tp = (l - 0.5) / (w + l + 0.5)
    cp = (l + 1.0) / (w + l + 0.5)
    if owner is CubeOwner.PLAYER:
        pts = [(0.0, -l), (cp, 1.0), (1.0, w)]
    elif owner is CubeOwner.OPPONENT:
        pts = [(0.0, -l), (tp, -1.0), (1.0, w)]
    else:
        pts = [(0.0, -l), (tp, -1.0), (cp, 1.0), (1.0, w)]
    return _interp(pts, min(max(p, 0.0), 1.0))


def dead_equity(p: float, w: float, l: float) -> float:
    """``p·W − (1 − p)·L``."""
    return p * w - (1.0 - p) * l


def cubeful_equity(probs: Probabilities, owner: CubeOwner, x: float, *,
                   gammons: bool = True) -> float:
    """Cubeful equity per unit of cube, ``x·E_live + (1 − x)·E_dead``."""
    w, l = win_loss_values(probs, gammons=gammons)
    return x * live_equity(probs.win, w, l, owner) + (1.0 - x) * dead_equity(probs.win, w, l)


@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The three equities for the side on roll (in the decision's unit: points for money,
    match winning chances for a match) and what to do."""

    no_double: float
    double_take: float
    double_pass: float
    #: whether the side on roll may double at all (Crawford, dead cube, cube not theirs)
    available: bool = True
    #: money only: the taker's equity after taking exceeds :data:`BEAVER_MARGIN`
    beaver: bool = False

    @property
    def double(self) -> bool:
        """Double when doubling gains: ``min(DT, DP) > ND``; a cash (``DT > DP``) also when
        it only equals playing on (``DP == ND``, e.g. a sure win whose gammon does not count
        under the Jacoby rule): it ends the game at no risk."""
        if not self.available:
            return False
        if self.double_take > self.double_pass:
            return self.double_pass >= self.no_double
        return self.double_take > self.no_double

    @property
    def take(self) -> bool:
        """The taker takes when ``DT <= DP`` (for the doubler)."""
        return self.double_take <= self.double_pass

    @property
    def action(self) -> str:
        """``'no double'``, ``'double, take'``, ``'double, pass'``, ``'too good'``, or
        ``'no cube action'`` when doubling is not available."""
        if not self.available:
            return "no cube action"
        if self.double:
            return "double, take" if self.take else "double, pass"
        if not self.take and self.no_double > self.double_pass:
            return "too good"
        return "no double"


def money_decision(probs: Probabilities, *, x: float = X_CONTACT, cube: int = 1,
                   owner: CubeOwner = CubeOwner.CENTRED, jacoby: bool = False) -> CubeDecision:
    """Money cube decision for the side on roll with ``probs`` (equities in points).

    ``owner`` is the cube seen from the side on roll; ``OPPONENT`` gives an unavailable
    decision (``ND`` only). With ``jacoby`` and a centred cube, gammons do not count in ``ND``.

    >>> d = money_decision(Probabilities(0.9, 0.0, 0.0, 0.0, 0.0))
    >>> d.action, d.double_pass
    ('double, pass', 1.0)
    """
    gam = not (jacoby and owner is CubeOwner.CENTRED)
    nd = cube * cubeful_equity(probs, owner, x, gammons=gam)
    dt = 2 * cube * cubeful_equity(probs, CubeOwner.OPPONENT, x)
    dp = float(cube)
    available = owner is not CubeOwner.OPPONENT
    beaver = -dt / (2 * cube) > BEAVER_MARGIN
    return CubeDecision(nd, dt, dp, available, beaver)
