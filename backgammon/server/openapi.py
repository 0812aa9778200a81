"""The HTTP API of ``backgammon serve`` as an OpenAPI 3.1 document (``GET /api/openapi.json``).

The WebSockets (``/ws/tables/{id}``, ``/ws/lobby``) are described in docs/PROTOCOL.md; OpenAPI
has no words for them. A test checks that every ``/api`` route of the application is here and
that every ``$ref`` resolves.

>>> OPENAPI["openapi"], sorted(OPENAPI["paths"])[0]
('3.1.0', '/api/bots')
"""

from __future__ import annotations

from typing import Any

from .protocol import PROTOCOL_VERSION

__all__ = ["OPENAPI"]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(required: tuple[str, ...] = (), **properties: Any) -> dict[str, Any]:
    """An object schema."""
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    return out


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """A JSON response."""
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    """A required JSON request body."""
    return {"required": True, "content": {"application/json": {"schema": schema}}}


_STR = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_ERROR = _ref("Error")
_ERRORS = {
    "400": _json(_ERROR, "the request was not acted on (the sentence says why)"),
    "404": _json(_ERROR, "no such table"),
}
_ID = [{"name": "id", "in": "path", "required": True, "schema": _STR, "description": "the table's id"}]
_TOKENS = {"type": "object", "additionalProperties": _STR, "description": "seat name -> seat token"}
_SNAPSHOT = {"type": ["object", "null"], "description": "Snapshot.to_dict(); null while waiting"}
_NAME = {"type": "string", "minLength": 1, "maxLength": 40}

_PATHS: dict[str, Any] = {
    "/api/bots": {"get": {
        "summary": "the bot levels",
        "operationId": "listBots",
        "responses": {"200": _json(_obj(("bots",), bots={"type": "array", "items": _STR}), "the bots")},
    }},
    "/api/health": {"get": {
        "summary": "whether this process, its database and its bus answer (for a load balancer)",
        "operationId": "health",
        "responses": {
            "200": _json(_obj(("ok", "rooms", "problems"), ok={"type": "boolean"}, rooms=_INT,
                              problems={"type": "array", "items": _STR}), "all is well"),
            "503": _json(_obj(("ok", "rooms", "problems"), ok={"type": "boolean"}, rooms=_INT,
                              problems={"type": "array", "items": _STR}), "the database or the bus fails"),
        },
    }},
    "/api/tables": {
        "get": {
            "summary": "the lobby: tables that are waiting or playing",
            "operationId": "listTables",
            "responses": {"200": _json(_obj(("tables",), tables={"type": "array", "items": _ref("TableInfo")}),
                                       "the lobby, the most recently active first")},
        },
        "post": {
            "summary": "create a table; the creator sits at the first human seat",
            "operationId": "createTable",
            "requestBody": _body(_ref("CreateTable")),
            "responses": {"200": _json(_ref("Created"), "the new table and the creator's tokens"), **_ERRORS},
        },
    },
    "/api/tables/{id}": {"get": {
        "summary": "a table and the spectator's view of it",
        "operationId": "getTable",
        "parameters": _ID,
        "responses": {
            "200": _json({"allOf": [_ref("TableInfo"), _obj(snapshot=_SNAPSHOT, seq=_INT)]}, "the table"),
            **_ERRORS,
        },
    }},
    "/api/tables/{id}/join": {"post": {
        "summary": "take the first free human seat",
        "operationId": "joinTable",
        "parameters": _ID,
        "requestBody": _body(_obj(("name",), name=_NAME)),
        "responses": {
            "200": _json(_obj(("seat", "token"), seat=_STR, token=_STR, table=_ref("TableInfo")), "your seat"),
            "409": _json(_ERROR, "no free seat"),
            **_ERRORS,
        },
    }},
    "/api/tables/{id}/rematch": {"post": {
        "summary": "a new table with the same settings and people",
        "operationId": "rematch",
        "parameters": _ID,
        "requestBody": _body(_obj(token=_STR, tokens={"type": "array", "items": _STR})),
        "responses": {
            "200": _json(_obj(("table", "tokens"), table=_ref("TableInfo"), tokens=_TOKENS),
                         "the new table and your tokens"),
            "403": _json(_ERROR, "no seat token of this table"),
            **_ERRORS,
        },
    }},
    "/api/tables/{id}/record": {"get": {
        "summary": "the whole table as data (Table.to_dict() plus fair), for backgammon verify",
        "operationId": "tableRecord",
        "parameters": _ID,
        "responses": {
            "200": _json(_obj(("format", "fair"), format={"const": "backgammon-table"}, fair=_ref("Fair")),
                         "the record"),
            "409": _json(_ERROR, "the table has not started"),
            **_ERRORS,
        },
    }},
    "/api/openapi.json": {"get": {
        "summary": "this document",
        "operationId": "openapi",
        "responses": {"200": _json({"type": "object"}, "OpenAPI 3.1")},
    }},
}

