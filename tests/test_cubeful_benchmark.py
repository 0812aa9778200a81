"""The cubeful money-play benchmark (benchmarks/cubeful.py): a few games on a table (the
bots decide through backgammon.table.decide) with the cube, scored consistently,
reproducible, on duplicate dice."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType

import pytest

from backgammon.bots import load
from backgammon.dice import SeededDice
from backgammon.game import ResultKind
from backgammon.matchid import MatchState
from backgammon.position import Position
from tests.benchmark_modules import load_benchmark


@pytest.fixture(scope="module")
def cubeful() -> Iterator[ModuleType]:
    from backgammon.bots import available, unregister

    before = set(available())
    module = load_benchmark("cubeful")
    module.register_benchmark_bots()
    yield module
    # leave the registry as it was: other tests (and doctests) list the bots
    for name in set(available()) - before:
        unregister(name)


def _check_record(record, cube_limit: int) -> None:  # type: ignore[no-untyped-def]
    assert not record.capped
    level = {ResultKind.SINGLE: 1, ResultKind.GAMMON: 2, ResultKind.BACKGAMMON: 3, ResultKind.PASSED: 1}
    # an accepted resignation: the level resigned
    assert record.level == level.get(record.kind, record.level) and record.level in (1, 2, 3)
    assert record.points == record.level * record.cube  # Jacoby off
    assert record.points_for(record.winner) == record.points == -record.points_for(1 - record.winner)
    for seat in (0, 1):  # every double is answered by the other seat
        other = 1 - seat
        assert record.doubles[seat] == record.takes[other] + record.passes[other] + record.beavers[other]
    assert sum(record.passes) == (record.kind is ResultKind.PASSED)
    assert record.cube == 2 ** sum(record.takes) * 4 ** sum(record.beavers) <= cube_limit


def test_points_match_the_outcomes(cubeful: ModuleType) -> None:
    tally = cubeful.run("expert", "random", games=4, seed=1, workers=1)
    assert tally.games == 4
    games = list(cubeful.seat_records(tally))
    for record, seat_of_a in games:
        _check_record(record, cubeful.MAX_CUBE)
    points = [record.points_for(seat) for record, seat in games]
    assert tally.points() == points
    assert tally.mean() == pytest.approx(sum(points) / 4)
    assert tally.mean() > 0
    # the expert doubles random (which always takes)
    assert sum(r.doubles[s] for r, s in games) > 0


def test_expert_nocube_never_doubles_and_always_takes(cubeful: ModuleType) -> None:
    bot = load("expert-nocube")
    assert isinstance(bot, cubeful.ExpertNoCube)
    assert not bot.should_double(Position.initial(), MatchState())
    tally = cubeful.run("expert", "expert-nocube", games=2, seed=2, workers=1)
    for record, seat_of_a in cubeful.seat_records(tally):
        _check_record(record, cubeful.MAX_CUBE)
        assert record.doubles[1 - seat_of_a] == 0
        assert record.passes[1 - seat_of_a] == 0


def test_duplicate_pairs_get_the_same_dice(cubeful: ModuleType) -> None:
    for index in range(2):
        pair = cubeful.play_pair(("random", "expert-nocube", 5, index, False, False))
        first, second = (g.rolls for g in pair.games)
        n = min(len(first), len(second))
        assert n > 10 and first[:n] == second[:n]
        # and those are the stream's rolls from its start
        stream = SeededDice(f"5:{index}:dice")
        assert list(first[:n]) == [stream.roll() for _ in range(n)]
        assert pair.first == pair.games[0].points_for(0) and pair.second == pair.games[1].points_for(1)


def test_same_seed_same_result_with_one_and_two_workers(cubeful: ModuleType) -> None:
    one = cubeful.run("random", "expert-nocube", games=4, seed=9, workers=1)
    again = cubeful.run("random", "expert-nocube", games=4, seed=9, workers=1)
    two = cubeful.run("random", "expert-nocube", games=4, seed=9, workers=2)
    assert one.points() == again.points() == two.points()
    assert list(cubeful.seat_records(one)) == list(cubeful.seat_records(two))


def test_endless_games_are_stopped(cubeful: ModuleType) -> None:
    bots = (load("random", seed=random.Random(1)), load("random", seed=random.Random(2)))
    record = cubeful.play_game(bots, SeededDice(1), cubeful.benchmark_rules(), max_plies=5)
    assert record.capped and record.plies == 5 and record.points_for(0) == record.points_for(1) == 0


def test_main_prints_the_report(cubeful: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert cubeful.main(["expert", "random", "--games", "2", "--workers", "1", "--quiet", "--beavers"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "2 cubeful money games (1 duplicate pairs; Jacoby off, beavers on" in out[0]
    assert out[1].startswith("expert: +") and "points per game ±" in out[1]
    assert any("ended by a pass; final cube:" in line for line in out)
    assert any(line.startswith("  random: offered") for line in out)
    assert "of them resigned;" in out[2] and "of them resigned;" in out[3]
    assert any("stopped at the cap" in line for line in out)


def test_the_expert_resigns_lost_races_and_the_score_is_kept(cubeful: ModuleType) -> None:
    # decide() lets a bot resign (R31): the expert does in races with one result left,
    # and the game's points are the resigned level times the cube
    tally = cubeful.run("expert", "expert-nocube", games=40, seed=1, workers=1)
    games = list(cubeful.seat_records(tally))
    resigned = [r for r, _ in games if r.kind is ResultKind.RESIGNED]
    assert resigned
    for record, _ in games:
        _check_record(record, cubeful.MAX_CUBE)
