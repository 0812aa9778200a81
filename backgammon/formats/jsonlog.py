"""The project's own match file (``.json``): the match log with the players' names and facts.

``{"format": "backgammon-match-file", "version": 1, "names": [..], "info": {..},
"match": Match.to_dict()}``; a bare :meth:`Match.to_dict <backgammon.match.Match.to_dict>`
(``"format": "backgammon-match"``) reads too, with the default names. Unlike ``.mat`` and
``.sgf`` it keeps everything: tied opening throws, declined resignations, set-ups, forfeits,
every rule.

>>> from backgammon.formats import jsonlog, MatchRecord
>>> from backgammon.match import Match
>>> from backgammon.dice import ScriptedDice
>>> m = Match(3, dice=ScriptedDice([(5, 2)]))
>>> m.game.roll(); m.game.play("13/8 13/11")
>>> text = jsonlog.dumps(MatchRecord(m, ("ann", "bob"), {"event": "club night"}))
>>> back = jsonlog.loads(text)
>>> back.match == m, back.names, back.info
(True, ('ann', 'bob'), {'event': 'club night'})
>>> jsonlog.loads('{"format": "backgammon-match-file", "version": 1, "names": ["a"]}', path="x.json")
Traceback (most recent call last):
...
backgammon.formats.MatchFileError: x.json: expected "names": two player names, found '["a"]'
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import BackgammonError
from ..events import Forfeit, event_from_dict, event_list
from ..match import Match
from ..rules import Rules
from . import FileProblem, MatchFileError, MatchRecord

__all__ = ["FORMAT", "VERSION", "dumps", "loads"]

FORMAT = "backgammon-match-file"
VERSION = 1


def dumps(record: MatchRecord) -> str:
    """The JSON text of ``record``: one line per event, so that a person can read it."""
    head = {"format": FORMAT, "version": VERSION, "names": list(record.names), "info": dict(record.info)}
    data = record.match.to_dict()
    events = data.pop("events")
    match_head = json.dumps(data, ensure_ascii=False)[:-1]
    lines = ",\n  ".join(json.dumps(e, ensure_ascii=False) for e in events)
    body = f'{match_head}, "events": [\n  {lines}\n ]}}' if events else f'{match_head}, "events": []}}'
    return json.dumps(head, ensure_ascii=False)[:-1] + ',\n "match": ' + body + "}\n"


def loads(text: str, *, path: str = "", strict: bool = True) -> MatchRecord:
    """Read a ``.json`` match file (or a bare match log). ``strict=False`` keeps the events
    up to the first one that cannot be replayed and lists the problem."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MatchFileError(FileProblem(exc.lineno, f"JSON ({exc.msg})", _line(text, exc.lineno), path)) from None
    if not isinstance(data, dict):
        raise MatchFileError(FileProblem(0, "a JSON object", type(data).__name__, path))
    names: tuple[str, str] = ("Player 0", "Player 1")
    info: dict[str, str] = {}
    if data.get("format") == FORMAT:
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
            raise MatchFileError(FileProblem(0, f'"version": 1 to {VERSION}', repr(version), path))
        raw_names = data.get("names", list(names))
        if (
            not isinstance(raw_names, list)
            or len(raw_names) != 2
            or not all(isinstance(n, str) and n for n in raw_names)
        ):
            raise MatchFileError(FileProblem(0, '"names": two player names', json.dumps(raw_names), path))
        names = (raw_names[0], raw_names[1])
        raw_info = data.get("info", {})
        if not isinstance(raw_info, dict) or not all(isinstance(v, str) for v in raw_info.values()):
            raise MatchFileError(FileProblem(0, '"info": an object of texts', json.dumps(raw_info)[:80], path))
        info = dict(raw_info)
        match_data = data.get("match")
    elif data.get("format") == "backgammon-match":
        match_data = data
    else:
        found = repr(data.get("format")) if "format" in data else "no format"
        raise MatchFileError(FileProblem(0, f'"format": "{FORMAT}" or "backgammon-match"', found, path))
    if not isinstance(match_data, dict):
        raise MatchFileError(FileProblem(0, '"match": a match log (an object)', repr(match_data)[:80], path))
    try:
        match = Match.from_dict(match_data)
    except BackgammonError as exc:
        problem = FileProblem(0, "a match log that replays under the rules", str(exc)[:200], path)
        partial = _partial(match_data)
        record = MatchRecord(partial, names, info, (problem,)) if partial is not None else None
        if strict or record is None:
            raise MatchFileError(problem, record) from None
        return record
    return MatchRecord(match, names, info)


def _line(text: str, number: int) -> str:
    lines = text.split("\n")
    return lines[number - 1].strip()[:80] if 0 < number <= len(lines) else ""


def _partial(data: dict[str, Any]) -> Match | None:
    """The match up to the first event that cannot be taken again, or None when even the
    header is wrong."""
    try:
        rules = Rules.from_dict(data.get("rules", {}))
        start = data.get("start", {})
        score = start.get("score", [0, 0])
        match = Match(
            rules.match_length,
            rules,
            score=(score[0], score[1]),
            crawford=start.get("crawford", False),
            post_crawford=start.get("post_crawford", False),
        )
        raw_events = event_list(data)
    except (BackgammonError, AttributeError, TypeError, IndexError, KeyError):
        return None
    for raw in raw_events:
        try:
            event = event_from_dict(raw)
            if not event.primary:
                continue
            event.apply(match if isinstance(event, Forfeit) else match.game)
        except BackgammonError:
            break
    return match
