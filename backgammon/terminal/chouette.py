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
* bots act by themselves, as the table lets them (:meth:`backgammon.table.Table.play_bot`),
  each seeing its own stake: a bot in the box or as captain rolls and plays; a bot in the
  team votes, answers a box double, and proposes a team double itself (once a turn).

After every game the seats, stakes and the ledger are shown, and the seats rotate (R37,
R38). Plays are typed as in ``backgammon play`` (notation or a number from ``list``, Enter
or ``done`` to confirm, ``undo`` before that, R42), and so are ``help``, ``save``, ``quit``;
end of input (Ctrl-D), Ctrl-C and unexpected errors save the chouette first
(:func:`default_autosave_path`). Anything typed that cannot be done gets a short message and
the prompt again.

The flow of play is the table's (:class:`~backgammon.table.Table`); this module reads the
keyboard, draws and tells (:class:`~backgammon.terminal.frontend.Frontend`). Plays are
told in the numbering of the first person at the keyboard (the box's when only bots play).

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
from collections.abc import Mapping, Sequence
from typing import IO, Any

from ..chouette import Chouette, ChouettePhase
from ..errors import BackgammonError
from ..events import ResultKind
from ..position import Position
from ..table import ChouetteContest, Table
from ..table import commands as cmd
from .chouette_options import (
    DEFAULT_AUTOSAVE_NAME,
    DEFAULT_SAVE_NAME,
    ChouetteOptions,
    add_chouette_arguments,
    default_autosave_path,
    options_from_args,
    parse_players,
)
from .dice import SessionDice
from .frontend import DOUBLE_WORDS, ROLL_WORDS, Frontend
from .options import HUMAN, mirror_corner, rules_in_effect
from .prompts import LEVEL_NAMES, LEVELS, shown
from .savefile import CHOUETTE_AUTOSAVE, CHOUETTE_SAVE, chouette_table
from .savefile import load_chouette as load
from .savefile import save_chouette as save

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

_P = ChouettePhase


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"

def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` ... ``11th``.

    >>> [_ordinal(n) for n in (1, 2, 3, 4, 11, 12, 21)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '21st']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _out(result: int, kind: ResultKind | None, box_passed: bool) -> str:
    """The seats table's cell of a member out of the game: ``out (lost 1, passed)``,
    ``out (won 2 by resignation)``.

    >>> _out(-1, ResultKind.PASSED, False), _out(2, ResultKind.RESIGNED, False)
    ('out (lost 1, passed)', 'out (won 2 by resignation)')
    """
    verb = "won" if result > 0 else "lost"
    if kind is ResultKind.RESIGNED:
        return f"out ({verb} {abs(result)} by resignation)"
    return f"out ({verb} {abs(result)}, {'the box passed' if box_passed else 'passed'})"


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
            status = _out(stake.result, stake.kind, stake.result > 0)
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

_WORDS_HERE = frozenset({"roll", "r", "take", "t", "pass", "p", "drop", "beaver", "agree", "consent", "refuse",
                         "accept", "a", "decline", "undo", "u", "done", "ok", "list", "l", "double", "d", "resign"})


class ChouetteSession(Frontend):
    """One run of ``backgammon chouette``.

    ``options`` say who plays and how; ``table`` (or ``chouette``, seated from the options)
    and ``dice`` are given when a saved session is resumed (else made from the options: the
    roll-off is thrown at once). ``console``, ``read_line`` and ``sleep`` are the program's
    output, input and clock (replace them to drive a session in tests); ``save_path`` is where
    ``save`` writes when given no file name.
    """

    KIND = "chouette"
    PROGRAM = "chouette"
    SAVED = "Chouette"
    SAVE_FILES = (CHOUETTE_SAVE, CHOUETTE_AUTOSAVE)
    HELP = _HELP

    def __init__(self, options: ChouetteOptions, *, chouette: Chouette | None = None, **given: Any) -> None:
        super().__init__(options, saved=chouette, **given)
        table = self.table
        self.kinds = dict(options.seats)
        self.bots = {s.name for s in table.seats if s.is_bot}

    def new_table(self, options: ChouetteOptions, dice: SessionDice, saved: Chouette | None) -> Table:
        return chouette_table(options, dice, saved)

    @property
    def chouette(self) -> Chouette:
        """The chouette played."""
        return self.contest_as(ChouetteContest).chouette

    def viewer(self) -> str | None:
        """Plays are told in the numbering of the first person at the keyboard (the box's
        when only bots play)."""
        people = self.options.humans
        return people[0] if people else None

    # -- the loop -----------------------------------------------------------------------------

    def _welcome(self) -> None:
        c = self.chouette
        people = list(self.options.humans)
        bots = [f"{name} ({kind})" if name != kind else name for name, kind in self.options.seats if kind != HUMAN]
        who = []
        if people:
            who.append(f"{', '.join(people)} at the keyboard")
        if bots:
            who.append(f"the bot{'s' if len(bots) > 1 else ''} {', '.join(bots)}")
        verb = "Resuming the chouette" if self._resumed else "Chouette"
        self.say(f"{verb} (R35-R41), money play: {' and '.join(who)}.", style="bold")
        extras = rules_in_effect(c.rules)
        if extras:
            self.say("Rules: " + ", ".join(extras) + ".")
        if self.options.games is not None:
            self.say(f"The session stops after game {self.options.games}.")
        if people:
            self.say(
                "Each prompt starts with the name of who must answer. The box plays X, the team O. "
                "Type `help` for the commands."
            )
        if self._resumed:
            self.say(f"Game {c.game_number}: {c.box} is in the box; {c.captain} is the captain. Now: {self._now_text()}")
        else:
            self.tell(self.table.contest.events)  # the roll-off and the first game's seats

    def _loop(self) -> None:
        table, contest = self.table, self.table.contest
        while True:
            self.run_bots()
            if contest.game_over():
                if not self._after_game():
                    return
                continue
            to_act = contest.to_act()
            phase = self.chouette.phase
            if phase is _P.OPENING:
                self.act(to_act[0], cmd.Roll())
                self.pause()
                continue
            actor = to_act[0]
            if actor in self.bots:  # a bot captain waits for the people of the team
                people = [s for s in self.options.humans if "ready" in table.actions(s)]
                self._team_prompt(people)
            elif phase is _P.ROLL:
                self._human_roll(actor)
            elif phase is _P.PLAY:
                self.play_turn(actor, self._who(actor), lambda rest: self._resign(rest, actor, [actor]))
            elif phase is _P.CONSENT:
                self._human_vote(actor)
            elif phase in (_P.TEAM_DOUBLE, _P.BOX_DOUBLE):
                self._human_cube(actor)
            elif phase is _P.RESIGN:
                self._human_resignation(actor)

    def run_bots(self) -> None:
        """As :meth:`Frontend.run_bots`, answers in line order; a bot captain whose team
        refused a double this turn rolls (:func:`~backgammon.table.decide` would propose again)."""
        while (seat := self.table.bot_to_act()) is not None:
            waiting = self.table.contest.to_act()
            if seat in waiting[1:] and waiting[0] not in self.bots:
                break  # answers in line order (R39, R40, R31): the person before the bot first
            if seat == self.chouette.mover and self._refused_this_turn():
                self.act(seat, cmd.Roll())
            else:
                self.told(self.table.play_bot(seat))
            self.after_bot()
            self.pause()

    def _refused_this_turn(self) -> bool:
        for event in reversed(self.chouette.events):
            if event.type in ("play", "game_start"):
                return False
            if event.type == "refuse":
                return self.chouette.phase is _P.ROLL
        return False

    def after_bot(self) -> None:
        if not self.options.humans and self.chouette.phase is _P.ROLL:
            self.draw()

    # -- drawing ------------------------------------------------------------------------------

    def _role(self, name: str) -> str:
        c = self.chouette
        if name == c.box:
            return "box"
        if name == c.captain:
            return "captain"
        return "acting captain" if name == c.mover else "team"

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
        """The side whose home board is drawn in the chosen corner: the first person's (the
        box's when nobody is)."""
        people = self.options.humans
        return 0 if not people or people[0] == self.chouette.box else 1

    def corner(self) -> str:
        """Where the viewer's home board is drawn in the current game: ``--corner``, on the
        other side in every second game with ``--switch-sides`` (R46)."""
        corner: str = self.options.corner
        if self.options.switch_sides and self.chouette.game_number % 2 == 0:
            corner = mirror_corner(corner)
        return corner

    def draw(self, *, force: bool = False, board: Position | None = None, note: str = "") -> None:
        """Draw the board (X is the box, O the team) and the seats, unless they were drawn
        already in this state."""
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
        cube_text = f"{mover}'s cube {stake.cube}, " + ("in the middle" if owner is None else f"owned by {whose}")
        line = ", ".join(f"{m} (captain)" if m == c.captain else m for m in c.line)
        dice = c.dice
        scene = Scene(
            board=board if board is not None else self.table.contest.board(c.box),
            names=(f"{c.box} (box)", self._label(mover)),
            viewer=self._viewer(),
            corner=self.corner(),
            numbering=self._numbering(),
            cube_value=stake.cube,
            cube_owner=owner,
            cube_offered=c.phase in (_P.TEAM_DOUBLE, _P.BOX_DOUBLE),
            dice=None if dice is None else (max(dice), min(dice)),
            on_roll=None if side is None else (0 if side.value == "box" else 1),
            game_number=c.game_number,
            note=note,
            ids="" if c.is_over() or board is not None else f"Position ID {c.position.position_id()}",
            title=f"Chouette, game {c.game_number} - {c.box} in the box v {line}",
            cube_text=cube_text,
        )
        self.console.print()
        self.console.print(render(scene, width=self.console.width), soft_wrap=True)
        for text in seat_table(c, self.kinds):
            self.say(text)
        self._shown = key if board is None else None

    _draw = draw

    def extra(self, word: str, rest: str) -> bool:
        if word not in ("status", "seats", "ledger", "stakes"):
            return False
        for text in seat_table(self.chouette, self.kinds):
            self.say(text)
        self.say(f"Now: {self._now_text()}")
        self._ledger("Ledger")
        return True

    def _now_text(self) -> str:
        status = self.chouette.status()
        return status.split("; ")[1] if "; " in status else status

    def _ledger(self, title: str) -> None:
        self.say(f"{title} (it sums to {sum(self.chouette.ledger.values())}):", style="bold")
        for text in self.chouette.standings().splitlines():
            self.say(f"  {text}")

    # -- between games ------------------------------------------------------------------------

    def _after_game(self) -> bool:
        """Show the end of a game, the seats and the ledger; start the next game (True) or
        end the session (False)."""
        c = self.chouette
        self.draw(force=True, note="Game over")
        self._ledger(f"Ledger after game {c.game_number}")
        games = self.options.games
        if (games is not None and len(c.results) >= games) or (games is None and not self._ask_another()):
            self.console.print()
            n = len(c.results)
            self._ledger(f"Final ledger after {n} game{'s' if n != 1 else ''}")
            self.say("Thanks for playing.")
            return False
        box, captain, won = c.box, c.captain, c.winner is not None and c.winner.value == "box"
        outcome = self.table.submit(self.table.contest.to_act()[0], cmd.NextGame())
        if won:
            self.say(
                f"Rotation (R37, the box won): {box} stays in the box; {c.captain} is the new captain; "
                f"{captain} goes to the end of the line.",
                style="bold",
            )
        else:
            self.say(
                f"Rotation (R38, the team won): {captain} goes into the box; {c.captain} is the new captain; "
                f"{box} goes to the end of the line.",
                style="bold",
            )
        self.told(outcome)
        return True

    def _ask_another(self) -> bool:
        while True:
            _, word, rest = self.ask("Play another game? [Y/n] > ")
            if word in ("", "y", "yes"):
                return True
            if word in ("n", "no"):
                return False
            if not self.common(word, rest, "answer y (another game) or n (stop here)"):
                self.error("Please answer y (another game) or n (stop here).")

    # -- people ---------------------------------------------------------------------------------

    def _member(self, token: str) -> str | None:
        """The player whose name is ``token`` (any case), or None."""
        return next((name for name in self.chouette.players if name.lower() == token.lower()), None)

    def _names_level(self, rest: str, allow_level: bool) -> tuple[str | None, int | None, str | None]:
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
                what = "a resignation level (single, gammon, backgammon) or a player's name" if allow_level else "a player's name"
                return None, None, f"{shown(token)} is not {what}"
        return name, level, None

    def _someone(self, rest: str, default: str | None, people: Sequence[str], verb: str, level: bool) -> tuple[str | None, int | None]:
        """The person who ``verb``s (``double``, ``resign``): named in ``rest`` or ``default``."""
        name, lvl, problem = self._names_level(rest, allow_level=level)
        if problem is not None:
            usage = "resign single, gammon or backgammon (or just `resign` for a single game)" if level else (
                "`double` or `double NAME` (NAME a member of the team at the keyboard)")
            self.error(f"{problem}: {usage}.")
            return None, None
        name = name or default
        if name is None:
            self.error(f"Say who {'resigns' if level else 'proposes the double'}: {' or '.join(f'{verb} ' + p for p in people)}.")
        elif name in self.bots:
            self.error(f"{name} is a bot and decides for itself.")
            name = None
        return name, lvl

    def _propose(self, rest: str, default: str | None, people: Sequence[str], word: str, now: str) -> bool:
        """``double [NAME]`` on the team's turn: NAME (or ``default``) proposes (R39)."""
        name, _ = self._someone(rest, default, people, "double", False)
        if name is None:
            return False
        return self.double(name, word, cmd.ProposeDouble(), 2 * self.chouette.stakes[name].cube if name in self.chouette.stakes else 2, now)

    def _resign(self, rest: str, default: str | None, people: Sequence[str]) -> bool:
        """``resign [LEVEL] [NAME]``: the box to every member, a member for their own stake."""
        name, level = self._someone(rest, default, people, "resign", True)
        return name is not None and self.act(name, cmd.Resign(level or 1), "resign")

    def _cube_hint(self, name: str) -> None:
        """The adviser's advice on the cube question ``name`` faces (a vote is the team's
        double seen by a member)."""
        from .advice import cube_hint_lines

        c, contest = self.chouette, self.table.contest
        if c.phase not in (_P.TEAM_DOUBLE, _P.BOX_DOUBLE, _P.CONSENT, _P.ROLL):
            return self.say("No cube decision now.")
        answering = c.phase in (_P.TEAM_DOUBLE, _P.BOX_DOUBLE)
        with self.thinking():
            for line in cube_hint_lines(contest.board(name), contest.match_state(name), c.rules, answering=answering):
                self.say(line)

    def _human_roll(self, name: str) -> None:
        """The box or a person captain before the roll: roll, double (or propose), resign."""
        c = self.chouette
        is_box = name == c.box
        command: cmd.Command = cmd.Double() if is_box else cmd.ProposeDouble()
        can = command.type in self.table.actions(name)
        if self.options.auto_roll and not can:
            self.act(name, cmd.Roll())
            return
        self.draw()
        people = [m for m in c.team if m not in self.bots] if not is_box else [name]
        what = "double" if is_box or len(people) == 1 else "double [NAME]"
        now = f"press Enter to roll{', or ' + what if can else ''}"
        prompt = f"{self._who(name)}: Enter to roll{', or ' + what if can else ''} > "

        def double(word: str, rest: str) -> bool:
            if not is_box:
                return self._propose(rest, name, people, word, now)
            if rest:
                self.error("The box doubles every member at once: just `double`.")
                return False
            return self.double(name, word, command, 2 * c.stakes[c.team[0]].cube, now)

        self.prompt_loop(prompt, {
            **dict.fromkeys(ROLL_WORDS, lambda word, rest: self.act(name, cmd.Roll(), word or "roll", now)),
            **dict.fromkeys(DOUBLE_WORDS, double),
            "resign": lambda word, rest: self._resign(rest, name, people),
            "hint": lambda word, rest: self._cube_hint(name),
        }, lambda line, word, rest: self.other(name, line, word, now, looks=f"Roll first: {now}."))

    def _team_prompt(self, people: Sequence[str]) -> None:
        """The team's people before a bot captain rolls: one may propose a double or resign;
        Enter lets the captain roll."""
        self.draw()
        mover = self.chouette.mover
        one = people[0] if len(people) == 1 else None
        what = "double" if one else "double NAME"
        now = f"press Enter for {mover} to roll, or {what} to propose a team double"
        prompt = f"{', '.join(people)} (team): Enter for {mover} to roll, or {what} > "

        def roll(word: str, rest: str) -> bool:
            for person in people:
                self.table.submit(person, cmd.Ready())
            return True

        self.prompt_loop(prompt, {
            **dict.fromkeys(ROLL_WORDS, roll),
            **dict.fromkeys(DOUBLE_WORDS, lambda word, rest: self._propose(rest, one, people, word, now)),
            "resign": lambda word, rest: self._resign(rest, one, people),
            "hint": lambda word, rest: self._cube_hint(one or people[0]),
        }, lambda line, word, rest: self.other(one or people[0], line, word, now))

    def _answer(self, name: str, prompt: str, now: str, answers: Mapping[str, cmd.Command], first: str) -> None:
        """A prompt that waits for one of ``answers`` (a vote, an answer to a double or to a
        resignation); ``first``: what to say to another known command."""
        self.draw()
        while True:
            line, word, rest = self.ask(prompt)
            if word in answers:
                if self.act(name, answers[word], word, now):
                    return
            elif word == "hint":
                self._cube_hint(name)
            elif self.common(word, rest, now):
                pass
            elif word in _WORDS_HERE or word == "":
                self.error(f"{first}: {now}.")
            else:
                self.prompts.unknown(line, now)

    def _human_vote(self, name: str) -> None:
        """A team member's vote on a proposed team double (R39)."""
        c = self.chouette
        pending, cube = c.pending, c.stakes[name].cube
        assert pending is not None
        prompt = f"{self._who(name)}: {pending[1]} proposes a team double, your stake {cube} to {2 * cube} (R39): agree or refuse? > "
        yes, no = cmd.Consent(), cmd.Refuse()
        answers = {"agree": yes, "consent": yes, "yes": yes, "y": yes, "ok": yes, "refuse": no, "no": no, "n": no}
        self._answer(name, prompt, "agree or refuse the team double", answers, "Vote first")

    def _human_cube(self, name: str) -> None:
        """The box answers the team's double, or a member the box's double (R40)."""
        c = self.chouette
        choices = "take or pass" + (" or beaver" if "beaver" in self.table.actions(name) else "")
        if name == c.box:
            cubes = {c.stakes[m].cube for m in c.team}
            if len(cubes) == 1:
                cube = next(iter(cubes))
                change = f"{'every stake' if len(c.team) > 1 else 'the stake'} {cube} to {2 * cube}"
            else:
                change = ", ".join(f"{m} {c.stakes[m].cube} to {2 * c.stakes[m].cube}" for m in c.team)
            question = f"the team doubles, {change}"
        else:
            cube = c.stakes[name].cube
            question = f"{c.box} (box) doubles, your stake {cube} to {2 * cube} (R40)"
        take, drop = cmd.Take(), cmd.Pass()
        answers = {"take": take, "t": take, "pass": drop, "p": drop, "drop": drop, "beaver": cmd.Beaver()}
        self._answer(name, f"{self._who(name)}: {question}: {choices}? > ", f"{choices} the double", answers, "Answer the double first")

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
        prompt = (
            f"{self._who(name)}: {self._label(by)} offers to resign a {LEVEL_NAMES[level]} "
            f"({_points(points)} {whose}): accept or decline? > "
        )
        yes, no = cmd.Accept(), cmd.Decline()
        answers = {"accept": yes, "a": yes, "y": yes, "yes": yes, "decline": no, "n": no, "no": no, "reject": no}
        self._answer(name, prompt, "accept or decline the resignation", answers, "Answer the resignation first")


# -- from the command line --------------------------------------------------------------------


def run(args: argparse.Namespace, *, stderr: IO[str] | None = None) -> int:
    """Run ``backgammon chouette`` (:func:`backgammon.terminal.app.run_chouette`)."""
    from .app import run_chouette

    return run_chouette(args, stderr=stderr)


def build_chouette_session(args: argparse.Namespace) -> ChouetteSession:
    """:func:`backgammon.terminal.app.build_chouette_session`."""
    from .app import build_chouette_session as build

    return build(args)
