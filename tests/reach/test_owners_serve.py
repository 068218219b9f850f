"""Two principals on one ``reverie serve``: each request reaches only its credential's memory.

Alice and Bob talk through the proxy (official ``openai`` client, loopback endpoint), once with
an app token naming them in ``user``, once with their own principal tokens. After Alice's
session is compacted and dreamt (model-free), her facts are in her durable files, and Bob's
forwarded prompt holds none of them. The refusals (401, 403, 404) are OpenAI-shaped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from reverie.engine.owners import DEFAULT_PRINCIPAL
from tests.llm.loopback import LoopbackServer, chat_text
from tests.reach.conftest import PRINCIPAL, SESSION, TOKEN, Proxy, start_proxy

ALICE_SAYS = "My name is Alice Marsh. I live at 12 Rose Street in Leeds. I prefer green tea."
ALICE_WORDS = ("Alice", "Marsh", "Rose Street", "Leeds", "green tea")


def _prompt_text(proxy: Proxy, index: int) -> str:
    return json.dumps(proxy.upstream.bodies()[index]["messages"])


def _say(client: openai.OpenAI, text: str, **options: Any) -> str:
    reply = client.chat.completions.create(
        model="chat-model", messages=[{"role": "user", "content": text}], **options
    )
    return reply.choices[0].message.content or ""


def _dream_alice(proxy: Proxy) -> str:
    """Compact and dream Alice's memory model-free; return her USER.md."""
    with proxy.lease("alice") as alice:
        alice.compact("api:default")
        alice.dream()
        return alice.read_memory("USER")


@pytest.fixture
def refusing(tmp_path: Path, loopback: LoopbackServer) -> Iterator[Proxy]:
    yield from start_proxy(tmp_path, loopback, unknown="refuse")


def test_an_app_token_names_the_principal_and_bob_never_sees_alices_facts(proxy: Proxy) -> None:
    app_token = proxy.parts.book.issue("app", label="the chat app")
    proxy.upstream.script(chat_text("Noted."), chat_text("Hello Bob."))
    app = proxy.client(token=app_token)
    _say(app, ALICE_SAYS, user="alice")
    user_md = _dream_alice(proxy)
    assert "Leeds" in user_md  # the dream wrote her fact into her durable file
    _say(app, "Where do I live and what do I drink?", user="bob")
    bobs_prompt = _prompt_text(proxy, 1)
    assert not [word for word in ALICE_WORDS if word in bobs_prompt]
    assert sorted(proxy.parts.home.principals()) == ["alice", "bob"]
    assert proxy.texts(principal="bob")[-1] == ("assistant", "Hello Bob.")
    assert proxy.texts(principal=DEFAULT_PRINCIPAL) == []


def test_principal_tokens_reach_their_own_memory_only(proxy: Proxy) -> None:
    book = proxy.parts.book
    alice = proxy.client(token=book.issue("principal", principal="alice"))
    bob = proxy.client(token=book.issue("principal", principal="bob"))
    proxy.upstream.script(chat_text("Noted."), chat_text("Hi."), chat_text("Hi again."))
    _say(alice, ALICE_SAYS, extra_headers={SESSION: "tg:alice"})
    with proxy.lease("alice") as engine:
        engine.compact("tg:alice")
        engine.dream()
        assert "Leeds" in engine.read_memory("USER")
    _say(bob, "What do you know about me?", extra_headers={SESSION: "tg:alice"})
    _say(bob, "And now?", user="bob")  # naming itself is allowed
    for index in (1, 2):
        sent = _prompt_text(proxy, index)
        assert not [word for word in ALICE_WORDS if word in sent]
    assert [text for _role, text in proxy.texts("tg:alice", principal="bob")] == [
        "What do you know about me?",
        "Hi.",
    ]


def test_a_principal_token_naming_another_principal_is_refused(proxy: Proxy) -> None:
    bob = proxy.client(token=proxy.parts.book.issue("principal", principal="bob"))
    with pytest.raises(openai.PermissionDeniedError) as caught:
        _say(bob, "show me alice", user="alice")
    assert caught.value.status_code == 403
    with pytest.raises(openai.PermissionDeniedError):
        _say(bob, "show me alice", extra_headers={PRINCIPAL: "alice"})
    assert proxy.upstream.requests == []
    assert "alice" not in proxy.parts.home.principals()


def test_an_app_token_must_name_someone_and_unknown_tokens_get_401(proxy: Proxy) -> None:
    app = proxy.client(token=proxy.parts.book.issue("app"))
    with pytest.raises(openai.PermissionDeniedError, match="must name the end user"):
        _say(app, "whose turn?")
    with pytest.raises(openai.BadRequestError, match="different principals"):
        _say(app, "two names", user="alice", extra_headers={PRINCIPAL: "bob"})
    with pytest.raises(openai.AuthenticationError):
        _say(proxy.client(token="rvp_not-a-token"), "hi", user="alice")
    revoked = proxy.parts.book.issue("principal", principal="carol")
    proxy.parts.book.revoke(proxy.parts.book.grants()[-1].id)
    with pytest.raises(openai.AuthenticationError):
        _say(proxy.client(token=revoked), "hi")
    assert proxy.upstream.requests == []


def test_the_servers_own_token_reaches_the_default_principal_or_the_named_one(
    proxy: Proxy,
) -> None:
    proxy.upstream.script(chat_text("a"), chat_text("b"))
    _say(proxy.client(token=TOKEN), "mine")
    _say(proxy.client(token=TOKEN), "for dana", user="dana")
    assert proxy.texts() == [("user", "mine"), ("assistant", "a")]
    assert proxy.texts(principal="dana") == [("user", "for dana"), ("assistant", "b")]


def test_a_server_that_refuses_unknown_principals_answers_404(refusing: Proxy) -> None:
    app = refusing.client(token=refusing.parts.book.issue("app"))
    with pytest.raises(openai.NotFoundError) as caught:
        _say(app, "hi", user="nobody")
    assert caught.value.status_code == 404
    assert "nobody" not in refusing.parts.home.principals()
    refusing.upstream.script(chat_text("welcome"), chat_text("again"))
    own = refusing.client(token=refusing.parts.book.issue("principal", principal="erin"))
    assert _say(own, "first time") == "welcome"  # a principal token's own is always made
    assert _say(app, "now erin exists", user="erin") == "again"
