"""The interactive loop of ``backgammon play``: :class:`Session`.

A session plays a match (a money session or a match to N points) at a
:class:`~backgammon.table.Table` between player X (0), always a person, and player O (1), a
bot or a second person at the same keyboard. It draws the board, reads what the person
types and sends it to the table as a command (:class:`~backgammon.terminal.frontend.Frontend`);
the table decides what may happen and what the bot does, so nothing typed can put the game
in a state the rules do not allow: a refusal is shown with its reason and rule, and the
prompt comes again.

A play is tentative until confirmed with Enter (or ``done``); ``undo`` takes it back (R42).
A turn with no legal play passes by itself, with a line saying why (R11). ``double`` doubles
at once; ``d`` asks first. End of input (Ctrl-D), Ctrl-C and unexpected errors save the game
first (:func:`~backgammon.terminal.options.default_autosave_path`), then end the session.

Plays are told in the numbering of the person at the keyboard: against a bot, X's; with two
people at one keyboard, X's too (the board is drawn numbered from the side to act).

The session reads lines through ``read_line`` (default :func:`input`) and writes through a
:class:`rich.console.Console`, so it can be driven in-process:

>>> import io
>>> from backgammon.terminal.options import PlayOptions
>>> from backgammon.terminal.dice import SessionDice
>>> lines = iter(["8/5 6/5", "undo", "2", "", "resign", "accept", "n"])
>>> out = io.StringIO()
>>> session = Session(PlayOptions(opponent="human", delay=0), dice=SessionDice((3, 1)),
...                   console=make_console("never", file=out, width=100),
...                   read_line=lambda prompt: next(lines))
>>> session.run()
0
>>> text = out.getvalue()
>>> "X plays 24/20." in text, "X wins by resignation (a single game): 1 point." in text
(True, True)
"""

from __future__ import annotations

from typing import Any

from ..match import Match
from ..position import Position
from ..table import MatchContest, Narrator, Outcome, Table
from ..table import commands as cmd
from .dice import SessionDice
from .frontend import DOUBLE_WORDS, ROLL_WORDS, Frontend, make_console
from .options import PlayOptions, mirror_corner, rules_in_effect
from .prompts import Quit, resignation_text
from .savefile import match_table
from .view import MARKS, render, scene_of

__all__ = ["DEFAULT_SAVE_NAME", "Session", "make_console"]

#: The file ``save`` writes when no name is given (and no file was resumed).
DEFAULT_SAVE_NAME = "backgammon-save.json"

_HELP = """\
Commands (a word is enough: `r` for roll, `l` for list...):
  Enter / roll      roll the dice (before rolling you may `double`)
  24/18 13/11       a play in standard notation: bar/22*, 6/off, 13/7(2), 8/5*/1 ...
  3                 the play numbered 3 in `list`
  list              the legal plays of the roll, numbered
  hint [N]          the N best plays by the expert network (default 5); advice on the cube
  Enter / done      confirm a play; until then `undo` takes it back (R42)
  undo              take back the play not yet confirmed
  double            offer the cube before rolling (R27, R28; not in the Crawford game, R33);
                    `d` asks first
  take / pass       answer a double (R29); `beaver` where the rules allow it (R30)
  resign [single|gammon|backgammon]   offer to resign (R31); the other side accepts or declines
  accept / decline  answer a resignation (a bot offers one when its game is lost; `hint` advises)
  board             draw the board again
  save [FILE]       save the game (resume with: backgammon play --resume FILE)
  quit              stop (you are offered to save first)
  help              this text"""


