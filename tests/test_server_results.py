"""Results of finished matches, the FIBS rating update, profiles, history and the leaderboard
(backgammon/server/results.py), on SQLite and on the real PostgreSQL.

Matches are real: two random bots play them out with seeded dice (cached per module: a
finished table is only read by :func:`finish`). The rows of ``tables``, ``seat_users`` and
``users`` are written here with the store's engine, as the server would have written them.
"""

from __future__ import annotations

import functools
import math
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from starlette.applications import Starlette
from starlette.testclient import TestClient

from backgammon.dice import ScriptedDice, SeededDice
from backgammon.server import results
from backgammon.server.openapi import OPENAPI
from backgammon.server.results import OPENAPI_PATHS, finish, result_of
from backgammon.server.store import Commit, StaleWrite, Store, results_t, seat_users_t, tables_t, users_t
from backgammon.table import Seat, Table, commands as cmd

from .test_store import pg_url, store, url  # noqa: F401  (fixtures: each test on SQLite and PostgreSQL)

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


# -- fixtures and builders -----------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def played(length: int, seed: int, names: tuple[str, str] = ("ann", "bob")) -> Table:
    """A match to ``length`` that two random bots played out with seeded dice."""
    table = Table.match([Seat(names[0], "random", seed=seed), Seat(names[1], "random", seed=seed + 1)],
                        length=length, dice=SeededDice(seed))
    while not table.contest.is_over():
        seat = table.bot_to_act()
        assert seat is not None, table.contest.phase()
        table.play_bot(seat)
    return table


def resigned(names: tuple[str, str] = ("ann", "bob")) -> Table:
    """A 1-point match: the opening roller resigns a single game and the other accepts (R31)."""
    table = Table.match([Seat(names[0]), Seat(names[1])], length=1, dice=ScriptedDice([(3, 1)]))
    assert table.submit(names[0], cmd.Roll()).accepted          # 3-1: names[0] is on roll
    assert table.submit(names[0], cmd.Resign(1)).accepted
    assert table.submit(names[1], cmd.Accept()).accepted
    assert table.contest.is_over()
    return table


def partly_played(games: int = 1) -> Table:
    """A 3-point match in its second game: the first game is over, the match is not."""
    table = Table.match([Seat("ann", "random", seed=5), Seat("bob", "random", seed=6)], length=3,
                        dice=SeededDice(11))
    while table.contest.game_number <= games:
        seat = table.bot_to_act()
        assert seat is not None
        table.play_bot(seat)
    assert not table.contest.is_over()
    return table


def winner_of(table: Table) -> tuple[str, str]:
    """(winner seat, loser seat) as the match itself says."""
    match = table.contest.match  # type: ignore[attr-defined]
    seats = table.contest.seats
    return seats[match.winner], seats[1 - match.winner]


