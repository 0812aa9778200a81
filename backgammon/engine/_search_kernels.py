"""Compiled (numba) kernels built on the evaluation kernels of :mod:`._kernels`: 1-ply
look-ahead, position sampling by noisy self-play, and duplicate-dice matches between two
networks.

* :func:`one_ply_batch` is the one implementation of the 1-ply evaluation: used by
  :meth:`.evaluator.Evaluator.one_ply_outputs` (and so by the ``worldclass`` bot) and by the
  supervised refinement (:mod:`.refine`), which trains the networks toward their own 1-ply
  values.
* :func:`two_ply_batch` is the 2-ply evaluation (the ``grandmaster`` bot): 1 ply after
  each roll's best 0-ply play, with two caches for the call (positions and plays met again
  by transposition are evaluated once; about a third of the work in our measurement).
* :func:`sample_positions` plays seeded self-play games at 0 ply with Gaussian noise on the
  equities (the weaker bots' idea) and records the positions met, side on roll first.
* :func:`trajectories` plays seeded self-play games at 0 ply and records every position
  with its 0-ply and 1-ply outputs; :func:`lambda_targets` turns them into luck-adjusted
  outcomes (the training targets of ``refine --trajectory-lambda``).
* :func:`match_nets` plays a network against another one, or against pubeval, on duplicate
  dice (the strength checks of :mod:`.train` and :mod:`.refine`).

Keys are 50-byte position keys, side on roll first, as everywhere in the engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._movegen import MAX_PLAYS, generate
from ._kernels import (
    NUM_OUTPUTS,
    _finished,
    best_play,
    cache_slot,
    cache_store,
    clip_outputs,
    equity_of,
    eval_one,
    game_stream,
    is_bearoff,
    is_contact,
    net_scratch,
    new_cache,
    next_u64,
    njit,
    no_pruner,
    play_outputs,
    pruned_best_play,
    roll_die,
    start_game,
    win_points,
)

__all__ = ["LEAF_SLOTS", "MID_SLOTS", "match_nets", "one_ply_batch", "sample_positions",
           "lambda_targets", "trajectories", "two_ply_batch"]


@njit(cache=True, nogil=True)
def _scratch() -> Any:
    """Work arrays of the move generator (:func:`backgammon._movegen.generate`)."""
    return (np.zeros((MAX_PLAYS, 50), np.uint8), np.zeros((MAX_PLAYS, 12), np.int8),
            np.zeros(MAX_PLAYS, np.int8), np.zeros((8192, 2), np.int64), np.zeros(3, np.int64))


@njit(cache=True, nogil=True)
def _swapped(key: Any) -> Any:
    """The same position with the other side on roll (no play was possible)."""
    nxt = np.empty(50, np.uint8)
    nxt[:25] = key[25:]
    nxt[25:] = key[:25]
    return nxt


@njit(cache=True, nogil=True)
def _one_ply(key: Any, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
             rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
             bfirst: Any, boards: Any, steps: Any, dies: Any, table: Any, st: Any,
             x: Any, h: Any, bv: Any, out: Any) -> None:
    """1-ply outputs of ``key`` for its side on roll into ``out`` (see
    :func:`one_ply_batch`); the other arrays are scratch space. No cache
    (:func:`_one_ply_cached` with the empty one)."""
    _one_ply_cached(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                    boards, steps, dies, table, st, x, h, bv, out, *new_cache(0),
                    *no_pruner())


@njit(cache=True, nogil=True)
def _add_flipped(acc: Any, w: float, v: Any) -> None:
    """``acc += w · v`` with ``v`` seen by the other side turned to ``acc``'s side."""
    acc[0] += w * (1.0 - v[0])
    acc[1] += w * v[3]
    acc[2] += w * v[4]
    acc[3] += w * v[1]
    acc[4] += w * v[2]


