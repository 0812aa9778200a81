"""The 2-ply search's evaluation caches (backgammon.engine._search_kernels.two_ply_batch):
they save work, never change a value."""

from __future__ import annotations

import numpy as np

from backgammon import Position
from backgammon.engine import key_of
from backgammon.engine import _kernels as K
from backgammon.engine.evaluator import default_evaluator
from tests.strategies import random_game_positions


def _reference_two_ply(pos: Position) -> np.ndarray:
    """2 ply composed by hand: the best 0-ply play of each roll, then its 1-ply outputs
    (the uncached kernel), turned and weighted."""
    ev = default_evaluator()
    acc = np.zeros(5)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            legal = pos.legal_moves((d1, d2))
            if legal:
                nxt = legal.boards[int(np.argmax(ev.play_equities(legal)))][None, :]
            else:
                nxt = key_of(pos.swap())
            o = ev.one_ply_outputs(nxt)[0]
            acc += (1 if d1 == d2 else 2) / 36 * np.array([1 - o[0], o[3], o[4], o[1], o[2]])
    return acc


def test_cached_two_ply_keeps_the_values_across_a_decisions_candidates() -> None:
    ev = default_evaluator()
    cases = [(p, d) for p, d in random_game_positions(seed=8, games=2)
             if not p.is_race() and len(p.legal_moves(d)) >= 3]
    pos, dice = cases[len(cases) // 3]
    legal = pos.legal_moves(dice)
    # candidates of one decision share a call (and its caches), a repeated row included
    rows = legal.boards[[0, 1, 2, 0]]
    together = ev.outputs_at(rows, 2)
    alone = np.concatenate([ev.outputs_at(rows[i:i + 1], 2) for i in range(len(rows))])
    np.testing.assert_array_equal(together, alone)
    np.testing.assert_array_equal(together[0], together[3])
    after = legal.position(1)  # the opponent on roll
    np.testing.assert_allclose(together[1], _reference_two_ply(after), atol=1e-9)


def test_cache_slots_find_what_was_stored() -> None:
    used, keys, vals = K.new_cache(64)
    rows = [key_of(p)[0] for p, _ in random_game_positions(seed=3, games=1)][:40]
    for i, key in enumerate(rows):
        j = K.cache_slot(used, keys, key)
        if j < 0:
            K.cache_store(used, keys, vals, -j - 1, key, np.full(5, float(i)))
    stored = 0
    for i, key in enumerate(rows):
        j = K.cache_slot(used, keys, key)
        if j >= 0:
            stored += 1
            assert (keys[j] == key).all()
            first = next(k for k, r in enumerate(rows) if (r == key).all())
            assert vals[j, 0] == first
    assert stored >= 20


def test_a_full_cache_replaces_entries_and_never_answers_for_another_key() -> None:
    """Four slots, many positions: each lookup finds its own key's value or nothing, a
    key just stored is found, and a miss in a full cache points at a slot to reuse."""
    used, keys, vals = K.new_cache(4)
    rows = [key_of(p)[0] for p, _ in random_game_positions(seed=5, games=2)][:200]
    first: dict[bytes, int] = {}
    for i, key in enumerate(rows):
        first.setdefault(key.tobytes(), i)
        j = K.cache_slot(used, keys, key)
        if j >= 0:
            assert (keys[j] == key).all() and vals[j, 0] == first[key.tobytes()]
            continue
        assert 0 <= -j - 1 < 4
        K.cache_store(used, keys, vals, -j - 1, key, np.full(5, float(first[key.tobytes()])))
        assert K.cache_slot(used, keys, key) == -j - 1
    assert used.all()
