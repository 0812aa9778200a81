"""backgammon.analysis.match (analyse_match) and ``backgammon analyse``: hand-built matches
whose answers are known (docs/ANALYSIS-DESIGN.md, part 2).

Positions are set up through XGIDs (each side in its own numbering) so that the decision
under test is clear-cut; most analyses run at 0 ply to stay fast (the point of each test
does not depend on the depth), one at 1 and one at 2 ply.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from backgammon.analysis.match import (
    AnalysisError,
    Decision,
    MatchAnalysis,
    analyse_match,
    label_of,
    rating_of,
)
from backgammon.dice import ScriptedDice
from backgammon.engine.met import mwc
from backgammon.events import Beaver, Double, Pass, Play, Roll, Take
from backgammon.match import Match
from backgammon.matchid import MatchState
from backgammon.rules import Rules
from backgammon.xgid import XGID

ROOT = Path(__file__).resolve().parent.parent


def side(points: dict[int, int]) -> list[int]:
    """25 checker counts from a side's own numbering (25 = the bar); the rest borne off."""
    counts = [0] * 25
    for point, n in points.items():
        counts[point - 1] = n
    return counts


def setup(player: dict[int, int], opponent: dict[int, int], *, rolls: list[tuple[int, int]] | None = None,
          dice: tuple[int, int] | None = None, length: int = 0, score: tuple[int, int] = (0, 0),
          cube: int = 1, owner: int | None = None, on_roll: int = 0, crawford: bool = False,
          rules: Rules | None = None) -> Match:
    """A match taken up at a position: ``player`` (on roll) and ``opponent`` each in their
    own numbering; later rolls from ``rolls``."""
    state = MatchState(cube_value=cube, cube_owner=owner, player_on_roll=on_roll, turn=on_roll,
                       dice=dice, match_length=length, score=score, crawford=crawford,
                       jacoby=bool(rules and rules.jacoby_applies))
    beaver = bool(rules and rules.beavers_apply)
    text = XGID.from_match_state(state, side(player), side(opponent), beaver=beaver).to_xgid()
    return Match.from_xgid(text, rules, dice=ScriptedDice(rolls or []))


#: A money race (69 v 75 pips, every checker home): a clear double and a clear take.
DOUBLE_TAKE = ({6: 4, 5: 4, 4: 4, 3: 3}, {6: 4, 5: 4, 4: 4, 3: 2, 9: 1})
#: ... 69 v 87: a clear double and a clear pass.
DOUBLE_PASS = ({6: 4, 5: 4, 4: 4, 3: 3}, {6: 4, 5: 4, 4: 4, 3: 1, 12: 2})
#: The last roll: the player on roll bears off both checkers with 6-1 (or leaves one with
#: 6/off); the opponent bears off its last checker next.
LAST_ROLL = ({6: 1, 1: 1}, {1: 1})


def decisions_of(a: MatchAnalysis, kind: str) -> list[Decision]:
    return [d for d in a.decisions if d.kind == kind]


# -- checker play --------------------------------------------------------------------------


def test_a_blunder_has_a_large_error_and_the_known_best_play() -> None:
    m = setup(*LAST_ROLL, dice=(6, 1), rolls=[(2, 1)])
    m.game.play("6/off")  # leaves a checker: the opponent wins
    m.game.roll(); m.game.play("1/off")
    a = analyse_match(m, plies=0)
    play = decisions_of(a, "play")[0]
    assert (play.player, play.action, play.best, play.forced) == (0, "6/off", "6/off 1/off", False)
    assert (play.game, play.turn, play.event) == (1, 1, 2)  # game_start, setup (with the dice), play
    assert play.error == pytest.approx(2.0, abs=1e-6)  # from a sure win to a sure loss
    assert play.label == "very bad" and play.error_mwc is None
    assert [c.move for c in play.candidates] == ["6/off 1/off", "6/off"]
    assert play.candidates[1].difference == pytest.approx(-2.0, abs=1e-6)
    assert a.players[0].checker.error == pytest.approx(2.0, abs=1e-6)
    assert a.worst(1) == [play]


def test_the_best_play_made_has_no_error() -> None:
    m = setup(*LAST_ROLL, dice=(6, 1))
    m.game.play("6/off 1/off")
    a = analyse_match(m, plies=0)
    (play,) = decisions_of(a, "play")
    assert play.error == 0.0 and play.label == "" and play.best == play.action
    assert a.worst() == [] and a.players[0].rate == 0.0 and a.players[0].rating == "Supernatural"


