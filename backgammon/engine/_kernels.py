"""Compiled (numba) kernels of the engine: input encoding, network forward pass, the
self-play TD(λ) training loop (the searches and matches built on them are in
:mod:`._search_kernels`).

Every kernel works on 50-byte position keys (``uint8[50]``, the layout of
:attr:`backgammon.LegalMoves.boards`): the side on roll's 25 slots (slot ``i`` is its point
``i + 1``, slot 24 its bar), then the other side's 25 slots from its own view. A network
evaluates a key *for the side on roll* (the first 25 slots).

All kernels are ``@njit(cache=True, nogil=True)`` and free of recursion (numba's cache
cannot hold recursive functions). Random numbers come from a xorshift64* generator whose
state is a ``uint64[1]`` array, so a training run is reproducible bit for bit and resumes
exactly from a checkpoint.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._movegen import MAX_PLAYS, generate
from ._jit_cache import check_engine_cache

__all__ = ["NUM_INPUTS", "NUM_OUTPUTS", "PRUNE_INPUTS", "RACE_INPUTS", "best_play", "cache_slot", "cache_store", "classify_batch",
           "clip_outputs", "contact_two", "encode_batch", "eval_kind", "eval_one", "evaluate_batch",
           "forward", "forward_two", "keep_better", "kind_of", "net_scratch", "new_cache", "njit",
           "no_pruner", "play_outputs", "prune_score", "pruned_best_play", "race_extra", "encode_race_batch", "train_games"]

try:
    from numba import njit
except ImportError:  # pragma: no cover
    def njit(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

check_engine_cache()  # before any kernel below is compiled or loaded from numba's cache

#: Inputs per side: 24 points × 4 (Tesauro's truncated unary), bar (2), borne off (1),
#: then :data:`N_HAND` hand-made features, then :data:`N_EXTRA` more.
N_RAW = 24 * 4 + 3
#: The first hand-made features per side (see :func:`_side_features`).
N_HAND = 10
#: The hand-made features added after them (format 2; see :func:`_extra_features`).
N_EXTRA = 10
PER_SIDE = N_RAW + N_HAND + N_EXTRA
#: Network inputs: the side on roll's block then the other side's.
NUM_INPUTS = 2 * PER_SIDE
#: Inputs per side and in all of the first layout (format 1: no :data:`N_EXTRA` features).
OLD_PER_SIDE = N_RAW + N_HAND
OLD_NUM_INPUTS = 2 * OLD_PER_SIDE
#: Network outputs: win, win gammon, win backgammon, lose gammon, lose backgammon.
NUM_OUTPUTS = 5
#: The race network's own inputs per side (optional, weights format 4; see
#: :func:`race_extra`): the checkers borne off in unary (14), the crossovers still to make,
#: the checkers not yet home.
N_RACE_EXTRA_SIDE = 16
#: Inputs of a race network that has them: :data:`NUM_INPUTS`, then both sides' race inputs.
RACE_INPUTS = NUM_INPUTS + 2 * N_RACE_EXTRA_SIDE


# -- position helpers -------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def is_contact(key: Any) -> bool:
    """True unless contact is broken (as :meth:`backgammon.Position.is_race`, negated)."""
    back = 0
    for p in range(25, 0, -1):
        if key[p - 1] > 0:
            back = p
            break
    oback = 0
    for q in range(25, 0, -1):
        if key[24 + q] > 0:
            oback = q
            break
    if back == 0 or oback == 0:
        return False
    return back + oback > 25


@njit(cache=True, nogil=True)
def is_bearoff(key: Any) -> bool:
    """True when every checker of both sides is on its own home board (points 1–6)."""
    for i in range(6, 25):
        if key[i] > 0 or key[25 + i] > 0:
            return False
    return True


# -- features ---------------------------------------------------------------------------------
#
# Every feature of a side ``c`` reads three bit sets computed once per position (bit ``t`` is
# point ``t`` in ``c``'s numbering, 1..24): ``src``, the points ``c`` occupies; ``hm``, the
# points the other side ``o`` holds (two or more checkers); ``bl``, ``o``'s blots. The
# escape counts come from two small tables (:func:`_escape_tables`) indexed by the held points
# in front of a checker.

@njit(cache=True, nogil=True)
def _popcount(x: int) -> int:
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
def _lowest_bit(x: int) -> int:
    """Index of the lowest set bit of ``x > 0``."""
    i = 0
    while not (x >> i) & 1:
        i += 1
    return i


@njit(cache=True, nogil=True)
def _top_bit(x: int) -> int:
    """Index of the highest set bit of ``0 < x < 2**32``."""
    t = 0
    if x >> 16:
        x >>= 16
        t += 16
    if x >> 8:
        x >>= 8
        t += 8
    if x >> 4:
        x >>= 4
        t += 4
    if x >> 2:
        x >>= 2
        t += 2
    if x >> 1:
        t += 1
    return t


@njit(cache=True, nogil=True)
def _escape_rolls(hm: int, p: int) -> int:
    """Rolls (of 36) that carry a checker on point ``p`` past every point held (``hm``:
    bit t) within 12 pips in front of it (36 when none is). The definition; the encoder
    reads the tables of :func:`_escape_tables`."""
    lowest = 0
    for t in range(max(1, p - 12), p):
        if (hm >> t) & 1:
            lowest = t
            break
    if lowest == 0:
        return 36
    total = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            ok = False
            if d1 == d2:
                pos = p
                for _ in range(4):
                    nxt = pos - d1
                    if nxt >= 1 and (hm >> nxt) & 1:
                        break
                    pos = nxt
                    if pos < lowest:
                        ok = True
                        break
            else:
                for first in range(2):
                    a1 = d1 if first == 0 else d2
                    a2 = d2 if first == 0 else d1
                    m = p - a1
                    if m >= 1 and (hm >> m) & 1:
                        continue
                    if m < lowest:
                        ok = True
                        break
                    m2 = m - a2
                    if m2 < lowest and not (m2 >= 1 and (hm >> m2) & 1):
                        ok = True
                        break
            if ok:
                total += 1 if d1 == d2 else 2
    return total


@njit(cache=True, nogil=True)
def _escape_tables() -> Any:
    """:func:`_escape_rolls` of a checker on point 24 by pattern ``w`` of held points 12..23
    (bit ``j`` of ``w``: point ``12 + j``): ``base[w]`` when nothing below is held, and
    ``beyond[w]``: bit ``j`` set when holding point ``6 + j`` too takes one roll away.

    Only the points within 12 pips in front of a checker, and the 6 beyond them, count:
    a walk stops at the first point past the lowest held one, at most 6 pips past it. A
    point beyond can only be where a double's walk lands past the block (one point for
    each double; in fact only 5-5's third step, 15 pips ahead, ever reaches one), so their
    effects add up: ``_escape_rolls = base[w] − popcount(beyond[w] & b)`` for the held
    points ``b`` beyond (tests/test_features.py checks every pattern). The count depends on
    the points only relative to the checker's (points below 1 are never held)."""
    base = np.empty(4096, np.uint8)
    beyond = np.zeros(4096, np.uint8)
    for w in range(4096):
        e = _escape_rolls(w << 12, 24)
        base[w] = e
        for j in range(6):
            if _escape_rolls((w << 12) | (1 << (6 + j)), 24) < e:
                beyond[w] |= 1 << j
    return base, beyond


#: :func:`_escape_tables`, read by :func:`_escapes` (global arrays: numba compiles them
#: in as constants).
_ESCAPE_BASE, _ESCAPE_BEYOND = _escape_tables()


@njit(cache=True, nogil=True)
def _escapes(hm: int, p: int) -> int:
    """:func:`_escape_rolls` ``(hm, p)`` from :data:`_ESCAPE_BASE` and
    :data:`_ESCAPE_BEYOND`: ``x`` holds the points ``p − 18 .. p − 1`` (bit ``j``: point
    ``p − 18 + j``)."""
    x = ((hm << 18) >> p) & 0x3FFFF
    w = x >> 6
    return int(_ESCAPE_BASE[w]) - _popcount(int(_ESCAPE_BEYOND[w]) & x & 0x3F)


@njit(cache=True, nogil=True)
def _hit_rolls(src: int, hasbar: bool, hm: int, bl: int) -> tuple[int, int]:
    """``(rolls, pips)``: the rolls (of 36) with which ``c`` (occupying ``src``; only its
    bar when ``hasbar``) hits a blot (``bl``) directly or indirectly, landing between only
    on points not held (``hm``), and the pips the other side loses summed over the 36 rolls
    when ``c`` hits its costliest blot with each roll (a blot on ``c``'s point ``t`` loses
    ``t`` pips: from its point ``25 − t`` back to its bar)."""
    if bl == 0:
        return 0, 0
    s = (1 << 25) if hasbar else src
    free = ~hm
    rolls = 0
    loss = 0
    for d1 in range(1, 7):
        a1 = s >> d1
        w = a1  # the double: up to four steps, each landing on a point not held
        h = w & bl
        w = ((w & free) >> d1)
        h |= w & bl
        w = ((w & free) >> d1)
        h |= w & bl
        w = ((w & free) >> d1)
        h |= w & bl
        if h != 0:
            rolls += 1
            loss += _top_bit(h)
        f1 = a1 & free
        for d2 in range(d1 + 1, 7):
            a2 = s >> d2
            h = (a1 | a2 | (f1 >> d2) | ((a2 & free) >> d1)) & bl
            if h != 0:
                rolls += 2
                loss += 2 * _top_bit(h)
    return rolls, loss


