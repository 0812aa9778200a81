"""gnubg Match ID: field layout, known IDs, round trips, rejection of bad input."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backgammon.errors import BackgammonError, InvalidIdError
from backgammon.matchid import MAX_CUBE, MAX_SCORE, GameState, MatchState, Resignation

TABLE = Path(__file__).parent / "data" / "xgid_gnubg.json"


def key_of(match_id: str) -> int:
    return int.from_bytes(base64.b64decode(match_id), "little")


def id_of(key: int) -> str:
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


# -- known IDs ---------------------------------------------------------------------------


def test_manual_example() -> None:
    # gnubg manual, "A technical description of the Match ID": score 2-4 in a 9 point match,
    # player 0 holds a 2-cube, player 1 has just rolled 52.
    state = MatchState.from_match_id("QYkqASAAIAAA")
    assert state == MatchState(
        cube_value=2,
        cube_owner=0,
        player_on_roll=1,
        crawford=False,
        game_state=GameState.PLAYING,
        turn=1,
        double_offered=False,
        resignation=Resignation.NONE,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
        jacoby=True,
    )
    assert state.to_match_id() == "QYkqASAAIAAA"


@pytest.mark.parametrize(
    ("match_id", "state"),
    [
        # printed by gnubg 1.07 for a money game, player 1 on roll with 61 (Jacoby on)
        ("cAkHAAAAAAAA", MatchState(player_on_roll=1, turn=1, dice=(6, 1))),
        # gnubg 1.07 echoes these back unchanged after `set matchid`
        ("sAGgAEAAEAAA", MatchState(match_length=5, score=(4, 2), crawford=True)),
        # printed by gnubg after `double` in a money game (Jacoby off): player 1 doubled
        (
            "cBEAAAAAAAAE",
            MatchState(player_on_roll=1, turn=0, double_offered=True, jacoby=False),
        ),
        # printed by gnubg for a 64-point match at 60-63, player 1 on roll with 31
        (
            "cIkFCMAD+AEE",
            MatchState(player_on_roll=1, turn=1, dice=(3, 1), match_length=64, score=(60, 63), jacoby=False),
        ),
    ],
)
def test_known_ids(match_id: str, state: MatchState) -> None:
    assert MatchState.from_match_id(match_id) == state
    assert state.to_match_id() == match_id


def test_every_gnubg_id_in_the_xgid_table_round_trips() -> None:
    ids = {case["match_id"] for case in json.loads(TABLE.read_text())["cases"]}
    assert len(ids) >= 30
    for match_id in ids:
        assert MatchState.from_match_id(match_id).to_match_id() == match_id


# -- the bit layout ------------------------------------------------------------------------

# (field change from the default state, bit offset, width, value written there)
LAYOUT = [
    ({"cube_value": 8}, 0, 4, 3),
    ({"cube_value": MAX_CUBE}, 0, 4, 15),
    ({"cube_owner": None}, 4, 2, 3),
    ({"cube_owner": 0}, 4, 2, 0),
    ({"cube_owner": 1}, 4, 2, 1),
    ({"player_on_roll": 1}, 6, 1, 1),
    ({"crawford": True, "match_length": 3}, 7, 1, 1),
    ({"game_state": GameState.DROPPED}, 8, 3, 4),
    ({"game_state": GameState.NO_GAME}, 8, 3, 0),
    ({"turn": 1}, 11, 1, 1),
    ({"double_offered": True}, 12, 1, 1),
    ({"resignation": Resignation.BACKGAMMON}, 13, 2, 3),
    ({"resignation": Resignation.SINGLE}, 13, 2, 1),
    ({"dice": (6, 4)}, 15, 3, 6),
    ({"dice": (6, 4)}, 18, 3, 4),
    ({"dice": (4, 6)}, 15, 3, 6),  # higher die first, as gnubg 1.07 writes
    ({"match_length": MAX_SCORE}, 21, 15, MAX_SCORE),
    ({"score": (1234, 0)}, 36, 15, 1234),
    ({"score": (0, 4321)}, 51, 15, 4321),
    ({"jacoby": False}, 66, 1, 1),
    ({"jacoby": True}, 66, 1, 0),
]


@pytest.mark.parametrize(("change", "offset", "width", "value"), LAYOUT)
def test_bit_layout(change: dict[str, object], offset: int, width: int, value: int) -> None:
    key = key_of(MatchState(**change).to_match_id())  # type: ignore[arg-type]
    assert (key >> offset) & ((1 << width) - 1) == value
    assert key >> 67 == 0


def test_default_state() -> None:
    state = MatchState()
    assert state.is_money and state.dice is None and state.cube_owner is None
    assert state.to_match_id() == id_of(0b11 << 4 | 1 << 8)


# -- round trips ---------------------------------------------------------------------------


@st.composite
def states(draw: st.DrawFn) -> MatchState:
    length = draw(st.one_of(st.just(0), st.integers(1, 25), st.integers(0, MAX_SCORE)))
    top = length if length else MAX_SCORE
    return MatchState(
        cube_value=1 << draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([None, 0, 1])),
        player_on_roll=draw(st.integers(0, 1)),
        crawford=draw(st.booleans()) if length else False,
        game_state=draw(st.sampled_from(GameState)),
        turn=draw(st.integers(0, 1)),
        double_offered=draw(st.booleans()),
        resignation=draw(st.sampled_from(Resignation)),
        dice=draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6))),
        match_length=length,
        score=(draw(st.integers(0, top)), draw(st.integers(0, top))),
        jacoby=draw(st.booleans()),
    )


@given(states())
def test_state_round_trip(state: MatchState) -> None:
    match_id = state.to_match_id()
    assert len(match_id) == 12
    assert MatchState.from_match_id(match_id) == state
    assert MatchState.from_match_id(match_id).to_match_id() == match_id


@given(states())
def test_swap_players_is_an_involution(state: MatchState) -> None:
    swapped = state.swap_players()
    assert swapped.swap_players() == state
    assert swapped.score == state.score[::-1]
    assert swapped.player_on_roll != state.player_on_roll


@given(st.integers(0, (1 << 67) - 1))
def test_any_key_decodes_or_is_refused(key: int) -> None:
    match_id = id_of(key)
    try:
        state = MatchState.from_match_id(match_id)
    except InvalidIdError as exc:
        assert repr(match_id) in str(exc)
        return
    die1, die2 = (key >> 15) & 7, (key >> 18) & 7
    if die1 >= die2:
        assert state.to_match_id() == match_id
    else:  # lower die first: accepted, written back higher first
        assert state.dice == (die2, die1)


def test_lower_die_first_is_accepted() -> None:
    # QYkqASAAIAAA with the dice stored as 2, 5 (as gnubg wrote them before it sorted them)
    key = key_of("QYkqASAAIAAA")
    key = key & ~(0b111111 << 15) | 2 << 15 | 5 << 18
    state = MatchState.from_match_id(id_of(key))
    assert state.dice == (5, 2)
    assert state.to_match_id() == "QYkqASAAIAAA"


# -- bad input -----------------------------------------------------------------------------

GOOD = key_of("QYkqASAAIAAA")


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "QYkqASAAIAA",
        "QYkqASAAIAAAA",
        "QYkqASAAIAA=",
        "QYkqASAA AAA",
        "QYkqASAAIAA-",
        " QYkqASAAIAAA",
        "QYkqASAAIAAA\n",
        id_of(GOOD & ~(0b11 << 4) | 0b10 << 4),  # cube owner bits 10
        id_of(GOOD | 5 << 8),  # game state 5
        id_of(GOOD | 7 << 8),  # game state 7
        id_of(GOOD & ~(0b111 << 15) | 7 << 15),  # die 7
        id_of(GOOD & ~(0b111 << 15)),  # die 1 zero, die 2 set
        id_of(GOOD & ~(0b111111 << 15) | 3 << 15),  # die 2 zero, die 1 set
        id_of(GOOD & ~(0x7FFF << 21) | 3 << 21),  # score 4 beyond a 3-point match
        id_of(1 << 7 | 0b11 << 4 | 1 << 8),  # Crawford in money play
        id_of(GOOD | 1 << 67),  # a bit past bit 66
        id_of(GOOD | 1 << 71),
    ],
)
def test_invalid_ids(bad: str) -> None:
    with pytest.raises(InvalidIdError) as info:
        MatchState.from_match_id(bad)
    assert repr(bad) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_non_string_is_refused() -> None:
    with pytest.raises(InvalidIdError):
        MatchState.from_match_id(12345)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fields",
    [
        {"cube_value": 0},
        {"cube_value": 3},
        {"cube_owner": 2},
        {"cube_owner": -1},
        {"player_on_roll": 2},
        {"turn": -1},
        {"game_state": 5},
        {"resignation": 4},
        {"dice": (0, 3)},
        {"dice": (7, 1)},
        {"dice": (1, 2, 3)},
        {"match_length": -1},
        {"match_length": MAX_SCORE + 1},
        {"score": (-1, 0)},
        {"score": (0, MAX_SCORE + 1)},
        {"match_length": 5, "score": (6, 0)},
        {"crawford": True},
    ],
)
def test_invalid_fields(fields: dict[str, object]) -> None:
    with pytest.raises(BackgammonError):
        MatchState(**fields)  # type: ignore[arg-type]


def test_plain_ints_become_enums() -> None:
    state = MatchState(game_state=3, resignation=2)  # type: ignore[arg-type]
    assert state.game_state is GameState.RESIGNED
    assert state.resignation is Resignation.GAMMON
    assert state == MatchState(game_state=GameState.RESIGNED, resignation=Resignation.GAMMON)
