"""Provably fair dice (backgammon.fairdice): the byte layout, the state, and verify_record on
whole games played through the table layer."""

from __future__ import annotations

import copy
import hashlib
import hmac
import itertools
import json
from collections import Counter
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.cli import main
from backgammon.errors import BackgammonError
from backgammon.fairdice import (
    KNOWN_ANSWER,
    MAX_CLIENT_SEEDS,
    FairDice,
    check_client_seed,
    dice_stream,
    log_rolls,
    make_record,
    verify_record,
)
from backgammon.rules import Rules
from backgammon.table import Seat, Table
from backgammon.table import commands as cmd

SEED = bytes(range(32))
CLIENT = "0123456789abcdef"


def fixed(seed: bytes = SEED, game: int = 1) -> FairDice:
    """A FairDice with a known server seed."""
    return FairDice.from_dict(
        {"version": 1, "game": game, "server_seed": seed.hex(), "client_seeds": [], "dice": [], "revealed": []}
    )


def entropy(label: str) -> Callable[[int], bytes]:
    """Reproducible secrets for tests: SHA-256 of the label and a counter."""
    counter = itertools.count()
    return lambda n: hashlib.sha256(f"{label}/{next(counter)}".encode()).digest()[:n]


def reference_dice(seed: bytes, game: int, client_seeds: list[str], n: int) -> list[int]:
    """An independent re-implementation of the documented layout (module docstring)."""
    out: list[int] = []
    counter = 0
    while len(out) < n:
        msg = bytearray(game.to_bytes(4, "big"))
        msg.append(len(client_seeds))
        for s in client_seeds:
            raw = bytes.fromhex(s)
            msg.append(len(raw))
            msg += raw
        msg += counter.to_bytes(4, "big")
        block = hmac.new(seed, bytes(msg), "sha256").digest()
        out += [b % 6 + 1 for b in block if b < 252]
        counter += 1
    return out[:n]


# -- the stream -------------------------------------------------------------------------------


def test_known_answer_vector() -> None:
    d = fixed()
    assert d.add_client_seed(1, CLIENT)
    assert [d.die() for _ in range(10)] == list(KNOWN_ANSWER)
    assert reference_dice(SEED, 1, [CLIENT], 10) == list(KNOWN_ANSWER)
    # no client seed, game 2: pinned too (a change of layout must be deliberate)
    assert list(itertools.islice(dice_stream(SEED, 2, []), 6)) == reference_dice(SEED, 2, [], 6)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    game=st.integers(1, 2**32 - 1),
    clients=st.lists(st.binary(min_size=8, max_size=64).map(bytes.hex), max_size=4, unique=True),
)
def test_stream_matches_reference_and_is_deterministic(seed: bytes, game: int, clients: list[str]) -> None:
    a = list(itertools.islice(dice_stream(seed, game, clients), 80))
    assert a == list(itertools.islice(dice_stream(seed, game, clients), 80))
    assert a == reference_dice(seed, game, clients, 80)
    assert all(1 <= x <= 6 for x in a)


def test_every_face_equally_likely_exactly() -> None:
    # rejection sampling: the 252 accepted byte values map 42 to each face, the 4 others are skipped
    faces = Counter(b % 6 + 1 for b in range(256) if b < 252)
    assert faces == {f: 42 for f in range(1, 7)}


def test_chi_square_sanity() -> None:
    n = 60_000
    counts = Counter(itertools.islice(dice_stream(SEED, 7, [CLIENT]), n))
    chi2 = sum((counts[f] - n / 6) ** 2 / (n / 6) for f in range(1, 7))
    assert chi2 < 20.5  # 5 degrees of freedom: p < 0.001 beyond this


def test_client_seeds_and_game_number_change_the_dice() -> None:
    base = list(itertools.islice(dice_stream(SEED, 1, []), 20))
    assert base != list(itertools.islice(dice_stream(SEED, 1, [CLIENT]), 20))
    assert base != list(itertools.islice(dice_stream(SEED, 2, []), 20))
    two = list(itertools.islice(dice_stream(SEED, 1, [CLIENT, "ff" * 8]), 20))
    assert two != list(itertools.islice(dice_stream(SEED, 1, ["ff" * 8, CLIENT]), 20))  # order counts


# -- the source -------------------------------------------------------------------------------


def test_fresh_sources_have_fresh_secrets() -> None:
    a, b = FairDice(), FairDice()
    assert a.commitment != b.commitment and a.game == b.game == 1
    assert "server_seed" not in a.public()
    assert a.to_dict()["server_seed"] not in json.dumps(a.public())