class Session(Frontend):
    """One run of ``backgammon play``.

    ``options`` say who plays and how; ``table`` (or ``match``, seated from the options) and
    ``dice`` are given when a saved game is resumed (else made from the options).
    ``console``, ``read_line`` and ``sleep`` are the program's output, input and clock
    (replace them to drive a session in tests). ``save_path`` is where ``save`` writes when
    given no file name.
    """

    HELP = _HELP

    def __init__(self, options: PlayOptions, *, match: Match | None = None, **given: Any) -> None:
        super().__init__(options, saved=match, **given)
        table = self.table
        self.names: tuple[str, str] = (table.seats[0].name, table.seats[1].name)
        self._held: list[Any] = []  # the end of a game and the next game's start, told later
        bot = table.seats[1] if table.seats[1].is_bot else None
        if bot is not None:
            # loading a neural bot builds its tables: say what is going on
            with self.console.status(f"Preparing {bot.kind} (the first start after installing takes a while)..."):
                table.bot(bot.name)

    def new_table(self, options: PlayOptions, dice: SessionDice, saved: Match | None) -> Table:
        return match_table(options, dice, saved)

    @property
    def match(self) -> Match:
        """The match played."""
        return self.contest_as(MatchContest).match

    def _done(self) -> bool:
        return self.match.is_over()

    def viewer(self) -> str | None:
        return self.names[0]

    def corner(self, number: int | None = None) -> str:
        """Where player X's home board is drawn in game ``number`` (default: the current
        one), switching sides after each game when asked (R46)."""
        number = self.match.game_number if number is None else number
        corner: str = self.options.corner
        if self.options.switch_sides and (number - 1) % 2:
            corner = mirror_corner(corner)
        return corner

    def _who(self, player: int) -> str:
        """The start of a prompt: "You" or the player's name with their checker."""
        name = self.names[player]
        return name if name == MARKS[player] else f"{name} ({MARKS[player]})"

    # -- telling ------------------------------------------------------------------------

    def told(self, outcome: Outcome) -> None:
        """Tell the events, holding back the end of a game (told with the final board) and
        the start of the next (told at its opening roll)."""
        events = list(outcome.events)
        cut = next((i for i, e in enumerate(events) if e.type == "game_end"), len(events))
        self._held.extend(events[cut:])
        self.tell(events[:cut])

    def draw(self, *, force: bool = False, board: Position | None = None, note: str = "", number: int = 0) -> None:
        """Draw the board (unless it was drawn already in this state)."""
        match = self.match
        game = match.games[number - 1] if number else match.game
        key = (match.game_number, len(game.events), number)
        if not force and board is None and not note and key == self._shown:
            return
        actor = game.to_act
        numbering = actor if actor is not None and not self.table.seats[actor].is_bot else 0
        fields: dict[str, object] = {"names": self.names, "corner": self.corner(number or None), "numbering": numbering}
        if board is not None:
            fields.update(board=board, ids="")
        if note:
            fields["note"] = note
        scene = scene_of(match, game, **fields)
        self.console.print()
        self.console.print(render(scene, width=self.console.width), soft_wrap=True)
        self._shown = key if board is None and not note else None

    # -- the loop -----------------------------------------------------------------------

    def _welcome(self) -> None:
        opts = self.options
        bot = self.table.seats[1].is_bot
        opponent = f"against {self.names[1]} (bot)" if bot else "two players at one keyboard"
        kind = f"a {opts.match_length}-point match" if opts.match_length else "a money game"
        self.say(f"{'Resuming' if self._resumed else 'Backgammon:'} {kind}, {opponent}.", style="bold")
        extras = rules_in_effect(self.match.rules)
        if extras:
            self.say("Rules: " + ", ".join(extras) + ".")
        if bot:
            name = self.names[0]
            who = f"{name} {'play' if name == 'You' else 'plays'} X and {self.names[1]} plays O"
        else:
            who = f"{self._who(0)} and {self._who(1)} share the keyboard, each with the board numbered from their side"
        corner = self.corner().replace("-", " ")
        self.say(f"{who}. X's home board is at the {corner}. Type `help` for the commands.")

    def _loop(self) -> None:
        contest = self.table.contest
        while True:
            self.run_bots()
            if any(e.type == "game_end" for e in self._held):
                self._game_over()
            if contest.is_over():
                return
            game = self.match.game
            if game.phase.value == "opening":
                self._opening()
                continue
            actor = contest.to_act()[0]
            player = contest.side(actor)
            phase = game.phase.value
            if phase == "roll":
                self._human_roll(actor, player)
            elif phase == "play":
                self.play_turn(actor, self._who(player), lambda rest: self._resign(actor, rest))
            elif phase == "cube":
                self._human_cube(actor, player)
            elif phase == "resign":
                self._human_resignation(actor, player)

    def _opening(self) -> None:
        starts = [e for e in self._held if e.type == "game_start"]
        self._held = []
        number = self.match.game_number
        if starts:
            self.tell(starts)
        elif not self.match.game.events:
            self.console.print()
            self.console.rule(f"Game {number}" + (" - the Crawford game: nobody may double (R33)" if self.match.game.crawford else ""), characters="=")
        if self.options.switch_sides and number > 1:
            self.say(f"Sides switched (R46): X's home board is now at the {self.corner().replace('-', ' ')}.")
        self.act(self.names[0], cmd.Roll())
        self.pause()

    def _game_over(self) -> None:
        held, self._held = self._held, []
        ended = [e for e in held if e.type == "game_end"]
        number = self.match.game_number - (0 if self.match.is_over() else 1)
        self.draw(force=True, note="Game over", number=number)
        self.tell(ended)
        result = ended[-1].result
        counted = self.match.counted_points(number - 1)
        if counted != result.points:
            self.say(f"It counts {counted} in the match: the rest is past the match length.")
        self.say(self._score_text(), style="bold")
        self._held = [e for e in held if e.type == "game_start"]
        if self.match.is_over():
            self.tell(e for e in held if e.type == "match_end")
            self.say("Thanks for playing.")
            return
        if self.match.is_money:
            if not self._ask("Play another game? [Y/n] > ", "answer y or n", "Please answer y (another game) or n (stop here)."):
                self.say(f"Final s{self._score_text()[1:]}", style="bold")
                self.say("Thanks for playing.")
                raise Quit
            return
        notes = " - the Crawford game: nobody may double in it (R33)" if self.match.game.crawford else ""
        self.say(f"Next: game {self.match.game_number}{notes}.")
        self._ask(
            f"Press Enter to start game {self.match.game_number} > ", "press Enter to start the next game",
            "Press Enter to start the next game (or type save, quit or help).", yes_only=True,
        )

    def _ask(self, prompt: str, now: str, again: str, *, yes_only: bool = False) -> bool:
        """A question between games: True for Enter or yes, False for no."""
        while True:
            line, word, rest = self.ask(prompt)
            if word in ("",) or (not yes_only and word in ("y", "yes")):
                return True
            if not yes_only and word in ("n", "no"):
                return False
            if not self.common(word, rest, now):
                self.error(again)

    def _score_text(self) -> str:
        s0, s1 = self.match.capped_score
        n0, n1 = self.names
        if self.match.length:
            return f"Score: {n0} {s0}, {n1} {s1} (match to {self.match.length})."
        return f"Score: {n0} {s0}, {n1} {s1}."

    # -- the person at the keyboard -----------------------------------------------------

    def _resign(self, seat: str, rest: str) -> bool:
        level = self.level(rest)
        if level is None:
            self.error(f"{rest[:40]!r}: resign single, gammon or backgammon (or just `resign` for a single game).")
            return False
        return self.act(seat, cmd.Resign(level), "resign")

    def _cube_hint(self, seat: str, *, answering: bool) -> None:
        from .advice import cube_hint_lines

        contest = self.table.contest
        with self.thinking():
            for line in cube_hint_lines(contest.board(seat), contest.match_state(seat), contest.rules, answering=answering):
                self.say(line)

    def _human_roll(self, seat: str, player: int) -> None:
        can = "double" in self.table.actions(seat)
        if self.options.auto_roll and not can:
            self.act(seat, cmd.Roll())
            return
        self.draw()
        now = "press Enter to roll" + (", or `double`" if can else "")
        prompt = f"{self._who(player)}: Enter to roll{', or double' if can else ''} > "
        cube = 2 * self.match.game.cube_value
        looks = f"Roll first: press Enter to roll{', or type double' if can else ''}."
        self.prompt_loop(prompt, {
            **dict.fromkeys(ROLL_WORDS, lambda word, rest: self.act(seat, cmd.Roll(), word or "roll", now)),
            **dict.fromkeys(DOUBLE_WORDS, lambda word, rest: self.double(seat, word, cmd.Double(), cube, now)),
            "resign": lambda word, rest: self._resign(seat, rest),
            "hint": lambda word, rest: self._cube_hint(seat, answering=False),
        }, lambda line, word, rest: self.other(seat, line, word, now, looks=looks))

    def _human_cube(self, seat: str, player: int) -> None:
        self.draw()
        offer = self.table.contest.offer()
        assert offer is not None
        beaver = "beaver" in self.table.actions(seat)
        choices = "take or pass" + (" or beaver" if beaver else "")
        now = f"{choices} the double to {offer.cube}"
        prompt = f"{self._who(player)}: {offer.by} doubles to {offer.cube}: {choices}? > "
        answers = {"take": cmd.Take(), "t": cmd.Take(), "pass": cmd.Pass(), "p": cmd.Pass(), "drop": cmd.Pass(), "beaver": cmd.Beaver()}

        def otherwise(line: str, word: str, rest: str) -> None:
            if self.common(word, rest, now):
                pass
            elif word in self._KNOWN or word == "":
                self.error(f"Answer the double first: {now}.")
            else:
                self.prompts.unknown(line, now)

        self.prompt_loop(prompt, {
            **dict.fromkeys(answers, lambda word, rest: self.act(seat, answers[word], word, now)),
            "resign": lambda word, rest: self._resign(seat, rest),
            "hint": lambda word, rest: self._cube_hint(seat, answering=True),
            **dict.fromkeys(DOUBLE_WORDS, lambda word, rest: self.error(f"A double is already offered: {now}.")),
        }, otherwise)

    _KNOWN = frozenset({"roll", "r", "accept", "a", "decline", "undo", "u", "done", "ok", "list", "l", "agree", "refuse"})

    def _human_resignation(self, seat: str, player: int) -> None:
        self.draw()
        offer = self.table.contest.offer()
        assert offer is not None
        points = Narrator(self.table, seat).resignation_points(offer.level)
        now = "accept or decline the resignation"
        prompt = (
            f"{self._who(player)}: {offer.by} offers to resign "
            f"{resignation_text(offer.level, points)}: accept or decline? > "
        )
        while True:
            line, word, rest = self.ask(prompt)
            if word in ("accept", "a", "y", "yes"):
                if self.act(seat, cmd.Accept(), word, now):
                    return
            elif word in ("decline", "n", "no", "reject"):
                if self.act(seat, cmd.Decline(), word, now):
                    return
            elif word == "hint":
                from .advice import resignation_hint_lines

                contest = self.table.contest
                with self.thinking():
                    for text in resignation_hint_lines(contest.board(seat), contest.match_state(seat), offer.level):
                        self.say(text)
            elif self.common(word, rest, now):
                pass
            elif word in self._KNOWN or word in ("take", "t", "pass", "p", "double", "d", "resign", "beaver") or word == "":
                self.error(f"Answer the resignation first: {now}.")
            else:
                self.prompts.unknown(line, now)
