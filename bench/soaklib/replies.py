"""What the soak's model says: a reply made up on the fly from each request, faults included.

``Replier.answer`` reads one chat-completions request body, tells which memory job sent it by
its system prompt (the built-in compaction or dream instructions; anything else is a chat
turn), and either answers like a cooperative model or injects a fault drawn from a seeded RNG:

- transport: a delay past the client timeout, 429 with a short or an over-long Retry-After,
  500, 503, a 200 whose body is not JSON;
- content: a reply cut off (finish reason ``length``), an empty reply;
- per job: tool calls where none were asked (compaction), arguments that are not JSON and
  unknown tool names (chat and dream), hostile paths (``../x``, ``.git/config``, absolute
  paths, a symlinked skill folder, the history log, ...) and a model that loops its edits
  (dream): the same edit every round, edits that undo each other, or a new edit every round
  that never ends.

A cooperative dream run takes two tool rounds (whole-file writes of USER.md and
memory/MEMORY.md, then an exact ``edit_file`` of the text it wrote) and a final answer. The
server keeps no state between requests: a dream run's mode and round travel in the tool call
ids it gave, which the client sends back in the conversation.

Like a real model it honours ``max_tokens`` (a longer answer is cut and marked ``length``) and
reports usage no larger than what the client itself counts for the prompt (``wire``), so the
dream token budget is a hard bound the soak can check in the ledger. No I/O here.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Literal, cast

from reverie import prompts
from reverie.core.messages import JSONObject, JSONValue
from reverie.core.token_estimate import TokenCounter
from soaklib.wire import Answer, Call, Completion, render, text_of

Job = Literal["compaction", "dream", "chat"]

COMPACTION_PROMPT = prompts.load("compaction")
DREAM_PROMPT = prompts.load("dream")

TRANSPORT_FAULTS = ("timeout", "rate_limit", "rate_limit_long", "server_error", "unavailable")
CONTENT_FAULTS = ("garbage", "truncated", "empty")
JOB_FAULTS: dict[Job, tuple[str, ...]] = {
    "compaction": ("tool_calls_unasked",),
    "chat": ("bad_json_args", "unknown_tool"),
    "dream": (
        "bad_json_args",
        "unknown_tool",
        "hostile_paths",
        "loop_edits",
        "flip_flop_edits",
        "endless_edits",
    ),
}
SKILL_PATH = "skills/soak-notes/SKILL.md"
LOOP_FAULTS = {"loop_edits": "loop", "flip_flop_edits": "flip", "endless_edits": "endless"}
LOOPS = tuple(f"{mode}-" for mode in LOOP_FAULTS.values())
"""Tool call id prefixes that carry a looping dream run from one request to the next."""


def classify(messages: list[JSONObject]) -> Job:
    """Which memory job sent a request, from its first (system) message."""
    first = messages[0] if messages else {}
    content = first.get("content") if first.get("role") == "system" else None
    if content == COMPACTION_PROMPT:
        return "compaction"
    if content == DREAM_PROMPT:
        return "dream"
    return "chat"


def short_hash(text: str) -> str:
    """Eight hex digits naming ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def _args(**values: str) -> str:
    return json.dumps(values)


def _previous_call_id(messages: list[JSONObject]) -> str | None:
    """The first tool call id of the last assistant message, if it called tools."""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            calls = message.get("tool_calls")
            if isinstance(calls, list) and calls and isinstance(calls[0], dict):
                call_id = calls[0].get("id")
                return call_id if isinstance(call_id, str) else None
            return None
    return None


