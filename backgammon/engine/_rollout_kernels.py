"""Compiled (numba) kernels of the rollouts (:mod:`backgammon.analysis.rollout`).

:func:`rollout_trials` plays trials ``first .. first + count - 1`` of a rollout from one
position (a 50-byte key, side on roll first, before its roll) to the end of the game, or
for ``truncate`` plies, both sides choosing their plays at 0 ply (or at 1 ply on the best
few by 0 ply, gnubg's move filter). Each trial's result is written from the *root* side's
view as the five outputs (win, win gammon, win backgammon, lose gammon, lose backgammon):
0/1 indicators of the outcome, or the evaluation of the position where a truncated trial
stopped.

**Variance reduction** (gnubg's "luck adjustment"): before each roll the kernel looks at
all 21 rolls, the value ``f(roll)`` of each being the 0-ply outputs after that roll's best
0-ply play; ``luck = f(actual roll) − mean over the 36 rolls of f``. The trial's result is
its outcome minus the sum of its luck terms. Each luck term has mean zero whatever the past
of the trial, so the expectation is unchanged while most of the dice's noise cancels. With
1-ply play ``f`` stays the 0-ply value (valid, as any ``f`` is; the luck of a 1-ply choice
is not evaluated at 1 ply, which would cost 21 times more).

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
    best_play,
    equity_of,
    eval_one,
    game_stream,
    njit,
    roll_die,
    win_points,
)
from ._search_kernels import _one_ply, _scratch, _swapped

__all__ = ["FILTER_COUNT", "FILTER_MARGIN", "accumulate", "rollout_trials", "stratified_roll"]

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
        out[0] = 1.0 - v[0]
        out[1] = v[3]
        out[2] = v[4]
        out[3] = v[1]
        out[4] = v[2]


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
           bfirst: Any, sc2: Any, x: Any, h: Any, v: Any, bv: Any, out: Any) -> None:
    """Outputs of ``key`` for its side on roll at 0 or 1 ply into ``out``."""
    if plies == 0:
        eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst, x, h, out)
    else:
        _one_ply(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                 sc2[0], sc2[1], sc2[2], sc2[3], sc2[4], x, h, v, bv, out)


@njit(cache=True, nogil=True)
def _choose_one_ply(boards: Any, n: int, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                    rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
                    bfirst: Any, sc2: Any, eqs: Any, order: Any, x: Any, h: Any, v: Any,
                    bv: Any, nv: Any) -> int:
    """Index of the play (rows of ``boards``) with the best 1-ply equity for the mover among
    the best :data:`FILTER_COUNT` by 0 ply within :data:`FILTER_MARGIN` of the best (ties:
    the better 0-ply play, then the first)."""
    for k in range(n):
        eval_one(boards[k], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                 x, h, v)
        eqs[k] = -equity_of(v)
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
                 sc2[0], sc2[1], sc2[2], sc2[3], sc2[4], x, h, v, bv, nv)
        eq = -equity_of(nv)
        if eq > best_eq:
            best_eq = eq
            best = k
    return int(best)


@njit(cache=True, nogil=True)
def rollout_trials(key0: Any, first: int, count: int, seed: int, plies: int, truncate: int,
                   vr: bool, quasi: bool, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                   rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
                   bfirst: Any, out: Any) -> int:
    """Play trials ``first .. first + count - 1`` from ``key0`` (side on roll first, before
    its roll) and write each one's result, from the root side's view, into ``out[t]``
    (``float64[count, 5]``; see the module docstring). ``plies``: 0 or 1 (the chequer
    play); ``truncate``: stop after that many plies (0: play to the end) and take the
    evaluation at ``plies``; ``vr``: variance reduction; ``quasi``: stratified first two
    rolls. Returns the number of plies played."""
    boards, steps, dies, table, st = _scratch()
    sc2 = _scratch()
    x = np.zeros(cw1.shape[0])
    h = np.zeros(max(cb1.shape[0], rb1.shape[0]))
    v = np.zeros(NUM_OUTPUTS)
    bv = np.zeros(NUM_OUTPUTS)
    nv = np.zeros(NUM_OUTPUTS)
    mean = np.zeros(NUM_OUTPUTS)
    actual = np.zeros(NUM_OUTPUTS)
    luck = np.zeros(NUM_OUTPUTS)
    res = np.zeros(NUM_OUTPUTS)
    tmp = np.zeros(NUM_OUTPUTS)
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
        ply = 0
        while True:
            if _over(key):
                eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                         x, h, v)
                _to_root(v, root, res)
                break
            if truncate > 0 and ply >= truncate or ply >= _MAX_PLIES:
                _value(key, plies, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff,
                       bfirst, sc2, x, h, v, bv, nv)
                _to_root(nv, root, res)
                break
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
                for r1 in range(1, 7):
                    for r2 in range(r1, 7):
                        w = 1.0 if r1 == r2 else 2.0  # of 36
                        n = generate(key, r1, r2, boards, steps, dies, table, st)
                        if n == 0:
                            eval_one(_swapped(key), cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2,
                                     bo, comp, boff, bfirst, x, h, bv)
                            k = -1
                        else:
                            k = best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2,
                                          bo, comp, boff, bfirst, x, h, v, bv)
                        # bv: the next side's view; the mover's view is its flip
                        tmp[0] = 1.0 - bv[0]
                        tmp[1] = bv[3]
                        tmp[2] = bv[4]
                        tmp[3] = bv[1]
                        tmp[4] = bv[2]
                        for m in range(NUM_OUTPUTS):
                            mean[m] += w * tmp[m]
                        if r1 == lo and r2 == hi:
                            for m in range(NUM_OUTPUTS):
                                actual[m] = tmp[m]
                            if plies == 0:
                                have_move = True
                                if k < 0:
                                    nxt[:] = _swapped(key)
                                else:
                                    nxt[:] = boards[k]
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
            if not have_move:
                n = generate(key, d1, d2, boards, steps, dies, table, st)
                if n == 0:
                    nxt[:] = _swapped(key)
                else:
                    if n == 1:
                        k = 0
                    elif plies == 0:
                        k = best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo,
                                      comp, boff, bfirst, x, h, v, bv)
                    else:
                        k = _choose_one_ply(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2,
                                            bo, comp, boff, bfirst, sc2, eqs, order, x, h, v,
                                            bv, nv)
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
                break
            key[:] = nxt
            root = not root
        total_plies += ply
        for m in range(NUM_OUTPUTS):
            out[t, m] = res[m] - luck[m]
    return total_plies


@njit(cache=True, nogil=True)
def accumulate(results: Any, sums: Any, cross: Any) -> None:
    """Add the rows of ``results`` (``float64[n, 5]``), in order, to ``sums`` (``[5]``)
    and their outer products to ``cross`` (``[5, 5]``)."""
    for t in range(results.shape[0]):
        for i in range(NUM_OUTPUTS):
            a = results[t, i]
            sums[i] += a
            for j in range(NUM_OUTPUTS):
                cross[i, j] += a * results[t, j]
