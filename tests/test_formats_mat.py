"""The .mat match format (backgammon.formats.mat), the .json match file and ``backgammon convert``.

Rules cited from RULES.md: R4 (opening roll), R11 (no legal play), R12 (same play), R13 (bar),
R25 (Jacoby), R29 (pass), R30 (beaver), R31 (resignation), R32 (match end), R33 (Crawford).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon.commands.convert import main as convert
from backgammon.events import Accept, Beaver, Double, OpeningRoll, Pass, Play, Resign, Roll, Take
from backgammon.formats import MatchFileError, MatchRecord, dumps, jsonlog, loads, mat, read, write
from backgammon.match import Match
from backgammon.move import Move
from backgammon.rules import Rules

from .match_bots import random_match

DATA = Path(__file__).parent / "data" / "gnubg"

#: final scores of the fixtures as gnubg's own ``show score`` gives them after ``import mat``
FIXTURE_SCORES = {1: (0, 2), 3: (5, 0), 5: (2, 8), 7: (2, 7), 9: (10, 6), 11: (7, 15)}


def _mat(body: str, header: str = " 5 point match\n\n") -> str:
    return header + body


# -- gnubg's own files --------------------------------------------------------------------------


@pytest.mark.parametrize("length", sorted(FIXTURE_SCORES))
def test_gnubg_fixtures_read_with_their_final_score(length: int) -> None:
    record = read(DATA / f"match{length}.mat")
    match = record.match
    assert record.names == ("gnubg", "root")
    assert record.info == {"date": "2026-12-03"}  # gnubg writes 2026.12.03; info dates are ISO
    assert match.length == length and match.is_over()  # R32
    assert match.score == FIXTURE_SCORES[length]
    assert record.problems == ()


def test_fixture_moves_are_read_as_written() -> None:
    match = read(DATA / "match3.mat").match
    events = match.events
    # "  1)    21: 13/11 24/23": player 1 opens with 2-1 (R4): player 1's die is the 2
    assert events[1] == OpeningRoll((1, 2))
    assert events[2] == Play(1, Move.parse("13/11 24/23"))
    assert events[3] == Roll(0, (5, 2)) and events[4] == Play(0, Move.parse("13/8 24/22"))
    # game 1 ends "Doubles => 2 / Drops / Wins 1 point" (R29)
    first = match.games[0]
    assert [type(e) for e in first.events[-3:-1]] == [Double, Pass]
    assert first.result is not None and first.result.points == 1 and first.result.winner == 0
    # game 2: a take then a redouble to 4, taken (R27, R29)
    cube = [e for e in match.games[1].events if isinstance(e, (Double, Take))]
    assert cube == [Double(0, 2), Take(1, 2), Double(1, 4), Take(0, 4)]


@pytest.mark.parametrize("length", sorted(FIXTURE_SCORES))
def test_gnubg_fixtures_read_the_same_as_their_sgf(length: int) -> None:
    pytest.importorskip("backgammon.formats.sgf")
    from_mat = read(DATA / f"match{length}.mat")
    from_sgf = read(DATA / f"match{length}.sgf")
    assert from_mat.match == from_sgf.match
    assert from_mat.names == from_sgf.names


def test_gnubg_resignation_after_a_roll_and_beaver_session() -> None:
    # gnubg writes "  1) 65:       Wins 1 point": the roller resigned before playing (R31)
    text = _mat(
        " Game 1\n alpha : 0                      beta : 0\n  1) 65:       Wins 1 point\n\n"
        " Game 2\n alpha : 1                      beta : 0\n"
        "  1)                             31: 8/5 6/5 \n"
        "  2)  Doubles => 2                Beavers => 4\n"
        "  3) 65: 24/18 18/13             42: 8/4 6/4 \n"
        "                                  Wins 12 points\n",
        header=' 0 point match\n\n',
    )
    record = mat.loads(text)
    m = record.match
    assert m.is_money and m.rules.beavers  # a file with a beaver allows them (R30)
    assert m.games[0].events[0:3] == (OpeningRoll((5, 6)), Resign(1, 1), Accept(0))
    second = m.games[1]
    assert Double(0, 2) in second.events and Beaver(1, 4) in second.events
    assert second.result is not None and second.result.level == 3 and second.result.points == 12
    assert m.score == (1, 12)


# -- hand-written files, feature by feature ------------------------------------------------------


def test_pass_reads_drops_or_passes_and_checks_the_points() -> None:  # R29
    for word in ("Drops", "Passes"):
        text = _mat(
            " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 Doubles => 2\n"
            f"  2)  {word}\n                                  Wins 1 point and the match\n",
            header=" 1 point match\n\n",
        )
        match = mat.loads(text).match
        assert match.is_over() and match.winner == 1 and match.score == (0, 1)  # R32
    wrong = _mat(
        " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 Doubles => 2\n"
        "  2)  Drops                       Wins 2 points\n"
    )
    with pytest.raises(MatchFileError, match=r"<text>:6: expected 'Wins 1 point' for B \(player 1\), found 'Wins 2 points'"):
        mat.loads(wrong)


def test_resignation_level_is_points_over_cube() -> None:  # R31
    text = _mat(
        " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 Doubles => 2\n"
        "  2)  Takes                      64: 24/18 13/9\n"
        "                                  Wins 4 points\n"
        " Game 2\n A : 0    B : 4\n  1) 52: 13/8 13/11\n      Wins 6 points\n"
    )
    match = mat.loads(text).match
    first, second = match.games[:2]
    assert first.events[-3:-1] == (Resign(0, 2), Accept(1))  # 4 points / cube 2 = a gammon
    assert second.events[-3:-1] == (Resign(1, 3), Accept(0))  # 6 at cube 1: capped at 3
    assert match.score == (3, 4)


def test_crawford_game_refuses_a_double_with_the_line() -> None:  # R33
    text = _mat(
        " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 Doubles => 2\n"
        "  2)  Drops                       Wins 1 point\n"
        " Game 2\n A : 0    B : 1\n  1) 31: 8/5 6/5                 Doubles => 2\n",
        header=" 2 point match\n\n",
    )
    with pytest.raises(MatchFileError) as caught:
        mat.loads(text, path="m.mat")
    assert str(caught.value).startswith("m.mat:9: expected a double by B (player 1) (nobody may double in the Crawford game")
    partial = caught.value.partial
    assert partial is not None and partial.match.crawford and partial.match.score == (0, 1)


def test_games_after_the_end_of_the_match_are_refused() -> None:  # R32
    text = _mat(
        " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 Doubles => 2\n"
        "  2)  Drops                       Wins 1 point\n"
        " Game 2\n A : 0    B : 1\n  1) 31: 8/5 6/5\n",
        header=" 1 point match\n\n",
    )
    with pytest.raises(MatchFileError, match=r"<text>:7: expected no more games: the match is over \(R32\)"):
        mat.loads(text)


def test_other_programs_variants() -> None:  # R12, R13: any text reaching the position
    text = (
        "; [Site \"Club\"]\r\n; [Player 1 \"unused\"]\r\n; a free comment\r\n"
        "Game 1\r\n"
        " Ann Lee : 0                      Bob van Dam : 0\r\n"
        "  1)                             64: 24/18/14\r\n"
        "  2) 55: 13/8(2) 6/1*(2)         43: bar/22 14/10\r"
        "  3) 22: 13/11 13/11 11/9 11/9   65: 13/7 7/2\r\n"
    )
    record = mat.loads(text)
    assert record.names == ("Ann Lee", "Bob van Dam")
    assert record.info == {"place": "Club"}
    m = record.match
    assert m.is_money  # no "N point match" line
    plays = [e for e in m.events if isinstance(e, Play)]
    assert [str(p.move) for p in plays] == ["24/14", "13/8(2) 6/1*(2)", "bar/22 14/10", "13/9(2)", "13/2"]
    assert m.game.phase.value == "roll" and not m.game.is_over()  # stops mid-game


def test_empty_play_only_without_a_legal_play_and_bar_written_as_25() -> None:  # R11, R13
    dance = _mat(
        " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
        "  2) 61: 13/7* 8/7               66:\n"
    )
    assert mat.loads(dance).match.events[-1] == Play(1, Move())  # on the bar against the 6-point
    text = _mat(" Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 66:\n  2) 11: 6/5(2)\n")
    with pytest.raises(MatchFileError, match=r":5: expected a legal play of 6-6 by B \(player 1\) \(with 6-6 a play is required"):
        mat.loads(text)
    ok = _mat(
        " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
        "  2) 61: 13/7* 8/7               44: 25/21 13/9 9/5 6/2\n"
    )
    last = mat.loads(ok).match.events[-1]
    assert isinstance(last, Play) and "bar/21" in str(last.move)


def test_header_rules_and_jacoby_inferred_from_scores() -> None:  # R25, R30, R26
    rules = mat.loads('; [Jacoby "On"]\n; [Beaver "On"]\n; [CubeLimit "64"]\n 0 point match\n').match.rules
    assert (rules.jacoby, rules.beavers, rules.cube_limit) == (True, True, 64)
    # gnubg writes no rules: a gammon with the cube in the middle counted 1 point -> Jacoby
    gammon = random_gammon_text()
    record = mat.loads(gammon)
    assert record.match.rules.jacoby and record.problems == ()


def random_gammon_text() -> str:
    """A money session whose first game is a gammon won with the cube centred, the next
    game's score counting it 1 point (as with the Jacoby rule, R25)."""
    for seed in range(200):
        m = random_match(seed, 0, Rules(jacoby=True), games=2, double=0.0, resign=0.0)
        first = m.results[0]
        if first.level >= 2 and first.points == 1:
            text = mat.dumps(MatchRecord(m)).replace('; [Jacoby "On"]\n\n', "")
            assert "Jacoby" not in text
            return text
    raise AssertionError("no gammon found")  # pragma: no cover


