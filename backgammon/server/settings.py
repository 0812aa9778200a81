"""Tables as people ask for them: a ``CreateTable`` request checked and turned into the
settings the store keeps (:func:`settings_of`), the :class:`~backgammon.table.Table` those
settings make once every seat is taken (:func:`build_table`), and the ``TableInfo`` the lobby
and the pages show (:func:`table_info`). See docs/PROTOCOL.md.

>>> kind, settings = settings_of({"kind": "match", "length": 5, "name": "ann",
...                               "seats": [{"kind": "human"}, {"kind": "bot", "bot": "expert"}]})
>>> kind, [(s["name"], s["kind"]) for s in settings["seats"]]
('match', [('ann', 'human'), ('expert', 'bot')])
>>> settings_of({"kind": "match", "length": 5, "name": "ann", "rules": {"jacoby": True},
...              "seats": [{"kind": "human"}, {"kind": "human"}]})
Traceback (most recent call last):
...
backgammon.server.settings.SettingsError: jacoby is for money play only (R34): turn it off for a match, or choose money play
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from ..bots import available
from ..clock import PRESETS, TimeControl
from ..errors import BackgammonError
from ..fairdice import FairDice
from ..rules import Rules
from ..table import Seat, Table
from .store import TableRecord

__all__ = ["SettingsError", "build_table", "settings_of", "table_info", "time_control", "unique_name"]


class SettingsError(BackgammonError):
    """A ``CreateTable`` request that cannot be played (the sentence says why)."""


#: Options of :class:`~backgammon.rules.Rules` a ``CreateTable`` may set, and those that
#: only money play knows (refused for a match, R34).
_RULE_OPTIONS = {
    "opening_reroll": bool,
    "automatic_doubles": bool,
    "automatic_double_limit": int,
    "jacoby": bool,
    "beavers": bool,
    "backgammon_counts_as_gammon": bool,
    "cube_limit": int,
}
_MONEY_ONLY = ("jacoby", "beavers", "automatic_doubles")


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name 2``, ``name 3``... the first not in ``taken``."""
    if name not in taken:
        return name
    n = 2
    while f"{name} {n}" in taken:
        n += 1
    return f"{name} {n}"


def _person_name(value: Any) -> str:
    if not isinstance(value, str) or not 0 < len(value.strip()) <= 40:
        raise SettingsError("a name is needed: 1-40 characters")
    return " ".join(value.split())


