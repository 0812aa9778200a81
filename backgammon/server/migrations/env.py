"""The Alembic environment of the server's database.

:func:`backgammon.server.store.upgrade` runs it with an open connection in
``config.attributes["connection"]``; there is no ``alembic.ini`` and no offline mode. To write a
new revision, add a file to ``versions/`` by hand (see ``script.py.mako``) and update the
tables in ``store.py`` to match: ``tests/test_store.py`` checks that they agree.
"""

from __future__ import annotations

from alembic import context

from backgammon.server.store import metadata


def run() -> None:
    """Run the revisions on the connection that the store passed in."""
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError(
            "the server's migrations run through backgammon.server.store.Store (or store.upgrade), "
            "which passes them a database connection; the alembic command line is not set up"
        )
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


# Alembic installs ``context.config`` while it runs this file; a plain import (pytest's
# doctest collection) does nothing.
if hasattr(context, "config"):
    run()
