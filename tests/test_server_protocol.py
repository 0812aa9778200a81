"""The wire protocol's pieces without a server: parsing, ``plays`` keys, the throttle."""

from __future__ import annotations

import json
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.dice import SeededDice
from backgammon.errors import Refusal
from backgammon.position import Position
from backgammon.server import protocol
from backgammon.server.protocol import (
    MAX_MESSAGE,
    ChatMessage,
    CommandMessage,
    Hello,
    MuteSpectators,
    Ping,
    ProtocolError,
    SeedMessage,
    Throttle,
    parse,
    plays_keys,
)
from backgammon.table import MatchContest, Seat, Table, commands as cmd
from backgammon.table.snapshot import board_view


def test_every_message_type_parses() -> None:
    assert parse('{"type": "hello", "protocol": 1, "tokens": ["a"], "client_seed": "00ff00ff00ff00ff", "name": " zoe "}') == \
        Hello(1, ("a",), "00ff00ff00ff00ff", "zoe")
    assert parse('{"type": "hello", "protocol": 1}') == Hello(1)
    assert parse('{"type": "command", "seat": "ann", "command": {"type": "play", "move": "8/5 6/5", "confirm": true}}') == \
        CommandMessage("ann", cmd.Play("8/5 6/5", confirm=True))
    assert parse('{"type": "command", "seat": "ann", "id": "x", "command": {"type": "step", "origin": 13, "die": 5}}') == \
        CommandMessage("ann", cmd.Step(13, 5), "x")
    assert parse('{"type": "chat", "text": "gg"}') == ChatMessage("gg")
    assert parse('{"type": "mute_spectators", "mute": false}') == MuteSpectators(False)
    assert parse('{"type": "seed", "game": 2, "seed": "ABCDEF0123456789"}') == SeedMessage(2, "abcdef0123456789")
    assert parse('{"type": "ping"}') == Ping()


@pytest.mark.parametrize(("raw", "words"), [
    (b"\xff\xfe", "JSON text"),
    ("null", "JSON object"),
    ('{"type": 3}', "unknown message type 3"),
    ('{"type": "hello"}', "needs 'protocol'"),
    ('{"type": "hello", "protocol": true}', "'protocol' of a hello message must be"),
    ('{"type": "hello", "protocol": 1, "tokens": "abc"}', "a list of seat tokens"),
    ('{"type": "hello", "protocol": 1, "tokens": [1]}', "at most 8 seat tokens"),
    ('{"type": "hello", "protocol": 1, "name": ""}', "1-40 characters"),
    ('{"type": "command", "seat": "ann", "id": [1], "command": {"type": "roll"}}', "number or text"),
    ('{"type": "command", "seat": "ann", "command": "roll"}', "a command object"),
    ('{"type": "command", "seat": "ann", "command": {"type": "step", "origin": 13}}', "missing field(s) die"),
    ('{"type": "command", "seat": "ann", "command": {"type": "play", "move": "8/5", "confirm": 1}}', "true or false"),
    ('{"type": "seed", "game": "1", "seed": "abcdef0123456789"}', "'game' of a seed message"),
    ('{"type": "seed", "game": 1, "seed": "abc"}', "16-128 hex digits"),
    ('{"type": "seed", "game": 1, "seed": "abcdef0123456789a"}', "an even number"),
    ('{"type": "hello", "protocol": 1, "client_seed": "' + "a" * 130 + '"}', "16-128 hex digits"),
    ('{"type": "chat", "text": "' + "x" * 301 + '"}', "1-300 characters"),
])
def test_bad_messages_are_refused_with_a_sentence(raw: str | bytes, words: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse(raw)
    assert words in str(caught.value)


def test_the_size_limit_counts_bytes_not_characters() -> None:
    text = "é" * 2040  # 4080 bytes of text, within the limit as characters, beyond it as bytes
    raw = json.dumps({"type": "chat", "text": text}, ensure_ascii=False)
    assert len(raw) < MAX_MESSAGE < len(raw.encode())
    with pytest.raises(ProtocolError, match="at most 4096 bytes"):
        parse(raw)
    ok = json.dumps({"type": "chat", "text": "é" * 300}, ensure_ascii=False)
    assert parse(ok) == ChatMessage("é" * 300)


def test_a_command_error_keeps_the_id() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse('{"type": "command", "seat": "ann", "id": 9, "command": {"type": "fly"}}')
    assert caught.value.id == 9
    assert protocol.error(str(caught.value), caught.value.id)["id"] == 9


def test_server_messages() -> None:
    refusal = Refusal("play", 1, "R43", "it is ann's turn, not yours")
    assert protocol.refused(4, refusal, "bob") == {
        "type": "refused", "id": 4,
        "refusal": {"action": "play", "player": "bob", "rule": "R43", "reason": "it is ann's turn, not yours"}}
    assert protocol.ack("a") == {"type": "ack", "id": "a"}
    assert protocol.welcome({"id": "t"}, ("ann",), "ann") == {
        "type": "welcome", "protocol": 1, "table": {"id": "t"}, "seats": ["ann"], "you": "ann"}
    assert protocol.chat("zoe", "hi", "2026-01-01T00:00:00+00:00", True)["from"] == "zoe"
    state = protocol.state(3, {"": {}}, [], [], {"game": 1}, {"id": "t"})
    assert set(state) == {"type", "seq", "snapshots", "plays", "log", "log_start", "fair", "table", "clock"}


# -- plays keys ---------------------------------------------------------------------------------


def _key_of(position: Position) -> list[int]:
    """The protocol's key of a position seen by its mover (computed independently)."""
    mine, theirs = position.player, position.opponent
    points = [mine[i] - theirs[23 - i] for i in range(24)]
    return points + [mine[24], theirs[24], 15 - sum(mine), 15 - sum(theirs)]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 40))
