"""What ``backgammon play`` and ``backgammon chouette`` share: :class:`Frontend`, a terminal
in front of a :class:`~backgammon.table.Table`.

The flow of play is the table's (:mod:`backgammon.table`): who acts, what a bot decides, the
tentative play (R42), the refusals. A front end only reads lines, turns them into
:mod:`~backgammon.table.commands` sent from the seat of the person at the prompt
(:meth:`Frontend.act`), lets the bots act (:meth:`Frontend.run_bots`, through
:meth:`Table.play_bot <backgammon.table.Table.play_bot>`) and prints the narrator's sentences
(:meth:`Frontend.tell`, tones as styles: ``side0`` / ``side1`` the checkers' colours,
``strong`` bold, ``title`` a rule line) and the refusals (``reason (rule)``).

Here too: the run with its endings (Ctrl-D, Ctrl-C, an error: saved first), ``save`` and
``quit``, the commands of every prompt (``help``, ``board``, ``save``, ``quit``), the prompt
of a play (notation or a ``list`` number, Enter to confirm, ``undo``), ``hint`` with a
"Thinking..." status while the engine warms up (:func:`~backgammon.bots.analysis.warm_up_in_background`
starts with the session), and the ``d`` that asks before doubling.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, ClassVar, TypeVar

from rich.console import Console

from ..errors import BackgammonError, Refusal
from ..position import Position
from ..table import Narrator, Outcome, Table
from ..table import commands as cmd
from . import savefile
from .dice import SessionDice
from .prompts import LEVELS, Prompter, Quit, read_line as read_terminal_line, shown
from .view import STYLES

__all__ = ["DOUBLE_WORDS", "ROLL_WORDS", "WORDS", "Frontend", "Handler", "make_console"]

_C = TypeVar("_C")
#: What a word typed at a prompt does, given the word and the rest of the line: True when the
#: prompt is done (:meth:`Frontend.prompt_loop`).
Handler = Callable[[str, str], "bool | None"]
#: The words that roll (Enter alone too) and that double.
ROLL_WORDS = ("", "roll", "r")
DOUBLE_WORDS = ("double", "d")

#: The commands that the short words typed at a prompt stand for (to say why they are refused).
WORDS: dict[str, cmd.Command] = {
    "roll": cmd.Roll(), "r": cmd.Roll(), "double": cmd.Double(), "d": cmd.Double(),
    "take": cmd.Take(), "t": cmd.Take(), "pass": cmd.Pass(), "p": cmd.Pass(), "drop": cmd.Pass(),
    "beaver": cmd.Beaver(), "accept": cmd.Accept(), "a": cmd.Accept(), "decline": cmd.Decline(),
    "agree": cmd.Consent(), "consent": cmd.Consent(), "refuse": cmd.Refuse(), "undo": cmd.Undo(),
    "u": cmd.Undo(), "done": cmd.Confirm(), "ok": cmd.Confirm(), "resign": cmd.Resign(),
}
_LOOKS = frozenset({"list", "l", "hint"})
_TONES = {"plain": "", "strong": "bold", "side0": STYLES[0], "side1": STYLES[1]}


def make_console(colour: str = "auto", *, file: IO[str] | None = None, width: int | None = None) -> Console:
    """The :class:`rich.console.Console` of a session: no markup, no highlighting, no emoji
    (nothing typed or named is interpreted); plain text when ``colour`` is ``"never"``, when
    ``NO_COLOR`` is set (and ``colour`` is not ``"always"``), or when output is not a terminal.

    >>> import io
    >>> from rich.text import Text
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


def split(line: str) -> tuple[str, str]:
    """The first word of ``line`` (lower case) and the rest."""
    word, _, rest = line.partition(" ")
    return word.lower(), rest.strip()