@njit(cache=True, nogil=True)
def one_ply_batch(keys: Any, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                  rw1: Any, rb1: Any, rw2: Any, rb2: Any,
                  bo: bool, comp: Any, boff: Any, bfirst: Any, out: Any,
                  pw1: Any, pb1: Any, pw2: Any, pset: Any) -> None:
    """1-ply outputs of every row of ``keys`` for its side on roll into ``out``
    (``float64[n, 5]``): the average over the 21 rolls (doubles weighing 1/36, the others
    2/36) of the outputs after the roller's best 0-ply play (or of the position passed to
    the other side when no play is possible). Finished games and, with ``bo``, bear-offs
    keep their exact outputs. Clipped consistent. ``pw1 .. pset``: a pruning network
    that picks the plays the best is chosen from (:func:`._kernels.pruned_best_play`;
    :func:`._kernels.no_pruner`: all of them)."""
    boards, steps, dies, table, st = _scratch()
    x, h = net_scratch(cw1.shape[0], max(cb1.shape[0], rb1.shape[0]))
    bv = np.zeros(NUM_OUTPUTS)
    nused, nkeys, nvals = new_cache(0)
    for r in range(keys.shape[0]):
        _one_ply_cached(keys[r], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff,
                        bfirst, boards, steps, dies, table, st, x, h, bv, out[r], nused,
                        nkeys, nvals, pw1, pb1, pw2, pset)


#: Slots of the evaluation caches of one :func:`two_ply_batch` call: the
#: leaves (0-ply outputs of the plays met at the last ply) and the 1-ply outputs of the
#: positions met after the opponent's reply.
LEAF_SLOTS = 1 << 17
MID_SLOTS = 1 << 12


@njit(cache=True, nogil=True)
def _one_ply_cached(key: Any, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                    rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
                    bfirst: Any, boards: Any, steps: Any, dies: Any, table: Any, st: Any,
                    x: Any, h: Any, bv: Any, out: Any,
                    used: Any, ckeys: Any, cvals: Any,
                    pw1: Any, pb1: Any, pw2: Any, pset: Any) -> None:
    """:func:`_one_ply` with the leaves' outputs cached (:func:`._kernels.best_play` with a
    cache) and each roll's plays pruned by ``pw1 .. pset``
    (:func:`._kernels.pruned_best_play`)."""
    kind = eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                    x, h, out)
    if kind <= 1:
        return
    for m in range(NUM_OUTPUTS):
        out[m] = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = (1.0 if d1 == d2 else 2.0) / 36.0
            n = generate(key, d1, d2, boards, steps, dies, table, st)
            if n == 0:
                eval_one(_swapped(key), cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp,
                         boff, bfirst, x, h, bv)
            else:
                pruned_best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp,
                                 boff, bfirst, x, h, bv, used, ckeys, cvals,
                                 pw1, pb1, pw2, pset)
            _add_flipped(out, w, bv)
    clip_outputs(out)


@njit(cache=True, nogil=True)
def two_ply_batch(keys: Any, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                  rw1: Any, rb1: Any, rw2: Any, rb2: Any,
                  bo: bool, comp: Any, boff: Any, bfirst: Any, out: Any,
                  pw1: Any, pb1: Any, pw2: Any, pset: Any) -> None:
    """2-ply outputs of every row of ``keys`` for its side on roll into ``out``: the
    average over the 21 rolls of the *1-ply* outputs (:func:`one_ply_batch`, for the other
    side, turned) after the roller's best 0-ply play. Finished games and, with ``bo``,
    bear-offs keep their exact outputs. About 21 times the work of 1 ply, less what the
    call's two caches save: positions reached again after the reply (their 1-ply
    outputs, :data:`MID_SLOTS`) and plays met again at the last ply (their 0-ply outputs,
    :data:`LEAF_SLOTS`) — transpositions, within a row's tree and across the rows (a
    decision's candidates share a call). The values are those computed without them.
    ``pw1 .. pset`` prune every roll's plays at both plies (:func:`one_ply_batch`)."""
    boards, steps, dies, table, st = _scratch()
    boards2, steps2, dies2, table2, st2 = _scratch()
    x, h = net_scratch(cw1.shape[0], max(cb1.shape[0], rb1.shape[0]))
    bv = np.zeros(NUM_OUTPUTS)
    nv = np.zeros(NUM_OUTPUTS)
    nused, nkeys, nvals = new_cache(0)  # the first ply's choice is not cached
    used, ckeys, cvals = new_cache(LEAF_SLOTS)
    mused, mkeys, mvals = new_cache(MID_SLOTS)
    for r in range(keys.shape[0]):
        key = keys[r]
        acc = out[r]
        kind = eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                        x, h, acc)
        if kind <= 1:
            continue
        for m in range(NUM_OUTPUTS):
            acc[m] = 0.0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                w = (1.0 if d1 == d2 else 2.0) / 36.0
                n = generate(key, d1, d2, boards, steps, dies, table, st)
                if n == 0:
                    nxt = _swapped(key)
                else:
                    k = pruned_best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2,
                                         bo, comp, boff, bfirst, x, h, bv, nused, nkeys,
                                         nvals, pw1, pb1, pw2, pset)
                    nxt = boards[k]  # the 1-ply below works in its own scratch arrays
                j = cache_slot(mused, mkeys, nxt)
                if j >= 0:
                    for m in range(NUM_OUTPUTS):
                        nv[m] = mvals[j, m]
                else:
                    _one_ply_cached(nxt, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp,
                                    boff, bfirst, boards2, steps2, dies2, table2, st2, x, h,
                                    bv, nv, used, ckeys, cvals, pw1, pb1, pw2, pset)
                    cache_store(mused, mkeys, mvals, -j - 1, nxt, nv)
                _add_flipped(acc, w, nv)
        clip_outputs(acc)