def test_plays_keys_are_the_boards_after_each_legal_play(seed: int, turns: int) -> None:
    table = Table.match([Seat("ann", "random", seed=seed), Seat("bob", "random", seed=seed + 1)],
                        dice=SeededDice(seed))
    for _ in range(turns):
        seat = table.bot_to_act()
        if seat is None:
            break
        table.play_bot(seat)
    for seat in ("ann", "bob"):
        plays = plays_keys(table, seat)
        if "play" not in table.actions(seat):
            assert plays == []
            continue
        contest = table.contest
        start = contest.board(seat)
        legal = contest.legal_moves()
        if not len(legal):  # no play possible (R11): the empty play, the board as it is
            assert plays == [{"move": "", "key": _key_of(start)}]
            continue
        assert [p["move"] for p in plays] == [str(m) for m in legal]
        keys = [tuple(p["key"]) for p in plays]
        assert len(set(keys)) == len(keys)  # every legal play leaves a different board
        for play, move in zip(plays, legal):
            after = start.play(move).swap()  # back to the mover's side
            assert play["key"] == _key_of(after)
            assert len(play["key"]) == 28
            view = board_view(after)
            assert play["key"][:24] == list(view.points)


def test_a_blocked_roll_has_the_empty_play_alone() -> None:
    from backgammon.match import Match

    # X on the bar against a closed board: no play with any roll (R11)
    match = Match.from_xgid("XGID=-" + "-" * 18 + "bbbbbb" + "A" + ":0:0:1:65:0:0:0:0:10")
    table = Table(MatchContest(("ann", "bob"), match=match), [Seat("ann"), Seat("bob")])
    seat = table.contest.mover()
    assert seat is not None
    plays = plays_keys(table, seat)
    assert [p["move"] for p in plays] == [""]
    assert plays[0]["key"] == _key_of(table.contest.board(seat))


def test_plays_keys_of_the_opening_31() -> None:
    from backgammon.dice import ScriptedDice

    table = Table.match([Seat("ann"), Seat("bob")], dice=ScriptedDice([(3, 1)]))
    table.submit("ann", cmd.Roll())
    plays = {p["move"]: p["key"] for p in plays_keys(table, "ann")}
    key = plays["8/5 6/5"]
    assert key[4] == 2 and key[5] == 4 and key[7] == 2 and key[23] == 2 and key[0] == -2
    assert sum(k for k in key[:24] if k > 0) == 15 and sum(-k for k in key[:24] if k < 0) == 15


# -- throttle -----------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_throttle_allows_bursts_then_the_rate() -> None:
    clock = Clock()
    t = Throttle(clock=clock)
    assert all(t.allow() for _ in range(40))
    assert not t.allow()
    clock.now += 0.5  # 10 tokens come back
    assert sum(t.allow() for _ in range(20)) == 10
    clock.now += 60  # never more than the burst
    assert sum(t.allow() for _ in range(100)) == 40


def test_the_throttle_calls_persistent_flooding_flooding() -> None:
    clock = Clock()
    t = Throttle(clock=clock)
    for _ in range(40):
        t.allow()
    for _ in range(60):
        t.allow()
    assert not t.flooding  # 60 drops: still only slowed down
    t.allow()
    assert t.flooding
    clock.now += 10  # the drops are forgotten after the window
    t.allow()
    assert not t.flooding


def test_a_custom_rate() -> None:
    clock = Clock()
    t = Throttle(1000, 1000, clock=clock)
    assert all(t.allow() for _ in range(1000))