def seats_of(table: Table, bots: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The settings' seats: people, or bots of a level for the seats named in ``bots``."""
    out: list[dict[str, Any]] = []
    for seat in table.contest.seats:
        if bots and seat in bots:
            out.append({"name": seat, "kind": "bot", "bot": bots[seat], "seed": 1})
        else:
            out.append({"name": seat, "kind": "human"})
    return out


def settings_of(table: Table, rated: bool = True, bots: dict[str, str] | None = None,
                kind: str = "match") -> dict[str, Any]:
    length = table.contest.match.length  # type: ignore[attr-defined]
    return {"length": length, "rules": {}, "seats": seats_of(table, bots), "same_screen": False,
            "mute_spectators": False, "rated": rated, "clock": "rapid" if rated else "none"}


def add_user(store: Store, name: str, role: str = "player", rating: float = 1500.0, experience: int = 0,
             created: datetime = T0) -> int:
    with store.engine.begin() as c:
        key = c.execute(users_t.insert().values(
            name=name, name_key=name.casefold(), password=None if role == "bot" else "x", role=role,
            rating=rating, experience=experience, created=created,
        )).inserted_primary_key
    assert key is not None
    return int(key[0])


def add_table(store: Store, table: Table | None, settings: dict[str, Any], holders: dict[str, int],
              *, status: str = "over", created: datetime = T0, kind: str = "match",
              table_id: str | None = None) -> str:
    """Store a table (its state as the server keeps it) and the accounts holding its seats."""
    tid = table_id or uuid.uuid4().hex[:10]
    state = {"table": table.to_dict(), "fair": {}} if table is not None else {}
    with store.engine.begin() as c:
        c.execute(tables_t.insert().values(
            id=tid, kind=kind, settings=settings, tokens={}, state=state, seq=0, status=status,
            created=created, updated=created + timedelta(minutes=5),
        ))
        for seat, uid in holders.items():
            c.execute(seat_users_t.insert().values(table_id=tid, seat=seat, user_id=uid))
    return tid


def run_finish(store: Store, tid: str, settings: dict[str, Any], table: Table, kind: str = "match",
               at: datetime = T0) -> None:
    with store.engine.begin() as c:
        finish(c, tid, kind, settings, table, at)


def user(store: Store, uid: int, places: int = 2) -> tuple[float, int]:
    """The account's rating (rounded to ``places`` decimals, as the pages show it) and experience."""
    with store.engine.connect() as c:
        row = c.execute(sa.select(users_t.c.rating, users_t.c.experience).where(users_t.c.id == uid)).one()
    return round(float(row.rating), places), int(row.experience)


def result_rows(store: Store, tid: str) -> list[Any]:
    with store.engine.connect() as c:
        return list(c.execute(sa.select(results_t).where(results_t.c.table_id == tid)))


def two_players(store: Store, table: Table, rating: float = 1500.0, experience: int = 0) -> dict[str, int]:
    return {seat: add_user(store, seat, rating=rating, experience=experience) for seat in table.contest.seats}


def client(store: Store) -> TestClient:
    app = Starlette(routes=results.routes())
    app.state.store = store
    return TestClient(app)


# -- finish: the result row and the FIBS update ------------------------------------------------------


def test_two_new_players_one_point_match_move_ten_points(store: Store) -> None:
    # Issue 12, Ratings: everyone starts at 1500 with experience 0, so K = max(1, 5 - 0/100) = 5;
    # equal ratings give P' = 1/(10^0 + 1) = 0.5; the winner gains 4*K*sqrt(1)*P' = 10.00 and the
    # loser loses as much; experience grows by n = 1.
    table = played(1, 0)
    ids = two_players(store, table)
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids)
    run_finish(store, tid, settings, table, at=T0 + timedelta(hours=1))
    winner, loser = winner_of(table)
    assert user(store, ids[winner]) == (1510.00, 1)
    assert user(store, ids[loser]) == (1490.00, 1)
    (row,) = result_rows(store, tid)
    assert (row.rated, row.length, row.winner_seat, row.loser_seat) == (True, 1, winner, loser)
    assert (row.winner_id, row.loser_id, row.reason) == (ids[winner], ids[loser], "played")
    # the match was won with a gammon or more (2+ points), the score is capped at the length (R32)
    assert table.contest.match.score != (0, 1) and row.score == {winner: 1, loser: 0}  # type: ignore[attr-defined]
    assert row.ratings == {
        winner: {"before": 1500.0, "after": pytest.approx(1510.0), "experience_before": 0, "experience_after": 1},
        loser: {"before": 1500.0, "after": pytest.approx(1490.0), "experience_before": 0, "experience_after": 1},
    }
    assert results._utc(row.finished) == T0 + timedelta(hours=1)
    assert result_of(store, tid) == {"winner": winner, "reason": "played", "ratings": row.ratings}


def test_experienced_players_of_equal_rating_move_two_points(store: Store) -> None:
    # The worked example: two experienced players of equal rating, 1-point match: ±2.00
    # (K = max(1, 5 - 500/100) = 1; 4 * 1 * sqrt(1) * 0.5 = 2).
    table = played(1, 2)
    ids = two_players(store, table, rating=1500.0, experience=500)
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids)
    run_finish(store, tid, settings, table)
    winner, loser = winner_of(table)
    assert user(store, ids[winner]) == (1502.00, 501)
    assert user(store, ids[loser]) == (1498.00, 501)


def test_a_three_point_match_between_unequal_players_follows_the_formula(store: Store) -> None:
    # Issue 12: P(underdog) = 1/(10^(D*sqrt(n)/2000) + 1); each side moves 4*K*sqrt(n)*P' with its
    # own K. The winner is rated 1600 (exp 1000: K = 1), the loser 1450 (exp 150: K = 3.5), n = 3.
    table = played(3, 0)
    winner, loser = winner_of(table)
    ids = {winner: add_user(store, winner, rating=1600.0, experience=1000),
           loser: add_user(store, loser, rating=1450.0, experience=150)}
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids)
    run_finish(store, tid, settings, table)
    upset = 1 / (10 ** (150 * math.sqrt(3) / 2000) + 1)   # the loser was the underdog
    assert user(store, ids[winner], 9) == (round(1600 + 4 * 1 * math.sqrt(3) * upset, 9), 1003)
    assert user(store, ids[loser], 9) == (round(1450 - 4 * 3.5 * math.sqrt(3) * upset, 9), 153)


