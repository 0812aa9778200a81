"""``backgammon play`` driven as a person would: in a pseudo-terminal, with pexpect.

Each test starts the real program (``python -m backgammon.cli play``, through
``tests/pty_harness.py``) in a temporary folder, with ``NO_COLOR=1`` and ``TERM=dumb`` so the
output is plain text, ``--delay 0``, and scripted (``--dice``) or seeded (``--seed``) dice, then types at its prompts. Two people at
one keyboard (``--opponent human``) give full control of both sides; one test plays the bot.
The rules exercised are cited (R4, R11, R29, R31, R33, R42, R46).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.pty_harness import TIMEOUT, Terminal, assert_clean


class Player(Terminal):
    """The program in a pty, and a person typing at it."""

    COMMAND = "play"


def test_hot_seat_game(tmp_path: Path) -> None:
    """Two people: notation, undo before confirming (R42), a list number, an illegal and an
    ambiguous play, a hit, a double and a take, a redouble and a pass (R29)."""
    p = Player(["--opponent", "human", "--dice", "31,43,21,64,55"], tmp_path)
    # R4: X throws 3, O throws 1: X opens with 3-1
    before = p.answer("X: play 3-1 > ", "8/5 6/5")
    assert "Opening roll: X 3, O 1" in before and "X goes first, playing 3-1." in before
    assert "| X           O    |   | O              X |   |" in before  # the initial board
    out = p.answer("X: Enter to confirm 8/5 6/5, or undo > ", "undo")
    assert "Tentative: 8/5 6/5" in out
    assert "| O           X    |   | X  X           O |   |" in out  # the board after the play
    out = p.answer("X: play 3-1 > ", "list")
    assert "Taken back: 8/5 6/5." in out
    out = p.answer("X: play 3-1 > ", "9")
    numbers = dict(re.findall(r"(\d+)\. (\d+/\d+(?: \d+/\d+)?)", out))
    assert numbers["9"] == "8/5 6/5" and numbers["16"] == "8/7 6/3" and "16 legal plays" in out
    p.answer("X: Enter to confirm 8/5 6/5, or undo > ", "")
    # O may double, so O is asked before rolling; O's numbering is shown now
    out = p.answer("O: Enter to roll, or double > ", "")
    assert "X plays 8/5 6/5." in out
    assert "+12-11-10--9--8--7-+---+-6--5--4--3--2--1-+---+  O (on roll)" in out
    out = p.answer("O: play 4-3 > ", "6/2 6/2")
    assert "O rolls 4-3." in out
    out = p.answer("O: play 4-3 > ", "6/2 6/3")
    assert "Illegal" in out and "Legal plays of 4-3" in out
    p.answer("O: Enter to confirm 6/3 6/2, or undo > ", "done")
    # X: 2-1 from 24 to 21 can hit on 23 or on 22 -- ambiguous (R12)
    p.answer("X: Enter to roll, or double > ", "")
    p.answer("X: play 2-1 > ", "24/21")
    out = p.answer("X: play 2-1 > ", "24/23*/21")
    assert "Ambiguous" in out and "24/23*/21" in out and "24/22*/21" in out
    out = p.answer("X: Enter to confirm 24/23*/21, or undo > ", "")
    # O is on the bar; list, then a number
    out = p.answer("O: Enter to roll, or double > ", "")
    assert "1 on the bar" in out
    p.answer("O: play 6-4 > ", "list")
    p.answer("O: play 6-4 > ", "1")
    p.answer("O: Enter to confirm", "")
    # X doubles, O takes (R29)
    p.answer("X: Enter to roll, or double > ", "double")
    out = p.answer("O: X doubles to 2: take or pass? > ", "take")
    assert "X doubles to 2." in out
    out = p.answer("X: play 5-5 > ", "hint")
    assert "O takes: the cube is at 2, owned by O." in out
    out = p.answer("X: play 5-5 > ", "1")
    assert "the expert network's ranking of the" in out and "vs best" in out and "best play: win" in out
    p.answer("X: Enter to confirm", "")
    # O owns the cube and redoubles; X passes and loses 2 points (R29)
    p.answer("O: Enter to roll, or double > ", "double")
    out = p.answer("X: O doubles to 4: take or pass? > ", "pass")
    out = p.answer("Play another game? [Y/n] > ", "n")
    assert "X passes the double: O wins 2 points." in out
    assert "Score: X 0, O 2." in out
    assert p.finish() == 0
    assert_clean(p.text)


def test_bot_game_to_the_end(tmp_path: Path) -> None:
    """A whole money game against pubeval with seeded dice, to the last checker borne off:
    the person plays pubeval's choice each turn (read from the Position ID on the screen),
    typed in notation; the bot's rolls, plays and cube actions are shown; the result and the
    score come at the end (R21-R23)."""
    from backgammon import Position
    from backgammon.bots import load

    adviser = load("pubeval")
    p = Player(["--opponent", "pubeval", "--seed", "5"], tmp_path)
    position = ""
    plays = 0
    for _ in range(600):
        p.child.expect(r"\n([^\r\n]*) > ", timeout=TIMEOUT)
        before = str(p.child.before)
        p.log.append(before + str(p.child.after))
        ids = re.findall(r"Position ID (\S+)", before)
        position = ids[-1] if ids else position
        line = p.child.match.group(1)
        if line.startswith("Play another game?"):
            p.child.sendline("n")
            break
        roll = re.search(r"You \(X\): play (\d)-(\d)\s*$", line)
        if "take or pass" in line:
            p.child.sendline("take")
        elif roll:
            dice = (int(roll[1]), int(roll[2]))
            move = adviser.choose_move(Position.from_position_id(position), dice)
            p.child.sendline(str(move))
            plays += 1
        else:  # roll, confirm, a forced play, no play
            p.child.sendline("")
    else:
        raise AssertionError("the game did not end")
    assert p.finish() == 0
    text = p.text
    assert_clean(text)
    assert plays > 10
    assert "pubeval rolls" in text and "pubeval plays" in text
    assert re.search(r"(You win|pubeval wins) (a single game|a gammon|a backgammon)", text), text[-2000:]
    assert "Final score: You" in text


def test_resign_save_and_resume(tmp_path: Path) -> None:
    """Against the bot: save, quit without saving again, resume with only --resume (the dice
    go on as scripted); resignations (R31) declined and accepted."""
    p = Player(["--opponent", "pubeval", "--dice", "31,62,44,53"], tmp_path)
    p.answer("You (X): play 3-1 > ", "8/5 6/5")
    p.answer("You (X): Enter to confirm 8/5 6/5, or undo > ", "")
    out = p.answer("You (X): Enter to roll, or double > ", "")
    assert "pubeval rolls 6-2." in out and "pubeval plays" in out
    out = p.answer("You (X): play 4-4 > ", "save game.json")
    position = re.findall(r"Position ID (\S+)", out)[-1]
    out = p.answer("You (X): play 4-4 > ", "quit")
    assert "Game saved to " in out and "game.json" in out
    p.answer("Save the game before quitting? [Y]es, [n]o, [c]ancel > ", "n")
    assert p.finish() == 0
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["format"] == "backgammon-table" and saved["terminal"]["options"]["opponent"] == "pubeval"

    q = Player(["--resume", "game.json"], tmp_path)
    out = q.answer("You (X): play 4-4 > ", "resign gammon")
    assert "Resuming a money game, against pubeval (bot)." in out
    assert f"Position ID {position}" in out
    out = q.answer("You (X): play 4-4 > ", "resign backgammon")
    assert "You offer to resign a gammon (2 points)." in out
    assert "pubeval declines the resignation: play goes on." in out
    out = q.answer("Play another game? [Y/n] > ", "no")
    assert "pubeval accepts the resignation." in out
    assert "pubeval wins by resignation (a backgammon): 3 points." in out
    assert "Score: You 0, pubeval 3." in out
    assert q.finish() == 0
    assert_clean(p.text + q.text)


def test_match_reaches_crawford(tmp_path: Path) -> None:
    """A 3-point match: a gammon resigned puts X at 2 (N - 1); the next game is the Crawford
    game, where `double` is refused (R33); then post-Crawford, and the match ends (R32)."""
    p = Player(["--opponent", "human", "--match", "3", "--dice", "31,43,65,21,53"], tmp_path)
    p.answer("X: play 3-1 > ", "8/5 6/5")
    p.answer("X: Enter to confirm", "")
    out = p.answer("O: Enter to roll, or double > ", "resign g")
    assert "3-point match, game 1 - Score: X 0, O 0" in out
    out = p.answer("X: O offers to resign a gammon (2 points): accept or decline? > ", "accept")
    out = p.answer("Press Enter to start game 2 > ", "")
    assert "X wins by resignation (a gammon): 2 points." in out
    assert "Score: X 2, O 0 (match to 3)." in out
    assert "Next: game 2 - the Crawford game: nobody may double in it (R33)." in out
    # game 2: nobody may double, so both roll at once
    out = p.answer("X: play 4-3 > ", "double")
    assert "Game 2 - the Crawford game" in out and "Opening roll: X 4, O 3" in out
    out = p.answer("X: play 4-3 > ", "24/20 13/10")
    assert "No double now: nobody may double in the Crawford game (R33)" in out
    p.answer("X: Enter to confirm", "")
    out = p.answer("O: play 6-5 > ", "double")
    assert "(Crawford game: no doubling)" in out
    out = p.answer("O: play 6-5 > ", "24/13")
    assert "No double now: nobody may double in the Crawford game (R33)" in out
    p.answer("O: Enter to confirm", "")
    p.answer("X: play 2-1 > ", "resign")
    out = p.answer("O: X offers to resign a single game (1 point): accept or decline? > ", "a")
    out = p.answer("Press Enter to start game 3 > ", "")
    assert "Score: X 2, O 1 (match to 3)." in out
    # game 3 is post-Crawford: doubling is back
    out = p.answer("X: play 5-3 > ", "resign backgammon")
    assert "3-point match, game 3 (post-Crawford)" in out
    out = p.answer("accept or decline? > ", "accept")
    assert p.finish() == 0
    out = p.text
    assert "O wins by resignation (a backgammon): 3 points." in out
    assert "It counts 2 in the match" in out
    assert "O wins the 3-point match 3-2!" in out
    assert_clean(out)


def test_ctrl_d_saves_and_exits_cleanly(tmp_path: Path) -> None:
    """End of input mid-game: the game is saved to ./backgammon-autosave.json, the path is
    printed, the exit status is 0, and the save resumes."""
    p = Player(["--opponent", "human", "--dice", "31,43"], tmp_path)
    p.answer("X: play 3-1 > ", "8/5 6/5")
    p.answer("X: Enter to confirm", "")
    p.wait("O: Enter to roll, or double > ")
    p.child.sendeof()
    assert p.finish() == 0
    text = p.text
    assert_clean(text)
    assert "End of input." in text and "Game saved to " in text
    autosave = tmp_path / "backgammon-autosave.json"
    assert str(autosave.resolve()) in text.replace("\n", "")
    q = Player(["--resume", str(autosave)], tmp_path)
    q.answer("O: Enter to roll, or double > ", "")
    out = q.answer("O: play 4-3 > ", "quit")
    assert "O rolls 4-3." in out
    q.answer("Save the game before quitting? [Y]es, [n]o, [c]ancel > ", "c")
    q.answer("O: play 4-3 > ", "quit")
    q.answer("[c]ancel > ", "")  # yes: save (to the file resumed) and quit
    assert q.finish() == 0
    assert "Going on with the game." in q.text
    assert "Game saved to " in q.text and "--resume" in q.text
    assert not (tmp_path / "backgammon-save.json").exists()
    assert_clean(q.text)


def test_ctrl_c_saves_and_exits_130(tmp_path: Path) -> None:
    """Ctrl-C: saved first (to $XDG_STATE_HOME when set), no traceback, exit status 130."""
    state = tmp_path / "state"
    p = Player(["--opponent", "human", "--dice", "31"], tmp_path, env={"XDG_STATE_HOME": str(state)})
    p.wait("X: play 3-1 > ")
    p.child.sendintr()
    assert p.finish() == 130
    assert_clean(p.text)
    assert "Interrupted." in p.text
    assert (state / "backgammon" / "autosave.json").exists()


def test_corner_option_and_bad_input(tmp_path: Path) -> None:
    """--corner top-left puts X's home board top left (R46); junk input gets a message and
    the prompt again."""
    (tmp_path / "a-file").write_text("not a folder")
    p = Player(["--opponent", "human", "--corner", "top-left", "--dice", "31"], tmp_path)
    out = p.answer("X: play 3-1 > ", "frobnicate")
    assert "+---+-1--2--3--4--5--6-+---+-7--8--9-10-11-12-+" in out
    for junk in (
        "take",
        "99",
        "24/",
        "bar/22*",
        "accept",
        "\x01\x02",
        "resign quadruple",
        "save a-file/x.json",
    ):
        p.answer("X: play 3-1 > ", junk)
    p.answer("X: play 3-1 > ", "quit")
    out = p.text
    assert "'frobnicate' is not a command" in out
    assert "`take` is not possible now: no double has been offered" in out
    assert "There is no play number 99: choose 1-16" in out
    assert "Not a play:" in out
    assert "resign single, gammon or backgammon" in out
    assert "Not saved:" in out
    p.answer("[c]ancel > ", "n")
    assert p.finish() == 0
    assert_clean(p.text)


def test_save_asks_before_replacing_and_refuses_devices(tmp_path: Path) -> None:
    """`save FILE` on an existing file asks first; a device is refused and left as it is."""
    (tmp_path / "mine.json").write_text("keep me")
    p = Player(["--opponent", "human", "--dice", "31"], tmp_path)
    p.answer("X: play 3-1 > ", "save mine.json")
    p.answer("mine.json exists: overwrite it? [y/N] > ", "n")
    out = p.answer("X: play 3-1 > ", "save /dev/full")
    assert "Not saved." in out
    out = p.answer("X: play 3-1 > ", "save mine.json")
    assert "Not saved: cannot save to '/dev/full': it is not a regular file" in out.replace("\n", "")
    assert (tmp_path / "mine.json").read_text() == "keep me"
    p.answer("mine.json exists: overwrite it? [y/N] > ", "y")
    p.answer("X: play 3-1 > ", "quit")
    p.answer("[c]ancel > ", "n")
    assert p.finish() == 0
    assert "Game saved to " in p.text and (tmp_path / "mine.json").read_text() != "keep me"
    assert_clean(p.text)
