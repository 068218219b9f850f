"""A client's Responses API request, parsed into the proxy's ``ChatCall``.

``POST /v1/responses`` carries ``input`` (a text, or a list of items), ``instructions``,
function ``tools`` in the Responses shape, ``previous_response_id`` and ``conversation``.
``parse_responses`` turns it into what the Chat Completions path already runs
(``chat_request.ChatCall``), so both routes reconcile and record one way:

- a text ``input`` is one user message; items become reverie ``Message`` values: a
  ``message`` item (or a bare ``{role, content}``) with ``input_text``/``output_text``/
  ``refusal`` parts as text and ``input_image`` as an ``image_url`` part; ``function_call``
  items join the assistant message before them as its tool calls (the shape the proxy records
  an answer in), ``function_call_output`` is a ``tool`` message; ``reasoning`` items are
  left out (they are the model's, not the conversation's); system and developer messages are
  instructions, like ``instructions`` itself: forwarded, never recorded;
- only ``function`` tools exist for a chat-completions endpoint: any other tool type is
  refused (400, ``param`` ``tools[i]``);
- the session: ``X-Reverie-Session``, else ``conversation`` (an id or ``{"id": ...}``), else
  the session of ``previous_response_id`` (``known``: the route's map, None when the id is
  unknown: 400), else ``metadata.session`` / ``metadata.conversation_id``, else
  ``api:default``.

The chat body forwarded upstream keeps ``model``, ``temperature``, ``top_p``,
``parallel_tool_calls``, ``user``, ``tool_choice`` and ``tools`` (reshaped),
``max_output_tokens`` as ``max_tokens``, and ``text.format`` as ``response_format``, with
``stream`` false (the route turns it on for a streamed response). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from reverie.core.messages import JSONObject, JSONValue, Message, MessageFormatError, ToolCall
from reverie.llm.provider import ToolSchema
from reverie.serve.chat_request import (
    SESSION_HEADER,
    BadRequestError,
    ChatCall,
    checked_session_key,
    is_retry,
    metadata_session,
    named_principal,
)
from reverie.serve.reconcile import INSTRUCTION_ROLES

KEPT = ("model", "temperature", "top_p", "parallel_tool_calls", "user")
TEXT_PARTS = ("input_text", "output_text", "text", "refusal")


def parse_responses(
    body: JSONValue, headers: Mapping[str, str], known: Callable[[str], str | None]
) -> ChatCall:
    """The ``ChatCall`` a Responses request asks for (``BadRequestError`` naming the field)."""
    if not isinstance(body, dict):
        raise BadRequestError("the request body must be a JSON object")
    instructions, conversation = _input(body.get("input"))
    given = body.get("instructions")
    if given is not None and not isinstance(given, str):
        raise BadRequestError("'instructions' must be a string", param="instructions")
    tools, chat_tools = _tools(body.get("tools"))
    chat: JSONObject = {key: body[key] for key in KEPT if key in body}
    chat["stream"] = False
    if chat_tools:
        chat["tools"] = chat_tools
    if "tool_choice" in body:
        chat["tool_choice"] = _tool_choice(body["tool_choice"])
    if isinstance(body.get("max_output_tokens"), int):
        chat["max_tokens"] = body["max_output_tokens"]
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") in ("json_schema", "json_object"):
        chat["response_format"] = _response_format(fmt)
    return ChatCall(
        body=chat,
        principal=named_principal(body, headers),
        session=session_of(body, headers, known),
        instructions=tuple([given] if given else []) + instructions,
        conversation=conversation,
        tools=tools,
        stream=body.get("stream") is True,
        retried=is_retry(headers),
    )


def session_of(
    body: JSONObject, headers: Mapping[str, str], known: Callable[[str], str | None]
) -> str:
    """The session a Responses request continues (see the module docstring for the order)."""
    header = headers.get(SESSION_HEADER, "").strip()
    if header:
        return checked_session_key(header, SESSION_HEADER)
    conversation = body.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("id")
    if conversation is not None:
        if not isinstance(conversation, str) or not conversation.strip():
            raise BadRequestError("'conversation' must be an id", param="conversation")
        return checked_session_key(conversation.strip(), "conversation")
    previous = body.get("previous_response_id")
    if previous is not None:
        found = known(previous) if isinstance(previous, str) else None
        if found is None:
            raise BadRequestError(
                f"no response {previous!r} is known here", param="previous_response_id"
            )
        return found
    return metadata_session(body)


def _input(raw: JSONValue) -> tuple[tuple[str, ...], tuple[Message, ...]]:
    if isinstance(raw, str):
        return (), (Message(role="user", content=raw),)
    if not isinstance(raw, list) or not raw:
        raise BadRequestError("'input' must be a text or a non-empty list of items", param="input")
    instructions: list[str] = []
    messages: list[Message] = []
    for position, item in enumerate(raw):
        where = f"input[{position}]"
        if not isinstance(item, dict):
            raise BadRequestError(f"{where} must be an object", param=where)
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") in INSTRUCTION_ROLES:
            instructions.append(_text(item.get("content"), where))
        elif kind == "message":
            messages.append(_message(item, where))
        elif kind == "function_call":
            _add_call(messages, _call(item, where))
        elif kind == "function_call_output":
            messages.append(_output(item, where))
        elif kind != "reasoning":
            raise BadRequestError(f"{where}: items of type {kind!r} are not supported", param=where)
    return tuple(instructions), tuple(messages)


def _message(item: JSONObject, where: str) -> Message:
    role, content = item.get("role"), item.get("content")
    if role not in ("user", "assistant"):
        raise BadRequestError(
            f"{where}.role must be user, assistant, system or developer", param=f"{where}.role"
        )
    parts = _parts(content, where)
    try:
        return Message.from_json({"role": role, "content": parts})
    except MessageFormatError as exc:
        raise BadRequestError(f"{where}: {exc}", param=where) from exc


def _parts(content: JSONValue, where: str) -> JSONValue:
    """The chat-completions content of a Responses message's content."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise BadRequestError(f"{where}.content must be a text or a list", param=f"{where}.content")
    parts: list[JSONValue] = []
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(part, dict) and kind in TEXT_PARTS:
            said = part.get("text", part.get("refusal"))
            parts.append({"type": "text", "text": said if isinstance(said, str) else ""})
        elif (
            isinstance(part, dict)
            and kind == "input_image"
            and isinstance(part.get("image_url"), str)
        ):
            parts.append({"type": "image_url", "image_url": {"url": part["image_url"]}})
        else:
            spot = f"{where}.content[{index}]"
            raise BadRequestError(f"{spot}: content of type {kind!r} is not supported", param=spot)
    if all(isinstance(p, dict) and p.get("type") == "text" for p in parts):
        return "".join(str(p["text"]) for p in parts if isinstance(p, dict))
    return parts


