"""The chat-completions wire format: reverie values to request JSON, reply JSON to values.

Owns the mapping both ways for every OpenAI-compatible endpoint (OpenAI, OpenRouter, DeepSeek,
vLLM, llama.cpp, LM Studio, Ollama), including their small deviations: tool-call arguments
sent as objects, missing tool-call ids, ``finish_reason`` "stop" next to tool calls, errors
returned in a 200 body. Pure functions: no SDK, no I/O.

Invariants: only fields the protocol defines leave reverie (timestamps and ``extra`` stay home);
a reply that cannot be read raises ``MalformedReplyError`` naming what was wrong, never a
``KeyError`` or ``TypeError``.
"""

from __future__ import annotations

import json
from typing import cast

from reverie.core.messages import JSONObject, JSONValue, Message, MessageFormatError, ToolCall
from reverie.errors import MalformedReplyError, ModelHTTPError
from reverie.llm.failures import http_failure
from reverie.llm.provider import ChatReply, FinishReason, Usage

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "eos": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


def wire_message(message: Message) -> JSONObject:
    """Return ``message`` as a chat-completions message object (protocol fields only)."""
    obj: JSONObject = {"role": message.role}
    if isinstance(message.content, tuple):
        obj["content"] = [dict(part) for part in message.content]
    else:
        obj["content"] = message.content
    if message.tool_calls:
        obj["tool_calls"] = [call.to_json() for call in message.tool_calls]
    if message.tool_call_id is not None:
        obj["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        obj["name"] = message.name
    return obj


def parse_reply(raw: bytes) -> ChatReply:
    """Parse a chat-completions response body into a ``ChatReply``.

    Raises:
        MalformedReplyError: the body is not JSON or lacks a usable first choice.
        ModelHTTPError: the body is an error object despite a success status.
    """
    body = _load_object(raw)
    if "choices" not in body and isinstance(body.get("error"), dict):
        raise _error_in_body(body, raw)
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedReplyError(f"reply has no choices: {_excerpt(raw)}")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise MalformedReplyError(f"reply choice has no message object: {_excerpt(raw)}")
    calls = _tool_calls(message.get("tool_calls"))
    model = body.get("model")
    return ChatReply(
        text=_content_text(message.get("content")),
        tool_calls=calls,
        finish_reason=_finish_reason(choice.get("finish_reason"), has_calls=bool(calls)),
        usage=_usage(body.get("usage")),
        model=model if isinstance(model, str) else "",
    )


def _load_object(raw: bytes) -> JSONObject:
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedReplyError(f"reply is not JSON: {_excerpt(raw)}") from exc
    if not isinstance(body, dict):
        raise MalformedReplyError(f"reply is not a JSON object: {_excerpt(raw)}")
    return cast("JSONObject", body)


def _error_in_body(body: JSONObject, raw: bytes) -> ModelHTTPError:
    error = cast("JSONObject", body["error"])
    code, message = error.get("code"), error.get("message")
    status = code if isinstance(code, int) and 400 <= code <= 599 else 500
    text = raw.decode("utf-8", errors="replace")
    return http_failure(status, text, message=message if isinstance(message, str) else "")


def _content_text(content: JSONValue) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        return "".join(text for text in texts if isinstance(text, str))
    raise MalformedReplyError(f"reply content has an unexpected type: {type(content).__name__}")


def _tool_calls(raw_calls: JSONValue) -> tuple[ToolCall, ...]:
    if raw_calls is None:
        return ()
    if not isinstance(raw_calls, list):
        raise MalformedReplyError("reply 'tool_calls' is not a list")
    calls: list[ToolCall] = []
    for index, raw in enumerate(raw_calls):
        obj = raw
        if isinstance(raw, dict) and not raw.get("id"):
            obj = {**raw, "id": f"call_{index}"}  # some local servers omit ids
        try:
            calls.append(ToolCall.from_json(obj))
        except MessageFormatError as exc:
            raise MalformedReplyError(f"reply tool call {index} is malformed: {exc}") from exc
    return tuple(calls)


def _finish_reason(raw: JSONValue, *, has_calls: bool) -> FinishReason:
    if raw is None:
        return "tool_calls" if has_calls else "stop"
    reason = _FINISH.get(str(raw), "other")
    # Ollama and some llama.cpp builds report "stop" for a turn that calls tools.
    if reason == "stop" and has_calls:
        return "tool_calls"
    return reason


def _usage(raw: JSONValue) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Usage(prompt_tokens=prompt, completion_tokens=completion)


def _excerpt(raw: bytes, limit: int = 200) -> str:
    text = raw.decode("utf-8", errors="replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")