def test_match_errors_are_in_emg_and_in_mwc() -> None:
    # the same blunder in a 5-point match at 1-3: EMG 2 (a single win of the cube's value
    # against a single loss), MWC the difference between winning and losing the game
    m = setup(*LAST_ROLL, dice=(6, 1), rolls=[(2, 1)], length=5, score=(1, 3))
    m.game.play("6/off")
    m.game.roll(); m.game.play("1/off")
    a = analyse_match(m, plies=0)
    play = decisions_of(a, "play")[0]
    assert play.error == pytest.approx(2.0, abs=1e-6)
    assert play.error_mwc == pytest.approx(mwc(3, 2) - mwc(4, 1), abs=1e-6)
    assert play.chances == pytest.approx(mwc(4, 1), abs=1e-6)  # player 0 then loses the game
    assert not a.money and a.length == 5


def test_a_forced_play_is_not_counted() -> None:
    # one checker left on the 1-point: 1/off is the only play; then the opponent dances
    m = setup({1: 1}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 25: 1}, dice=(3, 2))
    m.game.play("1/off")
    a = analyse_match(m, plies=0)
    (play,) = decisions_of(a, "play")
    assert play.forced and play.error == 0.0
    p = a.players[0]
    assert (p.checker.decisions, p.checker.unforced, p.unforced, p.decisions) == (1, 0, 0, 1)


def test_a_dance_is_a_forced_empty_play() -> None:
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}  # the opponent's home board, closed
    m = setup({25: 1, 6: 5, 8: 3, 13: 6}, closed, dice=(6, 5), rolls=[(3, 1)])
    m.game.play("")
    a = analyse_match(m, plies=0)
    (play,) = decisions_of(a, "play")
    assert play.forced and play.action == "" and play.error == 0.0 and play.candidates[0].move == ""


# -- luck ------------------------------------------------------------------------------------


def test_a_joker_is_lucky_and_a_sure_thing_is_not() -> None:
    # four checkers on the 6-point, the opponent off next roll: only 6-6 wins
    m = setup({6: 4}, {1: 1}, rolls=[(6, 6)])
    m.game.roll(); m.game.play("6/off(4)")
    a = analyse_match(m, plies=0)
    (play,) = decisions_of(a, "play")
    assert play.luck == pytest.approx(2.0 - 2.0 / 36.0, abs=1e-6)  # +1 against 1/36 - 35/36
    assert a.players[0].luck == pytest.approx(play.luck) and a.players[0].rolls == 1
    assert a.players[0].luck_rate == pytest.approx(play.luck)
    # every roll bears off the last two checkers: nothing to be lucky about
    m = setup({2: 1, 1: 1}, {1: 1}, rolls=[(2, 1)])
    m.game.roll(); m.game.play("2/off 1/off")
    assert decisions_of(analyse_match(m, plies=0), "play")[0].luck == pytest.approx(0.0, abs=1e-9)


def test_the_opening_roll_is_measured_against_its_30_outcomes() -> None:
    # money, from the start: the sum of the luck of 6-5 and of 2-1 (both players' views are
    # the same position) is positive for 6-5 and negative for 2-1
    lucks = {}
    for dice in ((6, 5), (2, 1)):
        m = Match(0, dice=ScriptedDice([dice]))
        m.game.roll(); m.game.play(m.game.legal_moves()[0])
        lucks[dice] = analyse_match(m, plies=0).decisions[0].luck
    assert lucks[(6, 5)] > 0.0 > lucks[(2, 1)]


# -- the cube --------------------------------------------------------------------------------


def test_a_missed_double_in_a_clear_double() -> None:
    m = setup(*DOUBLE_TAKE, rolls=[(2, 1)])
    m.game.roll()
    a = analyse_match(m, plies=0)
    (cube,) = decisions_of(a, "cube")
    assert (cube.action, cube.best, cube.player, cube.dice) == ("no double", "double", 0, None)
    assert (cube.turn, cube.event) == (1, 2)  # the roll after the set-up
    assert cube.cube is not None and cube.cube.proper == "double, take"
    assert cube.error == pytest.approx(cube.cube.double_take - cube.cube.no_double)
    assert cube.error > 0.08
    p = a.players[0]
    assert (p.cube.missed_doubles, p.cube.wrong_doubles, p.cube.decisions) == (1, 0, 1)
    assert p.unforced == p.checker.unforced + 1