def _text(content: JSONValue, where: str) -> str:
    found = _parts(content, where)
    if not isinstance(found, str):
        raise BadRequestError(f"{where}: instructions must be text", param=where)
    return found


def _call(item: JSONObject, where: str) -> ToolCall:
    call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments", "{}")
    if not isinstance(call_id, str) or not isinstance(name, str) or not isinstance(arguments, str):
        raise BadRequestError(
            f"{where}: a function_call needs string call_id, name and arguments", param=where
        )
    return ToolCall(id=call_id, name=name, arguments=arguments)


def _add_call(messages: list[Message], call: ToolCall) -> None:
    """Join ``call`` to the assistant message before it, as the proxy records an answer."""
    if messages and messages[-1].role == "assistant":
        last = messages.pop()
        messages.append(
            Message(
                role="assistant", content=last.content or None, tool_calls=(*last.tool_calls, call)
            )
        )
    else:
        messages.append(Message(role="assistant", content=None, tool_calls=(call,)))


def _output(item: JSONObject, where: str) -> Message:
    call_id, output = item.get("call_id"), item.get("output")
    if not isinstance(call_id, str):
        raise BadRequestError(
            f"{where}: a function_call_output needs a string call_id", param=where
        )
    text = output if isinstance(output, str) else _parts(output, where)
    return Message(
        role="tool", content=text if isinstance(text, str) else str(text), tool_call_id=call_id
    )


def _tools(raw: JSONValue) -> tuple[tuple[ToolSchema, ...], list[JSONValue]]:
    if raw is None:
        return (), []
    if not isinstance(raw, list):
        raise BadRequestError("'tools' must be a list", param="tools")
    schemas: list[ToolSchema] = []
    chat: list[JSONValue] = []
    for position, tool in enumerate(raw):
        where = f"tools[{position}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise BadRequestError(
                f"{where}: only function tools reach a chat-completions model", param=where
            )
        name, parameters = tool.get("name"), tool.get("parameters")
        if not isinstance(name, str) or not name:
            raise BadRequestError(f"{where}: a function tool needs a 'name'", param=where)
        description = tool.get("description")
        function: JSONObject = {
            "name": name,
            "description": description if isinstance(description, str) else "",
        }
        function["parameters"] = (
            parameters if isinstance(parameters, dict) else {"type": "object", "properties": {}}
        )
        if isinstance(tool.get("strict"), bool):
            function["strict"] = tool["strict"]
        chat.append({"type": "function", "function": function})
        schemas.append(
            ToolSchema(
                name=name,
                description=str(function["description"]),
                parameters=dict(parameters) if isinstance(parameters, dict) else {},
            )
        )
    return tuple(schemas), chat


def _tool_choice(raw: JSONValue) -> JSONValue:
    if isinstance(raw, dict) and raw.get("type") == "function" and isinstance(raw.get("name"), str):
        return {"type": "function", "function": {"name": raw["name"]}}
    if raw in ("auto", "none", "required"):
        return raw
    raise BadRequestError(
        "'tool_choice' must be auto, none, required or a function", param="tool_choice"
    )


def _response_format(fmt: JSONObject) -> JSONObject:
    if fmt.get("type") == "json_object":
        return {"type": "json_object"}
    schema: JSONObject = {
        key: fmt[key] for key in ("name", "schema", "strict", "description") if key in fmt
    }
    return {"type": "json_schema", "json_schema": schema}
