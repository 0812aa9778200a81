"""The hand-made input features added in weights format 2 (``_kernels._extra_features``),
each against a plain-Python reference written from its definition (docs/TRAINING.md,
"Inputs"); every input of the encoder bit for bit against such a reference, and its escape
tables against the definition; the loading of format 1 (218-input) weights padded with
zeros."""

from __future__ import annotations

import io
import math
from itertools import islice
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from backgammon import Position
from backgammon.engine import Evaluator, NetworkPair, key_of
from backgammon.engine import _kernels as K
from backgammon.engine.evaluator import DEFAULT_WEIGHTS, encode, equities
from backgammon.engine.network import FORMAT_VERSION, pad_old_inputs
from tests.strategies import positions, random_game_positions

FIXTURE = Path(__file__).parent / "data" / "old_inputs_outputs.npz"
NAMES = ["dance", "double_hits", "pip_loss", "containment", "actual_containment",
         "back_anchor", "forward_anchor", "break_pips", "mobility", "spread"]
EXTRA = K.N_RAW + K.N_HAND  # where a side's extra features start in its block

Side = list[int]  # 25 slots, own view: slot i = point i + 1, slot 24 = bar


# -- reference implementations (slow, plain Python) --------------------------------------------

def held(o: Side, t: int) -> bool:
    """Does ``o`` hold ``c``'s point ``t`` (1..24)?"""
    return 1 <= t <= 24 and o[24 - t] >= 2


def blot(o: Side, t: int) -> bool:
    return 1 <= t <= 24 and o[24 - t] == 1


def rolls() -> list[tuple[int, int, int]]:
    """The 21 rolls with their weight of 36."""
    return [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)]


def ref_dance(c: Side, o: Side) -> float:
    closed = sum(1 for t in range(19, 25) if held(o, t))
    return (closed / 6) ** 2


def double_hit_rolls(c: Side, o: Side) -> int:
    """Brute force over every sequence of the roll's steps (checkers on the bar first):
    the rolls of 36 that hit two different blots."""

    def search(me: list[int], opp: list[int], steps: list[int], hits: int,
               seen: set[tuple[int, ...]]) -> bool:
        if hits >= 2:
            return True
        if hits + len(steps) < 2:  # too few steps left to hit twice
            return False
        state = (*me, *opp, *steps, hits)
        if state in seen:  # reached before by another order of the same moves: failed
            return False
        seen.add(state)
        for i, d in enumerate(steps):
            rest = steps[:i] + steps[i + 1:]
            sources = [25] if me[24] > 0 else [a for a in range(1, 25) if me[a - 1] > 0]
            for a in sources:
                t = a - d
                if t < 1 or held(opp, t):
                    continue
                m = me.copy()
                p = opp.copy()
                m[a - 1] -= 1
                m[t - 1] += 1
                h = hits
                if blot(p, t):
                    p[24 - t] = 0
                    h += 1
                if search(m, p, rest, h, seen):
                    return True
        return False

    if sum(1 for t in range(1, 25) if blot(o, t)) < 2:
        return 0
    total = 0
    for d1, d2, w in rolls():
        steps = [d1] * 4 if d1 == d2 else [d1, d2]
        if search(list(c), list(o), steps, 0, set()):
            total += w
    return total


def ref_double_hits(c: Side, o: Side) -> float:
    return double_hit_rolls(c, o) / 36


