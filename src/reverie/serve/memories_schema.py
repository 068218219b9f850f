"""The OpenAPI 3.1 schema of ``/v1/memories``, served at ``GET /v1/memories/openapi.json``.

Written by hand beside the routes (``memories``); a test reads every path and method of it
and asks the running server each one, so a route in the schema that the server lacks fails.
No I/O: ``schema()`` returns a fresh dict.
"""

from __future__ import annotations

from reverie.core.messages import JSONObject

SCHEMA_PATH = "/v1/memories/openapi.json"
_ERROR: JSONObject = {"$ref": "#/components/schemas/Error"}


def _ok(description: str, ref: str) -> JSONObject:
    return {
        "200": {
            "description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
        },
        "400": {
            "description": "A bad request",
            "content": {"application/json": {"schema": _ERROR}},
        },
        "401": {
            "description": "No live bearer token",
            "content": {"application/json": {"schema": _ERROR}},
        },
        "403": {
            "description": "The token may not reach this principal",
            "content": {"application/json": {"schema": _ERROR}},
        },
    }


def _body(ref: str) -> JSONObject:
    return {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
    }


_PRINCIPAL: JSONObject = {
    "name": "X-Reverie-Principal",
    "in": "header",
    "required": False,
    "description": "The principal an app or admin token acts for (a principal token needs none).",
    "schema": {"type": "string"},
}

_COMPONENTS: JSONObject = {
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    "schemas": {
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "properties": {
                        "message": {"type": "string"},
                        "type": {"type": "string"},
                        "param": {"type": ["string", "null"]},
                        "code": {"type": ["string", "null"]},
                    },
                }
            },
        },
        "Why": {
            "type": "object",
            "properties": {
                "origin": {"enum": ["dream", "hand"]},
                "first_written": {"type": ["string", "null"], "format": "date-time"},
                "last_written": {"type": ["string", "null"], "format": "date-time"},
                "entries": {"type": "array", "items": {"type": "object"}},
            },
        },
        "Line": {
            "type": "object",
            "required": ["id", "file", "line", "text", "why"],
            "properties": {
                "id": {"type": "string", "pattern": "^[0-9a-f]{12}$"},
                "file": {"type": "string"},
                "line": {"type": "integer"},
                "text": {"type": "string"},
                "why": {"$ref": "#/components/schemas/Why"},
            },
        },
        "Lines": {
            "type": "object",
            "properties": {
                "lines": {"type": "array", "items": {"$ref": "#/components/schemas/Line"}}
            },
        },
        "File": {
            "type": "object",
            "properties": {"file": {"type": "string"}, "text": {"type": "string"}},
        },
        "Hits": {
            "type": "object",
            "properties": {"hits": {"type": "array", "items": {"type": "object"}}},
        },
        "Remember": {
            "type": "object",
            "required": ["text"],
            "properties": {
                "text": {"type": "string", "minLength": 1},
                "session": {"type": "string"},
            },
        },
        "Remembered": {
            "type": "object",
            "properties": {
                "session": {"type": "string"},
                "result": {"type": "object"},
                "lines": {"type": "array", "items": {"$ref": "#/components/schemas/Line"}},
            },
        },
        "Forget": {
            "type": "object",
            "required": ["text"],
            "properties": {
                "text": {"type": "string", "minLength": 2},
                "purge": {"type": "boolean", "default": False},
            },
        },
        "Forgotten": {
            "type": "object",
            "description": "What was removed (reverie forget --json's report).",
        },
    },
}


def schema() -> JSONObject:
    """The whole OpenAPI document."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "reverie memories API", "version": "1"},
        "security": [{"bearer": []}],
        "paths": {**_read_paths(), **_write_paths()},
        "components": _COMPONENTS,
    }


def _param(name: str, where: str, kind: JSONObject, *, required: bool = False) -> JSONObject:
    return {"name": name, "in": where, "required": required, "schema": kind}


def _read_paths() -> JSONObject:
    files: JSONObject = {"enum": ["SOUL.md", "USER.md", "MEMORY.md"]}
    limit: JSONObject = {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
    return {
        SCHEMA_PATH: {
            "get": {
                "summary": "This schema",
                "responses": {"200": {"description": "The OpenAPI document"}},
            }
        },
        "/v1/memories/lines": {
            "get": {
                "summary": "Every durable line with its id and why",
                "parameters": [_PRINCIPAL],
                "responses": _ok("The lines", "Lines"),
            }
        },
        "/v1/memories/files/{file}": {
            "get": {
                "summary": "One durable file",
                "parameters": [_PRINCIPAL, _param("file", "path", files, required=True)],
                "responses": _ok("The file", "File"),
            }
        },
        "/v1/memories/search": {
            "get": {
                "summary": "Search history entries and session messages",
                "parameters": [
                    _PRINCIPAL,
                    _param("q", "query", {"type": "string"}, required=True),
                    _param("limit", "query", limit),
                    _param("session", "query", {"type": "string"}),
                ],
                "responses": _ok("Hits, best first", "Hits"),
            }
        },
    }


def _write_paths() -> JSONObject:
    line_id: JSONObject = {"type": "string", "pattern": "^[0-9a-f]{12}$"}
    return {
        "/v1/memories": {
            "post": {
                "summary": "Remember a fact now (record, compact, dream)",
                "parameters": [_PRINCIPAL],
                "requestBody": _body("Remember"),
                "responses": _ok("What was kept", "Remembered"),
            }
        },
        "/v1/memories/forget": {
            "post": {
                "summary": "Forget a fact (a text too broad to be one fact is refused)",
                "parameters": [_PRINCIPAL],
                "requestBody": _body("Forget"),
                "responses": _ok("What was removed", "Forgotten"),
            }
        },
        "/v1/memories/lines/{id}": {
            "delete": {
                "summary": "Forget the line with this id (and what it came from)",
                "parameters": [_PRINCIPAL, _param("id", "path", line_id, required=True)],
                "responses": _ok("What was removed", "Forgotten"),
            }
        },
    }
