"""Saving and resuming the terminal programs: one writer and one reader of save files for
``backgammon play`` and ``backgammon chouette``.

A save file of either program is the table's own JSON (:meth:`backgammon.table.Table.to_dict`:
the seats, the match's or the chouette's log, the tentative play, R42), with one more key,
``"terminal"``, holding the session's options
(:class:`~backgammon.terminal.options.PlayOptions` or
:class:`~backgammon.terminal.chouette_options.ChouetteOptions`) and the state of its dice
(:class:`~backgammon.terminal.dice.SessionDice`). So the file is read by
:meth:`backgammon.table.Table.from_json` as it is, and ``--resume FILE`` needs no other option.
Files of the earlier format (the match's or the chouette's log with the ``"terminal"`` key)
still load, seated from their options; a plain match file (without ``"terminal"``) resumes
in ``play`` too, with default options.

Where files go (:func:`state_dir`): ONE folder for ``save`` without a name and for the
automatic save (end of input, Ctrl-C, an error) of both programs:

* ``$XDG_STATE_HOME/backgammon/`` when ``XDG_STATE_HOME`` is set;
* else ``~/.local/state/backgammon/`` when ``HOME`` is set;
* else the current folder.

In that folder the files are ``save.json`` and ``autosave.json`` (``play``),
``chouette.json`` and ``chouette-autosave.json`` (``chouette``); in the current folder they
get a ``backgammon-`` prefix (``backgammon-autosave.json`` ...). A name given to ``save FILE``,
``--autosave FILE`` or ``--resume FILE`` is the user's own path: a relative one is relative
to the current folder.

Writing (:func:`write`) is atomic (a temporary file in the same folder, then a rename) and
to regular files only: a target that exists and is not a regular file (a device, a folder,
a fifo) is refused, and with ``overwrite=False`` so is an existing file
(:class:`SaveExists`, so that the session can ask first). Reading (:func:`read`) turns every
problem into a :class:`SaveError` whose message is a sentence about the file.

>>> import tempfile, os
>>> from backgammon import Match
>>> dice = SessionDice((3, 1), seed=1)
>>> match = Match(3, dice=dice); match.game.roll(); match.game.play("8/5 6/5")
>>> path = os.path.join(tempfile.mkdtemp(), "game.json")
>>> _ = save(path, PlayOptions(opponent="human", rules=match.rules), match, dice)
>>> options, again, dice2 = load(path)
>>> again == match, options.opponent, dice2.drawn
(True, 'human', 2)
>>> Table.from_json(open(path).read()).contest.match == match
True
>>> save(path, options, again, dice2, overwrite=False)
Traceback (most recent call last):
...
backgammon.terminal.savefile.SaveExists: ... exists
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..chouette import Chouette
from ..errors import BackgammonError
from ..paths import STATE_DIR_TEXT, state_dir
from ..match import Match
from ..table import ChouetteContest, MatchContest, Seat, Table
from .chouette_options import ChouetteOptions
from .dice import SessionDice
from .options import HUMAN, PlayOptions

__all__ = [
    "CHOUETTE_AUTOSAVE",
    "CHOUETTE_SAVE",
    "PLAY_AUTOSAVE",
    "PLAY_SAVE",
    "STATE_DIR_TEXT",
    "SaveError",
    "SaveExists",
    "default_path",
    "load",
    "load_chouette",
    "load_table",
    "play_seats",
    "read",
    "same_file",
    "save",
    "save_chouette",
    "save_table",
    "chouette_seats",
    "chouette_table",
    "match_table",
    "state_dir",
    "write",
    "write_asking",
]

_KEY = "terminal"
_VERSION = 1
#: The file names in :func:`state_dir` (with a ``backgammon-`` prefix in the current folder).
PLAY_SAVE = "save.json"
PLAY_AUTOSAVE = "autosave.json"
CHOUETTE_SAVE = "chouette.json"
CHOUETTE_AUTOSAVE = "chouette-autosave.json"
#: What each kind of file is called in messages.
_KINDS = {"game": "a saved game", "chouette": "a saved chouette"}


class SaveError(BackgammonError):
    """A save file that cannot be written or read (the message says why)."""


class SaveExists(SaveError):
    """The target of :func:`write` exists and ``overwrite`` was false."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{str(path)!r} exists")
        self.path = path


def default_path(name: str) -> Path:
    """The default file ``name`` (:data:`PLAY_SAVE` ...): in :func:`state_dir`, else
    ``./backgammon-NAME``."""
    folder = state_dir()
    return folder / name if folder is not None else Path("backgammon-" + name)


# -- the writer and the reader ---------------------------------------------------------------


