"""``backgammon chouette`` driven as people would: in a pseudo-terminal, with pexpect.

As in ``test_terminal_pty.py`` (both through ``tests/pty_harness.py``), the real program
runs in a temporary folder with ``NO_COLOR=1``, ``TERM=dumb`` (plain text), ``--delay 0``
and scripted dice (``--dice``, then ``--seed``), and the test types at its prompts. The
rules exercised are cited (R35-R41 for the chouette, R31 resignations, R42 undo before
confirming).
"""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from backgammon.terminal import savefile
from tests.pty_harness import Terminal, assert_clean


class Table(Terminal):
    """The program in a pty, and the people at its keyboard."""

    COMMAND = "chouette"


def seats(text: str) -> dict[str, str]:
    """The last seats table in ``text``: seat -> player."""
    rows = re.findall(r"^  (box|captain|\d+(?:st|nd|rd|th)) +(\S+) ", text, re.MULTILINE)
    out: dict[str, str] = {}
    for seat, player in rows:
        if seat == "box":
            out = {}
        out[seat] = player
    return out


def ledger(text: str, title: str) -> dict[str, int]:
    """The ledger printed under the last ``title`` in ``text``."""
    block = text[text.rindex(title) :].split("\n")[1:]
    out: dict[str, int] = {}
    for line in block:
        m = re.match(r"^  (\S+) +([+-]\d+)$", line)
        if not m:
            break
        out[m[1]] = int(m[2])
    return out


# Roll-off (R35), in the order the players are given: Ann 6, Bob 5, Cy 4, pubeval 2.
# Game 1: opening 3-1 (box Ann, captain Bob); Bob 4-2; Ann 6-5; pubeval 5-3; Ann 2-1.
# Game 2: opening 5-2 (box Bob, captain Cy); Cy 3-1; Bob 6-2.
# Game 3: opening 2-6 (box Cy, captain pubeval); Cy 4-3.
# Game 4: opening 4-1 (box pubeval, captain Ann).
DICE = "6,5,4,2, 31,42,65,53,21, 52,31,62, 26,43, 41"


