"""``backgammon rollout``: roll a position out (:mod:`backgammon.analysis.rollout`).

::

    backgammon rollout POSITION [--games N] [--ply N] [--cubeful] [--cube-limit N]
                       [--truncate N] [--no-bearoff-truncation] [--seed S] [--dice 31]
                       [--workers N] [--ray ADDRESS] [--save F] [--resume F] [--json]

``POSITION`` as ``backgammon show`` takes it (a Position ID, ``PositionID:MatchID``, an
XGID), from the side on roll; the Match ID's cube, score and Jacoby rule are the cube a
``--cubeful`` rollout's trials start with (doubles and takes inside the trials). With
``--dice`` (or dice in the Match ID / XGID) the best candidate plays of that roll are
rolled out instead, best first. A progress bar with the current estimate runs on stderr.
Ctrl-C stops: the state so far goes to the ``--save`` file (``rollout-state.json`` by
default) and ``--resume FILE`` goes on from it (``--games`` may grow; the other settings
come from the file). ``--save`` also keeps the state of a
finished rollout, to extend it later. Exit status 0, 1 when stopped, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..cli import dice_arg
from ..errors import BackgammonError
from ..terminal.options import cube_limit_arg, non_negative_int_arg

#: where Ctrl-C saves without ``--save``
DEFAULT_SAVE = "rollout-state.json"
_PLAYS_FORMAT = "backgammon-rollout-plays-state"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``backgammon rollout``."""
    p = argparse.ArgumentParser(
        prog="backgammon rollout",
        description="Roll a position out with the engine (cubeless, or cubeful: the bots double "
                    "and take inside the trials), on every core or on a Ray cluster.")
    p.add_argument("position", metavar="POSITION", nargs="?", default=None,
                   help="Position ID, PositionID:MatchID or XGID=... (from the side on roll); "
                        "optional with --resume")
    p.add_argument("--games", type=non_negative_int_arg, default=None,
                   help="trials (default 1296, or the saved rollout's)")
    p.add_argument("--ply", type=int, choices=(0, 1), default=None,
                   help="chequer play look-ahead: 0 (default) or 1")
    p.add_argument("--cubeful", action="store_true", default=None,
                   help="cube actions inside the trials: also the cubeful equity (money: points "
                        "per starting cube; match: EMG and match-winning chances)")
    p.add_argument("--cube-limit", type=cube_limit_arg, default=None,
                   help="with --cubeful: the highest cube (a power of 2; default no limit)")
    p.add_argument("--no-bearoff-truncation", dest="bstop", action="store_false", default=None,
                   help="play cubeless trials to the end instead of taking the exact bear-off "
                        "tables once both sides are home")
    p.add_argument("--truncate", type=non_negative_int_arg, default=None,
                   help="stop each trial after N plies and take the evaluation (default 0: to the end)")
    p.add_argument("--seed", type=non_negative_int_arg, default=None, help="the dice's seed (default 1)")
    p.add_argument("--no-variance-reduction", dest="vr", action="store_false", default=None,
                   help="no luck adjustment")
    p.add_argument("--no-quasi-random", dest="quasi", action="store_false", default=None,
                   help="no stratified first rolls")
    p.add_argument("--dice", type=dice_arg, default=None,
                   help="roll out the candidate plays of this roll (like 31)")
    p.add_argument("--plays", type=non_negative_int_arg, default=None,
                   help="with --dice: the best N plays by 0 ply (default: up to 5 within 0.16)")
    p.add_argument("--workers", type=non_negative_int_arg, default=None,
                   help="worker processes (default: every core; 1: this process)")
    p.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="run on a Ray cluster (auto, ray://HOST:10001, local)")
    p.add_argument("--chunk", type=non_negative_int_arg, default=None, help="trials per unit of work (default 36)")
    p.add_argument("--save", metavar="FILE", default=None,
                   help=f"keep the state here (on Ctrl-C: {DEFAULT_SAVE} by default)")
    p.add_argument("--resume", metavar="FILE", default=None, help="go on from a saved state")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def _settings(args: argparse.Namespace, saved: Any) -> Any:
    """The settings: the saved rollout's, then the options given."""
    from ..analysis.rollout import RolloutSettings

    base = saved.to_dict() if saved is not None else {}
    given = {"games": args.games, "plies": args.ply, "cubeful": args.cubeful,
             "truncate": args.truncate, "seed": args.seed, "variance_reduction": args.vr,
             "quasi_random": args.quasi, "workers": args.workers, "ray_address": args.ray,
             "chunk": args.chunk, "cube_limit": args.cube_limit,
             "bearoff_truncation": args.bstop}
    for name, value in given.items():
        if value is not None:
            base[name] = value
    for name in ("workers", "ray_address"):
        base[name] = given[name]
    return RolloutSettings.from_dict(base)


def _load(path: str) -> tuple[str, Any, list[Any]]:
    """A saved file: (kind, dice or None, states)."""
    from ..analysis.rollout import RolloutError, RolloutState, read_saved

    data = read_saved(path)
    if isinstance(data, dict) and data.get("format") == _PLAYS_FORMAT:
        try:
            return ("plays", tuple(data["dice"]), [RolloutState.from_dict(s) for s in data["states"]])
        except (KeyError, TypeError) as exc:
            raise RolloutError(f"{path}: a saved rollout of plays without {exc}") from None
    return "position", None, [RolloutState.from_dict(data)]


