"""OpenAI-style message lists: JSON or JSON Lines files of chat-completions messages.

Accepted shapes (``role``/``content``/``tool_calls``/``tool_call_id``/``name`` per message):

- JSON: a list of messages (one conversation); a list of conversations, each an object with
  ``messages`` (and optional ``id``/``conversation_id`` and ``title``) or a bare list of
  messages; or one conversation object.
- JSON Lines: one message per line (one conversation), or one conversation per line.

A message's time is read from ``timestamp``, else ``created_at``, else ``create_time`` (ISO
8601 or epoch seconds; a naive time is in ``local_tz``). ``developer`` messages count as
``system``; system messages are not part of the conversation and are left out. Keys:
``import:openai:<id>`` when a conversation has an id, else ``import:openai:<file stem>:<n>``
(``n`` its 1-based record or line), or ``import:openai:<file stem>`` for a file that is one
conversation. A record that is not valid is an ``ImportProblem``; the rest is imported.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import tzinfo
from pathlib import Path

from reverie.core.messages import JSONValue, Message, MessageFormatError
from reverie.memory.ingest.importers.conversation import (
    ImportedConversation,
    ImportProblem,
    ProgressCallback,
    Unit,
)
from reverie.memory.ingest.importers.times import read_time
from reverie.memory.ingest.importers.tool_pairs import pair_tool_calls

_TIME_KEYS = ("timestamp", "created_at", "create_time")


@dataclass(slots=True, kw_only=True)
class OpenAIReader:
    """Reads one OpenAI-style file that has already been parsed or split into lines."""

    path: Path
    local_tz: tzinfo | None = None
    on_progress: ProgressCallback | None = None

    problems: list[ImportProblem] = field(default_factory=list, init=False)
    conversations: list[ImportedConversation] = field(default_factory=list, init=False)

    def read_json(self, data: JSONValue) -> None:
        """Read a parsed JSON document (see the module docstring for its shapes)."""
        if isinstance(data, dict):
            self._conversation(data, number=1, key=f"import:openai:{self.path.stem}")
        elif isinstance(data, list) and is_message_list(data):
            self._conversation({"messages": data}, number=1, key=f"import:openai:{self.path.stem}")
        elif isinstance(data, list):
            for number, item in enumerate(data, start=1):
                self._conversation(item, number=number)
                self._progress(number, len(data))

    def read_lines(self, lines: Sequence[bytes]) -> None:
        """Read JSON Lines: one message per line, or one conversation per line.

        The first valid line decides which: an object without ``messages`` is a message.
        """
        per_message: list[tuple[int, JSONValue]] = []
        mode: str | None = None
        for number, raw in enumerate(lines, start=1):
            self._progress(number, len(lines))
            if not raw.strip():
                continue
            try:
                item: JSONValue = json.loads(raw)
            except ValueError as exc:
                self._problem(number, f"not valid JSON ({exc})")
                continue
            except RecursionError:
                self._problem(number, "JSON nested too deeply to read")
                continue
            if mode is None:
                is_message = isinstance(item, dict) and "messages" not in item
                mode = "message" if is_message else "conversation"
            if mode == "message":
                per_message.append((number, item))
            else:
                self._conversation(item, number=number, unit="line")
        if per_message:
            self._message_lines(per_message)

    def _message_lines(self, numbered: list[tuple[int, JSONValue]]) -> None:
        messages: list[Message] = []
        for number, item in numbered:
            try:
                message = parse_message(item, self.local_tz)
            except MessageFormatError as exc:
                self._problem(number, str(exc))
                continue
            if message is not None:
                messages.append(message)
        self._keep(f"import:openai:{self.path.stem}", None, messages)

    def _conversation(
        self, item: JSONValue, *, number: int, key: str | None = None, unit: Unit = "record"
    ) -> None:
        if isinstance(item, list):
            item = {"messages": item}
        raw_messages = item.get("messages") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(raw_messages, list):
            self._problem(number, "not a conversation (an object with a 'messages' list)", unit)
            return
        ident = item.get("id") or item.get("conversation_id")
        if isinstance(ident, str | int) and not isinstance(ident, bool) and key is None:
            key = f"import:openai:{ident}"
        title = item.get("title")
        messages: list[Message] = []
        for index, raw in enumerate(raw_messages, start=1):
            try:
                message = parse_message(raw, self.local_tz)
            except MessageFormatError as exc:
                self._problem(number, f"message {index}: {exc}", unit)
                continue
            if message is not None:
                messages.append(message)
        key = key or f"import:openai:{self.path.stem}:{number}"
        self._keep(key, title if isinstance(title, str) else None, messages)

    def _keep(self, key: str, title: str | None, messages: list[Message]) -> None:
        if messages:
            conversation = ImportedConversation(
                key=key, title=title, messages=pair_tool_calls(messages), source=self.path
            )
            self.conversations.append(conversation)

    def _problem(self, position: int, reason: str, unit: Unit = "line") -> None:
        self.problems.append(
            ImportProblem(path=self.path, position=position, reason=reason, unit=unit)
        )

    def _progress(self, done: int, total: int) -> None:
        if self.on_progress is not None:
            self.on_progress(done, total)


def is_message_list(items: list[JSONValue]) -> bool:
    """True when a JSON list holds messages (its first object has a ``role``)."""
    first = next((item for item in items if isinstance(item, dict)), None)
    return first is not None and "role" in first and "messages" not in first


def parse_message(raw: JSONValue, local_tz: tzinfo | None) -> Message | None:
    """Parse one OpenAI-style message; None for a system message (left out of imports).

    Raises:
        MessageFormatError: the object is not a valid message.
    """
    if not isinstance(raw, dict):
        raise MessageFormatError(f"message must be an object, got {type(raw).__name__}")
    obj = dict(raw)
    if obj.get("role") == "developer":
        obj["role"] = "system"
    moment = next((read_time(obj[k], local_tz=local_tz) for k in _TIME_KEYS if k in obj), None)
    obj.pop("timestamp", None)
    message = Message.from_json(obj)
    if message.role == "system":
        return None
    return replace(message, timestamp=moment)