def test_chouette_three_games_at_one_keyboard(tmp_path: Path) -> None:
    """Three people and pubeval: the roll-off seats them (R35); a team double proposed by
    the captain gets a person's vote and the bot's refusal (R39); the box doubles and one
    person takes while another passes (R40); resignations per stake (R31); a bot captain
    moves by itself; the team's double agreed by all and passed by the box; the seats rotate
    after every game (R37, R38) and the ledger is shown (R41); bad input gets a message and
    the prompt again; Ctrl-D saves and exits cleanly, and the save resumes."""
    t = Table(
        ["--human", "Ann", "--human", "Bob", "--players", "Cy,bot:pubeval", "--dice", DICE, "--seed", "1"],
        tmp_path,
    )

    # -- game 1: Ann in the box, Bob captain, Cy and pubeval behind
    out = t.answer("Ann (box): play 3-1 > ", "8/5 6/5")
    assert "Roll-off for the seats (R35): Ann 6, Bob 5, Cy 4, pubeval 2." in out
    assert "Ann is in the box; Bob is the captain; the line behind: Cy, pubeval." in out
    assert "Opening roll: Ann (box) 3, Bob (captain) 1." in out
    assert seats(out) == {"box": "Ann", "captain": "Bob", "2nd": "Cy", "3rd": "pubeval"}
    out = t.answer("Ann (box): Enter to confirm 8/5 6/5, or undo > ", "undo")  # R42
    assert "Tentative: 8/5 6/5" in out
    t.answer("Ann (box): play 3-1 > ", "8/5 6/5")
    t.answer("Ann (box): Enter to confirm 8/5 6/5, or undo > ", "")
    # the team may double: the captain is asked before rolling; bad input first
    out = t.answer("Bob (captain): Enter to roll, or double [NAME] > ", "frobnicate")
    assert "Ann (box) plays 8/5 6/5." in out
    out = t.answer("Bob (captain): Enter to roll, or double [NAME] > ", "double Zed")
    assert "'frobnicate' is not a command" in out
    out = t.answer("Bob (captain): Enter to roll, or double [NAME] > ", "take")
    assert "'Zed' is not a player's name" in out
    out = t.answer("Bob (captain): Enter to roll, or double [NAME] > ", "double")
    assert "`take` is not possible now: no double has been offered" in out
    # R39: Cy is asked for his vote; pubeval votes through the Bot interface and refuses
    out = t.answer(
        "Cy (team): Bob proposes a team double, your stake 1 to 2 (R39): agree or refuse? > ", "maybe"
    )
    assert "Bob proposes that the team doubles: every member must agree (R39)." in out
    t.answer("agree or refuse? > ", "agree")
    out = t.answer("Bob (captain): Enter to roll, or double [NAME] > ", "")
    assert "Cy agrees to the team double." in out
    assert "pubeval refuses: the team does not double (R39)." in out
    t.answer("Bob (captain): play 4-2 > ", "8/4 6/4")
    t.answer("Bob (captain): Enter to confirm", "")
    # R40: the box doubles; Bob takes, Cy passes, pubeval answers for itself
    t.answer("Ann (box): Enter to roll, or double > ", "double")
    out = t.answer("Bob (captain): Ann (box) doubles, your stake 1 to 2 (R40): take or pass? > ", "take")
    assert "Ann (box) doubles the team: each member takes or passes alone (R40)." in out
    out = t.answer("Cy (team): Ann (box) doubles, your stake 1 to 2 (R40): take or pass? > ", "pass")
    assert "Bob takes: their stake is now 2, and the cube is theirs." in out
    # Ann may not double any more (every member owns their cube): she rolls at once
    out = t.answer("Ann (box): play 6-5 > ", "resign")
    assert "Cy passes and is out of this game (R40)." in out
    assert "Cy pays Ann 1 point (a passed double)." in out
    assert "pubeval takes: their stake is now 2, and the cube is theirs." in out
    assert "Ann (box) rolls 6-5." in out
    assert re.search(r"captain +Bob +human +2 +own +in ", out)
    assert re.search(r"2nd +Cy +human +1 +middle +out \(lost 1, passed\) ", out)
    # R31: the box resigns a single game to each member; Bob accepts, pubeval declines
    out = t.answer(
        "Bob (captain): Ann (box) offers to resign a single game (2 points on your stake): accept or decline? > ",
        "accept",
    )
    assert "Ann (box) offers every member in the game to resign a single game (R31)." in out
    out = t.answer("Ann (box): play 6-5 > ", "24/13")
    assert "Ann pays Bob 2 points (a resignation)." in out
    assert "pubeval declines the resignation: play goes on." in out
    assert "Bob is out of this game: pubeval moves the team's checkers for the rest of it (R36)." in out
    t.answer("Ann (box): Enter to confirm 24/13, or undo > ", "")
    # pubeval, the acting captain, rolls and moves by itself
    out = t.answer("Ann (box): play 2-1 > ", "resign backgammon")
    assert "Ann (box) plays 24/13." in out
    assert "pubeval (acting captain) rolls 5-3." in out and "pubeval (acting captain) plays " in out
    out = t.answer("Play another game? [Y/n] > ", "")
    assert "pubeval accepts the resignation." in out
    assert "Ann pays pubeval 6 points (a resignation)." in out
    assert "Game 1 is over: the team won the captain's stake." in out
    assert ledger(out, "Ledger after game 1") == {"pubeval": 6, "Bob": 2, "Cy": -1, "Ann": -7}

    # -- game 2: R38, Bob into the box, Cy captain, Ann to the end of the line
    out = t.answer("Bob (box): play 5-2 > ", "13/8 13/11")
    assert (
        "Rotation (R38, the team won): Bob goes into the box; Cy is the new captain; "
        "Ann goes to the end of the line." in out
    )
    assert "Bob is in the box; Cy is the captain; the line behind: pubeval, Ann." in out
    assert seats(out) == {"box": "Bob", "captain": "Cy", "2nd": "pubeval", "3rd": "Ann"}
    t.answer("Bob (box): Enter to confirm", "")
    out = t.answer("Cy (captain): Enter to roll, or double [NAME] > ", "")
    t.answer("Cy (captain): play 3-1 > ", "8/5 6/5")
    t.answer("Cy (captain): Enter to confirm", "")
    # the box resigns a backgammon: pubeval accepts and leaves; Cy and Ann play on
    t.answer("Bob (box): Enter to roll, or double > ", "resign backgammon")
    t.answer(
        "Cy (captain): Bob (box) offers to resign a backgammon (3 points on your stake): accept or decline? > ",
        "decline",
    )
    out = t.answer("Ann (team): Bob (box) offers to resign a backgammon", "no")
    assert "pubeval accepts the resignation." in out and "Bob pays pubeval 3 points (a resignation)." in out
    t.answer("Bob (box): Enter to roll, or double > ", "")
    t.answer("Bob (box): play 6-2 > ", "1")
    t.answer("Bob (box): Enter to confirm", "")
    # R39: the captain proposes, Ann agrees, the box passes: each member in the game is paid
    t.answer("Cy (captain): Enter to roll, or double [NAME] > ", "double")
    t.answer("Ann (team): Cy proposes a team double, your stake 1 to 2 (R39): agree or refuse? > ", "agree")
    out = t.answer("Bob (box): the team doubles, every stake 1 to 2: take or pass? > ", "pass")
    assert "The team doubles Bob (box) on the stakes of Cy, Ann: Bob must take or pass." in out
    out = t.answer("Play another game? [Y/n] > ", "y")
    assert "Bob (box) passes the team's double." in out
    assert (
        "Bob pays Cy 1 point (a passed double)." in out and "Bob pays Ann 1 point (a passed double)." in out
    )
    assert ledger(out, "Ledger after game 2") == {"pubeval": 9, "Cy": 0, "Ann": -6, "Bob": -3}

    # -- game 3: R38, Cy into the box, pubeval captain (a bot captain moves by itself)
    out = t.answer("Cy (box): Enter to roll, or double > ", "double")
    assert (
        "Rotation (R38, the team won): Cy goes into the box; pubeval is the new captain; "
        "Bob goes to the end of the line." in out
    )
    assert "Opening roll: Cy (box) 2, pubeval (captain) 6." in out
    assert "pubeval (captain) plays " in out
    assert seats(out) == {"box": "Cy", "captain": "pubeval", "2nd": "Ann", "3rd": "Bob"}
    out = t.answer("Ann (team): Cy (box) doubles, your stake 1 to 2 (R40): take or pass? > ", "take")
    assert "pubeval takes: their stake is now 2" in out
    t.answer("Bob (team): Cy (box) doubles, your stake 1 to 2 (R40): take or pass? > ", "pass")
    out = t.answer("Cy (box): play 4-3 > ", "resign gammon")
    assert "Bob pays Cy 1 point (a passed double)." in out
    out = t.answer(
        "Ann (team): Cy (box) offers to resign a gammon (4 points on your stake): accept or decline? > ",
        "accept",
    )
    assert "pubeval declines the resignation: play goes on." in out  # it could still win a backgammon
    out = t.answer("Cy (box): play 4-3 > ", "resign backgammon")
    assert "Ann accepts the resignation." in out and "Cy pays Ann 4 points (a resignation)." in out
    out = t.wait("Play another game? [Y/n] > ")
    assert "pubeval accepts the resignation." in out
    assert "Game 3 is over: the team won the captain's stake." in out
    assert ledger(out, "Ledger after game 3") == {"pubeval": 15, "Ann": -2, "Bob": -4, "Cy": -9}
    t.child.sendline("yes")

    # -- game 4: R38, pubeval into the box, Ann captain; Ctrl-D at her prompt
    out = t.wait("Ann (captain): Enter to roll, or double [NAME] > ")
    assert (
        "Rotation (R38, the team won): pubeval goes into the box; Ann is the new captain; "
        "Cy goes to the end of the line." in out
    )
    assert seats(out) == {"box": "pubeval", "captain": "Ann", "2nd": "Bob", "3rd": "Cy"}
    assert "pubeval (box) plays " in out
    t.child.sendeof()
    assert t.finish() == 0
    text = t.text
    assert_clean(text)
    assert "End of input." in text and "Chouette saved to " in text
    saved = tmp_path / "backgammon-chouette-autosave.json"
    again = savefile.load_chouette(saved)[1]
    assert again.game_number == 4 and again.box == "pubeval" and sum(again.ledger.values()) == 0
    assert json.loads(saved.read_text())["terminal"]["options"]["seats"][3] == ["pubeval", "pubeval"]

    # the save resumes where it stopped
    r = Table(["--resume", str(saved)], tmp_path)
    out = r.answer("Ann (captain): Enter to roll, or double [NAME] > ", "quit")
    assert "Resuming the chouette" in out and seats(out)["box"] == "pubeval"
    r.answer("Save the chouette before quitting? [Y]es, [n]o, [c]ancel > ", "n")
    assert r.finish() == 0
    assert_clean(r.text)


