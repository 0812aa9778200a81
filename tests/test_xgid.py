"""XGID: decoding against GNU Backgammon's own reading, round trips, bad input.

tests/data/xgid_gnubg.json holds XGIDs with the Position ID and Match ID that gnubg 1.07
printed after ``set xgid`` (see tests/oracle/make_xgid_table.py); these tests do not need gnubg.
"""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backgammon.errors import BackgammonError, InvalidIdError, InvalidPositionError
from backgammon.matchid import MAX_SCORE, GameState, MatchState
from backgammon.xgid import XGID, CubeOffer

TABLE = json.loads((Path(__file__).parent / "data" / "xgid_gnubg.json").read_text())
CASES: list[dict[str, Any]] = TABLE["cases"]
START = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5) + (0,) * 10 + (2, 0)
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10"

Side = tuple[int, ...]


# -- a test-only gnubg Position ID codec (independent of backgammon.position) ---------------


def position_id(player: Side, opponent: Side) -> str:
    bits, n = 0, 0
    for count in (*opponent, *player):
        bits |= ((1 << count) - 1) << n
        n += count + 1
    return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii")[:14]


def from_position_id(pid: str) -> tuple[Side, Side]:
    bits = int.from_bytes(base64.b64decode(pid + "=="), "little")
    counts, run = [], 0
    for i in range(80):
        if bits >> i & 1:
            run += 1
        else:
            counts.append(run)
            run = 0
    opponent, player = counts[:25], counts[25:50]
    return tuple(player), tuple(opponent)


def test_test_codec_on_the_start() -> None:
    assert position_id(START, START) == "4HPwATDgc/ABMA"
    assert from_position_id("4HPwATDgc/ABMA") == (START, START)


# -- the gnubg table -----------------------------------------------------------------------


def high_die_first(x: XGID) -> XGID:
    """``x`` with its dice as a Match ID keeps them (the higher die first)."""
    return replace(x, dice=None if x.dice is None else (max(x.dice), min(x.dice)))


def case_id(case: dict[str, Any]) -> str:
    return str(case["comment"])


def test_table_covers_the_ground() -> None:
    assert len(CASES) >= 30
    xs = [XGID.from_xgid(c["xgid"]) for c in CASES]
    assert any(x.match_length == 0 for x in xs) and any(x.match_length for x in xs)
    assert {x.cube_position for x in xs} == {1, 0, -1}
    assert {x.turn for x in xs} == {1, -1}
    assert any(x.dice for x in xs) and any(x.dice is None for x in xs)
    assert any(x.dice and x.dice[0] < x.dice[1] for x in xs)
    assert any(x.crawford for x in xs)
    assert any(x.jacoby for x in xs) and any(x.beaver for x in xs)
    doubled = [x for x in xs if x.cube_offer is CubeOffer.DOUBLE]
    assert {x.turn for x in doubled} == {1, -1}
    assert any(x.match_length for x in doubled) and any(not x.match_length for x in doubled)
    assert any(x.player[24] for x in xs) and any(x.opponent[24] for x in xs)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_match_id_as_gnubg(case: dict[str, Any]) -> None:
    x = XGID.from_xgid(case["xgid"])
    state = x.match_state()
    if case["gnubg_swapped_players"]:
        # gnubg put the top player on roll at the bottom by swapping its players 0 and 1
        state = state.swap_players()
    assert state.to_match_id() == case["match_id"]
    assert MatchState.from_match_id(case["match_id"]) == state


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_position_as_gnubg(case: dict[str, Any]) -> None:
    x = XGID.from_xgid(case["xgid"])
    # gnubg's Position ID is seen from the player on roll, the doubler while a double is offered
    assert from_position_id(case["position_id"]) == (x.player, x.opponent)
    assert position_id(x.player, x.opponent) == case["position_id"]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_position_module_agrees_with_gnubg(case: dict[str, Any]) -> None:
    position = pytest.importorskip("backgammon.position")
    x = XGID.from_xgid(case["xgid"])
    assert x.position() == position.Position.from_position_id(case["position_id"])
    assert x.position().position_id() == case["position_id"]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_table_round_trips(case: dict[str, Any]) -> None:
    x = XGID.from_xgid(case["xgid"])
    assert x.to_xgid() == case["xgid"]
    assert XGID.from_xgid(case["xgid"][len("XGID=") :]) == x
    back = XGID.from_match_state(x.match_state(), x.player, x.opponent, beaver=x.beaver, max_cube=x.max_cube)
    assert back == high_die_first(x)


# -- known XGIDs and layout details --------------------------------------------------------