def test_add_client_seed_rules() -> None:
    d = fixed()
    assert not d.add_client_seed(2, CLIENT)  # not the current game
    assert d.add_client_seed(1, CLIENT.upper())
    assert d.add_client_seed(1, CLIENT)  # the same seed again counts once
    assert d.client_seeds == (CLIENT,)
    for bad in ["", "abc", "0123456789abcde", "zz" * 8, "0" * 130, 12345]:
        assert check_client_seed(bad) is not None
        assert "hexadecimal" in str(check_client_seed(bad))
        assert not d.add_client_seed(1, bad)  # type: ignore[arg-type]
    assert check_client_seed("ab" * 64) is None and check_client_seed("ab" * 8) is None
    d.roll()
    assert not d.add_client_seed(1, "ff" * 8)  # a die is drawn: the seeds are frozen
    assert d.client_seeds == (CLIENT,)
    d.new_game()
    assert d.add_client_seed(2, "ff" * 8)
    assert not d.add_client_seed(1, "ee" * 8)


def test_client_seed_limit() -> None:
    d = fixed()
    for i in range(MAX_CLIENT_SEEDS):
        assert d.add_client_seed(1, f"{i:016x}")
    assert not d.add_client_seed(1, "ff" * 8)


def test_commitment_matches_reveal_and_record() -> None:
    d = FairDice()
    d.add_client_seed(1, CLIENT)
    commitment = d.commitment
    dice = [d.die() for _ in range(9)]
    record = d.new_game()
    assert record["commitment"] == commitment == hashlib.sha256(bytes.fromhex(record["server_seed"])).hexdigest()
    assert record["dice"] == dice == reference_dice(bytes.fromhex(record["server_seed"]), 1, [CLIENT], 9)
    assert record["game"] == 1 and record["client_seeds"] == [CLIENT]
    assert d.game == 2 and d.commitment != commitment and d.dice == ()
    public = d.public()
    assert public["revealed"] == [record] and public["game"] == 2
    assert set(public) >= {"game", "commitment", "client_seeds", "revealed"}
    assert d.advance_to(4) and d.game == 4 and d.advance_to(3) == []


def test_continuation_after_to_dict() -> None:
    d = FairDice()
    d.add_client_seed(1, CLIENT)
    for _ in range(7):
        d.roll()
    d.new_game()
    d.add_client_seed(2, "ab" * 10)
    d.die()
    saved = json.loads(json.dumps(d.to_dict()))
    e = FairDice.from_dict(saved)
    assert e.to_dict() == d.to_dict() and e.commitment == d.commitment
    assert [e.die() for _ in range(50)] == [d.die() for _ in range(50)]
    assert FairDice(saved).to_dict() == saved
    bad = copy.deepcopy(saved)
    bad["dice"][0] = bad["dice"][0] % 6 + 1
    with pytest.raises(BackgammonError, match="do not follow"):
        FairDice.from_dict(bad)
    with pytest.raises(BackgammonError, match="version"):
        FairDice.from_dict({**saved, "version": 9})


@settings(max_examples=30, deadline=None)
@given(plan=st.lists(st.tuples(st.integers(0, 12), st.booleans()), min_size=1, max_size=5))
def test_restart_anywhere_continues_exactly(plan: list[tuple[int, bool]]) -> None:
    """Save and restore after any number of dice and games: the same next dice, the same records."""
    live = FairDice()
    for dice, end_game in plan:
        for _ in range(dice):
            live.die()
        if end_game:
            live.new_game()
        restored = FairDice.from_dict(json.loads(json.dumps(live.to_dict())))
        assert restored.public() == live.public()
        assert [restored.die() for _ in range(5)] == [live.die() for _ in range(5)]
        assert restored.new_game() == live.new_game()


# -- whole games through the table --------------------------------------------------------------


def sync(table: Table, fair: FairDice) -> None:
    """What the room does after every command: reveal each game as soon as it is over."""
    contest = table.contest
    fair.advance_to(contest.game_number + contest.game_over())


def play_out(table: Table, fair: FairDice, games: int = 50) -> None:
    """Bots play up to ``games`` games (a chouette waits between games: start the next)."""
    for _ in range(20_000):
        sync(table, fair)
        if table.contest.is_over() or fair.game > games:
            return
        seat = table.bot_to_act()
        if seat is not None:
            table.play_bot(seat)
            continue
        assert table.contest.game_over(), "bots only wait between games"
        starter = next(s.name for s in table.seats if "next_game" in table.actions(s.name))
        assert table.submit(starter, cmd.NextGame()).accepted
    raise AssertionError("the contest did not end")


def record_of(table: Table, fair: FairDice) -> dict[str, Any]:
    record = make_record(table.to_dict(), fair)
    return json.loads(json.dumps(record))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def match_record() -> dict[str, Any]:
    fair = FairDice(entropy=entropy("m1"))
    fair.add_client_seed(1, CLIENT)
    table = Table.match([Seat("ann", "beginner", seed=1), Seat("bob", "beginner", seed=2)], length=5, dice=fair)
    play_out(table, fair)
    assert table.contest.is_over()
    return record_of(table, fair)


