"""The server's database (backgammon.server.store), on SQLite and on a real PostgreSQL.

PostgreSQL: ``$BACKGAMMON_TEST_POSTGRES`` (a URL), else 127.0.0.1:5432 database ``test`` as
user ``postgres`` or ``root``. Each test gets a schema of its own, dropped afterwards. The
PostgreSQL tests skip (saying why) only when no server answers, and fail instead when
``BACKGAMMON_REQUIRE_POSTGRES=1`` (CI).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.config import Config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon.errors import BackgammonError
from backgammon.server import store as store_module
from backgammon.server.store import (
    MIGRATIONS,
    ChatRow,
    EventRow,
    StaleWrite,
    Store,
    StoreError,
    TableRecord,
    UnknownTable,
    default_url,
    metadata,
    normalize_url,
)

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2025, 6, 1, 12, 0, 0, 123456, tzinfo=timezone.utc)

# -- the two databases -----------------------------------------------------------------------


def _postgres_base() -> tuple[str | None, str]:
    """A URL of a reachable PostgreSQL (no schema chosen), or None and why not."""
    explicit = os.environ.get("BACKGAMMON_TEST_POSTGRES")
    candidates = [explicit] if explicit else [
        f"postgresql+psycopg://{user}@127.0.0.1:5432/test" for user in ("postgres", "root")
    ]
    reasons = []
    for url in candidates:
        engine = sa.create_engine(url, connect_args={"connect_timeout": 3})
        try:
            with engine.connect() as connection:
                connection.execute(sa.text("select 1"))
            return url, ""
        except Exception as exc:  # noqa: BLE001 - any failure to connect means "not here"
            reasons.append(f"{url}: {str(exc).splitlines()[0]}")
        finally:
            engine.dispose()
    return None, "; ".join(reasons)


_PG: tuple[str | None, str] | None = None


def postgres_base() -> str:
    """The PostgreSQL URL; skips (or fails under BACKGAMMON_REQUIRE_POSTGRES=1) without one."""
    global _PG
    if _PG is None:
        _PG = _postgres_base()
    url, why = _PG
    if url is None:
        message = f"no PostgreSQL server answered ({why})"
        if os.environ.get("BACKGAMMON_REQUIRE_POSTGRES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A URL whose search_path is a fresh schema, dropped after the test."""
    with pg_schema("test_store_") as url:
        yield url


