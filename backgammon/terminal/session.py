"""The interactive loop of ``backgammon play``: :class:`Session`.

A session plays a :class:`~backgammon.Match` (a money session or a match to N points)
between player X (0), always a person, and player O (1), a bot or a second person at the
same keyboard. It draws the board after every action, reads what the person types, and
acts on the game only through the library, so nothing typed can put the game in a state
the rules do not allow: every :class:`~backgammon.errors.BackgammonError` becomes a short
message and the prompt comes again.

A play is tentative until confirmed with Enter (or ``done``); ``undo`` takes it back (R42).
End of input (Ctrl-D), Ctrl-C and unexpected errors save the game first
(:func:`~backgammon.terminal.options.default_autosave_path`), then end the session.

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

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from rich.console import Console
from rich.text import Text

from ..bots import CubeResponse, load
from ..bots.base import Bot
from ..errors import BackgammonError
from ..events import AutomaticDouble, GameResult, OpeningRoll, Resign, ResultKind
from ..game import Game, Phase
from ..match import Match
from ..move import Move
from ..position import Position
from . import savefile
from .dice import SessionDice
from .options import PlayOptions, default_autosave_path, mirror_corner, rules_in_effect
from .prompts import LEVEL_NAMES, LEVELS, Prompter, Quit, adviser_name, is_expert, resignation_text
from .view import MARKS, STYLES, render, scene_of

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
  double            offer the cube before rolling (R27, R28; not in the Crawford game, R33)
  take / pass       answer a double (R29); `beaver` where the rules allow it (R30)
  resign [single|gammon|backgammon]   offer to resign (R31); the other side accepts or declines
  accept / decline  answer a resignation (a bot offers one when its game is lost; `hint` advises)
  board             draw the board again
  save [FILE]       save the game (resume with: backgammon play --resume FILE)
  quit              stop (you are offered to save first)
  help              this text"""


def make_console(colour: str = "auto", *, file: IO[str] | None = None, width: int | None = None) -> Console:
    """The :class:`rich.console.Console` of a session: no markup, no highlighting, no emoji
    (nothing typed or named is interpreted); plain text when ``colour`` is ``"never"``, when
    ``NO_COLOR`` is set (and ``colour`` is not ``"always"``), or when output is not a terminal.

    >>> import io
    >>> out = io.StringIO()
    >>> make_console("never", file=out).print(Text("[bold]X", style="red")); out.getvalue()
    '[bold]X\\n'
    """
    plain = colour == "never" or (colour == "auto" and bool(os.environ.get("NO_COLOR")))
    return Console(
        file=file,
        width=width,
        markup=False,
        highlight=False,
        emoji=False,
        color_system=None if plain else "auto",
        no_color=plain,
        force_terminal=True if colour == "always" else None,
    )


def _third_person(verb: str) -> str:
    """``roll`` -> ``rolls``, ``pass`` -> ``passes``, ``cannot move`` unchanged."""
    first, _, rest = verb.partition(" ")
    if first in ("cannot", "may", "must", "can"):
        return verb
    irregular = {"have": "has", "are": "is", "do": "does"}
    if first in irregular:
        first = irregular[first]
    elif first.endswith(("s", "sh", "ch", "x", "o")):
        first += "es"
    else:
        first += "s"
    return f"{first} {rest}".rstrip()


