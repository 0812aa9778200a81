"""Save files of ``backgammon play`` and ``backgammon chouette``: one writer and one reader
(:mod:`backgammon.terminal.savefile`), the save folder, regular files only, asking before
replacing a file, sentences for malformed files; and the command-line refusals and the
chouette's ``--corner`` that came with them."""

from __future__ import annotations

import io
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backgammon import Match
from backgammon.chouette import Chouette
from backgammon.cli import build_parser, main
from backgammon.errors import BackgammonError
from backgammon.rules import Rules
from backgammon.terminal import chouette as chouette_module
from backgammon.terminal import savefile
from backgammon.terminal.chouette_options import ChouetteOptions
from backgammon.terminal.dice import SessionDice
from backgammon.terminal.options import DEFAULT_BOT, PlayOptions, options_from_args
from backgammon.terminal.session import Session, make_console


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


def _game() -> tuple[PlayOptions, Match, SessionDice]:
    dice = SessionDice((3, 1))
    match = Match(3, dice=dice)
    match.game.roll()
    match.game.play("8/5 6/5")
    return PlayOptions(opponent="human", rules=match.rules, delay=0), match, dice


def _play_file(path: Path, **options: Any) -> Path:
    opts, match, dice = _game()
    savefile.save(path, opts, match, dice)
    data = json.loads(path.read_text())
    data["terminal"]["options"].update(options)
    path.write_text(json.dumps(data))
    return path


# -- where files go ----------------------------------------------------------------------


def test_one_folder_for_save_and_autosave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from backgammon.terminal import chouette_options, options

    assert savefile.state_dir() is None
    assert options.default_save_path() == Path("backgammon-save.json")
    assert options.default_autosave_path() == Path("backgammon-autosave.json")
    assert chouette_options.default_save_path() == Path("backgammon-chouette.json")
    assert chouette_options.default_autosave_path() == Path("backgammon-chouette-autosave.json")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    home = tmp_path / "home" / ".local" / "state" / "backgammon"
    assert options.default_save_path() == home / "save.json"
    assert options.default_autosave_path() == home / "autosave.json"
    assert chouette_options.default_autosave_path() == home / "chouette-autosave.json"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert options.default_save_path() == tmp_path / "state" / "backgammon" / "save.json"
    assert chouette_options.default_save_path() == tmp_path / "state" / "backgammon" / "chouette.json"


def test_save_without_a_name_goes_to_the_save_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    out = io.StringIO()
    lines = iter(["save", "save mine.json"])
    opts, match, dice = _game()
    session = Session(opts, match=match, dice=dice, console=make_console("never", file=out), read_line=lambda p: next(lines))
    session.run()
    folder = tmp_path / "home" / ".local" / "state" / "backgammon"
    assert (folder / "save.json").exists()
    assert (tmp_path / "mine.json").exists()  # a relative name stays relative to the current folder
    assert (folder / "autosave.json").exists()  # end of input


# -- the writer ------------------------------------------------------------------------------


def test_write_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    for target in (tmp_path / "folder", tmp_path / "fifo", Path("/dev/null")):
        with pytest.raises(savefile.SaveError, match="cannot save to .*(a folder|not a regular file)"):
            savefile.write(target, {"a": 1})
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)


