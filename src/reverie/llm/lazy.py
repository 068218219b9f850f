"""``LazyProvider``: a provider that is built on its first call, not when it is configured.

Building an SDK client imports the SDK and loads TLS certificates, which costs most of the
time of a CLI command that never calls a model (``status``, ``log``, ``history``...). The
engine wraps configured providers in this, so that cost is paid only by the calls that need it.

Invariant: the wrapped provider is built at most once, even when two threads (the chat REPL
and its background worker) make their first call at the same time. A build that raises is
not cached: the next call tries again and raises the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from reverie.llm.provider import ChatReply, ChatRequest, Provider


class LazyProvider:
    """A ``Provider`` that calls ``build`` on first use and delegates every call to its result."""

    def __init__(self, build: Callable[[], Provider], *, label: str = "") -> None:
        self._build = build
        self._label = label
        self._lock = threading.Lock()
        self._built: Provider | None = None

    @property
    def built(self) -> bool:
        """Whether the real provider exists yet."""
        return self._built is not None

    def provider(self) -> Provider:
        """The real provider, built now if it was not yet."""
        with self._lock:
            if self._built is None:
                self._built = self._build()
            return self._built

    def complete(self, request: ChatRequest) -> ChatReply:
        """Build the real provider if needed, then send ``request`` to it."""
        return self.provider().complete(request)

    def __repr__(self) -> str:
        return f"LazyProvider({self._label or 'unbuilt'}, built={self.built})"