def test_finish_is_idempotent(store: Store) -> None:
    table = played(1, 0)
    ids = two_players(store, table)
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids)
    run_finish(store, tid, settings, table)
    first = [user(store, uid) for uid in ids.values()]
    run_finish(store, tid, settings, table, at=T0 + timedelta(days=1))
    run_finish(store, tid, settings, table)
    assert [user(store, uid) for uid in ids.values()] == first
    (row,) = result_rows(store, tid)
    assert results._utc(row.finished) == T0


def test_an_unrated_match_keeps_the_ratings(store: Store) -> None:
    table = played(1, 0)
    ids = two_players(store, table)
    settings = settings_of(table, rated=False)
    tid = add_table(store, table, settings, ids)
    run_finish(store, tid, settings, table)
    assert [user(store, uid) for uid in ids.values()] == [(1500.0, 0), (1500.0, 0)]
    (row,) = result_rows(store, tid)
    winner, loser = winner_of(table)
    assert (row.rated, row.ratings, row.winner_id, row.loser_id) == (False, None, ids[winner], ids[loser])
    assert result_of(store, tid) == {"winner": winner, "reason": "played", "ratings": None}


def test_a_guest_gets_a_result_without_ratings(store: Store) -> None:
    table = played(1, 1)
    winner, loser = winner_of(table)
    account = add_user(store, loser)          # the winner is a guest
    settings = settings_of(table, rated=True)
    tid = add_table(store, table, settings, {loser: account})
    run_finish(store, tid, settings, table)
    (row,) = result_rows(store, tid)
    assert (row.rated, row.ratings, row.winner_id, row.loser_id) == (False, None, None, account)
    assert user(store, account) == (1500.0, 0)


def test_one_account_at_both_seats_is_not_rated(store: Store) -> None:
    table = played(1, 0)
    uid = add_user(store, "solo")
    settings = settings_of(table)
    tid = add_table(store, table, settings, {seat: uid for seat in table.contest.seats})
    run_finish(store, tid, settings, table)
    (row,) = result_rows(store, tid)
    assert (row.rated, row.ratings) == (False, None)
    assert user(store, uid) == (1500.0, 0)


def test_a_bot_seat_is_rated_on_the_bots_account(store: Store) -> None:
    # Issue 12: bots have accounts and ratings too. The bot's account has no seat_users row: it is
    # the user of role "bot" named after the bot's level.
    table = played(1, 3, ("ann", "expert"))
    person = add_user(store, "ann")
    bot = add_user(store, "expert", role="bot")
    settings = settings_of(table, bots={"expert": "expert"})
    tid = add_table(store, table, settings, {"ann": person})
    run_finish(store, tid, settings, table)
    winner, loser = winner_of(table)
    ids = {"ann": person, "expert": bot}
    (row,) = result_rows(store, tid)
    assert (row.rated, row.winner_id, row.loser_id) == (True, ids[winner], ids[loser])
    assert user(store, ids[winner]) == (1510.0, 1)
    assert user(store, ids[loser]) == (1490.0, 1)


def test_a_resigned_last_game_gives_the_reason_resigned(store: Store) -> None:
    table = resigned()
    ids = two_players(store, table)
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids)
    run_finish(store, tid, settings, table)
    (row,) = result_rows(store, tid)
    # ann rolled 3-1 and resigned a single game; bob accepted and wins the 1-point match (R31, R32)
    assert (row.winner_seat, row.loser_seat, row.reason, row.score) == ("bob", "ann", "resigned", {"ann": 0, "bob": 1})


@pytest.mark.parametrize("why", ["time", "abandoned"])
def test_a_forfeited_match_gives_its_reason(store: Store, why: str) -> None:
    table = partly_played()
    table.forfeit("ann", why)
    assert table.contest.is_over()
    ids = two_players(store, table)
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids)
    run_finish(store, tid, settings, table)
    (row,) = result_rows(store, tid)
    assert (row.winner_seat, row.loser_seat, row.reason) == ("bob", "ann", why)
    assert row.score["bob"] == 3        # the side that did not forfeit wins the match (R32)
    body = client(store).get("/api/users/ann").json()
    assert (body["lost"], body["abandoned"]) == (1, 1 if why == "abandoned" else 0)


