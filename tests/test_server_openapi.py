"""The HTTP API's OpenAPI document (issue 11: the protocol served as OpenAPI) is a valid
OpenAPI 3.1 document, checked by an independent validator, and names every API route."""

from __future__ import annotations

from openapi_spec_validator import validate
from starlette.routing import Route

from backgammon.server.app import create_app
from backgammon.server.openapi import OPENAPI


def test_the_document_is_valid_openapi() -> None:
    validate(OPENAPI)  # raises with the first problem
    assert OPENAPI["openapi"].startswith("3.1")


def test_every_api_route_is_documented() -> None:
    app = create_app("sqlite://")
    api = {r.path for r in app.routes if isinstance(r, Route) and r.path.startswith("/api/") and r.path != "/api/openapi.json"}
    assert api and api <= set(OPENAPI["paths"]), api - set(OPENAPI["paths"])
