"""``backgammon serve``: the authoritative online server (docs/PROTOCOL.md, docs/SERVER-DESIGN.md).

:mod:`~backgammon.server.app` is the Starlette application (:func:`create_app`),
:mod:`~backgammon.server.rooms` the live tables, :mod:`~backgammon.server.protocol` the wire
messages, :mod:`~backgammon.server.store` the database. Nothing in the core imports this package.
"""