class Frontend:
    """A terminal session at a :class:`~backgammon.table.Table`. Subclasses say what is
    played (:attr:`KIND`: ``"game"`` or ``"chouette"``), draw it and run the prompts."""

    KIND: ClassVar[str] = "game"
    #: the program (``backgammon play``) and what it saves (``Game``)
    PROGRAM: ClassVar[str] = "play"
    SAVED: ClassVar[str] = "Game"
    #: the default save file and automatic save file (names in :func:`savefile.default_path`)
    SAVE_FILES: ClassVar[tuple[str, str]] = (savefile.PLAY_SAVE, savefile.PLAY_AUTOSAVE)
    HELP: ClassVar[str] = ""

    def __init__(
        self,
        options: Any,
        *,
        saved: Any = None,
        table: Table | None = None,
        dice: SessionDice | None = None,
        console: Console | None = None,
        read_line: Callable[[str], str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        save_path: str | os.PathLike[str] | None = None,
    ) -> None:
        """``options`` say who plays and how; ``table`` (or ``saved``: the match or the
        chouette, seated from the options by :meth:`new_table`) and ``dice`` are given when a
        saved session is resumed (else made from the options). ``console``, ``read_line`` and
        ``sleep`` are the program's output, input and clock (replace them to drive a session
        in tests); ``save_path`` is where ``save`` writes when given no file name."""
        dice = dice if dice is not None else SessionDice(options.dice_script, options.seed)
        resumed = saved is not None or table is not None
        if table is None:
            table = self.new_table(options, dice, saved)
        self.options = options
        self.table = table
        self.dice = dice
        self.dice.on_script_end = self._script_ended
        self.console = console if console is not None else make_console(options.colour)
        self.prompts = Prompter(self.console, read_line if read_line is not None else read_terminal_line)
        self.sleep = sleep
        self.save_path = Path(save_path) if save_path is not None else None
        self._resumed = resumed
        self._shown: object = None
        self._warming: threading.Thread | None = None
        self._narrator: Narrator | None = None

    # -- running ------------------------------------------------------------------------

    def run(self) -> int:
        """Play until the end, until the players stop, or until input ends; return the exit
        status (0, or 130 after Ctrl-C, 1 after an unexpected error; see the CLI's help)."""
        try:
            self._warm_up()
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

    def new_table(self, options: Any, dice: SessionDice, saved: Any) -> Table:
        """The table of a new session (``saved`` None) or of a saved match or chouette,
        seated from ``options``."""
        raise NotImplementedError

    def contest_as(self, kind: type[_C]) -> _C:
        """The table's contest, which is a ``kind`` (``MatchContest``, ``ChouetteContest``)."""
        contest = self.table.contest
        assert isinstance(contest, kind)
        return contest

    def _welcome(self) -> None:
        raise NotImplementedError

    def _loop(self) -> None:
        raise NotImplementedError

    def _warm_up(self) -> None:
        """Load and compile the engine behind ``hint`` (and the neural bots) in the
        background (:func:`~backgammon.bots.analysis.warm_up_in_background`, a thread that
        never receives Ctrl-C), so that the first hint does not keep the player waiting long."""
        from ..bots.analysis import warm_up_in_background

        self._warming = warm_up_in_background()

    @contextlib.contextmanager
    def thinking(self) -> Iterator[None]:
        """A "Thinking..." status around advice that must wait for the engine."""
        if self._warming is not None and self._warming.is_alive():
            with self.console.status("Thinking... (the engine is starting: the first hint takes a few seconds)"):
                self._warming.join()
                yield
        else:
            yield

    def _stop(self, why: str, status: int) -> int:
        """Say why the session stops, save, return ``status``. Output errors (a closed
        terminal) are ignored: the save matters more."""
        try:
            self.console.print()
            self.say(why, style="bold red" if status == 1 else "bold")
        except (OSError, ValueError):
            pass
        self._autosave()
        return status

    # -- saving -------------------------------------------------------------------------

    def _write(self, path: Path, overwrite: bool = True) -> Path:
        return savefile.save_table(path, self.options, self.table, self.dice, overwrite=overwrite)

    def _default_path(self, autosave: bool) -> Path:
        return savefile.default_path(self.SAVE_FILES[autosave])

    def _done(self) -> bool:
        """True when nothing is left to save (a finished match)."""
        return False

    def _saved(self, written: Path) -> None:
        self.say(f"{self.SAVED} saved to {written}", style="bold")
        self.say(f"Resume it with: backgammon {self.PROGRAM} --resume {written}")

    def save(self, name: str | None) -> bool:
        """``save [FILE]``: to FILE (relative to the current folder), else to the file this
        session saves to, else the default save file. An existing file other than the
        session's own is replaced only after asking."""
        path = (self.save_path or self._default_path(False)) if name is None else Path(name.strip().strip("'\""))
        try:
            written = savefile.write_asking(
                lambda replace: self._write(path, replace),
                path,
                self.prompts.read,
                overwrite=savefile.same_file(path, self.save_path),
            )
        except BackgammonError as exc:
            self.error(f"Not saved: {exc}")
            return False
        if written is None:
            self.say("Not saved.")
            return False
        self.save_path = path
        self._saved(written)
        return True

    def _autosave(self) -> None:
        """On end of input, Ctrl-C or an error: to ``--autosave FILE`` or the default
        automatic save file (replaced without asking)."""
        if self._done():
            return
        configured = self.options.autosave
        path = Path(configured) if configured else self._default_path(True)
        try:
            try:
                written = self._write(path)
            except BackgammonError as exc:
                self.error(f"The {self.KIND} could not be saved: {exc}")
                return
            self._saved(written)
        except (OSError, ValueError):
            pass

    # -- output -------------------------------------------------------------------------

    def say(self, message: str, style: str = "") -> None:
        self.prompts.say(message, style)

    def error(self, message: str) -> None:
        self.prompts.error(message)

    def pause(self) -> None:
        if self.options.delay:
            self.sleep(self.options.delay)

    def _script_ended(self) -> None:
        source = "come from --seed" if self.dice.seed is not None else "are random"
        self.say(f"(The scripted dice are used up: the dice {source} now.)", style="italic")

    def viewer(self) -> str | None:
        """The seat whose numbering the narration uses (``None``: side 0's)."""
        return None

    def tell(self, events: Iterable[Any]) -> None:
        """Print the narrator's sentences for ``events``."""
        viewer = self.viewer()
        if self._narrator is None or self._narrator.viewer != viewer:
            self._narrator = Narrator(self.table, viewer)  # it remembers the last roll
        for line in self._narrator.lines(events):
            if line.tone == "title":
                self.console.print()
                self.console.rule(line.text, characters="=")
            else:
                self.say(line.text, style=_TONES.get(line.tone, ""))

    def told(self, outcome: Outcome) -> None:
        """Narrate what an accepted command did (a hook: the match holds back the end of a game)."""
        self.tell(outcome.events)

    def act(self, seat: str, command: cmd.Command, word: str = "", now: str = "") -> bool:
        """Send ``command`` from ``seat``; narrate it, or say why it was refused (``word``:
        what was typed, ``now``: what the prompt expects). True when it was accepted."""
        outcome = self.table.submit(seat, command)
        if outcome.refusal is not None:
            self.refused(outcome.refusal, word or command.type, now)
            return False
        self.told(outcome)
        return True

    def refused(self, refusal: Refusal, word: str, now: str = "") -> None:
        """Say that ``word`` cannot be done now, and why."""
        after = f" Now: {now}" if now else ""
        self.error(f"`{word}` is not possible now: {refusal}.{after}")

    def run_bots(self) -> None:
        """Let every bot that must act act, telling what it does."""
        while (seat := self.table.bot_to_act()) is not None:
            self.told(self.table.play_bot(seat))
            self.after_bot()
            self.pause()

    def after_bot(self) -> None:
        """Called after each bot action (the chouette draws the board when only bots play)."""

    # -- input --------------------------------------------------------------------------

    def ask(self, prompt: str) -> tuple[str, str, str]:
        """A line from the keyboard, its first word (lower case) and the rest."""
        line = self.prompts.read(prompt)
        return (line, *split(line))

    def prompt_loop(self, prompt: str, handlers: Mapping[str, Handler],
                    otherwise: Callable[[str, str, str], None]) -> None:
        """Ask at ``prompt`` until a handler says the prompt is done: ``handlers`` maps the
        first word typed to what it does; any other line goes to ``otherwise(line, word,
        rest)``."""
        while True:
            line, word, rest = self.ask(prompt)
            handler = handlers.get(word)
            if handler is None:
                otherwise(line, word, rest)
            elif handler(word, rest):
                return

    def draw(self, *, force: bool = False, board: Position | None = None, note: str = "") -> None:
        raise NotImplementedError

    def extra(self, word: str, rest: str) -> bool:
        """Commands of every prompt that a subclass adds (``status`` in a chouette)."""
        return False

    def common(self, word: str, rest: str, now: str) -> bool:
        """Commands available at every prompt; True when ``word`` was one of them."""
        if word in ("help", "h", "?"):
            self.say(self.HELP)
            self.say(f"Now: {now}", style="bold")
        elif word in ("board", "show"):
            self.draw(force=True)
        elif word == "save":
            self.save(rest or None)
        elif word in ("quit", "exit", "q"):
            self.prompts.ask_quit(f"the {self.KIND}", lambda: self.save(None))
        elif not self.extra(word, rest):
            return False
        return True

    def other(self, seat: str, line: str, word: str, now: str, *, looks: str = "") -> None:
        """The end of every prompt: a command of every prompt, a known word that cannot be
        used now (the table's refusal), or not a command (``looks``: the answer to a play
        typed before the roll)."""
        if self.common(word, split(line)[1], now):
            return
        command = WORDS.get(word)
        if command is not None:
            refusal = self.table.check(self.table.contest.to_act()[0] if word == "undo" else seat, command)
            self.refused(refusal or Refusal(command.type, seat, None, "not at this prompt"), word, now)
        elif word in _LOOKS:
            self.error(f"`{word}` is not possible now: there are no dice to play yet. Now: {now}")
        elif looks and (word[:1].isdigit() or word.startswith(("bar", "b/"))):
            self.error(looks)
        else:
            self.prompts.unknown(line, now)

    def double(self, seat: str, word: str, command: cmd.Command, cube: int, now: str) -> bool:
        """``double`` (a whole word: at once) or ``d`` (asks ``Double to N? [y/N]`` first)."""
        refusal = self.table.check(seat, command)
        if refusal is not None:
            self.refused(refusal, word, now)
            return False
        if word != "double" and not self.prompts.confirm(f"Double to {cube}?"):
            self.say("No double.")
            return False
        return self.act(seat, command, word, now)

    @staticmethod
    def level(rest: str) -> int | None:
        """The resignation level (R31) named in ``rest`` (1 when none), or None."""
        return LEVELS.get(rest.strip().lower() or "single")

    # -- the play of a roll (R42) --------------------------------------------------------

    def play_turn(self, seat: str, who: str, resign: Callable[[str], bool]) -> None:
        """The person at ``seat`` plays the roll: a play typed (or a ``list`` number) is
        tentative until Enter confirms it, ``undo`` takes it back (R42). With no legal play
        the turn passes by itself, with a line saying why (R11). ``resign(rest)`` handles
        ``resign`` (True when an offer was made)."""
        table, contest = self.table, self.table.contest
        legal = contest.legal_moves()
        dice = contest.dice
        assert dice is not None
        dice = (max(dice), min(dice))
        roll = f"{dice[0]}-{dice[1]}"
        self.draw()
        if not len(legal):
            self.act(seat, cmd.Confirm())
            self.pause()
            return
        if len(legal) == 1:
            self.say(f"Only one legal play with {roll}: {legal[0]}.", style="bold")
            now = f"press Enter to play {legal[0]}"
        else:
            now = f"type a play for {roll} like {legal[0]}, a number from `list` (1-{len(legal)}), or `hint`"
        while True:
            tentative = table.tentative
            if tentative is not None:
                prompt = f"{who}: Enter to confirm {tentative.move}, or undo > "
            elif len(legal) == 1:
                prompt = f"{who}: Enter to play {legal[0]} > "
            else:
                prompt = f"{who}: play {roll} > "
            line, word, rest = self.ask(prompt)
            if word in ("", "done", "ok", "confirm"):
                if word or tentative is not None or len(legal) == 1:
                    if self.act(seat, cmd.Confirm(), word or "done", now):
                        return
                else:
                    self.error(f"Type your play first: {now}.")
            elif word in ("undo", "u"):
                if self.act(seat, cmd.Undo(), word, now) and tentative is not None:
                    self.say(f"Taken back: {tentative.move}.")
                    self.draw(force=True)
            elif word in ("list", "l"):
                self.prompts.list_plays(legal)
            elif word == "hint":
                with self.thinking():
                    self.prompts.hint(legal, rest, contest.match_state(seat))
            elif word in ("double", "d"):
                refusal = table.check(seat, WORDS["double"]) or Refusal("double", seat, None, "not now")
                also = " (`done` confirms a play)" if word == "d" else ""
                self.error(f"No double now: {refusal}{also}. Now: {now}")
            elif word == "resign":
                if resign(rest):
                    return
            elif word in ("pass", "p"):
                self.error(f"There is a legal play, so it must be played (R11); `pass` answers a double. Now: {now}")
            elif self.common(word, rest, now):
                pass
            elif word in WORDS:
                self.other(seat, line, word, now)
            else:
                choice = self.prompts.read_play(line, legal, dice, now)
                if choice is not None and self.act(seat, cmd.Play(str(legal[choice])), shown(line), now):
                    self.show_tentative(seat)

    def show_tentative(self, seat: str) -> None:
        """Draw the board with the tentative play made, and say how to confirm it."""
        tentative = self.table.tentative
        assert tentative is not None
        after = tentative.position  # from the mover's view
        board0 = after if self.table.contest.side(seat) == 0 else after.swap()
        self.draw(board=board0, note=f"Tentative: {tentative.move}")
        self.say(f"Tentative play: {tentative.move}. Press Enter (or `done`) to confirm, `undo` to take it back.")