@njit(cache=True, nogil=True)
def _two_different(c: Any, h1: int, h2: int, d1: int, d2: int) -> bool:
    """Whether some blot ``x`` hit with ``d1`` (bit set ``h1``) and some other blot ``y``
    hit with ``d2`` (``h2``) are hit by two different checkers of ``c``: they are unless
    one checker alone stands at ``x + d1 == y + d2``."""
    r1 = h1
    while r1 != 0:  # each blot x that d1 hits, each other blot y that d2 hits
        x = _lowest_bit(r1)
        r1 &= r1 - 1
        r2 = h2 & ~(1 << x)
        while r2 != 0:
            y = _lowest_bit(r2)
            r2 &= r2 - 1
            a = x + d1
            if a != y + d2 or c[a - 1] >= 2:  # two different checkers
                return True
    return False


@njit(cache=True, nogil=True)
def _two_hits_mixed(c: Any, src: int, nb: int, bl: int, d1: int, d2: int) -> bool:
    """Can ``c`` hit two blots (``bl``: bit t, ``c``'s numbering) with the roll
    ``d1 != d2``? ``src``: ``c``'s occupied points (bits 1–24), ``nb``: its bar."""
    if nb >= 2:  # both dice enter
        return bool((bl >> (25 - d1)) & 1) and bool((bl >> (25 - d2)) & 1)
    for first in range(2):
        x = d1 if first == 0 else d2
        y = d2 if first == 0 else d1
        if nb == 1:
            e = 25 - x
            if (bl >> e) & 1:
                if (bl >> (e - y)) & 1:  # the entered checker hits again
                    return True
                if ((src >> y) & bl) & ~(1 << e):  # another checker hits another blot
                    return True
        else:
            hit = (src >> x) & bl
            if hit != 0 and ((hit >> y) & bl) != 0:  # one checker hits twice
                return True
    if nb == 1:
        return False
    h1 = (src >> d1) & bl
    h2 = (src >> d2) & bl
    if h1 == 0 or h2 == 0:
        return False
    if _popcount(h1 | h2) < 2:
        return False
    return _two_different(c, h1, h2, d1, d2)


@njit(cache=True, nogil=True)
def _two_hits_double(src: int, nb: int, hm: int, bl: int, d: int) -> bool:
    """:func:`_two_hits_mixed` for the double ``d`` (four steps; checkers on the bar enter
    first, one step each; ``hm``: the points ``o`` holds). The checkers on the board move
    together as bit sets: a shift by ``d`` is one step of every one of them."""
    if nb > 0 and (hm >> (25 - d)) & 1:
        return False
    free = ~hm & 0x1FFFFFE  # points 1..24 not held
    bar_first = 0  # the checker entering from the bar: its first hit (steps) and blot
    bar_blot = 0
    if nb > 0:
        for j in range(1, 5):
            t = 25 - j * d
            if t < 1 or (hm >> t) & 1:
                break
            if (bl >> t) & 1:
                if bar_first == 0:
                    bar_first = j
                    bar_blot = t
                else:
                    if j + nb - 1 <= 4:  # it hits twice
                        return True
                    break
    x1 = 0  # blots that checkers on the board hit first after 1, 2, 3 steps
    x2 = 0
    x3 = 0
    alive = src  # where each board checker's walk stands (bits; one bit per checker walk)
    once = 0  # the walks that have hit once, where they stand
    for j in range(1, 5):
        alive = (alive >> d) & free
        once = (once >> d) & free
        if j + nb <= 4 and (once & bl) != 0:  # one checker hits twice
            return True
        new = alive & bl & ~once
        if j == 1:
            x1 = new
        elif j == 2:
            x2 = new
        elif j == 3:
            x3 = new
        once |= new
    if bar_first > 0:  # the entering checker hits one, a checker on the board another
        budget = 4 - (nb - 1) - bar_first
        other = 0
        if budget >= 1:
            other |= x1
        if budget >= 2:
            other |= x2
        if budget >= 3:
            other |= x3
        if other & ~(1 << bar_blot):
            return True
    budget = 4 - nb  # two checkers on the board, k1 + k2 steps
    if budget >= 2 and _popcount(x1) >= 2:
        return True
    if budget >= 3 and x1 != 0 and x2 != 0 and _popcount(x1 | x2) >= 2:
        return True
    if budget >= 4:
        if _popcount(x2) >= 2:
            return True
        if x1 != 0 and x3 != 0 and _popcount(x1 | x3) >= 2:
            return True
    return False


@njit(cache=True, nogil=True)
def _two_checkers_hit(c: Any, h1: int, h2: int, d1: int, d2: int) -> bool:
    """Do two different checkers of ``c`` (none on the bar) hit two different blots, one
    with ``d1`` (blots ``h1`` it reaches), the other with ``d2`` (``h2``)?"""
    if h1 == 0 or h2 == 0:
        return False
    u = h1 | h2
    if u & (u - 1) == 0:  # one blot in all
        return False
    return _two_different(c, h1, h2, d1, d2)


@njit(cache=True, nogil=True)
def _double_hit_rolls(c: Any, src: int, hm: int, bl: int) -> int:
    """Rolls (of 36) with which ``c`` can hit two different blots (``bl``): some sequence
    of the roll's steps (each die once, a double's four in any number), checkers on the bar
    entering first, landing only on points not held (``hm``)."""
    if bl & (bl - 1) == 0:  # fewer than two blots
        return 0
    nb = int(c[24])
    total = 0
    for d1 in range(1, 7):
        if _two_hits_double(src, nb, hm, bl, d1):
            total += 1
        if nb == 0:
            h1 = (src >> d1) & bl
            for d2 in range(d1 + 1, 7):
                h2 = (src >> d2) & bl
                if ((h1 >> d2) | (h2 >> d1)) & bl:  # one checker hits twice
                    total += 2
                elif _two_checkers_hit(c, h1, h2, d1, d2):
                    total += 2
        else:
            for d2 in range(d1 + 1, 7):
                if _two_hits_mixed(c, src, nb, bl, d1, d2):
                    total += 2
    return total


@njit(cache=True, nogil=True)
def _extra_features(c: Any, out: Any, k: int, pips: int, on_board: int, oback: int,
                    loss: int, src: int, hm: int, bl: int) -> None:
    """Write side ``c``'s :data:`N_EXTRA` features into ``out[k:]`` (``pips``,
    ``on_board``: its pip count and checkers not borne off; ``oback``: the other side's
    rearmost point in its numbering, 0 when none; ``loss``: the pips of :func:`_hit_rolls`;
    ``src``, ``hm``, ``bl``: the bit sets of :func:`_side_features`). See
    ``docs/TRAINING.md``, "Inputs"."""
    closed = _popcount(hm >> 19)  # the other side's home points made: c's 19..24
    # containment: the worst escape from c's points 15..24, and from where c stands
    worst = 36
    if (hm >> 3) & 0x1FFFFF:  # else nothing is held within 12 pips in front of any
        for p in range(15, 25):
            e = _escapes(hm, p)
            if e < worst:
                worst = e
    actual = 36
    stand = src & 0x1FFE000  # c's points 13..24
    any_back = stand != 0 or c[24] > 0
    if c[24] > 0:
        actual = _escapes(hm, 25)
    while stand != 0:
        p = _lowest_bit(stand)
        stand &= stand - 1
        if p >= 15:
            e = worst if worst == 36 else _escapes(hm, p)
        else:
            e = _escapes(hm, p)
        if e < actual:
            actual = e
    back_anchor = 0
    for p in range(24, 12, -1):
        if c[p - 1] >= 2:
            back_anchor = p
            break
    fwd_anchor = 0
    for p in range(19, 25):
        if c[p - 1] >= 2:
            fwd_anchor = 25 - p
            break
    # pips to get every checker past the other side's rearmost checker
    brk = 0
    if oback > 0:
        for p in range(26 - oback, 26):
            brk += c[p - 1] * (p + oback - 24)
    # mobility: per die, the points (or the bar) c can move it from, at most 6
    mob = 0
    if c[24] > 0:
        for d in range(1, 7):
            if not (hm >> (25 - d)) & 1:
                mob += 1
    else:
        for d in range(1, 7):
            mob += min(_popcount((src >> d) & ~hm & ~1), 6)
    # spread: root of the second moment of c's checkers above their mean point
    spread = 0.0
    if on_board > 0:
        mean = pips / on_board
        m2 = 0.0
        for p in range(1, 26):
            n = c[p - 1]
            if n > 0 and p > mean:
                m2 += n * (p - mean) * (p - mean)
        spread = np.sqrt(m2 / on_board) / 12.0
    out[k] = (closed / 6.0) * (closed / 6.0)
    out[k + 1] = _double_hit_rolls(c, src, hm, bl) / 36.0
    out[k + 2] = loss / (36.0 * 24.0)
    out[k + 3] = 1.0 - worst / 36.0
    out[k + 4] = 1.0 - actual / 36.0 if any_back else 0.0
    out[k + 5] = back_anchor / 24.0
    out[k + 6] = fwd_anchor / 6.0
    out[k + 7] = brk / 200.0
    out[k + 8] = mob / 36.0
    out[k + 9] = spread