def test_write_is_atomic_and_asks_before_replacing(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "f.json"
    assert savefile.write(path, {"a": 1}) == path.resolve()
    with pytest.raises(savefile.SaveExists):
        savefile.write(path, {"a": 2}, overwrite=False)
    assert json.loads(path.read_text()) == {"a": 1}
    savefile.write(path, {"a": 3})
    assert json.loads(path.read_text()) == {"a": 3}
    assert sorted(p.name for p in path.parent.iterdir()) == ["f.json"]  # no temporary file left
    link = tmp_path / "link.json"
    link.symlink_to(path)
    savefile.write(link, {"a": 4})
    assert link.is_symlink() and json.loads(path.read_text()) == {"a": 4}


def _session_saving(lines: list[str], out: io.StringIO) -> Session:
    typed: Iterator[str] = iter(lines)
    opts, match, dice = _game()
    return Session(opts, match=match, dice=dice, console=make_console("never", file=out), read_line=lambda p: next(typed))


def test_session_save_asks_before_replacing_another_file(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text("precious")
    out = io.StringIO()
    session = _session_saving(["save other.json", "n", "save other.json", "y", "save", "save /dev/null"], out)
    session.run()
    text = out.getvalue()
    assert "Not saved." in text
    assert savefile.load(other)[1] == session.match  # replaced after "y"
    assert "Not saved: cannot save to '/dev/null': it is not a regular file" in text
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_session_save_prompt_and_own_file(tmp_path: Path) -> None:
    prompts: list[str] = []
    typed = iter(["save g.json", "save", "save g.json"])
    other = tmp_path / "g.json"

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(typed)

    opts, match, dice = _game()
    session = Session(opts, match=match, dice=dice, console=make_console("never", file=io.StringIO()), read_line=read)
    session.run()
    # the session's own file (saved to, then `save` and `save g.json` again) is not asked about
    assert not any("overwrite" in p for p in prompts)
    assert other.exists()
    other.write_text("x")
    typed = iter(["save g.json", "y"])
    session = Session(opts, match=match, dice=dice, console=make_console("never", file=io.StringIO()), read_line=read)
    session.run()
    assert f"{Path('g.json')} exists: overwrite it? [y/N] > " in prompts


# -- the reader: sentences for malformed files ------------------------------------------------


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"player_names": "Ann"}, "player_names 'Ann' is not two names"),
        ({"player_names": ["Ann", "Bob", "Cy"]}, "player_names"),
        ({"player_names": [1, 2]}, "player_names"),
        ({"delay": "fast"}, "delay 'fast' is not a number"),
        ({"seed": "x"}, "seed 'x' is not a whole number"),
        ({"corner": 5}, "corner 5 is not text"),
        ({"corner": "middle"}, "corner 'middle'"),
        ({"dice_script": "31"}, "dice_script '31' is not a list of dice"),
        ({"switch_sides": "yes"}, "switch_sides 'yes' is not true or false"),
        ({"opponent": 3}, "opponent 3 is not text"),
        ({"rules": "money"}, "rules 'money'"),
        ({"sparkles": True}, "unknown field(s) sparkles"),
    ],
)
def test_malformed_play_options_are_sentences(tmp_path: Path, options: dict[str, Any], words: str) -> None:
    path = _play_file(tmp_path / "g.json", **options)
    with pytest.raises(savefile.SaveError) as caught:
        savefile.load(path)
    message = str(caught.value)
    assert message.startswith(f"{str(path)!r}: not a valid saved game: options")
    assert words in message
    assert "unpack" not in message and "Error" not in message


def test_malformed_play_files_are_sentences(tmp_path: Path) -> None:
    cases: dict[str, tuple[str, str]] = {
        "notjson.json": ("{ not json", "is not a saved game (not JSON"),
        "list.json": ("[1, 2]", "is not a saved game (expected a JSON object)"),
        "format.json": (json.dumps({"format": "something-else", "events": []}), "not a valid saved game"),
        "terminal.json": ("", "'terminal': expected a JSON object"),
        "dice.json": ("", "the dice 5: expected a JSON object"),
        "options.json": ("", "options [1]: expected a JSON object"),
    }
    opts, match, dice = _game()
    base = match.to_dict()
    base["terminal"] = {"version": 1, "options": opts.to_dict(), "dice": dice.state()}
    for name, change in (("terminal.json", ("terminal", 3)), ("dice.json", ("dice", 5)), ("options.json", ("options", [1]))):
        data = json.loads(json.dumps(base))
        if change[0] == "terminal":
            data["terminal"] = change[1]
        else:
            data["terminal"][change[0]] = change[1]
        cases[name] = (json.dumps(data), cases[name][1])
    for name, (text, words) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(savefile.SaveError) as caught:
            savefile.load(path)
        assert words in str(caught.value), (name, str(caught.value))
        assert "Traceback" not in str(caught.value)
    with pytest.raises(savefile.SaveError, match="it is a folder"):
        savefile.load(tmp_path)