_SCHEMAS: dict[str, Any] = {
    "Error": _obj(("error",), error=_STR),
    "Rules": {**_obj(
        opening_reroll=_BOOL, automatic_doubles=_BOOL, automatic_double_limit={"type": "integer", "minimum": 0},
        jacoby=_BOOL, beavers=_BOOL, backgammon_counts_as_gammon=_BOOL, cube_limit={"type": ["integer", "null"]},
        match_length=_INT,
    ), "additionalProperties": False},
    "CreateTable": _obj(
        ("kind", "name", "seats"),
        kind={"enum": ["match", "money", "chouette"]},
        length={"type": "integer", "minimum": 1, "maximum": 25, "description": "a match's length"},
        name=_NAME,
        seats={"type": "array", "minItems": 2, "maxItems": 8,
               "items": _obj(("kind",), kind={"enum": ["human", "bot"]}, bot=_STR)},
        rules=_ref("Rules"),
        same_screen=_BOOL,
    ),
    "Seat": _obj(
        ("name", "kind", "free"),
        name={"type": ["string", "null"]}, kind={"enum": ["human", "bot"]}, free=_BOOL, bot=_STR,
    ),
    "TableInfo": _obj(
        ("id", "kind", "length", "rules", "seats", "status", "created", "spectators"),
        id=_STR,
        kind={"enum": ["match", "money", "chouette"]},
        length=_INT,
        rules=_ref("Rules"),
        seats={"type": "array", "items": _ref("Seat")},
        status={"enum": ["waiting", "playing", "over"]},
        created={"type": "string", "format": "date-time"},
        spectators=_INT,
        same_screen=_BOOL,
        spectators_muted=_BOOL,
    ),
    "Created": _obj(("table", "seat", "token", "tokens"), table=_ref("TableInfo"), seat=_STR, token=_STR,
                    tokens=_TOKENS),
    "Fair": _obj(
        ("game", "commitment", "client_seeds", "revealed"),
        game=_INT,
        commitment=_STR,
        client_seeds={"type": "array", "items": _STR},
        dice={"type": "array", "items": _INT},
        revealed={"type": "array", "items": {"type": "object"}},
    ),
}

#: The HTTP API as an OpenAPI 3.1 document (``GET /api/openapi.json``).
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "backgammon serve",
        "version": f"{PROTOCOL_VERSION}",
        "description": "Tables and the lobby of the backgammon server. Play goes over the WebSocket "
        "/ws/tables/{id} and the lobby's updates over /ws/lobby (docs/PROTOCOL.md).",
        "license": {"name": "MIT", "identifier": "MIT"},
    },
    "paths": _PATHS,
    "components": {"schemas": _SCHEMAS},
}


def _merge() -> None:
    """Add the club's endpoints, each described by the module that serves it."""
    from . import accounts, analysis_api, moderation, replay, results

    for module in (accounts, results, replay, analysis_api, moderation):
        for path, operations in module.OPENAPI_PATHS.items():
            OPENAPI["paths"].setdefault(path, {}).update(operations)


_merge()