def test_whole_match_verifies(match_record: dict[str, Any]) -> None:
    report = verify_record(match_record)
    assert report.ok, report.lines()
    revealed = [g for g in report.games if g.revealed]
    assert len(revealed) >= 2 and all(g.commitment_ok and g.dice_ok and g.log_ok for g in revealed)
    assert sum(len(g.rolls) for g in revealed) == sum(len(v) for v in log_rolls(match_record).values())
    assert all(g.revealed for g in report.games)  # the match is over: no unplayed game listed
    assert revealed[0].summary() == f"game 1: commitment ok, {len(revealed[0].rolls)} dice match"


def test_money_game_with_opening_reroll_verifies() -> None:
    # R5 option: the opening winner rolls afresh; R6: equal opening dice double the cube
    fair = FairDice(entropy=entropy("table0"))
    rules = Rules(opening_reroll=True, automatic_doubles=True)
    table = Table.match([Seat("ann", "beginner", seed=3), Seat("bob", "beginner", seed=4)], 0, rules, dice=fair)
    play_out(table, fair, games=3)
    record = record_of(table, fair)
    report = verify_record(record)
    assert report.ok, report.lines()
    assert [g.game for g in report.games if g.revealed] == [1, 2, 3]
    # the current game has no rolls yet: reported, not failed
    assert report.games[-1].summary().startswith("game 4: not revealed yet")


def test_unfinished_game_is_not_a_failure() -> None:
    fair = FairDice(entropy=entropy("table1"))
    table = Table.match([Seat("ann", "beginner", seed=5), Seat("bob", "beginner", seed=6)], 0, dice=fair)
    for _ in range(6):
        seat = table.bot_to_act()
        assert seat is not None
        table.play_bot(seat)
    record = record_of(table, fair)
    assert "server_seed" not in json.dumps(record["fair"])
    report = verify_record(record)
    assert report.ok and report.games[0].revealed is False and report.games[0].rolls
    record["fair"]["dice"][0] = record["fair"]["dice"][0] % 6 + 1
    assert not verify_record(record).ok


def test_chouette_verifies() -> None:
    fair = FairDice(entropy=entropy("table2"))
    seats = [Seat(n, "beginner", seed=i) for i, n in enumerate(["ann", "bob", "cy"])]
    table = Table.chouette(seats, dice=fair)
    play_out(table, fair, games=3)
    record = record_of(table, fair)
    assert record["log"]["events"][0]["type"] == "roll_off"
    report = verify_record(record)
    assert report.ok, report.lines()
    roll_off = record["log"]["events"][0]["dice"]
    assert report.games[0].rolls[: len(roll_off)] == roll_off


def tamper_die(record: dict[str, Any]) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    event = next(e for e in bad["log"]["events"] if e["type"] == "roll")
    event["dice"][0] = event["dice"][0] % 6 + 1
    return bad


def tamper_seed(record: dict[str, Any]) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    seed = bad["fair"]["revealed"][0]["server_seed"]
    bad["fair"]["revealed"][0]["server_seed"] = ("0" if seed[0] != "0" else "1") + seed[1:]
    return bad


def test_tampering_fails(match_record: dict[str, Any]) -> None:
    report = verify_record(tamper_die(match_record))
    assert not report.ok and any("log's rolls" in m for m in report.messages)
    report = verify_record(tamper_seed(match_record))
    assert not report.ok and report.games[0].commitment_ok is False
    assert any("does not match the commitment" in m for m in report.messages)
    bad = copy.deepcopy(match_record)
    bad["fair"]["revealed"][0]["client_seeds"] = []
    assert not verify_record(bad).ok
    bad = copy.deepcopy(match_record)
    bad["fair"]["revealed"][0]["dice"][-1] = bad["fair"]["revealed"][0]["dice"][-1] % 6 + 1
    assert not verify_record(bad).ok
    bad = copy.deepcopy(match_record)
    del bad["fair"]["revealed"][1]
    report = verify_record(bad)
    assert not report.ok and any("no fair-dice record" in m for m in report.messages)
    assert not verify_record({"log": {"events": []}}).ok
    assert not verify_record([]).ok  # type: ignore[arg-type]


# -- the command line ----------------------------------------------------------------------------


def test_cli_verify(match_record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "record.json"
    good.write_text(json.dumps(match_record))
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "game 1: commitment ok" in out and "dice match" in out
    for name, bad in [("die", tamper_die(match_record)), ("seed", tamper_seed(match_record))]:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(bad))
        assert main(["verify", str(path)]) == 1
        out = capsys.readouterr().out
        assert "FAILED" in out
    assert "commitment" in out
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
    (tmp_path / "junk.json").write_text("not json")
    assert main(["verify", str(tmp_path / "junk.json")]) == 2
    assert "not JSON" in capsys.readouterr().err
