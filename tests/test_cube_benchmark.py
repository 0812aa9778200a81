"""The cube benchmark (benchmarks/cube.py): our match cube decisions against gnubg-nn's
``evaluate_cube_decision``, on clear-cut positions where both must agree, and the
bookkeeping of a small run (gnubg-nn is the bench extra: skipped without it)."""

from __future__ import annotations

from types import ModuleType

import pytest

from backgammon import Position
from backgammon.bots import CubeResponse, UnknownBotError, load
from tests.benchmark_modules import load_benchmark

pytest.importorskip("gnubg_nn")


@pytest.fixture(scope="module")
def cube() -> ModuleType:
    return load_benchmark("cube")


#: A race the side on roll cannot lose: three checkers on its 1-point against ten on the
#: opponent's 6-point (five borne off, so no gammon either): double, and the opponent passes.
HUGE_LEAD = Position([3] + [0] * 24, [0] * 5 + [10] + [0] * 19)


def test_huge_lead_race_is_double_pass_for_both(cube: ModuleType) -> None:
    bot = load("worldclass")
    for sit in cube.SITUATIONS:
        ours, take = cube.our_cube(bot, HUGE_LEAD, sit)
        g = cube.gnubg_cube(HUGE_LEAD, sit, 0)
        assert (ours, take) == ("double, pass", False), sit
        assert g.action == "double, pass" and not g.take, sit
        # gnubg's double/pass equity is the MWC of winning the cube's points now
        assert g.dp > g.nd - 1e-6 and g.dt >= g.dp
        assert cube.doubler_cost(ours, g) == 0.0 and cube.taker_cost(take, g) == 0.0


def test_opening_position_is_no_double_take_for_both(cube: ModuleType) -> None:
    bot = load("expert")
    start = Position.initial()
    for sit in cube.SITUATIONS[:5]:  # even scores and leader / trailer, cube centred
        ours, take = cube.our_cube(bot, start, sit)
        for ply in (0, 2):
            g = cube.gnubg_cube(start, sit, ply)
            assert (g.action, g.take) == ("no double", True), (sit, ply)
        assert (ours, take) == ("no double", True), sit
        assert bot.should_double(start, sit.state()) is False
        assert bot.respond_to_double(start.swap(), sit.answer_state()) is not CubeResponse.PASS


def test_gnubg_side_and_score_orientation(cube: ModuleType) -> None:
    """The side ``O`` of gnubg-nn is our player on roll, and ``set.score``'s first number
    its away score: the leader's no-double MWC is the higher one."""
    start = Position.initial()
    lead = cube.gnubg_cube(start, cube.Situation(5, 3, 5), 0)
    trail = cube.gnubg_cube(start, cube.Situation(5, 5, 3), 0)
    assert lead.nd > 0.55 > 0.45 > trail.nd
    assert lead.nd + trail.nd == pytest.approx(1.0, abs=0.03)
    with pytest.raises(ValueError, match="dead"):
        cube.gnubg_cube(start, cube.Situation(5, 1, 3, post=True), 0)


def test_costs_follow_the_reference(cube: ModuleType) -> None:
    ref = cube.GnubgCube("double, take", nd=0.50, dt=0.55, dp=0.60)
    assert cube.doubler_cost("double, take", ref) == 0.0
    assert cube.doubler_cost("no double", ref) == pytest.approx(0.05)
    assert cube.doubler_cost("too good", ref) == pytest.approx(0.05)
    assert cube.taker_cost(True, ref) == 0.0
    assert cube.taker_cost(False, ref) == pytest.approx(0.05)


def test_small_run_counts_add_up(cube: ModuleType) -> None:
    positions = cube.sample_positions(8, seed=3)
    assert len(positions) == 8 and len(set(positions)) == 8
    bot = load("worldclass")
    expert = load("expert")
    wins = [expert.evaluator.evaluate(p).win for p in positions]
    assert all(cube.WIN_BINS[0][0] <= w < cube.WIN_BINS[-1][1] for w in wins)
    records = cube.evaluate(positions, cube.SITUATIONS, bot, 0)
    assert len(records) == 8 * len(cube.SITUATIONS)
    table = cube.confusion(records)
    assert sum(table.values()) == len(records)
    assert set(table) <= {(a, b) for a in cube.CLASSES for b in cube.CLASSES}
    # at ply 0 the reference is gnubg's 0 ply itself: it agrees with itself
    assert all(r.ref == r.gnubg0 for r in records)
    assert sum(cube.confusion(records, "gnubg0")[(c, c)] for c in cube.CLASSES) == len(records)
    for r in records:
        # the worldclass bot's cube is the expert's
        assert cube.our_cube(expert, positions[records.index(r) // len(cube.SITUATIONS)],
                             r.situation) == (r.ours, r.our_take)
        assert cube.doubler_cost(r.ours, r.ref) >= 0.0 and cube.taker_cost(r.our_take, r.ref) >= 0.0
        assert (r.ours == "double, pass") == (r.ours.startswith("double") and not r.our_take)
    lines = list(cube._iter_lines(records, "worldclass", 0, 8))
    assert any("agreement" in line for line in lines)


def test_gnubg_is_left_at_money_play(cube: ModuleType) -> None:
    """gnubg-nn keeps the score and cube as global state and its ``best_move`` plays for the
    score it holds (at 2-away v 4-away it plays the opening 62 24/18 18/16, at money 24/18
    13/11): every cube query puts money play back, so the benchmarks that ask gnubg-nn for
    checker plays afterwards (judge.py, strength.py) get money play, whatever ran before."""
    import gnubg_nn

    board = gnubg_nn.board_from_position_id(Position.initial().position_id())
    money = gnubg_nn.best_move(board, 6, 2)
    cube.gnubg_cube(Position.initial(), cube.Situation(7, 2, 4), 0)
    assert gnubg_nn.best_move(board, 6, 2) == money == ((24, 18), (13, 11))
    gnubg_nn.set.score(2, 4)
    try:
        assert gnubg_nn.best_move(board, 6, 2) != money  # the state the query must undo
    finally:
        gnubg_nn.set.score(0, 0)


def test_a_network_file_is_judged_on_the_shipped_positions(cube: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """``--bot NAME@FILE`` decides with the network of FILE (here the previous shipped net,
    ``sl31s``) on the positions of the shipped network's self-play, so that two networks
    are compared on the same decisions; an unknown name is refused."""
    spec = "worldclass@training/runs/sl31s/best.npz"
    other, shipped = cube.load_bot(spec), load("worldclass")
    opening = Position.initial()
    assert other.evaluator.evaluate(opening) != shipped.evaluator.evaluate(opening)
    assert cube.main(["--positions", "4", "--ply", "0", "--quiet", "--bot", spec]) == 0
    assert "agreement" in capsys.readouterr().out
    with pytest.raises(UnknownBotError):
        cube.main(["--positions", "4", "--ply", "0", "--quiet", "--bot", "nobody"])
