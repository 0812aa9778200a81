"""The options of ``backgammon play``: :class:`PlayOptions`, and the sub-command's arguments;
the rules options that ``play`` and ``chouette`` share (:func:`add_rules_arguments`,
:func:`rules_from_args`).

This module does not import :mod:`rich`, so :mod:`backgammon.cli` can build its parser
without it.

>>> opts = PlayOptions(opponent="human", rules=Rules(match_length=5))
>>> opts.is_bot(1), opts.names
(False, ('X', 'O'))
>>> PlayOptions.from_dict(opts.to_dict()) == opts
True
>>> PlayOptions().names
('You', 'expert')
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar

from ..errors import BackgammonError
from ..rules import Rules

__all__ = [
    "CORNERS",
    "DEFAULT_AUTOSAVE_NAME",
    "DEFAULT_BOT",
    "DEFAULT_DELAY",
    "HUMAN",
    "RULES_ARGUMENTS",
    "PlayOptions",
    "add_play_arguments",
    "add_rules_arguments",
    "default_autosave_path",
    "default_save_path",
    "mirror_corner",
    "options_from_args",
    "rules_from_args",
    "rules_in_effect",
]

#: The bot ``backgammon play`` plays against unless ``--opponent`` names another.
DEFAULT_BOT = "expert"
#: ``--opponent human``: a second player at the same keyboard.
HUMAN = "human"
#: Seconds the program waits after each bot action, so a person can follow it.
DEFAULT_DELAY = 0.5
#: The four places for a player's home board (R46), the first the default.
CORNERS = ("bottom-right", "bottom-left", "top-right", "top-left")
_CORNER_ALIASES = {"br": "bottom-right", "bl": "bottom-left", "tr": "top-right", "tl": "top-left"}
#: File name of the automatic save when it is in the current folder (no XDG_STATE_HOME, no HOME).
DEFAULT_AUTOSAVE_NAME = "backgammon-autosave.json"
COLOURS = ("auto", "always", "never")


def default_autosave_path() -> Path:
    """Where a game is saved when the program stops on end of input, Ctrl-C or an error:
    ``autosave.json`` in the folder of the save files (``$XDG_STATE_HOME/backgammon/``, else
    ``~/.local/state/backgammon/``, else ``./backgammon-autosave.json``; see
    :mod:`backgammon.terminal.savefile`).

    >>> import os; os.environ.pop("XDG_STATE_HOME", None) and None
    >>> default_autosave_path().name in ("autosave.json", "backgammon-autosave.json")
    True
    """
    from . import savefile

    return savefile.default_path(savefile.PLAY_AUTOSAVE)


def default_save_path() -> Path:
    """Where ``save`` without a file name writes (when no file was resumed or saved to):
    ``save.json`` in the folder of the save files (see :mod:`backgammon.terminal.savefile`)."""
    from . import savefile

    return savefile.default_path(savefile.PLAY_SAVE)


def mirror_corner(corner: str) -> str:
    """The corner on the other side (left and right swapped): switching sides (R46).

    >>> mirror_corner("bottom-right"), mirror_corner("top-left")
    ('bottom-left', 'top-right')
    """
    vertical, horizontal = corner.split("-")
    return f"{vertical}-{'left' if horizontal == 'right' else 'right'}"


# -- what PlayOptions and ChouetteOptions share --------------------------------------------


def check_display(options: Any) -> None:
    """Check the options both programs have (``corner``, ``switch_sides``, ``colour``,
    ``delay``, ``auto_roll``, ``seed``, ``dice_script``, ``autosave``, ``rules``); raise a
    :class:`~backgammon.errors.BackgammonError` naming the first that is wrong."""
    if options.corner not in CORNERS:
        raise BackgammonError(f"corner {options.corner!r}: one of {', '.join(CORNERS)}")
    if options.colour not in COLOURS:
        raise BackgammonError(f"colour {options.colour!r}: one of {', '.join(COLOURS)}")
    delay = options.delay
    if not isinstance(delay, (int, float)) or isinstance(delay, bool) or not 0 <= delay < float("inf"):
        raise BackgammonError(f"delay {delay!r}: a number of seconds >= 0")
    for name in ("switch_sides", "auto_roll"):
        if not isinstance(getattr(options, name), bool):
            raise BackgammonError(f"{name} {getattr(options, name)!r}: true or false")
    if options.seed is not None and (not isinstance(options.seed, int) or isinstance(options.seed, bool)):
        raise BackgammonError(f"seed {options.seed!r}: a whole number")
    if not isinstance(options.rules, Rules):
        raise BackgammonError(f"rules {options.rules!r}: expected Rules")
    if options.autosave is not None and not isinstance(options.autosave, str):
        raise BackgammonError(f"autosave {options.autosave!r}: a file name")


def options_to_dict(options: Any) -> dict[str, Any]:
    """The JSON-ready dict of a dataclass of options (the rules as :meth:`Rules.to_dict`,
    tuples as lists, nested ones too)."""

    def plain(value: Any) -> Any:
        if isinstance(value, Rules):
            return value.to_dict()
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        return value

    return {f.name: plain(getattr(options, f.name)) for f in fields(options)}


#: Reads one stored field: (field name, JSON value) to the value, or a BackgammonError.
FieldReader = Callable[[str, Any], Any]


def _wrong(name: str, value: Any, expected: str) -> BackgammonError:
    return BackgammonError(f"options: {name} {value!r} is not {expected}")


def read_text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _wrong(name, value, "text")
    return value


def read_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _wrong(name, value, "true or false")
    return value


def read_optional_int(name: str, value: Any) -> int | None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise _wrong(name, value, "a whole number or null")
    return value


def read_optional_text(name: str, value: Any) -> str | None:
    return None if value is None else read_text(name, value)


def read_number(name: str, value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise _wrong(name, value, "a number")
    return value


def read_dice(name: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value
    ):
        raise _wrong(name, value, "a list of dice 1-6")
    return tuple(value)


def read_rules(name: str, value: Any) -> Rules:
    try:
        return Rules.from_dict(value)
    except BackgammonError as exc:
        raise BackgammonError(f"options: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise BackgammonError(f"options: rules {value!r}: {exc}") from None


def _read_names(name: str, value: Any) -> tuple[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, str) and v for v in value):
        raise _wrong(name, value, 'two names, like ["Ann", "Bob"]')
    return (value[0], value[1])


#: How the fields both programs have are read.
SHARED_READERS: dict[str, FieldReader] = {
    "rules": read_rules,
    "seed": read_optional_int,
    "dice_script": read_dice,
    "corner": read_text,
    "switch_sides": read_bool,
    "colour": read_text,
    "delay": read_number,
    "auto_roll": read_bool,
    "autosave": read_optional_text,
}

_Options = TypeVar("_Options")
_N = TypeVar("_N", int, float)


def options_from_dict(cls: type[_Options], data: Any, readers: Mapping[str, FieldReader]) -> _Options:
    """The dataclass ``cls`` of options from :func:`options_to_dict`'s dict: each field read
    by ``readers`` or :data:`SHARED_READERS`; unknown keys, values of the wrong type and
    values ``cls`` refuses raise :class:`~backgammon.errors.BackgammonError` (sentences)."""
    if not isinstance(data, dict):
        raise BackgammonError(f"options {data!r}: expected a JSON object")
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(str(k) for k in set(data) - known)
    if unknown:
        raise BackgammonError(f"options: unknown field(s) {', '.join(unknown)}")
    every = {**SHARED_READERS, **readers}
    kwargs = {name: every[name](name, value) if name in every else value for name, value in data.items()}
    try:
        return cls(**kwargs)
    except BackgammonError as exc:
        raise BackgammonError(f"options: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise BackgammonError(f"options: {exc}") from None


@dataclass(frozen=True)
class PlayOptions:
    """Everything ``backgammon play`` was asked for; saved with the game.

    * ``opponent`` — a bot name (:func:`backgammon.bots.available`) or ``"human"``;
      player X (0) is always a person, player O (1) the opponent;
    * ``rules`` — the :class:`~backgammon.rules.Rules` (``match_length`` 0: money play);
    * ``seed`` / ``dice_script`` — reproducible dice (and the bot's seed);
    * ``corner`` / ``switch_sides`` — where player X's home board is drawn, and whether it
      changes sides after every game (R46);
    * ``colour`` — ``auto`` (colour on a terminal unless ``NO_COLOR`` is set), ``always``
      or ``never``;
    * ``delay`` — seconds to pause after a bot's action;
    * ``auto_roll`` — roll at once when the player may not double (R43's software
      speed-up); otherwise wait for Enter;
    * ``names`` — the players' names (default: "You" and the bot's name, or "X" and "O");
    * ``autosave`` — where to save on end of input, Ctrl-C or an error (``None``: the
      default path, :func:`default_autosave_path`).
    """

    opponent: str = DEFAULT_BOT
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    dice_script: tuple[int, ...] = ()
    corner: str = CORNERS[0]
    switch_sides: bool = False
    colour: str = "auto"
    delay: float = DEFAULT_DELAY
    auto_roll: bool = True
    player_names: tuple[str, str] | None = None
    autosave: str | None = None

    def __post_init__(self) -> None:
        check_display(self)
        if not isinstance(self.opponent, str) or not self.opponent.strip():
            raise BackgammonError(f"opponent {self.opponent!r}: a bot name or {HUMAN!r}")

    @property
    def match_length(self) -> int:
        """0 for money play, else the match length."""
        return self.rules.match_length

    def is_bot(self, player: int) -> bool:
        """True when ``player`` (0 or 1) is played by the computer (only player 1 can be)."""
        return player == 1 and self.opponent.lower() != HUMAN

    @property
    def names(self) -> tuple[str, str]:
        """The players' names: given, or "You" and the bot's name, or "X" and "O"."""
        if self.player_names is not None:
            return self.player_names
        if self.is_bot(1):
            return ("You", self.opponent.lower())
        return ("X", "O")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the rules as :meth:`Rules.to_dict`)."""
        return options_to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> PlayOptions:
        """Inverse of :meth:`to_dict`; unknown keys and malformed values are an error
        (:class:`~backgammon.errors.BackgammonError`, a sentence naming the field).

        >>> PlayOptions.from_dict({"player_names": ["Ann"]})
        Traceback (most recent call last):
        ...
        backgammon.errors.BackgammonError: options: player_names ['Ann'] is not two names, like ["Ann", "Bob"]
        """
        return options_from_dict(cls, data, {"opponent": read_text, "player_names": _read_names})

    def with_display(self, **changes: Any) -> PlayOptions:
        """A copy with display options changed (those given as not ``None``)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


# -- the command line -------------------------------------------------------------------

_DESCRIPTION = """\
Play backgammon in the terminal: against a bot (default: %(bot)s) or a second person at the
same keyboard, for money or a match to N points. A game starts at once with the defaults.