def test_bad_line_and_illegal_play_name_the_line_and_keep_what_was_read() -> None:
    text = _mat(
        " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
        "  2) 52: 13/8 24/20\n                                  Wins 1 point\n"
        " Game 2\n A : 0    B : 1\n  1) 31: 8/5 6/5\n  2) this is not a move\n"
    )
    with pytest.raises(MatchFileError) as caught:
        mat.loads(text, path="f.mat")
    problem = caught.value.problem
    assert (problem.line, problem.found, problem.path) == (6, "52: 13/8 24/20", "f.mat")
    assert "expected a legal play of 5-2 by A (player 0)" in str(caught.value)
    partial = caught.value.partial
    assert partial is not None and len([e for e in partial.match.events if isinstance(e, Play)]) == 2
    lenient = mat.loads(text, path="f.mat", strict=False)
    assert [p.line for p in lenient.problems] == [6, 11]
    assert "a move line such as" in lenient.problems[1].expected
    # game 1 ended as the file says (B wins 1: A, to act, resigned); game 2 read up to line 11
    assert lenient.match.score == (0, 1) and lenient.match.game_number == 2
    assert len(lenient.match.game.events) == 2


def test_score_lines_are_checked() -> None:
    text = _mat(
        " Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5                 Doubles => 2\n"
        "  2)  Drops                       Wins 1 point\n Game 2\n A : 1    B : 0\n"
    )
    with pytest.raises(MatchFileError, match=r":8: expected the score 0-1 that the games before give \(game 2\), found '1-0'"):
        mat.loads(text)