def test_start_position_example() -> None:
    x = XGID.from_xgid(START_XGID)
    assert x.player == START and x.opponent == START
    assert x.turn == 1 and x.dice == (5, 2) and x.cube_offer is CubeOffer.NONE
    assert x.cube_value == 1 and x.cube_position == 0
    assert x.score == (0, 0) and x.match_length == 7 and x.max_cube == 1024
    assert not (x.crawford or x.jacoby or x.beaver)
    assert x.to_xgid() == START_XGID
    assert str(x) == START_XGID


def test_character_layout() -> None:
    # char 0: top bar; char 25: bottom bar; char i: bottom's point i / top's point 25 - i
    text = "b" + "A" + "-" * 22 + "c" + "D" + ":0:0:1:00:0:0:0:0:10"
    x = XGID.from_xgid(text)
    assert x.bottom == (1,) + (0,) * 23 + (4,)  # 1 on its 1-point, 4 on its bar
    assert x.top == (3,) + (0,) * 23 + (2,)  # 3 on its 1-point (char 24), 2 on its bar
    assert (x.player, x.opponent) == (x.bottom, x.top)
    y = XGID.from_xgid(text.replace(":1:00:", ":-1:00:"))
    assert (y.player, y.opponent) == (x.top, x.bottom)
    assert y.bottom == x.bottom and y.top == x.top


def test_scores_and_cube_from_each_side() -> None:
    x = XGID.from_xgid("XGID=-b----E-C---eE---c-e----B-:2:-1:-1:00:3:5:0:9:10")
    assert x.score == (3, 5) and x.player_score == 5 and x.opponent_score == 3
    state = x.match_state()
    assert state.cube_value == 4 and state.cube_owner == 0  # the top player is gnubg's 0
    assert state.player_on_roll == 0 and state.turn == 0 and state.score == (5, 3)


def test_double_offered_state() -> None:
    x = XGID.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:1:D:0:0:0:0:10")
    state = x.match_state()
    assert state.double_offered
    assert state.player_on_roll == 1 and state.turn == 0  # bottom doubled, top to answer
    assert state.dice is None and state.cube_value == 2 and state.game_state is GameState.PLAYING


@pytest.mark.parametrize("letter", ["B", "R"])
def test_beaver_and_raccoon_have_no_match_id(letter: str) -> None:
    x = XGID.from_xgid(f"XGID=-b----E-C---eE---c-e----B-:1:0:1:{letter}:0:0:2:0:10")
    assert x.cube_offer is CubeOffer(letter)
    assert x.to_xgid().split(":")[4] == letter
    with pytest.raises(BackgammonError):
        x.match_state()


def test_money_rules_bits() -> None:
    base = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:{}:0:10"
    flags = [(XGID.from_xgid(base.format(r)).jacoby, XGID.from_xgid(base.format(r)).beaver) for r in range(4)]
    assert flags == [(False, False), (True, False), (False, True), (True, True)]
    assert XGID.from_xgid(base.format(1)).match_state().jacoby
    assert not XGID.from_xgid(base.format(2)).match_state().jacoby


# -- hypothesis round trips -----------------------------------------------------------------


@st.composite
def boards(draw: st.DrawFn) -> tuple[Side, Side]:
    player = [0] * 25
    opponent = [0] * 25
    for slot in draw(st.lists(st.integers(0, 24), max_size=15)):
        player[slot] += 1
    for slot in draw(st.lists(st.integers(0, 24), max_size=15)):
        if slot < 24 and player[23 - slot]:
            continue  # the player holds that point
        opponent[slot] += 1
    return tuple(player), tuple(opponent)


@st.composite
def xgids(draw: st.DrawFn) -> XGID:
    player, opponent = draw(boards())
    length = draw(st.one_of(st.just(0), st.integers(1, 25), st.integers(0, MAX_SCORE)))
    top = length if length else MAX_SCORE
    offer = draw(st.sampled_from(CubeOffer))
    dice = None
    if offer is CubeOffer.NONE:
        dice = draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)))
    return XGID(
        player=player,
        opponent=opponent,
        turn=draw(st.sampled_from([1, -1])),
        cube_value=1 << draw(st.integers(0, 15)),
        cube_position=draw(st.sampled_from([1, 0, -1])),
        dice=dice,
        cube_offer=offer,
        score=(draw(st.integers(0, top)), draw(st.integers(0, top))),
        crawford=draw(st.booleans()) if length else False,
        jacoby=False if length else draw(st.booleans()),
        beaver=False if length else draw(st.booleans()),
        match_length=length,
        max_cube=1 << draw(st.integers(0, 15)),
    )


@given(xgids())
def test_round_trip(x: XGID) -> None:
    text = x.to_xgid()
    assert XGID.from_xgid(text) == x
    assert XGID.from_xgid(text[5:]) == x
    assert XGID.from_xgid(text).to_xgid() == text


