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
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

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
#: File name of the automatic save in the current folder (without ``$XDG_STATE_HOME``).
DEFAULT_AUTOSAVE_NAME = "backgammon-autosave.json"
COLOURS = ("auto", "always", "never")


def default_autosave_path() -> Path:
    """Where a game is saved when the program stops on end of input, Ctrl-C or an error:
    ``$XDG_STATE_HOME/backgammon/autosave.json`` when ``XDG_STATE_HOME`` is set, else
    ``./backgammon-autosave.json``.

    >>> import os; os.environ.pop("XDG_STATE_HOME", None) and None
    >>> default_autosave_path().name
    'backgammon-autosave.json'
    """
    state = os.environ.get("XDG_STATE_HOME")
    if state:
        return Path(state) / "backgammon" / "autosave.json"
    return Path(DEFAULT_AUTOSAVE_NAME)


def mirror_corner(corner: str) -> str:
    """The corner on the other side (left and right swapped): switching sides (R46).

    >>> mirror_corner("bottom-right"), mirror_corner("top-left")
    ('bottom-left', 'top-right')
    """
    vertical, horizontal = corner.split("-")
    return f"{vertical}-{'left' if horizontal == 'right' else 'right'}"


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
        if self.corner not in CORNERS:
            raise BackgammonError(f"corner {self.corner!r}: one of {', '.join(CORNERS)}")
        if self.colour not in COLOURS:
            raise BackgammonError(f"colour {self.colour!r}: one of {', '.join(COLOURS)}")
        if not isinstance(self.delay, (int, float)) or isinstance(self.delay, bool) or self.delay < 0:
            raise BackgammonError(f"delay {self.delay!r}: a number of seconds >= 0")
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
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Rules):
                value = value.to_dict()
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Any) -> PlayOptions:
        """Inverse of :meth:`to_dict`; unknown keys are an error."""
        if not isinstance(data, dict):
            raise BackgammonError(f"options {data!r}: expected a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BackgammonError(f"options: unknown field(s) {', '.join(unknown)}")
        kwargs = dict(data)
        try:
            if "rules" in kwargs:
                kwargs["rules"] = Rules.from_dict(kwargs["rules"])
            if "dice_script" in kwargs:
                kwargs["dice_script"] = tuple(int(d) for d in kwargs["dice_script"])
            if kwargs.get("player_names") is not None:
                a, b = kwargs["player_names"]
                kwargs["player_names"] = (str(a), str(b))
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise BackgammonError(f"options {data!r}: {exc}") from None

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

examples:
  backgammon play                          you against pubeval, money game
  backgammon play --match 5 --jacoby       a 5-point match (Jacoby applies to money only)
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


def non_negative_int_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 0 or more")
    return value


def cube_limit_arg(text: str) -> int:
    value = non_negative_int_arg(text)
    if value < 1 or value & (value - 1):
        raise argparse.ArgumentTypeError(f"{text!r}: the cube limit is a power of 2 (2, 4, ... 64, ...)")
    return value


def seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
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


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``play`` sub-command's options to ``parser`` (its description and epilog
    too). Display options default to ``None`` so that ``--resume`` can tell which were
    given."""
    from ..bots import available

    parser.description = _DESCRIPTION % {"bot": DEFAULT_BOT}
    parser.epilog = _EPILOG
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
    game.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="seed the dice (and the bot) for a reproducible game",
    )
    game.add_argument(
        "--dice",
        type=script_arg,
        default=None,
        metavar="SCRIPT",
        help="scripted dice, like 31,62,55: the opening throw (X's die, O's die) then each roll; "
        "after the script, --seed's dice or random ones",
    )
    add_rules_arguments(parser)
    show = parser.add_argument_group("display")
    show.add_argument(
        "--corner",
        type=_corner,
        default=None,
        metavar="CORNER",
        help=f"where your home board is drawn (R46): {', '.join(CORNERS)} (default {CORNERS[0]})",
    )
    show.add_argument(
        "--switch-sides",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="change your home board's side (left/right) after every game (R46)",
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
        "--auto-roll",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="roll at once when you may not double (default: on)",
    )
    show.add_argument(
        "--names", type=_names, default=None, metavar="X,O", help="the players' names, like Ann,Bob"
    )
    files = parser.add_argument_group("saving")
    files.add_argument(
        "--resume",
        metavar="FILE",
        default=None,
        help="take up a game saved with `save` (or the automatic save); its options come from the file",
    )
    files.add_argument(
        "--autosave",
        metavar="FILE",
        default=None,
        help="where to save on Ctrl-D, Ctrl-C or an error "
        "(default: $XDG_STATE_HOME/backgammon/autosave.json, else ./backgammon-autosave.json)",
    )


#: Options that set up the game; with ``--resume`` they come from the file.
GAME_ARGUMENTS = ("opponent", "match", "seed", "dice", *RULES_ARGUMENTS)


def display_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The display options given on the command line (the others are ``None``)."""
    return {
        "corner": args.corner,
        "switch_sides": args.switch_sides,
        "colour": args.colour,
        "delay": args.delay,
        "auto_roll": args.auto_roll,
        "player_names": args.names,
        "autosave": args.autosave,
    }


def options_from_args(args: argparse.Namespace) -> PlayOptions:
    """The :class:`PlayOptions` of a parsed ``play`` command line (defaults filled in).

    >>> parser = argparse.ArgumentParser(); add_play_arguments(parser)
    >>> opts = options_from_args(parser.parse_args(["--match", "5", "--corner", "tl"]))
    >>> opts.match_length, opts.corner, opts.opponent
    (5, 'top-left', 'expert')
    """
    base = PlayOptions(
        opponent=args.opponent or DEFAULT_BOT,
        rules=rules_from_args(args, match_length=args.match or 0),
        seed=args.seed,
        dice_script=args.dice or (),
    )
    return base.with_display(**display_changes(args))