@njit(cache=True, nogil=True)
def _side_features(c: Any, out: Any, base: int, src: int, hm: int, bl: int,
                   oback: int) -> None:
    """Write side ``c``'s :data:`PER_SIDE` inputs (a 25-slot array from its own view) into
    ``out[base:]``. ``src``: the points ``c`` occupies, ``hm``, ``bl``: those the other
    side holds and its blots (bit ``t``: ``c``'s point ``t``); ``oback``: the other side's
    rearmost point in its own numbering (bar 25; 0 when none)."""
    k = base
    on_board = 0
    pips = 0
    outfield = 0
    back = 0
    home = 0
    anchors = 0
    blots = 0
    prime = 0
    run = 0
    for i in range(24):
        n = c[i]
        on_board += n
        pips += n * (i + 1)
        out[k] = 1.0 if n >= 1 else 0.0
        out[k + 1] = 1.0 if n >= 2 else 0.0
        out[k + 2] = 1.0 if n >= 3 else 0.0
        out[k + 3] = (n - 3) / 2.0 if n > 3 else 0.0
        k += 4
        if n >= 2:
            run += 1
            if run > prime:
                prime = run
            if i < 6:
                home += 1
            elif i >= 18:
                anchors += 1
        else:
            run = 0
            if n == 1:
                blots += 1
        if i >= 18:
            back += n
        elif i >= 6:
            outfield += n
    bar = c[24]
    on_board += bar
    pips += 25 * bar
    back += bar
    out[k] = 1.0 if bar >= 1 else 0.0
    out[k + 1] = bar / 2.0
    out[k + 2] = (15 - on_board) / 15.0
    k += 3
    # checkers still behind the other side's rearmost checker (still to get past it)
    behind = 0
    for p in range(26 - oback, 26):
        behind += c[p - 1]
    rear = 25 if bar > 0 else (_top_bit(src) if src != 0 else 0)  # c's rearmost checker
    shots, loss = _hit_rolls(src, bar > 0, hm, bl)
    out[k] = pips / 100.0
    out[k + 1] = back / 5.0
    out[k + 2] = 1.0 if rear == 0 else _escapes(hm, rear) / 36.0
    out[k + 3] = shots / 36.0
    out[k + 4] = prime / 6.0
    out[k + 5] = anchors / 3.0
    out[k + 6] = home / 6.0
    out[k + 7] = outfield / 15.0
    out[k + 8] = blots / 5.0
    out[k + 9] = behind / 15.0
    _extra_features(c, out, k + N_HAND, pips, on_board, oback, loss, src, hm, bl)


@njit(cache=True, nogil=True)
def encode_one(key: Any, out: Any) -> None:
    """The :data:`NUM_INPUTS` inputs of one key (side on roll first) into ``out``."""
    src_a = 0  # side on roll: occupied points (own numbering); held points and blots
    held_a = 0  # in the other side's numbering (its point 25 - t)
    blot_a = 0
    src_b = 0  # the same for the other side
    held_b = 0
    blot_b = 0
    for i in range(24):
        n = key[i]
        if n > 0:
            src_a |= 1 << (i + 1)
            if n >= 2:
                held_a |= 1 << (24 - i)
            else:
                blot_a |= 1 << (24 - i)
        n = key[25 + i]
        if n > 0:
            src_b |= 1 << (i + 1)
            if n >= 2:
                held_b |= 1 << (24 - i)
            else:
                blot_b |= 1 << (24 - i)
    back_a = 25 if key[24] > 0 else (_top_bit(src_a) if src_a != 0 else 0)
    back_b = 25 if key[49] > 0 else (_top_bit(src_b) if src_b != 0 else 0)
    _side_features(key[:25], out, 0, src_a, held_b, blot_b, back_b)
    _side_features(key[25:], out, PER_SIDE, src_b, held_a, blot_a, back_a)


@njit(cache=True, nogil=True)
def race_extra(key: Any, out: Any) -> None:
    """The race network's own inputs of ``key`` into ``out[NUM_INPUTS:RACE_INPUTS]`` (the
    side on roll's :data:`N_RACE_EXTRA_SIDE`, then the other side's), as gnubg's race net
    has them: the checkers borne off in unary (``off >= j`` for ``j = 1..14``: the first
    checker off is what saves a gammon), the crossovers still to make (the quadrants each
    checker has to cross to get home, summed, / 10) and the checkers not yet home (/ 15).
    Read by a race network with :data:`RACE_INPUTS` input rows (:func:`eval_kind`)."""
    for side in range(2):
        base = 25 * side
        k = NUM_INPUTS + N_RACE_EXTRA_SIDE * side
        on = 0
        cross = 0
        outside = 0
        for i in range(25):
            n = int(key[base + i])
            on += n
            if i >= 6:
                outside += n
                cross += n * (3 if i >= 18 else (2 if i >= 12 else 1))
        off = 15 - on
        for j in range(14):
            out[k + j] = 1.0 if off > j else 0.0
        out[k + 14] = cross / 10.0
        out[k + 15] = outside / 15.0


@njit(cache=True, nogil=True)
def encode_race_batch(boards: Any, out: Any) -> None:
    """:func:`encode_one` and :func:`race_extra` of every row of ``boards`` into ``out``
    (``n × RACE_INPUTS``): the inputs of a race network that has its own."""
    for r in range(boards.shape[0]):
        encode_one(boards[r], out[r])
        race_extra(boards[r], out[r])


@njit(cache=True, nogil=True)
def encode_batch(boards: Any, out: Any) -> None:
    """:func:`encode_one` for every row of ``boards`` (``uint8[n, 50]``) into ``out``."""
    for r in range(boards.shape[0]):
        encode_one(boards[r], out[r])


@njit(cache=True, nogil=True)
def classify_batch(boards: Any, out: Any) -> None:
    """Class of every row: 0 over (a side has no checkers left), 1 bear-off, 2 race,
    3 contact."""
    for r in range(boards.shape[0]):
        key = boards[r]
        a = 0
        b = 0
        for i in range(25):
            a += key[i]
            b += key[25 + i]
        if a == 0 or b == 0:
            out[r] = 0
        elif is_contact(key):
            out[r] = 3
        elif is_bearoff(key):
            out[r] = 1
        else:
            out[r] = 2


# -- network ----------------------------------------------------------------------------------

#: ``log2(e)`` and ``ln(2)``, for :func:`forward`'s exponential.
_LOG2E = 1.4426950408889634
_LN2 = 0.6931471805599453
#: The fast-math flags of :func:`forward`: reassociation (so that the output layer's sums
#: vectorize), contraction (FMA), no signed zeros, reciprocals; not ``nnan``/``ninf``.
_FORWARD_MATH = {"reassoc", "contract", "nsz", "arcp"}


@njit(cache=True, nogil=True)
def net_scratch(nin: int, hidden: int) -> tuple[Any, Any]:
    """Buffers for :func:`forward` and :func:`eval_one`: the inputs (``float32[n]``) and
    the hidden layer (``float32[2 * hidden + 2 * n]``: activations, scratch for the
    sigmoid, and at the end room for the list of non-zero inputs), ``hidden`` being the
    widest network's and ``n`` the larger of ``nin`` and :data:`RACE_INPUTS` (room for a
    race network's own inputs)."""
    n = max(nin, RACE_INPUTS)
    return np.zeros(n, np.float32), np.zeros(2 * hidden + 2 * n, np.float32)


