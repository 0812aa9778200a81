"""Compiled (numba) kernels of the rollouts (:mod:`backgammon.analysis.rollout`).

:func:`rollout_trials` plays trials ``first .. first + count - 1`` of a rollout from one
position (a 50-byte key, side on roll first, before its roll) to the end of the game, or
for ``truncate`` plies, both sides choosing their plays at 0 ply (or at 1 ply on the best
few by 0 ply, gnubg's move filter). Each trial's result is written from the *root* side's
view as the five outputs (win, win gammon, win backgammon, lose gammon, lose backgammon):
0/1 indicators of the outcome, or the evaluation of the position where a trial stopped.

**Bear-off truncation** (``bstop``, cubeless trials only, as gnubg's default): once every
checker of both sides is home (no contact) the trial stops and takes the exact value of the
one-sided bear-off tables (:mod:`.bearoff`) for the side on roll.

**Cube actions** (``cubeful``; a sixth output, the cubeful result): before each roll the
side on roll, if the cube is centred or its own (not in the Crawford game, below the cube
limit, and in a match only while its away score is above the cube), takes the bots' cube
decision (:func:`cube_decision`, the compiled twin of
:func:`backgammon.bots.neural.cube_decision`) on the 0-ply outputs of the position: money by
Janowski (the position's cube efficiency, the owner, the Jacoby rule with a centred cube; a
cube at its limit is dead, as in the match analysis), a match by the match equity table.
When it doubles the other side passes if double/take is worth more than double/pass to the
doubler (no beavers): the trial ends, the doubler winning the cube before the double, and
the five cubeless outputs take the evaluation there (at the rollout's plies, as at a
truncation); else the cube doubles and the taker owns it. The cubeful result is, from the
root side's view, money: the points won or lost (result × cube; a single game while the
Jacoby rule holds and the cube is centred) divided by the starting cube; a match: the match
winning chances after the game on the table (post-Crawford when the score says so). A
truncated trial takes the cubeful value of the position (the side on roll's proper cube
action on the evaluation at ``plies``).

**Variance reduction** (gnubg's "luck adjustment"): before each roll the kernel looks at
all 21 rolls, the value ``f(roll)`` of each being the 0-ply outputs after that roll's best
0-ply play; ``luck = f(actual roll) − mean over the 36 rolls of f``. The trial's result is
its outcome minus the sum of its luck terms. Each luck term has mean zero whatever the past
of the trial, so the expectation is unchanged while most of the dice's noise cancels. With
1-ply play ``f`` stays the 0-ply value (valid, as any ``f`` is; the luck of a 1-ply choice
is not evaluated at 1 ply, which would cost 21 times more). The cubeful result gets its own
luck adjustment in the same way, measured with the *cubeful* value (as gnubg does): ``f`` is
the root side's cubeful value of the position after the roll's best play, the next side on
roll taking its proper cube action (no double, or double and the right answer, by the same
decision) on the 0-ply outputs, with the cube as it stands after this turn's cube action
(money: points per starting cube; a match: MWC). The five cubeless outputs keep their own
adjustment, unchanged.

**Dice**: with ``quasi`` the first two rolls are stratified: trial ``i`` gets first roll
number ``i mod 36`` and second roll number ``(i // 36 + i) mod 36`` (of the 36 ordered
rolls), so every 36 consecutive trials (from a multiple of 36) see each first and each
second roll once, and every 1296 each pair of them once. The other rolls come from
:func:`._kernels.game_stream` seeded with ``(seed, i)``: the dice of trial ``i`` do not
depend on which worker plays it, nor on the other trials.

:func:`accumulate` adds per-trial results into running sums in trial order, so that a
rollout gives the same bits however its trials were split.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._movegen import generate
from ._kernels import (
    NUM_OUTPUTS,
    _finished,
    _flip,
    best_play,
    equity_of,
    eval_one,
    game_stream,
    is_bearoff,
    is_contact,
    net_scratch,
    new_cache,
    njit,
    play_outputs,
    roll_die,
    win_points,
)
from ._search_kernels import _one_ply, _scratch, _swapped

__all__ = ["CUBE_INTS", "FILTER_COUNT", "FILTER_MARGIN", "accumulate", "cube_decision",
           "rollout_trials", "stratified_roll"]

#: 1-ply move filter (gnubg's default for 1 ply): the plays within this 0-ply equity of the
#: best ...
FILTER_MARGIN = 0.16
#: ... and at most this many of them are looked at 1 ply deep.
FILTER_COUNT = 8
_MAX_PLIES = 10000


@njit(cache=True, nogil=True)
def stratified_roll(index: int, ply: int) -> tuple[int, int]:
    """The quasi-random roll of trial ``index`` at ply 0 or 1 (module docstring):
    ``(d1, d2)``, the roll number ``r`` being ``(d1 - 1) * 6 + (d2 - 1)``."""
    if ply == 0:
        r = index % 36
    else:
        r = (index // 36 + index) % 36
    return r // 6 + 1, r % 6 + 1


@njit(cache=True, nogil=True)
def _to_root(v: Any, root_side: bool, out: Any) -> None:
    """Outputs ``v`` of the side on roll into ``out`` from the root side's view."""
    if root_side:
        for m in range(NUM_OUTPUTS):
            out[m] = v[m]
    else:
        _flip(v, out)