def test_out_of_turn_resignation_is_refused() -> None:  # R31
    text = _mat(" Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/5\n                                  Wins 1 point\n")
    with pytest.raises(MatchFileError, match=r"only the player to act may resign \(R31\)"):
        mat.loads(text)


# -- writing and round trips --------------------------------------------------------------------


def test_dumps_lays_out_columns_as_gnubg() -> None:
    record = read(DATA / "match1.mat")
    written = mat.dumps(record).splitlines()
    original = (DATA / "match1.mat").read_text().splitlines()
    assert len(written) == len(original)
    for ours, theirs in zip(written, original):
        # the same lines, columns and entries; gnubg orders a play's hops its own way
        assert ours[:5] == theirs[:5]
        assert sorted(ours[5:].split()) == sorted(theirs[5:].split()) or "/" in theirs


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), length=st.sampled_from([1, 3, 5, 7]))
def test_round_trip_of_bot_matches(seed: int, length: int) -> None:
    match = random_match(seed, length)
    record = MatchRecord(match, ("Ann Lee", "b"), {"event": "club night", "Unrated": "On"})
    back = mat.loads(mat.dumps(record))
    assert back.match == match and back.names == record.names and back.info == record.info


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), jacoby=st.booleans(), limit=st.sampled_from([None, 8, 64]))
def test_round_trip_of_money_sessions_with_beavers(seed: int, jacoby: bool, limit: int | None) -> None:  # R30
    match = random_match(seed, 0, Rules(beavers=True, jacoby=jacoby, cube_limit=limit), games=4, double=0.15)
    assert mat.loads(mat.dumps(MatchRecord(match))).match == match


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), actions=st.integers(1, 120))
def test_round_trip_of_unfinished_matches(seed: int, actions: int) -> None:
    match = random_match(seed, 5, actions=actions, resign=0.03)
    assert jsonlog.loads(jsonlog.dumps(MatchRecord(match))).match == match
    game = match.game
    if game.resignation is not None:  # a .mat file holds only answered resignations (R31)
        game.accept()
    elif game.phase.value == "play" and not len(game.legal_moves()):
        game.play("")  # "66:" ending a file is read as the turn lost (R11), not as a roll to play
    assert mat.loads(mat.dumps(MatchRecord(match))).match == match