@njit(cache=True, nogil=True)
def _uniform(state: Any) -> float:
    """A float in (0, 1) from the xorshift64* state ``uint64[1]``."""
    return (float(next_u64(state) >> np.uint64(11)) + 0.5) / 9007199254740992.0


@njit(cache=True, nogil=True)
def _gauss(state: Any) -> float:
    """A standard normal deviate (Box–Muller) from the xorshift64* state."""
    u1 = _uniform(state)
    u2 = _uniform(state)
    return float(np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2))


@njit(cache=True, nogil=True)
def _noisy_choice(boards: Any, n: int, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                  rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
                  bfirst: Any, x: Any, h: Any, outs: Any, noise: float, noise_rng: Any) -> int:
    """Index of the play with the best 0-ply equity for the mover plus Gaussian noise of
    standard deviation ``noise`` (none on a play that ends the game: it is exact)."""
    play_outputs(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                 x, h, outs, *new_cache(0))
    best = 0
    best_eq = -1e18
    for k in range(n):
        eq = -equity_of(outs[k])
        if noise > 0.0 and not _finished(boards[k]):
            eq += noise * _gauss(noise_rng)
        if eq > best_eq:
            best_eq = eq
            best = k
    return best


@njit(cache=True, nogil=True)
def _game_ends(key: Any, bo: bool) -> bool:
    """Has a side borne off everything, or (with ``bo``) is ``key`` a bear-off valued
    exactly?"""
    a = 0
    b = 0
    for i in range(25):
        a += key[i]
        b += key[25 + i]
    return a == 0 or b == 0 or (bo and is_bearoff(key))


@njit(cache=True, nogil=True)
def sample_positions(seed: int, first: int, count: int, noise: float,
                     cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                     rw1: Any, rb1: Any, rw2: Any, rb2: Any,
                     bo: bool, comp: Any, boff: Any, bfirst: Any, out: Any) -> int:
    """Play games ``first .. first + count - 1`` of seed ``seed`` by self-play at 0 ply,
    each play's equity perturbed by Gaussian noise of standard deviation ``noise``, and
    write the positions met (side on roll first; before the opening roll's play too) into
    the rows of ``out`` (``uint8[capacity, 50]``) until it is full. Positions that are
    valued exactly (bear-offs, with ``bo``) end a game. Returns the number of rows
    written."""
    nin = cw1.shape[0]
    boards, steps, dies, table, st = _scratch()
    x, h = net_scratch(nin, max(cb1.shape[0], rb1.shape[0]))
    outs = np.empty((MAX_PLAYS, NUM_OUTPUTS))
    rng = np.zeros(1, np.uint64)
    noise_rng = np.zeros(1, np.uint64)
    cap = out.shape[0]
    m = 0
    for g in range(first, first + count):
        if m >= cap:
            break
        key, d1, d2, _ = start_game(seed, g, rng)
        game_stream(seed ^ 0x5A5A5A5A, g, noise_rng)
        for ply in range(10000):
            if m >= cap:
                break
            out[m, :] = key
            m += 1
            n = generate(key, d1, d2, boards, steps, dies, table, st)
            if n == 0:
                key = _swapped(key)
            else:
                best = _noisy_choice(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo,
                                     comp, boff, bfirst, x, h, outs, noise, noise_rng)
                key = boards[best].copy()
            if _game_ends(key, bo):
                break
            d1 = roll_die(rng)
            d2 = roll_die(rng)
    return m