def test_a_chouette_file_is_not_a_game_and_back(tmp_path: Path) -> None:
    dice = SessionDice((6, 5, 4), seed=1)
    opts = ChouetteOptions((("a", "human"), ("b", "human"), ("c", "human")))
    c = Chouette(opts.names, dice=dice)
    c.roll(player=c.box)
    path = savefile.save_chouette(tmp_path / "c.json", opts, c, dice)
    with pytest.raises(savefile.SaveError, match="not a valid saved game"):
        savefile.load(path)
    opts2, match, dice2 = _game()
    game = savefile.save(tmp_path / "g.json", opts2, match, dice2)
    with pytest.raises(savefile.SaveError, match="not a valid saved chouette"):
        savefile.load_chouette(game)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"seats": "a,b,c"}, "seats 'a,b,c' is not a list of [name, kind] pairs"),
        ({"seats": [["a", "human"], ["b"]]}, "seats"),
        ({"seats": [["a", "human"], ["b", "human"]]}, "a chouette needs 3 or more players"),
        ({"games": "2"}, "games '2' is not a whole number"),
        ({"corner": "middle"}, "corner 'middle'"),
        ({"delay": -1}, "delay -1"),
    ],
)
def test_malformed_chouette_options_are_sentences(tmp_path: Path, options: dict[str, Any], words: str) -> None:
    dice = SessionDice((6, 5, 4), seed=1)
    opts = ChouetteOptions((("a", "human"), ("b", "human"), ("c", "human")))
    c = Chouette(opts.names, dice=dice)
    path = chouette_module.save(tmp_path / "c.json", opts, c, dice)
    data = json.loads(path.read_text())
    data["terminal"]["options"].update(options)
    path.write_text(json.dumps(data))
    with pytest.raises(savefile.SaveError) as caught:
        chouette_module.load(path)
    message = str(caught.value)
    assert message.startswith(f"{str(path)!r}: not a valid saved chouette: options")
    assert words in message and "unpack" not in message


def test_old_chouette_files_without_corner_load(tmp_path: Path) -> None:
    dice = SessionDice((6, 5, 4), seed=1)
    opts = ChouetteOptions((("a", "human"), ("b", "human"), ("c", "human")))
    c = Chouette(opts.names, dice=dice)
    path = savefile.save_chouette(tmp_path / "c.json", opts, c, dice)
    data = json.loads(path.read_text())
    for key in ("corner", "switch_sides"):
        del data["terminal"]["options"][key]
    path.write_text(json.dumps(data))
    assert savefile.load_chouette(path)[0] == opts


def test_chouette_files_of_the_format_before_the_table_load(tmp_path: Path) -> None:
    """A save of the earlier format: the chouette's own JSON (``backgammon-chouette``) with
    the ``"terminal"`` key (options and dice) loads, seated from its options, and resumes."""
    dice = SessionDice((6, 5, 4, 3, 1), seed=1)
    opts = ChouetteOptions((("Ann", "human"), ("Bob", "human"), ("pubeval", "pubeval")), seed=3)
    c = Chouette(opts.names, dice=dice)
    c.roll(player=c.box)
    data = c.to_dict()
    assert data["format"] == "backgammon-chouette"
    data["terminal"] = {"version": 1, "options": opts.to_dict(), "dice": dice.state()}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    opts2, c2, dice2 = savefile.load_chouette(path)
    assert (opts2, c2, dice2.drawn) == (opts, c, dice.drawn)
    options, table, _ = savefile.load_table(path, "chouette")
    assert [(s.name, s.kind) for s in table.seats] == [("Ann", "human"), ("Bob", "human"), ("pubeval", "pubeval")]
    assert table.seats[2].seed == 5  # --seed + its place
    # and it is a chouette, not a game
    with pytest.raises(savefile.SaveError, match="not a valid saved game"):
        savefile.load(path)


# -- the command line ---------------------------------------------------------------------------


