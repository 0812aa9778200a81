"""Our cube decisions against GNU Backgammon's, position by position (match play).

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/cube.py --positions 400 --seed 1
    PYTHONPATH=. .venv/bin/python benchmarks/cube.py --positions 100 --ply 0   # quicker reference
    PYTHONPATH=. .venv/bin/python benchmarks/cube.py --bot worldclass@training/runs/sl31s/best.npz  # another net, same positions

**What gnubg-nn can measure.** ``gnubg_nn.evaluate_cube_decision`` (PyPI's gnubg-nn, GPL,
used here in the benchmark only) is the cube routine of Joseph Heled's gnubg-nn player, for
**match play only**: at the money score (both 0-away, the default) it raises ``RuntimeError:
Not implemented for money``, and its docs suggest a symmetric score as a stand-in. There is
no cubeful money equity in the package (``cubeful_rollout`` plays the position out with its
own cube at the score set, 576 games a call: far too slow here, and not money either). So
money cube play cannot be compared with gnubg's; this benchmark compares **match** cube
decisions, at scores met in 5- and 7-point matches and at 7-away:7-away and
9-away:9-away, where the cube behaves most like money. The money cube is measured in play
by ``benchmarks/cubeful.py`` (``expert`` v ``expert-nocube``), and in match play
``benchmarks/matchplay.py`` plays whole matches. A cubeful bot driven by gnubg's
cube is not built: in money it has no cube to ask, and in a match its stale answers at some
scores (below) would need the same guards as here.

gnubg-nn's API, as found by experiment (1.1.0a11) and its docs (``docs/api.rst``):

* ``gnubg_nn.set.score(us_away, them_away, crawford=0)`` sets a global score; ``us`` is the
  side ``s=b"O"`` below (checked: at ``set.score(2, 5)`` the side ``O`` on roll of the
  opening position has 0.747 MWC, ``X`` 0.270). The ``crawford`` flag changes nothing this
  function returns (it still says "double" to the trailer of a Crawford game), so the
  Crawford game is left out here (nobody may double in it, R33);
* ``gnubg_nn.set.cube(value, owner)`` sets the cube: ``set.cube(1)`` centred, ``set.cube(2,
  b"O")`` owned by ``O``; evaluating for a side that does not own the cube raises;
* ``evaluate_cube_decision(key, n=ply, v=-1, s=b"O", i=1)``: ``key`` a 20-letter position
  key (``key_of_board(board_from_position_id(pid))``, the board of our
  :meth:`~backgammon.Position.position_id`, the player on roll being ``O``); ``n`` the
  plies of the double decision, ``v`` the plies of its verification (``-1``: 0 when ``n``
  is 0, else 2); ``s`` the side on roll (a one-byte ``bytes``). With ``i=1`` it returns
  ``(double, take, too_good, nd, dt, dp)``: three 0/1 flags — double or not, whether the
  opponent should take when doubled (``dt <= dp``), too good to double — and the
  **match winning chances of the side on roll** after no double, double/take and
  double/pass (``dp`` is the MWC of winning the cube's points now);
* when the side on roll is 1-away (the post-Crawford leader, whose double is pointless)
  it answers "no double" and returns the previous call's equities unchanged: such
  situations, and dead cubes (the roller's away at most the cube), are left out.

**The positions**: the pre-roll positions of ``expert`` self-play (cubeless, seeded dice)
where our 0-ply network gives the side on roll a cubeless win chance between 0.55 and
0.98 — the range where a double is conceivable — ``--positions`` of them, a quarter in
each of the bins 0.55–0.65, 0.65–0.75, 0.75–0.85 and 0.85–0.98 (self-play is full of
blitzes, too good to double, which would swamp the close decisions otherwise). Each is
asked at every score situation of :data:`SITUATIONS` (the score, the cube and who holds
it, pre- or post-Crawford).

**The decisions**: ours are the bot's own (``--bot``, default ``worldclass``, whose cube
methods are the ``expert``'s: one 0-ply evaluation, Janowski's model on the Kazaross-XG2
table, :mod:`backgammon.engine.met`): :meth:`~backgammon.bots.Bot.should_double` for the side
on roll and :meth:`~backgammon.bots.Bot.respond_to_double` for its opponent, as if doubled,
and ``'too good'`` from its :class:`~backgammon.engine.cube.CubeDecision`. gnubg's at 0 ply
(its network alone) and at the reference ply ``--ply`` (default 2: ``n=2``, verified at 2).
Each is one of *no double*, *double/take*, *double/pass*, *too good*.

**The figures**: the confusion table of ours against the reference, the agreement rate (the
four-way class, and the double and take decisions apart), the same for gnubg's 0 ply
against its own reference (a yardstick: how far a 0-ply cube is from a 2-ply one), and the
**cost by the reference's numbers**, as gnubg counts cube errors: the doubler's error is
``max(ND, min(DT, DP))`` minus the chosen action's equity (``min(DT, DP)`` when it doubled,
``ND`` otherwise), the taker's ``|DT - DP|`` when its answer is the wrong one; in thousandths
of match winning chances (mMWC) per decision, with the standard error over positions. The
reference is gnubg-nn's cube evaluator, not a rollout: where it is wrong, both sides are
charged with its errors.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # stats.py, beside this file

from backgammon import Position
from backgammon.bots import Bot, CubeResponse
from backgammon.bots.neural import ExpertBot
from backgammon.matchid import MatchState
from backgammon.progress import Progress
from stats import mean_stderr
from strength import load_bot

#: The four classes of a cube decision, in the order of the tables.
CLASSES = ("no double", "double, take", "double, pass", "too good")
_SHORT = {"no double": "ND", "double, take": "D/T", "double, pass": "D/P", "too good": "TG"}

#: Self-play positions kept, in equal shares: the side on roll's cubeless win chance (our
#: 0-ply net) in each of these ranges.
WIN_BINS = ((0.55, 0.65), (0.65, 0.75), (0.75, 0.85), (0.85, 0.98))


@dataclass(frozen=True)
class Situation:
    """A score and cube for the side on roll: ``away`` against ``opp_away`` in a match to
    ``length``, the cube at ``cube`` (centred at 1, else the roller's), ``post`` after
    the Crawford game."""

    length: int
    away: int
    opp_away: int
    cube: int = 1
    post: bool = False

    @property
    def label(self) -> str:
        cube = "centred" if self.cube == 1 else f"cube {self.cube} owned"
        post = ", post-Crawford" if self.post else ""
        return f"{self.away}-away v {self.opp_away}-away ({self.length}-pt), {cube}{post}"

    def state(self) -> MatchState:
        """The Match ID state with player 0 on roll, before the roll."""
        n = self.length
        return MatchState(
            cube_value=self.cube,
            cube_owner=None if self.cube == 1 else 0,
            player_on_roll=0,
            turn=0,
            match_length=n,
            score=(n - self.away, n - self.opp_away),
            jacoby=False,
        )

    def answer_state(self) -> MatchState:
        """The state when player 0 has doubled and player 1 must answer."""
        s = self.state()
        return MatchState(
            cube_value=s.cube_value, cube_owner=s.cube_owner, player_on_roll=0, turn=1,
            double_offered=True, match_length=s.match_length, score=s.score, jacoby=False,
        )


#: The score situations every position is asked at: even scores (the longer ones closest to
#: money), leader and trailer, an owned cube, and the post-Crawford trailer.
SITUATIONS = (
    Situation(7, 7, 7),
    Situation(9, 9, 9),
    Situation(5, 5, 5),
    Situation(5, 3, 5),
    Situation(5, 5, 3),
    Situation(7, 4, 2),
    Situation(7, 2, 4),
    Situation(7, 5, 5, cube=2),
    Situation(5, 4, 4, cube=2),
    Situation(5, 4, 1, post=True),
    Situation(7, 3, 1, post=True),
)


@dataclass(frozen=True)
class GnubgCube:
    """One answer of ``gnubg_nn.evaluate_cube_decision``: its class and its three match
    winning chances for the side on roll."""

    action: str
    nd: float
    dt: float
    dp: float

    @property
    def best(self) -> float:
        """The side on roll's MWC with correct cube handling (a double answered correctly)."""
        return max(self.nd, min(self.dt, self.dp))

    @property
    def take(self) -> bool:
        return self.dt <= self.dp


def gnubg_cube(position: Position, situation: Situation, ply: int) -> GnubgCube:
    """gnubg-nn's cube decision for the side on roll of ``position`` at ``situation``, at
    ``ply`` (module docs: the side on roll is ``O``)."""
    import gnubg_nn  # benchmark only (GPL)

    if situation.away <= situation.cube or situation.away == 1:
        raise ValueError(f"{situation.label}: the roller's cube is dead; gnubg-nn answers stale figures")
    gnubg_nn.set.score(situation.away, situation.opp_away, 0)
    try:
        if situation.cube == 1:
            gnubg_nn.set.cube(1)
        else:
            gnubg_nn.set.cube(situation.cube, b"O")
        key = gnubg_nn.key_of_board(gnubg_nn.board_from_position_id(position.position_id()))
        double, take, too_good, nd, dt, dp = gnubg_nn.evaluate_cube_decision(key, n=ply, s=b"O",
                                                                             i=1)
    finally:
        # the score and cube are global in gnubg-nn, and its best_move plays for the match
        # score it holds: put back money play and a centred cube for whoever calls it next
        # (the same choices as a fresh gnubg-nn, checked on 300 positions at 0 and 1 ply)
        gnubg_nn.set.score(0, 0)
        gnubg_nn.set.cube(1)
    if double:
        action = "double, take" if take else "double, pass"
    else:
        action = "too good" if too_good else "no double"
    return GnubgCube(action, float(nd), float(dt), float(dp))


def our_cube(bot: Bot, position: Position, situation: Situation) -> tuple[str, bool]:
    """Our class and our take decision (as the opponent, doubled) for the side on roll of
    ``position``: ``should_double`` and ``respond_to_double`` of ``bot`` as asked in play,
    and ``'too good'`` from the ``expert``'s cube decision when it does not double."""
    state = situation.state()
    doubles = bot.should_double(position, state)
    takes = bot.respond_to_double(position.swap(), situation.answer_state()) is not CubeResponse.PASS
    if doubles:
        return ("double, take" if takes else "double, pass"), takes
    if isinstance(bot, ExpertBot) and bot.cube_decision(position, state, 0).action == "too good":
        return "too good", takes
    return "no double", takes


def doubler_cost(action: str, ref: GnubgCube) -> float:
    """The doubler's error by ``ref``'s numbers (MWC): the best minus what ``action`` gets."""
    doubled = action in ("double, take", "double, pass")
    return ref.best - (min(ref.dt, ref.dp) if doubled else ref.nd)


def taker_cost(takes: bool, ref: GnubgCube) -> float:
    """The taker's error by ``ref``'s numbers (MWC): ``|DT - DP|`` when the answer is wrong."""
    return 0.0 if takes == ref.take else abs(ref.dt - ref.dp)


def self_play_positions(games: int, seed: int, evaluator_bot: ExpertBot) -> Iterator[Position]:
    """The pre-roll positions (from the side on roll) of ``games`` cubeless ``expert``
    self-play games with seeded dice, the opening position left out."""
    rng = random.Random(f"{seed}:cube-positions")
    for _ in range(games):
        pos = Position.initial()
        first = True
        while not pos.is_game_over():
            if not first:
                yield pos
            first = False
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            move = evaluator_bot.choose_move(pos, dice)
            after = pos if move is None else pos.play(move)
            pos = after.swap()


def sample_positions(count: int, seed: int) -> list[Position]:
    """``count`` distinct self-play positions whose side on roll wins 0.55–0.98 cubeless
    (our 0-ply net), drawn at random (seeded) in equal shares from the bins of
    :data:`WIN_BINS`, so that close doubles are not swamped by the blitzes that self-play
    is full of."""
    bot = ExpertBot()
    rng = random.Random(f"{seed}:cube-sample")
    pools: list[dict[Position, None]] = [{} for _ in WIN_BINS]
    shares = [count // len(WIN_BINS) + (k < count % len(WIN_BINS)) for k in range(len(WIN_BINS))]
    games = 0
    while any(len(pool) < 2 * share for pool, share in zip(pools, shares)) and games < 200 * count:
        batch = max(4, count // 10)
        for pos in self_play_positions(batch, seed * 100_003 + games, bot):
            win = bot.evaluator.evaluate(pos).win
            for pool, (lo, hi) in zip(pools, WIN_BINS):
                if lo <= win < hi:
                    pool[pos] = None
        games += batch
    out: list[Position] = []
    for pool, share in zip(pools, shares):
        out.extend(rng.sample(list(pool), min(share, len(pool))))
    return out


@dataclass
class Record:
    """One decision: the position and situation, ours, gnubg's 0 ply and the reference."""

    situation: Situation
    ours: str
    our_take: bool
    gnubg0: GnubgCube
    ref: GnubgCube


def evaluate(positions: Sequence[Position], situations: Sequence[Situation], bot: Bot, ply: int,
             progress: Progress | None = None) -> list[Record]:
    """Every position at every situation: our decision, gnubg's 0 ply and its ``ply``."""
    out: list[Record] = []
    for k, pos in enumerate(positions):
        for sit in situations:
            ours, take = our_cube(bot, pos, sit)
            g0 = gnubg_cube(pos, sit, 0)
            ref = g0 if ply == 0 else gnubg_cube(pos, sit, ply)
            out.append(Record(sit, ours, take, g0, ref))
        if progress is not None:
            progress.update(k + 1)
    return out


def confusion(records: Sequence[Record], ours: str = "ours") -> Counter[tuple[str, str]]:
    """(reference class, tested class) counts; ``ours="gnubg0"`` tests gnubg's 0 ply."""
    return Counter((r.ref.action, r.ours if ours == "ours" else r.gnubg0.action) for r in records)


def _iter_lines(records: Sequence[Record], bot_name: str, ply: int, count: int) -> Iterator[str]:
    ref_name = f"gnubg-nn {ply} ply"
    yield (f"{len(records)} cube decisions: {count} self-play positions x "
           f"{len(records) // max(count, 1)} score situations; reference {ref_name}")
    for who, label in (("ours", bot_name), ("gnubg0", "gnubg-nn 0 ply")):
        if who == "gnubg0" and ply == 0:
            continue
        table = confusion(records, who)
        yield ""
        yield f"{label} (columns) against {ref_name} (rows):"
        yield "  " + f"{'':>6}" + "".join(f"{_SHORT[c]:>7}" for c in CLASSES) + f"{'all':>7}"
        for row in CLASSES:
            cells = [table[(row, col)] for col in CLASSES]
            yield "  " + f"{_SHORT[row]:>6}" + "".join(f"{v:>7}" for v in cells) + f"{sum(cells):>7}"
        agree = sum(table[(c, c)] for c in CLASSES)
        if who == "ours":
            dbl = [r.ours in CLASSES[1:3] for r in records]
            takes = [r.our_take for r in records]
            d_cost = [doubler_cost(r.ours, r.ref) for r in records]
            t_cost = [taker_cost(r.our_take, r.ref) for r in records]
        else:
            dbl = [r.gnubg0.action in CLASSES[1:3] for r in records]
            takes = [r.gnubg0.take for r in records]
            d_cost = [doubler_cost(r.gnubg0.action, r.ref) for r in records]
            t_cost = [taker_cost(r.gnubg0.take, r.ref) for r in records]
        n = len(records)
        ref_dbl = [r.ref.action in CLASSES[1:3] for r in records]
        same_d = sum(a == b for a, b in zip(dbl, ref_dbl))
        same_t = sum(a == r.ref.take for a, r in zip(takes, records))
        dm, ds = mean_stderr([1000 * c for c in d_cost])
        tm, ts = mean_stderr([1000 * c for c in t_cost])
        yield (f"  agreement: {agree}/{n} = {agree / n:.1%} on the class; double/no double "
               f"{same_d / n:.1%}; take/pass {same_t / n:.1%}")
        wrong_d = sum(1 for c in d_cost if c > 1e-9)
        wrong_t = sum(1 for c in t_cost if c > 1e-9)
        yield (f"  cost by the reference's equities: doubler {dm:.2f} ± {ds:.2f} mMWC per "
               f"decision ({wrong_d} errors), taker {tm:.2f} ± {ts:.2f} mMWC per decision "
               f"({wrong_t} errors)")
    yield ""
    yield f"By situation ({bot_name} v {ref_name}: class agreement, doubler and taker cost in mMWC):"
    for sit in dict.fromkeys(r.situation for r in records):
        rs = [r for r in records if r.situation == sit]
        agree = sum(r.ours == r.ref.action for r in rs)
        dm, _ = mean_stderr([1000 * doubler_cost(r.ours, r.ref) for r in rs])
        tm, _ = mean_stderr([1000 * taker_cost(r.our_take, r.ref) for r in rs])
        refs = Counter(r.ref.action for r in rs)
        mix = " ".join(f"{_SHORT[c]} {refs[c]}" for c in CLASSES)
        yield f"  {sit.label:<46} {agree / len(rs):6.1%}  {dm:6.2f} {tm:6.2f}   (reference: {mix})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--positions", type=int, default=400, help="self-play positions (default 400)")
    ap.add_argument("--ply", type=int, default=2, choices=(0, 1, 2),
                    help="gnubg-nn's reference ply (default 2)")
    ap.add_argument("--bot", default="worldclass",
                    help="our bot (default worldclass); NAME@FILE plays with the network of FILE, "
                         "on the shipped network's self-play positions")
    ap.add_argument("--seed", type=int, default=1, help="seed of the self-play dice (default 1)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.positions < 1:
        ap.error("--positions must be at least 1")
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        ap.error("gnubg-nn is not installed (the bench extra)")
    bot = load_bot(args.bot)
    t0 = time.perf_counter()
    positions = sample_positions(args.positions, args.seed)
    with Progress(len(positions), "cube decisions", unit="positions",
                  enabled=False if args.quiet else None) as bar:
        records = evaluate(positions, SITUATIONS, bot, args.ply, bar)
    for line in _iter_lines(records, args.bot, args.ply, len(positions)):
        print(line)
    print(f"  ({time.perf_counter() - t0:.1f} s, seed {args.seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