@njit(cache=True, nogil=True)
def _over(key: Any) -> bool:
    """Has a side no checker left (the game is over)?"""
    a = 0
    b = 0
    for i in range(25):
        a += key[i]
        b += key[25 + i]
    return a == 0 or b == 0


@njit(cache=True, nogil=True)
def _value(key: Any, plies: int, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
           rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
           bfirst: Any, sc2: Any, x: Any, h: Any, bv: Any, out: Any) -> None:
    """Outputs of ``key`` for its side on roll at 0 or 1 ply into ``out``."""
    if plies == 0:
        eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst, x, h, out)
    else:
        _one_ply(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                 sc2[0], sc2[1], sc2[2], sc2[3], sc2[4], x, h, bv, out)


@njit(cache=True, nogil=True)
def _choose_one_ply(boards: Any, n: int, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                    rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
                    bfirst: Any, sc2: Any, eqs: Any, order: Any, x: Any, h: Any,
                    bv: Any, nv: Any) -> int:
    """Index of the play (rows of ``boards``) with the best 1-ply equity for the mover among
    the best :data:`FILTER_COUNT` by 0 ply within :data:`FILTER_MARGIN` of the best (ties:
    the better 0-ply play, then the first)."""
    outs = np.empty((n, NUM_OUTPUTS))
    play_outputs(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                 x, h, outs, *new_cache(0))
    for k in range(n):
        eqs[k] = -equity_of(outs[k])
    # the best FILTER_COUNT by 0-ply equity, best first (the first of equal plays first)
    m = 0
    for k in range(n):
        e = eqs[k]
        if m < FILTER_COUNT:
            pos = m
            m += 1
        elif e > eqs[order[m - 1]]:
            pos = m - 1
        else:
            continue
        while pos > 0 and eqs[order[pos - 1]] < e:
            order[pos] = order[pos - 1]
            pos -= 1
        order[pos] = k
    if m == 1:
        return int(order[0])
    top = eqs[order[0]]
    best = order[0]
    best_eq = -1e18
    for j in range(m):
        k = order[j]
        if eqs[k] < top - FILTER_MARGIN:
            break
        _one_ply(boards[k], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                 sc2[0], sc2[1], sc2[2], sc2[3], sc2[4], x, h, bv, nv)
        eq = -equity_of(nv)
        if eq > best_eq:
            best_eq = eq
            best = k
    return int(best)


# -- the cube (cubeful trials) ------------------------------------------------------------------
#
# ``ci`` (int64): 0 money (1) or match (0); 1 the starting cube; 2 its owner (0 centred, 1 the
# root side, 2 the other side); 3 the Jacoby rule in force (money); 4 the cube limit (0: none);
# 5 the Crawford game; 6 the number of cube levels in ``mt`` / ``mv``; 7, 8 the root side's and
# the other side's away scores (match); 9 the root side may double before its first roll (0:
# the no-double line of a cube decision). ``cf`` (float64): Janowski's cube efficiencies (contact,
# bear-off, race coefficient, race factor, race minimum, race maximum) and the match one.
# ``mt[s, k, o]``: the (take point, cash point) of side ``s`` (0 root, 1 other) on roll at cube
# ``ci[1] << k`` held as ``o`` (0 centred, 1 by itself, 2 by the opponent) seen from it, NaN
# where that side cannot double (:func:`backgammon.engine.met._window`); ``mv[s, k]``: its
# match winning chances after winning 1, 2, 3 times the cube, then after losing them.

