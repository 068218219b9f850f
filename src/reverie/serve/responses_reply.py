"""The endpoint's chat-completions answer, as a Responses API ``response`` and its events.

``response_object`` builds the ``response`` object the official SDK parses: ``output`` holds
one ``message`` item (an ``output_text`` part) when the answer has text and one
``function_call`` item per tool call (its ``call_id`` is the chat tool call's id, so the
client's ``function_call_output`` reconciles with the recorded call), ``usage`` in the
Responses names, ``status`` ``incomplete`` when the endpoint stopped at its length limit.
``events`` is the same answer as the server-sent events of a streamed response, in the order
the SDK's stream reader expects: ``response.created``, ``response.in_progress``, per item
``response.output_item.added`` then its text (``content_part.added``, ``output_text.delta``,
``output_text.done``, ``content_part.done``) or arguments (``function_call_arguments.delta``,
``.done``), ``response.output_item.done``, and ``response.completed`` with the whole object;
every event carries its ``sequence_number``. ``events`` gives a recorded answer again (a
retry); a live stream is ``responses_stream``, which shares ``item_events``. No I/O here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from reverie.core.messages import JSONObject, JSONValue, Message


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """What the endpoint answered, as the proxy records it, with its usage and finish."""

    message: Message
    finish: str = "stop"
    input_tokens: int = 0
    output_tokens: int = 0


def answer_of(completion: JSONValue, message: Message) -> Answer:
    """The ``Answer`` of a parsed chat completion whose recorded message is ``message``."""
    finish, usage = "stop", {}
    if isinstance(completion, dict):
        choices = completion.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            reason = choices[0].get("finish_reason")
            finish = reason if isinstance(reason, str) else "stop"
        found = completion.get("usage")
        usage = found if isinstance(found, dict) else {}
    prompt, done = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return Answer(
        message=message,
        finish=finish,
        input_tokens=prompt if isinstance(prompt, int) else 0,
        output_tokens=done if isinstance(done, int) else 0,
    )


def output_items(answer: Answer, response_id: str) -> list[JSONValue]:
    """The ``output`` items of the answer."""
    items: list[JSONValue] = []
    message = answer.message
    if message.text or not message.tool_calls:
        part: JSONObject = {
            "type": "output_text",
            "text": message.text,
            "annotations": [],
            "logprobs": [],
        }
        items.append(
            {
                "type": "message",
                "id": f"msg_{response_id[5:]}",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for index, call in enumerate(message.tool_calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{response_id[5:]}_{index}",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "status": "completed",
            }
        )
    return items


def response_object(
    answer: Answer | None, *, response_id: str, created: int, request: JSONObject, model: str
) -> JSONObject:
    """The ``response`` object (``answer`` None: one still in progress, no output yet)."""
    incomplete = answer is not None and answer.finish == "length"
    status = "in_progress" if answer is None else "incomplete" if incomplete else "completed"
    found: JSONObject = {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "model": model,
        "output": [] if answer is None else output_items(answer, response_id),
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "instructions": request.get("instructions"),
        "metadata": request.get("metadata") if isinstance(request.get("metadata"), dict) else {},
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "temperature": request.get("temperature"),
        "top_p": request.get("top_p"),
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools") if isinstance(request.get("tools"), list) else [],
        "previous_response_id": request.get("previous_response_id"),
        "max_output_tokens": request.get("max_output_tokens"),
        "text": {"format": {"type": "text"}},
        "truncation": "disabled",
        "usage": None if answer is None else _usage(answer),
    }
    if "conversation" in request:
        found["conversation"] = request["conversation"]
    return found


def _usage(answer: Answer) -> JSONObject:
    return {
        "input_tokens": answer.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": answer.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": answer.input_tokens + answer.output_tokens,
    }


def events(whole: JSONObject, started: JSONObject) -> bytes:
    """The server-sent events of ``whole`` (``started``: the same response, in progress)."""
    said: list[JSONObject] = [
        {"type": "response.created", "response": started},
        {"type": "response.in_progress", "response": started},
    ]
    output = whole.get("output")
    for index, item in enumerate(output if isinstance(output, list) else []):
        if isinstance(item, dict):
            said += item_events(item, index)
    said.append({"type": f"response.{whole['status']}", "response": whole})
    body = b""
    for number, event in enumerate(said):
        event["sequence_number"] = number
        body += (
            f"event: {event['type']}\n".encode() + b"data: " + json.dumps(event).encode() + b"\n\n"
        )
    return body


def item_events(item: JSONObject, index: int) -> list[JSONObject]:
    """The events of one whole output item at ``output_index`` ``index``, opened and done."""
    item_id = item["id"]
    if item["type"] == "function_call":
        opened = {**item, "arguments": "", "status": "in_progress"}
        arguments = item["arguments"]
        return [
            {"type": "response.output_item.added", "output_index": index, "item": opened},
            {
                "type": "response.function_call_arguments.delta",
                "item_id": item_id,
                "output_index": index,
                "delta": arguments,
            },
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": index,
                "arguments": arguments,
                "name": item["name"],
            },
            {"type": "response.output_item.done", "output_index": index, "item": item},
        ]
    content = item["content"]
    part = content[0] if isinstance(content, list) and content else {}
    text = part.get("text", "") if isinstance(part, dict) else ""
    where: JSONObject = {"item_id": item_id, "output_index": index, "content_index": 0}
    empty: JSONObject = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    return [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "content": [], "status": "in_progress"},
        },
        {"type": "response.content_part.added", **where, "part": empty},
        {"type": "response.output_text.delta", **where, "delta": text, "logprobs": []},
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": part},
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]