@njit(cache=True, nogil=True, fastmath=_FORWARD_MATH, inline="always")
def _sigmoid_f32(a: Any, scratch: Any) -> None:
    """``a[j] = σ(a[j])`` in single precision for every ``j`` (``scratch``: as many
    ``float32`` slots, overwritten). numba has no vector ``exp``, so it is computed here,
    vectorisable: ``e^-z = 2^n · 2^f`` with ``n`` the integer nearest ``-z·log2 e``, ``2^f``
    by its degree-7 Taylor series (``|f| ≤ ½``: relative error under 1e-8, below single
    precision) and ``2^n`` built from its exponent bits in ``scratch``."""
    n_ = a.shape[0]
    one = np.float32(1.0)
    lo = np.float32(-40.0)
    hi = np.float32(40.0)
    bits = scratch.view(np.int32)
    l2e = np.float32(_LOG2E)
    ln2 = np.float32(_LN2)
    half = np.float32(0.5)
    c3 = np.float32(1.0 / 6.0)
    c4 = np.float32(1.0 / 24.0)
    c5 = np.float32(1.0 / 120.0)
    c6 = np.float32(1.0 / 720.0)
    c7 = np.float32(1.0 / 5040.0)
    for j in range(n_):
        t = -min(max(a[j], lo), hi) * l2e
        n = np.floor(t + half)
        u = (t - n) * ln2
        a[j] = one + u * (one + u * (half + u * (c3 + u * (c4 + u * (c5 + u * (c6 + u * c7))))))
        bits[j] = (np.int32(n) + np.int32(127)) << np.int32(23)
    for j in range(n_):
        a[j] = one / (one + a[j] * scratch[j])


@njit(cache=True, nogil=True, fastmath=_FORWARD_MATH, inline="always")
def _first_layer(x: Any, w1: Any, b1: Any, h: Any) -> None:
    """``h[:hidden] = σ(x·w1 + b1)`` (:func:`forward`'s first layer; the rest of ``h``:
    scratch). Skips zero inputs (most of the unary encoding): the non-zero ones are listed
    first (values and rows, in the last ``2 × inputs`` slots of ``h``) and added four rows
    of ``w1`` at a time, so each hidden sum is loaded and stored once per four rows (1.6×
    faster than one row at a time on a 512-unit layer). Element by element: the sums of
    a position never depend on what else is evaluated with it."""
    nh = b1.shape[0]
    nin = w1.shape[0]
    tail = h.shape[0] - 2 * nin
    val = h[tail:tail + nin]
    idx = h[tail + nin:tail + 2 * nin].view(np.int32)
    m = 0
    for i in range(nin):  # without a branch (3× faster): written always, kept if non-zero
        xi = x[i]
        val[m] = xi
        idx[m] = i
        m += 1 if xi != 0.0 else 0
    for j in range(nh):
        h[j] = b1[j]
    q = 0
    while q + 3 < m:
        a = val[q]
        ra = w1[idx[q]]
        b = val[q + 1]
        rb = w1[idx[q + 1]]
        c = val[q + 2]
        rc = w1[idx[q + 2]]
        d = val[q + 3]
        rd = w1[idx[q + 3]]
        for j in range(nh):
            h[j] += a * ra[j] + b * rb[j] + c * rc[j] + d * rd[j]
        q += 4
    while q < m:
        a = val[q]
        ra = w1[idx[q]]
        for j in range(nh):
            h[j] += a * ra[j]
        q += 1
    _sigmoid_f32(h[:nh], h[nh:2 * nh])


# The second hidden layer's sums, ``g_i = b_i + Σ_j h_j · w_ij`` over the first layer's
# ``nh`` activations, are dot products: vectorised, each sum is split into lanes added
# together at the end, and the order of those additions depends on how many sums the loop
# carries (with few, the compiler interleaves several vectors per sum). So every second
# layer is computed by loops carrying eight sums: eight units of one position
# (:func:`_second_layer`) or four units of two positions (:func:`_second_layer_two`, which
# loads each weight once for both: 1.7× faster a position). Both give the same bits for a
# position, whatever it is evaluated with (tests/test_features.py checks this), so the
# searches' caches and the batch paths agree exactly. Units past the last are clamped to it
# (computed twice, stored once).


@njit(cache=True, nogil=True, fastmath=_FORWARD_MATH, inline="always")
def _second_layer(h: Any, nh: int, w2: Any, b2: Any) -> None:
    """``g = σ(w2[5:5+m]·h + b2[5:])`` into ``h[nh:nh+m]`` for one position, eight units a
    pass (the sigmoid's scratch: the end of ``h``)."""
    nh2 = b2.shape[0] - NUM_OUTPUTS
    last = NUM_OUTPUTS + nh2 - 1
    i = 0
    while i < nh2:
        r = NUM_OUTPUTS + i
        w0 = w2[r]
        w1 = w2[min(r + 1, last)]
        w2_ = w2[min(r + 2, last)]
        w3 = w2[min(r + 3, last)]
        w4 = w2[min(r + 4, last)]
        w5 = w2[min(r + 5, last)]
        w6 = w2[min(r + 6, last)]
        w7 = w2[min(r + 7, last)]
        s0 = b2[r]
        s1 = b2[min(r + 1, last)]
        s2 = b2[min(r + 2, last)]
        s3 = b2[min(r + 3, last)]
        s4 = b2[min(r + 4, last)]
        s5 = b2[min(r + 5, last)]
        s6 = b2[min(r + 6, last)]
        s7 = b2[min(r + 7, last)]
        for j in range(nh):
            a = h[j]
            s0 += a * w0[j]
            s1 += a * w1[j]
            s2 += a * w2_[j]
            s3 += a * w3[j]
            s4 += a * w4[j]
            s5 += a * w5[j]
            s6 += a * w6[j]
            s7 += a * w7[j]
        g = h[nh + i:nh + min(i + 8, nh2)]
        for k, s in enumerate((s0, s1, s2, s3, s4, s5, s6, s7)):
            if k < g.shape[0]:
                g[k] = s
        i += 8
    tail = h.shape[0] - nh2
    _sigmoid_f32(h[nh:nh + nh2], h[tail:])


@njit(cache=True, nogil=True, fastmath=_FORWARD_MATH, inline="always")
def _second_layer_two(h: Any, e: Any, nh: int, w2: Any, b2: Any) -> None:
    """:func:`_second_layer` for two positions at once (activations in ``h`` and ``e``),
    four units a pass, each weight loaded once for both; the same bits as one at a time."""
    nh2 = b2.shape[0] - NUM_OUTPUTS
    last = NUM_OUTPUTS + nh2 - 1
    i = 0
    while i < nh2:
        r = NUM_OUTPUTS + i
        wa = w2[r]
        wb = w2[min(r + 1, last)]
        wc = w2[min(r + 2, last)]
        wd = w2[min(r + 3, last)]
        a0 = b2[r]
        b0 = b2[min(r + 1, last)]
        c0 = b2[min(r + 2, last)]
        d0 = b2[min(r + 3, last)]
        a1 = a0
        b1 = b0
        c1 = c0
        d1 = d0
        for j in range(nh):
            x0 = h[j]
            x1 = e[j]
            pa = wa[j]
            pb = wb[j]
            pc = wc[j]
            pd = wd[j]
            a0 += x0 * pa
            b0 += x0 * pb
            c0 += x0 * pc
            d0 += x0 * pd
            a1 += x1 * pa
            b1 += x1 * pb
            c1 += x1 * pc
            d1 += x1 * pd
        g = h[nh + i:nh + min(i + 4, nh2)]
        f = e[nh + i:nh + min(i + 4, nh2)]
        for k, (s, t) in enumerate(((a0, a1), (b0, b1), (c0, c1), (d0, d1))):
            if k < g.shape[0]:
                g[k] = s
                f[k] = t
        i += 4
    _sigmoid_f32(h[nh:nh + nh2], h[h.shape[0] - nh2:])
    _sigmoid_f32(e[nh:nh + nh2], e[e.shape[0] - nh2:])


@njit(cache=True, nogil=True, fastmath=_FORWARD_MATH, inline="always")
def _output_layer(h: Any, nh: int, w2: Any, b2: Any, v: Any) -> None:
    """``v = σ(w2[:5]·h + b2[:5])`` plus, with a second layer, the outputs' weights on it:
    the five sums in one pass over ``h`` (each activation loaded once for five)."""
    nh2 = b2.shape[0] - NUM_OUTPUTS
    w0 = w2[0]
    w1 = w2[1]
    w2_ = w2[2]
    w3 = w2[3]
    w4 = w2[4]
    s0 = b2[0]
    s1 = b2[1]
    s2 = b2[2]
    s3 = b2[3]
    s4 = b2[4]
    for j in range(nh):
        a = h[j]
        s0 += a * w0[j]
        s1 += a * w1[j]
        s2 += a * w2_[j]
        s3 += a * w3[j]
        s4 += a * w4[j]
    if nh2 > 0:
        g = h[nh:nh + nh2]
        r = NUM_OUTPUTS + nh2
        g0 = w2[r]
        g1 = w2[r + 1]
        g2 = w2[r + 2]
        g3 = w2[r + 3]
        g4 = w2[r + 4]
        for i in range(nh2):
            a = g[i]
            s0 += a * g0[i]
            s1 += a * g1[i]
            s2 += a * g2[i]
            s3 += a * g3[i]
            s4 += a * g4[i]
    for k, s in enumerate((s0, s1, s2, s3, s4)):
        z = min(max(np.float64(s), -40.0), 40.0)
        v[k] = 1.0 / (1.0 + np.exp(-z))


