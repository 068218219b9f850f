"""The memories API of ``reverie serve`` over real HTTP: list, read, search, remember, forget.

A principal token reaches only its own principal's memories (its lines, files, searches and
forgets), the broad-match refusal of ``forget`` holds, and the OpenAPI schema served at
``/v1/memories/openapi.json`` parses, and every path and method in it exists and answers.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from reverie.engine.owners import DEFAULT_PRINCIPAL
from tests.reach.conftest import TOKEN, Proxy

API = "/v1/memories"


def _call(proxy: Proxy, method: str, path: str, token: str = TOKEN, **options: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}", **options.pop("headers", {})}
    return httpx2.request(method, proxy.url + path, headers=headers, timeout=30, **options)


def test_remember_then_list_read_search_and_forget(proxy: Proxy) -> None:
    kept = _call(proxy, "POST", API, json={"text": "I live in Porto and drink green tea"})
    assert kept.status_code == 200
    lines = _call(proxy, "GET", API + "/lines").json()["lines"]
    porto = next(line for line in lines if "Porto" in line["text"])
    assert porto["file"] == "USER.md"
    assert len(porto["id"]) == 12
    assert porto["why"]["origin"] == "dream"
    cited = porto["why"]["entries"][0]["messages"][0]
    assert cited["text"] == "I live in Porto and drink green tea"
    user = _call(proxy, "GET", API + "/files/USER.md").json()
    assert "Lives in Porto" in user["text"]
    hits = _call(proxy, "GET", API + "/search", params={"q": "Porto"}).json()["hits"]
    assert hits
    assert "Porto" in hits[0]["snippet"]
    gone = _call(proxy, "DELETE", API + "/lines/" + porto["id"])
    assert gone.status_code == 200
    after = _call(proxy, "GET", API + "/files/USER.md").json()["text"]
    assert "Porto" not in after
    assert "green tea" in after


def test_forget_keeps_the_broad_match_refusal(proxy: Proxy) -> None:
    _call(proxy, "POST", API, json={"text": "I live in Porto and drink green tea"})
    refused = _call(proxy, "POST", API + "/forget", json={"text": "in"})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] in ("too_broad", "invalid_input")
    assert "Porto" in _call(proxy, "GET", API + "/files/USER.md").json()["text"]
    done = _call(proxy, "POST", API + "/forget", json={"text": "green tea"})
    assert done.status_code == 200
    assert "green tea" not in _call(proxy, "GET", API + "/files/USER.md").json()["text"]


def test_a_principal_token_reaches_only_its_own_memories(proxy: Proxy) -> None:
    _call(proxy, "POST", API, json={"text": "I live in Porto and drink green tea"})
    lines = _call(proxy, "GET", API + "/lines").json()["lines"]
    porto = next(line for line in lines if "Porto" in line["text"])
    bob = proxy.parts.book.issue("principal", principal="bob")
    assert "Porto" not in _call(proxy, "GET", API + "/lines", bob).text
    assert "Porto" not in _call(proxy, "GET", API + "/files/USER.md", bob).text
    assert _call(proxy, "GET", API + "/search", bob, params={"q": "Porto"}).json()["hits"] == []
    assert _call(proxy, "DELETE", API + "/lines/" + porto["id"], bob).status_code == 404
    named = _call(proxy, "GET", API + "/lines", bob, headers={"X-Reverie-Principal": "default"})
    assert named.status_code == 403
    assert "Porto" not in named.text
    with proxy.lease(DEFAULT_PRINCIPAL) as engine:
        assert "Porto" in engine.read_memory("USER")


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", API + "/files/SECRET.md", None, 404),
        ("GET", API + "/search", None, 400),
        ("POST", API, {"text": ""}, 400),
        ("POST", API, {"text": "x", "session": "dream:x"}, 400),
        ("POST", API + "/forget", {"text": "tea", "purge": "yes"}, 400),
        ("DELETE", API + "/lines/000000000000", None, 404),
    ],
)
def test_bad_requests_are_openai_shaped(
    proxy: Proxy, method: str, path: str, body: Any, status: int
) -> None:
    answer = (
        _call(proxy, method, path, json=body) if body is not None else _call(proxy, method, path)
    )
    assert answer.status_code == status
    assert set(answer.json()["error"]) == {"message", "type", "param", "code"}


def test_no_token_no_memories(proxy: Proxy) -> None:
    answer = httpx2.get(proxy.url + API + "/lines")
    assert answer.status_code == 401
    assert answer.json()["error"]["type"] == "authentication_error"


def test_the_openapi_schema_parses_and_every_route_in_it_answers(proxy: Proxy) -> None:
    schema = _call(proxy, "GET", API + "/openapi.json").json()
    assert schema["openapi"].startswith("3.1")
    samples: dict[str, Any] = {
        API: {"text": "I drink green tea"},
        API + "/forget": {"text": "green tea"},
    }
    for path, operations in schema["paths"].items():
        for method in operations:
            concrete = path.replace("{file}", "USER.md").replace("{id}", "000000000000")
            body = samples.get(path)
            params = {"q": "tea"} if path.endswith("/search") else None
            answer = _call(proxy, method.upper(), concrete, json=body, params=params)
            assert answer.status_code in (200, 404), (method, path, answer.text)
            assert answer.headers["content-type"].startswith("application/json")
            if answer.status_code == 404:  # only the made-up line id is unknown
                assert answer.json()["error"]["code"] == "unknown_line"
    _check_refs(schema, schema)


def _check_refs(node: Any, schema: Any) -> None:
    """Every ``$ref`` of the schema points at a component it defines."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.removeprefix("#/components/schemas/")
            assert name in schema["components"]["schemas"], ref
        for value in node.values():
            _check_refs(value, schema)
    elif isinstance(node, list):
        for value in node:
            _check_refs(value, schema)
