"""Saving and resuming a terminal session.

A save file is the match's own JSON (:meth:`backgammon.Match.to_dict`: format, rules, start
and the event log), with one more key, ``"terminal"``, holding the session's
:class:`~backgammon.terminal.options.PlayOptions` and the state of its dice
(:class:`~backgammon.terminal.dice.SessionDice`). So the file is read by
:meth:`backgammon.Match.from_json` as it is, and ``backgammon play --resume FILE`` needs no
other option. A plain match file (without ``"terminal"``) resumes too, with default options.

>>> import tempfile, os
>>> from backgammon import Match
>>> dice = SessionDice((3, 1), seed=1)
>>> match = Match(3, dice=dice); match.game.roll(); match.game.play("8/5 6/5")
>>> path = os.path.join(tempfile.mkdtemp(), "game.json")
>>> _ = save(path, PlayOptions(opponent="human", rules=match.rules), match, dice)
>>> options, again, dice2 = load(path)
>>> again == match, options.opponent, dice2.drawn
(True, 'human', 2)
>>> Match.from_json(open(path).read()) == match
True
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import BackgammonError
from ..match import Match
from .dice import SessionDice
from .options import PlayOptions

__all__ = ["SaveError", "load", "save"]

_KEY = "terminal"
_VERSION = 1


class SaveError(BackgammonError):
    """A save file that cannot be written or read (the message says why)."""


def save(path: str | os.PathLike[str], options: PlayOptions, match: Match, dice: SessionDice) -> Path:
    """Write the session to ``path`` (atomically: a temporary file, then a rename); return
    the absolute path. Folders on the way are created."""
    target = Path(path).expanduser()
    data: dict[str, Any] = match.to_dict()
    data[_KEY] = {"version": _VERSION, "options": options.to_dict(), "dice": dice.state()}
    text = json.dumps(data, indent=1)
    try:
        if target.parent != Path():
            target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".backgammon-", suffix=".json", dir=target.parent or Path())
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text + "\n")
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise SaveError(f"cannot save to {str(target)!r}: {exc.strerror or exc}") from None
    return target.resolve()


def load(path: str | os.PathLike[str]) -> tuple[PlayOptions, Match, SessionDice]:
    """Read a save file: the options, the match (replayed from its log, with the dice
    taken up where they stopped) and the dice source."""
    source = Path(path).expanduser()
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise SaveError(f"cannot read {str(source)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise SaveError(f"{str(source)!r} is not a saved game (not text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveError(f"{str(source)!r} is not a saved game (not JSON: {exc})") from None
    if not isinstance(data, dict):
        raise SaveError(f"{str(source)!r} is not a saved game (expected a JSON object)")
    extra = data.pop(_KEY, None)
    try:
        if extra is None:
            dice = SessionDice()
            options = None
        else:
            if not isinstance(extra, dict):
                raise BackgammonError(f"{_KEY!r}: expected a JSON object")
            options = PlayOptions.from_dict(extra.get("options", {}))
            dice = SessionDice.from_state(extra.get("dice", {}))
        match = Match.from_dict(data, dice=dice)
        if options is None:
            options = PlayOptions(rules=match.rules)
        elif options.rules != match.rules:
            raise BackgammonError("the options' rules differ from the match's")
    except BackgammonError as exc:
        raise SaveError(f"{str(source)!r}: not a valid saved game: {exc}") from None
    return options, match, dice