@njit(cache=True, nogil=True)
def trajectories(seed: int, first: int, count: int, noise: float, noisy_plies: int,
                 cw1: Any, cb1: Any, cw2: Any, cb2: Any, rw1: Any, rb1: Any, rw2: Any, rb2: Any,
                 bo: bool, comp: Any, boff: Any, bfirst: Any,
                 keys: Any, v0: Any, v1: Any, games: Any,
                 pw1: Any, pb1: Any, pw2: Any, pset: Any) -> int:
    """Play games ``first .. first + count - 1`` of seed ``seed`` by 0-ply self-play, the
    first ``j`` plies of each with the equities perturbed as in :func:`sample_positions`
    (``j`` drawn from 0 .. ``noisy_plies`` per game, so that the games spread out), the
    rest by the best 0-ply play; and record every position met after those ``j`` plies and
    the opening's (whose roll is never a double, so its luck would not have mean zero;
    side on roll first, before its roll) into ``keys`` with its 0-ply outputs (``v0``),
    its 1-ply outputs (``v1``: the mean over the 21 rolls of the outputs after the best
    0-ply play, exactly what :func:`one_ply_batch` gives) and its game's index
    (``games``), until the arrays are full. A game ends at a finished game or, with
    ``bo``, at a bear-off (exact). No game is started with fewer than 500 rows left (a
    longer one is cut there). Returns the number of rows written.

    These are the terms of a luck-adjusted (variance-reduced) outcome of each game from
    each of its positions (:func:`lambda_targets`): the play after position
    ``t`` is the best 0-ply play, the one the 1-ply mean assumes, so the luck of each roll
    (the outputs after it less the 1-ply mean) has mean zero. With a pruning network
    (``pw1 .. pset``, :func:`._kernels.pruned_best_play`) both the 1-ply mean and the
    play after it choose among the plays it keeps: the luck still has mean zero."""
    boards, steps, dies, table, st = _scratch()
    x, h = net_scratch(cw1.shape[0], max(cb1.shape[0], rb1.shape[0]))
    outs = np.empty((MAX_PLAYS, NUM_OUTPUTS))
    used, ckeys, cvals = new_cache(MID_SLOTS)  # a position's leaves, found again for its roll
    bv = np.zeros(NUM_OUTPUTS)
    rng = np.zeros(1, np.uint64)
    noise_rng = np.zeros(1, np.uint64)
    cap = keys.shape[0]
    m = 0
    for g in range(first, first + count):
        if m + 500 > cap:
            break
        key, d1, d2, _ = start_game(seed, g, rng)
        game_stream(seed ^ 0x3C3C3C3C, g, noise_rng)
        noisy = int(_uniform(noise_rng) * (noisy_plies + 1))
        for ply in range(10000):
            if m >= cap:
                break
            recorded = ply >= noisy and ply > 0  # then the best 0-ply play follows
            if recorded:
                keys[m, :] = key
                games[m] = g
                eval_one(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                         x, h, v0[m])
                _one_ply_cached(key, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff,
                                bfirst, boards, steps, dies, table, st, x, h, bv, v1[m],
                                used, ckeys, cvals, pw1, pb1, pw2, pset)
                m += 1
            n = generate(key, d1, d2, boards, steps, dies, table, st)
            if n == 0:
                nxt = _swapped(key)
            elif recorded:  # the 1-ply pass left these plays in the cache
                nxt = boards[pruned_best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2,
                                              rb2, bo, comp, boff, bfirst, x, h, bv, used,
                                              ckeys, cvals, pw1, pb1, pw2, pset)]
            else:
                nxt = boards[_noisy_choice(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2,
                                           bo, comp, boff, bfirst, x, h, outs,
                                           noise if ply < noisy else 0.0, noise_rng)]
            key = nxt.copy()
            if _game_ends(key, bo):
                break
            d1 = roll_die(rng)
            d2 = roll_die(rng)
    return m


@njit(cache=True, nogil=True)
def lambda_targets(v0: Any, v1: Any, games: Any, lam: float, out: Any,
                   clip: bool = True) -> None:
    """Targets of :func:`trajectories`' rows into ``out``: row ``t``'s 1-ply outputs plus
    ``lam`` times the next row's (same game) target less its 0-ply outputs, turned to row
    ``t``'s side (win differences change sign, the gammon columns swap). With ``lam = 1``
    this is the game's outcome less the luck of every roll from ``t`` on (each roll's
    outputs after it less the 1-ply mean before it): an unbiased value of the 0-ply
    player's position whatever the network's errors; with ``lam = 0`` the 1-ply outputs.
    The targets are clipped consistent (:func:`._kernels.clip_outputs`) after the
    recursion, which runs on the unclipped ones; ``clip=False`` leaves them unclipped (a
    noisy unbiased value stays unbiased: ``training/runs/sl38/calib.py``)."""
    n = v0.shape[0]
    y = np.empty(NUM_OUTPUTS)
    d = np.empty(NUM_OUTPUTS)
    for t in range(n - 1, -1, -1):
        if t + 1 < n and games[t + 1] == games[t]:
            for i in range(NUM_OUTPUTS):
                d[i] = y[i] - v0[t + 1, i]  # y: row t + 1's unclipped target
            y[0] = v1[t, 0] - lam * d[0]
            y[1] = v1[t, 1] + lam * d[3]
            y[2] = v1[t, 2] + lam * d[4]
            y[3] = v1[t, 3] + lam * d[1]
            y[4] = v1[t, 4] + lam * d[2]
        else:
            for i in range(NUM_OUTPUTS):
                y[i] = v1[t, i]
        for i in range(NUM_OUTPUTS):
            out[t, i] = y[i]
        if clip:
            clip_outputs(out[t])