def write(path: str | os.PathLike[str], data: Mapping[str, Any], *, overwrite: bool = True) -> Path:
    """Write ``data`` as JSON to ``path`` (atomically: a temporary file in the same folder,
    then a rename; folders on the way are created) and return the absolute path. A target
    that exists and is not a regular file is refused; so is an existing file when
    ``overwrite`` is false (:class:`SaveExists`). A symbolic link to a regular file is
    kept: the file it names is replaced."""
    target = Path(path).expanduser()
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise SaveError(f"cannot save to {str(target)!r}: {exc.strerror or exc}") from None
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise SaveError(f"cannot save to {str(target)!r}: it is {what}; give the name of a file")
        if not overwrite:
            raise SaveExists(target)
        target = Path(os.path.realpath(target))
    text = json.dumps(data, indent=1)
    folder = target.parent
    try:
        if folder != Path():
            folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".backgammon-", suffix=".json", dir=folder)
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


def same_file(a: str | os.PathLike[str] | None, b: str | os.PathLike[str] | None) -> bool:
    """True when ``a`` and ``b`` name the same file (after ``~`` and links)."""
    if a is None or b is None:
        return False
    return Path(os.path.realpath(Path(a).expanduser())) == Path(os.path.realpath(Path(b).expanduser()))


def write_asking(
    save: Callable[[bool], Path], path: str | os.PathLike[str], ask: Callable[[str], str], *, overwrite: bool
) -> Path | None:
    """``save(overwrite)`` (a writer like :func:`save` with its arguments bound); when it
    refuses an existing file, ask ``"FILE exists: overwrite it? [y/N] > "`` through ``ask``
    (the session's prompt reader) and write again on yes. Returns the path written, or
    ``None`` when the person said no. ``overwrite``: replace without asking (the file the
    session already saves to)."""
    try:
        return save(overwrite)
    except SaveExists as exc:
        answer = ask(f"{exc.path} exists: overwrite it? [y/N] > ").strip().lower()
        if answer not in ("y", "yes"):
            return None
        return save(True)