@njit(cache=True, nogil=True, inline="always")
def _check_scratch(w1: Any, b1: Any, b2: Any, h: Any) -> None:
    nh = b1.shape[0]
    nin = w1.shape[0]
    nh2 = b2.shape[0] - NUM_OUTPUTS
    if h.shape[0] - 2 * nin < 2 * nh or nh2 > nh or nh2 > 2 * nin:
        raise ValueError("forward: h needs 2 * hidden + 2 * inputs slots (net_scratch)")


@njit(cache=True, nogil=True, fastmath=_FORWARD_MATH, error_model="numpy")
def forward(x: Any, w1: Any, b1: Any, w2: Any, b2: Any, h: Any, v: Any) -> None:
    """The network in single precision (the weights as
    :meth:`~backgammon.engine.network.Network.kernel_arrays` gives them: ``float32``,
    ``w2`` output-major): ``h = σ(x·w1 + b1)``, ``v = σ(w2[:5]·h + b2[:5])``. A network
    with a second hidden layer of ``m`` units carries it in the same two arrays: ``b2``
    holds ``5 + m`` biases and ``w2`` ``10 + m`` rows — the outputs' weights on ``h``, then
    the second layer's (``g = σ(w2[5:5+m]·h + b2[5:])``), then the outputs' weights on
    ``g`` (the first ``m`` columns of the last five rows), added to the outputs' sums.
    ``h`` holds at least ``2 × hidden + 2 × inputs`` (:func:`net_scratch`; ``m`` may be at
    most ``hidden`` and ``2 × inputs``); the activations are left in its first ``hidden``
    (and ``g`` in the next ``m``). The layers: :func:`_first_layer`, :func:`_second_layer`,
    :func:`_output_layer`; the sigmoids are :func:`_sigmoid_f32`'s. Compiled with numpy's
    error model: Python's (numba's default) tests every divisor for zero to raise
    ``ZeroDivisionError``, which kept the sigmoids' ``1 / (1 + e)`` from being vectorised
    (the same bits, about 14% faster a position). Outputs agree with the
    double-precision :meth:`~backgammon.engine.network.Network.forward` to about 1e-6, and
    to the bit with :func:`forward_two`'s."""
    _check_scratch(w1, b1, b2, h)
    nh = b1.shape[0]
    _first_layer(x, w1, b1, h)
    if b2.shape[0] > NUM_OUTPUTS:
        _second_layer(h, nh, w2, b2)
    _output_layer(h, nh, w2, b2, v)


@njit(cache=True, nogil=True, fastmath=_FORWARD_MATH, error_model="numpy")
def forward_two(x: Any, y: Any, w1: Any, b1: Any, w2: Any, b2: Any, h: Any, e: Any,
                v: Any, u: Any) -> None:
    """:func:`forward` of two positions (inputs ``x`` and ``y``, scratch ``h`` and ``e``,
    outputs ``v`` and ``u``): the same outputs to the bit, the second layer computed for
    both at once (:func:`_second_layer_two`)."""
    _check_scratch(w1, b1, b2, h)
    _check_scratch(w1, b1, b2, e)
    nh = b1.shape[0]
    _first_layer(x, w1, b1, h)
    _first_layer(y, w1, b1, e)
    if b2.shape[0] > NUM_OUTPUTS:
        _second_layer_two(h, e, nh, w2, b2)
    _output_layer(h, nh, w2, b2, v)
    _output_layer(e, nh, w2, b2, u)


@njit(cache=True, nogil=True)
def contact_two(a: Any, b: Any, w1: Any, b1: Any, w2: Any, b2: Any, x: Any, y: Any,
                h: Any, e: Any, v: Any, u: Any) -> None:
    """:func:`eval_one`'s outputs of two contact positions ``a`` and ``b`` into ``v`` and
    ``u`` (encoded into ``x`` and ``y``, :func:`forward_two` with scratch ``h`` and ``e``,
    then clipped): the same bits as one at a time."""
    encode_one(a, x)
    encode_one(b, y)
    forward_two(x, y, w1, b1, w2, b2, h, e, v, u)
    clip_outputs(v)
    clip_outputs(u)


@njit(cache=True, nogil=True)
def equity_of(v: Any) -> float:
    """Cubeless equity of output vector ``v`` (win, wg, wbg, lg, lbg)."""
    return float(2.0 * v[0] - 1.0 + v[1] - v[3] + v[2] - v[4])


# -- random numbers ---------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def splitmix(x: Any) -> Any:
    """SplitMix64 of a ``uint64``: seeds a stream from (seed, index)."""
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(1)
    return z


@njit(cache=True, nogil=True)
def next_u64(state: Any) -> Any:
    """The next output of the xorshift64* generator whose state is ``uint64[1]``."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True, nogil=True)
def roll_die(state: Any) -> int:
    """One die (1..6) from the xorshift64* state ``uint64[1]``."""
    return int((next_u64(state) >> np.uint64(33)) % np.uint64(6)) + 1


@njit(cache=True, nogil=True)
def game_stream(seed: int, index: int, state: Any) -> None:
    """Seed ``state`` for game ``index`` of a run seeded ``seed``."""
    state[0] = splitmix(splitmix(np.uint64(seed)) ^ np.uint64(index))


# -- game helpers -----------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def initial_key() -> Any:
    """The starting position's key."""
    key = np.zeros(50, np.uint8)
    for base in (0, 25):
        key[base + 5] = 5
        key[base + 7] = 3
        key[base + 12] = 5
        key[base + 23] = 2
    return key


@njit(cache=True, nogil=True)
def win_points(after: Any) -> int:
    """Points the mover won with ``after`` (seen from the loser, on roll next)."""
    off = 15
    for i in range(25):
        off -= after[i]
    if off > 0:
        return 1
    for i in range(18, 25):
        if after[i] > 0:
            return 3
    return 2


@njit(cache=True, nogil=True)
def _finished(row: Any) -> bool:
    """Has the mover (last 25 slots of ``row``) borne off everything?"""
    for i in range(25, 50):
        if row[i] > 0:
            return False
    return True


#: Length of the one-sided bear-off distributions (see :mod:`.bearoff`).
BEAROFF_ROLLS = 32


@njit(cache=True, nogil=True)
def rank6(c: Any, comp: Any) -> int:
    """Index of a one-sided home board ``c`` (6 counts, total <= 15) in the bear-off
    tables; ``comp[k, s]`` counts the compositions of ``s`` into ``k`` parts."""
    rank = 0
    remaining = 15
    for i in range(6):
        for v in range(c[i]):
            rank += comp[6 - i, remaining - v]
        remaining -= c[i]
    return int(rank)


@njit(cache=True, nogil=True)
def bearoff_eval(key: Any, comp: Any, off: Any, first: Any, v: Any) -> None:
    """Exact outputs of a bear-off key (every checker home, both sides on the board) for
    the side on roll into ``v``, from the one-sided tables ``off`` / ``first``: it wins when
    it finishes in ``n`` rolls and the other side needs ``n`` or more; it wins a gammon when
    the other side (15 checkers on the board) has not borne one off in ``n - 1`` rolls."""
    a6 = np.zeros(6, np.int64)
    b6 = np.zeros(6, np.int64)
    na = 0
    nb = 0
    for i in range(6):
        a6[i] = key[i]
        b6[i] = key[25 + i]
        na += a6[i]
        nb += b6[i]
    ia = rank6(a6, comp)
    ib = rank6(b6, comp)
    win = 0.0
    tail_b = 1.0  # P(the other side needs >= n rolls)
    for n in range(BEAROFF_ROLLS):
        win += off[ia, n] * tail_b
        tail_b -= off[ib, n]
    wg = 0.0
    if nb == 15:
        tail = 1.0
        for n in range(BEAROFF_ROLLS):
            wg += off[ia, n] * tail
            tail -= first[ib, n]
    lg = 0.0
    if na == 15:
        tail = 1.0
        for m in range(BEAROFF_ROLLS):
            tail -= first[ia, m]
            lg += off[ib, m] * tail
    v[0] = win
    v[1] = min(wg, win)
    v[2] = 0.0
    v[3] = min(lg, 1.0 - win)
    v[4] = 0.0


@njit(cache=True, nogil=True)
def keep_better(w: Any, k: int, best_eq: float, best: int, best_v: Any) -> tuple[float, int]:
    """One step of an arg max over plays: ``(equity, k)`` and ``best_v = w`` when play
    ``k``'s outputs ``w`` (the next side's view) beat ``best_eq`` for the mover, else
    ``(best_eq, best)`` unchanged (the first of equal plays wins)."""
    eq = -equity_of(w)
    if eq > best_eq:
        for m in range(NUM_OUTPUTS):
            best_v[m] = w[m]
        return eq, k
    return best_eq, best


#: Slots probed for a key in an evaluation cache (linear probing) before its entry replaces
#: the first one probed.
_PROBES = 4


@njit(cache=True, nogil=True)
def new_cache(slots: int) -> Any:
    """An evaluation cache of ``slots`` slots: (used flags, keys, outputs). With 0 slots it
    is the empty cache that :func:`play_outputs` and :func:`best_play` take for none."""
    return (np.zeros(slots, np.uint8), np.empty((slots, 50), np.uint8),
            np.empty((slots, NUM_OUTPUTS)))


