"""Real client behaviours through the proxy: each session grows by exactly the new messages.

The official ``openai`` SDK with its own retries (an endpoint that stalls past the client's
timeout), a nanobot-style client switching two chats on one static session header, a
LangChain-style client that re-serialises tool-call arguments, regenerate, a lone surrogate,
a whole-history resend after ``forget``, and a client that sends only the new message.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from tests.llm.loopback import LoopbackServer, ScriptedResponse, chat_text, chat_tool_calls
from tests.reach.conftest import TOKEN, Proxy, chunk, sse, start_proxy


def _ask(proxy: Proxy, messages: list[Any], session: str, **options: Any) -> str:
    reply = proxy.client().chat.completions.create(
        model="chat-model",
        messages=messages,
        extra_headers={"X-Reverie-Session": session},
        **options,
    )
    return reply.choices[0].message.content or ""


def _grows(
    proxy: Proxy, session: str, before: list[tuple[str, str]], *added: tuple[str, str]
) -> list[tuple[str, str]]:
    """Assert the session is ``before`` plus exactly ``added``; return it."""
    assert proxy.texts(session) == [*before, *added]
    return proxy.texts(session)


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


@pytest.fixture
def patient(tmp_path: Path, loopback: LoopbackServer) -> Iterator[Proxy]:
    """A proxy whose endpoint may take longer than the client waits."""
    yield from start_proxy(tmp_path, loopback, timeout=20.0)


def test_the_sdk_retrying_a_timed_out_request_gets_the_recorded_answer_once(
    patient: Proxy,
) -> None:
    slow = chat_text("It is green tea.")
    patient.upstream.script(ScriptedResponse(body=slow.body, headers=slow.headers, delay=1.6))
    client = openai.OpenAI(base_url=patient.url + "/v1", api_key=TOKEN, max_retries=3, timeout=1.0)
    patient.clients.append(client)
    messages: Any = [_user("I am Ada."), _assistant("Hello Ada."), _user("What do I drink?")]
    raw = client.chat.completions.with_raw_response.create(
        model="chat-model", messages=messages, extra_headers={"X-Reverie-Session": "sdk"}
    )
    assert raw.retries_taken >= 1
    assert raw.headers["x-reverie-replayed"] == "true"
    assert raw.parse().choices[0].message.content == "It is green tea."
    assert len(patient.upstream.requests) == 1  # the retries never reached the endpoint
    assert patient.texts("sdk") == [
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "What do I drink?"),
        ("assistant", "It is green tea."),
    ]


def test_a_streamed_sdk_retry_records_the_exchange_once(patient: Proxy) -> None:
    stream = sse(chunk({"role": "assistant", "content": "Slow."}), chunk({}, finish="stop"))
    patient.upstream.script(
        ScriptedResponse(body=stream.body, headers=stream.headers, delay=1.6),
        sse(chunk({"role": "assistant", "content": "Quick."}), chunk({}, finish="stop")),
    )
    client = openai.OpenAI(base_url=patient.url + "/v1", api_key=TOKEN, max_retries=3, timeout=1.0)
    patient.clients.append(client)
    hurry: Any = [_user("Hurry?")]
    events = client.chat.completions.create(
        model="chat-model",
        messages=hurry,
        stream=True,
        extra_headers={"X-Reverie-Session": "sdk-stream"},
    )
    got = "".join(e.choices[0].delta.content or "" for e in events if e.choices)
    # Whichever try's answer was recorded is the one the client holds, and only it: the
    # first try's when the proxy had it before it saw the client leave (then given again),
    # else the second's.
    assert patient.texts("sdk-stream") == [("user", "Hurry?"), ("assistant", got)]
    assert len(patient.upstream.requests) == {"Slow.": 1, "Quick.": 2}[got]


def test_a_nanobot_style_client_switching_two_chats_on_one_header(proxy: Proxy) -> None:
    proxy.upstream.script(*(chat_text(f"answer {n}") for n in range(6)))
    system = {"role": "system", "content": "You are nanobot."}
    chats: dict[str, list[Any]] = {"A": [], "B": []}
    held: list[tuple[str, str]] = []
    for turn, name in enumerate("ABABBA"):
        question = f"{name}: question {turn}"
        history = chats[name]
        answer = _ask(proxy, [system, *history, _user(question)], "nanobot")
        history += [_user(question), _assistant(answer)]
        held = _grows(proxy, "nanobot", held, ("user", question), ("assistant", answer))
    assert len(held) == 12


def test_a_langchain_style_client_reserialising_tool_arguments(proxy: Proxy) -> None:
    proxy.upstream.script(
        chat_tool_calls([("call_1", "weather", '{"city": "Paris", "unit": "C"}')]),
        chat_text("Sunny in Paris."),
        chat_tool_calls([("call_2", "weather", '{"city": "Rome", "unit": "C"}')]),
        chat_text("Rainy in Rome."),
    )
    tools: Any = [{"type": "function", "function": {"name": "weather", "parameters": {}}}]
    history: list[Any] = []
    held: list[tuple[str, str]] = []
    for number, (city, said) in enumerate(
        [("Paris", "Sunny in Paris."), ("Rome", "Rainy in Rome.")]
    ):
        question = _user(f"Weather in {city}?")
        asked: Any = [*history, question]
        reply = proxy.client().chat.completions.create(
            model="chat-model",
            messages=asked,
            tools=tools,
            extra_headers={"X-Reverie-Session": "lc"},
        )
        (call,) = reply.choices[0].message.tool_calls or []
        assert call.type == "function"
        # LangChain parses the arguments and serialises them again its own way.
        arguments = json.dumps(json.loads(call.function.arguments), separators=(",", ":"))
        calling = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": "weather", "arguments": arguments},
                }
            ],
        }
        held = _grows(proxy, "lc", held, ("user", f"Weather in {city}?"), ("assistant", ""))
        result = {"role": "tool", "tool_call_id": f"call_{number + 1}", "content": "24 C"}
        answer = _ask(proxy, [*history, question, calling, result], "lc", tools=tools)
        assert answer == said
        held = _grows(proxy, "lc", held, ("tool", "24 C"), ("assistant", said))
        history += [question, calling, result, _assistant(answer)]
    assert len(held) == 8


def test_regenerate_records_the_question_again_and_the_new_answer(proxy: Proxy) -> None:
    proxy.upstream.script(*(chat_text(t) for t in ["Hello.", "Green.", "Black.", "Yes."]))
    _ask(proxy, [_user("Hi.")], "regen")
    first = [_user("Hi."), _assistant("Hello."), _user("Tea?")]
    _ask(proxy, first, "regen")
    held = proxy.texts("regen")
    assert len(held) == 4
    assert _ask(proxy, first, "regen") == "Black."  # the client's "regenerate"
    held = _grows(proxy, "regen", held, ("user", "Tea?"), ("assistant", "Black."))
    _ask(proxy, [*first, _assistant("Black."), _user("Milk?")], "regen")
    _grows(proxy, "regen", held, ("user", "Milk?"), ("assistant", "Yes."))


def _post_escaped(proxy: Proxy, messages: list[Any], session: str) -> str:
    """POST as a JavaScript client does: ``JSON.stringify`` escapes a lone surrogate."""
    body = json.dumps({"model": "chat-model", "messages": messages}).encode()  # ASCII escapes
    assert b"\\ud83d" in body
    response = httpx2.post(
        proxy.url + "/v1/chat/completions",
        content=body,
        headers={
            "Authorization": f"Bearer {TOKEN}",
            "Content-Type": "application/json",
            "X-Reverie-Session": session,
        },
    )
    assert response.status_code == 200, response.text
    return str(response.json()["choices"][0]["message"]["content"])


def test_a_lone_surrogate_cleaned_on_the_way_in_still_matches(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Half an emoji."), chat_text("Noted."))
    broken = _user("caf\ud83d")
    _post_escaped(proxy, [broken], "surrogate")
    held = _grows(proxy, "surrogate", [], ("user", "caf\ufffd"), ("assistant", "Half an emoji."))
    _post_escaped(proxy, [broken, _assistant("Half an emoji."), _user("and?")], "surrogate")
    _grows(proxy, "surrogate", held, ("user", "and?"), ("assistant", "Noted."))


def test_a_whole_history_resend_after_forget_does_not_bring_the_text_back(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Noted: 12 Rose Street."), chat_text("Sure."))
    said = [_user("I live at 12 Rose Street."), _assistant("Noted: 12 Rose Street.")]
    _ask(proxy, said[:1], "forgetful")
    with proxy.lease() as engine:
        assert engine.forget("Rose Street").removed
    held = proxy.texts("forgetful")
    assert [role for role, _text in held] == ["user", "assistant"]
    assert not any("Rose" in text for _role, text in held)
    _ask(proxy, [*said, _user("What is new?")], "forgetful")
    after = _grows(proxy, "forgetful", held, ("user", "What is new?"), ("assistant", "Sure."))
    assert not any("Rose" in text for _role, text in after)


def test_a_client_sending_only_the_new_message_records_a_repeated_one(proxy: Proxy) -> None:
    proxy.upstream.script(chat_text("Shall I?"), chat_text("Done."), chat_text("Again."))
    held: list[tuple[str, str]] = []
    for text, answer in [("ok", "Shall I?"), ("yes", "Done."), ("ok", "Again.")]:
        _ask(proxy, [_user(text)], "single")
        held = _grows(proxy, "single", held, ("user", text), ("assistant", answer))
    assert len(held) == 6
