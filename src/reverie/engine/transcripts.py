"""Raw transcripts through ``MemoryEngine``: kept on the owner's opt-in, read by two readers.

With ``[sessions] raw_transcripts = true`` (off by default), ``record`` admits each message
with its secrets in, stores its redacted form in the session as always, and keeps the raw form
of the messages that differ beside it (``reverie.storage.folder.raw_transcripts``). Two readers
see the raw form: the session's own prompt (``own_view``: the model reads what this
conversation really said; the built-in agent of ``chat``/``ask`` through ``RawKept``) and the
owner's ``MemoryEngine.transcript(key, raw=True)``. Every other reader (search, recall,
vectors, MCP, the viewer, exports, compaction and so history, the ledger, other sessions'
prompts) reads the redacted session. A folder workspace only: on a database workspace the
setting is refused (``StoreUnsupportedError``) before anything is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from reverie.core.inbound import redact_message
from reverie.errors import StoreUnsupportedError

if TYPE_CHECKING:
    from reverie.config.settings import Config
    from reverie.core.messages import Message
    from reverie.core.session import Session
    from reverie.storage.ports import Backend, RawTranscriptsPort

SETTING = "raw transcripts ([sessions] raw_transcripts = true)"
"""How a refusal names the setting."""


def raw_store(stores: Backend, config: Config) -> RawTranscriptsPort | None:
    """The store of raw transcripts when the owner opted in (None: off, the default).

    Raises:
        StoreUnsupportedError: opted in on a backend that keeps no raw transcripts (a
            database workspace); nothing is written.
    """
    if not config.sessions.raw_transcripts:
        return None
    store = stores.raw_transcripts
    if store is None:
        raise StoreUnsupportedError(SETTING, where=stores.location)
    return store


def redacted(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The forms the session keeps."""
    return tuple(redact_message(message) for message in messages)


def keep_raw(
    store: RawTranscriptsPort,
    key: str,
    indices: range,
    raw: Sequence[Message],
    kept: Sequence[Message],
) -> None:
    """Keep the raw form of each message whose kept form had a secret redacted."""
    store.keep_raw(
        key,
        {index: said for index, said, held in zip(indices, raw, kept, strict=True) if said != held},
    )


@dataclass(frozen=True, slots=True)
class RawKept:
    """The built-in agent's way to the raw transcripts (``memory.agent.RawTranscript``)."""

    store: RawTranscriptsPort

    def keep(self, key: str, index: int, said: Message) -> None:
        """Keep ``said`` as the raw form of message ``index`` of session ``key``."""
        self.store.keep_raw(key, {index: said})

    def view(self, session: Session) -> Session:
        """``session`` as its own prompt reads it."""
        return own_view(self.store, session)


def own_view(store: RawTranscriptsPort, session: Session) -> Session:
    """``session`` with its raw messages in place of their redacted forms (for its own prompt)."""
    raws = store.raw_messages(session.key)
    if not raws:
        return session
    messages = tuple(raws.get(index, m) for index, m in enumerate(session.messages))
    return replace(session, messages=messages)
