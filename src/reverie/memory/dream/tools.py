"""The four file tools the dream model may call, over the run's ``Staging`` copy.

``DreamTools`` owns what each tool does and what it tells the model: ``read_file``,
``edit_file`` (exact, unique replacement), ``apply_patch`` (unified-diff hunks, see ``patch``)
and ``write_file``. Writes only ever reach the staging copy (``staging.Staging``, over any
backend's dream files); nothing here writes a store. Every path goes through
``confine`` first, then the stores' own check (``Staging.resolve``: on a folder, the real
tree).

Invariant: a tool call never raises. A refusal, a bad argument, an edit that does not match or
an unreadable file comes back as ``ToolOutcome(ok=False, text=...)`` whose text tells the model
what to fix. A successful write-type call carries an ``EditRecord`` (content hashes before and
after, even for a no-op) that the no-progress detector consumes. Written text is capped at
``max_file_chars`` (a file already over the cap may still shrink) and may not hold NUL.

``TOOL_SPECS`` describes the tools as plain JSON-schema data for the model layer to wrap; this
module must not import ``reverie.llm``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from reverie.core.writable import canonical_writable
from reverie.errors import ConfinementError, PatchError, StorageError
from reverie.memory.dream.patch import apply_patch
from reverie.memory.dream.staging import Staging, unified_diff
from reverie.memory.dream.tool_specs import TOOL_SPECS

MAX_FILE_CHARS = 64_000
MAX_READ_CHARS = 64_000

StagingT = TypeVar("StagingT", bound=Staging)


@dataclass(frozen=True, slots=True, kw_only=True)
class EditRecord:
    """A successful write-type call: which file, and its content hash before and after."""

    path: str
    before_sha256: str
    after_sha256: str

    @property
    def changed(self) -> bool:
        """True when the call changed the file's staged text."""
        return self.before_sha256 != self.after_sha256


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutcome:
    """What one tool call did: success, the text for the model, and the file it changed."""

    ok: bool
    text: str
    changed: str | None = None
    """The canonical path whose staged text changed, None when nothing changed."""
    edit: EditRecord | None = None
    """Set for every successful edit_file, apply_patch or write_file call (even a no-op)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Refusal:
    message: str


class DreamTools(Generic[StagingT]):
    """The dream model's file tools, confined to the writable files of one overlay."""

    def __init__(
        self,
        staging: StagingT,
        *,
        max_file_chars: int = MAX_FILE_CHARS,
        max_read_chars: int = MAX_READ_CHARS,
    ) -> None:
        self.staging = staging
        self.max_file_chars = max_file_chars
        self.max_read_chars = max_read_chars

    def call(self, name: str, arguments: str) -> ToolOutcome:
        """Run the tool ``name`` with the model's JSON ``arguments`` text.

        Returns:
            The outcome; unknown tools and malformed arguments are failed outcomes.
        """
        spec = next((spec for spec in TOOL_SPECS if spec.name == name), None)
        if spec is None:
            known = ", ".join(spec.name for spec in TOOL_SPECS)
            return ToolOutcome(ok=False, text=f"unknown tool {name!r}; the tools are {known}")
        try:
            parsed = json.loads(arguments)
        except (ValueError, RecursionError) as exc:
            return ToolOutcome(ok=False, text=f"{name}: arguments are not valid JSON ({exc})")
        if not isinstance(parsed, dict):
            return ToolOutcome(ok=False, text=f"{name}: arguments must be a JSON object")
        wanted = list(spec.required)
        problem = _argument_problem(parsed, wanted)
        if problem is not None:
            return ToolOutcome(ok=False, text=f"{name}: {problem}")
        values = [parsed[key] for key in wanted]
        handlers: dict[str, Callable[..., ToolOutcome]] = {
            "read_file": self.read_file,
            "edit_file": self.edit_file,
            "apply_patch": self.apply_patch,
            "write_file": self.write_file,
        }
        return handlers[name](*values)

    def read_file(self, path: str) -> ToolOutcome:
        """Return a workspace file's text: the staged text for writable files."""
        try:
            canonical = canonical_writable(path)
        except ConfinementError:
            return self._read_other(path)
        try:
            text = self.staging.read(self.staging.resolve(canonical))
        except (ConfinementError, StorageError) as exc:
            return ToolOutcome(ok=False, text=str(exc))
        if text == "":
            return ToolOutcome(ok=True, text=f"({canonical} is empty or does not exist yet)")
        return ToolOutcome(ok=True, text=self._capped(text))

    def edit_file(self, path: str, old_text: str, new_text: str) -> ToolOutcome:
        """Replace the one place where ``old_text`` occurs in a writable file with ``new_text``."""

        def replace(canonical: str, current: str) -> str | _Refusal:
            if old_text == "":
                return _Refusal(
                    message="old_text is empty; use write_file to create or replace a file"
                )
            count = _occurrences(current, old_text)
            if count != 1:
                fix = (
                    "read the file and copy the text exactly, including whitespace"
                    if count == 0
                    else "include more surrounding text so it matches exactly one place"
                )
                return _Refusal(message=f"old_text matches {count} places in {canonical}; {fix}")
            return current.replace(old_text, new_text, 1)

        return self._change(path, replace)

    def apply_patch(self, path: str, patch: str) -> ToolOutcome:
        """Apply unified-diff hunks to a writable file."""

        def patched(canonical: str, current: str) -> str | _Refusal:
            try:
                return apply_patch(current, patch)
            except PatchError as exc:
                return _Refusal(message=f"patch not applied to {canonical}: {exc}")

        return self._change(path, patched)

    def write_file(self, path: str, content: str) -> ToolOutcome:
        """Replace a writable file's whole text (creating it, e.g. a new skill)."""
        return self._change(path, lambda _canonical, _current: content)

    def _change(self, path: str, action: Callable[[str, str], str | _Refusal]) -> ToolOutcome:
        try:
            canonical = self.staging.resolve(path)
            before = self.staging.read(canonical)
        except (ConfinementError, StorageError) as exc:
            return ToolOutcome(ok=False, text=str(exc))
        after = action(canonical, before)
        if isinstance(after, str):
            after = self._content_problem(after, before) or after
        if isinstance(after, _Refusal):
            return ToolOutcome(ok=False, text=after.message)
        self.staging.write(canonical, after)
        record = EditRecord(path=canonical, before_sha256=_sha(before), after_sha256=_sha(after))
        if not record.changed:
            return ToolOutcome(
                ok=True, text=f"no change: {canonical} already holds this text", edit=record
            )
        return ToolOutcome(
            ok=True, text=_summary(canonical, before, after), changed=canonical, edit=record
        )

    def _content_problem(self, after: str, before: str) -> _Refusal | None:
        if "\x00" in after:
            return _Refusal(
                message="the new text contains a NUL character; files hold plain text only"
            )
        try:
            after.encode("utf-8")
        except UnicodeEncodeError:
            return _Refusal(
                message="the new text contains unpaired surrogates; send valid Unicode text"
            )
        if len(after) > self.max_file_chars and len(after) >= len(before):
            return _Refusal(
                message=f"the new text would be {len(after):,} characters; the limit is "
                f"{self.max_file_chars:,}: keep durable files short, prune instead of appending"
            )
        return None

    def _read_other(self, path: str) -> ToolOutcome:
        try:
            data = self.staging.read_other(path, self.max_read_chars)
        except ConfinementError as exc:
            return ToolOutcome(ok=False, text=str(exc))
        except OSError as exc:
            return ToolOutcome(ok=False, text=f"cannot read {path!r} ({exc.strerror})")
        text = _decode(data, truncated=len(data) > self.max_read_chars * 4)
        if text is None or "\x00" in text:
            return ToolOutcome(ok=False, text=f"{path!r} is not a UTF-8 text file")
        return ToolOutcome(ok=True, text=self._capped(text) if text else f"({path} is empty)")

    def _capped(self, text: str) -> str:
        if len(text) <= self.max_read_chars:
            return text
        shown = text[: self.max_read_chars]
        return f"{shown}\n[truncated: showing the first {self.max_read_chars:,} characters]"


def _argument_problem(parsed: dict[str, object], wanted: list[str]) -> str | None:
    missing = [key for key in wanted if key not in parsed]
    if missing:
        return f"missing argument(s) {', '.join(missing)}"
    extra = sorted(set(parsed) - set(wanted))
    if extra:
        return f"unexpected argument(s) {', '.join(extra)}"
    wrong = [key for key in wanted if not isinstance(parsed[key], str)]
    if wrong:
        return f"argument(s) {', '.join(wrong)} must be strings"
    return None


def _occurrences(text: str, needle: str) -> int:
    """Count matches of ``needle`` in ``text``, overlapping ones included."""
    count, start = 0, text.find(needle)
    while start != -1:
        count += 1
        start = text.find(needle, start + 1)
    return count


def _decode(data: bytes, *, truncated: bool) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A read cut short may split the last character; anything else is not text.
        if truncated and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8")
        return None


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _summary(canonical: str, before: str, after: str) -> str:
    diff = unified_diff(canonical, before, after).splitlines()
    removed = sum(1 for line in diff if line.startswith("-") and not line.startswith("---"))
    added = sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))
    verb = "created" if before == "" else "edited"
    return f"{verb} {canonical} (staged): -{removed} +{added} lines, now {len(after):,} characters"