CUBE_INTS = 10
_CENTRED, _MINE, _THEIRS = 0, 1, 2


@njit(cache=True, nogil=True)
def _efficiency(key: Any, cf: Any) -> float:
    """Janowski's cube efficiency of ``key`` for its side on roll (as
    :func:`backgammon.engine.cube.cube_efficiency` of the bots' cube decision)."""
    if is_contact(key):
        return float(cf[0])
    if is_bearoff(key):
        return float(cf[1])
    pips = 0
    for i in range(25):
        pips += key[i] * (i + 1)
    return float(min(max(cf[2] + cf[3] * pips, cf[4]), cf[5]))


@njit(cache=True, nogil=True)
def _money_equity(v: Any, own: int, x: float, gammons: bool) -> float:
    """:func:`backgammon.engine.cube.cubeful_equity` (per unit of cube) of outputs ``v``."""
    p = v[0]
    w = 1.0
    lv = 1.0
    if gammons:
        if p > 1e-9:
            w = 1.0 + (v[1] + v[2]) / p
        if 1.0 - p > 1e-9:
            lv = 1.0 + (v[3] + v[4]) / (1.0 - p)
    tp = (lv - 0.5) / (w + lv + 0.5)
    cp = (lv + 1.0) / (w + lv + 0.5)
    q = min(max(p, 0.0), 1.0)
    # Janowski's live cube: piecewise linear through (0, -L) [(TP, -1)] [(CP, +1)] (1, W)
    px = np.empty(4)
    py = np.empty(4)
    px[0] = 0.0
    py[0] = -lv
    n = 1
    if own != _MINE:
        px[n] = tp
        py[n] = -1.0
        n += 1
    if own != _THEIRS:
        px[n] = cp
        py[n] = 1.0
        n += 1
    px[n] = 1.0
    py[n] = w
    n += 1
    live = py[n - 1]
    for i in range(n - 1):
        if q <= px[i + 1]:
            if px[i + 1] - px[i] < 1e-9:
                live = py[i]
            else:
                live = py[i] + (py[i + 1] - py[i]) * (q - px[i]) / (px[i + 1] - px[i])
            break
    dead = p * w - (1.0 - p) * lv
    return float(x * live + (1.0 - x) * dead)


@njit(cache=True, nogil=True)
def _match_equity(v: Any, s: int, k: int, own: int, mt: Any, mv: Any, xm: float) -> float:
    """The MWC of side ``s`` on roll with outputs ``v`` at cube level ``k`` held as ``own``
    (:func:`backgammon.engine.met.match_decision`'s ``_equity``)."""
    p = v[0]
    if p > 1e-12:
        w = ((p - v[1]) * mv[s, k, 0] + (v[1] - v[2]) * mv[s, k, 1] + v[2] * mv[s, k, 2]) / p
    else:
        w = mv[s, k, 0]
    lose = 1.0 - p
    if lose > 1e-12:
        lv = ((lose - v[3]) * mv[s, k, 3] + (v[3] - v[4]) * mv[s, k, 4]
              + v[4] * mv[s, k, 5]) / lose
    else:
        lv = mv[s, k, 3]
    tp = mt[s, k, own, 0]
    cp = mt[s, k, own, 1]
    px = np.empty(4)
    py = np.empty(4)
    px[0] = 0.0
    py[0] = lv
    n = 1
    if not np.isnan(tp):
        px[n] = tp
        py[n] = mv[s, k, 3]
        n += 1
    if not np.isnan(cp):
        px[n] = cp
        py[n] = mv[s, k, 0]
        n += 1
    px[n] = 1.0
    py[n] = w
    n += 1
    for i in range(n):
        py[i] = xm * py[i] + (1.0 - xm) * (px[i] * w + (1.0 - px[i]) * lv)
    q = min(max(p, 0.0), 1.0)
    for i in range(n - 1):
        if q <= px[i + 1]:
            if px[i + 1] - px[i] < 1e-12:
                return float(py[i])
            return float(py[i] + (py[i + 1] - py[i]) * (q - px[i]) / (px[i + 1] - px[i]))
    return float(py[n - 1])


@njit(cache=True, nogil=True)
def _level(cube: int, cube0: int) -> int:
    k = 0
    c = cube0
    while c < cube:
        c *= 2
        k += 1
    return k