class Session:
    """One run of ``backgammon play``.

    ``options`` say who plays and how; ``match`` and ``dice`` are given when a saved game
    is resumed (else made from the options). ``console``, ``read_line`` and ``sleep`` are
    the program's input, output and clock (replace them to drive a session in tests).
    ``save_path`` is where ``save`` writes when given no file name.
    """

    def __init__(
        self,
        options: PlayOptions,
        *,
        match: Match | None = None,
        dice: SessionDice | None = None,
        console: Console | None = None,
        read_line: Callable[[str], str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        save_path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.options = options
        self.dice = dice if dice is not None else SessionDice(options.dice_script, options.seed)
        self.dice.on_script_end = self._script_ended
        self.match = (
            match if match is not None else Match(options.match_length, options.rules, dice=self.dice)
        )
        self.console = console if console is not None else make_console(options.colour)
        self.sleep = sleep
        self.save_path = Path(save_path) if save_path is not None else None
        self.names = options.names
        self.prompts = Prompter(self.console, read_line if read_line is not None else input, self.names)
        self.bot: Bot | None = load(options.opponent, seed=options.seed) if options.is_bot(1) else None
        if self.bot is not None:
            # The first start after installing compiles the engine (numba) and builds its
            # tables: tens of seconds, so say what is going on; later starts take a moment.
            state = self.bot.rng.getstate()  # the warm-up must not change the bot's choices
            with self.console.status(f"Preparing {options.opponent} (the first start after installing takes a while)..."):
                self.bot.choose_move(Position.initial(), (3, 1))
            self.bot.rng.setstate(state)
        self._shown: tuple[int, int, int] | None = None
        self._resumed = match is not None

    # -- running ------------------------------------------------------------------------

    def run(self) -> int:
        """Play until the match ends, the player stops, or input ends; return the exit
        status (0, or 130 after Ctrl-C, 1 after an unexpected error; see the CLI's help)."""
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
        """Say why the session stops, save the game, return ``status``. Output errors (a
        closed terminal) are ignored: the save matters more."""
        try:
            self.console.print()
            self._say(why, style="bold red" if status == 1 else "bold")
        except (OSError, ValueError):
            pass
        self._autosave()
        return status

    def corner(self, game: Game | None = None) -> str:
        """Where player X's home board is drawn in ``game`` (default: the current one),
        switching sides after each game when asked (R46)."""
        games = self.match.games
        number = games.index(game) + 1 if game is not None and game in games else len(games)
        corner = self.options.corner
        if self.options.switch_sides and (number - 1) % 2:
            corner = mirror_corner(corner)
        return corner

    def _welcome(self) -> None:
        opts = self.options
        opponent = f"against {self.names[1]} (bot)" if self.bot else "two players at one keyboard"
        kind = f"a {opts.match_length}-point match" if opts.match_length else "a money game"
        if self._resumed:
            self._say(f"Resuming {kind}, {opponent}.", style="bold")
        else:
            self._say(f"Backgammon: {kind}, {opponent}.", style="bold")
        extras = rules_in_effect(self.match.rules)
        if extras:
            self._say("Rules: " + ", ".join(extras) + ".")
        if self.bot is not None:
            who = f"{self._subject(0, 'play')} X and {self.names[1]} plays O"
        else:
            who = f"{self._who(0)} and {self._who(1)} share the keyboard, each with the board numbered from their side"
        corner = self.corner().replace("-", " ")
        self._say(f"{who}. X's home board is at the {corner}. Type `help` for the commands.")

    def _loop(self) -> None:
        while not self.match.is_over():
            game = self.match.game
            if game.phase is Phase.OPENING:
                self._opening(game)
                continue
            actor = game.to_act
            assert actor is not None
            if self.options.is_bot(actor):
                self._bot_acts(game, actor)
            else:
                self._human_acts(game, actor)
            if game.is_over():
                self._game_over(game)
        self._match_over()

    # -- output -------------------------------------------------------------------------

    def _say(self, message: str | Text, style: str = "") -> None:
        self.prompts.say(message, style)

    def _error(self, message: str) -> None:
        self.prompts.error(message)

    def _pause(self) -> None:
        if self.options.delay:
            self.sleep(self.options.delay)

    def _name(self, player: int) -> Text:
        return Text(self.names[player], style=STYLES[player])

    def _subject(self, player: int, verb: str) -> str:
        name = self.names[player]
        return f"{name} {verb if name == 'You' else _third_person(verb)}"

    def _possessive(self, player: int) -> str:
        name = self.names[player]
        return "Your" if name == "You" else f"{name}'s"

    def _object(self, player: int) -> str:
        name = self.names[player]
        return "you" if name == "You" else name

    def _draw(self, game: Game, *, force: bool = False, **changes: object) -> None:
        """Draw the board of ``game`` (unless it was drawn already in this state)."""
        key = (self.match.game_number, len(game.events), id(game))
        if not force and not changes and key == self._shown:
            return
        actor = game.to_act
        numbering = actor if actor is not None and not self.options.is_bot(actor) else 0
        fields: dict[str, object] = {"names": self.names, "corner": self.corner(game), "numbering": numbering}
        fields.update(changes)
        scene = scene_of(self.match, game, **fields)
        self.console.print()
        self.console.print(render(scene, width=self.console.width), soft_wrap=True)
        self._shown = key if not changes else None

    def _script_ended(self) -> None:
        source = "come from --seed" if self.dice.seed is not None else "are random"
        self._say(f"(The scripted dice are used up: the dice {source} now.)", style="italic")

    # -- input --------------------------------------------------------------------------

    def _common(self, word: str, rest: str, game: Game, player: int, now: str) -> bool:
        """Commands available at every prompt; True when ``word`` was one of them."""
        if word in ("help", "h", "?"):
            self._say(_HELP)
            self._say(f"Now: {now}", style="bold")
        elif word in ("board", "show"):
            self._draw(game, force=True)
        elif word == "save":
            self._save(rest or None)
        elif word in ("quit", "exit", "q"):
            self._quit()
        else:
            return False
        return True

    def _quit(self) -> None:
        self.prompts.ask_quit("the game", lambda: self._save(None))

    def _save(self, name: str | None) -> bool:
        """``save [FILE]``: to FILE (relative to the current folder), else to the file this
        session saves to, else :func:`~backgammon.terminal.options.default_save_path`. An
        existing file other than the session's own is replaced only after asking."""
        from .options import default_save_path

        if name is None:
            path = self.save_path or default_save_path()
        else:
            path = Path(name.strip().strip("'\""))
        try:
            written = savefile.write_asking(
                lambda replace: savefile.save(path, self.options, self.match, self.dice, overwrite=replace),
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
        self._say(f"Game saved to {written}", style="bold")
        self._say(f"Resume it with: backgammon play --resume {written}")
        return True

    def _autosave(self) -> None:
        """On end of input, Ctrl-C or an error: to ``--autosave FILE`` or
        :func:`~backgammon.terminal.options.default_autosave_path` (replaced without asking)."""
        if self.match.is_over():
            return
        configured = self.options.autosave
        path = Path(configured) if configured else default_autosave_path()
        try:
            try:
                written = savefile.save(path, self.options, self.match, self.dice)
            except BackgammonError as exc:
                self._error(f"The game could not be saved: {exc}")
                return
            self._say(f"Game saved to {written}", style="bold")
            self._say(f"Resume it with: backgammon play --resume {written}")
        except (OSError, ValueError):
            pass

    # -- the opening and the end --------------------------------------------------------

    def _opening(self, game: Game) -> None:
        number = self.match.game_number
        title = f"Game {number}"
        if game.crawford:
            title += " - the Crawford game: nobody may double (R33)"
        elif self.match.length and self.match.post_crawford and number > 1:
            title += " (post-Crawford)"
        self.console.print()
        self.console.rule(title, characters="=")
        if self.options.switch_sides and number > 1:
            self._say(
                f"Sides switched (R46): X's home board is now at the {self.corner().replace('-', ' ')}."
            )
        before = len(game.events)
        game.roll()
        for event in game.events[before:]:
            if isinstance(event, OpeningRoll):
                a, b = event.dice
                line = Text("Opening roll: ")
                line.append_text(self._name(0))
                line.append(f" {a}, ")
                line.append_text(self._name(1))
                line.append(f" {b}")
                if a == b:
                    line.append(": a tie, both roll again (R4).")
                self._say(line)
            elif isinstance(event, AutomaticDouble):
                self._say(f"Automatic double (R6): the cube is now at {event.cube}.", style="bold")
        first = game.on_roll
        assert first is not None
        if game.phase is Phase.PLAY:
            assert game.dice is not None
            self._say(f"{self._subject(first, 'go')} first, playing {game.dice[0]}-{game.dice[1]}.")
        else:
            self._say(
                f"{self._subject(first, 'go')} first and {'roll' if self.names[first] == 'You' else 'rolls'} again (R5)."
            )
        self._pause()

    def _result_text(self, result: GameResult) -> str:
        winner, loser = result.winner, result.loser
        level = LEVEL_NAMES[result.level]
        points = f"{result.points} point{'s' if result.points != 1 else ''}"
        if result.kind is ResultKind.PASSED:
            return f"{self._subject(loser, 'pass')} the double: {self._subject(winner, 'win')} {points}."
        if result.kind is ResultKind.RESIGNED:
            what = f"{self._subject(winner, 'win')} by resignation (a {level}): {points}."
        else:
            what = f"{self._subject(winner, 'win')} a {level}: {points}."
        if result.multiplier < result.level:
            if result.level == 3 and self.match.rules.backgammon_counts_as_gammon and result.multiplier == 2:
                what += " (A backgammon counts as a gammon under these rules, R24.)"
            else:
                what += " (Jacoby rule: the cube was not turned, so it counts as a single game, R25.)"
        if result.cube > 1:
            what += f" (Cube at {result.cube}.)"
        return what

    def _score_text(self) -> str:
        s0, s1 = self.match.capped_score
        n0, n1 = self.names
        if self.match.length:
            return f"Score: {n0} {s0}, {n1} {s1} (match to {self.match.length})."
        return f"Score: {n0} {s0}, {n1} {s1}."

    def _game_over(self, game: Game) -> None:
        result = game.result
        assert result is not None
        index = self.match.games.index(game)
        self._draw(game, force=True, note="Game over")
        self._say(self._result_text(result), style="bold")
        counted = self.match.counted_points(index)
        if counted != result.points:
            self._say(f"It counts {counted} in the match: the rest is past the match length.")
        self._say(self._score_text(), style="bold")
        if self.match.is_over():
            return
        if self.match.is_money:
            if not self._ask_another():
                self._say(f"Final s{self._score_text()[1:]}", style="bold")
                self._say("Thanks for playing.")
                raise Quit
            return
        nxt = self.match.game
        notes = []
        if nxt.crawford:
            notes.append("the Crawford game: nobody may double in it (R33)")
        self._say(f"Next: game {self.match.game_number}{' - ' + notes[0] if notes else ''}.")
        while True:
            line = self.prompts.read(f"Press Enter to start game {self.match.game_number} > ")
            word, _, rest = line.partition(" ")
            if not line:
                return
            if self._common(word.lower(), rest.strip(), nxt, 0, "press Enter to start the next game"):
                continue
            self._error("Press Enter to start the next game (or type save, quit or help).")

    def _ask_another(self) -> bool:
        while True:
            answer = self.prompts.read("Play another game? [Y/n] > ")
            word, _, rest = answer.lower().partition(" ")
            if word in ("", "y", "yes"):
                return True
            if word in ("n", "no"):
                return False
            if self._common(word, rest.strip(), self.match.game, 0, "answer y or n"):
                continue
            self._error("Please answer y (another game) or n (stop here).")

    def _match_over(self) -> None:
        winner = self.match.winner
        if winner is None:
            return
        s0, s1 = self.match.capped_score
        high, low = max(s0, s1), min(s0, s1)
        self._say(
            f"{self._subject(winner, 'win')} the {self.match.length}-point match {high}-{low}!", style="bold"
        )
        self._say("Thanks for playing.")

    # -- the bot ------------------------------------------------------------------------

    def _bot_acts(self, game: Game, player: int) -> None:
        bot = self.bot
        assert bot is not None
        state = self.match.match_state()
        view = game.board(player)
        name = self.names[player]
        phase = game.phase
        if phase is Phase.ROLL:
            if self._bot_resigns(game, player, bot.offer_resignation(view, state)):
                return
            if game.can_double() and bot.should_double(view, state):
                game.double()
                self._say(f"{name} doubles to {2 * game.cube_value}.", style="bold")
                self._pause()
                return
            game.roll()
            assert game.dice is not None
            self._say(f"{name} rolls {game.dice[0]}-{game.dice[1]}.")
            self._pause()
            phase = game.phase
        if phase is Phase.PLAY:
            legal = game.legal_moves()
            dice = game.dice
            assert dice is not None
            if not len(legal):
                game.play(Move())
                self._say(f"{name} cannot move with {dice[0]}-{dice[1]}: the turn passes (R11).")
            else:
                move = legal[bot.choose_index(legal)]
                game.play(move)
                forced = " (the only legal play)" if len(legal) == 1 else ""
                self._say(f"{name} plays {move}{forced}.", style=STYLES[player])
            self._pause()
        elif phase is Phase.CUBE:
            answer = bot.respond_to_double(view, state)
            if answer is CubeResponse.BEAVER and game.rules.beavers_apply and Phase.CUBE is game.phase:
                try:
                    game.beaver()
                except BackgammonError:
                    answer = CubeResponse.TAKE
                else:
                    self._say(
                        f"{name} beavers (R30): the cube is at {game.cube_value}, owned by {name}.",
                        style="bold",
                    )
            if answer is CubeResponse.PASS:
                game.pass_double()
                self._say(f"{name} passes.", style="bold")
            elif answer is not CubeResponse.BEAVER or game.phase is Phase.CUBE:
                game.take()
                self._say(f"{name} takes: the cube is at {game.cube_value}, owned by {name}.", style="bold")
            self._pause()
        elif phase is Phase.RESIGN:
            offer = game.resignation
            assert offer is not None
            if bot.accept_resignation(view, state, offer[1]):
                game.accept()
                self._say(f"{name} accepts the resignation.", style="bold")
            else:
                game.decline()
                self._say(f"{name} declines the resignation: play goes on.", style="bold")
            self._pause()

    def _bot_resigns(self, game: Game, player: int, level: int) -> bool:
        """Make the bot's resignation offer of ``level`` (0: none; R31), unless it offered
        that level or a higher one already in this game and was declined (gnubg's rule: an
        offer is not repeated). The person answers at the next prompt."""
        offered = [e.level for e in game.events if isinstance(e, Resign) and e.player == player]
        if not level or level <= max(offered, default=0):
            return False
        game.resign(level, player=player)
        self._say(
            f"{self.names[player]} offers to resign {resignation_text(level, self._points(game, level))}.",
            style="bold",
        )
        self._pause()
        return True

    @staticmethod
    def _points(game: Game, level: int) -> int:
        """What a resignation of ``level`` is worth in ``game`` now (cube, R24, R25)."""
        return game.cube_value * game.rules.multiplier(level, game.cube_owner is None)

    # -- the person at the keyboard -----------------------------------------------------

    def _human_acts(self, game: Game, player: int) -> None:
        phase = game.phase
        if phase is Phase.ROLL:
            self._human_roll(game, player)
        elif phase is Phase.PLAY:
            self._human_play(game, player)
        elif phase is Phase.CUBE:
            self._human_cube(game, player)
        elif phase is Phase.RESIGN:
            self._human_resignation(game, player)

    def _who(self, player: int) -> str:
        """The start of a prompt: "You" or the player's name with their checker."""
        name = self.names[player]
        return name if name == MARKS[player] else f"{name} ({MARKS[player]})"

    def _roll(self, game: Game, player: int) -> None:
        game.roll()
        assert game.dice is not None
        self._say(f"{self._subject(player, 'roll')} {game.dice[0]}-{game.dice[1]}.")

    def _double(self, game: Game, player: int) -> bool:
        if game.crawford:
            self._error(
                "No doubling in the Crawford game (R33): the cube is out of play until the next game."
            )
            return False
        if game.phase is Phase.PLAY:
            owner = game.cube_owner
            if owner is not None and owner != player:
                self._error(f"{self.names[owner]} owns the cube: only its owner may redouble (R27).")
            elif not game.rules.may_double_to(2 * game.cube_value):
                self._error(f"The cube is at its limit of {game.rules.cube_limit} (R26).")
            else:
                self._error("The dice are already rolled: a double comes before the roll (R28).")
            return False
        try:
            game.double(player=player)
        except BackgammonError as exc:
            self._error(f"You cannot double now: {self.prompts.clean(exc)}.")
            return False
        self._say(f"{self._subject(player, 'double')} to {2 * game.cube_value}.", style="bold")
        return True

    def _resign(self, game: Game, player: int, rest: str) -> bool:
        level = LEVELS.get(rest.strip().lower() or "single")
        if level is None:
            self._error(
                f"{rest!r}: resign single, gammon or backgammon (or just `resign` for a single game)."
            )
            return False
        try:
            game.resign(level, player=player)
        except BackgammonError as exc:
            self._error(f"You cannot resign now: {self.prompts.clean(exc)}.")
            return False
        self._say(
            f"{self._subject(player, 'offer')} to resign {resignation_text(level, self._points(game, level))}.",
            style="bold",
        )
        return True

    def _not_now(self, word: str, game: Game, now: str) -> None:
        """Explain why a known command cannot be used now."""
        reasons = {
            "roll": "the dice are already rolled"
            if game.phase is Phase.PLAY
            else "it is not the time to roll",
            "take": "no double has been offered",
            "pass": "no double has been offered",
            "drop": "no double has been offered",
            "beaver": "no double has been offered",
            "accept": "no resignation has been offered",
            "decline": "no resignation has been offered",
            "undo": "there is no unconfirmed play to take back (a play can be changed only until it is confirmed, R42)",
            "done": "there is no play to confirm",
            "list": "there are no dice to play yet",
            "resign": "you cannot resign now",
        }
        if game.phase is Phase.CUBE:
            reasons["roll"] = "a double is waiting for an answer"
        self._error(f"`{word}` is not possible now: {reasons.get(word, 'not now')}. Now: {now}")

    _KNOWN = frozenset(
        {
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
        }
    )

    def _human_roll(self, game: Game, player: int) -> None:
        if self.options.auto_roll and not game.can_double(player):
            self._roll(game, player)
            return
        self._draw(game)
        can = game.can_double(player)
        now = "press Enter to roll" + (", or `double`" if can else "")
        prompt = f"{self._who(player)}: Enter to roll{', or double' if can else ''} > "
        while True:
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if word in ("", "roll", "r"):
                self._roll(game, player)
                return
            if word in ("double", "d"):
                if self._double(game, player):
                    return
                continue
            if word == "resign":
                if self._resign(game, player, rest):
                    return
                continue
            if word == "hint":
                self._cube_hint(game, player)
                continue
            if self._common(word, rest, game, player, now):
                continue
            if word in self._KNOWN:
                self._not_now(word, game, now)
            elif re.match(r"^(\d|bar|b/)", word):
                self._error(f"Roll first: press Enter to roll{', or type double' if can else ''}.")
            else:
                self.prompts.unknown(line, now)

    def _human_cube(self, game: Game, player: int) -> None:
        self._draw(game)
        doubler = 1 - player
        beaver = game.rules.beavers_apply and game.rules.may_double_to(4 * game.cube_value)
        choices = "take or pass" + (" or beaver" if beaver else "")
        now = f"{choices} the double to {2 * game.cube_value}"
        prompt = f"{self._who(player)}: {self.names[doubler]} doubles to {2 * game.cube_value}: {choices}? > "
        while True:
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            try:
                if word in ("take", "t"):
                    game.take(player=player)
                    self._say(
                        f"{self._subject(player, 'take')}: the cube is at {game.cube_value}, "
                        f"owned by {self._object(player)}.",
                        style="bold",
                    )
                    return
                if word in ("pass", "p", "drop"):
                    game.pass_double(player=player)
                    return
                if word == "beaver":
                    game.beaver(player=player)
                    self._say(
                        f"{self._subject(player, 'beaver')} (R30): the cube is at {game.cube_value}, "
                        f"owned by {self._object(player)}.",
                        style="bold",
                    )
                    return
            except BackgammonError as exc:
                self._error(f"Not possible: {self.prompts.clean(exc)}. Now: {now}")
                continue
            if word == "resign":
                if self._resign(game, player, rest):
                    return
                continue
            if word == "hint":
                self._cube_hint(game, player)
                continue
            if word in ("double", "d") and not game.crawford:
                self._error(f"A double is already offered: {now}.")
                continue
            if word in ("double", "d"):
                self._double(game, player)
                continue
            if self._common(word, rest, game, player, now):
                continue
            if word in self._KNOWN or word == "":
                self._error(f"Answer the double first: {now}.")
            else:
                self.prompts.unknown(line, now)

    def _human_resignation(self, game: Game, player: int) -> None:
        self._draw(game)
        offer = game.resignation
        assert offer is not None
        resigner, level = offer
        now = "accept or decline the resignation"
        prompt = (
            f"{self._who(player)}: {self.names[resigner]} offers to resign "
            f"{resignation_text(level, self._points(game, level))}: accept or decline? > "
        )
        while True:
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if word in ("accept", "a", "y", "yes"):
                game.accept(player=player)
                self._say(f"{self._subject(player, 'accept')}.", style="bold")
                return
            if word in ("decline", "n", "no", "reject"):
                game.decline(player=player)
                self._say(f"{self._subject(player, 'decline')}: play goes on.", style="bold")
                return
            if word == "hint":
                self._resignation_hint(game, player, level)
                continue
            if self._common(word, rest, game, player, now):
                continue
            if word in self._KNOWN or word == "":
                self._error(f"Answer the resignation first: {now}.")
            else:
                self.prompts.unknown(line, now)

    def _resignation_hint(self, game: Game, player: int, level: int) -> None:
        """``hint`` at a resignation: the adviser's answer to it (R31)."""
        adviser = self.prompts.advisor()
        name = adviser_name(adviser)
        accept = adviser.accept_resignation(game.board(player), self.match.match_state(), level)
        self._say(f"{name}'s advice: {'accept' if accept else 'decline'}.")

    def _cube_hint(self, game: Game, player: int) -> None:
        adviser = self.prompts.advisor()
        state = self.match.match_state()
        view = game.board(player)
        name = adviser_name(adviser)
        if game.phase is Phase.CUBE:
            answer = adviser.respond_to_double(view, state)
            if answer is CubeResponse.BEAVER and not game.rules.beavers_apply:
                answer = CubeResponse.TAKE
            self._say(f"{name}'s advice: {answer.value}.")
        elif game.can_double(player):
            if is_expert(adviser):
                from ..bots.neural import ExpertBot

                assert isinstance(adviser, ExpertBot)
                d = adviser.cube_decision(view, state, player)
                unit = "" if state.is_money else " (match winning chances)"
                self._say(
                    f"{name}'s cube advice: {d.action}{unit}: no double {d.no_double:+.3f}, "
                    f"double/take {d.double_take:+.3f}, double/pass {d.double_pass:+.3f}."
                )
            else:
                advice = "double" if adviser.should_double(view, state) else "no double: roll"
                self._say(f"{name}'s advice: {advice}.")
        else:
            self._say("No cube decision now: roll the dice (press Enter).")

    def _human_play(self, game: Game, player: int) -> None:
        legal = game.legal_moves()
        dice = game.dice
        assert dice is not None
        roll = f"{dice[0]}-{dice[1]}"
        self._draw(game)
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
            if tentative is None:
                if not len(legal):
                    prompt = f"{self._who(player)}: Enter to pass the turn > "
                elif len(legal) == 1:
                    prompt = f"{self._who(player)}: Enter to play {legal[0]} > "
                else:
                    prompt = f"{self._who(player)}: play {roll} > "
            else:
                prompt = f"{self._who(player)}: Enter to confirm {legal[tentative]}, or undo > "
            line = self.prompts.read(prompt)
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if word in ("", "done", "ok", "confirm"):
                if tentative is not None:
                    self._commit(game, player, legal[tentative])
                    return
                if len(legal) <= 1:
                    self._commit(game, player, legal[0] if len(legal) else Move())
                    return
                if word:
                    self._not_now("done", game, now)
                else:
                    self._error(f"Type your play first: {now}.")
                continue
            if word in ("undo", "u"):
                if tentative is None:
                    self._not_now("undo", game, now)
                    continue
                self._say(f"Taken back: {legal[tentative]}.")
                tentative = None
                self._draw(game, force=True)
                continue
            if word in ("list", "l"):
                self.prompts.list_plays(legal)
                continue
            if word == "hint":
                self.prompts.hint(legal, rest)
                continue
            if word in ("double", "d"):
                self._double(game, player)
                continue
            if word == "resign":
                if self._resign(game, player, rest):
                    return
                continue
            if word in ("pass", "p") and not len(legal):
                self._commit(game, player, Move())
                return
            if word in ("pass", "p"):
                self._error(
                    f"There is a legal play, so you must play (R11); `pass` answers a double. Now: {now}"
                )
                continue
            if tentative is not None and word in ("save", "quit", "exit", "q"):
                self._say(f"(The play {legal[tentative]} is not confirmed: it is not saved.)")
            if self._common(word, rest, game, player, now):
                continue
            if word in self._KNOWN:
                self._not_now(word, game, now)
                continue
            choice = self.prompts.read_play(line, legal, dice, now)
            if choice is None:
                continue
            tentative = choice
            move = legal[tentative]
            after = legal.position(tentative)
            board0 = after.swap() if player == 0 else after
            self._draw(game, board=board0, note=f"Tentative: {move}", ids="")
            self._say(f"Tentative play: {move}. Press Enter (or `done`) to confirm, `undo` to take it back.")

    def _commit(self, game: Game, player: int, move: Move) -> None:
        dice = game.dice
        assert dice is not None
        game.play(move, player=player)
        if move.is_pass():
            self._say(f"{self._subject(player, 'cannot move')} with {dice[0]}-{dice[1]}: the turn passes.")
        else:
            self._say(f"{self._subject(player, 'play')} {move}.", style=STYLES[player])
