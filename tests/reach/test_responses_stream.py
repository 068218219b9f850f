"""A streamed Responses answer is relayed as the endpoint streams it, and cut off cleanly.

The endpoint (``SlowStreamServer``) sends its first text and then waits: the client already
holds a ``response.output_text.delta`` with that text. The client then goes away: nothing of
the exchange is recorded, the conversation's lease is free, and the next request of the same
session runs at once.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx2
import openai

from reverie.serve import Upstream, create_app
from tests.reach.conftest import TOKEN, new_home
from tests.reach.running import ServedApp
from tests.reach.slow_stream import SlowStreamServer


def test_the_first_text_arrives_before_the_end_and_a_cut_stream_records_nothing(
    tmp_path: Path,
) -> None:
    slow = SlowStreamServer()
    parts = new_home(tmp_path)
    upstream = Upstream(base_url=slow.base_url, api_key=None, model="chat-model", timeout=10)
    app = create_app(parts.pool, gate=parts.gate, upstream=upstream)
    try:
        with ServedApp(app) as served:
            headers = {"Authorization": f"Bearer {TOKEN}", "X-Reverie-Session": "s"}
            body = {"model": "chat-model", "stream": True, "input": "tell me a long story"}
            said = b""
            with httpx2.stream(
                "POST", served.url + "/v1/responses", json=body, headers=headers
            ) as response:
                for piece in response.iter_raw():
                    said += piece
                    if b"response.output_text.delta" in said:
                        break
            deltas = [
                json.loads(line[5:])
                for line in said.split(b"\n")
                if line.startswith(b"data:") and b"output_text.delta" in line
            ]
            assert deltas[0]["delta"] == "partial "
            slow.release.set()  # the endpoint finishes; nobody is there to get it
            assert slow.first_done.wait(10)
            deadline = time.monotonic() + 5
            while app.state.proxy.leases.active() and time.monotonic() < deadline:
                time.sleep(0.01)
            with parts.lease() as engine:
                assert engine.session("s").messages == ()
            with openai.OpenAI(base_url=served.url + "/v1", api_key=TOKEN, max_retries=0) as client:
                again = client.responses.create(
                    model="chat-model", input="short one", extra_headers={"X-Reverie-Session": "s"}
                )
            assert again.output_text == "quick"
            assert app.state.proxy.leases.active() == 0
    finally:
        slow.close()
        parts.pool.close()
