"""Regenerate tests/data/xgid_gnubg.json by driving GNU Backgammon.

For each XGID below, a fresh ``gnubg -t -q -r`` (HOME in a scratch folder) reads on stdin::

    set player 0 human
    set player 1 human
    new game
    set xgid XGID=...
    [double]
    show board

and we keep the last ``Position ID`` and ``Match ID`` it prints. This script builds its XGID
strings itself (it does not use ``backgammon.xgid``), so the table is an independent oracle.

Two facts about gnubg 1.07 shape the table (see the "notes" in the JSON):

* ``set xgid`` puts the XGID's bottom player as gnubg's player 1. When the top player is on
  roll it then asks whether to swap players so the player on roll sits at the bottom, and with
  stdin not a terminal the answer is always yes. Those rows have ``gnubg_swapped_players``:
  gnubg's Match ID is then the XGID's state with players 0 and 1 exchanged.
* ``set matchid`` (which ``set xgid`` uses) refuses a pending double and steps back to before
  it. So for a ``D`` XGID we give gnubg the same XGID with dice ``00`` and then the ``double``
  command, which leaves gnubg in the genuine doubled state. ``commands`` records this.

Usage: python tests/oracle/make_xgid_table.py [path/to/gnubg]
gnubg is GPL: it runs here as a separate program and nothing of it is copied.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

GNUBG = sys.argv[1] if len(sys.argv) > 1 else "/usr/games/gnubg"
OUT = Path(__file__).resolve().parent.parent / "data" / "xgid_gnubg.json"

Board = list[int]  # 25 counts from the side's own view: index i = point i + 1, 24 = bar

START: Board = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5] + [0] * 10 + [2, 0]


def board(points: dict[int, int]) -> Board:
    """A side from {point: count}; point 25 is the bar."""
    b = [0] * 25
    for p, n in points.items():
        b[p - 1] = n
    return b


def position_text(bottom: Board, top: Board) -> str:
    """The 26-character XGID position: char i = bottom's point i, 25 bottom bar, 0 top bar."""
    chars = ["-"] * 26
    for i, n in enumerate(bottom):
        if n:
            chars[i + 1] = chr(ord("A") + n - 1)
    for i, n in enumerate(top):
        if n:
            assert chars[24 - i] == "-", "both colours on a point"
            chars[24 - i] = chr(ord("a") + n - 1)
    return "".join(chars)


def random_sides(rng: random.Random) -> tuple[Board, Board]:
    """A random legal board: 1-15 checkers a side, no point held by both colours."""
    while True:
        bottom = [0] * 25
        top = [0] * 25
        for _ in range(rng.randint(1, 15)):
            bottom[rng.choice(range(25)) if rng.random() < 0.9 else 24] += 1
        for _ in range(rng.randint(1, 15)):
            i = rng.choice(range(25))
            # top's point i + 1 is bottom's point 24 - i
            if i < 24 and bottom[23 - i]:
                continue
            top[i] += 1
        if sum(top) and all(n <= 15 for n in bottom + top):
            return bottom, top


MID_A = (
    board({6: 4, 8: 2, 13: 4, 21: 2, 24: 1, 25: 2}),
    board({5: 2, 6: 3, 7: 2, 13: 3, 20: 2, 25: 1}),
)
MID_B = (
    board({1: 2, 2: 2, 3: 3, 4: 2, 5: 2, 6: 2}),  # bottom bearing off, 13 left
    board({13: 2, 15: 3, 16: 3, 17: 2, 18: 2}),
)
BACKGAME = (
    board({2: 2, 3: 2, 4: 3, 5: 3, 6: 3, 7: 2}),
    board({1: 3, 3: 2, 9: 2, 10: 2, 11: 2, 13: 2, 25: 1}),
)
LAST_CHECKERS = (board({1: 1}), board({2: 1, 3: 1}))


