"""gnubg's SGF match files (``backgammon.formats.sgf``): hand-made cases of the rules
(R29 pass, R30 beaver, R31 resignation, R32/R33 match and Crawford), gnubg's own files,
round trips of matches played with random dice and random decisions, errors with their
line numbers, and live interop with GNU Backgammon (marker ``gnubg``).

The fixtures ``tests/data/gnubg/session.{sgf,mat}`` (a money session with the Jacoby rule
and beavers: a resignation, a beaver and a declined then accepted resignation, a game
played out by gnubg, an unfinished game) and ``setup.sgf`` (a board, cube and dice set up)
were written by gnubg 1.07 (``HOME=/tmp/x gnubg -t -q -r < script``) from these scripts::

    set display off / set automatic game off / set automatic roll off
    set player 0 human / set player 1 human / set seed 1 / set jacoby on / set beavers 1
    new session / set player 0 name alpha / set player 1 name beta
    new game / resign normal / accept
    new game / set dice 3 1 / move 8/5 6/5 / double / beaver / take / set dice 6 5 / move 24/13
    set dice 4 2 / move 8/4 6/4 / resign gammon / decline / resign backgammon / accept
    set player 0 gnubg / set player 1 gnubg / new game / set player 0 human / set player 1 human
    new game / set dice 5 2 / save match session.sgf / export match mat session.mat

    (players human, automatic game and roll off) new session / set board 4HPhQSCwZ/ABMA
    set cube value 4 / set cube owner 1 / set turn 0 / set dice 5 2 / save match setup.sgf

(each player's chequer play and cube decisions at 0 plies).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon import formats
from backgammon.dice import ScriptedDice, SeededDice
from backgammon.events import (
    Accept,
    Beaver,
    Decline,
    Double,
    GameEnd,
    OpeningRoll,
    Pass,
    Play,
    Resign,
    ResultKind,
    Roll,
    SetUp,
    Take,
)
from backgammon.formats import FileProblem, MatchFileError, MatchRecord, mat
from backgammon.formats.sgf import dumps, loads
from backgammon.game import Action, Phase
from backgammon.match import Match
from backgammon.move import Move
from backgammon.position import Position
from backgammon.rules import Rules
from tests.conftest import require_gnubg
from tests.oracle.gnubg_driver import find_gnubg
from tests.oracle.gnubg_match import MatchSpec, play_matches

DATA = Path(__file__).parent / "data" / "gnubg"
FIXTURES = sorted(DATA.glob("match*.sgf"))


def game_events(match: Match, number: int) -> list[object]:
    """The events of game ``number`` (from 1) without the derived end."""
    return [e for e in match.games[number - 1].events if not isinstance(e, GameEnd)]


# -- hand-made files: moves, the cube, resignations, the match ------------------------------


CUBE_PASSED = """(;FF[4]GM[6]CA[UTF-8]MI[length:5][game:0][ws:0][bs:0]PW[ann]PB[bob]RU[Crawford]RE[W+1]
;W[31hefe]
;B[64aglp]
;W[double]
;B[drop])
(;FF[4]GM[6]MI[length:5][game:1][ws:1][bs:0]PW[ann]PB[bob]RU[Crawford]
;B[21lnab]
;W[54]
)
"""


def test_moves_a_double_and_a_pass_R29() -> None:
    record = loads(CUBE_PASSED)
    match = record.match
    assert record.names == ("ann", "bob") and record.problems == ()
    assert match.length == 5 and match.rules == Rules(match_length=5)
    # the first roll is the opening roll: White (player 0) throws the higher die
    assert game_events(match, 1) == [
        OpeningRoll((3, 1)),
        Play(0, Move.parse("8/5 6/5")),
        Roll(1, (6, 4)),
        Play(1, Move.parse("24/18 13/9")),
        Double(0, 2),
        Pass(1),
    ]
    first = match.games[0].result
    assert first is not None and first.kind is ResultKind.PASSED and first.points == 1  # R29
    # Black opens game 2 with 2-1; White's 5-4 is the roll of an unfinished game (a play is legal)
    assert game_events(match, 2) == [OpeningRoll((1, 2)), Play(1, Move.parse("13/11 24/23")), Roll(0, (5, 4))]
    assert match.score == (1, 0) and not match.is_over()
    assert match.game.phase is Phase.PLAY and match.game.on_roll == 0


def test_dice_only_is_a_turn_without_a_legal_play() -> None:
    # White dances: two on the bar facing a closed board... built through a set-up
    text = ("(;GM[6]MI[length:0]PW[a]PB[b]\n;PL[W]AE[a:y]AW[y][y][a][a][a][a][a][a][a][a][a][a][a][a][a]"
            "AB[s][s][t][t][u][u][v][v][w][w][x][x][b][b][b]\n;PL[W]DI[66]\n;W[66]\n;B[21])")
    match = loads(text).match
    events = game_events(match, 1)
    assert isinstance(events[0], SetUp) and events[0].dice == (6, 6)
    assert events[1:] == [Play(0, Move()), Roll(1, (2, 1))]
    assert match.game.phase is Phase.PLAY  # Black's 2-1 can be played: the file stops there


BEAVER = """(;FF[4]GM[6]MI[length:0][game:0][ws:0][bs:0]PW[ann]PB[bob]RE[W+4]
;W[31hefe]
;B[double]
;W[double]
;B[take]
;B[64aglp]
;W[double]
;B[drop])
"""


def test_a_double_answered_by_a_double_is_a_beaver_R30() -> None:
    match = loads(BEAVER).match
    # gnubg writes no beaver rule: a money session holding a beaver reads with beavers on
    assert match.rules == Rules(beavers=True)
    assert game_events(match, 1) == [
        OpeningRoll((3, 1)),
        Play(0, Move.parse("8/5 6/5")),
        Double(1, 2),
        Beaver(0, 4),  # White keeps the cube at 4; Black's take of it is gnubg's way of writing it
        Roll(1, (6, 4)),
        Play(1, Move.parse("24/18 13/9")),
        Double(0, 8),
        Pass(1),
    ]
    assert match.score == (4, 0)  # the cube before the refused double (R29)
    # a beaver written as such reads the same
    assert loads(BEAVER.replace(";W[double]\n;B[take]", ";W[beaver]\n;B[take]", 1)).match == match


def test_beavers_do_not_apply_in_a_match_R34() -> None:
    text = BEAVER.replace("MI[length:0]", "MI[length:5]")
    with pytest.raises(MatchFileError) as caught:
        loads(text, path="b.sgf")
    assert str(caught.value) == (
        "b.sgf:4: expected an action the rules allow here (beavers do not apply in a match (R34)), "
        "found 'W[double]'"
    )
    assert caught.value.problem == FileProblem(4, caught.value.problem.expected, "W[double]", "b.sgf")


def test_a_beaver_is_not_dropped_R30() -> None:
    text = BEAVER.replace(";B[take]\n;B[64aglp]", ";B[drop]\n;B[64aglp]")
    message = r"<text>:5: expected a take of the beaver \(R30: the doubler plays on\), found 'B\[drop\]'"
    with pytest.raises(MatchFileError, match=message):
        loads(text)


def resigned(re: str, moves: str = ";W[31hefe]\n;B[64aglp]", extra: str = "") -> str:
    return f"(;FF[4]GM[6]MI[length:0]PW[ann]PB[bob]{extra}RE[{re}]\n{moves})"


def test_a_resignation_is_the_result_marked_R_R31() -> None:
    # White, on roll, resigns a gammon; Black accepts: gnubg writes only the result
    match = loads(resigned("B+2R")).match
    assert game_events(match, 1)[-2:] == [Resign(0, 2), Accept(1)]
    result = match.games[0].result
    assert result is not None and result.kind is ResultKind.RESIGNED
    assert (result.level, result.points) == (2, 2)
    # with the cube at 2 the points are twice the level; White, on roll, resigns a backgammon
    doubled = loads(resigned("B+6R", ";W[31hefe]\n;B[double]\n;W[take]\n;B[64aglp]")).match
    assert doubled.score == (0, 6) and game_events(doubled, 1)[-2:] == [Resign(0, 3), Accept(1)]
    # only the player to act may resign: Black cannot while White is on roll
    with pytest.raises(MatchFileError, match=r"<text>:1: expected a resignation that the player to act can"):
        loads(resigned("W+1R"))
    # RE without R on a game that the moves leave open: unfinished (as gnubg reads it)
    assert loads(resigned("B+2")).match.game.phase is Phase.ROLL


def test_a_resignation_under_the_jacoby_rule_R25_R31() -> None:
    # gnubg counts a resigned gammon with the cube in the middle as 2 points even under the
    # Jacoby rule; this library counts it as a single game (R25): the level is kept
    match = loads(resigned("B+2R", extra="RU[Jacoby]")).match
    result = match.games[0].result
    assert result is not None and (result.level, result.multiplier, result.points) == (2, 1, 1)
    assert dumps(MatchRecord(match, ("ann", "bob"))).count("RE[B+2R]") == 1  # gnubg's points again


def test_declined_and_pending_resignations_R31() -> None:
    moves = ";W[31hefe]\n;XR[B:3]\n;XD[W]\n;B[64aglp]\n;XR[W:1]"
    match = loads(resigned("", moves)).match
    assert game_events(match, 1)[2:] == [Resign(1, 3), Decline(0), Roll(1, (6, 4)),
                                         Play(1, Move.parse("24/18 13/9")), Resign(0, 1)]
    assert match.game.phase is Phase.RESIGN
    # the pending offer accepted by the result
    done = loads(resigned("B+1R", moves)).match
    assert game_events(done, 1)[-1] == Accept(1) and done.score == (0, 1)


def test_a_resignation_that_is_not_a_whole_level_is_a_problem_R31() -> None:
    message = r"<text>:1: expected a resignation .* of 1, 2 or 3 times the cube \(1\), found 'RE\[B\+4R\]'"
    with pytest.raises(MatchFileError, match=message):
        loads(resigned("B+4R"))


CRAWFORD = """(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[bob]RU[Crawford]RE[W+2R]
;W[31hefe])
(;FF[4]GM[6]MI[length:3][game:1][ws:2][bs:0]PW[ann]PB[bob]RU[Crawford:CrawfordGame]RE[W+1R]
;B[21lnab]
;W[31hefe])
(;FF[4]GM[6]MI[length:3][game:2][ws:3][bs:0]PW[ann]PB[bob]RU[Crawford]
;B[21lnab])
"""


def test_the_crawford_game_and_the_end_of_the_match_R32_R33() -> None:
    two = CRAWFORD[: CRAWFORD.index("(;FF[4]GM[6]MI[length:3][game:2]")]
    match = loads(two).match
    assert match.games[1].crawford and match.is_over() and match.winner == 0 and match.score == (3, 0)
    # a double in the Crawford game (R33)
    doubled = two.replace(";B[21lnab]\n;W[31hefe])", ";B[21lnab]\n;W[double])")
    message = r"<text>:5: expected .*nobody may double in the Crawford game \(R33\).*found 'W\[double\]'"
    with pytest.raises(MatchFileError, match=message):
        loads(doubled)
    # no game after the match is won (R32)
    message = r"<text>:6: expected the end of the file: the match is over \(R32\), found 'game 3'"
    with pytest.raises(MatchFileError, match=message):
        loads(CRAWFORD)
    # the file's facts must agree with the games: the score, and which game is the Crawford game
    wrong_text = two.replace("[ws:2][bs:0]", "[ws:1][bs:0]").replace(":CrawfordGame", "")
    wrong = loads(wrong_text, strict=False)
    assert [p.expected for p in wrong.problems] == [
        "the score before game 2, [ws:2][bs:0]",
        "RU[...] saying that game 2 is the Crawford game (R33)",
    ]
    assert wrong.match == match  # the moves decide; the problems are listed


def test_a_match_taken_up_at_a_score_R33() -> None:
    text = "(;GM[6]MI[length:7][game:0][ws:6][bs:4]RU[Crawford]\n;W[31hefe]\n;B[double])"
    match = loads(text).match  # 6-4 outside the Crawford game: it has been played
    assert match.post_crawford and match.score == (6, 4) and match.game.phase is Phase.CUBE
    crawford = loads(text.replace("RU[Crawford]", "RU[Crawford:CrawfordGame]"), strict=False)
    assert crawford.match.crawford
    assert "nobody may double in the Crawford game (R33)" in crawford.problems[0].expected


# -- set-ups, syntax -----------------------------------------------------------------------


def test_gnubg_set_up_of_board_cube_and_dice() -> None:
    record = formats.read(DATA / "setup.sgf")
    events = game_events(record.match, 1)
    # gnubg's opening roll for Black is replaced by the board set afterwards
    board = Position.from_position_id("4HPhQSCwZ/ABMA").swap()  # set from Black's side, then White on roll
    assert events == [SetUp(board.position_id(), 0, cube=4, cube_owner=1, dice=(5, 2))]
    assert record.match.game.phase is Phase.PLAY and record.match.game.cube_owner == 1
    assert loads(dumps(record)) == record


def test_a_set_up_with_a_double_offered_round_trips() -> None:
    match = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:3:2:0:7:10")
    assert match.game.phase is Phase.CUBE
    text = dumps(MatchRecord(match))
    assert "XS[setup]" in text and "CV[2]" in text and "CP[w]" in text
    assert loads(text).match == match
    xgid = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:4:2:1:5:10")
    assert loads(dumps(MatchRecord(xgid))).match == xgid  # Crawford game at 4-2, dice rolled


def test_escapes_whitespace_and_line_ends_anywhere() -> None:
    text = ("  (\r\n ; FF [4] GM[6]\tCA[UTF-8] MI[length:0]PW[a\\]b\\\\c] PB [x\\\ny] "
            "EV[Big [Open\\] \\\\ Cup]"
            "\r\nGC[two\r\nlines] ; W [31hefe]\r\n;\r\nB\r\n[64aglp]\r\n)\r\n")
    record = loads(text)
    assert record.names == ("a]b\\c", "xy")  # an escaped line end is no line end
    assert record.info == {"event": "Big [Open] \\ Cup", "comment": "two\nlines"}
    assert len(game_events(record.match, 1)) == 4
    assert loads(dumps(record)) == record
    assert "PW[a\\]b\\\\c]" in dumps(record)


def test_old_style_names_variations_and_other_programs_properties() -> None:
    # FF[3] allowed lower-case letters in names; the first variation is the main line
    text = ("(;GaMe[6]MI[length:0]PlayerWhite[ann]C[a comment]\n;W[31hefe]C[good]N[x]\n"
            "(;B[64aglp];W[double])(;B[21lnab]))")
    record = loads(text)
    assert record.names == ("ann", "Player 1")
    assert game_events(record.match, 1)[2:] == [Roll(1, (6, 4)), Play(1, Move.parse("24/18 13/9")),
                                                Double(0, 2)]


def test_a_file_that_stops_mid_game() -> None:
    pending_double = "(;GM[6]MI[length:5]\n;W[31hefe]\n;B[double])"
    assert loads(pending_double).match.game.phase is Phase.CUBE
    # gnubg writes a roll not played yet as a DI node, then the roll again as a move node
    rolled = "(;GM[6]MI[length:5]\n;W[31hefe]\n;PL[B]DI[64]\n;B[64])"
    game = loads(rolled).match.game
    assert game.phase is Phase.PLAY and game.dice == (6, 4)
    # a roll without its moves in the middle of a game is wrong
    with pytest.raises(MatchFileError, match=r"<text>:3: expected the checker moves of the roll "
                       r"\(for example 24/14\), found 'B\[64\]'"):
        loads("(;GM[6]MI[length:5]\n;W[31hefe]\n;B[64]\n;W[double])")


def test_a_broken_file_keeps_what_came_before() -> None:
    cut = "(;GM[6]MI[length:5]PW[ann]\n;W[31hefe]\n;B[64aglp]\n;W[double\n"
    with pytest.raises(MatchFileError) as caught:
        loads(cut, path="cut.sgf")
    assert str(caught.value) == ("cut.sgf:4: expected ']' closing the value of W begun on line 4, "
                                 "found 'the end of the file'")
    partial = caught.value.partial
    assert partial is not None and partial.names == ("ann", "Player 1")
    assert game_events(partial.match, 1)[-1] == Play(1, Move.parse("24/18 13/9"))
    lenient = loads(cut, path="cut.sgf", strict=False)
    assert lenient.match == partial.match and lenient.problems == (caught.value.problem,)
    unclosed = loads("(;GM[6]MI[length:5]\n;W[31hefe]\n", strict=False)
    assert [str(p) for p in unclosed.problems] == [
        "<text>:3: expected ')' closing the game tree begun on line 1, found 'the end of the file'"]
    for text, message in [
        ("", "<text>:1: expected a game tree '(;FF[4]GM[6]...', found 'the end of the file'"),
        ("x(;GM[6])", "<text>:1: expected '(' starting a game tree, found 'x(;GM[6])'"),
        ("(;GM[6]\n;W 31])", "<text>:2: expected '[' starting a value of W, found '31])'"),
        ("(;GM[7])", "<text>:1: expected GM[6] (backgammon), found 'GM[7]'"),
        ("(;GM[6]RU[Nackgammon])",
         "<text>:1: expected standard backgammon (variants such as Nackgammon are not played here), "
         "found 'RU[Nackgammon]'"),
    ]:
        with pytest.raises(MatchFileError) as error:
            loads(text)
        assert str(error.value) == message


def test_errors_name_the_line_and_a_lenient_read_goes_on_with_the_next_game() -> None:
    text = CUBE_PASSED.replace(";B[64aglp]", ";B[64aglb]")
    with pytest.raises(MatchFileError) as caught:
        loads(text, path="m.sgf")
    assert str(caught.value) == ("m.sgf:3: expected a legal play of 6-4 such as 24/14, found "
                                 "'B[64aglb] (24/18 13/23)'")
    partial = caught.value.partial
    assert partial is not None and game_events(partial.match, 1) == [
        OpeningRoll((3, 1)), Play(0, Move.parse("8/5 6/5")), Roll(1, (6, 4))]
    # lenient: game 1 stops at the bad move, ends with its recorded result (Black resigns at
    # 1 point), and game 2 is read
    lenient = loads(text, path="m.sgf", strict=False)
    assert lenient.problems == (caught.value.problem,)
    assert lenient.match.score == (1, 0) and len(lenient.match.games) == 2
    assert game_events(lenient.match, 2)[:2] == [OpeningRoll((1, 2)), Play(1, Move.parse("13/11 24/23"))]
    # a game that cannot be ended stops the reading there
    open_ended = loads(text.replace("RE[W+1]", ""), strict=False)
    assert [p.line for p in open_ended.problems] == [3, 6]
    assert str(open_ended.problems[1]) == (
        "<text>:6: expected the end of game 1 (its moves, or RE[...R] for a resignation), "
        "found 'the start of game 2'")
    assert len(open_ended.match.games) == 1


def test_read_and_write_through_backgammon_formats(tmp_path: Path) -> None:
    record = loads(CUBE_PASSED)
    formats.write(record, tmp_path / "m.sgf")
    assert formats.read(tmp_path / "m.sgf") == record
    assert formats.loads(formats.dumps(record.match, "sgf"), "sgf").match == record.match
    (tmp_path / "crlf.sgf").write_bytes(CUBE_PASSED.replace("\n", "\r\n").encode())
    assert formats.read(tmp_path / "crlf.sgf") == record


# -- gnubg's files --------------------------------------------------------------------------

_MAT_ENTRY = re.compile(r"([1-6])([1-6]):((?:[ \t]+(?:\d+|bar|off)(?:/(?:\d+|bar|off)\*?)+(?:\(\d\))?)*)")
_MAT_SCORE = re.compile(r"^ (\S.*?) : (\d+) +(\S.*?) : (\d+)\s*$", re.M)


def mat_games(text: str) -> list[tuple[tuple[int, int], list[tuple[tuple[int, int], Move]], list[int]]]:
    """Each game of a gnubg ``.mat`` text: the score before it, its rolls with their plays
    (a roll not played has the empty play) and the points of its "Wins" line."""
    games = []
    for part in re.split(r"\n\s*Game \d+\n", text)[1:]:
        score = _MAT_SCORE.search(part)
        assert score is not None
        plays = [((max(int(a), int(b)), min(int(a), int(b))), Move.parse(m))
                 for a, b, m in _MAT_ENTRY.findall(part)]
        wins = [int(w) for w in re.findall(r"Wins (\d+) points?", part)]
        games.append(((int(score.group(2)), int(score.group(4))), plays, wins))
    return games


def our_games(match: Match) -> list[tuple[tuple[int, int], list[tuple[tuple[int, int], Move]], list[int]]]:
    """The same from a match: every roll with what was played with it."""
    out = []
    for game in match.games:
        plays: list[tuple[tuple[int, int], Move]] = []
        for e in game.events:
            if isinstance(e, OpeningRoll) and e.dice[0] != e.dice[1]:
                plays.append(((max(e.dice), min(e.dice)), Move()))
            elif isinstance(e, Roll):
                plays.append(((max(e.dice), min(e.dice)), Move()))
            elif isinstance(e, Play):
                plays[-1] = (plays[-1][0], e.move)
        result = game.result
        if game.events:
            out.append((game.score, plays, [] if result is None else [result.points]))
    return out


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_gnubg_matches_read_as_the_mat_file_says(path: Path) -> None:
    record = formats.read(path)
    assert record.problems == () and record.names == ("gnubg", "root")
    assert record.info == {"date": "2026-12-03"}
    match = record.match
    mat_text = path.with_suffix(".mat").read_text()
    expected = mat_games(mat_text)
    assert our_games(match) == expected
    # the .mat file of the same match reads into the same match
    from_mat = mat.loads(mat_text)
    assert from_mat.match == match and from_mat.names == record.names and from_mat.info == record.info
    last_score, _, last_win = expected[-1]
    winner = match.winner
    assert match.is_over() and winner is not None
    final = list(last_score)
    final[winner] += last_win[0]
    assert match.score == tuple(final) and match.score[winner] >= match.length  # R32
    # the Crawford game is the one gnubg marks (R33)
    roots = [tree.split("\n")[0] for tree in path.read_text().split("\n(;")]
    marked = [i for i, root in enumerate(roots) if "CrawfordGame" in root]
    assert [i for i, g in enumerate(match.games) if g.crawford] == marked
    assert loads(dumps(record)) == record


def test_gnubg_money_session_with_a_beaver_and_resignations() -> None:
    record = formats.read(DATA / "session.sgf")
    match = record.match
    assert record.names == ("alpha", "beta") and match.rules == Rules(jacoby=True, beavers=True)
    assert our_games(match) == mat_games((DATA / "session.mat").read_text())
    assert game_events(match, 1) == [OpeningRoll((5, 6)), Resign(1, 1), Accept(0)]
    two = game_events(match, 2)
    assert two[2:4] == [Double(0, 2), Beaver(1, 4)] and two[-2:] == [Resign(0, 3), Accept(1)]
    assert match.score == (1, 14) and match.game.phase is Phase.PLAY and match.game.dice == (5, 2)
    assert loads(dumps(record)) == record


# -- round trips --------------------------------------------------------------------------------


def random_match(seed: int, length: int, rules: Rules, *, games: int, actions: int | None = None,
                 forfeit: bool = False, xgid: str | None = None) -> Match:
    """A match played by a random bot with random dice: random legal plays, doubles, answers
    to doubles (beavers where allowed), resignations now and then, accepted or declined; it
    stops after ``games`` games or ``actions`` actions (a money session never ends). With
    ``xgid`` the match is taken up there (``length`` and ``rules`` then come from it)."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    match = Match(length, rules, dice=dice) if xgid is None else Match.from_xgid(xgid, dice=dice)
    for _ in range(actions if actions is not None else 10**6):
        game = match.game
        if match.is_over() or match.game_number > games:
            break
        allowed = game.legal_actions()
        if Action.RESIGN in allowed and rng.random() < 0.02:
            game.resign(rng.randint(1, 3))
        elif game.phase in (Phase.OPENING, Phase.ROLL):
            game.double() if Action.DOUBLE in allowed and rng.random() < 0.2 else game.roll()
        elif game.phase is Phase.PLAY:
            legal = game.legal_moves()
            game.play(legal[rng.randrange(len(legal))] if len(legal) else Move())
        elif game.phase is Phase.CUBE:
            answer = rng.choice([a for a in (Action.TAKE, Action.PASS, Action.BEAVER) if a in allowed])
            {Action.TAKE: game.take, Action.PASS: game.pass_double, Action.BEAVER: game.beaver}[answer]()
        elif game.phase is Phase.RESIGN:
            game.accept() if rng.random() < 0.5 else game.decline()
    if forfeit and not match.is_over():
        match.forfeit(rng.choice(["time", "abandoned"]), player=rng.randint(0, 1))
    return match


