"""ChatGPT data exports: ``conversations.json``, a list of conversation trees.

Each conversation holds a ``mapping`` of nodes (``message``, ``parent``, ``children``) and a
``current_node``: editing a message or regenerating an answer forks the tree, and only the
path from the root to ``current_node`` is what the person last saw. That path, and only it,
is imported (when ``current_node`` is missing, the path to the newest leaf is used). Left out:
system messages, nodes without a message, messages marked hidden or with weight 0, hidden
content kinds (model thoughts, custom-instruction context) and empty text. Content parts become
text (an image part becomes ``[image]``); ``create_time`` epoch seconds become UTC times.

An assistant message addressed to a tool (``recipient`` other than ``all``) becomes a tool call
whose arguments hold the text (``{"input": ...}``); the tool's answer becomes its result.
Keys are ``import:chatgpt:<conversation id>`` (``import:chatgpt:<file stem>:<n>`` without
one). A conversation whose tree cannot be followed is an ``ImportProblem``; the rest goes on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from reverie.core.messages import JSONObject, JSONValue, Message, ToolCall
from reverie.memory.ingest.importers.conversation import (
    ImportedConversation,
    ImportProblem,
    ProgressCallback,
)
from reverie.memory.ingest.importers.times import read_time
from reverie.memory.ingest.importers.tool_pairs import pair_tool_calls

_HIDDEN_CONTENT = frozenset(
    {"thoughts", "reasoning_recap", "user_editable_context", "model_editable_context"}
)


class BranchError(ValueError):
    """A conversation tree cannot be followed (no nodes, a cycle, no current node)."""


@dataclass(slots=True, kw_only=True)
class ChatGPTReader:
    """Reads the parsed ``conversations.json`` of one ChatGPT export."""

    path: Path
    on_progress: ProgressCallback | None = None

    problems: list[ImportProblem] = field(default_factory=list, init=False)
    conversations: list[ImportedConversation] = field(default_factory=list, init=False)

    def read(self, data: JSONValue) -> None:
        """Read every conversation of the export (a list, or one conversation object)."""
        items = data if isinstance(data, list) else [data]
        for number, item in enumerate(items, start=1):
            try:
                self._conversation(item, number)
            except BranchError as exc:
                self.problems.append(
                    ImportProblem(path=self.path, position=number, reason=str(exc), unit="record")
                )
            if self.on_progress is not None:
                self.on_progress(number, len(items))

    def _conversation(self, item: JSONValue, number: int) -> None:
        raw_mapping = item.get("mapping") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(raw_mapping, dict):
            raise BranchError("not a ChatGPT conversation (an object with a 'mapping')")
        mapping = _nodes(raw_mapping)
        current = item.get("current_node")
        messages = _branch_messages(mapping, current_branch(mapping, current))
        if not messages:
            return
        ident = item.get("conversation_id") or item.get("id")
        key = f"import:chatgpt:{ident}" if isinstance(ident, str) else None
        title = item.get("title")
        self.conversations.append(
            ImportedConversation(
                key=key or f"import:chatgpt:{self.path.stem}:{number}",
                title=title if isinstance(title, str) else None,
                messages=pair_tool_calls(messages),
                source=self.path,
            )
        )


def current_branch(mapping: dict[str, JSONObject], current: JSONValue) -> list[str]:
    """Return the node ids from the root to ``current`` (or to the newest leaf), in order.

    Raises:
        BranchError: the tree is empty or its parent links loop.
    """
    if not mapping:
        raise BranchError("conversation has no nodes")
    node_id: str | None = (
        current if isinstance(current, str) and current in mapping else _newest_leaf(mapping)
    )
    path: list[str] = []
    seen: set[str] = set()
    while node_id is not None and node_id in mapping:
        if node_id in seen:
            raise BranchError(f"parent links loop at node {node_id!r}")
        seen.add(node_id)
        path.append(node_id)
        parent = mapping[node_id].get("parent")
        node_id = parent if isinstance(parent, str) else None
    path.reverse()
    return path


def _nodes(raw: JSONObject) -> dict[str, JSONObject]:
    return {key: value for key, value in raw.items() if isinstance(value, dict)}


def _newest_leaf(mapping: dict[str, JSONObject]) -> str:
    leaves = [key for key, node in mapping.items() if not node.get("children")]
    return max(leaves or list(mapping), key=lambda key: _node_time(mapping[key]))


def _node_time(node: JSONObject) -> float:
    message = node.get("message")
    moment = message.get("create_time") if isinstance(message, dict) else None
    return float(moment) if isinstance(moment, int | float) else 0.0


def _branch_messages(mapping: dict[str, JSONObject], path: list[str]) -> list[Message]:
    messages: list[Message] = []
    last_call: str | None = None
    for node_id in path:
        message = _message(node_id, mapping[node_id].get("message"), last_call)
        if message is None:
            continue
        messages.append(message)
        last_call = message.tool_calls[0].id if message.tool_calls else None
    return messages


def _message(node_id: str, raw: JSONValue, last_call: str | None) -> Message | None:
    if not isinstance(raw, dict) or _hidden(raw):
        return None
    author = raw.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    text = content_text(raw.get("content"))
    if role not in ("user", "assistant", "tool") or not text.strip():
        return None
    moment = read_time(raw.get("create_time"))
    recipient = raw.get("recipient")
    if role == "assistant" and isinstance(recipient, str) and recipient not in ("", "all"):
        arguments = json.dumps({"input": text}, ensure_ascii=False)
        call = ToolCall(id=f"call-{node_id}", name=recipient, arguments=arguments)
        return Message(role="assistant", tool_calls=(call,), timestamp=moment)
    if role == "tool":
        name = author.get("name") if isinstance(author, dict) else None
        return Message(
            role="tool",
            content=text,
            name=name if isinstance(name, str) else "tool",
            tool_call_id=last_call,
            timestamp=moment,
        )
    return Message(role="user" if role == "user" else "assistant", content=text, timestamp=moment)


def _hidden(raw: JSONObject) -> bool:
    metadata = raw.get("metadata")
    if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation"):
        return True
    return raw.get("weight") == 0


def content_text(content: JSONValue) -> str:
    """Return the text of a ChatGPT message's ``content`` object ('' for hidden kinds)."""
    if not isinstance(content, dict) or content.get("content_type") in _HIDDEN_CONTENT:
        return ""
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n".join(filter(None, (_part_text(part) for part in parts))).strip()
    for key in ("text", "result"):
        value = content.get(key)
        if isinstance(value, str):
            return value.strip()
    return ""


def _part_text(part: JSONValue) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        text = part.get("text")
        if isinstance(text, str):
            return text
        if part.get("content_type") == "image_asset_pointer":
            return "[image]"
    return ""