@njit(cache=True, nogil=True)
def cache_slot(used: Any, keys: Any, key: Any) -> int:
    """Where ``key`` is in a cache (open addressing on a 64-bit FNV-1a hash of the 50
    bytes, :data:`_PROBES` slots probed): the slot ``j >= 0`` that holds it, else
    ``-(j + 1)`` for the slot ``j`` where it goes — the first free one probed, else the
    first one probed, whose entry it replaces. A full cache keeps its recent entries (the
    transpositions of a decision) and costs a few probes a miss, not a scan."""
    hsh = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for i in range(50):
        hsh = (hsh ^ np.uint64(key[i])) * prime
    size = used.shape[0]
    home = np.int64((hsh ^ (hsh >> np.uint64(29))) % np.uint64(size))
    j = home
    for _ in range(_PROBES):
        if used[j] == 0:
            return -int(j) - 1
        same = True
        for i in range(50):
            if keys[j, i] != key[i]:
                same = False
                break
        if same:
            return int(j)
        j = (j + 1) % size
    return -int(home) - 1


@njit(cache=True, nogil=True)
def cache_store(used: Any, keys: Any, vals: Any, j: int, key: Any, v: Any) -> None:
    """Keep ``v`` as the outputs of ``key`` in slot ``j`` (a slot :func:`cache_slot` gave
    as ``-(j + 1)``)."""
    used[j] = 1
    for i in range(50):
        keys[j, i] = key[i]
    for m in range(NUM_OUTPUTS):
        vals[j, m] = v[m]


@njit(cache=True, nogil=True)
def _remember(used: Any, keys: Any, vals: Any, key: Any, v: Any) -> None:
    """:func:`cache_store` ``v`` for ``key`` unless the cache holds it already."""
    j = cache_slot(used, keys, key)
    if j < 0:
        cache_store(used, keys, vals, -j - 1, key, v)


@njit(cache=True, nogil=True)
def play_outputs(boards: Any, n: int, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                 rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
                 bfirst: Any, x: Any, h: Any, outs: Any,
                 used: Any, ckeys: Any, cvals: Any) -> None:
    """:func:`eval_one`'s outputs of the first ``n`` rows of ``boards`` into the rows of
    ``outs``: the one loop over positions of :func:`evaluate_batch`, :func:`best_play` and
    the searches. With a second hidden layer, contact rows are evaluated two at a time
    (each waits for the next contact row: :func:`contact_two`, the same bits as one at a
    time). With a cache (``used``, ``ckeys``, ``cvals`` of :func:`new_cache`; 0 slots for
    none) each row is looked up first, and those computed are added to it."""
    cached = used.shape[0] > 0
    two = cb2.shape[0] > NUM_OUTPUTS and n > 1
    if two:
        y, e = net_scratch(cw1.shape[0], cb1.shape[0])
    pending = -1  # a contact row waiting for a second
    for r in range(n):
        key = boards[r]
        j = -1
        if cached:
            j = cache_slot(used, ckeys, key)
            if j >= 0:
                for m in range(NUM_OUTPUTS):
                    outs[r, m] = cvals[j, m]
                continue
        kind = kind_of(key, bo)
        if two and kind == 3:
            if pending < 0:
                pending = r
                continue
            contact_two(boards[pending], key, cw1, cb1, cw2, cb2, x, y, h, e, outs[pending],
                        outs[r])
            if cached:  # probed again: a row stored meanwhile may sit in their slots
                _remember(used, ckeys, cvals, boards[pending], outs[pending])
                _remember(used, ckeys, cvals, key, outs[r])
            pending = -1
            continue
        eval_kind(key, kind, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                  x, h, outs[r])
        if cached:
            cache_store(used, ckeys, cvals, -j - 1, key, outs[r])
    if pending >= 0:
        eval_kind(boards[pending], 3, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff,
                  bfirst, x, h, outs[pending])
        if cached:
            _remember(used, ckeys, cvals, boards[pending], outs[pending])


@njit(cache=True, nogil=True)
def best_play(boards: Any, n: int, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
              rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
              bfirst: Any, x: Any, h: Any, best_v: Any,
              used: Any, ckeys: Any, cvals: Any) -> int:
    """Index of the first play (rows of ``boards``, each from the next side's view) with
    the best 0-ply equity for the mover (:func:`play_outputs`: finished games exactly,
    bear-offs from the tables with ``bo``, through the cache ``used``, ``ckeys``, ``cvals``
    when it has slots); ``best_v`` receives its outputs from the next side's view. The
    0-ply choice of the bots, the searches, the rollouts, the training and the strength
    checks."""
    outs = np.empty((n, NUM_OUTPUTS))
    play_outputs(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                 x, h, outs, used, ckeys, cvals)
    best = 0
    best_eq = -1e18
    for k in range(n):
        best_eq, best = keep_better(outs[k], k, best_eq, best, best_v)
    return best


#: Inputs of a pruning network (:mod:`.prune`): the first :data:`N_RAW` inputs of each
#: side's block (points in truncated unary, bar, borne off), side on roll first.
PRUNE_INPUTS = 2 * N_RAW


@njit(cache=True, nogil=True, fastmath=_FORWARD_MATH)
def prune_score(key: Any, pw1: Any, pb1: Any, pw2: Any, hs: Any, scratch: Any) -> float:
    """A pruning network's score of a play's resulting ``key`` (next side on roll): its
    estimate of the *mover's* equity, up to a constant of the roll (:mod:`.prune`). The
    inputs are the first :data:`N_RAW` of each side's block of :func:`encode_one`,
    summed sparsely (only the weight rows of non-zero inputs); ``hs`` and ``scratch`` are
    ``float32`` scratch of the hidden size."""
    nh = pb1.shape[0]
    for j in range(nh):
        hs[j] = pb1[j]
    for side in range(2):
        off = 25 * side
        base = N_RAW * side
        on = 0
        for i in range(24):
            n = key[off + i]
            if n == 0:
                continue
            on += n
            r = base + 4 * i
            for j in range(nh):
                hs[j] += pw1[r, j]
            if n >= 2:
                for j in range(nh):
                    hs[j] += pw1[r + 1, j]
            if n >= 3:
                for j in range(nh):
                    hs[j] += pw1[r + 2, j]
            if n > 3:
                f = np.float32((n - 3) / 2.0)
                for j in range(nh):
                    hs[j] += f * pw1[r + 3, j]
        bar = key[off + 24]
        on += bar
        if bar > 0:
            f = np.float32(bar / 2.0)
            for j in range(nh):
                hs[j] += pw1[base + 96, j] + f * pw1[base + 97, j]
        if on < 15:
            f = np.float32((15 - on) / 15.0)
            for j in range(nh):
                hs[j] += f * pw1[base + 98, j]
    _sigmoid_f32(hs, scratch)
    s = np.float32(0.0)
    for j in range(nh):
        s += pw2[j] * hs[j]
    return float(s)


@njit(cache=True, nogil=True)
def no_pruner() -> Any:
    """The pruning arguments that prune nothing (:func:`pruned_best_play`)."""
    return (np.zeros((0, 1), np.float32), np.zeros(0, np.float32), np.zeros(0, np.float32),
            np.zeros(2))


@njit(cache=True, nogil=True)
def pruned_best_play(boards: Any, n: int, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                     rw1: Any, rb1: Any, rw2: Any, rb2: Any, bo: bool, comp: Any, boff: Any,
                     bfirst: Any, x: Any, h: Any, best_v: Any,
                     used: Any, ckeys: Any, cvals: Any,
                     pw1: Any, pb1: Any, pw2: Any, pset: Any) -> int:
    """:func:`best_play` among the plays a pruning network keeps (:mod:`.prune`): every
    play scored by it (:func:`prune_score`), then the networks' best of at most
    ``pset[1]`` of the best-scored, those scored within ``pset[0]`` of the best (always
    at least two). Without a pruning network (``pw1`` with no rows, :func:`no_pruner`) or
    with all plays kept, exactly :func:`best_play` (the kept plays keep their order, so
    the first of equal plays still wins)."""
    kmax = int(pset[1])
    if pw1.shape[0] == 0 or n <= 2 or kmax < 2:
        return best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff,
                         bfirst, x, h, best_v, used, ckeys, cvals)
    hs = np.empty(pb1.shape[0], np.float32)
    sc = np.empty(pb1.shape[0], np.float32)
    scores = np.empty(n)
    for k in range(n):
        scores[k] = prune_score(boards[k], pw1, pb1, pw2, hs, sc)
    order = np.argsort(-scores)
    top = scores[order[0]]
    keep = np.zeros(n, np.bool_)
    kept = 0
    for t in range(min(kmax, n)):
        o = order[t]
        if kept >= 2 and scores[o] < top - pset[0]:
            break
        keep[o] = True
        kept += 1
    if kept == n:
        return best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff,
                         bfirst, x, h, best_v, used, ckeys, cvals)
    sub = np.empty((kept, boards.shape[1]), np.uint8)
    idx = np.empty(kept, np.int64)
    j = 0
    for k in range(n):
        if keep[k]:
            sub[j, :] = boards[k]
            idx[j] = k
            j += 1
    b = best_play(sub, kept, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst,
                  x, h, best_v, used, ckeys, cvals)
    return int(idx[b])