_names = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=12).map(
    str.strip).filter(bool)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    length=st.sampled_from([0, 0, 1, 3, 5]),
    rules=st.builds(Rules, jacoby=st.booleans(), beavers=st.booleans(), automatic_doubles=st.booleans(),
                    automatic_double_limit=st.integers(0, 3), opening_reroll=st.booleans(),
                    backgammon_counts_as_gammon=st.booleans(), cube_limit=st.sampled_from([None, 4, 64])),
    games=st.integers(1, 2),
    actions=st.none() | st.integers(0, 60),
    forfeit=st.booleans(),
    names=st.tuples(_names, _names),
    event=st.none() | _names,
)
def test_round_trip_of_played_matches(seed: int, length: int, rules: Rules, games: int, actions: int | None,
                                      forfeit: bool, names: tuple[str, str], event: str | None) -> None:
    match = random_match(seed, length, rules, games=games, actions=actions, forfeit=forfeit)
    info = {"date": "2024-05-06"} if event is None else {"event": event, "place": "[x]\\"}
    record = MatchRecord(match, names, info)
    assert loads(dumps(record)) == record


def test_round_trip_of_rules_gnubg_cannot_write_R5_R6() -> None:
    # opening ties thrown again (R4) with automatic doubles (R6), an opening rolled afresh (R5)
    ties = Match(0, Rules(automatic_doubles=True, automatic_double_limit=2),
                 dice=ScriptedDice([(2, 2), (4, 4), (1, 1), (3, 1)]))
    ties.game.roll()
    assert ties.game.cube_value == 4
    text = dumps(MatchRecord(ties))
    assert "XO[22][44][11][31]" in text and "CV[4]" in text and "AutomaticDoubleLimit=2" in text
    assert loads(text).match == ties
    reroll = Match(0, Rules(opening_reroll=True), dice=ScriptedDice([(3, 1), (6, 5)]))
    game = reroll.game
    game.roll()
    game.double()
    game.take()
    game.roll()
    game.play("24/13")
    assert loads(dumps(MatchRecord(reroll))).match == reroll
    # without the throws the opening cannot be known
    with pytest.raises(MatchFileError, match=r"expected XO\[..\] with the opening throw"):
        loads("(;GM[6]MI[length:0]RU[OpeningReroll]\n;W[65xm])")


