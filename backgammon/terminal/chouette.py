"""``backgammon chouette``: a chouette (R35–R41) at one keyboard, people and bots together.

The session drives a :class:`backgammon.chouette.Chouette` only through its actions, so the
rules stay the library's: who is in the box, who captains, the line, every member's stake
and the ledger. Every person sits at the same keyboard; each prompt starts with the name
(and seat) of who must answer it:

* the box (a person) rolls, doubles the whole team (R40), plays, resigns;
* the captain (a person) rolls and plays for the team (R36), and may propose a team double;
  any other person in the team proposes one with ``double NAME`` (R39);
* a proposed team double asks every other member in the game, in line order, for their vote
  (``agree`` / ``refuse``, R39); a double from the box asks every member in the game for
  their own ``take`` / ``pass`` (R40);
* bots act by themselves through the :class:`~backgammon.bots.Bot` interface, each seeing
  its own stake (:meth:`~backgammon.chouette.Chouette.match_state`): a bot in the box or as
  captain rolls and plays; a bot in the team votes with ``should_double``, answers a box
  double with ``respond_to_double``, and proposes a team double itself (once a turn).

After every game the seats, stakes and the ledger are shown, and the seats rotate (R37,
R38). Plays are typed as in ``backgammon play`` (notation or a number from ``list``, Enter
or ``done`` to confirm, ``undo`` before that, R42), and so are ``help``, ``save``, ``quit``;
end of input (Ctrl-D), Ctrl-C and unexpected errors save the chouette first
(:func:`default_autosave_path`). Anything typed that cannot be done gets a short message and
the prompt again.

This module does not import :mod:`rich` at import time (the command line builds its
parser from :func:`add_chouette_arguments` without it); the session imports the drawing
code when it starts.

>>> import io
>>> from backgammon.terminal.session import make_console
>>> out = io.StringIO()
>>> options = ChouetteOptions((("Ann", "human"), ("p", "pubeval"), ("r", "random")), delay=0, games=1)
>>> lines = iter(["8/5 6/5", "undo", "8/5 6/5", "", "resign backgammon"])
>>> session = ChouetteSession(options, dice=SessionDice((6, 5, 4, 3, 1), seed=1),
...                           console=make_console("never", file=out, width=100),
...                           read_line=lambda prompt: next(lines))
>>> session.run()
0
>>> text = out.getvalue()
>>> "Ann is in the box; p is the captain; the line behind: r." in text
True
>>> "p accepts the resignation." in text, "r accepts the resignation." in text
(True, True)
>>> sum(session.chouette.ledger.values())
0
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ..chouette import (
    Accept,
    AutomaticDouble,
    Beaver,
    BoxDouble,
    Chouette,
    ChouetteAction,
    ChouetteEvent,
    ChouettePhase,
    Consent,
    Decline,
    GameOver,
    GameStart,
    NewCaptain,
    OpeningRoll,
    Pass,
    Payment,
    Play,
    ProposeDouble,
    Refuse,
    Resign,
    Roll,
    RollOff,
    Side,
    Take,
    TeamDouble,
)
from ..errors import BackgammonError
from ..events import ResultKind
from ..move import Move
from .dice import SessionDice
from .chouette_options import (
    DEFAULT_AUTOSAVE_NAME,
    DEFAULT_SAVE_NAME,
    GAME_ARGUMENTS,
    ChouetteOptions,
    add_chouette_arguments,
    default_autosave_path,
    default_save_path,
    display_changes,
    options_from_args,
    parse_players,
)
from .options import HUMAN, mirror_corner, rules_in_effect
from .prompts import LEVEL_NAMES, LEVELS, Prompter, Quit, adviser_name
from .savefile import load_chouette as load
from .savefile import save_chouette as save

if TYPE_CHECKING:
    from rich.console import Console

    from ..bots.base import Bot, CubeResponse
    from ..position import Position

__all__ = [
    "DEFAULT_AUTOSAVE_NAME",
    "DEFAULT_SAVE_NAME",
    "ChouetteOptions",
    "ChouetteSession",
    "add_chouette_arguments",
    "build_chouette_session",
    "default_autosave_path",
    "load",
    "options_from_args",
    "parse_players",
    "run",
    "save",
    "seat_table",
]

_A = ChouetteAction
_P = ChouettePhase
_KIND_TEXT = {
    ResultKind.SINGLE: "a single game",
    ResultKind.GAMMON: "a gammon",
    ResultKind.BACKGAMMON: "a backgammon",
    ResultKind.RESIGNED: "a resignation",
    ResultKind.PASSED: "a passed double",
}

def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` ... ``11th``.

    >>> [_ordinal(n) for n in (1, 2, 3, 4, 11, 12, 21)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '21st']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# -- the seats table ------------------------------------------------------------------------


def seat_table(chouette: Chouette, kinds: Mapping[str, str] | None = None) -> list[str]:
    """The seats as text lines: who is in the box, the captain and the line in order, what
    plays each (``kinds``: name to ``"human"`` or a bot's name), each member's stake (their
    cube's value and owner), whether they are in this game or out (and what they won or
    lost), and everyone's ledger.

    >>> from backgammon.dice import ScriptedDice
    >>> c = Chouette(["ann", "bob", "cy"], dice=ScriptedDice([4, 6, 2,  3, 1]))
    >>> c.roll(player="bob"); c.play("8/5 6/5", player="bob")
    >>> c.propose_double(player="ann"); c.consent(player="cy"); c.take(player="bob")
    >>> print("\\n".join(seat_table(c, {"cy": "pubeval"})))
      seat     player  plays    stake  cube   this game  ledger
      box      bob     human        -                        +0
      captain  ann     human        2  box's  in             +0
      2nd      cy      pubeval      2  box's  in             +0
    """
    kinds = kinds or {}
    over = chouette.is_over()
    rows = [("seat", "player", "plays", "stake", "cube", "this game", "ledger")]
    ledger = chouette.ledger
    box = chouette.box
    net = chouette.game_points
    rows.append(
        ("box", box, kinds.get(box, HUMAN), "-", "", f"{net[box]:+d}" if over else "", f"{ledger[box]:+d}")
    )
    stakes = chouette.stakes
    for i, member in enumerate(chouette.line):
        stake = stakes[member]
        seat = "captain" if i == 0 else _ordinal(i + 1)
        owner = "middle" if stake.owner is None else ("box's" if stake.owner == box else "own")
        if stake.result is None:
            status = "in, moves" if member == chouette.mover and member != chouette.captain else "in"
        elif over and stake.kind not in (ResultKind.PASSED, ResultKind.RESIGNED):
            status = f"{'won' if stake.result > 0 else 'lost'} {stake.result:+d}"
        else:
            what = "passed" if stake.kind is ResultKind.PASSED else "resigned"
            status = f"out: {what} {stake.result:+d}"
        rows.append(
            (seat, member, kinds.get(member, HUMAN), str(stake.cube), owner, status, f"{ledger[member]:+d}")
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    right = (3, 6)
    lines = []
    for row in rows:
        cells = [cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append(("  " + "  ".join(cells)).rstrip())
    return lines


# -- the session ------------------------------------------------------------------------------

_HELP = """\
Commands (each prompt starts with the name of who must answer; a word is enough: `r` for roll):
  Enter / roll        roll the dice
  double [NAME]       before the roll: the box doubles every member (R40); on the team's turn
                      a member proposes the team's double (R39): `double Cy` when Cy proposes
  24/18 13/11         a play in standard notation: bar/22*, 6/off, 13/7(2), 8/5*/1 ...
  3                   the play numbered 3 in `list`
  list / hint [N]     the legal plays, numbered / the expert network's ranking of them; at
                      a cube question, `hint` gives its advice
  Enter / done        confirm a play; until then `undo` takes it back (R42)
  agree / refuse      your vote on a team double another member proposed (R39)
  take / pass         answer a double: the box for every stake, each member alone for their
                      own stake (R40); `beaver` where the rules allow it (R30)
  resign [single|gammon|backgammon] [NAME]
                      the box resigns to every member; a team member (NAME) resigns their own
                      stake (R31)
  accept / decline    answer a resignation
  board / status      draw the board again / the seats, stakes and ledger
  save [FILE]         save the chouette (resume with: backgammon chouette --resume FILE)
  quit                stop (you are offered to save first)
  help                this text"""

_KNOWN = frozenset(
    [
        "roll",
        "r",
        "double",
        "d",
        "take",
        "t",
        "pass",
        "p",
        "drop",
        "beaver",
        "agree",
        "consent",
        "refuse",
        "accept",
        "a",
        "decline",
        "undo",
        "u",
        "done",
        "ok",
        "list",
        "l",
        "hint",
        "resign",
    ]
)


class ChouetteSession:
    """One run of ``backgammon chouette``.

    ``options`` say who plays and how; ``chouette`` and ``dice`` are given when a saved
    session is resumed (else made from the options: the constructor throws the roll-off).
    ``console``, ``read_line`` and ``sleep`` are the program's output, input and clock
    (replace them to drive a session in tests); ``save_path`` is where ``save`` writes when
    given no file name.
    """

    def __init__(
        self,
        options: ChouetteOptions,
        *,
        chouette: Chouette | None = None,
        dice: SessionDice | None = None,
        console: Console | None = None,
        read_line: Callable[[str], str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        save_path: str | os.PathLike[str] | None = None,
    ) -> None:
        from ..bots import load as load_bot
        from .session import make_console

        self.options = options
        self.console = console if console is not None else make_console(options.colour)
        # Reading input as `backgammon play` does; the names that library messages call
        # player 0 and player 1 are set to the box and the captain who moves before each play.
        self.prompts = Prompter(self.console, read_line if read_line is not None else input, ("X", "O"))
        self.sleep = sleep
        self.save_path = Path(save_path) if save_path is not None else None
        self.dice = dice if dice is not None else SessionDice(options.dice_script, options.seed)
        self.dice.on_script_end = self._script_ended
        self._resumed = chouette is not None
        self.chouette = (
            chouette if chouette is not None else Chouette(options.names, options.rules, dice=self.dice)
        )
        self.kinds = dict(options.seats)
        self.bots: dict[str, Bot] = {}
        for i, (name, kind) in enumerate(options.seats):
            if kind != HUMAN:
                self.bots[name] = load_bot(kind, seed=None if options.seed is None else options.seed + i)
        self._seen = len(self.chouette.events) if self._resumed else 0
        self._shown: int | None = None
        self._last_dice: tuple[int, int] | None = None
        self._bots_asked: set[tuple[int, int]] = set()
        self._humans_asked: set[tuple[int, int]] = set()

    # -- running ----------------------------------------------------------------------------

    def run(self) -> int:
        """Play until the games asked for are played, the players stop, or input ends;
        return the exit status (0, or 130 after Ctrl-C, 1 after an unexpected error)."""
        try:
            self._welcome()
            self._loop()
            return 0
        except Quit:
            return 0
        except EOFError:
            return self._stop("End of input.", 0)
        except KeyboardInterrupt:
            return self._stop("Interrupted.", 130)
        except Exception as exc:
            if os.environ.get("BACKGAMMON_DEBUG"):
                raise
            return self._stop(f"Unexpected error: {type(exc).__name__}: {exc}", 1)

    def _stop(self, why: str, status: int) -> int:
        try:
            self.console.print()
            self._say(why, style="bold red" if status == 1 else "bold")
        except (OSError, ValueError):
            pass
        self._autosave()
        return status

    def _welcome(self) -> None:
        c = self.chouette
        people = list(self.options.humans)
        bots = [
            f"{name} ({kind})" if name != kind else name for name, kind in self.options.seats if kind != HUMAN
        ]
        who = []
        if people:
            who.append(f"{', '.join(people)} at the keyboard")
        if bots:
            who.append(f"the bot{'s' if len(bots) > 1 else ''} {', '.join(bots)}")
        verb = "Resuming the chouette" if self._resumed else "Chouette"
        self._say(f"{verb} (R35-R41), money play: {' and '.join(who)}.", style="bold")
        extras = rules_in_effect(c.rules)
        if extras:
            self._say("Rules: " + ", ".join(extras) + ".")
        if self.options.games is not None:
            self._say(f"The session stops after game {self.options.games}.")
        if people:
            self._say(
                "Each prompt starts with the name of who must answer. The box plays X, the team O. "
                "Type `help` for the commands."
            )
        if self._resumed:
            self._say(
                f"Game {c.game_number}: {c.box} is in the box; {c.captain} is the captain. Now: {self._now_text()}"
            )

    def _loop(self) -> None:
        while True:
            c = self.chouette
            phase = c.phase
            if phase is _P.OVER:
                if not self._after_game():
                    return
                continue
            self._narrate()
            if phase is _P.OPENING:
                c.roll(player=c.box)
                self._narrate()
                self._pause()
                continue
            if phase is _P.ROLL and c.side_on_roll is Side.TEAM:
                self._team_roll()
                self._narrate()
                continue
            actor = self._actor()
            if actor in self.bots:
                self._bot_acts(actor)
                self._narrate()
                if phase is _P.PLAY and not self.options.humans and not c.is_over():
                    self._draw()
                self._pause()
            else:
                self._human_acts(actor)
                self._narrate()

    def _actor(self) -> str:
        """Who must act now (outside the team's roll and the opening)."""
        c = self.chouette
        to_act = c.to_act
        assert to_act, c.status()
        return to_act[0]

    def _turn_key(self) -> tuple[int, int]:
        """The current turn: (game, plays made in it)."""
        plays = 0
        for event in reversed(self.chouette.events):
            if isinstance(event, GameStart):
                break
            plays += isinstance(event, Play)
        return (self.chouette.game_number, plays)

    # -- output -----------------------------------------------------------------------------

    def _say(self, message: str, style: str = "") -> None:
        self.prompts.say(message, style)

    def _error(self, message: str) -> None:
        self.prompts.error(message)

    def _pause(self) -> None:
        if self.options.delay:
            self.sleep(self.options.delay)

    def _script_ended(self) -> None:
        source = "come from --seed" if self.dice.seed is not None else "are random"
        self._say(f"(The scripted dice are used up: the dice {source} now.)", style="italic")

    def _role(self, name: str) -> str:
        c = self.chouette
        if name == c.box:
            return "box"
        if name == c.captain:
            return "captain"
        if name == c.mover:
            return "acting captain"
        return "team"

    def _label(self, name: str) -> str:
        """``Ann (box)``, ``Bob (captain)``, or the name of another member."""
        role = self._role(name)
        return name if role == "team" else f"{name} ({role})"

    def _who(self, name: str) -> str:
        """The start of a prompt: the name and the seat."""
        return f"{name} ({self._role(name)})"

    def _numbering(self) -> int:
        """Whose point numbers label the board: the side of the person who must act, else
        the side with people on it (the box's when nobody is)."""
        c = self.chouette
        to_act = c.to_act
        if to_act and to_act[0] not in self.bots:
            return 0 if to_act[0] == c.box else 1
        if c.box not in self.bots:
            return 0
        return 1 if any(m not in self.bots for m in c.line) else 0

    def _viewer(self) -> int:
        """The side whose home board is drawn in the chosen corner: the box's (0, X) or the
        team's (1, O), whichever has a person; the first person's side when both (the box's
        when nobody is)."""
        people = self.options.humans
        if not people:
            return 0
        return 0 if people[0] == self.chouette.box else 1

    def corner(self) -> str:
        """Where the viewer's home board is drawn (:meth:`_viewer`) in the current game:
        ``--corner``, on the other side in every second game with ``--switch-sides`` (R46)."""
        corner = self.options.corner
        if self.options.switch_sides and self.chouette.game_number % 2 == 0:
            corner = mirror_corner(corner)
        return corner

    def _draw(self, *, force: bool = False, board: Position | None = None, note: str = "") -> None:
        """Draw the board (X is the box, O the team; the people's home board in the chosen
        corner) and the seats, unless they were drawn already in this state."""
        from .view import Scene, render

        c = self.chouette
        key = len(c.events)
        if not force and board is None and key == self._shown:
            return
        side = c.side_on_roll
        mover = c.mover
        stake = c.stakes[mover]
        owner = None if stake.owner is None else (0 if stake.owner == c.box else 1)
        whose = "the box" if owner == 0 else mover
        cube_text = f"{mover}'s cube {stake.cube}, " + (
            "in the middle" if owner is None else f"owned by {whose}"
        )
        line = ", ".join(f"{m} (captain)" if m == c.captain else m for m in c.line)
        over = c.is_over()
        scene = Scene(
            board=board if board is not None else c.board(Side.BOX),
            names=(f"{c.box} (box)", self._label(mover)),
            viewer=self._viewer(),
            corner=self.corner(),
            numbering=self._numbering(),
            cube_value=stake.cube,
            cube_owner=owner,
            cube_offered=c.phase in (_P.TEAM_DOUBLE, _P.BOX_DOUBLE),
            dice=c.dice,
            on_roll=None if side is None else (0 if side is Side.BOX else 1),
            game_number=c.game_number,
            note=note,
            ids="" if over or board is not None else f"Position ID {c.position.position_id()}",
            title=f"Chouette, game {c.game_number} - {c.box} in the box v {line}",
            cube_text=cube_text,
        )
        self.console.print()
        self.console.print(render(scene, width=self.console.width), soft_wrap=True)
        for text in seat_table(c, self.kinds):
            self._say(text)
        self._shown = key if board is None else None

    def _status(self) -> None:
        for text in seat_table(self.chouette, self.kinds):
            self._say(text)
        self._say(f"Now: {self._now_text()}")

    def _now_text(self) -> str:
        status = self.chouette.status()
        return status.split("; ")[1] if "; " in status else status

    def _ledger(self, title: str) -> None:
        self._say(f"{title} (it sums to {sum(self.chouette.ledger.values())}):", style="bold")
        for text in self.chouette.standings().splitlines():
            self._say(f"  {text}")

    # -- telling what happened ---------------------------------------------------------------

    def _narrate(self) -> None:
        """Say every event logged since the last call."""
        events = self.chouette.events
        new, self._seen = events[self._seen :], len(events)
        for event in new:
            self._tell(event)

    def _tell(self, event: ChouetteEvent) -> None:
        c = self.chouette
        say = self._say
        if isinstance(event, RollOff):
            throws = ", ".join(f"{p} {d}" for p, d in zip(event.players, event.dice))
            tied = sorted({d for d in event.dice if event.dice.count(d) > 1}, reverse=True)
            extra = ""
            if tied:
                groups = [" and ".join(p for p, d in zip(event.players, event.dice) if d == t) for t in tied]
                extra = ": " + "; ".join(groups) + " tie and throw again"
            say(f"Roll-off for the seats (R35): {throws}{extra}.")
        elif isinstance(event, GameStart):
            self.console.print()
            self.console.rule(f"Game {event.number}", characters="=")
            rest = event.line[1:]
            behind = f"the line behind: {', '.join(rest)}" if rest else "nobody else in line"
            say(f"{event.box} is in the box; {event.line[0]} is the captain; {behind}.", style="bold")
        elif isinstance(event, OpeningRoll):
            a, b = event.dice
            text = f"Opening roll: {c.box} (box) {a}, {c.captain} (captain) {b}"
            if a == b:
                say(text + ": a tie, both throw again (R4).")
                return
            say(text + ".")
            self._last_dice = event.dice
            first = c.box if a > b else c.captain
            dice = c.dice
            if c.rules.opening_reroll:
                say(f"{self._label(first)} goes first and rolls again (R5).")
            elif dice is not None:
                say(f"{self._label(first)} goes first, playing {dice[0]}-{dice[1]}.")
        elif isinstance(event, AutomaticDouble):
            say(f"Automatic double (R6): every stake is now {event.cube}.", style="bold")
        elif isinstance(event, Roll):
            self._last_dice = event.dice
            say(f"{self._label(event.player)} rolls {event.dice[0]}-{event.dice[1]}.")
        elif isinstance(event, Play):
            if event.move.is_pass():
                dice = self._last_dice
                roll = f" with {dice[0]}-{dice[1]}" if dice else ""
                say(f"{self._label(event.player)} cannot move{roll}: the turn passes (R11).")
            else:
                style = "bold yellow" if event.player == c.box else "bold cyan"
                say(f"{self._label(event.player)} plays {event.move}.", style=style)
        elif isinstance(event, ProposeDouble):
            say(
                f"{event.player} proposes that the team doubles: every member must agree (R39).", style="bold"
            )
        elif isinstance(event, Consent):
            say(f"{event.player} agrees to the team double.")
        elif isinstance(event, Refuse):
            say(f"{event.player} refuses: the team does not double (R39).", style="bold")
        elif isinstance(event, TeamDouble):
            say(
                f"The team doubles {c.box} (box) on the stakes of {', '.join(event.members)}: "
                f"{c.box} must take or pass.",
                style="bold",
            )
        elif isinstance(event, BoxDouble):
            say(
                f"{c.box} (box) doubles the team: each member takes or passes alone (R40).",
                style="bold",
            )
        elif isinstance(event, (Take, Beaver)):
            verb = "takes" if isinstance(event, Take) else "beavers (R30)"
            if event.player == c.box:
                say(f"{c.box} (box) {verb}: {self._stakes_text()}; the box owns the cubes.", style="bold")
            else:
                cube = c.stakes[event.player].cube
                say(
                    f"{event.player} {verb}: their stake is now {cube}, and the cube is theirs.", style="bold"
                )
        elif isinstance(event, Pass):
            if event.player == c.box:
                say(f"{c.box} (box) passes the team's double.", style="bold")
            else:
                say(f"{event.player} passes and is out of this game (R40).", style="bold")
        elif isinstance(event, Resign):
            level = LEVEL_NAMES[event.level]
            if event.player == c.box:
                say(f"{c.box} (box) offers every member in the game to resign a {level} (R31).", style="bold")
            else:
                say(f"{event.player} offers to resign a {level} on their own stake (R31).", style="bold")
        elif isinstance(event, Accept):
            who = f"{c.box} (box)" if event.player == c.box else event.player
            say(f"{who} accepts the resignation.", style="bold")
        elif isinstance(event, Decline):
            who = f"{c.box} (box)" if event.player == c.box else event.player
            say(f"{who} declines the resignation: play goes on.", style="bold")
        elif isinstance(event, NewCaptain):
            say(
                f"{c.captain} is out of this game: {event.player} moves the team's checkers "
                f"for the rest of it (R36).",
                style="bold",
            )
        elif isinstance(event, Payment):
            say(f"{event.payer} pays {event.payee} {_points(event.points)} ({_KIND_TEXT[event.kind]}).")
        elif isinstance(event, GameOver):
            side = "box" if event.winner is Side.BOX else "team"
            say(f"Game {event.number} is over: the {side} won the captain's stake.", style="bold")

    def _stakes_text(self) -> str:
        c = self.chouette
        stakes = [c.stakes[m] for m in c.team]
        values = {s.cube for s in stakes}
        if len(values) == 1 and len(stakes) > 1:
            return f"every stake is now {values.pop()}"
        return "stakes " + ", ".join(f"{s.player} {s.cube}" for s in stakes)

    # -- the end of a game --------------------------------------------------------------------

    def _after_game(self) -> bool:
        """Show the end of a game, the seats and the ledger; start the next game (True) or
        end the session (False)."""
        c = self.chouette
        self._narrate()
        self._draw(force=True, note="Game over")
        self._ledger(f"Ledger after game {c.game_number}")
        games = self.options.games
        if games is not None:
            if len(c.results) >= games:
                self._final()
                return False
        elif not self._ask_another():
            self._final()
            return False
        self._next_game()
        return True

    def _final(self) -> None:
        self.console.print()
        self._ledger(f"Final ledger after {_plural(len(self.chouette.results), 'game')}")
        self._say("Thanks for playing.")

    def _ask_another(self) -> bool:
        while True:
            answer = self.prompts.read("Play another game? [Y/n] > ")
            word, _, rest = answer.lower().partition(" ")
            if word in ("", "y", "yes"):
                return True
            if word in ("n", "no"):
                return False
            if self._common(word, rest.strip(), "answer y (another game) or n (stop here)"):
                continue
            self._error("Please answer y (another game) or n (stop here).")

    def _next_game(self) -> None:
        c = self.chouette
        box, captain, winner = c.box, c.captain, c.winner
        c.next_game()
        if winner is Side.BOX:
            self._say(
                f"Rotation (R37, the box won): {box} stays in the box; {c.captain} is the new captain; "
                f"{captain} goes to the end of the line.",
                style="bold",
            )
        else:
            self._say(
                f"Rotation (R38, the team won): {captain} goes into the box; {c.captain} is the new captain; "
                f"{box} goes to the end of the line.",
                style="bold",
            )
        self._narrate()

    # -- bots ---------------------------------------------------------------------------------

    def _bot_acts(self, name: str) -> None:
        c = self.chouette
        bot = self.bots[name]
        phase = c.phase
        if phase is _P.ROLL:  # the box's turn (the team's is _team_roll)
            if _A.DOUBLE in c.legal_actions(name) and bot.should_double(
                c.board(Side.BOX), c.match_state(c.team[0])
            ):
                c.box_double(player=name)
            else:
                c.roll(player=name)
        elif phase is _P.PLAY:
            legal = c.legal_moves()
            c.play(legal[bot.choose_index(legal)] if len(legal) else Move(), player=name)
        elif phase is _P.CONSENT:
            if bot.should_double(c.board(Side.TEAM), c.match_state(name)):
                c.consent(player=name)
            else:
                c.refuse(player=name)
        elif phase is _P.TEAM_DOUBLE:
            self._bot_answer(name, bot.respond_to_double(c.board(Side.BOX), c.match_state(c.team[0])))
        elif phase is _P.BOX_DOUBLE:
            self._bot_answer(name, bot.respond_to_double(c.board(Side.TEAM), c.match_state(name)))
        elif phase is _P.RESIGN:
            pending = c.pending
            assert pending is not None
            _, by, _, level = pending
            if name == c.box:
                view, state = c.board(Side.BOX), c.match_state(by)
            else:
                view, state = c.board(Side.TEAM), c.match_state(name)
            if bot.accept_resignation(view, state, level):
                c.accept(player=name)
            else:
                c.decline(player=name)

    def _bot_answer(self, name: str, answer: CubeResponse) -> None:
        from ..bots import CubeResponse

        c = self.chouette
        if answer is CubeResponse.PASS:
            c.pass_double(player=name)
        elif answer is CubeResponse.BEAVER and _A.BEAVER in c.legal_actions(name):
            c.beaver(player=name)
        else:
            c.take(player=name)

    def _team_roll(self) -> None:
        """The team's turn before the roll: bots may propose a double (once a turn), people
        may propose one, and the captain (or acting captain) rolls."""
        c = self.chouette
        key = self._turn_key()
        mover = c.mover
        can = _A.PROPOSE_DOUBLE in c.legal_actions(mover)
        if can and key not in self._bots_asked:
            self._bots_asked.add(key)
            for member in c.team:
                bot = self.bots.get(member)
                if bot is not None and bot.should_double(c.board(Side.TEAM), c.match_state(member)):
                    c.propose_double(player=member)
                    self._pause()
                    return
        if mover not in self.bots:
            self._human_roll(mover)
            return
        people = [m for m in c.team if m not in self.bots]
        if can and people and key not in self._humans_asked:
            self._humans_asked.add(key)
            if self._team_prompt(people):
                return
        c.roll(player=mover)
        self._narrate()
        self._pause()

    # -- people ---------------------------------------------------------------------------------

    def _human_acts(self, name: str) -> None:
        phase = self.chouette.phase
        if phase is _P.ROLL:
            self._human_roll(name)
        elif phase is _P.PLAY:
            self._human_play(name)
        elif phase is _P.CONSENT:
            self._human_vote(name)
        elif phase in (_P.TEAM_DOUBLE, _P.BOX_DOUBLE):
            self._human_cube(name)
        elif phase is _P.RESIGN:
            self._human_resignation(name)

    def _common(self, word: str, rest: str, now: str) -> bool:
        """Commands available at every prompt; True when ``word`` was one of them."""
        if word in ("help", "h", "?"):
            self._say(_HELP)
            self._say(f"Now: {now}", style="bold")
        elif word in ("board", "show"):
            self._draw(force=True)
        elif word in ("status", "seats", "ledger", "stakes"):
            self._status()
            self._ledger("Ledger")
        elif word == "save":
            self._save(rest or None)
        elif word in ("quit", "exit", "q"):
            self._quit()
        else:
            return False
        return True

    def _not_now(self, word: str, now: str) -> None:
        c = self.chouette
        phase = c.phase
        reasons = {
            "roll": "the dice are already rolled" if phase is _P.PLAY else "it is not the time to roll",
            "undo": "there is no unconfirmed play to take back (R42)",
            "done": "there is no play to confirm",
            "list": "there are no dice to play yet",
            "hint": "there are no dice to play yet",
        }
        if word in ("take", "t", "pass", "p", "drop", "beaver"):
            reason = "no double is waiting for your answer"
        elif word in ("accept", "a", "decline"):
            reason = "no resignation is waiting for your answer"
        elif word in ("agree", "consent", "refuse"):
            reason = "no team double is waiting for your vote"
        elif word in ("double", "d"):
            reason = "a double is offered before rolling, on your own side's turn (R28)"
        elif word == "resign":
            reason = "a resignation is offered on your own side's turn (R31)"
        else:
            reason = reasons.get(
                {"r": "roll", "u": "undo", "ok": "done", "l": "list"}.get(word, word), "not now"
            )
        self._error(f"`{word}` is not possible now: {reason}. Now: {now}")

    def _member(self, token: str) -> str | None:
        """The player whose name is ``token`` (any case), or None."""
        for name in self.chouette.players:
            if name.lower() == token.lower():
                return name
        return None

    def _clean(self, exc: BaseException) -> str:
        """A library message without its ``action by NAME:`` label."""
        text = str(exc)
        return re.sub(r"^[a-z ]+(?: '[^']*'| \([^)]*\)| \d)? by \S+: ", "", text)

    def _quit(self) -> None:
        self.prompts.ask_quit("the chouette", lambda: self._save(None))

    def _save(self, name: str | None) -> bool:
        """``save [FILE]``: to FILE (relative to the current folder), else to the file this
        session saves to, else :func:`default_save_path`. An existing file other than the
        session's own is replaced only after asking."""
        from . import savefile

        path = (self.save_path or default_save_path()) if name is None else Path(name.strip().strip("'\""))
        try:
            written = savefile.write_asking(
                lambda overwrite: save(path, self.options, self.chouette, self.dice, overwrite=overwrite),
                path,
                self.prompts.read,
                overwrite=savefile.same_file(path, self.save_path),
            )
        except BackgammonError as exc:
            self._error(f"Not saved: {exc}")
            return False
        if written is None:
            self._say("Not saved.")
            return False
        self.save_path = path
        self._say(f"Chouette saved to {written}", style="bold")
        self._say(f"Resume it with: backgammon chouette --resume {written}")
        return True

    def _autosave(self) -> None:
        """On end of input, Ctrl-C or an error: to ``--autosave FILE`` or
        :func:`default_autosave_path` (replaced without asking)."""
        configured = self.options.autosave
        path = Path(configured) if configured else default_autosave_path()
        try:
            try:
                written = save(path, self.options, self.chouette, self.dice)
            except BackgammonError as exc:
                self._error(f"The chouette could not be saved: {exc}")
                return
            self._say(f"Chouette saved to {written}", style="bold")
            self._say(f"Resume it with: backgammon chouette --resume {written}")
        except (OSError, ValueError):
            pass

    def _parse_names_levels(self, rest: str, allow_level: bool) -> tuple[str | None, int | None, str | None]:
        """(a player named in ``rest``, a resignation level in it, or an error message)."""
        name: str | None = None
        level: int | None = None
        for token in rest.split():
            member = self._member(token)
            if member is not None and name is None:
                name = member
            elif allow_level and token.lower() in LEVELS and level is None:
                level = LEVELS[token.lower()]
            else:
                what = (
                    "a resignation level (single, gammon, backgammon) or a player's name"
                    if allow_level
                    else "a player's name"
                )
                return None, None, f"{token!r} is not {what}"
        return name, level, None

    def _propose(self, rest: str, default: str | None, people: Sequence[str]) -> bool:
        """``double [NAME]`` on the team's turn: NAME (or ``default``) proposes (R39)."""
        c = self.chouette
        name, _, problem = self._parse_names_levels(rest, allow_level=False)
        if problem is not None:
            self._error(f"{problem}: `double` or `double NAME` (NAME a member of the team at the keyboard).")
            return False
        name = name or default
        if name is None:
            self._error(f"Say who proposes the double: {' or '.join('double ' + p for p in people)}.")
            return False
        if name in self.bots:
            self._error(f"{name} is a bot and proposes a double by itself.")
            return False
        if name == c.box:
            self._error(f"{name} is in the box: the box doubles on its own turn (R40).")
            return False
        try:
            c.propose_double(player=name)
        except BackgammonError as exc:
            self._error(f"No double now: {self._clean(exc)}.")
            return False
        return True

    def _resign(self, rest: str, default: str | None, people: Sequence[str]) -> bool:
        """``resign [LEVEL] [NAME]``: the box to every member, a member for their own stake."""
        c = self.chouette
        name, level, problem = self._parse_names_levels(rest, allow_level=True)
        if problem is not None:
            self._error(
                f"{problem}: resign single, gammon or backgammon (or just `resign` for a single game)."
            )
            return False
        name = name or default
        if name is None:
            self._error(f"Say who resigns: {' or '.join('resign ' + p for p in people)}.")
            return False
        if name in self.bots:
            self._error(f"{name} is a bot and decides for itself.")
            return False
        if name != c.box and default == c.box:
            self._error(f"It is the box's turn: {name} may resign on the team's turn (R31).")
            return False
        try:
            c.resign(level or 1, player=name)
        except BackgammonError as exc:
            self._error(f"No resignation now: {self._clean(exc)}.")
            return False
        return True

    def _cube_hint(self, name: str) -> None:
        """The adviser's (the expert network, else pubeval) advice on the cube question
        ``name`` faces."""
        from ..bots import CubeResponse

        c = self.chouette
        adviser = self.prompts.advisor()
        who = adviser_name(adviser)
        phase = c.phase
        member = name if name != c.box else c.team[0]
        view = c.board(Side.BOX if name == c.box else Side.TEAM)
        state = c.match_state(member)
        if phase in (_P.TEAM_DOUBLE, _P.BOX_DOUBLE):
            answer = adviser.respond_to_double(view, state)
            if answer is CubeResponse.BEAVER and not c.rules.beavers_apply:
                answer = CubeResponse.TAKE
            self._say(f"{who}'s advice: {answer.value}.")
        elif phase is _P.CONSENT:
            self._say(f"{who}'s advice: {'agree' if adviser.should_double(view, state) else 'refuse'}.")
        elif phase is _P.ROLL:
            self._say(
                f"{who}'s advice: {'double' if adviser.should_double(view, state) else 'no double: roll'}."
            )
        else:
            self._say("No cube decision now.")

    def _human_roll(self, name: str) -> None:
        """The box or a human captain before the roll: roll, double (or propose), resign."""
        c = self.chouette
        is_box = name == c.box
        can = (_A.DOUBLE if is_box else _A.PROPOSE_DOUBLE) in c.legal_actions(name)
        if self.options.auto_roll and not can:
            c.roll(player=name)
            return
        self._draw()
        people = [m for m in c.team if m not in self.bots] if not is_box else [name]
        what = "double" if is_box or len(people) == 1 else "double [NAME]"
        now = f"press Enter to roll{', or ' + what if can else ''}"
        prompt = f"{self._who(name)}: Enter to roll{', or ' + what if can else ''} > "
        while True:
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if word in ("", "roll", "r"):
                c.roll(player=name)
                return
            if word in ("double", "d"):
                if is_box:
                    if rest:
                        self._error("The box doubles every member at once: just `double`.")
                        continue
                    try:
                        c.box_double(player=name)
                    except BackgammonError as exc:
                        self._error(f"No double now: {self._clean(exc)}.")
                        continue
                    return
                if self._propose(rest, name, people):
                    return
                continue
            if word == "resign":
                if self._resign(rest, name, people):
                    return
                continue
            if word == "hint":
                self._cube_hint(name)
                continue
            if self._common(word, rest, now):
                continue
            if word in _KNOWN:
                self._not_now(word, now)
            elif re.match(r"^(\d|bar|b/)", word):
                self._error(f"Roll first: {now}.")
            else:
                self.prompts.unknown(line, now)

    def _team_prompt(self, people: Sequence[str]) -> bool:
        """The team's people before a bot captain rolls: True when one of them proposed a
        double or resigned, False to let the captain roll."""
        c = self.chouette
        self._draw()
        mover = c.mover
        one = people[0] if len(people) == 1 else None
        what = "double" if one else "double NAME"
        now = f"press Enter for {mover} to roll, or {what} to propose a team double"
        prompt = f"{', '.join(people)} (team): Enter for {mover} to roll, or {what} > "
        while True:
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if word in ("", "roll", "r"):
                return False
            if word in ("double", "d"):
                if self._propose(rest, one, people):
                    return True
                continue
            if word == "resign":
                if self._resign(rest, one, people):
                    return True
                continue
            if word == "hint":
                self._cube_hint(one or people[0])
                continue
            if self._common(word, rest, now):
                continue
            if word in _KNOWN:
                self._not_now(word, now)
            else:
                self.prompts.unknown(line, now)

    def _human_play(self, name: str) -> None:
        """The box or the (acting) captain plays the roll: a tentative play, confirmed with
        Enter or taken back with ``undo`` (R42)."""
        c = self.chouette
        prompts = self.prompts
        prompts.names = (c.box, c.mover)
        legal = c.legal_moves()
        dice = c.dice
        assert dice is not None
        roll = f"{dice[0]}-{dice[1]}"
        is_box = name == c.box
        who = self._who(name)
        self._draw()
        if not len(legal):
            self._say(f"No legal play with {roll}: the turn passes (R11).", style="bold")
            now = "press Enter to pass the turn"
        elif len(legal) == 1:
            self._say(f"Only one legal play with {roll}: {legal[0]}.", style="bold")
            now = f"press Enter to play {legal[0]}"
        else:
            now = f"type a play for {roll} like {legal[0]}, a number from `list` (1-{len(legal)}), or `hint`"
        tentative: int | None = None
        while True:
            if tentative is not None:
                prompt = f"{who}: Enter to confirm {legal[tentative]}, or undo > "
            elif not len(legal):
                prompt = f"{who}: Enter to pass the turn > "
            elif len(legal) == 1:
                prompt = f"{who}: Enter to play {legal[0]} > "
            else:
                prompt = f"{who}: play {roll} > "
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if word in ("", "done", "ok", "confirm"):
                if tentative is not None:
                    c.play(legal[tentative], player=name)
                    return
                if len(legal) <= 1:
                    c.play(legal[0] if len(legal) else Move(), player=name)
                    return
                if word:
                    self._not_now("done", now)
                else:
                    self._error(f"Type your play first: {now}.")
                continue
            if word in ("undo", "u"):
                if tentative is None:
                    self._not_now("undo", now)
                    continue
                self._say(f"Taken back: {legal[tentative]}.")
                tentative = None
                self._draw(force=True)
                continue
            if word in ("list", "l"):
                prompts.list_plays(legal)
                continue
            if word == "hint":
                prompts.hint(legal, rest)
                continue
            if word in ("double", "d"):
                self._error(f"The dice are already rolled: a double comes before the roll (R28). Now: {now}")
                continue
            if word == "resign":
                if self._resign(rest, name, [name]):
                    return
                continue
            if word in ("pass", "p") and not len(legal):
                c.play(Move(), player=name)
                return
            if word in ("pass", "p"):
                self._error(
                    f"There is a legal play, so it must be played (R11); `pass` answers a double. Now: {now}"
                )
                continue
            if tentative is not None and word in ("save", "quit", "exit", "q"):
                self._say(f"(The play {legal[tentative]} is not confirmed: it is not saved.)")
            if self._common(word, rest, now):
                continue
            if word in _KNOWN:
                self._not_now(word, now)
                continue
            choice = prompts.read_play(line, legal, dice, now)
            if choice is None:
                continue
            tentative = choice
            after = legal.position(tentative)
            self._draw(board=after.swap() if is_box else after, note=f"Tentative: {legal[tentative]}")
            self._say(
                f"Tentative play: {legal[tentative]}. Press Enter (or `done`) to confirm, `undo` to take it back."
            )

    def _human_vote(self, name: str) -> None:
        """A team member's vote on a proposed team double (R39)."""
        c = self.chouette
        pending = c.pending
        assert pending is not None
        by = pending[1]
        stake = c.stakes[name]
        self._draw()
        now = "agree or refuse the team double"
        prompt = (
            f"{self._who(name)}: {by} proposes a team double, your stake {stake.cube} to {2 * stake.cube} "
            f"(R39): agree or refuse? > "
        )
        while True:
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if word in ("agree", "consent", "yes", "y", "ok"):
                c.consent(player=name)
                return
            if word in ("refuse", "no", "n"):
                c.refuse(player=name)
                return
            if word == "hint":
                self._cube_hint(name)
                continue
            if self._common(word, rest, now):
                continue
            if word in _KNOWN or word == "":
                self._error(f"Vote first: {now} (R39).")
            else:
                self.prompts.unknown(line, now)

    def _human_cube(self, name: str) -> None:
        """The box answers the team's double, or a member the box's double (R40)."""
        c = self.chouette
        is_box = name == c.box
        beaver = _A.BEAVER in c.legal_actions(name)
        choices = "take or pass" + (" or beaver" if beaver else "")
        if is_box:
            members = c.team
            cubes = {c.stakes[m].cube for m in members}
            if len(cubes) == 1:
                change = f"{'every stake' if len(members) > 1 else 'the stake'} {next(iter(cubes))} to {2 * next(iter(cubes))}"
            else:
                change = ", ".join(f"{m} {c.stakes[m].cube} to {2 * c.stakes[m].cube}" for m in members)
            question = f"the team doubles, {change}"
        else:
            cube = c.stakes[name].cube
            question = f"{c.box} (box) doubles, your stake {cube} to {2 * cube} (R40)"
        self._draw()
        now = f"{choices} the double"
        prompt = f"{self._who(name)}: {question}: {choices}? > "
        while True:
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            try:
                if word in ("take", "t"):
                    c.take(player=name)
                    return
                if word in ("pass", "p", "drop"):
                    c.pass_double(player=name)
                    return
                if word == "beaver":
                    c.beaver(player=name)
                    return
            except BackgammonError as exc:
                self._error(f"Not possible: {self._clean(exc)}. Now: {now}")
                continue
            if word == "hint":
                self._cube_hint(name)
                continue
            if self._common(word, rest, now):
                continue
            if word in _KNOWN or word == "":
                self._error(f"Answer the double first: {now}.")
            else:
                self.prompts.unknown(line, now)

    def _human_resignation(self, name: str) -> None:
        """Accept or decline a resignation: a member the box's, the box a member's."""
        c = self.chouette
        pending = c.pending
        assert pending is not None
        _, by, _, level = pending
        member = by if name == c.box else name
        stake = c.stakes[member]
        points = stake.cube * c.rules.multiplier(level, stake.centred)
        whose = "on your stake" if name != c.box else f"on {by}'s stake"
        self._draw()
        now = "accept or decline the resignation"
        prompt = (
            f"{self._who(name)}: {self._label(by)} offers to resign a {LEVEL_NAMES[level]} "
            f"({_points(points)} {whose}): accept or decline? > "
        )
        while True:
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if word in ("accept", "a", "y", "yes"):
                c.accept(player=name)
                return
            if word in ("decline", "n", "no", "reject"):
                c.decline(player=name)
                return
            if self._common(word, rest, now):
                continue
            if word in _KNOWN or word == "":
                self._error(f"Answer the resignation first: {now}.")
            else:
                self.prompts.unknown(line, now)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


# -- from the command line --------------------------------------------------------------------


def build_chouette_session(args: argparse.Namespace) -> ChouetteSession:
    """The session that ``args`` (of the ``chouette`` sub-command) ask for: a new chouette,
    or with ``--resume`` the saved one (display options on the command line override the
    saved ones; the players, dice and rules cannot change and are ignored with a note).
    Raises :class:`~backgammon.errors.BackgammonError` for bad options or a bad file."""
    if args.resume:
        options, chouette, dice = load(args.resume)
        ignored = [
            "--" + ("human/--bot/--players" if name == "seats" else name.replace("_", "-"))
            for name in GAME_ARGUMENTS
            if getattr(args, name, None) is not None
        ]
        if ignored:
            print(
                f"backgammon: note: {', '.join(ignored)} ignored: a resumed chouette keeps its own",
                file=sys.stderr,
            )
        options = options.with_display(**display_changes(args))
        return ChouetteSession(options, chouette=chouette, dice=dice, save_path=args.resume)
    return ChouetteSession(options_from_args(args))


def run(args: argparse.Namespace, *, stderr: IO[str] | None = None) -> int:
    """Run ``backgammon chouette``; returns the exit status (see the sub-command's help)."""
    from .app import run_at_terminal

    try:
        session = build_chouette_session(args)
    except BackgammonError as exc:
        print(f"backgammon: {exc}", file=stderr or sys.stderr)
        return 2
    return run_at_terminal(session.run)