def test_a_pass_of_a_clear_take_is_a_wrong_pass() -> None:
    m = setup(*DOUBLE_TAKE)
    m.game.double(); m.game.pass_double()
    a = analyse_match(m, plies=0)
    (cube,) = decisions_of(a, "cube")
    (take,) = decisions_of(a, "take")
    assert (cube.action, cube.error) == ("double", 0.0)
    assert (take.player, take.action, take.best) == (1, "pass", "take")
    assert take.cube is not None
    # the taker gives up double/pass minus double/take (the doubler's side)
    assert take.error == pytest.approx(take.cube.double_pass - take.cube.double_take)
    assert take.error > 0.08
    assert a.players[1].cube.wrong_passes == 1 and a.players[1].cube.wrong_takes == 0
    assert take.chances == pytest.approx(1.0)  # player 0 wins a point


def test_a_take_of_a_clear_pass_is_a_wrong_take() -> None:
    m = setup(*DOUBLE_PASS)
    m.game.double(); m.game.take()
    a = analyse_match(m, plies=0)
    (take,) = decisions_of(a, "take")
    assert (take.action, take.best, take.label) == ("take", "pass", "very bad")
    assert a.players[1].cube.wrong_takes == 1


def test_a_double_that_is_not_close_is_not_counted() -> None:
    # the opening position: not doubling is right by far, so the decision is not listed
    m = Match(0, dice=ScriptedDice([(3, 1), (4, 2), (6, 5)]))
    m.game.roll(); m.game.play("8/5 6/5"); m.game.roll(); m.game.play("8/4 6/4")
    a = analyse_match(m, plies=0)
    assert decisions_of(a, "cube") == []
    assert a.players[0].cube.decisions == 0


def test_a_wrong_double() -> None:
    m = Match(0, dice=ScriptedDice([(3, 1)]))
    m.game.roll(); m.game.play("8/5 6/5")
    m.game.double(); m.game.take()
    a = analyse_match(m, plies=0)
    (cube,) = decisions_of(a, "cube")
    assert (cube.player, cube.action, cube.best) == (1, "double", "no double")
    assert cube.error > 0.16 and a.players[1].cube.wrong_doubles == 1


def test_beavers_in_money() -> None:
    # the doubler is the underdog: the taker should beaver (R30), and does
    rules = Rules(beavers=True)
    m = setup(DOUBLE_TAKE[1], DOUBLE_TAKE[0], rules=rules)
    m.game.double(); m.game.beaver()
    a = analyse_match(m, plies=0)
    cube, take = decisions_of(a, "cube")[0], decisions_of(a, "take")[0]
    assert cube.cube is not None and cube.cube.proper == "no double, beaver"
    assert (take.action, take.best, take.error) == ("beaver", "beaver", 0.0)
    # a plain take then gives something away, but it is not a wrong take
    m = setup(DOUBLE_TAKE[1], DOUBLE_TAKE[0], rules=rules)
    m.game.double(); m.game.take()
    take = decisions_of(analyse_match(m, plies=0), "take")[0]
    assert take.best == "beaver" and take.error > 0.0
    assert take.error == pytest.approx(-take.cube.double_take if take.cube else 0.0)


def test_the_jacoby_rule_reaches_the_cube_values() -> None:
    # a gammonish position with the cube centred: without doubling, gammons count only
    # without the Jacoby rule (R25)
    blitz = ({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 8: 2}, {25: 2, 24: 3, 13: 5, 8: 3, 6: 2})
    values = []
    for jacoby in (False, True):
        m = setup(*blitz, rules=Rules(jacoby=jacoby))
        m.game.double(); m.game.pass_double()  # a double is always listed
        cube = decisions_of(analyse_match(m, plies=0), "cube")[0]
        assert cube.cube is not None
        values.append(cube.cube)
    assert values[1].no_double < values[0].no_double
    assert values[1].double_take == pytest.approx(values[0].double_take)


def test_no_cube_decision_in_the_crawford_game() -> None:
    # R33: nobody doubles in the Crawford game; the same position in a post-Crawford game
    # has the trailer's cube decision, never the leader's (the cube is dead for it)
    def cubes(score: tuple[int, int], crawford: bool, on_roll: int) -> list[Decision]:
        m = setup(*DOUBLE_TAKE, rolls=[(2, 1)], length=5, score=score, crawford=crawford,
                  on_roll=on_roll)
        m.game.roll()
        return decisions_of(analyse_match(m, plies=0), "cube")

    assert cubes((3, 4), True, 0) == []
    assert cubes((4, 3), True, 1) == []
    # post-Crawford at 2-away v 1-away the trailer doubles at once
    assert [(d.player, d.best) for d in cubes((3, 4), False, 0)] == [(0, "double")]
    assert cubes((4, 3), False, 0) == []  # ... and the leader never does