def test_what_mat_cannot_hold_is_left_out() -> None:
    from backgammon.dice import ScriptedDice

    m = Match(3, dice=ScriptedDice([(4, 4), (3, 1), (6, 5)]))
    m.game.roll()  # a tie, thrown again (R4): not in the file
    m.game.play("8/5 6/5")
    m.game.resign()
    m.game.decline()  # a declined resignation: not in the file (R31)
    back = mat.loads(mat.dumps(MatchRecord(m))).match
    assert [e for e in back.events if not isinstance(e, (Resign, OpeningRoll))] == [
        e for e in m.events if not isinstance(e, (Resign, OpeningRoll)) and e.type != "decline"
    ]
    assert back.game.events[0] == OpeningRoll((3, 1))
    # the JSON file keeps everything
    assert jsonlog.loads(jsonlog.dumps(MatchRecord(m))).match == m


def test_json_files_and_bare_logs() -> None:
    m = random_match(3, 3)
    text = dumps(MatchRecord(m, ("a", "b"), {"place": "Oslo"}), "json")
    assert loads(text, "json").match == m
    assert loads(m.to_json(), "json").names == ("Player 0", "Player 1")
    broken = text.replace('"type": "roll"', '"type": "take"', 1)
    with pytest.raises(MatchFileError, match="x.json: expected a match log that replays"):
        loads(broken, "json", path="x.json")
    lenient = loads(broken, "json", path="x.json", strict=False)
    assert lenient.problems and len(lenient.match.events) < len(m.events)
    with pytest.raises(MatchFileError, match=r"x.json:2: expected JSON"):
        loads('{"format":\n x}', "json", path="x.json")


# -- backgammon convert -------------------------------------------------------------------------


def test_convert_between_formats(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    assert convert([str(DATA / "match5.mat"), str(out)]) == 0
    back = tmp_path / "back.txt"
    assert convert([str(out), str(back), "--to", "mat"]) == 0
    assert read(back, fmt="mat").match == read(DATA / "match5.mat").match


def test_convert_reports_a_wrong_file_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.mat"
    bad.write_text(_mat(" Game 1\n A : 0    B : 0\n  1) 31: 8/5 6/4\n"))
    out = tmp_path / "out.json"
    assert convert([str(bad), str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:5: expected a legal play of 3-1 by A (player 0)")
    assert "nothing written" in err and not out.exists()
    assert convert([str(bad), str(out), "--lenient"]) == 0
    assert capsys.readouterr().err.startswith(f"warning: {bad}:5: expected")
    assert read(out).match.game.dice == (3, 1)


def test_convert_names_unknown_formats_and_missing_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert convert([str(DATA / "match1.mat"), str(tmp_path / "x.doc")]) == 1
    assert "expected a file name ending in .mat, .txt, .sgf or .json, found '.doc'" in capsys.readouterr().err
    assert convert([str(tmp_path / "none.mat"), str(tmp_path / "x.json")]) == 1
    assert "cannot read" in capsys.readouterr().err
    write(random_match(1, 1), tmp_path / "w.mat")
    assert read(tmp_path / "w.mat").match.is_over()
