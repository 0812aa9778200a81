"""The options of ``backgammon chouette``: :class:`ChouetteOptions`, the players
(:func:`parse_players`) and the sub-command's arguments (:func:`add_chouette_arguments`,
:func:`options_from_args`). What ``play`` has too (the rules options, ``--corner`` and
``--switch-sides``, colour, delay, seed and dice, saving; reading and writing the options)
comes from :mod:`backgammon.terminal.options`.

This module does not import :mod:`rich`, so :mod:`backgammon.cli` can build its parser
without it.

>>> opts = ChouetteOptions((("Ann", "human"), ("p", "pubeval"), ("r", "random")), corner="top-left")
>>> ChouetteOptions.from_dict(opts.to_dict()) == opts
True
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import BackgammonError
from ..rules import Rules
from .options import (
    CORNERS,
    DEFAULT_DELAY,
    HUMAN,
    RULES_ARGUMENTS,
    FieldReader,
    add_dice_arguments,
    add_display_arguments,
    add_rules_arguments,
    add_saving_arguments,
    check_display,
    non_negative_int_arg,
    options_from_dict,
    options_to_dict,
    read_optional_int,
    rules_from_args,
    shared_display_changes,
)

__all__ = [
    "DEFAULT_AUTOSAVE_NAME",
    "DEFAULT_SAVE_NAME",
    "GAME_ARGUMENTS",
    "ChouetteOptions",
    "RawSeat",
    "add_chouette_arguments",
    "default_autosave_path",
    "default_save_path",
    "display_changes",
    "options_from_args",
    "parse_players",
]

#: File name of the automatic save when it is in the current folder (no XDG_STATE_HOME, no
#: HOME); not the one of ``backgammon play``, so neither overwrites the other.
DEFAULT_AUTOSAVE_NAME = "backgammon-chouette-autosave.json"
#: The file ``save`` writes when given no name, in the current folder (see
#: :func:`default_save_path`).
DEFAULT_SAVE_NAME = "backgammon-chouette.json"
_NAME = re.compile(r"^[^\s,=:]{1,20}$")


def default_autosave_path() -> Path:
    """Where a chouette is saved on end of input, Ctrl-C or an error:
    ``chouette-autosave.json`` in the folder of the save files (``$XDG_STATE_HOME/backgammon/``,
    else ``~/.local/state/backgammon/``, else ``./backgammon-chouette-autosave.json``; see
    :mod:`backgammon.terminal.savefile`)."""
    from . import savefile

    return savefile.default_path(savefile.CHOUETTE_AUTOSAVE)


def default_save_path() -> Path:
    """Where ``save`` without a name writes (when no file was resumed or saved to):
    ``chouette.json`` in the folder of the save files."""
    from . import savefile

    return savefile.default_path(savefile.CHOUETTE_SAVE)


# -- the seats and the options ----------------------------------------------------------

#: A seat as the command line gives it: (name, or ``None`` for a bot to be named after its
#: kind; ``"human"`` or a bot's registered name).
RawSeat = tuple[str | None, str]


def _check_name(name: str) -> str:
    if not _NAME.match(name) or not name.isprintable():
        raise BackgammonError(
            f"{name!r} is not a player's name: one word of up to 20 characters, without , = or :"
        )
    return name


def _bot_kind(kind: str) -> str:
    from ..bots import available

    value = kind.strip().lower()
    if value not in available():
        raise BackgammonError(f"{kind!r} is not a bot: the bots are {', '.join(available())}")
    return value


def parse_players(text: str) -> list[RawSeat]:
    """The seats of ``--players``: names separated by commas; ``bot:KIND`` (or
    ``bot:KIND=NAME``) is a bot, ``human:NAME`` or a plain name a person.

    >>> parse_players("Ann, Bob,bot:pubeval,bot:random=Rex")
    [('Ann', 'human'), ('Bob', 'human'), (None, 'pubeval'), ('Rex', 'random')]
    >>> parse_players("Ann,,Bob")
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: 'Ann,,Bob': an empty name between commas
    """
    seats: list[RawSeat] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            raise BackgammonError(f"{text!r}: an empty name between commas")
        prefix, colon, rest = item.partition(":")
        if colon and prefix.lower() == "bot":
            seats.append(_parse_bot(rest))
        elif colon and prefix.lower() == HUMAN:
            seats.append((_check_name(rest.strip()), HUMAN))
        else:
            seats.append((_check_name(item), HUMAN))
    return seats


def _parse_bot(text: str) -> RawSeat:
    """``KIND`` or ``KIND=NAME``.

    >>> _parse_bot("pubeval=Pete")
    ('Pete', 'pubeval')
    """
    kind, equals, name = text.partition("=")
    return (_check_name(name.strip()) if equals else None, _bot_kind(kind))


def _resolve_names(raw: Sequence[RawSeat]) -> tuple[tuple[str, str], ...]:
    """Name the bots that have no name after their kind (``pubeval``, ``pubeval-2`` ...),
    keeping clear of every other name; names are unique regardless of case.

    >>> _resolve_names([("Ann", "human"), (None, "pubeval"), (None, "pubeval")])
    (('Ann', 'human'), ('pubeval', 'pubeval'), ('pubeval-2', 'pubeval'))
    >>> _resolve_names([("Ann", "human"), ("ann", "human")])
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: each player's name once: 'ann' is given twice
    """
    taken: set[str] = set()
    for name, _ in raw:
        if name is None:
            continue
        if name.lower() in taken:
            raise BackgammonError(f"each player's name once: {name!r} is given twice")
        taken.add(name.lower())
    out: list[tuple[str, str]] = []
    for name, kind in raw:
        if name is None:
            name, n = kind, 1
            while name.lower() in taken:
                n += 1
                name = f"{kind}-{n}"
            taken.add(name.lower())
        out.append((name, kind))
    return tuple(out)


@dataclass(frozen=True)
class ChouetteOptions:
    """Everything ``backgammon chouette`` was asked for; saved with the chouette.

    * ``seats`` — (name, ``"human"`` or a bot's name) for every player, in the order given
      (the roll-off, R35, decides the seats);
    * ``rules`` — the :class:`~backgammon.rules.Rules` of every game (money play);
    * ``seed`` / ``dice_script`` — reproducible dice (and the bots' seeds);
    * ``games`` — stop after this many games (``None``: ask after each game);
    * ``corner`` / ``switch_sides`` — where the home board of the people's side is drawn
      (the box's side X or the team's side O, whichever has a person; the first person's
      when both), and whether it changes sides after every game (R46);
    * ``colour``, ``delay`` (seconds after each bot action), ``auto_roll`` (roll at once
      when no double is possible), ``autosave`` (``None``: :func:`default_autosave_path`).

    >>> opts = ChouetteOptions((("Ann", "human"), ("Bob", "human"), ("pubeval", "pubeval")))
    >>> opts.names, opts.humans, opts.is_bot("pubeval")
    (('Ann', 'Bob', 'pubeval'), ('Ann', 'Bob'), True)
    >>> ChouetteOptions.from_dict(opts.to_dict()) == opts
    True
    >>> ChouetteOptions((("Ann", "human"), ("Bob", "human")))
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: a chouette needs 3 or more players; got 2 (Ann, Bob): add some, like --bot pubeval
    """

    seats: tuple[tuple[str, str], ...]
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    dice_script: tuple[int, ...] = ()
    games: int | None = None
    corner: str = CORNERS[0]
    switch_sides: bool = False
    colour: str = "auto"
    delay: float = DEFAULT_DELAY
    auto_roll: bool = True
    autosave: str | None = None

    def __post_init__(self) -> None:
        seats = self.seats
        if not isinstance(seats, tuple) or not all(
            isinstance(s, tuple) and len(s) == 2 and all(isinstance(x, str) for x in s) for s in seats
        ):
            raise BackgammonError(f"seats {seats!r}: expected (name, kind) pairs")
        _resolve_names(seats)  # unique names
        for name, kind in seats:
            _check_name(name)
            if kind != HUMAN:
                _bot_kind(kind)
        if len(seats) < 3:
            names = ", ".join(name for name, _ in seats)
            raise BackgammonError(
                f"a chouette needs 3 or more players; got {len(seats)}"
                + (f" ({names})" if names else "")
                + ": add some, like --bot pubeval"
            )
        if not isinstance(self.rules, Rules) or not self.rules.is_money:
            raise BackgammonError("a chouette is money play (no match length)")
        if self.games is not None and (
            not isinstance(self.games, int) or isinstance(self.games, bool) or self.games < 1
        ):
            raise BackgammonError(f"games {self.games!r}: a number of games >= 1")
        check_display(self)

    @property
    def names(self) -> tuple[str, ...]:
        """Every player's name, in the order given."""
        return tuple(name for name, _ in self.seats)

    @property
    def humans(self) -> tuple[str, ...]:
        """The people at the keyboard."""
        return tuple(name for name, kind in self.seats if kind == HUMAN)

    def kind(self, name: str) -> str:
        """``"human"`` or the bot's registered name for the player ``name``."""
        return dict(self.seats)[name]

    def is_bot(self, name: str) -> bool:
        """True when ``name`` is played by the computer."""
        return self.kind(name) != HUMAN

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the rules as :meth:`Rules.to_dict`, the seats as lists)."""
        return options_to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> ChouetteOptions:
        """Inverse of :meth:`to_dict`; unknown keys and malformed values are an error
        (:class:`~backgammon.errors.BackgammonError`, a sentence naming the field).

        >>> ChouetteOptions.from_dict({"seats": "Ann,Bob,Cy"})
        Traceback (most recent call last):
        ...
        backgammon.errors.BackgammonError: options: seats 'Ann,Bob,Cy' is not a list of [name, kind] pairs, like [["Ann", "human"], ["pubeval", "pubeval"]]
        """
        return options_from_dict(cls, data, _READERS)

    def with_display(self, **changes: Any) -> ChouetteOptions:
        """A copy with display options changed (those given as not ``None``)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _read_seats(name: str, value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list) or not all(
        isinstance(seat, list) and len(seat) == 2 and all(isinstance(x, str) for x in seat) for seat in value
    ):
        raise BackgammonError(
            f"options: {name} {value!r} is not a list of [name, kind] pairs, "
            'like [["Ann", "human"], ["pubeval", "pubeval"]]'
        )
    return tuple((seat[0], seat[1]) for seat in value)


_READERS: dict[str, FieldReader] = {"seats": _read_seats, "games": read_optional_int}


# -- the command line ---------------------------------------------------------------------

_DESCRIPTION = """\
A chouette (RULES.md R35-R41) in the terminal: three or more players, people at one
keyboard and bots. The roll-off seats everyone: the highest is in the box and plays alone
against the team; the second is the captain, who moves for the team; the rest stand in line
behind. Every team member plays for their own stake. After each game the seats rotate
(R37, R38) and the ledger is shown.

Each prompt starts with the name of who must answer it. A play is typed in notation
(24/18 13/11, bar/22*, 6/off) or as a number from `list`, then Enter (or `done`) to confirm
it, `undo` to take it back. The box may `double` the whole team before rolling (each member
then answers `take` or `pass` alone, R40); the team's double is proposed with `double` (or
`double NAME` by another member at the keyboard) and needs every member's `agree` (R39).
Other commands: resign [single|gammon|backgammon], accept, decline, list, hint, board,
status, save [FILE], quit, help.
"""

_EPILOG = """\
exit status: 0 when the session ends normally or on end of input (Ctrl-D; the chouette is
saved first); 130 after Ctrl-C (saved first); 1 after an unexpected error (saved first);
2 for bad options or a save file that cannot be read.

examples:
  backgammon chouette --human Ann --human Bob --bot pubeval
  backgammon chouette --players Ann,Bob,bot:pubeval,bot:random --jacoby
  backgammon chouette --bot pubeval --bot random --bot pubeval --games 3 --delay 0   (a demo)
  backgammon chouette --human Ann --bot pubeval --bot random=Rex --seed 7
  backgammon chouette --human Ann --bot pubeval --bot random --corner top-left
  backgammon chouette --resume chouette.json

saving: `save` without a name and the automatic save write to %(folder)s
(chouette.json and chouette-autosave.json there; backgammon-chouette.json and
backgammon-chouette-autosave.json in ./); `save FILE` writes FILE (relative to the current
folder) and asks before replacing a file.

A chouette is money play: there is no --match (that is for backgammon play).
"""


class _AddSeats(argparse.Action):
    """Appends the seats of ``--human``, ``--bot`` and ``--players`` to one list, in the
    order they are given."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        seats = list(getattr(namespace, self.dest, None) or [])
        seats.extend(values or [])
        setattr(namespace, self.dest, seats)


def _arg(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse ``type`` that turns a :class:`BackgammonError` into a usage error."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except BackgammonError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = parse.__name__.strip("_")
    return convert


def _human_seat(text: str) -> list[RawSeat]:
    return [(_check_name(text.strip()), HUMAN)]


def _bot_seat(text: str) -> list[RawSeat]:
    return [_parse_bot(text)]


def _positive_int(text: str) -> int:
    value = non_negative_int_arg(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: at least 1")
    return value


def add_chouette_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``chouette`` sub-command's options to ``parser`` (its description and epilog
    too). Display options default to ``None`` so that ``--resume`` can tell which were
    given."""
    from ..bots import available
    from .savefile import STATE_DIR_TEXT

    bots = ", ".join(available())
    parser.description = _DESCRIPTION
    parser.epilog = _EPILOG % {"folder": STATE_DIR_TEXT}
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    seats = parser.add_argument_group("players (3 or more: at least one person, or only bots for a demo)")
    for flag, parse, metavar, help_ in (
        ("--human", _human_seat, "NAME",
         "a person at the keyboard (repeat for each; a name is one word of up to 20 characters)"),
        ("--bot", _bot_seat, "KIND[=NAME]",
         f"a bot: {bots} (repeat for each; named after its kind unless =NAME is given)"),
        ("--players", parse_players, "LIST",
         "the players at once, separated by commas: a name is a person, bot:KIND a bot "
         "(like Ann,Bob,bot:pubeval)"),
    ):
        seats.add_argument(flag, dest="seats", action=_AddSeats, type=_arg(parse), metavar=metavar, help=help_)
    game = parser.add_argument_group("dice and games")
    add_dice_arguments(
        game,
        seed_help="seed the dice (and the bots) for a reproducible session",
        dice_help="scripted dice, like 6,5,4,31,62: first one die per player for the roll-off (in the order "
        "the players are given), then each opening throw (box's die, captain's die) and each roll; "
        "after the script, --seed's dice or random ones",
    )
    game.add_argument(
        "--games",
        type=_positive_int,
        default=None,
        metavar="N",
        help="stop after N games (counting the games already played in a resumed session); "
        "default: ask after each game",
    )
    game.add_argument("--match", "-m", nargs="?", const="", default=None, help=argparse.SUPPRESS)
    add_rules_arguments(
        parser,
        "money-play rules (RULES.md)",
        {
            "automatic_doubles": "R6: equal opening dice double every stake",
            "jacoby": "R25: gammons count single on a stake whose cube is centred",
            "beavers": "R30: a player doubled may beaver",
            "cube_limit": "R26: no stake's cube may go past N (a power of 2); default: no limit",
        },
    )
    add_display_arguments(
        parser,
        corner_help="where the people's home board is drawn (R46): the box's (X) or the team's (O), "
        f"whichever side has a person (the first person's when both): {', '.join(CORNERS)} "
        f"(default {CORNERS[0]})",
        switch_help="change that home board's side (left/right) after every game (R46)",
        auto_roll_help="roll at once when no double is possible (default: on)",
    )
    add_saving_arguments(
        parser,
        resume_help="take up a chouette saved with `save` (or the automatic save); players, dice and "
        "rules come from the file",
        autosave_name="chouette-autosave.json",
    )


#: Options that set up the chouette; with ``--resume`` they come from the file.
GAME_ARGUMENTS = ("seats", "seed", "dice", *RULES_ARGUMENTS)


#: The refusal of ``--match`` (a chouette is money play, R35).
NO_MATCH = "a chouette is money play (R35): --match is for backgammon play"


def display_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The display options given on the command line (the others are ``None``); ``--match``
    is refused here (it is accepted by the parser only to be refused with a sentence)."""
    if getattr(args, "match", None) is not None:
        raise BackgammonError(NO_MATCH)
    return {**shared_display_changes(args), "games": args.games}


def options_from_args(args: argparse.Namespace) -> ChouetteOptions:
    """The :class:`ChouetteOptions` of a parsed ``chouette`` command line.

    >>> parser = argparse.ArgumentParser(); add_chouette_arguments(parser)
    >>> opts = options_from_args(parser.parse_args(
    ...     ["--human", "Ann", "--bot", "pubeval", "--players", "Bob,bot:pubeval", "--jacoby"]))
    >>> opts.seats, opts.rules.jacoby
    ((('Ann', 'human'), ('pubeval', 'pubeval'), ('Bob', 'human'), ('pubeval-2', 'pubeval')), True)
    """
    if getattr(args, "match", None) is not None:
        raise BackgammonError(NO_MATCH)
    if not args.seats:
        raise BackgammonError(
            "name the players (3 or more): --human NAME for each person, --bot KIND for each bot "
            "(like: backgammon chouette --human Ann --human Bob --bot pubeval)"
        )
    base = ChouetteOptions(
        _resolve_names(args.seats), rules=rules_from_args(args), seed=args.seed, dice_script=args.dice or ()
    )
    return base.with_display(**display_changes(args))