def hits_blot(c: Side, o: Side, t: int, d1: int, d2: int) -> bool:
    """Does roll ``(d1, d2)`` hit the blot on ``c``'s point ``t`` as the shots feature
    counts (one die directly; both dice with a free landing between; a double's 2-4
    steps over free points; from the bar only when ``c`` has a checker there)?"""
    sources = [25] if c[24] > 0 else [a for a in range(1, 25) if c[a - 1] > 0]
    for a in sources:
        dist = a - t
        if dist <= 0:
            continue
        if dist in (d1, d2):
            return True
        if d1 != d2 and dist == d1 + d2 and (not held(o, a - d1) or not held(o, a - d2)):
            return True
        if d1 == d2 and dist % d1 == 0 and 2 <= dist // d1 <= 4 \
                and all(not held(o, a - s * d1) for s in range(1, dist // d1)):
            return True
    return False


def pip_loss_pips(c: Side, o: Side) -> int:
    """The pips lost to the costliest blot each roll hits, summed over the 36 rolls."""
    total = 0
    for d1, d2, w in rolls():
        lost = [t for t in range(1, 25) if blot(o, t) and hits_blot(c, o, t, d1, d2)]
        total += w * max(lost, default=0)
    return total


def ref_pip_loss(c: Side, o: Side) -> float:
    return pip_loss_pips(c, o) / 36 / 24


def shot_rolls(c: Side, o: Side) -> int:
    return sum(w for d1, d2, w in rolls()
               if any(blot(o, t) and hits_blot(c, o, t, d1, d2) for t in range(1, 25)))


def ref_shots(c: Side, o: Side) -> float:
    return shot_rolls(c, o) / 36


def escapes(o: Side, p: int) -> int:
    """Rolls that take a checker on ``p`` beyond the lowest point ``o`` holds within 12 pips
    in front of it (any order of the dice, landing only on points ``o`` does not hold)."""
    block = [t for t in range(max(1, p - 12), p) if held(o, t)]
    if not block:
        return 36
    lowest = min(block)
    total = 0
    for d1, d2, w in rolls():
        orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
        ok = False
        for steps in orders:
            pos = p
            for d in steps:
                pos -= d
                if held(o, pos):
                    break
                if pos < lowest:
                    ok = True
                    break
        total += w if ok else 0
    return total


def ref_containment(c: Side, o: Side) -> float:
    return 1 - min(escapes(o, p) for p in range(15, 25)) / 36


def ref_actual_containment(c: Side, o: Side) -> float:
    mine = [p for p in range(13, 26) if c[p - 1] > 0]
    return 1 - min(escapes(o, p) for p in mine) / 36 if mine else 0.0


def ref_back_anchor(c: Side, o: Side) -> float:
    return max((p for p in range(13, 25) if c[p - 1] >= 2), default=0) / 24


def ref_forward_anchor(c: Side, o: Side) -> float:
    p = min((p for p in range(19, 25) if c[p - 1] >= 2), default=25)
    return (25 - p) / 6


def ref_break_pips(c: Side, o: Side) -> float:
    """Pips until every checker of ``c`` is past ``o``'s rearmost one (on ``c``'s point
    ``25 − q`` for ``o``'s point ``q``): a checker on ``p`` needs ``p − (25 − q) + 1``."""
    q = max((q for q in range(1, 26) if o[q - 1] > 0), default=0)
    if q == 0:
        return 0.0
    return sum(c[p - 1] * (p - (25 - q) + 1) for p in range(1, 26) if p > 25 - q) / 200


def ref_mobility(c: Side, o: Side) -> float:
    total = 0
    for d in range(1, 7):
        if c[24] > 0:
            total += 0 if held(o, 25 - d) else 1
        else:
            total += min(6, sum(1 for a in range(1, 25) if c[a - 1] > 0 and a - d >= 1
                                and not held(o, a - d)))
    return total / 36


def ref_spread(c: Side, o: Side) -> float:
    checkers = [p for p in range(1, 26) for _ in range(c[p - 1])]
    if not checkers:
        return 0.0
    mean = sum(checkers) / len(checkers)
    return math.sqrt(sum((p - mean) ** 2 for p in checkers if p > mean) / len(checkers)) / 12


REFERENCES = [ref_dance, ref_double_hits, ref_pip_loss, ref_containment,
              ref_actual_containment, ref_back_anchor, ref_forward_anchor, ref_break_pips,
              ref_mobility, ref_spread]


def sides(p: Position) -> tuple[Side, Side]:
    return list(p.player), list(p.opponent)


def extras(p: Position) -> tuple[np.ndarray, np.ndarray]:
    """The extra features of the side on roll and of the other side."""
    x = encode(key_of(p))[0]
    return x[EXTRA:K.PER_SIDE], x[K.PER_SIDE + EXTRA:]


def check(p: Position) -> None:
    c, o = sides(p)
    mine, theirs = extras(p)
    for i, ref in enumerate(REFERENCES):
        assert mine[i] == pytest.approx(ref(c, o), abs=1e-12), (NAMES[i], p)
        assert theirs[i] == pytest.approx(ref(o, c), abs=1e-12), (NAMES[i], "other side", p)
    x = encode(key_of(p))[0]
    assert x[K.N_RAW + 3] == pytest.approx(ref_shots(c, o), abs=1e-12)


# -- the features against the references -------------------------------------------------------

@pytest.fixture(scope="module")
def game_positions() -> list[Position]:
    return [p for p, _ in islice(random_game_positions(5, games=200), 0, 12000, 60)]


def test_features_match_references_on_game_positions(game_positions: list[Position]) -> None:
    for p in game_positions:
        check(p)


@settings(max_examples=120, deadline=None)
@given(positions())
def test_features_match_references_on_any_position(p: Position) -> None:
    check(p)


def test_many_blots_and_bar_checkers() -> None:
    """Positions rich in blots and bar checkers, where the double-hit cases differ."""
    rng = np.random.default_rng(3)
    for _ in range(150):
        me = [0] * 25
        opp = [0] * 25
        for _ in range(int(rng.integers(1, 16))):
            me[int(rng.choice([24, 24, 24] + list(range(24))))] += 1
        free = [q for q in range(1, 26) if q == 25 or me[24 - q] == 0]
        for q in rng.choice(free, size=int(rng.integers(2, 12)), replace=False):
            opp[int(q) - 1] += 1  # many single checkers: blots
        check(Position(me, opp))


def test_known_values() -> None:
    start = Position.initial()
    mine, theirs = extras(start)
    assert np.array_equal(mine, theirs)
    assert mine[0] == pytest.approx(1 / 36)  # the other side holds its 6-point
    assert mine[1] == 0 and mine[2] == 0  # no blots
    assert mine[5] == 1.0 and mine[6] == pytest.approx(1 / 6)  # the 24-point anchor
    assert mine[7] == pytest.approx(167 / 200)  # every checker still behind
    # a closed board with a checker on the bar: it always dances, no way out
    closed = Position([0] * 24 + [1], [2, 2, 2, 2, 2, 2, 3] + [0] * 18)
    mine, theirs = extras(closed)
    assert mine[0] == 1.0
    assert mine[3] == pytest.approx(1 - escapes(sides(closed)[1], 24) / 36)
    assert mine[4] == 1.0  # escapes from the bar: none
    assert mine[8] == 0.0  # no mobility
    assert theirs[0] == 0.0
    # blots on the 5- and 3-points, two checkers on the 8-point: 5-3 hits both (one checker
    # each), 3-2 too (one checker 8/5*/3*); nothing else does
    p = Position([0] * 7 + [2] + [0] * 17, [0] * 19 + [1, 0, 1] + [0] * 3)
    c, o = sides(p)
    assert blot(o, 5) and blot(o, 3)
    assert extras(p)[0][1] == pytest.approx(4 / 36) == ref_double_hits(c, o)
    # pip loss: the 5-point blot (5 pips) with every 3, 2-1 and 1-1 (14 rolls); else the
    # 3-point blot (3 pips) with every 5 but 5-3, and 4-1 (11 rolls)
    assert extras(p)[0][2] == pytest.approx((14 * 5 + 11 * 3) / 36 / 24) == ref_pip_loss(c, o)
    # all checkers on one point: no spread
    assert extras(Position([0] * 5 + [15] + [0] * 19, [0] * 5 + [15] + [0] * 19))[0][9] == 0.0


# -- encoding -----------------------------------------------------------------------------------

def test_layout_constants() -> None:
    assert K.PER_SIDE == K.N_RAW + K.N_HAND + K.N_EXTRA and K.N_EXTRA == len(NAMES)
    assert K.NUM_INPUTS == 2 * K.PER_SIDE and K.OLD_NUM_INPUTS == 218


def ref_side_inputs(c: Side, o: Side) -> list[float]:
    """The :data:`K.PER_SIDE` inputs of side ``c``, straight from their definitions
    (docs/TRAINING.md, "Inputs") with the encoder's final float operations, so that the
    two agree bit for bit."""
    x: list[float] = []
    for n in c[:24]:
        x += [1.0 if n >= 1 else 0.0, 1.0 if n >= 2 else 0.0, 1.0 if n >= 3 else 0.0,
              (n - 3) / 2.0 if n > 3 else 0.0]
    bar = c[24]
    on_board = sum(c)
    x += [1.0 if bar >= 1 else 0.0, bar / 2.0, (15 - on_board) / 15.0]
    pips = sum(p * c[p - 1] for p in range(1, 26))
    rear = max((p for p in range(1, 26) if c[p - 1] > 0), default=0)
    prime = run = 0
    for n in c[:24]:
        run = run + 1 if n >= 2 else 0
        prime = max(prime, run)
    oback = max((q for q in range(1, 26) if o[q - 1] > 0), default=0)
    x += [pips / 100.0,
          sum(c[18:25]) / 5.0,
          escapes(o, rear) / 36.0 if rear else 1.0,
          shot_rolls(c, o) / 36.0,
          prime / 6.0,
          sum(1 for n in c[18:24] if n >= 2) / 3.0,
          sum(1 for n in c[:6] if n >= 2) / 6.0,
          sum(c[6:18]) / 15.0,
          sum(1 for n in c[:24] if n == 1) / 5.0,
          sum(c[p - 1] for p in range(1, 26) if p + oback > 25) / 15.0]
    closed = sum(1 for t in range(19, 25) if held(o, t))
    mine = [p for p in range(13, 26) if c[p - 1] > 0]
    spread = 0.0
    if on_board > 0:
        mean = pips / on_board
        m2 = 0.0
        for p in range(1, 26):
            n = c[p - 1]
            if n > 0 and p > mean:
                m2 += n * (p - mean) * (p - mean)
        spread = math.sqrt(m2 / on_board) / 12.0
    mobility = ref_mobility(c, o) * 36  # an integer: exact
    x += [(closed / 6.0) * (closed / 6.0),
          double_hit_rolls(c, o) / 36.0,
          pip_loss_pips(c, o) / (36.0 * 24.0),
          1.0 - min(escapes(o, p) for p in range(15, 25)) / 36.0,
          1.0 - min(escapes(o, p) for p in mine) / 36.0 if mine else 0.0,
          max((p for p in range(13, 25) if c[p - 1] >= 2), default=0) / 24.0,
          (25 - min((p for p in range(19, 25) if c[p - 1] >= 2), default=25)) / 6.0,
          sum(c[p - 1] * (p + oback - 24) for p in range(1, 26) if p + oback > 25) / 200.0,
          round(mobility) / 36.0,
          spread]
    return x


def identity_keys() -> np.ndarray:
    """A few thousand seeded keys: positions of random games, plays out of them, and
    positions rich in blots and checkers on the bar."""
    rng = np.random.default_rng(14)
    keys = []
    for p, dice in islice(random_game_positions(14, games=100), 0, 4000, 4):
        keys.append(key_of(p)[0])
        plays = p.legal_moves(dice)
        if len(plays):
            keys.append(np.asarray(plays.boards)[int(rng.integers(len(plays)))])
    for _ in range(600):
        me = [0] * 25
        opp = [0] * 25
        for _ in range(int(rng.integers(0, 16))):
            me[int(rng.choice([24, 24] + list(range(24))))] += 1
        free = [q for q in range(1, 26) if q == 25 or me[24 - q] == 0]
        for q in rng.choice(free, size=int(rng.integers(0, 16))):
            opp[int(q) - 1] += 1
        keys.append(np.array(me + opp if rng.random() < 0.5 else opp + me, np.uint8))
    return np.stack(keys)


def test_encoder_equals_reference_bit_for_bit() -> None:
    """Every one of the :data:`K.NUM_INPUTS` inputs, exactly (``np.array_equal``), on a few
    thousand seeded positions: the encoder's tables and bit sets change no value."""
    keys = identity_keys()
    assert len(keys) > 2000
    x = encode(keys)
    for r, key in enumerate(keys):
        c = [int(n) for n in key[:25]]
        o = [int(n) for n in key[25:]]
        ref = np.array(ref_side_inputs(c, o) + ref_side_inputs(o, c))
        assert np.array_equal(x[r], ref), (key.tolist(), np.nonzero(x[r] != ref)[0].tolist())


def test_escape_tables_equal_the_definition() -> None:
    """The escape tables against :func:`K._escape_rolls`: every pattern of the 18 points in
    front of a checker on point 24, then random held points with a checker anywhere (and
    against the plain-Python :func:`escapes`)."""
    table = np.array([K._escapes(i << 6, 24) for i in range(1 << 18)])
    direct = np.array([K._escape_rolls(i << 6, 24) for i in range(1 << 18)])
    assert np.array_equal(table, direct)
    rng = np.random.default_rng(5)
    for _ in range(300):
        hm = int(rng.integers(0, 1 << 24)) << 1  # held points 1..24
        o = [0] * 25
        for t in range(1, 25):
            if (hm >> t) & 1:
                o[24 - t] = 2
        for p in range(1, 26):
            assert K._escapes(hm, p) == K._escape_rolls(hm, p) == escapes(o, p)


def test_encode_batch_equals_encode_one(game_positions: list[Position]) -> None:
    boards = np.concatenate([key_of(p) for p in game_positions])
    x = np.zeros((len(boards), K.NUM_INPUTS))
    K.encode_batch(boards, x)
    for r in range(len(boards)):
        one = np.full(K.NUM_INPUTS, np.nan)
        K.encode_one(boards[r], one)
        assert np.array_equal(one, x[r])


# -- format 1 weights ---------------------------------------------------------------------------

def outputs_of(nets: NetworkPair, keys: np.ndarray) -> tuple[np.ndarray, ...]:
    """Evaluator outputs, and both networks' raw outputs on every key."""
    x = encode(keys)
    raw = []
    for net in (nets.contact, nets.race):
        _, h = K.net_scratch(K.NUM_INPUTS, net.hidden)
        v = np.zeros(5)
        r = np.zeros((len(keys), 5))
        for i in range(len(keys)):
            K.forward(x[i].astype(np.float32), *net.kernel_arrays(), h, v)
            r[i] = v
        raw.append(r)
    return Evaluator(nets).outputs(keys), raw[0], raw[1]


def test_format_1_weights_compute_what_they_did() -> None:
    """Outputs recorded with the 218-input encoder (tests/data/old_inputs_outputs.npz, a
    small seeded random pair stored in format 1, and the shipped weights when unchanged)."""
    data = np.load(FIXTURE)
    keys = data["keys"]
    small = io.BytesIO(data["small_weights"].tobytes())
    with np.load(small) as raw:
        assert int(raw["format"]) == 1 and raw["contact_w1"].shape[0] == K.OLD_NUM_INPUTS
    small.seek(0)
    pairs = [("small", NetworkPair.load(small))]
    import hashlib
    if hashlib.sha256(DEFAULT_WEIGHTS.read_bytes()).hexdigest() == str(data["expert_sha256"]):
        pairs.append(("expert", NetworkPair.load(DEFAULT_WEIGHTS)))
    for name, nets in pairs:
        assert nets.contact.w1.shape[0] == K.NUM_INPUTS
        got = outputs_of(nets, keys)
        for part, arr in zip(("outputs", "contact", "race"), got):
            # recorded in double precision; the compiled forward pass is single precision
            np.testing.assert_allclose(arr, data[f"{name}_{part}"], rtol=0, atol=2e-6)


def test_save_writes_the_new_layout_and_reloads_unpadded() -> None:
    data = np.load(FIXTURE)
    nets = NetworkPair.load(io.BytesIO(data["small_weights"].tobytes()))
    buf = io.BytesIO()
    nets.save(buf)
    buf.seek(0)
    with np.load(buf) as raw:
        assert int(raw["format"]) == 2 and FORMAT_VERSION == 4  # 3: a second layer; 4: race inputs
        assert int(raw["inputs"]) == K.NUM_INPUTS == raw["contact_w1"].shape[0]
    buf.seek(0)
    again = NetworkPair.load(buf)
    assert np.array_equal(again.contact.w1, nets.contact.w1)
    assert np.array_equal(again.race.w1, nets.race.w1)


def test_padding_rows() -> None:
    w = np.random.default_rng(0).normal(size=(K.OLD_NUM_INPUTS, 3))
    p = pad_old_inputs(w)
    old = K.OLD_PER_SIDE
    assert np.array_equal(p[:old], w[:old])
    assert np.array_equal(p[K.PER_SIDE:K.PER_SIDE + old], w[old:])
    assert not p[old:K.PER_SIDE].any() and not p[K.PER_SIDE + old:].any()
    with pytest.raises(ValueError):
        pad_old_inputs(np.zeros((K.NUM_INPUTS, 3)))


def test_the_forward_pass_refuses_a_hidden_buffer_without_room_for_its_input_list() -> None:
    """K.forward lists the non-zero inputs at the end of ``h`` (net_scratch sizes it): a
    buffer of the old size is an error, not a write past its end."""
    nets = NetworkPair.load(DEFAULT_WEIGHTS)
    x = encode(np.zeros((1, 50), np.uint8) + 1)[0].astype(np.float32)
    v = np.zeros(5)
    with pytest.raises(ValueError, match="net_scratch"):
        K.forward(x, *nets.contact.kernel_arrays(), np.zeros(2 * nets.contact.hidden, np.float32), v)
    _, h = K.net_scratch(K.NUM_INPUTS, nets.contact.hidden)
    K.forward(x, *nets.contact.kernel_arrays(), h, v)
    assert 0.0 < v[0] < 1.0


# -- a second hidden layer ------------------------------------------------------------------------

def one_layer_pair() -> NetworkPair:
    """The shipped weights without any second hidden layer (its first layer and outputs)."""
    from backgammon.engine.network import Network

    nets = NetworkPair.load(DEFAULT_WEIGHTS)
    return NetworkPair(*(Network(*net.arrays()[:4]) for net in (nets.contact, nets.race)))


def deep_pair(seed: int = 3) -> NetworkPair:
    """The shipped weights' first layers, each network given a second layer with random
    weights out of it."""
    rng = np.random.default_rng(seed)
    nets = one_layer_pair()
    deep = NetworkPair(nets.contact.deepen(24, rng), nets.race.deepen(8, rng))
    for net in (deep.contact, deep.race):
        assert net.w4 is not None and net.b3 is not None
        net.w4[...] = rng.normal(0.0, 0.3, net.w4.shape)
        net.b3[...] = rng.normal(0.0, 0.3, net.b3.shape)
    return deep


def test_a_second_layer_starts_out_computing_the_network_it_was_added_to() -> None:
    keys = np.load(FIXTURE)["keys"]
    nets = one_layer_pair()
    rng = np.random.default_rng(0)
    deep = NetworkPair(nets.contact.deepen(32, rng), nets.race.deepen(16, rng))
    assert deep.contact.hidden2 == 32 and nets.contact.hidden2 == 0
    np.testing.assert_allclose(Evaluator(deep).outputs(keys), Evaluator(nets).outputs(keys), atol=1e-7)
    x = encode(keys)
    np.testing.assert_array_equal(deep.contact.forward(x), nets.contact.forward(x))


def test_the_compiled_pass_computes_the_second_layer() -> None:
    """K.forward against the numpy forward pass of both networks, with weights out of the
    second layer that change the outputs."""
    keys = np.load(FIXTURE)["keys"]
    deep = deep_pair()
    shallow = one_layer_pair()
    x = encode(keys)
    _, compiled_contact, compiled_race = outputs_of(deep, keys)
    for net, got, old in ((deep.contact, compiled_contact, shallow.contact),
                          (deep.race, compiled_race, shallow.race)):
        ref = net.forward(x)
        np.testing.assert_allclose(got, ref, atol=2e-6)
        assert np.abs(ref - old.forward(x)).max() > 0.01  # the second layer matters here


def test_weights_with_a_second_layer_round_trip_as_format_3() -> None:
    deep = deep_pair()
    buf = io.BytesIO()
    deep.save(buf)
    buf.seek(0)
    with np.load(buf) as raw:
        assert int(raw["format"]) == 3 and FORMAT_VERSION == 4 and "contact_w3" in raw and "race_w4" in raw
    buf.seek(0)
    again = NetworkPair.load(buf)
    for a, b in ((again.contact, deep.contact), (again.race, deep.race)):
        assert len(a.arrays()) == 7
        for x, y in zip(a.arrays(), b.arrays()):
            np.testing.assert_array_equal(x, y)
    kernel = deep.kernel_args()
    back = deep.copy()
    back.set_kernel_args(kernel)  # the packed kernel layout unpacks to the same weights
    for x, y in zip(back.contact.arrays(), deep.contact.arrays()):
        np.testing.assert_allclose(x, y, atol=1e-6)


def test_a_second_layer_is_checked_and_not_trained_by_td() -> None:
    from backgammon.engine.network import Network
    from backgammon.engine.train import Checkpoint, train

    net = one_layer_pair().race
    with pytest.raises(ValueError, match="w3, b3 and w4"):
        Network(net.w1, net.b1, net.w2, net.b2, w3=np.zeros((net.hidden, 4)))
    with pytest.raises(ValueError, match="do not fit"):
        Network(net.w1, net.b1, net.w2, net.b2, np.zeros((net.hidden + 1, 4)), np.zeros(4), np.zeros((4, 5)))
    with pytest.raises(ValueError, match="wider than the first"):
        net.deepen(net.hidden + 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="already has a second layer"):
        net.deepen(4, np.random.default_rng(0)).deepen(4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="one-hidden-layer"):
        train(Checkpoint(deep_pair(), seed=1), 1)


def _one_at_a_time(nets: NetworkPair, keys: np.ndarray) -> np.ndarray:
    from backgammon.engine.bearoff import kernel_args

    args = nets.kernel_args()
    x, h = K.net_scratch(K.NUM_INPUTS, max(nets.contact.hidden, nets.race.hidden))
    v = np.zeros(5)
    out = np.zeros((len(keys), 5))
    for r, key in enumerate(keys):
        K.eval_one(key, *args, True, *kernel_args(), x, h, v)
        out[r] = v
    return out


def odd_deep_pair() -> NetworkPair:
    """Random networks whose second layers are not a multiple of the kernels' passes (13
    and 5 units on first layers of 20 and 7)."""
    rng = np.random.default_rng(11)
    nets = NetworkPair.random(20, 7, seed=11)
    deep = NetworkPair(nets.contact.deepen(13, rng), nets.race.deepen(5, rng))
    for net in (deep.contact, deep.race):
        assert net.w4 is not None
        net.w4[...] = rng.normal(0.0, 0.5, net.w4.shape)
    return deep


@pytest.mark.parametrize("which", ["shipped", "deep", "odd"])
def test_two_positions_at_a_time_give_the_same_bits_as_one(which: str) -> None:
    """The batch paths evaluate contact positions two at a time (K.forward_two) and must
    give every position the very outputs K.eval_one gives it alone, whatever its partner:
    the searches' caches mix both paths."""
    from backgammon.engine.bearoff import kernel_args

    nets = {"shipped": lambda: NetworkPair.load(DEFAULT_WEIGHTS), "deep": deep_pair,
            "odd": odd_deep_pair}[which]()
    keys = np.ascontiguousarray(np.load(FIXTURE)["keys"])
    assert (which != "shipped") or nets.contact.hidden2 > 0
    alone = _one_at_a_time(nets, keys)
    for order in (slice(None), slice(None, None, -1), np.random.default_rng(1).permutation(len(keys))):
        rows = np.ascontiguousarray(keys[order])
        out = np.zeros((len(rows), 5))
        K.evaluate_batch(rows, *nets.kernel_args(), True, *kernel_args(), out)
        np.testing.assert_array_equal(out, alone[order])
    np.testing.assert_array_equal(Evaluator(nets).outputs(keys), alone)
    # the 0-ply choice over a list of plays: the first best, with its outputs
    x, h = K.net_scratch(K.NUM_INPUTS, max(nets.contact.hidden, nets.race.hidden))
    best_v = np.zeros(5)
    cache = K.new_cache(64)  # small: entries are replaced, and hits mix with pairs
    for lo in range(0, len(keys) - 7, 7):
        rows = np.ascontiguousarray(keys[lo:lo + 7])
        expected = int(np.argmax(-equities(alone[lo:lo + 7])))  # the mover's: the next side's negated
        for _ in range(2):  # with the cache: filled, then read back
            for cached in (K.new_cache(0), cache):
                k = K.best_play(rows, len(rows), *nets.kernel_args(), True, *kernel_args(), x, h,
                                best_v, *cached)
                assert k == expected
                np.testing.assert_array_equal(best_v, alone[lo + k])
    used, ckeys, cvals = cache
    for j in np.flatnonzero(used):  # every entry is its key's own outputs
        i = next(i for i in range(len(keys)) if (keys[i] == ckeys[j]).all())
        np.testing.assert_array_equal(cvals[j], alone[i])


def test_odd_second_layers_match_the_numpy_pass() -> None:
    keys = np.load(FIXTURE)["keys"]
    nets = odd_deep_pair()
    _, compiled_contact, compiled_race = outputs_of(nets, keys)
    x = encode(keys)
    np.testing.assert_allclose(compiled_contact, nets.contact.forward(x), atol=2e-6)
    np.testing.assert_allclose(compiled_race, nets.race.forward(x), atol=2e-6)