@njit(cache=True, nogil=True)
def start_game(seed: int, index: int, rng: Any) -> Any:
    """Seed ``rng`` for game ``index`` of seed ``seed`` and roll the opening (doubles are
    rolled again): ``(key, d1, d2, first)``, ``first`` 0 when the first die's owner (the
    fixed view's side 0) moves first."""
    game_stream(seed, index, rng)
    key = initial_key()
    while True:
        d1 = roll_die(rng)
        d2 = roll_die(rng)
        if d1 != d2:
            break
    return key, d1, d2, 0 if d1 > d2 else 1


@njit(cache=True, nogil=True)
def _flip(v: Any, out: Any) -> None:
    out[0] = 1.0 - v[0]
    out[1] = v[3]
    out[2] = v[4]
    out[3] = v[1]
    out[4] = v[2]


@njit(cache=True, nogil=True)
def _flipped_output(k: int, flipped: bool) -> tuple[int, float]:
    """Which output of the other side's view output ``k`` reads, and its sign.

    Seen from the other side, win is 1 - win (sign -1 on its gradient) and the gammon and
    backgammon outputs of the two sides swap places (1 <-> 3, 2 <-> 4).
    """
    if not flipped:
        return k, 1.0
    if k == 0:
        return 0, -1.0
    if k == 1:
        return 3, 1.0
    if k == 2:
        return 4, 1.0
    if k == 3:
        return 1, 1.0
    return 2, 1.0


@njit(cache=True, nogil=True)
def _accumulate(x: Any, h: Any, v: Any, w2: Any, flipped: bool, lam: float,
                ew1: Any, eb1: Any, ew2: Any, eb2: Any, active: bool) -> None:
    """Decay the traces by ``lam`` and add the gradient of the fixed-view outputs ``U``
    (``U = V`` or ``flip(V)``) at this state."""
    nin = ew1.shape[1]  # x may be longer (net_scratch's room for a race network's inputs)
    nh = h.shape[0]
    if active and lam != 1.0:
        ew1 *= lam
        eb1 *= lam
        ew2 *= lam
        eb2 *= lam
    elif not active:
        ew1[:] = 0.0
        eb1[:] = 0.0
        ew2[:] = 0.0
        eb2[:] = 0.0
    gh = np.empty(nh)
    for k in range(NUM_OUTPUTS):
        m, sign = _flipped_output(k, flipped)
        g = sign * v[m] * (1.0 - v[m])
        eb2[k, m] += g
        for j in range(nh):
            ew2[k, j, m] += g * h[j]
            gh[j] = g * w2[m, j] * h[j] * (1.0 - h[j])
            eb1[k, j] += gh[j]
        for i in range(nin):
            xi = x[i]
            if xi != 0.0:
                row = ew1[k, i]
                for j in range(nh):
                    row[j] += xi * gh[j]


@njit(cache=True, nogil=True)
def _apply(alpha: float, delta: Any, w1: Any, b1: Any, w2: Any, b2: Any,
           ew1: Any, eb1: Any, ew2: Any, eb2: Any) -> None:
    """``w += alpha * delta[k] * e[k]`` for ``k = 0..4`` in turn, for one network (fused
    loops, no temporaries; the same float operations in the same order as the plain
    array expressions)."""
    a = np.empty(NUM_OUTPUTS)
    for k in range(NUM_OUTPUTS):
        a[k] = alpha * delta[k]
    nin, nh = w1.shape
    for i in range(nin):
        for j in range(nh):
            w = w1[i, j]
            for k in range(NUM_OUTPUTS):
                if a[k] != 0.0:
                    w += a[k] * ew1[k, i, j]
            w1[i, j] = w
    for j in range(nh):
        w = b1[j]
        for k in range(NUM_OUTPUTS):
            if a[k] != 0.0:
                w += a[k] * eb1[k, j]
        b1[j] = w
        for m in range(NUM_OUTPUTS):
            w = w2[m, j]
            for k in range(NUM_OUTPUTS):
                if a[k] != 0.0:
                    w += a[k] * ew2[k, j, m]
            w2[m, j] = w
    for m in range(NUM_OUTPUTS):
        w = b2[m]
        for k in range(NUM_OUTPUTS):
            if a[k] != 0.0:
                w += a[k] * eb2[k, m]
        b2[m] = w


@njit(cache=True, nogil=True)
def _td0(alpha: float, delta: Any, x: Any, h: Any, v: Any, flipped: bool,
         w1: Any, b1: Any, w2: Any, b2: Any) -> None:
    """TD(0) step without traces: ``w += alpha * Σ_k delta[k] * ∇U_k`` at the state whose
    inputs, hidden activations and outputs are ``x``, ``h``, ``v``, touching only the rows
    of ``w1`` whose input is non-zero. The same float operations, in the same order, as
    :func:`_accumulate` then :func:`_apply` with ``lam = 0``."""
    nh = h.shape[0]
    a = np.empty(NUM_OUTPUTS)
    g = np.empty(NUM_OUTPUTS)
    src = np.empty(NUM_OUTPUTS, np.int64)
    gh = np.empty((NUM_OUTPUTS, nh))
    for k in range(NUM_OUTPUTS):
        a[k] = alpha * delta[k]
        m, sign = _flipped_output(k, flipped)
        src[k] = m
        g[k] = sign * v[m] * (1.0 - v[m])
        for j in range(nh):
            gh[k, j] = g[k] * w2[m, j] * h[j] * (1.0 - h[j])
    for i in range(w1.shape[0]):  # x may be longer (net_scratch)
        xi = x[i]
        if xi != 0.0:
            for j in range(nh):
                w = w1[i, j]
                for k in range(NUM_OUTPUTS):
                    if a[k] != 0.0:
                        w += a[k] * (xi * gh[k, j])
                w1[i, j] = w
    for j in range(nh):
        w = b1[j]
        for k in range(NUM_OUTPUTS):
            if a[k] != 0.0:
                w += a[k] * gh[k, j]
        b1[j] = w
        for k in range(NUM_OUTPUTS):
            if a[k] != 0.0:
                w2[src[k], j] += a[k] * (g[k] * h[j])
    for k in range(NUM_OUTPUTS):
        if a[k] != 0.0:
            b2[src[k]] += a[k] * g[k]