def test_nothing_is_written_before_the_match_ends_or_for_money(store: Store) -> None:
    table = partly_played()
    ids = two_players(store, table)
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids, status="playing")
    run_finish(store, tid, settings, table)
    money = Table.match([Seat("cy"), Seat("di")], length=0)
    money_settings = {"length": 0, "rules": {}, "seats": seats_of(money)}
    mid = add_table(store, money, money_settings, {}, kind="money")
    run_finish(store, mid, money_settings, money, kind="money")
    assert result_rows(store, tid) == [] and result_rows(store, mid) == []
    assert result_of(store, tid) is None and result_of(store, mid) is None


def test_finish_runs_inside_the_final_commit_and_survives_its_retry(store: Store) -> None:
    # As the room calls it: Commit.after of the command that ends the match. A group commit
    # whose other command is stale rolls back and is retried command by command: the result
    # and the update are written once, not twice.
    table = played(1, 0)
    ids = two_players(store, table)
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids, status="playing")
    other = add_table(store, None, {"length": 1, "rules": {}, "seats": []}, {}, status="playing")
    at = T0 + timedelta(minutes=30)
    final = Commit(tid, 1, "ann", {"type": "confirm"}, [], {"table": table.to_dict(), "fair": {}}, "over",
                   after=(lambda c: finish(c, tid, "match", settings, table, at),))
    stale = Commit(other, 7, None, None, [], {}, "playing")
    errors = store.commit_many([final, stale])
    assert errors[0] is None and isinstance(errors[1], StaleWrite)
    winner, loser = winner_of(table)
    assert user(store, ids[winner]) == (1510.0, 1)
    assert user(store, ids[loser]) == (1490.0, 1)
    assert len(result_rows(store, tid)) == 1


def test_a_refused_final_commit_writes_no_result(store: Store) -> None:
    table = played(1, 0)
    ids = two_players(store, table)
    settings = settings_of(table)
    tid = add_table(store, table, settings, ids, status="playing")
    late = Commit(tid, 2, "ann", None, [], {}, "over",
                  after=(lambda c: finish(c, tid, "match", settings, table, T0),))
    with pytest.raises(StaleWrite):
        store.commit_many([late])
    assert result_rows(store, tid) == []
    assert [user(store, uid) for uid in ids.values()] == [(1500.0, 0), (1500.0, 0)]


@hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 40), length=st.sampled_from([1, 3]),
       ratings=st.tuples(st.floats(1000, 2200), st.floats(1000, 2200)),
       experience=st.tuples(st.integers(0, 900), st.integers(0, 900)))
def test_the_result_names_the_matchs_winner_and_the_update_is_rate(
    tmp_path: Path, seed: int, length: int, ratings: tuple[float, float], experience: tuple[int, int]
) -> None:
    from backgammon.rating import Rating, rate

    table = played(length, seed)
    with Store(f"sqlite:///{tmp_path}/{uuid.uuid4().hex}.sqlite3") as store:
        ids = {seat: add_user(store, seat, rating=r, experience=e)
               for seat, r, e in zip(table.contest.seats, ratings, experience)}
        settings = settings_of(table)
        tid = add_table(store, table, settings, ids)
        run_finish(store, tid, settings, table)
        winner, loser = winner_of(table)
        (row,) = result_rows(store, tid)
        assert (row.winner_seat, row.loser_seat, row.length) == (winner, loser, length)
        assert row.score[winner] == length and row.score[loser] < length
        before = {seat: Rating(r, e) for seat, r, e in zip(table.contest.seats, ratings, experience)}
        new_w, new_l = rate(before[winner], before[loser], length)
        assert user(store, ids[winner], 9) == (round(new_w.rating, 9), new_w.experience)
        assert user(store, ids[loser], 9) == (round(new_l.rating, 9), new_l.experience)
        assert new_w.rating > before[winner].rating and new_l.rating < before[loser].rating


# -- the API: profile, history, leaderboard ----------------------------------------------------------