def test_all_bots_demo_ends_by_itself(tmp_path: Path) -> None:
    """Only bots, --games 3: three games are played without a keyboard, the seats rotate
    (R37/R38), and the final ledger sums to zero (R41)."""
    t = Table(
        ["--bot", "pubeval", "--bot", "random", "--bot", "pubeval", "--games", "3", "--seed", "3"], tmp_path
    )
    assert t.finish() == 0
    text = t.text
    assert_clean(text)
    assert "pubeval-2" in text  # the second pubeval is named apart
    for n in (1, 2, 3):
        assert f"Game {n} is over: the " in text
    assert "Game 4" not in text
    assert len(re.findall(r"Rotation \(R3[78]", text)) == 2
    final = ledger(text, "Final ledger after 3 games")
    assert sorted(final) == ["pubeval", "pubeval-2", "random"]
    assert sum(final.values()) == 0
    assert "Thanks for playing." in text


def test_ctrl_c_saves_and_exits_130(tmp_path: Path) -> None:
    """Ctrl-C at a prompt: saved first (to $XDG_STATE_HOME when set), no traceback, status 130."""
    state = tmp_path / "state"
    t = Table(["--players", "Ann,Bob,Cy", "--dice", "6,5,4,31"], tmp_path, env={"XDG_STATE_HOME": str(state)})
    t.wait("Ann (box): play 3-1 > ")
    t.child.sendintr()
    assert t.finish() == 130
    assert_clean(t.text)
    assert "Interrupted." in t.text
    assert savefile.load_chouette(state / "backgammon" / "chouette-autosave.json")[1].box == "Ann"