def test_round_trip_of_many_short_matches() -> None:
    for seed in range(12):
        rules = Rules(beavers=True, jacoby=seed % 2 == 0)
        match = random_match(seed, [0, 3, 5][seed % 3], rules, games=3, actions=120, forfeit=seed % 4 == 0)
        assert loads(dumps(MatchRecord(match))).match == match, seed


# -- live gnubg ---------------------------------------------------------------------------


def need_gnubg() -> str:
    """gnubg's executable; skips the test without one (fails where CI requires it)."""
    exe = find_gnubg()
    if exe is None:
        if require_gnubg():
            pytest.fail("gnubg is required (BACKGAMMON_REQUIRE_GNUBG=1) but not installed")
        pytest.skip("GNU Backgammon is not installed")
    return exe


def gnubg_run(script: str, tmp: Path) -> str:
    """Run gnubg on ``script`` (text mode, no rc files, a scratch HOME); its output."""
    exe = need_gnubg()
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home), TMPDIR=str(tmp), LC_ALL="C")
    done = subprocess.run([exe, "-t", "-q", "-r"], input=script, capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    return done.stdout + done.stderr


_SCORE = re.compile(r"The score \(after \d+ games?\) is: \S+ (\d+), \S+ (\d+) \(")
@pytest.mark.gnubg
def test_gnubg_matches_and_sessions_saved_as_sgf_read_with_their_moves_and_score() -> None:
    need_gnubg()
    specs = [MatchSpec(3, 5), MatchSpec(0, 8, games=2, jacoby=True, beavers=True)]
    for played in play_matches(specs):
        spec = played.spec
        record = loads(played.sgf)
        match = record.match
        assert record.names == spec.names and record.problems == (), spec
        # beavers are on when the session holds one (gnubg does not write the rule)
        assert match.rules == Rules(match_length=spec.length, jacoby=spec.jacoby,
                                    beavers=match.rules.beavers and spec.beavers), spec
        # every roll, play, start score and result as gnubg's .mat export of the same session says
        assert our_games(match) == mat_games(played.mat), spec
        if spec.length:
            assert match.is_over() and match.score[match.winner or 0] >= spec.length  # R32
        else:
            assert len(match.results) == spec.games
        if spec.length > 1:  # the .mat reader's record is the same (money: .mat files hold no Jacoby rule)
            assert mat.loads(played.mat).match == match, spec


def summary(match: Match) -> list[object]:
    """What gnubg keeps of a match: per game its score, each play with its player and dice,
    the cube actions and the result (not opening ties, declined resignations, forfeits, nor
    whether a set-up's dice were set or rolled)."""
    out: list[object] = []
    for game in match.games:
        dice: tuple[int, int] | None = None
        kept: list[object] = []
        for e in game.events:
            if isinstance(e, SetUp):
                dice = e.dice
            elif isinstance(e, OpeningRoll) and e.dice[0] != e.dice[1]:
                dice = max(e.dice), min(e.dice)
            elif isinstance(e, Roll):
                dice = e.dice
            elif isinstance(e, Play):
                kept.append((e.player, dice, e.move))
            elif isinstance(e, (Double, Take, Beaver, Pass)):
                kept.append(e)
        if game.events:
            out.append((game.score, kept, game.result))
    return out


@pytest.mark.gnubg
def test_files_we_write_load_into_gnubg_with_the_same_moves_and_score(tmp_path: Path) -> None:
    cases = [random_match(seed, length, Rules(beavers=length == 0), games=3, actions=actions)
             for seed, length, actions in [(1, 3, None), (2, 5, None), (3, 0, 150), (4, 1, None), (5, 7, 80)]]
    # taken up from a board, cube and dice set up (gnubg keeps the board, the cube and the moves)
    board = "XGID=-b----E-C---eE---c-e----B-"
    cases += [random_match(6, 0, Rules(), games=2, xgid=f"{board}:0:0:1:52:4:2:1:5:10"),
              random_match(7, 0, Rules(), games=1, xgid=f"{board}:1:1:1:00:0:0:0:0:10")]
    # (the first: a 5-point match at 4-2 in the Crawford game; the second: money, cube 2 on Black)
    script = ["set display off"]
    for k, match in enumerate(cases):
        (tmp_path / f"w{k}.sgf").write_text(dumps(MatchRecord(match, ("ann", "bob"))))
        script += [f"load match {tmp_path}/w{k}.sgf", "show score", f"save match {tmp_path}/g{k}.sgf"]
    output = gnubg_run("\n".join(script) + "\n", tmp_path)
    scores = [(int(a), int(b)) for a, b in _SCORE.findall(output)]
    assert len(scores) == len(cases), output[-2000:]
    for k, match in enumerate(cases):
        assert scores[k] == match.score, k
        back = formats.read(tmp_path / f"g{k}.sgf", strict=False)
        assert back.names == ("ann", "bob") and summary(back.match) == summary(match), k