@njit(cache=True, nogil=True)
def _owner_seen(owner: int, root: bool) -> int:
    """The cube's owner (0 centred, 1 root side, 2 other side) seen from the side on roll."""
    if owner == 0:
        return _CENTRED
    if (owner == 1) == root:
        return _MINE
    return _THEIRS


@njit(cache=True, nogil=True)
def cube_decision(key: Any, v: Any, root: bool, cube: int, owner: int, ci: Any, cf: Any,
                  mt: Any, mv: Any, out: Any) -> None:
    """The bots' cube decision (:func:`backgammon.bots.neural.cube_decision`, with
    :mod:`backgammon.analysis.match`'s rule that a cube at the limit is dead) for the side on
    roll of ``key`` with 0-ply outputs ``v``: ``out`` = (no double, double/take, double/pass,
    available), money in points (cube included), match in that side's MWC. ``root``: the
    root side is on roll; ``cube``, ``owner``: the cube now (see ``ci``)."""
    own = _owner_seen(owner, root)
    limit = ci[4]
    at_limit = limit > 0 and 2 * cube > limit
    if ci[0] == 1:
        x = _efficiency(key, cf)
        gam = not (ci[3] == 1 and own == _CENTRED)
        if at_limit:
            nd = cube * _money_equity(v, own, 0.0, gam)
            out[0] = nd
            out[1] = 2 * cube * _money_equity(v, _THEIRS, 0.0, True)
            out[2] = float(cube)
            out[3] = 0.0
            return
        out[0] = cube * _money_equity(v, own, x, gam)
        out[1] = (2 * cube) * _money_equity(v, _THEIRS, x, True)
        out[2] = float(cube)
        out[3] = 1.0 if own != _THEIRS else 0.0
        return
    s = 0 if root else 1
    k = _level(cube, ci[1])
    away = ci[7] if root else ci[8]
    nd = _match_equity(v, s, k, own, mt, mv, cf[6])
    out[0] = nd
    out[2] = mv[s, k, 0]
    if ci[5] == 0 and own != _THEIRS and away > cube and not at_limit and k + 1 < ci[6]:
        out[1] = _match_equity(v, s, k + 1, _THEIRS, mt, mv, cf[6])
        out[3] = 1.0
    else:
        out[1] = nd
        out[3] = 0.0


@njit(cache=True, nogil=True)
def _may_double(root: bool, cube: int, owner: int, ci: Any) -> bool:
    """Can the side on roll double at all (before looking at the position)?"""
    if _owner_seen(owner, root) == _THEIRS or ci[5] == 1:
        return False
    if ci[4] > 0 and 2 * cube > ci[4]:
        return False
    if ci[0] == 0:
        away = ci[7] if root else ci[8]
        return bool(away > cube)
    return True


@njit(cache=True, nogil=True)
def _doubles(dec: Any) -> bool:
    """:attr:`backgammon.engine.cube.CubeDecision.double` of ``dec`` (no double, double/take,
    double/pass, available): double when it gains, and cash (double/pass) also when it only
    equals playing on — a sure win whose gammon does not count under the Jacoby rule."""
    if dec[3] <= 0.5:
        return False
    if dec[1] > dec[2]:
        return bool(dec[2] >= dec[0])
    return bool(dec[1] > dec[0])


@njit(cache=True, nogil=True)
def _proper_root(key: Any, v: Any, root: bool, cube: int, owner: int, ci: Any, cf: Any,
                 mt: Any, mv: Any, dec: Any) -> float:
    """The cubeful value of ``key`` (its side on roll with outputs ``v`` takes its proper
    cube action) for the *root* side, in the trial's unit (money: points per starting cube;
    match: the root side's MWC)."""
    cube_decision(key, v, root, cube, owner, ci, cf, mt, mv, dec)
    value = dec[0]
    if _doubles(dec):
        value = min(dec[1], dec[2])
    if ci[0] == 1:
        value /= ci[1]
        return float(value if root else -value)
    return float(value if root else 1.0 - value)


@njit(cache=True, nogil=True)
def _cube_end(res: Any, cube: int, owner: int, ci: Any, mv: Any) -> float:
    """The cubeful result for the root side of a finished game whose 0/1 outcome (root's
    view) is ``res``."""
    won = res[0] > 0.5
    if won:
        pts = 1 + (1 if res[1] > 0.5 else 0) + (1 if res[2] > 0.5 else 0)
    else:
        pts = 1 + (1 if res[3] > 0.5 else 0) + (1 if res[4] > 0.5 else 0)
    if ci[0] == 1:
        if ci[3] == 1 and owner == 0:
            pts = 1  # R25: the Jacoby rule, the cube never turned
        value = float(pts * cube) / ci[1]
        return float(value if won else -value)
    k = _level(cube, ci[1])
    return float(mv[0, k, pts - 1] if won else mv[0, k, 2 + pts])


