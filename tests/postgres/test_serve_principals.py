"""``reverie serve`` over a database home: each principal is its own workspace (tenant).

The same proof as ``tests/reach/test_owners_serve.py`` on PostgreSQL: an app names Alice and
Bob in ``user``; Alice's facts, compacted and dreamt model-free in her workspace, never reach
Bob's forwarded prompt, and each principal's messages are rows of its own workspace only.
"""

from __future__ import annotations

import json
import secrets

import openai

from reverie.engine.owners import DatabaseHome, EnginePool, Openers
from reverie.serve import Gate, Upstream, create_app
from tests.llm.loopback import LoopbackServer, chat_text
from tests.reach.conftest import TOKEN
from tests.reach.running import ServedApp

ALICE_SAYS = "My name is Alice Marsh. I live at 12 Rose Street in Leeds. I prefer green tea."


def test_bob_never_gets_alices_facts_from_a_database_home(
    pg_url: str, loopback: LoopbackServer
) -> None:
    suffix = secrets.token_hex(4)
    alice, bob = f"alice-{suffix}", f"bob-{suffix}"
    home = DatabaseHome(
        pg_url, default=f"default-{suffix}", openers=Openers(environ={}, dense="off")
    )
    pool = EnginePool(home)
    upstream = Upstream(base_url=loopback.base_url, api_key=None, model="chat-model", timeout=10)
    app = create_app(pool, gate=Gate(home, TOKEN), upstream=upstream)
    loopback.script(chat_text("Noted."), chat_text("Hello Bob."))
    try:
        with (
            ServedApp(app) as served,
            openai.OpenAI(base_url=served.url + "/v1", api_key=TOKEN, max_retries=0) as client,
        ):
            client.chat.completions.create(
                model="chat-model", messages=[{"role": "user", "content": ALICE_SAYS}], user=alice
            )
            with pool.lease(alice) as engine:
                engine.compact("api:default")
                engine.dream()
                assert "Leeds" in engine.read_memory("USER")
            client.chat.completions.create(
                model="chat-model", messages=[{"role": "user", "content": "Who am I?"}], user=bob
            )
        bobs_prompt = json.dumps(loopback.bodies()[1]["messages"])
        for word in ("Alice", "Rose Street", "Leeds", "green tea"):
            assert word not in bobs_prompt
        with pool.lease(bob) as engine:
            said = [m.text for m in engine.session("api:default").messages]
        assert said == ["Who am I?", "Hello Bob."]
        assert {alice, bob} <= set(home.principals())
    finally:
        pool.close()