def _save(path: str, dice: tuple[int, int] | None, states: Sequence[Any]) -> None:
    """Write the state(s) of a stopped or finished rollout to ``path``."""
    if dice is None:
        states[0].save(path)
        return
    data = {"format": _PLAYS_FORMAT, "version": 1, "dice": list(dice),
            "states": [s.to_dict() for s in states]}
    tmp = Path(path).with_name(f".{Path(path).name}.tmp")
    tmp.write_text(json.dumps(data) + "\n", encoding="utf-8")
    tmp.replace(path)


def _text(result: Any) -> str:
    p = result.probabilities
    s = result.standard_errors
    lines = [
        f"  win      {p.win:.4f} ± {s[0]:.4f}   gammon {p.win_gammon:.4f} ± {s[1]:.4f}   "
        f"backgammon {p.win_backgammon:.4f} ± {s[2]:.4f}",
        f"  lose     {p.lose:.4f} ± {s[0]:.4f}   gammon {p.lose_gammon:.4f} ± {s[3]:.4f}   "
        f"backgammon {p.lose_backgammon:.4f} ± {s[4]:.4f}",
        f"  cubeless equity {result.equity:+.4f} ± {result.equity_se:.4f}",
    ]
    if result.cubeful_equity is not None:
        unit = {"mwc": " (match-winning chances)", "emg": " EMG"}.get(result.unit, "")
        lines.append(f"  cubeful  equity {result.cubeful_equity:+.4f} ± {result.cubeful_se:.4f}{unit}")
        if result.cubeful_mwc is not None:
            lines.append(f"  cubeful  match-winning chances {result.cubeful_mwc:.4f} "
                         f"± {result.cubeful_mwc_se:.4f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``backgammon rollout``; returns the exit status."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        return _run(args)
    except BackgammonError as exc:
        print(f"backgammon rollout: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from ..analysis.rollout import RolloutError, RolloutInterrupted, rollout_plays, rollout_state
    from ..cli import read_position
    from ..matchid import MatchState
    from ..position import Position
    from ..progress import Progress

    kind: str = "position"
    saved_dice: Any = None
    saved: list[Any] = []
    if args.resume:
        kind, saved_dice, saved = _load(args.resume)
    settings = _settings(args, saved[0].settings if saved else None)
    if args.position is not None:
        match = read_position(args.position)
        position = match.game.position
        state = match.match_state()
        dice = args.dice or state.dice
        if saved and kind == "position" and saved[0].position_id != position.position_id():
            raise RolloutError(f"{args.resume} holds a rollout of {saved[0].position_id}, "
                               f"not of {position.position_id()}")
    elif saved:
        if kind == "plays":
            raise RolloutError(f"{args.resume} holds a rollout of plays: give POSITION too")
        position = Position.from_position_id(saved[0].position_id)
        state = MatchState.from_match_id(saved[0].match_id)
        dice = args.dice
    else:
        raise RolloutError("give a POSITION (or --resume FILE)")
    if saved_dice is not None and dice is not None and tuple(sorted(dice)) != tuple(sorted(saved_dice)):
        raise RolloutError(f"{args.resume} holds a rollout of {saved_dice[0]}{saved_dice[1]}, "
                           f"not of {dice[0]}{dice[1]}")
    if kind == "plays" and dice is None:
        dice = saved_dice
    state = replace(state, dice=None, double_offered=False, turn=state.player_on_roll)
    total = settings.games * (1 if dice is None else (args.plays or 5))
    bar = Progress(total, "rollout", unit="games")

    def progress(done: int, all_games: int, estimate: Any) -> None:
        bar.total = all_games
        status = f"equity {estimate.equity:+.3f} ± {estimate.equity_se:.3f}"
        if estimate.cubeful_equity is not None:
            status += f" cubeful {estimate.cubeful_equity:+.3f}"
        bar.update(done, status)

    save_to = args.save or DEFAULT_SAVE
    try:
        with bar:
            if dice is None:
                final = rollout_state(position, state, settings, progress=progress,
                                      resume=saved[0] if saved else None)
                result = final.result()
                plays = None
            else:
                plays = rollout_plays(position, dice, state, settings, count=args.plays,
                                      progress=progress, resume=saved or None)
    except RolloutInterrupted as stop:
        _save(save_to, None if dice is None else dice, stop.states)
        done = sum(s.done for s in stop.states)
        print(f"backgammon rollout: stopped after {done} games; the state is in {save_to} "
              f"(go on with --resume {save_to})", file=sys.stderr)
        return 1
    if plays is None or dice is None:
        if args.save:
            final.save(args.save)
        if args.json:
            print(json.dumps(result.to_dict(), indent=2))
        else:
            print(f"Rollout of {position.position_id()}:{state.to_match_id()}, "
                  f"{result.games} games, {settings.plies} ply"
                  + (f", truncated at {settings.truncate} plies" if settings.truncate else ""))
            print(_text(result))
        return 0
    if args.json:
        print(json.dumps({"format": "backgammon-rollout-plays", "version": 1,
                          "position_id": position.position_id(), "match_id": state.to_match_id(),
                          "dice": list(dice),
                          "plays": [{"move": move, **r.to_dict()} for move, r in plays]}, indent=2))
    else:
        print(f"Rollout of the plays of {dice[0]}{dice[1]} in {position.position_id()}, "
              f"{settings.games} games each, {settings.plies} ply")
        for n, (move, r) in enumerate(plays, 1):
            print(f"{n}. {move}")
            print(_text(r))
    return 0