@njit(cache=True, nogil=True)
def _pubeval_score(row: Any, wts: Any) -> float:
    """Tesauro's pubeval score of a play's resulting key ``row`` (mover in slots 25..49)."""
    s = 0.0
    for kb in range(24):
        m = row[25 + 23 - kb]
        o = row[kb]
        base = 5 * kb
        if o == 1:
            s += wts[base]
        if m == 1:
            s += wts[base + 1]
        if m >= 2:
            s += wts[base + 2]
        if m == 3:
            s += wts[base + 3]
        if m > 3:
            s += wts[base + 4] * (m - 3) / 2.0
    s += wts[120] * row[24] / 2.0
    on = 0
    for i in range(25, 50):
        on += row[i]
    s += wts[121] * (15 - on) / 15.0
    return float(s)


@njit(cache=True, nogil=True)
def _pubeval_choice(boards: Any, n: int, wts: Any) -> int:
    """Index of the play pubeval prefers (a finished game first)."""
    k = 0
    best = -1e18
    for j in range(n):
        sc = 99999999.0 if _finished(boards[j]) else _pubeval_score(boards[j], wts)
        if sc > best:
            best = sc
            k = j
    return k


@njit(cache=True, nogil=True)
def match_nets(seed: int, pairs: int,
               aw1: Any, ab1: Any, aw2: Any, ab2: Any, arw1: Any, arb1: Any, arw2: Any,
               arb2: Any,
               bw1: Any, bb1: Any, bw2: Any, bb2: Any, brw1: Any, brb1: Any, brw2: Any,
               brb2: Any, b_pubeval: bool, wrace: Any, wcontact: Any,
               bo: bool, comp: Any, boff: Any, bfirst: Any, out: Any) -> None:
    """Duplicate-dice cubeless match between network pair A and network pair B (or, with
    ``b_pubeval``, Tesauro's pubeval with weights ``wrace`` / ``wcontact``), both at 0 ply:
    ``pairs`` dice sequences (those of :func:`._kernels.game_stream`), each played twice
    with the seats swapped. ``out[p]`` receives A's points over pair ``p``."""
    nin = aw1.shape[0]
    boards, steps, dies, table, st = _scratch()
    x, h = net_scratch(nin, max(ab1.shape[0], arb1.shape[0], bb1.shape[0], brb1.shape[0]))
    bv = np.zeros(NUM_OUTPUTS)
    none = new_cache(0)  # best_play's empty cache
    rng = np.zeros(1, np.uint64)
    for p in range(pairs):
        total = 0
        for game in range(2):
            a_seat = game
            key, d1, d2, turn = start_game(seed, p, rng)
            result = 0
            for ply in range(10000):
                n = generate(key, d1, d2, boards, steps, dies, table, st)
                if n == 0:
                    key = _swapped(key)
                else:
                    if turn == a_seat:
                        k = best_play(boards, n, aw1, ab1, aw2, ab2, arw1, arb1, arw2, arb2,
                                        bo, comp, boff, bfirst, x, h, bv, *none)
                    elif b_pubeval:
                        k = _pubeval_choice(boards, n, wcontact if is_contact(key) else wrace)
                    else:
                        k = best_play(boards, n, bw1, bb1, bw2, bb2, brw1, brb1, brw2, brb2,
                                        bo, comp, boff, bfirst, x, h, bv, *none)
                    key = boards[k].copy()
                    if _finished(key):
                        pts = win_points(key)
                        result = pts if turn == a_seat else -pts
                        break
                turn = 1 - turn
                d1 = roll_die(rng)
                d2 = roll_die(rng)
            total += result
        out[p] = total