def league(store: Store) -> dict[str, Any]:
    """ann beats or loses to bob in a rated 1-point match, cy plays bob unrated and leaves a
    3-point match with ann unfinished; a waiting table of ann's has a free seat."""
    ann, bob = add_user(store, "Ann"), add_user(store, "bob")
    cy = add_user(store, "cy", experience=0)
    add_user(store, "mod", role="moderator", rating=1500.0, experience=3)
    add_user(store, "quiet")
    first = played(1, 0)
    s1 = settings_of(first)
    t1 = add_table(store, first, s1, {"ann": ann, "bob": bob}, created=T0)
    run_finish(store, t1, s1, first, at=T0 + timedelta(minutes=10))
    second = played(1, 2, ("cy", "bob"))
    s2 = settings_of(second, rated=False)
    t2 = add_table(store, second, s2, {"cy": cy, "bob": bob}, created=T0 + timedelta(hours=1))
    run_finish(store, t2, s2, second, at=T0 + timedelta(hours=1, minutes=10))
    third = partly_played()
    s3 = settings_of(third)
    t3 = add_table(store, third, s3, {"ann": ann}, status="playing", created=T0 + timedelta(hours=2))
    s4 = {"length": 5, "rules": {}, "seats": [{"name": "Ann", "kind": "human"}, {"name": None, "kind": "human"}]}
    t4 = add_table(store, None, s4, {"Ann": ann}, status="waiting", created=T0 + timedelta(hours=3))
    return {"ids": (ann, bob, cy), "tables": (t1, t2, t3, t4), "first": first, "second": second,
            "third": third}


def test_profile(store: Store) -> None:
    data = league(store)
    t1, t2, _, _ = data["tables"]
    winner, loser = winner_of(data["first"])
    second_winner, _ = winner_of(data["second"])
    with client(store) as http:
        body = http.get("/api/users/BOB").json()           # names are found in any case
        ann = http.get("/api/users/ann").json()
    assert body["name"] == "bob" and body["role"] == "player"
    bob_won_first = winner == "bob"
    assert body["rating"] == (1510.0 if bob_won_first else 1490.0) and body["experience"] == 1
    assert body["won"] == int(bob_won_first) + int(second_winner == "bob")
    assert body["won"] + body["lost"] == 2 and body["abandoned"] == 0
    assert body["created"] == T0.isoformat()
    assert [r["table"] for r in body["recent"]] == [t2, t1]     # newest first
    latest, earlier = body["recent"]
    assert latest["opponent"] == {"name": "cy", "account": "cy"} and latest["rated"] is False
    assert latest["rating"] is None and latest["won"] == (second_winner == "bob")
    assert earlier["opponent"] == {"name": "ann", "account": "Ann"} and earlier["rated"] is True
    assert earlier["rating"]["before"] == 1500.0 and earlier["reason"] == "played"
    assert earlier["links"] == {"live": f"/t/{t1}", "replay": f"/r/{t1}"}
    assert ann["name"] == "Ann" and [r["table"] for r in ann["recent"]] == [t1]
    assert ann["won"] == int(winner == "ann") and ann["lost"] == int(loser == "ann")


def test_profile_lists_ten_results_at_most(store: Store) -> None:
    ann, bob = add_user(store, "ann"), add_user(store, "bob")
    table = played(1, 0)
    settings = settings_of(table, rated=False)
    for i in range(12):
        tid = add_table(store, table, settings, {"ann": ann, "bob": bob}, created=T0 + timedelta(minutes=i))
        run_finish(store, tid, settings, table, at=T0 + timedelta(minutes=i))
    body = client(store).get("/api/users/ann").json()
    assert len(body["recent"]) == 10 and body["won"] + body["lost"] == 12
    assert [r["finished"] for r in body["recent"]] == sorted((r["finished"] for r in body["recent"]), reverse=True)


def test_unknown_names_are_404(store: Store) -> None:
    league(store)
    with client(store) as http:
        for path in ("/api/users/nobody", "/api/users/nobody/matches"):
            response = http.get(path)
            assert response.status_code == 404
            assert response.json() == {"error": "there is no player called 'nobody'"}


def test_history_lists_finished_and_unfinished_tables_newest_first(store: Store) -> None:
    data = league(store)
    t1, _, t3, t4 = data["tables"]
    winner, _ = winner_of(data["first"])
    with client(store) as http:
        body = http.get("/api/users/ann/matches").json()
    assert body["name"] == "Ann" and body["next"] is None
    assert [m["id"] for m in body["matches"]] == [t4, t3, t1]
    waiting, playing, over = body["matches"]
    assert waiting["status"] == "waiting" and waiting["seat"] == "Ann" and waiting["length"] == 5
    assert waiting["opponents"] == [{"name": None, "account": None}] and waiting["score"] is None
    assert playing["status"] == "playing" and playing["result"] is None and playing["won"] is None
    # the 3-point match is in its second game: the score after the first, by seat
    match = data["third"].contest.match
    assert playing["score"] == dict(zip(("ann", "bob"), match.capped_score)) and sum(match.score) > 0
    assert playing["opponents"] == [{"name": "bob", "account": None}] and playing["rated"] is True
    assert over["status"] == "over" and over["rated"] is True and over["kind"] == "match"
    assert over["result"]["winner"] == winner and over["result"]["reason"] == "played"
    assert set(over["result"]["ratings"]) == {"ann", "bob"} and over["won"] == (winner == "ann")
    assert over["opponents"] == [{"name": "bob", "account": "bob"}]
    assert over["links"] == {"live": f"/t/{t1}", "replay": f"/r/{t1}"}
    assert over["created"] == T0.isoformat() and over["updated"] == (T0 + timedelta(minutes=5)).isoformat()