class Replier:
    """Makes up answers (see the module docstring); not thread-safe, the server locks it."""

    def __init__(
        self,
        *,
        rng: random.Random,
        counter: TokenCounter,
        fault_rate: float,
        timeout_delay: float,
        hostile_paths: tuple[str, ...],
    ) -> None:
        self._rng = rng
        self._counter = counter
        self.fault_rate = fault_rate
        self._timeout_delay = timeout_delay
        self._hostile = hostile_paths
        self._first = True

    def answer(self, body: JSONObject) -> tuple[Job, Answer]:
        """Return the job that asked and the answer to give it."""
        messages = cast("list[JSONValue]", body.get("messages") or [])
        objects = [m for m in messages if isinstance(m, dict)]
        job = classify(objects)
        fault = self._draw(job, objects)
        transport = self._transport(fault)
        if transport is not None:
            return job, transport
        if fault == "garbage":
            return job, Answer(body=b'{"choices": [{"message": ', fault=fault)
        completion = self._complete(job, objects, body, fault)
        return job, render(body, objects, completion, self._counter, fault=fault)

    def _draw(self, job: Job, messages: list[JSONObject]) -> str | None:
        """A dream run's first call draws its mode first; then any call may draw a fault.

        The very first request always gets a transport fault (when faults are on), so even the
        shortest run exercises the retry path, whatever order its requests arrive in.
        """
        if self._first and self.fault_rate > 0:
            self._first = False
            return self._rng.choice(TRANSPORT_FAULTS)
        first_dream_call = job == "dream" and _previous_call_id(messages) is None
        if first_dream_call and self._rng.random() < self.fault_rate:
            return self._rng.choice(JOB_FAULTS["dream"])
        if self._rng.random() >= self.fault_rate:
            return None
        kinds = TRANSPORT_FAULTS + CONTENT_FAULTS + (() if job == "dream" else JOB_FAULTS[job])
        return self._rng.choice(kinds)

    def _transport(self, fault: str | None) -> Answer | None:
        error = _args(message=f"soak fault: {fault}", type="server_error")
        body = ('{"error": ' + error + "}").encode()
        if fault == "timeout":
            return Answer(delay=self._timeout_delay, body=body, fault=fault)
        if fault in ("rate_limit", "rate_limit_long"):
            wait = "0.05" if fault == "rate_limit" else "600"
            headers = (("Content-Type", "application/json"), ("Retry-After", wait))
            return Answer(status=429, body=body, headers=headers, fault=fault)
        if fault == "server_error":
            return Answer(status=500, body=body, fault=fault)
        if fault == "unavailable":
            return Answer(status=503, body=body, fault=fault)
        return None

    def _complete(
        self, job: Job, messages: list[JSONObject], body: JSONObject, fault: str | None
    ) -> Completion:
        if fault == "truncated":
            return Completion(text="- [durable] the user said that the", finish="length")
        if fault == "empty":
            return Completion(text="")
        if job == "compaction":
            return self._compaction(messages, fault)
        if job == "dream":
            return self._dream(messages, fault)
        return self._chat(messages, body, fault)

    def _compaction(self, messages: list[JSONObject], fault: str | None) -> Completion:
        if fault == "tool_calls_unasked":
            return Completion(calls=(("cmp-0", "search_memory", _args(query="x")),))
        tag = short_hash(text_of(messages[-1]))
        if self._rng.random() < 0.1:
            return Completion(text="(nothing)")
        return Completion(
            text=f"- [durable] soak fact {tag}\n- [ephemeral] the user was testing {tag}"
        )

    def _chat(self, messages: list[JSONObject], body: JSONObject, fault: str | None) -> Completion:
        tag = short_hash(text_of(messages[-1]))
        if fault == "bad_json_args":
            return Completion(calls=(("chat-bad", "search_memory", '{"query": soak'),))
        if fault == "unknown_tool":
            return Completion(calls=(("chat-unknown", "delete_memory", _args(name="USER")),))
        last_is_tool = messages[-1].get("role") == "tool" if messages else False
        may_call = bool(body.get("tools")) and body.get("tool_choice") != "none"
        if may_call and not last_is_tool and self._rng.random() < 0.25:
            return Completion(calls=(("chat-search", "search_memory", _args(query="soak")),))
        return Completion(text=f"Noted ({tag}). Anything else?")

    def _dream(self, messages: list[JSONObject], fault: str | None) -> Completion:
        tag = short_hash(text_of(messages[1]) if len(messages) > 1 else "")
        previous = _previous_call_id(messages)
        if previous is None:
            return self._dream_first(tag, fault)
        if previous.startswith(LOOPS):
            return self._loop_edit(tag, previous)
        if previous.startswith("normal-0"):
            edit = _args(
                path="memory/MEMORY.md",
                old_text=f"- batch {tag} curated",
                new_text=f"- batch {tag} reviewed",
            )
            return Completion(calls=(("normal-1-0", "edit_file", edit),))
        return Completion(text=f"Done: curated batch {tag}.")

    def _dream_first(self, tag: str, fault: str | None) -> Completion:
        if fault in LOOP_FAULTS:
            return self._loop_edit(tag, LOOP_FAULTS[fault] + "-0")
        if fault == "hostile_paths":
            return Completion(calls=self._hostile_calls())
        if fault == "bad_json_args":
            return Completion(calls=(("bad-0", "edit_file", '{"path": "USER.md", "old_text": '),))
        if fault == "unknown_tool":
            unknown = (
                ("unknown-0", "run_shell", _args(command="cat .git/config")),
                ("unknown-1", "delete_file", _args(path="SOUL.md")),
            )
            return Completion(calls=unknown)
        user = f"# User\n\n- soak batch {tag}\n- prefers short answers\n"
        memory = f"# Memory\n\n- batch {tag} curated by the soak model\n"
        calls: list[Call] = [
            ("normal-0-0", "write_file", _args(path="USER.md", content=user)),
            ("normal-0-1", "write_file", _args(path="memory/MEMORY.md", content=memory)),
        ]
        if self._rng.random() < 0.2:
            skill = f"# Soak notes\n\n1. Curate batch {tag}.\n"
            calls.append(("normal-0-2", "write_file", _args(path=SKILL_PATH, content=skill)))
        return Completion(calls=tuple(calls))

    def _loop_edit(self, tag: str, previous: str) -> Completion:
        """The same edit again (loop), A/B/A (flip), or a new line every round (endless)."""
        mode, last = previous.split("-")[:2]
        rounds = int(last) + 1
        lines = {
            "loop": [f"- looping on {tag}"],
            "flip": [f"- flipping {tag} {'AB'[rounds % 2]}"],
            "endless": [f"- endless fact {n} of {tag}" for n in range(rounds)],
        }[mode]
        content = "# User\n\n" + "\n".join(lines) + "\n"
        call = (f"{mode}-{rounds}", "write_file", _args(path="USER.md", content=content))
        return Completion(calls=(call,))

    def _hostile_calls(self) -> tuple[Call, ...]:
        picked = self._rng.sample(self._hostile, k=min(3, len(self._hostile)))
        calls: list[Call] = []
        for n, path in enumerate(picked):
            tool = self._rng.choice(("write_file", "edit_file", "apply_patch", "read_file"))
            arguments = {
                "write_file": _args(path=path, content="pwned\n"),
                "edit_file": _args(path=path, old_text="canary", new_text="pwned"),
                "apply_patch": _args(path=path, patch="@@ -1,1 +1,1 @@\n-canary\n+pwned\n"),
                "read_file": _args(path=path),
            }[tool]
            calls.append((f"hostile-{n}", tool, arguments))
        return tuple(calls)