@contextmanager
def pg_schema(prefix: str) -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a fresh schema named ``prefix`` + a random
    suffix (a subprocess can use the URL too), dropped at the end."""
    base = postgres_base()
    schema = prefix + uuid.uuid4().hex[:12]
    admin = sa.create_engine(base)
    with admin.begin() as connection:
        connection.execute(sa.text(f'create schema "{schema}"'))
    try:
        yield f"{base}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'drop schema "{schema}" cascade'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each test runs on a SQLite file and on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/deep/er/club.sqlite3"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    s = Store(url)
    try:
        yield s
    finally:
        s.close()


def state(n: int = 0) -> dict[str, Any]:
    """A realistic state: about 5 KB of JSON, with nesting, unicode and every JSON type."""
    return {
        "table": {
            "kind": "match",
            "seq": n,
            "log": [
                {"type": "moved", "player": i % 2, "move": "24/18 13/11", "dice": [6, 2]} for i in range(70)
            ],
            "players": ["Ann", "Bøb ☃"],
            "crawford": None,
            "cube": {"value": 2 ** (n % 6), "owner": 1, "centered": False},
            "equity": -0.125,
        },
        "fair": {"game": 1, "seed": "ab" * 32, "client": [], "drawn": [[3, 1], [6, 6]]},
    }


def record(table_id: str, *, status: str = "waiting", created: datetime = T0, **changes: Any) -> TableRecord:
    values: dict[str, Any] = {
        "id": table_id,
        "kind": "match",
        "settings": {"length": 5, "rules": {"jacoby": False, "cube_limit": None},
                     "seats": [{"name": "ann", "kind": "human"},
                               {"name": "expert", "kind": "bot", "bot": "expert"}],
                     "same_screen": False},
        "tokens": {"ann": "0" * 64},
        "state": state(),
        "seq": 0,
        "status": status,
        "created": created,
        "updated": created,
    }
    values.update(changes)
    return TableRecord(**values)


# -- records and commits ---------------------------------------------------------------------


def test_create_then_load_gives_the_same_record(store: Store) -> None:
    r = record("abcdefghij")
    store.create(r)
    assert store.load("abcdefghij") == r
    assert store.load("nosuchtabl") is None
    loaded = store.load("abcdefghij")
    assert loaded is not None and loaded.created.tzinfo is not None


def test_a_non_utc_time_comes_back_as_the_same_instant_in_utc(store: Store) -> None:
    cet = timezone(timedelta(hours=1))
    store.create(record("tz00000000", created=T0.astimezone(cet)))
    loaded = store.load("tz00000000")
    assert loaded is not None and loaded.created == T0 and loaded.created.utcoffset() == timedelta(0)


def test_an_id_is_stored_once(store: Store) -> None:
    store.create(record("twice00000"))
    with pytest.raises(StoreError, match="already exists"):
        store.create(record("twice00000", kind="money"))
    loaded = store.load("twice00000")
    assert loaded is not None and loaded.kind == "match"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False, width=32) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values)
def test_any_json_state_round_trips(store: Store, value: Any) -> None:
    table_id = uuid.uuid4().hex[:10]
    store.create(record(table_id, state={"v": value}))
    store.commit(table_id, 1, None, {"v": value}, [{"v": value}], {"w": value}, "playing")
    loaded = store.load(table_id)
    assert loaded is not None and loaded.state == {"w": value}
    assert store.events(table_id)[0].events == [{"v": value}]


def test_commit_counts_commands_and_appends_their_events_in_order(store: Store) -> None:
    store.create(record("game000001"))
    before = datetime.now(timezone.utc)
    for n in range(1, 6):
        seat = None if n == 1 else ("ann" if n % 2 else "expert")
        command = None if n == 1 else {"type": "move", "move": f"{n}"}
        events: list[dict[str, Any]] = [{"type": "e", "n": n}, {"type": "f"}]
        store.commit("game000001", n, seat, command, events, state(n), "playing")
    loaded = store.load("game000001")
    assert loaded is not None
    assert (loaded.seq, loaded.status, loaded.state) == (5, "playing", state(5))
    assert loaded.created == T0 and loaded.updated >= before
    rows = store.events("game000001")
    assert [r.seq for r in rows] == [1, 2, 3, 4, 5]
    first: list[dict[str, Any]] = [{"type": "e", "n": 1}, {"type": "f"}]
    assert rows[0] == EventRow("game000001", 1, None, None, first, rows[0].at)
    assert rows[3].seat == "expert" and rows[3].command == {"type": "move", "move": "4"}
    assert all(a.at <= b.at for a, b in zip(rows, rows[1:]))
    assert store.events("nosuchtabl") == []


def test_a_stale_commit_is_refused_and_changes_nothing(store: Store) -> None:
    store.create(record("stale00000"))
    store.commit("stale00000", 1, "ann", {"type": "roll"}, [{"type": "rolled"}], state(1), "playing")
    before = store.load("stale00000")
    for seq in (1, 0, 3, -5):  # repeated, far behind, skipping one, nonsense
        with pytest.raises(StaleWrite, match="reload the table") as caught:
            store.commit("stale00000", seq, "ann", {"type": "x"}, [], state(99), "over")
        assert isinstance(caught.value, BackgammonError)
    assert store.load("stale00000") == before
    assert [r.seq for r in store.events("stale00000")] == [1]
    with pytest.raises(UnknownTable, match="no table nosuchtabl"):
        store.commit("nosuchtabl", 1, None, None, [], {}, "playing")


def test_the_event_row_and_the_state_are_one_transaction(store: Store) -> None:
    """An event row already at seq 2 (written behind the store's back) makes commit 2 fail,
    and the table's state, seq and status stay as they were."""
    store.create(record("atomic0000"))
    store.commit("atomic0000", 1, "ann", None, [], state(1), "playing")
    with store.engine.begin() as connection:
        connection.execute(store_module.events_t.insert().values(
            table_id="atomic0000", seq=2, seat="x", command=None, events=[], at=T0))
    with pytest.raises(StaleWrite, match="already has a command 2"):
        store.commit("atomic0000", 2, "ann", {"type": "roll"}, [], state(2), "over")
    loaded = store.load("atomic0000")
    assert loaded is not None and (loaded.seq, loaded.status, loaded.state) == (1, "playing", state(1))


def test_of_writers_racing_on_one_seq_exactly_one_wins(url: str) -> None:
    stores = [Store(url) for _ in range(2)]  # two stores: two engines, two connection pools
    try:
        stores[0].create(record("race000000"))
        for seq in range(1, 6):
            barrier = threading.Barrier(6)
            outcome: list[str] = []

            def write(i: int) -> None:
                barrier.wait()
                try:
                    stores[i % 2].commit("race000000", seq, f"w{i}", {"i": i}, [], {"by": i}, "playing")
                    outcome.append(f"won {i}")
                except StaleWrite:
                    outcome.append("stale")

            threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            winners = [o for o in outcome if o.startswith("won")]
            assert len(winners) == 1 and outcome.count("stale") == 5
            loaded = stores[1].load("race000000")
            assert loaded is not None and loaded.seq == seq
            assert loaded.state == {"by": int(winners[0].split()[1])}
        assert [r.seq for r in stores[0].events("race000000")] == [1, 2, 3, 4, 5]
    finally:
        for s in stores:
            s.close()


def test_update_seats_replaces_settings_tokens_and_status(store: Store) -> None:
    store.create(record("seats00000"))
    settings_ = {"length": 5, "seats": [{"name": "ann", "kind": "human"}, {"name": "bob", "kind": "human"}]}
    tokens = {"ann": "0" * 64, "bob": "f" * 64}
    store.update_seats("seats00000", settings_, tokens, "playing")
    loaded = store.load("seats00000")
    assert loaded is not None
    assert (loaded.settings, loaded.tokens, loaded.status, loaded.seq) == (settings_, tokens, "playing", 0)
    assert loaded.updated > loaded.created
    with pytest.raises(UnknownTable, match="no table nosuchtabl"):
        store.update_seats("nosuchtabl", {}, {}, "playing")


def test_live_and_lobby_leave_out_finished_tables(store: Store) -> None:
    store.create(record("old0000000", status="playing", created=T0))
    store.create(record("over000000", status="over", created=T0 + timedelta(minutes=1)))
    store.create(record("new0000000", status="waiting", created=T0 + timedelta(minutes=2)))
    store.create(record("mid0000000", status="waiting", created=T0 + timedelta(minutes=1)))
    assert [r.id for r in store.live()] == ["old0000000", "mid0000000", "new0000000"]
    assert [r.id for r in store.lobby()] == ["new0000000", "mid0000000", "old0000000"]
    assert [r.id for r in store.lobby(limit=2)] == ["new0000000", "mid0000000"]
    # A move makes a table the most recently active; finishing it takes it off both lists.
    store.commit("old0000000", 1, "ann", None, [], state(1), "playing")
    assert [r.id for r in store.lobby()][0] == "old0000000"
    store.commit("old0000000", 2, "ann", None, [], state(2), "over")
    assert [r.id for r in store.live()] == ["mid0000000", "new0000000"]
    assert "old0000000" not in [r.id for r in store.lobby()]


def test_chat_keeps_the_last_lines_oldest_first(store: Store) -> None:
    store.create(record("chat000000"))
    store.create(record("other00000"))
    lines = [store.add_chat("chat000000", f"p{i % 3}", f"line {i} ☃", i % 2 == 1) for i in range(12)]
    store.add_chat("other00000", "zed", "elsewhere", False)
    assert all(isinstance(line, ChatRow) for line in lines)
    assert [c.id for c in lines] == sorted(c.id for c in lines)
    assert store.chat("chat000000") == lines
    assert store.chat("chat000000", limit=5) == lines[-5:]
    assert [c.text for c in store.chat("other00000")] == ["elsewhere"]
    assert lines[1].spectator is True and lines[0].spectator is False
    with pytest.raises(UnknownTable):
        store.add_chat("nosuchtabl", "ann", "hello", False)


# -- opening, migrations, durability ---------------------------------------------------------


def test_the_migrations_build_exactly_the_models(store: Store) -> None:
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []
        head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
        assert context.get_current_revision() == head


def _alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def test_reopening_keeps_the_data_and_migrating_again_changes_nothing(url: str) -> None:
    first = Store(url)
    first.create(record("keep000000"))
    first.commit("keep000000", 1, "ann", {"type": "roll"}, [{"type": "rolled"}], state(1), "playing")
    first.add_chat("keep000000", "ann", "hi", False)
    first.close()
    for _ in range(2):
        again = Store(url)
        loaded = again.load("keep000000")
        assert loaded is not None and loaded.seq == 1 and loaded.state == state(1)
        assert [c.text for c in again.chat("keep000000")] == ["hi"]
        with again.engine.connect() as connection:
            assert connection.execute(sa.text("select count(*) from alembic_version")).scalar() == 1
        again.close()


def test_sqlite_is_durable_and_checks_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "club.sqlite3"
    s = Store(f"sqlite:///{path}")
    try:
        assert path.exists()
        with s.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == store_module.SQLITE_BUSY_MS
    finally:
        s.close()


def test_an_in_memory_sqlite_store_is_shared_by_threads() -> None:
    with Store("sqlite://") as s:
        s.create(record("memory0000"))
        seen: list[TableRecord | None] = []
        thread = threading.Thread(target=lambda: seen.append(s.load("memory0000")))
        thread.start()
        thread.join()
        assert seen[0] is not None and seen[0].id == "memory0000"


_KILLED_WRITER = """
import sys
from datetime import datetime, timezone
from backgammon.server.store import Store, TableRecord
s = Store(sys.argv[1])
now = datetime.now(timezone.utc)
s.create(TableRecord("killed0000", "match", {}, {}, {"n": 0}, 0, "playing", now, now))
n = 0
while True:
    n += 1
    s.commit("killed0000", n, "ann", {"n": n}, [{"n": n}], {"n": n, "pad": "x" * 4000}, "playing")
    sys.stdout.write(f"{n}\\n")
    sys.stdout.flush()
"""


def test_a_commit_survives_the_writer_being_killed(url: str) -> None:
    """SIGKILL right after commit returns: every reported commit is in the database."""
    process = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, url], cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    try:
        reported = 0
        for line in process.stdout:
            reported = int(line)
            if reported >= 25:
                break
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
    assert reported >= 25
    s = Store(url)
    try:
        loaded = s.load("killed0000")
        assert loaded is not None and loaded.seq >= reported
        assert loaded.state["n"] == loaded.seq
        assert [r.seq for r in s.events("killed0000")] == list(range(1, loaded.seq + 1))
    finally:
        s.close()


# -- URLs ------------------------------------------------------------------------------------


def test_default_url_follows_the_state_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", "/srv/state")
    assert default_url() == "sqlite:////srv/state/backgammon/club.sqlite3"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", "/home/ann")
    assert default_url() == "sqlite:////home/ann/.local/state/backgammon/club.sqlite3"
    monkeypatch.delenv("HOME")
    assert default_url() == "sqlite:///club.sqlite3"


def test_plain_postgres_urls_use_psycopg_3() -> None:
    assert normalize_url("postgresql://ann:pw@db:5433/club").drivername == "postgresql+psycopg"
    assert normalize_url("postgres://ann@db/club").drivername == "postgresql+psycopg"
    assert normalize_url("postgresql+psycopg://ann@db/club").drivername == "postgresql+psycopg"
    with pytest.raises(StoreError, match="not a database URL"):
        normalize_url("club.sqlite3")


def test_an_unreachable_database_is_a_sentence() -> None:
    with pytest.raises(StoreError, match="cannot open the database") as caught:
        Store("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
    assert "pw" not in str(caught.value)


def test_a_file_in_an_unwritable_place_is_a_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot create the database folder"):
        Store(f"sqlite:///{blocker}/sub/club.sqlite3")