At the prompt, type a play in standard notation (24/18 13/11, bar/22*, 6/off, 13/7(2)) or
the number of a play from `list`, then Enter (or `done`) to confirm it, `undo` to take it
back. Other commands: roll, double, take, pass, beaver, resign [single|gammon|backgammon],
accept, decline, hint, list, board, help, save [FILE], quit.
"""

_EPILOG = """\
exit status: 0 when the session ends normally or on end of input (Ctrl-D; the game is
saved first); 130 after Ctrl-C (saved first); 1 after an unexpected error (saved first);
2 for bad options or a save file that cannot be read.

saving: `save` without a name and the automatic save write to %(folder)s
(save.json and autosave.json there; backgammon-save.json and backgammon-autosave.json in ./);
`save FILE` writes FILE (relative to the current folder) and asks before replacing a file.

examples:
  backgammon play                          you against %(bot)s, money game
  backgammon play --match 5                a 5-point match (money-only rules do not apply, R34)
  backgammon play --jacoby --beavers       a money game with the Jacoby rule and beavers
  backgammon play --opponent human         two people at one keyboard
  backgammon play --seed 42                reproducible dice
  backgammon play --dice 31,62,55          these rolls first (then --seed's or random)
  backgammon play --corner top-left        your home board at the top left (R46)
  backgammon play --resume game.json       take up a saved game (options come from the file)
"""


def _corner(text: str) -> str:
    value = _CORNER_ALIASES.get(text.strip().lower(), text.strip().lower())
    if value not in CORNERS:
        raise argparse.ArgumentTypeError(f"{text!r}: one of {', '.join(CORNERS)} (or br, bl, tr, tl)")
    return value


def _converted(text: str, convert: Callable[[str], _N], what: str) -> _N:
    """``convert(text)``, or an argparse error saying that ``text`` is not ``what``."""
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def non_negative_int_arg(text: str) -> int:
    value = _converted(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 0 or more")
    return value


def cube_limit_arg(text: str) -> int:
    value = non_negative_int_arg(text)
    if value < 1 or value & (value - 1):
        raise argparse.ArgumentTypeError(f"{text!r}: the cube limit is a power of 2 (2, 4, ... 64, ...)")
    return value


def seconds_arg(text: str) -> float:
    value = _converted(text, float, "a number of seconds")
    if not value >= 0 or value > 60:
        raise argparse.ArgumentTypeError(f"{text!r}: between 0 and 60 seconds")
    return value


def script_arg(text: str) -> tuple[int, ...]:
    from .dice import parse_script

    try:
        return parse_script(text)
    except BackgammonError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _names(text: str) -> tuple[str, str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts) or any(len(p) > 20 for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r}: two names of up to 20 characters, like Ann,Bob")
    return parts[0], parts[1]


def _opponent(text: str) -> str:
    from ..bots import available

    name = text.strip().lower()
    if name != HUMAN and name not in available():
        raise argparse.ArgumentTypeError(
            f"{text!r}: the opponents are {', '.join(available())} (bots) and {HUMAN}"
        )
    return name


#: The ``dest`` of each rules option (R5, R6, R24-R26, R30), in the order of the help.
RULES_ARGUMENTS = (
    "automatic_doubles",
    "automatic_double_limit",
    "jacoby",
    "beavers",
    "backgammon_as_gammon",
    "cube_limit",
    "opening_reroll",
)
_RULES_HELP = {
    "automatic_doubles": "R6, money only: equal opening dice double the cube",
    "automatic_double_limit": "R6: at most N automatic doubles a game (default 1)",
    "jacoby": "R25, money only: gammons count single while the cube is centred",
    "beavers": "R30, money only: a player doubled may beaver",
    "backgammon_as_gammon": "R24 option: a backgammon counts as a gammon (2x, not 3x)",
    "cube_limit": "R26: the cube may not go past N (a power of 2); default: no limit",
    "opening_reroll": "R5: the winner of the opening roll rolls both dice afresh",
}


def add_rules_arguments(
    parser: argparse.ArgumentParser,
    title: str = "rules options (RULES.md)",
    helps: Mapping[str, str] | None = None,
) -> None:
    """Add the rules options (:data:`RULES_ARGUMENTS`) to ``parser``, in a group named
    ``title``; ``helps`` replaces the help of some (by ``dest``). Every one defaults to
    ``None``, so that ``--resume`` can tell which were given; :func:`rules_from_args` reads
    them.

    >>> parser = argparse.ArgumentParser(); add_rules_arguments(parser)
    >>> args = parser.parse_args(["--jacoby", "--cube-limit", "16"])
    >>> args.jacoby, args.cube_limit, args.beavers
    (True, 16, None)
    """
    text = {**_RULES_HELP, **(helps or {})}
    unknown = sorted(set(text) - set(RULES_ARGUMENTS))
    if unknown:
        raise ValueError(f"no rules option {', '.join(unknown)}")
    group = parser.add_argument_group(title)
    for dest in RULES_ARGUMENTS:
        option = "--" + dest.replace("_", "-")
        if dest == "automatic_double_limit":
            group.add_argument(option, type=non_negative_int_arg, default=None, metavar="N", help=text[dest])
        elif dest == "cube_limit":
            group.add_argument(option, type=cube_limit_arg, default=None, metavar="N", help=text[dest])
        else:
            group.add_argument(option, action="store_true", default=None, help=text[dest])


def rules_from_args(args: argparse.Namespace, match_length: int = 0) -> Rules:
    """The :class:`~backgammon.rules.Rules` of the options :func:`add_rules_arguments`
    added (defaults for those not given), for a match to ``match_length`` (0: money play).

    >>> parser = argparse.ArgumentParser(); add_rules_arguments(parser)
    >>> rules = rules_from_args(parser.parse_args(["--beavers"]))
    >>> rules.beavers, rules.jacoby, rules.automatic_double_limit, rules.match_length
    (True, False, 1, 0)
    """
    return Rules(
        match_length=match_length,
        opening_reroll=bool(args.opening_reroll),
        automatic_doubles=bool(args.automatic_doubles),
        automatic_double_limit=1 if args.automatic_double_limit is None else args.automatic_double_limit,
        jacoby=bool(args.jacoby),
        beavers=bool(args.beavers),
        backgammon_counts_as_gammon=bool(args.backgammon_as_gammon),
        cube_limit=args.cube_limit,
    )


def rules_in_effect(rules: Rules) -> list[str]:
    """The rules options that apply under ``rules``, in words, for the start of a session.

    >>> rules_in_effect(Rules(jacoby=True, cube_limit=64))
    ['Jacoby rule (R25)', 'cube limit 64 (R26)']
    >>> rules_in_effect(Rules(match_length=5, jacoby=True))  # Jacoby is for money play
    []
    """
    return [
        name
        for name, on in (
            ("automatic doubles (R6)", rules.automatic_doubles_apply),
            ("Jacoby rule (R25)", rules.jacoby_applies),
            ("beavers (R30)", rules.beavers_apply),
            ("backgammons count as gammons (R24)", rules.backgammon_counts_as_gammon),
            (f"cube limit {rules.cube_limit} (R26)", rules.cube_limit is not None),
            ("opening reroll (R5)", rules.opening_reroll),
        )
        if on
    ]


def add_dice_arguments(group: argparse._ArgumentGroup, *, seed_help: str, dice_help: str) -> None:
    """``--seed`` and ``--dice`` (both programs)."""
    group.add_argument("--seed", type=int, default=None, metavar="N", help=seed_help)
    group.add_argument("--dice", type=script_arg, default=None, metavar="SCRIPT", help=dice_help)


def add_display_arguments(
    parser: argparse.ArgumentParser, *, corner_help: str, switch_help: str, auto_roll_help: str
) -> argparse._ArgumentGroup:
    """The ``display`` group of both programs: ``--corner``, ``--switch-sides`` (R46),
    ``--color``, ``--delay`` and ``--auto-roll`` (each defaults to ``None``: not given)."""
    show = parser.add_argument_group("display")
    show.add_argument("--corner", type=_corner, default=None, metavar="CORNER", help=corner_help)
    show.add_argument(
        "--switch-sides", action=argparse.BooleanOptionalAction, default=None, help=switch_help
    )
    show.add_argument(
        "--color",
        "--colour",
        dest="colour",
        choices=COLOURS,
        default=None,
        help="colour: auto (on a terminal, unless NO_COLOR is set), always or never",
    )
    show.add_argument(
        "--delay",
        type=seconds_arg,
        default=None,
        metavar="SECONDS",
        help=f"pause after each bot action (default {DEFAULT_DELAY})",
    )
    show.add_argument(
        "--auto-roll", action=argparse.BooleanOptionalAction, default=None, help=auto_roll_help
    )
    return show


def add_saving_arguments(parser: argparse.ArgumentParser, *, resume_help: str, autosave_name: str) -> None:
    """``--resume FILE`` and ``--autosave FILE`` (both programs); ``autosave_name`` is the
    default automatic save's name in the folder of the save files."""
    from .savefile import STATE_DIR_TEXT

    files = parser.add_argument_group("saving")
    files.add_argument("--resume", metavar="FILE", default=None, help=resume_help)
    files.add_argument(
        "--autosave",
        metavar="FILE",
        default=None,
        help=f"where to save on Ctrl-D, Ctrl-C or an error (default: {autosave_name} in "
        f"{STATE_DIR_TEXT}; in ./ it is backgammon-{autosave_name})",
    )


def shared_display_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The display options of :func:`add_display_arguments` and ``--autosave`` given on the
    command line (the others are ``None``)."""
    return {
        "corner": args.corner,
        "switch_sides": args.switch_sides,
        "colour": args.colour,
        "delay": args.delay,
        "auto_roll": args.auto_roll,
        "autosave": args.autosave,
    }


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``play`` sub-command's options to ``parser`` (its description and epilog
    too). Display options default to ``None`` so that ``--resume`` can tell which were
    given."""
    from ..bots import available
    from .savefile import STATE_DIR_TEXT

    parser.description = _DESCRIPTION % {"bot": DEFAULT_BOT}
    parser.epilog = _EPILOG % {"bot": DEFAULT_BOT, "folder": STATE_DIR_TEXT}
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    game = parser.add_argument_group("opponent, match and dice")
    game.add_argument(
        "--opponent",
        "-o",
        type=_opponent,
        default=None,
        metavar="NAME",
        help=f"a bot ({', '.join(available())}) or {HUMAN!r} for two players at one keyboard "
        f"(default: {DEFAULT_BOT})",
    )
    game.add_argument(
        "--match",
        "-m",
        type=non_negative_int_arg,
        default=None,
        metavar="N",
        help="play a match to N points (R32, with the Crawford rule R33); 0 or absent: money game",
    )
    add_dice_arguments(
        game,
        seed_help="seed the dice (and the bot) for a reproducible game",
        dice_help="scripted dice, like 31,62,55: the opening throw (X's die, O's die) then each roll; "
        "after the script, --seed's dice or random ones",
    )
    add_rules_arguments(parser)
    show = add_display_arguments(
        parser,
        corner_help=f"where your home board is drawn (R46): {', '.join(CORNERS)} (default {CORNERS[0]})",
        switch_help="change your home board's side (left/right) after every game (R46)",
        auto_roll_help="roll at once when you may not double (default: on)",
    )
    show.add_argument(
        "--names", type=_names, default=None, metavar="X,O", help="the players' names, like Ann,Bob"
    )
    add_saving_arguments(
        parser,
        resume_help="take up a game saved with `save` (or the automatic save); "
        "its options come from the file",
        autosave_name="autosave.json",
    )


#: Options that set up the game; with ``--resume`` they come from the file.
GAME_ARGUMENTS = ("opponent", "match", "seed", "dice", *RULES_ARGUMENTS)
#: The rules options that apply to money play only (R34): refused with ``--match N``.
MONEY_ONLY_ARGUMENTS = ("automatic_doubles", "automatic_double_limit", "jacoby", "beavers")


def display_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The display options given on the command line (the others are ``None``)."""
    return {**shared_display_changes(args), "player_names": args.names}


def options_from_args(args: argparse.Namespace) -> PlayOptions:
    """The :class:`PlayOptions` of a parsed ``play`` command line (defaults filled in).
    The money-only rules options with ``--match N`` are an error (R34).

    >>> parser = argparse.ArgumentParser(); add_play_arguments(parser)
    >>> opts = options_from_args(parser.parse_args(["--match", "5", "--corner", "tl"]))
    >>> opts.match_length, opts.corner, opts.opponent
    (5, 'top-left', 'expert')
    >>> options_from_args(parser.parse_args(["--match", "5", "--jacoby"]))
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: --jacoby is for money play: it does not apply in a match (R34); leave it out or drop --match
    """
    if args.match:
        for dest in MONEY_ONLY_ARGUMENTS:
            if getattr(args, dest, None) is not None:
                option = "--" + dest.replace("_", "-")
                raise BackgammonError(
                    f"{option} is for money play: it does not apply in a match (R34); "
                    "leave it out or drop --match"
                )
    base = PlayOptions(
        opponent=args.opponent or DEFAULT_BOT,
        rules=rules_from_args(args, match_length=args.match or 0),
        seed=args.seed,
        dice_script=args.dice or (),
    )
    return base.with_display(**display_changes(args))