def test_play_help_names_the_default_bot(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = capsys.readouterr().out
    assert f"(default: {DEFAULT_BOT})" in text and f"you against {DEFAULT_BOT}" in text
    assert "against pubeval" not in text
    assert "~/.local/state/backgammon/" in text


def test_chouette_refuses_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chouette", "--players", "A,B,C", "--match", "3"]) == 2
    err = capsys.readouterr().err
    assert "a chouette is money play" in err and "--match is for backgammon play" in err
    assert "usage:" not in err


@pytest.mark.parametrize(
    ("option", "value"),
    [("--jacoby", []), ("--beavers", []), ("--automatic-doubles", []), ("--automatic-double-limit", ["2"])],
)
def test_play_match_refuses_money_only_options(option: str, value: list[str]) -> None:
    args = build_parser().parse_args(["play", "--match", "5", option, *value])
    with pytest.raises(BackgammonError, match=re.escape(option) + r" is for money play.*\(R34\)"):
        options_from_args(args)
    # for money play they are fine
    assert options_from_args(build_parser().parse_args(["play", option, *value])).rules.is_money


def test_play_match_refusal_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--match", "3", "--jacoby"]) == 2
    assert "--jacoby is for money play" in capsys.readouterr().err


# -- the chouette's corner ----------------------------------------------------------------------


def test_chouette_corner_and_switch_sides() -> None:
    from backgammon.terminal.chouette import ChouetteSession

    args = build_parser().parse_args(
        ["chouette", "--players", "Ann,bot:pubeval,bot:random", "--corner", "tl", "--switch-sides"]
    )
    opts = chouette_module.options_from_args(args)
    assert opts.corner == "top-left" and opts.switch_sides
    assert ChouetteOptions.from_dict(opts.to_dict()) == opts
    session = ChouetteSession(opts.with_display(delay=0), console=make_console("never", file=io.StringIO()))
    c = session.chouette
    assert session._viewer() == (0 if c.box == "Ann" else 1)  # Ann's side
    assert session.corner() == "top-left"  # game 1
    bots_only = ChouetteOptions((("p", "pubeval"), ("r", "random"), ("s", "random")))
    assert ChouetteSession(bots_only, console=make_console("never", file=io.StringIO()))._viewer() == 0


def test_chouette_draws_the_people_home_in_the_corner() -> None:
    """Ann (a person) in the team, home board top left: the team's (O's) home board is
    drawn at the top left, so O's checkers start at the top (R46)."""
    from backgammon.terminal.chouette import ChouetteSession
    out = io.StringIO()
    typed = iter(["board"])

    def read(prompt: str) -> str:
        return next(typed)

    seats = (("Ann", "human"), ("pubeval", "pubeval"), ("random", "random"))
    opts = ChouetteOptions(seats, delay=0, games=1, corner="top-left", rules=Rules())
    # roll-off: Ann 2, pubeval 6, random 5: pubeval in the box, Ann in the team
    session = ChouetteSession(
        opts, dice=SessionDice((2, 6, 5, 3, 1), seed=1), console=make_console("never", file=out, width=100), read_line=read
    )
    assert session.chouette.box == "pubeval"
    assert session._viewer() == 1
    session._draw(force=True)
    lines = out.getvalue().splitlines()
    board = [line for line in lines if line.startswith("+")]
    assert board[0].startswith("+---+-1--2--3--4--5--6-+") and board[0].endswith("O  random (captain)")
    assert board[1].startswith("+---+24-23-22-21-20-19-+") and board[1].endswith("X  pubeval (box)")
    # the default corner: the team's home board at the bottom right (it was top right before)
    out = io.StringIO()
    session = ChouetteSession(
        opts.with_display(corner="bottom-right"),
        dice=SessionDice((2, 6, 5, 3, 1), seed=1),
        console=make_console("never", file=out, width=100),
        read_line=read,
    )
    session._draw(force=True)
    board = [line for line in out.getvalue().splitlines() if line.startswith("+")]
    assert board[1].startswith("+12-11-10--9--8--7-+---+-6--5--4--3--2--1-+---+  O")