# -- the record ------------------------------------------------------------------------------


def _played_match() -> Match:
    m = Match(3, dice=ScriptedDice([(3, 1), (5, 2), (6, 4), (4, 4)]))
    g = m.game
    g.roll(); g.play("8/5 6/5")
    g.roll(); g.play("13/11 13/8")
    g.double(); g.take()
    g.roll(); g.play(g.legal_moves()[0])
    g.roll(); g.play(g.legal_moves()[0])
    return m


def test_each_decision_points_at_its_event() -> None:
    m = _played_match()
    a = analyse_match(m, plies=0)
    events = m.events
    kinds = {"play": (Play,), "take": (Take, Pass, Beaver)}
    assert [d.index for d in a.decisions] == list(range(len(a.decisions)))
    for d in a.decisions:
        e = events[d.event]
        if d.kind == "cube":
            assert isinstance(e, Double if d.action == "double" else Roll)
        else:
            assert isinstance(e, kinds[d.kind])
        assert getattr(e, "player") == d.player
        if d.kind == "play":
            assert isinstance(e, Play) and str(e.move) == d.action
    assert [d.kind for d in a.decisions][:4] == ["play", "play", "cube", "take"]
    assert [(d.game, d.turn) for d in a.decisions][:4] == [(1, 1), (1, 2), (1, 3), (1, 3)]


def test_to_dict_has_the_contract_schema() -> None:
    a = analyse_match(_played_match(), plies=0, names=("alpha", "beta"))
    data = json.loads(json.dumps(a.to_dict()))
    assert {k: data[k] for k in ("format", "version", "plies", "money", "length", "names")} == {
        "format": "backgammon-analysis", "version": 1, "plies": 0, "money": False, "length": 3,
        "names": ["alpha", "beta"]}
    assert set(data) == {"format", "version", "plies", "money", "length", "names", "players",
                         "games", "decisions"}
    player = data["players"][0]
    assert set(player) == {"name", "decisions", "unforced", "checker", "cube", "error", "rate",
                           "pr", "luck", "luck_rate", "rating"}
    assert set(player["checker"]) == {"decisions", "unforced", "error", "rate"}
    assert set(player["cube"]) == {"decisions", "error", "missed_doubles", "wrong_doubles",
                                   "wrong_takes", "wrong_passes"}
    assert player["pr"] == pytest.approx(player["rate"] / 2, abs=0.01)
    assert data["games"] == [{"number": 1, "score": [0, 0], "winner": None, "points": 0}]
    keys = {"index", "event", "game", "turn", "player", "kind", "position_id", "match_id", "xgid",
            "dice", "action", "best", "error", "error_mwc", "forced", "luck", "chances", "label",
            "candidates", "cube"}
    for d in data["decisions"]:
        assert set(d) == keys
        assert d["xgid"].startswith("XGID=") and len(d["position_id"]) == 14 and len(d["match_id"]) == 12
        assert d["error"] >= 0.0 and d["error_mwc"] is not None
        if d["kind"] == "play":
            assert len(d["dice"]) == 2 and d["cube"] is None
            assert {"move", "value", "difference"} == set(d["candidates"][0])
            assert d["candidates"][0]["difference"] == 0.0
        else:
            assert d["dice"] is None and d["candidates"] == []
            assert set(d["cube"]) == {"no_double", "double_take", "double_pass", "proper"}
    assert [d["kind"] for d in data["decisions"]].count("take") == 1
    first = data["decisions"][0]
    assert (first["position_id"], first["dice"], first["action"]) == ("4HPwATDgc/ABMA", [3, 1], "8/5 6/5")


def test_games_and_money_sessions() -> None:
    m = Match(0, dice=ScriptedDice([(3, 1)]))
    m.game.roll(); m.game.play("8/5 6/5")
    m.game.double(); m.game.pass_double()
    a = analyse_match(m, plies=0)
    assert a.money and a.length == 0
    # player 1 doubled, player 0 passed
    assert [g.to_dict() for g in a.games][0] == {"number": 1, "score": [0, 0], "winner": 1, "points": 1}
    assert all(d.error_mwc is None for d in a.decisions)


