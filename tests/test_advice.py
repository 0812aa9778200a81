"""terminal.advice words, Prompter list/hint through it, and `backgammon show` / `moves`."""

from __future__ import annotations

import io

import pytest

from backgammon import Position
from backgammon.cli import main
from backgammon.bots.analysis import cube_advice, rank_plays, resignation_advice, take_advice
from backgammon.matchid import MatchState
from backgammon.rules import Rules
from backgammon.terminal.advice import (
    cube_hint_lines,
    cube_lines,
    ranking_lines,
    resignation_hint_lines,
    take_lines,
)
from backgammon.terminal.prompts import Prompter
from backgammon.terminal.session import make_console
from tests.test_analysis import CRUSHING, _pos


def test_ranking_grammar_and_units() -> None:
    one = rank_plays(_pos({6: 1}, {6: 2}).legal_moves((6, 6)))
    text = "\n".join(ranking_lines(one))
    assert "ranking of the only legal play" in text and "1 legal plays" not in text
    legal = Position.initial().legal_moves((3, 1))
    money = ranking_lines(rank_plays(legal))
    assert "ranking of the 16 legal plays (cubeless equity" in money[0]
    assert "vs best" in money[1] and "+0." in money[2] and money[-1].startswith("  best play: win ")
    assert "%" in money[-1] and "+0.5" not in money[-1]
    match = ranking_lines(rank_plays(legal, MatchState(match_length=5, score=(1, 1))), 3)
    assert "(match winning chances" in match[0] and "MWC" in match[1] and "%" in match[2]
    assert len(match) == 2 + 3 + 1


def test_cube_words() -> None:
    start = cube_advice(Position.initial(), MatchState())
    assert start is not None
    lines = cube_lines(start)
    assert lines[0] == "the expert network's cube advice: no double: roll."
    assert "no double: no double" not in "\n".join(lines) and "%" in lines[-1]
    crushing = cube_lines(cube_advice(CRUSHING, MatchState(match_length=7, score=(3, 3))) or start)
    assert "match winning chances" in crushing[1] and "%" in crushing[2]
    # doubled: numbers for take and pass
    take = take_advice(CRUSHING.swap(), MatchState(double_offered=True, turn=1, jacoby=False))
    assert take is not None
    words = take_lines(take)
    assert words[0] == "the expert network's advice: pass." and "take" in words[2] and "-1.000" in words[3]
    # a beaver is mentioned when it is right and allowed, never otherwise
    state = MatchState(double_offered=True, turn=1)
    on = cube_hint_lines(CRUSHING, state, Rules(beavers=True), answering=True)
    off = cube_hint_lines(CRUSHING, state, Rules(beavers=False), answering=True)
    assert "beaver" in on[0] and "beaver" not in "\n".join(off)
    assert cube_hint_lines(CRUSHING.swap(), MatchState(jacoby=False), Rules(beavers=True))[0].endswith(
        "(a double should be beavered, R30).")


def test_resignation_words() -> None:
    offer = MatchState(player_on_roll=1, turn=0, resignation=1, jacoby=False)
    lines = resignation_hint_lines(CRUSHING, offer, 1)
    assert lines[0] == "the expert network's advice: decline." and "playing on" in lines[1]
    advice = resignation_advice(Position.initial(), offer, 1)
    assert advice is not None


def test_prompter_list_is_best_first_with_legal_numbers() -> None:
    out = io.StringIO()
    p = Prompter(make_console("never", file=out, width=100), read_line=input, names=("X", "O"))
    legal = Position.initial().legal_moves((3, 1))
    p.list_plays(legal)
    text = out.getvalue()
    assert text.startswith("16 legal plays, best first") and "  9. 8/5 6/5" in text
    first = text.splitlines()[1].split()
    assert first[:3] == ["9.", "8/5", "6/5"]  # the best play first, with its legal number
    assert legal[p.read_play("9", legal, (3, 1), "play") or 0] == legal[8]
    out.truncate(0)
    p.hint(legal, "2", MatchState(match_length=3))
    assert "match winning chances" in out.getvalue()


def test_fallback_words(monkeypatch: pytest.MonkeyPatch) -> None:
    from backgammon.bots import analysis

    monkeypatch.setattr(analysis, "engine", lambda: None)
    assert cube_hint_lines(Position.initial(), MatchState())[0] == "pubeval's advice: no double: roll."
    assert cube_hint_lines(Position.initial(), MatchState(double_offered=True, turn=1),
                           answering=True)[0] == "pubeval's advice: take."
    offer = MatchState(player_on_roll=1, turn=0, resignation=1, jacoby=False)
    assert resignation_hint_lines(Position.initial(), offer, 1) == ["pubeval's advice: decline."]
    lines = ranking_lines(rank_plays(Position.initial().legal_moves((3, 1))))
    assert lines[0].startswith("pubeval's ranking of the 16 legal plays") and "score" in lines[1]


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        ("4HPwATDgc/ABMA", "Money game, game 1"),
        ("4HPwATDgc/ABMA:cAkHAAAAAAAA", "O to play 6-1"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:4:2:1:5:10", "5-point match"),
        ("xgid=-b----E-C---eE---c-e----B-:0:0:1:52:4:2:1:5:10", "Crawford game"),
    ],
)
def test_show_reads_three_kinds(arg: str, expected: str, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["show", arg]) == 0
    out = capsys.readouterr().out
    assert expected in out and "+13-14-15" in out and "Position ID 4HPwATDgc/ABMA" in out


@pytest.mark.parametrize(
    ("arg", "words"),
    [
        ("4HPwAZB//wAAAA", "is not a valid Position ID: the player on roll has 16 checkers"),
        ("garbage", "a Position ID has 14 characters"),
        ("4HPw!TDgc/ABMA", "not base64 (letters, digits, + and / only)"),
        ("4HPwATDgc/ABMA:xx", "not a valid PositionID:MatchID pair: the Match ID must be 12"),
        ("XGID=junk", "is not a valid XGID: the XGID needs 10 fields"),
    ],
)
def test_show_bad_input_in_words(arg: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", arg]) == 2
    err = capsys.readouterr().err
    assert err.startswith("backgammon: ") and words in err
    assert "[" not in err and "Traceback" not in err


def test_moves_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", "4HPwATDgc/ABMA", "31"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "   9. 8/5 6/5" and len(lines) == 16
    assert main(["moves", "4HPwAZB//wAAAA", "31"]) == 2
    assert "[" not in capsys.readouterr().err