def settings_of(body: Any) -> tuple[str, dict[str, Any]]:
    """The table's ``kind`` and settings from a ``CreateTable`` request (docs/PROTOCOL.md),
    with the creator seated; :class:`SettingsError` with a sentence for anything wrong."""
    if not isinstance(body, dict):
        raise SettingsError("send the new table as a JSON object (see CreateTable in docs/PROTOCOL.md)")
    kind = body.get("kind")
    if kind not in ("match", "money", "chouette"):
        raise SettingsError(f"kind {kind!r}: a table is a 'match', 'money' or 'chouette'")
    name = _person_name(body.get("name"))
    length = 0
    if kind == "match":
        raw_length = body.get("length")
        if not isinstance(raw_length, int) or isinstance(raw_length, bool) or not 1 <= raw_length <= 25:
            raise SettingsError(f"length {raw_length!r}: a match is played to 1-25 points")
        length = raw_length
    raw_rules = body.get("rules") or {}
    if not isinstance(raw_rules, dict):
        raise SettingsError("rules must be an object of options, like {\"jacoby\": true}")
    rules: dict[str, Any] = {}
    for key, value in raw_rules.items():
        want = _RULE_OPTIONS.get(key)
        if want is None:
            options = ", ".join(sorted(_RULE_OPTIONS))
            raise SettingsError(f"unknown rule option {key!r}; the options are {options}")
        if value is None and key == "cube_limit":
            continue
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            expected = "true or false" if want is bool else "a whole number"
            raise SettingsError(f"rule option {key}: expected {expected}")
        rules[key] = value
    if kind == "match":
        on = [k for k in _MONEY_ONLY if rules.get(k)]
        if on:
            verb = "is" if len(on) == 1 else "are"
            raise SettingsError(f"{', '.join(on)} {verb} for money play only (R34): "
                            "turn it off for a match, or choose money play")
    try:
        Rules(match_length=length, **rules)
    except BackgammonError as exc:
        raise SettingsError(str(exc)) from None
    raw_seats = body.get("seats")
    count = (3, 8) if kind == "chouette" else (2, 2)
    if not isinstance(raw_seats, list) or not count[0] <= len(raw_seats) <= count[1]:
        many = "3-8 seats" if kind == "chouette" else "2 seats"
        raise SettingsError(f'a {kind} has {many}: send them as a list like [{{"kind": "human"}}, ...]')
    same_screen = body.get("same_screen", False)
    if not isinstance(same_screen, bool):
        raise SettingsError("same_screen must be true or false")
    bots = available()
    taken: set[str] = set()
    seats: list[dict[str, Any]] = []
    first_human = True
    for raw in raw_seats:
        if not isinstance(raw, dict) or raw.get("kind") not in ("human", "bot"):
            raise SettingsError('each seat is {"kind": "human"} or {"kind": "bot", "bot": LEVEL}')
        if raw["kind"] == "bot":
            level = raw.get("bot")
            if level not in bots:
                raise SettingsError(f"bot {level!r}: the bots are {', '.join(bots)}")
            seat_name = unique_name(str(level), taken)
            seats.append({"name": seat_name, "kind": "bot", "bot": level, "seed": secrets.randbelow(2**31)})
            taken.add(seat_name)
        else:
            wanted = raw.get("name")  # at one screen, the other people may be named
            seats.append({"name": None, "kind": "human", "wanted": None if wanted is None else _person_name(wanted)})
    for seat in seats:
        wanted = seat.pop("wanted", None)
        if seat["kind"] == "human" and (first_human or same_screen):
            seat["name"] = unique_name(name if first_human or wanted is None else wanted, taken)
            taken.add(seat["name"])
            first_human = False
    if first_human:
        raise SettingsError("a table needs at least one person: make one seat {\"kind\": \"human\"}")
    rated = body.get("rated", False)
    if not isinstance(rated, bool):
        raise SettingsError("rated must be true or false")
    clock = body.get("clock", "none")
    if clock is None:
        clock = "none"
    if clock not in PRESETS:
        raise SettingsError(f"clock {clock!r}: the time controls are {', '.join(PRESETS)}")
    if clock != "none" and kind != "match":
        raise SettingsError("clocks are for matches: a money session or a chouette is played without one")
    if rated:
        if kind != "match":
            raise SettingsError("only matches are rated: money play and chouettes are not")
        if clock == "none":
            raise SettingsError("a rated match needs a clock, so that nobody can stall it: "
                                "choose blitz, rapid or classic")
        if same_screen:
            raise SettingsError("a match at one screen cannot be rated: each player needs their own account")
    settings = {
        "length": length,
        "rules": rules,
        "seats": seats,
        "same_screen": same_screen,
        "mute_spectators": False,
        "rated": rated,
        "clock": None if clock == "none" else clock,
        "players": {},
    }
    return kind, settings


def build_table(kind: str, settings: Mapping[str, Any], fair: FairDice) -> Table:
    """The table of ``settings`` once every seat is filled."""
    seats = [
        Seat(s["name"], s["bot"], seed=s.get("seed")) if s["kind"] == "bot" else Seat(s["name"])
        for s in settings["seats"]
    ]
    rules = Rules(match_length=settings["length"], **settings["rules"])
    if kind == "chouette":
        return Table.chouette(seats, rules, dice=fair)
    return Table.match(seats, settings["length"], rules, dice=fair)


def time_control(settings: Mapping[str, Any]) -> TimeControl | None:
    """The table's time control (``None``: no clock)."""
    name = settings.get("clock")
    return None if name is None else PRESETS.get(name)


def table_info(record: TableRecord, spectators: int = 0,
               result: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``TableInfo`` of a stored table (``result``: the finished match's result)."""
    s = record.settings
    seats = []
    for seat in s["seats"]:
        entry: dict[str, Any] = {"name": seat["name"], "kind": seat["kind"], "free": seat["name"] is None}
        if seat["kind"] == "bot":
            entry["bot"] = seat["bot"]
        seats.append(entry)
    return {
        "id": record.id,
        "kind": record.kind,
        "length": s["length"],
        "rules": Rules(match_length=s["length"], **s["rules"]).to_dict(),
        "seats": seats,
        "status": record.status,
        "created": record.created.isoformat(),
        "spectators": spectators,
        "same_screen": s.get("same_screen", False),
        "spectators_muted": s.get("mute_spectators", False),
        "rated": s.get("rated", False),
        "clock": None if (control := time_control(s)) is None else control.to_dict(),
        "players": {
            seat["name"]: _player(s.get("players", {}).get(seat["name"]))
            for seat in s["seats"] if seat["name"] is not None
        },
        "result": None if result is None else dict(result),
    }


def _player(entry: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A seat's account as TableInfo shows it (``None``: a guest)."""
    if entry is None:
        return None
    return {"name": entry["name"], "rating": round(float(entry["rating"]), 2), "experience": entry["experience"]}