@given(xgids())
def test_match_state_round_trip(x: XGID) -> None:
    if x.cube_offer in (CubeOffer.BEAVER, CubeOffer.RACCOON):
        return
    state = x.match_state()
    assert MatchState.from_match_id(state.to_match_id()) == state
    back = XGID.from_match_state(state, x.player, x.opponent, beaver=x.beaver, max_cube=x.max_cube)
    assert back == high_die_first(x)


@given(xgids())
def test_position_id_is_seen_from_the_turn_player(x: XGID) -> None:
    assert from_position_id(position_id(x.player, x.opponent)) == (x.player, x.opponent)
    assert (x.bottom, x.top) == ((x.player, x.opponent) if x.turn == 1 else (x.opponent, x.player))


# -- bad input -----------------------------------------------------------------------------

GOOD = START_XGID


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "XGID=",
        "xgid=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7",  # 9 fields
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10:0",  # 11 fields
        " " + GOOD,
        GOOD + "\n",
        "XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:0:7:10",  # 25 characters
        "XGID=-b----E-C---eE---c-e----B--:0:0:1:52:0:0:0:7:10",  # 27 characters
        "XGID=-b----E-C---eE---c-e----Bx:0:0:1:52:0:0:0:7:10",  # 'x'
        "XGID=-b----E-C---eE---c-e----P-:0:0:1:52:0:0:0:7:10",  # 16 checkers on a point
        "XGID=Ab----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10",  # bottom checker on top's bar
        "XGID=-b----E-C---eE---c-e----Ba:0:0:1:52:0:0:0:7:10",  # top checker on bottom's bar
        "XGID=-b----E-C---eE---c-e---BB-:0:0:1:52:0:0:0:7:10",  # 17 bottom checkers
        "XGID=-b----E-C---eE---c-e----B-:16:0:1:52:0:0:0:7:10",  # cube 2^16
        "XGID=-b----E-C---eE---c-e----B-:-1:0:1:52:0:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:2:1:52:0:0:0:7:10",  # cube position 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:0:52:0:0:0:7:10",  # turn 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:+1:52:0:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:0:7:10",  # die 7
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:50:0:0:0:7:10",  # one die 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:5:0:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:521:0:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:X:0:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:d:0:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:8:0:0:7:10",  # score beyond the length
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:-1:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:01:0:0:7:10",  # not canonical
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:7:10",  # rules 2 in a match
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:4:0:10",  # rules 4 in money
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:32768:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:16",  # max cube 2^16
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:",
    ],
)
def test_invalid_xgids(bad: str) -> None:
    with pytest.raises(InvalidIdError) as info:
        XGID.from_xgid(bad)
    assert repr(bad) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_non_string_is_refused() -> None:
    with pytest.raises(InvalidIdError):
        XGID.from_xgid(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fields",
    [
        {"player": START[:24]},
        {"player": (16,) + (0,) * 24},
        {"player": (-1,) + (0,) * 24},
        {"player": (8, 8) + (0,) * 23},
        {"opponent": (1,) + (0,) * 24},  # the opponent's 1-point is the player's 24-point
        {"player": (1,) + (0,) * 24, "opponent": (0,) * 23 + (1, 0)},
    ],
)
def test_invalid_boards(fields: dict[str, Any]) -> None:
    args: dict[str, Any] = {"player": (1,) + (0,) * 24, "opponent": (0,) * 25}
    if "opponent" in fields and "player" not in fields:
        args["player"] = START
    args.update(fields)
    with pytest.raises(InvalidPositionError):
        XGID(**args)


@pytest.mark.parametrize(
    "fields",
    [
        {"turn": 0},
        {"cube_value": 3},
        {"max_cube": 0},
        {"cube_position": 2},
        {"dice": (0, 1)},
        {"dice": (6, 5), "cube_offer": CubeOffer.DOUBLE},
        {"cube_offer": "X"},
        {"match_length": -1},
        {"score": (1, 2), "match_length": 1},
        {"crawford": True},
        {"jacoby": True, "match_length": 5},
        {"beaver": True, "match_length": 5},
    ],
)
def test_invalid_fields(fields: dict[str, Any]) -> None:
    with pytest.raises(BackgammonError):
        XGID(START, START, **fields)


def test_from_match_state_refuses_states_without_an_xgid() -> None:
    with pytest.raises(BackgammonError):
        XGID.from_match_state(MatchState(game_state=GameState.OVER), START, START)
    with pytest.raises(BackgammonError):
        XGID.from_match_state(MatchState(resignation=1), START, START)
    with pytest.raises(BackgammonError):  # a double offered but the doubler still to act
        XGID.from_match_state(MatchState(double_offered=True), START, START)