@njit(cache=True, nogil=True)
def train_games(seed: int, first: int, count: int, alpha: float, lam: float,
                cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                rw1: Any, rb1: Any, rw2: Any, rb2: Any,
                bo: bool, comp: Any, boff: Any, bfirst: Any, traces: bool,
                stats: Any) -> int:
    """Play games ``first .. first + count - 1`` of the run seeded ``seed`` by self-play at
    0 ply and learn from each by TD(``lam``) with step ``alpha`` (online, traces reset per
    game). With ``lam == 0`` and not ``traces`` a trace-free TD(0) step is taken (same
    result, about twice as fast). With ``bo``, bear-off positions are valued exactly from the one-sided tables
    (``comp``, ``boff``, ``bfirst``; see :mod:`.bearoff`) and a game ends, for learning, on
    reaching one. ``stats`` (``float64[4]``) accumulates plies, games, gammons,
    backgammons. Returns the number of plies played."""
    nin = cw1.shape[0]
    if rw1.shape[0] != nin:
        raise ValueError("train_games: TD training takes a race network without its own inputs")
    nhc = cb1.shape[0]
    nhr = rb1.shape[0]
    ecw1 = np.zeros((NUM_OUTPUTS, nin, nhc))
    ecb1 = np.zeros((NUM_OUTPUTS, nhc))
    ecw2 = np.zeros((NUM_OUTPUTS, nhc, NUM_OUTPUTS))
    ecb2 = np.zeros((NUM_OUTPUTS, NUM_OUTPUTS))
    erw1 = np.zeros((NUM_OUTPUTS, nin, nhr))
    erb1 = np.zeros((NUM_OUTPUTS, nhr))
    erw2 = np.zeros((NUM_OUTPUTS, nhr, NUM_OUTPUTS))
    erb2 = np.zeros((NUM_OUTPUTS, NUM_OUTPUTS))
    boards = np.zeros((MAX_PLAYS, 50), np.uint8)
    steps = np.zeros((MAX_PLAYS, 12), np.int8)
    dies = np.zeros(MAX_PLAYS, np.int8)
    table = np.zeros((8192, 2), np.int64)
    st = np.zeros(3, np.int64)
    hmax = max(nhc, nhr)
    x, h = net_scratch(nin, hmax)
    none = new_cache(0)  # best_play's empty cache
    xt, hv = net_scratch(nin, hmax)
    vt = np.zeros(NUM_OUTPUTS)
    vn = np.zeros(NUM_OUTPUTS)
    ut = np.zeros(NUM_OUTPUTS)
    un = np.zeros(NUM_OUTPUTS)
    delta = np.zeros(NUM_OUTPUTS)
    rng = np.zeros(1, np.uint64)
    fast = lam == 0.0 and not traces
    plies = 0
    for g in range(first, first + count):
        key, d1, d2, side = start_game(seed, g, rng)  # side: whose turn, fixed view
        c_active = False  # traces hold something
        r_active = False
        c_idle = 0  # plies since the contact traces last received a gradient
        r_idle = 0
        for ply in range(10000):
            plies += 1
            flipped = side == 1
            # value and gradient at the current state
            contact = is_contact(key)
            if fast:
                encode_one(key, xt)
                if contact:
                    forward(xt, cw1, cb1, cw2, cb2, hv, vt)
                else:
                    forward(xt, rw1, rb1, rw2, rb2, hv, vt)
            elif contact:
                encode_one(key, x)
                forward(x, cw1, cb1, cw2, cb2, hv, vt)
                hh = hv[:nhc]
                _accumulate(x, hh, vt, cw2, flipped, lam, ecw1, ecb1, ecw2, ecb2, c_active)
                c_active = True
                c_idle = 0
                if r_active:
                    erw1 *= lam
                    erb1 *= lam
                    erw2 *= lam
                    erb2 *= lam
                    r_idle += 1
            else:
                encode_one(key, x)
                forward(x, rw1, rb1, rw2, rb2, hv, vt)
                hh = hv[:nhr]
                _accumulate(x, hh, vt, rw2, flipped, lam, erw1, erb1, erw2, erb2, r_active)
                r_active = True
                r_idle = 0
                if c_active:
                    ecw1 *= lam
                    ecb1 *= lam
                    ecw2 *= lam
                    ecb2 *= lam
                    c_idle += 1
            if c_idle > 30:
                c_active = False
            if r_idle > 30:
                r_active = False
            if flipped:
                _flip(vt, ut)
            else:
                ut[:] = vt
            # move
            n = generate(key, d1, d2, boards, steps, dies, table, st)
            done = False
            exact = False  # the next state is a bear-off valued exactly: the last update
            if n == 0:
                nxt = np.empty(50, np.uint8)
                nxt[:25] = key[25:]
                nxt[25:] = key[:25]
                if bo and is_bearoff(nxt):
                    bearoff_eval(nxt, comp, boff, bfirst, vn)
                    exact = True
                else:
                    encode_one(nxt, x)
                    if is_contact(nxt):
                        forward(x, cw1, cb1, cw2, cb2, h, vn)
                    else:
                        forward(x, rw1, rb1, rw2, rb2, h, vn)
            else:
                k = best_play(boards, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp,
                              boff, bfirst, x, h, vn, *none)
                nxt = boards[k].copy()
                if _finished(nxt):
                    done = True
                elif bo and is_bearoff(nxt):
                    exact = True
            # fixed-view target: the next state is seen by the other side
            if done:
                pts = win_points(nxt)
                # the mover (side) won; in the mover's view:
                vn[0] = 1.0
                vn[1] = 1.0 if pts >= 2 else 0.0
                vn[2] = 1.0 if pts >= 3 else 0.0
                vn[3] = 0.0
                vn[4] = 0.0
                if flipped:
                    _flip(vn, un)
                else:
                    un[:] = vn
                stats[2] += 1.0 if pts >= 2 else 0.0
                stats[3] += 1.0 if pts >= 3 else 0.0
            else:
                if flipped:  # next on roll is side 0: its view is the fixed view
                    un[:] = vn
                else:
                    _flip(vn, un)
            for m in range(NUM_OUTPUTS):
                delta[m] = un[m] - ut[m]
            if fast:
                if contact:
                    _td0(alpha, delta, xt, hv[:nhc], vt, flipped, cw1, cb1, cw2, cb2)
                else:
                    _td0(alpha, delta, xt, hv[:nhr], vt, flipped, rw1, rb1, rw2, rb2)
            else:
                if c_active:
                    _apply(alpha, delta, cw1, cb1, cw2, cb2, ecw1, ecb1, ecw2, ecb2)
                if r_active:
                    _apply(alpha, delta, rw1, rb1, rw2, rb2, erw1, erb1, erw2, erb2)
            if done or exact:
                break
            key = nxt
            side = 1 - side
            d1 = roll_die(rng)
            d2 = roll_die(rng)
        stats[1] += 1.0
    stats[0] += plies
    return plies


# -- batched evaluation (inference) --------------------------------------------------------------

@njit(cache=True, nogil=True)
def kind_of(key: Any, bo: bool) -> int:
    """How :func:`eval_one` values ``key``: 0 a finished game, 1 a bear-off from the tables
    (with ``bo``), 2 the race network, 3 the contact network."""
    a = 0
    b = 0
    for i in range(25):
        a += key[i]
        b += key[25 + i]
    if a == 0 or b == 0:
        return 0
    if is_contact(key):
        return 3
    if bo and is_bearoff(key):
        return 1
    return 2


@njit(cache=True, nogil=True)
def eval_one(key: Any, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
             rw1: Any, rb1: Any, rw2: Any, rb2: Any,
             bo: bool, comp: Any, boff: Any, bfirst: Any, x: Any, h: Any, v: Any) -> int:
    """Outputs (win, wg, wbg, lg, lbg) of ``key`` for the side on roll into ``v``: a
    finished game exactly, a bear-off from the tables when ``bo``, a race or a contact
    position by its network; then clipped consistent (backgammons within gammons within
    wins, for each side). Returns the class (:func:`kind_of`): 0 finished, 1 bear-off
    (exact), 2 race, 3 contact. ``x`` and ``h`` are scratch arrays (inputs, the larger
    hidden layer)."""
    kind = kind_of(key, bo)
    eval_kind(key, kind, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp, boff, bfirst, x, h, v)
    return kind


@njit(cache=True, nogil=True)
def eval_kind(key: Any, kind: int, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
              rw1: Any, rb1: Any, rw2: Any, rb2: Any,
              bo: bool, comp: Any, boff: Any, bfirst: Any, x: Any, h: Any, v: Any) -> None:
    """:func:`eval_one` of ``key`` whose class ``kind`` (:func:`kind_of`) is known."""
    if kind == 0:
        a = 0
        for i in range(25):
            a += key[i]
        won = a == 0  # the side on roll has borne off its last checker
        loser_base = 25 if won else 0
        n_loser = 0
        for i in range(25):
            n_loser += key[loser_base + i]
        bg = 0.0
        if n_loser == 15:
            for i in range(18, 25):
                if key[loser_base + i] > 0:
                    bg = 1.0
        gam = 1.0 if n_loser == 15 else 0.0
        if won:
            v[0] = 1.0
            v[1] = gam
            v[2] = bg
            v[3] = 0.0
            v[4] = 0.0
        else:
            v[0] = 0.0
            v[1] = 0.0
            v[2] = 0.0
            v[3] = gam
            v[4] = bg
    elif kind == 3:
        encode_one(key, x)
        forward(x, cw1, cb1, cw2, cb2, h, v)
    elif kind == 1:
        bearoff_eval(key, comp, boff, bfirst, v)
    else:
        encode_one(key, x)
        if rw1.shape[0] > NUM_INPUTS:  # a race network with its own inputs
            race_extra(key, x)
        forward(x, rw1, rb1, rw2, rb2, h, v)
    clip_outputs(v)


@njit(cache=True, nogil=True)
def clip_outputs(v: Any) -> None:
    """Make outputs ``v`` consistent in place: probabilities in [0, 1], backgammons within
    gammons within wins, for each side."""
    w = min(max(v[0], 0.0), 1.0)
    wg = min(max(v[1], 0.0), w)
    wb = min(max(v[2], 0.0), wg)
    lg = min(max(v[3], 0.0), 1.0 - w)
    lb = min(max(v[4], 0.0), lg)
    v[0] = w
    v[1] = wg
    v[2] = wb
    v[3] = lg
    v[4] = lb


@njit(cache=True, nogil=True)
def evaluate_batch(boards: Any, cw1: Any, cb1: Any, cw2: Any, cb2: Any,
                   rw1: Any, rb1: Any, rw2: Any, rb2: Any,
                   bo: bool, comp: Any, boff: Any, bfirst: Any, out: Any) -> None:
    """Outputs (win, wg, wbg, lg, lbg) for the side on roll of every row of ``boards`` into
    ``out`` (``float64[n, 5]``), as :func:`eval_one` gives them; contact rows two at a time
    (:func:`forward_two`: the same outputs)."""
    x, h = net_scratch(cw1.shape[0], max(cb1.shape[0], rb1.shape[0]))
    play_outputs(boards, boards.shape[0], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, bo, comp,
                 boff, bfirst, x, h, out, *new_cache(0))