def _session(
    seats: tuple[tuple[str, str], ...], lines: Callable[[str], str], **options: Any
) -> tuple[Any, io.StringIO]:
    from backgammon.terminal.chouette import ChouetteOptions, ChouetteSession
    from backgammon.terminal.session import make_console

    out = io.StringIO()
    opts = ChouetteOptions(seats, delay=0, **options)
    session = ChouetteSession(opts, console=make_console("never", file=out, width=100), read_line=lines)
    return session, out


def test_a_person_behind_a_bot_captain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot captains and a person stands in the team: the person is asked before the bot
    rolls and may propose a double (the bot votes through the Bot interface and refuses, R39),
    and may resign their own stake, which the bot in the box accepts (R31)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BACKGAMMON_DEBUG", "1")
    typed = iter(["double", "resign backgammon"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(typed)

    seats = (("Ann", "human"), ("pubeval", "pubeval"), ("random", "random"))
    # roll-off: Ann 2, pubeval 5, random 6; the box (random) opens with 3-1
    session, out = _session(seats, read, games=1, seed=4, dice_script=(2, 5, 6, 3, 1))
    assert session.run() == 0
    text = out.getvalue()
    assert prompts[:2] == ["Ann (team): Enter for pubeval to roll, or double > "] * 2
    assert "random is in the box; pubeval is the captain; the line behind: Ann." in text
    assert "Ann proposes that the team doubles: every member must agree (R39)." in text
    assert "pubeval refuses: the team does not double (R39)." in text
    assert "Ann offers to resign a backgammon on their own stake (R31)." in text
    assert (
        "random (box) accepts the resignation." in text
        and "Ann pays random 3 points (a resignation)." in text
    )
    assert "Game 1 is over" in text and "Final ledger after 1 game (it sums to 0):" in text
    assert sum(session.chouette.ledger.values()) == 0


WORDS = [
    *([""] * 4),
    *[
        "roll",
        "double",
        "take",
        "pass",
        "beaver",
        "agree",
        "refuse",
        "accept",
        "decline",
        "resign",
        "list",
        "hint",
        "undo",
        "done",
        "status",
        "board",
        "help",
    ],
    *[
        "y",
        "n",
        "c",
        "quit",
        "ok",
        "a",
        "p",
        "t",
        "r",
        "d",
        "1",
        "2",
        "3",
        "99",
        "0",
        "24/18",
        "bar/22*",
        "6/off",
        "13/7(2)",
        "garbage",
    ],
    "double Bob",
    "double Ann",
    "double pubeval",
    "resign gammon",
    "resign backgammon Bob",
    "resign Ann",
    "resign x",
    "hint 0",
    "save /nonexistent/folder/x.json",
    "\x00\x01",
]


@pytest.mark.parametrize("seed", range(12))
def test_nothing_typed_crashes(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random commands and junk at every prompt, with several seatings and rule sets: every
    one gets an answer, no exception escapes (BACKGAMMON_DEBUG re-raises them), and the
    ledger always sums to zero."""
    from backgammon.rules import Rules

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BACKGAMMON_DEBUG", "1")
    rng = random.Random(seed)
    count = 0

    def read(prompt: str) -> str:
        nonlocal count
        count += 1
        if count > 300:
            raise EOFError
        if rng.random() < 0.05:
            return "".join(chr(rng.randrange(32, 0x250)) for _ in range(rng.randrange(12)))
        return rng.choice(WORDS)

    seatings = [
        (("Ann", "human"), ("Bob", "human"), ("Cy", "human")),
        (("Ann", "human"), ("Bob", "human"), ("pubeval", "pubeval"), ("random", "random")),
        (("Ann", "human"), ("pubeval", "pubeval"), ("random", "random")),
    ]
    rules = [
        Rules(),
        Rules(beavers=True, jacoby=True, automatic_doubles=True, cube_limit=8),
        Rules(opening_reroll=True),
    ]
    session, out = _session(seatings[seed % 3], read, seed=seed, rules=rules[seed % 3], autosave="auto.json")
    assert session.run() == 0, out.getvalue()[-3000:]
    assert sum(session.chouette.ledger.values()) == 0
    assert "Traceback" not in out.getvalue()
