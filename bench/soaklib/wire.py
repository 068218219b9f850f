"""The chat-completions wire form of the soak model's answers, priced like a real endpoint.

``render`` turns a ``Completion`` into a response body. Like a real model it honours the
request's ``max_tokens``: a longer answer is cut to fit and marked ``length``. It reports
usage no larger than what the client itself counts: prompt tokens are only the texts and
tool-call arguments of the messages (the client adds per-message overhead and the tool
schemas), completion tokens are counted with the client's own counter. So a dream run that
respects its budget by the client's count also does by the ledger's. No I/O here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

from reverie.core.messages import JSONObject
from reverie.core.token_estimate import TokenCounter

Call = tuple[str, str, str]
"""(id, tool name, arguments as JSON text)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """One HTTP answer: status, body, headers, a delay before it, and the fault it carries."""

    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "application/json"),)
    delay: float = 0.0
    fault: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Completion:
    """What the model says: text, tool calls and the finish reason."""

    text: str | None = None
    calls: tuple[Call, ...] = ()
    finish: str = "stop"


def text_of(message: JSONObject) -> str:
    """A message's text content ("" when it has none)."""
    content = message.get("content")
    return content if isinstance(content, str) else ""


def render(
    body: JSONObject,
    messages: list[JSONObject],
    completion: Completion,
    counter: TokenCounter,
    *,
    fault: str | None,
) -> Answer:
    """The 200 answer carrying ``completion`` to the request ``body``."""
    cap = body.get("max_tokens") or body.get("max_completion_tokens")
    if isinstance(cap, int) and output_tokens(completion, counter) > cap:
        completion = cut(completion, cap, counter)
    message: JSONObject = {"role": "assistant", "content": completion.text}
    if completion.calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in completion.calls
        ]
    finish = "tool_calls" if completion.calls else completion.finish
    prompt = prompt_tokens(messages, counter)
    output = output_tokens(completion, counter)
    reply = {
        "id": "chatcmpl-soak",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "soak-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": output,
            "total_tokens": prompt + output,
        },
    }
    return Answer(body=json.dumps(reply).encode(), fault=fault)


def output_tokens(completion: Completion, counter: TokenCounter) -> int:
    """The completion's tokens, counted as the client counts a reply."""
    count = counter.text
    return count(completion.text or "") + sum(
        count(name) + count(arguments) for _id, name, arguments in completion.calls
    )


def prompt_tokens(messages: list[JSONObject], counter: TokenCounter) -> int:
    """Texts and tool-call arguments only: never more than the client's own count."""
    total = 0
    for message in messages:
        total += counter.text(text_of(message))
        for call in cast("list[JSONObject]", message.get("tool_calls") or []):
            function = cast("JSONObject", call.get("function") or {})
            total += counter.text(str(function.get("arguments") or ""))
    return total


def cut(completion: Completion, cap: int, counter: TokenCounter) -> Completion:
    """The completion cut to at most ``cap`` tokens of text, marked ``length``."""
    words = (completion.text or "I will now edit the memory files as follows").split()
    while words and counter.text(" ".join(words)) > cap:
        words.pop()
    return Completion(text=" ".join(words), finish="length")