@njit(cache=True, nogil=True)
def _cube_pass(root: bool, cube: int, ci: Any, mv: Any) -> float:
    """The root side's result when the side on roll doubles ``cube`` and the other passes."""
    if ci[0] == 1:
        value = float(cube) / ci[1]
        return float(value if root else -value)
    k = _level(cube, ci[1])
    return float(mv[0, k, 0] if root else mv[0, k, 3])


@njit(cache=True, nogil=True)
def rollout_trials(key0: Any, first: int, count: int, seed: int, plies: int, truncate: int,
                   vr: bool, quasi: bool, cubeful: bool, bstop: bool, ci: Any, cf: Any,
                   mt: Any, mv: Any, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                   rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
                   bfirst: Any, out: Any) -> int:
    """Play trials ``first .. first + count - 1`` from ``key0`` (side on roll first, before
    its roll) and write each one's result, from the root side's view, into ``out[t]``
    (``float64[count, 5]``, or ``[count, 6]`` with ``cubeful``: the cubeful result last; see
    the module docstring). ``plies``: 0 or 1 (the chequer play); ``truncate``: stop after
    that many plies (0: play to the end) and take the evaluation at ``plies``; ``vr``:
    variance reduction; ``quasi``: stratified first two rolls; ``bstop``: a cubeless trial
    stops at a bear-off (with ``bo``) and takes the exact tables' value; ``ci``, ``cf``,
    ``mt``, ``mv``: the cube (see above). Returns the number of plies played."""
    boards, steps, dies, table, st = _scratch()
    sc2 = _scratch()
    x, h = net_scratch(cw1.shape[0], max(cb1.shape[0], rb1.shape[0]))
    v = np.zeros(NUM_OUTPUTS)
    bv = np.zeros(NUM_OUTPUTS)
    nv = np.zeros(NUM_OUTPUTS)
    none = new_cache(0)  # best_play's empty cache
    mean = np.zeros(NUM_OUTPUTS)
    actual = np.zeros(NUM_OUTPUTS)
    luck = np.zeros(NUM_OUTPUTS)
    res = np.zeros(NUM_OUTPUTS)
    tmp = np.zeros(NUM_OUTPUTS)
    dec = np.zeros(4)
    eqs = np.zeros(boards.shape[0])
    order = np.zeros(FILTER_COUNT, np.int64)
    nxt = np.zeros(50, np.uint8)
    rng = np.zeros(1, np.uint64)
    total_plies = 0
    for t in range(count):
        index = first + t
        game_stream(seed, index, rng)
        key = key0.copy()
        root = True  # the root side is on roll
        for m in range(NUM_OUTPUTS):
            luck[m] = 0.0
        cube = ci[1]
        owner = ci[2]
        cf_res = 0.0
        cf_luck = 0.0
        ply = 0
        while True:
            if _over(key):
                eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                         x, h, v)
                _to_root(v, root, res)
                if cubeful:
                    cf_res = _cube_end(res, cube, owner, ci, mv)
                break
            if bstop and bo and not cubeful and is_bearoff(key):
                eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                         x, h, v)  # exact: the one-sided tables
                _to_root(v, root, res)
                break
            if truncate > 0 and ply >= truncate or ply >= _MAX_PLIES:
                _value(key, plies, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff,
                       bfirst, sc2, x, h, bv, nv)
                _to_root(nv, root, res)
                if cubeful:
                    cf_res = _proper_root(key, nv, root, cube, owner, ci, cf, mt, mv, dec)
                break
            if cubeful and (ply > 0 or ci[9] == 1) and _may_double(root, cube, owner, ci):
                eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                         x, h, v)
                cube_decision(key, v, root, cube, owner, ci, cf, mt, mv, dec)
                if _doubles(dec):
                    if dec[1] > dec[2]:  # pass: the trial ends at the cube before the double
                        cf_res = _cube_pass(root, cube, ci, mv)
                        if plies == 0:
                            _to_root(v, root, res)
                        else:
                            _value(key, plies, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo,
                                   comp, boff, bfirst, sc2, x, h, bv, nv)
                            _to_root(nv, root, res)
                        break
                    cube *= 2  # take: the taker owns the cube
                    owner = 2 if root else 1
            if quasi and ply < 2:
                d1, d2 = stratified_roll(index, ply)
            else:
                d1 = roll_die(rng)
                d2 = roll_die(rng)
            lo = min(d1, d2)
            hi = max(d1, d2)
            have_move = False  # nxt already holds the chosen play (0 ply, found below)
            if vr:
                for m in range(NUM_OUTPUTS):
                    mean[m] = 0.0
                cf_mean = 0.0
                cf_actual = 0.0
                for r1 in range(1, 7):
                    for r2 in range(r1, 7):
                        w = 1.0 if r1 == r2 else 2.0  # of 36
                        n = generate(key, r1, r2, boards, steps, dies, table, st)
                        if n == 0:
                            after = _swapped(key)
                            eval_one(after, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2,
                                     bo, comp, boff, bfirst, x, h, bv)
                            k = -1
                        else:
                            k = best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2,
                                          bo, comp, boff, bfirst, x, h, bv, *none)
                            after = boards[k]
                        # bv: the next side's view; the mover's view is its flip
                        tmp[0] = 1.0 - bv[0]
                        tmp[1] = bv[3]
                        tmp[2] = bv[4]
                        tmp[3] = bv[1]
                        tmp[4] = bv[2]
                        for m in range(NUM_OUTPUTS):
                            mean[m] += w * tmp[m]
                        f = 0.0
                        if cubeful:  # the next side on roll takes its proper cube action
                            if _over(after):
                                _to_root(bv, not root, nv)
                                f = _cube_end(nv, cube, owner, ci, mv)
                            else:
                                f = _proper_root(after, bv, not root, cube, owner, ci, cf, mt,
                                                 mv, dec)
                            cf_mean += w * f
                        if r1 == lo and r2 == hi:
                            for m in range(NUM_OUTPUTS):
                                actual[m] = tmp[m]
                            cf_actual = f
                            if plies == 0:
                                have_move = True
                                nxt[:] = after
                for m in range(NUM_OUTPUTS):
                    tmp[m] = actual[m] - mean[m] / 36.0
                # the mover's luck, seen from the root side
                if root:
                    for m in range(NUM_OUTPUTS):
                        luck[m] += tmp[m]
                else:
                    luck[0] -= tmp[0]
                    luck[1] += tmp[3]
                    luck[2] += tmp[4]
                    luck[3] += tmp[1]
                    luck[4] += tmp[2]
                cf_luck += cf_actual - cf_mean / 36.0  # already the root side's value
            if not have_move:
                n = generate(key, d1, d2, boards, steps, dies, table, st)
                if n == 0:
                    nxt[:] = _swapped(key)
                else:
                    if n == 1:
                        k = 0
                    elif plies == 0:
                        k = best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo,
                                      comp, boff, bfirst, x, h, bv, *none)
                    else:
                        k = _choose_one_ply(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2,
                                            bo, comp, boff, bfirst, sc2, eqs, order, x, h, bv,
                                            nv)
                    nxt[:] = boards[k]
            ply += 1
            if _finished(nxt):
                pts = win_points(nxt)
                v[0] = 1.0
                v[1] = 1.0 if pts >= 2 else 0.0
                v[2] = 1.0 if pts >= 3 else 0.0
                v[3] = 0.0
                v[4] = 0.0
                _to_root(v, root, res)  # the mover (on roll before this ply) won
                if cubeful:
                    cf_res = _cube_end(res, cube, owner, ci, mv)
                break
            key[:] = nxt
            root = not root
        total_plies += ply
        for m in range(NUM_OUTPUTS):
            out[t, m] = res[m] - luck[m]
        if cubeful:
            out[t, NUM_OUTPUTS] = cf_res - cf_luck
    return total_plies


@njit(cache=True, nogil=True)
def accumulate(results: Any, sums: Any, cross: Any) -> None:
    """Add the rows of ``results`` (``float64[n, w]``), in order, to ``sums`` (``[w]``)
    and their outer products to ``cross`` (``[w, w]``)."""
    width = results.shape[1]
    for t in range(results.shape[0]):
        for i in range(width):
            a = results[t, i]
            sums[i] += a
            for j in range(width):
                cross[i, j] += a * results[t, j]