def xgid(
    sides: tuple[Board, Board],
    cube: int = 0,
    cube_pos: int = 0,
    turn: int = 1,
    dice: str = "00",
    score_bottom: int = 0,
    score_top: int = 0,
    rules: int = 0,
    length: int = 0,
    max_cube: int = 10,
) -> str:
    bottom, top = sides
    return "XGID=" + ":".join(
        str(f)
        for f in (
            position_text(bottom, top),
            cube,
            cube_pos,
            turn,
            dice,
            score_bottom,
            score_top,
            rules,
            length,
            max_cube,
        )
    )


def cases() -> list[tuple[str, str]]:
    s = (START, START)
    out: list[tuple[str, str]] = [
        # money play
        (xgid(s), "money, start, bottom to roll, Jacoby off"),
        (xgid(s, turn=-1), "money, start, top to roll"),
        (xgid(s, dice="31", rules=1), "money, bottom rolled 31, Jacoby on"),
        (xgid(s, turn=-1, dice="64", rules=1), "money, top rolled 64, Jacoby on"),
        (xgid(s, turn=1, dice="13"), "money, dice written low die first"),
        (xgid(MID_A, cube=1, cube_pos=1, rules=2), "money, bottom owns 2-cube, beavers"),
        (
            xgid(MID_A, cube=2, cube_pos=-1, turn=-1, dice="55", rules=3),
            "money, top owns 4-cube, Jacoby+beaver",
        ),
        (xgid(MID_A, cube=1, cube_pos=0, turn=1, dice="62"), "money, centred 2-cube"),
        (xgid(MID_B, cube=6, cube_pos=1, turn=1, dice="44"), "money, bottom owns 64-cube"),
        (
            xgid(MID_B, cube=3, cube_pos=-1, turn=-1, score_bottom=3, score_top=5, rules=1),
            "money with session score",
        ),
        (xgid(BACKGAME, cube=1, cube_pos=-1, turn=1, dice="21"), "money, bottom on roll, top owns cube"),
        (xgid(LAST_CHECKERS, turn=1, dice="61"), "money, last checkers"),
        (xgid(LAST_CHECKERS, turn=-1, dice="66", max_cube=8), "money, max cube 8"),
        # matches
        (xgid(s, dice="52", length=7), "7-point match, start, bottom rolled 52"),
        (
            xgid(s, cube=1, cube_pos=-1, turn=-1, score_bottom=2, score_top=3, length=7),
            "7-pt 2-3, top owns 2, top to roll",
        ),
        (
            xgid(MID_A, cube=1, cube_pos=1, turn=-1, dice="43", score_bottom=1, score_top=4, length=7),
            "7-pt, bottom owns, top rolled",
        ),
        (
            xgid(MID_A, turn=1, dice="66", score_bottom=4, score_top=2, rules=1, length=5),
            "5-pt Crawford game, bottom leads",
        ),
        (
            xgid(MID_B, turn=-1, dice="12", score_bottom=2, score_top=4, rules=1, length=5),
            "5-pt Crawford game, top leads, dice 12",
        ),
        (xgid(MID_B, turn=1, score_bottom=4, score_top=3, length=5), "5-pt post-Crawford, no dice"),
        (
            xgid(BACKGAME, cube=1, cube_pos=-1, turn=1, dice="53", score_bottom=10, score_top=7, length=11),
            "11-pt post-Crawford, trailer owns",
        ),
        (
            xgid(BACKGAME, cube=2, cube_pos=1, turn=-1, score_bottom=8, score_top=8, length=9),
            "9-pt DMP score, 4-cube",
        ),
        (xgid(s, dice="65", length=1), "1-point match"),
        (
            xgid(MID_A, cube=3, cube_pos=-1, turn=1, dice="22", score_bottom=13, score_top=20, length=25),
            "25-pt match, 8-cube",
        ),
        (
            xgid(LAST_CHECKERS, turn=-1, dice="31", score_bottom=60, score_top=63, length=64),
            "64-pt match (gnubg's longest)",
        ),
        (
            xgid(
                MID_A, cube=0, cube_pos=0, turn=-1, dice="11", score_bottom=0, score_top=6, rules=1, length=7
            ),
            "7-pt Crawford, top on 6",
        ),
        # doubles offered (via the double command)
        (xgid(s, dice="D"), "money, bottom doubles"),
        (xgid(s, turn=-1, dice="D", rules=1), "money, Jacoby, top doubles"),
        (xgid(MID_A, cube=1, cube_pos=1, dice="D", rules=2), "money, bottom redoubles to 4"),
        (
            xgid(MID_A, cube=1, cube_pos=-1, turn=-1, dice="D", score_bottom=2, score_top=3, length=7),
            "7-pt, top redoubles",
        ),
        (xgid(BACKGAME, turn=1, dice="D", score_bottom=3, score_top=1, length=9), "9-pt, bottom doubles"),
        (
            xgid(MID_B, cube=2, cube_pos=-1, turn=-1, dice="D", score_bottom=4, score_top=0, length=11),
            "11-pt, top redoubles to 8",
        ),
    ]
    rng = random.Random(20240607)
    for k in range(14):
        sides = random_sides(rng)
        length = rng.choice([0, 0, 3, 5, 7, 13])
        turn = rng.choice([1, -1])
        cube = rng.choice([0, 0, 1, 2, 3])
        cube_pos = 0 if cube == 0 else rng.choice([1, 0, -1])
        d = rng.choice(["00", f"{rng.randint(1, 6)}{rng.randint(1, 6)}"])
        if length:
            sb, st = rng.randrange(length), rng.randrange(length)
            rules = 1 if length - 1 in (sb, st) and rng.random() < 0.5 and sb != st else 0
        else:
            sb = st = 0
            rules = rng.randrange(4)
        out.append(
            (
                xgid(sides, cube, cube_pos, turn, d, sb, st, rules, length),
                f"random position {k}",
            )
        )
    return out