def test_history_pages(store: Store) -> None:
    data = league(store)
    t1, _, t3, t4 = data["tables"]
    with client(store) as http:
        first = http.get("/api/users/ann/matches", params={"limit": 2}).json()
        assert [m["id"] for m in first["matches"]] == [t4, t3] and first["next"] is not None
        second = http.get("/api/users/ann/matches", params={"limit": 2, "before": first["next"]}).json()
        assert [m["id"] for m in second["matches"]] == [t1] and second["next"] is None
        for bad in ({"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"before": "yesterday"}):
            response = http.get("/api/users/ann/matches", params=bad)
            assert response.status_code == 400 and "error" in response.json()


def test_a_bots_history_comes_from_its_results(store: Store) -> None:
    table = played(1, 3, ("ann", "expert"))
    person, bot = add_user(store, "ann"), add_user(store, "expert", role="bot")
    settings = settings_of(table, bots={"expert": "expert"})
    tid = add_table(store, table, settings, {"ann": person})
    run_finish(store, tid, settings, table)
    body = client(store).get("/api/users/expert/matches").json()
    (entry,) = body["matches"]
    assert entry["id"] == tid and entry["seat"] == "expert"
    assert entry["opponents"] == [{"name": "ann", "account": "ann"}]
    profile = client(store).get("/api/users/expert").json()
    assert profile["role"] == "bot" and profile["won"] + profile["lost"] == 1
    assert profile["recent"][0]["opponent"] == {"name": "ann", "account": "ann"}


def test_leaderboard(store: Store) -> None:
    data = league(store)
    winner, loser = winner_of(data["first"])
    with client(store) as http:
        body = http.get("/api/leaderboard").json()
        top = http.get("/api/leaderboard", params={"limit": 1}).json()
        assert http.get("/api/leaderboard", params={"limit": 1000}).status_code == 400
    names = {"ann": "Ann", "bob": "bob"}
    # experience > 0 only: cy played unrated, quiet never played; the moderator has played
    assert [p["name"] for p in body["players"]] == [names[winner], "mod", names[loser]]
    assert [p["rank"] for p in body["players"]] == [1, 2, 3]
    best = body["players"][0]
    assert best == {"rank": 1, "name": names[winner], "role": "player", "rating": 1510.0, "experience": 1,
                    "won": 1 + int(winner == "bob" and winner_of(data["second"])[0] == "bob"),
                    "lost": int(winner == "bob" and winner_of(data["second"])[0] != "bob")}
    assert top["players"] == body["players"][:1]


def test_pages_are_served(store: Store) -> None:
    with client(store) as http:
        for path, page in (("/u/ann", "profile.js"), ("/u/ann/history", "history.js"),
                           ("/leaderboard", "leaderboard.js")):
            response = http.get(path)
            assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
            assert f"/static/{page}" in response.text and 'id="account"' in response.text


# -- OpenAPI ------------------------------------------------------------------------------------------


def test_openapi_paths_describe_every_api_route() -> None:
    api = {route.path for route in results.routes() if route.path.startswith("/api/")}
    assert set(OPENAPI_PATHS) == api
    assert "Error" in OPENAPI["components"]["schemas"]      # the only $ref the paths use

    def refs(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref":
                    yield value
                else:
                    yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)

    assert set(refs(OPENAPI_PATHS)) == {"#/components/schemas/Error"}
    operations = [op["operationId"] for item in OPENAPI_PATHS.values() for op in item.values()]
    assert len(set(operations)) == len(operations)
    others = {op.get("operationId") for path, item in OPENAPI["paths"].items() if path not in OPENAPI_PATHS
              for op in item.values() if isinstance(op, dict)}
    assert not set(operations) & others