def read(path: str | os.PathLike[str], kind: str) -> dict[str, Any]:
    """The JSON object in the file ``path``; ``kind`` (``"game"`` or ``"chouette"``) names
    what it should be in the messages of :class:`SaveError`."""
    what = _KINDS[kind]
    source = Path(path).expanduser()
    if source.is_dir():
        raise SaveError(f"cannot read {str(source)!r}: it is a folder, not {what}")
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise SaveError(f"cannot read {str(source)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise SaveError(f"{str(source)!r} is not {what} (not text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveError(f"{str(source)!r} is not {what} (not JSON: {exc})") from None
    except RecursionError:
        raise SaveError(f"{str(source)!r} is not {what} (nested too deeply)") from None
    if not isinstance(data, dict):
        raise SaveError(f"{str(source)!r} is not {what} (expected a JSON object)")
    return data


def _section(data: dict[str, Any]) -> tuple[Any, SessionDice]:
    """The options (as stored) and the dice of a ``"terminal"`` section (removed)."""
    extra = data.pop(_KEY)
    if not isinstance(extra, dict):
        raise BackgammonError(f"{_KEY!r}: expected a JSON object, got {type(extra).__name__}")
    dice_state = extra.get("dice", {})
    if not isinstance(dice_state, dict):
        raise BackgammonError(f"the dice {dice_state!r}: expected a JSON object")
    return extra.get("options", {}), SessionDice.from_state(dice_state)


def _invalid(source: str | os.PathLike[str], what: str, exc: BaseException) -> SaveError:
    if isinstance(exc, BackgammonError):
        why = str(exc)
    else:  # a library's own check that did not expect JSON of the wrong type
        why = f"a field has the wrong type or value ({type(exc).__name__}: {exc})"
    return SaveError(f"{str(Path(source).expanduser())!r}: not a valid {what}: {why}")


# -- the table of either program ------------------------------------------------------------


def play_seats(options: PlayOptions) -> list[Seat]:
    """The two seats of ``backgammon play``: a person (X), then the opponent (a bot with
    ``--seed``, or a second person)."""
    first, second = options.names
    if options.is_bot(1):
        return [Seat(first), Seat(second, options.opponent, seed=options.seed)]
    return [Seat(first), Seat(second)]


def chouette_seats(options: ChouetteOptions) -> list[Seat]:
    """The seats of ``backgammon chouette``, in the order given (the i-th bot's seed is
    ``--seed`` + i)."""
    seed = options.seed
    return [
        Seat(name) if kind == HUMAN else Seat(name, kind, seed=None if seed is None else seed + i)
        for i, (name, kind) in enumerate(options.seats)
    ]


def match_table(options: PlayOptions, dice: SessionDice, match: Match | None = None) -> Table:
    """The table of ``backgammon play``: ``match`` (a new one when None) at
    :func:`play_seats`."""
    seats = play_seats(options)
    if match is None:
        return Table.match(seats, options.match_length, options.rules, dice=dice)
    return Table(MatchContest([s.name for s in seats], match=match), seats, dice=dice)


def chouette_table(options: ChouetteOptions, dice: SessionDice, chouette: Chouette | None = None) -> Table:
    """The table of ``backgammon chouette``: ``chouette`` (a new one, its roll-off thrown,
    when None) at :func:`chouette_seats`."""
    seats = chouette_seats(options)
    if chouette is None:
        return Table.chouette(seats, options.rules, dice=dice)
    return Table(ChouetteContest(chouette.players, chouette=chouette), seats, dice=dice)


def save_table(
    path: str | os.PathLike[str],
    options: PlayOptions | ChouetteOptions,
    table: Table,
    dice: SessionDice,
    *,
    overwrite: bool = True,
) -> Path:
    """Write a session's table, options and dice to ``path`` (see :func:`write`)."""
    data: dict[str, Any] = table.to_dict()
    data[_KEY] = {"version": _VERSION, "options": options.to_dict(), "dice": dice.state()}
    return write(path, data, overwrite=overwrite)


def load_table(path: str | os.PathLike[str], kind: str = "game") -> tuple[Any, Table, SessionDice]:
    """Read a save file of ``play`` (``kind`` ``"game"``) or ``chouette``: the options, the
    table (replayed from its log, with the dice taken up where they stopped) and the dice.
    Files of the earlier format (a match's or chouette's log) are seated from the options."""
    data = read(path, kind)
    chouette = kind == "chouette"
    try:
        if _KEY in data:
            stored, dice = _section(data)
            options: Any = ChouetteOptions.from_dict(stored) if chouette else PlayOptions.from_dict(stored)
        elif chouette:
            raise BackgammonError(f"no {_KEY!r} section: not saved by `backgammon chouette`")
        else:
            options, dice = None, SessionDice()
        fmt = data.get("format")
        expected = "chouette" if chouette else "match"
        if fmt == "backgammon-table":
            if data.get("contest") != expected:
                raise BackgammonError(f"a saved {data.get('contest')!r}, not a {expected}")
            table = Table.from_dict(data, dice=dice)
        elif fmt != f"backgammon-{expected}":
            raise BackgammonError(f"format {fmt!r}: expected a saved table or {expected}")
        elif chouette:
            table = chouette_table(options, dice, Chouette.from_dict(data, dice=dice))
        else:
            match = Match.from_dict(data, dice=dice)
            if options is None:
                options = PlayOptions(rules=match.rules)
            table = match_table(options, dice, match)
        if options is None:
            options = PlayOptions(rules=table.contest.rules)
        names = options.names
        if set(table.contest.seats) != set(names) or options.rules != table.contest.rules:
            raise BackgammonError(f"the options' players or rules differ from the {expected}'s")
    except (BackgammonError, TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise _invalid(path, "saved chouette" if chouette else "saved game", exc) from None
    return options, table, dice


# -- backgammon play ----------------------------------------------------------------------------


def save(
    path: str | os.PathLike[str],
    options: PlayOptions | ChouetteOptions,
    held: Match | Chouette | Table,
    dice: SessionDice,
    *,
    overwrite: bool = True,
) -> Path:
    """Write a session (its table, or a match or a chouette seated from ``options``:
    :func:`match_table`, :func:`chouette_table`) to ``path`` (see :func:`write`); return
    the absolute path. :func:`save_chouette` is the same function.

    >>> import tempfile
    >>> dice = SessionDice((6, 5, 4), seed=1)
    >>> opts = ChouetteOptions((("a", "human"), ("b", "human"), ("c", "human")))
    >>> c = Chouette(opts.names, dice=dice); c.roll(player=c.box)
    >>> path = save_chouette(os.path.join(tempfile.mkdtemp(), "c.json"), opts, c, dice)
    >>> opts2, c2, dice2 = load_chouette(path)
    >>> (opts2, c2, dice2.drawn) == (opts, c, dice.drawn)
    True
    """
    if isinstance(held, Match) and isinstance(options, PlayOptions):
        held = match_table(options, dice, held)
    elif isinstance(held, Chouette) and isinstance(options, ChouetteOptions):
        held = chouette_table(options, dice, held)
    elif not isinstance(held, Table):
        raise TypeError(f"{type(held).__name__} saved with {type(options).__name__}")
    return save_table(path, options, held, dice, overwrite=overwrite)


save_chouette = save


def load(path: str | os.PathLike[str]) -> tuple[PlayOptions, Match, SessionDice]:
    """Read a ``play`` save file: the options, the match (replayed from its log, with the
    dice taken up where they stopped) and the dice source (:func:`load_table` gives the
    table, with its tentative play)."""
    options, table, dice = load_table(path, "game")
    assert isinstance(table.contest, MatchContest)
    return options, table.contest.match, dice


# -- backgammon chouette ------------------------------------------------------------------------


def load_chouette(path: str | os.PathLike[str]) -> tuple[ChouetteOptions, Chouette, SessionDice]:
    """Read a ``chouette`` save file: the options, the chouette (replayed from its log) and
    the dice, taken up where they stopped."""
    options, table, dice = load_table(path, "chouette")
    assert isinstance(table.contest, ChouetteContest)
    return options, table.contest.chouette, dice