ID_RE = re.compile(r"Position ID: (\S{14})\s+Match ID\s*: (\S{12})")


def run_gnubg(commands: list[str]) -> tuple[str, str]:
    script = "\n".join(["set player 0 human", "set player 1 human", "new game", *commands, "show board", ""])
    with tempfile.TemporaryDirectory() as home:
        proc = subprocess.run(
            [GNUBG, "-t", "-q", "-r"],
            input=script,
            capture_output=True,
            text=True,
            env={"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C"},
            timeout=60,
            check=False,
        )
    output = proc.stdout + proc.stderr
    if "Not a valid XGID" in output or "cannot handle" in output or "You can't" in output:
        raise SystemExit(f"gnubg refused {commands}:\n{output}")
    found: list[tuple[str, str]] = ID_RE.findall(output)
    if not found:
        raise SystemExit(f"no IDs in gnubg output for {commands}:\n{output}")
    return found[-1]


def main() -> None:
    version = subprocess.run([GNUBG, "--version"], capture_output=True, text=True, check=False)
    rows = []
    for text, comment in cases():
        fields = text[5:].split(":")
        doubled = fields[4] == "D"
        commands = [f"set xgid {text}"]
        if doubled:
            fields[4] = "00"
            commands = [f"set xgid XGID={':'.join(fields)}", "double"]
        pid, mid = run_gnubg(commands)
        rows.append(
            {
                "xgid": text,
                "commands": commands,
                "position_id": pid,
                "match_id": mid,
                "gnubg_swapped_players": fields[3] == "-1",
                "comment": comment,
            }
        )
        print(f"{text}  {pid}  {mid}  {comment}")
    table = {
        "generator": "tests/oracle/make_xgid_table.py",
        "gnubg": version.stdout.splitlines()[0] if version.stdout else "unknown",
        "notes": [
            "position_id / match_id: the last IDs gnubg printed after the commands.",
            (
                "gnubg_swapped_players: the top player was on roll, so gnubg swapped players "
                "(its answer to its own prompt when stdin is not a terminal); the Match ID is "
                "then the XGID's state with players 0 and 1 exchanged. The Position ID is always "
                "seen from the player on roll (the doubler while a double is offered)."
            ),
            (
                "A 'D' XGID is given to gnubg with dice 00 followed by the double command, since "
                "set matchid refuses pending doubles."
            ),
        ],
        "cases": rows,
    }
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {len(rows)} cases to {OUT}")


if __name__ == "__main__":
    main()