def test_deeper_analysis_and_progress() -> None:
    m = setup(*LAST_ROLL, dice=(6, 1), rolls=[(2, 1)], length=3)
    m.game.play("6/off")
    m.game.roll(); m.game.play("1/off")
    seen: list[tuple[int, int]] = []
    a = analyse_match(m, plies=2, progress=lambda done, total: seen.append((done, total)))
    assert a.plies == 2 and decisions_of(a, "play")[0].error == pytest.approx(2.0, abs=1e-6)
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1] > 0
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    # a real position at 1 ply: the poor opening 3-1 is still poor
    m = Match(0, dice=ScriptedDice([(3, 1)]))
    m.game.roll(); m.game.play("24/20")
    d = analyse_match(m, plies=1).decisions[0]
    assert d.best == "8/5 6/5" and d.error > 0.04 and d.candidates[0].move == "8/5 6/5"
    assert d.candidates[-1].move == "24/20"
    # at 2 ply the 1-ply filter is reported first, then the total grows by the 2-ply work
    seen.clear()
    analyse_match(m, plies=2, progress=lambda done, total: seen.append((done, total)))
    totals = [t for _, t in seen]
    assert totals[0] < totals[-1] and totals == sorted(totals)
    assert seen[-1][0] == seen[-1][1] and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_refusals() -> None:
    with pytest.raises(AnalysisError, match="plies=3"):
        analyse_match(Match(1), plies=3)
    with pytest.raises(AnalysisError, match="two players"):
        analyse_match(Match(1), names=("a",))


def test_labels_and_ratings() -> None:
    assert [label_of(e) for e in (0.0, 0.039, 0.04, 0.08, 0.16)] == ["", "", "doubtful", "bad", "very bad"]
    assert [rating_of(e) for e in (0.001, 0.004, 0.007, 0.01, 0.015, 0.02, 0.03, 0.04)] == [
        "Supernatural", "World class", "Expert", "Advanced", "Intermediate", "Casual player",
        "Beginner", "Awful!"]


# -- backgammon analyse ----------------------------------------------------------------------


def test_the_command_prints_the_table_and_the_worst_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    from backgammon.commands.analyse import main

    path = ROOT / "tests" / "data" / "gnubg" / "match1.sgf"
    assert main([str(path), "--ply", "0", "--worst", "2"]) == 0
    out = capsys.readouterr().out
    assert "Analysis of a 1-point match at 0 ply" in out
    assert "gnubg" in out and "root" in out and "error rate" in out and "PR" in out
    assert "The 2 worst decisions:" in out
    assert out.count("XGID=") == 2 and "given away" in out
    assert "+13-14-15-16-17-18" in out or "13 14 15 16 17 18" in out.replace("-", " ")  # a board


def test_the_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    from backgammon.commands.analyse import main

    path = ROOT / "tests" / "data" / "gnubg" / "match1.sgf"
    assert main([str(path), "--ply", "0", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "backgammon-analysis" and data["names"] == ["gnubg", "root"]
    assert data["length"] == 1 and len(data["players"]) == 2
    assert sum(d["kind"] == "play" for d in data["decisions"]) == 50


def test_the_command_says_what_is_wrong_with_a_file(tmp_path: Path) -> None:
    # the real command, as a person runs it: a sentence on stderr, exit status 1
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        code = "import sys; from backgammon.cli import main; sys.exit(main(sys.argv[1:]))"
        return subprocess.run([sys.executable, "-c", code, "analyse", *args], capture_output=True,
                              text=True, timeout=120, cwd=ROOT)

    wrong = tmp_path / "wrong.doc"
    wrong.write_text("nothing", encoding="utf-8")
    done = run(str(wrong))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"backgammon analyse: {wrong}: expected a file name ending in .mat")
    done = run(str(tmp_path / "missing.sgf"))
    assert done.returncode == 1 and "cannot read" in done.stderr and "missing.sgf" in done.stderr
    broken = tmp_path / "broken.sgf"
    broken.write_text("(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]\n;B[53qvsv]\n;W[62zzzz])\n",
                      encoding="utf-8")
    done = run(str(broken))
    assert done.returncode == 1 and done.stdout == ""
    assert re.match(rf"backgammon analyse: {re.escape(str(broken))}:\d+: expected ", done.stderr), done.stderr
