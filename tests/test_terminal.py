"""The terminal game in-process: the board drawing, the session loop driven by a list of
lines, save files, options and the ``play`` command line. (The program in a real pty:
``test_terminal_pty.py``.)"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon import Game, Match, Position, Rules
from backgammon.cli import main
from backgammon.terminal import savefile
from backgammon.terminal.dice import SessionDice, parse_script
from backgammon.terminal.options import (
    CORNERS,
    DEFAULT_BOT,
    PlayOptions,
    default_autosave_path,
    mirror_corner,
    options_from_args,
)
from backgammon.terminal.session import Session, make_console
from backgammon.terminal.view import Scene, render, scene_of

from .conftest import board


class Run:
    """A session fed from a list of lines (end of input after the last), output captured."""

    def __init__(
        self,
        lines: Iterable[str],
        *,
        match: Match | None = None,
        dice: SessionDice | None = None,
        colour: str = "never",
        **options: object,
    ) -> None:
        self.out = io.StringIO()
        feed = iter(lines)

        def read(prompt: str) -> str:
            self.out.write(prompt)
            try:
                line = next(feed)
            except StopIteration:
                raise EOFError from None
            self.out.write(line + "\n")
            return line

        opts = PlayOptions(delay=0, colour=colour, **options)  # type: ignore[arg-type]
        self.session = Session(
            opts,
            match=match,
            dice=dice,
            console=make_console(colour, file=self.out, width=120),
            read_line=read,
            sleep=lambda seconds: None,
        )
        self.status = self.session.run()
        self.text = self.out.getvalue()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)  # the default save files go to ./
    monkeypatch.delenv("NO_COLOR", raising=False)


def _match_at(position: Position, script: tuple[int, ...], **rules: object) -> tuple[Match, SessionDice]:
    """A money session whose first game starts at ``position`` (X to roll)."""
    dice = SessionDice(script)
    xgid = Game.from_position(position, player=0).xgid()
    match = Match.from_xgid(xgid, Rules(**rules), dice=dice)  # type: ignore[arg-type]
    assert match.game.board(0) == position
    return match, dice


# -- the board ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "corner, top, bottom",
    [
        (
            "bottom-right",
            "+13-14-15-16-17-18-+---+19-20-21-22-23-24-+---+",
            "+12-11-10--9--8--7-+---+-6--5--4--3--2--1-+---+",
        ),
        (
            "bottom-left",
            "+---+24-23-22-21-20-19-+---+18-17-16-15-14-13-+",
            "+---+-1--2--3--4--5--6-+---+-7--8--9-10-11-12-+",
        ),
        (
            "top-right",
            "+12-11-10--9--8--7-+---+-6--5--4--3--2--1-+---+",
            "+13-14-15-16-17-18-+---+19-20-21-22-23-24-+---+",
        ),
        (
            "top-left",
            "+---+-1--2--3--4--5--6-+---+-7--8--9-10-11-12-+",
            "+---+24-23-22-21-20-19-+---+18-17-16-15-14-13-+",
        ),
    ],
)
def test_four_corners(corner: str, top: str, bottom: str) -> None:
    # R46: the home board (points 1-6) in any corner, the bear-off tray beside it
    lines = render(Scene(Position.initial(), corner=corner)).plain.splitlines()
    assert lines[1].startswith(top) and lines[13].startswith(bottom)
    home_row = lines[12] if corner.startswith("bottom") else lines[2]
    # X's 6-point sits next to the bar, on the side of the tray (R2: 5 on the 6, 3 on the 8)
    assert home_row.count("X") == 2
    assert ("|   | X " in home_row) == corner.endswith("right")
    assert (" X |   |" in home_row) == corner.endswith("left")


def test_numbering_follows_the_player_at_the_keyboard() -> None:
    lines = render(Scene(Position.initial(), numbering=1)).plain.splitlines()
    assert lines[1].startswith("+12-11-10--9--8--7-+---+-6--5--4--3--2--1-+")
    assert lines[13].startswith("+13-14-15-16-17-18-+---+19-20-21-22-23-24-+")


def test_bar_off_stacks_cube_and_crawford() -> None:
    # X: 1 on the bar, 9 on its 6-point, 5 borne off; O: 2 on the bar, 3 borne off
    pos = board({25: 1, 6: 9}, {0: 2, 19: 10})
    scene = Scene(
        pos,
        names=("You", "bot"),
        cube_value=4,
        cube_owner=1,
        score=(3, 4),
        match_length=5,
        crawford=False,
        post_crawford=True,
        game_number=4,
        on_roll=0,
    )
    text = render(scene).plain
    lines = text.splitlines()
    assert lines[0] == "5-point match, game 4 (post-Crawford) - Score: You 3, bot 4"
    assert " 9 " in lines[8] and "|   |" in lines[12]  # a stack of 9: four checkers and the count
    assert lines[12].rstrip().endswith("pips 79, off 5, 1 on the bar")
    assert "pips 110, off 3, 2 on the bar" in lines[2]
    assert "cube 4: O owns" in lines[7] and "Cube 4, owned by bot" in lines[7]
    assert lines[2][43:46].strip() == "3"  # O's borne-off count in the top tray
    assert lines[12][43:46].strip() == "5"
    # X's checker on the bar is drawn in the top half (where it enters), O's two below
    assert lines[6][19:24] == "| X |" and lines[8][19:24] == "| O |" and lines[9][19:24] == "| O |"
    crawford = render(Scene(pos, match_length=5, score=(4, 2), crawford=True)).plain
    assert "(Crawford game: no doubling)" in crawford and "Crawford game: no doubling (R33)" in crawford


def test_pending_resignation_is_shown() -> None:  # R31
    text = render(Scene(Position.initial(), on_roll=1, resign_offered=(1, 2)), width=60).plain
    assert "O offers to resign a gammon" in text and "to roll" not in text


def test_narrow_terminal_puts_the_panel_below() -> None:
    text = render(Scene(Position.initial(), on_roll=0, dice=(6, 5)), width=60).plain
    assert all(len(line) <= 60 for line in text.splitlines())
    assert "X to play 6-5" in text


def test_plain_and_colour_output() -> None:
    scene = Scene(Position.initial())
    plain, colour = io.StringIO(), io.StringIO()
    make_console("never", file=plain).print(render(scene))
    make_console("always", file=colour).print(render(scene))
    assert "\x1b" not in plain.getvalue() and "\x1b[" in colour.getvalue()
    assert re.sub(r"\x1b\[[0-9;]*m", "", colour.getvalue()) == plain.getvalue()


def test_no_color_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    out = io.StringIO()
    console = make_console("auto", file=out)
    console.print(render(Scene(Position.initial())))
    assert console.no_color and "\x1b" not in out.getvalue()


def test_scene_of_a_match() -> None:
    match = Match(3, dice=SessionDice((5, 2)))
    match.game.roll()
    scene = scene_of(match)
    assert (scene.on_roll, scene.dice, scene.match_length, scene.game_number) == (0, (5, 2), 3, 1)
    assert scene.ids.startswith("Position ID 4HPwATDgc/ABMA")


# -- the session in-process ---------------------------------------------------------------


def test_forced_play_is_shown_and_confirmed() -> None:
    # R11: with 6-1 the only play enters with the 6 and moves on with the 1
    pos = board({25: 1, 1: 14}, {20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 5})
    match, dice = _match_at(pos, (6, 1))
    run = Run(["", "", "quit", "n"], match=match, dice=dice, opponent="human")
    assert "Only one legal play with 6-1: bar/18." in run.text
    assert "X: Enter to play bar/18 > " in run.text and "X plays bar/18." in run.text
    assert run.status == 0


def test_no_play_passes_by_itself_with_the_reason() -> None:
    # R11, R15: no entering number: the board is shown and the turn passes at once, with
    # a line saying why (no Enter to press); then O is asked before rolling
    pos = board({25: 1, 1: 14}, {20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 5})
    match, dice = _match_at(pos, (5, 5))
    run = Run(["", "quit", "n"], match=match, dice=dice, opponent="human")
    assert "X cannot move with 5-5: the turn passes (R11)." in run.text
    assert "Enter to pass the turn" not in run.text
    assert "X: Enter to roll > \nX cannot move" not in run.text
    assert "O: Enter to roll, or double > quit" in run.text
    assert match.game.on_roll == 1


def test_partial_play_message() -> None:
    run = Run(["13/7", "quit", "n"], dice=SessionDice((6, 1)), opponent="human")
    assert "'13/7' uses only part of the roll 6-1" in run.text and "13/7 8/7" in run.text


def test_digits_other_than_0_to_9_are_not_numbers() -> None:
    # "¹" and "²" pass str.isdigit() but are no play number nor count of `hint`
    run = Run(["¹", "hint ²", "quit", "n"], dice=SessionDice((3, 1)), opponent="human")
    assert run.status == 0 and "Unexpected error" not in run.text
    assert "'¹' is not a command." in run.text
    assert "'²': `hint` takes a number of plays, 1-50" in run.text


def test_beaver_and_automatic_double() -> None:
    # R6: equal opening dice double the cube; R30: O beavers X's double
    run = Run(
        ["8/5 6/5", "", "", "13/11 13/10", "", "double", "beaver", "quit", "n"],
        dice=SessionDice((4, 4, 3, 1, 3, 2, 6, 5)),
        opponent="human",
        rules=Rules(automatic_doubles=True, beavers=True),
    )
    text = run.text
    assert "Opening roll: X 4, O 4: a tie, both roll again (R4)." in text
    assert "Automatic double (R6): the cube is now at 2." in text
    assert "X doubles to 4." in text
    assert "O: X doubles to 4: take or pass or beaver? > beaver" in text
    assert "O beavers (R30): the cube is at 8, owned by O." in text
    assert "X rolls 6-5." in text


def test_bot_answers_a_double_and_a_resignation() -> None:
    run = Run(
        ["8/5 6/5", "", "double", "resign", "resign backgammon", "n"],
        dice=SessionDice((3, 1, 6, 2), seed=1),
        seed=1,
        opponent="pubeval",
    )
    text = run.text
    assert "against pubeval (bot)" in text
    assert "You double to 2." in text and "pubeval takes: the cube is at 2, owned by pubeval." in text
    assert "You offer to resign a single game (2 points)." in text
    assert "pubeval declines the resignation: play goes on." in text
    assert "(The scripted dice are used up: the dice come from --seed now.)" in text
    assert "pubeval accepts the resignation." in text
    assert "pubeval wins by resignation (a backgammon): 6 points. (Cube at 2.)" in text
    assert "Final score: You 0, pubeval 6." in text and run.status == 0


def test_jacoby_counts_a_gammon_single() -> None:
    # R25: the cube never turned: a resigned gammon is worth one point
    run = Run(
        ["8/5 6/5", "", "", "resign gammon", "accept", "n"],
        dice=SessionDice((3, 1, 6, 2)),
        opponent="human",
        rules=Rules(jacoby=True),
    )
    assert "O offers to resign a gammon (1 point)." in run.text
    assert "X wins by resignation (a gammon): 1 point. (Jacoby rule" in run.text


def test_switch_sides_after_each_game() -> None:
    # R46: the home board changes side after every game
    run = Run(
        ["resign", "accept", "y", "resign", "accept", "n"],
        dice=SessionDice((3, 1, 2, 4)),
        opponent="human",
        switch_sides=True,
    )
    text = run.text
    assert "Sides switched (R46): X's home board is now at the bottom left." in text
    boards = [line for line in text.splitlines() if line.startswith("+")]
    assert boards[0].startswith("+13-14") and boards[-1].startswith("+---+-1--2--3")
    assert "Final score: X 1, O 1." in text


def test_bad_input_is_answered_and_changes_nothing() -> None:
    run = Run(
        [
            "",
            "take",
            "accept",
            "undo",
            "done",
            "99",
            "0",
            "bar/22*",
            "24/18*",
            "6/off",
            "13/7(2)",
            "hint abc",
            "resign never",
            "xyzzy",
            "d",
            "roll",
            "help",
            "board",
            "quit",
            "c",
            "quit",
            "n",
        ],
        dice=SessionDice((3, 1)),
        opponent="human",
    )
    text = run.text
    for expected in (
        "Type your play first",
        "`take` is not possible now: no double has been offered",
        "`accept` is not possible now: no resignation has been offered",
        "`undo` is not possible now: there is no tentative play to take back (R42)",
        "There is no play number 99: choose 1-16",
        "There is no play number 0",
        "Illegal:",
        "'hint abc': " if False else "`hint` takes a number of plays",
        "'xyzzy' is not a command",
        "No double now: the dice are already rolled; a double comes before the roll (R28)",
        "`roll` is not possible now: the dice are already rolled",
        "Commands (a word is enough",
        "Going on with the game.",
    ):
        assert expected in text, expected
    game = run.session.match.game
    assert game.dice == (3, 1) and game.on_roll == 0 and len(game.events) == 1
    assert "Traceback" not in text


_WORDS = st.sampled_from(
    [
        "",
        "roll",
        "double",
        "take",
        "pass",
        "beaver",
        "accept",
        "decline",
        "resign",
        "resign gammon",
        "undo",
        "done",
        "list",
        "hint",
        "1",
        "2",
        "17",
        "24/18",
        "13/7 8/7",
        "bar/22*",
        "6/off",
        "13/7(2)",
        "8/5 6/5",
        "yes",
        "n",
        "board",
        "help",
        "c",
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.one_of(_WORDS, st.text(max_size=12)), max_size=40))
def test_nothing_typed_breaks_the_game(lines: list[str], tmp_path: Path) -> None:
    lines = [
        line
        for line in lines
        if line.strip().lower() not in ("quit", "exit", "q", "save")
        and not line.strip().lower().startswith(("save", "quit", "exit", "q "))
    ]
    run = Run(
        lines, dice=SessionDice(parse_script("31 62 55 43 21 66 54 11 65 32"), seed=3), opponent="human"
    )
    assert run.status == 0
    assert "Traceback" not in run.text and "Unexpected error" not in run.text
    match = run.session.match
    # whatever was typed, the log replays to the same match (nothing wrong was recorded)
    assert Match.from_json(match.to_json()) == match


def test_end_of_input_saves(tmp_path: Path) -> None:
    run = Run(["8/5 6/5"], dice=SessionDice((3, 1)), opponent="human")
    assert run.status == 0
    path = tmp_path / "backgammon-autosave.json"
    assert f"Game saved to {path.resolve()}" in run.text
    options, match, dice = savefile.load(path)
    assert match == run.session.match and options.opponent == "human" and dice.drawn == 2


def test_interrupt_and_unexpected_error_save(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    out = io.StringIO()

    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    session = Session(
        PlayOptions(opponent="human", delay=0),
        console=make_console("never", file=out),
        read_line=interrupt,
        dice=SessionDice((3, 1)),
    )
    assert session.run() == 130
    assert (state / "backgammon" / "autosave.json").exists()

    def broken(prompt: str) -> str:
        raise RuntimeError("the keyboard fell off")

    custom = tmp_path / "mine.json"
    session = Session(
        PlayOptions(opponent="human", delay=0, autosave=str(custom)),
        console=make_console("never", file=out),
        read_line=broken,
        dice=SessionDice((3, 1)),
    )
    assert session.run() == 1
    assert "Unexpected error: RuntimeError: the keyboard fell off" in out.getvalue()
    assert custom.exists() and "Traceback" not in out.getvalue()


def test_undecodable_input_is_asked_again() -> None:
    answers: list[object] = [UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "quit", "n"]

    def read(prompt: str) -> str:
        item = answers.pop(0)
        if isinstance(item, BaseException):
            raise item
        return str(item)

    out = io.StringIO()
    session = Session(
        PlayOptions(opponent="human", delay=0),
        console=make_console("never", file=out),
        read_line=read,
        dice=SessionDice((3, 1)),
    )
    assert session.run() == 0
    assert "That input could not be read as text" in out.getvalue()


# -- save files, dice, options -------------------------------------------------------------


def test_save_and_resume_keep_the_dice(tmp_path: Path) -> None:
    run = Run(
        ["8/5 6/5", "", "save one.json", "quit", "n"], dice=SessionDice((3, 1), seed=9), opponent="human"
    )
    options, match, dice = savefile.load(tmp_path / "one.json")
    assert match == run.session.match
    assert dice.roll() == run.session.dice.roll()  # the same stream, taken up where it stopped
    assert options.seed is None and options.opponent == "human"


def test_save_file_errors(tmp_path: Path) -> None:
    with pytest.raises(savefile.SaveError, match="cannot read"):
        savefile.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(savefile.SaveError, match="not JSON"):
        savefile.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something"}))
    with pytest.raises(savefile.SaveError, match="not a valid saved game"):
        savefile.load(tmp_path / "other.json")
    # a tampered log does not replay
    run = Run(["8/5 6/5", "", "save t.json", "quit", "n"], dice=SessionDice((3, 1)), opponent="human")
    assert run.status == 0
    data = json.loads((tmp_path / "t.json").read_text())
    for event in data["log"]["events"]:
        if event["type"] == "play":
            event["move"] = "24/14"
    (tmp_path / "t.json").write_text(json.dumps(data))
    with pytest.raises(savefile.SaveError, match="not a valid saved game"):
        savefile.load(tmp_path / "t.json")


def test_plain_match_file_resumes(tmp_path: Path) -> None:
    match = Match(5, dice=SessionDice((3, 1)))
    match.game.roll()
    (tmp_path / "m.json").write_text(match.to_json())
    options, again, _ = savefile.load(tmp_path / "m.json")
    assert again == match and options.match_length == 5 and options.opponent == DEFAULT_BOT


def test_dice_script_and_state() -> None:
    assert parse_script("31;6-2 5") == (3, 1, 6, 2, 5)
    dice = SessionDice((3, 1), seed=4)
    ended: list[bool] = []
    dice.on_script_end = lambda: ended.append(True)
    dice.roll()
    after = [dice.roll() for _ in range(3)]
    assert ended == [True]
    again = SessionDice.from_state({"script": [3, 1], "seed": 4, "drawn": 2})
    assert [again.roll() for _ in range(3)] == after
    with pytest.raises(ValueError):
        SessionDice.from_state({"script": [9]})


def test_options_round_trip_and_corners() -> None:
    opts = PlayOptions(
        opponent="random",
        rules=Rules(match_length=7, cube_limit=16),
        seed=3,
        dice_script=(3, 1),
        corner="top-left",
        switch_sides=True,
        player_names=("Ann", "Bob"),
    )
    assert PlayOptions.from_dict(json.loads(json.dumps(opts.to_dict()))) == opts
    assert opts.names == ("Ann", "Bob") and opts.is_bot(1) and not opts.is_bot(0)
    assert [mirror_corner(c) for c in CORNERS] == ["bottom-left", "bottom-right", "top-left", "top-right"]
    with pytest.raises(ValueError):
        PlayOptions(corner="middle")
    with pytest.raises(ValueError):
        PlayOptions.from_dict({"colour": "never", "sparkles": True})
    assert default_autosave_path() == Path("backgammon-autosave.json")


# -- the command line -----------------------------------------------------------------------


def test_play_help_documents_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["play", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for option in (
        "--opponent",
        "--match",
        "--seed",
        "--dice",
        "--automatic-doubles",
        "--automatic-double-limit",
        "--jacoby",
        "--beavers",
        "--backgammon-as-gammon",
        "--cube-limit",
        "--opening-reroll",
        "--corner",
        "--switch-sides",
        "--color",
        "--delay",
        "--auto-roll",
        "--names",
        "--resume",
        "--autosave",
        "human",
        "pubeval",
        "R46",
        "exit status",
    ):
        assert option in text, option


def test_play_and_chouette_read_the_same_rules_options() -> None:
    from backgammon.cli import build_parser
    from backgammon.terminal import chouette

    rules = [
        "--automatic-doubles",
        "--automatic-double-limit",
        "2",
        "--jacoby",
        "--beavers",
        "--backgammon-as-gammon",
        "--cube-limit",
        "16",
        "--opening-reroll",
    ]
    parser = build_parser()
    play = options_from_args(parser.parse_args(["play", *rules])).rules
    table = chouette.options_from_args(parser.parse_args(["chouette", "--players", "A,B,C", *rules])).rules
    expected = Rules(
        automatic_doubles=True,
        automatic_double_limit=2,
        jacoby=True,
        beavers=True,
        backgammon_counts_as_gammon=True,
        cube_limit=16,
        opening_reroll=True,
    )
    assert play == table == expected
    assert options_from_args(parser.parse_args(["play"])).rules == Rules()


def test_play_option_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for argv, message in (
        (["play", "--opponent", "nobody"], "the opponents are"),
        (["play", "--dice", "71"], "is not a roll"),
        (["play", "--cube-limit", "48"], "power of 2"),
        (["play", "--corner", "middle"], "bottom-right"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err
    assert main(["play", "--resume", str(tmp_path / "nothing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_resume_keeps_options_and_takes_display_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from backgammon.cli import build_parser
    from backgammon.terminal.app import build_session

    Run(
        ["8/5 6/5", "", "save s.json", "quit", "n"],
        dice=SessionDice((3, 1)),
        opponent="human",
        rules=Rules(match_length=5, cube_limit=8),
    )
    args = build_parser().parse_args(["play", "--resume", "s.json", "--corner", "bl", "--match", "3"])
    session = build_session(args)
    assert session.options.corner == "bottom-left" and session.match.length == 5
    assert session.match.rules.cube_limit == 8 and session.options.opponent == "human"
    assert "--match ignored" in capsys.readouterr().err


def test_backgammon_train_forwards_to_the_trainer(capsys: pytest.CaptureFixture[str]) -> None:
    from backgammon.cli import main

    with pytest.raises(SystemExit) as done:
        main(["train", "--help"])
    assert done.value.code == 0
    assert "Self-play TD" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["refine", "--help"])
    assert done.value.code == 0
    assert "1-ply" in capsys.readouterr().out


def test_show_and_moves(capsys: pytest.CaptureFixture[str]) -> None:
    start = Position.initial().position_id()
    assert main(["moves", start, "3-1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 16 and "   9. 8/5 6/5" in lines
    assert main(["show", start]) == 0
    assert capsys.readouterr().out.strip()
    assert main(["moves", "not-an-id", "31"]) == 2
    assert capsys.readouterr().err.startswith("backgammon: ")


def test_moves_into_a_closed_pipe_exits_quietly() -> None:
    """``backgammon moves ... | head``: when the reader goes away before the output ends, the
    command stops without a traceback, with 128 + SIGPIPE as its exit status."""
    import os
    import subprocess
    import sys

    from backgammon.cli import PIPE_CLOSED

    root = Path(__file__).resolve().parent.parent
    child = subprocess.Popen(
        [sys.executable, "-m", "backgammon.cli", "moves", Position.initial().position_id(), "11"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # the reader is gone before the first line is written
    errors = child.stderr.read()
    assert child.wait(timeout=60) == PIPE_CLOSED == 141
    assert errors == b""


# -- prompts: the cube, the dice, the numbering, match hints --------------------------------


def test_d_asks_before_doubling_and_double_does_not() -> None:
    # `d` at the roll prompt asks first; `n` keeps the cube where it is
    run = Run(["8/5 6/5", "", "d", "n", "d", "y", "take", "quit", "n"],
              dice=SessionDice((3, 1, 6, 2, 5, 4)), opponent="human")
    text = run.text
    assert "O: Enter to roll, or double > d\nDouble to 2? [y/N] > n\nNo double.\n" in text
    assert text.count("Double to 2? [y/N]") == 2 and text.count("O doubles to 2.") == 1
    assert "X takes: the cube is at 2, owned by X." in text
    # `double` typed in full doubles at once
    run = Run(["8/5 6/5", "", "double", "quit", "n"], dice=SessionDice((3, 1, 6, 2)), opponent="human")
    assert "O: Enter to roll, or double > double\nO doubles to 2." in run.text
    assert "[y/N]" not in run.text
    # `d` at the play prompt (and at the confirm prompt) never doubles
    run = Run(["d", "8/5 6/5", "d", "", "quit", "n"], dice=SessionDice((3, 1)), opponent="human")
    assert run.text.count("No double now: the dice are already rolled") == 2
    assert "doubles to" not in run.text and "[y/N]" not in run.text
    assert "X plays 8/5 6/5." in run.text


def test_dice_are_shown_higher_first() -> None:
    # O wins the opening roll with X's 1 and O's 3: O plays "3-1", not "1-3"
    run = Run(["quit", "n"], dice=SessionDice((1, 3)), opponent="human")
    assert "O: play 3-1 > " in run.text and "1-3" not in run.text


def test_a_bots_play_is_told_in_the_viewers_numbering() -> None:
    # pubeval (O) opens 3-1 with 8/5 6/5 from its side: X reads it in X's numbering
    run = Run(["quit", "n"], dice=SessionDice((1, 3)), opponent="pubeval", seed=1)
    assert "pubeval plays 17/20 19/20." in run.text
    assert "pubeval plays 8/5 6/5." not in run.text


def test_hint_in_a_match_ranks_by_match_winning_chances() -> None:
    run = Run(["hint", "quit", "n"], dice=SessionDice((3, 1)), opponent="human",
              rules=Rules(match_length=3))
    text = run.text
    assert "match winning chances" in text and "MWC" in text
    assert re.search(r"8/5 6/5 +\d+\.\d\d%", text)
